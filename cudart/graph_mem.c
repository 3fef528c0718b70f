/*
 * graph_mem.c - graph memory: the addresses mem-alloc nodes hand out, and
 * the device's graph memory pool as a launch accounts it.
 *
 * Addresses.  A mem-alloc node's address is fixed when the node is added
 * (CUDA returns dptr then) and backed by host memory from then on.  A node
 * whose dependencies order it after the free of an earlier allocation of
 * the same graph gets that allocation's address, as CUDA gives it: their
 * lifetimes cannot overlap.  Separate graphs never share an address.
 *
 * The pool.  What a GPU reserves is physical memory mapped behind those
 * addresses when a graph is launched.  Here a launch takes a block of the
 * pool for each allocation it makes, in the order its edges give: a block
 * freed earlier by work of the same stream (or by cudaFree, which
 * synchronises) is reused when big enough, else the pool grows.  A free
 * node returns its allocation's block to the pool, tagged with the
 * launch's stream; work of another stream may still be running on a GPU,
 * so it does not reuse it.  An allocation its graph does not free stays
 * live, and valid, until cudaFree, cudaFreeAsync or a later graph's free
 * node.  cudaDeviceGraphMemTrim releases every block that holds no live
 * allocation (launches are complete when they return).  The memory the
 * pool holds is mapped for graphs as long as it is held, so the used and
 * reserved figures are the same; each keeps its own high watermark.
 */
#include <stdlib.h>
#include <string.h>

#include "graph_int.h"

/* CUDA hands out graph allocations 256-byte aligned. */
#define SC_G_ALLOC_ALIGN 256

/* A block of the pool: live (addr set) or free for reuse. */
typedef struct sc_g_phys {
    size_t size;
    void *addr;        /* live: the allocation's address; NULL: free */
    sc_g_block *block; /* live: keeps the allocation's memory */
    cudaGraph_t owner; /* live: the exec graph that made it (NULL: gone) */
    uint32_t stream;   /* free: the stream that freed it (or ANY) */
} sc_g_phys;

typedef struct sc_g_mem {
    sc_g_phys *p;
    size_t n, cap;
    uint64_t held, used_high, reserved_high;
} sc_g_mem;

static size_t rounded(size_t n)
{
    return (n + SC_G_ALLOC_ALIGN - 1) / SC_G_ALLOC_ALIGN * SC_G_ALLOC_ALIGN;
}

/* ------------------------------------------------------------ addresses */

/* Every node that must finish before one depending on deps starts. */
static bool *ancestors(cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps)
{
    bool *mark = calloc(g->n + 1, sizeof *mark);
    size_t *start = calloc(g->n + 2, sizeof *start);
    uint32_t *src = malloc((g->ne + 1) * sizeof *src);
    uint32_t *stack = malloc((g->n + ndeps + 1) * sizeof *stack);
    size_t top = 0;
    bool ok = mark && start && src && stack;
    for (size_t i = 0; ok && i < ndeps; i++) {
        ok = deps[i] != NULL && deps[i]->graph == g;
        if (ok)
            stack[top++] = deps[i]->index;
    }
    for (size_t e = 0; ok && e < g->ne; e++)
        start[g->to[e] + 2]++;
    for (size_t i = 2; ok && i <= g->n + 1; i++)
        start[i] += start[i - 1];
    for (size_t e = 0; ok && e < g->ne; e++)
        src[start[g->to[e] + 1]++] = g->from[e];
    while (ok && top > 0) {
        uint32_t v = stack[--top];
        if (mark[v])
            continue;
        mark[v] = true;
        for (size_t k = start[v]; k < start[v + 1]; k++)
            if (!mark[src[k]])
                stack[top++] = src[k];
    }
    free(start);
    free(src);
    free(stack);
    if (!ok) {
        free(mark);
        return NULL;
    }
    return mark;
}

/* The block at address a that g's earlier allocations used, when every
 * one of them is ordered before the new node and freed before it. */
