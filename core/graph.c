/*
 * graph.c - the ComputeGraph: hand building, sealing, node and edge access.
 */
#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"

#define SC_KIND_NAME(id, name) [SC_KIND_##id] = name,
#define SC_DIR_NAME(id, name)  [SC_DIR_##id] = name,
static const char *const kind_names[] = {SC_NODE_KINDS(SC_KIND_NAME)};
static const char *const dir_names[] = {SC_MEMCPY_DIRS(SC_DIR_NAME)};
static const char *const all_kind_names[] = {SC_NODE_KINDS(SC_KIND_NAME)
                                                 SC_CUDA_NODE_KINDS(SC_KIND_NAME)};
static const char *const all_dir_names[] = {SC_MEMCPY_DIRS(SC_DIR_NAME)
                                                SC_CUDA_MEMCPY_DIRS(SC_DIR_NAME)};
#undef SC_KIND_NAME
#undef SC_DIR_NAME
#define SC_NALLKIND ((int)(sizeof all_kind_names / sizeof all_kind_names[0]))
#define SC_NALLDIR  ((int)(sizeof all_dir_names / sizeof all_dir_names[0]))

/* As many entries as values (and no index twice: -Woverride-init), so no
 * value is left without a name. */
#define SC_ONE(id, name) +1
_Static_assert(0 SC_NODE_KINDS(SC_ONE) == SC_KIND_HOST_CALLBACK + 1,
               "SC_NODE_KINDS names every sc_node_kind");
_Static_assert(0 SC_MEMCPY_DIRS(SC_ONE) == SC_DIR_PEER_TO_PEER + 1,
               "SC_MEMCPY_DIRS names every sc_memcpy_dir");
#undef SC_ONE
#define SC_NKIND ((int)(sizeof kind_names / sizeof kind_names[0]))
#define SC_NDIR  ((int)(sizeof dir_names / sizeof dir_names[0]))

const char *sc_node_kind_name(sc_node_kind kind)
{
    return (unsigned)kind <= SC_KIND_HOST_CALLBACK ? kind_names[kind] : NULL;
}

const char *sc_memcpy_dir_name(sc_memcpy_dir dir)
{
    return (unsigned)dir <= SC_DIR_PEER_TO_PEER ? dir_names[dir] : NULL;
}

static int parse_name(const char *const *names, int count, const char *s, size_t len)
{
    if (!s)
        return -1;
    for (int i = 0; i < count; i++)
        if (strlen(names[i]) == len && memcmp(names[i], s, len) == 0)
            return i;
    return -1;
}

int sc_node_kind_parse(const char *s, size_t len, sc_node_kind *out)
{
    int i = parse_name(kind_names, SC_NKIND, s, len);
    if (i < 0 || !out)
        return SC_EINVAL;
    *out = (sc_node_kind)i;
    return 0;
}

int sc_memcpy_dir_parse(const char *s, size_t len, sc_memcpy_dir *out)
{
    int i = parse_name(dir_names, SC_NDIR, s, len);
    if (i < 0 || !out)
        return SC_EINVAL;
    *out = (sc_memcpy_dir)i;
    return 0;
}

/* The tables above have holes between the default and the cuda-only values. */
static bool any_kind(int kind)
{
    return kind >= 0 && kind < SC_NALLKIND && all_kind_names[kind];
}

static bool any_dir(int dir)
{
    return dir >= 0 && dir < SC_NALLDIR && all_dir_names[dir];
}

const char *sc_cuda_kind_name(int kind)
{
    return any_kind(kind) ? all_kind_names[kind] : NULL;
}

const char *sc_cuda_dir_name(int dir)
{
    return any_dir(dir) ? all_dir_names[dir] : NULL;
}

int sc_cuda_kind_parse(const char *s, size_t len, sc_node_kind *out)
{
    for (int i = 0; i < SC_NALLKIND; i++)
        if (all_kind_names[i] && parse_name(all_kind_names + i, 1, s, len) == 0 && out) {
            *out = (sc_node_kind)i;
            return 0;
        }
    return SC_EINVAL;
}

int sc_cuda_dir_parse(const char *s, size_t len, sc_memcpy_dir *out)
{
    for (int i = 0; i < SC_NALLDIR; i++)
        if (all_dir_names[i] && parse_name(all_dir_names + i, 1, s, len) == 0 && out) {
            *out = (sc_memcpy_dir)i;
            return 0;
        }
    return SC_EINVAL;
}

