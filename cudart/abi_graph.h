/*
 * abi_graph.h - the graph half of the CUDA 13 runtime ABI the stand-in
 * implements: node parameter structs, the generic cudaGraphNodeParams,
 * edge data, instantiate and exec-update types, DOT flags, and the
 * cudaGraph* prototypes.
 *
 * The project's own declarations of a public ABI.  Layouts must match
 * CUDA 13 byte for byte; tests/cudart/abi_items_graph.h lists what the ABI
 * test compares with the toolkit.  With SC_CUDART_PROTOTYPES_ONLY defined
 * only the prototypes are declared (the ABI test includes the toolkit's
 * header first, so any prototype that differs from the toolkit's fails to
 * compile).
 */
#ifndef SC_CUDART_ABI_GRAPH_H
#define SC_CUDART_ABI_GRAPH_H

#ifndef SC_CUDART_PROTOTYPES_ONLY
#include "abi_base.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifndef SC_CUDART_PROTOTYPES_ONLY
#ifndef SC_RT_EXPORT
#define SC_RT_EXPORT
#endif

/* ------------------------------------------------------------- types */

/* cudaMemLocation and cudaGraphEdgeData are shared with abi_rt.h: whichever
 * header comes first defines them. */

typedef struct cudaArray *cudaArray_t;
typedef unsigned long long cudaGraphConditionalHandle;

struct cudaPitchedPtr {
    void *ptr;
    size_t pitch; /* bytes */
    size_t xsize; /* logical width, elements */
    size_t ysize;
};

struct cudaExtent {
    size_t width; /* bytes for linear memory */
    size_t height;
    size_t depth;
};

struct cudaPos {
    size_t x, y, z;
};

struct cudaMemcpy3DParms {
    cudaArray_t srcArray;
    struct cudaPos srcPos;
    struct cudaPitchedPtr srcPtr;
    cudaArray_t dstArray;
    struct cudaPos dstPos;
    struct cudaPitchedPtr dstPtr;
    struct cudaExtent extent;
    enum cudaMemcpyKind kind;
};

struct cudaMemcpyNodeParams {
    int flags;
    int reserved[3];
    struct cudaMemcpy3DParms copyParams;
};

struct cudaKernelNodeParams {
    void *func;
    dim3 gridDim;
    dim3 blockDim;
    unsigned int sharedMemBytes;
    void **kernelParams;
    void **extra;
};

struct cudaKernelNodeParamsV2 {
    void *func;
    dim3 gridDim;
    dim3 blockDim;
    unsigned int sharedMemBytes;
    void **kernelParams;
    void **extra;
};

struct cudaMemsetParams {
    void *dst;
    size_t pitch; /* unused when height is 1 */
    unsigned int value;
    unsigned int elementSize; /* 1, 2 or 4 */
    size_t width;             /* elements */
    size_t height;
};

struct cudaMemsetParamsV2 {
    void *dst;
    size_t pitch;
    unsigned int value;
    unsigned int elementSize;
    size_t width;
    size_t height;
};

struct cudaHostNodeParams {
    cudaHostFn_t fn;
    void *userData;
};

struct cudaHostNodeParamsV2 {
    cudaHostFn_t fn;
    void *userData;
};

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

enum cudaMemAccessFlags {
    cudaMemAccessFlagsProtNone = 0,
    cudaMemAccessFlagsProtRead = 1,
    cudaMemAccessFlagsProtReadWrite = 3,
};

struct cudaMemAccessDesc {
    struct cudaMemLocation location;
    enum cudaMemAccessFlags flags;
};

enum cudaMemAllocationType {
    cudaMemAllocationTypeInvalid = 0x0,
    cudaMemAllocationTypePinned = 0x1,
    cudaMemAllocationTypeManaged = 0x2,
    cudaMemAllocationTypeMax = 0x7FFFFFFF,
};

enum cudaGraphMemAttributeType {
    cudaGraphMemAttrUsedMemCurrent = 0x0,
    cudaGraphMemAttrUsedMemHigh = 0x1,
    cudaGraphMemAttrReservedMemCurrent = 0x2,
    cudaGraphMemAttrReservedMemHigh = 0x3,
};

