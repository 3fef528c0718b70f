/*
 * graph_params.c - reading and changing a node's parameters.  Changing
 * one edits the graph: it is then no longer the graph a capture stored.
 */
#include <string.h>

#include "graph_int.h"

/* A node whose parameters the program may read (type) and change. */
static cudaError_t node_of(cudaGraphNode_t n, enum cudaGraphNodeType type, const void *params)
{
    if (n == NULL || params == NULL || n->d.type != type)
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

static cudaError_t node_settable(cudaGraphNode_t n, enum cudaGraphNodeType type, const void *p)
{
    cudaError_t err = node_of(n, type, p);
    if (err == cudaSuccess && n->graph->capture != 0)
        err = cudaErrorStreamCaptureUnsupported;
    return err;
}

static cudaError_t kernel_get(cudaGraphNode_t n, struct cudaKernelNodeParams *p)
{
    cudaError_t err = node_of(n, cudaGraphNodeTypeKernel, p);
    if (err != cudaSuccess)
        return err;
    p->func = (void *)n->d.func;
    p->gridDim = n->d.grid;
    p->blockDim = n->d.block;
    p->sharedMemBytes = n->d.shared_mem;
    p->kernelParams = n->kernel_params;
    p->extra = n->extra;
    return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, struct cudaKernelNodeParams *p)
{
    SC_G_LOCKED(kernel_get(node, p));
}

static cudaError_t kernel_set(cudaGraphNode_t n, const struct cudaKernelNodeParams *p)
{
    cudaError_t err = node_settable(n, cudaGraphNodeTypeKernel, p);
    sc_rt_node_desc d = {0};
    node_extra x = {0};
    if (err == cudaSuccess)
        err = sc_g_kernel_desc(&d, &x, p);
    if (err != cudaSuccess)
        return err;
    n->d = d;
    err = sc_g_node_take_args(n, d.args);
    if (err != cudaSuccess)
        return err;
    n->extra = x.extra;
    sc_g_touch(n->graph);
    return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const struct cudaKernelNodeParams *p)
{
    SC_G_LOCKED(kernel_set(node, p));
}

static cudaError_t memcpy_get(cudaGraphNode_t n, struct cudaMemcpy3DParms *p)
{
    cudaError_t err = node_of(n, cudaGraphNodeTypeMemcpy, p);
    if (err == cudaSuccess)
        *p = n->copy;
    return err;
}

cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, struct cudaMemcpy3DParms *p)
{
    SC_G_LOCKED(memcpy_get(node, p));
}

static cudaError_t memcpy_set(cudaGraphNode_t n, const struct cudaMemcpy3DParms *p)
{
    cudaError_t err = node_settable(n, cudaGraphNodeTypeMemcpy, p);
    sc_rt_node_desc d = {0};
    node_extra x = {0};
    if (err == cudaSuccess)
        err = sc_g_memcpy3d_desc(&d, &x, p);
    if (err != cudaSuccess)
        return err;
    n->d = d;
    n->copy = x.copy;
    sc_g_touch(n->graph);
    return cudaSuccess;
}

cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const struct cudaMemcpy3DParms *p)
{
    SC_G_LOCKED(memcpy_set(node, p));
}

void sc_rt_node_set_copy3d(cudaGraphNode_t n, const struct cudaMemcpy3DParms *p)
{
    n->copy = *p;
}

static cudaError_t memset_get(cudaGraphNode_t n, struct cudaMemsetParams *p)
{
    cudaError_t err = node_of(n, cudaGraphNodeTypeMemset, p);
    if (err != cudaSuccess)
        return err;
    p->dst = n->d.dst;
    p->pitch = n->d.pitch;
    p->value = n->d.value;
    p->elementSize = n->d.element_size;
    p->width = n->d.width;
    p->height = n->d.height;
    return cudaSuccess;
}

cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, struct cudaMemsetParams *p)
{
    SC_G_LOCKED(memset_get(node, p));
}

static cudaError_t memset_set(cudaGraphNode_t n, const struct cudaMemsetParams *p)
{
    cudaError_t err = node_settable(n, cudaGraphNodeTypeMemset, p);
    sc_rt_node_desc d = {0};
    if (err == cudaSuccess)
        err = sc_g_memset_desc(&d, p);
    if (err != cudaSuccess)
        return err;
    n->d = d;
    sc_g_touch(n->graph);
    return cudaSuccess;
}

cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const struct cudaMemsetParams *p)
{
    SC_G_LOCKED(memset_set(node, p));
}

static cudaError_t host_get(cudaGraphNode_t n, struct cudaHostNodeParams *p)
{
    cudaError_t err = node_of(n, cudaGraphNodeTypeHost, p);
    if (err == cudaSuccess) {
        p->fn = n->d.fn;
        p->userData = n->d.user_data;
    }
    return err;
}

cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, struct cudaHostNodeParams *p)
{
    SC_G_LOCKED(host_get(node, p));
}

static cudaError_t host_set(cudaGraphNode_t n, const struct cudaHostNodeParams *p)
{
    cudaError_t err = node_settable(n, cudaGraphNodeTypeHost, p);
    sc_rt_node_desc d = {0};
    if (err == cudaSuccess)
        err = sc_g_host_desc(&d, p);
    if (err != cudaSuccess)
        return err;
    n->d = d;
    sc_g_touch(n->graph);
    return cudaSuccess;
}

cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const struct cudaHostNodeParams *p)
{
    SC_G_LOCKED(host_set(node, p));
}

static cudaError_t child_get(cudaGraphNode_t n, cudaGraph_t *out)
{
    cudaError_t err = node_of(n, cudaGraphNodeTypeGraph, out);
    if (err == cudaSuccess)
        *out = n->d.child;
    return err;
}

cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t *pGraph)
{
    SC_G_LOCKED(child_get(node, pGraph));
}

static cudaError_t event_get(cudaGraphNode_t n, enum cudaGraphNodeType type, cudaEvent_t *out)
{
    cudaError_t err = node_of(n, type, out);
    if (err == cudaSuccess)
        *out = n->d.event;
    return err;
}

cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out)
{
    SC_G_LOCKED(event_get(node, cudaGraphNodeTypeEventRecord, event_out));
}

cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out)
{
    SC_G_LOCKED(event_get(node, cudaGraphNodeTypeWaitEvent, event_out));
}

static cudaError_t alloc_get(cudaGraphNode_t n, struct cudaMemAllocNodeParams *p)
{
    cudaError_t err = node_of(n, cudaGraphNodeTypeMemAlloc, p);
    if (err != cudaSuccess)
        return err;
    memset(p, 0, sizeof *p);
    p->poolProps = n->pool;
    p->bytesize = n->d.size;
    p->dptr = n->d.dst;
    return cudaSuccess;
}

cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node,
                                           struct cudaMemAllocNodeParams *params_out)
{
    SC_G_LOCKED(alloc_get(node, params_out));
}

static cudaError_t free_get(cudaGraphNode_t n, void *dptr_out)
{
    cudaError_t err = node_of(n, cudaGraphNodeTypeMemFree, dptr_out);
    if (err == cudaSuccess)
        memcpy(dptr_out, &n->d.dst, sizeof n->d.dst);
    return err;
}

cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr_out)
{
    SC_G_LOCKED(free_get(node, dptr_out));
}
