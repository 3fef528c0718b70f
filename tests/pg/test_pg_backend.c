/*
 * test_pg_backend.c - the PostgreSQL backend (store/pg/store_pg*.c) against a
 * real server: run under tests/pg/cluster.sh, which exports
 * STREAMCAP_TEST_PG; skipped (77) without it.
 *
 * Drives the backend's operations as the generic store does (begin, write,
 * commit on a writer; read on readers), so each promise of
 * store_backend.h is checked on PostgreSQL itself: migrations once under
 * concurrent starts, ids unique across daemons, this host's recovery only,
 * every row round trip (text and binary COPY), lists filtered by host and
 * by (host, uid), deletes, and a server that stops and comes back.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sc_graph.h"
#include "sc_schema.h"
#include "skip.h"
#include "store_fixture.h"
#include "store_backend.h"
#include "store_pg.h"
#include "store_pg_int.h"

static const sc_store_backend *B = &sc_store_pg_backend;

/* A fresh schema for each test: drop everything of ours. */
static int reset_db(void **state)
{
    (void)state;
    fx_pg_exec(fx_pg_server(),
               "DROP TABLE IF EXISTS schema_migrations, hosts, capture_log, graphs, nodes, edges,"
               " graph_index, captures, pending_graphs CASCADE;"
               " DROP SEQUENCE IF EXISTS session_ids, graph_ids");
    return 0;
}

static sc_store_be *open_be(const char *host)
{
    /* A stopped server fails a write after a second, not the default 10. */
    sc_store_config cfg = {.path = fx_pg_server(), .host = host, .reconnect_ms = 1000};
    sc_store_be *be = NULL;
    char err[256] = "";
    int rc = B->open(&cfg, &be, err, sizeof err);
    if (rc)
        fail_msg("open: %s", err);
    rc = B->migrate(be, err, sizeof err);
    if (rc)
        fail_msg("migrate: %s", err);
    return be;
}

/* Run one job in its own transaction, as the generic writer does. */
static int run_job(sc_store_be *be, sc_store_job *j, char *err, size_t len)
{
    int rc = B->begin(be, 0, err, len);
    if (rc)
        return rc;
    rc = B->write(be, j, err, len);
    if (rc == 0 || rc == SC_STORE_ENOTFOUND) {
        int crc = B->commit(be, err, len);
        if (crc) {
            B->rollback(be);
            return crc;
        }
        return rc;
    }
    B->rollback(be);
    return rc;
}

static int64_t log_open(sc_store_be *be, uint32_t uid, const char *label, int64_t ms)
{
    sc_store_job j = {.type = SC_STORE_JOB_LOG_OPEN};
    j.u.open.uid = uid;
    j.u.open.pid = 4242;
    j.u.open.label = label;
    j.u.open.label_len = strlen(label);
    j.u.open.opened_ms = ms;
    j.u.open.semantics = "oxicuda";
    char err[256];
    int rc = run_job(be, &j, err, sizeof err);
    if (rc)
        fail_msg("log_open: %s", err);
    return j.id;
}

/* Every kind of node, odd names included, on three streams. */
static sc_graph *make_graph(uint32_t n)
{
    sc_graph *g;
    assert_int_equal(sc_graph_create(&g), 0);
    for (uint32_t i = 0; i < n; i++) {
        sc_node node;
        memset(&node, 0, sizeof node);
        node.stream = i % 3;
        static const char *const names[] = {"k\tab\\x\ny", "copy", "set", "cb"};
        node.name = names[i % 4];
        node.name_len = strlen(node.name);
        switch (i % 6) {
        case 0:
            node.kind = SC_KIND_KERNEL;
            node.num_blocks = i + 1;
            node.threads_per_block = 256;
            node.shared_mem = 64;
            node.grid_y = i % 12 == 0 ? 2 : 1;
            /* Every fourth kernel with arguments, a 1-D one among them
             * (i % 12 == 6), and bytes that need escaping in text. */
            if (i % 24 == 0 || i % 24 == 6) {
                static const uint8_t args[] = {0x00, 0x5c, 0x0a, 0x09, 0xff, 0x7f,
                                               0x00, 0x00, 0x2a, 0x00, 0x00, 0x00};
                static const uint32_t sizes[] = {8, 4};
                node.args = args;
                node.args_len = sizeof args;
                node.param_sizes = sizes;
                node.nparams = 2;
            }
            break;
        case 1:
            node.kind = SC_KIND_MEMCPY;
            node.dir = SC_DIR_PEER_TO_PEER;
            node.size_bytes = 1ull << 40;
            node.src_device = 1;
            node.dst_device = 2;
            /* Every other copy with accesses, a u64 past BIGINT among them. */
            if (i % 12 == 1) {
                static const sc_access acc[] = {{UINT64_MAX - 4096, 4096, SC_ACCESS_READ},
                                                {0x7f0000000000, 1ull << 40, SC_ACCESS_WRITE}};
                node.accesses = acc;
                node.naccesses = 2;
            }
            break;
        case 2:
            node.kind = SC_KIND_MEMSET;
            node.size_bytes = 4096;
            node.value = 0xab;
            break;
        case 3:
            node.kind = SC_KIND_HOST_CALLBACK;
            break;
        case 4:
            node.kind = (sc_node_kind)SC_KIND_EVENT_RECORD;
            node.event = 7;
            break;
        default:
            /* Every other one a conditional, of each type in turn. */
            node.kind = (sc_node_kind)SC_KIND_EMPTY;
            if (i % 12 == 5) {
                node.kind = (sc_node_kind)SC_KIND_CONDITIONAL;
                node.cond_type = (sc_cond_type)(i % 36 / 12);
                node.cond_size = node.cond_type == SC_COND_SWITCH ? 7 : 1;
                node.cond_default = i;
                node.cond_flags = i % 24 == 5 ? SC_COND_ASSIGN_DEFAULT : 0;
            }
            break;
        }
        uint32_t id;
        assert_int_equal(sc_graph_add_node(g, &node, &id), 0);
        if (i >= 3)
            assert_int_equal(sc_graph_add_edge(g, i - 3, i), 0);
        if (i >= 1 && i % 5 == 0)
            assert_int_equal(sc_graph_add_edge(g, i - 1, i), 0);
    }
    assert_int_equal(sc_graph_seal(g), 0);
    return g;
}

