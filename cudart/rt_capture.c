/*
 * rt_capture.c - stream work and the stream-capture calls, answered by the
 * in-process cuda-mode model (core/sc_cuda.h, docs/cuda-semantics.md) and
 * mirrored to the daemon.  Each capture owns a graph of the graph half
 * whose node indexes are the model's node ids, or, begun by
 * cudaStreamBeginCaptureToGraph, fills the program's graph (see the
 * section on it below).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_int.h"

static sc_memcpy_dir dir_of(enum cudaMemcpyKind k)
{
    switch (k) {
    case cudaMemcpyHostToDevice:
        return SC_DIR_HOST_TO_DEVICE;
    case cudaMemcpyDeviceToHost:
        return SC_DIR_DEVICE_TO_HOST;
    case cudaMemcpyDeviceToDevice:
        return SC_DIR_DEVICE_TO_DEVICE;
    case cudaMemcpyHostToHost:
        return (sc_memcpy_dir)SC_DIR_HOST_TO_HOST;
    default:
        return (sc_memcpy_dir)SC_DIR_DEFAULT;
    }
}

void sc_rt_desc_to_node(const sc_rt_node_desc *d, uint32_t stream, sc_node *n)
{
    memset(n, 0, sizeof *n);
    n->stream = stream;
    n->name = "";
    switch (d->type) {
    case cudaGraphNodeTypeKernel:
        n->kind = SC_KIND_KERNEL;
        n->name = sc_rt_kernel_name(d->func);
        n->num_blocks = d->grid.x;
        n->grid_y = d->grid.y;
        n->grid_z = d->grid.z;
        n->threads_per_block = d->block.x;
        n->block_y = d->block.y;
        n->block_z = d->block.z;
        n->shared_mem = d->shared_mem;
        break;
    case cudaGraphNodeTypeMemcpy:
        n->kind = SC_KIND_MEMCPY;
        n->dir = dir_of(d->kind);
        n->size_bytes = d->size;
        break;
    case cudaGraphNodeTypeMemset:
        n->kind = SC_KIND_MEMSET;
        n->size_bytes = d->size;
        n->value = (uint8_t)d->value;
        break;
    case cudaGraphNodeTypeHost:
        n->kind = SC_KIND_HOST_CALLBACK;
        break;
    /* A child graph node, and a graph launched into a capture (one node
     * holding the exec's graph): the body is sent when the capture ends,
     * as a conditional's are (below). */
    case cudaGraphNodeTypeGraph:
        n->kind = (sc_node_kind)SC_KIND_GRAPH;
        break;
    case cudaGraphNodeTypeMemAlloc:
        n->kind = (sc_node_kind)SC_KIND_MEM_ALLOC;
        n->size_bytes = d->size;
        break;
    case cudaGraphNodeTypeMemFree:
        n->kind = (sc_node_kind)SC_KIND_MEM_FREE;
        break;
    case cudaGraphNodeTypeEventRecord:
        n->kind = (sc_node_kind)SC_KIND_EVENT_RECORD;
        break;
    case cudaGraphNodeTypeWaitEvent:
        n->kind = (sc_node_kind)SC_KIND_EVENT_WAIT;
        break;
    case cudaGraphNodeTypeConditional:
        /* CUDA numbers the types as the model does (if 0, while 1, switch 2). */
        n->kind = (sc_node_kind)SC_KIND_CONDITIONAL;
        n->cond_type = (sc_cond_type)d->cond_type;
        n->cond_size = d->nbodies;
        n->cond_default = sc_rt_cond_default(d->cond_handle);
        n->cond_flags = sc_rt_cond_flags(d->cond_handle);
        break;
    default:
        n->kind = (sc_node_kind)SC_KIND_EMPTY;
        break;
    }
    if (n->name)
        n->name_len = strlen(n->name);
}

/* A host function outside capture runs now, without the lock, so that it
 * may wait on other threads (which CUDA allows; calling CUDA from it is
 * not, but does not deadlock here either). */
static void run_now(sc_rt_state *st, const sc_rt_node_desc *d)
{
    if (d->type == cudaGraphNodeTypeHost) {
        sc_rt_unlock();
        d->fn(d->user_data);
        sc_rt_lock();
    } else if (d->type == cudaGraphNodeTypeKernel) {
        st->launches++;
    } else if (d->type == cudaGraphNodeTypeGraph) {
        (void)sc_rt_graph_run(d->child); /* cudaGraphLaunch outside capture */
    } else {
        sc_rt_perform(d);
    }
}

