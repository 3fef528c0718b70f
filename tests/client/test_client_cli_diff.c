/*
 * test_client_cli_diff.c - streamcap graph diff A B, readable and --json,
 * its exit statuses (0 same, 1 different, 2 error), and
 * sc_client_graph_diff(), on demo graphs and a submitted one through a
 * real daemon.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli_fixture.h"

static int group_setup(void **state)
{
    *state = sc_cli_fx_new(10000);
    return 0;
}

static uint64_t json_graph(sc_cli_fx *f, const char *a, const char *b, const char *c)
{
    sc_ct_result r = sc_cli_run(f, "--json", a, b, c, NULL);
    sc_cli_expect_status(&r, 0);
    cJSON *j = cJSON_Parse(r.out);
    uint64_t g = (uint64_t)sc_it_int(j, "graph");
    cJSON_Delete(j);
    sc_ct_result_free(&r);
    return g;
}

/* The demo graph (upload -> relu -> download) with relu on 8 blocks. */
#define CHANGED                                                                                    \
    "{\"nodes\":[{\"kind\":\"memcpy\",\"name\":\"upload\",\"dir\":\"host_to_device\","             \
    "\"size_bytes\":4096},{\"kind\":\"kernel\",\"stream\":1,\"function_name\":\"relu\","           \
    "\"grid\":[8,1,1],\"block\":[256,1,1]},{\"kind\":\"memcpy\",\"name\":\"download\","            \
    "\"dir\":\"device_to_host\",\"size_bytes\":4096}],\"edges\":[[0,1],[1,2],[0,2]]}"

static void test_library_and_cli(void **state)
{
    sc_cli_fx *f = *state;
    uint64_t a = json_graph(f, "demo", NULL, NULL), b = json_graph(f, "demo", NULL, NULL);
    char ia[32], ib[32];
    snprintf(ia, sizeof ia, "%llu", (unsigned long long)a);
    snprintf(ib, sizeof ib, "%llu", (unsigned long long)b);

    sc_client_diff d;
    assert_int_equal(sc_client_graph_diff(f->c, a, b, &d), 0);
    assert_true(d.identical);
    assert_int_equal(d.n_added + d.n_removed + d.n_changed, 0);
    sc_client_diff_free(&d);
    assert_int_equal(sc_client_graph_diff(f->c, a, b + 1000, &d), SC_CLIENT_ENOTFOUND);

    sc_ct_result r = sc_cli_run(f, "graph", "diff", ia, ib, NULL);
    sc_cli_expect_status(&r, 0);
    sc_cli_expect_in(r.out, "are the same\n");
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "--json", "call", "graph.submit", CHANGED, NULL);
    sc_cli_expect_status(&r, 0);
    cJSON *j = cJSON_Parse(r.out);
    char ic[32];
    snprintf(ic, sizeof ic, "%lld", (long long)sc_it_int(j, "graph"));
    cJSON_Delete(j);
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "graph", "diff", ia, ic, NULL);
    sc_cli_expect_status(&r, 1);
    sc_cli_expect_in(r.out, "0 nodes added, 0 removed, 1 changed; 0 edges added, 0 removed\n");
    sc_cli_expect_in(r.out, "~ node 1 -> 1: num_blocks\n");
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "--json", "graph", "diff", ia, ic, NULL);
    sc_cli_expect_status(&r, 1);
    j = cJSON_Parse(r.out);
    assert_non_null(j);
    cJSON *want = cJSON_Parse("{\"identical\":false,\"nodes_added\":[],\"nodes_removed\":[],"
                              "\"nodes_changed\":[{\"a\":1,\"b\":1,\"fields\":[\"num_blocks\"]}],"
                              "\"edges_added\":[],\"edges_removed\":[]}");
    cJSON_AddNumberToObject(want, "a", (double)a);
    cJSON_AddNumberToObject(want, "b", (double)atoll(ic));
    if (!cJSON_Compare(j, want, 1))
        fail_msg("graph diff --json printed %s", r.out);
    cJSON_Delete(want);
    cJSON_Delete(j);
    sc_ct_result_free(&r);
}

static void test_cli_errors(void **state)
{
    sc_cli_fx *f = *state;
    const char *bad[][2] = {{"1", NULL}, {"x", "1"}, {"1", "0"}, {"1", "987654"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sc_ct_result r = sc_cli_run(f, "graph", "diff", bad[i][0], bad[i][1], NULL);
        sc_cli_expect_status(&r, 2);
        sc_ct_result_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_library_and_cli),
        cmocka_unit_test(test_cli_errors),
    };
    return cmocka_run_group_tests(tests, group_setup, sc_cli_group_teardown);
}
