/*
 * calls.c - the skeleton every typed call runs (begin the request, send it,
 * wait, decode the result, free the reply), and the calls on sessions,
 * captures and the server.  Each call is its params and the reading of
 * its result; the graph and log calls are in calls_graph.c, the cuda-mode
 * ones in calls_cuda.c.
 */
#define _POSIX_C_SOURCE 200809L

#include "client_int.h"

#include <errno.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------- skeleton */

int sc_cl_start(sc_client *c, const sc_cl_call *k)
{
    if (k->needs_reply) {
        if (!c)
            return -EINVAL;
        if (c->pipelining && !c->broken)
            return sc_cl_fail(c, -EBUSY, "%s cannot be called while a pipeline is open",
                              sc_methods[k->m].name);
    }
    return sc_cl_begin(c, k->m);
}

/* A small reply: queued in a pipeline (1), or decoded by sc_cl_simple. */
static int finish_small(sc_client *c, const sc_cl_call *k, void *out)
{
    sc_client_reply r;
    int rc = sc_cl_simple(c, k->m, &r);
    if (rc > 0)
        return 0;
    if (rc == 0 && out && k->take)
        k->take(&r, out);
    return rc;
}

int sc_cl_finish(sc_client *c, const sc_cl_call *k, void *out)
{
    if (!k->tree)
        return finish_small(c, k, out);
    cJSON *root;
    const cJSON *res;
    int rc = sc_cl_tree(c, k->m, &root, &res);
    /* 1: queued in asynchronous mode, the call's success. */
    if (rc != 0)
        return rc > 0 ? 0 : rc;
    if (!k->decode) {
        cJSON_Delete(root);
        return 0;
    }
    /* Decoded aside, so that a failure leaves the caller's result as it was. */
    alignas(max_align_t) unsigned char got[SC_CL_RESULT_MAX] = {0};
    void *into = k->size ? got : out;
    rc = k->decode(c, k->m, res, into);
    cJSON_Delete(root);
    if (rc != 0) {
        if (k->drop)
            k->drop(into);
        return rc;
    }
    if (k->size && out)
        memcpy(out, got, k->size);
    return 0;
}

int sc_cl_decode_array(sc_client *c, sc_method_id m, const cJSON *o, const char *key, size_t size,
                       int (*one)(sc_client *c, const cJSON *e, void *item), void **items,
                       size_t *count)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsArray(arr)) {
        char what[96];
        snprintf(what, sizeof(what), "'%s' is not an array", key);
        return sc_cl_malformed(c, m, what);
    }
    size_t n = (size_t)cJSON_GetArraySize(arr);
    unsigned char *all = calloc(n ? n : 1, size);
    *items = all;
    if (!all)
        return sc_cl_fail(c, -ENOMEM, "out of memory");
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        if (one(c, e, all + size * (*count)++) != 0)
            return -EPROTO;
    }
    return 0;
}

int sc_cl_null_arg(sc_client *c, const char *what)
{
    if (!c)
        return -EINVAL;
    return sc_cl_fail(c, -EINVAL, "%s must not be NULL", what);
}

/* What the small replies give back. */
void sc_cl_take_id(const sc_client_reply *r, void *out)
{
    *(uint64_t *)out = r->id;
}

static void take_node(const sc_client_reply *r, void *out)
{
    *(uint32_t *)out = (uint32_t)r->id;
}

/* ----------------------------------------------------------- sessions */

static const sc_cl_call session_close = {.m = SC_M_SESSION_CLOSE};

/* The default mode's open: calls_cuda.c's, with the semantics left unsaid. */
int sc_client_open_session(sc_client *c, const char *label, uint64_t *session)
{
    return sc_client_open_session_ex(c, label, SC_CLIENT_SEMANTICS_OXICUDA, session);
}

int sc_client_close_session(sc_client *c, uint64_t session)
{
    int rc = sc_cl_start(c, &session_close);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "session", session);
    return sc_cl_finish(c, &session_close, NULL);
}

void sc_client_session_desc_free(sc_client_session_desc *d)
{
    if (!d)
        return;
    free(d->label);
    free(d->streams);
    memset(d, 0, sizeof(*d));
}

