/*
 * The streamcap tool as a user runs it: every subcommand as a subprocess
 * against a real streamcapd, its stdout, stderr and exit status, its
 * --json output parsed back, and a replay of the conformance corpus
 * compared with the expected results.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli_fixture.h"

#define SCENARIOS SC_TEST_DATA_DIR "/conformance_scenarios.jsonl"
#define EXPECTED  SC_TEST_DATA_DIR "/conformance_expected.jsonl"
/* The hint for the default socket; a socket the user named gets its own
 * (no_daemon_at), and one that exists but refuses gets none. */
#define NO_DAEMON                                                                                  \
    ": no daemon is listening (start one with 'streamcapd', or 'make run' in a source tree)\n"
#define NO_DAEMON_AT                                                                               \
    "streamcap: cannot connect to %s: no daemon is listening (start one with "                     \
    "'streamcapd --socket %s')\n"
#define STALE ": no daemon is listening (the socket file is left from one that stopped)\n"

static int group_setup(void **state)
{
    *state = sc_cli_fx_new(10000);
    return 0;
}

/* ---------------------------------------------------------- running */

/* stdout must be exactly one JSON document on one line. */
static cJSON *json_out(const sc_ct_result *r)
{
    size_t n = strlen(r->out);
    if (n == 0 || r->out[n - 1] != '\n' || memchr(r->out, '\n', n - 1))
        fail_msg("stdout is not one line: [%s]\nstderr: %s", r->out, r->err);
    cJSON *v = cJSON_Parse(r->out);
    if (!cJSON_IsObject(v))
        fail_msg("stdout is not a JSON object: %s", r->out);
    return v;
}

/* Run demo with --json and return its graph id. */
static uint64_t demo_graph(sc_cli_fx *f)
{
    sc_ct_result r = sc_cli_run(f, "--json", "demo", NULL);
    sc_cli_expect_status(&r, 0);
    cJSON *j = json_out(&r);
    uint64_t g = (uint64_t)sc_it_int(j, "graph");
    cJSON_Delete(j);
    sc_ct_result_free(&r);
    return g;
}

/* ------------------------------------------------------- no daemon */

static const char *const every_command[][6] = {
    {"ping"},
    {"info"},
    {"demo"},
    {"replay", SCENARIOS},
    {"graphs"},
    {"graph", "show", "1"},
    {"graph", "dot", "1"},
    {"graph", "render", "1", "/tmp/never-written.svg"},
    {"graph", "reach", "1", "0", "1"},
    {"graph", "rm", "1"},
    {"log"},
};

static void test_no_daemon_every_command(void **state)
{
    sc_cli_fx *f = *state;
    char *sock = sc_it_fmt("%s/absent.sock", f->tmp);
    char *want = sc_it_fmt(NO_DAEMON_AT, sock, sock);
    for (size_t i = 0; i < sizeof(every_command) / sizeof(every_command[0]); i++) {
        for (int json = 0; json < 2; json++) {
            const char *argv[12] = {SC_CLI_STREAMCAP, "--socket", sock};
            int n = 3;
            if (json)
                argv[n++] = "--json";
            for (int k = 0; every_command[i][k]; k++)
                argv[n++] = every_command[i][k];
            argv[n] = NULL;
            sc_ct_result r;
            assert_int_equal(sc_ct_run(argv, NULL, &r), 0);
            sc_cli_expect_status(&r, 2);
            if (strcmp(r.err, want) != 0)
                fail_msg("%s: stderr [%s], want [%s]", every_command[i][0], r.err, want);
            if (json) {
                cJSON *j = json_out(&r);
                const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");
                assert_non_null(e);
                char *msg = sc_it_fmt("%s", want + strlen("streamcap: "));
                msg[strlen(msg) - 1] = '\0';
                assert_string_equal(sc_it_str(e, "message"), msg);
                free(msg);
                cJSON_Delete(j);
            } else {
                assert_string_equal(r.out, "");
            }
            sc_ct_result_free(&r);
        }
    }
    free(want);
    free(sock);
}

static void test_no_daemon_socket_choice(void **state)
{
    sc_cli_fx *f = *state;
    /* Default: under $XDG_RUNTIME_DIR, wherever the tool runs; its
     * directory is the daemon's to make, so starting one is the fix. */
    const char *const unset[] = {"STREAMCAP_SOCKET", NULL};
    char *xdg = sc_it_fmt("XDG_RUNTIME_DIR=%s/xdg", f->tmp);
    const char *const xdg_env[] = {xdg, NULL};
    sc_ct_opts o = {.cwd = f->tmp, .unsetenv = unset, .setenv = xdg_env};
    sc_ct_result r = sc_cli_run_opts(NULL, &o, "ping", NULL);
    sc_cli_expect_status(&r, 2);
    char *want =
        sc_it_fmt("streamcap: cannot connect to %s/xdg/streamcap/streamcap.sock" NO_DAEMON, f->tmp);
    assert_string_equal(r.err, want);
    free(want);
    free(xdg);
    sc_ct_result_free(&r);

    /* $STREAMCAP_SOCKET when set; --socket wins over it. */
    char *env = sc_it_fmt("STREAMCAP_SOCKET=%s/env.sock", f->tmp);
    const char *const set[] = {env, NULL};
    sc_ct_opts oe = {.setenv = set};
    r = sc_cli_run_opts(NULL, &oe, "info", NULL);
    sc_cli_expect_status(&r, 2);
    want =
        sc_it_fmt("streamcap: cannot connect to %s" NO_DAEMON, env + strlen("STREAMCAP_SOCKET="));
    assert_string_equal(r.err, want);
    free(want);
    sc_ct_result_free(&r);
    r = sc_cli_run_opts(sc_it_daemon_socket(f->d), &oe, "ping", NULL);
    sc_cli_expect_status(&r, 0);
    sc_ct_result_free(&r);
    free(env);

    /* A socket file that refuses counts as no daemon too, but starting one
     * is not the whole story: say what the file is. */
    char *dead = sc_it_fmt("%s/dead.sock", f->tmp);
    int fd = sc_it_socket_bind(dead);
    assert_true(fd >= 0);
    r = sc_cli_run_opts(dead, NULL, "graphs", NULL);
    sc_cli_expect_status(&r, 2);
    want = sc_it_fmt("streamcap: cannot connect to %s" STALE, dead);
    assert_string_equal(r.err, want);
    free(want);
    sc_ct_result_free(&r);
    close(fd);
    free(dead);

    /* Anything else is the system's own words. */
    r = sc_cli_run_opts("/etc/passwd/x.sock", NULL, "ping", NULL);
    sc_cli_expect_status(&r, 2);
    assert_string_equal(r.err,
                        "streamcap: cannot connect to /etc/passwd/x.sock: Not a directory\n");
    sc_ct_result_free(&r);
}

