// forgotten_join: a stream forked from the capture never joins back, so
// the end fails with 904 and no graph; the program goes on and its next
// capture is stored.
#include <cuda_runtime.h>

#include "prog.h"

__global__ void work(float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] += 1.0f;
}

int main()
{
    int n = 256;
    const size_t bytes = n * sizeof(float);
    float *h = (float *)calloc(n, sizeof(float));
    float *d = NULL;
    SC_OK(cudaMalloc((void **)&d, bytes));
    cudaStream_t s1, s2;
    SC_OK(cudaStreamCreate(&s1));
    SC_OK(cudaStreamCreate(&s2));
    cudaEvent_t fork, joined;
    SC_OK(cudaEventCreate(&fork));
    SC_OK(cudaEventCreate(&joined));

    SC_OK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    SC_OK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, s1)); /* node 0 */
    SC_OK(cudaEventRecord(fork, s1));
    SC_OK(cudaStreamWaitEvent(s2, fork, 0));
    work<<<1, 256, 0, s2>>>(d, n); /* node 1: never joined */
    SC_OK(cudaGetLastError());
    SC_OK(cudaEventRecord(joined, s2));                              /* ... and never waited for */
    SC_OK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s1)); /* node 2 */
    cudaGraph_t g = (cudaGraph_t)&n;
    SC_FAILS(cudaErrorStreamCaptureUnjoined, cudaStreamEndCapture(s1, &g));
    SC_CHECK(g == NULL);
    SC_OK(cudaGetLastError());
    SC_CHECK(strcmp(cudaGetErrorName(cudaErrorStreamCaptureUnjoined),
                    "cudaErrorStreamCaptureUnjoined") == 0);
    SC_CHECK(strcmp(cudaGetErrorString(cudaErrorStreamCaptureUnjoined),
                    "capturing stream has unjoined work") == 0);
    enum cudaStreamCaptureStatus st;
    SC_OK(cudaStreamIsCapturing(s1, &st));
    SC_CHECK(st == cudaStreamCaptureStatusNone);
    SC_OK(cudaStreamIsCapturing(s2, &st));
    SC_CHECK(st == cudaStreamCaptureStatusNone);

    /* The failed end ended that capture: both streams capture again. */
    SC_OK(cudaStreamBeginCapture(s2, cudaStreamCaptureModeGlobal));
    work<<<2, 128, 0, s2>>>(d, n); /* node 0 of the second capture */
    SC_OK(cudaGetLastError());
    SC_OK(cudaStreamEndCapture(s2, &g));
    SC_CHECK(g != NULL);
    SC_OK(cudaGraphDestroy(g));

    SC_OK(cudaEventDestroy(fork));
    SC_OK(cudaEventDestroy(joined));
    SC_OK(cudaStreamDestroy(s1));
    SC_OK(cudaStreamDestroy(s2));
    SC_OK(cudaFree(d));
    free(h);
    return 0;
}
