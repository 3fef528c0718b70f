/*
 * test_store_stream.c - streamed captures (sc_store.h, "Streaming"): parts
 * stored while the capture records, invisible until the commit, which then
 * stores the tail; what a dropped or failed stream leaves behind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_capture.h"
#include "store_fixture.h"

#define T0 1764441861000LL

/* A capture on four streams, with forks and joins through events and every
 * record kind, handing a part to `s` (when not NULL) each time
 * SC_STORE_PART_NODES nodes are recorded past the last one.  Returns the
 * sealed graph. */
static sc_graph *record(fx *f, sc_store_stream *s, uint32_t nodes)
{
    sc_capture *cap;
    assert_int_equal(sc_capture_create(&cap), 0);
    for (uint32_t st = 0; st < 4; st++)
        assert_int_equal(sc_capture_begin(cap, st), 0);
    uint64_t x = 12345;
    char name[32];
    for (uint32_t i = 0; i < nodes; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        uint32_t st = (uint32_t)(x >> 40) % 4, other = (st + 1) % 4;
        if (i % 37 == 5) {
            assert_int_equal(sc_capture_record_event(cap, other, i), 0);
            assert_int_equal(sc_capture_wait_event(cap, st, i), 0);
        }
        int len = snprintf(name, sizeof name, "op\"%u\\%s", i % 11, i % 5 ? "" : "\n");
        int rc;
        switch (i % 4) {
        case 0:
            rc = sc_capture_record_kernel(cap, st, name, (size_t)len, i, 256, 0, NULL);
            break;
        case 1:
            rc = sc_capture_record_memcpy(cap, st, name, (size_t)len, SC_DIR_PEER_TO_PEER, i, 1, 2,
                                          NULL);
            break;
        case 2:
            rc = sc_capture_record_memset(cap, st, name, (size_t)len, 64, (uint8_t)i, NULL);
            break;
        default:
            rc = sc_capture_record_host_callback(cap, st, name, (size_t)len, NULL);
            break;
        }
        assert_int_equal(rc, 0);
        uint32_t n = i + 1;
        if (s && n - sc_store_stream_next(s) >= SC_STORE_PART_NODES) {
            assert_int_equal(sc_store_stream_part(f->st, s, cap, n), 0);
            assert_int_equal(sc_store_stream_next(s), n);
        }
    }
    /* Join every stream back into stream 0. */
    for (uint32_t st = 1; st < 4; st++) {
        assert_int_equal(sc_capture_record_event(cap, st, 1000000 + st), 0);
        assert_int_equal(sc_capture_wait_event(cap, 0, 1000000 + st), 0);
    }
    assert_int_equal(sc_capture_record_kernel(cap, 0, "join", 4, 1, 1, 0, NULL), 0);
    sc_graph *g = NULL;
    assert_int_equal(sc_capture_end(cap, 0, &g), 0);
    return g;
}

static int64_t count(fx *f, const char *sql)
{
    fx_sql *db = fx_db(f);
    int64_t n = q_int(db, "%s", sql);
    fx_db_close(db);
    return n;
}

static int64_t commit_streamed(fx *f, sc_store_stream *s, const sc_graph *g, wres *w)
{
    memset(w, 0, sizeof *w);
    assert_int_equal(sc_store_stream_commit(f->st, s, g, 1000, 42, "big", 3, T0 + 10, wres_cb, w),
                     0);
    fx_drain(f);
    assert_int_equal(w->calls, 1);
    return w->id;
}

/* The graph streamed in parts reads back as the same capture stored whole;
 * before its commit none of it is visible, though its parts are stored. */
