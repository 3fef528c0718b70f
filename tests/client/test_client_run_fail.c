/*
 * streamcap run as CI uses it, against a real streamcapd: --fail-on and its
 * own exit status, with run_probe's report lines and with run_cuda, a C
 * program linked against the CUDA runtime stand-in; the summary of a
 * forked child; the hint when the program loaded another libcudart.
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

#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "cli_fixture.h"

static const char *const no_cudart_dir[] = {"STREAMCAP_CUDART_DIR", "STREAMCAP_LABEL", NULL};

static int group_setup(void **state)
{
    *state = sc_cli_fx_new(30000);
    return 0;
}

static sc_ct_result vrun_at(const char *socket, va_list ap)
{
    sc_ct_opts o = {.unsetenv = no_cudart_dir};
    sc_ct_result r;
    assert_int_equal(sc_ct_vrun(SC_CLI_STREAMCAP, socket, &o, ap, &r), 0);
    return r;
}

/* streamcap [--socket S] ARGS..., the build's stand-in found next to it. */
static sc_ct_result run_at(const char *socket, ...)
{
    va_list ap;
    va_start(ap, socket);
    sc_ct_result r = vrun_at(socket, ap);
    va_end(ap);
    return r;
}

/* The same against the suite's daemon. */
static sc_ct_result run_on(sc_cli_fx *f, ...)
{
    va_list ap;
    va_start(ap, f);
    sc_ct_result r = vrun_at(sc_it_daemon_socket(f->d), ap);
    va_end(ap);
    return r;
}

static void expect_not_in(const char *text, const char *unwanted)
{
    if (strstr(text, unwanted))
        fail_msg("'%s' should not be in:\n%s", unwanted, text);
}

/* The --json summary: the last line of stderr that starts with '{'. */
static cJSON *summary_of(const char *err)
{
    const char *p = strstr(err, "{\"program\"");
    if (!p)
        fail_msg("no JSON summary in:\n%s", err);
    cJSON *j = cJSON_ParseWithOpts(p, NULL, false);
    if (!j)
        fail_msg("bad JSON summary in:\n%s", err);
    return j;
}

static const char *held_reason(cJSON *sum, const char *condition)
{
    cJSON *held = cJSON_GetObjectItem(cJSON_GetObjectItem(sum, "fail_on"), "held");
    cJSON *h;
    cJSON_ArrayForEach(h, held)
    {
        if (strcmp(cJSON_GetObjectItem(h, "condition")->valuestring, condition) == 0)
            return cJSON_GetObjectItem(h, "reason")->valuestring;
    }
    return NULL;
}

/* ---------------------------------------------------------- --fail-on */

#define PROC_UNREACHABLE                                                                           \
    "line={\"event\":\"process\",\"pid\":{pid},\"program\":\"p\",\"label\":\"l\","                 \
    "\"daemon\":\"unreachable\",\"session\":null,\"captures_begun\":1,"                            \
    "\"unsupported\":[\"cudaGraphicsMapResources\"]}"
#define CAP_FAILED                                                                                 \
    "line={\"event\":\"capture\",\"pid\":{pid},\"capture\":1,\"mode\":\"global\","                 \
    "\"outcome\":\"failed\",\"graph\":null,\"node_count\":0,\"edge_count\":0,"                     \
    "\"call\":\"cudaStreamEndCapture\",\"cuda_error\":901,"                                        \
    "\"cuda_name\":\"cudaErrorStreamCaptureInvalidated\",\"message\":\"m\"}"

/* Every condition that holds is named, the run exits 98 and --json says
 * the same; without --fail-on the program's 0 passes through. */
