/*
 * graph_writes.c - the methods that change stored graphs outside a
 * capture: graph.delete, graph.pin and graph.submit.
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
    bool force; /* graph.delete of a pinned graph */
    bool pin;   /* graph.pin: set `pinned` instead of deleting */
    bool pinned;
    /* Whose graph and from where, for the graph_deleted event. */
    uint32_t owner_uid;
    int64_t session;
    uint32_t capture;
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
    } else if (res->rc == SC_STORE_EBUSY) {
        /* Pinned, and kept: a baseline is not lost to a stray delete. */
        sc_rpc_fail(&err, SC_RPC_INVALID_PARAMS,
                    "invalid params: graph %" PRId64
                    " is pinned; unpin it (graph.pin with pinned false) or delete it with force",
                    x->id);
        err.field = "force";
        sc_async_error(&x->a, &err);
    } else if (res->rc != SC_STORE_OK) {
        sc_log_store_error(x->a.d, res->rc, res->errmsg, (uint32_t)x->a.c->uid, x->a.c->pid,
                           "deleting graph %" PRId64, x->id);
        sc_store_rpc_error(&err, res->rc, res->errmsg);
        sc_async_error(&x->a, &err);
    } else if (x->pin) {
        /* The cached meta says whether it is pinned too. */
        sc_cache_forget(x->a.d->cache, x->id);
        sc_buf *b = sc_async_result_begin(&x->a);
        bool first;
        sc_json_obj_begin(b, &first);
        sc_json_member_i64(b, &first, "graph", x->id);
        sc_json_member_bool(b, &first, "pinned", x->pinned);
        sc_json_obj_end(b);
        sc_async_result_end(&x->a, b);
    } else {
        sc_cache_forget(x->a.d->cache, x->id);
        sc_subs_emit(x->a.d, &(sc_event){.event = "graph_deleted",
                                         .uid = x->owner_uid,
                                         .session = (uint64_t)x->session,
                                         .capture = x->capture,
                                         .graph = (uint64_t)x->id});
        sc_buf *b = sc_async_result_begin(&x->a);
        sc_buf_puts(b, "{}");
        sc_async_result_end(&x->a, b);
    }
    sc_async_done(&x->a);
    free(x);
}

/* Queue the write the request asks for: 0 or a store code. */
static int delete_or_pin(delete_ctx *x)
{
    sc_store *st = x->a.d->store;
    if (x->pin)
        return sc_store_pin_graph(st, x->id, x->pinned, graph_deleted, x);
    if (x->force)
        return sc_store_delete_graph(st, x->id, sc_now_ms(), graph_deleted, x);
    return sc_store_delete_unpinned(st, x->id, sc_now_ms(), graph_deleted, x);
}

