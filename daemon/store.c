/*
 * store.c - life cycle of the store, the write queue and the hand-back of
 * completed writes to the event loop.
 *
 * The loop thread queues jobs under `mu` and signals `cv`.  The writer
 * thread takes the whole queue at once, runs it as one transaction (group
 * commit, store_write.c), appends the finished jobs to the completion list
 * under `mu` and wakes the loop with uv_async_send().  Callbacks therefore
 * only ever see results of transactions whose COMMIT returned SQLITE_OK.
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
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sc_schema.h"
#include "store_int.h"

#define DEFAULT_BUSY_TIMEOUT_MS 5000

/* The store's range (sc_store.h) holds every SC_STORE_E* code and stays
 * clear of the core's, whose codes the store converts. */
#define STORE_E_IN_RANGE(e)                                                                        \
    _Static_assert((e) >= SC_STORE_E__MIN && (e) <= SC_STORE_E__MAX, #e " out of range")
STORE_E_IN_RANGE(SC_STORE_ENOTFOUND);
STORE_E_IN_RANGE(SC_STORE_EIO);
STORE_E_IN_RANGE(SC_STORE_ECLOSED);
STORE_E_IN_RANGE(SC_STORE_ENOMEM);
STORE_E_IN_RANGE(SC_STORE_EINVAL);
_Static_assert(SC_STORE_E__MIN <= SC_STORE_E__MAX && SC_STORE_E__MAX < SC_STORE_OK,
               "store range must be negative");
_Static_assert(SC_RANGES_DISJOINT(SC_STORE_E__MIN, SC_STORE_E__MAX, SC_E__MIN, SC_E__MAX),
               "store and core error ranges overlap");
/* SQLite result codes (SQLITE_OK, SQLITE_ROW, SQLITE_DONE, extended codes)
 * are never negative, so none of them can pass for a store code. */
_Static_assert(SQLITE_OK == 0 && SQLITE_ROW > 0 && SQLITE_DONE > 0 && SQLITE_IOERR_NOMEM > 0,
               "SQLite codes are expected to be non-negative");

/* ---- writer thread ---- */

/* The session whose log row a job reads or writes, or 0. */
static int64_t job_session(const store_job *j)
{
    switch (j->type) {
    case JOB_LOG_END:
        return j->u.end.session;
    case JOB_COMMIT_GRAPH:
        return j->u.commit.submitted ? 0 : j->u.commit.session;
    case JOB_COMMIT_CAPTURE:
        return j->u.commit.session;
    case JOB_LOG_OPEN:
    case JOB_DELETE_GRAPH:
        break;
    }
    return 0;
}

static void append(store_job **head, store_job *j)
{
    while (*head)
        head = &(*head)->next;
    *head = j;
}

/*
 * Split a batch: jobs of a session with a chunked commit in progress wait
 * behind it (a session.close must not overtake its capture's commit),
 * new chunked commits join `chunked`, and the rest is returned, in order,
 * to share one transaction.
 */
static store_job *sort_batch(store_job *batch, store_job **chunked)
{
    store_job *small = NULL, **tail = &small;
    while (batch) {
        store_job *j = batch, *b = *chunked;
        batch = j->next;
        j->next = NULL;
        int64_t session = job_session(j);
        while (session && b && job_session(b) != session)
            b = b->next;
        if (session && b)
            append(&b->waiting, j);
        else if (store_writer_chunked(j))
            append(chunked, j);
        else {
            *tail = j;
            tail = &j->next;
        }
    }
    return small;
}

/* Hand finished jobs (a list, or NULL) and the counters to the loop. */
static void hand_back(sc_store *st, store_job *done, const sc_store_stats *delta)
{
    store_job *last = done;
    while (last && last->next)
        last = last->next;
    pthread_mutex_lock(&st->mu);
    if (done && st->done_tail)
        st->done_tail->next = done;
    else if (done)
        st->done_head = done;
    if (done)
        st->done_tail = last;
    st->stats.transactions += delta->transactions;
    st->stats.jobs_done += delta->jobs_done;
    st->stats.jobs_retried += delta->jobs_retried;
    st->stats.jobs_failed += delta->jobs_failed;
    pthread_mutex_unlock(&st->mu);
    if (done)
        uv_async_send(st->async);
}

/*
 * Each round runs what was queued as one transaction, then one chunk of
 * the oldest chunked commit, so a write queued behind a huge graph waits
 * for one chunk (about STORE_CHUNK_MS), not for the whole graph.
 */
static void *writer_main(void *p)
{
    sc_store *st = p;
    /* Named so that top -H and /proc/PID/task tell it from the event loop. */
    prctl(PR_SET_NAME, "sc-writer", 0, 0, 0);
    store_job *chunked = NULL, *released = NULL;
    for (;;) {
        pthread_mutex_lock(&st->mu);
        while (!st->queue_head && !chunked && !released && !st->stop)
            pthread_cond_wait(&st->cv, &st->mu);
        store_job *batch = st->queue_head;
        st->queue_head = st->queue_tail = NULL;
        pthread_mutex_unlock(&st->mu);
        /* Jobs that waited behind a finished chunked commit came first. */
        append(&released, batch);
        batch = released;
        released = NULL;
        /* `stop` only ends the thread once everything queued is done. */
        if (!batch && !chunked)
            break;

        sc_store_stats delta = {0};
        store_job *small = sort_batch(batch, &chunked);
        if (small) {
            store_writer_run_batch(&st->w, small, &delta);
            hand_back(st, small, &delta);
            delta = (sc_store_stats){0};
        }
        if (!chunked)
            continue;
        store_job *j = chunked;
        if (!store_writer_step(&st->w, j, &delta)) {
            hand_back(st, NULL, &delta);
            continue;
        }
        chunked = j->next;
        j->next = NULL;
        released = j->waiting;
        j->waiting = NULL;
        hand_back(st, j, &delta);
    }
    return NULL;
}

/* ---- loop side ---- */

static void job_free(store_job *j)
{
    free(j->errmsg);
    free(j);
}

/* The entry of `uid` in the sorted per-owner counts, or where it goes. */
static size_t uid_count_slot(const sc_store *st, uint32_t uid)
{
    size_t lo = 0, hi = st->n_uid_counts;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (st->uid_counts[mid].uid < uid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Adjust the graph count of `uid`.  An owner the array has no room for
 * when memory runs out is simply not counted: server.info under-reports,
 * nothing else reads it. */
static void uid_count_add(sc_store *st, uint32_t uid, int64_t delta)
{
    size_t i = uid_count_slot(st, uid);
    if (i < st->n_uid_counts && st->uid_counts[i].uid == uid) {
        st->uid_counts[i].graphs += delta;
        return;
    }
    if (delta <= 0)
        return;
    if (st->n_uid_counts == st->cap_uid_counts) {
        size_t cap = st->cap_uid_counts ? st->cap_uid_counts * 2 : 8;
        store_uid_count *p = realloc(st->uid_counts, cap * sizeof *p);
        if (!p)
            return;
        st->uid_counts = p;
        st->cap_uid_counts = cap;
    }
    memmove(st->uid_counts + i + 1, st->uid_counts + i,
            (st->n_uid_counts - i) * sizeof *st->uid_counts);
    st->uid_counts[i] = (store_uid_count){.uid = uid, .graphs = delta};
    st->n_uid_counts++;
}

/* Run the callbacks of every completed job, on the calling (loop) thread. */
static void deliver(sc_store *st)
{
    pthread_mutex_lock(&st->mu);
    store_job *j = st->done_head;
    st->done_head = st->done_tail = NULL;
    pthread_mutex_unlock(&st->mu);

    while (j) {
        store_job *next = j->next;
        if ((j->type == JOB_COMMIT_GRAPH || (j->type == JOB_COMMIT_CAPTURE && j->u.commit.g)) &&
            j->rc == 0) {
            st->graph_count++;
            uid_count_add(st, j->u.commit.uid, 1);
        }
        if (j->type == JOB_DELETE_GRAPH && j->rc == 0) {
            st->graph_count--;
            uid_count_add(st, j->u.del.uid, -1);
        }
        sc_store_result res = {.rc = j->rc, .id = j->id, .errmsg = NULL};
        if (j->rc == SC_STORE_EIO)
            res.errmsg = j->errmsg ? j->errmsg : "storage error";
        if (j->done)
            j->done(j->arg, &res);
        job_free(j);
        /* Keep the loop alive exactly while writes are outstanding. */
        if (--st->pending == 0)
            uv_unref((uv_handle_t *)st->async);
        j = next;
    }
}

static void on_async(uv_async_t *h)
{
    deliver(h->data);
}

static void free_handle(uv_handle_t *h)
{
    free(h);
}

static int submit(sc_store *st, store_job *j)
{
    pthread_mutex_lock(&st->mu);
    if (st->queue_tail)
        st->queue_tail->next = j;
    else
        st->queue_head = j;
    st->queue_tail = j;
    pthread_cond_signal(&st->cv);
    pthread_mutex_unlock(&st->mu);
    if (st->pending++ == 0)
        uv_ref((uv_handle_t *)st->async);
    return 0;
}

static store_job *job_new(sc_store *st, enum store_job_type type, size_t extra,
                          sc_store_done_fn done, void *arg, int *rc)
{
    if (!st) {
        *rc = SC_STORE_EINVAL;
        return NULL;
    }
    if (st->closing) {
        *rc = SC_STORE_ECLOSED;
        return NULL;
    }
    store_job *j = calloc(1, sizeof *j + extra);
    if (!j) {
        *rc = SC_STORE_ENOMEM;
        return NULL;
    }
    j->type = type;
    j->done = done;
    j->arg = arg;
    *rc = 0;
    return j;
}

int sc_store_log_open(sc_store *st, uint32_t uid, int64_t pid, const char *label, size_t label_len,
                      int64_t opened_ms, sc_store_done_fn done, void *arg)
{
    return sc_store_log_open_as(st, "oxicuda", uid, pid, label, label_len, opened_ms, done, arg);
}

int sc_store_log_open_as(sc_store *st, const char *semantics, uint32_t uid, int64_t pid,
                         const char *label, size_t label_len, int64_t opened_ms,
                         sc_store_done_fn done, void *arg)
{
    int rc;
    const char *word = !semantics                          ? NULL
                       : strcmp(semantics, "oxicuda") == 0 ? "oxicuda"
                       : strcmp(semantics, "cuda") == 0    ? "cuda"
                                                           : NULL;
    if (!word)
        return SC_STORE_EINVAL;
    if (!label)
        label_len = 0;
    if (label_len > SIZE_MAX / 2)
        return SC_STORE_EINVAL;
    store_job *j = job_new(st, JOB_LOG_OPEN, label_len + 1, done, arg, &rc);
    if (!j)
        return rc;
    char *copy = (char *)(j + 1);
    if (label_len)
        memcpy(copy, label, label_len);
    copy[label_len] = '\0';
    j->u.open.uid = uid;
    j->u.open.pid = pid;
    j->u.open.label = copy;
    j->u.open.label_len = label_len;
    j->u.open.opened_ms = opened_ms;
    j->u.open.semantics = word;
    return submit(st, j);
}

/* The static wire word for an end outcome, or NULL. */
static const char *end_outcome(const char *outcome)
{
    static const char *const words[] = {"failed", "closed", "abandoned", "shutdown"};
    for (size_t i = 0; outcome && i < sizeof words / sizeof words[0]; i++)
        if (strcmp(outcome, words[i]) == 0)
            return words[i];
    return NULL;
}

int sc_store_log_end(sc_store *st, int64_t session, const char *outcome, uint32_t node_count,
                     int64_t ended_ms, sc_store_done_fn done, void *arg)
{
    const char *word = end_outcome(outcome);
    if (!word)
        return SC_STORE_EINVAL;
    int rc;
    store_job *j = job_new(st, JOB_LOG_END, 0, done, arg, &rc);
    if (!j)
        return rc;
    j->u.end.session = session;
    j->u.end.outcome = word;
    j->u.end.node_count = node_count;
    j->u.end.ended_ms = ended_ms;
    return submit(st, j);
}

int sc_store_commit_graph(sc_store *st, int64_t session, const sc_graph *g, uint32_t uid,
                          int64_t pid, const char *label, size_t label_len, int64_t created_ms,
                          sc_store_done_fn done, void *arg)
{
    if (!g || !sc_graph_is_sealed(g))
        return SC_STORE_EINVAL;
    int rc;
    store_job *j = job_new(st, JOB_COMMIT_GRAPH, 0, done, arg, &rc);
    if (!j)
        return rc;
    j->u.commit.session = session;
    j->u.commit.g = g;
    j->u.commit.uid = uid;
    j->u.commit.pid = pid;
    j->u.commit.label = label;
    j->u.commit.label_len = label ? label_len : 0;
    j->u.commit.created_ms = created_ms;
    return submit(st, j);
}

int sc_store_submit_graph(sc_store *st, const sc_graph *g, uint32_t uid, int64_t pid,
                          const char *label, size_t label_len, int64_t created_ms,
                          sc_store_done_fn done, void *arg)
{
    if (!g || !sc_graph_is_sealed(g))
        return SC_STORE_EINVAL;
    int rc;
    store_job *j = job_new(st, JOB_COMMIT_GRAPH, 0, done, arg, &rc);
    if (!j)
        return rc;
    j->u.commit.session = 0;
    j->u.commit.submitted = true;
    j->u.commit.g = g;
    j->u.commit.uid = uid;
    j->u.commit.pid = pid;
    j->u.commit.label = label;
    j->u.commit.label_len = label ? label_len : 0;
    j->u.commit.created_ms = created_ms;
    return submit(st, j);
}

int sc_store_commit_capture(sc_store *st, int64_t session, const sc_store_capture *cap,
                            const sc_graph *g, uint32_t uid, int64_t pid, const char *label,
                            size_t label_len, int64_t ended_ms, sc_store_done_fn done, void *arg)
{
    if (!cap || !cap->mode || !cap->outcome)
        return SC_STORE_EINVAL;
    bool completed = strcmp(cap->outcome, "completed") == 0;
    if (completed != (g != NULL) || (g && !sc_graph_is_sealed(g)) ||
        (!completed && strcmp(cap->outcome, "failed") != 0 &&
         strcmp(cap->outcome, "discarded") != 0))
        return SC_STORE_EINVAL;
    int rc;
    store_job *j = job_new(st, JOB_COMMIT_CAPTURE, 0, done, arg, &rc);
    if (!j)
        return rc;
    j->u.commit.session = session;
    j->u.commit.g = g;
    j->u.commit.uid = uid;
    j->u.commit.pid = pid;
    j->u.commit.label = label;
    j->u.commit.label_len = label ? label_len : 0;
    j->u.commit.created_ms = ended_ms;
    j->u.commit.cap = *cap;
    return submit(st, j);
}

int sc_store_load_graph(sc_store *st, int64_t graph, sc_store_graph_fn done, void *arg)
{
    if (!st || !done)
        return SC_STORE_EINVAL;
    if (st->closing)
        return SC_STORE_ECLOSED;
    return store_load_submit(st, graph, false, done, arg);
}

int sc_store_load_skeleton(sc_store *st, int64_t graph, sc_store_graph_fn done, void *arg)
{
    if (!st || !done)
        return SC_STORE_EINVAL;
    if (st->closing)
        return SC_STORE_ECLOSED;
    return store_load_submit(st, graph, true, done, arg);
}

int sc_store_delete_graph(sc_store *st, int64_t graph, int64_t deleted_ms, sc_store_done_fn done,
                          void *arg)
{
    int rc;
    store_job *j = job_new(st, JOB_DELETE_GRAPH, 0, done, arg, &rc);
    if (!j)
        return rc;
    j->u.del.graph = graph;
    j->u.del.deleted_ms = deleted_ms;
    return submit(st, j);
}

/* 0 when a read may be queued, else the error to return. */
static int read_check(const sc_store *st, bool has_done)
{
    if (!st || !has_done)
        return SC_STORE_EINVAL;
    return st->closing ? SC_STORE_ECLOSED : 0;
}

int sc_store_graph_meta(sc_store *st, int64_t graph, sc_store_meta_fn done, void *arg)
{
    int rc = read_check(st, done != NULL);
    return rc ? rc : store_meta_submit(st, graph, done, arg);
}

static bool limit_ok(uint32_t limit)
{
    return limit >= 1 && limit <= SC_STORE_LIST_MAX;
}

int sc_store_list_graphs(sc_store *st, const sc_graph_query *q, sc_store_graph_page_fn done,
                         void *arg)
{
    if (!q || !limit_ok(q->limit) || q->before_graph < 0 || (q->label && q->label_len > INT32_MAX))
        return SC_STORE_EINVAL;
    int rc = read_check(st, done != NULL);
    return rc ? rc : store_graphs_submit(st, q, done, arg);
}

/* The static wire word for a log outcome, or NULL. */
static const char *log_outcome(const char *outcome)
{
    static const char *const words[] = {"open",      "completed", "failed", "closed",
                                        "abandoned", "shutdown",  "lost"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcmp(outcome, words[i]) == 0)
            return words[i];
    return NULL;
}

int sc_store_list_log(sc_store *st, const sc_log_query *q, sc_store_log_page_fn done, void *arg)
{
    if (!q || !limit_ok(q->limit))
        return SC_STORE_EINVAL;
    const char *word = NULL;
    if (q->outcome && !(word = log_outcome(q->outcome)))
        return SC_STORE_EINVAL;
    int rc = read_check(st, done != NULL);
    return rc ? rc : store_log_submit(st, q, word, done, arg);
}

void sc_stored_graph_free(sc_stored_graph *sg)
{
    if (!sg)
        return;
    sc_graph_destroy(sg->graph);
    free(sg->meta.label);
    free(sg->meta.host);
    free(sg);
}

const char *sc_store_path(const sc_store *st)
{
    return st ? st->path : NULL;
}

int sc_store_graph_count(sc_store *st, int64_t *out)
{
    if (!st || !out)
        return SC_STORE_EINVAL;
    *out = st->graph_count;
    return 0;
}

int sc_store_graph_count_of(sc_store *st, uint32_t uid, int64_t *out)
{
    if (!st || !out)
        return SC_STORE_EINVAL;
    size_t i = uid_count_slot(st, uid);
    *out = i < st->n_uid_counts && st->uid_counts[i].uid == uid ? st->uid_counts[i].graphs : 0;
    return 0;
}

int sc_store_get_stats(sc_store *st, sc_store_stats *out)
{
    if (!st || !out)
        return SC_STORE_EINVAL;
    pthread_mutex_lock(&st->mu);
    *out = st->stats;
    pthread_mutex_unlock(&st->mu);
    return 0;
}

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
static int count_owners(sc_store *st, sqlite3 *db, char *errbuf, size_t errlen)
{
    static const char sql[] = "SELECT owner_uid, count(*) FROM graphs GROUP BY owner_uid";
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return fail(db, sql, errbuf, errlen);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        uid_count_add(st, (uint32_t)sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1));
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : fail(db, sql, errbuf, errlen);
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

/* The tables of every schema version, so a database that only shares a
 * user_version with ours is still recognised as another program's. */
#define OUR_TABLES                                                                                 \
    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "                         \
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

static int apply_migrations(sqlite3 *db, char *errbuf, size_t errlen)
{
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
            exec(db, pragma, m->name, errbuf, errlen) ||
            exec(db, "COMMIT", m->name, errbuf, errlen)) {
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
            return SC_STORE_EIO;
        }
    }
    return 0;
}

static int setup_writer(sc_store *st, const sc_store_config *cfg, char *errbuf, size_t errlen)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(
        cfg->path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    st->w.db = db;
    if (rc != SQLITE_OK) {
        /* The system's reason (a directory, no permission) says more than
         * SQLite's "unable to open database file"; the caller names the path. */
        int e = db ? sqlite3_system_errno(db) : 0;
        snprintf(errbuf, errlen, "%s", e ? strerror(e) : db ? sqlite3_errmsg(db) : "out of memory");
        return SC_STORE_EIO;
    }
    sqlite3_busy_timeout(db, st->busy_timeout_ms);
    if (store_rows_register(db) != SQLITE_OK)
        return fail(db, "registering the row functions", errbuf, errlen);
    if (check_schema(db, errbuf, errlen))
        return SC_STORE_EIO;
    if (set_wal(db, errbuf, errlen))
        return SC_STORE_EIO;
    st->w.full_sync = cfg->sync_full;
    if (exec(db, cfg->sync_full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL",
             "setting synchronous", errbuf, errlen))
        return SC_STORE_EIO;
    if (apply_migrations(db, errbuf, errlen))
        return SC_STORE_EIO;
    if (cfg->max_page_count > 0) {
        char pragma[64];
        snprintf(pragma, sizeof pragma, "PRAGMA max_page_count = %lld",
                 (long long)cfg->max_page_count);
        if (exec(db, pragma, "setting max_page_count", errbuf, errlen))
            return SC_STORE_EIO;
    }
    /* Graphs a dead daemon was committing in chunks were never
     * acknowledged: their rows go before anything reads the file.  Should
     * that fail (a full disk), they stay invisible until the next start. */
    store_writer_recover(db);
    /* Rows still open belong to a daemon that died; their end time is
     * unknown, so ended_at stays NULL. */
    if (exec(db, "UPDATE capture_log SET outcome = 'lost' WHERE outcome = 'open'",
             "marking lost sessions", errbuf, errlen))
        return SC_STORE_EIO;
    if (query_int(db, "SELECT count(*) FROM graphs", &st->graph_count, errbuf, errlen))
        return SC_STORE_EIO;
    if (count_owners(st, db, errbuf, errlen))
        return SC_STORE_EIO;
    return store_writer_prepare(&st->w, errbuf, errlen);
}

/* ---- one daemon per database ---- */

/* The pid a lock holder wrote into the lock file, or 0. */
static long lock_holder(int fd)
{
    char text[32];
    ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
    if (n <= 0)
        return 0;
    text[n] = '\0';
    char *end;
    long pid = strtol(text, &end, 10);
    return pid > 0 && (*end == '\n' || *end == '\0') ? pid : 0;
}

static int lock_path(const char *path, char *out, size_t len)
{
    return snprintf(out, len, "%s.lock", path) < (int)len ? 0 : -1;
}

/* True when `fd` is still the file at `path`: a holder that was closing
 * may have unlinked it after we opened it. */
static bool still_linked(int fd, const char *path)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

static int lock_busy(int fd, int e, const char *lock, char *errbuf, size_t errlen)
{
    long pid = e == EWOULDBLOCK ? lock_holder(fd) : 0;
    if (pid > 0)
        snprintf(errbuf, errlen, "in use by streamcapd pid %ld (one daemon per database)", pid);
    else if (e == EWOULDBLOCK)
        snprintf(errbuf, errlen, "in use by another streamcapd (one daemon per database)");
    else
        snprintf(errbuf, errlen, "cannot lock %s: %s", lock, strerror(e));
    close(fd);
    return SC_STORE_EIO;
}

/*
 * Two daemons on one database would each serve their own cached graphs
 * and session state, and the second would mark the first's open sessions
 * lost.  So the store holds an exclusive lock on <db>.lock for its life.
 * flock, not fcntl: the lock belongs to the open file, so it also keeps
 * out a second store of the same process, and closing some other
 * descriptor of the file does not drop it.  The kernel releases it when
 * the process dies, however it dies, so a crash leaves nothing to clean;
 * a clean close removes the file while still holding the lock, which is
 * why a new holder checks that the file it locked is still linked.
 */
static int take_lock(sc_store *st, const char *path, char *errbuf, size_t errlen)
{
    char lock[PATH_MAX];
    if (lock_path(path, lock, sizeof(lock)) != 0) {
        snprintf(errbuf, errlen, "path too long");
        return SC_STORE_EINVAL;
    }
    for (int attempt = 0; attempt < 100; attempt++) {
        int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0) {
            snprintf(errbuf, errlen, "cannot open its lock file %s: %s", lock, strerror(errno));
            return SC_STORE_EIO;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0)
            return lock_busy(fd, errno, lock, errbuf, errlen);
        if (!still_linked(fd, lock)) {
            close(fd);
            continue;
        }
        char pid[32];
        int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
        if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
            snprintf(errbuf, errlen, "cannot write %s: %s", lock, strerror(errno));
            close(fd);
            return SC_STORE_EIO;
        }
        st->lock_fd = fd;
        return 0;
    }
    snprintf(errbuf, errlen, "cannot lock %s: it keeps being replaced", lock);
    return SC_STORE_EIO;
}

