/*
 * Ownership between uids.  The test runs as root and forks a client that
 * drops to an unprivileged uid (nobody, 65534).  That client gets for
 * every session and graph method on root's ids exactly the error a
 * missing id gets (1001, the same object but for the id), root's graph is
 * not loaded into the cache by its requests, it sees none of root's rows
 * in graph.list or log.list, and its refused calls change nothing: root's
 * session keeps its state and root can still end it.  The socket file is
 * created with --socket-mode, and with the default 0600 the other uid
 * cannot connect at all.  server.info shows that uid only its own
 * connections, sessions and graphs, not where the database is, and 0 for
 * the daemon-wide db_bytes and cache figures.  Its log.subscribe hears
 * only its own events while root's hears both uids'.
 *
 * Exit status 77 (skipped) when not run as root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rel_util.h"

#define OTHER_UID  65534u
#define ROOT_LABEL "root-private"
/* An id no test object has: its decimal form occurs nowhere else in a reply. */
#define MISSING_ID 987654321LL

/* ------------------------------------------------ the unprivileged child */

typedef struct report {
    int fd;
    int problems;
} report;

static void problem(report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void problem(report *r, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof(buf) - 2)
        n = (int)sizeof(buf) - 2;
    buf[n++] = '\n';
    /* A lost report still fails the test through the exit status. */
    ssize_t w = write(r->fd, buf, (size_t)n);
    (void)w;
    r->problems++;
}

/* The error object of `method` with params `fmt` % id, printed; NULL (and
 * a problem) when the reply is not an error. */
static char *error_text(report *r, sc_it_conn *c, const char *method, const char *fmt, long long id)
{
    char p[512];
    snprintf(p, sizeof(p), fmt, id);
    cJSON *reply = NULL;
    int rc = sc_it_try_call(c, &reply, method, "%s", p);
    const cJSON *err = rc == 0 ? cJSON_GetObjectItemCaseSensitive(reply, "error") : NULL;
    char *text = err ? cJSON_PrintUnformatted(err) : NULL;
    if (!text) {
        char *all = sc_it_json_text(reply);
        problem(r, "uid %u: %s %s: expected an error, got rc %d reply %s", OTHER_UID, method, p, rc,
                all);
        free(all);
    }
    cJSON_Delete(reply);
    return text;
}

/* `s` with every MISSING_ID replaced by `id`, in a static buffer. */
static const char *with_id(const char *s, long long id)
{
    static char out[2048];
    char from[32], to[32];
    snprintf(from, sizeof from, "%lld", MISSING_ID);
    snprintf(to, sizeof to, "%lld", id);
    size_t n = 0;
    while (*s && n + strlen(to) + 1 < sizeof out) {
        if (strncmp(s, from, strlen(from)) == 0) {
            n += (size_t)snprintf(out + n, sizeof out - n, "%s", to);
            s += strlen(from);
        } else {
            out[n++] = *s++;
        }
    }
    out[n] = '\0';
    return out;
}

/* Call on root's object `id` and on a missing one: the two errors must be
 * the same 1001 object but for the id, so nothing tells them apart. */
static void expect_hidden(report *r, sc_it_conn *c, const char *method, const char *fmt,
                          long long id)
{
    char *hidden = error_text(r, c, method, fmt, id);
    char *missing = error_text(r, c, method, fmt, MISSING_ID);
    if (hidden && missing) {
        const char *want = with_id(missing, id);
        cJSON *e = cJSON_Parse(hidden);
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(e, "code");
        if (strcmp(hidden, want) != 0 || !cJSON_IsNumber(code) || code->valuedouble != 1001)
            problem(r,
                    "uid %u: %s on root's %lld answers %s, on a missing id %s (want it as "
                    "1001 not found, the same but for the id)",
                    OTHER_UID, method, id, hidden, missing);
        cJSON_Delete(e);
    }
    free(hidden);
    free(missing);
}

static cJSON *expect_result(report *r, sc_it_conn *c, const char *method, const char *params)
{
    cJSON *reply = NULL;
    int rc = sc_it_try_call(c, &reply, method, "%s", params);
    cJSON *res = rc == 0 ? cJSON_DetachItemFromObjectCaseSensitive(reply, "result") : NULL;
    if (!res) {
        char *text = sc_it_json_text(reply);
        problem(r, "uid %u: %s %s: expected a result, got rc %d reply %s", OTHER_UID, method,
                params, rc, text);
        free(text);
    }
    cJSON_Delete(reply);
    return res;
}

