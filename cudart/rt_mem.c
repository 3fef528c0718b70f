/*
 * rt_mem.c - device memory as host memory: the allocation table, the
 * allocation calls (unsafe host calls during capture, §4.8), copies and
 * memsets (stream work, performed outside capture), pointer attributes.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_int.h"

/* Device allocations are aligned the way cudaMalloc's are. */
#define SC_RT_ALIGN 256

/* Index of the last entry whose base is <= p, or -1. */
static ptrdiff_t alloc_floor(const sc_rt_state *st, uintptr_t p)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t)st->nallocs - 1, best = -1;
    while (lo <= hi) {
        ptrdiff_t mid = lo + (hi - lo) / 2;
        if (st->allocs[mid].base <= p) {
            best = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return best;
}

const sc_rt_alloc *sc_rt_alloc_find(const sc_rt_state *st, const void *p)
{
    uintptr_t a = (uintptr_t)p;
    ptrdiff_t i = alloc_floor(st, a);
    if (i < 0)
        return NULL;
    const sc_rt_alloc *e = &st->allocs[i];
    size_t span = e->size ? e->size : 1;
    return a - e->base < span ? e : NULL;
}

cudaError_t sc_rt_alloc_add(sc_rt_state *st, void *p, size_t size, sc_rt_mem_kind kind,
                            unsigned int flags, bool owned)
{
    if (st->nallocs == st->allocs_cap) {
        size_t cap = st->allocs_cap ? st->allocs_cap * 2 : 64;
        sc_rt_alloc *a = realloc(st->allocs, cap * sizeof *a);
        if (!a)
            return cudaErrorMemoryAllocation;
        st->allocs = a;
        st->allocs_cap = cap;
    }
    size_t at = (size_t)(alloc_floor(st, (uintptr_t)p) + 1);
    memmove(&st->allocs[at + 1], &st->allocs[at], (st->nallocs - at) * sizeof *st->allocs);
    st->allocs[at] = (sc_rt_alloc){(uintptr_t)p, size, kind, flags, owned};
    st->nallocs++;
    if (kind == SC_RT_MEM_DEVICE || kind == SC_RT_MEM_MANAGED)
        st->device_bytes += size;
    return cudaSuccess;
}

static void alloc_remove(sc_rt_state *st, size_t i)
{
    sc_rt_alloc *e = &st->allocs[i];
    if (e->kind == SC_RT_MEM_DEVICE || e->kind == SC_RT_MEM_MANAGED)
        st->device_bytes -= e->size;
    if (e->owned)
        free((void *)e->base);
    memmove(e, e + 1, (st->nallocs - i - 1) * sizeof *e);
    st->nallocs--;
}

/* The entry that starts exactly at p, or -1. */
static ptrdiff_t alloc_exact(const sc_rt_state *st, const void *p)
{
    ptrdiff_t i = alloc_floor(st, (uintptr_t)p);
    return i >= 0 && st->allocs[i].base == (uintptr_t)p ? i : -1;
}

void sc_rt_alloc_drop(sc_rt_state *st, const void *p)
{
    ptrdiff_t i = alloc_exact(st, p);
    if (i >= 0)
        alloc_remove(st, (size_t)i);
}

static void *host_block(size_t size)
{
    size_t rounded = (size + SC_RT_ALIGN - 1) / SC_RT_ALIGN * SC_RT_ALIGN;
    return aligned_alloc(SC_RT_ALIGN, rounded ? rounded : SC_RT_ALIGN);
}

void *sc_rt_alloc_device(sc_rt_state *st, size_t size)
{
    void *p = host_block(size);
    if (p && sc_rt_alloc_add(st, p, size, SC_RT_MEM_DEVICE, 0, true) != cudaSuccess) {
        free(p);
        p = NULL;
    }
    return p;
}

/* An allocating call: the model decides first (900 in a global capture,
 * and nothing is allocated), then the memory is handed out. */
static cudaError_t mem_alloc(sc_rt_call *c, void **out, size_t size, sc_rt_mem_kind kind,
                             unsigned int flags, const char *call)
{
    if (!out)
        return cudaErrorInvalidValue;
    sc_rt_state *st = sc_rt_call_lock(c);
    cudaError_t e = sc_rt_host(st, SC_CUDA_HOST_UNSAFE, 0, 0, call);
    if (e == cudaSuccess) {
        void *p = host_block(size);
        if (!p || sc_rt_alloc_add(st, p, size, kind, flags, true) != cudaSuccess) {
            free(p);
            e = cudaErrorMemoryAllocation;
        } else {
            *out = p;
        }
    }
    sc_rt_call_unlock(c);
    return e;
}

/* A freeing call: unsafe during capture too; a pointer of another kind or
 * none is an error and frees nothing. */
static cudaError_t mem_free(sc_rt_call *c, void *p, bool host, const char *call)
{
    sc_rt_state *st = sc_rt_call_lock(c);
    cudaError_t e = sc_rt_host(st, SC_CUDA_HOST_UNSAFE, 0, 0, call);
    if (e == cudaSuccess && p) {
        ptrdiff_t i = alloc_exact(st, p);
        bool pinned = i >= 0 && st->allocs[i].kind == SC_RT_MEM_PINNED;
        if (i < 0 && !host && sc_rt_graph_mem_free(p, SC_RT_ANY_STREAM)) {
            /* a graph allocation its graph left live: the graph pool's */
        } else if (i < 0 || !st->allocs[i].owned || pinned != host) {
            e = host ? cudaErrorInvalidHostPointer : cudaErrorInvalidDevicePointer;
        } else {
            sc_rt_pool_note_free(st, p); /* cudaFree of a cudaMallocAsync block */
            if (!host)                   /* one a captured cudaMallocAsync made, launched */
                (void)sc_rt_graph_mem_free(p, SC_RT_ANY_STREAM);
            alloc_remove(st, (size_t)i);
        }
    }
    return e;
}

SC_RT_EXPORT cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    SC_RT_ENTER();
    SC_RT_RETURN(mem_alloc(SC_RT_CALL, devPtr, size, SC_RT_MEM_DEVICE, 0, "cudaMalloc"));
}

