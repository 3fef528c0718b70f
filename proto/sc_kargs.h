/*
 * sc_kargs.h - a kernel node's argument values on the wire.
 *
 * `args` is the lowercase hex of the parameters' bytes packed in order,
 * with no alignment padding between them; `param_sizes` is the size of
 * each parameter in bytes, so it splits `args` into the parameters
 * (parameter i starts at the sum of the sizes before it).  Both are
 * optional and come together (proto/PROTOCOL.md, "Kernel arguments").
 */
#ifndef SC_KARGS_H
#define SC_KARGS_H

#include <stddef.h>
#include <stdint.h>

#include "sc_json.h"
#include "sc_rpc.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The most parameter bytes a kernel takes: CUDA's limit since 12.1 (Volta+). */
#define SC_KARGS_MAX_BYTES 32764u

/** Validated arguments of one request; `hex` and `sizes` point into its document. */
typedef struct sc_kargs {
    const char *hex; /* NULL when the request carries none */
    size_t nbytes;   /* hex length / 2 */
    sc_jval sizes;   /* the param_sizes array */
    uint32_t nparams;
} sc_kargs;

/**
 * Read and check the optional `args` and `param_sizes` of params into *out
 * (out->hex NULL when both are absent or null).  0 or SC_RPC_INVALID_PARAMS
 * with err->field naming the field at fault: one without the other, args
 * not a string of lowercase hex digits of even length or longer than
 * SC_KARGS_MAX_BYTES bytes, param_sizes not an array of integers from 1 to
 * SC_KARGS_MAX_BYTES, or sizes that do not add up to the bytes of args
 * (field "param_sizes").  *out is written only on success.
 */
int sc_param_opt_kargs(sc_jval params, sc_kargs *out, sc_rpc_error *err);

/**
 * Decode validated arguments: k->nbytes bytes into `bytes` and k->nparams
 * sizes into `sizes`.  Never fails on what sc_param_opt_kargs() accepted.
 */
void sc_kargs_decode(const sc_kargs *k, uint8_t *bytes, uint32_t *sizes);

/**
 * Read arguments back from a store: `hex` (hex_len digits) and `sizes`,
 * decimal sizes separated by commas, in brackets or not ("[4,8]", "4,8").
 * Needs room for sc_kargs_text_room(hex_len, sizes_len) bytes at buf
 * (4-byte aligned): the sizes go first, then the bytes.  0 with *nparams
 * and *nbytes set, or -1 when the text is malformed or the sizes do not
 * add up.
 */
int sc_kargs_from_text(const char *hex, size_t hex_len, const char *sizes, size_t sizes_len,
                       uint32_t *buf, uint32_t *nparams, size_t *nbytes);
static inline size_t sc_kargs_text_room(size_t hex_len, size_t sizes_len)
{
    return (sizes_len / 2 + 1) * 4 + hex_len / 2;
}

/** Lowercase hex of n bytes into out (2n chars, no NUL). */
void sc_kargs_hex(const uint8_t *bytes, size_t n, char *out);

#ifdef __cplusplus
}
#endif
#endif
