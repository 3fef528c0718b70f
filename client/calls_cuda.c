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

/* The methods that take sc_client_next_call's `call`. */
static bool takes_call(sc_method_id m)
{
    return m == SC_M_CAPTURE_RECORD_KERNEL || m == SC_M_CAPTURE_RECORD_MEMCPY ||
           m == SC_M_CAPTURE_RECORD_MEMSET || m == SC_M_CAPTURE_RECORD_HOST_CALLBACK ||
           m == SC_M_CAPTURE_RECORD_MEM_ALLOC || m == SC_M_CAPTURE_RECORD_MEM_FREE ||
           m == SC_M_CAPTURE_RECORD_EVENT || m == SC_M_CAPTURE_WAIT_EVENT || m == SC_M_CAPTURE_END;
}

/* Start a cuda call (its sc_cl_call has needs_reply: refused in a
 * pipeline, whose replies have no room for these results).  The call name
 * set for the next request goes with this one when its method takes one. */
static int begin_cuda(sc_client *c, const sc_cl_call *k, uint64_t session, uint32_t thread)
{
    const char *call = c ? c->next_call : NULL;
    if (c)
        c->next_call = NULL;
    int rc = sc_cl_start(c, k);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "session", session);
    if (thread)
        sc_cl_u64(c, "thread", thread);
    if (call && takes_call(k->m))
        sc_cl_str(c, "call", call);
    return 0;
}

void sc_client_next_call(sc_client *c, const char *call)
{
    if (c)
        c->next_call = call;
}

/* Digits by sc_json_u64, not printf: a launch's grid and block are six
 * numbers, and printf's set-up per number cost more than the rest of the
 * request (the stand-in formats one per captured launch). */
static void u32_array(sc_client *c, const char *key, const uint32_t *v, size_t n)
{
    sc_buf *b = sc_cl_key(c, key);
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            sc_buf_putc(b, ',');
        sc_json_u64(b, v[i]);
    }
    sc_buf_putc(b, ']');
}

static const sc_cl_call session_open = {.m = SC_M_SESSION_OPEN, .take = sc_cl_take_id};

int sc_client_open_session_ex(sc_client *c, const char *label, sc_client_semantics semantics,
                              uint64_t *session)
{
    return sc_client_open_session_flags(c, label, semantics, 0, session);
}

int sc_client_open_session_flags(sc_client *c, const char *label, sc_client_semantics semantics,
                                 unsigned flags, uint64_t *session)
{
    if (flags & ~(unsigned)SC_CLIENT_SESSION_BIND)
        return bad_arg(c, "unknown session flags");
    const char *name = sc_client_semantics_name(semantics);
    if (!name)
        return bad_arg(c, "unknown semantics");
    int rc = sc_cl_start(c, &session_open);
    if (rc != 0)
        return rc;
    if (label)
        sc_cl_str(c, "label", label);
    /* The default is left unsaid: the request is then the one of before. */
    if (semantics != SC_CLIENT_SEMANTICS_OXICUDA)
        sc_cl_str(c, "semantics", name);
    if (flags & SC_CLIENT_SESSION_BIND)
        sc_cl_raw(c, "bind", "true");
    return sc_cl_finish(c, &session_open, session);
}

/* Calls whose result is {} or unused. */
#define EMPTY(id)                                                                                  \
    {                                                                                              \
        .m = SC_M_##id, .needs_reply = true, .tree = true                                          \
    }
static const sc_cl_call stream_create = EMPTY(STREAM_CREATE);
static const sc_cl_call event_record = EMPTY(CAPTURE_RECORD_EVENT);
static const sc_cl_call event_wait = EMPTY(CAPTURE_WAIT_EVENT);
static const sc_cl_call update_deps = EMPTY(CAPTURE_UPDATE_DEPENDENCIES);
static const sc_cl_call host_call = EMPTY(CAPTURE_HOST_CALL);
#undef EMPTY

