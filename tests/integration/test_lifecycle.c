/*
 * Process lifecycle of streamcapd: graceful stop and restart, kill -9 and
 * restart, outcomes of sessions open at a stop or a crash, the socket file
 * (removal, a live socket refusing a second daemon, a stale one replaced,
 * its mode), --help, and clients vanishing in the middle of a reply.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"

#define OUTCOME_WAIT_MS 5000

/* A fork/join graph using every node kind; `extra` more kernels on stream 1. */
static int64_t make_graph(sc_it_conn *c, const char *label, int extra)
{
    long long s = (long long)sc_it_open_session(c, label);
    const char *on = "{\"session\":%lld,\"stream\":%u}";
    sc_it_must_ok(c, "capture.begin", on, s, 0);
    sc_it_must_ok(c, "capture.begin", on, s, 1);
    sc_it_must_ok(c, "capture.record_memcpy",
                  "{\"session\":%lld,\"stream\":%u,\"name\":\"up\",\"dir\":\"host_to_device\","
                  "\"size_bytes\":1048576}",
                  s, 0);
    sc_it_must_ok(c, "capture.record_event", "{\"session\":%lld,\"stream\":%u,\"event\":1}", s, 0);
    sc_it_must_ok(c, "capture.wait_event", "{\"session\":%lld,\"stream\":%u,\"event\":1}", s, 1);
    sc_it_must_ok(
        c, "capture.record_memset",
        "{\"session\":%lld,\"stream\":%u,\"name\":\"zero\",\"size_bytes\":64,\"value\":0}", s, 1);
    for (int i = 0; i < extra; i++)
        sc_it_must_ok(c, "capture.record_kernel",
                      "{\"session\":%lld,\"stream\":%u,\"function_name\":\"gemm_kernel_with_a_"
                      "fairly_long_name_to_make_replies_big\",\"num_blocks\":128,"
                      "\"threads_per_block\":256,\"shared_mem\":49152}",
                      s, 1);
    sc_it_must_ok(c, "capture.record_event", "{\"session\":%lld,\"stream\":%u,\"event\":2}", s, 1);
    sc_it_must_ok(c, "capture.wait_event", "{\"session\":%lld,\"stream\":%u,\"event\":2}", s, 0);
    sc_it_must_ok(c, "capture.record_host_callback",
                  "{\"session\":%lld,\"stream\":%u,\"label\":\"done \\u2713\"}", s, 0);
    sc_it_must_ok(c, "capture.record_memcpy",
                  "{\"session\":%lld,\"stream\":%u,\"name\":\"p2p\",\"dir\":\"peer_to_peer\","
                  "\"size_bytes\":4096,\"src_device\":0,\"dst_device\":3}",
                  s, 0);
    cJSON *reply = sc_it_call(c, "capture.end", on, s, 0);
    int64_t graph = sc_it_int(sc_it_ok(c, reply), "graph");
    assert_int_equal(sc_it_int(sc_it_ok(c, reply), "node_count"), 4 + extra);
    cJSON_Delete(reply);
    return graph;
}

/* graph.get's result, detached from its reply. */
static cJSON *get_graph(sc_it_conn *c, int64_t graph)
{
    cJSON *reply = sc_it_call(c, "graph.get", "{\"graph\":%lld}", (long long)graph);
    sc_it_ok(c, reply);
    cJSON *res = cJSON_DetachItemFromObjectCaseSensitive(reply, "result");
    cJSON_Delete(reply);
    return res;
}

static void expect_same_graph(sc_it_conn *c, int64_t graph, const cJSON *before)
{
    cJSON *now = get_graph(c, graph);
    if (!cJSON_Compare(before, now, true)) {
        char *a = sc_it_json_text(before);
        char *b = sc_it_json_text(now);
        fail_msg("graph %lld changed across the restart\n  before %.2000s\n  after  %.2000s",
                 (long long)graph, a, b);
    }
    cJSON_Delete(now);
}

