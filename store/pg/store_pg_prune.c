/*
 * store_pg_prune.c - the PostgreSQL backend's side of pinning, retention
 * and prune (sc_store.h, "Retention and prune").  Space: deleted rows are
 * reclaimed by autovacuum, not here (docs/operations.md).
 */
#include <string.h>

#include "store_pg_int.h"

int store_pg_pin(sc_store_be *be, sc_store_job *j, char *err, size_t len)
{
    params p = {0};
    p_i64(&p, j->u.pin.graph);
    p_word(&p, j->u.pin.pinned ? "true" : "false");
    int64_t changed = 0;
    /* Only a top-level graph: a body goes with the graph that holds it. */
    int rc = pg_exec(be->conn,
                     "UPDATE graphs SET pinned = $2::boolean WHERE graph = $1"
                     " AND parent_graph IS NULL",
                     &p, "cannot pin the graph", err, len, &changed);
    if (rc)
        return rc;
    if (changed == 0)
        return SC_STORE_ENOTFOUND;
    j->id = j->u.pin.graph;
    return 0;
}

int store_pg_prune_graphs(sc_store_be *be, sc_store_job *j, char *err, size_t len)
{
    size_t deleted = 0;
    for (size_t i = 0; i < j->u.prune.n; i++) {
        /* Each graph as graph.delete deletes it, but never a pinned one. */
        sc_store_job one = {.type = SC_STORE_JOB_DELETE_GRAPH};
        one.u.del.graph = j->u.prune.ids[i];
        one.u.del.deleted_ms = j->u.prune.deleted_ms;
        one.u.del.keep_pinned = true;
        int rc = store_pg_delete_graph(be, &one, err, len);
        j->u.prune.gone[i] = rc == 0;
        j->u.prune.uids[i] = one.u.del.uid;
        if (rc == 0)
            deleted++;
        else if (rc != SC_STORE_ENOTFOUND && rc != SC_STORE_EBUSY)
            return rc;
    }
    j->id = (int64_t)deleted;
    return 0;
}

int store_pg_prune_log(sc_store_be *be, sc_store_job *j, char *err, size_t len)
{
    params p = {0};
    p_i64(&p, j->u.plog.before_ms);
    p_i64(&p, j->u.plog.limit);
    int64_t changed = 0;
    /* Ended rows opened before the cutoff whose graphs are all gone (the
     * row's own, every capture's), oldest first by the time index. */
    int rc = pg_exec(be->conn,
                     "WITH old AS (SELECT session FROM capture_log AS l WHERE opened_at < " TS_IN(
                         1) " AND outcome <> 'open'"
                            " AND (graph IS NULL OR graph_deleted_at IS NOT NULL)"
                            " AND NOT EXISTS (SELECT 1 FROM captures AS c WHERE c.session = "
                            "l.session AND c.graph IS NOT NULL AND c.graph_deleted_at IS NULL)"
                            " ORDER BY opened_at, session LIMIT $2),"
                            " gone AS (DELETE FROM captures WHERE session IN (SELECT session FROM "
                            "old)) DELETE FROM capture_log WHERE session IN (SELECT session FROM "
                            "old)",
                     &p, "cannot prune the capture log", err, len, &changed);
    j->id = rc == 0 ? changed : 0;
    return rc;
}

/* ---- the plan, on a reader ---- */

static PGresult *plan_query(PGconn *c, sc_store_read *rq, const char *sql, const params *p)
{
    int rc = 0;
    PGresult *r = pg_run(c, sql, p, PGRES_TUPLES_OK, "cannot plan the prune", &rc, rq->errmsg,
                         sizeof rq->errmsg);
    if (!r)
        rq->rc = rc;
    return r;
}

/* The size in use and nodes + edges + graphs: what a graph's share of the
 * size is estimated from.  0 or the code set in rq. */
static int plan_totals(PGconn *c, sc_store_read *rq, uint64_t *db_bytes, double *rows)
{
    params none = {0};
    PGresult *r =
        plan_query(c, rq,
                   "SELECT pg_database_size(current_database()),"
                   " count(*) + coalesce(sum(node_count), 0) + coalesce(sum(edge_count), 0)"
                   " FROM graphs",
                   &none);
    if (!r)
        return rq->rc;
    *db_bytes = (uint64_t)col_i64(r, 0, 0);
    *rows = (double)col_i64(r, 0, 1);
    PQclear(r);
    return 0;
}

/* The id below which the newest `keep` top-level graphs (of the owner)
 * leave the rest; 0 when there are no more. */
