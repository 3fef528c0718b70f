/*
 * rt.h - what the stand-in's two halves promise each other.
 *
 * The runtime half (rt*.c: process state, device, memory, streams, events,
 * launches, capture through the core/ cuda-mode model, the daemon feed and
 * the exit report) and the graph half (graph*.c: cudaGraph_t objects, the
 * cudaGraph* API, instantiate and launch, DOT) meet only here.
 *
 * Locking: one process-wide mutex guards the model, every handle and every
 * graph.  Exported CUDA functions take it (SC_RT_LOCK, below); the
 * functions below expect it held unless they say otherwise.
 *
 * Return values are cudaError_t, as the exports return them.
 */
#ifndef SC_CUDART_RT_H
#define SC_CUDART_RT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "abi_base.h"
#include "fatbin.h"

/** What a node does, for the capture path and the graph API alike. */
typedef struct sc_rt_node_desc {
    enum cudaGraphNodeType type;
    /* cudaGraphNodeTypeKernel */
    const void *func; /* host stub; its name comes from sc_rt_kernel_name */
    dim3 grid, block;
    unsigned int shared_mem;
    /* The caller's kernelParams, read only while the node is made: a
     * node keeps a copy of the values where the kernel's layout is known
     * (sc_rt_kernel_params), else this pointer. */
    void **args;
    /* cudaGraphNodeTypeMemcpy: kind already resolved (never Default) */
    void *dst;
    const void *src;
    size_t size; /* bytes; memset: width * height * element_size */
    /* memcpy of a pitched shape: the bytes from dst and from src that
     * bound the rows it touches (sc_rt_pitched_span); 0 for a 1-D copy,
     * whose ranges are size bytes */
    size_t dst_span, src_span;
    enum cudaMemcpyKind kind;
    /* cudaGraphNodeTypeMemset (dst above) */
    unsigned int value;
    unsigned int element_size;
    size_t width, height, pitch;
    /* cudaGraphNodeTypeHost */
    cudaHostFn_t fn;
    void *user_data;
    /* cudaGraphNodeTypeEventRecord, cudaGraphNodeTypeWaitEvent */
    cudaEvent_t event;
    /* cudaGraphNodeTypeMemAlloc (dst is the address it hands out, size its
     * bytes), cudaGraphNodeTypeMemFree (dst is the address) */
    /* cudaGraphNodeTypeGraph */
    cudaGraph_t child;
    /* cudaGraphNodeTypeConditional: the body graphs, owned by the node, in
     * body index order (if: then, else; while: the body; switch: a case
     * each) */
    cudaGraph_t *bodies;
    uint32_t nbodies;
    /* cudaGraphNodeTypeConditional: its type (cudaGraphCondType*), and
     * the handle its condition reads (sc_rt_cond_* below read its default
     * value and flags from it) */
    unsigned int cond_type;
    unsigned long long cond_handle;
} sc_rt_node_desc;

/** The bytes from a pitched pointer's first element (rows `pitch` bytes
 *  apart, `ysize` rows a slice) to the end of the last row an extent of
 *  width bytes, height rows and depth slices covers. */
static inline size_t sc_rt_pitched_span(size_t pitch, size_t ysize, size_t width, size_t height,
                                        size_t depth)
{
    size_t span = width;
    if (height > 1)
        span += pitch * (height - 1);
    if (depth > 1)
        span += pitch * ysize * (depth - 1);
    return span;
}

/*
 * A conditional handle (cudaGraphConditionalHandle) carries what the host
 * needs of it in its bits: a serial number that keeps handles apart
 * (bits 40-63, never 0), the flags (bits 32-39) and the default value
 * (bits 0-31).  Nothing on the host sets a condition, so a handle needs
 * no storage of its own and nothing to free.
 */
