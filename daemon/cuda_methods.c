/*
 * cuda_methods.c - the methods of a cuda-mode session (proto/PROTOCOL.md
 * section 11, docs/cuda-semantics.md).
 *
 * Cuda mode's table of handlers (sc_session_ops.h): live.c finds the
 * session and calls through it, for the methods both modes have and for
 * those only cuda mode has alike.  The session's sc_cuda answers everything
 * synchronously.  A capture.end
 * that ends a capture (completed, or failed with 901 or 904) replies once
 * its capture row, and its graph when it has one, are committed; the
 * session itself lives on.  Ending the session discards the captures still
 * running and writes their rows too (docs/cuda-semantics.md §4.10).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_cond_node.h"
#include "sc_access_node.h"
#include "sc_kargs_node.h"
#include "sc_session_ops.h"

static int cuda_fail(sc_req *r, int rc)
{
    sc_cuda_rpc_error(&r->err, rc);
    return H_ERROR;
}

static int get_thread(sc_req *r, uint32_t *thread)
{
    *thread = 0;
    return sc_param_opt_u32(r->params, "thread", thread, &r->err) == 0 ? 0 : -1;
}

static int get_stream_thread(sc_req *r, uint32_t *stream, uint32_t *thread)
{
    if (sc_param_u32(r->params, "stream", stream, &r->err) != 0)
        return -1;
    return get_thread(r, thread);
}

/* One of a fixed list of words, or -32602 naming the field and the list. */
static int get_word(sc_req *r, const char *field, bool required, const char *const *words, size_t n,
                    const char *list, size_t *out)
{
    const char *s = NULL;
    size_t len = 0;
    int rc = required ? sc_param_string(r->params, field, &s, &len, &r->err)
                      : sc_param_opt_string(r->params, field, &s, &len, &r->err);
    if (rc != 0)
        return -1;
    if (!s)
        return 0; /* absent: *out keeps the default */
    for (size_t i = 0; i < n; i++) {
        if (strlen(words[i]) == len && memcmp(words[i], s, len) == 0) {
            *out = i;
            return 0;
        }
    }
    sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS, "invalid params: '%s' must be one of %s", field,
                list);
    r->err.field = field;
    return -1;
}

static const char *const mode_words[] = {"global", "thread_local", "relaxed"};
#define MODE_LIST "global, thread_local, relaxed"

static int get_mode(sc_req *r, bool required, sc_cuda_mode *mode)
{
    size_t i = (size_t)*mode;
    if (get_word(r, "mode", required, mode_words, 3, MODE_LIST, &i) != 0)
        return -1;
    *mode = (sc_cuda_mode)i;
    return 0;
}

static int reply_node(sc_req *r, uint32_t node)
{
    sc_buf *b = sc_req_result_begin(r);
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_key(b, &first, "node");
    if (node == SC_CUDA_NO_NODE)
        sc_buf_puts(b, "null");
    else
        sc_json_u64(b, node);
    sc_json_obj_end(b);
    return sc_req_result_end(r, b);
}

static int check_node_limit(sc_req *r, const sc_session *s)
{
    return sc_req_node_room(r, s, s->cuda_nodes);
}

/* The reply of a call that may have made a node. */
static int node_done(sc_req *r, sc_session *s, int rc, uint32_t node)
{
    if (rc != 0)
        return cuda_fail(r, rc);
    if (node != SC_CUDA_NO_NODE) {
        s->cuda_nodes++;
        sc_sessions_set_nodes(&r->d->sessions, s, s->cuda_nodes);
    }
    return reply_node(r, node);
}

/* ------------------------------------------------------- shared methods */

static int capture_begin(sc_req *r, sc_session *s)
{
    uint32_t stream, thread, capture = 0;
    sc_cuda_mode mode = SC_CUDA_GLOBAL;
    if (get_stream_thread(r, &stream, &thread) != 0 || get_mode(r, false, &mode) != 0)
        return H_ERROR;
    int rc = sc_cuda_begin(s->cu, stream, mode, thread, &capture);
    if (rc != 0)
        return cuda_fail(r, rc);
    sc_cuda_emit_begun(r->d, s, capture, stream, sc_cuda_mode_name(mode), thread);
    sc_buf *b = sc_req_result_begin(r);
    sc_json_obj_u64(b, "capture", capture);
    return sc_req_result_end(r, b);
}

