/*
 * cuda_ops.c - corpus ops of the cuda mode run on the core (cuda_ops.h).
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cuda_ops.h"

/* ---- reading ops -------------------------------------------------------- */

static uint64_t opt_uint(run *r, const cJSON *op, const char *key, uint64_t max, uint64_t dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(op, key);
    if (!v)
        return dflt;
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > (double)max ||
        v->valuedouble != (double)(uint64_t)v->valuedouble) {
        failf(r, "field %s out of range", key);
        return dflt;
    }
    return (uint64_t)v->valuedouble;
}

static uint32_t opt_u32(run *r, const cJSON *op, const char *key, uint32_t dflt)
{
    return (uint32_t)opt_uint(r, op, key, UINT32_MAX, dflt);
}

static const char *opt_str(const cJSON *op, const char *key, const char *dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(op, key);
    return cJSON_IsString(v) ? v->valuestring : dflt;
}

static bool opt_bool(const cJSON *op, const char *key)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(op, key));
}

/* A [x, y, z] array into three u32 (missing: 1, 1, 1). */
static void dim3(run *r, const cJSON *op, const char *key, uint32_t out[3])
{
    out[0] = out[1] = out[2] = 1;
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(op, key);
    if (!a)
        return;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 3) {
        failf(r, "field %s is not [x, y, z]", key);
        return;
    }
    for (int i = 0; i < 3; i++) {
        const cJSON *v = cJSON_GetArrayItem(a, i);
        if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > UINT32_MAX)
            failf(r, "field %s[%d] out of range", key, i);
        else
            out[i] = (uint32_t)v->valuedouble;
    }
}

/* An array of node ids; *n its length.  Caller frees. */
static uint32_t *id_list(run *r, const cJSON *op, const char *key, size_t *n)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(op, key);
    *n = 0;
    if (!a)
        return NULL;
    if (!cJSON_IsArray(a)) {
        failf(r, "field %s is not an array", key);
        return NULL;
    }
    size_t count = (size_t)cJSON_GetArraySize(a);
    uint32_t *v = malloc((count ? count : 1) * sizeof *v);
    assert_non_null(v);
    const cJSON *x;
    cJSON_ArrayForEach(x, a)
    {
        if (!cJSON_IsNumber(x) || x->valuedouble < 0 || x->valuedouble > UINT32_MAX)
            failf(r, "field %s holds a bad id", key);
        else
            v[(*n)++] = (uint32_t)x->valuedouble;
    }
    return v;
}

/* ---- results ------------------------------------------------------------ */

static cJSON *ok_result(void)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "ok", 1);
    return o;
}

static cJSON *rc_result(run *r, int rc)
{
    if (rc == 0)
        return ok_result();
    int number = sc_cuda_error_number(rc);
    if (number == 0)
        failf(r, "a core error that is no CUDA error: %s", sc_error_name(rc));
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "ok", 0);
    cJSON_AddNumberToObject(o, "error", number);
    return o;
}

static cJSON *node_result(run *r, int rc, uint32_t node)
{
    cJSON *o = rc_result(r, rc);
    if (rc == 0) {
        if (node == SC_CUDA_NO_NODE)
            cJSON_AddNullToObject(o, "node");
        else
            cJSON_AddNumberToObject(o, "node", node);
    }
    return o;
}

static cJSON *u32_array(const uint32_t *v, uint32_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (uint32_t i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
    return a;
}

static cJSON *graph_json(const sc_graph *g)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *nodes = cJSON_AddArrayToObject(o, "nodes");
    for (uint32_t i = 0; i < sc_graph_node_count(g); i++) {
        sc_node n;
        assert_int_equal(sc_graph_node(g, i, &n), 0);
        cJSON *x = cJSON_CreateObject();
        cJSON_AddNumberToObject(x, "id", i);
        cJSON_AddStringToObject(x, "kind", sc_cuda_kind_name((int)n.kind));
        cJSON_AddNumberToObject(x, "stream", n.stream);
        cJSON_AddStringToObject(x, "name", n.name);
        cJSON_AddItemToArray(nodes, x);
    }
    cJSON *edges = cJSON_AddArrayToObject(o, "edges");
    for (uint64_t i = 0; i < sc_graph_edge_count(g); i++) {
        uint32_t e[2];
        assert_int_equal(sc_graph_edge(g, i, &e[0], &e[1]), 0);
        cJSON_AddItemToArray(edges, u32_array(e, 2));
    }
    return o;
}

