/*
 * calls_graph.c - the calls on stored graphs and the capture log: get,
 * submit, list, reachability, export, delete and log.list, with the
 * readers of their results and the node writer graph.submit and
 * capture.add_node share.  Each runs the skeleton of calls.c.
 */
#define _POSIX_C_SOURCE 200809L

#include "client_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A string member a daemon from before hosts and storage backends does not
 * send (host, backend): absent or null reads as "", so that callers never
 * meet NULL there. */
int sc_cl_get_new_str(sc_client *c, sc_method_id m, const cJSON *o, const char *key, char **out)
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
    free(n->args);
    free(n->param_sizes);
    free(n->bodies);
    free(n->accesses);
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

static int hex_digit(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* A kernel's argument values, when graph.get sent them: the hex of args
 * into n->args, param_sizes into n->param_sizes (which must add up). */
static int decode_kargs(sc_client *c, const cJSON *o, sc_client_node *n)
{
    const sc_method_id m = SC_M_GRAPH_GET;
    const cJSON *hex = cJSON_GetObjectItemCaseSensitive(o, "args");
    const cJSON *sizes = cJSON_GetObjectItemCaseSensitive(o, "param_sizes");
    if ((!hex || cJSON_IsNull(hex)) && (!sizes || cJSON_IsNull(sizes)))
        return 0;
    size_t len = cJSON_IsString(hex) ? strlen(hex->valuestring) : 1;
    int np = cJSON_GetArraySize(sizes);
    if (len % 2 || !cJSON_IsArray(sizes) || np <= 0)
        return sc_cl_malformed(c, m, "a kernel's 'args' and 'param_sizes' do not go together");
    n->args = malloc(len / 2 + 1);
    n->param_sizes = malloc((size_t)np * sizeof *n->param_sizes);
    if (!n->args || !n->param_sizes)
        return sc_cl_fail(c, -ENOMEM, "out of memory");
    for (size_t i = 0; i < len / 2; i++) {
        int hi = hex_digit(hex->valuestring[2 * i]), lo = hex_digit(hex->valuestring[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return sc_cl_malformed(c, m, "a kernel's 'args' is not lowercase hex");
        n->args[i] = (uint8_t)(hi << 4 | lo);
    }
    uint64_t sum = 0;
    for (int i = 0; i < np; i++) {
        const cJSON *v = cJSON_GetArrayItem(sizes, i);
        if (!cJSON_IsNumber(v) || !(v->valuedouble >= 1) || v->valuedouble > 32764)
            return sc_cl_malformed(c, m, "a kernel's 'param_sizes' holds no valid size");
        n->param_sizes[i] = (uint32_t)v->valuedouble;
        sum += n->param_sizes[i];
    }
    if (sum != len / 2)
        return sc_cl_malformed(c, m, "a kernel's 'param_sizes' do not add up to its 'args'");
    n->args_len = len / 2;
    n->nparams = (size_t)np;
    return 0;
}

static const char *const cond_types[] = {"if", "while", "switch"};

/* A conditional's type, size, default_value and flags; its bodies' ids
 * are not kept here. */
static int decode_cond(sc_client *c, const cJSON *o, sc_client_node *n)
{
    const sc_method_id m = SC_M_GRAPH_GET;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(o, "type");
    int t = -1;
    for (int i = 0; i < 3 && cJSON_IsString(type); i++)
        if (strcmp(type->valuestring, cond_types[i]) == 0)
            t = i;
    if (t < 0)
        return sc_cl_malformed(c, m, "a conditional node has no valid 'type'");
    n->cond_type = (sc_client_cond_type)t;
    if (get_u32(c, m, o, "size", &n->cond_size) != 0 ||
        get_u32(c, m, o, "default_value", &n->cond_default) != 0 ||
        get_u32(c, m, o, "flags", &n->cond_flags) != 0)
        return -EPROTO;
    return 0;
}

/* A graph node's `child` (one id) or a conditional node's `bodies` (ids);
 * either may be absent (a node stored without its bodies). */
static int decode_bodies(sc_client *c, const cJSON *o, sc_client_node *n)
{
    const sc_method_id m = SC_M_GRAPH_GET;
    const cJSON *child = cJSON_GetObjectItemCaseSensitive(o, "child");
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(o, "bodies");
    size_t count = child ? 1 : cJSON_IsArray(list) ? (size_t)cJSON_GetArraySize(list) : 0;
    if (!child && list && !cJSON_IsArray(list))
        return sc_cl_malformed(c, m, "'bodies' is not an array");
    if (count == 0)
        return 0;
    n->bodies = calloc(count, sizeof *n->bodies);
    if (!n->bodies)
        return sc_cl_fail(c, -ENOMEM, "out of memory");
    const cJSON *e = child ? child : list->child;
    for (; e && n->nbodies < count; e = child ? NULL : e->next) {
        if (!cJSON_IsNumber(e) || e->valuedouble < 1 || e->valuedouble > 9007199254740992.0)
            return sc_cl_malformed(c, m, "a body is not a graph id");
        n->bodies[n->nbodies++] = (uint64_t)e->valuedouble;
    }
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
        int rc = decode_kargs(c, o, n);
        return rc != 0 ? rc : decode_dim3(c, o, n);
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
    case SC_CLIENT_GRAPH:
        return decode_bodies(c, o, n);
    case SC_CLIENT_CONDITIONAL: {
        int rc = decode_cond(c, o, n);
        return rc != 0 ? rc : decode_bodies(c, o, n);
    }
    case SC_CLIENT_MEM_FREE:
    case SC_CLIENT_EMPTY:
        return 0;
    }
    return sc_cl_malformed(c, m, "unknown node kind");
}

/* graph.get's `accesses` of a node, when it has any. */
static int decode_accesses(sc_client *c, const cJSON *o, sc_client_node *n)
{
    const sc_method_id m = SC_M_GRAPH_GET;
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "accesses");
    if (!arr || cJSON_IsNull(arr))
        return 0;
    int k = cJSON_GetArraySize(arr);
    if (!cJSON_IsArray(arr))
        return sc_cl_malformed(c, m, "a node's 'accesses' is not an array");
    if (k == 0)
        return 0;
    n->accesses = calloc((size_t)k, sizeof *n->accesses);
    if (!n->accesses)
        return sc_cl_fail(c, -ENOMEM, "out of memory");
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        sc_client_access *a = &n->accesses[n->naccesses];
        const cJSON *mode = cJSON_GetObjectItemCaseSensitive(e, "mode");
        if (sc_cl_get_u64(c, m, e, "address", UINT64_MAX, &a->address) != 0 ||
            sc_cl_get_u64(c, m, e, "size", UINT64_MAX, &a->size) != 0)
            return -EPROTO;
        for (a->mode = 1; a->mode <= 3; a->mode++)
            if (cJSON_IsString(mode) &&
                strcmp(mode->valuestring, sc_client_access_mode_name(a->mode)) == 0)
                break;
        if (a->mode > 3)
            return sc_cl_malformed(c, m, "an access has no valid 'mode'");
        n->naccesses++;
    }
    return 0;
}

