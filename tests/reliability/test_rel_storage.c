/*
 * Storage errors: a database that cannot grow (--test-max-page-count) and a
 * write lock held by another process longer than --busy-timeout.  Either
 * way capture.end answers 1007 (kind storage) without storing anything
 * (a capture's graph whose body cannot be stored included),
 * the daemon keeps serving reads, and ends succeed again once the cause is
 * gone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "rel_util.h"

/* Pages of 4 KiB (SQLite's default): the schema and a few small graphs fit,
 * a capture of BIG_KERNELS kernels does not. */
#define SMALL_PAGES  "48"
#define LARGE_PAGES  "100000"
#define BIG_KERNELS  4000
#define MID_KERNELS  1500
#define BUSY_MS      200
#define LOCK_HOLD_MS 1500

static int64_t db_graph_rows(const char *db_path)
{
    int64_t n = 0;
    char why[1024];
    if (sc_rel_check_db(db_path, &n, why, sizeof(why)) != 0)
        fail_msg("database %s: %s", db_path, why);
    return n;
}

/* Open a session, record `kernels` kernels and end it: the end's reply. */
static cJSON *capture_reply(sc_it_conn *c, int kernels, int64_t *session)
{
    long long s = (long long)sc_it_open_session(c, "storage");
    *session = s;
    cJSON *r = sc_it_must_result(c, "capture.begin", "{\"session\":%lld,\"stream\":0}", s);
    cJSON_Delete(r);
    char **lines = calloc((size_t)kernels, sizeof(char *));
    cJSON **replies = calloc((size_t)kernels, sizeof(cJSON *));
    assert_non_null(lines);
    assert_non_null(replies);
    for (int i = 0; i < kernels; i++)
        if (asprintf(&lines[i],
                     "{\"jsonrpc\":\"2.0\",\"id\":\"k%d\",\"method\":\"capture.record_kernel\","
                     "\"params\":{\"session\":%lld,\"stream\":0,\"function_name\":"
                     "\"a_kernel_name_long_enough_to_take_room_%d\",\"num_blocks\":%d,"
                     "\"threads_per_block\":64}}",
                     i, s, i, i + 1) < 0)
            fail_msg("out of memory");
    assert_int_equal(sc_rel_pipeline(c, lines, (size_t)kernels, replies), 0);
    for (int i = 0; i < kernels; i++) {
        if (!cJSON_GetObjectItemCaseSensitive(replies[i], "result")) {
            char *text = sc_it_json_text(replies[i]);
            fail_msg("request %s\n  expected a result\n  got %s", lines[i], text);
        }
        cJSON_Delete(replies[i]);
        free(lines[i]);
    }
    free(lines);
    free(replies);
    return sc_it_call(c, "capture.end", "{\"session\":%lld,\"stream\":0}", s);
}

static void expect_storage_error(sc_it_conn *c, cJSON *reply)
{
    sc_it_err(c, reply, 1007, "storage");
    cJSON_Delete(reply);
}

/* The operator learns from the daemon's log what failed and for whom. */
static void expect_logged_commit_error(const sc_it_daemon *d, int64_t session, int kernels)
{
    char *want = sc_it_fmt("streamcapd error: storage error committing graph of session %lld "
                           "with %d nodes (uid %u, pid %d): ",
                           (long long)session, kernels, (unsigned)getuid(), (int)getpid());
    char *text = sc_it_read_file(sc_it_daemon_stderr_path(d));
    assert_non_null(text);
    const char *at = strstr(text, want);
    if (!at)
        fail_msg("the daemon's stderr has no line containing '%s':\n%s", want, text);
    /* SQLite's own reason follows, not a generic one. */
    if (!strstr(at, "full"))
        fail_msg("the storage error line does not give SQLite's reason:\n%s", text);
    free(text);
    free(want);
}

static int64_t expect_stored(sc_it_conn *c, cJSON *reply, int kernels)
{
    const cJSON *res = sc_it_ok(c, reply);
    int64_t graph = sc_it_int(res, "graph");
    assert_int_equal(sc_it_int(res, "node_count"), kernels);
    cJSON_Delete(reply);
    return graph;
}