enum cudaMemAllocationHandleType {
    cudaMemHandleTypeNone = 0x0,
    cudaMemHandleTypePosixFileDescriptor = 0x1,
    cudaMemHandleTypeWin32 = 0x2,
    cudaMemHandleTypeWin32Kmt = 0x4,
    cudaMemHandleTypeFabric = 0x8,
};

struct cudaMemPoolProps {
    enum cudaMemAllocationType allocType;
    enum cudaMemAllocationHandleType handleTypes;
    struct cudaMemLocation location;
    void *win32SecurityAttributes;
    size_t maxSize;
    unsigned short usage;
    unsigned char reserved[54];
};

struct cudaMemAllocNodeParams {
    struct cudaMemPoolProps poolProps;
    const struct cudaMemAccessDesc *accessDescs;
    size_t accessDescCount;
    size_t bytesize;
    void *dptr; /* out: the allocation's address */
};

struct cudaMemAllocNodeParamsV2 {
    struct cudaMemPoolProps poolProps;
    const struct cudaMemAccessDesc *accessDescs;
    size_t accessDescCount;
    size_t bytesize;
    void *dptr;
};

struct cudaMemFreeNodeParams {
    void *dptr;
};

struct cudaEventRecordNodeParams {
    cudaEvent_t event;
};

struct cudaEventWaitNodeParams {
    cudaEvent_t event;
};

enum cudaGraphChildGraphNodeOwnership {
    cudaGraphChildGraphOwnershipClone = 0,
    cudaGraphChildGraphOwnershipMove = 1,
};

struct cudaChildGraphNodeParams {
    cudaGraph_t graph;
    enum cudaGraphChildGraphNodeOwnership ownership;
};

enum cudaGraphConditionalHandleFlags {
    cudaGraphCondAssignDefault = 1,
};

enum cudaGraphConditionalNodeType {
    cudaGraphCondTypeIf = 0,
    cudaGraphCondTypeWhile = 1,
    cudaGraphCondTypeSwitch = 2,
};

struct cudaConditionalNodeParams {
    cudaGraphConditionalHandle handle;
    enum cudaGraphConditionalNodeType type;
    unsigned int size;
    cudaGraph_t *phGraph_out;
};

/** cudaGraphAddNode's parameters: the union's padding fixes its size
 *  (external semaphore members are not declared; the stand-in refuses
 *  those node types). */
struct cudaGraphNodeParams {
    enum cudaGraphNodeType type;
    int reserved0[3];
    union {
        long long reserved1[29];
        struct cudaKernelNodeParamsV2 kernel;
        struct cudaMemcpyNodeParams memcpy;
        struct cudaMemsetParamsV2 memset;
        struct cudaHostNodeParamsV2 host;
        struct cudaChildGraphNodeParams graph;
        struct cudaEventWaitNodeParams eventWait;
        struct cudaEventRecordNodeParams eventRecord;
        struct cudaMemAllocNodeParamsV2 alloc;
        struct cudaMemFreeNodeParams free;
        struct cudaConditionalNodeParams conditional;
    };
    long long reserved2;
};

typedef enum cudaGraphDependencyType_enum {
    cudaGraphDependencyTypeDefault = 0,
    cudaGraphDependencyTypeProgrammatic = 1,
} cudaGraphDependencyType;

#ifndef SC_CUDART_EDGE_DATA_DEFINED
#define SC_CUDART_EDGE_DATA_DEFINED
typedef struct cudaGraphEdgeData_st {
    unsigned char from_port;
    unsigned char to_port;
    unsigned char type; /* a cudaGraphDependencyType */
    unsigned char reserved[5];
} cudaGraphEdgeData;
#endif

