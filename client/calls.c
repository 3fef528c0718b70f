/*
 * calls.c - one function per protocol method: write the params, send,
 * turn the reply into the typed result.
 */
#define _POSIX_C_SOURCE 200809L

#include "client_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Only the wire-name lists: the client does not link core. */
#include "sc_graph.h"

/* ------------------------------------------------------------- values */

const char *sc_client_status_name(sc_client_status s)
{
    switch (s) {
    case SC_CLIENT_STATUS_NONE:
        return "none";
    case SC_CLIENT_STATUS_ACTIVE:
        return "active";
    case SC_CLIENT_STATUS_INVALIDATED:
        return "invalidated";
    }
    return "none";
}

/* Indexed by the client's enums, which share core's suffixes
 * (SC_CLIENT_KERNEL, SC_CLIENT_HOST_TO_DEVICE, ...). */
#define SC_CL_NAME(id, name) [SC_CLIENT_##id] = name,
static const char *const kind_names[] = {SC_NODE_KINDS(SC_CL_NAME)};
static const char *const dir_names[] = {SC_MEMCPY_DIRS(SC_CL_NAME)};
#undef SC_CL_NAME

/* As many entries as values (and no index twice: -Woverride-init). */
#define SC_CL_ONE(id, name) +1
_Static_assert(0 SC_NODE_KINDS(SC_CL_ONE) == SC_CLIENT_HOST_CALLBACK + 1,
               "SC_NODE_KINDS names every sc_client_kind");
_Static_assert(0 SC_MEMCPY_DIRS(SC_CL_ONE) == SC_CLIENT_PEER_TO_PEER + 1,
               "SC_MEMCPY_DIRS names every sc_client_dir");
#undef SC_CL_ONE

/* What cuda mode adds, after the shared values (core/sc_graph.h has only
 * those; the daemon's cuda model names the rest). */
static const char *const cuda_dir_names[] = {"host_to_host", "default"};
static const char *const cuda_kind_names[] = {"mem_alloc", "mem_free", "event_record", "event_wait",
                                              "empty"};
_Static_assert(SC_CLIENT_DIR_DEFAULT == SC_CLIENT_PEER_TO_PEER + 2, "two cuda-only directions");
_Static_assert(SC_CLIENT_EMPTY == SC_CLIENT_HOST_CALLBACK + 5, "five cuda-only kinds");

#define NDIRS  (sizeof(dir_names) / sizeof(dir_names[0]))
#define NKINDS (sizeof(kind_names) / sizeof(kind_names[0]))

/* Name i of the shared table then of the cuda one; NULL past both. */
static const char *name_at(const char *const *shared, size_t ns, const char *const *cuda, size_t nc,
                           unsigned i)
{
    if (i < ns)
        return shared[i];
    return i - ns < nc ? cuda[i - ns] : NULL;
}

static int index_of(const char *const *shared, size_t ns, const char *const *cuda, size_t nc,
                    const char *name)
{
    for (unsigned i = 0; name && i < ns + nc; i++) {
        if (strcmp(name, name_at(shared, ns, cuda, nc, i)) == 0)
            return (int)i;
    }
    return -1;
}

/* The default mode's names stay its four: a default-mode session has no
 * other direction. */
const char *sc_client_dir_name(sc_client_dir d)
{
    return name_at(dir_names, NDIRS, cuda_dir_names, 0, (unsigned)d);
}

int sc_client_dir_parse(const char *name, sc_client_dir *out)
{
    int i = index_of(dir_names, NDIRS, cuda_dir_names, 0, name);
    if (i < 0)
        return -EINVAL;
    *out = (sc_client_dir)i;
    return 0;
}

const char *sc_client_cuda_dir_name(sc_client_dir d)
{
    return name_at(dir_names, NDIRS, cuda_dir_names, 2, (unsigned)d);
}

int sc_client_cuda_dir_parse(const char *name, sc_client_dir *out)
{
    int i = index_of(dir_names, NDIRS, cuda_dir_names, 2, name);
    if (i < 0)
        return -EINVAL;
    *out = (sc_client_dir)i;
    return 0;
}

const char *sc_client_kind_name(sc_client_kind k)
{
    const char *name = name_at(kind_names, NKINDS, cuda_kind_names, 5, (unsigned)k);
    return name ? name : "unknown";
}

static int parse_kind(const char *name, sc_client_kind *out)
{
    int i = index_of(kind_names, NKINDS, cuda_kind_names, 5, name);
    if (i < 0)
        return -EINVAL;
    *out = (sc_client_kind)i;
    return 0;
}

/* ------------------------------------------------------------ helpers */

static int null_arg(sc_client *c, const char *what)
{
    if (!c)
        return -EINVAL;
    return sc_cl_fail(c, -EINVAL, "%s must not be NULL", what);
}

/* Begin a call on (session, stream): the two members every capture call has. */
static int begin_on(sc_client *c, sc_method_id m, uint64_t session, uint32_t stream)
{
    int rc = sc_cl_begin(c, m);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "session", session);
    sc_cl_u64(c, "stream", stream);
    return 0;
}

/* Finish a call whose result is ignored or only {}. */
static int finish_plain(sc_client *c, sc_method_id m)
{
    sc_client_reply r;
    int rc = sc_cl_simple(c, m, &r);
    return rc > 0 ? 0 : rc;
}

static int finish_node(sc_client *c, sc_method_id m, uint32_t *node)
{
    sc_client_reply r;
    int rc = sc_cl_simple(c, m, &r);
    if (rc > 0)
        return 0;
    if (rc == 0 && node)
        *node = (uint32_t)r.id;
    return rc;
}

