// fill, then relu and scale on two forked streams, joined back before
// reduce: relu and scale are unordered, both happen before reduce.
#include <cuda_runtime.h>

__global__ void fill(float *p) { p[threadIdx.x] = 1.0f; }
__global__ void relu(float *p) { p[threadIdx.x] = fmaxf(p[threadIdx.x], 0.0f); }
__global__ void scale(float *p) { p[threadIdx.x + 256] *= 2.0f; }
__global__ void reduce(float *p) { p[0] += p[threadIdx.x]; }

int main()
{
    float *d;
    cudaStream_t s1, s2, s3;
    cudaEvent_t fork, j2, j3;
    cudaGraph_t g;
    if (cudaMalloc((void **)&d, 512 * sizeof(float)) != cudaSuccess)
        return 1;
    cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s3, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&j2, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&j3, cudaEventDisableTiming);
    cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal);
    fill<<<1, 256, 0, s1>>>(d);
    cudaEventRecord(fork, s1);
    cudaStreamWaitEvent(s2, fork, 0);
    cudaStreamWaitEvent(s3, fork, 0);
    relu<<<1, 256, 0, s2>>>(d);
    scale<<<1, 256, 0, s3>>>(d);
    cudaEventRecord(j2, s2);
    cudaEventRecord(j3, s3);
    cudaStreamWaitEvent(s1, j2, 0);
    cudaStreamWaitEvent(s1, j3, 0);
    reduce<<<1, 256, 0, s1>>>(d);
    return cudaStreamEndCapture(s1, &g) == cudaSuccess ? 0 : 2;
}
