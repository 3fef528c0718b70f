/*
 * store_read.c - read jobs on libuv's thread pool, over any backend:
 * graph loads, graph metadata and the pages of graph.list and log.list.
 *
 * Each job borrows a reader connection of the backend from a pool (opened
 * on demand, at most STORE_MAX_READERS, kept until close) and runs the
 * backend's read on it (store_backend.h).
 *
 * Every submitted job sits on sc_store.reads until its database work is
 * done; sc_store_close() cancels the ones libuv has not started and waits
 * for the rest.  The after-work callback never touches the store, so it
 * may run after the store is gone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

#define STORE_MAX_READERS 4

struct store_reader {
    store_reader *next;
    void *conn; /* the backend's */
};

/* One read job: the backend's request and the callback it ends in. */
struct store_read_req {
    uv_work_t work;
    store_read_req *prev, *next; /* on sc_store.reads */
    sc_store *st;                /* only until the database work is done */
    sc_store_read rq;
    void *arg;
    union {
        sc_store_graph_fn graph;
        sc_store_meta_fn meta;
        sc_store_graph_page_fn graphs;
        sc_store_log_page_fn log;
        sc_store_backup_fn backup;
        sc_store_plan_fn plan;
    } done;
    char strings[]; /* the query's label and host */
};

/* A new reader, or NULL with *fail set to SC_STORE_ENOMEM or SC_STORE_EIO. */
static store_reader *reader_open(const sc_store *st, int *fail, char *errbuf, size_t len)
{
    store_reader *r = calloc(1, sizeof *r);
    if (!r) {
        *fail = SC_STORE_ENOMEM;
        snprintf(errbuf, len, "out of memory");
        return NULL;
    }
    if ((*fail = st->ops->reader_open(st->be, &r->conn, errbuf, len)) != 0) {
        free(r);
        return NULL;
    }
    return r;
}

static void reader_close(const sc_store *st, store_reader *r)
{
    st->ops->reader_close(r->conn);
    free(r);
}

/* Take a free reader, open one if the pool is not full, else wait. */
static store_reader *reader_acquire(sc_store *st, int *fail, char *errbuf, size_t len)
{
    pthread_mutex_lock(&st->rmu);
    while (!st->free_readers && st->reader_count >= STORE_MAX_READERS)
        pthread_cond_wait(&st->rcv, &st->rmu);
    store_reader *r = st->free_readers;
    if (r) {
        st->free_readers = r->next;
        pthread_mutex_unlock(&st->rmu);
        return r;
    }
    st->reader_count++;
    pthread_mutex_unlock(&st->rmu);

    r = reader_open(st, fail, errbuf, len);
    if (!r) {
        pthread_mutex_lock(&st->rmu);
        st->reader_count--;
        pthread_cond_broadcast(&st->rcv);
        pthread_mutex_unlock(&st->rmu);
    }
    return r;
}

static void reader_release(sc_store *st, store_reader *r)
{
    pthread_mutex_lock(&st->rmu);
    r->next = st->free_readers;
    st->free_readers = r;
    pthread_cond_broadcast(&st->rcv);
    pthread_mutex_unlock(&st->rmu);
}

/* The message the callback gets: the backend's on EIO, none otherwise. */
static const char *errmsg_of(const sc_store_read *q)
{
    return q->rc == SC_STORE_EIO ? q->errmsg : NULL;
}

/* Free the result a failed read left, then run the callback. */
static void deliver(store_read_req *q)
{
    sc_store_read *r = &q->rq;
    if (r->rc != 0) {
        sc_stored_graph_free(r->sg);
        sc_graph_meta_free(r->meta);
        sc_graph_page_free(r->graph_page);
        sc_log_page_free(r->log_page);
        sc_prune_plan_free(r->plan);
        r->plan = NULL;
        r->sg = NULL;
        r->meta = NULL;
        r->graph_page = NULL;
        r->log_page = NULL;
    }
    switch (r->kind) {
    case SC_STORE_READ_LOAD:
    case SC_STORE_READ_SKELETON:
        q->done.graph(q->arg, r->rc, r->sg, errmsg_of(r));
        break;
    case SC_STORE_READ_META:
        q->done.meta(q->arg, r->rc, r->meta, errmsg_of(r));
        break;
    case SC_STORE_READ_GRAPHS:
        q->done.graphs(q->arg, r->rc, r->graph_page, errmsg_of(r));
        break;
    case SC_STORE_READ_LOG:
        q->done.log(q->arg, r->rc, r->log_page, errmsg_of(r));
        break;
    case SC_STORE_READ_BACKUP:
        q->done.backup(q->arg, r->rc, r->rc == 0 ? r->bytes : 0, errmsg_of(r));
        break;
    case SC_STORE_READ_PRUNE:
        q->done.plan(q->arg, r->rc, r->plan, errmsg_of(r));
        break;
    }
}

