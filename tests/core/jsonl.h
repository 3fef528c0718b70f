/*
 * jsonl.h - the conformance corpora as the core tests of both modes run
 * them: a JSON Lines file read into memory, one string per non-empty line,
 * and the loop that runs every scenario against its expected line.
 */
#ifndef SC_TEST_JSONL_H
#define SC_TEST_JSONL_H

#include <stdbool.h>
#include <stddef.h>

#include "cJSON.h"

typedef struct lines {
    char **line;
    size_t count;
} lines;

/** Read every non-empty line of `path` (line ends stripped); fails the test
 *  when the file cannot be opened. */
void read_lines(const char *path, lines *out);
void free_lines(lines *l);

/* One scenario's run: its name and the first complaint about it. */
typedef struct run {
    const char *name;
    char why[1024];
    bool failed;
} run;

/** Record the first complaint of a run (later ones are ignored). */
void failf(run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Run one scenario and compare it with its expected line: true when all
 * matched, else false with the complaint recorded in r. */
typedef bool (*corpus_scenario_fn)(run *r, const cJSON *scenario, const cJSON *expected);

/**
 * Run every scenario of the file `scenarios` through `one` against the
 * line of the same name at the same place in `expected`, print a FAIL line
 * per failed scenario and "LABEL: N/M scenarios passed", and fail the test
 * unless all passed.  want: the corpus's number of scenarios, asserted; 0
 * asserts only that there is one.
 */
void run_corpus(const char *label, const char *scenarios, const char *expected, size_t want,
                corpus_scenario_fn one);

#endif