cudaError_t sc_rt_issue_id(sc_rt_state *st, uint32_t stream, const sc_rt_node_desc *d,
                           const char *call, cudaGraphNode_t *out)
{
    sc_rt_thread *t = sc_rt_thread_get(st);
    if (out)
        *out = NULL;
    sc_node n;
    sc_rt_desc_to_node(d, stream, &n);
    if (d->type != cudaGraphNodeTypeKernel) {
        n.name = call;
        n.name_len = strlen(call);
    }
    uint32_t node = SC_CUDA_NO_NODE;
    int rc = sc_cuda_record(st->cu, stream, t->id, &n, &node);
    /* Outside every capture a record op is work done, nothing the daemon's
     * model keeps. */
    if (st->nactive)
        sc_rt_feed_record(st, stream, t->id, &n, rc ? call : NULL, d);
    if (rc != 0) {
        sc_rt_note_invalidations(st, call);
        return sc_rt_error(sc_rt_from_model(rc));
    }
    if (node == SC_CUDA_NO_NODE) {
        run_now(st, d);
        return cudaSuccess;
    }
    sc_rt_capture *cap = sc_rt_capture_slot(st, sc_rt_stream_capture(st, stream));
    if (!cap || !cap->graph)
        return cudaSuccess;
    return sc_rt_error(sc_rt_graph_append(cap->graph, d, NULL, 0, out));
}

cudaError_t sc_rt_issue(cudaStream_t s, const sc_rt_node_desc *d, cudaGraphNode_t *out)
{
    static const char *const names[] = {
        [cudaGraphNodeTypeKernel] = "cudaLaunchKernel",
        [cudaGraphNodeTypeMemcpy] = "cudaMemcpyAsync",
        [cudaGraphNodeTypeMemset] = "cudaMemsetAsync",
        [cudaGraphNodeTypeHost] = "cudaLaunchHostFunc",
        [cudaGraphNodeTypeMemAlloc] = "cudaMallocAsync",
        [cudaGraphNodeTypeMemFree] = "cudaFreeAsync",
    };
    const char *call = (unsigned)d->type < sizeof names / sizeof *names && names[d->type]
                           ? names[d->type]
                           : "cudaGraphLaunch";
    sc_rt_state *st = sc_rt_state_get();
    sc_rt_lock();
    cudaError_t e = sc_rt_issue_id(st, sc_rt_stream_id(st, s, false), d, call, out);
    sc_rt_unlock();
    return e;
}

/* --------------------------------------- capturing into an existing graph
 *
 * cudaStreamBeginCaptureToGraph: the capture's graph is the program's.
 * Its nodes become the model capture's first nodes (capture.add_node,
 * which never count as unjoined, with their edges), the given dependencies
 * the origin's set (capture.update_dependencies, set), so the model, the
 * daemon's mirror and the stored graph see existing and captured nodes
 * alike.  Model ids are graph indexes except for existing nodes whose
 * index order was not topological (to_model / to_index).
 */

/** What cudaStreamBeginCaptureToGraph adds to a begin. */
typedef struct sc_rt_target {
    cudaGraph_t graph;
    const cudaGraphNode_t *deps;
    size_t ndeps;
} sc_rt_target;

/** The target graph's nodes, worked out before the model is touched. */
typedef struct seed_plan {
    uint32_t base;                 /* nodes in the graph */
    uint32_t *to_model, *to_index; /* NULL: index order is topological */
    uint32_t *in_start, *in_from;  /* incoming edges by index, `from` as model ids */
    uint32_t *dep_ids;             /* the given dependencies as model ids */
    size_t ndeps;
} seed_plan;

uint32_t sc_rt_model_of(const sc_rt_capture *cap, uint32_t index)
{
    return cap && cap->to_model && index < cap->base ? cap->to_model[index] : index;
}

static uint32_t index_of(const sc_rt_capture *cap, uint32_t id)
{
    return cap && cap->to_index && id < cap->base ? cap->to_index[id] : id;
}

static void plan_free(seed_plan *p)
{
    free(p->to_model);
    free(p->to_index);
    free(p->in_start);
    free(p->in_from);
    free(p->dep_ids);
    memset(p, 0, sizeof *p);
}

/* A topological order of n nodes (Kahn's, index order among the ready),
 * only when some edge goes from a higher to a lower index: a graph built
 * in order keeps its numbering. */
