/*
 * libstreamcap's asynchronous mode against a real streamcapd: calls return
 * at once, replies come back in call order on the I/O thread, decoded as a
 * pipeline's (a 1009 with its cuda_error and data), drain waits for them
 * all, a daemon that dies or stops reading costs an error within the time
 * limit and never a hang, and several threads may call at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"
#include "streamcap.h"

#define MAX_SEEN 200000

/* What the I/O thread handed over, in the order it did. */
typedef struct seen {
    pthread_mutex_t mu;
    size_t n;
    uint64_t *seq;
    int *rc;
    uint64_t *id;
    int last_cuda_error;
    char last_errdata[512];
    char last_method[64];
    bool out_of_order;
} seen;

static void seen_init(seen *s)
{
    memset(s, 0, sizeof(*s));
    pthread_mutex_init(&s->mu, NULL);
    s->seq = calloc(MAX_SEEN, sizeof(*s->seq));
    s->rc = calloc(MAX_SEEN, sizeof(*s->rc));
    s->id = calloc(MAX_SEEN, sizeof(*s->id));
    assert_non_null(s->seq);
    assert_non_null(s->rc);
    assert_non_null(s->id);
}

static void seen_free(seen *s)
{
    free(s->seq);
    free(s->rc);
    free(s->id);
    pthread_mutex_destroy(&s->mu);
}

