/*
 * store_pg.c - the PostgreSQL backend (store_backend.h) on libpq: the
 * schema of schema/pg, the writer's connection and its jobs, and the
 * reader connections.
 *
 * Many daemons may share one database: every row names the host that
 * wrote it, ids come from sequences, migrations run under an advisory
 * lock, and start-up recovery touches only this host's rows.
 *
 * A connection that broke (server stopped, restarted) makes its call fail
 * with SC_STORE_EIO, so no client is told a write succeeded that did not;
 * the next transaction or read on it calls PQreset first, so the daemon
 * recovers once the server is back without being restarted.
 *
 * Times are sent and read as Unix milliseconds and converted by the
 * server (TS_IN / TS_OUT), so the columns are real timestamptz for psql.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "sc_json.h"
#include "sc_schema.h"
#include "store_int.h"
#include "store_pg.h"

/* $n (Unix ms) as timestamptz, and a timestamptz column as Unix ms; both exact. */
#define TS_IN(n)   "('epoch'::timestamptz + $" #n "::bigint * interval '1 millisecond')"
#define TS_OUT(c)  "(extract(epoch from " c ") * 1000)::bigint"
#define COPY_CHUNK (1u << 18)
/* Arbitrary, fixed: the key of the advisory lock migrations run under. */
#define MIGRATE_LOCK "7460287355100731731"

struct sc_store_be {
    PGconn *conn;
    char *uri;
    char *host;
    bool binary;
    int busy_timeout_ms; /* lock_timeout of write transactions */
};

typedef struct pg_reader {
    PGconn *conn;
    const sc_store_be *be;
} pg_reader;

/* ---- errors ---- */

static void set_err(char *err, size_t len, const char *what, const char *why)
{
    if (!err || !len)
        return;
    size_t n = why ? strlen(why) : 0;
    while (n > 0 && (why[n - 1] == '\n' || why[n - 1] == ' '))
        n--;
    if (why && n)
        snprintf(err, len, "%s: %.*s", what, (int)n, why);
    else
        snprintf(err, len, "%s", what);
}

/* The store code of a failed call on `conn`: memory running out on our
 * side (libpq returns no result at all) is ENOMEM, everything else EIO. */
static int pg_fail(PGconn *conn, const PGresult *res, const char *what, char *err, size_t len)
{
    if (!res && PQstatus(conn) == CONNECTION_OK) {
        set_err(err, len, what, "out of memory");
        return SC_STORE_ENOMEM;
    }
    const char *why = res ? PQresultErrorMessage(res) : PQerrorMessage(conn);
    if (PQstatus(conn) != CONNECTION_OK) {
        char buf[200];
        snprintf(buf, sizeof buf, "connection to the database lost: %s", why ? why : "");
        set_err(err, len, what, buf);
    } else {
        set_err(err, len, what, why);
    }
    return SC_STORE_EIO;
}

/* A broken connection is reset before it is used again. */
static int pg_ready(PGconn *conn, char *err, size_t len)
{
    if (PQstatus(conn) == CONNECTION_OK)
        return 0;
    PQreset(conn);
    if (PQstatus(conn) == CONNECTION_OK)
        return 0;
    set_err(err, len, "cannot reach the database", PQerrorMessage(conn));
    return SC_STORE_EIO;
}

/* ---- parameters ---- */

enum { MAX_PARAMS = 20 };
typedef struct params {
    const char *v[MAX_PARAMS];
    char num[MAX_PARAMS][24];
    char *owned[MAX_PARAMS];
    int n;
} params;

static void p_i64(params *p, int64_t x)
{
    snprintf(p->num[p->n], sizeof p->num[p->n], "%lld", (long long)x);
    p->v[p->n] = p->num[p->n];
    p->n++;
}

static void p_null(params *p)
{
    p->v[p->n++] = NULL;
}

static void p_word(params *p, const char *s)
{
    p->v[p->n++] = s;
}

/* Text PostgreSQL can hold: valid UTF-8 without NUL (bytes that are not
 * become U+FFFD, as readers of the SQLite store see them).  NULL when out
 * of memory. */
static char *clean_text(const char *s, size_t len)
{
    if (!s)
        len = 0;
    char *out = malloc(3 * len + 1);
    if (!out)
        return NULL;
    size_t n = len ? sc_utf8_scrub(s, len, out) : 0;
    out[n] = '\0';
    if (memchr(out, '\0', n) == NULL)
        return out;
    /* NUL bytes are valid UTF-8 but not PostgreSQL text. */
    char *fixed = malloc(3 * n + 1);
    size_t k = 0;
    if (fixed)
        for (size_t i = 0; i < n; i++) {
            if (out[i])
                fixed[k++] = out[i];
            else {
                memcpy(fixed + k, "\xef\xbf\xbd", 3);
                k += 3;
            }
        }
    if (fixed)
        fixed[k] = '\0';
    free(out);
    return fixed;
}

static bool p_text(params *p, const char *s, size_t len)
{
    char *t = clean_text(s, len);
    if (!t)
        return false;
    p->owned[p->n] = t;
    p->v[p->n++] = t;
    return true;
}

static void p_free(params *p)
{
    for (int i = 0; i < p->n; i++)
        free(p->owned[i]);
}

/* Run `sql` with p; the result on success (status `want`), else NULL with
 * *rc set. */
static PGresult *run(PGconn *conn, const char *sql, const params *p, ExecStatusType want,
                     const char *what, int *rc, char *err, size_t len)
{
    PGresult *res = PQexecParams(conn, sql, p ? p->n : 0, NULL, p ? p->v : NULL, NULL, NULL, 0);
    if (res && PQresultStatus(res) == want)
        return res;
    *rc = pg_fail(conn, res, what, err, len);
    PQclear(res);
    return NULL;
}

static int exec_cmd(PGconn *conn, const char *sql, const params *p, const char *what, char *err,
                    size_t len, int64_t *changed)
{
    int rc = 0;
    PGresult *res = run(conn, sql, p, PGRES_COMMAND_OK, what, &rc, err, len);
    if (!res)
        return rc;
    if (changed)
        *changed = strtoll(PQcmdTuples(res), NULL, 10);
    PQclear(res);
    return 0;
}

static int64_t col_i64(const PGresult *r, int row, int col)
{
    return PQgetisnull(r, row, col) ? 0 : strtoll(PQgetvalue(r, row, col), NULL, 10);
}

static uint32_t col_u32(const PGresult *r, int row, int col)
{
    return (uint32_t)col_i64(r, row, col);
}

/* ---- connecting ---- */

/* libpq takes postgresql:// and postgres:// URIs itself; "postgres:" followed
 * by anything else is a keyword=value connection string. */
static const char *conninfo_of(const char *db)
{
    if (strncmp(db, "postgres:", 9) == 0 && strncmp(db, "postgres://", 11) != 0)
        return db + 9;
    return db;
}

static PGconn *pg_connect(const char *uri, char *err, size_t len, int *rc)
{
    PGconn *conn = PQconnectdb(conninfo_of(uri));
    if (!conn) {
        set_err(err, len, "cannot connect to the database", "out of memory");
        *rc = SC_STORE_ENOMEM;
        return NULL;
    }
    if (PQstatus(conn) != CONNECTION_OK) {
        /* libpq's message names host and port, never the password. */
        set_err(err, len, "cannot connect to the database", PQerrorMessage(conn));
        PQfinish(conn);
        *rc = SC_STORE_EIO;
        return NULL;
    }
    /* Notices (e.g. "relation already exists, skipping") are not errors. */
    PQsetNoticeProcessor(conn, NULL, NULL);
    PGresult *res = PQexec(conn, "SET TIME ZONE 'UTC'");
    PQclear(res);
    return conn;
}

static void pg_close(sc_store_be *be)
{
    if (!be)
        return;
    if (be->conn)
        PQfinish(be->conn);
    free(be->uri);
    free(be->host);
    free(be);
}

static int pg_open(const sc_store_config *cfg, sc_store_be **out, char *err, size_t len)
{
    *out = NULL;
    if (!cfg || !cfg->path) {
        set_err(err, len, "no database given", NULL);
        return SC_STORE_EINVAL;
    }
    sc_store_be *be = calloc(1, sizeof *be);
    if (!be || !(be->uri = store_strdup(cfg->path)) ||
        !(be->host = store_strdup(cfg->host ? cfg->host : ""))) {
        pg_close(be);
        set_err(err, len, "out of memory", NULL);
        return SC_STORE_ENOMEM;
    }
    const char *copy = getenv("STREAMCAP_PG_COPY");
    be->binary = copy && strcmp(copy, "binary") == 0;
    be->busy_timeout_ms = cfg->busy_timeout_ms > 0 ? cfg->busy_timeout_ms : 5000;
    int rc = 0;
    if (!(be->conn = pg_connect(be->uri, err, len, &rc))) {
        pg_close(be);
        return rc;
    }
    *out = be;
    return 0;
}

