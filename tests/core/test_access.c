/*
 * test_access.c - buffer accesses on nodes: hand-built graphs, default-mode
 * records and cuda-mode records keep them in order; nodes without any
 * read back none; bad ranges and modes are refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sc_capture.h"
#include "sc_cuda.h"
#include "sc_graph.h"

static const sc_access three[] = {
    {0x1000, 256, SC_ACCESS_READ},
    {0x2000, 1, SC_ACCESS_WRITE},
    {UINT64_MAX - 8, 8, SC_ACCESS_READ_WRITE},
};

static void assert_accesses(const sc_node *n, const sc_access *want, uint32_t count)
{
    assert_int_equal(n->naccesses, count);
    for (uint32_t i = 0; i < count; i++) {
        assert_true(n->accesses[i].address == want[i].address);
        assert_true(n->accesses[i].size == want[i].size);
        assert_int_equal(n->accesses[i].mode, want[i].mode);
    }
}

static void t_mode_names(void **state)
{
    (void)state;
    sc_access_mode m;
    assert_string_equal(sc_access_mode_name(SC_ACCESS_READ), "read");
    assert_string_equal(sc_access_mode_name(SC_ACCESS_WRITE), "write");
    assert_string_equal(sc_access_mode_name(SC_ACCESS_READ_WRITE), "read_write");
    assert_null(sc_access_mode_name(0));
    assert_null(sc_access_mode_name(4));
    assert_int_equal(sc_access_mode_parse("read_write", 10, &m), 0);
    assert_int_equal(m, SC_ACCESS_READ_WRITE);
    assert_int_equal(sc_access_mode_parse("write", 5, &m), 0);
    assert_int_equal(m, SC_ACCESS_WRITE);
    assert_int_equal(sc_access_mode_parse("read", 3, &m), SC_EINVAL);
    assert_int_equal(sc_access_mode_parse("readx", 5, &m), SC_EINVAL);
    assert_int_equal(sc_access_mode_parse("", 0, &m), SC_EINVAL);
}

static void t_graph_roundtrip(void **state)
{
    (void)state;
    sc_graph *g;
    assert_int_equal(sc_graph_create(&g), 0);
    sc_node cp = {.kind = SC_KIND_MEMCPY, .name = "c", .name_len = 1, .size_bytes = 256};
    cp.accesses = three;
    cp.naccesses = 3;
    sc_node plain = {.kind = SC_KIND_KERNEL, .name = "k", .name_len = 1, .num_blocks = 1};
    uint8_t args[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint32_t sizes[2] = {4, 4};
    sc_node k = plain;
    k.args = args;
    k.args_len = 8;
    k.param_sizes = sizes;
    k.nparams = 2;
    k.grid_y = 2;
    k.accesses = three + 1;
    k.naccesses = 1;
    uint32_t id;
    assert_int_equal(sc_graph_add_node(g, &cp, &id), 0);
    assert_int_equal(sc_graph_add_node(g, &plain, &id), 0);
    assert_int_equal(sc_graph_add_node(g, &k, &id), 0);
    assert_int_equal(sc_graph_add_edge(g, 0, 2), 0);
    sc_node n;
    assert_int_equal(sc_graph_node(g, 0, &n), 0); /* unsealed reads too */
    assert_accesses(&n, three, 3);
    assert_int_equal(sc_graph_seal(g), 0);
    assert_int_equal(sc_graph_node(g, 0, &n), 0);
    assert_accesses(&n, three, 3);
    assert_true(n.size_bytes == 256);
    assert_int_equal(sc_graph_node(g, 1, &n), 0);
    assert_int_equal(n.naccesses, 0);
    assert_null(n.accesses);
    assert_int_equal(sc_graph_node(g, 2, &n), 0);
    assert_accesses(&n, three + 1, 1);
    assert_int_equal(n.nparams, 2);
    assert_int_equal(n.grid_y, 2);
    sc_graph_destroy(g);
}

/* Many nodes, the most accesses a node may carry, and pointers read early
 * staying valid while the graph grows. */
