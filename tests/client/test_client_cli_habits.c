/*
 * The streamcap tool's habits, through the real binary against a real
 * streamcapd: pagination hints and empty pages, a closed pipe, several ids
 * and bulk deletion, the render size limit, live sessions, raw calls, and
 * replay's --strict and --check.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli_fixture.h"

#define SCENARIOS SC_TEST_DATA_DIR "/conformance_scenarios.jsonl"
#define EXPECTED  SC_TEST_DATA_DIR "/conformance_expected.jsonl"
#define BIG_NODES 6000 /* above the render limit, and more output than a pipe holds */

typedef struct fixture {
    sc_cli_fx *cli;
    uint64_t big; /* a graph of BIG_NODES kernels */
} fixture;

/* A graph of `nodes` kernels on stream 0, labelled `label`. */
static uint64_t make_graph(sc_client *c, const char *label, uint32_t nodes)
{
    uint64_t s;
    sc_client_captured g;
    assert_int_equal(sc_client_open_session(c, label, &s), 0);
    assert_int_equal(sc_client_pipeline_begin(c), 0);
    assert_int_equal(sc_client_begin_capture(c, s, 0), 0);
    for (uint32_t i = 0; i < nodes; i++)
        assert_int_equal(sc_client_record_kernel(c, s, 0, "k", 1, 32, 0, NULL), 0);
    sc_client_reply *rep;
    size_t n;
    assert_int_equal(sc_client_pipeline_collect(c, &rep, &n), 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(rep[i].rc, 0);
    sc_client_replies_free(rep, n);
    assert_int_equal(sc_client_end_capture(c, s, 0, &g), 0);
    return g.graph;
}

static int group_setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    f->cli = sc_cli_fx_new(30000);
    f->big = make_graph(f->cli->c, "big", BIG_NODES);
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

static char *id_text(uint64_t id)
{
    return sc_it_fmt("%llu", (unsigned long long)id);
}

/* ---------------------------------------------------------- listings */

static void test_empty_pages_say_what_is_empty(void **state)
{
    fixture *f = *state;
    sc_ct_result r = sc_cli_run(f->cli, "graphs", "--label", "no such label", NULL);
    sc_cli_expect_status(&r, 0);
    assert_string_equal(r.out, "no graphs match --label no such label\n");
    sc_ct_result_free(&r);
    r = sc_cli_run(f->cli, "log", "--outcome", "lost", NULL);
    sc_cli_expect_status(&r, 0);
    assert_string_equal(r.out, "no log entries with outcome lost\n");
    sc_ct_result_free(&r);
}

static void test_pagination_hint_keeps_filters(void **state)
{
    fixture *f = *state;
    make_graph(f->cli->c, "paged 'q'", 1);
    uint64_t second = make_graph(f->cli->c, "paged 'q'", 1);
    (void)second;
    sc_ct_result r = sc_cli_run(f->cli, "graphs", "--label", "paged 'q'", "--limit", "1", NULL);
    sc_cli_expect_status(&r, 0);
    assert_null(strstr(r.out, "more:"));
    const char *head = "more: streamcap graphs --label 'paged '\\''q'\\''' --limit 1 --before ";
    if (strncmp(r.err, head, strlen(head)) != 0)
        fail_msg("hint [%s], want it to start [%s]", r.err, head);
    /* The hint, run as printed, is the next page of the same filter. */
    char *script = sc_it_fmt("$SC %s", r.err + strlen("more: streamcap "));
    sc_ct_result_free(&r);
    r = sc_cli_sh(f->cli, script);
    free(script);
    sc_cli_expect_status(&r, 0);
    assert_int_equal(strncmp(r.out, "GRAPH", 5), 0);
    sc_cli_expect_in(r.out, "paged 'q'\n");
    /* Two graphs of that label, one a page: the last page has no hint. */
    assert_string_equal(r.err, "");
    sc_ct_result_free(&r);

    r = sc_cli_run(f->cli, "log", "--outcome", "completed", "--limit", "1", NULL);
    sc_cli_expect_status(&r, 0);
    sc_cli_expect_in(r.err, "more: streamcap log --outcome completed --limit 1 --before ");
    assert_null(strstr(r.out, "more:"));
    sc_ct_result_free(&r);
}

/* -------------------------------------------------------------- pipes */

static void test_closed_pipe_is_quiet_success(void **state)
{
    fixture *f = *state;
    char *id = id_text(f->big);
    static const char *const cmds[] = {"--json graph show", "graph show", "graph dot"};
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        char *script = sc_it_fmt("{ $SC %s %s 2>$T/err; echo $? >$T/st; } | head -c 100 "
                                 ">/dev/null; cat $T/st; cat $T/err",
                                 cmds[i], id);
        sc_ct_result r = sc_cli_sh(f->cli, script);
        sc_cli_expect_status(&r, 0);
        if (strcmp(r.out, "0\n") != 0)
            fail_msg("%s | head: status and stderr [%s]", cmds[i], r.out);
        free(script);
        sc_ct_result_free(&r);
    }
    /* A write that fails for another reason is still an error. */
    char *script = sc_it_fmt("$SC graph show %s >/dev/full", id);
    sc_ct_result r = sc_cli_sh(f->cli, script);
    sc_cli_expect_status(&r, 2);
    sc_cli_expect_in(r.err, "streamcap: cannot write to standard output");
    free(script);
    sc_ct_result_free(&r);
    free(id);
}

