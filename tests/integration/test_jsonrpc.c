/*
 * JSON-RPC 2.0 envelope behaviour of a real streamcapd: parse errors,
 * invalid requests, unknown methods, parameter checking, ids, notifications,
 * batches, pipelining, the message size limit and server.info.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "harness.h"

#define STREAM_RANGE "must be an integer from 0 to 4294967295"

static cJSON *raw(sc_it_conn *c, const char *line)
{
    sc_it_must_send_line(c, line);
    return sc_it_must_recv(c);
}

static void assert_id_null(const sc_it_conn *c, const cJSON *reply)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(reply, "id");
    if (!cJSON_IsNull(id)) {
        char *text = sc_it_json_text(reply);
        fail_msg("request %s\n  expected a reply with \"id\": null\n  got %s",
                 sc_it_last_request(c), text);
    }
}

static void assert_id_int(const sc_it_conn *c, const cJSON *reply, int64_t want)
{
    int64_t got;
    if (!sc_it_json_int(reply, "id", &got) || got != want) {
        char *text = sc_it_json_text(reply);
        fail_msg("request %s\n  expected a reply with \"id\": %lld\n  got %s",
                 sc_it_last_request(c), (long long)want, text);
    }
}

static void assert_still_usable(sc_it_conn *c)
{
    cJSON *reply = sc_it_call(c, "server.info", NULL);
    sc_it_ok(c, reply);
    cJSON_Delete(reply);
}

static const char *status_of(sc_it_conn *c, int64_t session, unsigned stream, char *buf, size_t len)
{
    cJSON *reply = sc_it_call(c, "capture.status", "{\"session\":%lld,\"stream\":%u}",
                              (long long)session, stream);
    snprintf(buf, len, "%s", sc_it_str(sc_it_ok(c, reply), "status"));
    cJSON_Delete(reply);
    return buf;
}

static void test_parse_error_keeps_connection(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    static const char *const bad[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":",
        "not json at all",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"server.info\"} trailing",
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"server.info\",}",
        /* strings must be valid UTF-8 without raw control characters */
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"session.open\",\"params\":{"
        "\"label\":\"\xff\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"session.open\",\"params\":{"
        "\"label\":\"a\tb\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"session.open\",\"params\":{"
        "\"label\":\"\\ud800\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"session.open\",\"params\":{"
        "\"label\":\"a\\u0000b\"}}",
        /* numbers must be finite */
        "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"capture.begin\",\"params\":{"
        "\"session\":1,\"stream\":1e999}}",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cJSON *reply = raw(c, bad[i]);
        sc_it_err(c, reply, -32700, "parse_error");
        assert_id_null(c, reply);
        cJSON_Delete(reply);
    }

    /* nesting far beyond any request's needs */
    char deep[1200];
    int n = snprintf(deep, sizeof(deep),
                     "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":"
                     "\"server.info\",\"params\":{\"x\":");
    for (int i = 0; i < 300; i++)
        deep[n++] = '[';
    for (int i = 0; i < 300; i++)
        deep[n++] = ']';
    snprintf(deep + n, sizeof(deep) - (size_t)n, "}}");
    cJSON *reply = raw(c, deep);
    sc_it_err(c, reply, -32700, "parse_error");
    assert_id_null(c, reply);
    cJSON_Delete(reply);

    /* duplicate member names, at the top and inside params */
    static const char *const dup[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"server.info\",\"method\":"
        "\"session.open\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"session.open\",\"params\":{"
        "\"label\":\"a\",\"label\":\"b\"}}",
    };
    for (size_t i = 0; i < sizeof(dup) / sizeof(dup[0]); i++) {
        reply = raw(c, dup[i]);
        sc_it_err(c, reply, -32600, "invalid_request");
        cJSON_Delete(reply);
    }
    assert_still_usable(c);
    sc_it_conn_close(c);
}

