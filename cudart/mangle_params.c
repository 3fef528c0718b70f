/*
 * mangle_params.c - a reader of Itanium C++ ABI mangled function names
 * that keeps only what the stand-in needs: per top-level parameter,
 * whether it is a pointer or reference to const.
 *
 * It is a recursive-descent parser of the ABI's grammar (names, nested
 * names, local names, template arguments and packs, the type grammar),
 * which builds no strings: each type is reduced to a few bits (const
 * qualified; a pointer or reference; one to const).  What it must get
 * right is the numbering of substitution candidates (S_, S0_, ...) and
 * template parameters (T_, T0_, ...), since CUB's and Thrust's kernels
 * name most parameters through them (`vPKT1_PSB_`): a reference resolves
 * to the bits of the entry it names, so `PKT_` with T = float and `S3_`
 * standing for it both read as pointers to const.
 *
 * Anything it does not follow (expressions in template arguments,
 * decltype) fails the whole name, and the caller then assumes the worst
 * (every pointer written).  Limits on candidates, arguments and nesting
 * depth keep a hostile name from costing more than a bounded walk.
 */
#define _POSIX_C_SOURCE 200809L
#include "mangle_params.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SUBS_MAX  1024
#define TARGS_MAX 128
#define PACKS_MAX 256
#define DEPTH_MAX 96

/* A type's bits. */
enum {
    T_CONST = 1,  /* cv-qualified const at the top */
    T_REF = 2,    /* a pointer or a reference */
    T_RO = 4,     /* ... whose pointee is const */
    T_PACK = 8,   /* exactly a template parameter that is a pack */
    T_ISREF = 16, /* a reference (T_REF), not a pointer: collapses */
    T_FWD = 32,   /* R or O of a pack's element: collapses per element */
};

typedef struct mcls {
    uint8_t f;
    int16_t pack; /* the kept template argument of a pack it names, or -1 */
} mcls;

/* A template argument of the function's name: a type's bits, or a pack
 * of n of them at packs[at]. */
typedef struct targ {
    mcls c;
    bool is_pack;
    uint16_t at, n;
} targ;

typedef struct mp {
    const char *s;
    int err;
    int depth;
    mcls subs[SUBS_MAX];
    size_t nsubs;
    targ targs[TARGS_MAX]; /* the last template arguments of the function's name */
    size_t ntargs;
    mcls packs[PACKS_MAX];
    size_t npacks;
    int last_pack; /* the last pack argument a T_ named, or -1 */
} mp;

static const mcls NONE = {0, -1};

static void fail(mp *m, int err)
{
    if (m->err == 0)
        m->err = err;
}

static bool eat(mp *m, char c)
{
    if (*m->s != c) {
        fail(m, -EINVAL);
        return false;
    }
    m->s++;
    return true;
}

static void push(mp *m, mcls c)
{
    if (m->nsubs == SUBS_MAX) {
        fail(m, -E2BIG);
        return;
    }
    m->subs[m->nsubs++] = c;
}

static size_t number(mp *m)
{
    if (*m->s < '0' || *m->s > '9') {
        fail(m, -EINVAL);
        return 0;
    }
    size_t v = 0;
    while (*m->s >= '0' && *m->s <= '9') {
        if (v > 100000)
            fail(m, -E2BIG);
        v = v * 10 + (size_t)(*m->s++ - '0');
    }
    return v;
}

/* <source-name>: a length and that many characters (none a NUL). */
static void source_name(mp *m)
{
    size_t n = number(m);
    if (m->err)
        return;
    if (n == 0 || strnlen(m->s, n) < n) {
        fail(m, -EINVAL);
        return;
    }
    m->s += n;
}

/* [<number>] _ : the discriminators and indexes of the grammar. */
static void opt_number_(mp *m)
{
    if (*m->s >= '0' && *m->s <= '9')
        (void)number(m);
    eat(m, '_');
}

static mcls type(mp *m);
static void name(mp *m, bool keep, bool as_type, bool *tmpl);
static void encoding(mp *m, bool top, bool *ro, size_t max, size_t *n);

/* S_, S<seq-id>_ (base 36) and the std abbreviations Sa Sb Ss Si So Sd;
 * the 'S' is next.  A reference gives what it names. */
