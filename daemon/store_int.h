/*
 * store_int.h - internals shared by store.c (life cycle, queue, loop side),
 * store_write.c (the writer connection and its jobs), store_read.c (the
 * reader pool: graph loads, metadata and list pages) and store_time.c.
 * Not part of the API.
 *
 * Result codes: every function returns codes of one space only.  Those
 * named store_* (and sc_store_*) return 0 or an SC_STORE_E* code, unless
 * their comment says SQLite's result code (store_rows_register); helpers
 * that return SQLite codes are named sql_* or say so.  Core results
 * (SC_E*) are converted where the core is called, SQLite results where a
 * store function makes the SQLite call.
 */
#ifndef SC_STORE_INT_H
#define SC_STORE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <sqlite3.h>
#include <uv.h>

#include "sc_store.h"

enum store_job_type {
    JOB_LOG_OPEN,
    JOB_LOG_END,
    JOB_COMMIT_GRAPH,
    JOB_DELETE_GRAPH,
    JOB_COMMIT_CAPTURE
};

/* One queued write.  Results are filled by the writer thread and read by
 * the loop thread after the hand-over under sc_store.mu. */
typedef struct store_job {
    struct store_job *next;
    /* Writer thread only: jobs of the same session queued behind this
     * chunked commit, run once it has finished (in their order). */
    struct store_job *waiting;
    enum store_job_type type;
    sc_store_done_fn done;
    void *arg;
    int rc;
    int64_t id;
    char *errmsg; /* heap copy of sqlite3_errmsg() on SC_STORE_EIO */
    union {
        struct {
            uint32_t uid;
            int64_t pid;
            const char *label; /* points at the job's own copy */
            size_t label_len;
            int64_t opened_ms;
            const char *semantics; /* static wire word */
        } open;
        struct {
            int64_t session;
            const char *outcome; /* one of the static wire words */
            uint32_t node_count;
            int64_t ended_ms;
        } end;
        struct {
            int64_t session;
            const sc_graph *g;
            uint32_t uid;
            int64_t pid;
            const char *label;
            size_t label_len;
            int64_t created_ms;
            /* JOB_COMMIT_CAPTURE: the capture row (g NULL without a graph) */
            sc_store_capture cap;
            /* JOB_COMMIT_GRAPH from graph.submit: no session row to check
             * or complete (session 0), stored as a cuda-mode graph */
            bool submitted;
            /* A chunked commit (store_writer_chunked): the reserved id
             * (0 before the first chunk), the first node of the next
             * chunk and the nodes per chunk, adapted to STORE_CHUNK_MS. */
            int64_t pending_gid;
            uint32_t next_node;
            uint32_t chunk_nodes;
        } commit;
        struct {
            int64_t graph;
            int64_t deleted_ms;
            uint32_t uid; /* the deleted graph's owner, set by the writer */
        } del;
    } u;
} store_job;

/* The writer connection and its statements, prepared once at open. */
typedef struct store_writer {
    sqlite3 *db;
    sqlite3_stmt *begin;
    sqlite3_stmt *commit;
    sqlite3_stmt *rollback;
    sqlite3_stmt *log_insert;
    sqlite3_stmt *log_end;
    sqlite3_stmt *log_check;
    sqlite3_stmt *log_complete;
    sqlite3_stmt *graph_insert;
    sqlite3_stmt *node_insert;
    sqlite3_stmt *edge_insert;
    sqlite3_stmt *index_insert;
    sqlite3_stmt *graph_session;
    sqlite3_stmt *index_delete;
    sqlite3_stmt *edges_delete;
    sqlite3_stmt *nodes_delete;
    sqlite3_stmt *graph_delete;
    sqlite3_stmt *log_graph_deleted;
    sqlite3_stmt *graph_insert_cuda;
    sqlite3_stmt *capture_insert;
    sqlite3_stmt *capture_graph_deleted;
    sqlite3_stmt *pending_reserve;
    sqlite3_stmt *pending_insert;
    sqlite3_stmt *pending_seq_update;
    sqlite3_stmt *pending_seq_insert;
    sqlite3_stmt *pending_delete;
    sqlite3_stmt *sync_normal;
    sqlite3_stmt *sync_full;
    bool full_sync;  /* the store's setting: synchronous=FULL */
    const char *why; /* set when a job fails for a reason SQLite does not know */
    bool nomem;      /* the failure was memory running out (SQLite's or ours) */
    bool full;       /* the failure was SQLITE_FULL (the disk or max_page_count) */
    /* Space kept next to the database for deletes on a full disk
     * (store_write.c): "<db>.reserve", STORE_RESERVE_BYTES when present. */
    char *reserve_path;
    bool have_reserve;
    uint64_t reserve_retry_ms; /* monotonic time of the next attempt to make it */
} store_writer;

#define STORE_RESERVE_BYTES (1u << 20)

typedef struct store_reader store_reader;
typedef struct store_read_req store_read_req;

/* Stored graphs of one owner (server.info for a non-root caller). */
typedef struct store_uid_count {
    uint32_t uid;
    int64_t graphs;
} store_uid_count;

struct sc_store {
    uv_loop_t *loop;
    uv_async_t *async; /* heap: freed in its close callback, after the store */
    char *path;
    int busy_timeout_ms;
    int lock_fd; /* <path>.lock, flock'ed for the store's life; -1 before */

    /* Loop thread only. */
    bool closing;
    int64_t graph_count;
    /* Per owner, sorted by uid: few entries (one per user who stored). */
    store_uid_count *uid_counts;
    size_t n_uid_counts, cap_uid_counts;
    uint64_t pending; /* write jobs queued and not yet delivered */

