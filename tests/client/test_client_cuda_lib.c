/*
 * libstreamcap's cuda-mode calls against a real streamcapd: a fork/join
 * captured the CUDA way, dependency sets, host calls and modes, CUDA
 * errors with their number and data, and the refusals of the library.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"
#include "streamcap.h"

typedef struct fixture {
    sc_it_daemon *d;
    sc_client *c;
} fixture;

static int group_setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    f->d = sc_it_must_start(NULL);
    assert_int_equal(sc_client_connect(sc_it_daemon_socket(f->d), 10000, &f->c), 0);
    *state = f;
    return 0;
}

static int group_teardown(void **state)
{
    fixture *f = *state;
    sc_client_close(f->c);
    sc_it_must_stop(f->d);
    sc_it_daemon_destroy(f->d);
    free(f);
    return 0;
}

static const uint32_t one[3] = {1, 1, 1};
static const uint32_t grid[3] = {4, 2, 1};
static const uint32_t block[3] = {256, 1, 1};

static uint64_t open_cuda(sc_client *c)
{
    uint64_t s = 0;
    assert_int_equal(sc_client_open_session_ex(c, "cuda", SC_CLIENT_SEMANTICS_CUDA, &s), 0);
    assert_true(s > 0);
    return s;
}

static int64_t kernel(sc_client *c, uint64_t s, uint32_t stream, const char *name)
{
    int64_t node = -2;
    assert_int_equal(sc_client_cuda_record_kernel(c, s, stream, 0, name, grid, block, 0, &node), 0);
    return node;
}

/* Fork by event record and wait, join back, end on the origin: one graph,
 * the session still open for the next capture. */
static void test_fork_join_the_cuda_way(void **state)
{
    fixture *f = *state;
    sc_client *c = f->c;
    uint64_t s = open_cuda(c);
    sc_client_session_list l;
    assert_int_equal(sc_client_list_sessions(c, &l), 0);
    bool seen = false;
    for (size_t i = 0; i < l.count; i++) {
        if (l.sessions[i].session == s) {
            assert_string_equal(l.sessions[i].semantics, "cuda");
            seen = true;
        }
    }
    assert_true(seen);
    sc_client_session_list_free(&l);

    assert_int_equal(sc_client_stream_create(c, s, 2, true), 0);
    /* Outside capture a kernel runs and nothing is recorded. */
    assert_int_equal(kernel(c, s, 1, "warmup"), -1);
    uint64_t cap = 0;
    assert_int_equal(sc_client_cuda_begin(c, s, 1, 0, SC_CLIENT_MODE_GLOBAL, &cap), 0);
    assert_int_equal(cap, 1);
    int64_t up = -2;
    assert_int_equal(sc_client_cuda_record_kernel(c, s, 1, 0, "upload", one, one, 0, &up), 0);
    assert_int_equal(up, 0);
    assert_int_equal(sc_client_cuda_event(c, s, 1, 0, 0, false), 0);
    assert_int_equal(sc_client_cuda_event(c, s, 2, 0, 0, true), 0);

    sc_client_capture_info info;
    assert_int_equal(sc_client_capture_info_get(c, s, 2, 0, &info), 0);
    assert_int_equal(info.status, SC_CLIENT_STATUS_ACTIVE);
    assert_int_equal(info.capture, 1);
    assert_int_equal(info.origin, 1);
    assert_int_equal(info.mode, SC_CLIENT_MODE_GLOBAL);
    assert_int_equal(info.dependency_count, 1);
    assert_int_equal(info.dependencies[0], 0);
    sc_client_capture_info_free(&info);
    assert_null(info.dependencies);
    assert_int_equal(sc_client_capture_info_get(c, s, 9, 0, &info), 0);
    assert_int_equal(info.status, SC_CLIENT_STATUS_NONE);
    assert_int_equal(info.dependency_count, 0);
    sc_client_capture_info_free(&info);

    assert_int_equal(kernel(c, s, 2, "relu"), 1);
    assert_int_equal(sc_client_cuda_event(c, s, 2, 0, 1, false), 0);
    assert_int_equal(sc_client_cuda_event(c, s, 1, 0, 1, true), 0);
    sc_client_cuda_captured got = {0};
    assert_int_equal(sc_client_cuda_end(c, s, 1, 0, &got), 0);
    assert_int_equal(got.capture, 1);
    assert_int_equal(got.node_count, 2);
    assert_int_equal(got.edge_count, 1);
    assert_true(got.graph > 0);

    /* The session lives on: the next capture is 2, its nodes from 0. */
    assert_int_equal(sc_client_cuda_begin(c, s, 1, 0, SC_CLIENT_MODE_RELAXED, &cap), 0);
    assert_int_equal(cap, 2);
    assert_int_equal(kernel(c, s, 1, "again"), 0);
    assert_int_equal(sc_client_cuda_end(c, s, 1, 0, &got), 0);
    assert_int_equal(got.capture, 2);
    assert_int_equal(sc_client_close_session(c, s), 0);
}

