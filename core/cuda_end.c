/*
 * cuda_end.c - ending cuda-mode captures (docs/cuda-semantics.md §4.9,
 * §4.10), the capture log's view of them (§6) and the wire names.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

/* ---- names -------------------------------------------------------- */

static const char *const mode_names[] = {"global", "thread_local", "relaxed"};
static const char *const host_names[] = {"unsafe", "stream_sync", "device_sync", "event_sync",
                                         "legacy_sync"};
static const char *const status_names[] = {"none", "active", "invalidated"};
static const char *const state_names[] = {"active", "invalidated", "completed", "failed",
                                          "discarded"};
static const char *const call_names[] = {
    "stream.create",
    "capture.begin",
    "capture.record_kernel",
    "capture.record_memcpy",
    "capture.record_memset",
    "capture.record_host_callback",
    "capture.record_mem_alloc",
    "capture.record_mem_free",
    "capture.record_event",
    "capture.wait_event",
    "capture.update_dependencies",
    "capture.info",
    "capture.host_call",
    "capture.exchange_mode",
    "capture.add_node",
    "capture.end",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
_Static_assert(COUNT(mode_names) == SC_CUDA_RELAXED + 1, "a name per sc_cuda_mode");
_Static_assert(COUNT(host_names) == SC_CUDA_HOST_LEGACY_SYNC + 1, "a name per sc_cuda_host");
_Static_assert(COUNT(state_names) == SC_CUDA_STATE_DISCARDED + 1, "a name per sc_cuda_state");
_Static_assert(COUNT(call_names) == SC_CUDA_CALL_END + 1, "a name per sc_cuda_call");

static const char *name_of(const char *const *names, size_t count, unsigned v)
{
    return v < count ? names[v] : NULL;
}

const char *sc_cuda_mode_name(sc_cuda_mode mode)
{
    return name_of(mode_names, COUNT(mode_names), (unsigned)mode);
}

const char *sc_cuda_host_name(sc_cuda_host kind)
{
    return name_of(host_names, COUNT(host_names), (unsigned)kind);
}

const char *sc_cuda_status_name(sc_cuda_status status)
{
    return name_of(status_names, COUNT(status_names), (unsigned)status);
}

const char *sc_cuda_state_name(sc_cuda_state state)
{
    return name_of(state_names, COUNT(state_names), (unsigned)state);
}

const char *sc_cuda_call_name(sc_cuda_call call)
{
    return name_of(call_names, COUNT(call_names), (unsigned)call);
}

static int parse_of(const char *const *names, size_t count, const char *s, size_t len)
{
    if (!s)
        return -1;
    for (size_t i = 0; i < count; i++)
        if (strlen(names[i]) == len && memcmp(names[i], s, len) == 0)
            return (int)i;
    return -1;
}

int sc_cuda_mode_parse(const char *s, size_t len, sc_cuda_mode *out)
{
    int i = parse_of(mode_names, COUNT(mode_names), s, len);
    if (i < 0 || !out)
        return SC_EINVAL;
    *out = (sc_cuda_mode)i;
    return 0;
}

int sc_cuda_host_parse(const char *s, size_t len, sc_cuda_host *out)
{
    int i = parse_of(host_names, COUNT(host_names), s, len);
    if (i < 0 || !out)
        return SC_EINVAL;
    *out = (sc_cuda_host)i;
    return 0;
}

/* ---- ending -------------------------------------------------------- */

/* The capture ends: its streams leave it, it leaves the open list, its
 * graph goes to the caller (success) or away. */
static void finish(sc_cuda *cu, uint32_t id, sc_cuda_state state, int error)
{
    cu_capture *c = cu_cap(cu, id);
    for (uint32_t i = 0; i < c->nmembers; i++) {
        cu_stream *st = &cu->streams[c->members[i]];
        st->capture = 0;
        st->g = NULL;
        st->deps.n = 0;
    }
    free(c->members);
    c->members = NULL;
    c->nmembers = c->members_cap = 0;
    if (c->nblocking)
        cu->blocking_open--;
    c->node_count = c->g ? c->g->node_count : c->node_count;
    sc_graph_destroy(c->g);
    c->g = NULL;
    c->state = (uint8_t)state;
    c->error = error;
    uint32_t w = 0;
    for (uint32_t i = 0; i < cu->nopen; i++)
        if (cu->open[i] != id)
            cu->open[w++] = cu->open[i];
    cu->nopen = w;
}

void sc_cuda_discard(sc_cuda *cu)
{
    if (!cu)
        return;
    while (cu->nopen)
        finish(cu, cu->open[cu->nopen - 1], SC_CUDA_STATE_DISCARDED, 0);
}

/* Mark the joined nodes (§4.9 step 5): in the origin's set, released,
 * added by hand, or an ancestor of a joined node.  Ids are a topological
 * order, so one pass from the last node down propagates to ancestors. */
static void mark_joined(const sc_graph *g, const cu_set *origin, uint8_t *joined)
{
    for (uint32_t i = 0; i < origin->n; i++)
        joined[origin->v[i]] = 1;
    for (uint32_t id = g->node_count; id-- > 0;) {
        const sc_rec *r = sc_rec_at(g, id);
        if (r->flags & (SC_REC_RELEASED | SC_REC_BY_HAND))
            joined[id] = 1;
        if (!joined[id])
            continue;
        for (uint32_t k = r->pred_start, end = sc_pred_end(g, id); k < end; k++)
            joined[*sc_pred_at(g, k)] = 1;
    }
}

static int cmp_unjoined(const void *a, const void *b)
{
    uint32_t x = ((const sc_cuda_unjoined *)a)->stream, y = ((const sc_cuda_unjoined *)b)->stream;
    return (x > y) - (x < y);
}

/* List, per member stream, the unjoined nodes of its dependency set.
 * *found tells whether any node at all is unjoined. */
static int list_unjoined(const sc_cuda *cu, const cu_capture *c, const uint8_t *joined,
                         sc_cuda_end_result *out)
{
    size_t total = 0;
    for (uint32_t i = 0; i < c->nmembers; i++) {
        const cu_set *d = &cu->streams[c->members[i]].deps;
        for (uint32_t k = 0; k < d->n; k++)
            total += !joined[d->v[k]];
    }
    out->unjoined = calloc(c->nmembers ? c->nmembers : 1, sizeof *out->unjoined);
    out->node_buf = malloc((total ? total : 1) * sizeof *out->node_buf);
    if (!out->unjoined || !out->node_buf)
        return SC_ENOMEM;
    uint32_t w = 0;
    for (uint32_t i = 0; i < c->nmembers; i++) {
        const cu_stream *st = &cu->streams[c->members[i]];
        uint32_t first = w;
        for (uint32_t k = 0; k < st->deps.n; k++)
            if (!joined[st->deps.v[k]])
                out->node_buf[w++] = st->deps.v[k];
        if (w > first)
            out->unjoined[out->nunjoined++] =
                (sc_cuda_unjoined){st->id, w - first, out->node_buf + first};
    }
    qsort(out->unjoined, out->nunjoined, sizeof *out->unjoined, cmp_unjoined);
    return 0;
}

/* Steps 5 and 6: every node joined -> seal; otherwise 904 with the list. */
static int end_active(sc_cuda *cu, uint32_t id, const cu_stream *origin, sc_cuda_end_result *out)
{
    cu_capture *c = cu_cap(cu, id);
    sc_graph *g = c->g;
    uint8_t *joined = calloc(g->node_count ? g->node_count : 1, 1);
    if (!joined)
        return SC_ENOMEM;
    mark_joined(g, &origin->deps, joined);
    bool all = true;
    for (uint32_t i = 0; i < g->node_count && all; i++)
        all = joined[i];
    int rc = all ? sc_graph_seal(g) : list_unjoined(cu, c, joined, out);
    free(joined);
    if (rc != 0) {
        sc_cuda_end_free(out);
        out->capture = id;
        return rc;
    }
    if (!all) {
        finish(cu, id, SC_CUDA_STATE_FAILED, SC_ECUDA_UNJOINED);
        return SC_ECUDA_UNJOINED;
    }
    out->graph = g;
    c->node_count = g->node_count;
    c->g = NULL;
    finish(cu, id, SC_CUDA_STATE_COMPLETED, 0);
    return 0;
}

int sc_cuda_end(sc_cuda *cu, uint32_t stream, uint32_t thread, sc_cuda_end_result *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!cu || !out)
        return SC_EINVAL;
    cu->seq++;
    cu_stream *st = stream ? cu_find_stream(cu, stream) : NULL;
    if (!st || !st->capture)
        return SC_ECUDA_ILLEGAL_STATE;
    uint32_t id = st->capture;
    cu_capture *c = cu_cap(cu, id);
    out->capture = id;
    cu_ctx ctx = {.call = SC_CUDA_CALL_END, .stream = stream, .thread = thread};
    if (c->origin != stream) {
        cu_invalidate(cu, id, &ctx, SC_ECUDA_UNMATCHED);
        return SC_ECUDA_UNMATCHED;
    }
    if (c->mode != SC_CUDA_RELAXED && thread != c->thread) {
        cu_invalidate(cu, id, &ctx, SC_ECUDA_WRONG_THREAD);
        return SC_ECUDA_WRONG_THREAD;
    }
    if (c->state != SC_CUDA_STATE_ACTIVE) {
        finish(cu, id, SC_CUDA_STATE_FAILED, SC_ECUDA_INVALIDATED);
        return SC_ECUDA_INVALIDATED;
    }
    return end_active(cu, id, st, out);
}

