/*
 * queries.c - stored graphs, the capture log and the daemon's status:
 * graph.*, log.list and server.info.
 *
 * Graph contents come from the cache (loaded and indexed off the loop on a
 * miss); large replies (graph.get, graph.export) are rendered on the thread
 * pool while the cache entry is pinned: first measured, then reserved
 * against the reply bounds, then rendered, a few at a time (see "renders"
 * below).  Lists come straight from SQLite on the thread pool.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sc_dot.h"
#include "sc_handlers.h"
#include "sc_redact.h"

/* ------------------------------------------------------------ cursors */

/*
 * Cursors are opaque strings to clients: "g<graph>" for graph.list and
 * "l<opened_ms>.<session>" for log.list.
 */
static void write_graph_cursor(sc_buf *b, int64_t before)
{
    char s[32];
    snprintf(s, sizeof(s), "g%" PRId64, before);
    sc_json_cstr(b, s);
}

static void write_log_cursor(sc_buf *b, int64_t opened_ms, int64_t session)
{
    char s[64];
    snprintf(s, sizeof(s), "l%" PRId64 ".%" PRId64, opened_ms, session);
    sc_json_cstr(b, s);
}

static bool parse_i64(const char *s, const char **end, int64_t *out)
{
    int64_t v = 0;
    const char *p = s;
    if (*p < '0' || *p > '9')
        return false;
    while (*p >= '0' && *p <= '9') {
        if (v > (INT64_MAX - (*p - '0')) / 10)
            return false;
        v = v * 10 + (*p++ - '0');
    }
    *end = p;
    *out = v;
    return true;
}

static int bad_cursor(sc_req *r, const char *method)
{
    sc_req_fail(r, SC_RPC_INVALID_PARAMS,
                "invalid params: 'before' must be a cursor returned by %s as 'next'", method);
    r->err.field = "before";
    return -1;
}

static int get_limit(sc_req *r, uint32_t *limit)
{
    uint64_t v = SC_STORE_LIST_DEFAULT;
    if (sc_param_opt_u64(r->params, "limit", SC_STORE_LIST_MAX, &v, &r->err) != 0 || v == 0) {
        sc_req_fail(r, SC_RPC_INVALID_PARAMS,
                    "invalid params: 'limit' must be an integer from 1 to %d", SC_STORE_LIST_MAX);
        r->err.field = "limit";
        return -1;
    }
    *limit = (uint32_t)v;
    return 0;
}

/* ------------------------------------------------------- cached graphs */

/* A request that needs a graph from the cache. */
typedef struct graph_ctx graph_ctx;
struct body_out;
typedef void (*graph_fn)(graph_ctx *g);
/* A request's own parameters, checked once access is granted: 0 or -1 with r->err set. */
typedef int (*graph_check_fn)(sc_req *r);

struct graph_ctx {
    sc_async a;
    sc_req req; /* a copy for synchronous-style replies after the load */
    int64_t id;
    sc_cache_entry *entry;
    graph_check_fn check; /* may be NULL */
    graph_fn on_ready;    /* runs with the entry pinned, access and params checked */
    bool off_loop;        /* on_hit answered H_ASYNC: the work must leave the loop */
    uv_work_t work;
    sc_buf text;
    const char *format;
    /* graph.get / graph.export: the body's writer, its measured size, the
     * bytes reserved for the reply and the head's length in `text`. */
    void (*body)(graph_ctx *g, struct body_out *o);
    size_t body_len, reserved, head_len;
    graph_ctx *next_wait; /* in the daemon's queue of renders waiting for a slot */
};

static void graph_ctx_free(graph_ctx *g)
{
    sc_cache_release(g->a.d->cache, g->entry);
    sc_buf_free(&g->text);
    free(g);
}

/* Root sees every row; anyone else the rows of their uid written by this
 * daemon's host (uids of two hosts are not the same users). */
static bool may_access_meta(const sc_conn *c, const sc_daemon *d, const sc_graph_meta *m)
{
    if (sc_may_access_all(c))
        return true;
    return sc_may_access(c, m->owner_uid) && strcmp(m->host ? m->host : "", d->host_name) == 0;
}

/* A non-root caller's host filter: its own host, and only that.  False
 * when the caller asked for another host (the answer is then empty). */
static bool own_host_filter(sc_req *r, const char **host, size_t *host_len)
{
    if (sc_may_access_all(r->c))
        return true;
    const char *own = r->d->host_name;
    if (*host && (*host_len != strlen(own) || memcmp(*host, own, *host_len) != 0))
        return false;
    *host = own;
    *host_len = strlen(own);
    return true;
}

static int check_access(sc_req *r, const sc_stored_graph *sg)
{
    if (may_access_meta(r->c, r->d, &sg->meta))
        return 0;
    sc_req_denied(r, "graph", (uint64_t)sg->meta.graph);
    return -1;
}

static void graph_loaded(void *arg, int rc, sc_cache_entry *entry, const char *errmsg)
{
    graph_ctx *g = arg;
    g->entry = entry;
    if (rc == SC_STORE_ENOTFOUND) {
        sc_req_not_found(&g->req, "graph", (uint64_t)g->id);
    } else if (rc != 0) {
        sc_log_store_error(g->a.d, rc, errmsg, (uint32_t)g->a.c->uid, g->a.c->pid,
                           "loading graph %" PRId64, g->id);
        sc_store_rpc_error(&g->req.err, rc, errmsg);
    } else if (check_access(&g->req, sc_cache_graph(entry)) == 0 &&
               (!g->check || g->check(&g->req) == 0)) {
        g->on_ready(g);
        return;
    }
    sc_async_error(&g->a, &g->req.err);
    sc_async_done(&g->a);
    graph_ctx_free(g);
}

/*
 * Run `on_ready` once graph params.graph is cached.  A hit whose handler
 * answers synchronously returns its result directly (no context needed);
 * otherwise the context waits for the load.  An on_hit that answers
 * H_ASYNC hands the request to on_ready with g->off_loop set, as if the
 * graph had just been loaded.  Without `full` the entry may
 * be a skeleton (streams and edges only): enough for reachability.
 * `check` validates the other parameters only after the owner's check, so
 * another uid learns nothing from a graph but 1005, whatever it sends.
 */
