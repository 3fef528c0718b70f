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
#include "cuda_ops.h"
#include "harness.h"

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
static cJSON *stored_graph(sc_it_conn *c, int64_t graph, sc_corpus_mismatch *m)
{
    cJSON *reply = sc_it_call(c, "graph.get", "{\"graph\":%lld}", (long long)graph);
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(reply, "result");
    cJSON *o = cJSON_CreateObject();
    if (!res) {
        sc_corpus_say(m, "graph.get %lld failed: %s", (long long)graph, sc_it_json_text(reply));
        cJSON_Delete(reply);
        return o;
    }
    const cJSON *sem = cJSON_GetObjectItemCaseSensitive(res, "semantics");
    if (!cJSON_IsString(sem) || strcmp(sem->valuestring, "cuda") != 0)
        sc_corpus_say(m, "graph %lld is not tagged semantics cuda", (long long)graph);
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
                        sc_corpus_mismatch *m)
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

/* session.open with these params; the new session's id. */
static int64_t open_with(sc_it_conn *c, const char *params)
{
    cJSON *r = sc_it_must_result(c, "session.open", "%s", params);
    int64_t s = sc_it_int(r, "session");
    cJSON_Delete(r);
    return s;
}

static int64_t open_cuda(sc_it_conn *c)
{
    return open_with(c, "{\"semantics\":\"cuda\"}");
}

static bool run_scenario(sc_it_conn *c, const cJSON *sc, const cJSON *exp, sc_corpus_mismatch *m)
{
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(sc, "ops");
    const cJSON *want = cJSON_GetObjectItemCaseSensitive(exp, "results");
    if (cJSON_GetArraySize(ops) != cJSON_GetArraySize(want)) {
        sc_corpus_say(m, "malformed scenario");
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
            sc_corpus_say(m, "op %d %s: expected %s, got %s (reply %s)", i, o, ws, gs, rs);
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
    sc_corpus_replay("cuda daemon conformance",
                     SC_TEST_DATA_DIR "/cuda_conformance_scenarios.jsonl",
                     SC_TEST_DATA_DIR "/cuda_conformance_expected.jsonl", 62, run_scenario);
}

/* ---- the protocol around the corpus ---------------------------------- */

static const cJSON *member(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        fail_msg("no member %s in %s", key, sc_it_json_text(o));
    return v;
}

/* A compact JSON text equal to `want`. */
static void assert_json(const cJSON *v, const char *want)
{
    cJSON *w = cJSON_Parse(want);
    assert_non_null(w);
    if (!cJSON_Compare(w, v, 1))
        fail_msg("expected %s, got %s", want, sc_it_json_text(v));
    cJSON_Delete(w);
}

/* session.open's semantics: the default, cuda, and anything else refused
 * naming the field; session.list names each session's model. */
static void test_open_semantics(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    cJSON *r = sc_it_call(c, "session.open", "{\"semantics\":\"CUDA\"}");
    const cJSON *e = sc_it_err(c, r, -32602, "invalid_params");
    sc_it_err_data(e, "field", "semantics");
    sc_it_err_message(e, "invalid params: 'semantics' must be one of oxicuda, cuda");
    cJSON_Delete(r);
    sc_it_must_error(c, -32602, "invalid_params", "session.open", "{\"semantics\":7}");
    int64_t def = open_with(c, "{}");
    int64_t oxi = open_with(c, "{\"semantics\":\"oxicuda\"}");
    int64_t cu = open_cuda(c);
    cJSON *list = sc_it_must_result(c, "session.list", "{}");
    const cJSON *x;
    int seen = 0;
    cJSON_ArrayForEach(x, member(list, "sessions"))
    {
        int64_t id = sc_it_int(x, "session");
        const char *sem = sc_it_str(x, "semantics");
        if (id == def || id == oxi) {
            assert_string_equal(sem, "oxicuda");
            seen++;
        } else if (id == cu) {
            assert_string_equal(sem, "cuda");
            seen++;
        }
    }
    assert_int_equal(seen, 3);
    cJSON_Delete(list);
    cJSON *info = sc_it_must_result(c, "session.info", "{\"session\":%lld}", (long long)cu);
    assert_string_equal(sc_it_str(info, "semantics"), "cuda");
    cJSON_Delete(info);
    sc_it_conn_close(c);
}

/* A method of the other mode is refused with -32602, changing nothing. */
static void test_methods_of_the_other_mode(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    int64_t def = open_with(c, "{}");
    int64_t cu = open_cuda(c);
    static const char *const cuda_only[] = {"stream.create",
                                            "capture.record_mem_alloc",
                                            "capture.record_mem_free",
                                            "capture.update_dependencies",
                                            "capture.info",
                                            "capture.host_call",
                                            "capture.exchange_mode",
                                            "capture.add_node"};
    for (size_t i = 0; i < sizeof cuda_only / sizeof cuda_only[0]; i++) {
        cJSON *r = sc_it_call(c, cuda_only[i], "{\"session\":%lld,\"stream\":1}", (long long)def);
        const cJSON *e = sc_it_err(c, r, -32602, "invalid_params");
        char *want =
            sc_it_fmt("method %s needs a session opened with semantics cuda", cuda_only[i]);
        sc_it_err_message(e, want);
        sc_it_err_data(e, "field", "session");
        free(want);
        cJSON_Delete(r);
    }
    cJSON *r =
        sc_it_call(c, "capture.invalidate", "{\"session\":%lld,\"stream\":1}", (long long)cu);
    sc_it_err_message(sc_it_err(c, r, -32602, "invalid_params"),
                      "method capture.invalidate needs a session opened with semantics oxicuda");
    cJSON_Delete(r);
    /* The default mode's replies are those of before. */
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":1}", (long long)def);
    cJSON *res = sc_it_must_result(c, "capture.record_event",
                                   "{\"session\":%lld,\"stream\":1,\"event\":0}", (long long)def);
    assert_json(res, "{}");
    cJSON_Delete(res);
    sc_it_conn_close(c);
}

