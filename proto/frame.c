#include "sc_frame.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SC_FRAME_INIT_CAP 4096
/* An idle buffer larger than this is shrunk back, so one big message does
 * not pin a large allocation for the rest of a connection's life. */
#define SC_FRAME_SHRINK_CAP (256 * 1024)

static size_t add_sat(size_t a, size_t b)
{
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

int sc_framer_init(sc_framer *f, size_t max_line)
{
    memset(f, 0, sizeof *f);
    f->max_line = max_line;
    f->buf = malloc(SC_FRAME_INIT_CAP);
    if (!f->buf)
        return -1;
    f->cap = SC_FRAME_INIT_CAP;
    return 0;
}

void sc_framer_free(sc_framer *f)
{
    free(f->buf);
    memset(f, 0, sizeof *f);
}

static void compact(sc_framer *f)
{
    size_t held = f->len - f->start;
    if (held)
        memmove(f->buf, f->buf + f->start, held);
    f->start = 0;
    f->len = held;
}

static int resize(sc_framer *f, size_t cap)
{
    char *p = realloc(f->buf, cap);
    if (!p)
        return -1;
    f->buf = p;
    f->cap = cap;
    return 0;
}

static void shrink_if_idle(sc_framer *f, size_t hint)
{
    if (f->len != f->start || f->cap <= SC_FRAME_SHRINK_CAP || hint > SC_FRAME_SHRINK_CAP)
        return;
    f->start = f->len = 0;
    size_t cap = hint > SC_FRAME_INIT_CAP ? hint : SC_FRAME_INIT_CAP;
    (void)resize(f, cap); /* keeping the larger block on failure is harmless */
}

int sc_framer_space(sc_framer *f, size_t hint, char **ptr, size_t *avail)
{
    if (hint == 0)
        hint = 1;
    shrink_if_idle(f, hint);
    if (f->cap - f->len < hint && f->start > 0)
        compact(f);
    if (f->cap - f->len < hint) {
        size_t need = add_sat(f->len, hint);
        /* Grow geometrically, but never past what a line at the limit plus
         * one read needs, unless the caller holds more than that already. */
        size_t limit = add_sat(f->max_line, hint);
        size_t cap = f->cap > SIZE_MAX / 2 ? SIZE_MAX : f->cap * 2;
        if (cap > limit)
            cap = limit;
        if (cap < need)
            cap = need;
        if (resize(f, cap) != 0)
            return -1;
    }
    *ptr = f->buf + f->len;
    *avail = f->cap - f->len;
    return 0;
}

void sc_framer_commit(sc_framer *f, size_t n)
{
    if (n > f->cap - f->len)
        n = f->cap - f->len;
    f->len += n;
}

int sc_framer_push(sc_framer *f, const char *data, size_t n)
{
    char *p;
    size_t avail;
    if (n == 0)
        return 0;
    if (sc_framer_space(f, n, &p, &avail) != 0)
        return -1;
    memcpy(p, data, n);
    sc_framer_commit(f, n);
    return 0;
}

int sc_framer_next(sc_framer *f, const char **line, size_t *len)
{
    if (f->start == f->len) {
        /* Everything consumed: rewinding is free and avoids a later move. */
        f->start = f->len = f->scan = 0;
        return SC_FRAME_NEED_MORE;
    }
    /* Only look max_line + 1 bytes into the line: a newline any further
     * away makes it too long anyway, and the scan stays bounded. */
    size_t held = f->len - f->start;
    size_t window = add_sat(f->max_line, 1);
    size_t end = held < window ? held : window;
    if (f->scan < end) {
        const char *from = f->buf + f->start + f->scan;
        const char *nl = memchr(from, '\n', end - f->scan);
        if (nl) {
            size_t n = (size_t)(nl - (f->buf + f->start));
            *line = f->buf + f->start;
            *len = n;
            f->start += n + 1;
            f->scan = 0;
            return SC_FRAME_LINE;
        }
        f->scan = end;
    }
    return f->scan > f->max_line ? SC_FRAME_TOO_LONG : SC_FRAME_NEED_MORE;
}

size_t sc_framer_pending(const sc_framer *f)
{
    return f->len - f->start;
}

void sc_framer_release_if_idle(sc_framer *f)
{
    if (f->len != f->start || !f->buf)
        return;
    free(f->buf);
    f->buf = NULL;
    f->cap = f->start = f->len = f->scan = 0;
}

char *sc_framer_detach_if_idle(sc_framer *f, size_t *cap)
{
    if (f->len != f->start || !f->buf)
        return NULL;
    char *buf = f->buf;
    *cap = f->cap;
    f->buf = NULL;
    f->cap = f->start = f->len = f->scan = 0;
    return buf;
}

void sc_framer_adopt(sc_framer *f, char *buf, size_t cap)
{
    if (f->buf) {
        free(buf);
        return;
    }
    f->buf = buf;
    f->cap = cap;
    f->start = f->len = f->scan = 0;
}
