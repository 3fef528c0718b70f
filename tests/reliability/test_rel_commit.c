/*
 * Long commits: a capture.end of millions of nodes is committed in chunks
 * (docs/design.md §7), so it does not hold up other clients' writes, and
 * it is never seen, nor survives a crash, in part.
 *
 *   - small_writes_pass_big_commit: while one client's 2M-node capture.end
 *     commits, a second client opens and closes sessions in a loop (each
 *     reply waits for its log row's COMMIT); the slowest must stay under
 *     SMALL_WRITE_BOUND_MS (one transaction for the whole graph made it
 *     wait for all of it, 1.8 s here), and the big graph is whole after;
 *   - kill_during_chunked_commit: SIGKILL while the graph's chunks are
 *     being written (its id is in pending_graphs and some of its nodes are
 *     stored) leaves, after a restart, no row of it anywhere, its session
 *     `lost`, and its id never handed out again; before the restart it has
 *     no graphs row and the queries of docs/sql.md see none of its rows.
 *
 *   - kill_while_streaming: a capture of a few hundred thousand nodes has
 *     parts stored while it records (sc_store.h, "Streaming"); SIGKILL
 *     then leaves nothing of it visible, and after a restart no row of it,
 *     its session `lost`;
 *   - streamed_capture_without_graph: a streamed session closed, or whose
 *     capture.end fails, leaves no row of its parts.
 *
 * The first two run with --stream-nodes 0, so that capture.end commits the
 * whole graph in chunks.
 * SC_REL_COMMIT_NODES (default 2,000,000, 500,000 under the sanitizers)
 * sets the graph's size;
 * SC_REL_STREAMCAPD runs another streamcapd binary (to compare builds).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "rel_util.h"

/* Generous: the chunks are about 25 ms, and the loop thread seals the graph. */
#define SMALL_WRITE_BOUND_MS (SC_REL_IS_SANITIZED ? 1500 : 300)
#define RECORDS_PER_LINE     4096
/* Under the sanitizers recording runs several times slower: a quarter of
 * the graph still takes dozens of chunks. */
#define DEFAULT_NODES (SC_REL_IS_SANITIZED ? 500000 : 2000000)

static const char *const big_args[] = {"--max-message", "16777216", "--stream-nodes", "0", NULL};
static const char *const stream_args[] = {"--max-message", "16777216", NULL};
#define STREAMED_NODES (10u * 32768u + 77u) /* ten parts of the default size */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static sc_it_daemon *start(void **state)
{
    const char *bin = getenv("SC_REL_STREAMCAPD");
    if (!bin || !bin[0])
        return sc_rel_must_start(state, big_args);
    sc_it_daemon *d = NULL;
    assert_int_equal(sc_it_daemon_create(&d), 0);
    sc_rel_adopt(state, d);
    sc_it_daemon_set_binary(d, bin);
    assert_int_equal(sc_it_daemon_start(d, big_args), 0);
    return d;
}

static uint32_t graph_nodes(void)
{
    return (uint32_t)sc_rel_env_long("SC_REL_COMMIT_NODES", DEFAULT_NODES);
}

/*
 * Open a session and record `n` kernels k0 .. k(n-1) on stream 0 (a chain
 * of n - 1 edges), as batches of notifications: no replies to read, the
 * node count of capture.end says whether all of them were recorded.
 */
