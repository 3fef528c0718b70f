/*
 * streamcap run, through the real binary: the program it runs is
 * run_probe, which reports as the CUDA runtime stand-in does and prints
 * its environment.  Exit statuses and signals passed through, the
 * environment the program gets, where the stand-in is looked for, the
 * summary in text and JSON for every kind of report line, several
 * processes, a missing report, bad lines, signals forwarded.
 */
#define _GNU_SOURCE
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

#include <cjson/cJSON.h>

#include "harness.h"
#include "run.h"

#define STREAMCAP SC_BIN_DIR "/streamcap"

typedef struct fixture {
    char tmp[64];
    char standin[128];     /* a directory with an (empty) libcudart.so.13 */
    char standin_env[160]; /* STREAMCAP_CUDART_DIR=... */
} fixture;

static void touch(const char *path)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
}

static void mkdirs(const char *path)
{
    char p[512];
    snprintf(p, sizeof(p), "%s", path);
    for (char *s = p + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0700);
            *s = '/';
        }
    }
    mkdir(p, 0700);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    assert_int_equal(sc_it_tmpdir(f->tmp, sizeof(f->tmp)), 0);
    snprintf(f->standin, sizeof(f->standin), "%s/cudart", f->tmp);
    mkdirs(f->standin);
    char lib[192];
    snprintf(lib, sizeof(lib), "%s/libcudart.so.13", f->standin);
    touch(lib);
    snprintf(f->standin_env, sizeof(f->standin_env), "STREAMCAP_CUDART_DIR=%s", f->standin);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    sc_it_rmtree(f->tmp);
    free(f);
    return 0;
}

/* streamcap ARGS... with the environment changes of `env` (NULL or a
 * NULL-terminated "NAME=VALUE" list) and `unset`, the fake stand-in found
 * through STREAMCAP_CUDART_DIR unless env says otherwise. */
static sc_ct_result run_env(fixture *f, const char *const *env, const char *const *unset, ...)
{
    const char *setenv_list[16] = {f->standin_env};
    size_t n = 1;
    for (const char *const *e = env; e && *e; e++)
        setenv_list[n++] = *e;
    setenv_list[n] = NULL;
    sc_ct_opts o = {.setenv = setenv_list, .unsetenv = unset};
    sc_ct_result r;
    va_list ap;
    va_start(ap, unset);
    int rc = sc_ct_vrun(STREAMCAP, NULL, &o, ap, &r);
    va_end(ap);
    assert_int_equal(rc, 0);
    return r;
}

#define RUN(f, ...) run_env((f), NULL, NULL, __VA_ARGS__, (const char *)NULL)

static void expect_status(const sc_ct_result *r, int status)
{
    if (r->status != status)
        fail_msg("exit status %d, want %d\nstdout: %s\nstderr: %s", r->status, status, r->out,
                 r->err);
}

static void expect_in(const char *text, const char *want)
{
    if (!strstr(text, want))
        fail_msg("no '%s' in:\n%s", want, text);
}

static void expect_not_in(const char *text, const char *unwanted)
{
    if (strstr(text, unwanted))
        fail_msg("'%s' should not be in:\n%s", unwanted, text);
}

static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    return strdup(buf);
}

/* ---------------------------------------------------- exit statuses */

static void test_run_exit_status(void **state)
{
    fixture *f = *state;
    static const char *const codes[] = {"0", "1", "3", "7", "42"};
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        char step[16];
        snprintf(step, sizeof(step), "exit=%s", codes[i]);
        sc_ct_result r = RUN(f, "run", SC_RUN_PROBE, step);
        expect_status(&r, atoi(codes[i]));
        char want[64];
        snprintf(want, sizeof(want), "exited with status %s", codes[i]);
        expect_in(r.err, want);
        sc_ct_result_free(&r);
    }
}

