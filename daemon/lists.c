/*
 * lists.c - the paged lists of stored rows: graph.list and log.list.
 *
 * Both come straight from the database on the thread pool, a page at a
 * time, each page naming the cursor of the next.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_handlers.h"

/* ------------------------------------------------------------ cursors */

/*
 * Cursors are opaque strings to clients: "g<graph>" for graph.list and
 * "l<opened_ms>.<session>" for log.list.
 */
static void write_graph_cursor(sc_buf *b, int64_t before)
{
    char s[32];
    snprintf(s, sizeof(s), "g%" PRId64, before);
    sc_json_cstr(b, s);
}

static void write_log_cursor(sc_buf *b, int64_t opened_ms, int64_t session)
{
    char s[64];
    snprintf(s, sizeof(s), "l%" PRId64 ".%" PRId64, opened_ms, session);
    sc_json_cstr(b, s);
}

static bool parse_i64(const char *s, const char **end, int64_t *out)
{
    int64_t v = 0;
    const char *p = s;
    if (*p < '0' || *p > '9')
        return false;
    while (*p >= '0' && *p <= '9') {
        if (v > (INT64_MAX - (*p - '0')) / 10)
            return false;
        v = v * 10 + (*p++ - '0');
    }
    *end = p;
    *out = v;
    return true;
}

static int bad_cursor(sc_req *r, const char *method)
{
    sc_req_fail(r, SC_RPC_INVALID_PARAMS,
                "invalid params: 'before' must be a cursor returned by %s as 'next'", method);
    r->err.field = "before";
    return -1;
}

static int get_limit(sc_req *r, uint32_t *limit)
{
    uint64_t v = SC_STORE_LIST_DEFAULT;
    if (sc_param_opt_u64(r->params, "limit", SC_STORE_LIST_MAX, &v, &r->err) != 0 || v == 0) {
        sc_req_fail(r, SC_RPC_INVALID_PARAMS,
                    "invalid params: 'limit' must be an integer from 1 to %d", SC_STORE_LIST_MAX);
        r->err.field = "limit";
        return -1;
    }
    *limit = (uint32_t)v;
    return 0;
}

/* A non-root caller's host filter: its own host, and only that.  False
 * when the caller asked for another host (the answer is then empty). */
static bool own_host_filter(sc_req *r, const char **host, size_t *host_len)
{
    if (sc_may_access_all(r->c))
        return true;
    const char *own = r->d->host_name;
    if (*host && (*host_len != strlen(own) || memcmp(*host, own, *host_len) != 0))
        return false;
    *host = own;
    *host_len = strlen(own);
    return true;
}

/* ------------------------------------------------------- graph.list */

/* The reply to a list that cannot match a row: `key` is an empty array. */
static int empty_page(sc_req *r, const char *key)
{
    sc_buf *b = sc_req_result_begin(r);
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_key(b, &first, key);
    sc_buf_puts(b, "[]");
    sc_json_obj_end(b);
    return sc_req_result_end(r, b);
}

typedef struct list_ctx {
    sc_async a;
    char *label; /* the store reads the query on a worker thread */
    char *host;
} list_ctx;

static void graphs_listed(void *arg, int rc, sc_graph_page *page, const char *errmsg)
{
    list_ctx *l = arg;
    if (rc != 0) {
        sc_log_store_error(l->a.d, rc, errmsg, (uint32_t)l->a.c->uid, l->a.c->pid,
                           "listing graphs");
        sc_rpc_error err = {0};
        sc_store_rpc_error(&err, rc, errmsg);
        sc_async_error(&l->a, &err);
    } else {
        sc_buf *b = sc_async_result_begin(&l->a);
        bool first, first_g;
        sc_json_obj_begin(b, &first);
        sc_json_key(b, &first, "graphs");
        sc_buf_putc(b, '[');
        for (size_t i = 0; i < page->count; i++) {
            const sc_graph_meta *m = &page->graphs[i];
            if (i)
                sc_buf_putc(b, ',');
            sc_json_obj_begin(b, &first_g);
            sc_write_meta_fields(b, &first_g, m);
            sc_json_member_u64(b, &first_g, "node_count", m->node_count);
            sc_json_member_u64(b, &first_g, "edge_count", m->edge_count);
            sc_json_member_u64(b, &first_g, "stream_count", m->stream_count);
            sc_json_obj_end(b);
        }
        sc_buf_putc(b, ']');
        if (page->has_more) {
            sc_json_key(b, &first, "next");
            write_graph_cursor(b, page->next_before);
        }
        sc_json_obj_end(b);
        sc_async_result_end(&l->a, b);
    }
    sc_graph_page_free(page);
    sc_async_done(&l->a);
    free(l->label);
    free(l->host);
    free(l);
}

