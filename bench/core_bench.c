/*
 * core_bench.c - in-process figures for libstreamcap-core: recording rate,
 * live-session memory per node, capture end (seal), hand-built graph load,
 * index build time, and index query time against BFS in the same run.
 *
 * Workload: a capture-like stream of ops over a few streams, round robin
 * with occasional repeats, a fork/join (record_event on one stream,
 * wait_event on another) every 64 ops, kernel names from a set of eight.
 * Every figure is the median of --reps runs; query and BFS batches are
 * interleaved (index, BFS, index, BFS, ...).
 *
 * The same workload is recorded again in cuda mode (sc_cuda.h), in the
 * same run: one capture begun on stream 1, the other streams forked into
 * it by waiting on an event, the same ops and fork/joins every 64 ops, and
 * every stream joined back to the origin before the end.  It records
 * through the typed calls (sc_cuda_record_kernel and friends), as the
 * daemon and a runtime shim do, and once more through sc_cuda_record with
 * an sc_node per op; the default mode's rep and the two cuda-mode reps
 * alternate, and each ratio is the median of the per-rep ratios.
 *
 * usage: streamcap-core-bench [--reps N] [--record-ops N] [--index-nodes N]
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sc_bench_core.h"
#include "sc_capture.h"
#include "sc_cuda.h"
#include "sc_graph.h"

static const char *const kernel_names[] = {"gemm",    "relu",   "softmax",  "layernorm",
                                           "attn_qk", "attn_v", "gelu_fwd", "dropout"};
static size_t kernel_lens[8];

static void check(int rc, const char *what)
{
    sc_bench_check("core-bench", rc, what);
}

typedef struct drive_stats {
    uint64_t calls; /* every API call made, event ops included */
} drive_stats;

/* Record `nodes` ops on `streams` streams (already begun). */
static void drive(sc_capture *cap, uint32_t nodes, uint32_t streams, uint64_t seed, drive_stats *st)
{
    uint32_t s = 0;
    uint64_t calls = 0;
    for (uint32_t i = 0; i < nodes; i++) {
        uint64_t x = sc_bench_rnd(&seed);
        if ((x & 7) != 0 && ++s == streams)
            s = 0;
        if ((i & 63) == 63) {
            uint32_t other =
                (s + 1 + (uint32_t)(x >> 40) % (streams - 1 ? streams - 1 : 1)) % streams;
            check(sc_capture_record_event(cap, s, s), "record_event");
            check(sc_capture_wait_event(cap, other, s), "wait_event");
            calls += 2;
        }
        uint32_t kind = (uint32_t)(x >> 16) & 15, name = (uint32_t)(x >> 24) & 7;
        int rc;
        if (kind < 12)
            rc = sc_capture_record_kernel(cap, s, kernel_names[name], kernel_lens[name],
                                          1 + ((uint32_t)(x >> 32) & 255), 256, 0, NULL);
        else if (kind < 14)
            rc = sc_capture_record_memcpy(cap, s, "copy", 4, SC_DIR_DEVICE_TO_DEVICE, 1 << 20, 0, 0,
                                          NULL);
        else if (kind < 15)
            rc = sc_capture_record_memset(cap, s, "zero", 4, 4096, 0, NULL);
        else
            rc = sc_capture_record_host_callback(cap, s, "step", 4, NULL);
        check(rc, "record");
        calls++;
    }
    st->calls += calls;
}

/* The drive() workload in cuda mode: streams 1 .. streams, all members of
 * one capture whose origin is stream 1.  Record ops only are counted in
 * `nodes`; event ops go to st->calls like the default mode's.  `typed`
 * records through the typed calls (sc_cuda_record_kernel and friends) as
 * the daemon and a runtime shim do, else through sc_cuda_record with an
 * sc_node filled per op. */