/* ----------------------------------------------------------- sessions */

int sc_client_open_session(sc_client *c, const char *label, uint64_t *session)
{
    int rc = sc_cl_begin(c, SC_M_SESSION_OPEN);
    if (rc != 0)
        return rc;
    if (label)
        sc_cl_str(c, "label", label);
    sc_client_reply r;
    rc = sc_cl_simple(c, SC_M_SESSION_OPEN, &r);
    if (rc > 0)
        return 0;
    if (rc == 0 && session)
        *session = r.id;
    return rc;
}

int sc_client_close_session(sc_client *c, uint64_t session)
{
    int rc = sc_cl_begin(c, SC_M_SESSION_CLOSE);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "session", session);
    return finish_plain(c, SC_M_SESSION_CLOSE);
}

void sc_client_session_desc_free(sc_client_session_desc *d)
{
    if (!d)
        return;
    free(d->label);
    free(d->streams);
    memset(d, 0, sizeof(*d));
}

static int decode_session(sc_client *c, const cJSON *res, sc_client_session_desc *d)
{
    const sc_method_id m = SC_M_SESSION_INFO;
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

int sc_client_session_info(sc_client *c, uint64_t session, sc_client_session_desc *out)
{
    if (!out)
        return null_arg(c, "out");
    int rc = sc_cl_begin(c, SC_M_SESSION_INFO);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "session", session);
    cJSON *root;
    const cJSON *res;
    rc = sc_cl_tree(c, SC_M_SESSION_INFO, &root, &res);
    if (rc != 0)
        return rc;
    sc_client_session_desc d = {0};
    rc = decode_session(c, res, &d);
    cJSON_Delete(root);
    if (rc != 0) {
        sc_client_session_desc_free(&d);
        return rc;
    }
    *out = d;
    return 0;
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

static int decode_session_summary(sc_client *c, const cJSON *o, sc_client_session_summary *s)
{
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

static int decode_session_list(sc_client *c, const cJSON *res, sc_client_session_list *l)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(res, "sessions");
    if (!cJSON_IsArray(arr))
        return sc_cl_malformed(c, SC_M_SESSION_LIST, "'sessions' is not an array");
    size_t n = (size_t)cJSON_GetArraySize(arr);
    l->sessions = calloc(n ? n : 1, sizeof(*l->sessions));
    if (!l->sessions)
        return sc_cl_fail(c, -ENOMEM, "out of memory");
    const cJSON *o;
    cJSON_ArrayForEach(o, arr)
    {
        /* Counted first, so a half-decoded entry is freed too. */
        sc_client_session_summary *s = &l->sessions[l->count++];
        if (decode_session_summary(c, o, s) != 0)
            return -EPROTO;
    }
    return 0;
}

int sc_client_list_sessions(sc_client *c, sc_client_session_list *out)
{
    if (!out)
        return null_arg(c, "out");
    int rc = sc_cl_begin(c, SC_M_SESSION_LIST);
    if (rc != 0)
        return rc;
    cJSON *root;
    const cJSON *res;
    rc = sc_cl_tree(c, SC_M_SESSION_LIST, &root, &res);
    if (rc != 0)
        return rc;
    sc_client_session_list l = {0};
    rc = decode_session_list(c, res, &l);
    cJSON_Delete(root);
    if (rc != 0) {
        sc_client_session_list_free(&l);
        return rc;
    }
    *out = l;
    return 0;
}

/* ------------------------------------------------------------ capture */

int sc_client_begin_capture(sc_client *c, uint64_t session, uint32_t stream)
{
    int rc = begin_on(c, SC_M_CAPTURE_BEGIN, session, stream);
    return rc ? rc : finish_plain(c, SC_M_CAPTURE_BEGIN);
}

int sc_client_record_kernel(sc_client *c, uint64_t session, uint32_t stream,
                            const char *function_name, uint32_t num_blocks,
                            uint32_t threads_per_block, uint32_t shared_mem, uint32_t *node)
{
    if (!function_name)
        return null_arg(c, "function_name");
    int rc = begin_on(c, SC_M_CAPTURE_RECORD_KERNEL, session, stream);
    if (rc != 0)
        return rc;
    sc_cl_str(c, "function_name", function_name);
    sc_cl_u64(c, "num_blocks", num_blocks);
    sc_cl_u64(c, "threads_per_block", threads_per_block);
    sc_cl_u64(c, "shared_mem", shared_mem);
    return finish_node(c, SC_M_CAPTURE_RECORD_KERNEL, node);
}

static int record_memcpy(sc_client *c, uint64_t session, uint32_t stream, const char *name,
                         sc_client_dir dir, uint64_t size_bytes, const uint32_t *devices,
                         uint32_t *node)
{
    if (!name)
        return null_arg(c, "name");
    const char *dname = sc_client_cuda_dir_name(dir);
    if (!dname)
        return c ? sc_cl_fail(c, -EINVAL, "unknown memcpy direction %d", (int)dir) : -EINVAL;
    int rc = begin_on(c, SC_M_CAPTURE_RECORD_MEMCPY, session, stream);
    if (rc != 0)
        return rc;
    sc_cl_str(c, "name", name);
    sc_cl_str(c, "dir", dname);
    sc_cl_u64(c, "size_bytes", size_bytes);
    if (devices) {
        sc_cl_u64(c, "src_device", devices[0]);
        sc_cl_u64(c, "dst_device", devices[1]);
    }
    return finish_node(c, SC_M_CAPTURE_RECORD_MEMCPY, node);
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
        return null_arg(c, "name");
    int rc = begin_on(c, SC_M_CAPTURE_RECORD_MEMSET, session, stream);
    if (rc != 0)
        return rc;
    sc_cl_str(c, "name", name);
    sc_cl_u64(c, "size_bytes", size_bytes);
    sc_cl_u64(c, "value", value);
    return finish_node(c, SC_M_CAPTURE_RECORD_MEMSET, node);
}

int sc_client_record_host_callback(sc_client *c, uint64_t session, uint32_t stream,
                                   const char *label, uint32_t *node)
{
    if (!label)
        return null_arg(c, "label");
    int rc = begin_on(c, SC_M_CAPTURE_RECORD_HOST_CALLBACK, session, stream);
    if (rc != 0)
        return rc;
    sc_cl_str(c, "label", label);
    return finish_node(c, SC_M_CAPTURE_RECORD_HOST_CALLBACK, node);
}

static int event_call(sc_client *c, sc_method_id m, uint64_t session, uint32_t stream,
                      uint32_t event)
{
    int rc = begin_on(c, m, session, stream);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "event", event);
    return finish_plain(c, m);
}