/* 904 as JSON-RPC: 1009, CUDA's text, number and name, the capture and the
 * unjoined streams; the session lives on and the next capture is number 2. */
static void test_error_1009_shape(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    long long s = (long long)open_cuda(c);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":1}", s);
    sc_it_must_ok(c, "capture.record_memcpy",
                  "{\"session\":%lld,\"stream\":1,\"name\":\"up\",\"dir\":\"host_to_device\","
                  "\"size_bytes\":4}",
                  s);
    sc_it_must_ok(c, "capture.record_event", "{\"session\":%lld,\"stream\":1,\"event\":0}", s);
    sc_it_must_ok(c, "capture.wait_event", "{\"session\":%lld,\"stream\":2,\"event\":0}", s);
    sc_it_must_ok(c, "capture.record_kernel",
                  "{\"session\":%lld,\"stream\":2,\"function_name\":\"k\",\"grid\":[4,1,1],"
                  "\"block\":[64,1,1]}",
                  s);
    cJSON *r = sc_it_call(c, "capture.end", "{\"session\":%lld,\"stream\":1}", s);
    const cJSON *e = sc_it_err(c, r, 1009, "cuda");
    sc_it_err_message(e, "capturing stream has unjoined work");
    assert_json(member(e, "data"), "{\"kind\":\"cuda\",\"cuda_error\":904,\"cuda_name\":"
                                   "\"cudaErrorStreamCaptureUnjoined\",\"capture\":1,"
                                   "\"unjoined\":[{\"stream\":2,\"nodes\":[1]}]}");
    cJSON_Delete(r);
    /* An error that leaves the capture running has no capture member. */
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":3}", s);
    sc_it_must_ok(c, "capture.record_event", "{\"session\":%lld,\"stream\":3,\"event\":5}", s);
    sc_it_must_ok(c, "capture.wait_event", "{\"session\":%lld,\"stream\":4,\"event\":5}", s);
    r = sc_it_call(c, "capture.end", "{\"session\":%lld,\"stream\":4}", s);
    e = sc_it_err(c, r, 1009, "cuda");
    assert_json(member(e, "data"), "{\"kind\":\"cuda\",\"cuda_error\":903,\"cuda_name\":"
                                   "\"cudaErrorStreamCaptureUnmatched\"}");
    cJSON_Delete(r);
    cJSON *res = sc_it_must_result(c, "capture.begin", "{\"session\":%lld,\"stream\":5}", s);
    assert_json(res, "{\"capture\":3}");
    cJSON_Delete(res);
    /* Bad params stay -32602. */
    sc_it_must_error(c, -32602, "invalid_params", "capture.begin",
                     "{\"session\":%lld,\"stream\":6,\"mode\":\"local\"}", s);
    sc_it_must_error(c, -32602, "invalid_params", "capture.record_kernel",
                     "{\"session\":%lld,\"stream\":5,\"function_name\":\"k\",\"grid\":[0,1,1]}", s);
    sc_it_must_error(c, -32602, "invalid_params", "capture.begin",
                     "{\"session\":%lld,\"stream\":6,\"thread\":-1}", s);
    sc_it_conn_close(c);
}

