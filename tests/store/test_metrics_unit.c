/*
 * test_metrics_unit.c - the counters of daemon/sc_metrics.h on their own:
 * requests by method, errors by code with the overflow slot, retention
 * deletions from several threads, and the rendering of each in the
 * Prometheus text of a daemon that has no store yet.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sc_daemon.h"
#include "sc_metrics.h"

static void test_requests_and_errors(void **state)
{
    (void)state;
    sc_metrics m;
    sc_metrics_init(&m);
    sc_metrics_request(&m, SC_M_GRAPH_LIST);
    sc_metrics_request(&m, SC_M_GRAPH_LIST);
    sc_metrics_request(&m, SC_M__COUNT); /* not a method: ignored */
    assert_int_equal(m.requests[SC_M_GRAPH_LIST], 2);
    assert_int_equal(m.requests[SC_M_GRAPH_GET], 0);
    sc_metrics_error(&m, -32602);
    sc_metrics_error(&m, 1001);
    sc_metrics_error(&m, -32602);
    assert_int_equal(m.errors[0].code, -32602);
    assert_int_equal(m.errors[0].count, 2);
    assert_int_equal(m.errors[1].code, 1001);
    assert_int_equal(m.errors[1].count, 1);
    /* Past the slots, codes count as "other". */
    for (int i = 0; i < SC_METRICS_ERROR_SLOTS + 3; i++)
        sc_metrics_error(&m, 2000 + i);
    assert_int_equal(m.errors_other, 5);
    assert_int_equal(m.errors[SC_METRICS_ERROR_SLOTS - 1].code, 2000 + SC_METRICS_ERROR_SLOTS - 3);
}

static void *add_many(void *arg)
{
    for (int i = 0; i < 10000; i++)
        sc_metrics_add_retention(arg, 1);
    return NULL;
}

static void test_retention_from_threads(void **state)
{
    (void)state;
    sc_metrics m;
    sc_metrics_init(&m);
    assert_int_equal(sc_metrics_retention(&m), 0);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, add_many, &m), 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    sc_metrics_add_retention(&m, 7);
    assert_int_equal(sc_metrics_retention(&m), 40007);
}

static void test_prometheus_text(void **state)
{
    (void)state;
    sc_daemon *d = calloc(1, sizeof *d);
    assert_non_null(d);
    sc_metrics_init(&d->metrics);
    snprintf(d->host_name, sizeof d->host_name, "a\"b");
    sc_metrics_request(&d->metrics, SC_M_SERVER_INFO);
    sc_metrics_error(&d->metrics, 1007);
    sc_metrics_add_retention(&d->metrics, 3);
    sc_buf b = SC_BUF_INIT;
    sc_metrics_prometheus(d, &b);
    sc_buf_putc(&b, '\0');
    assert_false(sc_buf_failed(&b));
    const char *want[] = {
        "# TYPE streamcap_requests_total counter\n",
        "streamcap_requests_total{method=\"server.info\"} 1\n",
        "streamcap_requests_total{method=\"graph.get\"} 0\n",
        "streamcap_errors_total{code=\"1007\"} 1\n",
        "# TYPE streamcap_commit_latency_seconds histogram\n",
        "streamcap_commit_latency_seconds_bucket{le=\"+Inf\"} 0\n",
        "streamcap_retention_deleted_graphs_total 3\n",
        "host=\"a\\\"b\"} 1\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(b.data, want[i]))
            fail_msg("no \"%s\" in:\n%s", want[i], b.data);
    sc_buf_free(&b);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_requests_and_errors),
        cmocka_unit_test(test_retention_from_threads),
        cmocka_unit_test(test_prometheus_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
