/*
 * rt_extra.c - the runtime calls real programs make around their capture
 * sections: function attributes and occupancy, limits and cache
 * preferences, peer and PCI queries, managed-memory advice, pitched (2-D
 * and 3-D) copies and memsets, cooperative launches and stream
 * attributes.  Values a program sets are kept and read back; the device
 * they describe is rt_device.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi_graph.h"
#include "rt_int.h"

/* Registers a thread of every function (cudaFuncGetAttributes). */
#define SC_X_REGS    32
#define SC_X_NLIMITS (cudaLimitPersistingL2CacheSize + 1)

/* What cudaFuncSetAttribute and cudaFuncSetCacheConfig changed. */
typedef struct sc_x_func {
    const void *func;
    int max_dyn_smem;
    int carveout;
    int cluster[3];
    int non_portable;
    int sched;
    enum cudaFuncCache cache;
} sc_x_func;

typedef struct sc_x_sattr {
    uint32_t stream; /* model stream id */
    cudaLaunchAttributeID id;
    cudaLaunchAttributeValue v;
} sc_x_sattr;

struct sc_rt_extra {
    size_t limits[SC_X_NLIMITS];
    enum cudaFuncCache cache;
    enum cudaSharedMemConfig shmem;
    sc_x_func *funcs;
    size_t nfuncs, funcs_cap;
    sc_x_sattr *sattrs;
    size_t nsattrs, sattrs_cap;
};

/* The defaults of a current GPU's runtime. */
static const size_t g_limit_defaults[SC_X_NLIMITS] = {
    [cudaLimitStackSize] = 1024,
    [cudaLimitPrintfFifoSize] = 1 << 20,
    [cudaLimitMallocHeapSize] = 8 << 20,
    [cudaLimitDevRuntimeSyncDepth] = 2,
    [cudaLimitDevRuntimePendingLaunchCount] = 2048,
    [cudaLimitMaxL2FetchGranularity] = 64,
    [cudaLimitPersistingL2CacheSize] = 0,
};

/* Lock held; NULL only when memory is short. */
static sc_rt_extra *extra_get(sc_rt_state *st)
{
    if (!st->extra) {
        sc_rt_extra *x = calloc(1, sizeof *x);
        if (!x)
            return NULL;
        memcpy(x->limits, g_limit_defaults, sizeof x->limits);
        st->extra = x;
    }
    return st->extra;
}

static bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t c = *cap ? *cap * 2 : 8;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * elem);
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

/* ------------------------------------------------------------ functions */

static sc_x_func func_defaults(const void *func)
{
    sc_x_func f = {0};
    f.func = func;
    f.max_dyn_smem = (int)SC_RT_DEV_SMEM_DEFAULT;
    f.carveout = -1;
    f.cache = cudaFuncCachePreferNone;
    return f;
}

/* What is set for func, or its defaults (copied to *out). */
static void func_get(sc_rt_extra *x, const void *func, sc_x_func *out)
{
    for (size_t i = 0; x && i < x->nfuncs; i++) {
        if (x->funcs[i].func == func) {
            *out = x->funcs[i];
            return;
        }
    }
    *out = func_defaults(func);
}

/* The entry of func, made on first use. */
static sc_x_func *func_entry(sc_rt_extra *x, const void *func)
{
    for (size_t i = 0; i < x->nfuncs; i++)
        if (x->funcs[i].func == func)
            return &x->funcs[i];
    if (!grow((void **)&x->funcs, &x->funcs_cap, x->nfuncs + 1, sizeof *x->funcs))
        return NULL;
    x->funcs[x->nfuncs] = func_defaults(func);
    return &x->funcs[x->nfuncs++];
}