static inline bool sc_rt_cond_valid(unsigned long long h)
{
    return (h >> 40) != 0;
}
static inline uint32_t sc_rt_cond_default(unsigned long long h)
{
    return (uint32_t)h;
}
static inline uint32_t sc_rt_cond_flags(unsigned long long h)
{
    return (uint32_t)(h >> 32) & 0xffu;
}

/** The graphs node d holds, in body index order, through *out: a child
 *  graph node's graph, a conditional node's bodies; 0 for any other. */
static inline size_t sc_rt_node_bodies(const sc_rt_node_desc *d, cudaGraph_t const **out)
{
    *out = NULL;
    if (d->type == cudaGraphNodeTypeGraph && d->child) {
        *out = &d->child;
        return 1;
    }
    if (d->type == cudaGraphNodeTypeConditional && d->bodies) {
        *out = d->bodies;
        return d->nbodies;
    }
    return 0;
}

/** Make room in *p, an array of *cap items of `elem` bytes, for `need`
 *  items: the capacity doubles (from 8) until it does.  False, and
 *  nothing changed, when memory is short. */
static inline bool sc_rt_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t c = *cap ? *cap * 2 : 8;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * elem);
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

/* ----------------------------------------------------- runtime half */

/*
 * The way in and out of every exported call:
 *
 *     SC_RT_EXPORT cudaError_t cudaGetDeviceFlags(unsigned int *flags)
 *     {
 *         SC_RT_ENTER();                      // names the call
 *         if (!flags)
 *             SC_RT_RETURN(cudaErrorInvalidValue);
 *         sc_rt_state *st = SC_RT_LOCK();     // the process state, locked
 *         *flags = ...;
 *         SC_RT_RETURN(cudaSuccess);          // unlocks, records, traces
 *     }
 *
 * SC_RT_RETURN releases the lock when the call holds it, makes a result
 * other than cudaSuccess the thread's last error, and with
 * STREAMCAP_TRACE=1 prints the call and its result on stderr.
 * SC_RT_RETURN_KEEP does the same but leaves the last error alone (the
 * error queries themselves, cudaErrorNotReady of the query calls).  Taking
 * the lock is a step of its own because many calls check their arguments
 * first and must not create the process state for a call that fails them.
 */
typedef struct sc_rt_call {
    const char *name; /* the export, for the trace */
    bool locked;
} sc_rt_call;

struct sc_rt_state;
/** Take the lock for the call (once); returns the process state. */
struct sc_rt_state *sc_rt_call_lock(sc_rt_call *c);
/** Release the call's lock before its end (work that must run unlocked). */
void sc_rt_call_unlock(sc_rt_call *c);
/** The end of a call: unlock if locked, record err as the thread's last
 *  error when `record` and err is not cudaSuccess, trace; returns err. */
cudaError_t sc_rt_call_end(sc_rt_call *c, cudaError_t err, bool record);
/** The end of a call that has no cudaError_t result: unlock, trace. */
void sc_rt_call_leave(sc_rt_call *c);

#define SC_RT_ENTER()          sc_rt_call sc_call_ = {__func__, false}
#define SC_RT_CALL             (&sc_call_)
#define SC_RT_LOCK()           sc_rt_call_lock(SC_RT_CALL)
#define SC_RT_UNLOCK()         sc_rt_call_unlock(SC_RT_CALL)
#define SC_RT_RETURN(err)      return sc_rt_call_end(SC_RT_CALL, (err), true)
#define SC_RT_RETURN_KEEP(err) return sc_rt_call_end(SC_RT_CALL, (err), false)
/* The way out of an export that returns no cudaError_t (nvcc's
 * registration calls): unlock, trace; the caller then returns. */
#define SC_RT_LEAVE() sc_rt_call_leave(SC_RT_CALL)

/** The bare lock, for work inside a call that must run unlocked (a host
 *  function); exported calls go through SC_RT_LOCK. */
void sc_rt_lock(void);
void sc_rt_unlock(void);

