/*
 * rt_feed.c - the daemon mirror: one connection and one cuda-mode session
 * per process, every state-changing model call sent with the same stream,
 * thread and event ids, in the order the local model saw them, so that the
 * daemon's model stays the local one.
 *
 * The application's thread never formats a request: under the process lock
 * it appends a fixed-size record to a queue (single producer, since every
 * producer holds the lock; single consumer) and returns.  The feed thread
 * pops the records and makes the client's asynchronous calls; the client's
 * I/O thread hands the replies back in call order, numbered 1, 2, ...,
 * which is how capture.end and graph.submit replies find their capture.
 *
 * No daemon: one warning, and the program runs on without.  A daemon that
 * goes away: one warning, and nothing more is sent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt_feed.h"
#include "rt_pace.h"
#include "rt_queue.h"

typedef enum sc_rt_feed_state {
    SC_RT_FEED_UNREACHABLE = 0,
    SC_RT_FEED_CONNECTED,
    SC_RT_FEED_LOST,
} sc_rt_feed_state;

/* Records waiting past which the application waits for the feed thread to
 * send half of them: a slow daemon must cost memory up to here, not more. */
#define SC_RT_MAX_BACKLOG ((uint64_t)1 << 20)
/* Records the feed thread sends between two looks at the spare blocks and at
 * the program's pace (rt_pace.h), and between two counts of those sent. */
#define SC_RT_REFILL_EVERY 256
/* The client's unsent bytes past which the feed thread waits for its I/O
 * thread: a few thousand requests, enough to keep the daemon busy.  With
 * the client's default (64 MiB) a burst of launches had the feed thread
 * format some 200,000 requests ahead of the daemon, on the cores the
 * program runs on, into buffer memory faulted in for the purpose; the
 * queue's records, a third the size, wait better. */
#define SC_RT_CLIENT_WINDOW ((size_t)1 << 20)

/* What a capture.end or graph.submit reply said. */
typedef struct sc_rt_result {
    bool done;
    int rc;
    uint64_t graph;
} sc_rt_result;

/* A call whose reply is wanted: seq -> ends[index] or subs[index]. */
typedef struct sc_rt_expect {
    uint64_t seq;
    bool submit;
    uint32_t index;
} sc_rt_expect;

/* A node added by hand to a capture's graph, described as graph.submit
 * would describe it, and its dependencies. */
typedef struct sc_rt_add_payload {
    sc_client_node node;
    size_t ndeps;
    uint32_t deps[];
} sc_rt_add_payload;

struct sc_rt_feed {
    sc_client *c;
    uint64_t session;
    _Atomic int state; /* sc_rt_feed_state */
    _Atomic bool warned;
    bool sync_end;
    int exit_timeout_ms;
    char label[320];

    sc_rt_queue q;
    alignas(64) _Atomic bool sleeping; /* written only when the feed thread idles */
    _Atomic bool woken;                /* a push signalled this sleep already */
    alignas(64) pthread_t thread;

    bool thread_on;
    pthread_mutex_t mu;   /* the waits below, and everything after them */
    pthread_cond_t wake;  /* records pushed, or stop */
    pthread_cond_t idle;  /* the feed thread caught up (or stopped) */
    _Atomic bool waiting; /* someone waits on `idle` */
    bool stop, stopped;

    /* The kernel of the last launch packed (application side, lock held):
     * a program launches a few kernels many times over. */
    const void *kc_func;
    const sc_rt_kernel *kc;
    uint32_t kc_gen;

    uint64_t seq;              /* calls made (feed thread) */
    _Atomic uint64_t answered; /* the last call answered (I/O thread) */
    sc_rt_expect *exp;
    size_t nexp, exp_head, exp_cap;
    _Atomic size_t nexp_pub; /* nexp, for on_reply to read without the lock */
    sc_rt_result *ends;      /* by capture id */
    size_t ends_cap;
    sc_rt_result *subs; /* by submit index */
    size_t subs_cap;
};

#define SC_RT_CONNECT_TIMEOUT_MS 2000

static int env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    long n = strtol(v, &end, 10);
    return *end == '\0' && n >= 0 && n <= 3600000 ? (int)n : dflt;
}

static void lost(sc_rt_feed *f, int rc)
{
    atomic_store(&f->state, SC_RT_FEED_LOST);
    if (!atomic_exchange(&f->warned, true))
        fprintf(stderr,
                "streamcap: lost the daemon (%s); captures from now on are kept in this "
                "process only\n",
                sc_client_strerror(rc));
}

/* ------------------------------------------------------------- replies */

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need < *cap)
        return 0;
    size_t n = *cap ? *cap * 2 : 16;
    while (n <= need)
        n *= 2;
    char *q = realloc(*p, n * size);
    if (!q)
        return -ENOMEM;
    memset(q + *cap * size, 0, (n - *cap) * size);
    *p = q;
    *cap = n;
    return 0;
}

