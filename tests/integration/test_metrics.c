/*
 * test_metrics.c - the counters of server.info and --metrics-socket
 * through a real streamcapd.
 *
 * server.info's metrics move with requests: requests by method, errors by
 * code, the commit latency histogram once a write committed, bytes
 * stored; retention deletions stay 0.  A scrape of the metrics socket is
 * an HTTP response whose body is the Prometheus text format, every line a
 * `# HELP`, a `# TYPE` or a sample, and its figures agree with
 * server.info's; `curl --unix-socket` gets the same (skipped, saying so,
 * without curl).  A second daemon on a live metrics socket refuses to
 * start.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"

static char *metrics_path(const sc_it_daemon *d)
{
    return sc_it_fmt("%s/metrics.sock", sc_it_daemon_dir(d));
}

static int setup(void **state)
{
    /* The metrics socket lives in the daemon's own directory. */
    sc_it_daemon *d;
    assert_int_equal(sc_it_daemon_create(&d), 0);
    char *path = metrics_path(d);
    const char *const extra[] = {"--metrics-socket", path, NULL};
    int rc = sc_it_daemon_start(d, extra);
    if (rc != 0) {
        char *err = sc_it_read_file(sc_it_daemon_stderr_path(d));
        fail_msg("streamcapd did not start (%d): %s", rc, err ? err : "");
    }
    free(path);
    *state = d;
    return 0;
}

static int teardown(void **state)
{
    sc_it_daemon *d = *state;
    sc_it_must_stop(d);
    /* The stop removed the metrics socket. */
    char *path = metrics_path(d);
    assert_int_not_equal(access(path, F_OK), 0);
    free(path);
    sc_it_daemon_destroy(d);
    return 0;
}

static cJSON *metrics_of(sc_it_conn *c)
{
    cJSON *info = sc_it_must_result(c, "server.info", NULL);
    cJSON *m = cJSON_DetachItemFromObject(info, "metrics");
    cJSON_Delete(info);
    assert_non_null(m);
    return m;
}

static int64_t member(const cJSON *m, const char *obj, const char *name)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(m, obj);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : 0;
}

static void test_counters_move(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    cJSON *m0 = metrics_of(c);
    sc_it_must_ok(c, "graph.list", NULL);
    sc_it_must_ok(c, "graph.list", NULL);
    sc_it_must_error(c, -32601, NULL, "no.such.method", NULL);
    cJSON *r = sc_it_must_result(c, "graph.submit", "%s",
                                 "{\"nodes\":[{\"kind\":\"kernel\",\"function_name\":\"k\","
                                 "\"grid\":[1,1,1],\"block\":[1,1,1]}],\"edges\":[]}");
    cJSON_Delete(r);
    cJSON *m1 = metrics_of(c);
    assert_int_equal(member(m1, "requests", "graph.list") - member(m0, "requests", "graph.list"),
                     2);
    assert_int_equal(
        member(m1, "requests", "graph.submit") - member(m0, "requests", "graph.submit"), 1);
    assert_int_equal(member(m1, "errors", "-32601") - member(m0, "errors", "-32601"), 1);
    const cJSON *l0 = cJSON_GetObjectItem(m0, "commit_latency");
    const cJSON *l1 = cJSON_GetObjectItem(m1, "commit_latency");
    assert_true(sc_it_int(l1, "count") > sc_it_int(l0, "count"));
    /* The buckets add up to the count. */
    const cJSON *counts = cJSON_GetObjectItem(l1, "counts");
    int64_t sum = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, counts) sum += (int64_t)x->valuedouble;
    assert_int_equal(sum, sc_it_int(l1, "count"));
    assert_int_equal(cJSON_GetArraySize(counts),
                     cJSON_GetArraySize(cJSON_GetObjectItem(l1, "bounds_us")) + 1);
    assert_true(sc_it_int(m1, "bytes_stored") > 0);
    assert_int_equal(sc_it_int(m1, "retention_deleted"), 0);
    assert_int_equal(sc_it_int(m1, "writer_queue"), 0);
    cJSON_Delete(m0);
    cJSON_Delete(m1);
    sc_it_conn_close(c);
}

/* The whole response of one scrape (malloc'd). */
static char *scrape(const sc_it_daemon *d, const char *request)
{
    char *path = metrics_path(d);
    int fd = sc_it_socket_connect(path);
    free(path);
    assert_true(fd >= 0);
    size_t n = strlen(request);
    assert_int_equal(write(fd, request, n), (ssize_t)n);
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    for (;;) {
        if (cap - len < 4096) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        ssize_t k = read(fd, buf + len, cap - len - 1);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        len += (size_t)k;
    }
    close(fd);
    buf[len] = '\0';
    return buf;
}

/* A metric or label name: [a-zA-Z_][a-zA-Z0-9_]*; returns past it. */
static const char *name_end(const char *p)
{
    if (!isalpha((unsigned char)*p) && *p != '_')
        return NULL;
    while (isalnum((unsigned char)*p) || *p == '_')
        p++;
    return p;
}

