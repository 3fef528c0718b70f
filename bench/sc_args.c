/*
 * sc_args.c - command-line helpers shared by the bench tools.
 */
#include <stdio.h>
#include <stdlib.h>

#include "sc_args.h"

void sc_bench_fail(const char *prog, const char *what, const char *detail)
{
    fprintf(stderr, "%s: %s%s%s\n", prog, what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

uint64_t sc_bench_arg_u64(const char *prog, const char *flag, const char *v)
{
    char *end;
    if (!v || !*v || *v == '-')
        sc_bench_fail(prog, "needs a number", flag);
    unsigned long long x = strtoull(v, &end, 10);
    if (*end)
        sc_bench_fail(prog, "not a number", flag);
    return x;
}