/* grid or block: [x, y, z] of u32, each at least 1.  Absent: *out unchanged. */
static int get_dim3(sc_req *r, const char *field, uint32_t out[3])
{
    sc_jval v = sc_param_get(r->params, field);
    if (!v.doc || sc_jval_is(v, SC_JNULL))
        return 0;
    uint32_t tmp[3];
    bool ok = sc_jval_is(v, SC_JARRAY) && sc_jval_count(v) == 3;
    sc_jval e = ok ? sc_jval_first(v) : (sc_jval){0};
    for (int i = 0; ok && i < 3; i++, e = sc_jval_next(v, e)) {
        int64_t x;
        ok = sc_jval_int(e, &x) && x >= 1 && x <= UINT32_MAX;
        tmp[i] = ok ? (uint32_t)x : 0;
    }
    if (!ok) {
        sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS,
                    "invalid params: '%s' must be an array of 3 integers from 1 to 4294967295",
                    field);
        r->err.field = field;
        return -1;
    }
    memcpy(out, tmp, sizeof tmp);
    return 0;
}

static int record_kernel(sc_req *r, sc_node *n)
{
    uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
    if (sc_param_string(r->params, "function_name", &n->name, &n->name_len, &r->err) != 0 ||
        sc_param_opt_u32(r->params, "num_blocks", &grid[0], &r->err) != 0 ||
        sc_param_opt_u32(r->params, "threads_per_block", &block[0], &r->err) != 0 ||
        get_dim3(r, "grid", grid) != 0 || get_dim3(r, "block", block) != 0 ||
        sc_param_opt_u32(r->params, "shared_mem", &n->shared_mem, &r->err) != 0)
        return -1;
    n->kind = SC_KIND_KERNEL;
    n->num_blocks = grid[0];
    n->grid_y = grid[1];
    n->grid_z = grid[2];
    n->threads_per_block = block[0];
    n->block_y = block[1];
    n->block_z = block[2];
    /* Last, so that a reader that fails has nothing to free. */
    sc_kargs ka;
    if (sc_param_opt_kargs(r->params, &ka, &r->err) != 0)
        return -1;
    if (sc_kargs_node(&ka, n) != 0) {
        sc_rpc_fail(&r->err, SC_RPC_INTERNAL_ERROR, "out of memory");
        return -1;
    }
    return 0;
}

static int record_memcpy(sc_req *r, sc_node *n)
{
    const char *dir;
    size_t len;
    if (sc_param_string(r->params, "name", &n->name, &n->name_len, &r->err) != 0 ||
        sc_param_string(r->params, "dir", &dir, &len, &r->err) != 0)
        return -1;
    if (sc_cuda_dir_parse(dir, len, &n->dir) != 0) {
        sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS,
                    "invalid params: 'dir' must be one of host_to_device, device_to_host, "
                    "device_to_device, peer_to_peer, host_to_host, default");
        r->err.field = "dir";
        return -1;
    }
    bool p2p = n->dir == SC_DIR_PEER_TO_PEER;
    int (*device)(sc_jval, const char *, uint32_t *, sc_rpc_error *) =
        p2p ? sc_param_u32 : sc_param_opt_u32;
    if (sc_param_u64(r->params, "size_bytes", SC_JSON_MAX_EXACT, &n->size_bytes, &r->err) != 0 ||
        device(r->params, "src_device", &n->src_device, &r->err) != 0 ||
        device(r->params, "dst_device", &n->dst_device, &r->err) != 0)
        return -1;
    if (!p2p)
        n->src_device = n->dst_device = 0;
    n->kind = SC_KIND_MEMCPY;
    return 0;
}

static int record_memset(sc_req *r, sc_node *n)
{
    uint64_t value;
    if (sc_param_string(r->params, "name", &n->name, &n->name_len, &r->err) != 0 ||
        sc_param_u64(r->params, "size_bytes", SC_JSON_MAX_EXACT, &n->size_bytes, &r->err) != 0 ||
        sc_param_u64(r->params, "value", 255, &value, &r->err) != 0)
        return -1;
    n->kind = SC_KIND_MEMSET;
    n->value = (uint8_t)value;
    return 0;
}

/* `kind` graph: a graph launched into the capture, a child graph node
 * made where a host function would be (its body comes with capture.end). */
static int record_host_callback(sc_req *r, sc_node *n)
{
    static const char *const kinds[] = {"host_callback", "graph"};
    size_t kind = 0;
    if (sc_param_string(r->params, "label", &n->name, &n->name_len, &r->err) != 0 ||
        get_word(r, "kind", false, kinds, 2, "host_callback, graph", &kind) != 0)
        return -1;
    n->kind = kind ? (sc_node_kind)SC_KIND_GRAPH : SC_KIND_HOST_CALLBACK;
    return 0;
}

static int record_mem_alloc(sc_req *r, sc_node *n)
{
    if (sc_param_string(r->params, "name", &n->name, &n->name_len, &r->err) != 0 ||
        sc_param_u64(r->params, "size_bytes", SC_JSON_MAX_EXACT, &n->size_bytes, &r->err) != 0)
        return -1;
    n->kind = (sc_node_kind)SC_KIND_MEM_ALLOC;
    return 0;
}

