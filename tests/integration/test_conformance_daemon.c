/*
 * The conformance corpus replayed through a real streamcapd: every op of
 * every scenario becomes a JSON-RPC request on one connection (a scenario's
 * ops are pipelined, then its replies read in order), every reply is
 * compared with the expected result, and every graph a successful end
 * produces is read back with graph.get and compared node by node.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "corpus.h"
#include "harness.h"

#define ERROR_PREFIX "internal graph error: "

static bool is_op(const cJSON *op, const char *name)
{
    return strcmp(cJSON_GetObjectItemCaseSensitive(op, "op")->valuestring, name) == 0;
}

static bool same_int(const cJSON *a, const char *an, const cJSON *b, const char *bn)
{
    int64_t x, y;
    return sc_it_json_int(a, an, &x) && sc_it_json_int(b, bn, &y) && x == y;
}

static bool same_str(const cJSON *a, const char *an, const cJSON *b, const char *bn)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, an);
    const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, bn);
    return cJSON_IsString(x) && cJSON_IsString(y) && strcmp(x->valuestring, y->valuestring) == 0;
}

/* The expected error of a failed op: 1002 for the "already capturing" /
 * "not capturing" texts, 1003 for every invalidation text. */
static void check_error(const cJSON *exp, const cJSON *reply, sc_corpus_mismatch *m)
{
    const char *want = cJSON_GetObjectItemCaseSensitive(exp, "message")->valuestring;
    if (strncmp(want, ERROR_PREFIX, strlen(ERROR_PREFIX)) == 0)
        want += strlen(ERROR_PREFIX);
    bool state = strstr(want, "already capturing") || strstr(want, "is not capturing");
    int64_t code = state ? 1002 : 1003;
    const char *kind = state ? "capture_state" : "invalidated";
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(reply, "error");
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(error, "data");
    int64_t got_code;
    if (!cJSON_IsObject(error) || cJSON_GetObjectItemCaseSensitive(reply, "result") ||
        !sc_it_json_int(error, "code", &got_code) || got_code != code)
        sc_corpus_say(m, "expected error %lld", (long long)code);
    else if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(data, "kind")) ||
             strcmp(cJSON_GetObjectItemCaseSensitive(data, "kind")->valuestring, kind) != 0)
        sc_corpus_say(m, "expected error data.kind \"%s\"", kind);
    else if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(error, "message")) ||
             strcmp(cJSON_GetObjectItemCaseSensitive(error, "message")->valuestring, want) != 0)
        sc_corpus_say(m, "expected error message \"%s\"", want);
}

static void check_success(const cJSON *op, const cJSON *exp, const cJSON *reply,
                          sc_corpus_mismatch *m)
{
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(reply, "result");
    if (!cJSON_IsObject(res) || cJSON_GetObjectItemCaseSensitive(reply, "error")) {
        sc_corpus_say(m, "expected a result object");
        return;
    }
    if (cJSON_GetObjectItemCaseSensitive(exp, "node")) {
        if (!same_int(res, "node", exp, "node"))
            sc_corpus_say(m, "expected result.node %d",
                          cJSON_GetObjectItemCaseSensitive(exp, "node")->valueint);
    } else if (is_op(op, "status")) {
        if (!same_str(res, "status", exp, "status"))
            sc_corpus_say(m, "expected result.status \"%s\"",
                          cJSON_GetObjectItemCaseSensitive(exp, "status")->valuestring);
    } else if (is_op(op, "is_capturing")) {
        const cJSON *got = cJSON_GetObjectItemCaseSensitive(res, "capturing");
        bool want = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(exp, "value"));
        if (!cJSON_IsBool(got) || cJSON_IsTrue(got) != want)
            sc_corpus_say(m, "expected result.capturing %s", want ? "true" : "false");
    } else if (is_op(op, "node_count")) {
        if (!same_int(res, "node_count", exp, "value"))
            sc_corpus_say(m, "expected result.node_count %d",
                          cJSON_GetObjectItemCaseSensitive(exp, "value")->valueint);
    } else if (is_op(op, "end")) {
        int64_t v;
        if (!sc_it_json_int(res, "graph", &v) || v < 1 || !sc_it_json_int(res, "node_count", &v) ||
            !sc_it_json_int(res, "edge_count", &v))
            sc_corpus_say(m, "expected result {graph >= 1, node_count, edge_count}");
    } else if (res->child) {
        sc_corpus_say(m, "expected an empty result {}");
    }
}

