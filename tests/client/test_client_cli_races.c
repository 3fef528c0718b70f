/*
 * test_client_cli_races.c - streamcap graph races ID, readable and --json,
 * its exit status, graph render --races, and sc_client_graph_races(),
 * through a real daemon.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli_fixture.h"

static void test_no_races(void **state)
{
    sc_cli_fx *f = *state;
    uint64_t g = sc_cli_demo_graph(f);
    sc_client_races races;
    assert_int_equal(sc_client_graph_races(f->c, g, 10, &races), 0);
    assert_int_equal(races.n, 0);
    assert_int_equal(races.count, 0);
    sc_client_races_free(&races);
    assert_int_equal(sc_client_graph_races(f->c, g + 1000, 10, &races), SC_CLIENT_ENOTFOUND);

    char id[32];
    snprintf(id, sizeof id, "%llu", (unsigned long long)g);
    sc_ct_result r = sc_cli_run(f, "graph", "races", id, NULL);
    sc_cli_expect_status(&r, 0);
    char *want = sc_it_fmt("graph %s: no races\n", id);
    assert_string_equal(r.out, want);
    free(want);
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "--json", "graph", "races", id, "--limit", "0", NULL);
    sc_cli_expect_status(&r, 0);
    cJSON *j = cJSON_Parse(r.out);
    cJSON *w = cJSON_Parse("{\"races\":[],\"count\":0}");
    cJSON_AddNumberToObject(w, "graph", (double)g);
    if (!cJSON_Compare(j, w, 1))
        fail_msg("graph races --json printed %s", r.out);
    cJSON_Delete(w);
    cJSON_Delete(j);
    sc_ct_result_free(&r);
}

static void test_bad_arguments(void **state)
{
    sc_cli_fx *f = *state;
    const char *const bad[][5] = {
        {"graph", "races", NULL},
        {"graph", "races", "x", NULL},
        {"graph", "races", "1", "2", NULL},
        {"graph", "races", "1", "--limit", "many"},
        {"graph", "races", "1", "--limit", "100001"},
        {"graph", "races", "9007199254740991", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sc_ct_result r = sc_cli_run(f, bad[i][0], bad[i][1], bad[i][2], bad[i][3], bad[i][4], NULL);
        sc_cli_expect_status(&r, 2);
        sc_ct_result_free(&r);
    }
}

static void test_render_races_without_races(void **state)
{
    sc_cli_fx *f = *state;
    if (access("/usr/bin/dot", X_OK) != 0 && system("command -v dot >/dev/null 2>&1") != 0)
        fail_msg("Graphviz 'dot' is needed for this test (scripts/deps installs it)");
    char id[32];
    snprintf(id, sizeof id, "%llu", (unsigned long long)sc_cli_demo_graph(f));
    char *svg = sc_it_fmt("%s/plain.svg", f->tmp);
    sc_ct_result r = sc_cli_run(f, "graph", "render", id, svg, "--races", NULL);
    sc_cli_expect_status(&r, 0);
    sc_cli_expect_in(r.out, "wrote ");
    sc_ct_result_free(&r);
    free(svg);
}

/* memset zero_out on stream 2 writes a page that kernel relu on stream 1
 * reads, with no edge between them: one race. */
static uint64_t racy_graph(sc_cli_fx *f)
{
    sc_ct_result r = sc_cli_run(
        f, "call", "graph.submit",
        "{\"label\":\"racy\",\"nodes\":["
        "{\"kind\":\"memset\",\"stream\":2,\"name\":\"zero_out\",\"size_bytes\":4096,\"value\":0,"
        "\"accesses\":[{\"address\":139637976731648,\"size\":4096,\"mode\":\"write\"}]},"
        "{\"kind\":\"kernel\",\"stream\":1,\"function_name\":\"relu\",\"grid\":[1,1,1],"
        "\"block\":[32,1,1],\"accesses\":[{\"address\":139637976731648,\"size\":4096,"
        "\"mode\":\"read\"}]}],\"edges\":[]}",
        NULL);
    sc_cli_expect_status(&r, 0);
    cJSON *j = cJSON_Parse(r.out);
    uint64_t g = (uint64_t)sc_it_int(j, "graph");
    cJSON_Delete(j);
    sc_ct_result_free(&r);
    return g;
}

