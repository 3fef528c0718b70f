/*
 * cuda.c - a cuda-mode session: streams, events, captures and the calls
 * that record into them (docs/cuda-semantics.md §1 to §4.7, §4.12).
 *
 * Every call decides its outcome and reserves all the memory it needs
 * before it changes anything, so that a failure changes nothing but the
 * invalidations its rule names (§2), and SC_ENOMEM changes nothing at all.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

/* The record path's helpers, folded into each typed call: a call costs a
 * few tens of nanoseconds, so a call and a spill more are noticeable. */
#if defined(__GNUC__)
#define CU_INLINE    inline __attribute__((always_inline))
#define CU_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define CU_INLINE    inline
#define CU_LIKELY(x) (x)
#endif

int sc_cuda_create(sc_cuda **out)
{
    if (!out)
        return SC_EINVAL;
    sc_cuda *cu = calloc(1, sizeof *cu);
    if (!cu)
        return SC_ENOMEM;
    for (uint32_t i = 0; i < CU_RECENT; i++)
        cu->recent[i] = UINT32_MAX;
    *out = cu;
    return 0;
}

void sc_cuda_destroy(sc_cuda *cu)
{
    if (!cu)
        return;
    for (uint32_t i = 0; i < cu->nstreams; i++)
        free(cu->streams[i].deps.v);
    for (uint32_t i = 0; i < cu->nevents; i++)
        free(cu->events[i].nodes.v);
    for (uint32_t i = 0; i < cu->ncaps; i++) {
        sc_graph_destroy(cu->caps[i].g);
        free(cu->caps[i].members);
    }
    free(cu->streams);
    free(cu->events);
    free(cu->caps);
    free(cu->open);
    free(cu->scratch.v);
    free(cu->merged.v);
    sc_idmap_free(&cu->stream_index);
    sc_idmap_free(&cu->event_index);
    sc_idmap_free(&cu->thread_mode);
    free(cu);
}

/* ---- small containers ---------------------------------------------- */

int cu_set_reserve(cu_set *s, uint64_t n)
{
    if (n <= s->cap)
        return 0;
    if (n > UINT32_MAX / 2)
        return SC_ELIMIT;
    uint32_t cap = s->cap ? s->cap : 2;
    while (cap < n)
        cap *= 2;
    uint32_t *v = realloc(s->v, (size_t)cap * sizeof *v);
    if (!v)
        return SC_ENOMEM;
    s->v = v;
    s->cap = cap;
    return 0;
}

/* Grow an array of `elem`-byte items to hold `need`; nothing else changes. */
static int grow(void **arr, uint32_t *cap, size_t elem, uint64_t need)
{
    if (need <= *cap)
        return 0;
    if (need > UINT32_MAX / 2)
        return SC_ELIMIT;
    uint32_t n = *cap ? *cap : 8;
    while (n < need)
        n *= 2;
    void *p = realloc(*arr, (size_t)n * elem);
    if (!p)
        return SC_ENOMEM;
    *arr = p;
    *cap = n;
    return 0;
}

static bool set_has(const cu_set *s, uint32_t x)
{
    uint32_t lo = 0, hi = s->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n && s->v[lo] == x;
}

/* out = a ∪ b, both sorted; out must have room for a.n + b.n and be
 * neither of them. */
static uint32_t merge(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb, uint32_t *out)
{
    uint32_t i = 0, j = 0, w = 0;
    while (i < na && j < nb) {
        uint32_t x = a[i] <= b[j] ? a[i] : b[j];
        i += a[i] == x;
        j += b[j] == x;
        out[w++] = x;
    }
    while (i < na)
        out[w++] = a[i++];
    while (j < nb)
        out[w++] = b[j++];
    return w;
}

/* ---- streams, events, threads ------------------------------------- */

/* The lookup behind a miss in cu->recent; remembers what it finds. */
static cu_stream *find_stream_slow(sc_cuda *cu, uint32_t id)
{
    uint32_t i = sc_idmap_get(&cu->stream_index, id);
    if (i == SC_NO_NODE)
        return NULL;
    cu->recent[cu_recent_slot(id)] = i;
    return &cu->streams[i];
}

static CU_INLINE cu_stream *find_stream(sc_cuda *cu, uint32_t id)
{
    uint32_t i = cu->recent[cu_recent_slot(id)];
    if (i < cu->nstreams && cu->streams[i].id == id)
        return &cu->streams[i];
    return find_stream_slow(cu, id);
}