static void test_run_signal_status(void **state)
{
    fixture *f = *state;
    sc_ct_result r = RUN(f, "run", SC_RUN_PROBE, "raise=9");
    expect_status(&r, 128 + 9);
    expect_in(r.err, "was killed by signal 9");
    sc_ct_result_free(&r);

    char file[128];
    snprintf(file, sizeof(file), "%s/sig.json", f->tmp);
    r = RUN(f, "--json", "run", "--summary-file", file, SC_RUN_PROBE, "raise=15");
    expect_status(&r, 128 + 15);
    char *text = slurp(file);
    cJSON *j = cJSON_Parse(text);
    assert_non_null(j);
    assert_int_equal(cJSON_GetObjectItem(j, "exit_status")->valueint, 143);
    assert_int_equal(cJSON_GetObjectItem(j, "signal")->valueint, 15);
    cJSON_Delete(j);
    free(text);
    sc_ct_result_free(&r);

    r = RUN(f, "--json", "run", "--summary-file", file, SC_RUN_PROBE, "exit=5");
    expect_status(&r, 5);
    text = slurp(file);
    j = cJSON_Parse(text);
    assert_non_null(j);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "signal")));
    assert_int_equal(cJSON_GetObjectItem(j, "exit_status")->valueint, 5);
    cJSON_Delete(j);
    free(text);
    sc_ct_result_free(&r);
}

/* ------------------------------------------------------ environment */

static void test_run_environment(void **state)
{
    fixture *f = *state;
    char tmpdir_env[128], ld_want[256], report_prefix[128];
    snprintf(tmpdir_env, sizeof(tmpdir_env), "TMPDIR=%s", f->tmp);
    snprintf(report_prefix, sizeof(report_prefix), "STREAMCAP_REPORT=%s/streamcap-run-", f->tmp);
    const char *const env[] = {"LD_LIBRARY_PATH=/old/lib:/other", "RUN_PROBE_FOO=bar", tmpdir_env,
                               "STREAMCAP_LABEL=inherited", NULL};
    sc_ct_result r =
        run_env(f, env, NULL, "--socket", "/x/y.sock", "run", SC_RUN_PROBE, "env=LD_LIBRARY_PATH",
                "env=STREAMCAP_SOCKET", "env=STREAMCAP_LABEL", "env=STREAMCAP_REPORT",
                "env=RUN_PROBE_FOO", "sigpipe", (const char *)NULL);
    expect_status(&r, 0);
    snprintf(ld_want, sizeof(ld_want), "LD_LIBRARY_PATH=%s:/old/lib:/other\n", f->standin);
    expect_in(r.out, ld_want);
    expect_in(r.out, "STREAMCAP_SOCKET=/x/y.sock\n");
    /* Without --label, what the caller had passes through. */
    expect_in(r.out, "STREAMCAP_LABEL=inherited\n");
    expect_in(r.out, report_prefix);
    expect_in(r.out, "RUN_PROBE_FOO=bar\n");
    /* streamcap ignores SIGPIPE itself; its program must not inherit that. */
    expect_in(r.out, "SIGPIPE default\n");
    /* The report file is gone afterwards. */
    const char *rep = strstr(r.out, "STREAMCAP_REPORT=") + strlen("STREAMCAP_REPORT=");
    char path[256];
    snprintf(path, sizeof(path), "%.*s", (int)strcspn(rep, "\n"), rep);
    assert_int_not_equal(access(path, F_OK), 0);
    sc_ct_result_free(&r);

    /* --label, --socket after 'run', no LD_LIBRARY_PATH before. */
    static const char *const unset[] = {"LD_LIBRARY_PATH", "STREAMCAP_LABEL", NULL};
    r = run_env(f, NULL, unset, "run", "--socket", "/s/t.sock", "--label", "my run", SC_RUN_PROBE,
                "env=LD_LIBRARY_PATH", "env=STREAMCAP_SOCKET", "env=STREAMCAP_LABEL",
                (const char *)NULL);
    expect_status(&r, 0);
    snprintf(ld_want, sizeof(ld_want), "LD_LIBRARY_PATH=%s\n", f->standin);
    expect_in(r.out, ld_want);
    expect_in(r.out, "STREAMCAP_SOCKET=/s/t.sock\n");
    expect_in(r.out, "STREAMCAP_LABEL=my run\n");
    sc_ct_result_free(&r);

    /* --device: the device the stand-in emulates, for the program. */
    r = RUN(f, "run", "--device", "A100", SC_RUN_PROBE, "env=STREAMCAP_DEVICE");
    expect_status(&r, 0);
    expect_in(r.out, "STREAMCAP_DEVICE=A100\n");
    sc_ct_result_free(&r);

    /* No --socket: the CLI's default rule, $STREAMCAP_SOCKET first; no
     * --label: none set. */
    const char *const env2[] = {"STREAMCAP_SOCKET=/from/env.sock", NULL};
    r = run_env(f, env2, unset, "run", "--", SC_RUN_PROBE, "env=STREAMCAP_SOCKET",
                "env=STREAMCAP_LABEL", (const char *)NULL);
    expect_status(&r, 0);
    expect_in(r.out, "STREAMCAP_SOCKET=/from/env.sock\n");
    expect_in(r.out, "STREAMCAP_LABEL unset\n");
    sc_ct_result_free(&r);

    /* A relative socket is made absolute: the program may change directory. */
    char cwd[512], want[600];
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    r = RUN(f, "--socket=rel.sock", "run", SC_RUN_PROBE, "env=STREAMCAP_SOCKET");
    snprintf(want, sizeof(want), "STREAMCAP_SOCKET=%s/rel.sock\n", cwd);
    expect_in(r.out, want);
    sc_ct_result_free(&r);
}