/* Every entry of list[member] must belong to OTHER_UID; returns the count. */
static int only_own_rows(report *r, const cJSON *res, const char *member, const char *id_name,
                         int64_t foreign_id)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(res, member);
    if (!cJSON_IsArray(list)) {
        problem(r, "uid %u: result without a %s array", OTHER_UID, member);
        return -1;
    }
    const cJSON *e;
    int n = 0;
    cJSON_ArrayForEach(e, list)
    {
        int64_t uid = -1, id = -1;
        sc_it_json_int(e, "owner_uid", &uid);
        sc_it_json_int(e, id_name, &id);
        if (uid != OTHER_UID || id == foreign_id) {
            char *text = sc_it_json_text(e);
            problem(r, "uid %u sees a row it does not own in %s: %s", OTHER_UID, member, text);
            free(text);
        }
        n++;
    }
    return n;
}

static void child_checks(report *r, const char *socket, int64_t s, int64_t g)
{
    sc_it_conn *c;
    int rc = sc_it_connect(socket, &c);
    if (rc != 0) {
        problem(r, "uid %u cannot connect to %s (mode 0666): %s", OTHER_UID, socket, strerror(-rc));
        return;
    }
    const char *sess_methods[][2] = {
        {"session.info", "{\"session\":%lld}"},
        {"session.close", "{\"session\":%lld}"},
        {"capture.begin", "{\"session\":%lld,\"stream\":1}"},
        {"capture.record_kernel", "{\"session\":%lld,\"stream\":0,\"function_name\":\"x\","
                                  "\"num_blocks\":1,\"threads_per_block\":1}"},
        {"capture.record_memcpy", "{\"session\":%lld,\"stream\":0,\"name\":\"x\","
                                  "\"dir\":\"host_to_device\",\"size_bytes\":1}"},
        {"capture.record_memset",
         "{\"session\":%lld,\"stream\":0,\"name\":\"x\",\"size_bytes\":1,\"value\":0}"},
        {"capture.record_host_callback", "{\"session\":%lld,\"stream\":0,\"label\":\"x\"}"},
        {"capture.record_event", "{\"session\":%lld,\"stream\":0,\"event\":1}"},
        {"capture.wait_event", "{\"session\":%lld,\"stream\":0,\"event\":1}"},
        {"capture.status", "{\"session\":%lld,\"stream\":0}"},
        {"capture.is_capturing", "{\"session\":%lld}"},
        {"capture.node_count", "{\"session\":%lld}"},
        {"capture.invalidate", "{\"session\":%lld,\"stream\":0}"},
        {"capture.end", "{\"session\":%lld,\"stream\":0}"},
    };
    for (size_t i = 0; i < sizeof(sess_methods) / sizeof(sess_methods[0]); i++)
        expect_hidden(r, c, sess_methods[i][0], sess_methods[i][1], (long long)s);
    const char *graph_methods[][2] = {
        {"graph.get", "{\"graph\":%lld}"},
        {"graph.reachable", "{\"graph\":%lld,\"from\":0,\"to\":1}"},
        {"graph.reachable", "{\"graph\":%lld,\"pairs\":[[0,1],[1,0]]}"},
        {"graph.export", "{\"graph\":%lld,\"format\":\"dot\"}"},
        {"graph.stats", "{\"graph\":%lld}"},
        {"graph.races", "{\"graph\":%lld}"},
        {"graph.delete", "{\"graph\":%lld}"},
        /* The owner is checked before anything else is: bad parameters on
         * someone else's graph answer as on a missing one. */
        {"graph.export", "{\"graph\":%lld,\"format\":\"svg\"}"},
        {"graph.export", "{\"graph\":%lld}"},
        {"graph.reachable", "{\"graph\":%lld,\"pairs\":[[0]]}"},
        {"graph.reachable", "{\"graph\":%lld,\"pairs\":[[0,1]],\"from\":0}"},
        {"graph.reachable", "{\"graph\":%lld}"},
        {"graph.races", "{\"graph\":%lld,\"limit\":-1}"},
    };
    for (size_t i = 0; i < sizeof(graph_methods) / sizeof(graph_methods[0]); i++)
        expect_hidden(r, c, graph_methods[i][0], graph_methods[i][1], (long long)g);

    /* Lists: nothing of root's, whatever the filter. */
    cJSON *res = expect_result(r, c, "graph.list", "{\"limit\":10000}");
    if (res && only_own_rows(r, res, "graphs", "graph", g) != 0)
        problem(r, "uid %u: graph.list is not empty before it stored anything", OTHER_UID);
    cJSON_Delete(res);
    res = expect_result(r, c, "graph.list", "{\"label\":\"" ROOT_LABEL "\"}");
    if (res && only_own_rows(r, res, "graphs", "graph", g) != 0)
        problem(r, "uid %u: graph.list by root's label is not empty", OTHER_UID);
    cJSON_Delete(res);
    res = expect_result(r, c, "log.list", "{\"limit\":10000}");
    if (res && only_own_rows(r, res, "entries", "session", s) != 0)
        problem(r, "uid %u: log.list is not empty before it opened anything", OTHER_UID);
    cJSON_Delete(res);
    sc_it_conn_close(c);
}

