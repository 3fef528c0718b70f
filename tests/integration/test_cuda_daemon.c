/*
 * test_cuda_daemon.c - cuda-mode sessions through a real streamcapd.
 *
 * The public cuda corpus (tests/data/cuda_conformance_*.jsonl, format in
 * docs/cuda-semantics.md §9) replayed op by op, each scenario in a new
 * session opened with semantics cuda: every reply is turned into the
 * corpus's result form (CUDA's error number from error 1009's data, node
 * and capture ids, dependency sets, unjoined lists) and compared exactly,
 * and the graph of every successful end is read back with graph.get.  Then
 * the protocol's edges: session.open's semantics, methods of the other
 * mode, the shape of error 1009, 3-D kernels and new kinds in stored
 * graphs, the capture rows of the log.
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

#include <sqlite3.h>

#include "corpus.h"
#include "harness.h"

typedef struct mismatch {
    char text[4096];
} mismatch;

static void say(mismatch *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(mismatch *m, const char *fmt, ...)
{
    if (m->text[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->text, sizeof(m->text), fmt, ap);
    va_end(ap);
}

static const char *str_of(const cJSON *op, const char *key, const char *dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(op, key);
    return cJSON_IsString(v) ? v->valuestring : dflt;
}

/* Copy op[from] into params[to] when present. */
static void copy(const cJSON *op, const char *from, cJSON *params, const char *to)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(op, from);
    if (v)
        cJSON_AddItemToObject(params, to, cJSON_Duplicate(v, 1));
}

/* The method performing a corpus op, its params (but session) into `p`. */
static const char *cuda_request(const cJSON *op, cJSON *p)
{
    const char *kind = str_of(op, "op", "?");
    copy(op, "stream", p, "stream");
    copy(op, "thread", p, "thread");
    if (strcmp(kind, "stream_create") == 0) {
        copy(op, "flags", p, "flags");
        return "stream.create";
    }
    if (strcmp(kind, "begin") == 0) {
        copy(op, "mode", p, "mode");
        return "capture.begin";
    }
    if (strcmp(kind, "kernel") == 0) {
        cJSON_AddStringToObject(p, "function_name", str_of(op, "name", ""));
        copy(op, "grid", p, "grid");
        copy(op, "block", p, "block");
        return "capture.record_kernel";
    }
    if (strcmp(kind, "memcpy") == 0) {
        cJSON_AddStringToObject(p, "name", str_of(op, "name", ""));
        cJSON_AddStringToObject(p, "dir", str_of(op, "dir", "default"));
        if (!cJSON_GetObjectItemCaseSensitive(op, "size"))
            cJSON_AddNumberToObject(p, "size_bytes", 0);
        copy(op, "size", p, "size_bytes");
        return "capture.record_memcpy";
    }
    if (strcmp(kind, "memset") == 0) {
        cJSON_AddStringToObject(p, "name", str_of(op, "name", ""));
        if (!cJSON_GetObjectItemCaseSensitive(op, "size"))
            cJSON_AddNumberToObject(p, "size_bytes", 0);
        copy(op, "size", p, "size_bytes");
        if (!cJSON_GetObjectItemCaseSensitive(op, "value"))
            cJSON_AddNumberToObject(p, "value", 0);
        copy(op, "value", p, "value");
        return "capture.record_memset";
    }
    if (strcmp(kind, "host") == 0) {
        cJSON_AddStringToObject(p, "label", str_of(op, "name", ""));
        return "capture.record_host_callback";
    }
    if (strcmp(kind, "mem_alloc") == 0) {
        cJSON_AddStringToObject(p, "name", str_of(op, "name", ""));
        if (!cJSON_GetObjectItemCaseSensitive(op, "size"))
            cJSON_AddNumberToObject(p, "size_bytes", 0);
        copy(op, "size", p, "size_bytes");
        return "capture.record_mem_alloc";
    }
    if (strcmp(kind, "mem_free") == 0) {
        cJSON_AddStringToObject(p, "name", str_of(op, "name", ""));
        return "capture.record_mem_free";
    }
    if (strcmp(kind, "event_record") == 0 || strcmp(kind, "wait") == 0) {
        copy(op, "event", p, "event");
        copy(op, "external", p, "external");
        return kind[0] == 'e' ? "capture.record_event" : "capture.wait_event";
    }
    if (strcmp(kind, "update_deps") == 0) {
        copy(op, "nodes", p, "nodes");
        cJSON_AddStringToObject(p, "mode", str_of(op, "mode", "add"));
        return "capture.update_dependencies";
    }
    if (strcmp(kind, "info") == 0)
        return "capture.info";
    if (strcmp(kind, "host_call") == 0) {
        copy(op, "kind", p, "kind");
        copy(op, "event", p, "event");
        return "capture.host_call";
    }
    if (strcmp(kind, "exchange_mode") == 0) {
        copy(op, "mode", p, "mode");
        return "capture.exchange_mode";
    }
    if (strcmp(kind, "add_node") == 0) {
        copy(op, "kind", p, "kind");
        copy(op, "deps", p, "deps");
        copy(op, "name", p, "name");
        return "capture.add_node";
    }
    if (strcmp(kind, "end") == 0)
        return "capture.end";
    fail_msg("unknown corpus op %s", kind);
    return NULL;
}

