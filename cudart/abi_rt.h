/*
 * abi_rt.h - the runtime half of the stand-in's CUDA 13 ABI: device
 * properties and attributes, pointer attributes, the extensible launch
 * configuration, and the prototype of every runtime function the stand-in
 * implements (the graph API's are in abi_graph.h).
 *
 * The project's own declarations of a public ABI.  Two sections: types,
 * then prototypes.  With SC_CUDART_PROTOTYPES_ONLY defined only the
 * prototypes are declared, so that tests/cudart can include the toolkit's
 * cuda_runtime_api.h first and let the compiler reject any prototype here
 * that differs from CUDA's.
 */
#ifndef SC_CUDART_ABI_RT_H
#define SC_CUDART_ABI_RT_H

#include <stddef.h>

#ifndef SC_CUDART_PROTOTYPES_ONLY
#include "abi_base.h"
#endif

#ifndef SC_RT_EXPORT
#define SC_RT_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifndef SC_CUDART_PROTOTYPES_ONLY
/* ================================================================ types */

typedef struct CUuuid_st {
    char bytes[16];
} cudaUUID_t;

/** One device's properties (CUDA 13 layout, 1008 bytes on LP64). */
struct cudaDeviceProp {
    char name[256];
    cudaUUID_t uuid;
    char luid[8];
    unsigned int luidDeviceNodeMask;
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    int regsPerBlock;
    int warpSize;
    size_t memPitch;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    size_t totalConstMem;
    int major;
    int minor;
    size_t textureAlignment;
    size_t texturePitchAlignment;
    int multiProcessorCount;
    int integrated;
    int canMapHostMemory;
    int maxTexture1D;
    int maxTexture1DMipmap;
    int maxTexture2D[2];
    int maxTexture2DMipmap[2];
    int maxTexture2DLinear[3];
    int maxTexture2DGather[2];
    int maxTexture3D[3];
    int maxTexture3DAlt[3];
    int maxTextureCubemap;
    int maxTexture1DLayered[2];
    int maxTexture2DLayered[3];
    int maxTextureCubemapLayered[2];
    int maxSurface1D;
    int maxSurface2D[2];
    int maxSurface3D[3];
    int maxSurface1DLayered[2];
    int maxSurface2DLayered[3];
    int maxSurfaceCubemap;
    int maxSurfaceCubemapLayered[2];
    size_t surfaceAlignment;
    int concurrentKernels;
    int ECCEnabled;
    int pciBusID;
    int pciDeviceID;
    int pciDomainID;
    int tccDriver;
    int asyncEngineCount;
    int unifiedAddressing;
    int memoryBusWidth;
    int l2CacheSize;
    int persistingL2CacheMaxSize;
    int maxThreadsPerMultiProcessor;
    int streamPrioritiesSupported;
    int globalL1CacheSupported;
    int localL1CacheSupported;
    size_t sharedMemPerMultiprocessor;
    int regsPerMultiprocessor;
    int managedMemory;
    int isMultiGpuBoard;
    int multiGpuBoardGroupID;
    int hostNativeAtomicSupported;
    int pageableMemoryAccess;
    int concurrentManagedAccess;
    int computePreemptionSupported;
    int canUseHostPointerForRegisteredMem;
    int cooperativeLaunch;
    size_t sharedMemPerBlockOptin;
    int pageableMemoryAccessUsesHostPageTables;
    int directManagedMemAccessFromHost;
    int maxBlocksPerMultiProcessor;
    int accessPolicyMaxWindowSize;
    size_t reservedSharedMemPerBlock;
    int hostRegisterSupported;
    int sparseCudaArraySupported;
    int hostRegisterReadOnlySupported;
    int timelineSemaphoreInteropSupported;
    int memoryPoolsSupported;
    int gpuDirectRDMASupported;
    unsigned int gpuDirectRDMAFlushWritesOptions;
    int gpuDirectRDMAWritesOrdering;
    unsigned int memoryPoolSupportedHandleTypes;
    int deferredMappingCudaArraySupported;
    int ipcEventSupported;
    int clusterLaunch;
    int unifiedFunctionPointers;
    int deviceNumaConfig;
    int deviceNumaId;
    int mpsEnabled;
    int hostNumaId;
    unsigned int gpuPciDeviceID;
    unsigned int gpuPciSubsystemID;
    int hostNumaMultinodeIpcSupported;
    int reserved[56];
};

