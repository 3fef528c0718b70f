/*
 * Per-uid quotas and connection timeouts: one uid that takes all it may
 * (connections, sessions, live nodes) leaves another uid its share; a
 * connection that trickles a line without ending it, or sits idle without
 * a session, gives its slot back; one whose session is live is kept.
 *
 * The two-uid test runs as root and forks a client that drops to uid 65534
 * (exit status 77 otherwise, like test_rel_owner); so does the test of the
 * reserve kept for root, whose clients run as uids 65534 and 65533.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rel_util.h"
#include "skip.h"

#define OTHER_UID 65534u

/* --max-connections 8, --max-sessions 8, --max-live-nodes 40: the per-uid
 * defaults are three quarters of each. */
#define UID_CONNS    6
#define UID_SESSIONS 6
#define UID_NODES    30

static const char *error_message(const cJSON *reply)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(reply, "error");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "message");
    return cJSON_IsString(m) ? m->valuestring : "";
}

/* A 1006 reply whose message names `what`. */
static void expect_limit(cJSON *reply, const char *what)
{
    int64_t code = 0;
    char *text = sc_it_json_text(reply);
    if (!sc_rel_error_code(reply, &code) || code != 1006 || !strstr(error_message(reply), what))
        fail_msg("expected 1006 naming %s, got %s", what, text);
    free(text);
    cJSON_Delete(reply);
}

static void record_kernel(sc_it_conn *c, int64_t s)
{
    sc_it_must_ok(c, "capture.record_kernel",
                  "{\"session\":%lld,\"stream\":0,\"function_name\":\"k\","
                  "\"num_blocks\":1,\"threads_per_block\":1}",
                  (long long)s);
}

static cJSON *try_record(sc_it_conn *c, int64_t s)
{
    cJSON *reply = NULL;
    assert_int_equal(sc_it_try_call(c, &reply, "capture.record_kernel",
                                    "{\"session\":%lld,\"stream\":0,\"function_name\":\"k\","
                                    "\"num_blocks\":1,\"threads_per_block\":1}",
                                    (long long)s),
                     0);
    return reply;
}

/* ---------------------------------------------- the other uid's client */

static int drop_privileges(void)
{
    if (setgroups(0, NULL) != 0 || setgid(OTHER_UID) != 0 || setuid(OTHER_UID) != 0)
        return -1;
    return getuid() == OTHER_UID && geteuid() == OTHER_UID ? 0 : -1;
}

/* Runs as OTHER_UID while root holds all its quotas allow: connect, open a
 * session, record, end.  Writes what went wrong to fd; exit status 0 when
 * nothing did. */
static int other_uid_client(int fd, const char *socket)
{
    char msg[1024] = "";
    sc_it_conn *c = NULL;
    cJSON *reply = NULL;
    int64_t s = 0, node = -1, graph = -1;
    if (drop_privileges() != 0) {
        snprintf(msg, sizeof(msg), "cannot switch to uid %u: %s", OTHER_UID, strerror(errno));
    } else if (sc_it_connect(socket, &c) != 0) {
        snprintf(msg, sizeof(msg), "uid %u cannot connect", OTHER_UID);
    } else if (sc_it_try_call(c, &reply, "session.open", "{\"label\":\"other\"}") != 0 ||
               !sc_rel_result_int(reply, "session", &s)) {
        char *t = sc_it_json_text(reply);
        snprintf(msg, sizeof(msg), "uid %u: session.open: %s", OTHER_UID, t);
        free(t);
    } else {
        cJSON_Delete(reply);
        reply = NULL;
        if (sc_it_try_call(c, &reply, "capture.begin", "{\"session\":%lld,\"stream\":0}",
                           (long long)s) != 0 ||
            !cJSON_GetObjectItemCaseSensitive(reply, "result")) {
            snprintf(msg, sizeof(msg), "uid %u: capture.begin failed", OTHER_UID);
        } else {
            cJSON_Delete(reply);
            reply = NULL;
            if (sc_it_try_call(c, &reply, "capture.record_kernel",
                               "{\"session\":%lld,\"stream\":0,\"function_name\":\"k\","
                               "\"num_blocks\":1,\"threads_per_block\":1}",
                               (long long)s) != 0 ||
                !sc_rel_result_int(reply, "node", &node)) {
                char *t = sc_it_json_text(reply);
                snprintf(msg, sizeof(msg), "uid %u: capture.record_kernel: %s", OTHER_UID, t);
                free(t);
            } else {
                cJSON_Delete(reply);
                reply = NULL;
                if (sc_it_try_call(c, &reply, "capture.end", "{\"session\":%lld,\"stream\":0}",
                                   (long long)s) != 0 ||
                    !sc_rel_result_int(reply, "graph", &graph))
                    snprintf(msg, sizeof(msg), "uid %u: capture.end failed", OTHER_UID);
            }
        }
    }
    cJSON_Delete(reply);
    if (c)
        sc_it_conn_close(c);
    if (msg[0]) {
        ssize_t w = write(fd, msg, strlen(msg));
        (void)w;
        return 1;
    }
    return 0;
}

