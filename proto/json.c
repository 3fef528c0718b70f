/*
 * Strict JSON into a flat token array (sc_json.h).
 *
 * One pass, no recursion: the grammar is checked with an explicit stack of
 * open containers while tokens are written.  The line is first copied into
 * the document, so strings can be unescaped and NUL-terminated in place
 * (an escape is never shorter than what it stands for) and the tokens stay
 * valid whatever happens to the caller's buffer afterwards.
 */
#include "sc_json.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_str.h"
#include "sc_rpc.h"

#define SC_JSON_MAX_DEPTH 256
/* Objects with more members than this are checked for repeated names
 * with a hash table instead of comparing every pair. */
#define SC_DUP_PAIRWISE_MAX 16
#define SC_TOK_MIN_CAP      64
#define SC_TEXT_MIN_CAP     256

struct scan {
    sc_jdoc *d;
    unsigned char *s; /* d->text */
    size_t n;
    size_t i;
    unsigned depth;
    uint32_t count;                    /* children of the innermost open container so far */
    bool in_object;                    /* the innermost open container is an object */
    uint32_t open[SC_JSON_MAX_DEPTH];  /* tokens of the open containers */
    uint32_t saved[SC_JSON_MAX_DEPTH]; /* `count` of the container around each */
    size_t bad_number;                 /* offset of the first non-finite number, or SIZE_MAX */
    sc_rpc_error *err;
};

void sc_jdoc_init(sc_jdoc *d)
{
    memset(d, 0, sizeof *d);
}

void sc_jdoc_free(sc_jdoc *d)
{
    free(d->text);
    free(d->tok);
    free(d->slots);
    sc_jdoc_init(d);
}

static int fail_at(struct scan *sc, size_t at, const char *what)
{
    sc_rpc_fail(sc->err, SC_RPC_PARSE_ERROR, "parse error: %s at byte %zu", what, at);
    return -1;
}

/* ---- storage ---- */

static int grow_tokens(sc_jdoc *d)
{
    size_t cap = d->tok_cap ? (size_t)d->tok_cap * 2 : SC_TOK_MIN_CAP;
    if (cap > UINT32_MAX)
        cap = UINT32_MAX;
    if (cap == d->tok_cap)
        return -1;
    sc_jtok *t = realloc(d->tok, cap * sizeof *t);
    if (!t)
        return -1;
    d->tok = t;
    d->tok_cap = (uint32_t)cap;
    return 0;
}

/* A new token at the end of the array; its index is d->ntok - 1.  Inlined:
 * it runs once per value. */
static inline __attribute__((always_inline)) sc_jtok *emit(struct scan *sc, sc_jtype type)
{
    sc_jdoc *d = sc->d;
    if (d->ntok == d->tok_cap && grow_tokens(d) != 0) {
        fail_at(sc, sc->i, "out of memory");
        return NULL;
    }
    uint32_t k = d->ntok++;
    sc_jtok *t = &d->tok[k];
    t->type = (uint8_t)type;
    t->flags = 0;
    t->hint = 0;
    t->end = k + 1;
    t->u.i = 0;
    return t;
}

/* sc_jtok.hint of a string: length, first and last byte, so most unequal
 * member names differ in it and are told apart without touching the text. */
static uint16_t str_hint(const unsigned char *p, size_t len)
{
    if (len == 0)
        return 0;
    return (uint16_t)((len << 10) ^ ((size_t)p[0] << 5) ^ p[len - 1]);
}

/* The line plus a NUL: the scanner's loops stop on it without checking
 * the length, and strtod stops at the end of the text. */
static int copy_text(sc_jdoc *d, const char *text, size_t len)
{
    if (d->text_cap < len + 1) {
        size_t cap = d->text_cap < SC_TEXT_MIN_CAP ? SC_TEXT_MIN_CAP : d->text_cap;
        while (cap < len + 1)
            cap *= 2;
        /* The old contents are dead: free and allocate rather than copy. */
        free(d->text);
        d->text_cap = 0;
        d->text = malloc(cap);
        if (!d->text)
            return -1;
        d->text_cap = cap;
    }
    if (len)
        memcpy(d->text, text, len);
    d->text[len] = '\0';
    return 0;
}

