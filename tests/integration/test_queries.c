/*
 * Stored-graph queries through a real streamcapd: graph.reachable in both
 * forms (answers checked against a breadth-first search of graph.get's
 * edges, and against the conformance corpus's reach closure), its parameter
 * and not-found errors, graph.list ordering, limits, cursors and the label
 * filter, graph.get of every listed graph, and graph.delete.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "corpus.h"
#include "harness.h"
#include "itgraph.h"

static void expect_param_error(sc_it_conn *c, const char *field, const char *method,
                               const char *params)
{
    cJSON *reply = sc_it_call(c, method, "%s", params);
    sc_it_err_data(sc_it_err(c, reply, -32602, "invalid_params"), "field", field);
    cJSON_Delete(reply);
}

static void expect_not_found(sc_it_conn *c, const char *what, const char *method,
                             const char *params)
{
    cJSON *reply = sc_it_call(c, method, "%s", params);
    sc_it_err_data(sc_it_err(c, reply, 1001, "not_found"), "what", what);
    cJSON_Delete(reply);
}

/* Single-form graph.reachable; fails the test unless the reply is a boolean. */
static bool reach_one(sc_it_conn *c, int64_t graph, const char *from_to)
{
    cJSON *reply =
        sc_it_call(c, "graph.reachable", "{\"graph\":%lld,%s}", (long long)graph, from_to);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(sc_it_ok(c, reply), "reachable");
    if (!cJSON_IsBool(v)) {
        char *text = sc_it_json_text(reply);
        fail_msg("request %s\n  expected {reachable: bool}\n  got %s", sc_it_last_request(c), text);
    }
    bool yes = cJSON_IsTrue(v);
    cJSON_Delete(reply);
    return yes;
}

/* --------------------------------------------------- graph.reachable */

static void check_single_form(sc_it_conn *c, const sc_itg_graph *g, sc_itg_rng *r)
{
    /* Pipelined single-form calls over random pairs, each checked against the BFS. */
    enum { N = 300 };
    uint32_t *pairs = sc_itg_random_pairs(g, r, N);
    sc_itg_batch *b = sc_itg_batch_create();
    for (size_t i = 0; i < N; i++)
        sc_itg_batch_add(b, "graph.reachable", "{\"graph\":%lld,\"from\":%u,\"to\":%u}",
                         (long long)g->id, pairs[2 * i], pairs[2 * i + 1]);
    cJSON **replies = sc_itg_batch_run(b, c);
    size_t yes = 0;
    for (size_t i = 0; i < N; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(replies[i], "result"), "reachable");
        bool want = sc_itg_reaches(g, pairs[2 * i], pairs[2 * i + 1]);
        if (!cJSON_IsBool(v) || cJSON_IsTrue(v) != want)
            fail_msg("graph.reachable graph %lld from %u to %u: expected %s", (long long)g->id,
                     pairs[2 * i], pairs[2 * i + 1], want ? "true" : "false");
        yes += want;
    }
    /* The sample must exercise both answers, or it proves little. */
    assert_true(yes > 10 && yes < N - 10);
    sc_itg_replies_free(replies, N);
    sc_itg_batch_destroy(b);
    free(pairs);

    /* Reflexive, for the first, a middle and the last node. */
    uint32_t ids[] = {0, g->n / 2, g->n - 1};
    for (size_t i = 0; i < 3; i++) {
        char ft[64];
        snprintf(ft, sizeof(ft), "\"from\":%u,\"to\":%u", ids[i], ids[i]);
        assert_true(reach_one(c, g->id, ft));
    }
    /* Integral numbers in other spellings are the same ids. */
    char ft[96];
    snprintf(ft, sizeof(ft), "\"from\":0.0,\"to\":%u.0", g->n - 1);
    assert_true(reach_one(c, g->id, ft) == sc_itg_reaches(g, 0, g->n - 1));
    snprintf(ft, sizeof(ft), "\"from\":%u,\"to\":0", g->n - 1);
    assert_false(reach_one(c, g->id, ft));
}