int sc_client_record_event(sc_client *c, uint64_t session, uint32_t stream, uint32_t event)
{
    return event_call(c, SC_M_CAPTURE_RECORD_EVENT, session, stream, event);
}

int sc_client_wait_event(sc_client *c, uint64_t session, uint32_t stream, uint32_t event)
{
    return event_call(c, SC_M_CAPTURE_WAIT_EVENT, session, stream, event);
}

int sc_client_capture_status(sc_client *c, uint64_t session, uint32_t stream,
                             sc_client_status *status)
{
    int rc = begin_on(c, SC_M_CAPTURE_STATUS, session, stream);
    if (rc != 0)
        return rc;
    sc_client_reply r;
    rc = sc_cl_simple(c, SC_M_CAPTURE_STATUS, &r);
    if (rc > 0)
        return 0;
    if (rc == 0 && status)
        *status = r.status;
    return rc;
}

int sc_client_is_capturing(sc_client *c, uint64_t session, bool *capturing)
{
    int rc = sc_cl_begin(c, SC_M_CAPTURE_IS_CAPTURING);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "session", session);
    sc_client_reply r;
    rc = sc_cl_simple(c, SC_M_CAPTURE_IS_CAPTURING, &r);
    if (rc > 0)
        return 0;
    if (rc == 0 && capturing)
        *capturing = r.capturing;
    return rc;
}

int sc_client_node_count(sc_client *c, uint64_t session, uint64_t *count)
{
    int rc = sc_cl_begin(c, SC_M_CAPTURE_NODE_COUNT);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "session", session);
    sc_client_reply r;
    rc = sc_cl_simple(c, SC_M_CAPTURE_NODE_COUNT, &r);
    if (rc > 0)
        return 0;
    if (rc == 0 && count)
        *count = r.node_count;
    return rc;
}

int sc_client_invalidate(sc_client *c, uint64_t session, uint32_t stream)
{
    int rc = begin_on(c, SC_M_CAPTURE_INVALIDATE, session, stream);
    return rc ? rc : finish_plain(c, SC_M_CAPTURE_INVALIDATE);
}

int sc_client_end_capture(sc_client *c, uint64_t session, uint32_t stream, sc_client_captured *out)
{
    int rc = begin_on(c, SC_M_CAPTURE_END, session, stream);
    if (rc != 0)
        return rc;
    sc_client_reply r;
    rc = sc_cl_simple(c, SC_M_CAPTURE_END, &r);
    if (rc > 0)
        return 0;
    if (rc == 0 && out) {
        out->graph = r.id;
        out->node_count = r.node_count;
        out->edge_count = r.edge_count;
    }
    return rc;
}

/* ------------------------------------------------------------- graphs */

/* A string member a daemon from before hosts and storage backends does not
 * send (host, backend): absent or null reads as "", so that callers never
 * meet NULL there. */
static int get_new_str(sc_client *c, sc_method_id m, const cJSON *o, const char *key, char **out)
{
    if (sc_cl_get_str(c, m, o, key, true, out) != 0)
        return -EPROTO;
    if (!*out && !(*out = strdup("")))
        return sc_cl_fail(c, -ENOMEM, "out of memory");
    return 0;
}

static void node_free(sc_client_node *n)
{
    free(n->name);
    free(n->function_name);
    free(n->label);
}

void sc_client_graph_free(sc_client_graph *g)
{
    if (!g)
        return;
    for (size_t i = 0; g->nodes && i < g->node_count; i++)
        node_free(&g->nodes[i]);
    free(g->nodes);
    free(g->edges);
    free(g->label);
    free(g->created_at);
    free(g->host);
    memset(g, 0, sizeof(*g));
}

static int get_u32(sc_client *c, sc_method_id m, const cJSON *o, const char *key, uint32_t *out)
{
    uint64_t v;
    if (sc_cl_get_u64(c, m, o, key, UINT32_MAX, &v) != 0)
        return -EPROTO;
    *out = (uint32_t)v;
    return 0;
}

/* A kernel's grid and block: [x, y, z] in cuda-mode graphs, else the x
 * extents alone. */
