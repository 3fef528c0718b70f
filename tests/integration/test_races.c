/*
 * test_races.c - graph.races through a real streamcapd: the races of
 * submitted graphs, limit and count, and the errors of a bad request.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"

/* Two kernels on two streams that nothing orders, without accesses. */
static long long submit_plain(sc_it_conn *c)
{
    cJSON *r = sc_it_must_result(
        c, "graph.submit", "%s",
        "{\"label\":\"plain\",\"nodes\":["
        "{\"kind\":\"kernel\",\"function_name\":\"a\",\"grid\":[1,1,1],\"block\":[32,1,1]},"
        "{\"kind\":\"kernel\",\"stream\":1,\"function_name\":\"b\",\"grid\":[1,1,1],"
        "\"block\":[32,1,1]}],\"edges\":[]}");
    long long g = (long long)sc_it_int(r, "graph");
    cJSON_Delete(r);
    return g;
}

static void expect_result(sc_it_conn *c, const char *params, const char *want_json)
{
    cJSON *got = sc_it_must_result(c, "graph.races", "%s", params);
    cJSON *want = cJSON_Parse(want_json);
    assert_non_null(want);
    if (!cJSON_Compare(got, want, 1))
        fail_msg("graph.races %s answered %s, not %s", params, sc_it_json_text(got), want_json);
    cJSON_Delete(want);
    cJSON_Delete(got);
}

static void test_no_accesses_no_races(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    long long g = submit_plain(c);
    char params[64];
    snprintf(params, sizeof params, "{\"graph\":%lld}", g);
    expect_result(c, params, "{\"races\":[],\"count\":0}");
    snprintf(params, sizeof params, "{\"graph\":%lld,\"limit\":0}", g);
    expect_result(c, params, "{\"races\":[],\"count\":0}");
    sc_it_conn_close(c);
}

/* -32602 whose error names `field`. */
static void expect_invalid(sc_it_conn *c, const char *params, const char *field)
{
    cJSON *reply = NULL;
    assert_int_equal(sc_it_try_call(c, &reply, "graph.races", "%s", params), 0);
    const cJSON *err = cJSON_GetObjectItem(reply, "error");
    if (!err)
        fail_msg("graph.races %s answered %s", params, sc_it_json_text(reply));
    assert_int_equal(sc_it_int(err, "code"), -32602);
    char *text = sc_it_json_text(err);
    if (!strstr(text, field))
        fail_msg("the error of %s names no '%s': %s", params, field, text);
    free(text);
    cJSON_Delete(reply);
}

static void test_bad_params(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    long long g = submit_plain(c);
    expect_invalid(c, "{}", "graph");
    expect_invalid(c, "{\"graph\":\"one\"}", "graph");
    expect_invalid(c, "{\"graph\":0}", "graph");
    char *p = sc_it_fmt("{\"graph\":%lld,\"limit\":-1}", g);
    expect_invalid(c, p, "limit");
    free(p);
    p = sc_it_fmt("{\"graph\":%lld,\"limit\":100001}", g);
    expect_invalid(c, p, "limit");
    free(p);
    p = sc_it_fmt("{\"graph\":%lld,\"limit\":1.5}", g);
    expect_invalid(c, p, "limit");
    free(p);
    p = sc_it_fmt("{\"graph\":%lld,\"limit\":\"all\"}", g);
    expect_invalid(c, p, "limit");
    free(p);
    sc_it_must_error(c, 1001, NULL, "graph.races", "{\"graph\":%lld}", 987654LL);
    /* the connection still serves */
    p = sc_it_fmt("{\"graph\":%lld,\"limit\":100000}", g);
    expect_result(c, p, "{\"races\":[],\"count\":0}");
    free(p);
    sc_it_conn_close(c);
}

/* A kernel node of graph.submit on `stream` with one access. */
#define KERNEL_ACC(stream, name, addr, size, mode)                                                 \
    "{\"kind\":\"kernel\",\"stream\":" #stream ",\"function_name\":\"" name "\","                  \
    "\"grid\":[1,1,1],\"block\":[32,1,1],\"accesses\":[{\"address\":" #addr ",\"size\":" #size     \
    ",\"mode\":\"" mode "\"}]}"

static long long submit(sc_it_conn *c, const char *nodes, const char *edges)
{
    cJSON *r = sc_it_must_result(
        c, "graph.submit", "{\"label\":\"races\",\"nodes\":[%s],\"edges\":[%s]}", nodes, edges);
    long long g = (long long)sc_it_int(r, "graph");
    cJSON_Delete(r);
    return g;
}

/* Two streams writing one buffer, nothing between them: one race over
 * the overlap, both writing; with the edge of an event join: none. */
