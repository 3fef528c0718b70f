/*
 * test_store_index.c - the graph_index rows (packed streams and edges) and
 * skeleton loads: what is written, that a skeleton answers reachability
 * exactly as the full graph does, deletion, and damaged or missing rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_fixture.h"

#define T0 1795981461123LL /* 2026-11-29T19:44:21.123Z */

/* xorshift64*: the same graphs on every platform. */
static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

/*
 * A random DAG of n nodes on `streams` streams (ids spread over the whole
 * u32 range, so every byte of a stored value matters), each stream a chain
 * when `chained`, plus random edges into each node; names and kinds vary.
 */
static sc_graph *random_graph(uint64_t *seed, uint32_t n, uint32_t streams, bool chained)
{
    static const char *const names[] = {"gemm", "copy_in", "", "relu_backward_pass"};
    sc_graph *g = NULL;
    assert_int_equal(sc_graph_create(&g), 0);
    uint32_t *last = malloc(streams * sizeof *last);
    assert_non_null(last);
    for (uint32_t s = 0; s < streams; s++)
        last[s] = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t slot = (uint32_t)(rnd(seed) % streams);
        const char *name = names[rnd(seed) % 4];
        sc_node node = {.kind = (sc_node_kind)(rnd(seed) % 4),
                        .stream = slot * 0x9E3779B1u,
                        .name = name,
                        .name_len = strlen(name),
                        .num_blocks = i,
                        .size_bytes = 64};
        uint32_t id;
        assert_int_equal(sc_graph_add_node(g, &node, &id), 0);
        if (chained && last[slot] != UINT32_MAX)
            assert_int_equal(sc_graph_add_edge(g, last[slot], i), 0);
        last[slot] = i;
        for (int k = 0; i > 0 && k < 2; k++)
            if (rnd(seed) % 3 == 0)
                assert_int_equal(sc_graph_add_edge(g, (uint32_t)(rnd(seed) % i), i), 0);
    }
    free(last);
    assert_int_equal(sc_graph_seal(g), 0);
    return g;
}

static int64_t commit(fx *f, const sc_graph *g, const char *label)
{
    int64_t s = fx_open_session(f, label, T0);
    wres w = {0};
    assert_int_equal(
        sc_store_commit_graph(f->st, s, g, 1000, 4242, label, strlen(label), T0, wres_cb, &w), 0);
    fx_drain(f);
    assert_int_equal(w.calls, 1);
    assert_int_equal(w.rc, SC_STORE_OK);
    return w.id;
}

static void load_skeleton(fx *f, int64_t graph, lres *r)
{
    memset(r, 0, sizeof *r);
    assert_int_equal(sc_store_load_skeleton(f->st, graph, lres_cb, r), 0);
    fx_drain(f);
    assert_int_equal(r->calls, 1);
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Bytes of a blob column read as hex text, the same on both backends; the
 * caller frees *out. */
static size_t q_blob(fx_sql *db, const char *col, int64_t gid, unsigned char **out)
{
    char *hex = q_text(db,
                       fx_pick(db, "SELECT hex(%s) FROM graph_index WHERE graph = %lld",
                               "SELECT encode(%s, 'hex') FROM graph_index WHERE graph = %lld"),
                       col, gid);
    assert_non_null(hex);
    size_t n = strlen(hex) / 2;
    unsigned char *b = malloc(n + 1);
    assert_non_null(b);
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
        b[i] = (unsigned char)v;
    }
    free(hex);
    *out = b;
    return n;
}

