/*
 * test_diff.c - sc_graph_diff_compute() against checks that do not depend
 * on how it matches: on random captures (each stream a chain, edges
 * between streams) and random edits of them, the diff must carry a's
 * nodes and edges onto b's exactly, name exactly the fields that differ
 * in each change, and be identical only when nothing differs; one node
 * inserted into a chain is one added node and its edges, nothing changed;
 * a renumbered capture is identical.  Seeds are fixed, so a failure
 * repeats.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sc_diff.h"

#define MAXN 48

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

/* A graph in the test's own terms: nodes in id order, adjacency. */
typedef struct spec {
    uint32_t n;
    int kind[MAXN];
    uint32_t stream[MAXN];
    char name[MAXN][4];
    uint32_t blocks[MAXN];
    uint64_t size[MAXN];
    bool adj[MAXN][MAXN];
} spec;

static void random_node(uint64_t *seed, spec *sp, uint32_t v)
{
    static const int kinds[] = {SC_KIND_KERNEL, SC_KIND_MEMCPY, SC_KIND_MEMSET};
    sp->kind[v] = kinds[rnd(seed) % 3];
    sp->stream[v] = (uint32_t)(rnd(seed) % 3);
    snprintf(sp->name[v], sizeof sp->name[v], "%c", (char)('a' + rnd(seed) % 4));
    sp->blocks[v] = 1 + (uint32_t)(rnd(seed) % 2);
    sp->size[v] = 8 * (1 + rnd(seed) % 2);
}

/* Each stream's nodes chained, as a capture makes them, plus edges
 * between streams. */
static void chain_streams(spec *sp)
{
    for (uint32_t v = 0; v < sp->n; v++)
        for (uint32_t u = v; u-- > 0;)
            if (sp->stream[u] == sp->stream[v]) {
                sp->adj[u][v] = true;
                break;
            }
}

static void random_spec(uint64_t *seed, spec *sp)
{
    memset(sp, 0, sizeof *sp);
    sp->n = 1 + (uint32_t)(rnd(seed) % (MAXN - 8));
    for (uint32_t v = 0; v < sp->n; v++)
        random_node(seed, sp, v);
    for (uint32_t u = 0; u < sp->n; u++)
        for (uint32_t v = u + 1; v < sp->n; v++)
            sp->adj[u][v] = rnd(seed) % 100 < 8;
    chain_streams(sp);
}

static sc_node node_of(const spec *sp, uint32_t v)
{
    sc_node n = {.kind = (sc_node_kind)sp->kind[v],
                 .stream = sp->stream[v],
                 .name = sp->name[v],
                 .name_len = strlen(sp->name[v])};
    if (sp->kind[v] == SC_KIND_KERNEL) {
        n.num_blocks = sp->blocks[v];
        n.threads_per_block = 32;
    } else {
        n.size_bytes = sp->size[v];
    }
    return n;
}

/* pos: the new id of each node (NULL: the same). */
static sc_graph *build(const spec *sp, const uint32_t *pos)
{
    uint32_t at[MAXN];
    for (uint32_t v = 0; v < sp->n; v++)
        at[pos ? pos[v] : v] = v;
    sc_graph *g;
    assert_int_equal(sc_graph_create(&g), 0);
    for (uint32_t k = 0; k < sp->n; k++) {
        sc_node n = node_of(sp, at[k]);
        assert_int_equal(sc_graph_add_node(g, &n, NULL), 0);
    }
    for (uint32_t u = 0; u < sp->n; u++)
        for (uint32_t v = 0; v < sp->n; v++)
            if (sp->adj[u][v])
                assert_int_equal(sc_graph_add_edge(g, pos ? pos[u] : u, pos ? pos[v] : v), 0);
    assert_int_equal(sc_graph_seal(g), 0);
    return g;
}

/* Remove node v, or insert a random one before position v. */
static void remove_node(spec *sp, uint32_t v)
{
    spec t = *sp;
    uint32_t k = 0;
    for (uint32_t u = 0; u < sp->n; u++) {
        if (u == v)
            continue;
        t.kind[k] = sp->kind[u];
        t.stream[k] = sp->stream[u];
        memcpy(t.name[k], sp->name[u], sizeof t.name[k]);
        t.blocks[k] = sp->blocks[u];
        t.size[k] = sp->size[u];
        uint32_t j = 0;
        for (uint32_t w = 0; w < sp->n; w++)
            if (w != v)
                t.adj[k][j++] = sp->adj[u][w];
        k++;
    }
    t.n = k;
    *sp = t;
}