/** The device attributes the stand-in answers, X(name, value). */
#define SC_RT_DEVICE_ATTRS(X)                                                                      \
    X(cudaDevAttrMaxThreadsPerBlock, 1)                                                            \
    X(cudaDevAttrMaxBlockDimX, 2)                                                                  \
    X(cudaDevAttrMaxBlockDimY, 3)                                                                  \
    X(cudaDevAttrMaxBlockDimZ, 4)                                                                  \
    X(cudaDevAttrMaxGridDimX, 5)                                                                   \
    X(cudaDevAttrMaxGridDimY, 6)                                                                   \
    X(cudaDevAttrMaxGridDimZ, 7)                                                                   \
    X(cudaDevAttrMaxSharedMemoryPerBlock, 8)                                                       \
    X(cudaDevAttrTotalConstantMemory, 9)                                                           \
    X(cudaDevAttrWarpSize, 10)                                                                     \
    X(cudaDevAttrMaxPitch, 11)                                                                     \
    X(cudaDevAttrMaxRegistersPerBlock, 12)                                                         \
    X(cudaDevAttrClockRate, 13)                                                                    \
    X(cudaDevAttrTextureAlignment, 14)                                                             \
    X(cudaDevAttrGpuOverlap, 15)                                                                   \
    X(cudaDevAttrMultiProcessorCount, 16)                                                          \
    X(cudaDevAttrKernelExecTimeout, 17)                                                            \
    X(cudaDevAttrIntegrated, 18)                                                                   \
    X(cudaDevAttrCanMapHostMemory, 19)                                                             \
    X(cudaDevAttrComputeMode, 20)                                                                  \
    X(cudaDevAttrConcurrentKernels, 31)                                                            \
    X(cudaDevAttrEccEnabled, 32)                                                                   \
    X(cudaDevAttrPciBusId, 33)                                                                     \
    X(cudaDevAttrPciDeviceId, 34)                                                                  \
    X(cudaDevAttrTccDriver, 35)                                                                    \
    X(cudaDevAttrMemoryClockRate, 36)                                                              \
    X(cudaDevAttrGlobalMemoryBusWidth, 37)                                                         \
    X(cudaDevAttrL2CacheSize, 38)                                                                  \
    X(cudaDevAttrMaxThreadsPerMultiProcessor, 39)                                                  \
    X(cudaDevAttrAsyncEngineCount, 40)                                                             \
    X(cudaDevAttrUnifiedAddressing, 41)                                                            \
    X(cudaDevAttrPciDomainId, 50)                                                                  \
    X(cudaDevAttrComputeCapabilityMajor, 75)                                                       \
    X(cudaDevAttrComputeCapabilityMinor, 76)                                                       \
    X(cudaDevAttrStreamPrioritiesSupported, 78)                                                    \
    X(cudaDevAttrGlobalL1CacheSupported, 79)                                                       \
    X(cudaDevAttrLocalL1CacheSupported, 80)                                                        \
    X(cudaDevAttrMaxSharedMemoryPerMultiprocessor, 81)                                             \
    X(cudaDevAttrMaxRegistersPerMultiprocessor, 82)                                                \
    X(cudaDevAttrManagedMemory, 83)                                                                \
    X(cudaDevAttrIsMultiGpuBoard, 84)                                                              \
    X(cudaDevAttrMultiGpuBoardGroupID, 85)                                                         \
    X(cudaDevAttrHostNativeAtomicSupported, 86)                                                    \
    X(cudaDevAttrPageableMemoryAccess, 88)                                                         \
    X(cudaDevAttrConcurrentManagedAccess, 89)                                                      \
    X(cudaDevAttrComputePreemptionSupported, 90)                                                   \
    X(cudaDevAttrCanUseHostPointerForRegisteredMem, 91)                                            \
    X(cudaDevAttrCooperativeLaunch, 95)                                                            \
    X(cudaDevAttrMaxSharedMemoryPerBlockOptin, 97)                                                 \
    X(cudaDevAttrHostRegisterSupported, 99)                                                        \
    X(cudaDevAttrPageableMemoryAccessUsesHostPageTables, 100)                                      \
    X(cudaDevAttrDirectManagedMemAccessFromHost, 101)                                              \
    X(cudaDevAttrMaxBlocksPerMultiprocessor, 106)                                                  \
    X(cudaDevAttrMaxPersistingL2CacheSize, 108)                                                    \
    X(cudaDevAttrMaxAccessPolicyWindowSize, 109)                                                   \
    X(cudaDevAttrReservedSharedMemoryPerBlock, 111)                                                \
    X(cudaDevAttrMemoryPoolsSupported, 115)                                                        \
    X(cudaDevAttrGPUDirectRDMASupported, 116)                                                      \
    X(cudaDevAttrMemoryPoolSupportedHandleTypes, 119)                                              \
    X(cudaDevAttrClusterLaunch, 120)                                                               \
    X(cudaDevAttrIpcEventSupport, 125)                                                             \
    X(cudaDevAttrMemSyncDomainCount, 126)                                                          \
    X(cudaDevAttrNumaConfig, 130)                                                                  \
    X(cudaDevAttrNumaId, 131)                                                                      \
    X(cudaDevAttrMpsEnabled, 133)                                                                  \
    X(cudaDevAttrHostNumaId, 134)

