/*
 * test_cudart_rt.c - the runtime half of libcudart.so.13, called the way a
 * program does, through the project's own declarations (sc_cudart.h).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt.h"
#include "sc_cudart.h"

/* Not declared by the stand-in, which exports it as unsupported: graphics
 * interop, which it has no reason ever to implement. */
cudaError_t cudaVDPAUGetDevice(int *device, unsigned long vdp_device, void *get_proc_address);

static void t_error_strings(void **state)
{
    (void)state;
    assert_string_equal(cudaGetErrorName(cudaErrorStreamCaptureUnjoined),
                        "cudaErrorStreamCaptureUnjoined");
    assert_string_equal(cudaGetErrorString(cudaErrorStreamCaptureUnjoined),
                        "capturing stream has unjoined work");
    assert_string_equal(cudaGetErrorString(cudaSuccess), "no error");
    assert_string_equal(cudaGetErrorName(cudaErrorNotSupported), "cudaErrorNotSupported");
    assert_string_equal(cudaGetErrorString((cudaError_t)123456), "unrecognized error code");
}

static void t_last_error(void **state)
{
    (void)state;
    (void)cudaGetLastError();
    assert_int_equal(cudaSetDevice(3), cudaErrorInvalidDevice);
    assert_int_equal(cudaPeekAtLastError(), cudaErrorInvalidDevice);
    assert_int_equal(cudaPeekAtLastError(), cudaErrorInvalidDevice);
    /* a later success does not clear it */
    assert_int_equal(cudaSetDevice(0), cudaSuccess);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidDevice);
    assert_int_equal(cudaGetLastError(), cudaSuccess);
}

static void t_device(void **state)
{
    (void)state;
    int n = 0, v = 0;
    assert_int_equal(cudaGetDeviceCount(&n), cudaSuccess);
    assert_int_equal(n, 1);
    struct cudaDeviceProp p;
    assert_int_equal(cudaGetDeviceProperties(&p, 0), cudaSuccess);
    assert_true(p.major >= 8);
    assert_int_equal(p.warpSize, 32);
    assert_int_equal(p.memoryPoolsSupported, 1);
    assert_int_equal(cudaDeviceGetAttribute(&v, cudaDevAttrMemoryPoolsSupported, 0), cudaSuccess);
    assert_int_equal(v, 1);
    assert_int_equal(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
    assert_int_equal(v, p.multiProcessorCount);
    assert_int_equal(cudaGetDeviceProperties(&p, 1), cudaErrorInvalidDevice);
    assert_int_equal(cudaDriverGetVersion(&v), cudaSuccess);
    assert_true(v >= 13000);
    assert_int_equal(cudaRuntimeGetVersion(&v), cudaSuccess);
    assert_int_equal(v, 13000);
    (void)cudaGetLastError();
}

static void t_memory_default_direction(void **state)
{
    (void)state;
    int *d = NULL, *h = NULL, *m = NULL;
    int plain[4] = {1, 2, 3, 4}, back[4] = {0};
    assert_int_equal(cudaMalloc((void **)&d, sizeof plain), cudaSuccess);
    assert_int_equal(cudaMallocHost((void **)&h, sizeof plain), cudaSuccess);
    assert_int_equal(cudaMallocManaged((void **)&m, sizeof plain, cudaMemAttachGlobal),
                     cudaSuccess);
    assert_int_equal(sc_rt_memcpy_kind(d, plain, cudaMemcpyDefault), cudaMemcpyHostToDevice);
    assert_int_equal(sc_rt_memcpy_kind(h, d + 1, cudaMemcpyDefault), cudaMemcpyDeviceToHost);
    assert_int_equal(sc_rt_memcpy_kind(m, d, cudaMemcpyDefault), cudaMemcpyDeviceToDevice);
    assert_int_equal(sc_rt_memcpy_kind(h, plain, cudaMemcpyDefault), cudaMemcpyHostToHost);
    assert_int_equal(cudaMemcpy(d, plain, sizeof plain, cudaMemcpyDefault), cudaSuccess);
    assert_int_equal(cudaMemcpyAsync(back, d, sizeof back, cudaMemcpyDefault, 0), cudaSuccess);
    assert_memory_equal(back, plain, sizeof plain);
    assert_int_equal(cudaMemset(d, 0, sizeof plain), cudaSuccess);
    assert_int_equal(cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost), cudaSuccess);
    assert_int_equal(back[2], 0);
    struct cudaPointerAttributes a;
    assert_int_equal(cudaPointerGetAttributes(&a, d + 2), cudaSuccess);
    assert_int_equal(a.type, cudaMemoryTypeDevice);
    assert_int_equal(cudaPointerGetAttributes(&a, m), cudaSuccess);
    assert_int_equal(a.type, cudaMemoryTypeManaged);
    assert_int_equal(cudaPointerGetAttributes(&a, plain), cudaSuccess);
    assert_int_equal(a.type, cudaMemoryTypeUnregistered);
    size_t free_b = 0, total = 0;
    assert_int_equal(cudaMemGetInfo(&free_b, &total), cudaSuccess);
    assert_true(free_b < total);
    assert_int_equal(cudaFree(d), cudaSuccess);
    assert_int_equal(cudaFree(plain), cudaErrorInvalidDevicePointer);
    assert_int_equal(cudaFreeHost(h), cudaSuccess);
    assert_int_equal(cudaFree(m), cudaSuccess);
    (void)cudaGetLastError();
}

