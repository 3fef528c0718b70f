/*
 * graph_api.c - the cudaGraph* exports that build and inspect graphs:
 * create, destroy, clone, the node-adding calls, dependencies, queries and
 * node parameters.  Validation follows CUDA: a NULL or foreign handle, a
 * dependency from another graph, a duplicate edge or one that would close
 * a cycle is cudaErrorInvalidValue.
 */
#include <stdlib.h>
#include <string.h>

#include "graph_int.h"

/* A graph the program may change: not one a capture is filling (nodes go
 * in there only through cudaGraphAdd*Node, the model's capture.add_node). */
static cudaError_t editable(cudaGraph_t g)
{
    if (!sc_g_valid(g))
        return cudaErrorInvalidValue;
    return g->capture != 0 ? cudaErrorStreamCaptureUnsupported : cudaSuccess;
}

static bool edge_data_default(const cudaGraphEdgeData *ed, size_t n)
{
    static const cudaGraphEdgeData zero;
    for (size_t i = 0; ed != NULL && i < n; i++)
        if (memcmp(&ed[i], &zero, sizeof zero) != 0)
            return false;
    return true;
}

/* ------------------------------------------------------ graph objects */

static cudaError_t graph_create(cudaGraph_t *out, unsigned int flags)
{
    if (out == NULL || flags != 0)
        return cudaErrorInvalidValue;
    return sc_rt_graph_new(out);
}

cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags)
{
    SC_G_LOCKED(graph_create(pGraph, flags));
}

static cudaError_t graph_destroy(cudaGraph_t g)
{
    cudaError_t err = editable(g);
    if (err != cudaSuccess)
        return err;
    if (g->owned)
        return cudaErrorInvalidValue;
    sc_rt_graph_free(g);
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    SC_G_LOCKED(graph_destroy(graph));
}

static cudaError_t graph_clone(cudaGraph_t *out, cudaGraph_t g)
{
    if (out == NULL || !sc_g_valid(g))
        return cudaErrorInvalidValue;
    return sc_g_clone(g, out);
}

cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph)
{
    SC_G_LOCKED(graph_clone(pGraphClone, originalGraph));
}

static cudaError_t find_in_clone(cudaGraphNode_t *out, cudaGraphNode_t orig, cudaGraph_t clone)
{
    if (out == NULL || orig == NULL || !sc_g_valid(clone) || orig->index >= clone->n ||
        clone->nodes[orig->index]->d.type != orig->d.type)
        return cudaErrorInvalidValue;
    *out = clone->nodes[orig->index];
    return cudaSuccess;
}

cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *pNode, cudaGraphNode_t originalNode,
                                     cudaGraph_t clonedGraph)
{
    SC_G_LOCKED(find_in_clone(pNode, originalNode, clonedGraph));
}

/* ------------------------------------------------------------ queries */

/* CUDA's size protocol: a NULL array asks for the count; otherwise up to
 * *num entries are written, the rest of the caller's slots set NULL, and
 * *num becomes the number written. */
typedef bool (*node_pick)(cudaGraph_t g, size_t i, const void *arg);

static cudaError_t list_nodes(cudaGraph_t g, node_pick pick, const void *arg, cudaGraphNode_t *out,
                              size_t *num)
{
    size_t have = 0, cap = out != NULL ? *num : 0;
    for (size_t i = 0; i < g->n; i++) {
        if (!pick(g, i, arg))
            continue;
        if (have < cap)
            out[have] = g->nodes[i];
        have++;
    }
    if (out == NULL) {
        *num = have;
        return cudaSuccess;
    }
    for (size_t i = have; i < cap; i++)
        out[i] = NULL;
    *num = have < cap ? have : cap;
    return cudaSuccess;
}

static bool pick_all(cudaGraph_t g, size_t i, const void *arg)
{
    (void)g, (void)i, (void)arg;
    return true;
}

