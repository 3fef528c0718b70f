/*
 * store_sqlite_prune.c - the SQLite backend's deletes: graph.delete's, and
 * the side of pinning, retention and prune (sc_store.h, "Retention and
 * prune"): the writer's jobs, and the plan a reader makes.
 *
 * Statements here are prepared per job: these jobs are rare (a retention
 * pass, an operator's command), so they cost the writer no statements it
 * would keep for its whole life.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_sqlite.h"

/* A statement of the writer's connection for one job, or NULL (w->why set). */
static sqlite3_stmt *prepare(store_writer *w, const char *sql)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(w->db, sql, -1, &s, NULL) != SQLITE_OK) {
        sqlite3_finalize(s);
        return NULL;
    }
    return s;
}

/* The session that produced `graph`, its owner and whether it is pinned:
 * 0, ENOTFOUND or EIO. */
static int graph_session(store_writer *w, int64_t graph, int64_t *session, uint32_t *uid,
                         bool *pinned)
{
    sqlite3_stmt *s = w->graph_session;
    sqlite3_bind_int64(s, 1, graph);
    int sqlrc = sqlite3_step(s);
    if (sqlrc == SQLITE_ROW) {
        *session = sqlite3_column_int64(s, 0);
        *uid = (uint32_t)sqlite3_column_int64(s, 1);
        *pinned = sqlite3_column_int64(s, 2) != 0;
    }
    sqlite3_reset(s);
    if (sqlrc == SQLITE_ROW)
        return 0;
    return sqlrc == SQLITE_DONE ? SC_STORE_ENOTFOUND : SC_STORE_EIO;
}

int sql_delete_rows(sqlite3_stmt *s, int64_t graph)
{
    sqlite3_bind_int64(s, 1, graph);
    return sql_step_done(s);
}

/* The rows of every body below `graph` (schema/009_bodies.sql), deepest
 * included: a body lives and dies with the graph that holds it. */
static int delete_bodies(store_writer *w, int64_t graph)
{
    static const char sql[] =
        "WITH RECURSIVE d(g) AS (SELECT graph FROM graphs WHERE parent_graph = ?1"
        " UNION ALL SELECT graphs.graph FROM graphs JOIN d ON graphs.parent_graph = d.g)"
        " SELECT g FROM d";
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(w->db, sql, -1, &s, NULL) != SQLITE_OK)
        return SC_STORE_EIO;
    sqlite3_bind_int64(s, 1, graph);
    int rc = 0, sqlrc;
    int64_t *ids = NULL;
    size_t n = 0, cap = 0;
    while (rc == 0 && (sqlrc = sqlite3_step(s)) == SQLITE_ROW) {
        if (n == cap) {
            int64_t *more = realloc(ids, (cap = cap ? 2 * cap : 8) * sizeof *ids);
            if (!more)
                rc = SC_STORE_ENOMEM;
            else
                ids = more;
        }
        if (rc == 0)
            ids[n++] = sqlite3_column_int64(s, 0);
    }
    if (rc == 0 && sqlrc != SQLITE_DONE)
        rc = SC_STORE_EIO;
    sqlite3_finalize(s);
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (sql_delete_rows(w->index_delete, ids[i]) != SQLITE_OK ||
            sql_delete_rows(w->nodes_delete, ids[i]) != SQLITE_OK ||
            sql_delete_rows(w->graph_delete, ids[i]) != SQLITE_OK)
            rc = SC_STORE_EIO;
    free(ids);
    return rc;
}

