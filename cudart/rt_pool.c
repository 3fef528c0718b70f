/*
 * rt_pool.c - memory pools: the device's default pool, pools the program
 * creates, the current pool of cudaMallocAsync, their attributes and
 * access, and cudaMallocFromPoolAsync.  Memory is host memory (rt_mem.c);
 * a pool only accounts for what was allocated from it outside capture.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_int.h"
#include "sc_cudart.h"

#define SC_RT_POOL_MAGIC 0x53435050u /* "SCPP" */

struct CUmemPoolHandle_st {
    uint32_t magic;
    bool is_default; /* the device's own: never destroyed */
    struct cudaMemPoolProps props;
    int reuse[3]; /* cudaMemPoolReuse*, by attribute - 1 */
    unsigned long long threshold;
    size_t used, used_high, reserved, reserved_high;
    struct CUmemPoolHandle_st *next;
};

/* An allocation made from a pool outside capture, until it is freed. */
typedef struct pool_alloc {
    void *p;
    size_t size;
    struct CUmemPoolHandle_st *pool; /* NULL once its pool was destroyed */
} pool_alloc;

struct sc_rt_pools {
    struct CUmemPoolHandle_st dflt;
    struct CUmemPoolHandle_st *current; /* cudaDeviceSetMemPool */
    struct CUmemPoolHandle_st *created; /* cudaMemPoolCreate, newest first */
    pool_alloc *allocs;
    size_t nallocs, allocs_cap;
};

static void pool_init(struct CUmemPoolHandle_st *p, const struct cudaMemPoolProps *props)
{
    memset(p, 0, sizeof *p);
    p->magic = SC_RT_POOL_MAGIC;
    p->props = *props;
    /* CUDA's defaults: every reuse policy on, no memory kept. */
    p->reuse[0] = p->reuse[1] = p->reuse[2] = 1;
}

static sc_rt_pools *pools_get(sc_rt_state *st)
{
    if (!st->pools) {
        sc_rt_pools *x = calloc(1, sizeof *x);
        if (!x)
            return NULL;
        struct cudaMemPoolProps props;
        memset(&props, 0, sizeof props);
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        pool_init(&x->dflt, &props);
        x->dflt.is_default = true;
        x->current = &x->dflt;
        st->pools = x;
    }
    return st->pools;
}

/* A handle this process made (and did not destroy), else NULL: programs
 * pass stale handles, which must not be read. */
static struct CUmemPoolHandle_st *pool_find(sc_rt_pools *x, cudaMemPool_t h)
{
    if (!x || !h)
        return NULL;
    if (h == &x->dflt)
        return h;
    for (struct CUmemPoolHandle_st *p = x->created; p; p = p->next)
        if (p == h)
            return p;
    return NULL;
}

static bool device_location(const struct cudaMemLocation *l, cudaError_t *why)
{
    if (!l || l->type != cudaMemLocationTypeDevice) {
        *why = cudaErrorInvalidValue;
        return false;
    }
    if (l->id != 0) {
        *why = cudaErrorInvalidDevice;
        return false;
    }
    return true;
}

/* Keep what the release threshold allows of the freed memory. */
static void pool_settle(struct CUmemPoolHandle_st *p, size_t keep)
{
    if (p->reserved > keep)
        p->reserved = keep;
    if (p->reserved < p->used)
        p->reserved = p->used;
}

void sc_rt_pool_note_alloc(sc_rt_state *st, cudaMemPool_t pool, void *ptr, size_t size)
{
    sc_rt_pools *x = pools_get(st);
    struct CUmemPoolHandle_st *p = x ? pool_find(x, pool ? pool : x->current) : NULL;
    if (!p)
        return;
    if (x->nallocs == x->allocs_cap) {
        size_t cap = x->allocs_cap ? x->allocs_cap * 2 : 16;
        pool_alloc *a = realloc(x->allocs, cap * sizeof *a);
        if (!a)
            return; /* the statistics miss one allocation, nothing else */
        x->allocs = a;
        x->allocs_cap = cap;
    }
    x->allocs[x->nallocs++] = (pool_alloc){ptr, size, p};
    p->used += size;
    if (p->used > p->used_high)
        p->used_high = p->used;
    if (p->reserved < p->used)
        p->reserved = p->used;
    if (p->reserved > p->reserved_high)
        p->reserved_high = p->reserved;
}

