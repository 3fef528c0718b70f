/*
 * graph.c - cudaGraph_t objects: nodes, edges, clones, topological order,
 * and the graph-half functions of rt.h.
 */
#include <stdlib.h>
#include <string.h>

#include "graph_int.h"

bool sc_g_valid(cudaGraph_t g)
{
    return g != NULL && g->magic == SC_G_MAGIC;
}

bool sc_gx_valid(cudaGraphExec_t x)
{
    return x != NULL && x->magic == SC_GX_MAGIC;
}

static sc_g_state *state_new(bool from_capture)
{
    sc_g_state *s = calloc(1, sizeof *s);
    if (s != NULL) {
        s->refs = 1;
        s->from_capture = from_capture;
    }
    return s;
}

static void state_unref(sc_g_state *s)
{
    if (s != NULL && --s->refs == 0)
        free(s);
}

/* A fresh state for edited contents; when memory is short the old one is
 * kept, which at worst stores an edited graph once less. */
static void state_replace(cudaGraph_t g, bool from_capture)
{
    sc_g_state *s = state_new(from_capture);
    if (s == NULL)
        return;
    state_unref(g->state);
    g->state = s;
}

void sc_g_touch(cudaGraph_t g)
{
    for (; g != NULL; g = g->holder) {
        if (g->state->refs == 1 && !g->state->from_capture)
            g->state->submitted = false;
        else
            state_replace(g, false);
    }
}

void sc_g_block_unref(sc_g_block *b)
{
    if (b != NULL && --b->refs == 0) {
        free(b->mem);
        free(b);
    }
}

cudaError_t sc_rt_graph_new(cudaGraph_t *out)
{
    cudaGraph_t g = calloc(1, sizeof *g);
    if (g == NULL)
        return cudaErrorMemoryAllocation;
    g->state = state_new(false);
    if (g->state == NULL) {
        free(g);
        return cudaErrorMemoryAllocation;
    }
    g->magic = SC_G_MAGIC;
    *out = g;
    return cudaSuccess;
}

static void node_free(cudaGraphNode_t n)
{
    if (n->d.type == cudaGraphNodeTypeGraph)
        sc_rt_graph_free(n->d.child);
    if (n->d.type == cudaGraphNodeTypeConditional)
        sc_g_cond_free_bodies(&n->d);
    sc_g_block_unref(n->block);
    sc_g_node_free_extras(n);
    sc_g_node_release(n);
}

void sc_rt_graph_free(cudaGraph_t g)
{
    if (g == NULL)
        return;
    for (size_t i = 0; i < g->n; i++)
        node_free(g->nodes[i]);
    sc_g_urefs_release(g);
    free(g->nodes);
    free(g->from);
    free(g->to);
    state_unref(g->state);
    g->magic = 0;
    free(g);
}

static bool edges_reserve(cudaGraph_t g, size_t need)
{
    size_t cap = g->cap_e;
    if (!sc_rt_grow((void **)&g->from, &cap, need, sizeof *g->from))
        return false;
    size_t cap2 = g->cap_e;
    if (!sc_rt_grow((void **)&g->to, &cap2, need, sizeof *g->to))
        return false;
    g->cap_e = cap < cap2 ? cap : cap2;
    return true;
}

cudaError_t sc_g_edges_push(cudaGraph_t g, const uint32_t *from, const uint32_t *to, size_t n)
{
    if (n == 0)
        return cudaSuccess;
    if (!edges_reserve(g, g->ne + n))
        return cudaErrorMemoryAllocation;
    memcpy(g->from + g->ne, from, n * sizeof *from);
    memcpy(g->to + g->ne, to, n * sizeof *to);
    g->ne += n;
    return cudaSuccess;
}

void sc_g_edges_truncate(cudaGraph_t g, size_t n)
{
    if (n < g->ne)
        g->ne = n;
}

bool sc_g_has_edge(cudaGraph_t g, uint32_t from, uint32_t to)
{
    for (size_t i = 0; i < g->ne; i++)
        if (g->from[i] == from && g->to[i] == to)
            return true;
    return false;
}

/* The node's own copy of a child graph or a conditional's bodies: every
 * node owns what it points to, so a graph, its clones and execs can be destroyed in any order. */
