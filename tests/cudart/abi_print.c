/*
 * abi_print.c - prints every item of the ABI lists: built once against
 * the toolkit's headers (SC_ABI_TOOLKIT) and once against the project's,
 * the two outputs must be the same.
 */
#include <stddef.h>
#include <stdio.h>

#ifdef SC_ABI_TOOLKIT
#include <cuda_runtime_api.h>
#else
#include "sc_cudart.h"
#endif

#define SC_ABI_ENUM(v)      printf("enum %s = %lld\n", #v, (long long)(v));
#define SC_ABI_SIZE(t)      printf("size %s = %zu\n", #t, sizeof(t));
#define SC_ABI_OFFSET(t, m) printf("offset %s.%s = %zu\n", #t, #m, offsetof(t, m));

int main(void)
{
#include "abi_items_rt.h"
#include "abi_items_graph.h"
    return 0;
}