/* What the other uid's client reported ("" when all went well). */
static char *as_other_uid(const char *socket)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        _exit(other_uid_client(fds[1], socket));
    }
    close(fds[1]);
    char *text = calloc(1, 2048);
    assert_non_null(text);
    size_t len = 0;
    ssize_t n;
    while (len < 2047 &&
           ((n = read(fds[0], text + len, 2047 - len)) > 0 || (n < 0 && errno == EINTR)))
        len += n > 0 ? (size_t)n : 0;
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 && len == 0))
        fail_msg("the uid %u client died (wait status 0x%x)", OTHER_UID, (unsigned)status);
    return text;
}

static void expect_other_uid_served(const sc_it_daemon *d, const char *while_what)
{
    char *problems = as_other_uid(sc_it_daemon_socket(d));
    if (problems[0])
        fail_msg("while %s: %s", while_what, problems);
    free(problems);
}

static bool other_uid_unmet(char *why, size_t len)
{
    if (geteuid() == 0)
        return false;
    snprintf(why, len, "needs root to run a client as uid %u", OTHER_UID);
    return true;
}

static void test_one_uid_leaves_room_for_another(void **state)
{
    static const char *const args[] = {"--socket-mode",
                                       "0666",
                                       "--max-connections",
                                       "8",
                                       "--max-sessions",
                                       "8",
                                       "--max-live-nodes",
                                       "40",
                                       NULL};
    sc_it_daemon *d = sc_rel_must_start(state, args);
    assert_int_equal(chmod(sc_it_daemon_dir(d), 0711), 0);

    /* Connections: root gets its six, the seventh is refused with a line
     * that names the quota, then EOF. */
    sc_it_conn *mine[UID_CONNS];
    for (int i = 0; i < UID_CONNS; i++) {
        mine[i] = sc_it_must_connect(d);
        cJSON_Delete(sc_it_must_result(mine[i], "server.info", NULL));
    }
    sc_it_conn *extra = sc_it_must_connect(d);
    cJSON *line = NULL;
    assert_int_equal(sc_it_recv_json(extra, &line), 0);
    expect_limit(line, "--max-uid-connections");
    assert_int_equal(sc_it_expect_eof(extra), 0);
    sc_it_conn_close(extra);
    expect_other_uid_served(d, "root holds its connection quota");

    /* Sessions: six through five connections, the seventh open is 1006. */
    int64_t s[UID_SESSIONS];
    for (int i = 0; i < UID_SESSIONS; i++) {
        s[i] = sc_it_open_session(mine[i % (UID_CONNS - 1)], "mine");
        sc_it_must_ok(mine[0], "capture.begin", "{\"session\":%lld,\"stream\":0}", (long long)s[i]);
    }
    cJSON *reply = NULL;
    assert_int_equal(sc_it_try_call(mine[0], &reply, "session.open", "{\"label\":\"one more\"}"),
                     0);
    expect_limit(reply, "--max-uid-sessions");
    /* The last free connection of root's quota is free for the other uid:
     * close one so the other uid's connection is not the global ninth. */
    sc_it_conn_close(mine[UID_CONNS - 1]);
    expect_other_uid_served(d, "root holds its session quota");

    /* Live nodes: thirty across the sessions, the next record is 1006,
     * and the other uid records all the same. */
    for (int i = 0; i < UID_NODES; i++)
        record_kernel(mine[0], s[i % UID_SESSIONS]);
    expect_limit(try_record(mine[0], s[0]), "--max-uid-nodes");
    expect_other_uid_served(d, "root holds its live-node quota");

    /* Ending a session gives its nodes back. */
    cJSON_Delete(sc_it_must_result(mine[0], "capture.end", "{\"session\":%lld,\"stream\":0}",
                                   (long long)s[0]));
    record_kernel(mine[0], s[1]);
    for (int i = 0; i < UID_CONNS - 1; i++)
        sc_it_conn_close(mine[i]);
    sc_it_must_stop(d);
}

