#include "sc_rpc.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

const cJSON *sc_param_get(const cJSON *params, const char *field)
{
    if (!cJSON_IsObject(params))
        return NULL;
    return cJSON_GetObjectItemCaseSensitive(params, field);
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
static int lookup(const cJSON *params, const char *field, bool required, const cJSON **item,
                  sc_rpc_error *err)
{
    const cJSON *it = sc_param_get(params, field);
    if (!it || (!required && cJSON_IsNull(it))) {
        if (required)
            return missing(err, field);
        return 1;
    }
    *item = it;
    return 0;
}

static int read_uint(const cJSON *params, const char *field, bool required, uint64_t lo,
                     uint64_t hi, uint64_t *out, sc_rpc_error *err)
{
    const cJSON *it = NULL;
    int rc = lookup(params, field, required, &it, err);
    if (rc != 0)
        return rc;
    if (!cJSON_IsNumber(it))
        return out_of_range(err, field, lo, hi);
    double d = it->valuedouble;
    /* hi <= 2^53, so (double)lo and (double)hi are exact. */
    if (!isfinite(d) || d != trunc(d) || d < (double)lo || d > (double)hi)
        return out_of_range(err, field, lo, hi);
    *out = (uint64_t)d;
    return 0;
}

int sc_param_u32(const cJSON *params, const char *field, bool required, uint32_t *out,
                 sc_rpc_error *err)
{
    uint64_t v;
    int rc = read_uint(params, field, required, 0, UINT32_MAX, &v, err);
    if (rc == 0)
        *out = (uint32_t)v;
    return rc;
}

int sc_param_u64(const cJSON *params, const char *field, bool required, uint64_t max, uint64_t *out,
                 sc_rpc_error *err)
{
    if (max > SC_JSON_MAX_EXACT)
        max = SC_JSON_MAX_EXACT;
    return read_uint(params, field, required, 0, max, out, err);
}

int sc_param_id(const cJSON *params, const char *field, bool required, uint64_t *out,
                sc_rpc_error *err)
{
    return read_uint(params, field, required, 1, SC_JSON_MAX_EXACT, out, err);
}

int sc_param_string(const cJSON *params, const char *field, bool required, const char **out,
                    size_t *len, sc_rpc_error *err)
{
    const cJSON *it = NULL;
    int rc = lookup(params, field, required, &it, err);
    if (rc != 0)
        return rc;
    if (!cJSON_IsString(it) || !it->valuestring)
        return wrong_type(err, field, "a string");
    *out = it->valuestring;
    if (len)
        *len = strlen(it->valuestring);
    return 0;
}

int sc_param_bool(const cJSON *params, const char *field, bool required, bool *out,
                  sc_rpc_error *err)
{
    const cJSON *it = NULL;
    int rc = lookup(params, field, required, &it, err);
    if (rc != 0)
        return rc;
    if (!cJSON_IsBool(it))
        return wrong_type(err, field, "a boolean");
    *out = cJSON_IsTrue(it);
    return 0;
}
