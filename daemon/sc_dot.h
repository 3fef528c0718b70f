/*
 * sc_dot.h - Graphviz DOT export of a stored graph.
 *
 * Labels follow cudaGraphDebugDotPrint: node id, kind, name, then the
 * kind's parameters (kernel <<<blocks, threads, shared>>>, memcpy direction
 * and size, memset size and value, host callback label).  One cluster per
 * stream, then every edge.
 */
#ifndef SC_DOT_H
#define SC_DOT_H

#include "sc_buf.h"
#include "sc_graph.h"

/** Append the DOT text of `g` (named `graph_<id>`) to `out`.  0 or -1 (no memory). */
int sc_dot_render(const sc_graph *g, int64_t graph_id, sc_buf *out);

/** Called with the text so far; it consumes `out` (resets it) to keep it small. */
typedef void (*sc_dot_flush_fn)(void *ctx, sc_buf *out);

/**
 * The same text in pieces: after a line that leaves `out` holding `chunk`
 * bytes or more, and once at the end with the rest, `flush` gets `out`.
 * The concatenated pieces are exactly what sc_dot_render appends.  0 or -1
 * (no memory in `out`; what `flush` writes elsewhere it checks itself).
 */
int sc_dot_render_chunks(const sc_graph *g, int64_t graph_id, sc_buf *out, size_t chunk,
                         sc_dot_flush_fn flush, void *ctx);

#endif
