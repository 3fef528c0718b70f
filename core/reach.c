/*
 * reach.c - happens-before queries: the chain index and the BFS baseline.
 *
 * Chains.  Consecutive nodes of one stream are linked by the sequential
 * edge, so each stream is a path (a chain) and the streams cover the graph.
 * For hand-built graphs that promise is checked: a stream whose next node
 * lacks the edge from its previous node starts a new chain, so the index is
 * exact for any DAG whose ids are a topological order.
 *
 * Index.  For every node v and every indexed chain c, low[v][c] is the
 * lowest position on c reachable from v (UINT32_MAX if none).  Ids are a
 * topological order, so one pass in reverse id order computes it from the
 * successors.  If b lies on indexed chain c at position p, a reaches b iff
 * low[a][c] <= p: reaching an earlier node of the chain means reaching b.
 *
 * Only SC_INDEX_MAX_CHAINS chains are indexed.  With more chains than that,
 * a chain's claim to a slot is its size plus the edges between it and other
 * chains: a stream that many others fork from or join into is where paths
 * between streams meet, and a walk (below) that reaches it stops there.
 * For a target b on an unindexed chain we walk predecessors back from b.  A
 * predecessor on an indexed chain is settled by one comparison; only
 * unindexed nodes with ids in (a, b] are expanded, since nothing below a is
 * reachable from a; a forward walk from a runs beside it, so that a source
 * which reaches little does not pay for all of b's ancestors.  No bounded
 * index answers every DAG in O(1) (a wide bipartite graph has no small
 * chain cover), so the walks can be given a step budget: callers on a
 * latency-critical thread stop there and finish the query elsewhere.
 */
#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"

#define UNINDEXED SC_NO_NODE

#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif

void sc_index_free(sc_graph *g)
{
    free(g->low);
    free(g->where);
    g->low = NULL;
    g->where = NULL;
    g->indexed = false;
    g->index_width = 0;
    g->index_bytes = 0;
}

bool sc_graph_has_index(const sc_graph *g)
{
    return g && g->indexed;
}

static bool has_edge(const sc_graph *g, uint32_t src, uint32_t dst)
{
    uint32_t lo = g->succ_off[src], hi = g->succ_off[src + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->succ[mid] < dst)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->succ_off[src + 1] && g->succ[lo] == dst;
}

typedef struct chain_state {
    uint32_t *size; /* nodes per chain */
    uint32_t count;
    uint32_t cap;
} chain_state;

static int chain_new(chain_state *cs, uint32_t *id)
{
    if (cs->count == cs->cap) {
        uint32_t cap = cs->cap ? cs->cap * 2 : 64;
        uint32_t *p = realloc(cs->size, (size_t)cap * sizeof *p);
        if (!p)
            return SC_ENOMEM;
        cs->size = p;
        cs->cap = cap;
    }
    cs->size[cs->count] = 0;
    *id = cs->count++;
    return 0;
}

typedef struct stream_tail {
    uint32_t last;  /* latest node of the stream */
    uint32_t chain; /* chain that node is on */
} stream_tail;

/* A few recently used streams, direct-mapped, in front of the hash map:
 * captures interleave a handful of streams. */
#define TAIL_CACHE 16

typedef struct tail_cache {
    uint32_t stream[TAIL_CACHE];
    uint32_t tail[TAIL_CACHE]; /* UINT32_MAX when empty */
} tail_cache;

static uint32_t tail_slot(uint32_t stream)
{
    return (stream * 0x9E3779B1u) >> 28;
}

/* where[2i] = chain of node i, where[2i + 1] = its position on the chain.
 * Graphs from a capture are chained by construction (docs/semantics.md §4.5 step 4);
 * hand-built ones are checked edge by edge. */
