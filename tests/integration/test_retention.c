/*
 * Retention, pinning and prune through a real daemon (docs/operations.md,
 * "Retention"): graph.pin and graph.delete's refusal, store.prune's dry run
 * against the prune it predicts, --keep, the --retain and --retain-log
 * passes, other clients served during a large prune, and on SQLite the
 * file shrinking after prune and incremental vacuum and --max-db-size.
 *
 * On SQLite each test has a database of its own.  Run with
 * STREAMCAP_TEST_PG set (tests/pg/cluster.sh, test_retention_pg) the
 * daemons share that PostgreSQL database: each test first empties it
 * through the daemon itself, and the tests of SQLite's file are skipped.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

static const char *pg_uri(void)
{
    const char *u = getenv("STREAMCAP_TEST_PG");
    return u && *u ? u : NULL;
}

/* The daemon with `extra` options (at most 8), on the test's backend. */
static sc_it_daemon *start(const char *const *extra)
{
    const char *args[16];
    size_t n = 0;
    if (pg_uri()) {
        args[n++] = "--db";
        args[n++] = pg_uri();
    }
    for (size_t i = 0; extra && extra[i] && n < 15; i++)
        args[n++] = extra[i];
    args[n] = NULL;
    return sc_it_must_start(args);
}

/* A graph.submit graph of `nodes` kernels in a chain: its id. */
static int64_t submit(sc_it_conn *c, const char *label, unsigned nodes)
{
    size_t cap = 64 + (size_t)nodes * 128; /* a node and its edge take at most 110 */
    char *p = malloc(cap);
    assert_non_null(p);
    size_t at = (size_t)snprintf(p, cap, "{\"label\":\"%s\",\"nodes\":[", label);
    for (unsigned i = 0; i < nodes; i++)
        at += (size_t)snprintf(p + at, cap - at,
                               "%s{\"kind\":\"kernel\",\"function_name\":\"kernel_%u\","
                               "\"num_blocks\":%u,\"threads_per_block\":128}",
                               i ? "," : "", i, i + 1);
    at += (size_t)snprintf(p + at, cap - at, "],\"edges\":[");
    for (unsigned i = 1; i < nodes; i++)
        at += (size_t)snprintf(p + at, cap - at, "%s[%u,%u]", i > 1 ? "," : "", i - 1, i);
    snprintf(p + at, cap - at, "]}");
    cJSON *r = sc_it_must_result(c, "graph.submit", "%s", p);
    free(p);
    int64_t g = sc_it_int(r, "graph");
    cJSON_Delete(r);
    return g;
}

/* A capture through a session, so that it has a log row: the graph's id,
 * its session in *session. */
static int64_t captured(sc_it_conn *c, const char *label, int64_t *session)
{
    int64_t s = sc_it_open_session(c, label);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":0}", (long long)s);
    sc_it_must_ok(c, "capture.record_kernel",
                  "{\"session\":%lld,\"stream\":0,\"function_name\":\"k\",\"num_blocks\":1,"
                  "\"threads_per_block\":32}",
                  (long long)s);
    cJSON *end =
        sc_it_must_result(c, "capture.end", "{\"session\":%lld,\"stream\":0}", (long long)s);
    int64_t g = sc_it_int(end, "graph");
    cJSON_Delete(end);
    if (session)
        *session = s;
    return g;
}

/* The ids of graph.list's first page (at most 10000), newest first, into
 * ids (room for `cap`); their number. */
static size_t list_ids(sc_it_conn *c, int64_t *ids, size_t cap)
{
    cJSON *r = sc_it_must_result(c, "graph.list", "{\"limit\":10000}");
    const cJSON *g;
    size_t n = 0;
    cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(r, "graphs"))
    {
        if (n < cap)
            ids[n] = sc_it_int(g, "graph");
        n++;
    }
    cJSON_Delete(r);
    return n;
}

static bool listed(sc_it_conn *c, int64_t id)
{
    int64_t ids[512];
    size_t n = list_ids(c, ids, 512);
    for (size_t i = 0; i < n && i < 512; i++)
        if (ids[i] == id)
            return true;
    return false;
}

/* The ids of a store.prune reply's `graphs`, as text "1,2,3". */
static char *ids_text(const cJSON *res)
{
    return sc_it_json_text(cJSON_GetObjectItemCaseSensitive(res, "graphs"));
}

static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* "older_than 0s" names graphs created strictly before now: a graph of
 * this very millisecond is not older, so the clock moves on first. */
static void settle(void)
{
    sleep_ms(5);
}

/* A PostgreSQL database the earlier tests wrote to starts empty again:
 * every graph unpinned, then pruned with every log row. */