static void check_reach_param_errors(sc_it_conn *c, int64_t graph)
{
    static const struct {
        const char *field;
        const char *params;
    } cases[] = {
        {"from", "\"to\":0"},
        {"to", "\"from\":0"},
        {"from", "\"from\":-1,\"to\":0"},
        {"to", "\"from\":0,\"to\":-1"},
        {"from", "\"from\":0.5,\"to\":0"},
        {"to", "\"from\":0,\"to\":2.25"},
        {"from", "\"from\":4294967296,\"to\":0"},
        {"to", "\"from\":0,\"to\":4294967296"},
        {"from", "\"from\":\"0\",\"to\":0"},
        {"to", "\"from\":0,\"to\":true"},
        {"from", "\"from\":null,\"to\":0"},
        {"pairs", "\"pairs\":{}"},
        {"pairs", "\"pairs\":\"[[0,1]]\""},
        {"pairs", "\"pairs\":7"},
        {"pairs", "\"pairs\":[[0,1,2]]"},
        {"pairs", "\"pairs\":[[0,1],[0,1,2]]"},
        {"pairs", "\"pairs\":[[0]]"},
        {"pairs", "\"pairs\":[[]]"},
        {"pairs", "\"pairs\":[5]"},
        {"pairs", "\"pairs\":[{\"from\":0,\"to\":1}]"},
        {"pairs", "\"pairs\":[[-1,0]]"},
        {"pairs", "\"pairs\":[[0,-1]]"},
        {"pairs", "\"pairs\":[[0.5,1]]"},
        {"pairs", "\"pairs\":[[0,1],[1,1.5]]"},
        {"pairs", "\"pairs\":[[4294967296,0]]"},
        {"pairs", "\"pairs\":[[0,4294967296]]"},
        {"pairs", "\"pairs\":[[\"0\",1]]"},
        {"pairs", "\"pairs\":[[0,null]]"},
        {"from", "\"pairs\":[[0,1]],\"from\":0,\"to\":1"},
        {"to", "\"pairs\":[[0,1]],\"to\":1"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char params[160];
        snprintf(params, sizeof(params), "{\"graph\":%lld,%s}", (long long)graph, cases[i].params);
        expect_param_error(c, cases[i].field, "graph.reachable", params);
    }
    expect_param_error(c, "graph", "graph.reachable", "{\"from\":0,\"to\":0}");
    expect_param_error(c, "graph", "graph.reachable", "{\"graph\":0,\"from\":0,\"to\":0}");
    expect_param_error(c, "graph", "graph.reachable", "{\"graph\":-3,\"pairs\":[[0,0]]}");
    expect_param_error(c, "graph", "graph.reachable", "{\"graph\":1.5,\"from\":0,\"to\":0}");

    /* Exact texts of the single-form messages. */
    char params[96];
    snprintf(params, sizeof(params), "{\"graph\":%lld,\"to\":0}", (long long)graph);
    cJSON *reply = sc_it_call(c, "graph.reachable", "%s", params);
    sc_it_err_message(sc_it_err(c, reply, -32602, "invalid_params"),
                      "invalid params: missing 'from'");
    cJSON_Delete(reply);
    snprintf(params, sizeof(params), "{\"graph\":%lld,\"from\":0,\"to\":4294967296}",
             (long long)graph);
    reply = sc_it_call(c, "graph.reachable", "%s", params);
    sc_it_err_message(sc_it_err(c, reply, -32602, "invalid_params"),
                      "invalid params: 'to' must be an integer from 0 to 4294967295");
    cJSON_Delete(reply);
}

static void check_reach_not_found(sc_it_conn *c, const sc_itg_graph *g)
{
    char params[160];
    long long id = (long long)g->id;
    unsigned n = g->n;
    const char *fmts[] = {
        "{\"graph\":%lld,\"from\":%u,\"to\":0}",
        "{\"graph\":%lld,\"from\":0,\"to\":%u}",
        "{\"graph\":%lld,\"pairs\":[[0,0],[1,0],[%u,0]]}",
        "{\"graph\":%lld,\"pairs\":[[0,%u],[0,0]]}",
    };
    for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
        snprintf(params, sizeof(params), fmts[i], id, n);
        expect_not_found(c, "node", "graph.reachable", params);
    }
    /* Reflexivity does not make a non-node a node. */
    snprintf(params, sizeof(params), "{\"graph\":%lld,\"from\":%u,\"to\":%u}", id, n, n);
    expect_not_found(c, "node", "graph.reachable", params);
    snprintf(params, sizeof(params), "{\"graph\":%lld,\"pairs\":[[%u,%u]]}", id, n + 7, n + 7);
    expect_not_found(c, "node", "graph.reachable", params);
    snprintf(params, sizeof(params), "{\"graph\":%lld,\"from\":4294967295,\"to\":4294967295}", id);
    expect_not_found(c, "node", "graph.reachable", params);

    /* An unknown graph, in both forms, also when from == to. */
    snprintf(params, sizeof(params), "{\"graph\":%lld,\"from\":0,\"to\":1}", id + 1000);
    expect_not_found(c, "graph", "graph.reachable", params);
    snprintf(params, sizeof(params), "{\"graph\":%lld,\"from\":0,\"to\":0}", id + 1000);
    expect_not_found(c, "graph", "graph.reachable", params);
    snprintf(params, sizeof(params), "{\"graph\":%lld,\"pairs\":[[0,0]]}", id + 1000);
    expect_not_found(c, "graph", "graph.reachable", params);
    expect_not_found(c, "graph", "graph.reachable",
                     "{\"graph\":9007199254740992,\"from\":0,\"to\":0}");
}

