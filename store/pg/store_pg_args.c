/*
 * store_pg_args.c - a kernel's argument values as fields of the COPY rows
 * of nodes (schema/pg/004_kernel_args.sql).
 */
#include <string.h>

#include "sc_kargs.h"
#include "store_pg_int.h"

size_t store_pg_args_room(const sc_node *n)
{
    return 32 + 2 * (size_t)n->args_len + 11 * (size_t)n->nparams;
}

static char *be32(char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        *p++ = (char)(v >> (24 - 8 * i));
    return p;
}

/* Binary: the bytea, then a one-dimensional int4 (oid 23) array. */
static char *bin_args(const sc_node *n, char *p)
{
    p = be32(p, n->args_len);
    memcpy(p, n->args, n->args_len);
    p += n->args_len;
    p = be32(p, 20 + 8 * n->nparams);
    p = be32(p, 1);  /* dimensions */
    p = be32(p, 0);  /* no nulls */
    p = be32(p, 23); /* int4 */
    p = be32(p, n->nparams);
    p = be32(p, 1); /* lower bound */
    for (uint32_t i = 0; i < n->nparams; i++) {
        p = be32(p, 4);
        p = be32(p, n->param_sizes[i]);
    }
    return p;
}

/* Text: \\x and hex digits (COPY's escape of bytea's \x), then {4,8}. */
static char *text_args(const sc_node *n, char *p)
{
    memcpy(p, "\\\\x", 3);
    p += 3;
    sc_kargs_hex(n->args, n->args_len, p);
    p += 2 * (size_t)n->args_len;
    *p++ = '\t';
    *p++ = '{';
    for (uint32_t i = 0; i < n->nparams; i++) {
        char t[11];
        int k = (int)sizeof t;
        uint32_t v = n->param_sizes[i];
        do {
            t[--k] = (char)('0' + v % 10);
            v /= 10;
        } while (v);
        if (i)
            *p++ = ',';
        memcpy(p, t + k, sizeof t - (size_t)k);
        p += sizeof t - (size_t)k;
    }
    *p++ = '}';
    *p++ = '\t';
    return p;
}

size_t store_pg_args(const sc_node *n, bool bin, char *out)
{
    char *p = out;
    if (!(sc_node_attrs(n) & SC_NODE_ATTR_ARGS)) {
        if (bin) {
            p = be32(be32(p, UINT32_MAX), UINT32_MAX);
        } else {
            memcpy(p, "\\N\t\\N\t", 6);
            p += 6;
        }
        return (size_t)(p - out);
    }
    p = bin ? bin_args(n, p) : text_args(n, p);
    return (size_t)(p - out);
}
