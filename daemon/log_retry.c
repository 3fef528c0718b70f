/*
 * log_retry.c - capture-log updates that no request waits for.
 *
 * A session that ends without a reply to give (idle timeout, shutdown, a
 * failed end) still owes its log row a final outcome.  When the database
 * refuses the update, it is kept and queued again by the daemon's sweep.
 */
#include <stdlib.h>

#include "sc_daemon.h"

/*
 * A session's final log update that nobody waits for.  When the database
 * refuses it (full, locked), it is kept and tried again by the sweep, so a
 * row is not left `open` once storage recovers; ENOTFOUND means the row is
 * already final.
 */
typedef struct sc_log_retry {
    sc_daemon *d;
    int64_t session;
    uint32_t uid; /* the session's owner, for the log */
    int64_t pid;
    const char *outcome; /* static */
    uint32_t node_count;
    int64_t ended_ms;
    sc_store_done_fn first; /* the waiting request's, until its first result */
    void *first_arg;
    struct sc_log_retry *next;
} sc_log_retry;

static void log_update_done(void *arg, const sc_store_result *res)
{
    sc_log_retry *r = arg;
    sc_daemon *d = r->d;
    bool retry = res->rc == SC_STORE_EIO && !d->stopping;
    if (r->first) {
        r->first(r->first_arg, res);
        r->first = NULL;
    }
    sc_log_store_error(d, res->rc, res->errmsg, r->uid, r->pid,
                       "logging outcome %s of session %lld%s", r->outcome, (long long)r->session,
                       retry ? " (will retry)" : "");
    if (retry) {
        r->next = d->log_retries;
        d->log_retries = r;
        return;
    }
    if (res->rc == SC_STORE_ECLOSED)
        sc_log(d, SC_LOG_WARN, "session %lld: outcome %s not logged: the store closed first",
               (long long)r->session, r->outcome);
    free(r);
}

/* 0, or the store's refusal (then `r` is freed and its `first` never runs). */
static int log_update_queue(sc_log_retry *r)
{
    int rc = sc_store_log_end(r->d->store, r->session, r->outcome, r->node_count, r->ended_ms,
                              log_update_done, r);
    if (rc == 0)
        return 0;
    sc_log(r->d, SC_LOG_ERROR, "session %lld: could not log outcome %s", (long long)r->session,
           r->outcome);
    free(r);
    return rc;
}

int sc_log_end_then(sc_daemon *d, const sc_session *s, const char *outcome, uint32_t node_count,
                    sc_store_done_fn first, void *arg)
{
    sc_log_retry *r = calloc(1, sizeof(*r));
    if (!r) {
        sc_log(d, SC_LOG_ERROR, "session %llu: out of memory logging outcome %s",
               (unsigned long long)s->id, outcome);
        return SC_STORE_ENOMEM;
    }
    r->d = d;
    r->session = (int64_t)s->id;
    r->uid = s->uid;
    r->pid = s->pid;
    r->outcome = outcome;
    r->node_count = node_count;
    r->ended_ms = sc_now_ms();
    r->first = first;
    r->first_arg = arg;
    return log_update_queue(r);
}

/* Finish a session's log row without waiting for the commit. */
void sc_log_end_detached(sc_daemon *d, const sc_session *s, const char *outcome,
                         uint32_t node_count)
{
    sc_log_end_then(d, s, outcome, node_count, NULL, NULL);
}

void sc_log_retry_all(sc_daemon *d)
{
    sc_log_retry *r = d->log_retries;
    d->log_retries = NULL;
    while (r) {
        sc_log_retry *next = r->next;
        log_update_queue(r);
        r = next;
    }
}

void sc_log_retry_free(sc_daemon *d)
{
    while (d->log_retries) {
        sc_log_retry *r = d->log_retries;
        d->log_retries = r->next;
        free(r);
    }
}
