/*
 * capture.c - the stream-capture session (docs/semantics.md §2 to §9).
 *
 * Every operation checks and allocates before it changes anything, so a
 * failed call leaves the session as it was (docs/semantics.md §4: a call
 * that fails the check has no effect; we extend that to SC_ENOMEM).
 */
#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"
#include "sc_capture.h"

typedef struct sc_stream {
    uint32_t id;
    uint8_t status;
    uint32_t head; /* last node recorded on the stream, SC_NO_NODE before the first */
    uint32_t nparked;
    uint32_t parked_cap;
    uint32_t *parked; /* sources of waits for the stream's next op */
} sc_stream;

struct sc_capture {
    sc_graph *g;        /* nodes and edges, handed over by sc_capture_end */
    sc_stream *streams; /* dense, in order of first begin; never removed */
    uint32_t nstreams;
    uint32_t streams_cap;
    sc_idmap stream_index; /* stream id -> index into streams */
    uint32_t last;         /* index of the stream used last (the hot path) */
    sc_idmap events;       /* event id -> source node */
    uint32_t active;       /* streams currently active */
    bool poisoned;
};

static const char *const status_names[] = {"none", "active", "invalidated"};

const char *sc_status_name(sc_status status)
{
    return (unsigned)status <= SC_STATUS_INVALIDATED ? status_names[status] : NULL;
}

int sc_capture_create(sc_capture **out)
{
    if (!out)
        return SC_EINVAL;
    sc_capture *cap = calloc(1, sizeof *cap);
    if (!cap)
        return SC_ENOMEM;
    int rc = sc_graph_create(&cap->g);
    if (rc != 0) {
        free(cap);
        return rc;
    }
    cap->last = UINT32_MAX;
    *out = cap;
    return 0;
}

void sc_capture_destroy(sc_capture *cap)
{
    if (!cap)
        return;
    for (uint32_t i = 0; i < cap->nstreams; i++)
        free(cap->streams[i].parked);
    free(cap->streams);
    sc_idmap_free(&cap->stream_index);
    sc_idmap_free(&cap->events);
    sc_graph_destroy(cap->g);
    free(cap);
}

static sc_stream *find_stream(const sc_capture *cap, uint32_t id)
{
    if (cap->last < cap->nstreams && cap->streams[cap->last].id == id)
        return &cap->streams[cap->last];
    uint32_t i = sc_idmap_get(&cap->stream_index, id);
    return i == SC_NO_NODE ? NULL : &cap->streams[i];
}

static sc_stream *use_stream(sc_capture *cap, uint32_t id)
{
    sc_stream *st = find_stream(cap, id);
    if (st)
        cap->last = (uint32_t)(st - cap->streams);
    return st;
}

/* docs/semantics.md §4: "s is active". */
static int active_stream(sc_capture *cap, uint32_t id, sc_stream **out)
{
    sc_stream *st = use_stream(cap, id);
    if (!st)
        return SC_ENOTCAPTURING;
    if (st->status != SC_STATUS_ACTIVE)
        return SC_EINVALIDATED;
    *out = st;
    return 0;
}

sc_status sc_capture_status(const sc_capture *cap, uint32_t stream)
{
    if (!cap)
        return SC_STATUS_NONE;
    const sc_stream *st = find_stream(cap, stream);
    return st ? (sc_status)st->status : SC_STATUS_NONE;
}

bool sc_capture_is_capturing(const sc_capture *cap)
{
    return cap && cap->active > 0;
}

uint32_t sc_capture_node_count(const sc_capture *cap)
{
    return cap ? cap->g->node_count : 0;
}

static int add_stream(sc_capture *cap, uint32_t id, sc_stream **out)
{
    if (cap->nstreams == cap->streams_cap) {
        uint32_t n = cap->streams_cap ? cap->streams_cap * 2 : 8;
        if (n <= cap->streams_cap)
            return SC_ELIMIT;
        sc_stream *p = realloc(cap->streams, (size_t)n * sizeof *p);
        if (!p)
            return SC_ENOMEM;
        cap->streams = p;
        cap->streams_cap = n;
    }
    int rc = sc_idmap_put(&cap->stream_index, id, cap->nstreams);
    if (rc != 0)
        return rc;
    sc_stream *st = &cap->streams[cap->nstreams];
    memset(st, 0, sizeof *st);
    st->id = id;
    st->head = SC_NO_NODE;
    cap->last = cap->nstreams++;
    *out = st;
    return 0;
}

