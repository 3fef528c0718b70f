/*
 * store_access.c - a node's buffer accesses from the stores' JSON text.
 *
 * The text is what the stores write themselves, but it is read back from a
 * file anyone may have edited: every value is checked and whitespace is
 * allowed, so that SQLite's or PostgreSQL's rendering of it reads too.
 */
#include "store_access.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct cursor {
    const char *p, *end;
} cursor;

static void skip_ws(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static bool eat(cursor *c, char ch)
{
    skip_ws(c);
    if (c->p >= c->end || *c->p != ch)
        return false;
    c->p++;
    return true;
}

static bool read_u64(cursor *c, uint64_t *out)
{
    skip_ws(c);
    uint64_t v = 0;
    const char *start = c->p;
    for (; c->p < c->end && *c->p >= '0' && *c->p <= '9'; c->p++) {
        unsigned d = (unsigned)(*c->p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return c->p > start;
}

static bool read_mode(cursor *c, sc_access_mode *out)
{
    if (!eat(c, '"'))
        return false;
    const char *s = c->p;
    while (c->p < c->end && *c->p != '"')
        c->p++;
    if (c->p >= c->end || sc_access_mode_parse(s, (size_t)(c->p - s), out) != 0)
        return false;
    c->p++;
    return true;
}

static bool read_one(cursor *c, sc_access *a)
{
    return eat(c, '[') && read_u64(c, &a->address) && eat(c, ',') && read_u64(c, &a->size) &&
           eat(c, ',') && read_mode(c, &a->mode) && eat(c, ']') && sc_access_valid(a);
}

static int reserve(store_access_buf *b, size_t need)
{
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap * 2 : 16;
    while (cap < need)
        cap *= 2;
    sc_access *v = realloc(b->v, cap * sizeof *v);
    if (!v)
        return -2;
    b->v = v;
    b->cap = cap;
    return 0;
}

/* "[address,size,"read_write"]," at most: two u64 and the longest mode. */
#define ACCESS_TEXT_MAX (2 + 2 * 21 + 12 + 2)

size_t store_accesses_text_room(const sc_node *n)
{
    return 2 + ACCESS_TEXT_MAX * (size_t)n->naccesses;
}

static char *put_u64(char *p, uint64_t v)
{
    char tmp[20];
    int k = 0;
    do {
        tmp[k++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    while (k)
        *p++ = tmp[--k];
    return p;
}

size_t store_accesses_text(const sc_node *n, char *out)
{
    if (!n->naccesses)
        return 0;
    char *p = out;
    *p++ = '[';
    for (uint32_t i = 0; i < n->naccesses; i++) {
        const sc_access *a = &n->accesses[i];
        const char *mode = sc_access_mode_name((int)a->mode);
        size_t len = mode ? strlen(mode) : 0;
        if (i)
            *p++ = ',';
        *p++ = '[';
        p = put_u64(p, a->address);
        *p++ = ',';
        p = put_u64(p, a->size);
        *p++ = ',';
        *p++ = '"';
        memcpy(p, mode, len);
        p += len;
        *p++ = '"';
        *p++ = ']';
    }
    *p++ = ']';
    return (size_t)(p - out);
}

int store_accesses_from_text(const char *text, size_t len, store_access_buf *b, sc_node *n)
{
    n->accesses = NULL;
    n->naccesses = 0;
    if (!text || (len == 4 && memcmp(text, "null", 4) == 0))
        return 0;
    cursor c = {text, text + len};
    if (!eat(&c, '['))
        return -1;
    size_t count = 0;
    if (!eat(&c, ']')) {
        do {
            if (count >= SC_ACCESS_MAX)
                return -1;
            if (reserve(b, count + 1) != 0)
                return -2;
            if (!read_one(&c, &b->v[count]))
                return -1;
            count++;
        } while (eat(&c, ','));
        if (!eat(&c, ']'))
            return -1;
    }
    skip_ws(&c);
    if (c.p != c.end)
        return -1;
    n->accesses = count ? b->v : NULL;
    n->naccesses = (uint32_t)count;
    return 0;
}
