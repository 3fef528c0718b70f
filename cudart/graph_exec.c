/*
 * graph_exec.c - executable graphs: instantiate (which stores a graph
 * built by hand through sc_rt_submit_graph), launch, update, destroy, and
 * sc_rt_graph_run, which performs a graph on the host.
 */
#include <stdlib.h>
#include <string.h>

#include "graph_int.h"

#define SC_G_INSTANTIATE_FLAGS                                                                     \
    (cudaGraphInstantiateFlagAutoFreeOnLaunch | cudaGraphInstantiateFlagUpload |                   \
     cudaGraphInstantiateFlagDeviceLaunch | cudaGraphInstantiateFlagUseNodePriority)

/* A graph the daemon does not have yet goes to it once per state: one a
 * capture made is there already, and clones share their original's
 * state until edited. */
static void submit_once(cudaGraph_t g)
{
    if (g->state->from_capture || g->state->submitted)
        return;
    sc_rt_submit_graph(g);
    g->state->submitted = true;
}

static cudaError_t instantiate(cudaGraphExec_t *out, cudaGraph_t g, unsigned long long flags,
                               cudaGraphInstantiateResult *result)
{
    *result = cudaGraphInstantiateError;
    if (out == NULL || !sc_g_valid(g) || (flags & ~(unsigned long long)SC_G_INSTANTIATE_FLAGS))
        return cudaErrorInvalidValue;
    if (g->capture != 0)
        return cudaErrorStreamCaptureUnsupported;
    uint32_t *order;
    cudaError_t err = sc_g_topo_order(g, &order);
    if (err == cudaErrorInvalidValue)
        *result = cudaGraphInstantiateInvalidStructure;
    if (err != cudaSuccess)
        return err;
    free(order);
    cudaGraphExec_t x = calloc(1, sizeof *x);
    if (x == NULL)
        return cudaErrorMemoryAllocation;
    err = sc_g_clone(g, &x->g);
    if (err != cudaSuccess) {
        free(x);
        return err;
    }
    x->magic = SC_GX_MAGIC;
    x->flags = flags;
    submit_once(g);
    *out = x;
    *result = cudaGraphInstantiateSuccess;
    return cudaSuccess;
}

static cudaError_t instantiate_flags(cudaGraphExec_t *out, cudaGraph_t g, unsigned long long flags)
{
    cudaGraphInstantiateResult result;
    /* Upload needs the stream only WithParams gives. */
    if (flags & cudaGraphInstantiateFlagUpload)
        return cudaErrorInvalidValue;
    return instantiate(out, g, flags, &result);
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                 unsigned long long flags)
{
    SC_G_LOCKED(instantiate_flags(pGraphExec, graph, flags));
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                          unsigned long long flags)
{
    SC_G_LOCKED(instantiate_flags(pGraphExec, graph, flags));
}

static cudaError_t instantiate_params(cudaGraphExec_t *out, cudaGraph_t g,
                                      cudaGraphInstantiateParams *p)
{
    if (p == NULL)
        return cudaErrorInvalidValue;
    p->errNode_out = NULL;
    /* Nothing is uploaded to a device, so the upload stream has no work. */
    return instantiate(out, g, p->flags, &p->result_out);
}

cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                           cudaGraphInstantiateParams *instantiateParams)
{
    SC_G_LOCKED(instantiate_params(pGraphExec, graph, instantiateParams));
}

cudaError_t cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                cudaGraphInstantiateParams *instantiateParams)
{
    SC_G_LOCKED(instantiate_params(pGraphExec, graph, instantiateParams));
}

static cudaError_t exec_flags(cudaGraphExec_t x, unsigned long long *flags)
{
    if (!sc_gx_valid(x) || flags == NULL)
        return cudaErrorInvalidValue;
    *flags = x->flags;
    return cudaSuccess;
}

cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t graphExec, unsigned long long *flags)
{
    SC_G_LOCKED(exec_flags(graphExec, flags));
}

static cudaError_t upload(cudaGraphExec_t x)
{
    return sc_gx_valid(x) ? cudaSuccess : cudaErrorInvalidValue;
}

cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    (void)stream;
    SC_G_LOCKED(upload(graphExec));
}

cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    (void)stream;
    SC_G_LOCKED(upload(graphExec));
}

/* One launch is one piece of work on the stream: a child-graph node when
 * the stream is capturing, else sc_rt_issue performs it through
 * sc_rt_graph_run (rt.h). */
static cudaError_t launch(cudaGraphExec_t x, cudaStream_t s)
{
    if (!sc_gx_valid(x))
        return cudaErrorInvalidValue;
    bool capturing = false;
    uint32_t stream = sc_rt_launch_stream(s, &capturing);
    if (!capturing && (x->flags & cudaGraphInstantiateFlagAutoFreeOnLaunch))
        sc_g_mem_auto_free(x->g, stream);
    cudaError_t err = capturing ? cudaSuccess : sc_g_mem_launch_check(x->g);
    if (err != cudaSuccess)
        return err;
    sc_rt_node_desc d;
    memset(&d, 0, sizeof d);
    d.type = cudaGraphNodeTypeGraph;
    d.child = x->g;
    err = sc_rt_issue(s, &d, NULL);
    if (err == cudaSuccess)
        x->launches++;
    if (err == cudaSuccess && !capturing)
        sc_g_mem_launched(x->g, stream);
    return err;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    SC_G_LOCKED(launch(graphExec, stream));
}

