/*
 * sc_methods.h - the one list of protocol methods.
 *
 * SC_METHODS is an X-macro: every consumer (daemon dispatch, client, docs
 * and the openrpc sync test) expands it, so the methods can never drift
 * apart.  Columns:
 *   X(ID, handler, "wire.name", flags, "params", "result", "summary")
 * ID names the enum value SC_M_<ID>; `handler` is the suffix of the
 * daemon's handler function (sc_h_<handler>, declared in
 * daemon/sc_handlers.h); `flags` are SC_MF_* bits saying how the daemon
 * schedules the request (see below).
 */
#ifndef SC_METHODS_H
#define SC_METHODS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Method flags.
 *   SC_MF_SESSION      acts on one live session named by params.session
 *                      (session.* and capture.*); answered from memory.
 *   SC_MF_READS_STORE  reads stored graphs, log rows or their counts: runs
 *                      only once the connection's earlier writes committed.
 *   SC_MF_WRITES_STORE its reply waits for a store commit.
 *   SC_MF_HOLDABLE     a write that takes its session out of the table at
 *                      once, so the connection's next requests need not wait
 *                      for its commit (their replies are kept behind its).
 */
enum sc_method_flag {
    SC_MF_SESSION = 1u << 0,
    SC_MF_READS_STORE = 1u << 1,
    SC_MF_WRITES_STORE = 1u << 2,
    SC_MF_HOLDABLE = 1u << 3,
};