static void expect_graph_readable(sc_it_conn *c, int64_t graph, int64_t nodes)
{
    cJSON *res = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", (long long)graph);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(res, "nodes");
    assert_true(cJSON_IsArray(list));
    assert_int_equal(cJSON_GetArraySize(list), nodes);
    cJSON_Delete(res);
    cJSON *info = sc_it_must_result(c, "server.info", NULL);
    cJSON_Delete(info);
}

static void test_full_database(void **state)
{
    static const char *const small[] = {"--test-max-page-count", SMALL_PAGES, NULL};
    static const char *const large[] = {"--test-max-page-count", LARGE_PAGES, NULL};
    sc_it_daemon *d = sc_rel_must_start(state, small);
    const char *db = sc_it_daemon_db(d);
    sc_it_conn *c = sc_it_must_connect(d);

    int64_t nodes_a;
    int64_t graph_a = sc_rel_must_graph(c, "fits", 20, &nodes_a, NULL);
    int64_t listed = sc_rel_must_count_graphs(c);
    assert_int_equal(listed, 1);

    int64_t big;
    expect_storage_error(c, capture_reply(c, BIG_KERNELS, &big));
    expect_logged_commit_error(d, big, BIG_KERNELS);
    /* Nothing of it is stored or listed, the end consumed the session, the
     * older graph is still served, and the database is consistent. */
    assert_int_equal(sc_rel_must_count_graphs(c), listed);
    assert_int_equal(db_graph_rows(db), 1);
    sc_it_must_error(c, 1001, "not_found", "session.info", "{\"session\":%lld}", (long long)big);
    expect_graph_readable(c, graph_a, nodes_a);
    sc_it_must_see_outcome(db, big, "failed", 5000);

    /* A small end still fits while the big one cannot. */
    int64_t graph_b = sc_rel_must_graph(c, "still fits", 10, NULL, NULL);
    assert_true(graph_b > graph_a);
    sc_it_conn_close(c);
    sc_it_must_stop(d);

    /* Room made by allowing a larger file: the same capture now stores. */
    sc_it_must_restart(d, large);
    c = sc_it_must_connect(d);
    int64_t graph_big = expect_stored(c, capture_reply(c, BIG_KERNELS, &big), BIG_KERNELS);
    assert_int_equal(sc_rel_must_count_graphs(c), 3);
    sc_it_conn_close(c);
    sc_it_must_stop(d);

    /* The file cannot shrink below its size, so the cap now means "full". */
    sc_it_must_restart(d, small);
    c = sc_it_must_connect(d);
    int64_t mid;
    expect_storage_error(c, capture_reply(c, MID_KERNELS, &mid));
    assert_int_equal(sc_rel_must_count_graphs(c), 3);
    expect_graph_readable(c, graph_big, BIG_KERNELS);
    /* Room made by deleting a graph: its pages are reused. */
    cJSON *r = sc_it_must_result(c, "graph.delete", "{\"graph\":%lld}", (long long)graph_big);
    cJSON_Delete(r);
    expect_stored(c, capture_reply(c, MID_KERNELS, &mid), MID_KERNELS);
    assert_int_equal(sc_rel_must_count_graphs(c), 3);
    expect_graph_readable(c, graph_a, nodes_a);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    db_graph_rows(db);
}

/* An external writer holding the database's write lock. */
static sqlite3 *take_write_lock(const char *db_path)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
        fail_msg("open %s: %s", db_path, db ? sqlite3_errmsg(db) : "no memory");
    sqlite3_busy_timeout(db, 5000);
    char *err = NULL;
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, &err) != SQLITE_OK)
        fail_msg("BEGIN IMMEDIATE on %s: %s", db_path, err ? err : "?");
    return db;
}

static void release_write_lock(sqlite3 *db)
{
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(db);
}

