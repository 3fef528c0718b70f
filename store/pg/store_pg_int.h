/*
 * store_pg_int.h - internals of the PostgreSQL backend (store_pg.h),
 * shared by store_pg.c (errors, parameters, connecting, the schema and
 * the backend's vtable), store_pg_txn.c (write transactions),
 * store_pg_write.c (COPY and the writer's jobs), store_pg_args.c (kernel
 * arguments in COPY rows) and store_pg_read.c (the reader connections and
 * their reads).  Not part of the API.
 *
 * Result codes: functions here return 0 or an SC_STORE_E* code and say
 * why in `err` (`len` bytes); libpq's statuses never leave the backend.
 */
#ifndef SC_STORE_PG_INT_H
#define SC_STORE_PG_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <libpq-fe.h>

#include "store_int.h"
#include "store_pg.h"

/* $n (Unix ms) as timestamptz, and a timestamptz column as Unix ms; both exact. */
#define TS_IN(n)  "('epoch'::timestamptz + $" #n "::bigint * interval '1 millisecond')"
#define TS_OUT(c) "(extract(epoch from " c ") * 1000)::bigint"

struct sc_store_be {
    PGconn *conn;
    PGconn *lock;       /* holds this host name's advisory lock for the store's life */
    char lock_name[96]; /* the lock connection's application_name, kept across resets */
    int64_t lock_key;   /* the host name's advisory lock key */
    bool lock_held;     /* the lock was taken on `lock` and the connection not lost since */
    uint64_t lock_gen;  /* the writer's generation when the lock was last known held */
    char *uri;
    char *host;
    char *host_lit; /* host as an SQL literal, for the BEGIN batch */
    bool binary;
    int busy_timeout_ms; /* lock_timeout of write transactions */
    int reconnect_ms;    /* how long a write waits for a broken connection */
    int64_t write_seq;   /* hosts.write_seq of the last write transaction */
    uint64_t generation; /* connections of the writer so far (1 after open) */
    int outcome;         /* enum sc_store_txn_outcome of the last transaction */
};

typedef struct pg_reader {
    PGconn *conn;
    const sc_store_be *be;
} pg_reader;

/* store_pg.c: errors.  "what: why" into err, without why's trailing
 * newlines and spaces. */
void pg_set_err(char *err, size_t len, const char *what, const char *why);
/* The store code of a failed call on `conn` (res NULL or its result),
 * with the reason in err: ENOMEM when libpq ran out of memory, else EIO. */
int pg_fail(PGconn *conn, const PGresult *res, const char *what, char *err, size_t len);
/* Reset a broken connection before it is used again: 0 or EIO. */
int pg_ready(PGconn *conn, char *err, size_t len);
/* The writer's connection, reset until it works or `deadline_us`
 * (pg_now_us) passes: 0, or EIO with err set.  Each reset that worked
 * counts in be->generation. */
int pg_writer_ready(sc_store_be *be, uint64_t deadline_us, char *err, size_t len);
/* The host name's lock, checked before every write: 0 when this daemon
 * holds it.  Cheap (one poll(), no round trip) while nothing arrived on
 * the lock connection and the writer has not reconnected since the last
 * check; otherwise one round trip checks it, and a lost connection is made
 * again (until `deadline_us`) and the lock taken again.  EIO with err
 * naming the holder when another daemon took the host name meanwhile; the
 * next call tries again. */
int pg_host_locked(sc_store_be *be, uint64_t deadline_us, char *err, size_t len);
/* CLOCK_MONOTONIC in microseconds. */
uint64_t pg_now_us(void);

/* store_pg.c: the parameters of one statement, as text (NULL for SQL
 * NULL); p_text's copies are owned, and freed by p_free. */
enum { MAX_PARAMS = 20 };
typedef struct params {
    const char *v[MAX_PARAMS];
    char num[MAX_PARAMS][24];
    char *owned[MAX_PARAMS];
    int n;
} params;

static inline void p_i64(params *p, int64_t x)
{
    snprintf(p->num[p->n], sizeof p->num[p->n], "%lld", (long long)x);
    p->v[p->n] = p->num[p->n];
    p->n++;
}
static inline void p_null(params *p)
{
    p->v[p->n++] = NULL;
}
static inline void p_word(params *p, const char *s)
{
    p->v[p->n++] = s;
}

/* Text PostgreSQL can hold: valid UTF-8 without NUL (bytes that are not
 * become U+FFFD, as readers of the SQLite store see them).  NULL when out
 * of memory. */
char *pg_clean_text(const char *s, size_t len);

static inline bool p_text(params *p, const char *s, size_t len)
{
    char *t = pg_clean_text(s, len);
    if (!t)
        return false;
    p->owned[p->n] = t;
    p->v[p->n++] = t;
    return true;
}
static inline void p_free(params *p)
{
    for (int i = 0; i < p->n; i++)
        free(p->owned[i]);
}