static mcls substitution(mp *m)
{
    m->s++;
    char c = *m->s;
    if (c && strchr("absiod", c)) {
        m->s++;
        return NONE;
    }
    size_t idx = 0;
    if (c != '_') {
        size_t v = 0;
        for (; (*m->s >= '0' && *m->s <= '9') || (*m->s >= 'A' && *m->s <= 'Z'); m->s++) {
            if (v > SUBS_MAX)
                break;
            v = v * 36 + (size_t)(*m->s <= '9' ? *m->s - '0' : *m->s - 'A' + 10);
        }
        idx = v + 1;
    }
    if (!eat(m, '_'))
        return NONE;
    if (idx >= m->nsubs) {
        fail(m, -EINVAL);
        return NONE;
    }
    return m->subs[idx];
}

/* T_, T<n>_: the bits of the function's template argument it names. */
static mcls template_param(mp *m)
{
    m->s++;
    size_t idx = 0;
    if (*m->s != '_')
        idx = number(m) + 1;
    if (!eat(m, '_'))
        return NONE;
    if (idx >= m->ntargs)
        return NONE; /* a class's argument, or one of a nested scope */
    const targ *t = &m->targs[idx];
    if (t->is_pack)
        m->last_pack = (int)idx;
    if (t->is_pack)
        return (mcls){T_PACK, (int16_t)idx};
    return (mcls){(uint8_t)(t->c.f & ~T_PACK), -1};
}

/* One template argument (not a pack): a type, or a literal L...E. */
static mcls targ_one(mp *m)
{
    if (*m->s == 'X') {
        fail(m, -EINVAL); /* an expression */
        return NONE;
    }
    if (*m->s != 'L')
        return type(m);
    m->s++;
    if (m->s[0] == '_' && m->s[1] == 'Z') {
        m->s += 2;
        encoding(m, false, NULL, 0, NULL);
    } else {
        (void)type(m);
        while (*m->s && *m->s != 'E')
            m->s++; /* the value: digits, n, hex of a float */
    }
    eat(m, 'E');
    return NONE;
}

/* The arguments of <template-args> up to its E, into got and packs when
 * they are not NULL (room for TARGS_MAX and PACKS_MAX). */
static void args_loop(mp *m, targ *got, size_t *n, mcls *packs, size_t *np)
{
    while (*m->s != 'E' && !m->err) {
        if (!*m->s) {
            fail(m, -EINVAL);
            return;
        }
        targ t = {NONE, false, (uint16_t)*np, 0};
        if (*m->s == 'J') {
            m->s++;
            t.is_pack = true;
            while (*m->s != 'E' && !m->err) {
                if (!*m->s || *m->s == 'J') {
                    fail(m, -EINVAL);
                    return;
                }
                mcls e = targ_one(m);
                if (*np == PACKS_MAX) {
                    fail(m, -E2BIG);
                    return;
                }
                if (packs)
                    packs[*np] = e;
                (*np)++;
                t.n++;
            }
            eat(m, 'E');
        } else {
            t.c = targ_one(m);
        }
        if (*n == TARGS_MAX) {
            fail(m, -E2BIG);
            return;
        }
        if (got)
            got[*n] = t;
        (*n)++;
    }
    eat(m, 'E');
}

/* <template-args>, the 'I' next.  With keep, they become the arguments
 * T_ and its kind name (the function's own, the last list of its name);
 * only the function's own name keeps, so one frame at a time holds the
 * arrays. */
static void template_args(mp *m, bool keep)
{
    size_t n = 0, np = 0;
    m->s++;
    if (!keep) {
        args_loop(m, NULL, &n, NULL, &np);
        return;
    }
    targ got[TARGS_MAX];
    mcls packs[PACKS_MAX];
    args_loop(m, got, &n, packs, &np);
    if (m->err)
        return;
    memcpy(m->targs, got, n * sizeof *got);
    memcpy(m->packs, packs, np * sizeof *packs);
    m->ntargs = n;
    m->npacks = np;
}

static void abi_tags(mp *m)
{
    while (*m->s == 'B' && !m->err) {
        m->s++;
        source_name(m);
    }
}

static bool lower(char c)
{
    return c >= 'a' && c <= 'z';
}

/* <unqualified-name>: a source name, a constructor or destructor, an
 * unnamed or closure type, an operator; then any ABI tags.  True for a
 * constructor, destructor or conversion, whose template has no return
 * type in its encoding. */
