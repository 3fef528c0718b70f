/*
 * test_cudart_trace.c - STREAMCAP_TRACE=1: every call, of the runtime
 * half, the graph half and the unsupported fallbacks, is printed on stderr
 * with its result, and the trace changes no result and no last error.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sc_cudart.h"

/* An export the stand-in leaves to its weak fallback (docs/cudart.md). */
cudaError_t cudaDeviceFlushGPUDirectRDMAWrites(int target, int scope);

/* What the calls below wrote on stderr. */
static char g_err[8192];

/* Run the calls with stderr sent to a temporary file, then read it back. */
static void capture_calls(void (*calls)(void))
{
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
    calls();
    fflush(stderr);
    assert_true(dup2(saved, STDERR_FILENO) >= 0);
    close(saved);
    rewind(tmp);
    size_t n = fread(g_err, 1, sizeof g_err - 1, tmp);
    g_err[n] = '\0';
    fclose(tmp);
}

static void some_calls(void)
{
    int n = 0;
    void *p = NULL;
    cudaGraph_t g = NULL;
    assert_int_equal(cudaGetDeviceCount(&n), cudaSuccess);
    assert_int_equal(cudaMalloc(NULL, 16), cudaErrorInvalidValue);
    assert_int_equal(cudaPeekAtLastError(), cudaErrorInvalidValue);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
    assert_int_equal(cudaGetLastError(), cudaSuccess);
    assert_int_equal(cudaMalloc(&p, 16), cudaSuccess);
    assert_int_equal(cudaFree(p), cudaSuccess);
    assert_int_equal(cudaGraphCreate(NULL, 0), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
    assert_int_equal(cudaDeviceFlushGPUDirectRDMAWrites(0, 0), cudaErrorNotSupported);
    assert_int_equal(cudaGetLastError(), cudaErrorNotSupported);
}

static void t_trace_lines(void **state)
{
    (void)state;
    capture_calls(some_calls);
    static const char *const want[] = {
        "streamcap trace: cudaGetDeviceCount -> 0 cudaSuccess\n",
        "streamcap trace: cudaMalloc -> 1 cudaErrorInvalidValue\n",
        "streamcap trace: cudaPeekAtLastError -> 1 cudaErrorInvalidValue\n",
        "streamcap trace: cudaGetLastError -> 1 cudaErrorInvalidValue\n",
        "streamcap trace: cudaGetLastError -> 0 cudaSuccess\n",
        "streamcap trace: cudaMalloc -> 0 cudaSuccess\n",
        "streamcap trace: cudaFree -> 0 cudaSuccess\n",
        "streamcap trace: cudaGraphCreate -> 1 cudaErrorInvalidValue\n",
        "streamcap trace: cudaGraphCreate -> 0 cudaSuccess\n",
        "streamcap trace: cudaGraphDestroy -> 0 cudaSuccess\n",
        "streamcap trace: cudaGetLastError -> 1 cudaErrorInvalidValue\n",
        "streamcap trace: cudaDeviceFlushGPUDirectRDMAWrites -> 801 cudaErrorNotSupported\n",
        "streamcap trace: cudaGetLastError -> 801 cudaErrorNotSupported\n",
    };
    /* In this order; other lines (the no-daemon warning) may come between. */
    const char *at = g_err;
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const char *hit = strstr(at, want[i]);
        if (!hit)
            fail_msg("missing \"%s\" after offset %zu in:\n%s", want[i], (size_t)(at - g_err),
                     g_err);
        at = hit + strlen(want[i]);
    }
}

int main(void)
{
    /* Read once, at the first call: set before any. */
    setenv("STREAMCAP_TRACE", "1", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_trace_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