void store_pg_set_copy_binary(sc_store_be *be, bool binary)
{
    be->binary = binary;
}

/* ---- schema ---- */

static int latest_version(void)
{
    int v = 0;
    for (size_t i = 0; i < sc_pg_migration_count; i++)
        if (sc_pg_migrations[i].version > v)
            v = sc_pg_migrations[i].version;
    return v;
}

/* The database's version: 0 for an empty database, -1 for one that has
 * tables of ours (or anyone's called so) but no schema_migrations. */
static int db_version(PGconn *c, int *version, char *err, size_t len)
{
    int rc = 0;
    PGresult *r = run(c,
                      /* pg_tables, not to_regclass: a plain scan sees what a daemon
                       * that held the lock before us committed; the relation cache
                       * may not yet. */
                      "SELECT count(*) FILTER (WHERE tablename = 'schema_migrations') > 0,"
                      " count(*) FILTER (WHERE tablename = 'graphs') > 0 FROM pg_tables"
                      " WHERE schemaname = current_schema()",
                      NULL, PGRES_TUPLES_OK, "cannot read the schema version", &rc, err, len);
    if (!r)
        return rc;
    bool have_mig = PQgetvalue(r, 0, 0)[0] == 't', have_graphs = PQgetvalue(r, 0, 1)[0] == 't';
    PQclear(r);
    if (!have_mig) {
        *version = have_graphs ? -1 : 0;
        return 0;
    }
    r = run(c, "SELECT coalesce(max(version), 0) FROM schema_migrations", NULL, PGRES_TUPLES_OK,
            "cannot read the schema version", &rc, err, len);
    if (!r)
        return rc;
    *version = (int)col_i64(r, 0, 0);
    PQclear(r);
    return 0;
}

/* One migration in its own transaction, under the lock: a daemon that
 * waited for another finds it applied and skips it. */
static int apply_one(PGconn *c, const sc_migration *m, char *err, size_t len)
{
    int rc = exec_cmd(c, "BEGIN", NULL, "cannot begin a migration", err, len, NULL);
    if (rc)
        return rc;
    if (rc == 0) {
        PGresult *r = run(c, "SELECT pg_advisory_xact_lock(" MIGRATE_LOCK ")", NULL,
                          PGRES_TUPLES_OK, "cannot take the migration lock", &rc, err, len);
        PQclear(r);
    }
    int version = 0;
    if (rc == 0)
        rc = db_version(c, &version, err, len);
    if (rc == 0 && version < 0) {
        set_err(err, len,
                "the database is not a streamcap database (tables but no schema_migrations)", NULL);
        rc = SC_STORE_EIO;
    }
    if (rc == 0 && version < m->version) {
        PGresult *r = PQexec(c, m->sql);
        if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) {
            char what[96];
            snprintf(what, sizeof what, "migration %s failed", m->name);
            rc = pg_fail(c, r, what, err, len);
        }
        PQclear(r);
        if (rc == 0) {
            rc = exec_cmd(
                c,
                "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY,"
                " name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
                NULL, "cannot record the migration", err, len, NULL);
        }
        if (rc == 0) {
            params p = {0};
            p_i64(&p, m->version);
            p_word(&p, m->name);
            rc = exec_cmd(c, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", &p,
                          "cannot record the migration", err, len, NULL);
        }
    }
    if (rc == 0)
        rc = exec_cmd(c, "COMMIT", NULL, "cannot commit a migration", err, len, NULL);
    if (rc) {
        PGresult *r = PQexec(c, "ROLLBACK");
        PQclear(r);
    }
    return rc;
}

/* This host's leftovers from a daemon that died: open sessions become
 * lost, pending chunked graphs go.  Other hosts' rows are their own. */
static int recover_host(sc_store_be *be, char *err, size_t len)
{
    PGconn *c = be->conn;
    params p = {0};
    p_word(&p, be->host);
    static const char *const steps[] = {
        "BEGIN",
        ("INSERT INTO hosts (host) VALUES ($1)"
         " ON CONFLICT (host) DO UPDATE SET last_start = now()"),
        "UPDATE capture_log SET outcome = 'lost' WHERE host = $1 AND outcome = 'open'",
        "DELETE FROM edges WHERE graph IN (SELECT graph FROM pending_graphs WHERE host = $1)",
        "DELETE FROM nodes WHERE graph IN (SELECT graph FROM pending_graphs WHERE host = $1)",
        "DELETE FROM pending_graphs WHERE host = $1",
        "COMMIT",
    };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        bool bare = i == 0 || i + 1 == sizeof steps / sizeof steps[0];
        int rc = exec_cmd(c, steps[i], bare ? NULL : &p, "cannot recover this host's rows", err,
                          len, NULL);
        if (rc) {
            PGresult *r = PQexec(c, "ROLLBACK");
            PQclear(r);
            return rc;
        }
    }
    return 0;
}

static int pg_migrate(sc_store_be *be, char *err, size_t len)
{
    int version = 0, rc = db_version(be->conn, &version, err, len);
    if (rc)
        return rc;
    int latest = latest_version();
    if (version > latest) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "the database has schema version %d, newer than this streamcapd's %d", version,
                 latest);
        set_err(err, len, msg, NULL);
        return SC_STORE_EIO;
    }
    for (size_t i = 0; i < sc_pg_migration_count && rc == 0; i++)
        if (sc_pg_migrations[i].version > version)
            rc = apply_one(be->conn, &sc_pg_migrations[i], err, len);
    return rc ? rc : recover_host(be, err, len);
}

static int pg_count_graphs(sc_store_be *be, sc_store_owner_fn add, void *ctx, char *err, size_t len)
{
    params p = {0};
    p_word(&p, be->host);
    int rc = 0;
    PGresult *r =
        run(be->conn, "SELECT owner_uid, count(*) FROM graphs WHERE host = $1 GROUP BY owner_uid",
            &p, PGRES_TUPLES_OK, "cannot count the stored graphs", &rc, err, len);
    if (!r)
        return rc;
    for (int i = 0; i < PQntuples(r); i++)
        add(ctx, col_u32(r, i, 0), col_i64(r, i, 1));
    PQclear(r);
    return 0;
}

/* ---- transactions ---- */

static int pg_begin(sc_store_be *be, unsigned flags, char *err, size_t len)
{
    int rc = pg_ready(be->conn, err, len);
    if (rc)
        return rc;
    /*
     * As SQLite's BEGIN IMMEDIATE: the locks every write takes anyway are
     * taken up front, so that a lock held elsewhere (LOCK TABLE, DDL, a
     * VACUUM FULL) fails the begin, after the busy timeout, and not
     * forever or job by job.  ROW EXCLUSIVE does not conflict with itself:
     * the other daemons of the fleet keep writing at the same time.
     */
    /* A chunk is acknowledged by the last transaction of its commit only,
     * whose flush covers it: it need not wait for its own. */
    char begin[360];
    snprintf(begin, sizeof begin,
             "BEGIN; SET LOCAL lock_timeout = %d;%s"
             " LOCK TABLE capture_log, graphs, nodes, edges, graph_index, captures,"
             " pending_graphs IN ROW EXCLUSIVE MODE",
             be->busy_timeout_ms,
             (flags & SC_STORE_TXN_UNACKED) ? " SET LOCAL synchronous_commit = off;" : "");
    PGresult *res = PQexec(be->conn, begin);
    if (!res || PQresultStatus(res) != PGRES_COMMAND_OK) {
        rc = pg_fail(be->conn, res, "cannot begin a write", err, len);
        PQclear(res);
        /* A failed statement after BEGIN leaves the transaction open. */
        PQclear(PQexec(be->conn, "ROLLBACK"));
        return rc;
    }
    PQclear(res);
    return rc;
}

static int pg_commit(sc_store_be *be, char *err, size_t len)
{
    return exec_cmd(be->conn, "COMMIT", NULL, "cannot commit", err, len, NULL);
}

static void pg_rollback(sc_store_be *be)
{
    if (PQstatus(be->conn) != CONNECTION_OK)
        return;
    PGresult *r = PQexec(be->conn, "ROLLBACK");
    PQclear(r);
}

/* ---- COPY ---- */

typedef struct copy_buf {
    char *p;
    size_t len, cap;
    bool nomem;
} copy_buf;