/** Set the calling thread's last error (cudaGetLastError) unless err is
 *  cudaSuccess, and return err: for the helpers below an export, whose
 *  result may not reach SC_RT_RETURN unchanged. */
cudaError_t sc_rt_error(cudaError_t err);

/** The demangled device function name of a registered host stub, or a
 *  stable "kernel@0x..." text for one never registered. */
const char *sc_rt_kernel_name(const void *func);
/** A kernel node's copy of its parameter buffer (the values at the
 *  layout's offsets), NULL when it keeps the caller's pointers. */
const void *sc_rt_node_args(cudaGraphNode_t n, size_t *size);
/** The parameter layout of a kernel as its fat binary describes it, in
 *  ordinal order (lock held; valid until the stub is registered again); false when
 *  the binary carries none or the stub was never registered. */
bool sc_rt_kernel_params(const void *func, const sc_fb_param **params, size_t *n);
/** sc_rt_kernel_params, and per parameter whether the kernel's mangled
 *  name makes it a pointer or reference to const (*ro NULL when the name
 *  says nothing: not mangled, not readable, or another count). */
bool sc_rt_kernel_params_ro(const void *func, const sc_fb_param **params, size_t *n,
                            const bool **ro);

/** Resolve cudaMemcpyDefault from where dst and src live (cudaMalloc'd,
 *  managed, pinned or plain host memory); other kinds come back as given. */
enum cudaMemcpyKind sc_rt_memcpy_kind(void *dst, const void *src, enum cudaMemcpyKind kind);

/**
 * Issue work on a stream: captured when the stream is capturing (a node
 * in the model and in the capture's graph, streamed to the daemon; *out
 * the graph node, when out is not NULL), else performed now (copies and
 * memsets done, host functions run, kernels only counted; *out NULL).
 * The capture rules decide the error (docs/cuda-semantics.md §4.3).
 */
cudaError_t sc_rt_issue(cudaStream_t s, const sc_rt_node_desc *d, cudaGraphNode_t *out);

/** A copy of cudaMemcpy3D's form that names arrays made one between
 *  pitched pointers to the arrays' memory (positions and width then in
 *  bytes); a copy without arrays is left alone.  cudaErrorInvalidValue for
 *  a bad array, a window outside one, or arrays of different elements. */
struct cudaMemcpy3DParms;
cudaError_t sc_rt_copy3d_flatten(struct cudaMemcpy3DParms *p);

/** The bytes [offset, offset + count) of a registered __device__ variable
 *  (its host shadow, which is its memory here) in *at; cudaErrorInvalidSymbol
 *  for a symbol never registered, cudaErrorInvalidValue past its end. */
cudaError_t sc_rt_symbol_range(const void *symbol, size_t count, size_t offset, void **at);

/** The event was reached by a launched graph: record its host time. */
void sc_rt_event_reached(cudaEvent_t e);

/**
 * cudaGraphAddNode and friends on the graph of an active capture go
 * through the model (capture.add_node, §4.12): the node gets the next
 * capture node id and edges from `deps`.  Anything else is an error of
 * that rule (401, 901, 1).
 */
cudaError_t sc_rt_capture_add_node(cudaGraph_t g, const sc_rt_node_desc *d,
                                   const cudaGraphNode_t *deps, size_t ndeps, cudaGraphNode_t *out);

/**
 * A graph built by hand and instantiated: send it to the daemon
 * (graph.submit) when one is attached, and put it in the exit report.
 * Never waits for the daemon.
 */
void sc_rt_submit_graph(cudaGraph_t g);

/** The model stream a graph launch on s runs on, and whether that stream
 *  is capturing (the launch is then a node, not work done). */
uint32_t sc_rt_launch_stream(cudaStream_t s, bool *capturing);

/** Where the graph half keeps the device's graph memory pool: a slot of
 *  the process state, NULL until the graph half first fills it. */
void **sc_rt_graph_mem_slot(void);

