/*
 * run_cuda.c - a plain C program linked against the CUDA runtime stand-in,
 * run by test_client_run_fail under `streamcap run`.  Each argument is one
 * step, done in order:
 *
 *   capture   capture one memset on a fresh stream and end it (and, with
 *             RUN_CUDA_EXTRA set, a kernel after it)
 *   legacy    begin a capture on a blocking stream, launch a kernel on the
 *             legacy stream 0 (which breaks it: 906), end it (fails)
 *   fork      a child process (which captures once and exits) is waited for
 *   wrong     another thread ends a global capture (908, which breaks it);
 *             its own thread's end then fails (901)
 *   race      two streams of one capture memset one buffer with nothing
 *             ordering them (a race)
 *   ordered   the same, the second stream waiting on an event recorded
 *             after the first's memset (no race)
 *   pitched   a 2-D memset of 4 rows of 64 bytes, 256 apart, on one
 *             stream, and a 16-byte memset 32 bytes into its last row on
 *             another (one race of 16 bytes)
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sc_cudart.h"

#include "../cudart/programs/kernels_c.h"

SC_KERNEL(scale);
SC_KERNELS({scale, "_Z5scalePfi"})

static int check(cudaError_t got, cudaError_t want, const char *what)
{
    if (got == want)
        return 0;
    fprintf(stderr, "run_cuda: %s returned %d (%s), want %d\n", what, (int)got,
            cudaGetErrorName(got), (int)want);
    exit(1);
}

static void one_capture(void)
{
    void *d = NULL;
    cudaStream_t s;
    cudaGraph_t g = NULL;
    check(cudaMalloc(&d, 256), cudaSuccess, "cudaMalloc");
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess, "cudaStreamCreate");
    check(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess, "begin");
    check(cudaMemsetAsync(d, 0, 256, s), cudaSuccess, "cudaMemsetAsync");
    if (getenv("RUN_CUDA_EXTRA")) {
        int n = 64;
        check(sc_launch(scale, sc_dim3(1, 1, 1), sc_dim3(64, 1, 1), 0, s,
                        (void *[]){(void *)&d, (void *)&n}),
              cudaSuccess, "cudaLaunchKernel");
    }
    check(cudaStreamEndCapture(s, &g), cudaSuccess, "end");
    cudaGraphDestroy(g);
    cudaStreamDestroy(s);
    cudaFree(d);
}

static void legacy_break(void)
{
    cudaStream_t s;
    cudaGraph_t g = NULL;
    int n = 4;
    float *d = NULL;
    check(cudaMalloc((void **)&d, 64), cudaSuccess, "cudaMalloc");
    check(cudaStreamCreate(&s), cudaSuccess, "cudaStreamCreate");
    check(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess, "begin");
    cudaError_t rc = sc_launch(scale, sc_dim3(1, 1, 1), sc_dim3(32, 1, 1), 0, NULL,
                               (void *[]){(void *)&d, (void *)&n});
    check(rc, cudaErrorStreamCaptureImplicit, "cudaLaunchKernel on stream 0");
    (void)cudaGetLastError();
    check(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated, "end");
    (void)cudaGetLastError();
    cudaStreamDestroy(s);
}

static cudaStream_t wrong_stream;

static void *end_elsewhere(void *arg)
{
    cudaGraph_t g = NULL;
    (void)arg;
    check(cudaStreamEndCapture(wrong_stream, &g), cudaErrorStreamCaptureWrongThread, "end");
    (void)cudaGetLastError();
    return NULL;
}

static void wrong_thread(void)
{
    void *d = NULL;
    cudaGraph_t g = NULL;
    pthread_t t;
    check(cudaMalloc(&d, 64), cudaSuccess, "cudaMalloc");
    check(cudaStreamCreateWithFlags(&wrong_stream, cudaStreamNonBlocking), cudaSuccess,
          "cudaStreamCreate");
    check(cudaStreamBeginCapture(wrong_stream, cudaStreamCaptureModeGlobal), cudaSuccess, "begin");
    check(cudaMemsetAsync(d, 0, 64, wrong_stream), cudaSuccess, "cudaMemsetAsync");
    if (pthread_create(&t, NULL, end_elsewhere, NULL) != 0 || pthread_join(t, NULL) != 0)
        exit(1);
    check(cudaStreamEndCapture(wrong_stream, &g), cudaErrorStreamCaptureInvalidated, "end");
    (void)cudaGetLastError();
    cudaStreamDestroy(wrong_stream);
}

/* The origin forks a second stream with an event; each memsets the same
 * 256 bytes; `ordered` makes the second wait for the first's memset. */