SC_RT_EXPORT cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    SC_RT_ENTER();
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)
        SC_RT_RETURN(cudaErrorInvalidValue);
    SC_RT_RETURN(
        mem_alloc(SC_RT_CALL, devPtr, size, SC_RT_MEM_MANAGED, flags, "cudaMallocManaged"));
}

SC_RT_EXPORT cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    SC_RT_ENTER();
    SC_RT_RETURN(mem_alloc(SC_RT_CALL, ptr, size, SC_RT_MEM_PINNED, 0, "cudaMallocHost"));
}

SC_RT_EXPORT cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    SC_RT_ENTER();
    if (flags &
        ~(unsigned int)(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined))
        SC_RT_RETURN(cudaErrorInvalidValue);
    SC_RT_RETURN(mem_alloc(SC_RT_CALL, pHost, size, SC_RT_MEM_PINNED, flags, "cudaHostAlloc"));
}

SC_RT_EXPORT cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    SC_RT_ENTER();
    if (!pitch)
        SC_RT_RETURN(cudaErrorInvalidValue);
    size_t p = (width + 511) / 512 * 512;
    cudaError_t e =
        mem_alloc(SC_RT_CALL, devPtr, p * height, SC_RT_MEM_DEVICE, 0, "cudaMallocPitch");
    if (e == cudaSuccess)
        *pitch = p;
    SC_RT_RETURN(e);
}

SC_RT_EXPORT cudaError_t cudaFree(void *devPtr)
{
    SC_RT_ENTER();
    SC_RT_RETURN(mem_free(SC_RT_CALL, devPtr, false, "cudaFree"));
}