static int decode_dim3(sc_client *c, const cJSON *o, sc_client_node *n)
{
    const cJSON *grid = cJSON_GetObjectItemCaseSensitive(o, "grid");
    const cJSON *block = cJSON_GetObjectItemCaseSensitive(o, "block");
    n->grid[0] = n->num_blocks;
    n->block[0] = n->threads_per_block;
    n->grid[1] = n->grid[2] = n->block[1] = n->block[2] = 1;
    if (!grid && !block)
        return 0;
    if (cJSON_GetArraySize(grid) != 3 || cJSON_GetArraySize(block) != 3)
        return sc_cl_malformed(c, SC_M_GRAPH_GET, "a kernel's 'grid' or 'block' is not [x, y, z]");
    for (int i = 0; i < 3; i++) {
        const cJSON *g = cJSON_GetArrayItem(grid, i), *b = cJSON_GetArrayItem(block, i);
        if (!cJSON_IsNumber(g) || !cJSON_IsNumber(b) || !(g->valuedouble >= 0) ||
            !(b->valuedouble >= 0) || g->valuedouble > UINT32_MAX || b->valuedouble > UINT32_MAX)
            return sc_cl_malformed(c, SC_M_GRAPH_GET, "a kernel's extent is not a u32");
        n->grid[i] = (uint32_t)g->valuedouble;
        n->block[i] = (uint32_t)b->valuedouble;
    }
    n->dim3 = true;
    return 0;
}

static int decode_kind_fields(sc_client *c, const cJSON *o, sc_client_node *n)
{
    const sc_method_id m = SC_M_GRAPH_GET;
    uint64_t v;
    switch (n->kind) {
    case SC_CLIENT_KERNEL:
        if (sc_cl_get_str(c, m, o, "function_name", false, &n->function_name) != 0 ||
            get_u32(c, m, o, "num_blocks", &n->num_blocks) != 0 ||
            get_u32(c, m, o, "threads_per_block", &n->threads_per_block) != 0 ||
            get_u32(c, m, o, "shared_mem", &n->shared_mem) != 0)
            return -EPROTO;
        return decode_dim3(c, o, n);
    case SC_CLIENT_MEMCPY: {
        const cJSON *dir = cJSON_GetObjectItemCaseSensitive(o, "dir");
        if (!cJSON_IsString(dir) || sc_client_cuda_dir_parse(dir->valuestring, &n->dir) != 0)
            return sc_cl_malformed(c, m, "a memcpy node has no valid 'dir'");
        if (sc_cl_get_u64(c, m, o, "size_bytes", UINT64_MAX, &n->size_bytes) != 0)
            return -EPROTO;
        if (n->dir == SC_CLIENT_PEER_TO_PEER &&
            (get_u32(c, m, o, "src_device", &n->src_device) != 0 ||
             get_u32(c, m, o, "dst_device", &n->dst_device) != 0))
            return -EPROTO;
        return 0;
    }
    case SC_CLIENT_MEMSET:
        if (sc_cl_get_u64(c, m, o, "size_bytes", UINT64_MAX, &n->size_bytes) != 0 ||
            sc_cl_get_u64(c, m, o, "value", UINT8_MAX, &v) != 0)
            return -EPROTO;
        n->value = (uint8_t)v;
        return 0;
    case SC_CLIENT_HOST_CALLBACK:
        return sc_cl_get_str(c, m, o, "label", false, &n->label);
    case SC_CLIENT_MEM_ALLOC:
        return sc_cl_get_u64(c, m, o, "size_bytes", UINT64_MAX, &n->size_bytes);
    case SC_CLIENT_EVENT_RECORD:
    case SC_CLIENT_EVENT_WAIT:
        return get_u32(c, m, o, "event", &n->event);
    case SC_CLIENT_MEM_FREE:
    case SC_CLIENT_EMPTY:
        return 0;
    }
    return sc_cl_malformed(c, m, "unknown node kind");
}

static int decode_node(sc_client *c, const cJSON *o, sc_client_node *n)
{
    const sc_method_id m = SC_M_GRAPH_GET;
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(o, "kind");
    if (!cJSON_IsString(kind) || parse_kind(kind->valuestring, &n->kind) != 0)
        return sc_cl_malformed(c, m, "a node has no valid 'kind'");
    if (get_u32(c, m, o, "id", &n->id) != 0 || get_u32(c, m, o, "stream", &n->stream) != 0 ||
        sc_cl_get_str(c, m, o, "name", false, &n->name) != 0)
        return -EPROTO;
    return decode_kind_fields(c, o, n);
}

static int decode_edges(sc_client *c, const cJSON *edges, sc_client_graph *g)
{
    const sc_method_id m = SC_M_GRAPH_GET;
    if (!cJSON_IsArray(edges))
        return sc_cl_malformed(c, m, "'edges' is not an array");
    size_t n = (size_t)cJSON_GetArraySize(edges);
    g->edges = calloc(n ? n : 1, sizeof(*g->edges));
    if (!g->edges)
        return sc_cl_fail(c, -ENOMEM, "out of memory");
    const cJSON *e;
    cJSON_ArrayForEach(e, edges)
    {
        uint64_t src, dst;
        const cJSON *a = cJSON_GetArrayItem(e, 0);
        const cJSON *b = cJSON_GetArrayItem(e, 1);
        if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 2 || !cJSON_IsNumber(a) ||
            !cJSON_IsNumber(b) || a->valuedouble < 0 || a->valuedouble > UINT32_MAX ||
            b->valuedouble < 0 || b->valuedouble > UINT32_MAX)
            return sc_cl_malformed(c, m, "an edge is not [src, dst]");
        src = (uint64_t)a->valuedouble;
        dst = (uint64_t)b->valuedouble;
        g->edges[g->edge_count].src = (uint32_t)src;
        g->edges[g->edge_count].dst = (uint32_t)dst;
        g->edge_count++;
    }
    return 0;
}