/* The stored blobs decoded byte by byte, against the graph. */
static void assert_index_row(fx_sql *db, int64_t gid, const sc_graph *g)
{
    uint32_t n = sc_graph_node_count(g);
    uint64_t m = sc_graph_edge_count(g);
    assert_int_equal(q_int(db, "SELECT count(*) FROM graph_index WHERE graph = %lld", gid), 1);
    assert_int_equal(q_int(db, "SELECT node_count FROM graph_index WHERE graph = %lld", gid), n);
    assert_int_equal(q_int(db, "SELECT edge_count FROM graph_index WHERE graph = %lld", gid), m);
    if (db->lite) {
        /* SQLite's columns have no type of their own: the values must be blobs. */
        assert_int_equal(q_int(db,
                               "SELECT typeof(streams) = 'blob' AND typeof(edges) = 'blob'"
                               " FROM graph_index WHERE graph = %lld",
                               gid),
                         1);
    }
    unsigned char *streams = NULL;
    assert_int_equal(q_blob(db, "streams", gid, &streams), 4 * (size_t)n);
    for (uint32_t i = 0; i < n; i++) {
        sc_node node;
        assert_int_equal(sc_graph_node(g, i, &node), 0);
        if (le32(streams + 4 * i) != node.stream)
            fail_msg("graph %lld node %u: stream %u stored as %u", (long long)gid, i, node.stream,
                     le32(streams + 4 * i));
    }
    free(streams);
    unsigned char *edges = NULL;
    assert_int_equal(q_blob(db, "edges", gid, &edges), 8 * (size_t)m);
    for (uint64_t i = 0; i < m; i++) {
        uint32_t src, dst;
        assert_int_equal(sc_graph_edge(g, i, &src, &dst), 0);
        assert_int_equal(le32(edges + 8 * i), src);
        assert_int_equal(le32(edges + 8 * i + 4), dst);
    }
    free(edges);
}

static void test_index_row_written(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    uint64_t seed = 0x1DE7;
    sc_graph *g[3] = {random_graph(&seed, 3000, 8, true), random_graph(&seed, 1, 1, true), NULL};
    assert_int_equal(sc_graph_create(&g[2]), 0);
    assert_int_equal(sc_graph_seal(g[2]), 0);
    int64_t gid[3];
    for (int i = 0; i < 3; i++)
        gid[i] = commit(f, g[i], "idx");
    fx_sql *db = fx_db(f);
    for (int i = 0; i < 3; i++)
        assert_index_row(db, gid[i], g[i]);
    /* Every stored graph has exactly one row, and nothing else does. */
    assert_int_equal(q_int(db, "SELECT count(*) FROM graph_index"), 3);
    assert_int_equal(q_int(db, "SELECT count(*) FROM graph_index JOIN graphs USING (graph)"), 3);
    fx_db_close(db);
    for (int i = 0; i < 3; i++)
        sc_graph_destroy(g[i]);
}

/* Everything reachability sees is the same in the skeleton and the full
 * graph; the nodes carry their stream and nothing else. */
static void assert_skeleton_of(const sc_stored_graph *full, const sc_stored_graph *sk)
{
    assert_int_equal(sk->meta.graph, full->meta.graph);
    assert_int_equal(sk->meta.session, full->meta.session);
    assert_string_equal(sk->meta.label, full->meta.label);
    assert_int_equal(sk->meta.created_ms, full->meta.created_ms);
    assert_int_equal(sk->meta.owner_uid, full->meta.owner_uid);
    assert_int_equal(sk->meta.owner_pid, full->meta.owner_pid);
    assert_int_equal(sk->meta.node_count, full->meta.node_count);
    assert_int_equal(sk->meta.edge_count, full->meta.edge_count);
    assert_int_equal(sk->meta.stream_count, full->meta.stream_count);
    const sc_graph *a = full->graph, *b = sk->graph;
    assert_true(sc_graph_is_sealed(b));
    uint32_t n = sc_graph_node_count(a);
    assert_int_equal(sc_graph_node_count(b), n);
    assert_int_equal(sc_graph_edge_count(b), sc_graph_edge_count(a));
    assert_int_equal(sc_graph_stream_count(b), sc_graph_stream_count(a));
    for (uint32_t i = 0; i < n; i++) {
        sc_node x, y;
        assert_int_equal(sc_graph_node(a, i, &x), 0);
        assert_int_equal(sc_graph_node(b, i, &y), 0);
        assert_int_equal(y.stream, x.stream);
        assert_int_equal(y.kind, SC_KIND_KERNEL);
        assert_int_equal(y.name_len, 0);
    }
    for (uint64_t i = 0; i < sc_graph_edge_count(a); i++) {
        uint32_t s1, d1, s2, d2;
        assert_int_equal(sc_graph_edge(a, i, &s1, &d1), 0);
        assert_int_equal(sc_graph_edge(b, i, &s2, &d2), 0);
        assert_int_equal(s2, s1);
        assert_int_equal(d2, d1);
    }
}