/* On the client's I/O thread, in call order. */
static void on_reply(void *arg, uint64_t seq, const sc_client_reply *r)
{
    sc_rt_feed *f = arg;
    atomic_store_explicit(&f->answered, seq, memory_order_relaxed);
    /* Nearly every reply is a record's, which nothing waits for: no lock
     * then.  An expected call was published before it was made, so before
     * its reply can come. */
    if (atomic_load_explicit(&f->nexp_pub, memory_order_acquire) == f->exp_head)
        return;
    pthread_mutex_lock(&f->mu);
    while (f->exp_head < f->nexp && f->exp[f->exp_head].seq < seq)
        f->exp_head++;
    if (f->exp_head < f->nexp && f->exp[f->exp_head].seq == seq) {
        sc_rt_expect *e = &f->exp[f->exp_head++];
        sc_rt_result *res = e->submit ? &f->subs[e->index] : &f->ends[e->index];
        res->done = true;
        res->rc = r->rc;
        res->graph = r->rc == 0 ? r->id : 0;
        pthread_cond_broadcast(&f->idle);
    }
    pthread_mutex_unlock(&f->mu);
}

/* Expect the reply of the call about to be made (before it is made: the
 * reply may come before the call returns). */
static int expect(sc_rt_feed *f, bool submit, uint32_t index)
{
    pthread_mutex_lock(&f->mu);
    int rc = grow((void **)&f->exp, &f->exp_cap, f->nexp, sizeof *f->exp);
    if (rc == 0)
        rc = submit ? grow((void **)&f->subs, &f->subs_cap, index, sizeof *f->subs)
                    : grow((void **)&f->ends, &f->ends_cap, index, sizeof *f->ends);
    if (rc == 0) {
        f->exp[f->nexp++] = (sc_rt_expect){f->seq + 1, submit, index};
        atomic_store_explicit(&f->nexp_pub, f->nexp, memory_order_release);
    }
    pthread_mutex_unlock(&f->mu);
    return rc;
}

/* ----------------------------------------------------------- the calls */

static int send_record(sc_rt_feed *f, const sc_rt_op *o)
{
    sc_client *c = f->c;
    uint64_t s = f->session;
    switch (o->sub) {
    case SC_KIND_KERNEL: {
        const uint32_t *blob = o->args;
        if (!blob)
            return sc_client_cuda_record_kernel(c, s, o->stream, o->thread, o->name, o->grid,
                                                o->block, o->shared, NULL);
        size_t bytes = 0;
        for (uint32_t i = 0; i < blob[0]; i++)
            bytes += blob[1 + i];
        const sc_client_access *acc =
            (const sc_client_access *)(const void *)((const char *)blob + o->access_at);
        return sc_client_cuda_record_kernel_accesses(c, s, o->stream, o->thread, o->name, o->grid,
                                                     o->block, o->shared, blob + 1 + blob[0], bytes,
                                                     blob + 1, blob[0], acc, o->naccess, NULL);
    }
    case SC_KIND_MEMCPY: {
        sc_client_access acc[2];
        size_t n = 0;
        if (o->src && o->src_span)
            acc[n++] = (sc_client_access){o->src, o->src_span, SC_ACCESS_READ};
        if (o->dst && o->dst_span)
            acc[n++] = (sc_client_access){o->dst, o->dst_span, SC_ACCESS_WRITE};
        return sc_client_cuda_record_memcpy_accesses(c, s, o->stream, o->thread, o->name,
                                                     sc_rt_feed_dir(o->dir), o->size, 0, 0, acc, n,
                                                     NULL);
    }
    case SC_KIND_MEMSET: {
        sc_client_access acc = {o->dst, o->dst_span, SC_ACCESS_WRITE};
        return sc_client_cuda_record_memset_accesses(c, s, o->stream, o->thread, o->name, o->size,
                                                     o->value, &acc, o->dst && acc.size, NULL);
    }
    case SC_KIND_HOST_CALLBACK:
        return sc_client_cuda_record_host_callback(c, s, o->stream, o->thread, o->name, NULL);
    case SC_KIND_MEM_ALLOC:
        return sc_client_cuda_record_mem_alloc(c, s, o->stream, o->thread, o->name, o->size, NULL);
    case SC_KIND_MEM_FREE:
        return sc_client_cuda_record_mem_free(c, s, o->stream, o->thread, o->name, NULL);
    case SC_KIND_GRAPH:
        return sc_client_cuda_record_graph(c, s, o->stream, o->thread, o->name, NULL);
    default:
        return 0; /* the capture path records no other kind */
    }
}

/* capture.end, with the bodies of the graph's nodes when they hold any. */
static int end_call(sc_rt_feed *f, const sc_rt_op *o)
{
    sc_rt_end_payload *p = o->ext;
    for (size_t i = 0; p && i < p->n; i++)
        p->bodies[i].graph = sc_rt_feed_subgraph(&p->graphs[i]);
    int rc = sc_client_cuda_end_bodies(f->c, f->session, o->stream, o->thread, p ? p->bodies : NULL,
                                       p ? p->n : 0, NULL);
    /* Bodies the client refuses to send (a conditional node left without
     * its bodies) must not keep the capture from ending in the daemon. */
    if (rc == -EINVAL && p)
        rc = sc_client_cuda_end(f->c, f->session, o->stream, o->thread, NULL);
    return rc;
}