static int64_t commit(sc_store_be *be, int64_t session, const sc_graph *g, uint32_t uid)
{
    sc_store_job j = {.type = SC_STORE_JOB_COMMIT_GRAPH};
    j.u.commit.session = session;
    j.u.commit.g = g;
    j.u.commit.uid = uid;
    j.u.commit.pid = 4242;
    j.u.commit.label = "train";
    j.u.commit.label_len = 5;
    j.u.commit.created_ms = 1796000000123;
    char err[256];
    int rc = run_job(be, &j, err, sizeof err);
    if (rc)
        fail_msg("commit: %d %s", rc, err);
    return j.id;
}

static sc_store_read *do_read(sc_store_be *be, sc_store_read *rq)
{
    void *reader;
    char err[256];
    if (B->reader_open(be, &reader, err, sizeof err) != 0)
        fail_msg("reader_open: %s", err);
    B->read(reader, rq);
    B->reader_close(reader);
    return rq;
}

static void roundtrip(bool binary)
{
    sc_store_be *be = open_be("alpha");
    store_pg_set_copy_binary(be, binary);
    int64_t s = log_open(be, 1000, "lbl", 1796000000000);
    sc_graph *g = make_graph(5000);
    int64_t gid = commit(be, s, g, 1000);
    assert_true(gid > 0);
    for (int skeleton = 0; skeleton < 2; skeleton++) {
        sc_store_read rq = {.kind = skeleton ? SC_STORE_READ_SKELETON : SC_STORE_READ_LOAD,
                            .graph = gid};
        do_read(be, &rq);
        if (rq.rc)
            fail_msg("load: %s", rq.errmsg);
        assert_int_equal(rq.sg->meta.graph, gid);
        assert_int_equal(rq.sg->meta.session, s);
        assert_int_equal(rq.sg->meta.created_ms, 1796000000123);
        assert_string_equal(rq.sg->meta.host, "alpha");
        assert_string_equal(rq.sg->meta.label, "train");
        assert_int_equal(rq.sg->meta.stream_count, 3);
        if (skeleton)
            fx_assert_same_skeleton(g, rq.sg->graph);
        else
            fx_assert_same_graph(g, rq.sg->graph);
        sc_stored_graph_free(rq.sg);
    }
    /* The log row is completed with the graph. */
    char q[160];
    snprintf(q, sizeof q,
             "SELECT graph FROM capture_log WHERE session = %lld AND outcome ="
             " 'completed' AND host = 'alpha'",
             (long long)s);
    assert_int_equal(fx_pg_int(fx_pg_server(), q), gid);
    sc_graph_destroy(g);
    B->close(be);
}

static void test_roundtrip_text(void **state)
{
    (void)state;
    roundtrip(false);
}

static void test_roundtrip_binary(void **state)
{
    (void)state;
    roundtrip(true);
}

/* Names PostgreSQL text cannot hold keep their bytes, read back as the
 * SQLite store reads its own (valid UTF-8). */