SC_RT_EXPORT cudaError_t cudaFreeHost(void *ptr)
{
    SC_RT_ENTER();
    SC_RT_RETURN(mem_free(SC_RT_CALL, ptr, true, "cudaFreeHost"));
}

SC_RT_EXPORT cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    SC_RT_ENTER();
    if (!ptr || !size)
        SC_RT_RETURN(cudaErrorInvalidValue);
    sc_rt_state *st = SC_RT_LOCK();
    cudaError_t e = sc_rt_host(st, SC_CUDA_HOST_UNSAFE, 0, 0, "cudaHostRegister");
    if (e == cudaSuccess) {
        if (sc_rt_alloc_find(st, ptr))
            e = cudaErrorHostMemoryAlreadyRegistered;
        else if (sc_rt_alloc_add(st, ptr, size, SC_RT_MEM_REGISTERED, flags, false))
            e = cudaErrorMemoryAllocation;
    }
    SC_RT_RETURN(e);
}

SC_RT_EXPORT cudaError_t cudaHostUnregister(void *ptr)
{
    SC_RT_ENTER();
    sc_rt_state *st = SC_RT_LOCK();
    cudaError_t e = sc_rt_host(st, SC_CUDA_HOST_UNSAFE, 0, 0, "cudaHostUnregister");
    if (e == cudaSuccess) {
        ptrdiff_t i = alloc_exact(st, ptr);
        if (i < 0 || st->allocs[i].kind != SC_RT_MEM_REGISTERED)
            e = cudaErrorHostMemoryNotRegistered;
        else
            alloc_remove(st, (size_t)i);
    }
    SC_RT_RETURN(e);
}

SC_RT_EXPORT cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    SC_RT_ENTER();
    if (!pDevice || flags != 0)
        SC_RT_RETURN(cudaErrorInvalidValue);
    sc_rt_state *st = SC_RT_LOCK();
    const sc_rt_alloc *a = sc_rt_alloc_find(st, pHost);
    bool host = a && (a->kind == SC_RT_MEM_PINNED || a->kind == SC_RT_MEM_REGISTERED);
    SC_RT_UNLOCK();
    if (!host)
        SC_RT_RETURN(cudaErrorInvalidValue);
    *pDevice = pHost; /* unified addressing: the same address */
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost)
{
    SC_RT_ENTER();
    if (!pFlags)
        SC_RT_RETURN(cudaErrorInvalidValue);
    sc_rt_state *st = SC_RT_LOCK();
    const sc_rt_alloc *a = sc_rt_alloc_find(st, pHost);
    bool host = a && (a->kind == SC_RT_MEM_PINNED || a->kind == SC_RT_MEM_REGISTERED);
    if (host)
        *pFlags = a->flags;
    SC_RT_RETURN(host ? cudaSuccess : cudaErrorInvalidValue);
}

SC_RT_EXPORT cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
                                                  const void *ptr)
{
    SC_RT_ENTER();
    if (!attributes)
        SC_RT_RETURN(cudaErrorInvalidValue);
    sc_rt_state *st = SC_RT_LOCK();
    const sc_rt_alloc *a = sc_rt_alloc_find(st, ptr);
    memset(attributes, 0, sizeof *attributes);
    void *p = (void *)(uintptr_t)ptr;
    if (!a) {
        attributes->type = cudaMemoryTypeUnregistered;
        attributes->device = cudaInvalidDeviceId;
    } else if (a->kind == SC_RT_MEM_DEVICE) {
        attributes->type = cudaMemoryTypeDevice;
        attributes->devicePointer = p;
    } else if (a->kind == SC_RT_MEM_MANAGED) {
        attributes->type = cudaMemoryTypeManaged;
        attributes->devicePointer = p;
        attributes->hostPointer = p;
    } else {
        attributes->type = cudaMemoryTypeHost;
        attributes->devicePointer = p;
        attributes->hostPointer = p;
    }
    SC_RT_RETURN(cudaSuccess);
}