#define SC_COND_NAME(id, name) [SC_COND_##id] = name,
static const char *const cond_names[] = {SC_COND_TYPES(SC_COND_NAME)};
#undef SC_COND_NAME
#define SC_NCOND ((int)(sizeof cond_names / sizeof cond_names[0]))

const char *sc_cond_type_name(int type)
{
    return type >= 0 && type < SC_NCOND ? cond_names[type] : NULL;
}

int sc_cond_type_parse(const char *s, size_t len, sc_cond_type *out)
{
    int i = parse_name(cond_names, SC_NCOND, s, len);
    if (i < 0 || !out)
        return SC_EINVAL;
    *out = (sc_cond_type)i;
    return 0;
}

/* CUDA's limits on cudaConditionalNodeParams.size, by type. */
bool sc_cond_size_valid(int type, uint32_t size)
{
    switch (type) {
    case SC_COND_IF:
        return size == 1 || size == 2;
    case SC_COND_WHILE:
        return size == 1;
    case SC_COND_SWITCH:
        return size >= 1;
    default:
        return false;
    }
}

unsigned sc_node_attrs(const sc_node *n)
{
    switch ((int)n->kind) {
    case SC_KIND_KERNEL: {
        /* Extents of 1 (or 0, which the graph reads as 1) are no shape. */
        bool shaped = n->grid_y > 1 || n->grid_z > 1 || n->block_y > 1 || n->block_z > 1;
        return SC_NODE_ATTR_LAUNCH | (shaped ? SC_NODE_ATTR_SHAPE : 0u) |
               (n->nparams ? SC_NODE_ATTR_ARGS : 0u);
    }
    case SC_KIND_MEMCPY:
        return SC_NODE_ATTR_DIR | SC_NODE_ATTR_SIZE |
               (n->dir == SC_DIR_PEER_TO_PEER ? SC_NODE_ATTR_DEVICES : 0u);
    case SC_KIND_MEMSET:
        return SC_NODE_ATTR_SIZE | SC_NODE_ATTR_VALUE;
    case SC_KIND_MEM_ALLOC:
        return SC_NODE_ATTR_SIZE;
    case SC_KIND_EVENT_RECORD:
    case SC_KIND_EVENT_WAIT:
        return SC_NODE_ATTR_EVENT;
    case SC_KIND_CONDITIONAL:
        return SC_NODE_ATTR_COND;
    default:
        return 0;
    }
}

int sc_graph_create(sc_graph **out)
{
    if (!out)
        return SC_EINVAL;
    sc_graph *g = calloc(1, sizeof *g);
    if (!g)
        return SC_ENOMEM;
    *out = g;
    return 0;
}

static void free_build_state(sc_graph *g)
{
    free(g->intern);
    g->intern = NULL;
    g->intern_cap = g->intern_count = 0;
    free(g->pairs);
    g->pairs = NULL;
    g->npairs = g->pairs_cap = 0;
}

void sc_graph_destroy(sc_graph *g)
{
    if (!g)
        return;
    sc_index_free(g);
    sc_chunks_free(&g->nodes);
    sc_chunks_free(&g->preds);
    sc_chunks_free(&g->dims);
    sc_graph_free_accesses(g);
    for (uint32_t i = 0; i < g->arena.nblock; i++)
        free(g->arena.block[i]);
    free(g->arena.block);
    free_build_state(g);
    free(g->succ_off);
    free(g->succ);
    free(g);
}

int sc_graph_reserve(sc_graph *g, uint32_t edges)
{
    int rc =
        sc_chunks_reserve(&g->nodes, sizeof(sc_rec), SC_NODE_SHIFT, (uint64_t)g->node_count + 1);
    if (rc != 0)
        return rc;
    return sc_chunks_reserve(&g->preds, sizeof(uint32_t), SC_PRED_SHIFT,
                             (uint64_t)g->pred_count + edges);
}

bool sc_node_valid(const sc_node *n)
{
    if (!any_kind((int)n->kind))
        return false;
    if (n->kind == SC_KIND_MEMCPY && !any_dir((int)n->dir))
        return false;
    if (n->kind == SC_KIND_KERNEL && n->nparams) {
        uint64_t sum = 0;
        for (uint32_t i = 0; i < n->nparams; i++)
            sum += n->param_sizes[i];
        if (!n->args || sum != n->args_len)
            return false;
    }
    return (n->name || n->name_len == 0) && sc_node_accesses_valid(n);
}

