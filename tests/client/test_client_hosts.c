/*
 * Hosts in the streamcap tool, run as a user runs it against a real
 * streamcapd: one database holding rows of two host names (a daemon
 * restarted under another --host-name), the host shown by graphs, graph
 * show, log and info in text and --json, and the --host filter of graphs
 * and log, its empty pages and its next-page command.
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

typedef struct fixture {
    sc_it_daemon *d;
    long long ga; /* stored under gpu-a */
    long long gb; /* stored under gpu-b */
} fixture;

static long long store_graph(sc_it_daemon *d, const char *label)
{
    sc_it_conn *c = sc_it_must_connect(d);
    long long s = (long long)sc_it_open_session(c, label);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":0}", s);
    sc_it_must_ok(c, "capture.record_host_callback",
                  "{\"session\":%lld,\"stream\":0,\"label\":\"x\"}", s);
    cJSON *end = sc_it_must_result(c, "capture.end", "{\"session\":%lld,\"stream\":0}", s);
    long long g = (long long)sc_it_int(end, "graph");
    cJSON_Delete(end);
    sc_it_conn_close(c);
    return g;
}

/* Graph ga and its session under gpu-a, then gb and one more under gpu-b, the daemon
 * left running as gpu-b. */
static int group_setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    const char *a[] = {"--host-name", "gpu-a", NULL};
    f->d = sc_it_must_start(a);
    f->ga = store_graph(f->d, "on a");
    sc_it_must_stop(f->d);
    const char *b[] = {"--host-name", "gpu-b", NULL};
    sc_it_must_restart(f->d, b);
    f->gb = store_graph(f->d, "on b");
    /* Two, so that a page of one of gpu-b's has a next. */
    store_graph(f->d, "on b");
    *state = f;
    return 0;
}

static int group_teardown(void **state)
{
    fixture *f = *state;
    sc_it_must_stop(f->d);
    sc_it_daemon_destroy(f->d);
    free(f);
    return 0;
}

/* streamcap --socket SOCK ARGS... (NULL-terminated); fails the test on a
 * status other than `want`. */
static void run(fixture *f, int want, sc_ct_result *r, ...)
{
    va_list ap, first;
    va_start(ap, r);
    va_copy(first, ap);
    const char *command = va_arg(first, const char *);
    va_end(first);
    int rc = sc_ct_vrun(STREAMCAP, sc_it_daemon_socket(f->d), NULL, ap, r);
    va_end(ap);
    assert_int_equal(rc, 0);
    if (r->status != want)
        fail_msg("streamcap %s: status %d, want %d\nstdout: %s\nstderr: %s", command, r->status,
                 want, r->out, r->err);
}

/* The line of `out` that starts with `start`, or a failure. */
static char *line_of(const char *out, const char *start)
{
    for (const char *l = out; *l;) {
        const char *end = strchr(l, '\n');
        size_t len = end ? (size_t)(end - l) : strlen(l);
        if (!strncmp(l, start, strlen(start)))
            return strndup(l, len);
        l += len + (end ? 1 : 0);
    }
    fail_msg("no line starting '%s' in:\n%s", start, out);
    return NULL;
}

/* The table's column `name` holds `want` on the row that starts `row`. */
static void expect_cell(const char *out, const char *head, const char *row, const char *name,
                        const char *want)
{
    char *h = line_of(out, head);
    char *r = line_of(out, row);
    const char *col = strstr(h, name);
    if (!col)
        fail_msg("no column %s in '%s'", name, h);
    size_t at = (size_t)(col - h);
    if (strlen(r) < at || strncmp(r + at, want, strlen(want)) != 0 ||
        (r[at + strlen(want)] != ' ' && r[at + strlen(want)] != '\0'))
        fail_msg("column %s of '%s' is not '%s' (header '%s')", name, r, want, h);
    free(h);
    free(r);
}