/* Every word from PROGRAM on is the program's, options included. */
static void test_run_arguments(void **state)
{
    fixture *f = *state;
    sc_ct_result r = RUN(f, "run", "--label=x", SC_RUN_PROBE, "argv", "--json", "--help", "--",
                         "--socket", "s", "--label", "y");
    expect_status(&r, 0);
    expect_in(r.out, "argv[1]=argv\nargv[2]=--json\nargv[3]=--help\nargv[4]=--\n"
                     "argv[5]=--socket\nargv[6]=s\nargv[7]=--label\nargv[8]=y\n");
    /* --json was the program's: the summary is text. */
    expect_in(r.err, "streamcap run: ");
    sc_ct_result_free(&r);

    /* PATH lookup, as a shell does. */
    char path_env[600], dir[512];
    snprintf(dir, sizeof(dir), "%s", SC_RUN_PROBE);
    *strrchr(dir, '/') = '\0';
    snprintf(path_env, sizeof(path_env), "PATH=%s:/usr/bin:/bin", dir);
    const char *const env[] = {path_env, NULL};
    r = run_env(f, env, NULL, "run", "run_probe", "argv", (const char *)NULL);
    expect_status(&r, 0);
    expect_in(r.out, "argv[0]=run_probe\n");
    sc_ct_result_free(&r);

    r = run_env(f, env, NULL, "run", "no-such-program-here", (const char *)NULL);
    expect_status(&r, 127);
    expect_in(r.err, "cannot run no-such-program-here: No such file or directory");
    sc_ct_result_free(&r);

    char noexec[128];
    snprintf(noexec, sizeof(noexec), "%s/noexec", f->tmp);
    touch(noexec);
    r = RUN(f, "run", noexec);
    expect_status(&r, 126);
    expect_in(r.err, "Permission denied");
    sc_ct_result_free(&r);
}

static void test_run_usage(void **state)
{
    fixture *f = *state;
    sc_ct_result r = RUN(f, "run");
    expect_status(&r, 2);
    expect_in(r.err, "run needs a PROGRAM");
    expect_in(r.err, "usage: streamcap [OPTIONS] run");
    sc_ct_result_free(&r);

    r = RUN(f, "run", "--bogus", SC_RUN_PROBE, "argv");
    expect_status(&r, 2);
    expect_in(r.err, "unknown option '--bogus'");
    assert_string_equal(r.out, "");
    sc_ct_result_free(&r);

    r = RUN(f, "run", "--summary-file", "/no/such/dir/f", SC_RUN_PROBE, "argv");
    expect_status(&r, 2);
    expect_in(r.err, "cannot write /no/such/dir/f");
    assert_string_equal(r.out, "");
    sc_ct_result_free(&r);

    r = RUN(f, "run", "--help");
    expect_status(&r, 0);
    expect_in(r.out, "128 + N");
    expect_in(r.out, "--summary-file F");
    sc_ct_result_free(&r);
}

/* ------------------------------------------------------- the stand-in */

/* A copy of the tool in DIR/bin, so that its own location is DIR's. */
static void copy_tool(const char *dir)
{
    char script[1024];
    snprintf(script, sizeof(script), "mkdir -p '%s/bin' && cp '%s' '%s/bin/streamcap'", dir,
             STREAMCAP, dir);
    sc_ct_result r;
    assert_int_equal(sc_ct_sh(script, NULL, &r), 0);
    expect_status(&r, 0);
    sc_ct_result_free(&r);
}

static sc_ct_result run_copy(const char *dir, const char *const *env)
{
    char exe[256];
    snprintf(exe, sizeof(exe), "%s/bin/streamcap", dir);
    const char *argv[] = {exe, "run", SC_RUN_PROBE, "env=LD_LIBRARY_PATH", NULL};
    static const char *const unset[] = {"STREAMCAP_CUDART_DIR", "LD_LIBRARY_PATH", NULL};
    sc_ct_opts o = {.setenv = env, .unsetenv = unset};
    sc_ct_result r;
    assert_int_equal(sc_ct_run(argv, &o, &r), 0);
    return r;
}

