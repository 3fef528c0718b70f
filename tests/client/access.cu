// access.cu - a real CUDA program for access_cu.sh: relu(const float *in,
// float *out, int n) launched on two streams forked from one capture.
// Argument "race": nothing orders the two launches (both write out);
// "ordered": the second stream waits on an event recorded after the first
// launch.  Built with nvcc -cudart shared and run on the stand-in.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void relu(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] > 0 ? in[i] : 0;
}

static void ok(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        std::fprintf(stderr, "access: %s: %s\n", what, cudaGetErrorName(e));
        std::exit(1);
    }
}

int main(int argc, char **argv)
{
    bool ordered = argc > 1 && std::strcmp(argv[1], "ordered") == 0;
    const int n = 256;
    float *in, *out;
    ok(cudaMalloc(&in, n * sizeof(float)), "cudaMalloc");
    ok(cudaMalloc(&out, n * sizeof(float)), "cudaMalloc");
    cudaStream_t s1, s2;
    cudaEvent_t fork, done, joined;
    ok(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), "cudaStreamCreate");
    ok(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), "cudaStreamCreate");
    ok(cudaEventCreate(&fork), "cudaEventCreate");
    ok(cudaEventCreate(&done), "cudaEventCreate");
    ok(cudaEventCreate(&joined), "cudaEventCreate");
    ok(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    ok(cudaEventRecord(fork, s1), "cudaEventRecord");
    ok(cudaStreamWaitEvent(s2, fork, 0), "cudaStreamWaitEvent");
    relu<<<1, n, 0, s1>>>(in, out, n);
    if (ordered) {
        ok(cudaEventRecord(done, s1), "cudaEventRecord");
        ok(cudaStreamWaitEvent(s2, done, 0), "cudaStreamWaitEvent");
    }
    relu<<<1, n, 0, s2>>>(in, out, n);
    ok(cudaEventRecord(joined, s2), "cudaEventRecord");
    ok(cudaStreamWaitEvent(s1, joined, 0), "cudaStreamWaitEvent");
    cudaGraph_t g;
    ok(cudaStreamEndCapture(s1, &g), "cudaStreamEndCapture");
    ok(cudaGraphDestroy(g), "cudaGraphDestroy");
    return 0;
}
