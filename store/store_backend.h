/*
 * store_backend.h - the interface between the generic store (store.c,
 * store_read.c: the API of sc_store.h, the job queue, the writer thread,
 * group commit and the scheduling of chunked commits, the reader pool,
 * completion on the event loop, counts and stats) and a storage backend
 * (the SQL, connections, schema and migrations of one database engine).
 *
 * Backends: "sqlite" (store_sqlite*.c, always built) and "postgresql"
 * (store_pg*.c, built with SC_HAVE_POSTGRESQL).  sc_store_backend_for()
 * picks one from the --db text.
 *
 * Threads and ownership:
 *   - open, migrate, count_graphs and close run on the loop thread, inside
 *     sc_store_open() / sc_store_close(), never while the writer thread or
 *     a reader runs.  The backend's state (sc_store_be, opaque here) owns
 *     the writer connection and everything it needs; it is handed to the
 *     writer thread once that starts.
 *   - begin, commit, rollback, write, write_chunk and drop_chunks run on
 *     the writer thread only, on the writer's connection.  The generic part
 *     opens every write transaction with begin, runs one or more jobs in it
 *     with write (group commit), and ends it with commit or rollback.
 *   - reader_open, reader_close and read run on libuv's thread pool, each
 *     reader connection used by one thread at a time (the generic pool
 *     hands it out); reader_close also runs on the loop thread at close.
 *     A reader may be opened at any time while the store is open, several
 *     at once, concurrently with the writer.
 *
 * Result codes: 0 or an SC_STORE_E* code of sc_store.h, nothing else.  A
 * database engine's own result codes never leave its backend.  Storage
 * failures are SC_STORE_EIO with the engine's message in the err buffer
 * (a message about the database, never naming the --db text, which may
 * hold a password); memory running out, the daemon's or the engine's
 * client's, is SC_STORE_ENOMEM, never SC_STORE_EIO.  err buffers are
 * always NUL-terminated by the callee on failure.
 *
 * Ids: a backend hands out graph ids and session ids that increase with
 * commit order on one daemon and are unique across every daemon sharing
 * the database (SQLite: one daemon per database, AUTOINCREMENT;
 * PostgreSQL: sequences).
 */
#ifndef SC_STORE_BACKEND_H
#define SC_STORE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sc_store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- write jobs ---- */

enum sc_store_job_type {
    SC_STORE_JOB_LOG_OPEN,       /* insert a capture_log row, outcome open */
    SC_STORE_JOB_LOG_END,        /* end an open row */
    SC_STORE_JOB_COMMIT_GRAPH,   /* a session's graph (or graph.submit's) */
    SC_STORE_JOB_DELETE_GRAPH,   /* graph.delete */
    SC_STORE_JOB_COMMIT_CAPTURE, /* a cuda-mode capture row (+ graph) */
    SC_STORE_JOB_STREAM_PART,    /* generic: a part of a streamed capture */
    SC_STORE_JOB_STREAM_DROP,    /* generic: remove what a stream's parts stored */
    SC_STORE_JOB_SET_FPS,        /* replace stored graphs' fingerprints */
    SC_STORE_JOB_PIN_GRAPH,      /* graph.pin */
    SC_STORE_JOB_PRUNE_GRAPHS,   /* a batch of a prune */
    SC_STORE_JOB_PRUNE_LOG,      /* a batch of old log rows */
    SC_STORE_JOB_VACUUM,         /* give free pages back */
};

/*
 * One queued write, made on the loop thread by the generic part and run by
 * a backend on the writer thread.  The backend reads the arguments and
 * sets `id` (and u.del.uid, u.commit.pending_gid) as documented; rc,
 * errmsg and the links belong to the generic part.
 */