static void test_fail_on_each_condition(void **state)
{
    sc_cli_fx *f = *state;
    const char *sock = sc_it_daemon_socket(f->d);
    sc_ct_result r = run_at(sock, "run", SC_RUN_PROBE, PROC_UNREACHABLE, CAP_FAILED, "write", NULL);
    sc_cli_expect_status(&r, 0);
    expect_not_in(r.err, "failing on");
    sc_ct_result_free(&r);

    r = run_at(sock, "run", "--fail-on", "all", SC_RUN_PROBE, PROC_UNREACHABLE, CAP_FAILED, "write",
               NULL);
    sc_cli_expect_status(&r, 98);
    sc_cli_expect_in(r.err, "streamcap run: failing on unreachable: no daemon was reachable for 1 "
                            "process");
    sc_cli_expect_in(r.err, "streamcap run: failing on failed: 1 capture failed\n");
    sc_cli_expect_in(r.err, "streamcap run: failing on unsupported: the program called what the "
                            "stand-in does not support: cudaGraphicsMapResources\n");
    sc_cli_expect_in(r.err, "streamcap run: failing on none-stored: no graph was stored\n");
    sc_cli_expect_in(r.err, "streamcap run: exit status 98 (the program's was 0)\n");
    sc_ct_result_free(&r);

    /* Only what was asked for; the program's status stays in the summary. */
    r = run_at(sock, "--json", "run", "--fail-on", "failed,unsupported", SC_RUN_PROBE,
               PROC_UNREACHABLE, CAP_FAILED, "write", "exit=4", NULL);
    sc_cli_expect_status(&r, 98);
    cJSON *sum = summary_of(r.err);
    assert_int_equal(cJSON_GetObjectItem(sum, "exit_status")->valueint, 4);
    cJSON *fo = cJSON_GetObjectItem(sum, "fail_on");
    assert_non_null(fo);
    assert_int_equal(cJSON_GetObjectItem(fo, "status")->valueint, 98);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(fo, "conditions")), 2);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(fo, "held")), 2);
    assert_non_null(held_reason(sum, "failed"));
    assert_non_null(held_reason(sum, "unsupported"));
    assert_null(held_reason(sum, "unreachable"));
    cJSON_Delete(sum);
    sc_ct_result_free(&r);
}

/* A condition asked for that does not hold leaves the program's status. */
static void test_fail_on_none_holding(void **state)
{
    sc_cli_fx *f = *state;
    sc_ct_result r = run_on(f, "--json", "run", "--fail-on", "failed", SC_RUN_PROBE,
                            PROC_UNREACHABLE, "write", "exit=3", NULL);
    sc_cli_expect_status(&r, 3);
    expect_not_in(r.err, "failing on");
    cJSON *sum = summary_of(r.err);
    cJSON *fo = cJSON_GetObjectItem(sum, "fail_on");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(fo, "status")));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(fo, "held")), 0);
    cJSON_Delete(sum);
    sc_ct_result_free(&r);
}

static void test_fail_on_usage(void **state)
{
    sc_cli_fx *f = *state;
    sc_ct_result r = run_on(f, "run", "--fail-on", "failed,bogus", SC_RUN_PROBE, "argv", NULL);
    sc_cli_expect_status(&r, 2);
    sc_cli_expect_in(r.err, "unknown condition 'bogus'");
    expect_not_in(r.out, "argv[0]");
    sc_ct_result_free(&r);
    r = run_on(f, "run", "--help", NULL);
    sc_cli_expect_status(&r, 0);
    sc_cli_expect_in(r.out, "--fail-on LIST");
    sc_ct_result_free(&r);
}

/* graph.submit of two kernels on streams 0 and 1, both touching
 * [4096, 4352) with modes m0 and m1, joined by an edge when `ordered`. */
