/*
 * store_pg.c - the PostgreSQL backend (store_backend.h) on libpq: errors
 * and statement parameters, connecting, the schema of schema/pg, and the
 * vtable over the writer's jobs (store_pg_write.c) and the readers
 * (store_pg_read.c).
 *
 * Many daemons may share one database: every row names the host that
 * wrote it, ids come from sequences, migrations run under an advisory
 * lock, and start-up recovery touches only this host's rows.  One daemon
 * per host name: a connection of its own holds a session advisory lock
 * keyed by the host name for the store's life (hold_host()), taken again
 * before the next write when a server restart dropped it
 * (pg_host_locked()); while another daemon holds it, writes are refused.
 *
 * A connection that broke (server stopped, restarted) is made again by
 * the next transaction or read on it (PQreset), so the daemon recovers once
 * the server is back without being restarted.  The writer waits for it up
 * to reconnect_ms at a BEGIN, and after a COMMIT that got no answer learns
 * from this host's hosts.write_seq whether it committed
 * (store_pg_txn.c), so no client is told a write failed that was
 * stored, or succeeded that was not.
 *
 * Times are sent and read as Unix milliseconds and converted by the
 * server (TS_IN / TS_OUT), so the columns are real timestamptz for psql.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sc_json.h"
#include "sc_schema.h"
#include "store_pg_int.h"

/* Arbitrary, fixed: the key of the advisory lock migrations run under. */
#define MIGRATE_LOCK "7460287355100731731"

/* ---- errors ---- */

void pg_set_err(char *err, size_t len, const char *what, const char *why)
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
int pg_fail(PGconn *conn, const PGresult *res, const char *what, char *err, size_t len)
{
    if (!res && PQstatus(conn) == CONNECTION_OK) {
        pg_set_err(err, len, what, "out of memory");
        return SC_STORE_ENOMEM;
    }
    const char *why = res ? PQresultErrorMessage(res) : PQerrorMessage(conn);
    if (PQstatus(conn) != CONNECTION_OK) {
        char buf[200];
        snprintf(buf, sizeof buf, "connection to the database lost: %s", why ? why : "");
        pg_set_err(err, len, what, buf);
    } else {
        pg_set_err(err, len, what, why);
    }
    return SC_STORE_EIO;
}

/* A broken connection is reset before it is used again. */
int pg_ready(PGconn *conn, char *err, size_t len)
{
    if (PQstatus(conn) == CONNECTION_OK)
        return 0;
    PQreset(conn);
    if (PQstatus(conn) == CONNECTION_OK)
        return 0;
    pg_set_err(err, len, "cannot reach the database", PQerrorMessage(conn));
    return SC_STORE_EIO;
}

uint64_t pg_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* A server that restarts refuses connections for a moment (no socket, then
 * "the database system is starting up"): try again every 100 ms. */
int pg_writer_ready(sc_store_be *be, uint64_t deadline_us, char *err, size_t len)
{
    while (PQstatus(be->conn) != CONNECTION_OK) {
        PQreset(be->conn);
        if (PQstatus(be->conn) == CONNECTION_OK) {
            be->generation++;
            PQclear(PQexec(be->conn, "SET TIME ZONE 'UTC'"));
            break;
        }
        if (pg_now_us() >= deadline_us) {
            char what[96];
            snprintf(what, sizeof what, "cannot reach the database within %d ms", be->reconnect_ms);
            pg_set_err(err, len, what, PQerrorMessage(be->conn));
            return SC_STORE_EIO;
        }
        nanosleep(&(struct timespec){.tv_nsec = 100 * 1000 * 1000}, NULL);
    }
    return 0;
}

/* ---- parameters ---- */

/* Text PostgreSQL can hold: valid UTF-8 without NUL (bytes that are not
 * become U+FFFD, as readers of the SQLite store see them).  NULL when out
 * of memory. */
char *pg_clean_text(const char *s, size_t len)
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

