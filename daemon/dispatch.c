/*
 * dispatch.c - JSON-RPC requests to the capture model and the store.
 *
 * A connection executes one line at a time: a request or a batch.  Most
 * requests finish synchronously and their reply goes straight into the
 * connection's output.  Requests that need the store go async.
 *
 * A store write that ends a session (session.close, capture.end) on a line
 * of its own is held: the connection goes on with its next requests while
 * the commit runs, and their replies wait behind the write's in an sc_held,
 * so replies still leave in request order.  The session is already out of
 * the table, so capture and session requests may run behind the write;
 * anything that reads the store waits until the connection's held writes
 * are committed, so it observes every write sent before it.  Other async
 * requests (session.open among them) stop the connection until their reply
 * is written, placed behind any held write's.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_handlers.h"

/* A busy connection keeps its document's storage from line to line; one
 * that grew past this for a huge line gives it back once the line is done. */
#define SC_DOC_KEEP_BYTES (16u << 20)

typedef int (*sc_handler)(sc_req *r);

/* ---------------------------------------------------------------- replies */

static bool in_batch(const sc_conn *c)
{
    return c->cur_batch;
}

/* Where a reply written now goes: behind the last held write, if any. */
static sc_buf *out_buf(sc_conn *c)
{
    return c->held_tail ? &c->held_tail->after : &c->out;
}

static sc_buf *reply_begin(sc_conn *c, bool notification)
{
    if (notification) {
        sc_buf_reset(&c->scratch);
        return &c->scratch;
    }
    if (!in_batch(c))
        return out_buf(c);
    sc_buf_putc(&c->batch, c->batch_replies++ ? ',' : '[');
    return &c->batch;
}

static void reply_end(sc_conn *c, bool notification)
{
    if (!notification && !in_batch(c))
        sc_buf_putc(out_buf(c), '\n');
}

static void reply_error(sc_conn *c, sc_jval id, bool notification, const sc_rpc_error *err)
{
    sc_buf *b = reply_begin(c, notification);
    sc_rpc_write_error(b, id, err);
    reply_end(c, notification);
}

sc_buf *sc_req_result_begin(sc_req *r)
{
    sc_buf *b = reply_begin(r->c, r->notification);
    sc_rpc_result_begin(b, r->id);
    return b;
}

int sc_req_result_end(sc_req *r, sc_buf *b)
{
    sc_rpc_result_end(b);
    reply_end(r->c, r->notification);
    return H_DONE;
}

int sc_req_empty(sc_req *r)
{
    sc_buf *b = sc_req_result_begin(r);
    sc_buf_puts(b, "{}");
    return sc_req_result_end(r, b);
}

/* A line's reply written outside any request (parse errors, limits). */
static void reply_line_error(sc_conn *c, int code, const char *msg)
{
    sc_rpc_error err = {0};
    sc_rpc_fail(&err, code, "%s", msg);
    sc_rpc_write_error(out_buf(c), SC_JVAL_NONE, &err);
    sc_buf_putc(out_buf(c), '\n');
}

/* ------------------------------------------------------------ async glue */

/* Held writes per connection; past this, a write makes the connection wait. */
#define SC_HELD_MAX 64

static void held_free(sc_held *h)
{
    sc_buf_free(&h->reply);
    sc_buf_free(&h->after);
    sc_jdoc_free(&h->id_doc);
    free(h);
}

/*
 * A held write outlives its line, so it keeps its own copy of the id: the
 * id is written out and parsed into the sc_held's document.  NULL when
 * memory runs out (the request then waits like any other).
 */
static sc_held *held_new(sc_jval id)
{
    sc_held *h = calloc(1, sizeof(*h));
    if (!h)
        return NULL;
    sc_buf text;
    sc_buf_init(&text);
    sc_rpc_result_begin(&text, id);
    sc_rpc_error err = {0};
    /* {"jsonrpc":"2.0","id":<id>,"result":} is a complete object once
     * closed with a null result: parse it and point at the id member. */
    sc_buf_puts(&text, "null}");
    if (sc_buf_failed(&text) || sc_jdoc_parse(&h->id_doc, text.data, text.len, &err) != 0) {
        sc_buf_free(&text);
        held_free(h);
        return NULL;
    }
    sc_buf_free(&text);
    return h;
}

void sc_async_start(sc_async *a, sc_req *r)
{
    sc_conn *c = r->c;
    a->d = r->d;
    a->c = c;
    a->id = r->id;
    a->notification = r->notification;
    a->held = NULL;
    /* A notification has no reply to keep in order: it waits as before. */
    if (r->may_hold && !r->notification && !c->cur_batch && c->nheld < SC_HELD_MAX &&
        (a->held = held_new(r->id)) != NULL) {
        a->id = sc_jval_get(sc_jdoc_root(&a->held->id_doc), "id", 2);
        if (c->held_tail)
            c->held_tail->next = a->held;
        else
            c->held_head = a->held;
        c->held_tail = a->held;
        c->nheld++;
        r->held = true;
    }
    sc_conn_ref(c);
    r->d->inflight++;
}

