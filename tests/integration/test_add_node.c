/*
 * test_add_node.c - capture.add_node with a whole `node` through a real
 * streamcapd: the stored node keeps the attributes the node gave (a
 * kernel's function and 3-D shape, a memcpy's direction and size, ...),
 * the bare form is unchanged, and every conflict is refused naming it.
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

static long long add(sc_it_conn *c, long long s, const char *rest)
{
    cJSON *r =
        sc_it_must_result(c, "capture.add_node", "{\"session\":%lld,\"stream\":1,%s}", s, rest);
    long long id = (long long)sc_it_int(r, "node");
    cJSON_Delete(r);
    return id;
}

static const cJSON *member(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        fail_msg("no member %s in %s", key, sc_it_json_text(o));
    return v;
}

/* Every member of `want` (a JSON object text) is in `node` with that value. */
static void assert_has(const cJSON *node, const char *want)
{
    cJSON *w = cJSON_Parse(want);
    assert_non_null(w);
    const cJSON *m;
    cJSON_ArrayForEach(m, w)
    {
        if (!cJSON_Compare(m, member(node, m->string), 1))
            fail_msg("%s: expected %s, got node %s", m->string, want, sc_it_json_text(node));
    }
    cJSON_Delete(w);
}

/* Each kind's attributes reach the stored graph, on the call's stream. */
static void test_node_attributes_stored(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    long long s = (long long)sc_it_open_cuda(c);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":1}", s);
    sc_it_must_ok(c, "capture.record_kernel",
                  "{\"session\":%lld,\"stream\":1,\"function_name\":\"head\",\"grid\":[8,1,1],"
                  "\"block\":[256,1,1]}",
                  s);
    assert_int_equal(add(c, s,
                         "\"deps\":[0],\"node\":{\"kind\":\"kernel\",\"function_name\":\"side("
                         "float*, int)\",\"grid\":[8,2,3],\"block\":[256,4,1],\"shared_mem\":512}"),
                     1);
    assert_int_equal(add(c, s,
                         "\"deps\":[1],\"node\":{\"kind\":\"memcpy\",\"name\":"
                         "\"cudaGraphAddMemcpyNode\",\"dir\":\"device_to_host\",\"size_bytes\":"
                         "4096}"),
                     2);
    assert_int_equal(add(c, s,
                         "\"deps\":[0],\"node\":{\"kind\":\"memset\",\"name\":\"ms\","
                         "\"size_bytes\":64,\"value\":7}"),
                     3);
    assert_int_equal(
        add(c, s, "\"deps\":[0],\"node\":{\"kind\":\"host_callback\",\"label\":\"h\"}"), 4);
    assert_int_equal(add(c, s, "\"node\":{\"kind\":\"event_record\",\"event\":5}"), 5);
    assert_int_equal(add(c, s, "\"node\":{\"kind\":\"empty\",\"name\":\"join\"}"), 6);
    /* null is the bare form */
    assert_int_equal(add(c, s, "\"kind\":\"empty\",\"name\":\"bare\",\"node\":null"), 7);
    assert_int_equal(add(c, s,
                         "\"deps\":[6],\"node\":{\"kind\":\"conditional\",\"type\":\"switch\","
                         "\"size\":3,\"default_value\":2,\"flags\":1}"),
                     8);
    cJSON *end = sc_it_must_result(c, "capture.end", "{\"session\":%lld,\"stream\":1}", s);
    long long g = (long long)sc_it_int(end, "graph");
    assert_int_equal(sc_it_int(end, "node_count"), 9);
    cJSON_Delete(end);

    cJSON *graph = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", g);
    const cJSON *nodes = member(graph, "nodes");
    assert_int_equal(cJSON_GetArraySize(nodes), 9);
    assert_has(cJSON_GetArrayItem(nodes, 1),
               "{\"kind\":\"kernel\",\"stream\":1,\"function_name\":\"side(float*, int)\","
               "\"grid\":[8,2,3],\"block\":[256,4,1],\"shared_mem\":512}");
    assert_has(cJSON_GetArrayItem(nodes, 2),
               "{\"kind\":\"memcpy\",\"stream\":1,\"name\":\"cudaGraphAddMemcpyNode\","
               "\"dir\":\"device_to_host\",\"size_bytes\":4096}");
    assert_has(cJSON_GetArrayItem(nodes, 3),
               "{\"kind\":\"memset\",\"name\":\"ms\",\"size_bytes\":64,\"value\":7}");
    assert_has(cJSON_GetArrayItem(nodes, 4), "{\"kind\":\"host_callback\",\"name\":\"h\"}");
    assert_has(cJSON_GetArrayItem(nodes, 5), "{\"kind\":\"event_record\",\"event\":5}");
    assert_has(cJSON_GetArrayItem(nodes, 6), "{\"kind\":\"empty\",\"name\":\"join\"}");
    assert_has(cJSON_GetArrayItem(nodes, 7), "{\"kind\":\"empty\",\"name\":\"bare\"}");
    assert_has(cJSON_GetArrayItem(nodes, 8),
               "{\"kind\":\"conditional\",\"stream\":1,\"type\":\"switch\",\"size\":3,"
               "\"default_value\":2,\"flags\":1}");
    char *edges = sc_it_json_text(member(graph, "edges"));
    assert_string_equal(edges, "[[0,1],[0,3],[0,4],[1,2],[6,8]]");
    free(edges);
    cJSON_Delete(graph);
    sc_it_conn_close(c);
}