enum cudaGraphExecUpdateResult {
    cudaGraphExecUpdateSuccess = 0x0,
    cudaGraphExecUpdateError = 0x1,
    cudaGraphExecUpdateErrorTopologyChanged = 0x2,
    cudaGraphExecUpdateErrorNodeTypeChanged = 0x3,
    cudaGraphExecUpdateErrorFunctionChanged = 0x4,
    cudaGraphExecUpdateErrorParametersChanged = 0x5,
    cudaGraphExecUpdateErrorNotSupported = 0x6,
    cudaGraphExecUpdateErrorUnsupportedFunctionChange = 0x7,
    cudaGraphExecUpdateErrorAttributesChanged = 0x8,
};

typedef enum cudaGraphInstantiateResult {
    cudaGraphInstantiateSuccess = 0,
    cudaGraphInstantiateError = 1,
    cudaGraphInstantiateInvalidStructure = 2,
    cudaGraphInstantiateNodeOperationNotSupported = 3,
    cudaGraphInstantiateMultipleDevicesNotSupported = 4,
    cudaGraphInstantiateConditionalHandleUnused = 5,
} cudaGraphInstantiateResult;

typedef struct cudaGraphInstantiateParams_st {
    unsigned long long flags;
    cudaStream_t uploadStream;
    cudaGraphNode_t errNode_out;
    cudaGraphInstantiateResult result_out;
} cudaGraphInstantiateParams;

typedef struct cudaGraphExecUpdateResultInfo_st {
    enum cudaGraphExecUpdateResult result;
    cudaGraphNode_t errorNode;     /* the "to" node of a mismatched edge */
    cudaGraphNode_t errorFromNode; /* its "from" node, else NULL */
} cudaGraphExecUpdateResultInfo;

enum cudaGraphDebugDotFlags {
    cudaGraphDebugDotFlagsVerbose = 1 << 0,
    cudaGraphDebugDotFlagsKernelNodeParams = 1 << 2,
    cudaGraphDebugDotFlagsMemcpyNodeParams = 1 << 3,
    cudaGraphDebugDotFlagsMemsetNodeParams = 1 << 4,
    cudaGraphDebugDotFlagsHostNodeParams = 1 << 5,
    cudaGraphDebugDotFlagsEventNodeParams = 1 << 6,
    cudaGraphDebugDotFlagsExtSemasSignalNodeParams = 1 << 7,
    cudaGraphDebugDotFlagsExtSemasWaitNodeParams = 1 << 8,
    cudaGraphDebugDotFlagsKernelNodeAttributes = 1 << 9,
    cudaGraphDebugDotFlagsHandles = 1 << 10,
    cudaGraphDebugDotFlagsConditionalNodeParams = 1 << 15,
};

enum cudaGraphInstantiateFlags {
    cudaGraphInstantiateFlagAutoFreeOnLaunch = 1,
    cudaGraphInstantiateFlagUpload = 2,
    cudaGraphInstantiateFlagDeviceLaunch = 4,
    cudaGraphInstantiateFlagUseNodePriority = 8,
};

#endif /* !SC_CUDART_PROTOTYPES_ONLY */

/* -------------------------------------------------------- prototypes */

#ifdef SC_CUDART_PROTOTYPES_ONLY
#define SC_RT_GRAPH_API extern
#else
#define SC_RT_GRAPH_API SC_RT_EXPORT extern
#endif

/* Graphs and their topology.  Array queries follow CUDA's size protocol:
 * a NULL array returns the count in *num; otherwise up to *num entries are
 * written and *num becomes the number written (unused slots set NULL). */
SC_RT_GRAPH_API cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags);
SC_RT_GRAPH_API cudaError_t cudaGraphDestroy(cudaGraph_t graph);
SC_RT_GRAPH_API cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph);
SC_RT_GRAPH_API cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *pNode,
                                                     cudaGraphNode_t originalNode,
                                                     cudaGraph_t clonedGraph);
SC_RT_GRAPH_API cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes,
                                              size_t *numNodes);
SC_RT_GRAPH_API cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes,
                                                  size_t *pNumRootNodes);
SC_RT_GRAPH_API cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from,
                                              cudaGraphNode_t *to, cudaGraphEdgeData *edgeData,
                                              size_t *numEdges);
SC_RT_GRAPH_API cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node,
                                                 enum cudaGraphNodeType *pType);
