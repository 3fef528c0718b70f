/*
 * Session lifecycle in a real streamcapd: open/info/close, sessions shared
 * by connections of one uid, capture.end consuming the session, sessions
 * outliving their connection, the idle timeout (checked in the capture
 * log through SQLite) and sessions bound to the connection that opened them.
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

#include "harness.h"

#define OUTCOME_WAIT_MS 5000

/* Call and assert success; returns the reply (free it) and sets *res. */
static cJSON *ok_call(sc_it_conn *c, const cJSON **res, const char *method, const char *fmt,
                      long long session, unsigned stream)
{
    cJSON *reply = sc_it_call(c, method, fmt, session, stream);
    *res = sc_it_ok(c, reply);
    return reply;
}

static int64_t record_kernel(sc_it_conn *c, int64_t session, unsigned stream)
{
    const cJSON *res;
    cJSON *reply = ok_call(c, &res, "capture.record_kernel",
                           "{\"session\":%lld,\"stream\":%u,\"function_name\":\"k\","
                           "\"num_blocks\":2,\"threads_per_block\":128}",
                           (long long)session, stream);
    int64_t node = sc_it_int(res, "node");
    cJSON_Delete(reply);
    return node;
}

static void expect_session_gone(sc_it_conn *c, int64_t session)
{
    cJSON *reply = sc_it_call(c, "capture.node_count", "{\"session\":%lld}", (long long)session);
    sc_it_err_data(sc_it_err(c, reply, 1001, "not_found"), "what", "session");
    cJSON_Delete(reply);
}

static const cJSON *stream_entry(const cJSON *streams, int64_t stream)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, streams)
    {
        if (sc_it_int(e, "stream") == stream)
            return e;
    }
    char *text = sc_it_json_text(streams);
    fail_msg("session.info streams lack stream %lld: %s", (long long)stream, text);
    return NULL;
}

static void test_open_info_close(void **state)
{
    sc_it_daemon *d = *state;
    sc_it_conn *c = sc_it_must_connect(d);
    int64_t s1 = sc_it_open_session(c, "train-step");
    int64_t s2 = sc_it_open_session(c, NULL);
    assert_true(s2 != s1);

    const cJSON *res;
    cJSON *reply = ok_call(c, &res, "session.info", "{\"session\":%lld}", (long long)s1, 0);
    assert_int_equal(sc_it_int(res, "session"), s1);
    assert_string_equal(sc_it_str(res, "label"), "train-step");
    assert_false(sc_it_bool(res, "capturing"));
    assert_int_equal(sc_it_int(res, "node_count"), 0);
    const cJSON *streams = cJSON_GetObjectItemCaseSensitive(res, "streams");
    assert_true(cJSON_IsArray(streams));
    assert_int_equal(cJSON_GetArraySize(streams), 0);
    cJSON_Delete(reply);

    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":%u}", (long long)s1, 3);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":%u}", (long long)s1, 7);
    assert_int_equal(record_kernel(c, s1, 3), 0);
    sc_it_must_ok(c, "capture.invalidate", "{\"session\":%lld,\"stream\":%u}", (long long)s1, 7);

    reply = ok_call(c, &res, "session.info", "{\"session\":%lld}", (long long)s1, 0);
    assert_true(sc_it_bool(res, "capturing"));
    assert_int_equal(sc_it_int(res, "node_count"), 1);
    streams = cJSON_GetObjectItemCaseSensitive(res, "streams");
    assert_int_equal(cJSON_GetArraySize(streams), 2);
    assert_string_equal(sc_it_str(stream_entry(streams, 3), "status"), "active");
    assert_string_equal(sc_it_str(stream_entry(streams, 7), "status"), "invalidated");
    cJSON_Delete(reply);

    reply = ok_call(c, &res, "session.close", "{\"session\":%lld}", (long long)s1, 0);
    assert_true(cJSON_IsObject(res) && res->child == NULL);
    cJSON_Delete(reply);
    reply = sc_it_call(c, "session.info", "{\"session\":%lld}", (long long)s1);
    sc_it_err_data(sc_it_err(c, reply, 1001, "not_found"), "what", "session");
    cJSON_Delete(reply);
    reply = sc_it_call(c, "session.close", "{\"session\":%lld}", (long long)s1);
    sc_it_err_data(sc_it_err(c, reply, 1001, "not_found"), "what", "session");
    cJSON_Delete(reply);
    sc_it_must_see_outcome(sc_it_daemon_db(d), s1, "closed", OUTCOME_WAIT_MS);

    /* the other session was untouched by all this */
    reply = ok_call(c, &res, "session.info", "{\"session\":%lld}", (long long)s2, 0);
    assert_int_equal(sc_it_int(res, "node_count"), 0);
    cJSON_Delete(reply);
    sc_it_must_ok(c, "session.close", "{\"session\":%lld}", (long long)s2);
    sc_it_conn_close(c);
}

