/*
 * rt_int.h - what the runtime half's files (rt*.c, unsupported.c) share:
 * the process state, the stream and event objects, the per-thread record,
 * and the helpers that put a model call, its graph and its daemon mirror
 * together.  Not part of the contract with the graph half (that is rt.h).
 */
#ifndef SC_CUDART_RT_INT_H
#define SC_CUDART_RT_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "abi_rt.h"
#include "fatbin.h"
#include "rt.h"
#include "sc_cuda.h"

/* The weak fallbacks of unsupported.c: X(index, name) for every export;
 * defines SC_RT_NEXPORTS. */
#define X(index, name, returns)
#include "sc_exports.inc"
#undef X

/** An emulated device (rt_devices.c): what more than its property table
 *  (rt_device.c) needs, since occupancy, limits and free memory are
 *  computed from it.  Sizes in bytes. */
typedef struct sc_rt_devspec {
    const char *key;  /* STREAMCAP_DEVICE's name for it */
    const char *name; /* cudaDeviceProp.name */
    long long major, minor, sms, total_mem, threads_per_sm, blocks_per_sm, smem_per_sm, smem_optin,
        smem_reserved, l2, persisting_l2max, bus_width, clock_khz, mem_clock_khz;
} sc_rt_devspec;

/** The device named (case-insensitive), the default for NULL or "", and
 *  the default with a message on stderr for a name not in the table. */
const sc_rt_devspec *sc_rt_dev_pick(const char *name);
/** The device this process emulates (chosen once, at start-up). */
const sc_rt_devspec *sc_rt_dev(void);

#define SC_RT_DEV_TOTAL_MEM        ((size_t)sc_rt_dev()->total_mem)
#define SC_RT_DEV_SMS              ((int)sc_rt_dev()->sms)
#define SC_RT_DEV_THREADS_PER_SM   ((int)sc_rt_dev()->threads_per_sm)
#define SC_RT_DEV_BLOCKS_PER_SM    ((int)sc_rt_dev()->blocks_per_sm)
#define SC_RT_DEV_SMEM_PER_SM      ((unsigned)sc_rt_dev()->smem_per_sm)
#define SC_RT_DEV_SMEM_RESERVED    ((unsigned)sc_rt_dev()->smem_reserved)
#define SC_RT_DEV_SMEM_DEFAULT     (48u << 10) /* per block, on every device */
#define SC_RT_DEV_SMEM_OPTIN       ((unsigned)sc_rt_dev()->smem_optin)
#define SC_RT_DEV_PERSISTING_L2MAX ((size_t)sc_rt_dev()->persisting_l2max)

/** A stream handle (cudaStream_t points at one; the per-thread default
 *  stream is one inside each thread's record). */
struct CUstream_st {
    uint32_t id; /* the model's stream id, never 0 */
    unsigned int flags;
    int priority;
    struct CUstream_st *prev, *next; /* the live list (not the per-thread stream) */
};

/** An event handle. */
struct CUevent_st {
    uint32_t id; /* the model's event id */
    unsigned int flags;
    bool timed; /* recorded outside capture: `ns` is its host time */
    uint64_t ns;
    struct CUevent_st *prev, *next; /* the live list */
};

/** Kinds of memory in the allocation table. */
typedef enum sc_rt_mem_kind {
    SC_RT_MEM_DEVICE = 0, /* cudaMalloc, cudaMallocAsync, registered __device__ variables */
    SC_RT_MEM_MANAGED,
    SC_RT_MEM_PINNED,     /* cudaMallocHost, cudaHostAlloc */
    SC_RT_MEM_REGISTERED, /* cudaHostRegister: the program's memory */
} sc_rt_mem_kind;

typedef struct sc_rt_alloc {
    uintptr_t base;
    size_t size;
    sc_rt_mem_kind kind;
    unsigned int flags;
    bool owned; /* freed by the stand-in (not a registered range or variable) */
} sc_rt_alloc;

/** A fat binary's handle: the void ** nvcc's host code holds points at
 *  `cubin`, the first member.  Its entries are read on first use. */
struct sc_rt_fatbin {
    void *cubin;
    struct sc_rt_fatbin *next;
    bool parsed;
    sc_fb fb;
};