cu_stream *cu_find_stream(sc_cuda *cu, uint32_t id)
{
    return find_stream(cu, id);
}

/* The stream's entry, made (blocking, not created) when missing. */
static int get_stream(sc_cuda *cu, uint32_t id, cu_stream **out)
{
    cu_stream *st = cu_find_stream(cu, id);
    if (!st) {
        int rc = grow((void **)&cu->streams, &cu->streams_cap, sizeof *cu->streams,
                      (uint64_t)cu->nstreams + 1);
        if (rc == 0)
            rc = sc_idmap_put(&cu->stream_index, id, cu->nstreams);
        if (rc != 0)
            return rc;
        st = &cu->streams[cu->nstreams];
        memset(st, 0, sizeof *st);
        st->id = id;
        cu->recent[cu_recent_slot(id)] = cu->nstreams++;
    }
    *out = st;
    return 0;
}

static int get_event(sc_cuda *cu, uint32_t id, cu_event **out)
{
    cu_event *ev = cu_find_event(cu, id);
    if (!ev) {
        int rc = grow((void **)&cu->events, &cu->events_cap, sizeof *cu->events,
                      (uint64_t)cu->nevents + 1);
        if (rc == 0)
            rc = sc_idmap_put(&cu->event_index, id, cu->nevents);
        if (rc != 0)
            return rc;
        ev = &cu->events[cu->nevents++];
        memset(ev, 0, sizeof *ev);
    }
    *out = ev;
    return 0;
}

static bool ended(const cu_capture *c)
{
    return c->state >= SC_CUDA_STATE_COMPLETED;
}

/* ---- invalidation (§2) ---------------------------------------------- */

void cu_invalidate(sc_cuda *cu, uint32_t capture, const cu_ctx *ctx, int err)
{
    cu_capture *c = cu_cap(cu, capture);
    if (ended(c))
        return;
    c->state = SC_CUDA_STATE_INVALIDATED;
    for (uint32_t i = 0; i < c->nmembers; i++)
        cu->streams[c->members[i]].g = NULL;
    if (c->invalidated)
        return;
    c->invalidated = true;
    c->why = (sc_cuda_invalidation){.call = ctx->call,
                                    .host = ctx->host,
                                    .stream = ctx->stream,
                                    .event = ctx->event,
                                    .has_event = ctx->has_event,
                                    .thread = ctx->thread,
                                    .error = err,
                                    .seq = cu->seq};
}

void cu_invalidate_blocking(sc_cuda *cu, const cu_ctx *ctx, int err)
{
    for (uint32_t i = 0; i < cu->nopen; i++)
        if (cu_cap(cu, cu->open[i])->nblocking > 0)
            cu_invalidate(cu, cu->open[i], ctx, err);
}

/* ---- membership --------------------------------------------------- */

/* Room for one more member of c; call before join(). */
static int reserve_member(cu_capture *c)
{
    return grow((void **)&c->members, &c->members_cap, sizeof *c->members,
                (uint64_t)c->nmembers + 1);
}

static void join(sc_cuda *cu, uint32_t capture, cu_stream *st)
{
    cu_capture *c = cu_cap(cu, capture);
    c->members[c->nmembers++] = (uint32_t)(st - cu->streams);
    st->capture = capture;
    st->g = c->state == SC_CUDA_STATE_ACTIVE ? c->g : NULL;
    if (!st->non_blocking && c->nblocking++ == 0)
        cu->blocking_open++;
}

/* ---- stream.create (§4.1) ------------------------------------------ */

int sc_cuda_stream_create(sc_cuda *cu, uint32_t stream, bool non_blocking)
{
    if (!cu)
        return SC_EINVAL;
    cu->seq++;
    if (stream == 0)
        return SC_ECUDA_INVALID_VALUE;
    cu_stream *st = cu_find_stream(cu, stream);
    if (st && st->created && st->non_blocking != non_blocking)
        return SC_ECUDA_INVALID_VALUE;
    if (st && st->capture && st->non_blocking != non_blocking)
        return SC_ECUDA_ILLEGAL_STATE;
    int rc = get_stream(cu, stream, &st);
    if (rc != 0)
        return rc;
    st->non_blocking = non_blocking;
    st->created = true;
    return 0;
}

