/*
 * rt_feed_node.c - nodes and graphs as the daemon is told of them: a node
 * of the graph API as a client node (capture.add_node, graph.submit), a
 * whole graph in a topological order (graph.submit), and the model's node
 * kinds and directions in the client's terms.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_feed.h"

sc_client_dir sc_rt_feed_dir(int d)
{
    switch (d) {
    case SC_DIR_HOST_TO_DEVICE:
        return SC_CLIENT_HOST_TO_DEVICE;
    case SC_DIR_DEVICE_TO_HOST:
        return SC_CLIENT_DEVICE_TO_HOST;
    case SC_DIR_DEVICE_TO_DEVICE:
        return SC_CLIENT_DEVICE_TO_DEVICE;
    case SC_DIR_HOST_TO_HOST:
        return SC_CLIENT_HOST_TO_HOST;
    default:
        return SC_CLIENT_DIR_DEFAULT;
    }
}

static sc_client_kind client_kind(int k)
{
    switch (k) {
    case SC_KIND_KERNEL:
        return SC_CLIENT_KERNEL;
    case SC_KIND_MEMCPY:
        return SC_CLIENT_MEMCPY;
    case SC_KIND_MEMSET:
        return SC_CLIENT_MEMSET;
    case SC_KIND_HOST_CALLBACK:
        return SC_CLIENT_HOST_CALLBACK;
    case SC_KIND_MEM_ALLOC:
        return SC_CLIENT_MEM_ALLOC;
    case SC_KIND_MEM_FREE:
        return SC_CLIENT_MEM_FREE;
    case SC_KIND_EVENT_RECORD:
        return SC_CLIENT_EVENT_RECORD;
    case SC_KIND_EVENT_WAIT:
        return SC_CLIENT_EVENT_WAIT;
    case SC_KIND_GRAPH:
        return SC_CLIENT_GRAPH;
    case SC_KIND_CONDITIONAL:
        return SC_CLIENT_CONDITIONAL;
    default:
        return SC_CLIENT_EMPTY;
    }
}

void sc_rt_feed_node(const sc_rt_node_desc *d, sc_client_node *out)
{
    sc_node n;
    sc_rt_desc_to_node(d, 0, &n);
    memset(out, 0, sizeof *out);
    out->kind = client_kind(n.kind);
    out->name = (char *)sc_rt_added_name(d->type);
    switch (out->kind) {
    case SC_CLIENT_KERNEL:
        out->function_name = (char *)n.name;
        out->dim3 = true;
        out->grid[0] = sc_rt_feed_dim(n.num_blocks);
        out->grid[1] = sc_rt_feed_dim(n.grid_y);
        out->grid[2] = sc_rt_feed_dim(n.grid_z);
        out->block[0] = sc_rt_feed_dim(n.threads_per_block);
        out->block[1] = sc_rt_feed_dim(n.block_y);
        out->block[2] = sc_rt_feed_dim(n.block_z);
        out->shared_mem = n.shared_mem;
        break;
    case SC_CLIENT_MEMCPY:
        out->dir = sc_rt_feed_dir(n.dir);
        out->size_bytes = n.size_bytes;
        break;
    case SC_CLIENT_MEMSET:
        out->size_bytes = n.size_bytes;
        out->value = n.value;
        break;
    case SC_CLIENT_MEM_ALLOC:
        out->size_bytes = n.size_bytes;
        break;
    case SC_CLIENT_EVENT_RECORD:
    case SC_CLIENT_EVENT_WAIT:
        out->event = sc_rt_event_id(d->event);
        break;
    case SC_CLIENT_CONDITIONAL:
        out->cond_type = (sc_client_cond_type)n.cond_type;
        out->cond_size = n.cond_size;
        out->cond_default = n.cond_default;
        out->cond_flags = n.cond_flags;
        break;
    default:
        break;
    }
}

/* Whether every parameter of a layout can be sent: sizes from 1 byte,
 * all within the daemon's limit and, with a parameter buffer of `size`
 * bytes, inside it.  *bytes: their sum. */
static bool kargs_fit(const sc_fb_param *p, size_t np, bool in_buffer, size_t size, size_t *bytes)
{
    *bytes = 0;
    for (size_t i = 0; i < np; i++) {
        if (p[i].size == 0 || (in_buffer && p[i].offset + (size_t)p[i].size > size))
            return false;
        *bytes += p[i].size;
    }
    return np > 0 && *bytes <= SC_RT_KARGS_MAX;
}

