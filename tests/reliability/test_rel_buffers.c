/*
 * test_rel_buffers.c - the daemon-wide buffer budget (--buffer-budget):
 * many clients that pipeline small requests and never read their replies,
 * and many clients that leave a big request line unfinished, raise the
 * daemon's memory by about the budget, not by each connection's own bound
 * (the 4 MiB output mark, --max-message) times the connections; a client
 * within its share is served meanwhile, and one over it (a line bigger
 * than its share) goes on once there is room again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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

#define BUDGET_MIB 32
/* The bound on the RSS growth: twice the budget (connections past their
 * share while the budget fills, buffers grown by doubling) plus, per
 * connection, its share's floor and one read or one reply (256 KiB), plus
 * 32 MiB for the rest (parses, allocator slack), times what a sanitizer
 * adds.  Without the budget each connection holds its own 4 MiB or 1 MiB:
 * several times more. */
#define BOUND_KIB(conns) (((2L * BUDGET_MIB + 32) * 1024 + (long)(conns)*256) * SC_REL_MEM_FACTOR)

static const char *const budget_flags[] = {
    "--buffer-budget", "32M", "--max-connections", "1024", "--max-uid-connections", "1000", NULL};

/* RSS once it stopped growing: two readings 500 ms apart within 1%. */
static long settled_rss_kib(pid_t pid)
{
    long last = sc_rel_rss_kib(pid);
    for (int i = 0; i < 40; i++) {
        sc_it_sleep_ms(500);
        long now = sc_rel_rss_kib(pid);
        if (now - last < last / 100)
            return now;
        last = now;
    }
    return last;
}

/* A client within its share is answered while the others hold the budget. */
static void expect_served(sc_it_daemon *d)
{
    sc_it_conn *c = sc_it_must_connect(d);
    int64_t t0 = sc_it_now_ms();
    sc_it_must_ok(c, "server.info", NULL);
    int64_t ms = sc_it_now_ms() - t0;
    sc_it_conn_close(c);
    if (ms > 5000)
        fail_msg("server.info took %lld ms beside the budget's holders", (long long)ms);
}

static void store_graphs(sc_it_daemon *d, int n)
{
    sc_it_conn *c = sc_it_must_connect(d);
    for (int i = 0; i < n; i++)
        sc_it_must_ok(c, "graph.submit",
                      "{\"label\":\"a label long enough to make the rows of graph.list weigh\","
                      "\"nodes\":[{\"kind\":\"kernel\",\"function_name\":\"k\",\"grid\":[1,1,1],"
                      "\"block\":[32,1,1]}],\"edges\":[]}");
    sc_it_conn_close(c);
}

