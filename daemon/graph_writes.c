/*
 * graph_writes.c - the methods that change stored graphs outside a
 * capture: graph.delete and graph.submit.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_handlers.h"
#include "sc_kargs_node.h"

/* ------------------------------------------------------- graph.delete */

typedef struct delete_ctx {
    sc_async a;
    int64_t id;
} delete_ctx;

static void graph_deleted(void *arg, const sc_store_result *res)
{
    delete_ctx *x = arg;
    sc_rpc_error err = {0};
    if (res->rc == SC_STORE_ENOTFOUND) {
        /* Deleted by someone else between our look-up and our turn. */
        sc_rpc_fail(&err, SC_RPC_NOT_FOUND, "graph %" PRId64 " not found", x->id);
        err.what = "graph";
        sc_async_error(&x->a, &err);
    } else if (res->rc != SC_STORE_OK) {
        sc_log_store_error(x->a.d, res->rc, res->errmsg, (uint32_t)x->a.c->uid, x->a.c->pid,
                           "deleting graph %" PRId64, x->id);
        sc_store_rpc_error(&err, res->rc, res->errmsg);
        sc_async_error(&x->a, &err);
    } else {
        sc_cache_forget(x->a.d->cache, x->id);
        sc_buf *b = sc_async_result_begin(&x->a);
        sc_buf_puts(b, "{}");
        sc_async_result_end(&x->a, b);
    }
    sc_async_done(&x->a);
    free(x);
}

static void delete_meta_loaded(void *arg, int rc, sc_graph_meta *meta, const char *errmsg)
{
    delete_ctx *x = arg;
    sc_rpc_error err = {0};
    /* Another uid's graph answers as a missing one, so ids cannot be probed. */
    if (rc == SC_STORE_ENOTFOUND || (rc == 0 && !sc_may_access_meta(x->a.c, x->a.d, meta))) {
        sc_rpc_fail(&err, SC_RPC_NOT_FOUND, "graph %" PRId64 " not found", x->id);
        err.what = "graph";
    } else if (rc != 0) {
        sc_log_store_error(x->a.d, rc, errmsg, (uint32_t)x->a.c->uid, x->a.c->pid,
                           "reading graph %" PRId64 " to delete it", x->id);
        sc_store_rpc_error(&err, rc, errmsg);
    } else if ((rc = sc_store_delete_graph(x->a.d->store, x->id, sc_now_ms(), graph_deleted, x)) ==
               0) {
        sc_graph_meta_free(meta);
        return;
    } else {
        sc_log_store_error(x->a.d, rc, NULL, (uint32_t)x->a.c->uid, x->a.c->pid,
                           "deleting graph %" PRId64, x->id);
        sc_store_rpc_error(&err, rc, NULL);
    }
    sc_graph_meta_free(meta);
    sc_async_error(&x->a, &err);
    sc_async_done(&x->a);
    free(x);
}

int sc_h_graph_delete(sc_req *r)
{
    uint64_t id;
    if (sc_param_id(r->params, "graph", &id, &r->err) != 0)
        return H_ERROR;
    delete_ctx *x = calloc(1, sizeof(*x));
    if (!x)
        return sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    x->id = (int64_t)id;
    if (sc_store_graph_meta(r->d->store, x->id, delete_meta_loaded, x) != 0) {
        free(x);
        return sc_req_store_unavailable(r);
    }
    sc_async_start(&x->a, r);
    return H_ASYNC;
}

/* ----------------------------------------------------- graph.submit */

typedef struct submit_ctx {
    sc_async a;
    sc_graph *g;
    char *label; /* the store reads it on its writer thread */
} submit_ctx;

static void submit_ctx_free(submit_ctx *x)
{
    sc_graph_destroy(x->g);
    free(x->label);
    free(x);
}

static void graph_submitted(void *arg, const sc_store_result *res)
{
    submit_ctx *x = arg;
    if (res->rc != SC_STORE_OK) {
        sc_rpc_error err = {0};
        sc_log_store_error(x->a.d, res->rc, res->errmsg, (uint32_t)x->a.c->uid, x->a.c->pid,
                           "storing a submitted graph");
        sc_store_rpc_error(&err, res->rc, res->errmsg);
        sc_async_error(&x->a, &err);
    } else {
        sc_buf *b = sc_async_result_begin(&x->a);
        bool first;
        sc_json_obj_begin(b, &first);
        sc_json_member_i64(b, &first, "graph", res->id);
        sc_json_member_u64(b, &first, "node_count", sc_graph_node_count(x->g));
        sc_json_member_u64(b, &first, "edge_count", sc_graph_edge_count(x->g));
        sc_json_obj_end(b);
        sc_async_result_end(&x->a, b);
    }
    sc_async_done(&x->a);
    submit_ctx_free(x);
}

static int no_memory(sc_req *r)
{
    sc_rpc_fail(&r->err, SC_RPC_INTERNAL_ERROR, "out of memory");
    return -1;
}

