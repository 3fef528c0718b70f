/*
 * abi_array.h - CUDA arrays and mipmapped arrays and the copies to and
 * from them (cudart/rt_array.c), texture and surface objects
 * (rt_texture.c), kernel handles and driver entry points (rt_entry.c),
 * libraries loaded at run time (rt_library.c): the
 * subset of driver_types.h and cuda_runtime_api.h the stand-in implements.  With
 * SC_CUDART_PROTOTYPES_ONLY only the prototypes (the ABI test compiles them after the toolkit's).
 */
#ifndef SC_CUDART_ABI_ARRAY_H
#define SC_CUDART_ABI_ARRAY_H

#include <stddef.h>

#ifndef SC_CUDART_PROTOTYPES_ONLY
#include "abi_graph.h"
#include "abi_rt.h"
#endif

#ifndef SC_RT_EXPORT
#define SC_RT_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifndef SC_CUDART_PROTOTYPES_ONLY

enum cudaChannelFormatKind {
    cudaChannelFormatKindSigned = 0,
    cudaChannelFormatKindUnsigned = 1,
    cudaChannelFormatKindFloat = 2,
    cudaChannelFormatKindNone = 3,
};

struct cudaChannelFormatDesc {
    int x, y, z, w; /* bits per component */
    enum cudaChannelFormatKind f;
};

typedef const struct cudaArray *cudaArray_const_t;
typedef struct cudaMipmappedArray *cudaMipmappedArray_t;
typedef const struct cudaMipmappedArray *cudaMipmappedArray_const_t;

#define cudaArrayDefault          0x00
#define cudaArrayLayered          0x01
#define cudaArraySurfaceLoadStore 0x02
#define cudaArrayCubemap          0x04
#define cudaArrayTextureGather    0x08

/* Texture and surface objects (texture_types.h, surface_types.h). */
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;

enum cudaResourceType {
    cudaResourceTypeArray = 0x00,
    cudaResourceTypeMipmappedArray = 0x01,
    cudaResourceTypeLinear = 0x02,
    cudaResourceTypePitch2D = 0x03,
};

struct cudaResourceDesc {
    enum cudaResourceType resType;
    union {
        struct {
            cudaArray_t array;
        } array;
        struct {
            cudaMipmappedArray_t mipmap;
        } mipmap;
        struct {
            void *devPtr;
            struct cudaChannelFormatDesc desc;
            size_t sizeInBytes;
        } linear;
        struct {
            void *devPtr;
            struct cudaChannelFormatDesc desc;
            size_t width, height; /* elements */
            size_t pitchInBytes;
        } pitch2D;
        struct {
            int reserved[32];
        } reserved;
    } res;
    unsigned int flags; /* zero */
};

enum cudaResourceViewFormat {
    cudaResViewFormatNone = 0x00,
};

struct cudaResourceViewDesc {
    enum cudaResourceViewFormat format;
    size_t width, height, depth;
    unsigned int firstMipmapLevel, lastMipmapLevel;
    unsigned int firstLayer, lastLayer;
    unsigned int reserved[16];
};

enum cudaTextureAddressMode {
    cudaAddressModeWrap = 0,
    cudaAddressModeClamp = 1,
    cudaAddressModeMirror = 2,
    cudaAddressModeBorder = 3,
};

enum cudaTextureFilterMode {
    cudaFilterModePoint = 0,
    cudaFilterModeLinear = 1,
};

enum cudaTextureReadMode {
    cudaReadModeElementType = 0,
    cudaReadModeNormalizedFloat = 1,
};

struct cudaTextureDesc {
    enum cudaTextureAddressMode addressMode[3];
    enum cudaTextureFilterMode filterMode;
    enum cudaTextureReadMode readMode;
    int sRGB;
    float borderColor[4];
    int normalizedCoords;
    unsigned int maxAnisotropy;
    enum cudaTextureFilterMode mipmapFilterMode;
    float mipmapLevelBias;
    float minMipmapLevelClamp;
    float maxMipmapLevelClamp;
    int disableTrilinearOptimization;
    int seamlessCubemap;
};

enum cudaGetDriverEntryPointFlags {
    cudaEnableDefault = 0x0,
    cudaEnableLegacyStream = 0x1,
    cudaEnablePerThreadDefaultStream = 0x2,
};

enum cudaDriverEntryPointQueryResult {
    cudaDriverEntryPointSuccess = 0,
    cudaDriverEntryPointSymbolNotFound = 1,
    cudaDriverEntryPointVersionNotSufficent = 2,
};

/* driver_functions.h's constructors. */
static inline struct cudaExtent make_cudaExtent(size_t w, size_t h, size_t d)
{
    struct cudaExtent e = {w, h, d};
    return e;
}

