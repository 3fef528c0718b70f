/*
 * reach_bench.c - the SQL side of the reachability figure: how long a
 * recursive CTE takes to answer "does A happen before B" on a stored graph,
 * through the sqlite3 C API on the daemon's database file.
 *
 * The query is read from a file (bench/run takes it from docs/sql.md) and
 * uses the named parameters :graph, :from and :to; its first column of the
 * first row is the answer.  The pairs are those that
 * `streamcap-bench -c 1 -t reach --seed X` asks first (same generator and
 * seed), so both sides answer the same questions.
 *
 * usage: reach_bench --db PATH --query FILE --graph ID --nodes N
 *                    [--seed X] [--count K] [--budget SECONDS] [--json]
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "sc_args.h"
#include "sc_workload.h"

static void die(const char *what, const char *detail)
{
    sc_bench_fail("reach_bench", what, detail);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
        die("cannot read", path);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void bind_named(sqlite3_stmt *s, const char *name, int64_t v)
{
    int idx = sqlite3_bind_parameter_index(s, name);
    if (idx == 0)
        die("the query has no parameter", name);
    sqlite3_bind_int64(s, idx, v);
}

int main(int argc, char **argv)
{
    const char *db_path = NULL, *query_path = NULL;
    uint64_t graph = 0, nodes = 0, seed = 1, count = 20;
    double budget = 30;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json")) {
            json = true;
            continue;
        }
        if (!v)
            die("missing value for", a);
        i++;
        if (!strcmp(a, "--db"))
            db_path = v;
        else if (!strcmp(a, "--query"))
            query_path = v;
        else if (!strcmp(a, "--graph"))
            graph = sc_bench_arg_u64("reach_bench", a, v);
        else if (!strcmp(a, "--nodes"))
            nodes = sc_bench_arg_u64("reach_bench", a, v);
        else if (!strcmp(a, "--seed"))
            seed = sc_bench_arg_u64("reach_bench", a, v);
        else if (!strcmp(a, "--count"))
            count = sc_bench_arg_u64("reach_bench", a, v);
        else if (!strcmp(a, "--budget"))
            budget = strtod(v, NULL);
        else
            die("unknown option", a);
    }
    if (!db_path || !query_path || !graph || nodes < 2 || nodes > UINT32_MAX || count < 1)
        die("usage: reach_bench --db PATH --query FILE --graph ID --nodes N [--seed X] "
            "[--count K] [--budget SECONDS] [--json]",
            NULL);
    char *sql = read_file(query_path);
    sqlite3 *db;
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        die("cannot open database", db_path);
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        die("cannot prepare the query", sqlite3_errmsg(db));
    double *times = malloc(count * sizeof(*times));
    if (!times)
        die("out of memory", NULL);
    /* streamcap-bench's pair stream for connection 0. */
    uint64_t rng = seed * 0x9E3779B97F4A7C15ULL + 1;
    uint64_t done = 0, reachable = 0;
    double start = now_s();
    while (done < count && (done < 3 || now_s() - start < budget)) {
        uint32_t a, b;
        sc_wl_pair(&rng, (uint32_t)nodes, &a, &b);
        bind_named(s, ":graph", (int64_t)graph);
        bind_named(s, ":from", a);
        bind_named(s, ":to", b);
        double t0 = now_s();
        int rc = sqlite3_step(s);
        if (rc != SQLITE_ROW)
            die("the query returned no row", sqlite3_errmsg(db));
        reachable += sqlite3_column_int(s, 0) != 0;
        while (rc == SQLITE_ROW)
            rc = sqlite3_step(s);
        times[done++] = now_s() - t0;
        sqlite3_reset(s);
    }
    qsort(times, done, sizeof(*times), cmp_double);
    double median = done % 2 ? times[done / 2] : (times[done / 2 - 1] + times[done / 2]) / 2;
    if (json)
        printf("{\"queries\":%" PRIu64 ",\"reachable\":%" PRIu64
               ",\"median_ms\":%.3f,\"min_ms\":%.3f,\"max_ms\":%.3f}\n",
               done, reachable, median * 1e3, times[0] * 1e3, times[done - 1] * 1e3);
    else
        printf("%" PRIu64 " queries (%" PRIu64 " reachable): median %.3f ms, min %.3f, max %.3f\n",
               done, reachable, median * 1e3, times[0] * 1e3, times[done - 1] * 1e3);
    sqlite3_finalize(s);
    sqlite3_close(db);
    free(times);
    free(sql);
    return 0;
}