/* ---- capture.begin (§4.2) ------------------------------------------ */

static int begin_reserve(sc_cuda *cu, uint32_t stream, cu_stream **st)
{
    int rc = grow((void **)&cu->caps, &cu->caps_cap, sizeof *cu->caps, (uint64_t)cu->ncaps + 1);
    if (rc == 0)
        rc = grow((void **)&cu->open, &cu->open_cap, sizeof *cu->open, (uint64_t)cu->nopen + 1);
    if (rc == 0)
        rc = get_stream(cu, stream, st);
    return rc;
}

int sc_cuda_begin(sc_cuda *cu, uint32_t stream, sc_cuda_mode mode, uint32_t thread,
                  uint32_t *capture_out)
{
    if (!cu || (unsigned)mode > SC_CUDA_RELAXED)
        return SC_EINVAL;
    cu->seq++;
    if (stream == 0)
        return SC_ECUDA_UNSUPPORTED;
    if (cu_capture_of(cu, cu_find_stream(cu, stream)))
        return SC_ECUDA_ILLEGAL_STATE;
    if (cu->ncaps == UINT32_MAX - 1)
        return SC_ELIMIT;
    cu_stream *st;
    int rc = begin_reserve(cu, stream, &st);
    if (rc != 0)
        return rc;
    cu_capture c = {.origin = stream, .thread = thread, .mode = (uint8_t)mode};
    if ((rc = sc_graph_create(&c.g)) != 0)
        return rc;
    if ((rc = reserve_member(&c)) != 0) {
        sc_graph_destroy(c.g);
        return rc;
    }
    uint32_t id = ++cu->ncaps;
    cu->caps[id - 1] = c;
    cu->open[cu->nopen++] = id;
    st->deps.n = 0;
    join(cu, id, st);
    if (capture_out)
        *capture_out = id;
    return 0;
}

/* ---- appending nodes ------------------------------------------------- */

/* Append `node` to capture c with an edge from each of the n sorted,
 * distinct ids at preds, all of them nodes of c.  Reserves first: on
 * failure nothing changed.  `flags` are SC_REC_* bits for the record. */
static int append(sc_graph *g, const sc_node *node, uint32_t stream, const uint32_t *preds,
                  uint32_t n, uint8_t flags, uint32_t *id_out)
{
    if (g->node_count >= SC_MAX_NODE || (uint64_t)g->pred_count + n > SC_MAX_EDGE)
        return SC_ELIMIT;
    int rc = 0;
    if (g->node_count >= sc_chunks_capacity(&g->nodes, SC_NODE_SHIFT) ||
        (uint64_t)g->pred_count + n > sc_chunks_capacity(&g->preds, SC_PRED_SHIFT))
        rc = sc_graph_reserve(g, n);
    if (rc == 0 && sc_node_needs_dims(node))
        rc = sc_graph_reserve_dims(g);
    uint32_t ref;
    if (rc == 0)
        rc = sc_graph_intern(g, node->name, node->name_len, &ref);
    if (rc != 0)
        return rc;
    uint32_t id = g->node_count;
    sc_rec *r = sc_rec_at(g, id);
    sc_graph_rec_from_node(g, r, node);
    if ((rc = sc_graph_set_args(g, r, node)) != 0 ||
        (rc = sc_graph_set_accesses(g, r, g->node_count, node)) != 0)
        return rc;
    r->stream = stream;
    r->name = ref;
    r->flags |= flags;
    r->pred_start = g->pred_count;
    for (uint32_t i = 0; i < n; i++)
        *sc_pred_at(g, g->pred_count + i) = preds[i];
    g->pred_count += n;
    g->node_count++;
    *id_out = id;
    return 0;
}

/* The stream's next operation: a node on it after its dependency set,
 * which becomes {X} (§4.3). */
static int append_on_stream(sc_graph *g, cu_stream *st, const sc_node *node, uint32_t *id_out)
{
    int rc = cu_set_reserve(&st->deps, 1);
    if (rc != 0)
        return rc;
    uint32_t id;
    if ((rc = append(g, node, st->id, st->deps.v, st->deps.n, 0, &id)) != 0)
        return rc;
    st->deps.v[0] = id;
    st->deps.n = 1;
    *id_out = id;
    return 0;
}

/* ---- record ops (§4.3) ------------------------------------------------ */

