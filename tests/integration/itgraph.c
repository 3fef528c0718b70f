/*
 * itgraph.c - stored-graph helpers for the query integration tests.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "itgraph.h"

/* ------------------------------------------------------------ randomness */

void sc_itg_rng_seed(sc_itg_rng *r, uint64_t seed)
{
    r->state = seed;
}

uint32_t sc_itg_rand(sc_itg_rng *r, uint32_t bound)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (uint32_t)(z % bound);
}

/* ------------------------------------------------------- pipelined calls */

struct sc_itg_batch {
    char **methods;
    char **params;
    size_t count, cap;
};

sc_itg_batch *sc_itg_batch_create(void)
{
    sc_itg_batch *b = calloc(1, sizeof(*b));
    assert_non_null(b);
    return b;
}

void sc_itg_batch_destroy(sc_itg_batch *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->count; i++) {
        free(b->methods[i]);
        free(b->params[i]);
    }
    free(b->methods);
    free(b->params);
    free(b);
}

void sc_itg_batch_add(sc_itg_batch *b, const char *method, const char *params_fmt, ...)
{
    if (b->count == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 64;
        b->methods = realloc(b->methods, b->cap * sizeof(*b->methods));
        b->params = realloc(b->params, b->cap * sizeof(*b->params));
        assert_true(b->methods && b->params);
    }
    char *params = NULL;
    if (params_fmt) {
        va_list ap;
        va_start(ap, params_fmt);
        int rc = vasprintf(&params, params_fmt, ap);
        va_end(ap);
        assert_true(rc >= 0);
    }
    b->methods[b->count] = strdup(method);
    assert_non_null(b->methods[b->count]);
    b->params[b->count++] = params;
}

size_t sc_itg_batch_count(const sc_itg_batch *b)
{
    return b->count;
}

cJSON **sc_itg_batch_run(sc_itg_batch *b, sc_it_conn *c)
{
    int64_t *ids = calloc(b->count + 1, sizeof(*ids));
    char **lines = calloc(b->count + 1, sizeof(*lines));
    cJSON **replies = calloc(b->count + 1, sizeof(*replies));
    assert_true(ids && lines && replies);
    for (size_t i = 0; i < b->count; i++) {
        ids[i] = sc_it_next_id(c);
        lines[i] = sc_it_format_request(ids[i], b->methods[i], b->params[i]);
        assert_non_null(lines[i]);
    }
    int rc = sc_it_send_lines(c, lines, b->count);
    if (rc != 0)
        fail_msg("sending %zu pipelined requests: error %d", b->count, rc);
    for (size_t i = 0; i < b->count; i++) {
        rc = sc_it_recv_json(c, &replies[i]);
        if (rc != 0)
            fail_msg("request %s\n  no reply: error %d", lines[i], rc);
        int64_t id;
        const cJSON *result = cJSON_GetObjectItemCaseSensitive(replies[i], "result");
        if (!sc_it_json_int(replies[i], "id", &id) || id != ids[i] || !result ||
            cJSON_GetObjectItemCaseSensitive(replies[i], "error")) {
            char *got = sc_it_json_text(replies[i]);
            fail_msg("request %s\n  expected a result with id %lld\n  got %s", lines[i],
                     (long long)ids[i], got);
        }
    }
    for (size_t i = 0; i < b->count; i++)
        free(lines[i]);
    free(lines);
    free(ids);
    return replies;
}

void sc_itg_replies_free(cJSON **replies, size_t n)
{
    if (!replies)
        return;
    for (size_t i = 0; i < n; i++)
        cJSON_Delete(replies[i]);
    free(replies);
}

/* ----------------------------------------------------- capture a graph */

/* Stream 0 first (the end's stream), then ids that stress the u32 range. */
static const uint32_t stream_ids[SC_ITG_MAX_STREAMS] = {0,   1,     2,           7,
                                                        100, 65536, 3000000000u, 4294967295u};

#define EVENTS 6

