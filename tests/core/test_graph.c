/*
 * test_graph.c - hand-built graphs: nodes, sealing (sort, dedup, CSR),
 * edge order, errors, reachability through index and BFS, memory figures.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sc_graph.h"

static sc_graph *graph_new(void)
{
    sc_graph *g = NULL;
    assert_int_equal(sc_graph_create(&g), 0);
    assert_non_null(g);
    return g;
}

static uint32_t add_kernel(sc_graph *g, uint32_t stream, const char *name)
{
    sc_node n = {.kind = SC_KIND_KERNEL,
                 .stream = stream,
                 .name = name,
                 .name_len = strlen(name),
                 .num_blocks = 1,
                 .threads_per_block = 32};
    uint32_t id = UINT32_MAX;
    assert_int_equal(sc_graph_add_node(g, &n, &id), 0);
    return id;
}

static int add_node_rc(sc_graph *g)
{
    sc_node n = {.kind = SC_KIND_KERNEL, .name = "k", .name_len = 1};
    return sc_graph_add_node(g, &n, NULL);
}

/* xorshift64*: deterministic across platforms */
static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* All pairs through BFS and through the index. */
static void assert_index_matches_bfs(sc_graph *g)
{
    uint32_t n = sc_graph_node_count(g);
    bool *want = malloc((size_t)n * n * sizeof *want);
    assert_non_null(want);
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++)
            assert_int_equal(sc_graph_reachable_bfs(g, a, b, &want[(size_t)a * n + b]), 0);
    assert_int_equal(sc_graph_build_index(g), 0);
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++) {
            bool r;
            assert_int_equal(sc_graph_reachable(g, a, b, &r), 0);
            if (r != want[(size_t)a * n + b])
                fail_msg("reachable(%u, %u): index %d, bfs %d", a, b, r, want[(size_t)a * n + b]);
        }
    free(want);
}

static void t_empty_graph(void **state)
{
    (void)state;
    sc_graph *g = graph_new();
    assert_false(sc_graph_is_sealed(g));
    assert_int_equal(sc_graph_seal(g), 0);
    assert_true(sc_graph_is_sealed(g));
    assert_int_equal(sc_graph_node_count(g), 0);
    assert_int_equal(sc_graph_edge_count(g), 0);
    assert_int_equal(sc_graph_stream_count(g), 0);
    uint32_t s, d;
    assert_int_equal(sc_graph_edge(g, 0, &s, &d), SC_ENOTFOUND);
    assert_int_equal(sc_graph_build_index(g), 0);
    bool r = false;
    assert_int_equal(sc_graph_reachable(g, 3, 3, &r), 0);
    assert_true(r);
    assert_int_equal(sc_graph_reachable(g, 0, 1, &r), SC_ENOTFOUND);
    assert_true(sc_graph_memory(g) > 0);
    sc_graph_destroy(g);
    sc_graph_destroy(NULL);
}