/* ------------------------------------------- what is kept for root */

/* --max-connections 8, --max-sessions 8, --root-reserved 2: the uids
 * other than root hold six of each together, A four (its quota), B two. */
#define RESERVED_ARGS                                                                              \
    "--socket-mode", "0666", "--max-connections", "8", "--max-sessions", "8", "--root-reserved",   \
        "2", "--max-uid-connections", "4", "--max-uid-sessions", "4"
#define ROOT_KEPT 2

/* One uid's share: take `conns` connections and `sessions` sessions, and
 * see the next of each refused naming `conn_why` / `sess_why`. */
typedef struct uid_share {
    uint32_t uid;
    int conns, sessions;
    const char *conn_why, *sess_why;
} uid_share;

static bool refused_for(cJSON *reply, const char *why)
{
    int64_t code = 0;
    bool ok = sc_rel_error_code(reply, &code) && code == 1006 && strstr(error_message(reply), why);
    cJSON_Delete(reply);
    return ok;
}

static const char *take_share(const uid_share *u, const char *socket, sc_it_conn **c)
{
    for (int i = 0; i < u->conns; i++) {
        cJSON *reply = NULL;
        if (sc_it_connect(socket, &c[i]) != 0 ||
            sc_it_try_call(c[i], &reply, "server.info", "{}") != 0 ||
            !cJSON_GetObjectItemCaseSensitive(reply, "result")) {
            cJSON_Delete(reply);
            return "a connection within the share was not served";
        }
        cJSON_Delete(reply);
    }
    sc_it_conn *extra = NULL;
    cJSON *line = NULL;
    if (sc_it_connect(socket, &extra) != 0 || sc_it_recv_json(extra, &line) != 0 ||
        !refused_for(line, u->conn_why) || sc_it_expect_eof(extra) != 0) {
        if (extra)
            sc_it_conn_close(extra);
        return "the connection past the share was not refused as expected";
    }
    sc_it_conn_close(extra);
    for (int i = 0; i <= u->sessions; i++) {
        cJSON *reply = NULL;
        int64_t s;
        if (sc_it_try_call(c[i % u->conns], &reply, "session.open", "{}") != 0)
            return "session.open got no reply";
        if (i == u->sessions)
            return refused_for(reply, u->sess_why) ? NULL
                                                   : "the session past the share was not refused";
        bool opened = sc_rel_result_int(reply, "session", &s);
        cJSON_Delete(reply);
        if (!opened)
            return "a session within the share was refused";
    }
    return NULL;
}

/* The child: takes its share as u->uid, says "OK" (or what went wrong) on
 * `out`, and holds it until `hold` closes (at most a minute). */