static void test_invalid_requests(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    static const struct {
        const char *line;
        int64_t id; /* 0: the reply's id must be null */
    } cases[] = {
        {"{\"jsonrpc\":\"1.0\",\"id\":11,\"method\":\"server.info\"}", 11},
        {"{\"id\":12,\"method\":\"server.info\"}", 12},
        {"{\"jsonrpc\":2.0,\"id\":13,\"method\":\"server.info\"}", 13},
        {"{\"jsonrpc\":\"2.0\",\"id\":14}", 14},
        {"{\"jsonrpc\":\"2.0\",\"id\":15,\"method\":5}", 15},
        {"{\"jsonrpc\":\"2.0\",\"id\":16,\"method\":null}", 16},
        {"{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"server.info\"}", 0},
        {"{\"jsonrpc\":\"2.0\",\"id\":[1],\"method\":\"server.info\"}", 0},
        {"{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"server.info\"}", 0},
        {"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"server.info\"}", 0},
        {"5", 0},
        {"\"server.info\"", 0},
        {"null", 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cJSON *reply = raw(c, cases[i].line);
        sc_it_err(c, reply, -32600, "invalid_request");
        if (cases[i].id)
            assert_id_int(c, reply, cases[i].id);
        else
            assert_id_null(c, reply);
        cJSON_Delete(reply);
    }
    assert_still_usable(c);
    sc_it_conn_close(c);
}

static void test_unknown_method(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    cJSON *reply = raw(c, "{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"method\":\"no.such_method\"}");
    sc_it_err(c, reply, -32601, "method_not_found");
    assert_string_equal(sc_it_str(reply, "id"), "abc");
    cJSON_Delete(reply);

    reply = raw(c, "{\"jsonrpc\":\"2.0\",\"id\":77,\"method\":\"Server.Info\",\"params\":{}}");
    sc_it_err(c, reply, -32601, "method_not_found");
    assert_id_int(c, reply, 77);
    cJSON_Delete(reply);
    sc_it_conn_close(c);
}

typedef struct param_case {
    const char *method;
    const char *params; /* printf format; gets the session id, which it may leave unused */
    const char *field;
    const char *message; /* exact text, or NULL: only "'field'" must appear */
} param_case;

static void check_param_case(sc_it_conn *c, int64_t session, const param_case *pc)
{
    cJSON *reply = sc_it_call(c, pc->method, pc->params, (long long)session);
    const cJSON *error = sc_it_err(c, reply, -32602, "invalid_params");
    sc_it_err_data(error, "field", pc->field);
    if (pc->message) {
        sc_it_err_message(error, pc->message);
    } else {
        char quoted[64];
        snprintf(quoted, sizeof(quoted), "'%s'", pc->field);
        const char *msg = sc_it_str(error, "message");
        if (strncmp(msg, "invalid params", 14) != 0 || !strstr(msg, quoted))
            fail_msg("request %s\n  expected a message naming %s\n  got %s", sc_it_last_request(c),
                     quoted, msg);
    }
    cJSON_Delete(reply);
}

static void test_invalid_params(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    int64_t s = sc_it_open_session(c, "params");
    cJSON *reply = sc_it_call(c, "capture.begin", "{\"session\":%lld,\"stream\":0}", (long long)s);
    sc_it_ok(c, reply);
    cJSON_Delete(reply);

    static const param_case cases[] = {
        {"capture.begin", "{\"session\":%lld}", "stream", "invalid params: missing 'stream'"},
        {"session.info", "{}", "session", "invalid params: missing 'session'"},
        {"capture.begin", "{\"session\":%lld,\"stream\":\"1\"}", "stream",
         "invalid params: 'stream' " STREAM_RANGE},
        {"capture.begin", "{\"session\":%lld,\"stream\":-1}", "stream",
         "invalid params: 'stream' " STREAM_RANGE},
        {"capture.begin", "{\"session\":%lld,\"stream\":1.5}", "stream",
         "invalid params: 'stream' " STREAM_RANGE},
        {"capture.begin", "{\"session\":%lld,\"stream\":4294967296}", "stream",
         "invalid params: 'stream' " STREAM_RANGE},
        {"capture.begin", "{\"session\":%lld,\"stream\":true}", "stream",
         "invalid params: 'stream' " STREAM_RANGE},
        {"capture.begin", "{\"session\":%lld,\"stream\":null}", "stream", NULL},
        {"capture.record_event", "{\"session\":%lld,\"stream\":0,\"event\":-3}", "event",
         "invalid params: 'event' " STREAM_RANGE},
        {"capture.record_kernel",
         "{\"session\":%lld,\"stream\":0,\"num_blocks\":1,\"threads_per_block\":32}",
         "function_name", "invalid params: missing 'function_name'"},
        {"capture.record_kernel",
         "{\"session\":%lld,\"stream\":0,\"function_name\":\"k\",\"num_blocks\":4294967296,"
         "\"threads_per_block\":32}",
         "num_blocks", "invalid params: 'num_blocks' " STREAM_RANGE},
        {"capture.record_kernel",
         "{\"session\":%lld,\"stream\":0,\"function_name\":7,\"num_blocks\":1,"
         "\"threads_per_block\":32}",
         "function_name", NULL},
        {"capture.record_memset",
         "{\"session\":%lld,\"stream\":0,\"name\":\"z\",\"size_bytes\":8,\"value\":256}", "value",
         NULL},
        {"capture.record_memcpy",
         "{\"session\":%lld,\"stream\":0,\"name\":\"m\",\"dir\":\"host_to_device\","
         "\"size_bytes\":9007199254740994}",
         "size_bytes", NULL},
        {"capture.record_memcpy",
         "{\"session\":%lld,\"stream\":0,\"name\":\"m\",\"dir\":\"sideways\",\"size_bytes\":8}",
         "dir", NULL},
        {"capture.record_memcpy",
         "{\"session\":%lld,\"stream\":0,\"name\":\"m\",\"dir\":\"peer_to_peer\",\"size_bytes\":8,"
         "\"dst_device\":1}",
         "src_device", NULL},
        {"capture.node_count", "{\"session\":0}", "session", NULL},
        {"capture.node_count", "{\"session\":-%lld}", "session", NULL},
        {"capture.node_count", "{\"session\":\"%lld\"}", "session", NULL},
        {"session.open", "{\"label\":5}", "label", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        check_param_case(c, s, &cases[i]);

    /* params that are not an object */
    static const char *const not_object[] = {"[%lld,0]", "\"%lld\"", "%lld"};
    for (size_t i = 0; i < sizeof(not_object) / sizeof(not_object[0]); i++) {
        reply = sc_it_call(c, "capture.begin", not_object[i], (long long)s);
        const cJSON *error = sc_it_err(c, reply, -32602, "invalid_params");
        sc_it_err_data(error, "field", "params");
        const char *msg = sc_it_str(error, "message");
        if (strncmp(msg, "invalid params", 14) != 0 || !strstr(msg + 14, "params"))
            fail_msg("request %s\n  expected a message naming params\n  got %s",
                     sc_it_last_request(c), msg);
        cJSON_Delete(reply);
    }

    /* the rejected requests changed nothing */
    char buf[32];
    assert_string_equal(status_of(c, s, 1, buf, sizeof(buf)), "none");
    reply = sc_it_call(c, "capture.node_count", "{\"session\":%lld}", (long long)s);
    assert_int_equal(sc_it_int(sc_it_ok(c, reply), "node_count"), 0);
    cJSON_Delete(reply);

    /* the boundary values are accepted */
    reply =
        sc_it_call(c, "capture.begin", "{\"session\":%lld,\"stream\":4294967295}", (long long)s);
    sc_it_ok(c, reply);
    cJSON_Delete(reply);
    reply = sc_it_call(c, "capture.record_memcpy",
                       "{\"session\":%lld,\"stream\":4294967295,\"name\":\"m\",\"dir\":"
                       "\"host_to_device\",\"size_bytes\":9007199254740992}",
                       (long long)s);
    assert_int_equal(sc_it_int(sc_it_ok(c, reply), "node"), 0);
    cJSON_Delete(reply);

    reply = sc_it_call(c, "session.close", "{\"session\":%lld}", (long long)s);
    sc_it_ok(c, reply);
    cJSON_Delete(reply);
    sc_it_conn_close(c);
}

static void test_null_and_string_ids(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    cJSON *reply = raw(c, "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"server.info\"}");
    sc_it_ok(c, reply);
    assert_id_null(c, reply);
    cJSON_Delete(reply);

    reply = raw(c, "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"no.such\"}");
    sc_it_err(c, reply, -32601, "method_not_found");
    assert_id_null(c, reply);
    cJSON_Delete(reply);

    static const char *const ids[] = {
        "\"req-\\u00fc-1\"", "\"\"", "\"42\"", "\"a b\\\"c\"", "0", "-7", "9007199254740991"};
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        char line[256];
        snprintf(line, sizeof(line), "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"server.info\"}",
                 ids[i]);
        reply = raw(c, line);
        sc_it_ok(c, reply);
        cJSON *want = cJSON_Parse(ids[i]);
        if (!cJSON_Compare(want, cJSON_GetObjectItemCaseSensitive(reply, "id"), true)) {
            char *text = sc_it_json_text(reply);
            fail_msg("request %s\n  expected the id %s echoed\n  got %s", line, ids[i], text);
        }
        cJSON_Delete(want);
        cJSON_Delete(reply);
    }
    sc_it_conn_close(c);
}

static void test_notifications_get_no_reply(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    int64_t s = sc_it_open_session(c, "notify");
    char line[256];
    snprintf(line, sizeof(line),
             "{\"jsonrpc\":\"2.0\",\"method\":\"capture.begin\",\"params\":{\"session\":%lld,"
             "\"stream\":4}}",
             (long long)s);
    sc_it_must_send_line(c, line);
    sc_it_must_send_line(c, "{\"jsonrpc\":\"2.0\",\"method\":\"no.such\"}");
    sc_it_must_send_line(c, "{\"jsonrpc\":\"2.0\",\"method\":\"capture.begin\",\"params\":{}}");
    sc_it_must_send_line(c, "{\"jsonrpc\":\"2.0\",\"method\":\"server.info\"}");
    snprintf(line, sizeof(line),
             "{\"jsonrpc\":\"2.0\",\"id\":50,\"method\":\"capture.status\",\"params\":{"
             "\"session\":%lld,\"stream\":4}}",
             (long long)s);
    cJSON *reply = raw(c, line);
    assert_id_int(c, reply, 50);
    /* the notification ran: stream 4 is capturing */
    assert_string_equal(sc_it_str(sc_it_ok(c, reply), "status"), "active");
    cJSON_Delete(reply);
    assert_int_equal(sc_it_expect_silence(c, 200), 0);

    reply = sc_it_call(c, "session.close", "{\"session\":%lld}", (long long)s);
    sc_it_ok(c, reply);
    cJSON_Delete(reply);
    sc_it_conn_close(c);
}

static const cJSON *reply_with_id(const cJSON *replies, int64_t id)
{
    const cJSON *r;
    const cJSON *found = NULL;
    cJSON_ArrayForEach(r, replies)
    {
        int64_t got;
        if (sc_it_json_int(r, "id", &got) && got == id) {
            if (found)
                fail_msg("two batch replies carry id %lld", (long long)id);
            found = r;
        }
    }
    if (!found) {
        char *text = sc_it_json_text(replies);
        fail_msg("no batch reply with id %lld in %s", (long long)id, text);
    }
    return found;
}

static void test_batch_mixed(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    int64_t s = sc_it_open_session(c, "batch");
    char line[1024];
    snprintf(line, sizeof(line),
             "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server.info\"},"
             "{\"jsonrpc\":\"1.0\",\"id\":2,\"method\":\"server.info\"},"
             "{\"jsonrpc\":\"2.0\",\"method\":\"server.info\"},"
             "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"no.such\"},"
             "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"capture.status\",\"params\":{"
             "\"session\":%lld,\"stream\":0}},"
             "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"capture.begin\",\"params\":{"
             "\"session\":%lld,\"stream\":\"x\"}},"
             "7]",
             (long long)s, (long long)s);
    cJSON *reply = raw(c, line);
    if (!cJSON_IsArray(reply) || cJSON_GetArraySize(reply) != 6) {
        char *text = sc_it_json_text(reply);
        fail_msg("request %s\n  expected an array of 6 replies\n  got %s", line, text);
    }
    sc_it_ok(c, reply_with_id(reply, 1));
    sc_it_err(c, reply_with_id(reply, 2), -32600, "invalid_request");
    sc_it_err(c, reply_with_id(reply, 3), -32601, "method_not_found");
    assert_string_equal(sc_it_str(sc_it_ok(c, reply_with_id(reply, 4)), "status"), "none");
    const cJSON *e5 = sc_it_err(c, reply_with_id(reply, 5), -32602, "invalid_params");
    sc_it_err_data(e5, "field", "stream");
    int nulls = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, reply)
    {
        if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(r, "id"))) {
            sc_it_err(c, r, -32600, "invalid_request");
            nulls++;
        }
    }
    assert_int_equal(nulls, 1);
    cJSON_Delete(reply);
    assert_still_usable(c);
    sc_it_conn_close(c);
}