static void check_pairs_edge_forms(sc_it_conn *c, const sc_itg_graph *g)
{
    /* An empty batch has an empty answer. */
    cJSON *reply =
        sc_it_call(c, "graph.reachable", "{\"graph\":%lld,\"pairs\":[]}", (long long)g->id);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(sc_it_ok(c, reply), "reachable");
    assert_true(cJSON_IsArray(v));
    assert_int_equal(cJSON_GetArraySize(v), 0);
    cJSON_Delete(reply);

    /* A null optional member counts as absent: this is the single form. */
    char ft[96];
    snprintf(ft, sizeof(ft), "\"pairs\":null,\"from\":0,\"to\":%u", g->n - 1);
    assert_true(reach_one(c, g->id, ft) == sc_itg_reaches(g, 0, g->n - 1));

    /* Repeated and reflexive pairs inside one batch. */
    uint32_t pairs[] = {0, 0, g->n - 1, g->n - 1, 0, g->n - 1, 0, g->n - 1, g->n - 1, 0, 1, 1};
    sc_itg_check_pairs(c, g, pairs, sizeof(pairs) / sizeof(pairs[0]) / 2, "small batch");
}

static void test_reachable(void **state)
{
    (void)state;
    const char *extra[] = {"--max-message", "16777216", NULL};
    sc_it_daemon *d = sc_it_must_start(extra);
    sc_it_conn *c = sc_it_must_connect(d);
    sc_itg_rng r;
    sc_itg_rng_seed(&r, 0x51ab1e);

    int64_t id = sc_itg_capture_random(c, "reach", 3000, 5, 77);
    sc_itg_graph *g = sc_itg_fetch(c, id);
    assert_int_equal(g->n, 3000);

    check_single_form(c, g, &r);
    check_reach_param_errors(c, id);
    check_reach_not_found(c, g);
    check_pairs_edge_forms(c, g);

    /* 100,000 pairs in one request (about 1.3 MB, beyond the default 1 MiB line). */
    enum { BIG = 100000 };
    uint32_t *pairs = sc_itg_random_pairs(g, &r, BIG);
    size_t yes = 0;
    for (size_t i = 0; i < BIG; i++)
        yes += sc_itg_reaches(g, pairs[2 * i], pairs[2 * i + 1]);
    assert_true(yes > BIG / 10 && yes < BIG - BIG / 10);
    sc_itg_check_pairs(c, g, pairs, BIG, "100k pairs");
    free(pairs);

    /* The daemon still serves this connection normally. */
    assert_true(reach_one(c, id, "\"from\":5,\"to\":5"));

    sc_itg_graph_free(g);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

/* ---------------------------------------------------- corpus closure */

/* Replay a scenario pipelined; returns the graph id of its final successful end. */
static int64_t replay(sc_it_conn *c, const cJSON *scenario)
{
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(scenario, "ops");
    int64_t session = sc_it_open_session(c, NULL);
    int n = cJSON_GetArraySize(ops);
    char **lines = calloc((size_t)n + 1, sizeof(char *));
    assert_non_null(lines);
    int64_t first = 0;
    for (int i = 0; i < n; i++)
        lines[i] =
            sc_corpus_op_line(c, cJSON_GetArrayItem(ops, i), session, i == 0 ? &first : NULL);
    assert_int_equal(sc_it_send_lines(c, lines, (size_t)n), 0);
    for (int i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
    int64_t graph = 0;
    for (int i = 0; i < n; i++) {
        cJSON *reply = sc_it_must_recv(c);
        int64_t id;
        assert_true(sc_it_json_int(reply, "id", &id) && id == first + i);
        const cJSON *res = cJSON_GetObjectItemCaseSensitive(reply, "result");
        int64_t g;
        if (i == n - 1 && sc_it_json_int(res, "graph", &g))
            graph = g;
        cJSON_Delete(reply);
    }
    return graph;
}

static bool in_reach(const cJSON *reach, int a, int b)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, reach)
    {
        if (cJSON_GetArrayItem(p, 0)->valueint == a && cJSON_GetArrayItem(p, 1)->valueint == b)
            return true;
    }
    return false;
}