static int hold_share(const uid_share *u, const char *socket, int out, int hold)
{
    sc_it_conn *c[8] = {0};
    const char *why = NULL;
    if (setgroups(0, NULL) != 0 || setgid(u->uid) != 0 || setuid(u->uid) != 0)
        why = "cannot switch uid";
    else
        why = take_share(u, socket, c);
    char msg[256];
    int n = snprintf(msg, sizeof msg, "%s\n", why ? why : "OK");
    ssize_t w = write(out, msg, (size_t)n);
    (void)w;
    struct pollfd p = {.fd = hold, .events = POLLIN};
    while (poll(&p, 1, 60000) < 0 && errno == EINTR) {
    }
    for (int i = 0; i < 8; i++)
        if (c[i])
            sc_it_conn_close(c[i]);
    return why ? 1 : 0;
}

/* Forks the holder of `u`'s share; returns its pid once it has taken it,
 * with *hold the descriptor whose close lets it go. */
static pid_t start_share(const uid_share *u, const char *socket, int *hold)
{
    int report[2], keep[2];
    assert_int_equal(pipe(report), 0);
    assert_int_equal(pipe(keep), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(report[0]);
        close(keep[1]);
        _exit(hold_share(u, socket, report[1], keep[0]));
    }
    close(report[1]);
    close(keep[0]);
    char text[256] = "";
    size_t len = 0;
    ssize_t n;
    while (
        len < sizeof text - 1 && !memchr(text, '\n', len) &&
        ((n = read(report[0], text + len, sizeof text - 1 - len)) > 0 || (n < 0 && errno == EINTR)))
        len += n > 0 ? (size_t)n : 0;
    close(report[0]);
    if (strcmp(text, "OK\n") != 0)
        fail_msg("uid %u: %s", (unsigned)u->uid, len ? text : "(died)");
    *hold = keep[1];
    return pid;
}

static void end_share(pid_t pid, int hold)
{
    close(hold);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Two uids other than root take every connection and session not kept for
 * root: the second is refused for the reserve, not for its own quota, and
 * root still connects, opens sessions and stores a graph. */
static void test_uids_together_leave_root_its_reserve(void **state)
{
    static const char *const args[] = {RESERVED_ARGS, NULL};
    sc_it_daemon *d = sc_rel_must_start(state, args);
    assert_int_equal(chmod(sc_it_daemon_dir(d), 0711), 0);
    const char *sock = sc_it_daemon_socket(d);
    const uid_share a = {OTHER_UID, 4, 4, "too many connections for uid", "session quota of uid"};
    const uid_share b = {OTHER_UID - 1, 2, 2, "--root-reserved", "--root-reserved"};
    int hold_a, hold_b;
    pid_t pa = start_share(&a, sock, &hold_a);
    pid_t pb = start_share(&b, sock, &hold_b);

    sc_it_conn *root[ROOT_KEPT];
    int64_t s[ROOT_KEPT];
    for (int i = 0; i < ROOT_KEPT; i++) {
        root[i] = sc_it_must_connect(d);
        cJSON_Delete(sc_it_must_result(root[i], "server.info", NULL));
        s[i] = sc_it_open_session(root[i], "root");
    }
    sc_it_must_ok(root[0], "capture.begin", "{\"session\":%lld,\"stream\":0}", (long long)s[0]);
    record_kernel(root[0], s[0]);
    cJSON_Delete(sc_it_must_result(root[0], "capture.end", "{\"session\":%lld,\"stream\":0}",
                                   (long long)s[0]));
    cJSON_Delete(sc_it_must_result(root[1], "graph.list", NULL));
    /* B last forked, first let go: it holds a copy of A's descriptor. */
    end_share(pb, hold_b);
    end_share(pa, hold_a);
    for (int i = 0; i < ROOT_KEPT; i++)
        sc_it_conn_close(root[i]);
    sc_it_must_stop(d);
}

/* Explicit quotas win over the defaults; a quota freed is usable again. */
static void test_explicit_quotas(void **state)
{
    static const char *const args[] = {
        "--max-uid-sessions", "2", "--max-uid-nodes", "3", "--max-uid-connections", "2", NULL};
    sc_it_daemon *d = sc_rel_must_start(state, args);
    sc_it_conn *c = sc_it_must_connect(d);
    int64_t a = sc_it_open_session(c, "a"), b = sc_it_open_session(c, "b");
    cJSON *reply = NULL;
    assert_int_equal(sc_it_try_call(c, &reply, "session.open", "{}"), 0);
    expect_limit(reply, "session quota of uid");
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":0}", (long long)a);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":0}", (long long)b);
    record_kernel(c, a);
    record_kernel(c, b);
    record_kernel(c, b);
    expect_limit(try_record(c, a), "live node quota of uid");
    sc_it_must_ok(c, "session.close", "{\"session\":%lld}", (long long)b);
    record_kernel(c, a);
    int64_t again = sc_it_open_session(c, "again");
    assert_true(again > b);
    sc_it_conn *c2 = sc_it_must_connect(d);
    cJSON_Delete(sc_it_must_result(c2, "server.info", NULL));
    sc_it_conn *c3 = sc_it_must_connect(d);
    cJSON *line = NULL;
    assert_int_equal(sc_it_recv_json(c3, &line), 0);
    expect_limit(line, "too many connections for uid");
    sc_it_conn_close(c3);
    sc_it_conn_close(c2);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
}

