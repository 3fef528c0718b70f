/*
 * cudart_access_prog - a CUDA program for test_cudart_accesses whose
 * kernel k(const float *in, float *out, const float *in2, long n) has a
 * parameter layout (a cubin built here, tests/cudart/fatbin_image.c), so
 * that the stand-in can tell which arguments point into which
 * allocations.  With STREAMCAP_SYNC_END=1 it stores, in this order:
 *
 *   1. a capture of three launches: k(A, B + 16, F, 5) with F freed
 *      before (A read, all of B read_write, nothing for F or 5);
 *      k(A, A + 4, A, 7) (one read_write of A); k(0x10, &local, NULL, 0)
 *      (no access at all);
 *   2. k(A, B) on two forked streams with nothing between them (a race
 *      on B; A is only read);
 *   3. the same, the second launch waiting on an event after the first
 *      (no race);
 *   4. a graph built by hand and instantiated: a 1-D memcpy node of 64
 *      bytes from A to B, a 2-D memset node on C (3 rows of 64 bytes,
 *      128 apart) and a kernel node k(A, B);
 *   5. a capture whose graph gets a 1-D memcpy node added by hand (C to
 *      A, 32 bytes) after a launch of k(C, A).
 *
 * It prints {"A":..., "B":..., "C":...} (the allocations' addresses) on
 * stdout.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fatbin.h"
#include "fatbin_image.h"
#include "sc_cudart.h"

#define KNAME "_Z1kPKfPfS0_l"

static void k_stub(void) {}

static void ok(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "cudart_access_prog: %s: %s\n", what, cudaGetErrorName(e));
        exit(1);
    }
}

static void launch(const void *in, void *out, const void *in2, long n, cudaStream_t s)
{
    void *args[] = {&in, &out, &in2, &n};
    ok(cudaLaunchKernel((const void *)k_stub, (dim3){1, 1, 1}, (dim3){32, 1, 1}, args, 0, s),
       "cudaLaunchKernel");
}

static void register_kernel(void)
{
    static sc_tfb c;
    static const uint32_t sizes[] = {8, 8, 8, 8};
    sc_tfb_single(&c, KNAME, sizes, 4);
    sc_tfb_register(&c, (const void *)k_stub, KNAME);
}

static void end(cudaStream_t s)
{
    cudaGraph_t g;
    ok(cudaStreamEndCapture(s, &g), "cudaStreamEndCapture");
    ok(cudaGraphDestroy(g), "cudaGraphDestroy");
}

static void args_capture(cudaStream_t s, float *a, float *b)
{
    float *f;
    ok(cudaMalloc((void **)&f, 64), "cudaMalloc");
    ok(cudaFree(f), "cudaFree");
    int local = 0;
    ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    launch(a, b + 4, f, 5, s);
    launch(a, a + 1, a, 7, s);
    launch((const void *)(uintptr_t)0x10, &local, NULL, 0, s);
    end(s);
}

/* k(A, B) on s1 and on s2, forked from s1; `ordered` makes s2 wait for
 * s1's launch. */
static void two_streams(cudaStream_t s1, cudaStream_t s2, float *a, float *b, bool ordered)
{
    cudaEvent_t fork, done, joined;
    ok(cudaEventCreate(&fork), "cudaEventCreate");
    ok(cudaEventCreate(&done), "cudaEventCreate");
    ok(cudaEventCreate(&joined), "cudaEventCreate");
    ok(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    ok(cudaEventRecord(fork, s1), "cudaEventRecord");
    ok(cudaStreamWaitEvent(s2, fork, 0), "cudaStreamWaitEvent");
    launch(a, b, NULL, 1, s1);
    if (ordered) {
        ok(cudaEventRecord(done, s1), "cudaEventRecord");
        ok(cudaStreamWaitEvent(s2, done, 0), "cudaStreamWaitEvent");
    }
    launch(a, b, NULL, 2, s2);
    ok(cudaEventRecord(joined, s2), "cudaEventRecord");
    ok(cudaStreamWaitEvent(s1, joined, 0), "cudaStreamWaitEvent");
    end(s1);
    cudaEventDestroy(fork);
    cudaEventDestroy(done);
    cudaEventDestroy(joined);
}

static void by_hand(float *a, float *b, char *c)
{
    cudaGraph_t g;
    cudaGraphNode_t n;
    ok(cudaGraphCreate(&g, 0), "cudaGraphCreate");
    ok(cudaGraphAddMemcpyNode1D(&n, g, NULL, 0, b, a, 64, cudaMemcpyDeviceToDevice),
       "cudaGraphAddMemcpyNode1D");
    struct cudaMemsetParams mp = {
        .dst = c, .pitch = 128, .value = 1, .elementSize = 4, .width = 16, .height = 3};
    ok(cudaGraphAddMemsetNode(&n, g, NULL, 0, &mp), "cudaGraphAddMemsetNode");
    const void *in = a;
    void *out = b, *in2 = NULL;
    long v = 3;
    void *args[] = {&in, &out, &in2, &v};
    struct cudaKernelNodeParams kp = {(void *)k_stub, {1, 1, 1}, {8, 1, 1}, 0, args, NULL};
    ok(cudaGraphAddKernelNode(&n, g, NULL, 0, &kp), "cudaGraphAddKernelNode");
    cudaGraphExec_t x;
    ok(cudaGraphInstantiate(&x, g, 0), "cudaGraphInstantiate");
    ok(cudaGraphExecDestroy(x), "cudaGraphExecDestroy");
    ok(cudaGraphDestroy(g), "cudaGraphDestroy");
}

static void added_to_capture(cudaStream_t s, float *a, char *c)
{
    ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    launch(c, a, NULL, 4, s);
    enum cudaStreamCaptureStatus st;
    cudaGraph_t cg;
    const cudaGraphNode_t *deps;
    size_t ndeps;
    ok(cudaStreamGetCaptureInfo(s, &st, NULL, &cg, &deps, NULL, &ndeps),
       "cudaStreamGetCaptureInfo");
    cudaGraphNode_t n;
    ok(cudaGraphAddMemcpyNode1D(&n, cg, deps, ndeps, a, c, 32, cudaMemcpyDeviceToDevice),
       "cudaGraphAddMemcpyNode1D");
    end(s);
}

int main(void)
{
    register_kernel();
    float *a, *b;
    char *c;
    ok(cudaMalloc((void **)&a, 256), "cudaMalloc");
    ok(cudaMalloc((void **)&b, 512), "cudaMalloc");
    ok(cudaMalloc((void **)&c, 1024), "cudaMalloc");
    cudaStream_t s1, s2;
    ok(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), "cudaStreamCreate");
    ok(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), "cudaStreamCreate");
    args_capture(s1, a, b);
    two_streams(s1, s2, a, b, false);
    two_streams(s1, s2, a, b, true);
    by_hand(a, b, c);
    added_to_capture(s1, a, c);
    printf("{\"A\":%llu,\"B\":%llu,\"C\":%llu}\n", (unsigned long long)(uintptr_t)a,
           (unsigned long long)(uintptr_t)b, (unsigned long long)(uintptr_t)c);
    return 0;
}
