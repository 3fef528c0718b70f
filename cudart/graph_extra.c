/*
 * graph_extra.c - what programs change on graphs and executable graphs
 * after building them: the cudaGraphExec*SetParams family (the exec's own
 * copy changes, the program's graph does not), the generic and event
 * setters, node removal, enabling, kernel node attributes and user
 * objects.
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
    if (d->type == cudaGraphNodeTypeGraph)
        return cudaErrorInvalidValue; /* child graphs go through child_set */
    n->d = *d;
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
    if (d->type == cudaGraphNodeTypeKernel) {
        n->kernel_params = x->kernel_params;
        n->extra = x->extra;
    }
    return cudaSuccess;
}

static cudaError_t memcpy1d_desc(sc_rt_node_desc *d, void *dst, const void *src, size_t count,
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
    cudaError_t err = memcpy1d_desc(&d, dst, src, count, kind);
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
        err = memcpy1d_desc(&d, dst, src, count, kind);
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
    free(n);
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

/* -------------------------------------------- kernel node attributes */

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
    free(n->attrs);
    n->attrs = NULL;
    n->nattrs = 0;
}

/* ------------------------------------------------------- user objects */

#define SC_G_UOBJ_MAGIC 0x53435530u /* "SCU0" */

struct CUuserObject_st {
    uint32_t magic;
    uint64_t refs;
    void *ptr;
    cudaHostFn_t destroy;
};

static bool uobj_valid(cudaUserObject_t o)
{
    return o != NULL && o->magic == SC_G_UOBJ_MAGIC;
}

/* The last reference runs the destructor; CUDA runs it on a thread of its
 * own, which a program may not rely on, so it runs here, unlocked. */
static void uobj_release(cudaUserObject_t o, unsigned int count)
{
    o->refs = o->refs > count ? o->refs - count : 0;
    if (o->refs > 0)
        return;
    o->magic = 0;
    cudaHostFn_t fn = o->destroy;
    void *ptr = o->ptr;
    free(o);
    sc_rt_unlock();
    fn(ptr);
    sc_rt_lock();
}

static cudaError_t uobj_create(cudaUserObject_t *out, void *ptr, cudaHostFn_t destroy,
                               unsigned int refs, unsigned int flags)
{
    if (out == NULL || destroy == NULL || refs == 0 || flags != cudaUserObjectNoDestructorSync)
        return cudaErrorInvalidValue;
    cudaUserObject_t o = calloc(1, sizeof *o);
    if (o == NULL)
        return cudaErrorMemoryAllocation;
    o->magic = SC_G_UOBJ_MAGIC;
    o->refs = refs;
    o->ptr = ptr;
    o->destroy = destroy;
    *out = o;
    return cudaSuccess;
}

cudaError_t cudaUserObjectCreate(cudaUserObject_t *object_out, void *ptr, cudaHostFn_t destroy,
                                 unsigned int initialRefcount, unsigned int flags)
{
    SC_G_LOCKED(uobj_create(object_out, ptr, destroy, initialRefcount, flags));
}

static cudaError_t uobj_retain(cudaUserObject_t o, unsigned int count)
{
    if (!uobj_valid(o) || count == 0)
        return cudaErrorInvalidValue;
    o->refs += count;
    return cudaSuccess;
}

cudaError_t cudaUserObjectRetain(cudaUserObject_t object, unsigned int count)
{
    SC_G_LOCKED(uobj_retain(object, count));
}

static cudaError_t uobj_release_checked(cudaUserObject_t o, unsigned int count)
{
    if (!uobj_valid(o) || count == 0 || count > o->refs)
        return cudaErrorInvalidValue;
    uobj_release(o, count);
    return cudaSuccess;
}

cudaError_t cudaUserObjectRelease(cudaUserObject_t object, unsigned int count)
{
    SC_G_LOCKED(uobj_release_checked(object, count));
}

static sc_g_uref *uref_find(cudaGraph_t g, cudaUserObject_t o)
{
    for (size_t i = 0; i < g->nurefs; i++)
        if (g->urefs[i].obj == o)
            return &g->urefs[i];
    return NULL;
}

static bool uref_add(cudaGraph_t g, cudaUserObject_t o, unsigned int count)
{
    sc_g_uref *r = uref_find(g, o);
    if (r == NULL) {
        sc_g_uref *grown = realloc(g->urefs, (g->nurefs + 1) * sizeof *grown);
        if (grown == NULL)
            return false;
        g->urefs = grown;
        r = &g->urefs[g->nurefs++];
        r->obj = o;
        r->count = 0;
    }
    r->count += count;
    return true;
}

static cudaError_t graph_retain(cudaGraph_t g, cudaUserObject_t o, unsigned int count,
                                unsigned int flags)
{
    if (!sc_g_valid(g) || !uobj_valid(o) || count == 0 || (flags & ~cudaGraphUserObjectMove))
        return cudaErrorInvalidValue;
    if (!uref_add(g, o, count))
        return cudaErrorMemoryAllocation;
    /* Move: the caller's references become the graph's. */
    if (!(flags & cudaGraphUserObjectMove))
        o->refs += count;
    return cudaSuccess;
}

cudaError_t cudaGraphRetainUserObject(cudaGraph_t graph, cudaUserObject_t object,
                                      unsigned int count, unsigned int flags)
{
    SC_G_LOCKED(graph_retain(graph, object, count, flags));
}

static cudaError_t graph_release(cudaGraph_t g, cudaUserObject_t o, unsigned int count)
{
    if (!sc_g_valid(g) || !uobj_valid(o) || count == 0)
        return cudaErrorInvalidValue;
    sc_g_uref *r = uref_find(g, o);
    if (r == NULL || r->count < count)
        return cudaErrorInvalidValue;
    r->count -= count;
    if (r->count == 0)
        *r = g->urefs[--g->nurefs];
    uobj_release(o, count);
    return cudaSuccess;
}

cudaError_t cudaGraphReleaseUserObject(cudaGraph_t graph, cudaUserObject_t object,
                                       unsigned int count)
{
    SC_G_LOCKED(graph_release(graph, object, count));
}

bool sc_g_urefs_clone(cudaGraph_t to, cudaGraph_t from)
{
    for (size_t i = 0; i < from->nurefs; i++) {
        if (!uref_add(to, from->urefs[i].obj, from->urefs[i].count))
            return false;
        from->urefs[i].obj->refs += from->urefs[i].count;
    }
    return true;
}

void sc_g_urefs_release(cudaGraph_t g)
{
    sc_g_uref *r = g->urefs;
    size_t n = g->nurefs;
    g->urefs = NULL;
    g->nurefs = 0;
    for (size_t i = 0; i < n; i++)
        uobj_release(r[i].obj, r[i].count);
    free(r);
}
