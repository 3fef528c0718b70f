/*
 * unsupported.c - a weak definition of every export of CUDA 13's runtime
 * (cudart/exports.txt, through the generated sc_exports.inc).  The calls the
 * stand-in implements are strong definitions elsewhere in the library and
 * replace these at link time; the rest answer cudaErrorNotSupported, say so
 * once on stderr and are listed in the exit report, so a program never
 * fails to load or crashes on a missing symbol.
 *
 * The definitions take no parameters: whatever a caller passes is ignored,
 * and the result travels in the return register like a cudaError_t.  This
 * file includes none of the ABI headers, so these do not clash with the
 * real prototypes.
 */
#include <stddef.h>

/* rt_state.c: logs once, marks it for the report, sets the last error. */
int sc_rt_unsupported(size_t index, const char *name);
const char *sc_rt_export_name(size_t index);

static const char *const g_names[] = {
#define X(index, name) #name,
#include "sc_exports.inc"
#undef X
};

const char *sc_rt_export_name(size_t index)
{
    return index < sizeof g_names / sizeof *g_names ? g_names[index] : NULL;
}

#define X(index, name)                                                                             \
    __attribute__((weak, visibility("default"))) int name(void);                                   \
    __attribute__((weak, visibility("default"))) int name(void)                                    \
    {                                                                                              \
        return sc_rt_unsupported(index, #name);                                                    \
    }
#include "sc_exports.inc"
#undef X
