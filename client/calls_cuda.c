/*
 * calls_cuda.c - the typed calls of cuda-mode sessions (proto/PROTOCOL.md
 * section 11).  They wait for their reply: a program replaying CUDA calls
 * needs each answer (a node id, a CUDA error) before its next call.
 */
#define _POSIX_C_SOURCE 200809L

#include "client_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const semantics_names[] = {"oxicuda", "cuda"};
static const char *const mode_names[] = {"global", "thread_local", "relaxed"};
static const char *const host_kind_names[] = {"unsafe", "stream_sync", "device_sync", "event_sync",
                                              "legacy_sync"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const char *sc_client_semantics_name(sc_client_semantics s)
{
    return (unsigned)s < COUNT(semantics_names) ? semantics_names[s] : NULL;
}

const char *sc_client_mode_name(sc_client_capture_mode m)
{
    return (unsigned)m < COUNT(mode_names) ? mode_names[m] : NULL;
}

static int parse_mode(const char *s, sc_client_capture_mode *out)
{
    for (size_t i = 0; s && i < COUNT(mode_names); i++) {
        if (strcmp(s, mode_names[i]) == 0) {
            *out = (sc_client_capture_mode)i;
            return 0;
        }
    }
    return -EINVAL;
}

static int bad_arg(sc_client *c, const char *what)
{
    return c ? sc_cl_fail(c, -EINVAL, "%s", what) : -EINVAL;
}

/* Start a cuda call: refused in a pipeline, whose replies have no room for
 * these results. */
static int begin_cuda(sc_client *c, sc_method_id m, uint64_t session, uint32_t thread)
{
    if (!c)
        return -EINVAL;
    if (c->pipelining && !c->broken)
        return sc_cl_fail(c, -EBUSY, "%s cannot be called while a pipeline is open",
                          sc_methods[m].name);
    int rc = sc_cl_begin(c, m);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "session", session);
    if (thread)
        sc_cl_u64(c, "thread", thread);
    return 0;
}

/* sc_cl_tree's 1 (queued in asynchronous mode) is the call's success. */
static int queued(int rc)
{
    return rc > 0 ? 0 : rc;
}

/* Send the request and drop a result with nothing in it. */
static int finish_empty(sc_client *c, sc_method_id m)
{
    cJSON *root;
    const cJSON *res;
    int rc = sc_cl_tree(c, m, &root, &res);
    if (rc == 0)
        cJSON_Delete(root);
    return queued(rc);
}

static void u32_array(sc_client *c, const char *key, const uint32_t *v, size_t n)
{
    sc_buf *b = sc_cl_key(c, key);
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++)
        sc_buf_printf(b, i ? ",%u" : "%u", (unsigned)v[i]);
    sc_buf_putc(b, ']');
}

int sc_client_open_session_ex(sc_client *c, const char *label, sc_client_semantics semantics,
                              uint64_t *session)
{
    const char *name = sc_client_semantics_name(semantics);
    if (!name)
        return bad_arg(c, "unknown semantics");
    int rc = sc_cl_begin(c, SC_M_SESSION_OPEN);
    if (rc != 0)
        return rc;
    if (label)
        sc_cl_str(c, "label", label);
    /* The default is left unsaid: the request is then the one of before. */
    if (semantics != SC_CLIENT_SEMANTICS_OXICUDA)
        sc_cl_str(c, "semantics", name);
    sc_client_reply r;
    rc = sc_cl_simple(c, SC_M_SESSION_OPEN, &r);
    if (rc > 0)
        return 0;
    if (rc == 0 && session)
        *session = r.id;
    return rc;
}

int sc_client_stream_create(sc_client *c, uint64_t session, uint32_t stream, bool non_blocking)
{
    int rc = begin_cuda(c, SC_M_STREAM_CREATE, session, 0);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "stream", stream);
    sc_cl_str(c, "flags", non_blocking ? "non_blocking" : "default");
    return finish_empty(c, SC_M_STREAM_CREATE);
}

