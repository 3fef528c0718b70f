/*
 * test_graph_api.c - the stand-in's cudaGraph* API as a program uses it:
 * graphs built by hand, queried, cloned, instantiated and launched, with
 * CUDA's errors for bad arguments.  Only public calls, so it runs against
 * the built libcudart.so.13 and against the graph half with a stub
 * runtime alike.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "abi_graph.h"
#include "read_text.h"

/* The runtime calls the tests use (their CUDA prototypes). */
cudaError_t cudaGetLastError(void);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventDestroy(cudaEvent_t event);

static void kernel_stub(void) {}

/* Host nodes append their tag here, so a test sees the order they ran. */
typedef struct trace {
    char seen[64];
    size_t n;
} trace;

typedef struct tag {
    trace *t;
    char c;
} tag;

static void record(void *arg)
{
    tag *g = arg;
    g->t->seen[g->t->n++] = g->c;
}

static cudaGraphNode_t add_host(cudaGraph_t g, const cudaGraphNode_t *deps, size_t n, tag *t)
{
    struct cudaHostNodeParams p = {record, t};
    cudaGraphNode_t node = NULL;
    assert_int_equal(cudaGraphAddHostNode(&node, g, deps, n, &p), cudaSuccess);
    return node;
}

static void launch_once(cudaGraph_t g)
{
    cudaGraphExec_t x;
    assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    assert_int_equal(cudaGraphLaunch(x, NULL), cudaSuccess);
    assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
}

static size_t pos(const trace *t, char c)
{
    const char *p = memchr(t->seen, c, t->n);
    assert_non_null(p);
    return (size_t)(p - t->seen);
}