int sc_client_stream_create(sc_client *c, uint64_t session, uint32_t stream, bool non_blocking)
{
    int rc = begin_cuda(c, &stream_create, session, 0);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "stream", stream);
    sc_cl_str(c, "flags", non_blocking ? "non_blocking" : "default");
    return sc_cl_finish(c, &stream_create, NULL);
}

static int decode_capture_id(sc_client *c, sc_method_id m, const cJSON *res, void *out)
{
    return sc_cl_get_u64(c, m, res, "capture", UINT64_MAX, out);
}

static const sc_cl_call cuda_begin = {.m = SC_M_CAPTURE_BEGIN,
                                      .needs_reply = true,
                                      .tree = true,
                                      .decode = decode_capture_id,
                                      .size = sizeof(uint64_t)};

int sc_client_cuda_begin(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                         sc_client_capture_mode mode, uint64_t *capture)
{
    const char *name = sc_client_mode_name(mode);
    if (!name)
        return bad_arg(c, "unknown capture mode");
    int rc = begin_cuda(c, &cuda_begin, session, thread);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "stream", stream);
    sc_cl_str(c, "mode", name);
    return sc_cl_finish(c, &cuda_begin, capture);
}

/* {node}: an id, or null when nothing was recorded (-1). */
static int node_or_null(sc_client *c, sc_method_id m, const cJSON *res, void *out)
{
    int64_t *node = out;
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
/* The record calls: {node}, an id or null. */
#define RECORD(id)                                                                                 \
    {                                                                                              \
        .m = SC_M_##id, .needs_reply = true, .tree = true, .decode = node_or_null,                 \
        .size = sizeof(int64_t)                                                                    \
    }
static const sc_cl_call record_kernel = RECORD(CAPTURE_RECORD_KERNEL);
static const sc_cl_call record_memcpy = RECORD(CAPTURE_RECORD_MEMCPY);
static const sc_cl_call record_memset = RECORD(CAPTURE_RECORD_MEMSET);
static const sc_cl_call record_host = RECORD(CAPTURE_RECORD_HOST_CALLBACK);
static const sc_cl_call record_alloc = RECORD(CAPTURE_RECORD_MEM_ALLOC);
static const sc_cl_call record_free = RECORD(CAPTURE_RECORD_MEM_FREE);
static const sc_cl_call add_node = RECORD(CAPTURE_ADD_NODE);
static const sc_cl_call event_record_node = RECORD(CAPTURE_RECORD_EVENT);
static const sc_cl_call event_wait_node = RECORD(CAPTURE_WAIT_EVENT);
#undef RECORD

int sc_client_cuda_record_kernel(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                                 const char *function_name, const uint32_t grid[3],
                                 const uint32_t block[3], uint32_t shared_mem, int64_t *node)
{
    return sc_client_cuda_record_kernel_args(c, session, stream, thread, function_name, grid, block,
                                             shared_mem, NULL, 0, NULL, 0, node);
}

int sc_client_cuda_record_kernel_args(sc_client *c, uint64_t session, uint32_t stream,
                                      uint32_t thread, const char *function_name,
                                      const uint32_t grid[3], const uint32_t block[3],
                                      uint32_t shared_mem, const void *args, size_t args_len,
                                      const uint32_t *param_sizes, size_t nparams, int64_t *node)
{
    return sc_client_cuda_record_kernel_accesses(c, session, stream, thread, function_name, grid,
                                                 block, shared_mem, args, args_len, param_sizes,
                                                 nparams, NULL, 0, node);
}

int sc_client_cuda_record_kernel_accesses(sc_client *c, uint64_t session, uint32_t stream,
                                          uint32_t thread, const char *function_name,
                                          const uint32_t grid[3], const uint32_t block[3],
                                          uint32_t shared_mem, const void *args, size_t args_len,
                                          const uint32_t *param_sizes, size_t nparams,
                                          const sc_client_access *acc, size_t n, int64_t *node)
{
    if (!function_name || !grid || !block)
        return bad_arg(c, "function_name, grid and block must not be NULL");
    if (sc_cl_check_accesses(c, acc, n) != 0)
        return -EINVAL;
    uint64_t sum = 0;
    for (size_t i = 0; i < nparams && param_sizes; i++)
        sum += param_sizes[i];
    if (nparams && (!args || !param_sizes || sum != args_len || args_len > 32764))
        return bad_arg(c, "param_sizes must add up to args_len, at most 32764 bytes");
    int rc = begin_cuda(c, &record_kernel, session, thread);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "stream", stream);
    sc_cl_str(c, "function_name", function_name);
    u32_array(c, "grid", grid, 3);
    u32_array(c, "block", block, 3);
    sc_cl_u64(c, "shared_mem", shared_mem);
    if (nparams)
        sc_json_member_kargs(&c->out, &c->req_first, args, args_len, param_sizes, nparams);
    sc_cl_write_accesses(&c->out, &c->req_first, acc, n);
    return sc_cl_finish(c, &record_kernel, node);
}

