/*
 * rt_stream_attr.c - stream attributes (cudaStreamSetAttribute and
 * friends): kept per model stream and read back; the priority is the
 * stream's own, so cudaStreamGetPriority sees what was set.
 */
#include <stdlib.h>
#include <string.h>

#include "abi_graph.h"
#include "rt_int.h"

typedef struct sc_x_sattr {
    uint32_t stream; /* model stream id */
    cudaLaunchAttributeID id;
    cudaLaunchAttributeValue v;
} sc_x_sattr;

struct sc_rt_sattrs {
    sc_x_sattr *sattrs;
    size_t nsattrs, sattrs_cap;
};

/* Lock held; NULL only when memory is short. */
static sc_rt_sattrs *sattrs_get(sc_rt_state *st)
{
    if (!st->sattrs)
        st->sattrs = calloc(1, sizeof *st->sattrs);
    return st->sattrs;
}

static bool stream_attr_valid(cudaLaunchAttributeID id)
{
    return id == cudaLaunchAttributeAccessPolicyWindow ||
           id == cudaLaunchAttributeSynchronizationPolicy || id == cudaLaunchAttributePriority ||
           id == cudaLaunchAttributeMemSyncDomainMap || id == cudaLaunchAttributeMemSyncDomain;
}

static sc_x_sattr *sattr_find(sc_rt_sattrs *x, uint32_t stream, cudaLaunchAttributeID id)
{
    for (size_t i = 0; x && i < x->nsattrs; i++)
        if (x->sattrs[i].stream == stream && x->sattrs[i].id == id)
            return &x->sattrs[i];
    return NULL;
}

static cudaError_t sattr_put(sc_rt_sattrs *x, uint32_t stream, cudaLaunchAttributeID id,
                             const cudaLaunchAttributeValue *v)
{
    sc_x_sattr *a = sattr_find(x, stream, id);
    if (!a) {
        if (!sc_rt_grow((void **)&x->sattrs, &x->sattrs_cap, x->nsattrs + 1, sizeof *x->sattrs))
            return cudaErrorMemoryAllocation;
        a = &x->sattrs[x->nsattrs++];
        a->stream = stream;
        a->id = id;
    }
    a->v = *v;
    return cudaSuccess;
}

static bool special_stream(cudaStream_t s)
{
    return s == NULL || s == cudaStreamLegacy || s == cudaStreamPerThread;
}

static cudaError_t stream_attr_get(sc_rt_call *c, cudaStream_t s, cudaLaunchAttributeID id,
                                   cudaLaunchAttributeValue *out, bool ptsz)
{
    if (!out || !stream_attr_valid(id))
        return cudaErrorInvalidValue;
    sc_rt_state *st = sc_rt_call_lock(c);
    const sc_x_sattr *a = sattr_find(st->sattrs, sc_rt_stream_id(st, s, ptsz), id);
    memset(out, 0, sizeof *out);
    if (a)
        *out = a->v;
    else if (id == cudaLaunchAttributePriority && !special_stream(s))
        out->priority = s->priority;
    return cudaSuccess;
}

static cudaError_t stream_attr_set(sc_rt_call *c, cudaStream_t s, cudaLaunchAttributeID id,
                                   const cudaLaunchAttributeValue *v, bool ptsz)
{
    if (!v || !stream_attr_valid(id))
        return cudaErrorInvalidValue;
    sc_rt_state *st = sc_rt_call_lock(c);
    sc_rt_sattrs *x = sattrs_get(st);
    cudaError_t e =
        x ? sattr_put(x, sc_rt_stream_id(st, s, ptsz), id, v) : cudaErrorMemoryAllocation;
    /* The priority is the stream's: cudaStreamGetPriority sees it too. */
    if (e == cudaSuccess && id == cudaLaunchAttributePriority && !special_stream(s))
        s->priority = v->priority;
    return e;
}

SC_RT_EXPORT cudaError_t cudaStreamGetAttribute(cudaStream_t hStream, cudaLaunchAttributeID attr,
                                                cudaLaunchAttributeValue *value_out)
{
    SC_RT_ENTER();
    SC_RT_RETURN(stream_attr_get(SC_RT_CALL, hStream, attr, value_out, false));
}

SC_RT_EXPORT cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t hStream,
                                                     cudaLaunchAttributeID attr,
                                                     cudaLaunchAttributeValue *value_out)
{
    SC_RT_ENTER();
    SC_RT_RETURN(stream_attr_get(SC_RT_CALL, hStream, attr, value_out, true));
}

SC_RT_EXPORT cudaError_t cudaStreamSetAttribute(cudaStream_t hStream, cudaLaunchAttributeID attr,
                                                const cudaLaunchAttributeValue *value)
{
    SC_RT_ENTER();
    SC_RT_RETURN(stream_attr_set(SC_RT_CALL, hStream, attr, value, false));
}

SC_RT_EXPORT cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t hStream,
                                                     cudaLaunchAttributeID attr,
                                                     const cudaLaunchAttributeValue *value)
{
    SC_RT_ENTER();
    SC_RT_RETURN(stream_attr_set(SC_RT_CALL, hStream, attr, value, true));
}

static cudaError_t stream_attr_copy(sc_rt_call *c, cudaStream_t dst, cudaStream_t src, bool ptsz)
{
    sc_rt_state *st = sc_rt_call_lock(c);
    sc_rt_sattrs *x = sattrs_get(st);
    cudaError_t e = x ? cudaSuccess : cudaErrorMemoryAllocation;
    uint32_t from = sc_rt_stream_id(st, src, ptsz), to = sc_rt_stream_id(st, dst, ptsz);
    /* Index loop: sattr_put may move the array. */
    size_t n = x ? x->nsattrs : 0;
    for (size_t i = 0; e == cudaSuccess && i < n; i++) {
        if (x->sattrs[i].stream != from)
            continue;
        sc_x_sattr a = x->sattrs[i];
        e = sattr_put(x, to, a.id, &a.v);
        if (e == cudaSuccess && a.id == cudaLaunchAttributePriority && !special_stream(dst))
            dst->priority = a.v.priority;
    }
    return e;
}

SC_RT_EXPORT cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src)
{
    SC_RT_ENTER();
    SC_RT_RETURN(stream_attr_copy(SC_RT_CALL, dst, src, false));
}

SC_RT_EXPORT cudaError_t cudaStreamCopyAttributes_ptsz(cudaStream_t dst, cudaStream_t src)
{
    SC_RT_ENTER();
    SC_RT_RETURN(stream_attr_copy(SC_RT_CALL, dst, src, true));
}
