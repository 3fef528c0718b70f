/*
 * cudart_launch - kernel launches through the stand-in libcudart.so.13, the
 * way nvcc's generated code makes them (__cudaPushCallConfiguration, then
 * the stub's __cudaPopCallConfiguration and __cudaLaunchKernel).
 *
 *   cudart_launch plain N      N launches on a stream that is not capturing
 *   cudart_launch capture N C  N launches captured, C per capture (each
 *                              capture ended outside the timed part)
 *   cudart_launch end N R      R captures of N launches; times each
 *                              cudaStreamEndCapture
 *
 * Prints one JSON object: ns per launch (plain, capture) or the median and
 * maximum end time in ms (end).  Whether a daemon is attached is the
 * environment's business (STREAMCAP_SOCKET, STREAMCAP_SYNC_END): bench/cudart
 * runs this program under each condition, interleaved.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sc_cudart.h"

static void stub(float *p, int n)
{
    (void)p;
    (void)n;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int check(cudaError_t err, const char *what)
{
    if (err == cudaSuccess)
        return 0;
    fprintf(stderr, "cudart_launch: %s: %s\n", what, cudaGetErrorString(err));
    exit(1);
}

/* One <<<grid, block, 0, s>>> launch as nvcc's host stub makes it. */
static void launch(cudaStream_t s, float *p, int n)
{
    dim3 grid = {64, 1, 1}, block = {256, 1, 1};
    check(__cudaPushCallConfiguration(grid, block, 0, s), "push");
    dim3 g, b;
    size_t shm;
    void *st;
    check(__cudaPopCallConfiguration(&g, &b, &shm, &st), "pop");
    static cudaKernel_t k;
    if (!k)
        check(__cudaGetKernel(&k, (const void *)stub), "get kernel");
    void *args[] = {&p, &n};
    check(__cudaLaunchKernel(k, g, b, args, shm, (cudaStream_t)st), "launch");
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: cudart_launch plain N | capture N PER | end N ROUNDS\n");
        return 2;
    }
    const char *mode = argv[1];
    long n = atol(argv[2]);
    long per = argc > 3 ? atol(argv[3]) : 10000;
    if (n <= 0 || per <= 0)
        return 2;

    static char fatbin[16];
    void **h = __cudaRegisterFatBinary(fatbin);
    __cudaRegisterFunction(h, (const char *)stub, (char *)"_Z4stubPfi", "_Z4stubPfi", -1, NULL,
                           NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(h);

    float *p;
    check(cudaMalloc((void **)&p, 1024), "cudaMalloc");
    cudaStream_t s;
    check(cudaStreamCreate(&s), "cudaStreamCreate");

    if (strcmp(mode, "plain") == 0) {
        for (long i = 0; i < 1000; i++)
            launch(s, p, 16);
        double t0 = now_ns();
        for (long i = 0; i < n; i++)
            launch(s, p, 16);
        double t = now_ns() - t0;
        printf("{\"mode\":\"plain\",\"launches\":%ld,\"ns_per_launch\":%.1f}\n", n, t / (double)n);
    } else if (strcmp(mode, "capture") == 0) {
        double t = 0;
        long done = 0;
        while (done < n) {
            long k = n - done < per ? n - done : per;
            check(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "begin");
            double t0 = now_ns();
            for (long i = 0; i < k; i++)
                launch(s, p, 16);
            t += now_ns() - t0;
            cudaGraph_t g;
            check(cudaStreamEndCapture(s, &g), "end");
            check(cudaGraphDestroy(g), "destroy");
            done += k;
        }
        printf("{\"mode\":\"capture\",\"launches\":%ld,\"per_capture\":%ld,\"ns_per_launch\":%.1f}\n",
               n, per, t / (double)n);
    } else if (strcmp(mode, "end") == 0) {
        long rounds = per;
        double *ms = calloc((size_t)rounds, sizeof *ms);
        if (!ms)
            return 1;
        for (long r = 0; r < rounds; r++) {
            check(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "begin");
            for (long i = 0; i < n; i++)
                launch(s, p, 16);
            cudaGraph_t g;
            double t0 = now_ns();
            check(cudaStreamEndCapture(s, &g), "end");
            ms[r] = (now_ns() - t0) / 1e6;
            check(cudaGraphDestroy(g), "destroy");
        }
        qsort(ms, (size_t)rounds, sizeof *ms, cmp);
        printf("{\"mode\":\"end\",\"nodes\":%ld,\"rounds\":%ld,\"median_ms\":%.3f,\"max_ms\":%.3f}\n",
               n, rounds, ms[rounds / 2], ms[rounds - 1]);
        free(ms);
    } else {
        return 2;
    }
    cudaStreamDestroy(s);
    cudaFree(p);
    return 0;
}