void sc_graph_meta_free(sc_graph_meta *meta)
{
    if (!meta)
        return;
    free(meta->host);
    free(meta->label);
    free(meta);
}

void sc_graph_page_free(sc_graph_page *page)
{
    if (!page)
        return;
    for (size_t i = 0; i < page->count; i++) {
        free(page->graphs[i].label);
        free(page->graphs[i].host);
    }
    free(page->graphs);
    free(page);
}

void sc_log_page_free(sc_log_page *page)
{
    if (!page)
        return;
    for (size_t i = 0; i < page->count; i++) {
        sc_log_entry *e = &page->entries[i];
        free(e->label);
        free(e->host);
        for (size_t k = 0; k < e->ncaptures; k++)
            free(e->captures[k].inv_call);
        free(e->captures);
    }
    free(page->entries);
    free(page);
}

/* ---- jobs on the pool ---- */

static void unlink_req(sc_store *st, store_read_req *q)
{
    if (q->prev)
        q->prev->next = q->next;
    else
        st->reads = q->next;
    if (q->next)
        q->next->prev = q->prev;
    q->prev = q->next = NULL;
    q->st = NULL;
}

/*
 * A graph stored before fingerprints were (schema 12) gets them on a full
 * load, computed here on the pool thread, so graph.get shows them for
 * every graph.  Not for a graph with child graph or conditional nodes,
 * whose bodies would be needed too: it keeps none.  A failure to compute
 * them only leaves them absent.
 */
static void fingerprint_loaded(sc_store_read *rq)
{
    if (rq->kind != SC_STORE_READ_LOAD || rq->rc != 0 || !rq->sg || rq->sg->meta.has_fingerprint)
        return;
    const sc_graph *g = rq->sg->graph;
    uint32_t n = sc_graph_node_count(g);
    for (uint32_t i = 0; i < n; i++) {
        sc_node node;
        if (sc_graph_node(g, i, &node) != 0 || (int)node.kind == SC_KIND_GRAPH ||
            (int)node.kind == SC_KIND_CONDITIONAL)
            return;
    }
    rq->sg->meta.has_fingerprint =
        sc_graph_fingerprint(g, NULL, NULL, &rq->sg->meta.fingerprint) == 0;
}

static void read_work(uv_work_t *work)
{
    store_read_req *q = work->data;
    sc_store *st = q->st;
    int fail = SC_STORE_EIO;
    store_reader *r = reader_acquire(st, &fail, q->rq.errmsg, sizeof q->rq.errmsg);
    if (!r) {
        q->rq.rc = fail;
    } else {
        st->ops->read(r->conn, &q->rq);
        reader_release(st, r);
        fingerprint_loaded(&q->rq);
    }

    pthread_mutex_lock(&st->rmu);
    unlink_req(st, q);
    pthread_cond_broadcast(&st->rcv);
    pthread_mutex_unlock(&st->rmu);
}

static void read_after(uv_work_t *work, int status)
{
    store_read_req *q = work->data;
    if (status == UV_ECANCELED) {
        q->rq.rc = SC_STORE_ECLOSED;
        snprintf(q->rq.errmsg, sizeof q->rq.errmsg, "store closed");
    }
    deliver(q);
    free(q);
}

/* Queue a job allocated by the caller (freed here when queueing fails). */
static int read_submit(sc_store *st, store_read_req *q, void *arg)
{
    q->work.data = q;
    q->st = st;
    q->arg = arg;

    pthread_mutex_lock(&st->rmu);
    q->next = st->reads;
    if (st->reads)
        st->reads->prev = q;
    st->reads = q;
    pthread_mutex_unlock(&st->rmu);

    int uvrc = uv_queue_work(st->loop, &q->work, read_work, read_after);
    if (uvrc != 0) {
        pthread_mutex_lock(&st->rmu);
        unlink_req(st, q);
        pthread_mutex_unlock(&st->rmu);
        free(q);
        return uvrc == UV_ENOMEM ? SC_STORE_ENOMEM : SC_STORE_EIO;
    }
    return 0;
}

