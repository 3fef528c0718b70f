// mem_async: stream-ordered allocation in a capture becomes mem_alloc and
// mem_free nodes, cudaMemcpyDefault copies are stored with the direction
// the pointers give, and the same calls outside capture really allocate,
// set and copy.
#include <cuda_runtime.h>

#include "prog.h"

__global__ void use(unsigned char *p, float *q, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        q[i] = p[i];
}

int main()
{
    int n = 1024;
    const size_t big = 1 << 20, bytes = n * sizeof(float);
    float *h = (float *)calloc(n, sizeof(float));
    float *d = NULL, *d2 = NULL, *pinned = NULL;
    SC_OK(cudaMalloc((void **)&d, bytes));
    SC_OK(cudaMalloc((void **)&d2, bytes));
    SC_OK(cudaMallocHost((void **)&pinned, bytes));
    cudaStream_t s;
    SC_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int pools = 0;
    SC_OK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0));
    SC_CHECK(pools == 1);

    /* Outside capture the work is done at once. */
    unsigned char *q = NULL;
    unsigned char back[256];
    memset(back, 0, sizeof(back));
    SC_OK(cudaMallocAsync((void **)&q, sizeof(back), s));
    SC_OK(cudaMemsetAsync(q, 7, sizeof(back), s));
    SC_OK(cudaMemcpyAsync(back, q, sizeof(back), cudaMemcpyDeviceToHost, s));
    SC_OK(cudaStreamSynchronize(s));
    for (size_t i = 0; i < sizeof(back); i++)
        SC_CHECK(back[i] == 7);
    SC_OK(cudaFreeAsync(q, s));
    SC_OK(cudaStreamSynchronize(s));

    unsigned char *p = NULL;
    SC_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    SC_OK(cudaMallocAsync((void **)&p, big, s)); /* node 0 */
    SC_CHECK(p != NULL);
    SC_OK(cudaMemsetAsync(p, 0, big, s));                      /* node 1 */
    SC_OK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyDefault, s)); /* node 2: host to device */
    use<<<4, 256, 0, s>>>(p, d, n);                            /* node 3 */
    SC_OK(cudaGetLastError());
    SC_OK(cudaMemcpyAsync(d2, d, bytes, cudaMemcpyDefault, s));      /* node 4: device to device */
    SC_OK(cudaMemcpyAsync(pinned, d2, bytes, cudaMemcpyDefault, s)); /* node 5: device to host */
    SC_OK(cudaFreeAsync(p, s));                                      /* node 6 */
    cudaGraph_t g = NULL;
    SC_OK(cudaStreamEndCapture(s, &g));
    size_t nodes = 0;
    SC_OK(cudaGraphGetNodes(g, NULL, &nodes));
    SC_CHECK(nodes == 7);
    cudaGraphNode_t list[7];
    SC_OK(cudaGraphGetNodes(g, list, &nodes));
    enum cudaGraphNodeType type;
    SC_OK(cudaGraphNodeGetType(list[0], &type));
    SC_CHECK(type == cudaGraphNodeTypeMemAlloc);
    SC_OK(cudaGraphNodeGetType(list[6], &type));
    SC_CHECK(type == cudaGraphNodeTypeMemFree);
    SC_OK(cudaGraphDestroy(g));

    SC_OK(cudaStreamDestroy(s));
    SC_OK(cudaFreeHost(pinned));
    SC_OK(cudaFree(d2));
    SC_OK(cudaFree(d));
    free(h);
    return 0;
}
