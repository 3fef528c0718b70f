/*
 * The streamcap tool in cuda semantics mode, through the real binary
 * against a real streamcapd: replay --semantics cuda of the public cuda
 * corpus and its --check, the log line of an invalidated capture, graph
 * show's new kinds and 3-D launch shapes, demo --semantics cuda.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli_fixture.h"

#define SCENARIOS SC_TEST_DATA_DIR "/cuda_conformance_scenarios.jsonl"
#define EXPECTED  SC_TEST_DATA_DIR "/cuda_conformance_expected.jsonl"

static int group_setup(void **state)
{
    *state = sc_cli_fx_new(30000);
    return 0;
}

/* Replace the first `from` after `after` in text by `to` (same length). */
static void alter(char *text, const char *after, const char *from, const char *to)
{
    char *p = strstr(text, after);
    assert_non_null(p);
    p = strstr(p, from);
    assert_non_null(p);
    assert_int_equal(strlen(from), strlen(to));
    memcpy(p, to, strlen(to));
}

/* ------------------------------------------------------------- replay */

/* The public corpus replays exact: outcomes and CUDA error numbers, node
 * and capture ids, dependency sets, unjoined lists and stored graphs. */
static void test_replay_cuda_corpus_checks(void **state)
{
    sc_cli_fx *f = *state;
    sc_ct_result r =
        sc_cli_run(f, "replay", "--semantics", "cuda", "--check", EXPECTED, SCENARIOS, NULL);
    sc_cli_expect_status(&r, 0);
    char *want = sc_it_fmt("check: every result matches %s\n", EXPECTED);
    sc_cli_expect_in(r.out, want);
    free(want);
    sc_cli_expect_in(r.out, "replayed 62 cuda scenarios from ");
    assert_string_equal(r.err, "");
    sc_ct_result_free(&r);
}

/* Each kind of result altered once is found, named where it is. */
static void test_replay_cuda_check_finds_differences(void **state)
{
    sc_cli_fx *f = *state;
    char *text = sc_it_read_file(EXPECTED);
    assert_non_null(text);
    /* a node id, an unjoined node, a graph's edge */
    alter(text, "\"name\":\"fork_join_example\"", "{\"ok\":true,\"node\":1}",
          "{\"ok\":true,\"node\":7}");
    alter(text, "\"name\":\"fork_join_forgotten_join\"", "\"nodes\":[1]", "\"nodes\":[2]");
    alter(text, "\"name\":\"pub_flow_000\"", "\"edges\":[[0,1],[0,3]", "\"edges\":[[0,1],[0,2]");
    char *altered = sc_cli_write_file(f, "altered.jsonl", text);
    free(text);
    sc_ct_result r =
        sc_cli_run(f, "replay", "--semantics=cuda", "--check", altered, SCENARIOS, NULL);
    sc_cli_expect_status(&r, 1);
    char *want = sc_it_fmt("streamcap: %s:1: fork_join_example: op 4 (kernel): expected "
                           "{\"ok\":true,\"node\":7}, got {\"ok\":true,\"node\":1}\n",
                           SCENARIOS);
    sc_cli_expect_in(r.err, want);
    free(want);
    sc_cli_expect_in(
        r.err, ":2: fork_join_forgotten_join: op 7 (end): expected "
               "{\"ok\":false,\"error\":904,\"unjoined\":[{\"stream\":2,\"nodes\":[2]}]}, "
               "got {\"ok\":false,\"error\":904,\"unjoined\":[{\"stream\":2,\"nodes\":[1]}]}");
    sc_cli_expect_in(r.err, ":3: pub_flow_000: op 9 (end): expected ");
    sc_cli_expect_in(r.out, "check: 3 differences from ");
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "--json", "replay", "--semantics", "cuda", SCENARIOS, "--check", altered,
                   NULL);
    sc_cli_expect_status(&r, 1);
    cJSON *j = cJSON_Parse(r.out);
    assert_non_null(j);
    const cJSON *sum = cJSON_GetObjectItemCaseSensitive(j, "summary");
    assert_int_equal(sc_it_int(sum, "differences"), 3);
    assert_int_equal(sc_it_int(sum, "scenarios"), 62);
    const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "scenarios"), 1);
    assert_string_equal(sc_it_str(first, "name"), "fork_join_forgotten_join");
    const cJSON *end = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(first, "results"), 7);
    assert_int_equal(sc_it_int(end, "error"), 904);
    cJSON_Delete(j);
    sc_ct_result_free(&r);

    /* A CUDA error number that differs. */
    text = sc_it_read_file(EXPECTED);
    alter(text, "\"name\":\"fork_join_forgotten_join\"", "\"error\":904", "\"error\":901");
    char *other = sc_cli_write_file(f, "other.jsonl", text);
    free(text);
    r = sc_cli_run(f, "replay", "--semantics", "cuda", "--check", other, SCENARIOS, NULL);
    sc_cli_expect_status(&r, 1);
    sc_cli_expect_in(r.out, "check: 1 difference from ");
    sc_ct_result_free(&r);
    free(other);
    free(altered);
}