/* Every ordered pair a != b, then every a == a: true exactly for the listed pairs. */
static void check_closure(sc_it_conn *c, const char *name, int64_t graph, const cJSON *want)
{
    int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(want, "nodes"));
    const cJSON *reach = cJSON_GetObjectItemCaseSensitive(want, "reach");
    if (n == 0) {
        char params[96];
        snprintf(params, sizeof(params), "{\"graph\":%lld,\"from\":0,\"to\":0}", (long long)graph);
        expect_not_found(c, "node", "graph.reachable", params);
        return;
    }
    size_t count = (size_t)n * (size_t)n;
    uint32_t *pairs = calloc(2 * count, sizeof(uint32_t));
    assert_non_null(pairs);
    size_t k = 0;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            if (a != b) {
                pairs[2 * k] = (uint32_t)a;
                pairs[2 * k + 1] = (uint32_t)b;
                k++;
            }
    for (int a = 0; a < n; a++, k++)
        pairs[2 * k] = pairs[2 * k + 1] = (uint32_t)a;
    bool *got = sc_itg_reach_pairs(c, graph, pairs, count);
    for (size_t i = 0; i < count; i++) {
        int a = (int)pairs[2 * i], b = (int)pairs[2 * i + 1];
        bool expect = a == b || in_reach(reach, a, b);
        if (got[i] != expect)
            fail_msg("scenario %s, graph %lld: reachable(%d, %d) is %s, the corpus closure says %s",
                     name, (long long)graph, a, b, got[i] ? "true" : "false",
                     expect ? "true" : "false");
    }
    free(got);
    free(pairs);
}

static void test_corpus_closure(void **state)
{
    (void)state;
    size_t ns, ne;
    cJSON **scenarios = sc_corpus_read(SC_TEST_DATA_DIR "/conformance_scenarios.jsonl", &ns);
    cJSON **expected = sc_corpus_read(SC_TEST_DATA_DIR "/conformance_expected.jsonl", &ne);
    assert_int_equal(ns, ne);
    sc_it_daemon *d = sc_it_must_start(NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    size_t checked = 0;
    for (size_t i = 0; i < ns; i++) {
        const char *name = cJSON_GetObjectItemCaseSensitive(scenarios[i], "name")->valuestring;
        assert_string_equal(name,
                            cJSON_GetObjectItemCaseSensitive(expected[i], "name")->valuestring);
        const cJSON *want = cJSON_GetObjectItemCaseSensitive(expected[i], "graph");
        int64_t graph = replay(c, scenarios[i]);
        if (!cJSON_IsObject(want))
            continue;
        if (graph <= 0)
            fail_msg("scenario %s: expected its end to store a graph", name);
        check_closure(c, name, graph, want);
        checked++;
    }
    print_message("reach closure checked for %zu completed scenarios\n", checked);
    assert_true(checked > 0);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
    sc_corpus_free(scenarios, ns);
    sc_corpus_free(expected, ne);
}

/* ------------------------------------------------------- graph.list */

typedef struct made {
    int64_t graph;
    const char *label; /* "" when none was given */
} made;

static const char *const labels[] = {"alpha", "beta", NULL, "alpha", "gamma \"q\" \xc3\xa9"};

static void make_graphs(sc_it_conn *c, made *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *label = labels[i % (sizeof(labels) / sizeof(labels[0]))];
        out[i].graph =
            sc_itg_capture_random(c, label, 2 + (uint32_t)(i % 9), 1 + (uint32_t)(i % 3), 1000 + i);
        out[i].label = label ? label : "";
        if (i > 0)
            assert_true(out[i].graph > out[i - 1].graph);
    }
}

