/*
 * sc_store.h - the daemon's storage, on one of the backends of
 * store_backend.h (SQLite, or PostgreSQL when built with it).
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
 * Threads: every function here is called from the loop thread, and
 * sc_store_close() never from inside a store callback.  A call that returns 0
 * runs its callback exactly once; one that returns an error never does.
 * The store keeps the loop alive (its uv_async_t is referenced) exactly
 * while write jobs are outstanding, so uv_run(loop, UV_RUN_DEFAULT) returns
 * once every queued write has completed and no other handle is active.
 *
 * Times are Unix milliseconds in the API and ISO 8601 UTC text
 * ("2026-11-29T19:44:21.123Z") in the database.  Schema: schema/NNN_name.sql.
 */
#ifndef SC_STORE_H
#define SC_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "sc_capture.h"
#include "sc_fingerprint.h"
#include "sc_graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sc_store sc_store;

typedef struct sc_store_config {
    const char *path;       /* --db: an SQLite file, or a PostgreSQL URI */
    const char *host;       /* stored on every row written; NULL means "" */
    bool sync_full;         /* synchronous=FULL (true) or NORMAL */
    int busy_timeout_ms;    /* 0 means the default, 5000 */
    int64_t max_page_count; /* > 0: SQLite's PRAGMA max_page_count (tests only) */
    /* PostgreSQL: how long a write waits for a broken connection to come
     * back (to begin, or to learn a COMMIT's outcome); 0 means 10000 */
    int reconnect_ms;
    /* Optional: told (from any thread, one line, no newline) what the
     * store wants an operator to know, e.g. that a full disk keeps it from
     * setting space aside.  The store keeps the pointers for its life. */
    void (*warn)(void *ctx, const char *msg);
    void *warn_ctx;
} sc_store_config;

/*
 * Result codes of store calls and completions: 0 or an SC_STORE_E* code,
 * never a core SC_E* code nor a database engine's own result code.
 *
 * Error spaces: the store's codes lie in [SC_STORE_E__MIN, SC_STORE_E__MAX]
 * = [-399, -300], disjoint from the core's [-299, -200] (sc_errors.h has
 * the whole table), from negated errno values and from the JSON-RPC codes.
 * The store builds on the core and turns core results into its own codes
 * (an SC_ENOMEM from the graph model becomes SC_STORE_ENOMEM); the disjoint
 * ranges make a core code that slipped through unconverted, or a store
 * code taken for a core one, recognisable instead of meaning something
 * else (before, -1 was both SC_STORE_ENOTFOUND and SC_ENOMEM).  store.c
 * checks the ranges at compile time; nothing may depend on the values.
 */
#define SC_STORE_E__MIN (-399)
#define SC_STORE_E__MAX (-300)

enum sc_store_rc {
    SC_STORE_OK = 0,
    SC_STORE_ENOTFOUND = -301, /* no such graph / row */
    SC_STORE_EIO = -302,       /* the database failed (full, I/O, busy...): see errmsg */
    SC_STORE_ECLOSED = -303,   /* store is closing; job not queued */
    SC_STORE_ENOMEM = -304,    /* out of memory, the daemon's or the engine's: never EIO */
    SC_STORE_EINVAL = -305,    /* bad argument: NULL, unsealed graph, unknown outcome */
    SC_STORE_EBUSY = -306,     /* not now: queued stream parts hold their most memory */
    SC_STORE_EEXIST = -307,    /* sc_store_backup: the target file exists */
};

typedef struct sc_store_result {
    int rc;             /* enum sc_store_rc */
    int64_t id;         /* session id (log_open) or graph id (commit_graph) */
    const char *errmsg; /* the backend's message on EIO, else NULL; valid during the callback */
} sc_store_result;

typedef void (*sc_store_done_fn)(void *arg, const sc_store_result *res);

/**
 * Open (creating if needed) the database, apply pending migrations
 * (PRAGMA user_version), set WAL and the sync mode, mark every log row
 * still `open` as `lost` (its daemon died; ended_at stays NULL), and start
 * the writer thread.  Returns 0, or SC_STORE_EIO / SC_STORE_ENOMEM /
 * SC_STORE_EINVAL with a message in errbuf and *out set to NULL; a failed
 * open leaves nothing on the loop.  Refused with SC_STORE_EIO, before
 * anything is written to the file: a database whose user_version is newer
 * than the last migration (errbuf names both versions); one that is not
 * ours (tables but no user_version, or a user_version without our
 * tables); one another store holds.  For its whole life an SQLite store
 * holds an exclusive flock on the database file itself; a second open of
 * that file by any name (a symlink, a hard link, a path through ".."),
 * from any process, fails with "in use by streamcapd pid N" (or "in use
 * by another streamcapd" where /proc/locks does not name the holder).
 * errbuf never repeats the path of the database itself.  A PostgreSQL
 * store holds a session advisory lock keyed by its host name for its whole
 * life, taken before any row is touched; a second store with the same host
 * on that database fails with "host name \"H\" in use by streamcapd pid N
 * since T".
 */