static void test_streamed_equals_whole(void **state)
{
    fx *f = *state;
    fx_sqlite_only(f, "the PostgreSQL backend does not stream");
    fx_open(f, 5000, 0);
    assert_true(sc_store_can_stream(f->st));
    uint32_t n = 2 * SC_STORE_PART_NODES + 1234;

    int64_t plain_session = fx_open_session(f, "whole", T0);
    sc_graph *whole = record(f, NULL, n);
    wres w = {0};
    assert_int_equal(
        sc_store_commit_graph(f->st, plain_session, whole, 1000, 42, "whole", 5, T0, wres_cb, &w),
        0);
    fx_drain(f);
    assert_int_equal(w.rc, SC_STORE_OK);
    int64_t plain = w.id;

    int64_t session = fx_open_session(f, "big", T0);
    sc_store_stream *s;
    assert_int_equal(sc_store_stream_open(f->st, session, T0, &s), 0);
    sc_graph *g = record(f, s, n);
    fx_drain(f);
    /* Two parts stored under one reserved id, nothing of it listed. */
    assert_int_equal(count(f, "SELECT count(*) FROM pending_graphs"), 1);
    assert_int_equal(count(f, "SELECT count(*) FROM graphs"), 1);
    assert_int_equal(count(f, "SELECT sum(json_array_length(nodes)) FROM node_chunks"
                              " WHERE graph IN (SELECT graph FROM pending_graphs)"),
                     2 * SC_STORE_PART_NODES);
    assert_int_equal(count(f, "SELECT count(*) FROM nodes"
                              " WHERE graph IN (SELECT graph FROM pending_graphs)"
                              " AND graph IN (SELECT graph FROM graphs)"),
                     0);

    int64_t gid = commit_streamed(f, s, g, &w);
    assert_int_equal(w.rc, SC_STORE_OK);
    assert_true(gid > 0);
    assert_int_equal(count(f, "SELECT count(*) FROM pending_graphs"), 0);
    lres r;
    fx_load(f, gid, &r);
    assert_int_equal(r.rc, SC_STORE_OK);
    fx_assert_same_graph(whole, r.sg->graph);
    sc_stored_graph_free(r.sg);
    /* The shell sees the same edges in both. */
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM (SELECT src, dst FROM edges WHERE graph = %lld"
             " EXCEPT SELECT src, dst FROM edges WHERE graph = %lld)",
             (long long)gid, (long long)plain);
    assert_int_equal(count(f, sql), 0);
    /* Its reachability index, stored in parts after the tail, is the same
     * bytes as the other graph's, and a skeleton loads from it. */
    snprintf(sql, sizeof sql,
             "SELECT (SELECT sum(node_count) FROM graph_index WHERE graph = %lld)"
             " - (SELECT node_count FROM graphs WHERE graph = %lld)",
             (long long)gid, (long long)gid);
    assert_int_equal(count(f, sql), 0);
    for (int col = 0; col < 2; col++) {
        const char *c = col ? "edges" : "streams";
        snprintf(sql, sizeof sql,
                 "SELECT (SELECT group_concat(hex(%s), '') FROM (SELECT %s FROM graph_index"
                 " WHERE graph = %lld ORDER BY lo)) IS (SELECT group_concat(hex(%s), '') FROM"
                 " (SELECT %s FROM graph_index WHERE graph = %lld ORDER BY lo))",
                 c, c, (long long)gid, c, c, (long long)plain);
        assert_int_equal(count(f, sql), 1);
    }
    memset(&r, 0, sizeof r);
    assert_int_equal(sc_store_load_skeleton(f->st, gid, lres_cb, &r), 0);
    fx_drain(f);
    assert_int_equal(r.rc, SC_STORE_OK);
    assert_int_equal(sc_graph_edge_count(r.sg->graph), sc_graph_edge_count(whole));
    sc_stored_graph_free(r.sg);
    sc_graph_destroy(g);
    sc_graph_destroy(whole);
}

/* A capture that yields no graph leaves nothing of its parts. */
static void test_dropped_stream_leaves_nothing(void **state)
{
    fx *f = *state;
    fx_sqlite_only(f, "the PostgreSQL backend does not stream");
    fx_open(f, 5000, 0);
    int64_t session = fx_open_session(f, "dropped", T0);
    sc_store_stream *s;
    assert_int_equal(sc_store_stream_open(f->st, session, T0, &s), 0);
    sc_graph *g = record(f, s, 2 * SC_STORE_PART_NODES + 10);
    fx_drain(f);
    assert_true(count(f, "SELECT count(*) FROM node_chunks") > 0);
    sc_store_stream_drop(s);
    fx_drain(f);
    assert_int_equal(count(f, "SELECT count(*) FROM node_chunks"), 0);
    assert_int_equal(count(f, "SELECT count(*) FROM pending_graphs"), 0);
    assert_int_equal(count(f, "SELECT count(*) FROM graphs"), 0);
    sc_graph_destroy(g);
}

