#include "sc_rpc.h"

#include <inttypes.h>
#include <string.h>

sc_jval sc_param_get(sc_jval params, const char *field)
{
    return sc_jval_get(params, field, strlen(field));
}

static int missing(sc_rpc_error *err, const char *field)
{
    sc_rpc_fail(err, SC_RPC_INVALID_PARAMS, "invalid params: missing '%s'", field);
    err->field = field;
    return SC_RPC_INVALID_PARAMS;
}

static int out_of_range(sc_rpc_error *err, const char *field, uint64_t lo, uint64_t hi)
{
    sc_rpc_fail(err, SC_RPC_INVALID_PARAMS,
                "invalid params: '%s' must be an integer from %" PRIu64 " to %" PRIu64, field, lo,
                hi);
    err->field = field;
    return SC_RPC_INVALID_PARAMS;
}

static int wrong_type(sc_rpc_error *err, const char *field, const char *type)
{
    sc_rpc_fail(err, SC_RPC_INVALID_PARAMS, "invalid params: '%s' must be %s", field, type);
    err->field = field;
    return SC_RPC_INVALID_PARAMS;
}

/*
 * Shared lookup: 0 with *item set, 1 when an optional field is absent (or
 * null), or the error.  A null counts as absent only for optional fields;
 * for a required one it falls through to the caller's type check.
 */
static int lookup(sc_jval params, const char *field, bool required, sc_jval *item,
                  sc_rpc_error *err)
{
    sc_jval it = sc_param_get(params, field);
    if (!it.doc || (!required && sc_jval_is(it, SC_JNULL))) {
        if (required)
            return missing(err, field);
        return 1;
    }
    *item = it;
    return 0;
}

static int read_uint(sc_jval params, const char *field, bool required, uint64_t lo, uint64_t hi,
                     uint64_t *out, sc_rpc_error *err)
{
    sc_jval it;
    int rc = lookup(params, field, required, &it, err);
    if (rc != 0)
        return rc;
    /* hi <= 2^53, so every integer in range is an exact one; anything else
     * (a fraction, a number beyond 2^53, another type) is out of range. */
    int64_t v;
    if (!sc_jval_int(it, &v) || v < 0 || (uint64_t)v < lo || (uint64_t)v > hi)
        return out_of_range(err, field, lo, hi);
    *out = (uint64_t)v;
    return 0;
}

static int read_u32(sc_jval params, const char *field, bool required, uint32_t *out,
                    sc_rpc_error *err)
{
    uint64_t v;
    int rc = read_uint(params, field, required, 0, UINT32_MAX, &v, err);
    if (rc == 0)
        *out = (uint32_t)v;
    return rc;
}

static int read_u64(sc_jval params, const char *field, bool required, uint64_t max, uint64_t *out,
                    sc_rpc_error *err)
{
    if (max > SC_JSON_MAX_EXACT)
        max = SC_JSON_MAX_EXACT;
    return read_uint(params, field, required, 0, max, out, err);
}

static int read_string(sc_jval params, const char *field, bool required, const char **out,
                       size_t *len, sc_rpc_error *err)
{
    sc_jval it;
    int rc = lookup(params, field, required, &it, err);
    if (rc != 0)
        return rc;
    const char *s = sc_jval_str(it, len);
    if (!s)
        return wrong_type(err, field, "a string");
    *out = s;
    return 0;
}

static int read_bool(sc_jval params, const char *field, bool required, bool *out, sc_rpc_error *err)
{
    sc_jval it;
    int rc = lookup(params, field, required, &it, err);
    if (rc != 0)
        return rc;
    if (!sc_jval_is(it, SC_JTRUE) && !sc_jval_is(it, SC_JFALSE))
        return wrong_type(err, field, "a boolean");
    *out = sc_jval_is(it, SC_JTRUE);
    return 0;
}

/*
 * The public readers.  The shared code above returns 1 for an absent
 * optional field; none of that leaks out: every reader returns 0 or the
 * error, so a handler checks them all with one comparison.
 */
static int absent_ok(int rc)
{
    return rc == 1 ? 0 : rc;
}

int sc_param_u32(sc_jval params, const char *field, uint32_t *out, sc_rpc_error *err)
{
    return read_u32(params, field, true, out, err);
}

int sc_param_u64(sc_jval params, const char *field, uint64_t max, uint64_t *out, sc_rpc_error *err)
{
    return read_u64(params, field, true, max, out, err);
}

int sc_param_id(sc_jval params, const char *field, uint64_t *out, sc_rpc_error *err)
{
    return read_uint(params, field, true, 1, SC_JSON_MAX_EXACT, out, err);
}

int sc_param_string(sc_jval params, const char *field, const char **out, size_t *len,
                    sc_rpc_error *err)
{
    return read_string(params, field, true, out, len, err);
}

int sc_param_bool(sc_jval params, const char *field, bool *out, sc_rpc_error *err)
{
    return read_bool(params, field, true, out, err);
}

int sc_param_opt_u32(sc_jval params, const char *field, uint32_t *out, sc_rpc_error *err)
{
    return absent_ok(read_u32(params, field, false, out, err));
}

int sc_param_opt_u64(sc_jval params, const char *field, uint64_t max, uint64_t *out,
                     sc_rpc_error *err)
{
    return absent_ok(read_u64(params, field, false, max, out, err));
}

int sc_param_opt_id(sc_jval params, const char *field, uint64_t *out, sc_rpc_error *err)
{
    return absent_ok(read_uint(params, field, false, 1, SC_JSON_MAX_EXACT, out, err));
}

int sc_param_opt_string(sc_jval params, const char *field, const char **out, size_t *len,
                        sc_rpc_error *err)
{
    return absent_ok(read_string(params, field, false, out, len, err));
}

int sc_param_opt_bool(sc_jval params, const char *field, bool *out, sc_rpc_error *err)
{
    return absent_ok(read_bool(params, field, false, out, err));
}

bool sc_param_present(sc_jval params, const char *field)
{
    sc_jval v = sc_param_get(params, field);
    return v.doc && !sc_jval_is(v, SC_JNULL);
}