static void test_batch_all_notifications(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    int64_t s = sc_it_open_session(c, "batch-notify");
    char line[512];
    snprintf(line, sizeof(line),
             "[{\"jsonrpc\":\"2.0\",\"method\":\"server.info\"},"
             "{\"jsonrpc\":\"2.0\",\"method\":\"capture.begin\",\"params\":{\"session\":%lld,"
             "\"stream\":9}}]",
             (long long)s);
    sc_it_must_send_line(c, line);
    assert_int_equal(sc_it_expect_silence(c, 200), 0);
    char buf[32];
    assert_string_equal(status_of(c, s, 9, buf, sizeof(buf)), "active");
    sc_it_conn_close(c);
}

static void test_batch_empty_and_non_objects(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    cJSON *reply = raw(c, "[]");
    if (!cJSON_IsObject(reply)) {
        char *text = sc_it_json_text(reply);
        fail_msg("request []\n  expected a single error object\n  got %s", text);
    }
    sc_it_err(c, reply, -32600, "invalid_request");
    assert_id_null(c, reply);
    cJSON_Delete(reply);

    reply = raw(c, "[1,2,3]");
    if (!cJSON_IsArray(reply) || cJSON_GetArraySize(reply) != 3) {
        char *text = sc_it_json_text(reply);
        fail_msg("request [1,2,3]\n  expected an array of 3 errors\n  got %s", text);
    }
    const cJSON *r;
    cJSON_ArrayForEach(r, reply)
    {
        sc_it_err(c, r, -32600, "invalid_request");
        assert_id_null(c, r);
    }
    cJSON_Delete(reply);
    assert_still_usable(c);
    sc_it_conn_close(c);
}