enum cudaDeviceAttr {
#define SC_RT_ATTR_ENUM(name, value) name = value,
    SC_RT_DEVICE_ATTRS(SC_RT_ATTR_ENUM)
#undef SC_RT_ATTR_ENUM
};

enum cudaMemoryType {
    cudaMemoryTypeUnregistered = 0,
    cudaMemoryTypeHost = 1,
    cudaMemoryTypeDevice = 2,
    cudaMemoryTypeManaged = 3,
};

struct cudaPointerAttributes {
    enum cudaMemoryType type;
    int device;
    void *devicePointer;
    void *hostPointer;
    long reserved[8];
};

/* Shared with the graph half (memory pools, mem alloc nodes): whichever
 * header comes first defines it. */
#ifndef SC_CUDART_MEM_LOCATION_DEFINED
#define SC_CUDART_MEM_LOCATION_DEFINED
enum cudaMemLocationType {
    cudaMemLocationTypeInvalid = 0,
    cudaMemLocationTypeNone = 0,
    cudaMemLocationTypeDevice = 1,
    cudaMemLocationTypeHost = 2,
    cudaMemLocationTypeHostNuma = 3,
    cudaMemLocationTypeHostNumaCurrent = 4,
};

struct cudaMemLocation {
    enum cudaMemLocationType type;
    int id;
};
#endif

/* Shared with the graph half (cudaGraphAddNode, cudaGraphGetEdges): whichever
 * header comes first defines it. */
#ifndef SC_CUDART_EDGE_DATA_DEFINED
#define SC_CUDART_EDGE_DATA_DEFINED
typedef struct cudaGraphEdgeData_st {
    unsigned char from_port;
    unsigned char to_port;
    unsigned char type;
    unsigned char reserved[5];
} cudaGraphEdgeData;
#endif

enum cudaStreamUpdateCaptureDependenciesFlags {
    cudaStreamAddCaptureDependencies = 0x0,
    cudaStreamSetCaptureDependencies = 0x1,
};

typedef enum cudaLaunchAttributeID {
    cudaLaunchAttributeIgnore = 0,
    cudaLaunchAttributeAccessPolicyWindow = 1,
    cudaLaunchAttributeCooperative = 2,
    cudaLaunchAttributeSynchronizationPolicy = 3,
    cudaLaunchAttributeClusterDimension = 4,
    cudaLaunchAttributeClusterSchedulingPolicyPreference = 5,
    cudaLaunchAttributeProgrammaticStreamSerialization = 6,
    cudaLaunchAttributeProgrammaticEvent = 7,
    cudaLaunchAttributePriority = 8,
    cudaLaunchAttributeMemSyncDomainMap = 9,
    cudaLaunchAttributeMemSyncDomain = 10,
    cudaLaunchAttributePreferredClusterDimension = 11,
    cudaLaunchAttributeLaunchCompletionEvent = 12,
    cudaLaunchAttributeDeviceUpdatableKernelNode = 13,
    cudaLaunchAttributePreferredSharedMemoryCarveout = 14,
    cudaLaunchAttributeNvlinkUtilCentricScheduling = 16,
} cudaLaunchAttributeID;

/** A launch attribute's value: 64 bytes; only the members the stand-in
 *  reads are named, the rest is the padding. */
typedef union cudaLaunchAttributeValue {
    char pad[64];
    int cooperative;
    struct {
        unsigned int x;
        unsigned int y;
        unsigned int z;
    } clusterDim;
    struct {
        cudaEvent_t event;
        int flags;
        int triggerAtBlockStart;
    } programmaticEvent;
    int priority;
} cudaLaunchAttributeValue;

typedef struct cudaLaunchAttribute_st {
    cudaLaunchAttributeID id;
    char pad[8 - sizeof(cudaLaunchAttributeID)];
    cudaLaunchAttributeValue val;
} cudaLaunchAttribute;

typedef struct cudaLaunchConfig_st {
    dim3 gridDim;
    dim3 blockDim;
    size_t dynamicSmemBytes;
    cudaStream_t stream;
    cudaLaunchAttribute *attrs;
    unsigned int numAttrs;
} cudaLaunchConfig_t;

/** What nvcc's host code passes to __cudaRegisterFunction. */
typedef struct uint3 {
    unsigned int x, y, z;
} uint3;

