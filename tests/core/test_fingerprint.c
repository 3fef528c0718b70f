/*
 * test_fingerprint.c - sc_graph_fingerprint(): the same DAG under any
 * topological renumbering gives the same values; an attribute or name
 * changes full and not structure; an edge or kind changes both; bodies
 * are folded into their node; the text form round-trips.  Random DAGs
 * come from fixed seeds, so a failure repeats.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sc_fingerprint.h"

#define MAXN 24

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

/* A DAG in its own numbering: nodes[i] with edges u -> v for adj[u][v]. */
typedef struct spec {
    uint32_t n;
    sc_node node[MAXN];
    char name[MAXN][8];
    bool adj[MAXN][MAXN];
} spec;

static void random_spec(uint64_t *seed, spec *sp)
{
    static const int kinds[] = {SC_KIND_KERNEL, SC_KIND_MEMCPY, SC_KIND_MEMSET,
                                SC_KIND_HOST_CALLBACK, SC_KIND_EMPTY};
    memset(sp, 0, sizeof *sp);
    sp->n = 1 + (uint32_t)(rnd(seed) % MAXN);
    for (uint32_t v = 0; v < sp->n; v++) {
        sc_node *nd = &sp->node[v];
        nd->kind = (sc_node_kind)kinds[rnd(seed) % 5];
        nd->stream = (uint32_t)(rnd(seed) % 3);
        snprintf(sp->name[v], sizeof sp->name[v], "k%u", (unsigned)(rnd(seed) % 4));
        nd->name = sp->name[v];
        nd->name_len = strlen(sp->name[v]);
        nd->num_blocks = 1 + (uint32_t)(rnd(seed) % 3);
        nd->threads_per_block = 32;
        nd->size_bytes = 64 * (1 + rnd(seed) % 3);
    }
    for (uint32_t u = 0; u < sp->n; u++)
        for (uint32_t v = u + 1; v < sp->n; v++)
            sp->adj[u][v] = rnd(seed) % 100 < 25;
}

/* A random topological order of sp: pos[old] = new id. */
static void random_order(uint64_t *seed, const spec *sp, uint32_t *pos)
{
    bool placed[MAXN] = {0};
    for (uint32_t k = 0; k < sp->n; k++) {
        uint32_t ready[MAXN], nr = 0;
        for (uint32_t v = 0; v < sp->n; v++) {
            bool ok = !placed[v];
            for (uint32_t u = 0; ok && u < v; u++)
                ok = !sp->adj[u][v] || placed[u];
            if (ok)
                ready[nr++] = v;
        }
        assert_true(nr > 0);
        uint32_t v = ready[rnd(seed) % nr];
        placed[v] = true;
        pos[v] = k;
    }
}

static sc_graph *build(const spec *sp, const uint32_t *pos)
{
    uint32_t at[MAXN];
    for (uint32_t v = 0; v < sp->n; v++)
        at[pos ? pos[v] : v] = v;
    sc_graph *g;
    assert_int_equal(sc_graph_create(&g), 0);
    for (uint32_t k = 0; k < sp->n; k++)
        assert_int_equal(sc_graph_add_node(g, &sp->node[at[k]], NULL), 0);
    for (uint32_t u = 0; u < sp->n; u++)
        for (uint32_t v = 0; v < sp->n; v++)
            if (sp->adj[u][v])
                assert_int_equal(sc_graph_add_edge(g, pos ? pos[u] : u, pos ? pos[v] : v), 0);
    assert_int_equal(sc_graph_seal(g), 0);
    return g;
}

static sc_fingerprint fp_of(const spec *sp, const uint32_t *pos)
{
    sc_graph *g = build(sp, pos);
    sc_fingerprint fp;
    assert_int_equal(sc_graph_fingerprint(g, NULL, NULL, &fp), 0);
    sc_graph_destroy(g);
    return fp;
}