/* One typed asynchronous call; 0 when it was queued (and counted). */
static int send_op(sc_rt_feed *f, const sc_rt_op *o)
{
    sc_client *c = f->c;
    uint64_t s = f->session;
    int rc;
    switch ((sc_rt_op_kind)o->op) {
    case SC_RT_OP_STREAM_CREATE:
        rc = sc_client_stream_create(c, s, o->stream, o->flags & SC_RT_OPF_SET);
        break;
    case SC_RT_OP_BEGIN:
        rc = sc_client_cuda_begin(c, s, o->stream, o->thread, (sc_client_capture_mode)o->sub, NULL);
        break;
    case SC_RT_OP_RECORD:
        if (o->sub > SC_KIND_HOST_CALLBACK && o->sub != SC_KIND_MEM_ALLOC &&
            o->sub != SC_KIND_MEM_FREE && o->sub != SC_KIND_GRAPH)
            return 1;
        sc_client_next_call(c, o->call);
        rc = send_record(f, o);
        sc_client_next_call(c, NULL);
        break;
    case SC_RT_OP_EVENT:
        sc_client_next_call(c, o->call);
        rc = sc_client_cuda_event_ex(c, s, o->stream, o->thread, o->aux, o->flags & SC_RT_OPF_WAIT,
                                     o->flags & SC_RT_OPF_EXTERNAL, NULL);
        break;
    case SC_RT_OP_UPDATE_DEPS:
        rc = sc_client_update_dependencies(c, s, o->stream, o->thread, o->ext, o->aux,
                                           o->flags & SC_RT_OPF_SET);
        break;
    case SC_RT_OP_HOST_CALL:
        rc = sc_client_host_call(c, s, o->thread, (sc_client_host_call_kind)o->sub, o->stream,
                                 o->aux, o->name);
        break;
    case SC_RT_OP_EXCHANGE_MODE:
        rc = sc_client_exchange_mode(c, s, o->thread, (sc_client_capture_mode)o->sub, NULL);
        break;
    case SC_RT_OP_ADD_NODE: {
        const sc_rt_add_payload *p = o->ext;
        rc = sc_client_cuda_add_node_ex(c, s, o->stream, o->thread, &p->node, p->deps, p->ndeps,
                                        NULL);
        break;
    }
    case SC_RT_OP_END:
        if ((rc = expect(f, false, o->aux)) != 0)
            return rc;
        /* The daemon keeps the name only for captures the end broke (908
         * from another thread, 901 from another stream). */
        sc_client_next_call(c, "cudaStreamEndCapture");
        rc = end_call(f, o);
        break;
    case SC_RT_OP_SUBMIT: {
        const sc_rt_submit_payload *p = o->ext;
        if ((rc = expect(f, true, o->aux)) != 0)
            return rc;
        if (p->children) {
            sc_client_subgraph sg = sc_rt_feed_subgraph(p);
            rc = sc_client_graph_submit_nested(c, f->label, &sg, NULL);
        } else {
            rc = sc_client_graph_submit(c, f->label, p->nodes, p->n, p->edges, p->m, NULL);
        }
        break;
    }
    default:
        return 1;
    }
    if (rc == 0)
        f->seq++;
    return rc;
}

/* ------------------------------------------------------------ the queue */

/* Someone waits for the feed, or it is told to stop: false; else true after
 * `us` microseconds (pushes do not cut it short: `sleeping` is off). */
static bool pause_us(sc_rt_feed *f, long us)
{
    struct timespec until;
    sc_rt_deadline_us(us, &until);
    pthread_mutex_lock(&f->mu);
    int w = 0;
    while (!atomic_load(&f->waiting) && !f->stop && w != ETIMEDOUT)
        w = pthread_cond_timedwait(&f->wake, &f->mu, &until);
    pthread_mutex_unlock(&f->mu);
    return w == ETIMEDOUT;
}

/* Just woken with few records waiting: give the program time to add more.
 * A wait for the feed to catch up (caught_up) or to stop cuts it short. */
static void gather(sc_rt_feed *f, uint64_t done)
{
    if (atomic_load(&f->q.pushed) - done < SC_RT_GATHER_MIN)
        (void)pause_us(f, SC_RT_GATHER_US);
}

/* Waits while the program is in a burst (rt_pace.h), readying spare blocks so
 * that its launches take no page faults, until someone waits for the feed (a
 * synchronous end, a fork, the exit, a full queue) or it is stopped. */
static void sit_out(sc_rt_feed *f, sc_rt_pace *p)
{
    long us;
    while ((us = sc_rt_pace_look(p, sc_rt_now_ns(), atomic_load(&f->q.pushed), f->seq,
                                 atomic_load_explicit(&f->answered, memory_order_relaxed))) > 0) {
        if (!pause_us(f, us))
            return;
        sc_rt_queue_refill(&f->q);
        sc_rt_pace_waited(p);
    }
}