static int record_mem_free(sc_req *r, sc_node *n)
{
    if (sc_param_string(r->params, "name", &n->name, &n->name_len, &r->err) != 0)
        return -1;
    n->kind = (sc_node_kind)SC_KIND_MEM_FREE;
    return 0;
}

static int read_call(sc_req *r, const char **call, size_t *len);
static void note_call(sc_session *s, const char *call, size_t len);

static int record(sc_req *r, sc_session *s, int (*read)(sc_req *, sc_node *))
{
    uint32_t stream, thread, node = SC_CUDA_NO_NODE;
    sc_node n;
    memset(&n, 0, sizeof n);
    const char *call;
    size_t call_len;
    if (get_stream_thread(r, &stream, &thread) != 0 || read(r, &n) != 0)
        return H_ERROR;
    if (sc_access_node_read(r->params, &n, &r->err) != 0 || read_call(r, &call, &call_len) != 0 ||
        check_node_limit(r, s) != 0) {
        sc_kargs_node_free(&n);
        return H_ERROR;
    }
    int rc = sc_cuda_record(s->cu, stream, thread, &n, &node);
    sc_kargs_node_free(&n);
    if (rc != 0 && call_len)
        note_call(s, call, call_len);
    return node_done(r, s, rc, node);
}

static int read_event(sc_req *r, sc_node *n)
{
    return sc_param_u32(r->params, "event", &n->event, &r->err) == 0 ? 0 : -1;
}

static int read_conditional(sc_req *r, sc_node *n)
{
    return sc_cond_node_read(r->params, n, &r->err);
}

static int read_empty(sc_req *r, sc_node *n)
{
    (void)r;
    n->name = "";
    n->name_len = 0;
    return 0;
}

int sc_cuda_bad_kind(sc_req *r)
{
    sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS,
                "invalid params: 'kind' must be one of kernel, memcpy, memset, host_callback, "
                "mem_alloc, mem_free, event_record, event_wait, empty, graph, conditional");
    r->err.field = "kind";
    return -1;
}

int sc_cuda_read_node(sc_req *r, sc_jval obj, sc_node *n)
{
    const char *kind;
    size_t len;
    sc_node_kind k;
    memset(n, 0, sizeof *n);
    if (sc_param_string(obj, "kind", &kind, &len, &r->err) != 0)
        return -1;
    if (sc_cuda_kind_parse(kind, len, &k) != 0)
        return sc_cuda_bad_kind(r);
    int (*read)(sc_req *, sc_node *) = read_empty;
    switch ((int)k) {
    case SC_KIND_KERNEL:
        read = record_kernel;
        break;
    case SC_KIND_MEMCPY:
        read = record_memcpy;
        break;
    case SC_KIND_MEMSET:
        read = record_memset;
        break;
    case SC_KIND_HOST_CALLBACK:
        read = record_host_callback;
        break;
    case SC_KIND_MEM_ALLOC:
        read = record_mem_alloc;
        break;
    case SC_KIND_MEM_FREE:
        read = record_mem_free;
        break;
    case SC_KIND_EVENT_RECORD:
    case SC_KIND_EVENT_WAIT:
        read = read_event;
        break;
    case SC_KIND_CONDITIONAL:
        read = read_conditional;
        break;
    default:
        break;
    }
    /* The record readers read their members from r->params: point it at
     * the node for a moment, so a node says exactly what a record call does. */
    sc_jval params = r->params;
    r->params = obj;
    int rc = read(r, n);
    if (rc == 0 && (read == read_event || read == read_empty || read == read_conditional) &&
        sc_param_opt_string(obj, "name", &n->name, &n->name_len, &r->err) != 0)
        rc = -1;
    if (rc == 0 && sc_param_opt_u32(obj, "stream", &n->stream, &r->err) != 0)
        rc = -1;
    if (rc == 0 && sc_access_node_read(obj, n, &r->err) != 0)
        rc = -1;
    if (rc != 0)
        sc_kargs_node_free(n);
    r->params = params;
    n->kind = k;
    if (!n->name)
        n->name = "";
    return rc;
}

static int record_kernel_call(sc_req *r, sc_session *s)
{
    return record(r, s, record_kernel);
}

static int record_memcpy_call(sc_req *r, sc_session *s)
{
    return record(r, s, record_memcpy);
}

static int record_memset_call(sc_req *r, sc_session *s)
{
    return record(r, s, record_memset);
}

static int record_host_callback_call(sc_req *r, sc_session *s)
{
    return record(r, s, record_host_callback);
}

