/*
 * rt_graph_fallback.c - a minimal graph half behind rt.h, weak, so that
 * the runtime half builds, captures and is tested on its own.  The graph
 * half (graph*.c) defines every one of these functions strongly and then
 * replaces all of them together; this file can go once it is in.
 */
#include <stdlib.h>
#include <string.h>

#include "rt.h"

#define SC_RT_WEAK __attribute__((weak))

struct CUgraphNode_st {
    cudaGraph_t graph;
    uint32_t index;
    sc_rt_node_desc desc;
};

struct CUgraph_st {
    struct CUgraphNode_st **nodes;
    size_t n, cap;
    uint32_t *from, *to;
    size_t m, ecap;
    uint32_t capture;
};

SC_RT_WEAK cudaError_t sc_rt_graph_new(cudaGraph_t *out)
{
    *out = calloc(1, sizeof **out);
    return *out ? cudaSuccess : cudaErrorMemoryAllocation;
}

SC_RT_WEAK void sc_rt_graph_free(cudaGraph_t g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->n; i++)
        free(g->nodes[i]);
    free(g->nodes);
    free(g->from);
    free(g->to);
    free(g);
}

static cudaError_t edge_add(cudaGraph_t g, uint32_t from, uint32_t to)
{
    if (g->m == g->ecap) {
        size_t cap = g->ecap ? g->ecap * 2 : 16;
        uint32_t *f = realloc(g->from, cap * sizeof *f);
        if (!f)
            return cudaErrorMemoryAllocation;
        g->from = f;
        uint32_t *t = realloc(g->to, cap * sizeof *t);
        if (!t)
            return cudaErrorMemoryAllocation;
        g->to = t;
        g->ecap = cap;
    }
    g->from[g->m] = from;
    g->to[g->m] = to;
    g->m++;
    return cudaSuccess;
}

SC_RT_WEAK cudaError_t sc_rt_graph_append(cudaGraph_t g, const sc_rt_node_desc *d,
                                          const uint32_t *deps, size_t ndeps, cudaGraphNode_t *out)
{
    for (size_t i = 0; i < ndeps; i++)
        if (deps[i] >= g->n)
            return cudaErrorInvalidValue;
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 64;
        struct CUgraphNode_st **p = realloc(g->nodes, cap * sizeof *p);
        if (!p)
            return cudaErrorMemoryAllocation;
        g->nodes = p;
        g->cap = cap;
    }
    struct CUgraphNode_st *node = malloc(sizeof *node);
    if (!node)
        return cudaErrorMemoryAllocation;
    node->graph = g;
    node->index = (uint32_t)g->n;
    node->desc = *d;
    for (size_t i = 0; i < ndeps; i++)
        if (edge_add(g, deps[i], node->index) != cudaSuccess) {
            free(node);
            return cudaErrorMemoryAllocation;
        }
    g->nodes[g->n++] = node;
    if (out)
        *out = node;
    return cudaSuccess;
}

SC_RT_WEAK cudaError_t sc_rt_graph_set_edges(cudaGraph_t g, const uint32_t *from,
                                             const uint32_t *to, size_t n)
{
    g->m = 0;
    for (size_t i = 0; i < n; i++)
        if (edge_add(g, from[i], to[i]) != cudaSuccess)
            return cudaErrorMemoryAllocation;
    return cudaSuccess;
}

SC_RT_WEAK size_t sc_rt_graph_node_count(cudaGraph_t g)
{
    return g->n;
}

SC_RT_WEAK void sc_rt_graph_edges(cudaGraph_t g, const uint32_t **from, const uint32_t **to,
                                  size_t *n)
{
    *from = g->from;
    *to = g->to;
    *n = g->m;
}

SC_RT_WEAK cudaGraphNode_t sc_rt_graph_node_at(cudaGraph_t g, uint32_t index)
{
    return index < g->n ? g->nodes[index] : NULL;
}

SC_RT_WEAK uint32_t sc_rt_node_index(cudaGraphNode_t n)
{
    return n->index;
}

SC_RT_WEAK cudaGraph_t sc_rt_node_graph(cudaGraphNode_t n)
{
    return n->graph;
}

SC_RT_WEAK const sc_rt_node_desc *sc_rt_node_desc_of(cudaGraphNode_t n)
{
    return &n->desc;
}

SC_RT_WEAK void sc_rt_graph_set_capture(cudaGraph_t g, uint32_t capture)
{
    g->capture = capture;
}

SC_RT_WEAK uint32_t sc_rt_graph_capture(cudaGraph_t g)
{
    return g ? g->capture : 0;
}
