/*
 * sc_json.h - strict JSON parsed into a flat token array.
 *
 * An sc_jdoc is reused line after line: parsing copies the line into the
 * document's own text buffer and writes one token per value into its token
 * array, so once both have grown to the size of the largest line seen, a
 * parse allocates nothing.  Strings are unescaped in place in that copy and
 * NUL-terminated there; a container token knows the index just past its
 * last descendant, so a sibling is one step away however big the subtree.
 *
 * Tokens come in document order.  A container is followed by its children;
 * an object's children alternate member name (a string token) and value.
 * Token 0 is the root.
 */
#ifndef SC_JSON_H
#define SC_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sc_buf.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sc_rpc_error sc_rpc_error;

typedef enum sc_jtype {
    SC_JNONE = 0, /* no value: an absent member, an absent id */
    SC_JNULL,
    SC_JFALSE,
    SC_JTRUE,
    SC_JNUMBER,
    SC_JSTRING,
    SC_JARRAY,
    SC_JOBJECT,
} sc_jtype;

/** Number flag: the literal's exact value is an integer within +-2^53,
 *  held in u.i; otherwise u.d holds it (a fraction, even one that rounds
 *  to an integral double, or an integer beyond 2^53). */
#define SC_JTOK_INT 0x01
/** Container flag: an object at or below this container repeats a member
 *  name (see sc_jdoc_find_dup). */
#define SC_JTOK_DUP 0x02

/** sc_jtok.u.c.dup when the duplicate check ran out of memory. */
#define SC_JDUP_OOM UINT32_MAX

typedef struct sc_jtok {
    uint8_t type;  /* sc_jtype */
    uint8_t flags; /* SC_JTOK_* */
    uint16_t hint; /* string: a digest of its bytes, equal for equal strings */
    uint32_t end;  /* index just past this value's last token (scalars: own index + 1) */
    union {
        struct {
            uint32_t off; /* offset of the bytes in sc_jdoc.text */
            uint32_t len; /* length in bytes, the NUL after them not counted */
        } s;
        struct {
            uint32_t count; /* elements, or members for an object */
            uint32_t dup;   /* object: token of a repeated member name, 0 if none */
        } c;
        int64_t i;
        double d;
    } u;
} sc_jtok;

/* All-zero is a valid empty document (a calloc'ed struct needs no init). */
typedef struct sc_jdoc {
    char *text; /* the last line parsed, strings unescaped in place */
    size_t text_cap;
    sc_jtok *tok;
    uint32_t ntok;
    uint32_t tok_cap;
    uint32_t *slots; /* hash table for duplicate checks of large objects */
    uint32_t slot_cap;
} sc_jdoc;

/** A value: a token of a document, or none (doc NULL). */
typedef struct sc_jval {
    const sc_jdoc *doc;
    uint32_t i;
} sc_jval;

/* clang-format off */
#define SC_JVAL_NONE ((sc_jval){NULL, 0})
/* clang-format on */

/** True when s[0..len) is valid UTF-8 by the rules the parser applies. */
bool sc_utf8_valid(const char *s, size_t len);
/**
 * Valid UTF-8 from any bytes (text read back from a file the daemon does
 * not fully control): a copy of s[0..len) into `out`, which needs room for
 * 3 * len bytes, with each ill-formed part replaced by U+FFFD (EF BF BD),
 * one per maximal subpart as Unicode recommends (a truncated sequence is
 * one U+FFFD, a stray byte another).  Returns the bytes written; valid
 * input is copied unchanged.
 */
size_t sc_utf8_scrub(const char *s, size_t len, char *out);
/**
 * Decode the JSON string literal t[0..n), its quotes included, into `out`
 * (room for n bytes), leniently: for text written by the daemon and read
 * back, not for input.  Unlike the parser it keeps what a stored name may
 * hold: \u0000 becomes a NUL byte, a surrogate escape that is not half of
 * a pair is written as it is (3 bytes), an escape letter JSON does not
 * define stands for itself, and raw bytes, valid UTF-8 or not, are copied;
 * pass the result through sc_utf8_scrub before it goes on the wire.
 * Returns the bytes written, or -1 when t is not quoted, ends inside an
 * escape, or holds a \u without four hex digits.
 */
ptrdiff_t sc_json_unescape(const char *t, size_t n, char *out);

void sc_jdoc_init(sc_jdoc *d);
/** Free the storage and return to the empty state (reusable). */
void sc_jdoc_free(sc_jdoc *d);

