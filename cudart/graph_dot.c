/*
 * graph_dot.c - cudaGraphDebugDotPrint.
 *
 * The style is the CUDA runtime's own, as its dumps show in public issue
 * threads and tests (pytorch/pytorch#126753 and the torch debug_dump
 * outputs quoted in projects that parse them; a parser's test holding a
 * flags=0 dump with a child graph): a "digraph dot" with one dashed
 * "subgraph cluster_K" labelled "graph_K" per graph (the graph given is
 * 1, child graphs numbered on from it, each cluster written after its
 * parent's), nodes named "graph_K_node_I" by creation index, edges
 * between those names with headlabel=0.  flags 0: a kernel is a bold
 * octagon labelled "I\nNAME\n", a child graph a rectangle labelled
 * "I\ngraph_K\n", a conditional one labelled "I\nCONDITIONAL\nTYPE graph_K
 * ..." (its bodies), any other node a solid rectangle labelled "I\nTYPE\n".
 * Other flags: record shapes "{TYPE\n| {ID | I (topoId: T) | ...}...}"
 * where the topoId counts down a topological order to 0, kernels show
 * NAME<<<grid,block,shared>>> and copies their direction and size.
 * Kernel names are the demangled ones the stand-in registered.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_int.h"

typedef struct dot_work {
    cudaGraph_t *g;
    size_t n, cap;
} dot_work;

static cudaError_t work_push(dot_work *w, cudaGraph_t g, size_t *id)
{
    if (w->n == w->cap) {
        size_t c = w->cap ? w->cap * 2 : 8;
        cudaGraph_t *p = realloc(w->g, c * sizeof *p);
        if (p == NULL)
            return cudaErrorMemoryAllocation;
        w->g = p;
        w->cap = c;
    }
    w->g[w->n] = g;
    *id = ++w->n; /* clusters count from 1 */
    return cudaSuccess;
}

/* Text inside a quoted DOT string; records also reserve <>{}| . */
static void put_escaped(FILE *f, const char *s, bool record)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\' || (record && strchr("<>{}|", *s) != NULL))
            fputc('\\', f);
        fputc(*s, f);
    }
}

static void put_dim(FILE *f, dim3 d)
{
    if (d.y == 1 && d.z == 1)
        fprintf(f, "%u", d.x);
    else
        fprintf(f, "\\{%u,%u,%u\\}", d.x, d.y, d.z);
}

static const char *kind_text(enum cudaMemcpyKind k)
{
    switch (k) {
    case cudaMemcpyHostToHost:
        return "HtoH (HOST to HOST)";
    case cudaMemcpyHostToDevice:
        return "HtoD (HOST to DEVICE)";
    case cudaMemcpyDeviceToHost:
        return "DtoH (DEVICE to HOST)";
    case cudaMemcpyDeviceToDevice:
        return "DtoD (DEVICE to DEVICE)";
    default:
        return "Default";
    }
}

static const char *cond_type_text(unsigned int type)
{
    switch (type) {
    case cudaGraphCondTypeIf:
        return "IF";
    case cudaGraphCondTypeWhile:
        return "WHILE";
    default:
        return "SWITCH";
    }
}

/* A conditional's bodies: clusters first, first + 1, ... in index order. */
static void put_bodies(FILE *f, const sc_rt_node_desc *d, size_t first, const char *sep)
{
    for (uint32_t i = 0; i < d->nbodies; i++)
        fprintf(f, "%sgraph_%zu", sep, first + i);
}

static void node_plain(FILE *f, size_t gid, cudaGraphNode_t n, size_t child_id)
{
    const sc_rt_node_desc *d = &n->d;
    fprintf(f, "\"graph_%zu_node_%" PRIu32 "\"", gid, n->index);
    if (d->type == cudaGraphNodeTypeKernel) {
        fprintf(f, "[style=\"bold\" shape=\"octagon\" label=\"%" PRIu32 "\n", n->index);
        put_escaped(f, sc_rt_kernel_name(d->func), false);
    } else if (d->type == cudaGraphNodeTypeGraph) {
        fprintf(f, "[style=\"solid\" shape=\"rectangle\" label=\"%" PRIu32 "\ngraph_%zu", n->index,
                child_id);
    } else if (d->type == cudaGraphNodeTypeConditional) {
        fprintf(f, "[style=\"solid\" shape=\"rectangle\" label=\"%" PRIu32 "\nCONDITIONAL\n%s",
                n->index, cond_type_text(d->cond_type));
        put_bodies(f, d, child_id, " ");
    } else {
        fprintf(f, "[style=\"solid\" shape=\"rectangle\" label=\"%" PRIu32 "\n%s", n->index,
                sc_g_type_dot_name(d->type));
    }
    fputs("\n\"];\n", f);
}

