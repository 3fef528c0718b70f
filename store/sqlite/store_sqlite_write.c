/*
 * store_sqlite_write.c - the SQLite backend's writer connection: its
 * statements, the transactions the generic writer (store_txn.c) opens and
 * ends through the vtable, and the jobs it runs in them.  Only the writer
 * thread calls these once the store is open.
 *
 * Statements are prepared once with SQLITE_PREPARE_PERSISTENT and reset
 * after every step.  A graph's nodes and edges are stored by one
 * INSERT ... SELECT of its node_chunks rows from the table-valued function
 * of store_sqlite_rows.c, which reads the sealed graph in key order; the
 * graph_index blobs are filled from the graph's successor lists.
 *
 * Two result spaces meet here and each function keeps to one: the helpers
 * named sql_* return SQLite result codes (SQLITE_OK or the error), the
 * others 0 or an SC_STORE_E* code.  A SQLite failure becomes SC_STORE_EIO
 * where a store function calls a sql_* helper or sqlite3 itself; SQLite's
 * message is then read from the connection (or w->why, for failures that
 * are not SQLite's).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "store_sqlite.h"

static const struct {
    size_t offset;
    const char *sql;
} writer_sql[] = {
    {offsetof(store_writer, begin), "BEGIN IMMEDIATE"},
    {offsetof(store_writer, commit), "COMMIT"},
    {offsetof(store_writer, rollback), "ROLLBACK"},
    {offsetof(store_writer, log_insert),
     "INSERT INTO capture_log (label, owner_uid, owner_pid, opened_at, semantics, host)"
     " VALUES (?1, ?2, ?3, ?4, ?5, ?6)"},
    {offsetof(store_writer, log_end),
     "UPDATE capture_log SET outcome = ?2, node_count = ?3, ended_at = ?4"
     " WHERE session = ?1 AND outcome = 'open'"},
    {offsetof(store_writer, log_check),
     "SELECT 1 FROM capture_log WHERE session = ?1 AND outcome = 'open'"},
    {offsetof(store_writer, log_complete),
     "UPDATE capture_log SET outcome = 'completed', graph = ?2, node_count = ?3, ended_at = ?4"
     " WHERE session = ?1"},
    {offsetof(store_writer, graph_insert),
     "INSERT INTO graphs (session, label, created_at, owner_uid, owner_pid, node_count,"
     " edge_count, stream_count, graph, host, fp_structure, fp_full)"
     " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?10, ?11, ?15, ?16)"},
    /* A node's edges are stored in its row (schema/005_packed_rows.sql). */
    {offsetof(store_writer, node_insert),
     "INSERT INTO node_chunks (graph, lo, nodes) SELECT ?1, lo, nodes FROM sc_node_chunks(?2)"},
    {offsetof(store_writer, index_insert),
     "INSERT INTO graph_index (graph, lo, node_count, edge_count, streams, edges)"
     " VALUES (?1, ?2, ?3, ?4, ?5, ?6)"},
    {offsetof(store_writer, graph_session),
     "SELECT session, owner_uid, pinned FROM graphs WHERE graph = ?1"},
    {offsetof(store_writer, index_delete), "DELETE FROM graph_index WHERE graph = ?1"},
    /* The key starts with the graph id: the delete is one key range. */
    {offsetof(store_writer, nodes_delete), "DELETE FROM node_chunks WHERE graph = ?1"},
    {offsetof(store_writer, graph_delete), "DELETE FROM graphs WHERE graph = ?1"},
    {offsetof(store_writer, log_graph_deleted),
     "UPDATE capture_log SET graph_deleted_at = ?3 WHERE session = ?1 AND graph = ?2"},
    {offsetof(store_writer, graph_insert_cuda),
     "INSERT INTO graphs (session, label, created_at, owner_uid, owner_pid, node_count,"
     " edge_count, stream_count, semantics, capture, graph, host, parent_graph, parent_node,"
     " parent_index, fp_structure, fp_full) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'cuda', ?9,"
     " ?10, ?11, ?12, ?13, ?14, ?15, ?16)"},
    {offsetof(store_writer, fp_update),
     "UPDATE graphs SET fp_structure = ?2, fp_full = ?3 WHERE graph = ?1"},
    {offsetof(store_writer, capture_insert),
     "INSERT INTO captures (session, capture, origin, mode, thread, outcome, cuda_error,"
     " node_count, ended_at, graph, inv_method, inv_stream, inv_event, inv_thread, inv_call,"
     " inv_error, host)"
     " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)"},
    {offsetof(store_writer, capture_graph_deleted),
     "UPDATE captures SET graph_deleted_at = ?3 WHERE session = ?1 AND graph = ?2"},
    /* A chunked commit takes the id AUTOINCREMENT would hand out next and
     * moves the sequence past it, so graphs committed meanwhile get later
     * ids and the id is never handed out again, even if the daemon dies. */
    {offsetof(store_writer, pending_reserve),
     "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'graphs'), 0),"
     " coalesce((SELECT max(graph) FROM pending_graphs), 0)) + 1"},
    {offsetof(store_writer, pending_insert),
     "INSERT INTO pending_graphs (graph, session, started_at) VALUES (?1, ?2, ?3)"},
    {offsetof(store_writer, pending_seq_update),
     "UPDATE sqlite_sequence SET seq = ?1 WHERE name = 'graphs'"},
    {offsetof(store_writer, pending_seq_insert),
     "INSERT INTO sqlite_sequence (name, seq) SELECT 'graphs', ?1"
     " WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'graphs')"},
    {offsetof(store_writer, pending_delete), "DELETE FROM pending_graphs WHERE graph = ?1"},
    {offsetof(store_writer, sync_normal), "PRAGMA synchronous = NORMAL"},
    {offsetof(store_writer, sync_full), "PRAGMA synchronous = FULL"},
};

