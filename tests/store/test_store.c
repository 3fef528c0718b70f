/*
 * test_store.c - the store's normal paths: migrations, the capture log,
 * graph round trips, group commit, recovery of open rows, and closing with
 * work in flight.  The shell queries of docs/sql.md are tested by
 * test_sql_doc.c, straight from the document.
 */
/* SCHED_BATCH (<sched.h>) is Linux's, declared under _GNU_SOURCE. */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_schema.h"
#include "store_fixture.h"

#define T0 1795981461123LL /* 2026-11-29T19:44:21.123Z */

/* ---- migrations ---- */

/* The schema version as each backend records it: PRAGMA user_version on
 * SQLite, the newest row of schema_migrations on PostgreSQL. */
static int64_t schema_version(fx_sql *db)
{
    return q_int(db,
                 fx_pick(db, "PRAGMA user_version", "SELECT max(version) FROM schema_migrations"));
}

static int latest_version(const fx *f)
{
    const sc_migration *m = fx_is_pg(f) ? sc_pg_migrations : sc_migrations;
    size_t n = fx_is_pg(f) ? sc_pg_migration_count : sc_migration_count;
    return m[n - 1].version;
}

static void test_migrations_applied_once(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    int64_t s = fx_open_session(f, "kept", T0);
    fx_close(f);

    fx_sql *db = fx_db(f);
    int latest = latest_version(f);
    assert_int_equal(schema_version(db), latest);
    assert_int_equal(
        q_int(db, fx_pick(db,
                          "SELECT count(*) FROM sqlite_master WHERE type IN ('table', 'view')"
                          " AND name IN ('capture_log', 'graphs', 'nodes', 'edges')",
                          "SELECT count(*) FROM pg_tables WHERE tablename"
                          " IN ('capture_log', 'graphs', 'nodes', 'edges')")),
        4);
    if (!fx_is_pg(f)) {
        char *mode = q_text(db, "PRAGMA journal_mode");
        assert_string_equal(mode, "wal");
        free(mode);
    } else {
        /* Each migration is recorded once. */
        assert_int_equal(q_int(db, "SELECT count(*) FROM schema_migrations"),
                         sc_pg_migration_count);
    }
    fx_db_close(db);

    /* Reopening must not re-run 001 (its CREATE TABLEs would fail) and
     * must keep the data. */
    fx_open(f, 1000, 0);
    fx_close(f);
    db = fx_db(f);
    assert_int_equal(schema_version(db), latest);
    assert_int_equal(q_int(db, "SELECT count(*) FROM capture_log WHERE session = %lld", s), 1);
    fx_db_close(db);
}

static void test_newer_schema_refused(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    fx_close(f);
    fx_sql *db = fx_db(f);
    q_exec(db, fx_pick(db, "PRAGMA user_version = 999",
                       "INSERT INTO schema_migrations (version, name) VALUES (999, 'future')"));
    fx_db_close(db);

    sc_store_config cfg = {.path = f->path, .sync_full = true, .busy_timeout_ms = 100};
    char err[256] = "";
    static char sentinel;
    sc_store *st = (sc_store *)(void *)&sentinel; /* must be reset to NULL on failure */
    assert_int_equal(sc_store_open(&f->loop, &cfg, &st, err, sizeof err), SC_STORE_EIO);
    assert_null(st);
    assert_non_null(strstr(err, "999"));
}

/* ---- capture log ---- */