static uint32_t extent(uint32_t v)
{
    return v ? v : 1;
}

bool sc_node_needs_dims(const sc_node *n)
{
    return n->kind == SC_KIND_KERNEL &&
           (extent(n->grid_y) | extent(n->grid_z) | extent(n->block_y) | extent(n->block_z)) != 1;
}

int sc_graph_reserve_dims(sc_graph *g)
{
    return sc_chunks_reserve(&g->dims, sizeof(sc_dims), SC_DIMS_SHIFT, (uint64_t)g->dims_count + 1);
}

static sc_dims *dims_at(const sc_graph *g, uint32_t i)
{
    return (sc_dims *)g->dims.chunk[i >> SC_DIMS_SHIFT] + (i & ((1u << SC_DIMS_SHIFT) - 1));
}

/* Only the fields that belong to the kind are kept, so a round trip yields
 * zeros elsewhere.  The switch is on int: the cuda-only kinds are not
 * sc_node_kind enumerators. */
void sc_graph_rec_from_node(sc_graph *g, sc_rec *r, const sc_node *n)
{
    memset(r, 0, sizeof *r);
    r->kind = (uint8_t)n->kind;
    r->stream = n->stream;
    switch ((int)n->kind) {
    case SC_KIND_KERNEL:
        r->u.k.blocks = n->num_blocks;
        r->u.k.threads = n->threads_per_block;
        r->x = n->shared_mem;
        if (sc_node_needs_dims(n)) {
            *dims_at(g, g->dims_count) = (sc_dims){
                {extent(n->grid_y), extent(n->grid_z), extent(n->block_y), extent(n->block_z)},
                SC_NO_REF};
            r->flags |= SC_REC_DIMS;
            r->y = g->dims_count++;
        }
        break;
    case SC_KIND_MEMCPY:
        r->dir = (uint8_t)n->dir;
        r->u.size = n->size_bytes;
        if (n->dir == SC_DIR_PEER_TO_PEER) {
            r->x = n->src_device;
            r->y = n->dst_device;
        }
        break;
    case SC_KIND_MEMSET:
        r->u.size = n->size_bytes;
        r->value = n->value;
        break;
    case SC_KIND_MEM_ALLOC:
        r->u.size = n->size_bytes;
        break;
    case SC_KIND_EVENT_RECORD:
    case SC_KIND_EVENT_WAIT:
        r->x = n->event;
        break;
    case SC_KIND_CONDITIONAL:
        r->dir = (uint8_t)n->cond_type;
        r->u.k.blocks = n->cond_size;
        r->u.k.threads = n->cond_flags;
        r->x = n->cond_default;
        break;
    default: /* host callback, mem_free, empty, graph: the name is all */
        break;
    }
}

/*
 * The arguments are interned as one blob (nparams, the sizes, the bytes),
 * so the sizes sit 4-byte aligned right after the arena's entry header and
 * launches with equal arguments share it.
 */
int sc_graph_set_args(sc_graph *g, sc_rec *r, const sc_node *n)
{
    if (n->kind != SC_KIND_KERNEL || n->nparams == 0)
        return 0;
    bool has_dims = r->flags & SC_REC_DIMS;
    int rc = has_dims ? 0 : sc_graph_reserve_dims(g);
    if (rc != 0)
        return rc;
    size_t len = 4 + (size_t)n->nparams * 4 + n->args_len;
    char *blob = malloc(len);
    if (!blob)
        return SC_ENOMEM;
    memcpy(blob, &n->nparams, 4);
    memcpy(blob + 4, n->param_sizes, (size_t)n->nparams * 4);
    memcpy(blob + 4 + (size_t)n->nparams * 4, n->args, n->args_len);
    uint32_t ref;
    rc = sc_graph_intern(g, blob, len, &ref);
    free(blob);
    if (rc != 0)
        return rc;
    if (!has_dims) {
        *dims_at(g, g->dims_count) = (sc_dims){{1, 1, 1, 1}, SC_NO_REF};
        r->flags |= SC_REC_DIMS;
        r->y = g->dims_count++;
    }
    dims_at(g, r->y)->args = ref;
    return 0;
}

