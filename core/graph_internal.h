/*
 * graph_internal.h - storage shared by graph.c, capture.c and reach.c.
 *
 * A capture session records straight into an unsealed sc_graph, and
 * sc_capture_end() seals that same object, so nodes are never copied.
 *
 * Layout:
 *   - nodes: 32-byte records in fixed-size chunks.  Chunk 0 starts small and
 *     grows to full size so that a tiny session stays tiny; after that
 *     records never move.
 *   - preds: the source ids of all edges, grouped by destination in id order
 *     (a capture only ever adds edges into the node it is creating).  Node
 *     i's sources are preds[rec(i).pred_start .. rec(i+1).pred_start).
 *   - names: interned in an arena of stable blocks; a node holds a 32-bit
 *     reference (block index << SC_ARENA_SHIFT | offset).
 *   - after sealing: successors in CSR form (succ_off, succ).
 */
#ifndef SC_GRAPH_INTERNAL_H
#define SC_GRAPH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sc_graph.h"

#define SC_NO_NODE  UINT32_MAX
#define SC_NO_REF   UINT32_MAX
#define SC_MAX_NODE (UINT32_MAX - 1) /* node count limit; UINT32_MAX stays a sentinel */
#define SC_MAX_EDGE UINT32_MAX       /* preds and succ offsets are 32-bit */

#define SC_NODE_SHIFT      11 /* 2048 records = 64 KiB per chunk */
#define SC_PRED_SHIFT      14 /* 16384 ids = 64 KiB per chunk */
#define SC_FIRST_CHUNK     64 /* initial element count of chunk 0 */
#define SC_ARENA_SHIFT     20 /* offset bits of a name reference */
#define SC_ARENA_MAX_BLOCK (1u << (32 - SC_ARENA_SHIFT))

/* Field use by kind:
 *   kernel:  u.k.blocks, u.k.threads, x = shared_mem; with SC_REC_DIMS in
 *            flags, y indexes the graph's dims (the y and z extents)
 *   memcpy:  u.size, dir, x = src_device, y = dst_device (peer to peer)
 *   memset:  u.size, value
 *   mem_alloc: u.size
 *   event_record, event_wait: x = event
 *   conditional: dir = type, u.k.blocks = size, u.k.threads = flags,
 *                x = default value
 *   host callback, mem_free, empty: nothing beyond the name (the label). */
typedef struct sc_rec {
    uint32_t stream;
    uint32_t name;
    uint32_t pred_start;
    uint8_t kind;
    uint8_t dir;
    uint8_t value;
    uint8_t flags; /* SC_REC_* */
    union {
        uint64_t size;
        struct {
            uint32_t blocks;
            uint32_t threads;
        } k;
    } u;
    uint32_t x;
    uint32_t y;
} sc_rec;

_Static_assert(sizeof(sc_rec) == 32, "node record must stay 32 bytes");

#define SC_REC_DIMS     0x01u /* kernel with a 3-D shape: y indexes dims */
#define SC_REC_RELEASED 0x02u /* cuda capture: released by a dependency update */
#define SC_REC_BY_HAND  0x04u /* cuda capture: added straight to the graph */
#define SC_REC_ACCESSES 0x08u /* carries buffer accesses (graph_access.c) */

/* The y and z extents of a 3-D kernel launch (grid y, z, block y, z) and
 * the kernel's arguments; only launches that are not 1-D or carry
 * arguments keep one, so the common record stays 32 bytes. */
typedef struct sc_dims {
    uint32_t v[4];
    uint32_t args; /* SC_NO_REF, or the interned argument blob (graph.c) */
} sc_dims;
#define SC_DIMS_SHIFT 12

/* One node's buffer accesses: a heap copy of its own. */
typedef struct sc_access_list {
    sc_access *v;
    uint32_t n;
} sc_access_list;

typedef struct sc_chunks {
    void **chunk;
    uint32_t nchunk;
    uint32_t chunk_cap; /* slots in the pointer table */
    uint32_t first_cap; /* elements in chunk 0 (full size once a second chunk exists) */
} sc_chunks;

typedef struct sc_arena {
    char **block; /* NULL at indices covered by a large name's block */
    uint32_t nblock;
    uint32_t block_cap;
    uint32_t cur;      /* block that receives small names, nblock if none */
    uint32_t cur_used; /* bytes used in it */
    uint32_t cur_size; /* its size */
    size_t bytes;      /* heap bytes held by blocks */
} sc_arena;

typedef struct sc_intern_slot {
    uint32_t ref;
    uint32_t hash;
} sc_intern_slot;

/* u32 -> u32 open-addressing map; values must not be UINT32_MAX. */
typedef struct sc_idmap {
    uint64_t *slot; /* key << 32 | value, UINT64_MAX when empty */
    uint32_t cap;   /* power of two, or 0 */
    uint32_t count;
} sc_idmap;

struct sc_graph {
    sc_chunks nodes;
    uint32_t node_count;
    sc_chunks preds;
    uint32_t pred_count;
    sc_arena arena;
    sc_chunks dims; /* sc_dims of 3-D kernels */
    uint32_t dims_count;
    sc_idmap acc_of;     /* node id -> index in acc, for SC_REC_ACCESSES nodes */
    sc_access_list *acc; /* graph_access.c */
    uint32_t acc_count;
    uint32_t acc_cap;
    uint64_t acc_total;     /* accesses of all nodes, at most SC_ACCESS_GRAPH_MAX */
    sc_intern_slot *intern; /* dropped when sealing */
    uint32_t intern_cap;
    uint32_t intern_count;
    uint64_t *pairs; /* hand-added edges (src << 32 | dst) until sealed */
    size_t npairs;
    size_t pairs_cap;
    bool sealed;
    bool chained; /* each stream's nodes form a path (captured graphs) */
    uint32_t stream_count;
    uint32_t *succ_off; /* node_count + 1 entries */
    uint32_t *succ;
    /* reachability index (reach.c) */
    bool indexed;
    uint32_t index_width; /* row stride: indexed chains rounded up to a multiple of 4 */
    uint32_t *low;        /* node_count * index_width lowest reachable positions */
    uint32_t *where;      /* 2 per node: chain slot or SC_NO_NODE, position or unindexed rank */
    size_t index_bytes;
};