static bool record_kind(int kind, sc_cuda_call *call)
{
    switch (kind) {
    case SC_KIND_KERNEL:
        *call = SC_CUDA_CALL_RECORD_KERNEL;
        return true;
    case SC_KIND_MEMCPY:
        *call = SC_CUDA_CALL_RECORD_MEMCPY;
        return true;
    case SC_KIND_MEMSET:
        *call = SC_CUDA_CALL_RECORD_MEMSET;
        return true;
    case SC_KIND_HOST_CALLBACK:
    /* A graph launched into a capture is a child graph node; CUDA makes
     * it on the host side of the stream, as it does a host function. */
    case SC_KIND_GRAPH:
        *call = SC_CUDA_CALL_RECORD_HOST_CALLBACK;
        return true;
    case SC_KIND_MEM_ALLOC:
        *call = SC_CUDA_CALL_RECORD_MEM_ALLOC;
        return true;
    case SC_KIND_MEM_FREE:
        *call = SC_CUDA_CALL_RECORD_MEM_FREE;
        return true;
    default:
        return false;
    }
}

/* What every record op checks once its arguments are valid (§4.3): counts
 * the call, 906 on the legacy stream while a blocking capture exists, 901
 * on an invalidated capture.  On 0, *c is the capture to append to, NULL
 * when the work runs outside any capture. */
static CU_INLINE int record_target(sc_cuda *cu, uint32_t stream, uint32_t thread, sc_cuda_call call,
                                   cu_stream **st, sc_graph **g)
{
    cu->seq++;
    *g = NULL;
    if (stream == 0) {
        if (!cu->blocking_open)
            return 0;
        cu_ctx ctx = {.call = call, .stream = stream, .thread = thread};
        return cu_legacy_implicit(cu, &ctx);
    }
    cu_stream *s = find_stream(cu, stream);
    if (CU_LIKELY(s && s->g)) {
        *st = s;
        *g = s->g;
        return 0;
    }
    /* s->g is NULL: outside any capture, or its capture is not active. */
    return s && s->capture ? SC_ECUDA_INVALIDATED : 0;
}

/* append_on_stream() without an sc_node: the same checks in the same
 * order, and *r the new node's record with its stream, name and edges set
 * and all else zero, for the caller to fill in the kind and attributes
 * (straight into the record: a copy of a record built on the stack right
 * before costs a store-forwarding stall on every op). */
static CU_INLINE int append_slot(sc_graph *g, cu_stream *st, const char *name, size_t len,
                                 uint32_t *id_out, sc_rec **r)
{
    int rc;
    if (st->deps.cap == 0 && (rc = cu_set_reserve(&st->deps, 1)) != 0)
        return rc;
    uint32_t n = st->deps.n;
    if (g->node_count >= SC_MAX_NODE || (uint64_t)g->pred_count + n > SC_MAX_EDGE)
        return SC_ELIMIT;
    if ((g->node_count >= sc_chunks_capacity(&g->nodes, SC_NODE_SHIFT) ||
         (uint64_t)g->pred_count + n > sc_chunks_capacity(&g->preds, SC_PRED_SHIFT)) &&
        (rc = sc_graph_reserve(g, n)) != 0)
        return rc;
    uint32_t ref;
    if ((rc = sc_graph_intern(g, name, len, &ref)) != 0)
        return rc;
    uint32_t id = g->node_count, at = g->pred_count;
    sc_rec *rec = sc_rec_at(g, id);
    *rec = (sc_rec){.stream = st->id, .name = ref, .pred_start = at};
    uint32_t *v = st->deps.v;
    if (n == 1)
        *sc_pred_at(g, at) = v[0];
    else
        for (uint32_t i = 0; i < n; i++)
            *sc_pred_at(g, at + i) = v[i];
    g->pred_count = at + n;
    g->node_count = id + 1;
    v[0] = id;
    st->deps.n = 1;
    *id_out = id;
    *r = rec;
    return 0;
}

/* A record op whose arguments are valid, up to its node: *r as
 * append_slot() leaves it, or NULL when the work ran outside any capture
 * (nothing to fill in).  *node_out is set on success. */
