/*
 * dispatch.c - running a connection's lines: requests to their handlers,
 * replies back in request order.
 *
 * A connection executes one line at a time: a request or a batch.  Most
 * requests finish synchronously and their reply goes straight into the
 * connection's output.  Requests that need the store go async.
 *
 * A store write that ends a session (session.close, capture.end) on a line
 * of its own is held: the connection goes on with its next requests while
 * the commit runs, and their replies wait behind the write's in an sc_held,
 * so replies still leave in request order.  The session is already out of
 * the table, so capture and session requests may run behind the write;
 * anything that reads the store waits until the connection's held writes
 * are committed, so it observes every write sent before it.  Other async
 * requests (session.open among them) stop the connection until their reply
 * is written, placed behind any held write's.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sc_handlers.h"

/* A busy connection keeps its document's storage from line to line; one
 * that grew past this for a huge line gives it back once the line is done. */
#define SC_DOC_KEEP_BYTES (16u << 20)

typedef int (*sc_handler)(sc_req *r);

/* The invariants of sc_exec (sc_daemon.h), checked where the state moves. */
static void exec_check(const sc_conn *c)
{
    const sc_exec *x = &c->x;
    assert((x->held_head == NULL) == (x->held_tail == NULL));
    assert((x->held_head == NULL) == (x->nheld == 0));
    assert(!x->held_tail || !x->held_tail->next);
    assert(!x->quiet_wait || (x->waiting && x->held_head));
    assert(x->cur_item <= x->cur_end);
    assert(x->cur_line || (x->cur_item == 0 && x->cur_end == 0 && !x->cur_batch));
    assert(x->cur_batch || x->batch_replies == 0);
    assert(!c->closing || !c->reading);
    (void)x;
    (void)c;
}

/* ---------------------------------------------------------------- replies */

static bool in_batch(const sc_conn *c)
{
    return c->x.cur_batch;
}

/* Where a reply written now goes: behind the last held write, if any. */
static sc_buf *out_buf(sc_conn *c)
{
    return c->x.held_tail ? &c->x.held_tail->after : &c->out;
}

static sc_buf *reply_begin(sc_conn *c, bool notification)
{
    if (notification) {
        sc_buf_reset(&c->x.scratch);
        return &c->x.scratch;
    }
    if (!in_batch(c))
        return out_buf(c);
    sc_buf_putc(&c->x.batch, c->x.batch_replies++ ? ',' : '[');
    return &c->x.batch;
}

static void reply_end(sc_conn *c, bool notification)
{
    if (!notification && !in_batch(c))
        sc_buf_putc(out_buf(c), '\n');
}

static void reply_error(sc_conn *c, sc_jval id, bool notification, const sc_rpc_error *err)
{
    sc_metrics_error(&c->d->metrics, err->code);
    sc_buf *b = reply_begin(c, notification);
    sc_rpc_write_error(b, id, err);
    reply_end(c, notification);
}

/* Replies smaller than this are never refused: the bounds are about the
 * big ones, and summing every connection's output costs a walk.  A batch
 * is checked before each request once its replies reach it. */
#define SC_REPLY_CHECKED_MIN (64u << 10)

/* Reply bytes a connection holds or will hold: queued, being written,
 * behind held writes, in its batch so far, and reserved for renders. */
static size_t conn_reply_bytes(const sc_conn *c)
{
    return sc_conn_pending(c) + c->x.batch.len + c->reply_reserved;
}

/* The same over every connection, and renders whose connection is gone. */
static size_t all_reply_bytes(const sc_daemon *d)
{
    size_t n = d->reply_reserved;
    for (const sc_conn *c = d->conns; c; c = c->next)
        n += conn_reply_bytes(c) - c->reply_reserved;
    return n;
}

/*
 * A reply of `len` bytes that brings the connection to `conn_after` and the
 * daemon to `total_after` reply bytes: true (err set, logged) when that
 * is past --max-conn-output or --reply-budget.
 */
