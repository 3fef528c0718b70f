/*
 * log.subscribe through a real streamcapd: session events arrive as
 * log.event notifications, a bad filter is refused naming its field, and a
 * subscriber that never reads is dropped with a last "dropped" notice
 * while another client's requests keep answering quickly.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"

static const char *const small_bound[] = {"--max-sub-output", "64K", NULL};

static int setup(void **state)
{
    sc_it_daemon *d;
    if (sc_it_daemon_create(&d) != 0 || sc_it_daemon_start(d, small_bound) != 0)
        return -1;
    *state = d;
    return 0;
}

static int teardown(void **state)
{
    sc_it_daemon_destroy(*state);
    return 0;
}

/* The next notification: a log.event whose event is `want`; its params. */
static cJSON *expect_event(sc_it_conn *c, const char *want, int64_t session)
{
    cJSON *n = NULL;
    assert_int_equal(sc_it_recv_json(c, &n), 0);
    assert_string_equal(sc_it_str(n, "method"), "log.event");
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(n, "params");
    assert_non_null(p);
    assert_string_equal(sc_it_str(p, "event"), want);
    assert_int_equal(sc_it_int(p, "session"), session);
    sc_it_must_be_time("at", sc_it_str(p, "at"));
    return n;
}

static void test_session_events_arrive(void **state)
{
    sc_it_daemon *d = *state;
    sc_it_conn *sub, *c;
    assert_int_equal(sc_it_connect(sc_it_daemon_socket(d), &sub), 0);
    assert_int_equal(sc_it_connect(sc_it_daemon_socket(d), &c), 0);
    sc_it_must_ok(sub, "log.subscribe", "{}");
    int64_t s = sc_it_open_session(c, "followed");
    sc_it_must_ok(c, "session.close", "{\"session\":%lld}", (long long)s);
    cJSON *n = expect_event(sub, "session_opened", s);
    cJSON_Delete(n);
    n = expect_event(sub, "session_ended", s);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(n, "params");
    assert_string_equal(sc_it_str(p, "outcome"), "closed");
    cJSON_Delete(n);
    /* A subscriber runs no more requests: this one is never answered. */
    assert_int_equal(
        sc_it_send_line(sub, "{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"server.info\"}"), 0);
    assert_int_equal(sc_it_expect_silence(sub, 300), 0);
    sc_it_conn_close(sub);
    sc_it_conn_close(c);
}

static void test_graph_deleted_arrives(void **state)
{
    sc_it_daemon *d = *state;
    sc_it_conn *sub, *c;
    assert_int_equal(sc_it_connect(sc_it_daemon_socket(d), &sub), 0);
    assert_int_equal(sc_it_connect(sc_it_daemon_socket(d), &c), 0);
    sc_it_must_ok(sub, "log.subscribe", "{}");
    cJSON *r =
        sc_it_must_result(c, "graph.submit", "{\"nodes\":[{\"kind\":\"empty\"}],\"edges\":[]}");
    int64_t g = sc_it_int(r, "graph");
    cJSON_Delete(r);
    sc_it_must_ok(c, "graph.delete", "{\"graph\":%lld}", (long long)g);
    /* The submission is reported once committed, with its counts and label. */
    cJSON *n = expect_event(sub, "graph_stored", 0);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(n, "params");
    assert_int_equal(sc_it_int(p, "graph"), g);
    assert_int_equal(sc_it_int(p, "node_count"), 1);
    assert_int_equal(sc_it_int(p, "edge_count"), 0);
    assert_string_equal(sc_it_str(p, "label"), "submitted");
    cJSON_Delete(n);
    assert_int_equal(sc_it_recv_json(sub, &n), 0);
    p = cJSON_GetObjectItemCaseSensitive(n, "params");
    assert_non_null(p);
    assert_string_equal(sc_it_str(p, "event"), "graph_deleted");
    assert_int_equal(sc_it_int(p, "graph"), g);
    cJSON_Delete(n);
    sc_it_conn_close(sub);
    sc_it_conn_close(c);
}

/* Each event of a default-mode capture that ends, in order, and of one
 * that is invalidated (the breaking call named), each with host and uid. */
