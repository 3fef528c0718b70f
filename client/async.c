/*
 * async.c - the asynchronous (streaming) mode of a connection: callers
 * queue requests under a lock and return; one I/O thread per handle moves
 * the bytes both ways and hands each decoded reply to the caller's
 * function.
 */
#define _GNU_SOURCE /* pipe2 */

#include "client_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Unsent bytes past which a call waits for the I/O thread, unless
 * sc_client_async_window says otherwise: a daemon that stops reading must
 * cost memory up to here, not without bound. */
#define SC_CL_ASYNC_MAX_QUEUED ((size_t)64 << 20)
#define SC_CL_ASYNC_READ_HINT  65536

typedef struct sc_cl_async {
    pthread_mutex_t mu;
    pthread_cond_t room; /* unsent bytes fell, or the connection died */
    pthread_cond_t done; /* a reply was handed over, or the connection died */
    pthread_t thread;
    int wake[2]; /* a byte on wake[1] ends the I/O thread's poll */
    bool stop;
    bool idle; /* the I/O thread polls with nothing to send */
    int err;   /* the transport error that ended the connection, 0 while alive */
    char errmsg[256];
    sc_client_reply_fn fn;
    void *arg;
    uint64_t queued;   /* calls queued: the last seq */
    uint64_t answered; /* replies handed over */
    uint8_t *methods;  /* method of seq s at s & (mcap - 1), unanswered ones */
    size_t mcap;       /* a power of two */
    size_t unsent;     /* bytes queued and not yet written */
    size_t window;     /* unsent bytes past which a call waits */
    sc_buf send;       /* the I/O thread's: swapped with c->out under the lock */
    size_t sent;
    sc_client io; /* the I/O thread's error state while it decodes */
    /* The I/O thread's copy of the methods of the next unanswered calls
     * (seqs ahead_seq ...), and the last seq handed to fn but not yet
     * counted in `answered`: a batch of replies takes the lock once, not
     * twice a reply, while callers hold it to queue. */
    uint8_t ahead[256];
    uint64_t ahead_seq;
    size_t ahead_n, ahead_i;
    uint64_t handed;
} sc_cl_async;

/* ------------------------------------------------------------ callers */

static int deadline_after(int ms, struct timespec *ts)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
    return 0;
}

/* The connection died: the error, with its message for sc_client_errmsg. */
static int dead(sc_client *c, sc_cl_async *a)
{
    int rc = a->err;
    pthread_mutex_unlock(&a->mu);
    return sc_cl_fail(c, rc, "%s", a->errmsg);
}

int sc_cl_async_lock(sc_client *c, sc_method_id m)
{
    sc_cl_async *a = c->async;
    pthread_mutex_lock(&a->mu);
    if (a->err)
        return dead(c, a);
    if (a->unsent >= a->window) {
        struct timespec until;
        if (c->timeout_ms > 0)
            deadline_after(c->timeout_ms, &until);
        while (a->unsent >= a->window && !a->err) {
            int w = c->timeout_ms > 0 ? pthread_cond_timedwait(&a->room, &a->mu, &until)
                                      : pthread_cond_wait(&a->room, &a->mu);
            if (w == ETIMEDOUT && a->unsent >= a->window && !a->err) {
                pthread_mutex_unlock(&a->mu);
                return sc_cl_fail(c, -ETIMEDOUT,
                                  "%s: %zu bytes wait to be sent and the daemon took none "
                                  "within %d ms",
                                  sc_methods[m].name, a->unsent, c->timeout_ms);
            }
        }
        if (a->err)
            return dead(c, a);
    }
    return 0;
}

void sc_cl_async_unlock(sc_client *c)
{
    pthread_mutex_unlock(&c->async->mu);
}

/* Room for one more unanswered call in the ring of methods. */
static int ring_room(sc_cl_async *a)
{
    size_t open = (size_t)(a->queued - a->answered);
    if (open < a->mcap)
        return 0;
    size_t cap = a->mcap ? a->mcap * 2 : 1024;
    uint8_t *p = malloc(cap);
    if (!p)
        return -ENOMEM;
    for (uint64_t s = a->answered + 1; s <= a->queued; s++)
        p[s & (cap - 1)] = a->methods[s & (a->mcap - 1)];
    free(a->methods);
    a->methods = p;
    a->mcap = cap;
    return 0;
}

