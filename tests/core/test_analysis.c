/*
 * test_analysis.c - every figure of sc_graph_compute_stats() against brute
 * force (adjacency matrices, closure, subsets) on random small DAGs with
 * random kinds and streams, with and without the reachability index.
 * Seeds are fixed (1 to 400 in run_seeds), so a failure repeats.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sc_analysis.h"

#define MAXN 14

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static const int kinds[] = {SC_KIND_KERNEL,        SC_KIND_MEMCPY, SC_KIND_MEMSET,
                            SC_KIND_HOST_CALLBACK, SC_KIND_EMPTY,  SC_KIND_EVENT_WAIT};

typedef struct brute {
    uint32_t n;
    bool adj[MAXN][MAXN];
    bool reach[MAXN][MAXN]; /* strict: a path of one edge or more */
    int kind[MAXN];
} brute;

static sc_graph *random_graph(uint64_t *seed, brute *b, bool index)
{
    sc_graph *g;
    assert_int_equal(sc_graph_create(&g), 0);
    memset(b, 0, sizeof *b);
    b->n = (uint32_t)(rnd(seed) % (MAXN + 1));
    uint32_t density = (uint32_t)(rnd(seed) % 60) + 5;
    for (uint32_t v = 0; v < b->n; v++) {
        sc_node node = {0};
        b->kind[v] = kinds[rnd(seed) % 6];
        node.kind = (sc_node_kind)b->kind[v];
        node.stream = (uint32_t)(rnd(seed) % 4);
        uint32_t id;
        assert_int_equal(sc_graph_add_node(g, &node, &id), 0);
    }
    for (uint32_t u = 0; u < b->n; u++)
        for (uint32_t v = u + 1; v < b->n; v++)
            if (rnd(seed) % 100 < density) {
                b->adj[u][v] = true;
                assert_int_equal(sc_graph_add_edge(g, u, v), 0);
            }
    assert_int_equal(sc_graph_seal(g), 0);
    if (index)
        assert_int_equal(sc_graph_build_index(g), 0);
    for (uint32_t u = b->n; u-- > 0;)
        for (uint32_t w = u + 1; w < b->n; w++)
            if (b->adj[u][w]) {
                b->reach[u][w] = true;
                for (uint32_t v = w + 1; v < b->n; v++)
                    b->reach[u][v] |= b->reach[w][v];
            }
    return g;
}

static uint32_t brute_longest(const brute *b, uint32_t v)
{
    uint32_t best = 1;
    for (uint32_t u = 0; u < v; u++)
        if (b->adj[u][v]) {
            uint32_t l = brute_longest(b, u) + 1;
            best = l > best ? l : best;
        }
    return best;
}

/* The exact width: the largest subset with no path between any two. */
static uint32_t brute_width(const brute *b)
{
    uint32_t best = 0;
    for (uint32_t set = 0; set < (1u << b->n); set++) {
        bool anti = true;
        uint32_t size = 0;
        for (uint32_t u = 0; u < b->n && anti; u++) {
            if (!(set >> u & 1))
                continue;
            size++;
            for (uint32_t v = u + 1; v < b->n && anti; v++)
                anti = !((set >> v & 1) && b->reach[u][v]);
        }
        if (anti && size > best)
            best = size;
    }
    return best;
}

static void check_counts(const brute *b, const sc_graph_stats *st)
{
    uint32_t roots = 0, leaves = 0, by_kind[SC_STATS_KINDS] = {0};
    uint64_t edges = 0, redundant = 0;
    for (uint32_t v = 0; v < b->n; v++) {
        bool in = false, out = false;
        for (uint32_t u = 0; u < b->n; u++) {
            in |= b->adj[u][v];
            out |= b->adj[v][u];
            edges += b->adj[v][u];
            if (!b->adj[v][u])
                continue;
            bool red = false;
            for (uint32_t w = 0; w < b->n; w++)
                red |= w != u && b->adj[v][w] && b->reach[w][u];
            redundant += red;
        }
        roots += !in;
        leaves += !out;
        by_kind[b->kind[v]]++;
    }
    assert_int_equal(st->nodes, b->n);
    assert_int_equal(st->edges, edges);
    assert_int_equal(st->roots, roots);
    assert_int_equal(st->leaves, leaves);
    assert_int_equal(st->redundant_edges, redundant);
    assert_memory_equal(st->by_kind, by_kind, sizeof by_kind);
}

