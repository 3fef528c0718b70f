/*
 * rt_pitched.c - pitched (2-D and 3-D) copies and memsets and
 * cudaMalloc3D.  In a capture each is one memcpy or memset node, whose
 * graph node keeps the pitched layout for cudaGraphLaunch; outside one
 * they are done row by row.
 */
#include <stdint.h>
#include <string.h>

#include "abi_graph.h"
#include "rt_int.h"

static const char *pitched_at(const struct cudaPitchedPtr *p, const struct cudaPos *pos)
{
    return (const char *)p->ptr + (pos->z * p->ysize + pos->y) * p->pitch + pos->x;
}

/* CUDA's checks of a copy between pitched pointers (arrays flattened). */
static cudaError_t copy3d_checks(const struct cudaMemcpy3DParms *p)
{
    if (!p)
        return cudaErrorInvalidValue;
    if (p->srcArray || p->dstArray)
        return cudaErrorNotSupported;
    if ((unsigned)p->kind > cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    const struct cudaExtent *e = &p->extent;
    if (!e->width || !e->height || !e->depth)
        return cudaSuccess; /* nothing to copy */
    if (!p->srcPtr.ptr || !p->dstPtr.ptr)
        return cudaErrorInvalidValue;
    if (p->srcPtr.pitch < e->width + p->srcPos.x || p->dstPtr.pitch < e->width + p->dstPos.x)
        return cudaErrorInvalidPitchValue;
    if (e->depth > 1 &&
        (p->srcPtr.ysize < e->height + p->srcPos.y || p->dstPtr.ysize < e->height + p->dstPos.y))
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

static void copy3d_rows(const struct cudaMemcpy3DParms *p)
{
    const struct cudaExtent *e = &p->extent;
    for (size_t z = 0; z < e->depth; z++) {
        for (size_t y = 0; y < e->height; y++) {
            struct cudaPos sp = {p->srcPos.x, p->srcPos.y + y, p->srcPos.z + z};
            struct cudaPos dp = {p->dstPos.x, p->dstPos.y + y, p->dstPos.z + z};
            memmove((void *)(uintptr_t)pitched_at(&p->dstPtr, &dp), pitched_at(&p->srcPtr, &sp),
                    e->width);
        }
    }
}

/* The one memcpy node a pitched copy is in a capture: its total size, the
 * direction from where the first bytes live. */
static sc_rt_node_desc copy3d_desc(const struct cudaMemcpy3DParms *p)
{
    sc_rt_node_desc d = {0};
    d.type = cudaGraphNodeTypeMemcpy;
    d.dst = (void *)(uintptr_t)pitched_at(&p->dstPtr, &p->dstPos);
    d.src = pitched_at(&p->srcPtr, &p->srcPos);
    d.size = p->extent.width * p->extent.height * p->extent.depth;
    d.dst_span = sc_rt_pitched_span(p->dstPtr.pitch, p->dstPtr.ysize, p->extent.width,
                                    p->extent.height, p->extent.depth);
    d.src_span = sc_rt_pitched_span(p->srcPtr.pitch, p->srcPtr.ysize, p->extent.width,
                                    p->extent.height, p->extent.depth);
    d.kind = sc_rt_memcpy_kind(d.dst, d.src, p->kind);
    return d;
}

/* Synchronous calls are host calls first, as cudaMemcpy's (rt_mem.c). */
static cudaError_t host_sync(sc_rt_state *st, bool ptds, const char *call)
{
    if (ptds)
        return sc_rt_host(st, SC_CUDA_HOST_STREAM_SYNC, sc_rt_stream_id(st, NULL, true), 0, call);
    return sc_rt_host(st, SC_CUDA_HOST_LEGACY_SYNC, 0, 0, call);
}

/* Arrays become their memory first (rt_array.c). */
static cudaError_t flat(const struct cudaMemcpy3DParms **p, struct cudaMemcpy3DParms *q)
{
    if (!*p)
        return cudaErrorInvalidValue;
    *q = **p;
    *p = q;
    return sc_rt_copy3d_flatten(q);
}

static cudaError_t copy3d_sync(sc_rt_call *c, const struct cudaMemcpy3DParms *p, bool ptds,
                               const char *call)
{
    struct cudaMemcpy3DParms q;
    cudaError_t e = flat(&p, &q);
    if (e == cudaSuccess)
        e = copy3d_checks(p);
    if (e != cudaSuccess)
        return e;
    sc_rt_state *st = sc_rt_call_lock(c);
    e = host_sync(st, ptds, call);
    if (e == cudaSuccess)
        copy3d_rows(p);
    return e;
}

/* Stream work: a node when the stream captures (its graph node keeps the
 * pitched layout for cudaGraphLaunch); done row by row otherwise, so
 * the flat copy sc_rt_issue_id would perform is made a no-op. */
static cudaError_t copy3d_async(sc_rt_call *c, const struct cudaMemcpy3DParms *p, cudaStream_t s,
                                bool ptsz, const char *call)
{
    struct cudaMemcpy3DParms q;
    cudaError_t e = flat(&p, &q);
    if (e == cudaSuccess)
        e = copy3d_checks(p);
    if (e != cudaSuccess)
        return e;
    sc_rt_state *st = sc_rt_call_lock(c);
    uint32_t stream = sc_rt_stream_id(st, s, ptsz);
    sc_rt_node_desc d = copy3d_desc(p);
    bool captured = sc_rt_stream_capture(st, stream) != 0;
    if (!captured)
        d.src = d.dst;
    cudaGraphNode_t node = NULL;
    e = sc_rt_issue_id(st, stream, &d, call, &node);
    if (e == cudaSuccess && node) {
        struct cudaMemcpy3DParms q = *p;
        q.kind = d.kind;
        sc_rt_node_set_copy3d(node, &q);
    } else if (e == cudaSuccess && !captured) {
        copy3d_rows(p);
    }
    return e;
}

cudaError_t sc_rt_copy3d(sc_rt_call *c, const struct cudaMemcpy3DParms *p, bool async,
                         cudaStream_t s, bool per_thread, const char *call)
{
    return async ? copy3d_async(c, p, s, per_thread, call) : copy3d_sync(c, p, per_thread, call);
}

static struct cudaMemcpy3DParms copy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                                       size_t width, size_t height, enum cudaMemcpyKind kind)
{
    struct cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = (struct cudaPitchedPtr){(void *)(uintptr_t)src, spitch, width, height};
    p.dstPtr = (struct cudaPitchedPtr){dst, dpitch, width, height};
    p.extent = (struct cudaExtent){width, height, 1};
    p.kind = kind;
    return p;
}

SC_RT_EXPORT cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                      size_t width, size_t height, enum cudaMemcpyKind kind)
{
    SC_RT_ENTER();
    struct cudaMemcpy3DParms p = copy2d(dst, dpitch, src, spitch, width, height, kind);
    SC_RT_RETURN(copy3d_sync(SC_RT_CALL, &p, false, "cudaMemcpy2D"));
}

