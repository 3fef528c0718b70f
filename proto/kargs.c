/*
 * kargs.c - the `args` and `param_sizes` parameters of kernel nodes.
 */
#include "sc_kargs.h"

#include <string.h>

static int bad(sc_rpc_error *err, const char *field, const char *why)
{
    sc_rpc_fail(err, SC_RPC_INVALID_PARAMS, "invalid params: '%s' %s", field, why);
    err->field = field;
    return SC_RPC_INVALID_PARAMS;
}

static int nibble(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

static int check_hex(sc_jval v, const char **hex, size_t *nbytes, sc_rpc_error *err)
{
    size_t len;
    const char *s = sc_jval_str(v, &len);
    if (!s)
        return bad(err, "args", "must be a string of lowercase hex digits");
    if (len % 2)
        return bad(err, "args", "must have an even number of hex digits");
    if (len / 2 > SC_KARGS_MAX_BYTES)
        return bad(err, "args", "must be at most 32764 bytes (65528 hex digits)");
    for (size_t i = 0; i < len; i++)
        if (nibble(s[i]) < 0)
            return bad(err, "args", "must be a string of lowercase hex digits");
    *hex = s;
    *nbytes = len / 2;
    return 0;
}

/* Each size 1..SC_KARGS_MAX_BYTES; their sum must be nbytes. */
static int check_sizes(sc_jval arr, size_t nbytes, uint32_t *count, sc_rpc_error *err)
{
    static const char *const why = "must be an array of integers from 1 to 32764";
    if (!sc_jval_is(arr, SC_JARRAY))
        return bad(err, "param_sizes", why);
    uint64_t sum = 0;
    uint32_t n = 0;
    for (sc_jval e = sc_jval_first(arr); e.doc; e = sc_jval_next(arr, e), n++) {
        int64_t v;
        if (!sc_jval_int(e, &v) || v < 1 || v > (int64_t)SC_KARGS_MAX_BYTES)
            return bad(err, "param_sizes", why);
        sum += (uint64_t)v;
    }
    if (sum != nbytes)
        return bad(err, "param_sizes", "must add up to the bytes of 'args'");
    *count = n;
    return 0;
}

int sc_param_opt_kargs(sc_jval params, sc_kargs *out, sc_rpc_error *err)
{
    bool has_args = sc_param_present(params, "args");
    bool has_sizes = sc_param_present(params, "param_sizes");
    if (!has_args && !has_sizes) {
        memset(out, 0, sizeof *out);
        return 0;
    }
    if (!has_sizes)
        return bad(err, "param_sizes", "must come with 'args'");
    if (!has_args)
        return bad(err, "args", "must come with 'param_sizes'");
    sc_kargs k = {0};
    sc_jval sizes = sc_param_get(params, "param_sizes");
    if (check_hex(sc_param_get(params, "args"), &k.hex, &k.nbytes, err) != 0 ||
        check_sizes(sizes, k.nbytes, &k.nparams, err) != 0)
        return SC_RPC_INVALID_PARAMS;
    k.sizes = sizes;
    *out = k;
    return 0;
}

void sc_kargs_decode(const sc_kargs *k, uint8_t *bytes, uint32_t *sizes)
{
    for (size_t i = 0; i < k->nbytes; i++)
        bytes[i] = (uint8_t)(nibble(k->hex[2 * i]) << 4 | nibble(k->hex[2 * i + 1]));
    uint32_t n = 0;
    for (sc_jval e = sc_jval_first(k->sizes); e.doc && n < k->nparams;
         e = sc_jval_next(k->sizes, e)) {
        int64_t v = 0;
        sc_jval_int(e, &v);
        sizes[n++] = (uint32_t)v;
    }
}

int sc_kargs_from_text(const char *hex, size_t hex_len, const char *sizes, size_t sizes_len,
                       uint32_t *buf, uint32_t *nparams, size_t *nbytes)
{
    if (hex_len % 2 || hex_len / 2 > SC_KARGS_MAX_BYTES)
        return -1;
    size_t i = 0, end = sizes_len;
    if (end >= 2 && sizes[0] == '[' && sizes[end - 1] == ']') {
        i = 1;
        end--;
    }
    uint32_t count = 0;
    uint64_t sum = 0;
    while (i < end) {
        uint64_t v = 0;
        size_t start = i;
        while (i < end && sizes[i] >= '0' && sizes[i] <= '9' && v <= SC_KARGS_MAX_BYTES)
            v = v * 10 + (uint64_t)(sizes[i++] - '0');
        if (i == start || v == 0 || v > SC_KARGS_MAX_BYTES || (i < end && sizes[i++] != ','))
            return -1;
        buf[count++] = (uint32_t)v;
        sum += v;
    }
    if (count == 0 || sum != hex_len / 2)
        return -1;
    uint8_t *bytes = (uint8_t *)(buf + count);
    for (size_t k = 0; k < hex_len / 2; k++) {
        int hi = nibble(hex[2 * k]), lo = nibble(hex[2 * k + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        bytes[k] = (uint8_t)(hi << 4 | lo);
    }
    *nparams = count;
    *nbytes = hex_len / 2;
    return 0;
}

void sc_kargs_hex(const uint8_t *bytes, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
}
