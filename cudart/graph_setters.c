/*
 * graph_setters.c - what programs change on graphs and executable graphs
 * after building them: the cudaGraphExec*SetParams family (the exec's own
 * copy changes, the program's graph does not), the generic and event
 * setters, node removal and enabling.  Kernel node attributes are
 * graph_attr.c's, user objects graph_uobj.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "graph_int.h"

/* ------------------------------------------------------------ helpers */

/* The exec's copy of a node of the graph it was instantiated from: the
 * same position (instantiation clones in order) and type. */
static cudaGraphNode_t exec_node(cudaGraphExec_t x, cudaGraphNode_t n)
{
    if (!sc_gx_valid(x) || n == NULL || n->index >= x->g->n)
        return NULL;
    cudaGraphNode_t e = x->g->nodes[n->index];
    return e->d.type == n->d.type ? e : NULL;
}

/* Replace a node's description by one of the same type, keeping what the
 * new parameters do not describe. */
static cudaError_t node_apply(cudaGraphNode_t n, const sc_rt_node_desc *d, const node_extra *x)
{
    if (d->type != n->d.type)
        return cudaErrorInvalidValue;
    /* Child graphs go through child_set; a conditional's bodies are the
     * node's for its lifetime, as CUDA keeps them. */
    if (d->type == cudaGraphNodeTypeGraph || d->type == cudaGraphNodeTypeConditional)
        return cudaErrorInvalidValue;
    n->d = *d;
    if (d->type == cudaGraphNodeTypeKernel) {
        cudaError_t err = sc_g_node_take_args(n, d->args);
        if (err != cudaSuccess)
            return err;
        n->extra = x->extra;
    }
    if (d->type == cudaGraphNodeTypeMemcpy) {
        if (x->copy.extent.width != 0) {
            n->copy = x->copy;
        } else {
            memset(&n->copy, 0, sizeof n->copy);
            n->copy.srcPtr = (struct cudaPitchedPtr){(void *)d->src, d->size, d->size, 1};
            n->copy.dstPtr = (struct cudaPitchedPtr){d->dst, d->size, d->size, 1};
            n->copy.extent = (struct cudaExtent){d->size, 1, 1};
            n->copy.kind = d->kind;
        }
    }
    return cudaSuccess;
}

/* The description of a generic parameter block, for the types a setter
 * may change (CUDA's cudaGraphNodeSetParams list). */
static cudaError_t generic_desc(sc_rt_node_desc *d, node_extra *x,
                                const struct cudaGraphNodeParams *p)
{
    if (p == NULL)
        return cudaErrorInvalidValue;
    switch (p->type) {
    case cudaGraphNodeTypeKernel: {
        struct cudaKernelNodeParams k;
        memcpy(&k, &p->kernel, sizeof k);
        return sc_g_kernel_desc(d, x, &k);
    }
    case cudaGraphNodeTypeMemcpy:
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
    case cudaGraphNodeTypeEventRecord:
    case cudaGraphNodeTypeWaitEvent: {
        cudaEvent_t e =
            p->type == cudaGraphNodeTypeEventRecord ? p->eventRecord.event : p->eventWait.event;
        if (e == NULL)
            return cudaErrorInvalidValue;
        d->type = p->type;
        d->event = e;
        return cudaSuccess;
    }
    case cudaGraphNodeTypeEmpty:
        d->type = p->type;
        return cudaSuccess;
    default:
        return cudaErrorNotSupported;
    }
}

/* A node of a graph the program may change (not one a capture fills). */
static cudaError_t graph_node(cudaGraphNode_t n)
{
    if (n == NULL || !sc_g_valid(n->graph))
        return cudaErrorInvalidValue;
    return n->graph->capture != 0 ? cudaErrorStreamCaptureUnsupported : cudaSuccess;
}

/* ------------------------------------------------ exec parameter setters */

typedef cudaError_t (*desc_fn)(sc_rt_node_desc *d, node_extra *x, const void *p);

