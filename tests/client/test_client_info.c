/*
 * streamcap --version and streamcap info, through the real binaries
 * against a real streamcapd: the daemon's status as server.info reports
 * it (pid, sync mode, cache, database size) and the socket the tool
 * resolved.
 */
#define _GNU_SOURCE
#include <errno.h>
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

#include "harness.h"
#include "run.h"

#define STREAMCAP SC_BIN_DIR "/streamcap"

static void run(const char *const *argv, sc_ct_result *r)
{
    assert_int_equal(sc_ct_run(argv, NULL, r), 0);
}

static void test_version(void **state)
{
    (void)state;
    sc_ct_result r;
    static const char *const version[] = {STREAMCAP, "--version", NULL};
    run(version, &r);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "streamcap " SC_EXPECTED_VERSION "\n");
    assert_string_equal(r.err, "");
    sc_ct_result_free(&r);

    /* No daemon needed, and the help says so. */
    static const char *const help[] = {STREAMCAP, "--help", NULL};
    run(help, &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "--version"));
    sc_ct_result_free(&r);
}

/* The value after `label` and its padding on the line that starts with it. */
static char *field(const char *out, const char *label)
{
    size_t n = strlen(label);
    for (const char *line = out; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len > n && !strncmp(line, label, n) && line[n] == ' ') {
            const char *v = line + n;
            while (*v == ' ')
                v++;
            return strndup(v, len - (size_t)(v - line));
        }
        line += len + (end ? 1 : 0);
    }
    fail_msg("no '%s' line in:\n%s", label, out);
    return NULL;
}

static void expect_field(const char *out, const char *label, const char *want)
{
    char *v = field(out, label);
    if (strcmp(v, want) != 0)
        fail_msg("'%s' is '%s', expected '%s' in:\n%s", label, v, want, out);
    free(v);
}

static void test_info(void **state)
{
    (void)state;
    static const char *const args[] = {"--sync", "normal", NULL};
    sc_it_daemon *d = sc_it_must_start(args);
    const char *sock = sc_it_daemon_socket(d);
    sc_ct_result r;

    /* A stored graph read twice: one load, one hit. */
    sc_it_conn *c = sc_it_must_connect(d);
    long long s = (long long)sc_it_open_session(c, "info");
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":0}", s);
    sc_it_must_ok(c, "capture.record_host_callback",
                  "{\"session\":%lld,\"stream\":0,\"label\":\"x\"}", s);
    cJSON *end = sc_it_must_result(c, "capture.end", "{\"session\":%lld,\"stream\":0}", s);
    long long g = (long long)sc_it_int(end, "graph");
    cJSON_Delete(end);
    for (int i = 0; i < 2; i++)
        cJSON_Delete(sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", g));
    sc_it_conn_close(c);

    const char *const text[] = {STREAMCAP, "--socket", sock, "info", NULL};
    run(text, &r);
    if (r.status != 0)
        fail_msg("streamcap info: status %d, stderr: %s", r.status, r.err);
    char *pid = sc_it_fmt("%d", (int)sc_it_daemon_pid(d));
    expect_field(r.out, "streamcapd", SC_EXPECTED_VERSION);
    expect_field(r.out, "socket", sock);
    expect_field(r.out, "database", sc_it_daemon_db(d));
    expect_field(r.out, "pid", pid);
    expect_field(r.out, "sync", "normal");
    expect_field(r.out, "graphs", "1");
    expect_field(r.out, "cache hits", "50.0% (1 of 2 look-ups)");
    char *size = field(r.out, "db size");
    if (!strstr(size, "KiB (") || !strstr(size, " bytes)"))
        fail_msg("db size line '%s', expected '<n> KiB (<n> bytes)'", size);
    free(size);
    char *cache = field(r.out, "cache");
    if (!strstr(cache, " of 512.0 MiB, 1 graph") || strstr(cache, "graphs"))
        fail_msg("cache line '%s' does not show use, budget and entries", cache);
    free(cache);
    sc_ct_result_free(&r);

    /* --json carries the same, the socket the one resolved from the
     * environment when no --socket is given. */
    char *env = sc_it_fmt("STREAMCAP_SOCKET=%s", sock);
    const char *const setenv_list[] = {env, NULL};
    sc_ct_opts o = {.setenv = setenv_list};
    const char *const json[] = {STREAMCAP, "--json", "info", NULL};
    assert_int_equal(sc_ct_run(json, &o, &r), 0);
    assert_int_equal(r.status, 0);
    cJSON *j = cJSON_Parse(r.out);
    if (!j)
        fail_msg("streamcap --json info printed no JSON: %s", r.out);
    assert_string_equal(sc_it_str(j, "socket"), sock);
    assert_int_equal(sc_it_int(j, "pid"), sc_it_daemon_pid(d));
    assert_string_equal(sc_it_str(j, "sync"), "normal");
    assert_string_equal(sc_it_str(j, "db_path"), sc_it_daemon_db(d));
    assert_true(sc_it_int(j, "db_bytes") > 0);
    assert_int_equal(sc_it_int(j, "cache_hits"), 1);
    assert_int_equal(sc_it_int(j, "cache_misses"), 1);
    assert_int_equal(sc_it_int(j, "cache_entries"), 1);
    assert_int_equal(sc_it_int(j, "cache_max_bytes"), 512 << 20);
    assert_true(sc_it_int(j, "cache_bytes") > 0);
    const cJSON *rate = cJSON_GetObjectItemCaseSensitive(j, "cache_hit_rate");
    assert_true(cJSON_IsNumber(rate));
    assert_true(rate->valuedouble == 0.5);
    cJSON_Delete(j);
    sc_ct_result_free(&r);
    free(env);
    free(pid);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_info),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