static sc_g_block *freed_before(cudaGraph_t g, const bool *anc, void *a)
{
    sc_g_block *b = NULL;
    size_t allocs = 0, frees = 0;
    for (size_t i = 0; i < g->n; i++) {
        cudaGraphNode_t n = g->nodes[i];
        if (n->d.type == cudaGraphNodeTypeMemAlloc && n->block && n->block->mem == a) {
            if (!anc[i])
                return NULL;
            b = n->block;
            allocs++;
        } else if (n->d.type == cudaGraphNodeTypeMemFree && n->d.dst == a && anc[i]) {
            frees++;
        }
    }
    return frees >= allocs ? b : NULL;
}

static sc_g_block *reusable(cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, size_t size)
{
    bool *anc = ancestors(g, deps, ndeps);
    sc_g_block *found = NULL;
    for (size_t i = 0; anc && !found && i < g->n; i++) {
        cudaGraphNode_t f = g->nodes[i];
        if (!anc[i] || f->d.type != cudaGraphNodeTypeMemFree)
            continue;
        sc_g_block *b = freed_before(g, anc, f->d.dst);
        if (b && rounded(b->size) >= rounded(size))
            found = b;
    }
    free(anc);
    return found;
}

cudaError_t sc_g_alloc_block(cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, size_t size,
                             sc_g_block **out)
{
    if (size > SIZE_MAX - SC_G_ALLOC_ALIGN)
        return cudaErrorMemoryAllocation;
    sc_g_block *b = NULL;
    if (sc_g_valid(g) && g->capture == 0 && (ndeps == 0 || deps != NULL))
        b = reusable(g, deps, ndeps, size);
    if (b != NULL) {
        b->refs++;
        *out = b;
        return cudaSuccess;
    }
    b = calloc(1, sizeof *b);
    void *mem = b != NULL ? aligned_alloc(SC_G_ALLOC_ALIGN, rounded(size)) : NULL;
    if (mem == NULL) {
        free(b);
        return cudaErrorMemoryAllocation;
    }
    b->refs = 1;
    b->mem = mem;
    b->size = size;
    *out = b;
    return cudaSuccess;
}

/* ----------------------------------------------------------------- pool */

static sc_g_mem *mem_get(bool create)
{
    void **slot = sc_rt_graph_mem_slot();
    if (*slot == NULL && create)
        *slot = calloc(1, sizeof(sc_g_mem));
    return *slot;
}

static void held_add(sc_g_mem *m, size_t size)
{
    m->held += size;
    if (m->held > m->used_high)
        m->used_high = m->held;
    if (m->held > m->reserved_high)
        m->reserved_high = m->held;
}

/* A block for an allocation of `size` made by work of `stream`: the
 * smallest free one that fits and that the stream may reuse, else a new
 * one.  False when memory is short (nothing is then accounted). */
static bool take(sc_g_mem *m, const cudaGraphNode_t n, cudaGraph_t owner, uint32_t stream)
{
    size_t need = rounded(n->d.size), best = m->n;
    for (size_t i = 0; i < m->n; i++) {
        const sc_g_phys *p = &m->p[i];
        if (p->addr == NULL && p->size >= need &&
            (p->stream == stream || p->stream == SC_RT_ANY_STREAM) &&
            (best == m->n || p->size < m->p[best].size))
            best = i;
    }
    if (best == m->n) {
        if (!sc_rt_grow((void **)&m->p, &m->cap, m->n + 1, sizeof *m->p))
            return false;
        m->p[m->n++] = (sc_g_phys){.size = need};
        held_add(m, need);
    }
    sc_g_phys *p = &m->p[best];
    p->addr = n->d.dst;
    p->block = n->block;
    if (p->block != NULL)
        p->block->refs++;
    p->owner = owner;
    return true;
}

static bool release(sc_g_mem *m, void *addr, uint32_t stream)
{
    for (size_t i = 0; m != NULL && i < m->n; i++) {
        sc_g_phys *p = &m->p[i];
        if (p->addr == addr && addr != NULL) {
            sc_g_block_unref(p->block);
            *p = (sc_g_phys){.size = p->size, .stream = stream};
            return true;
        }
    }
    return false;
}

bool sc_rt_graph_mem_free(void *p, uint32_t stream)
{
    return release(mem_get(false), p, stream);
}

cudaError_t sc_g_mem_launch_check(cudaGraph_t xg)
{
    const sc_g_mem *m = mem_get(false);
    for (size_t i = 0; m != NULL && i < m->n; i++)
        if (m->p[i].addr != NULL && m->p[i].owner == xg)
            return cudaErrorInvalidValue;
    return cudaSuccess;
}

