/* sc_kargs: the args / param_sizes parameters of kernel nodes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_kargs.h"

/* Read params text; returns the reader's result, with *field the field blamed. */
static int read_kargs(const char *text, sc_kargs *k, const char **field)
{
    sc_jdoc d;
    sc_jdoc_init(&d);
    sc_rpc_error err = {0};
    if (sc_jdoc_parse(&d, text, strlen(text), &err) != 0)
        fail_msg("bad test JSON: %s", text);
    int rc = sc_param_opt_kargs(sc_jdoc_root(&d), k, &err);
    *field = err.field;
    if (rc == 0 && k->hex) {
        uint8_t bytes[64];
        uint32_t sizes[16];
        assert_true(k->nbytes <= sizeof bytes && k->nparams <= 16);
        sc_kargs_decode(k, bytes, sizes);
        char hex[129];
        sc_kargs_hex(bytes, k->nbytes, hex);
        /* The round trip gives back the text the caller sent. */
        assert_memory_equal(hex, k->hex, 2 * k->nbytes);
        if (k->nparams >= 2) {
            assert_int_equal(sizes[0], 4);
            assert_int_equal(bytes[0], 0x2a);
        }
    }
    sc_jdoc_free(&d);
    return rc;
}

static void expect_bad(const char *text, const char *field)
{
    sc_kargs k;
    const char *got = NULL;
    int rc = read_kargs(text, &k, &got);
    if (rc != SC_RPC_INVALID_PARAMS)
        fail_msg("accepted: %s", text);
    assert_non_null(got);
    assert_string_equal(got, field);
}

static void accepts_packed_args(void **state)
{
    (void)state;
    sc_kargs k;
    const char *field;
    assert_int_equal(
        read_kargs("{\"args\":\"2a000000ff0011223344556677\",\"param_sizes\":[4,1,8]}", &k, &field),
        0);
    assert_non_null(k.hex);
    assert_int_equal(k.nbytes, 13);
    assert_int_equal(k.nparams, 3);
    /* Absent (or null) both: nothing. */
    assert_int_equal(read_kargs("{}", &k, &field), 0);
    assert_null(k.hex);
    assert_int_equal(read_kargs("{\"args\":null,\"param_sizes\":null}", &k, &field), 0);
    assert_null(k.hex);
}

static void rejects_bad_args(void **state)
{
    (void)state;
    expect_bad("{\"args\":\"abc\",\"param_sizes\":[2]}", "args");
    expect_bad("{\"args\":\"ABCD\",\"param_sizes\":[2]}", "args");
    expect_bad("{\"args\":\"zz\",\"param_sizes\":[1]}", "args");
    expect_bad("{\"args\":12,\"param_sizes\":[1]}", "args");
    expect_bad("{\"args\":\"00\"}", "param_sizes");
    expect_bad("{\"param_sizes\":[1]}", "args");
}

static void rejects_bad_sizes(void **state)
{
    (void)state;
    expect_bad("{\"args\":\"0000\",\"param_sizes\":[1]}", "param_sizes");
    expect_bad("{\"args\":\"0000\",\"param_sizes\":[1,2]}", "param_sizes");
    expect_bad("{\"args\":\"0000\",\"param_sizes\":[0,2]}", "param_sizes");
    expect_bad("{\"args\":\"0000\",\"param_sizes\":[1.5,0.5]}", "param_sizes");
    expect_bad("{\"args\":\"0000\",\"param_sizes\":\"2\"}", "param_sizes");
    expect_bad("{\"args\":\"0000\",\"param_sizes\":[-1,3]}", "param_sizes");
}

/* 32,764 bytes pass, one more is past CUDA's limit. */
static void bounds_the_size(void **state)
{
    (void)state;
    for (size_t n = SC_KARGS_MAX_BYTES; n <= SC_KARGS_MAX_BYTES + 1; n++) {
        size_t cap = 2 * n + 64;
        char *text = malloc(cap);
        assert_non_null(text);
        int off = snprintf(text, cap, "{\"args\":\"");
        memset(text + off, '0', 2 * n);
        snprintf(text + off + 2 * n, cap - off - 2 * n, "\",\"param_sizes\":[%zu]}", n);
        sc_jdoc d;
        sc_jdoc_init(&d);
        sc_rpc_error err = {0};
        assert_int_equal(sc_jdoc_parse(&d, text, strlen(text), &err), 0);
        sc_kargs k;
        int rc = sc_param_opt_kargs(sc_jdoc_root(&d), &k, &err);
        if (n == SC_KARGS_MAX_BYTES) {
            assert_int_equal(rc, 0);
            assert_int_equal(k.nbytes, n);
        } else {
            assert_int_equal(rc, SC_RPC_INVALID_PARAMS);
            assert_string_equal(err.field, "args");
        }
        sc_jdoc_free(&d);
        free(text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accepts_packed_args),
        cmocka_unit_test(rejects_bad_args),
        cmocka_unit_test(rejects_bad_sizes),
        cmocka_unit_test(bounds_the_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