SC_RT_GRAPH_API cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node,
                                                         cudaGraphNode_t *pDependencies,
                                                         cudaGraphEdgeData *edgeData,
                                                         size_t *pNumDependencies);
SC_RT_GRAPH_API cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node,
                                                           cudaGraphNode_t *pDependentNodes,
                                                           cudaGraphEdgeData *edgeData,
                                                           size_t *pNumDependentNodes);
SC_RT_GRAPH_API cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                                     const cudaGraphNode_t *to,
                                                     const cudaGraphEdgeData *edgeData,
                                                     size_t numDependencies);
SC_RT_GRAPH_API cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph,
                                                        const cudaGraphNode_t *from,
                                                        const cudaGraphNode_t *to,
                                                        const cudaGraphEdgeData *edgeData,
                                                        size_t numDependencies);

/* Adding nodes. */
SC_RT_GRAPH_API cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                   const cudaGraphNode_t *pDependencies,
                                                   size_t numDependencies,
                                                   const struct cudaKernelNodeParams *pNodeParams);
SC_RT_GRAPH_API cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                   const cudaGraphNode_t *pDependencies,
                                                   size_t numDependencies,
                                                   const struct cudaMemcpy3DParms *pCopyParams);
SC_RT_GRAPH_API cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                     const cudaGraphNode_t *pDependencies,
                                                     size_t numDependencies, void *dst,
                                                     const void *src, size_t count,
                                                     enum cudaMemcpyKind kind);
SC_RT_GRAPH_API cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                   const cudaGraphNode_t *pDependencies,
                                                   size_t numDependencies,
                                                   const struct cudaMemsetParams *pMemsetParams);
SC_RT_GRAPH_API cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                 const cudaGraphNode_t *pDependencies,
                                                 size_t numDependencies,
                                                 const struct cudaHostNodeParams *pNodeParams);
SC_RT_GRAPH_API cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                  const cudaGraphNode_t *pDependencies,
                                                  size_t numDependencies);
SC_RT_GRAPH_API cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode,
                                                        cudaGraph_t graph,
                                                        const cudaGraphNode_t *pDependencies,
                                                        size_t numDependencies, cudaEvent_t event);
SC_RT_GRAPH_API cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode,
                                                      cudaGraph_t graph,
                                                      const cudaGraphNode_t *pDependencies,
                                                      size_t numDependencies, cudaEvent_t event);
SC_RT_GRAPH_API cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode,
                                                       cudaGraph_t graph,
                                                       const cudaGraphNode_t *pDependencies,
                                                       size_t numDependencies,
                                                       cudaGraph_t childGraph);
/** The allocation's address comes back in nodeParams->dptr at once; it
 *  stays valid while any graph or exec holding the node exists. */
SC_RT_GRAPH_API cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                     const cudaGraphNode_t *pDependencies,
                                                     size_t numDependencies,
                                                     struct cudaMemAllocNodeParams *nodeParams);
SC_RT_GRAPH_API cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                    const cudaGraphNode_t *pDependencies,
                                                    size_t numDependencies, void *dptr);
SC_RT_GRAPH_API cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t *pDependencies,
                                             const cudaGraphEdgeData *dependencyData,
                                             size_t numDependencies,
                                             struct cudaGraphNodeParams *nodeParams);

/** A handle for the condition of conditional nodes of graph: its value
 *  is defaultLaunchValue (nothing on the host sets it); flags 0 or
 *  cudaGraphCondAssignDefault. */
SC_RT_GRAPH_API cudaError_t
cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *pHandle_out, cudaGraph_t graph,
                                 unsigned int defaultLaunchValue, unsigned int flags);

/* Node parameters. */
SC_RT_GRAPH_API cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node,
                                                         struct cudaKernelNodeParams *pNodeParams);
SC_RT_GRAPH_API cudaError_t
cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const struct cudaKernelNodeParams *pNodeParams);
SC_RT_GRAPH_API cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node,
                                                         struct cudaMemcpy3DParms *pNodeParams);