static void test_pipelined_in_order(void **state)
{
    enum { N = 1000 };
    sc_it_conn *c = sc_it_must_connect(*state);
    int64_t s = sc_it_open_session(c, "pipeline");
    cJSON *reply = sc_it_call(c, "capture.begin", "{\"session\":%lld,\"stream\":2}", (long long)s);
    sc_it_ok(c, reply);
    cJSON_Delete(reply);

    size_t cap = (size_t)N * 200, len = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    int64_t first = sc_it_next_id(c);
    for (int i = 0; i < N; i++) {
        int64_t id = i == 0 ? first : sc_it_next_id(c);
        len += (size_t)snprintf(buf + len, cap - len,
                                "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":"
                                "\"capture.record_kernel\",\"params\":{\"session\":%lld,"
                                "\"stream\":2,\"function_name\":\"k%d\",\"num_blocks\":%d,"
                                "\"threads_per_block\":64}}\n",
                                (long long)id, (long long)s, i, i + 1);
    }
    assert_int_equal(sc_it_send(c, buf, len), 0);
    free(buf);
    for (int i = 0; i < N; i++) {
        reply = sc_it_must_recv(c);
        assert_id_int(c, reply, first + i);
        int64_t node = sc_it_int(sc_it_ok(c, reply), "node");
        if (node != i)
            fail_msg("pipelined request %d: expected node %d, got %lld", i, i, (long long)node);
        cJSON_Delete(reply);
    }
    reply = sc_it_call(c, "capture.node_count", "{\"session\":%lld}", (long long)s);
    assert_int_equal(sc_it_int(sc_it_ok(c, reply), "node_count"), N);
    cJSON_Delete(reply);
    reply = sc_it_call(c, "session.close", "{\"session\":%lld}", (long long)s);
    sc_it_ok(c, reply);
    cJSON_Delete(reply);
    sc_it_conn_close(c);
}