static void t_streams_events(void **state)
{
    (void)state;
    cudaStream_t s;
    cudaEvent_t a, b, notime;
    unsigned int flags = 9;
    int prio = 9;
    assert_int_equal(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, -3), cudaSuccess);
    assert_int_equal(cudaStreamGetFlags(s, &flags), cudaSuccess);
    assert_int_equal(flags, cudaStreamNonBlocking);
    assert_int_equal(cudaStreamGetPriority(s, &prio), cudaSuccess);
    assert_int_equal(prio, -3);
    assert_int_equal(cudaEventCreate(&a), cudaSuccess);
    assert_int_equal(cudaEventCreate(&b), cudaSuccess);
    assert_int_equal(cudaEventCreateWithFlags(&notime, cudaEventDisableTiming), cudaSuccess);
    float ms = -1;
    assert_int_equal(cudaEventElapsedTime(&ms, a, b), cudaErrorInvalidResourceHandle);
    assert_int_equal(cudaEventRecord(a, s), cudaSuccess);
    usleep(20000);
    assert_int_equal(cudaEventRecord(b, s), cudaSuccess);
    assert_int_equal(cudaEventRecord(notime, s), cudaSuccess);
    assert_int_equal(cudaEventQuery(b), cudaSuccess);
    assert_int_equal(cudaEventSynchronize(b), cudaSuccess);
    assert_int_equal(cudaStreamQuery(s), cudaSuccess);
    assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
    assert_int_equal(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
    assert_true(ms >= 19.0f && ms < 2000.0f);
    assert_int_equal(cudaEventElapsedTime(&ms, a, notime), cudaErrorInvalidResourceHandle);
    assert_int_equal(cudaEventDestroy(a), cudaSuccess);
    assert_int_equal(cudaEventDestroy(b), cudaSuccess);
    assert_int_equal(cudaEventDestroy(notime), cudaSuccess);
    assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
    (void)cudaGetLastError();
}

/* A host stub registered the way nvcc's host code does it. */
static void scale_stub(void) {}
static void unnamed_stub(void) {}

static void t_registration_and_launch(void **state)
{
    (void)state;
    /* The demangler comes from the program's C++ runtime when it has one. */
    void *cxx = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_GLOBAL);
    void **h = __cudaRegisterFatBinary((void *)"fatbin");
    assert_non_null(h);
    __cudaRegisterFunction(h, (const char *)(void *)scale_stub, (char *)"_Z5scaleIfEvPT_S0_i",
                           "_Z5scaleIfEvPT_S0_i", -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(h);
    const char *name = NULL;
    assert_int_equal(cudaFuncGetName(&name, (const void *)scale_stub), cudaSuccess);
    if (cxx)
        assert_string_equal(name, "void scale<float>(float*, float, int)");
    else
        assert_string_equal(name, "_Z5scaleIfEvPT_S0_i");
    assert_int_equal(cudaFuncGetName(&name, (const void *)unnamed_stub), cudaSuccess);
    assert_true(strncmp(name, "kernel@", 7) == 0);

    /* <<<grid, block, 0, s>>> */
    cudaStream_t s;
    assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
    assert_int_equal(__cudaPushCallConfiguration((dim3){4, 2, 1}, (dim3){128, 1, 1}, 0, s), 0);
    dim3 grid, block;
    size_t shared = 1;
    cudaStream_t popped = NULL;
    assert_int_equal(__cudaPopCallConfiguration(&grid, &block, &shared, &popped), cudaSuccess);
    assert_int_equal(grid.x, 4);
    assert_int_equal(grid.y, 2);
    assert_int_equal(block.x, 128);
    assert_ptr_equal(popped, s);
    assert_int_equal(__cudaPopCallConfiguration(&grid, &block, &shared, &popped),
                     cudaErrorMissingConfiguration);
    (void)cudaGetLastError();
    cudaKernel_t k;
    assert_int_equal(__cudaGetKernel(&k, (const void *)scale_stub), cudaSuccess);

    cudaGraph_t g = NULL;
    assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    assert_int_equal(__cudaLaunchKernel(k, grid, block, NULL, 0, popped), cudaSuccess);
    assert_int_equal(
        cudaLaunchKernel((const void *)scale_stub, (dim3){1, 1, 1}, (dim3){0, 1, 1}, NULL, 0, s),
        cudaErrorInvalidConfiguration);
    assert_int_equal(cudaStreamEndCapture(s, &g), cudaSuccess);
    assert_non_null(g);
    assert_int_equal(sc_rt_graph_node_count(g), 1);
    const sc_rt_node_desc *d = sc_rt_node_desc_of(sc_rt_graph_node_at(g, 0));
    assert_int_equal(d->type, cudaGraphNodeTypeKernel);
    assert_ptr_equal(d->func, (const void *)scale_stub);
    assert_int_equal(d->grid.y, 2);
    sc_rt_graph_free(g);
    assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
    __cudaUnregisterFatBinary(h);
    (void)cudaGetLastError();
}