static bool on_device(const sc_rt_state *st, const void *p)
{
    const sc_rt_alloc *a = sc_rt_alloc_find(st, p);
    return a && (a->kind == SC_RT_MEM_DEVICE || a->kind == SC_RT_MEM_MANAGED);
}

enum cudaMemcpyKind sc_rt_memcpy_kind(void *dst, const void *src, enum cudaMemcpyKind kind)
{
    if (kind != cudaMemcpyDefault)
        return kind;
    sc_rt_state *st = sc_rt_state_get();
    bool d = on_device(st, dst), s = on_device(st, src);
    if (s)
        return d ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost;
    return d ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost;
}

void sc_rt_perform(const sc_rt_node_desc *d)
{
    if (d->type == cudaGraphNodeTypeMemcpy) {
        if (d->size && d->dst != d->src)
            memmove(d->dst, d->src, d->size);
    } else if (d->type == cudaGraphNodeTypeMemset) {
        size_t pitch = d->pitch ? d->pitch : d->width * d->element_size;
        for (size_t row = 0; row < (d->height ? d->height : 1); row++) {
            unsigned char *p = (unsigned char *)d->dst + row * pitch;
            for (size_t i = 0; i < d->width; i++) {
                if (d->element_size == 1)
                    p[i] = (unsigned char)d->value;
                else if (d->element_size == 2)
                    memcpy(p + 2 * i, &(uint16_t){(uint16_t)d->value}, 2);
                else
                    memcpy(p + 4 * i, &(uint32_t){d->value}, 4);
            }
        }
    }
}

static cudaError_t copy_checks(void *dst, const void *src, enum cudaMemcpyKind kind)
{
    if ((unsigned)kind > cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    if (!dst || !src)
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

static sc_rt_node_desc copy_desc(void *dst, const void *src, size_t count, enum cudaMemcpyKind k)
{
    sc_rt_node_desc d = {0};
    d.type = cudaGraphNodeTypeMemcpy;
    d.dst = dst;
    d.src = src;
    d.size = count;
    d.kind = sc_rt_memcpy_kind(dst, src, k);
    return d;
}

/* Synchronous copies are host calls on the legacy stream (legacy_sync, or
 * a stream sync on the per-thread stream for the _ptds flavour), then done. */
cudaError_t sc_rt_copy_sync(sc_rt_call *c, void *dst, const void *src, size_t count,
                            enum cudaMemcpyKind kind, bool ptds, const char *call)
{
    cudaError_t e = copy_checks(dst, src, kind);
    if (e != cudaSuccess && count)
        return e;
    sc_rt_state *st = sc_rt_call_lock(c);
    if (ptds)
        e = sc_rt_host(st, SC_CUDA_HOST_STREAM_SYNC, sc_rt_stream_id(st, NULL, true), 0, call);
    else
        e = sc_rt_host(st, SC_CUDA_HOST_LEGACY_SYNC, 0, 0, call);
    if (e == cudaSuccess && count) {
        sc_rt_node_desc d = copy_desc(dst, src, count, kind);
        sc_rt_perform(&d);
    }
    sc_rt_call_unlock(c);
    return e;
}

cudaError_t sc_rt_copy_async(sc_rt_call *c, void *dst, const void *src, size_t count,
                             enum cudaMemcpyKind kind, cudaStream_t s, bool ptsz, const char *call)
{
    cudaError_t e = copy_checks(dst, src, kind);
    if (e != cudaSuccess)
        return e;
    sc_rt_state *st = sc_rt_call_lock(c);
    sc_rt_node_desc d = copy_desc(dst, src, count, kind);
    e = sc_rt_issue_id(st, sc_rt_stream_id(st, s, ptsz), &d, call, NULL);
    sc_rt_call_unlock(c);
    return e;
}

SC_RT_EXPORT cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
                                    enum cudaMemcpyKind kind)
{
    SC_RT_ENTER();
    SC_RT_RETURN(sc_rt_copy_sync(SC_RT_CALL, dst, src, count, kind, false, "cudaMemcpy"));
}

SC_RT_EXPORT cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count,
                                         enum cudaMemcpyKind kind)
{
    SC_RT_ENTER();
    SC_RT_RETURN(sc_rt_copy_sync(SC_RT_CALL, dst, src, count, kind, true, "cudaMemcpy"));
}

