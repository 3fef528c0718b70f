/*
 * test_rel_logs.c - a flood of one event does not flood the log: refused
 * connections, thousands of them within seconds, write a few lines and a
 * count of the lines suppressed (once the 10 s interval is over, without
 * waiting for another line), and the count adds up to every refusal.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"
#include "rel_util.h"

/* Refusals to cause: on today's machine a few seconds' worth. */
#define FLOOD_REFUSALS 3000
#define FLOOD_MAX_MS   60000
/* What the daemon may write for them: the burst of each 10 s interval,
 * the count lines and its start and stop lines. */
#define LOG_BOUND_BYTES (32 * 1024)

static const char refused[] = "refused: per-uid quota of 1";

/* Connect, read the refusal to its EOF, close: 1 when it was a refusal. */
static int one_refusal(const char *socket_path)
{
    int fd = sc_it_socket_connect(socket_path);
    if (fd < 0)
        return 0;
    char buf[512];
    size_t got = 0;
    ssize_t n;
    while (got < sizeof(buf) - 1 && (n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
        got += (size_t)n;
    close(fd);
    buf[got] = '\0';
    return strstr(buf, "\"code\":1006") != NULL;
}

/* Lines of `log` holding `what`, and the sum of the "suppressed N" counts of
 * those among them that are counts. */
static void count_lines(const char *log, const char *what, long *written, long long *suppressed)
{
    *written = 0;
    *suppressed = 0;
    for (const char *line = log; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char *text = strndup(line, len);
        const char *s = strstr(text, "suppressed ");
        if (s && strstr(text, what))
            *suppressed += strtoll(s + strlen("suppressed "), NULL, 10);
        else if (strstr(text, what))
            (*written)++;
        free(text);
        line = end ? end + 1 : line + len;
    }
}

static void test_refusal_flood_log_is_bounded(void **state)
{
    static const char *const flags[] = {"--max-uid-connections", "1", NULL};
    sc_it_daemon *d = sc_rel_must_start(state, flags);
    sc_it_conn *held = sc_it_must_connect(d);
    sc_it_must_ok(held, "server.info", NULL);

    long refusals = 0;
    int64_t until = sc_it_now_ms() + FLOOD_MAX_MS;
    while (refusals < FLOOD_REFUSALS && sc_it_now_ms() < until)
        refusals += one_refusal(sc_it_daemon_socket(d));
    assert_int_equal(refusals, FLOOD_REFUSALS);
    /* The held client is served throughout. */
    sc_it_must_ok(held, "server.info", NULL);
    /* The count is written once the interval is over, flood or not. */
    int64_t wait_until = sc_it_now_ms() + 10000 + 5000;
    bool counted = false;
    while (!counted && sc_it_now_ms() < wait_until) {
        sc_it_sleep_ms(250);
        char *text = sc_it_read_file(sc_it_daemon_stderr_path(d));
        counted = text && strstr(text, "suppressed ");
        free(text);
    }
    if (!counted)
        fail_msg("no count of the suppressed lines 15 s after the flood began");
    sc_it_conn_close(held);
    sc_it_must_stop(d);

    char *log = sc_it_read_file(sc_it_daemon_stderr_path(d));
    assert_non_null(log);
    size_t bytes = strlen(log);
    long written;
    long long suppressed;
    count_lines(log, refused, &written, &suppressed);
    print_message("%ld refusals: %zu log bytes, %ld lines written, %lld suppressed\n", refusals,
                  bytes, written, suppressed);
    if (bytes > LOG_BOUND_BYTES)
        fail_msg("%ld refusals wrote %zu bytes of log (bound %d)", refusals, bytes,
                 LOG_BOUND_BYTES);
    /* Every refusal is either a line or counted in a line. */
    assert_true(written > 0);
    assert_true(suppressed > 0);
    assert_int_equal(written + suppressed, refusals);
    free(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        SC_REL_TEST(test_refusal_flood_log_is_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
