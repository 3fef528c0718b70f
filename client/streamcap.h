/*
 * streamcap.h - libstreamcap, the C client of streamcapd.
 *
 * One sc_client is one connection to the daemon's Unix socket.  Every call
 * blocks until its reply arrives (or the connection's time limit passes)
 * and returns 0 or a negative code:
 *
 *   - a negative errno value for local and transport failures (-ENOENT,
 *     -ECONNREFUSED, -ETIMEDOUT, -ECONNRESET, -EPROTO, -ENOMEM, -EINVAL, ...);
 *   - a value <= -1000 when the daemon answered with an error: SC_CLIENT_E*
 *     below; the daemon's own code is sc_client_errcode() and its message
 *     sc_client_errmsg().
 *
 * After a transport failure (timeout, closed connection, malformed reply)
 * the connection is out of step with the daemon: every later call returns
 * -ENOTCONN, and the handle can only be closed.
 *
 * Results come back through out-parameters.  Result structs are the
 * caller's (on the stack, say); the strings and arrays inside them are
 * allocated by the library and released with the matching *_free function,
 * which also resets the struct.  Out-parameters are written only on success.
 *
 * Threads: no global state.  A handle may be used from any thread but by
 * one thread at a time; use one connection per thread (in asynchronous
 * mode, below, several threads may call at once).
 *
 * Pipelining: between sc_client_pipeline_begin() and
 * sc_client_pipeline_collect(), the session and capture calls (those marked
 * [pipelined]) only queue their request and return 0 without writing their
 * out-parameters; collect sends whatever is left, reads every reply and
 * hands them back in order.  Other calls return -EBUSY meanwhile.
 */
#ifndef STREAMCAP_H
#define STREAMCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SC_CLIENT_API __attribute__((visibility("default")))
#else
#define SC_CLIENT_API
#endif

typedef struct sc_client sc_client;

/* ------------------------------------------------------------ errors */

/* The daemon answered with an error; sc_client_errcode() has its code. */
#define SC_CLIENT_ESERVER      (-1000) /* a code outside the ones below */
#define SC_CLIENT_ENOTFOUND    (-1001) /* unknown session, graph or node, or another user's */
#define SC_CLIENT_ESTATE       (-1002) /* already capturing / not capturing */
#define SC_CLIENT_EINVALIDATED (-1003) /* invalidated stream or poisoned session */
#define SC_CLIENT_EPERM        (-1005) /* from older daemons: another user's session or graph */
#define SC_CLIENT_ELIMIT       (-1006) /* a daemon limit was reached */
#define SC_CLIENT_ESTORAGE     (-1007) /* the database failed; nothing was stored */
#define SC_CLIENT_ESHUTDOWN    (-1008) /* the daemon is stopping */
#define SC_CLIENT_ECUDA        (-1009) /* CUDA would refuse it: sc_client_cuda_error() */
/* JSON-RPC 2.0 codes come back unchanged. */
#define SC_CLIENT_EPARSE    (-32700)
#define SC_CLIENT_EREQUEST  (-32600)
#define SC_CLIENT_EMETHOD   (-32601) /* the daemon does not know the method */
#define SC_CLIENT_EPARAMS   (-32602) /* a parameter is out of range; the message names it */
#define SC_CLIENT_EINTERNAL (-32603)

/** True when `rc` is an error reply from the daemon (rc <= -1000). */
SC_CLIENT_API bool sc_client_is_server_error(int rc);
/** A short static description of any return code. */
SC_CLIENT_API const char *sc_client_strerror(int rc);

/** The daemon's error code (1002, -32602, ...) of the last failed call; 0
 *  when it failed locally or nothing failed. */
SC_CLIENT_API int sc_client_errcode(const sc_client *c);
/** What went wrong in the last failed call: the daemon's message, or a
 *  description of the local failure.  "" after a call that succeeded. */
SC_CLIENT_API const char *sc_client_errmsg(const sc_client *c);
/** The `data` member of the last error reply as compact JSON text ("" when
 *  it had none, or nothing failed): the field a -32602 names, a cuda
 *  error's `cuda_name` and `unjoined` list.  Valid until the next call. */
SC_CLIENT_API const char *sc_client_errdata(const sc_client *c);
/** CUDA's error number (1, 401, 900-908) of the last failed call when the
 *  daemon answered 1009 (SC_CLIENT_ECUDA), else 0. */
SC_CLIENT_API int sc_client_cuda_error(const sc_client *c);

/* -------------------------------------------------------- connection */

#define SC_CLIENT_SOCKET_ENV "STREAMCAP_SOCKET"

/**
 * The socket streamcapd listens on by default, by the rule the daemon
 * uses too: $STREAMCAP_SOCKET when set and not empty; else
 * $XDG_RUNTIME_DIR/streamcap/streamcap.sock; else
 * /run/streamcap/streamcap.sock for root and
 * /tmp/streamcap-UID/streamcap.sock for any other uid.  The text belongs
 * to the library and stays valid until the calling thread calls this
 * again; "" when the path would not fit PATH_MAX.
 */
SC_CLIENT_API const char *sc_client_default_socket(void);

/**
 * Connect to the daemon at `path` (NULL: sc_client_default_socket()).
 * `timeout_ms` limits connecting and then every wait for the socket (a
 * reply that takes longer fails with -ETIMEDOUT); <= 0 waits forever.
 * Returns 0 and *out, or -ENOENT (no socket file), -ECONNREFUSED (nothing
 * listens there), -ENAMETOOLONG, -ETIMEDOUT, -EACCES, -ENOMEM ...
 */
SC_CLIENT_API int sc_client_connect(const char *path, int timeout_ms, sc_client **out);
/** Close the connection and free the handle; NULL is a no-op.  Sessions
 *  left open stay in the daemon until they time out. */
SC_CLIENT_API void sc_client_close(sc_client *c);
SC_CLIENT_API void sc_client_set_timeout(sc_client *c, int timeout_ms);
/** The socket path this handle connected to. */
SC_CLIENT_API const char *sc_client_socket_path(const sc_client *c);

/* ------------------------------------------------------------- values */

typedef enum sc_client_status {
    SC_CLIENT_STATUS_NONE = 0,
    SC_CLIENT_STATUS_ACTIVE,
    SC_CLIENT_STATUS_INVALIDATED,
} sc_client_status;