static uint64_t two_kernels(sc_cli_fx *f, const char *m0, const char *m1, bool ordered)
{
    char params[512], *res = NULL;
    snprintf(params, sizeof params,
             "{\"label\":\"pair\",\"nodes\":["
             "{\"kind\":\"kernel\",\"stream\":0,\"function_name\":\"fill\","
             "\"accesses\":[{\"address\":4096,\"size\":256,\"mode\":\"%s\"}]},"
             "{\"kind\":\"kernel\",\"stream\":1,\"function_name\":\"scale\","
             "\"accesses\":[{\"address\":4096,\"size\":256,\"mode\":\"%s\"}]}],"
             "\"edges\":[%s]}",
             m0, m1, ordered ? "[0,1]" : "");
    assert_int_equal(sc_client_call_raw(f->c, "graph.submit", params, &res), 0);
    cJSON *j = cJSON_Parse(res);
    uint64_t g = (uint64_t)sc_it_int(j, "graph");
    cJSON_Delete(j);
    free(res);
    return g;
}

/* The report names graph g as stored by the probe's process. */
static char *stored_line(uint64_t g)
{
    return sc_it_fmt("line={\"event\":\"capture\",\"pid\":{pid},\"capture\":1,\"mode\":"
                     "\"global\",\"outcome\":\"stored\",\"graph\":%llu,\"node_count\":2,"
                     "\"edge_count\":0}",
                     (unsigned long long)g);
}

/* --fail-on races asks the daemon for each stored graph's races: two
 * unordered writers fail the run, readers only or an ordered pair pass it,
 * and a graph the daemon cannot answer for fails it too. */