void sc_cuda_end_free(sc_cuda_end_result *res)
{
    if (!res)
        return;
    sc_graph_destroy(res->graph);
    free(res->unjoined);
    free(res->node_buf);
    res->graph = NULL;
    res->unjoined = NULL;
    res->node_buf = NULL;
    res->nunjoined = 0;
}

/* ---- queries -------------------------------------------------------- */

uint32_t sc_cuda_capture_count(const sc_cuda *cu)
{
    return cu ? cu->ncaps : 0;
}

int sc_cuda_capture_get(const sc_cuda *cu, uint32_t capture, sc_cuda_capture_info *out)
{
    if (!cu || !out)
        return SC_EINVAL;
    if (capture == 0 || capture > cu->ncaps)
        return SC_ENOTFOUND;
    const cu_capture *c = cu_cap(cu, capture);
    *out = (sc_cuda_capture_info){
        .capture = capture,
        .origin = c->origin,
        .mode = (sc_cuda_mode)c->mode,
        .thread = c->thread,
        .state = (sc_cuda_state)c->state,
        .error = c->error,
        .invalidated = c->invalidated,
        .why = c->why,
        .node_count = c->g ? c->g->node_count : c->node_count,
    };
    return 0;
}

uint64_t sc_cuda_call_seq(const sc_cuda *cu)
{
    return cu ? cu->seq : 0;
}

