/*
 * capture_nodes.c - what a program gives a capture by hand: the node of
 * capture.add_node, and capture.end's `bodies`, the graphs held by the
 * child graph and conditional nodes of the capture being ended.  A program
 * fills a conditional node's bodies after the node is added, so they can
 * only be sent once the capture ends; each is stored, as graph.submit
 * stores its own, linked to its node of the captured graph.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_access_node.h"
#include "sc_cuda.h"
#include "sc_handlers.h"

/* ------------------------------------------------- capture.add_node */

/* The kind and name of a node given bare, as capture.add_node always took them. */
static int read_bare_node(sc_req *r, sc_node *x)
{
    const char *kind = NULL;
    size_t kind_len = 0;
    x->kind = (sc_node_kind)SC_KIND_EMPTY;
    x->name = "";
    if (sc_param_opt_string(r->params, "kind", &kind, &kind_len, &r->err) != 0 ||
        sc_param_opt_string(r->params, "name", &x->name, &x->name_len, &r->err) != 0)
        return -1;
    if (kind && sc_cuda_kind_parse(kind, kind_len, &x->kind) != 0)
        return sc_cuda_bad_kind(r);
    /* A bare conditional would have no type or size to check. */
    if ((int)x->kind == SC_KIND_CONDITIONAL) {
        sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS,
                    "invalid params: 'kind' conditional needs 'node', with its type and size");
        r->err.field = "kind";
        return -1;
    }
    return sc_access_node_read(r->params, x, &r->err);
}

/* -32602 about capture.add_node's `node`, naming `field`. */
static int bad_node(sc_req *r, const char *field, const char *why)
{
    sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS, "invalid params: %s", why);
    r->err.field = field;
    return -1;
}

/* `node`: the members of a graph.submit node.  kind and name beside it
 * would say the node twice, and its own stream could only disagree with
 * the call's, the one a capture puts it on: each is refused. */
static int read_full_node(sc_req *r, sc_jval v, sc_node *x)
{
    if (!sc_jval_is(v, SC_JOBJECT))
        return bad_node(r, "node", "'node' must be an object");
    if (sc_param_get(r->params, "kind").doc)
        return bad_node(r, "kind", "'kind' conflicts with 'node': give the kind inside 'node'");
    if (sc_param_get(r->params, "name").doc)
        return bad_node(r, "name", "'name' conflicts with 'node': give the name inside 'node'");
    if (sc_param_get(r->params, "accesses").doc)
        return bad_node(r, "accesses",
                        "'accesses' conflicts with 'node': give the accesses inside 'node'");
    if (sc_param_get(v, "stream").doc)
        return bad_node(r, "node",
                        "'node.stream' is not taken: the node is on the call's 'stream'");
    if (sc_cuda_read_node(r, v, x) != 0) {
        char msg[sizeof r->err.message];
        snprintf(msg, sizeof msg, "%s", r->err.message);
        sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS, "node: %s", msg);
        r->err.field = "node";
        return -1;
    }
    return 0;
}

int sc_capture_read_added(sc_req *r, sc_node *x)
{
    sc_jval full = sc_param_get(r->params, "node");
    return full.doc && !sc_jval_is(full, SC_JNULL) ? read_full_node(r, full, x)
                                                   : read_bare_node(r, x);
}

/* ------------------------------------------------- capture.end bodies */

/* -32602 about element i of `bodies`. */
static int bad_body(sc_req *r, uint32_t i, const char *why)
{
    static const char prefix[] = "invalid params: ";
    if (strncmp(why, prefix, sizeof prefix - 1) == 0)
        why += sizeof prefix - 1; /* a reader's own message, said once */
    char msg[sizeof r->err.message];
    snprintf(msg, sizeof msg, "%s", why);
    sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS, "invalid params: bodies[%u]: %s", (unsigned)i, msg);
    r->err.field = "bodies";
    return -1;
}

