/*
 * test_graph_cond.c - conditional nodes through the public graph API:
 * handles and the parameters CUDA refuses, the bodies a node owns, which
 * body a launch on the host runs for each type and default, clones,
 * exec updates and DOT.  Runs against the built libcudart.so.13 or the
 * graph half with a stub runtime, like test_graph_api.
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

cudaError_t cudaGetLastError(void);

/* Host nodes append their letter here, so a test sees which bodies ran. */
static char seen[64];
static size_t nseen;

static void record(void *arg)
{
    if (nseen + 1 < sizeof seen)
        seen[nseen++] = *(const char *)arg;
    seen[nseen] = 0;
}

static void add_host(cudaGraph_t g, const char *letter)
{
    struct cudaHostNodeParams p = {record, (void *)letter};
    cudaGraphNode_t n;
    assert_int_equal(cudaGraphAddHostNode(&n, g, NULL, 0, &p), cudaSuccess);
}

static cudaError_t add_cond(cudaGraphNode_t *n, cudaGraph_t g, cudaGraphConditionalHandle h,
                            enum cudaGraphConditionalNodeType type, unsigned int size,
                            cudaGraph_t **bodies)
{
    struct cudaGraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = h;
    p.conditional.type = type;
    p.conditional.size = size;
    cudaError_t err = cudaGraphAddNode(n, g, NULL, NULL, 0, &p);
    if (bodies)
        *bodies = p.conditional.phGraph_out;
    return err;
}

/* What launching g twice runs. */
static const char *launch_twice(cudaGraph_t g)
{
    cudaGraphExec_t x;
    nseen = 0;
    seen[0] = 0;
    assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    assert_int_equal(cudaGraphLaunch(x, NULL), cudaSuccess);
    assert_int_equal(cudaGraphLaunch(x, NULL), cudaSuccess);
    assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
    return seen;
}

/* One node of `type` and `size` whose handle's default is `value`, each
 * body a host node of its own letter ("0", "1", ...): what two launches
 * run, once with cudaGraphCondAssignDefault and once without. */
static void check_runs(enum cudaGraphConditionalNodeType type, unsigned int size,
                       unsigned int value, const char *want)
{
    static const char digits[] = "0123456789";
    for (unsigned int flags = 0; flags <= cudaGraphCondAssignDefault; flags++) {
        cudaGraph_t g, *bodies;
        cudaGraphConditionalHandle h;
        cudaGraphNode_t n;
        assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
        assert_int_equal(cudaGraphConditionalHandleCreate(&h, g, value, flags), cudaSuccess);
        assert_int_equal(add_cond(&n, g, h, type, size, &bodies), cudaSuccess);
        for (unsigned int i = 0; i < size; i++)
            add_host(bodies[i], digits + i);
        const char *got = launch_twice(g);
        if (strcmp(got, want) != 0)
            fail_msg("type %d size %u default %u flags %u ran \"%s\", want \"%s\"", (int)type, size,
                     value, flags, got, want);
        assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    }
}

static void test_launch_runs_the_default_body(void **state)
{
    (void)state;
    check_runs(cudaGraphCondTypeIf, 2, 1, "00");
    check_runs(cudaGraphCondTypeIf, 2, 0, "11");
    check_runs(cudaGraphCondTypeIf, 1, 5, "00");
    check_runs(cudaGraphCondTypeIf, 1, 0, "");
    /* No kernel clears a while's condition: its body runs once a launch. */
    check_runs(cudaGraphCondTypeWhile, 1, 1, "00");
    check_runs(cudaGraphCondTypeWhile, 1, 0, "");
    check_runs(cudaGraphCondTypeSwitch, 3, 1, "11");
    check_runs(cudaGraphCondTypeSwitch, 3, 2, "22");
    check_runs(cudaGraphCondTypeSwitch, 3, 3, "");
}

