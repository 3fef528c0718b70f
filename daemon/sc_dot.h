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

#endif