/* ---- strings ---- */

/* Bytes inside a string: 0 plain ASCII, 1 '"', 2 '\\', 3 control, 4 non-ASCII. */
static const unsigned char str_class[256] = {
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
};

/* Index of the first byte at or after i that is not plain ASCII text. */
static size_t skip_plain(const unsigned char *s, size_t n, size_t i)
{
    while (n - i >= 8) {
        uint64_t x;
        memcpy(&x, s + i, 8);
        uint64_t m = sc_json_special8(x);
        if (m) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            /* The lowest flagged byte is exact (carries only run upwards). */
            return i + ((size_t)__builtin_ctzll(m) >> 3);
#else
            break;
#endif
        }
        i += 8;
    }
    while (i < n && str_class[s[i]] == 0)
        i++;
    return i;
}

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/*
 * The escape at sc->i: checked, then its bytes written at *w (never past
 * the escape itself, so unread text is untouched) and sc->i moved past it.
 */
static int scan_escape(struct scan *sc, size_t *w)
{
    const unsigned char *p = sc->s + sc->i;
    size_t avail = sc->n - sc->i;
    if (avail < 2)
        return fail_at(sc, sc->i, "unterminated string");
    unsigned char c;
    switch (p[1]) {
    case '"':
    case '\\':
    case '/':
        c = p[1];
        break;
    case 'b':
        c = '\b';
        break;
    case 'f':
        c = '\f';
        break;
    case 'n':
        c = '\n';
        break;
    case 'r':
        c = '\r';
        break;
    case 't':
        c = '\t';
        break;
    case 'u': {
        long u = read_u_escape(p, avail);
        if (u < 0)
            return fail_at(sc, sc->i, "invalid \\u escape");
        if (u == 0)
            return fail_at(sc, sc->i, "\\u0000 is not allowed");
        if (u >= 0xDC00 && u <= 0xDFFF)
            return fail_at(sc, sc->i, "lone low surrogate escape");
        if (u >= 0xD800 && u <= 0xDBFF) {
            long lo = read_u_escape(p + 6, avail - 6);
            if (lo < 0xDC00 || lo > 0xDFFF)
                return fail_at(sc, sc->i, "high surrogate escape without a low surrogate");
            uint32_t cp = 0x10000 + ((uint32_t)(u - 0xD800) << 10) + (uint32_t)(lo - 0xDC00);
            *w += put_utf8(sc->s + *w, cp);
            sc->i += 12;
            return 0;
        }
        *w += put_utf8(sc->s + *w, (uint32_t)u);
        sc->i += 6;
        return 0;
    }
    default:
        return fail_at(sc, sc->i, "invalid escape");
    }
    sc->s[(*w)++] = c;
    sc->i += 2;
    return 0;
}

/* At the opening quote; leaves sc->i after the closing quote, the string's
 * bytes unescaped from start + 1 on and a NUL after them. */
static int scan_string(struct scan *sc)
{
    unsigned char *s = sc->s;
    size_t n = sc->n;
    size_t start = sc->i;
    size_t i = start + 1; /* read position */
    size_t w = i;         /* write position: behind i once an escape was seen */
    for (;;) {
        size_t j = skip_plain(s, n, i);
        if (w != i)
            memmove(s + w, s + i, j - i);
        w += j - i;
        i = j;
        /* At the opening quote, or just past the last escape. */
        if (i >= n)
            return fail_at(sc, sc->i, "unterminated string");
        switch (str_class[s[i]]) {
        case 1: {
            sc->i = i + 1;
            sc_jtok *t = emit(sc, SC_JSTRING);
            if (!t)
                return -1;
            s[w] = '\0';
            t->u.s.off = (uint32_t)(start + 1);
            t->u.s.len = (uint32_t)(w - (start + 1));
            t->hint = str_hint(s + start + 1, t->u.s.len);
            return 0;
        }
        case 2:
            sc->i = i;
            if (scan_escape(sc, &w) != 0)
                return -1;
            i = sc->i;
            break;
        case 3:
            sc->i = i;
            sc_rpc_fail(sc->err, SC_RPC_PARSE_ERROR,
                        "parse error: raw control character 0x%02x in string at byte %zu", s[i], i);
            return -1;
        default: {
            const char *why = NULL;
            size_t len = utf8_seq(s + i, n - i, &why);
            if (len == 0)
                return fail_at(sc, i, why);
            if (w != i)
                memmove(s + w, s + i, len);
            w += len;
            i += len;
            break;
        }
        }
    }
}