SC_RT_EXPORT cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch,
                                           size_t width, size_t height, enum cudaMemcpyKind kind)
{
    SC_RT_ENTER();
    struct cudaMemcpy3DParms p = copy2d(dst, dpitch, src, spitch, width, height, kind);
    SC_RT_RETURN(copy3d_sync(SC_RT_CALL, &p, true, "cudaMemcpy2D"));
}

SC_RT_EXPORT cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                           size_t width, size_t height, enum cudaMemcpyKind kind,
                                           cudaStream_t stream)
{
    SC_RT_ENTER();
    struct cudaMemcpy3DParms p = copy2d(dst, dpitch, src, spitch, width, height, kind);
    SC_RT_RETURN(copy3d_async(SC_RT_CALL, &p, stream, false, "cudaMemcpy2DAsync"));
}

SC_RT_EXPORT cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src,
                                                size_t spitch, size_t width, size_t height,
                                                enum cudaMemcpyKind kind, cudaStream_t stream)
{
    SC_RT_ENTER();
    struct cudaMemcpy3DParms p = copy2d(dst, dpitch, src, spitch, width, height, kind);
    SC_RT_RETURN(copy3d_async(SC_RT_CALL, &p, stream, true, "cudaMemcpy2DAsync"));
}

SC_RT_EXPORT cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
{
    SC_RT_ENTER();
    SC_RT_RETURN(copy3d_sync(SC_RT_CALL, p, false, "cudaMemcpy3D"));
}

SC_RT_EXPORT cudaError_t cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *p)
{
    SC_RT_ENTER();
    SC_RT_RETURN(copy3d_sync(SC_RT_CALL, p, true, "cudaMemcpy3D"));
}

SC_RT_EXPORT cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(copy3d_async(SC_RT_CALL, p, stream, false, "cudaMemcpy3DAsync"));
}

SC_RT_EXPORT cudaError_t cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *p,
                                                cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(copy3d_async(SC_RT_CALL, p, stream, true, "cudaMemcpy3DAsync"));
}

/* A pitched memset: rows of `width` bytes `pitch` apart (slices of a 3-D
 * one are rows too when they lie back to back, as cudaMalloc3D's do). */
static cudaError_t set2d_checks(const void *p, size_t pitch, size_t width, size_t rows)
{
    if (!width || !rows)
        return cudaSuccess;
    if (!p)
        return cudaErrorInvalidValue;
    if (rows > 1 && pitch < width)
        return cudaErrorInvalidPitchValue;
    return cudaSuccess;
}

