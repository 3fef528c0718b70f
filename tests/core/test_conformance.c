/*
 * test_conformance.c - run every scenario of the conformance corpus
 * (tests/data/conformance_scenarios.jsonl) through the core and compare
 * with conformance_expected.jsonl: every op result, every error message
 * (prefixed as the reference prints it), the graph's nodes and sorted
 * edges, and the strict reachability closure computed both through the
 * index and through BFS.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cJSON.h"
#include "jsonl.h"
#include "sc_capture.h"

#define SCENARIOS SC_TEST_DATA_DIR "/conformance_scenarios.jsonl"
#define EXPECTED  SC_TEST_DATA_DIR "/conformance_expected.jsonl"

/* ---- reading ops -------------------------------------------------------- */

static uint64_t get_uint(run *r, const cJSON *op, const char *key, uint64_t max)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(op, key);
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > (double)max ||
        v->valuedouble != (double)(uint64_t)v->valuedouble) {
        failf(r, "field %s missing or out of range", key);
        return 0;
    }
    return (uint64_t)v->valuedouble;
}

static const char *get_str(run *r, const cJSON *op, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(op, key);
    if (!cJSON_IsString(v)) {
        failf(r, "field %s missing", key);
        return "";
    }
    return v->valuestring;
}

/* ---- building the actual output ----------------------------------------- */

static cJSON *ok_result(void)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "ok", 1);
    return o;
}

static cJSON *rc_result(int rc, uint32_t stream)
{
    if (rc == 0)
        return ok_result();
    char msg[160];
    size_t plen = strlen(SC_ERROR_PREFIX);
    memcpy(msg, SC_ERROR_PREFIX, plen);
    sc_error_message(rc, stream, msg + plen, sizeof msg - plen);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "ok", 0);
    cJSON_AddStringToObject(o, "error", "internal");
    cJSON_AddStringToObject(o, "message", msg);
    return o;
}

static cJSON *node_result(int rc, uint32_t stream, uint32_t node)
{
    cJSON *o = rc_result(rc, stream);
    if (rc == 0)
        cJSON_AddNumberToObject(o, "node", node);
    return o;
}

static cJSON *node_json(const sc_graph *g, uint32_t id)
{
    sc_node n;
    assert_int_equal(sc_graph_node(g, id, &n), 0);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", id);
    cJSON_AddStringToObject(o, "kind", sc_node_kind_name(n.kind));
    cJSON_AddNumberToObject(o, "stream", n.stream);
    assert_int_equal(strlen(n.name), n.name_len);
    cJSON_AddStringToObject(o, "name", n.name);
    switch (n.kind) {
    case SC_KIND_KERNEL: {
        const double grid[3] = {n.num_blocks, 1, 1}, block[3] = {n.threads_per_block, 1, 1};
        cJSON_AddItemToObject(o, "grid", cJSON_CreateDoubleArray(grid, 3));
        cJSON_AddItemToObject(o, "block", cJSON_CreateDoubleArray(block, 3));
        cJSON_AddNumberToObject(o, "shared_mem", n.shared_mem);
        cJSON_AddBoolToObject(o, "fusible", 0);
        break;
    }
    case SC_KIND_MEMCPY:
        cJSON_AddStringToObject(o, "dir", sc_memcpy_dir_name(n.dir));
        cJSON_AddNumberToObject(o, "bytes", (double)n.size_bytes);
        if (n.dir == SC_DIR_PEER_TO_PEER) {
            cJSON_AddNumberToObject(o, "src_device", n.src_device);
            cJSON_AddNumberToObject(o, "dst_device", n.dst_device);
        }
        break;
    case SC_KIND_MEMSET:
        cJSON_AddNumberToObject(o, "bytes", (double)n.size_bytes);
        cJSON_AddNumberToObject(o, "value", n.value);
        break;
    case SC_KIND_HOST_CALLBACK:
        cJSON_AddStringToObject(o, "label", n.name);
        break;
    }
    return o;
}

static cJSON *pair(uint32_t a, uint32_t b)
{
    const double v[2] = {a, b};
    return cJSON_CreateDoubleArray(v, 2);
}

typedef int (*reach_fn)(const sc_graph *, uint32_t, uint32_t, bool *);

