/*
 * client_int.h - what the libstreamcap sources share: the connection
 * struct, the request writer and the reply readers.  Not installed.
 */
#ifndef SC_CLIENT_INT_H
#define SC_CLIENT_INT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "sc_buf.h"
#include "sc_frame.h"
#include "sc_methods.h"
#include "sc_rpc.h"
#include "streamcap.h"

/*
 * Return codes: the library's functions return 0, a negated errno value
 * (-1 .. -199) or a daemon error (<= -1000), never anything else.  The
 * daemon's code 1000 + n comes back as -1000 - n (sc_cl_map_code() in conn.c)
 * and a JSON-RPC standard code unchanged; the constants of streamcap.h
 * are checked here against the wire codes of sc_rpc.h, and the errno
 * values the library returns against their range.
 */
#define SC_CL_DAEMON_CODE(cl, rpc) _Static_assert((cl) == -(rpc), #cl " is not -" #rpc)
SC_CL_DAEMON_CODE(SC_CLIENT_ESERVER, SC_RPC_APP__MIN);
SC_CL_DAEMON_CODE(SC_CLIENT_ENOTFOUND, SC_RPC_NOT_FOUND);
SC_CL_DAEMON_CODE(SC_CLIENT_ESTATE, SC_RPC_CAPTURE_STATE);
SC_CL_DAEMON_CODE(SC_CLIENT_EINVALIDATED, SC_RPC_INVALIDATED);
SC_CL_DAEMON_CODE(SC_CLIENT_EPERM, SC_RPC_PERMISSION_DENIED);
SC_CL_DAEMON_CODE(SC_CLIENT_ELIMIT, SC_RPC_LIMIT);
SC_CL_DAEMON_CODE(SC_CLIENT_ESTORAGE, SC_RPC_STORAGE);
SC_CL_DAEMON_CODE(SC_CLIENT_ESHUTDOWN, SC_RPC_SHUTTING_DOWN);
SC_CL_DAEMON_CODE(SC_CLIENT_ECUDA, SC_RPC_CUDA);
_Static_assert(SC_CLIENT_EPARSE == SC_RPC_PARSE_ERROR &&
                   SC_CLIENT_EREQUEST == SC_RPC_INVALID_REQUEST &&
                   SC_CLIENT_EMETHOD == SC_RPC_METHOD_NOT_FOUND &&
                   SC_CLIENT_EPARAMS == SC_RPC_INVALID_PARAMS &&
                   SC_CLIENT_EINTERNAL == SC_RPC_INTERNAL_ERROR,
               "JSON-RPC standard codes must come back unchanged");
_Static_assert(SC_RPC_STD__MAX <= SC_CLIENT_ESERVER, "standard codes must read as daemon errors");
_Static_assert(-SC_RPC_APP__MAX <= SC_CLIENT_ESERVER, "streamcap codes must read as daemon errors");
#define SC_CL_ERRNO(e) _Static_assert((e) > 0 && (e) < 200, #e " outside the errno range")
SC_CL_ERRNO(ENOENT);
SC_CL_ERRNO(ECONNREFUSED);
SC_CL_ERRNO(ETIMEDOUT);
SC_CL_ERRNO(ECONNRESET);
SC_CL_ERRNO(EPIPE);
SC_CL_ERRNO(ENOTCONN);
SC_CL_ERRNO(EPROTO);
SC_CL_ERRNO(ENOMEM);
SC_CL_ERRNO(EINVAL);
SC_CL_ERRNO(EBUSY);
SC_CL_ERRNO(ENAMETOOLONG);
SC_CL_ERRNO(EACCES);
#undef SC_CL_DAEMON_CODE
#undef SC_CL_ERRNO

struct sc_client {
    int fd;
    int timeout_ms;
    bool broken;      /* out of step with the daemon: only close is left */
    int errcode;      /* daemon's code of the last failure, 0 if local */
    char errmsg[512]; /* "" after a success */
    char *errdata;    /* the daemon's error.data as compact JSON, or NULL */
    int cuda_error;   /* data.cuda_error of a 1009 error, else 0 */
    char path[108];   /* sizeof(sockaddr_un.sun_path) */
    uint64_t next_id; /* id of the next request written */
    uint64_t recv_id; /* id the next reply must carry */
    sc_buf out;       /* requests not yet fully sent */
    size_t out_sent;  /* bytes of `out` already written to the socket */
    size_t req_start; /* offset of the request being written */
    bool req_first;   /* params of the request being written: no member yet */
    sc_framer in;
    cJSON *reply; /* the reply of a blocking call, once read */
    bool pipelining;
    uint8_t *pending; /* method id of each queued call */
    sc_client_reply *replies;
    size_t queued;   /* calls queued in the open pipeline */
    size_t answered; /* replies decoded so far */
    size_t cap;      /* capacity of pending and replies */
    /* Asynchronous mode (async.c); NULL while off.  When on, the request
     * writer runs under its lock, from sc_cl_begin to the request's end. */
    struct sc_cl_async *async;
    /* sc_client_next_call's name (static text), for the next record call */
    const char *next_call;
    /* log.subscribe's progress (calls_log.c): once it is sent, reading stops
     * at its reply, so the notifications behind it stay in `in`. */
    enum { SC_CL_LOG_OFF, SC_CL_LOG_PENDING, SC_CL_LOG_ON } log_state;
};

