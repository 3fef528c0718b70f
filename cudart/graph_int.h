/*
 * graph_int.h - the graph half's own objects, shared by graph*.c only.
 *
 * A graph is an array of nodes (a node's index is its position) and an
 * array of edges as index pairs in the order they were added.  Every
 * function here expects the process lock held (rt.h).
 */
#ifndef SC_CUDART_GRAPH_INT_H
#define SC_CUDART_GRAPH_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi_graph.h"
#include "abi_rt.h"
#include "rt.h"

/** Memory a mem-alloc node of the graph API hands out.  Its address is
 *  fixed when the node is added (CUDA returns dptr then), so clones and
 *  execs of the graph share it; the last holder frees it. */
typedef struct sc_g_block {
    size_t refs;
    void *mem;
    size_t size;
} sc_g_block;

/* Every export: rt.h's way in and out around the work (the process lock,
 * the last error cudaGetLastError sees, the trace). */
#define SC_G_LOCKED(call)                                                                          \
    do {                                                                                           \
        SC_RT_ENTER();                                                                             \
        SC_RT_LOCK();                                                                              \
        SC_RT_RETURN(call);                                                                        \
    } while (0)

/** What a graph's present contents are, shared by a graph and its clones
 *  until either is edited: whether a capture made them (the daemon then
 *  has them already) and whether they were submitted by hand. */
typedef struct sc_g_state {
    size_t refs;
    bool from_capture;
    bool submitted;
} sc_g_state;

struct CUgraphNode_st {
    cudaGraph_t graph;
    uint32_t index;
    sc_rt_node_desc d;
    /* Memcpy nodes: the full copy as the program gave it (d has the
     * resolved kind and the byte count). */
    struct cudaMemcpy3DParms copy;
    /* Kernel nodes: kernelParams points into args_block, the node's copy
     * of the values, where the kernel's layout is known (graph_args.c),
     * else it is the caller's array; extra is always the caller's. */
    void **kernel_params, **extra;
    void **args_block;
    size_t args_bytes, args_size; /* the block; the parameter buffer in it */
    /* Mem alloc nodes: the pool properties as given, and the block when
     * the graph API allocated it (NULL when the runtime did). */
    struct cudaMemPoolProps pool;
    sc_g_block *block;
    /* Kernel nodes: launch attributes set on the node (graph_attr.c). */
    cudaLaunchAttribute *attrs;
    size_t nattrs;
    /* Exec copies: cudaGraphNodeSetEnabled(0) makes the node a no-op. */
    bool disabled;
};

/** A user object's references held by a graph (graph_uobj.c). */
typedef struct sc_g_uref {
    cudaUserObject_t obj;
    unsigned int count;
} sc_g_uref;

#define SC_G_MAGIC 0x53434752u /* "SCGR" */

struct CUgraph_st {
    uint32_t magic;
    cudaGraphNode_t *nodes;
    size_t n, cap;
    uint32_t *from, *to;
    size_t ne, cap_e;
    uint32_t capture;
    bool owned; /* a node's child graph: the program may not destroy it */
    /* A conditional's body: the graph of the node that holds it, whose
     * stored contents change when the body's do (sc_g_touch). */
    cudaGraph_t holder;
    sc_g_state *state;
    uint64_t kernels_run; /* kernel nodes reached by launches */
    sc_g_uref *urefs;     /* user objects the graph holds references to */
    size_t nurefs;
};

#define SC_GX_MAGIC 0x53434758u /* "SCGX" */

struct CUgraphExec_st {
    uint32_t magic;
    cudaGraph_t g; /* the exec's own copy, never the program's graph */
    unsigned long long flags;
    uint64_t launches;
};

/* What a node keeps beyond its description. */
typedef struct node_extra {
    struct cudaMemcpy3DParms copy;
    void **kernel_params, **extra;
    struct cudaMemPoolProps pool;
    sc_g_block *block;      /* handed to the node on success */
    bool move_child;        /* cudaGraphChildGraphOwnershipMove */
    cudaGraph_t **cond_out; /* a conditional's phGraph_out, set once it is made */
} node_extra;

/** Descriptions from the program's parameters, checked as CUDA checks
 *  them (graph_api.c; the SetParams calls use them too). */
cudaError_t sc_g_kernel_desc(sc_rt_node_desc *d, node_extra *x,
                             const struct cudaKernelNodeParams *p);
cudaError_t sc_g_memcpy3d_desc(sc_rt_node_desc *d, node_extra *x,
                               const struct cudaMemcpy3DParms *p);
cudaError_t sc_g_memset_desc(sc_rt_node_desc *d, const struct cudaMemsetParams *p);
/* A 1-D copy (cudaGraphAddMemcpyNode1D and the 1-D setters): kind resolved. */
cudaError_t sc_g_memcpy1d_desc(sc_rt_node_desc *d, void *dst, const void *src, size_t count,
                               enum cudaMemcpyKind kind);
cudaError_t sc_g_host_desc(sc_rt_node_desc *d, const struct cudaHostNodeParams *p);

/* Conditional nodes (graph_cond.c). */
/** The description of cudaGraphAddNode's conditional parameters: a
 *  handle from cudaGraphConditionalHandleCreate and a type and size CUDA
 *  takes (cudaErrorInvalidValue otherwise).  Once the node is made,
 *  p->phGraph_out is set to its array of bodies, valid while it lives. */