static void add_copy(cJSON *to, const char *key, const cJSON *from, const char *from_key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, from_key);
    if (v)
        cJSON_AddItemToObject(to, key, cJSON_Duplicate(v, 1));
}

/* A stored graph as the corpus writes it: {nodes: [{id, kind, stream, name}], edges}. */
static cJSON *stored_graph(sc_it_conn *c, int64_t graph, mismatch *m)
{
    cJSON *reply = sc_it_call(c, "graph.get", "{\"graph\":%lld}", (long long)graph);
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(reply, "result");
    cJSON *o = cJSON_CreateObject();
    if (!res) {
        say(m, "graph.get %lld failed: %s", (long long)graph, sc_it_json_text(reply));
        cJSON_Delete(reply);
        return o;
    }
    const cJSON *sem = cJSON_GetObjectItemCaseSensitive(res, "semantics");
    if (!cJSON_IsString(sem) || strcmp(sem->valuestring, "cuda") != 0)
        say(m, "graph %lld is not tagged semantics cuda", (long long)graph);
    cJSON *nodes = cJSON_AddArrayToObject(o, "nodes");
    const cJSON *n;
    cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(res, "nodes"))
    {
        cJSON *x = cJSON_CreateObject();
        add_copy(x, "id", n, "id");
        add_copy(x, "kind", n, "kind");
        add_copy(x, "stream", n, "stream");
        add_copy(x, "name", n, "name");
        cJSON_AddItemToArray(nodes, x);
    }
    add_copy(o, "edges", res, "edges");
    cJSON_Delete(reply);
    return o;
}

/* The reply of one op in the corpus's result form. */
static cJSON *result_of(sc_it_conn *c, const cJSON *op, const cJSON *reply, int64_t *graph,
                        mismatch *m)
{
    const char *kind = str_of(op, "op", "?");
    cJSON *o = cJSON_CreateObject();
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(reply, "error");
    if (err) {
        cJSON_AddBoolToObject(o, "ok", 0);
        const cJSON *data = cJSON_GetObjectItemCaseSensitive(err, "data");
        int64_t code = 0, number = 0;
        sc_it_json_int(err, "code", &code);
        if (code != 1009 || !sc_it_json_int(data, "cuda_error", &number)) {
            cJSON_AddNumberToObject(o, "rpc_error", (double)code);
            return o;
        }
        cJSON_AddNumberToObject(o, "error", (double)number);
        add_copy(o, "unjoined", data, "unjoined");
        return o;
    }
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(reply, "result");
    cJSON_AddBoolToObject(o, "ok", 1);
    if (strcmp(kind, "begin") == 0) {
        add_copy(o, "capture", res, "capture");
    } else if (strcmp(kind, "exchange_mode") == 0) {
        add_copy(o, "mode", res, "mode");
    } else if (strcmp(kind, "info") == 0) {
        add_copy(o, "status", res, "status");
        add_copy(o, "capture", res, "capture");
        add_copy(o, "dependencies", res, "dependencies");
    } else if (strcmp(kind, "end") == 0) {
        add_copy(o, "capture", res, "capture");
        if (sc_it_json_int(res, "graph", graph))
            cJSON_AddItemToObject(o, "graph", stored_graph(c, *graph, m));
    } else if (strcmp(kind, "stream_create") != 0 && strcmp(kind, "host_call") != 0 &&
               strcmp(kind, "update_deps") != 0) {
        add_copy(o, "node", res, "node");
    }
    return o;
}