SC_RT_GRAPH_API cudaError_t
cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const struct cudaMemcpy3DParms *pNodeParams);
SC_RT_GRAPH_API cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node,
                                                         struct cudaMemsetParams *pNodeParams);
SC_RT_GRAPH_API cudaError_t
cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const struct cudaMemsetParams *pNodeParams);
SC_RT_GRAPH_API cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node,
                                                       struct cudaHostNodeParams *pNodeParams);
SC_RT_GRAPH_API cudaError_t
cudaGraphHostNodeSetParams(cudaGraphNode_t node, const struct cudaHostNodeParams *pNodeParams);
SC_RT_GRAPH_API cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node,
                                                            cudaGraph_t *pGraph);
SC_RT_GRAPH_API cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node,
                                                             cudaEvent_t *event_out);
SC_RT_GRAPH_API cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node,
                                                           cudaEvent_t *event_out);
SC_RT_GRAPH_API cudaError_t
cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, struct cudaMemAllocNodeParams *params_out);
SC_RT_GRAPH_API cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr_out);

/* Memcpy nodes to and from a __device__ variable. */
SC_RT_GRAPH_API cudaError_t cudaGraphAddMemcpyNodeToSymbol(
    cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
    size_t numDependencies, const void *symbol, const void *src, size_t count, size_t offset,
    enum cudaMemcpyKind kind);
SC_RT_GRAPH_API cudaError_t cudaGraphAddMemcpyNodeFromSymbol(
    cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
    size_t numDependencies, void *dst, const void *symbol, size_t count, size_t offset,
    enum cudaMemcpyKind kind);
SC_RT_GRAPH_API cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t node,
                                                                 const void *symbol,
                                                                 const void *src, size_t count,
                                                                 size_t offset,
                                                                 enum cudaMemcpyKind kind);
SC_RT_GRAPH_API cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t node, void *dst,
                                                                   const void *symbol, size_t count,
                                                                   size_t offset,
                                                                   enum cudaMemcpyKind kind);
SC_RT_GRAPH_API cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(
    cudaGraphExec_t hGraphExec, cudaGraphNode_t node, const void *symbol, const void *src,
    size_t count, size_t offset, enum cudaMemcpyKind kind);
SC_RT_GRAPH_API cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(
    cudaGraphExec_t hGraphExec, cudaGraphNode_t node, void *dst, const void *symbol, size_t count,
    size_t offset, enum cudaMemcpyKind kind);

/* The device's graph memory pool (value: a cuuint64_t). */
SC_RT_GRAPH_API cudaError_t cudaDeviceGetGraphMemAttribute(int device,
                                                           enum cudaGraphMemAttributeType attr,
                                                           void *value);
SC_RT_GRAPH_API cudaError_t cudaDeviceSetGraphMemAttribute(int device,
                                                           enum cudaGraphMemAttributeType attr,
                                                           void *value);
SC_RT_GRAPH_API cudaError_t cudaDeviceGraphMemTrim(int device);

/* Executable graphs. */
SC_RT_GRAPH_API cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                 unsigned long long flags);
SC_RT_GRAPH_API cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec,
                                                          cudaGraph_t graph,
                                                          unsigned long long flags);
SC_RT_GRAPH_API cudaError_t cudaGraphInstantiateWithParams(
    cudaGraphExec_t *pGraphExec, cudaGraph_t graph, cudaGraphInstantiateParams *instantiateParams);
SC_RT_GRAPH_API cudaError_t cudaGraphInstantiateWithParams_ptsz(
    cudaGraphExec_t *pGraphExec, cudaGraph_t graph, cudaGraphInstantiateParams *instantiateParams);
SC_RT_GRAPH_API cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t graphExec,
                                                  unsigned long long *flags);
SC_RT_GRAPH_API cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream);
SC_RT_GRAPH_API cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream);
/** Outside capture: runs memcpy, memset and host nodes in dependency order
 *  on the calling thread (kernels counted, not run).  On a capturing
 *  stream: one child-graph node in the capture. */
SC_RT_GRAPH_API cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream);
SC_RT_GRAPH_API cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream);
SC_RT_GRAPH_API cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                                cudaGraphExecUpdateResultInfo *resultInfo);
SC_RT_GRAPH_API cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec);

