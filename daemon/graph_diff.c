/*
 * graph_diff.c - graph.diff {a, b}: both graphs pinned in the cache, each
 * only after its owner check (another uid's graph answers as a missing
 * one), then the diff computed and written on the thread pool
 * (docs/analyses.md, "graph.diff").
 */
#include <inttypes.h>
#include <stdlib.h>

#include "sc_diff.h"
#include "sc_handlers.h"

typedef struct diff_ctx diff_ctx;

/* One side: its id, and its entry once loaded. */
typedef struct diff_side {
    diff_ctx *x;
    int64_t id;
    sc_cache_entry *entry;
    bool done; /* loaded, or failed (x->err set) */
} diff_side;

struct diff_ctx {
    sc_async a;
    diff_side side[2];
    sc_rpc_error err; /* the first failure of either side */
    bool failed;
    uv_work_t work;
    sc_buf text;
};

static void diff_ctx_free(diff_ctx *x)
{
    for (int i = 0; i < 2; i++)
        sc_cache_release(x->a.d->cache, x->side[i].entry);
    sc_buf_free(&x->text);
    free(x);
}

static void write_ids(sc_buf *b, bool *first, const char *key, const uint32_t *v, uint32_t n)
{
    sc_json_key(b, first, key);
    sc_json_u32_array(b, v, n);
}

static void write_pairs(sc_buf *b, bool *first, const char *key, const uint32_t *v, uint64_t n)
{
    sc_json_key(b, first, key);
    sc_buf_putc(b, '[');
    for (uint64_t i = 0; i < n; i++)
        sc_buf_printf(b, i ? ",[%u,%u]" : "[%u,%u]", (unsigned)v[2 * i], (unsigned)v[2 * i + 1]);
    sc_buf_putc(b, ']');
}

static void write_changes(sc_buf *b, bool *first, const sc_graph_diff *d)
{
    sc_json_key(b, first, "nodes_changed");
    sc_buf_putc(b, '[');
    for (uint32_t i = 0; i < d->nchanged; i++) {
        const sc_diff_change *c = &d->changed[i];
        sc_buf_printf(b, "%s{\"a\":%u,\"b\":%u,\"fields\":[", i ? "," : "", (unsigned)c->a,
                      (unsigned)c->b);
        bool any = false;
        for (unsigned k = 0; k < SC_DIFF_FIELD_COUNT; k++)
            if (c->fields & (1u << k)) {
                sc_buf_printf(b, "%s\"%s\"", any ? "," : "", sc_diff_field_name(1u << k));
                any = true;
            }
        sc_buf_puts(b, "]}");
    }
    sc_buf_putc(b, ']');
}

static int diff_json(const sc_graph *a, const sc_graph *b, sc_buf *out)
{
    sc_graph_diff d;
    int rc = sc_graph_diff_compute(a, b, &d);
    if (rc != 0)
        return rc;
    bool first = true;
    sc_json_obj_begin(out, &first);
    sc_json_member_bool(out, &first, "identical", d.identical);
    write_ids(out, &first, "nodes_added", d.added, d.nadded);
    write_ids(out, &first, "nodes_removed", d.removed, d.nremoved);
    write_changes(out, &first, &d);
    write_pairs(out, &first, "edges_added", d.edges_added, d.nedges_added);
    write_pairs(out, &first, "edges_removed", d.edges_removed, d.nedges_removed);
    sc_json_obj_end(out);
    sc_graph_diff_free(&d);
    return 0;
}

static void diff_work(uv_work_t *w)
{
    diff_ctx *x = w->data;
    const sc_graph *ga = sc_cache_graph(x->side[0].entry)->graph;
    const sc_graph *gb = sc_cache_graph(x->side[1].entry)->graph;
    if (diff_json(ga, gb, &x->text) != 0)
        x->text.oom = true;
}

static void reply_error(diff_ctx *x, const sc_rpc_error *err)
{
    sc_async_error(&x->a, err);
    sc_async_done(&x->a);
    diff_ctx_free(x);
}

