/*
 * graph_bodies.c - the body graphs of child graph and conditional nodes as
 * graph.get shows them on the nodes that hold them.
 */
#include <stdlib.h>
#include <string.h>

#include "sc_handlers.h"

typedef struct bodies_ctx {
    sc_bodies_fn done;
    void *arg;
} bodies_ctx;

static void bodies_listed(void *arg, int rc, sc_graph_page *page, const char *errmsg)
{
    bodies_ctx *x = arg;
    sc_bodies_fn done = x->done;
    void *done_arg = x->arg;
    free(x);
    done(done_arg, rc, page, errmsg);
}

bool sc_graph_has_bodies(const sc_graph *g)
{
    uint32_t n = sc_graph_node_count(g);
    for (uint32_t i = 0; i < n; i++) {
        sc_node node;
        if (sc_graph_node(g, i, &node) == 0 &&
            ((int)node.kind == SC_KIND_GRAPH || (int)node.kind == SC_KIND_CONDITIONAL))
            return true;
    }
    return false;
}

int sc_bodies_fetch(sc_daemon *d, int64_t graph, sc_bodies_fn done, void *arg)
{
    bodies_ctx *x = malloc(sizeof *x);
    if (!x)
        return SC_STORE_ENOMEM;
    *x = (bodies_ctx){done, arg};
    /* Access follows the parent's, which the caller checked: bodies are
     * stored under the same owner. */
    sc_graph_query q = {.limit = SC_STORE_LIST_MAX, .any_owner = true, .parent = graph};
    int rc = sc_store_list_graphs(d->store, &q, bodies_listed, x);
    if (rc != 0)
        free(x);
    return rc;
}

void sc_write_node_bodies(sc_buf *b, bool *first, const sc_graph_page *bodies, uint32_t node,
                          int kind)
{
    if (kind == SC_KIND_GRAPH) {
        for (size_t i = 0; bodies && i < bodies->count; i++)
            if (bodies->graphs[i].parent_node == node) {
                sc_json_member_i64(b, first, "child", bodies->graphs[i].graph);
                return;
            }
        return;
    }
    if (kind != SC_KIND_CONDITIONAL)
        return;
    /* By index; a page holds few bodies per node, so a scan per index. */
    sc_json_key(b, first, "bodies");
    sc_buf_putc(b, '[');
    bool any = false;
    for (uint32_t index = 0; bodies; index++) {
        bool found = false;
        for (size_t i = 0; i < bodies->count && !found; i++) {
            const sc_graph_meta *m = &bodies->graphs[i];
            if (m->parent_node == node && m->parent_index == index) {
                if (any)
                    sc_buf_putc(b, ',');
                sc_json_i64(b, m->graph);
                any = found = true;
            }
        }
        if (!found)
            break;
    }
    sc_buf_putc(b, ']');
}