static void test_fail_on_races(void **state)
{
    sc_cli_fx *f = *state;
    static const struct {
        const char *m0, *m1;
        bool ordered;
        int status;
    } cases[] = {
        {"write", "read_write", false, 98},
        {"read", "read", false, 0},
        {"write", "write", true, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *line = stored_line(two_kernels(f, cases[i].m0, cases[i].m1, cases[i].ordered));
        sc_ct_result r =
            run_on(f, "--json", "run", "--fail-on", "races", SC_RUN_PROBE, line, "write", NULL);
        sc_cli_expect_status(&r, cases[i].status);
        cJSON *sum = summary_of(r.err);
        const char *why = held_reason(sum, "races");
        if (cases[i].status == 98) {
            assert_non_null(why);
            sc_cli_expect_in(why, "1 race in 1 graph");
        } else {
            assert_null(why);
        }
        cJSON_Delete(sum);
        sc_ct_result_free(&r);
        free(line);
    }
    char *line = stored_line(999999);
    sc_ct_result r = run_on(f, "run", "--fail-on", "races", SC_RUN_PROBE, line, "write", NULL);
    sc_cli_expect_status(&r, 98);
    sc_cli_expect_in(r.err, "failing on races: graph 999999 could not be checked for races");
    sc_ct_result_free(&r);
    free(line);
}

/* A C program on the stand-in: two streams of one capture memset one
 * buffer; with nothing between them the run fails on the race, with an
 * event join it passes. */
static void test_fail_on_races_from_the_standin(void **state)
{
    sc_cli_fx *f = *state;
    sc_ct_result r = run_on(f, "run", "--fail-on", "races", SC_RUN_CUDA, "race", NULL);
    sc_cli_expect_status(&r, 98);
    sc_cli_expect_in(r.err, "failing on races: 1 race in 1 graph");
    sc_ct_result_free(&r);
    r = run_on(f, "run", "--fail-on", "races", SC_RUN_CUDA, "ordered", NULL);
    sc_cli_expect_status(&r, 0);
    expect_not_in(r.err, "failing on");
    sc_ct_result_free(&r);
    /* A 2-D set's range spans its rows: the 16 bytes in its last row race. */
    r = run_on(f, "--json", "run", "--fail-on", "races", SC_RUN_CUDA, "pitched", NULL);
    sc_cli_expect_status(&r, 98);
    cJSON *sum = summary_of(r.err);
    uint64_t g =
        (uint64_t)sc_it_int(cJSON_GetArrayItem(cJSON_GetObjectItem(sum, "graphs"), 0), "graph");
    cJSON_Delete(sum);
    sc_ct_result_free(&r);
    sc_client_races races;
    assert_int_equal(sc_client_graph_races(f->c, g, 10, &races), 0);
    assert_int_equal(races.count, 1);
    assert_int_equal(races.races[0].size, 16);
    assert_int_equal(races.races[0].a_mode, 2);
    assert_int_equal(races.races[0].b_mode, 2);
    sc_client_races_free(&races);
}

/* A real program on the stand-in with no daemon: --fail-on all fails the
 * run, naming unreachable and none-stored; without it the run passes. */
static void test_fail_on_all_without_daemon(void **state)
{
    sc_cli_fx *f = *state;
    char *sock = sc_it_fmt("%s/no-daemon.sock", f->tmp);
    sc_ct_result r = run_at(sock, "run", SC_RUN_CUDA, "capture", NULL);
    sc_cli_expect_status(&r, 0);
    sc_cli_expect_in(r.err, "daemon unreachable");
    sc_ct_result_free(&r);
    r = run_at(sock, "run", "--fail-on", "all", SC_RUN_CUDA, "capture", NULL);
    sc_cli_expect_status(&r, 98);
    sc_cli_expect_in(r.err, "failing on unreachable:");
    sc_cli_expect_in(r.err, "failing on none-stored:");
    expect_not_in(r.err, "failing on failed:");
    sc_ct_result_free(&r);
    free(sock);
}

/* The same program with the daemon up: everything stored, the run passes. */
static void test_fail_on_all_passes_when_stored(void **state)
{
    sc_cli_fx *f = *state;
    sc_ct_result r = run_on(f, "run", "--fail-on", "all", SC_RUN_CUDA, "capture", NULL);
    sc_cli_expect_status(&r, 0);
    expect_not_in(r.err, "failing on");
    sc_ct_result_free(&r);
}

/* ---------------------------------------------------------- the log */

/* The newest captures row's inv_method and inv_call, as stored. */
static void last_inv(sc_cli_fx *f, char *method, char *call, size_t len)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open_v2(sc_it_daemon_db(f->d), &db, SQLITE_OPEN_READONLY, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT inv_method, inv_call FROM captures ORDER BY "
                                        "session DESC, capture DESC LIMIT 1",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    const unsigned char *m = sqlite3_column_text(st, 0), *c = sqlite3_column_text(st, 1);
    snprintf(method, len, "%s", m ? (const char *)m : "NULL");
    snprintf(call, len, "%s", c ? (const char *)c : "NULL");
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* run_cuda MODE, whose capture CUDA function `call` breaks: the run says
 * so, the newest captures row stores the protocol method and `call`, and
 * the log names `call`, never the method. */
static void expect_broken_by(sc_cli_fx *f, const char *mode, const char *method, const char *call)
{
    sc_ct_result r = run_on(f, "run", SC_RUN_CUDA, mode, NULL);
    sc_cli_expect_status(&r, 0);
    char *said = sc_it_fmt("broken by %s", call);
    sc_cli_expect_in(r.err, said);
    free(said);
    sc_ct_result_free(&r);
    char got_method[128], got_call[128];
    last_inv(f, got_method, got_call, sizeof(got_method));
    assert_string_equal(got_method, method);
    assert_string_equal(got_call, call);
    r = sc_cli_run(f, "log", "--limit", "1", NULL);
    sc_cli_expect_status(&r, 0);
    char *logged = sc_it_fmt("invalidated by %s from thread", call);
    sc_cli_expect_in(r.out, logged);
    free(logged);
    expect_not_in(r.out, method);
    sc_ct_result_free(&r);
}

/* A kernel launched on the legacy stream breaks a capture (906): the log
 * and captures.inv_call name cudaLaunchKernel, not the protocol method. */
static void test_legacy_launch_named(void **state)
{
    expect_broken_by(*state, "legacy", "capture.record_kernel", "cudaLaunchKernel");
}

/* Another thread's end breaks a global capture (908): the row names
 * cudaStreamEndCapture, not capture.end. */
static void test_wrong_thread_end_named(void **state)
{
    expect_broken_by(*state, "wrong", "capture.end", "cudaStreamEndCapture");
}

/* A cuda-mode session's row counts its captures' nodes, lists their graph
 * ids and outcomes; --session lists each capture and what broke it. */
static void test_log_row_and_session(void **state)
{
    sc_cli_fx *f = *state;
    sc_ct_result r = run_on(f, "--json", "run", SC_RUN_CUDA, "capture", "legacy", "capture", NULL);
    sc_cli_expect_status(&r, 0);
    cJSON *sum = summary_of(r.err);
    cJSON *proc = cJSON_GetArrayItem(cJSON_GetObjectItem(sum, "processes"), 0);
    long long session = (long long)cJSON_GetObjectItem(proc, "session")->valuedouble;
    cJSON *graphs = cJSON_GetObjectItem(sum, "graphs");
    assert_int_equal(cJSON_GetArraySize(graphs), 2);
    char *ids = sc_it_fmt(
        " %lld,%lld ",
        (long long)cJSON_GetObjectItem(cJSON_GetArrayItem(graphs, 0), "graph")->valuedouble,
        (long long)cJSON_GetObjectItem(cJSON_GetArrayItem(graphs, 1), "graph")->valuedouble);
    cJSON_Delete(sum);
    sc_ct_result_free(&r);

    char *sid = sc_it_fmt("%lld", session);
    r = sc_cli_run(f, "log", "--limit", "1", NULL);
    sc_cli_expect_status(&r, 0);
    sc_cli_expect_in(r.out, "CAPTURES");
    sc_cli_expect_in(r.out, ids);
    sc_cli_expect_in(r.out, " 3 (2 completed, 1 failed) ");
    /* two memsets stored, the broken capture's nodes counted too */
    expect_not_in(r.out, " closed     0 ");
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "log", "--session", sid, NULL);
    sc_cli_expect_status(&r, 0);
    char *head = sc_it_fmt("session %s (cuda mode)", sid);
    sc_cli_expect_in(r.out, head);
    sc_cli_expect_in(r.out, "CAPTURE  STREAM  MODE    THREAD  OUTCOME");
    sc_cli_expect_in(r.out, "BROKEN BY");
    sc_cli_expect_in(r.out, "cudaLaunchKernel (cudaErrorStreamCaptureImplicit)");
    sc_cli_expect_in(r.out, "failed cudaErrorStreamCaptureInvalidated");
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "--json", "log", "--session", sid, NULL);
    sc_cli_expect_status(&r, 0);
    cJSON *e = cJSON_Parse(r.out);
    assert_non_null(e);
    assert_int_equal((long long)cJSON_GetObjectItem(e, "session")->valuedouble, session);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(e, "captures")), 3);
    cJSON_Delete(e);
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "log", "--session", "999999", NULL);
    sc_cli_expect_status(&r, 2);
    sc_cli_expect_in(r.err, "session 999999 is not in the log");
    sc_ct_result_free(&r);
    free(head);
    free(sid);
    free(ids);
}

