/*
 * store_sqlite.h - internals of the SQLite backend (store_backend.h),
 * shared by store_sqlite.c (open, lock, schema, migrations, readers),
 * store_sqlite_write.c (the writer connection and its jobs),
 * store_sqlite_read.c (read requests) and store_sqlite_rows.c.
 *
 * Result codes: functions named sql_* (and store_rows_register) return
 * SQLite's result codes, every other one 0 or an SC_STORE_E* code; a
 * SQLite failure becomes SC_STORE_EIO (or SC_STORE_ENOMEM) where a store
 * function makes the SQLite call.  SQLite codes never leave the backend.
 */
#ifndef SC_STORE_SQLITE_H
#define SC_STORE_SQLITE_H

#include <stdbool.h>
#include <stdint.h>

#include <sqlite3.h>

#include "store_int.h"

/* The backend's state: the writer connection and its statements, prepared
 * once in migrate, and what opening readers needs. */
typedef struct sc_store_be {
    char *path; /* the database file */
    char *host; /* written on every row */
    int busy_timeout_ms;
    int lock_fd; /* the database file, flock'ed for the backend's life; -1 before */
    int64_t max_page_count;
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
    sqlite3_stmt *index_insert;
    sqlite3_stmt *graph_session;
    sqlite3_stmt *index_delete;
    sqlite3_stmt *nodes_delete;
    sqlite3_stmt *graph_delete;
    sqlite3_stmt *log_graph_deleted;
    sqlite3_stmt *graph_insert_cuda;
    sqlite3_stmt *fp_update;
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
    bool relaxed;    /* the open transaction runs with synchronous=NORMAL */
    const char *why; /* set when a job fails for a reason SQLite does not know */
    bool nomem;      /* the failure was memory running out (SQLite's or ours) */
    bool full;       /* the failure was SQLITE_FULL (the disk or max_page_count) */
    bool deleting;   /* the last job written was a graph delete */
    /* Space kept next to the database for deletes on a full disk
     * (store_sqlite_write.c): "<db>.reserve", STORE_RESERVE_BYTES when present. */
    char *reserve_path;
    bool have_reserve;
    bool checkpoint_due;       /* the reserve was spent: checkpoint after the next commit */
    uint64_t reserve_retry_ms; /* monotonic time of the next attempt to make it */
    bool reserve_warned;       /* the warning that it could not be made was given */
    /* "<db>.shutdown" (store_sqlite_stop.c), kept open and allocated ahead
     * for the final log rows a stop may have to keep there. */
    int stop_fd;        /* -1: none (an in-memory database, or it cannot be opened) */
    uint64_t stop_cap;  /* bytes allocated to it (its size) */
    uint64_t stop_used; /* bytes of rows in it, before the zeros */
    int64_t open_rows;  /* at least the number of log rows still open */
    bool stop_warned;   /* the warning that it could not grow was given */
    /* Start-up recovery (the last stop's rows, then `lost`) that a full
     * disk refused: retried before the writer's transactions. */
    bool recovery_due;
    int64_t recovery_below; /* only sessions up to this id are the dead daemon's */
    uint64_t recovery_retry_ms;
    void (*warn)(void *ctx, const char *msg);
    void *warn_ctx;
} store_writer;

#define STORE_RESERVE_BYTES (1u << 20)
/* The reserve made at start when less than twice STORE_RESERVE_BYTES is
 * free: half the free space, at least this much, or none. */
#define STORE_RESERVE_MIN_BYTES (64u << 10)
/* A line of "<db>.shutdown" is at most 62 bytes (store_sqlite_stop.c). */
#define STORE_STOP_ROW_BYTES 64u
/* Rows allocated ahead of the open ones, 256 KiB: most session.opens
 * need no allocation, and a delete on a full disk without the reserve has
 * room for the log pages of a graph of about 1 MB (store_stop_shrink). */
#define STORE_STOP_SPARE_ROWS 4096u

