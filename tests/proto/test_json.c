/* sc_jdoc: the flat token parser (the strict error cases are in test_rpc). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_json.h"
#include "sc_rpc.h"

/* Parse from an exact-size heap copy that is freed right away: reading
 * past the end, or holding on to the caller's bytes, is caught. */
static int parse_n(sc_jdoc *d, const char *text, size_t len, sc_rpc_error *err)
{
    char *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, text, len);
    int rc = sc_jdoc_parse(d, copy, len, err);
    memset(copy, 'X', len);
    free(copy);
    return rc;
}

static sc_jval parse_ok(sc_jdoc *d, const char *text)
{
    sc_rpc_error err = {0};
    if (parse_n(d, text, strlen(text), &err) != 0)
        fail_msg("'%s' rejected: %s", text, err.message);
    return sc_jdoc_root(d);
}

static sc_jval get(sc_jval obj, const char *key)
{
    return sc_jval_get(obj, key, strlen(key));
}

static sc_jval at(sc_jval arr, uint32_t n)
{
    sc_jval e = sc_jval_first(arr);
    while (n-- && e.doc)
        e = sc_jval_next(arr, e);
    return e;
}

static const char *echo(sc_buf *b, sc_jval v)
{
    sc_buf_reset(b);
    sc_jval_write(b, v);
    sc_buf_putc(b, '\0');
    assert_false(sc_buf_failed(b));
    return b->data;
}

/* Every container's children, stepped over with `end`, land exactly on
 * its own end, and their number is its count. */
static void check_structure(const sc_jdoc *d, uint32_t i)
{
    const sc_jtok *t = &d->tok[i];
    assert_true(t->end > i && t->end <= d->ntok);
    if (t->type != SC_JARRAY && t->type != SC_JOBJECT) {
        assert_int_equal(t->end, i + 1);
        return;
    }
    uint32_t n = 0;
    uint32_t k = i + 1;
    while (k < t->end) {
        if (t->type == SC_JOBJECT) {
            assert_int_equal(d->tok[k].type, SC_JSTRING);
            check_structure(d, k);
            k++;
        }
        check_structure(d, k);
        k = d->tok[k].end;
        n++;
    }
    assert_int_equal(k, t->end);
    assert_int_equal(n, t->u.c.count);
}

static void test_tokens_and_skips(void **state)
{
    (void)state;
    sc_jdoc d;
    sc_jdoc_init(&d);
    sc_jval root = parse_ok(&d, "{\"a\":[1,[2,[3,4]],{\"b\":{}},[]],\"c\":\"x\",\"d\":null}");
    assert_int_equal(d.ntok, 17);
    check_structure(&d, 0);
    assert_int_equal(sc_jval_type(root), SC_JOBJECT);
    assert_int_equal(sc_jval_count(root), 3);
    assert_int_equal(sc_jval_tok(root)->end, d.ntok);

    /* The array's elements by skipping, not by walking the subtrees. */
    sc_jval a = get(root, "a");
    assert_int_equal(sc_jval_count(a), 4);
    sc_jval e = sc_jval_first(a);
    assert_int_equal(e.i, a.i + 1);
    e = sc_jval_next(a, e);
    assert_int_equal(sc_jval_type(e), SC_JARRAY);
    assert_int_equal(sc_jval_tok(e)->end, e.i + 5); /* [2,[3,4]] is 5 tokens */
    e = sc_jval_next(a, e);
    assert_int_equal(sc_jval_type(e), SC_JOBJECT);
    e = sc_jval_next(a, e);
    assert_int_equal(sc_jval_count(e), 0);
    assert_null(sc_jval_first(e).doc);
    assert_null(sc_jval_next(a, e).doc);
    assert_true(sc_jval_is(get(root, "d"), SC_JNULL));

    /* Scalars and "none" answer the accessors without crashing. */
    assert_int_equal(sc_jval_type(SC_JVAL_NONE), SC_JNONE);
    assert_int_equal(sc_jval_count(get(root, "c")), 0);
    assert_null(sc_jval_first(get(root, "c")).doc);
    assert_null(sc_jval_first(root).doc); /* objects are not iterated as arrays */
    assert_null(sc_jval_str(a, NULL));
    assert_true(sc_jval_double(get(root, "c")) == 0);

    /* A long flat array: 3 tokens a pair, each pair skipped in one step. */
    enum { PAIRS = 5000 };
    char *text = malloc(PAIRS * 24 + 8);
    assert_non_null(text);
    size_t len = 0;
    text[len++] = '[';
    for (int i = 0; i < PAIRS; i++)
        len += (size_t)sprintf(text + len, "%s[%d,%d]", i ? "," : "", i, 2 * i + 1);
    text[len++] = ']';
    sc_rpc_error err;
    assert_int_equal(parse_n(&d, text, len, &err), 0);
    free(text);
    root = sc_jdoc_root(&d);
    assert_int_equal(d.ntok, 1 + 3 * PAIRS);
    check_structure(&d, 0);
    int i = 0;
    for (sc_jval p = sc_jval_first(root); p.doc; p = sc_jval_next(root, p), i++) {
        int64_t x, y;
        assert_int_equal(sc_jval_count(p), 2);
        assert_true(sc_jval_int(at(p, 0), &x) && x == i);
        assert_true(sc_jval_int(at(p, 1), &y) && y == 2 * i + 1);
    }
    assert_int_equal(i, PAIRS);
    sc_jdoc_free(&d);
}