/* ------------------------------------------------------------ help */

static void test_help(void **state)
{
    sc_cli_fx *f = *state;
    static const char *const names[] = {"ping",
                                        "info",
                                        "demo",
                                        "replay FILE",
                                        "graphs",
                                        "graph show ID",
                                        "graph dot ID",
                                        "graph render ID OUT",
                                        "graph reach ID A B",
                                        "graph rm ID",
                                        "log"};
    sc_ct_result r = sc_cli_run(f, "--help", NULL);
    sc_cli_expect_status(&r, 0);
    assert_string_equal(r.err, "");
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (!strstr(r.out, names[i]))
            fail_msg("--help does not list '%s':\n%s", names[i], r.out);
    }
    assert_non_null(strstr(r.out, "--socket PATH"));
    assert_non_null(strstr(r.out, "--json"));
    assert_non_null(strstr(r.out, "Exit status:\n  0  success\n  1  "));
    assert_non_null(strstr(r.out, "\n  2  an error"));
    sc_ct_result h = sc_cli_run(f, "help", NULL);
    assert_string_equal(h.out, r.out);
    sc_ct_result_free(&h);
    sc_ct_result_free(&r);

    /* Every command has its own --help, also reachable as "help CMD". */
    for (size_t i = 0; i < sizeof(every_command) / sizeof(every_command[0]); i++) {
        const char *const *cmd = every_command[i];
        bool group = strcmp(cmd[0], "graph") == 0;
        r = group ? sc_cli_run(f, cmd[0], cmd[1], "--help", NULL)
                  : sc_cli_run(f, cmd[0], "--help", NULL);
        sc_cli_expect_status(&r, 0);
        char *head = group ? sc_it_fmt("usage: streamcap [OPTIONS] graph %s", cmd[1])
                           : sc_it_fmt("usage: streamcap [OPTIONS] %s", cmd[0]);
        if (strncmp(r.out, head, strlen(head)) != 0)
            fail_msg("help for %s starts [%.60s]", head, r.out);
        assert_non_null(strstr(r.out, "Exit status:"));
        h = group ? sc_cli_run(f, "help", cmd[0], cmd[1], NULL)
                  : sc_cli_run(f, "help", cmd[0], NULL);
        assert_string_equal(h.out, r.out);
        sc_ct_result_free(&h);
        free(head);
        sc_ct_result_free(&r);
    }
    r = sc_cli_run(f, "graph", "reach", "-h", NULL);
    sc_cli_expect_status(&r, 0);
    assert_non_null(strstr(r.out, "usage: streamcap [OPTIONS] graph reach ID A B\n"));
    assert_non_null(strstr(r.out, "1 when it does not"));
    sc_ct_result_free(&r);
    r = sc_cli_run(f, "graph", "--help", NULL);
    sc_cli_expect_status(&r, 0);
    assert_non_null(strstr(r.out, "reach ID A B"));
    assert_non_null(strstr(r.out, "render ID OUT"));
    sc_ct_result_free(&r);
}

static void test_bad_arguments(void **state)
{
    sc_cli_fx *f = *state;
    static const char *const cases[][6] = {
        {"graph", "reach", "1", "2"},
        {"graph", "reach", "1", "x", "2"},
        {"graph", "show", "abc"},
        {"graph", "show", "0"},
        {"graph", "show", "1", "2"},
        {"graph", "dot"},
        {"graph", "render", "1", "a.txt"},
        {"graph", "rm"},
        {"graphs", "--limit", "0"},
        {"graphs", "--bogus"},
        {"log", "--limit"},
        {"replay"},
        {"replay", "a", "b"},
        {"ping", "extra"},
        {"info", "x"},
        {"demo", "x"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *argv[12] = {SC_CLI_STREAMCAP, "--socket", sc_it_daemon_socket(f->d)};
        int n = 3;
        for (int k = 0; cases[i][k]; k++)
            argv[n++] = cases[i][k];
        argv[n] = NULL;
        sc_ct_result r;
        assert_int_equal(sc_ct_run(argv, NULL, &r), 0);
        sc_cli_expect_status(&r, 2);
        char *usage = strcmp(cases[i][0], "graph") == 0
                          ? sc_it_fmt("usage: streamcap [OPTIONS] graph %s", cases[i][1])
                          : sc_it_fmt("usage: streamcap [OPTIONS] %s", cases[i][0]);
        if (strncmp(r.err, "streamcap: ", 11) != 0 || !strstr(r.err, usage))
            fail_msg("case %zu: stderr lacks the message or [%s]:\n%s", i, usage, r.err);
        assert_string_equal(r.out, "");
        free(usage);
        sc_ct_result_free(&r);
    }
    sc_ct_result r = sc_cli_run(f, NULL);
    sc_cli_expect_status(&r, 2);
    assert_non_null(strstr(r.err, "usage: streamcap"));
    sc_ct_result_free(&r);
    r = sc_cli_run(f, "bogus", NULL);
    sc_cli_expect_status(&r, 2);
    assert_string_equal(r.err, "streamcap: unknown command 'bogus' (try 'streamcap --help')\n");
    sc_ct_result_free(&r);
    r = sc_cli_run(f, "graph", "bogus", NULL);
    sc_cli_expect_status(&r, 2);
    assert_non_null(strstr(r.err, "unknown graph subcommand 'bogus'"));
    sc_ct_result_free(&r);
    r = sc_cli_run(f, "--json", "graph", "show", "abc", NULL);
    sc_cli_expect_status(&r, 2);
    cJSON *j = json_out(&r);
    assert_non_null(
        strstr(sc_it_str(cJSON_GetObjectItemCaseSensitive(j, "error"), "message"), "abc"));
    cJSON_Delete(j);
    sc_ct_result_free(&r);
}

/* ---------------------------------------------------- ping and info */

static void test_ping(void **state)
{
    sc_cli_fx *f = *state;
    sc_ct_result r = sc_cli_run(f, "ping", NULL);
    sc_cli_expect_status(&r, 0);
    char *head =
        sc_it_fmt("pong from %s: streamcapd %s, ", sc_it_daemon_socket(f->d), SC_EXPECTED_VERSION);
    assert_int_equal(strncmp(r.out, head, strlen(head)), 0);
    assert_non_null(strstr(r.out, " ms\n"));
    free(head);
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "ping", "--json", NULL);
    sc_cli_expect_status(&r, 0);
    cJSON *j = json_out(&r);
    assert_string_equal(sc_it_str(j, "version"), SC_EXPECTED_VERSION);
    assert_string_equal(sc_it_str(j, "socket"), sc_it_daemon_socket(f->d));
    const cJSON *rtt = cJSON_GetObjectItemCaseSensitive(j, "rtt_ms");
    assert_true(cJSON_IsNumber(rtt) && rtt->valuedouble >= 0);
    cJSON_Delete(j);
    sc_ct_result_free(&r);
}