int sc_store_open(uv_loop_t *loop, const sc_store_config *cfg, sc_store **out, char *errbuf,
                  size_t errlen);
/**
 * Finish every queued job (their callbacks run before this returns, on the
 * calling thread), stop the writer thread, cancel read jobs that have not
 * started and wait for running ones to finish their database work, close
 * all connections and free the store.  Call from the loop thread.  NULL is
 * a no-op.
 *
 * Afterwards the caller must run the loop again (uv_run(loop,
 * UV_RUN_DEFAULT), or UV_RUN_NOWAIT until it returns 0) before
 * uv_loop_close(): that frees the store's uv_async_t in its close callback
 * and delivers the callbacks of read jobs that were in flight (those
 * cancelled get SC_STORE_ECLOSED).  Those callbacks no longer touch the store.
 */
void sc_store_close(sc_store *st);
/**
 * sc_store_close() that says what became of the rows kept by
 * sc_store_defer_log_end(): *saved (optional) gets how many were recorded
 * for the next start; returns 0, or the code of the failure to record
 * them (SC_STORE_EIO, SC_STORE_ENOMEM) with `err` saying why (then those
 * rows will read `lost`).  The store is closed either way.
 */
int sc_store_close_report(sc_store *st, size_t *saved, char *err, size_t errlen);

/**
 * Log row for a new session, outcome `open`.  res->id is the session id.
 * `label` (may be NULL for none, stored as '') is copied.  Returns 0,
 * SC_STORE_ECLOSED, SC_STORE_ENOMEM or SC_STORE_EINVAL.
 */
int sc_store_log_open(sc_store *st, uint32_t uid, int64_t pid, const char *label, size_t label_len,
                      int64_t opened_ms, sc_store_done_fn done, void *arg);
/** sc_store_log_open for a session of the given semantics: "oxicuda" (what
 *  sc_store_log_open writes) or "cuda"; anything else is SC_STORE_EINVAL. */
int sc_store_log_open_as(sc_store *st, const char *semantics, uint32_t uid, int64_t pid,
                         const char *label, size_t label_len, int64_t opened_ms,
                         sc_store_done_fn done, void *arg);
/**
 * Finish a session's log row: outcome is "failed", "closed", "abandoned" or
 * "shutdown" (anything else is SC_STORE_EINVAL); node_count and ended time
 * are recorded.  The completion is SC_STORE_ENOTFOUND when the session has
 * no row or its row is no longer `open` (nothing is changed then).
 */
int sc_store_log_end(sc_store *st, int64_t session, const char *outcome, uint32_t node_count,
                     int64_t ended_ms, sc_store_done_fn done, void *arg);
/**
 * sc_store_log_end for a daemon that is stopping: refused for want of room
 * (a full disk), the update runs once more on the space the backend keeps
 * for deletes (SQLite's "<db>.reserve"), which the next start makes again;
 * without it the row goes to sc_store_defer_log_end's room.
 */
int sc_store_log_end_final(sc_store *st, int64_t session, const char *outcome, uint32_t node_count,
                           int64_t ended_ms, sc_store_done_fn done, void *arg);
/**
 * Keep a final log row the database refused during a stop: sc_store_close()
 * records it, before it lets another daemon open the database, where the
 * next sc_store_open() of the same database ends the row (outcome,
 * node_count, ended_ms) before it marks open rows `lost`.  Allowed while
 * the store closes (from the callbacks sc_store_close() runs).  Returns 0,
 * SC_STORE_EINVAL (bad outcome, or a backend that keeps no such record:
 * the row will read `lost`) or SC_STORE_ENOMEM.
 */
int sc_store_defer_log_end(sc_store *st, int64_t session, const char *outcome, uint32_t node_count,
                           int64_t ended_ms);
/**
 * Store a sealed graph (its graphs, nodes, edges and graph_index rows)
 * and mark the session `completed` with its graph id, in one transaction.
 * `g` and `label` must stay valid until `done` runs.  res->id is the new
 * graph id.  An unsealed graph is SC_STORE_EINVAL; the completion is
 * SC_STORE_ENOTFOUND (nothing stored) when the session's log row is
 * missing or no longer `open`.
 */
int sc_store_commit_graph(sc_store *st, int64_t session, const sc_graph *g, uint32_t uid,
                          int64_t pid, const char *label, size_t label_len, int64_t created_ms,
                          sc_store_done_fn done, void *arg);