static void delete_meta_loaded(void *arg, int rc, sc_graph_meta *meta, const char *errmsg)
{
    delete_ctx *x = arg;
    sc_rpc_error err = {0};
    if (rc == 0) {
        x->owner_uid = meta->owner_uid;
        x->session = meta->session;
        x->capture = meta->capture;
    }
    /* Another uid's graph answers as a missing one, so ids cannot be probed. */
    if (rc == SC_STORE_ENOTFOUND || (rc == 0 && !sc_may_access_meta(x->a.c, x->a.d, meta))) {
        sc_rpc_fail(&err, SC_RPC_NOT_FOUND, "graph %" PRId64 " not found", x->id);
        err.what = "graph";
    } else if (rc != 0) {
        sc_log_store_error(x->a.d, rc, errmsg, (uint32_t)x->a.c->uid, x->a.c->pid,
                           "reading graph %" PRId64 " to delete it", x->id);
        sc_store_rpc_error(&err, rc, errmsg);
    } else if (meta->parent_graph) {
        /* A body lives and dies with the node that holds it. */
        sc_rpc_fail(&err, SC_RPC_INVALID_PARAMS,
                    "invalid params: graph %" PRId64 " is a body of graph %" PRId64
                    " node %u; %s graph %" PRId64,
                    x->id, meta->parent_graph, (unsigned)meta->parent_node,
                    x->pin ? "pin" : "delete", meta->parent_graph);
        err.field = "graph";
    } else if ((rc = delete_or_pin(x)) == 0) {
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

/* graph.delete and graph.pin: the graph is looked up (and its access
 * checked) before the write is queued. */
static int delete_start(sc_req *r, bool pin)
{
    uint64_t id;
    bool force = false, pinned = true;
    if (sc_param_id(r->params, "graph", &id, &r->err) != 0 ||
        (!pin && sc_param_opt_bool(r->params, "force", &force, &r->err) != 0) ||
        (pin && sc_param_opt_bool(r->params, "pinned", &pinned, &r->err) != 0))
        return H_ERROR;
    delete_ctx *x = calloc(1, sizeof(*x));
    if (!x)
        return sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    x->id = (int64_t)id;
    x->force = force;
    x->pin = pin;
    x->pinned = pinned;
    if (sc_store_graph_meta(r->d->store, x->id, delete_meta_loaded, x) != 0) {
        free(x);
        return sc_req_store_unavailable(r);
    }
    sc_async_start(&x->a, r);
    return H_ASYNC;
}

int sc_h_graph_delete(sc_req *r)
{
    return delete_start(r, false);
}

int sc_h_graph_pin(sc_req *r)
{
    return delete_start(r, true);
}

/* ----------------------------------------------------- graph.submit */

/* Bodies nest at most this deep below the submitted graph. */
#define SUBMIT_MAX_DEPTH 16

/* One graph of a submission: the top-level one first, then each body
 * after the graph that holds it (pre-order), so its parent's id is known
 * by the time it is stored. */
typedef struct submit_item {
    sc_graph *g;
    uint32_t parent; /* item index of the graph holding it (top level: none) */
    uint32_t node;   /* the node of that graph holding it */
    uint32_t index;  /* among that node's bodies */
    int64_t id;      /* once stored */
} submit_item;

/* graph.submit's request, or (with `finish` set) the bodies a capture.end
 * stores below its graph, which is then item 0, stored by the end. */
struct sc_submit {
    sc_async a;
    submit_item *items;
    uint32_t count, cap;
    uint32_t next;  /* the item being stored */
    uint32_t total; /* nodes in all items, against --max-session-nodes */
    char *label;    /* the store reads it on its writer thread */
    size_t label_len;
    uint32_t uid; /* the owner every item is stored under */
    int64_t pid;
    const sc_graph *top; /* a capture.end's graph: item 0's, stored by the end */
    sc_fingerprint *fps; /* each item's, once every item is stored */
    sc_fingerprint *scratch;
    sc_submit_done_fn finish;
    void *finish_arg;
    int rc;       /* a failed request's store code, kept while its graph goes */
    char *errmsg; /* and the store's words, owned */
};
typedef struct sc_submit submit_ctx;

static void submit_ctx_free(submit_ctx *x)
{
    for (uint32_t i = 0; i < x->count; i++)
        sc_graph_destroy(x->items[i].g);
    free(x->items);
    free(x->fps);
    free(x->scratch);
    free(x->label);
    free(x->errmsg);
    free(x);
}

void sc_submit_free(sc_submit *x)
{
    if (x)
        submit_ctx_free(x);
}

static int submit_store_next(submit_ctx *x);

void sc_submit_write_bodies(sc_buf *b, bool *first, const sc_submit *x)
{
    if (!x || x->count < 2)
        return;
    /* Every body's id, in the order the request nests them. */
    sc_json_key(b, first, "bodies");
    sc_buf_putc(b, '[');
    for (uint32_t i = 1; i < x->count; i++) {
        if (i > 1)
            sc_buf_putc(b, ',');
        sc_json_i64(b, x->items[i].id);
    }
    sc_buf_putc(b, ']');
}

static void submit_reply(submit_ctx *x)
{
    sc_buf *b = sc_async_result_begin(&x->a);
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_member_i64(b, &first, "graph", x->items[0].id);
    sc_json_member_u64(b, &first, "node_count", sc_graph_node_count(x->items[0].g));
    sc_json_member_u64(b, &first, "edge_count", sc_graph_edge_count(x->items[0].g));
    sc_submit_write_bodies(b, &first, x);
    sc_json_obj_end(b);
    sc_async_result_end(&x->a, b);
}

/* The request's end with rc (a store code): its reply, or the owner's. */
static void submit_finish(submit_ctx *x, int rc, const char *errmsg)
{
    if (x->finish) {
        x->finish(x->finish_arg, rc, errmsg, x);
        return; /* the owner replies and frees x */
    }
    if (rc != SC_STORE_OK) {
        sc_rpc_error err = {0};
        sc_store_rpc_error(&err, rc, errmsg);
        sc_async_error(&x->a, &err);
    } else {
        /* Every graph of the submission is committed by now. */
        sc_subs_emit(x->a.d, &(sc_event){.event = "graph_stored",
                                         .uid = x->uid,
                                         .graph = (uint64_t)x->items[0].id,
                                         .has_counts = true,
                                         .node_count = sc_graph_node_count(x->items[0].g),
                                         .edge_count = sc_graph_edge_count(x->items[0].g),
                                         .label = x->label,
                                         .label_len = x->label_len});
        submit_reply(x);
    }
    sc_async_done(&x->a);
    submit_ctx_free(x);
}

/* What a failed request stored is gone: only now the error goes out, so
 * that no one who has it can still read the graph. */
static void submit_undone(void *arg, const sc_store_result *res)
{
    submit_ctx *x = arg;
    if (res->rc != SC_STORE_OK)
        sc_log_store_error(x->a.d, res->rc, res->errmsg, x->uid, x->pid,
                           "deleting graph %" PRId64 " after a body failed", x->items[0].id);
    sc_cache_forget(x->a.d->cache, x->items[0].id);
    submit_finish(x, x->rc, x->errmsg);
}

/* The bodies of node `node` of the item being fingerprinted, by index:
 * the items below it, made already (they follow it). */
typedef struct fp_walk {
    submit_ctx *x;
    uint32_t item;
} fp_walk;

static int item_bodies(void *ctx, uint32_t node, const sc_fingerprint **bodies, uint32_t *count)
{
    fp_walk *w = ctx;
    submit_ctx *x = w->x;
    uint32_t k = 0;
    for (uint32_t i = w->item + 1; i < x->count; i++) {
        const submit_item *it = &x->items[i];
        if (it->parent == w->item && it->node == node && it->index < x->count) {
            x->scratch[it->index] = x->fps[i];
            k = it->index + 1 > k ? it->index + 1 : k;
        }
    }
    *bodies = x->scratch;
    *count = k;
    return 0;
}

/* Each item's fingerprints, bodies folded in: the last items first, as a
 * body follows the graph holding it. */
static int submit_fingerprint(submit_ctx *x)
{
    x->fps = calloc(x->count, sizeof *x->fps);
    x->scratch = calloc(x->count, sizeof *x->scratch);
    if (!x->fps || !x->scratch)
        return SC_STORE_ENOMEM;
    for (uint32_t i = x->count; i-- > 0;) {
        const sc_graph *g = i == 0 && x->top ? x->top : x->items[i].g;
        fp_walk w = {x, i};
        if (sc_graph_fingerprint(g, item_bodies, &w, &x->fps[i]) != 0)
            return SC_STORE_ENOMEM;
    }
    return 0;
}

static void submit_failed(submit_ctx *x, int rc, const char *errmsg);

static void fps_stored(void *arg, const sc_store_result *res)
{
    submit_ctx *x = arg;
    if (res->rc != SC_STORE_OK) {
        submit_failed(x, res->rc, res->errmsg);
        return;
    }
    for (uint32_t i = 0; i < x->count; i++)
        sc_cache_forget(x->a.d->cache, x->items[i].id);
    submit_finish(x, SC_STORE_OK, NULL);
}

/* Every item is stored, each row with the fingerprints of its own graph:
 * those that hold bodies get theirs folded in before the reply. */
static int submit_set_fps(submit_ctx *x)
{
    int rc = submit_fingerprint(x);
    int64_t *ids = rc == 0 ? malloc(x->count * sizeof *ids) : NULL;
    if (!ids)
        return SC_STORE_ENOMEM;
    for (uint32_t i = 0; i < x->count; i++)
        ids[i] = x->items[i].id;
    rc = sc_store_set_fingerprints(x->a.d->store, x->count, ids, x->fps, fps_stored, x);
    free(ids);
    return rc;
}

static void graph_submitted(void *arg, const sc_store_result *res)
{
    submit_ctx *x = arg;
    int rc = res->rc;
    if (rc == SC_STORE_OK) {
        x->items[x->next++].id = res->id;
        if (x->next < x->count && submit_store_next(x) == 0)
            return;
    }
    if (rc == SC_STORE_OK && x->next == x->count) {
        if (x->count < 2) {
            submit_finish(x, SC_STORE_OK, NULL);
            return;
        }
        if ((rc = submit_set_fps(x)) == 0)
            return;
    }
    submit_failed(x, rc, res->errmsg);
}

/* A store step failed (rc, or a body the store refused to queue): what
 * was stored goes before the error is told. */
static void submit_failed(submit_ctx *x, int rc, const char *errmsg)
{
    /* A body the store refused to queue (stopping) fails like a write. */
    x->rc = rc != SC_STORE_OK ? rc : SC_STORE_EIO;
    x->errmsg = errmsg ? strdup(errmsg) : NULL;
    sc_log_store_error(x->a.d, x->rc, errmsg, x->uid, x->pid,
                       x->finish ? "storing the bodies of a captured graph"
                                 : "storing a submitted graph");
    /* What was stored goes: deleting the top-level graph takes its bodies. */
    if (x->next > 0 &&
        sc_store_delete_graph(x->a.d->store, x->items[0].id, sc_now_ms(), submit_undone, x) == 0)
        return;
    submit_finish(x, x->rc, x->errmsg);
}

static int submit_store_next(submit_ctx *x)
{
    const submit_item *it = &x->items[x->next];
    sc_store_parent p = {0};
    if (x->next > 0)
        p = (sc_store_parent){x->items[it->parent].id, it->node, it->index};
    return sc_store_submit_body(x->a.d->store, it->g, x->next > 0 ? &p : NULL, x->uid, x->pid,
                                x->label, x->label_len, sc_now_ms(), graph_submitted, x);
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

static int submit_graph(sc_req *r, submit_ctx *x, sc_jval obj, uint32_t parent, uint32_t node,
                        uint32_t index, unsigned depth);

/* The bodies a node holds: `child` (one graph object) for kind graph,
 * `bodies` (an array of them) for kind conditional; none for the rest. */
static int submit_node_bodies(sc_req *r, submit_ctx *x, sc_jval o, const sc_node *n, uint32_t self,
                              uint32_t node, unsigned depth)
{
    int kind = (int)n->kind;
    if (kind != SC_KIND_GRAPH && kind != SC_KIND_CONDITIONAL)
        return 0;
    const char *field = kind == SC_KIND_GRAPH ? "child" : "bodies";
    sc_jval v = sc_jval_get(o, field, strlen(field));
    if (kind == SC_KIND_GRAPH) {
        if (!v.doc || !sc_jval_is(v, SC_JOBJECT)) {
            sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS,
                        "invalid params: 'child' must be an object {nodes, edges}");
            return -1;
        }
        return submit_graph(r, x, v, self, node, 0, depth + 1);
    }
    if (!v.doc || !sc_jval_is(v, SC_JARRAY) || sc_jval_count(v) == 0) {
        sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS,
                    "invalid params: 'bodies' must be a non-empty array of {nodes, edges}");
        r->err.field = "bodies";
        return -1;
    }
    /* A conditional holds exactly the bodies its size says. */
    if (sc_jval_count(v) != n->cond_size) {
        sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS,
                    "invalid params: 'bodies' holds %u graphs but 'size' is %u",
                    (unsigned)sc_jval_count(v), (unsigned)n->cond_size);
        r->err.field = "bodies";
        return -1;
    }
    uint32_t i = 0;
    for (sc_jval b = sc_jval_first(v); b.doc; b = sc_jval_next(v, b), i++) {
        if (!sc_jval_is(b, SC_JOBJECT)) {
            sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS, "invalid params: bodies[%u]: not an object",
                        (unsigned)i);
            return -1;
        }
        if (submit_graph(r, x, b, self, node, i, depth + 1) != 0)
            return -1;
    }
    return 0;
}

