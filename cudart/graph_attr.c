/*
 * graph_attr.c - kernel node launch attributes (cudaGraphKernelNodeSetAttribute
 * and friends): kept on the node, copied with it when a graph is cloned or
 * instantiated, freed with it.
 */
#include <stdlib.h>
#include <string.h>

#include "graph_int.h"

static bool kernel_attr_valid(cudaLaunchAttributeID id)
{
    switch (id) {
    case cudaLaunchAttributeAccessPolicyWindow:
    case cudaLaunchAttributeCooperative:
    case cudaLaunchAttributeClusterDimension:
    case cudaLaunchAttributeClusterSchedulingPolicyPreference:
    case cudaLaunchAttributePriority:
    case cudaLaunchAttributeMemSyncDomainMap:
    case cudaLaunchAttributeMemSyncDomain:
    case cudaLaunchAttributePreferredClusterDimension:
    case cudaLaunchAttributeDeviceUpdatableKernelNode:
    case cudaLaunchAttributePreferredSharedMemoryCarveout:
        return true;
    default:
        return false;
    }
}

static cudaLaunchAttribute *attr_find(cudaGraphNode_t n, cudaLaunchAttributeID id)
{
    for (size_t i = 0; i < n->nattrs; i++)
        if (n->attrs[i].id == id)
            return &n->attrs[i];
    return NULL;
}

static cudaError_t attr_get(cudaGraphNode_t n, cudaLaunchAttributeID id,
                            cudaLaunchAttributeValue *out)
{
    if (n == NULL || out == NULL || n->d.type != cudaGraphNodeTypeKernel || !kernel_attr_valid(id))
        return cudaErrorInvalidValue;
    const cudaLaunchAttribute *a = attr_find(n, id);
    if (a != NULL)
        *out = a->val;
    else
        memset(out, 0, sizeof *out);
    return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t hNode, cudaLaunchAttributeID attr,
                                            cudaLaunchAttributeValue *value_out)
{
    SC_G_LOCKED(attr_get(hNode, attr, value_out));
}

static cudaError_t attr_put(cudaGraphNode_t n, cudaLaunchAttributeID id,
                            const cudaLaunchAttributeValue *v)
{
    cudaLaunchAttribute *a = attr_find(n, id);
    if (a == NULL) {
        cudaLaunchAttribute *grown = realloc(n->attrs, (n->nattrs + 1) * sizeof *grown);
        if (grown == NULL)
            return cudaErrorMemoryAllocation;
        n->attrs = grown;
        a = &n->attrs[n->nattrs++];
        memset(a, 0, sizeof *a);
        a->id = id;
    }
    a->val = *v;
    return cudaSuccess;
}

static cudaError_t attr_set(cudaGraphNode_t n, cudaLaunchAttributeID id,
                            const cudaLaunchAttributeValue *v)
{
    if (n == NULL || v == NULL || n->d.type != cudaGraphNodeTypeKernel || !kernel_attr_valid(id))
        return cudaErrorInvalidValue;
    cudaError_t err = attr_put(n, id, v);
    if (err == cudaSuccess && sc_g_valid(n->graph) && n->graph->capture == 0)
        sc_g_touch(n->graph);
    return err;
}

cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t hNode, cudaLaunchAttributeID attr,
                                            const cudaLaunchAttributeValue *value)
{
    SC_G_LOCKED(attr_set(hNode, attr, value));
}

static cudaError_t attr_copy(cudaGraphNode_t dst, cudaGraphNode_t src)
{
    if (dst == NULL || src == NULL || dst->d.type != cudaGraphNodeTypeKernel ||
        src->d.type != cudaGraphNodeTypeKernel)
        return cudaErrorInvalidValue;
    cudaError_t err = cudaSuccess;
    for (size_t i = 0; err == cudaSuccess && i < src->nattrs; i++)
        err = attr_put(dst, src->attrs[i].id, &src->attrs[i].val);
    return err;
}

cudaError_t cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t hDst, cudaGraphNode_t hSrc)
{
    SC_G_LOCKED(attr_copy(hDst, hSrc));
}

bool sc_g_node_copy_extras(cudaGraphNode_t to, cudaGraphNode_t from)
{
    to->disabled = from->disabled;
    if (from->d.type == cudaGraphNodeTypeKernel && !sc_g_node_copy_args(to, from))
        return false;
    if (from->nattrs == 0)
        return true;
    to->attrs = malloc(from->nattrs * sizeof *to->attrs);
    if (to->attrs == NULL)
        return false;
    memcpy(to->attrs, from->attrs, from->nattrs * sizeof *to->attrs);
    to->nattrs = from->nattrs;
    return true;
}

void sc_g_node_free_extras(cudaGraphNode_t n)
{
    sc_g_node_free_args(n);
    free(n->attrs);
    n->attrs = NULL;
    n->nattrs = 0;
}