static void expect_in(const char *text, const char *want)
{
    if (!strstr(text, want))
        fail_msg("'%s' not in:\n%s", want, text);
}

static void expect_not_in(const char *text, const char *unwanted)
{
    if (strstr(text, unwanted))
        fail_msg("'%s' unexpectedly in:\n%s", unwanted, text);
}

/* The hosts of a --json listing's rows under `key`, comma-separated. */
static char *json_hosts(const char *out, const char *key)
{
    cJSON *j = cJSON_Parse(out);
    if (!j)
        fail_msg("not JSON: %s", out);
    char *hosts = strdup("");
    const cJSON *row;
    cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(j, key))
    {
        char *next = sc_it_fmt("%s%s%s", hosts, *hosts ? "," : "", sc_it_str(row, "host"));
        free(hosts);
        hosts = next;
    }
    cJSON_Delete(j);
    return hosts;
}

static void expect_json_hosts(const char *out, const char *key, const char *want)
{
    char *got = json_hosts(out, key);
    if (strcmp(got, want) != 0)
        fail_msg("hosts '%s', expected '%s' in %s", got, want, out);
    free(got);
}

static void test_graphs(void **state)
{
    fixture *f = *state;
    sc_ct_result r;
    char *ra = sc_it_fmt("%lld ", f->ga), *rb = sc_it_fmt("%lld ", f->gb);

    run(f, 0, &r, "graphs", NULL);
    expect_cell(r.out, "GRAPH", ra, "HOST", "gpu-a");
    expect_cell(r.out, "GRAPH", rb, "HOST", "gpu-b");
    sc_ct_result_free(&r);

    run(f, 0, &r, "graphs", "--host", "gpu-a", NULL);
    expect_cell(r.out, "GRAPH", ra, "HOST", "gpu-a");
    expect_not_in(r.out, "gpu-b");
    sc_ct_result_free(&r);

    run(f, 0, &r, "--json", "graphs", NULL);
    expect_json_hosts(r.out, "graphs", "gpu-b,gpu-b,gpu-a");
    sc_ct_result_free(&r);
    run(f, 0, &r, "--json", "graphs", "--host", "gpu-b", NULL);
    expect_json_hosts(r.out, "graphs", "gpu-b,gpu-b");
    sc_ct_result_free(&r);

    /* Nothing from a host that stored nothing, said in those words. */
    run(f, 0, &r, "graphs", "--host", "gpu-z", NULL);
    assert_string_equal(r.out, "no graphs from host gpu-z\n");
    sc_ct_result_free(&r);
    run(f, 0, &r, "graphs", "--label", "on a", "--host", "gpu-b", NULL);
    assert_string_equal(r.out, "no graphs match --label on a from host gpu-b\n");
    sc_ct_result_free(&r);

    /* One host's graphs only, also when it is the older one. */
    run(f, 0, &r, "graphs", "--host", "gpu-a", "--limit", "1", NULL);
    expect_cell(r.out, "GRAPH", ra, "HOST", "gpu-a");
    sc_ct_result_free(&r);

    run(f, 2, &r, "graphs", "--host", NULL);
    expect_in(r.err, "--host takes a host name");
    sc_ct_result_free(&r);
    run(f, 2, &r, "graphs", "--host", "", NULL);
    expect_in(r.err, "--host takes a host name");
    sc_ct_result_free(&r);
    free(ra);
    free(rb);
}

static void test_graph_show(void **state)
{
    fixture *f = *state;
    sc_ct_result r;
    char *id = sc_it_fmt("%lld", f->ga);
    run(f, 0, &r, "graph", "show", id, NULL);
    char *line = line_of(r.out, "created ");
    if (!strstr(line, " by uid ") || !strstr(line, " on host gpu-a") ||
        strcmp(line + strlen(line) - strlen(" on host gpu-a"), " on host gpu-a") != 0)
        fail_msg("created line '%s' does not end with the host", line);
    free(line);
    sc_ct_result_free(&r);
    run(f, 0, &r, "--json", "graph", "show", id, NULL);
    cJSON *j = cJSON_Parse(r.out);
    assert_non_null(j);
    assert_string_equal(sc_it_str(j, "host"), "gpu-a");
    cJSON_Delete(j);
    sc_ct_result_free(&r);
    free(id);
}

