/*
 * rt_device.c - the one emulated device: a current datacenter GPU's
 * properties and attributes, memory pools reported supported.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <limits.h>
#include <string.h>

#include "rt_int.h"

/*
 * The emulated device, one row per property or attribute: the
 * cudaDeviceAttr that reads it (SC_RT_NO_ATTR: none), the member of
 * struct cudaDeviceProp that holds it (none for the attributes that have
 * no member) and its value.  cudaGetDeviceProperties and
 * cudaDeviceGetAttribute both read this table, so the two never disagree;
 * a member no row names is 0.
 */
typedef struct sc_rt_dev_row {
    int attr;      /* enum cudaDeviceAttr, or SC_RT_NO_ATTR */
    size_t offset; /* in struct cudaDeviceProp, or SC_RT_NO_FIELD */
    size_t size;   /* of that member: an int or a size_t */
    long long value;
} sc_rt_dev_row;

#define SC_RT_NO_ATTR  (-1)
#define SC_RT_NO_FIELD SIZE_MAX
#define PROP(member)                                                                               \
    offsetof(struct cudaDeviceProp, member), sizeof(((struct cudaDeviceProp *)0)->member)
#define NO_PROP SC_RT_NO_FIELD, 0
/* A value the emulated device gives (rt_devices.c): the field's offset,
 * encoded far below any real value. */
#define SC_RT_DEV_BASE (LLONG_MIN / 2)
#define DEV(field)     (SC_RT_DEV_BASE + (long long)offsetof(sc_rt_devspec, field))

