/*
 * store_int.h - internals of the generic store, shared by store.c (life
 * cycle, queue, loop side), store_txn.c (the writer thread's transactions
 * over the backend), store_read.c (the reader pool and read jobs) and
 * store_time.c.  The backends (store_backend.h) include it for the job
 * type, the time format and the small helpers at the end.  Not part of
 * the API.
 *
 * Result codes: every function here returns 0 or an SC_STORE_E* code; the
 * engines' codes stay inside their backends.  Core results (SC_E*) are
 * converted where the core is called.
 */
#ifndef SC_STORE_INT_H
#define SC_STORE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <uv.h>

#include "sc_store.h"
#include "store_backend.h"

/* The job of store_backend.h, under the names the generic files use. */
typedef sc_store_job store_job;

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
    char *path;        /* the --db text */
    char *host;        /* written on every row */
    const sc_store_backend *ops;
    sc_store_be *be;           /* the backend's state: the writer thread's once it runs */
    sc_store_notices *notices; /* the fleet's notices (loop thread); NULL: none */

    /* Loop thread only. */
    bool closing;
    int64_t graph_count;
    /* Per owner, sorted by uid: few entries (one per user who stored). */
    store_uid_count *uid_counts;
    size_t n_uid_counts, cap_uid_counts;
    uint64_t pending;         /* write jobs queued and not yet delivered */
    sc_store_latency latency; /* their waits for a commit, once delivered */
    size_t part_bytes;        /* heap bytes of the stream parts not yet delivered */
    /* Final log rows refused during a stop (sc_store_defer_log_end). */
    sc_store_log_row *deferred;
    size_t n_deferred, cap_deferred;

    /* Writer side: the queue, the completions and the counters, under mu. */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    store_job *queue_head, *queue_tail;
    store_job *done_head, *done_tail;
    bool stop;
    sc_store_stats stats;

    /* Reader side, under rmu. */
    pthread_mutex_t rmu;
    pthread_cond_t rcv;
    store_reader *free_readers;
    int reader_count;
    store_read_req *reads; /* submitted, database work not finished */
};

/*
 * Chunked commits.  A graph with more than STORE_CHUNK_ROWS nodes plus
 * edges is not stored in one transaction, which would hold the only write
 * lock for seconds: each store_txn_step() runs one short transaction of
 * it (about STORE_CHUNK_MS), and the writer runs the other queued jobs
 * between two steps.  The first step reserves the graph id in
 * pending_graphs; once the nodes are stored, steps of the same length
 * store the graph_index parts (where the backend has write_index); the
 * last inserts the graphs row, completes the log or captures row and
 * drops the pending row, so the graph is invisible until it is whole
 * (schema/003_pending.sql).
 */
#define STORE_CHUNK_ROWS        65536u
#define STORE_CHUNK_MS          25u
#define STORE_CHUNK_FIRST_NODES 16384u
/* How often a chunked commit starts over when its chunks were lost. */
#define STORE_CHUNK_RESTARTS 3u
/* The first index step's nodes: an index costs about 12 bytes a node. */
#define STORE_INDEX_FIRST_NODES 131072u
/*
 * A streamed capture (sc_store.h).  `next` is the loop's: the first node
 * the next part starts at.  The rest is the writer's, read and written
 * only by the jobs that name the stream, which run in queue order (they
 * share the session); the loop frees the stream when its last job, the
 * commit or the drop, is delivered.
 */
struct sc_store_stream {
    sc_store *st;
    int64_t session;
    int64_t started_ms; /* pending_graphs.started_at */
    uint32_t next;
    store_job *drop; /* allocated with the stream, so that dropping cannot fail */
    /* Writer thread. */
    int64_t gid;     /* reserved by the first part stored; 0 before */
    uint32_t stored; /* parts stored: nodes 0 .. stored - 1 */
    bool failed;     /* a part was not stored: the commit starts over */
};

/* The most heap bytes the parts queued for the writer hold together (the
 * nodes are in their captures as well): past it a part waits, and its
 * nodes go with a later one, or with the commit. */
#define STORE_PART_BYTES_MAX (64u << 20)

