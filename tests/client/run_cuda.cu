// run_cuda.cu: the CUDA C++ twin of run_cuda.c, built with nvcc (shared
// runtime, and once with nvcc's default static one), run by run_cu.sh
// under `streamcap run`.  Each argument is one step, done in order:
//   capture   capture one memset on a fresh stream and end it
//   legacy    a kernel launched on the legacy stream 0 while a blocking
//             stream captures (which breaks it: 906); its end fails
//   fork      a child process (which captures once and exits) is waited for
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

__global__ void scale(float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] *= 2.0f;
}

static void check(cudaError_t got, cudaError_t want, const char *what)
{
    if (got == want)
        return;
    fprintf(stderr, "run_cuda.cu: %s returned %d (%s), want %d\n", what, (int)got,
            cudaGetErrorName(got), (int)want);
    exit(1);
}

static void one_capture()
{
    void *d = NULL;
    cudaStream_t s;
    cudaGraph_t g = NULL;
    check(cudaMalloc(&d, 256), cudaSuccess, "cudaMalloc");
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess, "cudaStreamCreate");
    check(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess, "begin");
    check(cudaMemsetAsync(d, 0, 256, s), cudaSuccess, "cudaMemsetAsync");
    check(cudaStreamEndCapture(s, &g), cudaSuccess, "end");
    cudaGraphDestroy(g);
    cudaStreamDestroy(s);
    cudaFree(d);
}

static void legacy_break()
{
    cudaStream_t s;
    cudaGraph_t g = NULL;
    float *d = NULL;
    check(cudaMalloc((void **)&d, 64), cudaSuccess, "cudaMalloc");
    check(cudaStreamCreate(&s), cudaSuccess, "cudaStreamCreate");
    check(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess, "begin");
    scale<<<1, 32>>>(d, 16);
    check(cudaGetLastError(), cudaErrorStreamCaptureImplicit, "scale<<<1, 32>>> on stream 0");
    check(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated, "end");
    (void)cudaGetLastError();
    cudaStreamDestroy(s);
}

static void fork_child()
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        one_capture();
        exit(0);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "run_cuda.cu: the child failed\n");
        exit(1);
    }
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == 'c')
            one_capture();
        else if (argv[i][0] == 'l')
            legacy_break();
        else if (argv[i][0] == 'f')
            fork_child();
    }
    return 0;
}
