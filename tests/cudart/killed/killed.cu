// killed: one capture ended (and stored, with STREAMCAP_SYNC_END=1), then a
// second one begun, and the process kills itself with SIGKILL mid-capture:
// it writes no exit report and never closes its session.
#include <signal.h>

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
    const int n = 1024;
    float *d = NULL;
    SC_OK(cudaMalloc((void **)&d, n * sizeof(float)));
    cudaStream_t s;
    SC_OK(cudaStreamCreate(&s));
    SC_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    step<<<4, 256, 0, s>>>(d, n);
    SC_OK(cudaGetLastError());
    step<<<4, 256, 0, s>>>(d, n);
    SC_OK(cudaGetLastError());
    cudaGraph_t g = NULL;
    SC_OK(cudaStreamEndCapture(s, &g));
    SC_CHECK(g != NULL);

    SC_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    step<<<4, 256, 0, s>>>(d, n);
    SC_OK(cudaGetLastError());
    fflush(NULL);
    raise(SIGKILL);
    return 1;
}
