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

/* CUDA's numbers, names and cudaGetErrorString() texts (driver_types.h). */
#define SC_CUDA_ERRORS(X)                                                                          \
    X(SC_ECUDA_INVALID_VALUE, 1, "cudaErrorInvalidValue", "invalid argument")                      \
    X(SC_ECUDA_ILLEGAL_STATE, 401, "cudaErrorIllegalState",                                        \
      "the operation cannot be performed in the present state")                                    \
    X(SC_ECUDA_UNSUPPORTED, 900, "cudaErrorStreamCaptureUnsupported",                              \
      "operation not permitted when stream is capturing")                                          \
    X(SC_ECUDA_INVALIDATED, 901, "cudaErrorStreamCaptureInvalidated",                              \
      "operation failed due to a previous error during capture")                                   \
    X(SC_ECUDA_MERGE, 902, "cudaErrorStreamCaptureMerge",                                          \
      "operation would result in a merge of separate capture sequences")                           \
    X(SC_ECUDA_UNMATCHED, 903, "cudaErrorStreamCaptureUnmatched",                                  \
      "capture was not ended in the same stream as it began")                                      \
    X(SC_ECUDA_UNJOINED, 904, "cudaErrorStreamCaptureUnjoined",                                    \
      "capturing stream has unjoined work")                                                        \
    X(SC_ECUDA_ISOLATION, 905, "cudaErrorStreamCaptureIsolation",                                  \
      "dependency created on uncaptured work in another stream")                                   \
    X(SC_ECUDA_IMPLICIT, 906, "cudaErrorStreamCaptureImplicit",                                    \
      "operation would make the legacy stream depend on a capturing blocking stream")              \
    X(SC_ECUDA_CAPTURED_EVENT, 907, "cudaErrorCapturedEvent",                                      \
      "operation not permitted on an event last recorded in a capturing stream")                   \
    X(SC_ECUDA_WRONG_THREAD, 908, "cudaErrorStreamCaptureWrongThread",                             \
      "attempt to terminate a thread-local capture sequence from another thread")

typedef struct cuda_error {
    int code;
    int number;
    const char *name;
    const char *text;
} cuda_error;

#define SC_CUDA_ROW(code, number, name, text) {code, number, name, text},
static const cuda_error cuda_errors[] = {SC_CUDA_ERRORS(SC_CUDA_ROW)};
#undef SC_CUDA_ROW
#define SC_NCUDA (sizeof cuda_errors / sizeof cuda_errors[0])

static const cuda_error *cuda_error_of(int err)
{
    for (size_t i = 0; i < SC_NCUDA; i++)
        if (cuda_errors[i].code == err)
            return &cuda_errors[i];
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
    return e ? e->name : NULL;
}

const char *sc_cuda_error_string(int err)
{
    const cuda_error *e = cuda_error_of(err);
    return e ? e->text : NULL;
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
    const cuda_error *ce = cuda_error_of(err);
    if (ce)
        return snprintf(buf, cap, "%s", ce->text);
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
