/*
 * test_reach_random.c - the reachability index against plain BFS on random
 * capture-like graphs, recorded through the session API with random
 * fork/join via events.  Shapes range from one stream to 2000 streams, so
 * both the indexed path and the backward walk over unindexed streams run.
 * Skeletons (sc_graph_create_skeleton) add DAGs no capture would make:
 * random edges whatever the streams, wide fan-in and fan-out, one long
 * chain.  Seeds are fixed; a failure names the seed and the pair.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sc_capture.h"

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static uint32_t below(uint64_t *s, uint32_t n)
{
    return (uint32_t)(rnd(s) % n);
}

static const char *const names[] = {"gemm", "relu", "softmax", "layernorm", "copy"};

/* One op on `stream`: mostly records, sometimes an event record or wait on
 * a small pool of events so that streams fork and join. */
static void random_op(sc_capture *cap, uint64_t *seed, uint32_t stream, uint32_t events)
{
    uint32_t r = below(seed, 100);
    uint32_t ev = below(seed, events);
    const char *name = names[below(seed, 5)];
    int rc;
    if (r < 15) {
        rc = sc_capture_record_event(cap, stream, ev);
    } else if (r < 32) {
        rc = sc_capture_wait_event(cap, stream, ev);
    } else if (r < 70) {
        rc = sc_capture_record_kernel(cap, stream, name, strlen(name), 1 + below(seed, 64), 256, 0,
                                      NULL);
    } else if (r < 85) {
        rc = sc_capture_record_memcpy(cap, stream, name, strlen(name),
                                      (sc_memcpy_dir)below(seed, 4), 4096, 0, 1, NULL);
    } else if (r < 95) {
        rc = sc_capture_record_memset(cap, stream, name, strlen(name), 64, 0, NULL);
    } else {
        rc = sc_capture_record_host_callback(cap, stream, name, strlen(name), NULL);
    }
    assert_int_equal(rc, 0);
}

/* `streams` streams, `ops` ops spread over them with a skew so stream sizes
 * differ (the index keeps the biggest). */
static sc_graph *random_capture(uint64_t seed, uint32_t streams, uint32_t ops, uint32_t events)
{
    sc_capture *cap = NULL;
    assert_int_equal(sc_capture_create(&cap), 0);
    for (uint32_t s = 0; s < streams; s++)
        assert_int_equal(sc_capture_begin(cap, s * 3 + 1), 0);
    for (uint32_t i = 0; i < ops; i++) {
        uint32_t s = below(&seed, streams);
        if (below(&seed, 3) == 0)
            s = below(&seed, 1 + streams / 4);
        random_op(cap, &seed, s * 3 + 1, events);
    }
    sc_graph *g = NULL;
    assert_int_equal(sc_capture_end(cap, 1, &g), 0);
    return g;
}

/* Many streams with 1..5 record ops each, interleaved randomly; with
 * `bursty` a stream tends to keep going for a while, which puts edges
 * between nearby ids. */
static sc_graph *many_small_streams(uint64_t seed, uint32_t streams, uint32_t events, bool bursty)
{
    sc_capture *cap = NULL;
    assert_int_equal(sc_capture_create(&cap), 0);
    uint32_t *left = malloc(streams * sizeof *left);
    uint32_t *live = malloc(streams * sizeof *live);
    assert_non_null(left);
    assert_non_null(live);
    for (uint32_t s = 0; s < streams; s++) {
        assert_int_equal(sc_capture_begin(cap, s), 0);
        left[s] = 1 + below(&seed, 5);
        live[s] = s;
    }
    uint32_t nlive = streams, i = 0;
    while (nlive > 0) {
        if (!bursty || i >= nlive || below(&seed, 4) == 0)
            i = below(&seed, nlive);
        uint32_t s = live[i];
        if (below(&seed, 2) == 0) {
            uint32_t ev = below(&seed, events);
            if (below(&seed, 2) == 0)
                assert_int_equal(sc_capture_wait_event(cap, s, ev), 0);
            else
                assert_int_equal(sc_capture_record_event(cap, s, ev), 0);
        }
        assert_int_equal(sc_capture_record_kernel(cap, s, "k", 1, 1, 32, 0, NULL), 0);
        if (below(&seed, 3) == 0)
            assert_int_equal(sc_capture_record_event(cap, s, below(&seed, events)), 0);
        if (--left[s] == 0)
            live[i] = live[--nlive];
    }
    free(left);
    free(live);
    sc_graph *g = NULL;
    assert_int_equal(sc_capture_end(cap, 0, &g), 0);
    return g;
}