static cudaError_t exec_set(cudaGraphExec_t x, cudaGraphNode_t n, desc_fn fn, const void *p)
{
    cudaGraphNode_t e = exec_node(x, n);
    if (e == NULL)
        return cudaErrorInvalidValue;
    sc_rt_node_desc d;
    node_extra ex;
    memset(&d, 0, sizeof d);
    memset(&ex, 0, sizeof ex);
    cudaError_t err = fn(&d, &ex, p);
    if (err == cudaSuccess)
        err = node_apply(e, &d, &ex);
    return err;
}

static cudaError_t kernel_fn(sc_rt_node_desc *d, node_extra *x, const void *p)
{
    return sc_g_kernel_desc(d, x, p);
}

static cudaError_t memcpy_fn(sc_rt_node_desc *d, node_extra *x, const void *p)
{
    return sc_g_memcpy3d_desc(d, x, p);
}

static cudaError_t memset_fn(sc_rt_node_desc *d, node_extra *x, const void *p)
{
    (void)x;
    return sc_g_memset_desc(d, p);
}

static cudaError_t host_fn(sc_rt_node_desc *d, node_extra *x, const void *p)
{
    (void)x;
    return sc_g_host_desc(d, p);
}

static cudaError_t generic_fn(sc_rt_node_desc *d, node_extra *x, const void *p)
{
    return generic_desc(d, x, p);
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaKernelNodeParams *pNodeParams)
{
    SC_G_LOCKED(exec_set(hGraphExec, node, kernel_fn, pNodeParams));
}

cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaMemcpy3DParms *pNodeParams)
{
    SC_G_LOCKED(exec_set(hGraphExec, node, memcpy_fn, pNodeParams));
}

static cudaError_t exec_memcpy1d(cudaGraphExec_t x, cudaGraphNode_t n, void *dst, const void *src,
                                 size_t count, enum cudaMemcpyKind kind)
{
    cudaGraphNode_t e = exec_node(x, n);
    if (e == NULL)
        return cudaErrorInvalidValue;
    sc_rt_node_desc d;
    node_extra ex;
    memset(&d, 0, sizeof d);
    memset(&ex, 0, sizeof ex);
    cudaError_t err = sc_g_memcpy1d_desc(&d, dst, src, count, kind);
    return err == cudaSuccess ? node_apply(e, &d, &ex) : err;
}

cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                               void *dst, const void *src, size_t count,
                                               enum cudaMemcpyKind kind)
{
    SC_G_LOCKED(exec_memcpy1d(hGraphExec, node, dst, src, count, kind));
}

cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaMemsetParams *pNodeParams)
{
    SC_G_LOCKED(exec_set(hGraphExec, node, memset_fn, pNodeParams));
}

cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                           const struct cudaHostNodeParams *pNodeParams)
{
    SC_G_LOCKED(exec_set(hGraphExec, node, host_fn, pNodeParams));
}

cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t graphExec, cudaGraphNode_t node,
                                       struct cudaGraphNodeParams *nodeParams)
{
    SC_G_LOCKED(exec_set(graphExec, node, generic_fn, nodeParams));
}

static cudaError_t exec_event(cudaGraphExec_t x, cudaGraphNode_t n, enum cudaGraphNodeType type,
                              cudaEvent_t ev)
{
    cudaGraphNode_t e = exec_node(x, n);
    if (e == NULL || e->d.type != type || ev == NULL)
        return cudaErrorInvalidValue;
    e->d.event = ev;
    return cudaSuccess;
}

cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                                 cudaEvent_t event)
{
    SC_G_LOCKED(exec_event(hGraphExec, hNode, cudaGraphNodeTypeEventRecord, event));
}

cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                               cudaEvent_t event)
{
    SC_G_LOCKED(exec_event(hGraphExec, hNode, cudaGraphNodeTypeWaitEvent, event));
}

/* ------------------------------------------------ graph node setters */

static cudaError_t graph_event(cudaGraphNode_t n, enum cudaGraphNodeType type, cudaEvent_t ev)
{
    cudaError_t err = graph_node(n);
    if (err != cudaSuccess)
        return err;
    if (n->d.type != type || ev == NULL)
        return cudaErrorInvalidValue;
    n->d.event = ev;
    sc_g_touch(n->graph);
    return cudaSuccess;
}

cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event)
{
    SC_G_LOCKED(graph_event(node, cudaGraphNodeTypeEventRecord, event));
}

cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event)
{
    SC_G_LOCKED(graph_event(node, cudaGraphNodeTypeWaitEvent, event));
}

static cudaError_t graph_set(cudaGraphNode_t n, struct cudaGraphNodeParams *p)
{
    cudaError_t err = graph_node(n);
    sc_rt_node_desc d;
    node_extra x;
    memset(&d, 0, sizeof d);
    memset(&x, 0, sizeof x);
    if (err == cudaSuccess)
        err = generic_desc(&d, &x, p);
    if (err == cudaSuccess)
        err = node_apply(n, &d, &x);
    if (err == cudaSuccess)
        sc_g_touch(n->graph);
    return err;
}

cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node, struct cudaGraphNodeParams *nodeParams)
{
    SC_G_LOCKED(graph_set(node, nodeParams));
}

static cudaError_t graph_memcpy1d(cudaGraphNode_t n, void *dst, const void *src, size_t count,
                                  enum cudaMemcpyKind kind)
{
    cudaError_t err = graph_node(n);
    sc_rt_node_desc d;
    node_extra x;
    memset(&d, 0, sizeof d);
    memset(&x, 0, sizeof x);
    if (err == cudaSuccess)
        err = sc_g_memcpy1d_desc(&d, dst, src, count, kind);
    if (err == cudaSuccess)
        err = node_apply(n, &d, &x);
    if (err == cudaSuccess)
        sc_g_touch(n->graph);
    return err;
}

cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void *dst, const void *src,
                                           size_t count, enum cudaMemcpyKind kind)
{
    SC_G_LOCKED(graph_memcpy1d(node, dst, src, count, kind));
}

/* ------------------------------------------------------ node removal */

/* The node and every edge touching it go; later nodes move up one place,
 * as their positions are their indexes. */
static cudaError_t destroy_node(cudaGraphNode_t n)
{
    cudaError_t err = graph_node(n);
    if (err != cudaSuccess)
        return err;
    cudaGraph_t g = n->graph;
    uint32_t at = n->index;
    size_t k = 0;
    for (size_t e = 0; e < g->ne; e++) {
        if (g->from[e] == at || g->to[e] == at)
            continue;
        g->from[k] = g->from[e] - (g->from[e] > at);
        g->to[k] = g->to[e] - (g->to[e] > at);
        k++;
    }
    g->ne = k;
    memmove(&g->nodes[at], &g->nodes[at + 1], (g->n - at - 1) * sizeof *g->nodes);
    g->n--;
    for (size_t i = at; i < g->n; i++)
        g->nodes[i]->index = (uint32_t)i;
    if (n->d.type == cudaGraphNodeTypeGraph)
        sc_rt_graph_free(n->d.child);
    sc_g_block_unref(n->block);
    sc_g_node_free_extras(n);
    sc_g_node_release(n);
    sc_g_touch(g);
    return cudaSuccess;
}

cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node)
{
    SC_G_LOCKED(destroy_node(node));
}

/* ------------------------------------------------------------ enabling */

static bool enable_type(enum cudaGraphNodeType t)
{
    return t == cudaGraphNodeTypeKernel || t == cudaGraphNodeTypeMemcpy ||
           t == cudaGraphNodeTypeMemset;
}

static cudaError_t get_enabled(cudaGraphExec_t x, cudaGraphNode_t n, unsigned int *out)
{
    cudaGraphNode_t e = exec_node(x, n);
    if (e == NULL || out == NULL || !enable_type(e->d.type))
        return cudaErrorInvalidValue;
    *out = e->disabled ? 0 : 1;
    return cudaSuccess;
}

cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                    unsigned int *isEnabled)
{
    SC_G_LOCKED(get_enabled(hGraphExec, hNode, isEnabled));
}

static cudaError_t set_enabled(cudaGraphExec_t x, cudaGraphNode_t n, unsigned int on)
{
    cudaGraphNode_t e = exec_node(x, n);
    if (e == NULL || !enable_type(e->d.type))
        return cudaErrorInvalidValue;
    e->disabled = on == 0;
    return cudaSuccess;
}

cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                    unsigned int isEnabled)
{
    SC_G_LOCKED(set_enabled(hGraphExec, hNode, isEnabled));
}
