/*
 * test_cudart_pool.c - memory pools (cudart/rt_pool.c): the default and
 * current pool, pools created by the program, their attributes (used and
 * reserved memory follow what was allocated from them), access, and
 * cudaMallocFromPoolAsync in and out of capture.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rt.h"
#include "sc_cudart.h"

static unsigned long long attr(cudaMemPool_t p, enum cudaMemPoolAttr a)
{
    unsigned long long v = 12345;
    assert_int_equal(cudaMemPoolGetAttribute(p, a, &v), cudaSuccess);
    return v;
}

static struct cudaMemPoolProps device_props(void)
{
    struct cudaMemPoolProps pr;
    memset(&pr, 0, sizeof pr);
    pr.allocType = cudaMemAllocationTypePinned;
    pr.location.type = cudaMemLocationTypeDevice;
    pr.location.id = 0;
    return pr;
}

static void t_default_pool(void **state)
{
    (void)state;
    cudaMemPool_t d = NULL, cur = NULL, byloc = NULL;
    assert_int_equal(cudaDeviceGetDefaultMemPool(&d, 0), cudaSuccess);
    assert_non_null(d);
    assert_int_equal(cudaDeviceGetMemPool(&cur, 0), cudaSuccess);
    assert_ptr_equal(cur, d);
    struct cudaMemLocation dev0 = {cudaMemLocationTypeDevice, 0};
    assert_int_equal(cudaMemGetDefaultMemPool(&byloc, &dev0, cudaMemAllocationTypePinned),
                     cudaSuccess);
    assert_ptr_equal(byloc, d);
    assert_int_equal(cudaMemGetMemPool(&byloc, &dev0, cudaMemAllocationTypePinned), cudaSuccess);
    assert_ptr_equal(byloc, d);
    assert_int_equal(cudaDeviceGetDefaultMemPool(&d, 1), cudaErrorInvalidDevice);
    struct cudaMemLocation dev1 = {cudaMemLocationTypeDevice, 1};
    assert_int_equal(cudaMemGetDefaultMemPool(&byloc, &dev1, cudaMemAllocationTypePinned),
                     cudaErrorInvalidDevice);
    assert_int_equal(cudaMemGetDefaultMemPool(&byloc, &dev0, cudaMemAllocationTypeInvalid),
                     cudaErrorInvalidValue);
    assert_int_equal(cudaMemPoolDestroy(d), cudaErrorInvalidValue);
    (void)cudaGetLastError();
    /* CUDA's defaults */
    assert_int_equal(attr(d, cudaMemPoolAttrReleaseThreshold), 0);
    int reuse = 0;
    assert_int_equal(cudaMemPoolGetAttribute(d, cudaMemPoolReuseAllowOpportunistic, &reuse),
                     cudaSuccess);
    assert_int_equal(reuse, 1);
}