static int with_graph(sc_req *r, bool full, graph_check_fn check, graph_fn on_ready,
                      int (*on_hit)(sc_req *, const sc_stored_graph *))
{
    uint64_t id;
    if (sc_param_id(r->params, "graph", &id, &r->err) != 0)
        return H_ERROR;
    sc_cache_entry *hit = NULL;
    graph_ctx *g = calloc(1, sizeof(*g));
    if (!g)
        return sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    sc_buf_init(&g->text);
    g->id = (int64_t)id;
    g->req = *r;
    g->check = check;
    g->on_ready = on_ready;
    int rc = sc_cache_get(r->d->cache, (int64_t)id, full, &hit, graph_loaded, g);
    if (rc < 0) {
        free(g);
        sc_log_store_error(r->d, rc, NULL, (uint32_t)r->c->uid, r->c->pid, "loading graph %" PRIu64,
                           id);
        sc_store_rpc_error(&r->err, rc, NULL);
        return H_ERROR;
    }
    if (rc == 1) {
        sc_async_start(&g->a, r);
        return H_ASYNC;
    }
    g->entry = hit;
    const sc_stored_graph *sg = sc_cache_graph(hit);
    if (check_access(r, sg) != 0 || (check && check(r) != 0)) {
        sc_cache_release(r->d->cache, hit);
        free(g);
        return H_ERROR;
    }
    if (on_hit) {
        int res = on_hit(r, sg);
        if (res != H_ASYNC) {
            sc_cache_release(r->d->cache, hit);
            free(g);
            return res;
        }
        /* on_hit left the work for off the loop: go on as after a load. */
        g->off_loop = true;
    }
    /* Work that continues off the loop still needs the async machinery. */
    sc_async_start(&g->a, r);
    on_ready(g);
    return H_ASYNC;
}

/* ------------------------------------------------------- graph.reachable */

static int node_missing(sc_req *r, const sc_stored_graph *sg, uint32_t node)
{
    sc_req_fail(r, SC_RPC_NOT_FOUND, "node %u not found in graph %" PRId64, (unsigned)node,
                sg->meta.graph);
    r->err.what = "node";
    return H_ERROR;
}

/*
 * The pair at token p, read straight from the tokens: an array of exactly
 * two integers from 0 to 2^32 - 1.  Once the first element is known to be
 * a scalar, the second is the token after it.
 */
static int pair_at(const sc_jdoc *doc, uint32_t p, uint32_t *a, uint32_t *b)
{
    const sc_jtok *t = &doc->tok[p];
    if (t->type != SC_JARRAY || t->u.c.count != 2)
        return -1;
    const sc_jtok *x = t + 1, *y = t + 2;
    if (x->type != SC_JNUMBER || !(x->flags & SC_JTOK_INT) || x->u.i < 0 || x->u.i > UINT32_MAX ||
        y->type != SC_JNUMBER || !(y->flags & SC_JTOK_INT) || y->u.i < 0 || y->u.i > UINT32_MAX)
        return -1;
    *a = (uint32_t)x->u.i;
    *b = (uint32_t)y->u.i;
    return 0;
}

static sc_jval get_pairs(const sc_req *r)
{
    return sc_param_present(r->params, "pairs") ? sc_param_get(r->params, "pairs") : SC_JVAL_NONE;
}

/* Checked after the owner's check, before any pair is answered. */
static int check_reach_params(sc_req *r)
{
    sc_jval pairs = get_pairs(r);
    if (pairs.doc && (sc_param_present(r->params, "from") || sc_param_present(r->params, "to"))) {
        sc_req_fail(r, SC_RPC_INVALID_PARAMS,
                    "invalid params: give either 'pairs' or 'from' and 'to', not both");
        r->err.field = sc_param_present(r->params, "from") ? "from" : "to";
        return -1;
    }
    if (!pairs.doc) {
        uint32_t v;
        if (sc_param_u32(r->params, "from", &v, &r->err) != 0 ||
            sc_param_u32(r->params, "to", &v, &r->err) != 0)
            return -1;
        return 0;
    }
    bool ok = sc_jval_is(pairs, SC_JARRAY);
    if (ok) {
        const sc_jdoc *doc = pairs.doc;
        uint32_t end = doc->tok[pairs.i].end;
        for (uint32_t p = pairs.i + 1; p < end && ok; p = doc->tok[p].end) {
            uint32_t a, b;
            ok = pair_at(doc, p, &a, &b) == 0;
        }
    }
    if (ok)
        return 0;
    sc_req_fail(r, SC_RPC_INVALID_PARAMS,
                "invalid params: 'pairs' must be an array of [from, to] pairs of node ids "
                "from 0 to 4294967295");
    r->err.field = "pairs";
    return -1;
}

/*
 * Work on the event loop is capped so that no request holds every other
 * client up (docs/design.md §8): a pair costs REACH_PAIR_STEPS, every
 * predecessor a walk looks at one step, and a request that would need more
 * than REACH_LOOP_STEPS is answered on the thread pool instead.  A million
 * steps of walking take a few milliseconds; 131,072 pairs answered by the
 * index about 30 ms, so the 100,000-pair batches stay on the loop.
 */
#define REACH_LOOP_STEPS (UINT64_C(1) << 20)
#define REACH_PAIR_STEPS 8

static void queue_render(graph_ctx *g, uv_work_cb render);

/* One answer: unbounded without `steps`; false when they ran out first. */
static bool reach_one(const sc_graph *gr, uint32_t a, uint32_t b, uint64_t *steps, bool *yes)
{
    bool settled = true;
    if (!steps)
        sc_graph_reachable(gr, a, b, yes);
    else
        sc_graph_reachable_bounded(gr, a, b, steps, yes, &settled);
    return settled;
}

/* The pairs' answers, "true,false,..." without the last comma, into out
 * (ids already checked).  With `steps`, false once they run out. */