/*
 * Streaming a capture while it records.  Once a capture has recorded
 * enough nodes past what it handed over (SC_STORE_PART_NODES unless
 * streamcapd's --stream-nodes says otherwise), the daemon hands those
 * nodes to the store as a part (their predecessors are final once
 * recorded); the writer stores each part at once, in a transaction of its
 * own, under a graph id it reserves in pending_graphs, so nothing of the
 * graph is visible (schema/003_pending.sql).  capture.end then stores only
 * what the parts did not, and the graph row that makes the graph visible;
 * a capture that yields no graph has its parts removed.  A daemon killed
 * meanwhile leaves rows that the next start deletes.
 */
#define SC_STORE_PART_NODES 32768u /* the default part */

/** Recorded nodes lo .. lo + n - 1 copied out of a live capture, with their
 *  predecessors (ascending per node) and names, owned by the part. */
typedef struct sc_store_part {
    uint32_t lo, n;
    size_t bytes;       /* heap bytes held, counted against the queued parts' bound */
    sc_node *nodes;     /* names point into `names` */
    uint32_t *pred_off; /* n + 1 offsets into preds */
    uint32_t *preds;
    char *names;
} sc_store_part;

typedef struct sc_store_stream sc_store_stream;

/** Whether the store's backend stores parts (SQLite does; PostgreSQL does
 *  not, and its captures are stored at capture.end only). */
bool sc_store_can_stream(const sc_store *st);
/**
 * A stream for the capture of `session`, which must have a log row;
 * `started_ms` is the Unix time the graph's pending row shows.  0,
 * SC_STORE_EINVAL (the backend does not stream), SC_STORE_ECLOSED or
 * SC_STORE_ENOMEM.  It ends with sc_store_stream_commit() or
 * sc_store_stream_drop(), whatever happens, before the store closes.
 */
int sc_store_stream_open(sc_store *st, int64_t session, int64_t started_ms, sc_store_stream **out);
/** The first node the next part must start at (what was handed over). */
uint32_t sc_store_stream_next(const sc_store_stream *s);
/**
 * Copy the capture's nodes sc_store_stream_next(s) .. hi - 1 (recorded
 * already) into a part and queue it for the writer.  0, or SC_STORE_EBUSY
 * (the parts queued already hold the most memory they may), SC_STORE_ENOMEM,
 * SC_STORE_ECLOSED or SC_STORE_EINVAL with nothing queued: the nodes are
 * then stored by a later part or by the commit.
 */
int sc_store_stream_part(sc_store *st, sc_store_stream *s, const sc_capture *cap, uint32_t hi);
/**
 * sc_store_commit_graph() for a streamed capture, g its sealed graph: the
 * rows the parts stored are kept, the rest is stored, and the graph is
 * visible once the completion reports success.  Consumes the stream
 * whatever it returns (on a failure to queue, what the parts stored is
 * removed).
 */
int sc_store_stream_commit(sc_store *st, sc_store_stream *s, const sc_graph *g, uint32_t uid,
                           int64_t pid, const char *label, size_t label_len, int64_t created_ms,
                           sc_store_done_fn done, void *arg);
/** Remove what the stream's parts stored (the capture yields no graph) and
 *  consume it; NULL is a no-op.  Cannot fail: what cannot be removed now is
 *  removed by the next start. */
void sc_store_stream_drop(sc_store_stream *s);

/**
 * Store a sealed graph that no session captured (graph.submit): its rows
 * as sc_store_commit_graph writes them, semantics cuda, session 0, no log
 * row touched.  `g` and `label` must stay valid until `done` runs.
 * res->id is the new graph id.
 */
int sc_store_submit_graph(sc_store *st, const sc_graph *g, uint32_t uid, int64_t pid,
                          const char *label, size_t label_len, int64_t created_ms,
                          sc_store_done_fn done, void *arg);

/** Where a body graph hangs: the graph and node holding it, and its index
 *  among that node's bodies (0 for a child graph). */
typedef struct sc_store_parent {
    int64_t graph;
    uint32_t node;
    uint32_t index;
} sc_store_parent;

/**
 * sc_store_submit_graph for the body of a child graph or conditional node
 * of graph `parent->graph` (already stored); NULL parent is a top-level
 * graph.  graph.list leaves bodies out unless asked; deleting the parent
 * deletes its bodies.  SC_STORE_EINVAL for a parent id below 1.
 */
int sc_store_submit_body(sc_store *st, const sc_graph *g, const sc_store_parent *parent,
                         uint32_t uid, int64_t pid, const char *label, size_t label_len,
                         int64_t created_ms, sc_store_done_fn done, void *arg);