/* Beginning an invalidated stream reactivates it and keeps its head and
 * parked waits; the session stays poisoned (docs/semantics.md §4.4). */
int sc_capture_begin(sc_capture *cap, uint32_t stream)
{
    if (!cap)
        return SC_EINVAL;
    sc_stream *st = use_stream(cap, stream);
    if (st && st->status == SC_STATUS_ACTIVE)
        return SC_EALREADY;
    if (!st) {
        int rc = add_stream(cap, stream, &st);
        if (rc != 0)
            return rc;
    }
    st->status = SC_STATUS_ACTIVE;
    cap->active++;
    return 0;
}

/* Write the new node's sources: the parked waits, then the previous head,
 * each once (docs/semantics.md §4.5 steps 3 and 4).  Capacity was reserved by the caller.
 * Returns the number written. */
static uint32_t write_preds(sc_graph *g, sc_stream *st)
{
    uint32_t at = g->pred_count;
    if (st->nparked == 0) {
        if (st->head == SC_NO_NODE)
            return 0;
        *sc_pred_at(g, at) = st->head;
        return 1;
    }
    uint32_t small[9];
    uint32_t *v = st->parked, n = st->nparked;
    if (n < 9) {
        memcpy(small, st->parked, n * sizeof *small);
        v = small;
        if (st->head != SC_NO_NODE)
            small[n++] = st->head;
        n = sc_sort_unique_u32(v, n);
        for (uint32_t i = 0; i < n; i++)
            *sc_pred_at(g, at + i) = v[i];
        st->nparked = 0;
        return n;
    }
    /* Many waits: sort the parked list in place (it is being drained) and
     * merge the head in. */
    n = sc_sort_unique_u32(v, n);
    uint32_t w = 0, head = st->head;
    for (uint32_t i = 0; i < n; i++) {
        if (head != SC_NO_NODE && head <= v[i]) {
            if (head < v[i])
                *sc_pred_at(g, at + w++) = head;
            head = SC_NO_NODE;
        }
        *sc_pred_at(g, at + w++) = v[i];
    }
    if (head != SC_NO_NODE)
        *sc_pred_at(g, at + w++) = head;
    st->nparked = 0;
    return w;
}

/* docs/semantics.md §4.5: check, append the node, drain parked waits, chain to the head. */
static int record(sc_capture *cap, uint32_t stream, const char *name, size_t len,
                  const sc_rec *proto, const sc_node *extra, uint32_t *node_out)
{
    if (!cap || (!name && len) || (extra && !sc_node_accesses_valid(extra)))
        return SC_EINVAL;
    sc_stream *st;
    int rc = active_stream(cap, stream, &st);
    if (rc != 0)
        return rc;
    sc_graph *g = cap->g;
    if (g->node_count >= SC_MAX_NODE)
        return SC_ELIMIT;
    uint32_t edges = st->nparked + (st->head != SC_NO_NODE);
    if ((uint64_t)g->pred_count + edges > SC_MAX_EDGE)
        return SC_ELIMIT;
    if (g->node_count >= sc_chunks_capacity(&g->nodes, SC_NODE_SHIFT) ||
        (uint64_t)g->pred_count + edges > sc_chunks_capacity(&g->preds, SC_PRED_SHIFT)) {
        rc = sc_graph_reserve(g, edges);
        if (rc != 0)
            return rc;
    }
    uint32_t ref;
    rc = sc_graph_intern(g, name, len, &ref);
    if (rc != 0)
        return rc;

    uint32_t id = g->node_count;
    sc_rec *r = sc_rec_at(g, id);
    *r = *proto;
    r->stream = stream;
    if (extra && ((rc = sc_graph_set_args(g, r, extra)) != 0 ||
                  (rc = sc_graph_set_accesses(g, r, id, extra)) != 0))
        return rc;
    r->name = ref;
    r->pred_start = g->pred_count;
    g->pred_count += write_preds(g, st);
    g->node_count++;
    st->head = id;
    if (node_out)
        *node_out = id;
    return 0;
}