static bool cb_reserve(copy_buf *b, size_t more)
{
    if (b->nomem)
        return false;
    if (b->len + more <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : COPY_CHUNK + 4096;
    while (cap < b->len + more)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->nomem = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

static void cb_put(copy_buf *b, const void *s, size_t n)
{
    if (cb_reserve(b, n)) {
        memcpy(b->p + b->len, s, n);
        b->len += n;
    }
}

static void cb_u64(copy_buf *b, uint64_t v)
{
    char tmp[24];
    int i = (int)sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    cb_put(b, tmp + i, sizeof tmp - (size_t)i);
}

/* Text format: a value, or \N, then a tab or the row's newline. */
static void t_num(copy_buf *b, bool has, uint64_t v, char sep)
{
    if (has)
        cb_u64(b, v);
    else
        cb_put(b, "\\N", 2);
    cb_put(b, &sep, 1);
}

static void t_str(copy_buf *b, const char *s, size_t n, char sep)
{
    if (!cb_reserve(b, 2 * n + 1))
        return;
    char *o = b->p + b->len;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '\\' || c == '\n' || c == '\r' || c == '\t') {
            *o++ = '\\';
            c = c == '\n' ? 'n' : c == '\r' ? 'r' : c == '\t' ? 't' : '\\';
        }
        *o++ = c;
    }
    *o++ = sep;
    b->len = (size_t)(o - b->p);
}

/* Binary format: big-endian field lengths and integers. */
static void b_be(copy_buf *b, uint64_t v, int bytes)
{
    unsigned char t[8];
    for (int i = 0; i < bytes; i++)
        t[i] = (unsigned char)(v >> (8 * (bytes - 1 - i)));
    cb_put(b, t, (size_t)bytes);
}

static void b_int(copy_buf *b, bool has, int64_t v, int bytes)
{
    if (!has) {
        b_be(b, 0xffffffffu, 4);
        return;
    }
    b_be(b, (uint64_t)bytes, 4);
    b_be(b, (uint64_t)v, bytes);
}

static void b_str(copy_buf *b, const char *s, size_t n)
{
    b_be(b, n, 4);
    cb_put(b, s, n);
}

/* The name as text PostgreSQL takes, and whether name_bytes must keep the
 * original (a NUL byte or invalid UTF-8). */
typedef struct name_tmp {
    char *p;
    size_t cap;
} name_tmp;

static bool node_name(const sc_node *n, name_tmp *t, const char **s, size_t *len, bool *raw)
{
    *s = n->name ? n->name : "";
    *len = n->name ? n->name_len : 0;
    *raw = !sc_utf8_valid(*s, *len) || memchr(*s, '\0', *len) != NULL;
    if (!*raw)
        return true;
    char *c = clean_text(*s, *len);
    if (!c)
        return false;
    free(t->p);
    t->p = c;
    *s = c;
    *len = strlen(c);
    return true;
}

static void node_row(copy_buf *b, bool bin, int64_t gid, uint32_t id, const sc_node *n,
                     name_tmp *tmp)
{
    bool kernel = n->kind == SC_KIND_KERNEL, mcp = n->kind == SC_KIND_MEMCPY;
    bool p2p = mcp && n->dir == SC_DIR_PEER_TO_PEER;
    bool shaped = kernel && (n->grid_y > 1 || n->grid_z > 1 || n->block_y > 1 || n->block_z > 1);
    bool event = n->kind == (sc_node_kind)SC_KIND_EVENT_RECORD ||
                 n->kind == (sc_node_kind)SC_KIND_EVENT_WAIT;
    bool sized = mcp || n->kind == SC_KIND_MEMSET || n->kind == (sc_node_kind)SC_KIND_MEM_ALLOC;
    const char *kind = sc_cuda_kind_name((int)n->kind);
    const char *dir = mcp ? sc_cuda_dir_name((int)n->dir) : NULL;
    const char *name;
    size_t name_len;
    bool raw;
    if (!node_name(n, tmp, &name, &name_len, &raw)) {
        b->nomem = true;
        return;
    }
    const char *orig = n->name ? n->name : "";
    if (bin) {
        b_be(b, 19, 2);
        b_int(b, true, gid, 8);
        b_int(b, true, id, 4);
        b_str(b, kind, strlen(kind));
        b_int(b, true, n->stream, 8);
        b_str(b, name, name_len);
        b_int(b, kernel, n->num_blocks, 8);
        b_int(b, kernel, n->threads_per_block, 8);
        b_int(b, kernel, n->shared_mem, 8);
        if (dir)
            b_str(b, dir, strlen(dir));
        else
            b_int(b, false, 0, 0);
        b_int(b, sized, (int64_t)n->size_bytes, 8);
        b_int(b, p2p, n->src_device, 8);
        b_int(b, p2p, n->dst_device, 8);
        b_int(b, n->kind == SC_KIND_MEMSET, n->value, 4);
        b_int(b, shaped, n->grid_y, 8);
        b_int(b, shaped, n->grid_z, 8);
        b_int(b, shaped, n->block_y, 8);
        b_int(b, shaped, n->block_z, 8);
        b_int(b, event, n->event, 8);
        if (raw)
            b_str(b, orig, n->name_len);
        else
            b_int(b, false, 0, 0);
        return;
    }
    t_num(b, true, (uint64_t)gid, '\t');
    t_num(b, true, id, '\t');
    t_str(b, kind, strlen(kind), '\t');
    t_num(b, true, n->stream, '\t');
    t_str(b, name, name_len, '\t');
    t_num(b, kernel, n->num_blocks, '\t');
    t_num(b, kernel, n->threads_per_block, '\t');
    t_num(b, kernel, n->shared_mem, '\t');
    if (dir)
        t_str(b, dir, strlen(dir), '\t');
    else
        t_num(b, false, 0, '\t');
    t_num(b, sized, n->size_bytes, '\t');
    t_num(b, p2p, n->src_device, '\t');
    t_num(b, p2p, n->dst_device, '\t');
    t_num(b, n->kind == SC_KIND_MEMSET, n->value, '\t');
    t_num(b, shaped, n->grid_y, '\t');
    t_num(b, shaped, n->grid_z, '\t');
    t_num(b, shaped, n->block_y, '\t');
    t_num(b, shaped, n->block_z, '\t');
    t_num(b, event, n->event, '\t');
    if (raw) {
        /* bytea in text COPY: \\x and hex digits. */
        static const char hex[] = "0123456789abcdef";
        cb_put(b, "\\\\x", 3);
        for (size_t i = 0; i < n->name_len; i++) {
            char h[2] = {hex[(unsigned char)orig[i] >> 4], hex[(unsigned char)orig[i] & 15]};
            cb_put(b, h, 2);
        }
        cb_put(b, "\n", 1);
    } else {
        t_num(b, false, 0, '\n');
    }
}

static void edge_row(copy_buf *b, bool bin, int64_t gid, uint32_t src, uint32_t dst)
{
    if (bin) {
        b_be(b, 3, 2);
        b_int(b, true, gid, 8);
        b_int(b, true, src, 4);
        b_int(b, true, dst, 4);
        return;
    }
    t_num(b, true, (uint64_t)gid, '\t');
    t_num(b, true, src, '\t');
    t_num(b, true, dst, '\n');
}

typedef struct copy_out {
    PGconn *conn; /* NULL: only collect into buf */
    bool bin;
    copy_buf buf;
    const char *fail; /* libpq's reason when a send failed */
} copy_out;

static bool co_flush(copy_out *co, bool all)
{
    if (!co->conn || co->fail || (!all && co->buf.len < COPY_CHUNK))
        return !co->fail;
    if (co->buf.len && PQputCopyData(co->conn, co->buf.p, (int)co->buf.len) != 1)
        co->fail = PQerrorMessage(co->conn);
    co->buf.len = 0;
    return !co->fail;
}

/* The rows of nodes [lo, hi) or of the edges leaving them into co. */
static int rows_out(copy_out *co, const sc_graph *g, int64_t gid, uint32_t lo, uint32_t hi,
                    bool edges)
{
    static const char header[] = "PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0";
    if (co->bin)
        cb_put(&co->buf, header, sizeof header - 1);
    name_tmp tmp = {0};
    int rc = 0;
    for (uint32_t id = lo; id < hi && rc == 0; id++) {
        if (edges) {
            const uint32_t *succ;
            uint32_t count;
            if (sc_graph_successors(g, id, &succ, &count) != 0)
                rc = SC_STORE_EIO;
            for (uint32_t k = 0; rc == 0 && k < count; k++)
                edge_row(&co->buf, co->bin, gid, id, succ[k]);
        } else {
            sc_node n;
            if (sc_graph_node(g, id, &n) != 0)
                rc = SC_STORE_EIO;
            else
                node_row(&co->buf, co->bin, gid, id, &n, &tmp);
        }
        if (co->buf.nomem)
            rc = SC_STORE_ENOMEM;
        else if (rc == 0 && !co_flush(co, false))
            rc = SC_STORE_EIO;
    }
    free(tmp.p);
    if (rc == 0 && co->bin)
        b_be(&co->buf, 0xffff, 2);
    if (rc == 0 && co->buf.nomem)
        rc = SC_STORE_ENOMEM;
    return rc;
}