/* Start a record call on (session, stream) with its `name`-like member. */
static int begin_record(sc_client *c, const sc_cl_call *k, uint64_t session, uint32_t stream,
                        uint32_t thread, const char *key, const char *value)
{
    if (!value) {
        if (!c)
            return -EINVAL;
        return sc_cl_fail(c, -EINVAL, "%s must not be NULL", key);
    }
    int rc = begin_cuda(c, k, session, thread);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "stream", stream);
    sc_cl_str(c, key, value);
    return 0;
}

/* Refused before anything is written: a bad list would otherwise reach
 * the daemon only to be answered -32602. */
int sc_cl_check_accesses(sc_client *c, const sc_client_access *acc, size_t n)
{
    if (n && !acc)
        return bad_arg(c, "accesses must not be NULL when n > 0");
    for (size_t i = 0; i < n; i++)
        if (acc[i].size == 0 || !sc_client_access_mode_name(acc[i].mode))
            return bad_arg(c, "an access needs a size of at least 1 and mode 1, 2 or 3");
    return 0;
}

void sc_cl_write_accesses(sc_buf *b, bool *first, const sc_client_access *acc, size_t n)
{
    if (n == 0)
        return;
    sc_json_key(b, first, "accesses");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        bool f;
        if (i)
            sc_buf_putc(b, ',');
        sc_json_obj_begin(b, &f);
        sc_json_member_u64(b, &f, "address", acc[i].address);
        sc_json_member_u64(b, &f, "size", acc[i].size);
        sc_json_member_cstr(b, &f, "mode", sc_client_access_mode_name(acc[i].mode));
        sc_json_obj_end(b);
    }
    sc_buf_putc(b, ']');
}

static void accesses_member(sc_client *c, const sc_client_access *acc, size_t n)
{
    sc_cl_write_accesses(&c->out, &c->req_first, acc, n);
}

int sc_client_cuda_record_memcpy_accesses(sc_client *c, uint64_t session, uint32_t stream,
                                          uint32_t thread, const char *name, sc_client_dir dir,
                                          uint64_t size_bytes, uint32_t src_device,
                                          uint32_t dst_device, const sc_client_access *acc,
                                          size_t n, int64_t *node)
{
    const sc_cl_call *k = &record_memcpy;
    const char *dname = sc_client_cuda_dir_name(dir);
    if (!dname)
        return bad_arg(c, "unknown memcpy direction");
    int rc = sc_cl_check_accesses(c, acc, n);
    if (rc == 0)
        rc = begin_record(c, k, session, stream, thread, "name", name);
    if (rc != 0)
        return rc;
    sc_cl_str(c, "dir", dname);
    sc_cl_u64(c, "size_bytes", size_bytes);
    if (dir == SC_CLIENT_PEER_TO_PEER) {
        sc_cl_u64(c, "src_device", src_device);
        sc_cl_u64(c, "dst_device", dst_device);
    }
    accesses_member(c, acc, n);
    return sc_cl_finish(c, k, node);
}