typedef enum sc_client_dir {
    SC_CLIENT_HOST_TO_DEVICE = 0,
    SC_CLIENT_DEVICE_TO_HOST,
    SC_CLIENT_DEVICE_TO_DEVICE,
    SC_CLIENT_PEER_TO_PEER, /* needs src_device and dst_device */
    /* cuda-mode sessions only */
    SC_CLIENT_HOST_TO_HOST,
    SC_CLIENT_DIR_DEFAULT, /* cudaMemcpyDefault: inferred from the pointers */
} sc_client_dir;

typedef enum sc_client_kind {
    SC_CLIENT_KERNEL = 0,
    SC_CLIENT_MEMCPY,
    SC_CLIENT_MEMSET,
    SC_CLIENT_HOST_CALLBACK,
    /* in cuda-mode graphs only */
    SC_CLIENT_MEM_ALLOC, /* size_bytes */
    SC_CLIENT_MEM_FREE,
    SC_CLIENT_EVENT_RECORD, /* event */
    SC_CLIENT_EVENT_WAIT,   /* event */
    SC_CLIENT_EMPTY,
    SC_CLIENT_GRAPH,       /* a child graph node (graph.submit: its body) */
    SC_CLIENT_CONDITIONAL, /* if / while / switch (graph.submit: its bodies) */
} sc_client_kind;

/** A conditional node's type, numbered as CUDA's
 *  cudaGraphConditionalNodeType; wire names "if" / "while" / "switch". */
typedef enum sc_client_cond_type {
    SC_CLIENT_COND_IF = 0,
    SC_CLIENT_COND_WHILE = 1,
    SC_CLIENT_COND_SWITCH = 2,
} sc_client_cond_type;

/** Wire names: "none" / "active" / "invalidated". */
SC_CLIENT_API const char *sc_client_status_name(sc_client_status s);
/** Wire names: "host_to_device", ... ; NULL for a value outside the enum. */
SC_CLIENT_API const char *sc_client_dir_name(sc_client_dir d);
/** "kernel" / "memcpy" / "memset" / "host_callback", and the cuda kinds'
 *  "mem_alloc" / "mem_free" / "event_record" / "event_wait" / "empty" /
 *  "graph" / "conditional". */
SC_CLIENT_API const char *sc_client_kind_name(sc_client_kind k);
/** Wire name -> enum: 0 or -EINVAL.  These two know the default mode's
 *  four directions only. */
SC_CLIENT_API int sc_client_dir_parse(const char *name, sc_client_dir *out);
/** As sc_client_dir_name / _parse, with cuda mode's "host_to_host" and
 *  "default" too. */
SC_CLIENT_API const char *sc_client_cuda_dir_name(sc_client_dir d);
SC_CLIENT_API int sc_client_cuda_dir_parse(const char *name, sc_client_dir *out);

/* ----------------------------------------------------------- sessions */

/** [pipelined] session.open: a new session owned by the caller's uid.
 *  `label` may be NULL. */
SC_CLIENT_API int sc_client_open_session(sc_client *c, const char *label, uint64_t *session);
/** [pipelined] session.close: discard the session (logged as closed). */
SC_CLIENT_API int sc_client_close_session(sc_client *c, uint64_t session);

typedef struct sc_client_stream {
    uint32_t stream;
    sc_client_status status;
} sc_client_stream;

typedef struct sc_client_session_desc {
    uint64_t session;
    char *label; /* as the daemon reports it; NULL when it says null */
    bool capturing;
    uint64_t node_count;
    size_t stream_count;
    sc_client_stream *streams;
} sc_client_session_desc;

/** session.info.  Free with sc_client_session_desc_free. */
SC_CLIENT_API int sc_client_session_info(sc_client *c, uint64_t session,
                                         sc_client_session_desc *out);
SC_CLIENT_API void sc_client_session_desc_free(sc_client_session_desc *d);

typedef struct sc_client_session_summary {
    uint64_t session;
    char *label; /* NULL when none */
    uint32_t owner_uid;
    int64_t owner_pid;
    char *opened_at; /* ISO 8601 UTC, as the capture log has it */
    char *semantics; /* the capture model: "oxicuda" */
    uint64_t node_count;
} sc_client_session_summary;

typedef struct sc_client_session_list {
    size_t count;
    sc_client_session_summary *sessions; /* in id order */
} sc_client_session_list;

/** session.list: the caller's live sessions (root: everyone's).  Free with
 *  sc_client_session_list_free. */
SC_CLIENT_API int sc_client_list_sessions(sc_client *c, sc_client_session_list *out);
SC_CLIENT_API void sc_client_session_list_free(sc_client_session_list *l);

/* ------------------------------------------------------------ capture */

/** [pipelined] capture.begin. */
SC_CLIENT_API int sc_client_begin_capture(sc_client *c, uint64_t session, uint32_t stream);
/** [pipelined] capture.record_kernel; *node (may be NULL) is the new node. */
SC_CLIENT_API int sc_client_record_kernel(sc_client *c, uint64_t session, uint32_t stream,
                                          const char *function_name, uint32_t num_blocks,
                                          uint32_t threads_per_block, uint32_t shared_mem,
                                          uint32_t *node);
/** [pipelined] capture.record_memcpy for every direction but peer_to_peer
 *  (host_to_host and default only in a cuda-mode session). */
SC_CLIENT_API int sc_client_record_memcpy(sc_client *c, uint64_t session, uint32_t stream,
                                          const char *name, sc_client_dir dir, uint64_t size_bytes,
                                          uint32_t *node);
/** [pipelined] capture.record_memcpy with dir peer_to_peer. */
SC_CLIENT_API int sc_client_record_memcpy_peer(sc_client *c, uint64_t session, uint32_t stream,
                                               const char *name, uint64_t size_bytes,
                                               uint32_t src_device, uint32_t dst_device,
                                               uint32_t *node);
/** [pipelined] capture.record_memset. */
SC_CLIENT_API int sc_client_record_memset(sc_client *c, uint64_t session, uint32_t stream,
                                          const char *name, uint64_t size_bytes, uint8_t value,
                                          uint32_t *node);
/** [pipelined] capture.record_host_callback. */
SC_CLIENT_API int sc_client_record_host_callback(sc_client *c, uint64_t session, uint32_t stream,
                                                 const char *label, uint32_t *node);