static void *feed_main(void *arg)
{
    sc_rt_feed *f = arg;
    bool woke = false;
    sc_rt_pace pace;
    sc_rt_pace_init(&pace, sc_rt_now_ns(), 0);
    for (;;) {
        if (woke)
            gather(f, atomic_load_explicit(&f->q.popped, memory_order_relaxed));
        woke = false;
        uint64_t have = atomic_load(&f->q.pushed);
        uint64_t done = atomic_load_explicit(&f->q.popped, memory_order_relaxed);
        if (done == have) {
            /* Idle is the cheapest time to ready blocks for the next burst
             * (of a program that has filled one: others never need any). */
            if (done >= SC_RT_BLOCK_OPS)
                sc_rt_queue_refill(&f->q);
            pthread_mutex_lock(&f->mu);
            if (atomic_load(&f->waiting))
                pthread_cond_broadcast(&f->idle);
            atomic_store(&f->woken, false);
            atomic_store(&f->sleeping, true);
            /* Seen after `sleeping` is set: a push either lands before this
             * load or sees `sleeping` and signals under the mutex. */
            while (atomic_load(&f->q.pushed) == done && !f->stop) {
                struct timespec ts;
                sc_rt_deadline_us(100 * 1000L, &ts);
                int w = pthread_cond_timedwait(&f->wake, &f->mu, &ts);
                /* Quiet for 100 ms: the emptied blocks go back (a push
                 * meanwhile is seen by the loop's test). */
                if (w == ETIMEDOUT && f->q.freed) {
                    pthread_mutex_unlock(&f->mu);
                    sc_rt_queue_trim(&f->q);
                    pthread_mutex_lock(&f->mu);
                }
            }
            atomic_store(&f->sleeping, false);
            bool stop = f->stop && atomic_load(&f->q.pushed) == done;
            pthread_mutex_unlock(&f->mu);
            if (stop)
                break;
            woke = true;
            continue;
        }
        for (; done < have; done++) {
            if (done % SC_RT_REFILL_EVERY == 0) {
                atomic_store_explicit(&f->q.popped, done, memory_order_release);
                if (atomic_load(&f->waiting)) {
                    pthread_mutex_lock(&f->mu);
                    pthread_cond_broadcast(&f->idle);
                    pthread_mutex_unlock(&f->mu);
                }
                if (!f->sync_end) /* its ends would wait for what it put off */
                    sit_out(f, &pace);
                if (done >= SC_RT_BLOCK_OPS)
                    sc_rt_queue_refill(&f->q);
            }
            sc_rt_op *o = sc_rt_queue_pop(&f->q);
            if (atomic_load_explicit(&f->state, memory_order_relaxed) == SC_RT_FEED_CONNECTED) {
                int rc = send_op(f, o);
                if (rc < 0)
                    lost(f, rc);
            }
            if (o->op == SC_RT_OP_SUBMIT && o->ext)
                sc_rt_feed_payload_free(o->ext);
            if (o->op == SC_RT_OP_END) {
                sc_rt_feed_end_free(o->ext);
            } else {
                if (o->op == SC_RT_OP_ADD_NODE && o->ext)
                    sc_rt_feed_node_free(&((sc_rt_add_payload *)o->ext)->node);
                free(o->ext);
            }
        }
        atomic_store_explicit(&f->q.popped, done, memory_order_release);
    }
    pthread_mutex_lock(&f->mu);
    f->stopped = true;
    pthread_cond_broadcast(&f->idle);
    pthread_mutex_unlock(&f->mu);
    return NULL;
}

static sc_rt_feed *live(sc_rt_state *st)
{
    sc_rt_feed *f = st->feed;
    return f && atomic_load_explicit(&f->state, memory_order_relaxed) == SC_RT_FEED_CONNECTED
               ? f
               : NULL;
}

/* Wait (lock of the process held, so nothing is pushed meanwhile) until the
 * feed thread has made every call queued but the last `left`, or until ms
 * pass.  true when it has. */
static bool caught_up(sc_rt_feed *f, uint64_t left, int ms)
{
    uint64_t want = atomic_load(&f->q.pushed) - left;
    if (atomic_load(&f->q.popped) >= want)
        return true;
    struct timespec until;
    sc_rt_deadline_us(ms * 1000L, &until);
    pthread_mutex_lock(&f->mu);
    atomic_store(&f->waiting, true);
    pthread_cond_signal(&f->wake);
    int w = 0;
    while (atomic_load(&f->q.popped) < want && !f->stopped && w != ETIMEDOUT)
        w = pthread_cond_timedwait(&f->idle, &f->mu, &until);
    atomic_store(&f->waiting, false);
    pthread_mutex_unlock(&f->mu);
    return atomic_load(&f->q.popped) >= want;
}

/* Every call queued so far made and answered, within ms: 0, -ETIMEDOUT or
 * the connection's error (then the mirror is lost). */
static int settle(sc_rt_feed *f, int ms)
{
    uint64_t t0 = sc_rt_now_ns();
    if (!caught_up(f, 0, ms))
        return -ETIMEDOUT;
    int left = ms - (int)((sc_rt_now_ns() - t0) / 1000000u);
    if (left <= 0)
        left = 1;
    if (atomic_load(&f->state) != SC_RT_FEED_CONNECTED)
        return -ENOTCONN;
    int rc = sc_client_async_drain(f->c, left);
    if (rc != 0 && rc != -ETIMEDOUT)
        lost(f, rc);
    return rc;
}