int sc_client_cuda_begin(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                         sc_client_capture_mode mode, uint64_t *capture)
{
    const char *name = sc_client_mode_name(mode);
    if (!name)
        return bad_arg(c, "unknown capture mode");
    int rc = begin_cuda(c, SC_M_CAPTURE_BEGIN, session, thread);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "stream", stream);
    sc_cl_str(c, "mode", name);
    cJSON *root;
    const cJSON *res;
    uint64_t id;
    if ((rc = sc_cl_tree(c, SC_M_CAPTURE_BEGIN, &root, &res)) != 0)
        return queued(rc);
    rc = sc_cl_get_u64(c, SC_M_CAPTURE_BEGIN, res, "capture", UINT64_MAX, &id);
    cJSON_Delete(root);
    if (rc == 0 && capture)
        *capture = id;
    return rc;
}

/* {node}: an id, or null when nothing was recorded (-1). */
static int node_or_null(sc_client *c, sc_method_id m, const cJSON *res, int64_t *node)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(res, "node");
    if (cJSON_IsNull(v)) {
        *node = -1;
        return 0;
    }
    uint64_t id;
    int rc = sc_cl_get_u64(c, m, res, "node", UINT32_MAX, &id);
    if (rc == 0)
        *node = (int64_t)id;
    return rc;
}

/* Finish a record call: {node}, an id or null. */
static int finish_record(sc_client *c, sc_method_id m, int64_t *node)
{
    cJSON *root;
    const cJSON *res;
    int rc = sc_cl_tree(c, m, &root, &res);
    if (rc != 0)
        return queued(rc);
    int64_t id = -1;
    rc = node_or_null(c, m, res, &id);
    cJSON_Delete(root);
    if (rc == 0 && node)
        *node = id;
    return rc;
}

int sc_client_cuda_record_kernel(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                                 const char *function_name, const uint32_t grid[3],
                                 const uint32_t block[3], uint32_t shared_mem, int64_t *node)
{
    if (!function_name || !grid || !block)
        return bad_arg(c, "function_name, grid and block must not be NULL");
    int rc = begin_cuda(c, SC_M_CAPTURE_RECORD_KERNEL, session, thread);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "stream", stream);
    sc_cl_str(c, "function_name", function_name);
    u32_array(c, "grid", grid, 3);
    u32_array(c, "block", block, 3);
    sc_cl_u64(c, "shared_mem", shared_mem);
    return finish_record(c, SC_M_CAPTURE_RECORD_KERNEL, node);
}

/* Start a record call on (session, stream) with its `name`-like member. */
static int begin_record(sc_client *c, sc_method_id m, uint64_t session, uint32_t stream,
                        uint32_t thread, const char *key, const char *value)
{
    if (!value) {
        if (!c)
            return -EINVAL;
        return sc_cl_fail(c, -EINVAL, "%s must not be NULL", key);
    }
    int rc = begin_cuda(c, m, session, thread);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "stream", stream);
    sc_cl_str(c, key, value);
    return 0;
}

int sc_client_cuda_record_memcpy(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                                 const char *name, sc_client_dir dir, uint64_t size_bytes,
                                 uint32_t src_device, uint32_t dst_device, int64_t *node)
{
    const sc_method_id m = SC_M_CAPTURE_RECORD_MEMCPY;
    const char *dname = sc_client_cuda_dir_name(dir);
    if (!dname)
        return bad_arg(c, "unknown memcpy direction");
    int rc = begin_record(c, m, session, stream, thread, "name", name);
    if (rc != 0)
        return rc;
    sc_cl_str(c, "dir", dname);
    sc_cl_u64(c, "size_bytes", size_bytes);
    if (dir == SC_CLIENT_PEER_TO_PEER) {
        sc_cl_u64(c, "src_device", src_device);
        sc_cl_u64(c, "dst_device", dst_device);
    }
    return finish_record(c, m, node);
}