/* After the database is closed, so that the next daemon finds it
 * complete; unlinked before the close, while the lock still holds. */
static void release_lock(sc_store *st)
{
    if (st->lock_fd < 0)
        return;
    char lock[PATH_MAX];
    if (lock_path(st->path, lock, sizeof(lock)) == 0)
        unlink(lock);
    close(st->lock_fd);
    st->lock_fd = -1;
}

/* Free what setup left behind; the thread and the handle are not running. */
static void destroy(sc_store *st)
{
    store_readers_shutdown(st);
    store_writer_finalize(&st->w);
    sqlite3_close(st->w.db);
    release_lock(st);
    pthread_cond_destroy(&st->rcv);
    pthread_mutex_destroy(&st->rmu);
    pthread_cond_destroy(&st->cv);
    pthread_mutex_destroy(&st->mu);
    free(st->uid_counts);
    free(st->path);
    free(st);
}

int sc_store_open(uv_loop_t *loop, const sc_store_config *cfg, sc_store **out, char *errbuf,
                  size_t errlen)
{
    char dummy[1];
    if (!errbuf || errlen == 0) {
        errbuf = dummy;
        errlen = sizeof dummy;
    }
    errbuf[0] = '\0';
    if (!loop || !cfg || !cfg->path || !out) {
        snprintf(errbuf, errlen, "invalid argument");
        return SC_STORE_EINVAL;
    }
    *out = NULL;
    if (!sqlite3_threadsafe()) {
        snprintf(errbuf, errlen, "SQLite was built without thread support");
        return SC_STORE_EIO;
    }
    sc_store *st = calloc(1, sizeof *st);
    if (!st || !(st->path = store_strdup(cfg->path))) {
        free(st);
        snprintf(errbuf, errlen, "out of memory");
        return SC_STORE_ENOMEM;
    }
    st->loop = loop;
    st->busy_timeout_ms = cfg->busy_timeout_ms > 0 ? cfg->busy_timeout_ms : DEFAULT_BUSY_TIMEOUT_MS;
    pthread_mutex_init(&st->mu, NULL);
    pthread_cond_init(&st->cv, NULL);
    pthread_mutex_init(&st->rmu, NULL);
    pthread_cond_init(&st->rcv, NULL);
    st->lock_fd = -1;

    int rc = take_lock(st, cfg->path, errbuf, errlen);
    if (rc == 0)
        rc = setup_writer(st, cfg, errbuf, errlen);
    if (rc == 0 && !(st->async = malloc(sizeof *st->async))) {
        snprintf(errbuf, errlen, "out of memory");
        rc = SC_STORE_ENOMEM;
    }
    /* The thread first: a failed uv_async_init is then undone by stopping
     * it, with no handle to close. */
    if (rc == 0 && pthread_create(&st->thread, NULL, writer_main, st) != 0) {
        snprintf(errbuf, errlen, "cannot start the writer thread");
        rc = SC_STORE_EIO;
    } else if (rc == 0 && uv_async_init(loop, st->async, on_async) != 0) {
        pthread_mutex_lock(&st->mu);
        st->stop = true;
        pthread_cond_signal(&st->cv);
        pthread_mutex_unlock(&st->mu);
        pthread_join(st->thread, NULL);
        snprintf(errbuf, errlen, "cannot create the completion handle");
        rc = SC_STORE_EIO;
    }
    if (rc != 0) {
        free(st->async);
        destroy(st);
        return rc;
    }
    st->async->data = st;
    uv_unref((uv_handle_t *)st->async);
    *out = st;
    return 0;
}

/* ---- close ---- */

void sc_store_close(sc_store *st)
{
    if (!st)
        return;
    st->closing = true;
    pthread_mutex_lock(&st->mu);
    st->stop = true;
    pthread_cond_signal(&st->cv);
    pthread_mutex_unlock(&st->mu);
    pthread_join(st->thread, NULL);

    deliver(st);
    st->async->data = NULL;
    uv_close((uv_handle_t *)st->async, free_handle);
    destroy(st);
}
