/*
 * test_capture_bodies.c - capture.end's `bodies` through a real streamcapd:
 * the child graph nodes of a cuda-mode capture (added by hand, or a graph
 * launch recorded with kind graph) get their graphs stored as bodies
 * linked to them, nested ones too, before the end replies; every bad body
 * is refused naming it and leaves the capture running; a child node is
 * one node of its graph for reachability.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"

static const cJSON *node_at(const cJSON *g, int i)
{
    const cJSON *n = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(g, "nodes"), i);
    if (!n)
        fail_msg("no node %d in %s", i, sc_it_json_text(g));
    return n;
}

/* memset; a child graph node added by hand after it; a graph launch
 * recorded on the stream after the child; a memcpy.  Nodes 1 and 2 hold
 * graphs. */
static void capture_two_children(sc_it_conn *c, long long s)
{
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":1}", s);
    sc_it_must_ok(c, "capture.record_memset",
                  "{\"session\":%lld,\"stream\":1,\"name\":\"z\",\"size_bytes\":8,\"value\":0}", s);
    sc_it_must_ok(c, "capture.add_node",
                  "{\"session\":%lld,\"stream\":1,\"kind\":\"graph\","
                  "\"name\":\"cudaGraphAddChildGraphNode\",\"deps\":[0]}",
                  s);
    sc_it_must_ok(c, "capture.update_dependencies",
                  "{\"session\":%lld,\"stream\":1,\"nodes\":[1],\"mode\":\"set\"}", s);
    sc_it_must_ok(
        c, "capture.record_host_callback",
        "{\"session\":%lld,\"stream\":1,\"label\":\"cudaGraphLaunch\",\"kind\":\"graph\"}", s);
    sc_it_must_ok(c, "capture.record_memcpy",
                  "{\"session\":%lld,\"stream\":1,\"name\":\"down\",\"dir\":\"device_to_host\","
                  "\"size_bytes\":8}",
                  s);
}

static const char nested_body[] =
    "{\"node\":1,\"index\":0,\"nodes\":[{\"kind\":\"memset\",\"name\":\"m\",\"size_bytes\":4,"
    "\"value\":9},{\"kind\":\"graph\",\"child\":{\"nodes\":[{\"kind\":\"host_callback\","
    "\"label\":\"h\"}],\"edges\":[]}}],\"edges\":[[0,1]]}";
static const char launch_body[] =
    "{\"node\":2,\"nodes\":[{\"kind\":\"host_callback\",\"label\":\"g\"}],\"edges\":[]}";

static void assert_parent(sc_it_conn *c, long long body, long long graph, int node, int index)
{
    cJSON *g = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", body);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(g, "parent");
    if (!p)
        fail_msg("body %lld has no parent: %s", body, sc_it_json_text(g));
    assert_int_equal(sc_it_int(p, "graph"), graph);
    assert_int_equal(sc_it_int(p, "node"), node);
    assert_int_equal(sc_it_int(p, "index"), index);
    cJSON_Delete(g);
}