/* ------------------------------------------------------- async.c */

/** sc_cl_begin's part in asynchronous mode: take the lock, wait for room
 *  and check the connection.  0 with the lock held, or an error without. */
int sc_cl_async_lock(sc_client *c, sc_method_id m);
/** Queue the request just written (lock held): 1, or an error (the
 *  request withdrawn).  Releases the lock either way. */
int sc_cl_async_queue(sc_client *c, sc_method_id m);
/** Release the lock after a request was withdrawn. */
void sc_cl_async_unlock(sc_client *c);
/** Stop the I/O thread and free the mode's state (sc_client_close). */
void sc_cl_async_end(sc_client *c);

/* ------------------------------------------------------- calls_log.c */

/** The refusal of any request on a subscribed connection: -EBUSY. */
int sc_cl_log_refuse(sc_client *c, const char *method);

/* ------------------------------------------------------- fast_reply.c */

/**
 * A success reply of a record call (method m, request id `id`) in the form
 * the daemon writes, {"jsonrpc":"2.0","id":ID,"result":{"node":N|null}},
 * decoded into *r as sc_cl_decode_reply decodes it, without a tree: true.
 * false, *r untouched, for any other line (the caller decodes it whole).
 */
bool sc_cl_fast_reply(sc_method_id m, uint64_t id, const char *line, size_t len,
                      sc_client_reply *r);

/* ------------------------------------------------------- conn.c */

/** Close the request being written; 0 or -ENOMEM (then withdrawn). */
int sc_cl_finish_request(sc_client *c);
/** Decode one reply of method m (a pipelined or asynchronous call) into
 *  *r; messages are borrowed from `reply` or c.  Error details land in c. */
void sc_cl_decode_reply(sc_client *c, sc_method_id m, const cJSON *reply, sc_client_reply *r);
/** The daemon's error code as a return value (always <= -1000). */
int sc_cl_map_code(double code);

/** Forget the last error: message, code and data. */
void sc_cl_clear_error(sc_client *c);

/** Record a local failure: sets errmsg (printf-style), clears errcode,
 *  returns rc. */
