/*
 * test_accesses.c - the buffer accesses of nodes through a real streamcapd:
 * kept by the record calls of both modes, capture.add_node and
 * graph.submit, returned by graph.get on another connection in the order
 * sent (absent when none), shown by the accesses SQL view, and every
 * malformed list refused naming the element and member, recording nothing.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "harness.h"

#define ACC2                                                                                       \
    "\"accesses\":[{\"address\":4096,\"size\":256,\"mode\":\"read\"},"                             \
    "{\"address\":140737488355327,\"size\":1,\"mode\":\"read_write\"}]"
#define ACC2_TEXT                                                                                  \
    "[{\"address\":4096,\"size\":256,\"mode\":\"read\"},"                                          \
    "{\"address\":140737488355327,\"size\":1,\"mode\":\"read_write\"}]"
#define ACC1      "\"accesses\":[{\"address\":8192,\"size\":64,\"mode\":\"write\"}]"
#define ACC1_TEXT "[{\"address\":8192,\"size\":64,\"mode\":\"write\"}]"

static long long open_session(sc_it_conn *c, bool cuda)
{
    cJSON *r = sc_it_must_result(c, "session.open", cuda ? "{\"semantics\":\"cuda\"}" : "{}");
    long long s = (long long)sc_it_int(r, "session");
    cJSON_Delete(r);
    return s;
}

static long long end_capture(sc_it_conn *c, long long s)
{
    cJSON *end = sc_it_must_result(c, "capture.end", "{\"session\":%lld,\"stream\":1}", s);
    long long g = (long long)sc_it_int(end, "graph");
    cJSON_Delete(end);
    return g;
}

/* Node `id` of graph g, read on a connection of its own, has `want` as its
 * accesses (NULL: no accesses member). */
static void expect_accesses(const sc_it_daemon *d, long long g, int id, const char *want)
{
    sc_it_conn *c = sc_it_must_connect(d);
    cJSON *graph = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", g);
    const cJSON *n = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(graph, "nodes"), id);
    assert_non_null(n);
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(n, "accesses");
    if (!want) {
        if (a)
            fail_msg("node %d has accesses: %s", id, sc_it_json_text(n));
    } else {
        if (!a)
            fail_msg("node %d has no accesses: %s", id, sc_it_json_text(n));
        char *text = sc_it_json_text(a);
        assert_string_equal(text, want);
        free(text);
    }
    cJSON_Delete(graph);
    sc_it_conn_close(c);
}

/* The accesses view's rows of graph g as "node.idx:mode@address+size,...". */
static char *view_rows(const sc_it_daemon *d, long long g)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(sc_it_daemon_db(d), &db, SQLITE_OPEN_READONLY, NULL),
                     SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT coalesce(group_concat(r, ','), '') FROM"
                                        " (SELECT node || '.' || idx || ':' || mode || '@' ||"
                                        " address || '+' || size AS r FROM accesses"
                                        " WHERE graph = ?1 ORDER BY node, idx)",
                                        -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_int64(st, 1, g);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    char *out = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    assert_non_null(out);
    return out;
}

/* Default mode: every record call takes them; a node sent without any,
 * or with an empty list, has none. */
static void test_default_mode(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    long long s = open_session(c, false);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":1}", s);
    sc_it_must_ok(c, "capture.record_kernel",
                  "{\"session\":%lld,\"stream\":1,\"function_name\":\"axpy\",\"num_blocks\":4,"
                  "\"threads_per_block\":128," ACC2 "}",
                  s);
    sc_it_must_ok(c, "capture.record_memcpy",
                  "{\"session\":%lld,\"stream\":1,\"name\":\"d2d\",\"dir\":\"device_to_device\","
                  "\"size_bytes\":64," ACC1 "}",
                  s);
    sc_it_must_ok(c, "capture.record_memset",
                  "{\"session\":%lld,\"stream\":1,\"name\":\"zero\",\"size_bytes\":64,"
                  "\"value\":0," ACC1 "}",
                  s);
    sc_it_must_ok(c, "capture.record_host_callback",
                  "{\"session\":%lld,\"stream\":1,\"label\":\"cb\"," ACC1 "}", s);
    sc_it_must_ok(c, "capture.record_memset",
                  "{\"session\":%lld,\"stream\":1,\"name\":\"plain\",\"size_bytes\":8,"
                  "\"value\":1,\"accesses\":[]}",
                  s);
    sc_it_must_ok(c, "capture.record_kernel",
                  "{\"session\":%lld,\"stream\":1,\"function_name\":\"k\",\"num_blocks\":1,"
                  "\"threads_per_block\":1,\"accesses\":null}",
                  s);
    long long g = end_capture(c, s);
    sc_it_conn_close(c);
    expect_accesses(*state, g, 0, ACC2_TEXT);
    for (int id = 1; id < 4; id++)
        expect_accesses(*state, g, id, ACC1_TEXT);
    expect_accesses(*state, g, 4, NULL);
    expect_accesses(*state, g, 5, NULL);
    char *rows = view_rows(*state, g);
    assert_string_equal(rows, "0.0:read@4096+256,0.1:read_write@140737488355327+1,"
                              "1.0:write@8192+64,2.0:write@8192+64,3.0:write@8192+64");
    free(rows);
}