void sc_rt_pool_note_free(sc_rt_state *st, void *ptr)
{
    sc_rt_pools *x = st->pools;
    for (size_t i = 0; x && i < x->nallocs; i++) {
        if (x->allocs[i].p != ptr)
            continue;
        struct CUmemPoolHandle_st *p = x->allocs[i].pool;
        if (p) {
            p->used -= x->allocs[i].size;
            pool_settle(p, p->threshold > SIZE_MAX ? SIZE_MAX : (size_t)p->threshold);
        }
        x->allocs[i] = x->allocs[--x->nallocs];
        return;
    }
}

/* ------------------------------------------------------ pools by device */

SC_RT_EXPORT cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device)
{
    SC_RT_ENTER();
    if (!memPool)
        SC_RT_RETURN(cudaErrorInvalidValue);
    if (device != 0)
        SC_RT_RETURN(cudaErrorInvalidDevice);
    sc_rt_state *st = SC_RT_LOCK();
    sc_rt_pools *x = pools_get(st);
    if (x)
        *memPool = &x->dflt;
    SC_RT_RETURN(x ? cudaSuccess : cudaErrorMemoryAllocation);
}

SC_RT_EXPORT cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device)
{
    SC_RT_ENTER();
    if (!memPool)
        SC_RT_RETURN(cudaErrorInvalidValue);
    if (device != 0)
        SC_RT_RETURN(cudaErrorInvalidDevice);
    sc_rt_state *st = SC_RT_LOCK();
    sc_rt_pools *x = pools_get(st);
    if (x)
        *memPool = x->current;
    SC_RT_RETURN(x ? cudaSuccess : cudaErrorMemoryAllocation);
}

SC_RT_EXPORT cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool)
{
    SC_RT_ENTER();
    if (device != 0)
        SC_RT_RETURN(cudaErrorInvalidDevice);
    sc_rt_state *st = SC_RT_LOCK();
    sc_rt_pools *x = pools_get(st);
    struct CUmemPoolHandle_st *p = pool_find(x, memPool);
    cudaError_t e = cudaSuccess;
    /* cudaMallocAsync hands out device memory: a pinned pool of device 0. */
    if (!p || p->props.location.type != cudaMemLocationTypeDevice)
        e = cudaErrorInvalidValue;
    else
        x->current = p;
    SC_RT_RETURN(e);
}

/* The cudaMem*MemPool flavour: by location and allocation type. */
static cudaError_t by_location(cudaMemPool_t *out, const struct cudaMemLocation *l,
                               enum cudaMemAllocationType type, bool current)
{
    cudaError_t e = cudaSuccess;
    if (!out || type != cudaMemAllocationTypePinned)
        return cudaErrorInvalidValue;
    if (!device_location(l, &e))
        return e;
    return current ? cudaDeviceGetMemPool(out, 0) : cudaDeviceGetDefaultMemPool(out, 0);
}

SC_RT_EXPORT cudaError_t cudaMemGetDefaultMemPool(cudaMemPool_t *memPool,
                                                  struct cudaMemLocation *location,
                                                  enum cudaMemAllocationType type)
{
    SC_RT_ENTER();
    SC_RT_RETURN(by_location(memPool, location, type, false));
}

SC_RT_EXPORT cudaError_t cudaMemGetMemPool(cudaMemPool_t *memPool, struct cudaMemLocation *location,
                                           enum cudaMemAllocationType type)
{
    SC_RT_ENTER();
    SC_RT_RETURN(by_location(memPool, location, type, true));
}