static void test_run_standin_not_found(void **state)
{
    fixture *f = *state;
    char dir[128], empty[160], env[200];
    snprintf(dir, sizeof(dir), "%s/lone", f->tmp);
    copy_tool(dir);
    snprintf(empty, sizeof(empty), "%s/empty", f->tmp);
    mkdirs(empty);
    snprintf(env, sizeof(env), "STREAMCAP_CUDART_DIR=%s", empty);
    const char *const envs[] = {env, NULL};
    sc_ct_result r = run_copy(dir, envs);
    expect_status(&r, 2);
    assert_string_equal(r.out, ""); /* nothing was run */
    expect_in(r.err, "cannot find the CUDA runtime stand-in libcudart.so.13");
    expect_in(r.err, empty);
    char build[200];
    snprintf(build, sizeof(build), "%s/bin/../lib/streamcap/cudart", dir);
    expect_in(r.err, build);
    expect_in(r.err, SC_CUDART_INSTALL_DIR);
    sc_ct_result_free(&r);
}

/* Found next to the tool: the build tree's place, then the installed one
 * relative to the tool's directory (a relocated install). */
static void test_run_standin_lookup(void **state)
{
    fixture *f = *state;
    static const char *const rel[] = {"../lib/streamcap/cudart", SC_CUDART_FROM_BINDIR};
    for (size_t i = 0; i < 2; i++) {
        char dir[128], lib[512], real[512], want[600];
        snprintf(dir, sizeof(dir), "%s/tree%zu", f->tmp, i);
        copy_tool(dir);
        snprintf(lib, sizeof(lib), "%s/bin/%s", dir, rel[i]);
        mkdirs(lib);
        assert_non_null(realpath(lib, real));
        strcat(lib, "/libcudart.so.13");
        touch(lib);
        sc_ct_result r = run_copy(dir, NULL);
        expect_status(&r, 0);
        snprintf(want, sizeof(want), "LD_LIBRARY_PATH=%s\n", real);
        expect_in(r.out, want);
        sc_ct_result_free(&r);
    }

    /* $STREAMCAP_CUDART_DIR comes first, even over the build tree. */
    char env[300];
    snprintf(env, sizeof(env), "STREAMCAP_CUDART_DIR=%s", f->standin);
    const char *const envs[] = {env, NULL};
    char dir[128], want[300];
    snprintf(dir, sizeof(dir), "%s/tree0", f->tmp);
    sc_ct_result r = run_copy(dir, envs);
    expect_status(&r, 0);
    snprintf(want, sizeof(want), "LD_LIBRARY_PATH=%s\n", f->standin);
    expect_in(r.out, want);
    sc_ct_result_free(&r);

    /* One without the library is passed over, with a warning. */
    char empty[160], env2[200], real[512], want2[600];
    snprintf(empty, sizeof(empty), "%s/empty", f->tmp);
    mkdirs(empty);
    snprintf(env2, sizeof(env2), "STREAMCAP_CUDART_DIR=%s", empty);
    const char *const envs2[] = {env2, NULL};
    r = run_copy(dir, envs2);
    expect_status(&r, 0);
    snprintf(want2, sizeof(want2), "%s/bin/../lib/streamcap/cudart", dir);
    assert_non_null(realpath(want2, real));
    snprintf(want2, sizeof(want2), "LD_LIBRARY_PATH=%s\n", real);
    expect_in(r.out, want2);
    snprintf(want2, sizeof(want2), "warning: $STREAMCAP_CUDART_DIR (%s) has no libcudart.so.13",
             empty);
    expect_in(r.err, want2);
    sc_ct_result_free(&r);
}

/* -------------------------------------------------------- the summary */

#define PROC                                                                                       \
    "line={\"event\":\"process\",\"pid\":{pid},\"program\":\"run_probe\",\"label\":\"run_probe:"   \
    "{pid}\",\"daemon\":\"connected\",\"session\":4,\"captures_begun\":5,\"unsupported\":["        \
    "\"cudaFoo\",\"cudaBar\"]}"