int sc_client_cuda_record_memset(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                                 const char *name, uint64_t size_bytes, uint8_t value,
                                 int64_t *node)
{
    const sc_method_id m = SC_M_CAPTURE_RECORD_MEMSET;
    int rc = begin_record(c, m, session, stream, thread, "name", name);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "size_bytes", size_bytes);
    sc_cl_u64(c, "value", value);
    return finish_record(c, m, node);
}

int sc_client_cuda_record_host_callback(sc_client *c, uint64_t session, uint32_t stream,
                                        uint32_t thread, const char *label, int64_t *node)
{
    const sc_method_id m = SC_M_CAPTURE_RECORD_HOST_CALLBACK;
    int rc = begin_record(c, m, session, stream, thread, "label", label);
    return rc ? rc : finish_record(c, m, node);
}

int sc_client_cuda_record_mem_alloc(sc_client *c, uint64_t session, uint32_t stream,
                                    uint32_t thread, const char *name, uint64_t size_bytes,
                                    int64_t *node)
{
    const sc_method_id m = SC_M_CAPTURE_RECORD_MEM_ALLOC;
    int rc = begin_record(c, m, session, stream, thread, "name", name);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "size_bytes", size_bytes);
    return finish_record(c, m, node);
}

int sc_client_cuda_record_mem_free(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                                   const char *name, int64_t *node)
{
    const sc_method_id m = SC_M_CAPTURE_RECORD_MEM_FREE;
    int rc = begin_record(c, m, session, stream, thread, "name", name);
    return rc ? rc : finish_record(c, m, node);
}

int sc_client_cuda_add_node(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                            sc_client_kind kind, const uint32_t *deps, size_t ndeps,
                            const char *name, uint32_t *node)
{
    const sc_method_id m = SC_M_CAPTURE_ADD_NODE;
    const char *kname = sc_client_kind_name(kind);
    if (strcmp(kname, "unknown") == 0)
        return bad_arg(c, "unknown node kind");
    if (ndeps && !deps)
        return bad_arg(c, "deps must not be NULL");
    int rc = begin_cuda(c, m, session, thread);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "stream", stream);
    sc_cl_str(c, "kind", kname);
    u32_array(c, "deps", deps, ndeps);
    if (name)
        sc_cl_str(c, "name", name);
    int64_t id = -1;
    rc = finish_record(c, m, &id);
    if (rc == 0 && node && id >= 0)
        *node = (uint32_t)id;
    return rc;
}

int sc_client_cuda_add_node_ex(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                               const sc_client_node *node, const uint32_t *deps, size_t ndeps,
                               int64_t *node_out)
{
    const sc_method_id m = SC_M_CAPTURE_ADD_NODE;
    if (!node)
        return bad_arg(c, "node must not be NULL");
    if (strcmp(sc_client_kind_name(node->kind), "unknown") == 0)
        return bad_arg(c, "unknown node kind");
    if (node->kind == SC_CLIENT_MEMCPY && !sc_client_cuda_dir_name(node->dir))
        return bad_arg(c, "unknown memcpy direction");
    if (ndeps && !deps)
        return bad_arg(c, "deps must not be NULL");
    int rc = begin_cuda(c, m, session, thread);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "stream", stream);
    u32_array(c, "deps", deps, ndeps);
    /* The node's stream is the call's: the daemon refuses another. */
    sc_cl_write_node(sc_cl_key(c, "node"), node, false);
    return finish_record(c, m, node_out);
}

int sc_client_cuda_event(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                         uint32_t event, bool wait)
{
    sc_method_id m = wait ? SC_M_CAPTURE_WAIT_EVENT : SC_M_CAPTURE_RECORD_EVENT;
    int rc = begin_cuda(c, m, session, thread);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "stream", stream);
    sc_cl_u64(c, "event", event);
    return finish_empty(c, m);
}

