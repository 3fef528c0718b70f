/*
 * store_pg_check.c - the PostgreSQL backend's integrity check
 * (sc_store_check, docs/operations.md "Integrity").
 *
 * The server keeps its pages and indexes consistent itself (and has its
 * own tools for them: amcheck), so this checks the store's invariants:
 * no graph both visible and pending, each graph's node, edge and
 * graph_index rows against its counts, and no rows of a graph that does
 * not exist.  The cheap part, which every daemon runs at start before it
 * deletes its host's pending rows, costs index probes per graph and the
 * newest graph read whole; the full one reads every graph.  The check
 * reads one snapshot (REPEATABLE READ, READ ONLY): daemons serving the
 * database meanwhile are not disturbed, and their commits are seen whole
 * or not at all.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sc_schema.h"
#include "store_pg_int.h"

typedef struct checker {
    PGconn *conn;
    sc_store_problem_fn fn;
    void *ctx;
    size_t problems;
    char *err;
    size_t len;
} checker;

static void problem(checker *k, int64_t graph, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void problem(checker *k, int64_t graph, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    k->problems++;
    k->fn(k->ctx, graph, what);
}

static PGresult *query(checker *k, const char *sql, int *rc)
{
    return pg_run(k->conn, sql, NULL, PGRES_TUPLES_OK, "integrity check", rc, k->err, k->len);
}

/* Each row's first column is a graph of which `what` holds. */
static int each_graph(checker *k, const char *sql, const char *what)
{
    int rc = 0;
    PGresult *r = query(k, sql, &rc);
    if (!r)
        return rc;
    for (int i = 0; i < PQntuples(r); i++) {
        int64_t g = col_i64(r, i, 0);
        problem(k, g, "graph %" PRId64 ": %s", g, what);
    }
    PQclear(r);
    return 0;
}

/* Columns of check_whole's query, per graph. */
enum {
    W_GRAPH,
    W_NODES,
    W_NODE_ROWS,
    W_TOP_ID,
    W_EDGES,
    W_EDGE_ROWS,
    W_INDEXED,
    W_IX_NODES,
    W_IX_EDGES
};

static void whole_row(checker *k, const PGresult *r, int i)
{
    int64_t g = col_i64(r, i, W_GRAPH), n = col_i64(r, i, W_NODES),
            rows = col_i64(r, i, W_NODE_ROWS), e = col_i64(r, i, W_EDGES),
            erows = col_i64(r, i, W_EDGE_ROWS);
    if (rows != n)
        problem(k, g,
                "graph %" PRId64 ": its node rows hold %" PRId64
                " nodes, its node count says %" PRId64,
                g, rows, n);
    else if (col_i64(r, i, W_TOP_ID) != rows)
        problem(k, g, "graph %" PRId64 ": its node ids do not run from 0 to %" PRId64, g, n - 1);
    if (erows != e)
        problem(k, g,
                "graph %" PRId64 ": its edge rows hold %" PRId64
                " edges, its edge count says %" PRId64,
                g, erows, e);
    bool indexed = strcmp(PQgetvalue(r, i, W_INDEXED), "t") == 0;
    if (!indexed && 4 * n + 8 * e + 64 <= 1000000000)
        problem(k, g, "graph %" PRId64 ": its reachability index row is missing", g);
    else if (indexed && (col_i64(r, i, W_IX_NODES) != n || col_i64(r, i, W_IX_EDGES) != e))
        problem(k, g,
                "graph %" PRId64 ": its reachability index covers %" PRId64 " nodes and %" PRId64
                " edges, its counts say %" PRId64 " and %" PRId64,
                g, col_i64(r, i, W_IX_NODES), col_i64(r, i, W_IX_EDGES), n, e);
}

