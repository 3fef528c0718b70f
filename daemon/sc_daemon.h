/*
 * sc_daemon.h - streamcapd internals shared by main, server, dispatch and
 * sessions.  Not a public API.
 *
 * Threading: everything here runs on the libuv loop thread; the store's
 * writer thread and the thread pool only hand results back through
 * callbacks that run on the loop.
 */
#ifndef SC_DAEMON_H
#define SC_DAEMON_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <uv.h>

#include "sc_buf.h"
#include "sc_cache.h"
#include "sc_capture.h"
#include "sc_cuda.h"
#include "sc_frame.h"
#include "sc_json.h"
#include "sc_log.h"
#include "sc_metrics.h"
#include "sc_paths.h"
#include "sc_rpc.h"
#include "sc_store.h"

/** Command-line configuration; defaults are in sc_config_defaults(). */
typedef struct sc_config {
    const char *socket_path; /* NULL: the default of sc_paths.h (sc_daemon_resolve_paths) */
    const char *db_path;     /* NULL: likewise; postgresql://... or postgres:... a server */
    const char *host_name;   /* --host-name; NULL: the machine's (gethostname) */
    unsigned socket_mode;
    size_t max_message;
    unsigned max_connections;
    unsigned max_sessions;
    uint32_t max_session_nodes;
    unsigned session_idle_timeout_s;
    unsigned write_timeout_s;
    /* Per-uid quotas; 0: three quarters of the global limit (sc_uid_quota). */
    unsigned max_uid_connections;
    unsigned max_uid_sessions;
    uint64_t max_uid_nodes;
    uint64_t max_live_nodes; /* uncommitted nodes of all sessions together */
    /* Connections and live sessions that uids other than root can never
     * take, so that no set of them locks root out (sc_nonroot_limit). */
    unsigned root_reserved;
    unsigned line_timeout_s;      /* a partial request line older than this closes */
    unsigned conn_idle_timeout_s; /* a connection with nothing going on closes */
    size_t max_conn_output;       /* reply bytes one connection may have pending */
    size_t max_sub_output;        /* unsent bytes of a log subscriber before it is dropped */
    size_t reply_budget;          /* reply bytes all connections together may have pending */
    size_t buffer_budget;         /* partial lines and waiting replies of all connections */
    bool sync_full;
    /* A default-mode capture hands its nodes to the writer every this many
     * while it records (sc_store.h, "Streaming"); 0: only at capture.end. */
    uint32_t stream_nodes;
    int busy_timeout_ms;
    size_t graph_cache_bytes;
    int64_t test_max_page_count;
    int log_level;
    const char *metrics_socket; /* --metrics-socket: NULL for none */
    bool check_db;              /* --check-db: check the database and exit */
    /* Retention (retention.c); 0: none of that kind. */
    int64_t retain_ms;          /* --retain: graphs older than this go */
    uint64_t retain_graphs;     /* --retain-graphs: all but the newest N go */
    uint64_t max_db_bytes;      /* --max-db-size: the oldest go while bigger */
    int64_t retain_log_ms;      /* --retain-log: ended log rows older than this go */
    unsigned retain_interval_s; /* how often a retention pass runs */
} sc_config;

void sc_config_defaults(sc_config *cfg);

typedef struct sc_daemon sc_daemon;
typedef struct sc_conn sc_conn;
typedef struct sc_session sc_session;

/* ---- sessions (sessions.c) ---- */

/** The CUDA function a capture.host_call named, kept for the capture it
 *  invalidated until that capture's row is written. */
typedef struct sc_call_note {
    struct sc_call_note *next;
    uint32_t capture;
    size_t len;
    char name[]; /* NUL-terminated */
} sc_call_note;

