#include "sc_rpc.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Objects with more members than this are checked for duplicates by
 * sorting a copy of their keys instead of comparing every pair. */
#define SC_DUP_PAIRWISE_MAX 16
/* Names quoted in messages are clipped to this many bytes. */
#define SC_QUOTE_MAX 64

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

/* ---- duplicate member names ---- */

static int cmp_keys(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* 0, 1 with *dup set, or -1 out of memory. */
static int object_dup(const cJSON *obj, size_t n, const char **dup)
{
    if (n <= SC_DUP_PAIRWISE_MAX) {
        for (const cJSON *a = obj->child; a; a = a->next)
            for (const cJSON *b = a->next; b; b = b->next)
                if (a->string[0] == b->string[0] && strcmp(a->string, b->string) == 0) {
                    *dup = a->string;
                    return 1;
                }
        return 0;
    }
    const char **keys = malloc(n * sizeof *keys);
    if (!keys)
        return -1;
    size_t i = 0;
    for (const cJSON *c = obj->child; c; c = c->next)
        keys[i++] = c->string;
    qsort(keys, n, sizeof *keys, cmp_keys);
    int rc = 0;
    for (i = 1; i < n && rc == 0; i++)
        if (strcmp(keys[i - 1], keys[i]) == 0) {
            *dup = keys[i];
            rc = 1;
        }
    free(keys);
    return rc;
}

static bool is_container(const cJSON *item)
{
    return (item->type & (cJSON_Array | cJSON_Object)) != 0;
}

/*
 * Duplicate members in item (at `level`) and below.  `limit` > 0 says no
 * object sits at level `limit` or deeper (sc_rpc_parse's hint), so deeper
 * containers are not visited.  Recursion depth is bounded by the parser's
 * nesting limit.
 */
static int find_dup(const cJSON *item, int level, int limit, const char **dup)
{
    if (item->type & cJSON_Object) {
        size_t n = 0;
        for (const cJSON *c = item->child; c; c = c->next) {
            if (!c->string)
                return 0; /* not a parsed tree: nothing to compare */
            n++;
        }
        if (n > 1) {
            int rc = object_dup(item, n, dup);
            if (rc != 0)
                return rc;
        }
    }
    if (limit > 0 && level + 1 >= limit)
        return 0;
    for (const cJSON *c = item->child; c; c = c->next) {
        if (!is_container(c))
            continue;
        int rc = find_dup(c, level + 1, limit, dup);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* ---- envelope ---- */

static bool usable_id(const cJSON *id)
{
    if (cJSON_IsString(id) || cJSON_IsNull(id))
        return true;
    if (!cJSON_IsNumber(id))
        return false;
    /* Beyond 2^53 the echo could differ from what the client sent. */
    double d = id->valuedouble;
    return isfinite(d) && d == trunc(d) && fabs(d) <= (double)SC_JSON_MAX_EXACT;
}

struct envelope {
    const cJSON *jsonrpc, *method, *id, *params;
    bool id_twice;
};

/* Other repeated members are found by find_dup; only a repeated id needs
 * to be known early, as it decides which id the reply carries. */
static void scan_envelope(const cJSON *item, struct envelope *env)
{
    memset(env, 0, sizeof *env);
    for (const cJSON *c = item->child; c; c = c->next) {
        const char *k = c->string;
        if (!k)
            continue;
        if (strcmp(k, "jsonrpc") == 0) {
            env->jsonrpc = c;
        } else if (strcmp(k, "method") == 0) {
            env->method = c;
        } else if (strcmp(k, "params") == 0) {
            env->params = c;
        } else if (strcmp(k, "id") == 0) {
            env->id_twice = env->id != NULL;
            env->id = c;
        }
    }
}

int sc_rpc_decode(const cJSON *item, sc_rpc_request *req, sc_rpc_error *err)
{
    memset(req, 0, sizeof *req);
    if (!cJSON_IsObject(item))
        return sc_rpc_fail(err, SC_RPC_INVALID_REQUEST, "invalid request: not an object");

    struct envelope env;
    scan_envelope(item, &env);
    req->notification = env.id == NULL;
    if (env.id_twice)
        return sc_rpc_fail(err, SC_RPC_INVALID_REQUEST, "invalid request: duplicate member 'id'");
    if (env.id && !usable_id(env.id))
        return sc_rpc_fail(err, SC_RPC_INVALID_REQUEST,
                           "invalid request: 'id' must be a string, an integer from "
                           "-9007199254740992 to 9007199254740992, or null");
    req->id = env.id;

    const char *dup = NULL;
    int rc = find_dup(item, 1, item->valueint, &dup);
    if (rc < 0)
        return sc_rpc_fail(err, SC_RPC_INTERNAL_ERROR, "internal error: out of memory");
    if (rc > 0)
        return sc_rpc_fail(err, SC_RPC_INVALID_REQUEST, "invalid request: duplicate member '%.*s'",
                           quote_len(dup), dup);

    if (!cJSON_IsString(env.jsonrpc) || strcmp(env.jsonrpc->valuestring, "2.0") != 0)
        return sc_rpc_fail(err, SC_RPC_INVALID_REQUEST,
                           env.jsonrpc ? "invalid request: 'jsonrpc' must be \"2.0\""
                                       : "invalid request: missing 'jsonrpc'");
    if (!env.method)
        return sc_rpc_fail(err, SC_RPC_INVALID_REQUEST, "invalid request: missing 'method'");
    if (!cJSON_IsString(env.method))
        return sc_rpc_fail(err, SC_RPC_INVALID_REQUEST,
                           "invalid request: 'method' must be a string");
    req->method = env.method->valuestring;

    req->desc = sc_method_lookup(req->method, strlen(req->method));
    if (!req->desc)
        return sc_rpc_fail(err, SC_RPC_METHOD_NOT_FOUND, "method not found: %.*s",
                           quote_len(req->method), req->method);

    if (env.params && !cJSON_IsObject(env.params)) {
        sc_rpc_fail(err, SC_RPC_INVALID_PARAMS, "invalid params: params must be an object");
        err->field = "params";
        return SC_RPC_INVALID_PARAMS;
    }
    req->params = env.params;
    return 0;
}

/* ---- reply writers ---- */

static void write_head(sc_buf *b, const cJSON *id)
{
    static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":";
    sc_buf_append(b, head, sizeof head - 1);
    sc_json_value(b, id);
}

void sc_rpc_result_begin(sc_buf *b, const cJSON *id)
{
    static const char key[] = ",\"result\":";
    write_head(b, id);
    sc_buf_append(b, key, sizeof key - 1);
}

void sc_rpc_result_end(sc_buf *b)
{
    sc_buf_putc(b, '}');
}

void sc_rpc_write_error(sc_buf *b, const cJSON *id, const sc_rpc_error *err)
{
    write_head(b, id);
    sc_buf_puts(b, ",\"error\":{\"code\":");
    sc_json_i64(b, err->code);
    sc_buf_puts(b, ",\"message\":");
    sc_json_cstr(b, err->message);
    sc_buf_puts(b, ",\"data\":{\"kind\":");
    sc_json_cstr(b, sc_rpc_error_kind(err->code));
    if (err->field) {
        sc_buf_puts(b, ",\"field\":");
        sc_json_cstr(b, err->field);
    }
    if (err->what) {
        sc_buf_puts(b, ",\"what\":");
        sc_json_cstr(b, err->what);
    }
    sc_buf_puts(b, "}}}");
}