/* Replay's refusals in cuda mode: an unknown op stops at its line, a
 * default-mode file too, --semantics takes only the two models. */
static void test_replay_cuda_bad_input(void **state)
{
    sc_cli_fx *f = *state;
    char *path =
        sc_cli_write_file(f, "bad.jsonl",
                          "{\"name\":\"a\",\"ops\":[{\"op\":\"begin\",\"stream\":1}]}\n"
                          "{\"name\":\"b\",\"ops\":[{\"op\":\"record_event\",\"stream\":1}]}\n");
    sc_ct_result r = sc_cli_run(f, "replay", "--semantics", "cuda", path, NULL);
    sc_cli_expect_status(&r, 2);
    char *want = sc_it_fmt("streamcap: %s:2: op 0 (record_event): unknown op", path);
    sc_cli_expect_in(r.err, want);
    free(want);
    sc_ct_result_free(&r);
    r = sc_cli_run(f, "replay", "--semantics", "CUDA", path, NULL);
    sc_cli_expect_status(&r, 2);
    sc_cli_expect_in(r.err, "--semantics takes oxicuda (the default) or cuda");
    sc_ct_result_free(&r);
    /* A refused call is a result; --strict makes it fail the replay. */
    char *refused = sc_cli_write_file(f, "refused.jsonl",
                                      "{\"name\":\"r\",\"ops\":[{\"op\":\"end\",\"stream\":1}]}\n");
    r = sc_cli_run(f, "replay", "--semantics", "cuda", refused, NULL);
    sc_cli_expect_status(&r, 0);
    sc_cli_expect_in(r.out, "1 ops, 1 errors, 0 graphs stored");
    sc_ct_result_free(&r);
    r = sc_cli_run(f, "replay", "--semantics", "cuda", "--strict", refused, NULL);
    sc_cli_expect_status(&r, 2);
    sc_cli_expect_in(r.err, "streamcap: --strict: the daemon refused 1 request\n");
    sc_ct_result_free(&r);
    free(refused);
    free(path);
}

/* ---------------------------------------------------------------- log */

static const uint32_t ones[3] = {1, 1, 1};

/* A cuda session with a capture broken by cudaMalloc from another thread,
 * one by an unnamed host call, one ended unjoined and one completed. */