/* The fork/join of docs/cuda-semantics.md §8 with events. */
static void t_capture_fork_join(void **state)
{
    (void)state;
    cudaStream_t s1, s2;
    cudaEvent_t e0, e1;
    int *d = NULL, host[8] = {0};
    assert_int_equal(cudaMalloc((void **)&d, sizeof host), cudaSuccess);
    assert_int_equal(cudaStreamCreate(&s1), cudaSuccess);
    assert_int_equal(cudaStreamCreate(&s2), cudaSuccess);
    assert_int_equal(cudaEventCreate(&e0), cudaSuccess);
    assert_int_equal(cudaEventCreate(&e1), cudaSuccess);
    assert_int_equal(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), cudaSuccess);
    enum cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
    assert_int_equal(cudaStreamIsCapturing(s1, &cs), cudaSuccess);
    assert_int_equal(cs, cudaStreamCaptureStatusActive);
    assert_int_equal(cudaMemcpyAsync(d, host, sizeof host, cudaMemcpyDefault, s1), cudaSuccess);
    assert_int_equal(cudaEventRecord(e0, s1), cudaSuccess);
    assert_int_equal(cudaStreamWaitEvent(s2, e0, 0), cudaSuccess);
    assert_int_equal(cudaStreamIsCapturing(s2, &cs), cudaSuccess);
    assert_int_equal(cs, cudaStreamCaptureStatusActive);
    assert_int_equal(
        cudaLaunchKernel((const void *)scale_stub, (dim3){2, 1, 1}, (dim3){64, 1, 1}, NULL, 0, s2),
        cudaSuccess);
    assert_int_equal(cudaEventRecord(e1, s2), cudaSuccess);
    assert_int_equal(cudaStreamWaitEvent(s1, e1, 0), cudaSuccess);
    assert_int_equal(cudaMemcpyAsync(host, d, sizeof host, cudaMemcpyDefault, s1), cudaSuccess);
    unsigned long long id = 0;
    size_t ndeps = 0;
    const cudaGraphNode_t *deps = NULL;
    cudaGraph_t live = NULL;
    assert_int_equal(cudaStreamGetCaptureInfo(s1, &cs, &id, &live, &deps, NULL, &ndeps),
                     cudaSuccess);
    assert_true(id > 0);
    assert_int_equal(ndeps, 1);
    assert_int_equal(sc_rt_node_index(deps[0]), 2);
    cudaGraph_t g = NULL;
    assert_int_equal(cudaStreamEndCapture(s1, &g), cudaSuccess);
    assert_ptr_equal(g, live);
    assert_int_equal(sc_rt_graph_node_count(g), 3);
    const uint32_t *from, *to;
    size_t m;
    sc_rt_graph_edges(g, &from, &to, &m);
    assert_int_equal(m, 3);
    uint32_t want[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(from[i], want[i][0]);
        assert_int_equal(to[i], want[i][1]);
    }
    const sc_rt_node_desc *n0 = sc_rt_node_desc_of(sc_rt_graph_node_at(g, 0));
    assert_int_equal(n0->type, cudaGraphNodeTypeMemcpy);
    assert_int_equal(n0->kind, cudaMemcpyHostToDevice);
    assert_int_equal(cudaStreamIsCapturing(s2, &cs), cudaSuccess);
    assert_int_equal(cs, cudaStreamCaptureStatusNone);
    sc_rt_graph_free(g);
    cudaFree(d);
}