static int64_t record_chain(sc_it_conn *c, uint32_t n)
{
    int64_t s = sc_it_open_session(c, "big");
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":0}", (long long)s);
    size_t cap = (size_t)RECORDS_PER_LINE * 160 + 16;
    char *line = malloc(cap);
    assert_non_null(line);
    for (uint32_t i = 0; i < n;) {
        size_t len = 0;
        line[len++] = '[';
        for (uint32_t k = 0; k < RECORDS_PER_LINE && i < n; k++, i++)
            len += (size_t)snprintf(line + len, cap - len,
                                    "%s{\"jsonrpc\":\"2.0\",\"method\":\"capture.record_kernel\","
                                    "\"params\":{\"session\":%lld,\"stream\":0,"
                                    "\"function_name\":\"k%u\",\"num_blocks\":%u,"
                                    "\"threads_per_block\":32}}",
                                    k ? "," : "", (long long)s, i, i % 1000 + 1);
        line[len++] = ']';
        line[len] = '\0';
        assert_int_equal(sc_it_send_line(c, line), 0);
    }
    free(line);
    /* Every notification has run once a request behind them is answered. */
    cJSON *r = sc_it_call(c, "capture.node_count", "{\"session\":%lld}", (long long)s);
    assert_int_equal(sc_it_int(sc_it_ok(c, r), "node_count"), n);
    cJSON_Delete(r);
    return s;
}

/* The session.open / session.close loop of the second client. */
typedef struct prober {
    const char *sock;
    atomic_bool stop;
    double max_ms; /* slowest session.open reply */
    long opens;
    int error; /* first failure, 0 if none */
} prober;

static void *probe_main(void *arg)
{
    prober *p = arg;
    sc_it_conn *c = NULL;
    if ((p->error = sc_it_connect(p->sock, &c)) != 0)
        return NULL;
    while (!atomic_load(&p->stop)) {
        cJSON *r = NULL;
        double t0 = now_ms();
        int rc = sc_it_try_call(c, &r, "session.open", "{\"label\":\"probe\"}");
        double took = now_ms() - t0;
        int64_t s = 0;
        if (rc != 0 || !sc_rel_result_int(r, "session", &s)) {
            p->error = rc ? rc : -EPROTO;
            cJSON_Delete(r);
            break;
        }
        cJSON_Delete(r);
        if (took > p->max_ms)
            p->max_ms = took;
        p->opens++;
        r = NULL;
        rc = sc_it_try_call(c, &r, "session.close", "{\"session\":%lld}", (long long)s);
        cJSON_Delete(r);
        if (rc != 0) {
            p->error = rc;
            break;
        }
        usleep(2000);
    }
    sc_it_conn_close(c);
    return NULL;
}

static sqlite3 *open_ro(const char *path)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    return db;
}

/* One integer from a query with up to two integer parameters; -1 when no row. */
static int64_t query_i64(sqlite3 *db, const char *sql, int64_t a, int64_t b)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    if (sqlite3_bind_parameter_count(st) >= 1)
        sqlite3_bind_int64(st, 1, a);
    if (sqlite3_bind_parameter_count(st) >= 2)
        sqlite3_bind_int64(st, 2, b);
    int rc = sqlite3_step(st);
    int64_t v = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return v;
}

/* The chain k0 -> k1 -> ... as stored: counts, and sampled nodes and edges. */
static void check_chain(const char *db_path, int64_t graph, uint32_t n)
{
    char why[512];
    int64_t nodes = 0, edges = 0;
    assert_int_equal(sc_rel_db_graph_counts(db_path, graph, &nodes, &edges, why, sizeof why), 0);
    assert_int_equal(nodes, n);
    assert_int_equal(edges, n - 1);
    if (sc_rel_check_db(db_path, NULL, why, sizeof why) != 0)
        fail_msg("database after the big commit: %s", why);
    /* One pass of each view: a query of one node by id still expands the
     * whole graph through the views' GROUP BY, so a sample per query cost
     * minutes on 2M nodes. */
    sqlite3 *db = open_ro(db_path);
    uint32_t step = n / 97 + 1, seen = 0;
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT id, name, num_blocks FROM nodes"
                                        " WHERE graph = ?1 AND id % ?2 = 0 ORDER BY id",
                                        -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_int64(st, 1, graph);
    sqlite3_bind_int64(st, 2, step);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t i = sqlite3_column_int64(st, 0);
        char name[32];
        snprintf(name, sizeof name, "k%lld", (long long)i);
        assert_int_equal(i, (int64_t)seen * step);
        assert_string_equal((const char *)sqlite3_column_text(st, 1), name);
        assert_int_equal(sqlite3_column_int64(st, 2), i % 1000 + 1);
        seen++;
    }
    sqlite3_finalize(st);
    assert_int_equal(seen, (n + step - 1) / step);
    /* n - 1 edges in all (above), each from a node to the next. */
    assert_int_equal(
        query_i64(db, "SELECT count(*) FROM edges WHERE graph = ?1 AND dst = src + 1", graph, 0),
        n - 1);
    assert_int_equal(query_i64(db, "SELECT count(*) FROM pending_graphs", 0, 0), 0);
    sqlite3_close(db);
}

