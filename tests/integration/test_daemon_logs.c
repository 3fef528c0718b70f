/*
 * What an operator sees of streamcapd: --version, log lines (timestamped,
 * or plain with a priority prefix when stderr is the journal), storage
 * errors naming what was written and for whom, the per-request trace of
 * --log-level debug, and the status server.info reports.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"

/* ------------------------------------------------------------ helpers */

static char *stderr_text(const sc_it_daemon *d)
{
    char *text = sc_it_read_file(sc_it_daemon_stderr_path(d));
    if (!text)
        fail_msg("cannot read %s", sc_it_daemon_stderr_path(d));
    return text;
}

/* True when some line of `text` contains every one of the NULL-terminated
 * needles. */
static bool line_with(const char *text, const char *const *needles)
{
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char *copy = strndup(line, len);
        assert_non_null(copy);
        bool all = true;
        for (size_t i = 0; needles[i] && all; i++)
            all = strstr(copy, needles[i]) != NULL;
        free(copy);
        if (all)
            return true;
        line += len + (end ? 1 : 0);
    }
    return false;
}

static void must_have_line(const sc_it_daemon *d, const char *const *needles)
{
    char *text = stderr_text(d);
    if (!line_with(text, needles)) {
        char want[512] = "";
        for (size_t i = 0; needles[i]; i++)
            snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s'%s'", i ? ", " : "",
                     needles[i]);
        fail_msg("no line of the daemon's stderr contains %s; stderr:\n%s", want, text);
    }
    free(text);
}

/* ------------------------------------------------------------ --version */

