/*
 * test_races.c - sc_graph_find_races() against a brute-force oracle on
 * seeded random DAGs (random streams, edges, overlapping ranges and
 * modes, near address 0 and near 2^64), with and without the
 * reachability index, every limit; plus the edge cases one by one.
 *
 * The oracle implements the definition of sc_race independently: for
 * each unordered pair (closure of the edge matrix), cut the address line
 * at every boundary of either node's accesses, give each piece the union
 * of the modes covering it, and join consecutive pieces with the same
 * conflicting pair of modes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sc_races.h"

#define MAXN    12
#define MAXACC  (MAXN * 4)
#define MAXROWS 8192
#define SPAN    48

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

typedef struct world {
    uint32_t n;
    bool reach[MAXN][MAXN]; /* strict */
    sc_node_access acc[MAXACC];
    size_t nacc;
} world;

static sc_graph *random_world(uint64_t *seed, world *w, bool index)
{
    sc_graph *g;
    assert_int_equal(sc_graph_create(&g), 0);
    memset(w, 0, sizeof *w);
    w->n = (uint32_t)(rnd(seed) % (MAXN + 1));
    uint32_t streams = (uint32_t)(rnd(seed) % 4) + 1;
    uint32_t density = (uint32_t)(rnd(seed) % 30);
    uint32_t last_on[4] = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX};
    bool adj[MAXN][MAXN] = {{false}};
    for (uint32_t v = 0; v < w->n; v++) {
        sc_node node = {0};
        node.stream = (uint32_t)(rnd(seed) % streams);
        uint32_t id;
        assert_int_equal(sc_graph_add_node(g, &node, &id), 0);
        if (last_on[node.stream] != UINT32_MAX)
            adj[last_on[node.stream]][v] = true;
        last_on[node.stream] = v;
        for (uint32_t u = 0; u < v; u++)
            if (rnd(seed) % 100 < density)
                adj[u][v] = true;
    }
    for (uint32_t u = 0; u < w->n; u++)
        for (uint32_t v = u + 1; v < w->n; v++)
            if (adj[u][v])
                assert_int_equal(sc_graph_add_edge(g, u, v), 0);
    assert_int_equal(sc_graph_seal(g), 0);
    if (index)
        assert_int_equal(sc_graph_build_index(g), 0);
    for (uint32_t u = w->n; u-- > 0;)
        for (uint32_t x = u + 1; x < w->n; x++)
            if (adj[u][x]) {
                w->reach[u][x] = true;
                for (uint32_t v = x + 1; v < w->n; v++)
                    w->reach[u][v] |= w->reach[x][v];
            }
    /* near 0 or ending at 2^64, so the last byte is exercised too */
    uint64_t base = rnd(seed) % 2 ? 0 : UINT64_MAX - (SPAN - 1);
    for (uint32_t v = 0; v < w->n; v++)
        for (uint64_t k = rnd(seed) % 4; k > 0; k--) {
            uint64_t off = rnd(seed) % SPAN;
            uint64_t size = rnd(seed) % (SPAN - off < 16 ? SPAN - off : 16) + 1;
            w->acc[w->nacc++] =
                (sc_node_access){v, {base + off, size, (sc_access_mode)(rnd(seed) % 3 + 1)}};
        }
    /* shuffle: the finder takes them in any order */
    for (size_t i = w->nacc; i > 1; i--) {
        size_t j = rnd(seed) % i;
        sc_node_access t = w->acc[i - 1];
        w->acc[i - 1] = w->acc[j];
        w->acc[j] = t;
    }
    return g;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static unsigned mode_at(const world *w, uint32_t node, uint64_t at)
{
    unsigned m = 0;
    for (size_t i = 0; i < w->nacc; i++) {
        const sc_access *a = &w->acc[i].access;
        if (w->acc[i].node == node && at >= a->address && at - a->address < a->size)
            m |= (unsigned)a->mode;
    }
    return m;
}

