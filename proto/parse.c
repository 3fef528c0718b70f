/*
 * Strict JSON for sc_rpc_parse.
 *
 * cJSON is lenient where the protocol must not be: it treats every byte
 * below 0x21 as whitespace, accepts "01" and "1.", copies invalid UTF-8 and
 * raw control characters into strings, cuts strings at \u0000, skips a
 * byte order mark, and turns 1e999 into infinity.  So a line first goes
 * through a validating scan of the full JSON grammar (one pass, no
 * recursion, nesting kept in a bit stack), and only a line that passes is
 * handed to cJSON to build the tree.
 */
#include "sc_rpc.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define SC_JSON_MAX_DEPTH 256

struct scan {
    const unsigned char *s;
    size_t n;
    size_t i;
    unsigned depth;
    uint64_t stack[SC_JSON_MAX_DEPTH / 64]; /* bit set: that level is an object */
    bool check_numbers;                     /* some number may be out of range or near 2^53 */
    unsigned obj_level;                     /* deepest nesting level (1 = top) holding an object */
    sc_rpc_error *err;
};

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

#define ONES  0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/* Nonzero when any of the 8 bytes needs a closer look inside a string:
 * below 0x20, non-ASCII, '"' or '\\'. */
static inline uint64_t special8(uint64_t x)
{
    uint64_t q = x ^ (ONES * '"');
    uint64_t bs = x ^ (ONES * '\\');
    uint64_t low = (x - ONES * 0x20) & ~x;
    uint64_t zq = (q - ONES) & ~q;
    uint64_t zb = (bs - ONES) & ~bs;
    return (low | zq | zb | x) & HIGHS;
}

