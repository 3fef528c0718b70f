/*
 * store_sqlite_check.c - the SQLite backend's integrity check
 * (sc_store_check, docs/operations.md "Integrity").
 *
 * Two parts.  The cheap one runs at every start, before the pending rows
 * of a dead daemon are deleted (which would turn a graph that is both
 * pending and visible into one without nodes), so its cost must not grow
 * with the number of nodes: it reads the schema, the pending_graphs rows
 * (few), one index probe per graph into node_chunks and graph_index (each
 * graph's first run and first part), and checks the newest graph whole,
 * the one a torn commit would have left.  The full one (--check-db) adds
 * SQLite's PRAGMA integrity_check, every graph checked whole, and rows
 * left behind by no graph.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sc_schema.h"
#include "store_sqlite.h"

/* Both parts name these two alike. */
#define FIRST_RUN_MISSING  "its first node row (node 0) is missing"
#define FIRST_PART_MISSING "its first reachability index part (node 0) is missing"

/* What one check run reports problems to. */
typedef struct checker {
    sqlite3 *db;
    sc_store_problem_fn fn;
    void *ctx;
    size_t problems;
    char *err;
    size_t errlen;
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

/* A query that could not run: the check cannot go on. */
static int failed(checker *k, const char *what)
{
    snprintf(k->err, k->errlen, "%s: %s", what, sqlite3_errmsg(k->db));
    return sqlite3_errcode(k->db) == SQLITE_NOMEM ? SC_STORE_ENOMEM : SC_STORE_EIO;
}

static int prepare(checker *k, const char *sql, sqlite3_stmt **s)
{
    return sqlite3_prepare_v2(k->db, sql, -1, s, NULL) == SQLITE_OK ? 0 : failed(k, "preparing");
}

/* Each row's first column is a graph id of which `what` holds. */
static int each_graph(checker *k, const char *sql, const char *what)
{
    sqlite3_stmt *s;
    int rc = prepare(k, sql, &s);
    if (rc)
        return rc;
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        int64_t g = sqlite3_column_int64(s, 0);
        problem(k, g, "graph %" PRId64 ": %s", g, what);
    }
    sqlite3_finalize(s);
    return step == SQLITE_DONE ? 0 : failed(k, what);
}

/* The objects every current database has; a missing one is named. */
static int check_objects(checker *k)
{
    static const char *const names[] = {
        "capture_log",
        "graphs",
        "node_chunks",
        "graph_index",
        "pending_graphs",
        "captures",
        "nodes",
        "edges",
        "node_chunks_by_graph",
        "graph_index_by_graph",
        "graphs_by_label",
        "graphs_by_owner",
        "graphs_by_parent",
        "capture_log_by_time",
        "capture_log_by_outcome",
        "capture_log_by_owner",
    };
    sqlite3_stmt *s;
    int rc = prepare(k, "SELECT 1 FROM sqlite_master WHERE name = ?1", &s);
    if (rc)
        return rc;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        sqlite3_bind_text(s, 1, names[i], -1, SQLITE_STATIC);
        int step = sqlite3_step(s);
        sqlite3_reset(s);
        if (step == SQLITE_DONE)
            problem(k, 0, "the schema lacks %s", names[i]);
        else if (step != SQLITE_ROW) {
            sqlite3_finalize(s);
            return failed(k, "reading the schema");
        }
    }
    sqlite3_finalize(s);
    return 0;
}

/* A graph whose index parts together would exceed SQLite's largest value
 * is stored without any (store_sqlite_write.c, index_wanted). */
static bool index_expected(checker *k, int64_t nodes, int64_t edges)
{
    return 4 * nodes + 8 * edges + 64 <= (int64_t)sqlite3_limit(k->db, SQLITE_LIMIT_LENGTH, -1);
}

/* The node runs of graph g: consecutive from 0, nodes and edges adding up
 * to its graphs row's counts. */