static void t_many(void **state)
{
    (void)state;
    sc_access *v = calloc(SC_ACCESS_MAX + 1, sizeof *v);
    assert_non_null(v);
    for (uint32_t i = 0; i <= SC_ACCESS_MAX; i++)
        v[i] = (sc_access){(uint64_t)i * 64, 64, (sc_access_mode)(1 + i % 3)};
    sc_graph *g;
    assert_int_equal(sc_graph_create(&g), 0);
    sc_node big = {.kind = SC_KIND_KERNEL, .name = "k", .name_len = 1, .num_blocks = 1};
    big.accesses = v;
    big.naccesses = SC_ACCESS_MAX;
    assert_int_equal(sc_graph_add_node(g, &big, NULL), 0);
    sc_node first;
    assert_int_equal(sc_graph_node(g, 0, &first), 0);
    for (uint32_t i = 1; i < 5000; i++) {
        sc_node m = {.kind = SC_KIND_MEMSET, .name = "m", .name_len = 1, .size_bytes = 8};
        m.accesses = v + i % 100;
        m.naccesses = i % 3; /* every third node carries none */
        assert_int_equal(sc_graph_add_node(g, &m, NULL), 0);
    }
    assert_accesses(&first, v, SC_ACCESS_MAX);
    assert_int_equal(sc_graph_seal(g), 0);
    for (uint32_t i = 1; i < 5000; i++) {
        sc_node n;
        assert_int_equal(sc_graph_node(g, i, &n), 0);
        assert_accesses(&n, v + i % 100, i % 3);
    }
    big.naccesses = SC_ACCESS_MAX + 1;
    sc_graph *h;
    assert_int_equal(sc_graph_create(&h), 0);
    assert_int_equal(sc_graph_add_node(h, &big, NULL), SC_EINVAL);
    assert_int_equal(sc_graph_node_count(h), 0);
    sc_graph_destroy(h);
    sc_graph_destroy(g);
    free(v);
}

static void t_invalid(void **state)
{
    (void)state;
    sc_graph *g;
    assert_int_equal(sc_graph_create(&g), 0);
    sc_access bad[] = {
        {0x10, 0, SC_ACCESS_READ},           /* empty */
        {UINT64_MAX - 7, 8, SC_ACCESS_READ}, /* past the end of u64 */
        {0x10, 4, (sc_access_mode)0},
        {0x10, 4, (sc_access_mode)4},
    };
    sc_node n = {.kind = SC_KIND_MEMSET, .name = "m", .name_len = 1, .size_bytes = 4};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        n.accesses = bad + i;
        n.naccesses = 1;
        assert_int_equal(sc_graph_add_node(g, &n, NULL), SC_EINVAL);
    }
    n.accesses = NULL;
    assert_int_equal(sc_graph_add_node(g, &n, NULL), SC_EINVAL);
    assert_int_equal(sc_graph_node_count(g), 0);
    assert_true(sc_access_valid(&three[2]));
    assert_false(sc_access_valid(NULL));
    sc_graph_destroy(g);
}