/* Device flags and ids (driver_types.h). */
#define cudaDeviceScheduleAuto  0x00
#define cudaDeviceMapHost       0x08
#define cudaCpuDeviceId         ((int)-1)
#define cudaInvalidDeviceId     ((int)-2)
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterMapped  0x02

/* ---- functions, limits, caches, managed memory, user objects, pools */

struct cudaFuncAttributes {
    size_t sharedSizeBytes;
    size_t constSizeBytes;
    size_t localSizeBytes;
    int maxThreadsPerBlock;
    int numRegs;
    int ptxVersion;
    int binaryVersion;
    int cacheModeCA;
    int maxDynamicSharedSizeBytes;
    int preferredShmemCarveout;
    int clusterDimMustBeSet;
    int requiredClusterWidth;
    int requiredClusterHeight;
    int requiredClusterDepth;
    int clusterSchedulingPolicyPreference;
    int nonPortableClusterSizeAllowed;
    int reserved[16];
};

enum cudaFuncAttribute {
    cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
    cudaFuncAttributePreferredSharedMemoryCarveout = 9,
    cudaFuncAttributeClusterDimMustBeSet = 10,
    cudaFuncAttributeRequiredClusterWidth = 11,
    cudaFuncAttributeRequiredClusterHeight = 12,
    cudaFuncAttributeRequiredClusterDepth = 13,
    cudaFuncAttributeNonPortableClusterSizeAllowed = 14,
    cudaFuncAttributeClusterSchedulingPolicyPreference = 15,
    cudaFuncAttributeMax,
};

enum cudaFuncCache {
    cudaFuncCachePreferNone = 0,
    cudaFuncCachePreferShared = 1,
    cudaFuncCachePreferL1 = 2,
    cudaFuncCachePreferEqual = 3,
};

enum cudaSharedMemConfig {
    cudaSharedMemBankSizeDefault = 0,
    cudaSharedMemBankSizeFourByte = 1,
    cudaSharedMemBankSizeEightByte = 2,
};

enum cudaLimit {
    cudaLimitStackSize = 0x00,
    cudaLimitPrintfFifoSize = 0x01,
    cudaLimitMallocHeapSize = 0x02,
    cudaLimitDevRuntimeSyncDepth = 0x03,
    cudaLimitDevRuntimePendingLaunchCount = 0x04,
    cudaLimitMaxL2FetchGranularity = 0x05,
    cudaLimitPersistingL2CacheSize = 0x06,
};

enum cudaMemoryAdvise {
    cudaMemAdviseSetReadMostly = 1,
    cudaMemAdviseUnsetReadMostly = 2,
    cudaMemAdviseSetPreferredLocation = 3,
    cudaMemAdviseUnsetPreferredLocation = 4,
    cudaMemAdviseSetAccessedBy = 5,
    cudaMemAdviseUnsetAccessedBy = 6,
};

enum cudaMemRangeAttribute {
    cudaMemRangeAttributeReadMostly = 1,
    cudaMemRangeAttributePreferredLocation = 2,
    cudaMemRangeAttributeAccessedBy = 3,
    cudaMemRangeAttributeLastPrefetchLocation = 4,
    cudaMemRangeAttributePreferredLocationType = 5,
    cudaMemRangeAttributePreferredLocationId = 6,
    cudaMemRangeAttributeLastPrefetchLocationType = 7,
    cudaMemRangeAttributeLastPrefetchLocationId = 8,
};

enum cudaUserObjectFlags {
    cudaUserObjectNoDestructorSync = 0x1,
};

enum cudaUserObjectRetainFlags {
    cudaGraphUserObjectMove = 0x1,
};

enum cudaMemPoolAttr {
    cudaMemPoolReuseFollowEventDependencies = 0x1,
    cudaMemPoolReuseAllowOpportunistic = 0x2,
    cudaMemPoolReuseAllowInternalDependencies = 0x3,
    cudaMemPoolAttrReleaseThreshold = 0x4,
    cudaMemPoolAttrReservedMemCurrent = 0x5,
    cudaMemPoolAttrReservedMemHigh = 0x6,
    cudaMemPoolAttrUsedMemCurrent = 0x7,
    cudaMemPoolAttrUsedMemHigh = 0x8,
};