typedef struct sc_rt_kernel {
    const void *stub;
    char *name; /* demangled, or "kernel@0x..." for one never registered */
    /* What registration named it with, read from its fat binary on first
     * use (sc_rt_kernel_layout): the parameter layout and the versions a
     * driver would report for the emulated device. */
    struct sc_rt_fatbin *fatbin;
    char *mangled;
    int layout;      /* 0: not read yet; 1: read; -1: the binary has none */
    int ptx, binary; /* 0 when the binary has nothing for the device */
    sc_fb_param *params;
    size_t nparams;
    /* Per parameter of the layout, whether its mangled name makes it a
     * pointer or reference to const; NULL when the name says nothing
     * (extern "C", unreadable, or a count other than the layout's). */
    bool *ro;
    /* From the layout, for each launch's copy of its values: their bytes,
     * and the parameters of pointer size (the accesses they may give). */
    size_t arg_bytes, ptr_params;
} sc_rt_kernel;

typedef struct sc_rt_var {
    void *host; /* the host shadow nvcc registers */
    size_t size;
} sc_rt_var;

/** What the exit report says of one capture. */
typedef enum sc_rt_outcome {
    SC_RT_OUT_RUNNING = 0, /* not ended: "discarded" at exit */
    SC_RT_OUT_KEPT,
    SC_RT_OUT_STORED,
    SC_RT_OUT_FAILED,
} sc_rt_outcome;

typedef struct sc_rt_capture {
    cudaGraph_t graph; /* while running; handed to the program at the end */
    sc_cuda_mode mode;
    sc_rt_outcome outcome;
    uint64_t daemon_graph; /* stored: the daemon's graph id */
    uint64_t nodes, edges;
    cudaError_t error;        /* failed: what cudaStreamEndCapture returned */
    const char *broken_call;  /* the CUDA function that invalidated it, static */
    cudaError_t broken_error; /* and what it returned */
    char *unjoined;           /* failed with 904: [{"stream":S,"nodes":[...]},...], malloc'd */
    bool inherited;           /* ended before this process was forked: the parent reports it */
    /* cudaStreamBeginCaptureToGraph: `graph` is the program's, which had
     * `base` nodes at the begin.  Those are the model's first `base`
     * nodes; when their index order was not topological their model ids
     * and indexes differ: to_model[index], to_index[id] (NULL: equal).
     * Nodes from `base` on have equal ids and indexes. */
    bool to_graph;
    uint32_t base;
    uint32_t *to_model, *to_index;
} sc_rt_capture;

/** A hand-built graph sent at instantiation, for the report. */
typedef struct sc_rt_submit {
    uint64_t daemon_graph; /* 0 until the daemon answers */
    uint64_t nodes, edges;
} sc_rt_submit;

typedef struct sc_rt_feed sc_rt_feed;
/** What a program set and reads back: the device's limits and cache
 *  preferences (rt_device.c), function attributes (rt_func.c), stream
 *  attributes (rt_stream_attr.c). */
typedef struct sc_rt_limits sc_rt_limits;
typedef struct sc_rt_funcs sc_rt_funcs;
typedef struct sc_rt_sattrs sc_rt_sattrs;
/** The memory pools (rt_pool.c). */
typedef struct sc_rt_pools sc_rt_pools;

/** The per-thread record (thread-local). */
typedef struct sc_rt_thread {
    bool init;
    uint32_t id;
    cudaError_t last;
    struct CUstream_st pts; /* the per-thread default stream */
    /* <<<>>> configurations pushed and not popped yet */
    struct {
        dim3 grid, block;
        size_t shared;
        cudaStream_t stream;
    } cfg[8];
    unsigned int ncfg;
    /* cudaStreamGetCaptureInfo's arrays, valid until the thread's next call */
    cudaGraphNode_t *info_nodes;
    cudaGraphEdgeData *info_edges;
    size_t info_cap;
} sc_rt_thread;