static void t_capture_malloc_900(void **state)
{
    (void)state;
    cudaStream_t s;
    cudaGraph_t g = (cudaGraph_t)(uintptr_t)1;
    void *p = NULL;
    assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
    assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    size_t before = 0, after = 0, total;
    cudaMemGetInfo(&before, &total);
    assert_int_equal(cudaMalloc(&p, 1 << 20), cudaErrorStreamCaptureUnsupported);
    assert_null(p);
    cudaMemGetInfo(&after, &total);
    assert_int_equal(before, after);
    enum cudaStreamCaptureStatus cs;
    assert_int_equal(cudaStreamIsCapturing(s, &cs), cudaSuccess);
    assert_int_equal(cs, cudaStreamCaptureStatusInvalidated);
    assert_int_equal(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
    assert_null(g);
    /* relaxed: allowed */
    assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), cudaSuccess);
    assert_int_equal(cudaMalloc(&p, 64), cudaSuccess);
    assert_int_equal(cudaStreamEndCapture(s, &g), cudaSuccess);
    sc_rt_graph_free(g);
    cudaFree(p);
    cudaStreamDestroy(s);
    (void)cudaGetLastError();
}

static void t_capture_unjoined_904(void **state)
{
    (void)state;
    cudaStream_t s1, s2;
    cudaEvent_t e;
    cudaGraph_t g = NULL;
    cudaStreamCreate(&s1);
    cudaStreamCreate(&s2);
    cudaEventCreate(&e);
    assert_int_equal(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), cudaSuccess);
    assert_int_equal(cudaEventRecord(e, s1), cudaSuccess);
    assert_int_equal(cudaStreamWaitEvent(s2, e, 0), cudaSuccess);
    assert_int_equal(
        cudaLaunchKernel((const void *)scale_stub, (dim3){1, 1, 1}, (dim3){1, 1, 1}, NULL, 0, s2),
        cudaSuccess);
    assert_int_equal(cudaStreamEndCapture(s1, &g), cudaErrorStreamCaptureUnjoined);
    assert_null(g);
    assert_int_equal(cudaGetLastError(), cudaErrorStreamCaptureUnjoined);
    enum cudaStreamCaptureStatus cs;
    assert_int_equal(cudaStreamIsCapturing(s2, &cs), cudaSuccess);
    assert_int_equal(cs, cudaStreamCaptureStatusNone);
}

typedef struct {
    cudaStream_t s;
    cudaError_t rc;
} end_arg;

static void *end_elsewhere(void *p)
{
    end_arg *a = p;
    cudaGraph_t g = NULL;
    a->rc = cudaStreamEndCapture(a->s, &g);
    return NULL;
}

static void t_capture_wrong_thread_908(void **state)
{
    (void)state;
    end_arg a = {0};
    cudaStreamCreate(&a.s);
    assert_int_equal(cudaStreamBeginCapture(a.s, cudaStreamCaptureModeGlobal), cudaSuccess);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, end_elsewhere, &a), 0);
    pthread_join(th, NULL);
    assert_int_equal(a.rc, cudaErrorStreamCaptureWrongThread);
    cudaGraph_t g = NULL;
    assert_int_equal(cudaStreamEndCapture(a.s, &g), cudaErrorStreamCaptureInvalidated);
    (void)cudaGetLastError();
}

static void *per_thread_work(void *p)
{
    cudaGraph_t *g = p;
    if (cudaStreamBeginCapture_ptsz(NULL, cudaStreamCaptureModeThreadLocal) != cudaSuccess)
        return NULL;
    cudaLaunchKernel_ptsz((const void *)scale_stub, (dim3){1, 1, 1}, (dim3){32, 1, 1}, NULL, 0,
                          NULL);
    cudaLaunchKernel((const void *)scale_stub, (dim3){1, 1, 1}, (dim3){32, 1, 1}, NULL, 0,
                     cudaStreamPerThread);
    cudaStreamEndCapture_ptsz(NULL, g);
    return NULL;
}

static void t_per_thread_default_stream(void **state)
{
    (void)state;
    unsigned long long mine = 0, legacy = 1;
    assert_int_equal(cudaStreamGetId_ptsz(NULL, &mine), cudaSuccess);
    assert_int_equal(cudaStreamGetId(NULL, &legacy), cudaSuccess);
    assert_int_equal(legacy, 0);
    assert_true(mine != 0);
    cudaGraph_t g1 = NULL, g2 = NULL;
    pthread_t a, b;
    pthread_create(&a, NULL, per_thread_work, &g1);
    pthread_create(&b, NULL, per_thread_work, &g2);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    assert_non_null(g1);
    assert_non_null(g2);
    assert_int_equal(sc_rt_graph_node_count(g1), 2);
    assert_int_equal(sc_rt_graph_node_count(g2), 2);
    /* the legacy stream cannot be captured */
    assert_int_equal(cudaStreamBeginCapture(NULL, cudaStreamCaptureModeGlobal),
                     cudaErrorStreamCaptureUnsupported);
    (void)cudaGetLastError();
    sc_rt_graph_free(g1);
    sc_rt_graph_free(g2);
}

