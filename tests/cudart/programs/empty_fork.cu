// empty_fork: an event recorded before the capture has any node forks two
// streams from an empty dependency set, so the graph has three roots that
// join in the last node.
#include <cuda_runtime.h>

#include "prog.h"

__global__ void fill(float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = 1.0f;
}

__global__ void reduce(float *p, int n)
{
    if (threadIdx.x == 0 && n > 0)
        p[0] = p[n - 1];
}

int main()
{
    int n = 512;
    float *d = NULL;
    SC_OK(cudaMalloc((void **)&d, n * sizeof(float)));
    cudaStream_t s1, s2, s3;
    SC_OK(cudaStreamCreate(&s1));
    SC_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    SC_OK(cudaStreamCreateWithFlags(&s3, cudaStreamNonBlocking));
    cudaEvent_t start, j2, j3;
    SC_OK(cudaEventCreate(&start));
    SC_OK(cudaEventCreate(&j2));
    SC_OK(cudaEventCreate(&j3));

    SC_OK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    SC_OK(cudaEventRecord(start, s1)); /* start = {} */
    SC_OK(cudaStreamWaitEvent(s2, start, 0));
    SC_OK(cudaStreamWaitEvent(s3, start, 0));
    enum cudaStreamCaptureStatus st;
    const cudaGraphNode_t *deps = NULL;
    size_t ndeps = 99;
    SC_OK(cudaStreamGetCaptureInfo(s2, &st, NULL, NULL, &deps, NULL, &ndeps));
    SC_CHECK(st == cudaStreamCaptureStatusActive);
    SC_CHECK(ndeps == 0);
    fill<<<2, 256, 0, s2>>>(d, n); /* node 0, a root */
    fill<<<4, 128, 0, s3>>>(d, n); /* node 1, a root */
    fill<<<8, 64, 0, s1>>>(d, n);  /* node 2, a root */
    SC_OK(cudaGetLastError());
    SC_OK(cudaEventRecord(j2, s2));
    SC_OK(cudaEventRecord(j3, s3));
    SC_OK(cudaStreamWaitEvent(s1, j2, 0));
    SC_OK(cudaStreamWaitEvent(s1, j3, 0));
    reduce<<<1, 32, 0, s1>>>(d, n); /* node 3 <- 0, 1, 2 */
    SC_OK(cudaGetLastError());
    cudaGraph_t g = NULL;
    SC_OK(cudaStreamEndCapture(s1, &g));
    size_t roots = 0;
    SC_OK(cudaGraphGetRootNodes(g, NULL, &roots));
    SC_CHECK(roots == 3);
    size_t edges = 0;
    SC_OK(cudaGraphGetEdges(g, NULL, NULL, NULL, &edges));
    SC_CHECK(edges == 3);
    SC_OK(cudaGraphDestroy(g));

    SC_OK(cudaEventDestroy(start));
    SC_OK(cudaEventDestroy(j2));
    SC_OK(cudaEventDestroy(j3));
    SC_OK(cudaStreamDestroy(s1));
    SC_OK(cudaStreamDestroy(s2));
    SC_OK(cudaStreamDestroy(s3));
    SC_OK(cudaFree(d));
    return 0;
}
