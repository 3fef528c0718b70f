/*
 * test_client_run_baseline.c - streamcap run --baseline FILE against a
 * real streamcapd, with run_cuda (a C program linked against the CUDA
 * runtime stand-in): the first run writes FILE, an unchanged run passes,
 * a changed program (RUN_CUDA_EXTRA adds a kernel) fails with status 97
 * and its diff printed, --update-baseline rewrites FILE, the same bytes
 * for the same program.
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

#include "cli_fixture.h"

static const char *const no_cudart_dir[] = {"STREAMCAP_CUDART_DIR", "STREAMCAP_LABEL",
                                            "RUN_CUDA_EXTRA", NULL};
static const char *const extra[] = {"RUN_CUDA_EXTRA=1", NULL};

static int group_setup(void **state)
{
    *state = sc_cli_fx_new(30000);
    return 0;
}

/* streamcap run [--update-baseline] --baseline FILE run_cuda capture. */
static sc_ct_result run_baseline(sc_cli_fx *f, const char *file, bool changed, bool update)
{
    sc_ct_opts o = {.unsetenv = no_cudart_dir, .setenv = changed ? extra : NULL};
    sc_ct_result r;
    const char *argv[] = {SC_CLI_STREAMCAP,
                          "--socket",
                          sc_it_daemon_socket(f->d),
                          "run",
                          "--baseline",
                          file,
                          update ? "--update-baseline" : "--",
                          update ? "--" : SC_RUN_CUDA,
                          update ? SC_RUN_CUDA : "capture",
                          update ? "capture" : NULL,
                          NULL};
    assert_int_equal(sc_ct_run(argv, &o, &r), 0);
    return r;
}

static cJSON *read_json(const char *path)
{
    char *text = sc_it_read_file(path);
    assert_non_null(text);
    cJSON *j = cJSON_Parse(text);
    free(text);
    assert_non_null(j);
    return j;
}

/* The baseline's one graph: its node count, fingerprint present. */
static int baseline_nodes(const char *file)
{
    cJSON *j = read_json(file);
    assert_int_equal(sc_it_int(j, "version"), 1);
    assert_non_null(strstr(sc_it_str(j, "program"), "run_cuda"));
    const cJSON *graphs = cJSON_GetObjectItem(j, "graphs");
    assert_int_equal(cJSON_GetArraySize(graphs), 1);
    const cJSON *g = cJSON_GetArrayItem(graphs, 0);
    const cJSON *fp = cJSON_GetObjectItem(g, "fingerprint");
    assert_int_equal(strlen(sc_it_str(fp, "structure")), 16);
    assert_int_equal(strlen(sc_it_str(fp, "full")), 16);
    assert_true(cJSON_IsArray(cJSON_GetObjectItem(g, "edges")));
    assert_true(cJSON_HasObjectItem(g, "label") && cJSON_HasObjectItem(g, "capture"));
    const cJSON *nodes = cJSON_GetObjectItem(g, "nodes");
    assert_string_equal(sc_it_str(cJSON_GetArrayItem(nodes, 0), "kind"), "memset");
    int n = cJSON_GetArraySize(nodes);
    cJSON_Delete(j);
    return n;
}

/* Rewriting the baseline of an unchanged program changes no byte: no
 * argument bytes or addresses (which move between runs), no process id
 * in the label. */
static void expect_stable(sc_cli_fx *f, const char *file)
{
    char *before = sc_it_read_file(file);
    assert_non_null(before);
    sc_ct_result r = run_baseline(f, file, true, true);
    sc_cli_expect_status(&r, 0);
    sc_ct_result_free(&r);
    char *after = sc_it_read_file(file);
    assert_non_null(after);
    assert_string_equal(before, after);
    assert_null(strstr(after, "\"args\""));
    assert_null(strstr(after, "\"accesses\""));
    cJSON *j = read_json(file);
    const cJSON *g = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "graphs"), 0);
    assert_string_equal(sc_it_str(g, "label"), "run_cuda");
    cJSON_Delete(j);
    free(before);
    free(after);
}

static void test_write_pass_fail_update(void **state)
{
    sc_cli_fx *f = *state;
    char *file = sc_it_fmt("%s/baseline.json", sc_it_daemon_dir(f->d));
    unlink(file);

    sc_ct_result r = run_baseline(f, file, false, false);
    sc_cli_expect_status(&r, 0);
    sc_cli_expect_in(r.err, "written: 1 graphs");
    sc_ct_result_free(&r);
    assert_int_equal(baseline_nodes(file), 1);

    /* Unchanged: passes.  The kernel's argument is a device address that
     * moves between runs; only its size is compared. */
    r = run_baseline(f, file, false, false);
    sc_cli_expect_status(&r, 0);
    sc_cli_expect_in(r.err, "match baseline");
    sc_ct_result_free(&r);

    /* One more kernel: fails with the diff. */
    r = run_baseline(f, file, true, false);
    sc_cli_expect_status(&r, 97);
    sc_cli_expect_in(r.err, "differs from baseline");
    sc_cli_expect_in(r.err, "1 nodes added, 0 removed, 0 changed; 1 edges added, 0 removed");
    sc_cli_expect_in(r.err, "+ node 1\n");
    sc_ct_result_free(&r);
    assert_int_equal(baseline_nodes(file), 1); /* untouched */

    /* --update-baseline rewrites it; the changed program then passes, twice. */
    r = run_baseline(f, file, true, true);
    sc_cli_expect_status(&r, 0);
    sc_ct_result_free(&r);
    assert_int_equal(baseline_nodes(file), 2);
    expect_stable(f, file);
    r = run_baseline(f, file, true, false);
    sc_cli_expect_status(&r, 0);
    sc_ct_result_free(&r);
    r = run_baseline(f, file, true, false);
    sc_cli_expect_status(&r, 0);
    sc_ct_result_free(&r);

    /* The original program now differs the other way. */
    r = run_baseline(f, file, false, false);
    sc_cli_expect_status(&r, 97);
    sc_cli_expect_in(r.err, "0 nodes added, 1 removed");
    sc_ct_result_free(&r);
    free(file);
}

static void test_bad_baselines(void **state)
{
    sc_cli_fx *f = *state;
    char *file = sc_it_fmt("%s/not-a-baseline.json", sc_it_daemon_dir(f->d));
    FILE *w = fopen(file, "w");
    assert_non_null(w);
    fputs("{\"version\": 2, \"graphs\": []}\n", w);
    fclose(w);
    sc_ct_result r = run_baseline(f, file, false, false);
    sc_cli_expect_status(&r, 2);
    sc_cli_expect_in(r.err, "is not a baseline");
    sc_ct_result_free(&r);
    w = fopen(file, "w");
    fputs("not json", w);
    fclose(w);
    r = run_baseline(f, file, false, false);
    sc_cli_expect_status(&r, 2);
    sc_ct_result_free(&r);
    free(file);

    const char *argv[] = {SC_CLI_STREAMCAP,
                          "--socket",
                          sc_it_daemon_socket(f->d),
                          "run",
                          "--update-baseline",
                          SC_RUN_CUDA,
                          "capture",
                          NULL};
    sc_ct_opts o = {.unsetenv = no_cudart_dir};
    assert_int_equal(sc_ct_run(argv, &o, &r), 0);
    sc_cli_expect_status(&r, 2);
    sc_cli_expect_in(r.err, "--update-baseline needs --baseline");
    sc_ct_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_pass_fail_update),
        cmocka_unit_test(test_bad_baselines),
    };
    return cmocka_run_group_tests(tests, group_setup, sc_cli_group_teardown);
}