static int decode_node(sc_client *c, const cJSON *o, void *item)
{
    sc_client_node *n = item;
    const sc_method_id m = SC_M_GRAPH_GET;
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(o, "kind");
    if (!cJSON_IsString(kind) || sc_cl_parse_kind(kind->valuestring, &n->kind) != 0)
        return sc_cl_malformed(c, m, "a node has no valid 'kind'");
    if (get_u32(c, m, o, "id", &n->id) != 0 || get_u32(c, m, o, "stream", &n->stream) != 0 ||
        sc_cl_get_str(c, m, o, "name", false, &n->name) != 0)
        return -EPROTO;
    int rc = decode_kind_fields(c, o, n);
    return rc != 0 ? rc : decode_accesses(c, o, n);
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

static int decode_graph(sc_client *c, sc_method_id m, const cJSON *res, void *out)
{
    sc_client_graph *g = out;
    uint64_t uid;
    if (sc_cl_get_u64(c, m, res, "graph", UINT64_MAX, &g->graph) != 0 ||
        sc_cl_get_str(c, m, res, "label", true, &g->label) != 0 ||
        sc_cl_get_str(c, m, res, "created_at", false, &g->created_at) != 0 ||
        sc_cl_get_u64(c, m, res, "owner_uid", UINT32_MAX, &uid) != 0 ||
        sc_cl_get_i64(c, m, res, "owner_pid", &g->owner_pid) != 0 ||
        sc_cl_get_new_str(c, m, res, "host", &g->host) != 0)
        return -EPROTO;
    g->owner_uid = (uint32_t)uid;
    void *nodes = NULL;
    int rc = sc_cl_decode_array(c, m, res, "nodes", sizeof(*g->nodes), decode_node, &nodes,
                                &g->node_count);
    g->nodes = nodes;
    if (rc != 0)
        return rc;
    return decode_edges(c, cJSON_GetObjectItemCaseSensitive(res, "edges"), g);
}

static void drop_graph(void *g)
{
    sc_client_graph_free(g);
}

static const sc_cl_call graph_get = {.m = SC_M_GRAPH_GET,
                                     .tree = true,
                                     .decode = decode_graph,
                                     .drop = drop_graph,
                                     .size = sizeof(sc_client_graph)};

int sc_client_graph_get(sc_client *c, uint64_t graph, sc_client_graph *out)
{
    if (!out)
        return sc_cl_null_arg(c, "out");
    int rc = sc_cl_start(c, &graph_get);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "graph", graph);
    /* -EPROTO from a reader, or -ENOMEM */
    return sc_cl_finish(c, &graph_get, out);
}