SC_RT_EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
                                         enum cudaMemcpyKind kind, cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(
        sc_rt_copy_async(SC_RT_CALL, dst, src, count, kind, stream, false, "cudaMemcpyAsync"));
}

SC_RT_EXPORT cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count,
                                              enum cudaMemcpyKind kind, cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(
        sc_rt_copy_async(SC_RT_CALL, dst, src, count, kind, stream, true, "cudaMemcpyAsync"));
}

SC_RT_EXPORT cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice,
                                        size_t count)
{
    SC_RT_ENTER();
    if (dstDevice != 0 || srcDevice != 0)
        SC_RT_RETURN(cudaErrorInvalidDevice);
    SC_RT_RETURN(sc_rt_copy_sync(SC_RT_CALL, dst, src, count, cudaMemcpyDeviceToDevice, false,
                                 "cudaMemcpyPeer"));
}

SC_RT_EXPORT cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src,
                                             int srcDevice, size_t count, cudaStream_t stream)
{
    SC_RT_ENTER();
    if (dstDevice != 0 || srcDevice != 0)
        SC_RT_RETURN(cudaErrorInvalidDevice);
    SC_RT_RETURN(sc_rt_copy_async(SC_RT_CALL, dst, src, count, cudaMemcpyDeviceToDevice, stream,
                                  false, "cudaMemcpyPeerAsync"));
}

static sc_rt_node_desc set_desc(void *p, int value, size_t count)
{
    sc_rt_node_desc d = {0};
    d.type = cudaGraphNodeTypeMemset;
    d.dst = p;
    d.value = (unsigned char)value;
    d.element_size = 1;
    d.width = count;
    d.height = 1;
    d.pitch = count;
    d.size = count;
    return d;
}

static cudaError_t set_sync(sc_rt_call *c, void *p, int value, size_t count, bool ptds,
                            const char *call)
{
    if (!p && count)
        return cudaErrorInvalidValue;
    sc_rt_state *st = sc_rt_call_lock(c);
    cudaError_t e;
    if (ptds)
        e = sc_rt_host(st, SC_CUDA_HOST_STREAM_SYNC, sc_rt_stream_id(st, NULL, true), 0, call);
    else
        e = sc_rt_host(st, SC_CUDA_HOST_LEGACY_SYNC, 0, 0, call);
    if (e == cudaSuccess) {
        sc_rt_node_desc d = set_desc(p, value, count);
        sc_rt_perform(&d);
    }
    return e;
}

static cudaError_t set_async(sc_rt_call *c, void *p, int value, size_t count, cudaStream_t s,
                             bool ptsz, const char *call)
{
    if (!p && count)
        return cudaErrorInvalidValue;
    sc_rt_state *st = sc_rt_call_lock(c);
    sc_rt_node_desc d = set_desc(p, value, count);
    cudaError_t e = sc_rt_issue_id(st, sc_rt_stream_id(st, s, ptsz), &d, call, NULL);
    return e;
}

SC_RT_EXPORT cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
    SC_RT_ENTER();
    SC_RT_RETURN(set_sync(SC_RT_CALL, devPtr, value, count, false, "cudaMemset"));
}

SC_RT_EXPORT cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count)
{
    SC_RT_ENTER();
    SC_RT_RETURN(set_sync(SC_RT_CALL, devPtr, value, count, true, "cudaMemset"));
}

SC_RT_EXPORT cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(set_async(SC_RT_CALL, devPtr, value, count, stream, false, "cudaMemsetAsync"));
}