static void add_node(sc_itg_batch *b, int64_t s, uint32_t stream, uint32_t i, sc_itg_rng *r)
{
    static const char *const dirs[] = {"host_to_device", "device_to_host", "device_to_device",
                                       "peer_to_peer"};
    long long ss = (long long)s;
    switch (sc_itg_rand(r, 4)) {
    case 0:
        sc_itg_batch_add(b, "capture.record_kernel",
                         "{\"session\":%lld,\"stream\":%u,\"function_name\":\"kern_%u\","
                         "\"num_blocks\":%u,\"threads_per_block\":%u,\"shared_mem\":%u}",
                         ss, stream, i, 1 + sc_itg_rand(r, 4096), 32u << sc_itg_rand(r, 6),
                         sc_itg_rand(r, 3) * 1024);
        break;
    case 1: {
        uint32_t dir = sc_itg_rand(r, 4);
        if (dir == 3)
            sc_itg_batch_add(b, "capture.record_memcpy",
                             "{\"session\":%lld,\"stream\":%u,\"name\":\"copy_%u\",\"dir\":\"%s\","
                             "\"size_bytes\":%u,\"src_device\":%u,\"dst_device\":%u}",
                             ss, stream, i, dirs[dir], 1 + sc_itg_rand(r, 1u << 30),
                             sc_itg_rand(r, 8), sc_itg_rand(r, 8));
        else
            sc_itg_batch_add(b, "capture.record_memcpy",
                             "{\"session\":%lld,\"stream\":%u,\"name\":\"copy_%u\",\"dir\":\"%s\","
                             "\"size_bytes\":%u}",
                             ss, stream, i, dirs[dir], 1 + sc_itg_rand(r, 1u << 30));
        break;
    }
    case 2:
        sc_itg_batch_add(b, "capture.record_memset",
                         "{\"session\":%lld,\"stream\":%u,\"name\":\"fill_%u\",\"size_bytes\":%u,"
                         "\"value\":%u}",
                         ss, stream, i, sc_itg_rand(r, 1u << 20), sc_itg_rand(r, 256));
        break;
    default:
        sc_itg_batch_add(b, "capture.record_host_callback",
                         "{\"session\":%lld,\"stream\":%u,\"label\":\"host_%u\"}", ss, stream, i);
        break;
    }
}

int64_t sc_itg_capture_random(sc_it_conn *c, const char *label, uint32_t nodes, uint32_t streams,
                              uint64_t seed)
{
    assert_true(streams >= 1 && streams <= SC_ITG_MAX_STREAMS);
    sc_itg_rng r;
    sc_itg_rng_seed(&r, seed);
    int64_t s = sc_it_open_session(c, label);
    long long ss = (long long)s;
    sc_itg_batch *b = sc_itg_batch_create();
    for (uint32_t k = 0; k < streams; k++)
        sc_itg_batch_add(b, "capture.begin", "{\"session\":%lld,\"stream\":%u}", ss, stream_ids[k]);
    for (uint32_t i = 0; i < nodes; i++) {
        uint32_t stream = stream_ids[sc_itg_rand(&r, streams)];
        /* Fork/join traffic: point an event at another stream's head and wait on it. */
        if (sc_itg_rand(&r, 100) < 35) {
            uint32_t event = sc_itg_rand(&r, EVENTS);
            sc_itg_batch_add(b, "capture.record_event",
                             "{\"session\":%lld,\"stream\":%u,\"event\":%u}", ss,
                             stream_ids[sc_itg_rand(&r, streams)], event);
            sc_itg_batch_add(b, "capture.wait_event",
                             "{\"session\":%lld,\"stream\":%u,\"event\":%u}", ss, stream, event);
        }
        /* A wait on whatever an event points at now: often stale, sometimes redundant. */
        if (sc_itg_rand(&r, 100) < 10)
            sc_itg_batch_add(b, "capture.wait_event",
                             "{\"session\":%lld,\"stream\":%u,\"event\":%u}", ss, stream,
                             sc_itg_rand(&r, EVENTS));
        add_node(b, s, stream, i, &r);
    }
    sc_itg_batch_add(b, "capture.end", "{\"session\":%lld,\"stream\":0}", ss);
    cJSON **replies = sc_itg_batch_run(b, c);
    size_t n = sc_itg_batch_count(b);
    const cJSON *end = cJSON_GetObjectItemCaseSensitive(replies[n - 1], "result");
    int64_t graph = sc_it_int(end, "graph");
    int64_t node_count = sc_it_int(end, "node_count");
    if (node_count != nodes)
        fail_msg("capture.end of session %lld: node_count %lld, expected %u", ss,
                 (long long)node_count, nodes);
    sc_itg_replies_free(replies, n);
    sc_itg_batch_destroy(b);
    return graph;
}