static uint64_t failed_captures(sc_client *c)
{
    uint64_t s;
    assert_int_equal(sc_client_open_session_ex(c, "broken", SC_CLIENT_SEMANTICS_CUDA, &s), 0);
    assert_int_equal(sc_client_cuda_begin(c, s, 7, 0, SC_CLIENT_MODE_GLOBAL, NULL), 0);
    assert_int_equal(sc_client_cuda_record_kernel(c, s, 7, 0, "k", ones, ones, 0, NULL), 0);
    assert_int_equal(sc_client_host_call(c, s, 2, SC_CLIENT_HOST_UNSAFE, 0, 0, "cudaMalloc"),
                     SC_CLIENT_ECUDA);
    assert_int_equal(sc_client_cuda_end(c, s, 7, 0, NULL), SC_CLIENT_ECUDA);
    assert_int_equal(sc_client_cuda_begin(c, s, 1, 0, SC_CLIENT_MODE_THREAD_LOCAL, NULL), 0);
    assert_int_equal(sc_client_host_call(c, s, 0, SC_CLIENT_HOST_UNSAFE, 0, 0, NULL),
                     SC_CLIENT_ECUDA);
    assert_int_equal(sc_client_cuda_end(c, s, 1, 0, NULL), SC_CLIENT_ECUDA);
    assert_int_equal(sc_client_cuda_begin(c, s, 1, 0, SC_CLIENT_MODE_GLOBAL, NULL), 0);
    assert_int_equal(sc_client_cuda_event(c, s, 1, 0, 0, false), 0);
    assert_int_equal(sc_client_cuda_event(c, s, 2, 0, 0, true), 0);
    assert_int_equal(sc_client_cuda_record_kernel(c, s, 2, 0, "k", ones, ones, 0, NULL), 0);
    assert_int_equal(sc_client_cuda_end(c, s, 1, 0, NULL), SC_CLIENT_ECUDA);
    assert_int_equal(sc_client_cuda_begin(c, s, 1, 0, SC_CLIENT_MODE_GLOBAL, NULL), 0);
    assert_int_equal(sc_client_cuda_end(c, s, 1, 0, NULL), 0);
    assert_int_equal(sc_client_close_session(c, s), 0);
    return s;
}

/* streamcap log says, for each failed capture, what broke it, and --json
 * carries log.list's cuda members unchanged. */
static void test_log_names_the_breaking_call(void **state)
{
    sc_cli_fx *f = *state;
    uint64_t s = failed_captures(f->c);
    sc_ct_result r = sc_cli_run(f, "log", "--limit", "1", NULL);
    sc_cli_expect_status(&r, 0);
    char *want = sc_it_fmt(
        "session %llu: capture 1 on stream 7 invalidated by cudaMalloc from thread 2 (global "
        "mode): operation not permitted when stream is capturing\n"
        "session %llu: capture 2 on stream 1 invalidated by capture.host_call on stream 0 from "
        "thread 0 (thread_local mode): operation not permitted when stream is capturing\n"
        "session %llu: capture 3 on stream 1 failed at its end: "
        "cudaErrorStreamCaptureUnjoined (904)\n",
        (unsigned long long)s, (unsigned long long)s, (unsigned long long)s);
    sc_cli_expect_in(r.out, want);
    free(want);
    /* The completed capture has no line. */
    want = sc_it_fmt("capture 4 ");
    assert_null(strstr(r.out, want));
    free(want);
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "--json", "log", "--limit", "1", NULL);
    sc_cli_expect_status(&r, 0);
    cJSON *got = cJSON_Parse(r.out);
    char *raw = NULL;
    assert_int_equal(sc_client_call_raw(f->c, "log.list", "{\"limit\":1}", &raw), 0);
    cJSON *daemon = cJSON_Parse(raw);
    free(raw);
    const cJSON *g = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(got, "entries"), 0);
    const cJSON *d = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(daemon, "entries"), 0);
    assert_string_equal(sc_it_str(g, "semantics"), "cuda");
    if (!cJSON_Compare(cJSON_GetObjectItemCaseSensitive(g, "captures"),
                       cJSON_GetObjectItemCaseSensitive(d, "captures"), 1))
        fail_msg("captures differ:\n%s\n%s", r.out, sc_it_json_text(d));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(g, "captures")), 4);
    cJSON_Delete(got);
    cJSON_Delete(daemon);
    sc_ct_result_free(&r);
}

/* ------------------------------------------------------ graphs, demo */

/* session + params as JSON text, for the methods without a typed call. */
static void raw(sc_client *c, uint64_t s, const char *method, const char *params)
{
    char *p = sc_it_fmt("{\"session\":%llu,%s", (unsigned long long)s, params + 1);
    char *res = NULL;
    if (sc_client_call_raw(c, method, p, &res) != 0)
        fail_msg("%s %s: %s", method, p, sc_client_errmsg(c));
    free(res);
    free(p);
}