static CU_INLINE int record_slot(sc_cuda *cu, uint32_t stream, uint32_t thread, sc_cuda_call call,
                                 const char *name, size_t len, uint32_t *node_out, sc_rec **r)
{
    cu_stream *st;
    sc_graph *g;
    int rc = record_target(cu, stream, thread, call, &st, &g);
    if (rc != 0)
        return rc;
    uint32_t id = SC_CUDA_NO_NODE;
    *r = NULL;
    if (g && (rc = append_slot(g, st, name, len, &id, r)) != 0)
        return rc;
    if (node_out)
        *node_out = id;
    return 0;
}

int sc_cuda_record(sc_cuda *cu, uint32_t stream, uint32_t thread, const sc_node *node,
                   uint32_t *node_out)
{
    sc_cuda_call call;
    if (!cu || !node || !record_kind((int)node->kind, &call) || !sc_node_valid(node))
        return SC_EINVAL;
    sc_rec *r;
    int rc;
    if (!sc_node_needs_dims(node) && !node->nparams && !node->naccesses) {
        /* No dims entry to reserve: the typed calls' path. */
        if ((rc = record_slot(cu, stream, thread, call, node->name, node->name_len, node_out,
                              &r)) != 0 ||
            !r)
            return rc;
        sc_rec base = *r;
        sc_graph_rec_from_node(NULL, r, node);
        r->stream = base.stream;
        r->name = base.name;
        r->pred_start = base.pred_start;
        return 0;
    }
    cu_stream *st;
    sc_graph *g;
    if ((rc = record_target(cu, stream, thread, call, &st, &g)) != 0)
        return rc;
    uint32_t id = SC_CUDA_NO_NODE;
    if (g && (rc = append_on_stream(g, st, node, &id)) != 0)
        return rc;
    if (node_out)
        *node_out = id;
    return 0;
}

/* The typed record ops fill the record as sc_graph_rec_from_node() does
 * for the same sc_node, so that both ways give the same graph. */

int sc_cuda_record_kernel(sc_cuda *cu, uint32_t stream, uint32_t thread, const char *function_name,
                          size_t name_len, uint32_t num_blocks, uint32_t threads_per_block,
                          uint32_t shared_mem, uint32_t *node_out)
{
    if (!cu || (!function_name && name_len))
        return SC_EINVAL;
    sc_rec *r;
    int rc = record_slot(cu, stream, thread, SC_CUDA_CALL_RECORD_KERNEL, function_name, name_len,
                         node_out, &r);
    if (rc == 0 && r) {
        r->kind = SC_KIND_KERNEL;
        r->u.k.blocks = num_blocks;
        r->u.k.threads = threads_per_block;
        r->x = shared_mem;
    }
    return rc;
}

int sc_cuda_record_memcpy(sc_cuda *cu, uint32_t stream, uint32_t thread, const char *name,
                          size_t name_len, sc_memcpy_dir dir, uint64_t size_bytes,
                          uint32_t src_device, uint32_t dst_device, uint32_t *node_out)
{
    if (!cu || (!name && name_len) ||
        ((unsigned)dir > SC_DIR_PEER_TO_PEER && !sc_cuda_dir_name((int)dir)))
        return SC_EINVAL;
    sc_rec *r;
    int rc =
        record_slot(cu, stream, thread, SC_CUDA_CALL_RECORD_MEMCPY, name, name_len, node_out, &r);
    if (rc == 0 && r) {
        r->kind = SC_KIND_MEMCPY;
        r->dir = (uint8_t)dir;
        r->u.size = size_bytes;
        if (dir == SC_DIR_PEER_TO_PEER) {
            r->x = src_device;
            r->y = dst_device;
        }
    }
    return rc;
}

int sc_cuda_record_memset(sc_cuda *cu, uint32_t stream, uint32_t thread, const char *name,
                          size_t name_len, uint64_t size_bytes, uint8_t value, uint32_t *node_out)
{
    if (!cu || (!name && name_len))
        return SC_EINVAL;
    sc_rec *r;
    int rc =
        record_slot(cu, stream, thread, SC_CUDA_CALL_RECORD_MEMSET, name, name_len, node_out, &r);
    if (rc == 0 && r) {
        r->kind = SC_KIND_MEMSET;
        r->u.size = size_bytes;
        r->value = value;
    }
    return rc;
}