static int decode_graph(sc_client *c, const cJSON *res, sc_client_graph *g)
{
    const sc_method_id m = SC_M_GRAPH_GET;
    uint64_t uid;
    if (sc_cl_get_u64(c, m, res, "graph", UINT64_MAX, &g->graph) != 0 ||
        sc_cl_get_str(c, m, res, "label", true, &g->label) != 0 ||
        sc_cl_get_str(c, m, res, "created_at", false, &g->created_at) != 0 ||
        sc_cl_get_u64(c, m, res, "owner_uid", UINT32_MAX, &uid) != 0 ||
        sc_cl_get_i64(c, m, res, "owner_pid", &g->owner_pid) != 0 ||
        get_new_str(c, m, res, "host", &g->host) != 0)
        return -EPROTO;
    g->owner_uid = (uint32_t)uid;
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(res, "nodes");
    if (!cJSON_IsArray(nodes))
        return sc_cl_malformed(c, m, "'nodes' is not an array");
    size_t n = (size_t)cJSON_GetArraySize(nodes);
    g->nodes = calloc(n ? n : 1, sizeof(*g->nodes));
    if (!g->nodes)
        return sc_cl_fail(c, -ENOMEM, "out of memory");
    const cJSON *o;
    cJSON_ArrayForEach(o, nodes)
    {
        /* Counted first so that a half-decoded node is freed too. */
        sc_client_node *node = &g->nodes[g->node_count++];
        if (decode_node(c, o, node) != 0)
            return -EPROTO;
    }
    return decode_edges(c, cJSON_GetObjectItemCaseSensitive(res, "edges"), g);
}

int sc_client_graph_get(sc_client *c, uint64_t graph, sc_client_graph *out)
{
    if (!out)
        return null_arg(c, "out");
    int rc = sc_cl_begin(c, SC_M_GRAPH_GET);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "graph", graph);
    cJSON *root;
    const cJSON *res;
    rc = sc_cl_tree(c, SC_M_GRAPH_GET, &root, &res);
    if (rc != 0)
        return rc;
    sc_client_graph g = {0};
    rc = decode_graph(c, res, &g);
    cJSON_Delete(root);
    if (rc != 0) {
        /* -EPROTO from a reader, or -ENOMEM */
        sc_client_graph_free(&g);
        return rc;
    }
    *out = g;
    return 0;
}

void sc_cl_write_node(sc_buf *b, const sc_client_node *n, bool with_stream)
{
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_member_cstr(b, &first, "kind", sc_client_kind_name(n->kind));
    if (with_stream)
        sc_json_member_u64(b, &first, "stream", n->stream);
    const char *name = n->name ? n->name : "";
    switch (n->kind) {
    case SC_CLIENT_KERNEL:
        sc_json_member_cstr(b, &first, "function_name", n->function_name ? n->function_name : name);
        if (n->dim3) {
            sc_json_key(b, &first, "grid");
            sc_buf_printf(b, "[%u,%u,%u]", (unsigned)n->grid[0], (unsigned)n->grid[1],
                          (unsigned)n->grid[2]);
            sc_json_key(b, &first, "block");
            sc_buf_printf(b, "[%u,%u,%u]", (unsigned)n->block[0], (unsigned)n->block[1],
                          (unsigned)n->block[2]);
        } else {
            sc_json_member_u64(b, &first, "num_blocks", n->num_blocks ? n->num_blocks : 1);
            sc_json_member_u64(b, &first, "threads_per_block",
                               n->threads_per_block ? n->threads_per_block : 1);
        }
        sc_json_member_u64(b, &first, "shared_mem", n->shared_mem);
        break;
    case SC_CLIENT_MEMCPY: {
        const char *dir = sc_client_cuda_dir_name(n->dir);
        sc_json_member_cstr(b, &first, "name", name);
        sc_json_member_cstr(b, &first, "dir", dir ? dir : "default");
        sc_json_member_u64(b, &first, "size_bytes", n->size_bytes);
        if (n->dir == SC_CLIENT_PEER_TO_PEER) {
            sc_json_member_u64(b, &first, "src_device", n->src_device);
            sc_json_member_u64(b, &first, "dst_device", n->dst_device);
        }
        break;
    }
    case SC_CLIENT_MEMSET:
        sc_json_member_cstr(b, &first, "name", name);
        sc_json_member_u64(b, &first, "size_bytes", n->size_bytes);
        sc_json_member_u64(b, &first, "value", n->value);
        break;
    case SC_CLIENT_HOST_CALLBACK:
        sc_json_member_cstr(b, &first, "label", n->label ? n->label : name);
        break;
    case SC_CLIENT_MEM_ALLOC:
        sc_json_member_cstr(b, &first, "name", name);
        sc_json_member_u64(b, &first, "size_bytes", n->size_bytes);
        break;
    case SC_CLIENT_EVENT_RECORD:
    case SC_CLIENT_EVENT_WAIT:
        sc_json_member_u64(b, &first, "event", n->event);
        sc_json_member_cstr(b, &first, "name", name);
        break;
    default: /* mem_free, empty */
        sc_json_member_cstr(b, &first, "name", name);
        break;
    }
    sc_json_obj_end(b);
}

static int cmp_edge(const void *a, const void *b)
{
    const sc_client_edge *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return x->dst < y->dst ? -1 : x->dst > y->dst;
}