#define STORED                                                                                     \
    "line={\"event\":\"capture\",\"pid\":{pid},\"capture\":1,\"mode\":\"global\",\"outcome\":"     \
    "\"stored\",\"graph\":17,\"node_count\":3,\"edge_count\":2}"
#define FAILED                                                                                     \
    "line={\"event\":\"capture\",\"pid\":{pid},\"capture\":2,\"mode\":\"global\",\"outcome\":"     \
    "\"failed\",\"graph\":null,\"node_count\":0,\"edge_count\":0,\"call\":\"cudaStreamEndCapture"  \
    "\",\"cuda_error\":901,\"cuda_name\":\"cudaErrorStreamCaptureInvalidated\",\"message\":"       \
    "\"operation failed due to a previous error during capture\",\"broken_by\":{\"call\":"         \
    "\"cudaMalloc\",\"cuda_error\":900,\"cuda_name\":\"cudaErrorStreamCaptureUnsupported\"}}"
#define UNJOINED                                                                                   \
    "line={\"event\":\"capture\",\"pid\":{pid},\"capture\":3,\"mode\":\"thread_local\","           \
    "\"outcome\":\"failed\",\"graph\":null,\"node_count\":0,\"edge_count\":0,\"call\":"            \
    "\"cudaStreamEndCapture\",\"cuda_error\":904,\"cuda_name\":"                                   \
    "\"cudaErrorStreamCaptureUnjoined\",\"message\":\"capturing stream has unjoined work\","       \
    "\"unjoined\":[{\"stream\":7,\"nodes\":[2,3]},{\"stream\":9,\"nodes\":[4]}]}"
#define KEPT                                                                                       \
    "line={\"event\":\"capture\",\"pid\":{pid},\"capture\":4,\"mode\":\"relaxed\",\"outcome\":"    \
    "\"kept\",\"graph\":null,\"node_count\":6,\"edge_count\":5}"
#define DISCARDED                                                                                  \
    "line={\"event\":\"capture\",\"pid\":{pid},\"capture\":5,\"mode\":\"global\",\"outcome\":"     \
    "\"discarded\",\"graph\":null,\"node_count\":1,\"edge_count\":0}"
#define SUBMIT                                                                                     \
    "line={\"event\":\"graph\",\"pid\":{pid},\"source\":\"submit\",\"label\":\"hand\",\"graph\":"  \
    "18,\"node_count\":4,\"edge_count\":3}"
#define SUBMIT_KEPT                                                                                \
    "line={\"event\":\"graph\",\"pid\":{pid},\"source\":\"submit\",\"label\":\"hand2\","           \
    "\"graph\":null,\"node_count\":2,\"edge_count\":1}"

static void test_run_summary_text(void **state)
{
    fixture *f = *state;
    sc_ct_result r = RUN(f, "run", SC_RUN_PROBE, PROC, STORED, FAILED, UNJOINED, KEPT, DISCARDED,
                         SUBMIT, SUBMIT_KEPT, "write");
    expect_status(&r, 0);
    const char *e = r.err;
    expect_in(e, "streamcap run: " SC_RUN_PROBE " exited with status 0\n");
    expect_in(e, "(run_probe), label run_probe:");
    expect_in(e, ": daemon connected, session 4\n");
    expect_in(e, "  captures begun: 5\n");
    expect_in(e, "  graphs stored: 2\n");
    expect_in(e, "    graph 17: 3 nodes, 2 edges (capture 1 of pid ");
    expect_in(e, "    graph 18: 4 nodes, 3 edges (built by hand in pid ");
    expect_in(e, ", label hand)\n");
    expect_in(e, "  failed captures: 2\n");
    expect_in(e, ", global mode: cudaStreamEndCapture failed with "
                 "cudaErrorStreamCaptureInvalidated (901): operation failed due to a previous "
                 "error during capture; broken by cudaMalloc, which returned "
                 "cudaErrorStreamCaptureUnsupported (900)\n");
    expect_in(e, ", thread_local mode: cudaStreamEndCapture failed with "
                 "cudaErrorStreamCaptureUnjoined (904): capturing stream has unjoined work; "
                 "unjoined work on stream 7 (nodes 2, 3), stream 9 (node 4)\n");
    expect_in(e, "  kept in the process, stored by no daemon: 2\n");
    expect_in(e, "    6 nodes, 5 edges (capture 4 of pid ");
    expect_in(e, "    2 nodes, 1 edge (built by hand in pid ");
    expect_in(e, "  never ended by the program: 1\n");
    expect_in(e, "    capture 5 of pid ");
    expect_in(e, "  runtime calls the stand-in does not support: cudaBar, cudaFoo\n");
    expect_not_in(e, "left no report");
    expect_not_in(e, "skipped");
    sc_ct_result_free(&r);
}

