/*
 * cli_web_live.c - the live log behind /api/events: ONE log.subscribe
 * connection to the daemon, held only while at least one page listens,
 * its events copied to every listener as Server-Sent Events.  Nobody
 * looking costs the daemon nothing; many tabs cost it one subscriber.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli_web.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "sc_buf.h"
#include "streamcap.h"

/* A listener that lets this much wait unread is ended (its page reconnects). */
#define LISTENER_MAX_BYTES (1u << 20)
/* How long the subscriber waits for an event before looking whether
 * anyone still listens; and a comment line every so often keeps proxies
 * and the browser from calling an idle stream dead. */
#define POLL_MS     250
#define KEEPALIVE_S 15
/* How soon a page that went away stops counting as a listener. */
#define GONE_CHECK_MS 500
#define RETRY_MS      1000

struct web_listener {
    web_hub *hub;
    web_listener *next;
    sc_buf pending; /* SSE text not yet read */
    bool over;      /* ended: too slow, or the server is stopping */
    int fd;         /* the page's connection, watched for its closing */
};

struct web_hub {
    char *socket;
    int timeout_ms;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* listeners wait on it for text */
    web_listener *list;
    size_t n;
    bool stop;
    bool running; /* the subscriber thread is on */
    bool joinable;
    bool live; /* subscribed now: a page that joins is told at once */
    pthread_t th;
};

web_hub *web_hub_new(const char *socket, int timeout_ms)
{
    web_hub *h = calloc(1, sizeof(*h));
    if (!h || !(h->socket = strdup(socket))) {
        free(h);
        return NULL;
    }
    h->timeout_ms = timeout_ms;
    pthread_mutex_init(&h->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&h->cv, &ca);
    pthread_condattr_destroy(&ca);
    return h;
}

/* Append one event to every listener (mu held). */
static void fan_out(web_hub *h, const char *kind, const char *json)
{
    for (web_listener *l = h->list; l; l = l->next) {
        if (l->over)
            continue;
        if (l->pending.len > LISTENER_MAX_BYTES) {
            l->over = true;
            continue;
        }
        sc_buf_printf(&l->pending, "event: %s\ndata: %s\n\n", kind, json);
    }
    pthread_cond_broadcast(&h->cv);
}

static bool wanted(web_hub *h)
{
    pthread_mutex_lock(&h->mu);
    bool on = h->n > 0 && !h->stop;
    if (!on)
        h->running = false; /* decided under the lock: web_listen starts a new one */
    pthread_mutex_unlock(&h->mu);
    return on;
}

static void tell(web_hub *h, const char *kind, const char *msg, bool live)
{
    sc_buf b = SC_BUF_INIT;
    bool first;
    sc_json_obj_begin(&b, &first);
    sc_json_member_cstr(&b, &first, "message", msg);
    sc_json_obj_end(&b);
    size_t len;
    char *text = sc_buf_detach(&b, &len);
    pthread_mutex_lock(&h->mu);
    h->live = live;
    if (text)
        fan_out(h, kind, text);
    pthread_mutex_unlock(&h->mu);
    free(text);
}

/* Read events until nobody listens or the stream breaks: 0 or the error. */
static int follow(web_hub *h, sc_client *c)
{
    while (wanted(h)) {
        char *json = NULL;
        int rc = sc_client_log_next(c, POLL_MS, &json);
        if (rc == -ETIMEDOUT)
            continue;
        if (rc != 0)
            return rc;
        pthread_mutex_lock(&h->mu);
        fan_out(h, "log", json);
        pthread_mutex_unlock(&h->mu);
        free(json);
    }
    return 0;
}