/* Its own work goes through and is listed as its own. */
static void child_own_work(report *r, const char *socket, int64_t s, int64_t g)
{
    sc_it_conn *c;
    int rc = sc_it_connect(socket, &c);
    if (rc != 0) {
        problem(r, "uid %u cannot connect to %s (mode 0666): %s", OTHER_UID, socket, strerror(-rc));
        return;
    }
    char p[512];
    cJSON *res = expect_result(r, c, "session.open", "{\"label\":\"nobody's\"}");
    int64_t own = 0;
    if (!res || !sc_it_json_int(res, "session", &own))
        problem(r, "uid %u: session.open gave no session", OTHER_UID);
    cJSON_Delete(res);
    snprintf(p, sizeof(p), "{\"session\":%lld,\"stream\":0}", (long long)own);
    cJSON_Delete(expect_result(r, c, "capture.begin", p));
    snprintf(p, sizeof(p),
             "{\"session\":%lld,\"stream\":0,\"function_name\":\"mine\",\"num_blocks\":1,"
             "\"threads_per_block\":1}",
             (long long)own);
    cJSON_Delete(expect_result(r, c, "capture.record_kernel", p));
    snprintf(p, sizeof(p), "{\"session\":%lld,\"stream\":0}", (long long)own);
    res = expect_result(r, c, "capture.end", p);
    int64_t own_graph = 0;
    if (!res || !sc_it_json_int(res, "graph", &own_graph))
        problem(r, "uid %u: capture.end gave no graph", OTHER_UID);
    cJSON_Delete(res);
    snprintf(p, sizeof(p), "{\"graph\":%lld}", (long long)own_graph);
    res = expect_result(r, c, "graph.get", p);
    int64_t uid = -1;
    if (!res || !sc_it_json_int(res, "owner_uid", &uid) || uid != OTHER_UID)
        problem(r, "uid %u: its own graph %lld has owner_uid %lld", OTHER_UID, (long long)own_graph,
                (long long)uid);
    cJSON_Delete(res);
    res = expect_result(r, c, "graph.list", "{}");
    if (res && only_own_rows(r, res, "graphs", "graph", g) != 1)
        problem(r, "uid %u: graph.list does not hold exactly its own graph", OTHER_UID);
    cJSON_Delete(res);
    res = expect_result(r, c, "log.list", "{}");
    if (res && only_own_rows(r, res, "entries", "session", s) != 1)
        problem(r, "uid %u: log.list does not hold exactly its own session", OTHER_UID);
    cJSON_Delete(res);
    sc_it_conn_close(c);
}

static int drop_privileges(void)
{
    if (setgroups(0, NULL) != 0 || setgid(OTHER_UID) != 0 || setuid(OTHER_UID) != 0)
        return -1;
    return getuid() == OTHER_UID && geteuid() == OTHER_UID && setuid(0) != 0 ? 0 : -1;
}

/* Run `fn` as OTHER_UID in a child; returns what it reported ("" if nothing). */
typedef void (*child_fn)(report *r, const char *socket, int64_t s, int64_t g);

static char *as_other_uid(child_fn fn, const char *socket, int64_t s, int64_t g)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        report r = {.fd = fds[1]};
        if (drop_privileges() != 0)
            problem(&r, "cannot switch to uid %u: %s", OTHER_UID, strerror(errno));
        else
            fn(&r, socket, s, g);
        _exit(r.problems ? 1 : 0);
    }
    close(fds[1]);
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    for (;;) {
        if (cap - len < 1024) {
            cap *= 2;
            text = realloc(text, cap);
            assert_non_null(text);
        }
        ssize_t n = read(fds[0], text + len, cap - len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    text[len] = '\0';
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 && len == 0))
        fail_msg("the uid %u client died (wait status 0x%x)", OTHER_UID, (unsigned)status);
    return text;
}

