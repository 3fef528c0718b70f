// per_thread: built with --default-stream per-thread, so stream 0 is each
// host thread's own default stream, which captures like any other; the
// legacy stream still cannot.  A second thread captures its own default
// stream while the first thread's capture is open.
#include <cuda_runtime.h>

#include "prog.h"

__global__ void scale(float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] *= 2.0f;
}

static sc_turns turns = SC_TURNS_INIT;
static float *d;
static int n = 1024;

static void *worker(void *arg)
{
    (void)arg;
    sc_turn_wait(&turns, 1);
    SC_OK(cudaStreamBeginCapture(cudaStreamPerThread,
                                 cudaStreamCaptureModeThreadLocal)); /* capture 2 */
    scale<<<8, 128, 0, cudaStreamPerThread>>>(d, n);
    SC_OK(cudaGetLastError());
    cudaGraph_t g = NULL;
    SC_OK(cudaStreamEndCapture(cudaStreamPerThread, &g));
    SC_OK(cudaGraphDestroy(g));
    sc_turn_done(&turns);
    return NULL;
}

int main()
{
    const size_t bytes = n * sizeof(float);
    float *h = (float *)calloc(n, sizeof(float));
    SC_OK(cudaMalloc((void **)&d, bytes));
    cudaStream_t side;
    SC_OK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    cudaEvent_t fork, join;
    SC_OK(cudaEventCreate(&fork));
    SC_OK(cudaEventCreate(&join));
    pthread_t t;
    SC_CHECK(pthread_create(&t, NULL, worker, NULL) == 0);

    sc_turn_wait(&turns, 0);
    SC_FAILS(cudaErrorStreamCaptureUnsupported,
             cudaStreamBeginCapture(cudaStreamLegacy, cudaStreamCaptureModeGlobal));
    SC_OK(cudaStreamBeginCapture(0, cudaStreamCaptureModeThreadLocal)); /* capture 1 */
    SC_OK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, 0));     /* node 0 */
    SC_OK(cudaEventRecord(fork, 0));
    sc_turn_done(&turns);

    sc_turn_wait(&turns, 2);
    SC_OK(cudaStreamWaitEvent(side, fork, 0));
    scale<<<4, 256, 0, side>>>(d, n); /* node 1 <- 0 */
    SC_OK(cudaGetLastError());
    SC_OK(cudaEventRecord(join, side));
    SC_OK(cudaStreamWaitEvent(0, join, 0));
    scale<<<2, 512>>>(d, n); /* node 2 <- 0, 1, on the per-thread stream */
    SC_OK(cudaGetLastError());
    scale<<<1, 1024, 0, cudaStreamPerThread>>>(d, n); /* node 3 <- 2, the same stream */
    SC_OK(cudaGetLastError());
    enum cudaStreamCaptureStatus st;
    SC_OK(cudaStreamIsCapturing(cudaStreamPerThread, &st));
    SC_CHECK(st == cudaStreamCaptureStatusActive);
    cudaGraph_t g = NULL;
    SC_OK(cudaStreamEndCapture(0, &g));
    size_t nodes = 0;
    SC_OK(cudaGraphGetNodes(g, NULL, &nodes));
    SC_CHECK(nodes == 4);
    SC_OK(cudaGraphDestroy(g));
    SC_CHECK(pthread_join(t, NULL) == 0);

    SC_OK(cudaEventDestroy(fork));
    SC_OK(cudaEventDestroy(join));
    SC_OK(cudaStreamDestroy(side));
    SC_OK(cudaFree(d));
    free(h);
    return 0;
}
