/*
 * kargs_node.c - kernel arguments between the wire and sc_node.
 */
#include "sc_kargs_node.h"

#include "sc_access_node.h"

#include <stdlib.h>

#include "sc_errors.h"
#include "sc_json.h"

int sc_kargs_node(const sc_kargs *k, sc_node *n)
{
    n->args = NULL;
    n->param_sizes = NULL;
    n->args_len = n->nparams = 0;
    if (!k->hex)
        return 0;
    /* One allocation: the sizes first, so they stay aligned. */
    uint32_t *sizes = malloc((size_t)k->nparams * 4 + k->nbytes);
    if (!sizes)
        return SC_ENOMEM;
    uint8_t *bytes = (uint8_t *)(sizes + k->nparams);
    sc_kargs_decode(k, bytes, sizes);
    n->param_sizes = sizes;
    n->args = bytes;
    n->args_len = (uint32_t)k->nbytes;
    n->nparams = k->nparams;
    return 0;
}

void sc_kargs_node_free(sc_node *n)
{
    free((void *)n->param_sizes);
    n->param_sizes = NULL;
    n->args = NULL;
    n->args_len = n->nparams = 0;
    sc_access_node_free(n);
}

void sc_kargs_write(sc_buf *b, bool *first, const sc_node *n)
{
    if (!(sc_node_attrs(n) & SC_NODE_ATTR_ARGS))
        return;
    sc_json_member_kargs(b, first, n->args, n->args_len, n->param_sizes, n->nparams);
}
