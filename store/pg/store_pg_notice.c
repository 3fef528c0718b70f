/*
 * store_pg_notice.c - notices between the daemons of a fleet over
 * LISTEN/NOTIFY (store_backend.h notices_*).
 *
 * One connection of its own, in non-blocking mode and polled by the
 * daemon's loop, so that neither hearing nor sending ever waits on the
 * server: it LISTENs on one channel, and sends each notice with
 * pg_notify() as a statement of its own, one at a time, in order.  Every
 * daemon's notices come back on its own connection too; they carry its
 * backend pid and are skipped.  A connection that breaks is not made
 * again: notices stop (both ways) until the daemon starts again, and
 * nothing else depends on them.
 */
#include <string.h>

#include "store_pg_int.h"

#define PG_NOTICE_CHANNEL "streamcap_events"
/* Notices waiting to be sent past this many are dropped: a server that
 * falls behind costs a bounded queue. */
#define PG_NOTICE_QUEUE_MAX 4096u

typedef struct pg_notice {
    struct pg_notice *next;
    char payload[]; /* NUL-terminated */
} pg_notice;

struct sc_store_notices {
    uv_poll_t poll;
    PGconn *conn;
    int own_pid; /* our backend's: our own notices come back with it */
    sc_store_notice_fn fn;
    void *arg;
    pg_notice *head, *tail; /* waiting to be sent; head in flight when busy */
    unsigned queued;
    bool busy;   /* a pg_notify() sent, its results not all read */
    bool broken; /* the connection failed: nothing more goes or comes */
    int events;  /* what the poll watches now */
};

static void on_poll(uv_poll_t *h, int status, int events);

static void watch(sc_store_notices *n, int events)
{
    if (n->broken || n->events == events)
        return;
    n->events = events;
    uv_poll_start(&n->poll, events, on_poll);
}

static void pop_head(sc_store_notices *n)
{
    pg_notice *x = n->head;
    n->head = x->next;
    if (!n->head)
        n->tail = NULL;
    n->queued--;
    free(x);
}

static void set_broken(sc_store_notices *n)
{
    n->broken = true;
    uv_poll_stop(&n->poll);
    while (n->head)
        pop_head(n);
    n->busy = false;
}

/* Send the next waiting notice when none is in flight. */
static void send_next(sc_store_notices *n)
{
    if (n->busy || !n->head || n->broken)
        return;
    const char *params[2] = {PG_NOTICE_CHANNEL, n->head->payload};
    if (!PQsendQueryParams(n->conn, "SELECT pg_notify($1, $2)", 2, NULL, params, NULL, NULL, 0)) {
        set_broken(n);
        return;
    }
    n->busy = true;
    int f = PQflush(n->conn);
    if (f < 0)
        set_broken(n);
    else
        watch(n, f ? UV_READABLE | UV_WRITABLE : UV_READABLE);
}

/* Results of the notice in flight, as far as they have arrived. */
static void read_results(sc_store_notices *n)
{
    while (n->busy && !PQisBusy(n->conn)) {
        PGresult *r = PQgetResult(n->conn);
        if (r) {
            PQclear(r); /* a failed pg_notify loses that notice only */
            continue;
        }
        n->busy = false;
        pop_head(n);
        send_next(n);
    }
}

static void deliver(sc_store_notices *n)
{
    PGnotify *x;
    while (!n->broken && (x = PQnotifies(n->conn))) {
        if (x->be_pid != n->own_pid && x->extra)
            n->fn(n->arg, x->extra, strlen(x->extra));
        PQfreemem(x);
    }
}

static void on_poll(uv_poll_t *h, int status, int events)
{
    sc_store_notices *n = h->data;
    if (status < 0) {
        set_broken(n);
        return;
    }
    if (events & UV_WRITABLE) {
        int f = PQflush(n->conn);
        if (f < 0) {
            set_broken(n);
            return;
        }
        if (f == 0)
            watch(n, UV_READABLE);
    }
    if (!(events & UV_READABLE))
        return;
    if (!PQconsumeInput(n->conn) || PQstatus(n->conn) != CONNECTION_OK) {
        set_broken(n);
        return;
    }
    read_results(n);
    deliver(n);
}

static void free_notices(uv_handle_t *h)
{
    sc_store_notices *n = h->data;
    while (n->head)
        pop_head(n);
    PQfinish(n->conn);
    free(n);
}

/* LISTEN, blocking: it runs once, at start, as the writer's connect does. */
static int listen_on(PGconn *conn, char *err, size_t errlen)
{
    PGresult *r = PQexec(conn, "LISTEN " PG_NOTICE_CHANNEL);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) {
        int rc = pg_fail(conn, r, "cannot listen for the fleet's events", err, errlen);
        PQclear(r);
        return rc;
    }
    PQclear(r);
    if (PQsetnonblocking(conn, 1) != 0) {
        pg_set_err(err, errlen, "cannot listen for the fleet's events", PQerrorMessage(conn));
        return SC_STORE_EIO;
    }
    return 0;
}

int store_pg_notices_open(const char *path, uv_loop_t *loop, sc_store_notice_fn fn, void *arg,
                          sc_store_notices **out, char *err, size_t errlen)
{
    *out = NULL;
    sc_store_notices *n = calloc(1, sizeof *n);
    if (!n) {
        pg_set_err(err, errlen, "cannot listen for the fleet's events", "out of memory");
        return SC_STORE_ENOMEM;
    }
    int rc = 0;
    n->conn = pg_connect(path, err, errlen, &rc);
    if (!n->conn) {
        free(n);
        return rc;
    }
    if ((rc = listen_on(n->conn, err, errlen)) != 0 ||
        uv_poll_init(loop, &n->poll, PQsocket(n->conn)) != 0) {
        if (!rc)
            pg_set_err(err, errlen, "cannot listen for the fleet's events", "cannot poll");
        PQfinish(n->conn);
        free(n);
        return rc ? rc : SC_STORE_EIO;
    }
    n->poll.data = n;
    n->own_pid = PQbackendPID(n->conn);
    n->fn = fn;
    n->arg = arg;
    watch(n, UV_READABLE);
    *out = n;
    return 0;
}

int store_pg_notices_send(sc_store_notices *n, const char *payload, size_t len)
{
    if (n->broken || n->queued >= PG_NOTICE_QUEUE_MAX)
        return 0; /* best effort: dropped */
    pg_notice *x = malloc(sizeof *x + len + 1);
    if (!x)
        return SC_STORE_ENOMEM;
    memcpy(x->payload, payload, len);
    x->payload[len] = '\0';
    x->next = NULL;
    if (n->tail)
        n->tail->next = x;
    else
        n->head = x;
    n->tail = x;
    n->queued++;
    send_next(n);
    return 0;
}

void store_pg_notices_close(sc_store_notices *n)
{
    if (!n->broken)
        uv_poll_stop(&n->poll);
    uv_close((uv_handle_t *)&n->poll, free_notices);
}
