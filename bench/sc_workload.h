/*
 * sc_workload.h - the capture workload shared by the benchmark programs.
 *
 * One deterministic generator of capture ops, so that streamcap-bench (which
 * sends them to streamcapd) and persist_floor (which inserts the rows the
 * daemon would store straight into SQLite) see exactly the same graph for
 * the same seed, and a pair generator shared by the reachability figures.
 *
 * Streams advance round robin with a repeat of the same stream one op in
 * eight.  Record ops take their names from small fixed sets, as real
 * captures do (a handful of kernels launched over and over).
 */
#ifndef SC_WORKLOAD_H
#define SC_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sc_wl_kind {
    SC_WL_KERNEL,
    SC_WL_MEMCPY,
    SC_WL_MEMSET,
    SC_WL_HOST,
    SC_WL_RECORD_EVENT,
    SC_WL_WAIT_EVENT,
    SC_WL_REACH,  /* a reachability query (the generator only picks it) */
    SC_WL_NOTCAP, /* a kernel on a stream that was never begun: error 1002 */
} sc_wl_kind;

/* Weighted entries of a mix; SC_WL_MIX_EVENT stands for a fork/join pair
 * (record_event on one stream, wait_event on another). */
enum {
    SC_WL_MIX_KERNEL,
    SC_WL_MIX_MEMCPY,
    SC_WL_MIX_MEMSET,
    SC_WL_MIX_HOST,
    SC_WL_MIX_EVENT,
    SC_WL_MIX_REACH,
    SC_WL_MIX_NOTCAP,
    SC_WL_MIX_COUNT
};

typedef struct sc_wl_mix {
    uint32_t weight[SC_WL_MIX_COUNT];
} sc_wl_mix;

/** Wire names of the mix entries ("kernel", "memcpy", "memset", "host",
 *  "event", "reach", "notcap"), indexed by SC_WL_MIX_*. */
extern const char *const sc_wl_mix_names[SC_WL_MIX_COUNT];

typedef struct sc_wl_op {
    sc_wl_kind kind;
    uint32_t stream;
    uint32_t event;   /* record/wait event */
    const char *name; /* kernel function name, memcpy/memset name, host label */
    uint32_t num_blocks, threads_per_block, shared_mem;
    const char *dir; /* memcpy direction, wire spelling */
    bool p2p;        /* dir is peer_to_peer: src_device and dst_device apply */
    uint32_t src_device, dst_device;
    uint64_t size_bytes;
    uint32_t value;
} sc_wl_op;

typedef struct sc_wl {
    uint64_t rng;
    uint32_t streams;
    uint32_t cur;
    sc_wl_mix mix;
    uint32_t total;
    uint32_t fork_every; /* graph mode: a fork/join after every this many nodes */
    uint64_t nodes;      /* record ops handed out so far */
    sc_wl_op queue[3];
    unsigned qlen, qpos;
} sc_wl;

/**
 * Mixed mode: each step picks a mix entry by weight.  `mix` must have a
 * non-zero total.  streams >= 1.
 */
void sc_wl_init_mix(sc_wl *w, uint64_t seed, uint32_t streams, const sc_wl_mix *mix);
/**
 * Graph mode: every step records one node (75% kernels, the rest memcpy,
 * memset and host callbacks); after every `fork_every` nodes a fork/join
 * (record_event on the current stream, wait_event on another) comes first.
 * This is the shape of the stored graphs the persist and reachability
 * figures use.  streams >= 2 for the forks to join anything.
 */
void sc_wl_init_graph(sc_wl *w, uint64_t seed, uint32_t streams, uint32_t fork_every);
/** The next op. */
void sc_wl_next(sc_wl *w, sc_wl_op *op);

/** True for the four kinds that create a node. */
bool sc_wl_is_record(sc_wl_kind k);
/** Node kind as stored ("kernel", "memcpy", "memset", "host_callback"). */
const char *sc_wl_node_kind(sc_wl_kind k);

/** xorshift64*: never returns the same state twice for a non-zero seed. */
uint64_t sc_wl_rand(uint64_t *state);
/** A random pair a < b of node ids below `nodes` (nodes >= 2). */
void sc_wl_pair(uint64_t *state, uint32_t nodes, uint32_t *a, uint32_t *b);

#ifdef __cplusplus
}
#endif
#endif