static bool over_bounds(const sc_conn *c, size_t len, size_t conn_after, size_t total_after,
                        sc_rpc_error *err)
{
    const sc_daemon *d = c->d;
    if (conn_after > d->cfg.max_conn_output) {
        sc_rpc_fail(err, SC_RPC_LIMIT,
                    "reply of %zu bytes refused: the connection would have more than %zu reply "
                    "bytes pending (--max-conn-output)",
                    len, d->cfg.max_conn_output);
    } else if (total_after > d->cfg.reply_budget) {
        sc_rpc_fail(err, SC_RPC_LIMIT,
                    "reply of %zu bytes refused for now: %zu reply bytes wait for clients to "
                    "read them, the daemon's budget is %zu (--reply-budget); retry later",
                    len, total_after - len, d->cfg.reply_budget);
    } else {
        return false;
    }
    sc_log(&d->log, SC_LOG_WARN, "connection %llu (uid %u pid %d): %s",
           (unsigned long long)c->serial, (unsigned)c->uid, (int)c->pid, err->message);
    return true;
}

/*
 * A result of `len` bytes just written at `mark` in `b` is queued only
 * while it keeps the connection within --max-conn-output and every
 * connection together within --reply-budget; otherwise it becomes a 1006
 * error with the same id, and its storage goes back at once, so clients
 * that ask for big replies and never read hold at most the budget.
 */
static void reply_check_bounds(sc_conn *c, sc_buf *b, size_t mark, sc_jval id)
{
    size_t len = b->len - mark;
    if (len < SC_REPLY_CHECKED_MIN || b == &c->x.scratch || sc_buf_failed(b))
        return;
    /* `b` is the output, a held write's or the batch: its bytes are counted. */
    sc_rpc_error err = {0};
    if (!over_bounds(c, len, conn_reply_bytes(c), all_reply_bytes(c->d), &err))
        return;
    b->len = mark;
    /* Give back what the refused reply grew the buffer to. */
    size_t keep = mark + (64u << 10);
    if (b->cap > 2 * keep) {
        char *p = realloc(b->data, keep);
        if (p) {
            b->data = p;
            b->cap = keep;
        }
    }
    sc_metrics_error(&c->d->metrics, err.code);
    sc_rpc_write_error(b, id, &err);
}

sc_buf *sc_req_result_begin(sc_req *r)
{
    sc_buf *b = reply_begin(r->c, r->notification);
    r->reply_mark = b->len;
    sc_rpc_result_begin(b, r->id);
    return b;
}

int sc_req_result_end(sc_req *r, sc_buf *b)
{
    sc_rpc_result_end(b);
    reply_check_bounds(r->c, b, r->reply_mark, r->id);
    reply_end(r->c, r->notification);
    return H_DONE;
}

int sc_req_empty(sc_req *r)
{
    sc_buf *b = sc_req_result_begin(r);
    sc_buf_puts(b, "{}");
    return sc_req_result_end(r, b);
}

/* A line's reply written outside any request (parse errors, limits). */
static void reply_line_error(sc_conn *c, int code, const char *msg)
{
    sc_rpc_error err = {0};
    sc_metrics_error(&c->d->metrics, code);
    sc_rpc_fail(&err, code, "%s", msg);
    sc_rpc_write_error(out_buf(c), SC_JVAL_NONE, &err);
    sc_buf_putc(out_buf(c), '\n');
}

/* ------------------------------------------------------------ async glue */

/* Held writes per connection; past this, a write makes the connection wait. */
#define SC_HELD_MAX 64

static void held_free(sc_held *h)
{
    sc_buf_free(&h->reply);
    sc_buf_free(&h->after);
    free(h);
}

/*
 * A held write outlives its line, so its reply's head, the part that
 * carries the id, is written at once; the outcome completes it later.
 * NULL when memory runs out (the request then waits like any other).
 */
static sc_held *held_new(sc_jval id)
{
    sc_held *h = calloc(1, sizeof(*h));
    if (!h)
        return NULL;
    sc_rpc_head(&h->reply, id);
    if (sc_buf_failed(&h->reply)) {
        held_free(h);
        return NULL;
    }
    return h;
}

void sc_async_start(sc_async *a, sc_req *r)
{
    sc_conn *c = r->c;
    a->d = r->d;
    a->c = c;
    a->id = r->id;
    a->notification = r->notification;
    a->held = NULL;
    a->trace = r->trace;
    a->code = 0;
    /* A notification has no reply to keep in order: it waits as before. */
    if (r->may_hold && !r->notification && !c->x.cur_batch && c->x.nheld < SC_HELD_MAX &&
        (a->held = held_new(r->id)) != NULL) {
        a->id = SC_JVAL_NONE; /* its line is gone by the time it replies */
        if (c->x.held_tail)
            c->x.held_tail->next = a->held;
        else
            c->x.held_head = a->held;
        c->x.held_tail = a->held;
        c->x.nheld++;
        r->held = true;
    }
    sc_conn_ref(c);
    r->d->inflight++;
}

