/*
 * redact.c - PostgreSQL secrets out of a --db value before it is shown
 * (sc_redact.h).
 */
#include "sc_redact.h"

#include <stdbool.h>
#include <string.h>

#include "store_backend.h"

#define MASK "***"

/* A bounded writer: what does not fit is dropped, never half a mask. */
typedef struct out_buf {
    char *p;
    size_t len; /* capacity, the NUL included */
    size_t n;   /* bytes written */
} out_buf;

static void put(out_buf *o, const char *s, size_t n)
{
    if (o->len == 0)
        return;
    size_t room = o->len - 1 - o->n;
    if (n > room)
        n = room;
    memcpy(o->p + o->n, s, n);
    o->n += n;
    o->p[o->n] = '\0';
}

static bool is_secret_key(const char *k, size_t n)
{
    return (n == 8 && memcmp(k, "password", 8) == 0) ||
           (n == 11 && memcmp(k, "sslpassword", 11) == 0);
}

static int hex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* A URI query key, which libpq percent-decodes before it reads it. */
static bool is_secret_uri_key(const char *k, size_t n)
{
    char d[16];
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m == sizeof d)
            return false;
        if (k[i] == '%' && i + 2 < n && hex(k[i + 1]) >= 0 && hex(k[i + 2]) >= 0) {
            d[m++] = (char)(hex(k[i + 1]) * 16 + hex(k[i + 2]));
            i += 2;
        } else {
            d[m++] = k[i];
        }
    }
    return is_secret_key(d, m);
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* scheme://[user[:password]@]host...[?key=value&...] */
static void redact_uri(const char *s, size_t scheme_len, out_buf *o)
{
    const char *auth = s + scheme_len;
    put(o, s, scheme_len);
    /* libpq: the user info is what comes before the first '@' that
     * precedes any '/'. */
    size_t span = strcspn(auth, "@/");
    const char *rest = auth;
    if (auth[span] == '@') {
        const char *colon = memchr(auth, ':', span);
        if (colon) {
            put(o, auth, (size_t)(colon - auth) + 1);
            put(o, MASK, strlen(MASK));
        } else {
            put(o, auth, span);
        }
        rest = auth + span;
    }
    const char *q = strchr(rest, '?');
    if (!q) {
        put(o, rest, strlen(rest));
        return;
    }
    put(o, rest, (size_t)(q - rest) + 1);
    for (const char *p = q + 1; *p;) {
        size_t item = strcspn(p, "&");
        const char *eq = memchr(p, '=', item);
        if (eq && is_secret_uri_key(p, (size_t)(eq - p))) {
            put(o, p, (size_t)(eq - p) + 1);
            put(o, MASK, strlen(MASK));
        } else {
            put(o, p, item);
        }
        p += item;
        if (*p == '&') {
            put(o, "&", 1);
            p++;
        }
    }
}

/* The end of a key/value value at p: quoted ('...', backslash escapes)
 * or up to the next blank (backslash escapes too), as libpq reads it. */
static const char *value_end(const char *p)
{
    if (*p == '\'') {
        for (p++; *p && *p != '\''; p++)
            if (*p == '\\' && p[1])
                p++;
        return *p ? p + 1 : p;
    }
    for (; *p && !is_space(*p); p++)
        if (*p == '\\' && p[1])
            p++;
    return p;
}

/* prefix key = value key = value ... */
static void redact_keywords(const char *s, size_t prefix_len, out_buf *o)
{
    put(o, s, prefix_len);
    const char *p = s + prefix_len;
    while (*p) {
        const char *start = p;
        while (is_space(*p))
            p++;
        const char *key = p;
        while (*p && *p != '=' && !is_space(*p))
            p++;
        size_t key_len = (size_t)(p - key);
        while (is_space(*p))
            p++;
        if (*p != '=') {
            /* Not a keyword libpq would accept: the rest as it is, but
             * for a password keyword, whose value might follow. */
            if (is_secret_key(key, key_len)) {
                put(o, start, (size_t)(key - start) + key_len);
                put(o, " " MASK, strlen(MASK) + 1);
                return;
            }
            put(o, start, strlen(start));
            return;
        }
        p++;
        while (is_space(*p))
            p++;
        const char *end = value_end(p);
        put(o, start, (size_t)(p - start));
        if (is_secret_key(key, key_len))
            put(o, MASK, strlen(MASK));
        else
            put(o, p, (size_t)(end - p));
        p = end;
    }
}

const char *sc_redact_db(const char *db, char *out, size_t len)
{
    out_buf o = {out, len, 0};
    if (len)
        out[0] = '\0';
    if (!db)
        return out;
    if (!sc_store_db_is_postgresql(db)) {
        put(&o, db, strlen(db));
        return out;
    }
    if (strncmp(db, "postgresql://", 13) == 0)
        redact_uri(db, 13, &o);
    else if (strncmp(db, "postgres://", 11) == 0)
        redact_uri(db, 11, &o);
    else if (strncmp(db + 9, "postgresql://", 13) == 0 || strncmp(db + 9, "postgres://", 11) == 0)
        /* postgres: before a URI: the URI's own rules. */
        redact_uri(db, 9 + (db[17] == 'q' ? 13 : 11), &o);
    else
        redact_keywords(db, strlen("postgres:"), &o);
    return out;
}
