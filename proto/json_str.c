/*
 * json_str.c - JSON and UTF-8 text outside the parser (sc_json.h): the
 * UTF-8 check and scrub, and a lenient decoder of string literals for
 * text read back from a file the daemon wrote.
 */
#include <string.h>

#include "json_str.h"
#include "sc_json.h"

/* Bytes of the ill-formed part at p, which utf8_seq refused: the lead
 * byte and the continuation bytes that still made a valid prefix. */
static size_t utf8_bad_prefix(const unsigned char *p, size_t avail)
{
    unsigned char lo, hi;
    size_t len = utf8_lead(p[0], &lo, &hi);
    if (!len || avail < 2 || p[1] < lo || p[1] > hi)
        return 1;
    size_t k = 2;
    while (k < len && k < avail && (p[k] & 0xC0) == 0x80)
        k++;
    return k;
}

bool sc_utf8_valid(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    const char *why;
    for (size_t i = 0; i < len;) {
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        size_t n = utf8_seq(p + i, len - i, &why);
        if (!n)
            return false;
        i += n;
    }
    return true;
}

size_t sc_utf8_scrub(const char *s, size_t len, char *out)
{
    const unsigned char *p = (const unsigned char *)s;
    const char *why;
    size_t w = 0;
    for (size_t i = 0; i < len;) {
        size_t n = p[i] < 0x80 ? 1 : utf8_seq(p + i, len - i, &why);
        if (n) {
            memcpy(out + w, p + i, n);
            w += n;
            i += n;
            continue;
        }
        memcpy(out + w, "\xEF\xBF\xBD", 3);
        w += 3;
        i += utf8_bad_prefix(p + i, len - i);
    }
    return w;
}

/* What the one-letter escape \c stands for: c itself for \" \\ \/ and
 * any letter JSON does not define. */
static unsigned char short_unescape(unsigned char c)
{
    switch (c) {
    case 'b':
        return '\b';
    case 'f':
        return '\f';
    case 'n':
        return '\n';
    case 'r':
        return '\r';
    case 't':
        return '\t';
    default:
        return c;
    }
}

ptrdiff_t sc_json_unescape(const char *t, size_t n, char *out)
{
    if (n < 2 || t[0] != '"' || t[n - 1] != '"')
        return -1;
    const unsigned char *s = (const unsigned char *)t;
    size_t end = n - 1; /* the closing quote */
    unsigned char *w = (unsigned char *)out;
    for (size_t i = 1; i < end; i++) {
        if (s[i] != '\\') {
            *w++ = s[i];
            continue;
        }
        if (i + 1 >= end)
            return -1;
        if (s[i + 1] != 'u') {
            *w++ = short_unescape(s[++i]);
            continue;
        }
        long cp = read_u_escape(s + i, end - i);
        if (cp < 0)
            return -1;
        /* A pair makes one code point; any other surrogate is written as
         * it is, for sc_utf8_scrub to replace. */
        long lo = cp >= 0xD800 && cp < 0xDC00 ? read_u_escape(s + i + 6, end - i - 6) : -1;
        if (lo >= 0xDC00 && lo < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            i += 6;
        }
        w += put_utf8(w, (uint32_t)cp);
        i += 5;
    }
    return (ptrdiff_t)(w - (unsigned char *)out);
}