static void test_odd_names(void **state)
{
    (void)state;
    for (int binary = 0; binary < 2; binary++) {
        sc_store_be *be = open_be("alpha");
        store_pg_set_copy_binary(be, binary);
        sc_graph *g;
        assert_int_equal(sc_graph_create(&g), 0);
        sc_node n = {.kind = SC_KIND_HOST_CALLBACK, .name = "a\0b", .name_len = 3};
        uint32_t id;
        assert_int_equal(sc_graph_add_node(g, &n, &id), 0);
        assert_int_equal(sc_graph_seal(g), 0);
        int64_t gid = commit(be, log_open(be, 1, "x", 1), g, 1);
        sc_store_read rq = {.kind = SC_STORE_READ_LOAD, .graph = gid};
        do_read(be, &rq);
        assert_int_equal(rq.rc, 0);
        sc_node back;
        assert_int_equal(sc_graph_node(rq.sg->graph, 0, &back), 0);
        assert_int_equal(back.name_len, 3);
        assert_memory_equal(back.name, "a\0b", 3);
        sc_stored_graph_free(rq.sg);
        sc_graph_destroy(g);
        B->close(be);
    }
}

typedef struct starter {
    const char *host;
    int rc;
    char err[256];
} starter;

static void *start_one(void *p)
{
    starter *s = p;
    sc_store_config cfg = {.path = fx_pg_server(), .host = s->host};
    sc_store_be *be = NULL;
    s->rc = B->open(&cfg, &be, s->err, sizeof s->err);
    if (s->rc == 0)
        s->rc = B->migrate(be, s->err, sizeof s->err);
    B->close(be);
    return NULL;
}

/* Daemons starting at once apply each migration exactly once. */
static void test_concurrent_migrate(void **state)
{
    (void)state;
    enum { N = 6 };
    pthread_t t[N];
    starter s[N];
    char names[N][16];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "host%d", i);
        s[i] = (starter){.host = names[i]};
        assert_int_equal(pthread_create(&t[i], NULL, start_one, &s[i]), 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        if (s[i].rc)
            fail_msg("%s: %s", s[i].host, s[i].err);
    }
    assert_int_equal(fx_pg_int(fx_pg_server(), "SELECT count(*) FROM schema_migrations"),
                     sc_pg_migration_count);
    assert_int_equal(fx_pg_int(fx_pg_server(), "SELECT count(*) FROM hosts"), N);
}

/* A database of a newer build is refused before anything is written. */
static void test_newer_schema_refused(void **state)
{
    (void)state;
    B->close(open_be("alpha"));
    fx_pg_exec(fx_pg_server(),
               "INSERT INTO schema_migrations (version, name) VALUES (999, '999_future.sql')");
    sc_store_config cfg = {.path = fx_pg_server(), .host = "alpha"};
    sc_store_be *be = NULL;
    char err[256] = "";
    assert_int_equal(B->open(&cfg, &be, err, sizeof err), 0);
    assert_int_equal(B->migrate(be, err, sizeof err), SC_STORE_EIO);
    assert_non_null(strstr(err, "999"));
    B->close(be);
}

/* Every problem the check reports, one a line. */
static void collect(void *ctx, int64_t graph, const char *what)
{
    (void)graph;
    char *buf = ctx;
    size_t n = strlen(buf);
    snprintf(buf + n, 4096 - n, "%s\n", what);
}

/* The full check on the server's database: its problems into buf. */
static size_t check_db(char *buf)
{
    sc_store_config cfg = {.path = fx_pg_server()};
    char err[256] = "";
    size_t n = 99;
    buf[0] = '\0';
    if (sc_store_check(&cfg, true, collect, buf, &n, err, sizeof err) != 0)
        fail_msg("sc_store_check: %s", err);
    return n;
}

/* A start on the database: refused, naming `want`. */
static void start_refused(const char *want)
{
    sc_store_config cfg = {.path = fx_pg_server(), .host = "alpha"};
    sc_store_be *be = NULL;
    char err[512] = "";
    assert_int_equal(B->open(&cfg, &be, err, sizeof err), 0);
    assert_int_equal(B->migrate(be, err, sizeof err), SC_STORE_EIO);
    if (!strstr(err, "start-up integrity check") || !strstr(err, want))
        fail_msg("refused for: %s", err);
    B->close(be);
}

/* --check-db's checks and the start-up part on PostgreSQL: a clean store,
 * a wrong node count, a graph both pending and visible, orphan rows. */
