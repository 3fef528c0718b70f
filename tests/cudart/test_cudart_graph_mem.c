/*
 * test_cudart_graph_mem.c - graph memory (cudart/graph_mem.c): addresses
 * of mem-alloc nodes (reused within a graph when a free is ordered before
 * the alloc, never across graphs), the device's graph memory pool as
 * launches fill it (cudaDeviceGetGraphMemAttribute, Set, Trim), and
 * allocations a graph leaves live (cudaFree, cudaFreeAsync, a later
 * graph's free node, relaunch refused).
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

enum { MB = 1 << 20 };

static uint64_t gattr(enum cudaGraphMemAttributeType a)
{
    uint64_t v = 12345;
    assert_int_equal(cudaDeviceGetGraphMemAttribute(0, a, &v), cudaSuccess);
    return v;
}

static uint64_t footprint(void)
{
    uint64_t used = gattr(cudaGraphMemAttrUsedMemCurrent);
    assert_int_equal(gattr(cudaGraphMemAttrReservedMemCurrent), used);
    return used;
}

static struct cudaMemAllocNodeParams alloc_params(size_t bytes)
{
    struct cudaMemAllocNodeParams p;
    memset(&p, 0, sizeof p);
    p.bytesize = bytes;
    p.poolProps.allocType = cudaMemAllocationTypePinned;
    p.poolProps.location.type = cudaMemLocationTypeDevice;
    p.poolProps.location.id = 0;
    return p;
}

static void *add_alloc(cudaGraphNode_t *n, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps,
                       size_t bytes)
{
    struct cudaMemAllocNodeParams p = alloc_params(bytes);
    assert_int_equal(cudaGraphAddMemAllocNode(n, g, deps, ndeps, &p), cudaSuccess);
    assert_non_null(p.dptr);
    assert_int_equal((uintptr_t)p.dptr % 256, 0);
    return p.dptr;
}

/* alloc -> free, instantiated; the graph is destroyed, the exec kept. */
static cudaGraphExec_t alloc_free_exec(size_t bytes, void **ptr)
{
    cudaGraph_t g;
    cudaGraphNode_t a, f;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    *ptr = add_alloc(&a, g, NULL, 0, bytes);
    assert_int_equal(cudaGraphAddMemFreeNode(&f, g, &a, 1, *ptr), cudaSuccess);
    cudaGraphExec_t x;
    assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    return x;
}

static cudaGraphExec_t alloc_only_exec(size_t bytes, void **ptr)
{
    cudaGraph_t g;
    cudaGraphNode_t a;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    *ptr = add_alloc(&a, g, NULL, 0, bytes);
    cudaGraphExec_t x;
    assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    return x;
}

static void t_attribute_errors(void **state)
{
    (void)state;
    uint64_t v = 0;
    assert_int_equal(footprint(), 0);
    assert_int_equal(cudaDeviceGetGraphMemAttribute(1, cudaGraphMemAttrUsedMemCurrent, &v),
                     cudaErrorInvalidDevice);
    assert_int_equal(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, NULL),
                     cudaErrorInvalidValue);
    assert_int_equal(cudaDeviceGetGraphMemAttribute(0, (enum cudaGraphMemAttributeType)7, &v),
                     cudaErrorInvalidValue);
    assert_int_equal(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &v),
                     cudaErrorInvalidValue);
    v = 5;
    assert_int_equal(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &v),
                     cudaErrorInvalidValue);
    v = 0;
    assert_int_equal(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &v),
                     cudaSuccess);
    assert_int_equal(cudaDeviceGraphMemTrim(0), cudaSuccess);
    assert_int_equal(cudaDeviceGraphMemTrim(1), cudaErrorInvalidDevice);
    (void)cudaGetLastError();
}

/* A free ordered before an alloc lends its address; anything that could
 * overlap does not. */
