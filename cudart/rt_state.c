/*
 * rt_state.c - the stand-in's process state, its lock, the per-thread
 * record and the error functions.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt_int.h"

/*
 * The one global.  A CUDA runtime is a process-wide object: the program
 * calls free functions with no context argument, from any thread, from
 * static constructors before main and destructors after it, so the state
 * has to be reachable from nowhere but a global.  pthread_once builds it
 * exactly once whichever thread calls first; it is never freed, so that
 * calls made while the process exits (nvcc's __cudaUnregisterFatBinary,
 * static destructors) still find it.
 */
static sc_rt_state *g_state;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* Per-thread: CUDA's last error, thread id and per-thread default stream
 * are properties of the calling host thread. */
static _Thread_local sc_rt_thread t_self;

void sc_rt_report_write(sc_rt_state *st);

static void rt_atexit(void)
{
    sc_rt_state *st = g_state;
    if (!st)
        return;
    sc_rt_lock();
    sc_rt_report_write(st);
    sc_rt_unlock();
}

/* A fork()ed child inherits the parent's records: those ended before the
 * fork are the parent's to report, not the child's again. */
static void rt_atfork_child(void)
{
    sc_rt_state *st = g_state;
    if (!st)
        return;
    for (uint32_t c = 1; c <= st->ncaps; c++) {
        if (st->caps[c].outcome != SC_RT_OUT_RUNNING)
            st->caps[c].inherited = true;
    }
    st->submits_inherited = st->nsubmits;
}

static void rt_names(sc_rt_state *st)
{
    const char *prog = program_invocation_short_name;
    snprintf(st->program, sizeof st->program, "%s", prog && *prog ? prog : "program");
    const char *label = getenv("STREAMCAP_LABEL");
    if (label && *label)
        snprintf(st->label, sizeof st->label, "%s", label);
    else
        snprintf(st->label, sizeof st->label, "%s:%ld", st->program, (long)getpid());
}

static void rt_init(void)
{
    sc_rt_state *st = calloc(1, sizeof *st);
    if (!st || sc_cuda_create(&st->cu) != 0) {
        fputs("streamcap: out of memory starting the CUDA runtime stand-in\n", stderr);
        abort();
    }
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&st->mu, &attr);
    pthread_mutexattr_destroy(&attr);
    st->next_stream = 1;
    st->next_event = 1;
    rt_names(st);
    st->dev = sc_rt_dev_pick(getenv("STREAMCAP_DEVICE"));
    g_state = st;
    sc_rt_feed_open(st);
    pthread_atfork(NULL, NULL, rt_atfork_child);
    atexit(rt_atexit);
}

sc_rt_state *sc_rt_state_get(void)
{
    pthread_once(&g_once, rt_init);
    return g_state;
}

void sc_rt_lock(void)
{
    pthread_mutex_lock(&sc_rt_state_get()->mu);
}

void sc_rt_unlock(void)
{
    pthread_mutex_unlock(&g_state->mu);
}

sc_rt_thread *sc_rt_self(void)
{
    return &t_self;
}

sc_rt_thread *sc_rt_thread_get(sc_rt_state *st)
{
    sc_rt_thread *t = &t_self;
    if (!t->init) {
        t->init = true;
        t->id = st->next_thread++;
        t->pts.id = st->next_stream++;
        t->pts.flags = cudaStreamDefault;
    }
    return t;
}

uint64_t sc_rt_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------ calls in and out */

/*
 * STREAMCAP_TRACE, read once: the trace is the one setting every call
 * consults, so its own once (rather than the state's) keeps a call that
 * never needs the state, cudaGetDeviceCount, from creating it.
 */
static bool g_trace;
static pthread_once_t g_trace_once = PTHREAD_ONCE_INIT;

static void trace_init(void)
{
    const char *v = getenv("STREAMCAP_TRACE");
    g_trace = v && strcmp(v, "1") == 0;
}

static bool trace_on(void)
{
    pthread_once(&g_trace_once, trace_init);
    return g_trace;
}

struct sc_rt_state *sc_rt_call_lock(sc_rt_call *c)
{
    sc_rt_state *st = sc_rt_state_get();
    if (!c->locked) {
        pthread_mutex_lock(&st->mu);
        c->locked = true;
    }
    return st;
}

void sc_rt_call_unlock(sc_rt_call *c)
{
    if (c->locked) {
        c->locked = false;
        pthread_mutex_unlock(&g_state->mu);
    }
}

cudaError_t sc_rt_call_end(sc_rt_call *c, cudaError_t err, bool record)
{
    sc_rt_call_unlock(c);
    if (record && err != cudaSuccess)
        t_self.last = err;
    if (trace_on())
        fprintf(stderr, "streamcap trace: %s -> %d %s\n", c->name, (int)err, cudaGetErrorName(err));
    return err;
}

void sc_rt_call_leave(sc_rt_call *c)
{
    sc_rt_call_unlock(c);
    if (trace_on())
        fprintf(stderr, "streamcap trace: %s\n", c->name);
}

/* ---------------------------------------------------------------- errors */