static void test_renumbered_capture_same_fingerprints(void **state)
{
    (void)state;
    for (uint64_t s = 1; s <= 300; s++) {
        uint64_t seed = s;
        spec sp;
        random_spec(&seed, &sp);
        sc_fingerprint a = fp_of(&sp, NULL);
        uint32_t pos[MAXN];
        random_order(&seed, &sp, pos);
        sc_fingerprint b = fp_of(&sp, pos);
        assert_true(a.structure == b.structure);
        assert_true(a.full == b.full);
    }
}

static void test_attribute_changes_full_not_structure(void **state)
{
    (void)state;
    for (uint64_t s = 1; s <= 100; s++) {
        uint64_t seed = s;
        spec sp;
        random_spec(&seed, &sp);
        sc_fingerprint a = fp_of(&sp, NULL);
        uint32_t v = (uint32_t)(rnd(&seed) % sp.n);
        spec changed = sp;
        for (uint32_t i = 0; i < changed.n; i++)
            changed.node[i].name = changed.name[i];
        if (s % 3 == 0) {
            changed.name[v][0] = 'z';
        } else if (s % 3 == 1) {
            changed.node[v].stream += 7;
        } else {
            /* An attribute the node's kind has. */
            changed.node[v].kind = SC_KIND_MEMSET;
            sp.node[v].kind = SC_KIND_MEMSET;
            a = fp_of(&sp, NULL);
            changed.node[v].size_bytes += 1;
        }
        sc_fingerprint b = fp_of(&changed, NULL);
        assert_true(a.structure == b.structure);
        assert_true(a.full != b.full);
    }
}

static void test_edge_or_kind_changes_both(void **state)
{
    (void)state;
    for (uint64_t s = 1; s <= 100; s++) {
        uint64_t seed = s;
        spec sp;
        random_spec(&seed, &sp);
        if (sp.n < 2)
            continue;
        sc_fingerprint a = fp_of(&sp, NULL);
        spec changed = sp;
        for (uint32_t i = 0; i < changed.n; i++)
            changed.node[i].name = changed.name[i];
        uint32_t u = (uint32_t)(rnd(&seed) % (sp.n - 1));
        if (s % 2) {
            changed.adj[u][sp.n - 1] = !changed.adj[u][sp.n - 1];
        } else {
            int k = (int)changed.node[u].kind;
            changed.node[u].kind =
                k == SC_KIND_EMPTY ? SC_KIND_KERNEL : (sc_node_kind)SC_KIND_EMPTY;
        }
        sc_fingerprint b = fp_of(&changed, NULL);
        assert_true(a.structure != b.structure);
        assert_true(a.full != b.full);
    }
}