/* A part the database refuses: the later parts are skipped and the commit
 * stores the graph whole, with nothing of the first attempt left over. */
static void test_failed_part_commit_starts_over(void **state)
{
    fx *f = *state;
    fx_sqlite_only(f, "the PostgreSQL backend does not stream");
    fx_open(f, 50, 0);
    int64_t session = fx_open_session(f, "retry", T0);
    sc_store_stream *s;
    assert_int_equal(sc_store_stream_open(f->st, session, T0, &s), 0);
    /* First part stored, then a lock held by another connection makes the
     * second one time out. */
    fx_sql *db = fx_db(f);
    sc_graph *g = NULL;
    {
        sc_capture *cap;
        assert_int_equal(sc_capture_create(&cap), 0);
        assert_int_equal(sc_capture_begin(cap, 0), 0);
        for (uint32_t i = 0; i < 3 * SC_STORE_PART_NODES + 7; i++) {
            assert_int_equal(sc_capture_record_kernel(cap, 0, "k", 1, i, 1, 0, NULL), 0);
            uint32_t n = i + 1;
            if (n - sc_store_stream_next(s) < SC_STORE_PART_NODES)
                continue;
            bool block = n == 2 * SC_STORE_PART_NODES;
            if (block)
                q_lock_writes(db);
            assert_int_equal(sc_store_stream_part(f->st, s, cap, n), 0);
            fx_drain(f);
            if (block)
                q_unlock_writes(db);
        }
        assert_int_equal(sc_capture_end(cap, 0, &g), 0);
    }
    fx_db_close(db);
    /* The first part stored; the refused one and the one after it not. */
    assert_int_equal(count(f, "SELECT sum(json_array_length(nodes)) FROM node_chunks"),
                     SC_STORE_PART_NODES);
    wres w;
    int64_t gid = commit_streamed(f, s, g, &w);
    assert_int_equal(w.rc, SC_STORE_OK);
    lres r;
    fx_load(f, gid, &r);
    assert_int_equal(r.rc, SC_STORE_OK);
    fx_assert_same_graph(g, r.sg->graph);
    sc_stored_graph_free(r.sg);
    assert_int_equal(count(f, "SELECT count(*) FROM pending_graphs"), 0);
    /* Only the committed graph's runs: the first attempt's are gone. */
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM node_chunks WHERE graph <> %lld",
             (long long)gid);
    assert_int_equal(count(f, sql), 0);
    sc_graph_destroy(g);
}

/* A session whose log row is no longer open: nothing of it is stored and
 * its commit reports the session missing. */
static void test_stream_of_closed_session(void **state)
{
    fx *f = *state;
    fx_sqlite_only(f, "the PostgreSQL backend does not stream");
    fx_open(f, 5000, 0);
    int64_t session = fx_open_session(f, "closed", T0);
    fx_log_end(f, session, "closed", 0, T0 + 1);
    sc_store_stream *s;
    assert_int_equal(sc_store_stream_open(f->st, session, T0, &s), 0);
    sc_graph *g = record(f, s, SC_STORE_PART_NODES + 1);
    fx_drain(f);
    assert_int_equal(count(f, "SELECT count(*) FROM node_chunks"), 0);
    wres w;
    commit_streamed(f, s, g, &w);
    assert_int_equal(w.rc, SC_STORE_ENOTFOUND);
    assert_int_equal(count(f, "SELECT count(*) FROM node_chunks"), 0);
    assert_int_equal(count(f, "SELECT count(*) FROM pending_graphs"), 0);
    sc_graph_destroy(g);
}

/* Parts queued behind a writer that cannot write stop at a memory bound;
 * the nodes refused go with a later part, and the graph is whole. */
