/*
 * Integer parameters through a real streamcapd: a number whose literal is
 * a fraction is refused with -32602 naming the field even when it rounds
 * to an integral double (9007199254740991.5 to 2^53, 0.99999999999999999
 * to 1), in a record call, in graph.submit's nodes and edges and in
 * graph.reachable's pairs; a literal whose exact value is whole (2.0, 1e3)
 * is taken as that integer.  Nothing refused is stored.
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

/* -32602 with data.field `field` and a message that names `name`. */
static void expect_refused(sc_it_conn *c, cJSON *reply, const char *field, const char *name)
{
    const cJSON *error = sc_it_err(c, reply, -32602, "invalid_params");
    sc_it_err_data(error, "field", field);
    const char *msg = sc_it_str(error, "message");
    if (!strstr(msg, name))
        fail_msg("request %s\n  expected a message naming %s\n  got %s", sc_it_last_request(c),
                 name, msg);
    cJSON_Delete(reply);
}

static int64_t node_count(sc_it_conn *c, int64_t s)
{
    cJSON *reply = sc_it_call(c, "capture.node_count", "{\"session\":%lld}", (long long)s);
    int64_t n = sc_it_int(sc_it_ok(c, reply), "node_count");
    cJSON_Delete(reply);
    return n;
}

static int graph_count(sc_it_conn *c)
{
    cJSON *reply = sc_it_call(c, "graph.list", "{\"limit\":10000}");
    const cJSON *graphs = cJSON_GetObjectItemCaseSensitive(sc_it_ok(c, reply), "graphs");
    assert_true(cJSON_IsArray(graphs));
    int n = cJSON_GetArraySize(graphs);
    cJSON_Delete(reply);
    return n;
}

static void test_record_fractions_refused(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    int64_t s = sc_it_open_session(c, "fractions");
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":0}", (long long)s);

    cJSON *reply = sc_it_call(c, "capture.record_memcpy",
                              "{\"session\":%lld,\"stream\":0,\"name\":\"m\",\"dir\":"
                              "\"host_to_device\",\"size_bytes\":9007199254740991.5}",
                              (long long)s);
    expect_refused(c, reply, "size_bytes", "'size_bytes' must be an integer");
    reply = sc_it_call(c, "capture.record_kernel",
                       "{\"session\":%lld,\"stream\":0,\"function_name\":\"k\","
                       "\"num_blocks\":0.99999999999999999,\"threads_per_block\":32}",
                       (long long)s);
    expect_refused(c, reply, "num_blocks", "'num_blocks' must be an integer");
    reply =
        sc_it_call(c, "capture.record_event",
                   "{\"session\":%lld,\"stream\":0,\"event\":1.0000000000000001}", (long long)s);
    expect_refused(c, reply, "event", "'event' must be an integer");
    reply = sc_it_call(c, "capture.begin", "{\"session\":%lld.000000000000000001,\"stream\":1}",
                       (long long)s);
    expect_refused(c, reply, "session", "'session' must be an integer");
    assert_int_equal(node_count(c, s), 0);

    /* Whole values written with a fraction or an exponent are integers. */
    reply = sc_it_call(c, "capture.record_memcpy",
                       "{\"session\":%lld,\"stream\":0.0,\"name\":\"m\",\"dir\":"
                       "\"host_to_device\",\"size_bytes\":4.096e3}",
                       (long long)s);
    assert_int_equal(sc_it_int(sc_it_ok(c, reply), "node"), 0);
    cJSON_Delete(reply);
    assert_int_equal(node_count(c, s), 1);
    sc_it_must_ok(c, "session.close", "{\"session\":%lld}", (long long)s);
    sc_it_conn_close(c);
}

#define SUBMIT_NODES                                                                               \
    "[{\"kind\":\"memcpy\",\"name\":\"up\",\"dir\":\"host_to_device\",\"size_bytes\":4096},"       \
    "{\"kind\":\"empty\"}]"

static void test_submit_fractions_refused(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    int before = graph_count(c);

    cJSON *reply = sc_it_call(c, "graph.submit",
                              "{\"nodes\":" SUBMIT_NODES ",\"edges\":[[0,0.99999999999999999]]}");
    expect_refused(c, reply, "edges", "edges[0]: must be a [source, destination] pair of integers");
    reply = sc_it_call(c, "graph.submit",
                       "{\"nodes\":" SUBMIT_NODES ",\"edges\":[[0,1],[1.0000000000000001,1]]}");
    expect_refused(c, reply, "edges", "edges[1]: must be a [source, destination] pair");
    reply = sc_it_call(c, "graph.submit",
                       "{\"nodes\":[{\"kind\":\"memcpy\",\"name\":\"up\",\"dir\":"
                       "\"host_to_device\",\"size_bytes\":9007199254740991.5}],\"edges\":[]}");
    expect_refused(c, reply, "nodes", "nodes[0]: invalid params: 'size_bytes' must be an integer");
    reply = sc_it_call(c, "graph.submit",
                       "{\"nodes\":[{\"kind\":\"empty\"},{\"kind\":\"kernel\",\"function_name\":"
                       "\"k\",\"grid\":[4,0.99999999999999999,1]}],\"edges\":[]}");
    expect_refused(c, reply, "nodes", "nodes[1]: invalid params: 'grid' must be an array");
    reply = sc_it_call(c, "graph.submit",
                       "{\"nodes\":[{\"kind\":\"empty\",\"stream\":1.5e-1}],\"edges\":[]}");
    expect_refused(c, reply, "nodes", "nodes[0]: invalid params: 'stream' must be an integer");
    assert_int_equal(graph_count(c), before);

    /* The same graph with whole values spelled as fractions is stored. */
    reply = sc_it_call(c, "graph.submit", "{\"nodes\":" SUBMIT_NODES ",\"edges\":[[0.0,1e0]]}");
    const cJSON *res = sc_it_ok(c, reply);
    int64_t g = sc_it_int(res, "graph");
    assert_int_equal(sc_it_int(res, "edge_count"), 1);
    cJSON_Delete(reply);
    assert_int_equal(graph_count(c), before + 1);

    reply = sc_it_call(c, "graph.reachable",
                       "{\"graph\":%lld,\"pairs\":[[0,1],[0,0.99999999999999999]]}", (long long)g);
    expect_refused(c, reply, "pairs", "'pairs'");
    reply = sc_it_call(c, "graph.reachable",
                       "{\"graph\":%lld,\"from\":0,\"to\":1.0000000000000001}", (long long)g);
    expect_refused(c, reply, "to", "'to' must be an integer");
    sc_it_must_ok(c, "graph.reachable", "{\"graph\":%lld,\"from\":0e5,\"to\":10e-1}", (long long)g);
    sc_it_conn_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_fractions_refused),
        cmocka_unit_test(test_submit_fractions_refused),
    };
    return cmocka_run_group_tests(tests, sc_it_group_setup, sc_it_group_teardown);
}