static int copy_rows(sc_store_be *be, const sc_graph *g, int64_t gid, uint32_t lo, uint32_t hi,
                     bool edges, char *err, size_t len)
{
    PGconn *c = be->conn;
    char sql[256];
    snprintf(sql, sizeof sql, "COPY %s FROM STDIN%s",
             edges ? "edges (graph, src, dst)"
                   : "nodes (graph, id, kind, stream, name, num_blocks, threads_per_block,"
                     " shared_mem, dir, size_bytes, src_device, dst_device, value, grid_y,"
                     " grid_z, block_y, block_z, event, name_bytes)",
             be->binary ? " (FORMAT binary)" : "");
    PGresult *r = PQexec(c, sql);
    if (!r || PQresultStatus(r) != PGRES_COPY_IN) {
        int rc = pg_fail(c, r, "cannot store the graph", err, len);
        PQclear(r);
        return rc;
    }
    PQclear(r);
    copy_out co = {.conn = c, .bin = be->binary};
    int rc = rows_out(&co, g, gid, lo, hi, edges);
    if (rc == 0 && !co_flush(&co, true))
        rc = SC_STORE_EIO;
    free(co.buf.p);
    const char *why = rc == SC_STORE_ENOMEM ? "out of memory"
                      : rc                  ? "graph could not be read"
                                            : NULL;
    if (PQputCopyEnd(c, why) != 1 && rc == 0)
        rc = SC_STORE_EIO;
    int frc = 0;
    while ((r = PQgetResult(c)) != NULL) {
        if (PQresultStatus(r) != PGRES_COMMAND_OK && frc == 0)
            frc = pg_fail(c, r, "cannot store the graph", err, len);
        PQclear(r);
    }
    if (rc == SC_STORE_ENOMEM) {
        set_err(err, len, "cannot store the graph", "out of memory");
        return rc;
    }
    if (rc == SC_STORE_EIO && frc == 0)
        frc = pg_fail(c, NULL, "cannot store the graph", err, len);
    return frc ? frc : rc;
}

int store_pg_copy_text(const sc_graph *g, int64_t gid, bool edges, char **out, size_t *len)
{
    copy_out co = {0};
    int rc = rows_out(&co, g, gid, 0, sc_graph_node_count(g), edges);
    if (rc) {
        free(co.buf.p);
        return rc;
    }
    *out = co.buf.p;
    *len = co.buf.len;
    return 0;
}

/* ---- writes ---- */

static int log_open(sc_store_be *be, sc_store_job *j, char *err, size_t len)
{
    params p = {0};
    p_word(&p, be->host);
    if (!p_text(&p, j->u.open.label, j->u.open.label_len)) {
        set_err(err, len, "out of memory", NULL);
        return SC_STORE_ENOMEM;
    }
    p_i64(&p, j->u.open.uid);
    p_i64(&p, j->u.open.pid);
    p_i64(&p, j->u.open.opened_ms);
    p_word(&p, j->u.open.semantics);
    int rc = 0;
    PGresult *r = run(be->conn,
                      "INSERT INTO capture_log (host, label, owner_uid, owner_pid, opened_at,"
                      " semantics) VALUES ($1, $2, $3, $4, " TS_IN(5) ", $6) RETURNING session",
                      &p, PGRES_TUPLES_OK, "cannot open the log row", &rc, err, len);
    p_free(&p);
    if (!r)
        return rc;
    j->id = col_i64(r, 0, 0);
    PQclear(r);
    return 0;
}

static int log_end(sc_store_be *be, sc_store_job *j, char *err, size_t len)
{
    params p = {0};
    p_i64(&p, j->u.end.session);
    p_word(&p, j->u.end.outcome);
    p_i64(&p, j->u.end.node_count);
    p_i64(&p, j->u.end.ended_ms);
    int64_t changed = 0;
    int rc = exec_cmd(be->conn,
                      "UPDATE capture_log SET outcome = $2, node_count = $3, ended_at = " TS_IN(
                          4) " WHERE session = $1 AND outcome = 'open'",
                      &p, "cannot end the log row", err, len, &changed);
    if (rc)
        return rc;
    if (changed == 0)
        return SC_STORE_ENOTFOUND;
    j->id = j->u.end.session;
    return 0;
}

/* Is the session's row there and open?  Locked, so that no other daemon
 * (it belongs to this one, but a root client may end it through another
 * connection) changes it before the transaction ends. */
static int check_open(sc_store_be *be, int64_t session, char *err, size_t len)
{
    params p = {0};
    p_i64(&p, session);
    int rc = 0;
    PGresult *r = run(
        be->conn, "SELECT 1 FROM capture_log WHERE session = $1 AND outcome = 'open' FOR UPDATE",
        &p, PGRES_TUPLES_OK, "cannot read the log row", &rc, err, len);
    if (!r)
        return rc;
    rc = PQntuples(r) == 1 ? 0 : SC_STORE_ENOTFOUND;
    PQclear(r);
    return rc;
}

static bool is_cuda_job(const sc_store_job *j)
{
    return j->type == SC_STORE_JOB_COMMIT_CAPTURE || j->u.commit.submitted;
}

static int insert_graph_row(sc_store_be *be, sc_store_job *j, int64_t *gid, char *err, size_t len)
{
    const sc_graph *g = j->u.commit.g;
    params p = {0};
    p_word(&p, be->host);
    p_i64(&p, j->u.commit.session);
    if (!p_text(&p, j->u.commit.label, j->u.commit.label_len)) {
        set_err(err, len, "out of memory", NULL);
        return SC_STORE_ENOMEM;
    }
    p_i64(&p, j->u.commit.created_ms);
    p_i64(&p, j->u.commit.uid);
    p_i64(&p, j->u.commit.pid);
    p_i64(&p, sc_graph_node_count(g));
    p_i64(&p, (int64_t)sc_graph_edge_count(g));
    p_i64(&p, sc_graph_stream_count(g));
    p_word(&p, is_cuda_job(j) ? "cuda" : "oxicuda");
    if (j->type == SC_STORE_JOB_COMMIT_CAPTURE)
        p_i64(&p, j->u.commit.cap.capture);
    else
        p_null(&p);
    if (j->u.commit.pending_gid)
        p_i64(&p, j->u.commit.pending_gid);
    else
        p_null(&p);
    int rc = 0;
    PGresult *r = run(be->conn,
                      "INSERT INTO graphs (graph, host, session, label, created_at, owner_uid,"
                      " owner_pid, node_count, edge_count, stream_count, semantics, capture)"
                      " VALUES (coalesce($12::bigint, nextval('graph_ids')), $1, $2, $3, " TS_IN(
                          4) ", $5, $6, $7, $8, $9, $10, $11) RETURNING graph",
                      &p, PGRES_TUPLES_OK, "cannot store the graph", &rc, err, len);
    p_free(&p);
    if (!r)
        return rc;
    *gid = col_i64(r, 0, 0);
    PQclear(r);
    return 0;
}