static void test_version(void **state)
{
    (void)state;
    char dir[64];
    assert_int_equal(sc_it_tmpdir(dir, sizeof(dir)), 0);
    static const char *const args[] = {"--version", NULL};
    int status;
    char *out = NULL, *err = NULL;
    assert_int_equal(sc_it_run_daemon(dir, args, SC_IT_START_TIMEOUT_MS, &status, &out, &err), 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("streamcapd --version: wait status 0x%x, stderr: %s", (unsigned)status, err);
    assert_string_equal(out, "streamcapd " SC_EXPECTED_VERSION "\n");
    assert_string_equal(err, "");
    free(out);
    free(err);

    /* --help tells about it. */
    static const char *const help[] = {"--help", NULL};
    assert_int_equal(sc_it_run_daemon(dir, help, SC_IT_START_TIMEOUT_MS, &status, &out, &err), 0);
    assert_non_null(strstr(out, "--version"));
    free(out);
    free(err);
    sc_it_rmtree(dir);
}

/* ------------------------------------------------------------ journal */

/* An ISO 8601 UTC time with milliseconds at the start of `line`. */
static bool stamped(const char *line)
{
    static const char shape[] = "dddd-dd-ddTdd:dd:dd.dddZ ";
    for (size_t i = 0; shape[i]; i++) {
        char c = line[i];
        if (shape[i] == 'd' ? (c < '0' || c > '9') : c != shape[i])
            return false;
    }
    return true;
}

/* Start a daemon whose stderr file has JOURNAL_STREAM set to `journal`
 * (printf'd with the file's device and inode; NULL: unset). */
static sc_it_daemon *start_with_journal(const char *journal, const char *const *extra)
{
    sc_it_daemon *d;
    assert_int_equal(sc_it_daemon_create(&d), 0);
    /* The harness opens its capture file without replacing it, so the
     * inode given to the daemon is the one its stderr writes to. */
    char *path = sc_it_fmt("%s/daemon-1.err", sc_it_daemon_dir(d));
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    if (journal) {
        char *v = sc_it_fmt(journal, (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
        setenv("JOURNAL_STREAM", v, 1);
        free(v);
    } else {
        unsetenv("JOURNAL_STREAM");
    }
    int rc = sc_it_daemon_start(d, extra);
    unsetenv("JOURNAL_STREAM");
    assert_int_equal(rc, 0);
    assert_string_equal(sc_it_daemon_stderr_path(d), path);
    free(path);
    return d;
}

static void test_journal_lines(void **state)
{
    (void)state;
    sc_it_daemon *d = start_with_journal("%llu:%llu", NULL);
    sc_it_must_stop(d);
    char *text = stderr_text(d);
    assert_true(text[0] != '\0');
    for (char *line = text; *line;) {
        char *end = strchr(line, '\n');
        assert_non_null(end);
        *end = '\0';
        if (line[0] != '<' || line[1] < '3' || line[1] > '7' || line[2] != '>' || stamped(line + 3))
            fail_msg("journal line without a bare priority prefix: '%s'", line);
        line = end + 1;
    }
    free(text);
    static const char *const ready[] = {"<6>version " SC_EXPECTED_VERSION " ready", NULL};
    must_have_line(d, ready);
    sc_it_daemon_destroy(d);
}

static void test_stamped_lines(void **state)
{
    (void)state;
    /* Not the journal: unset, or naming another file (stderr redirected). */
    static const char *const journals[] = {NULL, "%llu:%llu1", "garbage"};
    for (size_t k = 0; k < 3; k++) {
        sc_it_daemon *d = start_with_journal(journals[k], NULL);
        sc_it_must_stop(d);
        char *text = stderr_text(d);
        if (!stamped(text) || !strstr(text, "Z streamcapd info: version " SC_EXPECTED_VERSION))
            fail_msg("JOURNAL_STREAM=%s: expected timestamped lines, got:\n%s",
                     journals[k] ? journals[k] : "(unset)", text);
        free(text);
        sc_it_daemon_destroy(d);
    }
}

/* -------------------------------------------------------------- trace */

/* A few requests of every completion path: synchronous, async (a cache
 * miss), a held write, and one rejected before any handler. */
static long long traced_requests(sc_it_daemon *d)
{
    sc_it_conn *c = sc_it_must_connect(d);
    long long s = (long long)sc_it_open_session(c, "traced");
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":0}", s);
    sc_it_must_error(c, 1002, NULL, "capture.begin", "{\"session\":%lld,\"stream\":0}", s);
    sc_it_must_ok(c, "capture.record_host_callback",
                  "{\"session\":%lld,\"stream\":0,\"label\":\"x\"}", s);
    sc_it_must_ok(c, "capture.end", "{\"session\":%lld,\"stream\":0}", s);
    sc_it_must_error(c, 1001, NULL, "graph.get", "{\"graph\":424242}");
    sc_it_must_error(c, -32601, NULL, "no.such\\nmethod", NULL);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    return s;
}

static void test_debug_trace(void **state)
{
    (void)state;
    static const char *const debug[] = {"--log-level", "debug", NULL};
    sc_it_daemon *d = sc_it_must_start(debug);
    long long s = traced_requests(d);
    char *begin = sc_it_fmt("request capture.begin session %lld: ok in ", s);
    char *refused = sc_it_fmt("request capture.begin session %lld: error 1002 in ", s);
    char *end = sc_it_fmt("request capture.end session %lld: ok in ", s);
    const char *const *want[] = {
        (const char *const[]){"streamcapd debug: request session.open: ok in ", " us", NULL},
        (const char *const[]){begin, " us", NULL},
        (const char *const[]){refused, NULL},
        (const char *const[]){end, NULL},
        (const char *const[]){"request graph.get: error 1001 in ", " us", NULL},
        (const char *const[]){"request (unknown method): error -32601 in ", NULL},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        must_have_line(d, want[i]);
    free(begin);
    free(refused);
    free(end);
    sc_it_daemon_destroy(d);

    /* Below debug, nothing of it. */
    d = sc_it_must_start(NULL);
    traced_requests(d);
    char *text = stderr_text(d);
    if (strstr(text, "request "))
        fail_msg("requests traced at --log-level info:\n%s", text);
    free(text);
    sc_it_daemon_destroy(d);
}

/* -------------------------------------------------------- server.info */

static cJSON *info(sc_it_conn *c)
{
    return sc_it_must_result(c, "server.info", NULL);
}

static void test_server_info(void **state)
{
    (void)state;
    static const char *const args[] = {"--sync", "normal", "--graph-cache", "64M", NULL};
    sc_it_daemon *d = sc_it_must_start(args);
    sc_it_conn *c = sc_it_must_connect(d);
    cJSON *r = info(c);
    assert_int_equal(sc_it_int(r, "pid"), sc_it_daemon_pid(d));
    assert_string_equal(sc_it_str(r, "sync"), "normal");
    assert_string_equal(sc_it_str(r, "version"), SC_EXPECTED_VERSION);
    assert_int_equal(sc_it_int(r, "cache_max_bytes"), 64 << 20);
    assert_int_equal(sc_it_int(r, "cache_entries"), 0);
    assert_int_equal(sc_it_int(r, "cache_bytes"), 0);
    int64_t hits0 = sc_it_int(r, "cache_hits"), misses0 = sc_it_int(r, "cache_misses");
    struct stat st;
    assert_int_equal(stat(sc_it_daemon_db(d), &st), 0);
    assert_true(st.st_size > 0);
    assert_true(sc_it_int(r, "db_bytes") >= st.st_size);
    cJSON_Delete(r);

    long long s = (long long)sc_it_open_session(c, "info");
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":0}", s);
    for (int i = 0; i < 50; i++)
        sc_it_must_ok(c, "capture.record_kernel",
                      "{\"session\":%lld,\"stream\":0,\"function_name\":\"k\","
                      "\"num_blocks\":1,\"threads_per_block\":32}",
                      s);
    cJSON *end = sc_it_must_result(c, "capture.end", "{\"session\":%lld,\"stream\":0}", s);
    long long g = (long long)sc_it_int(end, "graph");
    cJSON_Delete(end);

    /* The first get loads the graph, the second finds it in memory. */
    cJSON_Delete(sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", g));
    r = info(c);
    assert_int_equal(sc_it_int(r, "cache_misses"), misses0 + 1);
    assert_int_equal(sc_it_int(r, "cache_hits"), hits0);
    assert_int_equal(sc_it_int(r, "cache_entries"), 1);
    assert_true(sc_it_int(r, "cache_bytes") > 0);
    assert_int_equal(sc_it_int(r, "sessions"), 0);
    cJSON_Delete(r);
    cJSON_Delete(sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", g));
    r = info(c);
    assert_int_equal(sc_it_int(r, "cache_misses"), misses0 + 1);
    assert_int_equal(sc_it_int(r, "cache_hits"), hits0 + 1);
    cJSON_Delete(r);
    /* A live session counts. */
    sc_it_open_session(c, "open");
    r = info(c);
    assert_int_equal(sc_it_int(r, "sessions"), 1);
    cJSON_Delete(r);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);

    /* The default sync mode is full. */
    d = sc_it_must_start(NULL);
    c = sc_it_must_connect(d);
    r = info(c);
    assert_string_equal(sc_it_str(r, "sync"), "full");
    cJSON_Delete(r);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version),       cmocka_unit_test(test_journal_lines),
        cmocka_unit_test(test_stamped_lines), cmocka_unit_test(test_debug_trace),
        cmocka_unit_test(test_server_info),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
