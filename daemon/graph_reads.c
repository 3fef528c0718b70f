/*
 * graph_reads.c - stored graphs read through the cache: graph.reachable,
 * graph.get, graph.export, graph.stats and graph.races.
 *
 * Graph contents come from the cache (loaded and indexed off the loop on a
 * miss); large replies (graph.get, graph.export) are rendered on the thread
 * pool while the cache entry is pinned: first measured, then reserved
 * against the reply bounds, then rendered, a few at a time (see "renders"
 * below).
 */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_access_node.h"
#include "sc_cond_node.h"
#include "sc_dot.h"
#include "sc_handlers.h"
#include "sc_kargs_node.h"

/* ------------------------------------------------------- cached graphs */

/* A request that needs a graph from the cache. */
typedef struct graph_ctx graph_ctx;
struct body_out;
typedef void (*graph_fn)(graph_ctx *g);
/* A request's own parameters, checked once access is granted: 0 or -1 with r->err set. */
typedef int (*graph_check_fn)(sc_req *r);
/* A result computed from the graph off the loop (graph.stats, graph.races). */
typedef int (*graph_compute_fn)(const sc_graph *gr, sc_jval params, sc_buf *out);

struct graph_ctx {
    sc_async a;
    sc_req req; /* a copy for synchronous-style replies after the load */
    int64_t id;
    sc_cache_entry *entry;
    graph_check_fn check; /* may be NULL */
    graph_fn on_ready;    /* runs with the entry pinned, access and params checked */
    bool off_loop;        /* on_hit answered H_ASYNC: the work must leave the loop */
    bool full;            /* the kind of entry to load once the owner is checked */
    uv_work_t work;
    sc_buf text;
    const char *format;
    /* graph.get / graph.export: the body's writer, its measured size, the
     * bytes reserved for the reply and the head's length in `text`. */
    void (*body)(graph_ctx *g, struct body_out *o);
    size_t body_len, reserved, head_len;
    graph_ctx *next_wait; /* in the daemon's queue of renders or reach jobs */
    /* graph.reachable off the loop: the token of the next pair to answer
     * (0 before the first slice) and the answers so far. */
    uint32_t reach_next;
    sc_buf answers;
    sc_graph_page *bodies;    /* graph.get: the bodies of its nodes, if any */
    graph_compute_fn compute; /* graph.stats, graph.races */
};

static void graph_ctx_free(graph_ctx *g)
{
    sc_cache_release(g->a.d->cache, g->entry);
    sc_buf_free(&g->text);
    sc_buf_free(&g->answers);
    sc_graph_page_free(g->bodies);
    free(g);
}

/* A graph the caller may not see answers as a missing one does, so that
 * ids cannot be probed. */