/** [pipelined] capture.record_event: point `event` at the stream's last op. */
SC_CLIENT_API int sc_client_record_event(sc_client *c, uint64_t session, uint32_t stream,
                                         uint32_t event);
/** [pipelined] capture.wait_event: the stream's next op depends on the event's op. */
SC_CLIENT_API int sc_client_wait_event(sc_client *c, uint64_t session, uint32_t stream,
                                       uint32_t event);
/** [pipelined] capture.status. */
SC_CLIENT_API int sc_client_capture_status(sc_client *c, uint64_t session, uint32_t stream,
                                           sc_client_status *status);
/** [pipelined] capture.is_capturing. */
SC_CLIENT_API int sc_client_is_capturing(sc_client *c, uint64_t session, bool *capturing);
/** [pipelined] capture.node_count. */
SC_CLIENT_API int sc_client_node_count(sc_client *c, uint64_t session, uint64_t *count);
/** [pipelined] capture.invalidate. */
SC_CLIENT_API int sc_client_invalidate(sc_client *c, uint64_t session, uint32_t stream);

typedef struct sc_client_captured {
    uint64_t graph;
    uint64_t node_count;
    uint64_t edge_count;
} sc_client_captured;

/** [pipelined] capture.end: the graph is committed when this returns 0.
 *  The session is consumed whether it succeeds or fails. */
SC_CLIENT_API int sc_client_end_capture(sc_client *c, uint64_t session, uint32_t stream,
                                        sc_client_captured *out);

/* ----------------------------------------------------- cuda semantics */

/*
 * A session opened with SC_CLIENT_SEMANTICS_CUDA captures the way the CUDA
 * runtime does (proto/PROTOCOL.md section 11, docs/cuda-semantics.md): a
 * capture begins on an origin stream, other streams join it by waiting on
 * an event recorded in it, and it must end on its origin with every joined
 * stream joined back.  The session outlives its captures; each successful
 * end stores one graph.  `thread` is the host thread making the call (0
 * when a program has one).  A call CUDA would refuse returns
 * SC_CLIENT_ECUDA with CUDA's number in sc_client_cuda_error().  The calls
 * below are not pipelined (-EBUSY in a pipeline); the default mode's
 * record, event, status and node-count calls work in a cuda session too,
 * as thread 0, while a capture is running.
 */

typedef enum sc_client_semantics {
    SC_CLIENT_SEMANTICS_OXICUDA = 0, /* the default: the StreamCapture model */
    SC_CLIENT_SEMANTICS_CUDA,
} sc_client_semantics;

typedef enum sc_client_capture_mode {
    SC_CLIENT_MODE_GLOBAL = 0,
    SC_CLIENT_MODE_THREAD_LOCAL,
    SC_CLIENT_MODE_RELAXED,
} sc_client_capture_mode;

typedef enum sc_client_host_call_kind {
    SC_CLIENT_HOST_UNSAFE = 0, /* cudaMalloc and the like */
    SC_CLIENT_HOST_STREAM_SYNC,
    SC_CLIENT_HOST_DEVICE_SYNC,
    SC_CLIENT_HOST_EVENT_SYNC,
    SC_CLIENT_HOST_LEGACY_SYNC,
} sc_client_host_call_kind;

/** Wire names: "oxicuda" / "cuda"; NULL outside the enum. */
SC_CLIENT_API const char *sc_client_semantics_name(sc_client_semantics s);
/** Wire names: "global" / "thread_local" / "relaxed"; NULL outside the enum. */
SC_CLIENT_API const char *sc_client_mode_name(sc_client_capture_mode m);

/** [pipelined] session.open with a capture model; `label` may be NULL.
 *  sc_client_open_session is this with SC_CLIENT_SEMANTICS_OXICUDA. */
SC_CLIENT_API int sc_client_open_session_ex(sc_client *c, const char *label,
                                            sc_client_semantics semantics, uint64_t *session);

/** Flags of sc_client_open_session_flags. */
#define SC_CLIENT_SESSION_BIND 1u /* the session ends as abandoned when this connection closes */

/** [pipelined] session.open with a capture model and SC_CLIENT_SESSION_*
 *  flags (0: as sc_client_open_session_ex); an unknown flag is -EINVAL. */
SC_CLIENT_API int sc_client_open_session_flags(sc_client *c, const char *label,
                                               sc_client_semantics semantics, unsigned flags,
                                               uint64_t *session);

/** stream.create: declare a stream non-blocking (or back to default). */
SC_CLIENT_API int sc_client_stream_create(sc_client *c, uint64_t session, uint32_t stream,
                                          bool non_blocking);

/** capture.begin on origin `stream` in `mode`; *capture (may be NULL) is
 *  the new capture's id (1, 2, ... in the session). */
SC_CLIENT_API int sc_client_cuda_begin(sc_client *c, uint64_t session, uint32_t stream,
                                       uint32_t thread, sc_client_capture_mode mode,
                                       uint64_t *capture);

/** Name the CUDA function (`call`, static text such as "cudaLaunchKernel")
 *  that the next capture.record_* (sc_client_cuda_record_*),
 *  capture.record_event, capture.wait_event (sc_client_cuda_event_ex) or
 *  capture.end (sc_client_cuda_end) request on `c` stands for: sent as its `call`, so that the log
 * and captures.inv_call name it when that request breaks a capture.  That request clears it,
 * whichever it is. */
SC_CLIENT_API void sc_client_next_call(sc_client *c, const char *call);

/** capture.record_kernel with a 3-D launch shape (each extent >= 1).
 *  *node (may be NULL) is the new node's id, or -1 when the stream is not
 *  capturing (the kernel ran, nothing was recorded). */
SC_CLIENT_API int sc_client_cuda_record_kernel(sc_client *c, uint64_t session, uint32_t stream,
                                               uint32_t thread, const char *function_name,
                                               const uint32_t grid[3], const uint32_t block[3],
                                               uint32_t shared_mem, int64_t *node);
/** sc_client_cuda_record_kernel with the kernel's argument values: `args`,
 *  args_len bytes, is each parameter's bytes packed in order (no padding)
 *  and param_sizes[0..nparams) their sizes, which must add up to args_len
 *  (-EINVAL otherwise, or for more than 32,764 bytes).  nparams 0 sends
 *  none, as sc_client_cuda_record_kernel does. */