/* ------------------------------------------------------------ fork() */

/* A forked child reports its own capture, not its parent's again: one
 * graph stored by the parent, the child's one capture kept (it has no
 * connection of its own), two captures begun in all. */
static void test_forked_child_reports_its_own(void **state)
{
    sc_cli_fx *f = *state;
    sc_ct_result r = run_on(f, "--json", "run", SC_RUN_CUDA, "capture", "fork", NULL);
    sc_cli_expect_status(&r, 0);
    cJSON *sum = summary_of(r.err);
    cJSON *procs = cJSON_GetObjectItem(sum, "processes");
    assert_int_equal(cJSON_GetArraySize(procs), 2);
    assert_int_equal(cJSON_GetObjectItem(sum, "captures_begun")->valueint, 2);
    cJSON *graphs = cJSON_GetObjectItem(sum, "graphs"), *kept = cJSON_GetObjectItem(sum, "kept");
    if (cJSON_GetArraySize(graphs) != 1 || cJSON_GetArraySize(kept) != 1)
        fail_msg("want 1 stored and 1 kept:\n%s", r.err);
    double parent = cJSON_GetObjectItem(cJSON_GetArrayItem(graphs, 0), "pid")->valuedouble;
    cJSON *child = cJSON_GetArrayItem(kept, 0);
    assert_true(cJSON_GetObjectItem(child, "pid")->valuedouble != parent);
    assert_int_equal(cJSON_GetObjectItem(child, "capture")->valueint, 2);
    cJSON_Delete(sum);
    sc_ct_result_free(&r);
}

