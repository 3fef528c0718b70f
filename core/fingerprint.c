/*
 * fingerprint.c - numbering-independent fingerprints of a sealed graph.
 *
 * Each node gets a hash of its own fields (sc_node_fingerprint), then, in
 * id order (a topological order), node[i] = H(own[i], its predecessor
 * count, the multiset of its predecessors' node[]): a hash of everything
 * upstream of it.  A multiset is a sum of mixed values, so no sort is
 * needed and the result does not depend on the order predecessors are
 * listed in.  The graph's value is H(node count, edge count, the multiset
 * of node[]).  Nothing read depends on ids, so renumbering the same
 * capture (another interleaving of its streams) gives the same values.
 *
 * Cost: the writer computes these for every graph it stores, and they
 * must stay a small part of its time per node (bench/RESULTS.md,
 * "Fingerprints and graph.diff"): records are read in place, a name's
 * hash is kept per interned name in a small direct-mapped cache (a
 * capture has few distinct names), and there is one pass, in id order
 * (a second one from the successors' side would tell apart some graphs
 * whose nodes have the same upstream shapes, docs/analyses.md, at about
 * twice the cost).
 *
 * The hash: 64-bit words folded with a multiply and shift (a bijection of
 * the running value for each word), finished with the splitmix64
 * finaliser; bytes are read as little-endian words whatever the host.
 */
#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"
#include "sc_fingerprint.h"

#define SEED_STRUCTURE 0x5363466753747275ull /* "ScFgStru" */
#define SEED_FULL      0x5363466746756c6cull /* "ScFgFull" */
#define SEED_GRAPH     0x5363466747726170ull /* "ScFgGrap" */
#define SEED_NAME      0x536346674e616d65ull /* "ScFgName" */
#define K_PRED         0x9e3779b97f4a7c15ull
#define K_NODE         0x165667b19e3779f9ull
#define NAME_CACHE     1024u /* direct-mapped slots of the name cache */

static uint64_t fp_final(uint64_t h)
{
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 31;
    return h;
}

static uint64_t fp_word(uint64_t h, uint64_t w)
{
    h ^= w;
    h *= 0x9fb21c651e98df25ull;
    h ^= h >> 29;
    return h;
}

static uint64_t load_le(const unsigned char *p, size_t n)
{
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++)
        w |= (uint64_t)p[i] << (8 * i);
    return w;
}

/* A multiset element: nonlinear, so that sums of different multisets
 * rarely meet, and one multiply. */
static inline uint64_t fp_elem(uint64_t x, uint64_t k)
{
    x ^= x >> 31;
    return x * k;
}

static uint64_t fp_bytes(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    h = fp_word(h, len);
    for (; len >= 8; p += 8, len -= 8)
        h = fp_word(h, load_le(p, 8));
    return len ? fp_word(h, load_le(p, len)) : h;
}

/* The attribute groups sc_node_attrs() reports, each value once; argument
 * bytes stay out (see the header). */
static uint64_t attrs_hash(uint64_t h, const sc_node *n)
{
    unsigned m = sc_node_attrs(n);
    h = fp_word(h, m);
    if (m & SC_NODE_ATTR_LAUNCH)
        h = fp_word(fp_word(h, (uint64_t)n->num_blocks << 32 | n->threads_per_block),
                    n->shared_mem);
    if (m & SC_NODE_ATTR_SHAPE)
        h = fp_word(fp_word(h, (uint64_t)n->grid_y << 32 | n->grid_z),
                    (uint64_t)n->block_y << 32 | n->block_z);
    if (m & SC_NODE_ATTR_DIR)
        h = fp_word(h, (uint64_t)n->dir);
    if (m & SC_NODE_ATTR_SIZE)
        h = fp_word(h, n->size_bytes);
    if (m & SC_NODE_ATTR_DEVICES)
        h = fp_word(h, (uint64_t)n->src_device << 32 | n->dst_device);
    if (m & SC_NODE_ATTR_VALUE)
        h = fp_word(h, n->value);
    if (m & SC_NODE_ATTR_EVENT)
        h = fp_word(h, n->event);
    if (m & SC_NODE_ATTR_ARGS) {
        h = fp_word(h, n->nparams);
        for (uint32_t i = 0; i < n->nparams; i++)
            h = fp_word(h, n->param_sizes[i]);
    }
    if (m & SC_NODE_ATTR_COND)
        h = fp_word(fp_word(h, (uint64_t)n->cond_type << 32 | n->cond_size),
                    (uint64_t)n->cond_default << 32 | n->cond_flags);
    return h;
}

static uint64_t name_hash(const char *name, size_t len)
{
    return fp_bytes(SEED_NAME, name, len);
}

/* The full part with the name's hash given. */
static uint64_t full_hash(const sc_node *n, uint64_t name)
{
    uint64_t h = fp_word(SEED_FULL, (uint64_t)n->kind << 32 | n->stream);
    return attrs_hash(fp_word(h, name), n);
}

uint64_t sc_node_fingerprint(const sc_node *n, bool full)
{
    if (!full)
        return fp_word(SEED_STRUCTURE, (uint64_t)n->kind);
    return full_hash(n, name_hash(n->name, n->name_len));
}

/* Names' hashes by interned reference: slot (ref, hash), ref SC_NO_REF
 * when empty. */
typedef struct name_slot {
    uint32_t ref;
    uint64_t hash;
} name_slot;

