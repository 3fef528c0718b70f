/* thrust::fill, sequence and transform on thrust::cuda::par_nosync.on(s),
 * captured in a stream. */
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/sequence.h>
#include <thrust/transform.h>

#include "graph_check.h"

struct twice {
    __host__ __device__ int operator()(int x) const
    {
        return 2 * x;
    }
};

int main()
{
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    const int n = 1000;
    int *a, *b;
    CK(cudaMalloc(&a, n * sizeof *a));
    CK(cudaMalloc(&b, n * sizeof *b));
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    thrust::fill(thrust::cuda::par_nosync.on(s), a, a + n, 3);
    thrust::sequence(thrust::cuda::par_nosync.on(s), b, b + n);
    thrust::transform(thrust::cuda::par_nosync.on(s), a, a + n, b, twice());
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s, &g));
    check_graph(g, {{cudaGraphNodeTypeKernel, "__fill::functor"},
                    {cudaGraphNodeTypeKernel, "__tabulate::functor"},
                    {cudaGraphNodeTypeKernel, "transform_kernel"}});
    /* fill's arguments: (long n, functor {int *it; int value}). */
    cudaGraphNode_t nodes[3];
    size_t count = 3;
    CK(cudaGraphGetNodes(g, nodes, &count));
    cudaKernelNodeParams k;
    CK(cudaGraphKernelNodeGetParams(nodes[0], &k));
    need_values(k);
    struct fill_functor {
        int *it;
        int value;
    };
    const fill_functor *f = (const fill_functor *)k.kernelParams[1];
    if (*(long *)k.kernelParams[0] != n || f->it != a || f->value != 3) {
        std::fprintf(stderr, "fill kernel arguments differ\n");
        return 1;
    }
    CK(cudaGraphDestroy(g));
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaStreamDestroy(s));
    return 0;
}