/* --------------------------------------------------------------- root */

/* server.info's cache figures, as root: entries, misses, bytes. */
static void cache_figures(sc_it_conn *c, int64_t out[3])
{
    cJSON *info = sc_it_must_result(c, "server.info", NULL);
    out[0] = sc_it_int(info, "cache_entries");
    out[1] = sc_it_int(info, "cache_misses");
    out[2] = sc_it_int(info, "cache_bytes");
    cJSON_Delete(info);
}

static void test_other_uid_learns_nothing(void **state)
{
    static const char *const args[] = {"--socket-mode", "0666", NULL};
    sc_it_daemon *d = sc_rel_must_start(state, args);
    assert_int_equal(chmod(sc_it_daemon_dir(d), 0711), 0);
    struct stat st;
    assert_int_equal(stat(sc_it_daemon_socket(d), &st), 0);
    if ((st.st_mode & 0777) != 0666)
        fail_msg("--socket-mode 0666: the socket file has mode %04o", st.st_mode & 0777);

    sc_it_conn *c = sc_it_must_connect(d);
    /* Big enough that loading it would show in the cache's bytes. */
    int64_t g = sc_rel_must_graph(c, ROOT_LABEL, 2000, NULL, NULL);
    long long s = (long long)sc_it_open_session(c, ROOT_LABEL);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":0}", s);
    sc_it_must_ok(c, "capture.record_kernel",
                  "{\"session\":%lld,\"stream\":0,\"function_name\":\"r\","
                  "\"num_blocks\":2,\"threads_per_block\":2}",
                  s);

    int64_t before[3], after[3];
    cache_figures(c, before);
    char *problems = as_other_uid(child_checks, sc_it_daemon_socket(d), s, g);
    if (problems[0])
        fail_msg("%s", problems);
    free(problems);
    /* Ownership came from metadata: root's graph was never loaded. */
    cache_figures(c, after);
    if (memcmp(before, after, sizeof before) != 0)
        fail_msg("uid %u's refused requests loaded root's graph: cache entries %lld -> %lld, "
                 "misses %lld -> %lld, bytes %lld -> %lld",
                 OTHER_UID, (long long)before[0], (long long)after[0], (long long)before[1],
                 (long long)after[1], (long long)before[2], (long long)after[2]);
    problems = as_other_uid(child_own_work, sc_it_daemon_socket(d), s, g);
    if (problems[0])
        fail_msg("%s", problems);
    free(problems);

    /* Refused calls changed nothing: one stream, active, one node. */
    cJSON *info = sc_it_must_result(c, "session.info", "{\"session\":%lld}", s);
    assert_true(sc_it_bool(info, "capturing"));
    assert_int_equal(sc_it_int(info, "node_count"), 1);
    const cJSON *streams = cJSON_GetObjectItemCaseSensitive(info, "streams");
    assert_int_equal(cJSON_GetArraySize(streams), 1);
    assert_string_equal(sc_it_str(cJSON_GetArrayItem(streams, 0), "status"), "active");
    cJSON_Delete(info);
    /* The refused capture.end did not consume it: root ends it. */
    cJSON *end = sc_it_must_result(c, "capture.end", "{\"session\":%lld,\"stream\":0}", s);
    assert_int_equal(sc_it_int(end, "node_count"), 1);
    cJSON_Delete(end);
    /* The refused graph.delete deleted nothing. */
    sc_it_must_ok(c, "graph.get", "{\"graph\":%lld}", (long long)g);

    /* Root sees every user's rows. */
    cJSON *list = sc_it_must_result(c, "graph.list", "{}");
    const cJSON *e;
    bool saw_other = false;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(list, "graphs"))
    {
        saw_other = saw_other || sc_it_int(e, "owner_uid") == OTHER_UID;
    }
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(list, "graphs")), 3);
    assert_true(saw_other);
    cJSON_Delete(list);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
}

/* ------------------------------------------------------ server.info */

/* server.info as OTHER_UID must count only its own connections, live
 * sessions and stored graphs, and never say where the database is. */
