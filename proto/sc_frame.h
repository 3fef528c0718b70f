/*
 * sc_frame.h - NDJSON framing: one message per line ending in '\n'.
 *
 * The framer owns one input buffer.  The reader asks for free space
 * (sc_framer_space), reads into it directly, commits the byte count, then
 * pulls whole lines until none is left.  A line longer than `max_line`
 * bytes (newline excluded) is reported as soon as it is known to be too
 * long, so memory stays bounded by the limit while a huge line arrives.
 * A trailing '\r' before '\n' is kept (it is JSON whitespace).
 */
#ifndef SC_FRAME_H
#define SC_FRAME_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sc_framer {
    char *buf;
    size_t start; /* first unconsumed byte */
    size_t len;   /* bytes held: buf[start .. len) unconsumed */
    size_t cap;
    size_t scan; /* bytes of the current partial line already scanned for '\n' */
    size_t max_line;
} sc_framer;

/** 0 or -1 (out of memory). */
int sc_framer_init(sc_framer *f, size_t max_line);
void sc_framer_free(sc_framer *f);

/**
 * Free space to read into: at least `hint` bytes.  Consumed bytes are
 * compacted away only when the room at the end is short; the buffer grows
 * geometrically but stays within max_line + hint as long as the caller
 * drains lines with sc_framer_next between reads (a caller holding more
 * unconsumed bytes than that gets exactly what it asked for).  An idle
 * buffer (nothing pending) that grew past 256 KiB is shrunk back first.
 * 0 or -1 (out of memory; the framer is unchanged).
 */
int sc_framer_space(sc_framer *f, size_t hint, char **ptr, size_t *avail);
/** `n` bytes were written at the pointer sc_framer_space returned. */
void sc_framer_commit(sc_framer *f, size_t n);
/** Copying form of space + commit.  0, -1 (out of memory). */
int sc_framer_push(sc_framer *f, const char *data, size_t n);

enum sc_frame_status {
    SC_FRAME_NEED_MORE = 0, /* no complete line buffered */
    SC_FRAME_LINE = 1,      /* line and len set; valid until the next framer call */
    SC_FRAME_TOO_LONG = -1, /* the current line exceeds max_line: close the peer */
};
/**
 * Next complete line without its '\n'.  Empty lines are returned too.
 * Each byte is scanned for '\n' once however the line arrives, and never
 * more than max_line + 1 bytes into a line.  SC_FRAME_TOO_LONG is sticky:
 * the framer reports it again on every call.
 */
int sc_framer_next(sc_framer *f, const char **line, size_t *len);
/** Bytes buffered but not yet returned as lines. */
size_t sc_framer_pending(const sc_framer *f);
/**
 * Free the buffer when nothing is pending, so an idle connection holds no
 * input memory; the next sc_framer_space allocates again.
 */
void sc_framer_release_if_idle(sc_framer *f);
/**
 * Hand the buffer to the caller when nothing is pending (NULL otherwise),
 * so it can be pooled and given to another framer with sc_framer_adopt.
 */
char *sc_framer_detach_if_idle(sc_framer *f, size_t *cap);
/** Give a framer that holds no buffer this one (ownership passes). */
void sc_framer_adopt(sc_framer *f, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