SC_RT_EXPORT cudaError_t cudaMemSetMemPool(struct cudaMemLocation *location,
                                           enum cudaMemAllocationType type, cudaMemPool_t memPool)
{
    SC_RT_ENTER();
    cudaError_t e = cudaSuccess;
    if (type != cudaMemAllocationTypePinned)
        SC_RT_RETURN(cudaErrorInvalidValue);
    if (!device_location(location, &e))
        SC_RT_RETURN(e);
    SC_RT_RETURN(cudaDeviceSetMemPool(0, memPool));
}

/* ------------------------------------------------------- create, destroy */

static cudaError_t props_check(const struct cudaMemPoolProps *pr)
{
    if (!pr || pr->allocType != cudaMemAllocationTypePinned ||
        (pr->handleTypes & ~(unsigned)cudaMemHandleTypePosixFileDescriptor))
        return cudaErrorInvalidValue;
    if (pr->location.type == cudaMemLocationTypeHost ||
        pr->location.type == cudaMemLocationTypeHostNuma)
        return cudaSuccess;
    cudaError_t e = cudaSuccess;
    return device_location(&pr->location, &e) ? cudaSuccess : e;
}

SC_RT_EXPORT cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool,
                                           const struct cudaMemPoolProps *poolProps)
{
    SC_RT_ENTER();
    if (!memPool)
        SC_RT_RETURN(cudaErrorInvalidValue);
    cudaError_t e = props_check(poolProps);
    if (e != cudaSuccess)
        SC_RT_RETURN(e);
    sc_rt_state *st = SC_RT_LOCK();
    sc_rt_pools *x = pools_get(st);
    struct CUmemPoolHandle_st *p = x ? malloc(sizeof *p) : NULL;
    if (p) {
        pool_init(p, poolProps);
        p->next = x->created;
        x->created = p;
        *memPool = p;
    }
    SC_RT_RETURN(p ? cudaSuccess : cudaErrorMemoryAllocation);
}

SC_RT_EXPORT cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool)
{
    SC_RT_ENTER();
    sc_rt_state *st = SC_RT_LOCK();
    sc_rt_pools *x = pools_get(st);
    struct CUmemPoolHandle_st *p = pool_find(x, memPool);
    cudaError_t e = cudaSuccess;
    if (!p || p->is_default) {
        e = cudaErrorInvalidValue;
    } else {
        /* Its allocations stay valid until freed, as in CUDA. */
        for (size_t i = 0; i < x->nallocs; i++)
            if (x->allocs[i].pool == p)
                x->allocs[i].pool = NULL;
        struct CUmemPoolHandle_st **at = &x->created;
        while (*at != p)
            at = &(*at)->next;
        *at = p->next;
        if (x->current == p)
            x->current = &x->dflt;
        p->magic = 0;
        free(p);
    }
    SC_RT_RETURN(e);
}

/* ------------------------------------------------------------ attributes */

static cudaError_t set_attr(struct CUmemPoolHandle_st *p, enum cudaMemPoolAttr attr,
                            const void *value)
{
    switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
        p->reuse[attr - 1] = *(const int *)value != 0;
        return cudaSuccess;
    case cudaMemPoolAttrReleaseThreshold:
        p->threshold = *(const unsigned long long *)value;
        return cudaSuccess;
    /* The high-water marks may only be reset (to the current value). */
    case cudaMemPoolAttrReservedMemHigh:
        if (*(const unsigned long long *)value != 0)
            return cudaErrorInvalidValue;
        p->reserved_high = p->reserved;
        return cudaSuccess;
    case cudaMemPoolAttrUsedMemHigh:
        if (*(const unsigned long long *)value != 0)
            return cudaErrorInvalidValue;
        p->used_high = p->used;
        return cudaSuccess;
    default:
        return cudaErrorInvalidValue;
    }
}

static cudaError_t get_attr(const struct CUmemPoolHandle_st *p, enum cudaMemPoolAttr attr,
                            void *value)
{
    unsigned long long v;
    switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
        *(int *)value = p->reuse[attr - 1];
        return cudaSuccess;
    case cudaMemPoolAttrReleaseThreshold:
        v = p->threshold;
        break;
    case cudaMemPoolAttrReservedMemCurrent:
        v = p->reserved;
        break;
    case cudaMemPoolAttrReservedMemHigh:
        v = p->reserved_high;
        break;
    case cudaMemPoolAttrUsedMemCurrent:
        v = p->used;
        break;
    case cudaMemPoolAttrUsedMemHigh:
        v = p->used_high;
        break;
    default:
        return cudaErrorInvalidValue;
    }
    *(unsigned long long *)value = v;
    return cudaSuccess;
}

