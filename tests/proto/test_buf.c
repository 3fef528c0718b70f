/* sc_buf: growth, sticky failure, JSON writers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_buf.h"

/* The buffer's contents as a C string (tests only write text). */
static const char *text(sc_buf *b)
{
    assert_int_equal(sc_buf_reserve(b, 1), 0);
    b->data[b->len] = '\0';
    return b->data;
}

static void test_append_and_grow(void **state)
{
    (void)state;
    sc_buf b = SC_BUF_INIT;
    sc_buf_puts(&b, "ab");
    sc_buf_putc(&b, 'c');
    sc_buf_append(&b, "def", 2);
    sc_buf_printf(&b, "-%d-%s", 42, "x");
    assert_string_equal(text(&b), "abcde-42-x");
    assert_int_equal(b.len, 10);

    /* Many small writes: contents survive every reallocation. */
    for (int i = 0; i < 100000; i++)
        sc_buf_putc(&b, (char)('a' + i % 26));
    assert_int_equal(b.len, 100010);
    for (size_t i = 10; i < b.len; i++)
        assert_int_equal(b.data[i], 'a' + (int)((i - 10) % 26));
    assert_false(sc_buf_failed(&b));
    sc_buf_free(&b);
    assert_null(b.data);
    assert_int_equal(b.len, 0);
    assert_int_equal(b.cap, 0);
}