/* A cuda graph of every new kind and a 3-D kernel. */
static uint64_t every_kind(sc_client *c)
{
    uint64_t s;
    assert_int_equal(sc_client_open_session_ex(c, "kinds", SC_CLIENT_SEMANTICS_CUDA, &s), 0);
    assert_int_equal(sc_client_cuda_begin(c, s, 1, 0, SC_CLIENT_MODE_GLOBAL, NULL), 0);
    raw(c, s, "capture.record_mem_alloc", "{\"stream\":1,\"name\":\"buf\",\"size_bytes\":65536}");
    const uint32_t grid[3] = {4, 2, 1}, block[3] = {256, 1, 1};
    int64_t k;
    assert_int_equal(sc_client_cuda_record_kernel(c, s, 1, 0, "relu", grid, block, 128, &k), 0);
    assert_int_equal(k, 1);
    uint32_t node;
    assert_int_equal(sc_client_record_memcpy(c, s, 1, "copy", SC_CLIENT_DIR_DEFAULT, 4096, &node),
                     0);
    assert_int_equal(node, 2);
    raw(c, s, "capture.record_event", "{\"stream\":1,\"event\":3,\"external\":true}");
    raw(c, s, "capture.wait_event", "{\"stream\":1,\"event\":3,\"external\":true}");
    raw(c, s, "capture.add_node", "{\"stream\":1,\"kind\":\"empty\",\"deps\":[4]}");
    raw(c, s, "capture.record_mem_free", "{\"stream\":1,\"name\":\"buf\"}");
    sc_client_cuda_captured got;
    assert_int_equal(sc_client_cuda_end(c, s, 1, 0, &got), 0);
    assert_int_equal(got.node_count, 7);
    assert_int_equal(sc_client_close_session(c, s), 0);
    return got.graph;
}

/* graph show names every cuda kind with its details and the kernel's 3-D
 * shape; --json adds grid and block; dot shows the shape too. */
static void test_graph_show_cuda_kinds(void **state)
{
    sc_cli_fx *f = *state;
    char *id = sc_it_fmt("%llu", (unsigned long long)every_kind(f->c));
    sc_ct_result r = sc_cli_run(f, "graph", "show", id, NULL);
    sc_cli_expect_status(&r, 0);
    sc_cli_expect_in(r.out, "N0    1       mem_alloc     buf   65536 B\n");
    sc_cli_expect_in(
        r.out, "N1    1       kernel        relu  relu grid 4x2x1 block 256x1x1 shared 128 B\n");
    sc_cli_expect_in(r.out, "N2    1       memcpy        copy  default, 4096 B\n");
    sc_cli_expect_in(r.out, "N3    1       event_record        event 3\n");
    sc_cli_expect_in(r.out, "N4    1       event_wait          event 3\n");
    sc_cli_expect_in(r.out, "N5    1       empty               -\n");
    sc_cli_expect_in(r.out, "N6    1       mem_free      buf   -\n");
    sc_cli_expect_in(r.out, "N4    N5  event_wait -> empty\n");
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "--json", "graph", "show", id, NULL);
    sc_cli_expect_status(&r, 0);
    cJSON *j = cJSON_Parse(r.out);
    assert_non_null(j);
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(j, "nodes");
    cJSON *want = cJSON_Parse(
        "[{\"id\":0,\"kind\":\"mem_alloc\",\"stream\":1,\"name\":\"buf\",\"size_bytes\":65536},"
        "{\"id\":1,\"kind\":\"kernel\",\"stream\":1,\"name\":\"relu\",\"function_name\":\"relu\","
        "\"num_blocks\":4,\"threads_per_block\":256,\"shared_mem\":128,\"grid\":[4,2,1],"
        "\"block\":[256,1,1]},"
        "{\"id\":2,\"kind\":\"memcpy\",\"stream\":1,\"name\":\"copy\",\"dir\":\"default\","
        "\"size_bytes\":4096},"
        "{\"id\":3,\"kind\":\"event_record\",\"stream\":1,\"name\":\"\",\"event\":3},"
        "{\"id\":4,\"kind\":\"event_wait\",\"stream\":1,\"name\":\"\",\"event\":3},"
        "{\"id\":5,\"kind\":\"empty\",\"stream\":1,\"name\":\"\"},"
        "{\"id\":6,\"kind\":\"mem_free\",\"stream\":1,\"name\":\"buf\"}]");
    if (!cJSON_Compare(want, nodes, 1))
        fail_msg("nodes: %s", r.out);
    cJSON_Delete(want);
    cJSON_Delete(j);
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "graph", "dot", id, NULL);
    sc_cli_expect_status(&r, 0);
    sc_cli_expect_in(r.out, "relu\\n<<<(4,2,1), (256,1,1), 128>>>");
    sc_cli_expect_in(r.out, "EVENT_WAIT");
    sc_ct_result_free(&r);
    free(id);
}