int sc_client_graph_submit(sc_client *c, const char *label, const sc_client_node *nodes, size_t n,
                           const sc_client_edge *edges, size_t m, uint64_t *graph)
{
    if ((n && !nodes) || (m && !edges))
        return null_arg(c, "nodes and edges");
    if (!c)
        return -EINVAL;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(sc_client_kind_name(nodes[i].kind), "unknown") == 0)
            return sc_cl_fail(c, -EINVAL, "nodes[%zu]: unknown kind %d", i, (int)nodes[i].kind);
    }
    sc_client_edge *sorted = malloc((m ? m : 1) * sizeof(*sorted));
    if (!sorted)
        return sc_cl_fail(c, -ENOMEM, "out of memory");
    if (m)
        memcpy(sorted, edges, m * sizeof(*sorted));
    qsort(sorted, m, sizeof(*sorted), cmp_edge);
    const sc_method_id mid = SC_M_GRAPH_SUBMIT;
    int rc = sc_cl_begin(c, mid);
    if (rc != 0) {
        free(sorted);
        return rc;
    }
    if (label)
        sc_cl_str(c, "label", label);
    sc_buf *b = sc_cl_key(c, "nodes");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            sc_buf_putc(b, ',');
        sc_cl_write_node(b, &nodes[i], true);
    }
    sc_buf_putc(b, ']');
    b = sc_cl_key(c, "edges");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < m; i++)
        sc_buf_printf(b, i ? ",[%u,%u]" : "[%u,%u]", (unsigned)sorted[i].src,
                      (unsigned)sorted[i].dst);
    sc_buf_putc(b, ']');
    free(sorted);
    sc_client_reply r;
    rc = sc_cl_simple(c, mid, &r);
    if (rc > 0)
        return 0;
    if (rc == 0 && graph)
        *graph = r.id;
    return rc;
}

/* The paging members shared by graph.list and log.list. */
static int write_list_opts(sc_client *c, const sc_client_list_opts *o, const char *filter_key)
{
    if (!o)
        return 0;
    if (o->limit)
        sc_cl_u64(c, "limit", o->limit);
    if (o->before) {
        /* A cursor is JSON text from an earlier page; check it is one value
         * so a bad one cannot corrupt the request line. */
        cJSON *v = cJSON_Parse(o->before);
        if (!v) {
            sc_cl_cancel(c);
            return sc_cl_fail(c, -EINVAL, "'before' is not a cursor from an earlier page");
        }
        char *text = cJSON_PrintUnformatted(v);
        cJSON_Delete(v);
        if (!text) {
            sc_cl_cancel(c);
            return sc_cl_fail(c, -ENOMEM, "out of memory");
        }
        sc_cl_raw(c, "before", text);
        free(text);
    }
    if (o->filter)
        sc_cl_str(c, filter_key, o->filter);
    if (o->host)
        sc_cl_str(c, "host", o->host);
    return 0;
}

static int get_next(sc_client *c, const cJSON *res, char **next)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(res, "next");
    *next = NULL;
    if (!v || cJSON_IsNull(v))
        return 0;
    *next = cJSON_PrintUnformatted(v);
    return *next ? 0 : sc_cl_fail(c, -ENOMEM, "out of memory");
}

void sc_client_graph_page_free(sc_client_graph_page *p)
{
    if (!p)
        return;
    for (size_t i = 0; p->graphs && i < p->count; i++) {
        free(p->graphs[i].label);
        free(p->graphs[i].created_at);
        free(p->graphs[i].host);
    }
    free(p->graphs);
    free(p->next);
    memset(p, 0, sizeof(*p));
}

static int decode_summary(sc_client *c, const cJSON *o, sc_client_graph_summary *s)
{
    const sc_method_id m = SC_M_GRAPH_LIST;
    uint64_t uid;
    if (sc_cl_get_u64(c, m, o, "graph", UINT64_MAX, &s->graph) != 0 ||
        sc_cl_get_str(c, m, o, "label", true, &s->label) != 0 ||
        sc_cl_get_str(c, m, o, "created_at", false, &s->created_at) != 0 ||
        sc_cl_get_u64(c, m, o, "node_count", UINT64_MAX, &s->node_count) != 0 ||
        sc_cl_get_u64(c, m, o, "edge_count", UINT64_MAX, &s->edge_count) != 0 ||
        sc_cl_get_u64(c, m, o, "stream_count", UINT64_MAX, &s->stream_count) != 0 ||
        sc_cl_get_u64(c, m, o, "owner_uid", UINT32_MAX, &uid) != 0 ||
        sc_cl_get_i64(c, m, o, "owner_pid", &s->owner_pid) != 0 ||
        get_new_str(c, m, o, "host", &s->host) != 0)
        return -EPROTO;
    s->owner_uid = (uint32_t)uid;
    return 0;
}

static int decode_graph_page(sc_client *c, const cJSON *res, sc_client_graph_page *p)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(res, "graphs");
    if (!cJSON_IsArray(list))
        return sc_cl_malformed(c, SC_M_GRAPH_LIST, "'graphs' is not an array");
    size_t n = (size_t)cJSON_GetArraySize(list);
    p->graphs = calloc(n ? n : 1, sizeof(*p->graphs));
    if (!p->graphs)
        return sc_cl_fail(c, -ENOMEM, "out of memory");
    const cJSON *o;
    cJSON_ArrayForEach(o, list)
    {
        if (decode_summary(c, o, &p->graphs[p->count++]) != 0)
            return -EPROTO;
    }
    return get_next(c, res, &p->next);
}