static void t_node_roundtrip(void **state)
{
    (void)state;
    sc_graph *g = graph_new();
    static const char nul[] = {'x', '\0', 'y', '\0'};
    const char *utf8 = "\xce\xbb\xe2\x86\x92 callback \xe2\x9c\x93"; /* λ→ callback ✓ */
    sc_node in[5] = {
        {.kind = SC_KIND_KERNEL,
         .stream = 0,
         .name = "gemm",
         .name_len = 4,
         .num_blocks = UINT32_MAX,
         .threads_per_block = 0,
         .shared_mem = 49152,
         .size_bytes = 99,
         .value = 3},
        {.kind = SC_KIND_MEMCPY,
         .stream = UINT32_MAX,
         .name = nul,
         .name_len = sizeof nul,
         .dir = SC_DIR_PEER_TO_PEER,
         .src_device = 2,
         .dst_device = 3,
         .size_bytes = UINT64_MAX},
        {.kind = SC_KIND_MEMCPY,
         .stream = 1,
         .name = "h2d",
         .name_len = 3,
         .dir = SC_DIR_HOST_TO_DEVICE,
         .src_device = 5,
         .dst_device = 6,
         .size_bytes = 1},
        {.kind = SC_KIND_MEMSET,
         .stream = 2,
         .name = "",
         .name_len = 0,
         .size_bytes = 64,
         .value = 255,
         .num_blocks = 7},
        {.kind = SC_KIND_HOST_CALLBACK, .stream = 3, .name = utf8, .name_len = strlen(utf8)},
    };
    for (uint32_t i = 0; i < 5; i++) {
        uint32_t id = 99;
        assert_int_equal(sc_graph_add_node(g, &in[i], &id), 0);
        assert_int_equal(id, i);
    }
    /* readable before and after sealing */
    for (int pass = 0; pass < 2; pass++) {
        sc_node n;
        assert_int_equal(sc_graph_node(g, 0, &n), 0);
        assert_int_equal(n.kind, SC_KIND_KERNEL);
        assert_int_equal(n.num_blocks, UINT32_MAX);
        assert_int_equal(n.threads_per_block, 0);
        assert_int_equal(n.shared_mem, 49152);
        assert_int_equal(n.size_bytes, 0); /* not a kernel field */
        assert_int_equal(n.value, 0);
        assert_int_equal(n.name_len, 4);
        assert_string_equal(n.name, "gemm");
        assert_int_equal(sc_graph_node(g, 1, &n), 0);
        assert_int_equal(n.stream, UINT32_MAX);
        assert_int_equal(n.name_len, sizeof nul);
        assert_memory_equal(n.name, nul, sizeof nul);
        assert_int_equal(n.dir, SC_DIR_PEER_TO_PEER);
        assert_int_equal(n.src_device, 2);
        assert_int_equal(n.dst_device, 3);
        assert_int_equal(n.size_bytes, UINT64_MAX);
        assert_int_equal(sc_graph_node(g, 2, &n), 0);
        assert_int_equal(n.src_device, 0); /* only peer to peer keeps devices */
        assert_int_equal(n.dst_device, 0);
        assert_int_equal(sc_graph_node(g, 3, &n), 0);
        assert_int_equal(n.kind, SC_KIND_MEMSET);
        assert_int_equal(n.value, 255);
        assert_int_equal(n.size_bytes, 64);
        assert_int_equal(n.num_blocks, 0);
        assert_int_equal(n.name_len, 0);
        assert_string_equal(n.name, "");
        assert_int_equal(sc_graph_node(g, 4, &n), 0);
        assert_int_equal(n.kind, SC_KIND_HOST_CALLBACK);
        assert_int_equal(n.name_len, strlen(utf8));
        assert_string_equal(n.name, utf8);
        assert_int_equal(sc_graph_seal(g), 0);
    }
    assert_int_equal(sc_graph_stream_count(g), 5);
    sc_graph_destroy(g);
}

static void t_add_node_errors(void **state)
{
    (void)state;
    sc_graph *g = graph_new();
    sc_node n = {.kind = (sc_node_kind)4, .name = "k", .name_len = 1};
    assert_int_equal(sc_graph_add_node(g, &n, NULL), SC_EINVAL);
    n.kind = SC_KIND_MEMCPY;
    n.dir = (sc_memcpy_dir)4;
    assert_int_equal(sc_graph_add_node(g, &n, NULL), SC_EINVAL);
    n.dir = SC_DIR_DEVICE_TO_DEVICE;
    n.name = NULL;
    assert_int_equal(sc_graph_add_node(g, &n, NULL), SC_EINVAL);
    assert_int_equal(sc_graph_add_node(g, NULL, NULL), SC_EINVAL);
    assert_int_equal(sc_graph_add_node(NULL, &n, NULL), SC_EINVAL);
    assert_int_equal(sc_graph_node_count(g), 0);
    n.name_len = 0; /* a NULL name of length 0 is the empty name */
    assert_int_equal(sc_graph_add_node(g, &n, NULL), 0);
    assert_int_equal(sc_graph_node_count(g), 1);
    assert_int_equal(sc_graph_seal(g), 0);
    n.name = "k";
    assert_int_equal(sc_graph_add_node(g, &n, NULL), SC_EINVAL);
    assert_int_equal(sc_graph_node_count(g), 1);
    assert_int_equal(sc_graph_create(NULL), SC_EINVAL);
    sc_graph_destroy(g);
}

static void t_add_edge_errors(void **state)
{
    (void)state;
    sc_graph *g = graph_new();
    for (int i = 0; i < 3; i++)
        add_kernel(g, 0, "k");
    assert_int_equal(sc_graph_add_edge(g, 0, 3), SC_ENOTFOUND);
    assert_int_equal(sc_graph_add_edge(g, 3, 1), SC_ENOTFOUND);
    assert_int_equal(sc_graph_add_edge(g, 1, 1), SC_EINVAL);
    assert_int_equal(sc_graph_add_edge(g, 2, 1), SC_EINVAL);
    assert_int_equal(sc_graph_add_edge(NULL, 0, 1), SC_EINVAL);
    assert_int_equal(sc_graph_edge_count(g), 0);
    assert_int_equal(sc_graph_add_edge(g, 0, 1), 0);
    /* unsealed graphs have no ordered edges, successors or reachability */
    uint32_t s, d;
    const uint32_t *succ;
    uint32_t cnt;
    bool r;
    assert_int_equal(sc_graph_edge(g, 0, &s, &d), SC_EINVAL);
    assert_int_equal(sc_graph_successors(g, 0, &succ, &cnt), SC_EINVAL);
    assert_int_equal(sc_graph_reachable(g, 0, 1, &r), SC_EINVAL);
    assert_int_equal(sc_graph_reachable_bfs(g, 0, 1, &r), SC_EINVAL);
    assert_int_equal(sc_graph_build_index(g), SC_EINVAL);
    assert_false(sc_graph_has_index(g));
    assert_int_equal(sc_graph_seal(g), 0);
    assert_int_equal(sc_graph_add_edge(g, 1, 2), SC_EINVAL);
    assert_int_equal(sc_graph_edge_count(g), 1);
    sc_graph_destroy(g);
}

