/*
 * races.c - graph.races: unordered node pairs whose accesses conflict.
 *
 * Two steps.  First each node's accesses become its segments: disjoint,
 * sorted ranges with one mode each (the union of its reads and the union
 * of its writes, overlaid), so that a node never races with itself and
 * the intersection of two nodes' segments is already a maximal range of
 * constant modes (a boundary inside it would be a boundary of one node's
 * segments, where that node's mode changes).  Then one sweep over all
 * segments in address order keeps two active sets, writers (the write
 * bit set) and readers (read only): a segment that starts is paired with
 * the active writers, and with the active readers only when it writes.
 * Read/read overlaps are therefore never enumerated, and each
 * overlapping pair with a write is met exactly once, when the later of
 * the two starts.  Each such pair costs one reachability query.
 *
 * Ranges are kept as [lo, last] (inclusive) so that one ending at 2^64
 * needs no wider type.
 */
#include <stdlib.h>
#include <string.h>

#include "sc_races.h"

typedef struct seg {
    uint64_t lo, last;
    uint32_t node;
    unsigned mode; /* SC_ACCESS_* bits */
} seg;

typedef struct seg_list {
    seg *v;
    size_t n;
} seg_list;

/* The first rows kept so far, as a max-heap on (a, b, address) in out. */
typedef struct row_heap {
    sc_race *v;
    size_t n, cap;
    uint64_t count;
} row_heap;

static int check_access(const sc_graph *g, const sc_node_access *x)
{
    const sc_access *a = &x->access;
    if (a->size == 0 || a->size - 1 > UINT64_MAX - a->address)
        return SC_EINVAL;
    if (a->mode != SC_ACCESS_READ && a->mode != SC_ACCESS_WRITE && a->mode != SC_ACCESS_READ_WRITE)
        return SC_EINVAL;
    return x->node < sc_graph_node_count(g) ? 0 : SC_ENOTFOUND;
}

static int cmp_node_addr(const void *pa, const void *pb)
{
    const sc_node_access *a = pa, *b = pb;
    if (a->node != b->node)
        return a->node < b->node ? -1 : 1;
    if (a->access.address != b->access.address)
        return a->access.address < b->access.address ? -1 : 1;
    return 0;
}

static int cmp_seg_lo(const void *pa, const void *pb)
{
    const seg *a = pa, *b = pb;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->node != b->node)
        return a->node < b->node ? -1 : 1;
    return 0;
}

/* Append [lo, last] to a sorted list of disjoint ranges, joining it with
 * the previous one of the same node and mode when they overlap or touch
 * (tested as lo - p->last == 1: p->last + 1 wraps when p ends at 2^64). */
static void push_range(seg_list *l, uint64_t lo, uint64_t last, uint32_t node, unsigned mode)
{
    if (l->n > 0) {
        seg *p = &l->v[l->n - 1];
        if (p->node == node && p->mode == mode && (lo <= p->last || lo - p->last == 1)) {
            if (last > p->last)
                p->last = last;
            return;
        }
    }
    l->v[l->n++] = (seg){lo, last, node, mode};
}

/* The union of one node's accesses (sorted by address) that have `bit`. */
static void union_of(const sc_node_access *acc, size_t n, unsigned bit, seg_list *out)
{
    out->n = 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned)acc[i].access.mode & bit)
            push_range(out, acc[i].access.address, acc[i].access.address + (acc[i].access.size - 1),
                       acc[i].node, bit);
}

/* Overlay the read union r and the write union w into segments of mode
 * read, write or read_write, appended to out.  r and w are consumed. */