static void test_strings_unescaped(void **state)
{
    (void)state;
    sc_jdoc d;
    sc_jdoc_init(&d);
    sc_jval root = parse_ok(&d, "[\"plain\",\"a\\nb\",\"\\u00e9\\uD83D\\uDE00\\/\\\"\\\\\","
                                "\"\\tx\\u0041yz0123456789abcdefghij\",\"\",\"k\\u0041\"]");
    size_t len = 99;
    const char *s = sc_jval_str(at(root, 0), &len);
    assert_int_equal(len, 5);
    assert_string_equal(s, "plain");
    /* Without escapes the bytes stay where they were in the copied line. */
    assert_ptr_equal(s, d.text + 2);
    s = sc_jval_str(at(root, 1), &len);
    assert_int_equal(len, 3);
    assert_memory_equal(s, "a\nb", 4); /* NUL included */
    s = sc_jval_str(at(root, 2), &len);
    assert_int_equal(len, 2 + 4 + 3);
    assert_memory_equal(s, "\xc3\xa9\xf0\x9f\x98\x80/\"\\", len + 1);
    /* Plain runs after an escape move down intact. */
    s = sc_jval_str(at(root, 3), &len);
    assert_string_equal(s, "\txAyz0123456789abcdefghij");
    assert_int_equal(len, strlen(s));
    s = sc_jval_str(at(root, 4), &len);
    assert_int_equal(len, 0);
    assert_string_equal(s, "");
    assert_string_equal(sc_jval_str(at(root, 5), NULL), "kA");

    /* Escapes at every alignment around the 8-byte fast path. */
    for (size_t pad = 0; pad < 20; pad++) {
        char text[128], want[128];
        int n = snprintf(text, sizeof text, "\"%.*s\\n%.*s\\u20ac%.*s\"", (int)pad,
                         "ppppppppppppppppppppp", (int)(pad % 9), "qqqqqqqqq", (int)pad,
                         "rrrrrrrrrrrrrrrrrrrrr");
        snprintf(want, sizeof want, "%.*s\n%.*s\xe2\x82\xac%.*s", (int)pad, "ppppppppppppppppppppp",
                 (int)(pad % 9), "qqqqqqqqq", (int)pad, "rrrrrrrrrrrrrrrrrrrrr");
        sc_rpc_error err;
        assert_int_equal(parse_n(&d, text, (size_t)n, &err), 0);
        s = sc_jval_str(sc_jdoc_root(&d), &len);
        assert_string_equal(s, want);
        assert_int_equal(len, strlen(want));
    }
    sc_jdoc_free(&d);
}

typedef struct {
    const char *text;
    bool is_int;
    int64_t i;  /* when is_int */
    double dbl; /* otherwise */
} num_case;