int sc_client_cuda_record_memcpy(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                                 const char *name, sc_client_dir dir, uint64_t size_bytes,
                                 uint32_t src_device, uint32_t dst_device, int64_t *node)
{
    return sc_client_cuda_record_memcpy_accesses(c, session, stream, thread, name, dir, size_bytes,
                                                 src_device, dst_device, NULL, 0, node);
}

int sc_client_cuda_record_memset_accesses(sc_client *c, uint64_t session, uint32_t stream,
                                          uint32_t thread, const char *name, uint64_t size_bytes,
                                          uint8_t value, const sc_client_access *acc, size_t n,
                                          int64_t *node)
{
    const sc_cl_call *k = &record_memset;
    int rc = sc_cl_check_accesses(c, acc, n);
    if (rc == 0)
        rc = begin_record(c, k, session, stream, thread, "name", name);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "size_bytes", size_bytes);
    sc_cl_u64(c, "value", value);
    accesses_member(c, acc, n);
    return sc_cl_finish(c, k, node);
}

int sc_client_cuda_record_memset(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                                 const char *name, uint64_t size_bytes, uint8_t value,
                                 int64_t *node)
{
    return sc_client_cuda_record_memset_accesses(c, session, stream, thread, name, size_bytes,
                                                 value, NULL, 0, node);
}

int sc_client_cuda_record_host_callback(sc_client *c, uint64_t session, uint32_t stream,
                                        uint32_t thread, const char *label, int64_t *node)
{
    const sc_cl_call *k = &record_host;
    int rc = begin_record(c, k, session, stream, thread, "label", label);
    return rc ? rc : sc_cl_finish(c, k, node);
}

int sc_client_cuda_record_graph(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                                const char *label, int64_t *node)
{
    const sc_cl_call *k = &record_host;
    int rc = begin_record(c, k, session, stream, thread, "label", label);
    if (rc != 0)
        return rc;
    sc_cl_str(c, "kind", "graph");
    return sc_cl_finish(c, k, node);
}

int sc_client_cuda_record_mem_alloc(sc_client *c, uint64_t session, uint32_t stream,
                                    uint32_t thread, const char *name, uint64_t size_bytes,
                                    int64_t *node)
{
    const sc_cl_call *k = &record_alloc;
    int rc = begin_record(c, k, session, stream, thread, "name", name);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "size_bytes", size_bytes);
    return sc_cl_finish(c, k, node);
}

int sc_client_cuda_record_mem_free(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                                   const char *name, int64_t *node)
{
    const sc_cl_call *k = &record_free;
    int rc = begin_record(c, k, session, stream, thread, "name", name);
    return rc ? rc : sc_cl_finish(c, k, node);
}

int sc_client_cuda_add_node(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                            sc_client_kind kind, const uint32_t *deps, size_t ndeps,
                            const char *name, uint32_t *node)
{
    const char *kname = sc_client_kind_name(kind);
    if (strcmp(kname, "unknown") == 0)
        return bad_arg(c, "unknown node kind");
    if (ndeps && !deps)
        return bad_arg(c, "deps must not be NULL");
    int rc = begin_cuda(c, &add_node, session, thread);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "stream", stream);
    sc_cl_str(c, "kind", kname);
    u32_array(c, "deps", deps, ndeps);
    if (name)
        sc_cl_str(c, "name", name);
    int64_t id = -1;
    rc = sc_cl_finish(c, &add_node, &id);
    if (rc == 0 && node && id >= 0)
        *node = (uint32_t)id;
    return rc;
}

