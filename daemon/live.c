/*
 * live.c - methods on live sessions: session.* and capture.*, and the
 * default ("oxicuda") semantics of those whose meaning depends on the
 * session's (sc_session_ops.h).
 *
 * A session lives in the daemon-wide table and its capture model answers
 * every capture.* request synchronously.  The handlers of the methods in
 * SC_SESSION_METHODS only call through the session's table; this file's
 * table is the default one, cuda_methods.c has cuda mode's.
 *
 * Opening a session waits for its log row; ending one (session.close,
 * capture.end) takes it out of the table at once and replies once the
 * store has committed its log row or graph.  Sessions that end without a
 * request (idle, shutdown) are here too.
 */
#include <stdlib.h>
#include <string.h>

#include "sc_access_node.h"
#include "sc_kargs_node.h"
#include "sc_session_ops.h"

static int capture_fail(sc_req *r, int rc, uint32_t stream)
{
    sc_core_rpc_error(&r->err, rc, stream);
    return H_ERROR;
}

static int get_stream(sc_req *r, uint32_t *stream)
{
    return sc_param_u32(r->params, "stream", stream, &r->err) == 0 ? 0 : -1;
}

static int check_node_limit(sc_req *r, const sc_session *s)
{
    return sc_req_node_room(r, s, sc_capture_node_count(s->cap));
}

/* Nodes a default-mode session holds: those of its capture. */
static uint32_t live_nodes(const sc_session *s)
{
    return sc_capture_node_count(s->cap);
}

static int create(sc_session *s)
{
    return sc_capture_create(&s->cap);
}

/* ------------------------------------------------------- session.* */

typedef struct open_ctx {
    sc_async a;
    char *label;
    size_t label_len;
    uint32_t uid;
    int64_t pid;
    int64_t opened_ms;
    const sc_session_ops *ops;
    bool bind;
} open_ctx;

/* Ends a live session nobody will use again; `why` completes the log line. */
static void abandon(sc_daemon *d, sc_session *s, const char *why)
{
    sc_sessions_remove(&d->sessions, s);
    sc_log(&d->log, SC_LOG_INFO, "session %llu abandoned: %s", (unsigned long long)s->id, why);
    sc_session_end_detached(d, s);
    sc_log_end_detached(d, s, "abandoned", sc_session_live_nodes(s));
    sc_session_free(s);
}

