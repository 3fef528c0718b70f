/*
 * rt_feed.c - the daemon mirror: one connection and one cuda-mode session
 * per process, every state-changing model call sent with the same stream,
 * thread and event ids so that the daemon's model stays the local one.
 * No daemon: one warning, and the program runs on without.  A daemon that
 * goes away: one warning, and nothing more is sent.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_int.h"
#include "streamcap.h"

typedef enum sc_rt_feed_state {
    SC_RT_FEED_UNREACHABLE = 0,
    SC_RT_FEED_CONNECTED,
    SC_RT_FEED_LOST,
} sc_rt_feed_state;

struct sc_rt_feed {
    sc_client *c;
    uint64_t session;
    sc_rt_feed_state state;
    bool sync_end;
    int exit_timeout_ms;
};

#define SC_RT_CONNECT_TIMEOUT_MS 2000

static int env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    long n = strtol(v, &end, 10);
    return *end == '\0' && n >= 0 && n <= 3600000 ? (int)n : dflt;
}

void sc_rt_feed_open(sc_rt_state *st)
{
    sc_rt_feed *f = calloc(1, sizeof *f);
    if (!f)
        return;
    st->feed = f;
    const char *v = getenv("STREAMCAP_SYNC_END");
    f->sync_end = v && strcmp(v, "1") == 0;
    f->exit_timeout_ms = env_int("STREAMCAP_EXIT_TIMEOUT_MS", 10000);
    const char *path = getenv(SC_CLIENT_SOCKET_ENV);
    if (!path || !*path)
        path = sc_client_default_socket();
    int rc = sc_client_connect(path, SC_RT_CONNECT_TIMEOUT_MS, &f->c);
    if (rc == 0)
        rc = sc_client_open_session_ex(f->c, st->label, SC_CLIENT_SEMANTICS_CUDA, &f->session);
    if (rc != 0) {
        fprintf(stderr, "streamcap: no daemon at %s (%s); captures are kept in this process only\n",
                path, sc_client_strerror(rc));
        sc_client_close(f->c);
        f->c = NULL;
        return;
    }
    sc_client_set_timeout(f->c, f->exit_timeout_ms > 0 ? f->exit_timeout_ms : 10000);
    f->state = SC_RT_FEED_CONNECTED;
}

static sc_rt_feed *live(sc_rt_state *st)
{
    sc_rt_feed *f = st->feed;
    return f && f->state == SC_RT_FEED_CONNECTED ? f : NULL;
}

/* A reply the daemon's model gives is expected, error or not (it refuses
 * what the local model refused); a transport failure ends the mirror. */
static void check(sc_rt_feed *f, int rc)
{
    if (rc >= 0 || rc <= -1000)
        return;
    fprintf(stderr,
            "streamcap: lost the daemon (%s); captures from now on are kept in this "
            "process only\n",
            sc_client_strerror(rc));
    sc_client_close(f->c);
    f->c = NULL;
    f->state = SC_RT_FEED_LOST;
}

void sc_rt_feed_stream_create(sc_rt_state *st, uint32_t stream, bool non_blocking)
{
    sc_rt_feed *f = live(st);
    if (f)
        check(f, sc_client_stream_create(f->c, f->session, stream, non_blocking));
}

void sc_rt_feed_begin(sc_rt_state *st, uint32_t stream, uint32_t thread, sc_cuda_mode mode)
{
    sc_rt_feed *f = live(st);
    if (f)
        check(f, sc_client_cuda_begin(f->c, f->session, stream, thread,
                                      (sc_client_capture_mode)mode, NULL));
}

static sc_client_dir client_dir(sc_memcpy_dir d)
{
    switch ((int)d) {
    case SC_DIR_HOST_TO_DEVICE:
        return SC_CLIENT_HOST_TO_DEVICE;
    case SC_DIR_DEVICE_TO_HOST:
        return SC_CLIENT_DEVICE_TO_HOST;
    case SC_DIR_DEVICE_TO_DEVICE:
        return SC_CLIENT_DEVICE_TO_DEVICE;
    case SC_DIR_HOST_TO_HOST:
        return SC_CLIENT_HOST_TO_HOST;
    default:
        return SC_CLIENT_DIR_DEFAULT;
    }
}

