/*
 * cuda_ops.h - corpus ops of the cuda mode (docs/cuda-semantics.md §9)
 * run on a core sc_cuda, each result in the corpus's form.  Shared by the
 * core conformance test and the daemon tests, which check the daemon
 * against the core on the same scenarios.  The functions fail the current
 * cmocka test on an internal error only; a malformed op is recorded in the
 * run (jsonl.h).
 */
#ifndef SC_TEST_CUDA_OPS_H
#define SC_TEST_CUDA_OPS_H

#include <stdbool.h>

#include "cJSON.h"
#include "jsonl.h"
#include "sc_cuda.h"
/** Run one corpus op on `cu`: its result as the expected file writes it. */
cJSON *run_op(run *r, sc_cuda *cu, const cJSON *op);

#endif
