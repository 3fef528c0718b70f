/*
 * abi_base.h - the part of the CUDA 13 runtime ABI every file of the
 * stand-in shares: the error enum, the opaque handles, dim3, the copy
 * kinds, capture modes and statuses, node types and the flag values.
 *
 * These are the project's own declarations of a public ABI; nothing here
 * includes the toolkit.  tests/cudart compares every value, size and
 * offset with the toolkit's headers where they are installed.
 */
#ifndef SC_CUDART_ABI_BASE_H
#define SC_CUDART_ABI_BASE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Every export of the stand-in carries this (default visibility; the
 *  version script puts it under the node libcudart.so.13). */
#define SC_RT_EXPORT __attribute__((visibility("default")))

/* The list lives in core/ (the core names the CUDA errors of a cuda-mode
 * session too); the path is relative so that no include directory is
 * needed beyond this one. */
typedef enum cudaError {
#define X(name, number, text) name = number,
#include "../core/sc_cuda_errors.def"
#undef X
} cudaError_t;

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphNode_st *cudaGraphNode_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;
typedef struct CUfunc_st *cudaFunction_t;
typedef struct CUkern_st *cudaKernel_t;
typedef struct CUmemPoolHandle_st *cudaMemPool_t;
typedef struct CUuserObject_st *cudaUserObject_t;

#define cudaStreamLegacy    ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)

typedef struct dim3 {
    unsigned int x, y, z;
} dim3;

typedef void (*cudaHostFn_t)(void *userData);
typedef void (*cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status, void *userData);

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4,
};

enum cudaStreamCaptureStatus {
    cudaStreamCaptureStatusNone = 0,
    cudaStreamCaptureStatusActive = 1,
    cudaStreamCaptureStatusInvalidated = 2,
};

enum cudaStreamCaptureMode {
    cudaStreamCaptureModeGlobal = 0,
    cudaStreamCaptureModeThreadLocal = 1,
    cudaStreamCaptureModeRelaxed = 2,
};

enum cudaGraphNodeType {
    cudaGraphNodeTypeKernel = 0x00,
    cudaGraphNodeTypeMemcpy = 0x01,
    cudaGraphNodeTypeMemset = 0x02,
    cudaGraphNodeTypeHost = 0x03,
    cudaGraphNodeTypeGraph = 0x04,
    cudaGraphNodeTypeEmpty = 0x05,
    cudaGraphNodeTypeWaitEvent = 0x06,
    cudaGraphNodeTypeEventRecord = 0x07,
    cudaGraphNodeTypeExtSemaphoreSignal = 0x08,
    cudaGraphNodeTypeExtSemaphoreWait = 0x09,
    cudaGraphNodeTypeMemAlloc = 0x0a,
    cudaGraphNodeTypeMemFree = 0x0b,
    cudaGraphNodeTypeConditional = 0x0d,
    cudaGraphNodeTypeCount,
};

/* Flag values (driver_types.h). */
#define cudaHostAllocDefault       0x00
#define cudaHostAllocPortable      0x01
#define cudaHostAllocMapped        0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaStreamDefault          0x00
#define cudaStreamNonBlocking      0x01
#define cudaEventDefault           0x00
#define cudaEventBlockingSync      0x01
#define cudaEventDisableTiming     0x02
#define cudaEventInterprocess      0x04
#define cudaEventRecordDefault     0x00
#define cudaEventRecordExternal    0x01
#define cudaEventWaitDefault       0x00
#define cudaEventWaitExternal      0x01
#define cudaMemAttachGlobal        0x01
#define cudaMemAttachHost          0x02
#define cudaMemAttachSingle        0x04

#ifdef __cplusplus
}
#endif
#endif