SC_CLIENT_API int sc_client_cuda_record_kernel_args(sc_client *c, uint64_t session, uint32_t stream,
                                                    uint32_t thread, const char *function_name,
                                                    const uint32_t grid[3], const uint32_t block[3],
                                                    uint32_t shared_mem, const void *args,
                                                    size_t args_len, const uint32_t *param_sizes,
                                                    size_t nparams, int64_t *node);

/** sc_client_cuda_record_kernel_args with the kernel's buffer accesses
 *  (sc_client_access, below; n 0 sends none), refused here (-EINVAL) when
 *  one has size 0 or an unknown mode. */
struct sc_client_access;
SC_CLIENT_API int sc_client_cuda_record_kernel_accesses(
    sc_client *c, uint64_t session, uint32_t stream, uint32_t thread, const char *function_name,
    const uint32_t grid[3], const uint32_t block[3], uint32_t shared_mem, const void *args,
    size_t args_len, const uint32_t *param_sizes, size_t nparams,
    const struct sc_client_access *acc, size_t n, int64_t *node);

/** capture.record_event (wait false) or capture.wait_event (wait true). */
SC_CLIENT_API int sc_client_cuda_event(sc_client *c, uint64_t session, uint32_t stream,
                                       uint32_t thread, uint32_t event, bool wait);
/** sc_client_cuda_event with CUDA's external flag (cudaEventRecordExternal,
 *  cudaEventWaitExternal): in a capture the record or wait is then a node of
 *  its own, whose id is *node (may be NULL); -1 when no node was made. */
SC_CLIENT_API int sc_client_cuda_event_ex(sc_client *c, uint64_t session, uint32_t stream,
                                          uint32_t thread, uint32_t event, bool wait, bool external,
                                          int64_t *node);

/** capture.update_dependencies: add `nodes` to the stream's dependency set,
 *  or (`set`) replace the set with them. */
SC_CLIENT_API int sc_client_update_dependencies(sc_client *c, uint64_t session, uint32_t stream,
                                                uint32_t thread, const uint32_t *nodes,
                                                size_t count, bool set);

typedef struct sc_client_capture_info {
    sc_client_status status;     /* none, active or invalidated */
    uint64_t capture;            /* 0 unless active */
    uint32_t origin;             /* active only */
    sc_client_capture_mode mode; /* active only */
    size_t dependency_count;
    uint32_t *dependencies; /* ascending node ids; NULL when none */
} sc_client_capture_info;

/** capture.info: the capture `stream` belongs to.  Free with
 *  sc_client_capture_info_free. */
SC_CLIENT_API int sc_client_capture_info_get(sc_client *c, uint64_t session, uint32_t stream,
                                             uint32_t thread, sc_client_capture_info *out);
SC_CLIENT_API void sc_client_capture_info_free(sc_client_capture_info *i);

/** capture.host_call: a call that is no stream work but may break captures.
 *  `stream` counts for STREAM_SYNC, `event` for EVENT_SYNC; `call` (may be
 *  NULL) is the CUDA function's name ("cudaMalloc"), kept in the log of
 *  every capture it invalidates. */
SC_CLIENT_API int sc_client_host_call(sc_client *c, uint64_t session, uint32_t thread,
                                      sc_client_host_call_kind kind, uint32_t stream,
                                      uint32_t event, const char *call);

/** capture.exchange_mode: set `thread`'s capture mode; *old (may be NULL)
 *  is the one it had. */
SC_CLIENT_API int sc_client_exchange_mode(sc_client *c, uint64_t session, uint32_t thread,
                                          sc_client_capture_mode mode, sc_client_capture_mode *old);

typedef struct sc_client_cuda_captured {
    uint64_t graph;
    uint64_t capture;
    uint64_t node_count;
    uint64_t edge_count;
} sc_client_cuda_captured;

/** capture.end on the capture's origin: the graph is committed when this
 *  returns 0.  The session stays open for further captures. */
SC_CLIENT_API int sc_client_cuda_end(sc_client *c, uint64_t session, uint32_t stream,
                                     uint32_t thread, sc_client_cuda_captured *out);

/*
 * sc_client_cuda_end with the bodies of the capture's child graph and
 * conditional nodes (capture.end `bodies`), n of them at `bodies`: each is
 * stored as a graph of its own linked to its node, with the graph, before
 * the reply; a body that cannot be stored fails the end and the graph is
 * deleted.  The daemon refuses (-32602, the capture still running) a node
 * that is not of kind graph or conditional, a graph node's index other
 * than 0, or a body given twice.  Also in asynchronous mode.
 */
struct sc_client_body;
SC_CLIENT_API int sc_client_cuda_end_bodies(sc_client *c, uint64_t session, uint32_t stream,
                                            uint32_t thread, const struct sc_client_body *bodies,
                                            size_t n, sc_client_cuda_captured *out);

/*
 * The other record calls of a cuda-mode session.  *node (may be NULL) is
 * the new node's id, or -1 when the stream is not capturing (the work was
 * done, nothing was recorded).
 */

/** capture.record_memcpy with any direction, host_to_host and default
 *  included; `src_device` and `dst_device` are sent for peer_to_peer only. */
SC_CLIENT_API int sc_client_cuda_record_memcpy(sc_client *c, uint64_t session, uint32_t stream,
                                               uint32_t thread, const char *name, sc_client_dir dir,
                                               uint64_t size_bytes, uint32_t src_device,
                                               uint32_t dst_device, int64_t *node);
/** capture.record_memset. */
SC_CLIENT_API int sc_client_cuda_record_memset(sc_client *c, uint64_t session, uint32_t stream,
                                               uint32_t thread, const char *name,
                                               uint64_t size_bytes, uint8_t value, int64_t *node);
/** A range of memory a recorded node reads or writes: `mode` 1 read,
 *  2 write, 3 read_write (sc_client_access_mode_name); size at least 1. */
typedef struct sc_client_access {
    uint64_t address, size;
    unsigned mode;
} sc_client_access;

/** sc_client_cuda_record_memcpy and sc_client_cuda_record_memset with the
 *  node's buffer accesses (docs/analyses.md, "Buffer accesses"); n 0 sends
 *  none.  An access with size 0 or an unknown mode is refused here
 *  (-EINVAL) before anything is sent. */
SC_CLIENT_API int
sc_client_cuda_record_memcpy_accesses(sc_client *c, uint64_t session, uint32_t stream,
                                      uint32_t thread, const char *name, sc_client_dir dir,
                                      uint64_t size_bytes, uint32_t src_device, uint32_t dst_device,
                                      const sc_client_access *acc, size_t n, int64_t *node);