static void test_write_lock_held_elsewhere(void **state)
{
    static const char *const args[] = {"--busy-timeout", "200", NULL};
    sc_it_daemon *d = sc_rel_must_start(state, args);
    const char *db_path = sc_it_daemon_db(d);
    sc_it_conn *c = sc_it_must_connect(d);
    int64_t nodes_a;
    int64_t graph_a = sc_rel_must_graph(c, "before the lock", 30, &nodes_a, NULL);

    /* The session exists before the lock: session.open writes too. */
    long long s = (long long)sc_it_open_session(c, "locked out");
    cJSON *r = sc_it_must_result(c, "capture.begin", "{\"session\":%lld,\"stream\":0}", s);
    cJSON_Delete(r);
    r = sc_it_must_result(c, "capture.record_host_callback",
                          "{\"session\":%lld,\"stream\":0,\"label\":\"x\"}", s);
    cJSON_Delete(r);

    sqlite3 *lock = take_write_lock(db_path);
    int64_t t0 = sc_it_now_ms();
    cJSON *reply = sc_it_call(c, "capture.end", "{\"session\":%lld,\"stream\":0}", s);
    int64_t waited = sc_it_now_ms() - t0;
    sc_it_err(c, reply, 1007, "storage");
    cJSON_Delete(reply);
    /* The busy timeout, not the lock holder, decides when the end gives up
     * (generous slack for a loaded machine, far below the hold time). */
    if (waited < BUSY_MS / 2 || waited >= LOCK_HOLD_MS)
        fail_msg("capture.end under a held write lock answered after %lld ms; expected about "
                 "the %d ms busy timeout",
                 (long long)waited, BUSY_MS);
    /* Reads go on meanwhile (WAL readers do not wait for writers). */
    expect_graph_readable(c, graph_a, nodes_a);
    int64_t left = LOCK_HOLD_MS - (sc_it_now_ms() - t0);
    if (left > 0)
        sc_it_sleep_ms((int)left);
    release_write_lock(lock);

    /* The failed end consumed its session; a new capture stores. */
    sc_it_must_error(c, 1001, "not_found", "session.info", "{\"session\":%lld}", s);
    int64_t graph_b = sc_rel_must_graph(c, "after the lock", 30, NULL, NULL);
    assert_true(graph_b > graph_a);
    assert_int_equal(sc_rel_must_count_graphs(c), 2);
    assert_int_equal(db_graph_rows(db_path), 2);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    /* The failed end's log row was written once the lock was gone. */
    sc_it_must_see_outcome(db_path, s, "failed", 5000);
}

/* The reply's error.message, or "" when it has none. */
static const char *error_message(const cJSON *reply)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(reply, "error");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "message");
    return cJSON_IsString(m) ? m->valuestring : "";
}

/*
 * Every end of a session gets its final log row even when the database
 * refuses it at first: a close answered 1007 says the session is gone and
 * its row is written once the database takes it; a failed end answers its
 * capture error and its row ends `failed`.  Neither is left `open` to be
 * called `lost` after a clean restart.
 */
static void test_log_rows_end_once_storage_recovers(void **state)
{
    static const char *const args[] = {"--busy-timeout", "200", NULL};
    sc_it_daemon *d = sc_rel_must_start(state, args);
    const char *db_path = sc_it_daemon_db(d);
    sc_it_conn *c = sc_it_must_connect(d);
    long long closed = (long long)sc_it_open_session(c, "closed while locked");
    long long failed = (long long)sc_it_open_session(c, "failed while locked");

    sqlite3 *lock = take_write_lock(db_path);
    cJSON *reply = sc_it_call(c, "session.close", "{\"session\":%lld}", closed);
    sc_it_err(c, reply, 1007, "storage");
    char *want = sc_it_fmt("session %lld is closed", closed);
    if (!strstr(error_message(reply), want))
        fail_msg("session.close that could not be logged: message '%s' does not say '%s'",
                 error_message(reply), want);
    free(want);
    cJSON_Delete(reply);
    /* Ending a stream that never began capturing fails the end. */
    reply = sc_it_call(c, "capture.end", "{\"session\":%lld,\"stream\":0}", failed);
    int64_t code = 0;
    assert_true(sc_rel_error_code(reply, &code));
    assert_int_not_equal(code, 1007);
    cJSON_Delete(reply);
    /* Both are gone, as their replies said. */
    sc_it_must_error(c, 1001, "not_found", "session.info", "{\"session\":%lld}", closed);
    sc_it_must_error(c, 1001, "not_found", "session.info", "{\"session\":%lld}", failed);
    release_write_lock(lock);

    sc_it_must_see_outcome(db_path, closed, "closed", 5000);
    sc_it_must_see_outcome(db_path, failed, "failed", 5000);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_must_restart(d, args);
    sc_it_must_see_outcome(db_path, closed, "closed", 0);
    sc_it_must_see_outcome(db_path, failed, "failed", 0);
    sc_it_must_stop(d);
}