static void test_log_open_rows(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    static const int64_t times[] = {0, 951782400000LL, 1709251199999LL, T0, 4102444799999LL};
    static const char *const labels[] = {"first", NULL, "ünïcödé ✓", "", "last"};
    int64_t ids[5];
    wres w[5] = {{0}};
    for (int i = 0; i < 5; i++)
        assert_int_equal(sc_store_log_open(f->st, 1000 + (uint32_t)i, 700 + i, labels[i],
                                           labels[i] ? strlen(labels[i]) : 0, times[i], wres_cb,
                                           &w[i]),
                         0);
    fx_drain(f);

    fx_sql *db = fx_db(f);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(w[i].calls, 1);
        assert_int_equal(w[i].rc, SC_STORE_OK);
        ids[i] = w[i].id;
        if (i > 0)
            assert_true(ids[i] > ids[i - 1]);
        char *label = q_text(db, "SELECT label FROM capture_log WHERE session = %lld", ids[i]);
        assert_string_equal(label, labels[i] ? labels[i] : "");
        free(label);
        assert_int_equal(
            q_int(db, "SELECT owner_uid FROM capture_log WHERE session = %lld", ids[i]), 1000 + i);
        assert_int_equal(
            q_int(db, "SELECT owner_pid FROM capture_log WHERE session = %lld", ids[i]), 700 + i);
        char *outcome = q_text(db, "SELECT outcome FROM capture_log WHERE session = %lld", ids[i]);
        assert_string_equal(outcome, "open");
        free(outcome);
        assert_int_equal(q_int(db,
                               "SELECT ended_at IS NULL AND graph IS NULL AND node_count = 0"
                               " FROM capture_log WHERE session = %lld",
                               ids[i]),
                         1);
        /* The database's own date functions are the reference for the
         * format (SQLite) or the time (PostgreSQL). */
        assert_int_equal(
            q_int(
                db,
                fx_pick(db,
                        "SELECT opened_at = strftime('%%Y-%%m-%%dT%%H:%%M:%%S', %lld / 1000,"
                        " 'unixepoch') || printf('.%%03dZ', %lld %% 1000)"
                        " FROM capture_log WHERE session = %lld",
                        "SELECT opened_at = 'epoch'::timestamptz + %lld / 1000 * interval '1 s'"
                        " + %lld %% 1000 * interval '1 ms' FROM capture_log WHERE session = %lld"),
                times[i], times[i], ids[i]),
            1);
    }
    char *t = q_text(db, "SELECT opened_at FROM capture_log WHERE session = %lld", ids[3]);
    assert_string_equal(t, "2026-11-29T19:44:21.123Z");
    free(t);
    fx_db_close(db);
}

static void test_log_end_outcomes(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    static const char *const outcomes[] = {"failed", "closed", "abandoned", "shutdown"};
    fx_sql *db = fx_db(f);
    for (int i = 0; i < 4; i++) {
        int64_t s = fx_open_session(f, "x", T0);
        wres w = {0};
        assert_int_equal(sc_store_log_end(f->st, s, outcomes[i], 10 + (uint32_t)i,
                                          T0 + 1000 * (i + 1), wres_cb, &w),
                         0);
        fx_drain(f);
        assert_int_equal(w.calls, 1);
        assert_int_equal(w.rc, SC_STORE_OK);
        char *o = q_text(db, "SELECT outcome FROM capture_log WHERE session = %lld", s);
        assert_string_equal(o, outcomes[i]);
        free(o);
        assert_int_equal(q_int(db, "SELECT node_count FROM capture_log WHERE session = %lld", s),
                         10 + i);
        char *e = q_text(db, "SELECT ended_at FROM capture_log WHERE session = %lld", s);
        char want[32];
        snprintf(want, sizeof want, "2026-11-29T19:44:%02d.123Z", 22 + i);
        assert_string_equal(e, want);
        free(e);

        /* A second end finds no open row and changes nothing. */
        wres again = {0};
        assert_int_equal(sc_store_log_end(f->st, s, "closed", 99, T0, wres_cb, &again), 0);
        fx_drain(f);
        assert_int_equal(again.calls, 1);
        assert_int_equal(again.rc, SC_STORE_ENOTFOUND);
        assert_int_equal(q_int(db, "SELECT node_count FROM capture_log WHERE session = %lld", s),
                         10 + i);
    }
    wres w = {0};
    assert_int_equal(sc_store_log_end(f->st, 987654, "closed", 0, T0, wres_cb, &w), 0);
    fx_drain(f);
    assert_int_equal(w.rc, SC_STORE_ENOTFOUND);

    /* Only the four end outcomes are accepted, and no callback runs. */
    int64_t s = fx_open_session(f, "x", T0);
    wres bad = {0};
    assert_int_equal(sc_store_log_end(f->st, s, "completed", 0, T0, wres_cb, &bad),
                     SC_STORE_EINVAL);
    assert_int_equal(sc_store_log_end(f->st, s, "lost", 0, T0, wres_cb, &bad), SC_STORE_EINVAL);
    assert_int_equal(sc_store_log_end(f->st, s, NULL, 0, T0, wres_cb, &bad), SC_STORE_EINVAL);
    fx_drain(f);
    assert_int_equal(bad.calls, 0);
    char *o = q_text(db, "SELECT outcome FROM capture_log WHERE session = %lld", s);
    assert_string_equal(o, "open");
    free(o);
    fx_db_close(db);
}