int sc_client_cuda_event_ex(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                            uint32_t event, bool wait, bool external, int64_t *node)
{
    sc_method_id m = wait ? SC_M_CAPTURE_WAIT_EVENT : SC_M_CAPTURE_RECORD_EVENT;
    int rc = begin_cuda(c, m, session, thread);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "stream", stream);
    sc_cl_u64(c, "event", event);
    /* Sent only when set, so that a daemon from before the flag still
     * takes the plain call. */
    if (external)
        sc_cl_raw(c, "external", "true");
    return finish_record(c, m, node);
}

int sc_client_update_dependencies(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                                  const uint32_t *nodes, size_t count, bool set)
{
    if (count && !nodes)
        return bad_arg(c, "nodes must not be NULL");
    int rc = begin_cuda(c, SC_M_CAPTURE_UPDATE_DEPENDENCIES, session, thread);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "stream", stream);
    u32_array(c, "nodes", nodes, count);
    sc_cl_str(c, "mode", set ? "set" : "add");
    return finish_empty(c, SC_M_CAPTURE_UPDATE_DEPENDENCIES);
}

void sc_client_capture_info_free(sc_client_capture_info *i)
{
    if (!i)
        return;
    free(i->dependencies);
    memset(i, 0, sizeof(*i));
}

static int decode_info(sc_client *c, const cJSON *res, sc_client_capture_info *out)
{
    const sc_method_id m = SC_M_CAPTURE_INFO;
    const char *st = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "status"));
    if (st && strcmp(st, "none") == 0)
        out->status = SC_CLIENT_STATUS_NONE;
    else if (st && strcmp(st, "active") == 0)
        out->status = SC_CLIENT_STATUS_ACTIVE;
    else if (st && strcmp(st, "invalidated") == 0)
        out->status = SC_CLIENT_STATUS_INVALIDATED;
    else
        return sc_cl_malformed(c, m, "bad 'status'");
    if (out->status != SC_CLIENT_STATUS_ACTIVE)
        return 0;
    uint64_t origin;
    if (sc_cl_get_u64(c, m, res, "capture", UINT64_MAX, &out->capture) != 0 ||
        sc_cl_get_u64(c, m, res, "origin", UINT32_MAX, &origin) != 0)
        return -EPROTO;
    out->origin = (uint32_t)origin;
    const char *mode = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "mode"));
    if (parse_mode(mode, &out->mode) != 0)
        return sc_cl_malformed(c, m, "bad 'mode'");
    const cJSON *deps = cJSON_GetObjectItemCaseSensitive(res, "dependencies");
    if (!cJSON_IsArray(deps))
        return sc_cl_malformed(c, m, "bad 'dependencies'");
    size_t n = (size_t)cJSON_GetArraySize(deps);
    if (n == 0)
        return 0;
    out->dependencies = calloc(n, sizeof(*out->dependencies));
    if (!out->dependencies)
        return sc_cl_fail(c, -ENOMEM, "out of memory");
    const cJSON *d;
    cJSON_ArrayForEach(d, deps)
    {
        double v = cJSON_IsNumber(d) ? d->valuedouble : -1;
        if (!(v >= 0 && v <= UINT32_MAX) || v != (double)(uint32_t)v)
            return sc_cl_malformed(c, m, "bad node id in 'dependencies'");
        out->dependencies[out->dependency_count++] = (uint32_t)v;
    }
    return 0;
}

int sc_client_capture_info_get(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                               sc_client_capture_info *out)
{
    if (!out)
        return bad_arg(c, "out must not be NULL");
    int rc = begin_cuda(c, SC_M_CAPTURE_INFO, session, thread);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "stream", stream);
    cJSON *root;
    const cJSON *res;
    if ((rc = sc_cl_tree(c, SC_M_CAPTURE_INFO, &root, &res)) != 0)
        return queued(rc);
    sc_client_capture_info got = {0};
    rc = decode_info(c, res, &got);
    cJSON_Delete(root);
    if (rc != 0) {
        sc_client_capture_info_free(&got);
        return rc;
    }
    *out = got;
    return 0;
}

