/*
 * test_fingerprints.c - graph fingerprints through a real streamcapd: the
 * same capture from two sessions on two connections, its streams
 * recorded in another order (so other node ids), gives the same
 * fingerprints; an attribute changes full and not structure; graph.list
 * {fingerprint} matches either; a body folds into its parent; a
 * malformed filter is -32602.
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

typedef struct fps {
    char structure[17];
    char full[17];
} fps;

static void record(sc_it_conn *c, int64_t s, unsigned stream, const char *name, unsigned blocks)
{
    sc_it_must_ok(c, "capture.record_kernel",
                  "{\"session\":%lld,\"stream\":%u,\"function_name\":\"%s\","
                  "\"num_blocks\":%u,\"threads_per_block\":128}",
                  (long long)s, stream, name, blocks);
}

/* Streams 0 and 1 joined by an event: a on 0, b on 1, c on 0 after b.
 * `b_first` records stream 1's kernel before stream 0's first one. */
static long long capture(sc_it_conn *c, bool b_first, unsigned c_blocks)
{
    cJSON *r = sc_it_must_result(c, "session.open", "{\"label\":\"fp\"}");
    int64_t s = sc_it_int(r, "session");
    cJSON_Delete(r);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":0}", (long long)s);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":1}", (long long)s);
    if (b_first)
        record(c, s, 1, "b", 1);
    record(c, s, 0, "a", 1);
    if (!b_first)
        record(c, s, 1, "b", 1);
    sc_it_must_ok(c, "capture.record_event", "{\"session\":%lld,\"stream\":1,\"event\":0}",
                  (long long)s);
    sc_it_must_ok(c, "capture.wait_event", "{\"session\":%lld,\"stream\":0,\"event\":0}",
                  (long long)s);
    record(c, s, 0, "c", c_blocks);
    r = sc_it_must_result(c, "capture.end", "{\"session\":%lld,\"stream\":0}", (long long)s);
    long long g = (long long)sc_it_int(r, "graph");
    cJSON_Delete(r);
    return g;
}

static fps fingerprints_of(const cJSON *obj)
{
    const cJSON *fp = cJSON_GetObjectItem(obj, "fingerprint");
    if (!cJSON_IsObject(fp))
        fail_msg("no fingerprint object in %s", sc_it_json_text(obj));
    fps out;
    snprintf(out.structure, sizeof out.structure, "%s", sc_it_str(fp, "structure"));
    snprintf(out.full, sizeof out.full, "%s", sc_it_str(fp, "full"));
    assert_int_equal(strlen(out.structure), 16);
    assert_int_equal(strlen(out.full), 16);
    assert_int_equal(strspn(out.full, "0123456789abcdef"), 16);
    return out;
}

static fps graph_fps(sc_it_conn *c, long long g)
{
    cJSON *r = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", g);
    fps out = fingerprints_of(r);
    cJSON_Delete(r);
    return out;
}

/* The ids graph.list {fingerprint} returns, as a bit set of graphs below 64. */
static uint64_t listed(sc_it_conn *c, const char *fp)
{
    cJSON *r = sc_it_must_result(c, "graph.list", "{\"fingerprint\":\"%s\",\"nested\":true}", fp);
    uint64_t set = 0;
    const cJSON *g;
    cJSON_ArrayForEach(g, cJSON_GetObjectItem(r, "graphs"))
    {
        int64_t id = sc_it_int(g, "graph");
        assert_true(id > 0 && id < 64);
        set |= 1ull << id;
        fingerprints_of(g); /* graph.list carries them too */
    }
    cJSON_Delete(r);
    return set;
}

