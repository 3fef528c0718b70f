/*
 * test_graph_half.c - the graph half against a stub runtime half: the
 * rt.h functions the runtime half calls, which graphs go to the daemon
 * (sc_rt_submit_graph) and how often, nodes added to a graph being
 * captured, a launch on a capturing stream, and the lock around host
 * functions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "graph_rt_stub.h"

static int reset(void **state)
{
    (void)state;
    memset(&sc_stub, 0, sizeof sc_stub);
    return 0;
}

static void test_rt_functions(void **state)
{
    (void)state;
    cudaGraph_t g;
    assert_int_equal(sc_rt_graph_new(&g), cudaSuccess);
    sc_rt_node_desc d;
    memset(&d, 0, sizeof d);
    d.type = cudaGraphNodeTypeKernel;
    d.func = (const void *)sc_stub_kernel;
    d.grid = (dim3){8, 1, 1};
    cudaGraphNode_t n0, n1, n2;
    assert_int_equal(sc_rt_graph_append(g, &d, NULL, 0, &n0), cudaSuccess);
    uint32_t dep = 0;
    d.type = cudaGraphNodeTypeMemcpy;
    d.size = 32;
    d.kind = cudaMemcpyHostToDevice;
    assert_int_equal(sc_rt_graph_append(g, &d, &dep, 1, &n1), cudaSuccess);
    uint32_t bad = 7;
    assert_int_equal(sc_rt_graph_append(g, &d, &bad, 1, &n2), cudaErrorInvalidValue);
    d.type = cudaGraphNodeTypeEmpty;
    uint32_t deps2[2] = {0, 1};
    assert_int_equal(sc_rt_graph_append(g, &d, deps2, 2, &n2), cudaSuccess);
    assert_int_equal(sc_rt_graph_node_count(g), 3);
    assert_ptr_equal(sc_rt_graph_node_at(g, 1), n1);
    assert_null(sc_rt_graph_node_at(g, 3));
    assert_int_equal(sc_rt_node_index(n2), 2);
    assert_ptr_equal(sc_rt_node_graph(n2), g);
    assert_int_equal(sc_rt_node_desc_of(n0)->grid.x, 8);
    assert_int_equal(sc_rt_node_desc_of(n1)->size, 32);

    const uint32_t *from, *to;
    size_t ne;
    sc_rt_graph_edges(g, &from, &to, &ne);
    assert_int_equal(ne, 3);
    assert_int_equal(from[0], 0);
    assert_int_equal(to[0], 1);
    assert_int_equal(to[2], 2);
    uint32_t f[1] = {2}, t[1] = {0};
    assert_int_equal(sc_rt_graph_set_edges(g, f, t, 1), cudaSuccess);
    sc_rt_graph_edges(g, &from, &to, &ne);
    assert_int_equal(ne, 1);
    assert_int_equal(from[0], 2);
    uint32_t out_of_range[1] = {9};
    assert_int_equal(sc_rt_graph_set_edges(g, out_of_range, t, 1), cudaErrorInvalidValue);

    /* The exported queries see what the runtime half built. */
    size_t count;
    assert_int_equal(cudaGraphGetRootNodes(g, NULL, &count), cudaSuccess);
    assert_int_equal(count, 2);
    sc_rt_graph_free(g);
}

static void test_child_node_owns_a_clone(void **state)
{
    (void)state;
    cudaGraph_t g, child;
    assert_int_equal(sc_rt_graph_new(&g), cudaSuccess);
    assert_int_equal(sc_rt_graph_new(&child), cudaSuccess);
    sc_rt_node_desc d;
    memset(&d, 0, sizeof d);
    d.type = cudaGraphNodeTypeEmpty;
    assert_int_equal(sc_rt_graph_append(child, &d, NULL, 0, NULL), cudaSuccess);
    d.type = cudaGraphNodeTypeGraph;
    d.child = child;
    cudaGraphNode_t n;
    assert_int_equal(sc_rt_graph_append(g, &d, NULL, 0, &n), cudaSuccess);
    assert_ptr_not_equal(sc_rt_node_desc_of(n)->child, child);
    assert_int_equal(sc_rt_graph_node_count(sc_rt_node_desc_of(n)->child), 1);
    sc_rt_graph_free(child);
    /* The node's clone is the node's: the program cannot destroy it. */
    assert_int_equal(cudaGraphDestroy(sc_rt_node_desc_of(n)->child), cudaErrorInvalidValue);
    sc_rt_graph_free(g);
}

