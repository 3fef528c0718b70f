/*
 * run_killed.c - a CUDA program killed with SIGKILL mid-capture, run under
 * `streamcap run` against a real streamcapd (the program: killed.cu, or its
 * plain C twin killed.c).  Its one session ends as abandoned as soon as its
 * connection closes, not at the idle timeout; the summary lists the graph it
 * stored although the program wrote no exit report, in text and in JSON, and
 * only its own: a second run does not list the first one's graph.
 *
 *     run_killed PROGRAM       run and check
 *     run_killed --skip WHY    print WHY, exit 77 (ctest: skipped)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"
#include "run.h"

#define SKIP_STATUS    77
#define RUN_TIMEOUT_MS 90000
/* Far below the 600 s idle timeout; the close is seen within milliseconds. */
#define ABANDON_WAIT_MS 10000

static void expect_in(const char *text, const char *want)
{
    if (!strstr(text, want))
        fail_msg("no '%s' in:\n%s", want, text);
}

/* streamcap run [--json --summary-file SUMMARY] -- PROGRAM; killed: 137. */
static sc_ct_result run_program(sc_it_daemon *d, const char *program, const char *summary)
{
    char *streamcap = sc_it_fmt("%s/streamcap", SC_BIN_DIR);
    const char *argv[10] = {streamcap, "run", "--socket", sc_it_daemon_socket(d)};
    size_t n = 4;
    if (summary) {
        argv[n++] = "--json";
        argv[n++] = "--summary-file";
        argv[n++] = summary;
    }
    argv[n++] = "--";
    argv[n++] = program;
    argv[n] = NULL;
    const char *set[] = {"STREAMCAP_SYNC_END=1", NULL};
    const char *unset[] = {"STREAMCAP_SOCKET", "STREAMCAP_LABEL", "STREAMCAP_REPORT",
                           "LD_LIBRARY_PATH", NULL};
    sc_ct_opts opts = {.setenv = set, .unsetenv = unset, .timeout_ms = RUN_TIMEOUT_MS};
    sc_ct_result r;
    assert_int_equal(sc_ct_run(argv, &opts, &r), 0);
    if (r.status != 128 + 9)
        fail_msg("streamcap run -- %s exited %d, want 137\nstdout:\n%s\nstderr:\n%s", program,
                 r.status, r.out, r.err);
    free(streamcap);
    return r;
}

/* The newest graph's id and, with `count`, how many are stored. */
static int64_t newest_graph(sc_it_conn *c, int *count)
{
    cJSON *res = sc_it_must_result(c, "graph.list", "{}");
    const cJSON *graphs = cJSON_GetObjectItemCaseSensitive(res, "graphs");
    *count = cJSON_GetArraySize(graphs);
    int64_t id = *count ? sc_it_int(cJSON_GetArrayItem(graphs, 0), "graph") : 0;
    cJSON_Delete(res);
    return id;
}

/* Every session the daemon logged ends as abandoned, promptly; none is live. */
static void expect_abandoned(sc_it_conn *c, int want_sessions)
{
    int64_t until = sc_it_now_ms() + ABANDON_WAIT_MS;
    char *last = NULL;
    for (;;) {
        cJSON *res = sc_it_must_result(c, "log.list", "{}");
        const cJSON *entries = cJSON_GetObjectItemCaseSensitive(res, "entries");
        int abandoned = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, entries)
        {
            const cJSON *o = cJSON_GetObjectItemCaseSensitive(e, "outcome");
            abandoned += cJSON_IsString(o) && strcmp(o->valuestring, "abandoned") == 0;
        }
        bool done = cJSON_GetArraySize(entries) == want_sessions && abandoned == want_sessions;
        free(last);
        last = sc_it_json_text(entries);
        cJSON_Delete(res);
        if (done)
            break;
        if (sc_it_now_ms() > until)
            fail_msg("want %d abandoned sessions within %d ms, the log has: %s", want_sessions,
                     ABANDON_WAIT_MS, last);
        sc_it_sleep_ms(50);
    }
    free(last);
    cJSON *res = sc_it_must_result(c, "session.list", "{}");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(res, "sessions")), 0);
    cJSON_Delete(res);
}

static cJSON *read_json(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot read %s", path);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    cJSON *j = cJSON_Parse(buf);
    if (!j)
        fail_msg("%s is not JSON: %s", path, buf);
    return j;
}

static void check_json_summary(const char *path, int64_t graph)
{
    cJSON *sum = read_json(path);
    char *text = sc_it_json_text(sum);
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sum, "report_missing")) ||
        !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sum, "asked_daemon")))
        fail_msg("want report_missing and asked_daemon: %s", text);
    const cJSON *graphs = cJSON_GetObjectItemCaseSensitive(sum, "graphs");
    if (cJSON_GetArraySize(graphs) != 1)
        fail_msg("want the one graph of this run (%lld): %s", (long long)graph, text);
    const cJSON *g = cJSON_GetArrayItem(graphs, 0);
    assert_int_equal(sc_it_int(g, "graph"), graph);
    assert_int_equal(sc_it_int(g, "node_count"), 2);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(g, "source")->valuestring, "daemon");
    free(text);
    cJSON_Delete(sum);
}

static void killed(void **state)
{
    const char *program = *state;
    sc_it_daemon *d = sc_it_must_start(NULL);
    sc_ct_result r = run_program(d, program, NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    int count;
    int64_t first = newest_graph(c, &count);
    assert_int_equal(count, 1);
    expect_abandoned(c, 1);
    char want[64];
    snprintf(want, sizeof(want), "  graphs stored: 1\n    graph %lld: 2 nodes, 1 edge (",
             (long long)first);
    expect_in(r.err, "was killed by signal 9");
    expect_in(r.err, "the program left no report");
    expect_in(r.err, want);
    sc_ct_result_free(&r);

    /* A second run lists its own graph, not the first run's. */
    char *summary = sc_it_fmt("%s/summary.json", sc_it_daemon_dir(d));
    r = run_program(d, program, summary);
    int64_t second = newest_graph(c, &count);
    assert_int_equal(count, 2);
    assert_true(second != first);
    check_json_summary(summary, second);
    expect_abandoned(c, 2);
    sc_ct_result_free(&r);
    free(summary);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--skip") == 0) {
        printf("%s\n", argv[2]);
        return SKIP_STATUS;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: %s PROGRAM | --skip WHY\n", argv[0]);
        return 2;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_prestate(killed, argv[1]),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