static void test_same_capture_two_sessions_same_fingerprints(void **state)
{
    sc_it_conn *a = sc_it_must_connect(*state), *b = sc_it_must_connect(*state);
    long long g1 = capture(a, false, 4);
    long long g2 = capture(b, true, 4);
    long long g3 = capture(b, false, 8); /* c's num_blocks differs */

    /* Other numbering: node 0 is a in one and b in the other. */
    cJSON *r = sc_it_must_result(a, "graph.get", "{\"graph\":%lld}", g2);
    const cJSON *n0 = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "nodes"), 0);
    assert_string_equal(sc_it_str(n0, "name"), "b");
    cJSON_Delete(r);

    fps f1 = graph_fps(a, g1), f2 = graph_fps(b, g2), f3 = graph_fps(a, g3);
    assert_string_equal(f1.structure, f2.structure);
    assert_string_equal(f1.full, f2.full);
    assert_string_equal(f1.structure, f3.structure);
    assert_string_not_equal(f1.full, f3.full);

    uint64_t both = 1ull << g1 | 1ull << g2;
    assert_true(listed(a, f1.full) == both);
    assert_true((listed(a, f1.structure) & (both | 1ull << g3)) == (both | 1ull << g3));
    assert_true(listed(a, f3.full) == 1ull << g3);
    assert_true(listed(a, "0000000000000000") == 0);
    sc_it_conn_close(a);
    sc_it_conn_close(b);
}

/* A child graph node whose body differs in one attribute. */
static long long submit_with_body(sc_it_conn *c, unsigned body_blocks)
{
    cJSON *r = sc_it_must_result(
        c, "graph.submit",
        "{\"nodes\":[{\"kind\":\"graph\",\"child\":{\"nodes\":[{\"kind\":\"kernel\","
        "\"function_name\":\"inner\",\"grid\":[%u,1,1],\"block\":[32,1,1]}],\"edges\":[]}}],"
        "\"edges\":[]}",
        body_blocks);
    long long g = (long long)sc_it_int(r, "graph");
    cJSON_Delete(r);
    return g;
}

static void test_bodies_fold_into_parent(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    long long p1 = submit_with_body(c, 1), p2 = submit_with_body(c, 1), p3 = submit_with_body(c, 2);
    fps f1 = graph_fps(c, p1), f2 = graph_fps(c, p2), f3 = graph_fps(c, p3);
    assert_string_equal(f1.full, f2.full);
    assert_string_equal(f1.structure, f3.structure);
    assert_string_not_equal(f1.full, f3.full);
    /* The body's own row has its own fingerprints. */
    assert_int_equal(listed(c, f1.full), 1ull << p1 | 1ull << p2);
    sc_it_conn_close(c);
}

static void test_bad_fingerprint_filter(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    const char *bad[] = {"\"abc\"", "\"0123456789abcdeg\"", "12", "\"0123456789abcdef0\""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *reply = NULL;
        assert_int_equal(sc_it_try_call(c, &reply, "graph.list", "{\"fingerprint\":%s}", bad[i]),
                         0);
        const cJSON *err = cJSON_GetObjectItem(reply, "error");
        assert_non_null(err);
        assert_int_equal(sc_it_int(err, "code"), -32602);
        char *text = sc_it_json_text(err);
        if (!strstr(text, "fingerprint"))
            fail_msg("the error names no field: %s", text);
        free(text);
        cJSON_Delete(reply);
    }
    sc_it_conn_close(c);
}

/* A chain of kernels on stream 0, with `extra` recorded after the second. */
static long long chain(sc_it_conn *c, const char *extra)
{
    cJSON *r = sc_it_must_result(c, "session.open", "{\"label\":\"chain\"}");
    int64_t s = sc_it_int(r, "session");
    cJSON_Delete(r);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":0}", (long long)s);
    record(c, s, 0, "k0", 1);
    record(c, s, 0, "k1", 1);
    if (extra)
        record(c, s, 0, extra, 1);
    record(c, s, 0, "k2", 1);
    record(c, s, 0, "k3", 1);
    r = sc_it_must_result(c, "capture.end", "{\"session\":%lld,\"stream\":0}", (long long)s);
    long long g = (long long)sc_it_int(r, "graph");
    cJSON_Delete(r);
    return g;
}