/* Wait up to `ms` for a daemon signalled by the test itself to exit; its
 * exit status, or -1 when it is still running (or did not exit). */
static int wait_daemon_exit(sc_it_daemon *d, int ms)
{
    int64_t deadline = sc_it_now_ms() + ms;
    while (sc_it_daemon_running(d)) {
        if (sc_it_now_ms() >= deadline)
            return -1;
        sc_it_sleep_ms(10);
    }
    int st = sc_it_daemon_status(d);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The stop's grace period (SC_STOP_GRACE_MS of daemon/server.c). */
#define STOP_GRACE_MS 5000

/*
 * A session open at SIGTERM while another process holds the database's
 * write lock: the stop keeps retrying its `shutdown` row within its grace
 * period, so once the lock is released (here after 1.5 s) the row is
 * written and the daemon exits 0.  The row reads `shutdown`, never `lost`,
 * after a restart: `lost` means the daemon died.
 */
static void test_stop_retries_refused_log_rows(void **state)
{
    static const char *const args[] = {"--busy-timeout", "200", NULL};
    sc_it_daemon *d = sc_rel_must_start(state, args);
    const char *db_path = sc_it_daemon_db(d);
    sc_it_conn *c = sc_it_must_connect(d);
    long long s = (long long)sc_it_open_session(c, "open at SIGTERM");

    sqlite3 *lock = take_write_lock(db_path);
    assert_int_equal(kill(sc_it_daemon_pid(d), SIGTERM), 0);
    sc_it_sleep_ms(LOCK_HOLD_MS);
    /* It waits for the row rather than leaving it open. */
    if (!sc_it_daemon_running(d))
        fail_msg("the daemon exited while its last log row was refused");
    release_write_lock(lock);
    int status = wait_daemon_exit(d, 2 * STOP_GRACE_MS);
    if (status != 0)
        fail_msg("SIGTERM: the daemon did not exit 0 (status %d)", status);
    sc_it_must_see_outcome(db_path, s, "shutdown", 0);
    sc_it_conn_close(c);

    sc_it_must_restart(d, args);
    sc_it_must_see_outcome(db_path, s, "shutdown", 0);
    sc_it_must_stop(d);
}

/*
 * The lock is held past the grace period: the daemon still exits 0 in
 * bounded time, records the refused row in "<db>.shutdown", and the next
 * start writes it before it marks open rows lost (then removes the file).
 */
static void test_stop_keeps_refused_rows_for_next_start(void **state)
{
    static const char *const args[] = {"--busy-timeout", "200", NULL};
    sc_it_daemon *d = sc_rel_must_start(state, args);
    const char *db_path = sc_it_daemon_db(d);
    char *side = sc_it_fmt("%s.shutdown", db_path);
    sc_it_conn *c = sc_it_must_connect(d);
    long long s = (long long)sc_it_open_session(c, "locked through the stop");

    sqlite3 *lock = take_write_lock(db_path);
    int64_t t0 = sc_it_now_ms();
    assert_int_equal(kill(sc_it_daemon_pid(d), SIGTERM), 0);
    int status = wait_daemon_exit(d, 3 * STOP_GRACE_MS);
    int64_t took = sc_it_now_ms() - t0;
    if (status != 0)
        fail_msg("SIGTERM with the lock held: the daemon did not exit 0 (status %d)", status);
    /* It retried for the grace period, and not much longer. */
    if (took < STOP_GRACE_MS - 500 || took > 2 * STOP_GRACE_MS)
        fail_msg("the stop took %lld ms; expected about the %d ms grace period", (long long)took,
                 STOP_GRACE_MS);
    if (access(side, F_OK) != 0)
        fail_msg("no %s after a stop that could not write its last log row", side);
    char outcome[64];
    assert_int_equal(sc_it_log_outcome(db_path, s, outcome, sizeof outcome), 0);
    assert_string_equal(outcome, "open");
    release_write_lock(lock);
    sc_it_conn_close(c);

    sc_it_must_restart(d, args);
    sc_it_must_see_outcome(db_path, s, "shutdown", 0);
    /* Applied: the file keeps its room for the next stop, but no row. */
    char *left = sc_it_read_file(side);
    if (left && left[0] != '\0')
        fail_msg("%s still holds rows after the start applied them: %.80s", side, left);
    free(left);
    sc_it_must_stop(d);
    /* A second clean stop leaves nothing behind either. */
    sc_it_must_restart(d, args);
    sc_it_must_see_outcome(db_path, s, "shutdown", 0);
    sc_it_must_stop(d);
    free(side);
}

/* ------------------------------------------------ text read back */

/* Strict UTF-8 (RFC 3629): no overlongs, surrogates or code points above
 * U+10FFFF.  Written here, apart from the daemon's own check. */
static bool utf8_ok(const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = p[i];
        size_t len;
        unsigned cp;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            len = 2;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (i + len > n)
            return false;
        for (size_t k = 1; k < len; k++) {
            if ((p[i + k] & 0xC0) != 0x80)
                return false;
            cp = (cp << 6) | (p[i + k] & 0x3F);
        }
        static const unsigned min[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += len;
    }
    return true;
}

/* One request by hand: its raw reply line must be valid UTF-8 and hold
 * U+FFFD where the database held bad bytes. */
static void expect_clean_reply(sc_it_conn *c, const char *method, const char *params)
{
    char *req = sc_it_format_request(sc_it_next_id(c), method, params);
    assert_non_null(req);
    sc_it_must_send_line(c, req);
    char *line = NULL;
    size_t len = 0;
    assert_int_equal(sc_it_recv_line(c, &line, &len), 0);
    if (!utf8_ok((const unsigned char *)line, len))
        fail_msg("%s %s: the reply is not valid UTF-8: %s", method, params, line);
    if (!strstr(line, "\xEF\xBF\xBD"))
        fail_msg("%s %s: the reply shows no U+FFFD for the bad bytes: %s", method, params, line);
    if (strstr(line, "\"error\""))
        fail_msg("%s %s: expected a result, got %s", method, params, line);
    free(line);
    free(req);
}

/*
 * The database is a file: another program, a bad disk or a bug of an older
 * version may leave bytes in it that are not UTF-8.  Every reply must still
 * be valid UTF-8 (JSON text is), so text read back is re-validated and
 * ill-formed bytes become U+FFFD.
 */
static void test_invalid_utf8_read_back(void **state)
{
    sc_it_daemon *d = sc_rel_must_start(state, NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    long long g = (long long)sc_rel_must_graph(c, "label", 4, NULL, NULL);
    sc_it_conn_close(c);
    sc_it_must_stop(d);

    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(sc_it_daemon_db(d), &db, SQLITE_OPEN_READWRITE, NULL),
                     SQLITE_OK);
    /* A stray continuation byte, a truncated sequence, an overlong '/',
     * an encoded surrogate, a byte that is never UTF-8. */
    char *sql = sqlite3_mprintf(
        "UPDATE graphs SET label = CAST(X'62616480' || X'E282' || X'C0AF' AS TEXT) "
        "WHERE graph = %lld;"
        "UPDATE node_chunks SET nodes = json_set(nodes, '$[0][2]',"
        " CAST(X'6BEDA080' || X'FF' || X'6B' AS TEXT)) WHERE graph = %lld AND lo = 0;"
        "UPDATE capture_log SET label = CAST(X'F4908080' || X'6C6F67' AS TEXT) "
        "WHERE graph = %lld;",
        g, g, g);
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
        fail_msg("writing bad bytes into the database: %s", err ? err : "?");
    sqlite3_free(sql);
    sqlite3_close(db);

    sc_it_must_restart(d, NULL);
    c = sc_it_must_connect(d);
    char p[128];
    snprintf(p, sizeof(p), "{\"graph\":%lld}", g);
    expect_clean_reply(c, "graph.get", p);
    expect_clean_reply(c, "graph.list", "{}");
    expect_clean_reply(c, "log.list", "{}");
    snprintf(p, sizeof(p), "{\"graph\":%lld,\"format\":\"dot\"}", g);
    expect_clean_reply(c, "graph.export", p);
    /* The replacement is exactly one U+FFFD per ill-formed part. */
    cJSON *res = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", g);
    assert_string_equal(sc_it_str(res, "label"),
                        "bad\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    cJSON_Delete(res);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
}

/* A cuda-mode capture whose nodes 0 and 1 are child graph nodes; its end
 * carries a small body for node 0 and one of `big` nodes for node 1. */
static cJSON *end_with_bodies(sc_it_conn *c, int big)
{
    cJSON *r = sc_it_must_result(c, "session.open", "{\"semantics\":\"cuda\"}");
    long long s = (long long)sc_it_int(r, "session");
    cJSON_Delete(r);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":1}", s);
    sc_it_must_ok(c, "capture.add_node", "{\"session\":%lld,\"stream\":1,\"kind\":\"graph\"}", s);
    sc_it_must_ok(c, "capture.add_node",
                  "{\"session\":%lld,\"stream\":1,\"kind\":\"graph\",\"deps\":[0]}", s);
    size_t cap = (size_t)big * 96 + 512, len = 0;
    char *line = malloc(cap);
    assert_non_null(line);
    len += (size_t)snprintf(line + len, cap - len,
                            "{\"session\":%lld,\"stream\":1,\"bodies\":[{\"node\":0,\"nodes\":"
                            "[{\"kind\":\"empty\"}],\"edges\":[]},{\"node\":1,\"nodes\":[",
                            s);
    for (int i = 0; i < big; i++)
        len += (size_t)snprintf(line + len, cap - len,
                                "%s{\"kind\":\"host_callback\",\"label\":\"a body node label "
                                "long enough to take room %d\"}",
                                i ? "," : "", i);
    snprintf(line + len, cap - len, "],\"edges\":[]}]}");
    r = sc_it_call(c, "capture.end", "%s", line);
    free(line);
    return r;
}

/* Rows of the graphs table, bodies and cuda-mode graphs included (which
 * db_graph_rows' checks, made for default-mode graphs, do not allow). */
static int64_t all_graph_rows(const char *db_path)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int64_t n = -1;
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT count(*) FROM graphs", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    if (n < 0)
        fail_msg("cannot count the graphs of %s", db_path);
    return n;
}