static inline struct cudaPos make_cudaPos(size_t x, size_t y, size_t z)
{
    struct cudaPos p = {x, y, z};
    return p;
}

static inline struct cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz)
{
    struct cudaPitchedPtr s = {d, p, xsz, ysz};
    return s;
}

/* Options of the just-in-time compiler: accepted and ignored (there is
 * none); the values the stand-in names are the toolkit's. */
enum cudaJitOption {
    cudaJitMaxRegisters = 0,
    cudaJitThreadsPerBlock = 1,
    cudaJitWallTime = 2,
    cudaJitInfoLogBuffer = 3,
    cudaJitInfoLogBufferSizeBytes = 4,
    cudaJitErrorLogBuffer = 5,
    cudaJitErrorLogBufferSizeBytes = 6,
    cudaJitOptimizationLevel = 7,
    cudaJitFallbackStrategy = 10,
    cudaJitGenerateDebugInfo = 11,
    cudaJitLogVerbose = 12,
    cudaJitGenerateLineInfo = 13,
    cudaJitCacheMode = 14,
};

enum cudaLibraryOption {
    cudaLibraryHostUniversalFunctionAndDataTable = 0,
    cudaLibraryBinaryIsPreserved = 1,
};

typedef struct CUlib_st *cudaLibrary_t;

#endif /* !SC_CUDART_PROTOTYPES_ONLY */

#ifdef SC_CUDART_PROTOTYPES_ONLY
#define SC_RT_ARRAY_API extern
#else
#define SC_RT_ARRAY_API SC_RT_EXPORT extern
#endif

SC_RT_ARRAY_API struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                                   enum cudaChannelFormatKind f);
SC_RT_ARRAY_API cudaError_t cudaMallocArray(cudaArray_t *array,
                                            const struct cudaChannelFormatDesc *desc, size_t width,
                                            size_t height, unsigned int flags);
SC_RT_ARRAY_API cudaError_t cudaMalloc3DArray(cudaArray_t *array,
                                              const struct cudaChannelFormatDesc *desc,
                                              struct cudaExtent extent, unsigned int flags);
SC_RT_ARRAY_API cudaError_t cudaFreeArray(cudaArray_t array);
SC_RT_ARRAY_API cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc,
                                             struct cudaExtent *extent, unsigned int *flags,
                                             cudaArray_t array);
SC_RT_ARRAY_API cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc,
                                               cudaArray_const_t array);
SC_RT_ARRAY_API cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *mipmappedArray,
                                                     const struct cudaChannelFormatDesc *desc,
                                                     struct cudaExtent extent,
                                                     unsigned int numLevels, unsigned int flags);
SC_RT_ARRAY_API cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t *levelArray,
                                                       cudaMipmappedArray_const_t mipmappedArray,
                                                       unsigned int level);
SC_RT_ARRAY_API cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t mipmappedArray);

/* 2-D copies: offsets and widths in bytes, heights in rows. */
SC_RT_ARRAY_API cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                                const void *src, size_t spitch, size_t width,
                                                size_t height, enum cudaMemcpyKind kind);
SC_RT_ARRAY_API cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset,
                                                     size_t hOffset, const void *src, size_t spitch,
                                                     size_t width, size_t height,
                                                     enum cudaMemcpyKind kind, cudaStream_t stream);
SC_RT_ARRAY_API cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src,
                                                  size_t wOffset, size_t hOffset, size_t width,
                                                  size_t height, enum cudaMemcpyKind kind);
SC_RT_ARRAY_API cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch,
                                                       cudaArray_const_t src, size_t wOffset,
                                                       size_t hOffset, size_t width, size_t height,
                                                       enum cudaMemcpyKind kind,
                                                       cudaStream_t stream);
SC_RT_ARRAY_API cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst,
                                                     size_t hOffsetDst, cudaArray_const_t src,
                                                     size_t wOffsetSrc, size_t hOffsetSrc,
                                                     size_t width, size_t height,
                                                     enum cudaMemcpyKind kind);
/* The deprecated 1-D forms: count bytes from (wOffset, hOffset) on. */
SC_RT_ARRAY_API cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                              const void *src, size_t count,
                                              enum cudaMemcpyKind kind);
SC_RT_ARRAY_API cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                                   const void *src, size_t count,
                                                   enum cudaMemcpyKind kind, cudaStream_t stream);
SC_RT_ARRAY_API cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset,
                                                size_t hOffset, size_t count,
                                                enum cudaMemcpyKind kind);
SC_RT_ARRAY_API cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src,
                                                     size_t wOffset, size_t hOffset, size_t count,
                                                     enum cudaMemcpyKind kind, cudaStream_t stream);