static void session_opened(void *arg, const sc_store_result *res)
{
    open_ctx *o = arg;
    sc_daemon *d = o->a.d;
    sc_rpc_error err = {0};
    d->opening_sessions--;
    sc_uid_use *u = sc_uids_find(&d->uids, o->uid);
    if (u) {
        /* Inserting the session counts it again, as a live one. */
        u->opening--;
        sc_uids_put(&d->uids, u);
    }
    if (res->rc != SC_STORE_OK) {
        sc_log_store_error(d, res->rc, res->errmsg, o->uid, o->pid,
                           "opening a session's capture-log row");
        sc_store_rpc_error(&err, res->rc, res->errmsg);
        sc_async_error(&o->a, &err);
        goto out;
    }
    sc_session *s = calloc(1, sizeof(*s));
    if (!s || o->ops->create(s) != 0) {
        if (s)
            sc_session_free(s);
        s = NULL;
        /* Its row exists and must not stay open: retried like any other end. */
        sc_session row = {.id = (uint64_t)res->id, .uid = o->uid, .pid = o->pid};
        sc_log_end_detached(d, &row, "failed", 0);
        sc_rpc_fail(&err, SC_RPC_INTERNAL_ERROR, "out of memory");
        sc_async_error(&o->a, &err);
        goto out;
    }
    s->id = (uint64_t)res->id;
    s->ops = o->ops;
    s->uid = o->uid;
    s->pid = o->pid;
    s->opened_ms = o->opened_ms;
    s->label = o->label;
    s->label_len = o->label_len;
    s->bound = o->bind;
    o->label = NULL;
    if (d->stopping) {
        /* Its row exists; it never got to live. */
        sc_log_end_detached(d, s, "shutdown", 0);
        sc_session_free(s);
        sc_rpc_fail(&err, SC_RPC_SHUTTING_DOWN, "daemon is shutting down");
        sc_async_error(&o->a, &err);
        goto out;
    }
    if (sc_sessions_insert(&d->sessions, s) != 0) {
        sc_log_end_detached(d, s, "failed", 0);
        sc_session_free(s);
        sc_rpc_fail(&err, SC_RPC_INTERNAL_ERROR, "out of memory");
        sc_async_error(&o->a, &err);
        goto out;
    }
    sc_sessions_touch(&d->sessions, s, uv_now(d->loop));
    sc_subs_emit(
        d,
        &(sc_event){.event = "session_opened", .uid = s->uid, .session = s->id, .outcome = "open"});
    if (o->a.c && !o->a.c->closing)
        sc_sessions_bind(s, o->a.c);
    else if (s->bound) {
        /* Its connection went while the row was being written: nobody
         * can use it, so it ends now rather than at the idle timeout. */
        abandon(d, s, "its connection closed before it opened");
        goto out;
    }
    sc_buf *b = sc_async_result_begin(&o->a);
    sc_json_obj_u64(b, "session", s->id);
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
    const char *sem = NULL; /* absent: the default */
    size_t sem_len = 0;
    bool bind = false;
    if (sc_param_opt_string(r->params, "label", &label, &label_len, &r->err) != 0 ||
        sc_param_opt_string(r->params, "semantics", &sem, &sem_len, &r->err) != 0 ||
        sc_param_opt_bool(r->params, "bind", &bind, &r->err) != 0)
        return H_ERROR;
    const sc_session_ops *ops = sc_session_ops_find(r, sem, sem_len);
    if (!ops)
        return H_ERROR;
    sc_daemon *d = r->d;
    if (d->sessions.count + d->opening_sessions >= d->cfg.max_sessions) {
        sc_rpc_fail(&r->err, SC_RPC_LIMIT, "session limit reached (%u sessions)",
                    d->cfg.max_sessions);
        return H_ERROR;
    }
    unsigned others = sc_nonroot_limit(d->cfg.max_sessions, d->cfg.root_reserved);
    if (r->c->uid != 0 && sc_uids_nonroot_sessions(&d->uids) >= others) {
        sc_rpc_fail(&r->err, SC_RPC_LIMIT,
                    "session limit reached for uids other than root (%u sessions, the rest "
                    "kept for root, --root-reserved)",
                    others);
        return H_ERROR;
    }
    sc_uid_use *u = sc_uids_get(&d->uids, (uint32_t)r->c->uid);
    if (!u)
        return sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    if (u->sessions + u->opening >= d->cfg.max_uid_sessions) {
        sc_uids_put(&d->uids, u);
        sc_rpc_fail(&r->err, SC_RPC_LIMIT,
                    "session quota of uid %u reached (%u sessions, --max-uid-sessions)",
                    (unsigned)r->c->uid, d->cfg.max_uid_sessions);
        return H_ERROR;
    }
    open_ctx *o = calloc(1, sizeof(*o));
    if (!o) {
        sc_uids_put(&d->uids, u);
        return sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    }
    if (sc_req_copy_string(r, label, label_len, &o->label) != 0) {
        free(o);
        sc_uids_put(&d->uids, u);
        return H_ERROR;
    }
    o->label_len = label_len;
    o->uid = (uint32_t)r->c->uid;
    o->pid = r->c->pid;
    o->opened_ms = sc_now_ms();
    o->bind = bind;
    o->ops = ops;
    if (sc_store_log_open_as(d->store, ops->semantics, o->uid, o->pid, o->label, o->label_len,
                             o->opened_ms, session_opened, o) != 0) {
        free(o->label);
        free(o);
        sc_uids_put(&d->uids, u);
        return sc_req_store_unavailable(r);
    }
    sc_async_start(&o->a, r);
    d->opening_sessions++;
    u->opening++;
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

/*
 * session.close and a failed capture.end, after the first try of the log
 * row.  The session is gone either way; a row the database refused is
 * retried until it takes it (log_retry.c), so it ends `closed` or `failed`,
 * never `lost`.  The capture error is a failed end's answer; a close whose
 * row is not written yet says so, since the client cannot retry it.
 */
static void session_logged(void *arg, const sc_store_result *res)
{
    end_ctx *e = arg;
    sc_rpc_error err = {0};
    const sc_session *s = e->s;
    if (e->core_rc != 0) {
        sc_core_rpc_error(&err, e->core_rc, e->stream);
        /* The failed end is durable as the session's final row. */
        if (res->rc == SC_STORE_OK)
            sc_subs_emit(e->a.d, &(sc_event){.event = "capture_ended",
                                             .uid = s->uid,
                                             .session = s->id,
                                             .outcome = "failed",
                                             .has_stream = true,
                                             .stream = e->stream,
                                             .rpc_code = err.code,
                                             .rpc_message = err.message});
        sc_async_error(&e->a, &err);
    } else if (res->rc == SC_STORE_EIO) {
        sc_rpc_fail(&err, SC_RPC_STORAGE,
                    "storage error: %s; session %llu is closed, its log row is written once the "
                    "database takes it",
                    res->errmsg ? res->errmsg : "database failed", (unsigned long long)s->id);
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
    sc_session *s = sc_req_session(r);
    if (!s)
        return H_ERROR;
    end_ctx *e = calloc(1, sizeof(*e));
    if (!e)
        return sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    uint32_t nodes = sc_session_live_nodes(s);
    /* Queued first, what its end stores besides the log row (the rows of
     * a cuda-mode session's discarded captures) commits before the reply. */
    sc_session_end_detached(r->d, s);
    if (sc_log_end_then(r->d, s, "closed", nodes, session_logged, e) != 0) {
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
    return sc_session_call(r, SC_SM_SESSION_INFO);
}

static int session_info(sc_req *r, sc_session *s)
{
    sc_buf *b = sc_req_result_begin(r);
    bool first, first_st;
    sc_json_obj_begin(b, &first);
    sc_json_member_u64(b, &first, "session", s->id);
    sc_json_member_str(b, &first, "label", s->label ? s->label : "", s->label_len);
    sc_json_member_bool(b, &first, "capturing", sc_capture_is_capturing(s->cap));
    sc_json_member_u64(b, &first, "node_count", sc_capture_node_count(s->cap));
    sc_json_key(b, &first, "streams");
    sc_buf_putc(b, '[');
    uint32_t n = sc_capture_stream_count(s->cap);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t stream;
        sc_status st;
        sc_capture_stream_at(s->cap, i, &stream, &st);
        if (i)
            sc_buf_putc(b, ',');
        sc_json_obj_begin(b, &first_st);
        sc_json_member_u64(b, &first_st, "stream", stream);
        sc_json_member_cstr(b, &first_st, "status", sc_status_name(st));
        sc_json_obj_end(b);
    }
    sc_buf_putc(b, ']');
    sc_json_obj_end(b);
    return sc_req_result_end(r, b);
}

static int by_id(const void *a, const void *b)
{
    uint64_t x = (*(sc_session *const *)a)->id, y = (*(sc_session *const *)b)->id;
    return x < y ? -1 : x > y;
}

static void session_entry(sc_buf *b, const sc_session *s)
{
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_member_u64(b, &first, "session", s->id);
    sc_json_key(b, &first, "label");
    if (s->label)
        sc_json_string(b, s->label, s->label_len);
    else
        sc_buf_puts(b, "null");
    sc_json_member_u64(b, &first, "owner_uid", s->uid);
    sc_json_member_i64(b, &first, "owner_pid", s->pid);
    sc_json_member_time_ms(b, &first, "opened_at", s->opened_ms);
    sc_json_member_cstr(b, &first, "semantics", s->ops->semantics);
    sc_json_member_u64(b, &first, "node_count", sc_session_live_nodes(s));
    sc_json_obj_end(b);
}

int sc_h_session_list(sc_req *r)
{
    sc_session_table *t = &r->d->sessions;
    /* The table is hashed; a reply in id order needs a sorted copy. */
    sc_session **v = malloc((t->count ? t->count : 1) * sizeof(*v));
    if (!v)
        return sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    size_t n = 0;
    for (sc_session *s = t->lru_head; s && n < t->count; s = s->lru_next) {
        if (sc_may_access(r->c, s->uid))
            v[n++] = s;
    }
    qsort(v, n, sizeof(*v), by_id);
    sc_buf *b = sc_req_result_begin(r);
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_key(b, &first, "sessions");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            sc_buf_putc(b, ',');
        session_entry(b, v[i]);
    }
    sc_buf_putc(b, ']');
    sc_json_obj_end(b);
    free(v);
    return sc_req_result_end(r, b);
}

/* ------------------------------------------------------- capture.* */

static int reply_node(sc_req *r, uint32_t node)
{
    sc_buf *b = sc_req_result_begin(r);
    sc_json_obj_u64(b, "node", node);
    return sc_req_result_end(r, b);
}

/*
 * Hand the nodes of a big capture to the store while it records
 * (sc_store.h, "Streaming"), --stream-nodes at a time, so that its
 * capture.end stores only the tail.  When the store cannot take a part
 * now, the nodes wait for the next one, or for the end.
 */
static void stream_nodes(sc_daemon *d, sc_session *s)
{
    uint32_t n = sc_capture_node_count(s->cap), every = d->cfg.stream_nodes;
    if (!every || n - sc_store_stream_next(s->stream) < every || !sc_store_can_stream(d->store))
        return;
    if (!s->stream && sc_store_stream_open(d->store, (int64_t)s->id, sc_now_ms(), &s->stream) != 0)
        return;
    (void)sc_store_stream_part(d->store, s->stream, s->cap, n);
}

/* The reply of a record op; a new node counts against the quotas at once. */
static int recorded(sc_req *r, sc_session *s, int rc, uint32_t stream, uint32_t node)
{
    if (rc)
        return capture_fail(r, rc, stream);
    sc_sessions_set_nodes(&r->d->sessions, s, sc_capture_node_count(s->cap));
    stream_nodes(r->d, s);
    return reply_node(r, node);
}

int sc_h_capture_begin(sc_req *r)
{
    return sc_session_call(r, SC_SM_CAPTURE_BEGIN);
}

static int capture_begin(sc_req *r, sc_session *s)
{
    uint32_t stream;
    if (get_stream(r, &stream) != 0)
        return H_ERROR;
    int rc = sc_capture_begin(s->cap, stream);
    if (rc)
        return capture_fail(r, rc, stream);
    /* The default mode's session has one capture: the session names it. */
    sc_subs_emit(r->d, &(sc_event){.event = "capture_begun",
                                   .uid = s->uid,
                                   .session = s->id,
                                   .has_stream = true,
                                   .stream = stream});
    return sc_req_empty(r);
}

int sc_h_capture_record_kernel(sc_req *r)
{
    return sc_session_call(r, SC_SM_CAPTURE_RECORD_KERNEL);
}

static int record_kernel(sc_req *r, sc_session *s)
{
    uint32_t stream, blocks, threads, shared = 0, node = 0;
    const char *name;
    size_t len;
    if (get_stream(r, &stream) != 0 ||
        sc_param_string(r->params, "function_name", &name, &len, &r->err) != 0 ||
        sc_param_u32(r->params, "num_blocks", &blocks, &r->err) != 0 ||
        sc_param_u32(r->params, "threads_per_block", &threads, &r->err) != 0 ||
        sc_param_opt_u32(r->params, "shared_mem", &shared, &r->err) != 0 ||
        check_node_limit(r, s) != 0)
        return H_ERROR;
    sc_kargs ka;
    if (sc_param_opt_kargs(r->params, &ka, &r->err) != 0)
        return H_ERROR;
    sc_node k = {.kind = SC_KIND_KERNEL,
                 .name = name,
                 .name_len = len,
                 .num_blocks = blocks,
                 .threads_per_block = threads,
                 .shared_mem = shared};
    if (sc_access_node_read(r->params, &k, &r->err) != 0)
        return H_ERROR;
    int rc = sc_kargs_node(&ka, &k);
    if (rc == 0)
        rc = sc_capture_record_kernel_node(s->cap, stream, &k, &node);
    sc_kargs_node_free(&k);
    return recorded(r, s, rc, stream, node);
}

static int get_dir(sc_req *r, sc_memcpy_dir *dir)
{
    const char *s;
    size_t len;
    if (sc_param_string(r->params, "dir", &s, &len, &r->err) != 0)
        return -1;
    if (sc_memcpy_dir_parse(s, len, dir) == 0)
        return 0;
        /* ", host_to_device, device_to_host, ..." from the one list of names */
#define SC_X_DIR(suffix, name) ", " name
    static const char names[] = SC_MEMCPY_DIRS(SC_X_DIR);
#undef SC_X_DIR
    sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS, "invalid params: 'dir' must be one of %s",
                names + 2);
    r->err.field = "dir";
    return -1;
}