/* The node an element names must hold bodies, and a child graph node
 * holds exactly one. */
static int check_target(sc_req *r, const sc_cuda *cu, uint32_t capture, uint32_t i, uint32_t node,
                        uint32_t index)
{
    sc_node n;
    char why[128];
    if (sc_cuda_node(cu, capture, node, &n) != 0) {
        snprintf(why, sizeof why, "node %u is not a node of the capture", (unsigned)node);
        return bad_body(r, i, why);
    }
    int kind = (int)n.kind;
    if (kind != SC_KIND_GRAPH && kind != SC_KIND_CONDITIONAL) {
        snprintf(why, sizeof why, "node %u is of kind %s, not graph or conditional", (unsigned)node,
                 sc_cuda_kind_name(kind));
        return bad_body(r, i, why);
    }
    if (kind == SC_KIND_GRAPH && index != 0) {
        snprintf(why, sizeof why, "node %u is a child graph node: its one body has index 0",
                 (unsigned)node);
        return bad_body(r, i, why);
    }
    return 0;
}

/* (node, index) pairs seen so far, element by element: none twice. */
static int check_repeat(sc_req *r, const uint64_t *seen, uint32_t i)
{
    for (uint32_t k = 0; k < i; k++) {
        if (seen[k] == seen[i]) {
            char why[128];
            snprintf(why, sizeof why, "node %u body %u is given twice (first at bodies[%u])",
                     (unsigned)(seen[i] >> 32), (unsigned)seen[i], (unsigned)k);
            return bad_body(r, i, why);
        }
    }
    return 0;
}

static int read_element(sc_req *r, sc_submit *x, const sc_cuda *cu, uint32_t capture, sc_jval e,
                        uint32_t i, uint64_t *seen)
{
    uint32_t node = 0, index = 0;
    if (!sc_jval_is(e, SC_JOBJECT))
        return bad_body(r, i, "not an object {node, index, nodes, edges}");
    if (sc_param_u32(e, "node", &node, &r->err) != 0 ||
        sc_param_opt_u32(e, "index", &index, &r->err) != 0)
        return bad_body(r, i, r->err.message);
    seen[i] = (uint64_t)node << 32 | index;
    if (check_target(r, cu, capture, i, node, index) != 0 || check_repeat(r, seen, i) != 0)
        return -1;
    if (sc_submit_add_body(r, x, e, node, index) != 0)
        return bad_body(r, i, r->err.message);
    return 0;
}

int sc_capture_bodies_read(sc_req *r, const sc_cuda *cu, uint32_t stream, const sc_session *s,
                           sc_submit **out)
{
    *out = NULL;
    sc_jval v = sc_param_get(r->params, "bodies");
    uint32_t capture = sc_cuda_stream_capture(cu, stream);
    if (!v.doc || sc_jval_is(v, SC_JNULL))
        return 0;
    if (!sc_jval_is(v, SC_JARRAY)) {
        sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS,
                    "invalid params: 'bodies' must be an array of {node, index, nodes, edges}");
        r->err.field = "bodies";
        return -1;
    }
    /* No capture on the stream: the end answers with CUDA's error. */
    uint32_t m = sc_jval_count(v);
    if (!capture || m == 0)
        return 0;
    uint64_t *seen = malloc(m * sizeof *seen);
    sc_submit *x = NULL;
    if (!seen) {
        sc_rpc_fail(&r->err, SC_RPC_INTERNAL_ERROR, "out of memory");
        return -1;
    }
    int rc = sc_submit_bodies_new(r, s->label, s->label_len, s->uid, s->pid, &x);
    uint32_t i = 0;
    for (sc_jval e = sc_jval_first(v); rc == 0 && e.doc; e = sc_jval_next(v, e), i++)
        rc = read_element(r, x, cu, capture, e, i, seen);
    free(seen);
    if (rc != 0) {
        sc_submit_free(x);
        return -1;
    }
    *out = x;
    return 0;
}