/* Collect every page of graph.list (extra params, e.g. a label) with `limit`. */
static size_t list_all(sc_it_conn *c, const char *extra, int limit, int64_t *ids, size_t cap,
                       size_t *pages)
{
    char *before = NULL;
    size_t n = 0;
    *pages = 0;
    for (;;) {
        cJSON *reply;
        if (before)
            reply = sc_it_call(c, "graph.list", "{\"limit\":%d,\"before\":\"%s\"%s}", limit, before,
                               extra);
        else
            reply = sc_it_call(c, "graph.list", "{\"limit\":%d%s}", limit, extra);
        const cJSON *res = sc_it_ok(c, reply);
        const cJSON *graphs = cJSON_GetObjectItemCaseSensitive(res, "graphs");
        assert_true(cJSON_IsArray(graphs));
        assert_true(cJSON_GetArraySize(graphs) <= limit);
        const cJSON *g;
        cJSON_ArrayForEach(g, graphs)
        {
            if (n == cap)
                fail_msg("graph.list pages hold more than %zu graphs: pages repeat graphs", cap);
            ids[n++] = sc_it_int(g, "graph");
        }
        (*pages)++;
        const cJSON *next = cJSON_GetObjectItemCaseSensitive(res, "next");
        free(before);
        before = NULL;
        if (next) {
            if (!cJSON_IsString(next))
                fail_msg("request %s\n  'next' is not a string", sc_it_last_request(c));
            before = strdup(next->valuestring);
        }
        if (cJSON_GetArraySize(graphs) < limit && before)
            fail_msg("request %s\n  a short page (%d of %d) still has 'next'",
                     sc_it_last_request(c), cJSON_GetArraySize(graphs), limit);
        cJSON_Delete(reply);
        if (!before)
            return n;
        assert_true(*pages < 10000);
    }
}

/* The graphs of `all` whose label is `label` (NULL: every one), newest first. */
static size_t expected_ids(const made *all, size_t n, const char *label, int64_t *out)
{
    size_t k = 0;
    for (size_t i = n; i-- > 0;)
        if (!label || strcmp(all[i].label, label) == 0)
            out[k++] = all[i].graph;
    return k;
}

static void assert_ids(const int64_t *got, size_t ngot, const int64_t *want, size_t nwant,
                       const char *what)
{
    for (size_t i = 0; i < ngot && i < nwant; i++)
        if (got[i] != want[i])
            fail_msg("%s: entry %zu is graph %lld, expected graph %lld", what, i, (long long)got[i],
                     (long long)want[i]);
    if (ngot != nwant)
        fail_msg("%s: %zu graphs listed, expected %zu", what, ngot, nwant);
}

/* A listed graph must agree with graph.get of it and with how it was made. */
static void check_listed(sc_it_conn *c, const cJSON *entry, const made *m)
{
    int64_t id = sc_it_int(entry, "graph");
    assert_string_equal(sc_it_str(entry, "label"), m->label);
    sc_it_must_be_time("graph.list created_at", sc_it_str(entry, "created_at"));
    assert_int_equal(sc_it_int(entry, "owner_uid"), getuid());
    assert_int_equal(sc_it_int(entry, "owner_pid"), getpid());

    cJSON *reply = sc_it_call(c, "graph.get", "{\"graph\":%lld}", (long long)id);
    const cJSON *res = sc_it_ok(c, reply);
    assert_int_equal(sc_it_int(res, "graph"), id);
    assert_string_equal(sc_it_str(res, "label"), m->label);
    assert_string_equal(sc_it_str(res, "created_at"), sc_it_str(entry, "created_at"));
    assert_int_equal(sc_it_int(res, "owner_uid"), sc_it_int(entry, "owner_uid"));
    assert_int_equal(sc_it_int(res, "owner_pid"), sc_it_int(entry, "owner_pid"));
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(res, "nodes");
    const cJSON *edges = cJSON_GetObjectItemCaseSensitive(res, "edges");
    assert_int_equal(cJSON_GetArraySize(nodes), sc_it_int(entry, "node_count"));
    assert_int_equal(cJSON_GetArraySize(edges), sc_it_int(entry, "edge_count"));
    /* stream_count: streams that recorded at least one node. */
    int64_t seen[SC_ITG_MAX_STREAMS];
    size_t nseen = 0;
    const cJSON *node;
    cJSON_ArrayForEach(node, nodes)
    {
        int64_t s = sc_it_int(node, "stream");
        size_t k = 0;
        while (k < nseen && seen[k] != s)
            k++;
        if (k == nseen) {
            assert_true(nseen < SC_ITG_MAX_STREAMS);
            seen[nseen++] = s;
        }
    }
    assert_int_equal(nseen, sc_it_int(entry, "stream_count"));
    cJSON_Delete(reply);
}