static void expect_own_info(report *r, sc_it_conn *c, int64_t conns, int64_t sessions,
                            int64_t graphs, const char *when)
{
    cJSON *res = expect_result(r, c, "server.info", "{}");
    if (!res)
        return;
    int64_t n[3] = {-1, -1, -1};
    sc_it_json_int(res, "connections", &n[0]);
    sc_it_json_int(res, "sessions", &n[1]);
    sc_it_json_int(res, "graphs", &n[2]);
    if (n[0] != conns || n[1] != sessions || n[2] != graphs) {
        char *text = sc_it_json_text(res);
        problem(r,
                "uid %u %s: server.info should count connections %lld, sessions %lld, "
                "graphs %lld (its own), got %s",
                OTHER_UID, when, (long long)conns, (long long)sessions, (long long)graphs, text);
        free(text);
    }
    if (cJSON_GetObjectItemCaseSensitive(res, "db_path"))
        problem(r, "uid %u %s: server.info shows db_path", OTHER_UID, when);
    /* The daemon-wide figures are every uid's work together: shown as 0. */
    static const char *const wide[] = {"db_bytes", "cache_bytes", "cache_entries", "cache_hits",
                                       "cache_misses"};
    for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++) {
        int64_t v = -1;
        if (!sc_it_json_int(res, wide[i], &v) || v != 0)
            problem(r, "uid %u %s: server.info shows the daemon's %s: %lld (want 0)", OTHER_UID,
                    when, wide[i], (long long)v);
    }
    cJSON_Delete(res);
}

/* Root holds 2 connections, 1 live session and `g` graphs meanwhile. */
static void child_info(report *r, const char *socket, int64_t s, int64_t g)
{
    (void)s;
    (void)g;
    sc_it_conn *c, *c2;
    if (sc_it_connect(socket, &c) != 0) {
        problem(r, "uid %u cannot connect to %s", OTHER_UID, socket);
        return;
    }
    expect_own_info(r, c, 1, 0, 0, "before any work");
    cJSON *res = expect_result(r, c, "session.open", "{\"label\":\"mine\"}");
    int64_t own = 0;
    if (!res || !sc_it_json_int(res, "session", &own))
        problem(r, "uid %u: session.open gave no session", OTHER_UID);
    cJSON_Delete(res);
    if (sc_it_connect(socket, &c2) != 0) {
        problem(r, "uid %u cannot connect twice", OTHER_UID);
        sc_it_conn_close(c);
        return;
    }
    expect_own_info(r, c2, 2, 1, 0, "with a session open");
    char p[256];
    snprintf(p, sizeof(p), "{\"session\":%lld,\"stream\":0}", (long long)own);
    cJSON_Delete(expect_result(r, c, "capture.begin", p));
    snprintf(p, sizeof(p),
             "{\"session\":%lld,\"stream\":0,\"function_name\":\"k\",\"num_blocks\":1,"
             "\"threads_per_block\":1}",
             (long long)own);
    cJSON_Delete(expect_result(r, c, "capture.record_kernel", p));
    snprintf(p, sizeof(p), "{\"session\":%lld,\"stream\":0}", (long long)own);
    cJSON_Delete(expect_result(r, c, "capture.end", p));
    expect_own_info(r, c2, 2, 0, 1, "after storing a graph");
    sc_it_conn_close(c2);
    sc_it_conn_close(c);
}

/* After a restart the per-uid count is read back from the database. */
static void child_info_after_restart(report *r, const char *socket, int64_t s, int64_t g)
{
    (void)s;
    (void)g;
    sc_it_conn *c;
    if (sc_it_connect(socket, &c) != 0) {
        problem(r, "uid %u cannot connect to %s", OTHER_UID, socket);
        return;
    }
    expect_own_info(r, c, 1, 0, 1, "after a restart");
    sc_it_conn_close(c);
}