cudaError_t sc_rt_error(cudaError_t err)
{
    if (err != cudaSuccess)
        t_self.last = err;
    return err;
}

/* The two queries of the last error return it without setting it. */
SC_RT_EXPORT cudaError_t cudaGetLastError(void)
{
    SC_RT_ENTER();
    cudaError_t e = t_self.last;
    t_self.last = cudaSuccess;
    SC_RT_RETURN_KEEP(e);
}

SC_RT_EXPORT cudaError_t cudaPeekAtLastError(void)
{
    SC_RT_ENTER();
    SC_RT_RETURN_KEEP(t_self.last);
}

SC_RT_EXPORT const char *cudaGetErrorName(cudaError_t error)
{
    switch (error) {
#define X(name, number, text)                                                                      \
    case name:                                                                                     \
        return #name;
#include "sc_cuda_errors.def"
#undef X
    }
    return "cudaErrorUnknown";
}

SC_RT_EXPORT const char *cudaGetErrorString(cudaError_t error)
{
    switch (error) {
#define X(name, number, text)                                                                      \
    case name:                                                                                     \
        return text;
#include "sc_cuda_errors.def"
#undef X
    }
    return "unrecognized error code";
}

cudaError_t sc_rt_from_model(int rc)
{
    if (rc == 0)
        return cudaSuccess;
    int n = sc_cuda_error_number(rc);
    if (n)
        return (cudaError_t)n;
    if (rc == SC_ENOMEM || rc == SC_ELIMIT)
        return cudaErrorMemoryAllocation;
    return cudaErrorInvalidValue;
}

/* -------------------------------------------------------- stream mapping */

uint32_t sc_rt_stream_id(sc_rt_state *st, cudaStream_t s, bool ptsz)
{
    if (s == cudaStreamLegacy)
        return 0;
    if (s == cudaStreamPerThread || (s == NULL && ptsz))
        return sc_rt_thread_get(st)->pts.id;
    if (s == NULL)
        return 0;
    return s->id;
}

uint32_t sc_rt_stream_capture(const sc_rt_state *st, uint32_t stream)
{
    return stream < st->stream_cap_len ? st->stream_cap[stream] : 0;
}

cudaError_t sc_rt_stream_set_capture(sc_rt_state *st, uint32_t stream, uint32_t capture)
{
    if (stream >= st->stream_cap_len) {
        if (capture == 0)
            return cudaSuccess;
        size_t len = st->stream_cap_len ? st->stream_cap_len : 64;
        while (len <= stream)
            len *= 2;
        uint32_t *p = realloc(st->stream_cap, len * sizeof *p);
        if (!p)
            return cudaErrorMemoryAllocation;
        memset(p + st->stream_cap_len, 0, (len - st->stream_cap_len) * sizeof *p);
        st->stream_cap = p;
        st->stream_cap_len = len;
    }
    st->stream_cap[stream] = capture;
    return cudaSuccess;
}

sc_rt_capture *sc_rt_capture_slot(sc_rt_state *st, uint32_t capture)
{
    return capture && capture <= st->ncaps ? &st->caps[capture] : NULL;
}

void sc_rt_note_invalidations(sc_rt_state *st, const char *call)
{
    if (st->nactive == 0)
        return;
    for (uint32_t c = 1; c <= st->ncaps; c++) {
        sc_rt_capture *cap = &st->caps[c];
        if (cap->outcome != SC_RT_OUT_RUNNING || cap->broken_call)
            continue;
        sc_cuda_capture_info info;
        if (sc_cuda_capture_get(st->cu, c, &info) == 0 && info.invalidated) {
            cap->broken_call = call;
            cap->broken_error = (cudaError_t)sc_cuda_error_number(info.why.error);
        }
    }
}

cudaError_t sc_rt_host(sc_rt_state *st, sc_cuda_host kind, uint32_t stream, uint32_t event,
                       const char *call)
{
    sc_rt_thread *t = sc_rt_thread_get(st);
    int rc = sc_cuda_host_call(st->cu, kind, stream, event, t->id);
    /* With no capture begun and not ended the call changes nothing in
     * either model, so the daemon need not hear of it. */
    if (st->nactive)
        sc_rt_feed_host_call(st, kind, stream, event, t->id, call);
    if (rc != 0) {
        sc_rt_note_invalidations(st, call);
        return sc_rt_error(sc_rt_from_model(rc));
    }
    return cudaSuccess;
}

int sc_rt_unsupported(size_t index, const char *name);

int sc_rt_unsupported(size_t index, const char *name)
{
    sc_rt_state *st = sc_rt_state_get();
    if (index < SC_RT_NEXPORTS && atomic_exchange(&st->unsupported[index], 1) == 0)
        fprintf(stderr,
                "streamcap: %s is not supported by the stand-in; it returns "
                "cudaErrorNotSupported\n",
                name);
    /* The way out of every call: the last error, the trace. */
    sc_rt_call c = {name, false};
    return (int)sc_rt_call_end(&c, cudaErrorNotSupported, true);
}

void sc_rt_deadline_us(long us, struct timespec *ts)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += us / 1000000L;
    ts->tv_nsec += (us % 1000000L) * 1000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}