int sc_cuda_record_host_callback(sc_cuda *cu, uint32_t stream, uint32_t thread, const char *label,
                                 size_t label_len, uint32_t *node_out)
{
    if (!cu || (!label && label_len))
        return SC_EINVAL;
    sc_rec *r;
    int rc = record_slot(cu, stream, thread, SC_CUDA_CALL_RECORD_HOST_CALLBACK, label, label_len,
                         node_out, &r);
    if (rc == 0 && r)
        r->kind = SC_KIND_HOST_CALLBACK;
    return rc;
}

int sc_cuda_record_mem_alloc(sc_cuda *cu, uint32_t stream, uint32_t thread, const char *name,
                             size_t name_len, uint64_t size_bytes, uint32_t *node_out)
{
    if (!cu || (!name && name_len))
        return SC_EINVAL;
    sc_rec *r;
    int rc = record_slot(cu, stream, thread, SC_CUDA_CALL_RECORD_MEM_ALLOC, name, name_len,
                         node_out, &r);
    if (rc == 0 && r) {
        r->kind = SC_KIND_MEM_ALLOC;
        r->u.size = size_bytes;
    }
    return rc;
}

int sc_cuda_record_mem_free(sc_cuda *cu, uint32_t stream, uint32_t thread, const char *name,
                            size_t name_len, uint32_t *node_out)
{
    if (!cu || (!name && name_len))
        return SC_EINVAL;
    sc_rec *r;
    int rc =
        record_slot(cu, stream, thread, SC_CUDA_CALL_RECORD_MEM_FREE, name, name_len, node_out, &r);
    if (rc == 0 && r)
        r->kind = SC_KIND_MEM_FREE;
    return rc;
}

/* Copy n node ids; an empty set may have no storage yet (NULL), which
 * memcpy may not be given even for zero bytes. */
static void copy_ids(uint32_t *dst, const uint32_t *src, size_t n)
{
    if (n)
        memcpy(dst, src, n * sizeof *src);
}

/* ---- events (§4.4, §4.5) --------------------------------------------- */

static void event_outside(cu_event *ev)
{
    ev->state = CU_EV_OUTSIDE;
    ev->capture = 0;
    ev->nodes.n = 0;
}

/* Captured in `capture` with a copy of the n ids at v (capacity reserved). */
static void event_capture(cu_event *ev, uint32_t capture, const uint32_t *v, uint32_t n)
{
    ev->state = CU_EV_CAPTURED;
    ev->capture = capture;
    copy_ids(ev->nodes.v, v, n);
    ev->nodes.n = n;
}

int sc_cuda_record_event(sc_cuda *cu, uint32_t stream, uint32_t thread, uint32_t event,
                         bool external, uint32_t *node_out)
{
    if (!cu)
        return SC_EINVAL;
    cu->seq++;
    cu_ctx ctx = {.call = SC_CUDA_CALL_RECORD_EVENT,
                  .stream = stream,
                  .event = event,
                  .has_event = true,
                  .thread = thread};
    if (stream == 0 && cu->blocking_open)
        return cu_legacy_implicit(cu, &ctx);
    cu_stream *st = stream ? cu_find_stream(cu, stream) : NULL;
    cu_capture *c = cu_capture_of(cu, st);
    if (!c && external)
        return SC_ECUDA_INVALID_VALUE;
    cu_event *ev;
    int rc = get_event(cu, event, &ev);
    if (rc != 0)
        return rc;
    uint32_t id = SC_CUDA_NO_NODE;
    if (!c) {
        event_outside(ev);
    } else if (c->state != SC_CUDA_STATE_ACTIVE) {
        return SC_ECUDA_INVALIDATED;
    } else if (external) {
        sc_node n = {.kind = (sc_node_kind)SC_KIND_EVENT_RECORD, .name = "", .event = event};
        if ((rc = cu_set_reserve(&ev->nodes, 1)) != 0 ||
            (rc = append_on_stream(c->g, st, &n, &id)) != 0)
            return rc;
        event_capture(ev, st->capture, &id, 1);
    } else {
        if ((rc = cu_set_reserve(&ev->nodes, st->deps.n)) != 0)
            return rc;
        event_capture(ev, st->capture, st->deps.v, st->deps.n);
    }
    if (node_out)
        *node_out = id;
    return 0;
}

