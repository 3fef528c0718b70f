/*
 * sc_graph.h - the captured DAG (ComputeGraph) and its reachability index.
 *
 * A graph is built either by sc_capture_end() or by hand (loading a stored
 * graph): sc_graph_create(), sc_graph_add_node() in id order,
 * sc_graph_add_edge(), then sc_graph_seal().  A sealed graph is immutable and
 * may be read from several threads at once.
 *
 * Invariant (docs/semantics.md §6): every edge goes from a smaller id to a larger id, so
 * ids are a topological order.  sc_graph_add_edge() rejects anything else.
 *
 * Pure C11, no I/O.  Functions return 0 or a negative SC_E* code.
 */
#ifndef SC_GRAPH_H
#define SC_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sc_errors.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sc_graph sc_graph;

/** Node kinds; the wire and corpus spell them kernel, memcpy, memset, host_callback. */
typedef enum sc_node_kind {
    SC_KIND_KERNEL = 0,
    SC_KIND_MEMCPY = 1,
    SC_KIND_MEMSET = 2,
    SC_KIND_HOST_CALLBACK = 3,
} sc_node_kind;

/** Memcpy directions; wire spelling host_to_device, device_to_host, ... */
typedef enum sc_memcpy_dir {
    SC_DIR_HOST_TO_DEVICE = 0,
    SC_DIR_DEVICE_TO_HOST = 1,
    SC_DIR_DEVICE_TO_DEVICE = 2,
    SC_DIR_PEER_TO_PEER = 3,
} sc_memcpy_dir;

/*
 * The wire names, one X(SUFFIX, "name") per value in enum order: SUFFIX
 * completes SC_KIND_* and SC_DIR_* above.  The one list behind
 * sc_node_kind_name() and the parse functions, and header-only, so that
 * code which does not link core (the client library, whose own enums use
 * the same suffixes) spells the protocol the same way.
 */
#define SC_NODE_KINDS(X)                                                                           \
    X(KERNEL, "kernel")                                                                            \
    X(MEMCPY, "memcpy")                                                                            \
    X(MEMSET, "memset")                                                                            \
    X(HOST_CALLBACK, "host_callback")

#define SC_MEMCPY_DIRS(X)                                                                          \
    X(HOST_TO_DEVICE, "host_to_device")                                                            \
    X(DEVICE_TO_HOST, "device_to_host")                                                            \
    X(DEVICE_TO_DEVICE, "device_to_device")                                                        \
    X(PEER_TO_PEER, "peer_to_peer")

/*
 * Kinds and directions that only cuda-mode captures create
 * (docs/cuda-semantics.md §5, §3).  They are numbered apart from the
 * default mode's values and kept out of sc_node_kind, SC_NODE_KINDS,
 * sc_node_kind_name() and the default-mode parsers, so that everything
 * written for the default mode (exhaustive switches, "4 is no kind",
 * the default mode's wire checks) stays exactly as it is.  sc_graph
 * stores them; sc_cuda_kind_name() and friends below spell all values.
 */
enum {
    SC_KIND_MEM_ALLOC = 16,
    SC_KIND_MEM_FREE = 17,
    SC_KIND_EVENT_RECORD = 18,
    SC_KIND_EVENT_WAIT = 19,
    SC_KIND_EMPTY = 20,
    SC_KIND_GRAPH = 21,       /* a child graph node: its body is a graph of its own */
    SC_KIND_CONDITIONAL = 22, /* if / while / switch: bodies are graphs of their own */
};
enum {
    SC_DIR_HOST_TO_HOST = 16,
    SC_DIR_DEFAULT = 17,
};

#define SC_CUDA_NODE_KINDS(X)                                                                      \
    X(MEM_ALLOC, "mem_alloc")                                                                      \
    X(MEM_FREE, "mem_free")                                                                        \
    X(EVENT_RECORD, "event_record")                                                                \
    X(EVENT_WAIT, "event_wait")                                                                    \
    X(EMPTY, "empty")                                                                              \
    X(GRAPH, "graph")                                                                              \
    X(CONDITIONAL, "conditional")

/** The types of a conditional node, as CUDA numbers them
 *  (cudaGraphConditionalNodeType); wire spelling if, while, switch. */
typedef enum sc_cond_type {
    SC_COND_IF = 0,     /* body 0 when the condition is non-zero, else body 1 if any */
    SC_COND_WHILE = 1,  /* body 0 while the condition is non-zero */
    SC_COND_SWITCH = 2, /* body n when the condition is n */
} sc_cond_type;