/* The pieces of the address line cut at a's and b's boundaries, sorted. */
static size_t cuts(const world *w, uint32_t a, uint32_t b, uint64_t *cut)
{
    size_t n = 0;
    for (size_t i = 0; i < w->nacc; i++) {
        const sc_access *x = &w->acc[i].access;
        if (w->acc[i].node != a && w->acc[i].node != b)
            continue;
        cut[n++] = x->address;
        if (x->address + (x->size - 1) != UINT64_MAX)
            cut[n++] = x->address + x->size;
    }
    qsort(cut, n, sizeof *cut, cmp_u64);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || cut[u - 1] != cut[i])
            cut[u++] = cut[i];
    return u;
}

static void oracle_pair(const world *w, uint32_t a, uint32_t b, sc_race *rows, size_t *nrows)
{
    uint64_t cut[2 * MAXACC];
    size_t nc = cuts(w, a, b, cut);
    bool open = false;
    for (size_t k = 0; k < nc; k++) {
        uint64_t lo = cut[k], last = k + 1 < nc ? cut[k + 1] - 1 : UINT64_MAX;
        unsigned ma = mode_at(w, a, lo), mb = mode_at(w, b, lo);
        bool conflict = ma && mb && ((ma | mb) & SC_ACCESS_WRITE);
        sc_race *r = open ? &rows[*nrows - 1] : NULL;
        if (conflict && r && r->a_mode == ma && r->b_mode == mb) {
            r->size += last - lo + 1;
            continue;
        }
        open = conflict;
        if (conflict) {
            assert_true(*nrows < MAXROWS);
            rows[(*nrows)++] =
                (sc_race){a, b, lo, last - lo + 1, (sc_access_mode)ma, (sc_access_mode)mb};
        }
    }
}

static size_t oracle(const world *w, sc_race *rows)
{
    size_t n = 0;
    for (uint32_t a = 0; a < w->n; a++)
        for (uint32_t b = a + 1; b < w->n; b++)
            if (!w->reach[a][b])
                oracle_pair(w, a, b, rows, &n);
    return n;
}

static void assert_rows(const sc_race *got, const sc_race *want, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(got[i].a, want[i].a);
        assert_int_equal(got[i].b, want[i].b);
        assert_int_equal(got[i].address, want[i].address);
        assert_int_equal(got[i].size, want[i].size);
        assert_int_equal(got[i].a_mode, want[i].a_mode);
        assert_int_equal(got[i].b_mode, want[i].b_mode);
    }
}

static void run_seed(uint64_t seed, bool index)
{
    static sc_race want[MAXROWS], got[MAXROWS];
    world w;
    uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1;
    sc_graph *g = random_world(&s, &w, index);
    size_t nwant = oracle(&w, want), nout = 99;
    uint64_t count = 0;
    assert_int_equal(sc_graph_find_races(g, w.acc, w.nacc, MAXROWS, got, &nout, &count), 0);
    assert_int_equal(count, nwant);
    assert_int_equal(nout, nwant);
    assert_rows(got, want, nwant);
    /* a limit keeps exactly the first rows and still counts all */
    size_t limit = (size_t)(rnd(&s) % (nwant + 2));
    assert_int_equal(sc_graph_find_races(g, w.acc, w.nacc, limit, got, &nout, &count), 0);
    assert_int_equal(count, nwant);
    assert_int_equal(nout, limit < nwant ? limit : nwant);
    assert_rows(got, want, nout);
    sc_graph_destroy(g);
}

static void test_random_against_oracle(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 400; seed++) {
        run_seed(seed, false);
        run_seed(seed, true);
    }
}

/* n nodes on n streams with no edge, or one stream (a chain) */
static sc_graph *plain(uint32_t n, bool chain)
{
    sc_graph *g;
    assert_int_equal(sc_graph_create(&g), 0);
    for (uint32_t v = 0; v < n; v++) {
        sc_node node = {0};
        node.stream = chain ? 0 : v;
        uint32_t id;
        assert_int_equal(sc_graph_add_node(g, &node, &id), 0);
        if (chain && v > 0)
            assert_int_equal(sc_graph_add_edge(g, v - 1, v), 0);
    }
    assert_int_equal(sc_graph_seal(g), 0);
    return g;
}