static void fill_args(const sc_graph *g, uint32_t ref, sc_node *out)
{
    if (ref == SC_NO_REF)
        return;
    uint32_t len;
    const char *p = sc_name_at(g, ref, &len);
    memcpy(&out->nparams, p, 4);
    out->param_sizes = (const uint32_t *)(const void *)(p + 4);
    out->args = (const uint8_t *)p + 4 + (size_t)out->nparams * 4;
    out->args_len = len - 4 - out->nparams * 4;
}

int sc_graph_add_node(sc_graph *g, const sc_node *node, uint32_t *id_out)
{
    if (!g || !node || g->sealed || !sc_node_valid(node))
        return SC_EINVAL;
    if (g->node_count >= SC_MAX_NODE)
        return SC_ELIMIT;
    int rc = sc_graph_reserve(g, 0);
    if (rc == 0 && sc_node_needs_dims(node))
        rc = sc_graph_reserve_dims(g);
    if (rc != 0)
        return rc;
    uint32_t ref;
    rc = sc_graph_intern(g, node->name, node->name_len, &ref);
    if (rc != 0)
        return rc;
    sc_rec *r = sc_rec_at(g, g->node_count);
    sc_graph_rec_from_node(g, r, node);
    if ((rc = sc_graph_set_args(g, r, node)) != 0 ||
        (rc = sc_graph_set_accesses(g, r, g->node_count, node)) != 0)
        return rc;
    r->name = ref;
    r->pred_start = g->pred_count;
    if (id_out)
        *id_out = g->node_count;
    g->node_count++;
    return 0;
}

int sc_graph_add_edge(sc_graph *g, uint32_t src, uint32_t dst)
{
    if (!g || g->sealed)
        return SC_EINVAL;
    if (src >= g->node_count || dst >= g->node_count)
        return SC_ENOTFOUND;
    if (src >= dst)
        return SC_EINVAL;
    if (g->npairs >= SC_MAX_EDGE)
        return SC_ELIMIT;
    if (g->npairs == g->pairs_cap) {
        size_t cap = g->pairs_cap ? g->pairs_cap * 2 : 64;
        uint64_t *p = realloc(g->pairs, cap * sizeof *p);
        if (!p)
            return SC_ENOMEM;
        g->pairs = p;
        g->pairs_cap = cap;
    }
    g->pairs[g->npairs++] = (uint64_t)src << 32 | dst;
    return 0;
}

/* Successor CSR by counting sort on src.  Destinations are visited in
 * ascending order, so every successor list comes out ascending. */
static void build_succ(sc_graph *g, uint32_t *off, uint32_t *succ)
{
    const uint32_t n = g->node_count, e = g->pred_count;
    memset(off, 0, ((size_t)n + 1) * sizeof *off);
    for (uint32_t k = 0; k < e; k++)
        off[*sc_pred_at(g, k) + 1]++;
    for (uint32_t i = 0; i < n; i++)
        off[i + 1] += off[i];
    uint32_t k = 0;
    for (uint32_t dst = 0; dst < n; dst++) {
        uint32_t end = sc_pred_end(g, dst);
        for (; k < end; k++)
            succ[off[*sc_pred_at(g, k)]++] = dst;
    }
    for (uint32_t i = n; i > 0; i--)
        off[i] = off[i - 1];
    off[0] = 0;
}

/* Graphs interleave a handful of streams: a small direct-mapped table of
 * streams already seen spares most map insertions. */
#define RECENT_STREAMS 16

static int count_streams(const sc_graph *g, uint32_t *out)
{
    sc_idmap seen = {0};
    uint32_t recent[RECENT_STREAMS];
    bool valid[RECENT_STREAMS] = {false};
    for (uint32_t i = 0; i < g->node_count; i++) {
        uint32_t s = sc_rec_at(g, i)->stream, h = (s * 0x9E3779B1u) >> 28;
        if (valid[h] && recent[h] == s)
            continue;
        int rc = sc_idmap_put(&seen, s, 0);
        if (rc != 0) {
            sc_idmap_free(&seen);
            return rc;
        }
        recent[h] = s;
        valid[h] = true;
    }
    *out = seen.count;
    sc_idmap_free(&seen);
    return 0;
}

/* Group the hand-added pairs by destination (counting sort), sort and
 * deduplicate each group, and store the groups as predecessor lists. */
