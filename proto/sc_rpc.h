/*
 * sc_rpc.h - JSON-RPC 2.0 envelopes, error codes and parameter checks.
 *
 * No I/O.  Decoding goes line -> sc_jdoc_parse (strict JSON, sc_json.h) ->
 * for each request object sc_rpc_decode -> handler reads params with
 * sc_param_*.  Encoding writes replies into an sc_buf without building
 * trees.  Values are tokens of the caller's sc_jdoc, valid until it parses
 * the next line.
 */
#ifndef SC_RPC_H
#define SC_RPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sc_buf.h"
#include "sc_json.h"
#include "sc_methods.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Error codes on the wire, in two ranges: the standard's reserved
 * [SC_RPC_STD__MIN, SC_RPC_STD__MAX] and streamcap's own
 * [SC_RPC_APP__MIN, SC_RPC_APP__MAX].  Both are disjoint from the core's
 * and the store's codes (the table of every error space is in
 * core/sc_errors.h), which the daemon maps onto these.
 */
#define SC_RPC_STD__MIN (-32768)
#define SC_RPC_STD__MAX (-32000)
#define SC_RPC_APP__MIN 1000
#define SC_RPC_APP__MAX 1999

/* JSON-RPC 2.0 standard codes. */
#define SC_RPC_PARSE_ERROR      (-32700)
#define SC_RPC_INVALID_REQUEST  (-32600)
#define SC_RPC_METHOD_NOT_FOUND (-32601)
#define SC_RPC_INVALID_PARAMS   (-32602)
#define SC_RPC_INTERNAL_ERROR   (-32603)
/* streamcap codes (docs/design.md §5). */
#define SC_RPC_NOT_FOUND         1001
#define SC_RPC_CAPTURE_STATE     1002
#define SC_RPC_INVALIDATED       1003
#define SC_RPC_PERMISSION_DENIED 1005
#define SC_RPC_LIMIT             1006
#define SC_RPC_STORAGE           1007
#define SC_RPC_SHUTTING_DOWN     1008
#define SC_RPC_CUDA              1009 /* a cuda-mode session's CUDA error */

/** data.kind for a code: "parse_error", "invalid_request", "method_not_found",
 *  "invalid_params", "internal_error", "not_found", "capture_state",
 *  "invalidated", "permission_denied", "limit", "storage", "shutting_down",
 *  "cuda"; "error" for anything else. */
const char *sc_rpc_error_kind(int code);

/** Largest integer JSON carries exactly (2^53). */
#define SC_JSON_MAX_EXACT 9007199254740992ULL

/**
 * An error reply in the making.  `field` (for -32602) and `what` (for 1001:
 * "session", "graph", "node") are static strings or NULL; they become
 * data.field / data.what.  `cuda_name` (static, for 1009) adds
 * data.cuda_error (`cuda_error`, CUDA's number) and data.cuda_name.
 * `extra` (NULL for none) is raw JSON text written verbatim inside data
 * after the members above: zero or more `,"key":value` members, each with
 * its leading comma (904's `,"unjoined":[...]`); whoever sets it keeps the
 * text alive until the reply is written.
 */
typedef struct sc_rpc_error {
    int code;
    const char *field;
    const char *what;
    const char *cuda_name;
    int cuda_error;
    const char *extra;
    size_t extra_len;
    char message[256];
} sc_rpc_error;

/**
 * Fill *err (printf-style message, cut on a UTF-8 character boundary when
 * it does not fit); clears `field`, `what`, `cuda_name` and `extra`, so set
 * those afterwards.
 * Returns `code` for `return sc_rpc_fail(...)`.
 */