typedef struct sc_store_job {
    struct sc_store_job *next;
    /* Generic writer only: jobs of the same session queued behind this
     * chunked commit, run once it has finished (in their order). */
    struct sc_store_job *waiting;
    enum sc_store_job_type type;
    sc_store_done_fn done;
    void *arg;
    int rc;
    int64_t id;         /* set by write: session id (LOG_OPEN), graph id (COMMIT_*, DELETE) */
    char *errmsg;       /* generic: heap copy of the failure's message */
    uint64_t queued_ns; /* generic: uv_hrtime() when queued (commit latency) */
    union {
        struct {
            uint32_t uid;
            int64_t pid;
            const char *label; /* points at the job's own copy */
            size_t label_len;
            int64_t opened_ms;
            const char *semantics; /* static wire word: oxicuda, cuda */
        } open;
        struct {
            int64_t session;
            const char *outcome; /* static wire word: failed, closed, ... */
            uint32_t node_count;
            int64_t ended_ms;
            /* The daemon is stopping: the job may spend the room make_room
             * frees, as a delete does (sc_store_log_end_final). */
            bool final;
        } end;
        struct {
            int64_t session;
            const sc_graph *g; /* sealed; NULL for a capture without a graph */
            uint32_t uid;
            int64_t pid;
            const char *label;
            size_t label_len;
            int64_t created_ms;
            /* SC_STORE_JOB_COMMIT_CAPTURE: the capture row */
            sc_store_capture cap;
            /* SC_STORE_JOB_COMMIT_GRAPH from graph.submit: no session row
             * to check or complete (session 0), stored as a cuda graph */
            bool submitted;
            /* A submitted body of another graph's node: that graph (0 for
             * a top-level graph), node and the body's index. */
            int64_t parent_graph;
            uint32_t parent_node, parent_index;
            /* A chunked commit: the graph id the backend reserved in the
             * first chunk (0 before it), then the next node of the next
             * chunk and the nodes per chunk (generic scheduling). */
            int64_t pending_gid;
            uint32_t next_node;
            uint32_t chunk_nodes;
            /* Then, with write_index, the first node whose index is not
             * stored yet and the nodes per index step. */
            uint32_t index_next;
            uint32_t index_nodes;
            /* A streamed capture (sc_store.h, "Streaming"): the commit, a
             * part or the drop of `stream` (generic).  A part job is
             * written by write_chunk with `part` as the nodes, g NULL. */
            sc_store_stream *stream;
            const sc_store_part *part;
            bool stream_taken; /* the commit took over what the parts stored */
            /* The backend's, set by the first chunk's write_chunk and read
             * by the last transaction (PostgreSQL: the writer connection's
             * generation, to tell whether a chunk may have been lost). */
            uint64_t be_mark;
            /* Generic: times this chunked commit started over (RESTART). */
            uint32_t restarts;
            /* The graph's fingerprints, made on the writer thread by
             * store_job_fingerprint() once fp_done is set. */
            bool fp_done;
            sc_fingerprint fp;
        } commit;
        struct {
            size_t n;
            const int64_t *ids;        /* in the job's own allocation */
            const sc_fingerprint *fps; /* likewise */
        } fps;
        struct {
            int64_t graph;
            int64_t deleted_ms;
            uint32_t uid; /* the deleted graph's owner: set by write */
            /* A pinned graph is left (rc SC_STORE_EBUSY, nothing written). */
            bool keep_pinned;
        } del;
        struct {
            int64_t graph;
            bool pinned;
        } pin;
        struct {
            size_t n;
            const int64_t *ids; /* in the job's own allocation */
            int64_t deleted_ms;
            /* Set by write: ids[i] was deleted (its owner uids[i]). */
            uint32_t *uids;
            unsigned char *gone;
        } prune;
        struct {
            int64_t before_ms;
            uint32_t limit;
        } plog;
        struct {
            uint32_t pages;
        } vac;
    } u;
} sc_store_job;

/* ---- read requests ---- */

enum sc_store_read_kind {
    SC_STORE_READ_LOAD,     /* a whole graph: graph -> sg */
    SC_STORE_READ_SKELETON, /* graph row + packed index: graph -> sg */
    SC_STORE_READ_META,     /* graph row: graph -> meta */
    SC_STORE_READ_GRAPHS,   /* a graph.list page: graphs -> graph_page */
    SC_STORE_READ_LOG,      /* a log.list page: log -> log_page */
    SC_STORE_READ_BACKUP,   /* a copy of the database: target -> bytes */
    SC_STORE_READ_PRUNE,    /* a prune plan: prune -> plan */
};

