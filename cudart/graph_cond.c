/*
 * graph_cond.c - conditional nodes: their handles, the body graphs each
 * node owns, and which body a launch on the host runs.
 *
 * Nothing on the host sets a condition (the kernels that would call
 * cudaGraphSetConditional do not run), so a condition always holds its
 * handle's default value, at every launch, with cudaGraphCondAssignDefault
 * or without it.  docs/cudart.md says what each type then runs.
 */
#include <stdlib.h>
#include <string.h>

#include "graph_int.h"
#include "sc_graph.h"

/* Serial numbers of the handles made so far (under the process lock). */
static unsigned long long handles_made;

static cudaError_t handle_create(cudaGraphConditionalHandle *out, cudaGraph_t g,
                                 unsigned int default_value, unsigned int flags)
{
    if (out == NULL || !sc_g_valid(g) || (flags & ~(unsigned int)cudaGraphCondAssignDefault))
        return cudaErrorInvalidValue;
    if (handles_made + 1 >= 1ull << 24)
        return cudaErrorMemoryAllocation; /* the serial's 24 bits are spent */
    *out = ++handles_made << 40 | (unsigned long long)flags << 32 | default_value;
    return cudaSuccess;
}

cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *pHandle_out,
                                             cudaGraph_t graph, unsigned int defaultLaunchValue,
                                             unsigned int flags)
{
    SC_G_LOCKED(handle_create(pHandle_out, graph, defaultLaunchValue, flags));
}

cudaError_t sc_g_cond_desc(sc_rt_node_desc *d, node_extra *x, struct cudaConditionalNodeParams *p)
{
    if (!sc_rt_cond_valid(p->handle) || !sc_cond_size_valid((int)p->type, p->size))
        return cudaErrorInvalidValue;
    d->type = cudaGraphNodeTypeConditional;
    d->cond_type = p->type;
    d->cond_handle = p->handle;
    d->nbodies = p->size;
    d->bodies = NULL; /* made empty when the node is */
    /* CUDA hands back its own array of the bodies through the field. */
    x->cond_out = &p->phGraph_out;
    return cudaSuccess;
}

cudaError_t sc_g_cond_take_bodies(sc_rt_node_desc *nd, const sc_rt_node_desc *d)
{
    nd->bodies = calloc(d->nbodies ? d->nbodies : 1, sizeof *nd->bodies);
    if (nd->bodies == NULL)
        return cudaErrorMemoryAllocation;
    cudaError_t err = cudaSuccess;
    for (uint32_t i = 0; i < d->nbodies && err == cudaSuccess; i++) {
        /* A new node's bodies start empty; a clone's copy the original's. */
        err =
            d->bodies ? sc_g_clone(d->bodies[i], &nd->bodies[i]) : sc_rt_graph_new(&nd->bodies[i]);
        if (err == cudaSuccess)
            nd->bodies[i]->owned = true;
    }
    if (err != cudaSuccess)
        sc_g_cond_free_bodies(nd);
    return err;
}

void sc_g_cond_free_bodies(sc_rt_node_desc *d)
{
    for (uint32_t i = 0; d->bodies && i < d->nbodies; i++)
        sc_rt_graph_free(d->bodies[i]);
    free(d->bodies);
    d->bodies = NULL;
}

bool sc_g_cond_pick(const sc_rt_node_desc *d, uint32_t *body)
{
    uint32_t value = sc_rt_cond_default(d->cond_handle);
    switch (d->cond_type) {
    case cudaGraphCondTypeIf:
        *body = value != 0 ? 0 : 1;
        return *body < d->nbodies;
    case cudaGraphCondTypeWhile:
        /* No kernel clears the condition: a non-zero one would loop for
         * ever, so the body runs once. */
        *body = 0;
        return value != 0;
    case cudaGraphCondTypeSwitch:
        *body = value;
        return value < d->nbodies;
    default:
        return false;
    }
}

cudaError_t sc_g_cond_run(const sc_rt_node_desc *d)
{
    uint32_t body;
    if (!d->bodies || !sc_g_cond_pick(d, &body))
        return cudaSuccess;
    return sc_rt_graph_run(d->bodies[body]);
}
