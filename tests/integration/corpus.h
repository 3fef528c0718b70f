/*
 * corpus.h - the conformance corpus (tests/data) as the daemon tests use it:
 * JSON-lines files read into cJSON values, and corpus ops turned into the
 * JSON-RPC requests that perform them.
 */
#ifndef SC_IT_CORPUS_H
#define SC_IT_CORPUS_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "harness.h"

/** Every non-empty line of `path` as JSON; fails the test on error. */
cJSON **sc_corpus_read(const char *path, size_t *count);
void sc_corpus_free(cJSON **items, size_t count);

/**
 * The method that performs corpus `op`, with its parameters (all but
 * `session`) added to `params`; fails the test on an unknown op.
 */
const char *sc_corpus_request(const cJSON *op, cJSON *params);

/**
 * The request line (no "\n", malloc'd) that performs corpus `op` in
 * `session`, under the next request id of `c` (stored in *id, optional).
 */
char *sc_corpus_op_line(sc_it_conn *c, const cJSON *op, int64_t session, int64_t *id);

#endif
