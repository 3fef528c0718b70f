/* graph_mem: graph memory as a GPU accounts it.  One graph built by hand
 * allocates, sets and copies out a block, frees it, and allocates again
 * after the free (the same address); a second leaves its allocation live
 * for the program to use and cudaFree; a capture's stream-ordered
 * allocation is launched too.  The device's graph memory pool follows:
 * it grows at the first launch, not at instantiation, reuses what a
 * graph freed in the same stream, keeps its memory after frees until
 * cudaDeviceGraphMemTrim, and keeps a live allocation's through a trim.  The CUDA form
 * (graph_mem.cu) is this file compiled by nvcc. */
#ifdef __CUDACC__
#include <cuda_runtime.h>
#else
#include "sc_cudart.h"
#endif

#include "prog.h"

enum { BIG = 1 << 20, SMALL = 1 << 18 };

static unsigned long long footprint(void)
{
    unsigned long long used = 1, reserved = 2;
    SC_OK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
    SC_OK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &reserved));
    SC_CHECK(used == reserved);
    return used;
}

static struct cudaMemAllocNodeParams alloc_params(size_t bytes)
{
    struct cudaMemAllocNodeParams p;
    memset(&p, 0, sizeof(p));
    p.bytesize = bytes;
    p.poolProps.allocType = cudaMemAllocationTypePinned;
    p.poolProps.location.type = cudaMemLocationTypeDevice;
    p.poolProps.location.id = 0;
    return p;
}

/* alloc a -> memset a -> copy a to host -> free a -> alloc b -> free b */
static struct cudaMemsetParams memset_params(void *dst, unsigned int value, size_t bytes)
{
    struct cudaMemsetParams ms;
    memset(&ms, 0, sizeof(ms));
    ms.dst = dst;
    ms.value = value;
    ms.elementSize = 1;
    ms.width = bytes;
    ms.height = 1;
    return ms;
}

static cudaGraphExec_t reuse_graph(unsigned char *host)
{
    cudaGraph_t g;
    cudaGraphNode_t n[6];
    SC_OK(cudaGraphCreate(&g, 0));
    struct cudaMemAllocNodeParams p = alloc_params(BIG);
    SC_OK(cudaGraphAddMemAllocNode(&n[0], g, NULL, 0, &p));
    unsigned char *a = (unsigned char *)p.dptr;
    struct cudaMemsetParams ms = memset_params(a, 0x11, BIG);
    SC_OK(cudaGraphAddMemsetNode(&n[1], g, &n[0], 1, &ms));
    SC_OK(cudaGraphAddMemcpyNode1D(&n[2], g, &n[1], 1, host, a, BIG, cudaMemcpyDeviceToHost));
    SC_OK(cudaGraphAddMemFreeNode(&n[3], g, &n[2], 1, a));
    SC_OK(cudaGraphAddMemAllocNode(&n[4], g, &n[3], 1, &p));
    SC_CHECK(p.dptr == a); /* ordered after a's free: a's address */
    SC_OK(cudaGraphAddMemFreeNode(&n[5], g, &n[4], 1, p.dptr));
    cudaGraphExec_t x;
    SC_OK(cudaGraphInstantiate(&x, g, 0));
    SC_OK(cudaGraphDestroy(g));
    return x;
}

/* alloc c -> memset c, c left live */
static cudaGraphExec_t unfreed_graph(unsigned char **c)
{
    cudaGraph_t g;
    cudaGraphNode_t n[2];
    SC_OK(cudaGraphCreate(&g, 0));
    struct cudaMemAllocNodeParams p = alloc_params(SMALL);
    SC_OK(cudaGraphAddMemAllocNode(&n[0], g, NULL, 0, &p));
    *c = (unsigned char *)p.dptr;
    struct cudaMemsetParams ms = memset_params(*c, 0x22, SMALL);
    SC_OK(cudaGraphAddMemsetNode(&n[1], g, &n[0], 1, &ms));
    cudaGraphExec_t x;
    SC_OK(cudaGraphInstantiate(&x, g, 0));
    SC_OK(cudaGraphDestroy(g));
    return x;
}

int main(void)
{
    unsigned char *host = (unsigned char *)calloc(BIG, 1);
    unsigned char back[64];
    cudaStream_t s;
    SC_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    cudaGraphExec_t x1 = reuse_graph(host);
    SC_CHECK(footprint() == 0); /* instantiation reserves nothing */
    SC_OK(cudaGraphLaunch(x1, s));
    SC_OK(cudaStreamSynchronize(s));
    SC_CHECK(host[0] == 0x11 && host[BIG - 1] == 0x11);
    SC_CHECK(footprint() == BIG);
    SC_OK(cudaGraphLaunch(x1, s)); /* the same memory again */
    SC_OK(cudaStreamSynchronize(s));
    SC_CHECK(footprint() == BIG);

    unsigned char *c = NULL;
    cudaGraphExec_t x2 = unfreed_graph(&c);
    SC_OK(cudaGraphLaunch(x2, s));
    SC_OK(cudaStreamSynchronize(s));
    SC_CHECK(footprint() == BIG); /* c took the block a freed in this stream */
    SC_FAILS(cudaErrorInvalidValue, cudaGraphLaunch(x2, s)); /* c is still live */
    SC_OK(cudaDeviceGraphMemTrim(0));
    SC_CHECK(footprint() == BIG); /* the live allocation keeps its block */
    SC_OK(cudaMemcpy(back, c + 100, sizeof(back), cudaMemcpyDeviceToHost));
    SC_CHECK(back[0] == 0x22 && back[sizeof(back) - 1] == 0x22);
    SC_OK(cudaFree(c));
    SC_CHECK(footprint() == BIG);
    SC_OK(cudaDeviceGraphMemTrim(0));
    SC_CHECK(footprint() == 0);

    /* A captured stream-ordered allocation is graph memory when launched. */
    unsigned char *q = NULL;
    SC_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    SC_OK(cudaMallocAsync((void **)&q, SMALL, s));
    SC_OK(cudaMemsetAsync(q, 0x33, SMALL, s));
    SC_OK(cudaMemcpyAsync(back, q, sizeof(back), cudaMemcpyDeviceToHost, s));
    SC_OK(cudaFreeAsync(q, s));
    cudaGraph_t cg;
    SC_OK(cudaStreamEndCapture(s, &cg));
    cudaGraphExec_t x3;
    SC_OK(cudaGraphInstantiate(&x3, cg, 0));
    SC_OK(cudaGraphLaunch(x3, s));
    SC_OK(cudaStreamSynchronize(s));
    SC_CHECK(back[0] == 0x33);
    SC_CHECK(footprint() == SMALL);

    unsigned long long high = 0, zero = 0;
    SC_OK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &high));
    SC_CHECK(high == BIG);
    SC_OK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));
    SC_OK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &high));
    SC_CHECK(high == 0);

    SC_OK(cudaGraphExecDestroy(x3));
    SC_OK(cudaGraphDestroy(cg));
    SC_OK(cudaGraphExecDestroy(x2));
    SC_OK(cudaGraphExecDestroy(x1));
    SC_OK(cudaDeviceGraphMemTrim(0));
    SC_CHECK(footprint() == 0);
    SC_OK(cudaStreamDestroy(s));
    free(host);
    return 0;
}
