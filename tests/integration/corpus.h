/*
 * corpus.h - the conformance corpus (tests/data) as the daemon tests use it:
 * JSON-lines files read into cJSON values, corpus ops turned into the
 * JSON-RPC requests that perform them, and the loop that replays a corpus
 * through a daemon (both modes' tests share it).
 */
#ifndef SC_IT_CORPUS_H
#define SC_IT_CORPUS_H

#include <stdbool.h>
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

/* What was wrong with one scenario's replay: the first complaint. */
typedef struct sc_corpus_mismatch {
    char text[4096];
} sc_corpus_mismatch;

/** Record a complaint in m unless it holds one (later ones are usually
 *  echoes of the first). */
void sc_corpus_say(sc_corpus_mismatch *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Replay one scenario on c and compare it with its expected line: true when
 * all matched, else false with the complaint in m. */
typedef bool (*sc_corpus_scenario_fn)(sc_it_conn *c, const cJSON *scenario, const cJSON *expected,
                                      sc_corpus_mismatch *m);

/**
 * Replay every scenario of the file `scenarios` through `one` on one
 * connection to a fresh daemon, against the line of the same name at the
 * same place in `expected`; print a FAIL line per failed scenario and
 * "LABEL: N/M scenarios passed", and fail the test unless all passed.
 * want: the corpus's number of scenarios, asserted; 0 asserts only that
 * there is one.
 */
void sc_corpus_replay(const char *label, const char *scenarios, const char *expected, size_t want,
                      sc_corpus_scenario_fn one);

#endif