/* The legacy stream waits (§4.5, first rule). */
static int wait_legacy(sc_cuda *cu, const cu_event *ev, const cu_ctx *ctx)
{
    bool live = ev && ev->state == CU_EV_CAPTURED && !ended(cu_cap(cu, ev->capture));
    if (!live && !cu->blocking_open)
        return 0;
    cu_invalidate_blocking(cu, ctx, SC_ECUDA_IMPLICIT);
    if (live)
        cu_invalidate(cu, ev->capture, ctx, SC_ECUDA_IMPLICIT);
    return SC_ECUDA_IMPLICIT;
}

/* A stream outside any capture waits: it joins the event's capture if
 * that is active (§4.5, second rule). */
static int wait_uncaptured(sc_cuda *cu, uint32_t stream, const cu_event *ev, bool external)
{
    if (external)
        return SC_ECUDA_INVALID_VALUE;
    if (!ev || ev->state != CU_EV_CAPTURED)
        return 0;
    cu_capture *c = cu_cap(cu, ev->capture);
    if (ended(c))
        return 0;
    if (c->state != SC_CUDA_STATE_ACTIVE)
        return SC_ECUDA_INVALIDATED;
    cu_stream *st;
    int rc = reserve_member(c);
    if (rc == 0)
        rc = get_stream(cu, stream, &st);
    if (rc == 0)
        rc = cu_set_reserve(&st->deps, ev->nodes.n);
    if (rc != 0)
        return rc;
    copy_ids(st->deps.v, ev->nodes.v, ev->nodes.n);
    st->deps.n = ev->nodes.n;
    join(cu, ev->capture, st);
    return 0;
}

/* s's dependency set becomes its union with the event's set. */
static int deps_union(sc_cuda *cu, cu_stream *st, const cu_set *add)
{
    if (add->n == 0)
        return 0;
    uint64_t need = (uint64_t)st->deps.n + add->n;
    int rc = cu_set_reserve(&cu->merged, need);
    if (rc == 0)
        rc = cu_set_reserve(&st->deps, need);
    if (rc != 0)
        return rc;
    uint32_t n = merge(st->deps.v, st->deps.n, add->v, add->n, cu->merged.v);
    copy_ids(st->deps.v, cu->merged.v, n);
    st->deps.n = n;
    return 0;
}

int sc_cuda_wait_event(sc_cuda *cu, uint32_t stream, uint32_t thread, uint32_t event, bool external,
                       uint32_t *node_out)
{
    if (!cu)
        return SC_EINVAL;
    cu->seq++;
    if (node_out)
        *node_out = SC_CUDA_NO_NODE;
    cu_ctx ctx = {.call = SC_CUDA_CALL_WAIT_EVENT,
                  .stream = stream,
                  .event = event,
                  .has_event = true,
                  .thread = thread};
    const cu_event *ev = cu_find_event(cu, event);
    if (stream == 0)
        return wait_legacy(cu, ev, &ctx);
    cu_stream *st = cu_find_stream(cu, stream);
    cu_capture *c = cu_capture_of(cu, st);
    if (!c)
        return wait_uncaptured(cu, stream, ev, external);
    if (c->state != SC_CUDA_STATE_ACTIVE)
        return SC_ECUDA_INVALIDATED;
    if (external) {
        sc_node n = {.kind = (sc_node_kind)SC_KIND_EVENT_WAIT, .name = "", .event = event};
        uint32_t id;
        int rc = append_on_stream(c->g, st, &n, &id);
        if (rc == 0 && node_out)
            *node_out = id;
        return rc;
    }
    if (!ev || ev->state == CU_EV_NEVER)
        return 0;
    if (ev->state == CU_EV_CAPTURED && ev->capture == st->capture)
        return deps_union(cu, st, &ev->nodes);
    if (ev->state == CU_EV_CAPTURED && !ended(cu_cap(cu, ev->capture))) {
        uint32_t other = ev->capture;
        cu_invalidate(cu, st->capture, &ctx, SC_ECUDA_MERGE);
        cu_invalidate(cu, other, &ctx, SC_ECUDA_MERGE);
        return SC_ECUDA_MERGE;
    }
    cu_invalidate(cu, st->capture, &ctx, SC_ECUDA_ISOLATION);
    return SC_ECUDA_ISOLATION;
}

/* ---- capture.update_dependencies (§4.6) ------------------------------ */