void sc_rt_feed_kargs(const sc_rt_node_desc *d, cudaGraphNode_t node, sc_client_node *out)
{
    const sc_fb_param *p;
    size_t np, size = 0, bytes;
    const uint8_t *buf = node ? sc_rt_node_args(node, &size) : NULL;
    if (d->type != cudaGraphNodeTypeKernel || (!buf && !d->args) ||
        !sc_rt_kernel_params(d->func, &p, &np) || !kargs_fit(p, np, buf != NULL, size, &bytes))
        return;
    for (size_t i = 0; !buf && i < np; i++)
        if (!d->args[i])
            return;
    out->args = malloc(bytes);
    out->param_sizes = malloc(np * sizeof *out->param_sizes);
    if (!out->args || !out->param_sizes) {
        sc_rt_feed_node_free(out);
        return;
    }
    size_t at = 0;
    for (size_t i = 0; i < np; i++) {
        memcpy(out->args + at, buf ? buf + p[i].offset : (const uint8_t *)d->args[i], p[i].size);
        out->param_sizes[i] = p[i].size;
        at += p[i].size;
    }
    out->args_len = bytes;
    out->nparams = np;
}

void sc_rt_feed_node_free(sc_client_node *n)
{
    free(n->args);
    free(n->param_sizes);
    free(n->accesses);
    n->args = NULL;
    n->param_sizes = NULL;
    n->accesses = NULL;
    n->args_len = n->nparams = n->naccesses = 0;
}

/* The arrays that hold the nodes' bodies; once per payload. */
static bool children_alloc(sc_rt_submit_payload *p, size_t n)
{
    if (p->children)
        return true;
    p->children = calloc(n, sizeof *p->children);
    p->subs = calloc(n, sizeof *p->subs);
    p->body_of = calloc(n, sizeof *p->body_of);
    p->nbodies = calloc(n, sizeof *p->nbodies);
    return p->children && p->subs && p->body_of && p->nbodies;
}

/* Node v of g as node `at` of the payload; a node holding graphs goes
 * with their nodes and edges (each stored as a body graph of its own). */
static bool feed_graph_node(cudaGraph_t g, uint32_t v, sc_rt_submit_payload *p, size_t at)
{
    cudaGraphNode_t node = sc_rt_graph_node_at(g, v);
    const sc_rt_node_desc *d = sc_rt_node_desc_of(node);
    sc_rt_feed_node(d, &p->nodes[at]);
    sc_rt_feed_kargs(d, node, &p->nodes[at]);
    sc_rt_feed_accesses(d, node, &p->nodes[at]);
    cudaGraph_t const *bodies;
    size_t nb = sc_rt_node_bodies(d, &bodies);
    if (nb == 0)
        return true;
    size_t n = sc_rt_graph_node_count(g);
    if (!children_alloc(p, n ? n : 1))
        return false;
    p->children[at] = calloc(nb, sizeof *p->children[at]);
    p->subs[at] = calloc(nb, sizeof *p->subs[at]);
    if (!p->children[at] || !p->subs[at])
        return false;
    p->nbodies[at] = nb; /* what sc_rt_feed_payload_free walks, also on a failure */
    for (size_t j = 0; j < nb; j++)
        if (!sc_rt_feed_payload(bodies[j], &p->children[at][j]))
            return false;
    p->body_of[at] = p->subs[at];
    return true;
}