static cJSON *run_json(fixture *f, const char *const *steps, int want_status)
{
    char file[128];
    snprintf(file, sizeof(file), "%s/summary.json", f->tmp);
    const char *argv[48] = {STREAMCAP, "--json", "run", "--summary-file", file, SC_RUN_PROBE};
    size_t n = 6;
    for (const char *const *s = steps; *s; s++)
        argv[n++] = *s;
    argv[n] = NULL;
    const char *const env[] = {f->standin_env, NULL};
    sc_ct_opts o = {.setenv = env};
    sc_ct_result r;
    assert_int_equal(sc_ct_run(argv, &o, &r), 0);
    expect_status(&r, want_status);
    /* The summary went to the file: standard error is the program's. */
    assert_string_equal(r.err, "");
    sc_ct_result_free(&r);
    char *text = slurp(file);
    cJSON *j = cJSON_Parse(text);
    if (!j)
        fail_msg("not JSON: %s", text);
    free(text);
    return j;
}

static const cJSON *item(const cJSON *j, const char *key, int i)
{
    const cJSON *a = cJSON_GetObjectItem(j, key);
    assert_true(cJSON_IsArray(a));
    const cJSON *e = cJSON_GetArrayItem(a, i);
    if (!e)
        fail_msg("%s has no item %d", key, i);
    return e;
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);
    if (!cJSON_IsNumber(v))
        fail_msg("no number %s", k);
    return v->valuedouble;
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);
    if (!cJSON_IsString(v))
        fail_msg("no string %s", k);
    return v->valuestring;
}

static void test_run_summary_json(void **state)
{
    fixture *f = *state;
    static const char *const steps[] = {PROC,   STORED,      FAILED,  UNJOINED, KEPT, DISCARDED,
                                        SUBMIT, SUBMIT_KEPT, "write", "exit=0", NULL};
    cJSON *j = run_json(f, steps, 0);
    assert_string_equal(str(j, "program"), SC_RUN_PROBE);
    assert_int_equal((int)num(j, "exit_status"), 0);
    assert_int_equal((int)num(j, "captures_begun"), 5);
    assert_false(cJSON_IsTrue(cJSON_GetObjectItem(j, "report_missing")));

    const cJSON *p = item(j, "processes", 0);
    double pid = num(p, "pid");
    assert_true(pid > 0);
    assert_string_equal(str(p, "program"), "run_probe");
    assert_string_equal(str(p, "daemon"), "connected");
    assert_int_equal((int)num(p, "session"), 4);

    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "graphs")), 2);
    const cJSON *g = item(j, "graphs", 0);
    assert_int_equal((int)num(g, "graph"), 17);
    assert_int_equal((int)num(g, "capture"), 1);
    assert_true(num(g, "pid") == pid);
    assert_string_equal(str(g, "source"), "capture");
    assert_int_equal((int)num(g, "node_count"), 3);
    assert_int_equal((int)num(g, "edge_count"), 2);
    g = item(j, "graphs", 1);
    assert_int_equal((int)num(g, "graph"), 18);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(g, "capture")));
    assert_string_equal(str(g, "source"), "submit");
    assert_string_equal(str(g, "label"), "hand");
    assert_int_equal((int)num(g, "node_count"), 4);

    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "failed")), 2);
    const cJSON *x = item(j, "failed", 0);
    assert_int_equal((int)num(x, "capture"), 2);
    assert_string_equal(str(x, "call"), "cudaStreamEndCapture");
    assert_int_equal((int)num(x, "cuda_error"), 901);
    assert_string_equal(str(x, "cuda_name"), "cudaErrorStreamCaptureInvalidated");
    assert_string_equal(str(x, "message"),
                        "operation failed due to a previous error during capture");
    const cJSON *bb = cJSON_GetObjectItem(x, "broken_by");
    assert_string_equal(str(bb, "call"), "cudaMalloc");
    assert_int_equal((int)num(bb, "cuda_error"), 900);
    assert_string_equal(str(bb, "cuda_name"), "cudaErrorStreamCaptureUnsupported");
    x = item(j, "failed", 1);
    assert_int_equal((int)num(x, "cuda_error"), 904);
    assert_null(cJSON_GetObjectItem(x, "broken_by"));
    const cJSON *un = cJSON_GetObjectItem(x, "unjoined");
    assert_int_equal(cJSON_GetArraySize(un), 2);
    assert_int_equal((int)num(cJSON_GetArrayItem(un, 0), "stream"), 7);
    const cJSON *nodes = cJSON_GetObjectItem(cJSON_GetArrayItem(un, 0), "nodes");
    assert_int_equal(cJSON_GetArraySize(nodes), 2);
    assert_int_equal(cJSON_GetArrayItem(nodes, 1)->valueint, 3);
    assert_int_equal((int)num(cJSON_GetArrayItem(un, 1), "stream"), 9);

    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "kept")), 2);
    x = item(j, "kept", 0);
    assert_int_equal((int)num(x, "capture"), 4);
    assert_int_equal((int)num(x, "node_count"), 6);
    x = item(j, "kept", 1);
    assert_string_equal(str(x, "source"), "submit");
    assert_string_equal(str(x, "label"), "hand2");

    x = item(j, "discarded", 0);
    assert_int_equal((int)num(x, "capture"), 5);
    assert_string_equal(str(x, "mode"), "global");

    assert_string_equal(item(j, "unsupported", 0)->valuestring, "cudaBar");
    assert_string_equal(item(j, "unsupported", 1)->valuestring, "cudaFoo");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "bad_report_lines")), 0);
    cJSON_Delete(j);
}

