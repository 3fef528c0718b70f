/*
 * diff.c - graph.diff: node matching stream by stream, then edges through
 * the matching (sc_diff.h).
 *
 * Per stream, the two node sequences first lose their common prefix and
 * suffix (a long capture that changed in one place is nearly all of it),
 * then the middle is aligned by Myers' greedy O(ND) algorithm, keeping
 * each round's furthest points to walk the path back.  The rounds are
 * bounded (MYERS_MAX_D, and a bound on N * D), so a stream rewritten
 * wholesale costs a sort instead: its nodes are matched by content in
 * order, which is still consistent, only not always the smallest diff.
 */
#include <stdlib.h>
#include <string.h>

#include "sc_diff.h"
#include "sc_fingerprint.h"

#define NONE        UINT32_MAX
#define MYERS_MAX_D 1024u
#define MYERS_WORK  (1ull << 27) /* (N + M) * D steps at most */

/* One graph's side of the diff. */
typedef struct side {
    const sc_graph *g;
    uint32_t n;
    uint64_t *key;   /* content of each node: sc_node_fingerprint(full) */
    uint8_t *kind;   /* each node's kind */
    uint64_t *order; /* stream << 32 | id, ascending */
    uint32_t *match; /* the other side's node, or NONE */
} side;

typedef struct vec {
    uint32_t *v;
    size_t n, cap;
} vec;

static int vec_push(vec *x, uint32_t a)
{
    if (x->n == x->cap) {
        size_t cap = x->cap ? 2 * x->cap : 64;
        uint32_t *more = realloc(x->v, cap * sizeof *more);
        if (!more)
            return SC_ENOMEM;
        x->v = more;
        x->cap = cap;
    }
    x->v[x->n++] = a;
    return 0;
}

static const char *const field_names[SC_DIFF_FIELD_COUNT] = {
    "name",          "num_blocks", "threads_per_block", "shared_mem", "grid",
    "block",         "dir",        "size_bytes",        "src_device", "dst_device",
    "value",         "event",      "param_sizes",       "type",       "size",
    "default_value", "flags",
};

const char *sc_diff_field_name(uint32_t bit)
{
    for (unsigned i = 0; i < SC_DIFF_FIELD_COUNT; i++)
        if (bit == 1u << i)
            return field_names[i];
    return NULL;
}

static bool same_params(const sc_node *a, const sc_node *b)
{
    return a->nparams == b->nparams &&
           (a->nparams == 0 ||
            memcmp(a->param_sizes, b->param_sizes, a->nparams * sizeof *a->param_sizes) == 0);
}