/* Stored cuda graphs: the new kinds, 3-D kernels, events; the capture rows
 * of log.list with the call that invalidated a capture; close discards. */
static void test_graphs_and_capture_log(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    long long s = (long long)open_cuda(c);
    sc_it_must_ok(c, "capture.begin",
                  "{\"session\":%lld,\"stream\":1,\"mode\":\"thread_local\","
                  "\"thread\":4}",
                  s);
    sc_it_must_ok(c, "capture.record_mem_alloc",
                  "{\"session\":%lld,\"stream\":1,\"name\":\"buf\",\"size_bytes\":64}", s);
    sc_it_must_ok(c, "capture.record_kernel",
                  "{\"session\":%lld,\"stream\":1,\"function_name\":\"k3\",\"grid\":[2,3,4],"
                  "\"block\":[8,2,1],\"shared_mem\":16}",
                  s);
    cJSON *res =
        sc_it_must_result(c, "capture.record_event",
                          "{\"session\":%lld,\"stream\":1,\"event\":9,\"external\":true}", s);
    assert_json(res, "{\"node\":2}");
    cJSON_Delete(res);
    res = sc_it_must_result(c, "capture.info", "{\"session\":%lld,\"stream\":1}", s);
    assert_json(res, "{\"status\":\"active\",\"capture\":1,\"origin\":1,\"mode\":"
                     "\"thread_local\",\"dependencies\":[2]}");
    cJSON_Delete(res);
    sc_it_must_ok(c, "capture.record_memcpy",
                  "{\"session\":%lld,\"stream\":1,\"name\":\"h\",\"dir\":\"host_to_host\","
                  "\"size_bytes\":8}",
                  s);
    sc_it_must_ok(c, "capture.record_mem_free", "{\"session\":%lld,\"stream\":1,\"name\":\"buf\"}",
                  s);
    cJSON *end =
        sc_it_must_result(c, "capture.end", "{\"session\":%lld,\"stream\":1,\"thread\":4}", s);
    assert_int_equal(sc_it_int(end, "capture"), 1);
    assert_int_equal(sc_it_int(end, "node_count"), 5);
    assert_int_equal(sc_it_int(end, "edge_count"), 4);
    long long g = (long long)sc_it_int(end, "graph");
    cJSON_Delete(end);
    cJSON *graph = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", g);
    assert_string_equal(sc_it_str(graph, "semantics"), "cuda");
    assert_int_equal(sc_it_int(graph, "capture"), 1);
    const cJSON *nodes = member(graph, "nodes");
    assert_json(cJSON_GetArrayItem(nodes, 0), "{\"id\":0,\"kind\":\"mem_alloc\",\"stream\":1,"
                                              "\"name\":\"buf\",\"size_bytes\":64}");
    assert_json(cJSON_GetArrayItem(nodes, 1),
                "{\"id\":1,\"kind\":\"kernel\",\"stream\":1,\"name\":\"k3\",\"function_name\":"
                "\"k3\",\"num_blocks\":2,\"threads_per_block\":8,\"shared_mem\":16,"
                "\"grid\":[2,3,4],\"block\":[8,2,1]}");
    assert_json(cJSON_GetArrayItem(nodes, 2),
                "{\"id\":2,\"kind\":\"event_record\",\"stream\":1,\"name\":\"\",\"event\":9}");
    assert_json(cJSON_GetArrayItem(nodes, 3),
                "{\"id\":3,\"kind\":\"memcpy\",\"stream\":1,\"name\":\"h\",\"dir\":"
                "\"host_to_host\",\"size_bytes\":8}");
    assert_json(cJSON_GetArrayItem(nodes, 4),
                "{\"id\":4,\"kind\":\"mem_free\",\"stream\":1,\"name\":\"buf\"}");
    cJSON_Delete(graph);
    cJSON *dot = sc_it_must_result(c, "graph.export", "{\"graph\":%lld,\"format\":\"dot\"}", g);
    assert_non_null(strstr(sc_it_str(dot, "text"), "<<<(2,3,4), (8,2,1), 16>>>"));
    assert_non_null(strstr(sc_it_str(dot, "text"), "MEM_ALLOC"));
    cJSON_Delete(dot);

    /* Capture 2 broken by cudaMalloc from thread 2, then ended: failed 901. */
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":7}", s);
    sc_it_must_error(c, 1009, "cuda", "capture.host_call",
                     "{\"session\":%lld,\"kind\":\"unsafe\",\"call\":\"cudaMalloc\","
                     "\"thread\":2}",
                     s);
    cJSON *r = sc_it_call(c, "capture.end", "{\"session\":%lld,\"stream\":7}", s);
    assert_json(member(sc_it_err(c, r, 1009, "cuda"), "data"),
                "{\"kind\":\"cuda\",\"cuda_error\":901,\"cuda_name\":"
                "\"cudaErrorStreamCaptureInvalidated\",\"capture\":2}");
    cJSON_Delete(r);
    /* Capture 3 still running when the session closes: discarded. */
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":8,\"mode\":\"relaxed\"}", s);
    sc_it_must_ok(c, "session.close", "{\"session\":%lld}", s);

    cJSON *log = sc_it_must_result(c, "log.list", "{}");
    const cJSON *entry = NULL, *x;
    cJSON_ArrayForEach(x, member(log, "entries"))
    {
        if (sc_it_int(x, "session") == s)
            entry = x;
    }
    assert_non_null(entry);
    assert_string_equal(sc_it_str(entry, "outcome"), "closed");
    assert_string_equal(sc_it_str(entry, "semantics"), "cuda");
    const cJSON *caps = member(entry, "captures");
    assert_int_equal(cJSON_GetArraySize(caps), 3);
    const cJSON *c1 = cJSON_GetArrayItem(caps, 0), *c2 = cJSON_GetArrayItem(caps, 1);
    const cJSON *c3 = cJSON_GetArrayItem(caps, 2);
    assert_string_equal(sc_it_str(c1, "outcome"), "completed");
    assert_string_equal(sc_it_str(c1, "mode"), "thread_local");
    assert_int_equal(sc_it_int(c1, "thread"), 4);
    assert_int_equal(sc_it_int(c1, "graph"), g);
    assert_int_equal(sc_it_int(c1, "node_count"), 5);
    assert_string_equal(sc_it_str(c2, "outcome"), "failed");
    assert_int_equal(sc_it_int(c2, "origin"), 7);
    assert_int_equal(sc_it_int(c2, "cuda_error"), 901);
    assert_json(member(c2, "invalidated_by"),
                "{\"method\":\"capture.host_call\",\"stream\":0,\"thread\":2,\"call\":"
                "\"cudaMalloc\",\"cuda_error\":900,\"cuda_name\":"
                "\"cudaErrorStreamCaptureUnsupported\",\"message\":"
                "\"operation not permitted when stream is capturing\"}");
    assert_null(cJSON_GetObjectItemCaseSensitive(c2, "graph"));
    assert_string_equal(sc_it_str(c3, "outcome"), "discarded");
    assert_string_equal(sc_it_str(c3, "mode"), "relaxed");
    assert_null(cJSON_GetObjectItemCaseSensitive(c3, "invalidated_by"));
    cJSON_Delete(log);
    sc_it_conn_close(c);
}

