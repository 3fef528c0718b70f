/*
 * graph_symbol.c - memcpy nodes to and from a __device__ variable: the
 * variable's memory is resolved once, when the node is added or set, and
 * the node is then the 1-D copy of those bytes (as CUDA's is: a later
 * change of the variable's registration does not move the node).
 */
#include "graph_int.h"

/* What a symbol copy does with its 1-D copy: add a node, set a node's
 * parameters, or set them in an exec. */
typedef enum sym_how { SYM_ADD, SYM_SET, SYM_EXEC } sym_how;

typedef struct sym_target {
    sym_how how;
    cudaGraphNode_t *out; /* SYM_ADD */
    cudaGraph_t graph;
    const cudaGraphNode_t *deps;
    size_t ndeps;
    cudaGraphNode_t node; /* SYM_SET, SYM_EXEC */
    cudaGraphExec_t exec; /* SYM_EXEC */
} sym_target;

/* The one resolver of the six calls: a copy into a symbol (to) comes from
 * the host or the device and writes the variable's bytes; one out of it
 * reads them and goes to either.  Then the 1-D copy goes to t. */
static cudaError_t symbol_copy(sym_target t, const void *symbol, void *dst, const void *src,
                               size_t count, size_t offset, enum cudaMemcpyKind kind, bool to)
{
    enum cudaMemcpyKind other = to ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    if (kind != other && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    void *at = NULL;
    cudaError_t err = sc_rt_symbol_range(symbol, count, offset, &at);
    if (err != cudaSuccess)
        return err;
    if (to)
        dst = at;
    else
        src = at;
    switch (t.how) {
    case SYM_ADD:
        return cudaGraphAddMemcpyNode1D(t.out, t.graph, t.deps, t.ndeps, dst, src, count, kind);
    case SYM_SET:
        return cudaGraphMemcpyNodeSetParams1D(t.node, dst, src, count, kind);
    default:
        return cudaGraphExecMemcpyNodeSetParams1D(t.exec, t.node, dst, src, count, kind);
    }
}

#define SC_SYM_ADD(pn, g, d, n)                                                                    \
    ((sym_target){.how = SYM_ADD, .out = (pn), .graph = (g), .deps = (d), .ndeps = (n)})
#define SC_SYM_SET(n)     ((sym_target){.how = SYM_SET, .node = (n)})
#define SC_SYM_EXEC(e, n) ((sym_target){.how = SYM_EXEC, .exec = (e), .node = (n)})

cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                           const cudaGraphNode_t *pDependencies,
                                           size_t numDependencies, const void *symbol,
                                           const void *src, size_t count, size_t offset,
                                           enum cudaMemcpyKind kind)
{
    SC_RT_ENTER();
    SC_RT_LOCK();
    SC_RT_RETURN(symbol_copy(SC_SYM_ADD(pGraphNode, graph, pDependencies, numDependencies), symbol,
                             NULL, src, count, offset, kind, true));
}

cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t *pDependencies,
                                             size_t numDependencies, void *dst, const void *symbol,
                                             size_t count, size_t offset, enum cudaMemcpyKind kind)
{
    SC_RT_ENTER();
    SC_RT_LOCK();
    SC_RT_RETURN(symbol_copy(SC_SYM_ADD(pGraphNode, graph, pDependencies, numDependencies), symbol,
                             dst, NULL, count, offset, kind, false));
}

cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t node, const void *symbol,
                                                 const void *src, size_t count, size_t offset,
                                                 enum cudaMemcpyKind kind)
{
    SC_RT_ENTER();
    SC_RT_LOCK();
    SC_RT_RETURN(symbol_copy(SC_SYM_SET(node), symbol, NULL, src, count, offset, kind, true));
}

cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t node, void *dst,
                                                   const void *symbol, size_t count, size_t offset,
                                                   enum cudaMemcpyKind kind)
{
    SC_RT_ENTER();
    SC_RT_LOCK();
    SC_RT_RETURN(symbol_copy(SC_SYM_SET(node), symbol, dst, NULL, count, offset, kind, false));
}

cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(cudaGraphExec_t hGraphExec,
                                                     cudaGraphNode_t node, const void *symbol,
                                                     const void *src, size_t count, size_t offset,
                                                     enum cudaMemcpyKind kind)
{
    SC_RT_ENTER();
    SC_RT_LOCK();
    SC_RT_RETURN(
        symbol_copy(SC_SYM_EXEC(hGraphExec, node), symbol, NULL, src, count, offset, kind, true));
}

cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(cudaGraphExec_t hGraphExec,
                                                       cudaGraphNode_t node, void *dst,
                                                       const void *symbol, size_t count,
                                                       size_t offset, enum cudaMemcpyKind kind)
{
    SC_RT_ENTER();
    SC_RT_LOCK();
    SC_RT_RETURN(
        symbol_copy(SC_SYM_EXEC(hGraphExec, node), symbol, dst, NULL, count, offset, kind, false));
}