static bool pick_root(cudaGraph_t g, size_t i, const void *arg)
{
    (void)arg;
    for (size_t e = 0; e < g->ne; e++)
        if (g->to[e] == i)
            return false;
    return true;
}

static cudaError_t get_nodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *num, node_pick pick)
{
    if (!sc_g_valid(g) || num == NULL)
        return cudaErrorInvalidValue;
    return list_nodes(g, pick, NULL, nodes, num);
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes)
{
    SC_G_LOCKED(get_nodes(graph, nodes, numNodes, pick_all));
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes,
                                  size_t *pNumRootNodes)
{
    SC_G_LOCKED(get_nodes(graph, pRootNodes, pNumRootNodes, pick_root));
}

static cudaError_t get_edges(cudaGraph_t g, cudaGraphNode_t *from, cudaGraphNode_t *to,
                             cudaGraphEdgeData *ed, size_t *num)
{
    if (!sc_g_valid(g) || num == NULL || (from == NULL) != (to == NULL) ||
        (from == NULL && ed != NULL))
        return cudaErrorInvalidValue;
    if (from == NULL) {
        *num = g->ne;
        return cudaSuccess;
    }
    size_t cap = *num, k = cap < g->ne ? cap : g->ne;
    for (size_t i = 0; i < cap; i++) {
        from[i] = i < k ? g->nodes[g->from[i]] : NULL;
        to[i] = i < k ? g->nodes[g->to[i]] : NULL;
        if (ed != NULL)
            memset(&ed[i], 0, sizeof ed[i]);
    }
    *num = k;
    return cudaSuccess;
}

cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to,
                              cudaGraphEdgeData *edgeData, size_t *numEdges)
{
    SC_G_LOCKED(get_edges(graph, from, to, edgeData, numEdges));
}

static cudaError_t node_get_type(cudaGraphNode_t n, enum cudaGraphNodeType *type)
{
    if (n == NULL || type == NULL)
        return cudaErrorInvalidValue;
    *type = n->d.type;
    return cudaSuccess;
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType)
{
    SC_G_LOCKED(node_get_type(node, pType));
}

/* A node's neighbours in edge order: its dependencies (edges into it) or
 * its dependents (edges out of it). */
static cudaError_t neighbours(cudaGraphNode_t n, bool deps, cudaGraphNode_t *out,
                              cudaGraphEdgeData *ed, size_t *num)
{
    if (n == NULL || num == NULL || (out == NULL && ed != NULL))
        return cudaErrorInvalidValue;
    cudaGraph_t g = n->graph;
    size_t have = 0, cap = out != NULL ? *num : 0;
    for (size_t e = 0; e < g->ne; e++) {
        uint32_t self = deps ? g->to[e] : g->from[e];
        uint32_t other = deps ? g->from[e] : g->to[e];
        if (self != n->index)
            continue;
        if (have < cap) {
            out[have] = g->nodes[other];
            if (ed != NULL)
                memset(&ed[have], 0, sizeof ed[have]);
        }
        have++;
    }
    if (out == NULL) {
        *num = have;
        return cudaSuccess;
    }
    for (size_t i = have; i < cap; i++)
        out[i] = NULL;
    *num = have < cap ? have : cap;
    return cudaSuccess;
}

cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *pDependencies,
                                         cudaGraphEdgeData *edgeData, size_t *pNumDependencies)
{
    SC_G_LOCKED(neighbours(node, true, pDependencies, edgeData, pNumDependencies));
}

cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t *pDependentNodes,
                                           cudaGraphEdgeData *edgeData, size_t *pNumDependentNodes)
{
    SC_G_LOCKED(neighbours(node, false, pDependentNodes, edgeData, pNumDependentNodes));
}

/* ------------------------------------------------------- dependencies */

