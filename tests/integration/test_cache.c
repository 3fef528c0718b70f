/*
 * The graph cache seen from outside (server.info does not expose it, so
 * only answers are checked): reachability right after a restart with the
 * cache cold, right under constant eviction by a cache far smaller than the
 * graphs (several connections asking for the same cold graph at once), and
 * right when a graph is deleted while it loads.  A cold graph.reachable
 * loads only a skeleton (streams and edges): graph.get and graph.export of
 * the same graph must still return every node's data.
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
#include "itgraph.h"

#define NGRAPHS 5
#define NCONNS  3

static void assert_same_edges(const sc_itg_graph *a, const sc_itg_graph *b)
{
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->edge_count, b->edge_count);
    for (size_t i = 0; i < a->edge_count; i++)
        if (a->edge_src[i] != b->edge_src[i] || a->edge_dst[i] != b->edge_dst[i])
            fail_msg("graph %lld edge %zu: [%u,%u] now, [%u,%u] before", (long long)a->id, i,
                     b->edge_src[i], b->edge_dst[i], a->edge_src[i], a->edge_dst[i]);
}

static void check_random(sc_it_conn *c, const sc_itg_graph *g, sc_itg_rng *r, size_t count,
                         const char *what)
{
    uint32_t *pairs = sc_itg_random_pairs(g, r, count);
    sc_itg_check_pairs(c, g, pairs, count, what);
    free(pairs);
}

static void test_restart_cold(void **state)
{
    (void)state;
    sc_it_daemon *d = sc_it_must_start(NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    sc_itg_rng r;
    sc_itg_rng_seed(&r, 11);
    sc_itg_graph *gs[3];
    for (int i = 0; i < 3; i++) {
        gs[i] = sc_itg_fetch(c, sc_itg_capture_random(c, "cold", 800, 1 + 3 * (uint32_t)i, 60 + i));
        check_random(c, gs[i], &r, 2000, "warm");
    }
    uint32_t *same = sc_itg_random_pairs(gs[1], &r, 3000);
    sc_itg_check_pairs(c, gs[1], same, 3000, "before restart");
    sc_it_conn_close(c);
    sc_it_must_stop(d);

    sc_it_must_restart(d, NULL);
    c = sc_it_must_connect(d);
    /* The first query of each graph after the restart loads it. */
    sc_itg_check_pairs(c, gs[1], same, 3000, "same pairs after restart");
    for (int i = 0; i < 3; i++) {
        char params[96];
        snprintf(params, sizeof(params), "\"from\":%u,\"to\":%u", gs[i]->n - 1, 0u);
        cJSON *reply =
            sc_it_call(c, "graph.reachable", "{\"graph\":%lld,%s}", (long long)gs[i]->id, params);
        assert_true(
            cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(sc_it_ok(c, reply), "reachable")));
        cJSON_Delete(reply);
        check_random(c, gs[i], &r, 2000, "after restart");
        sc_itg_graph *again = sc_itg_fetch(c, gs[i]->id);
        assert_same_edges(gs[i], again);
        sc_itg_graph_free(again);
    }
    free(same);
    for (int i = 0; i < 3; i++)
        sc_itg_graph_free(gs[i]);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

/* Compact text of the result of one call that must succeed. */
static char *result_text(sc_it_conn *c, const char *method, int64_t graph, const char *extra)
{
    cJSON *reply = sc_it_call(c, method, "{\"graph\":%lld%s}", (long long)graph, extra);
    char *text = sc_it_json_text(sc_it_ok(c, reply));
    cJSON_Delete(reply);
    return text;
}

static char *pairs_params(int64_t graph, const uint32_t *pairs, size_t count)
{
    size_t cap = count * 24 + 64, len = 0;
    char *params = malloc(cap);
    assert_non_null(params);
    len += (size_t)snprintf(params, cap, "{\"graph\":%lld,\"pairs\":[", (long long)graph);
    for (size_t i = 0; i < count; i++)
        len += (size_t)snprintf(params + len, cap - len, i ? ",[%u,%u]" : "[%u,%u]", pairs[2 * i],
                                pairs[2 * i + 1]);
    snprintf(params + len, cap - len, "]}");
    return params;
}

static void check_reply_pairs(const sc_itg_graph *g, const uint32_t *pairs, size_t count,
                              const cJSON *result, const char *what)
{
    const cJSON *answers = cJSON_GetObjectItemCaseSensitive(result, "reachable");
    assert_int_equal(cJSON_GetArraySize(answers), count);
    size_t i = 0;
    for (const cJSON *a = answers->child; a; a = a->next, i++)
        if (cJSON_IsTrue(a) != sc_itg_reaches(g, pairs[2 * i], pairs[2 * i + 1]))
            fail_msg("%s, graph %lld: reachable(%u, %u) wrong", what, (long long)g->id,
                     pairs[2 * i], pairs[2 * i + 1]);
}

