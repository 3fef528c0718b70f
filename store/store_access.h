/*
 * store_access.h - a node's buffer accesses as the stores keep them: the
 * JSON text [[address,size,"mode"],...] (schema/013_accesses.sql), which
 * the SQLite rows hold and the PostgreSQL reader builds from its table.
 */
#ifndef STORE_ACCESS_H
#define STORE_ACCESS_H

#include <stdbool.h>
#include <stddef.h>

#include "sc_graph.h"

/** Growable room for the accesses of one node being read. */
typedef struct store_access_buf {
    sc_access *v;
    size_t cap;
} store_access_buf;

/** The most bytes store_accesses_text() writes for n. */
size_t store_accesses_text_room(const sc_node *n);
/** n's accesses as that JSON text at out (no NUL); returns its length, 0
 *  for a node without any. */
size_t store_accesses_text(const sc_node *n, char *out);

/**
 * Parse text[0..len) into n->accesses (through *b, which the caller frees
 * with free(b->v)); none for NULL text, SQL's or JSON's null, or [].
 * Returns 0, -1 when the text is not that form (or a value out of range),
 * or -2 when out of memory.
 */
int store_accesses_from_text(const char *text, size_t len, store_access_buf *b, sc_node *n);

#endif
