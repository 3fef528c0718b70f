/*
 * Many clients at once: 100 threads, each on its own connection, drive a
 * 1,000-op capture session (kernels and memcpys on 2-4 streams, forks and
 * joins through events) pipelined in chunks.  Each thread predicts its node
 * ids and edges with a small independent model of the capture rules; every
 * stored graph is then read back and compared with that prediction.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"

#define CLIENTS    100
#define OPS        1000 /* requests in a session, begins and end included */
#define CHUNK      100  /* requests written before their replies are read */
#define EVENTS     8
#define MAX_STREAM 4
#define IO_TIMEOUT 60000

typedef struct edge {
    uint32_t src, dst;
} edge;

/* One planned request and what its reply must hold. */
typedef struct op {
    char *line;
    int64_t id;
    int64_t node; /* expected result.node, or -1 for an empty result */
    bool end;
} op;

typedef struct client {
    const char *socket;
    int index;
    uint32_t rng;
    /* the model */
    uint32_t streams[MAX_STREAM];
    int nstreams;
    int64_t head[MAX_STREAM];
    int64_t event_src[EVENTS];
    uint32_t *parked[MAX_STREAM];
    size_t nparked[MAX_STREAM];
    uint32_t nodes;
    char *node_kind;     /* 'k' or 'm' per node */
    uint32_t *node_strm; /* stream per node */
    edge *edges;
    size_t nedges;
    /* the plan and the outcome */
    op ops[OPS];
    int nops;
    int64_t session;
    int64_t graph;
    char error[2048];
} client;

static uint32_t next_rand(client *cl)
{
    uint32_t x = cl->rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return cl->rng = x;
}

