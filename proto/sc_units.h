/*
 * sc_units.h - the ages and sizes operators write on the command line and
 * in store.prune's params: "30d", "12h", "5s"; "10G", "500M".
 */
#ifndef SC_UNITS_H
#define SC_UNITS_H

#include <stddef.h>
#include <stdint.h>

/** The longest age accepted: a hundred years, so that now minus it is a date. */
#define SC_AGE_MAX_MS (36500LL * 86400 * 1000)

/**
 * An age: a decimal number and one unit, s (seconds), m (minutes), h
 * (hours), d (days) or w (weeks), at most SC_AGE_MAX_MS; `len` bytes of
 * `s` (no NUL needed).  0 with *ms set, or -1.
 */
int sc_parse_age(const char *s, size_t len, int64_t *ms);

/**
 * A size in bytes: a decimal number with an optional K, M, G or T
 * (binary, either case) at most 2^50 bytes.  0 with *bytes set, or -1.
 */
int sc_parse_bytes(const char *s, size_t len, uint64_t *bytes);

#endif
