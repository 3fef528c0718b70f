/*
 * retention.c - removing old graphs and log rows (docs/operations.md,
 * "Retention"): the passes --retain, --retain-graphs, --max-db-size and
 * --retain-log run on a timer, and store.prune, which runs the same steps
 * for an operator or only says what they would delete (dry_run).
 *
 * A prune is a chain of small store jobs, each queued when the last one
 * completed: a plan (a read naming the graphs, oldest first), then
 * batches of deletes, then batches of old log rows, then incremental
 * vacuum steps.  Each job is one short write transaction on the writer
 * thread, and the writes and reads of every other client queued meanwhile
 * run between two of them, so a prune of thousands of graphs never holds
 * the database for long.  One prune runs at a time.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_handlers.h"
#include "sc_units.h"

/* Graphs per delete job: keeps its transaction short.  A graph of a
 * million nodes is still one job of its own size. */
#define BATCH_GRAPHS 64u
/* Log rows per job, and free pages one vacuum step gives back (4 MiB of
 * 4 KiB pages). */
#define LOG_BATCH   1000u
#define VACUUM_STEP 1024u
/* The graphs one plan names; a pass that found more runs again at once. */
#define PLAN_LIMIT 10000u

typedef struct prune_run prune_run;
typedef void (*prune_done_fn)(prune_run *p, int rc, const char *errmsg);

struct sc_retention {
    sc_daemon *d;
    uv_timer_t timer;
    bool timer_open;
    bool stopping;
    prune_run *running; /* the one prune in progress, or NULL */
    bool orphaned;      /* destroyed while a prune ran: it frees this */
    uint64_t deleted;   /* graphs deleted since the start */
    uint64_t log_deleted;
};

struct prune_run {
    struct sc_retention *ret;
    sc_prune_policy pol;
    bool dry_run;
    bool prune_log;
    int64_t log_before_ms;
    sc_prune_plan *plan;
    size_t next;       /* the first id of the plan not yet handed to a batch */
    size_t batch_end;  /* past the ids of the batch in flight */
    uint64_t deleted;  /* graphs this prune deleted */
    int64_t lo, hi;    /* the ids of those batches, for the log line */
    uint64_t log_rows; /* log rows it deleted */
    uint64_t vacuumed; /* vacuum steps that gave pages back */
    int64_t free_left; /* free pages the last step left */
    prune_done_fn done;
    void *arg;
};

static void run_step(prune_run *p);

static void finish(prune_run *p, int rc, const char *errmsg)
{
    struct sc_retention *ret = p->ret;
    ret->running = NULL;
    ret->deleted += p->deleted;
    ret->log_deleted += p->log_rows;
    if (!ret->orphaned)
        sc_metrics_add_retention(&ret->d->metrics, p->deleted);
    p->done(p, rc, errmsg);
    sc_prune_plan_free(p->plan);
    free(p);
    if (ret->orphaned)
        free(ret);
}

/* The store's answer to a step: on to the next one, or the end. */
static bool step_failed(prune_run *p, int rc, const char *errmsg)
{
    if (rc == 0 && !p->ret->stopping)
        return false;
    finish(p, rc ? rc : SC_STORE_ECLOSED, errmsg);
    return true;
}

static void vacuumed(void *arg, const sc_store_result *res)
{
    prune_run *p = arg;
    if (step_failed(p, res->rc, res->errmsg))
        return;
    /* Stop once nothing is left, or a step gave nothing back. */
    bool progress = res->id > 0 && (p->free_left < 0 || res->id < p->free_left);
    p->free_left = res->id;
    if (!progress) {
        finish(p, 0, NULL);
        return;
    }
    p->vacuumed++;
    run_step(p);
}

static void start_vacuum(prune_run *p)
{
    int rc = sc_store_vacuum_step(p->ret->d->store, VACUUM_STEP, vacuumed, p);
    if (rc)
        finish(p, rc, NULL);
}

static void log_pruned(void *arg, const sc_store_result *res)
{
    prune_run *p = arg;
    if (step_failed(p, res->rc, res->errmsg))
        return;
    p->log_rows += (uint64_t)res->id;
    if ((uint64_t)res->id < LOG_BATCH)
        p->prune_log = false;
    run_step(p);
}

