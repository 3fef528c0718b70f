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
 *   SC_MF_HOLDABLE     a write whose effect on the live session is complete
 *                      when it is queued (a default-mode session leaves the
 *                      table; a cuda-mode capture has ended in the model), so
 *                      the connection's next requests need not wait for its
 *                      commit (their replies are kept behind its).
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
      "{label?, semantics?, bind?}",                                                               \
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
      "{session, stream, mode?, thread?}",                                                         \
      "{}",                                                                                        \
      "Begin capture on a stream.")                                                                \
    X(CAPTURE_RECORD_KERNEL, capture_record_kernel, "capture.record_kernel",                       \
      SC_MF_SESSION,                                                                               \
      "{session, stream, function_name, num_blocks, threads_per_block, shared_mem?, args?, param_sizes?, grid?, block?, accesses?, call?, thread?}", \
      "{node}",                                                                                    \
      "Record a kernel launch.")                                                                   \
    X(CAPTURE_RECORD_MEMCPY, capture_record_memcpy, "capture.record_memcpy",                       \
      SC_MF_SESSION,                                                                               \
      "{session, stream, name, dir, size_bytes, src_device?, dst_device?, accesses?, call?, thread?}",               \
      "{node}",                                                                                    \
      "Record a memcpy.")                                                                          \
    X(CAPTURE_RECORD_MEMSET, capture_record_memset, "capture.record_memset",                       \
      SC_MF_SESSION,                                                                               \
      "{session, stream, name, size_bytes, value, accesses?, call?, thread?}",                                       \
      "{node}",                                                                                    \
      "Record a memset.")                                                                          \
    X(CAPTURE_RECORD_HOST_CALLBACK, capture_record_host_callback, "capture.record_host_callback",  \
      SC_MF_SESSION,                                                                               \
      "{session, stream, label, kind?, accesses?, call?, thread?}",                                           \
      "{node}",                                                                                    \
      "Record a host callback.")                                                                   \
    X(CAPTURE_RECORD_EVENT, capture_record_event, "capture.record_event",                          \
      SC_MF_SESSION,                                                                               \
      "{session, stream, event, external?, call?, thread?}",                                                                  \
      "{node?}",                                                                                        \
      "Point an event at the stream's last op.")                                                   \
    X(CAPTURE_WAIT_EVENT, capture_wait_event, "capture.wait_event",                                \
      SC_MF_SESSION,                                                                               \
      "{session, stream, event, external?, call?, thread?}",                                                                  \
      "{node?}",                                                                                        \
      "Make the stream's next op depend on the event's op.")                                       \
    X(CAPTURE_STATUS, capture_status, "capture.status",                                            \
      SC_MF_SESSION,                                                                               \
      "{session, stream, thread?}",                                                                         \
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
    X(STREAM_CREATE, stream_create, "stream.create",                                               \
      SC_MF_SESSION,                                                                               \
      "{session, stream, flags?, thread?}",                                                        \
      "{}",                                                                                        \
      "Cuda mode: declare a stream blocking (default) or non_blocking.")                           \
    X(CAPTURE_RECORD_MEM_ALLOC, capture_record_mem_alloc, "capture.record_mem_alloc",              \
      SC_MF_SESSION,                                                                               \
      "{session, stream, name, size_bytes, call?, thread?}",                                              \
      "{node}",                                                                                    \
      "Cuda mode: record a stream-ordered allocation.")                                            \
    X(CAPTURE_RECORD_MEM_FREE, capture_record_mem_free, "capture.record_mem_free",                 \
      SC_MF_SESSION,                                                                               \
      "{session, stream, name, call?, thread?}",                                                          \
      "{node}",                                                                                    \
      "Cuda mode: record a stream-ordered free.")                                                  \
    X(CAPTURE_UPDATE_DEPENDENCIES, capture_update_dependencies, "capture.update_dependencies",     \
      SC_MF_SESSION,                                                                               \
      "{session, stream, nodes, mode, thread?}",                                                   \
      "{}",                                                                                        \
      "Cuda mode: add to or replace a stream's dependency set.")                                   \
    X(CAPTURE_INFO, capture_info, "capture.info",                                                  \
      SC_MF_SESSION,                                                                               \
      "{session, stream, thread?}",                                                                \
      "{status, capture?, origin?, mode?, dependencies?}",                                         \
      "Cuda mode: a stream's capture, origin, mode and dependency set.")                           \
    X(CAPTURE_HOST_CALL, capture_host_call, "capture.host_call",                                   \
      SC_MF_SESSION,                                                                               \
      "{session, kind, stream?, event?, call?, thread?}",                                          \
      "{}",                                                                                        \
      "Cuda mode: a host call that may break captures (cudaMalloc, syncs).")                       \
    X(CAPTURE_EXCHANGE_MODE, capture_exchange_mode, "capture.exchange_mode",                       \
      SC_MF_SESSION,                                                                               \
      "{session, mode, thread?}",                                                                  \
      "{mode}",                                                                                    \
      "Cuda mode: set a thread's capture mode; returns the previous one.")                         \
    X(CAPTURE_ADD_NODE, capture_add_node, "capture.add_node",                                      \
      SC_MF_SESSION,                                                                               \
      "{session, stream, kind?, deps?, name?, node?, accesses?, thread?}",                                    \
      "{node}",                                                                                    \
      "Cuda mode: add a node to a capture's graph by hand.")                                       \
    X(CAPTURE_END, capture_end, "capture.end",                                                     \
      SC_MF_SESSION | SC_MF_WRITES_STORE | SC_MF_HOLDABLE,                                         \
      "{session, stream, bodies?, call?, thread?}",                                                \
      "{graph, capture?, node_count, edge_count, bodies?}",                                        \
      "End capture; replies after the graph is committed (default mode: consumes the session).")                  \
    X(GRAPH_LIST, graph_list, "graph.list",                                                        \
      SC_MF_READS_STORE,                                                                           \
      "{limit?, before?, label?, host?, nested?, fingerprint?}",                                                  \
      "{graphs, next?}",                                                                           \
      "Stored graphs the caller may read, newest first.")                                          \
    X(GRAPH_GET, graph_get, "graph.get",                                                           \
      SC_MF_READS_STORE,                                                                           \
      "{graph}",                                                                                   \
      "{graph, label, created_at, owner_uid, owner_pid, host, fingerprint, pinned, semantics?, capture?, parent?, nodes, edges}",                   \
      "A stored graph.")                                                                           \
    X(GRAPH_REACHABLE, graph_reachable, "graph.reachable",                                         \
      SC_MF_READS_STORE,                                                                           \
      "{graph, from, to} | {graph, pairs}",                                                        \
      "{reachable}",                                                                               \
      "Does one op happen before another.")                                                        \
    X(GRAPH_STATS, graph_stats, "graph.stats",                                                     \
      SC_MF_READS_STORE,                                                                           \
      "{graph}",                                                                                   \
      "{nodes, edges, by_kind, streams, roots, leaves, redundant_edges, critical_path, width}",    \
      "Counts of a stored graph: kinds, roots, leaves, redundant edges, critical path, width.")     \
    X(GRAPH_RACES, graph_races, "graph.races",                                                     \
      SC_MF_READS_STORE,                                                                           \
      "{graph, limit?}",                                                                           \
      "{races, count}",                                                                            \
      "Unordered node pairs whose buffer accesses overlap with a write.")                          \
    X(GRAPH_DIFF, graph_diff, "graph.diff",                                                        \
      SC_MF_READS_STORE,                                                                           \
      "{a, b}",                                                                                    \
      "{identical, nodes_added, nodes_removed, nodes_changed, edges_added, edges_removed}",        \
      "What changed from stored graph a to stored graph b: nodes matched by content per stream.") \
    X(GRAPH_EXPORT, graph_export, "graph.export",                                                  \
      SC_MF_READS_STORE,                                                                           \
      "{graph, format}",                                                                           \
      "{format, text}",                                                                            \
      "Export a stored graph as Graphviz DOT.")                                                    \
    X(GRAPH_DELETE, graph_delete, "graph.delete",                                                  \
      SC_MF_READS_STORE | SC_MF_WRITES_STORE,                                                      \
      "{graph, force?}",                                                                           \
      "{}",                                                                                        \
      "Delete a stored graph; a pinned one only with force.")                                      \
    X(GRAPH_PIN, graph_pin, "graph.pin",                                                           \
      SC_MF_READS_STORE | SC_MF_WRITES_STORE,                                                      \
      "{graph, pinned?}",                                                                          \
      "{graph, pinned}",                                                                           \
      "Pin (or, with pinned false, unpin) a stored graph: retention and prune never delete it.")  \
    X(STORE_PRUNE, store_prune, "store.prune",                                                     \
      SC_MF_READS_STORE | SC_MF_WRITES_STORE,                                                      \
      "{dry_run?, older_than?, keep?, max_db_size?, log_older_than?}",                             \
      "{dry_run, graphs, count, nodes, bytes, db_bytes, more, deleted?, log_rows?}",               \
      "Delete the oldest unpinned graphs a policy names (the daemon's, or the one given), or only list them.") \
    X(GRAPH_SUBMIT, graph_submit, "graph.submit",                                                  \
      SC_MF_READS_STORE | SC_MF_WRITES_STORE,                                                      \
      "{label?, nodes, edges}",                                                                    \
      "{graph, node_count, edge_count, bodies?}",                                                           \
      "Store a graph built outside any capture; replies after it is committed.")                   \
    X(STORE_BACKUP, store_backup, "store.backup",                                                  \
      SC_MF_READS_STORE,                                                                           \
      "{path, overwrite?}",                                                                        \
      "{path, bytes}",                                                                             \
      "Root or the daemon's uid: write a consistent copy of the SQLite database to an absolute path; replies once it is synced.") \
    X(LOG_LIST, log_list, "log.list",                                                              \
      SC_MF_READS_STORE,                                                                           \
      "{limit?, before?, outcome?, host?}",                                                         \
      "{entries, next?}",                                                                          \
      "The capture log, newest first.")                                                            \
    X(LOG_SUBSCRIBE, log_subscribe, "log.subscribe",                                               \
      SC_MF_READS_STORE,                                                                           \
      "{outcome?, host?}",                                                                           \
      "{}",                                                                                        \
      "Turn the connection into a stream of log.event notifications.")                             \
    X(SERVER_INFO, server_info, "server.info",                                                     \
      SC_MF_READS_STORE,                                                                           \
      "{}",                                                                                        \
      "{version, uptime_s, connections, sessions, graphs, db_path?, db_bytes, pid, sync, backend, host, "\
      "cache_max_bytes, cache_bytes, cache_entries, cache_hits, cache_misses, metrics}",           \
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
    const char *handler; /* "capture_begin": the daemon's sc_h_capture_begin */
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