static void pairs_to_preds(sc_graph *g, uint32_t *start, uint32_t *src)
{
    const uint32_t n = g->node_count;
    memset(start, 0, ((size_t)n + 1) * sizeof *start);
    for (size_t i = 0; i < g->npairs; i++)
        start[(uint32_t)g->pairs[i] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    for (size_t i = 0; i < g->npairs; i++)
        src[start[(uint32_t)g->pairs[i]]++] = (uint32_t)(g->pairs[i] >> 32);
    for (uint32_t i = n; i > 0; i--)
        start[i] = start[i - 1];
    start[0] = 0;

    uint32_t w = g->pred_count;
    for (uint32_t d = 0; d < n; d++) {
        uint32_t *seg = src + start[d];
        uint32_t len = sc_sort_unique_u32(seg, start[d + 1] - start[d]);
        sc_rec_at(g, d)->pred_start = w;
        for (uint32_t j = 0; j < len; j++)
            *sc_pred_at(g, w++) = seg[j];
    }
    g->pred_count = w;
}

int sc_graph_seal(sc_graph *g)
{
    if (!g)
        return SC_EINVAL;
    if (g->sealed)
        return 0;
    const uint32_t n = g->node_count;
    uint32_t streams;
    int rc = count_streams(g, &streams);
    if (rc != 0)
        return rc;
    /* Everything is allocated up front so that a failure leaves the graph
     * exactly as it was. */
    rc = sc_chunks_reserve(&g->preds, sizeof(uint32_t), SC_PRED_SHIFT,
                           (uint64_t)g->pred_count + g->npairs);
    if (rc != 0)
        return rc;
    size_t e_max = (size_t)g->pred_count + g->npairs;
    uint32_t *off = malloc(((size_t)n + 1) * sizeof *off);
    uint32_t *succ = malloc((e_max ? e_max : 1) * sizeof *succ);
    uint32_t *start = g->npairs ? malloc(((size_t)n + 1) * sizeof *start) : NULL;
    uint32_t *src = g->npairs ? malloc(g->npairs * sizeof *src) : NULL;
    if (!off || !succ || (g->npairs && (!start || !src))) {
        free(off);
        free(succ);
        free(start);
        free(src);
        return SC_ENOMEM;
    }
    if (g->npairs)
        pairs_to_preds(g, start, src);
    free(start);
    free(src);
    if (g->pred_count < e_max && g->pred_count > 0) {
        uint32_t *shrunk = realloc(succ, (size_t)g->pred_count * sizeof *succ);
        if (shrunk)
            succ = shrunk;
    }
    build_succ(g, off, succ);
    g->succ_off = off;
    g->succ = succ;
    g->stream_count = streams;
    free_build_state(g);
    g->sealed = true;
    return 0;
}

int sc_graph_seal_captured(sc_graph *g, uint32_t stream_count)
{
    const uint32_t n = g->node_count, e = g->pred_count;
    uint32_t *off = malloc(((size_t)n + 1) * sizeof *off);
    uint32_t *succ = malloc((e ? (size_t)e : 1) * sizeof *succ);
    if (!off || !succ) {
        free(off);
        free(succ);
        return SC_ENOMEM;
    }
    build_succ(g, off, succ);
    g->succ_off = off;
    g->succ = succ;
    g->stream_count = stream_count;
    g->chained = true;
    free_build_state(g);
    g->sealed = true;
    return 0;
}

/* Strictly ascending pairs: then each source's successors are one run of
 * the input, and each destination's sources arrive in ascending order. */
static int check_pairs(uint32_t n, uint64_t m, const uint32_t *p)
{
    for (uint64_t i = 0; i < m; i++) {
        uint32_t src = p[2 * i], dst = p[2 * i + 1];
        if (src >= n || dst >= n)
            return SC_ENOTFOUND;
        if (src >= dst)
            return SC_EINVAL;
        if (i > 0 && (src < p[2 * i - 2] || (src == p[2 * i - 2] && dst <= p[2 * i - 1])))
            return SC_EINVAL;
    }
    return 0;
}

/* Records, predecessor lists and the successor CSR straight from the
 * arrays; `cur` counts each node's predecessors, then serves as the write
 * cursor into its predecessor list. */
static void fill_skeleton(sc_graph *g, const uint32_t *streams, const uint32_t *p, uint32_t *off,
                          uint32_t *succ, uint32_t *cur, uint32_t empty_name)
{
    const uint32_t n = g->node_count, m = g->pred_count;
    memset(cur, 0, (size_t)n * sizeof *cur);
    memset(off, 0, ((size_t)n + 1) * sizeof *off);
    for (uint32_t i = 0; i < m; i++) {
        cur[p[2 * (size_t)i + 1]]++;
        off[p[2 * (size_t)i] + 1]++;
        succ[i] = p[2 * (size_t)i + 1];
    }
    uint32_t start = 0;
    for (uint32_t i = 0; i < n; i++) {
        *sc_rec_at(g, i) = (sc_rec){
            .stream = streams[i], .name = empty_name, .pred_start = start, .kind = SC_KIND_KERNEL};
        uint32_t count = cur[i];
        cur[i] = start;
        start += count;
        off[i + 1] += off[i];
    }
    for (uint32_t i = 0; i < m; i++)
        *sc_pred_at(g, cur[p[2 * (size_t)i + 1]]++) = p[2 * (size_t)i];
}

static int build_skeleton(sc_graph *g, uint32_t n, const uint32_t *streams, uint32_t m,
                          const uint32_t *p)
{
    uint32_t empty = SC_NO_REF;
    int rc = n ? sc_graph_intern(g, "", 0, &empty) : 0;
    if (rc == 0)
        rc = sc_chunks_reserve(&g->nodes, sizeof(sc_rec), SC_NODE_SHIFT, n);
    if (rc == 0)
        rc = sc_chunks_reserve(&g->preds, sizeof(uint32_t), SC_PRED_SHIFT, m);
    if (rc != 0)
        return rc;
    uint32_t *off = malloc(((size_t)n + 1) * sizeof *off);
    uint32_t *succ = malloc((m ? (size_t)m : 1) * sizeof *succ);
    uint32_t *cur = malloc((n ? (size_t)n : 1) * sizeof *cur);
    if (!off || !succ || !cur) {
        free(off);
        free(succ);
        free(cur);
        return SC_ENOMEM;
    }
    g->node_count = n;
    g->pred_count = m;
    fill_skeleton(g, streams, p, off, succ, cur, empty);
    free(cur);
    g->succ_off = off;
    g->succ = succ;
    if ((rc = count_streams(g, &g->stream_count)) != 0)
        return rc;
    free_build_state(g);
    g->sealed = true;
    return 0;
}

int sc_graph_create_skeleton(uint32_t n, const uint32_t *streams, uint64_t m,
                             const uint32_t *edge_pairs, sc_graph **out)
{
    if (!out || (n && !streams) || (m && !edge_pairs))
        return SC_EINVAL;
    if (n > SC_MAX_NODE || m > SC_MAX_EDGE)
        return SC_ELIMIT;
    int rc = check_pairs(n, m, edge_pairs);
    if (rc != 0)
        return rc;
    sc_graph *g = NULL;
    if ((rc = sc_graph_create(&g)) != 0)
        return rc;
    if ((rc = build_skeleton(g, n, streams, (uint32_t)m, edge_pairs)) != 0) {
        sc_graph_destroy(g);
        return rc;
    }
    *out = g;
    return 0;
}

bool sc_graph_is_sealed(const sc_graph *g)
{
    return g && g->sealed;
}

uint32_t sc_graph_node_count(const sc_graph *g)
{
    return g ? g->node_count : 0;
}

uint64_t sc_graph_edge_count(const sc_graph *g)
{
    if (!g)
        return 0;
    return g->sealed ? g->pred_count : (uint64_t)g->pred_count + g->npairs;
}

void sc_graph_fill_node(const sc_graph *g, const sc_rec *r, sc_node *out)
{
    memset(out, 0, sizeof *out);
    uint32_t len;
    out->kind = (sc_node_kind)r->kind;
    out->stream = r->stream;
    out->name = sc_name_at(g, r->name, &len);
    out->name_len = len;
    switch ((int)r->kind) {
    case SC_KIND_KERNEL:
        out->num_blocks = r->u.k.blocks;
        out->threads_per_block = r->u.k.threads;
        out->shared_mem = r->x;
        out->grid_y = out->grid_z = out->block_y = out->block_z = 1;
        if (r->flags & SC_REC_DIMS) {
            const sc_dims *d = dims_at(g, r->y);
            out->grid_y = d->v[0];
            out->grid_z = d->v[1];
            out->block_y = d->v[2];
            out->block_z = d->v[3];
            fill_args(g, d->args, out);
        }
        break;
    case SC_KIND_MEMCPY:
        out->dir = (sc_memcpy_dir)r->dir;
        out->size_bytes = r->u.size;
        out->src_device = r->x;
        out->dst_device = r->y;
        break;
    case SC_KIND_MEMSET:
        out->size_bytes = r->u.size;
        out->value = r->value;
        break;
    case SC_KIND_MEM_ALLOC:
        out->size_bytes = r->u.size;
        break;
    case SC_KIND_EVENT_RECORD:
    case SC_KIND_EVENT_WAIT:
        out->event = r->x;
        break;
    case SC_KIND_CONDITIONAL:
        out->cond_type = (sc_cond_type)r->dir;
        out->cond_size = r->u.k.blocks;
        out->cond_flags = r->u.k.threads;
        out->cond_default = r->x;
        break;
    default:
        break;
    }
}

int sc_graph_node(const sc_graph *g, uint32_t id, sc_node *out)
{
    if (!g || !out)
        return SC_EINVAL;
    if (id >= g->node_count)
        return SC_ENOTFOUND;
    const sc_rec *r = sc_rec_at(g, id);
    sc_graph_fill_node(g, r, out);
    sc_graph_fill_accesses(g, r, id, out);
    return 0;
}

int sc_graph_edge(const sc_graph *g, uint64_t i, uint32_t *src, uint32_t *dst)
{
    if (!g || !g->sealed || !src || !dst)
        return SC_EINVAL;
    if (i >= g->pred_count)
        return SC_ENOTFOUND;
    /* Largest node whose successor range starts at or before i; off[n] > i
     * bounds the search. */
    const uint32_t *off = g->succ_off;
    uint32_t lo = 0, hi = g->node_count;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (off[mid] <= i)
            lo = mid;
        else
            hi = mid;
    }
    *src = lo;
    *dst = g->succ[i];
    return 0;
}