static int event(sc_req *r, sc_session *s, bool wait)
{
    uint32_t stream, thread, event, node = SC_CUDA_NO_NODE;
    bool external = false;
    const char *call;
    size_t call_len;
    if (get_stream_thread(r, &stream, &thread) != 0 ||
        sc_param_u32(r->params, "event", &event, &r->err) != 0 ||
        sc_param_opt_bool(r->params, "external", &external, &r->err) != 0 ||
        read_call(r, &call, &call_len) != 0 || (external && check_node_limit(r, s) != 0))
        return H_ERROR;
    int rc = wait ? sc_cuda_wait_event(s->cu, stream, thread, event, external, &node)
                  : sc_cuda_record_event(s->cu, stream, thread, event, external, &node);
    if (rc != 0 && call_len)
        note_call(s, call, call_len);
    return node_done(r, s, rc, node);
}

static int record_event(sc_req *r, sc_session *s)
{
    return event(r, s, false);
}

static int wait_event(sc_req *r, sc_session *s)
{
    return event(r, s, true);
}

/* capture.info and capture.status: `full` adds the capture's details. */
static int info(sc_req *r, sc_session *s, bool full)
{
    uint32_t stream, thread;
    sc_cuda_info in;
    if (get_stream_thread(r, &stream, &thread) != 0)
        return H_ERROR;
    int rc = sc_cuda_info_get(s->cu, stream, thread, &in);
    if (rc != 0)
        return cuda_fail(r, rc);
    sc_buf *b = sc_req_result_begin(r);
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_member_cstr(b, &first, "status", sc_cuda_status_name(in.status));
    if (full && in.status == SC_CUDA_STATUS_ACTIVE) {
        sc_json_member_u64(b, &first, "capture", in.capture);
        sc_json_member_u64(b, &first, "origin", in.origin);
        sc_json_member_cstr(b, &first, "mode", sc_cuda_mode_name(in.mode));
        sc_json_key(b, &first, "dependencies");
        sc_buf_putc(b, '[');
        for (uint32_t i = 0; i < in.ndeps; i++)
            sc_buf_printf(b, i ? ",%u" : "%u", (unsigned)in.deps[i]);
        sc_buf_putc(b, ']');
    }
    sc_json_obj_end(b);
    return sc_req_result_end(r, b);
}

static int capture_status(sc_req *r, sc_session *s)
{
    return info(r, s, false);
}

/* Captures not yet ended, from the newest: what is_capturing and
 * session.info look at. */
static bool any_active(const sc_session *s)
{
    for (uint32_t id = sc_cuda_capture_count(s->cu); id >= 1; id--) {
        sc_cuda_capture_info ci;
        if (sc_cuda_capture_get(s->cu, id, &ci) == 0 && ci.state == SC_CUDA_STATE_ACTIVE)
            return true;
    }
    return false;
}

static int is_capturing(sc_req *r, sc_session *s)
{
    sc_buf *b = sc_req_result_begin(r);
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_member_bool(b, &first, "capturing", any_active(s));
    sc_json_obj_end(b);
    return sc_req_result_end(r, b);
}

static int session_info(sc_req *r, sc_session *s)
{
    sc_buf *b = sc_req_result_begin(r);
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_member_u64(b, &first, "session", s->id);
    sc_json_member_str(b, &first, "label", s->label ? s->label : "", s->label_len);
    sc_json_member_bool(b, &first, "capturing", any_active(s));
    sc_json_member_u64(b, &first, "node_count", s->cuda_nodes);
    /* Streams are not declared in cuda mode: capture.info tells one's state. */
    sc_json_key(b, &first, "streams");
    sc_buf_puts(b, "[]");
    sc_json_member_cstr(b, &first, "semantics", "cuda");
    sc_json_member_u64(b, &first, "captures", sc_cuda_capture_count(s->cu));
    sc_json_obj_end(b);
    return sc_req_result_end(r, b);
}

/* ------------------------------------------------------- capture rows */

/* The note of the call that invalidated `capture`, taken from the session. */
static sc_call_note *take_note(sc_session *s, uint32_t capture)
{
    for (sc_call_note **p = &s->calls; *p; p = &(*p)->next) {
        if ((*p)->capture == capture) {
            sc_call_note *n = *p;
            *p = n->next;
            n->next = NULL;
            return n;
        }
    }
    return NULL;
}

/* The row of an ended capture (docs/cuda-semantics.md §6). */
static void capture_row(const sc_cuda_capture_info *ci, const sc_call_note *note,
                        sc_store_capture *row)
{
    memset(row, 0, sizeof *row);
    row->capture = ci->capture;
    row->origin = ci->origin;
    row->mode = sc_cuda_mode_name(ci->mode);
    row->thread = ci->thread;
    row->outcome = sc_cuda_state_name(ci->state);
    row->cuda_error = sc_cuda_error_number(ci->error);
    row->node_count = ci->node_count;
    if (ci->invalidated) {
        row->inv_method = sc_cuda_call_name(ci->why.call);
        row->inv_stream = ci->why.stream;
        row->inv_has_event = ci->why.has_event;
        row->inv_event = ci->why.event;
        row->inv_thread = ci->why.thread;
        row->inv_error = sc_cuda_error_number(ci->why.error);
        if (note) {
            row->inv_call = note->name;
            row->inv_call_len = note->len;
        }
    }
}