static int submit_nodes(sc_req *r, submit_ctx *x, sc_jval nodes, uint32_t self, unsigned depth)
{
    uint32_t i = 0;
    for (sc_jval o = sc_jval_first(nodes); o.doc; o = sc_jval_next(nodes, o), i++) {
        sc_node n;
        if (!sc_jval_is(o, SC_JOBJECT))
            return bad_element(r, "nodes", i, "not an object");
        if (sc_cuda_read_node(r, o, &n) != 0)
            return bad_element(r, "nodes", i, r->err.message);
        int rc = sc_graph_add_node(x->items[self].g, &n, NULL);
        sc_kargs_node_free(&n);
        if (rc == SC_ELIMIT) {
            sc_rpc_fail(&r->err, SC_RPC_LIMIT, "graph holds more than %u buffer accesses",
                        (unsigned)SC_ACCESS_GRAPH_MAX);
            return -1;
        }
        if (rc != 0)
            return no_memory(r);
        if (submit_node_bodies(r, x, o, &n, self, i, depth) != 0)
            return bad_element(r, "nodes", i, r->err.message);
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

static int get_array_in(sc_req *r, sc_jval obj, const char *field, sc_jval *out)
{
    *out = sc_jval_get(obj, field, strlen(field));
    if (out->doc && sc_jval_is(*out, SC_JARRAY))
        return 0;
    sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS, "invalid params: '%s' must be an array", field);
    r->err.field = field;
    return -1;
}

/* A new item for the graph object `obj` ({nodes, edges}, the request's
 * params for the top level), its bodies after it. */
static int submit_graph(sc_req *r, submit_ctx *x, sc_jval obj, uint32_t parent, uint32_t node,
                        uint32_t index, unsigned depth)
{
    sc_jval nodes, edges;
    if (depth > SUBMIT_MAX_DEPTH) {
        sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS, "invalid params: bodies nest more than %d deep",
                    SUBMIT_MAX_DEPTH);
        return -1;
    }
    if (get_array_in(r, obj, "nodes", &nodes) != 0 || get_array_in(r, obj, "edges", &edges) != 0)
        return -1;
    uint32_t n = sc_jval_count(nodes);
    x->total += n;
    if (n > r->d->cfg.max_session_nodes || x->total > r->d->cfg.max_session_nodes) {
        sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS,
                    "invalid params: 'nodes' holds %u nodes, more than the limit of %u",
                    (unsigned)x->total, (unsigned)r->d->cfg.max_session_nodes);
        r->err.field = "nodes";
        return -1;
    }
    if (x->count == x->cap) {
        uint32_t cap = x->cap ? 2 * x->cap : 4;
        submit_item *more = realloc(x->items, cap * sizeof *more);
        if (!more)
            return no_memory(r);
        x->items = more;
        x->cap = cap;
    }
    uint32_t self = x->count;
    x->items[self] = (submit_item){.parent = parent, .node = node, .index = index};
    if (sc_graph_create(&x->items[self].g) != 0)
        return no_memory(r);
    x->count++;
    if (submit_nodes(r, x, nodes, self, depth) != 0 ||
        submit_edges(r, edges, x->items[self].g, n) != 0)
        return -1;
    return sc_graph_seal(x->items[self].g) != 0 ? no_memory(r) : 0;
}

