/*
 * store_pg.h - what the PostgreSQL backend (store_pg*.c, the
 * sc_store_pg_backend of store_backend.h) offers beyond the interface, for
 * its tests and bench/pg_persist.  Built only with SC_HAVE_POSTGRESQL.
 *
 * Nodes and edges go to the server with COPY, in its text format unless
 * STREAMCAP_PG_COPY=binary is set in the daemon's environment (the two
 * are measured in bench/RESULTS.md).
 */
#ifndef SC_STORE_PG_H
#define SC_STORE_PG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sc_graph.h"
#include "store_backend.h"

/** Send nodes and edges as binary COPY (true) or text COPY (false). */
void store_pg_set_copy_binary(sc_store_be *be, bool binary);

/**
 * The rows COPY sends for the nodes (or, with `edges`, the edges) of `g`
 * stored as graph `gid`, in COPY's text format, in a malloc'ed buffer:
 * what bench/pg_persist hands psql's \copy as its baseline.  0 or
 * SC_STORE_ENOMEM.
 */
int store_pg_copy_text(const sc_graph *g, int64_t gid, bool edges, char **out, size_t *len);

#endif