/* ---- numbers ---- */

/*
 * A literal with a fraction or an exponent, as its digits: D = the integer
 * part then the fraction (nd digits, `ni` of them before the '.'), the
 * value D * 10^(exp - (nd - ni)).  Read again from the text only for such
 * literals, so plain integers pay nothing for it.
 */
struct literal {
    const unsigned char *s;
    size_t ib, ni; /* integer digits at s[ib..ib + ni) */
    size_t fb, nf; /* fraction digits at s[fb..fb + nf) */
    long exp;      /* clamped to +-100000: far past every finite double */
};

static void read_literal(struct literal *l, const unsigned char *s, size_t n)
{
    size_t i = s[0] == '-' ? 1 : 0;
    l->s = s;
    l->ib = i;
    while (i < n && is_digit(s[i]))
        i++;
    l->ni = i - l->ib;
    l->fb = i;
    l->nf = 0;
    if (i < n && s[i] == '.') {
        l->fb = ++i;
        while (i < n && is_digit(s[i]))
            i++;
        l->nf = i - l->fb;
    }
    long exp = 0;
    bool neg = false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            neg = s[i++] == '-';
        for (; i < n && is_digit(s[i]); i++)
            if (exp < 100000)
                exp = exp * 10 + (s[i] - '0');
    }
    l->exp = neg ? -exp : exp;
}

/* Digit k of D. */
static char digit_at(const struct literal *l, size_t k)
{
    return (char)(k < l->ni ? l->s[l->ib + k] : l->s[l->fb + k - l->ni]);
}

/*
 * Whether the literal's exact decimal value is a whole number: every
 * nonzero digit of D sits before the decimal point once the exponent has
 * moved it.  Decided on the text, since the rounded double cannot tell
 * 0.99999999999999999 from 1.
 */
static bool literal_is_whole(const struct literal *l)
{
    size_t nd = l->ni + l->nf;
    size_t last = nd;
    while (last > 0 && digit_at(l, last - 1) == '0')
        last--;
    return last == 0 || (long)last <= (long)l->ni + l->exp;
}

/*
 * Whether the literal is larger than 2^53 in magnitude.  Literals just
 * above 2^53 round down to it, which would let 9007199254740993 pass a
 * "<= 2^53" check; the literal text settles it.
 */
static bool literal_above_2p53(const struct literal *l)
{
    static const char lim[] = "9007199254740992";
    /* The value has `point` digits before its decimal point once D's
     * leading zeros are dropped. */
    size_t nd = l->ni + l->nf;
    size_t lead = 0;
    while (lead < nd && digit_at(l, lead) == '0')
        lead++;
    if (lead == nd)
        return false;
    long point = (long)l->ni + l->exp - (long)lead;
    if (point != 16)
        return point > 16;
    for (size_t k = 0; k < 16; k++) {
        char d = lead + k < nd ? digit_at(l, lead + k) : '0';
        if (d != lim[k])
            return d > lim[k];
    }
    for (size_t k = lead + 16; k < nd; k++)
        if (digit_at(l, k) != '0')
            return true;
    return false;
}

/* An integer token only when the literal itself is whole: a double that
 * merely rounded to one (0.99999999999999999, 9007199254740991.5) stays a
 * fraction, so no integer reader can take it. */
static void set_number(sc_jtok *t, double d, bool whole)
{
    const double exact = (double)SC_JSON_MAX_EXACT;
    if (whole && d == trunc(d) && fabs(d) <= exact) {
        t->flags = SC_JTOK_INT;
        t->u.i = (int64_t)d;
    } else {
        t->u.d = d;
    }
}

