/* abi_protos.c - the toolkit's prototypes first, then ours: any that
 * differs is a conflicting declaration and fails -fsyntax-only. */
#include <cuda_runtime_api.h>
#define SC_CUDART_PROTOTYPES_ONLY
#include "abi_rt.h"
#if defined(__has_include)
#if __has_include("abi_graph.h")
#include "abi_graph.h"
#endif
#if __has_include("abi_array.h")
#include "abi_array.h"
#endif
#endif