static int check_access(sc_req *r, const sc_stored_graph *sg)
{
    if (sc_may_access_meta(r->c, r->d, &sg->meta))
        return 0;
    sc_req_not_found(r, "graph", (uint64_t)sg->meta.graph);
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

/* The graph's metadata, read before its load: only a graph the caller may
 * see is loaded, so another uid's request costs no load and no cache room. */
static void graph_meta_loaded(void *arg, int rc, sc_graph_meta *meta, const char *errmsg)
{
    graph_ctx *g = arg;
    bool visible = rc == 0 && sc_may_access_meta(g->a.c, g->a.d, meta);
    sc_graph_meta_free(meta);
    if (rc == SC_STORE_ENOTFOUND || (rc == 0 && !visible)) {
        sc_req_not_found(&g->req, "graph", (uint64_t)g->id);
    } else if (rc != 0) {
        sc_log_store_error(g->a.d, rc, errmsg, (uint32_t)g->a.c->uid, g->a.c->pid,
                           "reading graph %" PRId64, g->id);
        sc_store_rpc_error(&g->req.err, rc, errmsg);
    } else {
        sc_cache_entry *hit = NULL;
        rc = sc_cache_get(g->a.d->cache, g->id, g->full, &hit, graph_loaded, g);
        if (rc == 1)
            return;
        if (rc == 0) {
            graph_loaded(g, 0, hit, NULL);
            return;
        }
        sc_log_store_error(g->a.d, rc, NULL, (uint32_t)g->a.c->uid, g->a.c->pid,
                           "loading graph %" PRId64, g->id);
        sc_store_rpc_error(&g->req.err, rc, NULL);
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
 * A graph not in memory is looked up by its metadata first and loaded
 * only when the caller may see it.  `check` validates the other
 * parameters only after the owner's check, so another uid's graph answers
 * exactly as a missing one (1001), whatever the request sends.
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
    sc_buf_init(&g->answers);
    g->id = (int64_t)id;
    g->req = *r;
    g->check = check;
    g->on_ready = on_ready;
    g->full = full;
    if (sc_cache_peek(r->d->cache, (int64_t)id, full, &hit) != 0) {
        if (sc_store_graph_meta(r->d->store, g->id, graph_meta_loaded, g) != 0) {
            free(g);
            return sc_req_store_unavailable(r);
        }
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
 * than REACH_LOOP_STEPS is answered on the thread pool instead.  131,072
 * pairs answered by the index take about 30 ms, so the 100,000-pair
 * batches stay on the loop.  Walks get at most REACH_LOOP_WALK_STEPS of
 * that: a step of a walk over a graph that does not fit the CPU's caches is
 * a cache miss (20-40 ns measured on 100,001 nodes), so a million of them
 * held the loop for 30 ms per request, and five clients' requests arriving
 * together held it for 150 ms.
 */
#define REACH_LOOP_STEPS      (UINT64_C(1) << 20)
#define REACH_LOOP_WALK_STEPS (UINT64_C(1) << 17)
#define REACH_PAIR_STEPS      8

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
    uint64_t steps = REACH_LOOP_WALK_STEPS;
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
    if (count > REACH_LOOP_STEPS / REACH_PAIR_STEPS)
        return H_ASYNC;
    if (REACH_LOOP_STEPS - count * REACH_PAIR_STEPS < steps)
        steps = REACH_LOOP_STEPS - count * REACH_PAIR_STEPS;
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

/*
 * Off the loop a job runs in slices of about REACH_SLICE_NS, at most
 * reach_lane_size() of them on the thread pool at a time, each job going back
 * to the end of the line after its slice.  So the pool's other threads
 * stay free for store reads, loads and renders however many long jobs
 * clients send, and long jobs take turns (a connection runs one request
 * at a time, so the turns are per connection).  A pair is never cut: a
 * slice ends after the pair that crosses its time, and a pair costs at
 * most one walk of the graph.
 */
#define REACH_SLICE_NS    (10 * UINT64_C(1000000))
#define REACH_CLOCK_STEPS (64 * REACH_PAIR_STEPS)

/* On the thread pool: the next slice of pairs into g->answers, or the
 * single from/to answer into g->text. */
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
    const sc_jdoc *doc = pairs.doc;
    uint32_t end = doc->tok[pairs.i].end;
    if (g->reach_next == 0) {
        g->reach_next = pairs.i + 1;
        sc_buf_reserve(&g->answers, (size_t)sc_jval_count(pairs) * 6);
    }
    uint64_t until = uv_hrtime() + REACH_SLICE_NS, since = 0;
    while (g->reach_next < end &&
           !atomic_load_explicit(&g->a.d->reach_cancel, memory_order_relaxed)) {
        uint32_t a = 0, b = 0;
        uint64_t steps = UINT64_MAX;
        bool yes = false;
        pair_at(doc, g->reach_next, &a, &b);
        reach_one(gr, a, b, &steps, &yes);
        sc_buf_puts(&g->answers, yes ? "true," : "false,");
        g->reach_next += 3;
        /* The clock after every REACH_CLOCK_STEPS steps (64 pairs the index
         * answers, or any walk), not after every pair: it would cost as much
         * as a pair. */
        since += REACH_PAIR_STEPS + (UINT64_MAX - steps);
        if (since >= REACH_CLOCK_STEPS) {
            since = 0;
            if (uv_hrtime() >= until)
                break;
        }
    }
}

/* Every pair answered (or the single query): the result into g->text. */
static bool reach_finished(graph_ctx *g)
{
    sc_jval pairs = get_pairs(&g->req);
    if (!pairs.doc)
        return true;
    if (g->reach_next < pairs.doc->tok[pairs.i].end)
        return false;
    if (g->answers.len > 0)
        g->answers.len--; /* the last comma */
    if (sc_buf_failed(&g->answers))
        g->text.oom = true;
    else
        write_reach_result(&g->text, g->answers.data, g->answers.len);
    return true;
}

static void reach_fail(graph_ctx *g, int code, const char *msg)
{
    sc_rpc_error err = {0};
    sc_rpc_fail(&err, code, "%s", msg);
    sc_async_error(&g->a, &err);
    sc_async_done(&g->a);
    graph_ctx_free(g);
}

static void reach_sliced(uv_work_t *w, int status);

/* Half of libuv's pool, read as libuv reads UV_THREADPOOL_SIZE (4 by
 * default, at least 1), and at least one: with the default, two slices at
 * a time and two threads for everything else. */
static unsigned reach_lane_size(void)
{
    const char *env = getenv("UV_THREADPOOL_SIZE");
    long n = env ? strtol(env, NULL, 10) : 4;
    if (n < 1)
        n = 1;
    if (n > 1024)
        n = 1024;
    return n / 2 > 0 ? (unsigned)(n / 2) : 1;
}

/* Start slices while the lane has room. */
static void reach_lane_run(sc_daemon *d)
{
    if (d->reach_lane == 0)
        d->reach_lane = reach_lane_size();
    while (d->reach_head && d->reach_running < d->reach_lane) {
        graph_ctx *g = d->reach_head;
        d->reach_head = g->next_wait;
        if (!d->reach_head)
            d->reach_tail = NULL;
        if (g->a.notification || g->a.c->closing) {
            sc_async_done(&g->a); /* nobody reads the answer */
            graph_ctx_free(g);
            continue;
        }
        g->work.data = g;
        if (uv_queue_work(d->loop, &g->work, reach_work, reach_sliced) != 0) {
            reach_fail(g, SC_RPC_INTERNAL_ERROR, "cannot schedule graph.reachable");
            continue;
        }
        d->reach_running++;
    }
}

/* A job's next slice goes to the end of the line. */
static void reach_queue(graph_ctx *g)
{
    sc_daemon *d = g->a.d;
    if (d->stopping) {
        reach_fail(g, SC_RPC_SHUTTING_DOWN, "daemon is shutting down");
        return;
    }
    g->next_wait = NULL;
    if (d->reach_tail)
        d->reach_tail->next_wait = g;
    else
        d->reach_head = g;
    d->reach_tail = g;
    reach_lane_run(d);
}

static void reach_done(graph_ctx *g);

/* Back on the loop after a slice: answer, or queue the next slice. */
static void reach_sliced(uv_work_t *w, int status)
{
    graph_ctx *g = w->data;
    sc_daemon *d = g->a.d;
    d->reach_running--;
    if (status < 0 || sc_buf_failed(&g->answers) || sc_buf_failed(&g->text)) {
        reach_fail(g, SC_RPC_INTERNAL_ERROR, "out of memory answering graph.reachable");
    } else if (reach_finished(g)) {
        reach_done(g); /* a stop too lets a finished job answer */
    } else if (d->stopping) {
        reach_fail(g, SC_RPC_SHUTTING_DOWN, "daemon is shutting down");
    } else {
        reach_queue(g); /* the lane drops it if its client has left */
    }
    reach_lane_run(d);
}

void sc_reach_stop(sc_daemon *d)
{
    atomic_store(&d->reach_cancel, true);
    while (d->reach_head) {
        graph_ctx *g = d->reach_head;
        d->reach_head = g->next_wait;
        reach_fail(g, SC_RPC_SHUTTING_DOWN, "daemon is shutting down");
    }
    d->reach_tail = NULL;
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
        reach_queue(g);
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
        sc_kargs_write(b, &first, n);
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
    sc_access_node_write(b, &first, n);
    sc_json_obj_end(b);
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
    sc_write_meta_fields(b, &first, &sg->meta);
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
            sc_write_cuda_node(b, i, &node, g->bodies);
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

/* ------------------------------------------------------- graph.reachable's reply */

static void reach_done(graph_ctx *g)
{
    if (sc_buf_failed(&g->text)) {
        reach_fail(g, SC_RPC_INTERNAL_ERROR, "out of memory answering graph.reachable");
        return;
    }
    sc_buf *b = sc_async_result_begin(&g->a);
    sc_buf_append(b, g->text.data, g->text.len);
    sc_async_result_end(&g->a, b);
    sc_async_done(&g->a);
    graph_ctx_free(g);
}

static void bodies_fetched(void *arg, int rc, sc_graph_page *page, const char *errmsg)
{
    graph_ctx *g = arg;
    if (rc != 0) {
        sc_rpc_error err = {0};
        sc_store_rpc_error(&err, rc, errmsg);
        sc_async_error(&g->a, &err);
        sc_async_done(&g->a);
        graph_ctx_free(g);
        return;
    }
    g->bodies = page;
    render_queue(g, body_get);
}

static void get_ready(graph_ctx *g)
{
    const sc_stored_graph *sg = sc_cache_graph(g->entry);
    /* Only graphs that hold bodies pay for the look-up. */
    if (sg->meta.cuda && sc_graph_has_bodies(sg->graph) &&
        sc_bodies_fetch(g->a.d, g->id, bodies_fetched, g) == 0)
        return;
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

/* graph.stats and graph.races: computed on the thread pool with the entry
 * pinned (their cost grows with the edges and the accesses), answered as
 * a single reachability query is. */
static void compute_work(uv_work_t *w)
{
    graph_ctx *g = w->data;
    if (g->compute(sc_cache_graph(g->entry)->graph, g->req.params, &g->text) != 0)
        g->text.oom = true;
}

static void computed(uv_work_t *w, int status)
{
    graph_ctx *g = w->data;
    if (status < 0 || sc_buf_failed(&g->text))
        reach_fail(g, SC_RPC_INTERNAL_ERROR, "out of memory computing the answer");
    else
        reach_done(g);
}

static void compute_start(graph_ctx *g, graph_compute_fn fn)
{
    g->work.data = g;
    g->compute = fn;
    if (uv_queue_work(g->a.d->loop, &g->work, compute_work, computed) != 0)
        reach_fail(g, SC_RPC_INTERNAL_ERROR, "cannot schedule the computation");
}

static void stats_ready(graph_ctx *g)
{
    compute_start(g, sc_graph_stats_json);
}

static void races_ready(graph_ctx *g)
{
    compute_start(g, sc_graph_races_json);
}

int sc_h_graph_stats(sc_req *r)
{
    return with_graph(r, true, NULL, stats_ready, NULL);
}

int sc_h_graph_races(sc_req *r)
{
    return with_graph(r, true, sc_races_check_params, races_ready, NULL);
}