static void cuda_drive(sc_cuda *cu, uint32_t nodes, uint32_t streams, uint64_t seed, bool typed,
                       drive_stats *st)
{
    uint32_t s = 0;
    uint64_t calls = 0;
    sc_node n;
    memset(&n, 0, sizeof n);
    for (uint32_t i = 0; i < nodes; i++) {
        uint64_t x = sc_bench_rnd(&seed);
        if ((x & 7) != 0 && ++s == streams)
            s = 0;
        if ((i & 63) == 63) {
            uint32_t other =
                (s + 1 + (uint32_t)(x >> 40) % (streams - 1 ? streams - 1 : 1)) % streams;
            check(sc_cuda_record_event(cu, s + 1, 0, s, false, NULL), "record_event");
            check(sc_cuda_wait_event(cu, other + 1, 0, s, false, NULL), "wait_event");
            calls += 2;
        }
        uint32_t kind = (uint32_t)(x >> 16) & 15, name = (uint32_t)(x >> 24) & 7;
        int rc;
        if (typed) {
            if (kind < 12)
                rc = sc_cuda_record_kernel(cu, s + 1, 0, kernel_names[name], kernel_lens[name],
                                           1 + ((uint32_t)(x >> 32) & 255), 256, 0, NULL);
            else if (kind < 14)
                rc = sc_cuda_record_memcpy(cu, s + 1, 0, "copy", 4, SC_DIR_DEVICE_TO_DEVICE,
                                           1 << 20, 0, 0, NULL);
            else if (kind < 15)
                rc = sc_cuda_record_memset(cu, s + 1, 0, "zero", 4, 4096, 0, NULL);
            else
                rc = sc_cuda_record_host_callback(cu, s + 1, 0, "step", 4, NULL);
            check(rc, "record");
            calls++;
            continue;
        }
        if (kind < 12) {
            n.kind = SC_KIND_KERNEL;
            n.name = kernel_names[name];
            n.name_len = kernel_lens[name];
            n.num_blocks = 1 + ((uint32_t)(x >> 32) & 255);
            n.threads_per_block = 256;
        } else if (kind < 14) {
            n.kind = SC_KIND_MEMCPY;
            n.name = "copy";
            n.name_len = 4;
            n.dir = SC_DIR_DEVICE_TO_DEVICE;
            n.size_bytes = 1 << 20;
        } else if (kind < 15) {
            n.kind = SC_KIND_MEMSET;
            n.name = "zero";
            n.name_len = 4;
            n.size_bytes = 4096;
        } else {
            n.kind = SC_KIND_HOST_CALLBACK;
            n.name = "step";
            n.name_len = 4;
        }
        check(sc_cuda_record(cu, s + 1, 0, &n, NULL), "record");
        calls++;
    }
    st->calls += calls;
}

/* Begin on stream 1 and fork streams 2 .. streams into the capture. */
static sc_cuda *cuda_session(uint32_t streams)
{
    sc_cuda *cu;
    check(sc_cuda_create(&cu), "cuda create");
    check(sc_cuda_begin(cu, 1, SC_CUDA_GLOBAL, 0, NULL), "begin");
    check(sc_cuda_record_event(cu, 1, 0, 1000, false, NULL), "record_event");
    for (uint32_t s = 2; s <= streams; s++)
        check(sc_cuda_wait_event(cu, s, 0, 1000, false, NULL), "wait_event");
    return cu;
}

/* Join every stream back to the origin and end: the graph. */
static sc_graph *cuda_end(sc_cuda *cu, uint32_t streams)
{
    for (uint32_t s = 2; s <= streams; s++) {
        check(sc_cuda_record_event(cu, s, 0, 2000 + s, false, NULL), "record_event");
        check(sc_cuda_wait_event(cu, 1, 0, 2000 + s, false, NULL), "wait_event");
    }
    sc_cuda_end_result res;
    check(sc_cuda_end(cu, 1, 0, &res), "cuda end");
    sc_graph *g = res.graph;
    res.graph = NULL;
    sc_cuda_end_free(&res);
    return g;
}

static sc_capture *session(uint32_t streams)
{
    sc_capture *cap;
    check(sc_capture_create(&cap), "create");
    for (uint32_t s = 0; s < streams; s++)
        check(sc_capture_begin(cap, s), "begin");
    return cap;
}

static sc_graph *capture_graph(uint32_t nodes, uint32_t streams, uint64_t seed)
{
    sc_capture *cap = session(streams);
    drive_stats st = {0};
    drive(cap, nodes, streams, seed, &st);
    sc_graph *g;
    check(sc_capture_end(cap, 0, &g), "end");
    return g;
}

/* A capture-like graph with many tiny streams (the index fallback). */
static sc_graph *many_streams_graph(uint32_t streams, uint64_t seed)
{
    sc_capture *cap = session(streams);
    for (uint32_t round = 0; round < 5; round++)
        for (uint32_t s = 0; s < streams; s++) {
            uint64_t x = sc_bench_rnd(&seed);
            if ((x & 1) == 0)
                check(sc_capture_wait_event(cap, s, (uint32_t)(x >> 8) % 64), "wait");
            check(sc_capture_record_kernel(cap, s, "k", 1, 1, 32, 0, NULL), "record");
            if ((x & 6) == 0)
                check(sc_capture_record_event(cap, s, (uint32_t)(x >> 20) % 64), "event");
        }
    sc_graph *g;
    check(sc_capture_end(cap, 0, &g), "end");
    return g;
}

