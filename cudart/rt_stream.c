/*
 * rt_stream.c - streams, events and host functions.  Work is done when it
 * is issued, so a stream is always idle and an event recorded outside
 * capture is complete at once; what capture makes of each call is the
 * model's (docs/cuda-semantics.md §4).
 */
#include <stdlib.h>

#include "rt_int.h"

#define SC_RT_PRIO_LEAST    0
#define SC_RT_PRIO_GREATEST (-5)

static bool special_stream(cudaStream_t s)
{
    return s == NULL || s == cudaStreamLegacy || s == cudaStreamPerThread;
}

/* The live lists (lock held).  Destroy looks the handle up first, so a
 * handle destroyed twice, or by cudaDeviceReset before, is an error and not
 * a double free. */
static void stream_link(sc_rt_state *st, struct CUstream_st *s)
{
    s->prev = NULL;
    s->next = st->streams;
    if (st->streams)
        st->streams->prev = s;
    st->streams = s;
    st->nstreams++;
}

static bool stream_unlink(sc_rt_state *st, struct CUstream_st *s)
{
    struct CUstream_st *p = st->streams;
    while (p && p != s)
        p = p->next;
    if (!p)
        return false;
    if (s->prev)
        s->prev->next = s->next;
    else
        st->streams = s->next;
    if (s->next)
        s->next->prev = s->prev;
    st->nstreams--;
    return true;
}

static void event_link(sc_rt_state *st, struct CUevent_st *e)
{
    e->prev = NULL;
    e->next = st->events;
    if (st->events)
        st->events->prev = e;
    st->events = e;
    st->nevents++;
}

static bool event_live(const sc_rt_state *st, const struct CUevent_st *e)
{
    const struct CUevent_st *p = st->events;
    while (p && p != e)
        p = p->next;
    return p != NULL;
}

static bool event_unlink(sc_rt_state *st, struct CUevent_st *e)
{
    if (!event_live(st, e))
        return false;
    if (e->prev)
        e->prev->next = e->next;
    else
        st->events = e->next;
    if (e->next)
        e->next->prev = e->prev;
    st->nevents--;
    return true;
}

void sc_rt_handles_reset(sc_rt_state *st)
{
    while (st->streams) {
        struct CUstream_st *s = st->streams;
        st->streams = s->next;
        free(s);
    }
    while (st->events) {
        struct CUevent_st *e = st->events;
        st->events = e->next;
        free(e);
    }
    st->nstreams = 0;
    st->nevents = 0;
}

SC_RT_EXPORT cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags,
                                                      int priority)
{
    SC_RT_ENTER();
    if (!pStream || (flags & ~(unsigned int)cudaStreamNonBlocking))
        SC_RT_RETURN(cudaErrorInvalidValue);
    struct CUstream_st *s = calloc(1, sizeof *s);
    if (!s)
        SC_RT_RETURN(cudaErrorMemoryAllocation);
    if (priority > SC_RT_PRIO_LEAST)
        priority = SC_RT_PRIO_LEAST;
    if (priority < SC_RT_PRIO_GREATEST)
        priority = SC_RT_PRIO_GREATEST;
    sc_rt_state *st = SC_RT_LOCK();
    s->id = st->next_stream++;
    s->flags = flags;
    s->priority = priority;
    if (flags & cudaStreamNonBlocking) {
        /* A fresh id in no capture: declaring it cannot fail but for memory. */
        int rc = sc_cuda_stream_create(st->cu, s->id, true);
        if (rc == 0)
            sc_rt_feed_stream_create(st, s->id, true);
        if (rc != 0) {
            SC_RT_UNLOCK();
            free(s);
            SC_RT_RETURN(sc_rt_from_model(rc));
        }
    }
    stream_link(st, s);
    SC_RT_UNLOCK();
    *pStream = s;
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    SC_RT_ENTER();
    SC_RT_RETURN(cudaStreamCreateWithPriority(pStream, flags, 0));
}

SC_RT_EXPORT cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(cudaStreamCreateWithPriority(pStream, cudaStreamDefault, 0));
}

SC_RT_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    SC_RT_ENTER();
    if (special_stream(stream))
        SC_RT_RETURN(cudaErrorInvalidResourceHandle);
    /* The model keeps the id (a stream destroyed during capture stays a
     * member until the capture ends, as in CUDA); only the handle goes. */
    sc_rt_state *st = SC_RT_LOCK();
    bool live = stream_unlink(st, stream);
    SC_RT_UNLOCK();
    if (!live)
        SC_RT_RETURN(cudaErrorInvalidResourceHandle);
    free(stream);
    SC_RT_RETURN(cudaSuccess);
}