static cudaError_t edge_pairs(cudaGraph_t g, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                              size_t n, uint32_t **f, uint32_t **t)
{
    *f = malloc((n + 1) * sizeof **f);
    *t = malloc((n + 1) * sizeof **t);
    if (*f == NULL || *t == NULL)
        return cudaErrorMemoryAllocation;
    for (size_t i = 0; i < n; i++) {
        if (from[i] == NULL || to[i] == NULL || from[i]->graph != g || to[i]->graph != g ||
            from[i] == to[i])
            return cudaErrorInvalidValue;
        (*f)[i] = from[i]->index;
        (*t)[i] = to[i]->index;
    }
    return cudaSuccess;
}

static bool pair_repeated(const uint32_t *f, const uint32_t *t, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (f[j] == f[i] && t[j] == t[i])
            return true;
    return false;
}

/* All or nothing: every pair is checked, then added, and the lot taken
 * back when it closes a cycle. */
static cudaError_t add_deps(cudaGraph_t g, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                            const cudaGraphEdgeData *ed, size_t n)
{
    cudaError_t err = editable(g);
    if (err != cudaSuccess)
        return err;
    if (n == 0)
        return cudaSuccess;
    if (from == NULL || to == NULL)
        return cudaErrorInvalidValue;
    if (!edge_data_default(ed, n))
        return cudaErrorNotSupported;
    uint32_t *f, *t;
    err = edge_pairs(g, from, to, n, &f, &t);
    for (size_t i = 0; err == cudaSuccess && i < n; i++)
        if (sc_g_has_edge(g, f[i], t[i]) || pair_repeated(f, t, i))
            err = cudaErrorInvalidValue;
    size_t before = g->ne;
    if (err == cudaSuccess)
        err = sc_g_edges_push(g, f, t, n);
    if (err == cudaSuccess) {
        uint32_t *order;
        err = sc_g_topo_order(g, &order);
        if (err == cudaSuccess)
            free(order);
        else
            sc_g_edges_truncate(g, before);
    }
    if (err == cudaSuccess)
        sc_g_touch(g);
    free(f);
    free(t);
    return err;
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                     const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData,
                                     size_t numDependencies)
{
    SC_G_LOCKED(add_deps(graph, from, to, edgeData, numDependencies));
}

static void edge_remove(cudaGraph_t g, uint32_t f, uint32_t t)
{
    for (size_t e = 0; e < g->ne; e++) {
        if (g->from[e] != f || g->to[e] != t)
            continue;
        memmove(g->from + e, g->from + e + 1, (g->ne - e - 1) * sizeof *g->from);
        memmove(g->to + e, g->to + e + 1, (g->ne - e - 1) * sizeof *g->to);
        g->ne--;
        return;
    }
}

static cudaError_t remove_deps(cudaGraph_t g, const cudaGraphNode_t *from,
                               const cudaGraphNode_t *to, const cudaGraphEdgeData *ed, size_t n)
{
    cudaError_t err = editable(g);
    if (err != cudaSuccess)
        return err;
    if (n == 0)
        return cudaSuccess;
    if (from == NULL || to == NULL)
        return cudaErrorInvalidValue;
    if (!edge_data_default(ed, n))
        return cudaErrorNotSupported;
    uint32_t *f, *t;
    err = edge_pairs(g, from, to, n, &f, &t);
    for (size_t i = 0; err == cudaSuccess && i < n; i++)
        if (!sc_g_has_edge(g, f[i], t[i]) || pair_repeated(f, t, i))
            err = cudaErrorInvalidValue;
    for (size_t i = 0; err == cudaSuccess && i < n; i++)
        edge_remove(g, f[i], t[i]);
    if (err == cudaSuccess)
        sc_g_touch(g);
    free(f);
    free(t);
    return err;
}

cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                        const cudaGraphNode_t *to,
                                        const cudaGraphEdgeData *edgeData, size_t numDependencies)
{
    SC_G_LOCKED(remove_deps(graph, from, to, edgeData, numDependencies));
}

/* ---------------------------------------------------------- adding nodes */