#define SC_COND_TYPES(X)                                                                           \
    X(IF, "if")                                                                                    \
    X(WHILE, "while")                                                                              \
    X(SWITCH, "switch")

/** The handle flag that resets the condition to its default at each
 *  launch (cudaGraphCondAssignDefault). */
#define SC_COND_ASSIGN_DEFAULT 1u

#define SC_CUDA_MEMCPY_DIRS(X)                                                                     \
    X(HOST_TO_HOST, "host_to_host")                                                                \
    X(DEFAULT, "default")

/** How a node touches a buffer (docs/analyses.md); wire spelling read,
 *  write, read_write.  The bits are what the race finder tests: two
 *  accesses conflict when their ranges overlap and either has WRITE. */
typedef enum sc_access_mode {
    SC_ACCESS_READ = 1,
    SC_ACCESS_WRITE = 2,
    SC_ACCESS_READ_WRITE = 3,
} sc_access_mode;

#define SC_ACCESS_MODES(X)                                                                         \
    X(READ, "read")                                                                                \
    X(WRITE, "write")                                                                              \
    X(READ_WRITE, "read_write")

/** One range of memory a node reads or writes: [address, address + size),
 *  size at least 1 and address + size not past UINT64_MAX. */
typedef struct sc_access {
    uint64_t address;
    uint64_t size;
    sc_access_mode mode;
} sc_access;

/** Most accesses one node may carry; sc_graph_add_node() and the record
 *  calls refuse more (SC_EINVAL). */
#define SC_ACCESS_MAX 4096u
/** Most accesses all nodes of one graph (or capture) may carry together,
 *  384 MiB of them; a node past it is refused with SC_ELIMIT. */
#define SC_ACCESS_GRAPH_MAX (1u << 24)

/** "read", "write", "read_write"; NULL for any other value. */
const char *sc_access_mode_name(int mode);
/** Parse an access mode's name.  0 or SC_EINVAL. */
int sc_access_mode_parse(const char *s, size_t len, sc_access_mode *out);
/** Whether a has size >= 1, no u64 overflow at its end and a known mode. */
bool sc_access_valid(const sc_access *a);

/**
 * One node as seen by callers.  `name` points into the graph (or session)
 * and stays valid until it is destroyed; it is NUL-terminated but may also
 * contain NUL bytes, so `name_len` is authoritative.  For host callbacks the
 * label is the name.  Fields that do not belong to `kind` are zero.
 */
typedef struct sc_node {
    sc_node_kind kind;
    uint32_t stream;
    const char *name;
    size_t name_len;
    /* kernel */
    uint32_t num_blocks;
    uint32_t threads_per_block;
    uint32_t shared_mem;
    /* memcpy */
    sc_memcpy_dir dir;
    uint32_t src_device; /* peer_to_peer only */
    uint32_t dst_device; /* peer_to_peer only */
    /* memcpy and memset */
    uint64_t size_bytes;
    /* memset */
    uint8_t value;
    /* kernel: the y and z extents of a 3-D launch (cuda mode); num_blocks
     * and threads_per_block are the x extents.  0 is read as 1 when a node
     * is added, so code that never sets them builds 1-D launches; reading a
     * kernel back always gives the extents (1 for a 1-D launch). */
    uint32_t grid_y, grid_z;
    uint32_t block_y, block_z;
    /* event_record and event_wait: the event */
    uint32_t event;
    /* kernel: the argument values as the runtime copied them, each
     * parameter's bytes packed in order (no padding), and the size of each
     * parameter, which splits `args`; nparams 0 for none.  On a node read
     * back they point into the graph; param_sizes sums to args_len. */
    const uint8_t *args;
    uint32_t args_len;
    const uint32_t *param_sizes;
    uint32_t nparams;
    /* conditional: its type, its number of bodies (if: 1 or 2, while: 1,
     * switch: 1 or more), and the default value and flags of its
     * condition's handle */
    sc_cond_type cond_type;
    uint32_t cond_size;
    uint32_t cond_default;
    uint32_t cond_flags;
    /* any kind: the buffers it touches, in the order given; naccesses 0
     * for none.  On a node read back they point into the graph. */
    const sc_access *accesses;
    uint32_t naccesses;
} sc_node;

/** Wire/corpus names: "kernel", "memcpy", ...; NULL for an out-of-range value. */
const char *sc_node_kind_name(sc_node_kind kind);
const char *sc_memcpy_dir_name(sc_memcpy_dir dir);
/** Parse the wire names back.  0 or SC_EINVAL. */
int sc_node_kind_parse(const char *s, size_t len, sc_node_kind *out);
int sc_memcpy_dir_parse(const char *s, size_t len, sc_memcpy_dir *out);