static void test_capture_events_in_order(void **state)
{
    sc_it_daemon *d = *state;
    sc_it_conn *sub, *c;
    assert_int_equal(sc_it_connect(sc_it_daemon_socket(d), &sub), 0);
    assert_int_equal(sc_it_connect(sc_it_daemon_socket(d), &c), 0);
    sc_it_must_ok(sub, "log.subscribe", "{}");
    int64_t s = sc_it_open_session(c, "ends");
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":3}", (long long)s);
    for (int i = 0; i < 2; i++)
        sc_it_must_ok(c, "capture.record_kernel",
                      "{\"session\":%lld,\"stream\":3,\"function_name\":\"k\",\"num_blocks\":1,"
                      "\"threads_per_block\":1}",
                      (long long)s);
    cJSON *r = sc_it_must_result(c, "capture.end", "{\"session\":%lld,\"stream\":3}", (long long)s);
    int64_t g = sc_it_int(r, "graph");
    cJSON_Delete(r);
    static const char *const order[] = {"session_opened", "capture_begun", "capture_ended",
                                        "graph_stored", "session_ended"};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        cJSON *n = expect_event(sub, order[i], s);
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(n, "params");
        assert_non_null(sc_it_str(p, "host"));
        assert_int_equal(sc_it_int(p, "uid"), (int64_t)getuid());
        if (i == 1)
            assert_int_equal(sc_it_int(p, "stream"), 3);
        if (i == 2) {
            assert_string_equal(sc_it_str(p, "outcome"), "completed");
            assert_int_equal(sc_it_int(p, "node_count"), 2);
            assert_int_equal(sc_it_int(p, "edge_count"), 1);
        }
        if (i >= 2 && i <= 3)
            assert_int_equal(sc_it_int(p, "graph"), g);
        if (i == 3)
            assert_string_equal(sc_it_str(p, "label"), "ends");
        if (i == 4)
            assert_string_equal(sc_it_str(p, "outcome"), "completed");
        cJSON_Delete(n);
    }
    /* Invalidated, then its end fails. */
    s = sc_it_open_session(c, NULL);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":1}", (long long)s);
    sc_it_must_ok(c, "capture.invalidate", "{\"session\":%lld,\"stream\":1}", (long long)s);
    sc_it_must_error(c, 1003, NULL, "capture.end", "{\"session\":%lld,\"stream\":1}", (long long)s);
    cJSON_Delete(expect_event(sub, "session_opened", s));
    cJSON_Delete(expect_event(sub, "capture_begun", s));
    cJSON *n = expect_event(sub, "capture_invalidated", s);
    const cJSON *why = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(n, "params"), "invalidated_by");
    assert_non_null(why);
    assert_string_equal(sc_it_str(why, "method"), "capture.invalidate");
    cJSON_Delete(n);
    n = expect_event(sub, "capture_ended", s);
    assert_string_equal(sc_it_str(cJSON_GetObjectItemCaseSensitive(n, "params"), "outcome"),
                        "failed");
    cJSON_Delete(n);
    n = expect_event(sub, "session_ended", s);
    cJSON_Delete(n);
    sc_it_conn_close(sub);
    sc_it_conn_close(c);
}

/* Cuda mode: the capture's id and mode when it begins; the breaking call,
 * with the CUDA function it named, when it is invalidated and ends. */
static void test_cuda_capture_events(void **state)
{
    sc_it_daemon *d = *state;
    sc_it_conn *sub, *c;
    assert_int_equal(sc_it_connect(sc_it_daemon_socket(d), &sub), 0);
    assert_int_equal(sc_it_connect(sc_it_daemon_socket(d), &c), 0);
    sc_it_must_ok(sub, "log.subscribe", "{}");
    long long s = (long long)sc_it_open_cuda(c);
    cJSON *r = sc_it_must_result(c, "capture.begin", "{\"session\":%lld,\"stream\":1}", s);
    int64_t cap = sc_it_int(r, "capture");
    cJSON_Delete(r);
    sc_it_must_error(c, 1009, "cuda", "capture.host_call",
                     "{\"session\":%lld,\"kind\":\"unsafe\",\"call\":\"cudaMalloc\"}", s);
    sc_it_must_error(c, 1009, "cuda", "capture.end", "{\"session\":%lld,\"stream\":1}", s);
    cJSON_Delete(expect_event(sub, "session_opened", s));
    cJSON *n = expect_event(sub, "capture_begun", s);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(n, "params");
    assert_int_equal(sc_it_int(p, "capture"), cap);
    assert_int_equal(sc_it_int(p, "stream"), 1);
    assert_string_equal(sc_it_str(p, "mode"), "global");
    cJSON_Delete(n);
    static const char *const kinds[] = {"capture_invalidated", "capture_ended"};
    for (int i = 0; i < 2; i++) {
        n = expect_event(sub, kinds[i], s);
        p = cJSON_GetObjectItemCaseSensitive(n, "params");
        assert_int_equal(sc_it_int(p, "capture"), cap);
        const cJSON *why = cJSON_GetObjectItemCaseSensitive(p, "invalidated_by");
        assert_non_null(why);
        assert_string_equal(sc_it_str(why, "method"), "capture.host_call");
        assert_string_equal(sc_it_str(why, "call"), "cudaMalloc");
        assert_non_null(sc_it_str(why, "cuda_name"));
        if (i == 1)
            assert_string_equal(sc_it_str(p, "outcome"), "failed");
        cJSON_Delete(n);
    }
    sc_it_conn_close(sub);
    sc_it_conn_close(c);
}