static cudaError_t stream_sync(sc_rt_call *c, cudaStream_t s, bool ptsz, const char *call)
{
    sc_rt_state *st = sc_rt_call_lock(c);
    cudaError_t e = sc_rt_host(st, SC_CUDA_HOST_STREAM_SYNC, sc_rt_stream_id(st, s, ptsz), 0, call);
    return e;
}

SC_RT_EXPORT cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(stream_sync(SC_RT_CALL, stream, false, "cudaStreamQuery"));
}

SC_RT_EXPORT cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(stream_sync(SC_RT_CALL, stream, true, "cudaStreamQuery"));
}

SC_RT_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(stream_sync(SC_RT_CALL, stream, false, "cudaStreamSynchronize"));
}

SC_RT_EXPORT cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(stream_sync(SC_RT_CALL, stream, true, "cudaStreamSynchronize"));
}

SC_RT_EXPORT cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)
{
    SC_RT_ENTER();
    if (!flags)
        SC_RT_RETURN(cudaErrorInvalidValue);
    *flags = special_stream(hStream) ? cudaStreamDefault : hStream->flags;
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int *flags)
{
    SC_RT_ENTER();
    SC_RT_RETURN(cudaStreamGetFlags(hStream, flags));
}

SC_RT_EXPORT cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
    SC_RT_ENTER();
    if (!priority)
        SC_RT_RETURN(cudaErrorInvalidValue);
    *priority = special_stream(hStream) ? 0 : hStream->priority;
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t hStream, int *priority)
{
    SC_RT_ENTER();
    SC_RT_RETURN(cudaStreamGetPriority(hStream, priority));
}

static cudaError_t stream_get_id(sc_rt_call *c, cudaStream_t s, bool ptsz, unsigned long long *out)
{
    if (!out)
        return cudaErrorInvalidValue;
    sc_rt_state *st = sc_rt_call_lock(c);
    *out = sc_rt_stream_id(st, s, ptsz);
    return cudaSuccess;
}

SC_RT_EXPORT cudaError_t cudaStreamGetId(cudaStream_t hStream, unsigned long long *streamId)
{
    SC_RT_ENTER();
    SC_RT_RETURN(stream_get_id(SC_RT_CALL, hStream, false, streamId));
}

SC_RT_EXPORT cudaError_t cudaStreamGetId_ptsz(cudaStream_t hStream, unsigned long long *streamId)
{
    SC_RT_ENTER();
    SC_RT_RETURN(stream_get_id(SC_RT_CALL, hStream, true, streamId));
}

SC_RT_EXPORT cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int *device)
{
    SC_RT_ENTER();
    (void)hStream;
    if (!device)
        SC_RT_RETURN(cudaErrorInvalidValue);
    *device = 0;
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t hStream, int *device)
{
    SC_RT_ENTER();
    SC_RT_RETURN(cudaStreamGetDevice(hStream, device));
}

/* ---------------------------------------------------------------- events */

SC_RT_EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    SC_RT_ENTER();
    unsigned int known = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
    if (!event || (flags & ~known) ||
        ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming)))
        SC_RT_RETURN(cudaErrorInvalidValue);
    struct CUevent_st *e = calloc(1, sizeof *e);
    if (!e)
        SC_RT_RETURN(cudaErrorMemoryAllocation);
    sc_rt_state *st = SC_RT_LOCK();
    e->id = st->next_event++;
    e->flags = flags;
    event_link(st, e);
    SC_RT_UNLOCK();
    *event = e;
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    SC_RT_ENTER();
    SC_RT_RETURN(cudaEventCreateWithFlags(event, cudaEventDefault));
}

SC_RT_EXPORT cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    SC_RT_ENTER();
    if (!event)
        SC_RT_RETURN(cudaErrorInvalidResourceHandle);
    sc_rt_state *st = SC_RT_LOCK();
    bool live = event_unlink(st, event);
    SC_RT_UNLOCK();
    if (!live)
        SC_RT_RETURN(cudaErrorInvalidResourceHandle);
    free(event);
    SC_RT_RETURN(cudaSuccess);
}