static void test_skeleton_then_full(void **state)
{
    (void)state;
    enum { COUNT = 2000 };
    static const char dot[] = ",\"format\":\"dot\"";
    sc_it_daemon *d = sc_it_must_start(NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    sc_itg_rng r;
    sc_itg_rng_seed(&r, 23);
    sc_itg_graph *gs[2];
    char *get_before[2], *dot_before[2];
    for (int i = 0; i < 2; i++) {
        int64_t id = sc_itg_capture_random(c, "skeleton", 1500, 3 + 4 * (uint32_t)i, 300 + i);
        gs[i] = sc_itg_fetch(c, id);
        get_before[i] = result_text(c, "graph.get", id, "");
        dot_before[i] = result_text(c, "graph.export", id, dot);
    }
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_must_restart(d, NULL);
    c = sc_it_must_connect(d);

    /* One request at a time: the skeleton first, then the full graph. */
    const sc_itg_graph *g = gs[0];
    check_random(c, g, &r, COUNT, "cold, from a skeleton");
    cJSON *reply = sc_it_call(c, "graph.reachable", "{\"graph\":%lld,\"from\":%u,\"to\":0}",
                              (long long)g->id, g->n);
    sc_it_err_data(sc_it_err(c, reply, 1001, "not_found"), "what", "node");
    cJSON_Delete(reply);
    char *text = result_text(c, "graph.get", g->id, "");
    assert_string_equal(text, get_before[0]);
    free(text);
    text = result_text(c, "graph.export", g->id, dot);
    assert_string_equal(text, dot_before[0]);
    free(text);
    check_random(c, g, &r, COUNT, "after graph.get");

    /* All in flight at once on a cold graph: both kinds load together. */
    g = gs[1];
    uint32_t *p1 = sc_itg_random_pairs(g, &r, COUNT), *p2 = sc_itg_random_pairs(g, &r, COUNT);
    char *params1 = pairs_params(g->id, p1, COUNT), *params2 = pairs_params(g->id, p2, COUNT);
    sc_itg_batch *b = sc_itg_batch_create();
    sc_itg_batch_add(b, "graph.reachable", "%s", params1);
    sc_itg_batch_add(b, "graph.get", "{\"graph\":%lld}", (long long)g->id);
    sc_itg_batch_add(b, "graph.reachable", "%s", params2);
    sc_itg_batch_add(b, "graph.export", "{\"graph\":%lld%s}", (long long)g->id, dot);
    cJSON **replies = sc_itg_batch_run(b, c);
    const cJSON *results[4];
    for (int i = 0; i < 4; i++)
        results[i] = cJSON_GetObjectItemCaseSensitive(replies[i], "result");
    check_reply_pairs(g, p1, COUNT, results[0], "pipelined, first");
    text = sc_it_json_text(results[1]);
    assert_string_equal(text, get_before[1]);
    free(text);
    check_reply_pairs(g, p2, COUNT, results[2], "pipelined, second");
    text = sc_it_json_text(results[3]);
    assert_string_equal(text, dot_before[1]);
    free(text);
    check_random(c, g, &r, COUNT, "after the pipeline");
    sc_itg_replies_free(replies, sc_itg_batch_count(b));
    sc_itg_batch_destroy(b);
    free(params1);
    free(params2);
    free(p1);
    free(p2);

    for (int i = 0; i < 2; i++) {
        free(get_before[i]);
        free(dot_before[i]);
        sc_itg_graph_free(gs[i]);
    }
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

/* Send one request line on each connection before reading any reply. */
static void concurrent_pairs(sc_it_conn **conns, const sc_itg_graph *g, sc_itg_rng *r)
{
    enum { COUNT = 400 };
    uint32_t *pairs[NCONNS];
    for (int k = 0; k < NCONNS; k++) {
        pairs[k] = sc_itg_random_pairs(g, r, COUNT);
        size_t cap = COUNT * 24 + 128, len = 0;
        char *params = malloc(cap);
        assert_non_null(params);
        len += (size_t)snprintf(params, cap, "{\"graph\":%lld,\"pairs\":[", (long long)g->id);
        for (size_t i = 0; i < COUNT; i++)
            len += (size_t)snprintf(params + len, cap - len, i ? ",[%u,%u]" : "[%u,%u]",
                                    pairs[k][2 * i], pairs[k][2 * i + 1]);
        snprintf(params + len, cap - len, "]}");
        char *req = sc_it_format_request(sc_it_next_id(conns[k]), "graph.reachable", params);
        sc_it_must_send_line(conns[k], req);
        free(req);
        free(params);
    }
    for (int k = 0; k < NCONNS; k++) {
        cJSON *reply = sc_it_must_recv(conns[k]);
        const cJSON *answers =
            cJSON_GetObjectItemCaseSensitive(sc_it_ok(conns[k], reply), "reachable");
        assert_int_equal(cJSON_GetArraySize(answers), COUNT);
        for (int i = 0; i < COUNT; i++) {
            bool want = sc_itg_reaches(g, pairs[k][2 * i], pairs[k][2 * i + 1]);
            if (cJSON_IsTrue(cJSON_GetArrayItem(answers, i)) != want)
                fail_msg("connection %d, graph %lld: reachable(%u, %u) wrong under eviction", k,
                         (long long)g->id, pairs[k][2 * i], pairs[k][2 * i + 1]);
        }
        cJSON_Delete(reply);
        free(pairs[k]);
    }
}

static void test_eviction(void **state)
{
    (void)state;
    /* Each graph of 3000 nodes needs far more than the 64 KiB cache. */
    const char *extra[] = {"--graph-cache", "64K", NULL};
    sc_it_daemon *d = sc_it_must_start(extra);
    sc_it_conn *conns[NCONNS];
    for (int k = 0; k < NCONNS; k++)
        conns[k] = sc_it_must_connect(d);
    sc_it_conn *c = conns[0];
    sc_itg_rng r;
    sc_itg_rng_seed(&r, 64);
    sc_itg_graph *gs[NGRAPHS];
    for (int i = 0; i < NGRAPHS; i++)
        gs[i] = sc_itg_fetch(c, sc_itg_capture_random(c, "evict", 3000, 2 + (uint32_t)i, 90 + i));

    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < NGRAPHS; i++) {
            check_random(c, gs[i], &r, 1000, "round robin");
            concurrent_pairs(conns, gs[i], &r);
            if (round % 2 == 1) {
                sc_itg_graph *again = sc_itg_fetch(conns[1], gs[i]->id);
                assert_same_edges(gs[i], again);
                sc_itg_graph_free(again);
            }
        }
        /* Backwards too, so the least recently used graph changes. */
        for (int i = NGRAPHS; i-- > 0;)
            check_random(conns[2], gs[i], &r, 200, "reverse round robin");
    }

    for (int i = 0; i < NGRAPHS; i++)
        sc_itg_graph_free(gs[i]);
    for (int k = 0; k < NCONNS; k++)
        sc_it_conn_close(conns[k]);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

/* graph.reachable (cold) on one connection, graph.delete on another, both in flight. */
static void test_delete_while_loading(void **state)
{
    (void)state;
    const char *extra[] = {"--graph-cache", "64K", NULL};
    sc_it_daemon *d = sc_it_must_start(extra);
    sc_it_conn *a = sc_it_must_connect(d);
    sc_it_conn *b = sc_it_must_connect(d);
    sc_itg_graph *gs[NGRAPHS];
    for (int i = 0; i < NGRAPHS; i++)
        gs[i] = sc_itg_fetch(a, sc_itg_capture_random(a, "race", 2000, 3, 200 + i));
    sc_it_conn_close(a);
    sc_it_conn_close(b);
    sc_it_must_stop(d);
    sc_it_must_restart(d, extra);
    a = sc_it_must_connect(d);
    b = sc_it_must_connect(d);

    for (int i = 0; i < NGRAPHS; i++) {
        const sc_itg_graph *g = gs[i];
        uint32_t last = g->n - 1;
        char params[128];
        snprintf(params, sizeof(params), "{\"graph\":%lld,\"pairs\":[[0,%u],[%u,0]]}",
                 (long long)g->id, last, last);
        char *reach = sc_it_format_request(sc_it_next_id(a), "graph.reachable", params);
        snprintf(params, sizeof(params), "{\"graph\":%lld}", (long long)g->id);
        char *del = sc_it_format_request(sc_it_next_id(b), "graph.delete", params);
        sc_it_must_send_line(a, reach);
        sc_it_must_send_line(b, del);
        cJSON *reply = sc_it_must_recv(a);
        const cJSON *result = cJSON_GetObjectItemCaseSensitive(reply, "result");
        if (result) {
            /* The load won the race: the answer must still be right. */
            const cJSON *ans = cJSON_GetObjectItemCaseSensitive(result, "reachable");
            assert_int_equal(cJSON_GetArraySize(ans), 2);
            assert_true(cJSON_IsTrue(cJSON_GetArrayItem(ans, 0)) == sc_itg_reaches(g, 0, last));
            assert_true(cJSON_IsFalse(cJSON_GetArrayItem(ans, 1)));
        } else {
            sc_it_err_data(sc_it_err(a, reply, 1001, "not_found"), "what", "graph");
        }
        cJSON_Delete(reply);
        reply = sc_it_must_recv(b);
        sc_it_ok(b, reply);
        cJSON_Delete(reply);
        free(reach);
        free(del);
        /* Once the delete is acknowledged, the graph is gone for everyone. */
        reply = sc_it_call(a, "graph.reachable", "{\"graph\":%lld,\"from\":0,\"to\":0}",
                           (long long)g->id);
        sc_it_err_data(sc_it_err(a, reply, 1001, "not_found"), "what", "graph");
        cJSON_Delete(reply);
    }
    for (int i = 0; i < NGRAPHS; i++)
        sc_itg_graph_free(gs[i]);
    sc_it_conn_close(a);
    sc_it_conn_close(b);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_restart_cold),
        cmocka_unit_test(test_skeleton_then_full),
        cmocka_unit_test(test_eviction),
        cmocka_unit_test(test_delete_while_loading),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