/* Stream and kernel-node attributes are launch attributes (driver_types.h). */
#define cudaStreamAttrID                         cudaLaunchAttributeID
#define cudaStreamAttrValue                      cudaLaunchAttributeValue
#define cudaStreamAttributeAccessPolicyWindow    cudaLaunchAttributeAccessPolicyWindow
#define cudaStreamAttributeSynchronizationPolicy cudaLaunchAttributeSynchronizationPolicy
#define cudaStreamAttributeMemSyncDomainMap      cudaLaunchAttributeMemSyncDomainMap
#define cudaStreamAttributeMemSyncDomain         cudaLaunchAttributeMemSyncDomain
#define cudaStreamAttributePriority              cudaLaunchAttributePriority
#define cudaKernelNodeAttrID                     cudaLaunchAttributeID
#define cudaKernelNodeAttrValue                  cudaLaunchAttributeValue
#define cudaKernelNodeAttributeCooperative       cudaLaunchAttributeCooperative
#define cudaKernelNodeAttributePriority          cudaLaunchAttributePriority
#define cudaKernelNodeAttributeClusterDimension  cudaLaunchAttributeClusterDimension

#define cudaOccupancyDefault                0x00
#define cudaOccupancyDisableCachingOverride 0x01
#define cudaMemAttachSingleStream           cudaMemAttachSingle

#endif /* !SC_CUDART_PROTOTYPES_ONLY */

/* =========================================================== prototypes */

/* Device */
SC_RT_EXPORT cudaError_t cudaGetDeviceCount(int *count);
SC_RT_EXPORT cudaError_t cudaSetDevice(int device);
SC_RT_EXPORT cudaError_t cudaGetDevice(int *device);
SC_RT_EXPORT cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags);
SC_RT_EXPORT cudaError_t cudaSetDeviceFlags(unsigned int flags);
SC_RT_EXPORT cudaError_t cudaGetDeviceFlags(unsigned int *flags);
SC_RT_EXPORT cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
SC_RT_EXPORT cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device);
SC_RT_EXPORT cudaError_t cudaDriverGetVersion(int *driverVersion);
SC_RT_EXPORT cudaError_t cudaRuntimeGetVersion(int *runtimeVersion);
SC_RT_EXPORT cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority,
                                                          int *greatestPriority);
SC_RT_EXPORT cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device);
SC_RT_EXPORT cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device);
SC_RT_EXPORT cudaError_t cudaDeviceReset(void);
SC_RT_EXPORT cudaError_t cudaDeviceSynchronize(void);

/* Errors */
SC_RT_EXPORT cudaError_t cudaGetLastError(void);
SC_RT_EXPORT cudaError_t cudaPeekAtLastError(void);
SC_RT_EXPORT const char *cudaGetErrorString(cudaError_t error);
SC_RT_EXPORT const char *cudaGetErrorName(cudaError_t error);

/* Memory */
SC_RT_EXPORT cudaError_t cudaMalloc(void **devPtr, size_t size);
SC_RT_EXPORT cudaError_t cudaFree(void *devPtr);
SC_RT_EXPORT cudaError_t cudaMallocHost(void **ptr, size_t size);
SC_RT_EXPORT cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags);
SC_RT_EXPORT cudaError_t cudaFreeHost(void *ptr);
SC_RT_EXPORT cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags);
SC_RT_EXPORT cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height);
SC_RT_EXPORT cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags);
SC_RT_EXPORT cudaError_t cudaHostUnregister(void *ptr);
SC_RT_EXPORT cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags);
SC_RT_EXPORT cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost);
SC_RT_EXPORT cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream);
SC_RT_EXPORT cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream);
SC_RT_EXPORT cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream);
SC_RT_EXPORT cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream);
SC_RT_EXPORT cudaError_t cudaMemGetInfo(size_t *free, size_t *total);
SC_RT_EXPORT cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
                                                  const void *ptr);
SC_RT_EXPORT cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count,
                                              struct cudaMemLocation location, unsigned int flags,
                                              cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count,
                                                   struct cudaMemLocation location,
                                                   unsigned int flags, cudaStream_t stream);

/* Copies and memsets */
SC_RT_EXPORT cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
                                    enum cudaMemcpyKind kind);
SC_RT_EXPORT cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count,
                                         enum cudaMemcpyKind kind);
SC_RT_EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
                                         enum cudaMemcpyKind kind, cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count,
                                              enum cudaMemcpyKind kind, cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice,
                                        size_t count);
SC_RT_EXPORT cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src,
                                             int srcDevice, size_t count, cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaMemset(void *devPtr, int value, size_t count);
SC_RT_EXPORT cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count);
SC_RT_EXPORT cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count,
                                         cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count,
                                              cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
                                            size_t offset, enum cudaMemcpyKind kind);
SC_RT_EXPORT cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count,
                                              size_t offset, enum cudaMemcpyKind kind);
SC_RT_EXPORT cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                                 size_t offset, enum cudaMemcpyKind kind,
                                                 cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
                                                   size_t offset, enum cudaMemcpyKind kind,
                                                   cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol);
