/*
 * store_prune.c - the generic side of pinning, retention and prune
 * (sc_store.h, "Retention and prune"): the jobs and the plan read, checked
 * and queued here, run by the backend.
 */
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

/* The most graphs one prune job deletes: keeps its transaction short. */
#define PRUNE_JOB_MAX 10000u

int sc_store_delete_unpinned(sc_store *st, int64_t graph, int64_t deleted_ms, sc_store_done_fn done,
                             void *arg)
{
    return store_delete_submit(st, graph, deleted_ms, true, done, arg);
}

int sc_store_pin_graph(sc_store *st, int64_t graph, bool pinned, sc_store_done_fn done, void *arg)
{
    if (graph < 1)
        return SC_STORE_EINVAL;
    int rc;
    store_job *j = store_job_new(st, SC_STORE_JOB_PIN_GRAPH, 0, done, arg, &rc);
    if (!j)
        return rc;
    j->u.pin.graph = graph;
    j->u.pin.pinned = pinned;
    store_submit(st, j);
    return 0;
}

int sc_store_prune_plan(sc_store *st, const sc_prune_policy *p, sc_store_plan_fn done, void *arg)
{
    if (!st || !p || !done || p->limit < 1 || p->limit > SC_STORE_PRUNE_MAX)
        return SC_STORE_EINVAL;
    if (st->closing)
        return SC_STORE_ECLOSED;
    sc_prune_policy own = *p;
    /* Another host's uid is another user (sc_store.h, lists). */
    own.host = p->any_owner ? NULL : sc_store_host(st);
    return store_plan_submit(st, &own, done, arg);
}

int sc_store_prune_graphs(sc_store *st, const int64_t *ids, size_t n, int64_t deleted_ms,
                          sc_store_done_fn done, void *arg)
{
    if (!ids || n == 0 || n > PRUNE_JOB_MAX)
        return SC_STORE_EINVAL;
    int rc;
    /* The ids first (aligned after the job), then the owners, then the marks. */
    size_t extra = n * (sizeof(int64_t) + sizeof(uint32_t) + 1);
    store_job *j = store_job_new(st, SC_STORE_JOB_PRUNE_GRAPHS, extra, done, arg, &rc);
    if (!j)
        return rc;
    int64_t *copy = (int64_t *)(j + 1);
    memcpy(copy, ids, n * sizeof *ids);
    j->u.prune.n = n;
    j->u.prune.ids = copy;
    j->u.prune.uids = (uint32_t *)(copy + n);
    j->u.prune.gone = (unsigned char *)(j->u.prune.uids + n);
    j->u.prune.deleted_ms = deleted_ms;
    store_submit(st, j);
    return 0;
}

int sc_store_prune_log(sc_store *st, int64_t before_ms, uint32_t limit, sc_store_done_fn done,
                       void *arg)
{
    if (limit < 1 || limit > PRUNE_JOB_MAX)
        return SC_STORE_EINVAL;
    int rc;
    store_job *j = store_job_new(st, SC_STORE_JOB_PRUNE_LOG, 0, done, arg, &rc);
    if (!j)
        return rc;
    j->u.plog.before_ms = before_ms;
    j->u.plog.limit = limit;
    store_submit(st, j);
    return 0;
}

int sc_store_vacuum_step(sc_store *st, uint32_t pages, sc_store_done_fn done, void *arg)
{
    if (pages < 1)
        return SC_STORE_EINVAL;
    int rc;
    store_job *j = store_job_new(st, SC_STORE_JOB_VACUUM, 0, done, arg, &rc);
    if (!j)
        return rc;
    j->u.vac.pages = pages;
    store_submit(st, j);
    return 0;
}