static void find(const sc_graph *g, const sc_node_access *acc, size_t n, sc_race *out, size_t *nout,
                 uint64_t *count)
{
    assert_int_equal(sc_graph_find_races(g, acc, n, 16, out, nout, count), 0);
}

static void test_same_node_twice(void **state)
{
    (void)state;
    sc_graph *g = plain(2, false);
    /* node 0 writes [0,10) and reads [5,15): it never races with itself;
     * node 1 reads [0,20): write/read, then read_write/read, then nothing */
    sc_node_access acc[] = {
        {0, {0, 10, SC_ACCESS_WRITE}}, {0, {5, 10, SC_ACCESS_READ}}, {1, {0, 20, SC_ACCESS_READ}}};
    sc_race r[16];
    size_t n;
    uint64_t count;
    find(g, acc, 3, r, &n, &count);
    assert_int_equal(count, 2);
    assert_int_equal(n, 2);
    assert_int_equal(r[0].a, 0);
    assert_int_equal(r[0].b, 1);
    assert_int_equal(r[0].address, 0);
    assert_int_equal(r[0].size, 5);
    assert_int_equal(r[0].a_mode, SC_ACCESS_WRITE);
    assert_int_equal(r[0].b_mode, SC_ACCESS_READ);
    assert_int_equal(r[1].address, 5);
    assert_int_equal(r[1].size, 5);
    assert_int_equal(r[1].a_mode, SC_ACCESS_READ_WRITE);
    assert_int_equal(r[1].b_mode, SC_ACCESS_READ);
    /* one node alone, however its accesses overlap: nothing */
    find(g, acc, 2, r, &n, &count);
    assert_int_equal(count, 0);
    sc_graph_destroy(g);
}

static void test_adjacent_ranges(void **state)
{
    (void)state;
    sc_graph *g = plain(2, false);
    sc_node_access acc[] = {{0, {0, 16, SC_ACCESS_WRITE}}, {1, {16, 16, SC_ACCESS_WRITE}}};
    sc_race r[16];
    size_t n;
    uint64_t count;
    find(g, acc, 2, r, &n, &count);
    assert_int_equal(count, 0);
    assert_int_equal(n, 0);
    /* one byte of overlap is a race */
    acc[1].access.address = 15;
    find(g, acc, 2, r, &n, &count);
    assert_int_equal(count, 1);
    assert_int_equal(r[0].address, 15);
    assert_int_equal(r[0].size, 1);
    sc_graph_destroy(g);
}

static void test_range_to_u64_end(void **state)
{
    (void)state;
    sc_graph *g = plain(2, false);
    sc_node_access acc[] = {{0, {1, UINT64_MAX, SC_ACCESS_READ_WRITE}},
                            {1, {UINT64_MAX - 3, 4, SC_ACCESS_READ}}};
    sc_race r[16];
    size_t n;
    uint64_t count;
    find(g, acc, 2, r, &n, &count);
    assert_int_equal(count, 1);
    assert_int_equal(r[0].address, UINT64_MAX - 3);
    assert_int_equal(r[0].size, 4);
    assert_int_equal(r[0].a_mode, SC_ACCESS_READ_WRITE);
    assert_int_equal(r[0].b_mode, SC_ACCESS_READ);
    /* past 2^64, a size of 0, no mode, no node: refused */
    acc[1].access.size = 5;
    assert_int_equal(sc_graph_find_races(g, acc, 2, 16, r, &n, &count), SC_EINVAL);
    acc[1].access.size = 0;
    assert_int_equal(sc_graph_find_races(g, acc, 2, 16, r, &n, &count), SC_EINVAL);
    acc[1].access.size = 1;
    acc[1].access.mode = (sc_access_mode)0;
    assert_int_equal(sc_graph_find_races(g, acc, 2, 16, r, &n, &count), SC_EINVAL);
    acc[1].access.mode = SC_ACCESS_WRITE;
    acc[1].node = 2;
    assert_int_equal(sc_graph_find_races(g, acc, 2, 16, r, &n, &count), SC_ENOTFOUND);
    sc_graph_destroy(g);
}

