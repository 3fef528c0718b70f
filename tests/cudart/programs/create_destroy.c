/* create_destroy, the plain C twin of create_destroy.cu: streams and events created and destroyed
 * while a global capture runs.  Creating and destroying them is no stream work and breaks nothing;
 * an event destroyed after a stream waited on it leaves the join in place, and a stream created
 * during the capture joins it by waiting. */
#include "sc_cudart.h"

#include "kernels_c.h"
#include "prog.h"

SC_KERNEL(stage);
SC_KERNELS({stage, "_Z5stagePfi"})

int main(void)
{
    int n = 256;
    float *d = NULL;
    SC_OK(cudaMalloc((void **)&d, n * sizeof(float)));
    cudaStream_t s1;
    SC_OK(cudaStreamCreate(&s1));

    SC_OK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    (void)sc_launch(stage, sc_dim3(1, 1, 1), sc_dim3(256, 1, 1), 0, s1,
                    (void *[]){(void *)&d, (void *)&n}); /* node 0 */
    SC_OK(cudaGetLastError());
    cudaStream_t s2;
    SC_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t fork, join;
    SC_OK(cudaEventCreate(&fork));
    SC_OK(cudaEventRecord(fork, s1));
    SC_OK(cudaStreamWaitEvent(s2, fork, 0));
    SC_OK(cudaEventDestroy(fork));
    (void)sc_launch(stage, sc_dim3(2, 1, 1), sc_dim3(128, 1, 1), 0, s2,
                    (void *[]){(void *)&d, (void *)&n}); /* node 1 <- 0 */
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

    (void)sc_launch(stage, sc_dim3(4, 1, 1), sc_dim3(64, 1, 1), 0, s1,
                    (void *[]){(void *)&d, (void *)&n}); /* node 2 <- 0, 1 */
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