/* store_notice.c: close the fleet's notices (sc_store_close). */
void store_notices_stop(sc_store *st);

/* store.c: a new job (ECLOSED while the store closes), and its queueing. */
store_job *store_job_new(sc_store *st, enum sc_store_job_type type, size_t extra,
                         sc_store_done_fn done, void *arg, int *rc);
void store_submit(sc_store *st, store_job *j);
/* A DELETE_GRAPH job queued: sc_store_delete_graph, or with keep_pinned
 * sc_store_delete_unpinned (store_prune.c). */
int store_delete_submit(sc_store *st, int64_t graph, int64_t deleted_ms, bool keep_pinned,
                        sc_store_done_fn done, void *arg);
/* A new commit job (COMMIT_GRAPH or COMMIT_CAPTURE) with its arguments
 * set; NULL with *rc set as store_job_new does. */
store_job *store_commit_job(sc_store *st, enum sc_store_job_type type, int64_t session,
                            const sc_graph *g, uint32_t uid, int64_t pid, const char *label,
                            size_t label_len, int64_t created_ms, sc_store_done_fn done, void *arg,
                            int *rc);
/* Writer thread: the fingerprints of a commit job's graph (that graph
 * alone: bodies come later, through SC_STORE_JOB_SET_FPS), made on the
 * first call and kept in the job, so a transaction run again does not
 * make them again.  0, or SC_STORE_ENOMEM. */
int store_job_fingerprint(store_job *j, const sc_fingerprint **out);
/* A graph row's two fingerprint columns (text, NULL for a row stored
 * before them) into m->fingerprint; has_fingerprint only when both parse. */
void store_meta_fingerprint(sc_graph_meta *m, const char *structure, const char *full);
/* Free a part, and give its bytes back to st->part_bytes (store_stream.c). */
void store_part_free(sc_store *st, sc_store_part *p);

/* store_txn.c, the writer thread's side of the backend.  True for a job
 * that store_txn_step() must run instead of a batch. */
bool store_txn_chunked(const store_job *j);
/* Run a batch (linked through ->next) and fill each job's result;
 * `delta` gets the counters to add to sc_store.stats. */
void store_txn_run_batch(sc_store *st, store_job *batch, sc_store_stats *delta);
/* Run the next transaction of a chunked job; true once the job has its
 * result (then delta counts it done, and failed when it failed). */
bool store_txn_step(sc_store *st, store_job *j, sc_store_stats *delta);

/* store_read.c: each submits one job to the thread pool; arguments are
 * checked by the caller.  0, SC_STORE_ENOMEM or SC_STORE_EIO.  A load
 * reads every row, or only the packed index when `skeleton` is set. */
int store_load_submit(sc_store *st, int64_t graph, bool skeleton, sc_store_graph_fn done,
                      void *arg);
int store_meta_submit(sc_store *st, int64_t graph, sc_store_meta_fn done, void *arg);
int store_graphs_submit(sc_store *st, const sc_graph_query *q, sc_store_graph_page_fn done,
                        void *arg);
/* `outcome` is NULL or a static wire word (it is not copied). */
int store_log_submit(sc_store *st, const sc_log_query *q, const char *outcome,
                     sc_store_log_page_fn done, void *arg);
int store_backup_submit(sc_store *st, const char *target, unsigned flags, sc_store_backup_fn done,
                        void *arg);
/* store_ops.c: the start-up check's verdict, for the backends' migrate.
 * store_keep_first is a sc_store_problem_fn keeping the first problem in
 * ctx (a char[STORE_PROBLEM_MAX], "" before); store_check_verdict, for
 * `n` problems found, 0 (none) or SC_STORE_EIO with err naming the first. */
#define STORE_PROBLEM_MAX 256
void store_keep_first(void *ctx, int64_t graph, const char *what);
int store_check_verdict(size_t n, const char *first, char *err, size_t errlen);
int store_plan_submit(sc_store *st, const sc_prune_policy *p, sc_store_plan_fn done, void *arg);
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

/* A fresh heap copy of a string (NULL when out of memory). */
char *store_strdup(const char *s);

#endif
