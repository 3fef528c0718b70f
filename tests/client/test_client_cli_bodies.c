/*
 * The streamcap tool and body graphs, through the real binary against a
 * real streamcapd: `graph show` prints each child graph and conditional
 * node's bodies indented under it, down to --depth; `graph render` draws
 * each body inside a cluster standing for its node; --json gives the
 * nodes' body ids as graph.get does.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli_fixture.h"

typedef struct fixture {
    sc_cli_fx *cli;
    uint64_t top;      /* memcpy -> child(memset -> child(host)) -> conditional(2 bodies) */
    uint64_t child;    /* node 1's body */
    uint64_t grandkid; /* the body of the child's node 1 */
    uint64_t cond[2];  /* node 2's bodies */
} fixture;

static uint64_t id_at(const char *json, const char *key, int index)
{
    const char *p = strstr(json, key);
    assert_non_null(p);
    p += strlen(key);
    for (int i = 0; i < index; i++) {
        p = strchr(p, ',');
        assert_non_null(p);
        p++;
    }
    return strtoull(p, NULL, 10);
}

static int group_setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    f->cli = sc_cli_fx_new(30000);
    char *res = NULL;
    int rc = sc_client_call_raw(
        f->cli->c, "graph.submit",
        "{\"label\":\"nest\",\"nodes\":["
        "{\"kind\":\"memcpy\",\"name\":\"up\",\"dir\":\"host_to_device\",\"size_bytes\":64},"
        "{\"kind\":\"graph\",\"name\":\"outer\",\"child\":{\"nodes\":[{\"kind\":\"memset\","
        "\"name\":\"zero\",\"size_bytes\":8,\"value\":0},{\"kind\":\"graph\",\"name\":\"inner\","
        "\"child\":{\"nodes\":[{\"kind\":\"host_callback\",\"label\":\"deepest\"}],"
        "\"edges\":[]}}],\"edges\":[[0,1]]}},"
        "{\"kind\":\"conditional\",\"name\":\"pick\",\"type\":\"if\",\"size\":2,\"bodies\":[{"
        "\"nodes\":[{\"kind\":"
        "\"empty\",\"name\":\"then\"}],\"edges\":[]},{\"nodes\":[{\"kind\":\"host_callback\","
        "\"label\":\"otherwise\"}],\"edges\":[]}]}],"
        "\"edges\":[[0,1],[1,2]]}",
        &res);
    assert_int_equal(rc, 0);
    f->top = id_at(res, "\"graph\":", 0);
    f->child = id_at(res, "\"bodies\":[", 0);
    f->grandkid = id_at(res, "\"bodies\":[", 1);
    f->cond[0] = id_at(res, "\"bodies\":[", 2);
    f->cond[1] = id_at(res, "\"bodies\":[", 3);
    free(res);
    *state = f;
    return 0;
}

static int group_teardown(void **state)
{
    fixture *f = *state;
    sc_cli_fx_free(f->cli);
    free(f);
    return 0;
}

static void expect_line_in(const char *text, const char *fmt, unsigned long long id)
{
    char *want = sc_it_fmt(fmt, id);
    sc_cli_expect_in(text, want);
    free(want);
}