static int check_runs(checker *k, int64_t g, int64_t nodes, int64_t edges)
{
    sqlite3_stmt *s;
    int rc = prepare(k,
                     "SELECT lo, json_array_length(nodes), (SELECT coalesce(sum("
                     "json_array_length(j.value, '$[4]')), 0) FROM json_each(c.nodes) AS j)"
                     " FROM node_chunks AS c WHERE graph = ?1 ORDER BY lo",
                     &s);
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, g);
    int64_t next = 0, got_edges = 0;
    bool gap = false;
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        int64_t lo = sqlite3_column_int64(s, 0);
        if (lo != next && !gap) {
            if (next == 0)
                problem(k, g, "graph %" PRId64 ": " FIRST_RUN_MISSING, g);
            else
                problem(k, g, "graph %" PRId64 ": node rows %" PRId64 " to %" PRId64 " are missing",
                        g, next, lo - 1);
            gap = true;
        }
        next = lo + sqlite3_column_int64(s, 1);
        got_edges += sqlite3_column_int64(s, 2);
    }
    sqlite3_finalize(s);
    if (step != SQLITE_DONE)
        return failed(k, "reading node rows");
    if (!gap && next == 0 && nodes > 0) {
        problem(k, g, "graph %" PRId64 ": " FIRST_RUN_MISSING, g);
        gap = true;
    }
    if (!gap && next != nodes)
        problem(k, g,
                "graph %" PRId64 ": its node rows hold %" PRId64
                " nodes, its node count says %" PRId64,
                g, next, nodes);
    if (got_edges != edges)
        problem(k, g,
                "graph %" PRId64 ": its node rows hold %" PRId64
                " edges, its edge count says %" PRId64,
                g, got_edges, edges);
    return 0;
}

/* The reachability index parts of graph g: consecutive from 0, adding up
 * to its counts, blobs of the stated sizes. */
static int check_parts(checker *k, int64_t g, int64_t nodes, int64_t edges)
{
    sqlite3_stmt *s;
    int rc = prepare(k,
                     "SELECT lo, node_count, edge_count, length(streams), length(edges)"
                     " FROM graph_index WHERE graph = ?1 ORDER BY lo",
                     &s);
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, g);
    int64_t next = 0, got_edges = 0, parts = 0;
    bool bad = false;
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        int64_t lo = sqlite3_column_int64(s, 0), n = sqlite3_column_int64(s, 1),
                e = sqlite3_column_int64(s, 2);
        parts++;
        if (lo != next && !bad) {
            if (next == 0)
                problem(k, g, "graph %" PRId64 ": " FIRST_PART_MISSING, g);
            else
                problem(k, g,
                        "graph %" PRId64 ": the reachability index part of nodes %" PRId64
                        " to %" PRId64 " is missing",
                        g, next, lo - 1);
            bad = true;
        }
        if (sqlite3_column_int64(s, 3) != 4 * n || sqlite3_column_int64(s, 4) != 8 * e) {
            problem(k, g,
                    "graph %" PRId64 ": the reachability index part at node %" PRId64
                    " has blobs of the wrong size",
                    g, lo);
            bad = true;
        }
        next = lo + n;
        got_edges += e;
    }
    sqlite3_finalize(s);
    if (step != SQLITE_DONE)
        return failed(k, "reading index parts");
    if (parts == 0) {
        if (index_expected(k, nodes, edges))
            problem(k, g, "graph %" PRId64 ": " FIRST_PART_MISSING, g);
        return 0;
    }
    if (!bad && (next != nodes || got_edges != edges))
        problem(k, g,
                "graph %" PRId64 ": its reachability index covers %" PRId64 " nodes and %" PRId64
                " edges, its counts say %" PRId64 " and %" PRId64,
                g, next, got_edges, nodes, edges);
    return 0;
}

/* Graph g checked whole: its node rows and its index parts. */
static int check_graph(checker *k, int64_t g, int64_t nodes, int64_t edges)
{
    int rc = check_runs(k, g, nodes, edges);
    return rc ? rc : check_parts(k, g, nodes, edges);
}

/* Every graph whole (full), or only the newest. */
static int check_graphs(checker *k, bool all)
{
    sqlite3_stmt *s;
    int rc = prepare(k,
                     all ? "SELECT graph, node_count, edge_count FROM graphs ORDER BY graph"
                         : "SELECT graph, node_count, edge_count FROM graphs ORDER BY graph DESC "
                           "LIMIT 1",
                     &s);
    if (rc)
        return rc;
    int step;
    while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW)
        rc = check_graph(k, sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1),
                         sqlite3_column_int64(s, 2));
    sqlite3_finalize(s);
    if (rc)
        return rc;
    return step == SQLITE_DONE ? 0 : failed(k, "reading graphs");
}