static cudaError_t plan_order(seed_plan *p, size_t n, const uint32_t *from, const uint32_t *to,
                              size_t m)
{
    size_t back = 0;
    while (back < m && from[back] < to[back])
        back++;
    if (back == m)
        return cudaSuccess;
    uint32_t *start = calloc(n + 1, sizeof *start);
    uint32_t *cur = malloc((n ? n : 1) * sizeof *cur);
    uint32_t *adj = malloc((m ? m : 1) * sizeof *adj);
    uint32_t *indeg = calloc(n ? n : 1, sizeof *indeg);
    p->to_index = malloc((n ? n : 1) * sizeof *p->to_index);
    p->to_model = malloc((n ? n : 1) * sizeof *p->to_model);
    cudaError_t e = start && cur && adj && indeg && p->to_index && p->to_model
                        ? cudaSuccess
                        : cudaErrorMemoryAllocation;
    size_t tail = 0;
    if (e == cudaSuccess) {
        for (size_t i = 0; i < m; i++) {
            start[from[i] + 1]++;
            indeg[to[i]]++;
        }
        for (size_t i = 0; i < n; i++) {
            start[i + 1] += start[i];
            cur[i] = start[i];
        }
        for (size_t i = 0; i < m; i++)
            adj[cur[from[i]]++] = to[i];
        uint32_t *q = p->to_index; /* the queue is the order */
        for (uint32_t i = 0; i < n; i++)
            if (!indeg[i])
                q[tail++] = i;
        for (size_t head = 0; head < tail; head++)
            for (uint32_t k = start[q[head]]; k < start[q[head] + 1]; k++)
                if (--indeg[adj[k]] == 0)
                    q[tail++] = adj[k];
        if (tail != n)
            e = cudaErrorInvalidValue; /* a cycle: no capture can extend it */
        for (size_t id = 0; e == cudaSuccess && id < n; id++)
            p->to_model[q[id]] = (uint32_t)id;
    }
    free(start);
    free(cur);
    free(adj);
    free(indeg);
    return e;
}

static cudaError_t plan_target(const sc_rt_target *tg, seed_plan *p)
{
    cudaGraph_t g = tg->graph;
    if (sc_rt_graph_capture(g))
        return cudaErrorIllegalState; /* a capture is filling it already */
    size_t n = sc_rt_graph_node_count(g);
    const uint32_t *from, *to;
    size_t m;
    sc_rt_graph_edges(g, &from, &to, &m);
    if (n >= UINT32_MAX)
        return cudaErrorMemoryAllocation;
    p->base = (uint32_t)n;
    cudaError_t e = plan_order(p, n, from, to, m);
    sc_rt_capture view = {.base = p->base, .to_model = p->to_model, .to_index = p->to_index};
    if (e == cudaSuccess) {
        p->dep_ids = malloc((tg->ndeps ? tg->ndeps : 1) * sizeof *p->dep_ids);
        p->in_start = calloc(n + 1, sizeof *p->in_start);
        p->in_from = malloc((m ? m : 1) * sizeof *p->in_from);
        if (!p->dep_ids || !p->in_start || !p->in_from)
            e = cudaErrorMemoryAllocation;
    }
    for (size_t i = 0; e == cudaSuccess && i < tg->ndeps; i++) {
        if (!tg->deps[i] || sc_rt_node_graph(tg->deps[i]) != g)
            e = cudaErrorInvalidValue;
        else
            p->dep_ids[i] = sc_rt_model_of(&view, sc_rt_node_index(tg->deps[i]));
    }
    p->ndeps = tg->ndeps;
    uint32_t *cur = e == cudaSuccess ? calloc(n ? n : 1, sizeof *cur) : NULL;
    if (e == cudaSuccess && !cur)
        e = cudaErrorMemoryAllocation;
    if (e == cudaSuccess) {
        for (size_t i = 0; i < m; i++)
            p->in_start[to[i] + 1]++;
        for (size_t i = 0; i < n; i++)
            p->in_start[i + 1] += p->in_start[i];
        for (size_t i = 0; i < m; i++)
            p->in_from[p->in_start[to[i]] + cur[to[i]]++] = sc_rt_model_of(&view, from[i]);
    }
    free(cur);
    if (e != cudaSuccess)
        plan_free(p);
    return e;
}

/* The name an existing node has in the model and the stored graph: the
 * call that adds such a node by hand, as graph.submit names it. */
const char *sc_rt_added_name(enum cudaGraphNodeType t)
{
    static const char *const names[] = {
        [cudaGraphNodeTypeKernel] = "cudaGraphAddKernelNode",
        [cudaGraphNodeTypeMemcpy] = "cudaGraphAddMemcpyNode",
        [cudaGraphNodeTypeMemset] = "cudaGraphAddMemsetNode",
        [cudaGraphNodeTypeHost] = "cudaGraphAddHostNode",
        [cudaGraphNodeTypeGraph] = "cudaGraphAddChildGraphNode",
        [cudaGraphNodeTypeEmpty] = "cudaGraphAddEmptyNode",
        [cudaGraphNodeTypeWaitEvent] = "cudaGraphAddEventWaitNode",
        [cudaGraphNodeTypeEventRecord] = "cudaGraphAddEventRecordNode",
        [cudaGraphNodeTypeMemAlloc] = "cudaGraphAddMemAllocNode",
        [cudaGraphNodeTypeMemFree] = "cudaGraphAddMemFreeNode",
    };
    return (unsigned)t < sizeof names / sizeof *names && names[t] ? names[t] : "cudaGraphAddNode";
}

