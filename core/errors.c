/*
 * errors.c - error names and the spec's message texts (spec 8).
 */
#include <stdio.h>

#include "sc_errors.h"

int sc_stream_format(uint32_t stream, char *buf, size_t cap)
{
    if (stream == 0)
        return snprintf(buf, cap, "S:default");
    return snprintf(buf, cap, "S%lu", (unsigned long)stream);
}

int sc_event_format(uint32_t event, char *buf, size_t cap)
{
    return snprintf(buf, cap, "E%lu", (unsigned long)event);
}

static const char *plain_message(int err)
{
    switch (err) {
    case SC_OK:
        return "success";
    case SC_ENOMEM:
        return "out of memory";
    case SC_EINVAL:
        return "invalid argument";
    case SC_ENOTFOUND:
        return "node not found";
    case SC_ELIMIT:
        return "limit reached";
    case SC_EILLEGAL:
        return "capture was invalidated by an illegal operation";
    case SC_EPOISONED:
        return "capture was invalidated on another stream in the session";
    default:
        return "unknown error";
    }
}

int sc_error_message(int err, uint32_t stream, char *buf, size_t cap)
{
    const char *tail;
    switch (err) {
    case SC_EALREADY:
        tail = "is already capturing";
        break;
    case SC_ENOTCAPTURING:
        tail = "is not capturing";
        break;
    case SC_EINVALIDATED:
        tail = "capture is invalidated";
        break;
    default:
        return snprintf(buf, cap, "%s", plain_message(err));
    }
    char s[16];
    sc_stream_format(stream, s, sizeof s);
    return snprintf(buf, cap, "stream %s %s", s, tail);
}

const char *sc_error_name(int err)
{
    switch (err) {
    case SC_OK:
        return "OK";
    case SC_ENOMEM:
        return "ENOMEM";
    case SC_EINVAL:
        return "EINVAL";
    case SC_ENOTFOUND:
        return "ENOTFOUND";
    case SC_ELIMIT:
        return "ELIMIT";
    case SC_EALREADY:
        return "EALREADY";
    case SC_ENOTCAPTURING:
        return "ENOTCAPTURING";
    case SC_EINVALIDATED:
        return "EINVALIDATED";
    case SC_EILLEGAL:
        return "EILLEGAL";
    case SC_EPOISONED:
        return "EPOISONED";
    default:
        return "EUNKNOWN";
    }
}