int store_sqlite_delete_graph(store_writer *w, store_job *j)
{
    int64_t graph = j->u.del.graph, session;
    bool pinned = false;
    /* Looked up before any write, so a missing graph leaves the batch intact. */
    int rc = graph_session(w, graph, &session, &j->u.del.uid, &pinned);
    if (rc)
        return rc;
    if (pinned && j->u.del.keep_pinned)
        return SC_STORE_EBUSY;
    if ((rc = delete_bodies(w, graph)) != 0)
        return rc;
    if (sql_delete_rows(w->index_delete, graph) != SQLITE_OK ||
        sql_delete_rows(w->nodes_delete, graph) != SQLITE_OK ||
        sql_delete_rows(w->graph_delete, graph) != SQLITE_OK)
        return SC_STORE_EIO;
    sqlite3_stmt *s = w->log_graph_deleted;
    sqlite3_bind_int64(s, 1, session);
    sqlite3_bind_int64(s, 2, graph);
    store_sqlite_bind_time(s, 3, j->u.del.deleted_ms);
    if (sql_step_done(s) != SQLITE_OK)
        return SC_STORE_EIO;
    s = w->capture_graph_deleted;
    sqlite3_bind_int64(s, 1, session);
    sqlite3_bind_int64(s, 2, graph);
    store_sqlite_bind_time(s, 3, j->u.del.deleted_ms);
    if (sql_step_done(s) != SQLITE_OK)
        return SC_STORE_EIO;
    j->id = graph;
    return 0;
}

int store_sqlite_pin(store_writer *w, store_job *j)
{
    /* Only a top-level graph: a body goes with the graph that holds it. */
    sqlite3_stmt *s =
        prepare(w, "UPDATE graphs SET pinned = ?2 WHERE graph = ?1 AND parent_graph IS NULL");
    if (!s)
        return SC_STORE_EIO;
    sqlite3_bind_int64(s, 1, j->u.pin.graph);
    sqlite3_bind_int(s, 2, j->u.pin.pinned ? 1 : 0);
    int rc = sql_step_done(s);
    int changed = sqlite3_changes(w->db);
    sqlite3_finalize(s);
    if (rc != SQLITE_OK)
        return SC_STORE_EIO;
    if (changed == 0)
        return SC_STORE_ENOTFOUND;
    j->id = j->u.pin.graph;
    return 0;
}

