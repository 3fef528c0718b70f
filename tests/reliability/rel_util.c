#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "rel_util.h"

int sc_rel_setup(void **state)
{
    sc_rel_fixture *f = calloc(1, sizeof(*f));
    if (!f)
        return -1;
    f->arg = *state;
    *state = f;
    return 0;
}

int sc_rel_teardown(void **state)
{
    sc_rel_fixture *f = *state;
    for (int i = 0; f && i < SC_REL_MAX_DAEMONS; i++)
        sc_it_daemon_destroy(f->daemons[i]);
    free(f);
    *state = NULL;
    return 0;
}

void sc_rel_adopt(void **state, sc_it_daemon *d)
{
    sc_rel_fixture *f = *state;
    for (int i = 0; i < SC_REL_MAX_DAEMONS; i++)
        if (!f->daemons[i]) {
            f->daemons[i] = d;
            return;
        }
    sc_it_daemon_destroy(d);
    fail_msg("more than %d daemons in one test", SC_REL_MAX_DAEMONS);
}

sc_it_daemon *sc_rel_must_start(void **state, const char *const *extra)
{
    sc_it_daemon *d;
    int rc = sc_it_daemon_create(&d);
    if (rc != 0)
        fail_msg("cannot make a temporary directory: %s", strerror(-rc));
    sc_rel_adopt(state, d);
    sc_it_must_restart(d, extra);
    return d;
}

double sc_rel_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void sc_rel_must_put(sc_rel_text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        assert_true(n >= 0);
        if (t->s && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        t->cap = (t->cap + (size_t)n + 1) * 2;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
}

bool sc_rel_timed_call(sc_it_conn *c, const char *method, const char *params, double *worst_ms)
{
    cJSON *reply = NULL;
    double t0 = sc_rel_now_ms();
    int rc = params ? sc_it_try_call(c, &reply, method, "%s", params)
                    : sc_it_try_call(c, &reply, method, NULL);
    double dt = sc_rel_now_ms() - t0;
    bool ok = rc == 0 && reply && cJSON_GetObjectItem(reply, "result");
    cJSON_Delete(reply);
    if (dt > *worst_ms)
        *worst_ms = dt;
    return ok;
}

long sc_rel_rss_kib(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[256];
    long kib = -1;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "VmRSS:", 6) == 0) {
            kib = strtol(line + 6, NULL, 10);
            break;
        }
    }
    fclose(f);
    return kib;
}

long sc_rel_env_long(const char *name, long fallback)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return fallback;
    char *end;
    errno = 0;
    long n = strtol(v, &end, 0);
    return errno || *end ? fallback : n;
}

void sc_rel_rng_seed(sc_rel_rng *r, uint64_t seed)
{
    /* xorshift has one bad state: zero. */
    r->s = seed ? seed : 0x9e3779b97f4a7c15ull;
}

uint64_t sc_rel_rng_next(sc_rel_rng *r)
{
    uint64_t x = r->s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    r->s = x;
    return x;
}

uint32_t sc_rel_rng_below(sc_rel_rng *r, uint32_t n)
{
    return (uint32_t)(sc_rel_rng_next(r) % n);
}

/* ---------------------------------------------------------------- SQLite */

static int open_ro(const char *db_path, sqlite3 **db, char *why, size_t whylen)
{
    int rc = sqlite3_open_v2(db_path, db, SQLITE_OPEN_READONLY, NULL);
    if (rc != SQLITE_OK) {
        snprintf(why, whylen, "open %s read-only: %s", db_path,
                 *db ? sqlite3_errmsg(*db) : "out of memory");
        sqlite3_close(*db);
        *db = NULL;
        return -1;
    }
    sqlite3_busy_timeout(*db, 10000);
    return 0;
}

/* Run `sql`; every row must be absent (or, with want_ok, the single text
 * "ok").  The first offending row is described in why. */
static int expect_no_rows(sqlite3 *db, const char *what, const char *sql, char *why, size_t whylen)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK) {
        snprintf(why, whylen, "%s: prepare: %s", what, sqlite3_errmsg(db));
        return -1;
    }
    rc = sqlite3_step(st);
    int result = 0;
    if (rc == SQLITE_ROW) {
        size_t off = (size_t)snprintf(why, whylen, "%s:", what);
        for (int i = 0; i < sqlite3_column_count(st) && off < whylen; i++) {
            const unsigned char *t = sqlite3_column_text(st, i);
            off += (size_t)snprintf(why + off, whylen - off, " %s=%s", sqlite3_column_name(st, i),
                                    t ? (const char *)t : "NULL");
        }
        result = -1;
    } else if (rc != SQLITE_DONE) {
        snprintf(why, whylen, "%s: %s", what, sqlite3_errmsg(db));
        result = -1;
    }
    sqlite3_finalize(st);
    return result;
}