static char *label_request(int64_t id, size_t total)
{
    const char *head = "{\"jsonrpc\":\"2.0\",\"id\":";
    char prefix[128];
    int n = snprintf(prefix, sizeof(prefix),
                     "%s%lld,\"method\":\"session.open\",\"params\":{"
                     "\"label\":\"",
                     head, (long long)id);
    const char *tail = "\"}}";
    size_t fill = total - (size_t)n - strlen(tail);
    char *s = malloc(total + 1);
    memcpy(s, prefix, (size_t)n);
    memset(s + n, 'x', fill);
    memcpy(s + n + fill, tail, strlen(tail) + 1);
    return s;
}

static void expect_too_large_then_close(sc_it_conn *c)
{
    cJSON *reply = sc_it_must_recv(c);
    const cJSON *error = sc_it_err(c, reply, -32600, "invalid_request");
    sc_it_err_message(error, "message too large");
    assert_id_null(c, reply);
    cJSON_Delete(reply);
    int rc = sc_it_expect_eof(c);
    if (rc != 0)
        fail_msg("after \"message too large\" the daemon must close the connection (got %d)", rc);
}

static void test_oversize_line(void **state)
{
    (void)state;
    static const char *const flags[] = {"--max-message", "4096", NULL};
    sc_it_daemon *d = sc_it_must_start(flags);
    sc_it_conn *a = sc_it_must_connect(d);
    sc_it_conn *b = sc_it_must_connect(d);
    assert_still_usable(b);

    /* just under the limit: served */
    char *line = label_request(1, 4000);
    cJSON *reply = raw(a, line);
    free(line);
    sc_it_ok(a, reply);
    cJSON_Delete(reply);

    /* over it: one error line, then the connection closes */
    line = label_request(2, 5000);
    sc_it_send_line(a, line); /* may fail part-way once the daemon closes */
    free(line);
    expect_too_large_then_close(a);
    assert_still_usable(b);

    /* no newline at all: the daemon must not buffer without bound */
    sc_it_conn *a2 = sc_it_must_connect(d);
    char *blob = malloc(16384);
    memset(blob, ' ', 16384);
    blob[0] = '{';
    sc_it_send(a2, blob, 16384);
    free(blob);
    expect_too_large_then_close(a2);

    assert_still_usable(b);
    sc_it_conn *fresh = sc_it_must_connect(d);
    assert_still_usable(fresh);
    sc_it_conn_close(fresh);
    sc_it_conn_close(a2);
    sc_it_conn_close(a);
    sc_it_conn_close(b);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

/* A session with three kernels on stream 0, capturing. */
static int64_t session_with_kernels(sc_it_conn *c, const char *label)
{
    int64_t s = sc_it_open_session(c, label);
    cJSON *reply = sc_it_call(c, "capture.begin", "{\"session\":%lld,\"stream\":0}", (long long)s);
    sc_it_ok(c, reply);
    cJSON_Delete(reply);
    for (int i = 0; i < 3; i++) {
        reply = sc_it_call(c, "capture.record_kernel",
                           "{\"session\":%lld,\"stream\":0,\"function_name\":\"k\","
                           "\"num_blocks\":1,\"threads_per_block\":32}",
                           (long long)s);
        sc_it_ok(c, reply);
        cJSON_Delete(reply);
    }
    return s;
}

/* Hold the database's write lock, so that the daemon's commits wait. */
static sqlite3 *lock_db(const char *path)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    return db;
}