/*
 * A literal with a fraction, an exponent or more than 19 digits: strtod,
 * as the value must be the correctly rounded one.  The literal is cut out
 * with a NUL and its '.' swapped for the locale's decimal point, which
 * strtod insists on; both are put back.
 */
static void slow_number(struct scan *sc, sc_jtok *t, size_t start, size_t end)
{
    const double exact = (double)SC_JSON_MAX_EXACT;
    unsigned char *s = sc->s;
    unsigned char after = s[end];
    unsigned char point = (unsigned char)localeconv()->decimal_point[0];
    size_t dot = end;
    s[end] = '\0';
    if (point != '.' && point != '\0') {
        unsigned char *p = memchr(s + start, '.', end - start);
        if (p) {
            dot = (size_t)(p - s);
            *p = point;
        }
    }
    double d = strtod((const char *)s + start, NULL);
    if (dot != end)
        s[dot] = '.';
    s[end] = after;
    if (!isfinite(d)) {
        if (sc->bad_number == SIZE_MAX)
            sc->bad_number = start;
        t->u.d = 0;
        return;
    }
    struct literal l;
    read_literal(&l, s + start, end - start);
    /* The next double past 2^53 is 2^53 + 2: as close to the literal as
     * 2^53 is, and outside every exact-integer range. */
    if (fabs(d) == exact && literal_above_2p53(&l))
        d = copysign(exact + 2.0, d);
    set_number(t, d, literal_is_whole(&l));
}

static inline __attribute__((always_inline)) int scan_number(struct scan *sc)
{
    /* No bounds checks: the text ends in a NUL, which no test below takes. */
    const unsigned char *s = sc->s;
    size_t start = sc->i;
    size_t i = start;
    if (s[i] == '-')
        i++;
    if (!is_digit(s[i]))
        return fail_at(sc, start, "invalid number");
    size_t int_start = i;
    /* The value is built while the digits are checked; past 19 digits it
     * wraps, but such literals go to strtod. */
    uint64_t v = 0;
    if (s[i] == '0')
        i++;
    else
        while (is_digit(s[i]))
            v = v * 10 + (uint64_t)(s[i++] - '0');
    size_t int_end = i;
    bool plain = true;
    if (s[i] == '.') {
        i++;
        if (!is_digit(s[i]))
            return fail_at(sc, start, "invalid number");
        while (is_digit(s[i]))
            i++;
        plain = false;
    }
    if (s[i] == 'e' || s[i] == 'E') {
        i++;
        if (s[i] == '+' || s[i] == '-')
            i++;
        if (!is_digit(s[i]))
            return fail_at(sc, start, "invalid number");
        while (is_digit(s[i]))
            i++;
        plain = false;
    }
    if (is_digit(s[i]) || s[i] == '.' || s[i] == 'e' || s[i] == 'E' || s[i] == '+' || s[i] == '-')
        return fail_at(sc, start, "invalid number");
    sc_jtok *t = emit(sc, SC_JNUMBER);
    if (!t)
        return -1;
    sc->i = i;
    if (!plain || int_end - int_start > 19) {
        slow_number(sc, t, start, i);
        return 0;
    }
    bool neg = s[start] == '-';
    if (v <= SC_JSON_MAX_EXACT) {
        t->flags = SC_JTOK_INT;
        t->u.i = neg ? -(int64_t)v : (int64_t)v;
        return 0;
    }
    /* Above 2^53: rounded like strtod, and kept off 2^53 itself. */
    double d = (double)v;
    if (d == (double)SC_JSON_MAX_EXACT)
        d += 2.0;
    t->u.d = neg ? -d : d;
    return 0;
}

static int scan_literal(struct scan *sc, const char *word, size_t len, sc_jtype type)
{
    if (sc->n - sc->i < len || memcmp(sc->s + sc->i, word, len) != 0)
        return fail_at(sc, sc->i, "invalid literal");
    if (!emit(sc, type))
        return -1;
    sc->i += len;
    return 0;
}

/* ---- repeated member names ---- */