/**
 * Replace the stored fingerprints of `n` graphs (ids[i] gets fps[i]), in
 * one transaction: a graph's row is written with the fingerprints of the
 * graph alone, and those of a graph with child graph or conditional nodes
 * fold in their bodies, which are stored after it.  Both arrays are
 * copied.  A graph that no longer exists is skipped.  Returns 0,
 * SC_STORE_EINVAL (n 0, NULL arrays), SC_STORE_ECLOSED or SC_STORE_ENOMEM.
 */
int sc_store_set_fingerprints(sc_store *st, size_t n, const int64_t *ids, const sc_fingerprint *fps,
                              sc_store_done_fn done, void *arg);

/**
 * One ended capture of a cuda-mode session (docs/cuda-semantics.md §6), as
 * its `captures` row holds it.  Strings are static wire words, except
 * inv_call, which must stay valid until the job's `done` runs.
 */
typedef struct sc_store_capture {
    uint32_t capture;
    uint32_t origin;
    const char *mode; /* global, thread_local, relaxed */
    uint32_t thread;
    const char *outcome; /* completed, failed, discarded */
    int cuda_error;      /* failed: CUDA's number */
    uint32_t node_count;
    /* The first call that invalidated it; inv_method NULL when none did. */
    const char *inv_method; /* "capture.host_call", ... */
    uint32_t inv_stream;
    bool inv_has_event;
    uint32_t inv_event;
    uint32_t inv_thread;
    const char *inv_call; /* the CUDA function named by capture.host_call, or NULL */
    size_t inv_call_len;
    int inv_error; /* CUDA's number */
} sc_store_capture;

/**
 * Write a capture row, and for a completed capture its sealed graph `g`
 * (semantics cuda, the capture's id) in the same transaction; the
 * session's log row stays as it is and must be `open` (else
 * SC_STORE_ENOTFOUND, nothing stored).  `g` is NULL unless outcome is
 * completed.  res->id is the new graph id (0 without a graph).  `cap` is
 * copied; `g`, `label` and cap->inv_call must stay valid until `done` runs.
 */
int sc_store_commit_capture(sc_store *st, int64_t session, const sc_store_capture *cap,
                            const sc_graph *g, uint32_t uid, int64_t pid, const char *label,
                            size_t label_len, int64_t ended_ms, sc_store_done_fn done, void *arg);

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
    bool cuda;        /* made by a cuda-mode session ... */
    uint32_t capture; /* ... in this capture of it (0 otherwise) */
    char *host;       /* the daemon's --host-name that stored it, owned */
    /* A body of another graph's child graph or conditional node: that
     * graph, node and the body's index among the node's bodies (all 0 for
     * a top-level graph, parent_graph 0 telling it apart). */
    int64_t parent_graph;
    uint32_t parent_node;
    uint32_t parent_index;
    /* Its fingerprints (docs/analyses.md, "Fingerprints"); has_fingerprint
     * false for a graph stored before they were (schema 13). */
    bool has_fingerprint;
    sc_fingerprint fingerprint;
    /* graph.pin kept it from retention and prune (schema 14). */
    bool pinned;
} sc_graph_meta;

typedef struct sc_stored_graph {
    sc_graph_meta meta;
    sc_graph *graph; /* sealed, index not built */
} sc_stored_graph;

void sc_stored_graph_free(sc_stored_graph *sg);

/**
 * Load a whole graph on the thread pool.  The callback owns *sg (free it
 * with sc_stored_graph_free; NULL unless rc is 0); rc is 0,
 * SC_STORE_ENOTFOUND, SC_STORE_EIO (errmsg set, valid during the callback),
 * SC_STORE_ENOMEM, or SC_STORE_ECLOSED when sc_store_close() cancelled it.
 * Returns 0, SC_STORE_ECLOSED, SC_STORE_ENOMEM or SC_STORE_EINVAL.
 */
typedef void (*sc_store_graph_fn)(void *arg, int rc, sc_stored_graph *sg, const char *errmsg);
int sc_store_load_graph(sc_store *st, int64_t graph, sc_store_graph_fn done, void *arg);

/**
 * Load a graph for reachability only, on the thread pool: the graph row
 * and the packed streams and edges of its graph_index rows, no node rows.
 * The result is a sealed graph with the stored node and edge counts, each
 * node's stream and every edge, but each node is a kernel with an empty
 * name and zero attributes: never render or export a skeleton.  A graph
 * stored without graph_index rows loads in full instead.  Callback,
 * result and return codes as sc_store_load_graph; graph_index rows that
 * disagree with the graph row (or, on SQLite, parts that leave a gap) are
 * SC_STORE_EIO.
 */
int sc_store_load_skeleton(sc_store *st, int64_t graph, sc_store_graph_fn done, void *arg);