static void unlock_db(sqlite3 *db)
{
    assert_int_equal(sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

/*
 * capture.end does not hold up the requests after it on the connection,
 * yet replies keep request order, capture requests see the ended session
 * gone, a request naming the session a pipelined session.open makes finds
 * it, and store reads wait for the writes sent before them: with the
 * commits held back by a lock, the reads must not run early.
 */
static void test_writes_held_in_order(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    int64_t s = session_with_kernels(c, "held");
    char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"jsonrpc\":\"2.0\",\"id\":\"end\",\"method\":\"capture.end\","
             "\"params\":{\"session\":%lld,\"stream\":0}}\n"
             "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session.open\","
             "\"params\":{\"label\":\"after\"}}\n"
             "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"capture.begin\","
             "\"params\":{\"session\":%lld,\"stream\":1}}\n"
             "{\"jsonrpc\":\"2.0\",\"method\":\"capture.node_count\","
             "\"params\":{\"session\":%lld}}\n"
             "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"capture.is_capturing\","
             "\"params\":{\"session\":%lld}}\n"
             "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"graph.list\",\"params\":{\"limit\":1}}\n"
             "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"log.list\",\"params\":{\"limit\":2}}\n",
             (long long)s, (long long)s + 1, (long long)s, (long long)s);
    sqlite3 *lock = lock_db(sc_it_daemon_db(*state));
    assert_int_equal(sc_it_send(c, buf, strlen(buf)), 0);
    /* Nothing can be answered before capture.end, which cannot commit. */
    assert_int_equal(sc_it_expect_silence(c, 300), 0);
    unlock_db(lock);

    cJSON *end = sc_it_must_recv(c);
    assert_string_equal(sc_it_str(end, "id"), "end");
    const cJSON *res = sc_it_ok(c, end);
    int64_t graph = sc_it_int(res, "graph");
    assert_int_equal(sc_it_int(res, "node_count"), 3);

    cJSON *open = sc_it_must_recv(c);
    assert_id_int(c, open, 2);
    int64_t next = sc_it_int(sc_it_ok(c, open), "session");
    /* One client, ids from AUTOINCREMENT: the open made session s + 1. */
    assert_int_equal(next, s + 1);
    cJSON *begun = sc_it_must_recv(c);
    assert_id_int(c, begun, 6);
    sc_it_ok(c, begun);
    cJSON_Delete(begun);

    /* The notification got no reply; the ended session is gone. */
    cJSON *gone = sc_it_must_recv(c);
    assert_id_int(c, gone, 3);
    sc_it_err(c, gone, 1001, "not_found");

    cJSON *graphs = sc_it_must_recv(c);
    assert_id_int(c, graphs, 4);
    const cJSON *first =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(sc_it_ok(c, graphs), "graphs"), 0);
    assert_non_null(first);
    assert_int_equal(sc_it_int(first, "graph"), graph);

    cJSON *log = sc_it_must_recv(c);
    assert_id_int(c, log, 5);
    const cJSON *entries = cJSON_GetObjectItemCaseSensitive(sc_it_ok(c, log), "entries");
    assert_int_equal(cJSON_GetArraySize(entries), 2);
    const cJSON *e0 = cJSON_GetArrayItem(entries, 0), *e1 = cJSON_GetArrayItem(entries, 1);
    assert_int_equal(sc_it_int(e0, "session"), next);
    assert_string_equal(sc_it_str(e0, "outcome"), "open");
    assert_int_equal(sc_it_int(e1, "session"), s);
    assert_string_equal(sc_it_str(e1, "outcome"), "completed");
    assert_int_equal(sc_it_int(e1, "graph"), graph);
    assert_int_equal(sc_it_expect_silence(c, 100), 0);

    cJSON_Delete(end);
    cJSON_Delete(open);
    cJSON_Delete(gone);
    cJSON_Delete(graphs);
    cJSON_Delete(log);
    cJSON *reply = sc_it_call(c, "session.close", "{\"session\":%lld}", (long long)next);
    sc_it_ok(c, reply);
    cJSON_Delete(reply);
    sc_it_conn_close(c);
}