static bool write_pair_answers(const sc_graph *gr, sc_jval pairs, uint64_t *steps, sc_buf *out)
{
    /* The pairs were checked when the request arrived: every one is an
     * array of two integer tokens, so they are read in steps of three. */
    const sc_jdoc *doc = pairs.doc;
    uint32_t first = pairs.i + 1, end = doc->tok[pairs.i].end;
    for (uint32_t p = first; p < end; p += 3) {
        uint32_t a = 0, b = 0;
        bool yes = false;
        pair_at(doc, p, &a, &b);
        if (!reach_one(gr, a, b, steps, &yes))
            return false;
        sc_buf_puts(out, yes ? "true," : "false,");
    }
    if (first < end)
        out->len--; /* the last comma */
    return true;
}

static void write_reach_result(sc_buf *out, const char *answers, size_t len)
{
    bool first_m;
    sc_json_obj_begin(out, &first_m);
    sc_json_key(out, &first_m, "reachable");
    sc_buf_putc(out, '[');
    sc_buf_append(out, answers, len);
    sc_buf_putc(out, ']');
    sc_json_obj_end(out);
}

/* On the loop: the reply, an error, or H_ASYNC when the request is too
 * much work for the loop and must be answered by reach_work. */
static int answer_reach(sc_req *r, const sc_stored_graph *sg)
{
    sc_jval pairs = get_pairs(r);
    const sc_graph *gr = sg->graph;
    uint32_t n = sc_graph_node_count(gr);
    uint64_t steps = REACH_LOOP_STEPS;
    if (!pairs.doc) {
        uint32_t a = 0, b = 0;
        bool yes = false;
        sc_param_u32(r->params, "from", &a, &r->err);
        sc_param_u32(r->params, "to", &b, &r->err);
        if (a >= n)
            return node_missing(r, sg, a);
        if (b >= n)
            return node_missing(r, sg, b);
        if (!reach_one(gr, a, b, &steps, &yes))
            return H_ASYNC;
        sc_buf *out = sc_req_result_begin(r);
        bool first_m;
        sc_json_obj_begin(out, &first_m);
        sc_json_member_bool(out, &first_m, "reachable", yes);
        sc_json_obj_end(out);
        return sc_req_result_end(r, out);
    }
    const sc_jdoc *doc = pairs.doc;
    uint32_t first = pairs.i + 1, end = doc->tok[pairs.i].end;
    /* Validate every id first: an error reply must not follow a partial result. */
    for (uint32_t p = first; p < end; p += 3) {
        uint32_t a = 0, b = 0;
        pair_at(doc, p, &a, &b);
        if (a >= n)
            return node_missing(r, sg, a);
        if (b >= n)
            return node_missing(r, sg, b);
    }
    uint64_t count = sc_jval_count(pairs);
    if (count > steps / REACH_PAIR_STEPS)
        return H_ASYNC;
    steps -= count * REACH_PAIR_STEPS;
    /* Answers go to a scratch buffer first, since the budget may run out
     * half way and a reply cannot be taken back. */
    sc_buf text = SC_BUF_INIT;
    sc_buf_reserve(&text, (size_t)count * 6);
    if (!write_pair_answers(gr, pairs, &steps, &text)) {
        sc_buf_free(&text);
        return H_ASYNC;
    }
    if (sc_buf_failed(&text)) {
        sc_buf_free(&text);
        return sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    }
    sc_buf *out = sc_req_result_begin(r);
    sc_buf_reserve(out, text.len + 32);
    write_reach_result(out, text.data, text.len);
    sc_buf_free(&text);
    return sc_req_result_end(r, out);
}

/* On the thread pool, without a cap: the whole result into g->text. */
static void reach_work(uv_work_t *w)
{
    graph_ctx *g = w->data;
    const sc_graph *gr = sc_cache_graph(g->entry)->graph;
    sc_jval pairs = get_pairs(&g->req);
    if (!pairs.doc) {
        uint32_t a = 0, b = 0;
        bool yes = false;
        sc_rpc_error err = {0};
        sc_param_u32(g->req.params, "from", &a, &err);
        sc_param_u32(g->req.params, "to", &b, &err);
        reach_one(gr, a, b, NULL, &yes);
        bool first_m;
        sc_json_obj_begin(&g->text, &first_m);
        sc_json_member_bool(&g->text, &first_m, "reachable", yes);
        sc_json_obj_end(&g->text);
        return;
    }
    sc_buf answers = SC_BUF_INIT;
    sc_buf_reserve(&answers, (size_t)sc_jval_count(pairs) * 6);
    write_pair_answers(gr, pairs, NULL, &answers);
    if (sc_buf_failed(&answers))
        g->text.oom = true;
    else
        write_reach_result(&g->text, answers.data, answers.len);
    sc_buf_free(&answers);
}

/* After a cold load, or after answer_reach gave up on a cache hit
 * (g->off_loop): the reply goes through the async writers. */
static void reach_ready(graph_ctx *g)
{
    sc_req *r = &g->req;
    const sc_stored_graph *sg = sc_cache_graph(g->entry);
    /* Write into the same place a synchronous reply would have gone. */
    int rc = g->off_loop ? H_ASYNC : answer_reach(r, sg);
    if (rc == H_ASYNC) {
        queue_render(g, reach_work);
        return;
    }
    if (rc == H_ERROR)
        sc_async_error(&g->a, &r->err);
    sc_async_done(&g->a);
    graph_ctx_free(g);
}

int sc_h_graph_reachable(sc_req *r)
{
    return with_graph(r, false, check_reach_params, reach_ready, answer_reach);
}

/* ------------------------------------------------------- graph.get / export */

static void write_dim3(sc_buf *b, bool *first, const char *key, uint32_t x, uint32_t y, uint32_t z)
{
    sc_json_key(b, first, key);
    sc_buf_printf(b, "[%u,%u,%u]", (unsigned)x, (unsigned)y, (unsigned)z);
}