static void insert_node(uint64_t *seed, spec *sp, uint32_t v)
{
    spec t;
    memset(&t, 0, sizeof t);
    t.n = sp->n + 1;
    for (uint32_t u = 0; u < t.n; u++) {
        if (u == v) {
            random_node(seed, &t, u);
            continue;
        }
        uint32_t o = u < v ? u : u - 1;
        t.kind[u] = sp->kind[o];
        t.stream[u] = sp->stream[o];
        memcpy(t.name[u], sp->name[o], sizeof t.name[u]);
        t.blocks[u] = sp->blocks[o];
        t.size[u] = sp->size[o];
        for (uint32_t w = 0; w < t.n; w++)
            if (w != v)
                t.adj[u][w] = sp->adj[o][w < v ? w : w - 1];
    }
    for (uint32_t u = 0; u < v; u++)
        t.adj[u][v] = rnd(seed) % 100 < 10;
    for (uint32_t w = v + 1; w < t.n; w++)
        t.adj[v][w] = rnd(seed) % 100 < 10;
    *sp = t;
}

static void random_edit(uint64_t *seed, spec *sp)
{
    uint32_t v = (uint32_t)(rnd(seed) % sp->n);
    switch (rnd(seed) % 5) {
    case 0:
        if (sp->n > 1)
            remove_node(sp, v);
        break;
    case 1:
        if (sp->n < MAXN)
            insert_node(seed, sp, v);
        break;
    case 2:
        sp->blocks[v]++;
        sp->size[v] += 8;
        break;
    case 3:
        sp->name[v][0] = 'z';
        break;
    default: {
        uint32_t w = (uint32_t)(rnd(seed) % sp->n);
        if (v != w)
            sp->adj[v < w ? v : w][v < w ? w : v] ^= true;
    }
    }
}

/* The fields the test's nodes can differ in, by graph.get's names. */
static uint32_t brute_fields(const spec *a, uint32_t u, const spec *b, uint32_t v)
{
    uint32_t f = strcmp(a->name[u], b->name[v]) ? SC_DIFF_NAME : 0;
    if (a->kind[u] == SC_KIND_KERNEL)
        f |= a->blocks[u] != b->blocks[v] ? SC_DIFF_NUM_BLOCKS : 0;
    else
        f |= a->size[u] != b->size[v] ? SC_DIFF_SIZE_BYTES : 0;
    return f;
}

static bool same_content(const spec *a, uint32_t u, const spec *b, uint32_t v)
{
    return a->kind[u] == b->kind[v] && a->stream[u] == b->stream[v] &&
           brute_fields(a, u, b, v) == 0;
}

static bool in_list(const uint32_t *v, uint32_t n, uint32_t x)
{
    for (uint32_t i = 0; i < n; i++)
        if (v[i] == x)
            return true;
    return false;
}

static bool in_pairs(const uint32_t *v, uint64_t n, uint32_t s, uint32_t d)
{
    for (uint64_t i = 0; i < n; i++)
        if (v[2 * i] == s && v[2 * i + 1] == d)
            return true;
    return false;
}

static void check_ascending(const uint32_t *v, uint32_t n, uint32_t limit)
{
    for (uint32_t i = 0; i < n; i++) {
        assert_true(v[i] < limit);
        if (i)
            assert_true(v[i - 1] < v[i]);
    }
}

