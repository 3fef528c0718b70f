/*
 * store_sqlite.c - the SQLite backend (store_backend.h): opening the
 * database under its lock, the schema check, migrations and start-up
 * clean-up, and the vtable.  The writer's jobs are in store_sqlite_write.c,
 * the reads in store_sqlite_read.c.
 */
/* flock() is not POSIX. */
#define _DEFAULT_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sc_schema.h"
#include "store_sqlite.h"

#define DEFAULT_BUSY_TIMEOUT_MS 5000

/* SQLite result codes (SQLITE_OK, SQLITE_ROW, SQLITE_DONE, extended codes)
 * are never negative, so none of them can pass for a store code. */
_Static_assert(SQLITE_OK == 0 && SQLITE_ROW > 0 && SQLITE_DONE > 0 && SQLITE_IOERR_NOMEM > 0,
               "SQLite codes are expected to be non-negative");

/* ---- open ---- */

static int fail(sqlite3 *db, const char *what, char *errbuf, size_t errlen)
{
    snprintf(errbuf, errlen, "%s: %s", what, db ? sqlite3_errmsg(db) : "out of memory");
    return SC_STORE_EIO;
}

static int exec(sqlite3 *db, const char *sql, const char *what, char *errbuf, size_t errlen)
{
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return fail(db, what, errbuf, errlen);
    return 0;
}

/* A one-row, one-column query. */
static int query_int(sqlite3 *db, const char *sql, int64_t *out, char *errbuf, size_t errlen)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return fail(db, sql, errbuf, errlen);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return rc == SQLITE_ROW ? 0 : fail(db, sql, errbuf, errlen);
}

/* The per-owner graph counts, once at open: graphs_by_owner serves the
 * GROUP BY without sorting. */
static int sqlite_count_graphs(sc_store_be *be, sc_store_owner_fn add, void *ctx, char *errbuf,
                               size_t errlen)
{
    static const char sql[] = "SELECT owner_uid, count(*) FROM graphs GROUP BY owner_uid";
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(be->db, sql, -1, &s, NULL) != SQLITE_OK)
        return fail(be->db, sql, errbuf, errlen);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        add(ctx, (uint32_t)sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1));
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : fail(be->db, sql, errbuf, errlen);
}

static int set_wal(sqlite3 *db, char *errbuf, size_t errlen)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "PRAGMA journal_mode = WAL", -1, &s, NULL) != SQLITE_OK)
        return fail(db, "setting WAL", errbuf, errlen);
    int ok = sqlite3_step(s) == SQLITE_ROW &&
             sqlite3_stricmp((const char *)sqlite3_column_text(s, 0), "wal") == 0;
    sqlite3_finalize(s);
    if (!ok) {
        snprintf(errbuf, errlen, "setting WAL: the database refused journal_mode=WAL");
        return SC_STORE_EIO;
    }
    return 0;
}

static int latest_version(void)
{
    return sc_migration_count ? sc_migrations[sc_migration_count - 1].version : 0;
}

/* The tables of every schema version (nodes and edges are views from
 * version 5), so a database that only shares a user_version with ours is
 * still recognised as another program's. */
#define OUR_TABLES                                                                                 \
    "SELECT count(*) FROM sqlite_master WHERE type IN ('table', 'view') AND name IN "              \
    "('capture_log', 'graphs', 'nodes', 'edges', 'graph_index')"
#define OUR_TABLE_COUNT 5

/*
 * Before anything writes to it (not even journal_mode): a database of
 * another program is refused rather than extended with our tables, and
 * one of a newer streamcapd rather than misread.
 */
