/*
 * Hosts (docs/design.md, "Storage backends"): --host-name stored on every
 * row and returned by graph.get, graph.list and log.list, the host filter
 * of the lists, server.info's backend and host, the default host name and
 * the refusal of a PostgreSQL URI by a build without that backend.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "harness.h"
#include "itgraph.h"

static int64_t stored_graph(sc_it_conn *c, const char *label)
{
    int64_t s = sc_it_open_session(c, label);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":0}", (long long)s);
    sc_it_must_ok(c, "capture.record_kernel",
                  "{\"session\":%lld,\"stream\":0,\"function_name\":\"k\",\"num_blocks\":1,"
                  "\"threads_per_block\":32}",
                  (long long)s);
    cJSON *end =
        sc_it_must_result(c, "capture.end", "{\"session\":%lld,\"stream\":0}", (long long)s);
    int64_t g = sc_it_int(end, "graph");
    cJSON_Delete(end);
    return g;
}

static int count(const cJSON *result, const char *key)
{
    return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(result, key));
}

/* The host is stored on the rows, returned everywhere, and filters. */
static void test_host_stored_returned_filtered(void **state)
{
    (void)state;
    const char *extra[] = {"--host-name", "gpu-17", NULL};
    sc_it_daemon *d = sc_it_must_start(extra);
    sc_it_conn *c = sc_it_must_connect(d);
    int64_t g = stored_graph(c, "h");

    cJSON *info = sc_it_must_result(c, "server.info", "{}");
    assert_string_equal(sc_it_str(info, "backend"), "sqlite");
    assert_string_equal(sc_it_str(info, "host"), "gpu-17");
    cJSON_Delete(info);

    cJSON *get = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", (long long)g);
    assert_string_equal(sc_it_str(get, "host"), "gpu-17");
    cJSON_Delete(get);

    cJSON *list = sc_it_must_result(c, "graph.list", "{}");
    assert_int_equal(count(list, "graphs"), 1);
    const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(list, "graphs"), 0);
    assert_string_equal(sc_it_str(first, "host"), "gpu-17");
    cJSON_Delete(list);
    list = sc_it_must_result(c, "graph.list", "{\"host\":\"gpu-17\"}");
    assert_int_equal(count(list, "graphs"), 1);
    cJSON_Delete(list);
    list = sc_it_must_result(c, "graph.list", "{\"host\":\"gpu-18\"}");
    assert_int_equal(count(list, "graphs"), 0);
    cJSON_Delete(list);

    cJSON *log = sc_it_must_result(c, "log.list", "{}");
    assert_int_equal(count(log, "entries"), 1);
    first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(log, "entries"), 0);
    assert_string_equal(sc_it_str(first, "host"), "gpu-17");
    cJSON_Delete(log);
    log = sc_it_must_result(c, "log.list", "{\"host\":\"gpu-18\"}");
    assert_int_equal(count(log, "entries"), 0);
    cJSON_Delete(log);
    log = sc_it_must_result(c, "log.list", "{\"host\":\"gpu-17\"}");
    assert_int_equal(count(log, "entries"), 1);
    cJSON_Delete(log);
    sc_it_must_error(c, -32602, NULL, "graph.list", "{\"host\":7}");
    sc_it_conn_close(c);
    sc_it_must_stop(d);

    /* In the file, on the session, capture and graph rows alike. */
    sqlite3 *db;
    assert_int_equal(sqlite3_open(sc_it_daemon_db(d), &db), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT (SELECT group_concat(host) FROM capture_log),"
                                        " (SELECT group_concat(host) FROM graphs)",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "gpu-17");
    assert_string_equal((const char *)sqlite3_column_text(st, 1), "gpu-17");
    sqlite3_finalize(st);
    sqlite3_close(db);
    sc_it_daemon_destroy(d);
}

