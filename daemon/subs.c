/*
 * subs.c - log.subscribe: connections that receive log.event notifications
 * instead of replies.
 *
 * An event is rendered once per subscriber straight into its output
 * buffer; nothing waits for a subscriber.  One whose unsent bytes would
 * pass --max-sub-output gets a last `dropped` notice and is closed after
 * it, so a peer that stops reading costs the daemon a bounded buffer and
 * never slows the loop or other clients.
 */
#include <stdlib.h>
#include <string.h>
#include "sc_handlers.h"

/* The notice itself may take the buffer this far past the bound. */
#define SC_SUB_NOTICE_MAX 512

static bool sub_wants(const sc_conn *c, uint32_t uid, const char *host, const char *outcome)
{
    if (!c->subscribed || c->closing || c->close_after_flush)
        return false;
    /* As for stored rows: uids of two hosts are not the same users. */
    if (!sc_may_access_all(c) && (!sc_may_access(c, uid) || strcmp(host, c->d->host_name) != 0))
        return false;
    if (c->sub_host && strcmp(c->sub_host, host) != 0)
        return false;
    return !c->sub_outcome || (outcome && !strcmp(c->sub_outcome, outcome));
}

static void drop_sub(sc_conn *c)
{
    sc_log(&c->d->log, SC_LOG_WARN,
           "connection %llu (uid %u pid %d): log subscriber past %zu bytes unread, dropped",
           (unsigned long long)c->serial, (unsigned)c->uid, (int)c->pid, c->d->cfg.max_sub_output);
    sc_buf_printf(&c->out,
                  "{\"jsonrpc\":\"2.0\",\"method\":\"log.event\",\"params\":{\"event\":"
                  "\"dropped\",\"session\":0,\"reason\":\"more than %zu bytes unread\"}}\n",
                  c->d->cfg.max_sub_output);
    sc_conn_close_after_flush(c);
}

void sc_subs_send(sc_daemon *d, uint32_t uid, const char *host, const char *outcome,
                  const char *params, size_t len)
{
    static const char head[] = "{\"jsonrpc\":\"2.0\",\"method\":\"log.event\",\"params\":";
    if (!d->nsubs)
        return;
    for (sc_conn *c = d->conns; c; c = c->next) {
        if (!sub_wants(c, uid, host, outcome))
            continue;
        size_t before = c->out.len;
        sc_buf_append(&c->out, head, sizeof head - 1);
        sc_buf_append(&c->out, params, len);
        sc_buf_puts(&c->out, "}\n");
        if (sc_conn_pending(c) + SC_SUB_NOTICE_MAX > d->cfg.max_sub_output) {
            c->out.len = before;
            drop_sub(c);
            continue;
        }
        sc_conn_flush(c);
    }
}

void sc_subs_forget(sc_conn *c)
{
    if (c->subscribed && c->d->nsubs)
        c->d->nsubs--;
    c->subscribed = false;
    free(c->sub_host);
    c->sub_host = NULL;
}

/* The log's outcomes, and `discarded`: a capture_ended event's outcome for
 * a capture its session's end threw away, which no log row has. */
static int sub_outcome(sc_req *r, const char *s, size_t len, const char **out)
{
    static const char discarded[] = "discarded";
    if (s && len == sizeof discarded - 1 && !memcmp(s, discarded, len)) {
        *out = discarded;
        return 0;
    }
    if (sc_req_outcome(r, s, len, out) == 0)
        return 0;
    sc_req_fail(r, SC_RPC_INVALID_PARAMS,
                "invalid params: 'outcome' must be one of open, completed, failed, discarded, "
                "closed, abandoned, shutdown, lost");
    r->err.field = "outcome";
    return -1;
}

int sc_h_log_subscribe(sc_req *r)
{
    const char *outcome = NULL, *host = NULL;
    size_t outcome_len = 0, host_len = 0;
    if (sc_param_opt_string(r->params, "outcome", &outcome, &outcome_len, &r->err) != 0 ||
        sc_param_opt_string(r->params, "host", &host, &host_len, &r->err) != 0)
        return H_ERROR;
    const char *want = NULL;
    if (sub_outcome(r, outcome, outcome_len, &want) != 0)
        return H_ERROR;
    if (r->c->x.cur_batch || r->notification)
        return sc_req_fail(r, SC_RPC_INVALID_REQUEST,
                           "log.subscribe must be a request of its own, not in a batch");
    char *host_copy = NULL;
    if (host && sc_req_copy_string(r, host, host_len, &host_copy) != 0)
        return H_ERROR;
    int rc = sc_req_empty(r);
    if (!r->c->subscribed)
        r->d->nsubs++;
    r->c->subscribed = true;
    r->c->sub_outcome = want;
    free(r->c->sub_host);
    r->c->sub_host = host_copy;
    return rc;
}
