/*
 * sc_buf.h - a growable byte buffer and JSON text writers.
 *
 * Replies are written straight into a connection's output buffer with
 * these functions instead of building trees.  Allocation failure is
 * sticky: the buffer sets `oom`, further writes are ignored, and the caller
 * checks once at the end (sc_buf_failed).
 */
#ifndef SC_BUF_H
#define SC_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sc_buf {
    char *data;
    size_t len;
    size_t cap;
    bool oom;
} sc_buf;

/* clang-format off */
#define SC_BUF_INIT {NULL, 0, 0, false}
/* clang-format on */

void sc_buf_init(sc_buf *b);
/** Free the storage and return to the initial state. */
void sc_buf_free(sc_buf *b);
/** Forget the contents, keep the storage, clear `oom`. */
void sc_buf_reset(sc_buf *b);
/** Make room for `extra` more bytes.  0 or -1 (and `oom` set). */
int sc_buf_reserve(sc_buf *b, size_t extra);
/**
 * Hand the storage to the caller (who frees it) and reset the buffer.  The
 * result is NUL-terminated (the NUL is not counted in *len).  NULL (and
 * *len = 0) when the buffer had failed; the storage is freed then.
 */
char *sc_buf_detach(sc_buf *b, size_t *len);
bool sc_buf_failed(const sc_buf *b);

/*
 * Appends are inline: nearly every one fits in the room already reserved,
 * and a literal's length is then known at compile time.
 */
static inline void sc_buf_append(sc_buf *b, const void *data, size_t len)
{
    if (len == 0 || b->oom || (b->cap - b->len < len && sc_buf_reserve(b, len) != 0))
        return;
    memcpy(b->data + b->len, data, len);
    b->len += len;
}

static inline void sc_buf_puts(sc_buf *b, const char *s)
{
    sc_buf_append(b, s, strlen(s));
}

static inline void sc_buf_putc(sc_buf *b, char c)
{
    if (b->oom || (b->cap == b->len && sc_buf_reserve(b, 1) != 0))
        return;
    b->data[b->len++] = c;
}
void sc_buf_printf(sc_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * A JSON string literal: quotes plus escapes for '"', '\\' and every byte
 * below 0x20 (\b \t \n \f \r, the others as \u00XX).  Other bytes,
 * UTF-8 included, are copied as they are: the caller passes valid UTF-8.
 */
void sc_json_string(sc_buf *b, const char *s, size_t len);
void sc_json_cstr(sc_buf *b, const char *s);
void sc_json_u64(sc_buf *b, uint64_t v);
void sc_json_i64(sc_buf *b, int64_t v);
void sc_json_bool(sc_buf *b, bool v);
/** A JSON array of n unsigned numbers: [1,2,3]. */
void sc_json_u32_array(sc_buf *b, const uint32_t *v, size_t n);
/** "2026-11-29T19:44:21.123Z" for a Unix time in milliseconds, quoted
 *  (UTC; times before 1970 too); `null` when the time is out of range. */
void sc_json_time_ms(sc_buf *b, int64_t unix_ms);
/** A kernel's members "args" (the lowercase hex of len bytes) and
 *  "param_sizes" (the n sizes), proto/PROTOCOL.md "Kernel arguments"; the
 *  caller checked that the sizes add up to len. */
void sc_json_member_kargs(sc_buf *b, bool *first, const uint8_t *args, size_t len,
                          const uint32_t *sizes, size_t n);

/*
 * Object members.  An object is written as sc_json_obj_begin, any number of
 * members, sc_json_obj_end; `first` (the caller's) tells whether a comma is
 * due.  `key` is a name the protocol defines: it is written as it is, so it
 * must need no escaping.  The typed writers write the key, then the value.
 */
static inline void sc_json_obj_begin(sc_buf *b, bool *first)
{
    sc_buf_putc(b, '{');
    *first = true;
}

static inline void sc_json_obj_end(sc_buf *b)
{
    sc_buf_putc(b, '}');
}

/** `,"key":` (no comma for the first member); the caller writes the value. */
static inline void sc_json_key(sc_buf *b, bool *first, const char *key)
{
    /* One reservation and one copy: a request or reply is mostly keys. */
    size_t n = strlen(key);
    bool comma = !*first;
    *first = false;
    if (b->oom || (b->cap - b->len < n + 4 && sc_buf_reserve(b, n + 4) != 0))
        return;
    char *p = b->data + b->len;
    if (comma)
        *p++ = ',';
    *p++ = '"';
    memcpy(p, key, n);
    p += n;
    *p++ = '"';
    *p++ = ':';
    b->len = (size_t)(p - b->data);
}

static inline void sc_json_member_u64(sc_buf *b, bool *first, const char *key, uint64_t v)
{
    sc_json_key(b, first, key);
    sc_json_u64(b, v);
}

static inline void sc_json_member_i64(sc_buf *b, bool *first, const char *key, int64_t v)
{
    sc_json_key(b, first, key);
    sc_json_i64(b, v);
}

static inline void sc_json_member_bool(sc_buf *b, bool *first, const char *key, bool v)
{
    sc_json_key(b, first, key);
    sc_json_bool(b, v);
}

/** A string member (`s` valid UTF-8, escaped as sc_json_string does). */
static inline void sc_json_member_str(sc_buf *b, bool *first, const char *key, const char *s,
                                      size_t len)
{
    sc_json_key(b, first, key);
    sc_json_string(b, s, len);
}

static inline void sc_json_member_cstr(sc_buf *b, bool *first, const char *key, const char *s)
{
    sc_json_key(b, first, key);
    sc_json_cstr(b, s);
}

/** A time member, written as sc_json_time_ms does. */
static inline void sc_json_member_time_ms(sc_buf *b, bool *first, const char *key, int64_t unix_ms)
{
    sc_json_key(b, first, key);
    sc_json_time_ms(b, unix_ms);
}

/** A one-member object, `{"key":v}`: the commonest small result. */
static inline void sc_json_obj_u64(sc_buf *b, const char *key, uint64_t v)
{
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_member_u64(b, &first, key, v);
    sc_json_obj_end(b);
}

#ifdef __cplusplus
}
#endif
#endif