int sc_client_cuda_add_node_ex(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                               const sc_client_node *node, const uint32_t *deps, size_t ndeps,
                               int64_t *node_out)
{
    if (!node)
        return bad_arg(c, "node must not be NULL");
    if (strcmp(sc_client_kind_name(node->kind), "unknown") == 0)
        return bad_arg(c, "unknown node kind");
    if (node->kind == SC_CLIENT_MEMCPY && !sc_client_cuda_dir_name(node->dir))
        return bad_arg(c, "unknown memcpy direction");
    if (ndeps && !deps)
        return bad_arg(c, "deps must not be NULL");
    if (sc_cl_check_accesses(c, node->accesses, node->naccesses) != 0)
        return -EINVAL;
    int rc = begin_cuda(c, &add_node, session, thread);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "stream", stream);
    u32_array(c, "deps", deps, ndeps);
    /* The node's stream is the call's: the daemon refuses another. */
    sc_cl_write_node(sc_cl_key(c, "node"), node, false);
    return sc_cl_finish(c, &add_node, node_out);
}

int sc_client_cuda_event(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                         uint32_t event, bool wait)
{
    const sc_cl_call *k = wait ? &event_wait : &event_record;
    int rc = begin_cuda(c, k, session, thread);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "stream", stream);
    sc_cl_u64(c, "event", event);
    return sc_cl_finish(c, k, NULL);
}

int sc_client_cuda_event_ex(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                            uint32_t event, bool wait, bool external, int64_t *node)
{
    const sc_cl_call *k = wait ? &event_wait_node : &event_record_node;
    int rc = begin_cuda(c, k, session, thread);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "stream", stream);
    sc_cl_u64(c, "event", event);
    /* Sent only when set, so that a daemon from before the flag still
     * takes the plain call. */
    if (external)
        sc_cl_raw(c, "external", "true");
    return sc_cl_finish(c, k, node);
}

int sc_client_update_dependencies(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                                  const uint32_t *nodes, size_t count, bool set)
{
    if (count && !nodes)
        return bad_arg(c, "nodes must not be NULL");
    int rc = begin_cuda(c, &update_deps, session, thread);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "stream", stream);
    u32_array(c, "nodes", nodes, count);
    sc_cl_str(c, "mode", set ? "set" : "add");
    return sc_cl_finish(c, &update_deps, NULL);
}

void sc_client_capture_info_free(sc_client_capture_info *i)
{
    if (!i)
        return;
    free(i->dependencies);
    memset(i, 0, sizeof(*i));
}

static int decode_info(sc_client *c, sc_method_id m, const cJSON *res, void *result)
{
    sc_client_capture_info *out = result;
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

static void drop_info(void *i)
{
    sc_client_capture_info_free(i);
}

static const sc_cl_call capture_info = {.m = SC_M_CAPTURE_INFO,
                                        .needs_reply = true,
                                        .tree = true,
                                        .decode = decode_info,
                                        .drop = drop_info,
                                        .size = sizeof(sc_client_capture_info)};
_Static_assert(sizeof(sc_client_capture_info) <= SC_CL_RESULT_MAX &&
                   sizeof(sc_client_cuda_captured) <= SC_CL_RESULT_MAX,
               "a result decoded aside fits SC_CL_RESULT_MAX");

int sc_client_capture_info_get(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                               sc_client_capture_info *out)
{
    if (!out)
        return bad_arg(c, "out must not be NULL");
    int rc = begin_cuda(c, &capture_info, session, thread);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "stream", stream);
    return sc_cl_finish(c, &capture_info, out);
}

int sc_client_host_call(sc_client *c, uint64_t session, uint32_t thread,
                        sc_client_host_call_kind kind, uint32_t stream, uint32_t event,
                        const char *call)
{
    if ((unsigned)kind >= COUNT(host_kind_names))
        return bad_arg(c, "unknown host call kind");
    int rc = begin_cuda(c, &host_call, session, thread);
    if (rc != 0)
        return rc;
    sc_cl_str(c, "kind", host_kind_names[kind]);
    if (kind == SC_CLIENT_HOST_STREAM_SYNC)
        sc_cl_u64(c, "stream", stream);
    if (kind == SC_CLIENT_HOST_EVENT_SYNC)
        sc_cl_u64(c, "event", event);
    if (call)
        sc_cl_str(c, "call", call);
    return sc_cl_finish(c, &host_call, NULL);
}