int sc_h_graph_list(sc_req *r)
{
    sc_graph_query q = {0};
    const char *before = NULL, *label = NULL, *host = NULL, *fp = NULL;
    size_t before_len = 0, label_len = 0, host_len = 0, fp_len = 0;
    if (get_limit(r, &q.limit) != 0 ||
        sc_param_opt_string(r->params, "fingerprint", &fp, &fp_len, &r->err) != 0 ||
        sc_param_opt_string(r->params, "before", &before, &before_len, &r->err) != 0 ||
        sc_param_opt_string(r->params, "label", &label, &label_len, &r->err) != 0 ||
        sc_param_opt_string(r->params, "host", &host, &host_len, &r->err) != 0 ||
        sc_param_opt_bool(r->params, "nested", &q.nested, &r->err) != 0)
        return H_ERROR;
    if (fp && sc_fingerprint_parse(fp, fp_len, &q.fingerprint) != 0) {
        sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS,
                    "invalid params: 'fingerprint' must be 16 hex digits");
        r->err.field = "fingerprint";
        return H_ERROR;
    }
    q.by_fingerprint = fp != NULL;
    if (!own_host_filter(r, &host, &host_len))
        return empty_page(r, "graphs");
    if (before) {
        const char *end;
        if (before[0] != 'g' || !parse_i64(before + 1, &end, &q.before_graph) || *end ||
            q.before_graph <= 0) {
            bad_cursor(r, "graph.list");
            return H_ERROR;
        }
    }
    list_ctx *l = calloc(1, sizeof(*l));
    if (!l)
        return sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    if (sc_req_copy_string(r, label, label_len, &l->label) != 0 ||
        sc_req_copy_string(r, host, host_len, &l->host) != 0) {
        free(l->label);
        free(l);
        return H_ERROR;
    }
    q.label = l->label;
    q.label_len = label_len;
    q.host = l->host;
    q.host_len = host_len;
    q.any_owner = sc_may_access_all(r->c);
    q.uid = (uint32_t)r->c->uid;
    if (sc_store_list_graphs(r->d->store, &q, graphs_listed, l) != 0) {
        free(l->label);
        free(l->host);
        free(l);
        return sc_req_store_unavailable(r);
    }
    sc_async_start(&l->a, r);
    return H_ASYNC;
}

/* ------------------------------------------------------- log.list */

static const char *const outcomes[] = {"open",      "completed", "failed", "closed",
                                       "abandoned", "shutdown",  "lost"};

int sc_req_outcome(sc_req *r, const char *s, size_t len, const char **out)
{
    *out = NULL;
    if (!s)
        return 0;
    for (size_t i = 0; i < sizeof(outcomes) / sizeof(outcomes[0]); i++)
        if (strlen(outcomes[i]) == len && !memcmp(outcomes[i], s, len))
            *out = outcomes[i];
    if (*out)
        return 0;
    sc_req_fail(r, SC_RPC_INVALID_PARAMS,
                "invalid params: 'outcome' must be one of open, completed, failed, "
                "closed, abandoned, shutdown, lost");
    r->err.field = "outcome";
    return -1;
}

/* One ended capture of a cuda-mode session's log entry (docs/cuda-semantics.md §6). */
static void write_log_capture(sc_buf *b, const sc_log_capture *c)
{
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_member_u64(b, &first, "capture", c->capture);
    sc_json_member_u64(b, &first, "origin", c->origin);
    sc_json_member_cstr(b, &first, "mode", c->mode);
    sc_json_member_u64(b, &first, "thread", c->thread);
    sc_json_member_cstr(b, &first, "outcome", c->outcome);
    if (c->cuda_error) {
        sc_json_member_i64(b, &first, "cuda_error", c->cuda_error);
        const char *name = sc_cuda_error_name(sc_cuda_error_from_number(c->cuda_error));
        if (name)
            sc_json_member_cstr(b, &first, "cuda_name", name);
    }
    sc_json_member_u64(b, &first, "node_count", c->node_count);
    sc_json_member_time_ms(b, &first, "ended_at", c->ended_ms);
    if (c->graph > 0) {
        sc_json_member_i64(b, &first, "graph", c->graph);
        if (c->graph_deleted)
            sc_json_member_time_ms(b, &first, "graph_deleted_at", c->graph_deleted_ms);
    }
    if (c->invalidated) {
        sc_event_why w = {.method = c->inv_method,
                          .stream = c->inv_stream,
                          .has_event = c->inv_has_event,
                          .event = c->inv_event,
                          .thread = c->inv_thread,
                          .call = c->inv_call,
                          .call_len = c->inv_call ? strlen(c->inv_call) : 0,
                          .has_error = true,
                          .cuda_error = c->inv_error};
        sc_event_write_why(b, &first, &w);
    }
    sc_json_obj_end(b);
}

