/*
 * test_stats.c - graph.stats through a real streamcapd: the figures of a
 * submitted diamond with a shortcut, and the errors of a bad request.
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

/* 0 -> 1 -> 3, 0 -> 2 -> 3 and the shortcut 0 -> 3, node 2 on stream 1. */
static long long submit_diamond(sc_it_conn *c)
{
    cJSON *r = sc_it_must_result(
        c, "graph.submit", "%s",
        "{\"label\":\"diamond\",\"nodes\":["
        "{\"kind\":\"memcpy\",\"name\":\"up\",\"dir\":\"host_to_device\",\"size_bytes\":64},"
        "{\"kind\":\"kernel\",\"function_name\":\"a\",\"grid\":[1,1,1],\"block\":[32,1,1]},"
        "{\"kind\":\"kernel\",\"stream\":1,\"function_name\":\"b\",\"grid\":[1,1,1],"
        "\"block\":[32,1,1]},"
        "{\"kind\":\"memset\",\"name\":\"z\",\"size_bytes\":64,\"value\":0}],"
        "\"edges\":[[0,1],[0,2],[0,3],[1,3],[2,3]]}");
    long long g = (long long)sc_it_int(r, "graph");
    cJSON_Delete(r);
    return g;
}

static void test_stats_figures(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    long long g = submit_diamond(c);
    cJSON *st = sc_it_must_result(c, "graph.stats", "{\"graph\":%lld}", g);
    cJSON *want = cJSON_Parse("{\"nodes\":4,\"edges\":5,\"by_kind\":{\"memcpy\":1,\"kernel\":2,"
                              "\"memset\":1},\"streams\":2,\"roots\":1,\"leaves\":1,"
                              "\"redundant_edges\":1,\"critical_path\":3,\"width\":2}");
    assert_non_null(want);
    if (!cJSON_Compare(st, want, 1))
        fail_msg("graph.stats answered %s", sc_it_json_text(st));
    cJSON_Delete(want);
    cJSON_Delete(st);
    sc_it_conn_close(c);
}

static void test_stats_errors(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    cJSON *reply = NULL;
    assert_int_equal(sc_it_try_call(c, &reply, "graph.stats", "{}"), 0);
    const cJSON *err = cJSON_GetObjectItem(reply, "error");
    assert_non_null(err);
    assert_int_equal(sc_it_int(err, "code"), -32602);
    char *text = sc_it_json_text(err);
    if (!strstr(text, "graph"))
        fail_msg("the error names no field: %s", text);
    free(text);
    cJSON_Delete(reply);
    sc_it_must_error(c, 1001, NULL, "graph.stats", "{\"graph\":%lld}", 987654LL);
    sc_it_conn_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_figures),
        cmocka_unit_test(test_stats_errors),
    };
    return cmocka_run_group_tests(tests, sc_it_group_setup, sc_it_group_teardown);
}