static void test_refused_parameters(void **state)
{
    (void)state;
    cudaGraph_t g;
    cudaGraphConditionalHandle h, h2;
    cudaGraphNode_t n;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    assert_int_equal(cudaGraphConditionalHandleCreate(NULL, g, 0, 0), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphConditionalHandleCreate(&h, NULL, 0, 0), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphConditionalHandleCreate(&h, g, 0, 2), cudaErrorInvalidValue);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
    assert_int_equal(cudaGraphConditionalHandleCreate(&h, g, 0, 0), cudaSuccess);
    assert_int_equal(cudaGraphConditionalHandleCreate(&h2, g, 0, 0), cudaSuccess);
    assert_true(h != h2 && h != 0);
    assert_int_equal(add_cond(&n, g, 0, cudaGraphCondTypeIf, 1, NULL), cudaErrorInvalidValue);
    assert_int_equal(add_cond(&n, g, h, cudaGraphCondTypeIf, 0, NULL), cudaErrorInvalidValue);
    assert_int_equal(add_cond(&n, g, h, cudaGraphCondTypeIf, 3, NULL), cudaErrorInvalidValue);
    assert_int_equal(add_cond(&n, g, h, cudaGraphCondTypeWhile, 2, NULL), cudaErrorInvalidValue);
    assert_int_equal(add_cond(&n, g, h, cudaGraphCondTypeSwitch, 0, NULL), cudaErrorInvalidValue);
    assert_int_equal(add_cond(&n, g, h, (enum cudaGraphConditionalNodeType)3, 1, NULL),
                     cudaErrorInvalidValue);
    size_t count = 9;
    assert_int_equal(cudaGraphGetNodes(g, NULL, &count), cudaSuccess);
    assert_int_equal(count, 0);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

/* The bodies are the node's: handed back, filled later, not destroyable,
 * gone with the graph; a clone's are copies. */
static void test_bodies_belong_to_the_node(void **state)
{
    (void)state;
    cudaGraph_t g, *bodies, clone;
    cudaGraphConditionalHandle h;
    cudaGraphNode_t n;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    assert_int_equal(cudaGraphConditionalHandleCreate(&h, g, 0, 0), cudaSuccess);
    assert_int_equal(add_cond(&n, g, h, cudaGraphCondTypeSwitch, 4, &bodies), cudaSuccess);
    enum cudaGraphNodeType t;
    assert_int_equal(cudaGraphNodeGetType(n, &t), cudaSuccess);
    assert_int_equal(t, cudaGraphNodeTypeConditional);
    assert_non_null(bodies);
    for (int i = 0; i < 4; i++) {
        size_t count = 9;
        assert_non_null(bodies[i]);
        assert_int_equal(cudaGraphGetNodes(bodies[i], NULL, &count), cudaSuccess);
        assert_int_equal(count, 0);
    }
    assert_int_equal(cudaGraphDestroy(bodies[1]), cudaErrorInvalidValue);
    /* Filled after the node was added, the body is what runs. */
    add_host(bodies[0], "a");
    assert_int_equal(cudaGraphClone(&clone, g), cudaSuccess);
    add_host(bodies[0], "b");
    assert_string_equal(launch_twice(g), "abab");
    assert_string_equal(launch_twice(clone), "aa");
    assert_int_equal(cudaGraphDestroy(clone), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

static void test_exec_update_compares_bodies(void **state)
{
    (void)state;
    cudaGraph_t a, b, c, *ba, *bb, *bc;
    cudaGraphConditionalHandle ha, hb, hc;
    cudaGraphNode_t n;
    assert_int_equal(cudaGraphCreate(&a, 0), cudaSuccess);
    assert_int_equal(cudaGraphCreate(&b, 0), cudaSuccess);
    assert_int_equal(cudaGraphCreate(&c, 0), cudaSuccess);
    assert_int_equal(cudaGraphConditionalHandleCreate(&ha, a, 1, 0), cudaSuccess);
    assert_int_equal(cudaGraphConditionalHandleCreate(&hb, b, 1, 0), cudaSuccess);
    assert_int_equal(cudaGraphConditionalHandleCreate(&hc, c, 1, 0), cudaSuccess);
    assert_int_equal(add_cond(&n, a, ha, cudaGraphCondTypeIf, 2, &ba), cudaSuccess);
    assert_int_equal(add_cond(&n, b, hb, cudaGraphCondTypeIf, 2, &bb), cudaSuccess);
    assert_int_equal(add_cond(&n, c, hc, cudaGraphCondTypeIf, 2, &bc), cudaSuccess);
    add_host(ba[0], "x");
    add_host(bb[0], "y");
    add_host(bc[1], "z"); /* the host node is in the other body */
    cudaGraphExec_t x;
    assert_int_equal(cudaGraphInstantiate(&x, a, 0), cudaSuccess);
    cudaGraphExecUpdateResultInfo info;
    assert_int_equal(cudaGraphExecUpdate(x, b, &info), cudaSuccess);
    assert_int_equal(info.result, cudaGraphExecUpdateSuccess);
    assert_int_equal(cudaGraphExecUpdate(x, c, &info), cudaErrorGraphExecUpdateFailure);
    assert_int_equal(info.result, cudaGraphExecUpdateErrorTopologyChanged);
    nseen = 0;
    assert_int_equal(cudaGraphLaunch(x, NULL), cudaSuccess);
    assert_string_equal(seen, "y");
    assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(a), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(b), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(c), cudaSuccess);
}

/* Each body is a cluster of its own, numbered in index order. */
static void test_dot_shows_bodies(void **state)
{
    (void)state;
    cudaGraph_t g, *bodies;
    cudaGraphConditionalHandle h;
    cudaGraphNode_t n;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    assert_int_equal(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault),
                     cudaSuccess);
    assert_int_equal(add_cond(&n, g, h, cudaGraphCondTypeIf, 2, &bodies), cudaSuccess);
    add_host(bodies[1], "e");
    char path[] = "/tmp/sc_graph_cond_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(cudaGraphDebugDotPrint(g, path, 0), cudaSuccess);
    const char *dot = sc_test_read_text(path);
    assert_non_null(strstr(dot, "\"graph_1_node_0\"[style=\"solid\" shape=\"rectangle\" "
                                "label=\"0\nCONDITIONAL\nIF graph_2 graph_3\n\"];"));
    assert_non_null(strstr(dot, "subgraph cluster_2 {\nlabel=\"graph_2\""));
    assert_non_null(strstr(dot, "subgraph cluster_3 {\nlabel=\"graph_3\""));
    assert_non_null(strstr(dot, "\"graph_3_node_0\"[style=\"solid\" shape=\"rectangle\" "
                                "label=\"0\nHOST\n\"];"));
    assert_int_equal(cudaGraphDebugDotPrint(g, path, cudaGraphDebugDotFlagsVerbose), cudaSuccess);
    dot = sc_test_read_text(path);
    assert_non_null(strstr(dot, "label=\"{CONDITIONAL\n| {ID | 0 (topoId: 0) | IF | graph_2 | "
                                "graph_3}\n| {{size | default | flags} | {2 | 1 | 1}}\n}\"];"));
    unlink(path);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_launch_runs_the_default_body),
        cmocka_unit_test(test_refused_parameters),
        cmocka_unit_test(test_bodies_belong_to_the_node),
        cmocka_unit_test(test_exec_update_compares_bodies),
        cmocka_unit_test(test_dot_shows_bodies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