static cudaError_t attr_call(sc_rt_call *c, cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                             void *value, bool set)
{
    if (!value)
        return cudaErrorInvalidValue;
    sc_rt_state *st = sc_rt_call_lock(c);
    struct CUmemPoolHandle_st *p = pool_find(pools_get(st), memPool);
    cudaError_t e = !p    ? cudaErrorInvalidValue
                    : set ? set_attr(p, attr, value)
                          : get_attr(p, attr, value);
    return e;
}

SC_RT_EXPORT cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                                 void *value)
{
    SC_RT_ENTER();
    SC_RT_RETURN(attr_call(SC_RT_CALL, memPool, attr, value, true));
}

SC_RT_EXPORT cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                                 void *value)
{
    SC_RT_ENTER();
    SC_RT_RETURN(attr_call(SC_RT_CALL, memPool, attr, value, false));
}

SC_RT_EXPORT cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep)
{
    SC_RT_ENTER();
    sc_rt_state *st = SC_RT_LOCK();
    struct CUmemPoolHandle_st *p = pool_find(pools_get(st), memPool);
    if (p)
        pool_settle(p, minBytesToKeep);
    SC_RT_RETURN(p ? cudaSuccess : cudaErrorInvalidValue);
}

/* ---------------------------------------------------------------- access */

/* With one device, a pool is always read-write from it and from nowhere
 * else; requests that keep it so succeed. */
SC_RT_EXPORT cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool,
                                              const struct cudaMemAccessDesc *descList,
                                              size_t count)
{
    SC_RT_ENTER();
    if (count && !descList)
        SC_RT_RETURN(cudaErrorInvalidValue);
    sc_rt_state *st = SC_RT_LOCK();
    cudaError_t e = pool_find(pools_get(st), memPool) ? cudaSuccess : cudaErrorInvalidValue;
    for (size_t i = 0; e == cudaSuccess && i < count; i++)
        if (device_location(&descList[i].location, &e) &&
            descList[i].flags != cudaMemAccessFlagsProtReadWrite)
            e = cudaErrorInvalidValue;
    SC_RT_RETURN(e);
}

SC_RT_EXPORT cudaError_t cudaMemPoolGetAccess(enum cudaMemAccessFlags *flags, cudaMemPool_t memPool,
                                              struct cudaMemLocation *location)
{
    SC_RT_ENTER();
    if (!flags)
        SC_RT_RETURN(cudaErrorInvalidValue);
    sc_rt_state *st = SC_RT_LOCK();
    cudaError_t e = pool_find(pools_get(st), memPool) ? cudaSuccess : cudaErrorInvalidValue;
    if (e == cudaSuccess && device_location(location, &e))
        *flags = cudaMemAccessFlagsProtReadWrite;
    SC_RT_RETURN(e);
}

/* ------------------------------------------------------------ allocation */

static cudaError_t from_pool(sc_rt_call *c, void **ptr, size_t size, cudaMemPool_t memPool,
                             cudaStream_t s, bool ptsz)
{
    sc_rt_state *st = sc_rt_call_lock(c);
    bool known = pool_find(pools_get(st), memPool) != NULL;
    sc_rt_call_unlock(c);
    if (!known || !ptr)
        return cudaErrorInvalidValue;
    return sc_rt_malloc_async(c, ptr, size, memPool, s, ptsz, "cudaMallocFromPoolAsync");
}

SC_RT_EXPORT cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
                                                 cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(from_pool(SC_RT_CALL, ptr, size, memPool, stream, false));
}

SC_RT_EXPORT cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size,
                                                      cudaMemPool_t memPool, cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(from_pool(SC_RT_CALL, ptr, size, memPool, stream, true));
}