static inline sc_rec *sc_rec_at(const sc_graph *g, uint32_t id)
{
    return (sc_rec *)g->nodes.chunk[id >> SC_NODE_SHIFT] + (id & ((1u << SC_NODE_SHIFT) - 1));
}

static inline uint32_t *sc_pred_at(const sc_graph *g, uint32_t i)
{
    return (uint32_t *)g->preds.chunk[i >> SC_PRED_SHIFT] + (i & ((1u << SC_PRED_SHIFT) - 1));
}

/* One past the last predecessor index of node id. */
static inline uint32_t sc_pred_end(const sc_graph *g, uint32_t id)
{
    return id + 1 < g->node_count ? sc_rec_at(g, id + 1)->pred_start : g->pred_count;
}

static inline const char *sc_name_at(const sc_graph *g, uint32_t ref, uint32_t *len)
{
    const char *p = g->arena.block[ref >> SC_ARENA_SHIFT] + (ref & ((1u << SC_ARENA_SHIFT) - 1));
    uint32_t n;
    memcpy(&n, p, sizeof n);
    *len = n;
    return p + 8;
}

static inline uint64_t sc_chunks_capacity(const sc_chunks *c, unsigned shift)
{
    if (c->nchunk == 0)
        return 0;
    if (c->nchunk == 1)
        return c->first_cap;
    return (uint64_t)c->nchunk << shift;
}

/* Make room for `need` elements in total.  On failure capacity may have
 * grown but nothing else changed. */
int sc_chunks_reserve(sc_chunks *c, size_t elem, unsigned shift, uint64_t need);
void sc_chunks_free(sc_chunks *c);
size_t sc_chunks_bytes(const sc_chunks *c, size_t elem, unsigned shift);

/* Sort v[0..n) ascending and drop duplicates; returns the new length. */
uint32_t sc_sort_unique_u32(uint32_t *v, uint32_t n);

/* Intern name bytes into the graph's arena; *ref identifies them. */
int sc_graph_intern(sc_graph *g, const char *s, size_t len, uint32_t *ref);
/* Make room for one more node and `edges` more predecessors. */
int sc_graph_reserve(sc_graph *g, uint32_t edges);
/* Seal a graph built by a capture session (preds already deduplicated). */
int sc_graph_seal_captured(sc_graph *g, uint32_t stream_count);
/* Check a node's kind, direction and name (any kind, cuda-only included). */
bool sc_node_valid(const sc_node *n);
/* Its accesses: at most SC_ACCESS_MAX, each sc_access_valid(). */
bool sc_node_accesses_valid(const sc_node *n);
/* Does the node need an sc_dims entry (a kernel with y or z extents > 1)? */
bool sc_node_needs_dims(const sc_node *n);
/* Room for one more sc_dims entry; nothing else changes. */
int sc_graph_reserve_dims(sc_graph *g);
/* Fill a record's kind and attributes (not name, stream, pred_start) from
 * a valid node; takes a dims entry reserved by sc_graph_reserve_dims()
 * when sc_node_needs_dims(). */
void sc_graph_rec_from_node(sc_graph *g, sc_rec *r, const sc_node *n);
/* Give kernel record r (not yet counted) n's arguments, if it has any:
 * interns them and takes a dims entry when r has none.  0, or SC_ENOMEM /
 * SC_ELIMIT with the graph's counts unchanged. */
int sc_graph_set_args(sc_graph *g, sc_rec *r, const sc_node *n);
/* Give record r, about to become node `id`, n's accesses (if any): copies
 * them and sets SC_REC_ACCESSES.  0, or SC_ENOMEM / SC_ELIMIT (past
 * SC_ACCESS_GRAPH_MAX in the graph) with nothing kept.  Callers check sc_node_accesses_valid()
 * first. */
int sc_graph_set_accesses(sc_graph *g, sc_rec *r, uint32_t id, const sc_node *n);
/* Point out's accesses at node id's copy when record r has any. */
void sc_graph_fill_accesses(const sc_graph *g, const sc_rec *r, uint32_t id, sc_node *out);
/* Drop every node's accesses (sc_graph_destroy). */
void sc_graph_free_accesses(sc_graph *g);
/* Heap bytes the accesses hold. */
size_t sc_graph_access_bytes(const sc_graph *g);
/* Fill a public node view from a record. */
void sc_graph_fill_node(const sc_graph *g, const sc_rec *r, sc_node *out);
size_t sc_graph_storage_bytes(const sc_graph *g);

int sc_idmap_put(sc_idmap *m, uint32_t key, uint32_t value);
uint32_t sc_idmap_get(const sc_idmap *m, uint32_t key);
void sc_idmap_free(sc_idmap *m);
static inline size_t sc_idmap_bytes(const sc_idmap *m)
{
    return (size_t)m->cap * sizeof(uint64_t);
}

/* Drop the index (reach.c); used by sc_graph_destroy. */
void sc_index_free(sc_graph *g);

#endif