static void check_pair(sc_graph *g, uint64_t seed, uint32_t a, uint32_t b)
{
    bool x = false, y = false;
    assert_int_equal(sc_graph_reachable(g, a, b, &x), 0);
    assert_int_equal(sc_graph_reachable_bfs(g, a, b, &y), 0);
    if (x != y)
        fail_msg("seed %#llx: reachable(%u, %u): index %d, bfs %d", (unsigned long long)seed, a, b,
                 x, y);
}

static void check_all_pairs(sc_graph *g, uint64_t seed)
{
    assert_int_equal(sc_graph_build_index(g), 0);
    uint32_t n = sc_graph_node_count(g);
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++)
            check_pair(g, seed, a, b);
}

/* Random pairs: half with b close above a (where answers are mixed), the
 * rest anywhere.  Returns how many were reachable, so callers can insist
 * that both answers occurred. */
static uint32_t check_random_pairs(sc_graph *g, uint64_t seed, uint32_t pairs, uint32_t span)
{
    assert_int_equal(sc_graph_build_index(g), 0);
    uint32_t n = sc_graph_node_count(g), yes = 0;
    uint64_t s = seed ^ 0xABCDEF;
    for (uint32_t i = 0; i < pairs; i++) {
        uint32_t a = below(&s, n), b;
        if (i % 2 == 0) {
            b = a + below(&s, span);
            if (b >= n)
                b = n - 1;
        } else {
            b = below(&s, n);
            if (b > a && b - a > 50 * span)
                b = a + 50 * span; /* keep the BFS side affordable */
        }
        check_pair(g, seed, a, b);
        bool r;
        sc_graph_reachable(g, a, b, &r);
        yes += r && a != b;
    }
    return yes;
}

static void t_small_graphs_all_pairs(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 80; seed++) {
        uint64_t s = seed * 0x9E3779B97F4A7C15ULL;
        uint32_t streams = 1 + below(&s, seed % 2 ? 45 : 150);
        uint32_t ops = 5 + below(&s, 250);
        sc_graph *g = random_capture(s, streams, ops, 1 + below(&s, 12));
        check_all_pairs(g, s);
        sc_graph_destroy(g);
    }
}

/* Exactly around the index capacity: 31, 32, 33 and 40 equal-ish streams. */
static void t_index_capacity_boundary(void **state)
{
    (void)state;
    static const uint32_t shapes[] = {31, 32, 33, 40};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        uint64_t s = 0x1000 + i;
        sc_graph *g = random_capture(s, shapes[i], 700, 16);
        assert_true(sc_graph_stream_count(g) <= shapes[i]);
        check_all_pairs(g, s);
        sc_graph_destroy(g);
    }
}

static void t_two_thousand_small_streams(void **state)
{
    (void)state;
    for (uint64_t seed = 7; seed < 11; seed++) {
        sc_graph *g = many_small_streams(seed, 2000, 300, seed % 2 == 0);
        assert_int_equal(sc_graph_stream_count(g), 2000);
        uint32_t yes = check_random_pairs(g, seed, 20000, 400);
        assert_true(yes > 0);
        assert_true(yes < 20000);
        sc_graph_destroy(g);
    }
}

/* Small graphs of many tiny streams, all pairs. */
static void t_small_many_streams_all_pairs(void **state)
{
    (void)state;
    for (uint64_t seed = 200; seed < 230; seed++) {
        uint64_t s = seed;
        sc_graph *g = many_small_streams(s, 40 + below(&s, 80), 1 + below(&s, 30), seed % 2 == 0);
        check_all_pairs(g, seed);
        sc_graph_destroy(g);
    }
}

static void t_few_streams_many_ops(void **state)
{
    (void)state;
    uint64_t seed = 0x8888;
    sc_graph *g = random_capture(seed, 8, 200000, 24);
    assert_true(sc_graph_node_count(g) > 100000);
    uint32_t yes = check_random_pairs(g, seed, 4000, 300);
    assert_true(yes > 0);
    assert_true(yes < 4000);
    sc_graph_destroy(g);
}

static void t_medium_mixed(void **state)
{
    (void)state;
    for (uint64_t seed = 100; seed < 104; seed++) {
        sc_graph *g = random_capture(seed, 200, 20000, 64);
        uint32_t yes = check_random_pairs(g, seed, 8000, 500);
        assert_true(yes > 0);
        sc_graph_destroy(g);
    }
}

