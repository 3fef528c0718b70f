/*
 * sc_cuda.h - a cuda-mode session: stream capture the way the CUDA runtime
 * does it (docs/cuda-semantics.md).
 *
 * One sc_cuda stands for one CUDA context: streams, events, host threads
 * and any number of captures over its life.  A capture begins on an origin
 * stream; other streams join it by waiting on an event captured in it;
 * events hold node sets; ending on the origin seals one sc_graph per
 * successful end and the session lives on.  Node ids are per capture
 * (0, 1, 2, ... in recording order), capture ids per session (1, 2, ...).
 *
 * Errors: every function returns 0 or a negative code.  What the CUDA
 * runtime would return is one of enum sc_cuda_error (sc_errors.h; CUDA's
 * number, name and text through sc_cuda_error_number() and friends).
 * SC_EINVAL means a misuse of this API (NULL handle, enum out of range),
 * SC_ENOMEM and SC_ELIMIT resources; none of those changes anything.  A
 * call that fails with a CUDA error changes nothing but the captures its
 * rule invalidates (docs/cuda-semantics.md §2).
 *
 * Threads are ids given per call, standing for the host thread that made
 * it; the session itself is not thread-safe (one caller at a time).
 *
 * Pure C11, no I/O.  Recording allocates nothing per op once the arrays
 * of a capture have grown (nodes in chunks, dependency sets in place).
 */
#ifndef SC_CUDA_H
#define SC_CUDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sc_errors.h"
#include "sc_graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sc_cuda sc_cuda;

/** The node id of "no node" (record ops outside capture, events without a node). */
#define SC_CUDA_NO_NODE UINT32_MAX

/** Capture modes and thread capture modes (§1, §4.8); wire: global, thread_local, relaxed. */
typedef enum sc_cuda_mode {
    SC_CUDA_GLOBAL = 0,
    SC_CUDA_THREAD_LOCAL = 1,
    SC_CUDA_RELAXED = 2,
} sc_cuda_mode;

/** Host call kinds (§4.8); wire: unsafe, stream_sync, device_sync, event_sync, legacy_sync. */
typedef enum sc_cuda_host {
    SC_CUDA_HOST_UNSAFE = 0,
    SC_CUDA_HOST_STREAM_SYNC = 1,
    SC_CUDA_HOST_DEVICE_SYNC = 2,
    SC_CUDA_HOST_EVENT_SYNC = 3,
    SC_CUDA_HOST_LEGACY_SYNC = 4,
} sc_cuda_host;

/** How capture.update_dependencies changes a set (§4.6). */
typedef enum sc_cuda_deps {
    SC_CUDA_DEPS_ADD = 0,
    SC_CUDA_DEPS_SET = 1,
} sc_cuda_deps;

/** A stream's status (§1): none, or its capture's state. */
typedef enum sc_cuda_status {
    SC_CUDA_STATUS_NONE = 0,
    SC_CUDA_STATUS_ACTIVE = 1,
    SC_CUDA_STATUS_INVALIDATED = 2,
} sc_cuda_status;

/** Where a capture stands (§1, §6): the first two before it ends, the rest after. */
typedef enum sc_cuda_state {
    SC_CUDA_STATE_ACTIVE = 0,
    SC_CUDA_STATE_INVALIDATED = 1,
    SC_CUDA_STATE_COMPLETED = 2, /* ended with a graph */
    SC_CUDA_STATE_FAILED = 3,    /* ended by capture.end with a CUDA error */
    SC_CUDA_STATE_DISCARDED = 4, /* ended by sc_cuda_discard() (session close) */
} sc_cuda_state;

/** The calls, for the record of what invalidated a capture (§6); wire method names. */
typedef enum sc_cuda_call {
    SC_CUDA_CALL_STREAM_CREATE = 0,
    SC_CUDA_CALL_BEGIN,
    SC_CUDA_CALL_RECORD_KERNEL,
    SC_CUDA_CALL_RECORD_MEMCPY,
    SC_CUDA_CALL_RECORD_MEMSET,
    SC_CUDA_CALL_RECORD_HOST_CALLBACK,
    SC_CUDA_CALL_RECORD_MEM_ALLOC,
    SC_CUDA_CALL_RECORD_MEM_FREE,
    SC_CUDA_CALL_RECORD_EVENT,
    SC_CUDA_CALL_WAIT_EVENT,
    SC_CUDA_CALL_UPDATE_DEPENDENCIES,
    SC_CUDA_CALL_INFO,
    SC_CUDA_CALL_HOST_CALL,
    SC_CUDA_CALL_EXCHANGE_MODE,
    SC_CUDA_CALL_ADD_NODE,
    SC_CUDA_CALL_END,
} sc_cuda_call;

/** Names: "global", ...; "unsafe", ...; "none", "active", "invalidated";
 *  "active", "invalidated", "completed", "failed", "discarded";
 *  "capture.begin", ...  NULL for an out-of-range value. */