/* Every pair through both indexes, and through BFS on the original. */
static void assert_same_answers(const sc_graph *orig, sc_graph *full, sc_graph *sk)
{
    uint32_t n = sc_graph_node_count(orig);
    assert_int_equal(sc_graph_build_index(full), 0);
    assert_int_equal(sc_graph_build_index(sk), 0);
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++) {
            bool want, x, y;
            assert_int_equal(sc_graph_reachable_bfs(orig, a, b, &want), 0);
            assert_int_equal(sc_graph_reachable(full, a, b, &x), 0);
            assert_int_equal(sc_graph_reachable(sk, a, b, &y), 0);
            if (x != want || y != want)
                fail_msg("reachable(%u, %u): bfs %d, full %d, skeleton %d", a, b, want, x, y);
        }
}

static void test_skeleton_same_reachability(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    uint64_t seed = 0x5CE1;
    for (int round = 0; round < 12; round++) {
        uint32_t n = 20 + (uint32_t)(rnd(&seed) % 180);
        /* More streams than the index holds in some rounds. */
        uint32_t streams = 1 + (uint32_t)(rnd(&seed) % (round % 3 ? 8 : 60));
        sc_graph *g = random_graph(&seed, n, streams, round % 4 != 3);
        int64_t gid = commit(f, g, "reach");
        lres full, sk;
        fx_load(f, gid, &full);
        load_skeleton(f, gid, &sk);
        assert_int_equal(full.rc, 0);
        assert_int_equal(sk.rc, 0);
        assert_skeleton_of(full.sg, sk.sg);
        assert_same_answers(g, full.sg->graph, sk.sg->graph);
        sc_stored_graph_free(full.sg);
        sc_stored_graph_free(sk.sg);
        sc_graph_destroy(g);
    }
}

/* Past one node chunk, many overflow pages and the reader's page cache. */
static void test_skeleton_large(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    uint64_t seed = 0xB16;
    sc_graph *g = random_graph(&seed, 200000, 8, true);
    int64_t gid = commit(f, g, "large");
    lres sk;
    load_skeleton(f, gid, &sk);
    assert_int_equal(sk.rc, 0);
    sc_graph *b = sk.sg->graph;
    assert_int_equal(sc_graph_node_count(b), 200000);
    assert_int_equal(sc_graph_edge_count(b), sc_graph_edge_count(g));
    for (uint64_t i = 0; i < sc_graph_edge_count(g); i += 101) {
        uint32_t s1, d1, s2, d2;
        assert_int_equal(sc_graph_edge(g, i, &s1, &d1), 0);
        assert_int_equal(sc_graph_edge(b, i, &s2, &d2), 0);
        assert_int_equal(s2, s1);
        assert_int_equal(d2, d1);
    }
    assert_int_equal(sc_graph_build_index(b), 0);
    for (int q = 0; q < 500; q++) {
        uint32_t x = (uint32_t)(rnd(&seed) % 200000);
        uint32_t y = x + (uint32_t)(rnd(&seed) % 400);
        if (y >= 200000)
            y = 199999;
        bool want, got;
        assert_int_equal(sc_graph_reachable_bfs(g, x, y, &want), 0);
        assert_int_equal(sc_graph_reachable(b, x, y, &got), 0);
        if (got != want)
            fail_msg("reachable(%u, %u): bfs %d, skeleton %d", x, y, want, got);
    }
    sc_stored_graph_free(sk.sg);
    sc_graph_destroy(g);
}

/* Two graphs committed in chunks, queued at once: each is stored by its
 * own steps, once, and both ends succeed (the last transaction of the
 * first once also wrote the second whole, whose own first chunk then
 * found its session completed and answered ENOTFOUND). */
