/*
 * sc_kargs_node.h - kernel arguments between the wire and sc_node.
 */
#ifndef SC_KARGS_NODE_H
#define SC_KARGS_NODE_H

#include "sc_buf.h"
#include "sc_graph.h"
#include "sc_kargs.h"

/**
 * Give kernel node n the arguments of validated k (none when k->hex is
 * NULL): decoded into storage n owns until sc_kargs_node_free().  0 or
 * SC_ENOMEM (n then carries none).
 */
int sc_kargs_node(const sc_kargs *k, sc_node *n);
/** Free what sc_kargs_node() and sc_access_node_read() gave n, so one
 *  call frees what a node read from the wire owns; safe on a node they
 *  never touched only when n->args and n->accesses are NULL. */
void sc_kargs_node_free(sc_node *n);
/** The members "args" and "param_sizes" of n, when it carries arguments. */
void sc_kargs_write(sc_buf *b, bool *first, const sc_node *n);

#endif