/**
 * Metadata of one graph, without its nodes and edges (graph.list entries,
 * ownership checks).  The callback owns *meta (free it with
 * sc_graph_meta_free; NULL unless rc is 0); rc is 0, SC_STORE_ENOTFOUND,
 * SC_STORE_EIO (errmsg set), SC_STORE_ENOMEM or SC_STORE_ECLOSED.  Returns
 * 0, SC_STORE_ECLOSED, SC_STORE_ENOMEM or SC_STORE_EINVAL.
 */
typedef void (*sc_store_meta_fn)(void *arg, int rc, sc_graph_meta *meta, const char *errmsg);
int sc_store_graph_meta(sc_store *st, int64_t graph, sc_store_meta_fn done, void *arg);
/** Free a meta from sc_store_graph_meta (label and struct).  NULL is a no-op. */
void sc_graph_meta_free(sc_graph_meta *meta);

/**
 * Delete a stored graph: its edges, nodes, graph_index and graph rows go,
 * and its session's log row gets graph_deleted_at (`deleted_ms`, Unix ms,
 * the caller's clock like every write's time) while keeping
 * outcome `completed` and the graph id; all in one write transaction
 * shared with other queued writes, like every write.  res->id is the graph id.  The
 * completion is SC_STORE_ENOTFOUND when no such graph exists (nothing
 * changes).  Returns 0, SC_STORE_ECLOSED, SC_STORE_ENOMEM or
 * SC_STORE_EINVAL.  sc_store_graph_count() drops once it completes.
 */
int sc_store_delete_graph(sc_store *st, int64_t graph, int64_t deleted_ms, sc_store_done_fn done,
                          void *arg);

/**
 * sc_store_delete_graph() that leaves a pinned graph alone: its completion
 * is then SC_STORE_EBUSY and nothing changes (graph.delete without force).
 */
int sc_store_delete_unpinned(sc_store *st, int64_t graph, int64_t deleted_ms, sc_store_done_fn done,
                             void *arg);

/**
 * Pin (or unpin) a stored graph: a pinned graph is never removed by
 * sc_store_prune_graphs() nor by sc_store_delete_unpinned().  res->id is
 * the graph id; the completion is SC_STORE_ENOTFOUND when no such graph
 * exists.  Returns 0, SC_STORE_ECLOSED, SC_STORE_ENOMEM or SC_STORE_EINVAL.
 */
int sc_store_pin_graph(sc_store *st, int64_t graph, bool pinned, sc_store_done_fn done, void *arg);

/*
 * Retention and prune (docs/operations.md, "Retention").  A plan (a read)
 * names the top-level, unpinned graphs a policy would delete, oldest
 * (lowest id) first; the daemon then deletes them a batch at a time with
 * sc_store_prune_graphs(), one short write job per batch, and gives the
 * space back with sc_store_vacuum_step().
 */
typedef struct sc_prune_policy {
    bool has_before;    /* graphs created before ... */
    int64_t before_ms;  /* ... this Unix time go */
    uint64_t keep;      /* > 0: graphs older than the newest `keep` go */
    uint64_t max_bytes; /* > 0: the oldest go while the store is bigger */
    bool any_owner;     /* every owner's graphs (root, the daemon's policy) ... */
    uint32_t uid;       /* ... else only this owner's on this host (`keep` counts them) */
    const char *host;   /* set by the store: the host of a one-owner plan */
    uint32_t limit;     /* the most ids one plan names, 1..SC_STORE_PRUNE_MAX */
} sc_prune_policy;

#define SC_STORE_PRUNE_MAX 100000

typedef struct sc_prune_plan {
    int64_t *ids; /* count graph ids, ascending */
    size_t count;
    bool has_more;     /* more graphs matched past `limit` */
    uint64_t nodes;    /* their nodes together (bodies not counted) */
    uint64_t bytes;    /* estimate of the bytes they hold (see below) */
    uint64_t db_bytes; /* the store's size as max_bytes measures it */
} sc_prune_plan;

/**
 * Plan a prune on the reader pool.  The store's size is the bytes in use:
 * SQLite (page_count - freelist_count) * page_size, PostgreSQL
 * pg_database_size(); a graph's bytes are estimated as its share of that
 * size by nodes and edges.  A graph is named when any policy part names
 * it.  The callback owns *plan (sc_prune_plan_free; NULL unless rc is 0).
 * Returns 0, SC_STORE_EINVAL, SC_STORE_ECLOSED or SC_STORE_ENOMEM.
 */
typedef void (*sc_store_plan_fn)(void *arg, int rc, sc_prune_plan *plan, const char *errmsg);
int sc_store_prune_plan(sc_store *st, const sc_prune_policy *p, sc_store_plan_fn done, void *arg);
void sc_prune_plan_free(sc_prune_plan *plan);