static void on_reply(void *arg, uint64_t seq, const sc_client_reply *r)
{
    seen *s = arg;
    pthread_mutex_lock(&s->mu);
    if (s->n < MAX_SEEN) {
        if (seq != s->n + 1)
            s->out_of_order = true;
        s->seq[s->n] = seq;
        s->rc[s->n] = r->rc;
        s->id[s->n] = r->id;
        s->n++;
    }
    if (r->rc != 0) {
        s->last_cuda_error = r->cuda_error;
        snprintf(s->last_errdata, sizeof(s->last_errdata), "%s", r->errdata ? r->errdata : "");
        snprintf(s->last_method, sizeof(s->last_method), "%s", r->method);
    }
    pthread_mutex_unlock(&s->mu);
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static sc_it_daemon *start(void)
{
    return sc_it_must_start(NULL);
}

static void stop(sc_it_daemon *d)
{
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

static const uint32_t grid[3] = {4, 1, 1};
static const uint32_t block[3] = {128, 1, 1};

/* A cuda-mode capture streamed: every call returns before its reply, seqs
 * come back 1, 2, 3 ..., node ids and the graph id are decoded, and a call
 * CUDA refuses carries its number and data. */
static void test_async_capture_in_order(void **state)
{
    (void)state;
    sc_it_daemon *d = start();
    sc_client *c;
    assert_int_equal(sc_client_connect(sc_it_daemon_socket(d), 10000, &c), 0);
    uint64_t s = 0;
    assert_int_equal(sc_client_open_session_ex(c, "async", SC_CLIENT_SEMANTICS_CUDA, &s), 0);
    seen sn;
    seen_init(&sn);
    assert_int_equal(sc_client_async_begin(c, on_reply, &sn), 0);
    assert_int_equal(sc_client_async_begin(c, on_reply, &sn), -EBUSY);

    uint64_t cap = 77;
    int64_t node = 77;
    assert_int_equal(sc_client_cuda_begin(c, s, 1, 0, SC_CLIENT_MODE_GLOBAL, &cap), 0); /* 1 */
    assert_int_equal(cap, 77); /* out-parameters untouched */
    assert_int_equal(sc_client_cuda_record_kernel(c, s, 1, 0, "k0", grid, block, 0, &node), 0);
    assert_int_equal(node, 77);
    assert_int_equal(
        sc_client_cuda_record_memcpy(c, s, 1, 0, "up", SC_CLIENT_DIR_DEFAULT, 64, 0, 0, &node), 0);
    assert_int_equal(sc_client_cuda_record_memset(c, s, 1, 0, "z", 64, 0, &node), 0);   /* 4 */
    assert_int_equal(sc_client_cuda_record_mem_alloc(c, s, 1, 0, "a", 4096, &node), 0); /* 5 */
    assert_int_equal(sc_client_cuda_record_mem_free(c, s, 1, 0, "a", &node), 0);        /* 6 */
    assert_int_equal(sc_client_cuda_record_host_callback(c, s, 1, 0, "cb", &node), 0);  /* 7 */
    const uint32_t deps[1] = {0};
    uint32_t added = 77;
    assert_int_equal(sc_client_cuda_add_node(c, s, 1, 0, SC_CLIENT_EMPTY, deps, 1, "e", &added),
                     0); /* 8 */
    assert_int_equal(added, 77);
    /* cudaMalloc during a global capture: 900, and the capture is broken */
    assert_int_equal(sc_client_host_call(c, s, 0, SC_CLIENT_HOST_UNSAFE, 0, 0, "cudaMalloc"),
                     0); /* 9 */
    sc_client_cuda_captured got = {0};
    assert_int_equal(sc_client_cuda_end(c, s, 1, 0, &got), 0); /* 10: 901 */
    /* A capture that works: begin, kernel, end with a graph. */
    assert_int_equal(sc_client_cuda_begin(c, s, 2, 0, SC_CLIENT_MODE_GLOBAL, NULL), 0); /* 11 */
    assert_int_equal(sc_client_cuda_record_kernel(c, s, 2, 0, "k1", grid, block, 0, NULL), 0);
    assert_int_equal(sc_client_cuda_end(c, s, 2, 0, NULL), 0); /* 13 */
    assert_int_equal(got.graph, 0);
    /* A call that needs its reply is refused, not queued. */
    sc_client_capture_info info;
    assert_int_equal(sc_client_capture_info_get(c, s, 1, 0, &info), -EBUSY);
    sc_client_graph g;
    assert_int_equal(sc_client_graph_get(c, 1, &g), -EBUSY);

    assert_int_equal(sc_client_async_drain(c, 10000), 0);
    assert_int_equal(sc_client_async_pending(c), 0);
    assert_int_equal(sn.n, 13);
    assert_false(sn.out_of_order);
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(sn.rc[i], 0);
    assert_int_equal(sn.id[1], 0); /* node ids of capture 1 */
    assert_int_equal(sn.id[2], 1);
    assert_int_equal(sn.id[6], 5);
    assert_int_equal(sn.id[7], 6); /* the node added by hand */
    assert_int_equal(sn.rc[8], SC_CLIENT_ECUDA);
    assert_int_equal(sn.rc[9], SC_CLIENT_ECUDA);
    assert_string_equal(sn.last_method, "capture.end");
    assert_int_equal(sn.last_cuda_error, 901);
    assert_non_null(strstr(sn.last_errdata, "\"cuda_name\":\"cudaErrorStreamCaptureInvalidated\""));
    assert_int_equal(sn.rc[10], 0);
    assert_int_equal(sn.rc[12], 0);
    assert_true(sn.id[12] > 0); /* the graph */
    sc_client_close(c);

    /* The graph is there, as streamed. */
    assert_int_equal(sc_client_connect(sc_it_daemon_socket(d), 10000, &c), 0);
    assert_int_equal(sc_client_graph_get(c, sn.id[12], &g), 0);
    assert_int_equal(g.node_count, 1);
    assert_string_equal(g.nodes[0].function_name, "k1");
    sc_client_graph_free(&g);
    sc_client_close(c);
    seen_free(&sn);
    stop(d);
}

/* sc_client_cuda_add_node_ex queues in asynchronous mode: the reply
 * carries the node id, the out-parameter is left alone, and the stored
 * node has its attributes. */
static void test_async_add_node_ex(void **state)
{
    (void)state;
    sc_it_daemon *d = start();
    sc_client *c;
    assert_int_equal(sc_client_connect(sc_it_daemon_socket(d), 10000, &c), 0);
    uint64_t s = 0;
    assert_int_equal(sc_client_open_session_ex(c, "ex", SC_CLIENT_SEMANTICS_CUDA, &s), 0);
    seen sn;
    seen_init(&sn);
    assert_int_equal(sc_client_async_begin(c, on_reply, &sn), 0);
    assert_int_equal(sc_client_cuda_begin(c, s, 1, 0, SC_CLIENT_MODE_GLOBAL, NULL), 0);
    assert_int_equal(sc_client_cuda_record_kernel(c, s, 1, 0, "k0", grid, block, 0, NULL), 0);
    sc_client_node k = {.kind = SC_CLIENT_KERNEL,
                        .function_name = "side",
                        .dim3 = true,
                        .grid = {3, 2, 1},
                        .block = {64, 1, 1}};
    const uint32_t deps[1] = {0};
    int64_t node = 77;
    assert_int_equal(sc_client_cuda_add_node_ex(c, s, 1, 0, &k, deps, 1, &node), 0); /* 3 */
    assert_int_equal(node, 77);
    assert_int_equal(sc_client_cuda_end(c, s, 1, 0, NULL), 0); /* 4 */
    assert_int_equal(sc_client_async_drain(c, 10000), 0);
    assert_int_equal(sn.n, 4);
    assert_false(sn.out_of_order);
    assert_int_equal(sn.rc[2], 0);
    assert_int_equal(sn.id[2], 1);
    assert_int_equal(sn.rc[3], 0);
    sc_client_close(c);

    assert_int_equal(sc_client_connect(sc_it_daemon_socket(d), 10000, &c), 0);
    sc_client_graph g;
    assert_int_equal(sc_client_graph_get(c, sn.id[3], &g), 0);
    assert_int_equal(g.node_count, 2);
    assert_string_equal(g.nodes[1].function_name, "side");
    assert_int_equal(g.nodes[1].grid[0], 3);
    assert_int_equal(g.nodes[1].grid[1], 2);
    assert_int_equal(g.nodes[1].block[0], 64);
    sc_client_graph_free(&g);
    sc_client_close(c);
    seen_free(&sn);
    stop(d);
}

/* The 900 of the host call itself comes with its number and data too. */
static void test_async_cuda_error_decoded(void **state)
{
    (void)state;
    sc_it_daemon *d = start();
    sc_client *c;
    assert_int_equal(sc_client_connect(sc_it_daemon_socket(d), 10000, &c), 0);
    uint64_t s = 0;
    assert_int_equal(sc_client_open_session_ex(c, "e", SC_CLIENT_SEMANTICS_CUDA, &s), 0);
    seen sn;
    seen_init(&sn);
    assert_int_equal(sc_client_async_begin(c, on_reply, &sn), 0);
    assert_int_equal(sc_client_cuda_begin(c, s, 1, 0, SC_CLIENT_MODE_GLOBAL, NULL), 0);
    assert_int_equal(sc_client_host_call(c, s, 0, SC_CLIENT_HOST_UNSAFE, 0, 0, "cudaMalloc"), 0);
    assert_int_equal(sc_client_async_drain(c, 10000), 0);
    assert_int_equal(sn.n, 2);
    assert_int_equal(sn.rc[1], SC_CLIENT_ECUDA);
    assert_int_equal(sn.last_cuda_error, 900);
    assert_string_equal(sn.last_method, "capture.host_call");
    assert_non_null(strstr(sn.last_errdata, "\"cuda_name\":\"cudaErrorStreamCaptureUnsupported\""));
    sc_client_close(c);
    seen_free(&sn);
    stop(d);
}

typedef struct caller {
    sc_client *c;
    uint64_t session;
    uint32_t stream;
    int calls;
    int failures;
} caller;

static void *call_many(void *arg)
{
    caller *k = arg;
    for (int i = 0; i < k->calls; i++) {
        if (sc_client_cuda_record_kernel(k->c, k->session, k->stream, k->stream, "k", grid, block,
                                         0, NULL) != 0)
            k->failures++;
    }
    return NULL;
}

/* Four threads stream into one handle at once: every call is answered,
 * the seqs come back without a gap, and the session holds every node. */
static void test_async_threads(void **state)
{
    (void)state;
    sc_it_daemon *d = start();
    sc_client *c;
    assert_int_equal(sc_client_connect(sc_it_daemon_socket(d), 10000, &c), 0);
    uint64_t s = 0;
    assert_int_equal(sc_client_open_session_ex(c, "t", SC_CLIENT_SEMANTICS_CUDA, &s), 0);
    seen sn;
    seen_init(&sn);
    assert_int_equal(sc_client_async_begin(c, on_reply, &sn), 0);
    enum { NT = 4, PER = 2000 };
    caller k[NT];
    pthread_t t[NT];
    for (int i = 0; i < NT; i++) {
        /* Relaxed captures on their own streams, one per thread. */
        assert_int_equal(sc_client_cuda_begin(c, s, (uint32_t)i + 1, (uint32_t)i + 1,
                                              SC_CLIENT_MODE_RELAXED, NULL),
                         0);
        k[i] = (caller){c, s, (uint32_t)i + 1, PER, 0};
    }
    for (int i = 0; i < NT; i++)
        assert_int_equal(pthread_create(&t[i], NULL, call_many, &k[i]), 0);
    for (int i = 0; i < NT; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(k[i].failures, 0);
    }
    assert_int_equal(sc_client_node_count(c, s, NULL), 0);
    assert_int_equal(sc_client_async_drain(c, 20000), 0);
    assert_int_equal(sn.n, NT + NT * PER + 1);
    assert_false(sn.out_of_order);
    for (size_t i = 0; i < sn.n; i++)
        assert_int_equal(sn.rc[i], 0);
    sc_client_close(c);
    seen_free(&sn);
    stop(d);
}

/* The daemon is killed while calls stream: drain returns the transport
 * error well within its limit, and later calls fail at once. */
static void test_async_daemon_killed(void **state)
{
    (void)state;
    sc_it_daemon *d = start();
    sc_client *c;
    assert_int_equal(sc_client_connect(sc_it_daemon_socket(d), 10000, &c), 0);
    uint64_t s = 0;
    assert_int_equal(sc_client_open_session_ex(c, "k", SC_CLIENT_SEMANTICS_CUDA, &s), 0);
    seen sn;
    seen_init(&sn);
    assert_int_equal(sc_client_async_begin(c, on_reply, &sn), 0);
    assert_int_equal(sc_client_cuda_begin(c, s, 1, 0, SC_CLIENT_MODE_GLOBAL, NULL), 0);
    assert_int_equal(sc_client_async_drain(c, 10000), 0);
    /* Stop it first, so that the calls below cannot all be answered. */
    assert_int_equal(kill(sc_it_daemon_pid(d), SIGSTOP), 0);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(sc_client_cuda_record_kernel(c, s, 1, 0, "k", grid, block, 0, NULL), 0);
    assert_int_equal(sc_client_async_drain(c, 200), -ETIMEDOUT);
    assert_int_equal(sc_it_daemon_kill(d), 0);
    long t0 = now_ms();
    int rc = sc_client_async_drain(c, 5000);
    long took = now_ms() - t0;
    assert_true(rc == -ECONNRESET || rc == -EPIPE);
    assert_true(took < 4000);
    t0 = now_ms();
    rc = sc_client_cuda_record_kernel(c, s, 1, 0, "k", grid, block, 0, NULL);
    assert_true(rc == -ECONNRESET || rc == -EPIPE);
    assert_true(now_ms() - t0 < 1000);
    assert_true(sn.n < 1001);
    sc_client_close(c);
    seen_free(&sn);
    sc_it_daemon_destroy(d);
}

typedef struct mute {
    int fd;
    char path[300];
} mute;

/* A peer that accepts and then never reads a byte. */
static void *accept_and_sleep(void *arg)
{
    mute *m = arg;
    int fd = accept(m->fd, NULL, NULL);
    sleep(30);
    if (fd >= 0)
        close(fd);
    return NULL;
}

/* Calls to a peer that never reads, made until one fails, with the window
 * set to `window` bytes (0: left at the default); each must fail with
 * -ETIMEDOUT within the handle's time limit, and nothing deadlocks. */
static size_t calls_until_timeout(size_t window)
{
    char dir[256];
    assert_int_equal(sc_it_tmpdir(dir, sizeof(dir)), 0);
    mute m;
    snprintf(m.path, sizeof(m.path), "%s/mute.sock", dir);
    m.fd = sc_it_socket_bind(m.path);
    assert_true(m.fd >= 0);
    assert_int_equal(listen(m.fd, 4), 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, accept_and_sleep, &m), 0);
    pthread_detach(t);
    sc_client *c;
    assert_int_equal(sc_client_connect(m.path, 300, &c), 0);
    seen sn;
    seen_init(&sn);
    assert_int_equal(sc_client_async_begin(c, on_reply, &sn), 0);
    if (window)
        assert_int_equal(sc_client_async_window(c, window), 0);
    char name[1024];
    memset(name, 'x', sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    int rc = 0;
    long t0 = now_ms();
    size_t calls = 0;
    while (rc == 0 && calls < 200000) {
        rc = sc_client_cuda_record_kernel(c, 1, 1, 0, name, grid, block, 0, NULL);
        calls++;
    }
    assert_int_equal(rc, -ETIMEDOUT);
    assert_true(now_ms() - t0 < 20000);
    assert_int_equal(sc_client_async_drain(c, 100), -ETIMEDOUT);
    sc_client_close(c);
    seen_free(&sn);
    close(m.fd);
    sc_it_rmtree(dir);
    return calls;
}

/* A daemon that stops reading: calls queue up to the bound (64 MiB of
 * ~1.2 KiB requests by default), then wait the handle's time limit and
 * fail with -ETIMEDOUT. */
static void test_async_peer_stops_reading(void **state)
{
    (void)state;
    assert_true(calls_until_timeout(0) > 40000);
}

/* A window of 64 KiB: the calls wait once that much (and what the socket's
 * buffer took) is unsent, some hundreds of requests, not tens of
 * thousands. */
static void test_async_window(void **state)
{
    (void)state;
    size_t calls = calls_until_timeout(64 << 10);
    assert_true(calls > 50);
    assert_true(calls < 4000);
}

/* Refusals: no function, the mode twice or off, a pipeline open. */
static void test_async_refusals(void **state)
{
    (void)state;
    sc_it_daemon *d = start();
    sc_client *c;
    assert_int_equal(sc_client_connect(sc_it_daemon_socket(d), 10000, &c), 0);
    assert_int_equal(sc_client_async_drain(c, 10), -EINVAL);
    assert_int_equal(sc_client_async_window(c, 4096), -EINVAL);
    assert_int_equal(sc_client_async_begin(c, NULL, NULL), -EINVAL);
    assert_int_equal(sc_client_pipeline_begin(c), 0);
    seen sn;
    seen_init(&sn);
    assert_int_equal(sc_client_async_begin(c, on_reply, &sn), -EBUSY);
    sc_client_reply *r;
    size_t n;
    assert_int_equal(sc_client_pipeline_collect(c, &r, &n), 0);
    sc_client_replies_free(r, n);
    assert_int_equal(sc_client_async_begin(c, on_reply, &sn), 0);
    assert_int_equal(sc_client_pipeline_begin(c), -EBUSY);
    char *out = NULL;
    assert_int_equal(sc_client_call_raw(c, "server.info", NULL, &out), -EBUSY);
    /* Close without drain: pending replies are dropped, nothing leaks. */
    assert_int_equal(sc_client_open_session(c, NULL, NULL), 0);
    sc_client_close(c);
    seen_free(&sn);
    stop(d);
}

/* graph.submit: the nodes and edges read back exactly as given, the
 * default label, every -32602 rule naming its element, and the call in
 * asynchronous mode too. */
static void test_graph_submit(void **state)
{
    (void)state;
    sc_it_daemon *d = start();
    sc_client *c;
    assert_int_equal(sc_client_connect(sc_it_daemon_socket(d), 10000, &c), 0);
    sc_client_node n[4];
    memset(n, 0, sizeof(n));
    n[0].kind = SC_CLIENT_MEMCPY;
    n[0].name = "up";
    n[0].dir = SC_CLIENT_HOST_TO_DEVICE;
    n[0].size_bytes = 4096;
    n[1].kind = SC_CLIENT_KERNEL;
    n[1].function_name = "void scale<float>(float*, float, int)";
    n[1].dim3 = true;
    memcpy(n[1].grid, (uint32_t[3]){4, 2, 1}, sizeof(n[1].grid));
    memcpy(n[1].block, (uint32_t[3]){256, 1, 1}, sizeof(n[1].block));
    n[1].stream = 3;
    n[2].kind = SC_CLIENT_HOST_CALLBACK;
    n[2].label = "cb";
    n[3].kind = SC_CLIENT_EMPTY;
    const sc_client_edge e[3] = {{1, 2}, {0, 1}, {0, 3}};
    uint64_t gid = 0;
    assert_int_equal(sc_client_graph_submit(c, NULL, n, 4, e, 3, &gid), 0);
    assert_true(gid > 0);
    sc_client_graph g;
    assert_int_equal(sc_client_graph_get(c, gid, &g), 0);
    assert_string_equal(g.label, "submitted");
    assert_int_equal(g.owner_uid, getuid());
    assert_int_equal(g.node_count, 4);
    assert_int_equal(g.nodes[0].kind, SC_CLIENT_MEMCPY);
    assert_int_equal(g.nodes[0].size_bytes, 4096);
    assert_string_equal(g.nodes[1].function_name, "void scale<float>(float*, float, int)");
    assert_int_equal(g.nodes[1].grid[1], 2);
    assert_int_equal(g.nodes[1].stream, 3);
    assert_string_equal(g.nodes[2].label, "cb");
    assert_int_equal(g.nodes[3].kind, SC_CLIENT_EMPTY);
    assert_int_equal(g.edge_count, 3);
    assert_int_equal(g.edges[0].src, 0);
    assert_int_equal(g.edges[0].dst, 1);
    assert_int_equal(g.edges[1].dst, 3);
    assert_int_equal(g.edges[2].src, 1);
    sc_client_graph_free(&g);

    static const struct {
        const char *params;
        const char *message;
    } bad[] = {
        {"{\"nodes\":[{\"kind\":\"empty\"},{\"kind\":\"empty\"}],\"edges\":[[1,0]]}",
         "edges[0]: source must precede destination"},
        {"{\"nodes\":[{\"kind\":\"empty\"}],\"edges\":[[0,0]]}",
         "edges[0]: source must precede destination"},
        {"{\"nodes\":[{\"kind\":\"empty\"},{\"kind\":\"empty\"}],\"edges\":[[0,1],[0,2]]}",
         "edges[1]: node index out of range"},
        {"{\"nodes\":[{\"kind\":\"empty\"},{\"kind\":\"empty\"}],\"edges\":[[0,1],[0,1]]}",
         "edges[1]: repeats an earlier edge"},
        {"{\"nodes\":[{\"kind\":\"empty\"}],\"edges\":[[0]]}", "edges[0]: must be"},
        {"{\"nodes\":[{\"kind\":\"empty\"},{\"kind\":\"memset\",\"name\":\"z\"}],\"edges\":[]}",
         "nodes[1]: "},
        {"{\"nodes\":[{\"kind\":\"warp\"}],\"edges\":[]}", "nodes[0]: "},
        {"{\"nodes\":[7],\"edges\":[]}", "nodes[0]: not an object"},
        {"{\"edges\":[]}", "'nodes'"},
        {"{\"nodes\":[]}", "'edges'"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *out = NULL;
        assert_int_equal(sc_client_call_raw(c, "graph.submit", bad[i].params, &out),
                         SC_CLIENT_EPARAMS);
        if (!strstr(sc_client_errmsg(c), bad[i].message))
            fail_msg("%s: got '%s', want '%s'", bad[i].params, sc_client_errmsg(c), bad[i].message);
    }

    /* In asynchronous mode the reply's id is the graph. */
    seen sn;
    seen_init(&sn);
    assert_int_equal(sc_client_async_begin(c, on_reply, &sn), 0);
    assert_int_equal(sc_client_graph_submit(c, "mine", n, 4, e, 3, NULL), 0);
    assert_int_equal(sc_client_async_drain(c, 10000), 0);
    assert_int_equal(sn.n, 1);
    assert_int_equal(sn.rc[0], 0);
    assert_true(sn.id[0] > gid);
    sc_client_close(c);
    assert_int_equal(sc_client_connect(sc_it_daemon_socket(d), 10000, &c), 0);
    sc_client_list_opts o = {.filter = "mine"};
    sc_client_graph_page p;
    assert_int_equal(sc_client_graph_list(c, &o, &p), 0);
    assert_int_equal(p.count, 1);
    assert_int_equal(p.graphs[0].graph, sn.id[0]);
    assert_int_equal(p.graphs[0].edge_count, 3);
    sc_client_graph_page_free(&p);
    sc_client_close(c);
    seen_free(&sn);
    stop(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_async_capture_in_order),
        cmocka_unit_test(test_async_cuda_error_decoded),
        cmocka_unit_test(test_async_add_node_ex),
        cmocka_unit_test(test_async_threads),
        cmocka_unit_test(test_async_daemon_killed),
        cmocka_unit_test(test_async_peer_stops_reading),
        cmocka_unit_test(test_async_window),
        cmocka_unit_test(test_async_refusals),
        cmocka_unit_test(test_graph_submit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