/* ----------------------------------------------------------- deleting */

static void test_graph_rm_several(void **state)
{
    fixture *f = *state;
    char *a = id_text(make_graph(f->cli->c, "rm", 1)), *b = id_text(make_graph(f->cli->c, "rm", 1));
    sc_ct_result r = sc_cli_run(f->cli, "graph", "rm", a, "9007199254740991", b, NULL);
    sc_cli_expect_status(&r, 2);
    char *want = sc_it_fmt("deleted graph %s\ndeleted graph %s\n", a, b);
    assert_string_equal(r.out, want);
    free(want);
    assert_string_equal(r.err, "streamcap: graph 9007199254740991 not found\n");
    sc_ct_result_free(&r);
    sc_client_graph g;
    assert_int_equal(sc_client_graph_get(f->cli->c, strtoull(b, NULL, 10), &g),
                     SC_CLIENT_ENOTFOUND);

    char *c = id_text(make_graph(f->cli->c, "rm", 1)), *d = id_text(make_graph(f->cli->c, "rm", 1));
    r = sc_cli_run(f->cli, "--json", "graph", "rm", c, d, NULL);
    sc_cli_expect_status(&r, 0);
    want = sc_it_fmt("{\"deleted\":[%s,%s],\"failed\":[]}\n", c, d);
    assert_string_equal(r.out, want);
    free(want);
    sc_ct_result_free(&r);
    /* A bad id deletes nothing. */
    char *e = id_text(make_graph(f->cli->c, "rm", 1));
    r = sc_cli_run(f->cli, "graph", "rm", e, "x", NULL);
    sc_cli_expect_status(&r, 2);
    sc_cli_expect_in(r.err, "'x' is not a graph id");
    assert_int_equal(sc_client_graph_get(f->cli->c, strtoull(e, NULL, 10), &g), 0);
    sc_client_graph_free(&g);
    sc_ct_result_free(&r);
    free(a);
    free(b);
    free(c);
    free(d);
    free(e);
}

static bool exists(fixture *f, uint64_t id)
{
    sc_client_graph g;
    int rc = sc_client_graph_get(f->cli->c, id, &g);
    if (rc == 0)
        sc_client_graph_free(&g);
    return rc == 0;
}

static void test_prune(void **state)
{
    fixture *f = *state;
    uint64_t ids[3];
    for (int i = 0; i < 3; i++)
        ids[i] = make_graph(f->cli->c, "prune me", 1);
    uint64_t other = make_graph(f->cli->c, "keep me", 1);
    char *third = id_text(ids[2]);

    /* Nothing to select by: the daemon's policy, and this one has none. */
    sc_ct_result r = sc_cli_run(f->cli, "prune", NULL);
    sc_cli_expect_status(&r, 2);
    sc_cli_expect_in(r.err, "no policy");
    sc_ct_result_free(&r);
    r = sc_cli_run(f->cli, "prune", "--older-than", "5x", NULL);
    sc_cli_expect_status(&r, 2);
    sc_cli_expect_in(r.err, "30s, 15m, 2h or 7d");
    sc_ct_result_free(&r);

    r = sc_cli_run(f->cli, "prune", "--label", "prune me", "--dry-run", NULL);
    sc_cli_expect_status(&r, 0);
    sc_cli_expect_in(r.out, "would delete 3 graphs\n");
    assert_true(exists(f, ids[0]) && exists(f, ids[2]));
    sc_ct_result_free(&r);

    r = sc_cli_run(f->cli, "prune", "--label", "prune me", "--before", third, NULL);
    sc_cli_expect_status(&r, 0);
    assert_string_equal(r.out, "deleted 2 graphs\n");
    assert_false(exists(f, ids[0]) || exists(f, ids[1]));
    assert_true(exists(f, ids[2]) && exists(f, other));
    sc_ct_result_free(&r);

    r = sc_cli_run(f->cli, "prune", "--label", "prune me", "--older-than", "1d", NULL);
    sc_cli_expect_status(&r, 0);
    assert_string_equal(r.out, "deleted 0 graphs\n");
    sc_ct_result_free(&r);
    r = sc_cli_run(f->cli, "--json", "prune", "--label", "prune me", "--older-than", "0s", NULL);
    sc_cli_expect_status(&r, 0);
    assert_string_equal(r.out, "{\"dry_run\":false,\"deleted\":1}\n");
    assert_false(exists(f, ids[2]));
    assert_true(exists(f, other));
    sc_ct_result_free(&r);
    free(third);
}

