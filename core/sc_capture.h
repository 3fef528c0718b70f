/*
 * sc_capture.h - one stream-capture session (the StreamCapture model).
 *
 * Semantics are exactly those of docs/semantics.md: a failed call
 * changes nothing; sc_capture_end() consumes the session whether it succeeds
 * or fails.  Ids: node ids are dense from 0 in recording order, shared by all
 * streams; streams and events are arbitrary u32 values.
 *
 * Memory: nodes live in fixed-size chunks (no per-node malloc, no realloc
 * copies), names are interned in a per-session arena, per-stream and
 * per-event state sits in open-addressing tables keyed by id.  A node costs
 * 32 bytes plus 4 bytes per incoming edge, plus each distinct name once.
 *
 * Not thread-safe: one session is driven by one thread at a time.
 */
#ifndef SC_CAPTURE_H
#define SC_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sc_errors.h"
#include "sc_graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sc_capture sc_capture;

typedef enum sc_status {
    SC_STATUS_NONE = 0,
    SC_STATUS_ACTIVE = 1,
    SC_STATUS_INVALIDATED = 2,
} sc_status;

/** "none", "active", "invalidated"; NULL for an out-of-range value. */
const char *sc_status_name(sc_status status);

/** Create an empty session: no stream capturing, no nodes. */
int sc_capture_create(sc_capture **out);
/** Discard a session that will not be ended.  NULL is a no-op. */
void sc_capture_destroy(sc_capture *cap);

/** Status of `stream` (none if never begun).  Never fails. */
sc_status sc_capture_status(const sc_capture *cap, uint32_t stream);
/** True if at least one stream is active.  Never fails. */
bool sc_capture_is_capturing(const sc_capture *cap);
/** Nodes created so far over all streams.  Never fails. */
uint32_t sc_capture_node_count(const sc_capture *cap);

/** SC_EALREADY if active; none or invalidated -> active (docs/semantics.md §4.4). */
int sc_capture_begin(sc_capture *cap, uint32_t stream);

/*
 * Record ops (docs/semantics.md §4.5).  On success *node_out (if not NULL) is the new
 * node's id.  Errors: SC_ENOTCAPTURING, SC_EINVALIDATED, SC_ENOMEM,
 * SC_ELIMIT; a failed call changes nothing and uses up no id.  SC_EINVAL
 * (NULL name with a non-zero length, bad dir) is checked before the stream
 * state.  Names may hold any bytes; they are copied.
 */
int sc_capture_record_kernel(sc_capture *cap, uint32_t stream, const char *function_name,
                             size_t name_len, uint32_t num_blocks, uint32_t threads_per_block,
                             uint32_t shared_mem, uint32_t *node_out);
/** The same for kernel node k (its name, launch and arguments; its
 *  stream, shape and other fields are ignored); SC_EINVAL when k is not a
 *  valid kernel node (param_sizes not adding up to args_len). */
int sc_capture_record_kernel_node(sc_capture *cap, uint32_t stream, const sc_node *k,
                                  uint32_t *node_out);
/** Record node n of kind kernel, memcpy (a default-mode direction),
 *  memset or host callback with everything it carries, its arguments and
 *  buffer accesses included (the kernel's shape and n's stream are
 *  ignored); SC_EINVAL for another kind or an invalid node. */
int sc_capture_record_node(sc_capture *cap, uint32_t stream, const sc_node *n, uint32_t *node_out);
/** src_device/dst_device are kept only for SC_DIR_PEER_TO_PEER (else 0). */
int sc_capture_record_memcpy(sc_capture *cap, uint32_t stream, const char *name, size_t name_len,
                             sc_memcpy_dir dir, uint64_t size_bytes, uint32_t src_device,
                             uint32_t dst_device, uint32_t *node_out);
int sc_capture_record_memset(sc_capture *cap, uint32_t stream, const char *name, size_t name_len,
                             uint64_t size_bytes, uint8_t value, uint32_t *node_out);
int sc_capture_record_host_callback(sc_capture *cap, uint32_t stream, const char *label,
                                    size_t label_len, uint32_t *node_out);

/** Point `event` at the stream's head; no-op success without a head (4.6). */
int sc_capture_record_event(sc_capture *cap, uint32_t stream, uint32_t event);
/** Park the event's current source for the stream's next op (4.7). */
int sc_capture_wait_event(sc_capture *cap, uint32_t stream, uint32_t event);
/** active -> invalidated and poison the session (4.8). */
int sc_capture_invalidate(sc_capture *cap, uint32_t stream);

/**
 * End capture on `stream` (4.9).  ALWAYS consumes `cap` (it is freed and
 * must not be used again).  On success *graph_out is the whole sealed graph
 * (index not built) owned by the caller; on failure *graph_out is NULL and
 * the code is SC_EILLEGAL, SC_ENOTCAPTURING, SC_EPOISONED or SC_ENOMEM.
 */
int sc_capture_end(sc_capture *cap, uint32_t stream, sc_graph **graph_out);

/** Streams ever begun in this session (session.info lists them). */
uint32_t sc_capture_stream_count(const sc_capture *cap);
/**
 * The i-th stream in order of first begin, 0 <= i < stream count, with its
 * status.  SC_ENOTFOUND past the end, SC_EINVAL for a NULL pointer.
 */
int sc_capture_stream_at(const sc_capture *cap, uint32_t i, uint32_t *stream, sc_status *status);

/** Read a node of the live session (same contract as sc_graph_node). */
int sc_capture_node(const sc_capture *cap, uint32_t id, sc_node *out);
/** A recorded node's predecessors, final once it is recorded (same
 *  contract as sc_graph_predecessors). */
int sc_capture_predecessors(const sc_capture *cap, uint32_t id, uint32_t *out, uint32_t max,
                            uint32_t *count);
/** Heap bytes held by the session (for limits and benchmarks). */
size_t sc_capture_memory(const sc_capture *cap);

#ifdef __cplusplus
}
#endif
#endif
