/*
 * sc_bench_core.h - what the in-process benches of the core share: the
 * clock, a seeded generator, a failure exit and a median.  Header-only,
 * so that those benches link the core alone.
 */
#ifndef SC_BENCH_CORE_H
#define SC_BENCH_CORE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sc_errors.h"

/** Seconds on the monotonic clock. */
static inline double sc_bench_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/** xorshift64*: the next value of the sequence in *s (never 0). */
static inline uint64_t sc_bench_rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

/** Exit 1 with "<prog>: <what> failed: <code>" unless rc is 0. */
static inline void sc_bench_check(const char *prog, int rc, const char *what)
{
    if (rc != 0) {
        fprintf(stderr, "%s: %s failed: %s\n", prog, what, sc_error_name(rc));
        exit(1);
    }
}

static inline int sc_bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/** The median of v[0 .. n), n >= 1; v is sorted. */
static inline double sc_bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, sc_bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