static bool key_eq(const sc_jdoc *d, uint32_t a, uint32_t b)
{
    const sc_jtok *ta = &d->tok[a], *tb = &d->tok[b];
    return ta->hint == tb->hint && ta->u.s.len == tb->u.s.len &&
           memcmp(d->text + ta->u.s.off, d->text + tb->u.s.off, ta->u.s.len) == 0;
}

/* strcmp order (names hold no NUL). */
static int key_cmp(const sc_jdoc *d, uint32_t a, uint32_t b)
{
    const sc_jtok *ta = &d->tok[a], *tb = &d->tok[b];
    uint32_t la = ta->u.s.len, lb = tb->u.s.len;
    int c = memcmp(d->text + ta->u.s.off, d->text + tb->u.s.off, la < lb ? la : lb);
    if (c != 0)
        return c;
    return la < lb ? -1 : la > lb;
}

static uint32_t key_hash(const sc_jdoc *d, uint32_t k)
{
    const unsigned char *p = (const unsigned char *)d->text + d->tok[k].u.s.off;
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < d->tok[k].u.s.len; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

/* Members of object `obj`: name tokens from obj + 1, each followed by its
 * value, the next name just past the value. */
#define NEXT_KEY(d, k) ((d)->tok[(k) + 1].end)

/* The first name that occurs again later in the object.  Names and hints
 * are gathered first, so the pairs are compared on a local array.  Equal
 * names have equal hints, so when no two hints share a bit of a 256-bit
 * map (the common case: a request's names all differ) there is nothing to
 * compare; every request line closes objects, so this runs per record. */
static uint32_t small_object_dup(const sc_jdoc *d, uint32_t obj)
{
    uint32_t keys[SC_DUP_PAIRWISE_MAX];
    uint16_t hints[SC_DUP_PAIRWISE_MAX];
    uint64_t seen[4] = {0, 0, 0, 0};
    bool clash = false;
    uint32_t n = 0;
    uint32_t end = d->tok[obj].end;
    for (uint32_t k = obj + 1; k < end; k = NEXT_KEY(d, k)) {
        uint16_t h = d->tok[k].hint;
        /* The hint's low bits are mostly the last byte: mix the length and
         * first byte (the high bits) in. */
        unsigned bit = (unsigned)(h ^ (h >> 8)) & 255u;
        uint64_t m = (uint64_t)1 << (bit & 63u);
        clash |= (seen[bit >> 6] & m) != 0;
        seen[bit >> 6] |= m;
        keys[n] = k;
        hints[n++] = h;
    }
    if (!clash)
        return 0;
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = a + 1; b < n; b++)
            if (hints[a] == hints[b] && key_eq(d, keys[a], keys[b]))
                return keys[a];
    return 0;
}

/* The smallest repeated name: one pass over an open-addressing table. */
static uint32_t large_object_dup(sc_jdoc *d, uint32_t obj)
{
    size_t want = 64;
    while (want < (size_t)d->tok[obj].u.c.count * 2)
        want *= 2;
    if (d->slot_cap < want) {
        uint32_t *p = realloc(d->slots, want * sizeof *p);
        if (!p)
            return SC_JDUP_OOM;
        d->slots = p;
        d->slot_cap = (uint32_t)want;
    }
    memset(d->slots, 0, want * sizeof *d->slots);
    uint32_t mask = (uint32_t)want - 1;
    uint32_t best = 0;
    uint32_t end = d->tok[obj].end;
    for (uint32_t k = obj + 1; k < end; k = NEXT_KEY(d, k)) {
        for (uint32_t h = key_hash(d, k) & mask;; h = (h + 1) & mask) {
            uint32_t other = d->slots[h];
            if (other == 0) {
                d->slots[h] = k; /* a name token is never token 0 */
                break;
            }
            if (key_eq(d, other, k)) {
                if (best == 0 || key_cmp(d, k, best) < 0)
                    best = k;
                break;
            }
        }
    }
    return best;
}

/* ---- structure ---- */