/** cudaFree (stream SC_RT_ANY_STREAM) or cudaFreeAsync outside capture of
 *  p: when p is a live graph allocation (made by a launched mem-alloc node
 *  and not freed since), it is freed, its memory goes back to the graph
 *  pool, and the result is true.  Implemented by the graph half. */
#define SC_RT_ANY_STREAM UINT32_MAX
bool sc_rt_graph_mem_free(void *p, uint32_t stream);

/* ------------------------------------------------------- graph half */

/** A new empty graph (cudaGraphCreate without the export's checks). */
cudaError_t sc_rt_graph_new(cudaGraph_t *out);
/** Free a graph, its nodes and its child graphs. */
void sc_rt_graph_free(cudaGraph_t g);

/** Append a node with edges from the nodes at the given indexes; its index
 *  is the node count before the call.  No capture rule is applied.  A
 *  cudaGraphNodeTypeGraph node gets its own clone of d->child (the caller
 *  keeps d->child; sc_rt_node_desc_of gives the node's clone). */
cudaError_t sc_rt_graph_append(cudaGraph_t g, const sc_rt_node_desc *d, const uint32_t *deps,
                               size_t ndeps, cudaGraphNode_t *out);
/** Replace every edge of g by the n pairs (from[i] -> to[i]) of indexes. */
cudaError_t sc_rt_graph_set_edges(cudaGraph_t g, const uint32_t *from, const uint32_t *to,
                                  size_t n);
size_t sc_rt_graph_node_count(cudaGraph_t g);
/** Every edge of g as index pairs, in the order they were added; the
 *  arrays belong to g and stay valid until g changes.  (Hand-built graphs
 *  may have edges from a higher to a lower index.) */
void sc_rt_graph_edges(cudaGraph_t g, const uint32_t **from, const uint32_t **to, size_t *n);
/** The node at an index, NULL past the end. */
cudaGraphNode_t sc_rt_graph_node_at(cudaGraph_t g, uint32_t index);
/** A node's index in its graph, and its graph. */
uint32_t sc_rt_node_index(cudaGraphNode_t n);
cudaGraph_t sc_rt_node_graph(cudaGraphNode_t n);
/** A node's description (pointers stay owned by the node). */
const sc_rt_node_desc *sc_rt_node_desc_of(cudaGraphNode_t n);
/** A memcpy node made by a pitched copy (cudaMemcpy2DAsync, 3DAsync):
 *  the node keeps p (kind resolved) so that a launch copies row by row. */
struct cudaMemcpy3DParms;
void sc_rt_node_set_copy3d(cudaGraphNode_t n, const struct cudaMemcpy3DParms *p);

/**
 * Perform g now on the calling thread: its nodes in a topological order
 * honouring every edge; memcpy and memset nodes done on host memory,
 * host nodes called (with the lock released around the call, so a host
 * function that calls the runtime does not deadlock), child graphs run
 * recursively, event record nodes reach sc_rt_event_reached, kernels
 * counted, waits, empty, mem alloc and mem free nodes nothing to do (a
 * graph allocation's memory exists from the node's creation on).
 * sc_rt_issue calls this for a cudaGraphNodeTypeGraph description on a
 * stream that is not capturing: cudaGraphLaunch issues every launch
 * through sc_rt_issue with d->child the exec's graph.
 */
cudaError_t sc_rt_graph_run(cudaGraph_t g);

/** Mark g as the graph of capture `capture` (0: no longer capturing; the
 *  graph is then a plain graph that the program owns). */
void sc_rt_graph_set_capture(cudaGraph_t g, uint32_t capture);
/** The capture g belongs to while it is being captured, else 0. */
uint32_t sc_rt_graph_capture(cudaGraph_t g);
/** Drop the nodes at index n and above with every edge touching them (a
 *  capture into an existing graph that failed); g's contents then count as
 *  edited (stored again at its next instantiation). */
void sc_rt_graph_truncate(cudaGraph_t g, size_t n);

#endif