/* Node n, read from the request but for its accesses, onto the stream. */
static int record_node(sc_req *r, sc_session *s, uint32_t stream, sc_node *n)
{
    uint32_t node = 0;
    if (sc_access_node_read(r->params, n, &r->err) != 0)
        return H_ERROR;
    int rc = sc_capture_record_node(s->cap, stream, n, &node);
    sc_access_node_free(n);
    return recorded(r, s, rc, stream, node);
}

int sc_h_capture_record_memcpy(sc_req *r)
{
    return sc_session_call(r, SC_SM_CAPTURE_RECORD_MEMCPY);
}

static int record_memcpy(sc_req *r, sc_session *s)
{
    uint32_t stream, src = 0, dst = 0;
    uint64_t size;
    sc_memcpy_dir dir;
    const char *name;
    size_t len;
    if (get_stream(r, &stream) != 0 ||
        sc_param_string(r->params, "name", &name, &len, &r->err) != 0 || get_dir(r, &dir) != 0 ||
        sc_param_u64(r->params, "size_bytes", SC_JSON_MAX_EXACT, &size, &r->err) != 0)
        return H_ERROR;
    /* Devices are only meaningful (and then required) for peer_to_peer;
     * elsewhere they are checked, then ignored. */
    bool p2p = dir == SC_DIR_PEER_TO_PEER;
    int (*device)(sc_jval, const char *, uint32_t *, sc_rpc_error *) =
        p2p ? sc_param_u32 : sc_param_opt_u32;
    if (device(r->params, "src_device", &src, &r->err) != 0 ||
        device(r->params, "dst_device", &dst, &r->err) != 0 || check_node_limit(r, s) != 0)
        return H_ERROR;
    if (!p2p)
        src = dst = 0;
    sc_node n = {.kind = SC_KIND_MEMCPY,
                 .name = name,
                 .name_len = len,
                 .dir = dir,
                 .size_bytes = size,
                 .src_device = src,
                 .dst_device = dst};
    return record_node(r, s, stream, &n);
}

