/*
 * sc_methods.h - the one list of protocol methods.
 *
 * SC_METHODS is an X-macro: every consumer (daemon dispatch, client, docs
 * and the openrpc sync test) expands it, so the methods can never drift
 * apart.  Columns:
 *   X(ID, handler, "wire.name", "params", "result", "summary")
 * ID names the enum value SC_M_<ID>; `handler` is the suffix the daemon
 * uses for its handler function (h_<handler>).
 */
#ifndef SC_METHODS_H
#define SC_METHODS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* clang-format off */
#define SC_METHODS(X)                                                                              \
    X(SESSION_OPEN, session_open, "session.open", "{label?}", "{session}",                         \
      "Open a capture session owned by the caller's uid; replies once its log row is committed.")  \
    X(SESSION_CLOSE, session_close, "session.close", "{session}", "{}",                            \
      "Discard a session without producing a graph; logged as closed.")                             \
    X(SESSION_INFO, session_info, "session.info", "{session}",                                     \
      "{session, label, capturing, node_count, streams}", "Describe a live session.")              \
    X(CAPTURE_BEGIN, capture_begin, "capture.begin", "{session, stream}", "{}",                    \
      "Begin capture on a stream.")                                                                 \
    X(CAPTURE_RECORD_KERNEL, capture_record_kernel, "capture.record_kernel",                       \
      "{session, stream, function_name, num_blocks, threads_per_block, shared_mem?}", "{node}",     \
      "Record a kernel launch.")                                                                    \
    X(CAPTURE_RECORD_MEMCPY, capture_record_memcpy, "capture.record_memcpy",                       \
      "{session, stream, name, dir, size_bytes, src_device?, dst_device?}", "{node}",               \
      "Record a memcpy.")                                                                           \
    X(CAPTURE_RECORD_MEMSET, capture_record_memset, "capture.record_memset",                       \
      "{session, stream, name, size_bytes, value}", "{node}", "Record a memset.")                  \
    X(CAPTURE_RECORD_HOST_CALLBACK, capture_record_host_callback, "capture.record_host_callback",  \
      "{session, stream, label}", "{node}", "Record a host callback.")                             \
    X(CAPTURE_RECORD_EVENT, capture_record_event, "capture.record_event",                          \
      "{session, stream, event}", "{}", "Point an event at the stream's last op.")                 \
    X(CAPTURE_WAIT_EVENT, capture_wait_event, "capture.wait_event", "{session, stream, event}",     \
      "{}", "Make the stream's next op depend on the event's op.")                                  \
    X(CAPTURE_STATUS, capture_status, "capture.status", "{session, stream}", "{status}",           \
      "Capture status of a stream: none, active or invalidated.")                                  \
    X(CAPTURE_IS_CAPTURING, capture_is_capturing, "capture.is_capturing", "{session}",             \
      "{capturing}", "Whether any stream of the session is active.")                               \
    X(CAPTURE_NODE_COUNT, capture_node_count, "capture.node_count", "{session}", "{node_count}",   \
      "Nodes recorded so far.")                                                                     \
    X(CAPTURE_INVALIDATE, capture_invalidate, "capture.invalidate", "{session, stream}", "{}",     \
      "Invalidate a stream and poison the session.")                                               \
    X(CAPTURE_END, capture_end, "capture.end", "{session, stream}",                                \
      "{graph, node_count, edge_count}",                                                            \
      "End capture; consumes the session; replies after the graph is committed.")                  \
    X(GRAPH_LIST, graph_list, "graph.list", "{limit?, before?, label?}", "{graphs, next?}",         \
      "Stored graphs the caller may read, newest first.")                                          \
    X(GRAPH_GET, graph_get, "graph.get", "{graph}",                                                \
      "{graph, label, created_at, owner_uid, owner_pid, nodes, edges}", "A stored graph.")          \
    X(GRAPH_REACHABLE, graph_reachable, "graph.reachable", "{graph, from, to} | {graph, pairs}",    \
      "{reachable}", "Does one op happen before another.")                                          \
    X(GRAPH_EXPORT, graph_export, "graph.export", "{graph, format}", "{format, text}",              \
      "Export a stored graph as Graphviz DOT.")                                                     \
    X(GRAPH_DELETE, graph_delete, "graph.delete", "{graph}", "{}", "Delete a stored graph.")       \
    X(LOG_LIST, log_list, "log.list", "{limit?, before?, outcome?}", "{entries, next?}",           \
      "The capture log, newest first.")                                                            \
    X(SERVER_INFO, server_info, "server.info", "{}",                                               \
      "{version, uptime_s, connections, sessions, graphs, db_path}", "Daemon status.")
/* clang-format on */

typedef enum sc_method_id {
#define SC_X_ENUM(id, handler, name, params, result, summary) SC_M_##id,
    SC_METHODS(SC_X_ENUM)
#undef SC_X_ENUM
        SC_M__COUNT
} sc_method_id;

typedef struct sc_method_desc {
    sc_method_id id;
    const char *name;    /* "capture.begin" */
    const char *params;  /* one-line parameter summary */
    const char *result;  /* one-line result summary */
    const char *summary; /* one sentence */
} sc_method_desc;

/** All methods, indexed by sc_method_id. */
extern const sc_method_desc sc_methods[SC_M__COUNT];

/** Look a wire name up (exact, case-sensitive); NULL when unknown. */
const sc_method_desc *sc_method_lookup(const char *name, size_t len);

/** True for the methods that act on one live session: the `session.*` and
 *  `capture.*` families (they touch no stored graph or log row to answer). */
bool sc_method_on_session(sc_method_id m);

#ifdef __cplusplus
}
#endif
#endif