static cJSON *end_result(run *r, int rc, const sc_cuda_end_result *res)
{
    cJSON *o = rc_result(r, rc);
    if (rc == 0) {
        cJSON_AddNumberToObject(o, "capture", res->capture);
        cJSON_AddItemToObject(o, "graph", graph_json(res->graph));
    } else if (rc == SC_ECUDA_UNJOINED) {
        cJSON *u = cJSON_AddArrayToObject(o, "unjoined");
        for (uint32_t i = 0; i < res->nunjoined; i++) {
            cJSON *x = cJSON_CreateObject();
            cJSON_AddNumberToObject(x, "stream", res->unjoined[i].stream);
            cJSON_AddItemToObject(x, "nodes",
                                  u32_array(res->unjoined[i].nodes, res->unjoined[i].count));
            cJSON_AddItemToArray(u, x);
        }
    }
    return o;
}

static cJSON *info_result(run *r, int rc, const sc_cuda_info *info)
{
    cJSON *o = rc_result(r, rc);
    if (rc != 0)
        return o;
    cJSON_AddStringToObject(o, "status", sc_cuda_status_name(info->status));
    if (info->status == SC_CUDA_STATUS_ACTIVE) {
        cJSON_AddNumberToObject(o, "capture", info->capture);
        cJSON_AddItemToObject(o, "dependencies", u32_array(info->deps, info->ndeps));
    }
    return o;
}

/* ---- running ops -------------------------------------------------------- */

static sc_cuda_mode mode_of(run *r, const char *s)
{
    sc_cuda_mode m = SC_CUDA_GLOBAL;
    if (sc_cuda_mode_parse(s, strlen(s), &m) != 0)
        failf(r, "unknown mode %s", s);
    return m;
}

/* The record ops: build the node the op describes. */
static bool record_node(run *r, const char *kind, const cJSON *op, sc_node *n)
{
    memset(n, 0, sizeof *n);
    n->name = opt_str(op, "name", "");
    n->name_len = strlen(n->name);
    n->size_bytes = opt_uint(r, op, "size", UINT64_MAX, 0);
    if (strcmp(kind, "kernel") == 0) {
        uint32_t grid[3], block[3];
        dim3(r, op, "grid", grid);
        dim3(r, op, "block", block);
        n->kind = SC_KIND_KERNEL;
        n->num_blocks = grid[0];
        n->grid_y = grid[1];
        n->grid_z = grid[2];
        n->threads_per_block = block[0];
        n->block_y = block[1];
        n->block_z = block[2];
        n->size_bytes = 0;
    } else if (strcmp(kind, "memcpy") == 0) {
        const char *dir = opt_str(op, "dir", "default");
        n->kind = SC_KIND_MEMCPY;
        if (sc_cuda_dir_parse(dir, strlen(dir), &n->dir) != 0)
            failf(r, "unknown dir %s", dir);
    } else if (strcmp(kind, "memset") == 0) {
        n->kind = SC_KIND_MEMSET;
        n->value = (uint8_t)opt_uint(r, op, "value", 255, 0);
    } else if (strcmp(kind, "host") == 0) {
        n->kind = SC_KIND_HOST_CALLBACK;
        n->size_bytes = 0;
    } else if (strcmp(kind, "mem_alloc") == 0) {
        n->kind = (sc_node_kind)SC_KIND_MEM_ALLOC;
    } else if (strcmp(kind, "mem_free") == 0) {
        n->kind = (sc_node_kind)SC_KIND_MEM_FREE;
        n->size_bytes = 0;
    } else {
        return false;
    }
    return true;
}