static void overlay(seg_list *r, seg_list *w, seg_list *out)
{
    size_t i = 0, j = 0;
    while (i < r->n || j < w->n) {
        seg *x = i < r->n ? &r->v[i] : NULL, *y = j < w->n ? &w->v[j] : NULL;
        if (!y || (x && x->last < y->lo)) {
            push_range(out, x->lo, x->last, x->node, SC_ACCESS_READ);
            i++;
        } else if (!x || y->last < x->lo) {
            push_range(out, y->lo, y->last, y->node, SC_ACCESS_WRITE);
            j++;
        } else if (x->lo < y->lo) {
            push_range(out, x->lo, y->lo - 1, x->node, SC_ACCESS_READ);
            x->lo = y->lo;
        } else if (y->lo < x->lo) {
            push_range(out, y->lo, x->lo - 1, y->node, SC_ACCESS_WRITE);
            y->lo = x->lo;
        } else {
            uint64_t e = x->last < y->last ? x->last : y->last;
            push_range(out, x->lo, e, x->node, SC_ACCESS_READ_WRITE);
            if (x->last == e)
                i++;
            else
                x->lo = e + 1;
            if (y->last == e)
                j++;
            else
                y->lo = e + 1;
        }
    }
}

/* Every node's segments into *out (at most 4 per access: the read and
 * write unions have at most 2k ranges together, and overlaying cuts each
 * boundary once). */
static int node_segments(const sc_node_access *acc, size_t nacc, seg_list *out)
{
    sc_node_access *s = malloc(nacc * sizeof *s);
    seg *v = malloc(nacc * 4 * sizeof *v);
    seg *tmp = malloc(nacc * 2 * sizeof *tmp);
    if (!s || !v || !tmp) {
        free(s);
        free(v);
        free(tmp);
        return SC_ENOMEM;
    }
    memcpy(s, acc, nacc * sizeof *s);
    qsort(s, nacc, sizeof *s, cmp_node_addr);
    *out = (seg_list){v, 0};
    for (size_t i = 0, j; i < nacc; i = j) {
        for (j = i; j < nacc && s[j].node == s[i].node; j++)
            ;
        seg_list r = {tmp, 0}, w = {tmp + nacc, 0};
        union_of(s + i, j - i, SC_ACCESS_READ, &r);
        union_of(s + i, j - i, SC_ACCESS_WRITE, &w);
        overlay(&r, &w, out);
    }
    free(s);
    free(tmp);
    return 0;
}

static int row_cmp(const sc_race *x, const sc_race *y)
{
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    if (x->b != y->b)
        return x->b < y->b ? -1 : 1;
    if (x->address != y->address)
        return x->address < y->address ? -1 : 1;
    return 0;
}

static int row_qsort_cmp(const void *x, const void *y)
{
    return row_cmp(x, y);
}

static void heap_sift_down(row_heap *h, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && row_cmp(&h->v[l], &h->v[m]) > 0)
            m = l;
        if (r < h->n && row_cmp(&h->v[r], &h->v[m]) > 0)
            m = r;
        if (m == i)
            return;
        sc_race t = h->v[i];
        h->v[i] = h->v[m];
        h->v[m] = t;
        i = m;
    }
}

/* Keep the row if it is among the `cap` smallest seen so far. */
static void heap_offer(row_heap *h, const sc_race *row)
{
    h->count++;
    if (h->n < h->cap) {
        size_t i = h->n++;
        h->v[i] = *row;
        while (i > 0 && row_cmp(&h->v[(i - 1) / 2], &h->v[i]) < 0) {
            size_t p = (i - 1) / 2;
            sc_race t = h->v[p];
            h->v[p] = h->v[i];
            h->v[i] = t;
            i = p;
        }
    } else if (h->cap > 0 && row_cmp(row, &h->v[0]) < 0) {
        h->v[0] = *row;
        heap_sift_down(h, 0);
    }
}

/* s and t overlap from s->lo (s started last) and one of them writes:
 * a row when their nodes are unordered. */