static int assign_chains(const sc_graph *g, uint32_t *where, chain_state *cs)
{
    sc_idmap map = {0};
    stream_tail *tail = NULL;
    uint32_t ntail = 0, tail_cap = 0;
    tail_cache cache;
    memset(&cache, 0xff, sizeof cache);
    int rc = 0;
    for (uint32_t i = 0; i < g->node_count; i++) {
        uint32_t s = sc_rec_at(g, i)->stream, h = tail_slot(s);
        uint32_t t = cache.tail[h] != UINT32_MAX && cache.stream[h] == s ? cache.tail[h]
                                                                         : sc_idmap_get(&map, s);
        uint32_t chain;
        if (t == SC_NO_NODE) {
            if (ntail == tail_cap) {
                uint32_t cap = tail_cap ? tail_cap * 2 : 16;
                stream_tail *p = realloc(tail, (size_t)cap * sizeof *p);
                if (!p) {
                    rc = SC_ENOMEM;
                    break;
                }
                tail = p;
                tail_cap = cap;
            }
            if ((rc = sc_idmap_put(&map, s, ntail)) != 0 || (rc = chain_new(cs, &chain)) != 0)
                break;
            t = ntail++;
        } else if (g->chained || has_edge(g, tail[t].last, i)) {
            chain = tail[t].chain;
        } else if ((rc = chain_new(cs, &chain)) != 0) {
            break;
        }
        tail[t].last = i;
        tail[t].chain = chain;
        where[2 * (size_t)i] = chain;
        where[2 * (size_t)i + 1] = cs->size[chain]++;
        cache.stream[h] = s;
        cache.tail[h] = t;
    }
    free(tail);
    sc_idmap_free(&map);
    return rc;
}

/* Does chain x beat chain y for an index slot?  Heavier first, then older. */
static bool better(const uint64_t *weight, uint32_t x, uint32_t y)
{
    return weight[x] > weight[y] || (weight[x] == weight[y] && x < y);
}

static void heap_sift_down(uint32_t *heap, uint32_t n, uint32_t i, const uint64_t *weight)
{
    for (;;) {
        uint32_t w = i, l = 2 * i + 1, r = l + 1;
        if (l < n && better(weight, heap[w], heap[l]))
            w = l;
        if (r < n && better(weight, heap[w], heap[r]))
            w = r;
        if (w == i)
            return;
        uint32_t t = heap[i];
        heap[i] = heap[w];
        heap[w] = t;
        i = w;
    }
}

/* Fill slot[c] (chain -> slot, or UNINDEXED), keeping the
 * SC_INDEX_MAX_CHAINS heaviest of the m chains.  The heap's root is the
 * weakest of the chains kept so far.  Returns the number of slots. */
static uint32_t choose_chains(const uint64_t *weight, uint32_t m, uint32_t *slot)
{
    uint32_t heap[SC_INDEX_MAX_CHAINS];
    uint32_t k = 0;
    for (uint32_t c = 0; c < m; c++) {
        if (k < SC_INDEX_MAX_CHAINS) {
            heap[k++] = c;
            if (k == SC_INDEX_MAX_CHAINS)
                for (uint32_t i = k / 2; i-- > 0;)
                    heap_sift_down(heap, k, i, weight);
        } else if (better(weight, c, heap[0])) {
            heap[0] = c;
            heap_sift_down(heap, k, 0, weight);
        }
    }
    for (uint32_t c = 0; c < m; c++)
        slot[c] = UNINDEXED;
    /* Slots in chain order, so the layout does not depend on heap order. */
    uint32_t chosen[SC_INDEX_MAX_CHAINS];
    memcpy(chosen, heap, k * sizeof *chosen);
    for (uint32_t i = 1; i < k; i++) {
        uint32_t x = chosen[i], j = i;
        for (; j > 0 && chosen[j - 1] > x; j--)
            chosen[j] = chosen[j - 1];
        chosen[j] = x;
    }
    for (uint32_t i = 0; i < k; i++)
        slot[chosen[i]] = i;
    return k;
}

/* Each chain's claim to a slot: its size, plus, when not every chain can
 * be indexed, the edges it shares with other chains (where[2i] still holds
 * chain ids).  Only graphs with more chains than slots pay for that pass. */