static cJSON *run_lists(run *r, sc_cuda *cu, const char *kind, const cJSON *op, uint32_t stream,
                        uint32_t thread)
{
    size_t n;
    uint32_t *ids = id_list(r, op, strcmp(kind, "add_node") == 0 ? "deps" : "nodes", &n);
    cJSON *o;
    if (strcmp(kind, "add_node") == 0) {
        sc_node x = {.kind = (sc_node_kind)SC_KIND_EMPTY, .name = opt_str(op, "name", "")};
        const char *k = opt_str(op, "kind", "empty");
        if (sc_cuda_kind_parse(k, strlen(k), &x.kind) != 0)
            failf(r, "unknown kind %s", k);
        x.name_len = strlen(x.name);
        uint32_t node = SC_CUDA_NO_NODE;
        int rc = sc_cuda_add_node(cu, stream, thread, &x, ids, n, &node);
        o = node_result(r, rc, node);
    } else {
        const char *how = opt_str(op, "mode", "add");
        sc_cuda_deps d = strcmp(how, "set") == 0 ? SC_CUDA_DEPS_SET : SC_CUDA_DEPS_ADD;
        if (strcmp(how, "set") != 0 && strcmp(how, "add") != 0)
            failf(r, "unknown update mode %s", how);
        o = rc_result(r, sc_cuda_update_dependencies(cu, stream, thread, ids, n, d));
    }
    free(ids);
    return o;
}

cJSON *run_op(run *r, sc_cuda *cu, const cJSON *op)
{
    const char *kind = opt_str(op, "op", "?");
    uint32_t stream = opt_u32(r, op, "stream", 0);
    uint32_t thread = opt_u32(r, op, "thread", 0);
    uint32_t event = opt_u32(r, op, "event", 0);
    uint32_t node = SC_CUDA_NO_NODE;
    sc_node n;
    if (record_node(r, kind, op, &n)) {
        int rc = sc_cuda_record(cu, stream, thread, &n, &node);
        return node_result(r, rc, node);
    }
    if (strcmp(kind, "stream_create") == 0) {
        const char *flags = opt_str(op, "flags", "default");
        return rc_result(r, sc_cuda_stream_create(cu, stream, strcmp(flags, "non_blocking") == 0));
    }
    if (strcmp(kind, "begin") == 0) {
        uint32_t id = 0;
        int rc = sc_cuda_begin(cu, stream, mode_of(r, opt_str(op, "mode", "global")), thread, &id);
        cJSON *o = rc_result(r, rc);
        if (rc == 0)
            cJSON_AddNumberToObject(o, "capture", id);
        return o;
    }
    if (strcmp(kind, "event_record") == 0 || strcmp(kind, "wait") == 0) {
        bool ext = opt_bool(op, "external");
        int rc = kind[0] == 'e' ? sc_cuda_record_event(cu, stream, thread, event, ext, &node)
                                : sc_cuda_wait_event(cu, stream, thread, event, ext, &node);
        return node_result(r, rc, node);
    }
    if (strcmp(kind, "update_deps") == 0 || strcmp(kind, "add_node") == 0)
        return run_lists(r, cu, kind, op, stream, thread);
    if (strcmp(kind, "info") == 0) {
        sc_cuda_info info;
        int rc = sc_cuda_info_get(cu, stream, thread, &info);
        return info_result(r, rc, &info);
    }
    if (strcmp(kind, "host_call") == 0) {
        const char *k = opt_str(op, "kind", "?");
        sc_cuda_host h = SC_CUDA_HOST_UNSAFE;
        if (sc_cuda_host_parse(k, strlen(k), &h) != 0)
            failf(r, "unknown host call kind %s", k);
        return rc_result(r, sc_cuda_host_call(cu, h, stream, event, thread));
    }
    if (strcmp(kind, "exchange_mode") == 0) {
        sc_cuda_mode prev;
        int rc = sc_cuda_exchange_mode(cu, thread, mode_of(r, opt_str(op, "mode", "?")), &prev);
        cJSON *o = rc_result(r, rc);
        if (rc == 0)
            cJSON_AddStringToObject(o, "mode", sc_cuda_mode_name(prev));
        return o;
    }
    if (strcmp(kind, "end") == 0) {
        sc_cuda_end_result res;
        int rc = sc_cuda_end(cu, stream, thread, &res);
        cJSON *o = end_result(r, rc, &res);
        sc_cuda_end_free(&res);
        return o;
    }
    failf(r, "unknown op %s", kind);
    return cJSON_CreateNull();
}
