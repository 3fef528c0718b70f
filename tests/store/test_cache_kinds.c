/*
 * test_cache_kinds.c - the graph cache over a real store: full entries and
 * skeletons, which request each one serves, the shared byte budget, pins
 * across a skeleton's replacement, and forgetting both kinds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_cache.h"
#include "store_fixture.h"

#define T0  1795981461123LL
#define BIG ((size_t)1 << 30)

typedef struct cres {
    int calls;
    int rc;
    sc_cache_entry *e;
} cres;

static void cres_cb(void *arg, int rc, sc_cache_entry *e, const char *errmsg)
{
    (void)errmsg;
    cres *r = arg;
    r->calls++;
    r->rc = rc;
    r->e = e;
}

static int64_t commit(fx *f, const sc_graph *g)
{
    int64_t s = fx_open_session(f, "cache", T0);
    wres w = {0};
    assert_int_equal(sc_store_commit_graph(f->st, s, g, 1000, 4242, "cache", 5, T0, wres_cb, &w),
                     0);
    fx_drain(f);
    assert_int_equal(w.rc, SC_STORE_OK);
    return w.id;
}

static sc_cache *cache_new(fx *f, size_t max_bytes)
{
    sc_cache *c = NULL;
    assert_int_equal(sc_cache_create(&f->loop, f->st, max_bytes, &c), 0);
    return c;
}

/* A miss, waited for: the loaded entry, pinned. */
static sc_cache_entry *get_cold(fx *f, sc_cache *c, int64_t id, bool full)
{
    cres r = {0};
    sc_cache_entry *hit = NULL;
    assert_int_equal(sc_cache_get(c, id, full, &hit, cres_cb, &r), 1);
    assert_null(hit);
    fx_drain(f);
    assert_int_equal(r.calls, 1);
    assert_int_equal(r.rc, 0);
    assert_non_null(r.e);
    assert_int_equal(sc_cache_loading(c), 0);
    return r.e;
}

static sc_cache_entry *get_hit(sc_cache *c, int64_t id, bool full)
{
    cres r = {0};
    sc_cache_entry *hit = NULL;
    assert_int_equal(sc_cache_get(c, id, full, &hit, cres_cb, &r), 0);
    assert_non_null(hit);
    assert_int_equal(r.calls, 0);
    return hit;
}

/* Skeleton nodes have empty names; every node of chain_graph has one. */
static bool is_full(const sc_cache_entry *e)
{
    sc_node n;
    assert_int_equal(sc_graph_node(sc_cache_graph(e)->graph, 0, &n), 0);
    return n.name_len > 0;
}

static void assert_answers(const sc_cache_entry *e, uint32_t n)
{
    const sc_graph *g = sc_cache_graph(e)->graph;
    assert_true(sc_graph_has_index(g));
    assert_int_equal(sc_graph_node_count(g), n);
    bool r = false;
    assert_int_equal(sc_graph_reachable(g, 0, n - 1, &r), 0);
    assert_true(r);
    assert_int_equal(sc_graph_reachable(g, n - 1, 0, &r), 0);
    assert_false(r);
}