static void test_race_sentence_and_status(void **state)
{
    sc_cli_fx *f = *state;
    uint64_t g = racy_graph(f);
    char id[32];
    snprintf(id, sizeof id, "%llu", (unsigned long long)g);
    sc_ct_result r = sc_cli_run(f, "graph", "races", id, NULL);
    sc_cli_expect_status(&r, 1);
    char *want = sc_it_fmt("memset zero_out (node 0, stream 2) writes 0x7f0000001000+4096 while "
                           "kernel relu (node 1, stream 1) reads it, and nothing orders them\n"
                           "graph %s: 1 race\n",
                           id);
    assert_string_equal(r.out, want);
    free(want);
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "graph", "races", id, "--limit", "0", NULL);
    sc_cli_expect_status(&r, 1);
    want = sc_it_fmt("graph %s: 1 race (0 shown; --limit N shows more)\n", id);
    assert_string_equal(r.out, want);
    free(want);
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "--json", "graph", "races", id, NULL);
    sc_cli_expect_status(&r, 1);
    cJSON *j = cJSON_Parse(r.out);
    cJSON *w = cJSON_Parse("{\"races\":[{\"a\":0,\"b\":1,\"address\":139637976731648,\"size\":4096,"
                           "\"a_mode\":\"write\",\"b_mode\":\"read\"}],\"count\":1}");
    cJSON_AddNumberToObject(w, "graph", (double)g);
    if (!cJSON_Compare(j, w, 1))
        fail_msg("graph races --json printed %s", r.out);
    cJSON_Delete(w);
    cJSON_Delete(j);
    sc_ct_result_free(&r);

    sc_client_races races;
    assert_int_equal(sc_client_graph_races(f->c, g, 10, &races), 0);
    assert_int_equal(races.n, 1);
    assert_int_equal(races.count, 1);
    assert_int_equal(races.races[0].a_mode, 2);
    assert_int_equal(races.races[0].b_mode, 1);
    assert_int_equal(races.races[0].address, 0x7f0000001000ULL);
    sc_client_races_free(&races);
}

static void test_render_races(void **state)
{
    sc_cli_fx *f = *state;
    if (access("/usr/bin/dot", X_OK) != 0 && system("command -v dot >/dev/null 2>&1") != 0)
        fail_msg("Graphviz 'dot' is needed for this test (scripts/deps installs it)");
    char id[32];
    snprintf(id, sizeof id, "%llu", (unsigned long long)racy_graph(f));
    char *plain = sc_it_fmt("%s/plain.svg", f->tmp), *racy = sc_it_fmt("%s/racy.svg", f->tmp);
    sc_ct_result r = sc_cli_run(f, "graph", "render", id, plain, NULL);
    sc_cli_expect_status(&r, 0);
    sc_ct_result_free(&r);
    r = sc_cli_run(f, "graph", "render", id, racy, "--races", NULL);
    sc_cli_expect_status(&r, 0);
    sc_ct_result_free(&r);
    char *a = sc_it_read_file(plain), *b = sc_it_read_file(racy);
    assert_non_null(a);
    assert_non_null(b);
    assert_null(strstr(a, "#ffd8d8"));
    /* stream clusters are dashed too: the race line is the red one */
    assert_null(strstr(a, "stroke=\"red\" stroke-dasharray"));
    assert_non_null(strstr(b, "#ffd8d8"));                         /* racing nodes filled */
    assert_non_null(strstr(b, "stroke=\"red\" stroke-dasharray")); /* the line between them */
    free(a);
    free(b);
    free(plain);
    free(racy);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_races),
        cmocka_unit_test(test_race_sentence_and_status),
        cmocka_unit_test(test_render_races),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_render_races_without_races),
    };
    return cmocka_run_group_tests(tests, sc_cli_group_setup, sc_cli_group_teardown);
}