sc_buf *sc_async_result_begin(sc_async *a)
{
    if (a->held) {
        sc_rpc_head_result(&a->held->reply);
        return &a->held->reply;
    }
    sc_buf *b = reply_begin(a->c, a->notification);
    a->reply_mark = b->len;
    sc_rpc_result_begin(b, a->id);
    return b;
}

void sc_async_result_end(sc_async *a, sc_buf *b)
{
    sc_rpc_result_end(b);
    if (a->held) {
        /* Held replies are store writes' short results. */
        sc_buf_putc(b, '\n');
    } else {
        reply_check_bounds(a->c, b, a->reply_mark, a->id);
        reply_end(a->c, a->notification);
    }
}

int sc_async_reserve(sc_async *a, size_t len, sc_rpc_error *err)
{
    sc_conn *c = a->c;
    if (len >= SC_REPLY_CHECKED_MIN &&
        over_bounds(c, len, conn_reply_bytes(c) + len, all_reply_bytes(a->d) + len, err))
        return err->code;
    c->reply_reserved += len;
    a->d->reply_reserved += len;
    return 0;
}

void sc_async_unreserve(sc_async *a, size_t len)
{
    assert(a->c->reply_reserved >= len && a->d->reply_reserved >= len);
    a->c->reply_reserved -= len;
    a->d->reply_reserved -= len;
}

size_t sc_async_result_head(sc_async *a, sc_buf *b)
{
    size_t mark = b->len;
    sc_rpc_result_begin(b, a->id);
    return b->len - mark;
}

void sc_async_result_take(sc_async *a, sc_buf *whole, size_t head_len)
{
    sc_conn *c = a->c;
    /* Nothing queued before it: the rendered bytes become the output as
     * they are, so a big reply never exists twice. */
    if (!a->held && !a->notification && !in_batch(c) && out_buf(c) == &c->out && c->out.len == 0 &&
        !sc_buf_failed(whole)) {
        sc_rpc_result_end(whole);
        sc_buf old = c->out;
        c->out = *whole;
        *whole = old;
        reply_check_bounds(c, &c->out, 0, a->id);
        reply_end(c, false);
        return;
    }
    sc_buf *b = sc_async_result_begin(a);
    sc_buf_append(b, whole->data + head_len, whole->len - head_len);
    sc_async_result_end(a, b);
}

void sc_async_error(sc_async *a, const sc_rpc_error *err)
{
    a->code = err->code;
    if (!a->held) {
        reply_error(a->c, a->id, a->notification, err);
        return;
    }
    sc_metrics_error(&a->d->metrics, err->code);
    sc_rpc_head_error(&a->held->reply, err);
    sc_buf_putc(&a->held->reply, '\n');
}

/* Move the replies of the held writes that are done, in order, to the
 * connection's output; stop at the first still in flight. */
static void release_held(sc_conn *c)
{
    while (c->x.held_head && c->x.held_head->done) {
        sc_held *h = c->x.held_head;
        sc_buf_append(&c->out, h->reply.data, h->reply.len);
        sc_buf_append(&c->out, h->after.data, h->after.len);
        c->x.held_head = h->next;
        if (!c->x.held_head)
            c->x.held_tail = NULL;
        c->x.nheld--;
        held_free(h);
    }
}

static void free_held(sc_conn *c)
{
    while (c->x.held_head) {
        sc_held *h = c->x.held_head;
        c->x.held_head = h->next;
        held_free(h);
    }
    c->x.held_tail = NULL;
    c->x.nheld = 0;
}

/* ---------------------------------------------------------------- trace */

static bool tracing(const sc_daemon *d)
{
    return d->log.level >= SC_LOG_DEBUG;
}

static void trace_begin(sc_trace *t, const sc_rpc_request *req)
{
    sc_rpc_error ignored;
    t->method = req->desc->name;
    t->session = 0;
    sc_param_opt_id(req->params, "session", &t->session, &ignored);
}

static void trace_end(const sc_daemon *d, const sc_trace *t, int code)
{
    if (!t->t0)
        return;
    unsigned long long us = (uv_hrtime() - t->t0) / 1000u;
    char session[40] = "";
    if (t->session)
        snprintf(session, sizeof(session), " session %llu", (unsigned long long)t->session);
    if (code)
        sc_log(&d->log, SC_LOG_DEBUG, "request %s%s: error %d in %llu us", t->method, session, code,
               us);
    else
        sc_log(&d->log, SC_LOG_DEBUG, "request %s%s: ok in %llu us", t->method, session, us);
}