/* Cuda mode: the record calls, capture.add_node (bare and whole) and
 * graph.submit nodes. */
static void test_cuda_mode_and_submit(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    long long s = open_session(c, true);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":1}", s);
    sc_it_must_ok(c, "capture.record_kernel",
                  "{\"session\":%lld,\"stream\":1,\"function_name\":\"k3\",\"grid\":[2,2,1],"
                  "\"block\":[32,1,1]," ACC2 "}",
                  s);
    sc_it_must_ok(c, "capture.record_memcpy",
                  "{\"session\":%lld,\"stream\":1,\"name\":\"c\",\"dir\":\"default\","
                  "\"size_bytes\":64," ACC1 "}",
                  s);
    sc_it_must_ok(c, "capture.add_node",
                  "{\"session\":%lld,\"stream\":1,\"deps\":[1],\"node\":{\"kind\":\"memset\","
                  "\"name\":\"m\",\"size_bytes\":64,\"value\":0," ACC1 "}}",
                  s);
    sc_it_must_ok(c, "capture.add_node",
                  "{\"session\":%lld,\"stream\":1,\"deps\":[2],\"kind\":\"empty\"," ACC2 "}", s);
    long long g = end_capture(c, s);
    cJSON *sub = sc_it_must_result(c, "graph.submit",
                                   "{\"nodes\":[{\"kind\":\"kernel\",\"function_name\":\"f\"," ACC2
                                   "},{\"kind\":\"memset\",\"name\":\"z\",\"size_bytes\":1,"
                                   "\"value\":0}],\"edges\":[[0,1]]}");
    long long sg = (long long)sc_it_int(sub, "graph");
    cJSON_Delete(sub);
    sc_it_conn_close(c);
    expect_accesses(*state, g, 0, ACC2_TEXT);
    expect_accesses(*state, g, 1, ACC1_TEXT);
    expect_accesses(*state, g, 2, ACC1_TEXT);
    expect_accesses(*state, g, 3, ACC2_TEXT);
    expect_accesses(*state, sg, 0, ACC2_TEXT);
    expect_accesses(*state, sg, 1, NULL);
    char *rows = view_rows(*state, sg);
    assert_string_equal(rows, "0.0:read@4096+256,0.1:read_write@140737488355327+1");
    free(rows);
}

typedef struct bad_case {
    const char *accesses; /* the value of "accesses" */
    const char *names;    /* what the message must name */
} bad_case;

static const bad_case bad_cases[] = {
    {"{}", "'accesses'"},
    {"[1]", "'accesses[0]'"},
    {"[{\"size\":1,\"mode\":\"read\"}]", "'accesses[0].address'"},
    {"[{\"address\":-1,\"size\":1,\"mode\":\"read\"}]", "'accesses[0].address'"},
    {"[{\"address\":1.5,\"size\":1,\"mode\":\"read\"}]", "'accesses[0].address'"},
    {"[{\"address\":\"1\",\"size\":1,\"mode\":\"read\"}]", "'accesses[0].address'"},
    {"[{\"address\":9007199254740993,\"size\":1,\"mode\":\"read\"}]", "'accesses[0].address'"},
    {"[{\"address\":1,\"size\":1,\"mode\":\"read\"},{\"address\":1,\"size\":1,\"mode\":\"read\"},"
     "{\"address\":1,\"size\":0,\"mode\":\"read\"}]",
     "'accesses[2].size'"},
    {"[{\"address\":1,\"mode\":\"read\"}]", "'accesses[0].size'"},
    {"[{\"address\":1,\"size\":1}]", "'accesses[0].mode'"},
    {"[{\"address\":1,\"size\":1,\"mode\":\"READ\"}]", "'accesses[0].mode'"},
    {"[{\"address\":1,\"size\":1,\"mode\":2}]", "'accesses[0].mode'"},
};