static void expect_no_socket_file(const sc_it_daemon *d)
{
    struct stat st;
    if (lstat(sc_it_daemon_socket(d), &st) == 0 || errno != ENOENT)
        fail_msg("socket file %s still exists after the daemon stopped", sc_it_daemon_socket(d));
}

static void expect_listening_line(const sc_it_daemon *d)
{
    char want[512];
    snprintf(want, sizeof(want), "streamcapd: listening on %s (database %s)\n",
             sc_it_daemon_socket(d), sc_it_daemon_db(d));
    char *out = sc_it_read_file(sc_it_daemon_stdout_path(d));
    if (!out || !strstr(out, want))
        fail_msg("stdout of a started daemon lacks the line \"%.*s\"\n  stdout: %s",
                 (int)strlen(want) - 1, want, out ? out : "(unreadable)");
    free(out);
}

static void test_restart_keeps_graphs(void **state)
{
    (void)state;
    sc_it_daemon *d = sc_it_must_start(NULL);
    expect_listening_line(d);
    sc_it_conn *c = sc_it_must_connect(d);
    int64_t graphs[3];
    cJSON *before[3];
    for (int i = 0; i < 3; i++) {
        char label[32];
        snprintf(label, sizeof(label), "restart-%d", i);
        graphs[i] = make_graph(c, label, i * 3);
        before[i] = get_graph(c, graphs[i]);
    }
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    expect_no_socket_file(d);

    sc_it_must_restart(d, NULL);
    expect_listening_line(d);
    c = sc_it_must_connect(d);
    for (int i = 0; i < 3; i++) {
        expect_same_graph(c, graphs[i], before[i]);
        cJSON_Delete(before[i]);
    }
    cJSON *reply = sc_it_call(c, "server.info", NULL);
    assert_int_equal(sc_it_int(sc_it_ok(c, reply), "graphs"), 3);
    cJSON_Delete(reply);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

static void test_kill9_keeps_acknowledged_and_marks_lost(void **state)
{
    (void)state;
    sc_it_daemon *d = sc_it_must_start(NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    int64_t g1 = make_graph(c, "before-crash-1", 2);
    int64_t g2 = make_graph(c, "before-crash-2", 0);
    cJSON *b1 = get_graph(c, g1), *b2 = get_graph(c, g2);
    int64_t busy = sc_it_open_session(c, "open-at-crash");
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":%u}", (long long)busy, 0);
    sc_it_must_ok(c, "capture.record_kernel",
                  "{\"session\":%lld,\"stream\":%u,\"function_name\":\"k\",\"num_blocks\":1,"
                  "\"threads_per_block\":1}",
                  (long long)busy, 0);
    int64_t empty = sc_it_open_session(c, "empty-at-crash");
    assert_int_equal(sc_it_daemon_kill(d), 0);
    sc_it_conn_close(c);

    sc_it_must_restart(d, NULL);
    c = sc_it_must_connect(d);
    expect_same_graph(c, g1, b1);
    expect_same_graph(c, g2, b2);
    cJSON_Delete(b1);
    cJSON_Delete(b2);
    cJSON *reply = sc_it_call(c, "session.info", "{\"session\":%lld}", (long long)busy);
    sc_it_err_data(sc_it_err(c, reply, 1001, "not_found"), "what", "session");
    cJSON_Delete(reply);
    sc_it_must_see_outcome(sc_it_daemon_db(d), busy, "lost", OUTCOME_WAIT_MS);
    sc_it_must_see_outcome(sc_it_daemon_db(d), empty, "lost", OUTCOME_WAIT_MS);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

static void test_sigterm_logs_open_sessions_as_shutdown(void **state)
{
    (void)state;
    sc_it_daemon *d = sc_it_must_start(NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    int64_t s = sc_it_open_session(c, "open-at-stop");
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":%u}", (long long)s, 2);
    int64_t other = sc_it_open_session(c, NULL);
    /* the connection stays open across the stop: the daemon must not wait for it */
    sc_it_must_stop(d);
    expect_no_socket_file(d);
    sc_it_must_see_outcome(sc_it_daemon_db(d), s, "shutdown", OUTCOME_WAIT_MS);
    sc_it_must_see_outcome(sc_it_daemon_db(d), other, "shutdown", OUTCOME_WAIT_MS);
    sc_it_conn_close(c);
    sc_it_daemon_destroy(d);
}

static void test_sigint_is_graceful(void **state)
{
    (void)state;
    sc_it_daemon *d = sc_it_must_start(NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    int64_t s = sc_it_open_session(c, "open-at-sigint");
    int status = -1;
    assert_int_equal(sc_it_daemon_signal_stop(d, SIGINT, &status), 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("streamcapd after SIGINT: wait status 0x%x, expected exit status 0",
                 (unsigned)status);
    expect_no_socket_file(d);
    sc_it_must_see_outcome(sc_it_daemon_db(d), s, "shutdown", OUTCOME_WAIT_MS);
    sc_it_conn_close(c);
    sc_it_daemon_destroy(d);
}

static void test_second_daemon_refused(void **state)
{
    (void)state;
    sc_it_daemon *d = sc_it_must_start(NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    int64_t s = sc_it_open_session(c, "first-daemon");

    char other_db[256];
    snprintf(other_db, sizeof(other_db), "%s/other.db", sc_it_daemon_dir(d));
    const char *args[] = {"--socket", sc_it_daemon_socket(d), "--db", other_db, NULL};
    int status = -1;
    char *out = NULL, *err = NULL;
    assert_int_equal(
        sc_it_run_daemon(sc_it_daemon_dir(d), args, SC_IT_START_TIMEOUT_MS, &status, &out, &err),
        0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) == 0)
        fail_msg("a second daemon on a live socket: wait status 0x%x, expected a non-zero exit",
                 (unsigned)status);
    if (!err || !err[0])
        fail_msg("a second daemon on a live socket exited without a message on stderr");
    free(out);
    free(err);
    /* it refused before opening anything: no database was made for it */
    struct stat db_st;
    if (lstat(other_db, &db_st) == 0)
        fail_msg("a second daemon on a live socket created its database %s", other_db);

    /* the first daemon still owns its socket and serves old and new clients */
    struct stat st;
    assert_int_equal(lstat(sc_it_daemon_socket(d), &st), 0);
    assert_true(S_ISSOCK(st.st_mode));
    sc_it_must_ok(c, "session.info", "{\"session\":%lld}", (long long)s);
    sc_it_conn *fresh = sc_it_must_connect(d);
    sc_it_must_ok(fresh, "session.close", "{\"session\":%lld}", (long long)s);
    sc_it_conn_close(fresh);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

static void test_stale_socket_replaced(void **state)
{
    (void)state;
    sc_it_daemon *d;
    assert_int_equal(sc_it_daemon_create(&d), 0);
    int fd = sc_it_socket_bind(sc_it_daemon_socket(d));
    assert_true(fd >= 0);
    close(fd); /* no unlink: the file stays, nobody listens */
    struct stat st;
    assert_int_equal(lstat(sc_it_daemon_socket(d), &st), 0);

    sc_it_must_restart(d, NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    cJSON *reply = sc_it_call(c, "server.info", NULL);
    sc_it_ok(c, reply);
    cJSON_Delete(reply);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

static void expect_socket_mode(const char *const *flags, mode_t want)
{
    sc_it_daemon *d = sc_it_must_start(flags);
    struct stat st;
    assert_int_equal(lstat(sc_it_daemon_socket(d), &st), 0);
    if ((st.st_mode & 07777) != want)
        fail_msg("socket %s has mode %04o, expected %04o", sc_it_daemon_socket(d),
                 (unsigned)(st.st_mode & 07777), (unsigned)want);
    sc_it_conn *c = sc_it_must_connect(d);
    cJSON *reply = sc_it_call(c, "server.info", NULL);
    sc_it_ok(c, reply);
    cJSON_Delete(reply);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

static void test_socket_mode(void **state)
{
    (void)state;
    /* the daemon must set its mode whatever umask it inherits */
    mode_t old = umask(022);
    static const char *const group[] = {"--socket-mode", "0660", NULL};
    static const char *const world[] = {"--socket-mode", "666", NULL};
    expect_socket_mode(NULL, 0600);
    expect_socket_mode(group, 0660);
    umask(077);
    expect_socket_mode(world, 0666);
    umask(old);
}

static void test_help_lists_every_flag(void **state)
{
    (void)state;
    sc_it_daemon *d;
    assert_int_equal(sc_it_daemon_create(&d), 0);
    static const char *const args[] = {"--help", NULL};
    int status = -1;
    char *out = NULL, *err = NULL;
    assert_int_equal(
        sc_it_run_daemon(sc_it_daemon_dir(d), args, SC_IT_START_TIMEOUT_MS, &status, &out, &err),
        0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("streamcapd --help: wait status 0x%x, expected exit status 0", (unsigned)status);
    static const char *const flags[] = {
        "--socket",
        "--db",
        "--socket-mode",
        "--max-message",
        "--max-connections",
        "--session-idle-timeout",
        "--sync",
        "--log-level",
        "--help",
    };
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
        if (!out || !strstr(out, flags[i]))
            fail_msg("streamcapd --help does not list %s\n  stdout: %s", flags[i],
                     out ? out : "(none)");
    free(out);
    free(err);
    /* --help neither listens nor creates a database */
    struct stat st;
    assert_int_not_equal(lstat(sc_it_daemon_socket(d), &st), 0);
    assert_int_not_equal(lstat(sc_it_daemon_db(d), &st), 0);
    sc_it_daemon_destroy(d);
}

/* A raw connection that writes `count` graph.get requests and closes after
 * reading at most `read_bytes` of the replies. */
static void vanishing_client(const char *path, int64_t graph, int count, size_t read_bytes)
{
    int fd = sc_it_socket_connect(path);
    assert_true(fd >= 0);
    for (int i = 0; i < count; i++) {
        char line[128];
        int n = snprintf(line, sizeof(line),
                         "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"graph.get\",\"params\":{"
                         "\"graph\":%lld}}\n",
                         i + 1, (long long)graph);
        assert_int_equal(send(fd, line, (size_t)n, MSG_NOSIGNAL), n);
    }
    char buf[4096];
    size_t got = 0;
    while (got < read_bytes) {
        ssize_t n =
            recv(fd, buf, sizeof(buf) < read_bytes - got ? sizeof(buf) : read_bytes - got, 0);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
}

static void test_client_vanishing_mid_reply(void **state)
{
    (void)state;
    sc_it_daemon *d = sc_it_must_start(NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    int64_t graph = make_graph(c, "big", 400);
    cJSON *want = get_graph(c, graph);

    for (int round = 0; round < 4; round++) {
        vanishing_client(sc_it_daemon_socket(d), graph, 200, round == 0 ? 0 : 1000 * round);
        expect_same_graph(c, graph, want);
    }
    sc_it_sleep_ms(200);
    assert_true(sc_it_daemon_running(d));
    expect_same_graph(c, graph, want);
    sc_it_conn *fresh = sc_it_must_connect(d);
    expect_same_graph(fresh, graph, want);
    sc_it_conn_close(fresh);
    cJSON_Delete(want);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_restart_keeps_graphs),
        cmocka_unit_test(test_kill9_keeps_acknowledged_and_marks_lost),
        cmocka_unit_test(test_sigterm_logs_open_sessions_as_shutdown),
        cmocka_unit_test(test_sigint_is_graceful),
        cmocka_unit_test(test_second_daemon_refused),
        cmocka_unit_test(test_stale_socket_replaced),
        cmocka_unit_test(test_socket_mode),
        cmocka_unit_test(test_help_lists_every_flag),
        cmocka_unit_test(test_client_vanishing_mid_reply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