static int decode_old_mode(sc_client *c, sc_method_id m, const cJSON *res, void *out)
{
    const char *text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "mode"));
    return parse_mode(text, out) == 0 ? 0 : sc_cl_malformed(c, m, "bad 'mode'");
}

static const sc_cl_call exchange_mode = {.m = SC_M_CAPTURE_EXCHANGE_MODE,
                                         .needs_reply = true,
                                         .tree = true,
                                         .decode = decode_old_mode,
                                         .size = sizeof(sc_client_capture_mode)};

int sc_client_exchange_mode(sc_client *c, uint64_t session, uint32_t thread,
                            sc_client_capture_mode mode, sc_client_capture_mode *old)
{
    const char *name = sc_client_mode_name(mode);
    if (!name)
        return bad_arg(c, "unknown capture mode");
    int rc = begin_cuda(c, &exchange_mode, session, thread);
    if (rc != 0)
        return rc;
    sc_cl_str(c, "mode", name);
    return sc_cl_finish(c, &exchange_mode, old);
}

static int decode_end(sc_client *c, sc_method_id m, const cJSON *res, void *out)
{
    sc_client_cuda_captured *got = out;
    if (sc_cl_get_u64(c, m, res, "graph", UINT64_MAX, &got->graph) != 0 ||
        sc_cl_get_u64(c, m, res, "capture", UINT64_MAX, &got->capture) != 0 ||
        sc_cl_get_u64(c, m, res, "node_count", UINT64_MAX, &got->node_count) != 0 ||
        sc_cl_get_u64(c, m, res, "edge_count", UINT64_MAX, &got->edge_count) != 0)
        return -EPROTO;
    return 0;
}

static const sc_cl_call cuda_end = {.m = SC_M_CAPTURE_END,
                                    .needs_reply = true,
                                    .tree = true,
                                    .decode = decode_end,
                                    .size = sizeof(sc_client_cuda_captured)};

int sc_client_cuda_end(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                       sc_client_cuda_captured *out)
{
    return sc_client_cuda_end_bodies(c, session, stream, thread, NULL, 0, out);
}

/* `"bodies":[{node, index, nodes, edges}, ...]`. */
static int write_bodies(sc_client *c, const sc_client_body *bodies, size_t n)
{
    sc_buf *b = sc_cl_key(c, "bodies");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        bool first;
        if (i)
            sc_buf_putc(b, ',');
        sc_json_obj_begin(b, &first);
        sc_json_member_u64(b, &first, "node", bodies[i].node);
        sc_json_member_u64(b, &first, "index", bodies[i].index);
        if (sc_cl_write_subgraph(b, &first, &bodies[i].graph) != 0)
            return -ENOMEM;
        sc_json_obj_end(b);
    }
    sc_buf_putc(b, ']');
    return 0;
}

int sc_client_cuda_end_bodies(sc_client *c, uint64_t session, uint32_t stream, uint32_t thread,
                              const sc_client_body *bodies, size_t n, sc_client_cuda_captured *out)
{
    if (n && !bodies)
        return sc_cl_null_arg(c, "bodies");
    for (size_t i = 0; i < n; i++) {
        int rc = sc_cl_check_subgraph(c, &bodies[i].graph, 1);
        if (rc != 0)
            return rc;
    }
    int rc = begin_cuda(c, &cuda_end, session, thread);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "stream", stream);
    if (n && write_bodies(c, bodies, n) != 0) {
        sc_cl_cancel(c);
        return sc_cl_fail(c, -ENOMEM, "out of memory");
    }
    return sc_cl_finish(c, &cuda_end, out);
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