static bool unqualified(mp *m)
{
    bool ctor = false;
    const char *s = m->s;
    if (*s == 'L') /* internal linkage */
        s = ++m->s;
    if (*s >= '0' && *s <= '9') {
        source_name(m);
    } else if (s[0] == 'C' && ((s[1] >= '1' && s[1] <= '5') || s[1] == 'I')) {
        m->s += s[1] == 'I' ? 3 : 2;
        if (s[1] == 'I')
            (void)type(m);
        ctor = true;
    } else if (s[0] == 'D' && s[1] >= '0' && s[1] <= '5') {
        m->s += 2;
        ctor = true;
    } else if (s[0] == 'U' && s[1] == 't') {
        m->s += 2;
        opt_number_(m);
    } else if (s[0] == 'U' && s[1] == 'l') {
        m->s += 2;
        if (*m->s == 'v' && m->s[1] == 'E')
            m->s++;
        while (*m->s != 'E' && !m->err) {
            if (!*m->s || *m->s == 'T') { /* a template lambda's parameters */
                fail(m, -EINVAL);
                return false;
            }
            (void)type(m);
        }
        m->s++;
        opt_number_(m);
    } else if (lower(s[0]) && ((s[1] >= 'a' && s[1] <= 'z') || (s[1] >= 'A' && s[1] <= 'Z'))) {
        /* an operator: nw, pl, aS, pL, cv <type>, li <name> */
        m->s += 2;
        ctor = s[0] == 'c' && s[1] == 'v';
        if (ctor)
            (void)type(m);
        else if (s[0] == 'l' && s[1] == 'i')
            source_name(m);
    } else if (s[0] == 'v' && s[1] >= '0' && s[1] <= '9') {
        m->s += 2;
        source_name(m);
    } else {
        fail(m, -EINVAL);
        return false;
    }
    abi_tags(m);
    return ctor;
}

/* N [CV] [ref] <prefix> <unqualified-name> E: each proper prefix is a
 * candidate (pushed when the next component is met), a template prefix
 * before its arguments too, and the whole name when it is a type. */
static void nested(mp *m, bool keep, bool as_type, bool *tmpl)
{
    m->s++;
    while (*m->s && strchr("rVK", *m->s))
        m->s++;
    if (*m->s == 'R' || *m->s == 'O')
        m->s++;
    bool pending = false, any = false, ctor = false;
    while (*m->s != 'E' && !m->err) {
        const char *s = m->s;
        if (!*s) {
            fail(m, -EINVAL);
            return;
        }
        if (s[0] == 'S' && s[1] == 't') {
            m->s += 2; /* std:: is no candidate of its own */
            continue;
        }
        if (*s == 'M') {
            m->s++;
            continue;
        }
        if (*s == 'I') {
            if (!any) {
                fail(m, -EINVAL);
                return;
            }
            if (pending)
                push(m, NONE);
            template_args(m, keep);
            pending = true;
            *tmpl = !ctor;
            continue;
        }
        if (pending)
            push(m, NONE);
        *tmpl = false;
        any = true;
        if (*s == 'S') {
            (void)substitution(m);
            pending = false;
        } else if (*s == 'T' && (s[1] == '_' || (s[1] >= '0' && s[1] <= '9'))) {
            (void)template_param(m);
            push(m, NONE);
            pending = false;
        } else if (*s == 'D' && (s[1] == 't' || s[1] == 'T')) {
            fail(m, -EINVAL);
        } else {
            ctor = unqualified(m);
            pending = true;
        }
    }
    m->s++;
    if (pending && as_type)
        push(m, NONE);
}

/* [_ <digit>] or [__ <number> _] after a local name. */
static void discriminator(mp *m)
{
    if (m->s[0] != '_')
        return;
    if (m->s[1] >= '0' && m->s[1] <= '9') {
        m->s += 2;
    } else if (m->s[1] == '_') {
        m->s += 2;
        (void)number(m);
        eat(m, '_');
    }
}

/* Z <encoding> E <entity> [<discriminator>] (or s: a string literal). */
static void local(mp *m, bool as_type, bool *tmpl)
{
    m->s++;
    encoding(m, false, NULL, 0, NULL);
    if (!eat(m, 'E'))
        return;
    if (*m->s == 's') {
        m->s++;
        discriminator(m);
        return;
    }
    if (*m->s == 'd') {
        m->s++;
        opt_number_(m);
    }
    name(m, false, false, tmpl);
    discriminator(m);
    if (as_type)
        push(m, NONE);
}

/* <name>: nested, local, or unscoped (std:: or not), a template one with
 * its arguments.  *tmpl: whether it ends in template arguments and is no
 * constructor, destructor or conversion: a function of that name has its
 * return type first in its encoding. */
