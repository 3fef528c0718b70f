/*
 * events.c - what a log.event notification says: the params object of one
 * event, rendered once and shared by every subscriber (subs.c) and by the
 * other daemons of a PostgreSQL fleet (the store's notices).
 */
#include <stdint.h>
#include <string.h>

#include "sc_cuda.h"
#include "sc_handlers.h"

/* NOTIFY takes at most 8000 bytes; the label goes first when it is long. */
#define SC_EVENT_NOTICE_MAX 7900

void sc_event_write_why(sc_buf *b, bool *first, const sc_event_why *w)
{
    bool f;
    sc_json_key(b, first, "invalidated_by");
    sc_json_obj_begin(b, &f);
    sc_json_member_cstr(b, &f, "method", w->method);
    sc_json_member_u64(b, &f, "stream", w->stream);
    if (w->has_event)
        sc_json_member_u64(b, &f, "event", w->event);
    /* Only cuda mode's calls have a thread and a CUDA error. */
    if (w->has_error)
        sc_json_member_u64(b, &f, "thread", w->thread);
    if (w->call)
        sc_json_member_str(b, &f, "call", w->call, w->call_len);
    if (w->has_error) {
        int err = sc_cuda_error_from_number(w->cuda_error);
        const char *name = sc_cuda_error_name(err), *text = sc_cuda_error_string(err);
        sc_json_member_i64(b, &f, "cuda_error", w->cuda_error);
        if (name)
            sc_json_member_cstr(b, &f, "cuda_name", name);
        if (text)
            sc_json_member_cstr(b, &f, "message", text);
    }
    sc_json_obj_end(b);
}

/* A failed end's error: CUDA's number and name, or the default mode's code. */
static void write_error(sc_buf *b, bool *first, const sc_event *e)
{
    if (e->cuda_error) {
        const char *name = sc_cuda_error_name(sc_cuda_error_from_number(e->cuda_error));
        sc_json_member_i64(b, first, "cuda_error", e->cuda_error);
        if (name)
            sc_json_member_cstr(b, first, "cuda_name", name);
    }
    if (e->rpc_code) {
        sc_json_member_i64(b, first, "code", e->rpc_code);
        if (e->rpc_message)
            sc_json_member_cstr(b, first, "message", e->rpc_message);
    }
}

void sc_event_params(sc_buf *b, const sc_daemon *d, const sc_event *e, int64_t at_ms,
                     bool with_label)
{
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_member_cstr(b, &first, "event", e->event);
    sc_json_member_u64(b, &first, "session", e->session);
    if (e->capture)
        sc_json_member_u64(b, &first, "capture", e->capture);
    if (e->graph)
        sc_json_member_u64(b, &first, "graph", e->graph);
    if (e->outcome)
        sc_json_member_cstr(b, &first, "outcome", e->outcome);
    if (e->has_stream)
        sc_json_member_u64(b, &first, "stream", e->stream);
    if (e->mode)
        sc_json_member_cstr(b, &first, "mode", e->mode);
    if (e->has_thread)
        sc_json_member_u64(b, &first, "thread", e->thread);
    if (e->has_counts) {
        sc_json_member_u64(b, &first, "node_count", e->node_count);
        /* A capture that ended without a graph has nodes, no edges. */
        if (e->graph)
            sc_json_member_u64(b, &first, "edge_count", e->edge_count);
    }
    if (e->label && with_label)
        sc_json_member_str(b, &first, "label", e->label, e->label_len);
    write_error(b, &first, e);
    if (e->why.method)
        sc_event_write_why(b, &first, &e->why);
    sc_json_member_u64(b, &first, "uid", e->uid);
    sc_json_member_cstr(b, &first, "host", d->host_name);
    sc_json_member_time_ms(b, &first, "at", at_ms);
    sc_json_obj_end(b);
}

/* The other daemons of the fleet hear of it through the store; a label
 * that would pass NOTIFY's limit is left out of theirs. */
static void offer_to_fleet(sc_daemon *d, const sc_event *e, int64_t at_ms, sc_buf *params)
{
    if (!sc_store_has_notices(d->store))
        return;
    sc_buf small;
    const sc_buf *p = params;
    sc_buf_init(&small);
    if (params->len > SC_EVENT_NOTICE_MAX) {
        sc_event_params(&small, d, e, at_ms, false);
        p = &small;
    }
    if (!sc_buf_failed(p) && p->len <= SC_EVENT_NOTICE_MAX)
        (void)sc_store_notice(d->store, p->data, p->len);
    sc_buf_free(&small);
}

void sc_subs_emit(sc_daemon *d, const sc_event *e)
{
    if (!d->nsubs && !sc_store_has_notices(d->store))
        return; /* nobody to tell: nothing rendered */
    int64_t at = sc_now_ms();
    sc_buf params;
    sc_buf_init(&params);
    sc_event_params(&params, d, e, at, true);
    if (!sc_buf_failed(&params)) {
        sc_subs_send(d, e->uid, d->host_name, e->outcome, params.data, params.len);
        offer_to_fleet(d, e, at, &params);
    }
    sc_buf_free(&params);
}

/* Another daemon's event: its params object as it sent it, to this
 * daemon's subscribers under the same rights and filters. */
static void on_fleet_notice(void *arg, const char *payload, size_t len)
{
    sc_daemon *d = arg;
    if (!d->nsubs)
        return;
    sc_jdoc doc;
    sc_rpc_error err;
    sc_jdoc_init(&doc);
    if (sc_jdoc_parse(&doc, payload, len, &err) == 0) {
        sc_jval p = sc_jdoc_root(&doc);
        const char *host = sc_jval_str(sc_jval_get(p, "host", 4), NULL);
        const char *outcome = sc_jval_str(sc_jval_get(p, "outcome", 7), NULL);
        int64_t uid;
        if (sc_jval_is(p, SC_JOBJECT) && host && sc_jval_str(sc_jval_get(p, "event", 5), NULL) &&
            sc_jval_int(sc_jval_get(p, "uid", 3), &uid) && uid >= 0 && uid <= UINT32_MAX)
            sc_subs_send(d, (uint32_t)uid, host, outcome, payload, len);
    }
    sc_jdoc_free(&doc);
}

int sc_events_listen(sc_daemon *d, char *err, size_t errlen)
{
    return sc_store_notices_start(d->store, on_fleet_notice, d, err, errlen);
}
