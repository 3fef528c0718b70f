/*
 * abi_lib.h - libraries loaded at run time (cudart/rt_library.c): the
 * cudaLibrary* family and cudaKernelSetAttributeForDevice, the subset of
 * driver_types.h and cuda_runtime_api.h they need.  With
 * SC_CUDART_PROTOTYPES_ONLY only the prototypes (the ABI test compiles
 * them after the toolkit's).
 */
#ifndef SC_CUDART_ABI_LIB_H
#define SC_CUDART_ABI_LIB_H

#include <stddef.h>

#ifndef SC_CUDART_PROTOTYPES_ONLY
#include "abi_rt.h"
#endif

#ifndef SC_RT_EXPORT
#define SC_RT_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifndef SC_CUDART_PROTOTYPES_ONLY

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

/* A library is a fat binary (nvcc -fatbin, or the container nvcc embeds),
 * a cubin (nvcc -cubin) or PTX text; its bytes are copied. */
SC_RT_EXPORT cudaError_t cudaLibraryLoadData(cudaLibrary_t *library, const void *code,
                                             enum cudaJitOption *jitOptions,
                                             void **jitOptionsValues, unsigned int numJitOptions,
                                             enum cudaLibraryOption *libraryOptions,
                                             void **libraryOptionValues,
                                             unsigned int numLibraryOptions);
SC_RT_EXPORT cudaError_t cudaLibraryLoadFromFile(
    cudaLibrary_t *library, const char *fileName, enum cudaJitOption *jitOptions,
    void **jitOptionsValues, unsigned int numJitOptions, enum cudaLibraryOption *libraryOptions,
    void **libraryOptionValues, unsigned int numLibraryOptions);
SC_RT_EXPORT cudaError_t cudaLibraryUnload(cudaLibrary_t library);
/* Kernels by their entry (mangled) name. */
SC_RT_EXPORT cudaError_t cudaLibraryGetKernel(cudaKernel_t *pKernel, cudaLibrary_t library,
                                              const char *name);
SC_RT_EXPORT cudaError_t cudaLibraryGetKernelCount(unsigned int *count, cudaLibrary_t lib);
SC_RT_EXPORT cudaError_t cudaLibraryEnumerateKernels(cudaKernel_t *kernels, unsigned int numKernels,
                                                     cudaLibrary_t lib);
/* A cubin's __device__, __constant__ and __managed__ variables, host
 * memory behind each. */
SC_RT_EXPORT cudaError_t cudaLibraryGetGlobal(void **dptr, size_t *bytes, cudaLibrary_t library,
                                              const char *name);
SC_RT_EXPORT cudaError_t cudaLibraryGetManaged(void **dptr, size_t *bytes, cudaLibrary_t library,
                                               const char *name);
/* No device has unified function pointers: cudaErrorSymbolNotFound. */
SC_RT_EXPORT cudaError_t cudaLibraryGetUnifiedFunction(void **fptr, cudaLibrary_t library,
                                                       const char *symbol);
/* cudaFuncSetAttribute for the one device (0). */
SC_RT_EXPORT cudaError_t cudaKernelSetAttributeForDevice(cudaKernel_t kernel,
                                                         enum cudaFuncAttribute attr, int value,
                                                         int device);

#ifdef __cplusplus
}
#endif

#endif