SC_CLIENT_API int sc_client_cuda_record_memset_accesses(sc_client *c, uint64_t session,
                                                        uint32_t stream, uint32_t thread,
                                                        const char *name, uint64_t size_bytes,
                                                        uint8_t value, const sc_client_access *acc,
                                                        size_t n, int64_t *node);
/** capture.record_host_callback. */
SC_CLIENT_API int sc_client_cuda_record_host_callback(sc_client *c, uint64_t session,
                                                      uint32_t stream, uint32_t thread,
                                                      const char *label, int64_t *node);
/** capture.record_host_callback with `kind` graph: a graph launched into
 *  the capture (cudaGraphLaunch), a child graph node whose body comes with
 *  the end (sc_client_cuda_end_bodies). */
SC_CLIENT_API int sc_client_cuda_record_graph(sc_client *c, uint64_t session, uint32_t stream,
                                              uint32_t thread, const char *label, int64_t *node);
/** capture.record_mem_alloc: a stream-ordered allocation (cudaMallocAsync). */
SC_CLIENT_API int sc_client_cuda_record_mem_alloc(sc_client *c, uint64_t session, uint32_t stream,
                                                  uint32_t thread, const char *name,
                                                  uint64_t size_bytes, int64_t *node);
/** capture.record_mem_free: a stream-ordered free (cudaFreeAsync). */
SC_CLIENT_API int sc_client_cuda_record_mem_free(sc_client *c, uint64_t session, uint32_t stream,
                                                 uint32_t thread, const char *name, int64_t *node);
/** capture.add_node: a node of `kind` put straight into the graph of
 *  `stream`'s capture, with an edge from each of deps[0..ndeps) (node
 *  ids of that capture); the stream's dependency set is left as it is.
 *  `name` may be NULL.  *node (may be NULL) is the new node's id. */
SC_CLIENT_API int sc_client_cuda_add_node(sc_client *c, uint64_t session, uint32_t stream,
                                          uint32_t thread, sc_client_kind kind,
                                          const uint32_t *deps, size_t ndeps, const char *name,
                                          uint32_t *node);
typedef struct sc_client_node sc_client_node; /* below, with graphs */

/** capture.add_node with the whole node: like sc_client_cuda_add_node, but
 *  the stored node has node's kind and the attributes graph.submit would
 *  send for it (a kernel's function_name and launch shape, a memcpy's
 *  direction and size, ...); node->stream and node->id are ignored (the
 *  node is on `stream`).  *node_out (may be NULL) is the new node's id.
 *  Also in asynchronous mode (the out-parameter is then left as it is). */
SC_CLIENT_API int sc_client_cuda_add_node_ex(sc_client *c, uint64_t session, uint32_t stream,
                                             uint32_t thread, const sc_client_node *node,
                                             const uint32_t *deps, size_t ndeps, int64_t *node_out);

/* ----------------------------------------------------------- pipeline */

/** One reply of a pipelined or asynchronous call. */
typedef struct sc_client_reply {
    const char *method;      /* wire name of the call ("capture.begin"), static */
    int rc;                  /* what the blocking call would have returned */
    int errcode;             /* the daemon's code when rc <= -1000, else 0 */
    char *errmsg;            /* the daemon's message when rc != 0, else NULL */
    uint64_t id;             /* session.open: session; record_*, add_node: node
                              * (UINT64_MAX when a cuda-mode record answered null);
                              * capture.end, graph.submit: graph */
    uint64_t node_count;     /* capture.node_count, capture.end, graph.submit */
    uint64_t edge_count;     /* capture.end, graph.submit */
    sc_client_status status; /* capture.status */
    bool capturing;          /* capture.is_capturing */
    /* Added with the asynchronous mode (a program built against the older
     * header indexes pipeline replies with the older size: rebuild it). */
    int cuda_error;   /* data.cuda_error of a 1009 error (900, 904, ...), else 0 */
    char *errdata;    /* the error's data member as compact JSON; NULL when none */
    uint64_t capture; /* cuda mode's capture.begin and capture.end: the capture id */
} sc_client_reply;

/** Start queuing.  -EBUSY when a pipeline is already open. */
SC_CLIENT_API int sc_client_pipeline_begin(sc_client *c);
/** Number of calls queued since sc_client_pipeline_begin. */
SC_CLIENT_API size_t sc_client_pipeline_size(const sc_client *c);
/**
 * Send what is queued, read every reply and end the pipeline.  On 0,
 * *replies (malloc'd; free with sc_client_replies_free) holds *count
 * replies in call order, each with its own rc.  A transport failure returns
 * its negative code and no replies.
 */
SC_CLIENT_API int sc_client_pipeline_collect(sc_client *c, sc_client_reply **replies,
                                             size_t *count);
SC_CLIENT_API void sc_client_replies_free(sc_client_reply *replies, size_t count);

/* -------------------------------------------------------------- async */

/*
 * Asynchronous (streaming) mode, for a program that must never wait on the
 * daemon per call (the CUDA runtime stand-in).  After sc_client_async_begin
 * the session, capture and cuda-mode calls (those marked [pipelined], the
 * cuda-mode calls above but capture.info, and sc_client_graph_submit) only
 * format their request, queue it and return 0 at once, out-parameters
 * untouched; a background thread of the handle sends the queued bytes and
 * reads the replies.  Each reply is decoded as a pipeline's is and handed
 * to fn(arg, seq, reply) on that thread, in call order; seq numbers the
 * calls 1, 2, 3 ... from sc_client_async_begin on.  The reply and what it
 * points to are valid during fn only.  fn must not block for long: the
 * thread reads nothing meanwhile.
 *
 * Calls may come from several threads at once.  A call returns a local
 * error only: -ENOMEM, -EINVAL, -EBUSY (a call that needs its reply:
 * graph.get, session.info, capture.info, ...), -ETIMEDOUT when the window
 * is full (below) past the handle's time limit, or, once the connection is
 * known dead, the transport error (-ECONNRESET, -EPIPE, -EPROTO ...) at
 * once.  sc_client_errmsg is unreliable with several threads; each reply
 * carries its own error.
 *
 * The mode lasts until sc_client_close, which stops the thread and drops
 * the replies still outstanding (their fn is never called).
 */