static void check_list_errors(sc_it_conn *c)
{
    cJSON *reply = sc_it_call(c, "graph.list", "{\"limit\":10001}");
    const cJSON *err = sc_it_err(c, reply, -32602, "invalid_params");
    sc_it_err_data(err, "field", "limit");
    sc_it_err_message(err, "invalid params: 'limit' must be an integer from 1 to 10000");
    cJSON_Delete(reply);
    const char *bad_limits[] = {"0", "-1", "2.5", "\"5\"", "true"};
    for (size_t i = 0; i < sizeof(bad_limits) / sizeof(bad_limits[0]); i++) {
        char params[64];
        snprintf(params, sizeof(params), "{\"limit\":%s}", bad_limits[i]);
        expect_param_error(c, "limit", "graph.list", params);
    }
    const char *bad_before[] = {"\"\"",
                                "\"zz\"",
                                "\"g\"",
                                "\"g-1\"",
                                "\"g0\"",
                                "\"gabc\"",
                                "\"g12x\"",
                                "\"G5\"",
                                "\"l5.1\"",
                                "\" g5\"",
                                "\"g99999999999999999999999\"",
                                "5",
                                "[]"};
    for (size_t i = 0; i < sizeof(bad_before) / sizeof(bad_before[0]); i++) {
        char params[96];
        snprintf(params, sizeof(params), "{\"before\":%s}", bad_before[i]);
        expect_param_error(c, "before", "graph.list", params);
    }
    expect_param_error(c, "label", "graph.list", "{\"label\":5}");
}

static void test_list_and_get(void **state)
{
    (void)state;
    enum { N = 107 };
    sc_it_daemon *d = sc_it_must_start(NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    made all[N];
    make_graphs(c, all, N);
    int64_t want[N], got[N + 1];
    size_t nwant = expected_ids(all, N, NULL, want);

    /* Default limit: the 100 newest, then the rest. */
    cJSON *reply = sc_it_call(c, "graph.list", "{}");
    const cJSON *res = sc_it_ok(c, reply);
    const cJSON *graphs = cJSON_GetObjectItemCaseSensitive(res, "graphs");
    assert_int_equal(cJSON_GetArraySize(graphs), 100);
    size_t k = 0;
    const cJSON *g;
    cJSON_ArrayForEach(g, graphs)
    {
        got[k++] = sc_it_int(g, "graph");
        check_listed(c, g, &all[N - k]);
    }
    assert_ids(got, k, want, 100, "graph.list {}");
    char *next = strdup(sc_it_str(res, "next"));
    cJSON_Delete(reply);
    reply = sc_it_call(c, "graph.list", "{\"before\":\"%s\"}", next);
    free(next);
    res = sc_it_ok(c, reply);
    graphs = cJSON_GetObjectItemCaseSensitive(res, "graphs");
    k = 0;
    cJSON_ArrayForEach(g, graphs)
    {
        got[k++] = sc_it_int(g, "graph");
        check_listed(c, g, &all[N - 100 - k]);
    }
    assert_ids(got, k, want + 100, N - 100, "graph.list second default page");
    assert_null(cJSON_GetObjectItemCaseSensitive(res, "next"));
    cJSON_Delete(reply);

    /* The maximum limit lists everything at once. */
    size_t pages;
    k = list_all(c, "", 10000, got, N + 1, &pages);
    assert_ids(got, k, want, nwant, "graph.list limit 10000");
    assert_int_equal(pages, 1);

    /* Pages of 7, 1 and 50: no gaps, no duplicates, newest first. */
    k = list_all(c, "", 7, got, N + 1, &pages);
    assert_ids(got, k, want, nwant, "graph.list pages of 7");
    assert_true(pages >= (N + 6) / 7);
    k = list_all(c, "", 1, got, N + 1, &pages);
    assert_ids(got, k, want, nwant, "graph.list pages of 1");
    k = list_all(c, "", 50, got, N + 1, &pages);
    assert_ids(got, k, want, nwant, "graph.list pages of 50");

    /* Label filter, paged too; "" selects graphs made without a label. */
    const char *filters[] = {"alpha", "beta", "", "gamma \\\"q\\\" \xc3\xa9", "nope"};
    const char *plain[] = {"alpha", "beta", "", "gamma \"q\" \xc3\xa9", "nope"};
    for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]); i++) {
        char extra[96];
        snprintf(extra, sizeof(extra), ",\"label\":\"%s\"", filters[i]);
        nwant = expected_ids(all, N, plain[i], want);
        k = list_all(c, extra, 3, got, N + 1, &pages);
        assert_ids(got, k, want, nwant, plain[i]);
        k = list_all(c, extra, 100, got, N + 1, &pages);
        assert_ids(got, k, want, nwant, plain[i]);
    }
    /* A null label is no filter. */
    nwant = expected_ids(all, N, NULL, want);
    k = list_all(c, ",\"label\":null", 10000, got, N + 1, &pages);
    assert_ids(got, k, want, nwant, "label null");

    check_list_errors(c);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