#define N_WRITER_SQL (sizeof writer_sql / sizeof writer_sql[0])

static sqlite3_stmt **stmt_slot(store_writer *w, size_t i)
{
    return (sqlite3_stmt **)((char *)w + writer_sql[i].offset);
}

/*
 * The reserve: on a full filesystem even a delete fails, since SQLite must
 * append the changed pages to the write-ahead log first, and deleting is
 * how space comes back.  So the writer keeps STORE_RESERVE_BYTES allocated
 * in a file next to the database; a delete that fails with SQLITE_FULL
 * frees it and runs again.  Stores never use it.  It is made again once
 * the filesystem has twice its size free (checked at most once a second,
 * before a batch), so making it never takes the last free space.
 */
static uint64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void store_sqlite_warn(store_writer *w, const char *fmt, ...)
{
    if (!w->warn)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    w->warn(w->warn_ctx, msg);
}

/* Bytes free for us on the reserve's filesystem, or -1 when unknown. */
static int64_t free_bytes(const char *path)
{
    struct statvfs vfs;
    if (statvfs(path, &vfs) != 0) {
        if (errno != ENOENT)
            return -1;
        /* The file is not there yet: ask about its directory. */
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash)
            *(slash == dir ? slash + 1 : slash) = '\0';
        if (statvfs(slash ? dir : ".", &vfs) != 0)
            return -1;
    }
    return (int64_t)((uint64_t)vfs.f_bavail * vfs.f_frsize);
}

/*
 * At start the reserve is made whenever it fits with a quarter of its
 * size to spare, since deletes need it most on a disk that is nearly full;
 * later only with twice its size free, so that remaking it never takes the
 * last free space.  Without it, a delete on a full disk uses the margin of
 * the .shutdown file's room (store_stop_shrink).
 */