static void capture_ended(sc_rt_state *st, uint32_t capture);

/* The model ran out of memory half-way through the seeding: end the
 * capture on both sides (failed) and give the program its graph back. */
static void abandon(sc_rt_state *st, sc_rt_capture *cap, uint32_t capture, uint32_t stream,
                    uint32_t thread)
{
    (void)sc_cuda_update_dependencies(st->cu, stream, thread, NULL, 0, SC_CUDA_DEPS_SET);
    sc_rt_feed_update_deps(st, stream, thread, NULL, 0, true);
    sc_cuda_end_result res;
    (void)sc_cuda_end(st->cu, stream, thread, &res);
    sc_cuda_end_free(&res);
    sc_rt_feed_end(st, stream, thread, capture, NULL);
    cap->outcome = SC_RT_OUT_FAILED;
    cap->error = cudaErrorMemoryAllocation;
    sc_rt_graph_set_capture(cap->graph, 0);
    sc_rt_graph_truncate(cap->graph, cap->base);
    cap->graph = NULL;
    capture_ended(st, capture);
}

static cudaError_t seed(sc_rt_state *st, sc_rt_capture *cap, uint32_t capture, uint32_t stream,
                        uint32_t thread, cudaGraph_t g, seed_plan *p)
{
    cap->to_graph = true;
    cap->base = p->base;
    int rc = 0;
    for (uint32_t id = 0; rc == 0 && id < p->base; id++) {
        uint32_t at = p->to_index ? p->to_index[id] : id;
        const sc_rt_node_desc *d = sc_rt_node_desc_of(sc_rt_graph_node_at(g, at));
        sc_node n;
        sc_rt_desc_to_node(d, stream, &n);
        if (d->type != cudaGraphNodeTypeKernel) {
            n.name = sc_rt_added_name(d->type);
            n.name_len = strlen(n.name);
        }
        const uint32_t *deps = p->in_from + p->in_start[at];
        size_t ndeps = p->in_start[at + 1] - p->in_start[at];
        uint32_t node = SC_CUDA_NO_NODE;
        rc = sc_cuda_add_node(st->cu, stream, thread, &n, deps, ndeps, &node);
        if (rc == 0)
            sc_rt_feed_add_node(st, stream, thread, d, sc_rt_graph_node_at(g, at), deps, ndeps);
    }
    if (rc == 0 && p->ndeps) {
        rc = sc_cuda_update_dependencies(st->cu, stream, thread, p->dep_ids, p->ndeps,
                                         SC_CUDA_DEPS_SET);
        if (rc == 0)
            sc_rt_feed_update_deps(st, stream, thread, p->dep_ids, p->ndeps, true);
    }
    if (rc != 0) {
        abandon(st, cap, capture, stream, thread);
        return cudaErrorMemoryAllocation; /* the only way the model refuses these */
    }
    cap->to_model = p->to_model;
    cap->to_index = p->to_index;
    p->to_model = p->to_index = NULL;
    return cudaSuccess;
}

/* ----------------------------------------------------------- begin / end */

static cudaError_t caps_reserve(sc_rt_state *st, uint32_t capture)
{
    if (capture < st->caps_cap)
        return cudaSuccess;
    size_t cap = st->caps_cap ? st->caps_cap * 2 : 16;
    while (cap <= capture)
        cap *= 2;
    sc_rt_capture *c = realloc(st->caps, cap * sizeof *c);
    if (!c)
        return cudaErrorMemoryAllocation;
    memset(c + st->caps_cap, 0, (cap - st->caps_cap) * sizeof *c);
    st->caps = c;
    st->caps_cap = cap;
    return cudaSuccess;
}