static void small_writes_pass_big_commit(void **state)
{
    uint32_t n = graph_nodes();
    sc_it_daemon *d = start(state);
    sc_it_conn *c = NULL;
    assert_int_equal(sc_it_connect(sc_it_daemon_socket(d), &c), 0);
    sc_it_conn_set_timeout(c, 120000);
    int64_t s = record_chain(c, n);

    prober p = {.sock = sc_it_daemon_socket(d)};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, probe_main, &p), 0);
    /* Let the prober make its first round trips before the end. */
    while (p.opens < 5 && !p.error)
        usleep(1000);
    double t0 = now_ms();
    cJSON *r = sc_it_call(c, "capture.end", "{\"session\":%lld,\"stream\":0}", (long long)s);
    double end_ms = now_ms() - t0;
    atomic_store(&p.stop, true);
    pthread_join(th, NULL);
    const cJSON *res = sc_it_ok(c, r);
    int64_t graph = sc_it_int(res, "graph");
    assert_int_equal(sc_it_int(res, "node_count"), n);
    assert_int_equal(sc_it_int(res, "edge_count"), n - 1);
    cJSON_Delete(r);
    print_message("capture.end of %u nodes: %.0f ms; %ld session.open meanwhile, slowest %.1f ms "
                  "(bound %d ms)\n",
                  n, end_ms, p.opens, p.max_ms, SMALL_WRITE_BOUND_MS);
    assert_int_equal(p.error, 0);
    assert_true(p.opens > 0);
    if (p.max_ms >= SMALL_WRITE_BOUND_MS)
        fail_msg("a session.open waited %.1f ms behind the %.0f ms commit (bound %d ms)", p.max_ms,
                 end_ms, SMALL_WRITE_BOUND_MS);
    /* The daemon serves it like any graph (asked first: the rows' check
     * below can outlast --connection-idle-timeout on a loaded machine). */
    r = sc_it_call(c, "graph.reachable", "{\"graph\":%lld,\"pairs\":[[0,%u],[%u,0]]}",
                   (long long)graph, n - 1, n - 1);
    char *text = sc_it_json_text(sc_it_ok(c, r));
    assert_string_equal(text, "{\"reachable\":[true,false]}");
    free(text);
    cJSON_Delete(r);
    sc_it_conn_close(c);
    check_chain(sc_it_daemon_db(d), graph, n);
    sc_it_must_stop(d);
}

/* The queries of docs/sql.md for one graph, on its rows only. */
static void expect_invisible(sqlite3 *db, int64_t graph)
{
    assert_int_equal(query_i64(db, "SELECT count(*) FROM graphs WHERE graph = ?1", graph, 0), 0);
    assert_int_equal(query_i64(db,
                               "SELECT count(*) FROM (SELECT kind, count(*) AS nodes FROM nodes"
                               " WHERE graph = ?1 AND graph IN (SELECT graph FROM graphs)"
                               " GROUP BY kind)",
                               graph, 0),
                     0);
}