SC_RT_EXPORT cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol);

/* Streams */
SC_RT_EXPORT cudaError_t cudaStreamCreate(cudaStream_t *pStream);
SC_RT_EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags);
SC_RT_EXPORT cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags,
                                                      int priority);
SC_RT_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaStreamQuery(cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags);
SC_RT_EXPORT cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int *flags);
SC_RT_EXPORT cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority);
SC_RT_EXPORT cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t hStream, int *priority);
SC_RT_EXPORT cudaError_t cudaStreamGetId(cudaStream_t hStream, unsigned long long *streamId);
SC_RT_EXPORT cudaError_t cudaStreamGetId_ptsz(cudaStream_t hStream, unsigned long long *streamId);
SC_RT_EXPORT cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int *device);
SC_RT_EXPORT cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t hStream, int *device);
SC_RT_EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                             unsigned int flags);
SC_RT_EXPORT cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event,
                                                  unsigned int flags);
SC_RT_EXPORT cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                               void *userData, unsigned int flags);
SC_RT_EXPORT cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream,
                                                    cudaStreamCallback_t callback, void *userData,
                                                    unsigned int flags);
SC_RT_EXPORT cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData);
SC_RT_EXPORT cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn,
                                                 void *userData);

/* Events */
SC_RT_EXPORT cudaError_t cudaEventCreate(cudaEvent_t *event);
SC_RT_EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
SC_RT_EXPORT cudaError_t cudaEventDestroy(cudaEvent_t event);
SC_RT_EXPORT cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                                  unsigned int flags);
SC_RT_EXPORT cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream,
                                                       unsigned int flags);
SC_RT_EXPORT cudaError_t cudaEventQuery(cudaEvent_t event);
SC_RT_EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t event);
SC_RT_EXPORT cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);

/* Launches */
SC_RT_EXPORT cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                          void **args, size_t sharedMem, cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
                                               void **args, size_t sharedMem, cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func,
                                             void **args);
SC_RT_EXPORT cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config,
                                                  const void *func, void **args);
SC_RT_EXPORT cudaError_t cudaFuncGetName(const char **name, const void *func);

/* Functions and occupancy (rt_func.c), limits and caches (rt_device.c) */
SC_RT_EXPORT cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func);
SC_RT_EXPORT cudaError_t cudaFuncGetParamInfo(const void *func, size_t paramIndex,
                                              size_t *paramOffset, size_t *paramSize);
SC_RT_EXPORT cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr,
                                              int value);
SC_RT_EXPORT cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig);
SC_RT_EXPORT cudaError_t cudaFuncSetSharedMemConfig(const void *func,
                                                    enum cudaSharedMemConfig config);
SC_RT_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
                                                                       const void *func,
                                                                       int blockSize,
                                                                       size_t dynamicSMemSize);
SC_RT_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags);
SC_RT_EXPORT cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
                                                                   const void *func, int numBlocks,
                                                                   int blockSize);
SC_RT_EXPORT cudaError_t cudaOccupancyMaxPotentialClusterSize(
    int *clusterSize, const void *func, const cudaLaunchConfig_t *launchConfig);
SC_RT_EXPORT cudaError_t cudaOccupancyMaxActiveClusters(int *numClusters, const void *func,
                                                        const cudaLaunchConfig_t *launchConfig);
SC_RT_EXPORT cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value);
SC_RT_EXPORT cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit);
SC_RT_EXPORT cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig);
SC_RT_EXPORT cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig);
SC_RT_EXPORT cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *pConfig);
SC_RT_EXPORT cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config);
SC_RT_EXPORT cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice);
SC_RT_EXPORT cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags);
SC_RT_EXPORT cudaError_t cudaDeviceDisablePeerAccess(int peerDevice);
SC_RT_EXPORT cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device);
SC_RT_EXPORT cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId);
SC_RT_EXPORT cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop);
SC_RT_EXPORT cudaError_t cudaProfilerStart(void);
SC_RT_EXPORT cudaError_t cudaProfilerStop(void);
SC_RT_EXPORT cudaError_t cudaCtxResetPersistingL2Cache(void);

/* Managed memory advice (rt_mem.c) */
SC_RT_EXPORT cudaError_t cudaMemAdvise(const void *devPtr, size_t count,
                                       enum cudaMemoryAdvise advice,
                                       struct cudaMemLocation location);
SC_RT_EXPORT cudaError_t cudaMemRangeGetAttribute(void *data, size_t dataSize,
                                                  enum cudaMemRangeAttribute attribute,
                                                  const void *devPtr, size_t count);
