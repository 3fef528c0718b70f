/* cub::DeviceReduce, DeviceScan and DeviceRadixSort captured in a stream,
 * with their temporary-storage queries and cudaMallocAsync/cudaFreeAsync
 * inside the capture, as code using CUB with graphs writes them. */
#include <cub/cub.cuh>

#include "graph_check.h"

int main()
{
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    const int n = 1000;
    int *in, *out;
    unsigned *keys, *sorted;
    CK(cudaMalloc(&in, n * sizeof *in));
    CK(cudaMalloc(&out, n * sizeof *out));
    CK(cudaMalloc(&keys, n * sizeof *keys));
    CK(cudaMalloc(&sorted, n * sizeof *sorted));
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    size_t bytes = 0;
    void *tmp = nullptr;
    CK(cub::DeviceReduce::Sum(nullptr, bytes, in, out, n, s));
    CK(cudaMallocAsync(&tmp, bytes, s));
    CK(cub::DeviceReduce::Sum(tmp, bytes, in, out, n, s));
    CK(cudaFreeAsync(tmp, s));
    bytes = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out, n, s));
    CK(cudaMallocAsync(&tmp, bytes, s));
    CK(cub::DeviceScan::InclusiveSum(tmp, bytes, in, out, n, s));
    CK(cudaFreeAsync(tmp, s));
    bytes = 0;
    CK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys, sorted, n, 0, 32, s));
    CK(cudaMallocAsync(&tmp, bytes, s));
    CK(cub::DeviceRadixSort::SortKeys(tmp, bytes, keys, sorted, n, 0, 32, s));
    CK(cudaFreeAsync(tmp, s));
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s, &g));
    check_graph(g, {{cudaGraphNodeTypeMemAlloc, nullptr},
                    {cudaGraphNodeTypeKernel, "DeviceReduceSingleTileKernel"},
                    {cudaGraphNodeTypeMemFree, nullptr},
                    {cudaGraphNodeTypeMemAlloc, nullptr},
                    {cudaGraphNodeTypeKernel, "DeviceScanInitKernel"},
                    {cudaGraphNodeTypeKernel, "DeviceScanKernel<"},
                    {cudaGraphNodeTypeMemFree, nullptr},
                    {cudaGraphNodeTypeMemAlloc, nullptr},
                    {cudaGraphNodeTypeKernel, "DeviceRadixSortSingleTileKernel"},
                    {cudaGraphNodeTypeMemFree, nullptr}});
    /* The reduction's arguments as CUB passed them: (in, out, n, ...). */
    cudaGraphNode_t nodes[10];
    size_t count = 10;
    CK(cudaGraphGetNodes(g, nodes, &count));
    cudaKernelNodeParams k;
    CK(cudaGraphKernelNodeGetParams(nodes[1], &k));
    need_values(k);
    if (*(int **)k.kernelParams[0] != in || *(int **)k.kernelParams[1] != out ||
        *(unsigned *)k.kernelParams[2] != (unsigned)n) {
        std::fprintf(stderr, "reduce kernel arguments differ\n");
        return 1;
    }
    CK(cudaGraphDestroy(g));
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(keys));
    CK(cudaFree(sorted));
    CK(cudaStreamDestroy(s));
    return 0;
}
