/*
 * json_str.h - the pieces of JSON strings that the strict parser (json.c),
 * the other string functions (json_str.c) and the writer (buf.c) share:
 * hex digits, \u escapes, UTF-8 sequences checked and written, the test
 * of 8 bytes at once for any that is not plain text.  Inline, for the
 * parser's and the writer's inner loops.  Private to proto/.
 */
#ifndef SC_JSON_STR_H
#define SC_JSON_STR_H

#include <stddef.h>
#include <stdint.h>

/* Nonzero when any of the 8 bytes of x (read from a string as memcpy
 * lays them out) needs a closer look inside a string: below 0x20,
 * non-ASCII, '"' or '\\'.  On a little-endian machine the lowest flagged
 * byte is exact (carries only run upwards). */
static inline uint64_t sc_json_special8(uint64_t x)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    uint64_t q = x ^ (ones * '"');
    uint64_t bs = x ^ (ones * '\\');
    uint64_t low = (x - ones * 0x20) & ~x;
    uint64_t zq = (q - ones) & ~q;
    uint64_t zb = (bs - ones) & ~bs;
    return (low | zq | zb | x) & highs;
}

/* The value of a hex digit, or -1. */
static inline int hex_value(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* The code unit of "\uXXXX" at p (p[0] == '\\'), or -1. */
static inline long read_u_escape(const unsigned char *p, size_t avail)
{
    if (avail < 6 || p[0] != '\\' || p[1] != 'u')
        return -1;
    long v = 0;
    for (int k = 2; k < 6; k++) {
        int h = hex_value(p[k]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* The length of the sequence lead byte c (>= 0x80) starts, with the range
 * [*lo, *hi] its second byte must fall in (which rules out overlong forms,
 * surrogates and code points above U+10FFFF); 0 for a byte no sequence
 * starts with. */
static inline size_t utf8_lead(unsigned char c, unsigned char *lo, unsigned char *hi)
{
    *lo = 0x80;
    *hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
        return 2;
    if (c >= 0xE0 && c <= 0xEF) {
        *lo = c == 0xE0 ? 0xA0 : 0x80;
        *hi = c == 0xED ? 0x9F : 0xBF;
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        *lo = c == 0xF0 ? 0x90 : 0x80;
        *hi = c == 0xF4 ? 0x8F : 0xBF;
        return 4;
    }
    return 0;
}

/* Length of the valid UTF-8 sequence at p (lead byte >= 0x80), or 0 with
 * *why naming the defect. */
static inline size_t utf8_seq(const unsigned char *p, size_t avail, const char **why)
{
    unsigned char c = p[0], lo, hi;
    size_t len = utf8_lead(c, &lo, &hi);
    if (!len) {
        *why = c <= 0xBF   ? "invalid UTF-8 (unexpected continuation byte)"
               : c <= 0xC1 ? "invalid UTF-8 (overlong encoding)"
                           : "invalid UTF-8 (code point above U+10FFFF)";
        return 0;
    }
    for (size_t k = 1; k < len; k++) {
        if (k >= avail || (p[k] & 0xC0) != 0x80) {
            *why = "invalid UTF-8 (truncated sequence)";
            return 0;
        }
    }
    if (p[1] < lo) {
        *why = "invalid UTF-8 (overlong encoding)";
        return 0;
    }
    if (p[1] > hi) {
        *why = c == 0xED ? "invalid UTF-8 (encoded surrogate)"
                         : "invalid UTF-8 (code point above U+10FFFF)";
        return 0;
    }
    return len;
}

/* Code point cp (any value up to U+10FFFF, surrogates too) as UTF-8 at
 * p: the bytes written, 1 to 4. */
static inline size_t put_utf8(unsigned char *p, uint32_t cp)
{
    if (cp < 0x80) {
        p[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        p[0] = (unsigned char)(0xC0 | cp >> 6);
        p[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        p[0] = (unsigned char)(0xE0 | cp >> 12);
        p[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        p[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    p[0] = (unsigned char)(0xF0 | cp >> 18);
    p[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
    p[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
    p[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

#endif
