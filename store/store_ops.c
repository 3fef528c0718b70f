/*
 * store_ops.c - what an operator asks of the store rather than a client:
 * backups, the integrity check, and the figures metrics report
 * (sc_store.h, "backup and integrity", "figures for metrics";
 * docs/operations.md).
 */
#include <stdio.h>
#include <string.h>

#include "store_int.h"

bool sc_store_can_backup(const sc_store *st)
{
    return st && st->ops->backs_up;
}

int sc_store_backup(sc_store *st, const char *target, unsigned flags, sc_store_backup_fn done,
                    void *arg)
{
    if (!st || !target || target[0] != '/' || !done || (flags & ~SC_STORE_BACKUP_OVERWRITE))
        return SC_STORE_EINVAL;
    if (st->closing)
        return SC_STORE_ECLOSED;
    if (!st->ops->backs_up)
        return SC_STORE_EINVAL;
    return store_backup_submit(st, target, flags, done, arg);
}

int sc_store_check(const sc_store_config *cfg, bool full, sc_store_problem_fn fn, void *ctx,
                   size_t *problems, char *err, size_t errlen)
{
    char dummy[1];
    if (!err || errlen == 0) {
        err = dummy;
        errlen = sizeof dummy;
    }
    err[0] = '\0';
    size_t n = 0;
    if (problems)
        *problems = 0;
    if (!cfg || !cfg->path || !fn) {
        snprintf(err, errlen, "invalid argument");
        return SC_STORE_EINVAL;
    }
    const sc_store_backend *be;
    int rc = sc_store_backend_for(cfg->path, &be, err, errlen);
    if (rc != 0)
        return rc;
    if (!be->check) {
        snprintf(err, errlen, "the %s backend has no integrity check", be->name);
        return SC_STORE_EINVAL;
    }
    rc = be->check(cfg, full, fn, ctx, &n, err, errlen);
    if (problems)
        *problems = n;
    return rc;
}

void store_keep_first(void *ctx, int64_t graph, const char *what)
{
    char *first = ctx;
    (void)graph;
    if (!first[0])
        snprintf(first, STORE_PROBLEM_MAX, "%s", what);
}

int store_check_verdict(size_t n, const char *first, char *err, size_t errlen)
{
    if (n == 0)
        return 0;
    snprintf(err, errlen,
             "it fails the start-up integrity check (%zu problem%s; the first: %s); "
             "streamcapd --check-db lists them all",
             n, n == 1 ? "" : "s", first);
    return SC_STORE_EIO;
}

int sc_store_get_latency(const sc_store *st, sc_store_latency *out)
{
    if (!st || !out)
        return SC_STORE_EINVAL;
    *out = st->latency;
    return 0;
}

uint64_t sc_store_queue_depth(const sc_store *st)
{
    return st ? st->pending : 0;
}
