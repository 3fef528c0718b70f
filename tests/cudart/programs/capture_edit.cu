// capture_edit: a program edits its capture's graph by hand.  It reads
// the stream's dependencies with cudaStreamGetCaptureInfo, adds a kernel
// node, an empty node and a memcpy node to the capture's graph behind
// them, and makes those the stream's dependencies with
// cudaStreamUpdateCaptureDependencies, so the next captured kernel runs
// after all three.
#include <cuda_runtime.h>

#include "prog.h"

__global__ void head(float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = 0.0f;
}

__global__ void side(float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] += 1.0f;
}

__global__ void tail(float *p, int n)
{
    if (threadIdx.x == 0 && n > 0)
        p[0] += p[n - 1];
}

int main()
{
    int n = 2048;
    float *d = NULL;
    SC_OK(cudaMalloc((void **)&d, n * sizeof(float)));
    cudaStream_t s;
    SC_OK(cudaStreamCreate(&s));

    SC_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    head<<<8, 256, 0, s>>>(d, n); /* node 0 */
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
    kp.gridDim = dim3(8, 1, 1);
    kp.blockDim = dim3(256, 1, 1);
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

    tail<<<1, 32, 0, s>>>(d, n); /* node 4 <- 1, 2, 3 */
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