static void test_every_node_kind(void **state)
{
    (void)state;
    cudaGraph_t g, child;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    assert_int_equal(cudaGraphCreate(&child, 0), cudaSuccess);
    cudaGraphNode_t n[11], c0;
    assert_int_equal(cudaGraphAddEmptyNode(&c0, child, NULL, 0), cudaSuccess);

    char a[32] = "source", b[32] = {0};
    struct cudaKernelNodeParams k = {.func = (void *)kernel_stub,
                                     .gridDim = {4, 2, 1},
                                     .blockDim = {128, 1, 1},
                                     .sharedMemBytes = 16};
    assert_int_equal(cudaGraphAddKernelNode(&n[0], g, NULL, 0, &k), cudaSuccess);
    struct cudaMemcpy3DParms cp = {0};
    cp.srcPtr = (struct cudaPitchedPtr){a, sizeof a, sizeof a, 1};
    cp.dstPtr = (struct cudaPitchedPtr){b, sizeof b, sizeof b, 1};
    cp.extent = (struct cudaExtent){sizeof a, 1, 1};
    cp.kind = cudaMemcpyHostToHost;
    assert_int_equal(cudaGraphAddMemcpyNode(&n[1], g, &n[0], 1, &cp), cudaSuccess);
    assert_int_equal(cudaGraphAddMemcpyNode1D(&n[2], g, NULL, 0, b, a, 4, cudaMemcpyDefault),
                     cudaSuccess);
    struct cudaMemsetParams ms = {.dst = b, .value = 7, .elementSize = 1, .width = 4, .height = 1};
    assert_int_equal(cudaGraphAddMemsetNode(&n[3], g, NULL, 0, &ms), cudaSuccess);
    trace t = {0};
    tag th = {&t, 'h'};
    n[4] = add_host(g, NULL, 0, &th);
    assert_int_equal(cudaGraphAddEmptyNode(&n[5], g, NULL, 0), cudaSuccess);
    cudaEvent_t e;
    assert_int_equal(cudaEventCreate(&e), cudaSuccess);
    assert_int_equal(cudaGraphAddEventRecordNode(&n[6], g, NULL, 0, e), cudaSuccess);
    assert_int_equal(cudaGraphAddEventWaitNode(&n[7], g, NULL, 0, e), cudaSuccess);
    assert_int_equal(cudaGraphAddChildGraphNode(&n[8], g, NULL, 0, child), cudaSuccess);
    struct cudaMemAllocNodeParams ap = {0};
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.bytesize = 1000;
    assert_int_equal(cudaGraphAddMemAllocNode(&n[9], g, NULL, 0, &ap), cudaSuccess);
    assert_non_null(ap.dptr);
    assert_int_equal(cudaGraphAddMemFreeNode(&n[10], g, &n[9], 1, ap.dptr), cudaSuccess);

    static const enum cudaGraphNodeType want[11] = {
        cudaGraphNodeTypeKernel,      cudaGraphNodeTypeMemcpy,    cudaGraphNodeTypeMemcpy,
        cudaGraphNodeTypeMemset,      cudaGraphNodeTypeHost,      cudaGraphNodeTypeEmpty,
        cudaGraphNodeTypeEventRecord, cudaGraphNodeTypeWaitEvent, cudaGraphNodeTypeGraph,
        cudaGraphNodeTypeMemAlloc,    cudaGraphNodeTypeMemFree};
    size_t count = 0;
    assert_int_equal(cudaGraphGetNodes(g, NULL, &count), cudaSuccess);
    assert_int_equal(count, 11);
    cudaGraphNode_t got[11];
    assert_int_equal(cudaGraphGetNodes(g, got, &count), cudaSuccess);
    for (size_t i = 0; i < 11; i++) {
        enum cudaGraphNodeType type;
        assert_ptr_equal(got[i], n[i]);
        assert_int_equal(cudaGraphNodeGetType(n[i], &type), cudaSuccess);
        assert_int_equal(type, want[i]);
    }

    struct cudaKernelNodeParams kp;
    assert_int_equal(cudaGraphKernelNodeGetParams(n[0], &kp), cudaSuccess);
    assert_ptr_equal(kp.func, (void *)kernel_stub);
    assert_int_equal(kp.gridDim.x, 4);
    assert_int_equal(kp.gridDim.y, 2);
    assert_int_equal(kp.blockDim.x, 128);
    assert_int_equal(kp.sharedMemBytes, 16);
    struct cudaMemcpy3DParms cg;
    assert_int_equal(cudaGraphMemcpyNodeGetParams(n[1], &cg), cudaSuccess);
    assert_int_equal(cg.extent.width, sizeof a);
    assert_ptr_equal(cg.dstPtr.ptr, b);
    struct cudaMemsetParams mg;
    assert_int_equal(cudaGraphMemsetNodeGetParams(n[3], &mg), cudaSuccess);
    assert_int_equal(mg.value, 7);
    struct cudaHostNodeParams hg;
    assert_int_equal(cudaGraphHostNodeGetParams(n[4], &hg), cudaSuccess);
    assert_ptr_equal(hg.userData, &th);
    cudaEvent_t eg;
    assert_int_equal(cudaGraphEventRecordNodeGetEvent(n[6], &eg), cudaSuccess);
    assert_ptr_equal(eg, e);
    cudaGraph_t cg2;
    assert_int_equal(cudaGraphChildGraphNodeGetGraph(n[8], &cg2), cudaSuccess);
    assert_ptr_not_equal(cg2, child); /* the node holds its own clone */
    assert_int_equal(cudaGraphGetNodes(cg2, NULL, &count), cudaSuccess);
    assert_int_equal(count, 1);
    struct cudaMemAllocNodeParams ag;
    assert_int_equal(cudaGraphMemAllocNodeGetParams(n[9], &ag), cudaSuccess);
    assert_int_equal(ag.bytesize, 1000);
    assert_ptr_equal(ag.dptr, ap.dptr);
    void *freed = NULL;
    assert_int_equal(cudaGraphMemFreeNodeGetParams(n[10], &freed), cudaSuccess);
    assert_ptr_equal(freed, ap.dptr);
    /* The wrong node kind for the call. */
    assert_int_equal(cudaGraphKernelNodeGetParams(n[1], &kp), cudaErrorInvalidValue);

    assert_int_equal(cudaGraphDestroy(child), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    assert_int_equal(cudaEventDestroy(e), cudaSuccess);
}

static void test_generic_add_node(void **state)
{
    (void)state;
    cudaGraph_t g;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    trace t = {0};
    tag ta = {&t, 'a'}, tb = {&t, 'b'};
    struct cudaGraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeHost;
    p.host.fn = record;
    p.host.userData = &ta;
    cudaGraphNode_t a, b, m;
    assert_int_equal(cudaGraphAddNode(&a, g, NULL, NULL, 0, &p), cudaSuccess);
    p.host.userData = &tb;
    cudaGraphEdgeData ed;
    memset(&ed, 0, sizeof ed);
    assert_int_equal(cudaGraphAddNode(&b, g, &a, &ed, 1, &p), cudaSuccess);
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeMemAlloc;
    p.alloc.poolProps.allocType = cudaMemAllocationTypePinned;
    p.alloc.bytesize = 64;
    assert_int_equal(cudaGraphAddNode(&m, g, &b, NULL, 1, &p), cudaSuccess);
    assert_non_null(p.alloc.dptr);
    /* Reserved bytes must be zero; unsupported kinds say so. */
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeEmpty;
    p.reserved2 = 1;
    cudaGraphNode_t x;
    assert_int_equal(cudaGraphAddNode(&x, g, NULL, NULL, 0, &p), cudaErrorInvalidValue);
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeExtSemaphoreSignal;
    assert_int_equal(cudaGraphAddNode(&x, g, NULL, NULL, 0, &p), cudaErrorNotSupported);
    assert_int_equal(cudaGetLastError(), cudaErrorNotSupported);
    launch_once(g);
    assert_int_equal(t.n, 2);
    assert_memory_equal(t.seen, "ab", 2);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

/* a -> b, a -> c, b -> d, c -> d */
static void diamond(cudaGraph_t g, cudaGraphNode_t n[4], tag tags[4])
{
    n[0] = add_host(g, NULL, 0, &tags[0]);
    n[1] = add_host(g, &n[0], 1, &tags[1]);
    n[2] = add_host(g, &n[0], 1, &tags[2]);
    cudaGraphNode_t bc[2] = {n[1], n[2]};
    n[3] = add_host(g, bc, 2, &tags[3]);
}

static void test_topology_queries(void **state)
{
    (void)state;
    cudaGraph_t g;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    trace t = {0};
    tag tags[4] = {{&t, 'a'}, {&t, 'b'}, {&t, 'c'}, {&t, 'd'}};
    cudaGraphNode_t n[4];
    diamond(g, n, tags);

    size_t count = 0;
    assert_int_equal(cudaGraphGetRootNodes(g, NULL, &count), cudaSuccess);
    assert_int_equal(count, 1);
    cudaGraphNode_t roots[3] = {0, (void *)1, (void *)1};
    count = 3;
    assert_int_equal(cudaGraphGetRootNodes(g, roots, &count), cudaSuccess);
    assert_int_equal(count, 1);
    assert_ptr_equal(roots[0], n[0]);
    assert_null(roots[1]); /* slots past the answer are cleared */

    assert_int_equal(cudaGraphGetEdges(g, NULL, NULL, NULL, &count), cudaSuccess);
    assert_int_equal(count, 4);
    cudaGraphNode_t from[4], to[4];
    cudaGraphEdgeData ed[4];
    memset(ed, 0xff, sizeof ed);
    count = 2; /* a short array gets the first edges */
    assert_int_equal(cudaGraphGetEdges(g, from, to, ed, &count), cudaSuccess);
    assert_int_equal(count, 2);
    assert_ptr_equal(from[0], n[0]);
    assert_ptr_equal(to[0], n[1]);
    assert_ptr_equal(from[1], n[0]);
    assert_ptr_equal(to[1], n[2]);
    assert_int_equal(ed[0].type, 0);
    count = 4;
    assert_int_equal(cudaGraphGetEdges(g, from, NULL, NULL, &count), cudaErrorInvalidValue);

    assert_int_equal(cudaGraphNodeGetDependencies(n[3], NULL, NULL, &count), cudaSuccess);
    assert_int_equal(count, 2);
    cudaGraphNode_t deps[2];
    assert_int_equal(cudaGraphNodeGetDependencies(n[3], deps, NULL, &count), cudaSuccess);
    assert_ptr_equal(deps[0], n[1]);
    assert_ptr_equal(deps[1], n[2]);
    assert_int_equal(cudaGraphNodeGetDependentNodes(n[0], NULL, NULL, &count), cudaSuccess);
    assert_int_equal(count, 2);
    assert_int_equal(cudaGraphNodeGetDependentNodes(n[3], NULL, NULL, &count), cudaSuccess);
    assert_int_equal(count, 0);

    /* Removing b -> d leaves d one dependency. */
    assert_int_equal(cudaGraphRemoveDependencies(g, &n[1], &n[3], NULL, 1), cudaSuccess);
    assert_int_equal(cudaGraphNodeGetDependencies(n[3], NULL, NULL, &count), cudaSuccess);
    assert_int_equal(count, 1);
    assert_int_equal(cudaGraphRemoveDependencies(g, &n[1], &n[3], NULL, 1), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

static void test_diamond_and_chain_order(void **state)
{
    (void)state;
    cudaGraph_t g;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    trace t = {0};
    tag tags[4] = {{&t, 'a'}, {&t, 'b'}, {&t, 'c'}, {&t, 'd'}};
    cudaGraphNode_t n[4];
    diamond(g, n, tags);
    launch_once(g);
    assert_int_equal(t.n, 4);
    assert_true(pos(&t, 'a') < pos(&t, 'b'));
    assert_true(pos(&t, 'a') < pos(&t, 'c'));
    assert_true(pos(&t, 'b') < pos(&t, 'd'));
    assert_true(pos(&t, 'c') < pos(&t, 'd'));
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);

    /* A chain whose edges run against creation order: z <- y <- x. */
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    trace c = {0};
    tag ct[3] = {{&c, 'z'}, {&c, 'y'}, {&c, 'x'}};
    cudaGraphNode_t m[3];
    for (int i = 0; i < 3; i++)
        m[i] = add_host(g, NULL, 0, &ct[i]);
    cudaGraphNode_t from[2] = {m[2], m[1]}, to[2] = {m[1], m[0]};
    assert_int_equal(cudaGraphAddDependencies(g, from, to, NULL, 2), cudaSuccess);
    launch_once(g);
    assert_int_equal(c.n, 3);
    assert_memory_equal(c.seen, "xyz", 3);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

static void test_launch_copies_and_sets(void **state)
{
    (void)state;
    cudaGraph_t g;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    unsigned char src[16], dst[16];
    for (int i = 0; i < 16; i++)
        src[i] = (unsigned char)i;
    memset(dst, 0, sizeof dst);
    struct cudaMemAllocNodeParams ap = {0};
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.bytesize = 16;
    cudaGraphNode_t alloc, set, in, out, fr;
    assert_int_equal(cudaGraphAddMemAllocNode(&alloc, g, NULL, 0, &ap), cudaSuccess);
    /* Device buffer: all 0xAB, then bytes 4..7 from src, then back. */
    struct cudaMemsetParams ms = {
        .dst = ap.dptr, .value = 0xABABABAB, .elementSize = 4, .width = 4, .height = 1};
    assert_int_equal(cudaGraphAddMemsetNode(&set, g, &alloc, 1, &ms), cudaSuccess);
    assert_int_equal(cudaGraphAddMemcpyNode1D(&in, g, &set, 1, (char *)ap.dptr + 4, src + 4, 4,
                                              cudaMemcpyHostToDevice),
                     cudaSuccess);
    assert_int_equal(
        cudaGraphAddMemcpyNode1D(&out, g, &in, 1, dst, ap.dptr, 16, cudaMemcpyDeviceToHost),
        cudaSuccess);
    assert_int_equal(cudaGraphAddMemFreeNode(&fr, g, &out, 1, ap.dptr), cudaSuccess);
    launch_once(g);
    static const unsigned char want[16] = {0xAB, 0xAB, 0xAB, 0xAB, 4,    5,    6,    7,
                                           0xAB, 0xAB, 0xAB, 0xAB, 0xAB, 0xAB, 0xAB, 0xAB};
    assert_memory_equal(dst, want, 16);

    /* A pitched 2-D copy: 3 rows of 2 bytes out of rows of 4. */
    unsigned char grid[12], packed[6] = {0};
    for (int i = 0; i < 12; i++)
        grid[i] = (unsigned char)(10 + i);
    cudaGraph_t g2;
    assert_int_equal(cudaGraphCreate(&g2, 0), cudaSuccess);
    struct cudaMemcpy3DParms cp = {0};
    cp.srcPtr = (struct cudaPitchedPtr){grid, 4, 4, 3};
    cp.srcPos = (struct cudaPos){1, 0, 0};
    cp.dstPtr = (struct cudaPitchedPtr){packed, 2, 2, 3};
    cp.extent = (struct cudaExtent){2, 3, 1};
    cp.kind = cudaMemcpyHostToHost;
    cudaGraphNode_t c2;
    assert_int_equal(cudaGraphAddMemcpyNode(&c2, g2, NULL, 0, &cp), cudaSuccess);
    launch_once(g2);
    static const unsigned char want2[6] = {11, 12, 15, 16, 19, 20};
    assert_memory_equal(packed, want2, 6);
    assert_int_equal(cudaGraphDestroy(g2), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

static void test_child_graph_runs(void **state)
{
    (void)state;
    cudaGraph_t g, child;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    assert_int_equal(cudaGraphCreate(&child, 0), cudaSuccess);
    trace t = {0};
    tag tags[4] = {{&t, '1'}, {&t, '2'}, {&t, '3'}, {&t, 'x'}};
    cudaGraphNode_t c1 = add_host(child, NULL, 0, &tags[1]);
    (void)c1;
    cudaGraphNode_t a = add_host(g, NULL, 0, &tags[0]);
    cudaGraphNode_t cn;
    assert_int_equal(cudaGraphAddChildGraphNode(&cn, g, &a, 1, child), cudaSuccess);
    add_host(g, &cn, 1, &tags[2]);
    /* Later edits of the program's child graph do not reach the node. */
    add_host(child, NULL, 0, &tags[3]);
    launch_once(g);
    assert_int_equal(t.n, 3);
    assert_memory_equal(t.seen, "123", 3);
    assert_int_equal(cudaGraphDestroy(child), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

static void test_clone_is_independent(void **state)
{
    (void)state;
    cudaGraph_t g, c;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    trace t = {0};
    tag tags[3] = {{&t, 'a'}, {&t, 'b'}, {&t, 'c'}};
    cudaGraphNode_t a = add_host(g, NULL, 0, &tags[0]);
    add_host(g, &a, 1, &tags[1]);
    assert_int_equal(cudaGraphClone(&c, g), cudaSuccess);
    cudaGraphNode_t ca;
    assert_int_equal(cudaGraphNodeFindInClone(&ca, a, c), cudaSuccess);
    assert_ptr_not_equal(ca, a);
    add_host(c, &ca, 1, &tags[2]);
    size_t count;
    assert_int_equal(cudaGraphGetNodes(g, NULL, &count), cudaSuccess);
    assert_int_equal(count, 2);
    assert_int_equal(cudaGraphGetNodes(c, NULL, &count), cudaSuccess);
    assert_int_equal(count, 3);
    /* A node of the clone is foreign to the original. */
    cudaGraphNode_t x;
    assert_int_equal(cudaGraphAddEmptyNode(&x, g, &ca, 1), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    launch_once(c);
    assert_int_equal(t.n, 3);
    assert_memory_equal(t.seen, "abc", 3);
    assert_int_equal(cudaGraphDestroy(c), cudaSuccess);
}

static void test_bad_arguments_and_cycles(void **state)
{
    (void)state;
    cudaGraph_t g, other;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    assert_int_equal(cudaGraphCreate(&other, 0), cudaSuccess);
    cudaGraphNode_t a, b, c, o;
    assert_int_equal(cudaGraphAddEmptyNode(&a, g, NULL, 0), cudaSuccess);
    assert_int_equal(cudaGraphAddEmptyNode(&b, g, &a, 1), cudaSuccess);
    assert_int_equal(cudaGraphAddEmptyNode(&c, g, &b, 1), cudaSuccess);
    assert_int_equal(cudaGraphAddEmptyNode(&o, other, NULL, 0), cudaSuccess);
    (void)cudaGetLastError();

    assert_int_equal(cudaGraphCreate(NULL, 0), cudaErrorInvalidValue);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
    assert_int_equal(cudaGetLastError(), cudaSuccess);
    assert_int_equal(cudaGraphCreate(&other, 1), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphAddEmptyNode(NULL, g, NULL, 0), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphAddEmptyNode(&o, NULL, NULL, 0), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphAddEmptyNode(&o, g, NULL, 1), cudaErrorInvalidValue);
    cudaGraphNode_t twice[2] = {a, a};
    assert_int_equal(cudaGraphAddEmptyNode(&o, g, twice, 2), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphAddHostNode(&o, g, NULL, 0, NULL), cudaErrorInvalidValue);
    struct cudaKernelNodeParams k = {
        .func = (void *)kernel_stub, .gridDim = {0, 1, 1}, .blockDim = {1, 1, 1}};
    assert_int_equal(cudaGraphAddKernelNode(&o, g, NULL, 0, &k), cudaErrorInvalidValue);
    struct cudaMemsetParams ms = {.dst = &k, .elementSize = 3, .width = 1, .height = 1};
    assert_int_equal(cudaGraphAddMemsetNode(&o, g, NULL, 0, &ms), cudaErrorInvalidValue);
    char buf[4];
    assert_int_equal(cudaGraphAddMemcpyNode1D(&o, g, NULL, 0, buf, buf, 4, (enum cudaMemcpyKind)9),
                     cudaErrorInvalidMemcpyDirection);
    assert_int_equal(cudaGraphAddChildGraphNode(&o, g, NULL, 0, g), cudaErrorInvalidValue);
    size_t count = 0;
    assert_int_equal(cudaGraphGetNodes(g, NULL, NULL), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphNodeGetType(NULL, NULL), cudaErrorInvalidValue);

    /* Edges: duplicate, self, foreign, closing a cycle - all refused, and
     * a refused batch adds nothing. */
    assert_int_equal(cudaGraphAddDependencies(g, &a, &b, NULL, 1), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphAddDependencies(g, &a, &a, NULL, 1), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphAddDependencies(g, &a, &o, NULL, 1), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphAddDependencies(g, &c, &a, NULL, 1), cudaErrorInvalidValue);
    cudaGraphNode_t from[2] = {a, c}, to[2] = {c, a};
    assert_int_equal(cudaGraphAddDependencies(g, from, to, NULL, 2), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphGetEdges(g, NULL, NULL, NULL, &count), cudaSuccess);
    assert_int_equal(count, 2);
    assert_int_equal(cudaGraphAddDependencies(g, from, to, NULL, 1), cudaSuccess);
    assert_int_equal(cudaGraphGetEdges(g, NULL, NULL, NULL, &count), cudaSuccess);
    assert_int_equal(count, 3);
    cudaGraphEdgeData prog;
    memset(&prog, 0, sizeof prog);
    prog.type = cudaGraphDependencyTypeProgrammatic;
    assert_int_equal(cudaGraphAddDependencies(g, &b, &c, &prog, 1), cudaErrorNotSupported);

    cudaGraphExec_t x;
    assert_int_equal(cudaGraphInstantiate(NULL, g, 0), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphInstantiate(&x, g, 1ull << 40), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphLaunch(NULL, NULL), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphExecDestroy(NULL), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphDestroy(NULL), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphDebugDotPrint(g, NULL, 0), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphDestroy(other), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

static void test_instantiate_params(void **state)
{
    (void)state;
    cudaGraph_t g;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    cudaGraphNode_t a;
    assert_int_equal(cudaGraphAddEmptyNode(&a, g, NULL, 0), cudaSuccess);
    cudaGraphInstantiateParams p = {.flags = cudaGraphInstantiateFlagUpload,
                                    .result_out = cudaGraphInstantiateError};
    cudaGraphExec_t x;
    assert_int_equal(cudaGraphInstantiateWithParams(&x, g, &p), cudaSuccess);
    assert_int_equal(p.result_out, cudaGraphInstantiateSuccess);
    unsigned long long flags = 0;
    assert_int_equal(cudaGraphExecGetFlags(x, &flags), cudaSuccess);
    assert_int_equal(flags, cudaGraphInstantiateFlagUpload);
    assert_int_equal(cudaGraphUpload(x, NULL), cudaSuccess);
    assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
    assert_int_equal(cudaGraphInstantiateWithFlags(&x, g, cudaGraphInstantiateFlagAutoFreeOnLaunch),
                     cudaSuccess);
    assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

static void test_exec_update(void **state)
{
    (void)state;
    cudaGraph_t g, g2, g3;
    trace t = {0};
    tag tags[4] = {{&t, 'a'}, {&t, 'b'}, {&t, 'A'}, {&t, 'B'}};
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    cudaGraphNode_t a = add_host(g, NULL, 0, &tags[0]);
    add_host(g, &a, 1, &tags[1]);
    cudaGraphExec_t x;
    assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);

    /* Same topology, other parameters: the exec runs the new ones. */
    assert_int_equal(cudaGraphCreate(&g2, 0), cudaSuccess);
    cudaGraphNode_t a2 = add_host(g2, NULL, 0, &tags[2]);
    add_host(g2, &a2, 1, &tags[3]);
    cudaGraphExecUpdateResultInfo info;
    assert_int_equal(cudaGraphExecUpdate(x, g2, &info), cudaSuccess);
    assert_int_equal(info.result, cudaGraphExecUpdateSuccess);
    assert_int_equal(cudaGraphLaunch(x, NULL), cudaSuccess);
    assert_int_equal(t.n, 2);
    assert_memory_equal(t.seen, "AB", 2);

    /* Another edge: refused, and the exec keeps what it had. */
    assert_int_equal(cudaGraphCreate(&g3, 0), cudaSuccess);
    cudaGraphNode_t a3 = add_host(g3, NULL, 0, &tags[0]);
    cudaGraphNode_t b3 = add_host(g3, NULL, 0, &tags[1]);
    (void)a3;
    (void)b3;
    assert_int_equal(cudaGraphExecUpdate(x, g3, &info), cudaErrorGraphExecUpdateFailure);
    assert_int_equal(info.result, cudaGraphExecUpdateErrorTopologyChanged);
    assert_int_equal(cudaGetLastError(), cudaErrorGraphExecUpdateFailure);
    /* Another node type at the same place. */
    cudaGraph_t g4;
    assert_int_equal(cudaGraphCreate(&g4, 0), cudaSuccess);
    cudaGraphNode_t e4, h4;
    assert_int_equal(cudaGraphAddEmptyNode(&e4, g4, NULL, 0), cudaSuccess);
    h4 = add_host(g4, &e4, 1, &tags[1]);
    assert_int_equal(cudaGraphExecUpdate(x, g4, &info), cudaErrorGraphExecUpdateFailure);
    assert_int_equal(info.result, cudaGraphExecUpdateErrorNodeTypeChanged);
    assert_ptr_equal(info.errorNode, e4);
    (void)h4;
    t.n = 0;
    assert_int_equal(cudaGraphLaunch(x, NULL), cudaSuccess);
    assert_memory_equal(t.seen, "AB", 2);

    assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g2), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g3), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g4), cudaSuccess);
}

static void test_dot_output(void **state)
{
    (void)state;
    cudaGraph_t g, child;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    assert_int_equal(cudaGraphCreate(&child, 0), cudaSuccess);
    cudaGraphNode_t k, m, c, e;
    struct cudaKernelNodeParams kp = {
        .func = (void *)kernel_stub, .gridDim = {2, 1, 1}, .blockDim = {64, 1, 1}};
    assert_int_equal(cudaGraphAddKernelNode(&k, g, NULL, 0, &kp), cudaSuccess);
    char a[8], b[8];
    assert_int_equal(cudaGraphAddMemcpyNode1D(&m, g, &k, 1, b, a, 8, cudaMemcpyHostToHost),
                     cudaSuccess);
    assert_int_equal(cudaGraphAddEmptyNode(&e, child, NULL, 0), cudaSuccess);
    assert_int_equal(cudaGraphAddChildGraphNode(&c, g, &m, 1, child), cudaSuccess);

    char path[] = "/tmp/sc_graph_dot_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(cudaGraphDebugDotPrint(g, path, 0), cudaSuccess);
    const char *dot = sc_test_read_text(path);
    assert_true(strncmp(dot, "digraph dot {\n", 14) == 0);
    assert_non_null(
        strstr(dot, "subgraph cluster_1 {\nlabel=\"graph_1\" graph[style=\"dashed\"];\n"));
    assert_non_null(strstr(dot, "\"graph_1_node_0\"[style=\"bold\" shape=\"octagon\" label=\"0\n"));
    assert_non_null(strstr(
        dot, "\"graph_1_node_1\"[style=\"solid\" shape=\"rectangle\" label=\"1\nMEMCPY\n\"];"));
    assert_non_null(strstr(dot, "label=\"2\ngraph_2\n\"];"));
    assert_non_null(strstr(dot, "\"graph_1_node_0\" -> \"graph_1_node_1\" [headlabel=0];\n"));
    assert_non_null(strstr(dot, "\"graph_1_node_1\" -> \"graph_1_node_2\" [headlabel=0];\n"));
    assert_non_null(strstr(dot, "subgraph cluster_2 {\nlabel=\"graph_2\""));
    assert_non_null(strstr(
        dot, "\"graph_2_node_0\"[style=\"solid\" shape=\"rectangle\" label=\"0\nEMPTY\n\"];"));
    assert_true(strstr(dot, "subgraph cluster_2") > strstr(dot, "\"graph_1_node_1\" -> "));
    size_t len = strlen(dot);
    assert_true(len > 4 && strcmp(dot + len - 4, "}\n}\n") == 0);

    assert_int_equal(cudaGraphDebugDotPrint(g, path, cudaGraphDebugDotFlagsVerbose), cudaSuccess);
    dot = sc_test_read_text(path);
    assert_non_null(strstr(dot,
                           "\"graph_1_node_0\"[style=\"bold\" shape=\"record\" label=\"{KERNEL\n"
                           "| {ID | 0 (topoId: 2) | "));
    assert_non_null(strstr(dot, "\\<\\<\\<2,64,0\\>\\>\\>}"));
    assert_non_null(strstr(dot, "| {kind | HtoH (HOST to HOST)}"));
    unlink(path);
    assert_int_equal(cudaGraphDebugDotPrint(g, "/nonexistent-dir/x.dot", 0),
                     cudaErrorOperatingSystem);
    assert_int_equal(cudaGraphDestroy(child), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_node_kind),
        cmocka_unit_test(test_generic_add_node),
        cmocka_unit_test(test_topology_queries),
        cmocka_unit_test(test_diamond_and_chain_order),
        cmocka_unit_test(test_launch_copies_and_sets),
        cmocka_unit_test(test_child_graph_runs),
        cmocka_unit_test(test_clone_is_independent),
        cmocka_unit_test(test_bad_arguments_and_cycles),
        cmocka_unit_test(test_instantiate_params),
        cmocka_unit_test(test_exec_update),
        cmocka_unit_test(test_dot_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
