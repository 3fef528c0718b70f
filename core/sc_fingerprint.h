/*
 * sc_fingerprint.h - two 64-bit fingerprints of a sealed graph, the same
 * for the same capture whatever its node numbering (docs/analyses.md,
 * "Fingerprints").
 *
 * structure: each node's kind, the edges, and the structure of the bodies
 *            of child graph and conditional nodes.
 * full:      that, and each node's stream, name and every attribute group
 *            sc_node_attrs() reports, but for argument bytes (device
 *            addresses that change from run to run): a kernel's number of
 *            parameters and their sizes count, their values do not; and the
 *            bodies' full fingerprints.
 *
 * The hash is defined here and in fingerprint.c alone (no library): the
 * same graph gives the same values on every host and build.
 *
 * Pure C11, no I/O.  Functions return 0 or a negative SC_E* code.
 */
#ifndef SC_FINGERPRINT_H
#define SC_FINGERPRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sc_graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sc_fingerprint {
    uint64_t structure;
    uint64_t full;
} sc_fingerprint;

/** A fingerprint's text: 16 lowercase hex digits and a NUL. */
#define SC_FINGERPRINT_HEX 17

/**
 * The bodies of node `node` (a child graph or conditional node), in index
 * order: *bodies points at *count fingerprints the callee keeps valid until
 * the next call.  Return 0, or a negative SC_E* code that ends the
 * computation with it.
 */
typedef int (*sc_fingerprint_bodies_fn)(void *ctx, uint32_t node, const sc_fingerprint **bodies,
                                        uint32_t *count);

/**
 * Fingerprint a sealed graph.  `bodies` (may be NULL: no node has bodies)
 * is asked once for each node of kind graph or conditional.  O(nodes +
 * edges) time, 16 bytes of scratch per node.  SC_EINVAL for NULL g or out,
 * or an unsealed graph; SC_ENOMEM; or the callback's code.
 */
int sc_graph_fingerprint(const sc_graph *g, sc_fingerprint_bodies_fn bodies, void *ctx,
                         sc_fingerprint *out);

/** Write v as 16 lowercase hex digits and a NUL into out. */
void sc_fingerprint_hex(uint64_t v, char out[SC_FINGERPRINT_HEX]);
/** Parse exactly 16 hex digits (either case).  0 or SC_EINVAL. */
int sc_fingerprint_parse(const char *s, size_t len, uint64_t *out);

/**
 * A node's own part of the fingerprints, without its edges and bodies:
 * the structure one (its kind) when `full` is false, else the full one
 * (kind, stream, name, attributes as above).  graph.diff keys nodes by the
 * full one.  Never fails.
 */
uint64_t sc_node_fingerprint(const sc_node *n, bool full);

#ifdef __cplusplus
}
#endif
#endif
