/* sc_rpc: strict parsing, envelope decoding, reply writers, params. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_rpc.h"

/* Parse from an exact-size heap copy, so reading past the end is caught. */
static int parse_n(sc_jdoc *d, const char *text, size_t len, sc_rpc_error *err)
{
    char *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, text, len);
    int rc = sc_jdoc_parse(d, copy, len, err);
    free(copy);
    return rc;
}

static sc_jval parse_ok(sc_jdoc *d, const char *text)
{
    sc_rpc_error err = {0};
    int rc = parse_n(d, text, strlen(text), &err);
    if (rc != 0)
        fail_msg("'%s' rejected: %s", text, err.message);
    assert_true(d->ntok > 0);
    return sc_jdoc_root(d);
}

/* Element n of an array, or none. */
static sc_jval at(sc_jval arr, uint32_t n)
{
    sc_jval e = sc_jval_first(arr);
    while (n-- && e.doc)
        e = sc_jval_next(arr, e);
    return e;
}

static sc_jval member(sc_jval obj, const char *name)
{
    return sc_jval_get(obj, name, strlen(name));
}

static size_t str_len(sc_jval v)
{
    size_t len = 0;
    const char *s = sc_jval_str(v, &len);
    assert_non_null(s);
    assert_int_equal(strlen(s), len);
    return len;
}

static int64_t int_of(sc_jval v)
{
    int64_t i = 0;
    assert_true(sc_jval_int(v, &i));
    return i;
}

static void expect_parse_error(const char *text, size_t len, const char *needle)
{
    sc_jdoc d;
    sc_jdoc_init(&d);
    parse_ok(&d, "[1,2,3]"); /* a failed parse must not leave these tokens */
    sc_rpc_error err = {0};
    int rc = parse_n(&d, text, len, &err);
    if (rc != SC_RPC_PARSE_ERROR)
        fail_msg("accepted: '%.*s'", (int)len, text);
    assert_int_equal(d.ntok, 0);
    sc_jdoc_free(&d);
    assert_int_equal(err.code, SC_RPC_PARSE_ERROR);
    assert_int_equal(strncmp(err.message, "parse error: ", 13), 0);
    if (!strstr(err.message, needle))
        fail_msg("'%.*s': message '%s' lacks '%s'", (int)len, text, err.message, needle);
}

#define PARSE_ERROR(lit, needle) expect_parse_error(lit, sizeof(lit) - 1, needle)

static void test_parse_rejects_malformed(void **state)
{
    (void)state;
    PARSE_ERROR("", "empty message");
    PARSE_ERROR("   ", "unexpected end of input at byte 3");
    PARSE_ERROR("{", "unexpected end of input at byte 1");
    PARSE_ERROR("{\"a\":", "unexpected end of input");
    PARSE_ERROR("[1,2", "unexpected end of input");
    PARSE_ERROR("\"abc", "unterminated string at byte 0");
    PARSE_ERROR("{\"a\":1} x", "trailing characters at byte 8");
    PARSE_ERROR("{} {}", "trailing characters at byte 3");
    PARSE_ERROR("[1,]", "unexpected ']' at byte 3");
    PARSE_ERROR("{\"a\":1,}", "unexpected '}' at byte 7, expected a member name");
    PARSE_ERROR("{'a':1}", "unexpected ''' at byte 1");
    PARSE_ERROR("{a:1}", "expected a member name");
    PARSE_ERROR("[1 2]", "expected ',' or ']'");
    PARSE_ERROR("{\"a\" 1}", "expected ':'");
    PARSE_ERROR("{\"a\":1 \"b\":2}", "expected ',' or '}'");
    PARSE_ERROR("[1}", "expected ',' or ']'");
    PARSE_ERROR("nul", "invalid literal at byte 0");
    PARSE_ERROR("True", "unexpected 'T'");
    PARSE_ERROR("[nulll]", "expected ',' or ']'");
    /* Whitespace is space, tab, CR and LF only. */
    PARSE_ERROR("\x0c{}", "unexpected byte 0x0c at byte 0");
    PARSE_ERROR("{\x01}", "unexpected byte 0x01 at byte 1");
    PARSE_ERROR("{}\x00", "trailing characters at byte 2");
    PARSE_ERROR("\xef\xbb\xbf{}", "unexpected byte 0xef at byte 0");
}

static void test_parse_rejects_bad_numbers(void **state)
{
    (void)state;
    PARSE_ERROR("01", "invalid number at byte 0");
    PARSE_ERROR("-01", "invalid number");
    PARSE_ERROR("1.", "invalid number");
    PARSE_ERROR("[1.e5]", "invalid number at byte 1");
    PARSE_ERROR(".5", "unexpected '.'");
    PARSE_ERROR("+1", "unexpected '+'");
    PARSE_ERROR("-", "invalid number");
    PARSE_ERROR("1e", "invalid number");
    PARSE_ERROR("1e+", "invalid number");
    PARSE_ERROR("1.2.3", "invalid number");
    PARSE_ERROR("0x10", "trailing characters at byte 1");
    PARSE_ERROR("NaN", "unexpected 'N' at byte 0");
    PARSE_ERROR("[Infinity]", "unexpected 'I' at byte 1");
    PARSE_ERROR("-Infinity", "invalid number at byte 0");
    PARSE_ERROR("1e999", "number out of range at byte 0");
    PARSE_ERROR("[1,2,-1e999]", "number out of range at byte 5");
    PARSE_ERROR("{\"a\":\"1e999\",\"b\":1E400}", "number out of range at byte 17");
    PARSE_ERROR("{\"a\":1e308,\"b\":[2e308]}", "number out of range at byte 16");
}

