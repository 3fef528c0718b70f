/*
 * test_cudart_extra.c - the runtime calls around capture sections
 * (cudart/rt_func.c, cudart/rt_pitched.c, cudart/rt_stream_attr.c, the
 * limits and peer queries of cudart/rt_device.c, the managed-memory advice
 * of cudart/rt_mem.c) and the graph setters, called the way a program
 * does, through the project's declarations (sc_cudart.h); white-box like
 * test_cudart_rt, so captured nodes can be read through rt.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt.h"
#include "sc_cudart.h"

static void kernel_stub(void) {}
static void other_stub(void) {}

static void t_func_attributes(void **state)
{
    (void)state;
    struct cudaFuncAttributes a;
    assert_int_equal(cudaFuncGetAttributes(&a, (const void *)kernel_stub), cudaSuccess);
    assert_int_equal(a.maxThreadsPerBlock, 1024);
    assert_int_equal(a.numRegs, 32);
    assert_int_equal(a.maxDynamicSharedSizeBytes, 48 << 10);
    assert_int_equal(a.preferredShmemCarveout, -1);
    assert_int_equal(cudaFuncGetAttributes(NULL, (const void *)kernel_stub), cudaErrorInvalidValue);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
    assert_int_equal(cudaFuncGetAttributes(&a, NULL), cudaErrorInvalidDeviceFunction);
    (void)cudaGetLastError();

    assert_int_equal(cudaFuncSetAttribute((const void *)kernel_stub,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize, 100000),
                     cudaSuccess);
    assert_int_equal(cudaFuncSetAttribute((const void *)kernel_stub,
                                          cudaFuncAttributePreferredSharedMemoryCarveout, 50),
                     cudaSuccess);
    assert_int_equal(cudaFuncGetAttributes(&a, (const void *)kernel_stub), cudaSuccess);
    assert_int_equal(a.maxDynamicSharedSizeBytes, 100000);
    assert_int_equal(a.preferredShmemCarveout, 50);
    /* other functions keep their defaults */
    assert_int_equal(cudaFuncGetAttributes(&a, (const void *)other_stub), cudaSuccess);
    assert_int_equal(a.maxDynamicSharedSizeBytes, 48 << 10);

    assert_int_equal(cudaFuncSetAttribute((const void *)kernel_stub,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize, 1 << 20),
                     cudaErrorInvalidValue);
    assert_int_equal(
        cudaFuncSetAttribute((const void *)kernel_stub, cudaFuncAttributeClusterDimMustBeSet, 1),
        cudaErrorInvalidValue);
    assert_int_equal(cudaFuncSetAttribute(NULL, cudaFuncAttributePreferredSharedMemoryCarveout, 0),
                     cudaErrorInvalidDeviceFunction);
    assert_int_equal(cudaFuncSetCacheConfig((const void *)kernel_stub, cudaFuncCachePreferL1),
                     cudaSuccess);
    assert_int_equal(cudaFuncSetCacheConfig((const void *)kernel_stub, (enum cudaFuncCache)9),
                     cudaErrorInvalidValue);
    assert_int_equal(
        cudaFuncSetSharedMemConfig((const void *)kernel_stub, cudaSharedMemBankSizeEightByte),
        cudaSuccess);
    (void)cudaGetLastError();
}

static void t_occupancy(void **state)
{
    (void)state;
    const void *f = (const void *)other_stub;
    int n = -1;
    assert_int_equal(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 256, 0), cudaSuccess);
    assert_int_equal(n, 8); /* 2048 threads a multiprocessor */
    assert_int_equal(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 1024, 0), cudaSuccess);
    assert_int_equal(n, 2);
    assert_int_equal(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 32, 0), cudaSuccess);
    assert_int_equal(n, 32); /* the block limit */
    assert_int_equal(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 2048, 0), cudaSuccess);
    assert_int_equal(n, 0);
    /* shared memory bounds it; beyond the function's maximum nothing fits */
    assert_int_equal(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 64, 40 << 10),
                     cudaSuccess);
    assert_int_equal(n, 5);
    assert_int_equal(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 64, 64 << 10),
                     cudaSuccess);
    assert_int_equal(n, 0);
    assert_int_equal(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                         &n, f, 128, 0, cudaOccupancyDisableCachingOverride),
                     cudaSuccess);
    assert_int_equal(n, 16);
    assert_int_equal(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, f, 128, 0, 4),
                     cudaErrorInvalidValue);
    assert_int_equal(cudaOccupancyMaxActiveBlocksPerMultiprocessor(NULL, f, 128, 0),
                     cudaErrorInvalidValue);
    size_t smem = 0;
    assert_int_equal(cudaOccupancyAvailableDynamicSMemPerBlock(&smem, f, 8, 128), cudaSuccess);
    assert_int_equal(smem, (228u << 10) / 8 - 1024);
    assert_int_equal(cudaOccupancyAvailableDynamicSMemPerBlock(&smem, f, 1, 128), cudaSuccess);
    assert_int_equal(smem, 48 << 10); /* capped at the function's maximum */
    assert_int_equal(cudaOccupancyAvailableDynamicSMemPerBlock(&smem, f, 64, 128), cudaSuccess);
    assert_int_equal(smem, 0); /* 64 blocks never fit */
    cudaLaunchConfig_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDim = (dim3){16, 1, 1};
    cfg.blockDim = (dim3){256, 1, 1};
    int clusters = 0;
    assert_int_equal(cudaOccupancyMaxPotentialClusterSize(&clusters, f, &cfg), cudaSuccess);
    assert_int_equal(clusters, 8);
    cudaLaunchAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = 2;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    assert_int_equal(cudaOccupancyMaxActiveClusters(&clusters, f, &cfg), cudaSuccess);
    assert_int_equal(clusters, 8 * 132 / 2);
    (void)cudaGetLastError();
}

