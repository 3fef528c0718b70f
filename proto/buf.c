/* _POSIX_C_SOURCE for gmtime_r. */
#define _POSIX_C_SOURCE 200809L

#include "sc_buf.h"

#include "json_str.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SC_BUF_MIN_CAP 256

void sc_buf_init(sc_buf *b)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->oom = false;
}

void sc_buf_free(sc_buf *b)
{
    free(b->data);
    sc_buf_init(b);
}

void sc_buf_reset(sc_buf *b)
{
    b->len = 0;
    b->oom = false;
}

int sc_buf_reserve(sc_buf *b, size_t extra)
{
    if (b->oom)
        return -1;
    if (b->cap - b->len >= extra)
        return 0;
    if (extra > SIZE_MAX - b->len) {
        b->oom = true;
        return -1;
    }
    size_t need = b->len + extra;
    size_t cap = b->cap < SC_BUF_MIN_CAP ? SC_BUF_MIN_CAP : b->cap;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *p = realloc(b->data, cap);
    if (!p) {
        b->oom = true;
        return -1;
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

char *sc_buf_detach(sc_buf *b, size_t *len)
{
    char *out = NULL;
    size_t n = 0;
    /* The terminating NUL is not counted, so the result is also a C string. */
    if (sc_buf_reserve(b, 1) == 0) {
        b->data[b->len] = '\0';
        out = b->data;
        n = b->len;
        b->data = NULL;
    }
    sc_buf_free(b);
    if (len)
        *len = n;
    return out;
}

bool sc_buf_failed(const sc_buf *b)
{
    return b->oom;
}

void sc_buf_printf(sc_buf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    va_list ap;
    /* Try the free space first: most formatted pieces are short. */
    size_t room = b->cap - b->len;
    va_start(ap, fmt);
    int n = vsnprintf(room ? b->data + b->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = true;
        return;
    }
    if ((size_t)n < room) {
        b->len += (size_t)n;
        return;
    }
    if (sc_buf_reserve(b, (size_t)n + 1) != 0)
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* Escape needed: 0 none, 1 short form (\n ...), 2 \u00XX. */
static const unsigned char esc_class[256] = {
    2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 1, 1, 2, 2, /* 0x00 */
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, /* 0x10 */
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x20: '"' */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x30 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x40 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, /* 0x50: '\\' */
};

static char short_escape(unsigned char c)
{
    switch (c) {
    case '\b':
        return 'b';
    case '\t':
        return 't';
    case '\n':
        return 'n';
    case '\f':
        return 'f';
    case '\r':
        return 'r';
    default:
        return (char)c; /* '"' and '\\' escape as themselves */
    }
}

void sc_json_string(sc_buf *b, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    /* Most strings need no escapes: reserve for that case up front. */
    if (sc_buf_reserve(b, len + 2) != 0)
        return;
    b->data[b->len++] = '"';
    size_t run = 0, i = 0;
    /* Eight bytes at a time while none needs a look (names, labels and
     * words are plain ASCII); the loop below takes it from there. */
    while (len - i >= 8) {
        uint64_t x;
        memcpy(&x, p + i, 8);
        if (sc_json_special8(x))
            break;
        i += 8;
    }
    for (; i < len; i++) {
        unsigned char cls = esc_class[p[i]];
        if (cls == 0)
            continue;
        sc_buf_append(b, p + run, i - run);
        run = i + 1;
        if (cls == 1) {
            char e[2] = {'\\', short_escape(p[i])};
            sc_buf_append(b, e, 2);
        } else {
            char e[6] = {'\\', 'u', '0', '0', hex[p[i] >> 4], hex[p[i] & 15]};
            sc_buf_append(b, e, 6);
        }
    }
    sc_buf_append(b, p + run, len - run);
    sc_buf_putc(b, '"');
}

void sc_json_cstr(sc_buf *b, const char *s)
{
    sc_json_string(b, s, strlen(s));
}

/* "00" .. "99": two digits a division, half the divisions of one a digit. */
static const char digit_pairs[201] = "00010203040506070809"
                                     "10111213141516171819"
                                     "20212223242526272829"
                                     "30313233343536373839"
                                     "40414243444546474849"
                                     "50515253545556575859"
                                     "60616263646566676869"
                                     "70717273747576777879"
                                     "80818283848586878889"
                                     "90919293949596979899";

void sc_json_u64(sc_buf *b, uint64_t v)
{
    /* Written in place, last digit first, two a division: the digits are
     * counted first so that they end where they should. */
    if (b->oom || (b->cap - b->len < 20 && sc_buf_reserve(b, 20) != 0))
        return;
    char *p = b->data + b->len;
    size_t n = 1;
    for (uint64_t t = 10; n < 20 && v >= t; t *= 10)
        n++;
    b->len += n;
    char *e = p + n;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        *--e = digit_pairs[d + 1];
        *--e = digit_pairs[d];
    }
    if (v >= 10) {
        *--e = digit_pairs[v * 2 + 1];
        *--e = digit_pairs[v * 2];
    } else {
        *--e = (char)('0' + v);
    }
}

void sc_json_u32_array(sc_buf *b, const uint32_t *v, size_t n)
{
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            sc_buf_putc(b, ',');
        sc_json_u64(b, v[i]);
    }
    sc_buf_putc(b, ']');
}

void sc_json_i64(sc_buf *b, int64_t v)
{
    if (v < 0) {
        sc_buf_putc(b, '-');
        /* Negate in unsigned arithmetic so INT64_MIN is fine. */
        sc_json_u64(b, 0 - (uint64_t)v);
        return;
    }
    sc_json_u64(b, (uint64_t)v);
}

void sc_json_bool(sc_buf *b, bool v)
{
    if (v)
        sc_buf_append(b, "true", 4);
    else
        sc_buf_append(b, "false", 5);
}

void sc_json_time_ms(sc_buf *b, int64_t unix_ms)
{
    /* Floor division so times before 1970 keep a positive millisecond part. */
    int64_t secs = unix_ms / 1000;
    int64_t ms = unix_ms % 1000;
    if (ms < 0) {
        ms += 1000;
        secs -= 1;
    }
    time_t t = (time_t)secs;
    struct tm tm;
    if ((int64_t)t != secs || !gmtime_r(&t, &tm)) {
        sc_buf_append(b, "null", 4);
        return;
    }
    sc_buf_printf(b, "\"%04d-%02d-%02dT%02d:%02d:%02d.%03dZ\"", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)ms);
}

void sc_json_member_kargs(sc_buf *b, bool *first, const uint8_t *args, size_t len,
                          const uint32_t *sizes, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    sc_json_key(b, first, "args");
    sc_buf_putc(b, '"');
    /* Digits by hand, straight into the buffer: a kernel's bytes are the
     * bulk of a captured launch's request. */
    if (sc_buf_reserve(b, 2 * len) == 0) {
        /* Through a local pointer: stores of chars may alias b->len. */
        char *o = b->data + b->len;
        for (size_t i = 0; i < len; i++) {
            o[2 * i] = digits[args[i] >> 4];
            o[2 * i + 1] = digits[args[i] & 15];
        }
        b->len += 2 * len;
    }
    sc_buf_putc(b, '"');
    sc_json_key(b, first, "param_sizes");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            sc_buf_putc(b, ',');
        sc_json_u64(b, sizes[i]);
    }
    sc_buf_putc(b, ']');
}