static void test_printf_longer_than_room(void **state)
{
    (void)state;
    sc_buf b;
    sc_buf_init(&b);
    char big[5000];
    memset(big, 'q', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    sc_buf_puts(&b, "<");
    sc_buf_printf(&b, "%s|%d", big, 7);
    assert_int_equal(b.len, 1 + 4999 + 2);
    assert_int_equal(b.data[0], '<');
    assert_int_equal(b.data[4999], 'q');
    assert_memory_equal(b.data + 5000, "|7", 2);
    sc_buf_free(&b);
}

static void test_reset_keeps_storage(void **state)
{
    (void)state;
    sc_buf b = SC_BUF_INIT;
    sc_buf_puts(&b, "hello");
    char *data = b.data;
    size_t cap = b.cap;
    b.oom = true;
    sc_buf_reset(&b);
    assert_int_equal(b.len, 0);
    assert_false(sc_buf_failed(&b));
    assert_ptr_equal(b.data, data);
    assert_int_equal(b.cap, cap);
    sc_buf_puts(&b, "x");
    assert_string_equal(text(&b), "x");
    sc_buf_free(&b);
}

static void test_detach(void **state)
{
    (void)state;
    sc_buf b = SC_BUF_INIT;
    sc_buf_puts(&b, "abc");
    size_t len = 99;
    char *s = sc_buf_detach(&b, &len);
    assert_non_null(s);
    assert_int_equal(len, 3);
    assert_string_equal(s, "abc");
    assert_null(b.data);
    assert_int_equal(b.len, 0);
    free(s);

    /* An empty buffer still detaches to an empty string. */
    s = sc_buf_detach(&b, &len);
    assert_non_null(s);
    assert_int_equal(len, 0);
    assert_string_equal(s, "");
    free(s);
}

static void test_oom_is_sticky(void **state)
{
    (void)state;
    sc_buf b = SC_BUF_INIT;
    sc_buf_puts(&b, "ok");
    assert_int_equal(sc_buf_reserve(&b, SIZE_MAX), -1);
    assert_true(sc_buf_failed(&b));
    size_t len = b.len;
    sc_buf_puts(&b, "more");
    sc_buf_putc(&b, 'x');
    sc_buf_printf(&b, "%d", 5);
    sc_json_u64(&b, 7);
    sc_json_cstr(&b, "s");
    assert_int_equal(b.len, len);
    assert_int_equal(sc_buf_reserve(&b, 1), -1);
    size_t dlen = 5;
    assert_null(sc_buf_detach(&b, &dlen));
    assert_int_equal(dlen, 0);
    assert_null(b.data);
    assert_false(sc_buf_failed(&b));
}

static void test_json_string_control_chars(void **state)
{
    (void)state;
    char in[32];
    for (int i = 0; i < 32; i++)
        in[i] = (char)i;
    sc_buf b = SC_BUF_INIT;
    sc_json_string(&b, in, sizeof in);
    sc_buf expect = SC_BUF_INIT;
    sc_buf_putc(&expect, '"');
    for (int i = 0; i < 32; i++) {
        switch (i) {
        case '\b':
            sc_buf_puts(&expect, "\\b");
            break;
        case '\t':
            sc_buf_puts(&expect, "\\t");
            break;
        case '\n':
            sc_buf_puts(&expect, "\\n");
            break;
        case '\f':
            sc_buf_puts(&expect, "\\f");
            break;
        case '\r':
            sc_buf_puts(&expect, "\\r");
            break;
        default:
            sc_buf_printf(&expect, "\\u%04x", i);
        }
    }
    sc_buf_putc(&expect, '"');
    assert_int_equal(b.len, expect.len);
    assert_memory_equal(b.data, expect.data, b.len);

    /* And the output is JSON that reads back to the same bytes. */
    cJSON *j = cJSON_ParseWithLength(b.data, b.len);
    assert_non_null(j);
    assert_true(cJSON_IsString(j));
    assert_memory_equal(j->valuestring + 1, in + 1, 31); /* cJSON stops at the NUL */
    cJSON_Delete(j);
    sc_buf_free(&b);
    sc_buf_free(&expect);
}

static void test_json_string_quotes_and_utf8(void **state)
{
    (void)state;
    sc_buf b = SC_BUF_INIT;
    sc_json_cstr(&b, "a\"b\\c/d\x7f");
    assert_string_equal(text(&b), "\"a\\\"b\\\\c/d\x7f\"");
    sc_buf_reset(&b);
    const char *utf8 = "\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf";
    sc_json_cstr(&b, utf8);
    sc_buf expect = SC_BUF_INIT;
    sc_buf_printf(&expect, "\"%s\"", utf8);
    assert_string_equal(text(&b), text(&expect));
    sc_buf_reset(&b);
    sc_json_string(&b, "", 0);
    assert_string_equal(text(&b), "\"\"");
    sc_buf_free(&b);
    sc_buf_free(&expect);
}

/* A character to escape (or a byte past ASCII, kept as it is) at every
 * position of strings of 1 to 40 plain bytes: the writer takes plain text
 * 8 bytes at a time, so each may fall in a word, at its edges or in the
 * tail. */
static void test_json_string_escape_at_every_position(void **state)
{
    (void)state;
    const char specials[] = {'"', '\\', '\n', 0x01, 0x1f, (char)0xc3};
    const char *escaped[] = {"\\\"", "\\\\", "\\n", "\\u0001", "\\u001f", "\xc3"};
    sc_buf b = SC_BUF_INIT, expect = SC_BUF_INIT;
    char in[40];
    for (size_t len = 1; len <= sizeof in; len++) {
        for (size_t at = 0; at < len; at++) {
            for (size_t k = 0; k < sizeof specials; k++) {
                for (size_t i = 0; i < len; i++)
                    in[i] = (char)('a' + i % 26);
                in[at] = specials[k];
                sc_buf_reset(&b);
                sc_buf_reset(&expect);
                sc_json_string(&b, in, len);
                sc_buf_putc(&expect, '"');
                sc_buf_append(&expect, in, at);
                sc_buf_puts(&expect, escaped[k]);
                sc_buf_append(&expect, in + at + 1, len - at - 1);
                sc_buf_putc(&expect, '"');
                assert_int_equal(b.len, expect.len);
                assert_memory_equal(b.data, expect.data, b.len);
            }
        }
    }
    sc_buf_free(&b);
    sc_buf_free(&expect);
}

static void test_json_integers(void **state)
{
    (void)state;
    sc_buf b = SC_BUF_INIT;
    sc_json_u64(&b, 0);
    sc_buf_putc(&b, ' ');
    sc_json_u64(&b, UINT64_MAX);
    sc_buf_putc(&b, ' ');
    sc_json_i64(&b, INT64_MIN);
    sc_buf_putc(&b, ' ');
    sc_json_i64(&b, -1);
    sc_buf_putc(&b, ' ');
    sc_json_i64(&b, INT64_MAX);
    sc_buf_putc(&b, ' ');
    sc_json_u64(&b, 4294967295u);
    sc_buf_putc(&b, ' ');
    sc_json_bool(&b, true);
    sc_buf_putc(&b, ' ');
    sc_json_bool(&b, false);
    assert_string_equal(text(&b), "0 18446744073709551615 -9223372036854775808 -1 "
                                  "9223372036854775807 4294967295 true false");
    sc_buf_free(&b);
}

/* Every digit count, each side of each power of ten and of each 100-step
 * (the writer takes digits two at a time), as printf writes them. */
static void test_json_u64_digit_counts(void **state)
{
    (void)state;
    sc_buf b = SC_BUF_INIT;
    char want[32];
    uint64_t p = 1;
    for (int k = 0; k < 20; k++, p *= 10) {
        const uint64_t near[] = {p - 1, p, p + 1, p + 9, p + 10, p + 99, p + 100, 2 * p - 1};
        for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) {
            sc_buf_reset(&b);
            sc_json_u64(&b, near[i]);
            snprintf(want, sizeof want, "%llu", (unsigned long long)near[i]);
            assert_string_equal(text(&b), want);
        }
    }
    for (uint64_t v = 0; v < 100000; v += 7) {
        sc_buf_reset(&b);
        sc_json_u64(&b, v);
        snprintf(want, sizeof want, "%llu", (unsigned long long)v);
        assert_string_equal(text(&b), want);
    }
    sc_buf_free(&b);
}