int sc_client_graph_list(sc_client *c, const sc_client_list_opts *opts, sc_client_graph_page *out)
{
    if (!out)
        return null_arg(c, "out");
    int rc = sc_cl_begin(c, SC_M_GRAPH_LIST);
    if (rc != 0)
        return rc;
    rc = write_list_opts(c, opts, "label");
    if (rc != 0)
        return rc;
    cJSON *root;
    const cJSON *res;
    rc = sc_cl_tree(c, SC_M_GRAPH_LIST, &root, &res);
    if (rc != 0)
        return rc;
    sc_client_graph_page p = {0};
    rc = decode_graph_page(c, res, &p);
    cJSON_Delete(root);
    if (rc != 0) {
        sc_client_graph_page_free(&p);
        return rc;
    }
    *out = p;
    return 0;
}

int sc_client_graph_reachable(sc_client *c, uint64_t graph, uint32_t from, uint32_t to,
                              bool *reachable)
{
    int rc = sc_cl_begin(c, SC_M_GRAPH_REACHABLE);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "graph", graph);
    sc_cl_u64(c, "from", from);
    sc_cl_u64(c, "to", to);
    cJSON *root;
    const cJSON *res;
    rc = sc_cl_tree(c, SC_M_GRAPH_REACHABLE, &root, &res);
    if (rc != 0)
        return rc;
    bool r;
    rc = sc_cl_get_bool(c, SC_M_GRAPH_REACHABLE, res, "reachable", &r);
    cJSON_Delete(root);
    if (rc == 0 && reachable)
        *reachable = r;
    return rc;
}

/* Pairs per request: at most 24 bytes each, well inside the daemon's
 * default 1 MiB message limit. */
#define SC_CL_PAIRS_PER_CALL 16384

static int reachable_chunk(sc_client *c, uint64_t graph, const sc_client_pair *pairs, size_t n,
                           bool *out)
{
    const sc_method_id m = SC_M_GRAPH_REACHABLE;
    int rc = sc_cl_begin(c, m);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "graph", graph);
    sc_buf *b = sc_cl_key(c, "pairs");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++)
        sc_buf_printf(b, i ? ",[%u,%u]" : "[%u,%u]", (unsigned)pairs[i].from,
                      (unsigned)pairs[i].to);
    sc_buf_putc(b, ']');
    cJSON *root;
    const cJSON *res;
    rc = sc_cl_tree(c, m, &root, &res);
    if (rc != 0)
        return rc;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(res, "reachable");
    if (!cJSON_IsArray(list) || (size_t)cJSON_GetArraySize(list) != n) {
        cJSON_Delete(root);
        return sc_cl_malformed(c, m, "'reachable' is not one boolean per pair");
    }
    size_t i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, list)
    {
        if (!cJSON_IsBool(v)) {
            cJSON_Delete(root);
            return sc_cl_malformed(c, m, "'reachable' holds a non-boolean");
        }
        out[i++] = cJSON_IsTrue(v);
    }
    cJSON_Delete(root);
    return 0;
}

int sc_client_graph_reachable_pairs(sc_client *c, uint64_t graph, const sc_client_pair *pairs,
                                    size_t count, bool *reachable)
{
    if (count && (!pairs || !reachable))
        return null_arg(c, "pairs and reachable");
    if (!c)
        return -EINVAL;
    size_t done = 0;
    if (count == 0)
        return 0;
    do {
        size_t n = count - done;
        if (n > SC_CL_PAIRS_PER_CALL)
            n = SC_CL_PAIRS_PER_CALL;
        int rc = reachable_chunk(c, graph, pairs + done, n, reachable + done);
        if (rc != 0)
            return rc;
        done += n;
    } while (done < count);
    return 0;
}

int sc_client_graph_export_dot(sc_client *c, uint64_t graph, char **text)
{
    if (!text)
        return null_arg(c, "text");
    int rc = sc_cl_begin(c, SC_M_GRAPH_EXPORT);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "graph", graph);
    sc_cl_str(c, "format", "dot");
    cJSON *root;
    const cJSON *res;
    rc = sc_cl_tree(c, SC_M_GRAPH_EXPORT, &root, &res);
    if (rc != 0)
        return rc;
    char *t = NULL;
    rc = sc_cl_get_str(c, SC_M_GRAPH_EXPORT, res, "text", false, &t);
    cJSON_Delete(root);
    if (rc == 0)
        *text = t;
    return rc;
}

int sc_client_graph_delete(sc_client *c, uint64_t graph)
{
    int rc = sc_cl_begin(c, SC_M_GRAPH_DELETE);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "graph", graph);
    cJSON *root;
    const cJSON *res;
    rc = sc_cl_tree(c, SC_M_GRAPH_DELETE, &root, &res);
    if (rc == 0)
        cJSON_Delete(root);
    return rc;
}

/* ---------------------------------------------------------------- log */

void sc_client_log_page_free(sc_client_log_page *p)
{
    if (!p)
        return;
    for (size_t i = 0; p->entries && i < p->count; i++) {
        sc_client_log_entry *e = &p->entries[i];
        free(e->label);
        free(e->opened_at);
        free(e->ended_at);
        free(e->outcome);
        free(e->host);
        sc_cl_free_captures(e);
    }
    free(p->entries);
    free(p->next);
    memset(p, 0, sizeof(*p));
}

