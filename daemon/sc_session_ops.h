/*
 * sc_session_ops.h - what a session's semantics decide.
 *
 * Each value of session.open's `semantics` has one const table of
 * handlers: the default "oxicuda" (StreamCapture, live.c) and "cuda"
 * (cuda_methods.c).  session.open picks the table once and keeps it in the
 * session; the handlers of live.c then find the session and call through
 * it, so no handler asks which mode it is in.  A method a table leaves NULL
 * is not one of its semantics: the call is answered -32602 naming the
 * semantics whose table has it.  A new mode is a new table, listed in
 * session_ops.c.
 */
#ifndef SC_SESSION_OPS_H
#define SC_SESSION_OPS_H

#include "sc_handlers.h"

/* The methods whose meaning depends on the semantics, by their id in
 * SC_METHODS (proto/sc_methods.h): slot SC_SM_<ID> of the table. */
#define SC_SESSION_METHODS(X)                                                                      \
    X(SESSION_INFO)                                                                                \
    X(CAPTURE_BEGIN)                                                                               \
    X(CAPTURE_RECORD_KERNEL)                                                                       \
    X(CAPTURE_RECORD_MEMCPY)                                                                       \
    X(CAPTURE_RECORD_MEMSET)                                                                       \
    X(CAPTURE_RECORD_HOST_CALLBACK)                                                                \
    X(CAPTURE_RECORD_EVENT)                                                                        \
    X(CAPTURE_WAIT_EVENT)                                                                          \
    X(CAPTURE_STATUS)                                                                              \
    X(CAPTURE_IS_CAPTURING)                                                                        \
    X(CAPTURE_INVALIDATE)                                                                          \
    X(CAPTURE_END)                                                                                 \
    X(STREAM_CREATE)                                                                               \
    X(CAPTURE_RECORD_MEM_ALLOC)                                                                    \
    X(CAPTURE_RECORD_MEM_FREE)                                                                     \
    X(CAPTURE_UPDATE_DEPENDENCIES)                                                                 \
    X(CAPTURE_INFO)                                                                                \
    X(CAPTURE_HOST_CALL)                                                                           \
    X(CAPTURE_EXCHANGE_MODE)                                                                       \
    X(CAPTURE_ADD_NODE)

/** A slot of sc_session_ops.method. */
typedef enum sc_session_method {
#define SC_X_SLOT(id) SC_SM_##id,
    SC_SESSION_METHODS(SC_X_SLOT)
#undef SC_X_SLOT
        SC_SM__COUNT
} sc_session_method;

/** A method on a session found by sc_req_session(); returns H_*. */
typedef int sc_session_fn(sc_req *r, sc_session *s);

/** One semantics: how its sessions are made, counted, ended and served. */
typedef struct sc_session_ops {
    const char *semantics; /* session.open's word, the log's and session.list's */
    /** Make the session's model (s->cap or s->cu): 0, or -1 out of memory. */
    int (*create)(sc_session *s);
    /** Nodes the session holds now: capture.node_count, the log row. */
    uint32_t (*live_nodes)(const sc_session *s);
    /** The session ends with no request waiting on what it stores besides
     *  its log row: queue that without waiting.  NULL: nothing to store. */
    void (*end_detached)(sc_daemon *d, sc_session *s);
    sc_session_fn *method[SC_SM__COUNT]; /* NULL: not a method of these semantics */
} sc_session_ops;

/* live.c */
extern const sc_session_ops sc_oxicuda_ops;
/* cuda_methods.c */
extern const sc_session_ops sc_cuda_ops;

/* cuda_events.c: log.event notifications of cuda-mode captures */
/** capture.begin began `capture` on `stream` in `mode` (its wire word). */
void sc_cuda_emit_begun(sc_daemon *d, const sc_session *s, uint32_t capture, uint32_t stream,
                        const char *mode, uint32_t thread);
/** A call of `s` ran: one capture_invalidated for each capture it
 *  invalidated (none when sc_cuda_call_seq() is still `seq_before`). */
void sc_cuda_emit_invalidations(sc_daemon *d, const sc_session *s, uint64_t seq_before);
/** A capture's row (and graph `graph`, `g`, when it completed) committed:
 *  capture_ended, and graph_stored when it has a graph. */
void sc_cuda_emit_ended(sc_daemon *d, uint32_t uid, uint64_t session, const sc_store_capture *row,
                        int64_t graph, const sc_graph *g, const char *label, size_t label_len);

/* session_ops.c */
/** The table of session.open's `semantics` (absent: the default, the
 *  first listed); NULL with r->err set (-32602 listing them) when none is
 *  named so. */
const sc_session_ops *sc_session_ops_find(sc_req *r, const char *name, size_t len);
/** Call slot `m` of the session named by params.session: the lookup of
 *  sc_req_session(), then the session's handler, or -32602 (data.field
 *  "session") when its semantics lack the method. */
int sc_session_call(sc_req *r, sc_session_method m);
/** The session named by params.session, checked against the caller and
 *  marked used; NULL with r->err set (-32602, or 1001 for a missing
 *  session and for another uid's alike). */
sc_session *sc_req_session(sc_req *r);
/** Room for one more node in `s`, which holds `live`: checks the session's
 *  node limit, its uid's live-node quota and the daemon's live-node limit.
 *  0, or -1 with r->err set (1006 naming the limit). */
int sc_req_node_room(sc_req *r, const sc_session *s, uint64_t live);
/** The nodes `s` holds, by its semantics. */
uint32_t sc_session_live_nodes(const sc_session *s);
/** What the end of `s` stores besides its log row, queued (ops->end_detached). */
void sc_session_end_detached(sc_daemon *d, sc_session *s);

#endif