static void node_set_extra(cudaGraphNode_t n, const node_extra *x, const sc_rt_node_desc *d)
{
    if (d->type == cudaGraphNodeTypeMemcpy && x->copy.extent.width != 0)
        n->copy = x->copy;
    if (d->type != cudaGraphNodeTypeKernel)
        n->kernel_params = x->kernel_params;
    n->extra = x->extra;
    n->pool = x->pool;
    n->block = x->block;
    if (x->cond_out != NULL)
        *x->cond_out = n->d.bodies;
    if (x->move_child) {
        /* The program's graph becomes the node's: its handle stays usable
         * for queries, and it goes with the parent. */
        sc_rt_graph_free(n->d.child);
        n->d.child = d->child;
        n->d.child->owned = true;
    }
}

static cudaError_t dep_indexes(cudaGraph_t g, const cudaGraphNode_t *deps, size_t n, uint32_t **out)
{
    *out = malloc((n + 1) * sizeof **out);
    if (*out == NULL)
        return cudaErrorMemoryAllocation;
    for (size_t i = 0; i < n; i++) {
        if (deps[i] == NULL || deps[i]->graph != g)
            return cudaErrorInvalidValue;
        for (size_t j = 0; j < i; j++)
            if (deps[j] == deps[i])
                return cudaErrorInvalidValue;
        (*out)[i] = deps[i]->index;
    }
    return cudaSuccess;
}

static cudaError_t add_node(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                            const cudaGraphEdgeData *ed, size_t ndeps, const sc_rt_node_desc *d,
                            node_extra *x)
{
    if (out == NULL || !sc_g_valid(g) || (ndeps > 0 && deps == NULL))
        return cudaErrorInvalidValue;
    if (!edge_data_default(ed, ndeps))
        return cudaErrorNotSupported;
    uint32_t *idx;
    cudaError_t err = dep_indexes(g, deps, ndeps, &idx);
    cudaGraphNode_t n = NULL;
    if (err == cudaSuccess && g->capture != 0)
        err = sc_rt_capture_add_node(g, d, deps, ndeps, &n);
    else if (err == cudaSuccess)
        err = sc_rt_graph_append(g, d, idx, ndeps, &n);
    free(idx);
    if (err != cudaSuccess)
        return err;
    node_set_extra(n, x, d);
    x->block = NULL;
    if (g->capture == 0)
        sc_g_touch(g);
    *out = n;
    return cudaSuccess;
}

/* Each export below builds a description and its extras, then add_node;
 * the lock is taken once around both. */
#define SC_G_ADD(build)                                                                            \
    do {                                                                                           \
        SC_RT_ENTER();                                                                             \
        SC_RT_LOCK();                                                                              \
        sc_rt_node_desc d_;                                                                        \
        node_extra x_;                                                                             \
        memset(&d_, 0, sizeof d_);                                                                 \
        memset(&x_, 0, sizeof x_);                                                                 \
        cudaError_t err_ = (build);                                                                \
        if (err_ == cudaSuccess)                                                                   \
            err_ =                                                                                 \
                add_node(pGraphNode, graph, pDependencies, dep_data, numDependencies, &d_, &x_);   \
        sc_g_block_unref(x_.block);                                                                \
        SC_RT_RETURN(err_);                                                                        \
    } while (0)

cudaError_t sc_g_kernel_desc(sc_rt_node_desc *d, node_extra *x,
                             const struct cudaKernelNodeParams *p)
{
    if (p == NULL || p->func == NULL || p->gridDim.x == 0 || p->gridDim.y == 0 ||
        p->gridDim.z == 0 || p->blockDim.x == 0 || p->blockDim.y == 0 || p->blockDim.z == 0)
        return cudaErrorInvalidValue;
    d->type = cudaGraphNodeTypeKernel;
    d->func = p->func;
    d->grid = p->gridDim;
    d->block = p->blockDim;
    d->shared_mem = p->sharedMemBytes;
    d->args = p->kernelParams;
    x->kernel_params = p->kernelParams;
    x->extra = p->extra;
    return cudaSuccess;
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const struct cudaKernelNodeParams *pNodeParams)
{
    const cudaGraphEdgeData *dep_data = NULL;
    SC_G_ADD(sc_g_kernel_desc(&d_, &x_, pNodeParams));
}