static cudaError_t begin(sc_rt_call *c, cudaStream_t s, enum cudaStreamCaptureMode mode, bool ptsz,
                         const sc_rt_target *tg)
{
    if ((unsigned)mode > cudaStreamCaptureModeRelaxed)
        return cudaErrorInvalidValue;
    sc_rt_state *st = sc_rt_call_lock(c);
    sc_rt_thread *t = sc_rt_thread_get(st);
    uint32_t stream = sc_rt_stream_id(st, s, ptsz);
    cudaGraph_t g = tg ? tg->graph : NULL;
    seed_plan plan = {0};
    cudaError_t e = caps_reserve(st, st->ncaps + 1);
    if (e == cudaSuccess)
        e = tg ? plan_target(tg, &plan) : sc_rt_graph_new(&g);
    uint32_t capture = 0;
    if (e == cudaSuccess) {
        int rc = sc_cuda_begin(st->cu, stream, (sc_cuda_mode)mode, t->id, &capture);
        e = sc_rt_from_model(rc);
        if (rc == 0)
            e = sc_rt_stream_set_capture(st, stream, capture);
    }
    if (e != cudaSuccess) {
        if (g && !tg)
            sc_rt_graph_free(g);
        plan_free(&plan);
        return e;
    }
    sc_rt_feed_begin(st, stream, t->id, (sc_cuda_mode)mode);
    st->ncaps = capture;
    st->nactive++;
    sc_rt_capture *cap = &st->caps[capture];
    memset(cap, 0, sizeof *cap);
    cap->graph = g;
    cap->mode = (sc_cuda_mode)mode;
    sc_rt_graph_set_capture(g, capture);
    if (tg)
        e = seed(st, cap, capture, stream, t->id, g, &plan);
    plan_free(&plan);
    return e;
}

SC_RT_EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t stream,
                                                enum cudaStreamCaptureMode mode)
{
    SC_RT_ENTER();
    SC_RT_RETURN(begin(SC_RT_CALL, stream, mode, false, NULL));
}

SC_RT_EXPORT cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream,
                                                     enum cudaStreamCaptureMode mode)
{
    SC_RT_ENTER();
    SC_RT_RETURN(begin(SC_RT_CALL, stream, mode, true, NULL));
}

static cudaError_t begin_to_graph(sc_rt_call *c, cudaStream_t s, cudaGraph_t graph,
                                  const cudaGraphNode_t *deps, const cudaGraphEdgeData *data,
                                  size_t ndeps, enum cudaStreamCaptureMode mode, bool ptsz)
{
    if (!graph || (ndeps && !deps))
        return cudaErrorInvalidValue;
    for (size_t i = 0; data && i < ndeps; i++)
        if (data[i].from_port || data[i].to_port || data[i].type)
            return cudaErrorNotSupported;
    sc_rt_target tg = {graph, deps, ndeps};
    return begin(c, s, mode, ptsz, &tg);
}

SC_RT_EXPORT cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                                       const cudaGraphNode_t *dependencies,
                                                       const cudaGraphEdgeData *dependencyData,
                                                       size_t numDependencies,
                                                       enum cudaStreamCaptureMode mode)
{
    SC_RT_ENTER();
    SC_RT_RETURN(begin_to_graph(SC_RT_CALL, stream, graph, dependencies, dependencyData,
                                numDependencies, mode, false));
}

SC_RT_EXPORT cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t stream, cudaGraph_t graph,
                                                            const cudaGraphNode_t *dependencies,
                                                            const cudaGraphEdgeData *dependencyData,
                                                            size_t numDependencies,
                                                            enum cudaStreamCaptureMode mode)
{
    SC_RT_ENTER();
    SC_RT_RETURN(begin_to_graph(SC_RT_CALL, stream, graph, dependencies, dependencyData,
                                numDependencies, mode, true));
}

/* The capture has ended (completed or failed): its streams leave it. */
static void capture_ended(sc_rt_state *st, uint32_t capture)
{
    for (size_t i = 0; i < st->stream_cap_len; i++)
        if (st->stream_cap[i] == capture)
            st->stream_cap[i] = 0;
    st->nactive--;
}

static cudaError_t hand_over(sc_rt_state *st, sc_rt_capture *cap, const sc_graph *sg)
{
    uint64_t m = sc_graph_edge_count(sg);
    uint32_t *from = malloc((m ? m : 1) * sizeof *from);
    uint32_t *to = malloc((m ? m : 1) * sizeof *to);
    cudaError_t e = from && to ? cudaSuccess : cudaErrorMemoryAllocation;
    for (uint64_t i = 0; e == cudaSuccess && i < m; i++) {
        if (sc_graph_edge(sg, i, &from[i], &to[i]) != 0)
            e = cudaErrorUnknown;
        from[i] = index_of(cap, from[i]);
        to[i] = index_of(cap, to[i]);
    }
    if (e == cudaSuccess)
        e = sc_rt_graph_set_edges(cap->graph, from, to, (size_t)m);
    free(from);
    free(to);
    cap->nodes = sc_graph_node_count(sg);
    cap->edges = m;
    (void)st;
    return e;
}

/* The streams a 904 names, as the report's JSON.  NULL when there are none
 * or memory ran out (the report then goes without them). */