/* --default-stream per-thread: the NULL stream is the thread's own. */
cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    SC_G_LOCKED(launch(graphExec, stream == NULL ? cudaStreamPerThread : stream));
}

static cudaError_t exec_destroy(cudaGraphExec_t x)
{
    if (!sc_gx_valid(x))
        return cudaErrorInvalidValue;
    sc_g_mem_reown(x->g, NULL);
    sc_rt_graph_free(x->g);
    x->magic = 0;
    free(x);
    return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
    SC_G_LOCKED(exec_destroy(graphExec));
}

/* ------------------------------------------------------------ update */

static size_t edge_count(cudaGraph_t g, uint32_t f, uint32_t t)
{
    size_t c = 0;
    for (size_t e = 0; e < g->ne; e++)
        c += g->from[e] == f && g->to[e] == t;
    return c;
}

static enum cudaGraphExecUpdateResult
same_topology(cudaGraph_t a, cudaGraph_t g, cudaGraphNode_t *err_node, cudaGraphNode_t *err_from);

/* Two conditionals alike: type, size, and each body's topology. */
static bool same_bodies(const sc_rt_node_desc *a, const sc_rt_node_desc *g)
{
    if (a->cond_type != g->cond_type || a->nbodies != g->nbodies)
        return false;
    for (uint32_t i = 0; i < g->nbodies; i++) {
        cudaGraphNode_t in, inf;
        if (same_topology(a->bodies[i], g->bodies[i], &in, &inf) != cudaGraphExecUpdateSuccess)
            return false;
    }
    return true;
}

/* Whether g can replace the exec's graph a: the same nodes (by creation
 * order, types equal) and the same edges, child graphs alike. */
static enum cudaGraphExecUpdateResult
same_topology(cudaGraph_t a, cudaGraph_t g, cudaGraphNode_t *err_node, cudaGraphNode_t *err_from)
{
    *err_node = *err_from = NULL;
    if (a->n != g->n || a->ne != g->ne)
        return cudaGraphExecUpdateErrorTopologyChanged;
    for (size_t i = 0; i < g->n; i++) {
        cudaGraphNode_t na = a->nodes[i], ng = g->nodes[i];
        *err_node = ng;
        if (na->d.type != ng->d.type)
            return cudaGraphExecUpdateErrorNodeTypeChanged;
        if (ng->d.type == cudaGraphNodeTypeGraph) {
            cudaGraphNode_t in, inf;
            if (same_topology(na->d.child, ng->d.child, &in, &inf) != cudaGraphExecUpdateSuccess)
                return cudaGraphExecUpdateErrorTopologyChanged;
        }
        if (ng->d.type == cudaGraphNodeTypeConditional && !same_bodies(&na->d, &ng->d))
            return cudaGraphExecUpdateErrorTopologyChanged;
    }
    for (size_t e = 0; e < g->ne; e++) {
        if (edge_count(a, g->from[e], g->to[e]) != edge_count(g, g->from[e], g->to[e])) {
            *err_node = g->nodes[g->to[e]];
            *err_from = g->nodes[g->from[e]];
            return cudaGraphExecUpdateErrorTopologyChanged;
        }
    }
    *err_node = NULL;
    return cudaGraphExecUpdateSuccess;
}

static cudaError_t exec_update(cudaGraphExec_t x, cudaGraph_t g,
                               cudaGraphExecUpdateResultInfo *info)
{
    cudaGraphExecUpdateResultInfo local;
    if (info == NULL)
        info = &local;
    memset(info, 0, sizeof *info);
    info->result = cudaGraphExecUpdateError;
    if (!sc_gx_valid(x) || !sc_g_valid(g))
        return cudaErrorInvalidValue;
    if (g->capture != 0)
        return cudaErrorStreamCaptureUnsupported;
    info->result = same_topology(x->g, g, &info->errorNode, &info->errorFromNode);
    if (info->result != cudaGraphExecUpdateSuccess)
        return cudaErrorGraphExecUpdateFailure;
    cudaGraph_t copy;
    cudaError_t err = sc_g_clone(g, &copy);
    if (err != cudaSuccess) {
        info->result = cudaGraphExecUpdateError;
        return err;
    }
    sc_g_mem_reown(x->g, copy);
    sc_rt_graph_free(x->g);
    x->g = copy;
    /* What launches from now on is g: store it as instantiate would. */
    submit_once(g);
    return cudaSuccess;
}

/* The exec's child graph is replaced by a copy of `child`, which must
 * have the topology of the one it replaces. */