static void check_layers(const brute *b, const sc_graph_stats *st)
{
    uint32_t crit = 0, level[MAXN + 2] = {0}, widest = 0;
    for (uint32_t v = 0; v < b->n; v++) {
        uint32_t l = brute_longest(b, v);
        crit = l > crit ? l : crit;
        if (++level[l] > widest)
            widest = level[l];
    }
    assert_int_equal(st->critical_path, crit);
    /* The stated method: the largest longest-path level, never above the
     * exact width. */
    assert_int_equal(st->width, widest);
    assert_true(st->width <= brute_width(b));
}

static void run_seeds(bool index)
{
    for (uint64_t s = 1; s <= 400; s++) {
        uint64_t seed = s * 0x9E3779B97F4A7C15ULL;
        brute b;
        sc_graph *g = random_graph(&seed, &b, index);
        sc_graph_stats st;
        assert_int_equal(sc_graph_compute_stats(g, &st), 0);
        if (st.redundant_edges > st.edges)
            fail_msg("seed %llu", (unsigned long long)s);
        check_counts(&b, &st);
        check_layers(&b, &st);
        sc_graph_destroy(g);
    }
}

static void test_random_bfs(void **state)
{
    (void)state;
    run_seeds(false);
}

static void test_random_index(void **state)
{
    (void)state;
    run_seeds(true);
}

/* A diamond with its shortcut: 0->1->3, 0->2->3, 0->3. */
static void test_diamond(void **state)
{
    (void)state;
    sc_graph *g;
    assert_int_equal(sc_graph_create(&g), 0);
    for (uint32_t i = 0; i < 4; i++) {
        sc_node node = {.kind = SC_KIND_KERNEL, .stream = i == 2};
        uint32_t id;
        assert_int_equal(sc_graph_add_node(g, &node, &id), 0);
    }
    const uint32_t e[][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 3}, {2, 3}};
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(sc_graph_add_edge(g, e[i][0], e[i][1]), 0);
    assert_int_equal(sc_graph_seal(g), 0);
    sc_graph_stats st;
    assert_int_equal(sc_graph_compute_stats(g, &st), 0);
    assert_int_equal(st.nodes, 4);
    assert_int_equal(st.edges, 5);
    assert_int_equal(st.by_kind[SC_KIND_KERNEL], 4);
    assert_int_equal(st.streams, 2);
    assert_int_equal(st.roots, 1);
    assert_int_equal(st.leaves, 1);
    assert_int_equal(st.redundant_edges, 1);
    assert_int_equal(st.critical_path, 3);
    assert_int_equal(st.width, 2);
    sc_graph_destroy(g);
}

static void test_bad_args(void **state)
{
    (void)state;
    sc_graph *g;
    sc_graph_stats st;
    assert_int_equal(sc_graph_create(&g), 0);
    assert_int_equal(sc_graph_compute_stats(g, &st), SC_EINVAL);
    assert_int_equal(sc_graph_seal(g), 0);
    assert_int_equal(sc_graph_compute_stats(NULL, &st), SC_EINVAL);
    assert_int_equal(sc_graph_compute_stats(g, NULL), SC_EINVAL);
    assert_int_equal(sc_graph_compute_stats(g, &st), 0);
    assert_int_equal(st.nodes, 0);
    assert_int_equal(st.critical_path, 0);
    assert_int_equal(st.width, 0);
    sc_graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_bfs),
        cmocka_unit_test(test_random_index),
        cmocka_unit_test(test_diamond),
        cmocka_unit_test(test_bad_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