static void batch_deleted(void *arg, const sc_store_result *res)
{
    prune_run *p = arg;
    sc_daemon *d = p->ret->d;
    if (res->rc == 0) {
        /* Whatever of the batch went is no longer to be served from memory;
         * a pinned graph it kept is merely loaded again. */
        for (size_t i = p->next; i < p->batch_end; i++)
            sc_cache_forget(d->cache, p->plan->ids[i]);
        if (res->id > 0) {
            if (!p->lo)
                p->lo = p->plan->ids[p->next];
            p->hi = p->plan->ids[p->batch_end - 1];
        }
        p->deleted += (uint64_t)res->id;
        p->next = p->batch_end;
    }
    if (step_failed(p, res->rc, res->errmsg))
        return;
    run_step(p);
}

/* The next batch of the plan: BATCH_GRAPHS graphs, or the rest. */
static void start_batch(prune_run *p)
{
    size_t end = p->next + BATCH_GRAPHS < p->plan->count ? p->next + BATCH_GRAPHS : p->plan->count;
    p->batch_end = end;
    int rc = sc_store_prune_graphs(p->ret->d->store, p->plan->ids + p->next, end - p->next,
                                   sc_now_ms(), batch_deleted, p);
    if (rc)
        finish(p, rc, NULL);
}

/* Graphs first, then the log rows, then the space. */
static void run_step(prune_run *p)
{
    if (p->next < p->plan->count) {
        start_batch(p);
    } else if (p->prune_log) {
        int rc = sc_store_prune_log(p->ret->d->store, p->log_before_ms, LOG_BATCH, log_pruned, p);
        if (rc)
            finish(p, rc, NULL);
    } else {
        start_vacuum(p);
    }
}

static void planned(void *arg, int rc, sc_prune_plan *plan, const char *errmsg)
{
    prune_run *p = arg;
    p->plan = plan;
    if (step_failed(p, rc, errmsg))
        return;
    if (p->dry_run) {
        finish(p, 0, NULL);
        return;
    }
    run_step(p);
}

/* Start prune `p` (its policy, flags and done set): 0, or a store code
 * (p not started, still the caller's). */
static int prune_start(struct sc_retention *ret, prune_run *p)
{
    p->ret = ret;
    p->free_left = -1;
    bool graphs = p->pol.has_before || p->pol.keep || p->pol.max_bytes;
    int rc;
    if (graphs) {
        rc = sc_store_prune_plan(ret->d->store, &p->pol, planned, p);
    } else {
        /* Only log rows: an empty plan, straight to them. */
        p->plan = calloc(1, sizeof *p->plan);
        rc = p->plan ? 0 : SC_STORE_ENOMEM;
    }
    if (rc)
        return rc;
    ret->running = p;
    if (!graphs)
        run_step(p);
    return 0;
}

/* ---- the passes of the daemon's own policy ---- */

static bool has_policy(const sc_config *cfg)
{
    return cfg->retain_ms || cfg->retain_graphs || cfg->max_db_bytes || cfg->retain_log_ms;
}

/* The daemon's policy as of now, for every owner. */
static void policy_of(const sc_config *cfg, prune_run *p)
{
    int64_t now = sc_now_ms();
    p->pol.any_owner = true;
    p->pol.has_before = cfg->retain_ms > 0;
    p->pol.before_ms = now - cfg->retain_ms;
    p->pol.keep = cfg->retain_graphs;
    p->pol.max_bytes = cfg->max_db_bytes;
    p->pol.limit = PLAN_LIMIT;
    p->prune_log = cfg->retain_log_ms > 0;
    p->log_before_ms = now - cfg->retain_log_ms;
}

static void say_removed(const sc_daemon *d, const prune_run *p, const char *who)
{
    if (p->deleted)
        sc_log(&d->log, SC_LOG_INFO,
               "%s: deleted %" PRIu64 " graph%s (ids %" PRId64 "..%" PRId64 "), %" PRIu64
               " log row%s",
               who, p->deleted, p->deleted == 1 ? "" : "s", p->lo, p->hi, p->log_rows,
               p->log_rows == 1 ? "" : "s");
    else if (p->log_rows)
        sc_log(&d->log, SC_LOG_INFO, "%s: deleted %" PRIu64 " log row%s", who, p->log_rows,
               p->log_rows == 1 ? "" : "s");
}

static void on_timer(uv_timer_t *t);

static void pass_done(prune_run *p, int rc, const char *errmsg)
{
    struct sc_retention *ret = p->ret;
    sc_daemon *d = ret->d;
    say_removed(d, p, "retention");
    if (rc && rc != SC_STORE_ECLOSED)
        sc_log_store_error(d, rc, errmsg, 0, 0, "running retention");
    /* A plan that stopped at its limit leaves more: the next pass at once. */
    if (rc == 0 && p->plan && p->plan->has_more && !ret->stopping && ret->timer_open)
        uv_timer_start(&ret->timer, on_timer, 0, (uint64_t)d->cfg.retain_interval_s * 1000u);
}