static void t_used_memory_follows_allocations(void **state)
{
    (void)state;
    struct cudaMemPoolProps pr = device_props();
    cudaMemPool_t p = NULL;
    assert_int_equal(cudaMemPoolCreate(&p, &pr), cudaSuccess);
    cudaStream_t s;
    assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
    void *a = NULL, *b = NULL;
    assert_int_equal(cudaMallocFromPoolAsync(&a, 1000, p, s), cudaSuccess);
    assert_int_equal(cudaMallocFromPoolAsync(&b, 24, p, s), cudaSuccess);
    assert_int_equal(attr(p, cudaMemPoolAttrUsedMemCurrent), 1024);
    assert_int_equal(attr(p, cudaMemPoolAttrUsedMemHigh), 1024);
    assert_int_equal(attr(p, cudaMemPoolAttrReservedMemCurrent), 1024);
    assert_int_equal(cudaFreeAsync(a, s), cudaSuccess);
    assert_int_equal(attr(p, cudaMemPoolAttrUsedMemCurrent), 24);
    assert_int_equal(attr(p, cudaMemPoolAttrUsedMemHigh), 1024);
    /* threshold 0: freed memory goes back at once */
    assert_int_equal(attr(p, cudaMemPoolAttrReservedMemCurrent), 24);
    assert_int_equal(attr(p, cudaMemPoolAttrReservedMemHigh), 1024);
    unsigned long long zero = 0, keep = 1 << 20;
    assert_int_equal(cudaMemPoolSetAttribute(p, cudaMemPoolAttrUsedMemHigh, &zero), cudaSuccess);
    assert_int_equal(attr(p, cudaMemPoolAttrUsedMemHigh), 24);
    assert_int_equal(cudaMemPoolSetAttribute(p, cudaMemPoolAttrUsedMemHigh, &keep),
                     cudaErrorInvalidValue);
    assert_int_equal(cudaMemPoolSetAttribute(p, cudaMemPoolAttrUsedMemCurrent, &zero),
                     cudaErrorInvalidValue);
    (void)cudaGetLastError();

    /* a release threshold keeps freed memory reserved until trimmed */
    assert_int_equal(cudaMemPoolSetAttribute(p, cudaMemPoolAttrReleaseThreshold, &keep),
                     cudaSuccess);
    assert_int_equal(attr(p, cudaMemPoolAttrReleaseThreshold), keep);
    assert_int_equal(cudaMallocFromPoolAsync(&a, 4096, p, s), cudaSuccess);
    assert_int_equal(cudaFree(a), cudaSuccess); /* cudaFree works on pool memory too */
    assert_int_equal(attr(p, cudaMemPoolAttrUsedMemCurrent), 24);
    assert_int_equal(attr(p, cudaMemPoolAttrReservedMemCurrent), 4120);
    assert_int_equal(cudaMemPoolTrimTo(p, 100), cudaSuccess);
    assert_int_equal(attr(p, cudaMemPoolAttrReservedMemCurrent), 100);
    assert_int_equal(cudaMemPoolTrimTo(p, 0), cudaSuccess);
    assert_int_equal(attr(p, cudaMemPoolAttrReservedMemCurrent), 24);

    int off = 0, v = 1;
    assert_int_equal(cudaMemPoolSetAttribute(p, cudaMemPoolReuseFollowEventDependencies, &off),
                     cudaSuccess);
    assert_int_equal(cudaMemPoolGetAttribute(p, cudaMemPoolReuseFollowEventDependencies, &v),
                     cudaSuccess);
    assert_int_equal(v, 0);

    /* the default pool saw none of it */
    cudaMemPool_t d;
    assert_int_equal(cudaDeviceGetDefaultMemPool(&d, 0), cudaSuccess);
    assert_int_equal(attr(d, cudaMemPoolAttrUsedMemHigh), 0);
    assert_int_equal(cudaFreeAsync(b, s), cudaSuccess);
    assert_int_equal(cudaMemPoolDestroy(p), cudaSuccess);
    unsigned long long x;
    assert_int_equal(cudaMemPoolGetAttribute(p, cudaMemPoolAttrUsedMemCurrent, &x),
                     cudaErrorInvalidValue);
    (void)cudaGetLastError();
}

static void t_current_pool(void **state)
{
    (void)state;
    struct cudaMemPoolProps pr = device_props();
    cudaMemPool_t p = NULL, d = NULL, cur = NULL;
    assert_int_equal(cudaMemPoolCreate(&p, &pr), cudaSuccess);
    assert_int_equal(cudaDeviceGetDefaultMemPool(&d, 0), cudaSuccess);
    assert_int_equal(cudaDeviceSetMemPool(0, p), cudaSuccess);
    assert_int_equal(cudaDeviceGetMemPool(&cur, 0), cudaSuccess);
    assert_ptr_equal(cur, p);
    void *a = NULL;
    assert_int_equal(cudaMallocAsync(&a, 512, 0), cudaSuccess);
    assert_int_equal(attr(p, cudaMemPoolAttrUsedMemCurrent), 512);
    assert_int_equal(attr(d, cudaMemPoolAttrUsedMemCurrent), 0);
    /* destroyed while current: the default is current again; the block stays valid */
    assert_int_equal(cudaMemPoolDestroy(p), cudaSuccess);
    assert_int_equal(cudaDeviceGetMemPool(&cur, 0), cudaSuccess);
    assert_ptr_equal(cur, d);
    assert_int_equal(cudaFreeAsync(a, 0), cudaSuccess);
    struct cudaMemLocation dev0 = {cudaMemLocationTypeDevice, 0};
    assert_int_equal(cudaMemPoolCreate(&p, &pr), cudaSuccess);
    assert_int_equal(cudaMemSetMemPool(&dev0, cudaMemAllocationTypePinned, p), cudaSuccess);
    assert_int_equal(cudaMemGetMemPool(&cur, &dev0, cudaMemAllocationTypePinned), cudaSuccess);
    assert_ptr_equal(cur, p);
    assert_int_equal(cudaDeviceSetMemPool(0, d), cudaSuccess);
    assert_int_equal(cudaDeviceSetMemPool(1, d), cudaErrorInvalidDevice);
    assert_int_equal(cudaDeviceSetMemPool(0, NULL), cudaErrorInvalidValue);
    (void)cudaGetLastError();
    assert_int_equal(cudaMemPoolDestroy(p), cudaSuccess);
}