static char *unjoined_json(const sc_cuda_end_result *res)
{
    if (!res->nunjoined)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fputc('[', f);
    for (uint32_t i = 0; i < res->nunjoined; i++) {
        const sc_cuda_unjoined *u = &res->unjoined[i];
        fprintf(f, "%s{\"stream\":%u,\"nodes\":[", i ? "," : "", u->stream);
        for (uint32_t j = 0; j < u->count; j++)
            fprintf(f, "%s%u", j ? "," : "", u->nodes[j]);
        fputs("]}", f);
    }
    fputc(']', f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Whether stream's capture fills a graph the program has: its end may
 * then pass no pGraph, since the program holds the graph (CUDA's
 * graphConditionalNodes sample ends such captures so). */
static bool captures_to_graph(sc_rt_state *st, uint32_t stream, uint32_t thread)
{
    sc_cuda_info info;
    if (sc_cuda_info_get(st->cu, stream, thread, &info) != 0 || !info.capture)
        return false;
    sc_rt_capture *cap = sc_rt_capture_slot(st, info.capture);
    return cap && cap->to_graph;
}

static cudaError_t end(sc_rt_call *c, cudaStream_t s, cudaGraph_t *pGraph, bool ptsz)
{
    cudaGraph_t none;
    if (pGraph)
        *pGraph = NULL;
    sc_rt_state *st = sc_rt_call_lock(c);
    sc_rt_thread *t = sc_rt_thread_get(st);
    uint32_t stream = sc_rt_stream_id(st, s, ptsz);
    if (!pGraph && !captures_to_graph(st, stream, t->id))
        return cudaErrorInvalidValue;
    if (!pGraph)
        pGraph = &none;
    sc_cuda_end_result res;
    int rc = sc_cuda_end(st->cu, stream, t->id, &res);
    sc_rt_capture *cap = sc_rt_capture_slot(st, res.capture);
    /* A graph stored goes with the bodies its nodes hold. */
    if (res.capture && rc != SC_ENOMEM)
        sc_rt_feed_end(st, stream, t->id, res.capture, rc == 0 ? cap : NULL);
    cudaError_t e = sc_rt_from_model(rc);
    sc_cuda_capture_info info;
    bool ended = cap && sc_cuda_capture_get(st->cu, res.capture, &info) == 0 &&
                 info.state >= SC_CUDA_STATE_COMPLETED;
    if (rc == 0 && cap) {
        e = hand_over(st, cap, res.graph);
        sc_rt_graph_set_capture(cap->graph, 0);
        *pGraph = cap->graph;
        cap->graph = NULL;
        if (cap->outcome == SC_RT_OUT_RUNNING)
            cap->outcome = SC_RT_OUT_KEPT;
    } else if (ended && cap) {
        cap->outcome = SC_RT_OUT_FAILED;
        cap->error = e;
        cap->nodes = info.node_count;
        cap->unjoined = unjoined_json(&res);
        if (cap->to_graph) {
            /* The program's graph goes back to what it had. */
            sc_rt_graph_set_capture(cap->graph, 0);
            sc_rt_graph_truncate(cap->graph, cap->base);
        } else {
            sc_rt_graph_free(cap->graph);
        }
        cap->graph = NULL;
    } else if (rc != 0) {
        sc_rt_note_invalidations(st, "cudaStreamEndCapture");
    }
    if (ended)
        capture_ended(st, res.capture);
    if (ended && cap) {
        free(cap->to_model);
        free(cap->to_index);
        cap->to_model = cap->to_index = NULL;
    }
    sc_cuda_end_free(&res);
    return e;
}

SC_RT_EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
    SC_RT_ENTER();
    SC_RT_RETURN(end(SC_RT_CALL, stream, pGraph, false));
}

SC_RT_EXPORT cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph)
{
    SC_RT_ENTER();
    SC_RT_RETURN(end(SC_RT_CALL, stream, pGraph, true));
}

/* --------------------------------------------------------------- queries */

static enum cudaStreamCaptureStatus status_of(sc_cuda_status s)
{
    return s == SC_CUDA_STATUS_ACTIVE        ? cudaStreamCaptureStatusActive
           : s == SC_CUDA_STATUS_INVALIDATED ? cudaStreamCaptureStatusInvalidated
                                             : cudaStreamCaptureStatusNone;
}

static cudaError_t is_capturing(sc_rt_call *c, cudaStream_t s, enum cudaStreamCaptureStatus *out,
                                bool ptsz)
{
    if (!out)
        return cudaErrorInvalidValue;
    sc_rt_state *st = sc_rt_call_lock(c);
    sc_rt_thread *t = sc_rt_thread_get(st);
    sc_cuda_info info;
    int rc = sc_cuda_info_get(st->cu, sc_rt_stream_id(st, s, ptsz), t->id, &info);
    if (rc == 0)
        *out = status_of(info.status);
    return sc_rt_from_model(rc);
}