/* ---- graphs ---- */

static const char nul_name[] = {'a', '\0', 'b'};

/* Every kind, every memcpy direction, UTF-8 and NUL bytes in names,
 * duplicate edges (removed by the seal). */
static sc_graph *mixed_graph(void)
{
    /* gemm_fp16(const half *a, int n, char c) as the runtime copied them. */
    static const uint8_t gemm_args[] = {0x00, 0x10, 0x00, 0x00, 0x00, 0x7f, 0x00,
                                        0x00, 0x00, 0x04, 0x00, 0x00, 0x22};
    static const uint32_t gemm_sizes[] = {8, 4, 1};
    /* Buffer accesses, the largest address the wire takes among them. */
    static const sc_access gemm_acc[] = {{0x7f0000001000, 4096, SC_ACCESS_READ},
                                         {0x7f0000002000, 1, SC_ACCESS_READ_WRITE},
                                         {1ULL << 53, 1ULL << 40, SC_ACCESS_WRITE}};
    static const sc_access copy_acc[] = {{0x10, 64, SC_ACCESS_WRITE}};
    const sc_node nodes[] = {
        {.kind = SC_KIND_KERNEL,
         .stream = 0,
         .name = "gemm_fp16",
         .name_len = 9,
         .num_blocks = 1024,
         .threads_per_block = 256,
         .shared_mem = 49152,
         .args = gemm_args,
         .args_len = sizeof gemm_args,
         .param_sizes = gemm_sizes,
         .nparams = 3,
         .accesses = gemm_acc,
         .naccesses = 3},
        {.kind = SC_KIND_MEMCPY,
         .stream = 0,
         .name = "h2d",
         .name_len = 3,
         .dir = SC_DIR_HOST_TO_DEVICE,
         .size_bytes = 1ULL << 40},
        {.kind = SC_KIND_MEMCPY,
         .stream = 3,
         .name = "p2p \xe2\x86\x92",
         .name_len = 7,
         .dir = SC_DIR_PEER_TO_PEER,
         .size_bytes = 4096,
         .src_device = 1,
         .dst_device = 4000000000u},
        {.kind = SC_KIND_MEMSET,
         .stream = 3,
         .name = "zero",
         .name_len = 4,
         .size_bytes = 64,
         .value = 255,
         .accesses = copy_acc,
         .naccesses = 1},
        {.kind = SC_KIND_HOST_CALLBACK,
         .stream = 4294967295u,
         .name = "\xce\xbb callback \xe2\x9c\x93",
         .name_len = 15},
        {.kind = SC_KIND_KERNEL,
         .stream = 3,
         .name = nul_name,
         .name_len = sizeof nul_name,
         .num_blocks = 1,
         .threads_per_block = 1},
        {.kind = SC_KIND_MEMCPY,
         .stream = 4294967295u,
         .name = "d2d",
         .name_len = 3,
         .dir = SC_DIR_DEVICE_TO_DEVICE},
        {.kind = SC_KIND_MEMCPY,
         .stream = 0,
         .name = "\xf0\x9f\x9a\x80 back",
         .name_len = 9,
         .dir = SC_DIR_DEVICE_TO_HOST,
         .size_bytes = 12345},
    };
    static const uint32_t edges[][2] = {{0, 1}, {1, 7}, {0, 2}, {2, 3}, {3, 5}, {4, 6},
                                        {0, 4}, {5, 7}, {6, 7}, {0, 1}, {2, 5}, {2, 3}};
    sc_graph *g = NULL;
    assert_int_equal(sc_graph_create(&g), 0);
    for (uint32_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
        uint32_t id;
        assert_int_equal(sc_graph_add_node(g, &nodes[i], &id), 0);
        assert_int_equal(id, i);
    }
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        assert_int_equal(sc_graph_add_edge(g, edges[i][0], edges[i][1]), 0);
    assert_int_equal(sc_graph_seal(g), 0);
    return g;
}

static int64_t commit(fx *f, int64_t session, const sc_graph *g, const char *label,
                      int64_t created_ms, wres *w)
{
    memset(w, 0, sizeof *w);
    assert_int_equal(sc_store_commit_graph(f->st, session, g, 1000, 4242, label, strlen(label),
                                           created_ms, wres_cb, w),
                     0);
    fx_drain(f);
    assert_int_equal(w->calls, 1);
    return w->id;
}

