// create_destroy: streams and events created and destroyed while a global
// capture runs.  Creating and destroying them is no stream work and breaks
// nothing; an event destroyed after a stream waited on it leaves the join
// in place, and a stream created during the capture joins it by waiting.
#include <cuda_runtime.h>

#include "prog.h"

__global__ void stage(float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] += 1.0f;
}

int main()
{
    int n = 256;
    float *d = NULL;
    SC_OK(cudaMalloc((void **)&d, n * sizeof(float)));
    cudaStream_t s1;
    SC_OK(cudaStreamCreate(&s1));

    SC_OK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    stage<<<1, 256, 0, s1>>>(d, n); /* node 0 */
    SC_OK(cudaGetLastError());
    cudaStream_t s2;
    SC_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t fork, join;
    SC_OK(cudaEventCreate(&fork));
    SC_OK(cudaEventRecord(fork, s1));
    SC_OK(cudaStreamWaitEvent(s2, fork, 0));
    SC_OK(cudaEventDestroy(fork));
    stage<<<2, 128, 0, s2>>>(d, n); /* node 1 <- 0 */
    SC_OK(cudaGetLastError());
    SC_OK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    SC_OK(cudaEventRecord(join, s2));
    SC_OK(cudaStreamWaitEvent(s1, join, 0));
    SC_OK(cudaEventDestroy(join));

    /* A stream and an event that never touch the capture come and go. */
    cudaStream_t s3;
    SC_OK(cudaStreamCreateWithPriority(&s3, cudaStreamNonBlocking, -1));
    cudaEvent_t lone;
    SC_OK(cudaEventCreate(&lone));
    SC_OK(cudaEventDestroy(lone));
    SC_OK(cudaStreamDestroy(s3));

    stage<<<4, 64, 0, s1>>>(d, n); /* node 2 <- 0, 1 */
    SC_OK(cudaGetLastError());
    enum cudaStreamCaptureStatus st;
    SC_OK(cudaStreamIsCapturing(s1, &st));
    SC_CHECK(st == cudaStreamCaptureStatusActive);
    cudaGraph_t g = NULL;
    SC_OK(cudaStreamEndCapture(s1, &g));
    size_t edges = 0;
    SC_OK(cudaGraphGetEdges(g, NULL, NULL, NULL, &edges));
    SC_CHECK(edges == 3);
    SC_OK(cudaGraphDestroy(g));

    SC_OK(cudaStreamDestroy(s2));
    SC_OK(cudaStreamDestroy(s1));
    SC_OK(cudaFree(d));
    return 0;
}