static void test_parse_rejects_bad_strings(void **state)
{
    (void)state;
    /* Invalid UTF-8 of every kind. */
    PARSE_ERROR("\"\x80\"", "invalid UTF-8 (unexpected continuation byte) at byte 1");
    PARSE_ERROR("\"ab\xbf\"", "unexpected continuation byte) at byte 3");
    PARSE_ERROR("\"\xc0\xaf\"", "overlong encoding) at byte 1");
    PARSE_ERROR("\"\xc1\xbf\"", "overlong encoding");
    PARSE_ERROR("\"\xe0\x80\xaf\"", "overlong encoding");
    PARSE_ERROR("\"\xf0\x80\x80\xaf\"", "overlong encoding");
    PARSE_ERROR("\"\xed\xa0\x80\"", "encoded surrogate) at byte 1");
    PARSE_ERROR("\"\xed\xbf\xbf\"", "encoded surrogate");
    PARSE_ERROR("\"\xf4\x90\x80\x80\"", "above U+10FFFF");
    PARSE_ERROR("\"\xf5\x80\x80\x80\"", "above U+10FFFF");
    PARSE_ERROR("\"\xff\"", "invalid UTF-8");
    PARSE_ERROR("\"\xc3\"", "truncated sequence) at byte 1");
    PARSE_ERROR("\"\xe2\x82\"", "truncated sequence");
    PARSE_ERROR("\"\xf0\x9f\x98\"", "truncated sequence");
    PARSE_ERROR("\"\xc3", "truncated sequence");
    PARSE_ERROR("{\"k\xe9y\":1}", "invalid UTF-8");

    /* Surrogate escapes must pair up. */
    PARSE_ERROR("\"\\uD800\"", "high surrogate escape without a low surrogate at byte 1");
    PARSE_ERROR("\"\\udbff\"", "high surrogate");
    PARSE_ERROR("\"\\uDC00\"", "lone low surrogate escape at byte 1");
    PARSE_ERROR("\"x\\uDFFF\\uD800\"", "lone low surrogate escape at byte 2");
    PARSE_ERROR("\"\\uD800\\u0041\"", "high surrogate escape without a low surrogate");
    PARSE_ERROR("\"\\uD800\\uD800\"", "high surrogate escape without a low surrogate");
    PARSE_ERROR("\"\\uD800x\"", "high surrogate");
    PARSE_ERROR("\"\\uD800\\n\"", "high surrogate");

    /* \u0000 would cut the string short in C. */
    PARSE_ERROR("\"\\u0000\"", "\\u0000 is not allowed at byte 1");
    PARSE_ERROR("{\"a\\u0000b\":1}", "\\u0000 is not allowed at byte 3");

    /* Raw control characters inside strings. */
    PARSE_ERROR("\"a\x01z\"", "raw control character 0x01 in string at byte 2");
    PARSE_ERROR("\"\t\"", "raw control character 0x09");
    PARSE_ERROR("\"\n\"", "raw control character 0x0a");
    PARSE_ERROR("{\"a\x1f\":1}", "raw control character 0x1f");
    PARSE_ERROR("\"\x00\"", "raw control character 0x00 in string at byte 1");

    /* Escapes. */
    PARSE_ERROR("\"\\x\"", "invalid escape at byte 1");
    PARSE_ERROR("\"\\u12G4\"", "invalid \\u escape");
    PARSE_ERROR("\"\\u12\"", "invalid \\u escape");
    PARSE_ERROR("\"\\", "unterminated string");
    PARSE_ERROR("\"\\u", "invalid \\u escape");
}

static void test_parse_long_strings(void **state)
{
    (void)state;
    /* Long enough for the 8-byte fast path, with defects at every offset. */
    enum { N = 200 };
    char text[N + 3];
    text[0] = '"';
    memset(text + 1, 'a', N);
    text[N + 1] = '"';
    text[N + 2] = '\0';
    sc_jdoc d;
    sc_jdoc_init(&d);
    assert_int_equal(str_len(parse_ok(&d, text)), N);

    const unsigned char bad[] = {0x01, 0x1f, 0x80, 0xff};
    for (size_t b = 0; b < sizeof bad; b++) {
        for (size_t at = 1; at <= N; at++) {
            char copy[N + 3];
            memcpy(copy, text, sizeof copy);
            copy[at] = (char)bad[b];
            sc_rpc_error err = {0};
            assert_int_equal(parse_n(&d, copy, N + 2, &err), SC_RPC_PARSE_ERROR);
            char want[32];
            snprintf(want, sizeof want, "at byte %zu", at);
            if (!strstr(err.message, want))
                fail_msg("byte 0x%02x at %zu: %s", bad[b], at, err.message);
        }
    }

    /* Multi-byte characters at every alignment, then a quote and a backslash
     * escape inside the fast path. */
    for (size_t pad = 0; pad < 8; pad++) {
        char s[128];
        int n = snprintf(s, sizeof s, "\"%.*s\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 \\\" tail\"",
                         (int)pad, "pppppppp");
        sc_rpc_error err = {0};
        assert_int_equal(parse_n(&d, s, (size_t)n, &err), 0);
        assert_int_equal(str_len(sc_jdoc_root(&d)), pad + 2 + 3 + 4 + 7);
    }
    sc_jdoc_free(&d);
}

static char *nested(int depth, char open, char close)
{
    char *s = malloc((size_t)depth * 2 + 1);
    assert_non_null(s);
    memset(s, open, (size_t)depth);
    memset(s + depth, close, (size_t)depth);
    s[depth * 2] = '\0';
    return s;
}