/* The graph_index row, sent as binary parameters: the bytes are the blobs. */
static int insert_index(sc_store_be *be, const sc_graph *g, int64_t gid, char *err, size_t len)
{
    uint32_t n = sc_graph_node_count(g);
    uint64_t m = sc_graph_edge_count(g);
    if (4ull * n + 8ull * m > 0x3fffffffull)
        return 0; /* past bytea's 1 GB: reachability loads the rows instead */
    uint32_t *streams = malloc((size_t)n * 4 + 4), *pairs = malloc((size_t)m * 8 + 8);
    int rc = 0;
    if (!streams || !pairs) {
        set_err(err, len, "out of memory building the graph index row", NULL);
        rc = SC_STORE_ENOMEM;
    }
    uint32_t *e = pairs;
    for (uint32_t id = 0; rc == 0 && id < n; id++) {
        sc_node node;
        const uint32_t *succ;
        uint32_t count;
        if (sc_graph_node(g, id, &node) != 0 || sc_graph_successors(g, id, &succ, &count) != 0) {
            set_err(err, len, "graph could not be read", NULL);
            rc = SC_STORE_EIO;
            break;
        }
        streams[id] = node.stream;
        for (uint32_t k = 0; k < count; k++) {
            *e++ = id;
            *e++ = succ[k];
        }
    }
    if (rc == 0) {
        store_le32_swap(streams, n);
        store_le32_swap(pairs, 2 * m);
        char sgid[24], sn[24], sm[24];
        snprintf(sgid, sizeof sgid, "%lld", (long long)gid);
        snprintf(sn, sizeof sn, "%u", n);
        snprintf(sm, sizeof sm, "%llu", (unsigned long long)m);
        const char *v[5] = {sgid, sn, sm, (const char *)streams, (const char *)pairs};
        int lens[5] = {0, 0, 0, (int)(4 * n), (int)(8 * m)};
        int fmts[5] = {0, 0, 0, 1, 1};
        PGresult *r =
            PQexecParams(be->conn,
                         "INSERT INTO graph_index (graph, node_count, edge_count, streams,"
                         " edges) VALUES ($1, $2, $3, $4, $5)",
                         5, NULL, v, lens, fmts, 0);
        if (!r || PQresultStatus(r) != PGRES_COMMAND_OK)
            rc = pg_fail(be->conn, r, "cannot store the graph index", err, len);
        PQclear(r);
    }
    free(streams);
    free(pairs);
    return rc;
}

static int drop_pending_row(sc_store_be *be, int64_t gid, char *err, size_t len)
{
    params p = {0};
    p_i64(&p, gid);
    return exec_cmd(be->conn, "DELETE FROM pending_graphs WHERE graph = $1", &p,
                    "cannot store the graph", err, len, NULL);
}

/* Every row of the graph, or for the last transaction of a chunked commit
 * (nodes and edges already stored) the graphs and graph_index rows. */
static int store_graph(sc_store_be *be, sc_store_job *j, int64_t *gid, char *err, size_t len)
{
    const sc_graph *g = j->u.commit.g;
    int rc = insert_graph_row(be, j, gid, err, len);
    if (rc == 0 && !j->u.commit.pending_gid) {
        uint32_t n = sc_graph_node_count(g);
        rc = copy_rows(be, g, *gid, 0, n, false, err, len);
        if (rc == 0)
            rc = copy_rows(be, g, *gid, 0, n, true, err, len);
    }
    if (rc == 0)
        rc = insert_index(be, g, *gid, err, len);
    if (rc == 0 && j->u.commit.pending_gid)
        rc = drop_pending_row(be, *gid, err, len);
    return rc;
}

static int commit_graph(sc_store_be *be, sc_store_job *j, char *err, size_t len)
{
    bool submitted = j->u.commit.submitted;
    int rc = submitted ? 0 : check_open(be, j->u.commit.session, err, len);
    int64_t gid = 0;
    if (rc == 0)
        rc = store_graph(be, j, &gid, err, len);
    if (rc || submitted) {
        j->id = gid;
        return rc;
    }
    params p = {0};
    p_i64(&p, j->u.commit.session);
    p_i64(&p, gid);
    p_i64(&p, sc_graph_node_count(j->u.commit.g));
    p_i64(&p, j->u.commit.created_ms);
    rc = exec_cmd(be->conn,
                  "UPDATE capture_log SET outcome = 'completed', graph = $2, node_count = $3,"
                  " ended_at = " TS_IN(4) " WHERE session = $1",
                  &p, "cannot complete the log row", err, len, NULL);
    j->id = gid;
    return rc;
}

static int commit_capture(sc_store_be *be, sc_store_job *j, char *err, size_t len)
{
    int rc = check_open(be, j->u.commit.session, err, len);
    int64_t gid = 0;
    if (rc == 0 && j->u.commit.g)
        rc = store_graph(be, j, &gid, err, len);
    if (rc)
        return rc;
    const sc_store_capture *c = &j->u.commit.cap;
    bool inv = c->inv_method != NULL;
    params p = {0};
    p_i64(&p, j->u.commit.session);
    p_i64(&p, c->capture);
    p_i64(&p, c->origin);
    p_word(&p, c->mode);
    p_i64(&p, c->thread);
    p_word(&p, c->outcome);
    if (strcmp(c->outcome, "failed") == 0)
        p_i64(&p, (uint32_t)c->cuda_error);
    else
        p_null(&p);
    p_i64(&p, c->node_count);
    p_i64(&p, j->u.commit.created_ms);
    if (gid)
        p_i64(&p, gid);
    else
        p_null(&p);
    bool ok = true;
    if (inv) {
        p_word(&p, c->inv_method);
        p_i64(&p, c->inv_stream);
        if (c->inv_has_event)
            p_i64(&p, c->inv_event);
        else
            p_null(&p);
        p_i64(&p, c->inv_thread);
        if (c->inv_call)
            ok = p_text(&p, c->inv_call, c->inv_call_len);
        else
            p_null(&p);
        p_i64(&p, c->inv_error);
    } else {
        for (int i = 0; i < 6; i++)
            p_null(&p);
    }
    if (!ok) {
        p_free(&p);
        set_err(err, len, "out of memory", NULL);
        return SC_STORE_ENOMEM;
    }
    rc =
        exec_cmd(be->conn,
                 "INSERT INTO captures (session, capture, origin, mode, thread, outcome,"
                 " cuda_error, node_count, ended_at, graph, inv_method, inv_stream, inv_event,"
                 " inv_thread, inv_call, inv_error) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, " TS_IN(
                     9) ", $10, $11, $12, $13, $14, $15, $16)",
                 &p, "cannot store the capture", err, len, NULL);
    p_free(&p);
    j->id = gid;
    return rc;
}

static int delete_graph(sc_store_be *be, sc_store_job *j, char *err, size_t len)
{
    params p = {0};
    p_i64(&p, j->u.del.graph);
    int rc = 0;
    PGresult *r = run(be->conn, "SELECT session, owner_uid FROM graphs WHERE graph = $1 FOR UPDATE",
                      &p, PGRES_TUPLES_OK, "cannot delete the graph", &rc, err, len);
    if (!r)
        return rc;
    if (PQntuples(r) != 1) {
        PQclear(r);
        return SC_STORE_ENOTFOUND;
    }
    int64_t session = col_i64(r, 0, 0);
    j->u.del.uid = col_u32(r, 0, 1);
    PQclear(r);
    static const char *const dels[] = {
        "DELETE FROM graph_index WHERE graph = $1",
        "DELETE FROM edges WHERE graph = $1",
        "DELETE FROM nodes WHERE graph = $1",
        "DELETE FROM graphs WHERE graph = $1",
    };
    for (size_t i = 0; i < 4 && rc == 0; i++)
        rc = exec_cmd(be->conn, dels[i], &p, "cannot delete the graph", err, len, NULL);
    params q = {0};
    p_i64(&q, session);
    p_i64(&q, j->u.del.graph);
    p_i64(&q, j->u.del.deleted_ms);
    if (rc == 0)
        rc = exec_cmd(be->conn,
                      "UPDATE capture_log SET graph_deleted_at = " TS_IN(
                          3) " WHERE session = $1 AND graph = $2",
                      &q, "cannot delete the graph", err, len, NULL);
    if (rc == 0)
        rc = exec_cmd(
            be->conn,
            "UPDATE captures SET graph_deleted_at = " TS_IN(3) " WHERE session = $1 AND graph = $2",
            &q, "cannot delete the graph", err, len, NULL);
    if (rc == 0)
        j->id = j->u.del.graph;
    return rc;
}

static int pg_write(sc_store_be *be, sc_store_job *j, char *err, size_t len)
{
    switch (j->type) {
    case SC_STORE_JOB_LOG_OPEN:
        return log_open(be, j, err, len);
    case SC_STORE_JOB_LOG_END:
        return log_end(be, j, err, len);
    case SC_STORE_JOB_COMMIT_GRAPH:
        return commit_graph(be, j, err, len);
    case SC_STORE_JOB_DELETE_GRAPH:
        return delete_graph(be, j, err, len);
    case SC_STORE_JOB_COMMIT_CAPTURE:
        return commit_capture(be, j, err, len);
    case SC_STORE_JOB_STREAM_PART: /* never: this backend does not stream */
    case SC_STORE_JOB_STREAM_DROP:
        break;
    }
    set_err(err, len, "unknown write job", NULL);
    return SC_STORE_EINVAL;
}

