/*
 * cuda_internal.h - the state of a cuda-mode session, shared by cuda.c
 * (streams, events, record ops), cuda_host.c (host calls, thread modes) and
 * cuda_end.c (ending, queries, names).
 *
 * Streams and events sit in dense arrays found through id maps; captures
 * in an array indexed by id - 1, never removed (ended ones stay for the
 * log and for events captured in them).  A capture records straight into
 * its own unsealed sc_graph, as the default mode does.
 */
#ifndef SC_CUDA_INTERNAL_H
#define SC_CUDA_INTERNAL_H

#include "graph_internal.h"
#include "sc_cuda.h"

/* A sorted set of node ids without duplicates, grown in place. */
typedef struct cu_set {
    uint32_t *v;
    uint32_t n;
    uint32_t cap;
} cu_set;

#define CU_RECENT_BITS 4
#define CU_RECENT      (1u << CU_RECENT_BITS)

static inline uint32_t cu_recent_slot(uint32_t id)
{
    return (id * 0x9E3779B1u) >> (32 - CU_RECENT_BITS);
}

typedef struct cu_stream {
    uint32_t id;
    uint32_t capture; /* id of the capture it belongs to, 0 for none */
    /* That capture's graph while the capture is active, else NULL: the
     * record ops' one check, kept by join(), cu_invalidate() and finish(). */
    sc_graph *g;
    bool non_blocking;
    bool created; /* by stream.create: its flags are fixed from then on */
    cu_set deps;  /* dependency set, while it belongs to a capture */
} cu_stream;

enum { CU_EV_NEVER = 0, CU_EV_OUTSIDE = 1, CU_EV_CAPTURED = 2 };

typedef struct cu_event {
    uint8_t state;
    uint32_t capture; /* CU_EV_CAPTURED: the capture, ended or not */
    cu_set nodes;
} cu_event;

typedef struct cu_capture {
    sc_graph *g; /* NULL once ended */
    uint32_t origin;
    uint32_t thread;
    uint8_t mode;  /* sc_cuda_mode */
    uint8_t state; /* sc_cuda_state */
    bool invalidated;
    int error;          /* SC_CUDA_STATE_FAILED: what end returned */
    uint32_t nblocking; /* member streams that are blocking */
    uint32_t node_count;
    uint32_t *members; /* indices into streams, while not ended */
    uint32_t nmembers;
    uint32_t members_cap;
    sc_cuda_invalidation why;
} cu_capture;

struct sc_cuda {
    cu_stream *streams;
    uint32_t nstreams;
    uint32_t streams_cap;
    sc_idmap stream_index; /* stream id -> index */
    /* Indices of streams used lately, by a hash of the id (the hot path:
     * callers cycle through a few streams); an entry counts only when the
     * stream at that index has that id, so stale ones are harmless. */
    uint32_t recent[CU_RECENT];
    cu_event *events;
    uint32_t nevents;
    uint32_t events_cap;
    sc_idmap event_index; /* event id -> index */
    cu_capture *caps;     /* capture id - 1 -> capture */
    uint32_t ncaps;
    uint32_t caps_cap;
    uint32_t *open; /* ids of captures not ended, ascending */
    uint32_t nopen;
    uint32_t open_cap;
    uint32_t blocking_open; /* captures not ended with a blocking member */
    sc_idmap thread_mode;   /* thread -> sc_cuda_mode, absent = global */
    cu_set scratch;         /* ids of the call being served, sorted */
    cu_set merged;          /* output of set unions */
    uint64_t seq;
};

/* The call being served, for invalidation records. */
typedef struct cu_ctx {
    sc_cuda_call call;
    sc_cuda_host host;
    uint32_t stream;
    uint32_t event;
    bool has_event;
    uint32_t thread;
} cu_ctx;

static inline cu_capture *cu_cap(const sc_cuda *cu, uint32_t id)
{
    return &cu->caps[id - 1];
}

cu_stream *cu_find_stream(sc_cuda *cu, uint32_t id);
int cu_set_reserve(cu_set *s, uint64_t n);
/* active or invalidated -> invalidated; the first call is the one logged. */
void cu_invalidate(sc_cuda *cu, uint32_t capture, const cu_ctx *ctx, int err);
/* Invalidate every capture not ended that has a blocking member (§4.3). */
void cu_invalidate_blocking(sc_cuda *cu, const cu_ctx *ctx, int err);

/* Shared by cuda.c and cuda_host.c; small, so inline in both. */
static inline cu_event *cu_find_event(const sc_cuda *cu, uint32_t id)
{
    uint32_t i = sc_idmap_get(&cu->event_index, id);
    return i == SC_NO_NODE ? NULL : &cu->events[i];
}

static inline sc_cuda_mode cu_thread_mode(const sc_cuda *cu, uint32_t thread)
{
    uint32_t m = sc_idmap_get(&cu->thread_mode, thread);
    return m == SC_NO_NODE ? SC_CUDA_GLOBAL : (sc_cuda_mode)m;
}

/* The capture of a stream that belongs to one, else NULL. */
static inline cu_capture *cu_capture_of(const sc_cuda *cu, const cu_stream *st)
{
    return st && st->capture ? cu_cap(cu, st->capture) : NULL;
}

/* 906 on the legacy stream while a blocking capture exists (§4.3). */
static inline int cu_legacy_implicit(sc_cuda *cu, const cu_ctx *ctx)
{
    cu_invalidate_blocking(cu, ctx, SC_ECUDA_IMPLICIT);
    return SC_ECUDA_IMPLICIT;
}

#endif