/* ------------------------------------------------------- graph.delete */

/* The log entry of the session that produced `graph` (fails if none). */
static cJSON *log_entry_of(sc_it_conn *c, int64_t graph, const cJSON **entry)
{
    cJSON *reply = sc_it_call(c, "log.list", "{\"limit\":10000}");
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(sc_it_ok(c, reply), "entries"))
    {
        int64_t g;
        if (sc_it_json_int(e, "graph", &g) && g == graph) {
            *entry = e;
            return reply;
        }
    }
    fail_msg("log.list has no entry with graph %lld", (long long)graph);
    return NULL;
}

static bool listed(sc_it_conn *c, int64_t graph)
{
    int64_t ids[64];
    size_t pages;
    size_t n = list_all(c, "", 2, ids, 64, &pages);
    for (size_t i = 0; i < n; i++)
        if (ids[i] == graph)
            return true;
    return false;
}

static void expect_graph_gone(sc_it_conn *c, int64_t graph)
{
    char params[96];
    snprintf(params, sizeof(params), "{\"graph\":%lld}", (long long)graph);
    expect_not_found(c, "graph", "graph.get", params);
    expect_not_found(c, "graph", "graph.delete", params);
    snprintf(params, sizeof(params), "{\"graph\":%lld,\"from\":0,\"to\":0}", (long long)graph);
    expect_not_found(c, "graph", "graph.reachable", params);
    snprintf(params, sizeof(params), "{\"graph\":%lld,\"pairs\":[[0,1]]}", (long long)graph);
    expect_not_found(c, "graph", "graph.reachable", params);
    snprintf(params, sizeof(params), "{\"graph\":%lld,\"format\":\"dot\"}", (long long)graph);
    expect_not_found(c, "graph", "graph.export", params);
    if (listed(c, graph))
        fail_msg("graph.list still lists deleted graph %lld", (long long)graph);
}

static void delete_graph(sc_it_conn *c, int64_t graph)
{
    cJSON *reply = sc_it_call(c, "graph.delete", "{\"graph\":%lld}", (long long)graph);
    const cJSON *res = sc_it_ok(c, reply);
    assert_true(cJSON_IsObject(res) && res->child == NULL);
    cJSON_Delete(reply);
}

static void check_deleted_log(sc_it_conn *c, int64_t graph)
{
    const cJSON *e;
    cJSON *reply = log_entry_of(c, graph, &e);
    assert_string_equal(sc_it_str(e, "outcome"), "completed");
    const char *deleted = sc_it_str(e, "graph_deleted_at");
    sc_it_must_be_time("graph_deleted_at", deleted);
    assert_true(strcmp(deleted, sc_it_str(e, "ended_at")) >= 0);
    cJSON_Delete(reply);
}