/* Predecessor lists: ascending, from the pairs once sealed, refused before
 * sealing while hand-added edges are pending, bounded by the caller's room. */
static void t_predecessors(void **state)
{
    (void)state;
    sc_graph *g = graph_new();
    for (int i = 0; i < 5; i++)
        add_kernel(g, 0, "k");
    static const uint32_t in[][2] = {{3, 4}, {0, 4}, {2, 4}, {1, 2}, {0, 2}};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
        assert_int_equal(sc_graph_add_edge(g, in[i][0], in[i][1]), 0);
    uint32_t out[8], n = 99;
    assert_int_equal(sc_graph_predecessors(g, 4, out, 8, &n), SC_EINVAL);
    assert_int_equal(sc_graph_seal(g), 0);
    assert_int_equal(sc_graph_predecessors(g, 4, out, 8, &n), 0);
    assert_int_equal(n, 3);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], 2);
    assert_int_equal(out[2], 3);
    assert_int_equal(sc_graph_predecessors(g, 0, out, 8, &n), 0);
    assert_int_equal(n, 0);
    assert_int_equal(sc_graph_predecessors(g, 4, out, 2, &n), SC_ELIMIT);
    assert_int_equal(n, 3);
    assert_int_equal(sc_graph_predecessors(g, 5, out, 8, &n), SC_ENOTFOUND);
    assert_int_equal(sc_graph_predecessors(NULL, 0, out, 8, &n), SC_EINVAL);
    assert_int_equal(sc_graph_predecessors(g, 0, NULL, 8, &n), SC_EINVAL);
    sc_graph_destroy(g);
}

static void t_seal_sorts_and_dedups(void **state)
{
    (void)state;
    sc_graph *g = graph_new();
    for (int i = 0; i < 6; i++)
        add_kernel(g, (uint32_t)i % 2, "k");
    static const uint32_t in[][2] = {{4, 5}, {0, 3}, {2, 5}, {0, 1}, {0, 3}, {1, 4},
                                     {0, 1}, {0, 5}, {2, 5}, {0, 2}, {1, 4}, {3, 4}};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
        assert_int_equal(sc_graph_add_edge(g, in[i][0], in[i][1]), 0);
    assert_int_equal(sc_graph_edge_count(g), 12); /* duplicates count until sealed */
    assert_int_equal(sc_graph_seal(g), 0);
    assert_int_equal(sc_graph_seal(g), 0); /* twice is a no-op */
    static const uint32_t want[][2] = {{0, 1}, {0, 2}, {0, 3}, {0, 5},
                                       {1, 4}, {2, 5}, {3, 4}, {4, 5}};
    assert_int_equal(sc_graph_edge_count(g), 8);
    for (uint64_t i = 0; i < 8; i++) {
        uint32_t s, d;
        assert_int_equal(sc_graph_edge(g, i, &s, &d), 0);
        assert_int_equal(s, want[i][0]);
        assert_int_equal(d, want[i][1]);
    }
    uint32_t s, d;
    assert_int_equal(sc_graph_edge(g, 8, &s, &d), SC_ENOTFOUND);
    const uint32_t *succ;
    uint32_t cnt;
    assert_int_equal(sc_graph_successors(g, 0, &succ, &cnt), 0);
    assert_int_equal(cnt, 4);
    assert_int_equal(succ[0], 1);
    assert_int_equal(succ[1], 2);
    assert_int_equal(succ[2], 3);
    assert_int_equal(succ[3], 5);
    assert_int_equal(sc_graph_successors(g, 5, &succ, &cnt), 0);
    assert_int_equal(cnt, 0);
    assert_int_equal(sc_graph_successors(g, 6, &succ, &cnt), SC_ENOTFOUND);
    assert_int_equal(sc_graph_stream_count(g), 2);
    sc_graph_destroy(g);
}