static int pair(const sc_graph *g, const seg *s, const seg *t, row_heap *h)
{
    const seg *x = s->node < t->node ? s : t, *y = x == s ? t : s;
    bool ordered;
    int rc = sc_graph_reachable(g, x->node, y->node, &ordered);
    if (rc != 0 || ordered)
        return rc;
    uint64_t last = s->last < t->last ? s->last : t->last;
    sc_race row = {x->node,
                   y->node,
                   s->lo,
                   last - s->lo + 1,
                   (sc_access_mode)x->mode,
                   (sc_access_mode)y->mode};
    heap_offer(h, &row);
    return 0;
}

/* Pair s with every segment of `active` still covering s->lo, dropping
 * those that ended before it (they overlap nothing that starts later). */
static int pair_active(const sc_graph *g, const seg *s, seg_list *active, row_heap *h)
{
    for (size_t i = 0; i < active->n;) {
        if (active->v[i].last < s->lo) {
            active->v[i] = active->v[--active->n];
            continue;
        }
        int rc = pair(g, s, &active->v[i], h);
        if (rc != 0)
            return rc;
        i++;
    }
    return 0;
}

static int sweep(const sc_graph *g, seg_list *segs, row_heap *h)
{
    size_t cap = segs->n ? segs->n : 1;
    seg_list wr = {malloc(cap * sizeof(seg)), 0}, rd = {malloc(cap * sizeof(seg)), 0};
    int rc = wr.v && rd.v ? 0 : SC_ENOMEM;
    qsort(segs->v, segs->n, sizeof *segs->v, cmp_seg_lo);
    for (size_t i = 0; i < segs->n && rc == 0; i++) {
        const seg *s = &segs->v[i];
        bool writes = s->mode & SC_ACCESS_WRITE;
        rc = pair_active(g, s, &wr, h);
        if (rc == 0 && writes)
            rc = pair_active(g, s, &rd, h);
        seg_list *mine = writes ? &wr : &rd;
        mine->v[mine->n++] = *s;
    }
    free(wr.v);
    free(rd.v);
    return rc;
}

int sc_graph_find_races(const sc_graph *g, const sc_node_access *acc, size_t nacc, size_t limit,
                        sc_race *out, size_t *nout, uint64_t *count)
{
    if (!g || !nout || !count || (nacc > 0 && !acc) || (limit > 0 && !out) ||
        !sc_graph_is_sealed(g))
        return SC_EINVAL;
    if (nacc > SIZE_MAX / (4 * sizeof(seg)))
        return SC_ENOMEM;
    for (size_t i = 0; i < nacc; i++) {
        int rc = check_access(g, &acc[i]);
        if (rc != 0)
            return rc;
    }
    *nout = 0;
    *count = 0;
    if (nacc == 0)
        return 0;
    seg_list segs = {NULL, 0};
    int rc = node_segments(acc, nacc, &segs);
    if (rc != 0)
        return rc;
    row_heap h = {out, 0, limit, 0};
    rc = sweep(g, &segs, &h);
    free(segs.v);
    if (rc != 0)
        return rc;
    if (h.n > 1)
        qsort(out, h.n, sizeof *out, row_qsort_cmp);
    *nout = h.n;
    *count = h.count;
    return 0;
}

int sc_graph_node_accesses(const sc_graph *g, sc_node_access **out, size_t *nout)
{
    if (!g || !out || !nout)
        return SC_EINVAL;
    uint32_t n = sc_graph_node_count(g);
    size_t total = 0;
    for (uint32_t v = 0; v < n; v++) {
        sc_node node;
        if (sc_graph_node(g, v, &node) == 0)
            total += node.naccesses;
    }
    *out = NULL;
    *nout = 0;
    if (total == 0)
        return 0;
    sc_node_access *a = malloc(total * sizeof *a);
    if (!a)
        return SC_ENOMEM;
    size_t k = 0;
    for (uint32_t v = 0; v < n; v++) {
        sc_node node;
        if (sc_graph_node(g, v, &node) != 0)
            continue;
        for (uint32_t i = 0; i < node.naccesses; i++)
            a[k++] = (sc_node_access){v, node.accesses[i]};
    }
    *out = a;
    *nout = k;
    return 0;
}
