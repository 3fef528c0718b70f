/*
 * sc_rpc.h - JSON-RPC 2.0 envelopes, error codes and parameter checks.
 *
 * No I/O.  Decoding goes line -> sc_rpc_parse (strict JSON) -> for each
 * request object sc_rpc_decode -> handler reads params with sc_param_*.
 * Encoding writes replies into an sc_buf without building cJSON trees.
 */
#ifndef SC_RPC_H
#define SC_RPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sc_buf.h"
#include "sc_methods.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cJSON cJSON;

/* JSON-RPC 2.0 standard codes. */
#define SC_RPC_PARSE_ERROR      (-32700)
#define SC_RPC_INVALID_REQUEST  (-32600)
#define SC_RPC_METHOD_NOT_FOUND (-32601)
#define SC_RPC_INVALID_PARAMS   (-32602)
#define SC_RPC_INTERNAL_ERROR   (-32603)
/* streamcap codes (DESIGN 5). */
#define SC_RPC_NOT_FOUND         1001
#define SC_RPC_CAPTURE_STATE     1002
#define SC_RPC_INVALIDATED       1003
#define SC_RPC_PERMISSION_DENIED 1005
#define SC_RPC_LIMIT             1006
#define SC_RPC_STORAGE           1007
#define SC_RPC_SHUTTING_DOWN     1008

/** data.kind for a code: "parse_error", "invalid_request", "method_not_found",
 *  "invalid_params", "internal_error", "not_found", "capture_state",
 *  "invalidated", "permission_denied", "limit", "storage", "shutting_down";
 *  "error" for anything else. */
const char *sc_rpc_error_kind(int code);

/** Largest integer JSON carries exactly (2^53). */
#define SC_JSON_MAX_EXACT 9007199254740992ULL

/**
 * An error reply in the making.  `field` (for -32602) and `what` (for 1001:
 * "session", "graph", "node") are static strings or NULL; they become
 * data.field / data.what.
 */
typedef struct sc_rpc_error {
    int code;
    const char *field;
    const char *what;
    char message[256];
} sc_rpc_error;

/**
 * Fill *err (printf-style message, cut on a UTF-8 character boundary when
 * it does not fit); clears `field` and `what`, so set those afterwards.
 * Returns `code` for `return sc_rpc_fail(...)`.
 */
int sc_rpc_fail(sc_rpc_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/**
 * Parse one line as strict JSON (RFC 8259).  Beyond cJSON it rejects:
 * invalid UTF-8 (overlong forms, encoded surrogates, above U+10FFFF,
 * truncated sequences), raw control characters inside strings, lone or
 * mispaired \u surrogates, \u0000 escapes (names must survive as C
 * strings), nesting deeper than 256, numbers outside the grammar ("01",
 * "1.", NaN, Infinity) or not finite (1e999), whitespace other than space,
 * tab, CR and LF, a byte order mark, an empty line and trailing garbage.
 *
 * On success returns 0 and *root is the tree (caller frees with
 * cJSON_Delete).  A number literal just above 2^53 in magnitude (such as
 * 9007199254740993, which a double rounds down to 2^53) is stored as
 * +-(2^53 + 2), so exact-integer range checks reject it.  The root and, for
 * a batch, each element carry a hint for sc_rpc_decode in their (otherwise
 * unused) valueint.
 *
 * On failure returns SC_RPC_PARSE_ERROR with *root NULL and err filled:
 * "parse error: <problem> at byte <offset>" (0-based).  cJSON running out
 * of memory is reported the same way.
 */
int sc_rpc_parse(const char *line, size_t len, cJSON **root, sc_rpc_error *err);

/** One decoded request (points into the cJSON tree). */
typedef struct sc_rpc_request {
    const cJSON *id;            /* NULL when the member is absent */
    bool notification;          /* true when there is no "id" member */
    const char *method;         /* NUL-terminated */
    const sc_method_desc *desc; /* NULL when the method is unknown */
    const cJSON *params;        /* the params object; NULL when absent */
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
 * can echo it; otherwise it is NULL (reply with id null).  Replying: an
 * SC_RPC_INVALID_REQUEST is always answered (it is not a valid
 * notification); any other outcome is answered unless req->notification.
 */
int sc_rpc_decode(const cJSON *item, sc_rpc_request *req, sc_rpc_error *err);

/* ---- reply writers: each writes one complete reply object, no newline ---- */

/** Writes {"jsonrpc":"2.0","id":<id>,"result": -- the caller writes the
 *  result value, then calls sc_rpc_result_end. */
void sc_rpc_result_begin(sc_buf *b, const cJSON *id);
void sc_rpc_result_end(sc_buf *b);
/** {"jsonrpc":"2.0","id":<id>,"error":{"code":..,"message":..,"data":{"kind":..[,"field"][,"what"]}}} */
void sc_rpc_write_error(sc_buf *b, const cJSON *id, const sc_rpc_error *err);

/* ---- parameter readers ----
 * Each returns 0 (and *out set), 1 when an optional field is absent or
 * null (out untouched), or SC_RPC_INVALID_PARAMS with err->field set to the
 * `field` pointer itself (pass a static string) and the message naming it:
 * "invalid params: missing 'session'" (required and absent),
 * "invalid params: 'stream' must be an integer from 0 to 4294967295",
 * "invalid params: 'name' must be a string",
 * "invalid params: 'flag' must be a boolean".
 * A required field that is null gets the type message.  Integers must be
 * numbers with an integral, finite value in range (1.5, -1, 1e300 fail).
 * `params` may be NULL (no params member): every field is then absent. */
int sc_param_u32(const cJSON *params, const char *field, bool required, uint32_t *out,
                 sc_rpc_error *err);
/** 0 <= v <= max (a larger max is taken as SC_JSON_MAX_EXACT). */
int sc_param_u64(const cJSON *params, const char *field, bool required, uint64_t max, uint64_t *out,
                 sc_rpc_error *err);
/** An id: 1 <= v <= SC_JSON_MAX_EXACT. */
int sc_param_id(const cJSON *params, const char *field, bool required, uint64_t *out,
                sc_rpc_error *err);
/** *out points into the tree (NUL-terminated, valid UTF-8, no NUL inside);
 *  *len is its length in bytes (len may be NULL). */
int sc_param_string(const cJSON *params, const char *field, bool required, const char **out,
                    size_t *len, sc_rpc_error *err);
int sc_param_bool(const cJSON *params, const char *field, bool required, bool *out,
                  sc_rpc_error *err);
/** The member itself (any type) or NULL; no error. */
const cJSON *sc_param_get(const cJSON *params, const char *field);

#ifdef __cplusplus
}
#endif
#endif