/* The application's end of the queue: a slot to fill, in a block with room
 * for `args` bytes of packed arguments, NULL when the record cannot be
 * queued (the mirror is then given up: a hole would part the two models). */
static sc_rt_op *push_slot_room(sc_rt_feed *f, size_t args)
{
    if (sc_rt_queue_must_end(&f->q, args)) {
        /* The backlog is looked at once a block, not once a launch. */
        if (atomic_load_explicit(&f->q.pushed, memory_order_relaxed) -
                    atomic_load_explicit(&f->q.popped, memory_order_acquire) >=
                SC_RT_MAX_BACKLOG &&
            !caught_up(f, SC_RT_MAX_BACKLOG / 2,
                       f->exit_timeout_ms > 0 ? f->exit_timeout_ms : 10000)) {
            lost(f, -ETIMEDOUT);
            return NULL;
        }
        if (sc_rt_queue_next_block(&f->q) != 0) {
            lost(f, -ENOMEM);
            return NULL;
        }
    }
    return sc_rt_queue_slot(&f->q);
}

static sc_rt_op *push_slot(sc_rt_feed *f)
{
    return push_slot_room(f, 0);
}

static void push_done(sc_rt_feed *f)
{
    sc_rt_queue_push(&f->q);
    /* One signal a sleep: the launches made while the feed thread wakes
     * up must not each take the mutex and make a system call. */
    if (atomic_load(&f->sleeping) && !atomic_exchange(&f->woken, true)) {
        pthread_mutex_lock(&f->mu);
        pthread_cond_signal(&f->wake);
        pthread_mutex_unlock(&f->mu);
    }
}

/* --------------------------------------------------------------- open */

/* The most a fork() waits for the feed to go quiet. */
#define SC_RT_FORK_WAIT_MS 1000

/* Before fork(): what was queued is sent and answered first (at most
 * SC_RT_FORK_WAIT_MS), so that the child is not made while the feed
 * thread or the client's I/O thread is inside a call: an allocator whose
 * locks a fork does not take (AddressSanitizer's, for one) would be left
 * locked in the child by a thread that is not there. */
static void feed_atfork_prepare(void)
{
    sc_rt_feed *f = sc_rt_state_get()->feed;
    if (f && f->thread_on && atomic_load(&f->state) == SC_RT_FEED_CONNECTED)
        (void)settle(f, SC_RT_FORK_WAIT_MS);
}

static void feed_atfork_child(void)
{
    /* The child has no feed thread and shares the parent's socket: it must
     * not write to it, nor wait for a thread that does not exist. */
    sc_rt_state *st = sc_rt_state_get();
    sc_rt_feed *f = st->feed;
    if (f && f->c) {
        f->c = NULL;
        f->thread_on = false;
        f->session = 0;
        atomic_store(&f->state, SC_RT_FEED_UNREACHABLE);
    }
}

static int feed_start(sc_rt_feed *f)
{
    if (sc_rt_queue_init(&f->q) != 0)
        return -ENOMEM;
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->wake, NULL);
    pthread_cond_init(&f->idle, NULL);
    int rc = sc_client_async_begin(f->c, on_reply, f);
    if (rc == 0)
        rc = sc_client_async_window(f->c, SC_RT_CLIENT_WINDOW);
    if (rc != 0)
        return rc;
    if (pthread_create(&f->thread, NULL, feed_main, f) != 0)
        return -EAGAIN;
    f->thread_on = true;
    pthread_atfork(feed_atfork_prepare, NULL, feed_atfork_child);
    return 0;
}

void sc_rt_feed_open(sc_rt_state *st)
{
    /* Its queue's ends are on cache lines of their own: malloc's alignment
     * is not enough (sizeof is a multiple of the alignment). */
    sc_rt_feed *f = aligned_alloc(alignof(sc_rt_feed), sizeof(sc_rt_feed));
    if (!f)
        return;
    memset(f, 0, sizeof *f);
    st->feed = f;
    const char *v = getenv("STREAMCAP_SYNC_END");
    f->sync_end = v && strcmp(v, "1") == 0;
    f->exit_timeout_ms = env_int("STREAMCAP_EXIT_TIMEOUT_MS", 10000);
    snprintf(f->label, sizeof f->label, "%s", st->label);
    const char *path = getenv(SC_CLIENT_SOCKET_ENV);
    if (!path || !*path)
        path = sc_client_default_socket();
    int rc = sc_client_connect(path, SC_RT_CONNECT_TIMEOUT_MS, &f->c);
    if (rc == 0)
        rc = sc_client_open_session_flags(f->c, st->label, SC_CLIENT_SEMANTICS_CUDA,
                                          SC_CLIENT_SESSION_BIND, &f->session);
    if (rc == 0) {
        /* The handle's limit now bounds only a wait for room to queue. */
        sc_client_set_timeout(f->c, f->exit_timeout_ms > 0 ? f->exit_timeout_ms : 10000);
        rc = feed_start(f);
    }
    if (rc != 0) {
        fprintf(stderr, "streamcap: no daemon at %s (%s); captures are kept in this process only\n",
                path, sc_client_strerror(rc));
        sc_client_close(f->c);
        f->c = NULL;
        f->session = 0;
        return;
    }
    atomic_store(&f->state, SC_RT_FEED_CONNECTED);
}