static void test_info(void **state)
{
    sc_cli_fx *f = *state;
    sc_client_server_desc d;
    assert_int_equal(sc_client_server_info(f->c, &d), 0);
    sc_ct_result r = sc_cli_run(f, "info", NULL);
    sc_cli_expect_status(&r, 0);
    char *want = sc_it_fmt("streamcapd   %s\nsocket       %s\ndatabase     %s\nuptime       ",
                           d.version, sc_it_daemon_socket(f->d), d.db_path);
    if (strncmp(r.out, want, strlen(want)) != 0)
        fail_msg("info printed:\n%s\nwant it to start:\n%s", r.out, want);
    char *graphs = sc_it_fmt("\ngraphs       %llu\n", (unsigned long long)d.graphs);
    assert_non_null(strstr(r.out, graphs));
    assert_non_null(strstr(r.out, "\nconnections  "));
    assert_non_null(strstr(r.out, "\nsessions     "));
    free(graphs);
    free(want);
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "--json", "info", NULL);
    sc_cli_expect_status(&r, 0);
    cJSON *j = json_out(&r);
    assert_string_equal(sc_it_str(j, "version"), d.version);
    assert_string_equal(sc_it_str(j, "db_path"), d.db_path);
    assert_string_equal(sc_it_str(j, "socket"), sc_it_daemon_socket(f->d));
    assert_int_equal(sc_it_int(j, "graphs"), d.graphs);
    assert_true(sc_it_int(j, "connections") >= 2); /* the fixture's and the tool's */
    assert_true(sc_it_int(j, "uptime_s") >= 0);
    assert_true(sc_it_int(j, "sessions") >= 0);
    cJSON_Delete(j);
    sc_ct_result_free(&r);
    sc_client_server_desc_free(&d);
}

/* -------------------------------------------------------------- demo */

static void test_demo(void **state)
{
    sc_cli_fx *f = *state;
    sc_ct_result r = sc_cli_run(f, "demo", NULL);
    sc_cli_expect_status(&r, 0);
    assert_string_equal(r.err, "");
    assert_non_null(strstr(r.out, "upload -> relu (N0 -> N1): reachable\n"));
    assert_non_null(strstr(r.out, "relu -> download (N1 -> N2): reachable\n"));
    assert_non_null(strstr(r.out, "\"demo: fork/join\": 3 nodes, 3 edges\n"));
    assert_non_null(strstr(r.out, "NODE  STREAM  KIND    NAME      DETAILS\n"));
    assert_non_null(strstr(r.out, "N1    1       kernel  relu      relu<<<4, 256, 0>>>\n"));
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "--json", "demo", NULL);
    sc_cli_expect_status(&r, 0);
    cJSON *j = json_out(&r);
    uint64_t g = (uint64_t)sc_it_int(j, "graph");
    assert_true(sc_it_int(j, "session") >= 1);
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(j, "nodes");
    assert_int_equal(cJSON_GetArraySize(nodes), 3);
    static const char *const names[] = {"upload", "relu", "download"};
    static const char *const kinds[] = {"memcpy", "kernel", "memcpy"};
    for (int i = 0; i < 3; i++) {
        const cJSON *n = cJSON_GetArrayItem(nodes, i);
        assert_int_equal(sc_it_int(n, "id"), i);
        assert_string_equal(sc_it_str(n, "name"), names[i]);
        assert_string_equal(sc_it_str(n, "kind"), kinds[i]);
        assert_int_equal(sc_it_int(n, "stream"), i == 1 ? 1 : 0);
    }
    char *edges = sc_it_json_text(cJSON_GetObjectItemCaseSensitive(j, "edges"));
    assert_string_equal(edges, "[[0,1],[0,2],[1,2]]");
    free(edges);
    char *reach = sc_it_json_text(cJSON_GetObjectItemCaseSensitive(j, "reachable"));
    assert_string_equal(reach, "[{\"from\":0,\"to\":1,\"reachable\":true},"
                               "{\"from\":1,\"to\":2,\"reachable\":true}]");
    free(reach);
    cJSON_Delete(j);
    sc_ct_result_free(&r);

    /* What the tool printed is what the daemon stored. */
    sc_client_graph sg;
    assert_int_equal(sc_client_graph_get(f->c, g, &sg), 0);
    assert_int_equal(sg.node_count, 3);
    assert_string_equal(sg.nodes[1].name, "relu");
    assert_int_equal(sg.nodes[0].size_bytes, 4096);
    assert_int_equal(sg.nodes[2].dir, SC_CLIENT_DEVICE_TO_HOST);
    sc_client_graph_free(&sg);
}

/* ------------------------------------------------------------ graphs */