/* A job of `kind` with room for `strings` bytes of copied query text. */
static store_read_req *req_new(enum sc_store_read_kind kind, size_t strings)
{
    store_read_req *q = calloc(1, sizeof *q + strings);
    if (q)
        q->rq.kind = kind;
    return q;
}

/* Copy n bytes of s into the job's strings at *at, NUL-terminated. */
static const char *keep(store_read_req *q, size_t *at, const char *s, size_t n)
{
    char *copy = q->strings + *at;
    if (n)
        memcpy(copy, s, n);
    copy[n] = '\0';
    *at += n + 1;
    return copy;
}

int store_load_submit(sc_store *st, int64_t graph, bool skeleton, sc_store_graph_fn done, void *arg)
{
    store_read_req *q = req_new(skeleton ? SC_STORE_READ_SKELETON : SC_STORE_READ_LOAD, 0);
    if (!q)
        return SC_STORE_ENOMEM;
    q->rq.graph = graph;
    q->done.graph = done;
    return read_submit(st, q, arg);
}

int store_meta_submit(sc_store *st, int64_t graph, sc_store_meta_fn done, void *arg)
{
    store_read_req *q = req_new(SC_STORE_READ_META, 0);
    if (!q)
        return SC_STORE_ENOMEM;
    q->rq.graph = graph;
    q->done.meta = done;
    return read_submit(st, q, arg);
}

int store_graphs_submit(sc_store *st, const sc_graph_query *gq, sc_store_graph_page_fn done,
                        void *arg)
{
    size_t label_len = gq->label ? gq->label_len : 0, host_len = gq->host ? gq->host_len : 0;
    store_read_req *q = req_new(SC_STORE_READ_GRAPHS, label_len + host_len + 2);
    if (!q)
        return SC_STORE_ENOMEM;
    size_t at = 0;
    q->rq.graphs = *gq;
    if (gq->label)
        q->rq.graphs.label = keep(q, &at, gq->label, label_len);
    if (gq->host)
        q->rq.graphs.host = keep(q, &at, gq->host, host_len);
    q->done.graphs = done;
    return read_submit(st, q, arg);
}

int store_log_submit(sc_store *st, const sc_log_query *lq, const char *outcome,
                     sc_store_log_page_fn done, void *arg)
{
    size_t host_len = lq->host ? lq->host_len : 0;
    store_read_req *q = req_new(SC_STORE_READ_LOG, host_len + 1);
    if (!q)
        return SC_STORE_ENOMEM;
    size_t at = 0;
    q->rq.log = *lq;
    q->rq.log.outcome = outcome;
    if (lq->host)
        q->rq.log.host = keep(q, &at, lq->host, host_len);
    q->done.log = done;
    return read_submit(st, q, arg);
}

int store_backup_submit(sc_store *st, const char *target, unsigned flags, sc_store_backup_fn done,
                        void *arg)
{
    size_t at = 0, len = strlen(target);
    store_read_req *q = req_new(SC_STORE_READ_BACKUP, len + 1);
    if (!q)
        return SC_STORE_ENOMEM;
    q->rq.target = keep(q, &at, target, len);
    q->rq.backup_flags = flags;
    q->done.backup = done;
    return read_submit(st, q, arg);
}

int store_plan_submit(sc_store *st, const sc_prune_policy *p, sc_store_plan_fn done, void *arg)
{
    store_read_req *q = req_new(SC_STORE_READ_PRUNE, 0);
    if (!q)
        return SC_STORE_ENOMEM;
    q->rq.prune = *p;
    q->done.plan = done;
    return read_submit(st, q, arg);
}

void sc_prune_plan_free(sc_prune_plan *plan)
{
    if (!plan)
        return;
    free(plan->ids);
    free(plan);
}

void store_readers_shutdown(sc_store *st)
{
    pthread_mutex_lock(&st->rmu);
    /* Our lock never nests inside libuv's queue lock (the pool thread
     * takes ours only after its work started), so cancelling here is safe. */
    store_read_req *q = st->reads;
    while (q) {
        store_read_req *next = q->next;
        if (uv_cancel((uv_req_t *)&q->work) == 0)
            unlink_req(st, q);
        q = next;
    }
    while (st->reads)
        pthread_cond_wait(&st->rcv, &st->rmu);
    store_reader *r = st->free_readers;
    st->free_readers = NULL;
    pthread_mutex_unlock(&st->rmu);

    while (r) {
        store_reader *next = r->next;
        reader_close(st, r);
        r = next;
    }
}