/* Both children's graphs are stored, linked both ways, node by node. */
static void test_end_stores_bodies(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    long long s = (long long)sc_it_open_cuda(c);
    capture_two_children(c, s);
    cJSON *r =
        sc_it_must_result(c, "capture.end", "{\"session\":%lld,\"stream\":1,\"bodies\":[%s,%s]}", s,
                          nested_body, launch_body);
    long long top = (long long)sc_it_int(r, "graph");
    assert_int_equal(sc_it_int(r, "node_count"), 4);
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(r, "bodies");
    assert_int_equal(cJSON_GetArraySize(ids), 3); /* node 1's, its child's, node 2's */
    long long b1 = (long long)cJSON_GetArrayItem(ids, 0)->valuedouble;
    long long inner = (long long)cJSON_GetArrayItem(ids, 1)->valuedouble;
    long long b2 = (long long)cJSON_GetArrayItem(ids, 2)->valuedouble;
    cJSON_Delete(r);

    /* Committed before the reply: another connection, which waits for no
     * write of this one, reads the deepest body at once. */
    sc_it_conn *other = sc_it_must_connect(*state);
    cJSON *early = sc_it_must_result(other, "graph.get", "{\"graph\":%lld}", inner);
    assert_string_equal(sc_it_str(node_at(early, 0), "kind"), "host_callback");
    cJSON_Delete(early);
    sc_it_conn_close(other);

    cJSON *g = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", top);
    assert_string_equal(sc_it_str(node_at(g, 1), "kind"), "graph");
    assert_string_equal(sc_it_str(node_at(g, 1), "name"), "cudaGraphAddChildGraphNode");
    assert_int_equal(sc_it_int(node_at(g, 1), "child"), b1);
    assert_string_equal(sc_it_str(node_at(g, 2), "kind"), "graph");
    assert_string_equal(sc_it_str(node_at(g, 2), "name"), "cudaGraphLaunch");
    assert_int_equal(sc_it_int(node_at(g, 2), "child"), b2);
    assert_null(cJSON_GetObjectItemCaseSensitive(node_at(g, 0), "child"));
    cJSON_Delete(g);

    assert_parent(c, b1, top, 1, 0);
    assert_parent(c, b2, top, 2, 0);
    g = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", b1);
    assert_string_equal(sc_it_str(node_at(g, 0), "kind"), "memset");
    assert_int_equal(sc_it_int(node_at(g, 0), "value"), 9);
    assert_int_equal(sc_it_int(node_at(g, 1), "child"), inner);
    cJSON_Delete(g);
    assert_parent(c, inner, b1, 1, 0);
    g = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", b2);
    assert_string_equal(sc_it_str(node_at(g, 0), "name"), "g");
    cJSON_Delete(g);

    /* The child nodes are single nodes of the captured graph: 0 reaches 3
     * through them, nothing reaches back, and the bodies' nodes are no
     * nodes of it. */
    r = sc_it_must_result(c, "graph.reachable", "{\"graph\":%lld,\"from\":0,\"to\":3}", top);
    assert_true(sc_it_bool(r, "reachable"));
    cJSON_Delete(r);
    r = sc_it_must_result(c, "graph.reachable", "{\"graph\":%lld,\"from\":2,\"to\":1}", top);
    assert_false(sc_it_bool(r, "reachable"));
    cJSON_Delete(r);
    sc_it_must_error(c, 1001, "not_found", "graph.reachable",
                     "{\"graph\":%lld,\"from\":0,\"to\":4}", top);

    r = sc_it_must_result(c, "graph.list", "{\"nested\":true}");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "graphs")), 4);
    cJSON_Delete(r);
    sc_it_must_ok(c, "graph.delete", "{\"graph\":%lld}", top);
    sc_it_must_error(c, 1001, NULL, "graph.get", "{\"graph\":%lld}", inner);
    sc_it_must_ok(c, "session.close", "{\"session\":%lld}", s);
    sc_it_conn_close(c);
}

/* An end refused for its bodies, with the message it must give. */
static void refused(sc_it_conn *c, long long s, const char *bodies, const char *message)
{
    cJSON *reply =
        sc_it_call(c, "capture.end", "{\"session\":%lld,\"stream\":1,\"bodies\":%s}", s, bodies);
    const cJSON *e = sc_it_err(c, reply, -32602, "invalid_params");
    sc_it_err_message(e, message);
    sc_it_err_data(e, "field", "bodies");
    cJSON_Delete(reply);
}

/* Each bad body is -32602 naming it, and the capture runs on: the end
 * that follows stores it. */