sc_buf *sc_async_result_begin(sc_async *a)
{
    sc_buf *b = a->held ? &a->held->reply : reply_begin(a->c, a->notification);
    sc_rpc_result_begin(b, a->id);
    return b;
}

void sc_async_result_end(sc_async *a, sc_buf *b)
{
    sc_rpc_result_end(b);
    if (a->held)
        sc_buf_putc(b, '\n');
    else
        reply_end(a->c, a->notification);
}

void sc_async_error(sc_async *a, const sc_rpc_error *err)
{
    if (!a->held) {
        reply_error(a->c, a->id, a->notification, err);
        return;
    }
    sc_rpc_write_error(&a->held->reply, a->id, err);
    sc_buf_putc(&a->held->reply, '\n');
}

/* Move the replies of the held writes that are done, in order, to the
 * connection's output; stop at the first still in flight. */
static void release_held(sc_conn *c)
{
    while (c->held_head && c->held_head->done) {
        sc_held *h = c->held_head;
        sc_buf_append(&c->out, h->reply.data, h->reply.len);
        sc_buf_append(&c->out, h->after.data, h->after.len);
        c->held_head = h->next;
        if (!c->held_head)
            c->held_tail = NULL;
        c->nheld--;
        held_free(h);
    }
}

static void free_held(sc_conn *c)
{
    while (c->held_head) {
        sc_held *h = c->held_head;
        c->held_head = h->next;
        held_free(h);
    }
    c->held_tail = NULL;
    c->nheld = 0;
}

/* The request's reply is written: let the connection go on. */
void sc_async_done(sc_async *a)
{
    sc_conn *c = a->c;
    sc_daemon *d = a->d;
    d->inflight--;
    if (a->held) {
        a->held->done = true;
        release_held(c);
        /* A request waiting for quiet runs now (its line did not move). */
        if (c->quiet_wait && !c->held_head) {
            c->quiet_wait = false;
            c->waiting = false;
        }
    } else {
        c->waiting = false;
        if (c->cur_line)
            c->cur_item = c->doc.tok[c->cur_item].end;
    }
    if (!c->closing) {
        sc_dispatch_process(c);
        sc_conn_flush(c);
        sc_conn_recycle_input(c);
        if ((d->stopping || c->peer_eof || c->close_after_flush) && sc_conn_idle(c))
            sc_conn_close_after_flush(c);
        else
            sc_conn_update_reading(c);
    }
    sc_conn_unref(c);
    sc_server_check_stopped(d);
}

/* -------------------------------------------------------------- helpers */

bool sc_may_access(const sc_conn *c, uint32_t owner_uid)
{
    return c->uid == 0 || (uint32_t)c->uid == owner_uid;
}

int sc_req_fail(sc_req *r, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    r->err.code = code;
    r->err.field = NULL;
    r->err.what = NULL;
    vsnprintf(r->err.message, sizeof(r->err.message), fmt, ap);
    va_end(ap);
    return H_ERROR;
}

int sc_req_not_found(sc_req *r, const char *what, uint64_t id)
{
    sc_rpc_fail(&r->err, SC_RPC_NOT_FOUND, "%s %llu not found", what, (unsigned long long)id);
    r->err.what = what;
    return H_ERROR;
}

int sc_req_denied(sc_req *r, const char *what, uint64_t id)
{
    sc_rpc_fail(&r->err, SC_RPC_PERMISSION_DENIED, "%s %llu belongs to another user", what,
                (unsigned long long)id);
    return H_ERROR;
}

/* Map a core error to the protocol's code and the spec's message. */
static int core_error(sc_rpc_error *err, int rc, uint32_t stream)
{
    int code;
    switch (rc) {
    case SC_EALREADY:
    case SC_ENOTCAPTURING:
        code = SC_RPC_CAPTURE_STATE;
        break;
    case SC_EINVALIDATED:
    case SC_EILLEGAL:
    case SC_EPOISONED:
        code = SC_RPC_INVALIDATED;
        break;
    case SC_ELIMIT:
        code = SC_RPC_LIMIT;
        break;
    default:
        code = SC_RPC_INTERNAL_ERROR;
        break;
    }
    err->code = code;
    err->field = NULL;
    err->what = NULL;
    sc_error_message(rc, stream, err->message, sizeof(err->message));
    return code;
}

static int capture_fail(sc_req *r, int rc, uint32_t stream)
{
    core_error(&r->err, rc, stream);
    return H_ERROR;
}

/*
 * The session named by params.session, owned by the caller.  Permission is
 * checked before any other parameter so a denied call changes nothing.
 */
