/*
 * errors.c - error names and the message texts of docs/semantics.md §8.
 */
#include <stdio.h>

#include "sc_errors.h"

/* Every code lies in the core's range (sc_errors.h), which the other
 * layers check theirs against. */
#define SC_E_IN_RANGE(e) _Static_assert((e) >= SC_E__MIN && (e) <= SC_E__MAX, #e " out of range")
SC_E_IN_RANGE(SC_ENOMEM);
SC_E_IN_RANGE(SC_EINVAL);
SC_E_IN_RANGE(SC_ENOTFOUND);
SC_E_IN_RANGE(SC_ELIMIT);
SC_E_IN_RANGE(SC_EALREADY);
SC_E_IN_RANGE(SC_ENOTCAPTURING);
SC_E_IN_RANGE(SC_EINVALIDATED);
SC_E_IN_RANGE(SC_EILLEGAL);
SC_E_IN_RANGE(SC_EPOISONED);
SC_E_IN_RANGE(SC_ECUDA_INVALID_VALUE);
SC_E_IN_RANGE(SC_ECUDA_WRONG_THREAD);
_Static_assert(SC_E__MIN <= SC_E__MAX && SC_E__MAX < SC_OK, "core range must be negative");

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

/* The switches below name every code and have no default, so -Wswitch
 * (an error under -Werror) refuses a new code without a name or text. */
static const char *plain_message(int err)
{
    switch ((enum sc_error)err) {
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
    case SC_EALREADY:
    case SC_ENOTCAPTURING:
    case SC_EINVALIDATED:
        break; /* stream messages: sc_error_message() */
    }
    return "unknown error";
}

/* The CUDA number of each cuda-mode code; its name and text come from the
 * one list of CUDA's errors, sc_cuda_errors.def, which cudart/ reads too. */
typedef struct cuda_error {
    int code;
    int number;
} cuda_error;

static const cuda_error cuda_errors[] = {
    {SC_ECUDA_INVALID_VALUE, 1},    {SC_ECUDA_ILLEGAL_STATE, 401}, {SC_ECUDA_UNSUPPORTED, 900},
    {SC_ECUDA_INVALIDATED, 901},    {SC_ECUDA_MERGE, 902},         {SC_ECUDA_UNMATCHED, 903},
    {SC_ECUDA_UNJOINED, 904},       {SC_ECUDA_ISOLATION, 905},     {SC_ECUDA_IMPLICIT, 906},
    {SC_ECUDA_CAPTURED_EVENT, 907}, {SC_ECUDA_WRONG_THREAD, 908},
};
#define SC_NCUDA (sizeof cuda_errors / sizeof cuda_errors[0])

static const cuda_error *cuda_error_of(int err)
{
    for (size_t i = 0; i < SC_NCUDA; i++)
        if (cuda_errors[i].code == err)
            return &cuda_errors[i];
    return NULL;
}

/* CUDA's name of a number, NULL for one it does not have. */
static const char *number_name(int n)
{
    switch (n) {
#define X(name, number, text)                                                                      \
    case number:                                                                                   \
        return #name;
#include "sc_cuda_errors.def"
#undef X
    }
    return NULL;
}

/* CUDA's cudaGetErrorString() text of a number, NULL for one it does not have. */
static const char *number_text(int n)
{
    switch (n) {
#define X(name, number, text)                                                                      \
    case number:                                                                                   \
        return text;
#include "sc_cuda_errors.def"
#undef X
    }
    return NULL;
}

int sc_cuda_error_number(int err)
{
    const cuda_error *e = cuda_error_of(err);
    return e ? e->number : 0;
}

const char *sc_cuda_error_name(int err)
{
    const cuda_error *e = cuda_error_of(err);
    return e ? number_name(e->number) : NULL;
}

const char *sc_cuda_error_string(int err)
{
    const cuda_error *e = cuda_error_of(err);
    return e ? number_text(e->number) : NULL;
}

int sc_cuda_error_from_number(int number)
{
    if (number == 0)
        return SC_OK;
    for (size_t i = 0; i < SC_NCUDA; i++)
        if (cuda_errors[i].number == number)
            return cuda_errors[i].code;
    return SC_EINVAL;
}

int sc_error_message(int err, uint32_t stream, char *buf, size_t cap)
{
    const char *tail;
    const char *cuda_text = sc_cuda_error_string(err);
    if (cuda_text)
        return snprintf(buf, cap, "%s", cuda_text);
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
    switch ((enum sc_error)err) {
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
    }
    return "EUNKNOWN";
}