int store_sqlite_prune_graphs(store_writer *w, store_job *j)
{
    size_t deleted = 0;
    for (size_t i = 0; i < j->u.prune.n; i++) {
        /* Each graph as graph.delete deletes it, but never a pinned one. */
        store_job one = {.type = SC_STORE_JOB_DELETE_GRAPH};
        one.u.del.graph = j->u.prune.ids[i];
        one.u.del.deleted_ms = j->u.prune.deleted_ms;
        one.u.del.keep_pinned = true;
        int rc = store_sqlite_delete_graph(w, &one);
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

/*
 * Ended rows opened before the cutoff whose graphs are all gone: the row's
 * own (a default-mode session) and every capture's (cuda mode).  The time
 * index serves the range, oldest first.
 */
#define OLD_LOG_ROWS                                                                               \
    "SELECT session FROM capture_log AS l WHERE opened_at < ?1 AND outcome <> 'open'"              \
    " AND (graph IS NULL OR graph_deleted_at IS NOT NULL)"                                         \
    " AND NOT EXISTS (SELECT 1 FROM captures AS c WHERE c.session = l.session"                     \
    " AND c.graph IS NOT NULL AND c.graph_deleted_at IS NULL)"                                     \
    " ORDER BY opened_at, session LIMIT ?2"

int store_sqlite_prune_log(store_writer *w, store_job *j)
{
    sqlite3_stmt *pick = prepare(w, OLD_LOG_ROWS);
    sqlite3_stmt *caps = prepare(w, "DELETE FROM captures WHERE session = ?1");
    sqlite3_stmt *row = prepare(w, "DELETE FROM capture_log WHERE session = ?1");
    int rc = pick && caps && row ? 0 : SC_STORE_EIO;
    int64_t *ids = NULL;
    size_t n = 0;
    if (rc == 0 && !(ids = malloc(j->u.plog.limit * sizeof *ids)))
        rc = SC_STORE_ENOMEM;
    if (rc == 0) {
        store_sqlite_bind_time(pick, 1, j->u.plog.before_ms);
        sqlite3_bind_int64(pick, 2, j->u.plog.limit);
        int sqlrc;
        while ((sqlrc = sqlite3_step(pick)) == SQLITE_ROW && n < j->u.plog.limit)
            ids[n++] = sqlite3_column_int64(pick, 0);
        if (sqlrc != SQLITE_ROW && sqlrc != SQLITE_DONE)
            rc = SC_STORE_EIO;
    }
    /* Each delete is one key range (captures) or one key (capture_log). */
    for (size_t i = 0; rc == 0 && i < n; i++) {
        sqlite3_bind_int64(caps, 1, ids[i]);
        sqlite3_bind_int64(row, 1, ids[i]);
        if (sql_step_done(caps) != SQLITE_OK || sql_step_done(row) != SQLITE_OK)
            rc = SC_STORE_EIO;
    }
    free(ids);
    sqlite3_finalize(pick);
    sqlite3_finalize(caps);
    sqlite3_finalize(row);
    if (rc == SC_STORE_ENOMEM)
        w->why = "out of memory";
    j->id = rc == 0 ? (int64_t)n : 0;
    return rc;
}

/* The value of a one-row, one-column statement, or -1. */
static int64_t pragma_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s = NULL;
    int64_t v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

int store_sqlite_vacuum(store_writer *w, store_job *j)
{
    /* Only a database made with auto_vacuum=INCREMENTAL (2) can give pages
     * back a few at a time; any other would need a whole VACUUM, which
     * holds the database for as long as it copies it. */
    j->id = 0;
    if (pragma_int(w->db, "PRAGMA auto_vacuum") != 2)
        return 0;
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA incremental_vacuum(%u)", (unsigned)j->u.vac.pages);
    if (sqlite3_exec(w->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return SC_STORE_EIO;
    int64_t left = pragma_int(w->db, "PRAGMA freelist_count");
    if (left < 0)
        return SC_STORE_EIO;
    j->id = left;
    /* The moved pages reach the file at the next checkpoint. */
    w->checkpoint_due = true;
    return 0;
}

/* ---- the plan, on a reader ---- */

static void plan_fail(sqlite3 *db, sc_store_read *q)
{
    bool nomem = (sqlite3_errcode(db) & 0xff) == SQLITE_NOMEM;
    q->rc = nomem ? SC_STORE_ENOMEM : SC_STORE_EIO;
    snprintf(q->errmsg, sizeof q->errmsg, "%s", nomem ? "out of memory" : sqlite3_errmsg(db));
}

/* The bytes in use now, and the store's nodes, edges and graphs together:
 * what a graph's share of the size is estimated from. */
typedef struct plan_totals {
    uint64_t db_bytes;
    double rows; /* nodes + edges + graphs */
} plan_totals;

static int plan_totals_read(sqlite3 *db, plan_totals *t)
{
    int64_t pages = pragma_int(db, "PRAGMA page_count");
    int64_t free_pages = pragma_int(db, "PRAGMA freelist_count");
    int64_t page_size = pragma_int(db, "PRAGMA page_size");
    if (pages < 0 || free_pages < 0 || page_size < 0)
        return -1;
    t->db_bytes = (uint64_t)(pages - free_pages) * (uint64_t)page_size;
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(
        db, "SELECT count(*) + total(node_count) + total(edge_count) FROM graphs", -1, &s, NULL);
    if (rc == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        t->rows = sqlite3_column_double(s, 0);
    else
        rc = SQLITE_ERROR;
    sqlite3_finalize(s);
    return rc == SQLITE_OK ? 0 : -1;
}

/* The id below which `keep` newest top-level graphs (of the owner) leave
 * the rest: 0 when there are no more than `keep`.  -1 on failure. */
static int64_t keep_bound(sqlite3 *db, const sc_prune_policy *p)
{
    sqlite3_stmt *s = NULL;
    const char *sql = p->any_owner ? "SELECT graph FROM graphs WHERE parent_graph IS NULL"
                                     " ORDER BY graph DESC LIMIT 1 OFFSET ?1"
                                   : "SELECT graph FROM graphs WHERE parent_graph IS NULL"
                                     " AND owner_uid = ?2 AND host = ?3"
                                     " ORDER BY graph DESC LIMIT 1 OFFSET ?1";
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)(p->keep - 1));
    if (!p->any_owner) {
        sqlite3_bind_int64(s, 2, p->uid);
        sqlite3_bind_text(s, 3, p->host, -1, SQLITE_STATIC);
    }
    int rc = sqlite3_step(s);
    int64_t bound = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
    sqlite3_finalize(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? bound : -1;
}

/* Walk the candidates oldest first and name those the policy takes; the
 * first one none of its parts takes ends the walk. */
static int plan_walk(sqlite3 *db, const sc_prune_policy *p, const plan_totals *t, int64_t bound,
                     sc_prune_plan *plan)
{
    sqlite3_stmt *s = NULL;
    const char *sql = p->any_owner ? "SELECT graph, created_at, node_count, edge_count FROM graphs"
                                     " WHERE parent_graph IS NULL AND pinned = 0 ORDER BY graph"
                                   : "SELECT graph, created_at, node_count, edge_count FROM graphs"
                                     " WHERE parent_graph IS NULL AND pinned = 0 AND owner_uid = ?1"
                                     " AND host = ?2"
                                     " ORDER BY graph";
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return -1;
    if (!p->any_owner) {
        sqlite3_bind_int64(s, 1, p->uid);
        sqlite3_bind_text(s, 2, p->host, -1, SQLITE_STATIC);
    }
    char cutoff[STORE_TIME_BUF];
    store_time_format(p->before_ms, cutoff);
    double per_row = t->rows > 0 ? (double)t->db_bytes / t->rows : 0;
    uint64_t excess = p->max_bytes && t->db_bytes > p->max_bytes ? t->db_bytes - p->max_bytes : 0;
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(s, 0);
        const char *created = (const char *)sqlite3_column_text(s, 1);
        uint64_t nodes = (uint64_t)sqlite3_column_int64(s, 2);
        uint64_t bytes =
            (uint64_t)(per_row * (double)(1 + nodes + (uint64_t)sqlite3_column_int64(s, 3)));
        bool old = p->has_before && created && strcmp(created, cutoff) < 0;
        if (!old && !(bound && id < bound) && excess == 0)
            break;
        if (plan->count == p->limit) {
            plan->has_more = true;
            break;
        }
        if (plan->count == cap) {
            size_t want = cap ? 2 * cap : 256;
            int64_t *more = realloc(plan->ids, want * sizeof *more);
            if (!more) {
                sqlite3_finalize(s);
                return -2;
            }
            plan->ids = more;
            cap = want;
        }
        plan->ids[plan->count++] = id;
        plan->nodes += nodes;
        plan->bytes += bytes;
        excess = excess > bytes ? excess - bytes : 0;
    }
    sqlite3_finalize(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

void store_sqlite_plan(sqlite3 *db, sc_store_read *q)
{
    const sc_prune_policy *p = &q->prune;
    sc_prune_plan *plan = calloc(1, sizeof *plan);
    if (!plan) {
        q->rc = SC_STORE_ENOMEM;
        snprintf(q->errmsg, sizeof q->errmsg, "out of memory");
        return;
    }
    q->plan = plan;
    /* One read transaction: the size, the bound and the walk see one snapshot. */
    if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
        plan_fail(db, q);
        return;
    }
    plan_totals t = {0};
    int64_t bound = 0;
    int rc = plan_totals_read(db, &t);
    if (rc == 0 && p->keep && (bound = keep_bound(db, p)) < 0)
        rc = -1;
    if (rc == 0)
        rc = plan_walk(db, p, &t, bound, plan);
    plan->db_bytes = t.db_bytes;
    if (rc == -2) {
        q->rc = SC_STORE_ENOMEM;
        snprintf(q->errmsg, sizeof q->errmsg, "out of memory");
    } else if (rc != 0) {
        plan_fail(db, q);
    }
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
}