SC_RT_EXPORT cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    SC_RT_ENTER();
    if (!attr)
        SC_RT_RETURN(cudaErrorInvalidValue);
    if (!func)
        SC_RT_RETURN(cudaErrorInvalidDeviceFunction);
    sc_rt_state *st = SC_RT_LOCK();
    sc_x_func f;
    func_get(st->extra, func, &f);
    SC_RT_UNLOCK();
    memset(attr, 0, sizeof *attr);
    attr->maxThreadsPerBlock = 1024;
    attr->numRegs = SC_X_REGS;
    attr->ptxVersion = 90;
    attr->binaryVersion = 90;
    attr->maxDynamicSharedSizeBytes = f.max_dyn_smem;
    attr->preferredShmemCarveout = f.carveout;
    attr->requiredClusterWidth = f.cluster[0];
    attr->requiredClusterHeight = f.cluster[1];
    attr->requiredClusterDepth = f.cluster[2];
    attr->clusterSchedulingPolicyPreference = f.sched;
    attr->nonPortableClusterSizeAllowed = f.non_portable;
    SC_RT_RETURN(cudaSuccess);
}

static cudaError_t func_attr_set(sc_x_func *f, enum cudaFuncAttribute attr, int value)
{
    switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
        if (value < 0 || value > (int)SC_RT_DEV_SMEM_OPTIN)
            return cudaErrorInvalidValue;
        f->max_dyn_smem = value;
        return cudaSuccess;
    case cudaFuncAttributePreferredSharedMemoryCarveout:
        if (value < -1 || value > 100)
            return cudaErrorInvalidValue;
        f->carveout = value;
        return cudaSuccess;
    case cudaFuncAttributeRequiredClusterWidth:
    case cudaFuncAttributeRequiredClusterHeight:
    case cudaFuncAttributeRequiredClusterDepth:
        if (value < 0 || value > 16)
            return cudaErrorInvalidValue;
        f->cluster[attr - cudaFuncAttributeRequiredClusterWidth] = value;
        return cudaSuccess;
    case cudaFuncAttributeNonPortableClusterSizeAllowed:
        if (value != 0 && value != 1)
            return cudaErrorInvalidValue;
        f->non_portable = value;
        return cudaSuccess;
    case cudaFuncAttributeClusterSchedulingPolicyPreference:
        if (value < 0 || value > 2)
            return cudaErrorInvalidValue;
        f->sched = value;
        return cudaSuccess;
    default: /* cudaFuncAttributeClusterDimMustBeSet is read-only */
        return cudaErrorInvalidValue;
    }
}

SC_RT_EXPORT cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr,
                                              int value)
{
    SC_RT_ENTER();
    if (!func)
        SC_RT_RETURN(cudaErrorInvalidDeviceFunction);
    sc_rt_state *st = SC_RT_LOCK();
    sc_rt_extra *x = extra_get(st);
    sc_x_func *f = x ? func_entry(x, func) : NULL;
    cudaError_t e = f ? func_attr_set(f, attr, value) : cudaErrorMemoryAllocation;
    SC_RT_RETURN(e);
}

SC_RT_EXPORT cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig)
{
    SC_RT_ENTER();
    if (!func)
        SC_RT_RETURN(cudaErrorInvalidDeviceFunction);
    if ((unsigned)cacheConfig > cudaFuncCachePreferEqual)
        SC_RT_RETURN(cudaErrorInvalidValue);
    sc_rt_state *st = SC_RT_LOCK();
    sc_rt_extra *x = extra_get(st);
    sc_x_func *f = x ? func_entry(x, func) : NULL;
    if (f)
        f->cache = cacheConfig;
    SC_RT_RETURN(f ? cudaSuccess : cudaErrorMemoryAllocation);
}

/* Bank sizes are fixed on the devices CUDA 13 supports: accepted, no effect. */
SC_RT_EXPORT cudaError_t cudaFuncSetSharedMemConfig(const void *func,
                                                    enum cudaSharedMemConfig config)
{
    SC_RT_ENTER();
    if (!func)
        SC_RT_RETURN(cudaErrorInvalidDeviceFunction);
    if ((unsigned)config > cudaSharedMemBankSizeEightByte)
        SC_RT_RETURN(cudaErrorInvalidValue);
    SC_RT_RETURN(cudaSuccess);
}