static sc_session *get_session(sc_req *r)
{
    uint64_t id;
    if (sc_param_id(r->params, "session", true, &id, &r->err) != 0)
        return NULL;
    sc_session *s = sc_sessions_find(&r->d->sessions, id);
    if (!s) {
        sc_req_not_found(r, "session", id);
        return NULL;
    }
    if (!sc_may_access(r->c, s->uid)) {
        sc_req_denied(r, "session", id);
        return NULL;
    }
    sc_sessions_touch(&r->d->sessions, s, uv_now(r->d->loop));
    return s;
}

static int get_stream(sc_req *r, uint32_t *stream)
{
    return sc_param_u32(r->params, "stream", true, stream, &r->err) == 0 ? 0 : -1;
}

static int check_node_limit(sc_req *r, const sc_session *s)
{
    if (sc_capture_node_count(s->cap) < r->d->cfg.max_session_nodes)
        return 0;
    sc_rpc_fail(&r->err, SC_RPC_LIMIT, "session node limit reached (%u nodes)",
                (unsigned)r->d->cfg.max_session_nodes);
    return -1;
}

static void store_ignore(void *arg, const sc_store_result *res)
{
    sc_daemon *d = arg;
    if (res->rc != SC_STORE_OK)
        sc_log(d, SC_LOG_ERROR, "capture log update failed: %s",
               res->errmsg ? res->errmsg : "store error");
}

/*
 * A session's final log update that nobody waits for.  When the database
 * refuses it (full, locked), it is kept and tried again by the sweep, so a
 * row is not left `open` once storage recovers; ENOTFOUND means the row is
 * already final.
 */
typedef struct sc_log_retry {
    sc_daemon *d;
    int64_t session;
    const char *outcome; /* static */
    uint32_t node_count;
    int64_t ended_ms;
    struct sc_log_retry *next;
} sc_log_retry;

static void log_update_done(void *arg, const sc_store_result *res)
{
    sc_log_retry *r = arg;
    sc_daemon *d = r->d;
    if (res->rc == SC_STORE_EIO && !d->stopping) {
        sc_log(d, SC_LOG_WARN, "session %lld: logging outcome %s failed (%s); will retry",
               (long long)r->session, r->outcome, res->errmsg ? res->errmsg : "store error");
        r->next = d->log_retries;
        d->log_retries = r;
        return;
    }
    if (res->rc != SC_STORE_OK && res->rc != SC_STORE_ENOTFOUND)
        sc_log(d, SC_LOG_ERROR, "session %lld: could not log outcome %s", (long long)r->session,
               r->outcome);
    free(r);
}

static void log_update_queue(sc_log_retry *r)
{
    if (sc_store_log_end(r->d->store, r->session, r->outcome, r->node_count, r->ended_ms,
                         log_update_done, r) == 0)
        return;
    sc_log(r->d, SC_LOG_ERROR, "session %lld: could not log outcome %s", (long long)r->session,
           r->outcome);
    free(r);
}

/* Finish a session's log row without waiting for the commit. */
static void log_end_detached(sc_daemon *d, const sc_session *s, const char *outcome,
                             uint32_t node_count)
{
    sc_log_retry *r = calloc(1, sizeof(*r));
    if (!r) {
        sc_log(d, SC_LOG_ERROR, "session %llu: out of memory logging outcome %s",
               (unsigned long long)s->id, outcome);
        return;
    }
    r->d = d;
    r->session = (int64_t)s->id;
    r->outcome = outcome;
    r->node_count = node_count;
    r->ended_ms = sc_now_ms();
    log_update_queue(r);
}

void sc_dispatch_retry_log(sc_daemon *d)
{
    sc_log_retry *r = d->log_retries;
    d->log_retries = NULL;
    while (r) {
        sc_log_retry *next = r->next;
        log_update_queue(r);
        r = next;
    }
}

void sc_dispatch_free_retries(sc_daemon *d)
{
    while (d->log_retries) {
        sc_log_retry *r = d->log_retries;
        d->log_retries = r->next;
        free(r);
    }
}

int sc_store_rpc_error(sc_rpc_error *err, int rc, const char *errmsg)
{
    if (rc == SC_STORE_ECLOSED)
        return sc_rpc_fail(err, SC_RPC_SHUTTING_DOWN, "daemon is shutting down");
    if (rc == SC_STORE_ENOMEM)
        return sc_rpc_fail(err, SC_RPC_INTERNAL_ERROR, "out of memory");
    return sc_rpc_fail(err, SC_RPC_STORAGE, "storage error: %s",
                       errmsg ? errmsg : "database failed");
}

int sc_req_store_unavailable(sc_req *r)
{
    return sc_req_fail(r, r->d->stopping ? SC_RPC_SHUTTING_DOWN : SC_RPC_STORAGE, "%s",
                       r->d->stopping ? "daemon is shutting down" : "storage is unavailable");
}