const char *sc_cuda_mode_name(sc_cuda_mode mode);
const char *sc_cuda_host_name(sc_cuda_host kind);
const char *sc_cuda_status_name(sc_cuda_status status);
const char *sc_cuda_state_name(sc_cuda_state state);
const char *sc_cuda_call_name(sc_cuda_call call);
/** Parse the wire names back.  0 or SC_EINVAL. */
int sc_cuda_mode_parse(const char *s, size_t len, sc_cuda_mode *out);
int sc_cuda_host_parse(const char *s, size_t len, sc_cuda_host *out);

/** Create a session: no stream, no event, no capture, every thread global. */
int sc_cuda_create(sc_cuda **out);
/** Free the session, its captures and their graphs.  NULL is a no-op. */
void sc_cuda_destroy(sc_cuda *cu);
/** End every capture that has not ended as discarded, no graph (§4.10).
 *  The daemon calls it on session.close, before it logs the captures. */
void sc_cuda_discard(sc_cuda *cu);

/** stream.create (§4.1): non_blocking false is "default".  1 or 401 as §4.1 says. */
int sc_cuda_stream_create(sc_cuda *cu, uint32_t stream, bool non_blocking);

/** capture.begin (§4.2).  *capture_out is the new capture's id. */
int sc_cuda_begin(sc_cuda *cu, uint32_t stream, sc_cuda_mode mode, uint32_t thread,
                  uint32_t *capture_out);

/**
 * The record ops (§4.3): `node` describes the work (kind kernel, memcpy,
 * memset, host_callback, mem_alloc, mem_free, or graph for a graph
 * launched into the capture, with its attributes and name; node->stream
 * is ignored).  *node_out is the new node's id, or
 * SC_CUDA_NO_NODE when the work ran outside any capture.  SC_EINVAL for
 * another kind, a bad direction, or a NULL name with a non-zero length.
 */
int sc_cuda_record(sc_cuda *cu, uint32_t stream, uint32_t thread, const sc_node *node,
                   uint32_t *node_out);

/*
 * The record ops by kind, for callers that have the attributes at hand (the
 * daemon, a CUDA runtime shim): the same outcome, node and error as
 * sc_cuda_record() with an sc_node of that kind and those fields (the
 * others zero), without building one.  SC_EINVAL for a NULL name with a
 * non-zero length or, for memcpy, a direction no sc_node may have.  The
 * kernel is a 1-D launch; a 3-D one goes through sc_cuda_record().
 * src_device/dst_device are kept only for SC_DIR_PEER_TO_PEER.
 */
int sc_cuda_record_kernel(sc_cuda *cu, uint32_t stream, uint32_t thread, const char *function_name,
                          size_t name_len, uint32_t num_blocks, uint32_t threads_per_block,
                          uint32_t shared_mem, uint32_t *node_out);
int sc_cuda_record_memcpy(sc_cuda *cu, uint32_t stream, uint32_t thread, const char *name,
                          size_t name_len, sc_memcpy_dir dir, uint64_t size_bytes,
                          uint32_t src_device, uint32_t dst_device, uint32_t *node_out);
int sc_cuda_record_memset(sc_cuda *cu, uint32_t stream, uint32_t thread, const char *name,
                          size_t name_len, uint64_t size_bytes, uint8_t value, uint32_t *node_out);
int sc_cuda_record_host_callback(sc_cuda *cu, uint32_t stream, uint32_t thread, const char *label,
                                 size_t label_len, uint32_t *node_out);
int sc_cuda_record_mem_alloc(sc_cuda *cu, uint32_t stream, uint32_t thread, const char *name,
                             size_t name_len, uint64_t size_bytes, uint32_t *node_out);
int sc_cuda_record_mem_free(sc_cuda *cu, uint32_t stream, uint32_t thread, const char *name,
                            size_t name_len, uint32_t *node_out);

/** capture.record_event (§4.4); *node_out is a node only when external. */
int sc_cuda_record_event(sc_cuda *cu, uint32_t stream, uint32_t thread, uint32_t event,
                         bool external, uint32_t *node_out);
/** capture.wait_event (§4.5); *node_out is a node only when external. */
int sc_cuda_wait_event(sc_cuda *cu, uint32_t stream, uint32_t thread, uint32_t event, bool external,
                       uint32_t *node_out);

/** capture.update_dependencies (§4.6); n ids at nodes (NULL when n is 0). */
int sc_cuda_update_dependencies(sc_cuda *cu, uint32_t stream, uint32_t thread,
                                const uint32_t *nodes, size_t n, sc_cuda_deps how);

/** What capture.info reports (§4.7).  The last four are set only when the
 *  stream belongs to an active capture (else 0 / NULL); `deps` ascending,
 *  pointing into the session until its next call. */
