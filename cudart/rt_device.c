/*
 * rt_device.c - the one emulated device: a current datacenter GPU's
 * properties and attributes, memory pools reported supported.
 */
#include <string.h>

#include "rt_int.h"

#define SC_RT_TOTAL_MEM ((size_t)80 << 30)

static void device_props(struct cudaDeviceProp *p)
{
    memset(p, 0, sizeof *p);
    strcpy(p->name, "streamcap emulated GPU (sm_90)");
    memcpy(p->uuid.bytes, "streamcap-cudart", 16);
    p->totalGlobalMem = SC_RT_TOTAL_MEM;
    p->sharedMemPerBlock = 48 << 10;
    p->regsPerBlock = 65536;
    p->warpSize = 32;
    p->memPitch = 2147483647;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = 1024;
    p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 2147483647;
    p->maxGridSize[1] = 65535;
    p->maxGridSize[2] = 65535;
    p->totalConstMem = 64 << 10;
    p->major = 9;
    p->minor = 0;
    p->textureAlignment = 512;
    p->texturePitchAlignment = 32;
    p->multiProcessorCount = 132;
    p->canMapHostMemory = 1;
    p->maxTexture1D = 131072;
    p->surfaceAlignment = 512;
    p->concurrentKernels = 1;
    p->ECCEnabled = 1;
    p->pciBusID = 1;
    p->tccDriver = 0;
    p->asyncEngineCount = 3;
    p->unifiedAddressing = 1;
    p->memoryBusWidth = 5120;
    p->l2CacheSize = 50 << 20;
    p->persistingL2CacheMaxSize = 30 << 20;
    p->maxThreadsPerMultiProcessor = 2048;
    p->streamPrioritiesSupported = 1;
    p->globalL1CacheSupported = 1;
    p->localL1CacheSupported = 1;
    p->sharedMemPerMultiprocessor = 228 << 10;
    p->regsPerMultiprocessor = 65536;
    p->managedMemory = 1;
    p->hostNativeAtomicSupported = 0;
    p->pageableMemoryAccess = 0;
    p->concurrentManagedAccess = 1;
    p->computePreemptionSupported = 1;
    p->canUseHostPointerForRegisteredMem = 1;
    p->cooperativeLaunch = 1;
    p->sharedMemPerBlockOptin = 227 << 10;
    p->directManagedMemAccessFromHost = 0;
    p->maxBlocksPerMultiProcessor = 32;
    p->accessPolicyMaxWindowSize = 128 << 20;
    p->reservedSharedMemPerBlock = 1 << 10;
    p->hostRegisterSupported = 1;
    p->timelineSemaphoreInteropSupported = 1;
    p->memoryPoolsSupported = 1;
    p->memoryPoolSupportedHandleTypes = 1;
    p->ipcEventSupported = 1;
    p->clusterLaunch = 1;
    p->deviceNumaConfig = 0;
    p->deviceNumaId = -1;
    p->hostNumaId = -1;
    p->gpuPciDeviceID = 0x233010de;
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

static int attr_value(const struct cudaDeviceProp *p, enum cudaDeviceAttr a, int *v)
{
    switch (a) {
    case cudaDevAttrMaxThreadsPerBlock:
        *v = p->maxThreadsPerBlock;
        break;
    case cudaDevAttrMaxBlockDimX:
        *v = p->maxThreadsDim[0];
        break;
    case cudaDevAttrMaxBlockDimY:
        *v = p->maxThreadsDim[1];
        break;
    case cudaDevAttrMaxBlockDimZ:
        *v = p->maxThreadsDim[2];
        break;
    case cudaDevAttrMaxGridDimX:
        *v = p->maxGridSize[0];
        break;
    case cudaDevAttrMaxGridDimY:
        *v = p->maxGridSize[1];
        break;
    case cudaDevAttrMaxGridDimZ:
        *v = p->maxGridSize[2];
        break;
    case cudaDevAttrMaxSharedMemoryPerBlock:
        *v = (int)p->sharedMemPerBlock;
        break;
    case cudaDevAttrTotalConstantMemory:
        *v = (int)p->totalConstMem;
        break;
    case cudaDevAttrWarpSize:
        *v = p->warpSize;
        break;
    case cudaDevAttrMaxPitch:
        *v = (int)p->memPitch;
        break;
    case cudaDevAttrMaxRegistersPerBlock:
        *v = p->regsPerBlock;
        break;
    case cudaDevAttrClockRate:
        *v = 1980000;
        break;
    case cudaDevAttrTextureAlignment:
        *v = (int)p->textureAlignment;
        break;
    case cudaDevAttrGpuOverlap:
        *v = 1;
        break;
    case cudaDevAttrMultiProcessorCount:
        *v = p->multiProcessorCount;
        break;
    case cudaDevAttrKernelExecTimeout:
        *v = 0;
        break;
    case cudaDevAttrIntegrated:
        *v = p->integrated;
        break;
    case cudaDevAttrCanMapHostMemory:
        *v = p->canMapHostMemory;
        break;
    case cudaDevAttrComputeMode:
        *v = 0;
        break;
    case cudaDevAttrConcurrentKernels:
        *v = p->concurrentKernels;
        break;
    case cudaDevAttrEccEnabled:
        *v = p->ECCEnabled;
        break;
    case cudaDevAttrPciBusId:
        *v = p->pciBusID;
        break;
    case cudaDevAttrPciDeviceId:
        *v = p->pciDeviceID;
        break;
    case cudaDevAttrTccDriver:
        *v = p->tccDriver;
        break;
    case cudaDevAttrMemoryClockRate:
        *v = 2619000;
        break;
    case cudaDevAttrGlobalMemoryBusWidth:
        *v = p->memoryBusWidth;
        break;
    case cudaDevAttrL2CacheSize:
        *v = p->l2CacheSize;
        break;
    case cudaDevAttrMaxThreadsPerMultiProcessor:
        *v = p->maxThreadsPerMultiProcessor;
        break;
    case cudaDevAttrAsyncEngineCount:
        *v = p->asyncEngineCount;
        break;
    case cudaDevAttrUnifiedAddressing:
        *v = p->unifiedAddressing;
        break;
    case cudaDevAttrPciDomainId:
        *v = p->pciDomainID;
        break;
    case cudaDevAttrComputeCapabilityMajor:
        *v = p->major;
        break;
    case cudaDevAttrComputeCapabilityMinor:
        *v = p->minor;
        break;
    case cudaDevAttrStreamPrioritiesSupported:
        *v = p->streamPrioritiesSupported;
        break;
    case cudaDevAttrGlobalL1CacheSupported:
        *v = p->globalL1CacheSupported;
        break;
    case cudaDevAttrLocalL1CacheSupported:
        *v = p->localL1CacheSupported;
        break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
        *v = (int)p->sharedMemPerMultiprocessor;
        break;
    case cudaDevAttrMaxRegistersPerMultiprocessor:
        *v = p->regsPerMultiprocessor;
        break;
    case cudaDevAttrManagedMemory:
        *v = p->managedMemory;
        break;
    case cudaDevAttrIsMultiGpuBoard:
        *v = p->isMultiGpuBoard;
        break;
    case cudaDevAttrMultiGpuBoardGroupID:
        *v = p->multiGpuBoardGroupID;
        break;
    case cudaDevAttrHostNativeAtomicSupported:
        *v = p->hostNativeAtomicSupported;
        break;
    case cudaDevAttrPageableMemoryAccess:
        *v = p->pageableMemoryAccess;
        break;
    case cudaDevAttrConcurrentManagedAccess:
        *v = p->concurrentManagedAccess;
        break;
    case cudaDevAttrComputePreemptionSupported:
        *v = p->computePreemptionSupported;
        break;
    case cudaDevAttrCanUseHostPointerForRegisteredMem:
        *v = p->canUseHostPointerForRegisteredMem;
        break;
    case cudaDevAttrCooperativeLaunch:
        *v = p->cooperativeLaunch;
        break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin:
        *v = (int)p->sharedMemPerBlockOptin;
        break;
    case cudaDevAttrHostRegisterSupported:
        *v = p->hostRegisterSupported;
        break;
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables:
        *v = p->pageableMemoryAccessUsesHostPageTables;
        break;
    case cudaDevAttrDirectManagedMemAccessFromHost:
        *v = p->directManagedMemAccessFromHost;
        break;
    case cudaDevAttrMaxBlocksPerMultiprocessor:
        *v = p->maxBlocksPerMultiProcessor;
        break;
    case cudaDevAttrMaxPersistingL2CacheSize:
        *v = p->persistingL2CacheMaxSize;
        break;
    case cudaDevAttrMaxAccessPolicyWindowSize:
        *v = p->accessPolicyMaxWindowSize;
        break;
    case cudaDevAttrReservedSharedMemoryPerBlock:
        *v = (int)p->reservedSharedMemPerBlock;
        break;
    case cudaDevAttrMemoryPoolsSupported:
        *v = p->memoryPoolsSupported;
        break;
    case cudaDevAttrGPUDirectRDMASupported:
        *v = p->gpuDirectRDMASupported;
        break;
    case cudaDevAttrMemoryPoolSupportedHandleTypes:
        *v = (int)p->memoryPoolSupportedHandleTypes;
        break;
    case cudaDevAttrClusterLaunch:
        *v = p->clusterLaunch;
        break;
    case cudaDevAttrIpcEventSupport:
        *v = p->ipcEventSupported;
        break;
    case cudaDevAttrMemSyncDomainCount:
        *v = 4;
        break;
    case cudaDevAttrNumaConfig:
        *v = p->deviceNumaConfig;
        break;
    case cudaDevAttrNumaId:
        *v = p->deviceNumaId;
        break;
    case cudaDevAttrMpsEnabled:
        *v = p->mpsEnabled;
        break;
    case cudaDevAttrHostNumaId:
        *v = p->hostNumaId;
        break;
    default:
        return -1;
    }
    return 0;
}

SC_RT_EXPORT cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    SC_RT_ENTER();
    if (!value)
        SC_RT_RETURN(cudaErrorInvalidValue);
    if (device != 0)
        SC_RT_RETURN(cudaErrorInvalidDevice);
    struct cudaDeviceProp p;
    device_props(&p);
    if (attr_value(&p, attr, value) != 0)
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
    size_t used = st->device_bytes < SC_RT_TOTAL_MEM ? st->device_bytes : SC_RT_TOTAL_MEM;
    SC_RT_UNLOCK();
    if (free_bytes)
        *free_bytes = SC_RT_TOTAL_MEM - used;
    if (total)
        *total = SC_RT_TOTAL_MEM;
    SC_RT_RETURN(cudaSuccess);
}
