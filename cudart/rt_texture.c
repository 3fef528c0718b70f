/*
 * rt_texture.c - texture and surface objects: created with CUDA's checks
 * of their descriptions, queried, destroyed.  Kernels do not run, so
 * nothing is ever sampled; an object is its descriptions and an id.
 */
#include <string.h>

#include "abi_array.h"
#include "rt_int.h"

struct sc_rt_texobj {
    unsigned long long id;
    bool surface, has_view;
    struct cudaResourceDesc res;
    struct cudaTextureDesc tex;
    struct cudaResourceViewDesc view;
};

static cudaError_t linear_ok(const struct cudaResourceDesc *r)
{
    size_t elem;
    if (r->resType == cudaResourceTypeLinear)
        return r->res.linear.devPtr && r->res.linear.sizeInBytes &&
                       sc_rt_channel_ok(&r->res.linear.desc, &elem)
                   ? cudaSuccess
                   : cudaErrorInvalidValue;
    if (!r->res.pitch2D.devPtr || !r->res.pitch2D.width || !r->res.pitch2D.height ||
        !sc_rt_channel_ok(&r->res.pitch2D.desc, &elem))
        return cudaErrorInvalidValue;
    return r->res.pitch2D.pitchInBytes >= r->res.pitch2D.width * elem ? cudaSuccess
                                                                      : cudaErrorInvalidPitchValue;
}

static cudaError_t resource_ok(const struct cudaResourceDesc *r)
{
    if (!r || r->flags != 0)
        return cudaErrorInvalidValue;
    switch (r->resType) {
    case cudaResourceTypeArray:
        return sc_rt_array_valid(r->res.array.array) ? cudaSuccess : cudaErrorInvalidResourceHandle;
    case cudaResourceTypeMipmappedArray:
        return sc_rt_mipmap_valid(r->res.mipmap.mipmap) ? cudaSuccess
                                                        : cudaErrorInvalidResourceHandle;
    case cudaResourceTypeLinear:
    case cudaResourceTypePitch2D:
        return linear_ok(r);
    default:
        return cudaErrorInvalidValue;
    }
}

static cudaError_t texture_ok(const struct cudaTextureDesc *t)
{
    if (!t)
        return cudaErrorInvalidValue;
    for (int i = 0; i < 3; i++)
        if ((unsigned)t->addressMode[i] > cudaAddressModeBorder)
            return cudaErrorInvalidValue;
    if ((unsigned)t->filterMode > cudaFilterModeLinear ||
        (unsigned)t->mipmapFilterMode > cudaFilterModeLinear ||
        (unsigned)t->readMode > cudaReadModeNormalizedFloat)
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

static struct sc_rt_texobj *find(sc_rt_state *st, unsigned long long id, bool surface)
{
    for (size_t i = 0; id != 0 && i < st->ntexobjs; i++)
        if (st->texobjs[i].id == id && st->texobjs[i].surface == surface)
            return &st->texobjs[i];
    return NULL;
}

static cudaError_t add(sc_rt_state *st, const struct sc_rt_texobj *o, unsigned long long *out)
{
    if (!sc_rt_grow((void **)&st->texobjs, &st->texobjs_cap, st->ntexobjs + 1, sizeof *st->texobjs))
        return cudaErrorMemoryAllocation;
    struct sc_rt_texobj *n = &st->texobjs[st->ntexobjs++];
    *n = *o;
    n->id = ++st->next_texobj;
    *out = n->id;
    return cudaSuccess;
}

static cudaError_t drop(unsigned long long id, bool surface)
{
    sc_rt_state *st = sc_rt_state_get();
    struct sc_rt_texobj *o = find(st, id, surface);
    if (!o)
        return cudaErrorInvalidValue;
    *o = st->texobjs[--st->ntexobjs];
    return cudaSuccess;
}

SC_RT_EXPORT cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject,
                                                 const struct cudaResourceDesc *pResDesc,
                                                 const struct cudaTextureDesc *pTexDesc,
                                                 const struct cudaResourceViewDesc *pResViewDesc)
{
    SC_RT_ENTER();
    sc_rt_state *st = SC_RT_LOCK();
    if (!pTexObject)
        SC_RT_RETURN(cudaErrorInvalidValue);
    cudaError_t err = resource_ok(pResDesc);
    if (err == cudaSuccess)
        err = texture_ok(pTexDesc);
    /* A view is of an array's elements, not of linear memory. */
    if (err == cudaSuccess && pResViewDesc && pResDesc->resType != cudaResourceTypeArray &&
        pResDesc->resType != cudaResourceTypeMipmappedArray)
        err = cudaErrorInvalidValue;
    if (err != cudaSuccess)
        SC_RT_RETURN(err);
    struct sc_rt_texobj o;
    memset(&o, 0, sizeof o);
    o.res = *pResDesc;
    o.tex = *pTexDesc;
    o.has_view = pResViewDesc != NULL;
    if (pResViewDesc)
        o.view = *pResViewDesc;
    SC_RT_RETURN(add(st, &o, pTexObject));
}