/* Each body under a line naming its node, indented a level deeper. */
static void test_show_prints_bodies_under_their_nodes(void **state)
{
    fixture *f = *state;
    char *id = sc_it_fmt("%llu", (unsigned long long)f->top);
    sc_ct_result r = sc_cli_run(f->cli, "graph", "show", id, NULL);
    sc_cli_expect_status(&r, 0);
    expect_line_in(r.out, "body graph %llu\n", f->child);
    expect_line_in(r.out, "\nN1 graph: body 0 is graph %llu\n", f->child);
    expect_line_in(r.out, "\n    graph %llu \"nest\": 2 nodes, 1 edge\n", f->child);
    sc_cli_expect_in(r.out, "\n    N0    0       memset  zero");
    expect_line_in(r.out, "\n    N1 graph: body 0 is graph %llu\n", f->grandkid);
    sc_cli_expect_in(r.out, "\n        N0    0       host_callback");
    expect_line_in(r.out, "\nN2 conditional: body 1 is graph %llu\n", f->cond[1]);
    sc_cli_expect_in(r.out, "label otherwise");
    /* The grandchild is printed after its parent, the conditional's
     * bodies after both. */
    assert_true(strstr(r.out, "deepest") < strstr(r.out, "N2 conditional: body 0"));
    sc_ct_result_free(&r);

    r = sc_cli_run(f->cli, "graph", "show", "--depth", "1", id, NULL);
    sc_cli_expect_status(&r, 0);
    sc_cli_expect_in(r.out, "\n    N1 graph: 1 body graph not shown (--depth 1)\n");
    assert_null(strstr(r.out, "deepest"));
    sc_cli_expect_in(r.out, "label otherwise");
    sc_ct_result_free(&r);

    r = sc_cli_run(f->cli, "graph", "show", id, "--depth=0", NULL);
    sc_cli_expect_status(&r, 0);
    sc_cli_expect_in(r.out, "\nN1 graph: 1 body graph not shown (--depth 0)\n");
    sc_cli_expect_in(r.out, "\nN2 conditional: 2 body graphs not shown (--depth 0)\n");
    assert_null(strstr(r.out, "zero"));
    sc_ct_result_free(&r);

    r = sc_cli_run(f->cli, "graph", "show", id, "--depth", "deep", NULL);
    sc_cli_expect_status(&r, 2);
    sc_cli_expect_in(r.err, "--depth takes a number");
    sc_ct_result_free(&r);
    free(id);
}

static void test_show_json_gives_body_ids(void **state)
{
    fixture *f = *state;
    char *id = sc_it_fmt("%llu", (unsigned long long)f->top);
    sc_ct_result r = sc_cli_run(f->cli, "--json", "graph", "show", id, NULL);
    sc_cli_expect_status(&r, 0);
    expect_line_in(r.out, "\"name\":\"outer\",\"child\":%llu", f->child);
    char *want = sc_it_fmt("\"name\":\"pick\",\"bodies\":[%llu,%llu]",
                           (unsigned long long)f->cond[0], (unsigned long long)f->cond[1]);
    sc_cli_expect_in(r.out, want);
    free(want);
    sc_ct_result_free(&r);
    free(id);
}

static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n = getdelim(&buf, &cap, '\0', fp);
    fclose(fp);
    assert_true(n > 0);
    return buf;
}

/* Bodies drawn inside clusters of their nodes, none below --depth. */
static void test_render_draws_bodies_inside_nodes(void **state)
{
    fixture *f = *state;
    if (system("command -v dot >/dev/null 2>&1") != 0)
        fail_msg("Graphviz 'dot' is needed for this test (scripts/deps installs it)");
    char *id = sc_it_fmt("%llu", (unsigned long long)f->top);
    char *out = sc_it_fmt("%s/nest.svg", f->cli->tmp);
    sc_ct_result r = sc_cli_run(f->cli, "graph", "render", id, out, NULL);
    sc_cli_expect_status(&r, 0);
    sc_ct_result_free(&r);
    char *svg = slurp(out);
    sc_cli_expect_in(svg, "<title>cluster_n1</title>");
    expect_line_in(svg, "<title>cluster_g%llu_</title>", f->child);
    expect_line_in(svg, "<title>cluster_g%llu_n1</title>", f->child);
    expect_line_in(svg, "<title>cluster_g%llu_</title>", f->grandkid);
    expect_line_in(svg, "<title>cluster_g%llu_</title>", f->cond[1]);
    expect_line_in(svg, ">body 0: graph %llu</text>", f->child);
    sc_cli_expect_in(svg, ">deepest</text>");
    /* The body's nodes are its own, apart from the parent's n0. */
    expect_line_in(svg, "<title>g%llu_n0</title>", f->child);
    sc_cli_expect_in(svg, "<title>n0</title>");
    free(svg);

    r = sc_cli_run(f->cli, "graph", "render", "--depth", "1", id, out, NULL);
    sc_cli_expect_status(&r, 0);
    sc_ct_result_free(&r);
    svg = slurp(out);
    expect_line_in(svg, "<title>cluster_g%llu_</title>", f->child);
    assert_null(strstr(svg, ">deepest</text>"));
    free(svg);
    free(out);
    free(id);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_show_prints_bodies_under_their_nodes),
        cmocka_unit_test(test_show_json_gives_body_ids),
        cmocka_unit_test(test_render_draws_bodies_inside_nodes),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