static void test_parse_depth(void **state)
{
    (void)state;
    char *s = nested(256, '[', ']');
    sc_jdoc d;
    sc_jdoc_init(&d);
    parse_ok(&d, s);
    sc_jdoc_free(&d);
    free(s);

    s = nested(257, '[', ']');
    expect_parse_error(s, strlen(s), "nesting deeper than 256 levels at byte 256");
    free(s);

    s = nested(10000, '[', ']');
    expect_parse_error(s, strlen(s), "nesting deeper than 256 levels");
    free(s);

    /* Objects count too: {"a":{"a":...}} */
    size_t cap = 10000 * 6 + 16;
    s = malloc(cap);
    assert_non_null(s);
    size_t len = 0;
    for (int i = 0; i < 10000; i++)
        len += (size_t)snprintf(s + len, cap - len, "{\"a\":");
    expect_parse_error(s, len, "nesting deeper than 256 levels at byte 1280");
    free(s);
}

static void test_parse_accepts_valid(void **state)
{
    (void)state;
    sc_jdoc d;
    sc_jdoc_init(&d);
    sc_jval root =
        parse_ok(&d, " \t\r\n{ \"a\" : [ 1 , -0 , 0.5 , -1.5e-3 , 1E+2 , 2e0 , 1e-999 ,"
                     " 123456789012345678901234567890 , true , false , null , { } , [ ] ,"
                     " \"\\\"\\\\\\/\\b\\f\\n\\r\\t\" ] } \r\n");
    sc_jval a = member(root, "a");
    assert_int_equal(sc_jval_count(a), 14);
    assert_true(sc_jval_double(at(a, 3)) == -1.5e-3);
    assert_true(sc_jval_double(at(a, 4)) == 100.0);
    assert_true(sc_jval_double(at(a, 6)) == 0.0);
    assert_string_equal(sc_jval_str(at(a, 13), NULL), "\"\\/\b\f\n\r\t");

    /* Top-level scalars are JSON too (decode rejects them later). */
    const char *scalars[] = {"1", "\"x\"", "null", "true", "-0.0", "[]"};
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++)
        parse_ok(&d, scalars[i]);

    /* UTF-8 at the edges of each length class, and a surrogate pair. */
    root =
        parse_ok(&d, "[\"\xc2\x80\xdf\xbf\", \"\xe0\xa0\x80\xef\xbf\xbf\xed\x9f\xbf\xee\x80\x80\","
                     " \"\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\", \"\\uD83D\\uDE00\\u00e9\x7f\"]");
    assert_string_equal(sc_jval_str(at(root, 0), NULL), "\xc2\x80\xdf\xbf");
    assert_string_equal(sc_jval_str(at(root, 3), NULL), "\xf0\x9f\x98\x80\xc3\xa9\x7f");
    sc_jdoc_free(&d);
}

/* Literals just above 2^53 round down to it; the parser pushes them out. */
static void test_parse_numbers_near_2p53(void **state)
{
    (void)state;
    const double exact = 9007199254740992.0;
    struct {
        const char *text;
        double want;
    } cases[] = {
        {"9007199254740992", exact},           {"-9007199254740992", -exact},
        {"9007199254740992.0", exact},         {"90071992547409920e-1", exact},
        {"0.9007199254740992e16", exact},      {"9007199254740993", exact + 2},
        {"-9007199254740993", -(exact + 2)},   {"9007199254740992.5", exact + 2},
        {"9007199254740992.00001", exact + 2}, {"9.007199254740993e15", exact + 2},
        {"9007199254740994", exact + 2},       {"9007199254740991", exact - 1},
    };
    sc_jdoc d;
    sc_jdoc_init(&d);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[64];
        snprintf(text, sizeof text, "{\"s\":\"1e999\",\"v\":[%s]}", cases[i].text);
        sc_jval v = at(member(parse_ok(&d, text), "v"), 0);
        if (sc_jval_double(v) != cases[i].want)
            fail_msg("%s parsed as %.17g", cases[i].text, sc_jval_double(v));
    }
    sc_jdoc_free(&d);
}

/* ---- decode ---- */

/* The document is on the heap so the struct can be returned by value. */
typedef struct {
    sc_jdoc *doc;
    sc_jval root;
    sc_rpc_request req;
    sc_rpc_error err;
    int rc;
} decoded;

static decoded decode(const char *text)
{
    decoded d;
    memset(&d, 0, sizeof d);
    d.doc = malloc(sizeof *d.doc);
    assert_non_null(d.doc);
    sc_jdoc_init(d.doc);
    d.root = parse_ok(d.doc, text);
    d.rc = sc_rpc_decode(d.root, &d.req, &d.err);
    if (d.rc != 0)
        assert_int_equal(d.err.code, d.rc);
    return d;
}

static void release(decoded *d)
{
    sc_jdoc_free(d->doc);
    free(d->doc);
    d->doc = NULL;
}

static void expect_decode(const char *text, int rc, const char *message)
{
    decoded d = decode(text);
    if (d.rc != rc)
        fail_msg("%s: rc %d (%s), want %d", text, d.rc, d.err.message, rc);
    if (message && strcmp(d.err.message, message) != 0)
        fail_msg("%s: message '%s', want '%s'", text, d.err.message, message);
    release(&d);
}

static void test_decode_ok(void **state)
{
    (void)state;
    decoded d = decode("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"capture.begin\","
                       "\"params\":{\"session\":1,\"stream\":0},\"extra\":[1]}");
    assert_int_equal(d.rc, 0);
    assert_int_equal(int_of(d.req.id), 7);
    assert_false(d.req.notification);
    assert_string_equal(d.req.method, "capture.begin");
    assert_ptr_equal(d.req.desc, &sc_methods[SC_M_CAPTURE_BEGIN]);
    assert_ptr_equal(d.req.params.doc, d.doc);
    assert_int_equal(d.req.params.i, member(d.root, "params").i);
    assert_int_equal(sc_jval_type(d.req.params), SC_JOBJECT);
    release(&d);

    /* Notification: no id member, no params. */
    d = decode("{\"method\":\"server.info\",\"jsonrpc\":\"2.0\"}");
    assert_int_equal(d.rc, 0);
    assert_true(d.req.notification);
    assert_null(d.req.id.doc);
    assert_null(d.req.params.doc);
    assert_ptr_equal(d.req.desc, &sc_methods[SC_M_SERVER_INFO]);
    release(&d);

    /* id null is a request (answered with id null), not a notification. */
    d = decode("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"server.info\",\"params\":{}}");
    assert_int_equal(d.rc, 0);
    assert_false(d.req.notification);
    assert_true(sc_jval_is(d.req.id, SC_JNULL));
    release(&d);

    const char *good_ids[] = {"\"abc\"",           "\"\"", "0", "-5", "9007199254740992",
                              "-9007199254740992", "1e3"};
    for (size_t i = 0; i < sizeof good_ids / sizeof good_ids[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"server.info\"}",
                 good_ids[i]);
        expect_decode(text, 0, NULL);
    }
}

