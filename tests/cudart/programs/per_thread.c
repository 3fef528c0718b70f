/* per_thread, the plain C twin of per_thread.cu: built with --default-stream per-thread, so stream
 * 0 is each host thread's own default stream, which captures like any other; the legacy stream
 * still cannot.  A second thread captures its own default stream while the first thread's capture
 * is open.  Stream 0 goes through the _ptsz entry points, as --default-stream per-thread makes
 * nvcc's headers do; cudaStreamPerThread through the plain ones. */
#include "sc_cudart.h"

#include "kernels_c.h"
#include "prog.h"

SC_KERNEL(scale);
SC_KERNELS({scale, "_Z5scalePfi"})

static sc_turns turns = SC_TURNS_INIT;
static float *d;
static int n = 1024;

static void *worker(void *arg)
{
    (void)arg;
    sc_turn_wait(&turns, 1);
    SC_OK(cudaStreamBeginCapture(cudaStreamPerThread,
                                 cudaStreamCaptureModeThreadLocal)); /* capture 2 */
    (void)sc_launch(scale, sc_dim3(8, 1, 1), sc_dim3(128, 1, 1), 0, cudaStreamPerThread,
                    (void *[]){(void *)&d, (void *)&n});
    SC_OK(cudaGetLastError());
    cudaGraph_t g = NULL;
    SC_OK(cudaStreamEndCapture(cudaStreamPerThread, &g));
    SC_OK(cudaGraphDestroy(g));
    sc_turn_done(&turns);
    return NULL;
}

int main(void)
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
    SC_OK(cudaStreamBeginCapture_ptsz(0, cudaStreamCaptureModeThreadLocal)); /* capture 1 */
    SC_OK(cudaMemcpyAsync_ptsz(d, h, bytes, cudaMemcpyHostToDevice, 0));     /* node 0 */
    SC_OK(cudaEventRecord_ptsz(fork, 0));
    sc_turn_done(&turns);

    sc_turn_wait(&turns, 2);
    SC_OK(cudaStreamWaitEvent(side, fork, 0));
    (void)sc_launch(scale, sc_dim3(4, 1, 1), sc_dim3(256, 1, 1), 0, side,
                    (void *[]){(void *)&d, (void *)&n}); /* node 1 <- 0 */
    SC_OK(cudaGetLastError());
    SC_OK(cudaEventRecord(join, side));
    SC_OK(cudaStreamWaitEvent_ptsz(0, join, 0));
    (void)cudaLaunchKernel_ptsz(scale, sc_dim3(2, 1, 1), sc_dim3(512, 1, 1),
                                (void *[]){(void *)&d, (void *)&n}, 0,
                                0); /* node 2 <- 0, 1, on the per-thread stream */
    SC_OK(cudaGetLastError());
    (void)sc_launch(scale, sc_dim3(1, 1, 1), sc_dim3(1024, 1, 1), 0, cudaStreamPerThread,
                    (void *[]){(void *)&d, (void *)&n}); /* node 3 <- 2, the same stream */
    SC_OK(cudaGetLastError());
    enum cudaStreamCaptureStatus st;
    SC_OK(cudaStreamIsCapturing(cudaStreamPerThread, &st));
    SC_CHECK(st == cudaStreamCaptureStatusActive);
    cudaGraph_t g = NULL;
    SC_OK(cudaStreamEndCapture_ptsz(0, &g));
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