static int single_int(sqlite3 *db, const char *sql, int64_t *out, char *why, size_t whylen)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        snprintf(why, whylen, "%s: %s", sql, sqlite3_errmsg(db));
        sqlite3_finalize(st);
        return -1;
    }
    *out = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return 0;
}

static int integrity_ok(sqlite3 *db, char *why, size_t whylen)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    const unsigned char *t = rc == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
    int result = 0;
    if (!t || strcmp((const char *)t, "ok") != 0) {
        snprintf(why, whylen, "PRAGMA integrity_check: %s",
                 t ? (const char *)t : sqlite3_errmsg(db));
        result = -1;
    }
    sqlite3_finalize(st);
    return result;
}

/* What every database must satisfy, as queries for the rows that break it. */
static const struct {
    const char *what, *sql;
} db_rules[] = {
    {"graph row whose node_count differs from its nodes",
     "SELECT g.graph, g.node_count, (SELECT count(*) FROM nodes n WHERE n.graph = g.graph)"
     " AS stored FROM graphs g WHERE g.node_count <>"
     " (SELECT count(*) FROM nodes n WHERE n.graph = g.graph)"},
    {"graph row whose edge_count differs from its edges",
     "SELECT g.graph, g.edge_count, (SELECT count(*) FROM edges e WHERE e.graph = g.graph)"
     " AS stored FROM graphs g WHERE g.edge_count <>"
     " (SELECT count(*) FROM edges e WHERE e.graph = g.graph)"},
    /* The nodes and edges views are both read out of node_chunks; asking
     * the table spares expanding every node of the database through
     * json_each (minutes for a 2M-node graph). */
    {"nodes or edges of a graph that has no graphs row",
     "SELECT DISTINCT graph FROM node_chunks WHERE graph NOT IN (SELECT graph FROM graphs)"},
    {"completed log row whose graph is missing",
     "SELECT session, graph FROM capture_log WHERE outcome = 'completed'"
     " AND graph_deleted_at IS NULL AND graph NOT IN (SELECT graph FROM graphs)"},
    {"graph row without a completed log row",
     "SELECT g.graph, g.session FROM graphs g WHERE NOT EXISTS"
     " (SELECT 1 FROM capture_log l WHERE l.session = g.session"
     " AND l.outcome = 'completed' AND l.graph = g.graph)"},
};

int sc_rel_check_db(const char *db_path, int64_t *graphs, char *why, size_t whylen)
{
    sqlite3 *db = NULL;
    if (open_ro(db_path, &db, why, whylen) != 0)
        return -1;
    /* One read transaction: all checks see the same snapshot. */
    int rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        snprintf(why, whylen, "BEGIN: %s", sqlite3_errmsg(db));
        sqlite3_close(db);
        return -1;
    }
    int64_t n = 0;
    int result = integrity_ok(db, why, whylen);
    for (size_t i = 0; result == 0 && i < sizeof(db_rules) / sizeof(db_rules[0]); i++)
        result = expect_no_rows(db, db_rules[i].what, db_rules[i].sql, why, whylen);
    if (result == 0)
        result = single_int(db, "SELECT count(*) FROM graphs", &n, why, whylen);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(db);
    if (result == 0 && graphs)
        *graphs = n;
    return result;
}

int sc_rel_db_graph_counts(const char *db_path, int64_t graph, int64_t *nodes, int64_t *edges,
                           char *why, size_t whylen)
{
    sqlite3 *db = NULL;
    if (open_ro(db_path, &db, why, whylen) != 0)
        return -EIO;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT node_count, edge_count FROM graphs WHERE graph = ?1",
                                -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, graph);
        rc = sqlite3_step(st);
    }
    int result = 0;
    if (rc == SQLITE_ROW) {
        *nodes = sqlite3_column_int64(st, 0);
        *edges = sqlite3_column_int64(st, 1);
    } else if (rc == SQLITE_DONE) {
        result = -ENOENT;
    } else {
        snprintf(why, whylen, "graphs row %lld: %s", (long long)graph, sqlite3_errmsg(db));
        result = -EIO;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return result;
}

/* ----------------------------------------------------------------- wire */