static void name(mp *m, bool keep, bool as_type, bool *tmpl)
{
    *tmpl = false;
    if (++m->depth > DEPTH_MAX) {
        fail(m, -E2BIG);
        return;
    }
    const char *s = m->s;
    if (*s == 'N') {
        nested(m, keep, as_type, tmpl);
    } else if (*s == 'Z') {
        local(m, as_type, tmpl);
    } else {
        bool ctor = false;
        if (s[0] == 'S' && s[1] == 't') {
            m->s += 2;
            ctor = unqualified(m);
        } else if (s[0] == 'S') {
            (void)substitution(m);
            if (*m->s != 'I')
                fail(m, -EINVAL); /* a bare reference is a type, not a name */
        } else {
            ctor = unqualified(m);
        }
        if (*m->s == 'I') {
            if (s[0] != 'S' || s[1] == 't')
                push(m, NONE); /* the template's name */
            template_args(m, keep);
            *tmpl = !ctor;
        }
        if (as_type)
            push(m, NONE);
    }
    m->depth--;
}

/* CV-qualifiers (r V K, and vendor U ones) and the type they qualify. */
static mcls qualified(mp *m)
{
    bool is_const = false;
    while (*m->s && strchr("rVKU", *m->s) && !m->err) {
        if (*m->s == 'U') {
            m->s++;
            source_name(m);
            if (*m->s == 'I')
                template_args(m, false);
            continue;
        }
        is_const = is_const || *m->s == 'K';
        m->s++;
    }
    mcls t = type(m);
    t.f = (uint8_t)((t.f & ~T_PACK) | (is_const ? T_CONST : 0));
    push(m, t);
    return t;
}

/* F [Y] <return type> <parameter types> [<ref-qualifier>] E */
static void function_type(mp *m)
{
    m->s++;
    if (*m->s == 'Y')
        m->s++;
    (void)type(m);
    while (*m->s != 'E' && !m->err) {
        if (!*m->s) {
            fail(m, -EINVAL);
            return;
        }
        if ((*m->s == 'v' || *m->s == 'R' || *m->s == 'O') && m->s[1] == 'E')
            m->s++;
        else
            (void)type(m);
    }
    m->s++;
    push(m, NONE);
}

/* The D... types: builtins of two letters, pack expansions, vectors. */
static mcls d_type(mp *m)
{
    char c = m->s[1];
    if (c == 'p') {
        m->s += 2;
        return type(m);
    }
    if (c == 'v') {
        m->s += 2;
        (void)number(m);
        eat(m, '_');
        (void)type(m);
        push(m, NONE);
        return NONE;
    }
    if (c == 'F' || c == 'B' || c == 'U') {
        m->s += 2;
        (void)number(m);
        if (*m->s == 'b' || *m->s == 'x')
            m->s++;
        if (*m->s == '_')
            m->s++;
        return NONE;
    }
    if (c && strchr("defhisuacn", c)) {
        m->s += 2;
        return NONE;
    }
    fail(m, -EINVAL); /* decltype, noexcept, ... */
    return NONE;
}

static mcls type(mp *m)
{
    if (++m->depth > DEPTH_MAX) {
        fail(m, -E2BIG);
        return NONE;
    }
    mcls t = NONE;
    const char *s = m->s;
    bool tmpl;
    if (m->err) {
        t = NONE;
    } else if (*s && strchr("vwbcahstijlmxynofdegz", *s)) {
        m->s++;
    } else if (*s == 'u') {
        m->s++;
        source_name(m);
        push(m, NONE);
    } else if (*s == 'r' || *s == 'V' || *s == 'K' || *s == 'U') {
        t = qualified(m);
    } else if (*s == 'P' || *s == 'R' || *s == 'O') {
        m->s++;
        mcls in = type(m);
        t = (mcls){(uint8_t)(T_REF | (in.f & T_CONST ? T_RO : 0)), in.pack};
        if (*s != 'P') {
            t.f |= T_ISREF;
            if (in.f & T_ISREF)
                t.f = in.f; /* a reference to a reference is the inner one */
            else if (in.f & T_PACK)
                t.f |= T_FWD;
        }
        push(m, t);
    } else if (*s == 'C' || *s == 'G') {
        m->s++;
        t.pack = type(m).pack;
        push(m, t);
    } else if (*s == 'F') {
        function_type(m);
    } else if (*s == 'A') {
        m->s++;
        if (*m->s != '_')
            (void)number(m);
        eat(m, '_');
        /* an array of const elements is const: a reference to it reads */
        t.f = type(m).f & T_CONST;
        push(m, t);
    } else if (*s == 'M') {
        m->s++;
        (void)type(m);
        (void)type(m);
        push(m, NONE);
    } else if (*s == 'T' && (s[1] == '_' || (s[1] >= '0' && s[1] <= '9'))) {
        t = template_param(m);
        push(m, t);
        if (*m->s == 'I') {
            template_args(m, false);
            t = NONE;
            push(m, t);
        }
    } else if (*s == 'T' && (s[1] == 's' || s[1] == 'u' || s[1] == 'e')) {
        m->s += 2;
        name(m, false, true, &tmpl);
    } else if (*s == 'S' && s[1] != 't') {
        t = substitution(m);
        if (*m->s == 'I') {
            template_args(m, false);
            t = NONE;
            push(m, t);
        }
    } else if (*s == 'D') {
        t = d_type(m);
    } else if (*s == 'N' || *s == 'Z' || *s == 'S' || *s == 'L' || (*s >= '0' && *s <= '9')) {
        name(m, false, true, &tmpl);
    } else {
        fail(m, -EINVAL);
    }
    m->depth--;
    return t;
}