/* -32602 about element i of `field`, with the reason. */
static int bad_element(sc_req *r, const char *field, uint32_t i, const char *why)
{
    char msg[sizeof r->err.message];
    snprintf(msg, sizeof msg, "%s", why);
    sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS, "%s[%u]: %s", field, (unsigned)i, msg);
    r->err.field = field;
    return -1;
}

static int submit_nodes(sc_req *r, sc_jval nodes, sc_graph *g)
{
    uint32_t i = 0;
    for (sc_jval o = sc_jval_first(nodes); o.doc; o = sc_jval_next(nodes, o), i++) {
        sc_node n;
        if (!sc_jval_is(o, SC_JOBJECT))
            return bad_element(r, "nodes", i, "not an object");
        if (sc_cuda_read_node(r, o, &n) != 0)
            return bad_element(r, "nodes", i, r->err.message);
        int rc = sc_graph_add_node(g, &n, NULL);
        sc_kargs_node_free(&n);
        if (rc != 0)
            return no_memory(r);
    }
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Edges: [src, dst] of node indexes, src < dst, in range, none twice. */
static int submit_edges(sc_req *r, sc_jval edges, sc_graph *g, uint32_t n)
{
    uint32_t m = sc_jval_count(edges), i = 0;
    /* (src, dst, index) packed so that a sort finds repeats and their index */
    uint64_t *keys = calloc(m ? m : 1, 2 * sizeof *keys);
    if (!keys)
        return no_memory(r);
    int rc = 0;
    for (sc_jval e = sc_jval_first(edges); rc == 0 && e.doc; e = sc_jval_next(edges, e), i++) {
        int64_t src = -1, dst = -1;
        bool pair = sc_jval_is(e, SC_JARRAY) && sc_jval_count(e) == 2 &&
                    sc_jval_int(sc_jval_first(e), &src) &&
                    sc_jval_int(sc_jval_next(e, sc_jval_first(e)), &dst);
        if (!pair)
            rc = bad_element(r, "edges", i, "must be a [source, destination] pair of integers");
        else if (src < 0 || dst < 0 || src >= n || dst >= n)
            rc = bad_element(r, "edges", i, "node index out of range");
        else if (src >= dst)
            rc = bad_element(r, "edges", i, "source must precede destination");
        else {
            keys[2 * i] = (uint64_t)src << 32 | (uint64_t)dst;
            keys[2 * i + 1] = i;
        }
    }
    if (rc == 0 && m > 1) {
        qsort(keys, m, 2 * sizeof *keys, cmp_u64);
        for (uint32_t k = 1; rc == 0 && k < m; k++) {
            if (keys[2 * k] == keys[2 * (k - 1)]) {
                uint64_t later =
                    keys[2 * k + 1] > keys[2 * k - 1] ? keys[2 * k + 1] : keys[2 * k - 1];
                rc = bad_element(r, "edges", (uint32_t)later, "repeats an earlier edge");
            }
        }
    }
    for (uint32_t k = 0; rc == 0 && k < m; k++) {
        if (sc_graph_add_edge(g, (uint32_t)(keys[2 * k] >> 32), (uint32_t)keys[2 * k]) != 0)
            rc = no_memory(r);
    }
    free(keys);
    return rc;
}

static int get_array(sc_req *r, const char *field, sc_jval *out)
{
    *out = sc_param_get(r->params, field);
    if (out->doc && sc_jval_is(*out, SC_JARRAY))
        return 0;
    sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS, "invalid params: '%s' must be an array", field);
    r->err.field = field;
    return -1;
}

int sc_h_graph_submit(sc_req *r)
{
    const char *label = "submitted";
    size_t label_len = strlen(label);
    sc_jval nodes, edges;
    if (sc_param_opt_string(r->params, "label", &label, &label_len, &r->err) != 0 ||
        get_array(r, "nodes", &nodes) != 0 || get_array(r, "edges", &edges) != 0)
        return H_ERROR;
    uint32_t n = sc_jval_count(nodes);
    if (n > r->d->cfg.max_session_nodes) {
        sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS,
                    "invalid params: 'nodes' holds %u nodes, more than the limit of %u",
                    (unsigned)n, (unsigned)r->d->cfg.max_session_nodes);
        r->err.field = "nodes";
        return H_ERROR;
    }
    submit_ctx *x = calloc(1, sizeof *x);
    if (!x || sc_graph_create(&x->g) != 0 || !(x->label = strndup(label, label_len))) {
        if (x)
            submit_ctx_free(x);
        return sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    }
    if (submit_nodes(r, nodes, x->g) != 0 || submit_edges(r, edges, x->g, n) != 0) {
        submit_ctx_free(x);
        return H_ERROR;
    }
    if (sc_graph_seal(x->g) != 0) {
        submit_ctx_free(x);
        return sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    }
    if (sc_store_submit_graph(r->d->store, x->g, (uint32_t)r->c->uid, r->c->pid, x->label,
                              label_len, sc_now_ms(), graph_submitted, x) != 0) {
        submit_ctx_free(x);
        return sc_req_store_unavailable(r);
    }
    sc_async_start(&x->a, r);
    return H_ASYNC;
}