static uint64_t *chain_weights(const sc_graph *g, const uint32_t *where, const chain_state *cs)
{
    uint64_t *w = malloc(((size_t)cs->count + 1) * sizeof *w);
    if (!w)
        return NULL;
    for (uint32_t c = 0; c < cs->count; c++)
        w[c] = cs->size[c];
    if (cs->count <= SC_INDEX_MAX_CHAINS)
        return w;
    for (uint32_t v = 0; v < g->node_count; v++) {
        uint32_t cv = where[2 * (size_t)v];
        for (uint32_t j = g->succ_off[v]; j < g->succ_off[v + 1]; j++) {
            uint32_t cs_ = where[2 * (size_t)g->succ[j]];
            if (cs_ != cv) {
                w[cv]++;
                w[cs_]++;
            }
        }
    }
    return w;
}

/* Rows are padded to a multiple of four entries so that the min runs in
 * fixed-width blocks the compiler can vectorise. */
static void min_row(uint32_t *restrict row, const uint32_t *restrict r, uint32_t stride)
{
    for (uint32_t c = 0; c < stride; c += 4)
        for (uint32_t j = c; j < c + 4; j++)
            row[j] = r[j] < row[j] ? r[j] : row[j];
}

static void fill_low(sc_graph *g, uint32_t *low, uint32_t stride)
{
    const uint32_t *off = g->succ_off, *succ = g->succ, *where = g->where;
    for (uint32_t v = g->node_count; v-- > 0;) {
        uint32_t *row = low + (size_t)v * stride;
        uint32_t j = off[v], end = off[v + 1];
        if (j < end)
            memcpy(row, low + (size_t)succ[j++] * stride, (size_t)stride * sizeof *row);
        else
            memset(row, 0xff, (size_t)stride * sizeof *row);
        for (; j < end; j++)
            min_row(row, low + (size_t)succ[j] * stride, stride);
        uint32_t slot = where[2 * (size_t)v];
        if (slot != UNINDEXED && where[2 * (size_t)v + 1] < row[slot])
            row[slot] = where[2 * (size_t)v + 1];
    }
}

int sc_graph_build_index(sc_graph *g)
{
    if (!g || !g->sealed)
        return SC_EINVAL;
    if (g->indexed)
        return 0;
    const uint32_t n = g->node_count;
    uint32_t *where = malloc(((size_t)n * 2 + 1) * sizeof *where);
    if (!where)
        return SC_ENOMEM;
    chain_state cs = {0};
    int rc = assign_chains(g, where, &cs);
    if (rc != 0) {
        free(cs.size);
        free(where);
        return rc;
    }
    uint64_t *weight = chain_weights(g, where, &cs);
    if (!weight) {
        free(cs.size);
        free(where);
        return SC_ENOMEM;
    }
    /* cs.size becomes chain -> slot. */
    uint32_t k = choose_chains(weight, cs.count, cs.size);
    free(weight);
    uint32_t rank = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t slot = cs.size[where[2 * (size_t)i]];
        where[2 * (size_t)i] = slot;
        if (slot == UNINDEXED)
            where[2 * (size_t)i + 1] = rank++;
    }
    free(cs.size);
    uint32_t stride = (k + 3) & ~3u;
    uint32_t *low = malloc(((size_t)n * stride + 1) * sizeof *low);
    if (!low) {
        free(where);
        return SC_ENOMEM;
    }
    g->where = where;
    fill_low(g, low, stride);
    g->low = low;
    g->index_width = stride;
    g->index_bytes = ((size_t)n * stride + 1 + (size_t)n * 2 + 1) * sizeof(uint32_t);
    g->indexed = true;
    return 0;
}

/* ---- queries ---------------------------------------------------------- */

#define WALK_BITS  65536 /* visited bits kept on the stack */
#define WALK_STACK 512

typedef struct walk_stack {
    uint32_t *v;
    uint32_t n, cap;
    uint32_t local[WALK_STACK];
} walk_stack;

static int walk_push(walk_stack *st, uint32_t x)
{
    if (st->n == st->cap) {
        uint32_t cap = st->cap * 2;
        uint32_t *p = st->v == st->local ? malloc((size_t)cap * sizeof *p)
                                         : realloc(st->v, (size_t)cap * sizeof *p);
        if (!p)
            return SC_ENOMEM;
        if (st->v == st->local)
            memcpy(p, st->local, sizeof st->local);
        st->v = p;
        st->cap = cap;
    }
    st->v[st->n++] = x;
    return 0;
}

