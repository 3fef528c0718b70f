/*
 * rt_feed.h - what the daemon feed's two files share: rt_feed.c (the
 * queue, the feed thread, the calls) and rt_feed_node.c (how nodes and
 * graphs are described to the daemon).
 */
#ifndef SC_CUDART_RT_FEED_H
#define SC_CUDART_RT_FEED_H

#include "rt_int.h"
#include "streamcap.h"

/* A graph as graph.submit sends it (nodes in a topological order, edges
 * by their index in it); heap-allocated, freed by the feed thread. */
typedef struct sc_rt_submit_payload {
    sc_client_node *nodes;
    size_t n;
    sc_client_edge *edges;
    size_t m;
    /* The graphs each node holds (sc_rt_node_bodies), by node index:
     * nbodies[i] of them at children[i]; NULL when no node holds one. */
    struct sc_rt_submit_payload **children;
    sc_client_subgraph **subs;          /* children as the client sends them */
    const sc_client_subgraph **body_of; /* n entries: subs[i] or NULL */
    size_t *nbodies;
} sc_rt_submit_payload;

/* The bodies of a captured graph's nodes, sent with capture.end. */
typedef struct sc_rt_end_payload {
    size_t n;
    sc_rt_submit_payload *graphs; /* n */
    sc_client_body *bodies;       /* n, their graphs set when sent */
} sc_rt_end_payload;

/** The client's direction of a model memcpy direction (sc_dir). */
sc_client_dir sc_rt_feed_dir(int d);
/** A dimension as the daemon takes it: 0 (unset) is 1. */
static inline uint32_t sc_rt_feed_dim(uint32_t v)
{
    return v ? v : 1;
}
/** A node of the graph API as capture.add_node and graph.submit describe
 *  it (lock held: an event's id is read). */
void sc_rt_feed_node(const sc_rt_node_desc *d, sc_client_node *out);
/** The most argument bytes the daemon takes (proto/sc_kargs.h). */
#define SC_RT_KARGS_MAX 32764u
/** A kernel node's argument values into out->args and out->param_sizes
 *  (malloc'd; sc_rt_feed_node_free), packed as the daemon takes them: from
 *  `node`'s own copy when it has one, else from the caller's d->args.
 *  Nothing when the kernel has no layout or a value is missing (lock
 *  held). */
void sc_rt_feed_kargs(const sc_rt_node_desc *d, cudaGraphNode_t node, sc_client_node *out);
/** The most accesses sc_rt_kernel_accesses gives for func: its layout's
 *  parameters of pointer size (0 without a layout). */
size_t sc_rt_kernel_access_room(const void *func);
/** A kernel launch's or node's buffer accesses into out (room for max,
 *  sc_rt_kernel_access_room is enough): each parameter of pointer size
 *  whose value points into a live allocation gives that whole
 *  allocation, read for a pointer or reference to const (from the
 *  kernel's mangled name), read_write otherwise, one access per
 *  allocation (the modes joined), ordered by address.  The values come
 *  from vals (a parameter buffer of size bytes, at the layout's offsets)
 *  or, when vals is NULL, from args (kernelParams).  Their count (lock
 *  held). */
size_t sc_rt_kernel_accesses(const void *func, const uint8_t *vals, size_t size, void *const *args,
                             sc_client_access *out, size_t max);
/** Parameter i of kernel kr (layout read) holding pointer-size value v:
 *  its access into *out, true when v points into a live allocation (the
 *  rule of sc_rt_kernel_accesses, for callers that read the values
 *  themselves; inline, since a launch's copy of its arguments applies it
 *  to each of them). */
static inline bool sc_rt_value_access(const sc_rt_state *st, const sc_rt_kernel *kr, size_t i,
                                      uint64_t v, sc_client_access *out)
{
    const sc_rt_alloc *a = v ? sc_rt_alloc_find(st, (const void *)(uintptr_t)v) : NULL;
    if (!a)
        return false;
    unsigned mode = kr->ro && kr->ro[i] ? SC_ACCESS_READ : SC_ACCESS_READ_WRITE;
    *out = (sc_client_access){a->base, a->size ? a->size : 1, mode};
    return true;
}
/** One access per allocation in acc (n of them), ordered by address, the
 *  modes of equal ones joined: the new count. */
size_t sc_rt_accesses_merge(sc_client_access *acc, size_t n);
/** sc_rt_kernel_accesses for kernel kr, its layout read (layout 1). */
size_t sc_rt_layout_accesses(const sc_rt_state *st, const sc_rt_kernel *kr, const uint8_t *vals,
                             size_t size, void *const *args, sc_client_access *out, size_t max);
/** A memcpy's (a read of its source, a write of its destination) or a
 *  memset's (a write) accesses into out; pitched shapes as the range
 *  bounding their rows.  Their count, 0 for other kinds. */
size_t sc_rt_copy_accesses(const sc_rt_node_desc *d, sc_client_access out[2]);
/** A node's accesses into out->accesses (malloc'd; sc_rt_feed_node_free):
 *  a kernel's from `node`'s own copy of its values when it has one, else
 *  from d->args; a copy's or set's ranges (lock held). */
void sc_rt_feed_accesses(const sc_rt_node_desc *d, cudaGraphNode_t node, sc_client_node *out);
/** Free what sc_rt_feed_kargs put in n. */
void sc_rt_feed_node_free(sc_client_node *n);
/** g's nodes in a topological order (the ready node of lowest index
 *  first, so a graph built in order keeps its numbering) and its edges
 *  renumbered to it.  false, and nothing allocated, when g has a cycle or
 *  memory runs out. */
bool sc_rt_feed_payload(cudaGraph_t g, sc_rt_submit_payload *p);
/** Free what sc_rt_feed_payload allocated in p (not p). */
void sc_rt_feed_payload_free(sc_rt_submit_payload *p);
/** p as sc_client_graph_submit_nested takes it. */
sc_client_subgraph sc_rt_feed_subgraph(const sc_rt_submit_payload *p);
/** The bodies the nodes of capture cap's graph hold, by model node id;
 *  NULL when none holds one or memory runs out (then sent without). */
sc_rt_end_payload *sc_rt_feed_end_bodies(const sc_rt_capture *cap);
/** Free what sc_rt_feed_end_bodies made (NULL is a no-op). */
void sc_rt_feed_end_free(sc_rt_end_payload *p);

#endif