static int pg_write_chunk(sc_store_be *be, sc_store_job *j, uint32_t lo, uint32_t hi, char *err,
                          size_t len)
{
    if (!j->u.commit.pending_gid) {
        int rc = j->u.commit.submitted ? 0 : check_open(be, j->u.commit.session, err, len);
        if (rc)
            return rc;
        params p = {0};
        p_word(&p, be->host);
        p_i64(&p, j->u.commit.session);
        p_i64(&p, j->u.commit.created_ms);
        PGresult *r = run(be->conn,
                          "INSERT INTO pending_graphs (graph, host, session, started_at)"
                          " VALUES (nextval('graph_ids'), $1, $2, " TS_IN(3) ") RETURNING graph",
                          &p, PGRES_TUPLES_OK, "cannot reserve the graph", &rc, err, len);
        if (!r)
            return rc;
        j->u.commit.pending_gid = col_i64(r, 0, 0);
        PQclear(r);
    }
    int rc = copy_rows(be, j->u.commit.g, j->u.commit.pending_gid, lo, hi, false, err, len);
    return rc ? rc : copy_rows(be, j->u.commit.g, j->u.commit.pending_gid, lo, hi, true, err, len);
}

static void pg_drop_chunks(sc_store_be *be, int64_t gid)
{
    char err[128]; /* read by nobody: a failed drop is retried at the next start */
    if (pg_ready(be->conn, err, sizeof err) != 0)
        return;
    params p = {0};
    p_i64(&p, gid);
    static const char *const steps[] = {
        "BEGIN",
        "DELETE FROM edges WHERE graph = $1",
        "DELETE FROM nodes WHERE graph = $1",
        "DELETE FROM pending_graphs WHERE graph = $1",
        "COMMIT",
    };
    for (size_t i = 0; i < 5; i++) {
        bool bare = i == 0 || i == 4;
        if (exec_cmd(be->conn, steps[i], bare ? NULL : &p, "", err, sizeof err, NULL) != 0) {
            pg_rollback(be);
            return;
        }
    }
}

static bool pg_make_room(sc_store_be *be)
{
    (void)be;
    return false;
}

/* ---- reads ---- */

static int pg_reader_open(sc_store_be *be, void **reader, char *err, size_t len)
{
    pg_reader *r = calloc(1, sizeof *r);
    if (!r) {
        set_err(err, len, "out of memory", NULL);
        return SC_STORE_ENOMEM;
    }
    int rc = 0;
    if (!(r->conn = pg_connect(be->uri, err, len, &rc))) {
        free(r);
        return rc;
    }
    r->be = be;
    *reader = r;
    return 0;
}

static void pg_reader_close(void *reader)
{
    pg_reader *r = reader;
    if (!r)
        return;
    PQfinish(r->conn);
    free(r);
}

static int rd_fail(sc_store_read *rq, int rc, const char *msg)
{
    rq->rc = rc;
    snprintf(rq->errmsg, sizeof rq->errmsg, "%s", msg);
    return rc;
}

/* Rows that contradict each other: EIO in the SQLite backend's words, so a
 * damaged graph reads the same whichever database holds it. */
static int rd_corrupt(sc_store_read *rq, const char *what)
{
    rq->rc = SC_STORE_EIO;
    snprintf(rq->errmsg, sizeof rq->errmsg, "stored graph %lld is inconsistent: %s",
             (long long)rq->graph, what);
    return rq->rc;
}

static int rd_nomem(sc_store_read *rq)
{
    return rd_fail(rq, SC_STORE_ENOMEM, "out of memory");
}

/* A text column made valid UTF-8 (it is already, unless the database was
 * written by something else), NUL-terminated. */
static char *dup_col(const PGresult *r, int row, int col, size_t *len)
{
    const char *t = PQgetvalue(r, row, col);
    size_t n = (size_t)PQgetlength(r, row, col);
    char *d = malloc(3 * n + 1);
    if (!d)
        return NULL;
    n = sc_utf8_scrub(t, n, d);
    d[n] = '\0';
    if (len)
        *len = n;
    return d;
}

#define GRAPH_COLS                                                                                 \
    "graph, session, label, " TS_OUT(                                                              \
        "created_at") ", owner_uid, owner_pid, node_count,"                                        \
                      " edge_count, stream_count, semantics, capture, host"

static int row_to_meta(const PGresult *r, int i, sc_graph_meta *m)
{
    memset(m, 0, sizeof *m);
    m->graph = col_i64(r, i, 0);
    m->session = col_i64(r, i, 1);
    m->created_ms = col_i64(r, i, 3);
    m->owner_uid = col_u32(r, i, 4);
    m->owner_pid = col_i64(r, i, 5);
    m->node_count = col_u32(r, i, 6);
    m->edge_count = (uint64_t)col_i64(r, i, 7);
    m->stream_count = col_u32(r, i, 8);
    m->cuda = strcmp(PQgetvalue(r, i, 9), "cuda") == 0;
    m->capture = col_u32(r, i, 10);
    if (!(m->label = dup_col(r, i, 2, &m->label_len)) || !(m->host = dup_col(r, i, 11, NULL))) {
        free(m->label);
        free(m->host);
        m->label = m->host = NULL;
        return SC_STORE_ENOMEM;
    }
    return 0;
}

static int rd_exec(PGconn *c, sc_store_read *rq, const char *sql, const params *p, PGresult **out)
{
    int rc = 0;
    *out = run(c, sql, p, PGRES_TUPLES_OK, "read failed", &rc, rq->errmsg, sizeof rq->errmsg);
    if (!*out)
        rq->rc = rc;
    return rc;
}

static int read_meta(PGconn *c, sc_store_read *rq, int64_t graph, sc_graph_meta *m)
{
    params p = {0};
    p_i64(&p, graph);
    PGresult *r;
    if (rd_exec(c, rq, "SELECT " GRAPH_COLS " FROM graphs WHERE graph = $1", &p, &r))
        return rq->rc;
    int rc = PQntuples(r) == 1 ? row_to_meta(r, 0, m) : SC_STORE_ENOTFOUND;
    PQclear(r);
    if (rc == SC_STORE_ENOMEM)
        return rd_nomem(rq);
    if (rc)
        rq->rc = rc;
    return rc;
}

/* Send `sql` and read its rows one at a time, so a graph of millions of
 * nodes never sits in memory twice.  `take` gets each row. */
static int stream_rows(PGconn *c, sc_store_read *rq, const char *sql, const params *p,
                       int (*take)(void *ctx, const PGresult *r), void *ctx)
{
    if (!PQsendQueryParams(c, sql, p->n, NULL, p->v, NULL, NULL, 0) || !PQsetSingleRowMode(c))
        return rd_fail(rq, SC_STORE_EIO, PQerrorMessage(c));
    PGresult *r;
    int rc = 0;
    while ((r = PQgetResult(c)) != NULL) {
        ExecStatusType st = PQresultStatus(r);
        if (st == PGRES_SINGLE_TUPLE && rc == 0)
            rc = take(ctx, r);
        else if (st != PGRES_SINGLE_TUPLE && st != PGRES_TUPLES_OK && rc == 0)
            rc = pg_fail(c, r, "read failed", rq->errmsg, sizeof rq->errmsg);
        PQclear(r);
    }
    if (rc && !rq->rc)
        rq->rc = rc;
    return rc;
}

typedef struct load_ctx {
    sc_store_read *rq;
    sc_graph *g;
    uint32_t expect;
    char *name; /* name_bytes or scrubbed text */
} load_ctx;

static int take_node(void *p, const PGresult *r)
{
    load_ctx *lc = p;
    sc_node n;
    memset(&n, 0, sizeof n);
    if ((uint32_t)col_i64(r, 0, 0) != lc->expect ||
        sc_cuda_kind_parse(PQgetvalue(r, 0, 1), (size_t)PQgetlength(r, 0, 1), &n.kind) != 0 ||
        (!PQgetisnull(r, 0, 7) &&
         sc_cuda_dir_parse(PQgetvalue(r, 0, 7), (size_t)PQgetlength(r, 0, 7), &n.dir) != 0))
        return rd_fail(lc->rq, SC_STORE_EIO, "stored graph has a malformed node row");
    n.stream = col_u32(r, 0, 2);
    n.num_blocks = col_u32(r, 0, 4);
    n.threads_per_block = col_u32(r, 0, 5);
    n.shared_mem = col_u32(r, 0, 6);
    n.size_bytes = (uint64_t)col_i64(r, 0, 8);
    n.src_device = col_u32(r, 0, 9);
    n.dst_device = col_u32(r, 0, 10);
    n.value = (uint8_t)col_i64(r, 0, 11);
    n.grid_y = col_u32(r, 0, 12);
    n.grid_z = col_u32(r, 0, 13);
    n.block_y = col_u32(r, 0, 14);
    n.block_z = col_u32(r, 0, 15);
    n.event = col_u32(r, 0, 16);
    free(lc->name);
    lc->name = NULL;
    if (!PQgetisnull(r, 0, 17)) {
        /* The exact bytes, made valid UTF-8 as the SQLite store's readers
         * make theirs. */
        size_t raw_len;
        unsigned char *raw = PQunescapeBytea((const unsigned char *)PQgetvalue(r, 0, 17), &raw_len);
        if (!raw)
            return rd_nomem(lc->rq);
        lc->name = malloc(3 * raw_len + 1);
        if (lc->name) {
            n.name_len = sc_utf8_scrub((const char *)raw, raw_len, lc->name);
            n.name = lc->name;
        }
        PQfreemem(raw);
        if (!lc->name)
            return rd_nomem(lc->rq);
    } else {
        n.name = PQgetvalue(r, 0, 3);
        n.name_len = (size_t)PQgetlength(r, 0, 3);
    }
    uint32_t id;
    int rc = sc_graph_add_node(lc->g, &n, &id);
    if (rc == SC_ENOMEM)
        return rd_nomem(lc->rq);
    if (rc)
        return rd_fail(lc->rq, SC_STORE_EIO, "stored node rejected by the graph model");
    lc->expect++;
    return 0;
}

