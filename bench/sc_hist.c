/*
 * sc_hist.c - log-bucketed histogram (see sc_hist.h).
 */
#include "sc_hist.h"

#include <math.h>
#include <string.h>

void sc_hist_init(sc_hist *h)
{
    memset(h, 0, sizeof(*h));
    h->min = UINT64_MAX;
}

/* Below 64: the value itself.  Above: keep the top six bits (32..63) of the
 * value and count the bits shifted out, 32 buckets per shift. */
static unsigned bucket_of(uint64_t v)
{
    if (v < 64)
        return (unsigned)v;
    unsigned shift = (unsigned)(63 - __builtin_clzll(v)) - 5;
    return shift * 32 + (unsigned)(v >> shift);
}

/* Largest value that falls into bucket i. */
static uint64_t bucket_high(unsigned i)
{
    if (i < 64)
        return i;
    unsigned shift = i / 32 - 1;
    uint64_t m = i % 32 + 32;
    return ((m + 1) << shift) - 1;
}

void sc_hist_record(sc_hist *h, uint64_t v)
{
    h->bucket[bucket_of(v)]++;
    h->count++;
    h->sum += v;
    if (v > h->max)
        h->max = v;
    if (v < h->min)
        h->min = v;
}

void sc_hist_merge(sc_hist *into, const sc_hist *from)
{
    for (unsigned i = 0; i < SC_HIST_BUCKETS; i++)
        into->bucket[i] += from->bucket[i];
    into->count += from->count;
    into->sum += from->sum;
    if (from->max > into->max)
        into->max = from->max;
    if (from->min < into->min)
        into->min = from->min;
}

uint64_t sc_hist_quantile(const sc_hist *h, double q)
{
    if (h->count == 0)
        return 0;
    uint64_t rank = (uint64_t)ceil(q * (double)h->count);
    if (rank < 1)
        rank = 1;
    uint64_t seen = 0;
    for (unsigned i = 0; i < SC_HIST_BUCKETS; i++) {
        seen += h->bucket[i];
        if (seen >= rank) {
            uint64_t v = bucket_high(i);
            return v < h->max ? v : h->max;
        }
    }
    return h->max;
}

double sc_hist_mean(const sc_hist *h)
{
    return h->count ? (double)h->sum / (double)h->count : 0.0;
}
