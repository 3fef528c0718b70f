/*
 * unsupported.c - a weak definition of every export of CUDA 13's runtime
 * (cudart/exports.txt, through the generated sc_exports.inc).  The calls the
 * stand-in implements are strong definitions elsewhere in the library and
 * replace these at link time; the rest answer cudaErrorNotSupported, say so
 * once on stderr and are listed in the exit report, so a program never
 * fails to load or crashes on a missing symbol.
 *
 * The definitions take no parameters: whatever a caller passes is ignored.
 * Each returns what its export returns (exports.txt's second word): a
 * cudaError_t, nothing, a null pointer, a zero char or unsigned, or a zero
 * channel descriptor, so that a caller reads a defined value where it
 * expects one.  This file includes only the ABI's types, none of its
 * prototypes, so these do not clash with the real ones.
 */
#include <stddef.h>

#include "abi_base.h"

/* rt_state.c: logs once, marks it for the report, sets the last error. */
int sc_rt_unsupported(size_t index, const char *name);
const char *sc_rt_export_name(size_t index);

static const char *const g_names[] = {
#define X(index, name, returns) #name,
#include "sc_exports.inc"
#undef X
};

const char *sc_rt_export_name(size_t index)
{
    return index < sizeof g_names / sizeof *g_names ? g_names[index] : NULL;
}

/* driver_types.h's struct cudaChannelFormatDesc (the enum is an int), the
 * value cudaCreateChannelDesc returns; the stand-in declares no more of
 * the texture API. */
struct sc_channel_desc {
    int x, y, z, w;
    int f;
};

#define SC_WEAK __attribute__((weak, visibility("default")))

/* One fallback for each kind of result. */
#define SC_STUB_error(index, name)                                                                 \
    SC_WEAK cudaError_t name(void);                                                                \
    SC_WEAK cudaError_t name(void)                                                                 \
    {                                                                                              \
        return (cudaError_t)sc_rt_unsupported(index, #name);                                       \
    }
#define SC_STUB_void(index, name)                                                                  \
    SC_WEAK void name(void);                                                                       \
    SC_WEAK void name(void)                                                                        \
    {                                                                                              \
        (void)sc_rt_unsupported(index, #name);                                                     \
    }
#define SC_STUB_VALUE(index, name, type, zero)                                                     \
    SC_WEAK type name(void);                                                                       \
    SC_WEAK type name(void)                                                                        \
    {                                                                                              \
        (void)sc_rt_unsupported(index, #name);                                                     \
        return zero;                                                                               \
    }
#define SC_STUB_pointer(index, name)  SC_STUB_VALUE(index, name, void *, NULL)
#define SC_STUB_char(index, name)     SC_STUB_VALUE(index, name, char, 0)
#define SC_STUB_unsigned(index, name) SC_STUB_VALUE(index, name, unsigned, 0)
#define SC_STUB_cudaChannelFormatDesc(index, name)                                                 \
    SC_STUB_VALUE(index, name, struct sc_channel_desc, (struct sc_channel_desc){0})

#define X(index, name, returns) SC_STUB_##returns(index, name)
#include "sc_exports.inc"
#undef X