/** A live capture session.  Lives in the daemon-wide table by id. */
struct sc_session {
    uint64_t id;
    /* Its semantics' handlers, chosen at session.open (sc_session_ops.h). */
    const struct sc_session_ops *ops;
    uint32_t uid;
    int64_t pid;
    char *label;
    size_t label_len;
    sc_capture *cap; /* the default mode; NULL in cuda mode */
    /* The default mode: the capture's nodes handed to the store as it
     * records, once it is big (sc_store.h, "Streaming"); NULL before. */
    sc_store_stream *stream;
    /* Cuda mode (docs/cuda-semantics.md), NULL in the default mode: the
     * session lives on across captures; cuda_nodes counts the nodes of its
     * captures not yet ended (the node limit), calls the notes above. */
    sc_cuda *cu;
    uint32_t cuda_nodes;
    sc_call_note *calls;
    int64_t opened_ms;     /* Unix time of session.open, as its log row has it */
    uint64_t last_used_ms; /* loop time of the last request that named it */
    uint64_t quota_nodes;  /* live nodes counted against its uid (sc_sessions_set_nodes) */
    sc_conn *conn;         /* the connection that used it last; NULL once that closed */
    bool bound;            /* opened with bind: conn stays the opener, and its close ends it */
    sc_session *hash_next;
    sc_session *lru_prev, *lru_next; /* least recently used first */
};

/* ---- per-uid usage (uids.c) ---- */

#define SC_UID_BUCKETS 64

/** What one uid holds now.  An entry lives while any count is non-zero. */
typedef struct sc_uid_use sc_uid_use;
struct sc_uid_use {
    sc_uid_use *next;
    uint32_t uid;
    unsigned conns;    /* admitted connections */
    unsigned sessions; /* live sessions */
    unsigned opening;  /* session.open calls waiting for their log row */
    uint64_t nodes;    /* live (uncommitted) nodes of its sessions */
    size_t out_bytes;  /* reply bytes its connections have pending */
};

typedef struct sc_uid_table {
    sc_uid_use *buckets[SC_UID_BUCKETS];
} sc_uid_table;

/** The entry of `uid`, or NULL when it holds nothing. */
sc_uid_use *sc_uids_find(const sc_uid_table *t, uint32_t uid);
/** The entry of `uid`, created empty when missing; NULL: out of memory. */
sc_uid_use *sc_uids_get(sc_uid_table *t, uint32_t uid);
/** Call after lowering a count: frees the entry once it holds nothing. */
void sc_uids_put(sc_uid_table *t, sc_uid_use *u);
void sc_uids_free(sc_uid_table *t);
/** A per-uid quota: `set` when non-zero, else 3/4 of `global` (at least 1). */
unsigned sc_uid_quota(unsigned global, unsigned set);
/** Admitted connections of every uid but root together. */
unsigned sc_uids_nonroot_conns(const sc_uid_table *t);
/** Live and opening sessions of every uid but root together. */
unsigned sc_uids_nonroot_sessions(const sc_uid_table *t);
/** What uids other than root may hold together of `global` when `reserved`
 *  are kept for root: global - reserved, at least 1. */
unsigned sc_nonroot_limit(unsigned global, unsigned reserved);

typedef struct sc_session_table {
    sc_session **buckets;
    size_t nbuckets;
    size_t count;
    sc_session *lru_head, *lru_tail;
    /* Sessions and live nodes per uid are counted here when set (the
     * daemon's table); live_nodes is the sum over every session. */
    sc_uid_table *uids;
    uint64_t live_nodes;
} sc_session_table;

int sc_sessions_init(sc_session_table *t);
/** Destroys every session still in the table (captures included). */
void sc_sessions_free(sc_session_table *t);
/** Takes ownership of `s` (its id must be unique) and counts it against its
 *  uid.  0 or -1 (no memory). */
int sc_sessions_insert(sc_session_table *t, sc_session *s);
sc_session *sc_sessions_find(sc_session_table *t, uint64_t id);
/** Unlinks `s` from the table and its uid's counts (sessions, live nodes,
 *  connection); the caller owns it afterwards. */