/* The address of row (y, z) at byte x of a pitched allocation. */
static char *pitched_at(const struct cudaPitchedPtr *p, const struct cudaPos *pos)
{
    return (char *)p->ptr + (pos->z * p->ysize + pos->y) * p->pitch + pos->x;
}

cudaError_t sc_g_memcpy3d_desc(sc_rt_node_desc *d, node_extra *x, const struct cudaMemcpy3DParms *p)
{
    if (p == NULL)
        return cudaErrorInvalidValue;
    /* A copy naming arrays is kept as the copy of their memory. */
    struct cudaMemcpy3DParms flat = *p;
    cudaError_t err = sc_rt_copy3d_flatten(&flat);
    if (err != cudaSuccess)
        return err;
    p = &flat;
    if (p->srcPtr.ptr == NULL || p->dstPtr.ptr == NULL)
        return cudaErrorInvalidValue;
    if ((unsigned)p->kind > cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    const struct cudaExtent *e = &p->extent;
    bool rows = e->height > 1 || e->depth > 1;
    if (rows &&
        (p->srcPtr.pitch < e->width + p->srcPos.x || p->dstPtr.pitch < e->width + p->dstPos.x))
        return cudaErrorInvalidPitchValue;
    if (e->depth > 1 && (p->srcPtr.ysize < e->height || p->dstPtr.ysize < e->height))
        return cudaErrorInvalidValue;
    d->type = cudaGraphNodeTypeMemcpy;
    d->dst = pitched_at(&p->dstPtr, &p->dstPos);
    d->src = pitched_at(&p->srcPtr, &p->srcPos);
    d->size = e->width * e->height * e->depth;
    d->dst_span =
        sc_rt_pitched_span(p->dstPtr.pitch, p->dstPtr.ysize, e->width, e->height, e->depth);
    d->src_span =
        sc_rt_pitched_span(p->srcPtr.pitch, p->srcPtr.ysize, e->width, e->height, e->depth);
    d->kind = sc_rt_memcpy_kind(d->dst, d->src, p->kind);
    x->copy = *p;
    x->copy.kind = d->kind;
    return cudaSuccess;
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const struct cudaMemcpy3DParms *pCopyParams)
{
    const cudaGraphEdgeData *dep_data = NULL;
    SC_G_ADD(sc_g_memcpy3d_desc(&d_, &x_, pCopyParams));
}

cudaError_t sc_g_memcpy1d_desc(sc_rt_node_desc *d, void *dst, const void *src, size_t count,
                               enum cudaMemcpyKind kind)
{
    if (dst == NULL || src == NULL)
        return cudaErrorInvalidValue;
    if ((unsigned)kind > cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    d->type = cudaGraphNodeTypeMemcpy;
    d->dst = dst;
    d->src = src;
    d->size = count;
    d->kind = sc_rt_memcpy_kind(dst, src, kind);
    return cudaSuccess;
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                     void *dst, const void *src, size_t count,
                                     enum cudaMemcpyKind kind)
{
    const cudaGraphEdgeData *dep_data = NULL;
    SC_G_ADD(sc_g_memcpy1d_desc(&d_, dst, src, count, kind));
}

cudaError_t sc_g_memset_desc(sc_rt_node_desc *d, const struct cudaMemsetParams *p)
{
    if (p == NULL || p->dst == NULL)
        return cudaErrorInvalidValue;
    if (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4)
        return cudaErrorInvalidValue;
    if (p->height > 1 && p->pitch < p->width * p->elementSize)
        return cudaErrorInvalidValue;
    d->type = cudaGraphNodeTypeMemset;
    d->dst = p->dst;
    d->value = p->value;
    d->element_size = p->elementSize;
    d->width = p->width;
    d->height = p->height;
    d->pitch = p->pitch;
    d->size = p->width * p->height * p->elementSize;
    return cudaSuccess;
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const struct cudaMemsetParams *pMemsetParams)
{
    const cudaGraphEdgeData *dep_data = NULL;
    SC_G_ADD(sc_g_memset_desc(&d_, pMemsetParams));
}

cudaError_t sc_g_host_desc(sc_rt_node_desc *d, const struct cudaHostNodeParams *p)
{
    if (p == NULL || p->fn == NULL)
        return cudaErrorInvalidValue;
    d->type = cudaGraphNodeTypeHost;
    d->fn = p->fn;
    d->user_data = p->userData;
    return cudaSuccess;
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                 const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                 const struct cudaHostNodeParams *pNodeParams)
{
    const cudaGraphEdgeData *dep_data = NULL;
    SC_G_ADD(sc_g_host_desc(&d_, pNodeParams));
}

static cudaError_t empty_desc(sc_rt_node_desc *d)
{
    d->type = cudaGraphNodeTypeEmpty;
    return cudaSuccess;
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                  const cudaGraphNode_t *pDependencies, size_t numDependencies)
{
    const cudaGraphEdgeData *dep_data = NULL;
    SC_G_ADD(empty_desc(&d_));
}

static cudaError_t event_desc(sc_rt_node_desc *d, enum cudaGraphNodeType type, cudaEvent_t e)
{
    if (e == NULL)
        return cudaErrorInvalidValue;
    d->type = type;
    d->event = e;
    return cudaSuccess;
}

cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                        const cudaGraphNode_t *pDependencies,
                                        size_t numDependencies, cudaEvent_t event)
{
    const cudaGraphEdgeData *dep_data = NULL;
    SC_G_ADD(event_desc(&d_, cudaGraphNodeTypeEventRecord, event));
}

cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                      const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                      cudaEvent_t event)
{
    const cudaGraphEdgeData *dep_data = NULL;
    SC_G_ADD(event_desc(&d_, cudaGraphNodeTypeWaitEvent, event));
}

