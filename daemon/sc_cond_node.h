/*
 * sc_cond_node.h - a conditional node's fields between the wire and sc_node.
 */
#ifndef SC_COND_NODE_H
#define SC_COND_NODE_H

#include <stdbool.h>

#include "sc_buf.h"
#include "sc_graph.h"
#include "sc_json.h"
#include "sc_rpc.h"

/**
 * The members of conditional node `obj` into n: `type` (if, while or
 * switch) and `size` (its number of bodies: if 1 or 2, while 1, switch 1
 * or more), both required, and the handle's `default_value` and `flags`
 * (u32, default 0; the one flag is 1, assign_default).  0, or -1 with a
 * -32602 in *err naming the field.
 */
int sc_cond_node_read(sc_jval obj, sc_node *n, sc_rpc_error *err);
/** The members type, size, default_value and flags of n when it is a
 *  conditional; nothing for any other kind. */
void sc_cond_node_write(sc_buf *b, bool *first, const sc_node *n);

#endif
