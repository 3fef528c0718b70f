/*
 * sc_diff.h - what changed from one sealed graph to another (graph.diff;
 * docs/analyses.md, "graph.diff").
 *
 * Nodes are matched stream by stream: each stream's nodes, in id order,
 * of a and of b are aligned by their content (kind, stream, name and
 * attributes: sc_node_fingerprint(n, true)) with Myers' O(ND) diff, so
 * one node inserted into a stream leaves every other node matched.  In
 * each stretch between two matched nodes the nodes left over are paired
 * in order, the i-th of a with the i-th of b where their kinds agree, as
 * "changed" with the fields that differ; the rest are removed (a) or added
 * (b).  Edges are compared through the matching.
 *
 * Pure C11, no I/O.  Functions return 0 or a negative SC_E* code.
 */
#ifndef SC_DIFF_H
#define SC_DIFF_H

#include <stdbool.h>
#include <stdint.h>

#include "sc_graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The node fields a change can name, as bits; sc_diff_field_name()
 *  spells each as graph.get's node member. */
enum {
    SC_DIFF_NAME = 1u << 0,
    SC_DIFF_NUM_BLOCKS = 1u << 1,
    SC_DIFF_THREADS_PER_BLOCK = 1u << 2,
    SC_DIFF_SHARED_MEM = 1u << 3,
    SC_DIFF_GRID = 1u << 4,
    SC_DIFF_BLOCK = 1u << 5,
    SC_DIFF_DIR = 1u << 6,
    SC_DIFF_SIZE_BYTES = 1u << 7,
    SC_DIFF_SRC_DEVICE = 1u << 8,
    SC_DIFF_DST_DEVICE = 1u << 9,
    SC_DIFF_VALUE = 1u << 10,
    SC_DIFF_EVENT = 1u << 11,
    SC_DIFF_PARAM_SIZES = 1u << 12,
    SC_DIFF_COND_TYPE = 1u << 13,
    SC_DIFF_COND_SIZE = 1u << 14,
    SC_DIFF_COND_DEFAULT = 1u << 15,
    SC_DIFF_COND_FLAGS = 1u << 16,
};
#define SC_DIFF_FIELD_COUNT 17

/** A node of a paired with a node of b: same kind, `fields` differ. */
typedef struct sc_diff_change {
    uint32_t a, b;
    uint32_t fields; /* SC_DIFF_* bits, never 0 */
} sc_diff_change;

typedef struct sc_graph_diff {
    bool identical;  /* nothing below: every node and edge matched */
    uint32_t *added; /* ids in b, ascending */
    uint32_t nadded;
    uint32_t *removed; /* ids in a, ascending */
    uint32_t nremoved;
    sc_diff_change *changed; /* by a ascending */
    uint32_t nchanged;
    uint32_t *edges_added; /* (src, dst) pairs in b ids, ascending */
    uint64_t nedges_added;
    uint32_t *edges_removed; /* (src, dst) pairs in a ids, ascending */
    uint64_t nedges_removed;
} sc_graph_diff;

/**
 * Diff sealed graphs a and b into *out (free it with sc_graph_diff_free).
 * Time O((n + m) log n) plus, per stream, O(N D) for its N nodes and D
 * differences; a stream whose differences pass an internal bound is
 * matched by content in order instead (still a consistent diff, maybe
 * not the smallest).  A node's argument values and its bodies' contents
 * are not compared (docs/analyses.md).  SC_EINVAL for NULL arguments or
 * unsealed graphs; SC_ENOMEM with *out empty.
 */
int sc_graph_diff_compute(const sc_graph *a, const sc_graph *b, sc_graph_diff *out);
/** Free what sc_graph_diff_compute() allocated; the struct is zeroed.
 *  NULL is a no-op. */
void sc_graph_diff_free(sc_graph_diff *d);
/** The graph.get member a field bit stands for ("name", "num_blocks", ...);
 *  NULL for anything but a single SC_DIFF_* bit. */
const char *sc_diff_field_name(uint32_t bit);
/** The fields that differ between two nodes of the same kind (0: none). */
uint32_t sc_node_diff_fields(const sc_node *a, const sc_node *b);

#ifdef __cplusplus
}
#endif
#endif