static void empty_store(sc_it_conn *c)
{
    if (!pg_uri())
        return;
    int64_t ids[4096];
    size_t n = list_ids(c, ids, 4096);
    for (size_t i = 0; i < n && i < 4096; i++)
        sc_it_must_ok(c, "graph.pin", "{\"graph\":%lld,\"pinned\":false}", (long long)ids[i]);
    settle();
    sc_it_must_ok(c, "store.prune", "{\"older_than\":\"0s\",\"log_older_than\":\"0s\"}");
    assert_int_equal(list_ids(c, ids, 1), 0);
}

/* ------------------------------------------------------------ pinning */

static void test_pin_keeps_a_graph_from_delete(void **state)
{
    (void)state;
    sc_it_daemon *d = start(NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    empty_store(c);
    int64_t g = submit(c, "baseline", 3);

    cJSON *r = sc_it_must_result(c, "graph.pin", "{\"graph\":%lld}", (long long)g);
    assert_int_equal(sc_it_int(r, "graph"), g);
    assert_true(sc_it_bool(r, "pinned"));
    cJSON_Delete(r);
    r = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", (long long)g);
    assert_true(sc_it_bool(r, "pinned"));
    cJSON_Delete(r);
    r = sc_it_must_result(c, "graph.list", "{}");
    const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "graphs"), 0);
    assert_true(sc_it_bool(first, "pinned"));
    cJSON_Delete(r);

    /* A delete is refused, naming the pin, and changes nothing. */
    cJSON *e = sc_it_call(c, "graph.delete", "{\"graph\":%lld}", (long long)g);
    const cJSON *err = sc_it_err(c, e, -32602, "invalid_params");
    sc_it_err_data(err, "field", "force");
    assert_non_null(strstr(sc_it_str(err, "message"), "is pinned"));
    cJSON_Delete(e);
    assert_true(listed(c, g));

    /* Unpinned, an ordinary delete goes through; force deletes a pinned one. */
    sc_it_must_ok(c, "graph.pin", "{\"graph\":%lld,\"pinned\":false}", (long long)g);
    r = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", (long long)g);
    assert_false(sc_it_bool(r, "pinned"));
    cJSON_Delete(r);
    sc_it_must_ok(c, "graph.delete", "{\"graph\":%lld}", (long long)g);
    int64_t h = submit(c, "baseline", 2);
    sc_it_must_ok(c, "graph.pin", "{\"graph\":%lld}", (long long)h);
    sc_it_must_ok(c, "graph.delete", "{\"graph\":%lld,\"force\":true}", (long long)h);
    assert_false(listed(c, h));

    /* Unknown graphs and bad params answer as graph.delete does. */
    sc_it_must_error(c, 1001, NULL, "graph.pin", "{\"graph\":%lld}", (long long)h);
    sc_it_must_error(c, -32602, "invalid_params", "graph.pin", "{\"graph\":1,\"pinned\":3}");
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

/* -------------------------------------------------------------- prune */