int sc_client_host_call(sc_client *c, uint64_t session, uint32_t thread,
                        sc_client_host_call_kind kind, uint32_t stream, uint32_t event,
                        const char *call)
{
    if ((unsigned)kind >= COUNT(host_kind_names))
        return bad_arg(c, "unknown host call kind");
    int rc = begin_cuda(c, SC_M_CAPTURE_HOST_CALL, session, thread);
    if (rc != 0)
        return rc;
    sc_cl_str(c, "kind", host_kind_names[kind]);
    if (kind == SC_CLIENT_HOST_STREAM_SYNC)
        sc_cl_u64(c, "stream", stream);
    if (kind == SC_CLIENT_HOST_EVENT_SYNC)
        sc_cl_u64(c, "event", event);
    if (call)
        sc_cl_str(c, "call", call);
    return finish_empty(c, SC_M_CAPTURE_HOST_CALL);
}

int sc_client_exchange_mode(sc_client *c, uint64_t session, uint32_t thread,
                            sc_client_capture_mode mode, sc_client_capture_mode *old)
{
    const char *name = sc_client_mode_name(mode);
    if (!name)
        return bad_arg(c, "unknown capture mode");
    int rc = begin_cuda(c, SC_M_CAPTURE_EXCHANGE_MODE, session, thread);
    if (rc != 0)
        return rc;
    sc_cl_str(c, "mode", name);
    cJSON *root;
    const cJSON *res;
    if ((rc = sc_cl_tree(c, SC_M_CAPTURE_EXCHANGE_MODE, &root, &res)) != 0)
        return queued(rc);
    sc_client_capture_mode was = SC_CLIENT_MODE_GLOBAL;
    const char *text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "mode"));
    rc = parse_mode(text, &was) == 0 ? 0
                                     : sc_cl_malformed(c, SC_M_CAPTURE_EXCHANGE_MODE, "bad 'mode'");
    cJSON_Delete(root);
    if (rc == 0 && old)
        *old = was;
    return rc;
}

int sc_client_cuda_end(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                       sc_client_cuda_captured *out)
{
    int rc = begin_cuda(c, SC_M_CAPTURE_END, session, thread);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "stream", stream);
    cJSON *root;
    const cJSON *res;
    if ((rc = sc_cl_tree(c, SC_M_CAPTURE_END, &root, &res)) != 0)
        return queued(rc);
    sc_client_cuda_captured got;
    const sc_method_id m = SC_M_CAPTURE_END;
    if (sc_cl_get_u64(c, m, res, "graph", UINT64_MAX, &got.graph) != 0 ||
        sc_cl_get_u64(c, m, res, "capture", UINT64_MAX, &got.capture) != 0 ||
        sc_cl_get_u64(c, m, res, "node_count", UINT64_MAX, &got.node_count) != 0 ||
        sc_cl_get_u64(c, m, res, "edge_count", UINT64_MAX, &got.edge_count) != 0)
        rc = -EPROTO;
    cJSON_Delete(root);
    if (rc == 0 && out)
        *out = got;
    return rc;
}

/* ---------------------------------------------------------------- log */

void sc_cl_free_captures(sc_client_log_entry *e)
{
    for (size_t i = 0; e->captures && i < e->capture_count; i++) {
        sc_client_capture_record *r = &e->captures[i];
        free(r->mode);
        free(r->outcome);
        free(r->ended_at);
        free(r->cuda_name);
        free(r->inv_method);
        free(r->inv_call);
        free(r->inv_cuda_name);
        free(r->inv_message);
    }
    free(e->captures);
    free(e->semantics);
    e->captures = NULL;
    e->capture_count = 0;
    e->semantics = NULL;
}

static int get_u32(sc_client *c, const cJSON *o, const char *key, uint32_t *out)
{
    uint64_t v;
    if (sc_cl_get_u64(c, SC_M_LOG_LIST, o, key, UINT32_MAX, &v) != 0)
        return -EPROTO;
    *out = (uint32_t)v;
    return 0;
}