int sc_h_capture_record_memset(sc_req *r)
{
    return sc_session_call(r, SC_SM_CAPTURE_RECORD_MEMSET);
}

static int record_memset(sc_req *r, sc_session *s)
{
    uint32_t stream;
    uint64_t size, value;
    const char *name;
    size_t len;
    if (get_stream(r, &stream) != 0 ||
        sc_param_string(r->params, "name", &name, &len, &r->err) != 0 ||
        sc_param_u64(r->params, "size_bytes", SC_JSON_MAX_EXACT, &size, &r->err) != 0 ||
        sc_param_u64(r->params, "value", 255, &value, &r->err) != 0 || check_node_limit(r, s) != 0)
        return H_ERROR;
    sc_node n = {.kind = SC_KIND_MEMSET,
                 .name = name,
                 .name_len = len,
                 .size_bytes = size,
                 .value = (uint8_t)value};
    return record_node(r, s, stream, &n);
}

int sc_h_capture_record_host_callback(sc_req *r)
{
    return sc_session_call(r, SC_SM_CAPTURE_RECORD_HOST_CALLBACK);
}

static int record_host_callback(sc_req *r, sc_session *s)
{
    uint32_t stream;
    const char *label;
    size_t len;
    if (get_stream(r, &stream) != 0 ||
        sc_param_string(r->params, "label", &label, &len, &r->err) != 0 ||
        check_node_limit(r, s) != 0)
        return H_ERROR;
    sc_node n = {.kind = SC_KIND_HOST_CALLBACK, .name = label, .name_len = len};
    return record_node(r, s, stream, &n);
}