static void test_two_streams_one_buffer(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    const char *nodes = KERNEL_ACC(0, "fill", 4096, 256, "write") "," KERNEL_ACC(1, "scale", 4224,
                                                                                 256, "read_write");
    long long g = submit(c, nodes, "");
    char *p = sc_it_fmt("{\"graph\":%lld}", g);
    expect_result(c, p,
                  "{\"races\":[{\"a\":0,\"b\":1,\"address\":4224,\"size\":128,\"a_mode\":\"write\","
                  "\"b_mode\":\"read_write\"}],\"count\":1}");
    free(p);
    g = submit(c, nodes, "[0,1]");
    p = sc_it_fmt("{\"graph\":%lld}", g);
    expect_result(c, p, "{\"races\":[],\"count\":0}");
    free(p);
    sc_it_conn_close(c);
}

/* The same through a capture: stream 2 waits on an event recorded on
 * stream 1 after its write, so nothing races; without the wait it does. */
static void test_capture_event_join(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    for (int join = 0; join < 2; join++) {
        cJSON *o = sc_it_must_result(c, "session.open", "{}");
        long long s = (long long)sc_it_int(o, "session");
        cJSON_Delete(o);
        sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":1}", s);
        sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":2}", s);
        sc_it_must_ok(c, "capture.record_kernel",
                      "{\"session\":%lld,\"stream\":1,\"function_name\":\"w\",\"num_blocks\":1,"
                      "\"threads_per_block\":32,\"accesses\":[{\"address\":8192,\"size\":64,"
                      "\"mode\":\"write\"}]}",
                      s);
        if (join) {
            sc_it_must_ok(c, "capture.record_event", "{\"session\":%lld,\"stream\":1,\"event\":1}",
                          s);
            sc_it_must_ok(c, "capture.wait_event", "{\"session\":%lld,\"stream\":2,\"event\":1}",
                          s);
        }
        sc_it_must_ok(c, "capture.record_kernel",
                      "{\"session\":%lld,\"stream\":2,\"function_name\":\"r\",\"num_blocks\":1,"
                      "\"threads_per_block\":32,\"accesses\":[{\"address\":8200,\"size\":8,"
                      "\"mode\":\"read\"}]}",
                      s);
        cJSON *e = sc_it_must_result(c, "capture.end", "{\"session\":%lld,\"stream\":1}", s);
        long long g = (long long)sc_it_int(e, "graph");
        cJSON_Delete(e);
        char *p = sc_it_fmt("{\"graph\":%lld}", g);
        expect_result(c, p,
                      join ? "{\"races\":[],\"count\":0}"
                           : "{\"races\":[{\"a\":0,\"b\":1,\"address\":8200,\"size\":8,"
                             "\"a_mode\":\"write\",\"b_mode\":\"read\"}],\"count\":1}");
        free(p);
    }
    sc_it_conn_close(c);
}

/* One writer against five readers on five streams: five races in (a, b)
 * order; a limit lists the first ones and still counts all. */
static void test_limit_and_count(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    long long g = submit(
        c,
        KERNEL_ACC(0, "w", 0, 4096, "write") "," KERNEL_ACC(1, "r1", 0, 16, "read") "," KERNEL_ACC(
            2, "r2", 16, 16,
            "read") "," KERNEL_ACC(3, "r3", 32, 16,
                                   "read") "," KERNEL_ACC(4, "r4", 48, 16,
                                                          "read") "," KERNEL_ACC(5, "r5", 64, 16,
                                                                                 "read"),
        "");
    char *p = sc_it_fmt("{\"graph\":%lld,\"limit\":2}", g);
    expect_result(c, p,
                  "{\"races\":[{\"a\":0,\"b\":1,\"address\":0,\"size\":16,\"a_mode\":\"write\","
                  "\"b_mode\":\"read\"},{\"a\":0,\"b\":2,\"address\":16,\"size\":16,\"a_mode\":"
                  "\"write\",\"b_mode\":\"read\"}],\"count\":5}");
    free(p);
    p = sc_it_fmt("{\"graph\":%lld,\"limit\":0}", g);
    expect_result(c, p, "{\"races\":[],\"count\":5}");
    free(p);
    /* readers alone never race */
    g = submit(c, KERNEL_ACC(1, "r1", 0, 16, "read") "," KERNEL_ACC(2, "r2", 0, 16, "read"), "");
    p = sc_it_fmt("{\"graph\":%lld}", g);
    expect_result(c, p, "{\"races\":[],\"count\":0}");
    free(p);
    sc_it_conn_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_accesses_no_races), cmocka_unit_test(test_two_streams_one_buffer),
        cmocka_unit_test(test_capture_event_join),   cmocka_unit_test(test_limit_and_count),
        cmocka_unit_test(test_bad_params),
    };
    return cmocka_run_group_tests(tests, sc_it_group_setup, sc_it_group_teardown);
}
