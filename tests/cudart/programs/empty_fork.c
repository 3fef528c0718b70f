/* empty_fork, the plain C twin of empty_fork.cu: an event recorded before the capture has any node
 * forks two streams from an empty dependency set, so the graph has three roots that join in the
 * last node. */
#include "sc_cudart.h"

#include "kernels_c.h"
#include "prog.h"

SC_KERNEL(fill);

SC_KERNEL(reduce);
SC_KERNELS({reduce, "_Z6reducePfi"}, {fill, "_Z4fillPfi"})

int main(void)
{
    int n = 512;
    float *d = NULL;
    SC_OK(cudaMalloc((void **)&d, n * sizeof(float)));
    cudaStream_t s1, s2, s3;
    SC_OK(cudaStreamCreate(&s1));
    SC_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    SC_OK(cudaStreamCreateWithFlags(&s3, cudaStreamNonBlocking));
    cudaEvent_t start, j2, j3;
    SC_OK(cudaEventCreate(&start));
    SC_OK(cudaEventCreate(&j2));
    SC_OK(cudaEventCreate(&j3));

    SC_OK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    SC_OK(cudaEventRecord(start, s1)); /* start = {} */
    SC_OK(cudaStreamWaitEvent(s2, start, 0));
    SC_OK(cudaStreamWaitEvent(s3, start, 0));
    enum cudaStreamCaptureStatus st;
    const cudaGraphNode_t *deps = NULL;
    size_t ndeps = 99;
    SC_OK(cudaStreamGetCaptureInfo(s2, &st, NULL, NULL, &deps, NULL, &ndeps));
    SC_CHECK(st == cudaStreamCaptureStatusActive);
    SC_CHECK(ndeps == 0);
    (void)sc_launch(fill, sc_dim3(2, 1, 1), sc_dim3(256, 1, 1), 0, s2,
                    (void *[]){(void *)&d, (void *)&n}); /* node 0, a root */
    (void)sc_launch(fill, sc_dim3(4, 1, 1), sc_dim3(128, 1, 1), 0, s3,
                    (void *[]){(void *)&d, (void *)&n}); /* node 1, a root */
    (void)sc_launch(fill, sc_dim3(8, 1, 1), sc_dim3(64, 1, 1), 0, s1,
                    (void *[]){(void *)&d, (void *)&n}); /* node 2, a root */
    SC_OK(cudaGetLastError());
    SC_OK(cudaEventRecord(j2, s2));
    SC_OK(cudaEventRecord(j3, s3));
    SC_OK(cudaStreamWaitEvent(s1, j2, 0));
    SC_OK(cudaStreamWaitEvent(s1, j3, 0));
    (void)sc_launch(reduce, sc_dim3(1, 1, 1), sc_dim3(32, 1, 1), 0, s1,
                    (void *[]){(void *)&d, (void *)&n}); /* node 3 <- 0, 1, 2 */
    SC_OK(cudaGetLastError());
    cudaGraph_t g = NULL;
    SC_OK(cudaStreamEndCapture(s1, &g));
    size_t roots = 0;
    SC_OK(cudaGraphGetRootNodes(g, NULL, &roots));
    SC_CHECK(roots == 3);
    size_t edges = 0;
    SC_OK(cudaGraphGetEdges(g, NULL, NULL, NULL, &edges));
    SC_CHECK(edges == 3);
    SC_OK(cudaGraphDestroy(g));

    SC_OK(cudaEventDestroy(start));
    SC_OK(cudaEventDestroy(j2));
    SC_OK(cudaEventDestroy(j3));
    SC_OK(cudaStreamDestroy(s1));
    SC_OK(cudaStreamDestroy(s2));
    SC_OK(cudaStreamDestroy(s3));
    SC_OK(cudaFree(d));
    return 0;
}