static void test_graphs(void **state)
{
    sc_cli_fx *f = *state;
    uint64_t a = demo_graph(f), b = demo_graph(f);
    sc_ct_result r = sc_cli_run(f, "--json", "graphs", NULL);
    sc_cli_expect_status(&r, 0);
    cJSON *j = json_out(&r);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(j, "graphs");
    assert_true(cJSON_GetArraySize(list) >= 2);
    const cJSON *g0 = cJSON_GetArrayItem(list, 0);
    assert_int_equal(sc_it_int(g0, "graph"), b);
    assert_int_equal(sc_it_int(cJSON_GetArrayItem(list, 1), "graph"), a);
    assert_string_equal(sc_it_str(g0, "label"), "demo: fork/join");
    assert_int_equal(sc_it_int(g0, "node_count"), 3);
    assert_int_equal(sc_it_int(g0, "edge_count"), 3);
    assert_int_equal(sc_it_int(g0, "stream_count"), 2);
    assert_int_equal(sc_it_int(g0, "owner_uid"), getuid());
    assert_non_null(strstr(sc_it_str(g0, "created_at"), "T"));
    cJSON_Delete(j);
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "graphs", NULL);
    sc_cli_expect_status(&r, 0);
    assert_int_equal(strncmp(r.out, "GRAPH", 5), 0);
    char *row = sc_it_fmt("\n%llu ", (unsigned long long)b);
    assert_non_null(strstr(r.out, row));
    free(row);
    assert_non_null(strstr(r.out, "demo: fork/join\n"));
    sc_ct_result_free(&r);

    /* A page of one, then the next page through the printed cursor. */
    r = sc_cli_run(f, "--json", "graphs", "--limit", "1", NULL);
    sc_cli_expect_status(&r, 0);
    j = json_out(&r);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "graphs")), 1);
    const cJSON *next = cJSON_GetObjectItemCaseSensitive(j, "next");
    assert_true(next && !cJSON_IsNull(next));
    char *cursor = sc_it_json_text(next);
    cJSON_Delete(j);
    sc_ct_result_free(&r);

    /* The human form prints the argument that fetches the next page, on
     * stderr (with the page's own options) so stdout stays the listing. */
    r = sc_cli_run(f, "graphs", "--limit=1", NULL);
    sc_cli_expect_status(&r, 0);
    assert_null(strstr(r.out, "more:"));
    const char *more = strstr(r.err, "more: streamcap graphs --limit 1 --before ");
    assert_true(more == r.err);
    char *arg = strdup(more + strlen("more: streamcap graphs --limit 1 --before "));
    arg[strcspn(arg, "\n")] = '\0';
    size_t len = strlen(arg);
    if (len >= 2 && arg[0] == '\'' && arg[len - 1] == '\'') {
        memmove(arg, arg + 1, len - 2);
        arg[len - 2] = '\0';
    }
    sc_ct_result_free(&r);

    for (int form = 0; form < 2; form++) {
        r = sc_cli_run(f, "--json", "graphs", "--limit", "1", "--before", form ? arg : cursor,
                       NULL);
        sc_cli_expect_status(&r, 0);
        j = json_out(&r);
        const cJSON *page = cJSON_GetObjectItemCaseSensitive(j, "graphs");
        assert_int_equal(cJSON_GetArraySize(page), 1);
        assert_int_equal(sc_it_int(cJSON_GetArrayItem(page, 0), "graph"), a);
        cJSON_Delete(j);
        sc_ct_result_free(&r);
    }
    free(arg);
    free(cursor);

    r = sc_cli_run(f, "--json", "graphs", "--label", "no such label", NULL);
    sc_cli_expect_status(&r, 0);
    j = json_out(&r);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "graphs")), 0);
    cJSON_Delete(j);
    sc_ct_result_free(&r);
}

/* Column where `word` starts on the line that begins with `line_start`. */
static long column_of(const char *text, const char *line_start, const char *word)
{
    const char *p = text;
    while (p && *p) {
        if (strncmp(p, line_start, strlen(line_start)) == 0) {
            const char *eol = strchr(p, '\n');
            const char *w = strstr(p, word);
            if (w && (!eol || w < eol))
                return w - p;
            return -1;
        }
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return -1;
}

static void test_graph_show(void **state)
{
    sc_cli_fx *f = *state;
    uint64_t g = demo_graph(f);
    char id[32];
    snprintf(id, sizeof(id), "%llu", (unsigned long long)g);
    sc_ct_result r = sc_cli_run(f, "graph", "show", id, NULL);
    sc_cli_expect_status(&r, 0);
    char *head = sc_it_fmt("graph %s \"demo: fork/join\": 3 nodes, 3 edges\ncreated ", id);
    assert_int_equal(strncmp(r.out, head, strlen(head)), 0);
    free(head);
    char *by = sc_it_fmt(" by uid %u pid ", (unsigned)getuid());
    assert_non_null(strstr(r.out, by));
    free(by);
    /* The table is aligned: each column starts at the header's column. */
    long kind = column_of(r.out, "NODE", "KIND");
    long name = column_of(r.out, "NODE", "NAME");
    long details = column_of(r.out, "NODE", "DETAILS");
    assert_true(kind > 0 && name > kind && details > name);
    assert_int_equal(column_of(r.out, "N0 ", "memcpy"), kind);
    assert_int_equal(column_of(r.out, "N1 ", "kernel"), kind);
    assert_int_equal(column_of(r.out, "N2 ", "download"), name);
    assert_int_equal(column_of(r.out, "N0 ", "host_to_device, 4096 B"), details);
    assert_int_equal(column_of(r.out, "N2 ", "device_to_host, 4096 B"), details);
    long to = column_of(r.out, "FROM", "TO");
    assert_true(to > 0);
    assert_non_null(strstr(r.out, "\nN0    N1  upload -> relu\n"));
    assert_non_null(strstr(r.out, "\nN0    N2  upload -> download\n"));
    assert_non_null(strstr(r.out, "\nN1    N2  relu -> download\n"));
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "graph", "show", id, "--json", NULL);
    sc_cli_expect_status(&r, 0);
    cJSON *j = json_out(&r);
    sc_client_graph sg;
    assert_int_equal(sc_client_graph_get(f->c, g, &sg), 0);
    assert_int_equal(sc_it_int(j, "graph"), g);
    assert_string_equal(sc_it_str(j, "created_at"), sg.created_at);
    assert_int_equal(sc_it_int(j, "owner_pid"), sg.owner_pid);
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(j, "nodes");
    assert_int_equal(cJSON_GetArraySize(nodes), sg.node_count);
    for (size_t i = 0; i < sg.node_count; i++) {
        const cJSON *n = cJSON_GetArrayItem(nodes, (int)i);
        assert_string_equal(sc_it_str(n, "name"), sg.nodes[i].name);
        assert_string_equal(sc_it_str(n, "kind"), sc_client_kind_name(sg.nodes[i].kind));
    }
    const cJSON *k = cJSON_GetArrayItem(nodes, 1);
    assert_string_equal(sc_it_str(k, "function_name"), "relu");
    assert_int_equal(sc_it_int(k, "num_blocks"), 4);
    assert_int_equal(sc_it_int(k, "threads_per_block"), 256);
    assert_string_equal(sc_it_str(cJSON_GetArrayItem(nodes, 0), "dir"), "host_to_device");
    assert_int_equal(sc_it_int(cJSON_GetArrayItem(nodes, 0), "size_bytes"), 4096);
    char *edges = sc_it_json_text(cJSON_GetObjectItemCaseSensitive(j, "edges"));
    assert_string_equal(edges, "[[0,1],[0,2],[1,2]]");
    free(edges);
    sc_client_graph_free(&sg);
    cJSON_Delete(j);
    sc_ct_result_free(&r);
}