static int plan_bound(PGconn *c, sc_store_read *rq, int64_t *bound)
{
    const sc_prune_policy *pp = &rq->prune;
    params p = {0};
    p_i64(&p, (int64_t)(pp->keep - 1));
    if (!pp->any_owner) {
        p_i64(&p, pp->uid);
        p_word(&p, pp->host);
    }
    PGresult *r = plan_query(c, rq,
                             pp->any_owner ? "SELECT graph FROM graphs WHERE parent_graph IS NULL"
                                             " ORDER BY graph DESC LIMIT 1 OFFSET $1"
                                           : "SELECT graph FROM graphs WHERE parent_graph IS NULL"
                                             " AND owner_uid = $2 AND host = $3"
                                             " ORDER BY graph DESC LIMIT 1"
                                             " OFFSET $1",
                             &p);
    if (!r)
        return rq->rc;
    *bound = PQntuples(r) ? col_i64(r, 0, 0) : 0;
    PQclear(r);
    return 0;
}

/* Room for one more id in the plan: 0 or SC_STORE_ENOMEM. */
static int plan_grow(sc_prune_plan *plan, size_t *cap)
{
    if (plan->count < *cap)
        return 0;
    size_t want = *cap ? 2 * *cap : 256;
    int64_t *more = realloc(plan->ids, want * sizeof *more);
    if (!more)
        return SC_STORE_ENOMEM;
    plan->ids = more;
    *cap = want;
    return 0;
}

#define PLAN_PAGE 1000

/* Walk the candidates oldest first, a page at a time by id, naming those
 * the policy takes; the first none of its parts takes ends the walk. */
static int plan_walk(PGconn *c, sc_store_read *rq, int64_t bound, uint64_t db_bytes, double rows,
                     sc_prune_plan *plan)
{
    const sc_prune_policy *pp = &rq->prune;
    double per_row = rows > 0 ? (double)db_bytes / rows : 0;
    uint64_t excess = pp->max_bytes && db_bytes > pp->max_bytes ? db_bytes - pp->max_bytes : 0;
    int64_t after = 0;
    size_t cap = 0;
    for (;;) {
        params p = {0};
        p_i64(&p, after);
        p_i64(&p, PLAN_PAGE);
        if (!pp->any_owner) {
            p_i64(&p, pp->uid);
            p_word(&p, pp->host);
        }
        PGresult *r = plan_query(
            c, rq,
            pp->any_owner
                ? "SELECT graph, " TS_OUT("created_at") ", node_count, edge_count FROM graphs"
                                                        " WHERE graph > $1 AND parent_graph IS NULL"
                                                        " AND NOT pinned ORDER BY graph LIMIT $2"
                : "SELECT graph, " TS_OUT("created_at") ", node_count, edge_count FROM graphs"
                                                        " WHERE graph > $1 AND parent_graph IS NULL"
                                                        " AND NOT pinned AND owner_uid = $3"
                                                        " AND host = $4"
                                                        " ORDER BY graph LIMIT $2",
            &p);
        if (!r)
            return rq->rc;
        int n = PQntuples(r);
        for (int i = 0; i < n; i++) {
            int64_t id = col_i64(r, i, 0);
            uint64_t nodes = (uint64_t)col_i64(r, i, 2);
            uint64_t bytes = (uint64_t)(per_row * (double)(1 + nodes + (uint64_t)col_i64(r, i, 3)));
            bool old = pp->has_before && col_i64(r, i, 1) < pp->before_ms;
            if ((!old && !(bound && id < bound) && excess == 0) || plan->count == pp->limit) {
                plan->has_more =
                    plan->count == pp->limit && (old || (bound && id < bound) || excess);
                PQclear(r);
                return 0;
            }
            if (plan_grow(plan, &cap) != 0) {
                PQclear(r);
                rq->rc = SC_STORE_ENOMEM;
                snprintf(rq->errmsg, sizeof rq->errmsg, "out of memory");
                return rq->rc;
            }
            plan->ids[plan->count++] = id;
            plan->nodes += nodes;
            plan->bytes += bytes;
            excess = excess > bytes ? excess - bytes : 0;
            after = id;
        }
        PQclear(r);
        if (n < PLAN_PAGE)
            return 0;
    }
}

void store_pg_plan(PGconn *c, sc_store_read *rq)
{
    sc_prune_plan *plan = calloc(1, sizeof *plan);
    if (!plan) {
        rq->rc = SC_STORE_ENOMEM;
        snprintf(rq->errmsg, sizeof rq->errmsg, "out of memory");
        return;
    }
    rq->plan = plan;
    params none = {0};
    /* One snapshot for the size, the bound and the walk. */
    if (pg_exec(c, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", &none,
                "cannot plan the prune", rq->errmsg, sizeof rq->errmsg, NULL) != 0) {
        rq->rc = SC_STORE_EIO;
        return;
    }
    uint64_t db_bytes = 0;
    double rows = 0;
    int64_t bound = 0;
    if (plan_totals(c, rq, &db_bytes, &rows) == 0 &&
        (!rq->prune.keep || plan_bound(c, rq, &bound) == 0))
        plan_walk(c, rq, bound, db_bytes, rows, plan);
    plan->db_bytes = db_bytes;
    PQclear(PQexec(c, rq->rc ? "ROLLBACK" : "COMMIT"));
}