static void test_skeleton_then_full(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    sc_graph *g = chain_graph(3000, 12);
    int64_t gid = commit(f, g);
    sc_cache *c = cache_new(f, BIG);

    sc_cache_entry *sk = get_cold(f, c, gid, false);
    assert_false(is_full(sk));
    assert_answers(sk, 3000);
    assert_int_equal(sc_cache_count(c), 1);
    size_t sk_bytes = sc_cache_bytes(c);
    assert_true(sk_bytes > 0);
    assert_ptr_equal(get_hit(c, gid, false), sk);
    sc_cache_release(c, sk);
    sc_cache_release(c, sk);

    /* A skeleton cannot answer graph.get: the full graph loads. */
    sc_cache_entry *full = get_cold(f, c, gid, true);
    assert_true(full != sk);
    assert_true(is_full(full));
    assert_answers(full, 3000);
    /* It replaced the skeleton: the bytes are the full entry's alone. */
    assert_int_equal(sc_cache_count(c), 1);
    sc_cache *alone = cache_new(f, BIG);
    sc_cache_release(alone, get_cold(f, alone, gid, true));
    assert_int_equal(sc_cache_bytes(c), sc_cache_bytes(alone));
    sc_cache_destroy(alone);
    /* Reachability is served by the full entry now. */
    assert_ptr_equal(get_hit(c, gid, false), full);
    assert_ptr_equal(get_hit(c, gid, true), full);
    for (int i = 0; i < 3; i++)
        sc_cache_release(c, full);

    sc_cache_forget(c, gid);
    assert_int_equal(sc_cache_count(c), 0);
    assert_int_equal(sc_cache_bytes(c), 0);
    sc_cache_destroy(c);
    sc_graph_destroy(g);
}

/* A holder of the skeleton keeps a working graph after the full entry
 * replaced it (freed on the last release: the sanitizer build checks). */
static void test_pinned_skeleton_outlives_replacement(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    sc_graph *g = chain_graph(500, 4);
    int64_t gid = commit(f, g);
    sc_cache *c = cache_new(f, BIG);
    sc_cache_entry *sk = get_cold(f, c, gid, false);
    sc_cache_entry *full = get_cold(f, c, gid, true);
    assert_int_equal(sc_cache_count(c), 1);
    assert_answers(sk, 500);
    sc_cache_release(c, sk);
    assert_int_equal(sc_cache_count(c), 1);
    assert_ptr_equal(get_hit(c, gid, false), full);
    sc_cache_release(c, full);
    sc_cache_release(c, full);
    sc_cache_destroy(c);
    sc_graph_destroy(g);
}

/* Misses of one kind share a load; a skeleton does not wait for a full
 * load in flight, and whichever finishes last, one full entry remains. */
static void test_concurrent_kinds(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    sc_graph *g = chain_graph(2000, 8);
    int64_t gid = commit(f, g);
    sc_cache *c = cache_new(f, BIG);
    cres full1 = {0}, sk1 = {0}, sk2 = {0}, full2 = {0};
    sc_cache_entry *hit = NULL;
    assert_int_equal(sc_cache_get(c, gid, true, &hit, cres_cb, &full1), 1);
    assert_int_equal(sc_cache_get(c, gid, false, &hit, cres_cb, &sk1), 1);
    assert_int_equal(sc_cache_get(c, gid, false, &hit, cres_cb, &sk2), 1);
    assert_int_equal(sc_cache_get(c, gid, true, &hit, cres_cb, &full2), 1);
    assert_null(hit);
    assert_int_equal(sc_cache_loading(c), 2);
    fx_drain(f);
    assert_int_equal(sc_cache_loading(c), 0);
    cres *all[] = {&full1, &sk1, &sk2, &full2};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(all[i]->calls, 1);
        assert_int_equal(all[i]->rc, 0);
        assert_answers(all[i]->e, 2000);
    }
    assert_ptr_equal(full1.e, full2.e);
    assert_ptr_equal(sk1.e, sk2.e);
    assert_true(is_full(full1.e));
    assert_false(is_full(sk1.e));
    assert_int_equal(sc_cache_count(c), 1);
    assert_ptr_equal(get_hit(c, gid, false), full1.e);
    sc_cache_release(c, full1.e);
    for (int i = 0; i < 4; i++)
        sc_cache_release(c, all[i]->e);
    assert_int_equal(sc_cache_count(c), 1);
    sc_cache_destroy(c);
    sc_graph_destroy(g);
}

