/*
 * sc_metrics.h - the counters an operator graphs (docs/operations.md,
 * "Metrics"): requests by method, errors by code, retention deletions,
 * and the figures read from the store, the cache and the daemon when they
 * are rendered, for server.info (JSON) and --metrics-socket (the
 * Prometheus text format).
 *
 * One sc_metrics lives in the daemon.  Every counter but the retention one
 * is bumped on the loop thread only, as plain integers: no lock, no atomic
 * on the hot path.  Retention deletions are counted by whoever deletes (the
 * writer thread): that one is atomic.
 */
#ifndef SC_METRICS_H
#define SC_METRICS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "sc_buf.h"
#include "sc_methods.h"

/* Distinct error codes kept apart; a code past them counts as "other". */
#define SC_METRICS_ERROR_SLOTS 24

typedef struct sc_metrics_error_slot {
    int code; /* 0: free */
    uint64_t count;
} sc_metrics_error_slot;

typedef struct sc_metrics {
    uint64_t requests[SC_M__COUNT]; /* requests run, by method */
    sc_metrics_error_slot errors[SC_METRICS_ERROR_SLOTS];
    uint64_t errors_other;              /* codes past the slots */
    _Atomic uint64_t retention_deleted; /* graphs removed by a retention policy */
} sc_metrics;

/** Zero every counter. */
void sc_metrics_init(sc_metrics *m);
/** One request of method `id` is being run (loop thread). */
void sc_metrics_request(sc_metrics *m, sc_method_id id);
/** One error reply with JSON-RPC `code` was sent (loop thread). */
void sc_metrics_error(sc_metrics *m, int code);
/** `graphs` graphs were removed by a retention policy (any thread). */
void sc_metrics_add_retention(sc_metrics *m, uint64_t graphs);
/** Graphs removed by retention so far (any thread). */
uint64_t sc_metrics_retention(const sc_metrics *m);

struct sc_daemon;

/** Bytes of the database on disk: the SQLite file and its write-ahead log
 *  (0 for a server's database).  Two stat() calls. */
uint64_t sc_metrics_db_bytes(const char *path);

/**
 * server.info's "metrics" member into the object open in `b`: requests
 * by method, errors by code, the commit latency histogram, the writer's
 * queue depth, bytes stored and retention deletions.  `all` false (a
 * caller other than root) writes the same shape with every figure 0: they
 * are the sum of every uid's work.
 */
void sc_metrics_json(const struct sc_daemon *d, bool all, sc_buf *b, bool *first);
/** Every metric in the Prometheus text exposition format (version 0.0.4). */
void sc_metrics_prometheus(const struct sc_daemon *d, sc_buf *b);

/* metrics_http.c */
/** Before the store opens: refuse a path where something other than a
 *  dead daemon's socket lies (a live socket, another file), remove a
 *  stale socket.  0, or -1 with err set. */
int sc_metrics_prepare(const char *path, char *err, size_t errlen);
/** Listen on `path` (mode 0600) for scrapes: each connection's request
 *  head is read up to its blank line and answered with one HTTP response
 *  holding sc_metrics_prometheus(), then closed.  0, or -1 with err set. */
int sc_metrics_listen(struct sc_daemon *d, const char *path, char *err, size_t errlen);
/** Stop listening, close the scrapes in progress and remove the socket
 *  file; a no-op when not listening. */
void sc_metrics_stop(struct sc_daemon *d);

#endif