static int decode_entry(sc_client *c, const cJSON *o, sc_client_log_entry *e)
{
    const sc_method_id m = SC_M_LOG_LIST;
    uint64_t uid;
    if (sc_cl_get_u64(c, m, o, "session", UINT64_MAX, &e->session) != 0 ||
        sc_cl_get_str(c, m, o, "label", true, &e->label) != 0 ||
        sc_cl_get_u64(c, m, o, "owner_uid", UINT32_MAX, &uid) != 0 ||
        sc_cl_get_i64(c, m, o, "owner_pid", &e->owner_pid) != 0 ||
        sc_cl_get_str(c, m, o, "opened_at", false, &e->opened_at) != 0 ||
        sc_cl_get_str(c, m, o, "ended_at", true, &e->ended_at) != 0 ||
        sc_cl_get_str(c, m, o, "outcome", false, &e->outcome) != 0 ||
        sc_cl_get_u64(c, m, o, "node_count", UINT64_MAX, &e->node_count) != 0 ||
        get_new_str(c, m, o, "host", &e->host) != 0)
        return -EPROTO;
    e->owner_uid = (uint32_t)uid;
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, "graph");
    if (g && !cJSON_IsNull(g) && sc_cl_get_u64(c, m, o, "graph", UINT64_MAX, &e->graph) != 0)
        return -EPROTO;
    return sc_cl_decode_captures(c, o, e);
}

static int decode_log_page(sc_client *c, const cJSON *res, sc_client_log_page *p)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(res, "entries");
    if (!cJSON_IsArray(list))
        return sc_cl_malformed(c, SC_M_LOG_LIST, "'entries' is not an array");
    size_t n = (size_t)cJSON_GetArraySize(list);
    p->entries = calloc(n ? n : 1, sizeof(*p->entries));
    if (!p->entries)
        return sc_cl_fail(c, -ENOMEM, "out of memory");
    const cJSON *o;
    cJSON_ArrayForEach(o, list)
    {
        if (decode_entry(c, o, &p->entries[p->count++]) != 0)
            return -EPROTO;
    }
    return get_next(c, res, &p->next);
}

int sc_client_log_list(sc_client *c, const sc_client_list_opts *opts, sc_client_log_page *out)
{
    if (!out)
        return null_arg(c, "out");
    int rc = sc_cl_begin(c, SC_M_LOG_LIST);
    if (rc != 0)
        return rc;
    rc = write_list_opts(c, opts, "outcome");
    if (rc != 0)
        return rc;
    cJSON *root;
    const cJSON *res;
    rc = sc_cl_tree(c, SC_M_LOG_LIST, &root, &res);
    if (rc != 0)
        return rc;
    sc_client_log_page p = {0};
    rc = decode_log_page(c, res, &p);
    cJSON_Delete(root);
    if (rc != 0) {
        sc_client_log_page_free(&p);
        return rc;
    }
    *out = p;
    return 0;
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

int sc_client_server_info(sc_client *c, sc_client_server_desc *out)
{
    if (!out)
        return null_arg(c, "out");
    const sc_method_id m = SC_M_SERVER_INFO;
    int rc = sc_cl_begin(c, m);
    if (rc != 0)
        return rc;
    cJSON *root;
    const cJSON *res;
    rc = sc_cl_tree(c, m, &root, &res);
    if (rc != 0)
        return rc;
    sc_client_server_desc d = {0};
    if (sc_cl_get_str(c, m, res, "version", false, &d.version) != 0 ||
        sc_cl_get_u64(c, m, res, "uptime_s", UINT64_MAX, &d.uptime_s) != 0 ||
        sc_cl_get_u64(c, m, res, "connections", UINT64_MAX, &d.connections) != 0 ||
        sc_cl_get_u64(c, m, res, "sessions", UINT64_MAX, &d.sessions) != 0 ||
        sc_cl_get_u64(c, m, res, "graphs", UINT64_MAX, &d.graphs) != 0 ||
        sc_cl_get_str(c, m, res, "db_path", true, &d.db_path) != 0 ||
        sc_cl_get_u64(c, m, res, "db_bytes", UINT64_MAX, &d.db_bytes) != 0 ||
        sc_cl_get_i64(c, m, res, "pid", &d.pid) != 0 ||
        sc_cl_get_str(c, m, res, "sync", false, &d.sync) != 0 ||
        sc_cl_get_u64(c, m, res, "cache_max_bytes", UINT64_MAX, &d.cache_max_bytes) != 0 ||
        sc_cl_get_u64(c, m, res, "cache_bytes", UINT64_MAX, &d.cache_bytes) != 0 ||
        sc_cl_get_u64(c, m, res, "cache_entries", UINT64_MAX, &d.cache_entries) != 0 ||
        sc_cl_get_u64(c, m, res, "cache_hits", UINT64_MAX, &d.cache_hits) != 0 ||
        sc_cl_get_u64(c, m, res, "cache_misses", UINT64_MAX, &d.cache_misses) != 0 ||
        get_new_str(c, m, res, "backend", &d.backend) != 0 ||
        get_new_str(c, m, res, "host", &d.host) != 0)
        rc = -EPROTO;
    cJSON_Delete(root);
    if (rc != 0) {
        sc_client_server_desc_free(&d);
        return rc;
    }
    *out = d;
    return 0;
}

/* ---------------------------------------------------------------- raw */

int sc_client_call_raw(sc_client *c, const char *method, const char *params_json,
                       char **result_json)
{
    if (!method)
        return null_arg(c, "method");
    if (!result_json)
        return null_arg(c, "result_json");
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
