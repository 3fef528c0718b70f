/*
 * races_bench.c - graph.races' core on a large graph: the reachability
 * index build and sc_graph_find_races() timed apart.
 *
 * Graph: a skeleton of --nodes nodes on 8 streams, round robin with a
 * repeat of the same stream one op in eight, each stream a chain, and a
 * fork/join every 64 ops (an edge from the current stream's last node to
 * the next node of another stream), as core_bench's captures.
 *
 * Accesses: --accesses of them on random nodes; a node's buffer is chosen
 * from a window that moves with its id (--window nodes, default 256,
 * share two buffers, as a program's working set moves), 2 MiB apart, a random offset
 * within its first MiB and 4 KiB to 256 KiB long; half reads, a third
 * writes, the rest read_write.  Nodes close in id on streams not yet
 * joined race; the count is printed.
 *
 * Each figure is the median of --reps runs on the same graph (the index is
 * built afresh on a new skeleton each rep).
 *
 * usage: streamcap-races-bench [--reps N] [--nodes N] [--accesses N] [--window N]
 *        [--limit N]
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sc_bench_core.h"
#include "sc_races.h"

#define STREAMS 8

static void check(int rc, const char *what)
{
    sc_bench_check("races-bench", rc, what);
}

/* The fork/join skeleton; the edges come out in ascending (src, dst)
 * order as sc_graph_create_skeleton() wants them, since every node adds
 * its in-edges when it is created and those are sorted by source first. */
static sc_graph *skeleton(uint32_t n, uint64_t seed)
{
    uint32_t *streams = malloc((size_t)n * sizeof *streams);
    uint32_t *in = malloc((size_t)n * 2 * sizeof *in); /* dst-major: <= 2 per node */
    uint32_t *pairs = malloc((size_t)n * 4 * sizeof *pairs);
    uint32_t *cnt = calloc(n, sizeof *cnt);
    uint32_t last[STREAMS];
    if (!streams || !in || !pairs || !cnt)
        check(SC_ENOMEM, "skeleton");
    for (int s = 0; s < STREAMS; s++)
        last[s] = UINT32_MAX;
    uint32_t s = 0, join_from = UINT32_MAX;
    for (uint32_t v = 0; v < n; v++) {
        uint64_t x = sc_bench_rnd(&seed);
        if ((x & 7) != 0 && ++s == STREAMS)
            s = 0;
        streams[v] = s;
        if (last[s] != UINT32_MAX)
            in[2 * v + cnt[v]++] = last[s];
        if (join_from != UINT32_MAX && join_from != last[s]) {
            in[2 * v + cnt[v]++] = join_from;
            if (cnt[v] == 2 && in[2 * v] > in[2 * v + 1]) {
                uint32_t t = in[2 * v];
                in[2 * v] = in[2 * v + 1];
                in[2 * v + 1] = t;
            }
        }
        join_from = UINT32_MAX;
        last[s] = v;
        if ((v & 63) == 63)
            join_from = v; /* the next node, on another stream, waits on it */
    }
    /* ascending (src, dst): count sources, then place */
    uint32_t *start = calloc((size_t)n + 1, sizeof *start);
    if (!start)
        check(SC_ENOMEM, "skeleton");
    uint64_t m = 0;
    for (uint32_t v = 0; v < n; v++)
        for (uint32_t i = 0; i < cnt[v]; i++, m++)
            start[in[2 * v + i] + 1]++;
    for (uint32_t v = 0; v < n; v++)
        start[v + 1] += start[v];
    for (uint32_t v = 0; v < n; v++)
        for (uint32_t i = 0; i < cnt[v]; i++) {
            uint32_t u = in[2 * v + i], at = start[u]++;
            pairs[2 * at] = u;
            pairs[2 * at + 1] = v;
        }
    sc_graph *g;
    check(sc_graph_create_skeleton(n, streams, m, pairs, &g), "create_skeleton");
    free(streams);
    free(in);
    free(pairs);
    free(cnt);
    free(start);
    return g;
}

static sc_node_access *accesses(uint32_t n, size_t k, uint32_t window, uint64_t seed)
{
    sc_node_access *a = malloc(k * sizeof *a);
    if (!a)
        check(SC_ENOMEM, "accesses");
    for (size_t i = 0; i < k; i++) {
        uint64_t x = sc_bench_rnd(&seed), y = sc_bench_rnd(&seed);
        uint32_t v = (uint32_t)(x % n);
        uint64_t buf = v / window + (y & 1);
        unsigned m = (unsigned)(y >> 8) % 6;
        a[i].node = v;
        a[i].access.address = 0x7f0000000000ULL + buf * (2u << 20) + ((y >> 16) % (1u << 20));
        a[i].access.size = 4096 + (y >> 40) % (252u << 10);
        a[i].access.mode = m < 3 ? SC_ACCESS_READ : m < 5 ? SC_ACCESS_WRITE : SC_ACCESS_READ_WRITE;
    }
    return a;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: streamcap-races-bench [--reps N] [--nodes N] [--accesses N] [--window N] "
            "[--limit N]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int reps = 5;
    uint32_t nodes = 1000000;
    size_t nacc = 100000, limit = 1000;
    uint32_t window = 256;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc)
            usage();
        long v = strtol(argv[i + 1], NULL, 10);
        if (strcmp(argv[i], "--reps") == 0 && v >= 1 && v <= 15)
            reps = (int)v;
        else if (strcmp(argv[i], "--nodes") == 0 && v >= 1000 && v <= 100000000)
            nodes = (uint32_t)v;
        else if (strcmp(argv[i], "--accesses") == 0 && v >= 1)
            nacc = (size_t)v;
        else if (strcmp(argv[i], "--window") == 0 && v >= 1 && v <= UINT32_MAX)
            window = (uint32_t)v;
        else if (strcmp(argv[i], "--limit") == 0 && v >= 0)
            limit = (size_t)v;
        else
            usage();
    }
    sc_node_access *acc = accesses(nodes, nacc, window, 42);
    sc_race *out = malloc((limit ? limit : 1) * sizeof *out);
    if (!out)
        check(SC_ENOMEM, "rows");
    double build[16], find[16];
    uint64_t count = 0, edges = 0;
    size_t nout = 0;
    for (int r = 0; r < reps; r++) {
        sc_graph *g = skeleton(nodes, 7);
        edges = sc_graph_edge_count(g);
        double t0 = sc_bench_now_s();
        check(sc_graph_build_index(g), "build_index");
        build[r] = sc_bench_now_s() - t0;
        t0 = sc_bench_now_s();
        check(sc_graph_find_races(g, acc, nacc, limit, out, &nout, &count), "find_races");
        find[r] = sc_bench_now_s() - t0;
        sc_graph_destroy(g);
    }
    double b = sc_bench_median(build, reps), f = sc_bench_median(find, reps);
    printf("races bench: %d reps (medians), %u nodes, %llu edges, %d streams, %zu accesses, "
           "window %u\n\n",
           reps, nodes, (unsigned long long)edges, STREAMS, nacc, window);
    printf("| figure | measured | target | met? |\n|---|---|---|---|\n");
    printf("| index build | %.1f ms | - | - |\n", b * 1e3);
    printf("| race analysis (%llu races, first %zu kept) | %.1f ms | - | - |\n",
           (unsigned long long)count, nout, f * 1e3);
    printf("| index build + race analysis | %.1f ms | < 2 s | %s |\n", (b + f) * 1e3,
           b + f < 2.0 ? "yes" : "no");
    free(acc);
    free(out);
    return 0;
}
