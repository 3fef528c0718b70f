/*
 * graph_rt_stub.c - a runtime half just large enough to test the graph
 * half on its own: a recursive lock, a last error, streams that are
 * "capturing" when they are one of the test's tokens, and counters the
 * tests read (graph_rt_stub.h).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "graph_rt_stub.h"

static pthread_mutex_t mu = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static _Thread_local cudaError_t last_error;

sc_stub_counts sc_stub;

void sc_rt_lock(void)
{
    pthread_mutex_lock(&mu);
    sc_stub.lock_depth++;
}

void sc_rt_unlock(void)
{
    sc_stub.lock_depth--;
    pthread_mutex_unlock(&mu);
}

struct sc_rt_state *sc_rt_call_lock(sc_rt_call *c)
{
    if (!c->locked) {
        sc_rt_lock();
        c->locked = true;
    }
    return NULL;
}

void sc_rt_call_unlock(sc_rt_call *c)
{
    if (c->locked) {
        c->locked = false;
        sc_rt_unlock();
    }
}

cudaError_t sc_rt_call_end(sc_rt_call *c, cudaError_t err, bool record)
{
    sc_rt_call_unlock(c);
    return record ? sc_rt_error(err) : err;
}

cudaError_t sc_rt_error(cudaError_t err)
{
    if (err != cudaSuccess)
        last_error = err;
    return err;
}

cudaError_t sc_stub_last_error(void)
{
    cudaError_t e = last_error;
    last_error = cudaSuccess;
    return e;
}

const char *sc_rt_kernel_name(const void *func)
{
    static _Thread_local char buf[64];
    if (func == (const void *)sc_stub_kernel)
        return "void scale<float>(float*, float, int)";
    snprintf(buf, sizeof buf, "kernel@%p", func);
    return buf;
}

void sc_stub_kernel(void) {}

/* No fat binaries here: nodes keep the caller's argument pointers. */
bool sc_rt_kernel_params(const void *func, const sc_fb_param **params, size_t *n)
{
    (void)func;
    (void)params;
    (void)n;
    return false;
}

enum cudaMemcpyKind sc_rt_memcpy_kind(void *dst, const void *src, enum cudaMemcpyKind kind)
{
    (void)dst, (void)src;
    return kind == cudaMemcpyDefault ? cudaMemcpyHostToHost : kind;
}

cudaError_t sc_rt_issue(cudaStream_t s, const sc_rt_node_desc *d, cudaGraphNode_t *out)
{
    sc_stub.issued++;
    if (out != NULL)
        *out = NULL;
    if (s == SC_STUB_CAPTURING) {
        cudaGraphNode_t n;
        cudaError_t err = sc_rt_graph_append(sc_stub.capture_graph, d, NULL, 0, &n);
        if (err == cudaSuccess && out != NULL)
            *out = n;
        return err;
    }
    if (d->type == cudaGraphNodeTypeGraph)
        return sc_rt_graph_run(d->child);
    return cudaSuccess;
}

/* No arrays in the stub: a copy naming one is not supported. */
cudaError_t sc_rt_copy3d_flatten(struct cudaMemcpy3DParms *p)
{
    return p->srcArray || p->dstArray ? cudaErrorNotSupported : cudaSuccess;
}

/* No variables are registered with the stub. */
cudaError_t sc_rt_symbol_range(const void *symbol, size_t count, size_t offset, void **at)
{
    (void)symbol, (void)count, (void)offset, (void)at;
    return cudaErrorInvalidSymbol;
}

/* Stream handles are their own ids here. */
uint32_t sc_rt_launch_stream(cudaStream_t s, bool *capturing)
{
    *capturing = s == SC_STUB_CAPTURING;
    return (uint32_t)(uintptr_t)s;
}

void **sc_rt_graph_mem_slot(void)
{
    return &sc_stub.graph_mem;
}

void sc_rt_event_reached(cudaEvent_t e)
{
    (void)e;
    sc_stub.events_reached++;
}

cudaError_t sc_rt_capture_add_node(cudaGraph_t g, const sc_rt_node_desc *d,
                                   const cudaGraphNode_t *deps, size_t ndeps, cudaGraphNode_t *out)
{
    sc_stub.capture_adds++;
    uint32_t idx[16];
    if (ndeps > 16)
        return cudaErrorInvalidValue;
    for (size_t i = 0; i < ndeps; i++)
        idx[i] = sc_rt_node_index(deps[i]);
    return sc_rt_graph_append(g, d, idx, ndeps, out);
}

void sc_rt_submit_graph(cudaGraph_t g)
{
    sc_stub.submitted++;
    sc_stub.last_submitted = g;
    sc_stub.last_submitted_nodes = sc_rt_graph_node_count(g);
}

/* The few runtime exports the graph tests call, so the same tests run
 * against this stub and against the real stand-in. */
cudaError_t cudaGetLastError(void)
{
    return sc_stub_last_error();
}

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    *event = malloc(1);
    return *event != NULL ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    free(event);
    return cudaSuccess;
}