static cudaError_t child_desc(sc_rt_node_desc *d, cudaGraph_t parent, cudaGraph_t child)
{
    if (!sc_g_valid(child) || child == parent || child->owned)
        return cudaErrorInvalidValue;
    if (child->capture != 0)
        return cudaErrorStreamCaptureUnsupported;
    d->type = cudaGraphNodeTypeGraph;
    d->child = child;
    return cudaSuccess;
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                       const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                       cudaGraph_t childGraph)
{
    const cudaGraphEdgeData *dep_data = NULL;
    SC_G_ADD(child_desc(&d_, graph, childGraph));
}

/* The address comes from graph_mem.c, which knows which earlier
 * allocation of the graph the node may take the place of. */
static cudaError_t alloc_desc(sc_rt_node_desc *d, node_extra *x, struct cudaMemAllocNodeParams *p,
                              cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps)
{
    if (p == NULL || p->bytesize == 0 || (p->accessDescCount > 0 && p->accessDescs == NULL) ||
        p->poolProps.allocType != cudaMemAllocationTypePinned)
        return cudaErrorInvalidValue;
    cudaError_t err = sc_g_alloc_block(g, deps, ndeps, p->bytesize, &x->block);
    if (err != cudaSuccess)
        return err;
    x->pool = p->poolProps;
    d->type = cudaGraphNodeTypeMemAlloc;
    d->dst = x->block->mem;
    d->size = p->bytesize;
    p->dptr = x->block->mem;
    return cudaSuccess;
}

cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                     struct cudaMemAllocNodeParams *nodeParams)
{
    const cudaGraphEdgeData *dep_data = NULL;
    SC_G_ADD(alloc_desc(&d_, &x_, nodeParams, graph, pDependencies, numDependencies));
}

static cudaError_t free_desc(sc_rt_node_desc *d, void *dptr)
{
    if (dptr == NULL)
        return cudaErrorInvalidValue;
    d->type = cudaGraphNodeTypeMemFree;
    d->dst = dptr;
    return cudaSuccess;
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                    const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                    void *dptr)
{
    const cudaGraphEdgeData *dep_data = NULL;
    SC_G_ADD(free_desc(&d_, dptr));
}

static bool zero_ints(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != 0)
            return false;
    return true;
}

/* The generic form: the V2 structs have the layouts of the first ones. */
static cudaError_t generic_desc(sc_rt_node_desc *d, node_extra *x, cudaGraph_t g,
                                struct cudaGraphNodeParams *p, const cudaGraphNode_t *deps,
                                size_t ndeps)
{
    if (p == NULL || !zero_ints(p->reserved0, sizeof p->reserved0) || p->reserved2 != 0)
        return cudaErrorInvalidValue;
    switch (p->type) {
    case cudaGraphNodeTypeKernel: {
        struct cudaKernelNodeParams k;
        memcpy(&k, &p->kernel, sizeof k);
        return sc_g_kernel_desc(d, x, &k);
    }
    case cudaGraphNodeTypeMemcpy:
        if (p->memcpy.flags != 0 || !zero_ints(p->memcpy.reserved, sizeof p->memcpy.reserved))
            return cudaErrorInvalidValue;
        return sc_g_memcpy3d_desc(d, x, &p->memcpy.copyParams);
    case cudaGraphNodeTypeMemset: {
        struct cudaMemsetParams m;
        memcpy(&m, &p->memset, sizeof m);
        return sc_g_memset_desc(d, &m);
    }
    case cudaGraphNodeTypeHost: {
        struct cudaHostNodeParams h = {p->host.fn, p->host.userData};
        return sc_g_host_desc(d, &h);
    }
    case cudaGraphNodeTypeGraph: {
        cudaError_t err = child_desc(d, g, p->graph.graph);
        if (err == cudaSuccess && p->graph.ownership == cudaGraphChildGraphOwnershipMove)
            x->move_child = true;
        else if (err == cudaSuccess && p->graph.ownership != cudaGraphChildGraphOwnershipClone)
            err = cudaErrorInvalidValue;
        return err;
    }
    case cudaGraphNodeTypeEmpty:
        return empty_desc(d);
    case cudaGraphNodeTypeWaitEvent:
        return event_desc(d, p->type, p->eventWait.event);
    case cudaGraphNodeTypeEventRecord:
        return event_desc(d, p->type, p->eventRecord.event);
    case cudaGraphNodeTypeMemAlloc: {
        struct cudaMemAllocNodeParams a;
        memcpy(&a, &p->alloc, sizeof a);
        cudaError_t err = alloc_desc(d, x, &a, g, deps, ndeps);
        p->alloc.dptr = a.dptr;
        return err;
    }
    case cudaGraphNodeTypeMemFree:
        return free_desc(d, p->free.dptr);
    case cudaGraphNodeTypeConditional:
        return sc_g_cond_desc(d, x, &p->conditional);
    case cudaGraphNodeTypeExtSemaphoreSignal:
    case cudaGraphNodeTypeExtSemaphoreWait:
        return cudaErrorNotSupported;
    default:
        return cudaErrorInvalidValue;
    }
}

cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                             const cudaGraphNode_t *pDependencies,
                             const cudaGraphEdgeData *dependencyData, size_t numDependencies,
                             struct cudaGraphNodeParams *nodeParams)
{
    const cudaGraphEdgeData *dep_data = dependencyData;
    SC_G_ADD(generic_desc(&d_, &x_, graph, nodeParams, pDependencies, numDependencies));
}