/* The members of a node object being written, not its closing brace. */
static void write_node_members(sc_buf *b, bool *pfirst, const sc_client_node *n, bool with_stream)
{
    bool first = *pfirst;
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
        if (n->nparams && n->args && n->param_sizes)
            sc_json_member_kargs(b, &first, n->args, n->args_len, n->param_sizes, n->nparams);
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
    case SC_CLIENT_CONDITIONAL:
        sc_json_member_cstr(b, &first, "name", name);
        sc_json_member_cstr(b, &first, "type",
                            (unsigned)n->cond_type < 3 ? cond_types[n->cond_type] : "unknown");
        sc_json_member_u64(b, &first, "size", n->cond_size);
        sc_json_member_u64(b, &first, "default_value", n->cond_default);
        sc_json_member_u64(b, &first, "flags", n->cond_flags);
        break;
    default: /* mem_free, empty, graph */
        sc_json_member_cstr(b, &first, "name", name);
        break;
    }
    sc_cl_write_accesses(b, &first, n->accesses, n->naccesses);
    *pfirst = first;
}

void sc_cl_write_node(sc_buf *b, const sc_client_node *n, bool with_stream)
{
    bool first;
    sc_json_obj_begin(b, &first);
    write_node_members(b, &first, n, with_stream);
    sc_json_obj_end(b);
}

static int cmp_edge(const void *a, const void *b)
{
    const sc_client_edge *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return x->dst < y->dst ? -1 : x->dst > y->dst;
}

static const sc_cl_call graph_submit = {.m = SC_M_GRAPH_SUBMIT, .take = sc_cl_take_id};

