/*
 * test_bodies.c - graph.submit with child graph and conditional nodes
 * through a real streamcapd: each body is a graph of its own, graph.get
 * links node and body both ways, graph.list shows top-level graphs unless
 * asked for nested ones, a body cannot be deleted alone and goes with the
 * graph that holds it.
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

static int count_graphs(sc_it_conn *c, const char *params)
{
    cJSON *r = sc_it_must_result(c, "graph.list", "%s", params);
    int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "graphs"));
    cJSON_Delete(r);
    return n;
}

/* A memcpy, then a child graph (kernel -> memset) then a while node with
 * one body and a switch with two, each body checked node by node. */
static void test_submit_nested(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    cJSON *r = sc_it_must_result(
        c, "graph.submit",
        "{\"label\":\"nest\",\"nodes\":["
        "{\"kind\":\"memcpy\",\"name\":\"up\",\"dir\":\"host_to_device\",\"size_bytes\":64},"
        "{\"kind\":\"graph\",\"child\":{\"nodes\":[{\"kind\":\"kernel\",\"function_name\":\"k\","
        "\"grid\":[2,1,1],\"block\":[32,1,1]},{\"kind\":\"memset\",\"name\":\"z\","
        "\"size_bytes\":8,\"value\":0}],\"edges\":[[0,1]]}},"
        "{\"kind\":\"conditional\",\"type\":\"if\",\"size\":2,\"default_value\":3,\"flags\":1,"
        "\"bodies\":[{\"nodes\":[{\"kind\":\"empty\"}],\"edges\":[]},"
        "{\"nodes\":[{\"kind\":\"host_callback\",\"label\":\"h\"}],\"edges\":[]}]}],"
        "\"edges\":[[0,1],[1,2]]}");
    long long top = (long long)sc_it_int(r, "graph");
    assert_int_equal(sc_it_int(r, "node_count"), 3);
    const cJSON *bodies = cJSON_GetObjectItemCaseSensitive(r, "bodies");
    assert_int_equal(cJSON_GetArraySize(bodies), 3);
    long long child = (long long)cJSON_GetArrayItem(bodies, 0)->valuedouble;
    long long b0 = (long long)cJSON_GetArrayItem(bodies, 1)->valuedouble;
    long long b1 = (long long)cJSON_GetArrayItem(bodies, 2)->valuedouble;
    cJSON_Delete(r);

    cJSON *g = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", top);
    assert_null(cJSON_GetObjectItemCaseSensitive(g, "parent"));
    assert_string_equal(sc_it_str(node_at(g, 1), "kind"), "graph");
    assert_int_equal(sc_it_int(node_at(g, 1), "child"), child);
    const cJSON *nb = cJSON_GetObjectItemCaseSensitive(node_at(g, 2), "bodies");
    assert_int_equal(cJSON_GetArraySize(nb), 2);
    assert_int_equal((long long)cJSON_GetArrayItem(nb, 0)->valuedouble, b0);
    assert_int_equal((long long)cJSON_GetArrayItem(nb, 1)->valuedouble, b1);
    assert_string_equal(sc_it_str(node_at(g, 2), "type"), "if");
    assert_int_equal(sc_it_int(node_at(g, 2), "size"), 2);
    assert_int_equal(sc_it_int(node_at(g, 2), "default_value"), 3);
    assert_int_equal(sc_it_int(node_at(g, 2), "flags"), 1);
    cJSON_Delete(g);

    g = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", child);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(g, "parent");
    assert_non_null(p);
    assert_int_equal(sc_it_int(p, "graph"), top);
    assert_int_equal(sc_it_int(p, "node"), 1);
    assert_int_equal(sc_it_int(p, "index"), 0);
    assert_string_equal(sc_it_str(node_at(g, 0), "function_name"), "k");
    assert_string_equal(sc_it_str(node_at(g, 1), "kind"), "memset");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(g, "edges")), 1);
    cJSON_Delete(g);
    g = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", b1);
    p = cJSON_GetObjectItemCaseSensitive(g, "parent");
    assert_int_equal(sc_it_int(p, "node"), 2);
    assert_int_equal(sc_it_int(p, "index"), 1);
    assert_string_equal(sc_it_str(node_at(g, 0), "kind"), "host_callback");
    cJSON_Delete(g);

    /* A child node is one node of its parent for reachability. */
    r = sc_it_must_result(c, "graph.reachable", "{\"graph\":%lld,\"from\":0,\"to\":2}", top);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "reachable")));
    cJSON_Delete(r);

    /* DOT names the holding nodes' kinds. */
    r = sc_it_must_result(c, "graph.export", "{\"graph\":%lld,\"format\":\"dot\"}", top);
    const char *dot = sc_it_str(r, "text");
    if (!strstr(dot, "1\\nCHILD_GRAPH\\n") ||
        !strstr(dot, "2\\nCONDITIONAL\\n\\nif, size 2, default 3, assign_default"))
        fail_msg("export names no child graph or conditional node: %s", dot);
    cJSON_Delete(r);

    assert_int_equal(count_graphs(c, "{}"), 1);
    assert_int_equal(count_graphs(c, "{\"nested\":true}"), 4);

    sc_it_must_error(c, -32602, "invalid_params", "graph.delete", "{\"graph\":%lld}", child);
    sc_it_must_ok(c, "graph.delete", "{\"graph\":%lld}", top);
    assert_int_equal(count_graphs(c, "{\"nested\":true}"), 0);
    sc_it_must_error(c, 1001, NULL, "graph.get", "{\"graph\":%lld}", b0);
    sc_it_conn_close(c);
}