static int event_op(sc_req *r, sc_session *s, int (*op)(sc_capture *, uint32_t, uint32_t))
{
    uint32_t stream, event;
    if (get_stream(r, &stream) != 0 || sc_param_u32(r->params, "event", &event, &r->err) != 0)
        return H_ERROR;
    int rc = op(s->cap, stream, event);
    return rc ? capture_fail(r, rc, stream) : sc_req_empty(r);
}

int sc_h_capture_record_event(sc_req *r)
{
    return sc_session_call(r, SC_SM_CAPTURE_RECORD_EVENT);
}

static int record_event(sc_req *r, sc_session *s)
{
    return event_op(r, s, sc_capture_record_event);
}

int sc_h_capture_wait_event(sc_req *r)
{
    return sc_session_call(r, SC_SM_CAPTURE_WAIT_EVENT);
}

static int wait_event(sc_req *r, sc_session *s)
{
    return event_op(r, s, sc_capture_wait_event);
}

int sc_h_capture_status(sc_req *r)
{
    return sc_session_call(r, SC_SM_CAPTURE_STATUS);
}

static int capture_status(sc_req *r, sc_session *s)
{
    uint32_t stream;
    if (get_stream(r, &stream) != 0)
        return H_ERROR;
    sc_buf *b = sc_req_result_begin(r);
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_member_cstr(b, &first, "status", sc_status_name(sc_capture_status(s->cap, stream)));
    sc_json_obj_end(b);
    return sc_req_result_end(r, b);
}