static void *subscriber(void *arg)
{
    web_hub *h = arg;
    while (wanted(h)) {
        sc_client *c = NULL;
        int rc = sc_client_connect(h->socket, h->timeout_ms, &c);
        if (rc == 0)
            rc = sc_client_log_subscribe(c, NULL, NULL);
        if (rc == 0) {
            tell(h, "status", "live", true);
            rc = follow(h, c);
        }
        if (rc != 0) {
            char msg[512];
            snprintf(msg, sizeof(msg), "the daemon's log stream stopped: %s; retrying",
                     c ? sc_client_errmsg(c) : strerror(-rc));
            tell(h, "status", msg, false);
        }
        sc_client_close(c);
        pthread_mutex_lock(&h->mu);
        h->live = false;
        pthread_mutex_unlock(&h->mu);
        if (rc == 0)
            break;
        struct timespec t = {.tv_sec = RETRY_MS / 1000, .tv_nsec = (RETRY_MS % 1000) * 1000000L};
        nanosleep(&t, NULL);
    }
    return NULL;
}

web_listener *web_listen(web_hub *h, int fd)
{
    web_listener *l = calloc(1, sizeof(*l));
    if (!l)
        return NULL;
    l->hub = h;
    l->fd = fd;
    sc_buf_init(&l->pending);
    /* The first bytes open the stream at once (and say how soon to reconnect). */
    sc_buf_puts(&l->pending, "retry: 2000\n: streamcap live log\n\n");
    pthread_mutex_lock(&h->mu);
    if (h->live)
        sc_buf_puts(&l->pending, "event: status\ndata: {\"message\":\"live\"}\n\n");
    l->next = h->list;
    h->list = l;
    h->n++;
    if (!h->running && !h->stop) {
        /* A finished thread is joined before its successor starts. */
        if (h->joinable)
            pthread_join(h->th, NULL);
        h->joinable = pthread_create(&h->th, NULL, subscriber, h) == 0;
        h->running = h->joinable;
    }
    pthread_mutex_unlock(&h->mu);
    return l;
}

/* Whether the page closed its connection: nothing is written to an idle
 * stream for a while, so the closing would otherwise go unseen (and the
 * subscription held) until the next keepalive. */
static bool gone(int fd)
{
    if (fd < 0)
        return false;
    char c;
    ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

long web_listener_read(web_listener *l, char *buf, size_t max)
{
    web_hub *h = l->hub;
    pthread_mutex_lock(&h->mu);
    for (int waited_ms = 0; l->pending.len == 0 && !l->over && !h->stop;) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        t.tv_nsec += GONE_CHECK_MS * 1000000L;
        t.tv_sec += t.tv_nsec / 1000000000L;
        t.tv_nsec %= 1000000000L;
        if (pthread_cond_timedwait(&h->cv, &h->mu, &t) != ETIMEDOUT || l->pending.len)
            continue;
        if (gone(l->fd))
            l->over = true;
        else if ((waited_ms += GONE_CHECK_MS) >= KEEPALIVE_S * 1000) {
            sc_buf_puts(&l->pending, ": keepalive\n\n");
            waited_ms = 0;
        }
    }
    long n = -1;
    if (l->pending.len > 0 && !l->over && !h->stop) {
        size_t k = l->pending.len < max ? l->pending.len : max;
        memcpy(buf, l->pending.data, k);
        memmove(l->pending.data, l->pending.data + k, l->pending.len - k);
        l->pending.len -= k;
        n = (long)k;
    }
    pthread_mutex_unlock(&h->mu);
    return n;
}

void web_unlisten(web_listener *l)
{
    if (!l)
        return;
    web_hub *h = l->hub;
    pthread_mutex_lock(&h->mu);
    for (web_listener **p = &h->list; *p; p = &(*p)->next) {
        if (*p == l) {
            *p = l->next;
            h->n--;
            break;
        }
    }
    pthread_mutex_unlock(&h->mu);
    sc_buf_free(&l->pending);
    free(l);
}

void web_hub_stop(web_hub *h)
{
    pthread_mutex_lock(&h->mu);
    h->stop = true;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
}

void web_hub_free(web_hub *h)
{
    if (!h)
        return;
    web_hub_stop(h);
    /* After stop no new thread starts; the last one ends within POLL_MS. */
    if (h->joinable)
        pthread_join(h->th, NULL);
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->mu);
    free(h->socket);
    free(h);
}