static void test_queued_parts_bounded(void **state)
{
    fx *f = *state;
    fx_sqlite_only(f, "the PostgreSQL backend does not stream");
    fx_open(f, 30000, 0);
    int64_t session = fx_open_session(f, "bounded", T0);
    sc_store_stream *s;
    assert_int_equal(sc_store_stream_open(f->st, session, T0, &s), 0);
    fx_sql *db = fx_db(f);
    q_lock_writes(db);
    sc_capture *cap;
    assert_int_equal(sc_capture_create(&cap), 0);
    assert_int_equal(sc_capture_begin(cap, 0), 0);
    int queued = 0, refused = 0;
    for (uint32_t i = 0; i < 64 * SC_STORE_PART_NODES && !refused; i++) {
        assert_int_equal(sc_capture_record_kernel(cap, 0, "kernel", 6, i, 1, 0, NULL), 0);
        uint32_t n = i + 1;
        if (n - sc_store_stream_next(s) < SC_STORE_PART_NODES)
            continue;
        int rc = sc_store_stream_part(f->st, s, cap, n);
        if (rc == SC_STORE_EBUSY) {
            refused = 1;
            assert_int_equal(sc_store_stream_next(s), (uint32_t)queued * SC_STORE_PART_NODES);
        } else {
            assert_int_equal(rc, 0);
            queued++;
        }
    }
    /* 64 MiB of parts is a few million nodes' copies at most, far fewer
     * than 64 parts of this size; and more than one. */
    assert_true(refused);
    assert_true(queued > 1);
    q_unlock_writes(db);
    fx_drain(f);
    fx_db_close(db);
    /* The refused nodes go with the next part. */
    uint32_t n = sc_capture_node_count(cap);
    assert_int_equal(sc_store_stream_part(f->st, s, cap, n), 0);
    sc_graph *g;
    assert_int_equal(sc_capture_end(cap, 0, &g), 0);
    wres w;
    int64_t gid = commit_streamed(f, s, g, &w);
    assert_int_equal(w.rc, SC_STORE_OK);
    lres r;
    fx_load(f, gid, &r);
    assert_int_equal(r.rc, SC_STORE_OK);
    fx_assert_same_graph(g, r.sg->graph);
    sc_stored_graph_free(r.sg);
    sc_graph_destroy(g);
}

/* Bad arguments are refused without queuing anything. */
static void test_stream_arguments(void **state)
{
    fx *f = *state;
    fx_sqlite_only(f, "the PostgreSQL backend does not stream");
    fx_open(f, 5000, 0);
    sc_store_stream *s = (sc_store_stream *)(void *)&s;
    assert_int_equal(sc_store_stream_open(NULL, 1, T0, &s), SC_STORE_EINVAL);
    assert_null(s);
    int64_t session = fx_open_session(f, "args", T0);
    assert_int_equal(sc_store_stream_open(f->st, session, T0, &s), 0);
    sc_capture *cap;
    assert_int_equal(sc_capture_create(&cap), 0);
    assert_int_equal(sc_capture_begin(cap, 0), 0);
    assert_int_equal(sc_capture_record_kernel(cap, 0, "k", 1, 1, 1, 0, NULL), 0);
    /* Nothing new, or past the recorded nodes. */
    assert_int_equal(sc_store_stream_part(f->st, s, cap, 0), SC_STORE_EINVAL);
    assert_int_equal(sc_store_stream_part(f->st, s, cap, 2), SC_STORE_EINVAL);
    assert_int_equal(sc_store_stream_next(s), 0);
    assert_int_equal(sc_store_stream_part(f->st, s, cap, 1), 0);
    assert_int_equal(sc_store_stream_next(s), 1);
    sc_capture_destroy(cap);
    /* An unsealed or missing graph: the stream is consumed all the same. */
    assert_int_equal(sc_store_stream_commit(f->st, s, NULL, 1, 1, NULL, 0, T0, wres_cb, NULL),
                     SC_STORE_EINVAL);
    fx_drain(f);
    assert_int_equal(count(f, "SELECT count(*) FROM node_chunks"), 0);
    assert_int_equal(count(f, "SELECT count(*) FROM pending_graphs"), 0);
    sc_store_stream_drop(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_streamed_equals_whole, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_dropped_stream_leaves_nothing, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_failed_part_commit_starts_over, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_stream_of_closed_session, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_queued_parts_bounded, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_stream_arguments, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