static void kill_during_chunked_commit(void **state)
{
    uint32_t n = graph_nodes();
    sc_it_daemon *d = start(state);
    sc_it_conn *c = NULL;
    assert_int_equal(sc_it_connect(sc_it_daemon_socket(d), &c), 0);
    sc_it_conn_set_timeout(c, 120000);
    int64_t before = sc_rel_must_graph(c, "before", 40, NULL, NULL);
    int64_t s = record_chain(c, n);
    char *end = sc_it_fmt("{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"capture.end\","
                          "\"params\":{\"session\":%lld,\"stream\":0}}",
                          (long long)sc_it_next_id(c), (long long)s);
    assert_int_equal(sc_it_send_line(c, end), 0);
    free(end);

    /* Kill as soon as some chunks are committed, the graph still pending:
     * the probe reads the runs' keys only, so the kill comes within
     * milliseconds of the first chunk, long before the last. */
    sqlite3 *db = open_ro(sc_it_daemon_db(d));
    int64_t pending = -1, stored = 0;
    double t0 = now_ms();
    while (now_ms() - t0 < 60000) {
        pending = query_i64(db, "SELECT graph FROM pending_graphs", 0, 0);
        stored = pending > 0 ? query_i64(db, "SELECT count(*) FROM node_chunks WHERE graph = ?1",
                                         pending, 0)
                             : 0;
        if (stored > 0)
            break;
        usleep(1000);
    }
    assert_int_equal(sc_it_daemon_kill(d), 0);
    if (stored <= 0)
        fail_msg("no chunk of the %u-node graph was seen committed", n);
    assert_true(pending > before);
    /* What the killed daemon left: part of the nodes, and nothing shown. */
    stored = query_i64(db, "SELECT sum(json_array_length(nodes)) FROM node_chunks WHERE graph = ?1",
                       pending, 0);
    assert_true(stored > 0 && stored < n);
    expect_invisible(db, pending);
    sqlite3_close(db);
    sc_it_conn_close(c);

    sc_it_must_restart(d, big_args);
    char why[512];
    if (sc_rel_check_db(sc_it_daemon_db(d), NULL, why, sizeof why) != 0)
        fail_msg("after the restart: %s", why);
    db = open_ro(sc_it_daemon_db(d));
    assert_int_equal(query_i64(db, "SELECT count(*) FROM pending_graphs", 0, 0), 0);
    assert_int_equal(query_i64(db, "SELECT count(*) FROM nodes WHERE graph = ?1", pending, 0), 0);
    assert_int_equal(query_i64(db, "SELECT count(*) FROM edges WHERE graph = ?1", pending, 0), 0);
    sqlite3_close(db);
    char outcome[16];
    assert_int_equal(sc_it_log_outcome(sc_it_daemon_db(d), s, outcome, sizeof outcome), 0);
    assert_string_equal(outcome, "lost");

    assert_int_equal(sc_it_connect(sc_it_daemon_socket(d), &c), 0);
    sc_it_must_error(c, 1001, NULL, "graph.get", "{\"graph\":%lld}", (long long)pending);
    assert_int_equal(sc_rel_must_count_graphs(c), 1);
    /* The reserved id is never handed out again. */
    int64_t after = sc_rel_must_graph(c, "after", 40, NULL, NULL);
    assert_true(after > pending);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
}

/* The pending graph with `want` nodes or more stored, waited for (the
 * writer stores parts behind the recording); its id. */
static int64_t wait_parts(sqlite3 *db, int64_t want)
{
    double t0 = now_ms();
    while (now_ms() - t0 < 60000) {
        int64_t pending = query_i64(db, "SELECT graph FROM pending_graphs", 0, 0);
        if (pending > 0 &&
            query_i64(db, "SELECT sum(json_array_length(nodes)) FROM node_chunks WHERE graph = ?1",
                      pending, 0) >= want)
            return pending;
        usleep(5000);
    }
    fail_msg("no pending graph with %lld nodes stored", (long long)want);
    return 0;
}

