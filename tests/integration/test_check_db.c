/*
 * test_check_db.c - streamcapd --check-db and the start-up check, on
 * copies of a real daemon's database corrupted with the sqlite3 shell.
 *
 * A clean copy passes (exit 0).  Each corruption is named with its graph
 * and makes the exit status 1: a missing run of node rows, a node count
 * that disagrees with the rows, a graph left listed as pending while
 * visible, a missing reachability index part.  The daemon refuses to
 * start on the ones its cheap start-up part covers, saying why; a
 * database that cannot be opened exits 3.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"

typedef struct fixture {
    sc_it_daemon *d;
    char *clean; /* a backup of the daemon's database */
    long long big, small, newest;
} fixture;

static long long submit_chain(sc_it_conn *c, int n)
{
    size_t cap = (size_t)n * 96 + 128, len = 0;
    char *p = malloc(cap);
    assert_non_null(p);
    len += (size_t)snprintf(p, cap, "{\"nodes\":[");
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(p + len, cap - len,
                                "%s{\"kind\":\"kernel\",\"function_name\":\"f%d\","
                                "\"grid\":[1,1,1],\"block\":[1,1,1]}",
                                i ? "," : "", i);
    len += (size_t)snprintf(p + len, cap - len, "],\"edges\":[");
    for (int i = 1; i < n; i++)
        len += (size_t)snprintf(p + len, cap - len, "%s[%d,%d]", i > 1 ? "," : "", i - 1, i);
    snprintf(p + len, cap - len, "]}");
    cJSON *r = sc_it_must_result(c, "graph.submit", "%s", p);
    long long g = (long long)sc_it_int(r, "graph");
    cJSON_Delete(r);
    free(p);
    return g;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->d = sc_it_must_start(NULL);
    sc_it_conn *c = sc_it_must_connect(f->d);
    f->big = submit_chain(c, 3000);
    f->small = submit_chain(c, 3);
    f->newest = submit_chain(c, 3);
    f->clean = sc_it_fmt("%s/clean.db", sc_it_daemon_dir(f->d));
    cJSON *r = sc_it_must_result(c, "store.backup", "{\"path\":\"%s\"}", f->clean);
    cJSON_Delete(r);
    sc_it_conn_close(c);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    sc_it_must_stop(f->d);
    sc_it_daemon_destroy(f->d);
    free(f->clean);
    free(f);
    return 0;
}

/* A copy of the clean database with `sql` run on it by the sqlite3 shell. */
static char *corrupt(fixture *f, const char *name, const char *sql)
{
    char *copy = sc_it_fmt("%s/%s.db", sc_it_daemon_dir(f->d), name);
    char *cmd = sc_it_fmt("cp '%s' '%s' && sqlite3 '%s' \"%s\"", f->clean, copy, copy, sql);
    if (system(cmd) != 0)
        fail_msg("could not corrupt a copy: %s", cmd);
    free(cmd);
    return copy;
}