static void test_commit_and_load_roundtrip(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    sc_graph *g = mixed_graph();
    int64_t count = -1;
    assert_int_equal(sc_store_graph_count(f->st, &count), 0);
    assert_int_equal(count, 0);

    int64_t s = fx_open_session(f, "train step", T0);
    wres w;
    int64_t gid = commit(f, s, g, "train step \xe2\x9c\x93", T0 + 5000, &w);
    assert_int_equal(w.rc, SC_STORE_OK);
    assert_true(gid > 0);
    assert_int_equal(sc_store_graph_count(f->st, &count), 0);
    assert_int_equal(count, 1);

    lres r;
    fx_load(f, gid, &r);
    assert_int_equal(r.rc, SC_STORE_OK);
    assert_non_null(r.sg);
    const sc_graph_meta *m = &r.sg->meta;
    assert_int_equal(m->graph, gid);
    assert_int_equal(m->session, s);
    assert_string_equal(m->label, "train step \xe2\x9c\x93");
    assert_int_equal(m->label_len, strlen("train step \xe2\x9c\x93"));
    assert_int_equal(m->created_ms, T0 + 5000);
    assert_int_equal(m->owner_uid, 1000);
    assert_int_equal(m->owner_pid, 4242);
    assert_int_equal(m->node_count, 8);
    assert_int_equal(m->edge_count, sc_graph_edge_count(g));
    assert_int_equal(m->edge_count, 10);
    assert_int_equal(m->stream_count, 3);
    assert_true(sc_graph_is_sealed(r.sg->graph));
    fx_assert_same_graph(g, r.sg->graph);
    sc_stored_graph_free(r.sg);

    /* What a shell user sees: wire words, NULL for foreign attributes. */
    fx_sql *db = fx_db(f);
    char *o = q_text(db, "SELECT outcome FROM capture_log WHERE session = %lld", s);
    assert_string_equal(o, "completed");
    free(o);
    assert_int_equal(q_int(db, "SELECT graph FROM capture_log WHERE session = %lld", s), gid);
    assert_int_equal(q_int(db, "SELECT node_count FROM capture_log WHERE session = %lld", s), 8);
    char *e = q_text(db, "SELECT ended_at FROM capture_log WHERE session = %lld", s);
    assert_string_equal(e, "2026-11-29T19:44:26.123Z");
    free(e);
    char *c = q_text(db, "SELECT created_at FROM graphs WHERE graph = %lld", gid);
    assert_string_equal(c, "2026-11-29T19:44:26.123Z");
    free(c);
    char *k = q_text(db,
                     fx_pick(db,
                             "SELECT group_concat(kind || ':' || coalesce(dir, '-'), ',') FROM"
                             " (SELECT kind, dir FROM nodes WHERE graph = %lld ORDER BY id)",
                             "SELECT string_agg(kind || ':' || coalesce(dir, '-'), ',' ORDER BY id)"
                             " FROM nodes WHERE graph = %lld"),
                     gid);
    assert_string_equal(k, "kernel:-,memcpy:host_to_device,memcpy:peer_to_peer,memset:-,"
                           "host_callback:-,kernel:-,memcpy:device_to_device,"
                           "memcpy:device_to_host");
    free(k);
    assert_int_equal(q_int(db,
                           "SELECT count(*) FROM nodes WHERE graph = %lld AND id IN (0, 3, 4)"
                           " AND size_bytes IS NULL = (kind = 'kernel' OR kind = 'host_callback')"
                           " AND src_device IS NULL AND value IS NULL = (kind <> 'memset')",
                           gid),
                     3);
    assert_int_equal(q_int(db, "SELECT size_bytes FROM nodes WHERE graph = %lld AND id = 1", gid),
                     1LL << 40);
    assert_int_equal(q_int(db, "SELECT dst_device FROM nodes WHERE graph = %lld AND id = 2", gid),
                     4000000000LL);
    /* The NUL byte kept: PostgreSQL text cannot hold one, name_bytes does;
     * SQLite keeps it escaped in the run's JSON text (the nodes view's
     * json_extract() stops at it, the daemon's reader does not). */
    assert_int_equal(
        q_int(db,
              fx_pick(db,
                      "SELECT instr(nodes, '\\u0000') > 0 FROM node_chunks"
                      " WHERE graph = %lld AND lo <= 5 ORDER BY lo DESC LIMIT 1",
                      "SELECT length(name_bytes) = 3 FROM nodes WHERE graph = %lld AND id = 5"),
              gid),
        1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM edges WHERE graph = %lld", gid), 10);
    /* One row per access, in the order given within its node. */
    char *a =
        q_text(db,
               fx_pick(db,
                       "SELECT group_concat(node || '.' || idx || ':' || mode || '@' || address"
                       " || '+' || size, ',') FROM (SELECT * FROM accesses"
                       " WHERE graph = %lld ORDER BY node, idx)",
                       "SELECT string_agg(node || '.' || idx || ':' || mode || '@' || address"
                       " || '+' || size, ',' ORDER BY node, idx) FROM accesses"
                       " WHERE graph = %lld"),
               gid);
    assert_string_equal(a, "0.0:read@139637976731648+4096,0.1:read_write@139637976735744+1,"
                           "0.2:write@9007199254740992+1099511627776,3.0:write@16+64");
    free(a);
    fx_db_close(db);
    sc_graph_destroy(g);
}

/*
 * Rows are stored by walking each node's successors: nodes without any
 * (at the start, in the middle, at the end) must be skipped without losing
 * or inventing an edge, and a graph without edges stores none.
 */
static void test_commit_sparse_successors(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    sc_graph *g = NULL;
    assert_int_equal(sc_graph_create(&g), 0);
    for (uint32_t i = 0; i < 9; i++) {
        sc_node n = {.kind = SC_KIND_HOST_CALLBACK, .stream = i % 2, .name = "cb", .name_len = 2};
        uint32_t id;
        assert_int_equal(sc_graph_add_node(g, &n, &id), 0);
    }
    /* Nodes 0, 1, 3, 4, 6, 7 and 8 have no successors. */
    static const uint32_t edges[][2] = {{2, 3}, {2, 8}, {5, 6}, {5, 7}, {5, 8}};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        assert_int_equal(sc_graph_add_edge(g, edges[i][0], edges[i][1]), 0);
    assert_int_equal(sc_graph_seal(g), 0);

    sc_graph *lone = NULL;
    assert_int_equal(sc_graph_create(&lone), 0);
    sc_node n = {.kind = SC_KIND_MEMSET, .stream = 7, .name = "z", .name_len = 1, .value = 3};
    uint32_t id;
    assert_int_equal(sc_graph_add_node(lone, &n, &id), 0);
    assert_int_equal(sc_graph_seal(lone), 0);

    wres w;
    int64_t gid = commit(f, fx_open_session(f, "sparse", T0), g, "sparse", T0, &w);
    assert_int_equal(w.rc, SC_STORE_OK);
    int64_t lid = commit(f, fx_open_session(f, "lone", T0), lone, "lone", T0, &w);
    assert_int_equal(w.rc, SC_STORE_OK);

    fx_sql *db = fx_db(f);
    char *e = q_text(db,
                     fx_pick(db,
                             "SELECT group_concat(src || '>' || dst, ' ') FROM"
                             " (SELECT src, dst FROM edges WHERE graph = %lld ORDER BY src, dst)",
                             "SELECT string_agg(src || '>' || dst, ' ' ORDER BY src, dst)"
                             " FROM edges WHERE graph = %lld"),
                     gid);
    assert_string_equal(e, "2>3 2>8 5>6 5>7 5>8");
    free(e);
    assert_int_equal(q_int(db, "SELECT count(*) FROM nodes WHERE graph = %lld", gid), 9);
    /* graph_index.edges: the same pairs as little-endian u32. */
    char *hex = q_text(db,
                       fx_pick(db, "SELECT hex(edges) FROM graph_index WHERE graph = %lld",
                               "SELECT upper(encode(edges, 'hex')) FROM graph_index"
                               " WHERE graph = %lld"),
                       gid);
    assert_string_equal(hex, "02000000"
                             "03000000"
                             "02000000"
                             "08000000"
                             "05000000"
                             "06000000"
                             "05000000"
                             "07000000"
                             "05000000"
                             "08000000");
    free(hex);
    assert_int_equal(q_int(db, "SELECT count(*) FROM edges WHERE graph = %lld", lid), 0);
    assert_int_equal(q_int(db,
                           "SELECT count(*) FROM nodes WHERE graph = %lld AND value = 3"
                           " AND stream = 7 AND kind = 'memset'",
                           lid),
                     1);
    assert_int_equal(q_int(db, "SELECT length(edges) FROM graph_index WHERE graph = %lld", lid), 0);
    fx_db_close(db);

    lres r;
    fx_load(f, gid, &r);
    assert_int_equal(r.rc, SC_STORE_OK);
    fx_assert_same_graph(g, r.sg->graph);
    sc_stored_graph_free(r.sg);
    sc_graph_destroy(g);
    sc_graph_destroy(lone);
}

static void test_commit_refused_without_open_session(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    sc_graph *g = chain_graph(5, 8);
    wres w;
    commit(f, 424242, g, "nobody", T0, &w);
    assert_int_equal(w.rc, SC_STORE_ENOTFOUND);

    /* An ended session cannot complete either. */
    int64_t s = fx_open_session(f, "x", T0);
    wres end = {0};
    assert_int_equal(sc_store_log_end(f->st, s, "closed", 0, T0, wres_cb, &end), 0);
    fx_drain(f);
    assert_int_equal(end.rc, 0);
    commit(f, s, g, "late", T0, &w);
    assert_int_equal(w.rc, SC_STORE_ENOTFOUND);

    int64_t count = -1;
    assert_int_equal(sc_store_graph_count(f->st, &count), 0);
    assert_int_equal(count, 0);
    fx_sql *db = fx_db(f);
    assert_int_equal(q_int(db, "SELECT count(*) FROM graphs"), 0);
    assert_int_equal(q_int(db, "SELECT count(*) FROM nodes"), 0);
    fx_db_close(db);

    /* An unsealed graph is refused at the call. */
    sc_graph *raw = NULL;
    assert_int_equal(sc_graph_create(&raw), 0);
    wres never = {0};
    assert_int_equal(sc_store_commit_graph(f->st, s, raw, 1, 1, "", 0, T0, wres_cb, &never),
                     SC_STORE_EINVAL);
    assert_int_equal(never.calls, 0);
    sc_graph_destroy(raw);
    sc_graph_destroy(g);
}

static void test_load_missing_graph(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    lres r;
    fx_load(f, 12345, &r);
    assert_int_equal(r.rc, SC_STORE_ENOTFOUND);
    assert_null(r.sg);

    int64_t s = fx_open_session(f, "x", T0);
    sc_graph *g = chain_graph(3, 4);
    wres w;
    int64_t gid = commit(f, s, g, "x", T0, &w);
    assert_int_equal(w.rc, 0);
    fx_load(f, gid + 1, &r);
    assert_int_equal(r.rc, SC_STORE_ENOTFOUND);
    assert_null(r.sg);
    sc_graph_destroy(g);
}

/* Many loads at once share the bounded reader pool and all succeed. */
static void test_concurrent_loads(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    sc_graph *g = chain_graph(2000, 16);
    int64_t s = fx_open_session(f, "x", T0);
    wres w;
    int64_t gid = commit(f, s, g, "chain", T0, &w);
    assert_int_equal(w.rc, 0);

    enum { N = 16 };
    lres r[N];
    memset(r, 0, sizeof r);
    for (int i = 0; i < N; i++)
        assert_int_equal(sc_store_load_graph(f->st, gid, lres_cb, &r[i]), 0);
    fx_drain(f);
    for (int i = 0; i < N; i++) {
        assert_int_equal(r[i].calls, 1);
        assert_int_equal(r[i].rc, 0);
        fx_assert_same_graph(g, r[i].sg->graph);
        sc_stored_graph_free(r[i].sg);
    }
    sc_graph_destroy(g);
}

/* ---- group commit ---- */

static void test_group_commit(void **state)
{
    fx *f = *state;
    fx_open(f, 5000, 0);
    enum { N = 40 };
    int64_t sessions[N];
    for (int i = 0; i < N; i++)
        sessions[i] = fx_open_session(f, "g", T0);
    sc_store_stats before;
    assert_int_equal(sc_store_get_stats(f->st, &before), 0);

    /* Hold the write lock so the writer parks on its first job while the
     * rest pile up behind it; they must then share one transaction. */
    fx_sql *lock = fx_db(f);
    q_lock_writes(lock);
    wres first = {0};
    assert_int_equal(sc_store_log_open(f->st, 7, 7, "first", 5, T0, wres_cb, &first), 0);
    sleep_ms(100);
    sc_graph *g = chain_graph(50, 12);
    wres w[N], opened[N];
    memset(w, 0, sizeof w);
    memset(opened, 0, sizeof opened);
    for (int i = 0; i < N; i++) {
        if (i % 2)
            assert_int_equal(sc_store_commit_graph(f->st, sessions[i], g, 1000, 4242, "g", 1, T0,
                                                   wres_cb, &w[i]),
                             0);
        else
            assert_int_equal(sc_store_log_end(f->st, sessions[i], "closed", 3, T0, wres_cb, &w[i]),
                             0);
        assert_int_equal(sc_store_log_open(f->st, 8, 8, "more", 4, T0, wres_cb, &opened[i]), 0);
    }
    assert_int_equal(first.calls, 0);
    q_unlock_writes(lock);
    fx_db_close(lock);
    fx_drain(f);

    assert_int_equal(first.calls, 1);
    assert_int_equal(first.rc, 0);
    int64_t prev = first.id;
    for (int i = 0; i < N; i++) {
        assert_int_equal(w[i].calls, 1);
        assert_int_equal(w[i].rc, 0);
        assert_int_equal(opened[i].calls, 1);
        assert_int_equal(opened[i].rc, 0);
        assert_true(opened[i].id > prev);
        prev = opened[i].id;
    }
    sc_store_stats after;
    assert_int_equal(sc_store_get_stats(f->st, &after), 0);
    assert_int_equal(after.jobs_done - before.jobs_done, 1 + 2 * N);
    /* The parked job, then everything else together. */
    assert_true(after.transactions - before.transactions <= 2);
    assert_int_equal(after.jobs_failed, 0);

    int64_t count;
    assert_int_equal(sc_store_graph_count(f->st, &count), 0);
    assert_int_equal(count, N / 2);
    fx_sql *db = fx_db(f);
    assert_int_equal(q_int(db, "SELECT count(*) FROM graphs"), N / 2);
    assert_int_equal(q_int(db, "SELECT count(*) FROM nodes"), 50 * N / 2);
    assert_int_equal(q_int(db, "SELECT count(*) FROM capture_log WHERE outcome = 'completed'"),
                     N / 2);
    assert_int_equal(q_int(db, "SELECT count(*) FROM capture_log WHERE outcome = 'closed'"), N / 2);
    assert_int_equal(q_int(db, "SELECT count(*) FROM capture_log WHERE outcome = 'open'"), 1 + N);
    fx_db_close(db);
    sc_graph_destroy(g);
}

/* ---- restart ---- */

static void test_reopen_marks_open_rows_lost(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    int64_t a = fx_open_session(f, "dies", T0);
    int64_t b = fx_open_session(f, "ends", T0);
    sc_graph *g = chain_graph(4, 4);
    int64_t c = fx_open_session(f, "stores", T0);
    wres w;
    int64_t gid = commit(f, c, g, "stores", T0 + 10, &w);
    assert_int_equal(w.rc, 0);
    wres end = {0};
    assert_int_equal(sc_store_log_end(f->st, b, "closed", 2, T0 + 1, wres_cb, &end), 0);
    fx_drain(f);
    fx_close(f);

    fx_open(f, 1000, 0);
    int64_t count;
    assert_int_equal(sc_store_graph_count(f->st, &count), 0);
    assert_int_equal(count, 1);
    fx_sql *db = fx_db(f);
    char *o = q_text(db, "SELECT outcome FROM capture_log WHERE session = %lld", a);
    assert_string_equal(o, "lost");
    free(o);
    assert_int_equal(q_int(db, "SELECT ended_at IS NULL FROM capture_log WHERE session = %lld", a),
                     1);
    o = q_text(db, "SELECT outcome FROM capture_log WHERE session = %lld", b);
    assert_string_equal(o, "closed");
    free(o);
    o = q_text(db, "SELECT outcome FROM capture_log WHERE session = %lld", c);
    assert_string_equal(o, "completed");
    free(o);
    fx_db_close(db);

    /* A lost session cannot be ended or completed any more. */
    wres late = {0};
    assert_int_equal(sc_store_log_end(f->st, a, "closed", 0, T0, wres_cb, &late), 0);
    fx_drain(f);
    assert_int_equal(late.rc, SC_STORE_ENOTFOUND);

    /* New ids keep growing, and the stored graph is still there. */
    assert_true(fx_open_session(f, "after", T0) > c);
    lres r;
    fx_load(f, gid, &r);
    assert_int_equal(r.rc, 0);
    fx_assert_same_graph(g, r.sg->graph);
    sc_stored_graph_free(r.sg);
    sc_graph_destroy(g);
}

/* ---- close ---- */

static void test_close_runs_queued_callbacks(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    int64_t s = fx_open_session(f, "x", T0);
    sc_graph *g = chain_graph(300, 10);
    wres w;
    int64_t gid = commit(f, s, g, "x", T0, &w);
    assert_int_equal(w.rc, 0);
    int64_t s2 = fx_open_session(f, "y", T0);

    wres end = {0};
    assert_int_equal(sc_store_log_end(f->st, s2, "shutdown", 0, T0, wres_cb, &end), 0);
    enum { N = 30 };
    wres opened[N];
    memset(opened, 0, sizeof opened);
    for (int i = 0; i < N; i++)
        assert_int_equal(sc_store_log_open(f->st, 1, 1, "q", 1, T0, wres_cb, &opened[i]), 0);
    lres loads[8];
    memset(loads, 0, sizeof loads);
    for (int i = 0; i < 8; i++)
        assert_int_equal(sc_store_load_graph(f->st, gid, lres_cb, &loads[i]), 0);

    sc_store_close(f->st);
    f->st = NULL;
    /* Writes completed before close returned, without running the loop. */
    assert_int_equal(end.calls, 1);
    assert_int_equal(end.rc, 0);
    for (int i = 0; i < N; i++) {
        assert_int_equal(opened[i].calls, 1);
        assert_int_equal(opened[i].rc, 0);
    }
    /* Reads report once the loop runs: done, or cancelled by the close. */
    uv_run(&f->loop, UV_RUN_DEFAULT);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(loads[i].calls, 1);
        if (loads[i].rc == 0) {
            assert_non_null(loads[i].sg);
            fx_assert_same_graph(g, loads[i].sg->graph);
            sc_stored_graph_free(loads[i].sg);
        } else {
            assert_int_equal(loads[i].rc, SC_STORE_ECLOSED);
            assert_null(loads[i].sg);
        }
    }
    fx_sql *db = fx_db(f);
    assert_int_equal(q_int(db, "SELECT count(*) FROM capture_log"), 2 + N);
    assert_int_equal(q_int(db, "SELECT count(*) FROM capture_log WHERE outcome = 'shutdown'"), 1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM nodes"), 300);
    fx_db_close(db);
    sc_graph_destroy(g);
}

/* The scheduling policy of this process's thread named `name`, from the
 * 41st field of /proc/self/task/TID/stat; -1 if there is no such thread. */
static int thread_policy(const char *name)
{
    DIR *dir = opendir("/proc/self/task");
    assert_non_null(dir);
    int policy = -1;
    struct dirent *e;
    while (policy < 0 && (e = readdir(dir))) {
        char path[300], line[1024];
        snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
        FILE *fp = fopen(path, "r");
        if (!fp)
            continue;
        bool ok = fgets(line, sizeof line, fp) != NULL;
        fclose(fp);
        char *open = strchr(line, '('), *close = strrchr(line, ')');
        if (!ok || !open || !close || (size_t)(close - open - 1) != strlen(name) ||
            strncmp(open + 1, name, strlen(name)) != 0)
            continue;
        /* Fields 3 onwards follow ") "; the policy is field 41. */
        char *p = close + 2;
        for (int field = 3; field < 41 && p; field++) {
            p = strchr(p, ' ');
            p = p ? p + 1 : NULL;
        }
        assert_non_null(p);
        policy = atoi(p);
    }
    closedir(dir);
    return policy;
}

/* The writer thread never preempts the loop: it runs as SCHED_BATCH. */
static void test_writer_runs_as_batch(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    /* The writer is running once a write has come back. */
    fx_open_session(f, "x", T0);
    assert_int_equal(thread_policy("sc-writer"), SCHED_BATCH);
    fx_close(f);
    assert_int_equal(thread_policy("sc-writer"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_migrations_applied_once, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_newer_schema_refused, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_log_open_rows, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_log_end_outcomes, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_commit_and_load_roundtrip, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_commit_sparse_successors, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_commit_refused_without_open_session, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_load_missing_graph, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_loads, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_group_commit, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_reopen_marks_open_rows_lost, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_close_runs_queued_callbacks, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_writer_runs_as_batch, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