/* ------------------------------------------------------- session.* */

typedef struct open_ctx {
    sc_async a;
    char *label;
    size_t label_len;
    uint32_t uid;
    int64_t pid;
} open_ctx;

static void session_opened(void *arg, const sc_store_result *res)
{
    open_ctx *o = arg;
    sc_daemon *d = o->a.d;
    sc_rpc_error err = {0};
    d->opening_sessions--;
    if (res->rc != SC_STORE_OK) {
        sc_store_rpc_error(&err, res->rc, res->errmsg);
        sc_async_error(&o->a, &err);
        goto out;
    }
    sc_session *s = calloc(1, sizeof(*s));
    if (!s || sc_capture_create(&s->cap) != 0) {
        free(s);
        sc_store_log_end(d->store, res->id, "failed", 0, sc_now_ms(), store_ignore, d);
        sc_rpc_fail(&err, SC_RPC_INTERNAL_ERROR, "out of memory");
        sc_async_error(&o->a, &err);
        goto out;
    }
    s->id = (uint64_t)res->id;
    s->uid = o->uid;
    s->pid = o->pid;
    s->label = o->label;
    s->label_len = o->label_len;
    o->label = NULL;
    if (d->stopping) {
        /* Its row exists; it never got to live. */
        log_end_detached(d, s, "shutdown", 0);
        sc_session_free(s);
        sc_rpc_fail(&err, SC_RPC_SHUTTING_DOWN, "daemon is shutting down");
        sc_async_error(&o->a, &err);
        goto out;
    }
    if (sc_sessions_insert(&d->sessions, s) != 0) {
        log_end_detached(d, s, "failed", 0);
        sc_session_free(s);
        sc_rpc_fail(&err, SC_RPC_INTERNAL_ERROR, "out of memory");
        sc_async_error(&o->a, &err);
        goto out;
    }
    sc_sessions_touch(&d->sessions, s, uv_now(d->loop));
    sc_buf *b = sc_async_result_begin(&o->a);
    sc_buf_puts(b, "{\"session\":");
    sc_json_u64(b, s->id);
    sc_buf_putc(b, '}');
    sc_async_result_end(&o->a, b);
out:
    sc_async_done(&o->a);
    free(o->label);
    free(o);
}

int sc_h_session_open(sc_req *r)
{
    const char *label = NULL;
    size_t label_len = 0;
    if (sc_param_string(r->params, "label", false, &label, &label_len, &r->err) < 0)
        return H_ERROR;
    sc_daemon *d = r->d;
    if (d->sessions.count + d->opening_sessions >= d->cfg.max_sessions) {
        sc_rpc_fail(&r->err, SC_RPC_LIMIT, "session limit reached (%u sessions)",
                    d->cfg.max_sessions);
        return H_ERROR;
    }
    open_ctx *o = calloc(1, sizeof(*o));
    if (!o)
        return sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    if (label) {
        o->label = malloc(label_len + 1);
        if (!o->label) {
            free(o);
            return sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
        }
        memcpy(o->label, label, label_len);
        o->label[label_len] = '\0';
        o->label_len = label_len;
    }
    o->uid = (uint32_t)r->c->uid;
    o->pid = r->c->pid;
    if (sc_store_log_open(d->store, o->uid, o->pid, o->label, o->label_len, sc_now_ms(),
                          session_opened, o) != 0) {
        free(o->label);
        free(o);
        return sc_req_store_unavailable(r);
    }
    sc_async_start(&o->a, r);
    d->opening_sessions++;
    return H_ASYNC;
}

typedef struct end_ctx {
    sc_async a;
    sc_session *s;
    sc_graph *g;
    int core_rc;
    uint32_t stream;
} end_ctx;

static void end_ctx_free(end_ctx *e)
{
    sc_graph_destroy(e->g);
    sc_session_free(e->s);
    free(e);
}

/* session.close and a failed capture.end: the log row is final. */
static void session_logged(void *arg, const sc_store_result *res)
{
    end_ctx *e = arg;
    sc_rpc_error err = {0};
    if (e->core_rc != 0) {
        /* The capture error is the answer; a log failure is only logged. */
        store_ignore(e->a.d, res);
        core_error(&err, e->core_rc, e->stream);
        sc_async_error(&e->a, &err);
    } else if (res->rc != SC_STORE_OK) {
        sc_store_rpc_error(&err, res->rc, res->errmsg);
        sc_async_error(&e->a, &err);
    } else {
        sc_buf *b = sc_async_result_begin(&e->a);
        sc_buf_puts(b, "{}");
        sc_async_result_end(&e->a, b);
    }
    sc_async_done(&e->a);
    end_ctx_free(e);
}