int sc_cl_fail(sc_client *c, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/**
 * Start a request for method m.  Refuses (without writing anything) when
 * the connection is broken, or when a pipeline is open and m cannot be
 * pipelined.  Clears the last error.
 */
int sc_cl_begin(sc_client *c, sc_method_id m);
/* Params members.  `key` is a protocol name, written as it is (it must
 * need no escaping); string values are escaped. */
void sc_cl_u64(sc_client *c, const char *key, uint64_t v);
void sc_cl_str(sc_client *c, const char *key, const char *s);
/** A member whose value is JSON text written as is (validated by the caller). */
void sc_cl_raw(sc_client *c, const char *key, const char *json);
/** Write the key of a member and return the buffer for its value. */
sc_buf *sc_cl_key(sc_client *c, const char *key);
/**
 * One node as graph.submit and capture.add_node take it: kind and the
 * members the record call of that kind takes (kernels with grid and block
 * when dim3 is set), `stream` too when with_stream.
 */
void sc_cl_write_node(sc_buf *b, const sc_client_node *n, bool with_stream);
/** The member `accesses: [{address, size, mode}]` of the object being
 *  written to b (nothing when n is 0). */
void sc_cl_write_accesses(sc_buf *b, bool *first, const sc_client_access *acc, size_t n);
/** 0 when every access has a size and a known mode, else -EINVAL with
 *  the handle's error set. */
int sc_cl_check_accesses(sc_client *c, const sc_client_access *acc, size_t n);
/** Check g (and its bodies) before it is written: -EINVAL naming the fault
 *  for a kind no graph holds, or bodies that do not fit their node's kind;
 *  depth is g's below the top-level graph. */
int sc_cl_check_subgraph(sc_client *c, const sc_client_subgraph *g, unsigned depth);
/** `"nodes":[...],"edges":[...]` of g into b, bodies inside their nodes.
 *  -ENOMEM when memory ran out. */
int sc_cl_write_subgraph(sc_buf *b, bool *first, const sc_client_subgraph *g);
/** Abandon the request being written (argument error found late). */
void sc_cl_cancel(sc_client *c);

/**
 * Finish a request whose reply is small (session and capture calls).  In a
 * pipeline it is queued and 1 is returned.  Otherwise it is sent, its reply
 * decoded into *r and r->rc returned; r->errmsg is then NULL (the message
 * is the client's errmsg).
 */
int sc_cl_simple(sc_client *c, sc_method_id m, sc_client_reply *r);

/**
 * Finish a request, send it and wait for its reply.  Returns 0 with *root
 * (cJSON_Delete it) and *result (inside root), or the error.
 */
int sc_cl_tree(sc_client *c, sc_method_id m, cJSON **root, const cJSON **result);

/**
 * sc_cl_tree for a method by wire name with params as JSON text, written
 * as they are (one line, validated by the caller); the result may be any
 * JSON value.  Refused while a pipeline is open.
 */
int sc_cl_tree_raw(sc_client *c, const char *method, const char *params, cJSON **root,
                   const cJSON **result);

/* ------------------------------------------------------- calls.c */

/**
 * A typed call's reading of its reply: the skeleton every call of
 * calls.c, calls_graph.c and calls_cuda.c runs is sc_cl_start (begin the
 * request of method m), the call's own params, then sc_cl_finish (send,
 * wait, decode into the caller's result, free the reply).
 */
typedef struct sc_cl_call {
    sc_method_id m;
    /** The result must be read before the next call (cuda mode): refused
     *  while a pipeline is open, whose replies have no room for it. */
    bool needs_reply;
    /** The reply is read whole (sc_cl_tree) rather than as a small reply
     *  (sc_cl_simple, which a pipeline queues). */
    bool tree;
    /** Small replies: copy what the call returns into out (not NULL). */
    void (*take)(const sc_client_reply *r, void *out);
    /** Whole replies: read `res` of method m into `out`, zeroed; 0 or an
     *  error (then `drop`, when set, frees what it holds).  NULL: the
     *  result is dropped. */
    int (*decode)(sc_client *c, sc_method_id m, const cJSON *res, void *out);
    void (*drop)(void *out);
    /** Bytes decode fills (at most SC_CL_RESULT_MAX), copied to the
     *  caller's result only when it succeeds; 0: decode is handed the
     *  caller's own result and writes it itself. */
    size_t size;
} sc_cl_call;

#define SC_CL_RESULT_MAX 256

/** Begin the request of k->m (sc_cl_begin, after the needs_reply check). */
int sc_cl_start(sc_client *c, const sc_cl_call *k);
/**
 * Finish the request begun by sc_cl_start and read its reply into *out
 * (NULL: not wanted).  0 when the call succeeded or was queued (pipeline,
 * asynchronous mode; *out is then left alone), or the error.
 */
int sc_cl_finish(sc_client *c, const sc_cl_call *k, void *out);
/** A small reply's id (session, graph) as a uint64_t result: a take. */
void sc_cl_take_id(const sc_client_reply *r, void *out);
/**
 * A result's array member `key`, each element read by `one` into the next
 * item of a new array of `size`-byte items (*items, set even on failure,
 * and *count, which counts an item before it is read, so that freeing
 * *count items frees a half-read one too).  0, -EPROTO or -ENOMEM.
 */
int sc_cl_decode_array(sc_client *c, sc_method_id m, const cJSON *o, const char *key, size_t size,
                       int (*one)(sc_client *c, const cJSON *e, void *item), void **items,
                       size_t *count);
/** A NULL argument: -EINVAL, said in c's message when there is a c. */
int sc_cl_null_arg(sc_client *c, const char *what);
/** A string member a daemon from before hosts and storage backends does
 *  not send (host, backend): absent or null reads as "", never NULL
 *  (calls_graph.c). */
int sc_cl_get_new_str(sc_client *c, sc_method_id m, const cJSON *o, const char *key, char **out);
/** A node kind by its wire name (values.c): 0, or -EINVAL. */
int sc_cl_parse_kind(const char *name, sc_client_kind *out);

/* Reply field readers: 0, or -EPROTO with the client's errmsg naming the
 * field of method m.  `max` bounds integers. */
int sc_cl_get_u64(sc_client *c, sc_method_id m, const cJSON *o, const char *key, uint64_t max,
                  uint64_t *out);
int sc_cl_get_i64(sc_client *c, sc_method_id m, const cJSON *o, const char *key, int64_t *out);
int sc_cl_get_bool(sc_client *c, sc_method_id m, const cJSON *o, const char *key, bool *out);
/** A string copy; when `nullable`, an absent or null member gives NULL. */
int sc_cl_get_str(sc_client *c, sc_method_id m, const cJSON *o, const char *key, bool nullable,
                  char **out);
/** log.list's cuda members of one entry (semantics, captures), into e. */
int sc_cl_decode_captures(sc_client *c, const cJSON *o, sc_client_log_entry *e);
/** Free what sc_cl_decode_captures put into e. */
void sc_cl_free_captures(sc_client_log_entry *e);
int sc_cl_malformed(sc_client *c, sc_method_id m, const char *what);

#endif