/* A version-1 database with a session, a graph and its rows upgrades in
 * place on start: nothing lost, the new tables there, cuda mode works. */
static void test_upgrade_from_version_1(void **state)
{
    (void)state;
    sc_it_daemon *d;
    assert_int_equal(sc_it_daemon_create(&d), 0);
    char *v1 = sc_it_read_file(SC_TEST_DATA_DIR "/../../schema/001_init.sql");
    assert_non_null(v1);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(sc_it_daemon_db(d), &db), SQLITE_OK);
    char *err = NULL;
    int rc = sqlite3_exec(db, v1, NULL, NULL, &err);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(
            db,
            "PRAGMA user_version = 1;"
            "INSERT INTO capture_log (session, label, owner_uid, owner_pid, opened_at, ended_at,"
            " outcome, node_count, graph) VALUES (1, 'old', 0, 10, '2026-11-29T19:44:21.123Z',"
            " '2026-11-29T19:44:22.000Z', 'completed', 2, 1);"
            "INSERT INTO capture_log (session, label, owner_uid, owner_pid, opened_at, outcome)"
            " VALUES (2, '', 0, 11, '2026-11-29T19:45:00.000Z', 'closed');"
            "INSERT INTO graphs VALUES (1, 1, 'old', '2026-11-29T19:44:22.000Z', 0, 10, 2, 1, 2);"
            "INSERT INTO nodes (graph, id, kind, stream, name, num_blocks, threads_per_block,"
            " shared_mem) VALUES (1, 0, 'kernel', 0, 'k', 4, 128, 0);"
            "INSERT INTO nodes (graph, id, kind, stream, name, dir, size_bytes) VALUES"
            " (1, 1, 'memcpy', 1, 'm', 'device_to_host', 99);"
            "INSERT INTO edges VALUES (1, 0, 1);"
            "INSERT INTO graph_index VALUES (1, 2, 1, x'0000000001000000', x'0000000001000000');",
            NULL, NULL, &err);
    if (rc != SQLITE_OK)
        fail_msg("building the version-1 database: %s", err ? err : "?");
    sqlite3_close(db);
    free(v1);

    /* Rows from before hosts were stored become the upgrading daemon's. */
    const char *host[] = {"--host-name", "upgrader", NULL};
    assert_int_equal(sc_it_daemon_start(d, host), 0);
    sc_it_conn *c = sc_it_must_connect(d);
    cJSON *g = sc_it_must_result(c, "graph.get", "{\"graph\":1}");
    assert_json(member(g, "nodes"),
                "[{\"id\":0,\"kind\":\"kernel\",\"stream\":0,\"name\":\"k\",\"function_name\":"
                "\"k\",\"num_blocks\":4,\"threads_per_block\":128,\"shared_mem\":0},"
                "{\"id\":1,\"kind\":\"memcpy\",\"stream\":1,\"name\":\"m\",\"dir\":"
                "\"device_to_host\",\"size_bytes\":99}]");
    assert_json(member(g, "edges"), "[[0,1]]");
    assert_null(cJSON_GetObjectItemCaseSensitive(g, "semantics"));
    cJSON_Delete(g);
    cJSON *reach = sc_it_must_result(c, "graph.reachable", "{\"graph\":1,\"from\":0,\"to\":1}");
    assert_true(sc_it_bool(reach, "reachable"));
    cJSON_Delete(reach);
    cJSON *log = sc_it_must_result(c, "log.list", "{}");
    const cJSON *entries = member(log, "entries");
    assert_int_equal(cJSON_GetArraySize(entries), 2);
    assert_json(cJSON_GetArrayItem(entries, 1),
                "{\"session\":1,\"label\":\"old\",\"owner_uid\":0,\"owner_pid\":10,"
                "\"host\":\"upgrader\",\"opened_at\":\"2026-11-29T19:44:21.123Z\",\"ended_at\":"
                "\"2026-11-29T19:44:22.000Z\",\"outcome\":\"completed\",\"node_count\":2,"
                "\"graph\":1}");
    cJSON_Delete(log);
    /* New sessions number on from the old ones and cuda mode stores graphs. */
    long long s = (long long)open_cuda(c);
    assert_int_equal(s, 3);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":1}", s);
    sc_it_must_ok(c, "capture.add_node", "{\"session\":%lld,\"stream\":1}", s);
    cJSON *end = sc_it_must_result(c, "capture.end", "{\"session\":%lld,\"stream\":1}", s);
    assert_int_equal(sc_it_int(end, "graph"), 2);
    cJSON_Delete(end);
    sc_it_conn_close(c);
    sc_it_must_stop(d);

    assert_int_equal(sqlite3_open(sc_it_daemon_db(d), &db), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT (SELECT user_version FROM pragma_user_version),"
                                        " (SELECT count(*) FROM captures),"
                                        " (SELECT kind FROM nodes WHERE graph = 2),"
                                        " (SELECT semantics FROM capture_log WHERE session = 1)",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    /* Upgraded to the latest version (14: schema/014_retention.sql). */
    assert_int_equal(sqlite3_column_int(st, 0), 14);
    assert_int_equal(sqlite3_column_int(st, 1), 1);
    assert_string_equal((const char *)sqlite3_column_text(st, 2), "empty");
    assert_string_equal((const char *)sqlite3_column_text(st, 3), "oxicuda");
    sqlite3_finalize(st);
    sqlite3_close(db);
    sc_it_daemon_destroy(d);
}