/**
 * Delete the unpinned graphs among ids[0..n) as graph.delete does (bodies
 * and log marks included), in one write job; ids are copied.  A graph
 * already gone or pinned meanwhile is skipped.  res->id is the number
 * deleted.  Returns 0, SC_STORE_EINVAL (n 0 or above 10000),
 * SC_STORE_ECLOSED or SC_STORE_ENOMEM.
 */
int sc_store_prune_graphs(sc_store *st, const int64_t *ids, size_t n, int64_t deleted_ms,
                          sc_store_done_fn done, void *arg);

/**
 * Delete at most `limit` ended capture-log rows (and their captures rows)
 * opened before `before_ms` whose graph, if they had one, is gone; rows
 * of stored graphs stay.  res->id is the number deleted: fewer than
 * `limit` means none are left.  Returns 0, SC_STORE_EINVAL,
 * SC_STORE_ECLOSED or SC_STORE_ENOMEM.
 */
int sc_store_prune_log(sc_store *st, int64_t before_ms, uint32_t limit, sc_store_done_fn done,
                       void *arg);

/**
 * Give at most `pages` free database pages back to the file system (SQLite
 * PRAGMA incremental_vacuum on a database with auto_vacuum=INCREMENTAL;
 * nothing elsewhere).  res->id is the free pages left that a later step
 * could give back (0 when none, or when the backend cannot).
 */
int sc_store_vacuum_step(sc_store *st, uint32_t pages, sc_store_done_fn done, void *arg);

/*
 * Lists (graph.list, log.list): newest first, one page per call, each a
 * single read on the reader pool (a consistent snapshot).  A page holds at
 * most `limit` rows; `has_more` tells whether rows remain past it, and the
 * `next` cursor of a page, passed back in the query, continues strictly
 * after its last row, so rows committed between two calls never shift a
 * page: new graphs have higher ids, new sessions later opened times (while
 * the wall clock does not step back).  Rows of other owners are never
 * returned unless `any_owner` is set (root).
 */
#define SC_STORE_LIST_DEFAULT 100   /* limit the protocol applies when none is given */
#define SC_STORE_LIST_MAX     10000 /* largest limit accepted */

typedef struct sc_graph_query {
    int64_t before_graph; /* 0: from the newest; else only graphs with a smaller id */
    uint32_t limit;       /* 1..SC_STORE_LIST_MAX */
    bool any_owner;       /* every owner's graphs (root) ... */
    uint32_t uid;         /* ... else only this owner's */
    const char *label;    /* NULL: any label; else exact match, copied at the call */
    size_t label_len;
    const char *host; /* NULL: any host; else exact match, copied at the call */
    size_t host_len;
    bool nested;          /* bodies of other graphs' nodes too; else top-level graphs only */
    int64_t parent;       /* 0: any; else only the bodies of this graph (implies nested) */
    bool by_fingerprint;  /* only graphs whose structure or full fingerprint ... */
    uint64_t fingerprint; /* ... is this value */
} sc_graph_query;

typedef struct sc_graph_page {
    sc_graph_meta *graphs; /* count entries, descending graph id; each owns its label */
    size_t count;
    bool has_more;       /* older rows matching the query exist */
    int64_t next_before; /* when has_more: before_graph for the next page, else 0 */
} sc_graph_page;

/**
 * One page of graphs, newest (highest id) first.  The callback owns *page
 * (free it with sc_graph_page_free; NULL unless rc is 0); rc is 0,
 * SC_STORE_EIO (errmsg set), SC_STORE_ENOMEM or SC_STORE_ECLOSED.  Returns
 * 0, or SC_STORE_EINVAL (NULL argument, limit out of range, negative
 * before_graph), SC_STORE_ECLOSED or SC_STORE_ENOMEM.
 */
typedef void (*sc_store_graph_page_fn)(void *arg, int rc, sc_graph_page *page, const char *errmsg);
int sc_store_list_graphs(sc_store *st, const sc_graph_query *q, sc_store_graph_page_fn done,
                         void *arg);
/** Free a page and every label in it.  NULL is a no-op. */
void sc_graph_page_free(sc_graph_page *page);

typedef struct sc_log_query {
    bool has_before;          /* false: from the newest */
    int64_t before_opened_ms; /* cursor: only rows after (opened_ms, session) */
    int64_t before_session;   /*   in the list order */
    uint32_t limit;           /* 1..SC_STORE_LIST_MAX */
    bool any_owner;           /* every owner's rows (root) ... */
    uint32_t uid;             /* ... else only this owner's */
    const char *outcome;      /* NULL: any; else open, completed, failed, closed,
                                 abandoned, shutdown or lost */
    const char *host;         /* NULL: any host; else exact match, copied */
    size_t host_len;
} sc_log_query;