static void test_integrity_check(void **state)
{
    (void)state;
    sc_store_be *be = open_be("alpha");
    sc_graph *g = make_graph(6);
    int64_t old = commit(be, log_open(be, 1000, "a", 1), g, 1000);
    int64_t newest = commit(be, log_open(be, 1000, "b", 2), g, 1000);
    B->close(be);
    sc_graph_destroy(g);
    char buf[4096], sql[256], want[160];
    assert_int_equal(check_db(buf), 0);

    snprintf(sql, sizeof sql, "UPDATE graphs SET node_count = 7 WHERE graph = %lld",
             (long long)newest);
    fx_pg_exec(fx_pg_server(), sql);
    snprintf(want, sizeof want, "graph %lld: its node rows hold 6 nodes, its node count says 7",
             (long long)newest);
    /* The index row disagrees with the new count too. */
    assert_int_equal(check_db(buf), 2);
    assert_non_null(strstr(buf, want));
    start_refused(want);
    snprintf(sql, sizeof sql, "UPDATE graphs SET node_count = 6 WHERE graph = %lld",
             (long long)newest);
    fx_pg_exec(fx_pg_server(), sql);

    snprintf(sql, sizeof sql,
             "INSERT INTO pending_graphs (graph, host, session, started_at) VALUES (%lld, 'alpha',"
             " 1, now())",
             (long long)old);
    fx_pg_exec(fx_pg_server(), sql);
    snprintf(want, sizeof want, "graph %lld: it is visible while still listed as pending",
             (long long)old);
    assert_int_equal(check_db(buf), 1);
    assert_non_null(strstr(buf, want));
    start_refused(want);
    fx_pg_exec(fx_pg_server(), "DELETE FROM pending_graphs");

    fx_pg_exec(fx_pg_server(), "INSERT INTO edges (graph, src, dst) VALUES (424242, 0, 1)");
    assert_int_equal(check_db(buf), 1);
    assert_non_null(strstr(buf, "graph 424242: edge rows of a graph that does not exist"));
}

/* Two daemons interleaving: ids never collide, a start recovers only its
 * own host's open rows, and lists filter by host and by (host, uid). */
static void test_two_hosts(void **state)
{
    (void)state;
    sc_store_be *a = open_be("alpha"), *b = open_be("beta");
    int64_t ids[8];
    for (int i = 0; i < 8; i++)
        ids[i] = log_open(i % 2 ? b : a, 1000, "s", 1796000000000 + i);
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < i; k++)
            assert_int_not_equal(ids[i], ids[k]);
    sc_graph *g = make_graph(10);
    int64_t ga = commit(a, ids[0], g, 1000), gb = commit(b, ids[1], g, 1000);
    assert_int_not_equal(ga, gb);

    /* alpha restarts: its open rows are lost, beta's stay open. */
    B->close(a);
    a = open_be("alpha");
    assert_int_equal(fx_pg_int(fx_pg_server(),
                               "SELECT count(*) FROM capture_log WHERE host = 'alpha' AND"
                               " outcome = 'lost'"),
                     3);
    assert_int_equal(fx_pg_int(fx_pg_server(),
                               "SELECT count(*) FROM capture_log WHERE host = 'beta' AND"
                               " outcome = 'open'"),
                     3);

    /* uid 1000 on alpha sees alpha's graph only; root sees both; a host
     * filter narrows root's list. */
    sc_store_read rq = {.kind = SC_STORE_READ_GRAPHS};
    rq.graphs.limit = 10;
    rq.graphs.uid = 1000;
    do_read(a, &rq);
    assert_int_equal(rq.rc, 0);
    assert_int_equal(rq.graph_page->count, 1);
    assert_int_equal(rq.graph_page->graphs[0].graph, ga);
    sc_graph_page_free(rq.graph_page);

    sc_store_read all = {.kind = SC_STORE_READ_GRAPHS};
    all.graphs.limit = 1;
    all.graphs.any_owner = true;
    do_read(a, &all);
    assert_int_equal(all.graph_page->count, 1);
    assert_true(all.graph_page->has_more);
    assert_int_equal(all.graph_page->graphs[0].graph, gb > ga ? gb : ga);
    sc_graph_page_free(all.graph_page);

    sc_store_read lg = {.kind = SC_STORE_READ_LOG};
    lg.log.limit = 100;
    lg.log.any_owner = true;
    lg.log.host = "beta";
    lg.log.host_len = 4;
    do_read(a, &lg);
    assert_int_equal(lg.rc, 0);
    assert_int_equal(lg.log_page->count, 4);
    for (size_t i = 0; i < lg.log_page->count; i++) {
        assert_string_equal(lg.log_page->entries[i].host, "beta");
        if (i)
            assert_true(lg.log_page->entries[i].opened_ms < lg.log_page->entries[i - 1].opened_ms);
    }
    sc_log_page_free(lg.log_page);

    /* Counts are per host: alpha's owner 1000 has one graph. */
    sc_graph_destroy(g);
    B->close(a);
    B->close(b);
}