/* ---- skeletons: any DAG, and the shapes that defeat a chain cover ------ */

typedef struct edge_list {
    uint32_t *v; /* src, dst pairs */
    uint64_t n, cap;
} edge_list;

static void edge_add(edge_list *e, uint32_t src, uint32_t dst)
{
    if (e->n == e->cap) {
        e->cap = e->cap ? e->cap * 2 : 1024;
        e->v = realloc(e->v, (size_t)e->cap * 2 * sizeof *e->v);
        assert_non_null(e->v);
    }
    e->v[2 * e->n] = src;
    e->v[2 * e->n + 1] = dst;
    e->n++;
}

static int cmp_edge(const void *x, const void *y)
{
    const uint32_t *p = x, *q = y;
    if (p[0] != q[0])
        return p[0] < q[0] ? -1 : 1;
    return (p[1] > q[1]) - (p[1] < q[1]);
}

/* Sort and deduplicate the edges, build the skeleton, index it. */
static sc_graph *skeleton(uint32_t n, const uint32_t *streams, edge_list *e)
{
    qsort(e->v, (size_t)e->n, 2 * sizeof *e->v, cmp_edge);
    uint64_t m = 0;
    for (uint64_t i = 0; i < e->n; i++)
        if (m == 0 || cmp_edge(e->v + 2 * i, e->v + 2 * (m - 1)) != 0) {
            e->v[2 * m] = e->v[2 * i];
            e->v[2 * m + 1] = e->v[2 * i + 1];
            m++;
        }
    sc_graph *g = NULL;
    assert_int_equal(sc_graph_create_skeleton(n, streams, m, e->v, &g), 0);
    assert_int_equal(sc_graph_build_index(g), 0);
    free(e->v);
    *e = (edge_list){0};
    return g;
}

enum shape { SHAPE_RANDOM, SHAPE_SHORT_CHAINS, SHAPE_LONG_CHAIN, SHAPE_FAN_IN, SHAPE_FAN_OUT };

/* A random DAG of `shape` with about n nodes: edges always go up in id. */
static sc_graph *random_dag(uint64_t *seed, enum shape shape, uint32_t n)
{
    uint32_t *streams = malloc(n * sizeof *streams);
    assert_non_null(streams);
    edge_list e = {0};
    uint32_t nstreams = shape == SHAPE_LONG_CHAIN ? 1 + below(seed, 3) : 1 + below(seed, n);
    for (uint32_t i = 0; i < n; i++) {
        streams[i] = below(seed, nstreams);
        if (shape == SHAPE_SHORT_CHAINS || shape == SHAPE_LONG_CHAIN) {
            /* The stream's previous node, when there is one close by. */
            for (uint32_t j = i; j-- > 0 && i - j < 64;)
                if (streams[j] == streams[i]) {
                    edge_add(&e, j, i);
                    break;
                }
        }
        uint32_t extra = shape == SHAPE_RANDOM ? below(seed, 4) : below(seed, 2);
        for (uint32_t k = 0; k < extra && i > 0; k++)
            edge_add(&e, below(seed, i), i);
    }
    /* Hubs: a few nodes that many others join into or fork from. */
    if (shape == SHAPE_FAN_IN || shape == SHAPE_FAN_OUT) {
        for (uint32_t h = 0; h < 3; h++) {
            uint32_t hub = shape == SHAPE_FAN_IN ? n - 1 - below(seed, n / 4) : below(seed, n / 4);
            for (uint32_t i = 0; i < n; i++)
                if (below(seed, 3) == 0 && i != hub)
                    edge_add(&e, i < hub ? i : hub, i < hub ? hub : i);
        }
    }
    sc_graph *g = skeleton(n, streams, &e);
    free(streams);
    return g;
}

static void t_random_dags_all_pairs(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 100; seed++) {
        uint64_t s = seed * 0xD1B54A32D192ED03ULL;
        enum shape shape = (enum shape)(seed % 5);
        sc_graph *g = random_dag(&s, shape, 20 + below(&s, 180));
        check_all_pairs(g, seed);
        sc_graph_destroy(g);
    }
}

static void t_random_dags_large(void **state)
{
    (void)state;
    for (uint64_t seed = 500; seed < 510; seed++) {
        uint64_t s = seed * 0xD1B54A32D192ED03ULL;
        sc_graph *g = random_dag(&s, (enum shape)(seed % 5), 5000 + below(&s, 5000));
        uint32_t yes = check_random_pairs(g, seed, 4000, 200);
        assert_true(yes > 0);
        sc_graph_destroy(g);
    }
}