/* Random edges in random order against a reference sort. */
static void t_edge_order_random(void **state)
{
    (void)state;
    enum { N = 3000, E = 20000 };
    uint64_t seed = 0x5eed0001;
    sc_graph *g = graph_new();
    for (uint32_t i = 0; i < N; i++)
        add_kernel(g, i % 7, i % 3 ? "a" : "b");
    uint64_t *ref = malloc(E * sizeof *ref);
    assert_non_null(ref);
    for (size_t i = 0; i < E; i++) {
        uint32_t a = (uint32_t)(rnd(&seed) % (N - 1));
        uint32_t b = a + 1 + (uint32_t)(rnd(&seed) % (i % 2 ? 8 : (N - 1 - a)));
        if (b >= N)
            b = N - 1;
        ref[i] = (uint64_t)a << 32 | b;
        assert_int_equal(sc_graph_add_edge(g, a, b), 0);
    }
    qsort(ref, E, sizeof *ref, cmp_u64);
    size_t uniq = 0;
    for (size_t i = 0; i < E; i++)
        if (uniq == 0 || ref[uniq - 1] != ref[i])
            ref[uniq++] = ref[i];
    assert_int_equal(sc_graph_seal(g), 0);
    assert_int_equal(sc_graph_edge_count(g), uniq);
    for (size_t i = 0; i < uniq; i++) {
        uint32_t s, d;
        assert_int_equal(sc_graph_edge(g, i, &s, &d), 0);
        assert_int_equal(s, (uint32_t)(ref[i] >> 32));
        assert_int_equal(d, (uint32_t)ref[i]);
    }
    /* successor lists agree with the edge list */
    size_t k = 0;
    for (uint32_t v = 0; v < N; v++) {
        const uint32_t *succ;
        uint32_t cnt;
        assert_int_equal(sc_graph_successors(g, v, &succ, &cnt), 0);
        for (uint32_t j = 0; j < cnt; j++, k++)
            assert_true(ref[k] == ((uint64_t)v << 32 | succ[j]));
    }
    assert_int_equal(k, uniq);
    free(ref);
    sc_graph_destroy(g);
}

static void t_unknown_ids_and_reflexive(void **state)
{
    (void)state;
    sc_graph *g = graph_new();
    for (int i = 0; i < 4; i++)
        add_kernel(g, 0, "k");
    assert_int_equal(sc_graph_add_edge(g, 0, 1), 0);
    assert_int_equal(sc_graph_add_edge(g, 1, 2), 0);
    assert_int_equal(sc_graph_seal(g), 0);
    sc_node n;
    assert_int_equal(sc_graph_node(g, 4, &n), SC_ENOTFOUND);
    assert_int_equal(sc_graph_node(g, UINT32_MAX, &n), SC_ENOTFOUND);
    for (int pass = 0; pass < 2; pass++) {
        bool r = false;
        for (uint32_t a = 0; a < 6; a++) {
            r = false;
            assert_int_equal(sc_graph_reachable(g, a, a, &r), 0);
            assert_true(r);
            r = false;
            assert_int_equal(sc_graph_reachable_bfs(g, a, a, &r), 0);
            assert_true(r);
        }
        assert_int_equal(sc_graph_reachable(g, 0, 4, &r), SC_ENOTFOUND);
        assert_int_equal(sc_graph_reachable(g, 4, 0, &r), SC_ENOTFOUND);
        assert_int_equal(sc_graph_reachable_bfs(g, 0, UINT32_MAX, &r), SC_ENOTFOUND);
        assert_int_equal(sc_graph_reachable_bfs(g, UINT32_MAX, 1, &r), SC_ENOTFOUND);
        assert_int_equal(sc_graph_reachable(g, 0, 2, &r), 0);
        assert_true(r);
        assert_int_equal(sc_graph_reachable(g, 2, 0, &r), 0);
        assert_false(r);
        /* stream 0 is not a chain here: 2 -> 3 is missing */
        assert_int_equal(sc_graph_reachable(g, 0, 3, &r), 0);
        assert_false(r);
        assert_int_equal(sc_graph_reachable(g, 0, 1, NULL), SC_EINVAL);
        assert_int_equal(sc_graph_build_index(g), 0);
        assert_true(sc_graph_has_index(g));
    }
    sc_graph_destroy(g);
}

/* Streams that are not chains (missing sequential edges, interleaving):
 * the index splits them and must still agree with BFS. */
static void t_reach_non_chain_streams(void **state)
{
    (void)state;
    uint64_t seed = 0xC0FFEE;
    for (int round = 0; round < 20; round++) {
        sc_graph *g = graph_new();
        uint32_t n = 40 + (uint32_t)(rnd(&seed) % 80);
        uint32_t streams = 1 + (uint32_t)(rnd(&seed) % 6);
        for (uint32_t i = 0; i < n; i++)
            add_kernel(g, (uint32_t)(rnd(&seed) % streams), "k");
        uint32_t e = n + (uint32_t)(rnd(&seed) % (2 * n));
        for (uint32_t i = 0; i < e; i++) {
            uint32_t a = (uint32_t)(rnd(&seed) % (n - 1));
            uint32_t b = a + 1 + (uint32_t)(rnd(&seed) % (n - 1 - a));
            assert_int_equal(sc_graph_add_edge(g, a, b), 0);
        }
        assert_int_equal(sc_graph_seal(g), 0);
        assert_index_matches_bfs(g);
        sc_graph_destroy(g);
    }
}