static int decode_session(sc_client *c, sc_method_id m, const cJSON *res, void *out)
{
    sc_client_session_desc *d = out;
    if (sc_cl_get_u64(c, m, res, "session", UINT64_MAX, &d->session) != 0 ||
        sc_cl_get_str(c, m, res, "label", true, &d->label) != 0 ||
        sc_cl_get_bool(c, m, res, "capturing", &d->capturing) != 0 ||
        sc_cl_get_u64(c, m, res, "node_count", UINT64_MAX, &d->node_count) != 0)
        return -EPROTO;
    const cJSON *streams = cJSON_GetObjectItemCaseSensitive(res, "streams");
    if (!cJSON_IsArray(streams))
        return sc_cl_malformed(c, m, "'streams' is not an array");
    size_t n = (size_t)cJSON_GetArraySize(streams);
    d->streams = calloc(n ? n : 1, sizeof(*d->streams));
    if (!d->streams)
        return sc_cl_fail(c, -ENOMEM, "out of memory");
    const cJSON *s;
    cJSON_ArrayForEach(s, streams)
    {
        sc_client_stream *out = &d->streams[d->stream_count];
        uint64_t id;
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(s, "status");
        if (sc_cl_get_u64(c, m, s, "stream", UINT32_MAX, &id) != 0)
            return -EPROTO;
        out->stream = (uint32_t)id;
        if (!cJSON_IsString(st))
            return sc_cl_malformed(c, m, "a stream has no 'status'");
        if (strcmp(st->valuestring, "active") == 0)
            out->status = SC_CLIENT_STATUS_ACTIVE;
        else if (strcmp(st->valuestring, "invalidated") == 0)
            out->status = SC_CLIENT_STATUS_INVALIDATED;
        else if (strcmp(st->valuestring, "none") == 0)
            out->status = SC_CLIENT_STATUS_NONE;
        else
            return sc_cl_malformed(c, m, "unknown stream status");
        d->stream_count++;
    }
    return 0;
}

static void drop_session_info(void *d)
{
    sc_client_session_desc_free(d);
}

static const sc_cl_call session_info = {.m = SC_M_SESSION_INFO,
                                        .tree = true,
                                        .decode = decode_session,
                                        .drop = drop_session_info,
                                        .size = sizeof(sc_client_session_desc)};

int sc_client_session_info(sc_client *c, uint64_t session, sc_client_session_desc *out)
{
    if (!out)
        return sc_cl_null_arg(c, "out");
    int rc = sc_cl_start(c, &session_info);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "session", session);
    return sc_cl_finish(c, &session_info, out);
}

void sc_client_session_list_free(sc_client_session_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->count; i++) {
        free(l->sessions[i].label);
        free(l->sessions[i].opened_at);
        free(l->sessions[i].semantics);
    }
    free(l->sessions);
    memset(l, 0, sizeof(*l));
}

static int decode_session_summary(sc_client *c, const cJSON *o, void *item)
{
    sc_client_session_summary *s = item;
    const sc_method_id m = SC_M_SESSION_LIST;
    uint64_t uid;
    if (sc_cl_get_u64(c, m, o, "session", UINT64_MAX, &s->session) != 0 ||
        sc_cl_get_str(c, m, o, "label", true, &s->label) != 0 ||
        sc_cl_get_u64(c, m, o, "owner_uid", UINT32_MAX, &uid) != 0 ||
        sc_cl_get_i64(c, m, o, "owner_pid", &s->owner_pid) != 0 ||
        sc_cl_get_str(c, m, o, "opened_at", false, &s->opened_at) != 0 ||
        sc_cl_get_str(c, m, o, "semantics", false, &s->semantics) != 0 ||
        sc_cl_get_u64(c, m, o, "node_count", UINT64_MAX, &s->node_count) != 0)
        return -EPROTO;
    s->owner_uid = (uint32_t)uid;
    return 0;
}

static int decode_session_list(sc_client *c, sc_method_id m, const cJSON *res, void *out)
{
    sc_client_session_list *l = out;
    void *items = NULL;
    int rc = sc_cl_decode_array(c, m, res, "sessions", sizeof(*l->sessions), decode_session_summary,
                                &items, &l->count);
    l->sessions = items;
    return rc;
}

static void drop_sessions(void *l)
{
    sc_client_session_list_free(l);
}