/* update_dependencies: add unions, set replaces; an unknown id is CUDA's 1. */
static void test_update_dependencies(void **state)
{
    fixture *f = *state;
    sc_client *c = f->c;
    uint64_t s = open_cuda(c);
    assert_int_equal(sc_client_cuda_begin(c, s, 1, 0, SC_CLIENT_MODE_GLOBAL, NULL), 0);
    assert_int_equal(kernel(c, s, 1, "a"), 0);
    assert_int_equal(kernel(c, s, 1, "b"), 1);
    const uint32_t first[] = {0};
    assert_int_equal(sc_client_update_dependencies(c, s, 1, 0, first, 1, false), 0);
    sc_client_capture_info info;
    assert_int_equal(sc_client_capture_info_get(c, s, 1, 0, &info), 0);
    assert_int_equal(info.dependency_count, 2);
    sc_client_capture_info_free(&info);
    assert_int_equal(sc_client_update_dependencies(c, s, 1, 0, first, 1, true), 0);
    assert_int_equal(sc_client_capture_info_get(c, s, 1, 0, &info), 0);
    assert_int_equal(info.dependency_count, 1);
    assert_int_equal(info.dependencies[0], 0);
    sc_client_capture_info_free(&info);
    const uint32_t bad[] = {9};
    assert_int_equal(sc_client_update_dependencies(c, s, 1, 0, bad, 1, true), SC_CLIENT_ECUDA);
    assert_int_equal(sc_client_errcode(c), 1009);
    assert_int_equal(sc_client_cuda_error(c), 1);
    assert_int_equal(sc_client_update_dependencies(c, s, 1, 0, NULL, 1, true), -EINVAL);
    assert_int_equal(sc_client_close_session(c, s), 0);
}

/* sc_client_cuda_add_node_ex: the node added by hand is stored with what
 * it was given (a kernel's function and 3-D shape, a memcpy's direction
 * and size), on the call's stream whatever node->stream says. */
static void test_add_node_ex(void **state)
{
    fixture *f = *state;
    sc_client *c = f->c;
    uint64_t s = open_cuda(c);
    assert_int_equal(sc_client_cuda_begin(c, s, 3, 0, SC_CLIENT_MODE_GLOBAL, NULL), 0);
    assert_int_equal(kernel(c, s, 3, "head"), 0);
    sc_client_node k = {.kind = SC_CLIENT_KERNEL,
                        .stream = 9,
                        .function_name = "side(float*, int)",
                        .dim3 = true,
                        .grid = {8, 2, 1},
                        .block = {256, 1, 4},
                        .shared_mem = 128};
    const uint32_t dep0[] = {0};
    int64_t id = -2;
    assert_int_equal(sc_client_cuda_add_node_ex(c, s, 3, 0, &k, dep0, 1, &id), 0);
    assert_int_equal(id, 1);
    sc_client_node m = {.kind = SC_CLIENT_MEMCPY,
                        .name = "cudaGraphAddMemcpyNode",
                        .dir = SC_CLIENT_DEVICE_TO_HOST,
                        .size_bytes = 4096};
    const uint32_t dep1[] = {1};
    assert_int_equal(sc_client_cuda_add_node_ex(c, s, 3, 0, &m, dep1, 1, NULL), 0);
    sc_client_node h = {.kind = SC_CLIENT_HOST_CALLBACK, .label = "cb"};
    assert_int_equal(sc_client_cuda_add_node_ex(c, s, 3, 0, &h, NULL, 0, &id), 0);
    assert_int_equal(id, 3);
    assert_int_equal(sc_client_cuda_add_node_ex(c, s, 3, 0, NULL, NULL, 0, &id), -EINVAL);
    assert_int_equal(sc_client_cuda_add_node_ex(c, s, 3, 0, &h, NULL, 1, &id), -EINVAL);
    sc_client_node bad = {.kind = (sc_client_kind)99};
    assert_int_equal(sc_client_cuda_add_node_ex(c, s, 3, 0, &bad, NULL, 0, &id), -EINVAL);
    /* CUDA's own refusal: an id that is no node of the capture */
    const uint32_t nine[] = {9};
    assert_int_equal(sc_client_cuda_add_node_ex(c, s, 3, 0, &h, nine, 1, &id), SC_CLIENT_ECUDA);
    assert_int_equal(sc_client_cuda_error(c), 1);
    sc_client_cuda_captured got = {0};
    assert_int_equal(sc_client_cuda_end(c, s, 3, 0, &got), 0);
    sc_client_graph g;
    assert_int_equal(sc_client_graph_get(c, got.graph, &g), 0);
    assert_int_equal(g.node_count, 4);
    const sc_client_node *n = &g.nodes[1];
    assert_int_equal(n->kind, SC_CLIENT_KERNEL);
    assert_int_equal(n->stream, 3);
    assert_string_equal(n->function_name, "side(float*, int)");
    assert_true(n->dim3);
    assert_int_equal(n->grid[1], 2);
    assert_int_equal(n->block[2], 4);
    assert_int_equal(n->num_blocks, 8);
    assert_int_equal(n->shared_mem, 128);
    n = &g.nodes[2];
    assert_int_equal(n->kind, SC_CLIENT_MEMCPY);
    assert_string_equal(n->name, "cudaGraphAddMemcpyNode");
    assert_int_equal(n->dir, SC_CLIENT_DEVICE_TO_HOST);
    assert_int_equal(n->size_bytes, 4096);
    assert_int_equal(g.nodes[3].kind, SC_CLIENT_HOST_CALLBACK);
    assert_string_equal(g.nodes[3].label, "cb");
    assert_int_equal(g.edge_count, 2);
    sc_client_graph_free(&g);
    assert_int_equal(sc_client_close_session(c, s), 0);
}