int sc_cl_async_queue(sc_client *c, sc_method_id m)
{
    sc_cl_async *a = c->async;
    if (ring_room(a) != 0) {
        sc_cl_fail(c, -ENOMEM, "out of memory queuing a request");
        sc_cl_cancel(c);
        return -ENOMEM;
    }
    size_t start = c->req_start;
    int rc = sc_cl_finish_request(c); /* unlocks when it fails */
    if (rc != 0)
        return rc;
    a->queued++;
    a->methods[a->queued & (a->mcap - 1)] = (uint8_t)m;
    a->unsent += c->out.len - start;
    bool wake = a->idle;
    a->idle = false;
    pthread_mutex_unlock(&a->mu);
    if (wake) {
        /* Full pipe: the thread has a wake-up pending already. */
        ssize_t n = write(a->wake[1], "", 1);
        (void)n;
    }
    return 1;
}

/* -------------------------------------------------------- I/O thread */

/* End the connection: every waiter learns the error. */
static void fail(sc_client *c, int rc, const char *msg)
{
    sc_cl_async *a = c->async;
    pthread_mutex_lock(&a->mu);
    if (!a->err) {
        a->err = rc;
        snprintf(a->errmsg, sizeof(a->errmsg), "%s", msg);
    }
    c->broken = true;
    pthread_cond_broadcast(&a->room);
    pthread_cond_broadcast(&a->done);
    pthread_mutex_unlock(&a->mu);
}

static int fail_errno(sc_client *c, const char *what, int err)
{
    char text[128], msg[200];
    if (strerror_r(err, text, sizeof(text)) != 0)
        snprintf(text, sizeof(text), "error %d", err);
    snprintf(msg, sizeof(msg), "%s: %s", what, text);
    int rc = err == EPIPE || err == ECONNRESET ? -ECONNRESET : -err;
    fail(c, rc, msg);
    return rc;
}

/* Count the replies handed over as answered (lock held). */
static void publish_locked(sc_cl_async *a)
{
    if (a->handed > a->answered) {
        a->answered = a->handed;
        pthread_cond_broadcast(&a->done);
    }
}

static void publish(sc_cl_async *a)
{
    pthread_mutex_lock(&a->mu);
    publish_locked(a);
    pthread_mutex_unlock(&a->mu);
}

/* The call the next reply answers: its seq and method; false when every
 * call queued has its reply already. */
static bool next_call(sc_cl_async *a, uint64_t *seq, sc_method_id *m)
{
    if (a->ahead_i == a->ahead_n) {
        pthread_mutex_lock(&a->mu);
        publish_locked(a);
        uint64_t open = a->queued - a->answered;
        a->ahead_seq = a->answered + 1;
        a->ahead_n = open < sizeof a->ahead ? (size_t)open : sizeof a->ahead;
        a->ahead_i = 0;
        for (size_t i = 0; i < a->ahead_n; i++)
            a->ahead[i] = a->methods[(a->ahead_seq + i) & (a->mcap - 1)];
        pthread_mutex_unlock(&a->mu);
    }
    *seq = a->ahead_seq + a->ahead_i;
    *m = a->ahead_i < a->ahead_n ? (sc_method_id)a->ahead[a->ahead_i] : SC_M_SESSION_OPEN;
    return a->ahead_i < a->ahead_n;
}

/* Hand a decoded reply to the caller's function; it counts as answered at
 * the next publish. */
static void hand_over(sc_client *c, uint64_t seq, const sc_client_reply *r)
{
    sc_cl_async *a = c->async;
    a->fn(a->arg, seq, r);
    a->ahead_i++;
    a->handed = seq;
}

/* One reply line: match it to the oldest unanswered call and hand it on.
 * A record call's success takes the literal reading (fast_reply.c); any
 * other line is parsed whole. */