static int check_schema(sqlite3 *db, char *errbuf, size_t errlen)
{
    int64_t version, objects, ours;
    if (query_int(db, "PRAGMA user_version", &version, errbuf, errlen)) {
        if (sqlite3_errcode(db) == SQLITE_NOTADB)
            snprintf(errbuf, errlen, "it is not an SQLite database");
        return SC_STORE_EIO;
    }
    if (version > latest_version()) {
        snprintf(errbuf, errlen,
                 "its schema version %lld is newer than this streamcapd knows (%d): "
                 "run a newer streamcapd",
                 (long long)version, latest_version());
        return SC_STORE_EIO;
    }
    if (query_int(db,
                  "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
                  &objects, errbuf, errlen) ||
        query_int(db, OUR_TABLES, &ours, errbuf, errlen))
        return SC_STORE_EIO;
    if (version == 0 && objects > 0) {
        snprintf(errbuf, errlen,
                 "it holds another program's tables (no streamcap schema version); "
                 "not adding ours: choose another file with --db");
        return SC_STORE_EIO;
    }
    if (version > 0 && ours != OUR_TABLE_COUNT) {
        snprintf(errbuf, errlen,
                 "it has schema version %lld but not streamcap's tables: it belongs to another "
                 "program; choose another file with --db",
                 (long long)version);
        return SC_STORE_EIO;
    }
    return 0;
}

/* The migration that added the host columns (schema/004_host.sql). */
#define HOST_VERSION 4

/* The rows from before hosts were stored are this daemon's: one daemon per
 * file wrote them all. */
static int adopt_rows(sc_store_be *be, const char *what, char *errbuf, size_t errlen)
{
    static const char *const sql[] = {"UPDATE capture_log SET host = ?1",
                                      "UPDATE graphs SET host = ?1",
                                      "UPDATE captures SET host = ?1"};
    for (size_t i = 0; i < sizeof sql / sizeof sql[0]; i++) {
        sqlite3_stmt *s;
        if (sqlite3_prepare_v2(be->db, sql[i], -1, &s, NULL) != SQLITE_OK)
            return fail(be->db, what, errbuf, errlen);
        sqlite3_bind_text(s, 1, be->host, -1, SQLITE_STATIC);
        int rc = sqlite3_step(s);
        sqlite3_finalize(s);
        if (rc != SQLITE_DONE)
            return fail(be->db, what, errbuf, errlen);
    }
    return 0;
}

static int apply_migrations(sc_store_be *be, char *errbuf, size_t errlen)
{
    sqlite3 *db = be->db;
    int64_t version;
    if (query_int(db, "PRAGMA user_version", &version, errbuf, errlen))
        return SC_STORE_EIO;
    for (size_t i = 0; i < sc_migration_count; i++) {
        const sc_migration *m = &sc_migrations[i];
        if (m->version <= version)
            continue;
        char pragma[64];
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", m->version);
        if (exec(db, "BEGIN IMMEDIATE", m->name, errbuf, errlen))
            return SC_STORE_EIO;
        if (exec(db, m->sql, m->name, errbuf, errlen) ||
            (m->version == HOST_VERSION && adopt_rows(be, m->name, errbuf, errlen)) ||
            exec(db, pragma, m->name, errbuf, errlen) ||
            exec(db, "COMMIT", m->name, errbuf, errlen)) {
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
            return SC_STORE_EIO;
        }
    }
    return 0;
}

/*
 * A new database (check_schema let no other program's tables through)
 * gives the pages retention frees back to the file system a few at a time
 * (PRAGMA incremental_vacuum).  The mode can only be chosen before the
 * first table exists, and before journal_mode=WAL writes the header;
 * older databases keep theirs (docs/operations.md, "Retention").
 */
static int set_vacuum_mode(sqlite3 *db, char *errbuf, size_t errlen)
{
    int64_t version;
    if (query_int(db, "PRAGMA user_version", &version, errbuf, errlen))
        return SC_STORE_EIO;
    if (version != 0)
        return 0;
    return exec(db, "PRAGMA auto_vacuum = INCREMENTAL", "setting auto_vacuum", errbuf, errlen);
}

