/*
 * test_cudart_to_graph.c - cudaStreamBeginCaptureToGraph: a capture into a
 * graph the program already has keeps its nodes, hangs the captured work
 * on the dependencies given, shows the program's graph through
 * cudaStreamGetCaptureInfo, hands the same graph back at the end, and
 * leaves it as it was when the capture fails.  White-box like
 * test_cudart_rt: the graph is read through rt.h.
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

static const dim3 one = {1, 1, 1};

static void has_edges(cudaGraph_t g, const uint32_t (*want)[2], size_t n)
{
    const uint32_t *from, *to;
    size_t m;
    sc_rt_graph_edges(g, &from, &to, &m);
    assert_int_equal(m, n);
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t j = 0; j < m; j++)
            seen = seen || (from[j] == want[i][0] && to[j] == want[i][1]);
        if (!seen)
            fail_msg("edge %u -> %u missing", want[i][0], want[i][1]);
    }
}

static enum cudaGraphNodeType type_at(cudaGraph_t g, uint32_t i)
{
    return sc_rt_node_desc_of(sc_rt_graph_node_at(g, i))->type;
}

/* a -> b built by hand; the capture hangs on b. */
static void t_extends_the_graph(void **state)
{
    (void)state;
    cudaStream_t s1, s2;
    cudaEvent_t fork, join;
    assert_int_equal(cudaStreamCreate(&s1), cudaSuccess);
    assert_int_equal(cudaStreamCreate(&s2), cudaSuccess);
    assert_int_equal(cudaEventCreate(&fork), cudaSuccess);
    assert_int_equal(cudaEventCreate(&join), cudaSuccess);
    cudaGraph_t g;
    cudaGraphNode_t a, b;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    assert_int_equal(cudaGraphAddEmptyNode(&a, g, NULL, 0), cudaSuccess);
    assert_int_equal(cudaGraphAddEmptyNode(&b, g, &a, 1), cudaSuccess);

    assert_int_equal(cudaStreamBeginCaptureToGraph(s1, g, &b, NULL, 1, cudaStreamCaptureModeGlobal),
                     cudaSuccess);
    enum cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
    cudaGraph_t live = NULL;
    const cudaGraphNode_t *deps = NULL;
    size_t ndeps = 0;
    assert_int_equal(cudaStreamGetCaptureInfo(s1, &cs, NULL, &live, &deps, NULL, &ndeps),
                     cudaSuccess);
    assert_int_equal(cs, cudaStreamCaptureStatusActive);
    assert_ptr_equal(live, g);
    assert_int_equal(ndeps, 1);
    assert_ptr_equal(deps[0], b);

    /* node 2 on s1, a fork to s2 (node 3) and back, node 4 after both */
    assert_int_equal(cudaLaunchKernel((const void *)kernel_stub, one, one, NULL, 0, s1),
                     cudaSuccess);
    assert_int_equal(cudaEventRecord(fork, s1), cudaSuccess);
    assert_int_equal(cudaStreamWaitEvent(s2, fork, 0), cudaSuccess);
    assert_int_equal(cudaLaunchKernel((const void *)kernel_stub, one, one, NULL, 0, s2),
                     cudaSuccess);
    assert_int_equal(cudaEventRecord(join, s2), cudaSuccess);
    assert_int_equal(cudaStreamWaitEvent(s1, join, 0), cudaSuccess);
    int host[4] = {0};
    assert_int_equal(cudaMemsetAsync(host, 0, sizeof host, s1), cudaSuccess);

    cudaGraph_t out = NULL;
    assert_int_equal(cudaStreamEndCapture(s1, &out), cudaSuccess);
    assert_ptr_equal(out, g);
    assert_int_equal(sc_rt_graph_capture(g), 0);
    assert_int_equal(sc_rt_graph_node_count(g), 5);
    assert_ptr_equal(sc_rt_graph_node_at(g, 0), a);
    assert_ptr_equal(sc_rt_graph_node_at(g, 1), b);
    assert_int_equal(type_at(g, 0), cudaGraphNodeTypeEmpty);
    assert_int_equal(type_at(g, 1), cudaGraphNodeTypeEmpty);
    assert_int_equal(type_at(g, 2), cudaGraphNodeTypeKernel);
    assert_int_equal(type_at(g, 3), cudaGraphNodeTypeKernel);
    assert_int_equal(type_at(g, 4), cudaGraphNodeTypeMemset);
    static const uint32_t want[][2] = {{0, 1}, {1, 2}, {2, 3}, {2, 4}, {3, 4}};
    has_edges(g, want, 5);
    assert_int_equal(cudaStreamIsCapturing(s2, &cs), cudaSuccess);
    assert_int_equal(cs, cudaStreamCaptureStatusNone);
    /* the program owns it again: editable, instantiable */
    cudaGraphNode_t c;
    assert_int_equal(cudaGraphAddEmptyNode(&c, g, NULL, 0), cudaSuccess);
    cudaGraphExec_t x;
    assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

/* Built out of order (an edge from node 1 to node 0): the handles, the
 * capture info and nodes added by hand during the capture still agree. */
static void t_out_of_order_graph(void **state)
{
    (void)state;
    cudaStream_t s;
    assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
    cudaGraph_t g;
    cudaGraphNode_t late, early;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    assert_int_equal(cudaGraphAddEmptyNode(&late, g, NULL, 0), cudaSuccess);
    assert_int_equal(cudaGraphAddEmptyNode(&early, g, NULL, 0), cudaSuccess);
    assert_int_equal(cudaGraphAddDependencies(g, &early, &late, NULL, 1), cudaSuccess);

    assert_int_equal(
        cudaStreamBeginCaptureToGraph(s, g, &late, NULL, 1, cudaStreamCaptureModeGlobal),
        cudaSuccess);
    const cudaGraphNode_t *deps = NULL;
    size_t ndeps = 0;
    enum cudaStreamCaptureStatus cs;
    assert_int_equal(cudaStreamGetCaptureInfo(s, &cs, NULL, NULL, &deps, NULL, &ndeps),
                     cudaSuccess);
    assert_int_equal(ndeps, 1);
    assert_ptr_equal(deps[0], late);
    cudaGraphNode_t k;
    assert_int_equal(cudaLaunchKernel((const void *)kernel_stub, one, one, NULL, 0, s),
                     cudaSuccess);
    assert_int_equal(cudaStreamGetCaptureInfo(s, &cs, NULL, NULL, &deps, NULL, &ndeps),
                     cudaSuccess);
    assert_int_equal(ndeps, 1);
    k = deps[0];
    assert_int_equal(sc_rt_node_index(k), 2);
    /* a node by hand on `early` and the kernel, then the stream goes on from it */
    cudaGraphNode_t on[2] = {early, k}, e;
    assert_int_equal(cudaGraphAddEmptyNode(&e, g, on, 2), cudaSuccess);
    assert_int_equal(sc_rt_node_index(e), 3);
    assert_int_equal(
        cudaStreamUpdateCaptureDependencies(s, &e, NULL, 1, cudaStreamSetCaptureDependencies),
        cudaSuccess);
    assert_int_equal(cudaLaunchKernel((const void *)kernel_stub, one, one, NULL, 0, s),
                     cudaSuccess);
    cudaGraph_t out = NULL;
    assert_int_equal(cudaStreamEndCapture(s, &out), cudaSuccess);
    assert_ptr_equal(out, g);
    assert_int_equal(sc_rt_graph_node_count(g), 5);
    assert_ptr_equal(sc_rt_graph_node_at(g, 0), late);
    assert_ptr_equal(sc_rt_graph_node_at(g, 1), early);
    static const uint32_t want[][2] = {{1, 0}, {0, 2}, {1, 3}, {2, 3}, {3, 4}};
    has_edges(g, want, 5);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

/* An empty graph and no dependencies: an ordinary capture into it. */
static void t_empty_graph(void **state)
{
    (void)state;
    cudaStream_t s;
    assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
    cudaGraph_t g;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    cudaGraphEdgeData plain[1];
    memset(plain, 0, sizeof plain);
    assert_int_equal(
        cudaStreamBeginCaptureToGraph_ptsz(s, g, NULL, plain, 0, cudaStreamCaptureModeRelaxed),
        cudaSuccess);
    assert_int_equal(cudaLaunchKernel((const void *)kernel_stub, one, one, NULL, 0, s),
                     cudaSuccess);
    assert_int_equal(cudaLaunchKernel((const void *)kernel_stub, one, one, NULL, 0, s),
                     cudaSuccess);
    cudaGraph_t out = NULL;
    assert_int_equal(cudaStreamEndCapture(s, &out), cudaSuccess);
    assert_ptr_equal(out, g);
    static const uint32_t want[][2] = {{0, 1}};
    has_edges(g, want, 1);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

static void t_refused(void **state)
{
    (void)state;
    cudaStream_t s, s2;
    assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
    assert_int_equal(cudaStreamCreate(&s2), cudaSuccess);
    cudaGraph_t g, other;
    cudaGraphNode_t a, foreign;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    assert_int_equal(cudaGraphCreate(&other, 0), cudaSuccess);
    assert_int_equal(cudaGraphAddEmptyNode(&a, g, NULL, 0), cudaSuccess);
    assert_int_equal(cudaGraphAddEmptyNode(&foreign, other, NULL, 0), cudaSuccess);
    enum cudaStreamCaptureMode gl = cudaStreamCaptureModeGlobal;

    assert_int_equal(cudaStreamBeginCaptureToGraph(s, NULL, NULL, NULL, 0, gl),
                     cudaErrorInvalidValue);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
    assert_int_equal(cudaStreamBeginCaptureToGraph(s, g, NULL, NULL, 1, gl), cudaErrorInvalidValue);
    assert_int_equal(cudaStreamBeginCaptureToGraph(s, g, &foreign, NULL, 1, gl),
                     cudaErrorInvalidValue);
    assert_int_equal(
        cudaStreamBeginCaptureToGraph(s, g, &a, NULL, 1, (enum cudaStreamCaptureMode)7),
        cudaErrorInvalidValue);
    cudaGraphEdgeData port = {.from_port = 1};
    assert_int_equal(cudaStreamBeginCaptureToGraph(s, g, &a, &port, 1, gl), cudaErrorNotSupported);
    cudaGraphEdgeData prog = {.type = cudaGraphDependencyTypeProgrammatic};
    assert_int_equal(cudaStreamBeginCaptureToGraph(s, g, &a, &prog, 1, gl), cudaErrorNotSupported);
    (void)cudaGetLastError();
    enum cudaStreamCaptureStatus cs;
    assert_int_equal(cudaStreamIsCapturing(s, &cs), cudaSuccess);
    assert_int_equal(cs, cudaStreamCaptureStatusNone);
    assert_int_equal(sc_rt_graph_node_count(g), 1);

    /* one capture at a time into a graph, one capture at a time on a stream */
    assert_int_equal(cudaStreamBeginCaptureToGraph(s, g, &a, NULL, 1, gl), cudaSuccess);
    assert_int_equal(cudaStreamBeginCaptureToGraph(s2, g, &a, NULL, 1, gl), cudaErrorIllegalState);
    assert_int_equal(cudaStreamBeginCaptureToGraph(s, other, NULL, NULL, 0, gl),
                     cudaErrorIllegalState);
    (void)cudaGetLastError();
    assert_int_equal(cudaStreamIsCapturing(s2, &cs), cudaSuccess);
    assert_int_equal(cs, cudaStreamCaptureStatusNone);
    cudaGraph_t out = NULL;
    assert_int_equal(cudaStreamEndCapture(s, &out), cudaSuccess);
    assert_ptr_equal(out, g);
    assert_int_equal(sc_rt_graph_node_count(g), 1);
    assert_int_equal(sc_rt_graph_capture(other), 0);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(other), cudaSuccess);
}

/* A capture that fails leaves the program's graph as it was. */
static void t_failed_capture_restores(void **state)
{
    (void)state;
    cudaStream_t s;
    assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
    cudaGraph_t g;
    cudaGraphNode_t a, b;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    assert_int_equal(cudaGraphAddEmptyNode(&a, g, NULL, 0), cudaSuccess);
    assert_int_equal(cudaGraphAddEmptyNode(&b, g, &a, 1), cudaSuccess);
    assert_int_equal(cudaStreamBeginCaptureToGraph(s, g, &b, NULL, 1, cudaStreamCaptureModeGlobal),
                     cudaSuccess);
    assert_int_equal(cudaLaunchKernel((const void *)kernel_stub, one, one, NULL, 0, s),
                     cudaSuccess);
    void *p = NULL;
    assert_int_equal(cudaMalloc(&p, 64), cudaErrorStreamCaptureUnsupported);
    cudaGraph_t out = (cudaGraph_t)1;
    assert_int_equal(cudaStreamEndCapture(s, &out), cudaErrorStreamCaptureInvalidated);
    assert_null(out);
    (void)cudaGetLastError();
    assert_int_equal(sc_rt_graph_capture(g), 0);
    assert_int_equal(sc_rt_graph_node_count(g), 2);
    static const uint32_t want[][2] = {{0, 1}};
    has_edges(g, want, 1);
    assert_ptr_equal(sc_rt_graph_node_at(g, 1), b);
    cudaGraphNode_t c;
    assert_int_equal(cudaGraphAddEmptyNode(&c, g, &b, 1), cudaSuccess);
    /* and it can be captured into again */
    assert_int_equal(cudaStreamBeginCaptureToGraph(s, g, &c, NULL, 1, cudaStreamCaptureModeGlobal),
                     cudaSuccess);
    assert_int_equal(cudaLaunchKernel((const void *)kernel_stub, one, one, NULL, 0, s),
                     cudaSuccess);
    assert_int_equal(cudaStreamEndCapture(s, &out), cudaSuccess);
    static const uint32_t again[][2] = {{0, 1}, {1, 2}, {2, 3}};
    has_edges(g, again, 3);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_extends_the_graph),
        cmocka_unit_test(t_out_of_order_graph),
        cmocka_unit_test(t_empty_graph),
        cmocka_unit_test(t_refused),
        cmocka_unit_test(t_failed_capture_restores),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