static void t_limits_and_caches(void **state)
{
    (void)state;
    size_t v = 0;
    assert_int_equal(cudaDeviceGetLimit(&v, cudaLimitStackSize), cudaSuccess);
    assert_int_equal(v, 1024);
    assert_int_equal(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize), cudaSuccess);
    assert_int_equal(v, 8 << 20);
    assert_int_equal(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64 << 20), cudaSuccess);
    assert_int_equal(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize), cudaSuccess);
    assert_int_equal(v, 64 << 20);
    assert_int_equal(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)1 << 40),
                     cudaSuccess);
    assert_int_equal(cudaDeviceGetLimit(&v, cudaLimitPersistingL2CacheSize), cudaSuccess);
    assert_int_equal(v, 30 << 20); /* clamped to the device's */
    assert_int_equal(cudaDeviceSetLimit((enum cudaLimit)42, 1), cudaErrorUnsupportedLimit);
    assert_int_equal(cudaDeviceGetLimit(&v, (enum cudaLimit)42), cudaErrorUnsupportedLimit);
    assert_int_equal(cudaDeviceGetLimit(NULL, cudaLimitStackSize), cudaErrorInvalidValue);

    enum cudaFuncCache c = cudaFuncCachePreferEqual;
    assert_int_equal(cudaDeviceGetCacheConfig(&c), cudaSuccess);
    assert_int_equal(c, cudaFuncCachePreferNone);
    assert_int_equal(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared), cudaSuccess);
    assert_int_equal(cudaDeviceGetCacheConfig(&c), cudaSuccess);
    assert_int_equal(c, cudaFuncCachePreferShared);
    assert_int_equal(cudaDeviceSetCacheConfig((enum cudaFuncCache)7), cudaErrorInvalidValue);
    enum cudaSharedMemConfig m = cudaSharedMemBankSizeDefault;
    assert_int_equal(cudaDeviceGetSharedMemConfig(&m), cudaSuccess);
    assert_int_equal(m, cudaSharedMemBankSizeFourByte);
    assert_int_equal(cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeEightByte), cudaSuccess);
    assert_int_equal(cudaDeviceGetSharedMemConfig(&m), cudaSuccess);
    assert_int_equal(m, cudaSharedMemBankSizeEightByte);
    assert_int_equal(cudaDeviceGetSharedMemConfig(NULL), cudaErrorInvalidValue);
    (void)cudaGetLastError();
}

static void t_devices(void **state)
{
    (void)state;
    int can = 7, dev = 5;
    assert_int_equal(cudaDeviceCanAccessPeer(&can, 0, 0), cudaSuccess);
    assert_int_equal(can, 0);
    assert_int_equal(cudaDeviceCanAccessPeer(&can, 0, 1), cudaErrorInvalidDevice);
    assert_int_equal(cudaDeviceCanAccessPeer(NULL, 0, 0), cudaErrorInvalidValue);
    assert_int_equal(cudaDeviceEnablePeerAccess(1, 0), cudaErrorInvalidDevice);
    char bus[32];
    assert_int_equal(cudaDeviceGetPCIBusId(bus, sizeof bus, 0), cudaSuccess);
    assert_string_equal(bus, "0000:01:00.0");
    assert_int_equal(cudaDeviceGetPCIBusId(bus, sizeof bus, 1), cudaErrorInvalidDevice);
    assert_int_equal(cudaDeviceGetByPCIBusId(&dev, bus), cudaSuccess);
    assert_int_equal(dev, 0);
    dev = 5;
    assert_int_equal(cudaDeviceGetByPCIBusId(&dev, "01:00.0"), cudaSuccess);
    assert_int_equal(dev, 0);
    assert_int_equal(cudaDeviceGetByPCIBusId(&dev, "0000:02:00.0"), cudaErrorInvalidDevice);
    assert_int_equal(cudaDeviceGetByPCIBusId(&dev, "nonsense"), cudaErrorInvalidValue);
    struct cudaDeviceProp p;
    memset(&p, 0, sizeof p);
    p.major = 9;
    dev = 5;
    assert_int_equal(cudaChooseDevice(&dev, &p), cudaSuccess);
    assert_int_equal(dev, 0);
    assert_int_equal(cudaChooseDevice(&dev, NULL), cudaErrorInvalidValue);
    assert_int_equal(cudaProfilerStart(), cudaSuccess);
    assert_int_equal(cudaProfilerStop(), cudaSuccess);
    assert_int_equal(cudaCtxResetPersistingL2Cache(), cudaSuccess);
    (void)cudaGetLastError();
}

/* Rows of 5 bytes from a 8-byte pitch into a 16-byte pitch. */
static void t_copy2d_outside_capture(void **state)
{
    (void)state;
    unsigned char src[3 * 8], dst[3 * 16];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (unsigned char)i;
    memset(dst, 0xee, sizeof dst);
    void *dev = NULL;
    size_t pitch = 0;
    assert_int_equal(cudaMallocPitch(&dev, &pitch, 16, 3), cudaSuccess);
    assert_int_equal(cudaMemcpy2D(dev, pitch, src, 8, 5, 3, cudaMemcpyHostToDevice), cudaSuccess);
    assert_int_equal(cudaMemcpy2D(dst, 16, dev, pitch, 5, 3, cudaMemcpyDefault), cudaSuccess);
    for (size_t r = 0; r < 3; r++) {
        assert_memory_equal(dst + r * 16, src + r * 8, 5);
        assert_int_equal(dst[r * 16 + 5], 0xee);
    }
    assert_int_equal(cudaMemcpy2D(dst, 4, src, 8, 5, 3, cudaMemcpyHostToHost),
                     cudaErrorInvalidPitchValue);
    assert_int_equal(cudaMemcpy2D(NULL, 16, src, 8, 5, 3, cudaMemcpyHostToHost),
                     cudaErrorInvalidValue);
    assert_int_equal(cudaMemcpy2D(dst, 16, src, 8, 5, 3, (enum cudaMemcpyKind)9),
                     cudaErrorInvalidMemcpyDirection);
    /* async outside capture: done at once, row by row */
    memset(dst, 0, sizeof dst);
    assert_int_equal(cudaMemcpy2DAsync(dst, 16, src, 8, 4, 2, cudaMemcpyHostToHost, NULL),
                     cudaSuccess);
    assert_memory_equal(dst + 16, src + 8, 4);
    assert_int_equal(dst[4], 0);
    /* memsets */
    assert_int_equal(cudaMemset2D(dst, 16, 0x5a, 3, 3), cudaSuccess);
    assert_int_equal(dst[2 * 16 + 2], 0x5a);
    assert_int_equal(dst[2 * 16 + 3], 0); /* past the width: untouched */
    assert_int_equal(cudaMemset2DAsync(dst, 16, 0x11, 1, 2, NULL), cudaSuccess);
    assert_int_equal(dst[16], 0x11);
    assert_int_equal(cudaMemset2D(dst, 2, 0, 3, 3), cudaErrorInvalidPitchValue);
    assert_int_equal(cudaFree(dev), cudaSuccess);
    (void)cudaGetLastError();
}