/* The writer's connection, checked and set up but not yet migrated. */
static int setup_writer(sc_store_be *be, const sc_store_config *cfg, char *errbuf, size_t errlen)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(
        cfg->path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    be->db = db;
    if (rc != SQLITE_OK) {
        /* The system's reason (a directory, no permission) says more than
         * SQLite's "unable to open database file"; the caller names the path. */
        int e = db ? sqlite3_system_errno(db) : 0;
        snprintf(errbuf, errlen, "%s", e ? strerror(e) : db ? sqlite3_errmsg(db) : "out of memory");
        return SC_STORE_EIO;
    }
    sqlite3_busy_timeout(db, be->busy_timeout_ms);
    if (store_rows_register(db) != SQLITE_OK)
        return fail(db, "registering the row functions", errbuf, errlen);
    if (check_schema(db, errbuf, errlen) || set_vacuum_mode(db, errbuf, errlen))
        return SC_STORE_EIO;
    if (set_wal(db, errbuf, errlen))
        return SC_STORE_EIO;
    be->full_sync = cfg->sync_full;
    /*
     * Builds with SQLITE_SECURE_DELETE (Debian's) zero every page a delete
     * frees, so deleting a graph wrote all of its pages to the log again
     * and needed as much free space as the graph took: on a full disk more
     * than the reserve.  FAST still clears the deleted rows in pages the
     * delete writes anyway, and writes no other page.
     */
    if (exec(db, "PRAGMA secure_delete = FAST", "setting secure_delete", errbuf, errlen))
        return SC_STORE_EIO;
    return exec(db, cfg->sync_full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL",
                "setting synchronous", errbuf, errlen);
}

/*
 * The cheap part of the integrity check (store_sqlite_check.c), before the
 * recovery below deletes pending rows: a database that fails it is not
 * served, and the reason names the first problem.
 */
static int startup_check(sqlite3 *db, char *errbuf, size_t errlen)
{
    char first[STORE_PROBLEM_MAX] = "";
    size_t n = 0;
    char why[256];
    int rc = store_sqlite_check_db(db, false, store_keep_first, first, &n, why, sizeof why);
    if (rc) {
        snprintf(errbuf, errlen, "start-up integrity check: %s", why);
        return rc;
    }
    return store_check_verdict(n, first, errbuf, errlen);
}

/* One daemon per database holds the file's lock, so migrations need no lock
 * of their own: BEGIN IMMEDIATE keeps out any other writer of the file. */
static int sqlite_migrate(sc_store_be *be, char *errbuf, size_t errlen)
{
    sqlite3 *db = be->db;
    if (apply_migrations(be, errbuf, errlen))
        return SC_STORE_EIO;
    if (be->max_page_count > 0) {
        char pragma[64];
        snprintf(pragma, sizeof pragma, "PRAGMA max_page_count = %lld",
                 (long long)be->max_page_count);
        if (exec(db, pragma, "setting max_page_count", errbuf, errlen))
            return SC_STORE_EIO;
    }
    if (startup_check(db, errbuf, errlen))
        return SC_STORE_EIO;
    /* Graphs a dead daemon was committing in chunks were never
     * acknowledged: their rows go before anything reads the file.  Should
     * that fail (a full disk), they stay invisible until the next start. */
    store_writer_recover(db);
    if (store_stop_open(be, errbuf, errlen) ||
        query_int(db, "SELECT coalesce(max(session), 0) FROM capture_log", &be->recovery_below,
                  errbuf, errlen))
        return SC_STORE_EIO;
    int rc = store_sqlite_recover_sessions(be);
    if (rc != SQLITE_OK && (rc & 0xff) != SQLITE_FULL && (rc & 0xff) != SQLITE_IOERR)
        return fail(db, "ending the sessions of the last run", errbuf, errlen);
    /* A full disk must not keep reads and deletes from being served: the
     * writer records these rows once the database takes them again. */
    if (rc != SQLITE_OK) {
        be->recovery_due = true;
        store_sqlite_warn(be,
                          "cannot end the sessions of the last run yet (%s): they stay open, "
                          "and are ended (or called lost) once the database takes writes",
                          sqlite3_errmsg(db));
    }
    return store_writer_prepare(be, errbuf, errlen);
}