    /* Writer side: the queue, the completions and the counters, under mu. */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    store_job *queue_head, *queue_tail;
    store_job *done_head, *done_tail;
    bool stop;
    sc_store_stats stats;
    store_writer w; /* the writer thread's alone once it runs */

    /* Reader side, under rmu. */
    pthread_mutex_t rmu;
    pthread_cond_t rcv;
    store_reader *free_readers;
    int reader_count;
    store_read_req *reads; /* submitted, database work not finished */
};

/* store_rows.c: the table-valued functions sc_node_rows(G) and
 * sc_edge_rows(G) over a sealed graph G bound with
 * sqlite3_bind_pointer(stmt, i, g, STORE_GRAPH_PTR, NULL).  SQLITE_OK or
 * SQLite's error. */
#define STORE_GRAPH_PTR "streamcap.sc_graph"
/* Or a part of one, bound with STORE_RANGE_PTR: the nodes lo .. hi-1 and
 * the edges leaving them (a chunk of a chunked commit). */
#define STORE_RANGE_PTR "streamcap.sc_graph_range"
typedef struct store_rows_range {
    const sc_graph *g;
    uint32_t lo, hi;
} store_rows_range;
int store_rows_register(sqlite3 *db);

/* store_write.c: 0 or SC_STORE_EIO (errbuf says why). */
int store_writer_prepare(store_writer *w, char *errbuf, size_t errlen);
void store_writer_finalize(store_writer *w);
/* Run a batch (linked through ->next) and fill each job's result;
 * `delta` gets the counters to add to sc_store.stats. */
void store_writer_run_batch(store_writer *w, store_job *batch, sc_store_stats *delta);

/*
 * Chunked commits.  A graph with more than STORE_CHUNK_ROWS nodes plus
 * edges is not stored in one transaction, which would hold the only write
 * lock for seconds: each store_writer_step() runs one short transaction of
 * it (about STORE_CHUNK_MS), and the writer runs the other queued jobs
 * between two steps.  The first step reserves the graph id in
 * pending_graphs, the last inserts the graphs and graph_index rows,
 * completes the log or captures row and drops the pending row, so the
 * graph is invisible until it is whole (schema/003_pending.sql).
 */
#define STORE_CHUNK_ROWS        65536u
#define STORE_CHUNK_MS          25u
#define STORE_CHUNK_FIRST_NODES 16384u
/* True for a job that store_writer_step() must run instead of a batch. */
bool store_writer_chunked(const store_job *j);
/* Run the next transaction of a chunked job; true once the job has its
 * result (then delta counts it done, and failed when it failed). */
bool store_writer_step(store_writer *w, store_job *j, sc_store_stats *delta);
/* At open, before the writer runs: delete the rows of graphs a dead
 * daemon left pending.  SQLite's result code. */
int store_writer_recover(sqlite3 *db);

/* store_read.c: each submits one job to the thread pool; arguments are
 * checked by the caller.  0, SC_STORE_ENOMEM or SC_STORE_EIO.  A load
 * reads every row, or only graph_index's blobs when `skeleton` is set. */
int store_load_submit(sc_store *st, int64_t graph, bool skeleton, sc_store_graph_fn done,
                      void *arg);
int store_meta_submit(sc_store *st, int64_t graph, sc_store_meta_fn done, void *arg);
int store_graphs_submit(sc_store *st, const sc_graph_query *q, sc_store_graph_page_fn done,
                        void *arg);
/* `outcome` is NULL or a static wire word (it is not copied). */
int store_log_submit(sc_store *st, const sc_log_query *q, const char *outcome,
                     sc_store_log_page_fn done, void *arg);
/* The list statements, one per combination of filters, so that the
 * planner can pick the index that serves both the filter and the order.
 * Exposed so tests can check their query plans. */
enum { STORE_GRAPHS_BY_OWNER = 1, STORE_GRAPHS_BY_LABEL = 2, STORE_GRAPHS_VARIANTS = 4 };
enum {
    STORE_LOG_CURSOR = 1,
    STORE_LOG_BY_OWNER = 2,
    STORE_LOG_BY_OUTCOME = 4,
    STORE_LOG_VARIANTS = 8,
};
#define STORE_LIST_SQL_MAX 512
void store_graphs_sql(int variant, char *buf, size_t len);
void store_log_sql(int variant, char *buf, size_t len);
/* Cancel reads not yet started, wait for running ones; then close readers. */
void store_readers_shutdown(sc_store *st);

/* store_time.c: Unix milliseconds <-> "2026-11-29T19:44:21.123Z".  The
 * parser returns false for text that is no such time. */
#define STORE_TIME_LEN 24 /* years 0000..9999 */
#define STORE_TIME_BUF 64 /* room for any int64 input */
void store_time_format(int64_t ms, char out[STORE_TIME_BUF]);
bool store_time_parse(const char *s, size_t len, int64_t *ms);

/*
 * graph_index blobs hold little-endian u32 values (schema/README.md).
 * Swap n values in place between that order and the host's: a no-op on
 * little-endian hosts, so the blobs are written and read with one copy.
 */
static inline void store_le32_swap(uint32_t *v, size_t n)
{
    const uint32_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    if (first == 1)
        return;
    for (size_t i = 0; i < n; i++) {
        uint32_t x = v[i];
        v[i] = (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
    }
}

/* Copy sqlite3's message into a fresh heap string (NULL when out of memory). */
char *store_strdup(const char *s);

#endif