void sc_sessions_remove(sc_session_table *t, sc_session *s);
/** Mark `s` used now (moves it to the LRU tail). */
void sc_sessions_touch(sc_session_table *t, sc_session *s, uint64_t now_ms);
/** Count `live` nodes of `s` against its uid and the table (after a record
 *  or an end that changed them). */
void sc_sessions_set_nodes(sc_session_table *t, sc_session *s, uint64_t live);
/** `s` was used through `c`: it keeps `c` from being closed as idle. */
void sc_sessions_bind(sc_session *s, sc_conn *c);
/** `c` is closing: no session refers to it any more. */
void sc_sessions_forget_conn(sc_session_table *t, sc_conn *c);
/** The sessions opened with `bind` through `c` (closing) end as `abandoned`:
 *  logged, their nodes released, their streamed parts dropped. */
void sc_sessions_abandon_bound(sc_daemon *d, sc_conn *c);
/** The least recently used session, or NULL. */
sc_session *sc_sessions_oldest(sc_session_table *t);
/** Free a session unlinked from the table. */
void sc_session_free(sc_session *s);

/* ---- connections (server.c) ---- */

/*
 * A store write that later requests of its connection did not wait for
 * (dispatch.c): its reply, once the commit is done, then the replies of the
 * requests that ran after it, up to the next held write.  Replies leave in
 * request order: a held write's are released when it and every held write
 * before it are done.
 */
typedef struct sc_held sc_held;
struct sc_held {
    sc_held *next;
    bool done;
    sc_buf reply; /* the write's own reply: its head (with the id) from the start */
    sc_buf after; /* replies of the requests that ran after it */
};

/*
 * What a connection is executing: the current line (a request or a batch)
 * and its held writes.  dispatch.c alone reads and writes these fields;
 * the server asks through the sc_dispatch_* functions.  Invariants,
 * asserted by dispatch.c: held_head, held_tail and nheld are all empty or
 * all set; quiet_wait implies waiting and a held write; cur_item <=
 * cur_end, both 0 without a line; batch replies only in a batch.
 */
typedef struct sc_exec {
    sc_jdoc doc;       /* the line's tokens; kept from line to line */
    bool cur_line;     /* doc holds a line being executed */
    uint32_t cur_item; /* token of the next request to run */
    uint32_t cur_end;  /* token past the last request: done when reached */
    bool cur_batch;
    bool waiting; /* an async request of the line is in flight, or quiet_wait */
    /* The current request reads what held writes change: it runs once
     * they are done (waiting is set too). */
    bool quiet_wait;
    sc_held *held_head, *held_tail;
    unsigned nheld;
    size_t batch_replies;
    size_t batch_checked; /* batch.len at its last check against --reply-budget */
    bool batch_over;      /* that check failed: the rest of the batch is not run */
    sc_buf batch;         /* replies of the line's batch so far */
    sc_buf scratch;       /* where notifications' replies go to be dropped */
} sc_exec;

struct sc_conn {
    uv_pipe_t pipe; /* first member: handle->data is not needed to find us */
    sc_daemon *d;
    uint64_t serial;
    uid_t uid;
    pid_t pid;
    sc_framer in;
    sc_buf out;     /* replies not yet handed to uv_write */
    sc_buf writing; /* bytes owned by the uv_write in flight */
    uv_write_t wreq;
    bool write_busy;
    uint64_t last_active; /* loop time of the last read or completed write */
    size_t stall_queue;   /* write queue size when last seen moving */
    int stall_outq;       /* bytes unread by the peer then (SIOCOUTQ), -1 unknown */
    uint64_t stall_since; /* loop time it was last seen moving */
    bool reading;
    bool closing; /* uv_close called or pending */
    bool close_after_flush;
    bool peer_eof;           /* the peer shut down its side: reply, then close */
    bool uid_counted;        /* counted in its uid's conns */
    unsigned nsessions;      /* live sessions last used through it */
    uint64_t partial_since;  /* loop time a partial line began waiting; 0: none */
    int refs;                /* the handle plus in-flight async requests */
    size_t reply_reserved;   /* bytes of results being rendered for it (dispatch.c) */
    size_t buffer_bytes;     /* its part of d->buffer_bytes at the last count (buffers.c) */
    bool budget_paused;      /* not reading: over its share with the budget spent */
    bool buffers_gone;       /* freed or closed: counts nothing any more */
    bool subscribed;         /* log.subscribe: gets log.event, runs no more requests */
    const char *sub_outcome; /* its outcome filter (static); NULL: every event */
    char *sub_host;          /* its host filter (owned); NULL: every host */
    sc_conn *prev, *next;