static void t_copy3d_and_malloc3d(void **state)
{
    (void)state;
    struct cudaPitchedPtr pp;
    assert_int_equal(cudaMalloc3D(&pp, (struct cudaExtent){10, 4, 2}), cudaSuccess);
    assert_int_equal(pp.pitch, 512);
    assert_int_equal(pp.xsize, 10);
    assert_int_equal(pp.ysize, 4);
    struct cudaPointerAttributes pa;
    assert_int_equal(cudaPointerGetAttributes(&pa, pp.ptr), cudaSuccess);
    assert_int_equal(pa.type, cudaMemoryTypeDevice);
    assert_int_equal(cudaMalloc3D(NULL, (struct cudaExtent){1, 1, 1}), cudaErrorInvalidValue);

    assert_int_equal(cudaMemset3D(pp, 0x7f, (struct cudaExtent){10, 4, 2}), cudaSuccess);
    unsigned char host[2][4][10];
    memset(host, 0, sizeof host);
    struct cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = pp;
    p.dstPtr = (struct cudaPitchedPtr){host, 10, 10, 4};
    p.extent = (struct cudaExtent){10, 4, 2};
    p.kind = cudaMemcpyDeviceToHost;
    assert_int_equal(cudaMemcpy3D(&p), cudaSuccess);
    assert_int_equal(host[1][3][9], 0x7f);
    assert_int_equal(host[0][0][0], 0x7f);
    /* a sub-box: byte 2..5 of rows 1..2 of slice 1 */
    memset(host, 0, sizeof host);
    p.srcPos = (struct cudaPos){2, 1, 1};
    p.dstPos = (struct cudaPos){2, 1, 1};
    p.extent = (struct cudaExtent){4, 2, 1};
    assert_int_equal(cudaMemcpy3DAsync(&p, NULL), cudaSuccess);
    assert_int_equal(host[1][1][2], 0x7f);
    assert_int_equal(host[1][2][5], 0x7f);
    assert_int_equal(host[1][1][6], 0);
    assert_int_equal(host[1][3][2], 0);
    assert_int_equal(host[0][1][2], 0);
    assert_int_equal(cudaMemcpy3D(NULL), cudaErrorInvalidValue);
    p.srcArray = (cudaArray_t)(uintptr_t)16; /* no array of the program's */
    assert_int_equal(cudaMemcpy3D(&p), cudaErrorInvalidValue);
    assert_int_equal(cudaFree(pp.ptr), cudaSuccess);
    (void)cudaGetLastError();
}

/* In capture a pitched copy is one memcpy node of the total size, and a
 * launch of the graph copies it row by row. */
static void t_copy2d_in_capture(void **state)
{
    (void)state;
    unsigned char src[2 * 8], dst[2 * 16];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (unsigned char)(i + 1);
    memset(dst, 0, sizeof dst);
    void *dev = NULL;
    assert_int_equal(cudaMalloc(&dev, 64), cudaSuccess);
    assert_int_equal(cudaMemset(dev, 0, 64), cudaSuccess);
    cudaStream_t s;
    assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
    assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    assert_int_equal(cudaMemcpy2DAsync(dst, 16, src, 8, 6, 2, cudaMemcpyDefault, s), cudaSuccess);
    assert_int_equal(cudaMemset2DAsync(dev, 32, 0x3c, 20, 2, s), cudaSuccess);
    assert_int_equal(cudaLaunchCooperativeKernel((const void *)kernel_stub, (dim3){4, 1, 1},
                                                 (dim3){64, 1, 1}, NULL, 0, s),
                     cudaSuccess);
    /* nothing done yet */
    assert_int_equal(dst[0], 0);
    cudaGraph_t g = NULL;
    assert_int_equal(cudaStreamEndCapture(s, &g), cudaSuccess);
    assert_int_equal(sc_rt_graph_node_count(g), 3);
    const sc_rt_node_desc *d0 = sc_rt_node_desc_of(sc_rt_graph_node_at(g, 0));
    assert_int_equal(d0->type, cudaGraphNodeTypeMemcpy);
    assert_int_equal(d0->size, 12);
    assert_int_equal(d0->kind, cudaMemcpyHostToHost);
    const sc_rt_node_desc *d1 = sc_rt_node_desc_of(sc_rt_graph_node_at(g, 1));
    assert_int_equal(d1->type, cudaGraphNodeTypeMemset);
    assert_int_equal(d1->size, 40);
    assert_int_equal(d1->pitch, 32);
    const sc_rt_node_desc *d2 = sc_rt_node_desc_of(sc_rt_graph_node_at(g, 2));
    assert_int_equal(d2->type, cudaGraphNodeTypeKernel);
    assert_int_equal(d2->grid.x, 4);

    cudaGraphExec_t x;
    assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
    assert_memory_equal(dst, src, 6);
    assert_memory_equal(dst + 16, src + 8, 6);
    assert_int_equal(dst[6], 0);
    assert_int_equal(((unsigned char *)dev)[32 + 19], 0x3c);
    assert_int_equal(((unsigned char *)dev)[20], 0);
    assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
    assert_int_equal(cudaFree(dev), cudaSuccess);
}