bool sc_rt_feed_payload(cudaGraph_t g, sc_rt_submit_payload *p)
{
    size_t n = sc_rt_graph_node_count(g);
    const uint32_t *from, *to;
    size_t m;
    sc_rt_graph_edges(g, &from, &to, &m);
    size_t *indeg = calloc(n ? n : 1, sizeof *indeg);
    size_t *start = calloc(n + 1, sizeof *start);
    uint32_t *adj = malloc((m ? m : 1) * sizeof *adj);
    uint32_t *rank = malloc((n ? n : 1) * sizeof *rank);
    uint32_t *heap = malloc((n ? n : 1) * sizeof *heap);
    p->nodes = calloc(n ? n : 1, sizeof *p->nodes);
    p->edges = malloc((m ? m : 1) * sizeof *p->edges);
    p->n = n; /* what sc_rt_feed_payload_free walks, also on a failure */
    bool ok = indeg && start && adj && rank && heap && p->nodes && p->edges;
    for (size_t i = 0; ok && i < m; i++) {
        indeg[to[i]]++;
        start[from[i] + 1]++;
    }
    for (size_t i = 0; ok && i < n; i++)
        start[i + 1] += start[i];
    if (ok) {
        size_t *fill = calloc(n ? n : 1, sizeof *fill);
        ok = fill != NULL;
        for (size_t i = 0; ok && i < m; i++)
            adj[start[from[i]] + fill[from[i]]++] = to[i];
        free(fill);
    }
    /* A binary min-heap of ready indexes. */
    size_t nh = 0, done = 0;
    for (uint32_t i = 0; ok && i < n; i++) {
        if (indeg[i])
            continue;
        size_t k = nh++;
        for (; k && heap[(k - 1) / 2] > i; k = (k - 1) / 2)
            heap[k] = heap[(k - 1) / 2];
        heap[k] = i;
    }
    while (ok && nh) {
        uint32_t v = heap[0];
        uint32_t last = heap[--nh];
        size_t k = 0;
        for (;;) {
            size_t c = 2 * k + 1;
            if (c >= nh)
                break;
            if (c + 1 < nh && heap[c + 1] < heap[c])
                c++;
            if (heap[c] >= last)
                break;
            heap[k] = heap[c];
            k = c;
        }
        if (nh)
            heap[k] = last;
        rank[v] = (uint32_t)done;
        ok = feed_graph_node(g, v, p, done++);
        for (size_t e = start[v]; e < start[v + 1]; e++) {
            uint32_t w = adj[e];
            if (--indeg[w])
                continue;
            size_t j = nh++;
            for (; j && heap[(j - 1) / 2] > w; j = (j - 1) / 2)
                heap[j] = heap[(j - 1) / 2];
            heap[j] = w;
        }
    }
    ok = ok && done == n;
    for (size_t i = 0; ok && i < m; i++)
        p->edges[i] = (sc_client_edge){rank[from[i]], rank[to[i]]};
    p->n = n;
    p->m = m;
    free(indeg);
    free(start);
    free(adj);
    free(rank);
    free(heap);
    if (!ok)
        sc_rt_feed_payload_free(p);
    return ok;
}

void sc_rt_feed_payload_free(sc_rt_submit_payload *p)
{
    for (size_t i = 0; p->children && i < p->n; i++) {
        for (size_t j = 0; p->children[i] && j < p->nbodies[i]; j++)
            sc_rt_feed_payload_free(&p->children[i][j]);
        free(p->children[i]);
        free(p->subs[i]);
    }
    for (size_t i = 0; p->nodes && i < p->n; i++)
        sc_rt_feed_node_free(&p->nodes[i]);
    free(p->children);
    free(p->subs);
    free(p->body_of);
    free(p->nbodies);
    free(p->nodes);
    free(p->edges);
    memset(p, 0, sizeof *p);
}

sc_client_subgraph sc_rt_feed_subgraph(const sc_rt_submit_payload *p)
{
    for (size_t i = 0; p->children && i < p->n; i++)
        for (size_t j = 0; j < p->nbodies[i]; j++)
            p->subs[i][j] = sc_rt_feed_subgraph(&p->children[i][j]);
    return (sc_client_subgraph){.nodes = p->nodes,
                                .n = p->n,
                                .edges = p->edges,
                                .m = p->m,
                                .bodies = p->children ? p->body_of : NULL,
                                .nbodies = p->nbodies};
}

sc_rt_end_payload *sc_rt_feed_end_bodies(const sc_rt_capture *cap)
{
    size_t n = cap && cap->graph ? sc_rt_graph_node_count(cap->graph) : 0, total = 0;
    cudaGraph_t const *bodies;
    for (uint32_t i = 0; i < n; i++)
        total += sc_rt_node_bodies(sc_rt_node_desc_of(sc_rt_graph_node_at(cap->graph, i)), &bodies);
    if (total == 0)
        return NULL;
    sc_rt_end_payload *p = calloc(1, sizeof *p);
    if (!p || !(p->graphs = calloc(total, sizeof *p->graphs)) ||
        !(p->bodies = calloc(total, sizeof *p->bodies))) {
        sc_rt_feed_end_free(p);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        const sc_rt_node_desc *d = sc_rt_node_desc_of(sc_rt_graph_node_at(cap->graph, i));
        size_t nb = sc_rt_node_bodies(d, &bodies);
        for (size_t j = 0; j < nb; j++, p->n++) {
            p->bodies[p->n] =
                (sc_client_body){.node = sc_rt_model_of(cap, i), .index = (uint32_t)j};
            if (!sc_rt_feed_payload(bodies[j], &p->graphs[p->n])) {
                sc_rt_feed_end_free(p);
                return NULL;
            }
        }
    }
    return p;
}

void sc_rt_feed_end_free(sc_rt_end_payload *p)
{
    if (!p)
        return;
    for (size_t i = 0; p->graphs && i < p->n; i++)
        sc_rt_feed_payload_free(&p->graphs[i]);
    free(p->graphs);
    free(p->bodies);
    free(p);
}