static void test_shared_between_connections(void **state)
{
    sc_it_daemon *d = *state;
    sc_it_conn *a = sc_it_must_connect(d);
    sc_it_conn *b = sc_it_must_connect(d);
    int64_t s = sc_it_open_session(a, "shared");

    sc_it_must_ok(b, "capture.begin", "{\"session\":%lld,\"stream\":%u}", (long long)s, 0);
    assert_int_equal(record_kernel(b, s, 0), 0);
    const cJSON *res;
    cJSON *reply = ok_call(a, &res, "session.info", "{\"session\":%lld}", (long long)s, 0);
    assert_int_equal(sc_it_int(res, "node_count"), 1);
    assert_true(sc_it_bool(res, "capturing"));
    cJSON_Delete(reply);
    assert_int_equal(record_kernel(a, s, 0), 1);

    reply = ok_call(b, &res, "capture.end", "{\"session\":%lld,\"stream\":%u}", (long long)s, 0);
    int64_t graph = sc_it_int(res, "graph");
    assert_int_equal(sc_it_int(res, "node_count"), 2);
    assert_int_equal(sc_it_int(res, "edge_count"), 1);
    cJSON_Delete(reply);

    reply = sc_it_call(a, "graph.get", "{\"graph\":%lld}", (long long)graph);
    res = sc_it_ok(a, reply);
    assert_int_equal(sc_it_int(res, "graph"), graph);
    assert_string_equal(sc_it_str(res, "label"), "shared");
    assert_int_equal(sc_it_int(res, "owner_uid"), getuid());
    assert_int_equal(sc_it_int(res, "owner_pid"), getpid());
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(res, "nodes")), 2);
    cJSON *want_edges = cJSON_Parse("[[0,1]]");
    assert_true(cJSON_Compare(want_edges, cJSON_GetObjectItemCaseSensitive(res, "edges"), true));
    cJSON_Delete(want_edges);
    cJSON_Delete(reply);
    sc_it_must_see_outcome(sc_it_daemon_db(d), s, "completed", OUTCOME_WAIT_MS);
    sc_it_conn_close(a);
    sc_it_conn_close(b);
}

static void test_end_consumes_session(void **state)
{
    sc_it_daemon *d = *state;
    sc_it_conn *c = sc_it_must_connect(d);

    /* success */
    int64_t s = sc_it_open_session(c, "end-ok");
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":%u}", (long long)s, 0);
    record_kernel(c, s, 0);
    sc_it_must_ok(c, "capture.end", "{\"session\":%lld,\"stream\":%u}", (long long)s, 0);
    expect_session_gone(c, s);
    cJSON *reply = sc_it_call(c, "capture.end", "{\"session\":%lld,\"stream\":0}", (long long)s);
    sc_it_err_data(sc_it_err(c, reply, 1001, "not_found"), "what", "session");
    cJSON_Delete(reply);
    sc_it_must_see_outcome(sc_it_daemon_db(d), s, "completed", OUTCOME_WAIT_MS);

    /* failure: end on a stream that is not capturing */
    s = sc_it_open_session(c, "end-notcap");
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":%u}", (long long)s, 0);
    record_kernel(c, s, 0);
    reply = sc_it_call(c, "capture.end", "{\"session\":%lld,\"stream\":1}", (long long)s);
    sc_it_err_message(sc_it_err(c, reply, 1002, "capture_state"), "stream S1 is not capturing");
    cJSON_Delete(reply);
    expect_session_gone(c, s);
    sc_it_must_see_outcome(sc_it_daemon_db(d), s, "failed", OUTCOME_WAIT_MS);

    /* failure: end on an invalidated stream */
    s = sc_it_open_session(c, "end-invalidated");
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":%u}", (long long)s, 0);
    sc_it_must_ok(c, "capture.invalidate", "{\"session\":%lld,\"stream\":%u}", (long long)s, 0);
    reply = sc_it_call(c, "capture.end", "{\"session\":%lld,\"stream\":0}", (long long)s);
    sc_it_err_message(sc_it_err(c, reply, 1003, "invalidated"),
                      "capture was invalidated by an illegal operation");
    cJSON_Delete(reply);
    expect_session_gone(c, s);
    sc_it_must_see_outcome(sc_it_daemon_db(d), s, "failed", OUTCOME_WAIT_MS);
    sc_it_conn_close(c);
}

static void test_survives_connection_close(void **state)
{
    sc_it_daemon *d = *state;
    sc_it_conn *a = sc_it_must_connect(d);
    int64_t s = sc_it_open_session(a, "orphan");
    sc_it_must_ok(a, "capture.begin", "{\"session\":%lld,\"stream\":%u}", (long long)s, 5);
    assert_int_equal(record_kernel(a, s, 5), 0);
    sc_it_conn_close(a);

    sc_it_conn *b = sc_it_must_connect(d);
    assert_int_equal(record_kernel(b, s, 5), 1);
    const cJSON *res;
    cJSON *reply =
        ok_call(b, &res, "capture.end", "{\"session\":%lld,\"stream\":%u}", (long long)s, 5);
    assert_int_equal(sc_it_int(res, "node_count"), 2);
    assert_int_equal(sc_it_int(res, "edge_count"), 1);
    cJSON_Delete(reply);
    sc_it_conn_close(b);
}