int sc_client_graph_submit(sc_client *c, const char *label, const sc_client_node *nodes, size_t n,
                           const sc_client_edge *edges, size_t m, uint64_t *graph)
{
    if ((n && !nodes) || (m && !edges))
        return sc_cl_null_arg(c, "nodes and edges");
    if (!c)
        return -EINVAL;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(sc_client_kind_name(nodes[i].kind), "unknown") == 0)
            return sc_cl_fail(c, -EINVAL, "nodes[%zu]: unknown kind %d", i, (int)nodes[i].kind);
        if (sc_cl_check_accesses(c, nodes[i].accesses, nodes[i].naccesses) != 0)
            return -EINVAL;
    }
    sc_client_edge *sorted = malloc((m ? m : 1) * sizeof(*sorted));
    if (!sorted)
        return sc_cl_fail(c, -ENOMEM, "out of memory");
    if (m)
        memcpy(sorted, edges, m * sizeof(*sorted));
    qsort(sorted, m, sizeof(*sorted), cmp_edge);
    int rc = sc_cl_start(c, &graph_submit);
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
    return sc_cl_finish(c, &graph_submit, graph);
}

int sc_cl_check_subgraph(sc_client *c, const sc_client_subgraph *g, unsigned depth)
{
    if (depth > 16)
        return sc_cl_fail(c, -EINVAL, "bodies nest more than 16 deep");
    if ((g->n && !g->nodes) || (g->m && !g->edges))
        return sc_cl_null_arg(c, "nodes and edges");
    for (size_t i = 0; i < g->n; i++) {
        sc_client_kind k = g->nodes[i].kind;
        size_t nb = g->bodies ? g->nbodies[i] : 0;
        if (strcmp(sc_client_kind_name(k), "unknown") == 0)
            return sc_cl_fail(c, -EINVAL, "nodes[%zu]: unknown kind %d", i, (int)k);
        if ((k == SC_CLIENT_GRAPH && nb != 1) ||
            (k == SC_CLIENT_CONDITIONAL && (nb == 0 || nb != g->nodes[i].cond_size)) ||
            (k != SC_CLIENT_GRAPH && k != SC_CLIENT_CONDITIONAL && nb != 0))
            return sc_cl_fail(c, -EINVAL, "nodes[%zu]: %zu bodies for kind %s", i, nb,
                              sc_client_kind_name(k));
        for (size_t j = 0; j < nb; j++) {
            int rc = sc_cl_check_subgraph(c, &g->bodies[i][j], depth + 1);
            if (rc != 0)
                return rc;
        }
    }
    return 0;
}

/* `"nodes":[...],"edges":[...]` of g, bodies inside their nodes. */
int sc_cl_write_subgraph(sc_buf *b, bool *first, const sc_client_subgraph *g)
{
    sc_json_key(b, first, "nodes");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < g->n; i++) {
        bool f;
        if (i)
            sc_buf_putc(b, ',');
        sc_json_obj_begin(b, &f);
        write_node_members(b, &f, &g->nodes[i], true);
        size_t nb = g->bodies ? g->nbodies[i] : 0;
        if (nb) {
            bool cond = g->nodes[i].kind == SC_CLIENT_CONDITIONAL;
            sc_json_key(b, &f, cond ? "bodies" : "child");
            if (cond)
                sc_buf_putc(b, '[');
            for (size_t j = 0; j < nb; j++) {
                bool fb;
                if (j)
                    sc_buf_putc(b, ',');
                sc_json_obj_begin(b, &fb);
                if (sc_cl_write_subgraph(b, &fb, &g->bodies[i][j]) != 0)
                    return -ENOMEM;
                sc_json_obj_end(b);
            }
            if (cond)
                sc_buf_putc(b, ']');
        }
        sc_json_obj_end(b);
    }
    sc_buf_putc(b, ']');
    sc_client_edge *sorted = malloc((g->m ? g->m : 1) * sizeof(*sorted));
    if (!sorted)
        return -ENOMEM;
    if (g->m)
        memcpy(sorted, g->edges, g->m * sizeof(*sorted));
    qsort(sorted, g->m, sizeof(*sorted), cmp_edge);
    sc_json_key(b, first, "edges");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < g->m; i++)
        sc_buf_printf(b, i ? ",[%u,%u]" : "[%u,%u]", (unsigned)sorted[i].src,
                      (unsigned)sorted[i].dst);
    sc_buf_putc(b, ']');
    free(sorted);
    return 0;
}