static void complain(client *cl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void complain(client *cl, const char *fmt, ...)
{
    if (cl->error[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(cl->error, sizeof(cl->error), "client %d: ", cl->index);
    vsnprintf(cl->error + n, sizeof(cl->error) - (size_t)n, fmt, ap);
    va_end(ap);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int cmp_edge(const void *a, const void *b)
{
    const edge *x = a, *y = b;
    if (x->src != y->src)
        return (x->src > y->src) - (x->src < y->src);
    return (x->dst > y->dst) - (x->dst < y->dst);
}

static void plan(client *cl, const char *method, const char *params, int64_t node, bool end)
{
    op *o = &cl->ops[cl->nops++];
    o->id = cl->nops;
    o->node = node;
    o->end = end;
    o->line = sc_it_format_request(o->id, method, params);
}

/* A record op in the model: predecessors are the stream's head plus every
 * wait parked on it since its last record (docs/semantics.md §4.5), duplicates merged. */
static uint32_t model_record(client *cl, int s, char kind)
{
    uint32_t x = cl->nodes++;
    uint32_t *preds = cl->parked[s];
    size_t n = cl->nparked[s];
    preds = realloc(preds, (n + 1) * sizeof(*preds));
    if (cl->head[s] >= 0)
        preds[n++] = (uint32_t)cl->head[s];
    qsort(preds, n, sizeof(*preds), cmp_u32);
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && preds[i] == preds[i - 1])
            continue;
        cl->edges[cl->nedges++] = (edge){preds[i], x};
    }
    free(preds);
    cl->parked[s] = NULL;
    cl->nparked[s] = 0;
    cl->head[s] = x;
    cl->node_kind[x] = kind;
    cl->node_strm[x] = cl->streams[s];
    return x;
}

static void plan_session(client *cl)
{
    char params[256];
    cl->rng = 2463534242u ^ (uint32_t)(cl->index * 7919 + 1);
    cl->nstreams = 2 + cl->index % 3;
    for (int s = 0; s < cl->nstreams; s++) {
        cl->streams[s] = (uint32_t)(s * 1000003u + (uint32_t)cl->index);
        cl->head[s] = -1;
    }
    for (int e = 0; e < EVENTS; e++)
        cl->event_src[e] = -1;
    cl->node_kind = calloc(OPS, 1);
    cl->node_strm = calloc(OPS, sizeof(uint32_t));
    /* each node gets its head edge plus one per parked wait: at most 2 * OPS */
    cl->edges = calloc(2 * (size_t)OPS, sizeof(edge));

    for (int s = 0; s < cl->nstreams; s++) {
        snprintf(params, sizeof(params), "{\"session\":%lld,\"stream\":%u}", (long long)cl->session,
                 cl->streams[s]);
        plan(cl, "capture.begin", params, -1, false);
    }
    while (cl->nops < OPS - 1) {
        int s = (int)(next_rand(cl) % (uint32_t)cl->nstreams);
        uint32_t r = next_rand(cl) % 100, e = next_rand(cl) % EVENTS;
        uint32_t stream = cl->streams[s];
        if (r < 55) {
            uint32_t x = model_record(cl, s, 'k');
            snprintf(params, sizeof(params),
                     "{\"session\":%lld,\"stream\":%u,\"function_name\":\"k%u\",\"num_blocks\":%u,"
                     "\"threads_per_block\":256,\"shared_mem\":%u}",
                     (long long)cl->session, stream, x, x + 1, r * 64);
            plan(cl, "capture.record_kernel", params, x, false);
        } else if (r < 75) {
            uint32_t x = model_record(cl, s, 'm');
            snprintf(params, sizeof(params),
                     "{\"session\":%lld,\"stream\":%u,\"name\":\"m%u\",\"dir\":\"%s\","
                     "\"size_bytes\":%u}",
                     (long long)cl->session, stream, x,
                     r % 2 ? "host_to_device" : "device_to_device", 4096 * (x + 1));
            plan(cl, "capture.record_memcpy", params, x, false);
        } else if (r < 87) {
            if (cl->head[s] >= 0)
                cl->event_src[e] = cl->head[s];
            snprintf(params, sizeof(params), "{\"session\":%lld,\"stream\":%u,\"event\":%u}",
                     (long long)cl->session, stream, e);
            plan(cl, "capture.record_event", params, -1, false);
        } else {
            if (cl->event_src[e] >= 0) {
                cl->parked[s] = realloc(cl->parked[s], (cl->nparked[s] + 1) * sizeof(uint32_t));
                cl->parked[s][cl->nparked[s]++] = (uint32_t)cl->event_src[e];
            }
            snprintf(params, sizeof(params), "{\"session\":%lld,\"stream\":%u,\"event\":%u}",
                     (long long)cl->session, stream, e);
            plan(cl, "capture.wait_event", params, -1, false);
        }
    }
    snprintf(params, sizeof(params), "{\"session\":%lld,\"stream\":%u}", (long long)cl->session,
             cl->streams[0]);
    plan(cl, "capture.end", params, -1, true);
    qsort(cl->edges, cl->nedges, sizeof(edge), cmp_edge);
    for (int s = 0; s < cl->nstreams; s++) {
        free(cl->parked[s]);
        cl->parked[s] = NULL;
    }
}

static bool check_reply(client *cl, const op *o, const cJSON *reply)
{
    int64_t id, v;
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(reply, "result");
    bool ok = sc_it_json_int(reply, "id", &id) && id == o->id && cJSON_IsObject(res);
    if (ok && o->node >= 0)
        ok = sc_it_json_int(res, "node", &v) && v == o->node;
    else if (ok && o->end)
        ok = sc_it_json_int(res, "graph", &cl->graph) && sc_it_json_int(res, "node_count", &v) &&
             v == cl->nodes && sc_it_json_int(res, "edge_count", &v) && v == (int64_t)cl->nedges;
    else if (ok)
        ok = res->child == NULL;
    if (!ok) {
        char *text = sc_it_json_text(reply);
        char want[96];
        if (o->node >= 0)
            snprintf(want, sizeof(want), "{\"node\":%lld}", (long long)o->node);
        else if (o->end)
            snprintf(want, sizeof(want), "{graph, \"node_count\":%u, \"edge_count\":%zu}",
                     cl->nodes, cl->nedges);
        else
            snprintf(want, sizeof(want), "{}");
        complain(cl, "request %s\n  expected id %lld with result %s\n  got %.1000s", o->line,
                 (long long)o->id, want, text);
        free(text);
    }
    return ok;
}

static bool run_chunk(client *cl, sc_it_conn *c, int from, int to)
{
    size_t len = 0;
    for (int i = from; i < to; i++)
        len += strlen(cl->ops[i].line) + 1;
    char *buf = malloc(len), *p = buf;
    for (int i = from; i < to; i++) {
        size_t n = strlen(cl->ops[i].line);
        memcpy(p, cl->ops[i].line, n);
        p[n] = '\n';
        p += n + 1;
    }
    int rc = sc_it_send(c, buf, len);
    free(buf);
    if (rc != 0) {
        complain(cl, "sending requests %d..%d: error %d", from, to - 1, rc);
        return false;
    }
    for (int i = from; i < to; i++) {
        cJSON *reply;
        rc = sc_it_recv_json(c, &reply);
        if (rc != 0) {
            complain(cl, "reading the reply to %s: error %d", cl->ops[i].line, rc);
            return false;
        }
        bool ok = check_reply(cl, &cl->ops[i], reply);
        cJSON_Delete(reply);
        if (!ok)
            return false;
    }
    return true;
}

static void *client_main(void *arg)
{
    client *cl = arg;
    sc_it_conn *c;
    int rc = sc_it_connect(cl->socket, &c);
    if (rc != 0) {
        complain(cl, "connect: %s", strerror(-rc));
        return NULL;
    }
    sc_it_conn_set_timeout(c, IO_TIMEOUT);
    cJSON *reply;
    rc = sc_it_try_call(c, &reply, "session.open", "{\"label\":\"client-%d\"}", cl->index);
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(reply, "result");
    if (rc != 0 || !sc_it_json_int(res, "session", &cl->session)) {
        char *text = sc_it_json_text(reply);
        complain(cl, "session.open: rc %d, reply %s", rc, text);
        free(text);
    }
    cJSON_Delete(reply);
    if (!cl->error[0]) {
        plan_session(cl);
        for (int from = 0; from < cl->nops; from += CHUNK) {
            int to = from + CHUNK < cl->nops ? from + CHUNK : cl->nops;
            if (!run_chunk(cl, c, from, to))
                break;
        }
    }
    sc_it_conn_close(c);
    return NULL;
}

static void check_stored(sc_it_conn *c, const client *cl)
{
    cJSON *reply = sc_it_call(c, "graph.get", "{\"graph\":%lld}", (long long)cl->graph);
    const cJSON *res = sc_it_ok(c, reply);
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(res, "nodes");
    const cJSON *edges = cJSON_GetObjectItemCaseSensitive(res, "edges");
    assert_int_equal(sc_it_int(res, "graph"), cl->graph);
    if (cJSON_GetArraySize(nodes) != (int)cl->nodes || cJSON_GetArraySize(edges) != (int)cl->nedges)
        fail_msg("graph %lld of client %d: expected %u nodes and %zu edges, got %d and %d",
                 (long long)cl->graph, cl->index, cl->nodes, cl->nedges, cJSON_GetArraySize(nodes),
                 cJSON_GetArraySize(edges));
    uint32_t i = 0;
    const cJSON *n;
    cJSON_ArrayForEach(n, nodes)
    {
        const char *kind = sc_it_str(n, "kind");
        if (sc_it_int(n, "id") != i || sc_it_int(n, "stream") != cl->node_strm[i] ||
            strcmp(kind, cl->node_kind[i] == 'k' ? "kernel" : "memcpy") != 0) {
            char *text = sc_it_json_text(n);
            fail_msg("graph %lld node %u: expected %s on stream %u, got %s", (long long)cl->graph,
                     i, cl->node_kind[i] == 'k' ? "kernel" : "memcpy", cl->node_strm[i], text);
        }
        i++;
    }
    size_t k = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, edges)
    {
        const cJSON *a = cJSON_GetArrayItem(e, 0), *b = cJSON_GetArrayItem(e, 1);
        if (cJSON_GetArraySize(e) != 2 || !cJSON_IsNumber(a) || !cJSON_IsNumber(b) ||
            a->valuedouble != cl->edges[k].src || b->valuedouble != cl->edges[k].dst) {
            char *text = sc_it_json_text(e);
            fail_msg("graph %lld edge %zu: expected [%u,%u], got %s", (long long)cl->graph, k,
                     cl->edges[k].src, cl->edges[k].dst, text);
        }
        k++;
    }
    cJSON_Delete(reply);
}

static void test_hundred_clients(void **state)
{
    (void)state;
    sc_it_daemon *d = sc_it_must_start(NULL);
    client *cls = calloc(CLIENTS, sizeof(client));
    pthread_t threads[CLIENTS];
    assert_non_null(cls);
    int64_t t0 = sc_it_now_ms();
    for (int i = 0; i < CLIENTS; i++) {
        cls[i].socket = sc_it_daemon_socket(d);
        cls[i].index = i;
        assert_int_equal(pthread_create(&threads[i], NULL, client_main, &cls[i]), 0);
    }
    for (int i = 0; i < CLIENTS; i++)
        pthread_join(threads[i], NULL);
    int64_t elapsed = sc_it_now_ms() - t0;
    print_message("%d clients x %d requests: %lld ms\n", CLIENTS, OPS, (long long)elapsed);

    int failed = 0;
    for (int i = 0; i < CLIENTS; i++) {
        if (cls[i].error[0]) {
            if (failed++ < 5)
                print_error("%s\n", cls[i].error);
        }
    }
    if (failed)
        fail_msg("%d of %d clients failed", failed, CLIENTS);

    sc_it_conn *c = sc_it_must_connect(d);
    sc_it_conn_set_timeout(c, IO_TIMEOUT);
    for (int i = 0; i < CLIENTS; i++) {
        for (int j = 0; j < i; j++)
            if (cls[j].graph == cls[i].graph)
                fail_msg("clients %d and %d got the same graph id %lld", j, i,
                         (long long)cls[i].graph);
        check_stored(c, &cls[i]);
    }
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
    for (int i = 0; i < CLIENTS; i++) {
        for (int j = 0; j < cls[i].nops; j++)
            free(cls[i].ops[j].line);
        free(cls[i].node_kind);
        free(cls[i].node_strm);
        free(cls[i].edges);
    }
    free(cls);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hundred_clients),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