static void test_delete_and_notfound(void **state)
{
    (void)state;
    sc_store_be *be = open_be("alpha");
    sc_graph *g = make_graph(50);
    int64_t s = log_open(be, 7, "d", 5);
    int64_t gid = commit(be, s, g, 7);
    /* A second commit into a completed session is refused, nothing written. */
    sc_store_job again = {.type = SC_STORE_JOB_COMMIT_GRAPH};
    again.u.commit.session = s;
    again.u.commit.g = g;
    char err[256];
    assert_int_equal(run_job(be, &again, err, sizeof err), SC_STORE_ENOTFOUND);
    sc_store_job d = {.type = SC_STORE_JOB_DELETE_GRAPH};
    d.u.del.graph = gid;
    d.u.del.deleted_ms = 99;
    assert_int_equal(run_job(be, &d, err, sizeof err), 0);
    assert_int_equal(d.u.del.uid, 7);
    assert_int_equal(run_job(be, &d, err, sizeof err), SC_STORE_ENOTFOUND);
    assert_int_equal(fx_pg_int(fx_pg_server(), "SELECT count(*) FROM nodes"), 0);
    char q[128];
    snprintf(q, sizeof q,
             "SELECT (extract(epoch from graph_deleted_at) * 1000)::bigint FROM capture_log"
             " WHERE session = %lld",
             (long long)s);
    assert_int_equal(fx_pg_int(fx_pg_server(), q), 99);
    sc_store_read rq = {.kind = SC_STORE_READ_META, .graph = gid};
    do_read(be, &rq);
    assert_int_equal(rq.rc, SC_STORE_ENOTFOUND);
    /* Ending a row that is not open changes nothing. */
    sc_store_job e = {.type = SC_STORE_JOB_LOG_END};
    e.u.end.session = s;
    e.u.end.outcome = "closed";
    assert_int_equal(run_job(be, &e, err, sizeof err), SC_STORE_ENOTFOUND);
    sc_graph_destroy(g);
    B->close(be);
}

/* A chunked commit is invisible until its last transaction, and a dead
 * daemon's pending rows go when its host starts again. */
static void test_chunks(void **state)
{
    (void)state;
    sc_store_be *be = open_be("alpha");
    sc_graph *g = make_graph(1000);
    int64_t s = log_open(be, 1, "c", 1);
    sc_store_job j = {.type = SC_STORE_JOB_COMMIT_GRAPH};
    j.u.commit.session = s;
    j.u.commit.g = g;
    j.u.commit.label = "";
    char err[256];
    for (uint32_t lo = 0; lo < 1000; lo += 300) {
        assert_int_equal(B->begin(be, SC_STORE_TXN_UNACKED, err, sizeof err), 0);
        assert_int_equal(
            B->write_chunk(be, &j, lo, lo + 300 > 1000 ? 1000 : lo + 300, err, sizeof err), 0);
        assert_int_equal(B->commit(be, err, sizeof err), 0);
    }
    assert_true(j.u.commit.pending_gid > 0);
    assert_int_equal(fx_pg_int(fx_pg_server(), "SELECT count(*) FROM graphs"), 0);
    assert_int_equal(fx_pg_int(fx_pg_server(), "SELECT count(*) FROM nodes"), 1000);
    assert_int_equal(run_job(be, &j, err, sizeof err), 0);
    assert_int_equal(j.id, j.u.commit.pending_gid);
    assert_int_equal(fx_pg_int(fx_pg_server(), "SELECT count(*) FROM pending_graphs"), 0);
    sc_store_read rq = {.kind = SC_STORE_READ_LOAD, .graph = j.id};
    do_read(be, &rq);
    assert_int_equal(rq.rc, 0);
    fx_assert_same_graph(g, rq.sg->graph);
    sc_stored_graph_free(rq.sg);

    /* Half a commit, then the daemon "dies": its next start cleans up. */
    sc_store_job k = {.type = SC_STORE_JOB_COMMIT_GRAPH};
    k.u.commit.session = log_open(be, 1, "c", 2);
    k.u.commit.g = g;
    assert_int_equal(B->begin(be, 0, err, sizeof err), 0);
    assert_int_equal(B->write_chunk(be, &k, 0, 500, err, sizeof err), 0);
    assert_int_equal(B->commit(be, err, sizeof err), 0);
    B->close(be);
    B->close(open_be("beta"));
    assert_int_equal(fx_pg_int(fx_pg_server(), "SELECT count(*) FROM pending_graphs"), 1);
    B->close(open_be("alpha"));
    assert_int_equal(fx_pg_int(fx_pg_server(), "SELECT count(*) FROM pending_graphs"), 0);
    assert_int_equal(fx_pg_int(fx_pg_server(), "SELECT count(*) FROM nodes"), 1000);
    sc_graph_destroy(g);
}

/* The server stops: writes and reads fail with EIO (so clients get 1007
 * and nothing is acknowledged); it comes back: the same backend works
 * again without being reopened. */
static bool restart_unmet(char *why, size_t len)
{
    if (getenv("STREAMCAP_TEST_PG_STOP") && getenv("STREAMCAP_TEST_PG_START"))
        return false;
    snprintf(why, len,
             "STREAMCAP_TEST_PG_STOP and STREAMCAP_TEST_PG_START are not both set"
             " (tests/pg/cluster.sh sets them)");
    return true;
}