static void test_number_classes(void **state)
{
    (void)state;
    const double exact = 9007199254740992.0;
    const num_case cases[] = {
        {"0", true, 0, 0},
        {"-0", true, 0, 0},
        {"-0.0", true, 0, 0},
        {"7", true, 7, 0},
        {"-42", true, -42, 0},
        {"4294967295", true, 4294967295LL, 0},
        {"9007199254740991", true, 9007199254740991LL, 0},
        {"9007199254740992", true, 9007199254740992LL, 0},
        {"-9007199254740992", true, -9007199254740992LL, 0},
        /* Just past 2^53: not an exact integer, kept off 2^53 itself. */
        {"9007199254740993", false, 0, exact + 2},
        {"-9007199254740993", false, 0, -(exact + 2)},
        {"9007199254740994", false, 0, exact + 2},
        {"9007199254740992.5", false, 0, exact + 2},
        /* Fraction or exponent whose exact value is whole. */
        {"1e3", true, 1000, 0},
        {"1E+2", true, 100, 0},
        {"2.0", true, 2, 0},
        {"2.50e1", true, 25, 0},
        {"1.5e1", true, 15, 0},
        {"120e-1", true, 12, 0},
        {"1000000e-6", true, 1, 0},
        {"0e-99999999", true, 0, 0},
        {"0.000e999999", true, 0, 0},
        {"0.9007199254740992e16", true, 9007199254740992LL, 0},
        {"9007199254740992.000", true, 9007199254740992LL, 0},
        /* Fractions that round to an integral double stay fractions: the
         * literal decides, not the rounding. */
        {"1.0000000000000001", false, 0, 1},
        {"0.99999999999999999", false, 0, 1},
        {"9007199254740991.5", false, 0, exact}, /* rounds to even: 2^53 */
        {"-9007199254740991.5", false, 0, -exact},
        {"4294967295.0000000001", false, 0, 4294967295.0},
        {"125e-1", false, 0, 12.5},
        {"9999999999999999e-16", false, 0, 0.9999999999999999},
        {"1e-999", false, 0, 0},
        {"-1e-999", false, 0, 0},
        /* Not integers, or beyond 2^53. */
        {"1.5", false, 0, 1.5},
        {"-0.5", false, 0, -0.5},
        {"2.5e-3", false, 0, 2.5e-3},
        {"1e300", false, 0, 1e300},
        {"1234567890123456789", false, 0, 1234567890123456789.0},
        {"9999999999999999999", false, 0, 9999999999999999999.0},
        {"18446744073709551616", false, 0, 18446744073709551616.0},
        {"-123456789012345678901234567890", false, 0, -123456789012345678901234567890.0},
    };
    sc_jdoc d;
    sc_jdoc_init(&d);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char text[96];
        snprintf(text, sizeof text, "[%s]", cases[k].text);
        sc_jval v = at(parse_ok(&d, text), 0);
        assert_int_equal(sc_jval_type(v), SC_JNUMBER);
        int64_t i = -1;
        bool is_int = sc_jval_int(v, &i);
        if (is_int != cases[k].is_int)
            fail_msg("%s: integer %d, want %d", cases[k].text, is_int, cases[k].is_int);
        if (is_int && i != cases[k].i)
            fail_msg("%s: %lld, want %lld", cases[k].text, (long long)i, (long long)cases[k].i);
        double want = is_int ? (double)cases[k].i : cases[k].dbl;
        if (sc_jval_double(v) != want)
            fail_msg("%s: %.17g, want %.17g", cases[k].text, sc_jval_double(v), want);
    }
    /* Not numbers. */
    int64_t i = 5;
    assert_false(sc_jval_int(at(parse_ok(&d, "[\"1\",true,null]"), 0), &i));
    assert_false(sc_jval_int(SC_JVAL_NONE, &i));
    assert_int_equal(i, 5);
    sc_jdoc_free(&d);
}