/* The synchronous forms and cudaMalloc3D are host calls: a global capture
 * is invalidated and the call names the breaker. */
static void t_sync_forms_break_global_capture(void **state)
{
    (void)state;
    unsigned char a[32], b[32];
    cudaStream_t s;
    cudaGraph_t g = NULL;
    assert_int_equal(cudaStreamCreate(&s), cudaSuccess);

    assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    cudaError_t want = cudaMemcpy(a, b, 4, cudaMemcpyHostToHost);
    assert_int_not_equal(want, cudaSuccess);
    assert_int_equal(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);

    assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    assert_int_equal(cudaMemcpy2D(a, 8, b, 8, 4, 2, cudaMemcpyHostToHost), want);
    enum cudaStreamCaptureStatus cs;
    assert_int_equal(cudaStreamIsCapturing(s, &cs), cudaSuccess);
    assert_int_equal(cs, cudaStreamCaptureStatusInvalidated);
    assert_int_equal(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);

    assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    assert_int_equal(cudaMemset2D(a, 8, 0, 4, 2), want);
    assert_int_equal(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);

    assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    struct cudaPitchedPtr pp = {0};
    assert_int_equal(cudaMalloc3D(&pp, (struct cudaExtent){8, 8, 1}),
                     cudaErrorStreamCaptureUnsupported);
    assert_null(pp.ptr);
    assert_int_equal(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
    assert_null(g);
    assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
    (void)cudaGetLastError();
}

static void t_cooperative_too_large(void **state)
{
    (void)state;
    /* 8 blocks of 256 a multiprocessor, 132 of them */
    assert_int_equal(cudaLaunchCooperativeKernel((const void *)kernel_stub, (dim3){8 * 132, 1, 1},
                                                 (dim3){256, 1, 1}, NULL, 0, NULL),
                     cudaSuccess);
    assert_int_equal(cudaLaunchCooperativeKernel((const void *)kernel_stub,
                                                 (dim3){8 * 132 + 1, 1, 1}, (dim3){256, 1, 1}, NULL,
                                                 0, NULL),
                     cudaErrorCooperativeLaunchTooLarge);
    assert_int_equal(cudaGetLastError(), cudaErrorCooperativeLaunchTooLarge);
}

static void t_stream_attributes(void **state)
{
    (void)state;
    cudaStream_t a, b;
    assert_int_equal(cudaStreamCreateWithPriority(&a, cudaStreamNonBlocking, -2), cudaSuccess);
    assert_int_equal(cudaStreamCreate(&b), cudaSuccess);
    cudaLaunchAttributeValue v;
    assert_int_equal(cudaStreamGetAttribute(a, cudaStreamAttributePriority, &v), cudaSuccess);
    assert_int_equal(v.priority, -2);
    memset(&v, 0, sizeof v);
    v.priority = -4;
    assert_int_equal(cudaStreamSetAttribute(b, cudaStreamAttributePriority, &v), cudaSuccess);
    int prio = 0;
    assert_int_equal(cudaStreamGetPriority(b, &prio), cudaSuccess);
    assert_int_equal(prio, -4);
    memset(&v, 0, sizeof v);
    v.pad[0] = 1; /* cudaSyncPolicySpin */
    assert_int_equal(cudaStreamSetAttribute(b, cudaStreamAttributeSynchronizationPolicy, &v),
                     cudaSuccess);
    assert_int_equal(cudaStreamCopyAttributes(a, b), cudaSuccess);
    memset(&v, 0, sizeof v);
    assert_int_equal(cudaStreamGetAttribute(a, cudaStreamAttributeSynchronizationPolicy, &v),
                     cudaSuccess);
    assert_int_equal(v.pad[0], 1);
    assert_int_equal(cudaStreamGetPriority(a, &prio), cudaSuccess);
    assert_int_equal(prio, -4);
    assert_int_equal(cudaStreamGetAttribute(a, cudaLaunchAttributeCooperative, &v),
                     cudaErrorInvalidValue);
    assert_int_equal(cudaStreamGetAttribute(a, cudaStreamAttributePriority, NULL),
                     cudaErrorInvalidValue);
    assert_int_equal(cudaStreamSetAttribute(a, cudaStreamAttributePriority, NULL),
                     cudaErrorInvalidValue);
    assert_int_equal(cudaStreamDestroy(a), cudaSuccess);
    assert_int_equal(cudaStreamDestroy(b), cudaSuccess);
    (void)cudaGetLastError();
}

static void t_managed_memory(void **state)
{
    (void)state;
    void *m = NULL, *d = NULL;
    assert_int_equal(cudaMallocManaged(&m, 4096, cudaMemAttachGlobal), cudaSuccess);
    assert_int_equal(cudaMalloc(&d, 4096), cudaSuccess);
    struct cudaMemLocation dev0 = {cudaMemLocationTypeDevice, 0};
    struct cudaMemLocation dev1 = {cudaMemLocationTypeDevice, 1};
    assert_int_equal(cudaMemAdvise(m, 4096, cudaMemAdviseSetReadMostly, dev0), cudaSuccess);
    assert_int_equal(cudaMemAdvise(m, 1024, cudaMemAdviseSetPreferredLocation, dev0), cudaSuccess);
    assert_int_equal(cudaMemAdvise(m, 1024, cudaMemAdviseSetAccessedBy, dev1),
                     cudaErrorInvalidDevice);
    assert_int_equal(cudaMemAdvise(m, 8192, cudaMemAdviseSetReadMostly, dev0),
                     cudaErrorInvalidValue);
    assert_int_equal(cudaMemAdvise(d, 4096, cudaMemAdviseSetReadMostly, dev0),
                     cudaErrorInvalidValue);
    assert_int_equal(cudaMemAdvise(m, 4096, (enum cudaMemoryAdvise)0, dev0), cudaErrorInvalidValue);
    cudaStream_t s;
    assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
    assert_int_equal(cudaStreamAttachMemAsync(s, m, 0, cudaMemAttachSingle), cudaSuccess);
    assert_int_equal(cudaStreamAttachMemAsync(s, m, 4096, cudaMemAttachHost), cudaSuccess);
    assert_int_equal(cudaStreamAttachMemAsync(s, m, 10, cudaMemAttachHost), cudaErrorInvalidValue);
    assert_int_equal(cudaStreamAttachMemAsync(s, d, 0, cudaMemAttachGlobal), cudaErrorInvalidValue);
    assert_int_equal(cudaStreamAttachMemAsync(s, m, 0, 0x10), cudaErrorInvalidValue);
    /* in capture it records nothing */
    cudaGraph_t g = NULL;
    assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    assert_int_equal(cudaStreamAttachMemAsync(s, m, 0, cudaMemAttachSingle), cudaSuccess);
    assert_int_equal(cudaStreamEndCapture(s, &g), cudaSuccess);
    assert_int_equal(sc_rt_graph_node_count(g), 0);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
    cudaFree(m);
    cudaFree(d);
    (void)cudaGetLastError();
}

static int g_host_calls[2];
static void host_a(void *p)
{
    (void)p;
    g_host_calls[0]++;
}
static void host_b(void *p)
{
    (void)p;
    g_host_calls[1]++;
}

static struct cudaMemsetParams memset_params(void *dst, unsigned int value, size_t width)
{
    struct cudaMemsetParams m;
    memset(&m, 0, sizeof m);
    m.dst = dst;
    m.value = value;
    m.elementSize = 1;
    m.width = width;
    m.height = 1;
    return m;
}

/* The exec's copy changes; the program's graph does not. */
static void t_exec_set_params(void **state)
{
    (void)state;
    unsigned char a[16], b[16], c[16];
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    memset(c, 0, sizeof c);
    memset(g_host_calls, 0, sizeof g_host_calls);
    cudaGraph_t g;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    cudaGraphNode_t ms, cp, hn, kn;
    struct cudaMemsetParams m = memset_params(a, 1, 8);
    assert_int_equal(cudaGraphAddMemsetNode(&ms, g, NULL, 0, &m), cudaSuccess);
    assert_int_equal(cudaGraphAddMemcpyNode1D(&cp, g, &ms, 1, b, a, 8, cudaMemcpyDefault),
                     cudaSuccess);
    struct cudaHostNodeParams h = {host_a, NULL};
    assert_int_equal(cudaGraphAddHostNode(&hn, g, &cp, 1, &h), cudaSuccess);
    struct cudaKernelNodeParams k;
    memset(&k, 0, sizeof k);
    k.func = (void *)kernel_stub;
    k.gridDim = (dim3){1, 1, 1};
    k.blockDim = (dim3){32, 1, 1};
    assert_int_equal(cudaGraphAddKernelNode(&kn, g, &hn, 1, &k), cudaSuccess);
    cudaGraphExec_t x;
    assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);

    m = memset_params(a, 7, 4);
    assert_int_equal(cudaGraphExecMemsetNodeSetParams(x, ms, &m), cudaSuccess);
    assert_int_equal(cudaGraphExecMemcpyNodeSetParams1D(x, cp, c, a, 4, cudaMemcpyDefault),
                     cudaSuccess);
    h.fn = host_b;
    assert_int_equal(cudaGraphExecHostNodeSetParams(x, hn, &h), cudaSuccess);
    k.gridDim = (dim3){8, 1, 1};
    assert_int_equal(cudaGraphExecKernelNodeSetParams(x, kn, &k), cudaSuccess);
    /* wrong node type, NULL parameters, a node of no graph of x */
    assert_int_equal(cudaGraphExecMemsetNodeSetParams(x, cp, &m), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphExecHostNodeSetParams(x, hn, NULL), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphExecKernelNodeSetParams(NULL, kn, &k), cudaErrorInvalidValue);
    (void)cudaGetLastError();

    assert_int_equal(cudaGraphLaunch(x, NULL), cudaSuccess);
    assert_int_equal(a[3], 7);
    assert_int_equal(a[4], 0);
    assert_int_equal(c[3], 7);
    assert_int_equal(b[0], 0);
    assert_int_equal(g_host_calls[0], 0);
    assert_int_equal(g_host_calls[1], 1);
    /* the graph itself still has what it was built with */
    struct cudaMemsetParams back;
    assert_int_equal(cudaGraphMemsetNodeGetParams(ms, &back), cudaSuccess);
    assert_int_equal(back.value, 1);
    struct cudaKernelNodeParams kb;
    assert_int_equal(cudaGraphKernelNodeGetParams(kn, &kb), cudaSuccess);
    assert_int_equal(kb.gridDim.x, 1);

    /* generic form */
    struct cudaGraphNodeParams gp;
    memset(&gp, 0, sizeof gp);
    gp.type = cudaGraphNodeTypeMemset;
    m = memset_params(a, 9, 2);
    memcpy(&gp.memset, &m, sizeof m);
    assert_int_equal(cudaGraphExecNodeSetParams(x, ms, &gp), cudaSuccess);
    gp.type = cudaGraphNodeTypeHost;
    assert_int_equal(cudaGraphExecNodeSetParams(x, ms, &gp), cudaErrorInvalidValue);
    (void)cudaGetLastError();
    assert_int_equal(cudaGraphLaunch(x, NULL), cudaSuccess);
    assert_int_equal(a[1], 9);
    assert_int_equal(a[2], 7);

    /* disabled nodes do nothing */
    unsigned int on = 9;
    assert_int_equal(cudaGraphNodeGetEnabled(x, ms, &on), cudaSuccess);
    assert_int_equal(on, 1);
    assert_int_equal(cudaGraphNodeSetEnabled(x, ms, 0), cudaSuccess);
    assert_int_equal(cudaGraphNodeGetEnabled(x, ms, &on), cudaSuccess);
    assert_int_equal(on, 0);
    assert_int_equal(cudaGraphNodeSetEnabled(x, hn, 0), cudaErrorInvalidValue);
    (void)cudaGetLastError();
    memset(a, 0, sizeof a);
    assert_int_equal(cudaGraphLaunch(x, NULL), cudaSuccess);
    assert_int_equal(a[0], 0);
    assert_int_equal(g_host_calls[1], 3);
    assert_int_equal(cudaGraphNodeSetEnabled(x, ms, 1), cudaSuccess);
    assert_int_equal(cudaGraphLaunch(x, NULL), cudaSuccess);
    assert_int_equal(a[0], 9);

    assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

static void t_graph_setters_and_destroy_node(void **state)
{
    (void)state;
    unsigned char a[8] = {0}, b[8] = {0};
    cudaEvent_t e1, e2;
    assert_int_equal(cudaEventCreate(&e1), cudaSuccess);
    assert_int_equal(cudaEventCreate(&e2), cudaSuccess);
    cudaGraph_t g;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    cudaGraphNode_t rec, cp, wait;
    assert_int_equal(cudaGraphAddEventRecordNode(&rec, g, NULL, 0, e1), cudaSuccess);
    assert_int_equal(cudaGraphAddMemcpyNode1D(&cp, g, &rec, 1, b, a, 4, cudaMemcpyHostToHost),
                     cudaSuccess);
    assert_int_equal(cudaGraphAddEventWaitNode(&wait, g, &cp, 1, e1), cudaSuccess);
    assert_int_equal(cudaGraphEventRecordNodeSetEvent(rec, e2), cudaSuccess);
    assert_int_equal(cudaGraphEventWaitNodeSetEvent(wait, e2), cudaSuccess);
    cudaEvent_t got = NULL;
    assert_int_equal(cudaGraphEventRecordNodeGetEvent(rec, &got), cudaSuccess);
    assert_ptr_equal(got, e2);
    assert_int_equal(cudaGraphEventWaitNodeGetEvent(wait, &got), cudaSuccess);
    assert_ptr_equal(got, e2);
    assert_int_equal(cudaGraphEventRecordNodeSetEvent(cp, e2), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphEventWaitNodeSetEvent(wait, NULL), cudaErrorInvalidValue);
    (void)cudaGetLastError();

    memset(a, 5, sizeof a);
    assert_int_equal(cudaGraphMemcpyNodeSetParams1D(cp, b + 2, a, 6, cudaMemcpyHostToHost),
                     cudaSuccess);
    struct cudaMemcpy3DParms cpp;
    assert_int_equal(cudaGraphMemcpyNodeGetParams(cp, &cpp), cudaSuccess);
    assert_ptr_equal(cpp.dstPtr.ptr, b + 2);
    assert_int_equal(cpp.extent.width, 6);
    struct cudaGraphNodeParams gp;
    memset(&gp, 0, sizeof gp);
    gp.type = cudaGraphNodeTypeEventRecord;
    gp.eventRecord.event = e1;
    assert_int_equal(cudaGraphNodeSetParams(rec, &gp), cudaSuccess);
    assert_int_equal(cudaGraphEventRecordNodeGetEvent(rec, &got), cudaSuccess);
    assert_ptr_equal(got, e1);
    assert_int_equal(cudaGraphNodeSetParams(cp, &gp), cudaErrorInvalidValue);
    (void)cudaGetLastError();

    cudaGraphExec_t x;
    assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    assert_int_equal(cudaGraphLaunch(x, NULL), cudaSuccess);
    assert_int_equal(b[7], 5);
    assert_int_equal(b[1], 0);
    assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);

    /* removing the middle node takes its edges; the last moves up */
    assert_int_equal(cudaGraphDestroyNode(cp), cudaSuccess);
    size_t n = 0;
    assert_int_equal(cudaGraphGetNodes(g, NULL, &n), cudaSuccess);
    assert_int_equal(n, 2);
    assert_int_equal(cudaGraphGetEdges(g, NULL, NULL, NULL, &n), cudaSuccess);
    assert_int_equal(n, 0);
    cudaGraphNode_t nodes[2];
    n = 2;
    assert_int_equal(cudaGraphGetNodes(g, nodes, &n), cudaSuccess);
    assert_ptr_equal(nodes[0], rec);
    assert_ptr_equal(nodes[1], wait);
    assert_int_equal(sc_rt_node_index(wait), 1);
    assert_int_equal(cudaGraphAddDependencies(g, &rec, &wait, NULL, 1), cudaSuccess);
    assert_int_equal(cudaGraphDestroyNode(NULL), cudaErrorInvalidValue);
    (void)cudaGetLastError();
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    cudaEventDestroy(e1);
    cudaEventDestroy(e2);
}