SC_RT_EXPORT cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count,
                                              cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(set_async(SC_RT_CALL, devPtr, value, count, stream, true, "cudaMemsetAsync"));
}

/* Stream-ordered allocation: stream work (a mem_alloc node in capture),
 * never an unsafe host call. */
cudaError_t sc_rt_malloc_async(sc_rt_call *c, void **out, size_t size, cudaMemPool_t pool,
                               cudaStream_t s, bool ptsz, const char *call)
{
    if (!out)
        return cudaErrorInvalidValue;
    sc_rt_state *st = sc_rt_call_lock(c);
    cudaError_t e = cudaSuccess;
    void *p = sc_rt_alloc_device(st, size);
    if (!p) {
        e = cudaErrorMemoryAllocation;
    } else {
        sc_rt_node_desc d = {0};
        d.type = cudaGraphNodeTypeMemAlloc;
        d.dst = p;
        d.size = size;
        uint32_t stream = sc_rt_stream_id(st, s, ptsz);
        bool captured = sc_rt_stream_capture(st, stream) != 0;
        e = sc_rt_issue_id(st, stream, &d, call, NULL);
        if (e != cudaSuccess) {
            ptrdiff_t i = alloc_exact(st, p);
            if (i >= 0)
                alloc_remove(st, (size_t)i);
        } else {
            *out = p;
            /* A captured allocation is the graph's, not the pool's. */
            if (!captured)
                sc_rt_pool_note_alloc(st, pool, p, size);
        }
    }
    sc_rt_call_unlock(c);
    return e;
}

static cudaError_t free_async(sc_rt_call *c, void *p, cudaStream_t s, bool ptsz)
{
    sc_rt_state *st = sc_rt_call_lock(c);
    cudaError_t e = cudaSuccess;
    ptrdiff_t i = p ? alloc_exact(st, p) : -1;
    uint32_t stream = sc_rt_stream_id(st, s, ptsz);
    bool captured = sc_rt_stream_capture(st, stream) != 0;
    if (p && i < 0 && !captured && sc_rt_graph_mem_free(p, stream)) {
        sc_rt_node_desc d = {0};
        d.type = cudaGraphNodeTypeMemFree;
        d.dst = p;
        e = sc_rt_issue_id(st, stream, &d, "cudaFreeAsync", NULL);
    } else if (p && (i < 0 || st->allocs[i].kind != SC_RT_MEM_DEVICE)) {
        e = cudaErrorInvalidValue;
    } else {
        sc_rt_node_desc d = {0};
        d.type = cudaGraphNodeTypeMemFree;
        d.dst = p;
        e = sc_rt_issue_id(st, stream, &d, "cudaFreeAsync", NULL);
        /* In capture the free belongs to the graph; the memory stays. */
        if (e == cudaSuccess && !captured && i >= 0) {
            sc_rt_pool_note_free(st, p);
            (void)sc_rt_graph_mem_free(p, stream);
            alloc_remove(st, (size_t)i);
        }
    }
    return e;
}

SC_RT_EXPORT cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(
        sc_rt_malloc_async(SC_RT_CALL, devPtr, size, NULL, hStream, false, "cudaMallocAsync"));
}

SC_RT_EXPORT cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(
        sc_rt_malloc_async(SC_RT_CALL, devPtr, size, NULL, hStream, true, "cudaMallocAsync"));
}

SC_RT_EXPORT cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(free_async(SC_RT_CALL, devPtr, hStream, false));
}

SC_RT_EXPORT cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(free_async(SC_RT_CALL, devPtr, hStream, true));
}

/* Prefetching moves nothing here; in capture it is stream work CUDA
 * records as a memcpy-free no-op, so it is only checked. */