/* ------------------------------------------------------ the model calls */

void sc_rt_feed_stream_create(sc_rt_state *st, uint32_t stream, bool non_blocking)
{
    sc_rt_feed *f = live(st);
    sc_rt_op *o = f ? push_slot(f) : NULL;
    if (!o)
        return;
    o->op = SC_RT_OP_STREAM_CREATE;
    o->stream = stream;
    o->flags = non_blocking ? SC_RT_OPF_SET : 0;
    push_done(f);
}

void sc_rt_feed_begin(sc_rt_state *st, uint32_t stream, uint32_t thread, sc_cuda_mode mode)
{
    sc_rt_feed *f = live(st);
    sc_rt_op *o = f ? push_slot(f) : NULL;
    if (!o)
        return;
    o->op = SC_RT_OP_BEGIN;
    o->stream = stream;
    o->thread = thread;
    o->sub = (uint8_t)mode;
    push_done(f);
}

/* What packing a launch's arguments takes, read from its kernel's layout
 * once: need is 0 when there is nothing to pack (no layout, no values, or
 * more bytes than the daemon takes). */
typedef struct sc_rt_kargs_plan {
    const sc_rt_kernel *k;
    size_t at, need;
} sc_rt_kargs_plan;

static const sc_rt_kernel *kernel_of(sc_rt_feed *f, sc_rt_state *st, const void *func)
{
    /* The generation first: after a move the old pointer is not read.  A
     * layout not read yet (or forgotten with its binary) goes through
     * sc_rt_kernel_layout, which reads it. */
    if (f->kc && f->kc_func == func && f->kc_gen == st->kernels_gen && f->kc->layout != 0)
        return f->kc;
    const sc_rt_kernel *k = sc_rt_kernel_layout(st, func);
    f->kc = k;
    f->kc_func = func;
    f->kc_gen = st->kernels_gen;
    return k;
}

static size_t kargs_plan(sc_rt_feed *f, sc_rt_state *st, const sc_rt_node_desc *d,
                         sc_rt_kargs_plan *p)
{
    *p = (sc_rt_kargs_plan){0};
    if (!d || d->type != cudaGraphNodeTypeKernel || !d->args)
        return 0;
    const sc_rt_kernel *k = kernel_of(f, st, d->func);
    if (!k || k->layout != 1 || k->nparams == 0 || k->arg_bytes > SC_RT_KARGS_MAX ||
        k->nparams > k->arg_bytes)
        return 0;
    p->k = k;
    p->at = (4 + 4 * k->nparams + k->arg_bytes + 7) & ~(size_t)7;
    p->need = p->at + k->ptr_params * sizeof(sc_client_access);
    return p->need;
}

/* A launch's argument values (nparams, sizes, bytes, unpadded) in the room
 * of the op's block (push_slot_room made it), or for one larger than a
 * block's room a heap block in o->ext freed with the op; copied now, while
 * kernelParams hold them (the sender makes the hex), then its accesses,
 * 8-byte aligned (o->naccess at o->access_at), reaching the allocations
 * live now. */
static const uint32_t *pack_args(sc_rt_feed *f, const sc_rt_state *st, const sc_rt_node_desc *d,
                                 const sc_rt_kargs_plan *p, sc_rt_op *o)
{
    uint32_t *blob = sc_rt_queue_room(&f->q, p->need);
    if (!blob) {
        if (!(blob = malloc(p->need)))
            return NULL;
        o->ext = blob;
    }
    const sc_rt_kernel *k = p->k;
    blob[0] = (uint32_t)k->nparams;
    unsigned char *out = (unsigned char *)(blob + 1 + k->nparams);
    sc_client_access *acc = (sc_client_access *)(void *)((char *)blob + p->at);
    size_t nacc = 0;
    /* Values and accesses in one pass: most parameters are pointers and
     * ints, copies the compiler makes a move, not a call. */
    for (size_t i = 0; i < k->nparams; i++) {
        uint32_t size = k->params[i].size;
        blob[1 + i] = size;
        if (size == 8) {
            uint64_t v;
            memcpy(&v, d->args[i], 8);
            memcpy(out, &v, 8);
            nacc += sc_rt_value_access(st, k, i, v, &acc[nacc]);
        } else if (size == 4) {
            memcpy(out, d->args[i], 4);
        } else {
            memcpy(out, d->args[i], size);
        }
        out += size;
    }
    o->naccess = (uint32_t)sc_rt_accesses_merge(acc, nacc);
    o->access_at = (uint32_t)p->at;
    return blob;
}

/* The ranges a copy or a set touches (sc_rt_copy_accesses), kept in the
 * op: a read is the source, a write the destination. */
static void set_ranges(sc_rt_op *o, const sc_rt_node_desc *d)
{
    sc_client_access acc[2];
    size_t n = sc_rt_copy_accesses(d, acc);
    for (size_t i = 0; i < n; i++) {
        if (acc[i].mode == SC_ACCESS_READ) {
            o->src = acc[i].address;
            o->src_span = acc[i].size;
        } else {
            o->dst = acc[i].address;
            o->dst_span = acc[i].size;
        }
    }
}