static int push(struct scan *sc, sc_jtype type)
{
    if (sc->depth == SC_JSON_MAX_DEPTH) {
        sc_rpc_fail(sc->err, SC_RPC_PARSE_ERROR,
                    "parse error: nesting deeper than %d levels at byte %zu", SC_JSON_MAX_DEPTH,
                    sc->i);
        return -1;
    }
    if (!emit(sc, type))
        return -1;
    sc->saved[sc->depth] = sc->count;
    sc->open[sc->depth++] = sc->d->ntok - 1;
    sc->count = 0;
    sc->in_object = type == SC_JOBJECT;
    sc->i++;
    return 0;
}

/* At the closing bracket of the innermost container. */
static void pop(struct scan *sc)
{
    sc_jdoc *d = sc->d;
    uint32_t k = sc->open[--sc->depth];
    sc_jtok *t = &d->tok[k];
    t->end = d->ntok;
    t->u.c.count = sc->count;
    sc->count = sc->saved[sc->depth];
    sc->in_object = sc->depth && d->tok[sc->open[sc->depth - 1]].type == SC_JOBJECT;
    if (t->type == SC_JOBJECT && t->u.c.count > 1) {
        uint32_t dup =
            t->u.c.count <= SC_DUP_PAIRWISE_MAX ? small_object_dup(d, k) : large_object_dup(d, k);
        t->u.c.dup = dup;
        if (dup)
            t->flags |= SC_JTOK_DUP;
    }
    if ((t->flags & SC_JTOK_DUP) && sc->depth)
        d->tok[sc->open[sc->depth - 1]].flags |= SC_JTOK_DUP;
    sc->i++;
}

static int unexpected(struct scan *sc, const char *expected)
{
    unsigned char c = sc->s[sc->i];
    if (c > 0x20 && c < 0x7F)
        sc_rpc_fail(sc->err, SC_RPC_PARSE_ERROR,
                    "parse error: unexpected '%c' at byte %zu, expected %s", c, sc->i, expected);
    else
        sc_rpc_fail(sc->err, SC_RPC_PARSE_ERROR,
                    "parse error: unexpected byte 0x%02x at byte %zu, expected %s", c, sc->i,
                    expected);
    return -1;
}

enum {
    ST_VALUE,          /* a value must follow */
    ST_VALUE_OR_CLOSE, /* just after '[' */
    ST_KEY,            /* after ',' in an object */
    ST_KEY_OR_CLOSE,   /* just after '{' */
    ST_COLON,          /* after a member name */
    ST_AFTER,          /* after a value: ',', a close, or the end */
};

/* A scalar value or the opening of a container. */
static inline __attribute__((always_inline)) int scan_value(struct scan *sc, int *state)
{
    sc->count++;
    switch (sc->s[sc->i]) {
    case '{':
        *state = ST_KEY_OR_CLOSE;
        return push(sc, SC_JOBJECT);
    case '[':
        *state = ST_VALUE_OR_CLOSE;
        return push(sc, SC_JARRAY);
    case '"':
        *state = ST_AFTER;
        return scan_string(sc);
    case 't':
        *state = ST_AFTER;
        return scan_literal(sc, "true", 4, SC_JTRUE);
    case 'f':
        *state = ST_AFTER;
        return scan_literal(sc, "false", 5, SC_JFALSE);
    case 'n':
        *state = ST_AFTER;
        return scan_literal(sc, "null", 4, SC_JNULL);
    case '-':
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9':
        *state = ST_AFTER;
        return scan_number(sc);
    default:
        return unexpected(sc, "a value");
    }
}

static int scan_after(struct scan *sc, int *state)
{
    unsigned char c = sc->s[sc->i];
    if (sc->depth == 0)
        return fail_at(sc, sc->i, "trailing characters");
    bool obj = sc->in_object;
    if (c == ',') {
        *state = obj ? ST_KEY : ST_VALUE;
        sc->i++;
        return 0;
    }
    if (c == (obj ? '}' : ']')) {
        pop(sc);
        return 0;
    }
    return unexpected(sc, obj ? "',' or '}'" : "',' or ']'");
}