/* The request's reply is written: let the connection go on. */
void sc_async_done(sc_async *a)
{
    sc_conn *c = a->c;
    sc_daemon *d = a->d;
    exec_check(c);
    trace_end(d, &a->trace, a->code);
    d->inflight--;
    if (a->held) {
        a->held->done = true;
        release_held(c);
        /* A request waiting for quiet runs now (its line did not move). */
        if (c->x.quiet_wait && !c->x.held_head) {
            c->x.quiet_wait = false;
            c->x.waiting = false;
        }
    } else {
        c->x.waiting = false;
        if (c->x.cur_line)
            c->x.cur_item = c->x.doc.tok[c->x.cur_item].end;
    }
    if (!c->closing) {
        sc_dispatch_process(c);
        sc_conn_flush(c);
        sc_conn_recycle_input(c);
        if ((d->stopping || c->peer_eof || c->close_after_flush) && sc_conn_idle(c))
            sc_conn_close_after_flush(c);
        else
            sc_conn_update_reading(c);
    }
    sc_conn_unref(c);
    sc_server_check_stopped(d);
}

/* -------------------------------------------------------------- helpers */

bool sc_may_access_all(const sc_conn *c)
{
    return c->uid == 0;
}

bool sc_may_administer(const sc_conn *c)
{
    return sc_may_access_all(c) || c->uid == geteuid();
}

bool sc_may_access(const sc_conn *c, uint32_t owner_uid)
{
    return sc_may_access_all(c) || (uint32_t)c->uid == owner_uid;
}

/* Root sees every row; anyone else the rows of their uid written by this
 * daemon's host (uids of two hosts are not the same users). */
bool sc_may_access_meta(const sc_conn *c, const sc_daemon *d, const sc_graph_meta *m)
{
    if (sc_may_access_all(c))
        return true;
    return sc_may_access(c, m->owner_uid) && strcmp(m->host ? m->host : "", d->host_name) == 0;
}

int sc_req_fail(sc_req *r, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    r->err = (sc_rpc_error){.code = code};
    vsnprintf(r->err.message, sizeof(r->err.message), fmt, ap);
    va_end(ap);
    return H_ERROR;
}

int sc_req_copy_string(sc_req *r, const char *s, size_t len, char **out)
{
    *out = NULL;
    if (!s)
        return 0;
    char *copy = malloc(len + 1);
    if (!copy) {
        sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
        return -1;
    }
    memcpy(copy, s, len);
    copy[len] = '\0';
    *out = copy;
    return 0;
}

int sc_req_not_found(sc_req *r, const char *what, uint64_t id)
{
    sc_rpc_fail(&r->err, SC_RPC_NOT_FOUND, "%s %llu not found", what, (unsigned long long)id);
    r->err.what = what;
    return H_ERROR;
}

int sc_req_store_unavailable(sc_req *r)
{
    return sc_req_fail(r, r->d->stopping ? SC_RPC_SHUTTING_DOWN : SC_RPC_STORAGE, "%s",
                       r->d->stopping ? "daemon is shutting down" : "storage is unavailable");
}