static int nonblocking(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* Write what the socket takes of buf[*done..len); false when it took
 * nothing. */
static bool push(int fd, const char *buf, size_t len, size_t *done)
{
    bool moved = false;
    while (*done < len) {
        ssize_t n = write(fd, buf + *done, len - *done);
        if (n <= 0)
            break;
        *done += (size_t)n;
        moved = true;
    }
    return moved;
}

/* Each of `nfd` sockets writes its `len` bytes, from done[i] on;
 * round-robin until all is written or nothing moved for `idle_ms`. */
static void push_all_from(const int *fd, int nfd, const char *buf, size_t len, size_t *done,
                          int idle_ms)
{
    int64_t last_move = sc_it_now_ms();
    for (;;) {
        bool all = true, moved = false;
        for (int i = 0; i < nfd; i++) {
            moved |= push(fd[i], buf, len, &done[i]);
            all &= done[i] == len;
        }
        if (moved)
            last_move = sc_it_now_ms();
        if (all || sc_it_now_ms() - last_move > idle_ms)
            break;
        sc_it_sleep_ms(5);
    }
}

static void push_all(const int *fd, int nfd, const char *buf, size_t len, int idle_ms)
{
    size_t *done = calloc((size_t)nfd, sizeof(*done));
    assert_non_null(done);
    push_all_from(fd, nfd, buf, len, done, idle_ms);
    free(done);
}

#define LATE_LINE    (300u << 10)
#define LATE_WAIT_MS 10000

/* One request line bigger than a share, sent in two steps. */
typedef struct late_line {
    int fd;
    char *text;
    size_t len, done;
} late_line;

/* Connects and sends all of the line but its newline, until the daemon
 * stops taking it (it is over its share while the budget is spent). */
static void late_start(late_line *l, sc_it_daemon *d)
{
    static const char head[] =
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"server.info\",\"params\":{\"pad\":\"";
    l->fd = sc_it_socket_connect(sc_it_daemon_socket(d));
    assert_true(l->fd >= 0);
    assert_int_equal(nonblocking(l->fd), 0);
    l->len = LATE_LINE;
    l->text = malloc(l->len);
    assert_non_null(l->text);
    memcpy(l->text, head, sizeof(head) - 1);
    memset(l->text + sizeof(head) - 1, 'a', l->len - (sizeof(head) - 1) - 4);
    memcpy(l->text + l->len - 4, "\"}}\n", 4);
    l->done = 0;
    push_all_from(&l->fd, 1, l->text, l->len - 1, &l->done, 1000);
}

/* The rest of the line, then its reply: both within LATE_WAIT_MS. */
static void late_finish(late_line *l)
{
    push_all_from(&l->fd, 1, l->text, l->len, &l->done, LATE_WAIT_MS);
    if (l->done != l->len)
        fail_msg("the daemon took %zu of %zu bytes of the line once there was room", l->done,
                 l->len);
    char reply[4096];
    size_t got = 0;
    int64_t until = sc_it_now_ms() + LATE_WAIT_MS;
    while (!memchr(reply, '\n', got) && got < sizeof(reply) - 1 && sc_it_now_ms() < until) {
        ssize_t n = read(l->fd, reply + got, sizeof(reply) - 1 - got);
        if (n > 0)
            got += (size_t)n;
        else if (n == 0)
            break;
        else
            sc_it_sleep_ms(5);
    }
    reply[got] = '\0';
    if (!strstr(reply, "\"id\":7"))
        fail_msg("no reply to the line within %d ms once there was room: '%s'", LATE_WAIT_MS,
                 reply);
    close(l->fd);
    free(l->text);
}

static void check_growth(const char *what, long before, long after, int conns)
{
    long grew = after - before;
    print_message("%s: RSS %ld -> %ld KiB (+%ld KiB; bound %ld KiB)\n", what, before, after, grew,
                  BOUND_KIB(conns));
    if (grew > BOUND_KIB(conns))
        fail_msg("%s raised the RSS by %ld KiB, over the bound of %ld KiB", what, grew,
                 BOUND_KIB(conns));
}

#define READERS 200
#define ASKS    400

/* 200 clients each pipeline 400 graph.list requests (about 20 KB of reply
 * each, under the 64 KiB from which --reply-budget counts) and never read:
 * 8 MB of replies each, 4 MiB held per connection without the budget. */
static void test_non_readers_of_small_replies(void **state)
{
    sc_it_daemon *d = sc_rel_must_start(state, budget_flags);
    store_graphs(d, 100);
    char line[128];
    int len = snprintf(line, sizeof(line),
                       "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"graph.list\","
                       "\"params\":{\"limit\":100}}\n");
    size_t blen = (size_t)len * ASKS;
    char *burst = malloc(blen);
    assert_non_null(burst);
    for (int i = 0; i < ASKS; i++)
        memcpy(burst + (size_t)i * (size_t)len, line, (size_t)len);

    pid_t pid = sc_it_daemon_pid(d);
    long before = settled_rss_kib(pid);
    int fd[READERS];
    for (int i = 0; i < READERS; i++) {
        fd[i] = sc_it_socket_connect(sc_it_daemon_socket(d));
        assert_true(fd[i] >= 0);
        assert_int_equal(nonblocking(fd[i]), 0);
    }
    push_all(fd, READERS, burst, blen, 2000);
    long after = settled_rss_kib(pid);
    expect_served(d);
    check_growth("200 clients not reading small replies", before, after, READERS);
    /* One more sends a line bigger than its share while the budget is spent:
     * it waits, and goes on once the others are gone. */
    late_line late;
    late_start(&late, d);
    for (int i = 0; i < READERS; i++)
        close(fd[i]);
    late_finish(&late);
    free(burst);
}

#define LINES 300

/* 300 clients each send 1 MiB of a request line and never its newline. */
static void test_unfinished_big_lines(void **state)
{
    sc_it_daemon *d = sc_rel_must_start(state, budget_flags);
    size_t blen = (1u << 20) - 16;
    char *burst = malloc(blen);
    assert_non_null(burst);
    const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server.info\",\"x\":\"";
    memcpy(burst, head, sizeof(head) - 1);
    memset(burst + sizeof(head) - 1, 'a', blen - (sizeof(head) - 1));

    pid_t pid = sc_it_daemon_pid(d);
    long before = settled_rss_kib(pid);
    int fd[LINES];
    for (int i = 0; i < LINES; i++) {
        fd[i] = sc_it_socket_connect(sc_it_daemon_socket(d));
        assert_true(fd[i] >= 0);
        assert_int_equal(nonblocking(fd[i]), 0);
    }
    push_all(fd, LINES, burst, blen, 2000);
    long after = settled_rss_kib(pid);
    expect_served(d);
    check_growth("300 unfinished 1 MiB lines", before, after, LINES);
    for (int i = 0; i < LINES; i++)
        close(fd[i]);
    free(burst);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        SC_REL_TEST(test_non_readers_of_small_replies),
        SC_REL_TEST(test_unfinished_big_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