static void node_record(FILE *f, size_t gid, cudaGraphNode_t n, size_t topo_id, size_t child_id)
{
    const sc_rt_node_desc *d = &n->d;
    bool kernel = d->type == cudaGraphNodeTypeKernel;
    fprintf(f, "\"graph_%zu_node_%" PRIu32 "\"[style=\"%s\" shape=\"record\" label=\"{%s\n", gid,
            n->index, kernel ? "bold" : "solid", sc_g_type_dot_name(d->type));
    fprintf(f, "| {ID | %" PRIu32 " (topoId: %zu)", n->index, topo_id);
    if (kernel) {
        fputs(" | ", f);
        put_escaped(f, sc_rt_kernel_name(d->func), true);
        fputs("\\<\\<\\<", f);
        put_dim(f, d->grid);
        fputc(',', f);
        put_dim(f, d->block);
        fprintf(f, ",%u\\>\\>\\>", d->shared_mem);
    } else if (d->type == cudaGraphNodeTypeGraph) {
        fprintf(f, " | graph_%zu", child_id);
    } else if (d->type == cudaGraphNodeTypeConditional) {
        fprintf(f, " | %s", cond_type_text(d->cond_type));
        put_bodies(f, d, child_id, " | ");
    }
    fputs("}\n", f);
    if (d->type == cudaGraphNodeTypeConditional)
        fprintf(f, "| {{size | default | flags} | {%" PRIu32 " | %" PRIu32 " | %" PRIu32 "}}\n",
                d->nbodies, sc_rt_cond_default(d->cond_handle), sc_rt_cond_flags(d->cond_handle));
    if (d->type == cudaGraphNodeTypeMemcpy)
        fprintf(f, "| {kind | %s}\n| {size | %zu}\n", kind_text(d->kind), d->size);
    else if (d->type == cudaGraphNodeTypeMemset)
        fprintf(f, "| {{value | elementSize | width | height} | {%u | %u | %zu | %zu}}\n", d->value,
                d->element_size, d->width, d->height);
    else if (d->type == cudaGraphNodeTypeMemAlloc)
        fprintf(f, "| {bytesize | %zu}\n", d->size);
    fputs("}\"];\n", f);
}

static cudaError_t write_cluster(FILE *f, dot_work *w, size_t gid, unsigned int flags)
{
    cudaGraph_t g = w->g[gid - 1];
    uint32_t *order = NULL;
    cudaError_t err = sc_g_topo_order(g, &order);
    size_t *topo = err == cudaSuccess ? calloc(g->n + 1, sizeof *topo) : NULL;
    if (err == cudaSuccess && topo == NULL)
        err = cudaErrorMemoryAllocation;
    if (err == cudaErrorInvalidValue) {
        /* A cycle has no topological order: number nodes as they are. */
        err = cudaSuccess;
        order = NULL;
        topo = calloc(g->n + 1, sizeof *topo);
        if (topo == NULL)
            err = cudaErrorMemoryAllocation;
    }
    if (err != cudaSuccess) {
        free(order);
        return err;
    }
    for (size_t i = 0; i < g->n; i++)
        topo[order != NULL ? order[i] : i] = g->n - 1 - i;
    free(order);
    fprintf(f, "subgraph cluster_%zu {\nlabel=\"graph_%zu\" graph[style=\"dashed\"];\n", gid, gid);
    for (size_t i = 0; i < g->n && err == cudaSuccess; i++) {
        cudaGraphNode_t n = g->nodes[i];
        size_t child_id = 0;
        if (n->d.type == cudaGraphNodeTypeGraph)
            err = work_push(w, n->d.child, &child_id);
        /* A conditional's bodies are clusters of their own, numbered in a row. */
        for (uint32_t b = 0; n->d.type == cudaGraphNodeTypeConditional && n->d.bodies &&
                             b < n->d.nbodies && err == cudaSuccess;
             b++) {
            size_t id = 0;
            err = work_push(w, n->d.bodies[b], &id);
            if (b == 0)
                child_id = id;
        }
        if (flags == 0)
            node_plain(f, gid, n, child_id);
        else
            node_record(f, gid, n, topo[i], child_id);
    }
    for (size_t e = 0; e < g->ne; e++)
        fprintf(f,
                "\"graph_%zu_node_%" PRIu32 "\" -> \"graph_%zu_node_%" PRIu32 "\" [headlabel=0];\n",
                gid, g->from[e], gid, g->to[e]);
    fputs("}\n", f);
    free(topo);
    return err;
}

static cudaError_t dot_print(cudaGraph_t g, const char *path, unsigned int flags)
{
    if (!sc_g_valid(g) || path == NULL)
        return cudaErrorInvalidValue;
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return cudaErrorOperatingSystem;
    dot_work w = {0};
    size_t id;
    cudaError_t err = work_push(&w, g, &id);
    fputs("digraph dot {\n", f);
    for (size_t i = 1; err == cudaSuccess && i <= w.n; i++)
        err = write_cluster(f, &w, i, flags);
    fputs("}\n", f);
    free(w.g);
    if (fclose(f) != 0 && err == cudaSuccess)
        err = cudaErrorOperatingSystem;
    return err;
}

cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char *path, unsigned int flags)
{
    SC_G_LOCKED(dot_print(graph, path, flags));
}