/* A body the database cannot take: capture.end answers 1007, and the
 * captured graph goes with the body stored before it, before the reply;
 * the daemon serves on, and a capture with small bodies still stores. */
static void test_capture_body_does_not_fit(void **state)
{
    static const char *const small[] = {"--test-max-page-count", SMALL_PAGES, NULL};
    sc_it_daemon *d = sc_rel_must_start(state, small);
    const char *db = sc_it_daemon_db(d);
    sc_it_conn *c = sc_it_must_connect(d);
    sc_rel_must_graph(c, "fits", 20, NULL, NULL);
    expect_storage_error(c, end_with_bodies(c, BIG_KERNELS));
    /* Gone by the time the error came: the graph and node 0's body. */
    assert_int_equal(all_graph_rows(db), 1);
    char *text = sc_it_read_file(sc_it_daemon_stderr_path(d));
    assert_non_null(text);
    if (!strstr(text, "storage error storing the bodies of a captured graph"))
        fail_msg("the daemon's stderr names no failed body:\n%s", text);
    free(text);
    cJSON *r = end_with_bodies(c, 2);
    const cJSON *res = sc_it_ok(c, r);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(res, "bodies")), 2);
    cJSON_Delete(r);
    assert_int_equal(all_graph_rows(db), 4);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        SC_REL_TEST(test_full_database),
        SC_REL_TEST(test_capture_body_does_not_fit),
        SC_REL_TEST(test_write_lock_held_elsewhere),
        SC_REL_TEST(test_log_rows_end_once_storage_recovers),
        SC_REL_TEST(test_stop_retries_refused_log_rows),
        SC_REL_TEST(test_stop_keeps_refused_rows_for_next_start),
        SC_REL_TEST(test_invalid_utf8_read_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