/* ------------------------------------------------------------ timeouts */

#define LINE_TIMEOUT_S 2
#define IDLE_TIMEOUT_S 2

static bool log_has(const sc_it_daemon *d, const char *what)
{
    char *log = sc_it_read_file(sc_it_daemon_stderr_path(d));
    bool found = log && strstr(log, what);
    free(log);
    return found;
}

/* A client sending a byte a second never ends its line: closed after
 * --line-timeout although bytes keep coming; a client that ends its lines
 * stays served throughout. */
static void test_partial_line_timeout(void **state)
{
    static const char *const args[] = {"--line-timeout", "2", "--connection-idle-timeout", "60",
                                       NULL};
    sc_it_daemon *d = sc_rel_must_start(state, args);
    sc_it_conn *good = sc_it_must_connect(d);
    int fd = sc_it_socket_connect(sc_it_daemon_socket(d));
    assert_true(fd >= 0);
    const char *req = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server.info\"}";
    int64_t t0 = sc_it_now_ms(), closed_at = -1;
    for (size_t i = 0; i < strlen(req) && closed_at < 0; i++) {
        if (send(fd, req + i, 1, MSG_NOSIGNAL) != 1) {
            closed_at = sc_it_now_ms();
            break;
        }
        cJSON_Delete(sc_it_must_result(good, "server.info", NULL));
        /* A closed connection reads EOF at once. */
        struct timeval tv = {.tv_sec = 1};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        char ch;
        ssize_t n = recv(fd, &ch, 1, 0);
        if (n == 0)
            closed_at = sc_it_now_ms();
        else if (n > 0)
            fail_msg("a reply to a line that never ended");
    }
    close(fd);
    if (closed_at < 0)
        fail_msg("a connection trickling a line for %lld ms was not closed",
                 (long long)(sc_it_now_ms() - t0));
    if (closed_at - t0 < LINE_TIMEOUT_S * 1000 - 100 ||
        closed_at - t0 > LINE_TIMEOUT_S * 1000 + 2500)
        fail_msg("closed after %lld ms, --line-timeout is %d s", (long long)(closed_at - t0),
                 LINE_TIMEOUT_S);
    assert_true(log_has(d, "without its end"));
    cJSON_Delete(sc_it_must_result(good, "server.info", NULL));
    sc_it_conn_close(good);
    sc_it_must_stop(d);
}

/* A connection with no session that sends nothing is closed after
 * --connection-idle-timeout; one whose live session it used is kept, and
 * so is one that keeps asking. */