static void test_end_bodies_refused(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    long long s = (long long)sc_it_open_cuda(c);
    capture_two_children(c, s);
    cJSON *reply = sc_it_call(c, "capture.end", "{\"session\":%lld,\"stream\":1,\"bodies\":{}}", s);
    sc_it_err(c, reply, -32602, "invalid_params");
    cJSON_Delete(reply);
    refused(c, s, "[7]", "invalid params: bodies[0]: not an object {node, index, nodes, edges}");
    refused(c, s, "[{\"nodes\":[],\"edges\":[]}]", "invalid params: bodies[0]: missing 'node'");
    refused(c, s, "[{\"node\":0,\"nodes\":[],\"edges\":[]}]",
            "invalid params: bodies[0]: node 0 is of kind memset, not graph or conditional");
    refused(c, s, "[{\"node\":9,\"nodes\":[],\"edges\":[]}]",
            "invalid params: bodies[0]: node 9 is not a node of the capture");
    refused(c, s, "[{\"node\":1,\"index\":1,\"nodes\":[],\"edges\":[]}]",
            "invalid params: bodies[0]: node 1 is a child graph node: its one body has index 0");
    refused(c, s,
            "[{\"node\":2,\"nodes\":[],\"edges\":[]},{\"node\":2,\"index\":0,\"nodes\":[],"
            "\"edges\":[]}]",
            "invalid params: bodies[1]: node 2 body 0 is given twice (first at bodies[0])");
    refused(c, s, "[{\"node\":2,\"nodes\":[{\"kind\":\"empty\"}],\"edges\":[[0,0]]}]",
            "invalid params: bodies[0]: edges[0]: source must precede destination");
    refused(c, s, "[{\"node\":2,\"nodes\":[{\"kind\":\"graph\"}],\"edges\":[]}]",
            "invalid params: bodies[0]: nodes[0]: invalid params: 'child' must be an object "
            "{nodes, edges}");

    cJSON *st = sc_it_must_result(c, "capture.status", "{\"session\":%lld,\"stream\":1}", s);
    assert_string_equal(sc_it_str(st, "status"), "active");
    cJSON_Delete(st);
    cJSON *r = sc_it_must_result(c, "capture.end",
                                 "{\"session\":%lld,\"stream\":1,\"bodies\":[%s]}", s, launch_body);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "bodies")), 1);
    long long top = (long long)sc_it_int(r, "graph");
    cJSON_Delete(r);
    /* Node 1 was given no body: it is stored without one. */
    cJSON *g = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", top);
    assert_null(cJSON_GetObjectItemCaseSensitive(node_at(g, 1), "child"));
    assert_non_null(cJSON_GetObjectItemCaseSensitive(node_at(g, 2), "child"));
    cJSON_Delete(g);
    sc_it_must_ok(c, "graph.delete", "{\"graph\":%lld}", top);
    sc_it_must_ok(c, "session.close", "{\"session\":%lld}", s);
    sc_it_conn_close(c);
}

/* An end that fails stores no body; bodies on a stream with no capture
 * leave the answer to CUDA's rule. */
static void test_failed_end_stores_no_body(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    long long s = (long long)sc_it_open_cuda(c);
    capture_two_children(c, s);
    sc_it_must_error(c, 1009, "cuda", "capture.host_call", "{\"session\":%lld,\"kind\":\"unsafe\"}",
                     s);
    sc_it_must_error(c, 1009, "cuda", "capture.end",
                     "{\"session\":%lld,\"stream\":1,\"bodies\":[%s]}", s, launch_body);
    sc_it_must_error(c, 1009, "cuda", "capture.end",
                     "{\"session\":%lld,\"stream\":1,\"bodies\":[%s]}", s, launch_body);
    cJSON *r = sc_it_must_result(c, "graph.list", "{\"nested\":true}");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "graphs")), 0);
    cJSON_Delete(r);
    sc_it_must_ok(c, "session.close", "{\"session\":%lld}", s);
    sc_it_conn_close(c);
}

/* kind on the record call: host_callback or graph, nothing else. */
static void test_record_kind(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    long long s = (long long)sc_it_open_cuda(c);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":1}", s);
    sc_it_must_error(c, -32602, "invalid_params", "capture.record_host_callback",
                     "{\"session\":%lld,\"stream\":1,\"label\":\"x\",\"kind\":\"kernel\"}", s);
    sc_it_must_ok(c, "capture.record_host_callback",
                  "{\"session\":%lld,\"stream\":1,\"label\":\"x\",\"kind\":\"host_callback\"}", s);
    cJSON *r = sc_it_must_result(c, "capture.end", "{\"session\":%lld,\"stream\":1}", s);
    long long top = (long long)sc_it_int(r, "graph");
    assert_null(cJSON_GetObjectItemCaseSensitive(r, "bodies"));
    cJSON_Delete(r);
    cJSON *g = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", top);
    assert_string_equal(sc_it_str(node_at(g, 0), "kind"), "host_callback");
    cJSON_Delete(g);
    sc_it_must_ok(c, "graph.delete", "{\"graph\":%lld}", top);
    sc_it_must_ok(c, "session.close", "{\"session\":%lld}", s);
    sc_it_conn_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_end_stores_bodies),
        cmocka_unit_test(test_end_bodies_refused),
        cmocka_unit_test(test_failed_end_stores_no_body),
        cmocka_unit_test(test_record_kind),
    };
    return cmocka_run_group_tests(tests, sc_it_group_setup, sc_it_group_teardown);
}