static int take_edge(void *p, const PGresult *r)
{
    load_ctx *lc = p;
    int rc = sc_graph_add_edge(lc->g, col_u32(r, 0, 0), col_u32(r, 0, 1));
    if (rc == SC_ENOMEM)
        return rd_nomem(lc->rq);
    if (rc)
        return rd_fail(lc->rq, SC_STORE_EIO, "stored edge rejected by the graph model");
    return 0;
}

static int load_rows(PGconn *c, sc_store_read *rq, sc_stored_graph *sg)
{
    load_ctx lc = {.rq = rq};
    if (sc_graph_create(&lc.g) != 0)
        return rd_nomem(rq);
    params p = {0};
    p_i64(&p, rq->graph);
    int rc = stream_rows(c, rq,
                         "SELECT id, kind, stream, name, num_blocks, threads_per_block, shared_mem,"
                         " dir, size_bytes, src_device, dst_device, value, grid_y, grid_z, block_y,"
                         " block_z, event, name_bytes FROM nodes WHERE graph = $1 ORDER BY id",
                         &p, take_node, &lc);
    free(lc.name);
    if (rc == 0 && lc.expect != sg->meta.node_count)
        rc = rd_fail(rq, SC_STORE_EIO, "stored graph is missing node rows");
    if (rc == 0)
        rc = stream_rows(c, rq, "SELECT src, dst FROM edges WHERE graph = $1 ORDER BY src, dst", &p,
                         take_edge, &lc);
    if (rc == 0 && sc_graph_seal(lc.g) != 0)
        rc = rd_fail(rq, SC_STORE_EIO, "stored graph could not be sealed");
    if (rc == 0 && sc_graph_edge_count(lc.g) != sg->meta.edge_count)
        rc = rd_fail(rq, SC_STORE_EIO, "stored graph is missing edge rows");
    if (rc) {
        sc_graph_destroy(lc.g);
        return rc;
    }
    sg->graph = lc.g;
    return 0;
}

/* The graph_index row into a skeleton; *found false when there is none. */
static int load_index(PGconn *c, sc_store_read *rq, sc_stored_graph *sg, bool *found)
{
    params p = {0};
    p_i64(&p, rq->graph);
    PGresult *r = PQexecParams(c,
                               "SELECT node_count, edge_count, streams, edges FROM graph_index"
                               " WHERE graph = $1",
                               p.n, NULL, p.v, NULL, NULL, 1);
    if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
        int rc = pg_fail(c, r, "read failed", rq->errmsg, sizeof rq->errmsg);
        PQclear(r);
        rq->rc = rc;
        return rc;
    }
    *found = PQntuples(r) == 1;
    if (!*found) {
        PQclear(r);
        return 0;
    }
    /* Binary results: the counts are big-endian int8. */
    uint64_t n = 0, m = 0;
    for (int k = 0; k < 8; k++) {
        n = n << 8 | (unsigned char)PQgetvalue(r, 0, 0)[k];
        m = m << 8 | (unsigned char)PQgetvalue(r, 0, 1)[k];
    }
    int rc = 0;
    if (n != sg->meta.node_count || m != sg->meta.edge_count ||
        (uint64_t)PQgetlength(r, 0, 2) != 4 * n || (uint64_t)PQgetlength(r, 0, 3) != 8 * m)
        rc = rd_corrupt(rq, "graph_index row differs from the graph row");
    uint32_t *streams = NULL, *pairs = NULL;
    if (rc == 0) {
        streams = malloc(4 * n + 4);
        pairs = malloc(8 * m + 8);
        if (!streams || !pairs)
            rc = rd_nomem(rq);
    }
    if (rc == 0) {
        memcpy(streams, PQgetvalue(r, 0, 2), 4 * n);
        memcpy(pairs, PQgetvalue(r, 0, 3), 8 * m);
        store_le32_swap(streams, n);
        store_le32_swap(pairs, 2 * m);
        int core = sc_graph_create_skeleton((uint32_t)n, streams, m, pairs, &sg->graph);
        if (core == SC_ENOMEM)
            rc = rd_nomem(rq);
        else if (core)
            rc = rd_corrupt(rq, "graph_index rejected by the graph model");
    }
    /* The counts agree but a stream may not: the graph row's stream count
     * is what graph.get reports and the reachability relies on. */
    if (rc == 0 && sc_graph_stream_count(sg->graph) != sg->meta.stream_count)
        rc = rd_corrupt(rq, "stream count differs from the graph row");
    free(streams);
    free(pairs);
    PQclear(r);
    return rc;
}