static void t_capture_records(void **state)
{
    (void)state;
    sc_capture *cap;
    assert_int_equal(sc_capture_create(&cap), 0);
    assert_int_equal(sc_capture_begin(cap, 7), 0);
    sc_node cp = {.kind = SC_KIND_MEMCPY, .name = "c", .name_len = 1, .size_bytes = 1};
    cp.dir = SC_DIR_DEVICE_TO_DEVICE;
    cp.accesses = three;
    cp.naccesses = 2;
    uint32_t id;
    assert_int_equal(sc_capture_record_node(cap, 7, &cp, &id), 0);
    assert_int_equal(id, 0);
    assert_int_equal(sc_capture_record_memset(cap, 7, "m", 1, 4, 0, &id), 0);
    sc_node k = {.kind = SC_KIND_KERNEL, .name = "k", .name_len = 1, .num_blocks = 3};
    k.accesses = three + 2;
    k.naccesses = 1;
    assert_int_equal(sc_capture_record_kernel_node(cap, 7, &k, &id), 0);
    sc_node h = {.kind = SC_KIND_HOST_CALLBACK, .name = "h", .name_len = 1};
    h.accesses = three;
    h.naccesses = 1;
    assert_int_equal(sc_capture_record_node(cap, 7, &h, &id), 0);
    /* refused before anything is kept: a bad access, a kind the default
     * mode does not record */
    sc_access zero = {1, 0, SC_ACCESS_READ};
    h.accesses = &zero;
    assert_int_equal(sc_capture_record_node(cap, 7, &h, &id), SC_EINVAL);
    sc_node ev = {.kind = (sc_node_kind)SC_KIND_EVENT_RECORD, .name = "", .name_len = 0};
    assert_int_equal(sc_capture_record_node(cap, 7, &ev, &id), SC_EINVAL);
    sc_node n;
    assert_int_equal(sc_capture_node(cap, 0, &n), 0);
    assert_accesses(&n, three, 2);
    sc_graph *g;
    assert_int_equal(sc_capture_end(cap, 7, &g), 0);
    assert_int_equal(sc_graph_node_count(g), 4);
    assert_int_equal(sc_graph_node(g, 0, &n), 0);
    assert_accesses(&n, three, 2);
    assert_int_equal(n.dir, SC_DIR_DEVICE_TO_DEVICE);
    assert_int_equal(sc_graph_node(g, 1, &n), 0);
    assert_int_equal(n.naccesses, 0);
    assert_int_equal(sc_graph_node(g, 2, &n), 0);
    assert_accesses(&n, three + 2, 1);
    assert_int_equal(n.num_blocks, 3);
    assert_int_equal(sc_graph_node(g, 3, &n), 0);
    assert_accesses(&n, three, 1);
    assert_int_equal(n.kind, SC_KIND_HOST_CALLBACK);
    sc_graph_destroy(g);
}

static void t_cuda_records(void **state)
{
    (void)state;
    sc_cuda *cu;
    assert_int_equal(sc_cuda_create(&cu), 0);
    uint32_t capture;
    assert_int_equal(sc_cuda_begin(cu, 1, SC_CUDA_GLOBAL, 0, &capture), 0);
    sc_node m = {.kind = SC_KIND_MEMSET, .name = "m", .name_len = 1, .size_bytes = 16};
    m.accesses = three + 1;
    m.naccesses = 1;
    uint32_t id;
    assert_int_equal(sc_cuda_record(cu, 1, 0, &m, &id), 0);
    m.naccesses = 0;
    assert_int_equal(sc_cuda_record(cu, 1, 0, &m, &id), 0);
    sc_node k = {.kind = SC_KIND_KERNEL, .name = "k", .name_len = 1, .num_blocks = 1};
    k.accesses = three;
    k.naccesses = 3;
    assert_int_equal(sc_cuda_add_node(cu, 1, 0, &k, NULL, 0, &id), 0);
    sc_access zero = {1, 0, SC_ACCESS_READ};
    m.accesses = &zero;
    m.naccesses = 1;
    assert_int_equal(sc_cuda_record(cu, 1, 0, &m, &id), SC_EINVAL);
    sc_cuda_end_result res;
    assert_int_equal(sc_cuda_end(cu, 1, 0, &res), 0);
    sc_node n;
    assert_int_equal(sc_graph_node_count(res.graph), 3);
    assert_int_equal(sc_graph_node(res.graph, 0, &n), 0);
    assert_accesses(&n, three + 1, 1);
    assert_int_equal(sc_graph_node(res.graph, 1, &n), 0);
    assert_int_equal(n.naccesses, 0);
    assert_int_equal(sc_graph_node(res.graph, 2, &n), 0);
    assert_accesses(&n, three, 3);
    sc_cuda_end_free(&res);
    sc_cuda_destroy(cu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_mode_names),
        cmocka_unit_test(t_graph_roundtrip),
        cmocka_unit_test(t_many),
        cmocka_unit_test(t_invalid),
        cmocka_unit_test(t_capture_records),
        cmocka_unit_test(t_cuda_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
