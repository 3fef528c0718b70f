/*
 * sc_races.h - pairs of unordered nodes whose buffer accesses conflict
 * (graph.races, docs/analyses.md).
 *
 * Pure C11, no I/O.  Functions return 0 or a negative SC_E* code.
 */
#ifndef SC_RACES_H
#define SC_RACES_H

#include <stddef.h>
#include <stdint.h>

#include "sc_graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One access of node `node`, as the race finder takes them: a flat
 *  array, in any order, several per node allowed. */
typedef struct sc_node_access {
    uint32_t node;
    sc_access access;
} sc_node_access;

/**
 * One race: nodes a < b, neither reaching the other, and a maximal range
 * [address, address + size) over which a's mode is a_mode and b's mode is
 * b_mode, at least one of them writing.  A node's mode at a byte is the
 * union of the modes of all its accesses covering that byte (read and
 * write make read_write), so a node's overlapping accesses never race
 * with each other and a pair of nodes gives one row per maximal range of
 * constant (a_mode, b_mode).
 */
typedef struct sc_race {
    uint32_t a, b;
    uint64_t address, size;
    sc_access_mode a_mode, b_mode;
} sc_race;

/**
 * Every race of the accesses `acc[0 .. nacc)` over sealed graph g, in
 * ascending (a, b, address) order: the first min(limit, count) into
 * out[0 .. limit) (out may be NULL when limit is 0), their number into
 * *nout, and the number of all races into *count.  Reachability comes
 * from the index when it is built (build it first for large graphs) and
 * from a search otherwise.
 *
 * Cost, for k accesses and P overlapping pairs of access ranges of
 * different nodes with at least one write (read/read overlaps are never
 * looked at): O(k log k + P) time plus P reachability queries plus
 * O(count log limit) to keep the first rows; memory O(k + limit).
 *
 * SC_EINVAL for NULL arguments, an unsealed graph, a size of 0, a range
 * past 2^64 or a mode that is not read, write or read_write;
 * SC_ENOTFOUND for a node id not in g (both before anything is written);
 * SC_ENOMEM (then *nout and *count are 0).
 */
int sc_graph_find_races(const sc_graph *g, const sc_node_access *acc, size_t nacc, size_t limit,
                        sc_race *out, size_t *nout, uint64_t *count);

/**
 * The accesses of every node of sealed graph g, in node order, as one
 * malloc'd array for sc_graph_find_races() (*out NULL when there are
 * none; free() it).  SC_EINVAL for NULL arguments; SC_ENOMEM.
 */
int sc_graph_node_accesses(const sc_graph *g, sc_node_access **out, size_t *nout);

#ifdef __cplusplus
}
#endif
#endif
