#include "sc_rpc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Names quoted in messages are clipped to this many bytes. */
#define SC_QUOTE_MAX 64

/* Every code lies in its range (sc_rpc.h). */
#define SC_RPC_STD_CODE(c) _Static_assert((c) >= SC_RPC_STD__MIN && (c) <= SC_RPC_STD__MAX, #c)
#define SC_RPC_APP_CODE(c) _Static_assert((c) >= SC_RPC_APP__MIN && (c) <= SC_RPC_APP__MAX, #c)
SC_RPC_STD_CODE(SC_RPC_PARSE_ERROR);
SC_RPC_STD_CODE(SC_RPC_INVALID_REQUEST);
SC_RPC_STD_CODE(SC_RPC_METHOD_NOT_FOUND);
SC_RPC_STD_CODE(SC_RPC_INVALID_PARAMS);
SC_RPC_STD_CODE(SC_RPC_INTERNAL_ERROR);
SC_RPC_APP_CODE(SC_RPC_NOT_FOUND);
SC_RPC_APP_CODE(SC_RPC_CAPTURE_STATE);
SC_RPC_APP_CODE(SC_RPC_INVALIDATED);
SC_RPC_APP_CODE(SC_RPC_PERMISSION_DENIED);
SC_RPC_APP_CODE(SC_RPC_LIMIT);
SC_RPC_APP_CODE(SC_RPC_STORAGE);
SC_RPC_APP_CODE(SC_RPC_SHUTTING_DOWN);
SC_RPC_APP_CODE(SC_RPC_CUDA);

const char *sc_rpc_error_kind(int code)
{
    switch (code) {
    case SC_RPC_PARSE_ERROR:
        return "parse_error";
    case SC_RPC_INVALID_REQUEST:
        return "invalid_request";
    case SC_RPC_METHOD_NOT_FOUND:
        return "method_not_found";
    case SC_RPC_INVALID_PARAMS:
        return "invalid_params";
    case SC_RPC_INTERNAL_ERROR:
        return "internal_error";
    case SC_RPC_NOT_FOUND:
        return "not_found";
    case SC_RPC_CAPTURE_STATE:
        return "capture_state";
    case SC_RPC_INVALIDATED:
        return "invalidated";
    case SC_RPC_PERMISSION_DENIED:
        return "permission_denied";
    case SC_RPC_LIMIT:
        return "limit";
    case SC_RPC_STORAGE:
        return "storage";
    case SC_RPC_SHUTTING_DOWN:
        return "shutting_down";
    case SC_RPC_CUDA:
        return "cuda";
    default:
        return "error";
    }
}

/* Length of the longest prefix of s[0..n) that ends on a UTF-8 character
 * boundary, so a clipped text never ends in half a character. */
static size_t utf8_boundary(const char *s, size_t n)
{
    size_t i = n;
    size_t back = 0;
    while (i > 0 && back < 4 && ((unsigned char)s[i - 1] & 0xC0) == 0x80) {
        i--;
        back++;
    }
    if (i == 0)
        return n;
    unsigned char lead = (unsigned char)s[i - 1];
    size_t want = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    return back + 1 >= want ? n : i - 1;
}

int sc_rpc_fail(sc_rpc_error *err, int code, const char *fmt, ...)
{
    err->code = code;
    err->field = NULL;
    err->what = NULL;
    err->cuda_name = NULL;
    err->cuda_error = 0;
    err->extra = NULL;
    err->extra_len = 0;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    if (n < 0) {
        err->message[0] = '\0';
    } else if ((size_t)n >= sizeof err->message) {
        size_t keep = utf8_boundary(err->message, sizeof err->message - 1);
        err->message[keep] = '\0';
    }
    return code;
}

/* A name as a printf "%.*s" length: at most SC_QUOTE_MAX bytes, whole
 * characters only. */
static int quote_len(const char *s)
{
    size_t n = 0;
    while (n <= SC_QUOTE_MAX && s[n])
        n++;
    if (n > SC_QUOTE_MAX)
        n = utf8_boundary(s, SC_QUOTE_MAX);
    return (int)n;
}

/* ---- envelope ---- */

static bool usable_id(sc_jval id)
{
    int64_t v;
    /* Beyond 2^53 the echo could differ from what the client sent. */
    return sc_jval_is(id, SC_JSTRING) || sc_jval_is(id, SC_JNULL) || sc_jval_int(id, &v);
}

struct envelope {
    sc_jval jsonrpc, method, id, params;
    bool id_twice;
};

static bool name_is(const sc_jtok *k, const char *text, const char *name, size_t len)
{
    return k->u.s.len == len && memcmp(text + k->u.s.off, name, len) == 0;
}

/* Other repeated members are found by sc_jdoc_find_dup; only a repeated id
 * needs to be known early, as it decides which id the reply carries. */
