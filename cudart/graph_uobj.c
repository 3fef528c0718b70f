/*
 * graph_uobj.c - user objects (cudaUserObjectCreate, retain and release)
 * and the references graphs hold on them: a graph's references are cloned
 * with it and released when it is destroyed; the last release calls the
 * object's destructor.
 */
#include <stdlib.h>
#include <string.h>

#include "graph_int.h"

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