/* A default-mode graph reads as before: no 3-D shape. */
static void test_graph_show_default_mode_unchanged(void **state)
{
    sc_cli_fx *f = *state;
    uint64_t s;
    sc_client_captured g;
    assert_int_equal(sc_client_open_session(f->c, NULL, &s), 0);
    assert_int_equal(sc_client_begin_capture(f->c, s, 0), 0);
    assert_int_equal(sc_client_record_kernel(f->c, s, 0, "k", 4, 256, 0, NULL), 0);
    assert_int_equal(sc_client_end_capture(f->c, s, 0, &g), 0);
    char *id = sc_it_fmt("%llu", (unsigned long long)g.graph);
    sc_ct_result r = sc_cli_run(f, "graph", "show", id, NULL);
    sc_cli_expect_status(&r, 0);
    sc_cli_expect_in(r.out, "k<<<4, 256, 0>>>\n");
    sc_ct_result_free(&r);
    r = sc_cli_run(f, "--json", "graph", "show", id, NULL);
    assert_null(strstr(r.out, "grid"));
    sc_ct_result_free(&r);
    free(id);
}

/* A kernel's argument values: sent with graph.submit, read back by
 * graph.get, printed per parameter (integers of 1, 2, 4 or 8 bytes, the
 * bytes of a larger one, both cut as the CLI documents) and in --json. */
static void test_graph_show_kernel_args(void **state)
{
    sc_cli_fx *f = *state;
    enum { NP = 18 }; /* two past what is printed */
    uint8_t args[64];
    uint32_t sizes[NP];
    size_t len = 0;
    const uint64_t ptr = 0x1000;
    const uint32_t n = 7;
    memcpy(args, &ptr, 8);
    memcpy(args + 8, &n, 4);
    for (int i = 0; i < 20; i++)
        args[12 + i] = (uint8_t)i;
    sizes[0] = 8;
    sizes[1] = 4;
    sizes[2] = 20;
    len = 32;
    for (int i = 3; i < NP; i++) {
        args[len++] = (uint8_t)i;
        sizes[i] = 1;
    }
    sc_client_node k = {.kind = SC_CLIENT_KERNEL,
                        .function_name = "k",
                        .num_blocks = 1,
                        .threads_per_block = 32,
                        .args = args,
                        .args_len = len,
                        .param_sizes = sizes,
                        .nparams = NP};
    uint64_t id = 0;
    assert_int_equal(sc_client_graph_submit(f->c, "kargs", &k, 1, NULL, 0, &id), 0);
    sc_client_graph g;
    assert_int_equal(sc_client_graph_get(f->c, id, &g), 0);
    assert_int_equal(g.nodes[0].nparams, NP);
    assert_int_equal(g.nodes[0].args_len, len);
    assert_memory_equal(g.nodes[0].args, args, len);
    assert_memory_equal(g.nodes[0].param_sizes, sizes, sizeof sizes);
    sc_client_graph_free(&g);

    char *ids = sc_it_fmt("%llu", (unsigned long long)id);
    sc_ct_result r = sc_cli_run(f, "graph", "show", ids, NULL);
    sc_cli_expect_status(&r, 0);
    sc_cli_expect_in(
        r.out, "k grid 1x1x1 block 32x1x1 shared 0 B; args: 8 bytes 0x0000000000001000; 4 bytes "
               "0x00000007; 20 bytes [00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d "
               "0e 0f ...]; 1 byte 0x03; 1 byte 0x04;");
    sc_cli_expect_in(r.out, "; 1 byte 0x0f; ... 2 more\n");
    sc_ct_result_free(&r);
    r = sc_cli_run(f, "--json", "graph", "show", ids, NULL);
    sc_cli_expect_status(&r, 0);
    sc_cli_expect_in(r.out, "\"args\":\"001000000000000007000000000102030405060708090a0b0c0d0e0f"
                            "10111213030405060708090a0b0c0d0e0f1011\","
                            "\"param_sizes\":[8,4,20,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]");
    sc_ct_result_free(&r);
    free(ids);
}