int sc_graph_successors(const sc_graph *g, uint32_t id, const uint32_t **succ, uint32_t *count)
{
    if (!g || !g->sealed || !succ || !count)
        return SC_EINVAL;
    if (id >= g->node_count)
        return SC_ENOTFOUND;
    *succ = g->succ + g->succ_off[id];
    *count = g->succ_off[id + 1] - g->succ_off[id];
    return 0;
}

int sc_graph_predecessors(const sc_graph *g, uint32_t id, uint32_t *out, uint32_t cap,
                          uint32_t *count)
{
    if (!g || !count || (cap && !out))
        return SC_EINVAL;
    /* A hand-built graph has its predecessor lists from sealing on. */
    if (!g->sealed && g->npairs)
        return SC_EINVAL;
    if (id >= g->node_count)
        return SC_ENOTFOUND;
    uint32_t start = sc_rec_at(g, id)->pred_start, end = sc_pred_end(g, id);
    *count = end - start;
    if (*count > cap)
        return SC_ELIMIT;
    /* Insertion sort: a node has a handful of predecessors. */
    for (uint32_t k = 0; k < *count; k++) {
        uint32_t v = *sc_pred_at(g, start + k), i = k;
        for (; i > 0 && out[i - 1] > v; i--)
            out[i] = out[i - 1];
        out[i] = v;
    }
    return 0;
}

uint32_t sc_graph_stream_count(const sc_graph *g)
{
    return g && g->sealed ? g->stream_count : 0;
}

size_t sc_graph_storage_bytes(const sc_graph *g)
{
    size_t b = sizeof *g;
    b += sc_chunks_bytes(&g->nodes, sizeof(sc_rec), SC_NODE_SHIFT);
    b += sc_chunks_bytes(&g->preds, sizeof(uint32_t), SC_PRED_SHIFT);
    b += sc_chunks_bytes(&g->dims, sizeof(sc_dims), SC_DIMS_SHIFT);
    b += sc_graph_access_bytes(g);
    b += g->arena.bytes + (size_t)g->arena.block_cap * sizeof(char *);
    b += (size_t)g->intern_cap * sizeof(sc_intern_slot);
    b += g->pairs_cap * sizeof(uint64_t);
    if (g->succ_off)
        b += ((size_t)g->node_count + 1) * sizeof(uint32_t);
    if (g->succ)
        b += (size_t)(g->pred_count ? g->pred_count : 1) * sizeof(uint32_t);
    return b;
}

size_t sc_graph_memory(const sc_graph *g)
{
    return g ? sc_graph_storage_bytes(g) + g->index_bytes : 0;
}
