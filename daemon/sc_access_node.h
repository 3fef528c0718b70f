/*
 * sc_access_node.h - a node's buffer accesses between the wire and sc_node.
 *
 * On the wire `accesses` is an optional array of objects {address, size,
 * mode}: address and size integers (as every integer of the protocol, at
 * most 2^53), size at least 1, address + size within u64, mode "read",
 * "write" or "read_write"; at most SC_ACCESS_MAX per node
 * (proto/PROTOCOL.md, "Buffer accesses").
 */
#ifndef SC_ACCESS_NODE_H
#define SC_ACCESS_NODE_H

#include <stdbool.h>

#include "sc_buf.h"
#include "sc_graph.h"
#include "sc_json.h"
#include "sc_rpc.h"

/**
 * Read the optional `accesses` member of obj into n (a heap copy n owns
 * until sc_access_node_free(); none when absent or null).  0, or -1 with
 * *err a -32602 whose message names the element and member at fault
 * (`accesses[2].size`) and whose data.field is "accesses", or a -32603
 * when out of memory.  n is left without accesses on failure.
 */
int sc_access_node_read(sc_jval obj, sc_node *n, sc_rpc_error *err);
/** Free what sc_access_node_read() gave n. */
void sc_access_node_free(sc_node *n);
/** The member "accesses" of n, in the order given, when it has any. */
void sc_access_node_write(sc_buf *b, bool *first, const sc_node *n);

#endif
