/*
 * sc_args.h - command-line helpers shared by the bench tools.
 */
#ifndef SC_BENCH_ARGS_H
#define SC_BENCH_ARGS_H

#include <stdint.h>

/** Print "PROG: WHAT[: DETAIL]" on stderr and exit with status 1. */
void sc_bench_fail(const char *prog, const char *what, const char *detail)
    __attribute__((noreturn));
/** A decimal unsigned option value; fails naming `flag` for anything else. */
uint64_t sc_bench_arg_u64(const char *prog, const char *flag, const char *v);

#endif