int sc_h_session_close(sc_req *r)
{
    sc_session *s = get_session(r);
    if (!s)
        return H_ERROR;
    end_ctx *e = calloc(1, sizeof(*e));
    if (!e)
        return sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    uint32_t nodes = sc_capture_node_count(s->cap);
    if (sc_store_log_end(r->d->store, (int64_t)s->id, "closed", nodes, sc_now_ms(), session_logged,
                         e) != 0) {
        free(e);
        return sc_req_store_unavailable(r);
    }
    sc_sessions_remove(&r->d->sessions, s);
    e->s = s;
    sc_async_start(&e->a, r);
    return H_ASYNC;
}

int sc_h_session_info(sc_req *r)
{
    sc_session *s = get_session(r);
    if (!s)
        return H_ERROR;
    sc_buf *b = sc_req_result_begin(r);
    sc_buf_puts(b, "{\"session\":");
    sc_json_u64(b, s->id);
    sc_buf_puts(b, ",\"label\":");
    sc_json_string(b, s->label ? s->label : "", s->label_len);
    sc_buf_puts(b, ",\"capturing\":");
    sc_json_bool(b, sc_capture_is_capturing(s->cap));
    sc_buf_puts(b, ",\"node_count\":");
    sc_json_u64(b, sc_capture_node_count(s->cap));
    sc_buf_puts(b, ",\"streams\":[");
    uint32_t n = sc_capture_stream_count(s->cap);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t stream;
        sc_status st;
        sc_capture_stream_at(s->cap, i, &stream, &st);
        sc_buf_puts(b, i ? ",{\"stream\":" : "{\"stream\":");
        sc_json_u64(b, stream);
        sc_buf_puts(b, ",\"status\":");
        sc_json_cstr(b, sc_status_name(st));
        sc_buf_putc(b, '}');
    }
    sc_buf_puts(b, "]}");
    return sc_req_result_end(r, b);
}

/* ------------------------------------------------------- capture.* */

static int reply_node(sc_req *r, uint32_t node)
{
    sc_buf *b = sc_req_result_begin(r);
    sc_buf_puts(b, "{\"node\":");
    sc_json_u64(b, node);
    sc_buf_putc(b, '}');
    return sc_req_result_end(r, b);
}

int sc_h_capture_begin(sc_req *r)
{
    uint32_t stream;
    sc_session *s = get_session(r);
    if (!s || get_stream(r, &stream) != 0)
        return H_ERROR;
    int rc = sc_capture_begin(s->cap, stream);
    return rc ? capture_fail(r, rc, stream) : sc_req_empty(r);
}

int sc_h_capture_record_kernel(sc_req *r)
{
    uint32_t stream, blocks, threads, shared = 0, node;
    const char *name;
    size_t len;
    sc_session *s = get_session(r);
    if (!s || get_stream(r, &stream) != 0 ||
        sc_param_string(r->params, "function_name", true, &name, &len, &r->err) != 0 ||
        sc_param_u32(r->params, "num_blocks", true, &blocks, &r->err) != 0 ||
        sc_param_u32(r->params, "threads_per_block", true, &threads, &r->err) != 0 ||
        sc_param_u32(r->params, "shared_mem", false, &shared, &r->err) < 0 ||
        check_node_limit(r, s) != 0)
        return H_ERROR;
    int rc = sc_capture_record_kernel(s->cap, stream, name, len, blocks, threads, shared, &node);
    return rc ? capture_fail(r, rc, stream) : reply_node(r, node);
}

static int get_dir(sc_req *r, sc_memcpy_dir *dir)
{
    const char *s;
    size_t len;
    if (sc_param_string(r->params, "dir", true, &s, &len, &r->err) != 0)
        return -1;
    if (sc_memcpy_dir_parse(s, len, dir) == 0)
        return 0;
    sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS,
                "invalid params: 'dir' must be one of host_to_device, device_to_host, "
                "device_to_device, peer_to_peer");
    r->err.field = "dir";
    return -1;
}

int sc_h_capture_record_memcpy(sc_req *r)
{
    uint32_t stream, node, src = 0, dst = 0;
    uint64_t size;
    sc_memcpy_dir dir;
    const char *name;
    size_t len;
    sc_session *s = get_session(r);
    if (!s || get_stream(r, &stream) != 0 ||
        sc_param_string(r->params, "name", true, &name, &len, &r->err) != 0 ||
        get_dir(r, &dir) != 0 ||
        sc_param_u64(r->params, "size_bytes", true, SC_JSON_MAX_EXACT, &size, &r->err) != 0)
        return H_ERROR;
    /* Devices are only meaningful (and then required) for peer_to_peer. */
    bool p2p = dir == SC_DIR_PEER_TO_PEER;
    if (sc_param_u32(r->params, "src_device", p2p, &src, &r->err) < 0 ||
        sc_param_u32(r->params, "dst_device", p2p, &dst, &r->err) < 0 ||
        check_node_limit(r, s) != 0)
        return H_ERROR;
    if (!p2p)
        src = dst = 0;
    int rc = sc_capture_record_memcpy(s->cap, stream, name, len, dir, size, src, dst, &node);
    return rc ? capture_fail(r, rc, stream) : reply_node(r, node);
}