/* The node limit counts the nodes of captures not yet ended; an idle cuda
 * session is abandoned with its running capture discarded. */
static void test_node_limit_and_idle_discard(void **state)
{
    (void)state;
    const char *extra[] = {"--max-session-nodes", "2", "--session-idle-timeout", "1", NULL};
    sc_it_daemon *d = sc_it_must_start(extra);
    sc_it_conn *c = sc_it_must_connect(d);
    long long s = (long long)open_cuda(c);
    for (int round = 0; round < 2; round++) {
        sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":1}", s);
        for (int i = 0; i < 2; i++)
            sc_it_must_ok(c, "capture.record_host_callback",
                          "{\"session\":%lld,\"stream\":1,\"label\":\"h\"}", s);
        sc_it_must_error(c, 1006, "limit", "capture.record_host_callback",
                         "{\"session\":%lld,\"stream\":1,\"label\":\"h\"}", s);
        cJSON *n = sc_it_must_result(c, "capture.node_count", "{\"session\":%lld}", s);
        assert_int_equal(sc_it_int(n, "node_count"), 2);
        cJSON_Delete(n);
        /* Ending the capture gives its nodes back. */
        cJSON *end = sc_it_must_result(c, "capture.end", "{\"session\":%lld,\"stream\":1}", s);
        assert_int_equal(sc_it_int(end, "node_count"), 2);
        cJSON_Delete(end);
    }
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":4}", s);
    sc_it_conn_close(c);
    sc_it_must_see_outcome(sc_it_daemon_db(d), s, "abandoned", 10000);
    c = sc_it_must_connect(d);
    cJSON *log = sc_it_must_result(c, "log.list", "{}");
    const cJSON *entry = cJSON_GetArrayItem(member(log, "entries"), 0);
    assert_int_equal(sc_it_int(entry, "session"), s);
    const cJSON *caps = member(entry, "captures");
    assert_int_equal(cJSON_GetArraySize(caps), 3);
    assert_string_equal(sc_it_str(cJSON_GetArrayItem(caps, 0), "outcome"), "completed");
    assert_string_equal(sc_it_str(cJSON_GetArrayItem(caps, 2), "outcome"), "discarded");
    assert_int_equal(sc_it_int(cJSON_GetArrayItem(caps, 2), "origin"), 4);
    cJSON_Delete(log);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