static int64_t open_cuda(sc_it_conn *c)
{
    cJSON *r = sc_it_must_result(c, "session.open", "{\"semantics\":\"cuda\"}");
    int64_t s = sc_it_int(r, "session");
    cJSON_Delete(r);
    return s;
}

static bool run_scenario(sc_it_conn *c, const cJSON *sc, const cJSON *exp, mismatch *m)
{
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(sc, "ops");
    const cJSON *want = cJSON_GetObjectItemCaseSensitive(exp, "results");
    if (cJSON_GetArraySize(ops) != cJSON_GetArraySize(want)) {
        say(m, "malformed scenario");
        return false;
    }
    int64_t session = open_cuda(c);
    int i = 0;
    const cJSON *op;
    cJSON_ArrayForEach(op, ops)
    {
        cJSON *params = cJSON_CreateObject();
        const char *method = cuda_request(op, params);
        char *text = cJSON_PrintUnformatted(params);
        /* session first, then the op's params */
        cJSON *reply = sc_it_call(c, method, "{\"session\":%lld%s%s", (long long)session,
                                  strlen(text) > 2 ? "," : "", text + 1);
        int64_t graph = 0;
        cJSON *got = result_of(c, op, reply, &graph, m);
        const cJSON *w = cJSON_GetArrayItem(want, i);
        if (!cJSON_Compare(w, got, 1)) {
            char *o = cJSON_PrintUnformatted(op), *ws = cJSON_PrintUnformatted(w);
            char *gs = cJSON_PrintUnformatted(got), *rs = cJSON_PrintUnformatted(reply);
            say(m, "op %d %s: expected %s, got %s (reply %s)", i, o, ws, gs, rs);
            free(o);
            free(ws);
            free(gs);
            free(rs);
        }
        cJSON_Delete(got);
        cJSON_Delete(reply);
        cJSON_Delete(params);
        free(text);
        i++;
    }
    sc_it_must_ok(c, "session.close", "{\"session\":%lld}", (long long)session);
    return m->text[0] == '\0';
}

static void test_cuda_corpus_through_daemon(void **state)
{
    (void)state;
    size_t ns, ne;
    cJSON **scenarios = sc_corpus_read(SC_TEST_DATA_DIR "/cuda_conformance_scenarios.jsonl", &ns);
    cJSON **expected = sc_corpus_read(SC_TEST_DATA_DIR "/cuda_conformance_expected.jsonl", &ne);
    assert_int_equal(ns, ne);
    assert_int_equal(ns, 62);

    sc_it_daemon *d = sc_it_must_start(NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    size_t passed = 0;
    for (size_t i = 0; i < ns; i++) {
        const char *name = cJSON_GetObjectItemCaseSensitive(scenarios[i], "name")->valuestring;
        assert_string_equal(name,
                            cJSON_GetObjectItemCaseSensitive(expected[i], "name")->valuestring);
        mismatch m = {{0}};
        if (run_scenario(c, scenarios[i], expected[i], &m))
            passed++;
        else
            print_message("FAIL %s: %s\n", name, m.text);
    }
    print_message("cuda daemon conformance: %zu/%zu scenarios passed\n", passed, ns);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
    sc_corpus_free(scenarios, ns);
    sc_corpus_free(expected, ne);
    assert_int_equal(passed, ns);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cuda_corpus_through_daemon),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