typedef struct row_ctx {
    sc_daemon *d;
    uint32_t uid;
    int64_t pid;
    uint64_t session;
    uint32_t capture;
    sc_call_note *note;
    sc_store_capture row; /* for capture_ended; inv_call is note's */
} row_ctx;

static void row_logged(void *arg, const sc_store_result *res)
{
    row_ctx *c = arg;
    sc_log_store_error(c->d, res->rc, res->errmsg, c->uid, c->pid,
                       "logging capture %u of session %llu", (unsigned)c->capture,
                       (unsigned long long)c->session);
    if (res->rc == SC_STORE_OK)
        sc_cuda_emit_ended(c->d, c->uid, c->session, &c->row, 0, NULL, NULL, 0);
    free(c->note);
    free(c);
}

/* The session ends: its captures still running are discarded, and the
 * rows of all it discarded are queued. */
static void end_detached(sc_daemon *d, sc_session *s)
{
    sc_cuda_discard(s->cu);
    uint32_t n = sc_cuda_capture_count(s->cu);
    for (uint32_t id = 1; id <= n; id++) {
        sc_cuda_capture_info ci;
        if (sc_cuda_capture_get(s->cu, id, &ci) != 0 || ci.state != SC_CUDA_STATE_DISCARDED)
            continue;
        row_ctx *c = calloc(1, sizeof *c);
        if (!c)
            continue; /* the session row still ends; this capture's row is lost */
        *c = (row_ctx){.d = d, .uid = s->uid, .pid = s->pid, .session = s->id, .capture = id};
        c->note = take_note(s, id);
        capture_row(&ci, c->note, &c->row);
        if (sc_store_commit_capture(d->store, (int64_t)s->id, &c->row, NULL, s->uid, s->pid, NULL,
                                    0, sc_now_ms(), row_logged, c) != 0) {
            free(c->note);
            free(c);
        }
    }
}

/* ------------------------------------------------------- capture.end */

typedef struct end_ctx {
    sc_async a;
    sc_cuda_end_result res;
    int core_rc;
    uint32_t uid;
    int64_t pid;
    uint64_t session;
    char *label;
    size_t label_len;
    sc_call_note *note;
    sc_buf extra;         /* data members of a failed end */
    sc_store_capture row; /* its capture row, for capture_ended */
    sc_submit *bodies;    /* `bodies`, stored once the graph is */
    int64_t graph;        /* the stored graph */
} end_ctx;

static void end_ctx_free(end_ctx *e)
{
    sc_submit_free(e->bodies);
    sc_cuda_end_free(&e->res);
    free(e->label);
    free(e->note);
    sc_buf_free(&e->extra);
    free(e);
}

/* 904's data.unjoined, and the capture the failed end ended. */
static void failed_end_data(end_ctx *e)
{
    sc_buf *b = &e->extra;
    sc_buf_printf(b, ",\"capture\":%u", (unsigned)e->res.capture);
    if (e->core_rc != SC_ECUDA_UNJOINED)
        return;
    sc_buf_puts(b, ",\"unjoined\":[");
    for (uint32_t i = 0; i < e->res.nunjoined; i++) {
        const sc_cuda_unjoined *u = &e->res.unjoined[i];
        sc_buf_printf(b, "%s{\"stream\":%u,\"nodes\":[", i ? "," : "", (unsigned)u->stream);
        for (uint32_t k = 0; k < u->count; k++)
            sc_buf_printf(b, k ? ",%u" : "%u", (unsigned)u->nodes[k]);
        sc_buf_puts(b, "]}");
    }
    sc_buf_putc(b, ']');
}

static void end_result(end_ctx *e, const sc_submit *bodies)
{
    const sc_graph *g = e->res.graph;
    /* Its row, graph and bodies are all committed by now. */
    sc_cuda_emit_ended(e->a.d, e->uid, e->session, &e->row, e->graph, g, e->label, e->label_len);
    sc_buf *b = sc_async_result_begin(&e->a);
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_member_i64(b, &first, "graph", e->graph);
    sc_json_member_u64(b, &first, "capture", e->res.capture);
    sc_json_member_u64(b, &first, "node_count", sc_graph_node_count(g));
    sc_json_member_u64(b, &first, "edge_count", sc_graph_edge_count(g));
    sc_submit_write_bodies(b, &first, bodies);
    sc_json_obj_end(b);
    sc_async_result_end(&e->a, b);
}