SC_RT_EXPORT cudaError_t cudaMemRangeGetAttributes(void **data, size_t *dataSizes,
                                                   enum cudaMemRangeAttribute *attributes,
                                                   size_t numAttributes, const void *devPtr,
                                                   size_t count);
SC_RT_EXPORT cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length,
                                                  unsigned int flags);
SC_RT_EXPORT cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void *devPtr,
                                                       size_t length, unsigned int flags);

/* Pitched copies and memsets (rt_pitched.c): one memcpy / memset node of the
 * total size in capture.  The structs are abi_graph.h's. */
struct cudaPitchedPtr;
struct cudaExtent;
struct cudaMemcpy3DParms;
SC_RT_EXPORT cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                      size_t width, size_t height, enum cudaMemcpyKind kind);
SC_RT_EXPORT cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch,
                                           size_t width, size_t height, enum cudaMemcpyKind kind);
SC_RT_EXPORT cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                           size_t width, size_t height, enum cudaMemcpyKind kind,
                                           cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src,
                                                size_t spitch, size_t width, size_t height,
                                                enum cudaMemcpyKind kind, cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width,
                                      size_t height);
SC_RT_EXPORT cudaError_t cudaMemset2D_ptds(void *devPtr, size_t pitch, int value, size_t width,
                                           size_t height);
SC_RT_EXPORT cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                                           size_t height, cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch, int value, size_t width,
                                                size_t height, cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p);
SC_RT_EXPORT cudaError_t cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *p);
SC_RT_EXPORT cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *p,
                                                cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value,
                                      struct cudaExtent extent);
SC_RT_EXPORT cudaError_t cudaMemset3D_ptds(struct cudaPitchedPtr pitchedDevPtr, int value,
                                           struct cudaExtent extent);
SC_RT_EXPORT cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value,
                                           struct cudaExtent extent, cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaMemset3DAsync_ptsz(struct cudaPitchedPtr pitchedDevPtr, int value,
                                                struct cudaExtent extent, cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr,
                                      struct cudaExtent extent);
SC_RT_EXPORT cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count,
                                                 size_t offset, enum cudaMemcpyKind kind);
SC_RT_EXPORT cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count,
                                                   size_t offset, enum cudaMemcpyKind kind);
SC_RT_EXPORT cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src,
                                                      size_t count, size_t offset,
                                                      enum cudaMemcpyKind kind,
                                                      cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count,
                                                        size_t offset, enum cudaMemcpyKind kind,
                                                        cudaStream_t stream);

/* Cooperative launches (rt_func.c) and stream attributes (rt_stream_attr.c) */
SC_RT_EXPORT cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                                     void **args, size_t sharedMem,
                                                     cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 gridDim,
                                                          dim3 blockDim, void **args,
                                                          size_t sharedMem, cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaStreamGetAttribute(cudaStream_t hStream, cudaLaunchAttributeID attr,
                                                cudaLaunchAttributeValue *value_out);
SC_RT_EXPORT cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t hStream,
                                                     cudaLaunchAttributeID attr,
                                                     cudaLaunchAttributeValue *value_out);
SC_RT_EXPORT cudaError_t cudaStreamSetAttribute(cudaStream_t hStream, cudaLaunchAttributeID attr,
                                                const cudaLaunchAttributeValue *value);
SC_RT_EXPORT cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t hStream,
                                                     cudaLaunchAttributeID attr,
                                                     const cudaLaunchAttributeValue *value);
SC_RT_EXPORT cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src);
SC_RT_EXPORT cudaError_t cudaStreamCopyAttributes_ptsz(cudaStream_t dst, cudaStream_t src);

/* Kernel node attributes (graph_attr.c; here for the launch attribute
 * types): values kept per node, copied with it. */
SC_RT_EXPORT cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t hNode,
                                                         cudaLaunchAttributeID attr,
                                                         cudaLaunchAttributeValue *value_out);
SC_RT_EXPORT cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t hNode,
                                                         cudaLaunchAttributeID attr,
                                                         const cudaLaunchAttributeValue *value);
SC_RT_EXPORT cudaError_t cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t hDst,
                                                           cudaGraphNode_t hSrc);

/* Stream capture */
SC_RT_EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t stream,
                                                enum cudaStreamCaptureMode mode);
SC_RT_EXPORT cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream,
                                                     enum cudaStreamCaptureMode mode);
SC_RT_EXPORT cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                                       const cudaGraphNode_t *dependencies,
                                                       const cudaGraphEdgeData *dependencyData,
                                                       size_t numDependencies,
                                                       enum cudaStreamCaptureMode mode);
