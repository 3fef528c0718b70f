/*
 * sc_workload.c - the shared capture workload (see sc_workload.h).
 */
#include "sc_workload.h"

#include <string.h>

const char *const sc_wl_mix_names[SC_WL_MIX_COUNT] = {"kernel", "memcpy", "memset", "host",
                                                      "event",  "reach",  "notcap"};

static const char *const kernel_names[] = {"gemm",    "relu",   "softmax",  "layernorm",
                                           "attn_qk", "attn_v", "gelu_fwd", "dropout"};
static const char *const memcpy_names[] = {"h2d_batch", "d2h_logits", "d2d_copy", "p2p_shard"};
static const char *const memcpy_dirs[] = {"host_to_device", "device_to_host", "device_to_device",
                                          "peer_to_peer"};
static const char *const memset_names[] = {"zero_grad", "clear_acc"};
static const char *const host_labels[] = {"log_step", "barrier_cb"};

uint64_t sc_wl_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

void sc_wl_pair(uint64_t *state, uint32_t nodes, uint32_t *a, uint32_t *b)
{
    uint64_t x = sc_wl_rand(state);
    uint32_t p = (uint32_t)((x >> 32) % nodes);
    uint32_t q = (uint32_t)((x & 0xffffffffu) % (nodes - 1));
    if (q >= p)
        q++; /* q != p, uniform over the others */
    *a = p < q ? p : q;
    *b = p < q ? q : p;
}

bool sc_wl_is_record(sc_wl_kind k)
{
    return k == SC_WL_KERNEL || k == SC_WL_MEMCPY || k == SC_WL_MEMSET || k == SC_WL_HOST ||
           k == SC_WL_NOTCAP;
}

const char *sc_wl_node_kind(sc_wl_kind k)
{
    switch (k) {
    case SC_WL_KERNEL:
    case SC_WL_NOTCAP:
        return "kernel";
    case SC_WL_MEMCPY:
        return "memcpy";
    case SC_WL_MEMSET:
        return "memset";
    case SC_WL_HOST:
        return "host_callback";
    default:
        return NULL;
    }
}

static void init_common(sc_wl *w, uint64_t seed, uint32_t streams)
{
    memset(w, 0, sizeof(*w));
    /* A zero state would stay zero forever. */
    w->rng = seed ? seed : 0x9E3779B97F4A7C15ULL;
    w->streams = streams ? streams : 1;
}

void sc_wl_init_mix(sc_wl *w, uint64_t seed, uint32_t streams, const sc_wl_mix *mix)
{
    init_common(w, seed, streams);
    w->mix = *mix;
    for (int i = 0; i < SC_WL_MIX_COUNT; i++)
        w->total += mix->weight[i];
}

void sc_wl_init_graph(sc_wl *w, uint64_t seed, uint32_t streams, uint32_t fork_every)
{
    init_common(w, seed, streams);
    w->fork_every = fork_every;
}

/* Round robin, staying on the same stream one time in eight. */
static uint32_t advance_stream(sc_wl *w, uint64_t x)
{
    if ((x & 7) != 0 && ++w->cur == w->streams)
        w->cur = 0;
    return w->cur;
}

static void fill_record(sc_wl_op *op, sc_wl_kind kind, uint32_t stream, uint64_t x)
{
    memset(op, 0, sizeof(*op));
    op->kind = kind;
    op->stream = stream;
    switch (kind) {
    case SC_WL_KERNEL:
    case SC_WL_NOTCAP:
        op->name = kernel_names[(x >> 8) & 7];
        op->num_blocks = 1 + (uint32_t)((x >> 16) & 1023);
        op->threads_per_block = 256;
        op->shared_mem = (x >> 30) & 1 ? 4096 : 0;
        break;
    case SC_WL_MEMCPY: {
        unsigned d = (unsigned)(x >> 8) & 3;
        op->name = memcpy_names[d];
        op->dir = memcpy_dirs[d];
        op->p2p = d == 3;
        if (op->p2p)
            op->dst_device = 1; /* device 0 to device 1 */
        op->size_bytes = (uint64_t)4096 << ((x >> 16) & 7);
        break;
    }
    case SC_WL_MEMSET:
        op->name = memset_names[(x >> 8) & 1];
        op->size_bytes = (uint64_t)1 << 20;
        op->value = 0;
        break;
    case SC_WL_HOST:
        op->name = host_labels[(x >> 8) & 1];
        break;
    default:
        break;
    }
}

/* record_event on `s`, wait_event on another stream (the event id is `s`). */
static void queue_fork(sc_wl *w, uint32_t s, uint64_t x)
{
    uint32_t others = w->streams > 1 ? w->streams - 1 : 1;
    uint32_t other = (s + 1 + (uint32_t)((x >> 40) % others)) % w->streams;
    sc_wl_op *rec = &w->queue[w->qlen++];
    memset(rec, 0, sizeof(*rec));
    rec->kind = SC_WL_RECORD_EVENT;
    rec->stream = s;
    rec->event = s;
    sc_wl_op *wait = &w->queue[w->qlen++];
    memset(wait, 0, sizeof(*wait));
    wait->kind = SC_WL_WAIT_EVENT;
    wait->stream = other;
    wait->event = s;
}

static sc_wl_kind graph_kind(uint64_t x)
{
    unsigned pct = (unsigned)((x >> 48) % 100);
    if (pct < 75)
        return SC_WL_KERNEL;
    if (pct < 85)
        return SC_WL_MEMCPY;
    if (pct < 93)
        return SC_WL_MEMSET;
    return SC_WL_HOST;
}

static void refill_graph(sc_wl *w)
{
    uint64_t x = sc_wl_rand(&w->rng);
    uint32_t s = advance_stream(w, x);
    if (w->fork_every && w->nodes > 0 && w->nodes % w->fork_every == 0)
        queue_fork(w, s, x);
    fill_record(&w->queue[w->qlen++], graph_kind(x), s, x);
}

static void refill_mix(sc_wl *w)
{
    uint64_t x = sc_wl_rand(&w->rng);
    uint32_t pick = (uint32_t)((x >> 33) % w->total);
    int entry = 0;
    while (pick >= w->mix.weight[entry])
        pick -= w->mix.weight[entry++];
    uint32_t s = advance_stream(w, x);
    sc_wl_op *op = &w->queue[w->qlen];
    switch (entry) {
    case SC_WL_MIX_EVENT:
        queue_fork(w, s, x);
        return;
    case SC_WL_MIX_REACH:
        memset(op, 0, sizeof(*op));
        op->kind = SC_WL_REACH;
        break;
    case SC_WL_MIX_NOTCAP:
        /* Stream ids at and above `streams` are never begun. */
        fill_record(op, SC_WL_NOTCAP, w->streams + 7, x);
        break;
    default:
        fill_record(op, (sc_wl_kind)(SC_WL_KERNEL + entry), s, x);
        break;
    }
    w->qlen++;
}

void sc_wl_next(sc_wl *w, sc_wl_op *op)
{
    if (w->qpos == w->qlen) {
        w->qpos = w->qlen = 0;
        if (w->total)
            refill_mix(w);
        else
            refill_graph(w);
    }
    *op = w->queue[w->qpos++];
    if (sc_wl_is_record(op->kind) && op->kind != SC_WL_NOTCAP)
        w->nodes++;
}
