/* sc_framer: line splitting, limits, bounded memory, incremental scan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_frame.h"

/* Collected lines joined as "<line>|" so order and content are checked. */
typedef struct {
    char text[1 << 16];
    size_t len;
    int count;
} lines;

/* Drain every complete line into out; returns the last status. */
static int drain(sc_framer *f, lines *out)
{
    for (;;) {
        const char *line;
        size_t len;
        int st = sc_framer_next(f, &line, &len);
        if (st != SC_FRAME_LINE)
            return st;
        assert_true(out->len + len + 1 < sizeof out->text);
        memcpy(out->text + out->len, line, len);
        out->len += len;
        out->text[out->len++] = '|';
        out->text[out->len] = '\0';
        out->count++;
    }
}

static void test_basic_lines(void **state)
{
    (void)state;
    sc_framer f;
    assert_int_equal(sc_framer_init(&f, 100), 0);
    static lines out;
    memset(&out, 0, sizeof out);
    assert_int_equal(sc_framer_push(&f, "a\nbb\n\nccc", 9), 0);
    assert_int_equal(sc_framer_pending(&f), 9);
    assert_int_equal(drain(&f, &out), SC_FRAME_NEED_MORE);
    assert_string_equal(out.text, "a|bb||");
    assert_int_equal(sc_framer_pending(&f), 3);
    /* CRLF: the '\r' stays, it is JSON whitespace. */
    assert_int_equal(sc_framer_push(&f, "\r\n", 2), 0);
    assert_int_equal(drain(&f, &out), SC_FRAME_NEED_MORE);
    assert_string_equal(out.text, "a|bb||ccc\r|");
    assert_int_equal(out.count, 4);
    assert_int_equal(sc_framer_pending(&f), 0);
    sc_framer_free(&f);
}