/** One row of the captures table: an ended capture of a cuda-mode session. */
typedef struct sc_log_capture {
    uint32_t capture;
    uint32_t origin;
    char mode[16]; /* global, thread_local, relaxed */
    uint32_t thread;
    char outcome[12]; /* completed, failed, discarded */
    int cuda_error;   /* failed: CUDA's number, else 0 */
    uint32_t node_count;
    int64_t ended_ms;
    int64_t graph; /* completed: the stored graph, else 0 */
    bool graph_deleted;
    int64_t graph_deleted_ms;
    bool invalidated; /* the inv_* members are set */
    char inv_method[40];
    uint32_t inv_stream;
    bool inv_has_event;
    uint32_t inv_event;
    uint32_t inv_thread;
    char *inv_call; /* owned by the page; NULL when the call named none */
    int inv_error;  /* CUDA's number */
} sc_log_capture;

/** One capture log row.  Open sessions have node_count 0 (the live count
 * is the session's, not the log's) and no end. */
typedef struct sc_log_entry {
    int64_t session;
    char *label; /* NUL-terminated, owned by the page */
    size_t label_len;
    uint32_t owner_uid;
    int64_t owner_pid;
    int64_t opened_ms;
    bool has_ended; /* false while open, and for lost rows */
    int64_t ended_ms;
    char outcome[12]; /* the wire word, NUL-terminated */
    uint32_t node_count;
    int64_t graph;      /* the stored graph (completed rows), else 0 */
    bool graph_deleted; /* graph.delete removed it; `graph` keeps the old id */
    int64_t graph_deleted_ms;
    bool cuda;                /* a cuda-mode session: its ended captures follow */
    sc_log_capture *captures; /* ncaptures rows by capture id, owned by the page */
    size_t ncaptures;
    char *host; /* the daemon's --host-name that wrote the row, owned by the page */
} sc_log_entry;

typedef struct sc_log_page {
    sc_log_entry *entries; /* count entries in list order */
    size_t count;
    bool has_more; /* older rows matching the query exist */
    /* When has_more: the cursor for the next page (the last entry's
     * opened_ms and session), else 0. */
    int64_t next_opened_ms;
    int64_t next_session;
} sc_log_page;

/**
 * One page of the capture log, newest first: opened time descending, then
 * session id descending.  Includes sessions still open (outcome `open`).
 * Callback and return codes as sc_store_list_graphs; an unknown outcome is
 * SC_STORE_EINVAL.
 */
typedef void (*sc_store_log_page_fn)(void *arg, int rc, sc_log_page *page, const char *errmsg);
int sc_store_list_log(sc_store *st, const sc_log_query *q, sc_store_log_page_fn done, void *arg);
/** Free a page and every label in it.  NULL is a no-op. */
void sc_log_page_free(sc_log_page *page);

/* ---- backup and integrity (docs/operations.md) ---- */

/** sc_store_backup flags: replace a target file that exists. */
#define SC_STORE_BACKUP_OVERWRITE 1u

/** Whether the backend writes backups (SQLite does; PostgreSQL's are
 *  pg_dump's business). */
bool sc_store_can_backup(const sc_store *st);
/**
 * Write a consistent copy of the database to the absolute path `target`
 * on the thread pool, from a read transaction of its own, so the writer
 * goes on committing meanwhile: the copy holds every transaction committed
 * before the job started and none after.  The callback runs once the copy
 * is complete, fsync'ed and renamed into place (with its directory
 * fsync'ed); `bytes` is the copy's size.  rc is 0, SC_STORE_EEXIST (target
 * exists, no OVERWRITE flag: nothing written), SC_STORE_EIO (errmsg says
 * why; no partial file is left at `target`), SC_STORE_ENOMEM or
 * SC_STORE_ECLOSED.  Returns 0, SC_STORE_EINVAL (the backend cannot,
 * a relative or empty target), SC_STORE_ECLOSED or SC_STORE_ENOMEM.
 */
typedef void (*sc_store_backup_fn)(void *arg, int rc, uint64_t bytes, const char *errmsg);
int sc_store_backup(sc_store *st, const char *target, unsigned flags, sc_store_backup_fn done,
                    void *arg);

/** One problem an integrity check found: `graph` (0 when it concerns no
 *  one graph) and a sentence saying what is wrong. */