static void check_node(const cJSON *want, const cJSON *got, sc_corpus_mismatch *m)
{
    const char *kind = cJSON_GetObjectItemCaseSensitive(want, "kind")->valuestring;
    int id = cJSON_GetObjectItemCaseSensitive(want, "id")->valueint;
    bool ok = same_int(got, "id", want, "id") && same_str(got, "kind", want, "kind") &&
              same_int(got, "stream", want, "stream") && same_str(got, "name", want, "name");
    if (strcmp(kind, "kernel") == 0) {
        const cJSON *grid = cJSON_GetObjectItemCaseSensitive(want, "grid");
        const cJSON *block = cJSON_GetObjectItemCaseSensitive(want, "block");
        int64_t nb, tpb;
        ok = ok && same_str(got, "function_name", want, "name") &&
             sc_it_json_int(got, "num_blocks", &nb) &&
             (double)nb == cJSON_GetArrayItem(grid, 0)->valuedouble &&
             sc_it_json_int(got, "threads_per_block", &tpb) &&
             (double)tpb == cJSON_GetArrayItem(block, 0)->valuedouble &&
             same_int(got, "shared_mem", want, "shared_mem");
    } else if (strcmp(kind, "memcpy") == 0) {
        ok = ok && same_str(got, "dir", want, "dir") && same_int(got, "size_bytes", want, "bytes");
        if (cJSON_GetObjectItemCaseSensitive(want, "src_device"))
            ok = ok && same_int(got, "src_device", want, "src_device") &&
                 same_int(got, "dst_device", want, "dst_device");
    } else if (strcmp(kind, "memset") == 0) {
        ok = ok && same_int(got, "size_bytes", want, "bytes") &&
             same_int(got, "value", want, "value");
    } else if (strcmp(kind, "host_callback") == 0) {
        ok = ok && same_str(got, "label", want, "label");
    }
    if (!ok) {
        char *w = sc_it_json_text(want);
        char *g = sc_it_json_text(got);
        sc_corpus_say(m, "graph.get node %d: expected (corpus form) %s\n  got %s", id, w, g);
        free(w);
        free(g);
    }
}

static void check_edges(const cJSON *want, const cJSON *got, sc_corpus_mismatch *m)
{
    bool ok = cJSON_IsArray(got) && cJSON_GetArraySize(got) == cJSON_GetArraySize(want);
    for (int i = 0; ok && i < cJSON_GetArraySize(want); i++) {
        const cJSON *w = cJSON_GetArrayItem(want, i);
        const cJSON *g = cJSON_GetArrayItem(got, i);
        ok = cJSON_IsArray(g) && cJSON_GetArraySize(g) == 2 &&
             cJSON_IsNumber(cJSON_GetArrayItem(g, 0)) && cJSON_IsNumber(cJSON_GetArrayItem(g, 1)) &&
             cJSON_GetArrayItem(g, 0)->valuedouble == cJSON_GetArrayItem(w, 0)->valuedouble &&
             cJSON_GetArrayItem(g, 1)->valuedouble == cJSON_GetArrayItem(w, 1)->valuedouble;
    }
    if (!ok) {
        char *w = sc_it_json_text(want);
        char *g = sc_it_json_text(got);
        sc_corpus_say(m, "graph.get edges: expected %s\n  got %s", w, g);
        free(w);
        free(g);
    }
}

static void check_graph(sc_it_conn *c, const cJSON *end_result, const cJSON *want,
                        sc_corpus_mismatch *m)
{
    int64_t graph = 0, node_count = -1, edge_count = -1;
    sc_it_json_int(end_result, "graph", &graph);
    sc_it_json_int(end_result, "node_count", &node_count);
    sc_it_json_int(end_result, "edge_count", &edge_count);
    const cJSON *want_nodes = cJSON_GetObjectItemCaseSensitive(want, "nodes");
    const cJSON *want_edges = cJSON_GetObjectItemCaseSensitive(want, "edges");
    if (node_count != cJSON_GetArraySize(want_nodes) ||
        edge_count != cJSON_GetArraySize(want_edges))
        sc_corpus_say(m, "capture.end reply: expected node_count %d, edge_count %d; got %lld, %lld",
                      cJSON_GetArraySize(want_nodes), cJSON_GetArraySize(want_edges),
                      (long long)node_count, (long long)edge_count);

    cJSON *reply;
    int rc = sc_it_try_call(c, &reply, "graph.get", "{\"graph\":%lld}", (long long)graph);
    if (rc != 0) {
        sc_corpus_say(m, "graph.get %lld: transport error %d", (long long)graph, rc);
        cJSON_Delete(reply);
        return;
    }
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(reply, "result");
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(res, "nodes");
    int64_t got_graph = 0;
    if (!cJSON_IsObject(res) || !sc_it_json_int(res, "graph", &got_graph) || got_graph != graph ||
        !cJSON_IsArray(nodes) || cJSON_GetArraySize(nodes) != cJSON_GetArraySize(want_nodes)) {
        char *text = sc_it_json_text(reply);
        sc_corpus_say(m, "graph.get %lld: expected graph %lld with %d nodes\n  got %.3000s",
                      (long long)graph, (long long)graph, cJSON_GetArraySize(want_nodes), text);
        free(text);
        cJSON_Delete(reply);
        return;
    }
    for (int i = 0; i < cJSON_GetArraySize(want_nodes); i++)
        check_node(cJSON_GetArrayItem(want_nodes, i), cJSON_GetArrayItem(nodes, i), m);
    check_edges(want_edges, cJSON_GetObjectItemCaseSensitive(res, "edges"), m);
    cJSON_Delete(reply);
}