    sc_exec x; /* the line being executed: dispatch.c's alone */
};

/** Send what is queued; start a write if none is in flight. */
void sc_conn_flush(sc_conn *c);
/** Close after pending output is written. */
void sc_conn_close_after_flush(sc_conn *c);
/** Return the input buffer to the daemon's pool when nothing is pending. */
void sc_conn_recycle_input(sc_conn *c);
/** True when no request of the connection is in flight or held. */
bool sc_conn_idle(const sc_conn *c);
/** Reply bytes `c` has buffered: unsent, being written, kept behind held writes. */
size_t sc_conn_pending(const sc_conn *c);
/** True while unsent output is above the high-water mark, or the buffer
 *  budget is spent and `c` holds more than its share (counted again). */
bool sc_conn_congested(sc_conn *c);
/** Start or stop reading, honouring backpressure and pending work. */
void sc_conn_update_reading(sc_conn *c);

/* ---- the buffer budget (buffers.c) ---- */

/** What one connection may hold while the budget is spent: budget /
 *  connections, at least 64 KiB. */
size_t sc_buffers_share(const sc_daemon *d);
/** Count `c`'s partial line and waiting replies again into d->buffer_bytes. */
void sc_buffers_account(sc_conn *c);
/** Counts `c`; true (and `c` marked paused) when the budget is spent and
 *  `c` is over its share. */
bool sc_buffers_over(sc_conn *c);
/** `c` stopped (or went on) reading for the budget. */
void sc_buffers_note_paused(sc_conn *c, bool paused);
/** `c` is closing: it counts nothing from now on. */
void sc_buffers_forget(sc_conn *c);
/** After bytes went: connections paused for the budget go on if it has room. */
void sc_buffers_release(sc_daemon *d);
void sc_conn_ref(sc_conn *c);
/** Drop a reference; frees the connection when it was the last. */
void sc_conn_unref(sc_conn *c);

/* ---- the daemon ---- */