static cudaError_t node_take_desc(cudaGraphNode_t n, const sc_rt_node_desc *d)
{
    n->d = *d;
    if (d->type == cudaGraphNodeTypeKernel)
        return sc_g_node_take_args(n, d->args);
    if (d->type == cudaGraphNodeTypeGraph) {
        n->d.child = NULL;
        if (d->child == NULL)
            return cudaErrorInvalidValue;
        cudaError_t err = sc_g_clone(d->child, &n->d.child);
        if (err == cudaSuccess)
            n->d.child->owned = true;
        return err;
    }
    if (d->type == cudaGraphNodeTypeConditional)
        return sc_g_cond_take_bodies(&n->d, d);
    if (d->type == cudaGraphNodeTypeMemcpy) {
        memset(&n->copy, 0, sizeof n->copy);
        n->copy.srcPtr.ptr = (void *)d->src;
        n->copy.srcPtr.pitch = d->size;
        n->copy.srcPtr.xsize = d->size;
        n->copy.srcPtr.ysize = 1;
        n->copy.dstPtr.ptr = d->dst;
        n->copy.dstPtr.pitch = d->size;
        n->copy.dstPtr.xsize = d->size;
        n->copy.dstPtr.ysize = 1;
        n->copy.extent.width = d->size;
        n->copy.extent.height = 1;
        n->copy.extent.depth = 1;
        n->copy.kind = d->kind;
    }
    return cudaSuccess;
}

cudaError_t sc_rt_graph_append(cudaGraph_t g, const sc_rt_node_desc *d, const uint32_t *deps,
                               size_t ndeps, cudaGraphNode_t *out)
{
    for (size_t i = 0; i < ndeps; i++)
        if (deps[i] >= g->n)
            return cudaErrorInvalidValue;
    if (g->n >= UINT32_MAX ||
        !sc_rt_grow((void **)&g->nodes, &g->cap, g->n + 1, sizeof *g->nodes) ||
        !edges_reserve(g, g->ne + ndeps))
        return cudaErrorMemoryAllocation;
    cudaGraphNode_t n = sc_g_node_alloc();
    if (n == NULL)
        return cudaErrorMemoryAllocation;
    cudaError_t err = node_take_desc(n, d);
    if (err != cudaSuccess) {
        sc_g_node_release(n);
        return err;
    }
    n->graph = g;
    n->index = (uint32_t)g->n;
    for (uint32_t i = 0; d->type == cudaGraphNodeTypeConditional && i < n->d.nbodies; i++)
        n->d.bodies[i]->holder = g;
    for (size_t i = 0; i < ndeps; i++) {
        g->from[g->ne] = deps[i];
        g->to[g->ne] = n->index;
        g->ne++;
    }
    g->nodes[g->n++] = n;
    if (out != NULL)
        *out = n;
    return cudaSuccess;
}

cudaError_t sc_rt_graph_set_edges(cudaGraph_t g, const uint32_t *from, const uint32_t *to, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (from[i] >= g->n || to[i] >= g->n)
            return cudaErrorInvalidValue;
    if (!edges_reserve(g, n))
        return cudaErrorMemoryAllocation;
    g->ne = 0;
    return sc_g_edges_push(g, from, to, n);
}

size_t sc_rt_graph_node_count(cudaGraph_t g)
{
    return g->n;
}

void sc_rt_graph_edges(cudaGraph_t g, const uint32_t **from, const uint32_t **to, size_t *n)
{
    *from = g->from;
    *to = g->to;
    *n = g->ne;
}

cudaGraphNode_t sc_rt_graph_node_at(cudaGraph_t g, uint32_t index)
{
    return index < g->n ? g->nodes[index] : NULL;
}

uint32_t sc_rt_node_index(cudaGraphNode_t n)
{
    return n->index;
}

cudaGraph_t sc_rt_node_graph(cudaGraphNode_t n)
{
    return n->graph;
}

const sc_rt_node_desc *sc_rt_node_desc_of(cudaGraphNode_t n)
{
    return &n->d;
}

void sc_rt_graph_set_capture(cudaGraph_t g, uint32_t capture)
{
    if (capture != 0)
        state_replace(g, true);
    g->capture = capture;
    /* A body captured into (cudaStreamBeginCaptureToGraph) changes what
     * its holder holds: the holder is stored again when instantiated. */
    if (g->holder != NULL)
        sc_g_touch(g->holder);
}

uint32_t sc_rt_graph_capture(cudaGraph_t g)
{
    return g->capture;
}

void sc_rt_graph_truncate(cudaGraph_t g, size_t n)
{
    if (n >= g->n)
        n = g->n;
    size_t k = 0;
    for (size_t e = 0; e < g->ne; e++) {
        if (g->from[e] >= n || g->to[e] >= n)
            continue;
        g->from[k] = g->from[e];
        g->to[k] = g->to[e];
        k++;
    }
    g->ne = k;
    for (size_t i = n; i < g->n; i++)
        node_free(g->nodes[i]);
    g->n = n;
    state_replace(g, false);
    if (g->holder != NULL)
        sc_g_touch(g->holder);
}