static void host_fn(void *p)
{
    (*(int *)p)++;
}

static void t_host_func(void **state)
{
    (void)state;
    int runs = 0;
    cudaStream_t s;
    cudaStreamCreate(&s);
    assert_int_equal(cudaLaunchHostFunc(s, host_fn, &runs), cudaSuccess);
    assert_int_equal(runs, 1);
    cudaGraph_t g;
    assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    assert_int_equal(cudaLaunchHostFunc(s, host_fn, &runs), cudaSuccess);
    assert_int_equal(cudaStreamEndCapture(s, &g), cudaSuccess);
    assert_int_equal(runs, 1);
    assert_int_equal(sc_rt_node_desc_of(sc_rt_graph_node_at(g, 0))->type, cudaGraphNodeTypeHost);
    sc_rt_graph_free(g);
}

/* The device context owns its streams and events: a second destroy is an
 * error, not a double free, and cudaDeviceReset destroys what is left. */
static void t_device_reset_destroys_handles(void **state)
{
    (void)state;
    cudaStream_t kept, gone;
    cudaEvent_t ev, ev_gone;
    assert_int_equal(cudaStreamCreate(&kept), cudaSuccess);
    assert_int_equal(cudaStreamCreateWithFlags(&gone, cudaStreamNonBlocking), cudaSuccess);
    assert_int_equal(cudaEventCreate(&ev), cudaSuccess);
    assert_int_equal(cudaEventCreate(&ev_gone), cudaSuccess);
    assert_int_equal(cudaStreamDestroy(gone), cudaSuccess);
    assert_int_equal(cudaStreamDestroy(gone), cudaErrorInvalidResourceHandle);
    assert_int_equal(cudaEventDestroy(ev_gone), cudaSuccess);
    assert_int_equal(cudaEventDestroy(ev_gone), cudaErrorInvalidResourceHandle);
    (void)cudaGetLastError();

    assert_int_equal(cudaDeviceReset(), cudaSuccess);
    assert_int_equal(cudaStreamDestroy(kept), cudaErrorInvalidResourceHandle);
    assert_int_equal(cudaEventDestroy(ev), cudaErrorInvalidResourceHandle);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidResourceHandle);

    /* The device works on after the reset. */
    cudaStream_t s;
    assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
    assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
    assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

static void t_unsupported_logs_once(void **state)
{
    (void)state;
    char path[] = "/tmp/sc-cudart-stderr-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    int dev = -1;
    cudaError_t a = cudaVDPAUGetDevice(&dev, 0, NULL);
    cudaError_t b = cudaVDPAUGetDevice(&dev, 0, NULL);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    assert_int_equal(a, cudaErrorNotSupported);
    assert_int_equal(b, cudaErrorNotSupported);
    assert_int_equal(cudaGetLastError(), cudaErrorNotSupported);
    char buf[1024] = {0};
    assert_true(pread(fd, buf, sizeof buf - 1, 0) > 0);
    close(fd);
    unlink(path);
    assert_string_equal(buf, "streamcap: cudaVDPAUGetDevice is not supported by the "
                             "stand-in; it returns cudaErrorNotSupported\n");
}

int main(void)
{
    /* No daemon for these: the warning is expected, the socket is not. */
    setenv("STREAMCAP_SOCKET", "/nonexistent/streamcap-test.sock", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_error_strings),
        cmocka_unit_test(t_last_error),
        cmocka_unit_test(t_device),
        cmocka_unit_test(t_memory_default_direction),
        cmocka_unit_test(t_streams_events),
        cmocka_unit_test(t_registration_and_launch),
        cmocka_unit_test(t_capture_fork_join),
        cmocka_unit_test(t_capture_malloc_900),
        cmocka_unit_test(t_capture_unjoined_904),
        cmocka_unit_test(t_capture_wrong_thread_908),
        cmocka_unit_test(t_per_thread_default_stream),
        cmocka_unit_test(t_host_func),
        cmocka_unit_test(t_unsupported_logs_once),
        cmocka_unit_test(t_device_reset_destroys_handles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