/* ------------------------------------------------------------- render */

static void test_render_refuses_huge_graphs(void **state)
{
    fixture *f = *state;
    if (system("command -v dot >/dev/null 2>&1") != 0)
        fail_msg("Graphviz 'dot' is needed for this test (scripts/deps installs it)");
    char *id = id_text(f->big);
    char *out = sc_it_fmt("%s/big.svg", f->cli->tmp);
    sc_ct_result r = sc_cli_run(f->cli, "graph", "render", id, out, NULL);
    sc_cli_expect_status(&r, 2);
    char *want = sc_it_fmt("streamcap: graph %s has %d nodes; Graphviz cannot draw that many", id,
                           BIG_NODES);
    sc_cli_expect_in(r.err, want);
    sc_cli_expect_in(r.err, "--max-nodes N");
    sc_cli_expect_in(r.err, "graph dot");
    assert_int_equal(access(out, F_OK), -1);
    free(want);
    sc_ct_result_free(&r);

    char *small = id_text(make_graph(f->cli->c, "small", 3));
    r = sc_cli_run(f->cli, "graph", "render", small, out, "--max-nodes", "2", NULL);
    sc_cli_expect_status(&r, 2);
    sc_cli_expect_in(r.err, "has 3 nodes");
    assert_int_equal(access(out, F_OK), -1);
    sc_ct_result_free(&r);
    r = sc_cli_run(f->cli, "graph", "render", "--max-nodes=3", small, out, NULL);
    sc_cli_expect_status(&r, 0);
    assert_int_equal(access(out, F_OK), 0);
    sc_ct_result_free(&r);
    r = sc_cli_run(f->cli, "graph", "render", small, out, "--max-nodes", "lots", NULL);
    sc_cli_expect_status(&r, 2);
    sc_cli_expect_in(r.err, "--max-nodes takes a number");
    sc_ct_result_free(&r);
    free(small);
    free(out);
    free(id);
}

/* ----------------------------------------------------------- sessions */