static sc_rt_node_desc set2d_desc(void *p, size_t pitch, int value, size_t width, size_t rows)
{
    sc_rt_node_desc d = {0};
    d.type = cudaGraphNodeTypeMemset;
    d.dst = p;
    d.value = (unsigned char)value;
    d.element_size = 1;
    d.width = width;
    d.height = rows;
    d.pitch = rows > 1 ? pitch : width;
    d.size = width * rows;
    return d;
}

static cudaError_t set2d(sc_rt_call *c, void *p, size_t pitch, int value, size_t width, size_t rows,
                         bool sync, cudaStream_t s, bool pt, const char *call)
{
    cudaError_t e = set2d_checks(p, pitch, width, rows);
    if (e != cudaSuccess)
        return e;
    sc_rt_state *st = sc_rt_call_lock(c);
    sc_rt_node_desc d = set2d_desc(p, pitch, value, width, rows);
    if (sync) {
        e = host_sync(st, pt, call);
        if (e == cudaSuccess && d.size)
            sc_rt_perform(&d);
    } else {
        e = sc_rt_issue_id(st, sc_rt_stream_id(st, s, pt), &d, call, NULL);
    }
    return e;
}

SC_RT_EXPORT cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width,
                                      size_t height)
{
    SC_RT_ENTER();
    SC_RT_RETURN(
        set2d(SC_RT_CALL, devPtr, pitch, value, width, height, true, NULL, false, "cudaMemset2D"));
}

SC_RT_EXPORT cudaError_t cudaMemset2D_ptds(void *devPtr, size_t pitch, int value, size_t width,
                                           size_t height)
{
    SC_RT_ENTER();
    SC_RT_RETURN(
        set2d(SC_RT_CALL, devPtr, pitch, value, width, height, true, NULL, true, "cudaMemset2D"));
}

SC_RT_EXPORT cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                                           size_t height, cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(set2d(SC_RT_CALL, devPtr, pitch, value, width, height, false, stream, false,
                       "cudaMemset2DAsync"));
}

SC_RT_EXPORT cudaError_t cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch, int value, size_t width,
                                                size_t height, cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(set2d(SC_RT_CALL, devPtr, pitch, value, width, height, false, stream, true,
                       "cudaMemset2DAsync"));
}

static cudaError_t set3d(sc_rt_call *c, struct cudaPitchedPtr p, int value, struct cudaExtent e,
                         bool sync, cudaStream_t s, bool pt, const char *call)
{
    if (e.depth > 1 && p.ysize != e.height)
        return cudaErrorInvalidValue;
    return set2d(c, p.ptr, p.pitch, value, e.width, e.height * e.depth, sync, s, pt, call);
}

SC_RT_EXPORT cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value,
                                      struct cudaExtent extent)
{
    SC_RT_ENTER();
    SC_RT_RETURN(
        set3d(SC_RT_CALL, pitchedDevPtr, value, extent, true, NULL, false, "cudaMemset3D"));
}

SC_RT_EXPORT cudaError_t cudaMemset3D_ptds(struct cudaPitchedPtr pitchedDevPtr, int value,
                                           struct cudaExtent extent)
{
    SC_RT_ENTER();
    SC_RT_RETURN(set3d(SC_RT_CALL, pitchedDevPtr, value, extent, true, NULL, true, "cudaMemset3D"));
}

SC_RT_EXPORT cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value,
                                           struct cudaExtent extent, cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(
        set3d(SC_RT_CALL, pitchedDevPtr, value, extent, false, stream, false, "cudaMemset3DAsync"));
}

SC_RT_EXPORT cudaError_t cudaMemset3DAsync_ptsz(struct cudaPitchedPtr pitchedDevPtr, int value,
                                                struct cudaExtent extent, cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(
        set3d(SC_RT_CALL, pitchedDevPtr, value, extent, false, stream, true, "cudaMemset3DAsync"));
}

/* An allocating call like cudaMallocPitch: unsafe during capture. */
SC_RT_EXPORT cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr,
                                      struct cudaExtent extent)
{
    SC_RT_ENTER();
    if (!pitchedDevPtr)
        SC_RT_RETURN(cudaErrorInvalidValue);
    size_t pitch = (extent.width + 511) / 512 * 512;
    size_t rows = extent.height * extent.depth;
    if (rows && pitch > SIZE_MAX / rows)
        SC_RT_RETURN(cudaErrorMemoryAllocation);
    sc_rt_state *st = SC_RT_LOCK();
    cudaError_t e = sc_rt_host(st, SC_CUDA_HOST_UNSAFE, 0, 0, "cudaMalloc3D");
    if (e == cudaSuccess) {
        void *p = sc_rt_alloc_device(st, pitch * rows);
        if (!p)
            e = cudaErrorMemoryAllocation;
        else
            *pitchedDevPtr = (struct cudaPitchedPtr){p, pitch, extent.width, extent.height};
    }
    SC_RT_RETURN(e);
}