static const char sample[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server.info\"}\n"
                             "\n"
                             "[1,2,3]\r\n"
                             "x\n"
                             "\n"
                             "last line without newline";

static void test_split_at_every_byte(void **state)
{
    (void)state;
    size_t n = sizeof sample - 1;
    static lines whole, split;
    memset(&whole, 0, sizeof whole);
    sc_framer f;
    assert_int_equal(sc_framer_init(&f, 1000), 0);
    assert_int_equal(sc_framer_push(&f, sample, n), 0);
    assert_int_equal(drain(&f, &whole), SC_FRAME_NEED_MORE);
    assert_int_equal(whole.count, 5);
    assert_int_equal(sc_framer_pending(&f), strlen("last line without newline"));
    sc_framer_free(&f);

    for (size_t k = 0; k <= n; k++) {
        memset(&split, 0, sizeof split);
        assert_int_equal(sc_framer_init(&f, 1000), 0);
        assert_int_equal(sc_framer_push(&f, sample, k), 0);
        assert_int_equal(drain(&f, &split), SC_FRAME_NEED_MORE);
        assert_int_equal(sc_framer_push(&f, sample + k, n - k), 0);
        assert_int_equal(drain(&f, &split), SC_FRAME_NEED_MORE);
        if (strcmp(split.text, whole.text) != 0)
            fail_msg("split at %zu: got '%s'", k, split.text);
        assert_int_equal(sc_framer_pending(&f), strlen("last line without newline"));
        sc_framer_free(&f);
    }

    /* One byte per push, through the zero-copy interface. */
    memset(&split, 0, sizeof split);
    assert_int_equal(sc_framer_init(&f, 1000), 0);
    for (size_t k = 0; k < n; k++) {
        char *p;
        size_t avail;
        assert_int_equal(sc_framer_space(&f, 1, &p, &avail), 0);
        assert_true(avail >= 1);
        *p = sample[k];
        sc_framer_commit(&f, 1);
        assert_int_equal(drain(&f, &split), SC_FRAME_NEED_MORE);
    }
    assert_string_equal(split.text, whole.text);
    sc_framer_free(&f);
}

static void test_many_lines_in_one_push(void **state)
{
    (void)state;
    enum { N = 5000 };
    size_t cap = N * 16;
    char *blob = malloc(cap);
    assert_non_null(blob);
    size_t len = 0;
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(blob + len, cap - len, "{\"n\":%d}\n", i);
    sc_framer f;
    assert_int_equal(sc_framer_init(&f, 64), 0);
    assert_int_equal(sc_framer_push(&f, blob, len), 0);
    for (int i = 0; i < N; i++) {
        const char *line;
        size_t n;
        char want[32];
        int w = snprintf(want, sizeof want, "{\"n\":%d}", i);
        assert_int_equal(sc_framer_next(&f, &line, &n), SC_FRAME_LINE);
        assert_int_equal(n, (size_t)w);
        assert_memory_equal(line, want, n);
    }
    const char *line;
    size_t n;
    assert_int_equal(sc_framer_next(&f, &line, &n), SC_FRAME_NEED_MORE);
    assert_int_equal(sc_framer_pending(&f), 0);
    sc_framer_free(&f);
    free(blob);
}

static void test_line_length_limit(void **state)
{
    (void)state;
    enum { MAX = 100 };
    char data[MAX + 2];
    const char *line;
    size_t n;
    sc_framer f;

    /* Exactly max_line bytes is fine. */
    memset(data, 'a', MAX);
    data[MAX] = '\n';
    assert_int_equal(sc_framer_init(&f, MAX), 0);
    assert_int_equal(sc_framer_push(&f, data, MAX + 1), 0);
    assert_int_equal(sc_framer_next(&f, &line, &n), SC_FRAME_LINE);
    assert_int_equal(n, MAX);
    sc_framer_free(&f);

    /* One more byte, complete line: too long, and it stays reported. */
    memset(data, 'a', MAX + 1);
    data[MAX + 1] = '\n';
    assert_int_equal(sc_framer_init(&f, MAX), 0);
    assert_int_equal(sc_framer_push(&f, data, MAX + 2), 0);
    assert_int_equal(sc_framer_next(&f, &line, &n), SC_FRAME_TOO_LONG);
    assert_int_equal(sc_framer_next(&f, &line, &n), SC_FRAME_TOO_LONG);
    sc_framer_free(&f);

    /* A partial line is judged as soon as max_line + 1 bytes are held. */
    assert_int_equal(sc_framer_init(&f, MAX), 0);
    assert_int_equal(sc_framer_push(&f, data, MAX), 0);
    assert_int_equal(sc_framer_next(&f, &line, &n), SC_FRAME_NEED_MORE);
    assert_int_equal(sc_framer_push(&f, "b", 1), 0);
    assert_int_equal(sc_framer_next(&f, &line, &n), SC_FRAME_TOO_LONG);
    sc_framer_free(&f);

    /* Good lines before a long one still come out first. */
    assert_int_equal(sc_framer_init(&f, MAX), 0);
    assert_int_equal(sc_framer_push(&f, "ok\n", 3), 0);
    assert_int_equal(sc_framer_push(&f, data, MAX + 2), 0);
    assert_int_equal(sc_framer_next(&f, &line, &n), SC_FRAME_LINE);
    assert_int_equal(n, 2);
    assert_int_equal(sc_framer_next(&f, &line, &n), SC_FRAME_TOO_LONG);
    sc_framer_free(&f);

    /* max_line 0 allows only empty lines. */
    assert_int_equal(sc_framer_init(&f, 0), 0);
    assert_int_equal(sc_framer_push(&f, "\nx", 2), 0);
    assert_int_equal(sc_framer_next(&f, &line, &n), SC_FRAME_LINE);
    assert_int_equal(n, 0);
    assert_int_equal(sc_framer_next(&f, &line, &n), SC_FRAME_TOO_LONG);
    sc_framer_free(&f);
}

/* A reader loop fed an endless line: memory stays near max_line + chunk. */
static void test_too_long_memory_bounded(void **state)
{
    (void)state;
    const size_t max = 1 << 20, chunk = 65536;
    sc_framer f;
    assert_int_equal(sc_framer_init(&f, max), 0);
    size_t fed = 0;
    int st = SC_FRAME_NEED_MORE;
    while (st == SC_FRAME_NEED_MORE) {
        char *p;
        size_t avail;
        assert_int_equal(sc_framer_space(&f, chunk, &p, &avail), 0);
        assert_true(avail >= chunk);
        memset(p, 'z', chunk);
        sc_framer_commit(&f, chunk);
        fed += chunk;
        assert_true(f.cap <= max + chunk);
        const char *line;
        size_t n;
        st = sc_framer_next(&f, &line, &n);
        assert_true(fed <= max + chunk);
    }
    assert_int_equal(st, SC_FRAME_TOO_LONG);
    assert_true(fed > max);
    sc_framer_free(&f);
}

/* Each byte of a partial line is scanned once, however it arrives. */
static void test_incremental_scan(void **state)
{
    (void)state;
    sc_framer f;
    assert_int_equal(sc_framer_init(&f, 1 << 20), 0);
    const char *line;
    size_t n;
    char chunk[100];
    memset(chunk, 'q', sizeof chunk);
    for (int i = 1; i <= 50; i++) {
        assert_int_equal(sc_framer_push(&f, chunk, sizeof chunk), 0);
        assert_int_equal(sc_framer_next(&f, &line, &n), SC_FRAME_NEED_MORE);
        assert_int_equal(f.scan, (size_t)i * sizeof chunk);
    }
    assert_int_equal(sc_framer_push(&f, "\n", 1), 0);
    assert_int_equal(sc_framer_next(&f, &line, &n), SC_FRAME_LINE);
    assert_int_equal(n, 5000);
    assert_int_equal(f.scan, 0);
    sc_framer_free(&f);
}

static void test_compaction_only_when_needed(void **state)
{
    (void)state;
    sc_framer f;
    assert_int_equal(sc_framer_init(&f, 1 << 16), 0);
    const char *line;
    size_t n;
    assert_int_equal(sc_framer_push(&f, "abc\ndef", 7), 0);
    assert_int_equal(sc_framer_next(&f, &line, &n), SC_FRAME_LINE);
    assert_int_equal(f.start, 4);

    /* Room left at the end: nothing moves. */
    char *p;
    size_t avail;
    assert_int_equal(sc_framer_space(&f, 16, &p, &avail), 0);
    assert_int_equal(f.start, 4);
    assert_ptr_equal(p, f.buf + 7);

    /* Not enough room at the end: the tail moves to the front first. */
    size_t cap = f.cap;
    assert_int_equal(sc_framer_space(&f, cap - 3, &p, &avail), 0);
    assert_int_equal(f.start, 0);
    assert_int_equal(f.cap, cap);
    assert_memory_equal(f.buf, "def", 3);
    assert_int_equal(avail, cap - 3);
    memcpy(p, "\n", 1);
    sc_framer_commit(&f, 1);
    assert_int_equal(sc_framer_next(&f, &line, &n), SC_FRAME_LINE);
    assert_int_equal(n, 3);
    assert_memory_equal(line, "def", 3);
    sc_framer_free(&f);
}

static void test_shrinks_when_idle(void **state)
{
    (void)state;
    const size_t big = 1 << 20;
    sc_framer f;
    assert_int_equal(sc_framer_init(&f, 2 * big), 0);
    char *data = malloc(big + 1);
    assert_non_null(data);
    memset(data, 'x', big);
    data[big] = '\n';
    assert_int_equal(sc_framer_push(&f, data, big + 1), 0);
    assert_true(f.cap >= big + 1);
    const char *line;
    size_t n;
    assert_int_equal(sc_framer_next(&f, &line, &n), SC_FRAME_LINE);
    assert_int_equal(n, big);
    char *p;
    size_t avail;
    assert_int_equal(sc_framer_space(&f, 4096, &p, &avail), 0);
    assert_true(f.cap < big);
    assert_true(avail >= 4096);
    free(data);
    sc_framer_free(&f);
}

/* An idle framer gives its buffer back; a partial line is never dropped. */
static void test_release_if_idle(void **state)
{
    (void)state;
    sc_framer f;
    lines out = {0};
    assert_int_equal(sc_framer_init(&f, 1024), 0);
    assert_int_equal(sc_framer_push(&f, "one\ntw", 6), 0);
    assert_int_equal(drain(&f, &out), SC_FRAME_NEED_MORE);
    sc_framer_release_if_idle(&f);
    assert_non_null(f.buf);
    assert_int_equal(sc_framer_pending(&f), 2);
    assert_int_equal(sc_framer_push(&f, "o\n", 2), 0);
    assert_int_equal(drain(&f, &out), SC_FRAME_NEED_MORE);
    sc_framer_release_if_idle(&f);
    assert_null(f.buf);
    assert_int_equal(f.cap, 0);
    assert_int_equal(sc_framer_push(&f, "three\n", 6), 0);
    assert_int_equal(drain(&f, &out), SC_FRAME_NEED_MORE);
    assert_int_equal(out.count, 3);
    assert_memory_equal(out.text, "one|two|three|", 14);
    sc_framer_free(&f);
}

/* A detached idle buffer can serve another framer; pending bytes stay put. */
static void test_detach_and_adopt(void **state)
{
    (void)state;
    sc_framer a, b;
    lines out = {0};
    size_t cap = 0;
    assert_int_equal(sc_framer_init(&a, 1024), 0);
    assert_int_equal(sc_framer_init(&b, 1024), 0);
    sc_framer_release_if_idle(&b);
    assert_int_equal(sc_framer_push(&a, "x\ny", 3), 0);
    assert_int_equal(drain(&a, &out), SC_FRAME_NEED_MORE);
    assert_null(sc_framer_detach_if_idle(&a, &cap));
    assert_int_equal(sc_framer_push(&a, "\n", 1), 0);
    assert_int_equal(drain(&a, &out), SC_FRAME_NEED_MORE);
    char *buf = sc_framer_detach_if_idle(&a, &cap);
    assert_non_null(buf);
    assert_true(cap > 0);
    assert_null(a.buf);
    sc_framer_adopt(&b, buf, cap);
    assert_ptr_equal(b.buf, buf);
    assert_int_equal(sc_framer_push(&b, "z\n", 2), 0);
    assert_int_equal(sc_framer_push(&a, "w\n", 2), 0);
    assert_int_equal(drain(&b, &out), SC_FRAME_NEED_MORE);
    assert_int_equal(drain(&a, &out), SC_FRAME_NEED_MORE);
    assert_memory_equal(out.text, "x|y|z|w|", 8);
    sc_framer_free(&a);
    sc_framer_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic_lines),
        cmocka_unit_test(test_split_at_every_byte),
        cmocka_unit_test(test_many_lines_in_one_push),
        cmocka_unit_test(test_line_length_limit),
        cmocka_unit_test(test_too_long_memory_bounded),
        cmocka_unit_test(test_incremental_scan),
        cmocka_unit_test(test_compaction_only_when_needed),
        cmocka_unit_test(test_shrinks_when_idle),
        cmocka_unit_test(test_release_if_idle),
        cmocka_unit_test(test_detach_and_adopt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