int sc_h_capture_record_memset(sc_req *r)
{
    uint32_t stream, node;
    uint64_t size, value;
    const char *name;
    size_t len;
    sc_session *s = get_session(r);
    if (!s || get_stream(r, &stream) != 0 ||
        sc_param_string(r->params, "name", true, &name, &len, &r->err) != 0 ||
        sc_param_u64(r->params, "size_bytes", true, SC_JSON_MAX_EXACT, &size, &r->err) != 0 ||
        sc_param_u64(r->params, "value", true, 255, &value, &r->err) != 0 ||
        check_node_limit(r, s) != 0)
        return H_ERROR;
    int rc = sc_capture_record_memset(s->cap, stream, name, len, size, (uint8_t)value, &node);
    return rc ? capture_fail(r, rc, stream) : reply_node(r, node);
}

int sc_h_capture_record_host_callback(sc_req *r)
{
    uint32_t stream, node;
    const char *label;
    size_t len;
    sc_session *s = get_session(r);
    if (!s || get_stream(r, &stream) != 0 ||
        sc_param_string(r->params, "label", true, &label, &len, &r->err) != 0 ||
        check_node_limit(r, s) != 0)
        return H_ERROR;
    int rc = sc_capture_record_host_callback(s->cap, stream, label, len, &node);
    return rc ? capture_fail(r, rc, stream) : reply_node(r, node);
}

static int event_op(sc_req *r, int (*op)(sc_capture *, uint32_t, uint32_t))
{
    uint32_t stream, event;
    sc_session *s = get_session(r);
    if (!s || get_stream(r, &stream) != 0 ||
        sc_param_u32(r->params, "event", true, &event, &r->err) != 0)
        return H_ERROR;
    int rc = op(s->cap, stream, event);
    return rc ? capture_fail(r, rc, stream) : sc_req_empty(r);
}

int sc_h_capture_record_event(sc_req *r)
{
    return event_op(r, sc_capture_record_event);
}

int sc_h_capture_wait_event(sc_req *r)
{
    return event_op(r, sc_capture_wait_event);
}

int sc_h_capture_status(sc_req *r)
{
    uint32_t stream;
    sc_session *s = get_session(r);
    if (!s || get_stream(r, &stream) != 0)
        return H_ERROR;
    sc_buf *b = sc_req_result_begin(r);
    sc_buf_puts(b, "{\"status\":");
    sc_json_cstr(b, sc_status_name(sc_capture_status(s->cap, stream)));
    sc_buf_putc(b, '}');
    return sc_req_result_end(r, b);
}

int sc_h_capture_is_capturing(sc_req *r)
{
    sc_session *s = get_session(r);
    if (!s)
        return H_ERROR;
    sc_buf *b = sc_req_result_begin(r);
    sc_buf_puts(b, "{\"capturing\":");
    sc_json_bool(b, sc_capture_is_capturing(s->cap));
    sc_buf_putc(b, '}');
    return sc_req_result_end(r, b);
}

int sc_h_capture_node_count(sc_req *r)
{
    sc_session *s = get_session(r);
    if (!s)
        return H_ERROR;
    sc_buf *b = sc_req_result_begin(r);
    sc_buf_puts(b, "{\"node_count\":");
    sc_json_u64(b, sc_capture_node_count(s->cap));
    sc_buf_putc(b, '}');
    return sc_req_result_end(r, b);
}

int sc_h_capture_invalidate(sc_req *r)
{
    uint32_t stream;
    sc_session *s = get_session(r);
    if (!s || get_stream(r, &stream) != 0)
        return H_ERROR;
    int rc = sc_capture_invalidate(s->cap, stream);
    return rc ? capture_fail(r, rc, stream) : sc_req_empty(r);
}

static void graph_committed(void *arg, const sc_store_result *res)
{
    end_ctx *e = arg;
    sc_rpc_error err = {0};
    if (res->rc != SC_STORE_OK) {
        /* Nothing of the graph is stored; the session is gone either way. */
        sc_store_rpc_error(&err, res->rc, res->errmsg);
        sc_async_error(&e->a, &err);
        if (res->rc != SC_STORE_ECLOSED)
            log_end_detached(e->a.d, e->s, "failed", sc_graph_node_count(e->g));
    } else {
        sc_buf *b = sc_async_result_begin(&e->a);
        sc_buf_puts(b, "{\"graph\":");
        sc_json_i64(b, res->id);
        sc_buf_puts(b, ",\"node_count\":");
        sc_json_u64(b, sc_graph_node_count(e->g));
        sc_buf_puts(b, ",\"edge_count\":");
        sc_json_u64(b, sc_graph_edge_count(e->g));
        sc_buf_putc(b, '}');
        sc_async_result_end(&e->a, b);
    }
    sc_async_done(&e->a);
    end_ctx_free(e);
}