static int take_line(sc_client *c, const char *line, size_t len)
{
    sc_cl_async *a = c->async;
    uint64_t seq;
    sc_method_id m;
    bool open = next_call(a, &seq, &m);
    sc_client_reply r;
    if (open && sc_cl_fast_reply(m, c->recv_id, line, len, &r)) {
        c->recv_id++;
        if (a->io.errdata || a->io.errmsg[0])
            sc_cl_clear_error(&a->io);
        hand_over(c, seq, &r);
        return 0;
    }
    cJSON *root = cJSON_ParseWithLength(line, len);
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "id");
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(root, "error");
    int rc = 0;
    char msg[200];
    if (!cJSON_IsObject(root)) {
        rc = -EPROTO;
        snprintf(msg, sizeof(msg), "malformed reply: not a JSON object");
    } else if (cJSON_IsNull(id) && cJSON_IsObject(error)) {
        /* Said about the connection itself: the daemon closes it next. */
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(error, "code");
        const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(error, "message"));
        rc = cJSON_IsNumber(code) ? sc_cl_map_code(code->valuedouble) : SC_CLIENT_ESERVER;
        snprintf(msg, sizeof(msg), "%s", m ? m : "connection refused");
    } else if (!cJSON_IsNumber(id) || id->valuedouble != (double)c->recv_id) {
        rc = -EPROTO;
        snprintf(msg, sizeof(msg), "malformed reply: expected id %llu",
                 (unsigned long long)c->recv_id);
    }
    if (rc == 0 && !open) {
        rc = -EPROTO;
        snprintf(msg, sizeof(msg), "malformed reply: more replies than requests");
    }
    if (rc != 0) {
        cJSON_Delete(root);
        fail(c, rc, msg);
        return rc;
    }
    c->recv_id++;
    sc_cl_clear_error(&a->io);
    sc_cl_decode_reply(&a->io, m, root, &r);
    if (r.rc != 0)
        r.errdata = a->io.errdata;
    hand_over(c, seq, &r);
    cJSON_Delete(root);
    return 0;
}

static int read_some(sc_client *c)
{
    char *p;
    size_t avail;
    if (sc_framer_space(&c->in, SC_CL_ASYNC_READ_HINT, &p, &avail) != 0) {
        fail(c, -ENOMEM, "out of memory reading a reply");
        return -ENOMEM;
    }
    ssize_t n = recv(c->fd, p, avail, 0);
    if (n == 0) {
        fail(c, -ECONNRESET, "the daemon closed the connection");
        return -ECONNRESET;
    }
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
            return 0;
        return fail_errno(c, "reading from the daemon", errno);
    }
    sc_framer_commit(&c->in, (size_t)n);
    const char *line;
    size_t len;
    int st;
    while ((st = sc_framer_next(&c->in, &line, &len)) == SC_FRAME_LINE) {
        int rc = take_line(c, line, len);
        if (rc != 0)
            return rc;
    }
    publish(c->async);
    if (st == SC_FRAME_TOO_LONG) {
        fail(c, -EPROTO, "reply too long");
        return -EPROTO;
    }
    return 0;
}

static int write_some(sc_client *c)
{
    sc_cl_async *a = c->async;
    ssize_t n = send(c->fd, a->send.data + a->sent, a->send.len - a->sent, MSG_NOSIGNAL);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
            return 0;
        return fail_errno(c, "writing to the daemon", errno);
    }
    a->sent += (size_t)n;
    pthread_mutex_lock(&a->mu);
    a->unsent -= (size_t)n;
    pthread_cond_broadcast(&a->room);
    pthread_mutex_unlock(&a->mu);
    return 0;
}

/* Take what callers queued, when the last batch is out.  Lock held. */
static void refill(sc_client *c)
{
    sc_cl_async *a = c->async;
    if (a->sent < a->send.len || c->out.len == 0)
        return;
    sc_buf t = a->send;
    a->send = c->out;
    c->out = t;
    c->out.len = 0;
    a->sent = 0;
}

static void *io_main(void *arg)
{
    sc_client *c = arg;
    sc_cl_async *a = c->async;
    for (;;) {
        pthread_mutex_lock(&a->mu);
        refill(c);
        bool stop = a->stop || a->err;
        bool out = a->sent < a->send.len;
        a->idle = !out;
        pthread_mutex_unlock(&a->mu);
        if (stop)
            return NULL;
        struct pollfd p[2] = {{.fd = c->fd, .events = POLLIN},
                              {.fd = a->wake[0], .events = POLLIN}};
        if (out)
            p[0].events |= POLLOUT;
        if (poll(p, 2, -1) < 0) {
            if (errno != EINTR)
                fail_errno(c, "waiting for the daemon", errno);
            continue;
        }
        if (p[1].revents & POLLIN) {
            char buf[64];
            while (read(a->wake[0], buf, sizeof(buf)) > 0) {
            }
        }
        if ((p[0].revents & (POLLIN | POLLHUP | POLLERR)) && read_some(c) != 0)
            continue;
        if (p[0].revents & POLLOUT)
            write_some(c);
    }
}

/* ---------------------------------------------------------------- API */

static void async_free(sc_cl_async *a)
{
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->room);
    pthread_cond_destroy(&a->done);
    if (a->wake[0] >= 0)
        close(a->wake[0]);
    if (a->wake[1] >= 0)
        close(a->wake[1]);
    free(a->methods);
    sc_buf_free(&a->send);
    free(a->io.errdata);
    free(a);
}