/* A conditional node's type, size, default and flags: added to a capture
 * and submitted with its bodies, both read back through graph.get; a
 * nested submit whose bodies do not number its size is refused before
 * anything is sent. */
static void test_conditional_nodes(void **state)
{
    fixture *f = *state;
    sc_client *c = f->c;
    uint64_t s = open_cuda(c);
    assert_int_equal(sc_client_cuda_begin(c, s, 2, 0, SC_CLIENT_MODE_GLOBAL, NULL), 0);
    assert_int_equal(kernel(c, s, 2, "set"), 0);
    sc_client_node w = {.kind = SC_CLIENT_CONDITIONAL,
                        .cond_type = SC_CLIENT_COND_WHILE,
                        .cond_size = 1,
                        .cond_default = 5,
                        .cond_flags = 1};
    const uint32_t dep0[] = {0};
    int64_t id = -2;
    assert_int_equal(sc_client_cuda_add_node_ex(c, s, 2, 0, &w, dep0, 1, &id), 0);
    assert_int_equal(id, 1);
    sc_client_cuda_captured got = {0};
    assert_int_equal(sc_client_cuda_end(c, s, 2, 0, &got), 0);
    sc_client_graph g;
    assert_int_equal(sc_client_graph_get(c, got.graph, &g), 0);
    assert_int_equal(g.nodes[1].kind, SC_CLIENT_CONDITIONAL);
    assert_int_equal(g.nodes[1].cond_type, SC_CLIENT_COND_WHILE);
    assert_int_equal(g.nodes[1].cond_size, 1);
    assert_int_equal(g.nodes[1].cond_default, 5);
    assert_int_equal(g.nodes[1].cond_flags, 1);
    sc_client_graph_free(&g);

    sc_client_node body_nodes[] = {{.kind = SC_CLIENT_EMPTY}};
    sc_client_subgraph cases[3] = {{.nodes = body_nodes, .n = 1}, {.n = 0}, {.n = 0}};
    sc_client_node top[] = {{.kind = SC_CLIENT_CONDITIONAL,
                             .cond_type = SC_CLIENT_COND_SWITCH,
                             .cond_size = 3,
                             .cond_default = 2}};
    const sc_client_subgraph *bodies[] = {cases};
    size_t nbodies[] = {3};
    sc_client_subgraph sg = {.nodes = top, .n = 1, .bodies = bodies, .nbodies = nbodies};
    uint64_t graph = 0;
    assert_int_equal(sc_client_graph_submit_nested(c, "switch", &sg, &graph), 0);
    assert_int_equal(sc_client_graph_get(c, graph, &g), 0);
    assert_int_equal(g.nodes[0].cond_type, SC_CLIENT_COND_SWITCH);
    assert_int_equal(g.nodes[0].cond_size, 3);
    assert_int_equal(g.nodes[0].cond_default, 2);
    assert_int_equal(g.nodes[0].cond_flags, 0);
    sc_client_graph_free(&g);
    nbodies[0] = 2;
    assert_int_equal(sc_client_graph_submit_nested(c, "switch", &sg, &graph), -EINVAL);
    assert_int_equal(sc_client_close_session(c, s), 0);
}