static void on_timer(uv_timer_t *t)
{
    struct sc_retention *ret = t->data;
    /* An operator's prune is running: this pass waits for the next tick. */
    if (ret->running || ret->stopping || ret->d->stopping)
        return;
    prune_run *p = calloc(1, sizeof *p);
    if (!p)
        return;
    policy_of(&ret->d->cfg, p);
    p->done = pass_done;
    int rc = prune_start(ret, p);
    if (rc) {
        sc_log_store_error(ret->d, rc, NULL, 0, 0, "starting retention");
        sc_prune_plan_free(p->plan);
        free(p);
    }
}

int sc_retention_init(sc_daemon *d)
{
    struct sc_retention *ret = calloc(1, sizeof *ret);
    if (!ret)
        return -1;
    ret->d = d;
    d->retention = ret;
    if (!has_policy(&d->cfg))
        return 0;
    uv_timer_init(d->loop, &ret->timer);
    ret->timer.data = ret;
    ret->timer_open = true;
    uint64_t every = (uint64_t)d->cfg.retain_interval_s * 1000u;
    uv_timer_start(&ret->timer, on_timer, 0, every);
    /* The pass must not keep a stopping loop alive. */
    uv_unref((uv_handle_t *)&ret->timer);
    return 0;
}

void sc_retention_stop(sc_daemon *d)
{
    struct sc_retention *ret = d->retention;
    if (!ret)
        return;
    ret->stopping = true;
    if (ret->timer_open)
        uv_timer_stop(&ret->timer);
}

static void free_on_close(uv_handle_t *h)
{
    struct sc_retention *ret = h->data;
    if (ret->running)
        ret->orphaned = true;
    else
        free(ret);
}

void sc_retention_destroy(sc_daemon *d)
{
    struct sc_retention *ret = d->retention;
    if (!ret)
        return;
    d->retention = NULL;
    ret->stopping = true;
    if (ret->timer_open) {
        ret->timer_open = false;
        uv_close((uv_handle_t *)&ret->timer, free_on_close);
    } else if (ret->running) {
        ret->orphaned = true;
    } else {
        free(ret);
    }
}

uint64_t sc_retention_deleted(const sc_daemon *d)
{
    return d->retention ? d->retention->deleted : 0;
}

/* ---- store.prune ---- */

typedef struct prune_req {
    sc_async a;
    prune_run *run;
} prune_req;

static void write_ids(sc_buf *b, bool *first, const sc_prune_plan *plan)
{
    sc_json_key(b, first, "graphs");
    sc_buf_putc(b, '[');
    for (size_t i = 0; plan && i < plan->count; i++) {
        if (i)
            sc_buf_putc(b, ',');
        sc_json_i64(b, plan->ids[i]);
    }
    sc_buf_putc(b, ']');
}

static void prune_replied(prune_run *p, int rc, const char *errmsg)
{
    prune_req *x = p->arg;
    sc_daemon *d = x->a.d;
    if (rc != 0) {
        sc_rpc_error err = {0};
        sc_log_store_error(d, rc, errmsg, (uint32_t)x->a.c->uid, x->a.c->pid, "pruning");
        sc_store_rpc_error(&err, rc, errmsg);
        sc_async_error(&x->a, &err);
    } else {
        if (!p->dry_run)
            say_removed(d, p, "prune");
        const sc_prune_plan *plan = p->plan;
        sc_buf *b = sc_async_result_begin(&x->a);
        bool first;
        sc_json_obj_begin(b, &first);
        sc_json_member_bool(b, &first, "dry_run", p->dry_run);
        write_ids(b, &first, plan);
        sc_json_member_u64(b, &first, "count", plan ? plan->count : 0);
        sc_json_member_u64(b, &first, "nodes", plan ? plan->nodes : 0);
        sc_json_member_u64(b, &first, "bytes", plan ? plan->bytes : 0);
        sc_json_member_u64(b, &first, "db_bytes", plan ? plan->db_bytes : 0);
        sc_json_member_bool(b, &first, "more", plan && plan->has_more);
        if (!p->dry_run) {
            sc_json_member_u64(b, &first, "deleted", p->deleted);
            sc_json_member_u64(b, &first, "log_rows", p->log_rows);
        }
        sc_json_obj_end(b);
        sc_async_result_end(&x->a, b);
    }
    sc_async_done(&x->a);
    free(x);
}