struct sc_daemon {
    sc_config cfg;
    char host_name[256]; /* cfg.host_name, or the machine's host name */
    uv_loop_t *loop;
    sc_store *store;
    sc_cache *cache;
    uv_pipe_t listener;
    bool listening;
    /* The listener came from the service manager: its file is not ours to
     * remove; cfg.socket_path then points at inherited_path. */
    bool socket_inherited;
    char inherited_path[108];
    uv_signal_t sigterm, sigint;
    uv_timer_t idle_timer;
    uv_timer_t close_timer; /* closes the store outside any store callback */
    uint64_t start_hr;      /* uv_hrtime at start */
    sc_conn *conns;
    unsigned nconns;
    uint64_t next_conn_serial;
    sc_session_table sessions;
    sc_uid_table uids;
    /* Input buffers of idle connections, reused by the next active one. */
    char *buf_pool[32];
    size_t buf_pool_cap[32];
    unsigned buf_pool_len;
    /* Log rows whose final update failed (storage error): retried by the sweep. */
    struct sc_log_retry *log_retries;
    unsigned log_updates; /* final log updates queued in the store, not yet done */
    /* The stop's grace period is over (or the store is closing): a refused
     * final row is kept for the next start (sc_store_defer_log_end), not retried. */
    bool log_final;
    uint64_t stop_deadline;    /* loop time the stop's grace period ends */
    unsigned opening_sessions; /* session.open calls waiting for their log row */
    unsigned inflight;         /* async requests of all connections */
    /* Reply bytes reserved by results being rendered (dispatch.c): they count
     * against --reply-budget before a byte is rendered. */
    size_t reply_reserved;
    /* graph.get and graph.export renders (graph_reads.c): how many run now, and
     * those waiting for one of the few slots, first come first served. */
    unsigned renders;
    struct graph_ctx *render_head, *render_tail;
    /* graph.reachable jobs too long for the loop (graph_reads.c): slices on
     * the thread pool now, jobs waiting for their next slice, and the flag
     * a stop raises so that running slices end at their next pair. */
    unsigned reach_running, reach_lane; /* reach_lane: the most at a time */
    struct graph_ctx *reach_head, *reach_tail;
    atomic_bool reach_cancel;
    bool stopping;
    bool store_closed;
    bool timers_open;
    size_t buffer_bytes;    /* partial lines and waiting replies, all connections (buffers.c) */
    unsigned budget_paused; /* connections paused for --buffer-budget now */
    uint64_t budget_pauses; /* times a connection was paused for it */
    bool budget_releasing;
    unsigned nsubs;                 /* connections subscribed to the log (subs.c) */
    struct sc_retention *retention; /* retention and prune (retention.c) */
    sc_logger log;                  /* --log-level and the journal form (log.c) */
    sc_metrics metrics;             /* counters for server.info and --metrics-socket */
    uv_pipe_t metrics_listener;
    bool metrics_listening;
    struct scrape *scrapes; /* --metrics-socket connections (metrics_http.c) */
    unsigned nscrapes;
    sc_log_limiter log_limit; /* log.limit: repeated lines counted, not written */
};

/* subs.c, events.c */
/** The call that invalidated a capture, as its `captures` row holds it
 *  (schema/002_cuda.sql inv_*); method NULL: none. */
typedef struct sc_event_why {
    const char *method; /* "capture.host_call", ... (static) */
    uint32_t stream;
    bool has_event;
    uint32_t event;
    uint32_t thread;
    const char *call; /* the CUDA function capture.host_call named, or NULL */
    size_t call_len;
    bool has_error;
    int cuda_error; /* CUDA's number */
} sc_event_why;

/** One change of a session, capture or graph, as log.event reports it.
 *  Every pointer is borrowed for the sc_subs_emit() call only. */
typedef struct sc_event {
    const char *event; /* session_opened, session_ended, ... (static) */
    uint32_t uid;      /* whose: subscribers see their own, root all */
    uint64_t session;
    uint64_t capture;    /* 0: none */
    uint64_t graph;      /* 0: none */
    const char *outcome; /* NULL: none */
    bool has_stream;     /* capture_begun, capture_invalidated */
    uint32_t stream;
    const char *mode; /* capture_begun of cuda mode: global, ...; NULL: none */
    bool has_thread;
    uint32_t thread;
    bool has_counts; /* capture_ended, graph_stored */
    uint64_t node_count, edge_count;
    const char *label; /* graph_stored; NULL: none */
    size_t label_len;
    int cuda_error;          /* capture_ended failed in cuda mode: CUDA's number; 0 none */
    int rpc_code;            /* capture_ended failed in the default mode: the end's code */
    const char *rpc_message; /* and its message */
    sc_event_why why;        /* capture_invalidated, and capture_ended after one */
} sc_event;

/** Send `e` (this daemon's host) to every subscriber that may see it; a
 *  subscriber past --max-sub-output unsent gets a last `dropped` notice
 *  and is closed.  Also offered to the store for the fleet (events.c). */
void sc_subs_emit(sc_daemon *d, const sc_event *e);
/** Send one event whose params object is `params` (len bytes, one JSON
 *  object, no newline) of host `host` and owner `uid`, with `outcome`
 *  (NULL: none), to the subscribers whose filters and rights take it. */
void sc_subs_send(sc_daemon *d, uint32_t uid, const char *host, const char *outcome,
                  const char *params, size_t len);