static cudaError_t event_record(sc_rt_call *c, cudaEvent_t ev, cudaStream_t s, unsigned int flags,
                                bool ptsz)
{
    if (!ev)
        return cudaErrorInvalidResourceHandle;
    if (flags & ~(unsigned int)cudaEventRecordExternal)
        return cudaErrorInvalidValue;
    bool external = flags & cudaEventRecordExternal;
    sc_rt_state *st = sc_rt_call_lock(c);
    sc_rt_thread *t = sc_rt_thread_get(st);
    uint32_t stream = sc_rt_stream_id(st, s, ptsz);
    uint32_t node = SC_CUDA_NO_NODE;
    int rc = sc_cuda_record_event(st->cu, stream, t->id, ev->id, external, &node);
    /* Outside every capture the record still changes the event's state
     * (§4.4), so the daemon hears of it unless it failed. */
    if (rc == 0 || st->nactive)
        sc_rt_feed_event(st, stream, t->id, ev->id, false, external, rc ? "cudaEventRecord" : NULL);
    cudaError_t e = cudaSuccess;
    if (rc != 0) {
        sc_rt_note_invalidations(st, "cudaEventRecord");
        e = sc_rt_from_model(rc);
    } else if (node != SC_CUDA_NO_NODE) {
        sc_rt_capture *cap = sc_rt_capture_slot(st, sc_rt_stream_capture(st, stream));
        sc_rt_node_desc d = {0};
        d.type = cudaGraphNodeTypeEventRecord;
        d.event = ev;
        if (cap && cap->graph)
            e = sc_rt_graph_append(cap->graph, &d, NULL, 0, NULL);
    } else if (sc_rt_stream_capture(st, stream) == 0) {
        ev->timed = true;
        ev->ns = sc_rt_now_ns();
    }
    return e;
}

SC_RT_EXPORT cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(event_record(SC_RT_CALL, event, stream, 0, false));
}

SC_RT_EXPORT cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(event_record(SC_RT_CALL, event, stream, 0, true));
}

SC_RT_EXPORT cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                                  unsigned int flags)
{
    SC_RT_ENTER();
    SC_RT_RETURN(event_record(SC_RT_CALL, event, stream, flags, false));
}

SC_RT_EXPORT cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream,
                                                       unsigned int flags)
{
    SC_RT_ENTER();
    SC_RT_RETURN(event_record(SC_RT_CALL, event, stream, flags, true));
}

uint32_t sc_rt_event_id(cudaEvent_t e)
{
    return e && event_live(sc_rt_state_get(), e) ? e->id : 0;
}

/* A graph keeps the event handles its nodes were given; one destroyed since
 * (cudaEventDestroy, cudaDeviceReset) is no longer touched. */
void sc_rt_event_reached(cudaEvent_t e)
{
    if (e && event_live(sc_rt_state_get(), e)) {
        e->timed = true;
        e->ns = sc_rt_now_ns();
    }
}

static cudaError_t event_sync(sc_rt_call *c, cudaEvent_t ev, const char *call)
{
    if (!ev)
        return cudaErrorInvalidResourceHandle;
    sc_rt_state *st = sc_rt_call_lock(c);
    cudaError_t e = sc_rt_host(st, SC_CUDA_HOST_EVENT_SYNC, 0, ev->id, call);
    return e;
}

SC_RT_EXPORT cudaError_t cudaEventQuery(cudaEvent_t event)
{
    SC_RT_ENTER();
    SC_RT_RETURN(event_sync(SC_RT_CALL, event, "cudaEventQuery"));
}

SC_RT_EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    SC_RT_ENTER();
    SC_RT_RETURN(event_sync(SC_RT_CALL, event, "cudaEventSynchronize"));
}

SC_RT_EXPORT cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    SC_RT_ENTER();
    if (!ms)
        SC_RT_RETURN(cudaErrorInvalidValue);
    if (!start || !end)
        SC_RT_RETURN(cudaErrorInvalidResourceHandle);
    SC_RT_LOCK();
    bool ok = start->timed && end->timed && !((start->flags | end->flags) & cudaEventDisableTiming);
    double d = ok ? ((double)end->ns - (double)start->ns) / 1e6 : 0;
    SC_RT_UNLOCK();
    if (!ok)
        SC_RT_RETURN(cudaErrorInvalidResourceHandle);
    *ms = (float)d;
    SC_RT_RETURN(cudaSuccess);
}

static cudaError_t stream_wait(sc_rt_call *c, cudaStream_t s, cudaEvent_t ev, unsigned int flags,
                               bool ptsz)
{
    if (!ev)
        return cudaErrorInvalidResourceHandle;
    if (flags & ~(unsigned int)cudaEventWaitExternal)
        return cudaErrorInvalidValue;
    bool external = flags & cudaEventWaitExternal;
    sc_rt_state *st = sc_rt_call_lock(c);
    sc_rt_thread *t = sc_rt_thread_get(st);
    uint32_t stream = sc_rt_stream_id(st, s, ptsz);
    uint32_t node = SC_CUDA_NO_NODE;
    int rc = sc_cuda_wait_event(st->cu, stream, t->id, ev->id, external, &node);
    /* With no capture running a wait changes nothing (§4.5). */
    if (st->nactive)
        sc_rt_feed_event(st, stream, t->id, ev->id, true, external,
                         rc ? "cudaStreamWaitEvent" : NULL);
    cudaError_t e = cudaSuccess;
    if (rc != 0) {
        sc_rt_note_invalidations(st, "cudaStreamWaitEvent");
        e = sc_rt_from_model(rc);
    } else if (node != SC_CUDA_NO_NODE) {
        sc_rt_capture *cap = sc_rt_capture_slot(st, sc_rt_stream_capture(st, stream));
        sc_rt_node_desc d = {0};
        d.type = cudaGraphNodeTypeWaitEvent;
        d.event = ev;
        if (cap && cap->graph)
            e = sc_rt_graph_append(cap->graph, &d, NULL, 0, NULL);
    } else if (stream != 0 && st->nactive && sc_rt_stream_capture(st, stream) == 0) {
        /* A wait is how a stream joins a capture (a fork). */
        sc_cuda_info info;
        if (sc_cuda_info_get(st->cu, stream, t->id, &info) == 0 &&
            info.status == SC_CUDA_STATUS_ACTIVE)
            e = sc_rt_stream_set_capture(st, stream, info.capture);
    }
    return e;
}