int sc_h_capture_end(sc_req *r)
{
    uint32_t stream;
    sc_session *s = get_session(r);
    if (!s || get_stream(r, &stream) != 0)
        return H_ERROR;
    end_ctx *e = calloc(1, sizeof(*e));
    if (!e)
        return sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    /* The end consumes the session whatever it returns (spec 4.9). */
    sc_daemon *d = r->d;
    sc_sessions_remove(&d->sessions, s);
    uint32_t nodes = sc_capture_node_count(s->cap);
    e->s = s;
    e->stream = stream;
    e->core_rc = sc_capture_end(s->cap, stream, &e->g);
    s->cap = NULL;
    int rc;
    if (e->core_rc != 0)
        rc = sc_store_log_end(d->store, (int64_t)s->id, "failed", nodes, sc_now_ms(),
                              session_logged, e);
    else
        rc = sc_store_commit_graph(d->store, (int64_t)s->id, e->g, s->uid, s->pid, s->label,
                                   s->label_len, sc_now_ms(), graph_committed, e);
    if (rc != 0) {
        end_ctx_free(e);
        return sc_req_store_unavailable(r);
    }
    sc_async_start(&e->a, r);
    return H_ASYNC;
}

/* ------------------------------------------------------- server.* */

int sc_h_server_info(sc_req *r)
{
    sc_daemon *d = r->d;
    int64_t graphs = 0;
    if (d->store)
        sc_store_graph_count(d->store, &graphs);
    sc_buf *b = sc_req_result_begin(r);
    sc_buf_puts(b, "{\"version\":");
    sc_json_cstr(b, SC_VERSION);
    sc_buf_puts(b, ",\"uptime_s\":");
    sc_json_u64(b, (uv_hrtime() - d->start_hr) / 1000000000u);
    sc_buf_puts(b, ",\"connections\":");
    sc_json_u64(b, d->nconns);
    sc_buf_puts(b, ",\"sessions\":");
    sc_json_u64(b, d->sessions.count);
    sc_buf_puts(b, ",\"graphs\":");
    sc_json_i64(b, graphs);
    sc_buf_puts(b, ",\"db_path\":");
    sc_json_cstr(b, d->cfg.db_path);
    sc_buf_putc(b, '}');
    return sc_req_result_end(r, b);
}

/* The method table decides which handlers exist: one per entry. */
static const sc_handler handlers[SC_M__COUNT] = {
#define SC_X_HANDLER(id, handler, name, params, result, summary) [SC_M_##id] = sc_h_##handler,
    SC_METHODS(SC_X_HANDLER)
#undef SC_X_HANDLER
};

/* ------------------------------------------------------- execution */

/* Returned by run_one: the request reads the store and held writes are in
 * flight; it runs again once they are done. */
#define H_QUIET 3

/*
 * The writes that need not hold up the requests after them: they take
 * their session out of the table at once.  session.open is not one: the
 * session it makes exists only once the commit is done, and a request
 * after it naming that session must find it.
 */
static bool may_hold(int method)
{
    return method == SC_M_SESSION_CLOSE || method == SC_M_CAPTURE_END;
}

/*
 * One batch may not make the daemon buffer more than this in replies: a
 * line of graph.get calls would otherwise multiply a small request into
 * gigabytes.  Later elements are answered 1006 without being run.
 */
#define SC_BATCH_REPLY_MAX (64u << 20)

static int run_one(sc_conn *c, sc_jval item)
{
    sc_rpc_request req;
    sc_rpc_error err = {0};
    int rc = sc_rpc_decode(item, &req, &err);
    if (rc == SC_RPC_INVALID_REQUEST) {
        /* Not a valid request, so not a notification either: always answered. */
        reply_error(c, req.id, false, &err);
        return H_DONE;
    }
    if (c->cur_batch && c->batch.len > SC_BATCH_REPLY_MAX) {
        sc_rpc_fail(&err, SC_RPC_LIMIT, "batch replies exceed %u MiB; request not run",
                    SC_BATCH_REPLY_MAX >> 20);
        reply_error(c, req.id, req.notification, &err);
        return H_DONE;
    }
    if (c->d->stopping) {
        sc_rpc_fail(&err, SC_RPC_SHUTTING_DOWN, "daemon is shutting down");
        reply_error(c, req.id, req.notification, &err);
        return H_DONE;
    }
    if (rc != 0) {
        reply_error(c, req.id, req.notification, &err);
        return H_DONE;
    }
    int method = (int)req.desc->id;
    /* Session and capture requests see a held write's effect on the session
     * table already; anything else reads the store and waits for it. */
    if (c->held_head && !sc_method_on_session(req.desc->id))
        return H_QUIET;
    sc_req r = {.d = c->d,
                .c = c,
                .id = req.id,
                .params = req.params,
                .notification = req.notification,
                .may_hold = may_hold(method)};
    rc = handlers[method](&r);
    if (rc == H_ERROR)
        reply_error(c, req.id, req.notification, &r.err);
    return rc == H_ASYNC && !r.held ? H_ASYNC : H_DONE;
}