int sc_h_capture_is_capturing(sc_req *r)
{
    return sc_session_call(r, SC_SM_CAPTURE_IS_CAPTURING);
}

static int is_capturing(sc_req *r, sc_session *s)
{
    sc_buf *b = sc_req_result_begin(r);
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_member_bool(b, &first, "capturing", sc_capture_is_capturing(s->cap));
    sc_json_obj_end(b);
    return sc_req_result_end(r, b);
}

int sc_h_capture_node_count(sc_req *r)
{
    sc_session *s = sc_req_session(r);
    if (!s)
        return H_ERROR;
    sc_buf *b = sc_req_result_begin(r);
    sc_json_obj_u64(b, "node_count", sc_session_live_nodes(s));
    return sc_req_result_end(r, b);
}

int sc_h_capture_invalidate(sc_req *r)
{
    return sc_session_call(r, SC_SM_CAPTURE_INVALIDATE);
}

static int capture_invalidate(sc_req *r, sc_session *s)
{
    uint32_t stream;
    if (get_stream(r, &stream) != 0)
        return H_ERROR;
    int rc = sc_capture_invalidate(s->cap, stream);
    if (rc)
        return capture_fail(r, rc, stream);
    sc_subs_emit(r->d, &(sc_event){.event = "capture_invalidated",
                                   .uid = s->uid,
                                   .session = s->id,
                                   .has_stream = true,
                                   .stream = stream,
                                   .why = {.method = "capture.invalidate", .stream = stream}});
    return sc_req_empty(r);
}

