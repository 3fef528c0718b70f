/*
 * rt_func.c - what a program asks of its kernels: function attributes
 * (kept per host stub and read back), occupancy and cluster queries, and
 * the cooperative launches, which must fit the device at once.  The
 * device they are computed for is rt_device.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "abi_array.h"
#include "abi_graph.h"
#include "rt_int.h"

/* Registers a thread of every function (cudaFuncGetAttributes). */
#define SC_X_REGS 32

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

struct sc_rt_funcs {
    sc_x_func *funcs;
    size_t nfuncs, funcs_cap;
};

/* Lock held; NULL only when memory is short. */
static sc_rt_funcs *funcs_get(sc_rt_state *st)
{
    if (!st->funcs)
        st->funcs = calloc(1, sizeof *st->funcs);
    return st->funcs;
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
static void func_get(sc_rt_funcs *x, const void *func, sc_x_func *out)
{
    for (size_t i = 0; x && i < x->nfuncs; i++) {
        if (x->funcs[i].func == func) {
            *out = x->funcs[i];
            return;
        }
    }
    *out = func_defaults(func);
}

/* What is set for func, read under the call's lock. */
static sc_x_func func_read(sc_rt_call *c, const void *func)
{
    sc_rt_state *st = sc_rt_call_lock(c);
    sc_x_func f;
    func_get(st->funcs, func, &f);
    sc_rt_call_unlock(c);
    return f;
}

/* The entry of func, made on first use. */
static sc_x_func *func_entry(sc_rt_funcs *x, const void *func)
{
    for (size_t i = 0; i < x->nfuncs; i++)
        if (x->funcs[i].func == func)
            return &x->funcs[i];
    if (!sc_rt_grow((void **)&x->funcs, &x->funcs_cap, x->nfuncs + 1, sizeof *x->funcs))
        return NULL;
    x->funcs[x->nfuncs] = func_defaults(func);
    return &x->funcs[x->nfuncs++];
}

/* What a driver reports for the emulated device: the code the kernel's fat
 * binary carries for it; the device's own version where the binary says
 * nothing (a kernel registered without one). */
static void func_versions(sc_rt_call *c, const void *func, int *ptx, int *binary)
{
    sc_rt_state *st = sc_rt_call_lock(c);
    const sc_rt_kernel *k = sc_rt_kernel_layout(st, func);
    *ptx = *binary = sc_rt_dev_cc();
    if (k && k->ptx) {
        *ptx = k->ptx;
        *binary = k->binary;
    }
    sc_rt_call_unlock(c);
}

SC_RT_EXPORT cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    SC_RT_ENTER();
    if (!attr)
        SC_RT_RETURN(cudaErrorInvalidValue);
    if (!func)
        SC_RT_RETURN(cudaErrorInvalidDeviceFunction);
    sc_x_func f = func_read(SC_RT_CALL, func);
    memset(attr, 0, sizeof *attr);
    attr->maxThreadsPerBlock = 1024;
    attr->numRegs = SC_X_REGS;
    func_versions(SC_RT_CALL, func, &attr->ptxVersion, &attr->binaryVersion);
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
    sc_rt_funcs *x = funcs_get(st);
    sc_x_func *f = x ? func_entry(x, func) : NULL;
    cudaError_t e = f ? func_attr_set(f, attr, value) : cudaErrorMemoryAllocation;
    SC_RT_RETURN(e);
}

/* A kernel handle is the function pointer it stands for (cudaGetKernel,
 * rt_library.c), and there is one device. */
SC_RT_EXPORT cudaError_t cudaKernelSetAttributeForDevice(cudaKernel_t kernel,
                                                         enum cudaFuncAttribute attr, int value,
                                                         int device)
{
    SC_RT_ENTER();
    if (device != 0)
        SC_RT_RETURN(cudaErrorInvalidDevice);
    SC_RT_RETURN(cudaFuncSetAttribute((const void *)kernel, attr, value));
}

SC_RT_EXPORT cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig)
{
    SC_RT_ENTER();
    if (!func)
        SC_RT_RETURN(cudaErrorInvalidDeviceFunction);
    if ((unsigned)cacheConfig > cudaFuncCachePreferEqual)
        SC_RT_RETURN(cudaErrorInvalidValue);
    sc_rt_state *st = SC_RT_LOCK();
    sc_rt_funcs *x = funcs_get(st);
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
    sc_x_func f = func_read(c, func);
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
    sc_x_func f = func_read(SC_RT_CALL, func);
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
    sc_x_func f = func_read(call, func);
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

/* ------------------------------------------------- cooperative launches */

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