static void test_graph_dot(void **state)
{
    sc_cli_fx *f = *state;
    uint64_t g = demo_graph(f);
    char id[32];
    snprintf(id, sizeof(id), "%llu", (unsigned long long)g);
    char *text;
    assert_int_equal(sc_client_graph_export_dot(f->c, g, &text), 0);
    size_t n = strlen(text);
    sc_ct_result r = sc_cli_run(f, "graph", "dot", id, NULL);
    sc_cli_expect_status(&r, 0);
    /* The daemon's text, ending in one newline. */
    assert_int_equal(strncmp(r.out, text, n), 0);
    assert_string_equal(r.out + n, n && text[n - 1] == '\n' ? "" : "\n");
    assert_non_null(strstr(r.out, "digraph"));
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "--json", "graph", "dot", id, NULL);
    sc_cli_expect_status(&r, 0);
    cJSON *j = json_out(&r);
    assert_string_equal(sc_it_str(j, "text"), text);
    assert_string_equal(sc_it_str(j, "format"), "dot");
    assert_int_equal(sc_it_int(j, "graph"), g);
    cJSON_Delete(j);
    sc_ct_result_free(&r);
    free(text);
}

static char *read_head(const char *path, size_t n, long *size)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    char *buf = calloc(1, n + 1);
    assert_non_null(buf);
    size_t got = fread(buf, 1, n, fp);
    (void)got;
    fseek(fp, 0, SEEK_END);
    *size = ftell(fp);
    fclose(fp);
    return buf;
}

static void test_graph_render(void **state)
{
    sc_cli_fx *f = *state;
    if (access("/usr/bin/dot", X_OK) != 0 && system("command -v dot >/dev/null 2>&1") != 0)
        fail_msg("Graphviz 'dot' is needed for this test (scripts/deps installs it)");
    uint64_t g = demo_graph(f);
    char id[32];
    snprintf(id, sizeof(id), "%llu", (unsigned long long)g);

    char *svg = sc_it_fmt("%s/g.svg", f->tmp);
    sc_ct_result r = sc_cli_run(f, "graph", "render", id, svg, NULL);
    sc_cli_expect_status(&r, 0);
    long size = 0;
    char *head = read_head(svg, 256, &size);
    assert_non_null(head);
    assert_true(strstr(head, "<?xml") || strstr(head, "<svg"));
    char *want = sc_it_fmt("wrote %s (svg, %ld bytes)\n", svg, size);
    assert_string_equal(r.out, want);
    free(want);
    free(head);
    sc_ct_result_free(&r);

    char *png = sc_it_fmt("%s/g.PNG", f->tmp);
    r = sc_cli_run(f, "--json", "graph", "render", id, png, NULL);
    sc_cli_expect_status(&r, 0);
    head = read_head(png, 8, &size);
    assert_non_null(head);
    assert_memory_equal(head, "\x89PNG\r\n\x1a\n", 8);
    cJSON *j = json_out(&r);
    assert_string_equal(sc_it_str(j, "output"), png);
    assert_string_equal(sc_it_str(j, "format"), "png");
    assert_int_equal(sc_it_int(j, "bytes"), size);
    cJSON_Delete(j);
    free(head);
    sc_ct_result_free(&r);

    /* Without Graphviz on PATH: a clear message and no file. */
    char *none = sc_it_fmt("%s/none.svg", f->tmp);
    const char *const env[] = {"PATH=/nonexistent", NULL};
    sc_ct_opts o = {.setenv = env};
    r = sc_cli_run_opts(sc_it_daemon_socket(f->d), &o, "graph", "render", id, none, NULL);
    sc_cli_expect_status(&r, 2);
    assert_non_null(strstr(r.err, "streamcap: cannot render: Graphviz 'dot' is not installed"));
    assert_non_null(strstr(r.err, "'streamcap graph dot "));
    assert_int_equal(access(none, F_OK), -1);
    sc_ct_result_free(&r);

    /* An unknown graph: the daemon's message, nothing written. */
    r = sc_cli_run(f, "graph", "render", "9007199254740991", none, NULL);
    sc_cli_expect_status(&r, 2);
    assert_int_equal(access(none, F_OK), -1);
    sc_ct_result_free(&r);
    free(none);
    free(svg);
    free(png);
}

static void test_graph_reach(void **state)
{
    sc_cli_fx *f = *state;
    uint64_t g = demo_graph(f);
    char id[32];
    snprintf(id, sizeof(id), "%llu", (unsigned long long)g);
    sc_ct_result r = sc_cli_run(f, "graph", "reach", id, "0", "2", NULL);
    sc_cli_expect_status(&r, 0);
    assert_string_equal(r.out, "N0 -> N2: reachable\n");
    sc_ct_result_free(&r);
    r = sc_cli_run(f, "graph", "reach", id, "N2", "n0", NULL);
    sc_cli_expect_status(&r, 1);
    assert_string_equal(r.out, "N2 -> N0: not reachable\n");
    assert_string_equal(r.err, "");
    sc_ct_result_free(&r);
    r = sc_cli_run(f, "graph", "reach", id, "1", "1", NULL);
    sc_cli_expect_status(&r, 0);
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "--json", "graph", "reach", id, "2", "1", NULL);
    sc_cli_expect_status(&r, 1);
    cJSON *j = json_out(&r);
    assert_int_equal(sc_it_int(j, "graph"), g);
    assert_int_equal(sc_it_int(j, "from"), 2);
    assert_int_equal(sc_it_int(j, "to"), 1);
    assert_false(sc_it_bool(j, "reachable"));
    cJSON_Delete(j);
    sc_ct_result_free(&r);
    r = sc_cli_run(f, "--json", "graph", "reach", id, "1", "2", NULL);
    sc_cli_expect_status(&r, 0);
    j = json_out(&r);
    assert_true(sc_it_bool(j, "reachable"));
    cJSON_Delete(j);
    sc_ct_result_free(&r);

    /* Unknown node: an error, not a "no". */
    bool ans;
    assert_int_equal(sc_client_graph_reachable(f->c, g, 0, 9, &ans), SC_CLIENT_ENOTFOUND);
    char *want = sc_it_fmt("streamcap: %s\n", sc_client_errmsg(f->c));
    r = sc_cli_run(f, "graph", "reach", id, "0", "9", NULL);
    sc_cli_expect_status(&r, 2);
    assert_string_equal(r.err, want);
    assert_string_equal(r.out, "");
    free(want);
    sc_ct_result_free(&r);
}