/* A node of a cuda-mode graph: every kind, and kernels with their 3-D shape. */
static void write_cuda_node(sc_buf *b, uint32_t id, const sc_node *n)
{
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_member_u64(b, &first, "id", id);
    sc_json_member_cstr(b, &first, "kind", sc_cuda_kind_name((int)n->kind));
    sc_json_member_u64(b, &first, "stream", n->stream);
    sc_json_member_str(b, &first, "name", n->name, n->name_len);
    switch ((int)n->kind) {
    case SC_KIND_KERNEL:
        sc_json_member_str(b, &first, "function_name", n->name, n->name_len);
        sc_json_member_u64(b, &first, "num_blocks", n->num_blocks);
        sc_json_member_u64(b, &first, "threads_per_block", n->threads_per_block);
        sc_json_member_u64(b, &first, "shared_mem", n->shared_mem);
        write_dim3(b, &first, "grid", n->num_blocks, n->grid_y, n->grid_z);
        write_dim3(b, &first, "block", n->threads_per_block, n->block_y, n->block_z);
        break;
    case SC_KIND_MEMCPY:
        sc_json_member_cstr(b, &first, "dir", sc_cuda_dir_name((int)n->dir));
        sc_json_member_u64(b, &first, "size_bytes", n->size_bytes);
        if (n->dir == SC_DIR_PEER_TO_PEER) {
            sc_json_member_u64(b, &first, "src_device", n->src_device);
            sc_json_member_u64(b, &first, "dst_device", n->dst_device);
        }
        break;
    case SC_KIND_MEMSET:
        sc_json_member_u64(b, &first, "size_bytes", n->size_bytes);
        sc_json_member_u64(b, &first, "value", n->value);
        break;
    case SC_KIND_HOST_CALLBACK:
        sc_json_member_str(b, &first, "label", n->name, n->name_len);
        break;
    case SC_KIND_MEM_ALLOC:
        sc_json_member_u64(b, &first, "size_bytes", n->size_bytes);
        break;
    case SC_KIND_EVENT_RECORD:
    case SC_KIND_EVENT_WAIT:
        sc_json_member_u64(b, &first, "event", n->event);
        break;
    default: /* mem_free, empty: the name says it all */
        break;
    }
    sc_json_obj_end(b);
}

static void write_node(sc_buf *b, uint32_t id, const sc_node *n)
{
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_member_u64(b, &first, "id", id);
    sc_json_member_cstr(b, &first, "kind", sc_node_kind_name(n->kind));
    sc_json_member_u64(b, &first, "stream", n->stream);
    sc_json_member_str(b, &first, "name", n->name, n->name_len);
    switch (n->kind) {
    case SC_KIND_KERNEL:
        sc_json_member_str(b, &first, "function_name", n->name, n->name_len);
        sc_json_member_u64(b, &first, "num_blocks", n->num_blocks);
        sc_json_member_u64(b, &first, "threads_per_block", n->threads_per_block);
        sc_json_member_u64(b, &first, "shared_mem", n->shared_mem);
        break;
    case SC_KIND_MEMCPY:
        sc_json_member_cstr(b, &first, "dir", sc_memcpy_dir_name(n->dir));
        sc_json_member_u64(b, &first, "size_bytes", n->size_bytes);
        if (n->dir == SC_DIR_PEER_TO_PEER) {
            sc_json_member_u64(b, &first, "src_device", n->src_device);
            sc_json_member_u64(b, &first, "dst_device", n->dst_device);
        }
        break;
    case SC_KIND_MEMSET:
        sc_json_member_u64(b, &first, "size_bytes", n->size_bytes);
        sc_json_member_u64(b, &first, "value", n->value);
        break;
    case SC_KIND_HOST_CALLBACK:
        sc_json_member_str(b, &first, "label", n->name, n->name_len);
        break;
    }
    sc_json_obj_end(b);
}

/* The members graph.get and graph.list share, into an object being written. */
static void write_meta_fields(sc_buf *b, bool *first, const sc_graph_meta *m)
{
    sc_json_member_i64(b, first, "graph", m->graph);
    sc_json_member_str(b, first, "label", m->label ? m->label : "", m->label_len);
    sc_json_member_time_ms(b, first, "created_at", m->created_ms);
    sc_json_member_u64(b, first, "owner_uid", m->owner_uid);
    sc_json_member_i64(b, first, "owner_pid", m->owner_pid);
    sc_json_member_cstr(b, first, "host", m->host ? m->host : "");
    /* Default-mode graphs read exactly as before the cuda mode existed. */
    if (m->cuda) {
        sc_json_member_cstr(b, first, "semantics", "cuda");
        /* A graph.submit graph was built by hand, in no capture. */
        if (m->capture)
            sc_json_member_u64(b, first, "capture", m->capture);
    }
}

/* ------------------------------------------------------- renders */

/*
 * A graph.get or graph.export result can be tens of megabytes.  It is
 * measured first (rendered through a 64 KiB window whose bytes are only
 * counted), then its bytes are reserved against --max-conn-output and
 * --reply-budget on the loop, and only then rendered, into a buffer of
 * exactly its size that becomes the connection's output.  So a result the
 * bounds refuse never exists, one they admit exists once, and at most
 * RENDERS_MAX renders run at a time (each holding at most its reservation
 * and a window); the others wait in line holding only their context.
 */
#define RENDER_WINDOW (64u << 10)
#define RENDERS_MAX   2

/* Where a body is written: whole into `b`, or when measuring through `b`
 * as a window whose bytes are counted into `total` and dropped. */
typedef struct body_out {
    sc_buf *b;
    bool measure;
    size_t total;
    sc_buf dot; /* graph.export: the DOT text's own window */
} body_out;

static void body_flush(body_out *o, bool last)
{
    if (!o->measure || sc_buf_failed(o->b) || (!last && o->b->len < RENDER_WINDOW))
        return;
    o->total += o->b->len;
    sc_buf_reset(o->b);
}

