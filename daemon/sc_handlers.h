/*
 * sc_handlers.h - what method handlers share: the request being executed,
 * async completion, reply writers and common checks (dispatch.c), error
 * mapping (errors.c), and one handler per entry of the method table
 * (declared from SC_METHODS): session.*, capture.* and stream.create in
 * live.c, calling through the session's table (sc_session_ops.h);
 * graph.reachable, graph.get and graph.export in graph_reads.c;
 * graph.delete and graph.submit in graph_writes.c; graph.list and
 * log.list in lists.c; log.subscribe in subs.c; server.info in
 * server_info.c.
 */
#ifndef SC_HANDLERS_H
#define SC_HANDLERS_H

#include "sc_daemon.h"

/* Handler results. */
enum { H_DONE = 0, H_ERROR = 1, H_ASYNC = 2 };

/**
 * What the --log-level debug trace reports of a request once it completes;
 * filled by the dispatcher only while that level is on (t0 0 otherwise).
 */
typedef struct sc_trace {
    uint64_t t0;        /* uv_hrtime when the request started; 0: not traced */
    const char *method; /* static: the method table's name */
    uint64_t session;   /* params.session; 0 when it has none */
} sc_trace;

/** One request being executed.  On H_ERROR the dispatcher replies `err`. */
typedef struct sc_req {
    sc_daemon *d;
    sc_conn *c;
    sc_jval id;
    sc_jval params; /* the params object, or none when absent */
    bool notification;
    bool may_hold; /* SC_MF_HOLDABLE: later requests need not wait for it */
    bool held;     /* set by sc_async_start when it did not make them wait */
    sc_rpc_error err;
    sc_trace trace;
    size_t reply_mark; /* where its reply starts in the buffer result_begin gave */
} sc_req;

/**
 * What an async request needs to reply later; embed it in the request's
 * context.  The id lives in the connection's current line, which waits,
 * or for a held write in the sc_held that keeps its reply.
 */
typedef struct sc_async {
    sc_daemon *d;
    sc_conn *c;
    sc_jval id;
    bool notification;
    sc_held *held;
    sc_trace trace;    /* reported by sc_async_done */
    int code;          /* the error code replied, 0 for a result */
    size_t reply_mark; /* where its reply starts in the buffer result_begin gave */
} sc_async;

/* cuda_methods.c */
/**
 * One node object of graph.submit, read with exactly the members the
 * cuda-mode record call of its kind takes, plus `kind` and `stream?`.
 * Strings point into the request.  0, or -1 with r->err set.
 */
int sc_cuda_read_node(sc_req *r, sc_jval obj, sc_node *n);
/** -32602 naming `kind`, which is no node kind; returns -1. */
int sc_cuda_bad_kind(sc_req *r);

/** One node of a cuda-mode graph, every kind, as graph.get writes it, its
 *  bodies from `bodies` (daemon/cuda_node_json.c). */
void sc_write_cuda_node(sc_buf *b, uint32_t id, const sc_node *n, const sc_graph_page *bodies);

/** graph.stats' result object for a sealed graph into out
 *  (daemon/graph_stats.c); it takes no parameters but `graph`, so params
 *  is unused.  0, or a negative SC_E* code. */
int sc_graph_stats_json(const sc_graph *g, sc_jval params, sc_buf *out);

/** graph.races' parameters besides `graph` (limit, 0 to 100,000,
 *  default 1,000): 0, or -1 with r->err naming the bad one
 *  (daemon/graph_races.c). */
int sc_races_check_params(sc_req *r);
/** graph.races' result object for a sealed graph into out, with params
 *  already checked by sc_races_check_params().  Safe off the loop.  0, or
 *  a negative SC_E* code. */
int sc_graph_races_json(const sc_graph *g, sc_jval params, sc_buf *out);

/* Every handler: `int sc_h_<handler>(sc_req *r)`, returning H_*. */
#define SC_X_HANDLER_DECL(id, handler, name, flags, params, result, summary)                       \
    int sc_h_##handler(sc_req *r);
SC_METHODS(SC_X_HANDLER_DECL)
#undef SC_X_HANDLER_DECL