static void two_stream_memsets(bool ordered)
{
    void *d = NULL;
    cudaStream_t s1, s2;
    cudaEvent_t fork, done, joined;
    cudaGraph_t g = NULL;
    check(cudaMalloc(&d, 256), cudaSuccess, "cudaMalloc");
    check(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess, "cudaStreamCreate");
    check(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess, "cudaStreamCreate");
    check(cudaEventCreate(&fork), cudaSuccess, "cudaEventCreate");
    check(cudaEventCreate(&done), cudaSuccess, "cudaEventCreate");
    check(cudaEventCreate(&joined), cudaSuccess, "cudaEventCreate");
    check(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), cudaSuccess, "begin");
    check(cudaEventRecord(fork, s1), cudaSuccess, "cudaEventRecord");
    check(cudaStreamWaitEvent(s2, fork, 0), cudaSuccess, "cudaStreamWaitEvent");
    check(cudaMemsetAsync(d, 0, 256, s1), cudaSuccess, "cudaMemsetAsync");
    if (ordered) {
        check(cudaEventRecord(done, s1), cudaSuccess, "cudaEventRecord");
        check(cudaStreamWaitEvent(s2, done, 0), cudaSuccess, "cudaStreamWaitEvent");
    }
    check(cudaMemsetAsync(d, 1, 256, s2), cudaSuccess, "cudaMemsetAsync");
    check(cudaEventRecord(joined, s2), cudaSuccess, "cudaEventRecord");
    check(cudaStreamWaitEvent(s1, joined, 0), cudaSuccess, "cudaStreamWaitEvent");
    check(cudaStreamEndCapture(s1, &g), cudaSuccess, "end");
    cudaGraphDestroy(g);
    cudaEventDestroy(fork);
    cudaEventDestroy(done);
    cudaEventDestroy(joined);
    cudaStreamDestroy(s1);
    cudaStreamDestroy(s2);
    cudaFree(d);
}

/* A 2-D set and a 1-D set on two unordered streams, overlapping only in
 * the 2-D set's last row: found only if its range spans all its rows. */
static void pitched_race(void)
{
    void *d = NULL;
    const size_t pitch = 256;
    cudaStream_t s1, s2;
    cudaEvent_t fork, joined;
    cudaGraph_t g = NULL;
    check(cudaMalloc(&d, 4 * pitch), cudaSuccess, "cudaMalloc");
    check(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess, "cudaStreamCreate");
    check(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess, "cudaStreamCreate");
    check(cudaEventCreate(&fork), cudaSuccess, "cudaEventCreate");
    check(cudaEventCreate(&joined), cudaSuccess, "cudaEventCreate");
    check(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), cudaSuccess, "begin");
    check(cudaEventRecord(fork, s1), cudaSuccess, "cudaEventRecord");
    check(cudaStreamWaitEvent(s2, fork, 0), cudaSuccess, "cudaStreamWaitEvent");
    check(cudaMemset2DAsync(d, pitch, 0, 64, 4, s1), cudaSuccess, "cudaMemset2DAsync");
    check(cudaMemsetAsync((char *)d + 3 * pitch + 32, 1, 16, s2), cudaSuccess, "cudaMemsetAsync");
    check(cudaEventRecord(joined, s2), cudaSuccess, "cudaEventRecord");
    check(cudaStreamWaitEvent(s1, joined, 0), cudaSuccess, "cudaStreamWaitEvent");
    check(cudaStreamEndCapture(s1, &g), cudaSuccess, "end");
    cudaGraphDestroy(g);
    cudaEventDestroy(fork);
    cudaEventDestroy(joined);
    cudaStreamDestroy(s1);
    cudaStreamDestroy(s2);
    cudaFree(d);
}

static void fork_child(void)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        one_capture();
        exit(0);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "run_cuda: the child failed\n");
        exit(1);
    }
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] == 'c')
            one_capture();
        else if (a[0] == 'l')
            legacy_break();
        else if (a[0] == 'f')
            fork_child();
        else if (a[0] == 'w')
            wrong_thread();
        else if (a[0] == 'r')
            two_stream_memsets(false);
        else if (a[0] == 'o')
            two_stream_memsets(true);
        else if (a[0] == 'p')
            pitched_race();
    }
    return 0;
}