static const sc_rt_dev_row g_device[] = {
    {SC_RT_NO_ATTR, PROP(totalGlobalMem), DEV(total_mem)},
    {cudaDevAttrMaxSharedMemoryPerBlock, PROP(sharedMemPerBlock), SC_RT_DEV_SMEM_DEFAULT},
    {cudaDevAttrMaxRegistersPerBlock, PROP(regsPerBlock), 65536},
    {cudaDevAttrWarpSize, PROP(warpSize), 32},
    {cudaDevAttrMaxPitch, PROP(memPitch), 2147483647},
    {cudaDevAttrMaxThreadsPerBlock, PROP(maxThreadsPerBlock), 1024},
    {cudaDevAttrMaxBlockDimX, PROP(maxThreadsDim[0]), 1024},
    {cudaDevAttrMaxBlockDimY, PROP(maxThreadsDim[1]), 1024},
    {cudaDevAttrMaxBlockDimZ, PROP(maxThreadsDim[2]), 64},
    {cudaDevAttrMaxGridDimX, PROP(maxGridSize[0]), 2147483647},
    {cudaDevAttrMaxGridDimY, PROP(maxGridSize[1]), 65535},
    {cudaDevAttrMaxGridDimZ, PROP(maxGridSize[2]), 65535},
    {cudaDevAttrTotalConstantMemory, PROP(totalConstMem), 64 << 10},
    {cudaDevAttrComputeCapabilityMajor, PROP(major), DEV(major)},
    {cudaDevAttrComputeCapabilityMinor, PROP(minor), DEV(minor)},
    {cudaDevAttrTextureAlignment, PROP(textureAlignment), 512},
    {SC_RT_NO_ATTR, PROP(texturePitchAlignment), 32},
    {cudaDevAttrMultiProcessorCount, PROP(multiProcessorCount), DEV(sms)},
    {cudaDevAttrCanMapHostMemory, PROP(canMapHostMemory), 1},
    {SC_RT_NO_ATTR, PROP(maxTexture1D), 131072},
    {SC_RT_NO_ATTR, PROP(surfaceAlignment), 512},
    {cudaDevAttrConcurrentKernels, PROP(concurrentKernels), 1},
    {cudaDevAttrEccEnabled, PROP(ECCEnabled), 1},
    {cudaDevAttrPciBusId, PROP(pciBusID), 1},
    {cudaDevAttrTccDriver, PROP(tccDriver), 0},
    {cudaDevAttrAsyncEngineCount, PROP(asyncEngineCount), 3},
    {cudaDevAttrUnifiedAddressing, PROP(unifiedAddressing), 1},
    {cudaDevAttrGlobalMemoryBusWidth, PROP(memoryBusWidth), DEV(bus_width)},
    {cudaDevAttrL2CacheSize, PROP(l2CacheSize), DEV(l2)},
    {cudaDevAttrMaxPersistingL2CacheSize, PROP(persistingL2CacheMaxSize), DEV(persisting_l2max)},
    {cudaDevAttrMaxThreadsPerMultiProcessor, PROP(maxThreadsPerMultiProcessor),
     DEV(threads_per_sm)},
    {cudaDevAttrStreamPrioritiesSupported, PROP(streamPrioritiesSupported), 1},
    {cudaDevAttrGlobalL1CacheSupported, PROP(globalL1CacheSupported), 1},
    {cudaDevAttrLocalL1CacheSupported, PROP(localL1CacheSupported), 1},
    {cudaDevAttrMaxSharedMemoryPerMultiprocessor, PROP(sharedMemPerMultiprocessor),
     DEV(smem_per_sm)},
    {cudaDevAttrMaxRegistersPerMultiprocessor, PROP(regsPerMultiprocessor), 65536},
    {cudaDevAttrManagedMemory, PROP(managedMemory), 1},
    {cudaDevAttrHostNativeAtomicSupported, PROP(hostNativeAtomicSupported), 0},
    {cudaDevAttrPageableMemoryAccess, PROP(pageableMemoryAccess), 0},
    {cudaDevAttrConcurrentManagedAccess, PROP(concurrentManagedAccess), 1},
    {cudaDevAttrComputePreemptionSupported, PROP(computePreemptionSupported), 1},
    {cudaDevAttrCanUseHostPointerForRegisteredMem, PROP(canUseHostPointerForRegisteredMem), 1},
    {cudaDevAttrCooperativeLaunch, PROP(cooperativeLaunch), 1},
    {cudaDevAttrMaxSharedMemoryPerBlockOptin, PROP(sharedMemPerBlockOptin), DEV(smem_optin)},
    {cudaDevAttrDirectManagedMemAccessFromHost, PROP(directManagedMemAccessFromHost), 0},
    {cudaDevAttrMaxBlocksPerMultiprocessor, PROP(maxBlocksPerMultiProcessor), DEV(blocks_per_sm)},
    {cudaDevAttrMaxAccessPolicyWindowSize, PROP(accessPolicyMaxWindowSize), 128 << 20},
    {cudaDevAttrReservedSharedMemoryPerBlock, PROP(reservedSharedMemPerBlock), DEV(smem_reserved)},
    {cudaDevAttrHostRegisterSupported, PROP(hostRegisterSupported), 1},
    {SC_RT_NO_ATTR, PROP(timelineSemaphoreInteropSupported), 1},
    {cudaDevAttrMemoryPoolsSupported, PROP(memoryPoolsSupported), 1},
    {cudaDevAttrMemoryPoolSupportedHandleTypes, PROP(memoryPoolSupportedHandleTypes), 1},
    {cudaDevAttrIpcEventSupport, PROP(ipcEventSupported), 1},
    {cudaDevAttrClusterLaunch, PROP(clusterLaunch), 1},
    {cudaDevAttrNumaConfig, PROP(deviceNumaConfig), 0},
    {cudaDevAttrNumaId, PROP(deviceNumaId), -1},
    {cudaDevAttrHostNumaId, PROP(hostNumaId), -1},
    {SC_RT_NO_ATTR, PROP(gpuPciDeviceID), 0x233010de},
    /* Members left 0, read by their attributes. */
    {cudaDevAttrIntegrated, PROP(integrated), 0},
    {cudaDevAttrPciDeviceId, PROP(pciDeviceID), 0},
    {cudaDevAttrPciDomainId, PROP(pciDomainID), 0},
    {cudaDevAttrIsMultiGpuBoard, PROP(isMultiGpuBoard), 0},
    {cudaDevAttrMultiGpuBoardGroupID, PROP(multiGpuBoardGroupID), 0},
    {cudaDevAttrPageableMemoryAccessUsesHostPageTables,
     PROP(pageableMemoryAccessUsesHostPageTables), 0},
    {cudaDevAttrGPUDirectRDMASupported, PROP(gpuDirectRDMASupported), 0},
    {cudaDevAttrMpsEnabled, PROP(mpsEnabled), 0},
    /* Attributes with no member in struct cudaDeviceProp. */
    {cudaDevAttrClockRate, NO_PROP, DEV(clock_khz)},
    {cudaDevAttrGpuOverlap, NO_PROP, 1},
    {cudaDevAttrKernelExecTimeout, NO_PROP, 0},
    {cudaDevAttrComputeMode, NO_PROP, 0},
    {cudaDevAttrMemoryClockRate, NO_PROP, DEV(mem_clock_khz)},
    {cudaDevAttrMemSyncDomainCount, NO_PROP, 4},
};
#define SC_RT_NDEVICE (sizeof g_device / sizeof *g_device)