/* ------------------------------------------------------------ occupancy */

/* Resident blocks per multiprocessor: threads (and registers, which at 32
 * a thread give the same bound), the block limit and shared memory. */
static int blocks_per_sm(const sc_x_func *f, int block, size_t dyn)
{
    if (block <= 0 || block > 1024 || dyn > (size_t)f->max_dyn_smem)
        return 0;
    int warps = (block + 31) / 32;
    int n = SC_RT_DEV_THREADS_PER_SM / 32 / warps;
    if (n > SC_RT_DEV_BLOCKS_PER_SM)
        n = SC_RT_DEV_BLOCKS_PER_SM;
    size_t by_smem = SC_RT_DEV_SMEM_PER_SM / (dyn + SC_RT_DEV_SMEM_RESERVED);
    if (dyn && by_smem < (size_t)n)
        n = (int)by_smem;
    return n;
}

static cudaError_t occupancy(sc_rt_call *c, int *num, const void *func, int block, size_t dyn,
                             unsigned int flags)
{
    if (!num || flags > cudaOccupancyDisableCachingOverride)
        return cudaErrorInvalidValue;
    if (!func)
        return cudaErrorInvalidDeviceFunction;
    sc_rt_state *st = sc_rt_call_lock(c);
    sc_x_func f;
    func_get(st->extra, func, &f);
    sc_rt_call_unlock(c);
    *num = blocks_per_sm(&f, block, dyn);
    return cudaSuccess;
}

SC_RT_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
                                                                       const void *func,
                                                                       int blockSize,
                                                                       size_t dynamicSMemSize)
{
    SC_RT_ENTER();
    SC_RT_RETURN(
        occupancy(SC_RT_CALL, numBlocks, func, blockSize, dynamicSMemSize, cudaOccupancyDefault));
}

SC_RT_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
{
    SC_RT_ENTER();
    SC_RT_RETURN(occupancy(SC_RT_CALL, numBlocks, func, blockSize, dynamicSMemSize, flags));
}

SC_RT_EXPORT cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
                                                                   const void *func, int numBlocks,
                                                                   int blockSize)
{
    SC_RT_ENTER();
    if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0)
        SC_RT_RETURN(cudaErrorInvalidValue);
    if (!func)
        SC_RT_RETURN(cudaErrorInvalidDeviceFunction);
    sc_rt_state *st = SC_RT_LOCK();
    sc_x_func f;
    func_get(st->extra, func, &f);
    SC_RT_UNLOCK();
    size_t avail = 0;
    if (blocks_per_sm(&f, blockSize, 0) >= numBlocks) {
        avail = SC_RT_DEV_SMEM_PER_SM / (size_t)numBlocks;
        avail = avail > SC_RT_DEV_SMEM_RESERVED ? avail - SC_RT_DEV_SMEM_RESERVED : 0;
        if (avail > (size_t)f.max_dyn_smem)
            avail = (size_t)f.max_dyn_smem;
    }
    *dynamicSmemSize = avail;
    SC_RT_RETURN(cudaSuccess);
}

/* The cluster a launch asks for: its attribute, else the function's. */
static unsigned int cluster_size(const cudaLaunchConfig_t *c, const sc_x_func *f)
{
    for (unsigned int i = 0; i < c->numAttrs; i++) {
        const cudaLaunchAttribute *a = &c->attrs[i];
        if (a->id == cudaLaunchAttributeClusterDimension)
            return a->val.clusterDim.x * a->val.clusterDim.y * a->val.clusterDim.z;
    }
    if (f->cluster[0])
        return (unsigned)(f->cluster[0] * (f->cluster[1] ? f->cluster[1] : 1) *
                          (f->cluster[2] ? f->cluster[2] : 1));
    return 1;
}