static void test_member_lookup(void **state)
{
    (void)state;
    sc_jdoc d;
    sc_jdoc_init(&d);
    sc_jval root = parse_ok(
        &d, "{\"a\":1,\"ab\":2,\"abc\":{\"a\":3},\"\":4,\"\\u00e9\":5,\"x\\ny\":6,\"n\":null}");
    int64_t v = 0;
    assert_true(sc_jval_int(get(root, "a"), &v) && v == 1);
    assert_true(sc_jval_int(get(root, "ab"), &v) && v == 2);
    assert_true(sc_jval_is(get(root, "abc"), SC_JOBJECT));
    assert_true(sc_jval_int(get(get(root, "abc"), "a"), &v) && v == 3);
    assert_true(sc_jval_int(get(root, ""), &v) && v == 4);
    assert_true(sc_jval_int(get(root, "\xc3\xa9"), &v) && v == 5);
    assert_true(sc_jval_int(get(root, "x\ny"), &v) && v == 6);
    assert_true(sc_jval_is(get(root, "n"), SC_JNULL)); /* present, null */
    assert_null(get(root, "b").doc);
    assert_null(get(root, "abcd").doc);
    assert_null(get(root, "A").doc);
    /* The length decides, not a NUL. */
    assert_true(sc_jval_int(sc_jval_get(root, "ab", 1), &v) && v == 1);
    assert_true(sc_jval_int(sc_jval_get(root, "abc", 2), &v) && v == 2);
    /* Not an object: nothing to find. */
    assert_null(get(get(root, "a"), "a").doc);
    assert_null(get(SC_JVAL_NONE, "a").doc);
    assert_null(get(parse_ok(&d, "[\"a\",1]"), "a").doc);
    /* Repeated names: the first. */
    root = parse_ok(&d, "{\"k\":1,\"k\":2}");
    assert_true(sc_jval_int(get(root, "k"), &v) && v == 1);
    sc_jdoc_free(&d);
}

static const char *dup_name(sc_jval v)
{
    uint32_t k = sc_jdoc_find_dup(v);
    if (k == 0)
        return NULL;
    assert_int_not_equal(k, SC_JDUP_OOM);
    return sc_jval_str((sc_jval){v.doc, k}, NULL);
}

