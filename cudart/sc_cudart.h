/*
 * sc_cudart.h - the stand-in's whole CUDA 13 ABI: what a C program built
 * against the project's declarations (rather than the toolkit's) includes.
 */
#ifndef SC_CUDART_H
#define SC_CUDART_H

#include "abi_base.h"
#include "abi_rt.h"
/* The graph API's declarations live with the graph half; a tree without
 * them yet still builds the runtime half. */
#if defined(__has_include)
#if __has_include("abi_graph.h")
#include "abi_graph.h"
#endif
#else
#include "abi_graph.h"
#endif

#endif
