/* fork_join, the plain C twin of fork_join.cu: one upload forks to two streams, each runs a kernel,
 * both join back before the download; the captured graph is instantiated and launched, which stores
 * nothing more. */
#include "sc_cudart.h"

#include "kernels_c.h"
#include "prog.h"

SC_KERNEL(left);

SC_KERNEL(right);
SC_KERNELS({right, "_Z5rightPfi"}, {left, "_Z4leftPfi"})

int main(void)
{
    const int n = 1024;
    const size_t bytes = n * sizeof(float);
    float *h = (float *)calloc(n, sizeof(float));
    float *d = NULL;
    SC_OK(cudaMalloc((void **)&d, bytes));
    cudaStream_t s1, s2, s3;
    SC_OK(cudaStreamCreate(&s1));
    SC_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    SC_OK(cudaStreamCreateWithPriority(&s3, cudaStreamNonBlocking, 0));
    cudaEvent_t fork, done_l, done_r;
    SC_OK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    SC_OK(cudaEventCreateWithFlags(&done_l, cudaEventDisableTiming));
    SC_OK(cudaEventCreateWithFlags(&done_r, cudaEventDisableTiming));

    SC_OK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    SC_OK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, s1)); /* node 0 */
    SC_OK(cudaEventRecord(fork, s1));
    SC_OK(cudaStreamWaitEvent(s2, fork, 0));
    SC_OK(cudaStreamWaitEvent(s3, fork, 0));
    enum cudaStreamCaptureStatus st;
    SC_OK(cudaStreamIsCapturing(s2, &st));
    SC_CHECK(st == cudaStreamCaptureStatusActive);
    (void)sc_launch(left, sc_dim3(4, 1, 1), sc_dim3(256, 1, 1), 0, s2,
                    (void *[]){(void *)&d, (void *)&n}); /* node 1 */
    SC_OK(cudaGetLastError());
    (void)sc_launch(right, sc_dim3(2, 2, 1), sc_dim3(16, 16, 1), 0, s3,
                    (void *[]){(void *)&d, (void *)&n}); /* node 2 */
    SC_OK(cudaGetLastError());
    SC_OK(cudaEventRecord(done_l, s2));
    SC_OK(cudaEventRecord(done_r, s3));
    SC_OK(cudaStreamWaitEvent(s1, done_l, 0));
    SC_OK(cudaStreamWaitEvent(s1, done_r, 0));
    SC_OK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s1)); /* node 3 */
    cudaGraph_t g = NULL;
    SC_OK(cudaStreamEndCapture(s1, &g));
    SC_CHECK(g != NULL);
    SC_OK(cudaStreamIsCapturing(s2, &st));
    SC_CHECK(st == cudaStreamCaptureStatusNone);

    size_t nodes = 0, edges = 0;
    SC_OK(cudaGraphGetNodes(g, NULL, &nodes));
    SC_CHECK(nodes == 4);
    SC_OK(cudaGraphGetEdges(g, NULL, NULL, NULL, &edges));
    SC_CHECK(edges == 5);
    size_t roots = 0;
    SC_OK(cudaGraphGetRootNodes(g, NULL, &roots));
    SC_CHECK(roots == 1);

    cudaGraphExec_t exec;
    SC_OK(cudaGraphInstantiate(&exec, g, 0));
    SC_OK(cudaGraphLaunch(exec, s1));
    SC_OK(cudaStreamSynchronize(s1));
    SC_OK(cudaGraphExecDestroy(exec));
    SC_OK(cudaGraphDestroy(g));

    SC_OK(cudaEventDestroy(fork));
    SC_OK(cudaEventDestroy(done_l));
    SC_OK(cudaEventDestroy(done_r));
    SC_OK(cudaStreamDestroy(s1));
    SC_OK(cudaStreamDestroy(s2));
    SC_OK(cudaStreamDestroy(s3));
    SC_OK(cudaFree(d));
    free(h);
    return 0;
}