/** The process state. */
typedef struct sc_rt_state {
    pthread_mutex_t mu; /* the one mutex of rt.h (recursive: host functions run under it) */
    sc_cuda *cu;
    uint32_t next_thread, next_stream, next_event;
    int device_flags;
    /* allocation table, sorted by base */
    sc_rt_alloc *allocs;
    size_t nallocs, allocs_cap;
    size_t device_bytes;
    /* registered kernels: open addressing on the stub pointer */
    sc_rt_kernel *kernels;
    size_t nkernels, kernels_cap;
    uint32_t kernels_gen; /* bumped whenever entries move (a pointer to one is stale) */
    sc_rt_var *vars;
    size_t nvars, vars_cap;
    /* captures by id (index 0 unused) */
    sc_rt_capture *caps;
    size_t caps_cap;
    uint32_t ncaps;   /* captures begun */
    uint32_t nactive; /* begun and not ended */
    /* the capture each model stream is a member of, by stream id (0: none) */
    uint32_t *stream_cap;
    size_t stream_cap_len;
    sc_rt_submit *submits;
    size_t nsubmits, submits_cap;
    size_t submits_inherited; /* the first ones, a fork()ed parent's to report */
    uint64_t launches;        /* kernels run outside capture (counted only) */
    _Atomic unsigned char unsupported[SC_RT_NEXPORTS];
    char program[256];
    char label[320];
    sc_rt_feed *feed;
    /* created on first use */
    sc_rt_limits *limits;
    sc_rt_funcs *funcs;
    sc_rt_sattrs *sattrs;
    sc_rt_pools *pools; /* rt_pool.c, created on first use */
    void *graph_mem;    /* the graph half's graph memory pool (graph_mem.c) */
    /* live array and mipmapped array handles (rt_array.c), so that a
     * handle is checked without reading through it */
    const void **arrays;
    size_t narrays, arrays_cap;
    struct sc_rt_texobj *texobjs; /* texture and surface objects (rt_texture.c) */
    size_t ntexobjs, texobjs_cap;
    unsigned long long next_texobj;
    /* Every stream and event created and not destroyed: the device context
     * owns them, as in CUDA, so cudaDeviceReset can destroy what is left
     * and a program that never destroys them leaks nothing. */
    struct CUstream_st *streams;
    struct CUevent_st *events;
    size_t nstreams, nevents;
    /* __cudaRegisterFatBinary's handles, kept for the process's life */
    struct sc_rt_fatbin *fatbins;
    struct CUlib_st *libraries; /* loaded and not unloaded (rt_library.c) */
    bool layout_warned;         /* a kernel without a usable layout was reported */
    const sc_rt_devspec *dev;   /* the emulated device, chosen at start-up */
} sc_rt_state;

/** The state, initialised on first use (never NULL; aborts when even the
 *  model cannot be created). */
sc_rt_state *sc_rt_state_get(void);
/** *ts = CLOCK_REALTIME us from now: the deadline of a timed condition
 *  wait. */
void sc_rt_deadline_us(long us, struct timespec *ts);
/** The calling thread's record without setting it up (its call
 *  configurations need no ids). */
sc_rt_thread *sc_rt_self(void);
/** The calling thread's record, set up on first use (lock held). */
sc_rt_thread *sc_rt_thread_get(sc_rt_state *st);

/** CUDA's error for a model code (0 -> cudaSuccess). */
cudaError_t sc_rt_from_model(int rc);
/** After a model call made by `call` failed: name `call` as the breaker
 *  of every capture it just invalidated. */
void sc_rt_note_invalidations(sc_rt_state *st, const char *call);

/** The model stream id of a handle for a call of the legacy (ptsz false)
 *  or per-thread (true) default-stream flavour. */
uint32_t sc_rt_stream_id(sc_rt_state *st, cudaStream_t s, bool ptsz);
/** The capture a model stream is a member of (0: none), and its update. */
uint32_t sc_rt_stream_capture(const sc_rt_state *st, uint32_t stream);
cudaError_t sc_rt_stream_set_capture(sc_rt_state *st, uint32_t stream, uint32_t capture);
/** The capture slot of an id, NULL when none. */
sc_rt_capture *sc_rt_capture_slot(sc_rt_state *st, uint32_t capture);
/** The model node id of the node at `index` of capture cap's graph (they
 *  differ only for a graph captured into whose order was not
 *  topological; rt_capture.c). */
