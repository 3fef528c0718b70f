/* capture_edit, the plain C twin of capture_edit.cu: a program edits its capture's graph by hand.
 * It reads the stream's dependencies with cudaStreamGetCaptureInfo, adds a kernel node, an empty
 * node and a memcpy node to the capture's graph behind them, and makes those the stream's
 * dependencies with cudaStreamUpdateCaptureDependencies, so the next captured kernel runs after
 * all three. */
#include "sc_cudart.h"

#include "kernels_c.h"
#include "prog.h"

SC_KERNEL(head);

SC_KERNEL(side);

SC_KERNEL(tail);
SC_KERNELS({tail, "_Z4tailPfi"}, {side, "_Z4sidePfi"}, {head, "_Z4headPfi"})

int main(void)
{
    int n = 2048;
    float *d = NULL;
    SC_OK(cudaMalloc((void **)&d, n * sizeof(float)));
    cudaStream_t s;
    SC_OK(cudaStreamCreate(&s));

    SC_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    (void)sc_launch(head, sc_dim3(8, 1, 1), sc_dim3(256, 1, 1), 0, s,
                    (void *[]){(void *)&d, (void *)&n}); /* node 0 */
    SC_OK(cudaGetLastError());
    enum cudaStreamCaptureStatus st;
    unsigned long long id = 0, id2 = 0;
    cudaGraph_t cg = NULL;
    const cudaGraphNode_t *deps = NULL;
    size_t ndeps = 0;
    SC_OK(cudaStreamGetCaptureInfo(s, &st, &id, &cg, &deps, NULL, &ndeps));
    SC_CHECK(st == cudaStreamCaptureStatusActive);
    SC_CHECK(id != 0 && cg != NULL && ndeps == 1);
    cudaGraphNode_t n0 = deps[0];

    struct cudaKernelNodeParams kp;
    memset(&kp, 0, sizeof(kp));
    void *args[] = {&d, &n};
    kp.func = (void *)side;
    kp.gridDim = sc_dim3(8, 1, 1);
    kp.blockDim = sc_dim3(256, 1, 1);
    kp.kernelParams = args;
    cudaGraphNode_t added[3];
    SC_OK(cudaGraphAddKernelNode(&added[0], cg, &n0, 1, &kp)); /* node 1 <- 0 */
    /* calloc: the C++ struct has members without default constructors. */
    struct cudaGraphNodeParams *np =
        (struct cudaGraphNodeParams *)calloc(1, sizeof(struct cudaGraphNodeParams));
    np->type = cudaGraphNodeTypeEmpty;
    SC_OK(cudaGraphAddNode(&added[1], cg, &n0, NULL, 1, np)); /* node 2 <- 0 */
    free(np);
    /* cudaMemcpyDefault: stored as the direction the pointers say. */
    float *h = (float *)calloc((size_t)n, sizeof(float));
    SC_CHECK(h != NULL);
    SC_OK(cudaGraphAddMemcpyNode1D(&added[2], cg, &n0, 1, h, d, n * sizeof(float),
                                   cudaMemcpyDefault)); /* node 3 <- 0 */
    SC_OK(cudaStreamUpdateCaptureDependencies(s, added, NULL, 3, cudaStreamSetCaptureDependencies));
    SC_OK(cudaStreamGetCaptureInfo(s, &st, &id2, NULL, &deps, NULL, &ndeps));
    SC_CHECK(id2 == id && ndeps == 3);

    (void)sc_launch(tail, sc_dim3(1, 1, 1), sc_dim3(32, 1, 1), 0, s,
                    (void *[]){(void *)&d, (void *)&n}); /* node 4 <- 1, 2, 3 */
    SC_OK(cudaGetLastError());
    SC_OK(cudaStreamGetCaptureInfo(s, &st, NULL, NULL, &deps, NULL, &ndeps));
    SC_CHECK(ndeps == 1);
    /* Adding a dependency the stream already has changes nothing. */
    cudaGraphNode_t last = deps[0];
    SC_OK(cudaStreamUpdateCaptureDependencies(s, &last, NULL, 1, cudaStreamAddCaptureDependencies));
    cudaGraph_t g = NULL;
    SC_OK(cudaStreamEndCapture(s, &g));
    SC_CHECK(g == cg);
    size_t edges = 0;
    SC_OK(cudaGraphGetEdges(g, NULL, NULL, NULL, &edges));
    SC_CHECK(edges == 6);
    SC_OK(cudaGraphDestroy(g));

    SC_OK(cudaStreamGetCaptureInfo(s, &st, NULL, NULL, NULL, NULL, NULL));
    SC_CHECK(st == cudaStreamCaptureStatusNone);
    SC_OK(cudaStreamDestroy(s));
    SC_OK(cudaFree(d));
    free(h);
    return 0;
}