/* A forgotten join: 904 with the unjoined stream and node in the data. */
static void test_unjoined_end(void **state)
{
    fixture *f = *state;
    sc_client *c = f->c;
    uint64_t s = open_cuda(c);
    assert_int_equal(sc_client_cuda_begin(c, s, 1, 0, SC_CLIENT_MODE_GLOBAL, NULL), 0);
    assert_int_equal(kernel(c, s, 1, "a"), 0);
    assert_int_equal(sc_client_cuda_event(c, s, 1, 0, 0, false), 0);
    assert_int_equal(sc_client_cuda_event(c, s, 2, 0, 0, true), 0);
    assert_int_equal(kernel(c, s, 2, "b"), 1);
    sc_client_cuda_captured got = {.graph = 77};
    assert_int_equal(sc_client_cuda_end(c, s, 1, 0, &got), SC_CLIENT_ECUDA);
    assert_int_equal(got.graph, 77);
    assert_int_equal(sc_client_cuda_error(c), 904);
    assert_string_equal(sc_client_errmsg(c), "capturing stream has unjoined work");
    cJSON *data = cJSON_Parse(sc_client_errdata(c));
    assert_non_null(data);
    assert_string_equal(sc_it_str(data, "cuda_name"), "cudaErrorStreamCaptureUnjoined");
    cJSON *want = cJSON_Parse("[{\"stream\":2,\"nodes\":[1]}]");
    assert_true(cJSON_Compare(want, cJSON_GetObjectItemCaseSensitive(data, "unjoined"), 1));
    cJSON_Delete(want);
    cJSON_Delete(data);
    assert_string_equal(sc_client_strerror(SC_CLIENT_ECUDA), "refused as CUDA would refuse it");
    /* A later success forgets the error and its data. */
    assert_int_equal(sc_client_stream_create(c, s, 3, false), 0);
    assert_int_equal(sc_client_cuda_error(c), 0);
    assert_string_equal(sc_client_errdata(c), "");
    assert_int_equal(sc_client_close_session(c, s), 0);
}

/* Host calls and modes: cudaMalloc from another thread breaks a global
 * capture (900, then 901 at its end), not a relaxed thread's. */
static void test_host_calls_and_modes(void **state)
{
    fixture *f = *state;
    sc_client *c = f->c;
    uint64_t s = open_cuda(c);
    sc_client_capture_mode old = SC_CLIENT_MODE_RELAXED;
    assert_int_equal(sc_client_exchange_mode(c, s, 5, SC_CLIENT_MODE_RELAXED, &old), 0);
    assert_int_equal(old, SC_CLIENT_MODE_GLOBAL);
    assert_int_equal(sc_client_exchange_mode(c, s, 5, SC_CLIENT_MODE_RELAXED, &old), 0);
    assert_int_equal(old, SC_CLIENT_MODE_RELAXED);
    assert_int_equal(sc_client_cuda_begin(c, s, 7, 0, SC_CLIENT_MODE_GLOBAL, NULL), 0);
    assert_int_equal(kernel(c, s, 7, "k"), 0);
    assert_int_equal(sc_client_host_call(c, s, 5, SC_CLIENT_HOST_UNSAFE, 0, 0, "cudaMalloc"), 0);
    assert_int_equal(sc_client_host_call(c, s, 2, SC_CLIENT_HOST_UNSAFE, 0, 0, "cudaMalloc"),
                     SC_CLIENT_ECUDA);
    assert_int_equal(sc_client_cuda_error(c), 900);
    assert_string_equal(sc_client_errmsg(c), "operation not permitted when stream is capturing");
    sc_client_capture_info info;
    assert_int_equal(sc_client_capture_info_get(c, s, 7, 0, &info), 0);
    assert_int_equal(info.status, SC_CLIENT_STATUS_INVALIDATED);
    sc_client_capture_info_free(&info);
    assert_int_equal(sc_client_cuda_end(c, s, 7, 0, NULL), SC_CLIENT_ECUDA);
    assert_int_equal(sc_client_cuda_error(c), 901);
    assert_int_equal(sc_client_close_session(c, s), 0);
}

/* The external flag: in a capture an external record and an external wait
 * are nodes of their own, stored with their event; without it neither is. */