static void test_server_restart(void **state)
{
    (void)state;
    const char *stop = getenv("STREAMCAP_TEST_PG_STOP"), *start = getenv("STREAMCAP_TEST_PG_START");
    sc_store_be *be = open_be("alpha");
    void *reader;
    char err[256];
    assert_int_equal(B->reader_open(be, &reader, err, sizeof err), 0);
    int64_t s = log_open(be, 1, "r", 1);
    assert_int_equal(system(stop), 0);

    sc_store_job j = {.type = SC_STORE_JOB_LOG_OPEN};
    j.u.open.label = "";
    j.u.open.semantics = "oxicuda";
    assert_int_equal(run_job(be, &j, err, sizeof err), SC_STORE_EIO);
    assert_int_equal(run_job(be, &j, err, sizeof err), SC_STORE_EIO);
    assert_non_null(strstr(err, "database"));
    sc_store_read rq = {.kind = SC_STORE_READ_LOG};
    rq.log.limit = 5;
    rq.log.any_owner = true;
    B->read(reader, &rq);
    assert_int_equal(rq.rc, SC_STORE_EIO);
    sc_log_page_free(rq.log_page);

    assert_int_equal(system(start), 0);
    j.id = 0;
    assert_int_equal(run_job(be, &j, err, sizeof err), 0);
    assert_true(j.id > s);
    sc_store_read again = {.kind = SC_STORE_READ_LOG};
    again.log.limit = 5;
    again.log.any_owner = true;
    B->read(reader, &again);
    assert_int_equal(again.rc, 0);
    assert_int_equal(again.log_page->count, 2);
    sc_log_page_free(again.log_page);
    B->reader_close(reader);
    B->close(be);
}

/* A server that restarted while the writer's connection sat idle: the
 * connection learns it only at the next BEGIN, which connects again and
 * succeeds instead of failing the write. */
static void test_first_write_after_restart(void **state)
{
    (void)state;
    sc_store_be *be = open_be("alpha");
    int64_t s = log_open(be, 1, "a", 1);
    assert_int_equal(system(getenv("STREAMCAP_TEST_PG_STOP")), 0);
    assert_int_equal(system(getenv("STREAMCAP_TEST_PG_START")), 0);
    assert_true(log_open(be, 1, "b", 2) > s);
    assert_int_equal(B->txn_outcome(be), SC_STORE_TXN_PLAIN);
    B->close(be);
}

/* The connection cut with the transaction open: its COMMIT gets no answer,
 * and the backend learns on a new connection that it did not commit. */
static void test_commit_on_cut_connection(void **state)
{
    (void)state;
    sc_store_be *be = open_be("alpha");
    sc_store_job j = {.type = SC_STORE_JOB_LOG_OPEN};
    j.u.open.label = "cut";
    j.u.open.label_len = 3;
    j.u.open.semantics = "oxicuda";
    char err[256];
    assert_int_equal(B->begin(be, 0, err, sizeof err), 0);
    assert_int_equal(B->write(be, &j, err, sizeof err), 0);
    assert_int_equal(fx_pg_int(fx_pg_server(),
                               "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                               " WHERE state = 'idle in transaction' AND pid <> pg_backend_pid()"),
                     1);
    assert_int_equal(B->commit(be, err, sizeof err), SC_STORE_EIO);
    assert_int_equal(B->txn_outcome(be), SC_STORE_TXN_ABORTED);
    assert_non_null(strstr(err, "not committed"));
    B->rollback(be);
    assert_int_equal(
        fx_pg_int(fx_pg_server(), "SELECT count(*) FROM capture_log WHERE label = 'cut'"), 0);
    /* Run again, it commits on the new connection. */
    assert_int_equal(run_job(be, &j, err, sizeof err), 0);
    assert_int_equal(B->txn_outcome(be), SC_STORE_TXN_PLAIN);
    assert_int_equal(
        fx_pg_int(fx_pg_server(), "SELECT count(*) FROM capture_log WHERE label = 'cut'"), 1);
    B->close(be);
}

/* A COMMIT on its own thread, as the writer runs it. */
typedef struct committer {
    sc_store_be *be;
    sc_store_job j;
    int rc;
    char err[512];
} committer;

static void *commit_one(void *arg)
{
    committer *c = arg;
    c->rc = B->begin(c->be, 0, c->err, sizeof c->err);
    if (c->rc == 0)
        c->rc = B->write(c->be, &c->j, c->err, sizeof c->err);
    if (c->rc == 0)
        c->rc = B->commit(c->be, c->err, sizeof c->err);
    return NULL;
}

/*
 * A COMMIT that committed but whose answer never came: with a synchronous
 * standby that does not exist, the server records the commit and then
 * waits; its backend is ended meanwhile (terminate), or the server is
 * stopped, so the connection breaks after the commit and before the
 * answer.  The commit runs on a thread; this one waits for it to reach
 * the wait, then breaks it.
 */
static void stuck_commit(sc_store_be *be, const char *label, const char *breaker, committer *c)
{
    const char *pg = fx_pg_server();
    fx_pg_exec(pg, "ALTER SYSTEM SET synchronous_standby_names = 'nobody'");
    fx_pg_int(pg, "SELECT 1 FROM pg_reload_conf()");
    nanosleep(&(struct timespec){.tv_nsec = 300 * 1000 * 1000}, NULL);
    *c = (committer){.be = be, .j = {.type = SC_STORE_JOB_LOG_OPEN}};
    c->j.u.open.label = label;
    c->j.u.open.label_len = strlen(label);
    c->j.u.open.semantics = "oxicuda";
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, commit_one, c), 0);
    int waiting = 0;
    for (int i = 0; i < 200 && !waiting; i++) {
        nanosleep(&(struct timespec){.tv_nsec = 50 * 1000 * 1000}, NULL);
        waiting = (int)fx_pg_int(pg, "SELECT count(*) FROM pg_stat_activity"
                                     " WHERE wait_event = 'SyncRep'");
    }
    assert_int_equal(waiting, 1);
    if (strcmp(breaker, "terminate") == 0)
        assert_int_equal(fx_pg_int(pg, "SELECT count(pg_terminate_backend(pid))"
                                       " FROM pg_stat_activity WHERE wait_event = 'SyncRep'"),
                         1);
    else
        assert_int_equal(system(breaker), 0);
    pthread_join(t, NULL);
}