static long long row_value(const sc_rt_dev_row *r)
{
    if (r->value < SC_RT_DEV_BASE || r->value >= SC_RT_DEV_BASE + (long long)sizeof(sc_rt_devspec))
        return r->value;
    long long v;
    memcpy(&v, (const char *)sc_rt_dev() + (r->value - SC_RT_DEV_BASE), sizeof v);
    return v;
}

static void device_props(struct cudaDeviceProp *p)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", sc_rt_dev()->name);
    memcpy(p->uuid.bytes, "streamcap-cudart", 16);
    for (size_t i = 0; i < SC_RT_NDEVICE; i++) {
        const sc_rt_dev_row *r = &g_device[i];
        char *at = (char *)p + r->offset;
        if (r->offset == SC_RT_NO_FIELD)
            continue;
        if (r->size == sizeof(size_t)) {
            size_t v = (size_t)row_value(r);
            memcpy(at, &v, sizeof v);
        } else {
            int v = (int)row_value(r);
            memcpy(at, &v, sizeof v);
        }
    }
}

/* The attribute's value, as CUDA gives it: an int. */
static int attr_value(enum cudaDeviceAttr a, int *v)
{
    for (size_t i = 0; i < SC_RT_NDEVICE; i++) {
        if (g_device[i].attr == (int)a) {
            *v = (int)row_value(&g_device[i]);
            return 0;
        }
    }
    return -1;
}