/* A warning for the operator through the store's config, if it has one. */
void store_sqlite_warn(store_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* store_sqlite_write.c, for the writer's other files: step a statement
 * that returns no row (SQLITE_OK, or SQLite's error) and bind a Unix ms
 * time as the tables hold it.  store_sqlite_prune.c: delete a graph
 * (SC_STORE_JOB_DELETE_GRAPH's job: 0, ENOTFOUND, EBUSY for a pinned one
 * it keeps, or EIO). */
int sql_step_done(sqlite3_stmt *s);
void store_sqlite_bind_time(sqlite3_stmt *s, int idx, int64_t ms);
int store_sqlite_delete_graph(store_writer *w, store_job *j);
/* Run a delete statement keyed by graph id (?1): SQLITE_OK or SQLite's error. */
int sql_delete_rows(sqlite3_stmt *s, int64_t graph);

/* store_sqlite_prune.c: the jobs of pinning, prune, retention and vacuum
 * (0, ENOTFOUND or EIO, as write), and the prune plan on a reader. */
int store_sqlite_pin(store_writer *w, store_job *j);
int store_sqlite_prune_graphs(store_writer *w, store_job *j);
int store_sqlite_prune_log(store_writer *w, store_job *j);
int store_sqlite_vacuum(store_writer *w, store_job *j);
void store_sqlite_plan(sqlite3 *db, sc_store_read *q);

/* store_sqlite_fp.c: a fingerprint bound as the graphs table holds it (16
 * lowercase hex digits), and SC_STORE_JOB_SET_FPS (0 or SC_STORE_EIO). */
void store_bind_fp(sqlite3_stmt *s, int idx, uint64_t v);
int store_sqlite_set_fps(store_writer *w, store_job *j);

/* store_sqlite_rows.c: the table-valued function sc_node_chunks(G), the
 * node_chunks rows (lo, nodes) of a sealed graph G bound with
 * sqlite3_bind_pointer(stmt, i, g, STORE_GRAPH_PTR, NULL).  SQLITE_OK or
 * SQLite's error. */
#define STORE_GRAPH_PTR "streamcap.sc_graph"
/* Or a range of one, bound with STORE_RANGE_PTR: the nodes lo .. hi-1 and
 * the edges into them (a chunk of a chunked commit), or of a part of a
 * streamed capture (sc_store_stream_part). */
#define STORE_RANGE_PTR "streamcap.sc_graph_range"
typedef struct store_rows_range {
    const sc_graph *g;         /* the nodes of a sealed graph, */
    const sc_store_part *part; /* or of a part (the other one NULL) */
    uint32_t lo, hi;
} store_rows_range;
int store_rows_register(sqlite3 *db);

/* store_sqlite_write.c: the writer's operations of the vtable. */
int store_writer_prepare(store_writer *w, char *errbuf, size_t errlen);
void store_writer_finalize(store_writer *w);
int store_sqlite_begin(sc_store_be *be, unsigned flags, char *err, size_t errlen);
int store_sqlite_commit(sc_store_be *be, char *err, size_t errlen);
void store_sqlite_rollback(sc_store_be *be);
int store_sqlite_write(sc_store_be *be, sc_store_job *j, char *err, size_t errlen);
int store_sqlite_write_chunk(sc_store_be *be, sc_store_job *j, uint32_t lo, uint32_t hi, char *err,
                             size_t errlen);
int store_sqlite_write_index(sc_store_be *be, sc_store_job *j, uint32_t lo, uint32_t hi, char *err,
                             size_t errlen);
void store_sqlite_drop_chunks(sc_store_be *be, int64_t gid);
bool store_sqlite_make_room(sc_store_be *be);
/* idle of the vtable: the reserve while it is missing and the start-up
 * recovery a full disk refused, tried every second until they succeed. */
int store_sqlite_idle(sc_store_be *be);
/* Give the reserve's space back to the filesystem: true when there was one. */
bool store_writer_release_reserve(store_writer *w);
/* At migrate, before the writer runs: delete the rows of graphs a dead
 * daemon left pending.  SQLite's result code. */
int store_writer_recover(sqlite3 *db);

/* store_sqlite_stop.c: final log rows a stop could not write, kept in
 * "<db>.shutdown".  defer_log_ends of the vtable. */
int store_sqlite_defer_log_ends(sc_store_be *be, const sc_store_log_row *rows, size_t n, char *err,
                                size_t errlen);
/* At migrate, before the writer runs: open the file (created when
 * missing) and find the rows the last stop left in it.  0 or EIO. */
int store_stop_open(store_writer *w, char *err, size_t errlen);
/* End the rows the file names that are still open, in one transaction,
 * then zero them in place (the space stays allocated).  SQLite's result
 * code: on failure nothing changed and the rows stay. */
int store_stop_apply(store_writer *w);
/* Room in the file for the final rows of `rows` open sessions, allocated
 * now, growing it by `margin` rows more when it grows and they fit: 0, or
 * an errno value (ENOSPC: the disk is full). */
int store_stop_room(store_writer *w, int64_t rows, int64_t margin);
/* Give back the room beyond the rows of `rows` open sessions: true when
 * that freed space (a delete on a full disk without the reserve). */
bool store_stop_shrink(store_writer *w, int64_t rows);
void store_stop_close(store_writer *w);
/* The start's recovery: the rows the last stop kept, then every row of a
 * session up to recovery_below still open is `lost`.  SQLite's code. */
int store_sqlite_recover_sessions(store_writer *w);

/* The SQLite backend's list statements (store_sqlite_lists.c), one per
 * combination of filters, so that the planner can pick the index that
 * serves both the filter and the order.  Declared in this header, which
 * the tests include, so that they can check the query plans. */
enum {
    STORE_GRAPHS_BY_OWNER = 1,
    STORE_GRAPHS_BY_LABEL = 2,
    STORE_GRAPHS_BY_HOST = 4,
    STORE_GRAPHS_BY_FP = 8,
    STORE_GRAPHS_VARIANTS = 16,
};
enum {
    STORE_LOG_CURSOR = 1,
    STORE_LOG_BY_OWNER = 2,
    STORE_LOG_BY_OUTCOME = 4,
    STORE_LOG_BY_HOST = 8,
    STORE_LOG_VARIANTS = 16,
};
/* What a graph row read for graph.get and graph.list holds, in order. */
#define STORE_GRAPH_COLUMNS                                                                        \
    "graph, session, label, created_at, owner_uid, owner_pid, node_count, edge_count,"             \
    " stream_count, semantics, capture, host, parent_graph, parent_node, parent_index,"            \
    " fp_structure, fp_full, pinned"
#define STORE_LIST_SQL_MAX 2048
void store_graphs_sql(int variant, char *buf, size_t len);
void store_log_sql(int variant, char *buf, size_t len);

/* store_sqlite_read.c: the readers' operations of the vtable. */
int store_sqlite_reader_open(sc_store_be *be, void **reader, char *err, size_t errlen);
void store_sqlite_reader_close(void *reader);
void store_sqlite_read(void *reader, sc_store_read *rq);

/* store_sqlite_check.c: the integrity check (sc_store_check) on `db`,
 * cheap or full, every problem through fn, counted in *problems; 0, or
 * EIO/ENOMEM when a query could not run.  check of the vtable opens a
 * read-only connection of its own for it. */
int store_sqlite_check_db(sqlite3 *db, bool full, sc_store_problem_fn fn, void *ctx,
                          size_t *problems, char *err, size_t errlen);
int store_sqlite_check(const sc_store_config *cfg, bool full, sc_store_problem_fn fn, void *ctx,
                       size_t *problems, char *err, size_t errlen);

/* store_sqlite_backup.c: SC_STORE_READ_BACKUP on a reader's connection. */
void store_sqlite_backup(sqlite3 *db, sc_store_read *q);

#endif