/* Synchronous replies: begin, write the result value, end (returns H_DONE).
 * A result too big for the connection's output bound or the daemon's reply
 * budget (--max-conn-output, --reply-budget) is replaced at the end by a
 * 1006 error naming the bound; async results alike. */
sc_buf *sc_req_result_begin(sc_req *r);
int sc_req_result_end(sc_req *r, sc_buf *b);
/** Reply `{}`. */
int sc_req_empty(sc_req *r);
/** Fill r->err; returns H_ERROR. */
int sc_req_fail(sc_req *r, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/** A NUL-terminated copy of a parameter string, for a request that outlives
 *  its line; *out is NULL when `s` is.  0, or -1 with r->err set (-32603). */
int sc_req_copy_string(sc_req *r, const char *s, size_t len, char **out);
/** 1001 "<what> <id> not found" with data.what: for a missing object and
 *  for one the caller may not see alike, so that ids cannot be probed. */
int sc_req_not_found(sc_req *r, const char *what, uint64_t id);
/** A store call refused to queue (stopping: 1008, else 1007). */
int sc_req_store_unavailable(sc_req *r);
/* errors.c */
/** Map a store result code to the protocol error; returns the code. */
int sc_store_rpc_error(sc_rpc_error *err, int rc, const char *errmsg);
/** Map a core error raised on `stream` to the protocol's code and the
 *  message of docs/semantics.md §8; returns the code. */
int sc_core_rpc_error(sc_rpc_error *err, int rc, uint32_t stream);
/** Map a cuda-mode core error (enum sc_cuda_error) to 1009 with
 *  data.cuda_error, data.cuda_name and CUDA's text as the message; any
 *  other code as sc_core_rpc_error does.  Returns the code. */
int sc_cuda_rpc_error(sc_rpc_error *err, int rc);
/* dispatch.c: who may read what */
/** Root reads everything; everyone else only their own uid's rows. */
bool sc_may_access(const sc_conn *c, uint32_t owner_uid);
/** True when the caller may read every uid's rows (root): lists unfiltered. */
bool sc_may_access_all(const sc_conn *c);
/** True when the caller may run the daemon's administration (store.backup):
 *  root, or the uid the daemon runs as. */
bool sc_may_administer(const sc_conn *c);
/** A stored graph's row: root's, else its uid's on this daemon's host. */
bool sc_may_access_meta(const sc_conn *c, const sc_daemon *d, const sc_graph_meta *m);

/* lists.c */
/** A log outcome parameter (`s` NULL: none, *out NULL) as the static name
 *  of that outcome; 0, or -1 with a -32602 naming `outcome` in r->err. */
int sc_req_outcome(sc_req *r, const char *s, size_t len, const char **out);

/* graph_meta_json.c */
/** The members graph.get and graph.list share, into an object being written. */
void sc_write_meta_fields(sc_buf *b, bool *first, const sc_graph_meta *m);
/** `fingerprint`: {structure, full} as lowercase hex, or null for a graph
 *  stored before fingerprints were. */
void sc_write_fingerprint(sc_buf *b, bool *first, const sc_graph_meta *m);
/* graph_writes.c: body graphs stored below a graph stored elsewhere (the
 * bodies of a capture's nodes, sent with capture.end), parsed and stored
 * as graph.submit parses and stores its own. */
typedef struct sc_submit sc_submit;
/** What sc_submit_store_bodies calls once every body is stored (rc 0) or
 *  one failed (a store code; what was stored, the graph below which they
 *  hang included, is deleted).  The callee frees x with sc_submit_free. */
typedef void (*sc_submit_done_fn)(void *arg, int rc, const char *errmsg, sc_submit *x);
/** An empty set of bodies, stored under uid, pid and label.  0, or -1
 *  with r->err set. */
int sc_submit_bodies_new(sc_req *r, const char *label, size_t label_len, uint32_t uid, int64_t pid,
                         sc_submit **out);
/** Parse graph object `obj` ({nodes, edges}, bodies of its own nested as
 *  graph.submit takes them) as body `index` of node `node` of the graph
 *  they hang below.  0, or -1 with r->err set (-32602 naming the fault). */
int sc_submit_add_body(sc_req *r, sc_submit *x, sc_jval obj, uint32_t node, uint32_t index);
/** The bodies parsed, nested ones included. */
uint32_t sc_submit_body_count(const sc_submit *x);
/** Store the bodies, one after another, below stored graph `graph` (`g`,
 *  which must stay valid until done runs), then every stored graph's
 *  fingerprints with their bodies folded in; done runs on the loop.  0, or
 *  a store code (nothing queued). */
int sc_submit_store_bodies(sc_submit *x, sc_daemon *d, int64_t graph, const sc_graph *g,
                           sc_submit_done_fn done, void *arg);
/** `bodies: [ID, ...]`, every body stored, in the order they were parsed;
 *  nothing when there are none. */
void sc_submit_write_bodies(sc_buf *b, bool *first, const sc_submit *x);
void sc_submit_free(sc_submit *x);

/* capture_nodes.c */
/** capture.add_node's node: `node` (a graph.submit node) or, without it,
 *  bare `kind` and `name`.  0, or -1 with r->err set. */
int sc_capture_read_added(sc_req *r, sc_node *x);
struct sc_cuda;
/** capture.end's optional `bodies` ([{node, index?, nodes, edges}]),
 *  checked against the capture stream `stream` belongs to (each node one
 *  of its graph or conditional nodes, a graph node's index 0, no body
 *  twice) and parsed; *out NULL when there are none or the stream has no
 *  capture.  0, or -1 with a -32602 in r->err. */
int sc_capture_bodies_read(sc_req *r, const struct sc_cuda *cu, uint32_t stream,
                           const sc_session *s, sc_submit **out);

/* graph_bodies.c */
/** Whether g has a child graph or conditional node. */
bool sc_graph_has_bodies(const sc_graph *g);
typedef void (*sc_bodies_fn)(void *arg, int rc, sc_graph_page *page, const char *errmsg);
/** The body graphs of stored graph `graph` (access already checked), as a
 *  graph.list page the callback owns.  0, or a store code (not queued). */
int sc_bodies_fetch(sc_daemon *d, int64_t graph, sc_bodies_fn done, void *arg);
/** `child: ID` (kind graph) or `bodies: [ID, ...]` by index (kind
 *  conditional) of node `node`, from a page of sc_bodies_fetch; nothing
 *  for other kinds. */
void sc_write_node_bodies(sc_buf *b, bool *first, const sc_graph_page *bodies, uint32_t node,
                          int kind);

/* Async: start (pins the connection), reply with one of the writers, done.
 * A store write (r->may_hold) is held when it can be: later requests of the
 * connection then run at once, their replies kept until this one's. */
void sc_async_start(sc_async *a, sc_req *r);
sc_buf *sc_async_result_begin(sc_async *a);
void sc_async_result_end(sc_async *a, sc_buf *b);
void sc_async_error(sc_async *a, const sc_rpc_error *err);
/**
 * Reserve `len` reply bytes for a result about to be rendered off the loop,
 * before a byte of it exists: 0, or 1006 (err set, logged) when they would
 * take the connection past --max-conn-output or all replies past
 * --reply-budget (results under 64 KiB are never refused).  Reserved bytes
 * count as pending until sc_async_unreserve gives back the same amount.
 */
int sc_async_reserve(sc_async *a, size_t len, sc_rpc_error *err);
void sc_async_unreserve(sc_async *a, size_t len);
/** Write the reply's head (up to `"result":`) into `b`; returns its length. */
size_t sc_async_result_head(sc_async *a, sc_buf *b);
/**
 * Reply with a result rendered whole into `whole` after the head that
 * sc_async_result_head wrote there (`head_len` bytes).  When nothing is
 * queued before it, the buffer itself becomes the connection's output and
 * `whole` gets an empty one to free; otherwise its result is copied.
 */
void sc_async_result_take(sc_async *a, sc_buf *whole, size_t head_len);
/** The reply is written: the connection resumes.  Call exactly once. */
void sc_async_done(sc_async *a);

#endif
