/*
 * store.c - life cycle of the store, the write queue and the hand-back of
 * completed writes to the event loop.
 *
 * The loop thread queues jobs under `mu` and signals `cv`.  The writer
 * thread takes the whole queue at once, runs it as one transaction (group
 * commit, store_txn.c), appends the finished jobs to the completion list
 * under `mu` and wakes the loop with uv_async_send().  Callbacks therefore
 * only ever see results of transactions whose COMMIT succeeded.  The
 * database work itself is the backend's (store_backend.h), chosen at open
 * from the --db text.
 */
/* SCHED_BATCH (<sched.h>) is Linux's, declared under _GNU_SOURCE. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "store_int.h"

/* The store's range (sc_store.h) holds every SC_STORE_E* code and stays
 * clear of the core's, whose codes the store converts. */
#define STORE_E_IN_RANGE(e)                                                                        \
    _Static_assert((e) >= SC_STORE_E__MIN && (e) <= SC_STORE_E__MAX, #e " out of range")
STORE_E_IN_RANGE(SC_STORE_ENOTFOUND);
STORE_E_IN_RANGE(SC_STORE_EIO);
STORE_E_IN_RANGE(SC_STORE_ECLOSED);
STORE_E_IN_RANGE(SC_STORE_ENOMEM);
STORE_E_IN_RANGE(SC_STORE_EINVAL);
STORE_E_IN_RANGE(SC_STORE_EBUSY);
_Static_assert(SC_STORE_E__MIN <= SC_STORE_E__MAX && SC_STORE_E__MAX < SC_STORE_OK,
               "store range must be negative");
_Static_assert(SC_RANGES_DISJOINT(SC_STORE_E__MIN, SC_STORE_E__MAX, SC_E__MIN, SC_E__MAX),
               "store and core error ranges overlap");

/* ---- writer thread ---- */

/* The session whose log row a job reads or writes, or 0. */
static int64_t job_session(const store_job *j)
{
    switch (j->type) {
    case SC_STORE_JOB_LOG_END:
        return j->u.end.session;
    case SC_STORE_JOB_COMMIT_GRAPH:
        return j->u.commit.submitted ? 0 : j->u.commit.session;
    case SC_STORE_JOB_COMMIT_CAPTURE:
    case SC_STORE_JOB_STREAM_PART:
    case SC_STORE_JOB_STREAM_DROP:
        return j->u.commit.session;
    case SC_STORE_JOB_LOG_OPEN:
    case SC_STORE_JOB_DELETE_GRAPH:
    case SC_STORE_JOB_SET_FPS:
    case SC_STORE_JOB_PIN_GRAPH:
    case SC_STORE_JOB_PRUNE_GRAPHS:
    case SC_STORE_JOB_PRUNE_LOG:
    case SC_STORE_JOB_VACUUM:
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
        else if (store_txn_chunked(j))
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
    st->stats.txns_rerun += delta->txns_rerun;
    st->stats.commits_committed += delta->commits_committed;
    st->stats.commits_aborted += delta->commits_aborted;
    st->stats.commits_unknown += delta->commits_unknown;
    st->stats.commits_restarted += delta->commits_restarted;
    pthread_mutex_unlock(&st->mu);
    if (done)
        uv_async_send(st->async);
}

/*
 * The writer runs as SCHED_BATCH: it keeps its share of the CPU, but its
 * wake-ups no longer preempt the thread running on the CPU it wakes on.
 * On a busy host that thread is the event loop or one of its clients, and
 * a commit woken for each session end stalled them all; waking later, the
 * writer also finds more jobs to commit at once (bench/RESULTS.md, "The
 * writer's pages and wake-ups").  Where the policy is refused it stays as
 * it is.
 */
static void writer_policy(void)
{
#ifdef SCHED_BATCH
    struct sched_param p = {.sched_priority = 0};
    (void)pthread_setschedparam(pthread_self(), SCHED_BATCH, &p);
#endif
}

/*
 * With `mu` held and nothing to run: wait for a job or the stop, calling
 * the backend's idle work (without `mu`) whenever it asked to be called
 * again (*idle_ms, -1 for never).
 */
static void writer_wait(sc_store *st, int *idle_ms)
{
    if (*idle_ms < 0) {
        pthread_cond_wait(&st->cv, &st->mu);
        return;
    }
    struct timespec at;
    clock_gettime(CLOCK_REALTIME, &at);
    at.tv_sec += *idle_ms / 1000;
    at.tv_nsec += (long)(*idle_ms % 1000) * 1000000L;
    if (at.tv_nsec >= 1000000000L) {
        at.tv_sec++;
        at.tv_nsec -= 1000000000L;
    }
    if (pthread_cond_timedwait(&st->cv, &st->mu, &at) != ETIMEDOUT)
        return;
    pthread_mutex_unlock(&st->mu);
    *idle_ms = st->ops->idle(st->be);
    pthread_mutex_lock(&st->mu);
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
    writer_policy();
    store_job *chunked = NULL, *released = NULL;
    int idle_ms = st->ops->idle ? st->ops->idle(st->be) : -1;
    for (;;) {
        pthread_mutex_lock(&st->mu);
        while (!st->queue_head && !chunked && !released && !st->stop)
            writer_wait(st, &idle_ms);
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
        /* The work may leave the backend something to do when idle (a
         * reserve to make again): asked once the queue has rested a while. */
        if (st->ops->idle)
            idle_ms = 1000;

        sc_store_stats delta = {0};
        store_job *small = sort_batch(batch, &chunked);
        if (small) {
            store_txn_run_batch(st, small, &delta);
            hand_back(st, small, &delta);
            delta = (sc_store_stats){0};
        }
        if (!chunked)
            continue;
        store_job *j = chunked;
        if (!store_txn_step(st, j, &delta)) {
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

/* A delivered job, with what it owns: a part its part, the last job of a
 * stream (its commit or its drop) the stream. */
static void job_free(sc_store *st, store_job *j)
{
    if (j->type == SC_STORE_JOB_STREAM_PART)
        store_part_free(st, (sc_store_part *)j->u.commit.part);
    else if ((j->type == SC_STORE_JOB_COMMIT_GRAPH || j->type == SC_STORE_JOB_STREAM_DROP) &&
             j->u.commit.stream) {
        free(j->u.commit.stream->drop);
        free(j->u.commit.stream);
    }
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

/* Count one write's wait for its commit in the latency histogram. */
static void latency_add(sc_store_latency *l, uint64_t ns)
{
    static const uint64_t bounds[] = SC_STORE_LATENCY_BOUNDS_US;
    _Static_assert(sizeof bounds / sizeof bounds[0] + 1 == SC_STORE_LATENCY_BUCKETS,
                   "one bucket per bound plus the overflow bucket");
    uint64_t us = ns / 1000u;
    size_t b = 0;
    while (b < sizeof bounds / sizeof bounds[0] && us > bounds[b])
        b++;
    l->count[b]++;
    l->total++;
    l->sum_us += us;
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
        if ((j->type == SC_STORE_JOB_COMMIT_GRAPH ||
             (j->type == SC_STORE_JOB_COMMIT_CAPTURE && j->u.commit.g)) &&
            j->rc == 0) {
            st->graph_count++;
            uid_count_add(st, j->u.commit.uid, 1);
        }
        if (j->type == SC_STORE_JOB_DELETE_GRAPH && j->rc == 0) {
            st->graph_count--;
            uid_count_add(st, j->u.del.uid, -1);
        }
        if (j->done)
            latency_add(&st->latency, uv_hrtime() - j->queued_ns);
        if (j->type == SC_STORE_JOB_PRUNE_GRAPHS && j->rc == 0)
            for (size_t i = 0; i < j->u.prune.n; i++)
                if (j->u.prune.gone[i]) {
                    st->graph_count--;
                    uid_count_add(st, j->u.prune.uids[i], -1);
                }
        sc_store_result res = {.rc = j->rc, .id = j->id, .errmsg = NULL};
        if (j->rc == SC_STORE_EIO)
            res.errmsg = j->errmsg ? j->errmsg : "storage error";
        if (j->done)
            j->done(j->arg, &res);
        job_free(st, j);
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

void store_submit(sc_store *st, store_job *j)
{
    j->queued_ns = uv_hrtime();
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
}

static int submit(sc_store *st, store_job *j)
{
    store_submit(st, j);
    return 0;
}

store_job *store_job_new(sc_store *st, enum sc_store_job_type type, size_t extra,
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
    store_job *j = store_job_new(st, SC_STORE_JOB_LOG_OPEN, label_len + 1, done, arg, &rc);
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

static int log_end(sc_store *st, int64_t session, const char *outcome, uint32_t node_count,
                   int64_t ended_ms, bool final, sc_store_done_fn done, void *arg)
{
    const char *word = end_outcome(outcome);
    if (!word)
        return SC_STORE_EINVAL;
    int rc;
    store_job *j = store_job_new(st, SC_STORE_JOB_LOG_END, 0, done, arg, &rc);
    if (!j)
        return rc;
    j->u.end.session = session;
    j->u.end.outcome = word;
    j->u.end.node_count = node_count;
    j->u.end.ended_ms = ended_ms;
    j->u.end.final = final;
    return submit(st, j);
}

int sc_store_log_end(sc_store *st, int64_t session, const char *outcome, uint32_t node_count,
                     int64_t ended_ms, sc_store_done_fn done, void *arg)
{
    return log_end(st, session, outcome, node_count, ended_ms, false, done, arg);
}

int sc_store_log_end_final(sc_store *st, int64_t session, const char *outcome, uint32_t node_count,
                           int64_t ended_ms, sc_store_done_fn done, void *arg)
{
    return log_end(st, session, outcome, node_count, ended_ms, true, done, arg);
}

int sc_store_defer_log_end(sc_store *st, int64_t session, const char *outcome, uint32_t node_count,
                           int64_t ended_ms)
{
    const char *word = end_outcome(outcome);
    if (!st || !word || !st->ops->defer_log_ends)
        return SC_STORE_EINVAL;
    if (st->n_deferred == st->cap_deferred) {
        size_t cap = st->cap_deferred ? st->cap_deferred * 2 : 16;
        sc_store_log_row *rows = realloc(st->deferred, cap * sizeof *rows);
        if (!rows)
            return SC_STORE_ENOMEM;
        st->deferred = rows;
        st->cap_deferred = cap;
    }
    st->deferred[st->n_deferred++] = (sc_store_log_row){
        .session = session, .outcome = word, .node_count = node_count, .ended_ms = ended_ms};
    return 0;
}

store_job *store_commit_job(sc_store *st, enum sc_store_job_type type, int64_t session,
                            const sc_graph *g, uint32_t uid, int64_t pid, const char *label,
                            size_t label_len, int64_t created_ms, sc_store_done_fn done, void *arg,
                            int *rc)
{
    store_job *j = store_job_new(st, type, 0, done, arg, rc);
    if (!j)
        return NULL;
    j->u.commit.session = session;
    j->u.commit.g = g;
    j->u.commit.uid = uid;
    j->u.commit.pid = pid;
    j->u.commit.label = label;
    j->u.commit.label_len = label ? label_len : 0;
    j->u.commit.created_ms = created_ms;
    return j;
}

int sc_store_commit_graph(sc_store *st, int64_t session, const sc_graph *g, uint32_t uid,
                          int64_t pid, const char *label, size_t label_len, int64_t created_ms,
                          sc_store_done_fn done, void *arg)
{
    if (!g || !sc_graph_is_sealed(g))
        return SC_STORE_EINVAL;
    int rc;
    store_job *j = store_commit_job(st, SC_STORE_JOB_COMMIT_GRAPH, session, g, uid, pid, label,
                                    label_len, created_ms, done, arg, &rc);
    return j ? submit(st, j) : rc;
}

int sc_store_submit_graph(sc_store *st, const sc_graph *g, uint32_t uid, int64_t pid,
                          const char *label, size_t label_len, int64_t created_ms,
                          sc_store_done_fn done, void *arg)
{
    return sc_store_submit_body(st, g, NULL, uid, pid, label, label_len, created_ms, done, arg);
}

int sc_store_submit_body(sc_store *st, const sc_graph *g, const sc_store_parent *parent,
                         uint32_t uid, int64_t pid, const char *label, size_t label_len,
                         int64_t created_ms, sc_store_done_fn done, void *arg)
{
    if (!g || !sc_graph_is_sealed(g) || (parent && parent->graph <= 0))
        return SC_STORE_EINVAL;
    int rc;
    store_job *j = store_commit_job(st, SC_STORE_JOB_COMMIT_GRAPH, 0, g, uid, pid, label, label_len,
                                    created_ms, done, arg, &rc);
    if (!j)
        return rc;
    j->u.commit.submitted = true;
    if (parent) {
        j->u.commit.parent_graph = parent->graph;
        j->u.commit.parent_node = parent->node;
        j->u.commit.parent_index = parent->index;
    }
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
    store_job *j = store_commit_job(st, SC_STORE_JOB_COMMIT_CAPTURE, session, g, uid, pid, label,
                                    label_len, ended_ms, done, arg, &rc);
    if (!j)
        return rc;
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

int store_delete_submit(sc_store *st, int64_t graph, int64_t deleted_ms, bool keep_pinned,
                        sc_store_done_fn done, void *arg)
{
    int rc;
    store_job *j = store_job_new(st, SC_STORE_JOB_DELETE_GRAPH, 0, done, arg, &rc);
    if (!j)
        return rc;
    j->u.del.graph = graph;
    j->u.del.deleted_ms = deleted_ms;
    j->u.del.keep_pinned = keep_pinned;
    return submit(st, j);
}

int sc_store_delete_graph(sc_store *st, int64_t graph, int64_t deleted_ms, sc_store_done_fn done,
                          void *arg)
{
    return store_delete_submit(st, graph, deleted_ms, false, done, arg);
}

int sc_store_set_fingerprints(sc_store *st, size_t n, const int64_t *ids, const sc_fingerprint *fps,
                              sc_store_done_fn done, void *arg)
{
    if (n == 0 || !ids || !fps || n > SIZE_MAX / (sizeof *ids + sizeof *fps))
        return SC_STORE_EINVAL;
    int rc;
    /* The fingerprints first: the job's own tail is aligned for them. */
    store_job *j =
        store_job_new(st, SC_STORE_JOB_SET_FPS, n * (sizeof *fps + sizeof *ids), done, arg, &rc);
    if (!j)
        return rc;
    sc_fingerprint *f = (sc_fingerprint *)(j + 1);
    int64_t *id = (int64_t *)(f + n);
    memcpy(f, fps, n * sizeof *fps);
    memcpy(id, ids, n * sizeof *ids);
    j->u.fps.n = n;
    j->u.fps.ids = id;
    j->u.fps.fps = f;
    return submit(st, j);
}

void store_meta_fingerprint(sc_graph_meta *m, const char *structure, const char *full)
{
    m->has_fingerprint =
        structure && full &&
        sc_fingerprint_parse(structure, strlen(structure), &m->fingerprint.structure) == 0 &&
        sc_fingerprint_parse(full, strlen(full), &m->fingerprint.full) == 0;
}

int store_job_fingerprint(store_job *j, const sc_fingerprint **out)
{
    if (!j->u.commit.fp_done) {
        if (sc_graph_fingerprint(j->u.commit.g, NULL, NULL, &j->u.commit.fp) != 0)
            return SC_STORE_ENOMEM;
        j->u.commit.fp_done = true;
    }
    *out = &j->u.commit.fp;
    return 0;
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

const char *sc_store_backend_name(const sc_store *st)
{
    return st ? st->ops->name : NULL;
}

const char *sc_store_host(const sc_store *st)
{
    return st ? st->host : "";
}

char *store_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

bool sc_store_db_is_postgresql(const char *db)
{
    return db && (strncmp(db, "postgresql://", 13) == 0 || strncmp(db, "postgres:", 9) == 0);
}

int sc_store_backend_for(const char *db, const sc_store_backend **out, char *err, size_t errlen)
{
    *out = NULL;
    if (!sc_store_db_is_postgresql(db)) {
        *out = &sc_store_sqlite_backend;
        return 0;
    }
#ifdef SC_HAVE_POSTGRESQL
    (void)err;
    (void)errlen;
    *out = &sc_store_pg_backend;
    return 0;
#else
    snprintf(err, errlen, "this streamcapd was built without PostgreSQL support");
    return SC_STORE_EINVAL;
#endif
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

static void count_owner(void *ctx, uint32_t uid, int64_t graphs)
{
    sc_store *st = ctx;
    st->graph_count += graphs;
    uid_count_add(st, uid, graphs);
}

/* Free what setup left behind; the thread and the handle are not running. */
static void destroy(sc_store *st)
{
    store_readers_shutdown(st);
    if (st->ops)
        st->ops->close(st->be);
    pthread_cond_destroy(&st->rcv);
    pthread_mutex_destroy(&st->rmu);
    pthread_cond_destroy(&st->cv);
    pthread_mutex_destroy(&st->mu);
    free(st->uid_counts);
    free(st->deferred);
    free(st->host);
    free(st->path);
    free(st);
}

/* The backend's part of opening: connect, migrate, count. */
static int open_backend(sc_store *st, const sc_store_config *cfg, char *errbuf, size_t errlen)
{
    int rc = sc_store_backend_for(cfg->path, &st->ops, errbuf, errlen);
    if (rc == 0)
        rc = st->ops->open(cfg, &st->be, errbuf, errlen);
    if (rc == 0)
        rc = st->ops->migrate(st->be, errbuf, errlen);
    if (rc == 0)
        rc = st->ops->count_graphs(st->be, count_owner, st, errbuf, errlen);
    return rc;
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
    sc_store *st = calloc(1, sizeof *st);
    if (!st || !(st->path = store_strdup(cfg->path)) ||
        !(st->host = store_strdup(cfg->host ? cfg->host : ""))) {
        if (st)
            free(st->path);
        free(st);
        snprintf(errbuf, errlen, "out of memory");
        return SC_STORE_ENOMEM;
    }
    st->loop = loop;
    pthread_mutex_init(&st->mu, NULL);
    pthread_cond_init(&st->cv, NULL);
    pthread_mutex_init(&st->rmu, NULL);
    pthread_cond_init(&st->rcv, NULL);

    int rc = open_backend(st, cfg, errbuf, errlen);
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

int sc_store_close_report(sc_store *st, size_t *saved, char *err, size_t errlen)
{
    char dummy[1];
    if (!err || errlen == 0) {
        err = dummy;
        errlen = sizeof dummy;
    }
    err[0] = '\0';
    if (saved)
        *saved = 0;
    if (!st)
        return 0;
    st->closing = true;
    store_notices_stop(st);
    pthread_mutex_lock(&st->mu);
    st->stop = true;
    pthread_cond_signal(&st->cv);
    pthread_mutex_unlock(&st->mu);
    pthread_join(st->thread, NULL);

    /* Callbacks run here may still keep rows the database refused. */
    deliver(st);
    /* The writer has stopped and the lock still holds: no other daemon can
     * mark these rows lost before they are recorded. */
    int rc = 0;
    if (st->n_deferred > 0) {
        rc = st->ops->defer_log_ends(st->be, st->deferred, st->n_deferred, err, errlen);
        if (rc == 0 && saved)
            *saved = st->n_deferred;
    }
    st->async->data = NULL;
    uv_close((uv_handle_t *)st->async, free_handle);
    destroy(st);
    return rc;
}

void sc_store_close(sc_store *st)
{
    sc_store_close_report(st, NULL, NULL, 0);
}
