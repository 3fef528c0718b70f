/*
 * units.c - ages and sizes as operators write them (sc_units.h), shared by
 * streamcapd's options, store.prune and the streamcap command.
 */
#include <string.h>

#include "sc_units.h"

/* The decimal digits s[0..len) as a number no bigger than max: 0 or -1. */
static int digits(const char *s, size_t len, uint64_t max, uint64_t *out)
{
    if (len == 0 || len > 19)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > max)
        return -1;
    *out = v;
    return 0;
}

int sc_parse_age(const char *s, size_t len, int64_t *ms)
{
    if (!s || len < 2)
        return -1;
    int64_t unit;
    switch (s[len - 1]) {
    case 's':
        unit = 1000;
        break;
    case 'm':
        unit = 60 * 1000;
        break;
    case 'h':
        unit = 3600 * 1000;
        break;
    case 'd':
        unit = 86400 * 1000;
        break;
    case 'w':
        unit = 7LL * 86400 * 1000;
        break;
    default:
        return -1;
    }
    uint64_t n;
    if (digits(s, len - 1, (uint64_t)(SC_AGE_MAX_MS / unit), &n) != 0)
        return -1;
    *ms = (int64_t)n * unit;
    return 0;
}

int sc_parse_bytes(const char *s, size_t len, uint64_t *bytes)
{
    if (!s || len == 0)
        return -1;
    unsigned shift = 0;
    const char *units = "KkMmGgTt";
    const char *u = memchr(units, s[len - 1], 8);
    if (u) {
        shift = 10 * (unsigned)((u - units) / 2 + 1);
        len--;
    }
    uint64_t n;
    if (digits(s, len, (1ull << 50) >> shift, &n) != 0)
        return -1;
    *bytes = n << shift;
    return 0;
}