void sc_rt_feed_record(sc_rt_state *st, uint32_t stream, uint32_t thread, const sc_node *n,
                       const char *call, const sc_rt_node_desc *d)
{
    sc_rt_feed *f = live(st);
    sc_rt_kargs_plan k = {0};
    size_t need = f && n->kind == SC_KIND_KERNEL ? kargs_plan(f, st, d, &k) : 0;
    sc_rt_op *o = f ? push_slot_room(f, need) : NULL;
    if (!o)
        return;
    o->op = SC_RT_OP_RECORD;
    o->sub = (uint8_t)n->kind;
    o->stream = stream;
    o->thread = thread;
    o->name = n->name;
    o->call = call;
    if (n->kind == SC_KIND_KERNEL) {
        o->grid[0] = sc_rt_feed_dim(n->num_blocks);
        o->grid[1] = sc_rt_feed_dim(n->grid_y);
        o->grid[2] = sc_rt_feed_dim(n->grid_z);
        o->block[0] = sc_rt_feed_dim(n->threads_per_block);
        o->block[1] = sc_rt_feed_dim(n->block_y);
        o->block[2] = sc_rt_feed_dim(n->block_z);
        o->shared = n->shared_mem;
        o->args = need ? pack_args(f, st, d, &k, o) : NULL;
    }
    o->dir = (uint8_t)n->dir;
    o->size = n->size_bytes;
    o->value = n->value;
    if (d && (n->kind == SC_KIND_MEMCPY || n->kind == SC_KIND_MEMSET))
        set_ranges(o, d);
    push_done(f);
}

void sc_rt_feed_event(sc_rt_state *st, uint32_t stream, uint32_t thread, uint32_t event, bool wait,
                      bool external, const char *call)
{
    sc_rt_feed *f = live(st);
    sc_rt_op *o = f ? push_slot(f) : NULL;
    if (!o)
        return;
    o->op = SC_RT_OP_EVENT;
    o->stream = stream;
    o->thread = thread;
    o->aux = event;
    o->call = call;
    o->flags = (uint8_t)((wait ? SC_RT_OPF_WAIT : 0) | (external ? SC_RT_OPF_EXTERNAL : 0));
    push_done(f);
}

static uint32_t *ids_copy(sc_rt_feed *f, const uint32_t *ids, size_t n)
{
    uint32_t *p = malloc((n ? n : 1) * sizeof *p);
    if (!p) {
        lost(f, -ENOMEM);
        return NULL;
    }
    if (n)
        memcpy(p, ids, n * sizeof *p);
    return p;
}

void sc_rt_feed_update_deps(sc_rt_state *st, uint32_t stream, uint32_t thread,
                            const uint32_t *nodes, size_t n, bool set)
{
    sc_rt_feed *f = live(st);
    uint32_t *ids = f ? ids_copy(f, nodes, n) : NULL;
    sc_rt_op *o = ids ? push_slot(f) : NULL;
    if (!o) {
        free(ids);
        return;
    }
    o->op = SC_RT_OP_UPDATE_DEPS;
    o->stream = stream;
    o->thread = thread;
    o->aux = (uint32_t)n;
    o->flags = set ? SC_RT_OPF_SET : 0;
    o->ext = ids;
    push_done(f);
}

void sc_rt_feed_host_call(sc_rt_state *st, sc_cuda_host kind, uint32_t stream, uint32_t event,
                          uint32_t thread, const char *call)
{
    sc_rt_feed *f = live(st);
    sc_rt_op *o = f ? push_slot(f) : NULL;
    if (!o)
        return;
    o->op = SC_RT_OP_HOST_CALL;
    o->sub = (uint8_t)kind;
    o->stream = stream;
    o->aux = event;
    o->thread = thread;
    o->name = call;
    push_done(f);
}

void sc_rt_feed_exchange_mode(sc_rt_state *st, uint32_t thread, sc_cuda_mode mode)
{
    sc_rt_feed *f = live(st);
    sc_rt_op *o = f ? push_slot(f) : NULL;
    if (!o)
        return;
    o->op = SC_RT_OP_EXCHANGE_MODE;
    o->thread = thread;
    o->sub = (uint8_t)mode;
    push_done(f);
}

void sc_rt_feed_add_node(sc_rt_state *st, uint32_t stream, uint32_t thread,
                         const sc_rt_node_desc *d, cudaGraphNode_t node, const uint32_t *deps,
                         size_t ndeps)
{
    sc_rt_feed *f = live(st);
    if (!f)
        return;
    sc_rt_add_payload *p = malloc(sizeof *p + (ndeps ? ndeps : 1) * sizeof *p->deps);
    if (!p) {
        lost(f, -ENOMEM);
        return;
    }
    /* The daemon's node gets what the local graph has: a kernel's
     * function and shape, a memcpy's resolved direction and size. */
    sc_rt_feed_node(d, &p->node);
    sc_rt_feed_kargs(d, node, &p->node);
    sc_rt_feed_accesses(d, node, &p->node);
    p->ndeps = ndeps;
    if (ndeps)
        memcpy(p->deps, deps, ndeps * sizeof *deps);
    sc_rt_op *o = push_slot(f);
    if (!o) {
        sc_rt_feed_node_free(&p->node);
        free(p);
        return;
    }
    o->op = SC_RT_OP_ADD_NODE;
    o->sub = (uint8_t)p->node.kind;
    o->stream = stream;
    o->thread = thread;
    o->ext = p;
    push_done(f);
}