uint32_t sc_rt_model_of(const sc_rt_capture *cap, uint32_t index);

/** Destroy every live stream and event handle (cudaDeviceReset; lock
 *  held).  The model keeps their ids, as it does for one destroyed. */
void sc_rt_handles_reset(sc_rt_state *st);
/** The model's id of a live event handle, 0 for NULL or one destroyed
 *  since a graph node took it (lock held). */
uint32_t sc_rt_event_id(cudaEvent_t e);

/** A host call through the model (§4.8) and the daemon. */
cudaError_t sc_rt_host(sc_rt_state *st, sc_cuda_host kind, uint32_t stream, uint32_t event,
                       const char *call);
/** sc_rt_issue with the model stream id already resolved. */
cudaError_t sc_rt_issue_id(sc_rt_state *st, uint32_t stream, const sc_rt_node_desc *d,
                           const char *call, cudaGraphNode_t *out);

/* Allocation table (rt_mem.c). */
const sc_rt_alloc *sc_rt_alloc_find(const sc_rt_state *st, const void *p);
cudaError_t sc_rt_alloc_add(sc_rt_state *st, void *p, size_t size, sc_rt_mem_kind kind,
                            unsigned int flags, bool owned);
/** Forget the entry that starts at p (memory its owner frees itself). */
void sc_rt_alloc_drop(sc_rt_state *st, const void *p);
/** Memory handed out by a captured cudaMallocAsync (device kind). */
void *sc_rt_alloc_device(sc_rt_state *st, size_t size);
/** The copies: synchronous ones a host call first (legacy_sync, or a
 *  stream sync of the per-thread stream for _ptds), asynchronous ones stream
 *  work through sc_rt_issue_id.  They take the call's lock and release it
 *  again; the result goes to the call's SC_RT_RETURN. */
cudaError_t sc_rt_copy_sync(sc_rt_call *c, void *dst, const void *src, size_t count,
                            enum cudaMemcpyKind kind, bool ptds, const char *call);
cudaError_t sc_rt_copy_async(sc_rt_call *c, void *dst, const void *src, size_t count,
                             enum cudaMemcpyKind kind, cudaStream_t s, bool ptsz, const char *call);
/** cudaMemcpy3D (async false: a host call first, _ptds when per_thread)
 *  or cudaMemcpy3DAsync (on s; _ptsz when per_thread) of p, arrays and
 *  all (rt_pitched.c).  Locks as the copies do. */
struct cudaMemcpy3DParms;
cudaError_t sc_rt_copy3d(sc_rt_call *c, const struct cudaMemcpy3DParms *p, bool async,
                         cudaStream_t s, bool per_thread, const char *call);
/** A live array or mipmapped array handle (rt_array.c). */
struct cudaArray;
struct cudaMipmappedArray;
bool sc_rt_array_valid(const struct cudaArray *a);
bool sc_rt_mipmap_valid(const struct cudaMipmappedArray *m);
/** The flags an array was made with (a live one). */
unsigned int sc_rt_array_flags(const struct cudaArray *a);
/** A channel format an array or texture may have; its bytes in *elem. */
struct cudaChannelFormatDesc;
bool sc_rt_channel_ok(const struct cudaChannelFormatDesc *d, size_t *elem);
/** cudaMallocAsync and cudaMallocFromPoolAsync: stream work (a mem_alloc
 *  node named `call` in capture); outside capture the bytes count as used
 *  memory of `pool` (NULL: the device's current pool).  Locks as the
 *  copies do. */
cudaError_t sc_rt_malloc_async(sc_rt_call *c, void **out, size_t size, cudaMemPool_t pool,
                               cudaStream_t s, bool ptsz, const char *call);

/* Memory pools (rt_pool.c): account an allocation made outside capture
 * from `pool` (NULL: the current one), and its free. */
void sc_rt_pool_note_alloc(sc_rt_state *st, cudaMemPool_t pool, void *p, size_t size);
void sc_rt_pool_note_free(sc_rt_state *st, void *p);

/** Perform a memcpy / memset described by a node (outside capture). */
void sc_rt_perform(const sc_rt_node_desc *d);