/* A step budget: NULL is unbounded.  Taking n steps fails, leaving 0, when
 * fewer than n are left. */
static bool take_steps(uint64_t *steps, uint64_t n)
{
    if (!steps)
        return true;
    if (*steps < n) {
        *steps = 0;
        return false;
    }
    *steps -= n;
    return true;
}

/* Visited bits: on the stack up to WALK_BITS, else on the heap. */
typedef struct walk_bits {
    uint64_t *w;
    uint64_t local[WALK_BITS / 64];
} walk_bits;

static int bits_init(walk_bits *vb, uint32_t nbits)
{
    size_t words = ((size_t)nbits + 63) / 64;
    vb->w = vb->local;
    if (nbits > WALK_BITS) {
        vb->w = calloc(words, sizeof *vb->w);
        return vb->w ? 0 : SC_ENOMEM;
    }
    memset(vb->w, 0, words * sizeof *vb->w);
    return 0;
}

static void bits_free(walk_bits *vb)
{
    if (vb->w != vb->local)
        free(vb->w);
}

/* Set bit o; false when it was set already. */
static bool bits_mark(walk_bits *vb, uint32_t o)
{
    uint64_t m = UINT64_C(1) << (o % 64);
    if (vb->w[o / 64] & m)
        return false;
    vb->w[o / 64] |= m;
    return true;
}

/*
 * One side of the two-sided walk below.  The backward side starts at b and
 * expands unindexed predecessors with ids in (a, b]; the forward side
 * starts at a and expands successors with ids in (a, b).  Either side
 * alone is exact: it ends on finding the other endpoint (for the backward
 * side, an indexed predecessor that a reaches) or on running out of nodes,
 * which means no path.  `spent` is what it has taken of the steps.
 */
typedef struct walk_side {
    walk_stack st;
    walk_bits vb;
    bool bits_ready;
    bool dropped; /* forward only: given up for want of steps */
    uint64_t spent;
} walk_side;

static void side_init(walk_side *sd, uint32_t start)
{
    sd->st.v = sd->st.local;
    sd->st.cap = WALK_STACK;
    sd->st.n = 0;
    sd->st.v[sd->st.n++] = start;
    sd->bits_ready = false;
    sd->dropped = false;
    sd->spent = 0;
}

static void side_free(walk_side *sd)
{
    if (sd->bits_ready)
        bits_free(&sd->vb);
    if (sd->st.v != sd->st.local)
        free(sd->st.v);
}

/* The shared parts of one query's walk. */
typedef struct walk_query {
    const sc_graph *g;
    uint32_t a, b, rank_b, bound;
    const uint32_t *low_a;
    uint64_t *steps;
} walk_query;

/* Charge n steps to side sd; false when fewer are left. */
static bool side_take(const walk_query *q, walk_side *sd, uint64_t n)
{
    if (!take_steps(q->steps, n))
        return false;
    sd->spent += n;
    return true;
}

