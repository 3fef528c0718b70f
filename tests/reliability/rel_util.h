/*
 * rel_util.h - helpers shared by the reliability tests (tests/reliability).
 *
 * Built on the integration harness (tests/integration/harness.h).  Nothing
 * here keeps global state.  Functions without "must" in their name never
 * touch cmocka and are safe from any thread or forked child.
 */
#ifndef SC_REL_UTIL_H
#define SC_REL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "harness.h"

/* Sanitizer builds allocate far more per object (redzones, shadow memory,
 * a quarantine of freed blocks): memory bounds are multiplied by this. */
#ifdef SC_REL_SANITIZED
#define SC_REL_MEM_FACTOR   4
#define SC_REL_IS_SANITIZED 1
#else
#define SC_REL_MEM_FACTOR   1
#define SC_REL_IS_SANITIZED 0
#endif

/**
 * cmocka fixture: daemons started through sc_rel_must_start() are killed
 * and their directories removed in the teardown, also when the test
 * failed half-way.  Use with cmocka_unit_test_setup_teardown().
 */
#define SC_REL_MAX_DAEMONS 4
typedef struct sc_rel_fixture {
    sc_it_daemon *daemons[SC_REL_MAX_DAEMONS];
    void *arg; /* the test's own prestate, if any */
} sc_rel_fixture;

int sc_rel_setup(void **state);
int sc_rel_teardown(void **state);
/** A cmocka test entry run inside that fixture. */
#define SC_REL_TEST(fn) cmocka_unit_test_setup_teardown(fn, sc_rel_setup, sc_rel_teardown)
/** sc_it_must_start, owned by the fixture in *state. */
sc_it_daemon *sc_rel_must_start(void **state, const char *const *extra);
/** Hand a daemon made another way to the fixture. */
void sc_rel_adopt(void **state, sc_it_daemon *d);

/** Resident set size of `pid` in KiB (VmRSS), or -1 when unreadable. */
long sc_rel_rss_kib(pid_t pid);

/** Integer from the environment variable `name`, or `fallback` when unset or bad. */
long sc_rel_env_long(const char *name, long fallback);

/** CLOCK_MONOTONIC in milliseconds, with the fraction (latency bounds). */
double sc_rel_now_ms(void);

/** A growing text, for request lines too big to format at once. */
typedef struct sc_rel_text {
    char *s; /* NUL-terminated once anything was put; free() it */
    size_t len, cap;
} sc_rel_text;

/** Append printf-style to t; fails the test when memory runs out. */
void sc_rel_must_put(sc_rel_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * A bystander's call: `method` with `params` (JSON object text, or NULL
 * for none), timed; *worst_ms is raised to its latency when that is more.
 * true when a result came back (not an error or a transport failure).
 * Never touches cmocka: safe from a thread of the test.
 */
bool sc_rel_timed_call(sc_it_conn *c, const char *method, const char *params, double *worst_ms);

/** A small xorshift PRNG: deterministic for a seed, independent per state. */
typedef struct sc_rel_rng {
    uint64_t s;
} sc_rel_rng;

void sc_rel_rng_seed(sc_rel_rng *r, uint64_t seed);
uint64_t sc_rel_rng_next(sc_rel_rng *r);
/** Uniform in [0, n); n > 0. */
uint32_t sc_rel_rng_below(sc_rel_rng *r, uint32_t n);

/**
 * Check a database file with the sqlite3 library on a read-only connection:
 * PRAGMA integrity_check is "ok"; every graphs row's node_count and
 * edge_count equal the rows in nodes and edges; no node or edge belongs to
 * a graph without a row (a partial graph); every `completed` log row names
 * a graph that exists unless it was deleted.  Returns 0, or -1 with a
 * description of the first problem in `why`.  *graphs (optional) gets the
 * number of graph rows.
 */
int sc_rel_check_db(const char *db_path, int64_t *graphs, char *why, size_t whylen);

/**
 * Counts stored for one graph, read directly from the database:
 * 0, -ENOENT (no row) or -EIO (message in why).
 */
int sc_rel_db_graph_counts(const char *db_path, int64_t graph, int64_t *nodes, int64_t *edges,
                           char *why, size_t whylen);

/**
 * Send `n` request lines (each without '\n') in one write and read their
 * `n` replies in order.  replies[i] is the parsed reply or NULL.  Returns
 * 0 or the first transport error (replies read so far are kept).
 */
int sc_rel_pipeline(sc_it_conn *c, char **lines, size_t n, cJSON **replies);

/** result.<name> of a success reply as an exact integer; false otherwise. */
bool sc_rel_result_int(const cJSON *reply, const char *name, int64_t *out);
/** error.code of an error reply; false when `reply` is not an error. */
bool sc_rel_error_code(const cJSON *reply, int64_t *code);
/** error.data.kind of an error reply, or NULL. */
const char *sc_rel_error_kind(const cJSON *reply);

/**
 * Capture one graph of `kernels` kernels alternating over streams 0 and 1,
 * joined with an event every 16 kernels, and end it.  Returns the graph id
 * (and its counts, optional).  Main test thread only.
 */
int64_t sc_rel_must_graph(sc_it_conn *c, const char *label, int kernels, int64_t *nodes,
                          int64_t *edges);

/** Number of graphs graph.list reports (limit 10000).  Main test thread only. */
int64_t sc_rel_must_count_graphs(sc_it_conn *c);

#endif