cudaError_t sc_g_clone(cudaGraph_t g, cudaGraph_t *out)
{
    cudaGraph_t c;
    cudaError_t err = sc_rt_graph_new(&c);
    if (err != cudaSuccess)
        return err;
    for (size_t i = 0; i < g->n && err == cudaSuccess; i++) {
        cudaGraphNode_t n;
        err = sc_rt_graph_append(c, &g->nodes[i]->d, NULL, 0, &n);
        if (err != cudaSuccess)
            break;
        n->copy = g->nodes[i]->copy;
        n->kernel_params = g->nodes[i]->kernel_params;
        n->extra = g->nodes[i]->extra;
        n->pool = g->nodes[i]->pool;
        n->block = g->nodes[i]->block;
        if (n->block != NULL)
            n->block->refs++;
        if (!sc_g_node_copy_extras(n, g->nodes[i]))
            err = cudaErrorMemoryAllocation;
    }
    if (err == cudaSuccess)
        err = sc_g_edges_push(c, g->from, g->to, g->ne);
    if (err == cudaSuccess && !sc_g_urefs_clone(c, g))
        err = cudaErrorMemoryAllocation;
    if (err != cudaSuccess) {
        sc_rt_graph_free(c);
        return err;
    }
    state_unref(c->state);
    c->state = g->state;
    c->state->refs++;
    *out = c;
    return cudaSuccess;
}

cudaError_t sc_g_topo_order(cudaGraph_t g, uint32_t **order)
{
    size_t n = g->n;
    uint32_t *indeg = calloc(n + 1, sizeof *indeg);
    uint32_t *start = calloc(n + 1, sizeof *start);
    uint32_t *adj = malloc((g->ne + 1) * sizeof *adj);
    uint32_t *out = malloc((n + 1) * sizeof *out);
    cudaError_t err = cudaErrorMemoryAllocation;
    if (indeg == NULL || start == NULL || adj == NULL || out == NULL)
        goto done;
    /* Successors as a compressed array, in edge order. */
    for (size_t e = 0; e < g->ne; e++) {
        indeg[g->to[e]]++;
        start[g->from[e]]++;
    }
    uint32_t sum = 0;
    for (size_t i = 0; i <= n; i++) {
        uint32_t c = i < n ? start[i] : 0;
        start[i] = sum;
        sum += c;
    }
    uint32_t *fill = calloc(n + 1, sizeof *fill);
    if (fill == NULL)
        goto done;
    for (size_t e = 0; e < g->ne; e++) {
        uint32_t f = g->from[e];
        adj[start[f] + fill[f]++] = g->to[e];
    }
    free(fill);
    /* Kahn's algorithm; out doubles as the queue. */
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n; i++)
        if (indeg[i] == 0)
            out[tail++] = (uint32_t)i;
    while (head < tail) {
        uint32_t v = out[head++];
        for (uint32_t k = start[v]; k < start[v + 1]; k++)
            if (--indeg[adj[k]] == 0)
                out[tail++] = adj[k];
    }
    if (tail != n) {
        err = cudaErrorInvalidValue;
        goto done;
    }
    *order = out;
    out = NULL;
    err = cudaSuccess;
done:
    free(indeg);
    free(start);
    free(adj);
    free(out);
    return err;
}

const char *sc_g_type_dot_name(enum cudaGraphNodeType t)
{
    switch (t) {
    case cudaGraphNodeTypeKernel:
        return "KERNEL";
    case cudaGraphNodeTypeMemcpy:
        return "MEMCPY";
    case cudaGraphNodeTypeMemset:
        return "MEMSET";
    case cudaGraphNodeTypeHost:
        return "HOST";
    case cudaGraphNodeTypeGraph:
        return "GRAPH";
    case cudaGraphNodeTypeEmpty:
        return "EMPTY";
    case cudaGraphNodeTypeWaitEvent:
        return "WAIT_EVENT";
    case cudaGraphNodeTypeEventRecord:
        return "EVENT_RECORD";
    case cudaGraphNodeTypeExtSemaphoreSignal:
        return "EXT_SEMAS_SIGNAL";
    case cudaGraphNodeTypeExtSemaphoreWait:
        return "EXT_SEMAS_WAIT";
    case cudaGraphNodeTypeMemAlloc:
        return "MEM_ALLOC";
    case cudaGraphNodeTypeMemFree:
        return "MEM_FREE";
    case cudaGraphNodeTypeConditional:
        return "CONDITIONAL";
    default:
        return "UNKNOWN";
    }
}