/* Expand the backward side's next node.  1: found, 0: go on, or SC_E*. */
static int back_step(const walk_query *q, walk_side *sd, bool *spent)
{
    const sc_graph *g = q->g;
    const uint32_t *where = g->where;
    if (!sd->bits_ready) {
        /* Clearing the bits costs one step per 64 words. */
        if (!side_take(q, sd, 1 + ((size_t)q->bound + 63) / 64 / 64)) {
            *spent = true;
            return 0;
        }
        int rc = bits_init(&sd->vb, q->bound);
        if (rc != 0)
            return rc;
        sd->bits_ready = true;
        bits_mark(&sd->vb, 0); /* b itself */
    }
    uint32_t u = sd->st.v[--sd->st.n];
    uint32_t k = sc_rec_at(g, u)->pred_start, end = sc_pred_end(g, u);
    if (!side_take(q, sd, end - k)) {
        *spent = true;
        return 0;
    }
    for (; k < end; k++) {
        uint32_t p = *sc_pred_at(g, k);
        if (p <= q->a) {
            if (p == q->a)
                return 1;
            continue;
        }
        uint32_t slot = where[2 * (size_t)p];
        if (slot != UNINDEXED) {
            if (q->low_a[slot] <= where[2 * (size_t)p + 1])
                return 1;
            continue;
        }
        if (!bits_mark(&sd->vb, q->rank_b - where[2 * (size_t)p + 1]))
            continue;
        int rc = walk_push(&sd->st, p);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* The first successor of u above `limit`, by binary search. */
static uint32_t succ_above(const sc_graph *g, uint32_t u, uint32_t limit)
{
    uint32_t lo = g->succ_off[u], hi = g->succ_off[u + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->succ[mid] <= limit)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Expand the forward side's next node; a node whose successors the steps
 * cannot pay for drops the side (the backward side still answers).
 * 1: found, 0: go on, or SC_E*. */
static int fwd_step(const walk_query *q, walk_side *sd)
{
    const sc_graph *g = q->g;
    uint32_t u = sd->st.v[sd->st.n - 1];
    uint32_t j = g->succ_off[u], end = succ_above(g, u, q->b);
    uint64_t cost = end - j;
    if (!sd->bits_ready && end > j)
        cost += 1 + (uint64_t)(q->b - q->a) / 4096; /* clearing the bits */
    if (q->steps && *q->steps < cost) {
        sd->dropped = true;
        return 0;
    }
    side_take(q, sd, cost);
    sd->st.n--;
    if (end > j && !sd->bits_ready) {
        int rc = bits_init(&sd->vb, q->b - q->a);
        if (rc != 0)
            return rc;
        sd->bits_ready = true;
    }
    for (; j < end; j++) {
        uint32_t s = g->succ[j];
        if (s == q->b)
            return 1;
        if (!bits_mark(&sd->vb, s - q->a - 1))
            continue;
        int rc = walk_push(&sd->st, s);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* The backward side's steps per step of the forward side (see below). */
#define FWD_SHARE 3

/*
 * b is on an unindexed chain and a < b.  The backward walk alone costs as
 * much as b's unindexed ancestors above a, however few nodes a reaches (a
 * node nothing follows asks the whole graph), so a forward walk from a runs
 * beside it and the query ends when either side settles it.  The forward
 * side gets a quarter of the steps (it goes next while it has spent at
 * most a third of what the backward side has): the backward side is the
 * one the index shortens, so a query costs at most 4/3 of the backward
 * walk and about 4 times the forward one, whichever ends first.
 * Backward visited nodes are keyed by rank(b) - rank(u), below both b - a
 * and rank(b) + 1; forward ones by u - a - 1.  *settled is false when the
 * steps ran out first.
 */
static int walk_back(const sc_graph *g, uint32_t a, uint32_t b, uint64_t *steps, bool *out,
                     bool *settled)
{
    walk_query q = {.g = g, .a = a, .b = b, .steps = steps};
    q.low_a = g->low + (size_t)a * g->index_width;
    q.rank_b = g->where[2 * (size_t)b + 1];
    q.bound = b - a < q.rank_b + 1 ? b - a : q.rank_b + 1;
    *settled = false;
    walk_side back, fwd;
    side_init(&back, b);
    side_init(&fwd, a);
    int rc = 0, found = 0;
    bool spent = false;
    while (rc == 0 && found == 0 && !spent && back.st.n > 0 && fwd.st.n > 0) {
        if (!fwd.dropped && fwd.spent * FWD_SHARE <= back.spent)
            found = fwd_step(&q, &fwd);
        else
            found = back_step(&q, &back, &spent);
        if (found < 0)
            rc = found;
    }
    side_free(&back);
    side_free(&fwd);
    if (rc != 0 || spent)
        return rc;
    *out = found == 1;
    *settled = true;
    return 0;
}

/* Check a query's arguments: 0 or SC_E*.  *answered is set when they
 * alone decide the answer (then in *out). */
static int check_query(const sc_graph *g, uint32_t a, uint32_t b, bool *out, bool *answered)
{
    *answered = false;
    if (!g || !out || !g->sealed)
        return SC_EINVAL;
    if (a == b) {
        *out = *answered = true;
        return 0;
    }
    if (a >= g->node_count || b >= g->node_count)
        return SC_ENOTFOUND;
    if (a > b) {
        *out = false;
        *answered = true;
    }
    return 0;
}

static int bfs(const sc_graph *g, uint32_t a, uint32_t b, uint64_t *steps, bool *out,
               bool *settled);

static int reachable(const sc_graph *g, uint32_t a, uint32_t b, uint64_t *steps, bool *out,
                     bool *settled)
{
    bool answered;
    *settled = false;
    int rc = check_query(g, a, b, out, &answered);
    if (rc != 0)
        return rc;
    if (answered) {
        *settled = true;
        return 0;
    }
    if (!g->indexed)
        return bfs(g, a, b, steps, out, settled);
    const uint32_t *row = g->low + (size_t)a * g->index_width;
    PREFETCH(row);
    uint32_t slot = g->where[2 * (size_t)b];
    if (slot != UNINDEXED) {
        *out = row[slot] <= g->where[2 * (size_t)b + 1];
        *settled = true;
        return 0;
    }
    return walk_back(g, a, b, steps, out, settled);
}

int sc_graph_reachable(const sc_graph *g, uint32_t a, uint32_t b, bool *out)
{
    bool settled;
    return reachable(g, a, b, NULL, out, &settled);
}

int sc_graph_reachable_bounded(const sc_graph *g, uint32_t a, uint32_t b, uint64_t *steps,
                               bool *out, bool *settled)
{
    if (!steps || !out || !settled)
        return SC_EINVAL;
    /* *out stays untouched unless the query settles. */
    bool yes = false;
    int rc = reachable(g, a, b, steps, &yes, settled);
    if (rc == 0 && *settled)
        *out = yes;
    return rc;
}

/* Breadth-first search from a along successors.  Successors above b are
 * skipped: ids are a topological order, so they cannot lead to b.  Steps
 * as in walk_back, one per successor looked at. */
static int bfs(const sc_graph *g, uint32_t a, uint32_t b, uint64_t *steps, bool *out, bool *settled)
{
    const uint32_t span = b - a + 1;
    const size_t words = ((size_t)span + 63) / 64;
    *settled = false;
    if (!take_steps(steps, 1 + words / 64))
        return 0;
    uint64_t *seen = calloc(words, sizeof *seen);
    uint32_t local[256];
    uint32_t *queue = local, cap = 256, head = 0, tail = 0;
    if (!seen)
        return SC_ENOMEM;
    int rc = 0;
    bool found = false, spent = false;
    queue[tail++] = a;
    while (head < tail && !found) {
        uint32_t u = queue[head++];
        if (!take_steps(steps, g->succ_off[u + 1] - g->succ_off[u])) {
            spent = true;
            break;
        }
        for (uint32_t j = g->succ_off[u]; j < g->succ_off[u + 1]; j++) {
            uint32_t s = g->succ[j];
            if (s == b) {
                found = true;
                break;
            }
            if (s > b)
                continue;
            uint32_t o = s - a;
            if (seen[o / 64] & (UINT64_C(1) << (o % 64)))
                continue;
            seen[o / 64] |= UINT64_C(1) << (o % 64);
            if (tail == cap) {
                uint32_t ncap = cap * 2;
                uint32_t *q = queue == local ? malloc((size_t)ncap * sizeof *q)
                                             : realloc(queue, (size_t)ncap * sizeof *q);
                if (!q) {
                    rc = SC_ENOMEM;
                    found = false;
                    head = tail;
                    break;
                }
                if (queue == local)
                    memcpy(q, local, sizeof local);
                queue = q;
                cap = ncap;
            }
            queue[tail++] = s;
        }
    }
    if (queue != local)
        free(queue);
    free(seen);
    if (rc != 0 || spent)
        return rc;
    *out = found;
    *settled = true;
    return 0;
}

int sc_graph_reachable_bfs(const sc_graph *g, uint32_t a, uint32_t b, bool *out)
{
    bool answered, settled;
    int rc = check_query(g, a, b, out, &answered);
    if (rc != 0 || answered)
        return rc;
    return bfs(g, a, b, NULL, out, &settled);
}