/* demo --semantics cuda: the fork/join the CUDA way, one capture, the
 * session closed afterwards. */
static void test_demo_cuda(void **state)
{
    sc_cli_fx *f = *state;
    sc_ct_result r = sc_cli_run(f, "demo", "--semantics", "cuda", NULL);
    sc_cli_expect_status(&r, 0);
    sc_cli_expect_in(r.out,
                     "captured the fork/join example the CUDA way (origin stream 1, stream 2 "
                     "joined by event 0 and back by event 1) in session ");
    sc_cli_expect_in(r.out, " as capture 1, graph ");
    sc_cli_expect_in(r.out, "N0    1       memcpy  upload    host_to_device, 4096 B\n");
    sc_cli_expect_in(r.out,
                     "N1    2       kernel  relu      relu grid 4x1x1 block 256x1x1 shared 0 B\n");
    sc_cli_expect_in(r.out, "N2    1       memcpy  download  device_to_host, 4096 B\n");
    sc_cli_expect_in(r.out, "upload -> relu (N0 -> N1): reachable\n");
    sc_cli_expect_in(r.out, "relu -> download (N1 -> N2): reachable\n");
    sc_ct_result_free(&r);

    r = sc_cli_run(f, "--json", "demo", "--semantics=cuda", NULL);
    sc_cli_expect_status(&r, 0);
    cJSON *j = cJSON_Parse(r.out);
    assert_non_null(j);
    assert_string_equal(sc_it_str(j, "semantics"), "cuda");
    assert_int_equal(sc_it_int(j, "capture"), 1);
    assert_int_equal(sc_it_int(j, "edge_count"), 3);
    uint64_t session = (uint64_t)sc_it_int(j, "session");
    cJSON_Delete(j);
    sc_ct_result_free(&r);
    /* Closed: the log has it, no live session is left. */
    sc_client_session_list l;
    assert_int_equal(sc_client_list_sessions(f->c, &l), 0);
    for (size_t i = 0; i < l.count; i++)
        assert_true(l.sessions[i].session != session);
    sc_client_session_list_free(&l);

    r = sc_cli_run(f, "demo", "--semantics", "rust", NULL);
    sc_cli_expect_status(&r, 2);
    sc_cli_expect_in(r.err, "--semantics takes oxicuda (the default) or cuda");
    sc_ct_result_free(&r);
    r = sc_cli_run(f, "demo", "extra", NULL);
    sc_cli_expect_status(&r, 2);
    sc_cli_expect_in(r.err, "unexpected argument 'extra'");
    sc_ct_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_cuda_corpus_checks),
        cmocka_unit_test(test_replay_cuda_check_finds_differences),
        cmocka_unit_test(test_replay_cuda_bad_input),
        cmocka_unit_test(test_log_names_the_breaking_call),
        cmocka_unit_test(test_graph_show_cuda_kinds),
        cmocka_unit_test(test_graph_show_default_mode_unchanged),
        cmocka_unit_test(test_graph_show_kernel_args),
        cmocka_unit_test(test_demo_cuda),
    };
    return cmocka_run_group_tests(tests, group_setup, sc_cli_group_teardown);
}