/* host: a string, and only that host's events. */
static void test_host_filter(void **state)
{
    sc_it_daemon *d = *state;
    sc_it_conn *sub, *other, *c;
    assert_int_equal(sc_it_connect(sc_it_daemon_socket(d), &sub), 0);
    assert_int_equal(sc_it_connect(sc_it_daemon_socket(d), &other), 0);
    assert_int_equal(sc_it_connect(sc_it_daemon_socket(d), &c), 0);
    sc_it_must_error(sub, -32602, NULL, "log.subscribe", "{\"host\":7}");
    cJSON *info = sc_it_must_result(c, "server.info", "{}");
    char host[256];
    snprintf(host, sizeof host, "%s", sc_it_str(info, "host"));
    cJSON_Delete(info);
    sc_it_must_ok(sub, "log.subscribe", "{\"host\":\"no-such-host\"}");
    sc_it_must_ok(other, "log.subscribe", "{\"host\":\"%s\"}", host);
    int64_t s = sc_it_open_session(c, NULL);
    cJSON *n = expect_event(other, "session_opened", s);
    assert_string_equal(sc_it_str(cJSON_GetObjectItemCaseSensitive(n, "params"), "host"), host);
    cJSON_Delete(n);
    assert_int_equal(sc_it_expect_silence(sub, 300), 0);
    sc_it_conn_close(sub);
    sc_it_conn_close(other);
    sc_it_conn_close(c);
}

static void test_outcome_filter(void **state)
{
    sc_it_daemon *d = *state;
    sc_it_conn *sub, *c;
    assert_int_equal(sc_it_connect(sc_it_daemon_socket(d), &sub), 0);
    assert_int_equal(sc_it_connect(sc_it_daemon_socket(d), &c), 0);
    sc_it_must_error(sub, -32602, NULL, "log.subscribe", "{\"outcome\":\"bogus\"}");
    sc_it_must_ok(sub, "log.subscribe", "{\"outcome\":\"closed\"}");
    int64_t s = sc_it_open_session(c, NULL);
    sc_it_must_ok(c, "session.close", "{\"session\":%lld}", (long long)s);
    /* session_opened (outcome open) is filtered out. */
    cJSON *n = expect_event(sub, "session_ended", s);
    cJSON_Delete(n);
    sc_it_conn_close(sub);
    sc_it_conn_close(c);
}

/* `discarded`, the outcome of a capture its session's end threw away, is
 * a filter value too, though no session ends with it. */
static void test_discarded_filter(void **state)
{
    sc_it_daemon *d = *state;
    sc_it_conn *sub, *c;
    assert_int_equal(sc_it_connect(sc_it_daemon_socket(d), &sub), 0);
    assert_int_equal(sc_it_connect(sc_it_daemon_socket(d), &c), 0);
    sc_it_must_ok(sub, "log.subscribe", "{\"outcome\":\"discarded\"}");
    long long s = (long long)sc_it_open_cuda(c);
    cJSON *r = sc_it_must_result(c, "capture.begin", "{\"session\":%lld,\"stream\":1}", s);
    int64_t cap = sc_it_int(r, "capture");
    cJSON_Delete(r);
    sc_it_must_ok(c, "session.close", "{\"session\":%lld}", s);
    /* session_opened, capture_begun and session_ended are filtered out. */
    cJSON *n = expect_event(sub, "capture_ended", s);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(n, "params");
    assert_int_equal(sc_it_int(p, "capture"), cap);
    assert_string_equal(sc_it_str(p, "outcome"), "discarded");
    cJSON_Delete(n);
    assert_int_equal(sc_it_expect_silence(sub, 300), 0);
    sc_it_conn_close(sub);
    sc_it_conn_close(c);
}

static uint64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

static void test_stalled_subscriber_dropped(void **state)
{
    sc_it_daemon *d = *state;
    int fd = sc_it_socket_connect(sc_it_daemon_socket(d));
    assert_true(fd >= 0);
    int small = 4096;
    assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)), 0);
    /* A subscriber never cut off would leave the reads below blocked. */
    struct timeval tv = {.tv_sec = 10};
    assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
    const char *req = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"log.subscribe\"}\n";
    assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
    sc_it_conn *c;
    assert_int_equal(sc_it_connect(sc_it_daemon_socket(d), &c), 0);
    /* Far more event bytes than the 64K bound plus the socket's buffers. */
    uint64_t worst = 0;
    for (int i = 0; i < 3000; i++) {
        uint64_t t0 = now_ms();
        int64_t s = sc_it_open_session(c, NULL);
        sc_it_must_ok(c, "session.close", "{\"session\":%lld}", (long long)s);
        uint64_t dt = now_ms() - t0;
        worst = dt > worst ? dt : worst;
    }
    /* Each open and close (two commits) answered within a bound. */
    assert_true(worst < 1000);
    /* Reading now: the stream ends with the dropped notice, then EOF. */
    FILE *f = fdopen(fd, "r");
    assert_non_null(f);
    char *line = NULL, *last = NULL;
    size_t cap = 0;
    size_t lines = 0;
    while (getline(&line, &cap, f) > 0) {
        free(last);
        last = strdup(line);
        lines++;
    }
    assert_true(lines > 2);
    assert_non_null(last);
    assert_non_null(strstr(last, "\"event\":\"dropped\""));
    free(last);
    free(line);
    fclose(f);
    sc_it_conn_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_session_events_arrive, setup, teardown),
        cmocka_unit_test_setup_teardown(test_graph_deleted_arrives, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capture_events_in_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cuda_capture_events, setup, teardown),
        cmocka_unit_test_setup_teardown(test_host_filter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_outcome_filter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_discarded_filter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stalled_subscriber_dropped, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