static void check_kept_log(sc_it_conn *c, int64_t graph)
{
    const cJSON *e;
    cJSON *reply = log_entry_of(c, graph, &e);
    if (cJSON_GetObjectItemCaseSensitive(e, "graph_deleted_at"))
        fail_msg("log entry of graph %lld carries graph_deleted_at, but it was not deleted",
                 (long long)graph);
    cJSON_Delete(reply);
}

static void test_delete(void **state)
{
    (void)state;
    sc_it_daemon *d = sc_it_must_start(NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    int64_t ids[6];
    sc_itg_graph *gs[6];
    for (size_t i = 0; i < 6; i++) {
        ids[i] = sc_itg_capture_random(c, "del", 40, 3, 500 + i);
        gs[i] = sc_itg_fetch(c, ids[i]);
    }
    sc_itg_rng r;
    sc_itg_rng_seed(&r, 9);
    uint32_t *pairs = sc_itg_random_pairs(gs[1], &r, 200);

    /* Cached first (answers served), then deleted. */
    sc_itg_check_pairs(c, gs[1], pairs, 200, "before delete");
    delete_graph(c, ids[1]);
    expect_graph_gone(c, ids[1]);
    check_deleted_log(c, ids[1]);

    /* Never queried (not cached), then deleted. */
    delete_graph(c, ids[2]);
    expect_graph_gone(c, ids[2]);
    check_deleted_log(c, ids[2]);

    /* The others are untouched. */
    for (size_t i = 0; i < 6; i++) {
        if (i == 1 || i == 2)
            continue;
        free(pairs);
        pairs = sc_itg_random_pairs(gs[i], &r, 200);
        sc_itg_check_pairs(c, gs[i], pairs, 200, "after deleting others");
        check_kept_log(c, ids[i]);
        assert_true(listed(c, ids[i]));
    }

    /* Paging resumes across a graph deleted after its cursor was handed out. */
    cJSON *reply = sc_it_call(c, "graph.list", "{\"limit\":1}");
    const cJSON *res = sc_it_ok(c, reply);
    assert_int_equal(
        sc_it_int(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(res, "graphs"), 0), "graph"),
        ids[5]);
    char *next = strdup(sc_it_str(res, "next"));
    cJSON_Delete(reply);
    delete_graph(c, ids[4]);
    reply = sc_it_call(c, "graph.list", "{\"limit\":10,\"before\":\"%s\"}", next);
    free(next);
    res = sc_it_ok(c, reply);
    const cJSON *graphs = cJSON_GetObjectItemCaseSensitive(res, "graphs");
    assert_int_equal(cJSON_GetArraySize(graphs), 2);
    assert_int_equal(sc_it_int(cJSON_GetArrayItem(graphs, 0), "graph"), ids[3]);
    assert_int_equal(sc_it_int(cJSON_GetArrayItem(graphs, 1), "graph"), ids[0]);
    cJSON_Delete(reply);

    /* Missing and invalid ids. */
    expect_not_found(c, "graph", "graph.delete", "{\"graph\":987654}");
    expect_param_error(c, "graph", "graph.delete", "{\"graph\":0}");
    expect_param_error(c, "graph", "graph.delete", "{}");
    expect_param_error(c, "graph", "graph.delete", "{\"graph\":\"1\"}");

    /* After a restart (nothing cached) the deletions hold and a cold delete works. */
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_must_restart(d, NULL);
    c = sc_it_must_connect(d);
    expect_graph_gone(c, ids[1]);
    expect_graph_gone(c, ids[2]);
    expect_graph_gone(c, ids[4]);
    delete_graph(c, ids[3]);
    expect_graph_gone(c, ids[3]);
    check_deleted_log(c, ids[3]);
    check_deleted_log(c, ids[1]);
    free(pairs);
    pairs = sc_itg_random_pairs(gs[0], &r, 200);
    sc_itg_check_pairs(c, gs[0], pairs, 200, "after restart");
    free(pairs);

    for (size_t i = 0; i < 6; i++)
        sc_itg_graph_free(gs[i]);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reachable),
        cmocka_unit_test(test_corpus_closure),
        cmocka_unit_test(test_list_and_get),
        cmocka_unit_test(test_delete),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