/* A capture.end committed its graph and the session's final row together. */
static void graph_events(const end_ctx *e, uint64_t graph)
{
    sc_daemon *d = e->a.d;
    const sc_session *s = e->s;
    sc_event ev = {.event = "capture_ended",
                   .uid = s->uid,
                   .session = s->id,
                   .graph = graph,
                   .outcome = "completed",
                   .has_stream = true,
                   .stream = e->stream,
                   .has_counts = true,
                   .node_count = sc_graph_node_count(e->g),
                   .edge_count = sc_graph_edge_count(e->g)};
    sc_subs_emit(d, &ev);
    ev.event = "graph_stored";
    ev.outcome = NULL;
    ev.has_stream = false;
    ev.label = s->label ? s->label : "";
    ev.label_len = s->label_len;
    sc_subs_emit(d, &ev);
    sc_subs_emit(
        d, &(sc_event){
               .event = "session_ended", .uid = s->uid, .session = s->id, .outcome = "completed"});
}

static void graph_committed(void *arg, const sc_store_result *res)
{
    end_ctx *e = arg;
    sc_rpc_error err = {0};
    if (res->rc != SC_STORE_OK) {
        /* Nothing of the graph is stored; the session is gone either way. */
        sc_log_store_error(e->a.d, res->rc, res->errmsg, e->s->uid, e->s->pid,
                           "committing graph of session %llu with %u nodes",
                           (unsigned long long)e->s->id, (unsigned)sc_graph_node_count(e->g));
        sc_store_rpc_error(&err, res->rc, res->errmsg);
        sc_async_error(&e->a, &err);
        if (res->rc != SC_STORE_ECLOSED)
            sc_log_end_detached(e->a.d, e->s, "failed", sc_graph_node_count(e->g));
    } else {
        graph_events(e, (uint64_t)res->id);
        sc_buf *b = sc_async_result_begin(&e->a);
        bool first;
        sc_json_obj_begin(b, &first);
        sc_json_member_i64(b, &first, "graph", res->id);
        sc_json_member_u64(b, &first, "node_count", sc_graph_node_count(e->g));
        sc_json_member_u64(b, &first, "edge_count", sc_graph_edge_count(e->g));
        sc_json_obj_end(b);
        sc_async_result_end(&e->a, b);
    }
    sc_async_done(&e->a);
    end_ctx_free(e);
}

int sc_h_capture_end(sc_req *r)
{
    return sc_session_call(r, SC_SM_CAPTURE_END);
}

static int capture_end(sc_req *r, sc_session *s)
{
    uint32_t stream;
    if (get_stream(r, &stream) != 0)
        return H_ERROR;
    end_ctx *e = calloc(1, sizeof(*e));
    if (!e)
        return sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    /* The end consumes the session whatever it returns (docs/semantics.md §4.9). */
    sc_daemon *d = r->d;
    sc_sessions_remove(&d->sessions, s);
    uint32_t nodes = sc_capture_node_count(s->cap);
    e->s = s;
    e->stream = stream;
    e->core_rc = sc_capture_end(s->cap, stream, &e->g);
    s->cap = NULL;
    int rc;
    if (e->core_rc != 0)
        rc = sc_log_end_then(d, s, "failed", nodes, session_logged, e);
    else if (s->stream) {
        sc_store_stream *st = s->stream;
        s->stream = NULL; /* consumed, whatever the commit returns */
        rc = sc_store_stream_commit(d->store, st, e->g, s->uid, s->pid, s->label, s->label_len,
                                    sc_now_ms(), graph_committed, e);
    } else
        rc = sc_store_commit_graph(d->store, (int64_t)s->id, e->g, s->uid, s->pid, s->label,
                                   s->label_len, sc_now_ms(), graph_committed, e);
    if (rc != 0) {
        end_ctx_free(e);
        return sc_req_store_unavailable(r);
    }
    sc_async_start(&e->a, r);
    return H_ASYNC;
}

/* --------------------------------------------- methods only cuda mode has */