static void test_server_info_shows_own_share(void **state)
{
    static const char *const args[] = {"--socket-mode", "0666", NULL};
    sc_it_daemon *d = sc_rel_must_start(state, args);
    assert_int_equal(chmod(sc_it_daemon_dir(d), 0711), 0);
    sc_it_conn *c = sc_it_must_connect(d);
    sc_it_conn *c2 = sc_it_must_connect(d);
    sc_rel_must_graph(c, ROOT_LABEL, 4, NULL, NULL);
    int64_t g = sc_rel_must_graph(c, ROOT_LABEL, 4, NULL, NULL);
    sc_it_open_session(c, ROOT_LABEL);
    /* Root's read fills the cache, so its figures are not 0. */
    sc_it_must_ok(c, "graph.get", "{\"graph\":%lld}", (long long)g);

    char *problems = as_other_uid(child_info, sc_it_daemon_socket(d), 0, 0);
    if (problems[0])
        fail_msg("%s", problems);
    free(problems);

    /* Root still sees the whole daemon, database path included. */
    cJSON *info = sc_it_must_result(c, "server.info", NULL);
    assert_int_equal(sc_it_int(info, "graphs"), 3);
    assert_int_equal(sc_it_int(info, "sessions"), 1);
    assert_true(sc_it_int(info, "connections") >= 2);
    assert_string_equal(sc_it_str(info, "db_path"), sc_it_daemon_db(d));
    assert_true(sc_it_int(info, "db_bytes") > 0);
    assert_true(sc_it_int(info, "cache_entries") >= 1);
    assert_true(sc_it_int(info, "cache_misses") >= 1);
    cJSON_Delete(info);
    /* A delete is counted against its owner only. */
    sc_it_must_ok(c, "graph.delete", "{\"graph\":%lld}", (long long)g);
    sc_it_conn_close(c2);
    sc_it_conn_close(c);
    sc_it_must_stop(d);

    sc_it_must_restart(d, args);
    problems = as_other_uid(child_info_after_restart, sc_it_daemon_socket(d), 0, 0);
    if (problems[0])
        fail_msg("%s", problems);
    free(problems);
    c = sc_it_must_connect(d);
    info = sc_it_must_result(c, "server.info", NULL);
    assert_int_equal(sc_it_int(info, "graphs"), 2);
    cJSON_Delete(info);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
}

static void child_connect_refused(report *r, const char *socket, int64_t s, int64_t g)
{
    (void)s;
    (void)g;
    sc_it_conn *c;
    int rc = sc_it_connect(socket, &c);
    if (rc == 0) {
        problem(r, "uid %u connected to a socket created with the default mode 0600", OTHER_UID);
        sc_it_conn_close(c);
    } else if (rc != -EACCES) {
        problem(r, "uid %u: connecting to a 0600 socket failed with %s, expected EACCES", OTHER_UID,
                strerror(-rc));
    }
}

static void test_default_socket_mode_keeps_others_out(void **state)
{
    sc_it_daemon *d = sc_rel_must_start(state, NULL);
    assert_int_equal(chmod(sc_it_daemon_dir(d), 0711), 0);
    struct stat st;
    assert_int_equal(stat(sc_it_daemon_socket(d), &st), 0);
    if ((st.st_mode & 0777) != 0600)
        fail_msg("default --socket-mode: the socket file has mode %04o, expected 0600",
                 st.st_mode & 0777);
    char *problems = as_other_uid(child_connect_refused, sc_it_daemon_socket(d), 0, 0);
    if (problems[0])
        fail_msg("%s", problems);
    free(problems);
    sc_it_must_stop(d);
}

/* ------------------------------------------------------ log.subscribe */

/* The next log.event's params on `c`, or NULL (and a problem). */
static cJSON *next_event(report *r, sc_it_conn *c)
{
    cJSON *n = NULL;
    if (sc_it_recv_json(c, &n) != 0 || !n) {
        problem(r, "uid %u: no log.event arrived on its subscription", OTHER_UID);
        return NULL;
    }
    cJSON *p = cJSON_DetachItemFromObjectCaseSensitive(n, "params");
    cJSON_Delete(n);
    return p;
}

/* As OTHER_UID: subscribe, say so on fd `ready`, wait on fd `go` until
 * root has captured and stored a graph, then open and close a session
 * of its own.  Events arrive in commit order, so any of root's events that
 * leaked would come before this uid's session_opened. */