/* `streams` streams of `len` nodes each, then one node on a stream of its
 * own that every stream's last node joins into (the join comes last). */
static sc_graph *fan_in(uint32_t streams, uint32_t len)
{
    uint32_t n = streams * len + 1;
    uint32_t *st = malloc(n * sizeof *st);
    assert_non_null(st);
    edge_list e = {0};
    for (uint32_t s = 0; s < streams; s++)
        for (uint32_t i = 0; i < len; i++) {
            uint32_t v = s * len + i;
            st[v] = s;
            if (i > 0)
                edge_add(&e, v - 1, v);
            if (i == len - 1)
                edge_add(&e, v, n - 1);
        }
    st[n - 1] = streams;
    sc_graph *g = skeleton(n, st, &e);
    free(st);
    return g;
}

/* One root on a stream of its own that `streams` streams of `len` fork from. */
static sc_graph *fan_out(uint32_t streams, uint32_t len)
{
    uint32_t n = streams * len + 1;
    uint32_t *st = malloc(n * sizeof *st);
    assert_non_null(st);
    edge_list e = {0};
    st[0] = streams;
    for (uint32_t s = 0; s < streams; s++)
        for (uint32_t i = 0; i < len; i++) {
            uint32_t v = 1 + s * len + i;
            st[v] = s;
            edge_add(&e, i > 0 ? v - 1 : 0, v);
        }
    sc_graph *g = skeleton(n, st, &e);
    free(st);
    return g;
}

/* 10,000 short streams joined into one node: every query on the join is
 * answered by the index (the join's stream, though the smallest, is where
 * 10,000 edges meet), with no step of walking, and the rest stay cheap. */
static void t_wide_fan_in_is_indexed(void **state)
{
    (void)state;
    sc_graph *g = fan_in(10000, 2);
    uint32_t n = sc_graph_node_count(g), join = n - 1;
    for (uint32_t a = 0; a < n; a++) {
        uint64_t steps = 0;
        bool yes = false, settled = false;
        assert_int_equal(sc_graph_reachable_bounded(g, a, join, &steps, &yes, &settled), 0);
        assert_true(settled);
        assert_true(yes);
    }
    uint64_t s = 0xFA41;
    for (uint32_t i = 0; i < 20000; i++) {
        uint32_t a = below(&s, n), b = below(&s, n);
        uint64_t steps = 64;
        bool yes = false, settled = false, want = false;
        assert_int_equal(sc_graph_reachable_bounded(g, a, b, &steps, &yes, &settled), 0);
        assert_true(settled);
        assert_int_equal(sc_graph_reachable_bfs(g, a, b, &want), 0);
        assert_int_equal(yes, want);
    }
    sc_graph_destroy(g);
}

static void t_wide_fan_out_is_cheap(void **state)
{
    (void)state;
    sc_graph *g = fan_out(10000, 3);
    uint32_t n = sc_graph_node_count(g);
    uint64_t s = 0xFA40;
    for (uint32_t i = 0; i < 20000; i++) {
        uint32_t a = i % 4 == 0 ? 0 : below(&s, n), b = below(&s, n);
        uint64_t steps = 64;
        bool yes = false, settled = false, want = false;
        assert_int_equal(sc_graph_reachable_bounded(g, a, b, &steps, &yes, &settled), 0);
        assert_true(settled);
        assert_int_equal(sc_graph_reachable_bfs(g, a, b, &want), 0);
        assert_int_equal(yes, want);
    }
    sc_graph_destroy(g);
}

/* A capped query either settles with the right answer or stops with its
 * steps spent and the answer untouched; doubling the cap settles it. */