static void read_load(PGconn *c, sc_store_read *rq, bool skeleton)
{
    sc_stored_graph *sg = calloc(1, sizeof *sg);
    if (!sg) {
        rd_nomem(rq);
        return;
    }
    /* One snapshot for the graph row and its rows. */
    PGresult *r = PQexec(c, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    int rc = r && PQresultStatus(r) == PGRES_COMMAND_OK
                 ? 0
                 : (rq->rc = pg_fail(c, r, "read failed", rq->errmsg, sizeof rq->errmsg));
    PQclear(r);
    if (rc == 0)
        rc = read_meta(c, rq, rq->graph, &sg->meta);
    bool found = false;
    if (rc == 0 && skeleton)
        rc = load_index(c, rq, sg, &found);
    if (rc == 0 && !found)
        rc = load_rows(c, rq, sg);
    r = PQexec(c, "COMMIT");
    PQclear(r);
    if (rc) {
        sc_stored_graph_free(sg);
        return;
    }
    rq->sg = sg;
}

static void read_meta_job(PGconn *c, sc_store_read *rq)
{
    sc_graph_meta *m = calloc(1, sizeof *m);
    if (!m) {
        rd_nomem(rq);
        return;
    }
    if (read_meta(c, rq, rq->graph, m) != 0) {
        free(m);
        return;
    }
    rq->meta = m;
}

/* "... AND host = $k": a parameter for this query's own text. */
static void add_cond(char *sql, size_t cap, const char *fmt, int k)
{
    size_t used = strlen(sql);
    snprintf(sql + used, cap - used, fmt, k, k);
}

static void read_graphs(const pg_reader *pr, sc_store_read *rq)
{
    const sc_graph_query *q = &rq->graphs;
    char sql[640] = "SELECT " GRAPH_COLS " FROM graphs WHERE graph < $1";
    params p = {0};
    p_i64(&p, q->before_graph > 0 ? q->before_graph : INT64_MAX);
    bool ok = true;
    if (!q->any_owner) {
        /* A uid means a user on one host only. */
        p_i64(&p, q->uid);
        add_cond(sql, sizeof sql, " AND owner_uid = $%d", p.n);
        p_word(&p, pr->be->host);
        add_cond(sql, sizeof sql, " AND host = $%d", p.n);
    }
    if (q->label) {
        ok = ok && p_text(&p, q->label, q->label_len);
        add_cond(sql, sizeof sql, " AND label = $%d", p.n);
    }
    if (q->host) {
        ok = ok && p_text(&p, q->host, q->host_len);
        add_cond(sql, sizeof sql, " AND host = $%d", p.n);
    }
    p_i64(&p, (int64_t)q->limit + 1);
    add_cond(sql, sizeof sql, " ORDER BY graph DESC LIMIT $%d", p.n);
    PGresult *r = NULL;
    sc_graph_page *page = NULL;
    if (!ok || !(page = calloc(1, sizeof *page)))
        rd_nomem(rq);
    else if (rd_exec(pr->conn, rq, sql, &p, &r) == 0) {
        size_t rows = (size_t)PQntuples(r), take = rows > q->limit ? q->limit : rows;
        /* An empty page has no array, as on SQLite (sc_graph_page). */
        if (take && !(page->graphs = calloc(take, sizeof *page->graphs)))
            rd_nomem(rq);
        for (size_t i = 0; page->graphs && i < take; i++, page->count++)
            if (row_to_meta(r, (int)i, &page->graphs[i]) != 0) {
                rd_nomem(rq);
                break;
            }
        page->has_more = rows > take && page->count > 0;
        if (page->has_more)
            page->next_before = page->graphs[page->count - 1].graph;
    }
    PQclear(r);
    p_free(&p);
    rq->graph_page = page;
}

static bool word_into(const PGresult *r, int i, int col, char *buf, size_t cap)
{
    size_t n = (size_t)PQgetlength(r, i, col);
    if (PQgetisnull(r, i, col) || n >= cap)
        return false;
    memcpy(buf, PQgetvalue(r, i, col), n + 1);
    return true;
}

static int read_captures(PGconn *c, sc_store_read *rq, sc_log_entry *e)
{
    params p = {0};
    p_i64(&p, e->session);
    PGresult *r;
    if (rd_exec(
            c, rq,
            "SELECT capture, origin, mode, thread, outcome, cuda_error, node_count, " TS_OUT(
                "ended_at") ", graph, " TS_OUT("graph_deleted_at") ", inv_method,"
                                                                   " inv_stream, inv_event, "
                                                                   "inv_thread, inv_call, inv_error"
                                                                   " FROM captures WHERE session = "
                                                                   "$1 ORDER BY capture",
            &p, &r))
        return rq->rc;
    int n = PQntuples(r), rc = 0;
    e->captures = n ? calloc((size_t)n, sizeof *e->captures) : NULL;
    if (n && !e->captures)
        rc = rd_nomem(rq);
    for (int i = 0; rc == 0 && i < n; i++, e->ncaptures++) {
        sc_log_capture *k = &e->captures[i];
        k->capture = col_u32(r, i, 0);
        k->origin = col_u32(r, i, 1);
        k->thread = col_u32(r, i, 3);
        k->cuda_error = (int)col_i64(r, i, 5);
        k->node_count = col_u32(r, i, 6);
        k->ended_ms = col_i64(r, i, 7);
        k->graph = col_i64(r, i, 8);
        k->graph_deleted = !PQgetisnull(r, i, 9);
        k->graph_deleted_ms = col_i64(r, i, 9);
        k->invalidated = !PQgetisnull(r, i, 10);
        if (!word_into(r, i, 2, k->mode, sizeof k->mode) ||
            !word_into(r, i, 4, k->outcome, sizeof k->outcome) ||
            (k->invalidated && !word_into(r, i, 10, k->inv_method, sizeof k->inv_method))) {
            rc = rd_fail(rq, SC_STORE_EIO, "captures row is malformed");
            break;
        }
        k->inv_stream = col_u32(r, i, 11);
        k->inv_has_event = !PQgetisnull(r, i, 12);
        k->inv_event = col_u32(r, i, 12);
        k->inv_thread = col_u32(r, i, 13);
        k->inv_error = (int)col_i64(r, i, 15);
        if (!PQgetisnull(r, i, 14) && !(k->inv_call = dup_col(r, i, 14, NULL)))
            rc = rd_nomem(rq);
    }
    PQclear(r);
    return rc;
}

static void read_log(const pg_reader *pr, sc_store_read *rq)
{
    const sc_log_query *q = &rq->log;
    char sql[900] = "SELECT session, label, owner_uid, owner_pid, " TS_OUT("opened_at") ", " TS_OUT(
        "ended_at") ", outcome, node_count, graph, " TS_OUT("graph_deleted_at") ", semantics, host "
                                                                                "FROM capture_log "
                                                                                "WHERE true";
    params p = {0};
    bool ok = true;
    if (q->has_before) {
        p_i64(&p, q->before_opened_ms);
        p_i64(&p, q->before_session);
        size_t used = strlen(sql);
        snprintf(sql + used, sizeof sql - used,
                 " AND (opened_at, session) < (('epoch'::timestamptz + $1::bigint"
                 " * interval '1 millisecond'), $2)");
    }
    if (!q->any_owner) {
        p_i64(&p, q->uid);
        add_cond(sql, sizeof sql, " AND owner_uid = $%d", p.n);
        p_word(&p, pr->be->host);
        add_cond(sql, sizeof sql, " AND host = $%d", p.n);
    }
    if (q->outcome) {
        p_word(&p, q->outcome);
        add_cond(sql, sizeof sql, " AND outcome = $%d", p.n);
    }
    if (q->host) {
        ok = p_text(&p, q->host, q->host_len);
        add_cond(sql, sizeof sql, " AND host = $%d", p.n);
    }
    p_i64(&p, (int64_t)q->limit + 1);
    add_cond(sql, sizeof sql, " ORDER BY opened_at DESC, session DESC LIMIT $%d", p.n);
    PGresult *r = NULL;
    sc_log_page *page = NULL;
    if (!ok || !(page = calloc(1, sizeof *page)))
        rd_nomem(rq);
    else if (rd_exec(pr->conn, rq, sql, &p, &r) == 0) {
        size_t rows = (size_t)PQntuples(r), take = rows > q->limit ? q->limit : rows;
        if (take && !(page->entries = calloc(take, sizeof *page->entries)))
            rd_nomem(rq);
        for (size_t i = 0; page->entries && i < take && rq->rc == 0; i++) {
            sc_log_entry *e = &page->entries[i];
            int row = (int)i;
            e->session = col_i64(r, row, 0);
            e->owner_uid = col_u32(r, row, 2);
            e->owner_pid = col_i64(r, row, 3);
            e->opened_ms = col_i64(r, row, 4);
            e->has_ended = !PQgetisnull(r, row, 5);
            e->ended_ms = col_i64(r, row, 5);
            e->node_count = col_u32(r, row, 7);
            e->graph = col_i64(r, row, 8);
            e->graph_deleted = !PQgetisnull(r, row, 9);
            e->graph_deleted_ms = col_i64(r, row, 9);
            e->cuda = strcmp(PQgetvalue(r, row, 10), "cuda") == 0;
            page->count++;
            if (!word_into(r, row, 6, e->outcome, sizeof e->outcome)) {
                rd_fail(rq, SC_STORE_EIO, "capture log row is malformed");
                break;
            }
            if (!(e->label = dup_col(r, row, 1, &e->label_len)) ||
                !(e->host = dup_col(r, row, 11, NULL))) {
                rd_nomem(rq);
                break;
            }
            if (e->cuda && read_captures(pr->conn, rq, e) != 0)
                break;
        }
        page->has_more = rows > take && page->count > 0;
        if (page->has_more) {
            page->next_opened_ms = page->entries[page->count - 1].opened_ms;
            page->next_session = page->entries[page->count - 1].session;
        }
    }
    PQclear(r);
    p_free(&p);
    rq->log_page = page;
}

static void pg_read(void *reader, sc_store_read *rq)
{
    pg_reader *pr = reader;
    rq->rc = 0;
    rq->errmsg[0] = '\0';
    if (pg_ready(pr->conn, rq->errmsg, sizeof rq->errmsg) != 0) {
        rq->rc = SC_STORE_EIO;
        return;
    }
    switch (rq->kind) {
    case SC_STORE_READ_LOAD:
    case SC_STORE_READ_SKELETON:
        read_load(pr->conn, rq, rq->kind == SC_STORE_READ_SKELETON);
        break;
    case SC_STORE_READ_META:
        read_meta_job(pr->conn, rq);
        break;
    case SC_STORE_READ_GRAPHS:
        read_graphs(pr, rq);
        break;
    case SC_STORE_READ_LOG:
        read_log(pr, rq);
        break;
    }
}

const sc_store_backend sc_store_pg_backend = {
    .name = "postgresql",
    .open = pg_open,
    .migrate = pg_migrate,
    .count_graphs = pg_count_graphs,
    .close = pg_close,
    .begin = pg_begin,
    .commit = pg_commit,
    .rollback = pg_rollback,
    .write = pg_write,
    .write_chunk = pg_write_chunk,
    .drop_chunks = pg_drop_chunks,
    .make_room = pg_make_room,
    .reader_open = pg_reader_open,
    .reader_close = pg_reader_close,
    .read = pg_read,
};