/* Chains on many streams, more than the index holds, with random cross
 * edges: exercises the backward walk. */
static void t_reach_many_streams(void **state)
{
    (void)state;
    uint64_t seed = 0xBADC0DE;
    for (int round = 0; round < 6; round++) {
        sc_graph *g = graph_new();
        uint32_t streams = 20 + (uint32_t)(rnd(&seed) % 80);
        uint32_t n = 300;
        uint32_t *last = malloc(streams * sizeof *last);
        assert_non_null(last);
        for (uint32_t s = 0; s < streams; s++)
            last[s] = UINT32_MAX;
        for (uint32_t i = 0; i < n; i++) {
            /* skewed: low streams get most nodes */
            uint32_t s = (uint32_t)(rnd(&seed) % streams);
            if (rnd(&seed) % 2)
                s %= 4;
            add_kernel(g, s, "k");
            if (last[s] != UINT32_MAX)
                assert_int_equal(sc_graph_add_edge(g, last[s], i), 0);
            last[s] = i;
            if (i > 0 && rnd(&seed) % 3 == 0)
                assert_int_equal(sc_graph_add_edge(g, (uint32_t)(rnd(&seed) % i), i), 0);
        }
        free(last);
        assert_int_equal(sc_graph_seal(g), 0);
        assert_index_matches_bfs(g);
        sc_graph_destroy(g);
    }
}

static void t_names_and_parse(void **state)
{
    (void)state;
    static const char *kinds[] = {"kernel", "memcpy", "memset", "host_callback"};
    static const char *dirs[] = {"host_to_device", "device_to_host", "device_to_device",
                                 "peer_to_peer"};
    for (int i = 0; i < 4; i++) {
        assert_string_equal(sc_node_kind_name((sc_node_kind)i), kinds[i]);
        assert_string_equal(sc_memcpy_dir_name((sc_memcpy_dir)i), dirs[i]);
        sc_node_kind k;
        sc_memcpy_dir d;
        assert_int_equal(sc_node_kind_parse(kinds[i], strlen(kinds[i]), &k), 0);
        assert_int_equal(k, i);
        assert_int_equal(sc_memcpy_dir_parse(dirs[i], strlen(dirs[i]), &d), 0);
        assert_int_equal(d, i);
    }
    assert_null(sc_node_kind_name((sc_node_kind)4));
    assert_null(sc_memcpy_dir_name((sc_memcpy_dir)-1));
    sc_node_kind k;
    sc_memcpy_dir d;
    assert_int_equal(sc_node_kind_parse("kernels", 7, &k), SC_EINVAL);
    assert_int_equal(sc_node_kind_parse("kernel", 5, &k), SC_EINVAL);
    assert_int_equal(sc_node_kind_parse("host_cb", 7, &k), SC_EINVAL);
    assert_int_equal(sc_memcpy_dir_parse("HtoD", 4, &d), SC_EINVAL);
    assert_int_equal(sc_memcpy_dir_parse(NULL, 0, &d), SC_EINVAL);
    /* length is authoritative: a longer buffer is cut at len */
    assert_int_equal(sc_memcpy_dir_parse("peer_to_peer!", 12, &d), 0);
    assert_int_equal(d, SC_DIR_PEER_TO_PEER);
}

/* A name bigger than one arena block, then small names after it. */
static void t_huge_name(void **state)
{
    (void)state;
    size_t len = (3u << 20) + 123;
    char *big = malloc(len);
    assert_non_null(big);
    for (size_t i = 0; i < len; i++)
        big[i] = (char)('a' + i % 26);
    sc_graph *g = graph_new();
    size_t before = sc_graph_memory(g);
    add_kernel(g, 0, "small");
    sc_node n = {.kind = SC_KIND_HOST_CALLBACK, .name = big, .name_len = len};
    assert_int_equal(sc_graph_add_node(g, &n, NULL), 0);
    assert_int_equal(sc_graph_add_node(g, &n, NULL), 0);
    add_kernel(g, 0, "after");
    assert_true(sc_graph_memory(g) >= before + len);
    assert_true(sc_graph_memory(g) < before + 2 * len);
    assert_int_equal(sc_graph_seal(g), 0);
    sc_node a, b;
    assert_int_equal(sc_graph_node(g, 1, &a), 0);
    assert_int_equal(sc_graph_node(g, 2, &b), 0);
    assert_int_equal(a.name_len, len);
    assert_memory_equal(a.name, big, len);
    assert_ptr_equal(a.name, b.name); /* interned once */
    assert_int_equal(sc_graph_node(g, 0, &a), 0);
    assert_string_equal(a.name, "small");
    assert_int_equal(sc_graph_node(g, 3, &a), 0);
    assert_string_equal(a.name, "after");
    free(big);
    sc_graph_destroy(g);
}