static void scan_envelope(sc_jval item, struct envelope *env)
{
    memset(env, 0, sizeof *env);
    const sc_jdoc *d = item.doc;
    uint32_t end = d->tok[item.i].end;
    for (uint32_t k = item.i + 1; k < end; k = d->tok[k + 1].end) {
        const sc_jtok *key = &d->tok[k];
        sc_jval v = {d, k + 1};
        if (name_is(key, d->text, "jsonrpc", 7)) {
            env->jsonrpc = v;
        } else if (name_is(key, d->text, "method", 6)) {
            env->method = v;
        } else if (name_is(key, d->text, "params", 6)) {
            env->params = v;
        } else if (name_is(key, d->text, "id", 2)) {
            env->id_twice = env->id.doc != NULL;
            env->id = v;
        }
    }
}

int sc_rpc_decode(sc_jval item, sc_rpc_request *req, sc_rpc_error *err)
{
    memset(req, 0, sizeof *req);
    if (!sc_jval_is(item, SC_JOBJECT))
        return sc_rpc_fail(err, SC_RPC_INVALID_REQUEST, "invalid request: not an object");

    struct envelope env;
    scan_envelope(item, &env);
    req->notification = env.id.doc == NULL;
    if (env.id_twice)
        return sc_rpc_fail(err, SC_RPC_INVALID_REQUEST, "invalid request: duplicate member 'id'");
    if (env.id.doc && !usable_id(env.id))
        return sc_rpc_fail(err, SC_RPC_INVALID_REQUEST,
                           "invalid request: 'id' must be a string, an integer from "
                           "-9007199254740992 to 9007199254740992, or null");
    req->id = env.id;

    uint32_t dup = sc_jdoc_find_dup(item);
    if (dup == SC_JDUP_OOM)
        return sc_rpc_fail(err, SC_RPC_INTERNAL_ERROR, "internal error: out of memory");
    if (dup) {
        const char *name = sc_jval_str((sc_jval){item.doc, dup}, NULL);
        return sc_rpc_fail(err, SC_RPC_INVALID_REQUEST, "invalid request: duplicate member '%.*s'",
                           quote_len(name), name);
    }

    size_t len = 0;
    const char *version = sc_jval_str(env.jsonrpc, &len);
    if (!version || len != 3 || memcmp(version, "2.0", 3) != 0)
        return sc_rpc_fail(err, SC_RPC_INVALID_REQUEST,
                           env.jsonrpc.doc ? "invalid request: 'jsonrpc' must be \"2.0\""
                                           : "invalid request: missing 'jsonrpc'");
    if (!env.method.doc)
        return sc_rpc_fail(err, SC_RPC_INVALID_REQUEST, "invalid request: missing 'method'");
    req->method = sc_jval_str(env.method, &len);
    if (!req->method)
        return sc_rpc_fail(err, SC_RPC_INVALID_REQUEST,
                           "invalid request: 'method' must be a string");

    req->desc = sc_method_lookup(req->method, len);
    if (!req->desc)
        return sc_rpc_fail(err, SC_RPC_METHOD_NOT_FOUND, "method not found: %.*s",
                           quote_len(req->method), req->method);

    if (env.params.doc && !sc_jval_is(env.params, SC_JOBJECT)) {
        sc_rpc_fail(err, SC_RPC_INVALID_PARAMS, "invalid params: params must be an object");
        err->field = "params";
        return SC_RPC_INVALID_PARAMS;
    }
    req->params = env.params;
    return 0;
}

/* ---- reply writers ---- */

void sc_rpc_head(sc_buf *b, sc_jval id)
{
    static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":";
    sc_buf_append(b, head, sizeof head - 1);
    sc_jval_write(b, id);
}

void sc_rpc_head_result(sc_buf *b)
{
    static const char key[] = ",\"result\":";
    sc_buf_append(b, key, sizeof key - 1);
}

void sc_rpc_result_begin(sc_buf *b, sc_jval id)
{
    sc_rpc_head(b, id);
    sc_rpc_head_result(b);
}

void sc_rpc_result_end(sc_buf *b)
{
    sc_buf_putc(b, '}');
}

void sc_rpc_head_error(sc_buf *b, const sc_rpc_error *err)
{
    bool in_head = false; /* the head's members come before this one */
    bool first, first_data;
    sc_json_key(b, &in_head, "error");
    sc_json_obj_begin(b, &first);
    sc_json_member_i64(b, &first, "code", err->code);
    sc_json_member_cstr(b, &first, "message", err->message);
    sc_json_key(b, &first, "data");
    sc_json_obj_begin(b, &first_data);
    sc_json_member_cstr(b, &first_data, "kind", sc_rpc_error_kind(err->code));
    if (err->field)
        sc_json_member_cstr(b, &first_data, "field", err->field);
    if (err->what)
        sc_json_member_cstr(b, &first_data, "what", err->what);
    if (err->cuda_name) {
        sc_json_member_i64(b, &first_data, "cuda_error", err->cuda_error);
        sc_json_member_cstr(b, &first_data, "cuda_name", err->cuda_name);
    }
    if (err->extra)
        sc_buf_append(b, err->extra, err->extra_len);
    sc_json_obj_end(b);
    sc_json_obj_end(b);
    sc_json_obj_end(b);
}

void sc_rpc_write_error(sc_buf *b, sc_jval id, const sc_rpc_error *err)
{
    sc_rpc_head(b, id);
    sc_rpc_head_error(b, err);
}