static const sc_cl_call session_list = {.m = SC_M_SESSION_LIST,
                                        .tree = true,
                                        .decode = decode_session_list,
                                        .drop = drop_sessions,
                                        .size = sizeof(sc_client_session_list)};

int sc_client_list_sessions(sc_client *c, sc_client_session_list *out)
{
    if (!out)
        return sc_cl_null_arg(c, "out");
    int rc = sc_cl_start(c, &session_list);
    return rc ? rc : sc_cl_finish(c, &session_list, out);
}

/* ------------------------------------------------------------ capture */

static void take_status(const sc_client_reply *r, void *out)
{
    *(sc_client_status *)out = r->status;
}

static void take_capturing(const sc_client_reply *r, void *out)
{
    *(bool *)out = r->capturing;
}

static void take_node_count(const sc_client_reply *r, void *out)
{
    *(uint64_t *)out = r->node_count;
}

static void take_captured(const sc_client_reply *r, void *out)
{
    sc_client_captured *cap = out;
    cap->graph = r->id;
    cap->node_count = r->node_count;
    cap->edge_count = r->edge_count;
}

static const sc_cl_call capture_begin = {.m = SC_M_CAPTURE_BEGIN};
static const sc_cl_call record_kernel = {.m = SC_M_CAPTURE_RECORD_KERNEL, .take = take_node};
static const sc_cl_call record_memcpy_call = {.m = SC_M_CAPTURE_RECORD_MEMCPY, .take = take_node};
static const sc_cl_call record_memset = {.m = SC_M_CAPTURE_RECORD_MEMSET, .take = take_node};
static const sc_cl_call record_host = {.m = SC_M_CAPTURE_RECORD_HOST_CALLBACK, .take = take_node};
static const sc_cl_call record_event = {.m = SC_M_CAPTURE_RECORD_EVENT};
static const sc_cl_call wait_event = {.m = SC_M_CAPTURE_WAIT_EVENT};
static const sc_cl_call capture_status = {.m = SC_M_CAPTURE_STATUS, .take = take_status};
static const sc_cl_call is_capturing = {.m = SC_M_CAPTURE_IS_CAPTURING, .take = take_capturing};
static const sc_cl_call node_count = {.m = SC_M_CAPTURE_NODE_COUNT, .take = take_node_count};
static const sc_cl_call invalidate = {.m = SC_M_CAPTURE_INVALIDATE};
static const sc_cl_call capture_end = {.m = SC_M_CAPTURE_END, .take = take_captured};

/* Start a call on (session, stream): the two members every capture call has. */
static int start_on(sc_client *c, const sc_cl_call *k, uint64_t session, uint32_t stream)
{
    int rc = sc_cl_start(c, k);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "session", session);
    sc_cl_u64(c, "stream", stream);
    return 0;
}

/* A call whose params are (session, stream) alone. */
static int on_stream(sc_client *c, const sc_cl_call *k, uint64_t session, uint32_t stream,
                     void *out)
{
    int rc = start_on(c, k, session, stream);
    return rc ? rc : sc_cl_finish(c, k, out);
}

/* A call whose params are the session alone. */
static int on_session(sc_client *c, const sc_cl_call *k, uint64_t session, void *out)
{
    int rc = sc_cl_start(c, k);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "session", session);
    return sc_cl_finish(c, k, out);
}

int sc_client_begin_capture(sc_client *c, uint64_t session, uint32_t stream)
{
    return on_stream(c, &capture_begin, session, stream, NULL);
}

int sc_client_record_kernel(sc_client *c, uint64_t session, uint32_t stream,
                            const char *function_name, uint32_t num_blocks,
                            uint32_t threads_per_block, uint32_t shared_mem, uint32_t *node)
{
    if (!function_name)
        return sc_cl_null_arg(c, "function_name");
    int rc = start_on(c, &record_kernel, session, stream);
    if (rc != 0)
        return rc;
    sc_cl_str(c, "function_name", function_name);
    sc_cl_u64(c, "num_blocks", num_blocks);
    sc_cl_u64(c, "threads_per_block", threads_per_block);
    sc_cl_u64(c, "shared_mem", shared_mem);
    return sc_cl_finish(c, &record_kernel, node);
}

