/*
 * fp_bench.c - what fingerprints and graph.diff cost (bench/RESULTS.md,
 * "Fingerprints and graph.diff").
 *
 * A capture-like graph of N kernels on S streams (each stream a chain,
 * one node in eight also waiting on a recent node of another stream,
 * names from a small set) is
 *   - fingerprinted alone (sc_graph_fingerprint), and
 *   - written by the SQLite backend's writer (begin, write, commit of one
 *     submitted graph, as the writer thread runs it) with its
 *     fingerprints made inside the write, and again with them made
 *     beforehand, so the difference is what they add to the writer;
 *   - diffed against a copy with one kernel's num_blocks changed, and
 *     against a copy with one more kernel in the middle of a stream.
 * Each figure is the best of --reps runs.
 *
 * usage: fp_bench --db PATH [--nodes N] [--streams S] [--reps R]
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sc_diff.h"
#include "sc_fingerprint.h"
#include "sc_graph.h"
#include "store_backend.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void must(int rc, const char *what, const char *err)
{
    if (rc != 0) {
        fprintf(stderr, "fp_bench: %s failed (%d): %s\n", what, rc, err ? err : "");
        exit(2);
    }
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

/* The graph; `insert_at` < n adds one kernel there (its stream the
 * node's before it), `change_at` < n gives that node 7 blocks. */
static sc_graph *make(uint32_t n, uint32_t streams, uint32_t insert_at, uint32_t change_at)
{
    static const char *const names[] = {"gemm", "relu", "softmax", "layernorm",
                                        "attn", "add",  "dropout", "embed"};
    sc_graph *g;
    must(sc_graph_create(&g), "sc_graph_create", NULL);
    uint32_t *last = malloc(streams * sizeof *last);
    for (uint32_t s = 0; s < streams; s++)
        last[s] = UINT32_MAX;
    uint64_t seed = 42;
    uint32_t id = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = (uint32_t)(rnd(&seed) % streams), from = (uint32_t)rnd(&seed);
        const char *name = names[rnd(&seed) % 8];
        bool wait = rnd(&seed) % 8 == 0;
        for (int extra = i == insert_at; extra >= 0; extra--) {
            sc_node node = {.kind = SC_KIND_KERNEL,
                            .stream = s,
                            .name = extra ? "inserted" : name,
                            .name_len = strlen(extra ? "inserted" : name),
                            .num_blocks = i == change_at && !extra ? 7 : 4,
                            .threads_per_block = 256};
            must(sc_graph_add_node(g, &node, NULL), "sc_graph_add_node", NULL);
            if (last[s] != UINT32_MAX)
                must(sc_graph_add_edge(g, last[s], id), "sc_graph_add_edge", NULL);
            uint32_t other = last[from % streams];
            if (!extra && wait && other != UINT32_MAX && other != last[s])
                must(sc_graph_add_edge(g, other, id), "sc_graph_add_edge", NULL);
            last[s] = id++;
        }
    }
    free(last);
    must(sc_graph_seal(g), "sc_graph_seal", NULL);
    return g;
}

static double best(double a, double b)
{
    return a < b ? a : b;
}

static double time_fp(const sc_graph *g, int reps)
{
    double t = 1e30;
    for (int r = 0; r < reps; r++) {
        sc_fingerprint fp;
        double t0 = now_s();
        must(sc_graph_fingerprint(g, NULL, NULL, &fp), "sc_graph_fingerprint", NULL);
        t = best(t, now_s() - t0);
    }
    return t;
}