SC_RT_EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                               enum cudaStreamCaptureStatus *pCaptureStatus)
{
    SC_RT_ENTER();
    SC_RT_RETURN(is_capturing(SC_RT_CALL, stream, pCaptureStatus, false));
}

SC_RT_EXPORT cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                                    enum cudaStreamCaptureStatus *pCaptureStatus)
{
    SC_RT_ENTER();
    SC_RT_RETURN(is_capturing(SC_RT_CALL, stream, pCaptureStatus, true));
}

static cudaError_t info_arrays(sc_rt_thread *t, size_t n)
{
    if (n <= t->info_cap)
        return cudaSuccess;
    size_t cap = t->info_cap ? t->info_cap : 16;
    while (cap < n)
        cap *= 2;
    cudaGraphNode_t *nodes = realloc(t->info_nodes, cap * sizeof *nodes);
    if (!nodes)
        return cudaErrorMemoryAllocation;
    t->info_nodes = nodes;
    cudaGraphEdgeData *edges = realloc(t->info_edges, cap * sizeof *edges);
    if (!edges)
        return cudaErrorMemoryAllocation;
    memset(edges, 0, cap * sizeof *edges);
    t->info_edges = edges;
    t->info_cap = cap;
    return cudaSuccess;
}

static cudaError_t capture_info(sc_rt_call *c, cudaStream_t s, enum cudaStreamCaptureStatus *status,
                                unsigned long long *id, cudaGraph_t *graph,
                                const cudaGraphNode_t **deps, const cudaGraphEdgeData **edges,
                                size_t *ndeps, bool ptsz)
{
    if (!status)
        return cudaErrorInvalidValue;
    sc_rt_state *st = sc_rt_call_lock(c);
    sc_rt_thread *t = sc_rt_thread_get(st);
    sc_cuda_info info;
    int rc = sc_cuda_info_get(st->cu, sc_rt_stream_id(st, s, ptsz), t->id, &info);
    cudaError_t e = sc_rt_from_model(rc);
    if (rc == 0) {
        *status = status_of(info.status);
        bool active = info.status == SC_CUDA_STATUS_ACTIVE;
        sc_rt_capture *cap = active ? sc_rt_capture_slot(st, info.capture) : NULL;
        size_t n = active ? info.ndeps : 0;
        if (n)
            e = info_arrays(t, n);
        for (size_t i = 0; e == cudaSuccess && i < n; i++)
            t->info_nodes[i] = cap && cap->graph
                                   ? sc_rt_graph_node_at(cap->graph, index_of(cap, info.deps[i]))
                                   : NULL;
        if (id && active)
            *id = info.capture;
        if (graph && active)
            *graph = cap ? cap->graph : NULL;
        if (deps && active)
            *deps = n ? t->info_nodes : NULL;
        if (edges && active)
            *edges = n ? t->info_edges : NULL;
        if (ndeps && active)
            *ndeps = n;
    }
    return e;
}

SC_RT_EXPORT cudaError_t cudaStreamGetCaptureInfo(
    cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
    unsigned long long *id_out, cudaGraph_t *graph_out, const cudaGraphNode_t **dependencies_out,
    const cudaGraphEdgeData **edgeData_out, size_t *numDependencies_out)
{
    SC_RT_ENTER();
    SC_RT_RETURN(capture_info(SC_RT_CALL, stream, captureStatus_out, id_out, graph_out,
                              dependencies_out, edgeData_out, numDependencies_out, false));
}

SC_RT_EXPORT cudaError_t cudaStreamGetCaptureInfo_ptsz(
    cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
    unsigned long long *id_out, cudaGraph_t *graph_out, const cudaGraphNode_t **dependencies_out,
    const cudaGraphEdgeData **edgeData_out, size_t *numDependencies_out)
{
    SC_RT_ENTER();
    SC_RT_RETURN(capture_info(SC_RT_CALL, stream, captureStatus_out, id_out, graph_out,
                              dependencies_out, edgeData_out, numDependencies_out, true));
}

/* The model ids of node handles of capture `capture`'s graph; false when
 * one belongs to another graph. */
static bool node_ids(sc_rt_state *st, uint32_t capture, cudaGraphNode_t *nodes, size_t n,
                     uint32_t *ids)
{
    sc_rt_capture *cap = sc_rt_capture_slot(st, capture);
    for (size_t i = 0; i < n; i++) {
        if (!nodes[i] || !cap || sc_rt_node_graph(nodes[i]) != cap->graph)
            return false;
        ids[i] = sc_rt_model_of(cap, sc_rt_node_index(nodes[i]));
    }
    return true;
}