static void write_log_entry(sc_buf *b, bool *first, const sc_log_entry *e)
{
    sc_json_member_i64(b, first, "session", e->session);
    sc_json_member_str(b, first, "label", e->label ? e->label : "", e->label_len);
    sc_json_member_u64(b, first, "owner_uid", e->owner_uid);
    sc_json_member_i64(b, first, "owner_pid", e->owner_pid);
    sc_json_member_cstr(b, first, "host", e->host ? e->host : "");
    sc_json_member_time_ms(b, first, "opened_at", e->opened_ms);
    sc_json_key(b, first, "ended_at");
    if (e->has_ended)
        sc_json_time_ms(b, e->ended_ms);
    else
        sc_buf_puts(b, "null");
    sc_json_member_cstr(b, first, "outcome", e->outcome);
    sc_json_member_u64(b, first, "node_count", e->node_count);
    if (e->graph > 0) {
        sc_json_member_i64(b, first, "graph", e->graph);
        if (e->graph_deleted)
            sc_json_member_time_ms(b, first, "graph_deleted_at", e->graph_deleted_ms);
    }
    /* Default-mode entries read exactly as before the cuda mode existed. */
    if (!e->cuda)
        return;
    sc_json_member_cstr(b, first, "semantics", "cuda");
    sc_json_key(b, first, "captures");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < e->ncaptures; i++) {
        if (i)
            sc_buf_putc(b, ',');
        write_log_capture(b, &e->captures[i]);
    }
    sc_buf_putc(b, ']');
}

static void log_listed(void *arg, int rc, sc_log_page *page, const char *errmsg)
{
    sc_async *a = arg;
    if (rc != 0) {
        sc_log_store_error(a->d, rc, errmsg, (uint32_t)a->c->uid, a->c->pid,
                           "listing the capture log");
        sc_rpc_error err = {0};
        sc_store_rpc_error(&err, rc, errmsg);
        sc_async_error(a, &err);
    } else {
        sc_buf *b = sc_async_result_begin(a);
        bool first, first_e;
        sc_json_obj_begin(b, &first);
        sc_json_key(b, &first, "entries");
        sc_buf_putc(b, '[');
        for (size_t i = 0; i < page->count; i++) {
            if (i)
                sc_buf_putc(b, ',');
            sc_json_obj_begin(b, &first_e);
            write_log_entry(b, &first_e, &page->entries[i]);
            sc_json_obj_end(b);
        }
        sc_buf_putc(b, ']');
        if (page->has_more) {
            sc_json_key(b, &first, "next");
            write_log_cursor(b, page->next_opened_ms, page->next_session);
        }
        sc_json_obj_end(b);
        sc_async_result_end(a, b);
    }
    sc_log_page_free(page);
    sc_async_done(a);
    free(a);
}

static int parse_log_cursor(sc_req *r, const char *s, sc_log_query *q)
{
    const char *p;
    if (s[0] != 'l' || !parse_i64(s + 1, &p, &q->before_opened_ms) || *p != '.' ||
        !parse_i64(p + 1, &p, &q->before_session) || *p)
        return bad_cursor(r, "log.list");
    q->has_before = true;
    return 0;
}

int sc_h_log_list(sc_req *r)
{
    sc_log_query q = {0};
    const char *before = NULL, *outcome = NULL, *host = NULL;
    size_t before_len = 0, outcome_len = 0, host_len = 0;
    if (get_limit(r, &q.limit) != 0 ||
        sc_param_opt_string(r->params, "before", &before, &before_len, &r->err) != 0 ||
        sc_param_opt_string(r->params, "outcome", &outcome, &outcome_len, &r->err) != 0 ||
        sc_param_opt_string(r->params, "host", &host, &host_len, &r->err) != 0)
        return H_ERROR;
    if (!own_host_filter(r, &host, &host_len))
        return empty_page(r, "entries");
    /* The store copies the host at the call. */
    q.host = host;
    q.host_len = host_len;
    if (before && parse_log_cursor(r, before, &q) != 0)
        return H_ERROR;
    if (sc_req_outcome(r, outcome, outcome_len, &q.outcome) != 0)
        return H_ERROR;
    q.any_owner = sc_may_access_all(r->c);
    q.uid = (uint32_t)r->c->uid;
    sc_async *a = calloc(1, sizeof(*a));
    if (!a)
        return sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    if (sc_store_list_log(r->d->store, &q, log_listed, a) != 0) {
        free(a);
        return sc_req_store_unavailable(r);
    }
    sc_async_start(a, r);
    return H_ASYNC;
}