/* Index of the first byte at or after i that is not plain ASCII text. */
static size_t skip_plain(const unsigned char *s, size_t n, size_t i)
{
    while (n - i >= 8) {
        uint64_t x;
        memcpy(&x, s + i, 8);
        uint64_t m = special8(x);
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

static int fail_at(struct scan *sc, size_t at, const char *what)
{
    sc_rpc_fail(sc->err, SC_RPC_PARSE_ERROR, "parse error: %s at byte %zu", what, at);
    return -1;
}

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static int hex_value(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* The code unit of "\uXXXX" at p (p[0] == '\\'), or -1. */
static long read_u_escape(const unsigned char *p, size_t avail)
{
    if (avail < 6 || p[0] != '\\' || p[1] != 'u')
        return -1;
    long v = 0;
    for (int k = 2; k < 6; k++) {
        int h = hex_value(p[k]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* Length of the valid UTF-8 sequence at p (lead byte >= 0x80), or 0 with
 * *why naming the defect. */
static size_t utf8_seq(const unsigned char *p, size_t avail, const char **why)
{
    unsigned char c = p[0];
    unsigned char lo = 0x80, hi = 0xBF;
    size_t len;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        lo = c == 0xE0 ? 0xA0 : 0x80;
        hi = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF;
    } else {
        *why = c <= 0xBF   ? "invalid UTF-8 (unexpected continuation byte)"
               : c <= 0xC1 ? "invalid UTF-8 (overlong encoding)"
                           : "invalid UTF-8 (code point above U+10FFFF)";
        return 0;
    }
    for (size_t k = 1; k < len; k++) {
        if (k >= avail || (p[k] & 0xC0) != 0x80) {
            *why = "invalid UTF-8 (truncated sequence)";
            return 0;
        }
    }
    if (p[1] < lo) {
        *why = "invalid UTF-8 (overlong encoding)";
        return 0;
    }
    if (p[1] > hi) {
        *why = c == 0xED ? "invalid UTF-8 (encoded surrogate)"
                         : "invalid UTF-8 (code point above U+10FFFF)";
        return 0;
    }
    return len;
}

static int scan_escape(struct scan *sc)
{
    const unsigned char *p = sc->s + sc->i;
    size_t avail = sc->n - sc->i;
    if (avail < 2)
        return fail_at(sc, sc->i, "unterminated string");
    switch (p[1]) {
    case '"':
    case '\\':
    case '/':
    case 'b':
    case 'f':
    case 'n':
    case 'r':
    case 't':
        sc->i += 2;
        return 0;
    case 'u':
        break;
    default:
        return fail_at(sc, sc->i, "invalid escape");
    }
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
        sc->i += 12;
        return 0;
    }
    sc->i += 6;
    return 0;
}

/* At the opening quote; leaves sc->i after the closing quote. */
static int scan_string(struct scan *sc)
{
    const unsigned char *s = sc->s;
    size_t n = sc->n;
    size_t i = sc->i + 1;
    for (;;) {
        i = skip_plain(s, n, i);
        if (i >= n)
            return fail_at(sc, sc->i, "unterminated string");
        switch (str_class[s[i]]) {
        case 1:
            sc->i = i + 1;
            return 0;
        case 2:
            sc->i = i;
            if (scan_escape(sc) != 0)
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
            i += len;
            break;
        }
        }
    }
}

static int scan_number(struct scan *sc)
{
    const unsigned char *s = sc->s;
    size_t n = sc->n;
    size_t start = sc->i;
    size_t i = start;
    if (s[i] == '-')
        i++;
    if (i >= n || !is_digit(s[i]))
        return fail_at(sc, start, "invalid number");
    size_t int_start = i;
    if (s[i] == '0')
        i++;
    else
        while (i < n && is_digit(s[i]))
            i++;
    /* 16 integer digits reach 2^53; an exponent can reach anything. */
    bool suspect = i - int_start >= 16;
    if (i < n && s[i] == '.') {
        i++;
        if (i >= n || !is_digit(s[i]))
            return fail_at(sc, start, "invalid number");
        while (i < n && is_digit(s[i]))
            i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i >= n || !is_digit(s[i]))
            return fail_at(sc, start, "invalid number");
        while (i < n && is_digit(s[i]))
            i++;
        suspect = true;
    }
    if (i < n &&
        (is_digit(s[i]) || s[i] == '.' || s[i] == 'e' || s[i] == 'E' || s[i] == '+' || s[i] == '-'))
        return fail_at(sc, start, "invalid number");
    sc->check_numbers |= suspect;
    sc->i = i;
    return 0;
}

static int scan_literal(struct scan *sc, const char *word, size_t len)
{
    if (sc->n - sc->i < len || memcmp(sc->s + sc->i, word, len) != 0)
        return fail_at(sc, sc->i, "invalid literal");
    sc->i += len;
    return 0;
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

static int push(struct scan *sc, bool object)
{
    if (sc->depth == SC_JSON_MAX_DEPTH) {
        sc_rpc_fail(sc->err, SC_RPC_PARSE_ERROR,
                    "parse error: nesting deeper than %d levels at byte %zu", SC_JSON_MAX_DEPTH,
                    sc->i);
        return -1;
    }
    uint64_t bit = 1ULL << (sc->depth % 64);
    if (object)
        sc->stack[sc->depth / 64] |= bit;
    else
        sc->stack[sc->depth / 64] &= ~bit;
    sc->depth++;
    if (object && sc->depth > sc->obj_level)
        sc->obj_level = sc->depth;
    sc->i++;
    return 0;
}

static bool top_is_object(const struct scan *sc)
{
    unsigned d = sc->depth - 1;
    return (sc->stack[d / 64] >> (d % 64)) & 1;
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
static int scan_value(struct scan *sc, int *state)
{
    switch (sc->s[sc->i]) {
    case '{':
        *state = ST_KEY_OR_CLOSE;
        return push(sc, true);
    case '[':
        *state = ST_VALUE_OR_CLOSE;
        return push(sc, false);
    case '"':
        *state = ST_AFTER;
        return scan_string(sc);
    case 't':
        *state = ST_AFTER;
        return scan_literal(sc, "true", 4);
    case 'f':
        *state = ST_AFTER;
        return scan_literal(sc, "false", 5);
    case 'n':
        *state = ST_AFTER;
        return scan_literal(sc, "null", 4);
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
    bool obj = top_is_object(sc);
    if (c == ',') {
        *state = obj ? ST_KEY : ST_VALUE;
        sc->i++;
        return 0;
    }
    if (c == (obj ? '}' : ']')) {
        sc->depth--;
        sc->i++;
        return 0;
    }
    return unexpected(sc, obj ? "',' or '}'" : "',' or ']'");
}

static int scan_document(struct scan *sc)
{
    int state = ST_VALUE;
    for (;;) {
        while (sc->i < sc->n) {
            unsigned char c = sc->s[sc->i];
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
                break;
            sc->i++;
        }
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
                sc->depth--;
                sc->i++;
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
                sc->depth--;
                sc->i++;
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

/* ---- after cJSON: numbers that the double lost ---- */

struct numwalk {
    const char *base;
    const char *p;
    const char *end;
    sc_rpc_error *err;
};

/* The next number literal outside strings, in document order, which is
 * also the order in which a walk of the cJSON tree meets number items. */
static const char *next_number(struct numwalk *w, size_t *len)
{
    const char *p = w->p;
    const char *end = w->end;
    while (p < end) {
        char c = *p;
        if (c == '"') {
            for (p++; p < end && *p != '"'; p++)
                if (*p == '\\')
                    p++;
            p++;
            continue;
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            const char *start = p;
            while (p < end && (is_digit((unsigned char)*p) || *p == '-' || *p == '+' || *p == '.' ||
                               *p == 'e' || *p == 'E'))
                p++;
            w->p = p;
            *len = (size_t)(p - start);
            return start;
        }
        p++;
    }
    w->p = end;
    *len = 0;
    return NULL;
}

/*
 * Whether the decimal literal is larger than 2^53 in magnitude.  Literals
 * just above 2^53 round down to it, which would let 9007199254740993 pass
 * a "<= 2^53" check; the literal text settles it.
 */
static bool literal_above_2p53(const char *s, size_t n)
{
    static const char lim[] = "9007199254740992";
    size_t i = s[0] == '-' ? 1 : 0;
    size_t ib = i;
    while (i < n && is_digit((unsigned char)s[i]))
        i++;
    size_t ni = i - ib;
    size_t fb = i, fe = i;
    if (i < n && s[i] == '.') {
        fb = ++i;
        while (i < n && is_digit((unsigned char)s[i]))
            i++;
        fe = i;
    }
    long exp = 0;
    bool neg = false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            neg = s[i++] == '-';
        for (; i < n && is_digit((unsigned char)s[i]); i++)
            if (exp < 100000)
                exp = exp * 10 + (s[i] - '0');
    }
    if (neg)
        exp = -exp;
    /* Digits D = integer part then fraction; the value has `point` digits
     * before its decimal point once D's leading zeros are dropped. */
    size_t nd = ni + (fe - fb);
#define DIGIT(k) ((k) < ni ? s[ib + (k)] : s[fb + (k)-ni])
    size_t lead = 0;
    while (lead < nd && DIGIT(lead) == '0')
        lead++;
    if (lead == nd)
        return false;
    long point = (long)ni + exp - (long)lead;
    if (point != 16)
        return point > 16;
    for (size_t k = 0; k < 16; k++) {
        char d = lead + k < nd ? DIGIT(lead + k) : '0';
        if (d != lim[k])
            return d > lim[k];
    }
    for (size_t k = lead + 16; k < nd; k++)
        if (DIGIT(k) != '0')
            return true;
    return false;
#undef DIGIT
}

static int fix_number(cJSON *item, struct numwalk *w)
{
    const double exact = (double)SC_JSON_MAX_EXACT;
    size_t len;
    const char *lit = next_number(w, &len);
    double d = item->valuedouble;
    if (!isfinite(d)) {
        size_t at = lit ? (size_t)(lit - w->base) : 0;
        sc_rpc_fail(w->err, SC_RPC_PARSE_ERROR, "parse error: number out of range at byte %zu", at);
        return -1;
    }
    /* The next double past 2^53 is 2^53 + 2: as close to the literal as
     * 2^53 is, and outside every exact-integer range. */
    if (fabs(d) == exact && lit && literal_above_2p53(lit, len))
        item->valuedouble = copysign(exact + 2.0, d);
    return 0;
}

static int check_numbers(cJSON *item, struct numwalk *w)
{
    for (; item; item = item->next) {
        if (cJSON_IsNumber(item)) {
            if (fix_number(item, w) != 0)
                return -1;
        } else if (item->child && check_numbers(item->child, w) != 0) {
            return -1;
        }
    }
    return 0;
}

/*
 * Containers leave valueint unused; the root and, in a batch, each request
 * carry SC_RPC_OBJ_HINT there: objects occur only at levels below it (the
 * item itself being level 1).  sc_rpc_decode uses it to skip the subtrees
 * (long arrays of number pairs, say) that cannot hold a duplicate member.
 */
static void set_hints(cJSON *root, unsigned obj_level)
{
    if (!(root->type & (cJSON_Array | cJSON_Object)))
        return;
    root->valueint = (int)obj_level + 1;
    if (!(root->type & cJSON_Array))
        return;
    int child_hint = obj_level > 1 ? (int)obj_level : 1;
    for (cJSON *c = root->child; c; c = c->next)
        if (c->type & (cJSON_Array | cJSON_Object))
            c->valueint = child_hint;
}

int sc_rpc_parse(const char *line, size_t len, cJSON **root, sc_rpc_error *err)
{
    *root = NULL;
    struct scan sc = {.s = (const unsigned char *)line, .n = len, .err = err};
    if (scan_document(&sc) != 0)
        return SC_RPC_PARSE_ERROR;

    const char *end = NULL;
    cJSON *tree = cJSON_ParseWithLengthOpts(line, len, &end, 0);
    if (!tree) {
        /* The scan accepted the text, so this is cJSON running out of
         * memory or refusing something the grammar allows. */
        size_t at = end && end >= line && end <= line + len ? (size_t)(end - line) : 0;
        return sc_rpc_fail(err, SC_RPC_PARSE_ERROR, "parse error: cannot parse at byte %zu", at);
    }
    while (end < line + len && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
        end++;
    if (end != line + len) {
        cJSON_Delete(tree);
        return sc_rpc_fail(err, SC_RPC_PARSE_ERROR, "parse error: trailing characters at byte %zu",
                           (size_t)(end - line));
    }
    if (sc.check_numbers) {
        struct numwalk w = {line, line, line + len, err};
        if (check_numbers(tree, &w) != 0) {
            cJSON_Delete(tree);
            return SC_RPC_PARSE_ERROR;
        }
    }
    set_hints(tree, sc.obj_level);
    *root = tree;
    return 0;
}