static void test_log(void **state)
{
    fixture *f = *state;
    sc_ct_result r;
    run(f, 0, &r, "log", NULL);
    /* Newest first: gpu-b's sessions, then gpu-a's, under HOST. */
    const char *rows = strchr(r.out, '\n');
    assert_non_null(rows);
    char *first = line_of(rows + 1, "");
    char *row = sc_it_fmt("%.*s", (int)strcspn(first, " "), first);
    expect_cell(r.out, "SESSION", row, "HOST", "gpu-b");
    free(first);
    free(row);
    expect_in(r.out, " gpu-a ");
    sc_ct_result_free(&r);

    run(f, 0, &r, "log", "--host", "gpu-a", NULL);
    expect_in(r.out, " gpu-a ");
    expect_not_in(r.out, "gpu-b");
    sc_ct_result_free(&r);

    run(f, 0, &r, "--json", "log", NULL);
    expect_json_hosts(r.out, "entries", "gpu-b,gpu-b,gpu-a");
    sc_ct_result_free(&r);
    run(f, 0, &r, "--json", "log", "--host", "gpu-a", NULL);
    expect_json_hosts(r.out, "entries", "gpu-a");
    sc_ct_result_free(&r);

    run(f, 0, &r, "log", "--host", "gpu-z", NULL);
    assert_string_equal(r.out, "no log entries from host gpu-z\n");
    sc_ct_result_free(&r);
    run(f, 0, &r, "log", "--outcome", "failed", "--host", "gpu-a", NULL);
    assert_string_equal(r.out, "no log entries with outcome failed from host gpu-a\n");
    sc_ct_result_free(&r);

    /* A full page: the command for the next one keeps --host. */
    run(f, 0, &r, "log", "--host", "gpu-b", "--limit", "1", NULL);
    expect_in(r.err, "more: streamcap log --host gpu-b --limit 1 --before ");
    sc_ct_result_free(&r);
    run(f, 0, &r, "graphs", "--host", "gpu-b", "--limit", "1", NULL);
    expect_in(r.err, "more: streamcap graphs --host gpu-b --limit 1 --before ");
    sc_ct_result_free(&r);
}

static void test_info(void **state)
{
    fixture *f = *state;
    sc_ct_result r;
    run(f, 0, &r, "info", NULL);
    char *l = line_of(r.out, "backend ");
    assert_string_equal(l, "backend      sqlite");
    free(l);
    l = line_of(r.out, "host ");
    assert_string_equal(l, "host         gpu-b");
    free(l);
    sc_ct_result_free(&r);
    run(f, 0, &r, "--json", "info", NULL);
    cJSON *j = cJSON_Parse(r.out);
    assert_non_null(j);
    assert_string_equal(sc_it_str(j, "backend"), "sqlite");
    assert_string_equal(sc_it_str(j, "host"), "gpu-b");
    cJSON_Delete(j);
    sc_ct_result_free(&r);
}

/* --help tells of --host, and of the host column. */
static void test_help(void **state)
{
    fixture *f = *state;
    sc_ct_result r;
    run(f, 0, &r, "graphs", "--help", NULL);
    expect_in(r.out, "--host NAME");
    sc_ct_result_free(&r);
    run(f, 0, &r, "log", "--help", NULL);
    expect_in(r.out, "--host NAME");
    sc_ct_result_free(&r);
    run(f, 0, &r, "info", "--help", NULL);
    expect_in(r.out, "host");
    sc_ct_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graphs), cmocka_unit_test(test_graph_show),
        cmocka_unit_test(test_log),    cmocka_unit_test(test_info),
        cmocka_unit_test(test_help),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