/* The program and a child process each report; unsupported names merge. */
static void test_run_multi_process(void **state)
{
    fixture *f = *state;
    static const char *const steps[] = {
        "fork={\"event\":\"process\",\"pid\":{pid},\"program\":\"child\",\"label\":\"c\","
        "\"daemon\":\"unreachable\",\"session\":null,\"captures_begun\":1,\"unsupported\":["
        "\"cudaFoo\",\"cudaZap\"]}\n{\"event\":\"capture\",\"pid\":{pid},\"capture\":1,\"mode\":"
        "\"global\",\"outcome\":\"kept\",\"graph\":null,\"node_count\":2,\"edge_count\":1}",
        PROC, STORED, "write", NULL};
    cJSON *j = run_json(f, steps, 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "processes")), 2);
    const cJSON *c = item(j, "processes", 0);
    const cJSON *p = item(j, "processes", 1);
    assert_string_equal(str(c, "daemon"), "unreachable");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(c, "session")));
    assert_string_equal(str(p, "daemon"), "connected");
    assert_true(num(c, "pid") != num(p, "pid"));
    assert_int_equal((int)num(j, "captures_begun"), 6);
    assert_true(num(item(j, "kept", 0), "pid") == num(c, "pid"));
    assert_true(num(item(j, "graphs", 0), "pid") == num(p, "pid"));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "unsupported")), 3);
    assert_string_equal(item(j, "unsupported", 2)->valuestring, "cudaZap");
    cJSON_Delete(j);

    /* The text names both processes. */
    sc_ct_result r = RUN(f, "run", SC_RUN_PROBE, steps[0], PROC, "write");
    expect_in(r.err, "(child), label c: daemon unreachable\n");
    expect_in(r.err, "(run_probe), label run_probe:");
    expect_in(r.err, "runtime calls the stand-in does not support: cudaBar, cudaFoo, cudaZap\n");
    sc_ct_result_free(&r);
}

static void test_run_missing_report(void **state)
{
    fixture *f = *state;
    /* _exit before the report is written, and a crash. */
    sc_ct_result r = RUN(f, "run", SC_RUN_PROBE, PROC, "exit=0");
    expect_status(&r, 0);
    expect_in(r.err, "the program left no report (it did not exit normally");
    sc_ct_result_free(&r);
    r = RUN(f, "run", SC_RUN_PROBE, PROC, "raise=11");
    expect_status(&r, 128 + 11);
    expect_in(r.err, "the program left no report");
    sc_ct_result_free(&r);

    static const char *const steps[] = {"raise=6", NULL};
    cJSON *j = run_json(f, steps, 128 + 6);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "report_missing")));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "processes")), 0);
    cJSON_Delete(j);
}

