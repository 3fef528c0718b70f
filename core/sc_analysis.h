/*
 * sc_analysis.h - figures computed from a sealed graph (graph.stats).
 *
 * Pure C11, no I/O.  Functions return 0 or a negative SC_E* code.
 */
#ifndef SC_ANALYSIS_H
#define SC_ANALYSIS_H

#include <stdint.h>

#include "sc_graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Slots of sc_graph_stats.by_kind: indexed by the kind's value, which is
 *  below 32 for every kind, the cuda-only ones included. */
#define SC_STATS_KINDS 32

/** The figures of graph.stats (docs/analyses.md). */
typedef struct sc_graph_stats {
    uint32_t nodes;
    uint64_t edges;
    uint32_t by_kind[SC_STATS_KINDS]; /* nodes of each kind, by kind value */
    uint32_t streams;                 /* distinct streams owning a node */
    uint32_t roots;                   /* nodes with no predecessor */
    uint32_t leaves;                  /* nodes with no successor */
    uint64_t redundant_edges;         /* u->v where v is reachable from u without it */
    uint32_t critical_path;           /* nodes on a longest path; 0 for no nodes */
    uint32_t width; /* the largest level of the longest-path layering (a lower bound) */
} sc_graph_stats;

/**
 * Compute every figure of *out for a sealed graph.  Critical path, roots,
 * leaves and width take O(nodes + edges) time and 8 bytes per node.
 * Redundant edges ask, for each edge u->v, whether u reaches another
 * predecessor of v, or another successor of u reaches v, whichever list is
 * shorter: O(sum over edges of min(outdeg u, indeg v)) reachability
 * queries, one comparison each on indexed streams (build the index first
 * for large graphs), and no memory beyond one predecessor list.
 * SC_EINVAL for NULL arguments or an unsealed graph; SC_ENOMEM.
 */
int sc_graph_compute_stats(const sc_graph *g, sc_graph_stats *out);

#ifdef __cplusplus
}
#endif
#endif