static void must_refuse(sc_it_conn *c, const char *method, const char *params, const char *field,
                        const char *names)
{
    cJSON *r = sc_it_call(c, method, "%s", params);
    const cJSON *e = sc_it_err(c, r, -32602, "invalid_params");
    sc_it_err_data(e, "field", field);
    const char *msg = sc_it_str(e, "message");
    if (!strstr(msg, names))
        fail_msg("%s: message '%s' does not name %s", method, msg, names);
    cJSON_Delete(r);
}

static void node_count_is(sc_it_conn *c, long long s, int want)
{
    cJSON *r = sc_it_must_result(c, "capture.node_count", "{\"session\":%lld}", s);
    assert_int_equal(sc_it_int(r, "node_count"), want);
    cJSON_Delete(r);
}

static long long graph_count(sc_it_conn *c)
{
    cJSON *r = sc_it_must_result(c, "graph.list", "{}");
    long long n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "graphs"));
    cJSON_Delete(r);
    return n;
}

/* Every malformed list, on every kind of call: -32602 naming it, and
 * nothing recorded or stored. */
static void test_bad_accesses_refused(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    long long d = open_session(c, false), k = open_session(c, true);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":1}", d);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":1}", k);
    long long graphs = graph_count(c);
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const char *a = bad_cases[i].accesses, *names = bad_cases[i].names;
        char *p = sc_it_fmt("{\"session\":%lld,\"stream\":1,\"function_name\":\"k\","
                            "\"num_blocks\":1,\"threads_per_block\":1,\"accesses\":%s}",
                            d, a);
        must_refuse(c, "capture.record_kernel", p, "accesses", names);
        free(p);
        p = sc_it_fmt("{\"session\":%lld,\"stream\":1,\"name\":\"c\",\"dir\":\"host_to_device\","
                      "\"size_bytes\":1,\"accesses\":%s}",
                      d, a);
        must_refuse(c, "capture.record_memcpy", p, "accesses", names);
        free(p);
        p = sc_it_fmt("{\"session\":%lld,\"stream\":1,\"name\":\"m\",\"size_bytes\":1,"
                      "\"value\":0,\"accesses\":%s}",
                      k, a);
        must_refuse(c, "capture.record_memset", p, "accesses", names);
        free(p);
        p = sc_it_fmt("{\"session\":%lld,\"stream\":1,\"label\":\"h\",\"accesses\":%s}", d, a);
        must_refuse(c, "capture.record_host_callback", p, "accesses", names);
        free(p);
        p = sc_it_fmt("{\"session\":%lld,\"stream\":1,\"accesses\":%s}", k, a);
        must_refuse(c, "capture.add_node", p, "accesses", names);
        free(p);
        p = sc_it_fmt("{\"session\":%lld,\"stream\":1,\"node\":{\"kind\":\"empty\","
                      "\"accesses\":%s}}",
                      k, a);
        must_refuse(c, "capture.add_node", p, "node", names);
        free(p);
        p = sc_it_fmt("{\"nodes\":[{\"kind\":\"empty\"},{\"kind\":\"empty\",\"accesses\":%s}],"
                      "\"edges\":[]}",
                      a);
        must_refuse(c, "graph.submit", p, "nodes", names);
        free(p);
    }
    /* A range past the end of the address space cannot be sent (every
     * integer is at most 2^53), so the count cap is the last limit. */
    size_t cap = 4097, room = cap * 48 + 256;
    char *big = malloc(room), *q = big;
    assert_non_null(big);
    q += sprintf(q, "{\"session\":%lld,\"stream\":1,\"label\":\"h\",\"accesses\":[", d);
    for (size_t i = 0; i < cap; i++)
        q += sprintf(q, "%s{\"address\":%zu,\"size\":1,\"mode\":\"read\"}", i ? "," : "", i);
    strcpy(q, "]}");
    must_refuse(c, "capture.record_host_callback", big, "accesses", "at most 4096");
    free(big);
    /* Beside a whole node they would say its accesses twice. */
    char *beside =
        sc_it_fmt("{\"session\":%lld,\"stream\":1,\"node\":{\"kind\":\"empty\"}," ACC1 "}", k);
    must_refuse(c, "capture.add_node", beside, "accesses", "conflicts with 'node'");
    free(beside);
    node_count_is(c, d, 0);
    node_count_is(c, k, 0);
    assert_int_equal(graph_count(c), graphs);
    sc_it_conn_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_mode),
        cmocka_unit_test(test_cuda_mode_and_submit),
        cmocka_unit_test(test_bad_accesses_refused),
    };
    return cmocka_run_group_tests(tests, sc_it_group_setup, sc_it_group_teardown);
}