static int check_cheap(checker *k)
{
    int rc = check_objects(k);
    if (rc || k->problems)
        return rc; /* the queries below need those objects */
    rc = each_graph(k,
                    "SELECT p.graph FROM pending_graphs AS p JOIN graphs AS g ON g.graph = p.graph",
                    "it is visible while still listed as pending (a partial commit)");
    if (!rc)
        rc = each_graph(k,
                        "SELECT graph FROM graphs AS g WHERE node_count > 0 AND NOT EXISTS"
                        " (SELECT 1 FROM node_chunks AS c WHERE c.graph = g.graph AND c.lo = 0)",
                        FIRST_RUN_MISSING);
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT graph FROM graphs AS g WHERE 4 * node_count + 8 * edge_count + 64 <= %d"
             " AND NOT EXISTS (SELECT 1 FROM graph_index AS i WHERE i.graph = g.graph"
             " AND i.lo = 0)",
             sqlite3_limit(k->db, SQLITE_LIMIT_LENGTH, -1));
    if (!rc)
        rc = each_graph(k, sql, FIRST_PART_MISSING);
    return rc ? rc : check_graphs(k, false);
}

static int check_engine(checker *k)
{
    sqlite3_stmt *s;
    int rc = prepare(k, "PRAGMA integrity_check", &s);
    if (rc)
        return rc;
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        const char *row = (const char *)sqlite3_column_text(s, 0);
        if (row && strcmp(row, "ok") != 0)
            problem(k, 0, "SQLite integrity check: %s", row);
    }
    sqlite3_finalize(s);
    return step == SQLITE_DONE ? 0 : failed(k, "PRAGMA integrity_check");
}

static int check_full(checker *k)
{
    int rc = check_engine(k);
    if (!rc)
        rc = check_objects(k);
    if (rc || k->problems)
        return rc;
    rc = each_graph(k,
                    "SELECT p.graph FROM pending_graphs AS p JOIN graphs AS g ON g.graph = p.graph",
                    "it is visible while still listed as pending (a partial commit)");
    if (!rc)
        rc = check_graphs(k, true);
    if (!rc)
        rc = each_graph(k,
                        "SELECT DISTINCT graph FROM node_chunks WHERE graph NOT IN"
                        " (SELECT graph FROM graphs UNION SELECT graph FROM pending_graphs)",
                        "node rows of a graph that does not exist");
    if (!rc)
        rc = each_graph(k,
                        "SELECT DISTINCT graph FROM graph_index WHERE graph NOT IN"
                        " (SELECT graph FROM graphs UNION SELECT graph FROM pending_graphs)",
                        "index parts of a graph that does not exist");
    return rc;
}

int store_sqlite_check_db(sqlite3 *db, bool full, sc_store_problem_fn fn, void *ctx,
                          size_t *problems, char *err, size_t errlen)
{
    checker k = {.db = db, .fn = fn, .ctx = ctx, .err = err, .errlen = errlen};
    int rc = full ? check_full(&k) : check_cheap(&k);
    *problems = k.problems;
    return rc;
}

int store_sqlite_check(const sc_store_config *cfg, bool full, sc_store_problem_fn fn, void *ctx,
                       size_t *problems, char *err, size_t errlen)
{
    sqlite3 *db = NULL;
    *problems = 0;
    int rc = sqlite3_open_v2(cfg->path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "cannot open the database: %s",
                 db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return SC_STORE_EIO;
    }
    sqlite3_busy_timeout(db, cfg->busy_timeout_ms > 0 ? cfg->busy_timeout_ms : 5000);
    checker k = {.db = db, .fn = fn, .ctx = ctx, .err = err, .errlen = errlen};
    sqlite3_stmt *s = NULL;
    int64_t version = -1;
    /* One read transaction: a daemon serving the file meanwhile commits
     * nothing the check sees half of. */
    int out = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK
                  ? prepare(&k, "PRAGMA user_version", &s)
                  : failed(&k, "BEGIN");
    if (!out && sqlite3_step(s) == SQLITE_ROW)
        version = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    int latest = sc_migration_count ? sc_migrations[sc_migration_count - 1].version : 0;
    if (!out && version < 0)
        out = failed(&k, "reading the schema version (is it an SQLite database?)");
    else if (!out && version != latest)
        problem(&k, 0,
                "its schema version is %" PRId64 ", this streamcapd's is %d: start a streamcapd "
                "of that version on it first",
                version, latest);
    else if (!out)
        out = full ? check_full(&k) : check_cheap(&k);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(db);
    *problems = k.problems;
    return out;
}