int sc_rpc_fail(sc_rpc_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** One decoded request (points into the document). */
typedef struct sc_rpc_request {
    sc_jval id;                 /* none when the member is absent */
    bool notification;          /* true when there is no "id" member */
    const char *method;         /* NUL-terminated */
    const sc_method_desc *desc; /* NULL when the method is unknown */
    sc_jval params;             /* the params object; none when absent */
} sc_rpc_request;

/**
 * Validate a request object's envelope: an object, "jsonrpc" exactly
 * "2.0", "method" a string, "id" (if present) a string, null or an integer
 * within +-2^53 (larger ones could not be echoed exactly), "params" (if
 * present) an object, no duplicate member names (checked recursively,
 * params included).  Unknown extra members are ignored.
 *
 * Returns 0 (req->desc set), SC_RPC_INVALID_REQUEST, SC_RPC_METHOD_NOT_FOUND
 * (envelope fine, method unknown; req->method set), SC_RPC_INVALID_PARAMS
 * (params not an object; err->field "params") or SC_RPC_INTERNAL_ERROR (out
 * of memory checking a large object).  Checks run in this order: id, then
 * duplicates, jsonrpc, method, params.
 *
 * req->id is filled whenever the id itself was usable, so the error reply
 * can echo it; otherwise it is none (reply with id null).  Replying: an
 * SC_RPC_INVALID_REQUEST is always answered (it is not a valid
 * notification); any other outcome is answered unless req->notification.
 */
int sc_rpc_decode(sc_jval item, sc_rpc_request *req, sc_rpc_error *err);

/* ---- reply writers: each writes one complete reply object, no newline ---- */

/** Writes {"jsonrpc":"2.0","id":<id>,"result": -- the caller writes the
 *  result value, then calls sc_rpc_result_end.  An id that is none is
 *  written as null. */
void sc_rpc_result_begin(sc_buf *b, sc_jval id);
void sc_rpc_result_end(sc_buf *b);
/** {"jsonrpc":"2.0","id":<id>,"error":{"code":..,"message":..,"data":{"kind":..[,"field"][,"what"]
 *  [,"cuda_error","cuda_name"][extra]}}} */
void sc_rpc_write_error(sc_buf *b, sc_jval id, const sc_rpc_error *err);
/*
 * The same replies in two steps, for a reply whose id must be written
 * before its outcome is known (the request's document is gone by then):
 * sc_rpc_head writes {"jsonrpc":"2.0","id":<id> and either
 * sc_rpc_head_result (then the value and sc_rpc_result_end) or
 * sc_rpc_head_error completes it.
 */
void sc_rpc_head(sc_buf *b, sc_jval id);
void sc_rpc_head_result(sc_buf *b);
void sc_rpc_head_error(sc_buf *b, const sc_rpc_error *err);

/* ---- parameter readers ----
 * Every reader returns 0 or SC_RPC_INVALID_PARAMS, never anything else, so
 * a handler reads its parameters in one chain of `!= 0` tests.  On error,
 * err->field is the `field` pointer itself (pass a static string) and the
 * message names it:
 * "invalid params: missing 'session'" (required and absent),
 * "invalid params: 'stream' must be an integer from 0 to 4294967295",
 * "invalid params: 'name' must be a string",
 * "invalid params: 'flag' must be a boolean".
 *
 * sc_param_<type> reads a required field: absent is an error, and so is
 * null (with the type message).  sc_param_opt_<type> reads an optional
 * one: absent or null returns 0 and leaves *out as it was, so set the
 * default before the call; present but wrong is an error as for a required
 * field.  Integers must be numbers whose literal is an integer in range
 * (SC_JTOK_INT: 2.0 and 1e3 pass; 1.5, 0.99999999999999999, -1, 1e300
 * fail).  `params` may be none (no params member): every
 * field is then absent.  *out is written only on success. */
int sc_param_u32(sc_jval params, const char *field, uint32_t *out, sc_rpc_error *err);
int sc_param_opt_u32(sc_jval params, const char *field, uint32_t *out, sc_rpc_error *err);
/** 0 <= v <= max (a larger max is taken as SC_JSON_MAX_EXACT). */
int sc_param_u64(sc_jval params, const char *field, uint64_t max, uint64_t *out, sc_rpc_error *err);
int sc_param_opt_u64(sc_jval params, const char *field, uint64_t max, uint64_t *out,
                     sc_rpc_error *err);
/** An id: 1 <= v <= SC_JSON_MAX_EXACT. */
int sc_param_id(sc_jval params, const char *field, uint64_t *out, sc_rpc_error *err);
int sc_param_opt_id(sc_jval params, const char *field, uint64_t *out, sc_rpc_error *err);
/** *out points into the document (NUL-terminated, valid UTF-8, no NUL
 *  inside); *len is its length in bytes (len may be NULL). */
int sc_param_string(sc_jval params, const char *field, const char **out, size_t *len,
                    sc_rpc_error *err);
int sc_param_opt_string(sc_jval params, const char *field, const char **out, size_t *len,
                        sc_rpc_error *err);
int sc_param_bool(sc_jval params, const char *field, bool *out, sc_rpc_error *err);
int sc_param_opt_bool(sc_jval params, const char *field, bool *out, sc_rpc_error *err);
/** True when `field` is there and not null. */
bool sc_param_present(sc_jval params, const char *field);
/** The member itself (any type) or none; no error. */
sc_jval sc_param_get(sc_jval params, const char *field);

#ifdef __cplusplus
}
#endif
#endif