static size_t doc_bytes(const sc_jdoc *doc)
{
    return doc->text_cap + (size_t)doc->tok_cap * sizeof(sc_jtok) +
           (size_t)doc->slot_cap * sizeof(uint32_t);
}

static void finish_line(sc_conn *c)
{
    if (c->cur_batch && c->batch_replies > 0) {
        sc_buf_puts(&c->batch, "]\n");
        sc_buf_append(out_buf(c), c->batch.data, c->batch.len);
    }
    sc_buf_reset(&c->batch);
    sc_buf_reset(&c->scratch);
    if (doc_bytes(&c->doc) > SC_DOC_KEEP_BYTES)
        sc_jdoc_free(&c->doc);
    c->cur_line = false;
    c->cur_item = c->cur_end = 0;
    c->cur_batch = false;
    c->batch_replies = 0;
}

/* Run the current line's requests until one goes async or all are done. */
static void run_current(sc_conn *c)
{
    while (c->cur_item < c->cur_end) {
        sc_jval item = {&c->doc, c->cur_item};
        int rc = run_one(c, item);
        if (rc == H_QUIET)
            c->quiet_wait = true;
        if (rc == H_ASYNC || rc == H_QUIET) {
            c->waiting = true;
            return;
        }
        c->cur_item = c->doc.tok[item.i].end;
    }
    finish_line(c);
}

static bool blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return false;
    return true;
}

/* Parse the next buffered line into the connection's document.  false
 * when none is left. */
static bool next_line(sc_conn *c)
{
    for (;;) {
        const char *line;
        size_t len;
        int st = sc_framer_next(&c->in, &line, &len);
        if (st == SC_FRAME_NEED_MORE)
            return false;
        if (st == SC_FRAME_TOO_LONG) {
            reply_line_error(c, SC_RPC_INVALID_REQUEST, "message too large");
            sc_conn_close_after_flush(c);
            return false;
        }
        if (blank(line, len))
            continue;
        sc_rpc_error err = {0};
        if (sc_jdoc_parse(&c->doc, line, len, &err) != 0) {
            sc_rpc_write_error(out_buf(c), SC_JVAL_NONE, &err);
            sc_buf_putc(out_buf(c), '\n');
            continue;
        }
        const sc_jtok *root = &c->doc.tok[0];
        bool batch = root->type == SC_JARRAY;
        if (batch && root->u.c.count == 0) {
            reply_line_error(c, SC_RPC_INVALID_REQUEST, "invalid request: empty batch");
            continue;
        }
        /* A batch runs its elements, anything else is the one request. */
        c->cur_line = true;
        c->cur_batch = batch;
        c->cur_item = batch ? 1 : 0;
        c->cur_end = root->end;
        c->batch_replies = 0;
        return true;
    }
}

void sc_dispatch_process(sc_conn *c)
{
    while (!c->closing && !c->waiting && !c->close_after_flush && !sc_conn_congested(c)) {
        if (!c->cur_line && !next_line(c))
            return;
        if (c->cur_line)
            run_current(c);
    }
}

void sc_dispatch_discard(sc_conn *c)
{
    free_held(c);
    sc_jdoc_free(&c->doc);
    c->cur_line = false;
    c->cur_item = c->cur_end = 0;
}

/* ------------------------------------------------------- housekeeping */

void sc_dispatch_sweep_idle(sc_daemon *d)
{
    uint64_t now = uv_now(d->loop);
    uint64_t limit = (uint64_t)d->cfg.session_idle_timeout_s * 1000u;
    sc_session *s;
    while ((s = sc_sessions_oldest(&d->sessions)) && now - s->last_used_ms >= limit) {
        sc_sessions_remove(&d->sessions, s);
        sc_log(d, SC_LOG_INFO, "session %llu abandoned after %us idle", (unsigned long long)s->id,
               d->cfg.session_idle_timeout_s);
        log_end_detached(d, s, "abandoned", sc_capture_node_count(s->cap));
        sc_session_free(s);
    }
}

void sc_dispatch_shutdown_sessions(sc_daemon *d)
{
    sc_session *s;
    while ((s = sc_sessions_oldest(&d->sessions))) {
        sc_sessions_remove(&d->sessions, s);
        log_end_detached(d, s, "shutdown", sc_capture_node_count(s->cap));
        sc_session_free(s);
    }
}