/* The bodies are stored (or one failed, and the graph is gone with them). */
static void bodies_stored(void *arg, int rc, const char *errmsg, sc_submit *x)
{
    end_ctx *e = arg;
    if (rc != SC_STORE_OK) {
        sc_rpc_error err = {0};
        sc_store_rpc_error(&err, rc, errmsg);
        sc_async_error(&e->a, &err);
    } else {
        end_result(e, x);
    }
    sc_submit_free(x);
    sc_async_done(&e->a);
    end_ctx_free(e);
}

/* The graph committed: its bodies follow, one after another, before the
 * reply.  True when they were queued (bodies_stored then replies). */
static bool store_bodies(end_ctx *e)
{
    sc_submit *x = e->bodies;
    if (!x || sc_submit_body_count(x) == 0)
        return false;
    e->bodies = NULL;
    int rc = sc_submit_store_bodies(x, e->a.d, e->graph, e->res.graph, bodies_stored, e);
    if (rc == 0)
        return true;
    /* Not queued: the graph goes, as a submitted graph whose body the
     * store would not take. */
    sc_log_store_error(e->a.d, rc, NULL, e->uid, e->pid, "storing the bodies of capture %u",
                       (unsigned)e->res.capture);
    (void)sc_store_delete_graph(e->a.d->store, e->graph, sc_now_ms(), NULL, NULL);
    sc_submit_free(x);
    sc_rpc_error err = {0};
    sc_store_rpc_error(&err, rc, NULL);
    sc_async_error(&e->a, &err);
    sc_async_done(&e->a);
    end_ctx_free(e);
    return true;
}

static void capture_committed(void *arg, const sc_store_result *res)
{
    end_ctx *e = arg;
    sc_rpc_error err = {0};
    sc_log_store_error(e->a.d, res->rc, res->errmsg, e->uid, e->pid,
                       "committing capture %u of session %llu", (unsigned)e->res.capture,
                       (unsigned long long)e->session);
    e->graph = res->id;
    if (e->core_rc == 0 && res->rc == SC_STORE_OK && store_bodies(e))
        return;
    if (e->core_rc != 0 && res->rc == SC_STORE_OK)
        sc_cuda_emit_ended(e->a.d, e->uid, e->session, &e->row, 0, NULL, NULL, 0);
    if (e->core_rc != 0) {
        /* The CUDA error is the answer; a log failure is only logged. */
        sc_cuda_rpc_error(&err, e->core_rc);
        if (!sc_buf_failed(&e->extra)) {
            err.extra = e->extra.data;
            err.extra_len = e->extra.len;
        }
        sc_async_error(&e->a, &err);
    } else if (res->rc != SC_STORE_OK) {
        sc_store_rpc_error(&err, res->rc, res->errmsg);
        sc_async_error(&e->a, &err);
    } else {
        end_result(e, NULL);
    }
    sc_async_done(&e->a);
    end_ctx_free(e);
}

static int capture_end(sc_req *r, sc_session *s)
{
    uint32_t stream, thread;
    const char *call;
    size_t call_len;
    sc_submit *bodies = NULL;
    /* The bodies are checked against the capture before it ends: a bad
     * one leaves it running, as any other bad parameter does. */
    if (get_stream_thread(r, &stream, &thread) != 0 || read_call(r, &call, &call_len) != 0 ||
        sc_capture_bodies_read(r, s->cu, stream, s, &bodies) != 0)
        return H_ERROR;
    end_ctx *e = calloc(1, sizeof *e);
    if (!e) {
        sc_submit_free(bodies);
        return sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    }
    e->bodies = bodies;
    sc_buf_init(&e->extra);
    e->core_rc = sc_cuda_end(s->cu, stream, thread, &e->res);
    if (e->core_rc != 0 && call_len)
        note_call(s, call, call_len);
    sc_cuda_capture_info ci;
    /* 401, 903, 908 and out of memory leave the capture running. */
    if ((e->core_rc != 0 && e->core_rc != SC_ECUDA_INVALIDATED &&
         e->core_rc != SC_ECUDA_UNJOINED) ||
        sc_cuda_capture_get(s->cu, e->res.capture, &ci) != 0) {
        int rc = e->core_rc;
        end_ctx_free(e);
        return rc ? cuda_fail(r, rc) : sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "internal error");
    }
    s->cuda_nodes -= ci.node_count <= s->cuda_nodes ? ci.node_count : s->cuda_nodes;
    sc_sessions_set_nodes(&r->d->sessions, s, s->cuda_nodes);
    e->uid = s->uid;
    e->pid = s->pid;
    e->session = s->id;
    e->note = take_note(s, ci.capture);
    if (e->core_rc != 0)
        failed_end_data(e);
    if (sc_req_copy_string(r, s->label, s->label_len, &e->label) != 0) {
        end_ctx_free(e);
        return H_ERROR;
    }
    e->label_len = s->label_len;
    capture_row(&ci, e->note, &e->row);
    if (e->res.graph && sc_graph_seal(e->res.graph) != 0) {
        end_ctx_free(e);
        return sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    }
    if (sc_store_commit_capture(r->d->store, (int64_t)s->id, &e->row, e->res.graph, s->uid, s->pid,
                                e->label, e->label_len, sc_now_ms(), capture_committed, e) != 0) {
        end_ctx_free(e);
        return sc_req_store_unavailable(r);
    }
    sc_async_start(&e->a, r);
    return H_ASYNC;
}