SC_RT_EXPORT cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject)
{
    SC_RT_ENTER();
    SC_RT_LOCK();
    SC_RT_RETURN(drop(texObject, false));
}

SC_RT_EXPORT cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc,
                                                          cudaTextureObject_t texObject)
{
    SC_RT_ENTER();
    const struct sc_rt_texobj *o = find(SC_RT_LOCK(), texObject, false);
    if (!o || !pResDesc)
        SC_RT_RETURN(cudaErrorInvalidValue);
    *pResDesc = o->res;
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc,
                                                         cudaTextureObject_t texObject)
{
    SC_RT_ENTER();
    const struct sc_rt_texobj *o = find(SC_RT_LOCK(), texObject, false);
    if (!o || !pTexDesc)
        SC_RT_RETURN(cudaErrorInvalidValue);
    *pTexDesc = o->tex;
    SC_RT_RETURN(cudaSuccess);
}

/* An object made without a view has none to give. */
SC_RT_EXPORT cudaError_t cudaGetTextureObjectResourceViewDesc(
    struct cudaResourceViewDesc *pResViewDesc, cudaTextureObject_t texObject)
{
    SC_RT_ENTER();
    const struct sc_rt_texobj *o = find(SC_RT_LOCK(), texObject, false);
    if (!o || !pResViewDesc || !o->has_view)
        SC_RT_RETURN(cudaErrorInvalidValue);
    *pResViewDesc = o->view;
    SC_RT_RETURN(cudaSuccess);
}

/* A surface is an array made with cudaArraySurfaceLoadStore. */
SC_RT_EXPORT cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject,
                                                 const struct cudaResourceDesc *pResDesc)
{
    SC_RT_ENTER();
    sc_rt_state *st = SC_RT_LOCK();
    if (!pSurfObject || !pResDesc || pResDesc->resType != cudaResourceTypeArray)
        SC_RT_RETURN(cudaErrorInvalidValue);
    cudaError_t err = resource_ok(pResDesc);
    if (err == cudaSuccess &&
        !(sc_rt_array_flags(pResDesc->res.array.array) & cudaArraySurfaceLoadStore))
        err = cudaErrorInvalidValue;
    if (err != cudaSuccess)
        SC_RT_RETURN(err);
    struct sc_rt_texobj o;
    memset(&o, 0, sizeof o);
    o.surface = true;
    o.res = *pResDesc;
    SC_RT_RETURN(add(st, &o, pSurfObject));
}

SC_RT_EXPORT cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject)
{
    SC_RT_ENTER();
    SC_RT_LOCK();
    SC_RT_RETURN(drop(surfObject, true));
}

SC_RT_EXPORT cudaError_t cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc *pResDesc,
                                                          cudaSurfaceObject_t surfObject)
{
    SC_RT_ENTER();
    const struct sc_rt_texobj *o = find(SC_RT_LOCK(), surfObject, true);
    if (!o || !pResDesc)
        SC_RT_RETURN(cudaErrorInvalidValue);
    *pResDesc = o->res;
    SC_RT_RETURN(cudaSuccess);
}
