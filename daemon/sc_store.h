/*
 * sc_store.h - the daemon's SQLite storage.
 *
 * Writes: one writer thread with its own connection drains a job queue;
 * every job that is queued when the thread wakes shares one transaction
 * (group commit).  A job's completion callback runs on the event loop
 * thread (through a uv_async_t) only after COMMIT returned OK, or with an
 * error when the transaction failed (then nothing of that job is stored).
 *
 * Reads: uv_queue_work jobs on libuv's thread pool, each borrowing a
 * read-only connection from a small pool; callbacks run on the loop.
 *
 * Times are Unix milliseconds in the API and ISO 8601 UTC text
 * ("2026-11-29T19:44:21.123Z") in the database.  Schema: schema/*.sql.
 */
#ifndef SC_STORE_H
#define SC_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "sc_graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sc_store sc_store;

typedef struct sc_store_config {
    const char *path;       /* database file */
    bool sync_full;         /* synchronous=FULL (true) or NORMAL */
    int busy_timeout_ms;    /* 0 means the default, 5000 */
    int64_t max_page_count; /* > 0: PRAGMA max_page_count (tests only) */
} sc_store_config;

/* Result codes of store calls and completions. */
enum sc_store_rc {
    SC_STORE_OK = 0,
    SC_STORE_ENOTFOUND = -1, /* no such graph / row */
    SC_STORE_EIO = -2,       /* SQLite failed (full, I/O, busy...): see errmsg */
    SC_STORE_ECLOSED = -3,   /* store is closing; job not queued */
    SC_STORE_ENOMEM = -4,
};

typedef struct sc_store_result {
    int rc;             /* enum sc_store_rc */
    int64_t id;         /* session id (log_open) or graph id (commit_graph) */
    const char *errmsg; /* SQLite's message on EIO, else NULL; valid during the callback */
} sc_store_result;

typedef void (*sc_store_done_fn)(void *arg, const sc_store_result *res);

/**
 * Open (creating if needed) the database, apply pending migrations
 * (PRAGMA user_version), set WAL and the sync mode, mark every log row
 * still `open` as `lost` (its daemon died), and start the writer thread.
 * Returns 0 or SC_STORE_EIO with a message in errbuf.
 */
int sc_store_open(uv_loop_t *loop, const sc_store_config *cfg, sc_store **out, char *errbuf,
                  size_t errlen);
/**
 * Finish every queued job (their callbacks run before this returns, on the
 * calling thread), stop the writer thread, wait for running read jobs'
 * connections to come back, close all connections and free the store.
 * Call from the loop thread.  NULL is a no-op.
 */
void sc_store_close(sc_store *st);

/** Log row for a new session, outcome `open`.  res->id is the session id. */
int sc_store_log_open(sc_store *st, uint32_t uid, int64_t pid, const char *label,
                      size_t label_len, int64_t opened_ms, sc_store_done_fn done, void *arg);
/**
 * Finish a session's log row: outcome is "failed", "closed", "abandoned" or
 * "shutdown"; node_count and ended time are recorded.
 */
int sc_store_log_end(sc_store *st, int64_t session, const char *outcome, uint32_t node_count,
                     int64_t ended_ms, sc_store_done_fn done, void *arg);
/**
 * Store a sealed graph and mark the session `completed` with its graph id,
 * in one transaction.  `g` and `label` must stay valid until `done` runs.
 * res->id is the new graph id.
 */
int sc_store_commit_graph(sc_store *st, int64_t session, const sc_graph *g, uint32_t uid,
                          int64_t pid, const char *label, size_t label_len, int64_t created_ms,
                          sc_store_done_fn done, void *arg);

/** What graph.get / graph.list report about a stored graph. */
typedef struct sc_graph_meta {
    int64_t graph;
    int64_t session;
    char *label; /* NUL-terminated, owned */
    size_t label_len;
    int64_t created_ms;
    uint32_t owner_uid;
    int64_t owner_pid;
    uint32_t node_count;
    uint64_t edge_count;
    uint32_t stream_count;
} sc_graph_meta;

typedef struct sc_stored_graph {
    sc_graph_meta meta;
    sc_graph *graph; /* sealed, index not built */
} sc_stored_graph;

void sc_stored_graph_free(sc_stored_graph *sg);

/**
 * Load a whole graph on the thread pool.  The callback owns *sg (free it
 * with sc_stored_graph_free); rc is 0, SC_STORE_ENOTFOUND or SC_STORE_EIO.
 */
typedef void (*sc_store_graph_fn)(void *arg, int rc, sc_stored_graph *sg, const char *errmsg);
int sc_store_load_graph(sc_store *st, int64_t graph, sc_store_graph_fn done, void *arg);

/** The file the store was opened on. */
const char *sc_store_path(const sc_store *st);
/** Number of stored graphs (read on the calling thread; cheap). */
int sc_store_graph_count(sc_store *st, int64_t *out);

#ifdef __cplusplus
}
#endif
#endif