int store_sqlite_recover_sessions(store_writer *w)
{
    /* Rows the last stop could not end are ended first: that daemon did
     * not die.  Should that fail, nothing is marked lost either. */
    int rc = store_stop_apply(w);
    if (rc != SQLITE_OK)
        return rc;
    /* Rows still open belong to a daemon that died (sessions of this run
     * have later ids); their end time is unknown, so ended_at stays NULL. */
    sqlite3_stmt *s;
    rc = sqlite3_prepare_v2(w->db,
                            "UPDATE capture_log SET outcome = 'lost'"
                            " WHERE outcome = 'open' AND session <= ?1",
                            -1, &s, NULL);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_bind_int64(s, 1, w->recovery_below);
    rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* ---- one daemon per database ---- */

/*
 * The pid holding an flock on the file (dev, ino) as /proc/locks lists
 * it, or 0 when none is listed or the list cannot be read.  A file system
 * that stacks on another (overlayfs) lists the lower device, so a lone
 * lock on the same inode is taken as the one when the device differs.
 */
static long flock_holder(dev_t dev, ino_t ino)
{
    FILE *f = fopen("/proc/locks", "re");
    if (!f)
        return 0;
    char line[256];
    long exact = 0, same_ino = 0;
    int n_same_ino = 0;
    while (!exact && fgets(line, sizeof line, f)) {
        char kind[16];
        long pid;
        unsigned maj, min;
        unsigned long long i;
        /* "->" marks a waiter, not a holder. */
        if (strstr(line, "->") ||
            sscanf(line, "%*d: %15s %*s %*s %ld %x:%x:%llu", kind, &pid, &maj, &min, &i) != 5)
            continue;
        if (strcmp(kind, "FLOCK") != 0 || pid <= 0 || i != (unsigned long long)ino)
            continue;
        if (maj == major(dev) && min == minor(dev))
            exact = pid;
        same_ino = pid;
        n_same_ino++;
    }
    fclose(f);
    return exact ? exact : n_same_ino == 1 ? same_ino : 0;
}

static int lock_busy(long pid, char *errbuf, size_t errlen)
{
    if (pid > 0)
        snprintf(errbuf, errlen, "in use by streamcapd pid %ld (one daemon per database)", pid);
    else
        snprintf(errbuf, errlen, "in use by another streamcapd (one daemon per database)");
    return SC_STORE_EIO;
}

/*
 * Two daemons on one database would each serve their own cached graphs
 * and session state, the second would mark the first's open sessions
 * lost, and two names of one file (a hard link) would give it two
 * write-ahead logs.  So the store holds an exclusive flock on the
 * database file itself for its life: the lock follows the file, not the
 * name, so a symlink, a hard link or a path through ".." meets it too.
 * flock, not fcntl: it does not mix with SQLite's fcntl locks on the same
 * file, and it belongs to the open file, so it also keeps out a second
 * store of the same process.  The kernel releases it when the process
 * dies, however it dies, so a crash leaves nothing to clean.
 *
 * Closing any descriptor of a file drops the fcntl locks its process
 * holds on it, SQLite's included, so a store of this process already on
 * the file must be found without opening one: /proc/locks names the
 * holder first, and a file this process is listed as holding is not
 * opened.
 */
static int take_lock(sc_store_be *st, const char *path, char *errbuf, size_t errlen)
{
    struct stat sb;
    /* Only this process must be found before opening: any other holder
     * is met by the flock below, which, unlike the list's inode guess
     * for stacked file systems, cannot mistake another file for it. */
    if (stat(path, &sb) == 0) {
        long pid = flock_holder(sb.st_dev, sb.st_ino);
        if (pid > 0 && pid == (long)getpid())
            return lock_busy(pid, errbuf, errlen);
    }
    /* Created here when new: an empty file is an empty SQLite database. */
    int fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(errbuf, errlen, "%s", strerror(errno));
        return SC_STORE_EIO;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        long pid = e == EWOULDBLOCK && fstat(fd, &sb) == 0 ? flock_holder(sb.st_dev, sb.st_ino) : 0;
        close(fd);
        if (e == EWOULDBLOCK)
            return lock_busy(pid, errbuf, errlen);
        snprintf(errbuf, errlen, "cannot lock it: %s", strerror(e));
        return SC_STORE_EIO;
    }
    st->lock_fd = fd;
    return 0;
}

/* After the database is closed, so that the next daemon finds it
 * complete, and so that this close drops none of SQLite's locks. */
static void release_lock(sc_store_be *st)
{
    if (st->lock_fd < 0)
        return;
    close(st->lock_fd);
    st->lock_fd = -1;
}