/* ------------------------------------------------------ stored graphs */

static bool u32_at(const cJSON *v, uint32_t *out)
{
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 4294967295.0 ||
        v->valuedouble != (double)(uint32_t)v->valuedouble)
        return false;
    *out = (uint32_t)v->valuedouble;
    return true;
}

static void read_nodes(sc_itg_graph *g, const cJSON *nodes, const char *req)
{
    g->n = (uint32_t)cJSON_GetArraySize(nodes);
    g->stream = calloc(g->n + 1, sizeof(*g->stream));
    assert_non_null(g->stream);
    uint32_t i = 0;
    const cJSON *node;
    cJSON_ArrayForEach(node, nodes)
    {
        int64_t id;
        if (!sc_it_json_int(node, "id", &id) || id != i ||
            !u32_at(cJSON_GetObjectItemCaseSensitive(node, "stream"), &g->stream[i]))
            fail_msg("request %s\n  node %u: expected id %u and a u32 stream", req, i, i);
        i++;
    }
}

static void read_edges(sc_itg_graph *g, const cJSON *edges, const char *req)
{
    g->edge_count = (size_t)cJSON_GetArraySize(edges);
    g->edge_src = calloc(g->edge_count + 1, sizeof(uint32_t));
    g->edge_dst = calloc(g->edge_count + 1, sizeof(uint32_t));
    assert_true(g->edge_src && g->edge_dst);
    size_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, edges)
    {
        uint32_t a = 0, b = 0;
        if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 2 ||
            !u32_at(cJSON_GetArrayItem(e, 0), &a) || !u32_at(cJSON_GetArrayItem(e, 1), &b) ||
            a >= g->n || b >= g->n)
            fail_msg("request %s\n  edge %zu is not a [src, dst] pair of node ids", req, i);
        if (i > 0 &&
            (g->edge_src[i - 1] > a || (g->edge_src[i - 1] == a && g->edge_dst[i - 1] >= b)))
            fail_msg("request %s\n  edges not sorted ascending and distinct at %zu: [%u,%u] "
                     "after [%u,%u]",
                     req, i, a, b, g->edge_src[i - 1], g->edge_dst[i - 1]);
        g->edge_src[i] = a;
        g->edge_dst[i] = b;
        i++;
    }
}

/* One breadth-first search per node over an adjacency list: no reliance on id order. */
static void compute_closure(sc_itg_graph *g)
{
    uint32_t n = g->n;
    g->words = (n + 63) / 64;
    g->closure = calloc((size_t)n * g->words + 1, sizeof(uint64_t));
    size_t *start = calloc((size_t)n + 1, sizeof(size_t));
    uint32_t *adj = calloc(g->edge_count + 1, sizeof(uint32_t));
    uint32_t *queue = calloc((size_t)n + 1, sizeof(uint32_t));
    assert_true(g->closure && start && adj && queue);
    for (size_t i = 0; i < g->edge_count; i++)
        start[g->edge_src[i] + 1]++;
    for (uint32_t v = 0; v < n; v++)
        start[v + 1] += start[v];
    for (size_t i = 0; i < g->edge_count; i++)
        adj[i] = g->edge_dst[i]; /* edges are sorted by src, so CSR order is theirs */
    for (uint32_t a = 0; a < n; a++) {
        uint64_t *row = g->closure + (size_t)a * g->words;
        size_t head = 0, tail = 0;
        queue[tail++] = a;
        row[a / 64] |= 1ull << (a % 64);
        while (head < tail) {
            uint32_t v = queue[head++];
            for (size_t k = start[v]; k < start[v + 1]; k++) {
                uint32_t w = adj[k];
                if (!(row[w / 64] & (1ull << (w % 64)))) {
                    row[w / 64] |= 1ull << (w % 64);
                    queue[tail++] = w;
                }
            }
        }
    }
    free(start);
    free(adj);
    free(queue);
}