static void t_memory_accounting(void **state)
{
    (void)state;
    enum { N = 100000 };
    sc_graph *g = graph_new();
    size_t m0 = sc_graph_memory(g);
    for (uint32_t i = 0; i < N; i++) {
        add_kernel(g, i % 4, "k");
        if (i >= 4)
            assert_int_equal(sc_graph_add_edge(g, i - 4, i), 0);
    }
    size_t m1 = sc_graph_memory(g);
    assert_true(m1 >= m0 + (size_t)N * 32);
    assert_true(m1 <= m0 + (size_t)N * 64);
    assert_int_equal(sc_graph_seal(g), 0);
    size_t m2 = sc_graph_memory(g);
    /* records + preds + CSR; the build-time pair list is gone */
    assert_true(m2 >= (size_t)N * (32 + 4 + 4 + 4));
    assert_true(m2 <= (size_t)N * 56);
    assert_int_equal(sc_graph_build_index(g), 0);
    size_t m3 = sc_graph_memory(g);
    assert_true(m3 >= m2 + (size_t)N * (4 * 4 + 8));
    assert_true(m3 <= m2 + (size_t)N * (4 * 4 + 8) + 64);
    assert_int_equal(sc_graph_build_index(g), 0);
    assert_int_equal(sc_graph_memory(g), m3);
    assert_int_equal(sc_graph_memory(NULL), 0);
    sc_graph_destroy(g);
}

/* A large graph loaded by hand: 8 chains with periodic cross edges. */
static void t_large_handbuilt(void **state)
{
    (void)state;
    enum { N = 300000, S = 8 };
    sc_graph *g = graph_new();
    for (uint32_t i = 0; i < N; i++) {
        add_kernel(g, i % S, i % 5 ? "kern" : "copy");
        if (i >= S)
            assert_int_equal(sc_graph_add_edge(g, i - S, i), 0);
        if (i % 97 == 0 && i > 20)
            assert_int_equal(sc_graph_add_edge(g, i - 11, i), 0);
    }
    assert_int_equal(sc_graph_seal(g), 0);
    assert_int_equal(sc_graph_stream_count(g), S);
    assert_int_equal(sc_graph_build_index(g), 0);
    uint64_t seed = 42;
    for (int q = 0; q < 300; q++) {
        uint32_t a = (uint32_t)(rnd(&seed) % N);
        uint32_t b = a + (uint32_t)(rnd(&seed) % 3000);
        if (b >= N)
            b = N - 1;
        bool x, y;
        assert_int_equal(sc_graph_reachable(g, a, b, &x), 0);
        assert_int_equal(sc_graph_reachable_bfs(g, a, b, &y), 0);
        if (x != y)
            fail_msg("reachable(%u, %u): index %d, bfs %d", a, b, x, y);
    }
    sc_graph_destroy(g);
}

/* The streams and (src, dst) pairs a stored copy keeps of a sealed graph. */
static void skeleton_arrays(const sc_graph *g, uint32_t **streams, uint32_t **pairs)
{
    uint32_t n = sc_graph_node_count(g);
    uint64_t m = sc_graph_edge_count(g);
    *streams = malloc((n ? n : 1) * sizeof **streams);
    *pairs = malloc((m ? 2 * m : 1) * sizeof **pairs);
    assert_non_null(*streams);
    assert_non_null(*pairs);
    for (uint32_t i = 0; i < n; i++) {
        sc_node node;
        assert_int_equal(sc_graph_node(g, i, &node), 0);
        (*streams)[i] = node.stream;
    }
    for (uint64_t i = 0; i < m; i++)
        assert_int_equal(sc_graph_edge(g, i, &(*pairs)[2 * i], &(*pairs)[2 * i + 1]), 0);
}