static void test_sessions_list_and_close(void **state)
{
    fixture *f = *state;
    uint64_t a, b;
    assert_int_equal(sc_client_open_session(f->cli->c, "listed", &a), 0);
    assert_int_equal(sc_client_open_session(f->cli->c, NULL, &b), 0);
    assert_int_equal(sc_client_begin_capture(f->cli->c, b, 0), 0);
    assert_int_equal(sc_client_record_kernel(f->cli->c, b, 0, "k", 1, 1, 0, NULL), 0);

    sc_ct_result r = sc_cli_run(f->cli, "--json", "sessions", NULL);
    sc_cli_expect_status(&r, 0);
    cJSON *j = cJSON_Parse(r.out);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(j, "sessions");
    assert_int_equal(cJSON_GetArraySize(list), 2);
    const cJSON *sa = cJSON_GetArrayItem(list, 0), *sb = cJSON_GetArrayItem(list, 1);
    assert_int_equal(sc_it_int(sa, "session"), a);
    assert_string_equal(sc_it_str(sa, "label"), "listed");
    assert_int_equal(sc_it_int(sa, "owner_uid"), getuid());
    assert_int_equal(sc_it_int(sa, "owner_pid"), getpid());
    assert_string_equal(sc_it_str(sa, "semantics"), "oxicuda");
    assert_int_equal(sc_it_int(sa, "node_count"), 0);
    assert_int_equal(sc_it_int(sb, "session"), b);
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(sb, "label")));
    assert_int_equal(sc_it_int(sb, "node_count"), 1);
    /* opened_at is the time the log has for the session. */
    sc_client_log_page p;
    assert_int_equal(sc_client_log_list(f->cli->c, &(sc_client_list_opts){.filter = "open"}, &p),
                     0);
    bool seen = false;
    for (size_t i = 0; i < p.count; i++) {
        if (p.entries[i].session == a) {
            assert_string_equal(p.entries[i].opened_at, sc_it_str(sa, "opened_at"));
            seen = true;
        }
    }
    assert_true(seen);
    sc_client_log_page_free(&p);
    cJSON_Delete(j);
    sc_ct_result_free(&r);

    r = sc_cli_run(f->cli, "sessions", NULL);
    sc_cli_expect_status(&r, 0);
    assert_int_equal(strncmp(r.out, "SESSION", 7), 0);
    sc_cli_expect_in(r.out, "oxicuda");
    sc_cli_expect_in(r.out, "listed\n");
    sc_ct_result_free(&r);

    char *ida = id_text(a);
    r = sc_cli_run(f->cli, "session", "close", ida, NULL);
    sc_cli_expect_status(&r, 0);
    char *want = sc_it_fmt("closed session %s\n", ida);
    assert_string_equal(r.out, want);
    free(want);
    sc_ct_result_free(&r);
    r = sc_cli_run(f->cli, "session", "close", ida, NULL);
    sc_cli_expect_status(&r, 2);
    sc_cli_expect_in(r.err, "not found");
    sc_ct_result_free(&r);
    free(ida);
    assert_int_equal(sc_client_close_session(f->cli->c, b), 0);
    r = sc_cli_run(f->cli, "sessions", NULL);
    sc_cli_expect_status(&r, 0);
    assert_string_equal(r.out, "no live sessions\n");
    sc_ct_result_free(&r);
    r = sc_cli_run(f->cli, "session", "--help", NULL);
    sc_cli_expect_status(&r, 0);
    sc_cli_expect_in(r.out, "close ID");
    sc_ct_result_free(&r);
}

/* --------------------------------------------------------------- call */

static void test_call(void **state)
{
    fixture *f = *state;
    sc_ct_result r = sc_cli_run(f->cli, "call", "server.info", NULL);
    sc_cli_expect_status(&r, 0);
    cJSON *j = cJSON_Parse(r.out);
    assert_non_null(j);
    assert_string_equal(sc_it_str(j, "version"), SC_EXPECTED_VERSION);
    cJSON_Delete(j);
    sc_ct_result_free(&r);

    char *id = id_text(f->big);
    char *params = sc_it_fmt("{\n  \"graph\": %s,\n  \"from\": 0, \"to\": 5\n}", id);
    r = sc_cli_run(f->cli, "call", "graph.reachable", params, NULL);
    sc_cli_expect_status(&r, 0);
    assert_string_equal(r.out, "{\"reachable\":true}\n");
    sc_ct_result_free(&r);
    free(params);
    free(id);

    r = sc_cli_run(f->cli, "call", "graph.get", "{\"graph\": 9007199254740991}", NULL);
    sc_cli_expect_status(&r, 2);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, "streamcap: error 1001: graph 9007199254740991 not found\n");
    sc_ct_result_free(&r);
    r = sc_cli_run(f->cli, "call", "no.such", NULL);
    sc_cli_expect_status(&r, 2);
    sc_cli_expect_in(r.err, "error -32601: ");
    sc_ct_result_free(&r);
    r = sc_cli_run(f->cli, "call", "graph.list", "{\"limit\": 1", NULL);
    sc_cli_expect_status(&r, 2);
    sc_cli_expect_in(r.err, "PARAMS is not valid JSON: {\"limit\": 1\n");
    sc_cli_expect_in(r.err, "usage: streamcap [OPTIONS] call METHOD");
    sc_ct_result_free(&r);
}

/* ------------------------------------------------------------- replay */