static void test_decode_invalid_request(void **state)
{
    (void)state;
    const int IR = SC_RPC_INVALID_REQUEST;
    expect_decode("[]", IR, "invalid request: not an object");
    expect_decode("1", IR, "invalid request: not an object");
    expect_decode("\"x\"", IR, "invalid request: not an object");
    expect_decode("{\"id\":1,\"method\":\"server.info\"}", IR,
                  "invalid request: missing 'jsonrpc'");
    expect_decode("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"server.info\"}", IR,
                  "invalid request: 'jsonrpc' must be \"2.0\"");
    expect_decode("{\"jsonrpc\":2.0,\"id\":1,\"method\":\"server.info\"}", IR,
                  "invalid request: 'jsonrpc' must be \"2.0\"");
    expect_decode("{\"jsonrpc\":\"2.0 \",\"id\":1,\"method\":\"server.info\"}", IR, NULL);
    expect_decode("{\"jsonrpc\":\"2.0\",\"id\":1}", IR, "invalid request: missing 'method'");
    expect_decode("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}", IR,
                  "invalid request: 'method' must be a string");
    expect_decode("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":null}", IR,
                  "invalid request: 'method' must be a string");

    /* Missing jsonrpc still echoes a usable id. */
    decoded d = decode("{\"id\":\"q\",\"method\":\"server.info\"}");
    assert_int_equal(d.rc, IR);
    assert_string_equal(sc_jval_str(d.req.id, NULL), "q");
    release(&d);
}

static void test_decode_bad_ids(void **state)
{
    (void)state;
    const char *bad[] = {"1.5",
                         "-0.5",
                         "true",
                         "false",
                         "{}",
                         "[]",
                         "[1]",
                         "1e300",
                         "1.0000000000000001",
                         "0.99999999999999999",
                         "9007199254740993",
                         "-9007199254740994",
                         "{\"a\":1}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"server.info\"}",
                 bad[i]);
        decoded d = decode(text);
        if (d.rc != SC_RPC_INVALID_REQUEST)
            fail_msg("id %s accepted", bad[i]);
        assert_null(d.req.id.doc);
        assert_false(d.req.notification);
        assert_non_null(strstr(d.err.message, "'id' must be a string, an integer"));
        release(&d);
    }
}

static void test_decode_params_not_object(void **state)
{
    (void)state;
    const char *bad[] = {"[1,2]", "[]", "null", "\"x\"", "3", "true"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[128];
        snprintf(text, sizeof text,
                 "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"server.info\",\"params\":%s}", bad[i]);
        decoded d = decode(text);
        assert_int_equal(d.rc, SC_RPC_INVALID_PARAMS);
        assert_string_equal(d.err.message, "invalid params: params must be an object");
        assert_string_equal(d.err.field, "params");
        assert_int_equal(int_of(d.req.id), 4);
        assert_non_null(d.req.desc);
        release(&d);
    }
}

static void test_decode_duplicates(void **state)
{
    (void)state;
    const int IR = SC_RPC_INVALID_REQUEST;
    decoded d =
        decode("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"a\",\"method\":\"server.info\"}");
    assert_int_equal(d.rc, IR);
    assert_string_equal(d.err.message, "invalid request: duplicate member 'method'");
    assert_int_equal(int_of(d.req.id), 3); /* the id itself was fine */
    release(&d);

    d = decode("{\"jsonrpc\":\"2.0\",\"id\":3,\"id\":4,\"method\":\"server.info\"}");
    assert_int_equal(d.rc, IR);
    assert_string_equal(d.err.message, "invalid request: duplicate member 'id'");
    assert_null(d.req.id.doc);
    release(&d);

    expect_decode("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"capture.begin\","
                  "\"params\":{\"session\":1,\"stream\":0,\"session\":2}}",
                  IR, "invalid request: duplicate member 'session'");
    expect_decode("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server.info\","
                  "\"params\":{\"x\":[0,{\"k\":{\"deep\":1,\"deep\":1}}]}}",
                  IR, "invalid request: duplicate member 'deep'");
    expect_decode("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server.info\","
                  "\"params\":{\"x\":{\"a\":1},\"y\":{\"a\":1}}}",
                  0, NULL);
    expect_decode("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server.info\",\"z\":1,\"z\":2}", IR,
                  "invalid request: duplicate member 'z'");

    /* Each request of a batch is checked on its own, however deep. */
    sc_jdoc doc;
    sc_jdoc_init(&doc);
    sc_jval batch = parse_ok(&doc, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"graph.reachable\","
                                   "\"params\":{\"graph\":1,\"pairs\":[[0,1],[1,2]]}},"
                                   "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"server.info\","
                                   "\"params\":{\"a\":[[{\"b\":[{\"c\":1,\"c\":2}]}]]}},"
                                   "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"server.info\"}]");
    sc_rpc_request req;
    sc_rpc_error err;
    assert_int_equal(sc_rpc_decode(at(batch, 0), &req, &err), 0);
    assert_int_equal(sc_rpc_decode(at(batch, 1), &req, &err), IR);
    assert_string_equal(err.message, "invalid request: duplicate member 'c'");
    assert_int_equal(int_of(req.id), 2);
    assert_int_equal(sc_rpc_decode(at(batch, 2), &req, &err), 0);

    /* A repeat in an object inside an array, with more containers after
     * it: found, and the notification flag still reflects the envelope. */
    sc_jval hand = parse_ok(&doc, "{\"jsonrpc\":\"2.0\",\"method\":\"server.info\",\"params\":"
                                  "{\"x\":[{\"twice\":1,\"twice\":2,\"deeper\":[0]}]}}");
    assert_int_equal(sc_rpc_decode(hand, &req, &err), IR);
    assert_string_equal(err.message, "invalid request: duplicate member 'twice'");
    assert_true(req.notification);
    sc_jdoc_free(&doc);

    /* Large objects take the sorting path. */
    char text[4096];
    for (int dup = 0; dup < 2; dup++) {
        size_t len = (size_t)snprintf(text, sizeof text,
                                      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server.info\","
                                      "\"params\":{");
        for (int i = 0; i < 200; i++)
            len +=
                (size_t)snprintf(text + len, sizeof text - len, "%s\"k%d\":%d", i ? "," : "", i, i);
        if (dup)
            len += (size_t)snprintf(text + len, sizeof text - len, ",\"k117\":0");
        snprintf(text + len, sizeof text - len, "}}");
        expect_decode(text, dup ? IR : 0, dup ? "invalid request: duplicate member 'k117'" : NULL);
    }
}