static void test_reads_never_race(void **state)
{
    (void)state;
    sc_graph *g = plain(50, false);
    sc_node_access acc[50];
    for (uint32_t v = 0; v < 50; v++)
        acc[v] = (sc_node_access){v, {4096, 64 + v, SC_ACCESS_READ}};
    sc_race r[16];
    size_t n;
    uint64_t count;
    find(g, acc, 50, r, &n, &count);
    assert_int_equal(count, 0);
    /* one writer among them races with every reader */
    acc[49].access.mode = SC_ACCESS_WRITE;
    find(g, acc, 50, r, &n, &count);
    assert_int_equal(count, 49);
    assert_int_equal(n, 16);
    for (uint32_t i = 0; i < 16; i++) {
        assert_int_equal(r[i].a, i);
        assert_int_equal(r[i].b, 49);
        assert_int_equal(r[i].size, 64 + i);
    }
    sc_graph_destroy(g);
}

static void test_ordered_never_race(void **state)
{
    (void)state;
    sc_graph *g = plain(3, true);
    sc_node_access acc[] = {{0, {0, 8, SC_ACCESS_WRITE}},
                            {1, {0, 8, SC_ACCESS_WRITE}},
                            {2, {0, 8, SC_ACCESS_READ_WRITE}}};
    sc_race r[16];
    size_t n;
    uint64_t count;
    find(g, acc, 3, r, &n, &count);
    assert_int_equal(count, 0);
    assert_int_equal(sc_graph_build_index(g), 0);
    find(g, acc, 3, r, &n, &count);
    assert_int_equal(count, 0);
    sc_graph_destroy(g);
}

static void test_limit_zero(void **state)
{
    (void)state;
    sc_graph *g = plain(3, false);
    sc_node_access acc[] = {
        {0, {0, 8, SC_ACCESS_WRITE}}, {1, {0, 8, SC_ACCESS_WRITE}}, {2, {0, 8, SC_ACCESS_READ}}};
    size_t n = 7;
    uint64_t count = 0;
    assert_int_equal(sc_graph_find_races(g, acc, 3, 0, NULL, &n, &count), 0);
    assert_int_equal(n, 0);
    assert_int_equal(count, 3);
    /* no accesses at all */
    assert_int_equal(sc_graph_find_races(g, NULL, 0, 0, NULL, &n, &count), 0);
    assert_int_equal(count, 0);
    assert_int_equal(sc_graph_find_races(g, acc, 3, 1, NULL, &n, &count), SC_EINVAL);
    assert_int_equal(sc_graph_find_races(NULL, acc, 3, 0, NULL, &n, &count), SC_EINVAL);
    sc_graph_destroy(g);
}

static void test_unsealed_and_no_accesses(void **state)
{
    (void)state;
    sc_graph *g;
    assert_int_equal(sc_graph_create(&g), 0);
    size_t n;
    uint64_t count;
    assert_int_equal(sc_graph_find_races(g, NULL, 0, 0, NULL, &n, &count), SC_EINVAL);
    sc_graph_destroy(g);
    g = plain(4, false);
    sc_node_access *acc = (sc_node_access *)&n;
    assert_int_equal(sc_graph_node_accesses(g, &acc, &n), 0);
    assert_null(acc);
    assert_int_equal(n, 0);
    sc_graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_against_oracle),
        cmocka_unit_test(test_same_node_twice),
        cmocka_unit_test(test_adjacent_ranges),
        cmocka_unit_test(test_range_to_u64_end),
        cmocka_unit_test(test_reads_never_race),
        cmocka_unit_test(test_ordered_never_race),
        cmocka_unit_test(test_limit_zero),
        cmocka_unit_test(test_unsealed_and_no_accesses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
