/*
 * store_sqlite_lists.c - the SQL of graph.list and log.list pages on the
 * SQLite backend, one statement per combination of filters.
 *
 * Each filter combination has its own statement so that the planner picks
 * the index that serves both the filter and the order (schema/README.md):
 * a generic "(?1 IS NULL OR label = ?1)" would make it scan.  Unused
 * parameter numbers in a variant are left out of its text, so binding them
 * is harmless.  Pages continue by key (the cursor), never by OFFSET.
 */
#include <stdio.h>
#include <string.h>

#include "store_sqlite.h"

/* One page's SELECT, `fp` the fingerprint column it filters on (or NULL). */
static void graphs_select(int variant, const char *fp, char *buf, size_t len)
{
    snprintf(buf, len,
             "SELECT " STORE_GRAPH_COLUMNS " FROM graphs WHERE graph < ?1%s%s%s%s%s"
             " AND (?6 IS NOT NULL OR parent_graph IS NULL)"
             " AND (?7 IS NULL OR parent_graph = ?7) ORDER BY graph DESC LIMIT ?4",
             variant & STORE_GRAPHS_BY_OWNER ? " AND owner_uid = ?2" : "",
             variant & STORE_GRAPHS_BY_LABEL ? " AND label = ?3" : "",
             variant & STORE_GRAPHS_BY_HOST ? " AND host = ?5" : "", fp ? " AND " : "",
             fp ? fp : "");
}

/* A fingerprint matches either column.  "fp_structure = ?8 OR fp_full =
 * ?8" in one SELECT makes SQLite gather every match from both indexes and
 * sort them before the LIMIT (50 times slower at 100,000 graphs, most of
 * them copies of a few captures); two index walks of at most a page each,
 * merged in order (the second leaves out what the first has), read no more
 * than two pages. */
void store_graphs_sql(int variant, char *buf, size_t len)
{
    if (!(variant & STORE_GRAPHS_BY_FP)) {
        graphs_select(variant, NULL, buf, len);
        return;
    }
    char a[STORE_LIST_SQL_MAX], b[STORE_LIST_SQL_MAX];
    graphs_select(variant, "fp_structure = ?8", a, sizeof a);
    graphs_select(variant, "fp_full = ?8 AND fp_structure IS NOT ?8", b, sizeof b);
    snprintf(buf, len,
             "SELECT * FROM (%s) UNION ALL SELECT * FROM (%s) ORDER BY graph DESC LIMIT ?4", a, b);
}

void store_log_sql(int variant, char *buf, size_t len)
{
    const char *cond[4];
    int n = 0;
    if (variant & STORE_LOG_CURSOR)
        cond[n++] = "(opened_at, session) < (?1, ?2)";
    if (variant & STORE_LOG_BY_OWNER)
        cond[n++] = "owner_uid = ?3";
    if (variant & STORE_LOG_BY_OUTCOME)
        cond[n++] = "outcome = ?4";
    if (variant & STORE_LOG_BY_HOST)
        cond[n++] = "host = ?6";
    char where[256] = "";
    for (int i = 0; i < n; i++) {
        size_t used = strlen(where);
        snprintf(where + used, sizeof where - used, "%s%s", i ? " AND " : " WHERE ", cond[i]);
    }
    snprintf(buf, len,
             "SELECT session, label, owner_uid, owner_pid, opened_at, ended_at, outcome,"
             " node_count, graph, graph_deleted_at, semantics, host"
             " FROM capture_log%s ORDER BY opened_at DESC, session DESC LIMIT ?5",
             where);
}