/* The method table decides which handlers exist: one per entry. */
static const sc_handler handlers[SC_M__COUNT] = {
#define SC_X_HANDLER(id, handler, name, flags, params, result, summary)                            \
    [SC_M_##id] = sc_h_##handler,
    SC_METHODS(SC_X_HANDLER)
#undef SC_X_HANDLER
};

/* ------------------------------------------------------- execution */

/* Returned by run_one: the request reads the store and held writes are in
 * flight; it runs again once they are done. */
#define H_QUIET 3

/*
 * One batch may not make the daemon buffer more than this in replies: a
 * line of graph.get calls would otherwise multiply a small request into
 * gigabytes.  Later elements are answered 1006 without being run.
 */
#define SC_BATCH_REPLY_MAX (64u << 20)

/* A request answered with an error before any handler ran. */
static int reject(sc_conn *c, const sc_rpc_request *req, const sc_rpc_error *err, uint64_t t0)
{
    reply_error(c, req->id, req->notification, err);
    if (t0) {
        /* A name the method table does not know is the client's text: not logged. */
        sc_trace t = {.t0 = t0,
                      .method = req->desc     ? req->desc->name
                                : req->method ? "(unknown method)"
                                              : "(invalid request)"};
        trace_end(c->d, &t, err->code);
    }
    return H_DONE;
}

/*
 * A batch whose replies so far hold the connection at --max-conn-output, or
 * the daemon at --reply-budget, runs no more of its requests: they answer
 * 1006 without running, so none of them has an effect its reply denies.
 * The connection's share is checked before every request; the daemon's
 * total, a walk over every connection, each time the batch has grown by
 * another SC_REPLY_CHECKED_MIN.
 */
static bool batch_over_bounds(sc_conn *c, sc_rpc_error *err)
{
    sc_exec *x = &c->x;
    const sc_daemon *d = c->d;
    if (x->batch.len < SC_REPLY_CHECKED_MIN)
        return false;
    if (conn_reply_bytes(c) >= d->cfg.max_conn_output) {
        sc_rpc_fail(err, SC_RPC_LIMIT,
                    "batch replies reached %zu bytes pending for the connection "
                    "(--max-conn-output); request not run",
                    d->cfg.max_conn_output);
        return true;
    }
    if (!x->batch_over && x->batch.len - x->batch_checked >= SC_REPLY_CHECKED_MIN) {
        x->batch_checked = x->batch.len;
        x->batch_over = all_reply_bytes(d) >= d->cfg.reply_budget;
    }
    if (!x->batch_over)
        return false;
    sc_rpc_fail(err, SC_RPC_LIMIT,
                "batch replies reached the daemon's budget of %zu reply bytes pending "
                "(--reply-budget); request not run, retry later",
                d->cfg.reply_budget);
    return true;
}

static int run_one(sc_conn *c, sc_jval item)
{
    sc_rpc_request req;
    sc_rpc_error err = {0};
    /* A log subscriber's later requests are read and dropped unanswered:
     * its connection carries notifications only. */
    if (c->subscribed)
        return H_DONE;
    /* The clock is read only when the trace is on: it costs nothing else. */
    uint64_t t0 = tracing(c->d) ? uv_hrtime() : 0;
    int rc = sc_rpc_decode(item, &req, &err);
    if (rc == SC_RPC_INVALID_REQUEST) {
        /* Not a valid request, so not a notification either: always answered. */
        req.notification = false;
        return reject(c, &req, &err, t0);
    }
    if (c->x.cur_batch && c->x.batch.len > SC_BATCH_REPLY_MAX) {
        sc_rpc_fail(&err, SC_RPC_LIMIT, "batch replies exceed %u MiB; request not run",
                    SC_BATCH_REPLY_MAX >> 20);
        return reject(c, &req, &err, t0);
    }
    if (c->x.cur_batch && batch_over_bounds(c, &err))
        return reject(c, &req, &err, t0);
    if (c->d->stopping) {
        sc_rpc_fail(&err, SC_RPC_SHUTTING_DOWN, "daemon is shutting down");
        return reject(c, &req, &err, t0);
    }
    if (rc != 0)
        return reject(c, &req, &err, t0);
    sc_method_id method = req.desc->id;
    /* A held write's effect on the session table is already there; what it
     * changes in the store is not until it commits. */
    if (c->x.held_head && sc_method_has(method, SC_MF_READS_STORE))
        return H_QUIET;
    /* Counted once it runs: a request put off (H_QUIET) comes back here. */
    sc_metrics_request(&c->d->metrics, method);
    sc_req r = {.d = c->d,
                .c = c,
                .id = req.id,
                .params = req.params,
                .notification = req.notification,
                .may_hold = sc_method_has(method, SC_MF_HOLDABLE),
                .trace = {.t0 = t0}};
    if (t0)
        trace_begin(&r.trace, &req);
    rc = handlers[method](&r);
    if (rc == H_ERROR)
        reply_error(c, req.id, req.notification, &r.err);
    if (rc != H_ASYNC)
        trace_end(c->d, &r.trace, rc == H_ERROR ? r.err.code : 0);
    return rc == H_ASYNC && !r.held ? H_ASYNC : H_DONE;
}

static size_t doc_bytes(const sc_jdoc *doc)
{
    return doc->text_cap + (size_t)doc->tok_cap * sizeof(sc_jtok) +
           (size_t)doc->slot_cap * sizeof(uint32_t);
}

static void finish_line(sc_conn *c)
{
    if (c->x.cur_batch && c->x.batch_replies > 0) {
        sc_buf_puts(&c->x.batch, "]\n");
        sc_buf_append(out_buf(c), c->x.batch.data, c->x.batch.len);
    }
    sc_buf_reset(&c->x.batch);
    sc_buf_reset(&c->x.scratch);
    if (doc_bytes(&c->x.doc) > SC_DOC_KEEP_BYTES)
        sc_jdoc_free(&c->x.doc);
    c->x.cur_line = false;
    c->x.cur_item = c->x.cur_end = 0;
    c->x.cur_batch = false;
    c->x.batch_replies = 0;
    c->x.batch_checked = 0;
    c->x.batch_over = false;
}

/* Run the current line's requests until one goes async or all are done. */
static void run_current(sc_conn *c)
{
    while (c->x.cur_item < c->x.cur_end) {
        sc_jval item = {&c->x.doc, c->x.cur_item};
        int rc = run_one(c, item);
        if (rc == H_QUIET)
            c->x.quiet_wait = true;
        if (rc == H_ASYNC || rc == H_QUIET) {
            c->x.waiting = true;
            return;
        }
        c->x.cur_item = c->x.doc.tok[item.i].end;
    }
    finish_line(c);
}

static bool blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return false;
    return true;
}