/* Run `sql` with p; the result on success (status `want`), else NULL with
 * *rc set. */
PGresult *pg_run(PGconn *conn, const char *sql, const params *p, ExecStatusType want,
                 const char *what, int *rc, char *err, size_t len);
/* Run a command with p: 0, or the store code with err set; *changed (when
 * not NULL) gets the rows it changed. */
int pg_exec(PGconn *conn, const char *sql, const params *p, const char *what, char *err, size_t len,
            int64_t *changed);

/* A column as a number, 0 for NULL. */
static inline int64_t col_i64(const PGresult *r, int row, int col)
{
    return PQgetisnull(r, row, col) ? 0 : strtoll(PQgetvalue(r, row, col), NULL, 10);
}
static inline uint32_t col_u32(const PGresult *r, int row, int col)
{
    return (uint32_t)col_i64(r, row, col);
}

/* A new connection to `uri` (set to UTC, notices silenced); NULL with *rc
 * (ENOMEM or EIO) and err set. */
PGconn *pg_connect(const char *uri, char *err, size_t len, int *rc);

/* store_pg_txn.c: the writer's transactions. */
int store_pg_begin(sc_store_be *be, unsigned flags, char *err, size_t len);
int store_pg_commit(sc_store_be *be, char *err, size_t len);
void store_pg_rollback(sc_store_be *be);
int store_pg_txn_outcome(sc_store_be *be);

/* store_pg_write.c: the writer's jobs of the vtable. */
int store_pg_write(sc_store_be *be, sc_store_job *j, char *err, size_t len);
int store_pg_write_chunk(sc_store_be *be, sc_store_job *j, uint32_t lo, uint32_t hi, char *err,
                         size_t len);
void store_pg_drop_chunks(sc_store_be *be, int64_t gid);
/* SC_STORE_JOB_DELETE_GRAPH: 0, ENOTFOUND, EBUSY (a pinned graph it keeps), EIO. */
int store_pg_delete_graph(sc_store_be *be, sc_store_job *j, char *err, size_t len);

/* store_pg_prune.c: pinning, prune and retention jobs (as write), and the
 * prune plan on a reader. */
int store_pg_pin(sc_store_be *be, sc_store_job *j, char *err, size_t len);
int store_pg_prune_graphs(sc_store_be *be, sc_store_job *j, char *err, size_t len);
int store_pg_prune_log(sc_store_be *be, sc_store_job *j, char *err, size_t len);
void store_pg_plan(PGconn *c, sc_store_read *rq);
/* store_pg_read.c: the SQL and parameters of a graph.list or log.list page
 * (`host`: this daemon's, for a caller that is not root), for the reads
 * and for the tests of their plans.  False when out of memory or past cap (free p
 * with p_free either way). */
bool store_pg_graphs_sql(const sc_graph_query *q, const char *host, char *sql, size_t cap,
                         params *p);
bool store_pg_log_sql(const sc_log_query *q, const char *host, char *sql, size_t cap, params *p);
bool store_pg_make_room(sc_store_be *be);

/* store_pg_read.c: the readers' operations of the vtable. */
int store_pg_reader_open(sc_store_be *be, void **reader, char *err, size_t len);
void store_pg_reader_close(void *reader);
void store_pg_read(void *reader, sc_store_read *rq);

/* A kernel node's args (bytea) and param_sizes (int4[]) as two fields of
 * a COPY row, binary or text (text: each followed by a tab), or two
 * NULLs; at most store_pg_args_room(n) bytes at out.  Returns the bytes
 * written.  store_pg_args.c. */
size_t store_pg_args_room(const sc_node *n);
size_t store_pg_args(const sc_node *n, bool bin, char *out);

/* store_pg_check.c: the integrity check (sc_store_check), on `conn` (the
 * writer's at start-up, cheap) or on a read-only connection of its own
 * (check of the vtable).  0, or the store code of a query that failed. */
int store_pg_check_conn(PGconn *conn, bool full, sc_store_problem_fn fn, void *ctx,
                        size_t *problems, char *err, size_t len);
int store_pg_check(const sc_store_config *cfg, bool full, sc_store_problem_fn fn, void *ctx,
                   size_t *problems, char *err, size_t len);

/* store_pg_notice.c: the fleet's notices (store_backend.h notices_*). */
int store_pg_notices_open(const char *path, uv_loop_t *loop, sc_store_notice_fn fn, void *arg,
                          sc_store_notices **out, char *err, size_t errlen);
int store_pg_notices_send(sc_store_notices *n, const char *payload, size_t len);
void store_pg_notices_close(sc_store_notices *n);

#endif