/** `c` is closing: it no longer counts as a subscriber. */
void sc_subs_forget(sc_conn *c);
/** Render `e`'s params object, stamped `at_ms`, into `b`; without the
 *  label when `with_label` is false. */
void sc_event_params(sc_buf *b, const sc_daemon *d, const sc_event *e, int64_t at_ms,
                     bool with_label);
/** Hear the events of the other daemons sharing the database (a
 *  PostgreSQL fleet; nothing on SQLite): 0, or a store code with err set. */
int sc_events_listen(sc_daemon *d, char *err, size_t errlen);
/** The members of a capture's `invalidated_by` (log.list's form) into the
 *  object open in `b`. */
void sc_event_write_why(sc_buf *b, bool *first, const sc_event_why *w);

/* daemon.c */
/**
 * Set up a daemon on `loop`: open the store (migrations, lost sessions),
 * the graph cache and the housekeeping timers.  No socket yet: call
 * sc_server_start() to listen.  On failure `err` says why; call
 * sc_daemon_destroy() either way.
 */
int sc_daemon_init(sc_daemon *d, uv_loop_t *loop, const sc_config *cfg, char *err, size_t errlen);
/**
 * Close connections, drop live sessions, close the store and free the
 * cache.  No request may be in flight (after uv_run returned, or once
 * `inflight` is 0); then the caller runs the loop once more to let handles
 * close, and closes it.
 */
void sc_daemon_destroy(sc_daemon *d);

/* retention.c */
/** Set up retention: its timer runs a pass at start and then every
 *  --retain-interval when a policy is set.  0 or -1 (out of memory). */
int sc_retention_init(sc_daemon *d);
/** A stop: no more passes; a running one ends after its current step. */
void sc_retention_stop(sc_daemon *d);
/** Close the timer (tear-down); the state goes once no prune runs. */
void sc_retention_destroy(sc_daemon *d);
/** Graphs retention and prune deleted since the start. */
uint64_t sc_retention_deleted(const sc_daemon *d);

/* dirs.c */
/** Storage for the paths sc_daemon_resolve_paths() resolves. */
typedef struct sc_daemon_paths {
    char socket[SC_PATH_MAX];
    char db[SC_PATH_MAX];
} sc_daemon_paths;

/**
 * Resolve cfg's NULL socket and database paths by the rule of sc_paths.h
 * into `p` (which must outlive cfg's use) and point cfg at them; then make
 * their directories ready: a path the user named needs an existing
 * directory, a default one gets its directories created.  The socket's
 * directory is checked first, so a bad socket path leaves no database
 * behind.  0, or -1 with the reason in `err`.
 */
int sc_daemon_resolve_paths(sc_config *cfg, sc_daemon_paths *p, char *err, size_t errlen);

/* server.c */
/**
 * Before the store is opened: take the socket the service manager passed,
 * if any (*listen_fd >= 0: socket activation), else check that
 * cfg.socket_path can be ours: refuse a live daemon's, replace a stale one
 * (*listen_fd = -1).  So a daemon that cannot listen creates no database.
 * Needs only d->cfg and logging set up.  0, or -1 after logging why.
 */
int sc_server_prepare(sc_daemon *d, int *listen_fd);
/**
 * Listen on what sc_server_prepare found: the passed socket (then
 * cfg.socket_path becomes that socket's path and the file is never
 * removed), else a socket bound at cfg.socket_path.  Tells the service
 * manager, if any, that the daemon is ready.
 */
int sc_server_start(sc_daemon *d, int listen_fd);
/**
 * Serve an already connected stream socket as a client connection with the
 * given credentials (tests and the fuzz harness).  Takes the descriptor.
 */
int sc_server_adopt(sc_daemon *d, int fd, uid_t uid, pid_t pid);
/** Free pooled input buffers (tear-down). */
void sc_server_free_pool(sc_daemon *d);
/** Close every connection now (tear-down). */
void sc_server_close_all(sc_daemon *d);
/**
 * Housekeeping, about once a second: drop connections whose peer took no
 * reply byte for --write-timeout (neither libuv's queue nor the bytes the
 * kernel holds unread for the peer moved), and release the buffers of
 * connections idle since the last sweep.
 */