/* The checks every diff must pass; returns the diff for more. */
static void check_diff(const spec *a, const spec *b, const sc_graph_diff *d)
{
    check_ascending(d->removed, d->nremoved, a->n);
    check_ascending(d->added, d->nadded, b->n);
    uint32_t map[MAXN];
    bool kept_b[MAXN] = {0}, used_b[MAXN] = {0};
    for (uint32_t u = 0; u < a->n; u++)
        map[u] = UINT32_MAX;
    for (uint32_t i = 0; i < d->nchanged; i++) {
        const sc_diff_change *c = &d->changed[i];
        assert_true(c->a < a->n && c->b < b->n);
        assert_false(in_list(d->removed, d->nremoved, c->a));
        assert_false(in_list(d->added, d->nadded, c->b));
        assert_true(map[c->a] == UINT32_MAX && !used_b[c->b]);
        assert_int_equal(a->kind[c->a], b->kind[c->b]);
        assert_int_equal(c->fields, brute_fields(a, c->a, b, c->b));
        assert_true(c->fields != 0);
        map[c->a] = c->b;
        used_b[c->b] = true;
    }
    for (uint32_t v = 0; v < b->n; v++)
        kept_b[v] = !used_b[v] && !in_list(d->added, d->nadded, v);
    /* The kept nodes: the i-th of a with some content is the i-th of b
     * with it; both sides must have the same of each. */
    for (uint32_t u = 0; u < a->n; u++) {
        if (map[u] != UINT32_MAX || in_list(d->removed, d->nremoved, u))
            continue;
        uint32_t v = 0;
        while (v < b->n && !(kept_b[v] && !used_b[v] && same_content(a, u, b, v)))
            v++;
        if (v == b->n)
            fail_msg("node %u of a is kept but b has no node like it left", (unsigned)u);
        map[u] = v;
        used_b[v] = true;
    }
    for (uint32_t v = 0; v < b->n; v++)
        if (kept_b[v] && !used_b[v])
            fail_msg("node %u of b is kept but matches nothing of a", (unsigned)v);
    /* Edges: a's, less those removed, carried over, are b's less those added. */
    for (uint32_t u = 0; u < a->n; u++)
        for (uint32_t w = 0; w < a->n; w++) {
            bool removed = in_pairs(d->edges_removed, d->nedges_removed, u, w);
            if (removed)
                assert_true(a->adj[u][w]);
            if (!a->adj[u][w] || removed)
                continue;
            assert_true(map[u] != UINT32_MAX && map[w] != UINT32_MAX);
            assert_true(b->adj[map[u]][map[w]]);
            assert_false(in_pairs(d->edges_added, d->nedges_added, map[u], map[w]));
        }
    uint64_t kept_edges = 0, b_edges = 0;
    for (uint32_t u = 0; u < a->n; u++)
        for (uint32_t w = 0; w < a->n; w++)
            kept_edges += a->adj[u][w] && !in_pairs(d->edges_removed, d->nedges_removed, u, w);
    for (uint32_t u = 0; u < b->n; u++)
        for (uint32_t w = 0; w < b->n; w++) {
            b_edges += b->adj[u][w];
            if (in_pairs(d->edges_added, d->nedges_added, u, w))
                assert_true(b->adj[u][w]);
        }
    assert_true(kept_edges + d->nedges_added == b_edges);
    bool none = d->nadded == 0 && d->nremoved == 0 && d->nchanged == 0 && d->nedges_added == 0 &&
                d->nedges_removed == 0;
    assert_true(d->identical == none);
}

static sc_graph_diff diff_of(const spec *a, const uint32_t *pa, const spec *b)
{
    sc_graph *ga = build(a, pa), *gb = build(b, NULL);
    sc_graph_diff d;
    assert_int_equal(sc_graph_diff_compute(ga, gb, &d), 0);
    sc_graph_destroy(ga);
    sc_graph_destroy(gb);
    return d;
}

static void test_random_edits_consistent(void **state)
{
    (void)state;
    for (uint64_t s = 1; s <= 1500; s++) {
        uint64_t seed = s;
        spec a, b;
        random_spec(&seed, &a);
        b = a;
        uint32_t edits = (uint32_t)(rnd(&seed) % 6);
        for (uint32_t e = 0; e < edits; e++)
            random_edit(&seed, &b);
        sc_graph_diff d = diff_of(&a, NULL, &b);
        check_diff(&a, &b, &d);
        sc_graph_diff_free(&d);
    }
}

/* The same capture under another topological numbering (streams keep
 * their order, being chains): identical. */
static void test_renumbered_identical(void **state)
{
    (void)state;
    for (uint64_t s = 1; s <= 300; s++) {
        uint64_t seed = s;
        spec a;
        random_spec(&seed, &a);
        bool placed[MAXN] = {0};
        uint32_t pos[MAXN];
        for (uint32_t k = 0; k < a.n; k++) {
            uint32_t ready[MAXN], nr = 0;
            for (uint32_t v = 0; v < a.n; v++) {
                bool ok = !placed[v];
                for (uint32_t u = 0; ok && u < v; u++)
                    ok = !a.adj[u][v] || placed[u];
                if (ok)
                    ready[nr++] = v;
            }
            uint32_t v = ready[rnd(&seed) % nr];
            placed[v] = true;
            pos[v] = k;
        }
        sc_graph *ga = build(&a, NULL), *gb = build(&a, pos);
        sc_graph_diff d;
        assert_int_equal(sc_graph_diff_compute(ga, gb, &d), 0);
        assert_true(d.identical);
        sc_graph_diff_free(&d);
        sc_graph_destroy(ga);
        sc_graph_destroy(gb);
    }
}