static void test_graph_rm(void **state)
{
    sc_cli_fx *f = *state;
    uint64_t g = demo_graph(f);
    char id[32];
    snprintf(id, sizeof(id), "%llu", (unsigned long long)g);
    sc_ct_result r = sc_cli_run(f, "graph", "rm", id, NULL);
    sc_cli_expect_status(&r, 0);
    char *want = sc_it_fmt("deleted graph %s\n", id);
    assert_string_equal(r.out, want);
    free(want);
    sc_ct_result_free(&r);

    sc_client_graph sg;
    assert_int_equal(sc_client_graph_get(f->c, g, &sg), SC_CLIENT_ENOTFOUND);
    want = sc_it_fmt("streamcap: %s\n", sc_client_errmsg(f->c));
    r = sc_cli_run(f, "graph", "show", id, NULL);
    sc_cli_expect_status(&r, 2);
    assert_string_equal(r.err, want);
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "--json", "graph", "rm", id, NULL);
    sc_cli_expect_status(&r, 2);
    assert_string_equal(r.err, want);
    cJSON *j = json_out(&r);
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");
    assert_int_equal(sc_it_int(e, "code"), 1001);
    assert_int_equal(strncmp(want + 11, sc_it_str(e, "message"), strlen(sc_it_str(e, "message"))),
                     0);
    cJSON_Delete(j);
    sc_ct_result_free(&r);
    free(want);

    g = demo_graph(f);
    snprintf(id, sizeof(id), "%llu", (unsigned long long)g);
    r = sc_cli_run(f, "--json", "graph", "rm", id, NULL);
    sc_cli_expect_status(&r, 0);
    j = json_out(&r);
    assert_int_equal(sc_it_int(j, "graph"), g);
    assert_true(sc_it_bool(j, "deleted"));
    cJSON_Delete(j);
    sc_ct_result_free(&r);
}

/* --------------------------------------------------------------- log */

static void test_log(void **state)
{
    sc_cli_fx *f = *state;
    sc_ct_result r = sc_cli_run(f, "--json", "demo", NULL);
    sc_cli_expect_status(&r, 0);
    cJSON *d = json_out(&r);
    int64_t session = sc_it_int(d, "session"), graph = sc_it_int(d, "graph");
    cJSON_Delete(d);
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "--json", "log", NULL);
    sc_cli_expect_status(&r, 0);
    cJSON *j = json_out(&r);
    const cJSON *entries = cJSON_GetObjectItemCaseSensitive(j, "entries");
    const cJSON *e = NULL, *it;
    cJSON_ArrayForEach(it, entries)
    {
        if (sc_it_int(it, "session") == session)
            e = it;
    }
    assert_non_null(e);
    assert_string_equal(sc_it_str(e, "outcome"), "completed");
    assert_int_equal(sc_it_int(e, "graph"), graph);
    assert_int_equal(sc_it_int(e, "node_count"), 3);
    assert_string_equal(sc_it_str(e, "label"), "demo: fork/join");
    assert_int_equal(sc_it_int(e, "owner_uid"), getuid());
    assert_non_null(strstr(sc_it_str(e, "opened_at"), "T"));
    assert_non_null(strstr(sc_it_str(e, "ended_at"), "T"));
    cJSON_Delete(j);
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "log", NULL);
    sc_cli_expect_status(&r, 0);
    assert_int_equal(strncmp(r.out, "SESSION", 7), 0);
    long outcome = column_of(r.out, "SESSION", "OUTCOME");
    char *row = sc_it_fmt("%lld ", (long long)session);
    assert_int_equal(column_of(r.out, row, "completed"), outcome);
    free(row);
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "--json", "log", "--outcome", "completed", "--limit", "2", NULL);
    sc_cli_expect_status(&r, 0);
    j = json_out(&r);
    entries = cJSON_GetObjectItemCaseSensitive(j, "entries");
    assert_true(cJSON_GetArraySize(entries) >= 1 && cJSON_GetArraySize(entries) <= 2);
    cJSON_ArrayForEach(it, entries) assert_string_equal(sc_it_str(it, "outcome"), "completed");
    assert_int_equal(sc_it_int(cJSON_GetArrayItem(entries, 0), "session"), session);
    cJSON_Delete(j);
    sc_ct_result_free(&r);
}

/* ------------------------------------------------------------ replay */

static cJSON **read_jsonl(const char *path, size_t *count)
{
    char *text = sc_it_read_file(path);
    assert_non_null(text);
    cJSON **items = NULL;
    size_t n = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        cJSON *v = cJSON_Parse(line);
        assert_non_null(v);
        items = realloc(items, (n + 1) * sizeof(*items));
        assert_non_null(items);
        items[n++] = v;
    }
    free(text);
    *count = n;
    return items;
}

static void free_jsonl(cJSON **items, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cJSON_Delete(items[i]);
    free(items);
}

static bool num_eq(const cJSON *o, const char *key, uint64_t v)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(x) && x->valuedouble == (double)v;
}

/* A stored node against the corpus' form of it. */
static void check_node(const char *scen, const cJSON *want, const sc_client_node *got)
{
    const char *kind = sc_it_str(want, "kind");
    bool ok = strcmp(kind, sc_client_kind_name(got->kind)) == 0 && num_eq(want, "id", got->id) &&
              num_eq(want, "stream", got->stream) &&
              strcmp(sc_it_str(want, "name"), got->name) == 0;
    if (ok && got->kind == SC_CLIENT_KERNEL) {
        const cJSON *grid = cJSON_GetObjectItemCaseSensitive(want, "grid");
        const cJSON *block = cJSON_GetObjectItemCaseSensitive(want, "block");
        ok = cJSON_GetArrayItem(grid, 0)->valuedouble == got->num_blocks &&
             cJSON_GetArrayItem(block, 0)->valuedouble == got->threads_per_block &&
             num_eq(want, "shared_mem", got->shared_mem) &&
             strcmp(got->function_name, got->name) == 0;
    } else if (ok && got->kind == SC_CLIENT_MEMCPY) {
        ok = strcmp(sc_it_str(want, "dir"), sc_client_dir_name(got->dir)) == 0 &&
             num_eq(want, "bytes", got->size_bytes);
        if (ok && got->dir == SC_CLIENT_PEER_TO_PEER)
            ok = num_eq(want, "src_device", got->src_device) &&
                 num_eq(want, "dst_device", got->dst_device);
    } else if (ok && got->kind == SC_CLIENT_MEMSET) {
        ok = num_eq(want, "bytes", got->size_bytes) && num_eq(want, "value", got->value);
    } else if (ok && got->kind == SC_CLIENT_HOST_CALLBACK) {
        ok = strcmp(sc_it_str(want, "label"), got->label) == 0;
    }
    if (!ok) {
        char *w = sc_it_json_text(want);
        fail_msg("%s: node %u differs from %s", scen, got->id, w);
    }
}