static cudaError_t cluster_query(sc_rt_call *call, int *out, const void *func,
                                 const cudaLaunchConfig_t *c, bool active)
{
    if (!out || !c || (c->numAttrs && !c->attrs))
        return cudaErrorInvalidValue;
    if (!func)
        return cudaErrorInvalidDeviceFunction;
    sc_rt_state *st = sc_rt_call_lock(call);
    sc_x_func f;
    func_get(st->extra, func, &f);
    sc_rt_call_unlock(call);
    int portable = f.non_portable ? 16 : 8;
    if (!active) {
        *out = portable;
        return cudaSuccess;
    }
    unsigned int size = cluster_size(c, &f);
    unsigned int block = c->blockDim.x * c->blockDim.y * c->blockDim.z;
    if (size == 0 || size > (unsigned)portable)
        return cudaErrorInvalidClusterSize;
    int per_sm = blocks_per_sm(&f, (int)block, c->dynamicSmemBytes);
    *out = (int)((unsigned)(per_sm * SC_RT_DEV_SMS) / size);
    return cudaSuccess;
}

SC_RT_EXPORT cudaError_t cudaOccupancyMaxPotentialClusterSize(
    int *clusterSize, const void *func, const cudaLaunchConfig_t *launchConfig)
{
    SC_RT_ENTER();
    SC_RT_RETURN(cluster_query(SC_RT_CALL, clusterSize, func, launchConfig, false));
}

SC_RT_EXPORT cudaError_t cudaOccupancyMaxActiveClusters(int *numClusters, const void *func,
                                                        const cudaLaunchConfig_t *launchConfig)
{
    SC_RT_ENTER();
    SC_RT_RETURN(cluster_query(SC_RT_CALL, numClusters, func, launchConfig, true));
}

/* ----------------------------------------------------- limits and caches */

SC_RT_EXPORT cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    SC_RT_ENTER();
    if ((unsigned)limit >= SC_X_NLIMITS)
        SC_RT_RETURN(cudaErrorUnsupportedLimit);
    if (limit == cudaLimitMaxL2FetchGranularity && value > 128)
        SC_RT_RETURN(cudaErrorInvalidValue);
    /* CUDA clamps the persisting L2 size to what the device has. */
    if (limit == cudaLimitPersistingL2CacheSize && value > SC_RT_DEV_PERSISTING_L2MAX)
        value = SC_RT_DEV_PERSISTING_L2MAX;
    sc_rt_state *st = SC_RT_LOCK();
    sc_rt_extra *x = extra_get(st);
    if (x)
        x->limits[limit] = value;
    SC_RT_RETURN(x ? cudaSuccess : cudaErrorMemoryAllocation);
}

SC_RT_EXPORT cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit)
{
    SC_RT_ENTER();
    if (!pValue)
        SC_RT_RETURN(cudaErrorInvalidValue);
    if ((unsigned)limit >= SC_X_NLIMITS)
        SC_RT_RETURN(cudaErrorUnsupportedLimit);
    sc_rt_state *st = SC_RT_LOCK();
    *pValue = st->extra ? st->extra->limits[limit] : g_limit_defaults[limit];
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig)
{
    SC_RT_ENTER();
    if (!pCacheConfig)
        SC_RT_RETURN(cudaErrorInvalidValue);
    sc_rt_state *st = SC_RT_LOCK();
    *pCacheConfig = st->extra ? st->extra->cache : cudaFuncCachePreferNone;
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig)
{
    SC_RT_ENTER();
    if ((unsigned)cacheConfig > cudaFuncCachePreferEqual)
        SC_RT_RETURN(cudaErrorInvalidValue);
    sc_rt_state *st = SC_RT_LOCK();
    sc_rt_extra *x = extra_get(st);
    if (x)
        x->cache = cacheConfig;
    SC_RT_RETURN(x ? cudaSuccess : cudaErrorMemoryAllocation);
}

