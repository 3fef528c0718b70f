#include "sc_methods.h"

#include <string.h>

const sc_method_desc sc_methods[SC_M__COUNT] = {
#define SC_X_DESC(id, handler, name, params, result, summary)                                      \
    [SC_M_##id] = {SC_M_##id, name, params, result, summary},
    SC_METHODS(SC_X_DESC)
#undef SC_X_DESC
};

/* Name lengths, so most candidates are ruled out without touching bytes. */
static const unsigned char name_len[SC_M__COUNT] = {
#define SC_X_LEN(id, handler, name, params, result, summary) [SC_M_##id] = sizeof(name) - 1,
    SC_METHODS(SC_X_LEN)
#undef SC_X_LEN
};

bool sc_method_on_session(sc_method_id m)
{
    if ((unsigned)m >= SC_M__COUNT)
        return false;
    const char *n = sc_methods[m].name;
    return strncmp(n, "session.", 8) == 0 || strncmp(n, "capture.", 8) == 0;
}

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