/** A reply handed over by the I/O thread (see above). */
typedef void (*sc_client_reply_fn)(void *arg, uint64_t seq, const sc_client_reply *reply);

/** Switch `c` to asynchronous mode and start its I/O thread.  -EBUSY when
 *  a pipeline is open or the mode is already on; -ENOTCONN on a broken
 *  handle; -EINVAL without fn; -ENOMEM or -EAGAIN when no thread starts. */
SC_CLIENT_API int sc_client_async_begin(sc_client *c, sc_client_reply_fn fn, void *arg);
/** Wait until every call made so far is sent and its reply handed to fn.
 *  `timeout_ms` bounds the wait (<= 0: no bound).  0, -ETIMEDOUT (the mode
 *  goes on; drain again or close), the transport error that ended the
 *  connection, or -EINVAL when the mode is off. */
SC_CLIENT_API int sc_client_async_drain(sc_client *c, int timeout_ms);
/** The window: unsent bytes past which a call waits for the I/O thread (0:
 *  the default, 64 MiB).  A caller with a queue of its own (the CUDA
 *  runtime stand-in) sets a small one.  0, or -EINVAL when the mode is off. */
SC_CLIENT_API int sc_client_async_window(sc_client *c, size_t bytes);
/** Calls made since sc_client_async_begin whose reply has not come yet. */
SC_CLIENT_API uint64_t sc_client_async_pending(sc_client *c);

/* ------------------------------------------------------------- graphs */

struct sc_client_node {
    uint32_t id;
    sc_client_kind kind;
    uint32_t stream;
    char *name;
    /* kernel */
    char *function_name;
    uint32_t num_blocks;
    uint32_t threads_per_block;
    uint32_t shared_mem;
    /* memcpy */
    sc_client_dir dir;
    uint32_t src_device; /* peer_to_peer only */
    uint32_t dst_device;
    /* memcpy and memset */
    uint64_t size_bytes;
    /* memset */
    uint8_t value;
    /* host_callback */
    char *label;
    /* Added with cuda semantics (a program built against the older header
     * indexes the nodes with the older size: rebuild it).  Kernels' 3-D
     * launch shape: grid[0] is num_blocks and block[0] threads_per_block;
     * dim3 is true when the daemon sent the shape (cuda-mode graphs), else
     * the y and z extents are 1. */
    uint32_t grid[3];
    uint32_t block[3];
    bool dim3;
    /* event_record and event_wait */
    uint32_t event;
    /* Added with kernel arguments (a program built against the older
     * header indexes the nodes with the older size: rebuild it).  A
     * kernel's argument values as capture.record_kernel takes them
     * (sc_client_cuda_record_kernel_args): args_len bytes, each
     * parameter's packed in order, and param_sizes[0..nparams) their
     * sizes; NULL and 0 when it has none.  graph.get fills them (freed
     * with the graph); graph.submit and capture.add_node send them when
     * nparams is not 0 (the sizes must add up to args_len). */
    uint8_t *args;
    size_t args_len;
    uint32_t *param_sizes;
    size_t nparams;
    /* Added with conditional nodes (rebuild a program built against the
     * older header).  A conditional's type, number of bodies (if 1 or 2,
     * while 1, switch 1 or more), and its condition handle's default
     * value and flags (1: the default is assigned at each launch). */
    sc_client_cond_type cond_type;
    uint32_t cond_size;
    uint32_t cond_default;
    uint32_t cond_flags;
    /* Added with body graphs (rebuild against this header): graph.get's
     * `child` of a graph node (one id) or `bodies` of a conditional node
     * (ids in body order), the stored graphs the node holds; NULL and 0
     * for other kinds, and ignored by graph.submit. */
    uint64_t *bodies;
    size_t nbodies;
    /* Added with buffer accesses (rebuild against this header): the ranges
     * the node reads and writes (docs/analyses.md), sent by graph.submit and
     * capture.add_node when naccesses is not 0 (each of size 1 or more and
     * mode 1, 2 or 3, else -EINVAL before anything is sent); graph.get
     * fills them (freed with the graph), NULL and 0 for a node without any. */
    sc_client_access *accesses;
    size_t naccesses;
};

typedef struct sc_client_edge {
    uint32_t src;
    uint32_t dst;
} sc_client_edge;

typedef struct sc_client_graph {
    uint64_t graph;
    char *label;      /* NULL when none */
    char *created_at; /* ISO 8601 UTC, "2026-11-29T19:44:21.123Z" */
    uint32_t owner_uid;
    int64_t owner_pid;
    size_t node_count;
    sc_client_node *nodes; /* in id order */
    size_t edge_count;
    sc_client_edge *edges; /* ascending */
    /* Added with hosts: a program built against the older header passes
     * storage too small for it (rebuild it). */
    char *host; /* the --host-name of the daemon that stored it ("" from a
                 * daemon older than hosts; never NULL) */
} sc_client_graph;

/**
 * graph.submit: store a graph built outside any capture (a program's
 * hand-built cudaGraph_t) as the caller's.  `label` NULL is "submitted".
 * Node i is nodes[i] (its `id` is ignored; `kind`, `stream`, `name` and the
 * members of its kind are sent, kernels with grid and block when dim3 is
 * set, else num_blocks and threads_per_block); edges are (src, dst) index
 * pairs, sent sorted, each src < dst.  *graph (may be NULL) is the stored
 * graph's id once it is committed.  Also in asynchronous mode (the reply's
 * id is then the graph).
 */
SC_CLIENT_API int sc_client_graph_submit(sc_client *c, const char *label,
                                         const sc_client_node *nodes, size_t n,
                                         const sc_client_edge *edges, size_t m, uint64_t *graph);

/**
 * A graph for sc_client_graph_submit_nested: nodes and edges as
 * sc_client_graph_submit takes them, and when `bodies` is not NULL, for
 * each node i, nbodies[i] body graphs at bodies[i] (one for a node of kind
 * SC_CLIENT_GRAPH, one or more for SC_CLIENT_CONDITIONAL, none for the
 * other kinds), nested to any depth the daemon accepts (16).  A
 * conditional's cond_size must equal its nbodies.
 */
typedef struct sc_client_subgraph {
    const sc_client_node *nodes;
    size_t n;
    const sc_client_edge *edges;
    size_t m;
    const struct sc_client_subgraph *const *bodies;
    const size_t *nbodies;
} sc_client_subgraph;