static void test_two_chunked_commits_at_once(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    uint64_t seed = 0x2C0C;
    sc_graph *g[2] = {random_graph(&seed, 70000, 4, true), random_graph(&seed, 80000, 4, true)};
    int64_t s[2];
    wres w[2] = {{0}};
    for (int i = 0; i < 2; i++)
        s[i] = fx_open_session(f, "two", T0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(
            sc_store_commit_graph(f->st, s[i], g[i], 1000, 4242, "two", 3, T0, wres_cb, &w[i]), 0);
    fx_drain(f);
    fx_sql *db = fx_db(f);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(w[i].calls, 1);
        if (w[i].rc != SC_STORE_OK)
            fail_msg("commit %d: %d %s", i, w[i].rc, w[i].msg);
        assert_int_equal(q_int(db, "SELECT count(*) FROM graphs WHERE session = %lld", s[i]), 1);
        assert_int_equal(q_int(db, "SELECT count(*) FROM nodes WHERE graph = %lld", w[i].id),
                         sc_graph_node_count(g[i]));
    }
    assert_true(w[0].id != w[1].id);
    fx_db_close(db);
    for (int i = 0; i < 2; i++)
        sc_graph_destroy(g[i]);
}

/* A graph stored in chunks gets its index in parts, a step at a time
 * (schema/008_index_parts.sql): they follow each other from node 0 and
 * make the same skeleton; a missing or displaced part fails the load. */
static void test_index_in_parts(void **state)
{
    fx *f = *state;
    fx_sqlite_only(f, "PostgreSQL stores one row per graph");
    fx_open(f, 1000, 0);
    uint64_t seed = 0x9A27;
    const uint32_t n = 300000;
    sc_graph *g = random_graph(&seed, n, 8, true);
    int64_t gid = commit(f, g, "parts");
    fx_sql *db = fx_db(f);
    assert_true(q_int(db, "SELECT count(*) FROM graph_index WHERE graph = %lld", gid) >= 2);
    assert_int_equal(q_int(db, "SELECT min(lo) FROM graph_index WHERE graph = %lld", gid), 0);
    assert_int_equal(q_int(db, "SELECT sum(node_count) FROM graph_index WHERE graph = %lld", gid),
                     n);
    assert_int_equal(q_int(db, "SELECT sum(edge_count) FROM graph_index WHERE graph = %lld", gid),
                     (int64_t)sc_graph_edge_count(g));
    assert_int_equal(q_int(db,
                           "SELECT count(*) FROM graph_index AS a WHERE graph = %lld AND lo > 0"
                           " AND NOT EXISTS (SELECT 1 FROM graph_index AS b WHERE"
                           " b.graph = a.graph AND b.lo + b.node_count = a.lo)",
                           gid),
                     0);
    fx_db_close(db);
    lres sk;
    load_skeleton(f, gid, &sk);
    assert_int_equal(sk.rc, 0);
    const sc_graph *b = sk.sg->graph;
    assert_int_equal(sc_graph_node_count(b), n);
    assert_int_equal(sc_graph_edge_count(b), sc_graph_edge_count(g));
    for (uint64_t i = 0; i < sc_graph_edge_count(g); i++) {
        uint32_t s1, d1, s2, d2;
        assert_int_equal(sc_graph_edge(g, i, &s1, &d1), 0);
        assert_int_equal(sc_graph_edge(b, i, &s2, &d2), 0);
        if (s1 != s2 || d1 != d2)
            fail_msg("edge %llu: (%u, %u) stored as (%u, %u)", (unsigned long long)i, s1, d1, s2,
                     d2);
    }
    for (uint32_t i = 0; i < n; i++) {
        sc_node x, y;
        assert_int_equal(sc_graph_node(g, i, &x), 0);
        assert_int_equal(sc_graph_node(b, i, &y), 0);
        assert_int_equal(y.stream, x.stream);
    }
    sc_stored_graph_free(sk.sg);

    /* A part that does not start where the one before it ends. */
    db = fx_db(f);
    char *sql = sqlite3_mprintf("UPDATE graph_index SET lo = lo + 1 WHERE graph = %lld AND lo > 0",
                                (long long)gid);
    q_exec(db, sql);
    sqlite3_free(sql);
    fx_db_close(db);
    lres r;
    load_skeleton(f, gid, &r);
    assert_int_equal(r.rc, SC_STORE_EIO);
    assert_non_null(strstr(r.msg, "part differs from the graph row"));
    /* Then the last part gone: the parts fall short of the graph row. */
    db = fx_db(f);
    sql = sqlite3_mprintf("UPDATE graph_index SET lo = lo - 1 WHERE graph = %lld AND lo > 0;"
                          "DELETE FROM graph_index WHERE graph = %lld AND lo ="
                          " (SELECT max(lo) FROM graph_index WHERE graph = %lld)",
                          (long long)gid, (long long)gid, (long long)gid);
    q_exec(db, sql);
    sqlite3_free(sql);
    fx_db_close(db);
    load_skeleton(f, gid, &r);
    assert_int_equal(r.rc, SC_STORE_EIO);
    assert_non_null(strstr(r.msg, "fall short of the graph row"));
    sc_graph_destroy(g);
}

