/*
 * access_node.c - a node's buffer accesses between the wire and sc_node.
 */
#include "sc_access_node.h"

#include <stdlib.h>
#include <string.h>

static int bad(sc_rpc_error *err, uint32_t i, const char *member, const char *why)
{
    if (member)
        sc_rpc_fail(err, SC_RPC_INVALID_PARAMS, "invalid params: 'accesses[%u].%s' %s", (unsigned)i,
                    member, why);
    else
        sc_rpc_fail(err, SC_RPC_INVALID_PARAMS, "invalid params: 'accesses[%u]' %s", (unsigned)i,
                    why);
    err->field = "accesses";
    return -1;
}

static int read_u64(sc_jval o, uint32_t i, const char *member, uint64_t min, uint64_t *out,
                    sc_rpc_error *err)
{
    sc_jval v = sc_jval_get(o, member, strlen(member));
    int64_t x;
    if (!v.doc)
        return bad(err, i, member, "is missing");
    if (!sc_jval_int(v, &x) || x < (int64_t)min)
        return bad(err, i, member,
                   min ? "must be an integer from 1 to 9007199254740992"
                       : "must be an integer from 0 to 9007199254740992");
    *out = (uint64_t)x;
    return 0;
}

static int read_one(sc_jval o, uint32_t i, sc_access *a, sc_rpc_error *err)
{
    if (!sc_jval_is(o, SC_JOBJECT))
        return bad(err, i, NULL, "must be an object {address, size, mode}");
    if (read_u64(o, i, "address", 0, &a->address, err) != 0 ||
        read_u64(o, i, "size", 1, &a->size, err) != 0)
        return -1;
    if (a->address > UINT64_MAX - a->size)
        return bad(err, i, "size", "runs past the end of the address space");
    sc_jval m = sc_jval_get(o, "mode", 4);
    size_t len;
    const char *s = sc_jval_str(m, &len);
    if (!m.doc)
        return bad(err, i, "mode", "is missing");
    if (!s || sc_access_mode_parse(s, len, &a->mode) != 0)
        return bad(err, i, "mode", "must be one of read, write, read_write");
    return 0;
}

int sc_access_node_read(sc_jval obj, sc_node *n, sc_rpc_error *err)
{
    n->accesses = NULL;
    n->naccesses = 0;
    sc_jval arr = sc_param_get(obj, "accesses");
    if (!arr.doc || sc_jval_is(arr, SC_JNULL))
        return 0;
    if (!sc_jval_is(arr, SC_JARRAY)) {
        sc_rpc_fail(err, SC_RPC_INVALID_PARAMS,
                    "invalid params: 'accesses' must be an array of {address, size, mode}");
        err->field = "accesses";
        return -1;
    }
    uint32_t count = sc_jval_count(arr);
    if (count == 0)
        return 0;
    if (count > SC_ACCESS_MAX) {
        sc_rpc_fail(err, SC_RPC_INVALID_PARAMS,
                    "invalid params: 'accesses' must hold at most %u entries", SC_ACCESS_MAX);
        err->field = "accesses";
        return -1;
    }
    sc_access *v = calloc(count, sizeof *v);
    if (!v) {
        sc_rpc_fail(err, SC_RPC_INTERNAL_ERROR, "out of memory");
        return -1;
    }
    uint32_t i = 0;
    for (sc_jval e = sc_jval_first(arr); e.doc; e = sc_jval_next(arr, e), i++)
        if (read_one(e, i, &v[i], err) != 0) {
            free(v);
            return -1;
        }
    n->accesses = v;
    n->naccesses = count;
    return 0;
}

void sc_access_node_free(sc_node *n)
{
    free((void *)n->accesses);
    n->accesses = NULL;
    n->naccesses = 0;
}

void sc_access_node_write(sc_buf *b, bool *first, const sc_node *n)
{
    if (!n->naccesses)
        return;
    sc_json_key(b, first, "accesses");
    sc_buf_putc(b, '[');
    for (uint32_t i = 0; i < n->naccesses; i++) {
        const sc_access *a = &n->accesses[i];
        sc_buf_puts(b, i ? ",{\"address\":" : "{\"address\":");
        sc_json_u64(b, a->address);
        sc_buf_puts(b, ",\"size\":");
        sc_json_u64(b, a->size);
        sc_buf_puts(b, ",\"mode\":");
        sc_json_cstr(b, sc_access_mode_name((int)a->mode));
        sc_buf_putc(b, '}');
    }
    sc_buf_putc(b, ']');
}