int sc_capture_record_kernel(sc_capture *cap, uint32_t stream, const char *function_name,
                             size_t name_len, uint32_t num_blocks, uint32_t threads_per_block,
                             uint32_t shared_mem, uint32_t *node_out)
{
    sc_rec r = {0};
    r.kind = SC_KIND_KERNEL;
    r.u.k.blocks = num_blocks;
    r.u.k.threads = threads_per_block;
    r.x = shared_mem;
    return record(cap, stream, function_name, name_len, &r, NULL, node_out);
}

int sc_capture_record_kernel_node(sc_capture *cap, uint32_t stream, const sc_node *k,
                                  uint32_t *node_out)
{
    if (!k || k->kind != SC_KIND_KERNEL || !sc_node_valid(k))
        return SC_EINVAL;
    sc_rec r = {0};
    r.kind = SC_KIND_KERNEL;
    r.u.k.blocks = k->num_blocks;
    r.u.k.threads = k->threads_per_block;
    r.x = k->shared_mem;
    return record(cap, stream, k->name, k->name_len, &r, k, node_out);
}

int sc_capture_record_node(sc_capture *cap, uint32_t stream, const sc_node *n, uint32_t *node_out)
{
    if (!n || !sc_node_valid(n))
        return SC_EINVAL;
    switch ((int)n->kind) {
    case SC_KIND_KERNEL:
    case SC_KIND_MEMCPY:
    case SC_KIND_MEMSET:
    case SC_KIND_HOST_CALLBACK:
        break;
    default:
        return SC_EINVAL;
    }
    if (n->kind == SC_KIND_MEMCPY && (unsigned)n->dir > SC_DIR_PEER_TO_PEER)
        return SC_EINVAL;
    /* The default mode keeps no launch shape: a 1-D copy needs no dims
     * entry, so the record can be built without the graph. */
    sc_node flat = *n;
    flat.grid_y = flat.grid_z = flat.block_y = flat.block_z = 1;
    sc_rec r;
    sc_graph_rec_from_node(NULL, &r, &flat);
    return record(cap, stream, n->name, n->name_len, &r, n, node_out);
}

int sc_capture_record_memcpy(sc_capture *cap, uint32_t stream, const char *name, size_t name_len,
                             sc_memcpy_dir dir, uint64_t size_bytes, uint32_t src_device,
                             uint32_t dst_device, uint32_t *node_out)
{
    if ((unsigned)dir > SC_DIR_PEER_TO_PEER)
        return SC_EINVAL;
    sc_rec r = {0};
    r.kind = SC_KIND_MEMCPY;
    r.dir = (uint8_t)dir;
    r.u.size = size_bytes;
    if (dir == SC_DIR_PEER_TO_PEER) {
        r.x = src_device;
        r.y = dst_device;
    }
    return record(cap, stream, name, name_len, &r, NULL, node_out);
}

int sc_capture_record_memset(sc_capture *cap, uint32_t stream, const char *name, size_t name_len,
                             uint64_t size_bytes, uint8_t value, uint32_t *node_out)
{
    sc_rec r = {0};
    r.kind = SC_KIND_MEMSET;
    r.u.size = size_bytes;
    r.value = value;
    return record(cap, stream, name, name_len, &r, NULL, node_out);
}

int sc_capture_record_host_callback(sc_capture *cap, uint32_t stream, const char *label,
                                    size_t label_len, uint32_t *node_out)
{
    sc_rec r = {0};
    r.kind = SC_KIND_HOST_CALLBACK;
    return record(cap, stream, label, label_len, &r, NULL, node_out);
}

/* docs/semantics.md §4.6: only the head is captured; parked waits are not included, and
 * a stream without a head leaves the event as it was. */
int sc_capture_record_event(sc_capture *cap, uint32_t stream, uint32_t event)
{
    if (!cap)
        return SC_EINVAL;
    sc_stream *st;
    int rc = active_stream(cap, stream, &st);
    if (rc != 0)
        return rc;
    if (st->head == SC_NO_NODE)
        return 0;
    return sc_idmap_put(&cap->events, event, st->head);
}