static void t_address_reuse(void **state)
{
    (void)state;
    cudaGraph_t g, h;
    cudaGraphNode_t a, fa, b, fb, c, d, e;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    void *pa = add_alloc(&a, g, NULL, 0, 4 * MB);
    assert_int_equal(cudaGraphAddMemFreeNode(&fa, g, &a, 1, pa), cudaSuccess);
    /* Not ordered after the free: a different address. */
    void *pc = add_alloc(&c, g, &a, 1, 4 * MB);
    assert_ptr_not_equal(pc, pa);
    /* Ordered after the free: the same one. */
    void *pb = add_alloc(&b, g, &fa, 1, 4 * MB);
    assert_ptr_equal(pb, pa);
    /* The address is in use again by b until b's free: a node after fa
     * alone may not take it, nor one bigger than the block. */
    void *pd = add_alloc(&d, g, &fa, 1, MB);
    assert_ptr_not_equal(pd, pa);
    assert_int_equal(cudaGraphAddMemFreeNode(&fb, g, &b, 1, pb), cudaSuccess);
    void *pe = add_alloc(&e, g, &fb, 1, 8 * MB);
    assert_ptr_not_equal(pe, pa);
    /* Smaller, after b's free: reused a second time. */
    cudaGraphNode_t f2;
    void *pf = add_alloc(&f2, g, &fb, 1, MB);
    assert_ptr_equal(pf, pa);
    struct cudaMemAllocNodeParams got;
    assert_int_equal(cudaGraphMemAllocNodeGetParams(f2, &got), cudaSuccess);
    assert_int_equal(got.bytesize, MB);
    assert_ptr_equal(got.dptr, pa);

    /* Another graph never shares an address. */
    cudaGraphNode_t ha;
    assert_int_equal(cudaGraphCreate(&h, 0), cudaSuccess);
    void *ph = add_alloc(&ha, h, NULL, 0, 4 * MB);
    assert_ptr_not_equal(ph, pa);
    assert_ptr_not_equal(ph, pc);
    assert_int_equal(cudaGraphDestroy(h), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

/* Launches in one stream reuse the pool's memory, launches in other
 * streams grow it; trim gives back what no live allocation holds. */
static void t_pool_per_stream(void **state)
{
    (void)state;
    const size_t bytes = 3 * MB + 100, block = 3 * MB + 256;
    cudaStream_t s1, s2;
    assert_int_equal(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
    assert_int_equal(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
    void *p1, *p2;
    cudaGraphExec_t x1 = alloc_free_exec(bytes, &p1);
    cudaGraphExec_t x2 = alloc_free_exec(bytes, &p2);
    assert_ptr_not_equal(p1, p2);
    assert_int_equal(footprint(), 0);
    assert_int_equal(cudaGraphLaunch(x1, s1), cudaSuccess);
    assert_int_equal(footprint(), block);
    assert_int_equal(cudaGraphLaunch(x1, s1), cudaSuccess);
    assert_int_equal(cudaGraphLaunch(x2, s1), cudaSuccess);
    assert_int_equal(footprint(), block);
    assert_int_equal(cudaGraphLaunch(x2, s2), cudaSuccess);
    assert_int_equal(footprint(), 2 * block);
    assert_int_equal(gattr(cudaGraphMemAttrUsedMemHigh), 2 * block);
    assert_int_equal(cudaStreamSynchronize(s1), cudaSuccess);
    assert_int_equal(cudaStreamSynchronize(s2), cudaSuccess);
    assert_int_equal(cudaDeviceGraphMemTrim(0), cudaSuccess);
    assert_int_equal(footprint(), 0);
    /* The watermarks stay until reset, each on its own. */
    assert_int_equal(gattr(cudaGraphMemAttrReservedMemHigh), 2 * block);
    uint64_t zero = 0;
    assert_int_equal(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero),
                     cudaSuccess);
    assert_int_equal(gattr(cudaGraphMemAttrUsedMemHigh), 0);
    assert_int_equal(gattr(cudaGraphMemAttrReservedMemHigh), 2 * block);
    assert_int_equal(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &zero),
                     cudaSuccess);
    assert_int_equal(gattr(cudaGraphMemAttrReservedMemHigh), 0);
    /* Within one launch, a block freed is a block the next alloc takes. */
    cudaGraph_t g;
    cudaGraphNode_t a, f, b, fb;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    void *pa = add_alloc(&a, g, NULL, 0, MB);
    assert_int_equal(cudaGraphAddMemFreeNode(&f, g, &a, 1, pa), cudaSuccess);
    void *pb = add_alloc(&b, g, &f, 1, MB);
    assert_int_equal(cudaGraphAddMemFreeNode(&fb, g, &b, 1, pb), cudaSuccess);
    cudaGraphExec_t x3;
    assert_int_equal(cudaGraphInstantiate(&x3, g, 0), cudaSuccess);
    assert_int_equal(cudaGraphLaunch(x3, s1), cudaSuccess);
    assert_int_equal(footprint(), MB);
    assert_int_equal(cudaGraphExecDestroy(x3), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    assert_int_equal(cudaDeviceGraphMemTrim(0), cudaSuccess);
    assert_int_equal(footprint(), 0);
    assert_int_equal(cudaGraphExecDestroy(x1), cudaSuccess);
    assert_int_equal(cudaGraphExecDestroy(x2), cudaSuccess);
    assert_int_equal(cudaStreamDestroy(s1), cudaSuccess);
    assert_int_equal(cudaStreamDestroy(s2), cudaSuccess);
}

/* An allocation the graph does not free stays live and usable; cudaFree
 * frees it once, and only then may the graph run again. */
static void t_unfreed_cudafree(void **state)
{
    (void)state;
    cudaStream_t s;
    assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
    void *p;
    cudaGraphExec_t x = alloc_only_exec(2 * MB, &p);
    assert_int_equal(cudaFree(p), cudaErrorInvalidDevicePointer); /* not launched yet */
    (void)cudaGetLastError();
    assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
    assert_int_equal(footprint(), 2 * MB);
    assert_int_equal(cudaGraphLaunch(x, s), cudaErrorInvalidValue);
    (void)cudaGetLastError();
    assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
    assert_int_equal(cudaDeviceGraphMemTrim(0), cudaSuccess);
    assert_int_equal(footprint(), 2 * MB);
    /* Valid memory: the program may copy into it and back. */
    unsigned char in[64], out[64];
    memset(in, 0xa5, sizeof in);
    assert_int_equal(cudaMemcpy(p, in, sizeof in, cudaMemcpyHostToDevice), cudaSuccess);
    assert_int_equal(cudaMemcpy(out, p, sizeof out, cudaMemcpyDeviceToHost), cudaSuccess);
    assert_memory_equal(in, out, sizeof in);
    assert_int_equal(cudaFree(p), cudaSuccess);
    assert_int_equal(footprint(), 2 * MB); /* freed, not trimmed */
    assert_int_equal(cudaFree(p), cudaErrorInvalidDevicePointer);
    (void)cudaGetLastError();
    assert_int_equal(cudaDeviceGraphMemTrim(0), cudaSuccess);
    assert_int_equal(footprint(), 0);
    /* Free again, then cudaFreeAsync on the stream does it. */
    assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
    assert_int_equal(cudaFreeAsync(p, s), cudaSuccess);
    assert_int_equal(cudaFreeAsync(p, s), cudaErrorInvalidValue);
    (void)cudaGetLastError();
    assert_int_equal(cudaDeviceGraphMemTrim(0), cudaSuccess);
    assert_int_equal(footprint(), 0);
    assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
    assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

/* The allocation outlives its exec; a later graph's free node frees it. */
static void t_unfreed_outlives_exec(void **state)
{
    (void)state;
    cudaStream_t s;
    assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
    void *p;
    cudaGraphExec_t x = alloc_only_exec(MB, &p);
    assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
    assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
    assert_int_equal(cudaMemset(p, 7, MB), cudaSuccess);
    assert_int_equal(((unsigned char *)p)[MB - 1], 7);
    cudaGraph_t g;
    cudaGraphNode_t f;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    assert_int_equal(cudaGraphAddMemFreeNode(&f, g, NULL, 0, p), cudaSuccess);
    cudaGraphExec_t y;
    assert_int_equal(cudaGraphInstantiate(&y, g, 0), cudaSuccess);
    assert_int_equal(cudaGraphLaunch(y, s), cudaSuccess);
    assert_int_equal(footprint(), MB);
    assert_int_equal(cudaDeviceGraphMemTrim(0), cudaSuccess);
    assert_int_equal(footprint(), 0);
    assert_int_equal(cudaFree(p), cudaErrorInvalidDevicePointer);
    (void)cudaGetLastError();
    assert_int_equal(cudaGraphExecDestroy(y), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

/* An exec made to free on launch frees what its last launch left live. */
static void t_auto_free_on_launch(void **state)
{
    (void)state;
    cudaStream_t s;
    assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
    cudaGraph_t g;
    cudaGraphNode_t a;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    void *p = add_alloc(&a, g, NULL, 0, MB);
    cudaGraphExec_t x;
    assert_int_equal(cudaGraphInstantiateWithFlags(&x, g, cudaGraphInstantiateFlagAutoFreeOnLaunch),
                     cudaSuccess);
    assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
    assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
    assert_int_equal(footprint(), MB); /* the same block again */
    assert_int_equal(cudaFree(p), cudaSuccess);
    assert_int_equal(cudaFree(p), cudaErrorInvalidDevicePointer);
    (void)cudaGetLastError();
    assert_int_equal(cudaDeviceGraphMemTrim(0), cudaSuccess);
    assert_int_equal(footprint(), 0);
    assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

/* An exec updated with a graph of the same shape keeps its allocations. */
static void t_update_keeps_live(void **state)
{
    (void)state;
    cudaGraph_t g, h;
    cudaGraphNode_t a, b;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    assert_int_equal(cudaGraphCreate(&h, 0), cudaSuccess);
    void *p = add_alloc(&a, g, NULL, 0, MB);
    (void)add_alloc(&b, h, NULL, 0, MB);
    cudaGraphExec_t x;
    assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    assert_int_equal(cudaGraphLaunch(x, 0), cudaSuccess);
    cudaGraphExecUpdateResultInfo info;
    assert_int_equal(cudaGraphExecUpdate(x, h, &info), cudaSuccess);
    assert_int_equal(cudaGraphLaunch(x, 0), cudaErrorInvalidValue); /* p is live */
    (void)cudaGetLastError();
    assert_int_equal(cudaFree(p), cudaSuccess);
    assert_int_equal(cudaGraphLaunch(x, 0), cudaSuccess);
    assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(h), cudaSuccess);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_attribute_errors),      cmocka_unit_test(t_address_reuse),
        cmocka_unit_test(t_pool_per_stream),       cmocka_unit_test(t_unfreed_cudafree),
        cmocka_unit_test(t_unfreed_outlives_exec), cmocka_unit_test(t_auto_free_on_launch),
        cmocka_unit_test(t_update_keeps_live),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