SC_RT_EXPORT cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *pConfig)
{
    SC_RT_ENTER();
    if (!pConfig)
        SC_RT_RETURN(cudaErrorInvalidValue);
    sc_rt_state *st = SC_RT_LOCK();
    *pConfig = st->extra && st->extra->shmem ? st->extra->shmem : cudaSharedMemBankSizeFourByte;
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config)
{
    SC_RT_ENTER();
    if ((unsigned)config > cudaSharedMemBankSizeEightByte)
        SC_RT_RETURN(cudaErrorInvalidValue);
    sc_rt_state *st = SC_RT_LOCK();
    sc_rt_extra *x = extra_get(st);
    if (x)
        x->shmem = config;
    SC_RT_RETURN(x ? cudaSuccess : cudaErrorMemoryAllocation);
}

/* --------------------------------------------------- devices, profiler */

SC_RT_EXPORT cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
    SC_RT_ENTER();
    if (!canAccessPeer)
        SC_RT_RETURN(cudaErrorInvalidValue);
    if (device != 0 || peerDevice != 0)
        SC_RT_RETURN(cudaErrorInvalidDevice);
    *canAccessPeer = 0; /* a device is never its own peer */
    SC_RT_RETURN(cudaSuccess);
}

/* One device: there is no peer to enable or disable. */
SC_RT_EXPORT cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
    SC_RT_ENTER();
    (void)peerDevice;
    if (flags != 0)
        SC_RT_RETURN(cudaErrorInvalidValue);
    SC_RT_RETURN(cudaErrorInvalidDevice);
}

SC_RT_EXPORT cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
{
    SC_RT_ENTER();
    (void)peerDevice;
    SC_RT_RETURN(cudaErrorInvalidDevice);
}

/* rt_device.c's device sits at domain 0, bus 1, device 0. */
#define SC_X_PCI_ID "0000:01:00.0"