sc_itg_graph *sc_itg_fetch(sc_it_conn *c, int64_t graph)
{
    cJSON *reply = sc_it_call(c, "graph.get", "{\"graph\":%lld}", (long long)graph);
    const cJSON *res = sc_it_ok(c, reply);
    const char *req = sc_it_last_request(c);
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(res, "nodes");
    const cJSON *edges = cJSON_GetObjectItemCaseSensitive(res, "edges");
    if (sc_it_int(res, "graph") != graph || !cJSON_IsArray(nodes) || !cJSON_IsArray(edges))
        fail_msg("request %s\n  expected graph %lld with nodes and edges arrays", req,
                 (long long)graph);
    sc_itg_graph *g = calloc(1, sizeof(*g));
    assert_non_null(g);
    g->id = graph;
    read_nodes(g, nodes, req);
    read_edges(g, edges, req);
    cJSON_Delete(reply);
    compute_closure(g);
    return g;
}

void sc_itg_graph_free(sc_itg_graph *g)
{
    if (!g)
        return;
    free(g->stream);
    free(g->edge_src);
    free(g->edge_dst);
    free(g->closure);
    free(g);
}

bool sc_itg_reaches(const sc_itg_graph *g, uint32_t a, uint32_t b)
{
    return (g->closure[(size_t)a * g->words + b / 64] >> (b % 64)) & 1;
}

bool *sc_itg_reach_pairs(sc_it_conn *c, int64_t graph, const uint32_t *pairs, size_t count)
{
    /* "[4294967295,4294967295]," is 24 bytes at most. */
    char *text = malloc(count * 24 + 3), *p = text;
    assert_non_null(text);
    *p++ = '[';
    for (size_t i = 0; i < count; i++)
        p += sprintf(p, i ? ",[%u,%u]" : "[%u,%u]", pairs[2 * i], pairs[2 * i + 1]);
    *p++ = ']';
    *p = '\0';
    cJSON *reply =
        sc_it_call(c, "graph.reachable", "{\"graph\":%lld,\"pairs\":%s}", (long long)graph, text);
    free(text);
    const cJSON *res = sc_it_ok(c, reply);
    const cJSON *answers = cJSON_GetObjectItemCaseSensitive(res, "reachable");
    if (!cJSON_IsArray(answers) || (size_t)cJSON_GetArraySize(answers) != count)
        fail_msg("graph.reachable on graph %lld with %zu pairs: expected an array of %zu "
                 "booleans, got %d items",
                 (long long)graph, count, count,
                 cJSON_IsArray(answers) ? cJSON_GetArraySize(answers) : -1);
    bool *out = calloc(count + 1, sizeof(bool));
    assert_non_null(out);
    size_t i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, answers)
    {
        if (!cJSON_IsBool(v))
            fail_msg("graph.reachable on graph %lld: answer %zu is not a boolean", (long long)graph,
                     i);
        out[i++] = cJSON_IsTrue(v);
    }
    cJSON_Delete(reply);
    return out;
}

void sc_itg_check_pairs(sc_it_conn *c, const sc_itg_graph *g, const uint32_t *pairs, size_t count,
                        const char *what)
{
    bool *got = sc_itg_reach_pairs(c, g->id, pairs, count);
    for (size_t i = 0; i < count; i++) {
        bool want = sc_itg_reaches(g, pairs[2 * i], pairs[2 * i + 1]);
        if (got[i] != want)
            fail_msg("%s: graph %lld pair %zu [%u,%u]: graph.reachable said %s, the BFS of "
                     "graph.get's edges says %s",
                     what, (long long)g->id, i, pairs[2 * i], pairs[2 * i + 1],
                     got[i] ? "true" : "false", want ? "true" : "false");
    }
    free(got);
}

uint32_t *sc_itg_random_pairs(const sc_itg_graph *g, sc_itg_rng *r, size_t count)
{
    assert_true(g->n > 0);
    uint32_t *pairs = calloc(2 * count + 1, sizeof(uint32_t));
    assert_non_null(pairs);
    for (size_t i = 0; i < count; i++) {
        uint32_t a = sc_itg_rand(r, g->n);
        /* A quarter of the pairs forward from a: those are the ones likely reachable. */
        uint32_t b = sc_itg_rand(r, 4) == 0 && a + 1 < g->n ? a + 1 + sc_itg_rand(r, g->n - a - 1)
                                                            : sc_itg_rand(r, g->n);
        pairs[2 * i] = a;
        pairs[2 * i + 1] = b;
    }
    return pairs;
}