/** Names of every kind and direction, the cuda-only ones included (the
 *  default mode's functions above know only theirs); NULL otherwise. */
const char *sc_cuda_kind_name(int kind);
const char *sc_cuda_dir_name(int dir);
/** Parse any kind or direction name.  0 or SC_EINVAL. */
int sc_cuda_kind_parse(const char *s, size_t len, sc_node_kind *out);
int sc_cuda_dir_parse(const char *s, size_t len, sc_memcpy_dir *out);
/** "if", "while", "switch"; NULL for any other value. */
const char *sc_cond_type_name(int type);
/** Parse a conditional type's name.  0 or SC_EINVAL. */
int sc_cond_type_parse(const char *s, size_t len, sc_cond_type *out);
/** Whether `size` bodies suit a conditional of `type` (if: 1 or 2,
 *  while: 1, switch: at least 1); false for an unknown type. */
bool sc_cond_size_valid(int type, uint32_t size);

/** The attribute fields of an sc_node, in groups, as sc_node_attrs()
 *  reports which of them hold a value. */
enum {
    SC_NODE_ATTR_LAUNCH = 1u << 0,  /* num_blocks, threads_per_block, shared_mem */
    SC_NODE_ATTR_SHAPE = 1u << 1,   /* grid_y, grid_z, block_y, block_z */
    SC_NODE_ATTR_DIR = 1u << 2,     /* dir */
    SC_NODE_ATTR_SIZE = 1u << 3,    /* size_bytes */
    SC_NODE_ATTR_DEVICES = 1u << 4, /* src_device, dst_device */
    SC_NODE_ATTR_VALUE = 1u << 5,   /* value */
    SC_NODE_ATTR_EVENT = 1u << 6,   /* event */
    SC_NODE_ATTR_ARGS = 1u << 7,    /* args, args_len, param_sizes, nparams */
    SC_NODE_ATTR_COND = 1u << 8,    /* cond_type, cond_size, cond_default, cond_flags */
};
/**
 * The attribute groups that apply to n, by its kind (any kind, the
 * cuda-only ones included): a kernel has its launch, and its shape too
 * when it was launched in more than one dimension, and its arguments when
 * it carries them (nparams > 0); a memcpy its direction
 * and size, and its devices when it is peer to peer; a memset its size and
 * value; a mem_alloc its size; an event record or wait its event; a
 * conditional its type, size, default and flags; any other kind none.
 * The stores write NULL for every group not in the mask and the DOT
 * labels show only those in it.  Never fails.
 */
unsigned sc_node_attrs(const sc_node *n);

/** Create an empty, unsealed graph. */
int sc_graph_create(sc_graph **out);
/** Free a graph and everything it owns.  NULL is a no-op. */
void sc_graph_destroy(sc_graph *g);

/**
 * Append a node (copied, name included); its id is the previous node count.
 * Any kind or direction above is accepted, the cuda-only ones included.
 * A conditional's fields are kept as given (rows stored before they
 * existed read as type if, size 0); the protocol checks them.
 * SC_EINVAL on a sealed graph or bad enum, SC_ELIMIT past UINT32_MAX nodes.
 */
int sc_graph_add_node(sc_graph *g, const sc_node *node, uint32_t *id_out);
/**
 * Add edge src -> dst to an unsealed graph.  Requires src < dst < node count
 * (SC_ENOTFOUND for an unknown id, SC_EINVAL for src >= dst).  Duplicates
 * are allowed here and removed by sc_graph_seal().
 */
int sc_graph_add_edge(sc_graph *g, uint32_t src, uint32_t dst);
/**
 * Make the graph immutable: sort and deduplicate edges, build successor
 * lists.  O(nodes + edges).  Sealing twice is a no-op.
 */
int sc_graph_seal(sc_graph *g);
bool sc_graph_is_sealed(const sc_graph *g);

/**
 * Build a sealed skeleton in one pass, for reachability only: node i has
 * stream streams[i], kind kernel, an empty name and zero attributes.
 * `edge_pairs` holds m (src, dst) pairs, 2 * m values, in strictly
 * ascending (src, dst) order (what sc_graph_edge() enumerates), so no
 * sorting or deduplication is needed.  Every pair needs src < dst < n:
 * SC_ENOTFOUND for an id >= n, SC_EINVAL for src >= dst, pairs out of order
 * or repeated, and NULL arrays with n or m nonzero; SC_ELIMIT past the
 * node or edge limits.  Nothing is kept of the arrays.  On success *out is
 * the new graph; on failure it is untouched.
 */