int sc_h_graph_submit(sc_req *r)
{
    const char *label = "submitted";
    size_t label_len = strlen(label);
    if (sc_param_opt_string(r->params, "label", &label, &label_len, &r->err) != 0)
        return H_ERROR;
    submit_ctx *x = calloc(1, sizeof *x);
    if (!x || !(x->label = strndup(label, label_len))) {
        if (x)
            submit_ctx_free(x);
        return sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    }
    x->label_len = label_len;
    x->uid = (uint32_t)r->c->uid;
    x->pid = r->c->pid;
    if (submit_graph(r, x, r->params, 0, 0, 0, 0) != 0) {
        submit_ctx_free(x);
        return H_ERROR;
    }
    /* The first store call reads d before sc_async_start sets it (its
     * completion runs later, on the loop). */
    x->a.d = r->d;
    x->a.c = r->c;
    if (submit_store_next(x) != 0) {
        submit_ctx_free(x);
        return sc_req_store_unavailable(r);
    }
    sc_async_start(&x->a, r);
    return H_ASYNC;
}

/* ------------------------------------------- bodies below another graph */

int sc_submit_bodies_new(sc_req *r, const char *label, size_t label_len, uint32_t uid, int64_t pid,
                         sc_submit **out)
{
    *out = NULL;
    submit_ctx *x = calloc(1, sizeof *x);
    /* A session opened without a label has none (NULL, 0). */
    if (!x || !(x->label = strndup(label ? label : "", label_len)) ||
        !(x->items = calloc(4, sizeof *x->items))) {
        if (x)
            submit_ctx_free(x);
        return no_memory(r);
    }
    /* Item 0 stands for the graph the bodies hang below, stored elsewhere. */
    x->cap = 4;
    x->count = 1;
    x->label_len = label_len;
    x->uid = uid;
    x->pid = pid;
    *out = x;
    return 0;
}

int sc_submit_add_body(sc_req *r, sc_submit *x, sc_jval obj, uint32_t node, uint32_t index)
{
    return submit_graph(r, x, obj, 0, node, index, 1);
}

uint32_t sc_submit_body_count(const sc_submit *x)
{
    return x ? x->count - 1 : 0;
}

int sc_submit_store_bodies(sc_submit *x, sc_daemon *d, int64_t graph, const sc_graph *g,
                           sc_submit_done_fn done, void *arg)
{
    x->a.d = d;
    x->top = g;
    x->items[0].id = graph;
    x->next = 1;
    x->finish = done;
    x->finish_arg = arg;
    return submit_store_next(x);
}
