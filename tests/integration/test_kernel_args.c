/*
 * test_kernel_args.c - a kernel node's argument values (args, param_sizes)
 * through a real streamcapd: kept by capture.record_kernel and returned by
 * graph.get, graph.export and the nodes view, absent when not sent, and every malformed
 * value refused naming its field.
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

#define ARGS "2a000000ff8877665544332211"

static long long open_default(sc_it_conn *c)
{
    cJSON *r = sc_it_must_result(c, "session.open", "{}");
    long long s = (long long)sc_it_int(r, "session");
    cJSON_Delete(r);
    return s;
}

static const cJSON *member(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        fail_msg("no member %s in %s", key, sc_it_json_text(o));
    return v;
}

/* The nodes view's args and param_sizes of node `id` of graph g. */
static void view_args(const sc_it_daemon *d, long long g, int id, char *args, char *sizes,
                      size_t cap)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(sc_it_daemon_db(d), &db, SQLITE_OPEN_READONLY, NULL),
                     SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT coalesce(args, 'NULL'), coalesce(param_sizes, "
                                        "'NULL') FROM nodes WHERE graph = ?1 AND id = ?2",
                                        -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_int64(st, 1, g);
    sqlite3_bind_int(st, 2, id);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    snprintf(args, cap, "%s", (const char *)sqlite3_column_text(st, 0));
    snprintf(sizes, cap, "%s", (const char *)sqlite3_column_text(st, 1));
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* The values sent are the values stored, split as sent; a kernel sent
 * without them has none. */
static void test_args_round_trip(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    long long s = open_default(c);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":1}", s);
    sc_it_must_ok(c, "capture.record_kernel",
                  "{\"session\":%lld,\"stream\":1,\"function_name\":\"axpy\",\"num_blocks\":4,"
                  "\"threads_per_block\":128,\"args\":\"" ARGS "\",\"param_sizes\":[4,1,8]}",
                  s);
    sc_it_must_ok(c, "capture.record_kernel",
                  "{\"session\":%lld,\"stream\":1,\"function_name\":\"plain\",\"num_blocks\":1,"
                  "\"threads_per_block\":32}",
                  s);
    cJSON *end = sc_it_must_result(c, "capture.end", "{\"session\":%lld,\"stream\":1}", s);
    long long g = (long long)sc_it_int(end, "graph");
    cJSON_Delete(end);

    cJSON *graph = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", g);
    const cJSON *nodes = member(graph, "nodes");
    const cJSON *k = cJSON_GetArrayItem(nodes, 0);
    assert_string_equal(sc_it_str(k, "args"), ARGS);
    char *sizes = sc_it_json_text(member(k, "param_sizes"));
    assert_string_equal(sizes, "[4,1,8]");
    free(sizes);
    assert_int_equal(sc_it_int(k, "num_blocks"), 4);
    const cJSON *plain = cJSON_GetArrayItem(nodes, 1);
    assert_null(cJSON_GetObjectItemCaseSensitive(plain, "args"));
    assert_null(cJSON_GetObjectItemCaseSensitive(plain, "param_sizes"));
    cJSON_Delete(graph);
    cJSON *dot = sc_it_must_result(c, "graph.export", "{\"graph\":%lld,\"format\":\"dot\"}", g);
    if (!strstr(sc_it_str(dot, "text"), "args: 2a000000 ff 8877665544332211"))
        fail_msg("no arguments in %s", sc_it_str(dot, "text"));
    cJSON_Delete(dot);
    sc_it_conn_close(c);

    char a[256], p[256];
    view_args(*state, g, 0, a, p, sizeof a);
    assert_string_equal(a, ARGS);
    assert_string_equal(p, "[4,1,8]");
    view_args(*state, g, 1, a, p, sizeof a);
    assert_string_equal(a, "NULL");
    assert_string_equal(p, "NULL");
}

/* Node `id` of graph g has the arguments ARGS split as [4,1,8]. */
static void expect_args(sc_it_conn *c, long long g, int id)
{
    cJSON *graph = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", g);
    const cJSON *k = cJSON_GetArrayItem(member(graph, "nodes"), id);
    assert_non_null(k);
    assert_string_equal(sc_it_str(k, "args"), ARGS);
    char *sizes = sc_it_json_text(member(k, "param_sizes"));
    assert_string_equal(sizes, "[4,1,8]");
    free(sizes);
    cJSON_Delete(graph);
}

