/*
 * graph_symbol.c - memcpy nodes to and from a __device__ variable: the
 * variable's memory is resolved once, when the node is added or set, and
 * the node is then the 1-D copy of those bytes (as CUDA's is: a later
 * change of the variable's registration does not move the node).
 */
#include "graph_int.h"

/* A copy into a symbol comes from the host or the device; one out of it
 * goes to either. */
static cudaError_t symbol_bytes(const void *symbol, size_t count, size_t offset,
                                enum cudaMemcpyKind kind, bool to, void **at)
{
    enum cudaMemcpyKind other = to ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    if (kind != other && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    return sc_rt_symbol_range(symbol, count, offset, at);
}

cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                           const cudaGraphNode_t *pDependencies,
                                           size_t numDependencies, const void *symbol,
                                           const void *src, size_t count, size_t offset,
                                           enum cudaMemcpyKind kind)
{
    SC_RT_ENTER();
    SC_RT_LOCK();
    void *at = NULL;
    cudaError_t err = symbol_bytes(symbol, count, offset, kind, true, &at);
    if (err == cudaSuccess)
        err = cudaGraphAddMemcpyNode1D(pGraphNode, graph, pDependencies, numDependencies, at, src,
                                       count, kind);
    SC_RT_RETURN(err);
}

cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t *pDependencies,
                                             size_t numDependencies, void *dst, const void *symbol,
                                             size_t count, size_t offset, enum cudaMemcpyKind kind)
{
    SC_RT_ENTER();
    SC_RT_LOCK();
    void *at = NULL;
    cudaError_t err = symbol_bytes(symbol, count, offset, kind, false, &at);
    if (err == cudaSuccess)
        err = cudaGraphAddMemcpyNode1D(pGraphNode, graph, pDependencies, numDependencies, dst, at,
                                       count, kind);
    SC_RT_RETURN(err);
}

cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t node, const void *symbol,
                                                 const void *src, size_t count, size_t offset,
                                                 enum cudaMemcpyKind kind)
{
    SC_RT_ENTER();
    SC_RT_LOCK();
    void *at = NULL;
    cudaError_t err = symbol_bytes(symbol, count, offset, kind, true, &at);
    if (err == cudaSuccess)
        err = cudaGraphMemcpyNodeSetParams1D(node, at, src, count, kind);
    SC_RT_RETURN(err);
}

cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t node, void *dst,
                                                   const void *symbol, size_t count, size_t offset,
                                                   enum cudaMemcpyKind kind)
{
    SC_RT_ENTER();
    SC_RT_LOCK();
    void *at = NULL;
    cudaError_t err = symbol_bytes(symbol, count, offset, kind, false, &at);
    if (err == cudaSuccess)
        err = cudaGraphMemcpyNodeSetParams1D(node, dst, at, count, kind);
    SC_RT_RETURN(err);
}

cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(cudaGraphExec_t hGraphExec,
                                                     cudaGraphNode_t node, const void *symbol,
                                                     const void *src, size_t count, size_t offset,
                                                     enum cudaMemcpyKind kind)
{
    SC_RT_ENTER();
    SC_RT_LOCK();
    void *at = NULL;
    cudaError_t err = symbol_bytes(symbol, count, offset, kind, true, &at);
    if (err == cudaSuccess)
        err = cudaGraphExecMemcpyNodeSetParams1D(hGraphExec, node, at, src, count, kind);
    SC_RT_RETURN(err);
}

cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(cudaGraphExec_t hGraphExec,
                                                       cudaGraphNode_t node, void *dst,
                                                       const void *symbol, size_t count,
                                                       size_t offset, enum cudaMemcpyKind kind)
{
    SC_RT_ENTER();
    SC_RT_LOCK();
    void *at = NULL;
    cudaError_t err = symbol_bytes(symbol, count, offset, kind, false, &at);
    if (err == cudaSuccess)
        err = cudaGraphExecMemcpyNodeSetParams1D(hGraphExec, node, dst, at, count, kind);
    SC_RT_RETURN(err);
}