static void test_decode_unknown_method(void **state)
{
    (void)state;
    decoded d = decode("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"capture.nope\"}");
    assert_int_equal(d.rc, SC_RPC_METHOD_NOT_FOUND);
    assert_string_equal(d.err.message, "method not found: capture.nope");
    assert_string_equal(sc_jval_str(d.req.id, NULL), "x");
    assert_string_equal(d.req.method, "capture.nope");
    assert_null(d.req.desc);
    release(&d);

    expect_decode("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"Server.Info\"}",
                  SC_RPC_METHOD_NOT_FOUND, "method not found: Server.Info");

    /* A long name is clipped on a character boundary. */
    char text[1024];
    size_t len = (size_t)snprintf(text, sizeof text, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"");
    for (int i = 0; i < 100; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "\xc3\xa9");
    snprintf(text + len, sizeof text - len, "\"}");
    d = decode(text);
    assert_int_equal(d.rc, SC_RPC_METHOD_NOT_FOUND);
    size_t mlen = strlen(d.err.message);
    size_t prefix = strlen("method not found: ");
    assert_int_equal(mlen - prefix, 64);
    assert_int_equal((unsigned char)d.err.message[mlen - 2], 0xc3);
    release(&d);
}

/* ---- reply writers ---- */

static const char *text(sc_buf *b)
{
    sc_buf_putc(b, '\0');
    assert_false(sc_buf_failed(b));
    b->len--;
    return b->data;
}

static void test_write_result(void **state)
{
    (void)state;
    sc_buf b = SC_BUF_INIT;
    sc_jdoc d;
    sc_jdoc_init(&d);
    sc_rpc_result_begin(&b, parse_ok(&d, "7"));
    sc_buf_puts(&b, "{}");
    sc_rpc_result_end(&b);
    assert_string_equal(text(&b), "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}");

    sc_buf_reset(&b);
    sc_rpc_result_begin(&b, parse_ok(&d, "\"a\\\"b\""));
    sc_json_bool(&b, true);
    sc_rpc_result_end(&b);
    assert_string_equal(text(&b), "{\"jsonrpc\":\"2.0\",\"id\":\"a\\\"b\",\"result\":true}");

    sc_buf_reset(&b);
    sc_rpc_result_begin(&b, SC_JVAL_NONE);
    sc_buf_puts(&b, "[]");
    sc_rpc_result_end(&b);
    assert_string_equal(text(&b), "{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":[]}");

    /* Ids as written are echoed as numbers, whatever their spelling. */
    const char *spellings[][2] = {
        {"1e3", "1000"}, {"-0", "0"}, {"-9007199254740992", "-9007199254740992"}, {"2.50e1", "25"}};
    for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
        char want[96];
        snprintf(want, sizeof want, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":0}",
                 spellings[i][1]);
        sc_buf_reset(&b);
        sc_rpc_result_begin(&b, parse_ok(&d, spellings[i][0]));
        sc_buf_putc(&b, '0');
        sc_rpc_result_end(&b);
        assert_string_equal(text(&b), want);
    }
    sc_jdoc_free(&d);
    sc_buf_free(&b);
}