/* Every ordered pair a != b with a happening before b, in sorted order. */
static cJSON *closure(const sc_graph *g, reach_fn fn)
{
    cJSON *arr = cJSON_CreateArray();
    uint32_t n = sc_graph_node_count(g);
    for (uint32_t a = 0; a < n; a++) {
        bool self = false;
        assert_int_equal(fn(g, a, a, &self), 0);
        assert_true(self);
        for (uint32_t b = 0; b < n; b++) {
            bool r = false;
            assert_int_equal(fn(g, a, b, &r), 0);
            if (a != b && r)
                cJSON_AddItemToArray(arr, pair(a, b));
        }
    }
    return arr;
}

/* The graph as the corpus writes it; `bfs_reach` receives the closure
 * computed by BFS, the object's own "reach" comes from the index. */
static cJSON *graph_json(sc_graph *g, cJSON **bfs_reach)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *nodes = cJSON_AddArrayToObject(o, "nodes");
    for (uint32_t i = 0; i < sc_graph_node_count(g); i++)
        cJSON_AddItemToArray(nodes, node_json(g, i));
    cJSON *edges = cJSON_AddArrayToObject(o, "edges");
    for (uint64_t i = 0; i < sc_graph_edge_count(g); i++) {
        uint32_t s, d;
        assert_int_equal(sc_graph_edge(g, i, &s, &d), 0);
        cJSON_AddItemToArray(edges, pair(s, d));
    }
    *bfs_reach = closure(g, sc_graph_reachable_bfs);
    assert_int_equal(sc_graph_build_index(g), 0);
    assert_true(sc_graph_has_index(g));
    cJSON_AddItemToObject(o, "reach", closure(g, sc_graph_reachable));
    return o;
}

/* ---- running one scenario ----------------------------------------------- */

static bool parse_dir(run *r, const char *s, sc_memcpy_dir *dir)
{
    if (sc_memcpy_dir_parse(s, strlen(s), dir) == 0)
        return true;
    failf(r, "unknown dir %s", s);
    return false;
}

/* Runs one op; returns its result object.  *cap becomes NULL after end. */
static cJSON *run_op(run *r, sc_capture **capp, const cJSON *op, cJSON **graph, cJSON **bfs_reach)
{
    sc_capture *cap = *capp;
    const char *kind = get_str(r, op, "op");
    uint32_t stream = 0;
    if (cJSON_GetObjectItemCaseSensitive(op, "stream"))
        stream = (uint32_t)get_uint(r, op, "stream", UINT32_MAX);
    uint32_t node = 0;
    int rc;
    if (!cap) {
        failf(r, "op %s after end", kind);
        return cJSON_CreateNull();
    }
    if (strcmp(kind, "begin") == 0)
        return rc_result(sc_capture_begin(cap, stream), stream);
    if (strcmp(kind, "kernel") == 0) {
        const char *name = get_str(r, op, "name");
        rc = sc_capture_record_kernel(cap, stream, name, strlen(name),
                                      (uint32_t)get_uint(r, op, "blocks", UINT32_MAX),
                                      (uint32_t)get_uint(r, op, "threads", UINT32_MAX),
                                      (uint32_t)get_uint(r, op, "shared_mem", UINT32_MAX), &node);
        return node_result(rc, stream, node);
    }
    if (strcmp(kind, "memcpy") == 0) {
        const char *name = get_str(r, op, "name");
        sc_memcpy_dir dir;
        if (!parse_dir(r, get_str(r, op, "dir"), &dir))
            return cJSON_CreateNull();
        uint32_t src = 0, dst = 0;
        if (dir == SC_DIR_PEER_TO_PEER) {
            src = (uint32_t)get_uint(r, op, "src_device", UINT32_MAX);
            dst = (uint32_t)get_uint(r, op, "dst_device", UINT32_MAX);
        }
        rc = sc_capture_record_memcpy(cap, stream, name, strlen(name), dir,
                                      get_uint(r, op, "bytes", UINT64_MAX), src, dst, &node);
        return node_result(rc, stream, node);
    }
    if (strcmp(kind, "memset") == 0) {
        const char *name = get_str(r, op, "name");
        rc = sc_capture_record_memset(cap, stream, name, strlen(name),
                                      get_uint(r, op, "bytes", UINT64_MAX),
                                      (uint8_t)get_uint(r, op, "value", 255), &node);
        return node_result(rc, stream, node);
    }
    if (strcmp(kind, "host_callback") == 0) {
        const char *label = get_str(r, op, "label");
        rc = sc_capture_record_host_callback(cap, stream, label, strlen(label), &node);
        return node_result(rc, stream, node);
    }
    if (strcmp(kind, "record_event") == 0 || strcmp(kind, "wait_event") == 0) {
        uint32_t ev = (uint32_t)get_uint(r, op, "event", UINT32_MAX);
        rc = kind[0] == 'r' ? sc_capture_record_event(cap, stream, ev)
                            : sc_capture_wait_event(cap, stream, ev);
        return rc_result(rc, stream);
    }
    if (strcmp(kind, "status") == 0) {
        cJSON *o = ok_result();
        cJSON_AddStringToObject(o, "status", sc_status_name(sc_capture_status(cap, stream)));
        return o;
    }
    if (strcmp(kind, "is_capturing") == 0) {
        cJSON *o = ok_result();
        cJSON_AddBoolToObject(o, "value", sc_capture_is_capturing(cap));
        return o;
    }
    if (strcmp(kind, "node_count") == 0) {
        cJSON *o = ok_result();
        cJSON_AddNumberToObject(o, "value", sc_capture_node_count(cap));
        return o;
    }
    if (strcmp(kind, "invalidate") == 0)
        return rc_result(sc_capture_invalidate(cap, stream), stream);
    if (strcmp(kind, "end") == 0) {
        sc_graph *g = NULL;
        rc = sc_capture_end(cap, stream, &g);
        *capp = NULL;
        if (rc == 0) {
            cJSON_Delete(*graph);
            *graph = graph_json(g, bfs_reach);
            sc_graph_destroy(g);
        } else if (g) {
            failf(r, "failed end returned a graph");
        }
        return rc_result(rc, stream);
    }
    failf(r, "unknown op %s", kind);
    return cJSON_CreateNull();
}