static void diff_computed(uv_work_t *w, int status)
{
    diff_ctx *x = w->data;
    if (status < 0 || sc_buf_failed(&x->text)) {
        sc_rpc_error err = {0};
        sc_rpc_fail(&err, SC_RPC_INTERNAL_ERROR, "out of memory answering graph.diff");
        reply_error(x, &err);
        return;
    }
    sc_buf *b = sc_async_result_begin(&x->a);
    sc_buf_append(b, x->text.data, x->text.len);
    sc_async_result_end(&x->a, b);
    sc_async_done(&x->a);
    diff_ctx_free(x);
}

/* Once both sides are settled: the error of the first that failed, or
 * the diff off the loop. */
static void side_settled(diff_side *s)
{
    diff_ctx *x = s->x;
    s->done = true;
    if (!x->side[0].done || !x->side[1].done)
        return;
    if (x->failed) {
        reply_error(x, &x->err);
        return;
    }
    x->work.data = x;
    if (uv_queue_work(x->a.d->loop, &x->work, diff_work, diff_computed) != 0) {
        sc_rpc_error err = {0};
        sc_rpc_fail(&err, SC_RPC_INTERNAL_ERROR, "cannot schedule graph.diff");
        reply_error(x, &err);
    }
}

static void side_fail(diff_side *s, int rc, const char *errmsg)
{
    diff_ctx *x = s->x;
    if (!x->failed) {
        x->failed = true;
        if (rc == SC_STORE_ENOTFOUND) {
            sc_rpc_fail(&x->err, SC_RPC_NOT_FOUND, "graph %" PRId64 " not found", s->id);
            x->err.what = "graph";
        } else {
            sc_log_store_error(x->a.d, rc, errmsg, (uint32_t)x->a.c->uid, x->a.c->pid,
                               "loading graph %" PRId64 " to diff it", s->id);
            sc_store_rpc_error(&x->err, rc, errmsg);
        }
    }
    side_settled(s);
}

static void side_loaded(void *arg, int rc, sc_cache_entry *entry, const char *errmsg)
{
    diff_side *s = arg;
    s->entry = entry;
    if (rc != 0) {
        side_fail(s, rc, errmsg);
        return;
    }
    side_settled(s);
}

static void side_meta(void *arg, int rc, sc_graph_meta *meta, const char *errmsg)
{
    diff_side *s = arg;
    diff_ctx *x = s->x;
    bool visible = rc == 0 && sc_may_access_meta(x->a.c, x->a.d, meta);
    sc_graph_meta_free(meta);
    if (rc == 0 && !visible)
        rc = SC_STORE_ENOTFOUND;
    if (rc != 0) {
        side_fail(s, rc, errmsg);
        return;
    }
    sc_cache_entry *hit = NULL;
    rc = sc_cache_get(x->a.d->cache, s->id, true, &hit, side_loaded, s);
    if (rc == 0)
        side_loaded(s, 0, hit, NULL);
    else if (rc != 1)
        side_fail(s, rc, NULL);
}

int sc_h_graph_diff(sc_req *r)
{
    uint64_t ida, idb;
    if (sc_param_id(r->params, "a", &ida, &r->err) != 0 ||
        sc_param_id(r->params, "b", &idb, &r->err) != 0)
        return H_ERROR;
    diff_ctx *x = calloc(1, sizeof *x);
    if (!x)
        return sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    sc_buf_init(&x->text);
    x->side[0] = (diff_side){x, (int64_t)ida, NULL, false};
    x->side[1] = (diff_side){x, (int64_t)idb, NULL, false};
    /* The store calls below read d and c before sc_async_start sets them
     * (their callbacks run later, on the loop). */
    x->a.d = r->d;
    x->a.c = r->c;
    if (sc_store_graph_meta(r->d->store, x->side[0].id, side_meta, &x->side[0]) != 0) {
        free(x);
        return sc_req_store_unavailable(r);
    }
    sc_async_start(&x->a, r);
    /* A failure to queue the second look-up settles that side at once. */
    int rc = sc_store_graph_meta(r->d->store, x->side[1].id, side_meta, &x->side[1]);
    if (rc != 0)
        side_fail(&x->side[1], rc, NULL);
    return H_ASYNC;
}