/* Changing graphs and executable graphs after building them
 * (graph_setters.c).  The Exec setters change the exec's copy of the node
 * (the node given is the one of the graph it was instantiated from);
 * the program's graph is unchanged. */
SC_RT_GRAPH_API cudaError_t
cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                 const struct cudaKernelNodeParams *pNodeParams);
SC_RT_GRAPH_API cudaError_t cudaGraphExecMemcpyNodeSetParams(
    cudaGraphExec_t hGraphExec, cudaGraphNode_t node, const struct cudaMemcpy3DParms *pNodeParams);
SC_RT_GRAPH_API cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec,
                                                               cudaGraphNode_t node, void *dst,
                                                               const void *src, size_t count,
                                                               enum cudaMemcpyKind kind);
SC_RT_GRAPH_API cudaError_t cudaGraphExecMemsetNodeSetParams(
    cudaGraphExec_t hGraphExec, cudaGraphNode_t node, const struct cudaMemsetParams *pNodeParams);
SC_RT_GRAPH_API cudaError_t cudaGraphExecHostNodeSetParams(
    cudaGraphExec_t hGraphExec, cudaGraphNode_t node, const struct cudaHostNodeParams *pNodeParams);
SC_RT_GRAPH_API cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t graphExec,
                                                       cudaGraphNode_t node,
                                                       struct cudaGraphNodeParams *nodeParams);
/** The new child graph must have the topology of the one it replaces. */
SC_RT_GRAPH_API cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t hGraphExec,
                                                                 cudaGraphNode_t node,
                                                                 cudaGraph_t childGraph);
SC_RT_GRAPH_API cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t hGraphExec,
                                                                 cudaGraphNode_t hNode,
                                                                 cudaEvent_t event);
SC_RT_GRAPH_API cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t hGraphExec,
                                                               cudaGraphNode_t hNode,
                                                               cudaEvent_t event);
SC_RT_GRAPH_API cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node,
                                                             cudaEvent_t event);
SC_RT_GRAPH_API cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event);
SC_RT_GRAPH_API cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node,
                                                   struct cudaGraphNodeParams *nodeParams);
SC_RT_GRAPH_API cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void *dst,
                                                           const void *src, size_t count,
                                                           enum cudaMemcpyKind kind);
/** Removes the node and its edges; later nodes move up one index. */
SC_RT_GRAPH_API cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node);
/** Kernel, memcpy and memset nodes of an exec; a disabled one does nothing. */
SC_RT_GRAPH_API cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t hGraphExec,
                                                    cudaGraphNode_t hNode, unsigned int *isEnabled);
SC_RT_GRAPH_API cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t hGraphExec,
                                                    cudaGraphNode_t hNode, unsigned int isEnabled);
/** User objects: the destructor runs when the last reference goes (the
 *  program's, or those of graphs, their clones and execs). */
SC_RT_GRAPH_API cudaError_t cudaUserObjectCreate(cudaUserObject_t *object_out, void *ptr,
                                                 cudaHostFn_t destroy, unsigned int initialRefcount,
                                                 unsigned int flags);
SC_RT_GRAPH_API cudaError_t cudaUserObjectRetain(cudaUserObject_t object, unsigned int count);
SC_RT_GRAPH_API cudaError_t cudaUserObjectRelease(cudaUserObject_t object, unsigned int count);
SC_RT_GRAPH_API cudaError_t cudaGraphRetainUserObject(cudaGraph_t graph, cudaUserObject_t object,
                                                      unsigned int count, unsigned int flags);
SC_RT_GRAPH_API cudaError_t cudaGraphReleaseUserObject(cudaGraph_t graph, cudaUserObject_t object,
                                                       unsigned int count);

/** Writes the graph as DOT in the CUDA runtime's style (see graph_dot.c). */
SC_RT_GRAPH_API cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char *path,
                                                   unsigned int flags);

#undef SC_RT_GRAPH_API

#ifdef __cplusplus
}
#endif
#endif