static void t_create_and_access(void **state)
{
    (void)state;
    struct cudaMemPoolProps pr = device_props();
    cudaMemPool_t p = NULL;
    assert_int_equal(cudaMemPoolCreate(NULL, &pr), cudaErrorInvalidValue);
    assert_int_equal(cudaMemPoolCreate(&p, NULL), cudaErrorInvalidValue);
    pr.allocType = cudaMemAllocationTypeInvalid;
    assert_int_equal(cudaMemPoolCreate(&p, &pr), cudaErrorInvalidValue);
    pr = device_props();
    pr.location.id = 3;
    assert_int_equal(cudaMemPoolCreate(&p, &pr), cudaErrorInvalidDevice);
    (void)cudaGetLastError();
    pr = device_props();
    assert_int_equal(cudaMemPoolCreate(&p, &pr), cudaSuccess);

    struct cudaMemAccessDesc rw = {{cudaMemLocationTypeDevice, 0}, cudaMemAccessFlagsProtReadWrite};
    assert_int_equal(cudaMemPoolSetAccess(p, &rw, 1), cudaSuccess);
    struct cudaMemAccessDesc none = {{cudaMemLocationTypeDevice, 0}, cudaMemAccessFlagsProtNone};
    assert_int_equal(cudaMemPoolSetAccess(p, &none, 1), cudaErrorInvalidValue);
    struct cudaMemAccessDesc other = {{cudaMemLocationTypeDevice, 1},
                                      cudaMemAccessFlagsProtReadWrite};
    assert_int_equal(cudaMemPoolSetAccess(p, &other, 1), cudaErrorInvalidDevice);
    (void)cudaGetLastError();
    enum cudaMemAccessFlags f = cudaMemAccessFlagsProtNone;
    struct cudaMemLocation dev0 = {cudaMemLocationTypeDevice, 0};
    assert_int_equal(cudaMemPoolGetAccess(&f, p, &dev0), cudaSuccess);
    assert_int_equal(f, cudaMemAccessFlagsProtReadWrite);
    assert_int_equal(cudaMemPoolGetAccess(&f, p, NULL), cudaErrorInvalidValue);
    (void)cudaGetLastError();
    assert_int_equal(cudaMemPoolDestroy(p), cudaSuccess);
    assert_int_equal(cudaMemPoolDestroy(p), cudaErrorInvalidValue);
    (void)cudaGetLastError();
}

/* In capture a pool allocation is a mem_alloc node, as cudaMallocAsync. */
static void t_from_pool_in_capture(void **state)
{
    (void)state;
    struct cudaMemPoolProps pr = device_props();
    cudaMemPool_t p = NULL;
    assert_int_equal(cudaMemPoolCreate(&p, &pr), cudaSuccess);
    cudaStream_t s;
    assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
    assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    void *a = NULL;
    assert_int_equal(cudaMallocFromPoolAsync_ptsz(&a, 256, p, s), cudaSuccess);
    assert_non_null(a);
    assert_int_equal(cudaFreeAsync(a, s), cudaSuccess);
    assert_int_equal(cudaMallocFromPoolAsync(&a, 256, (cudaMemPool_t)&pr, s),
                     cudaErrorInvalidValue);
    (void)cudaGetLastError();
    cudaGraph_t g = NULL;
    assert_int_equal(cudaStreamEndCapture(s, &g), cudaSuccess);
    assert_int_equal(sc_rt_graph_node_count(g), 2);
    assert_int_equal(sc_rt_node_desc_of(sc_rt_graph_node_at(g, 0))->type,
                     cudaGraphNodeTypeMemAlloc);
    assert_int_equal(sc_rt_node_desc_of(sc_rt_graph_node_at(g, 0))->size, 256);
    assert_int_equal(attr(p, cudaMemPoolAttrUsedMemHigh), 0);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    assert_int_equal(cudaMemPoolDestroy(p), cudaSuccess);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_default_pool),
        cmocka_unit_test(t_used_memory_follows_allocations),
        cmocka_unit_test(t_current_pool),
        cmocka_unit_test(t_create_and_access),
        cmocka_unit_test(t_from_pool_in_capture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