static void test_idle_timeout(void **state)
{
    (void)state;
    static const char *const flags[] = {"--session-idle-timeout", "1", NULL};
    sc_it_daemon *d = sc_it_must_start(flags);
    sc_it_conn *a = sc_it_must_connect(d);
    sc_it_conn *b = sc_it_must_connect(d);
    sc_it_conn *c = sc_it_must_connect(d);

    int64_t gone = sc_it_open_session(a, "idle-orphan");
    sc_it_must_ok(a, "capture.begin", "{\"session\":%lld,\"stream\":%u}", (long long)gone, 0);
    record_kernel(a, gone, 0);
    sc_it_conn_close(a);
    int64_t held = sc_it_open_session(b, "idle-held");
    int64_t busy = sc_it_open_session(c, "busy");

    /* 3 s without a request on `gone` or `held`; `busy` is used every 300 ms */
    int64_t until = sc_it_now_ms() + 3000;
    while (sc_it_now_ms() < until) {
        sc_it_sleep_ms(300);
        sc_it_must_ok(c, "capture.node_count", "{\"session\":%lld}", (long long)busy);
    }
    expect_session_gone(b, held);
    expect_session_gone(c, gone);
    sc_it_must_see_outcome(sc_it_daemon_db(d), gone, "abandoned", OUTCOME_WAIT_MS);
    sc_it_must_see_outcome(sc_it_daemon_db(d), held, "abandoned", OUTCOME_WAIT_MS);

    char outcome[64];
    assert_int_equal(sc_it_log_outcome(sc_it_daemon_db(d), busy, outcome, sizeof(outcome)), 0);
    assert_string_equal(outcome, "open");
    sc_it_must_ok(c, "session.close", "{\"session\":%lld}", (long long)busy);
    sc_it_must_see_outcome(sc_it_daemon_db(d), busy, "closed", OUTCOME_WAIT_MS);

    sc_it_conn_close(b);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

/* The outcome log.list gives `session`, "" when it has no entry for it. */
static void log_list_outcome(sc_it_conn *c, int64_t session, char *out, size_t len)
{
    cJSON *res = sc_it_must_result(c, "log.list", "{\"limit\":100}");
    const cJSON *entries = cJSON_GetObjectItemCaseSensitive(res, "entries");
    const cJSON *e;
    out[0] = '\0';
    cJSON_ArrayForEach(e, entries)
    {
        if (sc_it_int(e, "session") == session)
            snprintf(out, len, "%s", cJSON_GetObjectItemCaseSensitive(e, "outcome")->valuestring);
    }
    cJSON_Delete(res);
}

/*
 * A session opened with bind ends as abandoned when the connection that
 * opened it closes, well before the idle timeout: its nodes leave the uid's
 * quota at once.  Another connection using it meanwhile does not take it
 * over, and an unbound session of the same connection lives on.
 */
static void test_bound_session_ends_with_connection(void **state)
{
    (void)state;
    static const char *const flags[] = {"--max-uid-nodes", "3", NULL};
    sc_it_daemon *d = sc_it_must_start(flags);
    sc_it_conn *a = sc_it_must_connect(d);
    sc_it_conn *b = sc_it_must_connect(d);
    cJSON *res = sc_it_must_result(a, "session.open", "{\"label\":\"bound\",\"bind\":true}");
    int64_t bound = sc_it_int(res, "session");
    cJSON_Delete(res);
    int64_t loose = sc_it_open_session(a, "loose");
    sc_it_must_ok(a, "capture.begin", "{\"session\":%lld,\"stream\":%u}", (long long)bound, 0);
    record_kernel(a, bound, 0);
    record_kernel(a, bound, 0);
    /* b uses the bound session last: a's close must still end it */
    record_kernel(b, bound, 0);
    cJSON *reply = sc_it_call(b, "session.open", "{\"bind\":1}");
    sc_it_err(b, reply, -32602, NULL);
    cJSON_Delete(reply);

    int64_t closed_at = sc_it_now_ms();
    sc_it_conn_close(a);
    sc_it_must_see_outcome(sc_it_daemon_db(d), bound, "abandoned", OUTCOME_WAIT_MS);
    assert_true(sc_it_now_ms() - closed_at < OUTCOME_WAIT_MS);
    char outcome[32];
    log_list_outcome(b, bound, outcome, sizeof outcome);
    assert_string_equal(outcome, "abandoned");
    log_list_outcome(b, loose, outcome, sizeof outcome);
    assert_string_equal(outcome, "open");
    expect_session_gone(b, bound);

    /* the uid's three nodes are free again */
    int64_t next = sc_it_open_session(b, "next");
    sc_it_must_ok(b, "capture.begin", "{\"session\":%lld,\"stream\":%u}", (long long)next, 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(record_kernel(b, next, 0), i);
    sc_it_conn_close(b);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_info_close),
        cmocka_unit_test(test_shared_between_connections),
        cmocka_unit_test(test_end_consumes_session),
        cmocka_unit_test(test_survives_connection_close),
        cmocka_unit_test(test_idle_timeout),
        cmocka_unit_test(test_bound_session_ends_with_connection),
    };
    return cmocka_run_group_tests(tests, sc_it_group_setup, sc_it_group_teardown);
}