/* Every graph whole, or only the newest. */
static int check_whole(checker *k, bool all)
{
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT g.graph, g.node_count,"
             " (SELECT count(*) FROM nodes n WHERE n.graph = g.graph),"
             " (SELECT coalesce(max(id) + 1, 0) FROM nodes n WHERE n.graph = g.graph),"
             " g.edge_count, (SELECT count(*) FROM edges e WHERE e.graph = g.graph),"
             " i.graph IS NOT NULL, i.node_count, i.edge_count"
             " FROM graphs g LEFT JOIN graph_index i ON i.graph = g.graph %s",
             all ? "ORDER BY g.graph" : "ORDER BY g.graph DESC LIMIT 1");
    int rc = 0;
    PGresult *r = query(k, sql, &rc);
    if (!r)
        return rc;
    for (int i = 0; i < PQntuples(r); i++)
        whole_row(k, r, i);
    PQclear(r);
    return 0;
}

static int check_cheap(checker *k)
{
    int rc =
        each_graph(k, "SELECT p.graph FROM pending_graphs p JOIN graphs g ON g.graph = p.graph",
                   "it is visible while still listed as pending (a partial commit)");
    if (!rc)
        rc = each_graph(k,
                        "SELECT graph FROM graphs g WHERE node_count > 0 AND NOT EXISTS"
                        " (SELECT 1 FROM nodes n WHERE n.graph = g.graph AND n.id = 0)",
                        "its first node row (node 0) is missing");
    return rc ? rc : check_whole(k, false);
}

static int check_full(checker *k)
{
    int rc =
        each_graph(k, "SELECT p.graph FROM pending_graphs p JOIN graphs g ON g.graph = p.graph",
                   "it is visible while still listed as pending (a partial commit)");
    if (!rc)
        rc = check_whole(k, true);
    static const char *const orphans[][2] = {
        {"nodes", "node rows of a graph that does not exist"},
        {"edges", "edge rows of a graph that does not exist"},
        {"graph_index", "an index row of a graph that does not exist"},
    };
    for (size_t i = 0; !rc && i < sizeof orphans / sizeof orphans[0]; i++) {
        char sql[512];
        snprintf(sql, sizeof sql,
                 "SELECT DISTINCT t.graph FROM %s t WHERE NOT EXISTS (SELECT 1 FROM graphs g"
                 " WHERE g.graph = t.graph) AND NOT EXISTS (SELECT 1 FROM pending_graphs p"
                 " WHERE p.graph = t.graph) ORDER BY 1",
                 orphans[i][0]);
        rc = each_graph(k, sql, orphans[i][1]);
    }
    return rc;
}

int store_pg_check_conn(PGconn *conn, bool full, sc_store_problem_fn fn, void *ctx,
                        size_t *problems, char *err, size_t len)
{
    checker k = {.conn = conn, .fn = fn, .ctx = ctx, .err = err, .len = len};
    int rc = full ? check_full(&k) : check_cheap(&k);
    *problems = k.problems;
    return rc;
}

int store_pg_check(const sc_store_config *cfg, bool full, sc_store_problem_fn fn, void *ctx,
                   size_t *problems, char *err, size_t len)
{
    *problems = 0;
    int rc = 0;
    PGconn *c = pg_connect(cfg->path, err, len, &rc);
    if (!c)
        return rc;
    checker k = {.conn = c, .fn = fn, .ctx = ctx, .err = err, .len = len};
    rc = pg_exec(c, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", NULL, "integrity check", err,
                 len, NULL);
    PGresult *r =
        rc ? NULL : query(&k, "SELECT coalesce(max(version), 0) FROM schema_migrations", &rc);
    int latest = 0;
    for (size_t i = 0; i < sc_pg_migration_count; i++)
        if (sc_pg_migrations[i].version > latest)
            latest = sc_pg_migrations[i].version;
    if (r && col_i64(r, 0, 0) != latest)
        problem(&k, 0,
                "its schema version is %" PRId64 ", this streamcapd's is %d: start a streamcapd "
                "of that version on it first",
                col_i64(r, 0, 0), latest);
    else if (r)
        rc = full ? check_full(&k) : check_cheap(&k);
    PQclear(r);
    PQclear(PQexec(c, "COMMIT"));
    PQfinish(c);
    *problems = k.problems;
    return rc;
}