/* Parse the next buffered line into the connection's document.  false
 * when none is left. */
static bool next_line(sc_conn *c)
{
    for (;;) {
        const char *line;
        size_t len;
        int st = sc_framer_next(&c->in, &line, &len);
        if (st == SC_FRAME_NEED_MORE)
            return false;
        if (st == SC_FRAME_TOO_LONG) {
            reply_line_error(c, SC_RPC_INVALID_REQUEST, "message too large");
            sc_conn_close_after_flush(c);
            return false;
        }
        if (blank(line, len))
            continue;
        sc_rpc_error err = {0};
        if (sc_jdoc_parse(&c->x.doc, line, len, &err) != 0) {
            sc_metrics_error(&c->d->metrics, err.code);
            sc_rpc_write_error(out_buf(c), SC_JVAL_NONE, &err);
            sc_buf_putc(out_buf(c), '\n');
            continue;
        }
        const sc_jtok *root = &c->x.doc.tok[0];
        bool batch = root->type == SC_JARRAY;
        if (batch && root->u.c.count == 0) {
            reply_line_error(c, SC_RPC_INVALID_REQUEST, "invalid request: empty batch");
            continue;
        }
        /* A batch runs its elements, anything else is the one request. */
        c->x.cur_line = true;
        c->x.cur_batch = batch;
        c->x.cur_item = batch ? 1 : 0;
        c->x.cur_end = root->end;
        c->x.batch_replies = 0;
        return true;
    }
}

void sc_dispatch_process(sc_conn *c)
{
    exec_check(c);
    while (!c->closing && !c->x.waiting && !c->close_after_flush && !sc_conn_congested(c)) {
        if (!c->x.cur_line && !next_line(c))
            break;
        if (c->x.cur_line)
            run_current(c);
    }
    exec_check(c);
}

void sc_dispatch_discard(sc_conn *c)
{
    free_held(c);
    sc_jdoc_free(&c->x.doc);
    sc_buf_free(&c->x.batch);
    sc_buf_free(&c->x.scratch);
    c->x.cur_line = c->x.cur_batch = c->x.waiting = c->x.quiet_wait = false;
    c->x.cur_item = c->x.cur_end = 0;
    c->x.batch_replies = 0;
    c->x.batch_checked = 0;
    c->x.batch_over = false;
    exec_check(c);
}

bool sc_dispatch_waiting(const sc_conn *c)
{
    return c->x.waiting;
}

bool sc_dispatch_busy(const sc_conn *c)
{
    return c->x.waiting || c->x.cur_line;
}

bool sc_dispatch_has_held(const sc_conn *c)
{
    return c->x.held_head != NULL;
}

size_t sc_dispatch_held_bytes(const sc_conn *c)
{
    size_t n = 0;
    for (const sc_held *h = c->x.held_head; h; h = h->next)
        n += h->reply.len + h->after.len;
    return n;
}

void sc_dispatch_trim(sc_conn *c)
{
    assert(!sc_dispatch_busy(c));
    sc_jdoc_free(&c->x.doc);
    sc_buf_free(&c->x.batch);
    sc_buf_free(&c->x.scratch);
}
