/*
 * sc_errors.h - error codes shared by the core library.
 *
 * Every core function returns 0 or one of these negative codes.  The capture
 * errors map one to one onto the spec's messages (spec 8); see
 * sc_error_message() for the exact text.
 */
#ifndef SC_ERRORS_H
#define SC_ERRORS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum sc_error {
    SC_OK = 0,
    SC_ENOMEM = -1,    /* allocation failed; nothing changed */
    SC_EINVAL = -2,    /* bad argument (NULL, enum out of range, wrong state) */
    SC_ENOTFOUND = -3, /* node id not in the graph */
    SC_ELIMIT = -4,    /* id space or name arena exhausted */

    /* The spec's capture errors ("internal graph error: <msg>"). */
    SC_EALREADY = -10,      /* stream <S> is already capturing */
    SC_ENOTCAPTURING = -11, /* stream <S> is not capturing */
    SC_EINVALIDATED = -12,  /* stream <S> capture is invalidated */
    SC_EILLEGAL = -13,      /* capture was invalidated by an illegal operation */
    SC_EPOISONED = -14,     /* capture was invalidated on another stream in the session */
};

/** The prefix the reference implementation puts before every capture error. */
#define SC_ERROR_PREFIX "internal graph error: "

/**
 * Write the message for `err` raised on `stream` into buf (snprintf rules:
 * always NUL-terminated when cap > 0, returns the length it wanted).  The
 * text carries no SC_ERROR_PREFIX, e.g. "stream S3 is not capturing" or
 * "stream S:default is already capturing".  Non-capture codes get a short
 * description ("out of memory", ...).
 */
int sc_error_message(int err, uint32_t stream, char *buf, size_t cap);

/** Static short name of a code: "ENOMEM", "EALREADY", ...; "EUNKNOWN" otherwise. */
const char *sc_error_name(int err);

/** Print a stream as the spec does: "S:default" for 0, "S<n>" otherwise. */
int sc_stream_format(uint32_t stream, char *buf, size_t cap);
/** Print an event as the spec does: "E<n>" (snprintf rules as above). */
int sc_event_format(uint32_t event, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