int sc_graph_create_skeleton(uint32_t n, const uint32_t *streams, uint64_t m,
                             const uint32_t *edge_pairs, sc_graph **out);

uint32_t sc_graph_node_count(const sc_graph *g);
/** Number of distinct edges (after seal; before it, edges added so far). */
uint64_t sc_graph_edge_count(const sc_graph *g);
/** Copy node `id` into *out.  SC_ENOTFOUND for an unknown id. */
int sc_graph_node(const sc_graph *g, uint32_t id, sc_node *out);
/**
 * The i-th edge in ascending (src, dst) order, 0 <= i < edge count.
 * Sealed graphs only (SC_EINVAL otherwise); SC_ENOTFOUND past the end.
 */
int sc_graph_edge(const sc_graph *g, uint64_t i, uint32_t *src, uint32_t *dst);
/**
 * Successors of `id`, ascending, as a pointer into the graph.  Sealed only.
 */
int sc_graph_successors(const sc_graph *g, uint32_t id, const uint32_t **succ, uint32_t *count);
/**
 * Predecessors of `id`, ascending, copied into out[0 .. cap): *count is
 * their number.  SC_ELIMIT (with *count set, nothing copied) when cap is
 * smaller.  Sealed graphs, and graphs a capture is building (its nodes so
 * far, whose predecessors are final once recorded).
 */
int sc_graph_predecessors(const sc_graph *g, uint32_t id, uint32_t *out, uint32_t cap,
                          uint32_t *count);
/** Number of distinct streams that own at least one node (sealed graphs; 0 before). */
uint32_t sc_graph_stream_count(const sc_graph *g);

/**
 * Reachability index (docs/design.md §8).  Every stream is a chain; for each node
 * and each indexed chain it stores the lowest chain position reachable from
 * the node, so reachable(a, b) is one comparison when b's stream is indexed.
 *
 * Bounded memory: at most SC_INDEX_MAX_CHAINS chains are indexed, so the
 * index costs at most 4 * SC_INDEX_MAX_CHAINS + 8 bytes per node.  With more
 * chains than that, the chains chosen are those with the largest size plus
 * edges to and from other chains (the streams others fork from and join
 * into).  A query whose target lies on an unindexed stream walks
 * predecessors backwards from the target, visiting only unindexed nodes
 * with ids between the two endpoints, and answers each indexed predecessor
 * with one comparison; beside it a forward walk from the source, given a
 * quarter of the steps, settles pairs from a node that reaches little
 * without walking the target's ancestors.  sc_graph_reachable_bounded()
 * caps both walks.
 *
 * A hand-built graph whose stream is not a chain (a node lacks the edge
 * from the stream's previous node) is split into several chains there, so
 * answers stay exact for any graph.
 *
 * Build once on a sealed graph; afterwards queries are read-only and
 * thread-safe.  Building twice is a no-op.  SC_EINVAL on an unsealed graph.
 */
#define SC_INDEX_MAX_CHAINS 32
int sc_graph_build_index(sc_graph *g);
bool sc_graph_has_index(const sc_graph *g);

/**
 * Does `a` happen before `b`?  Reflexive: a == b is true for any id (docs/semantics.md §5).
 * For a != b, an id that is not a node is SC_ENOTFOUND (the reference model leaves an
 * unknown `a` undefined and answers false for an unknown `b`; we report
 * both).  Sealed graphs only.  Uses the index when built, else BFS.
 * SC_ENOMEM only if a BFS or a long walk over unindexed streams cannot get
 * its scratch memory.
 */
int sc_graph_reachable(const sc_graph *g, uint32_t a, uint32_t b, bool *out);
/**
 * sc_graph_reachable() with a cap on its work, for a caller that must not
 * block for long (the daemon's event loop).  *steps is how many
 * predecessors and successors the query may look at; it is
 * decreased by those it looked at, and an answer from the index costs
 * none.  On 0 with *settled true the answer is in *out; with *settled false
 * the cap was reached first: *steps is 0, *out untouched, and the query
 * must be asked again without a cap where it may take long.  Errors as
 * sc_graph_reachable(), and SC_EINVAL for NULL steps, out or settled.
 */
int sc_graph_reachable_bounded(const sc_graph *g, uint32_t a, uint32_t b, uint64_t *steps,
                               bool *out, bool *settled);
/** Same question answered by breadth-first search, never by the index. */
int sc_graph_reachable_bfs(const sc_graph *g, uint32_t a, uint32_t b, bool *out);

/** Heap bytes held by the graph, index included (for cache accounting). */
size_t sc_graph_memory(const sc_graph *g);

#ifdef __cplusplus
}
#endif
#endif