/* docs/semantics.md §4.7: the event's source is copied now (a snapshot); an event that
 * never got a source makes the wait a no-op. */
int sc_capture_wait_event(sc_capture *cap, uint32_t stream, uint32_t event)
{
    if (!cap)
        return SC_EINVAL;
    sc_stream *st;
    int rc = active_stream(cap, stream, &st);
    if (rc != 0)
        return rc;
    uint32_t src = sc_idmap_get(&cap->events, event);
    if (src == SC_NO_NODE)
        return 0;
    if (st->nparked == st->parked_cap) {
        if (st->parked_cap >= UINT32_MAX / 2)
            return SC_ELIMIT;
        uint32_t n = st->parked_cap ? st->parked_cap * 2 : 4;
        uint32_t *p = realloc(st->parked, (size_t)n * sizeof *p);
        if (!p)
            return SC_ENOMEM;
        st->parked = p;
        st->parked_cap = n;
    }
    st->parked[st->nparked++] = src;
    return 0;
}

int sc_capture_invalidate(sc_capture *cap, uint32_t stream)
{
    if (!cap)
        return SC_EINVAL;
    sc_stream *st;
    int rc = active_stream(cap, stream, &st);
    if (rc != 0)
        return rc;
    st->status = SC_STATUS_INVALIDATED;
    cap->active--;
    cap->poisoned = true;
    return 0;
}

/* docs/semantics.md §4.9: the checks run in this order, and the session is consumed
 * whatever the outcome. */
int sc_capture_end(sc_capture *cap, uint32_t stream, sc_graph **graph_out)
{
    if (graph_out)
        *graph_out = NULL;
    if (!cap)
        return SC_EINVAL;
    const sc_stream *st = find_stream(cap, stream);
    int rc;
    if (!graph_out)
        rc = SC_EINVAL;
    else if (st && st->status == SC_STATUS_INVALIDATED)
        rc = SC_EILLEGAL;
    else if (!st)
        rc = SC_ENOTCAPTURING;
    else if (cap->poisoned)
        rc = SC_EPOISONED;
    else {
        uint32_t with_nodes = 0;
        for (uint32_t i = 0; i < cap->nstreams; i++)
            with_nodes += cap->streams[i].head != SC_NO_NODE;
        rc = sc_graph_seal_captured(cap->g, with_nodes);
        if (rc == 0) {
            *graph_out = cap->g;
            cap->g = NULL;
        }
    }
    sc_capture_destroy(cap);
    return rc;
}

uint32_t sc_capture_stream_count(const sc_capture *cap)
{
    return cap ? cap->nstreams : 0;
}

int sc_capture_stream_at(const sc_capture *cap, uint32_t i, uint32_t *stream, sc_status *status)
{
    if (!cap || !stream || !status)
        return SC_EINVAL;
    if (i >= cap->nstreams)
        return SC_ENOTFOUND;
    *stream = cap->streams[i].id;
    *status = (sc_status)cap->streams[i].status;
    return 0;
}

int sc_capture_node(const sc_capture *cap, uint32_t id, sc_node *out)
{
    if (!cap)
        return SC_EINVAL;
    return sc_graph_node(cap->g, id, out);
}

int sc_capture_predecessors(const sc_capture *cap, uint32_t id, uint32_t *out, uint32_t max,
                            uint32_t *count)
{
    if (!cap)
        return SC_EINVAL;
    return sc_graph_predecessors(cap->g, id, out, max, count);
}

size_t sc_capture_memory(const sc_capture *cap)
{
    if (!cap)
        return 0;
    size_t b = sizeof *cap + sc_graph_storage_bytes(cap->g);
    b += (size_t)cap->streams_cap * sizeof(sc_stream);
    for (uint32_t i = 0; i < cap->nstreams; i++)
        b += (size_t)cap->streams[i].parked_cap * sizeof(uint32_t);
    b += sc_idmap_bytes(&cap->stream_index) + sc_idmap_bytes(&cap->events);
    return b;
}
