/*
 * sc_hist.h - a log-bucketed latency histogram (HDR style).
 *
 * Values (nanoseconds) below 64 have a bucket each; above, every power of
 * two is split into 32 linear buckets, so a reported percentile is within
 * 1/32 (about 3%) of the true value.  Fixed size, no allocation: one per
 * thread, merged at the end.
 */
#ifndef SC_HIST_H
#define SC_HIST_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SC_HIST_BUCKETS 1920

typedef struct sc_hist {
    uint64_t count;
    uint64_t sum;
    uint64_t max;
    uint64_t min;
    uint64_t bucket[SC_HIST_BUCKETS];
} sc_hist;

void sc_hist_init(sc_hist *h);
void sc_hist_record(sc_hist *h, uint64_t value);
/** Add every sample of `from` to `into`. */
void sc_hist_merge(sc_hist *into, const sc_hist *from);
/**
 * The value at quantile q (0 < q <= 1): the upper bound of the bucket that
 * holds the ceil(q * count)-th smallest sample, capped at the true maximum.
 * 0 for an empty histogram.
 */
uint64_t sc_hist_quantile(const sc_hist *h, double q);
/** Mean of the exact values recorded; 0 when empty. */
double sc_hist_mean(const sc_hist *h);

#ifdef __cplusplus
}
#endif
#endif