static void close_session(sc_it_conn *c, int64_t session, sc_corpus_mismatch *m)
{
    cJSON *reply;
    int rc = sc_it_try_call(c, &reply, "session.close", "{\"session\":%lld}", (long long)session);
    if (rc != 0 || !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(reply, "result"))) {
        char *text = sc_it_json_text(reply);
        sc_corpus_say(m, "session.close %lld: expected {} got %s (rc %d)", (long long)session, text,
                      rc);
        free(text);
    }
    cJSON_Delete(reply);
}

/* Returns true when the scenario matched; otherwise m says where. */
static bool run_scenario(sc_it_conn *c, const cJSON *scenario, const cJSON *expected,
                         sc_corpus_mismatch *m)
{
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(scenario, "ops");
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(expected, "results");
    const cJSON *graph = cJSON_GetObjectItemCaseSensitive(expected, "graph");
    int n = cJSON_GetArraySize(ops);
    assert_int_equal(n, cJSON_GetArraySize(results));
    int64_t session =
        sc_it_open_session(c, cJSON_GetObjectItemCaseSensitive(scenario, "name")->valuestring);

    char **requests = calloc((size_t)n, sizeof(char *));
    int64_t *ids = calloc((size_t)n, sizeof(int64_t));
    assert_true(requests && ids);
    for (int i = 0; i < n; i++)
        requests[i] = sc_corpus_op_line(c, cJSON_GetArrayItem(ops, i), session, &ids[i]);
    int rc = sc_it_send_lines(c, requests, (size_t)n);
    if (rc != 0)
        fail_msg("sending scenario requests: error %d", rc);

    const cJSON *end_result = NULL;
    cJSON **replies = calloc((size_t)n, sizeof(cJSON *));
    for (int i = 0; i < n; i++) {
        const cJSON *op = cJSON_GetArrayItem(ops, i);
        const cJSON *exp = cJSON_GetArrayItem(results, i);
        replies[i] = sc_it_must_recv(c);
        int64_t id;
        sc_corpus_mismatch here = {{0}};
        if (!sc_it_json_int(replies[i], "id", &id) || id != ids[i])
            sc_corpus_say(&here, "expected the reply to request id %lld (replies in request order)",
                          (long long)ids[i]);
        else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(exp, "ok")))
            check_success(op, exp, replies[i], &here);
        else
            check_error(exp, replies[i], &here);
        if (here.text[0]) {
            char *got = sc_it_json_text(replies[i]);
            char *want = sc_it_json_text(exp);
            sc_corpus_say(m, "op %d\n  request  %s\n  reply    %s\n  corpus   %s\n  %s", i,
                          requests[i], got, want, here.text);
            free(got);
            free(want);
        }
        if (is_op(op, "end") && cJSON_GetObjectItemCaseSensitive(replies[i], "result"))
            end_result = cJSON_GetObjectItemCaseSensitive(replies[i], "result");
    }

    bool has_end = n > 0 && is_op(cJSON_GetArrayItem(ops, n - 1), "end");
    if (cJSON_IsObject(graph) && end_result)
        check_graph(c, end_result, graph, m);
    else if (cJSON_IsObject(graph))
        sc_corpus_say(m, "expected a graph, but the end did not succeed");
    if (!has_end)
        close_session(c, session, m);

    for (int i = 0; i < n; i++) {
        free(requests[i]);
        cJSON_Delete(replies[i]);
    }
    free(requests);
    free(replies);
    free(ids);
    return m->text[0] == '\0';
}

static void test_corpus_through_daemon(void **state)
{
    (void)state;
    sc_corpus_replay("daemon conformance", SC_TEST_DATA_DIR "/conformance_scenarios.jsonl",
                     SC_TEST_DATA_DIR "/conformance_expected.jsonl", 0, run_scenario);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_through_daemon),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