static void test_external_events(void **state)
{
    fixture *f = *state;
    sc_client *c = f->c;
    uint64_t s = open_cuda(c);
    assert_int_equal(sc_client_cuda_begin(c, s, 1, 0, SC_CLIENT_MODE_GLOBAL, NULL), 0);
    assert_int_equal(kernel(c, s, 1, "a"), 0);
    int64_t node = -2;
    assert_int_equal(sc_client_cuda_event_ex(c, s, 1, 0, 3, false, false, &node), 0);
    assert_int_equal(node, -1);
    assert_int_equal(sc_client_cuda_event_ex(c, s, 1, 0, 4, false, true, &node), 0);
    assert_int_equal(node, 1);
    assert_int_equal(sc_client_cuda_event_ex(c, s, 1, 0, 5, true, true, &node), 0);
    assert_int_equal(node, 2);
    sc_client_cuda_captured got = {0};
    assert_int_equal(sc_client_cuda_end(c, s, 1, 0, &got), 0);
    assert_int_equal(got.node_count, 3);
    sc_client_graph g;
    assert_int_equal(sc_client_graph_get(c, got.graph, &g), 0);
    assert_int_equal(g.node_count, 3);
    assert_int_equal(g.nodes[1].kind, SC_CLIENT_EVENT_RECORD);
    assert_int_equal(g.nodes[1].event, 4);
    assert_int_equal(g.nodes[2].kind, SC_CLIENT_EVENT_WAIT);
    assert_int_equal(g.nodes[2].event, 5);
    sc_client_graph_free(&g);
    assert_int_equal(sc_client_close_session(c, s), 0);
}

/* What the library refuses itself, sending nothing. */
static void test_library_refusals(void **state)
{
    fixture *f = *state;
    sc_client *c = f->c;
    uint64_t s = 0;
    assert_int_equal(sc_client_open_session_ex(c, NULL, (sc_client_semantics)9, &s), -EINVAL);
    assert_int_equal(sc_client_cuda_begin(c, 1, 1, 0, (sc_client_capture_mode)7, NULL), -EINVAL);
    assert_int_equal(sc_client_cuda_record_kernel(c, 1, 1, 0, "k", NULL, block, 0, NULL), -EINVAL);
    assert_int_equal(sc_client_host_call(c, 1, 0, (sc_client_host_call_kind)11, 0, 0, NULL),
                     -EINVAL);
    assert_null(sc_client_semantics_name((sc_client_semantics)2));
    assert_string_equal(sc_client_semantics_name(SC_CLIENT_SEMANTICS_CUDA), "cuda");
    assert_string_equal(sc_client_mode_name(SC_CLIENT_MODE_THREAD_LOCAL), "thread_local");
    /* Not in a pipeline: their results have no place in its replies. */
    s = open_cuda(c);
    assert_int_equal(sc_client_pipeline_begin(c), 0);
    assert_int_equal(sc_client_cuda_begin(c, s, 1, 0, SC_CLIENT_MODE_GLOBAL, NULL), -EBUSY);
    assert_int_equal(sc_client_open_session_ex(c, NULL, SC_CLIENT_SEMANTICS_CUDA, NULL), 0);
    sc_client_reply *rep;
    size_t n;
    assert_int_equal(sc_client_pipeline_collect(c, &rep, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(rep[0].rc, 0);
    uint64_t piped = rep[0].id;
    sc_client_replies_free(rep, n);
    assert_int_equal(sc_client_close_session(c, piped), 0);
    /* A cuda method on a default-mode session: the daemon's -32602. */
    uint64_t def;
    assert_int_equal(sc_client_open_session_ex(c, NULL, SC_CLIENT_SEMANTICS_OXICUDA, &def), 0);
    assert_int_equal(sc_client_stream_create(c, def, 1, true), SC_CLIENT_EPARAMS);
    assert_int_equal(sc_client_cuda_error(c), 0);
    assert_string_equal(sc_client_errdata(c),
                        "{\"kind\":\"invalid_params\",\"field\":\"session\"}");
    assert_int_equal(sc_client_close_session(c, def), 0);
    assert_int_equal(sc_client_close_session(c, s), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fork_join_the_cuda_way),
        cmocka_unit_test(test_update_dependencies),
        cmocka_unit_test(test_add_node_ex),
        cmocka_unit_test(test_conditional_nodes),
        cmocka_unit_test(test_unjoined_end),
        cmocka_unit_test(test_host_calls_and_modes),
        cmocka_unit_test(test_library_refusals),
        cmocka_unit_test(test_external_events),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