/* The default semantics have none of them: each is answered -32602. */

int sc_h_stream_create(sc_req *r)
{
    return sc_session_call(r, SC_SM_STREAM_CREATE);
}

int sc_h_capture_record_mem_alloc(sc_req *r)
{
    return sc_session_call(r, SC_SM_CAPTURE_RECORD_MEM_ALLOC);
}

int sc_h_capture_record_mem_free(sc_req *r)
{
    return sc_session_call(r, SC_SM_CAPTURE_RECORD_MEM_FREE);
}

int sc_h_capture_update_dependencies(sc_req *r)
{
    return sc_session_call(r, SC_SM_CAPTURE_UPDATE_DEPENDENCIES);
}

int sc_h_capture_info(sc_req *r)
{
    return sc_session_call(r, SC_SM_CAPTURE_INFO);
}

int sc_h_capture_host_call(sc_req *r)
{
    return sc_session_call(r, SC_SM_CAPTURE_HOST_CALL);
}

int sc_h_capture_exchange_mode(sc_req *r)
{
    return sc_session_call(r, SC_SM_CAPTURE_EXCHANGE_MODE);
}

int sc_h_capture_add_node(sc_req *r)
{
    return sc_session_call(r, SC_SM_CAPTURE_ADD_NODE);
}

/* ------------------------------------------------------- housekeeping */

void sc_sessions_sweep_idle(sc_daemon *d)
{
    uint64_t now = uv_now(d->loop);
    uint64_t limit = (uint64_t)d->cfg.session_idle_timeout_s * 1000u;
    sc_session *s;
    while ((s = sc_sessions_oldest(&d->sessions)) && now - s->last_used_ms >= limit) {
        sc_sessions_remove(&d->sessions, s);
        sc_log(&d->log, SC_LOG_INFO, "session %llu abandoned after %us idle",
               (unsigned long long)s->id, d->cfg.session_idle_timeout_s);
        sc_session_end_detached(d, s);
        sc_log_end_detached(d, s, "abandoned", sc_session_live_nodes(s));
        sc_session_free(s);
    }
}

void sc_sessions_abandon_bound(sc_daemon *d, sc_conn *c)
{
    sc_session *s = sc_sessions_oldest(&d->sessions);
    while (s && c->nsessions > 0) {
        sc_session *next = s->lru_next;
        if (s->bound && s->conn == c)
            abandon(d, s, "the connection that opened it closed");
        s = next;
    }
}

void sc_sessions_shutdown(sc_daemon *d)
{
    sc_session *s;
    while ((s = sc_sessions_oldest(&d->sessions))) {
        sc_sessions_remove(&d->sessions, s);
        sc_session_end_detached(d, s);
        sc_log_end_detached(d, s, "shutdown", sc_session_live_nodes(s));
        sc_session_free(s);
    }
}

/* ------------------------------------------------------- the default semantics */

const sc_session_ops sc_oxicuda_ops = {
    .semantics = "oxicuda",
    .create = create,
    .live_nodes = live_nodes,
    .method =
        {
            [SC_SM_SESSION_INFO] = session_info,
            [SC_SM_CAPTURE_BEGIN] = capture_begin,
            [SC_SM_CAPTURE_RECORD_KERNEL] = record_kernel,
            [SC_SM_CAPTURE_RECORD_MEMCPY] = record_memcpy,
            [SC_SM_CAPTURE_RECORD_MEMSET] = record_memset,
            [SC_SM_CAPTURE_RECORD_HOST_CALLBACK] = record_host_callback,
            [SC_SM_CAPTURE_RECORD_EVENT] = record_event,
            [SC_SM_CAPTURE_WAIT_EVENT] = wait_event,
            [SC_SM_CAPTURE_STATUS] = capture_status,
            [SC_SM_CAPTURE_IS_CAPTURING] = is_capturing,
            [SC_SM_CAPTURE_INVALIDATE] = capture_invalidate,
            [SC_SM_CAPTURE_END] = capture_end,
        },
};