/* A line that closes the connection still lets held writes reply first. */
static void test_held_write_replies_before_close(void **state)
{
    (void)state;
    static const char *const flags[] = {"--max-message", "4096", NULL};
    sc_it_daemon *d = sc_it_must_start(flags);
    sc_it_conn *c = sc_it_must_connect(d);
    int64_t s = session_with_kernels(c, "held-close");
    char end[256];
    snprintf(end, sizeof end,
             "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"capture.end\","
             "\"params\":{\"session\":%lld,\"stream\":0}}\n",
             (long long)s);
    char *big = label_request(10, 5000);
    size_t n = strlen(end), m = strlen(big);
    char *both = malloc(n + m + 2);
    assert_non_null(both);
    memcpy(both, end, n);
    memcpy(both + n, big, m);
    memcpy(both + n + m, "\n", 2);
    sc_it_send(c, both, n + m + 1); /* may fail part-way once the daemon closes */
    free(both);
    free(big);

    cJSON *reply = sc_it_must_recv(c);
    assert_id_int(c, reply, 9);
    assert_int_equal(sc_it_int(sc_it_ok(c, reply), "node_count"), 3);
    cJSON_Delete(reply);
    expect_too_large_then_close(c);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

static void test_unknown_session_and_graph(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    static const char *const calls[][2] = {
        {"capture.begin", "{\"session\":987654321,\"stream\":0}"},
        {"session.info", "{\"session\":987654321}"},
        {"session.close", "{\"session\":987654321}"},
        {"capture.end", "{\"session\":987654321,\"stream\":0}"},
        {"capture.is_capturing", "{\"session\":987654321}"},
    };
    for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
        cJSON *reply = sc_it_call(c, calls[i][0], "%s", calls[i][1]);
        sc_it_err_data(sc_it_err(c, reply, 1001, "not_found"), "what", "session");
        cJSON_Delete(reply);
    }
    cJSON *reply = sc_it_call(c, "graph.get", "{\"graph\":987654321}");
    sc_it_err_data(sc_it_err(c, reply, 1001, "not_found"), "what", "graph");
    cJSON_Delete(reply);
    sc_it_conn_close(c);
}