static void expect_time(int64_t ms, const char *want)
{
    sc_buf b = SC_BUF_INIT;
    sc_json_time_ms(&b, ms);
    assert_string_equal(text(&b), want);
    sc_buf_free(&b);
}

static void test_json_time(void **state)
{
    (void)state;
    expect_time(0, "\"1970-01-01T00:00:00.000Z\"");
    expect_time(1795981461123, "\"2026-11-29T19:44:21.123Z\"");
    expect_time(951868799999, "\"2000-02-29T23:59:59.999Z\"");
    expect_time(7, "\"1970-01-01T00:00:00.007Z\"");
    expect_time(-1, "\"1969-12-31T23:59:59.999Z\"");
}

static void test_json_members(void **state)
{
    (void)state;
    sc_buf b = SC_BUF_INIT;
    bool first;
    sc_json_obj_begin(&b, &first);
    assert_true(first);
    sc_json_member_u64(&b, &first, "a", 18446744073709551615ull);
    assert_false(first);
    sc_json_member_i64(&b, &first, "b", -5);
    sc_json_member_bool(&b, &first, "c", false);
    sc_json_member_str(&b, &first, "d", "x\"y", 3);
    sc_json_member_cstr(&b, &first, "e", "\n");
    sc_json_member_time_ms(&b, &first, "f", 0);
    sc_json_key(&b, &first, "g");
    sc_buf_puts(&b, "[]");
    sc_json_obj_end(&b);
    assert_string_equal(text(&b), "{\"a\":18446744073709551615,\"b\":-5,\"c\":false,"
                                  "\"d\":\"x\\\"y\",\"e\":\"\\n\","
                                  "\"f\":\"1970-01-01T00:00:00.000Z\",\"g\":[]}");
    sc_buf_reset(&b);
    sc_json_obj_begin(&b, &first);
    sc_json_obj_end(&b);
    assert_string_equal(text(&b), "{}");
    sc_buf_reset(&b);
    sc_json_obj_u64(&b, "node", 7);
    assert_string_equal(text(&b), "{\"node\":7}");
    sc_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_append_and_grow),
        cmocka_unit_test(test_printf_longer_than_room),
        cmocka_unit_test(test_reset_keeps_storage),
        cmocka_unit_test(test_detach),
        cmocka_unit_test(test_oom_is_sticky),
        cmocka_unit_test(test_json_string_control_chars),
        cmocka_unit_test(test_json_string_quotes_and_utf8),
        cmocka_unit_test(test_json_string_escape_at_every_position),
        cmocka_unit_test(test_json_integers),
        cmocka_unit_test(test_json_u64_digit_counts),
        cmocka_unit_test(test_json_time),
        cmocka_unit_test(test_json_members),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