/* Argument values are addresses that change between runs: left out. */
static void test_argument_bytes_left_out(void **state)
{
    (void)state;
    uint8_t bytes[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    uint32_t sizes[2] = {8, 4}, other[2] = {4, 8};
    sc_node n = {.kind = SC_KIND_KERNEL,
                 .name = "k",
                 .name_len = 1,
                 .num_blocks = 1,
                 .threads_per_block = 1,
                 .args = bytes,
                 .args_len = 12,
                 .param_sizes = sizes,
                 .nparams = 2};
    uint64_t a = sc_node_fingerprint(&n, true);
    bytes[0] = 99;
    assert_true(sc_node_fingerprint(&n, true) == a);
    n.param_sizes = other;
    assert_true(sc_node_fingerprint(&n, true) != a);
    assert_true(sc_node_fingerprint(&n, false) == sc_node_fingerprint(&(sc_node){0}, false));
}

typedef struct bodies_ctx {
    sc_fingerprint fp[2];
    uint32_t count;
    uint32_t asked;
} bodies_ctx;

static int give_bodies(void *ctx, uint32_t node, const sc_fingerprint **bodies, uint32_t *count)
{
    bodies_ctx *b = ctx;
    (void)node;
    b->asked++;
    *bodies = b->fp;
    *count = b->count;
    return 0;
}

static int refuse_bodies(void *ctx, uint32_t node, const sc_fingerprint **bodies, uint32_t *count)
{
    (void)ctx;
    (void)node;
    (void)bodies;
    (void)count;
    return SC_ENOMEM;
}

static void test_bodies_folded_into_their_node(void **state)
{
    (void)state;
    sc_graph *g;
    assert_int_equal(sc_graph_create(&g), 0);
    sc_node k = {.kind = SC_KIND_KERNEL,
                 .name = "k",
                 .name_len = 1,
                 .num_blocks = 1,
                 .threads_per_block = 1};
    sc_node c = {.kind = (sc_node_kind)SC_KIND_CONDITIONAL,
                 .name = "",
                 .cond_type = SC_COND_IF,
                 .cond_size = 2};
    assert_int_equal(sc_graph_add_node(g, &k, NULL), 0);
    assert_int_equal(sc_graph_add_node(g, &c, NULL), 0);
    assert_int_equal(sc_graph_add_edge(g, 0, 1), 0);
    assert_int_equal(sc_graph_seal(g), 0);

    bodies_ctx b = {.fp = {{1, 2}, {3, 4}}, .count = 2};
    sc_fingerprint base, fp;
    assert_int_equal(sc_graph_fingerprint(g, give_bodies, &b, &base), 0);
    assert_int_equal(b.asked, 1); /* the conditional only */

    b.fp[1].full = 5; /* a body's attribute */
    assert_int_equal(sc_graph_fingerprint(g, give_bodies, &b, &fp), 0);
    assert_true(fp.structure == base.structure && fp.full != base.full);

    b.fp[1].structure = 6; /* a body's structure */
    assert_int_equal(sc_graph_fingerprint(g, give_bodies, &b, &fp), 0);
    assert_true(fp.structure != base.structure);

    b = (bodies_ctx){.fp = {{3, 4}, {1, 2}}, .count = 2}; /* bodies swapped */
    assert_int_equal(sc_graph_fingerprint(g, give_bodies, &b, &fp), 0);
    assert_true(fp.structure != base.structure);

    assert_int_equal(sc_graph_fingerprint(g, refuse_bodies, NULL, &fp), SC_ENOMEM);
    sc_graph_destroy(g);
}

static void test_hex_and_bad_input(void **state)
{
    (void)state;
    char hex[SC_FINGERPRINT_HEX];
    sc_fingerprint_hex(0x0123456789abcdefull, hex);
    assert_string_equal(hex, "0123456789abcdef");
    uint64_t v;
    assert_int_equal(sc_fingerprint_parse(hex, 16, &v), 0);
    assert_true(v == 0x0123456789abcdefull);
    assert_int_equal(sc_fingerprint_parse("0123456789ABCDEF", 16, &v), 0);
    assert_int_equal(sc_fingerprint_parse("0123456789abcde", 15, &v), SC_EINVAL);
    assert_int_equal(sc_fingerprint_parse("0123456789abcdeg", 16, &v), SC_EINVAL);

    sc_graph *g;
    sc_fingerprint fp;
    assert_int_equal(sc_graph_create(&g), 0);
    assert_int_equal(sc_graph_fingerprint(g, NULL, NULL, &fp), SC_EINVAL); /* unsealed */
    assert_int_equal(sc_graph_seal(g), 0);
    assert_int_equal(sc_graph_fingerprint(g, NULL, NULL, &fp), 0); /* empty is fine */
    assert_int_equal(sc_graph_fingerprint(NULL, NULL, NULL, &fp), SC_EINVAL);
    sc_graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_renumbered_capture_same_fingerprints),
        cmocka_unit_test(test_attribute_changes_full_not_structure),
        cmocka_unit_test(test_edge_or_kind_changes_both),
        cmocka_unit_test(test_argument_bytes_left_out),
        cmocka_unit_test(test_bodies_folded_into_their_node),
        cmocka_unit_test(test_hex_and_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