SC_RT_EXPORT cudaError_t cudaGetDeviceCount(int *count)
{
    SC_RT_ENTER();
    if (!count)
        SC_RT_RETURN(cudaErrorInvalidValue);
    *count = 1;
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaSetDevice(int device)
{
    SC_RT_ENTER();
    (void)sc_rt_state_get();
    SC_RT_RETURN(device == 0 ? cudaSuccess : cudaErrorInvalidDevice);
}

SC_RT_EXPORT cudaError_t cudaGetDevice(int *device)
{
    SC_RT_ENTER();
    if (!device)
        SC_RT_RETURN(cudaErrorInvalidValue);
    *device = 0;
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags)
{
    SC_RT_ENTER();
    (void)deviceFlags;
    (void)flags;
    SC_RT_RETURN(cudaSetDevice(device));
}

SC_RT_EXPORT cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    SC_RT_ENTER();
    sc_rt_state *st = SC_RT_LOCK();
    st->device_flags = (int)flags;
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    SC_RT_ENTER();
    if (!flags)
        SC_RT_RETURN(cudaErrorInvalidValue);
    sc_rt_state *st = SC_RT_LOCK();
    *flags = (unsigned int)st->device_flags | cudaDeviceMapHost;
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    SC_RT_ENTER();
    if (!prop)
        SC_RT_RETURN(cudaErrorInvalidValue);
    if (device != 0)
        SC_RT_RETURN(cudaErrorInvalidDevice);
    device_props(prop);
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    SC_RT_ENTER();
    if (!value)
        SC_RT_RETURN(cudaErrorInvalidValue);
    if (device != 0)
        SC_RT_RETURN(cudaErrorInvalidDevice);
    if (attr_value(attr, value) != 0)
        SC_RT_RETURN(cudaErrorInvalidValue);
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaDriverGetVersion(int *driverVersion)
{
    SC_RT_ENTER();
    if (!driverVersion)
        SC_RT_RETURN(cudaErrorInvalidValue);
    *driverVersion = 13000;
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
    SC_RT_ENTER();
    if (!runtimeVersion)
        SC_RT_RETURN(cudaErrorInvalidValue);
    *runtimeVersion = 13000;
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    SC_RT_ENTER();
    if (leastPriority)
        *leastPriority = 0;
    if (greatestPriority)
        *greatestPriority = -5;
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaDeviceReset(void)
{
    SC_RT_ENTER();
    /* The device context's streams and events go with it, as in CUDA; a
     * handle used afterwards is the program's error. */
    sc_rt_state *st = SC_RT_LOCK();
    sc_rt_handles_reset(st);
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaDeviceSynchronize(void)
{
    SC_RT_ENTER();
    sc_rt_state *st = SC_RT_LOCK();
    cudaError_t e = sc_rt_host(st, SC_CUDA_HOST_DEVICE_SYNC, 0, 0, "cudaDeviceSynchronize");
    SC_RT_RETURN(e);
}

SC_RT_EXPORT cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    SC_RT_ENTER();
    sc_rt_state *st = SC_RT_LOCK();
    size_t used = st->device_bytes < SC_RT_DEV_TOTAL_MEM ? st->device_bytes : SC_RT_DEV_TOTAL_MEM;
    SC_RT_UNLOCK();
    if (free_bytes)
        *free_bytes = SC_RT_DEV_TOTAL_MEM - used;
    if (total)
        *total = SC_RT_DEV_TOTAL_MEM;
    SC_RT_RETURN(cudaSuccess);
}

/* ----------------------------------------------------- limits and caches */

#define SC_X_NLIMITS (cudaLimitPersistingL2CacheSize + 1)

/* What cudaDeviceSetLimit, cudaDeviceSetCacheConfig and
 * cudaDeviceSetSharedMemConfig changed. */
struct sc_rt_limits {
    size_t limits[SC_X_NLIMITS];
    enum cudaFuncCache cache;
    enum cudaSharedMemConfig shmem;
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
static sc_rt_limits *limits_get(sc_rt_state *st)
{
    if (!st->limits) {
        sc_rt_limits *x = calloc(1, sizeof *x);
        if (!x)
            return NULL;
        memcpy(x->limits, g_limit_defaults, sizeof x->limits);
        st->limits = x;
    }
    return st->limits;
}

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
    sc_rt_limits *x = limits_get(st);
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
    *pValue = st->limits ? st->limits->limits[limit] : g_limit_defaults[limit];
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig)
{
    SC_RT_ENTER();
    if (!pCacheConfig)
        SC_RT_RETURN(cudaErrorInvalidValue);
    sc_rt_state *st = SC_RT_LOCK();
    *pCacheConfig = st->limits ? st->limits->cache : cudaFuncCachePreferNone;
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig)
{
    SC_RT_ENTER();
    if ((unsigned)cacheConfig > cudaFuncCachePreferEqual)
        SC_RT_RETURN(cudaErrorInvalidValue);
    sc_rt_state *st = SC_RT_LOCK();
    sc_rt_limits *x = limits_get(st);
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
    *pConfig = st->limits && st->limits->shmem ? st->limits->shmem : cudaSharedMemBankSizeFourByte;
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config)
{
    SC_RT_ENTER();
    if ((unsigned)config > cudaSharedMemBankSizeEightByte)
        SC_RT_RETURN(cudaErrorInvalidValue);
    sc_rt_state *st = SC_RT_LOCK();
    sc_rt_limits *x = limits_get(st);
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