int sc_client_graph_submit_nested(sc_client *c, const char *label, const sc_client_subgraph *g,
                                  uint64_t *graph)
{
    if (!g)
        return sc_cl_null_arg(c, "g");
    if (!c)
        return -EINVAL;
    int rc = sc_cl_check_subgraph(c, g, 0);
    if (rc != 0 || (rc = sc_cl_start(c, &graph_submit)) != 0)
        return rc;
    if (label)
        sc_cl_str(c, "label", label);
    if (sc_cl_write_subgraph(&c->out, &c->req_first, g) != 0) {
        sc_cl_cancel(c);
        return sc_cl_fail(c, -ENOMEM, "out of memory");
    }
    return sc_cl_finish(c, &graph_submit, graph);
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

static int decode_summary(sc_client *c, const cJSON *o, void *item)
{
    sc_client_graph_summary *s = item;
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
        sc_cl_get_new_str(c, m, o, "host", &s->host) != 0)
        return -EPROTO;
    s->owner_uid = (uint32_t)uid;
    s->pinned = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "pinned"));
    return 0;
}

static int decode_graph_page(sc_client *c, sc_method_id m, const cJSON *res, void *out)
{
    sc_client_graph_page *p = out;
    void *items = NULL;
    int rc = sc_cl_decode_array(c, m, res, "graphs", sizeof(*p->graphs), decode_summary, &items,
                                &p->count);
    p->graphs = items;
    return rc ? rc : get_next(c, res, &p->next);
}

static void drop_graphs(void *p)
{
    sc_client_graph_page_free(p);
}

static const sc_cl_call graph_list = {.m = SC_M_GRAPH_LIST,
                                      .tree = true,
                                      .decode = decode_graph_page,
                                      .drop = drop_graphs,
                                      .size = sizeof(sc_client_graph_page)};

int sc_client_graph_list(sc_client *c, const sc_client_list_opts *opts, sc_client_graph_page *out)
{
    if (!out)
        return sc_cl_null_arg(c, "out");
    int rc = sc_cl_start(c, &graph_list);
    if (rc == 0)
        rc = write_list_opts(c, opts, "label");
    return rc ? rc : sc_cl_finish(c, &graph_list, out);
}

static int decode_reachable(sc_client *c, sc_method_id m, const cJSON *res, void *out)
{
    return sc_cl_get_bool(c, m, res, "reachable", out);
}

static const sc_cl_call reachable_one = {
    .m = SC_M_GRAPH_REACHABLE, .tree = true, .decode = decode_reachable, .size = sizeof(bool)};

int sc_client_graph_reachable(sc_client *c, uint64_t graph, uint32_t from, uint32_t to,
                              bool *reachable)
{
    int rc = sc_cl_start(c, &reachable_one);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "graph", graph);
    sc_cl_u64(c, "from", from);
    sc_cl_u64(c, "to", to);
    return sc_cl_finish(c, &reachable_one, reachable);
}

/* Pairs per request: at most 24 bytes each, well inside the daemon's
 * default 1 MiB message limit. */
#define SC_CL_PAIRS_PER_CALL 16384

/* One chunk's answers, written straight into the caller's array. */
typedef struct reach_chunk {
    bool *out;
    size_t n;
} reach_chunk;

static int decode_chunk(sc_client *c, sc_method_id m, const cJSON *res, void *arg)
{
    reach_chunk *k = arg;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(res, "reachable");
    if (!cJSON_IsArray(list) || (size_t)cJSON_GetArraySize(list) != k->n)
        return sc_cl_malformed(c, m, "'reachable' is not one boolean per pair");
    size_t i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, list)
    {
        if (!cJSON_IsBool(v))
            return sc_cl_malformed(c, m, "'reachable' holds a non-boolean");
        k->out[i++] = cJSON_IsTrue(v);
    }
    return 0;
}

