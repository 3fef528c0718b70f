#include "sc_methods.h"

#include <string.h>

const sc_method_desc sc_methods[SC_M__COUNT] = {
#define SC_X_DESC(id, handler, name, flags, params, result, summary)                               \
    [SC_M_##id] = {SC_M_##id, name, #handler, flags, params, result, summary},
    SC_METHODS(SC_X_DESC)
#undef SC_X_DESC
};

/* Name lengths, so most candidates are ruled out without touching bytes. */
static const unsigned char name_len[SC_M__COUNT] = {
#define SC_X_LEN(id, handler, name, flags, params, result, summary) [SC_M_##id] = sizeof(name) - 1,
    SC_METHODS(SC_X_LEN)
#undef SC_X_LEN
};

/*
 * The flags must make sense together: a held write is a write that takes
 * its session away, and a request that may run behind held writes reads
 * nothing they change in the store.
 */
#define SC_X_CHECK(id, handler, name, flags, params, result, summary)                              \
    _Static_assert(!((flags)&SC_MF_HOLDABLE) ||                                                    \
                       (((flags)&SC_MF_WRITES_STORE) && ((flags)&SC_MF_SESSION)),                  \
                   name ": a holdable method writes the store and acts on a session");             \
    _Static_assert(!((flags)&SC_MF_SESSION) || !((flags)&SC_MF_READS_STORE), name                  \
                   ": a session method runs behind held writes, so it cannot read the store");
SC_METHODS(SC_X_CHECK)
#undef SC_X_CHECK

const sc_method_desc *sc_method_lookup(const char *name, size_t len)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < SC_M__COUNT; i++) {
        if (name_len[i] == len && memcmp(sc_methods[i].name, name, len) == 0)
            return &sc_methods[i];
    }
    return NULL;
}
