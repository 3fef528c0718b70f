/*
 * itgraph.h - stored-graph helpers for the query integration tests.
 *
 * Builds capture-like graphs through a real streamcapd (pipelined requests),
 * reads them back with graph.get and computes their reachability by a
 * breadth-first search of their edges, so that every daemon answer can be
 * checked against an independent oracle.  Built on harness.h; the helpers
 * fail the current cmocka test on any unexpected reply (main thread only).
 */
#ifndef SC_IT_GRAPH_H
#define SC_IT_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ randomness */

/** A seeded generator (splitmix64); one per test, no shared state. */
typedef struct sc_itg_rng {
    uint64_t state;
} sc_itg_rng;

void sc_itg_rng_seed(sc_itg_rng *r, uint64_t seed);
/** Uniform in [0, bound); bound > 0. */
uint32_t sc_itg_rand(sc_itg_rng *r, uint32_t bound);

/* ------------------------------------------------------- pipelined calls */

typedef struct sc_itg_batch sc_itg_batch;

sc_itg_batch *sc_itg_batch_create(void);
void sc_itg_batch_destroy(sc_itg_batch *b);
/** Queue one request (params: printf format of a JSON object, NULL for none). */
void sc_itg_batch_add(sc_itg_batch *b, const char *method, const char *params_fmt, ...)
    __attribute__((format(printf, 3, 4)));
size_t sc_itg_batch_count(const sc_itg_batch *b);
/**
 * Write every queued request on `c` without waiting, then read the replies
 * in order.  Every reply must carry its request's id and a result; the test
 * fails otherwise, showing the request.  Returns the replies (free with
 * sc_itg_replies_free(replies, sc_itg_batch_count(b))).
 */
cJSON **sc_itg_batch_run(sc_itg_batch *b, sc_it_conn *c);
void sc_itg_replies_free(cJSON **replies, size_t n);

/* ----------------------------------------------------- capture a graph */

/** Stream ids the random captures use, in order (the first `streams` of them). */
#define SC_ITG_MAX_STREAMS 8

/**
 * Capture a random graph of `nodes` nodes over `streams` streams in a new
 * session labelled `label` (NULL: no label): all four node kinds, cross-stream
 * event waits (also stale and repeated ones), ended on stream 0.  Returns the
 * stored graph id; the end's node_count must equal `nodes`.
 */
int64_t sc_itg_capture_random(sc_it_conn *c, const char *label, uint32_t nodes, uint32_t streams,
                              uint64_t seed);

/* ------------------------------------------------------ stored graphs */

/** A stored graph as graph.get returned it, with its reachability closure. */
typedef struct sc_itg_graph {
    int64_t id;
    uint32_t n;        /* node count */
    uint32_t *stream;  /* per node */
    size_t edge_count; /* edges are edge_src[i] -> edge_dst[i] */
    uint32_t *edge_src;
    uint32_t *edge_dst;
    size_t words;      /* 64-bit words per closure row */
    uint64_t *closure; /* row a has bit b set when a reaches b (reflexive) */
} sc_itg_graph;

/**
 * graph.get `graph`, check the reply's shape (nodes in id order, edges
 * sorted ascending, distinct, in range) and compute the closure by one
 * breadth-first search per node.
 */
sc_itg_graph *sc_itg_fetch(sc_it_conn *c, int64_t graph);
void sc_itg_graph_free(sc_itg_graph *g);
bool sc_itg_reaches(const sc_itg_graph *g, uint32_t a, uint32_t b);

/**
 * graph.reachable in the pairs form for `count` pairs (pairs[2i] -> pairs[2i+1]);
 * the reply must be an array of `count` booleans.  Returns them (malloc'd).
 */
bool *sc_itg_reach_pairs(sc_it_conn *c, int64_t graph, const uint32_t *pairs, size_t count);

/**
 * sc_itg_reach_pairs, then compare every answer with the closure of `g`;
 * fails the test naming the first wrong pair.  `what` names the check.
 */
void sc_itg_check_pairs(sc_it_conn *c, const sc_itg_graph *g, const uint32_t *pairs, size_t count,
                        const char *what);

/** `count` random pairs of node ids of `g` (malloc'd, 2 * count ids). */
uint32_t *sc_itg_random_pairs(const sc_itg_graph *g, sc_itg_rng *r, size_t count);

#ifdef __cplusplus
}
#endif
#endif