static void child_listens(report *r, const char *socket, int64_t ready, int64_t go)
{
    sc_it_conn *sub, *c;
    if (sc_it_connect(socket, &sub) != 0 || sc_it_connect(socket, &c) != 0) {
        problem(r, "uid %u cannot connect to %s", OTHER_UID, socket);
        return;
    }
    cJSON_Delete(expect_result(r, sub, "log.subscribe", "{}"));
    char byte = 'r';
    ssize_t w = write((int)ready, &byte, 1), n = w == 1 ? read((int)go, &byte, 1) : -1;
    if (w != 1 || n != 1) {
        problem(r, "uid %u: the handshake with root broke (write %zd, read %zd: %s)", OTHER_UID, w,
                n, strerror(errno));
        return;
    }
    cJSON *res = expect_result(r, c, "session.open", "{\"label\":\"nobody's\"}");
    int64_t own = 0;
    if (!res || !sc_it_json_int(res, "session", &own))
        problem(r, "uid %u: session.open gave no session", OTHER_UID);
    cJSON_Delete(res);
    char p[128];
    snprintf(p, sizeof p, "{\"session\":%lld}", (long long)own);
    cJSON_Delete(expect_result(r, c, "session.close", p));
    static const char *const want[] = {"session_opened", "session_ended"};
    for (int i = 0; i < 2; i++) {
        cJSON *e = next_event(r, sub);
        int64_t session = -1, uid = -1;
        const cJSON *ev = cJSON_GetObjectItemCaseSensitive(e, "event");
        if (e && (!cJSON_IsString(ev) || strcmp(ev->valuestring, want[i]) != 0 ||
                  !sc_it_json_int(e, "session", &session) || session != own ||
                  !sc_it_json_int(e, "uid", &uid) || uid != OTHER_UID)) {
            char *text = cJSON_PrintUnformatted(e);
            problem(r,
                    "uid %u: event %d of its subscription is %s, want its own %s of session %lld",
                    OTHER_UID, i + 1, text, want[i], (long long)own);
            free(text);
        }
        cJSON_Delete(e);
    }
    sc_it_conn_close(c);
    sc_it_conn_close(sub);
}

/* The live log tells each uid only its own events; root hears everyone's. */
static void test_subscriber_hears_only_its_uid(void **state)
{
    static const char *const args[] = {"--socket-mode", "0666", NULL};
    sc_it_daemon *d = sc_rel_must_start(state, args);
    assert_int_equal(chmod(sc_it_daemon_dir(d), 0711), 0);
    sc_it_conn *rsub = sc_it_must_connect(d), *c = sc_it_must_connect(d);
    sc_it_must_ok(rsub, "log.subscribe", "{}");
    int ready[2], go[2];
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(go), 0);
    /* The child's handshake ends run while as_other_uid collects its report. */
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(ready[0]);
        close(go[1]);
        char *problems = as_other_uid(child_listens, sc_it_daemon_socket(d), ready[1], go[0]);
        int bad = problems[0] != '\0';
        if (bad)
            fprintf(stderr, "%s", problems);
        free(problems);
        _exit(bad);
    }
    close(ready[1]);
    close(go[0]);
    char byte;
    assert_int_equal(read(ready[0], &byte, 1), 1);
    long long s = (long long)sc_it_open_session(c, ROOT_LABEL);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":0}", s);
    sc_it_must_ok(c, "capture.record_kernel",
                  "{\"session\":%lld,\"stream\":0,\"function_name\":\"r\","
                  "\"num_blocks\":1,\"threads_per_block\":1}",
                  s);
    sc_it_must_ok(c, "capture.end", "{\"session\":%lld,\"stream\":0}", s);
    assert_int_equal(write(go[1], "g", 1), 1);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    close(ready[0]);
    close(go[1]);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("the uid %u subscriber heard other than its own events (wait status 0x%x)",
                 OTHER_UID, (unsigned)status);
    /* Root's subscriber heard both uids. */
    bool root_seen = false, other_seen = false;
    while (!(root_seen && other_seen)) {
        cJSON *n = NULL;
        assert_int_equal(sc_it_recv_json(rsub, &n), 0);
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(n, "params");
        int64_t uid = sc_it_int(p, "uid");
        root_seen = root_seen || uid == 0;
        other_seen = other_seen || uid == OTHER_UID;
        cJSON_Delete(n);
    }
    sc_it_conn_close(c);
    sc_it_conn_close(rsub);
    sc_it_must_stop(d);
}

int main(void)
{
    if (geteuid() != 0) {
        printf("test_rel_owner: skipped: needs root to switch a client to uid %u\n", OTHER_UID);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        SC_REL_TEST(test_other_uid_learns_nothing),
        SC_REL_TEST(test_server_info_shows_own_share),
        SC_REL_TEST(test_default_socket_mode_keeps_others_out),
        SC_REL_TEST(test_subscriber_hears_only_its_uid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