static void test_forget_both_kinds(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    sc_graph *g = chain_graph(800, 8);
    int64_t gid = commit(f, g);
    sc_cache *c = cache_new(f, BIG);

    /* Both loading: the loads still answer their waiters, then go. */
    cres sk = {0}, full = {0};
    sc_cache_entry *hit = NULL;
    assert_int_equal(sc_cache_get(c, gid, false, &hit, cres_cb, &sk), 1);
    assert_int_equal(sc_cache_get(c, gid, true, &hit, cres_cb, &full), 1);
    sc_cache_forget(c, gid);
    fx_drain(f);
    assert_int_equal(sk.rc, 0);
    assert_int_equal(full.rc, 0);
    assert_answers(sk.e, 800);
    assert_answers(full.e, 800);
    assert_int_equal(sc_cache_count(c), 0);
    assert_int_equal(sc_cache_bytes(c), 0);
    sc_cache_release(c, sk.e);
    sc_cache_release(c, full.e);

    /* A cached entry of either kind goes too. */
    sc_cache_release(c, get_cold(f, c, gid, false));
    assert_int_equal(sc_cache_count(c), 1);
    sc_cache_forget(c, gid);
    assert_int_equal(sc_cache_count(c), 0);
    sc_cache_release(c, get_cold(f, c, gid, true));
    sc_cache_forget(c, gid);
    assert_int_equal(sc_cache_count(c), 0);
    assert_int_equal(sc_cache_bytes(c), 0);
    /* Forgotten means reloaded. */
    sc_cache_entry *again = get_cold(f, c, gid, false);
    sc_cache_release(c, again);
    sc_cache_destroy(c);
    sc_graph_destroy(g);
}

/* Skeletons and full entries count against one budget. */
static void test_shared_budget(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    sc_graph *ga = chain_graph(4000, 16), *gb = chain_graph(3000, 16);
    int64_t a = commit(f, ga), b = commit(f, gb);

    sc_cache *c = cache_new(f, BIG);
    sc_cache_release(c, get_cold(f, c, a, false));
    size_t sk_a = sc_cache_bytes(c);
    sc_cache_release(c, get_cold(f, c, b, true));
    size_t full_b = sc_cache_bytes(c) - sk_a;
    sc_cache_destroy(c);

    /* Room for both: both stay. */
    c = cache_new(f, sk_a + full_b);
    sc_cache_release(c, get_cold(f, c, a, false));
    sc_cache_release(c, get_cold(f, c, b, true));
    assert_int_equal(sc_cache_count(c), 2);
    assert_int_equal(sc_cache_bytes(c), sk_a + full_b);
    sc_cache_destroy(c);

    /* One byte short: the older skeleton is evicted for the full graph. */
    c = cache_new(f, sk_a + full_b - 1);
    sc_cache_release(c, get_cold(f, c, a, false));
    sc_cache_release(c, get_cold(f, c, b, true));
    assert_int_equal(sc_cache_count(c), 1);
    assert_int_equal(sc_cache_bytes(c), full_b);
    sc_cache_release(c, get_hit(c, b, false));
    sc_cache_entry *sk = get_cold(f, c, a, false);
    assert_false(is_full(sk));
    sc_cache_release(c, sk);
    sc_cache_destroy(c);
    sc_graph_destroy(ga);
    sc_graph_destroy(gb);
}

static void test_missing_graph(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    sc_cache *c = cache_new(f, BIG);
    for (int full = 0; full < 2; full++)
        for (int round = 0; round < 2; round++) {
            cres r = {0};
            sc_cache_entry *hit = NULL;
            /* Failed loads are not cached: each request tries again. */
            assert_int_equal(sc_cache_get(c, 77, full, &hit, cres_cb, &r), 1);
            fx_drain(f);
            assert_int_equal(r.calls, 1);
            assert_int_equal(r.rc, SC_STORE_ENOTFOUND);
            assert_null(r.e);
            assert_int_equal(sc_cache_count(c), 0);
            assert_int_equal(sc_cache_loading(c), 0);
        }
    sc_cache_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_skeleton_then_full, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_pinned_skeleton_outlives_replacement, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_kinds, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_forget_both_kinds, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_shared_budget, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_missing_graph, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