/* A chain of kernels with one more kernel in the middle of b. */
static void test_one_insert_in_chain(void **state)
{
    (void)state;
    spec a;
    memset(&a, 0, sizeof a);
    a.n = 20;
    for (uint32_t v = 0; v < a.n; v++) {
        a.kind[v] = SC_KIND_KERNEL;
        snprintf(a.name[v], sizeof a.name[v], "k%u", (unsigned)(v % 3));
        a.blocks[v] = 1;
    }
    chain_streams(&a);
    spec b;
    memset(&b, 0, sizeof b);
    b.n = 21;
    for (uint32_t v = 0; v < b.n; v++) {
        uint32_t o = v < 9 ? v : v - 1;
        b.kind[v] = SC_KIND_KERNEL;
        memcpy(b.name[v], v == 9 ? "new" : a.name[o], 4);
        b.blocks[v] = 1;
    }
    chain_streams(&b);
    sc_graph_diff d = diff_of(&a, NULL, &b);
    check_diff(&a, &b, &d);
    assert_int_equal(d.nadded, 1);
    assert_int_equal(d.added[0], 9);
    assert_int_equal(d.nremoved, 0);
    assert_int_equal(d.nchanged, 0);
    assert_int_equal(d.nedges_added, 2); /* 8 -> new -> 9 */
    assert_int_equal(d.nedges_removed, 1);
    assert_int_equal(d.edges_removed[0], 8);
    assert_int_equal(d.edges_removed[1], 9);
    sc_graph_diff_free(&d);

    /* One attribute: one change naming it, nothing else. */
    b = a;
    b.blocks[7] = 5;
    d = diff_of(&a, NULL, &b);
    assert_int_equal(d.nchanged, 1);
    assert_int_equal(d.changed[0].a, 7);
    assert_int_equal(d.changed[0].b, 7);
    assert_int_equal(d.changed[0].fields, SC_DIFF_NUM_BLOCKS);
    assert_string_equal(sc_diff_field_name(d.changed[0].fields), "num_blocks");
    assert_false(d.identical);
    assert_int_equal(d.nadded + d.nremoved + d.nedges_added + d.nedges_removed, 0);
    sc_graph_diff_free(&d);
}

/* Streams rewritten past Myers' bound still give a consistent diff. */
static void test_large_rewrite_falls_back(void **state)
{
    (void)state;
    enum { N = 30000 };
    sc_graph *ga, *gb;
    assert_int_equal(sc_graph_create(&ga), 0);
    assert_int_equal(sc_graph_create(&gb), 0);
    char names[2][8] = {"x", "y"};
    for (uint32_t v = 0; v < N; v++) {
        sc_node n = {.kind = SC_KIND_KERNEL,
                     .name = names[v % 2],
                     .name_len = 1,
                     .num_blocks = 1,
                     .threads_per_block = 1};
        assert_int_equal(sc_graph_add_node(ga, &n, NULL), 0);
        n.name = names[(v / 3) % 2];
        assert_int_equal(sc_graph_add_node(gb, &n, NULL), 0);
        if (v) {
            assert_int_equal(sc_graph_add_edge(ga, v - 1, v), 0);
            assert_int_equal(sc_graph_add_edge(gb, v - 1, v), 0);
        }
    }
    assert_int_equal(sc_graph_seal(ga), 0);
    assert_int_equal(sc_graph_seal(gb), 0);
    sc_graph_diff d;
    assert_int_equal(sc_graph_diff_compute(ga, gb, &d), 0);
    /* Same counts of each name: every node pairs, changed or not. */
    assert_int_equal(d.nadded, d.nremoved);
    for (uint32_t i = 0; i < d.nchanged; i++)
        assert_int_equal(d.changed[i].fields, SC_DIFF_NAME);
    assert_false(d.identical);
    sc_graph_diff_free(&d);
    assert_int_equal(sc_graph_diff_compute(ga, ga, &d), 0);
    assert_true(d.identical);
    sc_graph_diff_free(&d);
    assert_int_equal(sc_graph_diff_compute(NULL, ga, &d), SC_EINVAL);
    assert_null(sc_diff_field_name(3));
    sc_graph_destroy(ga);
    sc_graph_destroy(gb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_edits_consistent),
        cmocka_unit_test(test_renumbered_identical),
        cmocka_unit_test(test_one_insert_in_chain),
        cmocka_unit_test(test_large_rewrite_falls_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