/* One line of the exposition: true when well formed. */
static bool line_ok(const char *line)
{
    if (!strncmp(line, "# HELP ", 7)) {
        const char *e = name_end(line + 7);
        return e && *e == ' ' && e[1];
    }
    if (!strncmp(line, "# TYPE ", 7)) {
        const char *e = name_end(line + 7);
        return e && (!strcmp(e, " counter") || !strcmp(e, " gauge") || !strcmp(e, " histogram"));
    }
    const char *p = name_end(line);
    if (!p)
        return false;
    if (*p == '{') {
        p++;
        while (*p != '}') {
            p = name_end(p);
            if (!p || p[0] != '=' || p[1] != '"')
                return false;
            p += 2;
            while (*p && *p != '"')
                p += *p == '\\' && p[1] ? 2 : 1;
            if (*p++ != '"')
                return false;
            if (*p == ',')
                p++;
        }
        p++;
    }
    if (*p++ != ' ')
        return false;
    char *end;
    strtod(p, &end);
    return end != p && *end == '\0';
}

/* The value of the sample line that starts with `head` + " ". */
static double sample_value(const char *body, const char *head)
{
    size_t n = strlen(head);
    for (const char *l = body; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (!strncmp(l, head, n) && l[n] == ' ')
            return strtod(l + n + 1, NULL);
    fail_msg("no sample %s in:\n%s", head, body);
    return -1;
}

static const char *check_exposition(const char *resp)
{
    if (strncmp(resp, "HTTP/1.1 200 OK\r\n", 17) != 0)
        fail_msg("not an HTTP 200 response: %.200s", resp);
    const char *body = strstr(resp, "\r\n\r\n");
    assert_non_null(body);
    body += 4;
    const char *cl = strcasestr(resp, "Content-Length: ");
    assert_non_null(cl);
    assert_true(cl < body);
    assert_int_equal(strtoul(cl + 16, NULL, 10), strlen(body));
    assert_non_null(strstr(resp, "Content-Type: text/plain; version=0.0.4"));
    char *copy = strdup(body);
    assert_non_null(copy);
    int lines = 0;
    for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (!line_ok(l))
            fail_msg("not a line of the Prometheus text format: %s", l);
        lines++;
    }
    free(copy);
    assert_true(lines > 20);
    assert_int_equal(body[strlen(body) - 1], '\n');
    return body;
}

static void test_scrape_format(void **state)
{
    sc_it_daemon *d = *state;
    sc_it_conn *c = sc_it_must_connect(d);
    sc_it_must_ok(c, "graph.list", NULL);
    cJSON *m = metrics_of(c);
    char *resp = scrape(d, "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n");
    const char *body = check_exposition(resp);
    /* server.info ran once more since, counted before its reply. */
    assert_int_equal((int64_t)sample_value(body, "streamcap_requests_total{method=\"graph.list\"}"),
                     member(m, "requests", "graph.list"));
    assert_int_equal(
        (int64_t)sample_value(body, "streamcap_requests_total{method=\"server.info\"}"),
        member(m, "requests", "server.info"));
    const cJSON *l = cJSON_GetObjectItem(m, "commit_latency");
    assert_int_equal((int64_t)sample_value(body, "streamcap_commit_latency_seconds_count"),
                     sc_it_int(l, "count"));
    assert_int_equal(
        (int64_t)sample_value(body, "streamcap_commit_latency_seconds_bucket{le=\"+Inf\"}"),
        sc_it_int(l, "count"));
    assert_int_equal((int64_t)sample_value(body, "streamcap_retention_deleted_graphs_total"), 0);
    assert_non_null(strstr(body, "# TYPE streamcap_commit_latency_seconds histogram\n"));
    assert_non_null(strstr(body, "# TYPE streamcap_requests_total counter\n"));
    free(resp);
    /* A bare "\n\n" ends a head too; the request itself is not looked at. */
    resp = scrape(d, "GET / HTTP/1.0\n\n");
    check_exposition(resp);
    free(resp);
    cJSON_Delete(m);
    sc_it_conn_close(c);
}

static void test_curl(void **state)
{
    sc_it_daemon *d = *state;
    if (system("command -v curl >/dev/null 2>&1") != 0) {
        printf("skipped: curl is not installed\n");
        skip();
    }
    char *path = metrics_path(d);
    char *cmd = sc_it_fmt("curl -sf --unix-socket '%s' http://x/metrics", path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[512];
    bool seen = false;
    while (fgets(line, sizeof line, p))
        seen |= !strncmp(line, "streamcap_requests_total{method=\"graph.list\"} ", 46);
    assert_int_equal(pclose(p), 0);
    assert_true(seen);
    free(cmd);
    free(path);
}

/* A second daemon on a live metrics socket refuses to start, before it
 * makes a database. */
static void test_socket_in_use(void **state)
{
    sc_it_daemon *d = *state, *d2;
    assert_int_equal(sc_it_daemon_create(&d2), 0);
    char *path = metrics_path(d);
    const char *const extra[] = {"--metrics-socket", path, NULL};
    assert_int_equal(sc_it_daemon_start(d2, extra), -ECHILD);
    char *err = sc_it_read_file(sc_it_daemon_stderr_path(d2));
    if (!err || !strstr(err, "another process listens on it"))
        fail_msg("the refusal says: %s", err ? err : "(nothing)");
    assert_int_not_equal(access(sc_it_daemon_db(d2), F_OK), 0);
    free(err);
    free(path);
    sc_it_daemon_destroy(d2);
    /* The first one still answers scrapes. */
    free(scrape(d, "GET /metrics HTTP/1.1\r\n\r\n"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counters_move),
        cmocka_unit_test(test_scrape_format),
        cmocka_unit_test(test_curl),
        cmocka_unit_test(test_socket_in_use),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