void sc_server_sweep(sc_daemon *d);
/** Begin a graceful stop (signal or fatal error). */
void sc_server_stop(sc_daemon *d);
/** Called whenever in-flight work drains during a stop. */
void sc_server_check_stopped(sc_daemon *d);

/* graph_reads.c */
/** A stop: graph.reachable jobs waiting for their next slice answer 1008
 *  (shutting down) now; running slices stop at their next pair and answer
 *  it when they are back on the loop. */
void sc_reach_stop(sc_daemon *d);

/* dispatch.c */
/** Run buffered lines of `c` until input runs out or a request goes async. */
void sc_dispatch_process(sc_conn *c);
/** Drop the line being executed and free all execution state (the
 *  connection is being freed). */
void sc_dispatch_discard(sc_conn *c);
/** True while a request of the current line is in flight or waits for
 *  held writes: the connection neither reads nor runs more requests. */
bool sc_dispatch_waiting(const sc_conn *c);
/** True while a line is being executed (its input and tokens are in use). */
bool sc_dispatch_busy(const sc_conn *c);
/** True while held writes still owe their replies. */
bool sc_dispatch_has_held(const sc_conn *c);
/** Reply bytes kept behind held writes. */
size_t sc_dispatch_held_bytes(const sc_conn *c);
/** Give back the storage of an idle connection's line buffers. */
void sc_dispatch_trim(sc_conn *c);

/* live.c: sessions that end without a request */
/** Idle sweep: abandon sessions unused for the configured timeout. */
void sc_sessions_sweep_idle(sc_daemon *d);
/** Log every live session as `shutdown` and drop it. */
void sc_sessions_shutdown(sc_daemon *d);

/* log_retry.c */
/**
 * Finish a session's log row with `outcome` (a static string) without
 * waiting for the commit.  An update the database refuses is kept and
 * queued again by sc_log_retry_all().
 */
void sc_log_end_detached(sc_daemon *d, const sc_session *s, const char *outcome,
                         uint32_t node_count);
/**
 * sc_log_end_detached for a request that answers once the row is tried:
 * `first` gets the first attempt's result, and a refused update
 * (SC_STORE_EIO) is still retried like a detached one.  Returns 0 (`first`
 * runs exactly once), or SC_STORE_ECLOSED / SC_STORE_ENOMEM / another store
 * code when nothing was queued (`first` never runs).
 */
int sc_log_end_then(sc_daemon *d, const sc_session *s, const char *outcome, uint32_t node_count,
                    sc_store_done_fn first, void *arg);
/** Queue again the log updates the database refused earlier. */
void sc_log_retry_all(sc_daemon *d);
/**
 * The stop's grace period is over: every refused log update still waiting
 * is handed to the store to be kept for the next start, and so is any
 * refused from now on (d->log_final).
 */
void sc_log_retry_give_up(sc_daemon *d);
/** True while a stop still waits for final log rows to be written. */
bool sc_log_retry_pending(const sc_daemon *d);
/** Free log updates still waiting for a retry (tear-down). */
void sc_log_retry_free(sc_daemon *d);

/* errors.c */
/**
 * One error line for a store call that failed: "storage error <what> (uid
 * U, pid P): <reason>", `what` formatted from `fmt` (what was being
 * written or read), U and P whom it was for, the reason SQLite's message
 * (`errmsg`, may be NULL) or the code's.  Only failures of the storage
 * (SC_STORE_EIO, SC_STORE_ENOMEM) are logged; other codes are ignored.
 */
void sc_log_store_error(const sc_daemon *d, int rc, const char *errmsg, uint32_t uid, int64_t pid,
                        const char *fmt, ...) __attribute__((format(printf, 6, 7)));

#endif