static int record_memcpy(sc_client *c, uint64_t session, uint32_t stream, const char *name,
                         sc_client_dir dir, uint64_t size_bytes, const uint32_t *devices,
                         uint32_t *node)
{
    if (!name)
        return sc_cl_null_arg(c, "name");
    const char *dname = sc_client_cuda_dir_name(dir);
    if (!dname)
        return c ? sc_cl_fail(c, -EINVAL, "unknown memcpy direction %d", (int)dir) : -EINVAL;
    int rc = start_on(c, &record_memcpy_call, session, stream);
    if (rc != 0)
        return rc;
    sc_cl_str(c, "name", name);
    sc_cl_str(c, "dir", dname);
    sc_cl_u64(c, "size_bytes", size_bytes);
    if (devices) {
        sc_cl_u64(c, "src_device", devices[0]);
        sc_cl_u64(c, "dst_device", devices[1]);
    }
    return sc_cl_finish(c, &record_memcpy_call, node);
}

int sc_client_record_memcpy(sc_client *c, uint64_t session, uint32_t stream, const char *name,
                            sc_client_dir dir, uint64_t size_bytes, uint32_t *node)
{
    return record_memcpy(c, session, stream, name, dir, size_bytes, NULL, node);
}

int sc_client_record_memcpy_peer(sc_client *c, uint64_t session, uint32_t stream, const char *name,
                                 uint64_t size_bytes, uint32_t src_device, uint32_t dst_device,
                                 uint32_t *node)
{
    const uint32_t devices[2] = {src_device, dst_device};
    return record_memcpy(c, session, stream, name, SC_CLIENT_PEER_TO_PEER, size_bytes, devices,
                         node);
}

int sc_client_record_memset(sc_client *c, uint64_t session, uint32_t stream, const char *name,
                            uint64_t size_bytes, uint8_t value, uint32_t *node)
{
    if (!name)
        return sc_cl_null_arg(c, "name");
    int rc = start_on(c, &record_memset, session, stream);
    if (rc != 0)
        return rc;
    sc_cl_str(c, "name", name);
    sc_cl_u64(c, "size_bytes", size_bytes);
    sc_cl_u64(c, "value", value);
    return sc_cl_finish(c, &record_memset, node);
}

int sc_client_record_host_callback(sc_client *c, uint64_t session, uint32_t stream,
                                   const char *label, uint32_t *node)
{
    if (!label)
        return sc_cl_null_arg(c, "label");
    int rc = start_on(c, &record_host, session, stream);
    if (rc != 0)
        return rc;
    sc_cl_str(c, "label", label);
    return sc_cl_finish(c, &record_host, node);
}

static int event_call(sc_client *c, const sc_cl_call *k, uint64_t session, uint32_t stream,
                      uint32_t event)
{
    int rc = start_on(c, k, session, stream);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "event", event);
    return sc_cl_finish(c, k, NULL);
}

int sc_client_record_event(sc_client *c, uint64_t session, uint32_t stream, uint32_t event)
{
    return event_call(c, &record_event, session, stream, event);
}

int sc_client_wait_event(sc_client *c, uint64_t session, uint32_t stream, uint32_t event)
{
    return event_call(c, &wait_event, session, stream, event);
}

int sc_client_capture_status(sc_client *c, uint64_t session, uint32_t stream,
                             sc_client_status *status)
{
    return on_stream(c, &capture_status, session, stream, status);
}

int sc_client_is_capturing(sc_client *c, uint64_t session, bool *capturing)
{
    return on_session(c, &is_capturing, session, capturing);
}

int sc_client_node_count(sc_client *c, uint64_t session, uint64_t *count)
{
    return on_session(c, &node_count, session, count);
}

int sc_client_invalidate(sc_client *c, uint64_t session, uint32_t stream)
{
    return on_stream(c, &invalidate, session, stream, NULL);
}

int sc_client_end_capture(sc_client *c, uint64_t session, uint32_t stream, sc_client_captured *out)
{
    return on_stream(c, &capture_end, session, stream, out);
}

/* ------------------------------------------------------------- server */

void sc_client_server_desc_free(sc_client_server_desc *d)
{
    if (!d)
        return;
    free(d->version);
    free(d->db_path);
    free(d->sync);
    free(d->backend);
    free(d->host);
    memset(d, 0, sizeof(*d));
}