/* The stream's capture, for calls that need an active one: 401 / 901. */
static int active_capture(sc_cuda *cu, uint32_t stream, cu_stream **st, cu_capture **c)
{
    *st = stream ? cu_find_stream(cu, stream) : NULL;
    *c = cu_capture_of(cu, *st);
    if (!*c)
        return SC_ECUDA_ILLEGAL_STATE;
    if ((*c)->state != SC_CUDA_STATE_ACTIVE)
        return SC_ECUDA_INVALIDATED;
    return 0;
}

/* Copy ids into the scratch set, sorted and distinct, checking that each
 * is a node of the graph. */
static int sorted_ids(sc_cuda *cu, const sc_graph *g, const uint32_t *ids, size_t n,
                      uint32_t *count)
{
    if (n && !ids)
        return SC_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (ids[i] >= g->node_count)
            return SC_ECUDA_INVALID_VALUE;
    int rc = cu_set_reserve(&cu->scratch, n);
    if (rc != 0)
        return rc;
    if (n)
        copy_ids(cu->scratch.v, ids, n);
    *count = sc_sort_unique_u32(cu->scratch.v, (uint32_t)n);
    return 0;
}

int sc_cuda_update_dependencies(sc_cuda *cu, uint32_t stream, uint32_t thread,
                                const uint32_t *nodes, size_t n, sc_cuda_deps how)
{
    (void)thread;
    if (!cu || (unsigned)how > SC_CUDA_DEPS_SET)
        return SC_EINVAL;
    cu->seq++;
    cu_stream *st;
    cu_capture *c;
    int rc = active_capture(cu, stream, &st, &c);
    if (rc != 0)
        return rc;
    if (n > UINT32_MAX / 4)
        return SC_ELIMIT;
    uint32_t k;
    if ((rc = sorted_ids(cu, c->g, nodes, n, &k)) != 0)
        return rc;
    cu_set want = {.v = cu->scratch.v, .n = k};
    if (how == SC_CUDA_DEPS_ADD)
        return deps_union(cu, st, &want);
    if ((rc = cu_set_reserve(&st->deps, k)) != 0)
        return rc;
    for (uint32_t i = 0; i < st->deps.n; i++)
        if (!set_has(&want, st->deps.v[i]))
            sc_rec_at(c->g, st->deps.v[i])->flags |= SC_REC_RELEASED;
    copy_ids(st->deps.v, want.v, k);
    st->deps.n = k;
    return 0;
}

/* ---- capture.info / capture.status (§4.7) ----------------------------- */

int sc_cuda_info_get(sc_cuda *cu, uint32_t stream, uint32_t thread, sc_cuda_info *out)
{
    (void)thread;
    if (!cu || !out)
        return SC_EINVAL;
    cu->seq++;
    if (stream == 0 && cu->blocking_open)
        return SC_ECUDA_IMPLICIT;
    memset(out, 0, sizeof *out);
    cu_stream *st = stream ? cu_find_stream(cu, stream) : NULL;
    cu_capture *c = cu_capture_of(cu, st);
    if (!c)
        return 0;
    if (c->state != SC_CUDA_STATE_ACTIVE) {
        out->status = SC_CUDA_STATUS_INVALIDATED;
        return 0;
    }
    out->status = SC_CUDA_STATUS_ACTIVE;
    out->capture = st->capture;
    out->origin = c->origin;
    out->mode = (sc_cuda_mode)c->mode;
    out->deps = st->deps.v;
    out->ndeps = st->deps.n;
    return 0;
}

/* ---- capture.add_node (§4.12) ---------------------------------------- */

int sc_cuda_add_node(sc_cuda *cu, uint32_t stream, uint32_t thread, const sc_node *node,
                     const uint32_t *deps, size_t n, uint32_t *node_out)
{
    (void)thread;
    if (!cu || !node || !sc_node_valid(node))
        return SC_EINVAL;
    cu->seq++;
    cu_stream *st;
    cu_capture *c;
    int rc = active_capture(cu, stream, &st, &c);
    if (rc != 0)
        return rc;
    if (n > UINT32_MAX / 4)
        return SC_ELIMIT;
    uint32_t k, id;
    if ((rc = sorted_ids(cu, c->g, deps, n, &k)) != 0)
        return rc;
    if ((rc = append(c->g, node, stream, cu->scratch.v, k, SC_REC_BY_HAND, &id)) != 0)
        return rc;
    if (node_out)
        *node_out = id;
    return 0;
}