typedef struct pairs {
    uint32_t *a, *b;
    uint32_t n;
} pairs;

/* a < b always, so every query reaches the index comparison or the walk;
 * `near` > 0 bounds b - a. */
static pairs make_pairs(uint32_t nodes, uint32_t n, uint32_t near, uint64_t seed)
{
    pairs p = {malloc(n * sizeof(uint32_t)), malloc(n * sizeof(uint32_t)), n};
    if (!p.a || !p.b)
        exit(1);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t a = (uint32_t)(sc_bench_rnd(&seed) % (nodes - 1)), b;
        if (near)
            b = a + 1 + (uint32_t)(sc_bench_rnd(&seed) % near);
        else
            b = a + 1 + (uint32_t)(sc_bench_rnd(&seed) % (nodes - 1 - a));
        if (b >= nodes)
            b = nodes - 1;
        p.a[i] = a;
        p.b[i] = b;
    }
    return p;
}

static void free_pairs(pairs *p)
{
    free(p->a);
    free(p->b);
}

typedef int (*reach_fn)(const sc_graph *, uint32_t, uint32_t, bool *);

/* ns per query over the first `n` pairs; *yes counts true answers. */
static double time_queries(const sc_graph *g, reach_fn fn, const pairs *p, uint32_t n,
                           uint64_t *yes)
{
    uint64_t t = 0;
    double t0 = sc_bench_now_s();
    for (uint32_t i = 0; i < n; i++) {
        bool r;
        check(fn(g, p->a[i], p->b[i], &r), "reachable");
        t += r;
    }
    double dt = sc_bench_now_s() - t0;
    *yes += t;
    return dt * 1e9 / n;
}

static void verify_pairs(const sc_graph *g, const pairs *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        bool x, y;
        check(sc_graph_reachable(g, p->a[i], p->b[i], &x), "reachable");
        check(sc_graph_reachable_bfs(g, p->a[i], p->b[i], &y), "bfs");
        if (x != y) {
            fprintf(stderr, "core-bench: index and BFS disagree on (%u, %u)\n", p->a[i], p->b[i]);
            exit(1);
        }
    }
}

typedef struct query_result {
    double idx_ns, bfs_ns;
    double yes_frac;
} query_result;

/* Interleaved index and BFS batches over the same pairs. */
static query_result compare_queries(const sc_graph *g, const pairs *p, uint32_t idx_n,
                                    uint32_t bfs_n, int reps)
{
    double idx[16], bfs[16];
    uint64_t yes = 0, total = 0;
    for (int r = 0; r < reps; r++) {
        idx[r] = time_queries(g, sc_graph_reachable, p, idx_n, &yes);
        total += idx_n;
        bfs[r] = time_queries(g, sc_graph_reachable_bfs, p, bfs_n, &yes);
        total += bfs_n;
    }
    query_result q = {sc_bench_median(idx, reps), sc_bench_median(bfs, reps),
                      (double)yes / (double)total};
    return q;
}