/* Any member missing or malformed is -EPROTO, -ENOMEM included. */
static int decode_server(sc_client *c, sc_method_id m, const cJSON *res, void *out)
{
    sc_client_server_desc *d = out;
    if (sc_cl_get_str(c, m, res, "version", false, &d->version) != 0 ||
        sc_cl_get_u64(c, m, res, "uptime_s", UINT64_MAX, &d->uptime_s) != 0 ||
        sc_cl_get_u64(c, m, res, "connections", UINT64_MAX, &d->connections) != 0 ||
        sc_cl_get_u64(c, m, res, "sessions", UINT64_MAX, &d->sessions) != 0 ||
        sc_cl_get_u64(c, m, res, "graphs", UINT64_MAX, &d->graphs) != 0 ||
        sc_cl_get_str(c, m, res, "db_path", true, &d->db_path) != 0 ||
        sc_cl_get_u64(c, m, res, "db_bytes", UINT64_MAX, &d->db_bytes) != 0 ||
        sc_cl_get_i64(c, m, res, "pid", &d->pid) != 0 ||
        sc_cl_get_str(c, m, res, "sync", false, &d->sync) != 0 ||
        sc_cl_get_u64(c, m, res, "cache_max_bytes", UINT64_MAX, &d->cache_max_bytes) != 0 ||
        sc_cl_get_u64(c, m, res, "cache_bytes", UINT64_MAX, &d->cache_bytes) != 0 ||
        sc_cl_get_u64(c, m, res, "cache_entries", UINT64_MAX, &d->cache_entries) != 0 ||
        sc_cl_get_u64(c, m, res, "cache_hits", UINT64_MAX, &d->cache_hits) != 0 ||
        sc_cl_get_u64(c, m, res, "cache_misses", UINT64_MAX, &d->cache_misses) != 0 ||
        sc_cl_get_new_str(c, m, res, "backend", &d->backend) != 0 ||
        sc_cl_get_new_str(c, m, res, "host", &d->host) != 0)
        return -EPROTO;
    return 0;
}

static void drop_server(void *d)
{
    sc_client_server_desc_free(d);
}

static const sc_cl_call server_info = {.m = SC_M_SERVER_INFO,
                                       .tree = true,
                                       .decode = decode_server,
                                       .drop = drop_server,
                                       .size = sizeof(sc_client_server_desc)};

int sc_client_server_info(sc_client *c, sc_client_server_desc *out)
{
    if (!out)
        return sc_cl_null_arg(c, "out");
    int rc = sc_cl_start(c, &server_info);
    return rc ? rc : sc_cl_finish(c, &server_info, out);
}

/* ---------------------------------------------------------------- raw */

int sc_client_call_raw(sc_client *c, const char *method, const char *params_json,
                       char **result_json)
{
    if (!method)
        return sc_cl_null_arg(c, "method");
    if (!result_json)
        return sc_cl_null_arg(c, "result_json");
    if (!c)
        return -EINVAL;
    const char *text = params_json ? params_json : "{}";
    cJSON *params = cJSON_ParseWithOpts(text, NULL, 1);
    cJSON_Delete(params);
    if (!params)
        return sc_cl_fail(c, -EINVAL, "params are not valid JSON");
    /* Sent as written (numbers beyond a double's precision stay exact),
     * on one line: a newline can only be whitespace in valid JSON. */
    char *compact = strdup(text);
    if (!compact)
        return sc_cl_fail(c, -ENOMEM, "out of memory");
    for (char *p = compact; *p; p++) {
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    }
    cJSON *root;
    const cJSON *res;
    int rc = sc_cl_tree_raw(c, method, compact, &root, &res);
    free(compact);
    if (rc != 0)
        return rc;
    char *out = cJSON_PrintUnformatted(res);
    cJSON_Delete(root);
    if (!out)
        return sc_cl_fail(c, -ENOMEM, "out of memory");
    *result_json = out;
    return 0;
}

_Static_assert(sizeof(sc_client_session_desc) <= SC_CL_RESULT_MAX &&
                   sizeof(sc_client_session_list) <= SC_CL_RESULT_MAX &&
                   sizeof(sc_client_server_desc) <= SC_CL_RESULT_MAX,
               "a result decoded aside fits SC_CL_RESULT_MAX");