static void body_get(graph_ctx *g, body_out *o)
{
    const sc_stored_graph *sg = sc_cache_graph(g->entry);
    const sc_graph *gr = sg->graph;
    sc_buf *b = o->b;
    bool first;
    sc_json_obj_begin(b, &first);
    write_meta_fields(b, &first, &sg->meta);
    sc_json_key(b, &first, "nodes");
    sc_buf_putc(b, '[');
    uint32_t n = sc_graph_node_count(gr);
    for (uint32_t i = 0; i < n; i++) {
        sc_node node;
        if (i)
            sc_buf_putc(b, ',');
        if (sc_graph_node(gr, i, &node) != 0)
            continue;
        if (sg->meta.cuda)
            write_cuda_node(b, i, &node);
        else
            write_node(b, i, &node);
        body_flush(o, false);
    }
    sc_buf_putc(b, ']');
    sc_json_key(b, &first, "edges");
    sc_buf_putc(b, '[');
    uint64_t ne = sc_graph_edge_count(gr);
    for (uint64_t i = 0; i < ne; i++) {
        uint32_t src, dst;
        sc_graph_edge(gr, i, &src, &dst);
        sc_buf_printf(b, i ? ",[%u,%u]" : "[%u,%u]", (unsigned)src, (unsigned)dst);
        body_flush(o, false);
    }
    sc_buf_putc(b, ']');
    sc_json_obj_end(b);
    body_flush(o, true);
}

/* A piece of DOT text, escaped into the JSON string being written: the
 * escapes of sc_json_string work byte by byte, so pieces escape alike. */
static void dot_piece(void *ctx, sc_buf *dot)
{
    body_out *o = ctx;
    sc_buf *b = o->b;
    size_t at = b->len;
    sc_json_string(b, dot->data, dot->len);
    if (!sc_buf_failed(b)) {
        /* Keep the escaped bytes, not the quotes around them. */
        memmove(b->data + at, b->data + at + 1, b->len - at - 2);
        b->len -= 2;
    }
    sc_buf_reset(dot);
    body_flush(o, false);
}

static void body_export(graph_ctx *g, body_out *o)
{
    const sc_stored_graph *sg = sc_cache_graph(g->entry);
    sc_buf *b = o->b;
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_member_cstr(b, &first, "format", "dot");
    sc_json_key(b, &first, "text");
    sc_buf_putc(b, '"');
    if (sc_dot_render_chunks(sg->graph, sg->meta.graph, &o->dot, RENDER_WINDOW, dot_piece, o) != 0)
        b->oom = true;
    sc_buf_putc(b, '"');
    sc_json_obj_end(b);
    body_flush(o, true);
}

/* On the thread pool: the body's exact size, nothing kept. */
static void measure_work(uv_work_t *w)
{
    graph_ctx *g = w->data;
    sc_buf window = SC_BUF_INIT;
    body_out o = {.b = &window, .measure = true};
    sc_buf_reserve(&window, 2 * RENDER_WINDOW);
    g->body(g, &o);
    g->body_len = o.total;
    if (sc_buf_failed(&window) || sc_buf_failed(&o.dot))
        g->text.oom = true;
    sc_buf_free(&window);
    sc_buf_free(&o.dot);
}

/* On the thread pool: the body after the head already in g->text. */
static void render_work(uv_work_t *w)
{
    graph_ctx *g = w->data;
    body_out o = {.b = &g->text};
    g->body(g, &o);
    if (sc_buf_failed(&o.dot))
        g->text.oom = true;
    sc_buf_free(&o.dot);
}

static void render_start(graph_ctx *g);

/* A render is over (answered or refused): its slot goes to the next in line. */
static void render_finish(graph_ctx *g)
{
    sc_daemon *d = g->a.d;
    if (g->reserved)
        sc_async_unreserve(&g->a, g->reserved);
    g->reserved = 0;
    sc_async_done(&g->a);
    graph_ctx_free(g);
    d->renders--;
    while (d->render_head && d->renders < RENDERS_MAX) {
        graph_ctx *next = d->render_head;
        d->render_head = next->next_wait;
        if (!d->render_head)
            d->render_tail = NULL;
        render_start(next);
    }
}

static void render_fail(graph_ctx *g, const char *what)
{
    sc_rpc_error err = {0};
    sc_rpc_fail(&err, SC_RPC_INTERNAL_ERROR, "%s graph %" PRId64, what, g->id);
    sc_async_error(&g->a, &err);
    render_finish(g);
}

static void rendered(uv_work_t *w, int status)
{
    graph_ctx *g = w->data;
    if (status < 0 || sc_buf_failed(&g->text)) {
        render_fail(g, "out of memory rendering");
        return;
    }
    /* Measured and rendered by the same writers: exactly the size reserved. */
    assert(g->text.len == g->head_len + g->body_len);
    /* The bytes are there now: they count as output, not as a reservation. */
    sc_async_unreserve(&g->a, g->reserved);
    g->reserved = 0;
    sc_async_result_take(&g->a, &g->text, g->head_len);
    render_finish(g);
}

/* Back on the loop with the size: reserve it, or refuse before rendering. */
static void measured(uv_work_t *w, int status)
{
    graph_ctx *g = w->data;
    if (status < 0 || sc_buf_failed(&g->text)) {
        render_fail(g, "out of memory measuring");
        return;
    }
    sc_rpc_error err = {0};
    size_t head = sc_async_result_head(&g->a, &g->text);
    size_t total = head + g->body_len + 2; /* the result's '}' and the '\n' */
    if (g->a.c->closing) {
        render_finish(g); /* nobody is left to read it */
        return;
    }
    if (sc_async_reserve(&g->a, total, &err) != 0) {
        sc_buf_free(&g->text);
        sc_async_error(&g->a, &err);
        render_finish(g);
        return;
    }
    g->reserved = total;
    g->head_len = head;
    if (sc_buf_reserve(&g->text, total - head) != 0) {
        render_fail(g, "out of memory rendering");
        return;
    }
    if (uv_queue_work(g->a.d->loop, &g->work, render_work, rendered) != 0)
        render_fail(g, "cannot schedule rendering");
}

static void render_start(graph_ctx *g)
{
    sc_daemon *d = g->a.d;
    d->renders++;
    g->work.data = g;
    /* Nobody reads a notification's result, nor one whose client left. */
    if (g->a.notification || g->a.c->closing) {
        render_finish(g);
        return;
    }
    if (uv_queue_work(d->loop, &g->work, measure_work, measured) != 0)
        render_fail(g, "cannot schedule rendering");
}