/* The stored graph of a replayed scenario against the expected one. */
static void check_graph(sc_cli_fx *f, const char *scen, uint64_t id, const cJSON *want)
{
    sc_client_graph g;
    assert_int_equal(sc_client_graph_get(f->c, id, &g), 0);
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(want, "nodes");
    const cJSON *edges = cJSON_GetObjectItemCaseSensitive(want, "edges");
    const cJSON *reach = cJSON_GetObjectItemCaseSensitive(want, "reach");
    if ((size_t)cJSON_GetArraySize(nodes) != g.node_count)
        fail_msg("%s: %zu nodes, want %d", scen, g.node_count, cJSON_GetArraySize(nodes));
    for (size_t i = 0; i < g.node_count; i++)
        check_node(scen, cJSON_GetArrayItem(nodes, (int)i), &g.nodes[i]);
    if ((size_t)cJSON_GetArraySize(edges) != g.edge_count)
        fail_msg("%s: %zu edges, want %d", scen, g.edge_count, cJSON_GetArraySize(edges));
    for (size_t i = 0; i < g.edge_count; i++) {
        const cJSON *e = cJSON_GetArrayItem(edges, (int)i);
        if (cJSON_GetArrayItem(e, 0)->valuedouble != g.edges[i].src ||
            cJSON_GetArrayItem(e, 1)->valuedouble != g.edges[i].dst)
            fail_msg("%s: edge %zu is %u->%u", scen, i, g.edges[i].src, g.edges[i].dst);
    }
    /* Every ordered pair a != b: true exactly for the listed ones. */
    size_t n = g.node_count, np = n * (n ? n - 1 : 0);
    sc_client_pair *pairs = calloc(np ? np : 1, sizeof(*pairs));
    bool *got = calloc(np ? np : 1, sizeof(*got));
    assert_true(pairs && got);
    size_t k = 0;
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++)
            if (a != b)
                pairs[k++] = (sc_client_pair){a, b};
    assert_int_equal(sc_client_graph_reachable_pairs(f->c, id, pairs, np, got), 0);
    size_t trues = 0;
    for (size_t i = 0; i < np; i++) {
        bool listed = false;
        const cJSON *p;
        cJSON_ArrayForEach(p, reach)
        {
            if (cJSON_GetArrayItem(p, 0)->valuedouble == pairs[i].from &&
                cJSON_GetArrayItem(p, 1)->valuedouble == pairs[i].to)
                listed = true;
        }
        if (listed != got[i])
            fail_msg("%s: reachable(%u, %u) is %d", scen, pairs[i].from, pairs[i].to, got[i]);
        trues += got[i];
    }
    assert_int_equal(trues, cJSON_GetArraySize(reach));
    free(pairs);
    free(got);
    sc_client_graph_free(&g);
}

typedef struct corpus_counts {
    size_t scenarios, ops, errors, graphs;
} corpus_counts;

static corpus_counts count_corpus(void)
{
    corpus_counts k = {0};
    size_t ns, ne;
    cJSON **scen = read_jsonl(SCENARIOS, &ns);
    cJSON **exp = read_jsonl(EXPECTED, &ne);
    assert_int_equal(ns, ne);
    k.scenarios = ns;
    for (size_t i = 0; i < ns; i++) {
        k.ops += (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(scen[i], "ops"));
        const cJSON *res;
        cJSON_ArrayForEach(res, cJSON_GetObjectItemCaseSensitive(exp[i], "results"))
        {
            k.errors += !sc_it_bool(res, "ok");
        }
        k.graphs += !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(exp[i], "graph"));
    }
    free_jsonl(scen, ns);
    free_jsonl(exp, ne);
    return k;
}

static void test_replay_corpus(void **state)
{
    sc_cli_fx *f = *state;
    size_t ne;
    cJSON **exp = read_jsonl(EXPECTED, &ne);
    corpus_counts k = count_corpus();
    sc_ct_result r = sc_cli_run(f, "--json", "replay", SCENARIOS, NULL);
    sc_cli_expect_status(&r, 0);
    assert_string_equal(r.err, "");
    cJSON *j = json_out(&r);
    assert_string_equal(sc_it_str(j, "file"), SCENARIOS);
    const cJSON *scen = cJSON_GetObjectItemCaseSensitive(j, "scenarios");
    assert_int_equal(cJSON_GetArraySize(scen), ne);
    for (size_t i = 0; i < ne; i++) {
        const cJSON *got = cJSON_GetArrayItem(scen, (int)i);
        const char *name = sc_it_str(exp[i], "name");
        assert_string_equal(sc_it_str(got, "name"), name);
        assert_true(sc_it_int(got, "session") >= 1);
        const cJSON *gr = cJSON_GetObjectItemCaseSensitive(got, "results");
        const cJSON *er = cJSON_GetObjectItemCaseSensitive(exp[i], "results");
        assert_int_equal(cJSON_GetArraySize(gr), cJSON_GetArraySize(er));
        for (int o = 0; o < cJSON_GetArraySize(er); o++) {
            if (!cJSON_Compare(cJSON_GetArrayItem(gr, o), cJSON_GetArrayItem(er, o), true)) {
                char *a = sc_it_json_text(cJSON_GetArrayItem(gr, o));
                char *b = sc_it_json_text(cJSON_GetArrayItem(er, o));
                fail_msg("%s op %d: got %s\n  want %s", name, o, a, b);
            }
        }
        const cJSON *eg = cJSON_GetObjectItemCaseSensitive(exp[i], "graph");
        const cJSON *gg = cJSON_GetObjectItemCaseSensitive(got, "graph");
        if (cJSON_IsNull(eg)) {
            if (!cJSON_IsNull(gg))
                fail_msg("%s: a graph was stored, none expected", name);
            continue;
        }
        assert_true(cJSON_IsObject(gg));
        assert_int_equal(sc_it_int(gg, "node_count"),
                         cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(eg, "nodes")));
        assert_int_equal(sc_it_int(gg, "edge_count"),
                         cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(eg, "edges")));
        check_graph(f, name, (uint64_t)sc_it_int(gg, "graph"), eg);
    }
    const cJSON *sum = cJSON_GetObjectItemCaseSensitive(j, "summary");
    assert_int_equal(sc_it_int(sum, "scenarios"), k.scenarios);
    assert_int_equal(sc_it_int(sum, "ops"), k.ops);
    assert_int_equal(sc_it_int(sum, "errors"), k.errors);
    assert_int_equal(sc_it_int(sum, "graphs"), k.graphs);
    cJSON_Delete(j);
    sc_ct_result_free(&r);
    free_jsonl(exp, ne);

    /* Scenarios without an end were closed, not left open. */
    sc_client_log_page p;
    sc_client_list_opts o = {.filter = "open"};
    assert_int_equal(sc_client_log_list(f->c, &o, &p), 0);
    assert_int_equal(p.count, 0);
    sc_client_log_page_free(&p);
}

