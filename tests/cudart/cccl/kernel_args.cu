/* Kernel argument values kept by the graph: a <<<>>> launch captured in a
 * stream (nvcc's stub passes pointers to its own locals) and a node added
 * by hand, read back after the caller changed its variables; and what the
 * binary says of the kernel: its parameter layout and a PTX version it
 * was built for. */
#include "graph_check.h"

struct pair {
    int a;
    double b;
};

__global__ void scale(float *out, int n, double f, char tag, pair p)
{
    if (threadIdx.x < n)
        out[threadIdx.x] *= f + tag + p.a + p.b;
}

static void check_values(cudaGraphNode_t node, float *out, int n, double f, char tag, pair p)
{
    cudaKernelNodeParams k;
    CK(cudaGraphKernelNodeGetParams(node, &k));
    need_values(k);
    const pair *got = (const pair *)k.kernelParams[4];
    if (*(float **)k.kernelParams[0] != out || *(int *)k.kernelParams[1] != n ||
        *(double *)k.kernelParams[2] != f || *(char *)k.kernelParams[3] != tag || got->a != p.a ||
        got->b != p.b) {
        std::fprintf(stderr, "kernel node values: n=%d f=%g tag=%d p={%d,%g}\n",
                     *(int *)k.kernelParams[1], *(double *)k.kernelParams[2],
                     *(char *)k.kernelParams[3], got->a, got->b);
        std::exit(1);
    }
}

static void launch(cudaStream_t s, float *out, int n)
{
    double f = 1.5;
    char tag = 2;
    pair p = {4, 0.25};
    scale<<<1, 32, 0, s>>>(out, n, f, tag, p);
    /* This frame and nvcc's stub frame are gone when the graph is read. */
}

int main()
{
    cudaFuncAttributes attr;
    CK(cudaFuncGetAttributes(&attr, scale));
    /* A version the binary was built for (nvcc lists them, times 10). */
    const int archs[] = {__CUDA_ARCH_LIST__};
    bool built = false;
    for (int a : archs)
        built = built || a == attr.ptxVersion * 10;
    if (!built) {
        std::fprintf(stderr, "ptxVersion %d is not one the binary was built for\n",
                     attr.ptxVersion);
        return 1;
    }
    const size_t offsets[] = {0, 8, 16, 24, 32}, sizes[] = {8, 4, 8, 1, 16};
    for (size_t i = 0; i < 5; i++) {
        size_t off = 0, size = 0;
        CK(cudaFuncGetParamInfo((const void *)scale, i, &off, &size));
        if (off != offsets[i] || size != sizes[i]) {
            std::fprintf(stderr, "param %zu: offset %zu size %zu\n", i, off, size);
            return 1;
        }
    }
    float *out;
    CK(cudaMalloc(&out, 32 * sizeof *out));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    int n = 7;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    launch(s, out, n);
    CK(cudaGetLastError());
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s, &g));
    n = 1000;

    /* By hand: the values are copied when the node is added. */
    double f = 3.0;
    char tag = 9;
    pair p = {-1, 8.5};
    void *args[] = {&out, &n, &f, &tag, &p};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)scale;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(32);
    kp.kernelParams = args;
    cudaGraphNode_t first, added;
    size_t count = 1;
    CK(cudaGraphGetNodes(g, &first, &count));
    CK(cudaGraphAddKernelNode(&added, g, &first, 1, &kp));
    n = f = tag = 0;
    p = pair{0, 0};
    check_graph(g, {{cudaGraphNodeTypeKernel, "scale"}, {cudaGraphNodeTypeKernel, "scale"}});
    check_values(first, out, 7, 1.5, 2, pair{4, 0.25});
    check_values(added, out, 1000, 3.0, 9, pair{-1, 8.5});

    /* An executable graph's nodes keep them too. */
    cudaGraphExec_t x;
    CK(cudaGraphInstantiate(&x, g, 0));
    CK(cudaGraphDestroy(g));
    CK(cudaGraphLaunch(x, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaGraphExecDestroy(x));
    CK(cudaFree(out));
    CK(cudaStreamDestroy(s));
    return 0;
}