/* Run --check-db on `db`: its exit status, its standard output in *out. */
static int check_db(fixture *f, const char *db, char **out)
{
    const char *const args[] = {"--check-db", "--db", db, NULL};
    int status = -1;
    assert_int_equal(sc_it_run_daemon(sc_it_daemon_dir(f->d), args, 60000, &status, out, NULL), 0);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* --check-db finds `want` (exit 1); with `refused` the daemon will not
 * start on it either, and says so naming the problem. */
static void expect_problem(fixture *f, const char *db, const char *want, bool refused)
{
    char *out = NULL;
    int rc = check_db(f, db, &out);
    if (rc != 1 || !strstr(out, want))
        fail_msg("--check-db %s: exit %d, output:\n%s\n(wanted a line with \"%s\")", db, rc, out,
                 want);
    free(out);
    if (!refused)
        return;
    sc_it_daemon *d;
    assert_int_equal(sc_it_daemon_create(&d), 0);
    const char *const extra[] = {"--db", db, NULL};
    int start = sc_it_daemon_start(d, extra);
    char *err = sc_it_read_file(sc_it_daemon_stderr_path(d));
    if (start != -ECHILD || !err || !strstr(err, "start-up integrity check") || !strstr(err, want))
        fail_msg("streamcapd on %s: start %d, stderr:\n%s", db, start, err ? err : "(none)");
    free(err);
    sc_it_daemon_destroy(d);
}

static void test_clean_passes(void **state)
{
    fixture *f = *state;
    char *out = NULL;
    assert_int_equal(check_db(f, f->clean, &out), 0);
    if (!strstr(out, ": ok"))
        fail_msg("--check-db on a clean database printed %s", out);
    free(out);
}

static void test_missing_node_run(void **state)
{
    fixture *f = *state;
    char *sql = sc_it_fmt("DELETE FROM node_chunks WHERE graph = %lld AND lo = (SELECT lo FROM "
                          "node_chunks WHERE graph = %lld ORDER BY lo LIMIT 1 OFFSET 5)",
                          f->big, f->big);
    char *db = corrupt(f, "run", sql);
    char *want = sc_it_fmt("graph %lld: node rows ", f->big);
    /* A run in the middle of an older graph: only the full check sees it. */
    expect_problem(f, db, want, false);
    free(want);
    free(sql);
    free(db);
}

static void test_missing_first_run(void **state)
{
    fixture *f = *state;
    char *sql = sc_it_fmt("DELETE FROM node_chunks WHERE graph = %lld", f->small);
    char *db = corrupt(f, "first", sql);
    char *want = sc_it_fmt("graph %lld: its first node row (node 0) is missing", f->small);
    expect_problem(f, db, want, true);
    free(want);
    free(sql);
    free(db);
}

static void test_wrong_node_count(void **state)
{
    fixture *f = *state;
    char *sql =
        sc_it_fmt("UPDATE graphs SET node_count = node_count + 1 WHERE graph = %lld", f->newest);
    char *db = corrupt(f, "count", sql);
    char *want =
        sc_it_fmt("graph %lld: its node rows hold 3 nodes, its node count says 4", f->newest);
    expect_problem(f, db, want, true);
    free(want);
    free(sql);
    free(db);
    /* An older graph's count: named by the full check. */
    sql = sc_it_fmt("UPDATE graphs SET edge_count = 7 WHERE graph = %lld", f->big);
    db = corrupt(f, "edges", sql);
    want = sc_it_fmt("graph %lld: its node rows hold 2999 edges, its edge count says 7", f->big);
    expect_problem(f, db, want, false);
    free(want);
    free(sql);
    free(db);
}

static void test_pending_graph_visible(void **state)
{
    fixture *f = *state;
    char *sql = sc_it_fmt("INSERT INTO pending_graphs (graph, session, started_at) VALUES "
                          "(%lld, 0, '2026-01-01T00:00:00.000Z')",
                          f->small);
    char *db = corrupt(f, "pending", sql);
    char *want = sc_it_fmt("graph %lld: it is visible while still listed as pending", f->small);
    expect_problem(f, db, want, true);
    free(want);
    free(sql);
    free(db);
}

static void test_missing_index_part(void **state)
{
    fixture *f = *state;
    char *sql = sc_it_fmt("DELETE FROM graph_index WHERE graph = %lld", f->small);
    char *db = corrupt(f, "index", sql);
    char *want =
        sc_it_fmt("graph %lld: its first reachability index part (node 0) is missing", f->small);
    expect_problem(f, db, want, true);
    free(want);
    free(sql);
    free(db);
}

static void test_unreadable(void **state)
{
    fixture *f = *state;
    char *db = sc_it_fmt("%s/no-such.db", sc_it_daemon_dir(f->d));
    char *out = NULL;
    assert_int_equal(check_db(f, db, &out), 3);
    free(out);
    free(db);
    /* A file that is no database at all. */
    db = sc_it_fmt("%s/garbage.db", sc_it_daemon_dir(f->d));
    char *cmd = sc_it_fmt("echo not a database > '%s'", db);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(check_db(f, db, &out), 3);
    free(out);
    free(cmd);
    free(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_passes),
        cmocka_unit_test(test_missing_node_run),
        cmocka_unit_test(test_missing_first_run),
        cmocka_unit_test(test_wrong_node_count),
        cmocka_unit_test(test_pending_graph_visible),
        cmocka_unit_test(test_missing_index_part),
        cmocka_unit_test(test_unreadable),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
