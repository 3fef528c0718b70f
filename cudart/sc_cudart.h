/*
 * sc_cudart.h - the stand-in's whole CUDA 13 ABI: what a C program built
 * against the project's declarations (rather than the toolkit's) includes.
 */
#ifndef SC_CUDART_H
#define SC_CUDART_H

#include "abi_base.h"
#include "abi_rt.h"
#include "abi_graph.h"
#include "abi_array.h"

#endif