static uint64_t cached_name(name_slot *cache, const sc_node *n, uint32_t ref)
{
    name_slot *s = &cache[(uint32_t)(ref * 0x9e3779b1u) >> 22];
    if (s->ref != ref) {
        s->ref = ref;
        s->hash = name_hash(n->name, n->name_len);
    }
    return s->hash;
}

static bool has_bodies(const sc_node *n)
{
    return (int)n->kind == SC_KIND_GRAPH || (int)n->kind == SC_KIND_CONDITIONAL;
}

/* own[] of node id, bodies folded in, into s and f. */
static int own_hashes(const sc_graph *g, uint32_t id, name_slot *cache,
                      sc_fingerprint_bodies_fn bodies, void *ctx, uint64_t *s, uint64_t *f)
{
    const sc_rec *r = sc_rec_at(g, id);
    /* The common node, a 1-D kernel without arguments: its part straight
     * from the record, the same words as full_hash() and attrs_hash() fold
     * for it (kind and stream, name, the launch group). */
    if (r->kind == SC_KIND_KERNEL && !(r->flags & SC_REC_DIMS)) {
        uint32_t len;
        const char *name = sc_name_at(g, r->name, &len);
        sc_node k = {.name = name, .name_len = len};
        uint64_t h = fp_word(SEED_FULL, (uint64_t)SC_KIND_KERNEL << 32 | r->stream);
        h = fp_word(fp_word(h, cached_name(cache, &k, r->name)), SC_NODE_ATTR_LAUNCH);
        *f = fp_word(fp_word(h, (uint64_t)r->u.k.blocks << 32 | r->u.k.threads), r->x);
        *s = fp_word(SEED_STRUCTURE, SC_KIND_KERNEL);
        return 0;
    }
    sc_node n;
    sc_graph_fill_node(g, r, &n);
    *s = sc_node_fingerprint(&n, false);
    *f = full_hash(&n, cached_name(cache, &n, r->name));
    if (!bodies || !has_bodies(&n))
        return 0;
    const sc_fingerprint *b = NULL;
    uint32_t count = 0;
    int rc;
    if ((rc = bodies(ctx, id, &b, &count)) != 0)
        return rc;
    *s = fp_word(*s, count);
    *f = fp_word(*f, count);
    for (uint32_t i = 0; i < count; i++) {
        *s = fp_word(*s, b[i].structure);
        *f = fp_word(*f, b[i].full);
    }
    return 0;
}

/* node[] in id order from own[] and the predecessors' node[]. */
static int node_pass(const sc_graph *g, uint32_t n, name_slot *cache,
                     sc_fingerprint_bodies_fn bodies, void *ctx, uint64_t *s, uint64_t *f)
{
    for (uint32_t v = 0; v < n; v++) {
        uint64_t os, of;
        int rc = own_hashes(g, v, cache, bodies, ctx, &os, &of);
        if (rc != 0)
            return rc;
        uint32_t lo = sc_rec_at(g, v)->pred_start, hi = sc_pred_end(g, v);
        uint64_t as = 0, af = 0;
        for (uint32_t i = lo; i < hi; i++) {
            uint32_t p = *sc_pred_at(g, i);
            as += fp_elem(s[p], K_PRED);
            af += fp_elem(f[p], K_PRED);
        }
        s[v] = fp_word(fp_word(os, hi - lo), as);
        f[v] = fp_word(fp_word(of, hi - lo), af);
    }
    return 0;
}

int sc_graph_fingerprint(const sc_graph *g, sc_fingerprint_bodies_fn bodies, void *ctx,
                         sc_fingerprint *out)
{
    if (!g || !out || !sc_graph_is_sealed(g))
        return SC_EINVAL;
    uint32_t n = sc_graph_node_count(g);
    uint64_t *s = malloc(((size_t)n + 1) * sizeof *s);
    uint64_t *f = malloc(((size_t)n + 1) * sizeof *f);
    name_slot *cache = malloc(NAME_CACHE * sizeof *cache);
    int rc = SC_ENOMEM;
    if (s && f && cache) {
        for (uint32_t i = 0; i < NAME_CACHE; i++)
            cache[i].ref = SC_NO_REF;
        rc = node_pass(g, n, cache, bodies, ctx, s, f);
    }
    if (rc == 0) {
        uint64_t m = sc_graph_edge_count(g), as = 0, af = 0;
        for (uint32_t v = 0; v < n; v++) {
            as += fp_elem(s[v], K_NODE);
            af += fp_elem(f[v], K_NODE);
        }
        uint64_t h = fp_word(fp_word(SEED_GRAPH, n), m);
        out->structure = fp_final(fp_word(fp_word(h, 0), as));
        out->full = fp_final(fp_word(fp_word(h, 1), af));
    }
    free(s);
    free(f);
    free(cache);
    return rc;
}

void sc_fingerprint_hex(uint64_t v, char out[SC_FINGERPRINT_HEX])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 15; i >= 0; i--, v >>= 4)
        out[i] = digits[v & 15];
    out[16] = '\0';
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int sc_fingerprint_parse(const char *s, size_t len, uint64_t *out)
{
    if (!s || !out || len != 16)
        return SC_EINVAL;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        int d = hex_digit(s[i]);
        if (d < 0)
            return SC_EINVAL;
        v = v << 4 | (uint64_t)d;
    }
    *out = v;
    return 0;
}