/* Run now if a slot is free, else wait in line. */
static void render_queue(graph_ctx *g, void (*body)(graph_ctx *, body_out *))
{
    sc_daemon *d = g->a.d;
    g->body = body;
    if (d->renders < RENDERS_MAX) {
        render_start(g);
        return;
    }
    g->next_wait = NULL;
    if (d->render_tail)
        d->render_tail->next_wait = g;
    else
        d->render_head = g;
    d->render_tail = g;
}

/* ------------------------------------------------------- graph.reachable's work */

static void reach_done(uv_work_t *w, int status)
{
    graph_ctx *g = w->data;
    if (status < 0 || sc_buf_failed(&g->text)) {
        sc_rpc_error err = {0};
        sc_rpc_fail(&err, SC_RPC_INTERNAL_ERROR, "out of memory answering graph %" PRId64, g->id);
        sc_async_error(&g->a, &err);
    } else {
        sc_buf *b = sc_async_result_begin(&g->a);
        sc_buf_append(b, g->text.data, g->text.len);
        sc_async_result_end(&g->a, b);
    }
    sc_async_done(&g->a);
    graph_ctx_free(g);
}

static void queue_render(graph_ctx *g, uv_work_cb render)
{
    g->work.data = g;
    if (uv_queue_work(g->a.d->loop, &g->work, render, reach_done) == 0)
        return;
    sc_rpc_error err = {0};
    sc_rpc_fail(&err, SC_RPC_INTERNAL_ERROR, "cannot schedule rendering");
    sc_async_error(&g->a, &err);
    sc_async_done(&g->a);
    graph_ctx_free(g);
}

static void get_ready(graph_ctx *g)
{
    render_queue(g, body_get);
}

static void export_ready(graph_ctx *g)
{
    render_queue(g, body_export);
}

int sc_h_graph_get(sc_req *r)
{
    return with_graph(r, true, NULL, get_ready, NULL);
}

static int check_export_params(sc_req *r)
{
    const char *format;
    size_t len;
    if (sc_param_string(r->params, "format", &format, &len, &r->err) != 0)
        return -1;
    if (len != 3 || memcmp(format, "dot", 3) != 0) {
        sc_req_fail(r, SC_RPC_INVALID_PARAMS, "invalid params: 'format' must be \"dot\"");
        r->err.field = "format";
        return -1;
    }
    return 0;
}