/* A reply that came: the capture is stored (the local end decides kept or
 * failed; the daemon's model agrees with it). */
static void apply_end(sc_rt_feed *f, sc_rt_state *st, uint32_t capture)
{
    sc_rt_capture *cap = sc_rt_capture_slot(st, capture);
    if (!cap || capture >= f->ends_cap || !f->ends[capture].done || f->ends[capture].rc != 0)
        return;
    if (cap->outcome == SC_RT_OUT_RUNNING || cap->outcome == SC_RT_OUT_KEPT) {
        cap->outcome = SC_RT_OUT_STORED;
        cap->daemon_graph = f->ends[capture].graph;
    }
}

void sc_rt_feed_end(sc_rt_state *st, uint32_t stream, uint32_t thread, uint32_t capture,
                    const sc_rt_capture *cap)
{
    sc_rt_feed *f = live(st);
    sc_rt_op *o = f ? push_slot(f) : NULL;
    if (!o)
        return;
    o->op = SC_RT_OP_END;
    o->stream = stream;
    o->thread = thread;
    o->aux = capture;
    /* Copied now: the program may change or free the graph at once. */
    o->ext = sc_rt_feed_end_bodies(cap);
    push_done(f);
    if (!f->sync_end)
        return;
    if (settle(f, f->exit_timeout_ms > 0 ? f->exit_timeout_ms : 10000) == 0) {
        pthread_mutex_lock(&f->mu);
        apply_end(f, st, capture);
        pthread_mutex_unlock(&f->mu);
    }
}

/* --------------------------------------------------------------- submit */

void sc_rt_feed_submit(sc_rt_state *st, cudaGraph_t g, size_t submit)
{
    sc_rt_feed *f = live(st);
    if (!f)
        return;
    sc_rt_submit_payload *p = calloc(1, sizeof *p);
    if (!p || !sc_rt_feed_payload(g, p)) {
        free(p);
        return; /* a cycle: instantiate refused it already; memory: not sent */
    }
    sc_rt_op *o = push_slot(f);
    if (!o) {
        sc_rt_feed_payload_free(p);
        free(p);
        return;
    }
    o->op = SC_RT_OP_SUBMIT;
    o->aux = (uint32_t)submit;
    o->ext = p;
    push_done(f);
}

/* ----------------------------------------------------------------- exit */

static void apply_all(sc_rt_feed *f, sc_rt_state *st)
{
    pthread_mutex_lock(&f->mu);
    for (uint32_t c = 1; c <= st->ncaps; c++)
        apply_end(f, st, c);
    for (size_t i = 0; i < st->nsubmits && i < f->subs_cap; i++)
        if (f->subs[i].done && f->subs[i].rc == 0)
            st->submits[i].daemon_graph = f->subs[i].graph;
    pthread_mutex_unlock(&f->mu);
}

const char *sc_rt_feed_finish(sc_rt_state *st, uint64_t *session)
{
    sc_rt_feed *f = st->feed;
    *session = 0;
    if (!f || !f->thread_on)
        return "unreachable";
    *session = f->session;
    int ms = f->exit_timeout_ms;
    bool settled = false;
    if (atomic_load(&f->state) == SC_RT_FEED_CONNECTED && ms > 0) {
        int rc = settle(f, ms);
        settled = rc == 0;
        if (rc == -ETIMEDOUT && !atomic_exchange(&f->warned, true))
            fprintf(stderr,
                    "streamcap: the daemon did not answer within %d ms "
                    "(STREAMCAP_EXIT_TIMEOUT_MS); captures not yet acknowledged are kept "
                    "in this process only\n",
                    ms);
    }
    apply_all(f, st);
    pthread_mutex_lock(&f->mu);
    f->stop = true;
    pthread_cond_signal(&f->wake);
    pthread_mutex_unlock(&f->mu);
    /* The feed thread is done with the handle once it has caught up; one
     * stuck in a call is left to the process's end with the handle. */
    if (caught_up(f, 0, settled ? 1000 : 10)) {
        pthread_mutex_lock(&f->mu);
        while (!f->stopped)
            pthread_cond_wait(&f->idle, &f->mu);
        pthread_mutex_unlock(&f->mu);
        pthread_join(f->thread, NULL);
        f->thread_on = false;
        if (settled && atomic_load(&f->state) == SC_RT_FEED_CONNECTED &&
            sc_client_close_session(f->c, f->session) == 0)
            (void)sc_client_async_drain(f->c, 1000);
        sc_client_close(f->c);
        f->c = NULL;
    }
    return atomic_load(&f->state) == SC_RT_FEED_CONNECTED ? "connected" : "lost";
}