static void t_bounded_walk(void **state)
{
    (void)state;
    sc_graph *g = many_small_streams(9, 2000, 300, false);
    assert_int_equal(sc_graph_build_index(g), 0);
    uint32_t n = sc_graph_node_count(g), stopped = 0;
    uint64_t s = 0xB0B;
    for (uint32_t i = 0; i < 3000; i++) {
        uint32_t a = below(&s, n), b = below(&s, n);
        bool want = false;
        assert_int_equal(sc_graph_reachable_bfs(g, a, b, &want), 0);
        for (uint64_t cap = 0;; cap = cap ? cap * 2 : 1) {
            uint64_t steps = cap;
            bool yes = !want, settled = true;
            assert_int_equal(sc_graph_reachable_bounded(g, a, b, &steps, &yes, &settled), 0);
            if (settled) {
                assert_int_equal(yes, want);
                assert_true(steps <= cap);
                break;
            }
            assert_int_equal(steps, 0);
            assert_int_equal(yes, !want);
            stopped++;
        }
    }
    assert_true(stopped > 0);
    uint64_t steps = 1;
    bool yes, settled;
    assert_int_equal(sc_graph_reachable_bounded(g, 0, 1, NULL, &yes, &settled), SC_EINVAL);
    assert_int_equal(sc_graph_reachable_bounded(g, 0, 1, &steps, NULL, &settled), SC_EINVAL);
    assert_int_equal(sc_graph_reachable_bounded(g, 0, 1, &steps, &yes, NULL), SC_EINVAL);
    assert_int_equal(sc_graph_reachable_bounded(g, 0, n, &steps, &yes, &settled), SC_ENOTFOUND);
    sc_graph_destroy(g);
}

/*
 * 200 streams of 500 nodes with random cross-waits, after one node that
 * nothing follows (node 0, on a stream of its own): a walk back from any
 * target finds most of the graph above node 0, and only 32 of the streams
 * are indexed, yet a pair from node 0 settles within a few steps (the
 * forward side runs out at once) and every answer matches BFS.  Pairs
 * between two nodes that both see much of the graph still settle exactly.
 */
static void t_dead_end_source_is_cheap(void **state)
{
    (void)state;
    const uint32_t streams = 200, len = 500, n = 1 + streams * len;
    uint32_t *st = malloc(n * sizeof *st);
    assert_non_null(st);
    edge_list e = {0};
    uint64_t s = 0xDEAD;
    st[0] = streams;
    for (uint32_t v = 1; v < n; v++) {
        st[v] = (v - 1) % streams;
        if (v > streams)
            edge_add(&e, v - streams, v);
        if (v > 4 * streams && below(&s, 4) == 0)
            edge_add(&e, v - 1 - below(&s, 4 * streams - 1), v);
    }
    sc_graph *g = skeleton(n, st, &e);
    free(st);
    for (uint32_t i = 0; i < 2000; i++) {
        uint32_t b = 1 + below(&s, n - 1);
        uint64_t steps = 16;
        bool yes = true, settled = false, want = true;
        assert_int_equal(sc_graph_reachable_bounded(g, 0, b, &steps, &yes, &settled), 0);
        assert_true(settled);
        assert_false(yes);
        assert_int_equal(sc_graph_reachable_bfs(g, 0, b, &want), 0);
        assert_false(want);
    }
    uint32_t yes_count = check_random_pairs(g, 0xDEAD, 3000, 2000);
    assert_true(yes_count > 0);
    sc_graph_destroy(g);
}

/* Without an index the capped query is a capped breadth-first search. */
static void t_bounded_bfs(void **state)
{
    (void)state;
    uint64_t s = 77;
    sc_graph *g = random_capture(s, 4, 3000, 8);
    uint32_t n = sc_graph_node_count(g), stopped = 0;
    for (uint32_t i = 0; i < 500; i++) {
        uint32_t a = below(&s, n), b = below(&s, n);
        bool want = false;
        assert_int_equal(sc_graph_reachable_bfs(g, a, b, &want), 0);
        uint64_t steps = 4;
        bool yes = !want, settled = false;
        assert_int_equal(sc_graph_reachable_bounded(g, a, b, &steps, &yes, &settled), 0);
        if (settled)
            assert_int_equal(yes, want);
        else
            stopped++;
    }
    assert_true(stopped > 0);
    assert_false(sc_graph_has_index(g));
    sc_graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_small_graphs_all_pairs),
        cmocka_unit_test(t_index_capacity_boundary),
        cmocka_unit_test(t_two_thousand_small_streams),
        cmocka_unit_test(t_small_many_streams_all_pairs),
        cmocka_unit_test(t_few_streams_many_ops),
        cmocka_unit_test(t_medium_mixed),
        cmocka_unit_test(t_random_dags_all_pairs),
        cmocka_unit_test(t_random_dags_large),
        cmocka_unit_test(t_wide_fan_in_is_indexed),
        cmocka_unit_test(t_wide_fan_out_is_cheap),
        cmocka_unit_test(t_bounded_walk),
        cmocka_unit_test(t_bounded_bfs),
        cmocka_unit_test(t_dead_end_source_is_cheap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