SC_RT_EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                             unsigned int flags)
{
    SC_RT_ENTER();
    SC_RT_RETURN(stream_wait(SC_RT_CALL, stream, event, flags, false));
}

SC_RT_EXPORT cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event,
                                                  unsigned int flags)
{
    SC_RT_ENTER();
    SC_RT_RETURN(stream_wait(SC_RT_CALL, stream, event, flags, true));
}

/* ------------------------------------------------------- host functions */

static cudaError_t host_func(sc_rt_call *c, cudaStream_t s, cudaHostFn_t fn, void *user, bool ptsz,
                             const char *call)
{
    if (!fn)
        return cudaErrorInvalidValue;
    sc_rt_state *st = sc_rt_call_lock(c);
    sc_rt_node_desc d = {0};
    d.type = cudaGraphNodeTypeHost;
    d.fn = fn;
    d.user_data = user;
    cudaError_t e = sc_rt_issue_id(st, sc_rt_stream_id(st, s, ptsz), &d, call, NULL);
    return e;
}

SC_RT_EXPORT cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    SC_RT_ENTER();
    SC_RT_RETURN(host_func(SC_RT_CALL, stream, fn, userData, false, "cudaLaunchHostFunc"));
}

SC_RT_EXPORT cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn,
                                                 void *userData)
{
    SC_RT_ENTER();
    SC_RT_RETURN(host_func(SC_RT_CALL, stream, fn, userData, true, "cudaLaunchHostFunc"));
}

/* A stream callback takes the stream and a status; as a host node it runs
 * through this trampoline, which lives as long as the graph may run. */
typedef struct sc_rt_callback {
    cudaStreamCallback_t cb;
    cudaStream_t stream;
    void *user;
} sc_rt_callback;

static void callback_trampoline(void *arg)
{
    sc_rt_callback *c = arg;
    c->cb(c->stream, cudaSuccess, c->user);
}

static cudaError_t add_callback(sc_rt_call *c, cudaStream_t s, cudaStreamCallback_t cb, void *user,
                                unsigned int flags, bool ptsz)
{
    if (!cb || flags != 0)
        return cudaErrorInvalidValue;
    sc_rt_state *st = sc_rt_call_lock(c);
    uint32_t stream = sc_rt_stream_id(st, s, ptsz);
    cudaError_t e;
    if (sc_rt_stream_capture(st, stream) == 0 && stream != 0) {
        sc_rt_callback c = {cb, s, user};
        sc_rt_node_desc d = {0};
        d.type = cudaGraphNodeTypeHost;
        d.fn = callback_trampoline;
        d.user_data = &c;
        e = sc_rt_issue_id(st, stream, &d, "cudaStreamAddCallback", NULL);
    } else {
        sc_rt_callback *c = malloc(sizeof *c);
        if (!c) {
            return cudaErrorMemoryAllocation;
        }
        *c = (sc_rt_callback){cb, s, user};
        sc_rt_node_desc d = {0};
        d.type = cudaGraphNodeTypeHost;
        d.fn = callback_trampoline;
        d.user_data = c;
        e = sc_rt_issue_id(st, stream, &d, "cudaStreamAddCallback", NULL);
        if (sc_rt_stream_capture(st, stream) == 0)
            free(c); /* it ran (or failed) already */
    }
    return e;
}

SC_RT_EXPORT cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                               void *userData, unsigned int flags)
{
    SC_RT_ENTER();
    SC_RT_RETURN(add_callback(SC_RT_CALL, stream, callback, userData, flags, false));
}

SC_RT_EXPORT cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream,
                                                    cudaStreamCallback_t callback, void *userData,
                                                    unsigned int flags)
{
    SC_RT_ENTER();
    SC_RT_RETURN(add_callback(SC_RT_CALL, stream, callback, userData, flags, true));
}
