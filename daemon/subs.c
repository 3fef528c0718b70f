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
#include <string.h>
#include "sc_handlers.h"

/* The notice itself may take the buffer this far past the bound. */
#define SC_SUB_NOTICE_MAX 512

static bool sub_wants(const sc_conn *c, const sc_event *e)
{
    if (!c->subscribed || c->closing || c->close_after_flush)
        return false;
    if (!sc_may_access(c, e->uid))
        return false;
    return !c->sub_outcome || (e->outcome && !strcmp(c->sub_outcome, e->outcome));
}

static void write_event(sc_buf *b, const sc_event *e)
{
    bool first = true;
    sc_buf_puts(b, "{\"jsonrpc\":\"2.0\",\"method\":\"log.event\",\"params\":{");
    sc_json_member_cstr(b, &first, "event", e->event);
    sc_json_member_u64(b, &first, "session", e->session);
    if (e->capture)
        sc_json_member_u64(b, &first, "capture", e->capture);
    if (e->graph)
        sc_json_member_u64(b, &first, "graph", e->graph);
    if (e->outcome)
        sc_json_member_cstr(b, &first, "outcome", e->outcome);
    sc_json_member_u64(b, &first, "uid", e->uid);
    sc_json_member_time_ms(b, &first, "at", sc_now_ms());
    sc_buf_puts(b, "}}\n");
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

void sc_subs_emit(sc_daemon *d, const sc_event *e)
{
    if (!d->nsubs)
        return;
    for (sc_conn *c = d->conns; c; c = c->next) {
        if (!sub_wants(c, e))
            continue;
        size_t before = c->out.len;
        write_event(&c->out, e);
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
}

int sc_h_log_subscribe(sc_req *r)
{
    const char *outcome = NULL;
    size_t outcome_len = 0;
    if (sc_param_opt_string(r->params, "outcome", &outcome, &outcome_len, &r->err) != 0)
        return H_ERROR;
    const char *want = NULL;
    if (sc_req_outcome(r, outcome, outcome_len, &want) != 0)
        return H_ERROR;
    if (r->c->x.cur_batch || r->notification)
        return sc_req_fail(r, SC_RPC_INVALID_REQUEST,
                           "log.subscribe must be a request of its own, not in a batch");
    int rc = sc_req_empty(r);
    if (!r->c->subscribed)
        r->d->nsubs++;
    r->c->subscribed = true;
    r->c->sub_outcome = want;
    return rc;
}