/** A body for sc_client_cuda_end_bodies: the graph body `index` of node
 *  `node` of the capture holds (a child graph node's one body has index 0;
 *  a conditional node's are in body order), bodies of its own nested. */
typedef struct sc_client_body {
    uint32_t node;
    uint32_t index;
    sc_client_subgraph graph;
} sc_client_body;

/** graph.submit of a graph whose nodes may hold body graphs: each body is
 *  stored as a graph of its own linked to its node.  *graph (may be NULL)
 *  is the top-level graph's id.  -EINVAL for a graph or conditional node
 *  without bodies.  Also in asynchronous mode. */
SC_CLIENT_API int sc_client_graph_submit_nested(sc_client *c, const char *label,
                                                const sc_client_subgraph *g, uint64_t *graph);

/** graph.get.  Free with sc_client_graph_free. */
SC_CLIENT_API int sc_client_graph_get(sc_client *c, uint64_t graph, sc_client_graph *out);
SC_CLIENT_API void sc_client_graph_free(sc_client_graph *g);

/** Paging for the list calls; zero-initialise for the defaults. */
typedef struct sc_client_list_opts {
    uint32_t limit;     /* 0: the daemon's default (100) */
    const char *before; /* a `next` cursor from an earlier page, or NULL */
    const char *filter; /* graph.list: label; log.list: outcome; NULL for all */
    /* Only rows stored by the daemon with this --host-name; NULL for all.
     * A caller other than root sees only its own daemon's host: another
     * host gives an empty page. */
    const char *host;
} sc_client_list_opts;

typedef struct sc_client_graph_summary {
    uint64_t graph;
    char *label; /* NULL when none */
    char *created_at;
    uint64_t node_count;
    uint64_t edge_count;
    uint64_t stream_count;
    uint32_t owner_uid;
    int64_t owner_pid;
    /* Added later (rebuild against this header): host as sc_client_graph's;
     * pinned by graph.pin (false from an older daemon), never pruned. */
    char *host;
    bool pinned;
} sc_client_graph_summary;

typedef struct sc_client_graph_page {
    size_t count;
    sc_client_graph_summary *graphs; /* newest first */
    char *next; /* cursor (compact JSON text) for the next page; NULL on the last */
} sc_client_graph_page;

/** graph.list (opts may be NULL).  Free with sc_client_graph_page_free. */
SC_CLIENT_API int sc_client_graph_list(sc_client *c, const sc_client_list_opts *opts,
                                       sc_client_graph_page *out);
SC_CLIENT_API void sc_client_graph_page_free(sc_client_graph_page *p);

/** graph.reachable: does op `from` happen before op `to` (reflexive). */
SC_CLIENT_API int sc_client_graph_reachable(sc_client *c, uint64_t graph, uint32_t from,
                                            uint32_t to, bool *reachable);

/** graph.stats' figures (docs/analyses.md); all counts. */
typedef struct sc_client_stats {
    uint64_t nodes, edges;
    uint64_t by_kind[SC_CLIENT_CONDITIONAL + 1]; /* indexed by sc_client_kind */
    uint64_t streams, roots, leaves;
    uint64_t redundant_edges; /* edges implied by other paths */
    uint64_t critical_path;   /* nodes on a longest path */
    uint64_t width;           /* mutually unordered nodes found: a lower bound */
} sc_client_stats;

/** graph.stats of a stored graph into *out. */
SC_CLIENT_API int sc_client_graph_stats(sc_client *c, uint64_t graph, sc_client_stats *out);

/** One race of graph.races (docs/analyses.md): nodes a < b that no path
 *  orders, and a maximal range [address, address + size) over which a
 *  accesses memory as a_mode and b as b_mode (1 read, 2 write, 3
 *  read_write, core's sc_access_mode values), at least one writing. */
typedef struct sc_client_race {
    uint32_t a, b;
    uint64_t address, size;
    unsigned a_mode, b_mode;
} sc_client_race;

/** graph.races' result: the first races in (a, b, address) order, and
 *  the number of all of them. */
typedef struct sc_client_races {
    sc_client_race *races;
    size_t n;
    uint64_t count;
} sc_client_races;

/** graph.races of a stored graph, at most `limit` races listed (0: the
 *  count alone; the daemon takes up to 100,000).  Free with
 *  sc_client_races_free. */
SC_CLIENT_API int sc_client_graph_races(sc_client *c, uint64_t graph, uint32_t limit,
                                        sc_client_races *out);
SC_CLIENT_API void sc_client_races_free(sc_client_races *r);
/** "read", "write", "read_write" for an sc_client_race mode; NULL otherwise. */
SC_CLIENT_API const char *sc_client_access_mode_name(unsigned mode);

/** A node of graph a matched with a node of b whose members differ. */
typedef struct sc_client_node_change {
    uint32_t a, b;
    char *fields; /* the graph.get node members that differ, comma-separated */
} sc_client_node_change;

/** graph.diff's result (docs/analyses.md, "graph.diff"). */
typedef struct sc_client_diff {
    bool identical;
    uint32_t *nodes_added; /* ids in b */
    size_t n_added;
    uint32_t *nodes_removed; /* ids in a */
    size_t n_removed;
    sc_client_node_change *nodes_changed;
    size_t n_changed;
    sc_client_edge *edges_added; /* in b ids */
    size_t n_edges_added;
    sc_client_edge *edges_removed; /* in a ids */
    size_t n_edges_removed;
} sc_client_diff;

/** graph.diff from stored graph a to stored graph b into *out (free it
 *  with sc_client_diff_free). */
SC_CLIENT_API int sc_client_graph_diff(sc_client *c, uint64_t a, uint64_t b, sc_client_diff *out);
/** Free what sc_client_graph_diff() put into d; NULL is a no-op. */
SC_CLIENT_API void sc_client_diff_free(sc_client_diff *d);

typedef struct sc_client_pair {
    uint32_t from;
    uint32_t to;
} sc_client_pair;

/** graph.reachable for many pairs: reachable[i] answers pairs[i].  Large
 *  counts are split over several requests. */
SC_CLIENT_API int sc_client_graph_reachable_pairs(sc_client *c, uint64_t graph,
                                                  const sc_client_pair *pairs, size_t count,
                                                  bool *reachable);