/* One parameter of the top-level function into ro[*n]: a pack expansion
 * (Dp) gives one per element of the pack it names. */
static void top_param(mp *m, bool *ro, size_t max, size_t *n)
{
    bool expand = m->s[0] == 'D' && m->s[1] == 'p';
    if (expand)
        m->s += 2;
    m->last_pack = -1;
    mcls t = type(m);
    if (m->err)
        return;
    size_t count = 1;
    const targ *pack = NULL;
    if (expand) {
        /* The pack it expands: named at the top (Args*...) or inside a
         * class's arguments (kernel_arg<Args>...). */
        if (t.pack < 0)
            t.pack = (int16_t)m->last_pack;
        if (t.pack < 0 || (size_t)t.pack >= m->ntargs) {
            fail(m, -EINVAL);
            return;
        }
        pack = &m->targs[t.pack];
        count = pack->n;
    }
    if (*n + count > max) {
        fail(m, -E2BIG);
        return;
    }
    for (size_t i = 0; i < count; i++) {
        uint8_t f = t.f;
        uint8_t e = pack ? m->packs[pack->at + i].f : 0;
        if (pack && (t.f & T_PACK))
            f = e;
        else if (pack && (t.f & T_FWD) && (e & T_ISREF))
            f = e; /* Args&&... of references: the references */
        else if (pack && (t.f & T_FWD))
            f = (uint8_t)(T_REF | (e & T_CONST ? T_RO : 0));
        ro[(*n)++] = (f & (T_REF | T_RO)) == (T_REF | T_RO);
    }
}

/* <encoding>: a name and its parameter types (a template's return type
 * first).  With top, the parameters go to ro. */
static void encoding(mp *m, bool top, bool *ro, size_t max, size_t *n)
{
    bool tmpl;
    name(m, top, false, &tmpl);
    if (m->err)
        return;
    const char *end = top ? "." : "E";
    if (!*m->s || strchr(end, *m->s)) {
        if (top)
            fail(m, -EINVAL); /* a variable, not a function */
        return;
    }
    if (tmpl) {
        (void)type(m);
        if (!*m->s || strchr(end, *m->s)) {
            fail(m, -EINVAL); /* a return type and no parameters */
            return;
        }
    }
    if (*m->s == 'v' && (!m->s[1] || strchr(end, m->s[1]))) {
        m->s++;
        return;
    }
    while (*m->s && !strchr(end, *m->s) && !m->err) {
        if (top) {
            top_param(m, ro, max, n);
        } else {
            if (m->s[0] == 'D' && m->s[1] == 'p')
                m->s += 2;
            (void)type(m);
        }
    }
}

int sc_mangle_const_params(const char *mangled, bool *ro, size_t max, size_t *n)
{
    if (!mangled || !n || (max && !ro) || strncmp(mangled, "_Z", 2) != 0)
        return -EINVAL;
    /* Some 50 KiB: on the heap, not on a launching thread's stack. */
    mp *m = calloc(1, sizeof *m);
    if (!m)
        return -ENOMEM;
    m->s = mangled + 2;
    *n = 0;
    encoding(m, true, ro, max, n);
    if (m->err == 0 && *m->s && *m->s != '.')
        m->err = -EINVAL;
    int rc = m->err;
    free(m);
    return rc;
}