/* An index step that fails (here: the file may not grow) takes the graph's
 * nodes and the parts already stored with it; nothing of it stays. */
static void test_failed_index_step_leaves_nothing(void **state)
{
    fx *f = *state;
    fx_sqlite_only(f, "PostgreSQL writes its index in the last transaction");
    uint64_t seed = 0xFA11;
    sc_graph *g = random_graph(&seed, 300000, 8, true);
    /* The pages the graph takes, and those of its last index part. */
    fx_open(f, 1000, 0);
    int64_t gid = commit(f, g, "sizing");
    fx_sql *db = fx_db(f);
    int64_t pages = q_int(db, "PRAGMA page_count");
    int64_t last = q_int(db,
                         "SELECT (length(streams) + length(edges)) / 4096 FROM graph_index"
                         " WHERE graph = %lld ORDER BY lo DESC LIMIT 1",
                         gid);
    assert_true(q_int(db, "SELECT count(*) FROM graph_index WHERE graph = %lld", gid) >= 2);
    fx_db_close(db);
    wres w = {0};
    assert_int_equal(sc_store_delete_graph(f->st, gid, now_ms(), wres_cb, &w), 0);
    fx_drain(f);
    assert_int_equal(w.rc, SC_STORE_OK);
    fx_close(f);

    /* Room for the nodes and the first parts, not for the last part. */
    fx_open(f, 1000, pages - last / 2);
    int64_t s = fx_open_session(f, "full", T0);
    memset(&w, 0, sizeof w);
    assert_int_equal(sc_store_commit_graph(f->st, s, g, 1000, 4242, "full", 4, T0, wres_cb, &w), 0);
    fx_drain(f);
    assert_int_equal(w.calls, 1);
    assert_int_equal(w.rc, SC_STORE_EIO);
    db = fx_db(f);
    assert_int_equal(q_int(db, "SELECT count(*) FROM pending_graphs"), 0);
    assert_int_equal(q_int(db, "SELECT count(*) FROM graph_index"), 0);
    assert_int_equal(q_int(db, "SELECT count(*) FROM node_chunks"), 0);
    assert_int_equal(q_int(db, "SELECT count(*) FROM graphs"), 0);
    fx_db_close(db);
    sc_graph_destroy(g);
}