static int scan_document(struct scan *sc)
{
    int state = ST_VALUE;
    for (;;) {
        /* Compact JSON has no whitespace: one comparison rules it out.  The
         * NUL after the text stops the loop. */
        size_t i = sc->i;
        while (sc->s[i] <= ' ' &&
               (sc->s[i] == ' ' || sc->s[i] == '\t' || sc->s[i] == '\n' || sc->s[i] == '\r'))
            i++;
        sc->i = i;
        if (sc->i == sc->n) {
            if (state == ST_AFTER && sc->depth == 0)
                return 0;
            return fail_at(sc, sc->i, sc->n == 0 ? "empty message" : "unexpected end of input");
        }
        unsigned char c = sc->s[sc->i];
        int rc;
        switch (state) {
        case ST_VALUE_OR_CLOSE:
            if (c == ']') {
                pop(sc);
                state = ST_AFTER;
                continue;
            }
            rc = scan_value(sc, &state);
            break;
        case ST_VALUE:
            rc = scan_value(sc, &state);
            break;
        case ST_KEY_OR_CLOSE:
            if (c == '}') {
                pop(sc);
                state = ST_AFTER;
                continue;
            }
            /* fall through */
        case ST_KEY:
            if (c != '"')
                return unexpected(sc, "a member name");
            rc = scan_string(sc);
            state = ST_COLON;
            break;
        case ST_COLON:
            if (c != ':')
                return unexpected(sc, "':'");
            sc->i++;
            rc = 0;
            state = ST_VALUE;
            break;
        default:
            rc = scan_after(sc, &state);
            break;
        }
        if (rc != 0)
            return -1;
    }
}

int sc_jdoc_parse(sc_jdoc *d, const char *text, size_t len, sc_rpc_error *err)
{
    d->ntok = 0;
    /* Offsets and token indices are 32-bit. */
    if (len > (size_t)UINT32_MAX + 1)
        return sc_rpc_fail(err, SC_RPC_PARSE_ERROR, "parse error: message too large at byte 0");
    if (copy_text(d, text, len) != 0)
        return sc_rpc_fail(err, SC_RPC_PARSE_ERROR, "parse error: out of memory at byte 0");
    /* Field by field: an initializer would clear the whole stack array. */
    struct scan sc;
    sc.d = d;
    sc.s = (unsigned char *)d->text;
    sc.n = len;
    sc.i = 0;
    sc.depth = 0;
    sc.count = 0;
    sc.in_object = false;
    sc.bad_number = SIZE_MAX;
    sc.err = err;
    if (scan_document(&sc) != 0) {
        d->ntok = 0;
        return SC_RPC_PARSE_ERROR;
    }
    if (sc.bad_number != SIZE_MAX) {
        d->ntok = 0;
        return sc_rpc_fail(err, SC_RPC_PARSE_ERROR, "parse error: number out of range at byte %zu",
                           sc.bad_number);
    }
    return 0;
}

/* ---- reading ---- */

sc_jval sc_jval_get(sc_jval obj, const char *key, size_t len)
{
    if (sc_jval_type(obj) != SC_JOBJECT)
        return SC_JVAL_NONE;
    const sc_jdoc *d = obj.doc;
    uint16_t hint = str_hint((const unsigned char *)key, len);
    uint32_t end = d->tok[obj.i].end;
    for (uint32_t k = obj.i + 1; k < end; k = NEXT_KEY(d, k)) {
        const sc_jtok *t = &d->tok[k];
        if (t->hint == hint && t->u.s.len == len && memcmp(d->text + t->u.s.off, key, len) == 0) {
            sc_jval v = {d, k + 1};
            return v;
        }
    }
    return SC_JVAL_NONE;
}

static uint32_t find_dup(const sc_jdoc *d, uint32_t i)
{
    const sc_jtok *t = &d->tok[i];
    if (!(t->flags & SC_JTOK_DUP))
        return 0;
    if (t->type == SC_JOBJECT && t->u.c.dup)
        return t->u.c.dup;
    /* Only containers carry the flag, so names and scalars fall through. */
    for (uint32_t k = i + 1; k < t->end; k = d->tok[k].end) {
        uint32_t dup = find_dup(d, k);
        if (dup)
            return dup;
    }
    return 0;
}

uint32_t sc_jdoc_find_dup(sc_jval v)
{
    return v.doc ? find_dup(v.doc, v.i) : 0;
}