/* Same nodes' streams, edges, successors and answers as the full graph. */
static void assert_skeleton_of(sc_graph *full, sc_graph *sk)
{
    uint32_t n = sc_graph_node_count(full);
    assert_true(sc_graph_is_sealed(sk));
    assert_int_equal(sc_graph_node_count(sk), n);
    assert_int_equal(sc_graph_edge_count(sk), sc_graph_edge_count(full));
    assert_int_equal(sc_graph_stream_count(sk), sc_graph_stream_count(full));
    for (uint32_t i = 0; i < n; i++) {
        sc_node a, b;
        assert_int_equal(sc_graph_node(full, i, &a), 0);
        assert_int_equal(sc_graph_node(sk, i, &b), 0);
        assert_int_equal(b.stream, a.stream);
        assert_int_equal(b.kind, SC_KIND_KERNEL);
        assert_int_equal(b.name_len, 0);
        assert_int_equal(b.num_blocks, 0);
        const uint32_t *sa, *sb;
        uint32_t ca, cb;
        assert_int_equal(sc_graph_successors(full, i, &sa, &ca), 0);
        assert_int_equal(sc_graph_successors(sk, i, &sb, &cb), 0);
        assert_int_equal(cb, ca);
        if (ca)
            assert_memory_equal(sb, sa, ca * sizeof *sa);
    }
    for (uint64_t i = 0; i < sc_graph_edge_count(full); i++) {
        uint32_t s1, d1, s2, d2;
        assert_int_equal(sc_graph_edge(full, i, &s1, &d1), 0);
        assert_int_equal(sc_graph_edge(sk, i, &s2, &d2), 0);
        assert_int_equal(s2, s1);
        assert_int_equal(d2, d1);
    }
    assert_int_equal(sc_graph_build_index(full), 0);
    assert_int_equal(sc_graph_build_index(sk), 0);
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++) {
            bool x, y;
            assert_int_equal(sc_graph_reachable(full, a, b, &x), 0);
            assert_int_equal(sc_graph_reachable(sk, a, b, &y), 0);
            if (x != y)
                fail_msg("reachable(%u, %u): full %d, skeleton %d", a, b, x, y);
        }
}

/* Random graphs, chained streams or not, through the one-pass constructor. */
static void t_skeleton_matches_sealed(void **state)
{
    (void)state;
    uint64_t seed = 0x5CE1E7;
    for (int round = 0; round < 30; round++) {
        sc_graph *g = graph_new();
        uint32_t n = 1 + (uint32_t)(rnd(&seed) % 150);
        uint32_t streams = 1 + (uint32_t)(rnd(&seed) % 40);
        bool chained = round % 2 == 0;
        uint32_t last[40];
        for (uint32_t s = 0; s < 40; s++)
            last[s] = UINT32_MAX;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t s = (uint32_t)(rnd(&seed) % streams) * 1000003u;
            add_kernel(g, s, i % 2 ? "kernel_a" : "b");
            uint32_t slot = s / 1000003u;
            if (chained && last[slot] != UINT32_MAX)
                assert_int_equal(sc_graph_add_edge(g, last[slot], i), 0);
            last[slot] = i;
            if (i > 0 && rnd(&seed) % 3 == 0)
                assert_int_equal(sc_graph_add_edge(g, (uint32_t)(rnd(&seed) % i), i), 0);
        }
        assert_int_equal(sc_graph_seal(g), 0);
        uint32_t *st, *pairs;
        skeleton_arrays(g, &st, &pairs);
        sc_graph *sk = NULL;
        assert_int_equal(sc_graph_create_skeleton(n, st, sc_graph_edge_count(g), pairs, &sk), 0);
        assert_non_null(sk);
        assert_skeleton_of(g, sk);
        assert_true(sc_graph_memory(sk) > 0);
        free(st);
        free(pairs);
        sc_graph_destroy(sk);
        sc_graph_destroy(g);
    }
}

/* Bigger than one node chunk and one predecessor chunk. */
static void t_skeleton_large(void **state)
{
    (void)state;
    enum { N = 50000, S = 8 };
    uint32_t *streams = malloc(N * sizeof *streams);
    uint32_t *pairs = malloc(4 * N * sizeof *pairs);
    assert_non_null(streams);
    assert_non_null(pairs);
    uint64_t m = 0;
    for (uint32_t i = 0; i < N; i++) {
        streams[i] = i % S;
        if (i + S < N) {
            pairs[2 * m] = i;
            pairs[2 * m++ + 1] = i + S;
        }
        if (i % 13 == 0 && i + S + 5 < N) {
            pairs[2 * m] = i;
            pairs[2 * m++ + 1] = i + S + 5;
        }
    }
    sc_graph *sk = NULL;
    assert_int_equal(sc_graph_create_skeleton(N, streams, m, pairs, &sk), 0);
    assert_int_equal(sc_graph_edge_count(sk), m);
    assert_int_equal(sc_graph_stream_count(sk), S);
    for (uint64_t i = 0; i < m; i += 997) {
        uint32_t s, d;
        assert_int_equal(sc_graph_edge(sk, i, &s, &d), 0);
        assert_int_equal(s, pairs[2 * i]);
        assert_int_equal(d, pairs[2 * i + 1]);
    }
    assert_int_equal(sc_graph_build_index(sk), 0);
    uint64_t seed = 7;
    for (int q = 0; q < 300; q++) {
        uint32_t a = (uint32_t)(rnd(&seed) % N);
        uint32_t b = a + (uint32_t)(rnd(&seed) % 200);
        if (b >= N)
            b = N - 1;
        bool x, y;
        assert_int_equal(sc_graph_reachable(sk, a, b, &x), 0);
        assert_int_equal(sc_graph_reachable_bfs(sk, a, b, &y), 0);
        if (x != y)
            fail_msg("reachable(%u, %u): index %d, bfs %d", a, b, x, y);
    }
    free(streams);
    free(pairs);
    sc_graph_destroy(sk);
}