static const sc_cl_call reachable_pairs = {
    .m = SC_M_GRAPH_REACHABLE, .tree = true, .decode = decode_chunk};

static int reachable_chunk(sc_client *c, uint64_t graph, const sc_client_pair *pairs, size_t n,
                           bool *out)
{
    int rc = sc_cl_start(c, &reachable_pairs);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "graph", graph);
    sc_buf *b = sc_cl_key(c, "pairs");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++)
        sc_buf_printf(b, i ? ",[%u,%u]" : "[%u,%u]", (unsigned)pairs[i].from,
                      (unsigned)pairs[i].to);
    sc_buf_putc(b, ']');
    reach_chunk k = {out, n};
    return sc_cl_finish(c, &reachable_pairs, &k);
}

int sc_client_graph_reachable_pairs(sc_client *c, uint64_t graph, const sc_client_pair *pairs,
                                    size_t count, bool *reachable)
{
    if (count && (!pairs || !reachable))
        return sc_cl_null_arg(c, "pairs and reachable");
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

static int decode_dot(sc_client *c, sc_method_id m, const cJSON *res, void *out)
{
    return sc_cl_get_str(c, m, res, "text", false, out);
}

static const sc_cl_call graph_export = {
    .m = SC_M_GRAPH_EXPORT, .tree = true, .decode = decode_dot, .size = sizeof(char *)};

int sc_client_graph_export_dot(sc_client *c, uint64_t graph, char **text)
{
    if (!text)
        return sc_cl_null_arg(c, "text");
    int rc = sc_cl_start(c, &graph_export);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "graph", graph);
    sc_cl_str(c, "format", "dot");
    return sc_cl_finish(c, &graph_export, text);
}

static const sc_cl_call graph_delete = {.m = SC_M_GRAPH_DELETE, .tree = true};

int sc_client_graph_delete(sc_client *c, uint64_t graph)
{
    int rc = sc_cl_start(c, &graph_delete);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "graph", graph);
    return sc_cl_finish(c, &graph_delete, NULL);
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

static int decode_entry(sc_client *c, const cJSON *o, void *item)
{
    sc_client_log_entry *e = item;
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
        sc_cl_get_new_str(c, m, o, "host", &e->host) != 0)
        return -EPROTO;
    e->owner_uid = (uint32_t)uid;
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, "graph");
    if (g && !cJSON_IsNull(g) && sc_cl_get_u64(c, m, o, "graph", UINT64_MAX, &e->graph) != 0)
        return -EPROTO;
    return sc_cl_decode_captures(c, o, e);
}

static int decode_log_page(sc_client *c, sc_method_id m, const cJSON *res, void *out)
{
    sc_client_log_page *p = out;
    void *items = NULL;
    int rc = sc_cl_decode_array(c, m, res, "entries", sizeof(*p->entries), decode_entry, &items,
                                &p->count);
    p->entries = items;
    return rc ? rc : get_next(c, res, &p->next);
}

static void drop_log(void *p)
{
    sc_client_log_page_free(p);
}

static const sc_cl_call log_list = {.m = SC_M_LOG_LIST,
                                    .tree = true,
                                    .decode = decode_log_page,
                                    .drop = drop_log,
                                    .size = sizeof(sc_client_log_page)};

int sc_client_log_list(sc_client *c, const sc_client_list_opts *opts, sc_client_log_page *out)
{
    if (!out)
        return sc_cl_null_arg(c, "out");
    int rc = sc_cl_start(c, &log_list);
    if (rc == 0)
        rc = write_list_opts(c, opts, "outcome");
    return rc ? rc : sc_cl_finish(c, &log_list, out);
}

_Static_assert(sizeof(sc_client_graph) <= SC_CL_RESULT_MAX &&
                   sizeof(sc_client_graph_page) <= SC_CL_RESULT_MAX &&
                   sizeof(sc_client_log_page) <= SC_CL_RESULT_MAX,
               "a result decoded aside fits SC_CL_RESULT_MAX");