/* The cuda-mode record call, capture.add_node's node and graph.submit's
 * nodes keep them too, a 3-D launch included. */
static void test_args_other_calls(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    cJSON *o = sc_it_must_result(c, "session.open", "{\"semantics\":\"cuda\"}");
    long long s = (long long)sc_it_int(o, "session");
    cJSON_Delete(o);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":1}", s);
    sc_it_must_ok(c, "capture.record_kernel",
                  "{\"session\":%lld,\"stream\":1,\"function_name\":\"k3\",\"grid\":[2,2,1],"
                  "\"block\":[32,1,1],\"args\":\"" ARGS "\",\"param_sizes\":[4,1,8]}",
                  s);
    sc_it_must_ok(c, "capture.record_kernel",
                  "{\"session\":%lld,\"stream\":1,\"function_name\":\"k1\",\"args\":\"" ARGS
                  "\",\"param_sizes\":[4,1,8]}",
                  s);
    sc_it_must_ok(c, "capture.add_node",
                  "{\"session\":%lld,\"stream\":1,\"deps\":[1],\"node\":{\"kind\":\"kernel\","
                  "\"function_name\":\"byhand\",\"args\":\"" ARGS "\",\"param_sizes\":[4,1,8]}}",
                  s);
    cJSON *end = sc_it_must_result(c, "capture.end", "{\"session\":%lld,\"stream\":1}", s);
    long long g = (long long)sc_it_int(end, "graph");
    cJSON_Delete(end);
    for (int id = 0; id < 3; id++)
        expect_args(c, g, id);

    cJSON *sub = sc_it_must_result(c, "graph.submit",
                                   "{\"nodes\":[{\"kind\":\"kernel\",\"function_name\":\"f\","
                                   "\"args\":\"" ARGS "\",\"param_sizes\":[4,1,8]}],\"edges\":[]}");
    expect_args(c, sc_it_int(sub, "graph"), 0);
    cJSON_Delete(sub);
    cJSON *bad = sc_it_call(c, "graph.submit",
                            "{\"nodes\":[{\"kind\":\"kernel\",\"function_name\":\"f\","
                            "\"args\":\"abc\",\"param_sizes\":[2]}],\"edges\":[]}");
    sc_it_err(c, bad, -32602, "invalid_params");
    cJSON_Delete(bad);
    sc_it_conn_close(c);
}

static void must_refuse(sc_it_conn *c, long long s, const char *rest, const char *field)
{
    cJSON *r = sc_it_call(c, "capture.record_kernel",
                          "{\"session\":%lld,\"stream\":1,\"function_name\":\"k\","
                          "\"num_blocks\":1,\"threads_per_block\":1,%s}",
                          s, rest);
    const cJSON *e = sc_it_err(c, r, -32602, "invalid_params");
    sc_it_err_data(e, "field", field);
    cJSON_Delete(r);
}

/* Odd length, upper case, sizes that do not add up, one without the
 * other, past 32,764 bytes: refused, and nothing recorded. */
static void test_bad_args_refused(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    long long s = open_default(c);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":1}", s);
    must_refuse(c, s, "\"args\":\"abc\",\"param_sizes\":[2]", "args");
    must_refuse(c, s, "\"args\":\"ABCD\",\"param_sizes\":[2]", "args");
    must_refuse(c, s, "\"args\":\"abcd\",\"param_sizes\":[1]", "param_sizes");
    must_refuse(c, s, "\"args\":\"abcd\",\"param_sizes\":[0,2]", "param_sizes");
    must_refuse(c, s, "\"args\":\"abcd\"", "param_sizes");
    must_refuse(c, s, "\"param_sizes\":[2]", "args");
    size_t n = 32765;
    char *big = malloc(2 * n + 64);
    assert_non_null(big);
    memcpy(big, "\"args\":\"", 8);
    memset(big + 8, '0', 2 * n);
    snprintf(big + 8 + 2 * n, 56, "\",\"param_sizes\":[%zu]", n);
    must_refuse(c, s, big, "args");
    free(big);
    cJSON *r = sc_it_must_result(c, "capture.node_count", "{\"session\":%lld}", s);
    assert_int_equal(sc_it_int(r, "node_count"), 0);
    cJSON_Delete(r);
    sc_it_conn_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_args_round_trip),
        cmocka_unit_test(test_bad_args_refused),
        cmocka_unit_test(test_args_other_calls),
    };
    return cmocka_run_group_tests(tests, sc_it_group_setup, sc_it_group_teardown);
}