typedef void (*sc_store_problem_fn)(void *ctx, int64_t graph, const char *what);
/**
 * Check the database `cfg->path` names without writing to it (a read-only
 * connection of its own; a daemon may be serving it meanwhile): the
 * engine's own integrity check and the store's invariants, every problem
 * reported through `fn` (docs/operations.md, "Integrity", lists them).
 * `full` false runs only the cheap part, the one streamcapd runs at every
 * start.  *problems (optional) gets how many were reported.  0 when the
 * check ran (whatever it found), else SC_STORE_EIO / SC_STORE_ENOMEM /
 * SC_STORE_EINVAL with err saying why it could not.
 */
int sc_store_check(const sc_store_config *cfg, bool full, sc_store_problem_fn fn, void *ctx,
                   size_t *problems, char *err, size_t errlen);

/* ---- figures for metrics ---- */

/* Bounds of the commit latency histogram's buckets, in microseconds; a
 * last bucket takes what is above the last bound. */
#define SC_STORE_LATENCY_BOUNDS_US                                                                 \
    {                                                                                              \
        1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000, 1000000, 2500000, 10000000  \
    }
#define SC_STORE_LATENCY_BUCKETS 13

/** How long write jobs waited for their commit: from being queued to their
 *  completion on the loop (loop thread's counters, read there). */
typedef struct sc_store_latency {
    uint64_t count[SC_STORE_LATENCY_BUCKETS]; /* per bucket, not cumulative */
    uint64_t total;
    uint64_t sum_us;
} sc_store_latency;

/** The commit latency histogram so far.  Loop thread. */
int sc_store_get_latency(const sc_store *st, sc_store_latency *out);
/** Write jobs queued and not yet completed (the writer's queue depth). */
uint64_t sc_store_queue_depth(const sc_store *st);

/** The file the store was opened on (the --db text). */
const char *sc_store_path(const sc_store *st);
/** The backend's name: "sqlite" or "postgresql". */
const char *sc_store_backend_name(const sc_store *st);
/** The host name the store writes on its rows (never NULL). */
const char *sc_store_host(const sc_store *st);
/**
 * Number of stored graphs: counted once at open, then maintained as commits
 * and deletions complete on the loop thread (no query).
 */
int sc_store_graph_count(sc_store *st, int64_t *out);
/**
 * Number of stored graphs owned by `uid`: counted per owner at open, then
 * maintained like sc_store_graph_count() (a lookup, no query, so a status
 * request never waits for the reader pool or the database).
 */
int sc_store_graph_count_of(sc_store *st, uint32_t uid, int64_t *out);

/** Writer counters, for tests and benchmarks (group commit at work). */
typedef struct sc_store_stats {
    uint64_t transactions; /* write transactions committed */
    uint64_t jobs_done;    /* write jobs completed, whatever their result */
    uint64_t jobs_retried; /* jobs re-run alone after their batch failed */
    uint64_t jobs_failed;  /* jobs completed with SC_STORE_EIO */
    /* After a connection to the database server broke (PostgreSQL): */
    uint64_t txns_rerun;        /* transactions run again, nothing of them written */
    uint64_t commits_committed; /* COMMITs without an answer, found committed */
    uint64_t commits_aborted;   /* COMMITs without an answer, found not committed */
    uint64_t commits_unknown;   /* COMMITs whose outcome was not learnt in time */
    uint64_t commits_restarted; /* chunked commits started over: chunks lost */
} sc_store_stats;

/** Snapshot of the writer counters. */
int sc_store_get_stats(sc_store *st, sc_store_stats *out);

/* ---- notices between the daemons of a fleet ---- */

/** A notice another daemon sharing the database sent: `payload`, `len`
 *  bytes, NUL-terminated.  Runs on the loop thread. */
typedef void (*sc_store_notice_fn)(void *arg, const char *payload, size_t len);
typedef struct sc_store_notices sc_store_notices;

/**
 * Hear the notices of the other daemons sharing the database through `fn`
 * (on the loop), and let sc_store_notice() send this one's.  PostgreSQL:
 * LISTEN/NOTIFY on a connection of its own, polled by the loop.  A backend
 * whose database no other daemon shares (SQLite) has none: 0, and
 * sc_store_has_notices() stays false.  0, EIO or ENOMEM with err set.
 */
int sc_store_notices_start(sc_store *st, sc_store_notice_fn fn, void *arg, char *err,
                           size_t errlen);
/** True once sc_store_notices_start() listens. */
bool sc_store_has_notices(const sc_store *st);
/**
 * Send `payload` (at most SC_STORE_NOTICE_MAX bytes) to the other daemons'
 * listeners, in order, without waiting.  Best effort: a notice is dropped
 * when too many wait to be sent or the connection broke.  0, EINVAL (too
 * long) or ENOTFOUND (no notices).
 */
int sc_store_notice(sc_store *st, const char *payload, size_t len);
#define SC_STORE_NOTICE_MAX 7999

#ifdef __cplusplus
}
#endif
#endif