/*
 * A clean stop leaves no "-shm" (nor "-wal"), and SQLite cannot make them
 * on a disk full to the last byte, so even reading fails.  The space kept
 * next to the database is there for a full disk: the reserve goes first
 * (a delete on the disk the daemon then serves still finds its space
 * free), else the margin of the .shutdown file beyond the rows it holds.
 * True when that freed something.
 */
static bool room_to_open(sc_store_be *be)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s.reserve", be->path);
    bool freed = unlink(path) == 0;
    snprintf(path, sizeof path, "%s.shutdown", be->path);
    int fd = freed ? -1 : open(path, O_RDWR | O_CLOEXEC);
    if (fd >= 0) {
        /* Only zeros follow the rows; a page past them keeps a torn tail. */
        char buf[4096];
        off_t end = 0;
        ssize_t n;
        while ((n = pread(fd, buf, sizeof buf, end)) > 0 && !memchr(buf, '\0', (size_t)n))
            end += n;
        struct stat st;
        off_t keep = end + (off_t)sizeof buf;
        freed = fstat(fd, &st) == 0 && keep < st.st_size && ftruncate(fd, keep) == 0;
        close(fd);
    }
    if (freed)
        store_sqlite_warn(be,
                          "the disk under %s is full: the space kept next to it was given "
                          "up so that it opens",
                          be->path);
    return freed;
}

/* Free what setup left behind; the thread and the handle are not running. */

static void sqlite_close(sc_store_be *be)
{
    if (!be)
        return;
    store_writer_finalize(be);
    store_stop_close(be);
    sqlite3_close(be->db);
    release_lock(be);
    free(be->host);
    free(be->path);
    free(be);
}

static int sqlite_open(const sc_store_config *cfg, sc_store_be **out, char *errbuf, size_t errlen)
{
    *out = NULL;
    if (!sqlite3_threadsafe()) {
        snprintf(errbuf, errlen, "SQLite was built without thread support");
        return SC_STORE_EIO;
    }
    sc_store_be *be = calloc(1, sizeof *be);
    if (!be || !(be->path = store_strdup(cfg->path)) ||
        !(be->host = store_strdup(cfg->host ? cfg->host : ""))) {
        if (be)
            free(be->path);
        free(be);
        snprintf(errbuf, errlen, "out of memory");
        return SC_STORE_ENOMEM;
    }
    be->lock_fd = -1;
    be->stop_fd = -1;
    be->warn = cfg->warn;
    be->warn_ctx = cfg->warn_ctx;
    be->busy_timeout_ms = cfg->busy_timeout_ms > 0 ? cfg->busy_timeout_ms : DEFAULT_BUSY_TIMEOUT_MS;
    be->max_page_count = cfg->max_page_count;
    int rc = take_lock(be, cfg->path, errbuf, errlen);
    if (rc == 0)
        rc = setup_writer(be, cfg, errbuf, errlen);
    if (rc != 0 && be->db && sqlite3_system_errno(be->db) == ENOSPC && room_to_open(be)) {
        sqlite3_close(be->db);
        be->db = NULL;
        rc = setup_writer(be, cfg, errbuf, errlen);
    }
    if (rc != 0) {
        sqlite_close(be);
        return rc;
    }
    *out = be;
    return 0;
}

const sc_store_backend sc_store_sqlite_backend = {
    .name = "sqlite",
    .streams = true,
    .backs_up = true,
    .open = sqlite_open,
    .migrate = sqlite_migrate,
    .count_graphs = sqlite_count_graphs,
    .close = sqlite_close,
    .begin = store_sqlite_begin,
    .commit = store_sqlite_commit,
    .rollback = store_sqlite_rollback,
    .write = store_sqlite_write,
    .write_chunk = store_sqlite_write_chunk,
    .write_index = store_sqlite_write_index,
    .drop_chunks = store_sqlite_drop_chunks,
    .make_room = store_sqlite_make_room,
    .idle = store_sqlite_idle,
    .defer_log_ends = store_sqlite_defer_log_ends,
    .reader_open = store_sqlite_reader_open,
    .reader_close = store_sqlite_reader_close,
    .read = store_sqlite_read,
    .check = store_sqlite_check,
};