static void reserve_make(store_writer *w, bool at_start)
{
    struct stat st;
    if (!w->reserve_path)
        return;
    if (stat(w->reserve_path, &st) == 0 && st.st_size >= (off_t)STORE_RESERVE_BYTES &&
        st.st_blocks * 512 >= (blkcnt_t)STORE_RESERVE_BYTES) {
        w->have_reserve = true;
        w->reserve_warned = false;
        return;
    }
    int64_t avail = free_bytes(w->reserve_path);
    uint64_t need = at_start ? STORE_RESERVE_BYTES + STORE_RESERVE_BYTES / 4
                             : 2u * (uint64_t)STORE_RESERVE_BYTES;
    int rc = ENOSPC;
    if (avail >= 0 && (uint64_t)avail >= need) {
        int fd = open(w->reserve_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        rc = fd < 0 ? errno : posix_fallocate(fd, 0, STORE_RESERVE_BYTES);
        if (fd >= 0)
            close(fd);
        if (rc != 0)
            unlink(w->reserve_path);
    }
    if (rc == 0) {
        w->have_reserve = true;
        w->reserve_warned = false;
    } else if (!w->reserve_warned) {
        w->reserve_warned = true;
        char why[128];
        if (avail >= 0 && (uint64_t)avail < need)
            snprintf(why, sizeof why, "%lld KiB free, %llu KiB needed", (long long)(avail >> 10),
                     (unsigned long long)(need >> 10));
        else
            snprintf(why, sizeof why, "%s", strerror(rc));
        store_sqlite_warn(w,
                          "cannot keep %u KiB free for deletes in %s (%s): a graph.delete on a "
                          "full disk uses the room of the .shutdown file instead; made once %llu "
                          "KiB are free",
                          STORE_RESERVE_BYTES >> 10, w->reserve_path, why,
                          (unsigned long long)((2u * (uint64_t)STORE_RESERVE_BYTES) >> 10));
    }
}

/* Before a batch: make the reserve if it is missing and it is time to try. */
static void reserve_check(store_writer *w)
{
    if (w->have_reserve || !w->reserve_path)
        return;
    uint64_t now = mono_ms();
    if (now < w->reserve_retry_ms)
        return;
    w->reserve_retry_ms = now + 1000;
    reserve_make(w, false);
}

/* Give the reserve's space back to the filesystem: true when there was one. */
static bool reserve_release(store_writer *w)
{
    if (!w->have_reserve)
        return false;
    w->have_reserve = false;
    w->reserve_retry_ms = mono_ms() + 1000;
    return unlink(w->reserve_path) == 0;
}

/* The exact number of open log rows: 0, or SQLite's error. */
static int sql_count_open(store_writer *w, int64_t *n)
{
    sqlite3_stmt *s;
    int rc = sqlite3_prepare_v2(w->db, "SELECT count(*) FROM capture_log WHERE outcome = 'open'",
                                -1, &s, NULL);
    if (rc != SQLITE_OK)
        return rc;
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        *n = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return rc == SQLITE_ROW ? SQLITE_OK : rc;
}

/*
 * Room in the .shutdown file for the final row of one more session, before
 * its row is added: a stop on a full disk then still has somewhere to keep
 * it.  The count of open rows is an upper bound between exact counts,
 * which are taken only when the room seems short.  0 or SC_STORE_EIO.
 */
static int stop_room_for_one_more(store_writer *w)
{
    if (store_stop_room(w, w->open_rows + 1, STORE_STOP_SPARE_ROWS) == 0)
        return 0;
    int64_t exact = 0;
    if (sql_count_open(w, &exact) == SQLITE_OK) {
        w->open_rows = exact;
        if (store_stop_room(w, exact + 1, STORE_STOP_SPARE_ROWS) == 0)
            return 0;
    }
    w->why = "database or disk is full (no room for the session's final log row)";
    w->full = true;
    if (!w->stop_warned) {
        w->stop_warned = true;
        store_sqlite_warn(w, "the disk is full: session.open is refused until the .shutdown file "
                             "next to the database has room for another session's final row");
    }
    return SC_STORE_EIO;
}

int store_writer_prepare(store_writer *w, char *errbuf, size_t errlen)
{
    const char *db = sqlite3_db_filename(w->db, "main");
    if (db && db[0]) {
        size_t n = strlen(db);
        w->reserve_path = malloc(n + sizeof ".reserve");
        if (w->reserve_path) {
            memcpy(w->reserve_path, db, n);
            memcpy(w->reserve_path + n, ".reserve", sizeof ".reserve");
        }
    }
    /* The stop's rows come first: the room for them and its margin (made
     * whole again, should a delete have spent it), then the reserve. */
    if (sql_count_open(w, &w->open_rows) != SQLITE_OK)
        w->open_rows = 0;
    int e = store_stop_room(w, w->open_rows + STORE_STOP_SPARE_ROWS, 0);
    if (e != 0 && store_stop_room(w, w->open_rows, 0) == 0)
        store_sqlite_warn(w,
                          "only room for the rows of the open sessions next to the database "
                          "(%s): a graph.delete on a full disk has no margin to use",
                          strerror(e));
    else if (e != 0)
        store_sqlite_warn(w,
                          "cannot allocate room for the stop's log rows next to the database: %s",
                          strerror(e));
    reserve_make(w, true);
    for (size_t i = 0; i < N_WRITER_SQL; i++) {
        if (sqlite3_prepare_v3(w->db, writer_sql[i].sql, -1, SQLITE_PREPARE_PERSISTENT,
                               stmt_slot(w, i), NULL) != SQLITE_OK) {
            snprintf(errbuf, errlen, "preparing \"%s\": %s", writer_sql[i].sql,
                     sqlite3_errmsg(w->db));
            return SC_STORE_EIO;
        }
    }
    return 0;
}

void store_writer_finalize(store_writer *w)
{
    free(w->reserve_path);
    w->reserve_path = NULL;
    for (size_t i = 0; i < N_WRITER_SQL; i++) {
        sqlite3_finalize(*stmt_slot(w, i));
        *stmt_slot(w, i) = NULL;
    }
}

/* Step a statement that returns no row: SQLITE_OK when it ran to the end,
 * else SQLite's error (or SQLITE_ROW when it unexpectedly returned one). */
int sql_step_done(sqlite3_stmt *s)
{
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

void store_sqlite_bind_time(sqlite3_stmt *s, int idx, int64_t ms)
{
    char buf[STORE_TIME_BUF];
    store_time_format(ms, buf);
    sqlite3_bind_text(s, idx, buf, -1, SQLITE_TRANSIENT);
}

static void bind_label(sqlite3_stmt *s, int idx, const char *label, size_t len)
{
    sqlite3_bind_text64(s, idx, label ? label : "", label ? len : 0, SQLITE_STATIC, SQLITE_UTF8);
}

static int run_log_open(store_writer *w, store_job *j)
{
    if (stop_room_for_one_more(w) != 0)
        return SC_STORE_EIO;
    sqlite3_stmt *s = w->log_insert;
    bind_label(s, 1, j->u.open.label, j->u.open.label_len);
    sqlite3_bind_int64(s, 2, j->u.open.uid);
    sqlite3_bind_int64(s, 3, j->u.open.pid);
    store_sqlite_bind_time(s, 4, j->u.open.opened_ms);
    sqlite3_bind_text(s, 5, j->u.open.semantics, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 6, w->host, -1, SQLITE_STATIC);
    int sqlrc = sql_step_done(s);
    sqlite3_clear_bindings(s);
    if (sqlrc != SQLITE_OK)
        return SC_STORE_EIO;
    j->id = sqlite3_last_insert_rowid(w->db);
    w->open_rows++;
    w->stop_warned = false;
    return 0;
}

static int run_log_end(store_writer *w, store_job *j)
{
    sqlite3_stmt *s = w->log_end;
    sqlite3_bind_int64(s, 1, j->u.end.session);
    sqlite3_bind_text(s, 2, j->u.end.outcome, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 3, j->u.end.node_count);
    store_sqlite_bind_time(s, 4, j->u.end.ended_ms);
    if (sql_step_done(s) != SQLITE_OK)
        return SC_STORE_EIO;
    /* The WHERE clause left the row alone, so nothing was written. */
    if (sqlite3_changes(w->db) == 0)
        return SC_STORE_ENOTFOUND;
    j->id = j->u.end.session;
    return 0;
}

/* Is the session's row there and still open?  0, ENOTFOUND or EIO. */
static int check_open(store_writer *w, int64_t session)
{
    sqlite3_stmt *s = w->log_check;
    sqlite3_bind_int64(s, 1, session);
    int sqlrc = sqlite3_step(s);
    sqlite3_reset(s);
    if (sqlrc == SQLITE_ROW)
        return 0;
    return sqlrc == SQLITE_DONE ? SC_STORE_ENOTFOUND : SC_STORE_EIO;
}

static int insert_graph_row(store_writer *w, store_job *j, int64_t *gid)
{
    const sc_graph *g = j->u.commit.g;
    const sc_fingerprint *fp;
    if (store_job_fingerprint(j, &fp) != 0) {
        w->why = "out of memory fingerprinting the graph";
        w->nomem = true;
        return SC_STORE_ENOMEM;
    }
    bool cuda = j->type == SC_STORE_JOB_COMMIT_CAPTURE || j->u.commit.submitted;
    sqlite3_stmt *s = cuda ? w->graph_insert_cuda : w->graph_insert;
    /* A submitted graph belongs to no capture: its capture stays NULL. */
    if (j->type == SC_STORE_JOB_COMMIT_CAPTURE)
        sqlite3_bind_int64(s, 9, j->u.commit.cap.capture);
    sqlite3_bind_int64(s, 1, j->u.commit.session);
    bind_label(s, 2, j->u.commit.label, j->u.commit.label_len);
    store_sqlite_bind_time(s, 3, j->u.commit.created_ms);
    sqlite3_bind_int64(s, 4, j->u.commit.uid);
    sqlite3_bind_int64(s, 5, j->u.commit.pid);
    sqlite3_bind_int64(s, 6, sc_graph_node_count(g));
    sqlite3_bind_int64(s, 7, (sqlite3_int64)sc_graph_edge_count(g));
    sqlite3_bind_int64(s, 8, sc_graph_stream_count(g));
    /* Unbound (NULL) unless the id was reserved by a chunked commit. */
    if (j->u.commit.pending_gid)
        sqlite3_bind_int64(s, 10, j->u.commit.pending_gid);
    sqlite3_bind_text(s, 11, w->host, -1, SQLITE_STATIC);
    if (j->u.commit.parent_graph) {
        sqlite3_bind_int64(s, 12, j->u.commit.parent_graph);
        sqlite3_bind_int64(s, 13, j->u.commit.parent_node);
        sqlite3_bind_int64(s, 14, j->u.commit.parent_index);
    }
    store_bind_fp(s, 15, fp->structure);
    store_bind_fp(s, 16, fp->full);
    int sqlrc = sql_step_done(s);
    sqlite3_clear_bindings(s);
    if (sqlrc != SQLITE_OK)
        return SC_STORE_EIO;
    *gid = sqlite3_last_insert_rowid(w->db);
    return 0;
}

/* Whether the graph gets graph_index parts: not when all of them together
 * would exceed SQLite's largest value, the bound of the single row they
 * replace (such a graph loads in full for reachability). */
static bool index_wanted(store_writer *w, const sc_graph *g)
{
    uint64_t n = sc_graph_node_count(g), m = sc_graph_edge_count(g);
    /* The limit counts the whole row; 64 bytes cover the other columns. */
    return 4 * n + 8 * m + 64 <= (uint64_t)sqlite3_limit(w->db, SQLITE_LIMIT_LENGTH, -1);
}

/* An empty blob is still a blob: binding a NULL pointer would store NULL. */
static void bind_u32_blob(sqlite3_stmt *s, int idx, uint32_t *v, uint64_t count)
{
    if (count == 0)
        sqlite3_bind_zeroblob(s, idx, 0);
    else
        sqlite3_bind_blob64(s, idx, v, count * sizeof *v, SQLITE_STATIC);
}

/* Nodes [lo, hi)'s streams and the edges out of them, in (src, dst) order
 * and host order, into arrays the caller frees.  0, or SC_STORE_EIO with
 * w->why set. */
static int fill_index_part(store_writer *w, const sc_graph *g, uint32_t lo, uint32_t hi,
                           uint32_t **streams, uint32_t **pairs, uint64_t *m)
{
    *streams = *pairs = NULL;
    *m = 0;
    for (uint32_t src = lo; src < hi; src++) {
        const uint32_t *succ;
        uint32_t count;
        if (sc_graph_successors(g, src, &succ, &count) != 0) {
            w->why = "graph edge could not be read";
            return SC_STORE_EIO;
        }
        *m += count;
    }
    *streams = hi > lo ? malloc((size_t)(hi - lo) * sizeof **streams) : NULL;
    *pairs = *m ? malloc((size_t)*m * 2 * sizeof **pairs) : NULL;
    if ((hi > lo && !*streams) || (*m && !*pairs)) {
        w->why = "out of memory building the graph index";
        w->nomem = true;
        return SC_STORE_EIO;
    }
    uint32_t *pair = *pairs;
    for (uint32_t id = lo; id < hi; id++) {
        sc_node node;
        const uint32_t *succ;
        uint32_t count;
        if (sc_graph_node(g, id, &node) != 0 || sc_graph_successors(g, id, &succ, &count) != 0) {
            w->why = "graph node could not be read";
            return SC_STORE_EIO;
        }
        (*streams)[id - lo] = node.stream;
        for (uint32_t k = 0; k < count; k++) {
            *pair++ = id;
            *pair++ = succ[k];
        }
    }
    return 0;
}

/* The graph_index part of nodes [lo, hi) of graph gid: 0 or SC_STORE_EIO. */
static int insert_index_part(store_writer *w, const sc_graph *g, int64_t gid, uint32_t lo,
                             uint32_t hi)
{
    uint32_t *streams, *pairs;
    uint64_t m;
    int rc = fill_index_part(w, g, lo, hi, &streams, &pairs, &m);
    if (rc == 0) {
        store_le32_swap(streams, hi - lo);
        store_le32_swap(pairs, 2 * m);
        sqlite3_stmt *s = w->index_insert;
        sqlite3_bind_int64(s, 1, gid);
        sqlite3_bind_int64(s, 2, lo);
        sqlite3_bind_int64(s, 3, hi - lo);
        sqlite3_bind_int64(s, 4, (sqlite3_int64)m);
        bind_u32_blob(s, 5, streams, hi - lo);
        bind_u32_blob(s, 6, pairs, 2 * m);
        rc = sql_step_done(s) == SQLITE_OK ? 0 : SC_STORE_EIO;
        sqlite3_clear_bindings(s);
    }
    free(streams);
    free(pairs);
    return rc;
}

/* One INSERT ... SELECT of the graph's node_chunks rows (store_sqlite_rows.c):
 * SQLITE_OK or SQLite's error. */
static int sql_insert_rows(sqlite3_stmt *s, const sc_graph *g, int64_t gid)
{
    sqlite3_bind_int64(s, 1, gid);
    sqlite3_bind_pointer(s, 2, (void *)g, STORE_GRAPH_PTR, NULL);
    int rc = sql_step_done(s);
    /* The graph may be freed after the job. */
    sqlite3_clear_bindings(s);
    return rc;
}

/* The graph's node rows and its graph_index, one part: 0 or SC_STORE_EIO. */
static int insert_contents(store_writer *w, const sc_graph *g, int64_t gid)
{
    if (sql_insert_rows(w->node_insert, g, gid) != SQLITE_OK)
        return SC_STORE_EIO;
    return index_wanted(w, g) ? insert_index_part(w, g, gid, 0, sc_graph_node_count(g)) : 0;
}

/* SQLITE_OK or SQLite's error. */
static int sql_drop_pending(store_writer *w, int64_t gid)
{
    sqlite3_bind_int64(w->pending_delete, 1, gid);
    return sql_step_done(w->pending_delete);
}

/* The graph's rows: all of them, or for a chunked commit, whose chunks
 * stored the nodes and edges already and its index steps the graph_index
 * parts up to u.commit.index_next, the graphs row and the rest of the
 * index, dropping its pending row in the same transaction.  0 or
 * SC_STORE_EIO. */
static int store_graph(store_writer *w, store_job *j, int64_t *gid)
{
    const sc_graph *g = j->u.commit.g;
    uint32_t n = sc_graph_node_count(g), done = j->u.commit.index_next;
    int rc = insert_graph_row(w, j, gid);
    if (rc == 0 && !j->u.commit.pending_gid)
        rc = insert_contents(w, g, *gid);
    else if (rc == 0) {
        if ((done < n || n == 0) && index_wanted(w, g))
            rc = insert_index_part(w, g, *gid, done, n);
        if (rc == 0 && sql_drop_pending(w, *gid) != SQLITE_OK)
            rc = SC_STORE_EIO;
    }
    return rc;
}

static int run_commit_graph(store_writer *w, store_job *j)
{
    const sc_graph *g = j->u.commit.g;
    bool submitted = j->u.commit.submitted;
    /* Checked before any write, so a refusal leaves the batch intact. */
    int rc = submitted ? 0 : check_open(w, j->u.commit.session);
    if (rc)
        return rc;
    int64_t gid;
    if ((rc = store_graph(w, j, &gid)) != 0)
        return rc;
    if (submitted) {
        j->id = gid;
        return 0;
    }
    sqlite3_stmt *s = w->log_complete;
    sqlite3_bind_int64(s, 1, j->u.commit.session);
    sqlite3_bind_int64(s, 2, gid);
    sqlite3_bind_int64(s, 3, sc_graph_node_count(g));
    store_sqlite_bind_time(s, 4, j->u.commit.created_ms);
    if (sql_step_done(s) != SQLITE_OK)
        return SC_STORE_EIO;
    j->id = gid;
    return 0;
}

static void bind_opt_u32(sqlite3_stmt *s, int idx, bool has, uint32_t v)
{
    if (has)
        sqlite3_bind_int64(s, idx, v);
    else
        sqlite3_bind_null(s, idx);
}

/* The captures row of a job: SQLITE_OK or SQLite's error. */
static int sql_insert_capture(store_writer *w, const store_job *j, int64_t gid)
{
    const sc_store_capture *c = &j->u.commit.cap;
    bool inv = c->inv_method != NULL;
    sqlite3_stmt *s = w->capture_insert;
    sqlite3_bind_int64(s, 1, j->u.commit.session);
    sqlite3_bind_int64(s, 2, c->capture);
    sqlite3_bind_int64(s, 3, c->origin);
    sqlite3_bind_text(s, 4, c->mode, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 5, c->thread);
    sqlite3_bind_text(s, 6, c->outcome, -1, SQLITE_STATIC);
    bind_opt_u32(s, 7, strcmp(c->outcome, "failed") == 0, (uint32_t)c->cuda_error);
    sqlite3_bind_int64(s, 8, c->node_count);
    store_sqlite_bind_time(s, 9, j->u.commit.created_ms);
    if (gid)
        sqlite3_bind_int64(s, 10, gid);
    if (inv) {
        sqlite3_bind_text(s, 11, c->inv_method, -1, SQLITE_STATIC);
        sqlite3_bind_int64(s, 12, c->inv_stream);
        bind_opt_u32(s, 13, c->inv_has_event, c->inv_event);
        sqlite3_bind_int64(s, 14, c->inv_thread);
        if (c->inv_call)
            sqlite3_bind_text64(s, 15, c->inv_call, c->inv_call_len, SQLITE_STATIC, SQLITE_UTF8);
        sqlite3_bind_int64(s, 16, c->inv_error);
    }
    sqlite3_bind_text(s, 17, w->host, -1, SQLITE_STATIC);
    int rc = sql_step_done(s);
    sqlite3_clear_bindings(s);
    return rc;
}

/* A cuda capture's end: its graph when it has one and its captures row,
 * the session's log row left open. */
static int run_commit_capture(store_writer *w, store_job *j)
{
    const sc_graph *g = j->u.commit.g;
    int rc = check_open(w, j->u.commit.session);
    if (rc)
        return rc;
    int64_t gid = 0;
    if (g && (rc = store_graph(w, j, &gid)) != 0)
        return rc;
    if (sql_insert_capture(w, j, gid) != SQLITE_OK)
        return SC_STORE_EIO;
    j->id = gid;
    return 0;
}

/* 0 or SC_STORE_ENOTFOUND (nothing written), or SC_STORE_EIO (the
 * transaction must be rolled back). */
static int run_job(store_writer *w, store_job *j)
{
    switch (j->type) {
    case SC_STORE_JOB_LOG_OPEN:
        return run_log_open(w, j);
    case SC_STORE_JOB_LOG_END:
        return run_log_end(w, j);
    case SC_STORE_JOB_COMMIT_GRAPH:
        return run_commit_graph(w, j);
    case SC_STORE_JOB_DELETE_GRAPH:
        return store_sqlite_delete_graph(w, j);
    case SC_STORE_JOB_PIN_GRAPH:
        return store_sqlite_pin(w, j);
    case SC_STORE_JOB_PRUNE_GRAPHS:
        return store_sqlite_prune_graphs(w, j);
    case SC_STORE_JOB_PRUNE_LOG:
        return store_sqlite_prune_log(w, j);
    case SC_STORE_JOB_VACUUM:
        return store_sqlite_vacuum(w, j);
    case SC_STORE_JOB_COMMIT_CAPTURE:
        return run_commit_capture(w, j);
    case SC_STORE_JOB_SET_FPS:
        return store_sqlite_set_fps(w, j);
    case SC_STORE_JOB_STREAM_PART: /* the generic writer's, through write_chunk */
    case SC_STORE_JOB_STREAM_DROP:
        break;
    }
    w->why = "not a job for write";
    return SC_STORE_EIO;
}

static void rollback(store_writer *w)
{
    /* Some errors (full, I/O, out of memory) already rolled back. */
    if (!sqlite3_get_autocommit(w->db))
        sql_step_done(w->rollback);
}

/* Read before the rollback, which may replace the connection's error. */
static void copy_errmsg(store_writer *w, char *buf, size_t len)
{
    snprintf(buf, len, "%s", w->why ? w->why : sqlite3_errmsg(w->db));
    if (!w->why && (sqlite3_errcode(w->db) & 0xff) == SQLITE_NOMEM)
        w->nomem = true;
    if (!w->why && (sqlite3_errcode(w->db) & 0xff) == SQLITE_FULL)
        w->full = true;
}

/* 0, or the failure's code with its message copied into err. */
static int fail_code(store_writer *w, char *err, size_t len)
{
    copy_errmsg(w, err, len);
    return w->nomem ? SC_STORE_ENOMEM : SC_STORE_EIO;
}

static void clear_failure(store_writer *w)
{
    w->why = NULL;
    w->nomem = false;
    w->full = false;
}

/* Back to the store's setting once a relaxed transaction has ended. */
static void restore_sync(store_writer *w)
{
    if (w->relaxed)
        sql_step_done(w->sync_full);
    w->relaxed = false;
}

/* The start's recovery a full disk refused, about once a second. */
static void recovery_check(store_writer *w)
{
    uint64_t now = mono_ms();
    if (!w->recovery_due || now < w->recovery_retry_ms)
        return;
    w->recovery_retry_ms = now + 900;
    if (store_sqlite_recover_sessions(w) == SQLITE_OK) {
        w->recovery_due = false;
        store_sqlite_warn(w, "the sessions of the last run are ended now (the database takes "
                             "writes again)");
    }
}

int store_sqlite_idle(sc_store_be *w)
{
    reserve_check(w);
    recovery_check(w);
    return w->recovery_due || (w->reserve_path && !w->have_reserve) ? 1000 : -1;
}

int store_sqlite_begin(sc_store_be *w, unsigned flags, char *err, size_t len)
{
    clear_failure(w);
    reserve_check(w);
    recovery_check(w);
    /*
     * No chunk is acknowledged, so none needs its own sync: the last
     * transaction's sync (FULL) makes every earlier frame of the log
     * durable with it.  A power loss before that keeps a prefix of the
     * chunks, which start-up deletes like any pending graph.
     */
    if ((flags & SC_STORE_TXN_UNACKED) && w->full_sync) {
        sql_step_done(w->sync_normal);
        w->relaxed = true;
    }
    if (sql_step_done(w->begin) != SQLITE_OK) {
        int rc = fail_code(w, err, len);
        restore_sync(w);
        return rc;
    }
    return 0;
}

int store_sqlite_commit(sc_store_be *w, char *err, size_t len)
{
    if (sql_step_done(w->commit) != SQLITE_OK)
        return fail_code(w, err, len);
    restore_sync(w);
    /* Move the log into the database file now, so later writes can reuse
     * the log's space instead of growing it again. */
    if (w->checkpoint_due)
        sqlite3_wal_checkpoint_v2(w->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
    w->checkpoint_due = false;
    return 0;
}

void store_sqlite_rollback(sc_store_be *w)
{
    rollback(w);
    restore_sync(w);
}

int store_sqlite_write(sc_store_be *w, sc_store_job *j, char *err, size_t len)
{
    w->deleting = j->type == SC_STORE_JOB_DELETE_GRAPH || j->type == SC_STORE_JOB_PRUNE_GRAPHS ||
                  j->type == SC_STORE_JOB_PRUNE_LOG;
    int rc = run_job(w, j);
    return rc == SC_STORE_EIO ? fail_code(w, err, len) : rc;
}

bool store_writer_release_reserve(store_writer *w)
{
    return reserve_release(w);
}

/* A delete (or a stopping daemon's last log row) the full disk refused
 * runs once more on the reserve's space (see reserve_make). */
bool store_sqlite_make_room(sc_store_be *w)
{
    if (!w->full)
        return false;
    if (reserve_release(w)) {
        w->checkpoint_due = true;
        return true;
    }
    /* Without the reserve, a delete takes the margin of the stop's room
     * (the rows of the sessions open now keep theirs); a final log row has
     * its place in that room already.  No checkpoint then: it would grow
     * the database file into the few pages freed, which the next writes
     * need for the log. */
    return w->deleting && store_stop_shrink(w, w->open_rows);
}

/* ---- chunked commits ---- */

int store_writer_recover(sqlite3 *db)
{
    /* Nothing to write in the usual case: a full disk must not stop the start. */
    sqlite3_stmt *probe = NULL;
    int rc =
        sqlite3_prepare_v2(db, "SELECT EXISTS (SELECT 1 FROM pending_graphs)", -1, &probe, NULL);
    bool any =
        rc == SQLITE_OK && sqlite3_step(probe) == SQLITE_ROW && sqlite3_column_int(probe, 0) != 0;
    sqlite3_finalize(probe);
    if (rc != SQLITE_OK || !any)
        return rc;
    /* Each delete is one key range per pending graph. */
    static const char sql[] =
        "BEGIN IMMEDIATE;"
        "DELETE FROM node_chunks WHERE graph IN (SELECT graph FROM pending_graphs);"
        "DELETE FROM graph_index WHERE graph IN (SELECT graph FROM pending_graphs);"
        "DELETE FROM pending_graphs;"
        "COMMIT";
    rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK && !sqlite3_get_autocommit(db))
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

/* Take the next graph id and list it as pending: SQLITE_OK or SQLite's error. */
static int sql_reserve(store_writer *w, const store_job *j, int64_t *gid)
{
    sqlite3_stmt *s = w->pending_reserve;
    int rc = sqlite3_step(s);
    *gid = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
    sqlite3_reset(s);
    if (rc != SQLITE_ROW)
        return rc == SQLITE_DONE ? SQLITE_ERROR : rc;
    s = w->pending_insert;
    sqlite3_bind_int64(s, 1, *gid);
    sqlite3_bind_int64(s, 2, j->u.commit.session);
    store_sqlite_bind_time(s, 3, j->u.commit.created_ms);
    rc = sql_step_done(s);
    sqlite3_clear_bindings(s);
    sqlite3_stmt *seq[] = {w->pending_seq_update, w->pending_seq_insert};
    for (size_t i = 0; rc == SQLITE_OK && i < 2; i++) {
        sqlite3_bind_int64(seq[i], 1, *gid);
        rc = sql_step_done(seq[i]);
    }
    return rc;
}

/* One INSERT ... SELECT over a range of the graph: SQLITE_OK or SQLite's error. */
static int sql_insert_range(sqlite3_stmt *s, const store_rows_range *r, int64_t gid)
{
    sqlite3_bind_int64(s, 1, gid);
    sqlite3_bind_pointer(s, 2, (void *)r, STORE_RANGE_PTR, NULL);
    int rc = sql_step_done(s);
    sqlite3_clear_bindings(s);
    return rc;
}

int store_sqlite_write_chunk(sc_store_be *w, sc_store_job *j, uint32_t lo, uint32_t hi, char *err,
                             size_t len)
{
    int64_t gid = j->u.commit.pending_gid;
    if (!gid) {
        /* The session check refuses before anything is written. */
        int rc = j->u.commit.submitted ? 0 : check_open(w, j->u.commit.session);
        if (rc == SC_STORE_ENOTFOUND)
            return rc;
        if (rc != 0 || sql_reserve(w, j, &gid) != SQLITE_OK)
            return fail_code(w, err, len);
        j->u.commit.pending_gid = gid;
    }
    store_rows_range r = {.g = j->u.commit.g, .part = j->u.commit.part, .lo = lo, .hi = hi};
    if (sql_insert_range(w->node_insert, &r, gid) != SQLITE_OK)
        return fail_code(w, err, len);
    return 0;
}

int store_sqlite_write_index(sc_store_be *w, sc_store_job *j, uint32_t lo, uint32_t hi, char *err,
                             size_t len)
{
    const sc_graph *g = j->u.commit.g;
    if (!index_wanted(w, g))
        return 0;
    if (insert_index_part(w, g, j->u.commit.pending_gid, lo, hi) != 0)
        return fail_code(w, err, len);
    return 0;
}

/*
 * Remove what the chunks of a commit that failed stored.  On a full disk
 * the reserve makes room for the delete; should even that fail, the rows
 * stay invisible (no graphs row) until start-up deletes them.
 */
void store_sqlite_drop_chunks(sc_store_be *w, int64_t gid)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        if (sql_step_done(w->begin) == SQLITE_OK &&
            sql_delete_rows(w->nodes_delete, gid) == SQLITE_OK &&
            sql_delete_rows(w->index_delete, gid) == SQLITE_OK &&
            sql_drop_pending(w, gid) == SQLITE_OK && sql_step_done(w->commit) == SQLITE_OK)
            return;
        bool full = (sqlite3_errcode(w->db) & 0xff) == SQLITE_FULL;
        rollback(w);
        if (!full || !reserve_release(w))
            return;
    }
}