typedef struct sc_cuda_info {
    sc_cuda_status status;
    uint32_t capture;
    uint32_t origin;
    sc_cuda_mode mode;
    const uint32_t *deps;
    uint32_t ndeps;
} sc_cuda_info;

/** capture.info and capture.status (§4.7): 906 on stream 0 while a blocking
 *  capture exists (nothing invalidated). */
int sc_cuda_info_get(sc_cuda *cu, uint32_t stream, uint32_t thread, sc_cuda_info *out);

/** capture.host_call (§4.8).  `stream` matters for stream_sync, `event` for event_sync. */
int sc_cuda_host_call(sc_cuda *cu, sc_cuda_host kind, uint32_t stream, uint32_t event,
                      uint32_t thread);

/** capture.exchange_mode (§4.11): set the thread's mode, *prev_out the old one. */
int sc_cuda_exchange_mode(sc_cuda *cu, uint32_t thread, sc_cuda_mode mode, sc_cuda_mode *prev_out);

/**
 * capture.add_node (§4.12): `node` gives kind (any, usually SC_KIND_EMPTY),
 * name and attributes; an edge from each of the n ids at deps.  No stream's
 * dependency set changes.
 */
int sc_cuda_add_node(sc_cuda *cu, uint32_t stream, uint32_t thread, const sc_node *node,
                     const uint32_t *deps, size_t n, uint32_t *node_out);

/** One stream's unjoined nodes, ascending (§4.9 step 5). */
typedef struct sc_cuda_unjoined {
    uint32_t stream;
    uint32_t count;
    const uint32_t *nodes;
} sc_cuda_unjoined;

/**
 * The outcome of capture.end.  Filled by sc_cuda_end() whatever it
 * returns (zeroed first); release it with sc_cuda_end_free().
 */
typedef struct sc_cuda_end_result {
    uint32_t capture; /* the capture on the stream, 0 when none */
    sc_graph *graph;  /* success only: sealed, index not built, owned by the caller */
    /* 904 only: member streams whose dependency set holds unjoined nodes,
     * by ascending stream id */
    sc_cuda_unjoined *unjoined;
    uint32_t nunjoined;
    uint32_t *node_buf; /* storage behind unjoined[i].nodes */
} sc_cuda_end_result;

/**
 * capture.end (§4.9), its checks in the spec's order.  On success the
 * capture is completed and out->graph holds all its nodes and edges; with
 * 901 or 904 it ends with no graph (failed); 401, 903 and 908 leave it
 * running.  SC_ENOMEM changes nothing.
 */
int sc_cuda_end(sc_cuda *cu, uint32_t stream, uint32_t thread, sc_cuda_end_result *out);
/** Free what sc_cuda_end() put into *res (the graph too, if still there). */
void sc_cuda_end_free(sc_cuda_end_result *res);

/** The call that invalidated a capture (§6). */
typedef struct sc_cuda_invalidation {
    sc_cuda_call call;
    sc_cuda_host host; /* the kind, for SC_CUDA_CALL_HOST_CALL */
    uint32_t stream;   /* the call's stream (0 for calls without one) */
    uint32_t event;    /* the call's event, when has_event */
    bool has_event;
    uint32_t thread;
    int error;    /* the sc_cuda_error the call returned */
    uint64_t seq; /* sc_cuda_call_seq() of that call */
} sc_cuda_invalidation;

/** One capture as the capture log sees it (§6). */
typedef struct sc_cuda_capture_info {
    uint32_t capture;
    uint32_t origin;
    sc_cuda_mode mode;
    uint32_t thread;
    sc_cuda_state state;
    int error;        /* SC_CUDA_STATE_FAILED: the sc_cuda_error end returned */
    bool invalidated; /* `why` is set */
    sc_cuda_invalidation why;
    uint32_t node_count; /* nodes recorded so far (at the end, for ended ones) */
} sc_cuda_capture_info;

/** Captures begun so far; their ids are 1 .. count. */
uint32_t sc_cuda_capture_count(const sc_cuda *cu);
/** Describe capture `capture`.  SC_ENOTFOUND for an id never given. */
int sc_cuda_capture_get(const sc_cuda *cu, uint32_t capture, sc_cuda_capture_info *out);
/** Calls made so far (each public call that takes a stream or thread counts
 *  one): lets a caller tell which captures its last call invalidated. */
uint64_t sc_cuda_call_seq(const sc_cuda *cu);
/** The capture stream `stream` belongs to (active or invalidated), 0 when
 *  none; not counted as a call (sc_cuda_call_seq). */
uint32_t sc_cuda_stream_capture(const sc_cuda *cu, uint32_t stream);
/** Read node `id` of a capture that has not ended (same contract as sc_graph_node). */
int sc_cuda_node(const sc_cuda *cu, uint32_t capture, uint32_t id, sc_node *out);
/** Heap bytes held by the session (for limits and benchmarks). */
size_t sc_cuda_memory(const sc_cuda *cu);

#ifdef __cplusplus
}
#endif
#endif
