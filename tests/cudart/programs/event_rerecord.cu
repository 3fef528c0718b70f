// event_rerecord: one event, recorded again and again, carries every fork
// and every join of the capture; each wait sees the set of the record
// before it, not what the stream did afterwards.
#include <cuda_runtime.h>

#include "prog.h"

__global__ void step(float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] += 1.0f;
}

int main()
{
    const int n = 256;
    float *d = NULL;
    SC_OK(cudaMalloc((void **)&d, n * sizeof(float)));
    cudaStream_t s1, s2, s3;
    SC_OK(cudaStreamCreate(&s1));
    SC_OK(cudaStreamCreate(&s2));
    SC_OK(cudaStreamCreate(&s3));
    cudaEvent_t e;
    SC_OK(cudaEventCreate(&e));

    SC_OK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    step<<<1, 256, 0, s1>>>(d, n); /* node 0 */
    SC_OK(cudaEventRecord(e, s1)); /* e = {0} */
    SC_OK(cudaStreamWaitEvent(s2, e, 0));
    step<<<2, 128, 0, s2>>>(d, n); /* node 1 <- 0 */
    SC_OK(cudaEventRecord(e, s2)); /* e = {1} */
    step<<<2, 128, 0, s2>>>(d, n); /* node 2 <- 1, after the record */
    SC_OK(cudaStreamWaitEvent(s1, e, 0));
    step<<<4, 64, 0, s1>>>(d, n);  /* node 3 <- 0, 1 */
    SC_OK(cudaEventRecord(e, s1)); /* e = {3} */
    SC_OK(cudaStreamWaitEvent(s3, e, 0));
    step<<<8, 32, 0, s3>>>(d, n);  /* node 4 <- 3 */
    SC_OK(cudaEventRecord(e, s3)); /* e = {4} */
    SC_OK(cudaStreamWaitEvent(s1, e, 0));
    SC_OK(cudaEventRecord(e, s2)); /* e = {2} */
    SC_OK(cudaStreamWaitEvent(s1, e, 0));
    step<<<1, 32, 0, s1>>>(d, n); /* node 5 <- 2, 3, 4 */
    SC_OK(cudaGetLastError());
    cudaGraph_t g = NULL;
    SC_OK(cudaStreamEndCapture(s1, &g));
    size_t nodes = 0, edges = 0;
    SC_OK(cudaGraphGetNodes(g, NULL, &nodes));
    SC_CHECK(nodes == 6);
    SC_OK(cudaGraphGetEdges(g, NULL, NULL, NULL, &edges));
    SC_CHECK(edges == 8);
    SC_OK(cudaGraphDestroy(g));

    /* Outside capture the same event is an ordinary one again. */
    SC_OK(cudaEventRecord(e, s1));
    SC_OK(cudaEventSynchronize(e));
    SC_OK(cudaEventQuery(e));

    SC_OK(cudaEventDestroy(e));
    SC_OK(cudaStreamDestroy(s1));
    SC_OK(cudaStreamDestroy(s2));
    SC_OK(cudaStreamDestroy(s3));
    SC_OK(cudaFree(d));
    return 0;
}