/** graph.export as Graphviz DOT; *text is malloc'd (free()). */
SC_CLIENT_API int sc_client_graph_export_dot(sc_client *c, uint64_t graph, char **text);
/** graph.delete. */
SC_CLIENT_API int sc_client_graph_delete(sc_client *c, uint64_t graph);

/* ---------------------------------------------------------------- log */

/* A cuda-mode session's ended capture, as its log row has it. */
typedef struct sc_client_capture_record {
    uint64_t capture;
    uint32_t origin;
    char *mode; /* "global", "thread_local", "relaxed" */
    uint32_t thread;
    char *outcome; /* completed, failed, discarded */
    uint64_t node_count;
    char *ended_at;
    uint64_t graph;  /* completed only, else 0 */
    int cuda_error;  /* failed only (901, 904), else 0 */
    char *cuda_name; /* failed only, else NULL */
    /* The first call that invalidated the capture; inv_method is NULL when
     * none did. */
    char *inv_method; /* "capture.host_call", "capture.record_kernel", ... */
    uint32_t inv_stream;
    bool inv_has_event;
    uint32_t inv_event;
    uint32_t inv_thread;
    char *inv_call; /* the CUDA function ("cudaMalloc"); NULL when not named */
    int inv_cuda_error;
    char *inv_cuda_name;
    char *inv_message; /* CUDA's text for inv_cuda_error */
} sc_client_capture_record;

typedef struct sc_client_log_entry {
    uint64_t session;
    char *label; /* NULL when none */
    uint32_t owner_uid;
    int64_t owner_pid;
    char *opened_at;
    char *ended_at; /* NULL while the session is open */
    char *outcome;  /* open, completed, failed, closed, abandoned, shutdown, lost */
    uint64_t node_count;
    uint64_t graph; /* 0 unless completed */
    /* Added with cuda semantics: a program built against the older header
     * indexes the entries with the older size (rebuild it). */
    char *semantics; /* "cuda" for a cuda-mode session, else NULL */
    size_t capture_count;
    sc_client_capture_record *captures; /* by id; NULL when none */
    /* Added with hosts (rebuild as above). */
    char *host; /* the --host-name of the daemon that wrote the row ("" from
                 * a daemon older than hosts; never NULL) */
} sc_client_log_entry;

typedef struct sc_client_log_page {
    size_t count;
    sc_client_log_entry *entries; /* newest first */
    char *next;
} sc_client_log_page;

/** log.list (opts may be NULL; opts->filter is an outcome).  Free with
 *  sc_client_log_page_free. */
SC_CLIENT_API int sc_client_log_list(sc_client *c, const sc_client_list_opts *opts,
                                     sc_client_log_page *out);
SC_CLIENT_API void sc_client_log_page_free(sc_client_log_page *p);

/**
 * log.subscribe: turn the connection into a stream of log.event
 * notifications, of the events `outcome` (NULL: all; an outcome as in
 * log.list, session events and capture_ended only) and `host` (NULL: any)
 * select.  0 once the daemon answered; a bad filter comes back as
 * SC_CLIENT_EPARAMS with sc_client_errmsg naming it, the connection
 * unchanged.  Not in a pipeline or asynchronous mode (-EBUSY).
 *
 * After it succeeds the connection is the stream's alone: every other
 * call returns -EBUSY; read it with sc_client_log_next, end it with
 * sc_client_close.
 */
SC_CLIENT_API int sc_client_log_subscribe(sc_client *c, const char *outcome, const char *host);
/**
 * The next log.event of a subscribed connection: 0 and *params_json, its
 * `params` object as compact JSON text (malloc'd; free() it), whose
 * `event` names the kind (see the protocol's log.subscribe).  Waits up to
 * `timeout_ms` (< 0: forever; 0: only what has arrived).  Returns
 * -ETIMEDOUT when none came in time (the stream stays usable: call
 * again), -ECONNRESET at the end of the stream (the daemon closed the
 * connection; after an `event: "dropped"` notification when it dropped a
 * subscriber that read too slowly), -EINVAL when the connection is not
 * subscribed, -EPROTO for a line that is not a log.event.
 */
SC_CLIENT_API int sc_client_log_next(sc_client *c, int timeout_ms, char **params_json);

/* ------------------------------------------------------------- server */

/*
 * server.info's result.  The members from db_bytes on were added in 0.1
 * after the first release of the struct: a program built against the
 * older header passes storage too small for them (rebuild it).
 */
typedef struct sc_client_server_desc {
    char *version;
    uint64_t uptime_s;
    /* For a caller other than root: only its own connections, live
     * sessions and stored graphs, db_path NULL, and db_bytes and the
     * cache_bytes, cache_entries, cache_hits, cache_misses 0. */
    uint64_t connections;
    uint64_t sessions;
    uint64_t graphs;
    char *db_path;     /* NULL: the daemon shows it to root only */
    uint64_t db_bytes; /* database file plus write-ahead log */
    int64_t pid;       /* the daemon's process id */
    char *sync;        /* "full" or "normal" (--sync) */
    uint64_t cache_max_bytes;
    uint64_t cache_bytes;
    uint64_t cache_entries;
    uint64_t cache_hits;   /* graph look-ups answered from memory since the start */
    uint64_t cache_misses; /* look-ups that waited for a load */
    /* Added with storage backends (rebuild as above). */
    char *backend; /* "sqlite" or "postgresql"; "" from an older daemon */
    char *host;    /* the daemon's --host-name; "" from an older daemon */
} sc_client_server_desc;

/** server.info.  Free with sc_client_server_desc_free. */
SC_CLIENT_API int sc_client_server_info(sc_client *c, sc_client_server_desc *out);
SC_CLIENT_API void sc_client_server_desc_free(sc_client_server_desc *d);

/* ---------------------------------------------------------------- raw */

/** Send one request for any method, with `params_json` (a JSON object or
 *  array as text; NULL means {}) as its params, and wait for the reply.  On
 *  0, *result_json (malloc'd; free()) is the reply's result as compact JSON
 *  text.  A daemon error comes back as for the typed calls (<= -1000 or a
 *  JSON-RPC code, with sc_client_errcode/sc_client_errmsg); params that are
 *  not JSON are -EINVAL, and nothing is sent.  Not while a pipeline is open
 *  (-EBUSY).  For tools and tests: the typed calls are the API. */
SC_CLIENT_API int sc_client_call_raw(sc_client *c, const char *method, const char *params_json,
                                     char **result_json);

#ifdef __cplusplus
}
#endif
#endif