/* Without --host-name the host is the machine's (gethostname). */
static void test_default_host_name(void **state)
{
    (void)state;
    char want[256] = "";
    assert_int_equal(gethostname(want, sizeof want - 1), 0);
    sc_it_daemon *d = sc_it_must_start(NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    stored_graph(c, "d");
    cJSON *info = sc_it_must_result(c, "server.info", "{}");
    assert_string_equal(sc_it_str(info, "host"), want);
    cJSON_Delete(info);
    cJSON *log = sc_it_must_result(c, "log.list", "{}");
    const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(log, "entries"), 0);
    assert_string_equal(sc_it_str(e, "host"), want);
    cJSON_Delete(log);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

/* Takes a version-9 file back to version 8: no links from body graphs to
 * the nodes that hold them (schema/009_bodies.sql). */
/* Takes a version-14 file back to version 13: no pinned column, no host
 * and fingerprint indexes (schema/014_retention.sql). */
#define V14_TO_V13                                                                                 \
    "DROP INDEX graphs_by_host; DROP INDEX graphs_by_fp_structure; DROP INDEX graphs_by_fp_full;"  \
    " DROP INDEX capture_log_by_host; ALTER TABLE graphs DROP COLUMN pinned;"

/* Takes a version-13 file back to version 12: no accesses view
 * (schema/013_accesses.sql). */
#define V13_TO_V12 "DROP VIEW accesses;"

/* Takes a version-12 file back to version 11 and below: no fingerprint
 * columns (schema/012_fingerprints.sql). */
#define V12_TO_V9                                                                                  \
    "ALTER TABLE graphs DROP COLUMN fp_structure; ALTER TABLE graphs DROP COLUMN fp_full;"

#define V9_TO_V8                                                                                   \
    "DROP INDEX graphs_by_parent; ALTER TABLE graphs DROP COLUMN parent_graph;"                    \
    " ALTER TABLE graphs DROP COLUMN parent_node; ALTER TABLE graphs DROP COLUMN parent_index;"

/* Takes a version-8 file back to version 7's graph_index, a row per graph
 * keyed by it (schema/001_init.sql).  The graphs here are small: one part
 * each. */
#define V8_TO_V7                                                                                   \
    "CREATE TABLE index_v7 (graph INTEGER PRIMARY KEY, node_count INTEGER NOT NULL,"               \
    " edge_count INTEGER NOT NULL, streams BLOB NOT NULL, edges BLOB NOT NULL,"                    \
    " CHECK (length(streams) = 4 * node_count), CHECK (length(edges) = 8 * edge_count));"          \
    "INSERT INTO index_v7 SELECT graph, node_count, edge_count, streams, edges FROM graph_index"   \
    " WHERE lo = 0;"                                                                               \
    "DROP TABLE graph_index; ALTER TABLE index_v7 RENAME TO graph_index;"

/* Takes a version-7 file back to version 6's node_chunks, a WITHOUT ROWID
 * table keyed by (graph, lo) (schema/006_node_chunks.sql).  The views name
 * the table and stay as they are: legacy_alter_table renames the copy
 * without looking into them. */
#define V7_TO_V6                                                                                   \
    "CREATE TABLE chunks_v6 (graph INTEGER NOT NULL, lo INTEGER NOT NULL, nodes TEXT NOT NULL,"    \
    " PRIMARY KEY (graph, lo)) WITHOUT ROWID;"                                                     \
    "INSERT INTO chunks_v6 SELECT graph, lo, nodes FROM node_chunks;"                              \
    "DROP TABLE node_chunks;"                                                                      \
    "PRAGMA legacy_alter_table = ON; ALTER TABLE chunks_v6 RENAME TO node_chunks;"                 \
    "PRAGMA legacy_alter_table = OFF;"

/* Takes a version-6 file back to the node_rows of version 5
 * (schema/005_packed_rows.sql), rows and views included. */
#define V6_TO_V5                                                                                   \
    "CREATE TABLE node_rows (graph INTEGER NOT NULL, id INTEGER NOT NULL, kind TEXT NOT NULL,"     \
    " stream INTEGER NOT NULL, name TEXT NOT NULL, attrs TEXT, succ TEXT,"                         \
    " PRIMARY KEY (graph, id)) WITHOUT ROWID;"                                                     \
    "CREATE TABLE succ_v6 (graph INTEGER, src INTEGER, dst INTEGER,"                               \
    " PRIMARY KEY (graph, src, dst)) WITHOUT ROWID;"                                               \
    "INSERT INTO succ_v6 SELECT graph, src, dst FROM edges;"                                       \
    "INSERT INTO node_rows SELECT c.graph, c.lo + j.key, json_extract(j.value, '$[0]'),"           \
    " json_extract(j.value, '$[1]'), json_extract(j.value, '$[2]'),"                               \
    " json_extract(j.value, '$[3]'), (SELECT json_group_array(e.dst) FROM succ_v6 AS e"            \
    " WHERE e.graph = c.graph AND e.src = c.lo + j.key HAVING count(*) > 0)"                       \
    " FROM node_chunks AS c, json_each(c.nodes) AS j ORDER BY 1, 2;"                               \
    "DROP TABLE succ_v6;"                                                                          \
    "DROP VIEW nodes; DROP VIEW edges; DROP TABLE node_chunks;"                                    \
    "CREATE VIEW nodes (graph, id, kind, stream, name, num_blocks, threads_per_block, shared_mem," \
    " dir, size_bytes, src_device, dst_device, value, grid_y, grid_z, block_y, block_z, event) AS" \
    " SELECT graph, id, kind, stream, name, json_extract(attrs, '$[0]'),"                          \
    " json_extract(attrs, '$[1]'), json_extract(attrs, '$[2]'), json_extract(attrs, '$[3]'),"      \
    " json_extract(attrs, '$[4]'), json_extract(attrs, '$[5]'), json_extract(attrs, '$[6]'),"      \
    " json_extract(attrs, '$[7]'), json_extract(attrs, '$[8]'), json_extract(attrs, '$[9]'),"      \
    " json_extract(attrs, '$[10]'), json_extract(attrs, '$[11]'), json_extract(attrs, '$[12]')"    \
    " FROM node_rows;"                                                                             \
    "CREATE VIEW edges (graph, src, dst) AS SELECT n.graph, n.id, s.value"                         \
    " FROM node_rows AS n, json_each(n.succ) AS s;"

/* Takes a version-5 file back to the node and edge tables of version 4
 * (schema/002_cuda.sql, without its CHECKs), rows included. */
#define V5_TO_V4                                                                                   \
    "CREATE TABLE nodes_v4 (graph INTEGER NOT NULL, id INTEGER NOT NULL, kind TEXT NOT NULL,"      \
    " stream INTEGER NOT NULL, name TEXT NOT NULL, num_blocks INTEGER, threads_per_block INTEGER," \
    " shared_mem INTEGER, dir TEXT, size_bytes INTEGER, src_device INTEGER, dst_device INTEGER,"   \
    " value INTEGER, grid_y INTEGER, grid_z INTEGER, block_y INTEGER, block_z INTEGER,"            \
    " event INTEGER, PRIMARY KEY (graph, id)) WITHOUT ROWID;"                                      \
    "INSERT INTO nodes_v4 SELECT * FROM nodes;"                                                    \
    "CREATE TABLE edges_v4 (graph INTEGER NOT NULL, src INTEGER NOT NULL, dst INTEGER NOT NULL,"   \
    " PRIMARY KEY (graph, src, dst)) WITHOUT ROWID;"                                               \
    "INSERT INTO edges_v4 SELECT * FROM edges;"                                                    \
    "DROP VIEW nodes; DROP VIEW edges; DROP TABLE node_rows;"                                      \
    "ALTER TABLE nodes_v4 RENAME TO nodes; ALTER TABLE edges_v4 RENAME TO edges;"

/* Every node_chunks row, key and text, in key order: one text to compare. */
static char *runs_text(sqlite3 *db)
{
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT group_concat(graph || ' ' || lo || ' ' || nodes,"
                                        " char(10)) FROM (SELECT graph, lo, nodes"
                                        " FROM node_chunks ORDER BY graph, lo)",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    const char *t = (const char *)sqlite3_column_text(st, 0);
    assert_non_null(t);
    char *copy = strdup(t);
    assert_non_null(copy);
    sqlite3_finalize(st);
    return copy;
}

/* The graph.get text of each graph, a daemon stopped, the file taken back
 * by `downgrade` with user_version `version`, the daemon started again:
 * every graph reads back byte for byte, and the file is at the latest
 * version with node_chunks rows. */
static void check_upgrade(const char *downgrade, int version)
{
    sc_it_daemon *d = sc_it_must_start(NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    int64_t g[3];
    char *before[3];
    for (int i = 0; i < 3; i++) {
        g[i] = sc_itg_capture_random(c, "old", 200 + 100 * (uint32_t)i, 1 + 3 * (uint32_t)i,
                                     17 + (uint64_t)i);
        cJSON *get = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", (long long)g[i]);
        before[i] = sc_it_json_text(get);
        cJSON_Delete(get);
    }
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(sc_it_daemon_db(d), &db), SQLITE_OK);
    char *runs_before = runs_text(db);
    char *err = NULL, *sql = NULL;
    assert_true(asprintf(&sql, "%sPRAGMA user_version = %d;", downgrade, version) > 0);
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
        fail_msg("making a version-%d database: %s", version, err ? err : "?");
    free(sql);
    sqlite3_close(db);

    sc_it_must_restart(d, NULL);
    c = sc_it_must_connect(d);
    for (int i = 0; i < 3; i++) {
        cJSON *get = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", (long long)g[i]);
        char *after = sc_it_json_text(get);
        assert_string_equal(after, before[i]);
        free(after);
        free(before[i]);
        cJSON_Delete(get);
    }
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    assert_int_equal(sqlite3_open(sc_it_daemon_db(d), &db), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT (SELECT user_version FROM pragma_user_version),"
                                        " (SELECT type FROM sqlite_master WHERE name = 'edges'),"
                                        " (SELECT count(*) FROM node_chunks),"
                                        " (SELECT count(*) FROM sqlite_master"
                                        "  WHERE name = 'node_rows'),"
                                        " (SELECT count(*) FROM pragma_index_list('node_chunks')"
                                        "  WHERE name = 'node_chunks_by_graph' AND \"unique\"),"
                                        " (SELECT count(*) FROM graph_index WHERE lo = 0"
                                        "  AND graph IN (SELECT graph FROM graphs)),"
                                        " (SELECT count(*) FROM pragma_index_list('graph_index')"
                                        "  WHERE name = 'graph_index_by_graph' AND \"unique\"),"
                                        " (SELECT count(*) FROM pragma_table_info('nodes')"
                                        "  WHERE name LIKE 'cond\\_%' ESCAPE '\\')",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 14);
    assert_string_equal((const char *)sqlite3_column_text(st, 1), "view");
    /* The nodes view has a conditional's four columns (schema/011_conditional.sql). */
    assert_int_equal(sqlite3_column_int(st, 7), 4);
    /* From version 5 or older, 900 nodes in runs of 16. */
    if (version < 6)
        assert_int_equal(sqlite3_column_int(st, 2), 13 + 19 + 25);
    assert_int_equal(sqlite3_column_int(st, 3), 0);
    /* A rowid table, its key in an index (schema/007_node_chunks_rowid.sql). */
    assert_int_equal(sqlite3_column_int(st, 4), 1);
    /* Each graph's index one part, keyed by (graph, lo) (schema/008_index_parts.sql). */
    assert_int_equal(sqlite3_column_int(st, 5), 3);
    assert_int_equal(sqlite3_column_int(st, 6), 1);
    sqlite3_finalize(st);
    /* From version 6 on, the daemon's runs are kept as they were. */
    char *runs_after = runs_text(db);
    if (version >= 6)
        assert_string_equal(runs_after, runs_before);
    free(runs_after);
    free(runs_before);
    sqlite3_close(db);
    sc_it_daemon_destroy(d);
}

/* A version-7 database gets its graph_index rows as one part each, in place
 * (schema/008_index_parts.sql). */
/* A version-13 database gets the pinned column (every graph unpinned) and
 * the list indexes of schema/014_retention.sql. */
static void test_upgrade_from_version_13(void **state)
{
    (void)state;
    check_upgrade(V14_TO_V13, 13);
}

static void test_upgrade_from_version_7(void **state)
{
    (void)state;
    check_upgrade(V14_TO_V13 V13_TO_V12 V12_TO_V9 V9_TO_V8 V8_TO_V7, 7);
}

/* A version-6 database gets its node_chunks rows copied into a rowid table
 * in place (schema/007_node_chunks_rowid.sql), then its index in parts. */
static void test_upgrade_from_version_6(void **state)
{
    (void)state;
    check_upgrade(V14_TO_V13 V13_TO_V12 V12_TO_V9 V9_TO_V8 V8_TO_V7 V7_TO_V6, 6);
}

/* A version-5 database gets node_chunks in place (schema/006_node_chunks.sql),
 * then their rowid table. */
static void test_upgrade_from_version_5(void **state)
{
    (void)state;
    check_upgrade(V14_TO_V13 V13_TO_V12 V12_TO_V9 V9_TO_V8 V8_TO_V7 V7_TO_V6 V6_TO_V5, 5);
}

/* A version-4 database gets node_rows (schema/005_packed_rows.sql), then
 * node_chunks, in place. */
static void test_upgrade_from_version_4(void **state)
{
    (void)state;
    check_upgrade(V14_TO_V13 V13_TO_V12 V12_TO_V9 V9_TO_V8 V8_TO_V7 V7_TO_V6 V6_TO_V5 V5_TO_V4, 4);
}

/* A version-3 database gets the host columns in place; its rows become
 * the upgrading daemon's. */
static void test_upgrade_from_version_3(void **state)
{
    (void)state;
    /* A version-3 file: a daemon's database with the host columns and the
     * version taken back, as a version-3 daemon left it. */
    const char *first[] = {"--host-name", "old", NULL};
    sc_it_daemon *d = sc_it_must_start(first);
    sc_it_conn *c = sc_it_must_connect(d);
    int64_t g = stored_graph(c, "v3");
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(sc_it_daemon_db(d), &db), SQLITE_OK);
    char *err = NULL;
    if (sqlite3_exec(db,
                     V14_TO_V13 "ALTER TABLE capture_log DROP COLUMN host;"
                     "ALTER TABLE graphs DROP COLUMN host;"
                     "ALTER TABLE captures DROP COLUMN host;" V13_TO_V12 V12_TO_V9 V9_TO_V8 V8_TO_V7
                         V7_TO_V6 V6_TO_V5 V5_TO_V4 "PRAGMA user_version = 3;",
                     NULL, NULL, &err) != SQLITE_OK)
        fail_msg("making a version-3 database: %s", err ? err : "?");
    sqlite3_close(db);

    const char *second[] = {"--host-name", "new", NULL};
    sc_it_must_restart(d, second);
    c = sc_it_must_connect(d);
    cJSON *get = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", (long long)g);
    assert_string_equal(sc_it_str(get, "host"), "new");
    assert_string_equal(sc_it_str(get, "label"), "v3");
    cJSON_Delete(get);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    assert_int_equal(sqlite3_open(sc_it_daemon_db(d), &db), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT (SELECT user_version FROM pragma_user_version),"
                                        " (SELECT host FROM capture_log)",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 14);
    assert_string_equal((const char *)sqlite3_column_text(st, 1), "new");
    sqlite3_finalize(st);
    sqlite3_close(db);
    sc_it_daemon_destroy(d);
}

/* A PostgreSQL URI that cannot be served stops the start clearly: without
 * PostgreSQL built in, or with it and no server there. */
static void test_postgresql_uri_without_support(void **state)
{
    (void)state;
    sc_it_daemon *d;
    assert_int_equal(sc_it_daemon_create(&d), 0);
    const char *extra[] = {"--db", "postgresql://u:secret@db.example/streamcap", NULL};
    assert_int_equal(sc_it_daemon_start(d, extra), -ECHILD);
    char *text = sc_it_read_file(sc_it_daemon_stderr_path(d));
    assert_non_null(text);
#ifdef SC_HAVE_POSTGRESQL
    /* Built with it: the server cannot be reached, said without the password. */
    const char *want = "cannot connect to the database";
#else
    const char *want = "this streamcapd was built without PostgreSQL support";
#endif
    if (!strstr(text, want) || strstr(text, "secret"))
        fail_msg("stderr: %s", text);
    free(text);
    sc_it_daemon_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_stored_returned_filtered),
        cmocka_unit_test(test_default_host_name),
        cmocka_unit_test(test_upgrade_from_version_3),
        cmocka_unit_test(test_upgrade_from_version_4),
        cmocka_unit_test(test_upgrade_from_version_5),
        cmocka_unit_test(test_upgrade_from_version_6),
        cmocka_unit_test(test_upgrade_from_version_7),
        cmocka_unit_test(test_upgrade_from_version_13),
        cmocka_unit_test(test_postgresql_uri_without_support),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
