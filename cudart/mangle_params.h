/*
 * mangle_params.h - what an Itanium-mangled function name says of its
 * parameters: for each top-level one, whether it is a pointer or a
 * reference to a const type (`const float *`, `float *const *`,
 * `const double &`, `T const *` with T a template argument), which is how
 * the CUDA stand-in tells a kernel's read-only buffers from the ones it
 * may write.
 */
#ifndef SC_CUDART_MANGLE_PARAMS_H
#define SC_CUDART_MANGLE_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

/**
 * Read `name`, a mangled function name ("_Z4reluPKfPfi"); on 0, *n is its
 * number of parameters as a call sees them (a template function's return
 * type skipped, a pack expansion `Args...` counted once per element, "v"
 * alone none) and ro[i], for i < *n, whether parameter i is a pointer or
 * a reference whose pointee is const (volatile or not).  Template
 * parameters (T_, T0_) and substitutions (S_, S0_) are resolved to what
 * they stand for, as a demangler would.
 *
 * -EINVAL for a name that is not mangled (an extern "C" kernel), is
 * malformed, or uses what this reader does not follow (expressions,
 * decltype); -E2BIG past `max` parameters or the reader's own limits.
 * ro is then undefined.  Never reads past the name's NUL.
 */
int sc_mangle_const_params(const char *name, bool *ro, size_t max, size_t *n);

#endif