/* One submitted graph through the writer's begin, write and commit. */
static double time_write(sc_store_be *be, const sc_graph *g, bool fp_first)
{
    char err[512] = "";
    sc_store_job j = {.type = SC_STORE_JOB_COMMIT_GRAPH};
    j.u.commit.g = g;
    j.u.commit.label = "bench";
    j.u.commit.label_len = 5;
    j.u.commit.submitted = true;
    if (fp_first) {
        must(sc_graph_fingerprint(g, NULL, NULL, &j.u.commit.fp), "sc_graph_fingerprint", NULL);
        j.u.commit.fp_done = true;
    }
    double t0 = now_s();
    must(sc_store_sqlite_backend.begin(be, 0, err, sizeof err), "begin", err);
    must(sc_store_sqlite_backend.write(be, &j, err, sizeof err), "write", err);
    must(sc_store_sqlite_backend.commit(be, err, sizeof err), "commit", err);
    return now_s() - t0;
}

static double time_diff(const sc_graph *a, const sc_graph *b, int reps, sc_graph_diff *keep)
{
    double t = 1e30;
    for (int r = 0; r < reps; r++) {
        sc_graph_diff d;
        double t0 = now_s();
        must(sc_graph_diff_compute(a, b, &d), "sc_graph_diff_compute", NULL);
        t = best(t, now_s() - t0);
        if (r == reps - 1)
            *keep = d;
        else
            sc_graph_diff_free(&d);
    }
    return t;
}

int main(int argc, char **argv)
{
    const char *db = NULL;
    uint32_t n = 1000000, streams = 8;
    int reps = 3;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--db") == 0)
            db = argv[i + 1];
        else if (strcmp(argv[i], "--nodes") == 0)
            n = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--streams") == 0)
            streams = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--reps") == 0)
            reps = atoi(argv[i + 1]);
    }
    if (!db || n == 0 || streams == 0 || reps < 1) {
        fprintf(stderr, "usage: fp_bench --db PATH [--nodes N] [--streams S] [--reps R]\n");
        return 2;
    }
    sc_graph *g = make(n, streams, UINT32_MAX, UINT32_MAX);
    double fp = time_fp(g, reps);

    char err[512] = "";
    sc_store_config cfg = {.path = db, .host = "bench"};
    sc_store_be *be;
    must(sc_store_sqlite_backend.open(&cfg, &be, err, sizeof err), "open", err);
    must(sc_store_sqlite_backend.migrate(be, err, sizeof err), "migrate", err);
    double with = 1e30, without = 1e30;
    for (int r = 0; r < reps; r++) {
        with = best(with, time_write(be, g, false));
        without = best(without, time_write(be, g, true));
    }
    sc_store_sqlite_backend.close(be);

    sc_graph *changed = make(n, streams, UINT32_MAX, n / 2);
    sc_graph *inserted = make(n, streams, n / 2, UINT32_MAX);
    sc_graph_diff dc, di;
    double tc = time_diff(g, changed, reps, &dc), ti = time_diff(g, inserted, reps, &di);

    printf("nodes %u, edges %llu, streams %u, best of %d\n", n,
           (unsigned long long)sc_graph_edge_count(g), streams, reps);
    printf("fingerprint alone            %8.1f ms  %6.1f ns/node\n", fp * 1e3, fp * 1e9 / n);
    printf("writer, fingerprints inside  %8.1f ms  %6.1f ns/node\n", with * 1e3, with * 1e9 / n);
    printf("writer, fingerprints before  %8.1f ms  %6.1f ns/node\n", without * 1e3,
           without * 1e9 / n);
    printf("fingerprint / writer without  %.3f\n", fp / without);
    printf("diff, one node changed       %8.1f ms  (%zu changed, %zu added)\n", tc * 1e3,
           (size_t)dc.nchanged, (size_t)dc.nadded);
    printf("diff, one node inserted      %8.1f ms  (%zu changed, %zu added, %llu edges added)\n",
           ti * 1e3, (size_t)di.nchanged, (size_t)di.nadded, (unsigned long long)di.nedges_added);
    sc_graph_diff_free(&dc);
    sc_graph_diff_free(&di);
    sc_graph_destroy(g);
    sc_graph_destroy(changed);
    sc_graph_destroy(inserted);
    return 0;
}