SC_RT_EXPORT cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t stream, cudaGraph_t graph,
                                                            const cudaGraphNode_t *dependencies,
                                                            const cudaGraphEdgeData *dependencyData,
                                                            size_t numDependencies,
                                                            enum cudaStreamCaptureMode mode);
SC_RT_EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph);
SC_RT_EXPORT cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph);
SC_RT_EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                               enum cudaStreamCaptureStatus *pCaptureStatus);
SC_RT_EXPORT cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                                    enum cudaStreamCaptureStatus *pCaptureStatus);
SC_RT_EXPORT cudaError_t cudaStreamGetCaptureInfo(
    cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
    unsigned long long *id_out, cudaGraph_t *graph_out, const cudaGraphNode_t **dependencies_out,
    const cudaGraphEdgeData **edgeData_out, size_t *numDependencies_out);
SC_RT_EXPORT cudaError_t cudaStreamGetCaptureInfo_ptsz(
    cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
    unsigned long long *id_out, cudaGraph_t *graph_out, const cudaGraphNode_t **dependencies_out,
    const cudaGraphEdgeData **edgeData_out, size_t *numDependencies_out);
SC_RT_EXPORT cudaError_t cudaStreamUpdateCaptureDependencies(
    cudaStream_t stream, cudaGraphNode_t *dependencies, const cudaGraphEdgeData *dependencyData,
    size_t numDependencies, unsigned int flags);
SC_RT_EXPORT cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(
    cudaStream_t stream, cudaGraphNode_t *dependencies, const cudaGraphEdgeData *dependencyData,
    size_t numDependencies, unsigned int flags);
SC_RT_EXPORT cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode);

#ifndef SC_CUDART_PROTOTYPES_ONLY
/* Entry points of nvcc-generated host code (crt/host_runtime.h); not in
 * cuda_runtime_api.h, so outside the prototype check. */
SC_RT_EXPORT void **__cudaRegisterFatBinary(void *fatCubin);
SC_RT_EXPORT void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
SC_RT_EXPORT void __cudaUnregisterFatBinary(void **fatCubinHandle);
SC_RT_EXPORT void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun,
                                         char *deviceFun, const char *deviceName, int thread_limit,
                                         uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim,
                                         int *wSize);
SC_RT_EXPORT void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                                    const char *deviceName, int ext, size_t size, int constant,
                                    int global);
SC_RT_EXPORT void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
                                           char *deviceAddress, const char *deviceName, int ext,
                                           size_t size, int constant, int global);
SC_RT_EXPORT char __cudaInitModule(void **fatCubinHandle);
SC_RT_EXPORT unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                                  struct CUstream_st *stream);
SC_RT_EXPORT cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim,
                                                    size_t *sharedMem, void *stream);
SC_RT_EXPORT cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *func);
SC_RT_EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                            void **args, size_t sharedMem, cudaStream_t stream);
SC_RT_EXPORT cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                                 void **args, size_t sharedMem,
                                                 cudaStream_t stream);
#endif

/* Memory pools: their property and access types are the graph half's (mem
 * alloc nodes carry them). */
#ifndef SC_CUDART_PROTOTYPES_ONLY
#ifdef __cplusplus
}
#endif
#include "abi_graph.h"
#ifdef __cplusplus
extern "C" {
#endif
#endif
SC_RT_EXPORT cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool);
SC_RT_EXPORT cudaError_t cudaMemGetDefaultMemPool(cudaMemPool_t *memPool,
                                                  struct cudaMemLocation *location,
                                                  enum cudaMemAllocationType type);
SC_RT_EXPORT cudaError_t cudaMemGetMemPool(cudaMemPool_t *memPool, struct cudaMemLocation *location,
                                           enum cudaMemAllocationType type);
SC_RT_EXPORT cudaError_t cudaMemSetMemPool(struct cudaMemLocation *location,
                                           enum cudaMemAllocationType type, cudaMemPool_t memPool);
SC_RT_EXPORT cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool,
                                           const struct cudaMemPoolProps *poolProps);
SC_RT_EXPORT cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool);
SC_RT_EXPORT cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                                 void *value);
SC_RT_EXPORT cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                                 void *value);
SC_RT_EXPORT cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep);
SC_RT_EXPORT cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool,
                                              const struct cudaMemAccessDesc *descList,
                                              size_t count);
SC_RT_EXPORT cudaError_t cudaMemPoolGetAccess(enum cudaMemAccessFlags *flags, cudaMemPool_t memPool,
                                              struct cudaMemLocation *location);
SC_RT_EXPORT cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
                                                 cudaStream_t stream);
SC_RT_EXPORT cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size,
                                                      cudaMemPool_t memPool, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