/* Kernels (rt_launch.c). */
void sc_rt_kernels_free(sc_rt_state *st);
/** The kernel table's entry of a host stub, NULL when none (lock held). */
sc_rt_kernel *sc_rt_kernel_find(const sc_rt_state *st, const void *stub);
/** Register (or rename) the kernel of `stub`: its name demangled from
 *  `mangled`, its layout to be read from `fatbin` (may be NULL) on first
 *  use (lock held).  NULL when memory is short. */
sc_rt_kernel *sc_rt_kernel_register(sc_rt_state *st, const void *stub, const char *mangled,
                                    struct sc_rt_fatbin *fatbin);
/** Forget what `stub`'s binary said of it (its library was unloaded); its
 *  name stays (lock held). */
void sc_rt_kernel_forget(sc_rt_state *st, const void *stub);
/** The registered kernel of a host stub with its fat binary read (lock
 *  held), NULL when the stub was never registered. */
const sc_rt_kernel *sc_rt_kernel_layout(sc_rt_state *st, const void *func);

/* Feed (rt_feed.c): the daemon mirror.  Every function is a no-op when no
 * daemon is attached; none waits for a reply, except the end with
 * STREAMCAP_SYNC_END=1 and the drain at exit. */
void sc_rt_feed_open(sc_rt_state *st);
void sc_rt_feed_stream_create(sc_rt_state *st, uint32_t stream, bool non_blocking);
void sc_rt_feed_begin(sc_rt_state *st, uint32_t stream, uint32_t thread, sc_cuda_mode mode);
/* `call`: the CUDA function, when the local model says the call broke a
 * capture (the daemon's log then names it), else NULL. */
void sc_rt_feed_record(sc_rt_state *st, uint32_t stream, uint32_t thread, const sc_node *n,
                       const char *call, const sc_rt_node_desc *d);
void sc_rt_feed_event(sc_rt_state *st, uint32_t stream, uint32_t thread, uint32_t event, bool wait,
                      bool external, const char *call);
void sc_rt_feed_update_deps(sc_rt_state *st, uint32_t stream, uint32_t thread,
                            const uint32_t *nodes, size_t n, bool set);
void sc_rt_feed_host_call(sc_rt_state *st, sc_cuda_host kind, uint32_t stream, uint32_t event,
                          uint32_t thread, const char *call);
void sc_rt_feed_exchange_mode(sc_rt_state *st, uint32_t thread, sc_cuda_mode mode);
/* `d` is the node as the program described it: it is sent whole, a
 * kernel's argument values from `node`'s copy (a node the graph holds
 * already) or, node NULL, from d->args. */
void sc_rt_feed_add_node(sc_rt_state *st, uint32_t stream, uint32_t thread,
                         const sc_rt_node_desc *d, cudaGraphNode_t node, const uint32_t *deps,
                         size_t ndeps);
/* `cap`: the capture when it ended with a graph (its graph still the
 * capture's), whose nodes' bodies (sc_rt_node_bodies) go with the end;
 * NULL for a failed end. */
void sc_rt_feed_end(sc_rt_state *st, uint32_t stream, uint32_t thread, uint32_t capture,
                    const sc_rt_capture *cap);
void sc_rt_feed_submit(sc_rt_state *st, cudaGraph_t g, size_t submit);
/** At exit: send what is queued, wait (bounded) for the replies, close.
 *  Returns "connected", "unreachable" or "lost"; *session its id (0: none). */
const char *sc_rt_feed_finish(sc_rt_state *st, uint64_t *session);

/* Unsupported calls (unsupported.c). */
const char *sc_rt_export_name(size_t index);

/** The name a node of type t has in the model and the stored graph when it
 *  was not captured: the call that adds such a node by hand
 *  ("cudaGraphAddKernelNode"; rt_capture.c). */
const char *sc_rt_added_name(enum cudaGraphNodeType t);

/* The node an sc_rt_node_desc becomes in the model. */
void sc_rt_desc_to_node(const sc_rt_node_desc *d, uint32_t stream, sc_node *n);

/** The emulated device's compute capability, 10 * major + minor
 *  (rt_device.c). */
int sc_rt_dev_cc(void);

/** Host clock, ns. */
uint64_t sc_rt_now_ns(void);

#endif