int sc_h_graph_export(sc_req *r)
{
    return with_graph(r, true, check_export_params, export_ready, NULL);
}

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
    if (rc == SC_STORE_ENOTFOUND) {
        sc_rpc_fail(&err, SC_RPC_NOT_FOUND, "graph %" PRId64 " not found", x->id);
        err.what = "graph";
    } else if (rc != 0) {
        sc_log_store_error(x->a.d, rc, errmsg, (uint32_t)x->a.c->uid, x->a.c->pid,
                           "reading graph %" PRId64 " to delete it", x->id);
        sc_store_rpc_error(&err, rc, errmsg);
    } else if (!may_access_meta(x->a.c, x->a.d, meta)) {
        sc_rpc_fail(&err, SC_RPC_PERMISSION_DENIED, "graph %" PRId64 " belongs to another user",
                    x->id);
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

/* ------------------------------------------------------- graph.list */

/* The reply to a list that cannot match a row: `key` is an empty array. */
static int empty_page(sc_req *r, const char *key)
{
    sc_buf *b = sc_req_result_begin(r);
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_key(b, &first, key);
    sc_buf_puts(b, "[]");
    sc_json_obj_end(b);
    return sc_req_result_end(r, b);
}

typedef struct list_ctx {
    sc_async a;
    char *label; /* the store reads the query on a worker thread */
    char *host;
} list_ctx;

static void graphs_listed(void *arg, int rc, sc_graph_page *page, const char *errmsg)
{
    list_ctx *l = arg;
    if (rc != 0) {
        sc_log_store_error(l->a.d, rc, errmsg, (uint32_t)l->a.c->uid, l->a.c->pid,
                           "listing graphs");
        sc_rpc_error err = {0};
        sc_store_rpc_error(&err, rc, errmsg);
        sc_async_error(&l->a, &err);
    } else {
        sc_buf *b = sc_async_result_begin(&l->a);
        bool first, first_g;
        sc_json_obj_begin(b, &first);
        sc_json_key(b, &first, "graphs");
        sc_buf_putc(b, '[');
        for (size_t i = 0; i < page->count; i++) {
            const sc_graph_meta *m = &page->graphs[i];
            if (i)
                sc_buf_putc(b, ',');
            sc_json_obj_begin(b, &first_g);
            write_meta_fields(b, &first_g, m);
            sc_json_member_u64(b, &first_g, "node_count", m->node_count);
            sc_json_member_u64(b, &first_g, "edge_count", m->edge_count);
            sc_json_member_u64(b, &first_g, "stream_count", m->stream_count);
            sc_json_obj_end(b);
        }
        sc_buf_putc(b, ']');
        if (page->has_more) {
            sc_json_key(b, &first, "next");
            write_graph_cursor(b, page->next_before);
        }
        sc_json_obj_end(b);
        sc_async_result_end(&l->a, b);
    }
    sc_graph_page_free(page);
    sc_async_done(&l->a);
    free(l->label);
    free(l->host);
    free(l);
}

int sc_h_graph_list(sc_req *r)
{
    sc_graph_query q = {0};
    const char *before = NULL, *label = NULL, *host = NULL;
    size_t before_len = 0, label_len = 0, host_len = 0;
    if (get_limit(r, &q.limit) != 0 ||
        sc_param_opt_string(r->params, "before", &before, &before_len, &r->err) != 0 ||
        sc_param_opt_string(r->params, "label", &label, &label_len, &r->err) != 0 ||
        sc_param_opt_string(r->params, "host", &host, &host_len, &r->err) != 0)
        return H_ERROR;
    if (!own_host_filter(r, &host, &host_len))
        return empty_page(r, "graphs");
    if (before) {
        const char *end;
        if (before[0] != 'g' || !parse_i64(before + 1, &end, &q.before_graph) || *end ||
            q.before_graph <= 0) {
            bad_cursor(r, "graph.list");
            return H_ERROR;
        }
    }
    list_ctx *l = calloc(1, sizeof(*l));
    if (!l)
        return sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    if (sc_req_copy_string(r, label, label_len, &l->label) != 0 ||
        sc_req_copy_string(r, host, host_len, &l->host) != 0) {
        free(l->label);
        free(l);
        return H_ERROR;
    }
    q.label = l->label;
    q.label_len = label_len;
    q.host = l->host;
    q.host_len = host_len;
    q.any_owner = sc_may_access_all(r->c);
    q.uid = (uint32_t)r->c->uid;
    if (sc_store_list_graphs(r->d->store, &q, graphs_listed, l) != 0) {
        free(l->label);
        free(l->host);
        free(l);
        return sc_req_store_unavailable(r);
    }
    sc_async_start(&l->a, r);
    return H_ASYNC;
}

/* ------------------------------------------------------- log.list */

static const char *const outcomes[] = {"open",      "completed", "failed", "closed",
                                       "abandoned", "shutdown",  "lost"};

/* One ended capture of a cuda-mode session's log entry (spec §6). */
static void write_log_capture(sc_buf *b, const sc_log_capture *c)
{
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_member_u64(b, &first, "capture", c->capture);
    sc_json_member_u64(b, &first, "origin", c->origin);
    sc_json_member_cstr(b, &first, "mode", c->mode);
    sc_json_member_u64(b, &first, "thread", c->thread);
    sc_json_member_cstr(b, &first, "outcome", c->outcome);
    if (c->cuda_error) {
        sc_json_member_i64(b, &first, "cuda_error", c->cuda_error);
        const char *name = sc_cuda_error_name(sc_cuda_error_from_number(c->cuda_error));
        if (name)
            sc_json_member_cstr(b, &first, "cuda_name", name);
    }
    sc_json_member_u64(b, &first, "node_count", c->node_count);
    sc_json_member_time_ms(b, &first, "ended_at", c->ended_ms);
    if (c->graph > 0) {
        sc_json_member_i64(b, &first, "graph", c->graph);
        if (c->graph_deleted)
            sc_json_member_time_ms(b, &first, "graph_deleted_at", c->graph_deleted_ms);
    }
    if (c->invalidated) {
        bool f;
        sc_json_key(b, &first, "invalidated_by");
        sc_json_obj_begin(b, &f);
        sc_json_member_cstr(b, &f, "method", c->inv_method);
        sc_json_member_u64(b, &f, "stream", c->inv_stream);
        if (c->inv_has_event)
            sc_json_member_u64(b, &f, "event", c->inv_event);
        sc_json_member_u64(b, &f, "thread", c->inv_thread);
        if (c->inv_call)
            sc_json_member_cstr(b, &f, "call", c->inv_call);
        sc_json_member_i64(b, &f, "cuda_error", c->inv_error);
        const char *name = sc_cuda_error_name(sc_cuda_error_from_number(c->inv_error));
        const char *text = sc_cuda_error_string(sc_cuda_error_from_number(c->inv_error));
        if (name)
            sc_json_member_cstr(b, &f, "cuda_name", name);
        if (text)
            sc_json_member_cstr(b, &f, "message", text);
        sc_json_obj_end(b);
    }
    sc_json_obj_end(b);
}

static void write_log_entry(sc_buf *b, bool *first, const sc_log_entry *e)
{
    sc_json_member_i64(b, first, "session", e->session);
    sc_json_member_str(b, first, "label", e->label ? e->label : "", e->label_len);
    sc_json_member_u64(b, first, "owner_uid", e->owner_uid);
    sc_json_member_i64(b, first, "owner_pid", e->owner_pid);
    sc_json_member_cstr(b, first, "host", e->host ? e->host : "");
    sc_json_member_time_ms(b, first, "opened_at", e->opened_ms);
    sc_json_key(b, first, "ended_at");
    if (e->has_ended)
        sc_json_time_ms(b, e->ended_ms);
    else
        sc_buf_puts(b, "null");
    sc_json_member_cstr(b, first, "outcome", e->outcome);
    sc_json_member_u64(b, first, "node_count", e->node_count);
    if (e->graph > 0) {
        sc_json_member_i64(b, first, "graph", e->graph);
        if (e->graph_deleted)
            sc_json_member_time_ms(b, first, "graph_deleted_at", e->graph_deleted_ms);
    }
    /* Default-mode entries read exactly as before the cuda mode existed. */
    if (!e->cuda)
        return;
    sc_json_member_cstr(b, first, "semantics", "cuda");
    sc_json_key(b, first, "captures");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < e->ncaptures; i++) {
        if (i)
            sc_buf_putc(b, ',');
        write_log_capture(b, &e->captures[i]);
    }
    sc_buf_putc(b, ']');
}

static void log_listed(void *arg, int rc, sc_log_page *page, const char *errmsg)
{
    sc_async *a = arg;
    if (rc != 0) {
        sc_log_store_error(a->d, rc, errmsg, (uint32_t)a->c->uid, a->c->pid,
                           "listing the capture log");
        sc_rpc_error err = {0};
        sc_store_rpc_error(&err, rc, errmsg);
        sc_async_error(a, &err);
    } else {
        sc_buf *b = sc_async_result_begin(a);
        bool first, first_e;
        sc_json_obj_begin(b, &first);
        sc_json_key(b, &first, "entries");
        sc_buf_putc(b, '[');
        for (size_t i = 0; i < page->count; i++) {
            if (i)
                sc_buf_putc(b, ',');
            sc_json_obj_begin(b, &first_e);
            write_log_entry(b, &first_e, &page->entries[i]);
            sc_json_obj_end(b);
        }
        sc_buf_putc(b, ']');
        if (page->has_more) {
            sc_json_key(b, &first, "next");
            write_log_cursor(b, page->next_opened_ms, page->next_session);
        }
        sc_json_obj_end(b);
        sc_async_result_end(a, b);
    }
    sc_log_page_free(page);
    sc_async_done(a);
    free(a);
}