static void test_write_error(void **state)
{
    (void)state;
    sc_buf b = SC_BUF_INIT;
    sc_rpc_error err;
    sc_jdoc d;
    sc_jdoc_init(&d);
    uint64_t v;
    assert_int_equal(sc_param_id(SC_JVAL_NONE, "session", &v, &err), SC_RPC_INVALID_PARAMS);
    sc_rpc_write_error(&b, parse_ok(&d, "\"a\""), &err);
    assert_string_equal(text(&b), "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"error\":{\"code\":-32602,"
                                  "\"message\":\"invalid params: missing 'session'\","
                                  "\"data\":{\"kind\":\"invalid_params\",\"field\":\"session\"}}}");

    sc_buf_reset(&b);
    sc_rpc_fail(&err, SC_RPC_NOT_FOUND, "session %d not found", 12);
    err.what = "session";
    sc_rpc_write_error(&b, parse_ok(&d, "-3"), &err);
    assert_string_equal(text(&b), "{\"jsonrpc\":\"2.0\",\"id\":-3,\"error\":{\"code\":1001,"
                                  "\"message\":\"session 12 not found\","
                                  "\"data\":{\"kind\":\"not_found\",\"what\":\"session\"}}}");
    sc_jdoc_free(&d);

    sc_buf_reset(&b);
    sc_rpc_fail(&err, SC_RPC_INVALID_REQUEST, "message too large");
    sc_rpc_write_error(&b, SC_JVAL_NONE, &err);
    assert_string_equal(text(&b), "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
                                  "\"message\":\"message too large\","
                                  "\"data\":{\"kind\":\"invalid_request\"}}}");

    /* Messages are escaped. */
    sc_buf_reset(&b);
    sc_rpc_fail(&err, SC_RPC_CAPTURE_STATE, "q\"\n");
    err.field = "f";
    err.what = "w";
    sc_rpc_write_error(&b, SC_JVAL_NONE, &err);
    assert_string_equal(text(&b), "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":1002,"
                                  "\"message\":\"q\\\"\\n\",\"data\":{\"kind\":\"capture_state\","
                                  "\"field\":\"f\",\"what\":\"w\"}}}");

    /* A CUDA error: number and name in data, then the extra members verbatim. */
    sc_buf_reset(&b);
    sc_rpc_fail(&err, SC_RPC_CUDA, "capturing stream has unjoined work");
    err.cuda_error = 904;
    err.cuda_name = "cudaErrorStreamCaptureUnjoined";
    static const char extra[] = ",\"unjoined\":[{\"stream\":2,\"nodes\":[1]}]";
    err.extra = extra;
    err.extra_len = sizeof extra - 1;
    sc_rpc_write_error(&b, SC_JVAL_NONE, &err);
    assert_string_equal(text(&b), "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":1009,"
                                  "\"message\":\"capturing stream has unjoined work\",\"data\":{"
                                  "\"kind\":\"cuda\",\"cuda_error\":904,\"cuda_name\":"
                                  "\"cudaErrorStreamCaptureUnjoined\",\"unjoined\":[{\"stream\":2,"
                                  "\"nodes\":[1]}]}}}");
    sc_buf_free(&b);
}

/* A reply written in two steps, the head while the id is alive and the
 * outcome later from another document, is the one-step reply. */
static void test_write_in_two_steps(void **state)
{
    (void)state;
    sc_buf one = SC_BUF_INIT, two = SC_BUF_INIT;
    sc_jdoc d;
    sc_jdoc_init(&d);
    sc_jval id = parse_ok(&d, "\"x\\u0041\"");
    sc_rpc_result_begin(&one, id);
    sc_buf_puts(&one, "{}");
    sc_rpc_result_end(&one);
    sc_rpc_head(&two, id);
    sc_jdoc_free(&d); /* the id's document is gone before the outcome */
    sc_rpc_head_result(&two);
    sc_buf_puts(&two, "{}");
    sc_rpc_result_end(&two);
    assert_string_equal(text(&two), text(&one));
    assert_string_equal(text(&two), "{\"jsonrpc\":\"2.0\",\"id\":\"xA\",\"result\":{}}");

    sc_rpc_error err;
    sc_rpc_fail(&err, SC_RPC_STORAGE, "storage error: %s", "disk full");
    sc_buf_reset(&one);
    sc_buf_reset(&two);
    sc_jdoc_init(&d);
    id = parse_ok(&d, "12");
    sc_rpc_write_error(&one, id, &err);
    sc_rpc_head(&two, id);
    sc_rpc_head_error(&two, &err);
    assert_string_equal(text(&two), text(&one));
    sc_jdoc_free(&d);
    sc_buf_free(&one);
    sc_buf_free(&two);
}