/* Each group either node has, compared value by value. */
uint32_t sc_node_diff_fields(const sc_node *a, const sc_node *b)
{
    unsigned m = sc_node_attrs(a) | sc_node_attrs(b);
    uint32_t f = 0;
    if (a->name_len != b->name_len || memcmp(a->name, b->name, a->name_len) != 0)
        f |= SC_DIFF_NAME;
    if (m & SC_NODE_ATTR_LAUNCH) {
        f |= a->num_blocks != b->num_blocks ? SC_DIFF_NUM_BLOCKS : 0;
        f |= a->threads_per_block != b->threads_per_block ? SC_DIFF_THREADS_PER_BLOCK : 0;
        f |= a->shared_mem != b->shared_mem ? SC_DIFF_SHARED_MEM : 0;
    }
    if (m & SC_NODE_ATTR_SHAPE) {
        f |= a->grid_y != b->grid_y || a->grid_z != b->grid_z ? SC_DIFF_GRID : 0;
        f |= a->block_y != b->block_y || a->block_z != b->block_z ? SC_DIFF_BLOCK : 0;
    }
    f |= (m & SC_NODE_ATTR_DIR) && a->dir != b->dir ? SC_DIFF_DIR : 0;
    f |= (m & SC_NODE_ATTR_SIZE) && a->size_bytes != b->size_bytes ? SC_DIFF_SIZE_BYTES : 0;
    if (m & SC_NODE_ATTR_DEVICES) {
        f |= a->src_device != b->src_device ? SC_DIFF_SRC_DEVICE : 0;
        f |= a->dst_device != b->dst_device ? SC_DIFF_DST_DEVICE : 0;
    }
    f |= (m & SC_NODE_ATTR_VALUE) && a->value != b->value ? SC_DIFF_VALUE : 0;
    f |= (m & SC_NODE_ATTR_EVENT) && a->event != b->event ? SC_DIFF_EVENT : 0;
    f |= (m & SC_NODE_ATTR_ARGS) && !same_params(a, b) ? SC_DIFF_PARAM_SIZES : 0;
    if (m & SC_NODE_ATTR_COND) {
        f |= a->cond_type != b->cond_type ? SC_DIFF_COND_TYPE : 0;
        f |= a->cond_size != b->cond_size ? SC_DIFF_COND_SIZE : 0;
        f |= a->cond_default != b->cond_default ? SC_DIFF_COND_DEFAULT : 0;
        f |= a->cond_flags != b->cond_flags ? SC_DIFF_COND_FLAGS : 0;
    }
    return f;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

static void side_free(side *s)
{
    free(s->key);
    free(s->kind);
    free(s->order);
    free(s->match);
}

static int side_init(side *s, const sc_graph *g)
{
    s->g = g;
    s->n = sc_graph_node_count(g);
    size_t n = (size_t)s->n + 1;
    s->key = malloc(n * sizeof *s->key);
    s->kind = malloc(n);
    s->order = malloc(n * sizeof *s->order);
    s->match = malloc(n * sizeof *s->match);
    if (!s->key || !s->kind || !s->order || !s->match)
        return SC_ENOMEM;
    for (uint32_t i = 0; i < s->n; i++) {
        sc_node node;
        sc_graph_node(g, i, &node);
        s->key[i] = sc_node_fingerprint(&node, true);
        s->kind[i] = (uint8_t)node.kind;
        s->order[i] = (uint64_t)node.stream << 32 | i;
        s->match[i] = NONE;
    }
    qsort(s->order, s->n, sizeof *s->order, cmp_u64);
    return 0;
}

/* One stream's sequences: ids in id order. */
typedef struct seq {
    const uint64_t *ord; /* into side.order: the low 32 bits are ids */
    uint32_t len;
} seq;

static inline uint32_t at(seq s, uint32_t i)
{
    return (uint32_t)s.ord[i];
}

typedef struct ctx {
    side a, b;
    uint32_t *fields; /* per node of a: what a change differs in (0: equal) */
    uint32_t *posb;   /* per node of b: its place in its stream's sequence */
    int32_t *trace;   /* Myers: each round's furthest x, round d at d * d */
    int32_t *v;
} ctx;

static void pair(ctx *c, uint32_t ia, uint32_t ib)
{
    c->a.match[ia] = ib;
    c->b.match[ib] = ia;
}

static bool eq(const ctx *c, seq xa, uint32_t i, seq xb, uint32_t j)
{
    return c->a.key[at(xa, i)] == c->b.key[at(xb, j)];
}

/*
 * Round d's start on diagonal k from round d - 1's furthest points `prev`
 * (indexed by diagonal): a step down from k + 1 or right from k - 1,
 * whichever goes further, counting only points inside the n x m grid
 * (-1 marks a diagonal with none).  *from is the diagonal it came from,
 * *x the point's x before its snake.  False when neither step is possible.
 */
static bool myers_step(const int32_t *prev, int32_t d, int32_t k, int32_t n, int32_t m, int32_t *x,
                       int32_t *from)
{
    bool down = k + 1 <= d - 1 && prev[k + 1] >= 0 && prev[k + 1] - k <= m;
    bool right = k - 1 >= -(d - 1) && prev[k - 1] >= 0 && prev[k - 1] + 1 <= n;
    if (down && (!right || prev[k + 1] >= prev[k - 1] + 1)) {
        *x = prev[k + 1];
        *from = k + 1;
        return true;
    }
    if (right) {
        *x = prev[k - 1] + 1;
        *from = k - 1;
        return true;
    }
    return false;
}

static const int32_t *round_at(const ctx *c, int32_t d)
{
    return c->trace + (size_t)d * (size_t)d + (size_t)d; /* diagonal 0 of round d */
}

/* Walk Myers' path back from (n, m), reached in round d, pairing the
 * diagonal steps (equal nodes). */
static void myers_back(ctx *c, seq xa, seq xb, int32_t d)
{
    int32_t x = (int32_t)xa.len, y = (int32_t)xb.len;
    for (; d > 0; d--) {
        int32_t k = x - y, sx, from;
        if (!myers_step(round_at(c, d - 1), d, k, (int32_t)xa.len, (int32_t)xb.len, &sx, &from))
            return; /* cannot happen: the forward pass took this step */
        for (; x > sx && y > sx - k; x--, y--)
            pair(c, at(xa, (uint32_t)x - 1), at(xb, (uint32_t)y - 1));
        x = round_at(c, d - 1)[from];
        y = x - from;
    }
    for (; x > 0 && y > 0; x--, y--)
        pair(c, at(xa, (uint32_t)x - 1), at(xb, (uint32_t)y - 1));
}

/* Myers on sequences with no common prefix or suffix: true when it ended
 * within its bound (the equal nodes are paired). */
static bool myers(ctx *c, seq xa, seq xb)
{
    uint64_t total = (uint64_t)xa.len + xb.len;
    uint64_t dmax = MYERS_WORK / (total ? total : 1);
    dmax = dmax < MYERS_MAX_D ? dmax : MYERS_MAX_D;
    dmax = dmax < total ? dmax : total;
    int32_t n = (int32_t)xa.len, m = (int32_t)xb.len;
    int32_t *v = c->v + MYERS_MAX_D + 1;
    for (int32_t d = 0; d <= (int32_t)dmax; d++) {
        bool done = false;
        for (int32_t k = -d; k <= d && !done; k += 2) {
            int32_t x = 0, from;
            if (d > 0 && !myers_step(v, d, k, n, m, &x, &from)) {
                v[k] = -1;
                continue;
            }
            int32_t y = x - k;
            while (x < n && y < m && eq(c, xa, (uint32_t)x, xb, (uint32_t)y)) {
                x++;
                y++;
            }
            v[k] = x;
            done = x == n && y == m;
        }
        memcpy(c->trace + (size_t)d * d, v - d, (size_t)(2 * d + 1) * sizeof *v);
        if (done) {
            myers_back(c, xa, xb, d);
            return true;
        }
    }
    return false;
}

/* (key, position) of each node of a sequence, sorted: equal content in order. */
static int by_content(const side *s, seq x, uint64_t **out)
{
    /* Two words per entry: the key, then the position. */
    uint64_t *e = malloc(((size_t)x.len + 1) * 2 * sizeof *e);
    if (!e)
        return SC_ENOMEM;
    for (uint32_t i = 0; i < x.len; i++) {
        e[2 * i] = s->key[at(x, i)];
        e[2 * i + 1] = i;
    }
    *out = e;
    return 0;
}

static int cmp_pair(const void *x, const void *y)
{
    const uint64_t *a = x, *b = y;
    if (a[0] != b[0])
        return a[0] < b[0] ? -1 : 1;
    return a[1] < b[1] ? -1 : a[1] > b[1];
}

/* Past Myers' bound: the i-th node of a with some content pairs with the
 * i-th of b with that content. */
static int match_by_content(ctx *c, seq xa, seq xb)
{
    uint64_t *ea = NULL, *eb = NULL;
    int rc = by_content(&c->a, xa, &ea);
    rc = rc ? rc : by_content(&c->b, xb, &eb);
    if (rc == 0) {
        qsort(ea, xa.len, 2 * sizeof *ea, cmp_pair);
        qsort(eb, xb.len, 2 * sizeof *eb, cmp_pair);
        for (uint32_t i = 0, j = 0; i < xa.len && j < xb.len;) {
            if (ea[2 * i] < eb[2 * j])
                i++;
            else if (ea[2 * i] > eb[2 * j])
                j++;
            else {
                pair(c, at(xa, (uint32_t)ea[2 * i + 1]), at(xb, (uint32_t)eb[2 * j + 1]));
                i++;
                j++;
            }
        }
    }
    free(ea);
    free(eb);
    return rc;
}

/* Unmatched nodes of a[ia, ea) and b[ib, eb), paired in order where the
 * kinds agree and something differs, as changes. */
static void pair_gap(ctx *c, seq xa, uint32_t ia, uint32_t ea, seq xb, uint32_t ib, uint32_t eb)
{
    for (;;) {
        while (ia < ea && c->a.match[at(xa, ia)] != NONE)
            ia++;
        while (ib < eb && c->b.match[at(xb, ib)] != NONE)
            ib++;
        if (ia >= ea || ib >= eb)
            return;
        uint32_t u = at(xa, ia++), v = at(xb, ib++);
        if (c->a.kind[u] != c->b.kind[v])
            continue;
        sc_node na, nb;
        sc_graph_node(c->a.g, u, &na);
        sc_graph_node(c->b.g, v, &nb);
        uint32_t f = sc_node_diff_fields(&na, &nb);
        if (f) {
            pair(c, u, v);
            c->fields[u] = f;
        }
    }
}

/* The stretches between consecutive matched nodes, in a's order; a match
 * that goes back in b (match_by_content's) ends no stretch. */
static void pair_leftovers(ctx *c, seq xa, seq xb)
{
    for (uint32_t j = 0; j < xb.len; j++)
        c->posb[at(xb, j)] = j;
    uint32_t pi = 0, pj = 0;
    for (uint32_t i = 0; i < xa.len; i++) {
        uint32_t m = c->a.match[at(xa, i)];
        if (m == NONE || c->posb[m] < pj)
            continue;
        pair_gap(c, xa, pi, i, xb, pj, c->posb[m]);
        pi = i + 1;
        pj = c->posb[m] + 1;
    }
    pair_gap(c, xa, pi, xa.len, xb, pj, xb.len);
}

static int align(ctx *c, seq xa, seq xb)
{
    uint32_t p = 0, sa = xa.len, sb = xb.len;
    for (; p < sa && p < sb && eq(c, xa, p, xb, p); p++)
        pair(c, at(xa, p), at(xb, p));
    for (; sa > p && sb > p && eq(c, xa, sa - 1, xb, sb - 1); sa--, sb--)
        pair(c, at(xa, sa - 1), at(xb, sb - 1));
    seq ma = {xa.ord + p, sa - p}, mb = {xb.ord + p, sb - p};
    if (ma.len && mb.len && !myers(c, ma, mb)) {
        int rc = match_by_content(c, ma, mb);
        if (rc != 0)
            return rc;
    }
    pair_leftovers(c, xa, xb);
    return 0;
}

/* Every stream present on either side, aligned on its own. */
static int align_streams(ctx *c)
{
    uint32_t i = 0, j = 0;
    while (i < c->a.n || j < c->b.n) {
        uint64_t sa = i < c->a.n ? c->a.order[i] >> 32 : UINT64_MAX;
        uint64_t sb = j < c->b.n ? c->b.order[j] >> 32 : UINT64_MAX;
        uint64_t s = sa < sb ? sa : sb;
        uint32_t ea = i, eb = j;
        while (ea < c->a.n && c->a.order[ea] >> 32 == s)
            ea++;
        while (eb < c->b.n && c->b.order[eb] >> 32 == s)
            eb++;
        seq xa = {c->a.order + i, ea - i}, xb = {c->b.order + j, eb - j};
        int rc = align(c, xa, xb);
        if (rc != 0)
            return rc;
        i = ea;
        j = eb;
    }
    return 0;
}

static bool has_edge(const sc_graph *g, uint32_t u, uint32_t v)
{
    const uint32_t *succ;
    uint32_t n;
    if (u == NONE || v == NONE || sc_graph_successors(g, u, &succ, &n) != 0)
        return false;
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (succ[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && succ[lo] == v;
}

/* Edges of `from` whose image through from's matching is no edge of `to`. */
static int unmatched_edges(const side *from, const side *to, vec *out)
{
    uint64_t m = sc_graph_edge_count(from->g);
    for (uint64_t e = 0; e < m; e++) {
        uint32_t u, v;
        sc_graph_edge(from->g, e, &u, &v);
        if (has_edge(to->g, from->match[u], from->match[v]))
            continue;
        if (vec_push(out, u) != 0 || vec_push(out, v) != 0)
            return SC_ENOMEM;
    }
    return 0;
}

static int collect(ctx *c, sc_graph_diff *out)
{
    vec rem = {0}, add = {0}, er = {0}, ea = {0};
    sc_diff_change *ch = NULL;
    size_t nch = 0, cap = 0;
    int rc = 0;
    for (uint32_t i = 0; rc == 0 && i < c->a.n; i++) {
        if (c->a.match[i] == NONE)
            rc = vec_push(&rem, i);
        else if (c->fields[i]) {
            if (nch == cap) {
                cap = cap ? 2 * cap : 16;
                sc_diff_change *more = realloc(ch, cap * sizeof *more);
                if (!more) {
                    rc = SC_ENOMEM;
                    break;
                }
                ch = more;
            }
            ch[nch++] = (sc_diff_change){i, c->a.match[i], c->fields[i]};
        }
    }
    for (uint32_t i = 0; rc == 0 && i < c->b.n; i++)
        if (c->b.match[i] == NONE)
            rc = vec_push(&add, i);
    rc = rc ? rc : unmatched_edges(&c->a, &c->b, &er);
    rc = rc ? rc : unmatched_edges(&c->b, &c->a, &ea);
    *out = (sc_graph_diff){.removed = rem.v,
                           .nremoved = (uint32_t)rem.n,
                           .added = add.v,
                           .nadded = (uint32_t)add.n,
                           .changed = ch,
                           .nchanged = (uint32_t)nch,
                           .edges_removed = er.v,
                           .nedges_removed = er.n / 2,
                           .edges_added = ea.v,
                           .nedges_added = ea.n / 2};
    out->identical = rem.n == 0 && add.n == 0 && nch == 0 && er.n == 0 && ea.n == 0;
    if (rc != 0)
        sc_graph_diff_free(out);
    return rc;
}

int sc_graph_diff_compute(const sc_graph *a, const sc_graph *b, sc_graph_diff *out)
{
    if (!out)
        return SC_EINVAL;
    memset(out, 0, sizeof *out);
    if (!a || !b || !sc_graph_is_sealed(a) || !sc_graph_is_sealed(b))
        return SC_EINVAL;
    ctx c = {0};
    int rc = side_init(&c.a, a);
    rc = rc ? rc : side_init(&c.b, b);
    if (rc == 0) {
        c.fields = calloc((size_t)c.a.n + 1, sizeof *c.fields);
        c.posb = malloc(((size_t)c.b.n + 1) * sizeof *c.posb);
        c.trace = malloc(((size_t)MYERS_MAX_D + 1) * (MYERS_MAX_D + 1) * sizeof *c.trace);
        c.v = malloc((2 * (size_t)MYERS_MAX_D + 3) * sizeof *c.v);
        rc = c.fields && c.posb && c.trace && c.v ? 0 : SC_ENOMEM;
    }
    rc = rc ? rc : align_streams(&c);
    rc = rc ? rc : collect(&c, out);
    side_free(&c.a);
    side_free(&c.b);
    free(c.fields);
    free(c.posb);
    free(c.trace);
    free(c.v);
    return rc;
}

void sc_graph_diff_free(sc_graph_diff *d)
{
    if (!d)
        return;
    free(d->added);
    free(d->removed);
    free(d->changed);
    free(d->edges_added);
    free(d->edges_removed);
    memset(d, 0, sizeof *d);
}
