/*
 * fingerprint.c - numbering-independent fingerprints of a sealed graph.
 *
 * Each node gets a hash of its own fields (sc_node_fingerprint), then, in
 * id order (a topological order), down[i] = H(own[i], the multiset of its
 * predecessors' down), then, in reverse id order, node[i] = H(down[i], the
 * multiset of its successors' node).  A multiset is a sum of avalanched
 * values, so no sort is needed and the result does not depend on the
 * order predecessors are listed in.  The graph's value is H(node count,
 * edge count, the multiset of node[]).  Nothing read depends on ids, so
 * renumbering the same capture (another interleaving of its streams)
 * gives the same values.
 *
 * The hash: 64-bit words folded with a multiply and shift (a bijection of
 * the running value for each word), finished with the splitmix64
 * finaliser; bytes are read as little-endian words whatever the host.
 */
#include <stdlib.h>
#include <string.h>

#include "sc_fingerprint.h"

#define SEED_STRUCTURE 0x5363466753747275ull /* "ScFgStru" */
#define SEED_FULL      0x5363466746756c6cull /* "ScFgFull" */
#define SEED_GRAPH     0x5363466747726170ull /* "ScFgGrap" */
#define K_PRED         0x9e3779b97f4a7c15ull
#define K_SUCC         0xc2b2ae3d27d4eb4full
#define K_NODE         0x165667b19e3779f9ull

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
        h = fp_word(fp_word(fp_word(h, n->num_blocks), n->threads_per_block), n->shared_mem);
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

uint64_t sc_node_fingerprint(const sc_node *n, bool full)
{
    if (!full)
        return fp_word(SEED_STRUCTURE, (uint64_t)n->kind);
    uint64_t h = fp_word(fp_word(SEED_FULL, (uint64_t)n->kind), n->stream);
    h = fp_bytes(h, n->name, n->name_len);
    return attrs_hash(h, n);
}

static bool has_bodies(const sc_node *n)
{
    return (int)n->kind == SC_KIND_GRAPH || (int)n->kind == SC_KIND_CONDITIONAL;
}

/* own[] of node id, bodies folded in, into s and f. */
static int own_hashes(const sc_graph *g, uint32_t id, sc_fingerprint_bodies_fn bodies, void *ctx,
                      uint64_t *s, uint64_t *f)
{
    sc_node n;
    int rc = sc_graph_node(g, id, &n);
    if (rc != 0)
        return rc;
    *s = sc_node_fingerprint(&n, false);
    *f = sc_node_fingerprint(&n, true);
    if (!bodies || !has_bodies(&n))
        return 0;
    const sc_fingerprint *b = NULL;
    uint32_t count = 0;
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

/* Forward pass: down[] from own[] and the predecessors' down[]. */
static int down_pass(const sc_graph *g, uint32_t n, sc_fingerprint_bodies_fn bodies, void *ctx,
                     uint64_t *s, uint64_t *f)
{
    uint32_t cap = 64, np;
    uint32_t *pred = malloc(cap * sizeof *pred);
    if (!pred)
        return SC_ENOMEM;
    int rc = 0;
    for (uint32_t v = 0; rc == 0 && v < n; v++) {
        uint64_t os, of;
        if ((rc = own_hashes(g, v, bodies, ctx, &os, &of)) != 0)
            break;
        rc = sc_graph_predecessors(g, v, pred, cap, &np);
        if (rc == SC_ELIMIT) {
            uint32_t *more = realloc(pred, (size_t)np * sizeof *more);
            if (!more) {
                rc = SC_ENOMEM;
                break;
            }
            pred = more;
            cap = np;
            rc = sc_graph_predecessors(g, v, pred, cap, &np);
        }
        uint64_t as = 0, af = 0;
        for (uint32_t i = 0; rc == 0 && i < np; i++) {
            as += fp_final(s[pred[i]] + K_PRED);
            af += fp_final(f[pred[i]] + K_PRED);
        }
        s[v] = fp_final(fp_word(fp_word(os, np), as));
        f[v] = fp_final(fp_word(fp_word(of, np), af));
    }
    free(pred);
    return rc;
}

/* Backward pass, in place: node[v] from down[v] and the successors' node[]. */
static void up_pass(const sc_graph *g, uint32_t n, uint64_t *s, uint64_t *f)
{
    for (uint32_t v = n; v-- > 0;) {
        const uint32_t *succ;
        uint32_t ns = 0;
        sc_graph_successors(g, v, &succ, &ns);
        uint64_t as = 0, af = 0;
        for (uint32_t i = 0; i < ns; i++) {
            as += fp_final(s[succ[i]] + K_SUCC);
            af += fp_final(f[succ[i]] + K_SUCC);
        }
        s[v] = fp_final(fp_word(fp_word(s[v], ns), as));
        f[v] = fp_final(fp_word(fp_word(f[v], ns), af));
    }
}

int sc_graph_fingerprint(const sc_graph *g, sc_fingerprint_bodies_fn bodies, void *ctx,
                         sc_fingerprint *out)
{
    if (!g || !out || !sc_graph_is_sealed(g))
        return SC_EINVAL;
    uint32_t n = sc_graph_node_count(g);
    uint64_t *s = malloc(((size_t)n + 1) * sizeof *s);
    uint64_t *f = malloc(((size_t)n + 1) * sizeof *f);
    int rc = s && f ? down_pass(g, n, bodies, ctx, s, f) : SC_ENOMEM;
    if (rc == 0) {
        up_pass(g, n, s, f);
        uint64_t m = sc_graph_edge_count(g), as = 0, af = 0;
        for (uint32_t v = 0; v < n; v++) {
            as += fp_final(s[v] + K_NODE);
            af += fp_final(f[v] + K_NODE);
        }
        uint64_t h = fp_word(fp_word(SEED_GRAPH, n), m);
        out->structure = fp_final(fp_word(fp_word(h, 0), as));
        out->full = fp_final(fp_word(fp_word(h, 1), af));
    }
    free(s);
    free(f);
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