/* An optional age parameter: 0 (*has false when absent), or -1 with r->err. */
static int param_age(sc_req *r, const char *field, bool *has, int64_t *ms)
{
    const char *s = NULL;
    size_t len = 0;
    *has = false;
    if (sc_param_opt_string(r->params, field, &s, &len, &r->err) != 0)
        return -1;
    if (!s)
        return 0;
    if (sc_parse_age(s, len, ms) != 0) {
        sc_req_fail(r, SC_RPC_INVALID_PARAMS,
                    "invalid params: %s must be an age such as 30d, 12h, 15m or 5s", field);
        r->err.field = field;
        return -1;
    }
    *has = true;
    return 0;
}

/* store.prune's params into p: its own policy, or the daemon's when it
 * names none.  0, or -1 with r->err set. */
static int prune_params(sc_req *r, prune_run *p, bool all)
{
    bool has_age, has_log;
    int64_t age = 0, log_age = 0;
    uint64_t keep = 0, max_bytes = 0;
    const char *size = NULL;
    size_t size_len = 0;
    if (sc_param_opt_bool(r->params, "dry_run", &p->dry_run, &r->err) != 0 ||
        param_age(r, "older_than", &has_age, &age) != 0 ||
        param_age(r, "log_older_than", &has_log, &log_age) != 0 ||
        sc_param_opt_u64(r->params, "keep", 1ull << 40, &keep, &r->err) != 0 ||
        sc_param_opt_string(r->params, "max_db_size", &size, &size_len, &r->err) != 0)
        return -1;
    if (size && sc_parse_bytes(size, size_len, &max_bytes) != 0) {
        sc_req_fail(r, SC_RPC_INVALID_PARAMS,
                    "invalid params: max_db_size must be a size such as 10G or 500M");
        r->err.field = "max_db_size";
        return -1;
    }
    if (has_log && !all) {
        /* Log rows of every uid go: only root prunes them. */
        sc_req_fail(r, SC_RPC_PERMISSION_DENIED,
                    "permission denied: only root prunes the capture log (log_older_than)");
        r->err.field = "log_older_than";
        return -1;
    }
    int64_t now = sc_now_ms();
    if (!has_age && !has_log && !keep && !size) {
        if (!has_policy(&r->d->cfg)) {
            sc_req_fail(r, SC_RPC_INVALID_PARAMS,
                        "invalid params: no policy: give older_than, keep, max_db_size or "
                        "log_older_than, or start streamcapd with --retain, --retain-graphs, "
                        "--max-db-size or --retain-log");
            return -1;
        }
        policy_of(&r->d->cfg, p);
        p->prune_log = p->prune_log && all;
    } else {
        p->pol.has_before = has_age;
        p->pol.before_ms = now - age;
        p->pol.keep = keep;
        p->pol.max_bytes = max_bytes;
        p->pol.limit = SC_STORE_PRUNE_MAX;
        p->prune_log = has_log;
        p->log_before_ms = now - log_age;
    }
    /* Anyone but root prunes only their own graphs. */
    p->pol.any_owner = all;
    p->pol.uid = (uint32_t)r->c->uid;
    return 0;
}

int sc_h_store_prune(sc_req *r)
{
    struct sc_retention *ret = r->d->retention;
    prune_run *p = calloc(1, sizeof *p);
    prune_req *x = calloc(1, sizeof *x);
    if (!p || !x || !ret) {
        free(p);
        free(x);
        return sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    }
    if (prune_params(r, p, sc_may_access_all(r->c)) != 0) {
        free(p);
        free(x);
        return H_ERROR;
    }
    if (ret->running) {
        free(p);
        free(x);
        return sc_req_fail(r, SC_RPC_LIMIT,
                           "limit: a prune or retention pass is running; try again later");
    }
    p->done = prune_replied;
    p->arg = x;
    x->run = p;
    /* Started first: a step that fails at once replies through it. */
    sc_async_start(&x->a, r);
    int rc = prune_start(ret, p);
    if (rc) {
        sc_rpc_error err = {0};
        sc_store_rpc_error(&err, rc, NULL);
        sc_async_error(&x->a, &err);
        sc_async_done(&x->a);
        sc_prune_plan_free(p->plan);
        free(p);
        free(x);
    }
    return H_ASYNC;
}