static void mismatch(run *r, const char *what, const cJSON *want, const cJSON *got)
{
    char *w = cJSON_PrintUnformatted(want), *g = cJSON_PrintUnformatted(got);
    failf(r, "%s: expected %s, got %s", what, w ? w : "?", g ? g : "?");
    free(w);
    free(g);
}

static bool run_scenario(run *r, const cJSON *sc, const cJSON *exp)
{
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(sc, "ops");
    const cJSON *want_results = cJSON_GetObjectItemCaseSensitive(exp, "results");
    const cJSON *want_graph = cJSON_GetObjectItemCaseSensitive(exp, "graph");
    if (!cJSON_IsArray(ops) || !cJSON_IsArray(want_results) || !want_graph) {
        failf(r, "malformed scenario or expectation");
        return false;
    }
    if (cJSON_GetArraySize(ops) != cJSON_GetArraySize(want_results)) {
        failf(r, "%d ops but %d expected results", cJSON_GetArraySize(ops),
              cJSON_GetArraySize(want_results));
        return false;
    }
    sc_capture *cap = NULL;
    assert_int_equal(sc_capture_create(&cap), 0);
    cJSON *graph = cJSON_CreateNull();
    cJSON *bfs_reach = NULL;
    int i = 0;
    const cJSON *op;
    cJSON_ArrayForEach(op, ops)
    {
        cJSON *got = run_op(r, &cap, op, &graph, &bfs_reach);
        const cJSON *want = cJSON_GetArrayItem(want_results, i);
        if (!cJSON_Compare(want, got, 1)) {
            char what[48];
            snprintf(what, sizeof what, "op %d", i);
            mismatch(r, what, want, got);
        }
        cJSON_Delete(got);
        i++;
    }
    sc_capture_destroy(cap);
    if (!cJSON_Compare(want_graph, graph, 1))
        mismatch(r, "graph", want_graph, graph);
    if (bfs_reach) {
        const cJSON *want_reach = cJSON_GetObjectItemCaseSensitive(want_graph, "reach");
        if (!cJSON_Compare(want_reach, bfs_reach, 1))
            mismatch(r, "reach by BFS", want_reach, bfs_reach);
    }
    cJSON_Delete(graph);
    cJSON_Delete(bfs_reach);
    return !r->failed;
}

static void t_corpus(void **state)
{
    (void)state;
    run_corpus("conformance", SCENARIOS, EXPECTED, 0, run_scenario);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
