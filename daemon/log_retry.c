/*
 * log_retry.c - capture-log updates that no request waits for.
 *
 * A session that ends without a reply to give (idle timeout, shutdown, a
 * failed end) still owes its log row a final outcome.  When the database
 * refuses the update, it is kept and queued again by the daemon's sweep,
 * or during a stop by the stop's timer (server.c) until its grace period
 * ends; a row still refused then is recorded by the store for the next
 * start, so that a clean stop never leaves a row to be called `lost`.
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

/*
 * Past the stop's grace period a refused row is not retried: the store
 * records it for the next start, which ends it before calling open rows
 * lost.  Frees `r`.
 */
static void log_update_keep(sc_log_retry *r)
{
    sc_daemon *d = r->d;
    int rc = sc_store_defer_log_end(d->store, r->session, r->outcome, r->node_count, r->ended_ms);
    if (rc == 0)
        sc_log(&d->log, SC_LOG_WARN,
               "session %lld: outcome %s kept for the next start to log (the database refused it "
               "until the stop's grace period ended)",
               (long long)r->session, r->outcome);
    else
        sc_log(&d->log, SC_LOG_ERROR,
               "session %lld: outcome %s not logged: the database refused it and %s; the next "
               "start will call the session lost",
               (long long)r->session, r->outcome,
               rc == SC_STORE_ENOMEM ? "there is no memory to keep it"
                                     : "this backend cannot keep it for the next start");
    free(r);
}

static void log_update_done(void *arg, const sc_store_result *res)
{
    sc_log_retry *r = arg;
    sc_daemon *d = r->d;
    d->log_updates--;
    bool refused = res->rc == SC_STORE_EIO;
    /* During a stop too, until its grace period ends: the lock may be
     * released, room may be made. */
    bool retry = refused && !d->log_final;
    /* The waiting request first: a failed capture.end reports its
     * capture's end before the session's. */
    if (r->first) {
        r->first(r->first_arg, res);
        r->first = NULL;
    }
    /* Subscribers hear of the end once its row is committed. */
    if (res->rc == SC_STORE_OK)
        sc_subs_emit(d, &(sc_event){.event = "session_ended",
                                    .uid = r->uid,
                                    .session = (uint64_t)r->session,
                                    .outcome = r->outcome});
    sc_log_store_error(d, res->rc, res->errmsg, r->uid, r->pid,
                       "logging outcome %s of session %lld%s", r->outcome, (long long)r->session,
                       retry ? " (will retry)" : "");
    if (retry) {
        r->next = d->log_retries;
        d->log_retries = r;
        return;
    }
    if (refused) {
        log_update_keep(r);
    } else {
        if (res->rc == SC_STORE_ECLOSED)
            sc_log(&d->log, SC_LOG_WARN,
                   "session %lld: outcome %s not logged: the store closed first",
                   (long long)r->session, r->outcome);
        free(r);
    }
    /* The stop may have been waiting for this row. */
    if (d->stopping)
        sc_server_check_stopped(d);
}

/* 0, or the store's refusal (then `r` is freed and its `first` never runs).
 * A stopping daemon's rows may use the room kept for deletes: the next
 * start makes it again. */
static int log_update_queue(sc_log_retry *r)
{
    sc_daemon *d = r->d;
    int rc = (d->stopping ? sc_store_log_end_final : sc_store_log_end)(
        d->store, r->session, r->outcome, r->node_count, r->ended_ms, log_update_done, r);
    if (rc == 0) {
        d->log_updates++;
        return 0;
    }
    sc_log(&d->log, SC_LOG_ERROR, "session %lld: could not log outcome %s", (long long)r->session,
           r->outcome);
    free(r);
    return rc;
}

int sc_log_end_then(sc_daemon *d, const sc_session *s, const char *outcome, uint32_t node_count,
                    sc_store_done_fn first, void *arg)
{
    sc_log_retry *r = calloc(1, sizeof(*r));
    if (!r) {
        sc_log(&d->log, SC_LOG_ERROR, "session %llu: out of memory logging outcome %s",
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

void sc_log_retry_give_up(sc_daemon *d)
{
    d->log_final = true;
    while (d->log_retries) {
        sc_log_retry *r = d->log_retries;
        d->log_retries = r->next;
        log_update_keep(r);
    }
}

bool sc_log_retry_pending(const sc_daemon *d)
{
    return d->log_retries != NULL || d->log_updates > 0;
}

void sc_log_retry_free(sc_daemon *d)
{
    while (d->log_retries) {
        sc_log_retry *r = d->log_retries;
        d->log_retries = r->next;
        free(r);
    }
}