static void test_duplicates(void **state)
{
    (void)state;
    sc_jdoc d;
    sc_jdoc_init(&d);
    assert_null(dup_name(parse_ok(&d, "{\"a\":1,\"b\":{\"a\":1},\"c\":[{\"a\":1,\"b\":2}]}")));
    assert_null(dup_name(parse_ok(&d, "[1,\"x\",{}]")));
    assert_null(dup_name(SC_JVAL_NONE));
    /* Small objects: the first name that occurs again. */
    assert_string_equal(dup_name(parse_ok(&d, "{\"z\":1,\"a\":1,\"z\":2,\"a\":2}")), "z");
    /* Names compare after unescaping. */
    assert_string_equal(dup_name(parse_ok(&d, "{\"kA\":1,\"k\\u0041\":2}")), "kA");
    /* An object before the objects inside it; siblings in order. */
    sc_jval root =
        parse_ok(&d, "{\"p\":[{\"q\":1,\"q\":2},{\"r\":1,\"r\":1}],\"s\":{\"t\":1,\"t\":1}}");
    assert_string_equal(dup_name(root), "q");
    assert_string_equal(dup_name(get(root, "s")), "t");
    assert_string_equal(dup_name(at(get(root, "p"), 1)), "r");
    root = parse_ok(&d, "{\"p\":{\"q\":1,\"q\":2},\"p\":0}");
    assert_string_equal(dup_name(root), "p");
    /* Only containers holding a repeat are flagged. */
    root = parse_ok(&d, "[[1,2],[{\"a\":0,\"a\":0}],{\"b\":[]}]");
    assert_true(sc_jval_tok(root)->flags & SC_JTOK_DUP);
    assert_false(sc_jval_tok(at(root, 0))->flags & SC_JTOK_DUP);
    assert_true(sc_jval_tok(at(root, 1))->flags & SC_JTOK_DUP);
    assert_false(sc_jval_tok(at(root, 2))->flags & SC_JTOK_DUP);

    char text[8192];
    /* Small objects (16 members at most, compared pairwise): a repeat is
     * found wherever it sits, among names whose hints clash or not, and
     * 16 distinct names, a request's usual shape, report none. */
    for (int rep = -1; rep < 16; rep++) {
        size_t n = (size_t)snprintf(text, sizeof text, "{");
        for (int i = 0; i < 16; i++) {
            int name = rep >= 0 && i == 15 ? rep : i;
            n += (size_t)snprintf(text + n, sizeof text - n, "%s\"n%02d\":%d", i ? "," : "", name,
                                  i);
        }
        snprintf(text + n, sizeof text - n, "}");
        const char *got = dup_name(parse_ok(&d, text));
        char want[8];
        snprintf(want, sizeof want, "n%02d", rep);
        if (rep < 0 || rep == 15 ? got != NULL : !got || strcmp(got, want) != 0)
            fail_msg("repeat of n%02d: %s", rep, got ? got : "(none)");
    }

    /* Large objects: the smallest repeated name in byte order. */
    for (int variant = 0; variant < 3; variant++) {
        size_t len = (size_t)snprintf(text, sizeof text, "{");
        for (int i = 0; i < 300; i++)
            len +=
                (size_t)snprintf(text + len, sizeof text - len, "%s\"k%d\":%d", i ? "," : "", i, i);
        if (variant >= 1)
            len += (size_t)snprintf(text + len, sizeof text - len, ",\"k5\":0,\"k40\":1");
        if (variant == 2)
            len += (size_t)snprintf(text + len, sizeof text - len, ",\"k1\":0");
        snprintf(text + len, sizeof text - len, "}");
        /* Not the first repeated in member order (k5), the smallest. */
        const char *want[] = {NULL, "k40", "k1"};
        const char *got = dup_name(parse_ok(&d, text));
        if (want[variant] ? !got || strcmp(got, want[variant]) != 0 : got != NULL)
            fail_msg("variant %d: %s", variant, got ? got : "(none)");
    }
    /* Prefixes order before longer names. */
    size_t len = (size_t)snprintf(text, sizeof text, "{\"ab\":0,\"ab\":0,\"a\":0,\"a\":0");
    for (int i = 0; i < 20; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, ",\"m%d\":0", i);
    snprintf(text + len, sizeof text - len, "}");
    assert_string_equal(dup_name(parse_ok(&d, text)), "a");
    sc_jdoc_free(&d);
}

static void test_write_values(void **state)
{
    (void)state;
    sc_jdoc d;
    sc_jdoc_init(&d);
    sc_buf b = SC_BUF_INIT;
    assert_string_equal(echo(&b, SC_JVAL_NONE), "null");
    sc_jval root =
        parse_ok(&d, "{\"a\": [1, -2, 0, -0, 1e3, 9007199254740992, -9007199254740992,"
                     " true, false, null, {}, []], \"b\\n\": {\"c\": \"x\\u0001\\\"\"}}");
    assert_string_equal(echo(&b, root),
                        "{\"a\":[1,-2,0,0,1000,9007199254740992,-9007199254740992,true,false,"
                        "null,{},[]],\"b\\n\":{\"c\":\"x\\u0001\\\"\"}}");
    assert_string_equal(echo(&b, get(root, "b\n")), "{\"c\":\"x\\u0001\\\"\"}");

    /* Non-integral or beyond 2^53: %.17g, which reads back exactly. */
    const double cases[] = {
        1.5, 0.1, -2.25e-7, 1e300, 9007199254740994.0, -1.7976931348623157e308, 5e-324};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[64];
        snprintf(text, sizeof text, "%.17g", cases[i]);
        const char *got = echo(&b, parse_ok(&d, text));
        assert_string_equal(got, text);
        assert_true(strtod(got, NULL) == cases[i]);
    }
    assert_string_equal(echo(&b, parse_ok(&d, "\"id-\xc3\xa9\"")), "\"id-\xc3\xa9\"");
    sc_buf_free(&b);
    sc_jdoc_free(&d);
}