void sc_rt_feed_record(sc_rt_state *st, uint32_t stream, uint32_t thread, const sc_node *n)
{
    sc_rt_feed *f = live(st);
    if (!f)
        return;
    int rc = 0;
    switch ((int)n->kind) {
    case SC_KIND_KERNEL: {
        uint32_t grid[3] = {n->num_blocks, n->grid_y ? n->grid_y : 1, n->grid_z ? n->grid_z : 1};
        uint32_t block[3] = {n->threads_per_block, n->block_y ? n->block_y : 1,
                             n->block_z ? n->block_z : 1};
        rc = sc_client_cuda_record_kernel(f->c, f->session, stream, thread, n->name, grid, block,
                                          n->shared_mem, NULL);
        break;
    }
    /* The record rules (§4.3) do not depend on the thread, so the calls
     * without one keep the two models the same. */
    case SC_KIND_MEMCPY:
        rc = sc_client_record_memcpy(f->c, f->session, stream, n->name, client_dir(n->dir),
                                     n->size_bytes, NULL);
        break;
    case SC_KIND_MEMSET:
        rc = sc_client_record_memset(f->c, f->session, stream, n->name, n->size_bytes, n->value,
                                     NULL);
        break;
    case SC_KIND_HOST_CALLBACK:
        rc = sc_client_record_host_callback(f->c, f->session, stream, n->name, NULL);
        break;
    default:
        break;
    }
    check(f, rc);
}

void sc_rt_feed_event(sc_rt_state *st, uint32_t stream, uint32_t thread, uint32_t event, bool wait,
                      bool external)
{
    sc_rt_feed *f = live(st);
    (void)external;
    if (f)
        check(f, sc_client_cuda_event(f->c, f->session, stream, thread, event, wait));
}

void sc_rt_feed_update_deps(sc_rt_state *st, uint32_t stream, uint32_t thread,
                            const uint32_t *nodes, size_t n, bool set)
{
    sc_rt_feed *f = live(st);
    if (f)
        check(f, sc_client_update_dependencies(f->c, f->session, stream, thread, nodes, n, set));
}

void sc_rt_feed_host_call(sc_rt_state *st, sc_cuda_host kind, uint32_t stream, uint32_t event,
                          uint32_t thread, const char *call)
{
    sc_rt_feed *f = live(st);
    if (f)
        check(f, sc_client_host_call(f->c, f->session, thread, (sc_client_host_call_kind)kind,
                                     stream, event, call));
}

void sc_rt_feed_exchange_mode(sc_rt_state *st, uint32_t thread, sc_cuda_mode mode)
{
    sc_rt_feed *f = live(st);
    if (f)
        check(f, sc_client_exchange_mode(f->c, f->session, thread, (sc_client_capture_mode)mode,
                                         NULL));
}

void sc_rt_feed_add_node(sc_rt_state *st, uint32_t stream, uint32_t thread, const sc_node *n,
                         const uint32_t *deps, size_t ndeps)
{
    (void)st;
    (void)stream;
    (void)thread;
    (void)n;
    (void)deps;
    (void)ndeps;
}

void sc_rt_feed_end(sc_rt_state *st, uint32_t stream, uint32_t thread, uint32_t capture)
{
    sc_rt_feed *f = live(st);
    if (!f)
        return;
    sc_client_cuda_captured out;
    memset(&out, 0, sizeof out);
    int rc = sc_client_cuda_end(f->c, f->session, stream, thread, &out);
    check(f, rc);
    sc_rt_capture *cap = sc_rt_capture_slot(st, capture);
    if (rc == 0 && cap) {
        cap->outcome = SC_RT_OUT_STORED;
        cap->daemon_graph = out.graph;
    }
}

void sc_rt_feed_submit(sc_rt_state *st, cudaGraph_t g, size_t submit)
{
    (void)st;
    (void)g;
    (void)submit;
}

const char *sc_rt_feed_finish(sc_rt_state *st, uint64_t *session)
{
    sc_rt_feed *f = st->feed;
    *session = 0;
    if (!f)
        return "unreachable";
    if (f->state == SC_RT_FEED_CONNECTED) {
        *session = f->session;
        check(f, sc_client_close_session(f->c, f->session));
    } else if (f->state == SC_RT_FEED_LOST) {
        *session = f->session;
    }
    if (f->c)
        sc_client_close(f->c);
    f->c = NULL;
    switch (f->state) {
    case SC_RT_FEED_CONNECTED:
        return "connected";
    case SC_RT_FEED_LOST:
        return "lost";
    default:
        return "unreachable";
    }
}

void sc_rt_submit_graph(cudaGraph_t g)
{
    sc_rt_state *st = sc_rt_state_get();
    if (st->nsubmits == st->submits_cap) {
        size_t cap = st->submits_cap ? st->submits_cap * 2 : 8;
        sc_rt_submit *s = realloc(st->submits, cap * sizeof *s);
        if (!s)
            return;
        st->submits = s;
        st->submits_cap = cap;
    }
    const uint32_t *from, *to;
    size_t m;
    sc_rt_graph_edges(g, &from, &to, &m);
    sc_rt_submit *s = &st->submits[st->nsubmits];
    s->daemon_graph = 0;
    s->nodes = sc_rt_graph_node_count(g);
    s->edges = m;
    sc_rt_feed_submit(st, g, st->nsubmits++);
}