static void test_run_bad_lines(void **state)
{
    fixture *f = *state;
    static const char *const steps[] = {"line=not json at all",
                                        "line=[1,2,3]",
                                        "line={\"pid\":1}",
                                        "line={\"event\":\"capture\",\"capture\":1}",
                                        "line={\"event\":\"capture\",\"pid\":-4,\"capture\":1}",
                                        "line={\"event\":\"capture\",\"pid\":{pid},\"capture\":"
                                        "\"x\",\"outcome\":\"stored\"}",
                                        "line={\"event\":\"capture\",\"pid\":{pid},\"capture\":"
                                        "1,\"outcome\":\"exploded\"}",
                                        "line={\"event\":\"capture\",\"pid\":1.5,\"capture\":1}",
                                        "line={\"event\":\"process\",\"pid\":{pid},"
                                        "\"captures_begun\":\"many\"}",
                                        "line={\"event\":\"capture\",\"pid\":{pid},\"capture\":"
                                        "1,\"outcome\":\"stored\",\"graph\":9,\"node_count\":"
                                        "\"lots\",\"edge_count\":[]}",
                                        "line={\"event\":\"someday\",\"pid\":{pid}}",
                                        "line=",
                                        "line={\"event\":\"process\",\"pid\":{pid},\"program\":"
                                        "\"p\\u001b[31m\",\"unsupported\":[1,\"cudaX\",null]}",
                                        "line={\"event\":\"capture\",\"pid\":{pid},\"capture\":2,"
                                        "\"outcome\":\"stored\",\"graph\":9,\"node_count\":1,\"ed",
                                        "write",
                                        NULL};
    cJSON *j = run_json(f, steps, 0);
    const cJSON *bad = cJSON_GetObjectItem(j, "bad_report_lines");
    assert_int_equal(cJSON_GetArraySize(bad), 10);
    static const int lines[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 14};
    for (int i = 0; i < 10; i++)
        assert_int_equal((int)num(cJSON_GetArrayItem(bad, i), "line"), lines[i]);
    assert_string_equal(str(cJSON_GetArrayItem(bad, 0), "reason"), "not JSON");
    assert_string_equal(str(cJSON_GetArrayItem(bad, 1), "reason"), "not a JSON object");
    /* The good lines count: a stored graph with bad counts reads as 0. */
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "processes")), 1);
    assert_int_equal((int)num(item(j, "graphs", 0), "graph"), 9);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "unsupported")), 1);
    cJSON_Delete(j);

    sc_ct_result r = RUN(f, "run", SC_RUN_PROBE, steps[0], steps[12], steps[6], "write");
    expect_status(&r, 0);
    expect_in(r.err, "  report line 1 skipped: not JSON\n");
    expect_in(r.err, "  report line 3 skipped: \"outcome\" is not stored, kept, failed or "
                     "discarded\n");
    /* A terminal escape from the report is not printed as one. */
    expect_in(r.err, "(p?[31m)");
    expect_not_in(r.err, "\033");
    sc_ct_result_free(&r);
}

/* ------------------------------------------------------------ signals */

static void test_run_signals_forwarded(void **state)
{
    fixture *f = *state;
    static const int sigs[] = {2, 15, 1};
    for (size_t i = 0; i < 3; i++) {
        char script[2048];
        snprintf(script, sizeof(script),
                 "ready='%s/ready%zu'; STREAMCAP_CUDART_DIR='%s' '%s' run '%s' 'wait='\"$ready\" "
                 "2>'%s/err%zu' & pid=$!; n=0; while [ ! -e \"$ready\" ] && [ $n -lt 600 ]; do "
                 "sleep 0.05; n=$((n+1)); done; kill -%d $pid; wait $pid; echo \"status=$?\"",
                 f->tmp, i, f->standin, STREAMCAP, SC_RUN_PROBE, f->tmp, i, sigs[i]);
        sc_ct_result r;
        assert_int_equal(sc_ct_sh(script, NULL, &r), 0);
        char want[64];
        snprintf(want, sizeof(want), "got signal %d\n", sigs[i]);
        expect_in(r.out, want);
        /* streamcap outlived the signal and passed the program's status on. */
        snprintf(want, sizeof(want), "status=%d\n", 40 + sigs[i]);
        expect_in(r.out, want);
        char errf[128];
        snprintf(errf, sizeof(errf), "%s/err%zu", f->tmp, i);
        char *err = slurp(errf);
        snprintf(want, sizeof(want), "label signal %d", sigs[i]);
        expect_in(err, want);
        free(err);
        sc_ct_result_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_run_exit_status, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_signal_status, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_environment, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_arguments, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_usage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_standin_not_found, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_standin_lookup, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_summary_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_summary_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_multi_process, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_missing_report, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_bad_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_signals_forwarded, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