/* ---- random scenarios: the daemon agrees with the core ---------------- */

static uint64_t next_rand(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static unsigned pick(uint64_t *x, unsigned n)
{
    return (unsigned)(next_rand(x) % n);
}

/* One random op in the corpus's form, over few streams, events and
 * threads so that captures meet, join, merge and break. */
static cJSON *random_op(uint64_t *x)
{
    static const char *const modes[] = {"global", "thread_local", "relaxed"};
    static const char *const hosts[] = {"unsafe", "stream_sync", "device_sync", "event_sync",
                                        "legacy_sync"};
    static const char *const dirs[] = {"host_to_device", "device_to_host", "device_to_device",
                                       "host_to_host", "default"};
    static const char *const records[] = {"kernel", "memcpy",    "memset",
                                          "host",   "mem_alloc", "mem_free"};
    cJSON *op = cJSON_CreateObject();
    unsigned r = pick(x, 100);
    uint32_t stream = pick(x, 6), thread = pick(x, 3);
    const char *kind;
    if (r < 10)
        kind = "begin";
    else if (r < 40)
        kind = records[pick(x, 6)];
    else if (r < 52)
        kind = "event_record";
    else if (r < 66)
        kind = "wait";
    else if (r < 71)
        kind = "update_deps";
    else if (r < 75)
        kind = "info";
    else if (r < 80)
        kind = "host_call";
    else if (r < 83)
        kind = "exchange_mode";
    else if (r < 86)
        kind = "add_node";
    else if (r < 89)
        kind = "stream_create";
    else
        kind = "end";
    cJSON_AddStringToObject(op, "op", kind);
    if (strcmp(kind, "exchange_mode") != 0 && strcmp(kind, "host_call") != 0)
        cJSON_AddNumberToObject(op, "stream", stream);
    /* Most calls come from thread 0, so that ends usually match begins. */
    cJSON_AddNumberToObject(op, "thread", pick(x, 4) ? 0 : thread);
    if (strcmp(kind, "begin") == 0 || strcmp(kind, "exchange_mode") == 0) {
        cJSON_AddStringToObject(op, "mode", modes[pick(x, 3)]);
    } else if (strcmp(kind, "event_record") == 0 || strcmp(kind, "wait") == 0) {
        cJSON_AddNumberToObject(op, "event", pick(x, 4));
        if (pick(x, 8) == 0)
            cJSON_AddBoolToObject(op, "external", 1);
    } else if (strcmp(kind, "update_deps") == 0 || strcmp(kind, "add_node") == 0) {
        cJSON *ids = cJSON_AddArrayToObject(op, kind[0] == 'u' ? "nodes" : "deps");
        for (unsigned i = pick(x, 3); i > 0; i--)
            cJSON_AddItemToArray(ids, cJSON_CreateNumber(pick(x, 8)));
        if (kind[0] == 'u')
            cJSON_AddStringToObject(op, "mode", pick(x, 2) ? "add" : "set");
        else
            cJSON_AddStringToObject(op, "kind", "empty");
    } else if (strcmp(kind, "host_call") == 0) {
        cJSON_AddStringToObject(op, "kind", hosts[pick(x, 5)]);
        cJSON_AddNumberToObject(op, "stream", stream);
        cJSON_AddNumberToObject(op, "event", pick(x, 4));
    } else if (strcmp(kind, "stream_create") == 0) {
        cJSON_AddStringToObject(op, "flags", pick(x, 2) ? "default" : "non_blocking");
    } else if (strcmp(kind, "begin") != 0 && strcmp(kind, "info") != 0 &&
               strcmp(kind, "end") != 0) {
        char name[16];
        snprintf(name, sizeof name, "op%u", pick(x, 1000));
        cJSON_AddStringToObject(op, "name", name);
        if (strcmp(kind, "memcpy") == 0)
            cJSON_AddStringToObject(op, "dir", dirs[pick(x, 5)]);
        if (strcmp(kind, "kernel") == 0) {
            cJSON *g = cJSON_AddArrayToObject(op, "grid");
            cJSON *b = cJSON_AddArrayToObject(op, "block");
            for (int i = 0; i < 3; i++) {
                cJSON_AddItemToArray(g, cJSON_CreateNumber(1 + pick(x, 4)));
                cJSON_AddItemToArray(b, cJSON_CreateNumber(1 + pick(x, 64)));
            }
        } else if (strcmp(kind, "host") != 0 && strcmp(kind, "mem_free") != 0) {
            cJSON_AddNumberToObject(op, "size", pick(x, 1 << 20));
        }
    }
    return op;
}

/* Random scenarios through the core and the daemon: every result equal. */
static void test_random_scenarios_agree_with_core(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    const char *env = getenv("SC_CUDA_RANDOM_SEED");
    if (env && *env)
        seed = strtoull(env, NULL, 0) | 1;
    print_message("random cuda scenarios, seed %#llx\n", (unsigned long long)seed);
    uint64_t x = seed;
    unsigned agreed = 0, ops = 0, ends = 0, errors = 0;
    for (int n = 0; n < 150; n++) {
        cJSON *scen = cJSON_CreateArray();
        for (unsigned len = 10 + pick(&x, 50); len > 0; len--)
            cJSON_AddItemToArray(scen, random_op(&x));
        cJSON *want = cJSON_CreateArray();
        sc_cuda *cu = NULL;
        assert_int_equal(sc_cuda_create(&cu), 0);
        run r = {.name = "random"};
        const cJSON *op;
        cJSON_ArrayForEach(op, scen)
        {
            cJSON_AddItemToArray(want, run_op(&r, cu, op));
        }
        sc_cuda_destroy(cu);
        if (r.failed)
            fail_msg("scenario %d: the core refused it: %s", n, r.why);
        cJSON *sc = cJSON_CreateObject();
        cJSON_AddItemToObject(sc, "ops", scen);
        cJSON *exp = cJSON_CreateObject();
        cJSON_AddItemToObject(exp, "results", want);
        sc_corpus_mismatch m = {{0}};
        if (!run_scenario(c, sc, exp, &m)) {
            char *text = cJSON_PrintUnformatted(scen);
            fail_msg("scenario %d (seed %#llx) disagrees: %s\nops: %s", n, (unsigned long long)seed,
                     m.text, text);
        }
        const cJSON *w;
        cJSON_ArrayForEach(w, want)
        {
            ops++;
            errors += !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(w, "ok"));
            ends += cJSON_GetObjectItemCaseSensitive(w, "graph") != NULL;
        }
        agreed++;
        cJSON_Delete(sc);
        cJSON_Delete(exp);
    }
    print_message("%u random scenarios agree: %u ops, %u CUDA errors, %u graphs\n", agreed, ops,
                  errors, ends);
    /* The generator reaches errors and graphs, or the comparison means little. */
    assert_true(errors > ops / 20);
    assert_true(ends > 10);
    sc_it_conn_close(c);
}

int main(void)
{
    const struct CMUnitTest alone[] = {
        cmocka_unit_test(test_cuda_corpus_through_daemon),
        cmocka_unit_test(test_upgrade_from_version_1),
        cmocka_unit_test(test_node_limit_and_idle_discard),
    };
    const struct CMUnitTest shared[] = {
        cmocka_unit_test(test_open_semantics),
        cmocka_unit_test(test_methods_of_the_other_mode),
        cmocka_unit_test(test_error_1009_shape),
        cmocka_unit_test(test_graphs_and_capture_log),
        cmocka_unit_test(test_random_scenarios_agree_with_core),
    };
    int failed = cmocka_run_group_tests(alone, NULL, NULL);
    return failed + cmocka_run_group_tests(shared, sc_it_group_setup, sc_it_group_teardown);
}