SC_RT_EXPORT cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count,
                                              struct cudaMemLocation location, unsigned int flags,
                                              cudaStream_t stream)
{
    SC_RT_ENTER();
    (void)count;
    (void)location;
    (void)flags;
    (void)stream;
    sc_rt_state *st = SC_RT_LOCK();
    const sc_rt_alloc *a = sc_rt_alloc_find(st, devPtr);
    bool managed = a && a->kind == SC_RT_MEM_MANAGED;
    SC_RT_RETURN(managed ? cudaSuccess : cudaErrorInvalidValue);
}

SC_RT_EXPORT cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count,
                                                   struct cudaMemLocation location,
                                                   unsigned int flags, cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(cudaMemPrefetchAsync(devPtr, count, location, flags, stream));
}

/* -------------------------------------------------------- managed memory */

static bool managed_range(sc_rt_call *c, const void *p, size_t count)
{
    sc_rt_state *st = sc_rt_call_lock(c);
    const sc_rt_alloc *a = sc_rt_alloc_find(st, p);
    bool ok = a && a->kind == SC_RT_MEM_MANAGED && (uintptr_t)p - a->base <= a->size &&
              count <= a->size - ((uintptr_t)p - a->base);
    sc_rt_call_unlock(c);
    return ok;
}

/* Host memory is the only memory here: advice is checked and changes
 * nothing. */
SC_RT_EXPORT cudaError_t cudaMemAdvise(const void *devPtr, size_t count,
                                       enum cudaMemoryAdvise advice,
                                       struct cudaMemLocation location)
{
    SC_RT_ENTER();
    if (!devPtr || !count || advice < cudaMemAdviseSetReadMostly ||
        advice > cudaMemAdviseUnsetAccessedBy)
        SC_RT_RETURN(cudaErrorInvalidValue);
    bool needs_location = advice == cudaMemAdviseSetPreferredLocation ||
                          advice == cudaMemAdviseSetAccessedBy ||
                          advice == cudaMemAdviseUnsetAccessedBy;
    if (needs_location) {
        if (location.type == cudaMemLocationTypeDevice && location.id != 0)
            SC_RT_RETURN(cudaErrorInvalidDevice);
        if (location.type != cudaMemLocationTypeDevice &&
            location.type != cudaMemLocationTypeHost &&
            location.type != cudaMemLocationTypeHostNuma &&
            location.type != cudaMemLocationTypeHostNumaCurrent)
            SC_RT_RETURN(cudaErrorInvalidValue);
    }
    SC_RT_RETURN(managed_range(SC_RT_CALL, devPtr, count) ? cudaSuccess : cudaErrorInvalidValue);
}

SC_RT_EXPORT cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length,
                                                  unsigned int flags)
{
    SC_RT_ENTER();
    (void)stream;
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost && flags != cudaMemAttachSingle)
        SC_RT_RETURN(cudaErrorInvalidValue);
    sc_rt_state *st = SC_RT_LOCK();
    const sc_rt_alloc *a = sc_rt_alloc_find(st, devPtr);
    /* the whole allocation (length 0 or its size), from its start */
    bool ok = a && a->kind == SC_RT_MEM_MANAGED && a->base == (uintptr_t)devPtr &&
              (length == 0 || length == a->size);
    SC_RT_RETURN(ok ? cudaSuccess : cudaErrorInvalidValue);
}

SC_RT_EXPORT cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void *devPtr,
                                                       size_t length, unsigned int flags)
{
    SC_RT_ENTER();
    SC_RT_RETURN(cudaStreamAttachMemAsync(stream, devPtr, length, flags));
}

/* ------------------------------------------------ graph memory's hooks */

uint32_t sc_rt_launch_stream(cudaStream_t s, bool *capturing)
{
    sc_rt_state *st = sc_rt_state_get();
    uint32_t id = sc_rt_stream_id(st, s, false);
    *capturing = sc_rt_stream_capture(st, id) != 0;
    return id;
}

void **sc_rt_graph_mem_slot(void)
{
    return &sc_rt_state_get()->graph_mem;
}