SC_RT_ARRAY_API cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t wOffsetDst,
                                                   size_t hOffsetDst, cudaArray_const_t src,
                                                   size_t wOffsetSrc, size_t hOffsetSrc,
                                                   size_t count, enum cudaMemcpyKind kind);

/* Texture and surface objects: created, queried and destroyed; never
 * sampled, since kernels do not run. */
SC_RT_ARRAY_API cudaError_t cudaCreateTextureObject(
    cudaTextureObject_t *pTexObject, const struct cudaResourceDesc *pResDesc,
    const struct cudaTextureDesc *pTexDesc, const struct cudaResourceViewDesc *pResViewDesc);
SC_RT_ARRAY_API cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject);
SC_RT_ARRAY_API cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc,
                                                             cudaTextureObject_t texObject);
SC_RT_ARRAY_API cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc,
                                                            cudaTextureObject_t texObject);
SC_RT_ARRAY_API cudaError_t cudaGetTextureObjectResourceViewDesc(
    struct cudaResourceViewDesc *pResViewDesc, cudaTextureObject_t texObject);
SC_RT_ARRAY_API cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject,
                                                    const struct cudaResourceDesc *pResDesc);
SC_RT_ARRAY_API cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject);
SC_RT_ARRAY_API cudaError_t cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc *pResDesc,
                                                             cudaSurfaceObject_t surfObject);

/* The kernel handle of a host stub (the stub itself). */
SC_RT_ARRAY_API cudaError_t cudaGetKernel(cudaKernel_t *kernelPtr, const void *entryFuncAddr);
/* The function handle of a host stub (the stub itself, as for kernels). */
SC_RT_ARRAY_API cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr);
/* There is no driver: every symbol is one it does not have (*funcPtr NULL,
 * cudaDriverEntryPointSymbolNotFound, cudaSuccess). */
SC_RT_ARRAY_API cudaError_t
cudaGetDriverEntryPoint(const char *symbol, void **funcPtr, unsigned long long flags,
                        enum cudaDriverEntryPointQueryResult *driverStatus);
SC_RT_ARRAY_API cudaError_t cudaGetDriverEntryPointByVersion(
    const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *driverStatus);

/* ---- libraries loaded at run time (rt_library.c) */

/* A library is a fat binary (nvcc -fatbin, the container nvcc embeds or,
 * in memory, the wrapper it registers), a cubin (nvcc -cubin) or PTX
 * text; its bytes are copied. */
SC_RT_ARRAY_API cudaError_t cudaLibraryLoadData(cudaLibrary_t *library, const void *code,
                                                enum cudaJitOption *jitOptions,
                                                void **jitOptionsValues, unsigned int numJitOptions,
                                                enum cudaLibraryOption *libraryOptions,
                                                void **libraryOptionValues,
                                                unsigned int numLibraryOptions);
SC_RT_ARRAY_API cudaError_t cudaLibraryLoadFromFile(
    cudaLibrary_t *library, const char *fileName, enum cudaJitOption *jitOptions,
    void **jitOptionsValues, unsigned int numJitOptions, enum cudaLibraryOption *libraryOptions,
    void **libraryOptionValues, unsigned int numLibraryOptions);
SC_RT_ARRAY_API cudaError_t cudaLibraryUnload(cudaLibrary_t library);
/* Kernels by their entry (mangled) name. */
SC_RT_ARRAY_API cudaError_t cudaLibraryGetKernel(cudaKernel_t *pKernel, cudaLibrary_t library,
                                                 const char *name);
SC_RT_ARRAY_API cudaError_t cudaLibraryGetKernelCount(unsigned int *count, cudaLibrary_t lib);
SC_RT_ARRAY_API cudaError_t cudaLibraryEnumerateKernels(cudaKernel_t *kernels,
                                                        unsigned int numKernels, cudaLibrary_t lib);
/* A cubin's __device__, __constant__ and __managed__ variables, host
 * memory behind each. */
SC_RT_ARRAY_API cudaError_t cudaLibraryGetGlobal(void **dptr, size_t *bytes, cudaLibrary_t library,
                                                 const char *name);
SC_RT_ARRAY_API cudaError_t cudaLibraryGetManaged(void **dptr, size_t *bytes, cudaLibrary_t library,
                                                  const char *name);
/* No device has unified function pointers: cudaErrorSymbolNotFound. */
SC_RT_ARRAY_API cudaError_t cudaLibraryGetUnifiedFunction(void **fptr, cudaLibrary_t library,
                                                          const char *symbol);
/* cudaFuncSetAttribute for the one device (0). */
SC_RT_ARRAY_API cudaError_t cudaKernelSetAttributeForDevice(cudaKernel_t kernel,
                                                            enum cudaFuncAttribute attr, int value,
                                                            int device);

#ifdef __cplusplus
}
#endif

#endif
