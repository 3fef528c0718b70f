/*
 * cond_node.c - a conditional node's type, size, default value and flags
 * as graph.submit, capture.add_node and graph.get spell them.
 */
#include <string.h>

#include "sc_cond_node.h"

static int bad(sc_rpc_error *err, const char *field, const char *why)
{
    sc_rpc_fail(err, SC_RPC_INVALID_PARAMS, "invalid params: '%s' %s", field, why);
    err->field = field;
    return -1;
}

int sc_cond_node_read(sc_jval obj, sc_node *n, sc_rpc_error *err)
{
    const char *type;
    size_t len;
    if (sc_param_string(obj, "type", &type, &len, err) != 0)
        return -1;
    if (sc_cond_type_parse(type, len, &n->cond_type) != 0)
        return bad(err, "type", "must be one of if, while, switch");
    if (sc_param_u32(obj, "size", &n->cond_size, err) != 0)
        return -1;
    /* CUDA's own limits, so that a stored node is one CUDA could build. */
    if (!sc_cond_size_valid((int)n->cond_type, n->cond_size))
        return bad(err, "size",
                   n->cond_type == SC_COND_IF      ? "must be 1 or 2 for an if"
                   : n->cond_type == SC_COND_WHILE ? "must be 1 for a while"
                                                   : "must be at least 1 for a switch");
    if (sc_param_opt_u32(obj, "default_value", &n->cond_default, err) != 0 ||
        sc_param_opt_u32(obj, "flags", &n->cond_flags, err) != 0)
        return -1;
    if (n->cond_flags & ~SC_COND_ASSIGN_DEFAULT)
        return bad(err, "flags", "holds a flag other than 1 (assign_default)");
    return 0;
}

void sc_cond_node_write(sc_buf *b, bool *first, const sc_node *n)
{
    if ((int)n->kind != SC_KIND_CONDITIONAL)
        return;
    const char *type = sc_cond_type_name((int)n->cond_type);
    sc_json_member_cstr(b, first, "type", type ? type : "if");
    sc_json_member_u64(b, first, "size", n->cond_size);
    sc_json_member_u64(b, first, "default_value", n->cond_default);
    sc_json_member_u64(b, first, "flags", n->cond_flags);
}