/* ------------------------------------------------------- cuda-only methods */

static int stream_create(sc_req *r, sc_session *s)
{
    static const char *const flags[] = {"default", "non_blocking"};
    uint32_t stream, thread;
    size_t flag = 0;
    if (get_stream_thread(r, &stream, &thread) != 0 ||
        get_word(r, "flags", false, flags, 2, "default, non_blocking", &flag) != 0)
        return H_ERROR;
    int rc = sc_cuda_stream_create(s->cu, stream, flag == 1);
    return rc ? cuda_fail(r, rc) : sc_req_empty(r);
}

static int record_mem_alloc_call(sc_req *r, sc_session *s)
{
    return record(r, s, record_mem_alloc);
}

static int record_mem_free_call(sc_req *r, sc_session *s)
{
    return record(r, s, record_mem_free);
}

/* An array of node ids (u32); *ids is malloc'd (NULL when empty). */
static int get_ids(sc_req *r, const char *field, bool required, uint32_t **ids, size_t *n)
{
    *ids = NULL;
    *n = 0;
    sc_jval v = sc_param_get(r->params, field);
    if (!v.doc || sc_jval_is(v, SC_JNULL)) {
        if (!required)
            return 0;
        sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS, "invalid params: missing '%s'", field);
        r->err.field = field;
        return -1;
    }
    bool ok = sc_jval_is(v, SC_JARRAY);
    uint32_t count = ok ? sc_jval_count(v) : 0;
    uint32_t *out = count ? malloc(count * sizeof *out) : NULL;
    if (count && !out) {
        sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
        return -1;
    }
    sc_jval e = ok ? sc_jval_first(v) : (sc_jval){0};
    for (uint32_t i = 0; ok && i < count; i++, e = sc_jval_next(v, e)) {
        int64_t x;
        ok = sc_jval_int(e, &x) && x >= 0 && x <= UINT32_MAX;
        if (ok)
            out[i] = (uint32_t)x;
    }
    if (!ok) {
        free(out);
        sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS,
                    "invalid params: '%s' must be an array of integers from 0 to 4294967295",
                    field);
        r->err.field = field;
        return -1;
    }
    *ids = out;
    *n = count;
    return 0;
}

static int update_dependencies(sc_req *r, sc_session *s)
{
    static const char *const hows[] = {"add", "set"};
    uint32_t stream, thread;
    size_t how = 0, n;
    uint32_t *ids;
    if (get_stream_thread(r, &stream, &thread) != 0 ||
        get_word(r, "mode", true, hows, 2, "add, set", &how) != 0 ||
        get_ids(r, "nodes", true, &ids, &n) != 0)
        return H_ERROR;
    int rc = sc_cuda_update_dependencies(s->cu, stream, thread, ids, n,
                                         how ? SC_CUDA_DEPS_SET : SC_CUDA_DEPS_ADD);
    free(ids);
    return rc ? cuda_fail(r, rc) : sc_req_empty(r);
}

static int capture_info(sc_req *r, sc_session *s)
{
    return info(r, s, true);
}

/* The optional `call`: the CUDA function a record or host call stands
 * for, kept for the log of the captures it breaks. */
static int read_call(sc_req *r, const char **call, size_t *len)
{
    *call = NULL;
    *len = 0;
    return sc_param_opt_string(r->params, "call", call, len, &r->err) == 0 ? 0 : -1;
}

/* Keep the CUDA function's name for every capture the call just
 * invalidated (their `why` carries this call's sequence number). */
static void note_call(sc_session *s, const char *call, size_t len)
{
    uint64_t seq = sc_cuda_call_seq(s->cu);
    for (uint32_t id = sc_cuda_capture_count(s->cu); id >= 1; id--) {
        sc_cuda_capture_info ci;
        if (sc_cuda_capture_get(s->cu, id, &ci) != 0 || ci.state != SC_CUDA_STATE_INVALIDATED ||
            !ci.invalidated || ci.why.seq != seq)
            continue;
        sc_call_note *n = malloc(sizeof *n + len + 1);
        if (!n)
            return; /* the row then names the method only */
        n->capture = id;
        n->len = len;
        memcpy(n->name, call, len);
        n->name[len] = '\0';
        n->next = s->calls;
        s->calls = n;
    }
}