static void test_idle_connection_timeout(void **state)
{
    static const char *const args[] = {"--connection-idle-timeout", "2", "--session-idle-timeout",
                                       "60", NULL};
    sc_it_daemon *d = sc_rel_must_start(state, args);
    sc_it_conn *idle = sc_it_must_connect(d);
    cJSON_Delete(sc_it_must_result(idle, "server.info", NULL));
    sc_it_conn *holder = sc_it_must_connect(d);
    int64_t s = sc_it_open_session(holder, "held");
    sc_it_conn *busy = sc_it_must_connect(d);
    int64_t t0 = sc_it_now_ms();
    while (sc_it_now_ms() - t0 < IDLE_TIMEOUT_S * 1000 + 2500) {
        cJSON_Delete(sc_it_must_result(busy, "server.info", NULL));
        struct timespec ts = {.tv_nsec = 250 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    sc_it_conn_set_timeout(idle, 1000);
    if (sc_it_expect_eof(idle) != 0)
        fail_msg("a connection idle without a session for %d s was not closed", IDLE_TIMEOUT_S + 2);
    assert_true(log_has(d, "without a session"));
    /* The session's connection still works, and so does the busy one. */
    cJSON_Delete(sc_it_must_result(holder, "session.info", "{\"session\":%lld}", (long long)s));
    cJSON_Delete(sc_it_must_result(busy, "server.info", NULL));
    /* Once its session is closed, it is an idle connection like any other. */
    sc_it_must_ok(holder, "session.close", "{\"session\":%lld}", (long long)s);
    sc_it_conn_set_timeout(holder, (IDLE_TIMEOUT_S + 3) * 1000);
    if (sc_it_expect_eof(holder) != 0)
        fail_msg("a connection whose session was closed was never closed as idle");
    sc_it_conn_close(holder);
    sc_it_conn_close(idle);
    sc_it_conn_close(busy);
    sc_it_must_stop(d);
}

/* A connection that has said nothing yet is idle from when it was accepted:
 * it is kept until the idle timeout, not cut at the first sweep. */
static void test_new_silent_connection_is_kept(void **state)
{
    static const char *const args[] = {"--connection-idle-timeout", "5", NULL};
    sc_it_daemon *d = sc_rel_must_start(state, args);
    sc_it_conn *quiet = sc_it_must_connect(d);
    struct timespec ts = {.tv_sec = 2, .tv_nsec = 500 * 1000 * 1000};
    nanosleep(&ts, NULL);
    cJSON_Delete(sc_it_must_result(quiet, "server.info", NULL));
    assert_false(log_has(d, "without a session"));
    sc_it_conn_close(quiet);
    sc_it_must_stop(d);
}

/* ------------------------------------------------------- big replies */

#define BIG_KERNELS     20000
#define REPLY_BUDGET_MB 16
#define NON_READERS     30

/* Clients that each ask for one big graph.get and never read have at most
 * --reply-budget of replies queued between them; the others get 1006
 * naming the budget; a reader gets its whole reply once there is room. */
static void test_big_replies_within_budget(void **state)
{
    static const char *const args[] = {
        "--reply-budget", "16M", "--max-conn-output", "8M", "--write-timeout", "60", NULL};
    sc_it_daemon *d = sc_rel_must_start(state, args);
    pid_t pid = sc_it_daemon_pid(d);
    sc_it_conn *reader = sc_it_must_connect(d);
    int64_t nodes;
    int64_t g = sc_rel_must_graph(reader, "big", BIG_KERNELS, &nodes, NULL);
    char *req = sc_it_fmt("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"graph.get\","
                          "\"params\":{\"graph\":%lld}}\n",
                          (long long)g);
    /* The size of one reply, read whole. */
    assert_int_equal(sc_it_send(reader, req, strlen(req)), 0);
    char *line = NULL;
    size_t reply_len = 0;
    assert_int_equal(sc_it_recv_line(reader, &line, &reply_len), 0);
    free(line);
    assert_true(reply_len > 1u << 20);
    cJSON_Delete(sc_it_must_result(reader, "server.info", NULL));
    long base = sc_rel_rss_kib(pid);

    int fds[NON_READERS];
    for (int i = 0; i < NON_READERS; i++) {
        fds[i] = sc_it_socket_connect(sc_it_daemon_socket(d));
        assert_true(fds[i] >= 0);
        int small = 4096;
        setsockopt(fds[i], SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
        assert_int_equal(send(fds[i], req, strlen(req), MSG_NOSIGNAL), (ssize_t)strlen(req));
    }
    long peak = base;
    for (int i = 0; i < 20; i++) {
        cJSON_Delete(sc_it_must_result(reader, "server.info", NULL));
        long rss = sc_rel_rss_kib(pid);
        peak = rss > peak ? rss : peak;
        sc_it_sleep_ms(100);
    }
    /* Printed here; test_rel_replies bounds it with replies big enough
     * that the bound means something (docs/reliability.md). */
    print_message("%d clients not reading %zu-byte replies: daemon RSS %ld KiB -> peak %ld KiB\n",
                  NON_READERS, reply_len, base, peak);

    /* The budget is taken: a reader is told so, and to retry. */
    cJSON *reply = NULL;
    assert_int_equal(sc_it_try_call(reader, &reply, "graph.get", "{\"graph\":%lld}", (long long)g),
                     0);
    expect_limit(reply, "--reply-budget");
    assert_true(log_has(d, "--reply-budget"));

    /* Once the non-readers leave, the reader gets its whole reply. */
    for (int i = 0; i < NON_READERS; i++)
        close(fds[i]);
    int64_t t0 = sc_it_now_ms();
    for (;;) {
        reply = NULL;
        assert_int_equal(
            sc_it_try_call(reader, &reply, "graph.get", "{\"graph\":%lld}", (long long)g), 0);
        const cJSON *res = cJSON_GetObjectItemCaseSensitive(reply, "result");
        if (res) {
            assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(res, "nodes")),
                             nodes);
            cJSON_Delete(reply);
            break;
        }
        cJSON_Delete(reply);
        if (sc_it_now_ms() - t0 > 5000)
            fail_msg("the budget was not given back within 5 s of the non-readers leaving");
        sc_it_sleep_ms(100);
    }
    free(req);
    sc_it_conn_close(reader);
    sc_it_must_stop(d);
}

/* A reply bigger than --max-conn-output is refused with an error naming
 * it; the connection stays usable. */
static void test_reply_over_connection_bound(void **state)
{
    static const char *const args[] = {"--max-conn-output", "1M", NULL};
    sc_it_daemon *d = sc_rel_must_start(state, args);
    sc_it_conn *c = sc_it_must_connect(d);
    int64_t g = sc_rel_must_graph(c, "big", BIG_KERNELS, NULL, NULL);
    cJSON *reply = NULL;
    assert_int_equal(sc_it_try_call(c, &reply, "graph.get", "{\"graph\":%lld}", (long long)g), 0);
    expect_limit(reply, "--max-conn-output");
    cJSON_Delete(sc_it_must_result(c, "server.info", NULL));
    sc_it_conn_close(c);
    sc_it_must_stop(d);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        SC_REL_TEST(test_one_uid_leaves_room_for_another),
        SC_REL_TEST(test_uids_together_leave_root_its_reserve),
        SC_REL_TEST(test_explicit_quotas),
        SC_REL_TEST(test_partial_line_timeout),
        SC_REL_TEST(test_idle_connection_timeout),
        SC_REL_TEST(test_new_silent_connection_is_kept),
        SC_REL_TEST(test_big_replies_within_budget),
        SC_REL_TEST(test_reply_over_connection_bound),
    };
    const sc_test_need needs[] = {{"test_one_uid_leaves_room_for_another", other_uid_unmet},
                                  {"test_uids_together_leave_root_its_reserve", other_uid_unmet}};
    return SC_TEST_MAIN(argc, argv, tests, needs);
}
