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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_accesses_no_races),
        cmocka_unit_test(test_bad_params),
    };
    return cmocka_run_group_tests(tests, sc_it_group_setup, sc_it_group_teardown);
}
