/*
 * buffers.c - the daemon-wide budget of connection buffers
 * (--buffer-budget): the bytes of partial request lines and of replies
 * waiting to be sent, over every connection together.
 *
 * A connection's own bounds (the 4 MiB output mark, --max-message) keep one
 * client from growing without end, but a thousand of them could each hold
 * as much.  Past the budget, a connection holding more than its share stops
 * reading and running requests until the total is back under the budget or
 * it is back within its share; one within its share never waits for the
 * others.  Counts are taken at the points where a connection's buffers
 * change in bulk (after a read, between requests, after a write, a trim,
 * its end), not on every append: between two such points a connection adds
 * at most one request's reply or one read.
 */
#include "sc_daemon.h"

/* A share never smaller than this, so that with many connections an
 * ordinary request line and its replies still fit. */
#define SC_BUFFER_SHARE_MIN (64u << 10)

static size_t conn_bytes(const sc_conn *c)
{
    return sc_framer_pending(&c->in) + sc_conn_pending(c);
}

size_t sc_buffers_share(const sc_daemon *d)
{
    size_t share = d->cfg.buffer_budget / (d->nconns ? d->nconns : 1);
    return share > SC_BUFFER_SHARE_MIN ? share : SC_BUFFER_SHARE_MIN;
}

void sc_buffers_account(sc_conn *c)
{
    sc_daemon *d = c->d;
    size_t now = c->buffers_gone ? 0 : conn_bytes(c);
    d->buffer_bytes = d->buffer_bytes - c->buffer_bytes + now;
    c->buffer_bytes = now;
}

bool sc_buffers_over(sc_conn *c)
{
    sc_buffers_account(c);
    const sc_daemon *d = c->d;
    bool over = d->buffer_bytes >= d->cfg.buffer_budget && c->buffer_bytes > sc_buffers_share(d);
    /* Marked here too, not only when reading stops: requests it holds that
     * dispatch did not run must be run again once there is room. */
    if (over)
        sc_buffers_note_paused(c, true);
    return over;
}

void sc_buffers_note_paused(sc_conn *c, bool paused)
{
    if (c->budget_paused == paused)
        return;
    c->budget_paused = paused;
    if (paused) {
        c->d->budget_paused++;
        c->d->budget_pauses++;
    } else {
        c->d->budget_paused--;
    }
}

void sc_buffers_forget(sc_conn *c)
{
    sc_buffers_note_paused(c, false);
    c->buffers_gone = true;
    sc_buffers_account(c);
}

/* Connections paused for the budget go on once it has room: each one is
 * looked at again (it may still be over its share). */
void sc_buffers_release(sc_daemon *d)
{
    if (d->budget_paused == 0 || d->buffer_bytes >= d->cfg.buffer_budget || d->budget_releasing)
        return;
    d->budget_releasing = true;
    sc_conn *next;
    for (sc_conn *c = d->conns; c; c = next) {
        next = c->next;
        if (!c->budget_paused || c->closing)
            continue;
        sc_conn_ref(c);
        sc_dispatch_process(c);
        sc_conn_flush(c);
        sc_conn_update_reading(c);
        sc_conn_unref(c);
    }
    d->budget_releasing = false;
}