static void kill_while_streaming(void **state)
{
    sc_it_daemon *d = sc_rel_must_start(state, stream_args);
    sc_it_conn *c = NULL;
    assert_int_equal(sc_it_connect(sc_it_daemon_socket(d), &c), 0);
    sc_it_conn_set_timeout(c, 120000);
    int64_t before = sc_rel_must_graph(c, "before", 40, NULL, NULL);
    int64_t s = record_chain(c, STREAMED_NODES);
    sqlite3 *db = open_ro(sc_it_daemon_db(d));
    int64_t pending = wait_parts(db, 10 * 32768);
    assert_true(pending > before);
    /* All but the tail is stored, and none of it shows. */
    assert_int_equal(query_i64(db,
                               "SELECT sum(json_array_length(nodes)) FROM node_chunks"
                               " WHERE graph = ?1",
                               pending, 0),
                     10 * 32768);
    expect_invisible(db, pending);
    assert_int_equal(sc_it_daemon_kill(d), 0);
    sqlite3_close(db);
    sc_it_conn_close(c);

    sc_it_must_restart(d, stream_args);
    char why[512];
    if (sc_rel_check_db(sc_it_daemon_db(d), NULL, why, sizeof why) != 0)
        fail_msg("after the restart: %s", why);
    db = open_ro(sc_it_daemon_db(d));
    assert_int_equal(query_i64(db, "SELECT count(*) FROM pending_graphs", 0, 0), 0);
    assert_int_equal(query_i64(db, "SELECT count(*) FROM node_chunks WHERE graph = ?1", pending, 0),
                     0);
    sqlite3_close(db);
    char outcome[16];
    assert_int_equal(sc_it_log_outcome(sc_it_daemon_db(d), s, outcome, sizeof outcome), 0);
    assert_string_equal(outcome, "lost");
    assert_int_equal(sc_it_connect(sc_it_daemon_socket(d), &c), 0);
    assert_int_equal(sc_rel_must_count_graphs(c), 1);
    /* The reserved id is never handed out again. */
    assert_true(sc_rel_must_graph(c, "after", 40, NULL, NULL) > pending);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
}

/* Poll until the daemon's database holds no node_chunks row of `graph`. */
static void wait_gone(sqlite3 *db, int64_t graph)
{
    double t0 = now_ms();
    while (query_i64(db, "SELECT count(*) FROM node_chunks WHERE graph = ?1", graph, 0) > 0) {
        if (now_ms() - t0 > 30000)
            fail_msg("graph %lld's streamed rows were not removed", (long long)graph);
        usleep(5000);
    }
    assert_int_equal(query_i64(db, "SELECT count(*) FROM pending_graphs", 0, 0), 0);
}

static void streamed_capture_without_graph(void **state)
{
    sc_it_daemon *d = sc_rel_must_start(state, stream_args);
    sc_it_conn *c = NULL;
    assert_int_equal(sc_it_connect(sc_it_daemon_socket(d), &c), 0);
    sc_it_conn_set_timeout(c, 120000);
    sqlite3 *db = open_ro(sc_it_daemon_db(d));

    /* Closed. */
    int64_t s = record_chain(c, 3 * 32768);
    int64_t pending = wait_parts(db, 3 * 32768);
    sc_it_must_ok(c, "session.close", "{\"session\":%lld}", (long long)s);
    wait_gone(db, pending);

    /* A capture.end that fails: the capture was invalidated. */
    s = record_chain(c, 2 * 32768 + 5);
    pending = wait_parts(db, 2 * 32768);
    sc_it_must_ok(c, "capture.invalidate", "{\"session\":%lld,\"stream\":0}", (long long)s);
    cJSON *r = sc_it_call(c, "capture.end", "{\"session\":%lld,\"stream\":0}", (long long)s);
    assert_non_null(cJSON_GetObjectItemCaseSensitive(r, "error"));
    cJSON_Delete(r);
    wait_gone(db, pending);
    char outcome[16];
    assert_int_equal(sc_it_log_outcome(sc_it_daemon_db(d), s, outcome, sizeof outcome), 0);
    assert_string_equal(outcome, "failed");
    assert_int_equal(sc_rel_must_count_graphs(c), 0);
    sqlite3_close(db);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        SC_REL_TEST(small_writes_pass_big_commit),
        SC_REL_TEST(kill_during_chunked_commit),
        SC_REL_TEST(kill_while_streaming),
        SC_REL_TEST(streamed_capture_without_graph),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