static void no_standby(void)
{
    const char *pg = fx_pg_server();
    fx_pg_exec(pg, "ALTER SYSTEM RESET synchronous_standby_names");
    fx_pg_int(pg, "SELECT 1 FROM pg_reload_conf()");
    nanosleep(&(struct timespec){.tv_nsec = 300 * 1000 * 1000}, NULL);
}

/* The answer lost, the server still up: found committed, a success. */
static void test_commit_answer_lost(void **state)
{
    (void)state;
    sc_store_be *be = open_be("alpha");
    committer c;
    stuck_commit(be, "lost", "terminate", &c);
    no_standby();
    if (c.rc)
        fail_msg("commit: %s", c.err);
    assert_int_equal(B->txn_outcome(be), SC_STORE_TXN_COMMITTED);
    assert_int_equal(fx_pg_int(fx_pg_server(), "SELECT count(*) FROM capture_log"
                                               " WHERE label = 'lost'"),
                     1);
    assert_true(log_open(be, 1, "next", 2) > c.j.id);
    B->close(be);
}

/* The answer lost and the server gone for longer than the bound: the
 * write fails saying that its outcome is unknown (here: it committed). */
static void test_commit_outcome_unknown(void **state)
{
    (void)state;
    sc_store_be *be = open_be("alpha");
    committer c;
    stuck_commit(be, "unknown", getenv("STREAMCAP_TEST_PG_STOP"), &c);
    assert_int_equal(c.rc, SC_STORE_EIO);
    assert_int_equal(B->txn_outcome(be), SC_STORE_TXN_UNKNOWN);
    assert_non_null(strstr(c.err, "outcome unknown"));
    B->rollback(be);
    assert_int_equal(system(getenv("STREAMCAP_TEST_PG_START")), 0);
    no_standby();
    assert_int_equal(fx_pg_int(fx_pg_server(), "SELECT count(*) FROM capture_log"
                                               " WHERE label = 'unknown'"),
                     1);
    assert_true(log_open(be, 1, "next", 2) > 0);
    B->close(be);
}

/* The plan of `sql` with parameters `p` on `c`, every line joined; fails
 * the test when the server refuses it. */
static char *plan_of(PGconn *c, const char *sql, const params *p)
{
    size_t n = strlen(sql) + 9;
    char *explain = malloc(n);
    assert_non_null(explain);
    snprintf(explain, n, "EXPLAIN %s", sql);
    PGresult *r = PQexecParams(c, explain, p->n, NULL, p->v, NULL, NULL, 0);
    free(explain);
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        fail_msg("EXPLAIN %s: %s", sql, PQerrorMessage(c));
    size_t len = 1;
    for (int i = 0; i < PQntuples(r); i++)
        len += strlen(PQgetvalue(r, i, 0)) + 2;
    char *out = calloc(1, len);
    assert_non_null(out);
    for (int i = 0; i < PQntuples(r); i++) {
        strcat(out, PQgetvalue(r, i, 0));
        strcat(out, "; ");
    }
    PQclear(r);
    return out;
}