/*
 * One read, run by a backend's read op on a reader connection.  Inputs are
 * checked by the generic part (limits, words) and copied into the request
 * (strings stay valid while it runs).  The backend sets rc (0 or an
 * SC_STORE_E* code; ENOTFOUND for a missing graph), errmsg on failure, and
 * on success the one result its kind names.  A result left set when rc is
 * not 0 is freed by the generic part.  Semantics of every kind: the
 * comments of the matching sc_store_* call in sc_store.h (a load sees one
 * snapshot; list pages follow the cursor rules there, `has_more` and the
 * next cursor included).
 */
typedef struct sc_store_read {
    enum sc_store_read_kind kind;
    int64_t graph;         /* LOAD, SKELETON, META */
    sc_graph_query graphs; /* GRAPHS: label and host point into the request */
    sc_log_query log;      /* LOG: outcome a static word, host into the request */
    sc_prune_policy prune; /* PRUNE */
    sc_prune_plan *plan;
    sc_stored_graph *sg;
    sc_graph_meta *meta;
    sc_graph_page *graph_page;
    sc_log_page *log_page;
    /* BACKUP: the absolute path of the copy, SC_STORE_BACKUP_* flags, and
     * the copy's size once written. */
    const char *target;
    unsigned backup_flags;
    uint64_t bytes;
    int rc;
    char errmsg[256];
    size_t scratch; /* the backend's while it runs (e.g. page capacity) */
} sc_store_read;

/* ---- the backend ---- */

/* A final log row the database refused during a stop (defer_log_ends). */
typedef struct sc_store_log_row {
    int64_t session;
    const char *outcome; /* static wire word: failed, closed, abandoned, shutdown */
    uint32_t node_count;
    int64_t ended_ms;
} sc_store_log_row;

typedef struct sc_store_be sc_store_be; /* a backend's state, its own type */

/* count_graphs reports each owner's number of stored graphs through this. */
typedef void (*sc_store_owner_fn)(void *ctx, uint32_t uid, int64_t graphs);

/* Flags of begin. */
enum {
    /* Nothing in this transaction is acknowledged on its own (a chunk of
     * a chunked commit): the backend may relax its durability for it, as
     * long as a later acknowledged transaction makes it durable too. */
    SC_STORE_TXN_UNACKED = 1,
};

/*
 * How the last write transaction ended, beyond its result code
 * (txn_outcome).  A connection to a database server can break with a
 * COMMIT sent and no answer: the backend then reconnects and finds out.
 */
enum sc_store_txn_outcome {
    SC_STORE_TXN_PLAIN = 0, /* as its result says; no connection broke */
    SC_STORE_TXN_COMMITTED, /* committed (result 0), learnt after reconnecting */
    SC_STORE_TXN_ABORTED,   /* COMMIT sent, learnt after reconnecting that it
                             * did not commit (EIO): nothing written */
    SC_STORE_TXN_BROKEN,    /* the connection broke before COMMIT (EIO):
                             * nothing written; a begin connects again */
    SC_STORE_TXN_UNKNOWN,   /* COMMIT sent and its outcome not learnt in
                             * time (EIO): it may have committed */
    SC_STORE_TXN_RESTART,   /* a chunked commit's step failed (EIO, nothing
                             * of it written) because rows of its earlier
                             * UNACKED transactions were lost with a server
                             * that crashed: the commit may start over */
};