static void test_error_kinds_and_fail(void **state)
{
    (void)state;
    struct {
        int code;
        const char *kind;
    } kinds[] = {
        {-32700, "parse_error"},
        {-32600, "invalid_request"},
        {-32601, "method_not_found"},
        {-32602, "invalid_params"},
        {-32603, "internal_error"},
        {1001, "not_found"},
        {1002, "capture_state"},
        {1003, "invalidated"},
        {1005, "permission_denied"},
        {1006, "limit"},
        {1007, "storage"},
        {1008, "shutting_down"},
        {1009, "cuda"},
        {1004, "error"},
        {0, "error"},
        {-32000, "error"},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        assert_string_equal(sc_rpc_error_kind(kinds[i].code), kinds[i].kind);

    sc_rpc_error err;
    err.field = "stale";
    err.what = "stale";
    assert_int_equal(sc_rpc_fail(&err, SC_RPC_LIMIT, "limit %s", "hit"), SC_RPC_LIMIT);
    assert_int_equal(err.code, SC_RPC_LIMIT);
    assert_null(err.field);
    assert_null(err.what);
    assert_null(err.cuda_name);
    assert_null(err.extra);
    assert_string_equal(err.message, "limit hit");

    /* Too long for the message: cut on a character boundary. */
    char arg[600];
    for (size_t i = 0; i + 2 < sizeof arg; i += 2)
        memcpy(arg + i, "\xc3\xa9", 2);
    arg[sizeof arg - 2] = '\0';
    sc_rpc_fail(&err, SC_RPC_INTERNAL_ERROR, "xy%s", arg);
    size_t n = strlen(err.message);
    assert_true(n <= sizeof err.message - 1);
    assert_int_equal(n, 254); /* "xy" + 126 whole characters */
    assert_int_equal((unsigned char)err.message[n - 1], 0xa9);
}

/* ---- params ---- */

static void expect_u32_error(sc_jval p, const char *field, bool required, const char *msg)
{
    sc_rpc_error err;
    uint32_t out = 77;
    int rc = required ? sc_param_u32(p, field, &out, &err) : sc_param_opt_u32(p, field, &out, &err);
    assert_int_equal(rc, SC_RPC_INVALID_PARAMS);
    assert_int_equal(err.code, SC_RPC_INVALID_PARAMS);
    assert_string_equal(err.message, msg);
    assert_ptr_equal(err.field, field);
    assert_int_equal(out, 77);
}

static void test_param_u32(void **state)
{
    (void)state;
    sc_jdoc d;
    sc_jdoc_init(&d);
    sc_jval p =
        parse_ok(&d, "{\"zero\":0,\"max\":4294967295,\"over\":4294967296,\"neg\":-1,"
                     "\"frac\":1.5,\"str\":\"1\",\"null\":null,\"negzero\":-0,\"bool\":true,"
                     "\"big\":1e300,\"arr\":[1],\"tiny\":1e-300,"
                     "\"near\":0.99999999999999999,\"whole\":2.50e1,\"underflow\":1e-999}");
    sc_rpc_error err;
    uint32_t out = 5;
    assert_int_equal(sc_param_u32(p, "zero", &out, &err), 0);
    assert_int_equal(out, 0);
    assert_int_equal(sc_param_u32(p, "max", &out, &err), 0);
    assert_int_equal(out, 4294967295u);
    assert_int_equal(sc_param_u32(p, "negzero", &out, &err), 0);
    assert_int_equal(out, 0);
    assert_int_equal(sc_param_u32(p, "whole", &out, &err), 0);
    assert_int_equal(out, 25);

    const char *range = "invalid params: '%s' must be an integer from 0 to 4294967295";
    const char *bad[] = {"over", "neg",  "frac", "str",  "bool",     "big",
                         "arr",  "tiny", "null", "near", "underflow"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char msg[128];
        snprintf(msg, sizeof msg, range, bad[i]);
        expect_u32_error(p, bad[i], true, msg);
    }
    /* Optional: present but wrong is still an error; absent or null is 0
     * with the default left in place. */
    expect_u32_error(p, "frac", false,
                     "invalid params: 'frac' must be an integer from 0 to 4294967295");
    out = 9;
    assert_int_equal(sc_param_opt_u32(p, "absent", &out, &err), 0);
    assert_int_equal(sc_param_opt_u32(p, "null", &out, &err), 0);
    assert_int_equal(out, 9);
    expect_u32_error(p, "stream", true, "invalid params: missing 'stream'");
    expect_u32_error(SC_JVAL_NONE, "stream", true, "invalid params: missing 'stream'");
    assert_int_equal(sc_param_opt_u32(SC_JVAL_NONE, "stream", &out, &err), 0);
    sc_jdoc_free(&d);
}

static void test_param_u64_and_id(void **state)
{
    (void)state;
    sc_jdoc d;
    sc_jdoc_init(&d);
    sc_jval p = parse_ok(&d, "{\"v255\":255,\"v256\":256,\"exact\":9007199254740992,"
                             "\"above\":9007199254740993,\"above2\":9007199254740994,\"zero\":0,"
                             "\"one\":1,\"neg\":-1,\"frac\":2.5,"
                             "\"near2p53\":9007199254740991.5,\"near1\":0.99999999999999999}");
    sc_rpc_error err;
    uint64_t out = 0;
    assert_int_equal(sc_param_u64(p, "v255", 255, &out, &err), 0);
    assert_int_equal(out, 255);
    assert_int_equal(sc_param_u64(p, "v256", 255, &out, &err), SC_RPC_INVALID_PARAMS);
    assert_string_equal(err.message, "invalid params: 'v256' must be an integer from 0 to 255");
    assert_int_equal(sc_param_u64(p, "exact", SC_JSON_MAX_EXACT, &out, &err), 0);
    assert_int_equal(out, SC_JSON_MAX_EXACT);
    /* A max beyond 2^53 is clamped: JSON numbers are not exact past it. */
    assert_int_equal(sc_param_u64(p, "above", UINT64_MAX, &out, &err), SC_RPC_INVALID_PARAMS);
    assert_string_equal(err.message,
                        "invalid params: 'above' must be an integer from 0 to 9007199254740992");
    assert_int_equal(sc_param_u64(p, "above2", SC_JSON_MAX_EXACT, &out, &err),
                     SC_RPC_INVALID_PARAMS);
    assert_int_equal(sc_param_u64(p, "zero", 10, &out, &err), 0);
    assert_int_equal(out, 0);
    assert_int_equal(sc_param_u64(p, "frac", 10, &out, &err), SC_RPC_INVALID_PARAMS);
    /* A fraction that rounds to 2^53 is still a fraction. */
    assert_int_equal(sc_param_u64(p, "near2p53", SC_JSON_MAX_EXACT, &out, &err),
                     SC_RPC_INVALID_PARAMS);
    assert_string_equal(err.message,
                        "invalid params: 'near2p53' must be an integer from 0 to 9007199254740992");

    const char *id_msg = "invalid params: '%s' must be an integer from 1 to 9007199254740992";
    const char *bad[] = {"zero", "neg", "frac", "above", "above2", "near2p53", "near1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char msg[128];
        snprintf(msg, sizeof msg, id_msg, bad[i]);
        assert_int_equal(sc_param_id(p, bad[i], &out, &err), SC_RPC_INVALID_PARAMS);
        assert_string_equal(err.message, msg);
        assert_ptr_equal(err.field, bad[i]);
    }
    assert_int_equal(sc_param_id(p, "one", &out, &err), 0);
    assert_int_equal(out, 1);
    assert_int_equal(sc_param_id(p, "exact", &out, &err), 0);
    assert_int_equal(out, SC_JSON_MAX_EXACT);
    const char *session = "session";
    assert_int_equal(sc_param_id(p, session, &out, &err), SC_RPC_INVALID_PARAMS);
    assert_string_equal(err.message, "invalid params: missing 'session'");
    assert_ptr_equal(err.field, session);
    assert_int_equal(sc_param_opt_id(p, session, &out, &err), 0);
    sc_jdoc_free(&d);
}

static void test_param_string_bool(void **state)
{
    (void)state;
    sc_jdoc d;
    sc_jdoc_init(&d);
    sc_jval p = parse_ok(&d, "{\"name\":\"a\\\"b\xc3\xa9\",\"empty\":\"\",\"num\":1,\"null\":null,"
                             "\"t\":true,\"f\":false,\"bs\":\"true\"}");
    sc_rpc_error err;
    const char *s = NULL;
    size_t len = 0;
    assert_int_equal(sc_param_string(p, "name", &s, &len, &err), 0);
    assert_string_equal(s, "a\"b\xc3\xa9");
    assert_int_equal(len, 5);
    assert_int_equal(sc_param_string(p, "empty", &s, &len, &err), 0);
    assert_int_equal(len, 0);
    assert_int_equal(sc_param_string(p, "name", &s, NULL, &err), 0);

    assert_int_equal(sc_param_string(p, "num", &s, &len, &err), SC_RPC_INVALID_PARAMS);
    assert_string_equal(err.message, "invalid params: 'num' must be a string");
    assert_int_equal(sc_param_string(p, "null", &s, &len, &err), SC_RPC_INVALID_PARAMS);
    assert_string_equal(err.message, "invalid params: 'null' must be a string");
    assert_string_equal(err.field, "null");
    assert_int_equal(sc_param_string(p, "missing", &s, &len, &err), SC_RPC_INVALID_PARAMS);
    assert_string_equal(err.message, "invalid params: missing 'missing'");
    s = "untouched";
    assert_int_equal(sc_param_opt_string(p, "null", &s, &len, &err), 0);
    assert_int_equal(sc_param_opt_string(p, "missing", &s, &len, &err), 0);
    assert_string_equal(s, "untouched");
    assert_int_equal(sc_param_opt_string(p, "num", &s, &len, &err), SC_RPC_INVALID_PARAMS);

    bool b = false;
    assert_int_equal(sc_param_bool(p, "t", &b, &err), 0);
    assert_true(b);
    assert_int_equal(sc_param_bool(p, "f", &b, &err), 0);
    assert_false(b);
    assert_int_equal(sc_param_bool(p, "bs", &b, &err), SC_RPC_INVALID_PARAMS);
    assert_string_equal(err.message, "invalid params: 'bs' must be a boolean");
    assert_int_equal(sc_param_opt_bool(p, "num", &b, &err), SC_RPC_INVALID_PARAMS);
    assert_int_equal(sc_param_opt_bool(p, "missing", &b, &err), 0);

    assert_ptr_equal(sc_param_get(p, "t").doc, &d);
    assert_int_equal(sc_param_get(p, "t").i, member(p, "t").i);
    assert_true(sc_jval_is(sc_param_get(p, "t"), SC_JTRUE));
    assert_null(sc_param_get(p, "T").doc);
    assert_null(sc_param_get(SC_JVAL_NONE, "t").doc);
    assert_null(sc_param_get(member(p, "t"), "t").doc); /* not an object */
    sc_jdoc_free(&d);
}

/* Optional readers: a present value is read like a required one, an absent
 * or null one keeps the caller's default, and nothing returns 1. */
static void test_param_optional(void **state)
{
    (void)state;
    sc_jdoc d;
    sc_jdoc_init(&d);
    sc_jval p = parse_ok(&d, "{\"n\":7,\"big\":300,\"id\":0,\"s\":\"x\",\"b\":true,\"z\":null}");
    sc_rpc_error err;
    uint32_t u = 1;
    assert_int_equal(sc_param_opt_u32(p, "n", &u, &err), 0);
    assert_int_equal(u, 7);
    uint64_t v = 100;
    assert_int_equal(sc_param_opt_u64(p, "absent", 255, &v, &err), 0);
    assert_int_equal(v, 100);
    assert_int_equal(sc_param_opt_u64(p, "big", 255, &v, &err), SC_RPC_INVALID_PARAMS);
    assert_int_equal(v, 100);
    assert_int_equal(sc_param_opt_id(p, "id", &v, &err), SC_RPC_INVALID_PARAMS);
    assert_string_equal(err.field, "id");
    const char *str = NULL;
    size_t len = 0;
    assert_int_equal(sc_param_opt_string(p, "s", &str, &len, &err), 0);
    assert_string_equal(str, "x");
    assert_int_equal(len, 1);
    bool b = false;
    assert_int_equal(sc_param_opt_bool(p, "b", &b, &err), 0);
    assert_true(b);
    assert_true(sc_param_present(p, "n"));
    assert_false(sc_param_present(p, "z"));
    assert_false(sc_param_present(p, "absent"));
    assert_false(sc_param_present(SC_JVAL_NONE, "n"));
    sc_jdoc_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_rejects_malformed),
        cmocka_unit_test(test_parse_rejects_bad_numbers),
        cmocka_unit_test(test_parse_rejects_bad_strings),
        cmocka_unit_test(test_parse_long_strings),
        cmocka_unit_test(test_parse_depth),
        cmocka_unit_test(test_parse_accepts_valid),
        cmocka_unit_test(test_parse_numbers_near_2p53),
        cmocka_unit_test(test_decode_ok),
        cmocka_unit_test(test_decode_invalid_request),
        cmocka_unit_test(test_decode_bad_ids),
        cmocka_unit_test(test_decode_params_not_object),
        cmocka_unit_test(test_decode_duplicates),
        cmocka_unit_test(test_decode_unknown_method),
        cmocka_unit_test(test_write_result),
        cmocka_unit_test(test_write_error),
        cmocka_unit_test(test_write_in_two_steps),
        cmocka_unit_test(test_error_kinds_and_fail),
        cmocka_unit_test(test_param_u32),
        cmocka_unit_test(test_param_u64_and_id),
        cmocka_unit_test(test_param_string_bool),
        cmocka_unit_test(test_param_optional),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