cudaError_t sc_g_cond_desc(sc_rt_node_desc *d, node_extra *x, struct cudaConditionalNodeParams *p);
/** Give the node being made (nd, a copy of d) bodies of its own: empty
 *  ones for a new node (d->bodies NULL), else clones of d's; owned, so
 *  the program cannot destroy them.  On failure nd holds none. */
cudaError_t sc_g_cond_take_bodies(sc_rt_node_desc *nd, const sc_rt_node_desc *d);
void sc_g_cond_free_bodies(sc_rt_node_desc *d);
/** The body a launch on the host runs, through *body: the condition is
 *  the handle's default (nothing on the host sets it); if runs body 0 on
 *  non-zero, else body 1 when there is one; while runs its body once on
 *  non-zero; switch body[value] when value < size.  False for none. */
bool sc_g_cond_pick(const sc_rt_node_desc *d, uint32_t *body);
/** Run the body sc_g_cond_pick chooses, if any. */
cudaError_t sc_g_cond_run(const sc_rt_node_desc *d);

/** NULL and freed handles (the magic is cleared when freed). */
bool sc_g_valid(cudaGraph_t g);
bool sc_gx_valid(cudaGraphExec_t x);

/** A deep copy (child graphs cloned, blocks and state shared). */
cudaError_t sc_g_clone(cudaGraph_t g, cudaGraph_t *out);

/** The program edited g: its state is no longer what was stored, nor
 *  that of the graph holding it as a conditional's body, at any depth. */
void sc_g_touch(cudaGraph_t g);

/** Add edges from[i] -> to[i] (indexes); on cudaErrorMemoryAllocation
 *  nothing changed. */
cudaError_t sc_g_edges_push(cudaGraph_t g, const uint32_t *from, const uint32_t *to, size_t n);
/** Drop edges past the first n. */
void sc_g_edges_truncate(cudaGraph_t g, size_t n);
bool sc_g_has_edge(cudaGraph_t g, uint32_t from, uint32_t to);

/** A topological order honouring every edge (ready nodes in index
 *  order), malloc'd into *order (g->n entries).  cudaErrorInvalidValue
 *  when g has a cycle, cudaErrorMemoryAllocation. */
cudaError_t sc_g_topo_order(cudaGraph_t g, uint32_t **order);

/** The block of a new mem-alloc node of g depending on deps: the block of
 *  an earlier allocation of g when every use of it is freed before the
 *  node (the address is then the same, as CUDA's), else a new one
 *  (graph_mem.c).  cudaErrorMemoryAllocation. */
cudaError_t sc_g_alloc_block(cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, size_t size,
                             sc_g_block **out);
/** Before a launch of the exec graph xg outside capture: an allocation an
 *  earlier launch made and nobody freed yet: cudaErrorInvalidValue. */
cudaError_t sc_g_mem_launch_check(cudaGraph_t xg);
/** After that launch on model stream `stream`: its allocations and frees
 *  in the graph memory pool. */
void sc_g_mem_launched(cudaGraph_t xg, uint32_t stream);
/** A launch of an exec made with cudaGraphInstantiateFlagAutoFreeOnLaunch:
 *  what its earlier launches left live is freed first, in `stream`. */
void sc_g_mem_auto_free(cudaGraph_t xg, uint32_t stream);
/** The exec's graph xg is replaced by `to` (cudaGraphExecUpdate), or
 *  destroyed (to NULL: its live allocations stay live, owned by nobody). */
void sc_g_mem_reown(cudaGraph_t xg, cudaGraph_t to);

/** Release a block reference. */
void sc_g_block_unref(sc_g_block *b);

/** Node extras a clone copies (attributes, enabled state); false when
 *  memory is short (graph_attr.c). */
bool sc_g_node_copy_extras(cudaGraphNode_t to, cudaGraphNode_t from);
/** The node's kernelParams from the caller's array: a copy of the values
 *  where the layout is known (graph_args.c); cudaErrorMemoryAllocation. */
cudaError_t sc_g_node_take_args(cudaGraphNode_t n, void **args);
/** The clone's own copy of from's values; false when memory is short. */
bool sc_g_node_copy_args(cudaGraphNode_t to, cudaGraphNode_t from);
void sc_g_node_free_args(cudaGraphNode_t n);
/** Free what sc_g_node_copy_extras copied. */
void sc_g_node_free_extras(cudaGraphNode_t n);
/** A zeroed node, from this thread's freed ones when it has some
 *  (graph_nodes.c); NULL when memory runs out. */
cudaGraphNode_t sc_g_node_alloc(void);
/** Give back a node whose contents were freed: kept for reuse up to a
 *  bound, freed past it. */
void sc_g_node_release(cudaGraphNode_t n);
/** The clone takes references to the user objects of g; the freed graph
 *  g releases its own (destructors run when the last reference goes). */
bool sc_g_urefs_clone(cudaGraph_t to, cudaGraph_t from);
void sc_g_urefs_release(cudaGraph_t g);

/** The node's type name as the CUDA runtime's DOT output spells it. */
const char *sc_g_type_dot_name(enum cudaGraphNodeType t);

#endif