typedef struct sc_store_backend {
    const char *name; /* "sqlite", "postgresql": server.info's backend */
    /* write_chunk takes part jobs: captures may be streamed. */
    bool streams;
    /* read takes SC_STORE_READ_BACKUP requests. */
    bool backs_up;

    /*
     * Connect the writer's connection to cfg->path, take whatever lock
     * keeps daemons that may not share the database out, and check that
     * the database is ours and not newer than this daemon (refusing, with
     * a reason in err, before writing anything).  *out is the backend's
     * state, or NULL on failure (nothing left open).  cfg->host is the
     * host name every row this daemon writes carries.  0, EIO, ENOMEM or
     * EINVAL.
     */
    int (*open)(const sc_store_config *cfg, sc_store_be **out, char *err, size_t errlen);
    /*
     * Apply the migrations this database lacks, each at most once even
     * when several daemons start at once (under the backend's own lock),
     * then: delete the rows of chunked commits a dead daemon left pending,
     * end the rows the last stop kept with defer_log_ends (if the backend
     * has it; refusing to start, EIO, when they cannot be applied, so they
     * are never taken for lost), mark this host's `open` log rows `lost`,
     * and prepare the writer's statements.  0, EIO or ENOMEM.  SQLite: when
     * a full disk refuses those two steps the start goes on, and the writer
     * retries them (in that order, for the sessions of the last run only)
     * before later transactions and from idle.
     */
    int (*migrate)(sc_store_be *be, char *err, size_t errlen);
    /* Report the number of stored graphs of each owner uid (every host's
     * rows; each uid once) through `add`.  0, EIO or ENOMEM. */
    int (*count_graphs)(sc_store_be *be, sc_store_owner_fn add, void *ctx, char *err,
                        size_t errlen);
    /* Close every connection of the backend and free it; readers are
     * closed before.  NULL is a no-op. */
    void (*close)(sc_store_be *be);
    /*
     * Optional (NULL: such rows read `lost` after the next start).  Loop
     * thread, inside sc_store_close() after the writer thread stopped and
     * before close, so the backend's lock still keeps the next daemon out:
     * keep `n` final log rows the database refused where the next migrate
     * of the same database finds them and ends them before it marks open
     * rows lost.  Durable when it returns 0; else EIO or ENOMEM, err set.
     * SQLite: written to "<db>.shutdown", into room allocated ahead for
     * every open log row (past it, the reserve freed first when the disk
     * is full).
     */
    int (*defer_log_ends)(sc_store_be *be, const sc_store_log_row *rows, size_t n, char *err,
                          size_t errlen);

    /* Writer thread.  Open a write transaction (flags: SC_STORE_TXN_*).
     * 0, EIO (e.g. busy) or ENOMEM with err set. */
    int (*begin)(sc_store_be *be, unsigned flags, char *err, size_t errlen);
    /* Commit it: 0 once it is durable (as the sync setting says), else
     * EIO/ENOMEM with err set and the transaction still to roll back. */
    int (*commit)(sc_store_be *be, char *err, size_t errlen);
    /* Roll the open transaction back (a no-op when the engine already
     * did).  Never fails as far as the caller is concerned. */
    void (*rollback)(sc_store_be *be);
    /* Optional (NULL: always PLAIN).  After begin, write, write_chunk or
     * commit: an enum sc_store_txn_outcome for the transaction they ran.
     * ABORTED and BROKEN transactions may be run again; an UNKNOWN one
     * never is. */
    int (*txn_outcome)(sc_store_be *be);
    /*
     * Run one job inside the open transaction: 0 (j->id set as for its
     * kind), ENOTFOUND (nothing of the job written: the session's row is
     * missing or not open, the graph does not exist), EBUSY (a delete
     * with keep_pinned met a pinned graph: nothing written), or EIO/ENOMEM
     * with err set (the caller rolls the whole transaction back).  A commit job
     * with u.commit.pending_gid set is the last transaction of a chunked
     * commit: its node and edge rows are stored already under that id;
     * write adds the rest (graph row, index, log/captures row) and drops
     * the reservation.
     */
    int (*write)(sc_store_be *be, sc_store_job *j, char *err, size_t errlen);
    /*
     * One chunk of a chunked commit, inside an open transaction: for the
     * first one (u.commit.pending_gid 0) check the session's row as write
     * does (ENOTFOUND, nothing written) and reserve a graph id, invisible
     * to every reader until the last transaction, setting pending_gid;
     * then store nodes [lo, hi) of u.commit.g and the edges into them, or,
     * for a part job (streams set), of u.commit.part.  0, ENOTFOUND, EIO
     * or ENOMEM (err set).
     */
    int (*write_chunk)(sc_store_be *be, sc_store_job *j, uint32_t lo, uint32_t hi, char *err,
                       size_t errlen);
    /*
     * Optional.  Once every chunk (or part) is stored, inside an open
     * transaction: the reachability index of nodes [lo, hi) of u.commit.g
     * under pending_gid, so that the last transaction does not write a
     * big graph's whole index at once.  The generic writer calls it for
     * consecutive ranges from 0 and keeps the next one in
     * u.commit.index_next; the last transaction stores the index of the
     * nodes from there on.  Without it, the last transaction stores all
     * of it.  0, EIO or ENOMEM (err set).
     */
    int (*write_index)(sc_store_be *be, sc_store_job *j, uint32_t lo, uint32_t hi, char *err,
                       size_t errlen);
    /* Remove, in a transaction of its own, the rows stored so far under a
     * reserved id of a chunked commit that failed.  Best effort: rows it
     * cannot remove stay invisible and go at the next start (migrate).
     * Never the rows of a graph that has its graphs row: a last transaction
     * of unknown outcome may have stored it. */
    void (*drop_chunks)(sc_store_be *be, int64_t gid);
    /* Optional.  Writer thread, with no transaction open: once when it
     * starts, then whenever the queue has stayed empty for as many ms as
     * the last call returned (-1: never again).  Work the backend could
     * not do earlier (SQLite: the start-up recovery a full disk refused). */
    int (*idle)(sc_store_be *be);
    /* After a delete job (or a final log end) failed alone: true when the
     * backend made room for a second attempt (SQLite: a full disk and its
     * reserve file freed; without one, for a delete, the margin of the
     * .shutdown file's room). */
    bool (*make_room)(sc_store_be *be);

    /*
     * Optional (NULL: no other daemon shares the database, so none to hear
     * from).  Notices between the daemons of a fleet, all on the loop
     * thread: notices_open connects a connection of its own to `path`,
     * integrated with `loop`, over which notices_send sends payloads (best
     * effort, never blocking) to every other daemon's listener and whose
     * notices from the others are handed to `fn` (a daemon's own never).
     * notices_close closes it (its handle's close callback frees it).
     * 0, EIO or ENOMEM (err set).
     */
    int (*notices_open)(const char *path, uv_loop_t *loop, sc_store_notice_fn fn, void *arg,
                        sc_store_notices **out, char *err, size_t errlen);
    int (*notices_send)(sc_store_notices *n, const char *payload, size_t len);
    void (*notices_close)(sc_store_notices *n);

    /*
     * Any thread, no store open (sc_store_check): check the database
     * cfg->path names on a connection of its own that writes nothing,
     * reporting each problem through `fn` and counting them in *problems.
     * 0 when the check ran, else EIO/ENOMEM with err set.  NULL: the
     * backend has no check (sc_store_check reports that as EINVAL).
     */
    int (*check)(const sc_store_config *cfg, bool full, sc_store_problem_fn fn, void *ctx,
                 size_t *problems, char *err, size_t errlen);

    /* Pool threads.  A new reader connection: 0, EIO or ENOMEM (err set). */
    int (*reader_open)(sc_store_be *be, void **reader, char *err, size_t errlen);
    void (*reader_close)(void *reader);
    /* Run a read request on the reader (see sc_store_read). */
    void (*read)(void *reader, sc_store_read *rq);
} sc_store_backend;

extern const sc_store_backend sc_store_sqlite_backend;
#ifdef SC_HAVE_POSTGRESQL
extern const sc_store_backend sc_store_pg_backend;
#endif

/* True when the --db text names a PostgreSQL database: it begins with
 * "postgresql://" or "postgres:" (libpq's URI forms). */
bool sc_store_db_is_postgresql(const char *db);
/*
 * The backend for the --db text: PostgreSQL for those URIs, else SQLite
 * (the text is a path).  0, or SC_STORE_EINVAL with err saying "this
 * streamcapd was built without PostgreSQL support" when that backend is
 * not built in.
 */
int sc_store_backend_for(const char *db, const sc_store_backend **out, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
