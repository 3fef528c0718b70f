/*
 * pg_persist.c - a 1M-node graph stored by the PostgreSQL backend (COPY,
 * text and binary) against psql's plain \copy of the same rows into the
 * same tables, interleaved round by round.  Run by bench/pg_persist/run
 * under tests/pg/cluster.sh (STREAMCAP_TEST_PG, PGHOST...).
 *
 *   pg_persist [NODES] [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sc_graph.h"
#include "store_backend.h"
#include "store_pg.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static sc_graph *make(uint32_t n)
{
    sc_graph *g;
    if (sc_graph_create(&g))
        exit(1);
    for (uint32_t i = 0; i < n; i++) {
        sc_node node = {.kind = SC_KIND_KERNEL,
                        .stream = i % 8,
                        .name = "gemm_kernel",
                        .name_len = 11,
                        .num_blocks = 128,
                        .threads_per_block = 256};
        uint32_t id;
        if (sc_graph_add_node(g, &node, &id) || (i >= 8 && sc_graph_add_edge(g, i - 8, i)) ||
            (i >= 1 && i % 64 == 0 && sc_graph_add_edge(g, i - 1, i)))
            exit(1);
    }
    sc_graph_seal(g);
    return g;
}

static void must(int rc, const char *what, const char *err)
{
    if (rc) {
        fprintf(stderr, "pg_persist: %s: %d %s\n", what, rc, err);
        exit(1);
    }
}

static void wipe(void)
{
    if (system("psql -X -q -c 'TRUNCATE nodes, edges, graphs, graph_index, capture_log'") != 0)
        exit(1);
}

static double via_backend(sc_store_be *be, const sc_graph *g, bool binary)
{
    char err[256] = "";
    store_pg_set_copy_binary(be, binary);
    sc_store_job j = {.type = SC_STORE_JOB_COMMIT_GRAPH};
    j.u.commit.g = g;
    j.u.commit.submitted = true;
    j.u.commit.label = "bench";
    j.u.commit.label_len = 5;
    double t = now_s();
    must(sc_store_pg_backend.begin(be, 0, err, sizeof err), "begin", err);
    must(sc_store_pg_backend.write(be, &j, err, sizeof err), "write", err);
    must(sc_store_pg_backend.commit(be, err, sizeof err), "commit", err);
    return now_s() - t;
}

static double via_psql(void)
{
    double t = now_s();
    if (system("psql -X -q -v ON_ERROR_STOP=1 -c 'BEGIN' -c \"\\copy nodes (graph, id, kind,"
               " stream, name, num_blocks, threads_per_block, shared_mem, dir, size_bytes,"
               " src_device, dst_device, value, grid_y, grid_z, block_y, block_z, event,"
               " name_bytes) FROM 'pg_persist.nodes'\" -c \"\\copy edges (graph, src, dst)"
               " FROM 'pg_persist.edges'\" -c 'COMMIT'") != 0)
        exit(1);
    return now_s() - t;
}

static void dump(const sc_graph *g, bool edges, const char *path)
{
    char *buf;
    size_t len;
    if (store_pg_copy_text(g, 999999999, edges, &buf, &len))
        exit(1);
    FILE *f = fopen(path, "w");
    if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
        exit(1);
    free(buf);
}

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 3;
    const char *uri = getenv("STREAMCAP_TEST_PG");
    if (!uri)
        return 77;
    sc_store_config cfg = {.path = uri, .host = "bench"};
    sc_store_be *be;
    char err[256] = "";
    must(sc_store_pg_backend.open(&cfg, &be, err, sizeof err), "open", err);
    must(sc_store_pg_backend.migrate(be, err, sizeof err), "migrate", err);
    sc_graph *g = make(n);
    dump(g, false, "pg_persist.nodes");
    dump(g, true, "pg_persist.edges");
    printf("nodes %u edges %llu rounds %d\n", n, (unsigned long long)sc_graph_edge_count(g),
           rounds);
    double best[3] = {1e9, 1e9, 1e9};
    for (int r = 0; r < rounds; r++) {
        double t[3];
        wipe();
        t[0] = via_psql();
        wipe();
        t[1] = via_backend(be, g, false);
        wipe();
        t[2] = via_backend(be, g, true);
        printf("round %d: psql \\copy %.3f s, backend text COPY %.3f s, binary COPY %.3f s\n", r,
               t[0], t[1], t[2]);
        for (int k = 0; k < 3; k++)
            best[k] = t[k] < best[k] ? t[k] : best[k];
    }
    printf("best: psql %.3f s, text %.3f s (%.2fx), binary %.3f s (%.2fx)\n", best[0], best[1],
           best[1] / best[0], best[2], best[2] / best[0]);
    remove("pg_persist.nodes");
    remove("pg_persist.edges");
    sc_graph_destroy(g);
    sc_store_pg_backend.close(be);
    return 0;
}