static void expect_json(const cJSON *got, const char *want_text)
{
    cJSON *want = cJSON_Parse(want_text);
    assert_non_null(want);
    if (!cJSON_Compare(got, want, 1))
        fail_msg("got %s, want %s", sc_it_json_text(got), want_text);
    cJSON_Delete(want);
}

/* One kernel added in the middle of a chain: one added node, the edge it
 * splits removed, its two edges added, nothing changed. */
static void test_diff_one_kernel_added(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    long long a = chain(c, NULL), b = chain(c, "new"), same = chain(c, NULL);
    cJSON *r = sc_it_must_result(c, "graph.diff", "{\"a\":%lld,\"b\":%lld}", a, b);
    expect_json(r, "{\"identical\":false,\"nodes_added\":[2],\"nodes_removed\":[],"
                   "\"nodes_changed\":[],\"edges_added\":[[1,2],[2,3]],"
                   "\"edges_removed\":[[1,2]]}");
    cJSON_Delete(r);
    r = sc_it_must_result(c, "graph.diff", "{\"a\":%lld,\"b\":%lld}", b, a);
    expect_json(r, "{\"identical\":false,\"nodes_added\":[],\"nodes_removed\":[2],"
                   "\"nodes_changed\":[],\"edges_added\":[[1,2]],"
                   "\"edges_removed\":[[1,2],[2,3]]}");
    cJSON_Delete(r);
    r = sc_it_must_result(c, "graph.diff", "{\"a\":%lld,\"b\":%lld}", a, same);
    expect_json(r, "{\"identical\":true,\"nodes_added\":[],\"nodes_removed\":[],"
                   "\"nodes_changed\":[],\"edges_added\":[],\"edges_removed\":[]}");
    cJSON_Delete(r);
    sc_it_conn_close(c);
}

static void test_diff_changed_and_errors(void **state)
{
    sc_it_conn *c = sc_it_must_connect(*state);
    long long a = capture(c, false, 4), b = capture(c, false, 8);
    cJSON *r = sc_it_must_result(c, "graph.diff", "{\"a\":%lld,\"b\":%lld}", a, b);
    expect_json(r, "{\"identical\":false,\"nodes_added\":[],\"nodes_removed\":[],"
                   "\"nodes_changed\":[{\"a\":2,\"b\":2,\"fields\":[\"num_blocks\"]}],"
                   "\"edges_added\":[],\"edges_removed\":[]}");
    cJSON_Delete(r);
    const char *bad[] = {"{\"a\":1}", "{\"b\":1}", "{\"a\":\"x\",\"b\":1}", "{\"a\":1,\"b\":-2}"};
    const char *field[] = {"b", "a", "a", "b"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *reply = NULL;
        assert_int_equal(sc_it_try_call(c, &reply, "graph.diff", "%s", bad[i]), 0);
        const cJSON *err = cJSON_GetObjectItem(reply, "error");
        assert_non_null(err);
        assert_int_equal(sc_it_int(err, "code"), -32602);
        char *text = sc_it_json_text(err);
        char want[8];
        snprintf(want, sizeof want, "'%s'", field[i]);
        if (!strstr(text, want))
            fail_msg("the error names no field %s: %s", want, text);
        free(text);
        cJSON_Delete(reply);
    }
    sc_it_must_error(c, 1001, NULL, "graph.diff", "{\"a\":%lld,\"b\":987654}", a);
    sc_it_must_error(c, 1001, NULL, "graph.diff", "{\"a\":987654,\"b\":%lld}", a);
    sc_it_conn_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_capture_two_sessions_same_fingerprints),
        cmocka_unit_test(test_bodies_fold_into_parent),
        cmocka_unit_test(test_bad_fingerprint_filter),
        cmocka_unit_test(test_diff_one_kernel_added),
        cmocka_unit_test(test_diff_changed_and_errors),
    };
    return cmocka_run_group_tests(tests, sc_it_group_setup, sc_it_group_teardown);
}