static cudaError_t update_deps(sc_rt_call *c, cudaStream_t s, cudaGraphNode_t *deps, size_t n,
                               unsigned int flags, bool ptsz)
{
    if (flags > cudaStreamSetCaptureDependencies || (n && !deps))
        return cudaErrorInvalidValue;
    sc_rt_state *st = sc_rt_call_lock(c);
    sc_rt_thread *t = sc_rt_thread_get(st);
    uint32_t stream = sc_rt_stream_id(st, s, ptsz);
    uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    cudaError_t e = cudaSuccess;
    uint32_t capture = sc_rt_stream_capture(st, stream);
    if (!ids) {
        e = cudaErrorMemoryAllocation;
    } else if (capture && !node_ids(st, capture, deps, n, ids)) {
        e = cudaErrorInvalidValue;
    } else {
        /* Not in a capture: the model answers (401) with no ids to read. */
        size_t k = capture ? n : 0;
        sc_cuda_deps how = flags ? SC_CUDA_DEPS_SET : SC_CUDA_DEPS_ADD;
        int rc = sc_cuda_update_dependencies(st->cu, stream, t->id, ids, k, how);
        if (capture)
            sc_rt_feed_update_deps(st, stream, t->id, ids, k, flags != 0);
        e = sc_rt_from_model(rc);
    }
    free(ids);
    return e;
}

SC_RT_EXPORT cudaError_t cudaStreamUpdateCaptureDependencies(
    cudaStream_t stream, cudaGraphNode_t *dependencies, const cudaGraphEdgeData *dependencyData,
    size_t numDependencies, unsigned int flags)
{
    SC_RT_ENTER();
    (void)dependencyData;
    SC_RT_RETURN(update_deps(SC_RT_CALL, stream, dependencies, numDependencies, flags, false));
}

SC_RT_EXPORT cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(
    cudaStream_t stream, cudaGraphNode_t *dependencies, const cudaGraphEdgeData *dependencyData,
    size_t numDependencies, unsigned int flags)
{
    SC_RT_ENTER();
    (void)dependencyData;
    SC_RT_RETURN(update_deps(SC_RT_CALL, stream, dependencies, numDependencies, flags, true));
}

SC_RT_EXPORT cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
    SC_RT_ENTER();
    if (!mode || (unsigned)*mode > cudaStreamCaptureModeRelaxed)
        SC_RT_RETURN(cudaErrorInvalidValue);
    sc_rt_state *st = SC_RT_LOCK();
    sc_rt_thread *t = sc_rt_thread_get(st);
    sc_cuda_mode prev = SC_CUDA_GLOBAL;
    int rc = sc_cuda_exchange_mode(st->cu, t->id, (sc_cuda_mode)*mode, &prev);
    if (rc == 0) {
        sc_rt_feed_exchange_mode(st, t->id, (sc_cuda_mode)*mode);
        *mode = (enum cudaStreamCaptureMode)prev;
    }
    SC_RT_RETURN(sc_rt_from_model(rc));
}

cudaError_t sc_rt_capture_add_node(cudaGraph_t g, const sc_rt_node_desc *d,
                                   const cudaGraphNode_t *deps, size_t ndeps, cudaGraphNode_t *out)
{
    sc_rt_state *st = sc_rt_state_get();
    uint32_t capture = sc_rt_graph_capture(g);
    sc_cuda_capture_info info;
    if (!capture || sc_cuda_capture_get(st->cu, capture, &info) != 0)
        return sc_rt_error(cudaErrorIllegalState);
    uint32_t *ids = malloc((ndeps ? ndeps : 1) * sizeof *ids);
    if (!ids)
        return sc_rt_error(cudaErrorMemoryAllocation);
    cudaError_t e = node_ids(st, capture, (cudaGraphNode_t *)deps, ndeps, ids)
                        ? cudaSuccess
                        : cudaErrorInvalidValue;
    if (e == cudaSuccess) {
        sc_rt_thread *t = sc_rt_thread_get(st);
        sc_node n;
        sc_rt_desc_to_node(d, info.origin, &n);
        uint32_t node = SC_CUDA_NO_NODE;
        int rc = sc_cuda_add_node(st->cu, info.origin, t->id, &n, ids, ndeps, &node);
        sc_rt_feed_add_node(st, info.origin, t->id, d, NULL, ids, ndeps);
        e = sc_rt_from_model(rc);
        sc_rt_capture *cap = sc_rt_capture_slot(st, capture);
        for (size_t i = 0; i < ndeps; i++)
            ids[i] = index_of(cap, ids[i]);
        if (rc == 0)
            e = sc_rt_graph_append(g, d, ids, ndeps, out);
    }
    free(ids);
    return sc_rt_error(e);
}