static int async_init(sc_cl_async *a)
{
    a->wake[0] = a->wake[1] = -1;
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0)
        return -ENOMEM;
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    int rc = pthread_mutex_init(&a->mu, NULL) || pthread_cond_init(&a->room, &ca) ||
                     pthread_cond_init(&a->done, &ca)
                 ? -ENOMEM
                 : 0;
    pthread_condattr_destroy(&ca);
    if (rc == 0 && pipe2(a->wake, O_CLOEXEC | O_NONBLOCK) != 0)
        rc = -errno;
    sc_buf_init(&a->send);
    return rc;
}

int sc_client_async_begin(sc_client *c, sc_client_reply_fn fn, void *arg)
{
    if (!c)
        return -EINVAL;
    if (c->async || c->pipelining)
        return sc_cl_fail(c, -EBUSY, "a pipeline or the asynchronous mode is open");
    if (c->broken)
        return -ENOTCONN;
    if (!fn)
        return sc_cl_fail(c, -EINVAL, "fn must not be NULL");
    sc_cl_clear_error(c);
    sc_cl_async *a = calloc(1, sizeof(*a));
    if (!a)
        return sc_cl_fail(c, -ENOMEM, "out of memory");
    int rc = async_init(a);
    if (rc != 0) {
        async_free(a);
        return sc_cl_fail(c, rc, "cannot set up the asynchronous mode");
    }
    a->fn = fn;
    a->arg = arg;
    a->window = SC_CL_ASYNC_MAX_QUEUED;
    /* Whatever a blocking call left unsent goes first, unanswered by fn:
     * there is none, since blocking calls wait for their reply. */
    c->out.len = 0;
    c->out_sent = 0;
    c->async = a;
    rc = pthread_create(&a->thread, NULL, io_main, c);
    if (rc != 0) {
        c->async = NULL;
        async_free(a);
        return sc_cl_fail(c, rc == EAGAIN ? -EAGAIN : -ENOMEM, "cannot start the I/O thread");
    }
    return 0;
}

int sc_client_async_window(sc_client *c, size_t bytes)
{
    if (!c || !c->async)
        return c ? sc_cl_fail(c, -EINVAL, "the asynchronous mode is off") : -EINVAL;
    sc_cl_async *a = c->async;
    pthread_mutex_lock(&a->mu);
    bool wider = bytes == 0 || bytes > a->window;
    a->window = bytes ? bytes : SC_CL_ASYNC_MAX_QUEUED;
    if (wider)
        pthread_cond_broadcast(&a->room);
    pthread_mutex_unlock(&a->mu);
    return 0;
}

int sc_client_async_drain(sc_client *c, int timeout_ms)
{
    if (!c || !c->async)
        return c ? sc_cl_fail(c, -EINVAL, "the asynchronous mode is off") : -EINVAL;
    sc_cl_async *a = c->async;
    struct timespec until;
    if (timeout_ms > 0)
        deadline_after(timeout_ms, &until);
    pthread_mutex_lock(&a->mu);
    int w = 0;
    while (a->answered < a->queued && !a->err && w != ETIMEDOUT)
        w = timeout_ms > 0 ? pthread_cond_timedwait(&a->done, &a->mu, &until)
                           : pthread_cond_wait(&a->done, &a->mu);
    if (a->answered == a->queued) {
        pthread_mutex_unlock(&a->mu);
        return 0;
    }
    if (a->err)
        return dead(c, a);
    uint64_t left = a->queued - a->answered;
    pthread_mutex_unlock(&a->mu);
    return sc_cl_fail(c, -ETIMEDOUT, "%llu replies still outstanding after %d ms",
                      (unsigned long long)left, timeout_ms);
}

uint64_t sc_client_async_pending(sc_client *c)
{
    if (!c || !c->async)
        return 0;
    pthread_mutex_lock(&c->async->mu);
    uint64_t n = c->async->queued - c->async->answered;
    pthread_mutex_unlock(&c->async->mu);
    return n;
}

void sc_cl_async_end(sc_client *c)
{
    sc_cl_async *a = c->async;
    if (!a)
        return;
    pthread_mutex_lock(&a->mu);
    a->stop = true;
    pthread_mutex_unlock(&a->mu);
    ssize_t n = write(a->wake[1], "", 1);
    (void)n;
    pthread_join(a->thread, NULL);
    c->async = NULL;
    async_free(a);
}