/* Every graph.list and log.list page, with each combination of filters,
 * first page and cursor page, is served by an index: with sequential
 * scans priced out, a plan that still scans a table has no index to use. */
static void test_list_plans_use_indexes(void **state)
{
    (void)state;
    sc_store_be *be = open_be("alpha");
    const char *pg = fx_pg_server();
    /* Enough rows that the statistics are not of an empty table. */
    fx_pg_exec(pg, "INSERT INTO graphs (host, session, label, created_at, owner_uid, owner_pid,"
                   " node_count, edge_count, stream_count, fp_structure, fp_full)"
                   " SELECT CASE WHEN i % 3 = 0 THEN 'beta' ELSE 'alpha' END, i,"
                   " 'l' || (i % 50), now(), i % 20, 1, 10, 9, 1, lpad(to_hex(i), 16, '0'),"
                   " lpad(to_hex(i + 1000000), 16, '0') FROM generate_series(1, 20000) AS i;"
                   "INSERT INTO capture_log (host, label, owner_uid, owner_pid, opened_at,"
                   " outcome) SELECT CASE WHEN i % 3 = 0 THEN 'beta' ELSE 'alpha' END, '', i % 20,"
                   " 1, now() - i * interval '1 second', CASE WHEN i % 7 = 0 THEN 'open'"
                   " ELSE 'failed' END FROM generate_series(1, 20000) AS i;"
                   "ANALYZE graphs; ANALYZE capture_log");
    PGconn *c = PQconnectdb(pg);
    assert_int_equal(PQstatus(c), CONNECTION_OK);
    PQclear(PQexec(c, "SET enable_seqscan = off"));
    char sql[2048];
    for (int v = 0; v < 32; v++) {
        sc_graph_query q = {.limit = 100, .any_owner = !(v & 1), .uid = 3};
        if (v & 2) {
            q.label = "l7";
            q.label_len = 2;
        }
        if (v & 4) {
            q.host = "beta";
            q.host_len = 4;
        }
        if (v & 8) {
            q.by_fingerprint = true;
            q.fingerprint = 0x123;
        }
        if (v & 16)
            q.before_graph = 10000;
        params p;
        assert_true(store_pg_graphs_sql(&q, "alpha", sql, sizeof sql, &p));
        char *plan = plan_of(c, sql, &p);
        p_free(&p);
        if (strstr(plan, "Seq Scan"))
            fail_msg("graph.list variant %d scans: %s", v, plan);
        free(plan);
    }
    for (int v = 0; v < 16; v++) {
        sc_log_query q = {.limit = 100, .any_owner = !(v & 1), .uid = 3};
        if (v & 2)
            q.outcome = "failed";
        if (v & 4) {
            q.host = "beta";
            q.host_len = 4;
        }
        if (v & 8) {
            q.has_before = true;
            q.before_opened_ms = 1;
            q.before_session = 5000;
        }
        params p;
        assert_true(store_pg_log_sql(&q, "alpha", sql, sizeof sql, &p));
        char *plan = plan_of(c, sql, &p);
        p_free(&p);
        if (strstr(plan, "Seq Scan"))
            fail_msg("log.list variant %d scans: %s", v, plan);
        free(plan);
    }
    PQfinish(c);
    B->close(be);
}

int main(int argc, char **argv)
{
    if (!fx_pg_server())
        return sc_test_skip("test_pg_backend", "STREAMCAP_TEST_PG is not set"
                                               " (run it under tests/pg/cluster.sh)");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_roundtrip_text, reset_db),
        cmocka_unit_test_setup(test_list_plans_use_indexes, reset_db),
        cmocka_unit_test_setup(test_roundtrip_binary, reset_db),
        cmocka_unit_test_setup(test_odd_names, reset_db),
        cmocka_unit_test_setup(test_concurrent_migrate, reset_db),
        cmocka_unit_test_setup(test_newer_schema_refused, reset_db),
        cmocka_unit_test_setup(test_integrity_check, reset_db),
        cmocka_unit_test_setup(test_two_hosts, reset_db),
        cmocka_unit_test_setup(test_delete_and_notfound, reset_db),
        cmocka_unit_test_setup(test_chunks, reset_db),
        cmocka_unit_test_setup(test_server_restart, reset_db),
        cmocka_unit_test_setup(test_first_write_after_restart, reset_db),
        cmocka_unit_test_setup(test_commit_on_cut_connection, reset_db),
        cmocka_unit_test_setup(test_commit_answer_lost, reset_db),
        cmocka_unit_test_setup(test_commit_outcome_unknown, reset_db),
    };
    const sc_test_need needs[] = {{"test_server_restart", restart_unmet},
                                  {"test_first_write_after_restart", restart_unmet},
                                  {"test_commit_outcome_unknown", restart_unmet}};
    return SC_TEST_MAIN(argc, argv, tests, needs);
}