/* ------------------------------------------------ another libcudart */

/* A DT_RPATH to another libcudart.so.13: the summary names the library
 * loaded instead of the stand-in, and the ways out. */
static void test_rpath_names_the_library_loaded(void **state)
{
    sc_cli_fx *f = *state;
    sc_ct_result r = run_on(f, "run", SC_RUN_RPATH, NULL);
    sc_cli_expect_status(&r, 0);
    sc_cli_expect_in(r.out, "devices 0, rc 0");
    char *want = sc_it_fmt("the program left no report: it loaded %s instead of the stand-in ",
                           SC_DUMMY_CUDART);
    sc_cli_expect_in(r.err, want);
    free(want);
    sc_cli_expect_in(r.err, "DT_RPATH");
    sc_cli_expect_in(r.err, "LD_PRELOAD=");
    sc_cli_expect_in(r.err, "patchelf --remove-rpath");
    expect_not_in(r.err, "was it linked with");
    sc_ct_result_free(&r);

    r = run_on(f, "--json", "run", SC_RUN_RPATH, NULL);
    cJSON *sum = summary_of(r.err);
    cJSON *c = cJSON_GetObjectItem(sum, "cudart");
    assert_non_null(c);
    assert_string_equal(cJSON_GetObjectItem(c, "loaded_instead")->valuestring, SC_DUMMY_CUDART);
    assert_string_equal(cJSON_GetObjectItem(c, "needed")->valuestring, "libcudart.so.13");
    cJSON_Delete(sum);
    sc_ct_result_free(&r);
}

/* A program that loads no libcudart at all (a static runtime, CMake's
 * default): the hint says so and names the switch. */
static void test_static_runtime_hint(void **state)
{
    sc_cli_fx *f = *state;
    sc_ct_result r = run_on(f, "run", SC_RUN_PROBE, "argv", NULL);
    sc_cli_expect_status(&r, 0);
    sc_cli_expect_in(r.err, "does not load libcudart.so at all");
    sc_cli_expect_in(r.err, "CMAKE_CUDA_RUNTIME_LIBRARY Shared");
    sc_ct_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fail_on_each_condition),
        cmocka_unit_test(test_fail_on_none_holding),
        cmocka_unit_test(test_fail_on_usage),
        cmocka_unit_test(test_fail_on_races),
        cmocka_unit_test(test_fail_on_races_from_the_standin),
        cmocka_unit_test(test_fail_on_all_without_daemon),
        cmocka_unit_test(test_fail_on_all_passes_when_stored),
        cmocka_unit_test(test_legacy_launch_named),
        cmocka_unit_test(test_wrong_thread_end_named),
        cmocka_unit_test(test_log_row_and_session),
        cmocka_unit_test(test_forked_child_reports_its_own),
        cmocka_unit_test(test_rpath_names_the_library_loaded),
        cmocka_unit_test(test_static_runtime_hint),
    };
    return cmocka_run_group_tests(tests, group_setup, sc_cli_group_teardown);
}