static void t_exec_child_graph(void **state)
{
    (void)state;
    unsigned char a[4] = {0};
    cudaGraph_t child, child2, child3, g;
    cudaGraphNode_t n, cn;
    assert_int_equal(cudaGraphCreate(&child, 0), cudaSuccess);
    struct cudaMemsetParams m = memset_params(a, 1, 4);
    assert_int_equal(cudaGraphAddMemsetNode(&n, child, NULL, 0, &m), cudaSuccess);
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    assert_int_equal(cudaGraphAddChildGraphNode(&cn, g, NULL, 0, child), cudaSuccess);
    cudaGraphExec_t x;
    assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    assert_int_equal(cudaGraphCreate(&child2, 0), cudaSuccess);
    m = memset_params(a, 2, 4);
    assert_int_equal(cudaGraphAddMemsetNode(&n, child2, NULL, 0, &m), cudaSuccess);
    assert_int_equal(cudaGraphExecChildGraphNodeSetParams(x, cn, child2), cudaSuccess);
    assert_int_equal(cudaGraphLaunch(x, NULL), cudaSuccess);
    assert_int_equal(a[3], 2);
    /* another topology is refused */
    assert_int_equal(cudaGraphCreate(&child3, 0), cudaSuccess);
    assert_int_equal(cudaGraphExecChildGraphNodeSetParams(x, cn, child3), cudaErrorInvalidValue);
    (void)cudaGetLastError();
    assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(child), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(child2), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(child3), cudaSuccess);
}