/* clang-format off */
#define SC_METHODS(X)                                                                              \
    X(SESSION_OPEN, session_open, "session.open",                                                  \
      SC_MF_SESSION | SC_MF_WRITES_STORE,                                                          \
      "{label?}",                                                                                  \
      "{session}",                                                                                 \
      "Open a capture session owned by the caller's uid; replies once its log row is committed.")  \
    X(SESSION_CLOSE, session_close, "session.close",                                               \
      SC_MF_SESSION | SC_MF_WRITES_STORE | SC_MF_HOLDABLE,                                         \
      "{session}",                                                                                 \
      "{}",                                                                                        \
      "Discard a session without producing a graph; logged as closed.")                            \
    X(SESSION_INFO, session_info, "session.info",                                                  \
      SC_MF_SESSION,                                                                               \
      "{session}",                                                                                 \
      "{session, label, capturing, node_count, streams}",                                          \
      "Describe a live session.")                                                                  \
    X(SESSION_LIST, session_list, "session.list",                                                  \
      SC_MF_SESSION,                                                                               \
      "{}",                                                                                        \
      "{sessions}",                                                                                \
      "The caller's live sessions (root: everyone's), in id order.")                               \
    X(CAPTURE_BEGIN, capture_begin, "capture.begin",                                               \
      SC_MF_SESSION,                                                                               \
      "{session, stream}",                                                                         \
      "{}",                                                                                        \
      "Begin capture on a stream.")                                                                \
    X(CAPTURE_RECORD_KERNEL, capture_record_kernel, "capture.record_kernel",                       \
      SC_MF_SESSION,                                                                               \
      "{session, stream, function_name, num_blocks, threads_per_block, shared_mem?}",              \
      "{node}",                                                                                    \
      "Record a kernel launch.")                                                                   \
    X(CAPTURE_RECORD_MEMCPY, capture_record_memcpy, "capture.record_memcpy",                       \
      SC_MF_SESSION,                                                                               \
      "{session, stream, name, dir, size_bytes, src_device?, dst_device?}",                        \
      "{node}",                                                                                    \
      "Record a memcpy.")                                                                          \
    X(CAPTURE_RECORD_MEMSET, capture_record_memset, "capture.record_memset",                       \
      SC_MF_SESSION,                                                                               \
      "{session, stream, name, size_bytes, value}",                                                \
      "{node}",                                                                                    \
      "Record a memset.")                                                                          \
    X(CAPTURE_RECORD_HOST_CALLBACK, capture_record_host_callback, "capture.record_host_callback",  \
      SC_MF_SESSION,                                                                               \
      "{session, stream, label}",                                                                  \
      "{node}",                                                                                    \
      "Record a host callback.")                                                                   \
    X(CAPTURE_RECORD_EVENT, capture_record_event, "capture.record_event",                          \
      SC_MF_SESSION,                                                                               \
      "{session, stream, event}",                                                                  \
      "{}",                                                                                        \
      "Point an event at the stream's last op.")                                                   \
    X(CAPTURE_WAIT_EVENT, capture_wait_event, "capture.wait_event",                                \
      SC_MF_SESSION,                                                                               \
      "{session, stream, event}",                                                                  \
      "{}",                                                                                        \
      "Make the stream's next op depend on the event's op.")                                       \
    X(CAPTURE_STATUS, capture_status, "capture.status",                                            \
      SC_MF_SESSION,                                                                               \
      "{session, stream}",                                                                         \
      "{status}",                                                                                  \
      "Capture status of a stream: none, active or invalidated.")                                  \
    X(CAPTURE_IS_CAPTURING, capture_is_capturing, "capture.is_capturing",                          \
      SC_MF_SESSION,                                                                               \
      "{session}",                                                                                 \
      "{capturing}",                                                                               \
      "Whether any stream of the session is active.")                                              \
    X(CAPTURE_NODE_COUNT, capture_node_count, "capture.node_count",                                \
      SC_MF_SESSION,                                                                               \
      "{session}",                                                                                 \
      "{node_count}",                                                                              \
      "Nodes recorded so far.")                                                                    \
    X(CAPTURE_INVALIDATE, capture_invalidate, "capture.invalidate",                                \
      SC_MF_SESSION,                                                                               \
      "{session, stream}",                                                                         \
      "{}",                                                                                        \
      "Invalidate a stream and poison the session.")                                               \
    X(CAPTURE_END, capture_end, "capture.end",                                                     \
      SC_MF_SESSION | SC_MF_WRITES_STORE | SC_MF_HOLDABLE,                                         \
      "{session, stream}",                                                                         \
      "{graph, node_count, edge_count}",                                                           \
      "End capture; consumes the session; replies after the graph is committed.")                  \
    X(GRAPH_LIST, graph_list, "graph.list",                                                        \
      SC_MF_READS_STORE,                                                                           \
      "{limit?, before?, label?}",                                                                 \
      "{graphs, next?}",                                                                           \
      "Stored graphs the caller may read, newest first.")                                          \
    X(GRAPH_GET, graph_get, "graph.get",                                                           \
      SC_MF_READS_STORE,                                                                           \
      "{graph}",                                                                                   \
      "{graph, label, created_at, owner_uid, owner_pid, nodes, edges}",                            \
      "A stored graph.")                                                                           \
    X(GRAPH_REACHABLE, graph_reachable, "graph.reachable",                                         \
      SC_MF_READS_STORE,                                                                           \
      "{graph, from, to} | {graph, pairs}",                                                        \
      "{reachable}",                                                                               \
      "Does one op happen before another.")                                                        \
    X(GRAPH_EXPORT, graph_export, "graph.export",                                                  \
      SC_MF_READS_STORE,                                                                           \
      "{graph, format}",                                                                           \
      "{format, text}",                                                                            \
      "Export a stored graph as Graphviz DOT.")                                                    \
    X(GRAPH_DELETE, graph_delete, "graph.delete",                                                  \
      SC_MF_READS_STORE | SC_MF_WRITES_STORE,                                                      \
      "{graph}",                                                                                   \
      "{}",                                                                                        \
      "Delete a stored graph.")                                                                    \
    X(LOG_LIST, log_list, "log.list",                                                              \
      SC_MF_READS_STORE,                                                                           \
      "{limit?, before?, outcome?}",                                                               \
      "{entries, next?}",                                                                          \
      "The capture log, newest first.")                                                            \
    X(SERVER_INFO, server_info, "server.info",                                                     \
      SC_MF_READS_STORE,                                                                           \
      "{}",                                                                                        \
      "{version, uptime_s, connections, sessions, graphs, db_path, db_bytes, pid, sync, "          \
      "cache_max_bytes, cache_bytes, cache_entries, cache_hits, cache_misses}",                    \
      "Daemon status.")
/* clang-format on */

typedef enum sc_method_id {
#define SC_X_ENUM(id, handler, name, flags, params, result, summary) SC_M_##id,
    SC_METHODS(SC_X_ENUM)
#undef SC_X_ENUM
        SC_M__COUNT
} sc_method_id;

typedef struct sc_method_desc {
    sc_method_id id;
    const char *name;    /* "capture.begin" */
    unsigned flags;      /* SC_MF_* */
    const char *params;  /* one-line parameter summary */
    const char *result;  /* one-line result summary */
    const char *summary; /* one sentence */
} sc_method_desc;

/** All methods, indexed by sc_method_id. */
extern const sc_method_desc sc_methods[SC_M__COUNT];

/** Look a wire name up (exact, case-sensitive); NULL when unknown. */
const sc_method_desc *sc_method_lookup(const char *name, size_t len);

/** True when method `m` has every bit of `flags` (false for an unknown m). */
static inline bool sc_method_has(sc_method_id m, unsigned flags)
{
    return (unsigned)m < SC_M__COUNT && (sc_methods[m].flags & flags) == flags;
}

/** True for the methods that act on one live session (SC_MF_SESSION). */
static inline bool sc_method_on_session(sc_method_id m)
{
    return sc_method_has(m, SC_MF_SESSION);
}

#ifdef __cplusplus
}
#endif
#endif