static void t_skeleton_errors(void **state)
{
    (void)state;
    const uint32_t streams[4] = {0, 1, 0, 1};
    sc_graph *sentinel = graph_new();
    sc_graph *g = sentinel;
    const uint32_t unknown[] = {0, 1, 2, 4};
    assert_int_equal(sc_graph_create_skeleton(4, streams, 2, unknown, &g), SC_ENOTFOUND);
    const uint32_t backwards[] = {2, 1};
    assert_int_equal(sc_graph_create_skeleton(4, streams, 1, backwards, &g), SC_EINVAL);
    const uint32_t loop[] = {1, 1};
    assert_int_equal(sc_graph_create_skeleton(4, streams, 1, loop, &g), SC_EINVAL);
    const uint32_t unsorted[] = {1, 2, 0, 3};
    assert_int_equal(sc_graph_create_skeleton(4, streams, 2, unsorted, &g), SC_EINVAL);
    const uint32_t unsorted_dst[] = {0, 3, 0, 2};
    assert_int_equal(sc_graph_create_skeleton(4, streams, 2, unsorted_dst, &g), SC_EINVAL);
    const uint32_t twice[] = {0, 2, 0, 2};
    assert_int_equal(sc_graph_create_skeleton(4, streams, 2, twice, &g), SC_EINVAL);
    assert_int_equal(sc_graph_create_skeleton(4, NULL, 0, NULL, &g), SC_EINVAL);
    assert_int_equal(sc_graph_create_skeleton(4, streams, 1, NULL, &g), SC_EINVAL);
    assert_int_equal(sc_graph_create_skeleton(0, NULL, 0, NULL, NULL), SC_EINVAL);
    assert_int_equal(sc_graph_create_skeleton(UINT32_MAX, streams, 0, NULL, &g), SC_ELIMIT);
    assert_ptr_equal(g, sentinel);
    sc_graph_destroy(sentinel);

    /* The empty graph is a valid skeleton. */
    g = NULL;
    assert_int_equal(sc_graph_create_skeleton(0, NULL, 0, NULL, &g), 0);
    assert_true(sc_graph_is_sealed(g));
    assert_int_equal(sc_graph_node_count(g), 0);
    assert_int_equal(sc_graph_stream_count(g), 0);
    assert_int_equal(sc_graph_build_index(g), 0);
    sc_graph_destroy(g);

    /* A skeleton is sealed: nothing can be added to it. */
    const uint32_t ok[] = {0, 2, 1, 3};
    assert_int_equal(sc_graph_create_skeleton(4, streams, 2, ok, &g), 0);
    assert_int_equal(sc_graph_add_edge(g, 0, 1), SC_EINVAL);
    assert_int_equal(add_node_rc(g), SC_EINVAL);
    bool r = false;
    assert_int_equal(sc_graph_reachable(g, 0, 2, &r), 0);
    assert_true(r);
    assert_int_equal(sc_graph_reachable(g, 0, 1, &r), 0);
    assert_false(r);
    sc_graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_empty_graph),
        cmocka_unit_test(t_node_roundtrip),
        cmocka_unit_test(t_add_node_errors),
        cmocka_unit_test(t_add_edge_errors),
        cmocka_unit_test(t_seal_sorts_and_dedups),
        cmocka_unit_test(t_predecessors),
        cmocka_unit_test(t_edge_order_random),
        cmocka_unit_test(t_unknown_ids_and_reflexive),
        cmocka_unit_test(t_reach_non_chain_streams),
        cmocka_unit_test(t_reach_many_streams),
        cmocka_unit_test(t_names_and_parse),
        cmocka_unit_test(t_huge_name),
        cmocka_unit_test(t_memory_accounting),
        cmocka_unit_test(t_large_handbuilt),
        cmocka_unit_test(t_skeleton_matches_sealed),
        cmocka_unit_test(t_skeleton_large),
        cmocka_unit_test(t_skeleton_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