static int get_int(sc_client *c, const cJSON *o, const char *key, int *out)
{
    uint64_t v;
    if (sc_cl_get_u64(c, SC_M_LOG_LIST, o, key, INT32_MAX, &v) != 0)
        return -EPROTO;
    *out = (int)v;
    return 0;
}

static bool has(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return v && !cJSON_IsNull(v);
}

static int decode_invalidated_by(sc_client *c, const cJSON *o, sc_client_capture_record *r)
{
    const sc_method_id m = SC_M_LOG_LIST;
    if (sc_cl_get_str(c, m, o, "method", false, &r->inv_method) != 0 ||
        get_u32(c, o, "stream", &r->inv_stream) != 0 ||
        get_u32(c, o, "thread", &r->inv_thread) != 0 ||
        sc_cl_get_str(c, m, o, "call", true, &r->inv_call) != 0 ||
        get_int(c, o, "cuda_error", &r->inv_cuda_error) != 0 ||
        sc_cl_get_str(c, m, o, "cuda_name", false, &r->inv_cuda_name) != 0 ||
        sc_cl_get_str(c, m, o, "message", false, &r->inv_message) != 0)
        return -EPROTO;
    r->inv_has_event = has(o, "event");
    return r->inv_has_event ? get_u32(c, o, "event", &r->inv_event) : 0;
}

static int decode_capture(sc_client *c, const cJSON *o, sc_client_capture_record *r)
{
    const sc_method_id m = SC_M_LOG_LIST;
    if (sc_cl_get_u64(c, m, o, "capture", UINT64_MAX, &r->capture) != 0 ||
        get_u32(c, o, "origin", &r->origin) != 0 ||
        sc_cl_get_str(c, m, o, "mode", false, &r->mode) != 0 ||
        get_u32(c, o, "thread", &r->thread) != 0 ||
        sc_cl_get_str(c, m, o, "outcome", false, &r->outcome) != 0 ||
        sc_cl_get_u64(c, m, o, "node_count", UINT64_MAX, &r->node_count) != 0 ||
        sc_cl_get_str(c, m, o, "ended_at", true, &r->ended_at) != 0 ||
        sc_cl_get_str(c, m, o, "cuda_name", true, &r->cuda_name) != 0)
        return -EPROTO;
    if (has(o, "graph") && sc_cl_get_u64(c, m, o, "graph", UINT64_MAX, &r->graph) != 0)
        return -EPROTO;
    if (has(o, "cuda_error") && get_int(c, o, "cuda_error", &r->cuda_error) != 0)
        return -EPROTO;
    const cJSON *inv = cJSON_GetObjectItemCaseSensitive(o, "invalidated_by");
    if (!inv || cJSON_IsNull(inv))
        return 0;
    if (!cJSON_IsObject(inv))
        return sc_cl_malformed(c, m, "'invalidated_by' is not an object");
    return decode_invalidated_by(c, inv, r);
}

int sc_cl_decode_captures(sc_client *c, const cJSON *o, sc_client_log_entry *e)
{
    const sc_method_id m = SC_M_LOG_LIST;
    if (sc_cl_get_str(c, m, o, "semantics", true, &e->semantics) != 0)
        return -EPROTO;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(o, "captures");
    if (!list || cJSON_IsNull(list))
        return 0;
    if (!cJSON_IsArray(list))
        return sc_cl_malformed(c, m, "'captures' is not an array");
    size_t n = (size_t)cJSON_GetArraySize(list);
    if (n == 0)
        return 0;
    e->captures = calloc(n, sizeof(*e->captures));
    if (!e->captures)
        return sc_cl_fail(c, -ENOMEM, "out of memory");
    const cJSON *x;
    cJSON_ArrayForEach(x, list)
    {
        if (decode_capture(c, x, &e->captures[e->capture_count++]) != 0)
            return -EPROTO;
    }
    return 0;
}