static cudaError_t exec_child(cudaGraphExec_t x, cudaGraphNode_t n, cudaGraph_t child)
{
    if (!sc_gx_valid(x) || n == NULL || !sc_g_valid(child) || n->index >= x->g->n)
        return cudaErrorInvalidValue;
    cudaGraphNode_t e = x->g->nodes[n->index];
    if (e->d.type != cudaGraphNodeTypeGraph || n->d.type != cudaGraphNodeTypeGraph)
        return cudaErrorInvalidValue;
    if (child->capture != 0)
        return cudaErrorStreamCaptureUnsupported;
    cudaGraphNode_t en, ef;
    if (same_topology(e->d.child, child, &en, &ef) != cudaGraphExecUpdateSuccess)
        return cudaErrorInvalidValue;
    cudaGraph_t copy;
    cudaError_t err = sc_g_clone(child, &copy);
    if (err != cudaSuccess)
        return err;
    copy->owned = true;
    sc_rt_graph_free(e->d.child);
    e->d.child = copy;
    return cudaSuccess;
}

cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                 cudaGraph_t childGraph)
{
    SC_G_LOCKED(exec_child(hGraphExec, node, childGraph));
}

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                cudaGraphExecUpdateResultInfo *resultInfo)
{
    SC_G_LOCKED(exec_update(hGraphExec, hGraph, resultInfo));
}

/* --------------------------------------------------------------- run */

static void run_memcpy(cudaGraphNode_t n)
{
    const struct cudaMemcpy3DParms *p = &n->copy;
    const struct cudaExtent *e = &p->extent;
    if (e->height <= 1 && e->depth <= 1) {
        if (n->d.size > 0)
            memmove(n->d.dst, n->d.src, n->d.size);
        return;
    }
    for (size_t z = 0; z < e->depth; z++) {
        for (size_t y = 0; y < e->height; y++) {
            struct cudaPos sp = {p->srcPos.x, p->srcPos.y + y, p->srcPos.z + z};
            struct cudaPos dp = {p->dstPos.x, p->dstPos.y + y, p->dstPos.z + z};
            const char *src = (const char *)p->srcPtr.ptr +
                              (sp.z * p->srcPtr.ysize + sp.y) * p->srcPtr.pitch + sp.x;
            char *dst =
                (char *)p->dstPtr.ptr + (dp.z * p->dstPtr.ysize + dp.y) * p->dstPtr.pitch + dp.x;
            memmove(dst, src, e->width);
        }
    }
}

static void run_memset(const sc_rt_node_desc *d)
{
    size_t rows = d->height ? d->height : 1;
    size_t pitch = rows > 1 ? d->pitch : d->width * d->element_size;
    for (size_t y = 0; y < rows; y++) {
        unsigned char *row = (unsigned char *)d->dst + y * pitch;
        for (size_t i = 0; i < d->width; i++) {
            if (d->element_size == 1) {
                row[i] = (unsigned char)d->value;
            } else if (d->element_size == 2) {
                uint16_t v = (uint16_t)d->value;
                memcpy(row + 2 * i, &v, 2);
            } else {
                uint32_t v = d->value;
                memcpy(row + 4 * i, &v, 4);
            }
        }
    }
}

static cudaError_t run_node(cudaGraph_t g, cudaGraphNode_t n)
{
    const sc_rt_node_desc *d = &n->d;
    if (n->disabled) /* cudaGraphNodeSetEnabled(0): an empty node */
        return cudaSuccess;
    switch (d->type) {
    case cudaGraphNodeTypeKernel:
        g->kernels_run++;
        return cudaSuccess;
    case cudaGraphNodeTypeMemcpy:
        run_memcpy(n);
        return cudaSuccess;
    case cudaGraphNodeTypeMemset:
        run_memset(d);
        return cudaSuccess;
    case cudaGraphNodeTypeHost:
        /* Host functions run unlocked: one that calls the runtime (CUDA
         * forbids it, programs do it) must not deadlock. */
        sc_rt_unlock();
        d->fn(d->user_data);
        sc_rt_lock();
        return cudaSuccess;
    case cudaGraphNodeTypeGraph:
        return sc_rt_graph_run(d->child);
    case cudaGraphNodeTypeConditional:
        return sc_g_cond_run(d);
    case cudaGraphNodeTypeEventRecord:
        sc_rt_event_reached(d->event);
        return cudaSuccess;
    default:
        return cudaSuccess;
    }
}

cudaError_t sc_rt_graph_run(cudaGraph_t g)
{
    if (!sc_g_valid(g))
        return cudaErrorInvalidValue;
    uint32_t *order;
    cudaError_t err = sc_g_topo_order(g, &order);
    if (err != cudaSuccess)
        return err;
    size_t n = g->n;
    for (size_t i = 0; i < n && err == cudaSuccess; i++)
        err = run_node(g, g->nodes[order[i]]);
    free(order);
    return err;
}