static bool has_mem_nodes(cudaGraph_t g)
{
    for (size_t i = 0; i < g->n; i++)
        if (g->nodes[i]->d.type == cudaGraphNodeTypeMemAlloc ||
            g->nodes[i]->d.type == cudaGraphNodeTypeMemFree)
            return true;
    return false;
}

void sc_g_mem_launched(cudaGraph_t xg, uint32_t stream)
{
    uint32_t *order;
    if (!has_mem_nodes(xg) || sc_g_topo_order(xg, &order) != cudaSuccess)
        return;
    sc_g_mem *m = mem_get(true);
    for (size_t i = 0; m != NULL && i < xg->n; i++) {
        cudaGraphNode_t n = xg->nodes[order[i]];
        if (n->disabled)
            continue;
        if (n->d.type == cudaGraphNodeTypeMemAlloc)
            (void)take(m, n, xg, stream);
        else if (n->d.type == cudaGraphNodeTypeMemFree)
            (void)release(m, n->d.dst, stream);
    }
    free(order);
}

void sc_g_mem_auto_free(cudaGraph_t xg, uint32_t stream)
{
    sc_g_mem *m = mem_get(false);
    for (size_t i = 0; m != NULL && i < m->n; i++)
        if (m->p[i].addr != NULL && m->p[i].owner == xg)
            (void)release(m, m->p[i].addr, stream);
}

void sc_g_mem_reown(cudaGraph_t xg, cudaGraph_t to)
{
    sc_g_mem *m = mem_get(false);
    for (size_t i = 0; m != NULL && i < m->n; i++)
        if (m->p[i].owner == xg)
            m->p[i].owner = to;
}

/* -------------------------------------------------------------- exports */

static cudaError_t get_attr(int device, enum cudaGraphMemAttributeType attr, void *value)
{
    if (device != 0)
        return cudaErrorInvalidDevice;
    if (value == NULL)
        return cudaErrorInvalidValue;
    const sc_g_mem *m = mem_get(false);
    sc_g_mem zero = {0};
    if (m == NULL)
        m = &zero;
    uint64_t v;
    switch (attr) {
    case cudaGraphMemAttrUsedMemCurrent:
    case cudaGraphMemAttrReservedMemCurrent:
        v = m->held;
        break;
    case cudaGraphMemAttrUsedMemHigh:
        v = m->used_high;
        break;
    case cudaGraphMemAttrReservedMemHigh:
        v = m->reserved_high;
        break;
    default:
        return cudaErrorInvalidValue;
    }
    memcpy(value, &v, sizeof v);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr,
                                           void *value)
{
    SC_G_LOCKED(get_attr(device, attr, value));
}

/* Only the high watermarks can be set, and only to zero. */
static cudaError_t set_attr(int device, enum cudaGraphMemAttributeType attr, void *value)
{
    if (device != 0)
        return cudaErrorInvalidDevice;
    uint64_t v;
    if (value == NULL)
        return cudaErrorInvalidValue;
    memcpy(&v, value, sizeof v);
    if (v != 0 || (attr != cudaGraphMemAttrUsedMemHigh && attr != cudaGraphMemAttrReservedMemHigh))
        return cudaErrorInvalidValue;
    sc_g_mem *m = mem_get(true);
    if (m == NULL)
        return cudaErrorMemoryAllocation;
    if (attr == cudaGraphMemAttrUsedMemHigh)
        m->used_high = 0;
    else
        m->reserved_high = 0;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr,
                                           void *value)
{
    SC_G_LOCKED(set_attr(device, attr, value));
}

static cudaError_t trim(int device)
{
    if (device != 0)
        return cudaErrorInvalidDevice;
    sc_g_mem *m = mem_get(false);
    size_t k = 0;
    for (size_t i = 0; m != NULL && i < m->n; i++) {
        if (m->p[i].addr == NULL)
            m->held -= m->p[i].size;
        else
            m->p[k++] = m->p[i];
    }
    if (m != NULL)
        m->n = k;
    return cudaSuccess;
}

cudaError_t cudaDeviceGraphMemTrim(int device)
{
    SC_G_LOCKED(trim(device));
}