static int host_call(sc_req *r, sc_session *s)
{
    static const char *const kinds[] = {"unsafe", "stream_sync", "device_sync", "event_sync",
                                        "legacy_sync"};
    uint32_t stream = 0, event = 0, thread;
    size_t kind = 0;
    const char *call = NULL;
    size_t call_len = 0;
    if (get_word(r, "kind", true, kinds, 5,
                 "unsafe, stream_sync, device_sync, event_sync, legacy_sync", &kind) != 0 ||
        sc_param_opt_u32(r->params, "stream", &stream, &r->err) != 0 ||
        sc_param_opt_u32(r->params, "event", &event, &r->err) != 0 ||
        sc_param_opt_string(r->params, "call", &call, &call_len, &r->err) != 0 ||
        get_thread(r, &thread) != 0)
        return H_ERROR;
    int rc = sc_cuda_host_call(s->cu, (sc_cuda_host)kind, stream, event, thread);
    if (rc == 0)
        return sc_req_empty(r);
    if (call && call_len)
        note_call(s, call, call_len);
    return cuda_fail(r, rc);
}

static int exchange_mode(sc_req *r, sc_session *s)
{
    uint32_t thread;
    sc_cuda_mode mode = SC_CUDA_GLOBAL, prev;
    if (get_mode(r, true, &mode) != 0 || get_thread(r, &thread) != 0)
        return H_ERROR;
    int rc = sc_cuda_exchange_mode(s->cu, thread, mode, &prev);
    if (rc != 0)
        return cuda_fail(r, rc);
    sc_buf *b = sc_req_result_begin(r);
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_member_cstr(b, &first, "mode", sc_cuda_mode_name(prev));
    sc_json_obj_end(b);
    return sc_req_result_end(r, b);
}

static int add_node(sc_req *r, sc_session *s)
{
    uint32_t stream, thread, node = SC_CUDA_NO_NODE;
    size_t n;
    uint32_t *deps;
    sc_node x;
    memset(&x, 0, sizeof x);
    if (get_stream_thread(r, &stream, &thread) != 0)
        return H_ERROR;
    int rc = sc_capture_read_added(r, &x);
    if (rc != 0 || check_node_limit(r, s) != 0 || get_ids(r, "deps", false, &deps, &n) != 0) {
        sc_kargs_node_free(&x);
        return H_ERROR;
    }
    rc = sc_cuda_add_node(s->cu, stream, thread, &x, deps, n, &node);
    sc_kargs_node_free(&x);
    free(deps);
    return node_done(r, s, rc, node);
}

/* ------------------------------------------------------- the table */

static int create(sc_session *s)
{
    return sc_cuda_create(&s->cu);
}

/* The nodes of its captures not yet ended. */
static uint32_t live_nodes(const sc_session *s)
{
    return s->cuda_nodes;
}

const sc_session_ops sc_cuda_ops = {
    .semantics = "cuda",
    .create = create,
    .live_nodes = live_nodes,
    .end_detached = end_detached,
    .method =
        {
            [SC_SM_SESSION_INFO] = session_info,
            [SC_SM_CAPTURE_BEGIN] = capture_begin,
            [SC_SM_CAPTURE_RECORD_KERNEL] = record_kernel_call,
            [SC_SM_CAPTURE_RECORD_MEMCPY] = record_memcpy_call,
            [SC_SM_CAPTURE_RECORD_MEMSET] = record_memset_call,
            [SC_SM_CAPTURE_RECORD_HOST_CALLBACK] = record_host_callback_call,
            [SC_SM_CAPTURE_RECORD_EVENT] = record_event,
            [SC_SM_CAPTURE_WAIT_EVENT] = wait_event,
            [SC_SM_CAPTURE_STATUS] = capture_status,
            [SC_SM_CAPTURE_IS_CAPTURING] = is_capturing,
            [SC_SM_CAPTURE_END] = capture_end,
            [SC_SM_STREAM_CREATE] = stream_create,
            [SC_SM_CAPTURE_RECORD_MEM_ALLOC] = record_mem_alloc_call,
            [SC_SM_CAPTURE_RECORD_MEM_FREE] = record_mem_free_call,
            [SC_SM_CAPTURE_UPDATE_DEPENDENCIES] = update_dependencies,
            [SC_SM_CAPTURE_INFO] = capture_info,
            [SC_SM_CAPTURE_HOST_CALL] = host_call,
            [SC_SM_CAPTURE_EXCHANGE_MODE] = exchange_mode,
            [SC_SM_CAPTURE_ADD_NODE] = add_node,
        },
};