typedef struct info {
    int64_t connections, sessions, graphs;
} info;

static info server_info(sc_it_conn *c, const sc_it_daemon *d)
{
    cJSON *reply = sc_it_call(c, "server.info", NULL);
    const cJSON *res = sc_it_ok(c, reply);
    assert_string_equal(sc_it_str(res, "version"), SC_EXPECTED_VERSION);
    const cJSON *up = cJSON_GetObjectItemCaseSensitive(res, "uptime_s");
    assert_true(cJSON_IsNumber(up) && up->valuedouble >= 0 && up->valuedouble < 3600);
    char a[PATH_MAX], b[PATH_MAX];
    assert_non_null(realpath(sc_it_daemon_db(d), a));
    if (!realpath(sc_it_str(res, "db_path"), b))
        fail_msg("server.info db_path %s is not the database file %s", sc_it_str(res, "db_path"),
                 a);
    assert_string_equal(a, b);
    info i = {sc_it_int(res, "connections"), sc_it_int(res, "sessions"), sc_it_int(res, "graphs")};
    cJSON_Delete(reply);
    return i;
}

/* Poll server.info until it counts `want` connections (closes are noticed
 * asynchronously); returns the last figures seen. */
static info wait_connections(sc_it_conn *c, const sc_it_daemon *d, int64_t want)
{
    int64_t deadline = sc_it_now_ms() + 3000;
    info i = server_info(c, d);
    while (i.connections != want && sc_it_now_ms() < deadline) {
        sc_it_sleep_ms(20);
        i = server_info(c, d);
    }
    if (i.connections != want)
        fail_msg("server.info connections: expected %lld, got %lld", (long long)want,
                 (long long)i.connections);
    return i;
}

static void test_server_info(void **state)
{
    sc_it_daemon *d = *state;
    sc_it_conn *c = sc_it_must_connect(d);
    /* earlier tests closed their connections: this one is the only one left */
    info before = wait_connections(c, d, 1);

    sc_it_conn *c2 = sc_it_must_connect(d);
    assert_still_usable(c2); /* accepted by now */
    info with_two = server_info(c, d);
    assert_int_equal(with_two.connections, 2);
    sc_it_conn_close(c2);
    wait_connections(c, d, 1);

    int64_t s = sc_it_open_session(c, "info");
    info opened = server_info(c, d);
    assert_int_equal(opened.sessions, before.sessions + 1);
    cJSON *reply = sc_it_call(c, "capture.begin", "{\"session\":%lld,\"stream\":0}", (long long)s);
    sc_it_ok(c, reply);
    cJSON_Delete(reply);
    reply = sc_it_call(c, "capture.end", "{\"session\":%lld,\"stream\":0}", (long long)s);
    sc_it_ok(c, reply);
    cJSON_Delete(reply);
    info ended = server_info(c, d);
    assert_int_equal(ended.sessions, before.sessions);
    assert_int_equal(ended.graphs, before.graphs + 1);
    sc_it_conn_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_error_keeps_connection),
        cmocka_unit_test(test_invalid_requests),
        cmocka_unit_test(test_unknown_method),
        cmocka_unit_test(test_invalid_params),
        cmocka_unit_test(test_null_and_string_ids),
        cmocka_unit_test(test_notifications_get_no_reply),
        cmocka_unit_test(test_batch_mixed),
        cmocka_unit_test(test_batch_all_notifications),
        cmocka_unit_test(test_batch_empty_and_non_objects),
        cmocka_unit_test(test_pipelined_in_order),
        cmocka_unit_test(test_writes_held_in_order),
        cmocka_unit_test(test_held_write_replies_before_close),
        cmocka_unit_test(test_oversize_line),
        cmocka_unit_test(test_unknown_session_and_graph),
        cmocka_unit_test(test_server_info),
    };
    return cmocka_run_group_tests(tests, sc_it_group_setup, sc_it_group_teardown);
}