/**
 * Parse `len` bytes as one strict JSON text (RFC 8259).  Beyond the
 * grammar it rejects invalid UTF-8 (overlong forms, encoded surrogates,
 * above U+10FFFF, truncated sequences), raw control characters inside
 * strings, lone or mispaired \u surrogates, \u0000 escapes (strings stay C
 * strings), nesting deeper than 256, numbers outside the grammar ("01",
 * "1.", NaN, Infinity) or not finite (1e999), whitespace other than space,
 * tab, CR and LF, a byte order mark, an empty text and trailing garbage.
 *
 * Numbers take the value strtod gives the literal (correctly rounded),
 * except that a literal above 2^53 in magnitude which rounds to 2^53
 * (9007199254740993) becomes +-(2^53 + 2), so exact-integer range checks
 * reject it.  Whether a number is an integer (SC_JTOK_INT) is decided on
 * the literal, not the double: one with a fraction or an exponent is an
 * integer when its exact decimal value is whole (2.0, 1e3, 2.50e1), and
 * not when only its rounding is (0.99999999999999999, 9007199254740991.5,
 * 1e-999).  Literals without fraction or exponent are converted without
 * strtod.
 *
 * Each object is checked for repeated member names as it closes; the
 * result is kept in its token for sc_jdoc_find_dup.
 *
 * Returns 0, or SC_RPC_PARSE_ERROR with err filled: "parse error: <problem>
 * at byte <offset>" (0-based).  Grammar errors are reported before a
 * number out of range anywhere in the text.  The previous contents of the
 * document are gone either way.
 */
int sc_jdoc_parse(sc_jdoc *d, const char *text, size_t len, sc_rpc_error *err);

/** The root of a successfully parsed document. */
static inline sc_jval sc_jdoc_root(const sc_jdoc *d)
{
    sc_jval v = {d, 0};
    return v;
}

static inline const sc_jtok *sc_jval_tok(sc_jval v)
{
    return &v.doc->tok[v.i];
}

static inline sc_jtype sc_jval_type(sc_jval v)
{
    return v.doc ? (sc_jtype)v.doc->tok[v.i].type : SC_JNONE;
}

static inline bool sc_jval_is(sc_jval v, sc_jtype t)
{
    return sc_jval_type(v) == t;
}

/** Elements of an array or members of an object; 0 for anything else. */
static inline uint32_t sc_jval_count(sc_jval v)
{
    sc_jtype t = sc_jval_type(v);
    return t == SC_JARRAY || t == SC_JOBJECT ? v.doc->tok[v.i].u.c.count : 0;
}

/** First element of an array, or none. */
static inline sc_jval sc_jval_first(sc_jval arr)
{
    if (sc_jval_count(arr) == 0 || sc_jval_type(arr) != SC_JARRAY)
        return SC_JVAL_NONE;
    sc_jval v = {arr.doc, arr.i + 1};
    return v;
}

/** The element after `elem` in `arr`, or none. */
static inline sc_jval sc_jval_next(sc_jval arr, sc_jval elem)
{
    uint32_t next = elem.doc->tok[elem.i].end;
    if (next >= arr.doc->tok[arr.i].end)
        return SC_JVAL_NONE;
    sc_jval v = {arr.doc, next};
    return v;
}

/** A string's bytes (NUL-terminated, valid UTF-8, no NUL inside) or NULL
 *  for anything else; *len gets the length when len is not NULL. */
static inline const char *sc_jval_str(sc_jval v, size_t *len)
{
    if (sc_jval_type(v) != SC_JSTRING)
        return NULL;
    const sc_jtok *t = sc_jval_tok(v);
    if (len)
        *len = t->u.s.len;
    return v.doc->text + t->u.s.off;
}

/** True (and *out set) for a number whose literal is an integer within
 *  +-2^53 (see sc_jdoc_parse); false for a fraction, whatever it rounds to. */
static inline bool sc_jval_int(sc_jval v, int64_t *out)
{
    if (sc_jval_type(v) != SC_JNUMBER || !(v.doc->tok[v.i].flags & SC_JTOK_INT))
        return false;
    *out = v.doc->tok[v.i].u.i;
    return true;
}

/** A number's value as a double (0 for anything else). */
static inline double sc_jval_double(sc_jval v)
{
    if (sc_jval_type(v) != SC_JNUMBER)
        return 0;
    const sc_jtok *t = sc_jval_tok(v);
    return t->flags & SC_JTOK_INT ? (double)t->u.i : t->u.d;
}

/** The value of the member named key[0..len) of an object, or none (also
 *  when obj is not an object).  With repeated names, the first. */
sc_jval sc_jval_get(sc_jval obj, const char *key, size_t len);

/**
 * The first repeated member name in v's subtree, objects visited in
 * document order (an object before those inside it), or 0 if none; or
 * SC_JDUP_OOM when a check ran out of memory while parsing.  The result is
 * a string token of the member name.  For an object of up to 16 members
 * it is the first name that occurs again later; for a larger one the
 * smallest repeated name in byte order.
 */
uint32_t sc_jdoc_find_dup(sc_jval v);

/**
 * v as compact JSON (used to echo request ids): integers within +-2^53 as
 * integers, other numbers with %.17g (which reads back exactly), strings
 * re-escaped with sc_json_string; `null` when v is none.
 */
void sc_jval_write(sc_buf *b, sc_jval v);

#ifdef __cplusplus
}
#endif
#endif