static void usage(void)
{
    fprintf(stderr, "usage: streamcap-core-bench [--reps N] [--record-ops N] [--index-nodes N]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int reps = 5;
    uint32_t record_ops = 10000000, index_nodes = 1000000;
    const uint32_t streams = 8;
    /* Options come in pairs: --name value. */
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc)
            usage();
        long v = strtol(argv[i + 1], NULL, 10);
        if (strcmp(argv[i], "--reps") == 0 && v >= 3 && v <= 15)
            reps = (int)v;
        else if (strcmp(argv[i], "--record-ops") == 0 && v >= 1000)
            record_ops = (uint32_t)v;
        else if (strcmp(argv[i], "--index-nodes") == 0 && v >= 1000)
            index_nodes = (uint32_t)v;
        else
            usage();
    }
    for (int i = 0; i < 8; i++)
        kernel_lens[i] = strlen(kernel_names[i]);

    /* 1. recording, memory, end; 1b. the same recording in cuda mode,
     * typed calls and sc_cuda_record, interleaved rep by rep with the
     * default mode so that the ratios see the same machine load */
    double rec[16], endt[16], crec[16], cend[16], grec[16], ratio[16], gratio[16];
    size_t mem = 0, cmem = 0;
    uint64_t calls = 0, ccalls = 0, cedges = 0;
    for (int r = 0; r < reps; r++) {
        sc_capture *cap = session(streams);
        drive_stats st = {0};
        double t0 = sc_bench_now_s();
        drive(cap, record_ops, streams, 1234 + (uint64_t)r, &st);
        rec[r] = sc_bench_now_s() - t0;
        mem = sc_capture_memory(cap);
        calls = st.calls;
        sc_graph *g;
        t0 = sc_bench_now_s();
        check(sc_capture_end(cap, 0, &g), "end");
        endt[r] = sc_bench_now_s() - t0;
        sc_graph_destroy(g);

        for (int typed = 1; typed >= 0; typed--) {
            sc_cuda *cu = cuda_session(streams);
            drive_stats cst = {0};
            t0 = sc_bench_now_s();
            cuda_drive(cu, record_ops, streams, 1234 + (uint64_t)r, typed, &cst);
            double dt = sc_bench_now_s() - t0;
            if (typed) {
                crec[r] = dt;
                cmem = sc_cuda_memory(cu);
                ccalls = cst.calls;
            } else {
                grec[r] = dt;
            }
            t0 = sc_bench_now_s();
            g = cuda_end(cu, streams);
            if (typed)
                cend[r] = sc_bench_now_s() - t0;
            if (sc_graph_node_count(g) != record_ops) {
                fprintf(stderr, "core-bench: cuda graph has %u nodes\n", sc_graph_node_count(g));
                exit(1);
            }
            cedges = sc_graph_edge_count(g);
            sc_graph_destroy(g);
            sc_cuda_destroy(cu);
        }
        ratio[r] = rec[r] / crec[r];
        gratio[r] = rec[r] / grec[r];
    }
    double rec_s = sc_bench_median(rec, reps), end_s = sc_bench_median(endt, reps);
    double crec_s = sc_bench_median(crec, reps), cend_s = sc_bench_median(cend, reps),
           grec_s = sc_bench_median(grec, reps);
    double ratio_m = sc_bench_median(ratio, reps), gratio_m = sc_bench_median(gratio, reps);

    /* 2. index build on fresh graphs */
    double build[16], load[16];
    size_t graph_mem = 0, index_mem = 0;
    uint64_t edges = 0;
    for (int r = 0; r < reps; r++) {
        sc_graph *g = capture_graph(index_nodes, streams, 99);
        size_t before = sc_graph_memory(g);
        double t0 = sc_bench_now_s();
        check(sc_graph_build_index(g), "build_index");
        build[r] = sc_bench_now_s() - t0;
        graph_mem = before;
        index_mem = sc_graph_memory(g) - before;
        edges = sc_graph_edge_count(g);

        /* 3. the same graph loaded by hand, as from storage */
        sc_graph *h;
        t0 = sc_bench_now_s();
        check(sc_graph_create(&h), "create");
        for (uint32_t i = 0; i < sc_graph_node_count(g); i++) {
            sc_node n;
            check(sc_graph_node(g, i, &n), "node");
            check(sc_graph_add_node(h, &n, NULL), "add_node");
        }
        for (uint64_t i = 0; i < edges; i++) {
            uint32_t a, b;
            check(sc_graph_edge(g, i, &a, &b), "edge");
            check(sc_graph_add_edge(h, a, b), "add_edge");
        }
        check(sc_graph_seal(h), "seal");
        load[r] = sc_bench_now_s() - t0;
        sc_graph_destroy(h);
        sc_graph_destroy(g);
    }
    double build_s = sc_bench_median(build, reps), load_s = sc_bench_median(load, reps);

    /* 4. queries against BFS on the indexed 8-stream graph */
    sc_graph *g = capture_graph(index_nodes, streams, 99);
    check(sc_graph_build_index(g), "build_index");
    pairs far = make_pairs(index_nodes, 4000000, 0, 7);
    pairs near = make_pairs(index_nodes, 4000000, 64, 8);
    verify_pairs(g, &far, 200);
    verify_pairs(g, &near, 20000);
    query_result qf = compare_queries(g, &far, far.n, 200, reps);
    query_result qn = compare_queries(g, &near, near.n, 200000, reps);
    free_pairs(&far);
    free_pairs(&near);
    sc_graph_destroy(g);

    /* 5. the fallback: 2000 streams of 5 ops each */
    sc_graph *m = many_streams_graph(2000, 5);
    check(sc_graph_build_index(m), "build_index");
    uint32_t mn = sc_graph_node_count(m);
    pairs mp = make_pairs(mn, 200000, 0, 9);
    verify_pairs(m, &mp, 5000);
    query_result qm = compare_queries(m, &mp, mp.n, 5000, reps);
    free_pairs(&mp);
    sc_graph_destroy(m);

    double rate = record_ops / rec_s;
    double bpn = (double)mem / record_ops;
    printf("core bench: %d reps (medians), %u streams\n\n", reps, streams);
    printf("| figure | measured | target | met? |\n|---|---|---|---|\n");
    printf("| recording %u record ops (%llu API calls incl. events), ops/s | %.1f M/s (%.1f ns/op) "
           "| >= 10 M/s | %s |\n",
           record_ops, (unsigned long long)calls, rate / 1e6, rec_s * 1e9 / record_ops,
           rate >= 10e6 ? "yes" : "no");
    double crate = record_ops / crec_s, grate = record_ops / grec_s;
    printf("| cuda mode, typed calls: recording %u record ops (%llu API calls incl. events), "
           "ops/s | %.1f M/s (%.1f ns/op, %.2fx the default mode, median of per-rep ratios) "
           "| >= 10 M/s | %s |\n",
           record_ops, (unsigned long long)ccalls, crate / 1e6, crec_s * 1e9 / record_ops, ratio_m,
           crate >= 10e6 ? "yes" : "no");
    printf("| cuda mode, sc_cuda_record (an sc_node per op): the same ops | %.1f M/s (%.1f ns/op, "
           "%.2fx the default mode) | >= 10 M/s | %s |\n",
           grate / 1e6, grec_s * 1e9 / record_ops, gratio_m, grate >= 10e6 ? "yes" : "no");
    printf("| cuda mode: live-session memory per node (sc_cuda_memory / nodes) | %.1f B | - | - "
           "|\n",
           (double)cmem / record_ops);
    printf("| cuda mode: join back and end (unjoined check, seal) of %u nodes, %llu edges | %.1f "
           "ms | - | - |\n",
           record_ops, (unsigned long long)cedges, cend_s * 1e3);
    printf("| live-session memory per node (sc_capture_memory / nodes, names incl.) | %.1f B | <= "
           "48 B "
           "| %s |\n",
           bpn, bpn <= 48 ? "yes" : "no");
    printf("| capture end (seal, CSR build) of %u nodes | %.1f ms | - | - |\n", record_ops,
           end_s * 1e3);
    printf("| index build, %u nodes, %llu edges, %u streams | %.1f ms | <= 50 ms | %s |\n",
           index_nodes, (unsigned long long)edges, streams, build_s * 1e3,
           build_s <= 0.050 ? "yes" : "no");
    printf("| graph memory / index memory per node | %.1f B / %.1f B | - | - |\n",
           (double)graph_mem / index_nodes, (double)index_mem / index_nodes);
    printf("| hand-built load of the same graph (add_node, add_edge, seal) | %.1f ms | - | - |\n",
           load_s * 1e3);
    printf("| index query, random pairs a<b (%.1f%% true) | %.1f ns | <= 50 ns | %s |\n",
           qf.yes_frac * 100, qf.idx_ns, qf.idx_ns <= 50 ? "yes" : "no");
    printf("| BFS query, same pairs, same run | %.0f ns (index %.0fx faster) | - | - |\n",
           qf.bfs_ns, qf.bfs_ns / qf.idx_ns);
    printf("| index query, near pairs b-a<=64 (%.1f%% true) | %.1f ns | <= 50 ns | %s |\n",
           qn.yes_frac * 100, qn.idx_ns, qn.idx_ns <= 50 ? "yes" : "no");
    printf("| BFS query, same near pairs, same run | %.0f ns (index %.1fx faster) | - | - |\n",
           qn.bfs_ns, qn.bfs_ns / qn.idx_ns);
    printf("| fallback: %u nodes on 2000 streams, query (%.1f%% true) | %.0f ns | - | - |\n", mn,
           qm.yes_frac * 100, qm.idx_ns);
    printf("| BFS on the same pairs, same run | %.0f ns (index %.1fx faster) | - | - |\n",
           qm.bfs_ns, qm.bfs_ns / qm.idx_ns);
    return 0;
}
