/*
 * test_client_cli_stats.c - streamcap graph stats ID, readable and --json,
 * and sc_client_graph_stats(), on the demo graph (upload -> relu ->
 * download with the shortcut upload -> download) through a real daemon.
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

static void test_library_call(void **state)
{
    sc_cli_fx *f = *state;
    uint64_t g = sc_cli_demo_graph(f);
    sc_client_stats st;
    assert_int_equal(sc_client_graph_stats(f->c, g, &st), 0);
    assert_int_equal(st.nodes, 3);
    assert_int_equal(st.edges, 3);
    assert_int_equal(st.by_kind[SC_CLIENT_KERNEL], 1);
    assert_int_equal(st.by_kind[SC_CLIENT_MEMCPY], 2);
    assert_int_equal(st.by_kind[SC_CLIENT_MEMSET], 0);
    assert_int_equal(st.streams, 2);
    assert_int_equal(st.roots, 1);
    assert_int_equal(st.leaves, 1);
    assert_int_equal(st.redundant_edges, 1);
    assert_int_equal(st.critical_path, 3);
    assert_int_equal(st.width, 1);
    assert_int_equal(sc_client_graph_stats(f->c, g + 1000, &st), SC_CLIENT_ENOTFOUND);
}

static void test_cli_readable_and_json(void **state)
{
    sc_cli_fx *f = *state;
    char id[32];
    snprintf(id, sizeof id, "%llu", (unsigned long long)sc_cli_demo_graph(f));
    sc_ct_result r = sc_cli_run(f, "graph", "stats", id, NULL);
    sc_cli_expect_status(&r, 0);
    sc_cli_expect_in(r.out, ": 3 nodes, 3 edges, 2 streams\n");
    sc_cli_expect_in(r.out, "  kernel          1\n");
    sc_cli_expect_in(r.out, "  memcpy          2\n");
    sc_cli_expect_in(r.out, "redundant edges 1 ");
    sc_cli_expect_in(r.out, "critical path 3 nodes\n");
    sc_cli_expect_in(r.out, "width at least 1 ");
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "--json", "graph", "stats", id, NULL);
    sc_cli_expect_status(&r, 0);
    cJSON *j = cJSON_Parse(r.out);
    assert_non_null(j);
    cJSON *want = cJSON_Parse("{\"nodes\":3,\"edges\":3,\"by_kind\":{\"kernel\":1,\"memcpy\":2},"
                              "\"streams\":2,\"roots\":1,\"leaves\":1,\"redundant_edges\":1,"
                              "\"critical_path\":3,\"width\":1}");
    cJSON_AddNumberToObject(want, "graph", (double)atoll(id));
    if (!cJSON_Compare(j, want, 1))
        fail_msg("graph stats --json printed %s", r.out);
    cJSON_Delete(want);
    cJSON_Delete(j);
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "graph", "stats", NULL);
    sc_cli_expect_status(&r, 2);
    sc_ct_result_free(&r);
    r = sc_cli_run(f, "graph", "stats", "x", NULL);
    sc_cli_expect_status(&r, 2);
    sc_ct_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_library_call),
        cmocka_unit_test(test_cli_readable_and_json),
    };
    return cmocka_run_group_tests(tests, sc_cli_group_setup, sc_cli_group_teardown);
}