int sc_rel_pipeline(sc_it_conn *c, char **lines, size_t n, cJSON **replies)
{
    for (size_t i = 0; i < n; i++)
        replies[i] = NULL;
    int rc = sc_it_send_lines(c, lines, n);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = sc_it_recv_json(c, &replies[i]);
    return rc;
}

bool sc_rel_result_int(const cJSON *reply, const char *name, int64_t *out)
{
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(reply, "result");
    return cJSON_IsObject(res) && sc_it_json_int(res, name, out);
}

bool sc_rel_error_code(const cJSON *reply, int64_t *code)
{
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(reply, "error");
    return cJSON_IsObject(err) && sc_it_json_int(err, "code", code);
}

const char *sc_rel_error_kind(const cJSON *reply)
{
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(reply, "error");
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(err, "data");
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(data, "kind");
    return cJSON_IsString(kind) ? kind->valuestring : NULL;
}

/* ------------------------------------------------------ cmocka helpers */

static char *line_fmt(int64_t id, const char *method, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static char *line_fmt(int64_t id, const char *method, const char *fmt, ...)
{
    char *params = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&params, fmt, ap);
    va_end(ap);
    if (n < 0)
        fail_msg("out of memory");
    char *line = sc_it_format_request(id, method, params);
    free(params);
    if (!line)
        fail_msg("out of memory");
    return line;
}

int64_t sc_rel_must_graph(sc_it_conn *c, const char *label, int kernels, int64_t *nodes,
                          int64_t *edges)
{
    long long s = (long long)sc_it_open_session(c, label);
    size_t cap = (size_t)kernels * 2 + 8, n = 0;
    char **lines = calloc(cap, sizeof(char *));
    if (!lines)
        fail_msg("out of memory");
    for (unsigned st = 0; st < 2; st++)
        lines[n++] =
            line_fmt(sc_it_next_id(c), "capture.begin", "{\"session\":%lld,\"stream\":%u}", s, st);
    for (int i = 0; i < kernels; i++) {
        lines[n++] = line_fmt(sc_it_next_id(c), "capture.record_kernel",
                              "{\"session\":%lld,\"stream\":%d,\"function_name\":\"k%d\","
                              "\"num_blocks\":%d,\"threads_per_block\":128}",
                              s, i % 2, i, i + 1);
        if (i % 16 == 15)
            lines[n++] = line_fmt(sc_it_next_id(c), "capture.record_event",
                                  "{\"session\":%lld,\"stream\":0,\"event\":%d}", s, i);
        if (i % 16 == 15)
            lines[n++] = line_fmt(sc_it_next_id(c), "capture.wait_event",
                                  "{\"session\":%lld,\"stream\":1,\"event\":%d}", s, i);
    }
    lines[n++] = line_fmt(sc_it_next_id(c), "capture.end", "{\"session\":%lld,\"stream\":0}", s);
    cJSON **replies = calloc(n, sizeof(cJSON *));
    if (!replies)
        fail_msg("out of memory");
    int rc = sc_rel_pipeline(c, lines, n, replies);
    if (rc != 0)
        fail_msg("pipelined capture of %d kernels: transport error %d", kernels, rc);
    for (size_t i = 0; i + 1 < n; i++)
        if (!cJSON_GetObjectItemCaseSensitive(replies[i], "result")) {
            char *text = sc_it_json_text(replies[i]);
            fail_msg("request %s\n  expected a result\n  got %s", lines[i], text);
        }
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(replies[n - 1], "result");
    if (!res) {
        char *text = sc_it_json_text(replies[n - 1]);
        fail_msg("request %s\n  expected a result\n  got %s", lines[n - 1], text);
    }
    int64_t graph = sc_it_int(res, "graph");
    if (nodes)
        *nodes = sc_it_int(res, "node_count");
    if (edges)
        *edges = sc_it_int(res, "edge_count");
    assert_int_equal(sc_it_int(res, "node_count"), kernels);
    for (size_t i = 0; i < n; i++) {
        cJSON_Delete(replies[i]);
        free(lines[i]);
    }
    free(replies);
    free(lines);
    return graph;
}

int64_t sc_rel_must_count_graphs(sc_it_conn *c)
{
    cJSON *res = sc_it_must_result(c, "graph.list", "{\"limit\":10000}");
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(res, "graphs");
    if (!cJSON_IsArray(list)) {
        char *text = sc_it_json_text(res);
        fail_msg("graph.list result lacks a graphs array: %.1000s", text);
    }
    int64_t n = cJSON_GetArraySize(list);
    cJSON_Delete(res);
    return n;
}