/* Run `sql` with p; the result on success (status `want`), else NULL with
 * *rc set. */
PGresult *pg_run(PGconn *conn, const char *sql, const params *p, ExecStatusType want,
                 const char *what, int *rc, char *err, size_t len)
{
    PGresult *res = PQexecParams(conn, sql, p ? p->n : 0, NULL, p ? p->v : NULL, NULL, NULL, 0);
    if (res && PQresultStatus(res) == want)
        return res;
    *rc = pg_fail(conn, res, what, err, len);
    PQclear(res);
    return NULL;
}

int pg_exec(PGconn *conn, const char *sql, const params *p, const char *what, char *err, size_t len,
            int64_t *changed)
{
    int rc = 0;
    PGresult *res = pg_run(conn, sql, p, PGRES_COMMAND_OK, what, &rc, err, len);
    if (!res)
        return rc;
    if (changed)
        *changed = strtoll(PQcmdTuples(res), NULL, 10);
    PQclear(res);
    return 0;
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

PGconn *pg_connect(const char *uri, char *err, size_t len, int *rc)
{
    PGconn *conn = PQconnectdb(conninfo_of(uri));
    if (!conn) {
        pg_set_err(err, len, "cannot connect to the database", "out of memory");
        *rc = SC_STORE_ENOMEM;
        return NULL;
    }
    if (PQstatus(conn) != CONNECTION_OK) {
        /* libpq's message names host and port, never the password. */
        pg_set_err(err, len, "cannot connect to the database", PQerrorMessage(conn));
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
    if (be->lock)
        PQfinish(be->lock);
    free(be->uri);
    free(be->host);
    if (be->host_lit)
        PQfreemem(be->host_lit);
    free(be);
}

static int pg_open(const sc_store_config *cfg, sc_store_be **out, char *err, size_t len)
{
    *out = NULL;
    if (!cfg || !cfg->path) {
        pg_set_err(err, len, "no database given", NULL);
        return SC_STORE_EINVAL;
    }
    sc_store_be *be = calloc(1, sizeof *be);
    if (!be || !(be->uri = store_strdup(cfg->path)) ||
        !(be->host = store_strdup(cfg->host ? cfg->host : ""))) {
        pg_close(be);
        pg_set_err(err, len, "out of memory", NULL);
        return SC_STORE_ENOMEM;
    }
    const char *copy = getenv("STREAMCAP_PG_COPY");
    be->binary = copy && strcmp(copy, "binary") == 0;
    be->busy_timeout_ms = cfg->busy_timeout_ms > 0 ? cfg->busy_timeout_ms : 5000;
    be->reconnect_ms = cfg->reconnect_ms > 0 ? cfg->reconnect_ms : 10000;
    be->generation = 1;
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
    PGresult *r = pg_run(c,
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
    r = pg_run(c, "SELECT coalesce(max(version), 0) FROM schema_migrations", NULL, PGRES_TUPLES_OK,
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
    int rc = pg_exec(c, "BEGIN", NULL, "cannot begin a migration", err, len, NULL);
    if (rc)
        return rc;
    if (rc == 0) {
        PGresult *r = pg_run(c, "SELECT pg_advisory_xact_lock(" MIGRATE_LOCK ")", NULL,
                             PGRES_TUPLES_OK, "cannot take the migration lock", &rc, err, len);
        PQclear(r);
    }
    int version = 0;
    if (rc == 0)
        rc = db_version(c, &version, err, len);
    if (rc == 0 && version < 0) {
        pg_set_err(err, len,
                   "the database is not a streamcap database (tables but no schema_migrations)",
                   NULL);
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
            rc =
                pg_exec(c,
                        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY,"
                        " name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
                        NULL, "cannot record the migration", err, len, NULL);
        }
        if (rc == 0) {
            params p = {0};
            p_i64(&p, m->version);
            p_word(&p, m->name);
            rc = pg_exec(c, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", &p,
                         "cannot record the migration", err, len, NULL);
        }
    }
    if (rc == 0)
        rc = pg_exec(c, "COMMIT", NULL, "cannot commit a migration", err, len, NULL);
    if (rc) {
        PGresult *r = PQexec(c, "ROLLBACK");
        PQclear(r);
    }
    return rc;
}

/* Where this host's write transactions count from (hosts.write_seq, see
 * store_pg_begin), and the host name as a literal for them. */
static int read_write_seq(sc_store_be *be, char *err, size_t len)
{
    if (!(be->host_lit = PQescapeLiteral(be->conn, be->host, strlen(be->host))))
        return pg_fail(be->conn, NULL, "cannot quote the host name", err, len);
    params p = {0};
    p_word(&p, be->host);
    int rc = 0;
    PGresult *r = pg_run(be->conn, "SELECT write_seq FROM hosts WHERE host = $1", &p,
                         PGRES_TUPLES_OK, "cannot read this host's row", &rc, err, len);
    if (!r)
        return rc;
    be->write_seq = PQntuples(r) == 1 ? col_i64(r, 0, 0) : 0;
    PQclear(r);
    return 0;
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
        int rc = pg_exec(c, steps[i], bare ? NULL : &p, "cannot recover this host's rows", err, len,
                         NULL);
        if (rc) {
            PGresult *r = PQexec(c, "ROLLBACK");
            PQclear(r);
            return rc;
        }
    }
    return read_write_seq(be, err, len);
}

/* ---- one daemon per host name ---- */

/* The host name's lock key: FNV-1a 64 of a fixed prefix and the name, the
 * same in every build, so daemons of different versions agree. */
static int64_t host_lock_key(const char *host)
{
    uint64_t h = 14695981039346656037ull;
    for (const char *s = "streamcapd host:"; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    for (const char *s = host; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    int64_t key;
    memcpy(&key, &h, sizeof key);
    return key;
}

/* Who holds the lock, from its backend's application_name ("streamcapd
 * pid N since T", set by hold_host()), into who; "another streamcapd"
 * when it cannot be read (it may just have gone). */
static void lock_holder(sc_store_be *be, int64_t key, char *who, size_t len)
{
    snprintf(who, len, "another streamcapd");
    uint64_t k;
    memcpy(&k, &key, sizeof k);
    params p = {0};
    p_i64(&p, (int64_t)(k >> 32));
    p_i64(&p, (int64_t)(k & 0xffffffffu));
    int rc = 0;
    char ignored[64];
    /* pg_locks shows a bigint key as classid (high half), objid (low). */
    PGresult *r = pg_run(be->lock,
                         "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a"
                         " ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted"
                         " AND l.database = (SELECT oid FROM pg_database"
                         " WHERE datname = current_database())"
                         " AND l.classid = $1::oid AND l.objid = $2::oid AND l.objsubid = 1"
                         " LIMIT 1",
                         &p, PGRES_TUPLES_OK, "holder", &rc, ignored, sizeof ignored);
    if (!r)
        return;
    if (PQntuples(r) == 1 && strncmp(PQgetvalue(r, 0, 0), "streamcapd ", 11) == 0)
        snprintf(who, len, "%s", PQgetvalue(r, 0, 0));
    PQclear(r);
}

/* One try at the lock: 1 taken, 0 held by another, or a store code. */
static int try_host_lock(sc_store_be *be, int64_t key, char *err, size_t len)
{
    params p = {0};
    p_i64(&p, key);
    int rc = 0;
    PGresult *r = pg_run(be->lock, "SELECT pg_try_advisory_lock($1::bigint)", &p, PGRES_TUPLES_OK,
                         "cannot take the host name's lock", &rc, err, len);
    if (!r)
        return rc;
    int got = PQgetvalue(r, 0, 0)[0] == 't';
    PQclear(r);
    return got;
}

/* The lock connection's application_name, which lock_holder() reads
 * back: set again after every reset, with the start time of the first. */
static int name_lock_conn(sc_store_be *be, char *err, size_t len)
{
    params p = {0};
    p_word(&p, be->lock_name);
    int rc = 0;
    PGresult *r = pg_run(be->lock, "SELECT set_config('application_name', $1, false)", &p,
                         PGRES_TUPLES_OK, "cannot name the lock's connection", &rc, err, len);
    if (!r)
        return rc;
    PQclear(r);
    return 0;
}

/* The refusal, naming the daemon that holds our host name. */
static int host_in_use(sc_store_be *be, const char *then, char *err, size_t len)
{
    char who[96];
    lock_holder(be, be->lock_key, who, sizeof who);
    char msg[320];
    snprintf(msg, sizeof msg, "host name \"%.60s\" in use by %s (one daemon per host name)%s",
             be->host, who, then);
    pg_set_err(err, len, msg, NULL);
    return SC_STORE_EIO;
}

/* Take this host name's lock on a connection kept for the store's life,
 * before anything of this host's is touched, so a second daemon with the
 * same --host-name cannot mark the first's live sessions lost.  The
 * server drops the lock when the holder's connection ends, however its
 * daemon died; the short retry covers a holder killed a moment ago whose
 * backend has not yet noticed. */
static int hold_host(sc_store_be *be, char *err, size_t len)
{
    int rc = 0;
    if (!(be->lock = pg_connect(be->uri, err, len, &rc)))
        return rc;
    char since[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(since, sizeof since, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(be->lock_name, sizeof be->lock_name, "streamcapd pid %ld since %s", (long)getpid(),
             since);
    be->lock_key = host_lock_key(be->host);
    if ((rc = name_lock_conn(be, err, len)))
        return rc;
    for (int tries = 0; tries < 20; tries++) {
        int got = try_host_lock(be, be->lock_key, err, len);
        if (got == 1) {
            be->lock_held = true;
            be->lock_gen = be->generation;
        }
        if (got != 0)
            return got == 1 ? 0 : got;
        nanosleep(&(struct timespec){.tv_nsec = 100 * 1000 * 1000}, NULL);
    }
    return host_in_use(be, "", err, len);
}

/* Nothing arrived on the idle lock connection: the server sends an idle
 * session nothing unless it ends it (a FATAL message, then EOF). */
static bool lock_conn_quiet(PGconn *c)
{
    struct pollfd p = {.fd = PQsocket(c), .events = POLLIN};
    return p.fd >= 0 && poll(&p, 1, 0) == 0;
}

/* Whether the lock survived: the server drops it with the connection
 * (a restart, a crash, the backend terminated).  A quiet socket and no
 * reconnect of the writer since the last check cost one poll(); else a
 * round trip on the lock connection makes sure, as a writer that had to
 * reconnect may have seen a restart the lock connection has not read yet. */
static bool lock_still_held(sc_store_be *be)
{
    if (!be->lock_held || PQstatus(be->lock) != CONNECTION_OK)
        return false;
    if (be->lock_gen == be->generation && lock_conn_quiet(be->lock))
        return true;
    PGresult *r = PQexec(be->lock, "SELECT 1");
    bool ok = r && PQresultStatus(r) == PGRES_TUPLES_OK;
    PQclear(r);
    if (ok)
        be->lock_gen = be->generation;
    return ok;
}

/* The lock connection made again, as the writer's (pg_writer_ready). */
static int lock_conn_ready(sc_store_be *be, uint64_t deadline_us, char *err, size_t len)
{
    while (PQstatus(be->lock) != CONNECTION_OK) {
        PQreset(be->lock);
        if (PQstatus(be->lock) == CONNECTION_OK) {
            PQclear(PQexec(be->lock, "SET TIME ZONE 'UTC'"));
            return name_lock_conn(be, err, len);
        }
        if (pg_now_us() >= deadline_us) {
            char what[128];
            snprintf(what, sizeof what,
                     "cannot reach the database within %d ms to take the host name's lock again",
                     be->reconnect_ms);
            pg_set_err(err, len, what, PQerrorMessage(be->lock));
            return SC_STORE_EIO;
        }
        nanosleep(&(struct timespec){.tv_nsec = 100 * 1000 * 1000}, NULL);
    }
    return 0;
}

int pg_host_locked(sc_store_be *be, uint64_t deadline_us, char *err, size_t len)
{
    if (!be->lock) /* never migrated (hold_host not run): nothing to keep */
        return 0;
    /* A connection that still works without the lock (another daemon has
     * it) keeps its session: only a lost one is made again, also one that
     * turns out lost only under the try (its server's end not read yet). */
    while (!lock_still_held(be)) {
        be->lock_held = false;
        int rc = lock_conn_ready(be, deadline_us, err, len);
        if (rc)
            return rc;
        int got = try_host_lock(be, be->lock_key, err, len);
        if (got == 0)
            return host_in_use(be, "; writes are refused until it stops", err, len);
        if (got == 1) {
            be->lock_held = true;
            be->lock_gen = be->generation;
            return 0;
        }
        if (PQstatus(be->lock) == CONNECTION_OK || pg_now_us() >= deadline_us)
            return got;
    }
    return 0;
}

static int pg_migrate(sc_store_be *be, char *err, size_t len)
{
    int rc = hold_host(be, err, len);
    if (rc)
        return rc;
    int version = 0;
    rc = db_version(be->conn, &version, err, len);
    if (rc)
        return rc;
    int latest = latest_version();
    if (version > latest) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "the database has schema version %d, newer than this streamcapd's %d", version,
                 latest);
        pg_set_err(err, len, msg, NULL);
        return SC_STORE_EIO;
    }
    for (size_t i = 0; i < sc_pg_migration_count && rc == 0; i++)
        if (sc_pg_migrations[i].version > version)
            rc = apply_one(be->conn, &sc_pg_migrations[i], err, len);
    if (rc)
        return rc;
    /* Before this host's pending rows go: a graph both pending and
     * visible would lose its rows to them (store_pg_check.c). */
    char first[STORE_PROBLEM_MAX] = "";
    size_t n = 0;
    rc = store_pg_check_conn(be->conn, false, store_keep_first, first, &n, err, len);
    if (!rc)
        rc = store_check_verdict(n, first, err, len);
    return rc ? rc : recover_host(be, err, len);
}

static int pg_count_graphs(sc_store_be *be, sc_store_owner_fn add, void *ctx, char *err, size_t len)
{
    params p = {0};
    p_word(&p, be->host);
    int rc = 0;
    PGresult *r = pg_run(
        be->conn, "SELECT owner_uid, count(*) FROM graphs WHERE host = $1 GROUP BY owner_uid", &p,
        PGRES_TUPLES_OK, "cannot count the stored graphs", &rc, err, len);
    if (!r)
        return rc;
    for (int i = 0; i < PQntuples(r); i++)
        add(ctx, col_u32(r, i, 0), col_i64(r, i, 1));
    PQclear(r);
    return 0;
}

const sc_store_backend sc_store_pg_backend = {
    .name = "postgresql",
    .open = pg_open,
    .migrate = pg_migrate,
    .count_graphs = pg_count_graphs,
    .close = pg_close,
    .begin = store_pg_begin,
    .commit = store_pg_commit,
    .rollback = store_pg_rollback,
    .txn_outcome = store_pg_txn_outcome,
    .write = store_pg_write,
    .write_chunk = store_pg_write_chunk,
    .drop_chunks = store_pg_drop_chunks,
    .make_room = store_pg_make_room,
    .reader_open = store_pg_reader_open,
    .reader_close = store_pg_reader_close,
    .read = store_pg_read,
    .check = store_pg_check,
    .notices_open = store_pg_notices_open,
    .notices_send = store_pg_notices_send,
    .notices_close = store_pg_notices_close,
};