static void add_empty(cudaGraph_t g)
{
    cudaGraphNode_t n;
    assert_int_equal(cudaGraphAddEmptyNode(&n, g, NULL, 0), cudaSuccess);
}

static void instantiate_and_drop(cudaGraph_t g)
{
    cudaGraphExec_t x;
    assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
}

static void test_hand_built_graph_submitted_once_per_state(void **state)
{
    (void)state;
    cudaGraph_t g, c;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    add_empty(g);
    instantiate_and_drop(g);
    assert_int_equal(sc_stub.submitted, 1);
    assert_ptr_equal(sc_stub.last_submitted, g);
    instantiate_and_drop(g);
    assert_int_equal(sc_stub.submitted, 1);
    /* A clone has the same contents: nothing new to store. */
    assert_int_equal(cudaGraphClone(&c, g), cudaSuccess);
    instantiate_and_drop(c);
    assert_int_equal(sc_stub.submitted, 1);
    /* Edited, it is another graph, stored once more. */
    add_empty(g);
    instantiate_and_drop(g);
    instantiate_and_drop(g);
    assert_int_equal(sc_stub.submitted, 2);
    assert_int_equal(sc_stub.last_submitted_nodes, 2);
    /* Editing the clone does not make the original new. */
    add_empty(c);
    instantiate_and_drop(g);
    assert_int_equal(sc_stub.submitted, 2);
    instantiate_and_drop(c);
    assert_int_equal(sc_stub.submitted, 3);
    assert_int_equal(cudaGraphDestroy(c), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

static void test_captured_graph_not_submitted_until_edited(void **state)
{
    (void)state;
    cudaGraph_t g;
    assert_int_equal(sc_rt_graph_new(&g), cudaSuccess);
    sc_rt_graph_set_capture(g, 5);
    assert_int_equal(sc_rt_graph_capture(g), 5);
    sc_rt_node_desc d;
    memset(&d, 0, sizeof d);
    d.type = cudaGraphNodeTypeEmpty;
    assert_int_equal(sc_rt_graph_append(g, &d, NULL, 0, NULL), cudaSuccess);

    /* While captured: nodes go through the model, the rest is refused. */
    cudaGraphNode_t first = sc_rt_graph_node_at(g, 0), n;
    assert_int_equal(cudaGraphAddEmptyNode(&n, g, &first, 1), cudaSuccess);
    assert_int_equal(sc_stub.capture_adds, 1);
    assert_int_equal(sc_rt_graph_node_count(g), 2);
    assert_int_equal(cudaGraphAddDependencies(g, &n, &first, NULL, 1),
                     cudaErrorStreamCaptureUnsupported);
    cudaGraphExec_t x;
    assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaErrorStreamCaptureUnsupported);
    assert_int_equal(cudaGraphDestroy(g), cudaErrorStreamCaptureUnsupported);

    sc_rt_graph_set_capture(g, 0);
    instantiate_and_drop(g);
    assert_int_equal(sc_stub.submitted, 0);
    cudaGraph_t c;
    assert_int_equal(cudaGraphClone(&c, g), cudaSuccess);
    instantiate_and_drop(c);
    assert_int_equal(sc_stub.submitted, 0);
    /* Edited after the capture: the daemon has not seen this graph. */
    add_empty(g);
    instantiate_and_drop(g);
    assert_int_equal(sc_stub.submitted, 1);
    assert_int_equal(sc_stub.last_submitted_nodes, 3);
    assert_int_equal(cudaGraphDestroy(c), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

static int depth_in_host;
static void host_sees_lock(void *arg)
{
    (void)arg;
    depth_in_host = sc_stub.lock_depth;
}

static void test_launch_while_capturing_is_a_child_node(void **state)
{
    (void)state;
    cudaGraph_t g;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    struct cudaHostNodeParams hp = {host_sees_lock, NULL};
    cudaGraphNode_t h;
    assert_int_equal(cudaGraphAddHostNode(&h, g, NULL, 0, &hp), cudaSuccess);
    cudaEvent_t e;
    assert_int_equal(cudaEventCreate(&e), cudaSuccess);
    cudaGraphNode_t r;
    assert_int_equal(cudaGraphAddEventRecordNode(&r, g, &h, 1, e), cudaSuccess);
    struct cudaKernelNodeParams kp = {
        .func = (void *)sc_stub_kernel, .gridDim = {1, 1, 1}, .blockDim = {1, 1, 1}};
    cudaGraphNode_t k;
    assert_int_equal(cudaGraphAddKernelNode(&k, g, &r, 1, &kp), cudaSuccess);
    cudaGraphExec_t x;
    assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);

    assert_int_equal(sc_rt_graph_new(&sc_stub.capture_graph), cudaSuccess);
    depth_in_host = -1;
    assert_int_equal(cudaGraphLaunch(x, SC_STUB_CAPTURING), cudaSuccess);
    assert_int_equal(depth_in_host, -1); /* captured, not run */
    assert_int_equal(sc_rt_graph_node_count(sc_stub.capture_graph), 1);
    cudaGraphNode_t cn = sc_rt_graph_node_at(sc_stub.capture_graph, 0);
    assert_int_equal(sc_rt_node_desc_of(cn)->type, cudaGraphNodeTypeGraph);
    assert_int_equal(sc_rt_graph_node_count(sc_rt_node_desc_of(cn)->child), 3);

    /* Outside capture it runs: the host function without the lock, the
     * event reached, the kernel counted. */
    assert_int_equal(cudaGraphLaunch(x, NULL), cudaSuccess);
    assert_int_equal(depth_in_host, 0);
    assert_int_equal(sc_stub.events_reached, 1);
    assert_int_equal(sc_stub.lock_depth, 0);
    assert_int_equal(cudaGraphLaunch_ptsz(x, NULL), cudaSuccess);
    assert_int_equal(sc_stub.events_reached, 2);

    assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
    sc_rt_graph_free(sc_stub.capture_graph);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    assert_int_equal(cudaEventDestroy(e), cudaSuccess);
}

static void test_instantiate_refuses_a_cycle(void **state)
{
    (void)state;
    /* The runtime half may set any edges; instantiate still checks. */
    cudaGraph_t g;
    assert_int_equal(sc_rt_graph_new(&g), cudaSuccess);
    sc_rt_node_desc d;
    memset(&d, 0, sizeof d);
    d.type = cudaGraphNodeTypeEmpty;
    assert_int_equal(sc_rt_graph_append(g, &d, NULL, 0, NULL), cudaSuccess);
    assert_int_equal(sc_rt_graph_append(g, &d, NULL, 0, NULL), cudaSuccess);
    uint32_t f[2] = {0, 1}, t[2] = {1, 0};
    assert_int_equal(sc_rt_graph_set_edges(g, f, t, 2), cudaSuccess);
    cudaGraphInstantiateParams p = {0};
    cudaGraphExec_t x;
    assert_int_equal(cudaGraphInstantiateWithParams(&x, g, &p), cudaErrorInvalidValue);
    assert_int_equal(p.result_out, cudaGraphInstantiateInvalidStructure);
    assert_int_equal(sc_stub.submitted, 0);
    sc_rt_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_rt_functions, reset),
        cmocka_unit_test_setup(test_child_node_owns_a_clone, reset),
        cmocka_unit_test_setup(test_hand_built_graph_submitted_once_per_state, reset),
        cmocka_unit_test_setup(test_captured_graph_not_submitted_until_edited, reset),
        cmocka_unit_test_setup(test_launch_while_capturing_is_a_child_node, reset),
        cmocka_unit_test_setup(test_instantiate_refuses_a_cycle, reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