SC_RT_EXPORT cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
    SC_RT_ENTER();
    if (!pciBusId || len <= 0)
        SC_RT_RETURN(cudaErrorInvalidValue);
    if (device != 0)
        SC_RT_RETURN(cudaErrorInvalidDevice);
    snprintf(pciBusId, (size_t)len, "%s", SC_X_PCI_ID);
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId)
{
    SC_RT_ENTER();
    if (!device || !pciBusId)
        SC_RT_RETURN(cudaErrorInvalidValue);
    unsigned int dom = 0, bus = 0, dev = 0, fn = 0;
    char tail;
    /* [domain]:bus:device.function, as CUDA accepts it */
    bool full = sscanf(pciBusId, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) == 4;
    if (!full) {
        dom = 0;
        if (sscanf(pciBusId, "%x:%x.%x%c", &bus, &dev, &fn, &tail) != 3)
            SC_RT_RETURN(cudaErrorInvalidValue);
    }
    if (dom != 0 || bus != 1 || dev != 0)
        SC_RT_RETURN(cudaErrorInvalidDevice);
    *device = 0;
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop)
{
    SC_RT_ENTER();
    if (!device || !prop)
        SC_RT_RETURN(cudaErrorInvalidValue);
    *device = 0;
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaProfilerStart(void)
{
    SC_RT_ENTER();
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaProfilerStop(void)
{
    SC_RT_ENTER();
    SC_RT_RETURN(cudaSuccess);
}

/* No cache is emulated, so no line is persisting: nothing to reset. */
SC_RT_EXPORT cudaError_t cudaCtxResetPersistingL2Cache(void)
{
    SC_RT_ENTER();
    SC_RT_RETURN(cudaSuccess);
}

/* -------------------------------------------------------- managed memory */

static bool managed_range(const void *p, size_t count)
{
    sc_rt_state *st = sc_rt_state_get();
    sc_rt_lock();
    const sc_rt_alloc *a = sc_rt_alloc_find(st, p);
    bool ok = a && a->kind == SC_RT_MEM_MANAGED && (uintptr_t)p - a->base <= a->size &&
              count <= a->size - ((uintptr_t)p - a->base);
    sc_rt_unlock();
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
    SC_RT_RETURN(managed_range(devPtr, count) ? cudaSuccess : cudaErrorInvalidValue);
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

/* ------------------------------------------------ pitched copies, memsets */

static const char *pitched_at(const struct cudaPitchedPtr *p, const struct cudaPos *pos)
{
    return (const char *)p->ptr + (pos->z * p->ysize + pos->y) * p->pitch + pos->x;
}

/* CUDA's checks of a copy between pitched pointers (no cudaArray). */
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

static cudaError_t copy3d_sync(sc_rt_call *c, const struct cudaMemcpy3DParms *p, bool ptds,
                               const char *call)
{
    cudaError_t e = copy3d_checks(p);
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
    cudaError_t e = copy3d_checks(p);
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

/* ------------------------------------------- launches, stream attributes */

/* All blocks of a cooperative grid must be resident at once. */
static cudaError_t coop_checks(dim3 grid, dim3 block, size_t shared)
{
    sc_x_func f = func_defaults(NULL);
    f.max_dyn_smem = (int)SC_RT_DEV_SMEM_OPTIN;
    uint64_t blocks = (uint64_t)grid.x * grid.y * grid.z;
    int per_sm = blocks_per_sm(&f, (int)(block.x * block.y * block.z), shared);
    if (per_sm && blocks > (uint64_t)per_sm * SC_RT_DEV_SMS)
        return cudaErrorCooperativeLaunchTooLarge;
    return cudaSuccess;
}

SC_RT_EXPORT cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                                     void **args, size_t sharedMem,
                                                     cudaStream_t stream)
{
    SC_RT_ENTER();
    cudaError_t e = coop_checks(gridDim, blockDim, sharedMem);
    if (e != cudaSuccess)
        SC_RT_RETURN(e);
    SC_RT_RETURN(cudaLaunchKernel(func, gridDim, blockDim, args, sharedMem, stream));
}

SC_RT_EXPORT cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 gridDim,
                                                          dim3 blockDim, void **args,
                                                          size_t sharedMem, cudaStream_t stream)
{
    SC_RT_ENTER();
    cudaError_t e = coop_checks(gridDim, blockDim, sharedMem);
    if (e != cudaSuccess)
        SC_RT_RETURN(e);
    SC_RT_RETURN(cudaLaunchKernel_ptsz(func, gridDim, blockDim, args, sharedMem, stream));
}

static bool stream_attr_valid(cudaLaunchAttributeID id)
{
    return id == cudaLaunchAttributeAccessPolicyWindow ||
           id == cudaLaunchAttributeSynchronizationPolicy || id == cudaLaunchAttributePriority ||
           id == cudaLaunchAttributeMemSyncDomainMap || id == cudaLaunchAttributeMemSyncDomain;
}

static sc_x_sattr *sattr_find(sc_rt_extra *x, uint32_t stream, cudaLaunchAttributeID id)
{
    for (size_t i = 0; x && i < x->nsattrs; i++)
        if (x->sattrs[i].stream == stream && x->sattrs[i].id == id)
            return &x->sattrs[i];
    return NULL;
}

static cudaError_t sattr_put(sc_rt_extra *x, uint32_t stream, cudaLaunchAttributeID id,
                             const cudaLaunchAttributeValue *v)
{
    sc_x_sattr *a = sattr_find(x, stream, id);
    if (!a) {
        if (!grow((void **)&x->sattrs, &x->sattrs_cap, x->nsattrs + 1, sizeof *x->sattrs))
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
    const sc_x_sattr *a = sattr_find(st->extra, sc_rt_stream_id(st, s, ptsz), id);
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
    sc_rt_extra *x = extra_get(st);
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
    sc_rt_extra *x = extra_get(st);
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