static void test_index_deleted_with_graph(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    uint64_t seed = 0xDE1;
    sc_graph *g = random_graph(&seed, 500, 4, true);
    int64_t keep = commit(f, g, "keep");
    int64_t gone = commit(f, g, "gone");
    wres w = {0};
    assert_int_equal(sc_store_delete_graph(f->st, gone, now_ms(), wres_cb, &w), 0);
    fx_drain(f);
    assert_int_equal(w.rc, SC_STORE_OK);

    fx_sql *db = fx_db(f);
    assert_int_equal(q_int(db, "SELECT count(*) FROM graph_index WHERE graph = %lld", gone), 0);
    assert_index_row(db, keep, g);
    fx_db_close(db);
    lres r;
    load_skeleton(f, gone, &r);
    assert_int_equal(r.rc, SC_STORE_ENOTFOUND);
    assert_null(r.sg);
    assert_string_equal(r.msg, "");
    load_skeleton(f, keep, &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(sc_graph_node_count(r.sg->graph), 500);
    sc_stored_graph_free(r.sg);
    sc_graph_destroy(g);
}

static void test_skeleton_not_found(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    lres r;
    load_skeleton(f, 1, &r);
    assert_int_equal(r.rc, SC_STORE_ENOTFOUND);
    assert_null(r.sg);
    sc_graph *g = chain_graph(10, 3);
    int64_t gid = commit(f, g, "x");
    load_skeleton(f, gid + 1, &r);
    assert_int_equal(r.rc, SC_STORE_ENOTFOUND);
    assert_null(r.sg);
    assert_int_equal(sc_store_load_skeleton(NULL, gid, lres_cb, &r), SC_STORE_EINVAL);
    assert_int_equal(sc_store_load_skeleton(f->st, gid, NULL, &r), SC_STORE_EINVAL);
    sc_graph_destroy(g);
}

/* A graph stored without its graph_index row (too large for one SQLite
 * value) still answers: the skeleton request loads it in full. */
static void test_missing_row_loads_full(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    sc_graph *g = chain_graph(40, 6);
    int64_t gid = commit(f, g, "x");
    fx_sql *db = fx_db(f);
    q_exec(db, "DELETE FROM graph_index");
    fx_db_close(db);
    lres r;
    load_skeleton(f, gid, &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(sc_graph_node_count(r.sg->graph), 40);
    sc_node node;
    assert_int_equal(sc_graph_node(r.sg->graph, 39, &node), 0);
    assert_int_equal(node.name_len, 6);
    assert_int_equal(node.num_blocks, 39);
    assert_int_equal(sc_graph_edge_count(r.sg->graph), 39);
    sc_stored_graph_free(r.sg);
    sc_graph_destroy(g);
}

/* Damage the row with `lite` on SQLite, `pg` on PostgreSQL (%lld is the
 * graph id; SQLite's `||` yields text, so results are cast back to BLOB);
 * the load must fail with SC_STORE_EIO and a message containing `what`. */
static void assert_damage_refused(fx *f, const sc_graph *g, const char *lite, const char *pg,
                                  const char *what)
{
    int64_t gid = commit(f, g, "x");
    fx_sql *db = fx_db(f);
    const char *sql = fx_pick(db, lite, pg);
    char *stmt = sqlite3_mprintf(sql, gid);
    q_exec(db, stmt);
    sqlite3_free(stmt);
    fx_db_close(db);
    lres r;
    load_skeleton(f, gid, &r);
    assert_int_equal(r.rc, SC_STORE_EIO);
    assert_null(r.sg);
    if (!strstr(r.msg, what))
        fail_msg("\"%s\": message \"%s\" lacks \"%s\"", sql, r.msg, what);
}

static void test_damaged_row_refused(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    sc_graph *g = chain_graph(6, 2);
    /* One node more than the graph row says. */
    assert_damage_refused(f, g,
                          "UPDATE graph_index SET node_count = node_count + 1,"
                          " streams = CAST(streams || x'01000000' AS BLOB) WHERE graph = %lld",
                          "UPDATE graph_index SET node_count = node_count + 1,"
                          " streams = streams || '\\x01000000'::bytea WHERE graph = %lld",
                          "differs from the graph row");
    /* The first two edges swapped: out of order. */
    assert_damage_refused(f, g,
                          "UPDATE graph_index SET edges = CAST(substr(edges, 9, 8) ||"
                          " substr(edges, 1, 8) || substr(edges, 17) AS BLOB) WHERE graph = %lld",
                          "UPDATE graph_index SET edges = substring(edges from 9 for 8) ||"
                          " substring(edges from 1 for 8) || substring(edges from 17)"
                          " WHERE graph = %lld",
                          "rejected by the graph model");
    /* An edge whose target is not a node. */
    assert_damage_refused(f, g,
                          "UPDATE graph_index SET edges = CAST(substr(edges, 1, 4) ||"
                          " x'07000000' || substr(edges, 9) AS BLOB) WHERE graph = %lld",
                          "UPDATE graph_index SET edges = substring(edges from 1 for 4) ||"
                          " '\\x07000000'::bytea || substring(edges from 9) WHERE graph = %lld",
                          "rejected by the graph model");
    /* Node 0 moved to a second stream, where the graph row counts one. */
    assert_damage_refused(f, g,
                          "UPDATE graph_index SET streams ="
                          " CAST(x'02000000' || substr(streams, 5) AS BLOB) WHERE graph = %lld",
                          "UPDATE graph_index SET streams ="
                          " '\\x02000000'::bytea || substring(streams from 5) WHERE graph = %lld",
                          "stream count differs");
    sc_graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_index_row_written, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_skeleton_same_reachability, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_skeleton_large, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_index_in_parts, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_two_chunked_commits_at_once, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_failed_index_step_leaves_nothing, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_index_deleted_with_graph, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_skeleton_not_found, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_missing_row_loads_full, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_damaged_row_refused, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