uint32_t sc_cuda_stream_capture(const sc_cuda *cu, uint32_t stream)
{
    const cu_stream *st = cu && stream ? cu_find_stream((sc_cuda *)cu, stream) : NULL;
    return st ? st->capture : 0;
}

int sc_cuda_node(const sc_cuda *cu, uint32_t capture, uint32_t id, sc_node *out)
{
    if (!cu || !out)
        return SC_EINVAL;
    if (capture == 0 || capture > cu->ncaps || !cu_cap(cu, capture)->g)
        return SC_ENOTFOUND;
    return sc_graph_node(cu_cap(cu, capture)->g, id, out);
}

size_t sc_cuda_memory(const sc_cuda *cu)
{
    if (!cu)
        return 0;
    size_t b = sizeof *cu;
    b += (size_t)cu->streams_cap * sizeof(cu_stream) + (size_t)cu->events_cap * sizeof(cu_event);
    b += (size_t)cu->caps_cap * sizeof(cu_capture) + (size_t)cu->open_cap * sizeof(uint32_t);
    for (uint32_t i = 0; i < cu->nstreams; i++)
        b += (size_t)cu->streams[i].deps.cap * sizeof(uint32_t);
    for (uint32_t i = 0; i < cu->nevents; i++)
        b += (size_t)cu->events[i].nodes.cap * sizeof(uint32_t);
    for (uint32_t i = 0; i < cu->ncaps; i++) {
        const cu_capture *c = &cu->caps[i];
        b += (size_t)c->members_cap * sizeof(uint32_t);
        if (c->g)
            b += sc_graph_storage_bytes(c->g);
    }
    b += ((size_t)cu->scratch.cap + cu->merged.cap) * sizeof(uint32_t);
    b += sc_idmap_bytes(&cu->stream_index) + sc_idmap_bytes(&cu->event_index) +
         sc_idmap_bytes(&cu->thread_mode);
    return b;
}