static void test_replay_human(void **state)
{
    sc_cli_fx *f = *state;
    corpus_counts k = count_corpus();
    sc_ct_result r = sc_cli_run(f, "replay", SCENARIOS, NULL);
    sc_cli_expect_status(&r, 0);
    /* Not a terminal: no progress bar. */
    assert_string_equal(r.err, "");
    char *want =
        sc_it_fmt("replayed %zu scenarios from %s: %zu ops, %zu errors, %zu graphs stored (",
                  k.scenarios, SCENARIOS, k.ops, k.errors, k.graphs);
    if (strncmp(r.out, want, strlen(want)) != 0)
        fail_msg("summary [%s], want it to start [%s]", r.out, want);
    assert_non_null(strstr(r.out, " s)\n"));
    free(want);
    sc_ct_result_free(&r);

    /* -v: a line per scenario, then the summary; from standard input. */
    sc_ct_opts o = {.stdin_path = SCENARIOS};
    r = sc_cli_run_opts(sc_it_daemon_socket(f->d), &o, "replay", "-v", "-", NULL);
    sc_cli_expect_status(&r, 0);
    size_t lines = 0;
    for (const char *p = r.out; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, k.scenarios + 1);
    assert_int_equal(strncmp(r.out, "seed_fork_join: 11 ops, 0 errors, graph ", 40), 0);
    assert_non_null(strstr(r.out, "ut_fresh_stream_is_not_capturing: 3 ops, 0 errors, no graph\n"));
    assert_non_null(strstr(r.out, "from <stdin>: "));
    sc_ct_result_free(&r);
}

static void test_replay_progress_on_terminal(void **state)
{
    sc_cli_fx *f = *state;
    sc_ct_opts o = {.tty_stderr = true};
    sc_ct_result r = sc_cli_run_opts(sc_it_daemon_socket(f->d), &o, "replay", SCENARIOS, NULL);
    sc_cli_expect_status(&r, 0);
    if (!strstr(r.err, "%") || !strstr(r.err, "scenarios") || !strstr(r.err, "\033[K"))
        fail_msg("no progress bar on the terminal: [%s]", r.err);
    assert_non_null(strstr(r.err, "\r[#"));
    assert_int_equal(strncmp(r.out, "replayed ", 9), 0);
    sc_ct_result_free(&r);
}

static void test_replay_bad_input(void **state)
{
    sc_cli_fx *f = *state;
    char *path = sc_it_fmt("%s/bad.jsonl", f->tmp);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("{\"name\":\"fine\",\"ops\":[{\"op\":\"begin\",\"stream\":0}]}\n\n"
          "{\"name\":\"broken\",\"ops\":[{\"op\":\"launch\",\"stream\":0}]}\n",
          fp);
    fclose(fp);
    sc_ct_result r = sc_cli_run(f, "replay", path, NULL);
    sc_cli_expect_status(&r, 2);
    char *want = sc_it_fmt("streamcap: %s:3: op 0 (launch): unknown op (begin, ", path);
    assert_int_equal(strncmp(r.err, want, strlen(want)), 0);
    free(want);
    sc_ct_result_free(&r);

    fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("{\"name\":\"x\",\"ops\":[{\"op\":\"kernel\",\"stream\":-1,\"name\":\"k\"}]}\n", fp);
    fclose(fp);
    r = sc_cli_run(f, "--json", "replay", path, NULL);
    sc_cli_expect_status(&r, 2);
    assert_non_null(strstr(r.err, ":1: op 0 (kernel): \"stream\" must be an integer"));
    cJSON *j = json_out(&r);
    assert_non_null(
        strstr(sc_it_str(cJSON_GetObjectItemCaseSensitive(j, "error"), "message"), "\"stream\""));
    cJSON_Delete(j);
    sc_ct_result_free(&r);

    fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("not json\n", fp);
    fclose(fp);
    r = sc_cli_run(f, "replay", path, NULL);
    sc_cli_expect_status(&r, 2);
    assert_non_null(strstr(r.err, ":1: not valid JSON\n"));
    sc_ct_result_free(&r);

    char *missing = sc_it_fmt("%s/missing.jsonl", f->tmp);
    r = sc_cli_run(f, "replay", missing, NULL);
    sc_cli_expect_status(&r, 2);
    want = sc_it_fmt("streamcap: cannot open %s: No such file or directory\n", missing);
    assert_string_equal(r.err, want);
    free(want);
    free(missing);
    sc_ct_result_free(&r);

    /* An empty file: nothing to do, still a summary. */
    fp = fopen(path, "w");
    assert_non_null(fp);
    fclose(fp);
    r = sc_cli_run(f, "--json", "replay", path, NULL);
    sc_cli_expect_status(&r, 0);
    j = json_out(&r);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "scenarios")), 0);
    assert_int_equal(sc_it_int(cJSON_GetObjectItemCaseSensitive(j, "summary"), "scenarios"), 0);
    cJSON_Delete(j);
    sc_ct_result_free(&r);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_daemon_every_command),
        cmocka_unit_test(test_no_daemon_socket_choice),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_ping),
        cmocka_unit_test(test_info),
        cmocka_unit_test(test_demo),
        cmocka_unit_test(test_graphs),
        cmocka_unit_test(test_graph_show),
        cmocka_unit_test(test_graph_dot),
        cmocka_unit_test(test_graph_render),
        cmocka_unit_test(test_graph_reach),
        cmocka_unit_test(test_graph_rm),
        cmocka_unit_test(test_log),
        cmocka_unit_test(test_replay_corpus),
        cmocka_unit_test(test_replay_human),
        cmocka_unit_test(test_replay_progress_on_terminal),
        cmocka_unit_test(test_replay_bad_input),
    };
    return cmocka_run_group_tests(tests, group_setup, sc_cli_group_teardown);
}