static int parse_log_cursor(sc_req *r, const char *s, sc_log_query *q)
{
    const char *p;
    if (s[0] != 'l' || !parse_i64(s + 1, &p, &q->before_opened_ms) || *p != '.' ||
        !parse_i64(p + 1, &p, &q->before_session) || *p)
        return bad_cursor(r, "log.list");
    q->has_before = true;
    return 0;
}

int sc_h_log_list(sc_req *r)
{
    sc_log_query q = {0};
    const char *before = NULL, *outcome = NULL, *host = NULL;
    size_t before_len = 0, outcome_len = 0, host_len = 0;
    if (get_limit(r, &q.limit) != 0 ||
        sc_param_opt_string(r->params, "before", &before, &before_len, &r->err) != 0 ||
        sc_param_opt_string(r->params, "outcome", &outcome, &outcome_len, &r->err) != 0 ||
        sc_param_opt_string(r->params, "host", &host, &host_len, &r->err) != 0)
        return H_ERROR;
    if (!own_host_filter(r, &host, &host_len))
        return empty_page(r, "entries");
    /* The store copies the host at the call. */
    q.host = host;
    q.host_len = host_len;
    if (before && parse_log_cursor(r, before, &q) != 0)
        return H_ERROR;
    if (outcome) {
        for (size_t i = 0; i < sizeof(outcomes) / sizeof(outcomes[0]); i++)
            if (strlen(outcomes[i]) == outcome_len && !memcmp(outcomes[i], outcome, outcome_len))
                q.outcome = outcomes[i];
        if (!q.outcome) {
            sc_req_fail(r, SC_RPC_INVALID_PARAMS,
                        "invalid params: 'outcome' must be one of open, completed, failed, "
                        "closed, abandoned, shutdown, lost");
            r->err.field = "outcome";
            return H_ERROR;
        }
    }
    q.any_owner = sc_may_access_all(r->c);
    q.uid = (uint32_t)r->c->uid;
    sc_async *a = calloc(1, sizeof(*a));
    if (!a)
        return sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    if (sc_store_list_log(r->d->store, &q, log_listed, a) != 0) {
        free(a);
        return sc_req_store_unavailable(r);
    }
    sc_async_start(a, r);
    return H_ASYNC;
}

/* ------------------------------------------------------- server.* */

/* Bytes on disk: the database file and its write-ahead log, whose pages
 * are part of the database until a checkpoint moves them.  Two stat()
 * calls, cheap enough for a status request. */
static uint64_t db_bytes(const char *path)
{
    struct stat st;
    uint64_t n = 0;
    char wal[4096];
    if (stat(path, &st) == 0)
        n += (uint64_t)st.st_size;
    if ((size_t)snprintf(wal, sizeof(wal), "%s-wal", path) < sizeof(wal) && stat(wal, &st) == 0)
        n += (uint64_t)st.st_size;
    return n;
}

/* What server.info counts: everything for root, else only what the
 * caller's uid owns, so that one user learns nothing of another's work. */
typedef struct info_counts {
    uint64_t connections, sessions;
    int64_t graphs;
} info_counts;

/* The per-uid counts the quotas keep, and the store's per-owner graph count:
 * lookups, no walk. */
static void count_own(sc_daemon *d, uint32_t uid, info_counts *n)
{
    const sc_uid_use *u = sc_uids_find(&d->uids, uid);
    if (u) {
        n->connections = u->conns;
        n->sessions = u->sessions;
    }
    if (d->store)
        sc_store_graph_count_of(d->store, uid, &n->graphs);
}

int sc_h_server_info(sc_req *r)
{
    sc_daemon *d = r->d;
    bool all = sc_may_access_all(r->c);
    info_counts n = {0};
    if (all) {
        n.connections = d->nconns;
        n.sessions = d->sessions.count;
        if (d->store)
            sc_store_graph_count(d->store, &n.graphs);
    } else {
        count_own(d, (uint32_t)r->c->uid, &n);
    }
    sc_cache_stat cs = {0};
    if (d->cache)
        sc_cache_stats(d->cache, &cs);
    sc_buf *b = sc_req_result_begin(r);
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_member_cstr(b, &first, "version", SC_VERSION);
    sc_json_member_u64(b, &first, "uptime_s", (uv_hrtime() - d->start_hr) / 1000000000u);
    sc_json_member_u64(b, &first, "connections", n.connections);
    sc_json_member_u64(b, &first, "sessions", n.sessions);
    sc_json_member_i64(b, &first, "graphs", n.graphs);
    /* Where the database lives is the administrator's business. */
    if (all) {
        /* Not even root is shown a connection string's password. */
        char shown[SC_PATH_MAX + 64];
        sc_json_member_cstr(b, &first, "db_path",
                            sc_redact_db(d->cfg.db_path, shown, sizeof shown));
    }
    sc_json_member_u64(b, &first, "db_bytes", db_bytes(d->cfg.db_path));
    sc_json_member_i64(b, &first, "pid", (int64_t)getpid());
    sc_json_member_cstr(b, &first, "sync", d->cfg.sync_full ? "full" : "normal");
    sc_json_member_cstr(b, &first, "backend", d->store ? sc_store_backend_name(d->store) : "");
    sc_json_member_cstr(b, &first, "host", d->host_name);
    sc_json_member_u64(b, &first, "cache_max_bytes", cs.max_bytes);
    sc_json_member_u64(b, &first, "cache_bytes", cs.bytes);
    sc_json_member_u64(b, &first, "cache_entries", cs.entries);
    sc_json_member_u64(b, &first, "cache_hits", cs.hits);
    sc_json_member_u64(b, &first, "cache_misses", cs.misses);
    sc_json_obj_end(b);
    return sc_req_result_end(r, b);
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
        if (sc_graph_add_node(g, &n, NULL) != 0)
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