static void t_kernel_node_attributes(void **state)
{
    (void)state;
    cudaGraph_t g, c;
    cudaGraphNode_t k1, k2, e;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    struct cudaKernelNodeParams k;
    memset(&k, 0, sizeof k);
    k.func = (void *)kernel_stub;
    k.gridDim = (dim3){1, 1, 1};
    k.blockDim = (dim3){1, 1, 1};
    assert_int_equal(cudaGraphAddKernelNode(&k1, g, NULL, 0, &k), cudaSuccess);
    assert_int_equal(cudaGraphAddKernelNode(&k2, g, NULL, 0, &k), cudaSuccess);
    assert_int_equal(cudaGraphAddEmptyNode(&e, g, NULL, 0), cudaSuccess);
    cudaLaunchAttributeValue v;
    memset(&v, 0x55, sizeof v);
    assert_int_equal(cudaGraphKernelNodeGetAttribute(k1, cudaKernelNodeAttributePriority, &v),
                     cudaSuccess);
    assert_int_equal(v.priority, 0);
    v.priority = -3;
    assert_int_equal(cudaGraphKernelNodeSetAttribute(k1, cudaKernelNodeAttributePriority, &v),
                     cudaSuccess);
    memset(&v, 0, sizeof v);
    v.cooperative = 1;
    assert_int_equal(cudaGraphKernelNodeSetAttribute(k1, cudaKernelNodeAttributeCooperative, &v),
                     cudaSuccess);
    assert_int_equal(cudaGraphKernelNodeCopyAttributes(k2, k1), cudaSuccess);
    memset(&v, 0, sizeof v);
    assert_int_equal(cudaGraphKernelNodeGetAttribute(k2, cudaKernelNodeAttributePriority, &v),
                     cudaSuccess);
    assert_int_equal(v.priority, -3);
    /* a clone keeps them */
    assert_int_equal(cudaGraphClone(&c, g), cudaSuccess);
    cudaGraphNode_t ck;
    assert_int_equal(cudaGraphNodeFindInClone(&ck, k1, c), cudaSuccess);
    memset(&v, 0, sizeof v);
    assert_int_equal(cudaGraphKernelNodeGetAttribute(ck, cudaKernelNodeAttributeCooperative, &v),
                     cudaSuccess);
    assert_int_equal(v.cooperative, 1);
    assert_int_equal(cudaGraphKernelNodeGetAttribute(e, cudaKernelNodeAttributePriority, &v),
                     cudaErrorInvalidValue);
    assert_int_equal(cudaGraphKernelNodeSetAttribute(k1, cudaLaunchAttributeIgnore, &v),
                     cudaErrorInvalidValue);
    assert_int_equal(cudaGraphKernelNodeCopyAttributes(e, k1), cudaErrorInvalidValue);
    (void)cudaGetLastError();
    assert_int_equal(cudaGraphDestroy(c), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

/* Nodes are made from the memory of destroyed ones (graph_nodes.c): a
 * new node has none of an old one's settings. */
static void t_new_node_keeps_nothing_of_a_destroyed_one(void **state)
{
    (void)state;
    struct cudaKernelNodeParams k;
    memset(&k, 0, sizeof k);
    k.func = (void *)kernel_stub;
    k.gridDim = (dim3){1, 1, 1};
    k.blockDim = (dim3){1, 1, 1};
    cudaGraph_t g;
    cudaGraphNode_t n[4];
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    cudaLaunchAttributeValue v;
    for (int i = 0; i < 4; i++) {
        assert_int_equal(cudaGraphAddKernelNode(&n[i], g, NULL, 0, &k), cudaSuccess);
        memset(&v, 0, sizeof v);
        v.priority = -3;
        assert_int_equal(cudaGraphKernelNodeSetAttribute(n[i], cudaKernelNodeAttributePriority, &v),
                         cudaSuccess);
    }
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(cudaGraphAddKernelNode(&n[i], g, NULL, 0, &k), cudaSuccess);
        memset(&v, 0x55, sizeof v);
        assert_int_equal(cudaGraphKernelNodeGetAttribute(n[i], cudaKernelNodeAttributePriority, &v),
                         cudaSuccess);
        assert_int_equal(v.priority, 0);
    }
    /* A node disabled in an exec, whose memory the next graph gets. */
    cudaGraphExec_t x;
    assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    for (int i = 0; i < 4; i++)
        assert_int_equal(cudaGraphNodeSetEnabled(x, n[i], 0), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    for (int i = 0; i < 4; i++)
        assert_int_equal(cudaGraphAddKernelNode(&n[i], g, NULL, 0, &k), cudaSuccess);
    assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    for (int i = 0; i < 4; i++) {
        unsigned int on = 7;
        assert_int_equal(cudaGraphNodeGetEnabled(x, n[i], &on), cudaSuccess);
        assert_int_equal(on, 1);
    }
    assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

static int g_destroyed;
static void uobj_destroy(void *p)
{
    g_destroyed += *(int *)p;
}

static void t_user_objects(void **state)
{
    (void)state;
    int one = 1;
    g_destroyed = 0;
    cudaUserObject_t o;
    assert_int_equal(cudaUserObjectCreate(&o, &one, uobj_destroy, 1, 0), cudaErrorInvalidValue);
    assert_int_equal(cudaUserObjectCreate(&o, &one, NULL, 1, cudaUserObjectNoDestructorSync),
                     cudaErrorInvalidValue);
    (void)cudaGetLastError();
    assert_int_equal(
        cudaUserObjectCreate(&o, &one, uobj_destroy, 1, cudaUserObjectNoDestructorSync),
        cudaSuccess);
    assert_int_equal(cudaUserObjectRetain(o, 2), cudaSuccess);
    assert_int_equal(cudaUserObjectRelease(o, 2), cudaSuccess);
    assert_int_equal(g_destroyed, 0);

    /* the program's reference moves to the graph; an exec takes its own */
    cudaGraph_t g;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    assert_int_equal(cudaGraphRetainUserObject(g, o, 1, cudaGraphUserObjectMove), cudaSuccess);
    cudaGraphExec_t x;
    assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    assert_int_equal(g_destroyed, 0);
    assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
    assert_int_equal(g_destroyed, 1);

    /* release by the graph itself */
    assert_int_equal(
        cudaUserObjectCreate(&o, &one, uobj_destroy, 1, cudaUserObjectNoDestructorSync),
        cudaSuccess);
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    assert_int_equal(cudaGraphRetainUserObject(g, o, 2, 0), cudaSuccess);
    assert_int_equal(cudaGraphReleaseUserObject(g, o, 3), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphReleaseUserObject(g, o, 2), cudaSuccess);
    assert_int_equal(g_destroyed, 1);
    assert_int_equal(cudaUserObjectRelease(o, 1), cudaSuccess);
    assert_int_equal(g_destroyed, 2);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    (void)cudaGetLastError();
}

/* A __device__ variable as nvcc registers it: every symbol copy, plain and
 * per-thread-stream, reads and writes its host shadow, with CUDA's checks. */
static void t_symbol_copies(void **state)
{
    (void)state;
    static char fatbin[16];
    static int shadow[4];
    void **h = __cudaRegisterFatBinary(fatbin);
    __cudaRegisterVar(h, (char *)shadow, (char *)"table", "table", 0, sizeof shadow, 0, 0);
    __cudaRegisterFatBinaryEnd(h);
    const int in[2] = {7, 9};
    int out[2] = {0, 0};
    assert_int_equal(cudaMemcpyToSymbol(shadow, in, sizeof in, 0, cudaMemcpyHostToDevice),
                     cudaSuccess);
    assert_int_equal(shadow[0], 7);
    assert_int_equal(
        cudaMemcpyToSymbol_ptds(shadow, in, sizeof in, 2 * sizeof(int), cudaMemcpyHostToDevice),
        cudaSuccess);
    assert_int_equal(shadow[3], 9);
    assert_int_equal(
        cudaMemcpyFromSymbol_ptds(out, shadow, sizeof out, 2 * sizeof(int), cudaMemcpyDeviceToHost),
        cudaSuccess);
    assert_int_equal(out[0], 7);
    assert_int_equal(out[1], 9);
    assert_int_equal(cudaMemcpyToSymbolAsync_ptsz(shadow, in + 1, sizeof(int), sizeof(int),
                                                  cudaMemcpyHostToDevice, 0),
                     cudaSuccess);
    assert_int_equal(cudaMemcpyFromSymbolAsync_ptsz(out, shadow, sizeof(int), sizeof(int),
                                                    cudaMemcpyDeviceToHost, 0),
                     cudaSuccess);
    assert_int_equal(cudaStreamSynchronize(0), cudaSuccess);
    assert_int_equal(out[0], 9);
    /* the checks: direction, range, a symbol nobody registered */
    assert_int_equal(cudaMemcpyToSymbol_ptds(shadow, in, sizeof in, 0, cudaMemcpyDeviceToHost),
                     cudaErrorInvalidMemcpyDirection);
    assert_int_equal(
        cudaMemcpyFromSymbol_ptds(out, shadow, sizeof out, 3 * sizeof(int), cudaMemcpyDeviceToHost),
        cudaErrorInvalidValue);
    assert_int_equal(
        cudaMemcpyToSymbolAsync_ptsz(out, in, sizeof(int), 0, cudaMemcpyHostToDevice, 0),
        cudaErrorInvalidSymbol);
    (void)cudaGetLastError();
}

/* An event destroyed after a graph took it: launching the graph no longer
 * touches the freed handle (the sanitizer build sees any use after free). */
static void t_destroyed_event_in_graph(void **state)
{
    (void)state;
    cudaEvent_t ev;
    assert_int_equal(cudaEventCreate(&ev), cudaSuccess);
    cudaGraph_t g;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    cudaGraphNode_t n;
    assert_int_equal(cudaGraphAddEventRecordNode(&n, g, NULL, 0, ev), cudaSuccess);
    cudaGraphExec_t x;
    assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    assert_int_equal(cudaEventDestroy(ev), cudaSuccess);
    assert_int_equal(cudaGraphLaunch(x, 0), cudaSuccess);
    assert_int_equal(cudaStreamSynchronize(0), cudaSuccess);
    assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_func_attributes),
        cmocka_unit_test(t_occupancy),
        cmocka_unit_test(t_limits_and_caches),
        cmocka_unit_test(t_devices),
        cmocka_unit_test(t_copy2d_outside_capture),
        cmocka_unit_test(t_copy3d_and_malloc3d),
        cmocka_unit_test(t_copy2d_in_capture),
        cmocka_unit_test(t_sync_forms_break_global_capture),
        cmocka_unit_test(t_cooperative_too_large),
        cmocka_unit_test(t_stream_attributes),
        cmocka_unit_test(t_managed_memory),
        cmocka_unit_test(t_exec_set_params),
        cmocka_unit_test(t_graph_setters_and_destroy_node),
        cmocka_unit_test(t_exec_child_graph),
        cmocka_unit_test(t_kernel_node_attributes),
        cmocka_unit_test(t_new_node_keeps_nothing_of_a_destroyed_one),
        cmocka_unit_test(t_user_objects),
        cmocka_unit_test(t_symbol_copies),
        cmocka_unit_test(t_destroyed_event_in_graph),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