static void test_replay_check(void **state)
{
    fixture *f = *state;
    sc_ct_result r = sc_cli_run(f->cli, "replay", "--check", EXPECTED, SCENARIOS, NULL);
    sc_cli_expect_status(&r, 0);
    char *want = sc_it_fmt("check: every result matches %s\n", EXPECTED);
    sc_cli_expect_in(r.out, want);
    free(want);
    sc_ct_result_free(&r);

    /* One result and one edge changed: both found, each where it is. */
    char *text = sc_it_read_file(EXPECTED);
    assert_non_null(text);
    char *p = strstr(text, "{\"ok\":true,\"node\":1}");
    assert_non_null(p);
    p[strlen("{\"ok\":true,\"node\":")] = '7';
    p = strstr(text, "\"edges\":[[0,1],[0,2]");
    assert_non_null(p);
    p[strlen("\"edges\":[[0,1],[0,")] = '1';
    char *altered = sc_cli_write_file(f->cli, "altered.jsonl", text);
    free(text);
    r = sc_cli_run(f->cli, "replay", "--check", altered, SCENARIOS, NULL);
    sc_cli_expect_status(&r, 1);
    want = sc_it_fmt("streamcap: %s:1: seed_fork_join: op 5 (kernel): expected "
                     "{\"ok\":true,\"node\":7}, got {\"ok\":true,\"node\":1}\n",
                     SCENARIOS);
    sc_cli_expect_in(r.err, want);
    free(want);
    sc_cli_expect_in(r.err, ": seed_fork_join: graph edges: expected [[0,1],[0,1],");
    sc_cli_expect_in(r.out, "check: 2 differences from ");
    sc_ct_result_free(&r);

    r = sc_cli_run(f->cli, "--json", "replay", SCENARIOS, "--check", altered, NULL);
    sc_cli_expect_status(&r, 1);
    cJSON *j = cJSON_Parse(r.out);
    assert_int_equal(sc_it_int(cJSON_GetObjectItemCaseSensitive(j, "summary"), "differences"), 2);
    cJSON_Delete(j);
    sc_ct_result_free(&r);

    /* An expected file that does not line up with the scenarios. */
    char *one = sc_cli_write_file(f->cli, "one.jsonl", "");
    r = sc_cli_run(f->cli, "replay", "--check", one, SCENARIOS, NULL);
    sc_cli_expect_status(&r, 1);
    sc_cli_expect_in(r.err, "has no line for this scenario");
    sc_ct_result_free(&r);
    r = sc_cli_run(f->cli, "replay", "--check", SCENARIOS, SCENARIOS, NULL);
    sc_cli_expect_status(&r, 1);
    sc_cli_expect_in(r.err, "seed_fork_join: expected 0 results, the scenario has 11 ops");
    sc_ct_result_free(&r);
    r = sc_cli_run(f->cli, "replay", "--check", NULL);
    sc_cli_expect_status(&r, 2);
    sc_cli_expect_in(r.err, "--check takes the file of expected results");
    sc_ct_result_free(&r);
    free(one);
    free(altered);
}

static void test_replay_strict(void **state)
{
    fixture *f = *state;
    char *path = sc_cli_write_file(f->cli, "refused.jsonl",
                                   "{\"name\":\"fine\",\"ops\":[{\"op\":\"begin\",\"stream\":0}]}\n"
                                   "{\"name\":\"refused\",\"ops\":[{\"op\":\"begin\",\"stream\":0},"
                                   "{\"op\":\"kernel\",\"stream\":1,\"name\":\"k\",\"blocks\":1,"
                                   "\"threads\":1}]}\n");
    sc_ct_result r = sc_cli_run(f->cli, "replay", path, NULL);
    sc_cli_expect_status(&r, 0);
    assert_string_equal(r.err, "");
    sc_cli_expect_in(r.out, ": 3 ops, 1 errors, 0 graphs stored");
    sc_ct_result_free(&r);
    r = sc_cli_run(f->cli, "replay", "--strict", path, NULL);
    sc_cli_expect_status(&r, 2);
    char *want = sc_it_fmt("streamcap: %s:2: refused: op 1 (kernel) refused: ", path);
    sc_cli_expect_in(r.err, want);
    free(want);
    sc_cli_expect_in(r.err, "streamcap: --strict: the daemon refused 1 request\n");
    sc_ct_result_free(&r);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_pages_say_what_is_empty),
        cmocka_unit_test(test_pagination_hint_keeps_filters),
        cmocka_unit_test(test_closed_pipe_is_quiet_success),
        cmocka_unit_test(test_graph_rm_several),
        cmocka_unit_test(test_prune),
        cmocka_unit_test(test_render_refuses_huge_graphs),
        cmocka_unit_test(test_sessions_list_and_close),
        cmocka_unit_test(test_call),
        cmocka_unit_test(test_replay_check),
        cmocka_unit_test(test_replay_strict),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