static void must_refuse(sc_it_conn *c, long long s, const char *rest, const char *field,
                        const char *message)
{
    cJSON *r = sc_it_call(c, "capture.add_node", "{\"session\":%lld,\"stream\":1,%s}", s, rest);
    const cJSON *e = sc_it_err(c, r, -32602, "invalid_params");
    sc_it_err_data(e, "field", field);
    if (message)
        sc_it_err_message(e, message);
    cJSON_Delete(r);
}

/* kind or name beside node, a stream inside it, a node that is no object
 * or lacks a member its kind needs: -32602 naming it, and nothing added. */
static void test_conflicts_refused(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    long long s = (long long)sc_it_open_cuda(c);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":1}", s);
    must_refuse(c, s, "\"kind\":\"kernel\",\"node\":{\"kind\":\"kernel\",\"function_name\":\"k\"}",
                "kind",
                "invalid params: 'kind' conflicts with 'node': give the kind inside 'node'");
    must_refuse(c, s, "\"name\":\"x\",\"node\":{\"kind\":\"empty\"}", "name",
                "invalid params: 'name' conflicts with 'node': give the name inside 'node'");
    must_refuse(c, s, "\"node\":{\"kind\":\"empty\",\"stream\":1}", "node",
                "invalid params: 'node.stream' is not taken: the node is on the call's 'stream'");
    must_refuse(c, s, "\"node\":[1]", "node", "invalid params: 'node' must be an object");
    must_refuse(c, s, "\"node\":{\"kind\":\"kernel\",\"grid\":[1,1,1]}", "node", NULL);
    must_refuse(c, s,
                "\"node\":{\"kind\":\"memcpy\",\"name\":\"m\",\"dir\":\"sideways\","
                "\"size_bytes\":1}",
                "node", NULL);
    must_refuse(c, s, "\"node\":{\"name\":\"m\"}", "node", NULL);
    /* A conditional needs its type and a size CUDA takes; bare it has neither. */
    must_refuse(c, s, "\"kind\":\"conditional\"", "kind",
                "invalid params: 'kind' conditional needs 'node', with its type and size");
    must_refuse(c, s, "\"node\":{\"kind\":\"conditional\",\"type\":\"while\",\"size\":2}", "node",
                "node: invalid params: 'size' must be 1 for a while");
    must_refuse(c, s, "\"node\":{\"kind\":\"conditional\",\"size\":1}", "node", NULL);
    cJSON *r = sc_it_call(c, "capture.add_node",
                          "{\"session\":%lld,\"stream\":1,\"node\":{\"kind\":\"kernel\"}}", s);
    const cJSON *e = sc_it_err(c, r, -32602, "invalid_params");
    const char *msg = sc_it_str(e, "message");
    if (strncmp(msg, "node: ", 6) != 0 || !strstr(msg, "function_name"))
        fail_msg("message names neither node nor the member: %s", msg);
    cJSON_Delete(r);
    /* Nothing was added by the refused calls. */
    cJSON *end = sc_it_must_result(c, "capture.end", "{\"session\":%lld,\"stream\":1}", s);
    assert_int_equal(sc_it_int(end, "node_count"), 0);
    cJSON_Delete(end);
    /* Outside capture the model's answer stands (401 as 1009). */
    sc_it_must_error(c, 1009, NULL, "capture.add_node",
                     "{\"session\":%lld,\"stream\":1,\"node\":{\"kind\":\"empty\"}}", s);
    sc_it_conn_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_node_attributes_stored),
        cmocka_unit_test(test_conflicts_refused),
    };
    return cmocka_run_group_tests(tests, sc_it_group_setup, sc_it_group_teardown);
}