/* One document, many lines: after the largest line nothing is allocated. */
static void test_reuse_without_growth(void **state)
{
    (void)state;
    sc_jdoc d;
    sc_jdoc_init(&d);
    char big[4096];
    size_t len = (size_t)snprintf(big, sizeof big, "{\"jsonrpc\":\"2.0\",\"id\":1,\"params\":{");
    for (int i = 0; i < 40; i++)
        len += (size_t)snprintf(big + len, sizeof big - len, "%s\"p%d\":[%d,\"s\\n%d\"]",
                                i ? "," : "", i, i, i);
    snprintf(big + len, sizeof big - len, "}}");
    parse_ok(&d, big);
    const char *text = d.text;
    const sc_jtok *tok = d.tok;
    const uint32_t *slots = d.slots;
    size_t text_cap = d.text_cap;
    uint32_t tok_cap = d.tok_cap, slot_cap = d.slot_cap;
    assert_non_null(slots); /* the 40-member object used the hash table */

    const char *lines[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"capture.record_kernel\",\"params\":{"
        "\"session\":1,\"stream\":0,\"function_name\":\"k\",\"num_blocks\":1,"
        "\"threads_per_block\":32}}",
        "[1,2,[3,4]]",
        "\"\\u00e9\"",
        "{\"a\":1,\"a\":2}",
        "{\"bad\":",
        "1e999",
        "[]",
    };
    sc_rpc_error err;
    for (int round = 0; round < 1000; round++) {
        const char *line = round % 10 == 0 ? big : lines[round % 7];
        int rc = parse_n(&d, line, strlen(line), &err);
        assert_int_equal(rc != 0, line == lines[4] || line == lines[5]);
        if (rc == 0)
            check_structure(&d, 0);
    }
    assert_ptr_equal(d.text, text);
    assert_ptr_equal(d.tok, tok);
    assert_ptr_equal(d.slots, slots);
    assert_int_equal(d.text_cap, text_cap);
    assert_int_equal(d.tok_cap, tok_cap);
    assert_int_equal(d.slot_cap, slot_cap);

    /* Free returns to the empty state, and the document works again. */
    sc_jdoc_free(&d);
    assert_null(d.text);
    assert_null(d.tok);
    assert_int_equal(d.ntok, 0);
    int64_t v = 0;
    assert_true(sc_jval_int(get(parse_ok(&d, lines[0]), "id"), &v) && v == 7);
    sc_jdoc_free(&d);

    /* A zeroed struct is a valid empty document. */
    sc_jdoc z;
    memset(&z, 0, sizeof z);
    assert_true(sc_jval_is(parse_ok(&z, "[]"), SC_JARRAY));
    sc_jdoc_free(&z);
}

/* Text from outside (the database) made valid: one U+FFFD per ill-formed
 * part, valid text untouched, and the result passes the parser's check. */
static void test_utf8_scrub(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"plain \xe2\x9c\x93", "plain \xe2\x9c\x93"},
        {"a\x80z", "a\xef\xbf\xbdz"},                             /* stray continuation */
        {"a\xe2\x82z", "a\xef\xbf\xbdz"},                         /* truncated: one U+FFFD */
        {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"},                 /* overlong: two bad bytes */
        {"\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"}, /* surrogate */
        {"\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
        {"\xf0\x9f\x98", "\xef\xbf\xbd"}, /* truncated at the end */
        {"\xff", "\xef\xbf\xbd"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n = strlen(cases[i].in);
        char out[64];
        assert_int_equal(sc_utf8_valid(cases[i].in, n), strcmp(cases[i].in, cases[i].out) == 0);
        size_t w = sc_utf8_scrub(cases[i].in, n, out);
        assert_true(w <= 3 * n);
        out[w] = '\0';
        assert_string_equal(out, cases[i].out);
        assert_true(sc_utf8_valid(out, w));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tokens_and_skips),     cmocka_unit_test(test_strings_unescaped),
        cmocka_unit_test(test_number_classes),       cmocka_unit_test(test_member_lookup),
        cmocka_unit_test(test_duplicates),           cmocka_unit_test(test_write_values),
        cmocka_unit_test(test_reuse_without_growth), cmocka_unit_test(test_utf8_scrub),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