/* A graph node without a child, a conditional without bodies, and bodies
 * nested too deep: -32602 naming the node, nothing stored. */
static void test_submit_nested_refused(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    sc_it_must_error(c, -32602, "invalid_params", "graph.submit",
                     "{\"nodes\":[{\"kind\":\"graph\"}],\"edges\":[]}");
    sc_it_must_error(c, -32602, "invalid_params", "graph.submit",
                     "{\"nodes\":[{\"kind\":\"conditional\",\"bodies\":[]}],\"edges\":[]}");
    char deep[4096] = "{\"nodes\":[";
    for (int i = 0; i < 20; i++)
        strcat(deep, "{\"kind\":\"graph\",\"child\":{\"nodes\":[");
    strcat(deep, "{\"kind\":\"empty\"}");
    for (int i = 0; i < 20; i++)
        strcat(deep, "],\"edges\":[]}}");
    strcat(deep, "],\"edges\":[]}");
    sc_it_must_error(c, -32602, "invalid_params", "graph.submit", "%s", deep);
    assert_int_equal(count_graphs(c, "{\"nested\":true}"), 0);
    sc_it_conn_close(c);
}

/* graph.submit of a conditional `fields` (its members after kind) with
 * `nbodies` empty bodies: -32602 whose message names `field`. */
static void refused_cond(sc_it_conn *c, const char *fields, int nbodies, const char *field)
{
    char bodies[512] = "";
    for (int i = 0; i < nbodies; i++)
        strcat(bodies, i ? ",{\"nodes\":[],\"edges\":[]}" : "{\"nodes\":[],\"edges\":[]}");
    cJSON *r = sc_it_call(c, "graph.submit",
                          "{\"nodes\":[{\"kind\":\"empty\"},{\"kind\":\"conditional\",%s"
                          "\"bodies\":[%s]}],\"edges\":[[0,1]]}",
                          fields, bodies);
    const cJSON *e = sc_it_err(c, r, -32602, "invalid_params");
    const char *msg = sc_it_str(e, "message");
    char want[64];
    snprintf(want, sizeof want, "'%s'", field);
    if (strncmp(msg, "nodes[1]: invalid params: ", 26) != 0 || !strstr(msg, want))
        fail_msg("%s: the message names no '%s': %s", fields, field, msg);
    cJSON_Delete(r);
}

/* Each field of a conditional checked as CUDA checks it, and its bodies
 * counted against its size. */
static void test_submit_conditional_refused(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    refused_cond(c, "\"size\":1,", 1, "type");
    refused_cond(c, "\"type\":\"until\",\"size\":1,", 1, "type");
    refused_cond(c, "\"type\":\"if\",", 1, "size");
    refused_cond(c, "\"type\":\"if\",\"size\":3,", 3, "size");
    refused_cond(c, "\"type\":\"while\",\"size\":2,", 2, "size");
    refused_cond(c, "\"type\":\"switch\",\"size\":0,", 1, "size");
    refused_cond(c, "\"type\":\"switch\",\"size\":3,", 2, "bodies");
    refused_cond(c, "\"type\":\"if\",\"size\":1,\"flags\":2,", 1, "flags");
    refused_cond(c, "\"type\":\"if\",\"size\":1,\"default_value\":-1,", 1, "default_value");
    assert_int_equal(count_graphs(c, "{\"nested\":true}"), 0);
    /* A switch of many cases, its default beyond them, is a valid one. */
    cJSON *r = sc_it_must_result(
        c, "graph.submit",
        "{\"nodes\":[{\"kind\":\"conditional\",\"type\":\"switch\",\"size\":3,"
        "\"default_value\":7,\"bodies\":[{\"nodes\":[],\"edges\":[]},{\"nodes\":[],\"edges\":[]},"
        "{\"nodes\":[],\"edges\":[]}]}],\"edges\":[]}");
    long long top = (long long)sc_it_int(r, "graph");
    cJSON_Delete(r);
    cJSON *g = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", top);
    assert_string_equal(sc_it_str(node_at(g, 0), "type"), "switch");
    assert_int_equal(sc_it_int(node_at(g, 0), "default_value"), 7);
    assert_int_equal(sc_it_int(node_at(g, 0), "flags"), 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(node_at(g, 0), "bodies")),
                     3);
    cJSON_Delete(g);
    sc_it_must_ok(c, "graph.delete", "{\"graph\":%lld}", top);
    sc_it_conn_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_submit_nested),
        cmocka_unit_test(test_submit_nested_refused),
        cmocka_unit_test(test_submit_conditional_refused),
    };
    return cmocka_run_group_tests(tests, sc_it_group_setup, sc_it_group_teardown);
}