static void test_dry_run_names_what_prune_deletes(void **state)
{
    (void)state;
    sc_it_daemon *d = start(NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    empty_store(c);
    int64_t g[10];
    for (int i = 0; i < 10; i++)
        g[i] = submit(c, "old", 4);
    sc_it_must_ok(c, "graph.pin", "{\"graph\":%lld}", (long long)g[2]);
    settle();
    cJSON *dry = sc_it_must_result(c, "store.prune", "{\"dry_run\":true,\"older_than\":\"0s\"}");
    assert_true(sc_it_bool(dry, "dry_run"));
    assert_int_equal(sc_it_int(dry, "count"), 9);
    assert_int_equal(sc_it_int(dry, "nodes"), 36);
    assert_true(sc_it_int(dry, "db_bytes") > 0);
    assert_false(sc_it_bool(dry, "more"));
    assert_null(cJSON_GetObjectItemCaseSensitive(dry, "deleted"));
    /* Oldest first, the pinned one left out; nothing deleted. */
    char *want = sc_it_fmt("[%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld]", (long long)g[0],
                           (long long)g[1], (long long)g[3], (long long)g[4], (long long)g[5],
                           (long long)g[6], (long long)g[7], (long long)g[8], (long long)g[9]);
    char *dry_ids = ids_text(dry);
    assert_string_equal(dry_ids, want);
    int64_t ids[16];
    assert_int_equal(list_ids(c, ids, 16), 10);

    cJSON *real = sc_it_must_result(c, "store.prune", "{\"older_than\":\"0s\"}");
    char *real_ids = ids_text(real);
    assert_string_equal(real_ids, dry_ids);
    assert_int_equal(sc_it_int(real, "deleted"), 9);
    assert_int_equal(list_ids(c, ids, 16), 1);
    assert_int_equal(ids[0], g[2]);
    /* The deletions are counted for the operator's metrics; a dry run is
     * none. */
    cJSON *info = sc_it_must_result(c, "server.info", "{}");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(info, "metrics");
    assert_int_equal(sc_it_int(m, "retention_deleted"), 9);
    cJSON_Delete(info);

    /* A bad age names its field. */
    cJSON *e = sc_it_call(c, "store.prune", "{\"older_than\":\"5x\"}");
    sc_it_err_data(sc_it_err(c, e, -32602, "invalid_params"), "field", "older_than");
    cJSON_Delete(e);
    e = sc_it_call(c, "store.prune", "{\"max_db_size\":\"lots\"}");
    sc_it_err_data(sc_it_err(c, e, -32602, "invalid_params"), "field", "max_db_size");
    cJSON_Delete(e);
    /* No policy given and none configured. */
    sc_it_must_error(c, -32602, "invalid_params", "store.prune", "{\"dry_run\":true}");
    free(want);
    free(dry_ids);
    free(real_ids);
    cJSON_Delete(dry);
    cJSON_Delete(real);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

static void test_keep_counts_the_newest(void **state)
{
    (void)state;
    sc_it_daemon *d = start(NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    empty_store(c);
    int64_t g[6];
    for (int i = 0; i < 6; i++)
        g[i] = submit(c, "k", 2);
    sc_it_must_ok(c, "graph.pin", "{\"graph\":%lld}", (long long)g[0]);
    cJSON *r = sc_it_must_result(c, "store.prune", "{\"keep\":2}");
    char *got = ids_text(r);
    char *want = sc_it_fmt("[%lld,%lld,%lld]", (long long)g[1], (long long)g[2], (long long)g[3]);
    assert_string_equal(got, want);
    int64_t ids[8];
    assert_int_equal(list_ids(c, ids, 8), 3);
    assert_int_equal(ids[0], g[5]);
    assert_int_equal(ids[1], g[4]);
    assert_int_equal(ids[2], g[0]);
    free(got);
    free(want);
    cJSON_Delete(r);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

/* ---------------------------------------------------------- retention */

/* Whether log.list still has the row of `session`. */
static bool logged(sc_it_conn *c, int64_t session)
{
    cJSON *r = sc_it_must_result(c, "log.list", "{\"limit\":10000}");
    const cJSON *e;
    bool found = false;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(r, "entries"))
    {
        if (sc_it_int(e, "session") == session)
            found = true;
    }
    cJSON_Delete(r);
    return found;
}

static void test_retain_removes_old_graphs_and_log_rows(void **state)
{
    (void)state;
    sc_it_daemon *d = start(NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    empty_store(c);
    int64_t s_old, s_pinned;
    int64_t old = captured(c, "old", &s_old);
    int64_t pinned = captured(c, "baseline", &s_pinned);
    sc_it_must_ok(c, "graph.pin", "{\"graph\":%lld}", (long long)pinned);
    sc_it_conn_close(c);
    sc_it_must_stop(d);

    /* Both graphs are older than 1s by the time the pass at start runs. */
    sleep_ms(1100);
    const char *policy[] = {"--retain", "1s", "--retain-log", "1s", "--retain-interval", "1", NULL};
    const char *args[sizeof policy / sizeof policy[0] + 2];
    size_t n = 0;
    if (pg_uri()) {
        args[n++] = "--db";
        args[n++] = pg_uri();
    }
    for (size_t i = 0; policy[i]; i++)
        args[n++] = policy[i];
    args[n] = NULL;
    sc_it_must_restart(d, args);
    c = sc_it_must_connect(d);
    /* Wait (bounded) for the passes: the old graph and then its log row go. */
    for (int i = 0; i < 300 && (listed(c, old) || logged(c, s_old)); i++)
        sleep_ms(100);
    assert_false(listed(c, old));
    assert_false(logged(c, s_old));
    /* The pinned graph and the log row of a graph still stored stay. */
    assert_true(listed(c, pinned));
    assert_true(logged(c, s_pinned));
    /* The daemon's own policy is what a bare prune runs. */
    cJSON *r = sc_it_must_result(c, "store.prune", "{\"dry_run\":true}");
    assert_int_equal(sc_it_int(r, "count"), 0);
    cJSON_Delete(r);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    char *log = sc_it_read_file(sc_it_daemon_stderr_path(d));
    assert_non_null(log);
    char *line =
        sc_it_fmt("retention: deleted 1 graph (ids %lld..%lld)", (long long)old, (long long)old);
    if (!strstr(log, line))
        fail_msg("no '%s' in the daemon's log:\n%s", line, log);
    free(line);
    free(log);
    sc_it_daemon_destroy(d);
}

/* Requests of other clients are answered while a prune of many graphs runs:
 * every one succeeds, and the prune deletes everything it planned. */
static void test_clients_served_during_a_large_prune(void **state)
{
    (void)state;
    sc_it_daemon *d = start(NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    sc_it_conn *other = sc_it_must_connect(d);
    empty_store(c);
    enum { GRAPHS = 400 };
    for (int i = 0; i < GRAPHS; i++)
        submit(c, "bulk", 20);
    settle();
    int64_t id = sc_it_next_id(c);
    char *req = sc_it_format_request(id, "store.prune", "{\"older_than\":\"0s\"}");
    sc_it_must_send_line(c, req);
    free(req);
    for (int i = 0; i < 40; i++) {
        cJSON *l = sc_it_must_result(other, "graph.list", "{\"limit\":5}");
        cJSON_Delete(l);
        int64_t s = sc_it_open_session(other, "meanwhile");
        sc_it_must_ok(other, "session.close", "{\"session\":%lld}", (long long)s);
    }
    int64_t kept = submit(other, "meanwhile", 3);
    cJSON *reply = sc_it_must_recv(c);
    const cJSON *res = sc_it_ok(c, reply);
    assert_int_equal(sc_it_int(res, "count"), GRAPHS);
    assert_int_equal(sc_it_int(res, "deleted"), GRAPHS);
    cJSON_Delete(reply);
    int64_t ids[8];
    /* The graph stored meanwhile is newer than the plan: it stays. */
    assert_int_equal(list_ids(c, ids, 8), 1);
    assert_int_equal(ids[0], kept);
    sc_it_conn_close(other);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

/* ------------------------------------------------------ SQLite's file */

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static void test_file_shrinks_after_prune(void **state)
{
    (void)state;
    if (pg_uri())
        skip();
    sc_it_daemon *d = start(NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    for (int i = 0; i < 40; i++)
        submit(c, "big", 2000);
    int64_t small = submit(c, "small", 2);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    long long full = file_size(sc_it_daemon_db(d));

    sc_it_must_restart(d, NULL);
    c = sc_it_must_connect(d);
    cJSON *r = sc_it_must_result(c, "store.prune", "{\"keep\":1}");
    assert_int_equal(sc_it_int(r, "deleted"), 40);
    cJSON_Delete(r);
    assert_true(listed(c, small));
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    long long after = file_size(sc_it_daemon_db(d));
    if (!(full > 0 && after > 0 && after * 4 < full))
        fail_msg("database file %lld bytes before the prune, %lld after", full, after);
    sc_it_daemon_destroy(d);
}

static void test_max_db_size_bounds_the_store(void **state)
{
    (void)state;
    if (pg_uri())
        skip();
    sc_it_daemon *d = start(NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    int64_t first = submit(c, "big", 2000);
    sc_it_must_ok(c, "graph.pin", "{\"graph\":%lld}", (long long)first);
    for (int i = 0; i < 40; i++)
        submit(c, "big", 2000);
    cJSON *r = sc_it_must_result(c, "store.prune", "{\"dry_run\":true,\"max_db_size\":\"2M\"}");
    long long before = sc_it_int(r, "db_bytes");
    cJSON_Delete(r);
    if (before < (4 << 20))
        fail_msg("the test needs more than 4M in use, not %lld", before);
    sc_it_conn_close(c);
    sc_it_must_stop(d);

    const char *policy[] = {"--max-db-size", "2M", "--retain-interval", "1", NULL};
    sc_it_must_restart(d, policy);
    c = sc_it_must_connect(d);
    long long now = before;
    for (int i = 0; i < 300 && now > (2 << 20); i++) {
        cJSON *p = sc_it_call(c, "store.prune", "{\"dry_run\":true,\"max_db_size\":\"2M\"}");
        const cJSON *res = cJSON_GetObjectItemCaseSensitive(p, "result");
        if (res)
            now = sc_it_int(res, "db_bytes");
        cJSON_Delete(p);
        if (now > (2 << 20))
            sleep_ms(100);
    }
    if (now > (2 << 20))
        fail_msg("still %lld bytes in use under --max-db-size 2M", now);
    assert_true(listed(c, first));
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pin_keeps_a_graph_from_delete),
        cmocka_unit_test(test_dry_run_names_what_prune_deletes),
        cmocka_unit_test(test_keep_counts_the_newest),
        cmocka_unit_test(test_retain_removes_old_graphs_and_log_rows),
        cmocka_unit_test(test_clients_served_during_a_large_prune),
        cmocka_unit_test(test_file_shrinks_after_prune),
        cmocka_unit_test(test_max_db_size_bounds_the_store),
    };
    return cmocka_run_group_tests(tests, sc_it_group_setup, sc_it_group_teardown);
}
