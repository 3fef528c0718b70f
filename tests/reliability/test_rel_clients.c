/*
 * Slow and many clients: a client that pipelines without reading (alone,
 * and through one batch whose replies would be huge) neither grows the
 * daemon's memory without bound nor delays other clients, and is cut off
 * after --write-timeout seconds without taking a byte, while one that reads
 * slowly keeps its connection as long as it reads; connections over
 * --max-connections get one 1006 line and a close; a daemon out of file
 * descriptors survives and accepts again once clients leave; idle
 * connections cost little memory each.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rel_util.h"
#include "skip.h"

/* A raw non-blocking client socket: the harness connection reads while it
 * writes, which is exactly what a client that never reads does not do. */
static int raw_connect(const char *path)
{
    int fd = sc_it_socket_connect(path);
    if (fd >= 0)
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

/* Write as much of buf as the socket takes now: bytes written or -errno. */
static ssize_t raw_write_some(int fd, const char *buf, size_t len)
{
    size_t off = 0;
    while (off < len) {
        ssize_t n = send(fd, buf + off, len - off, MSG_NOSIGNAL);
        if (n > 0) {
            off += (size_t)n;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            break;
        return n < 0 ? -errno : (ssize_t)off;
    }
    return (ssize_t)off;
}

/* One round trip on another connection, timed: a functional bound, not a benchmark. */
static void expect_prompt(sc_it_conn *c, int64_t graph, int64_t nodes, const char *during)
{
    for (int i = 0; i < 3; i++) {
        int64_t t0 = sc_it_now_ms();
        cJSON *res = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", (long long)graph);
        int64_t ms = sc_it_now_ms() - t0;
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(res, "nodes");
        assert_int_equal(cJSON_GetArraySize(list), nodes);
        cJSON_Delete(res);
        t0 = sc_it_now_ms();
        res = sc_it_must_result(c, "server.info", NULL);
        ms = ms > sc_it_now_ms() - t0 ? ms : sc_it_now_ms() - t0;
        cJSON_Delete(res);
        if (ms >= 1000)
            fail_msg("a round trip took %lld ms while %s", (long long)ms, during);
    }
}

#define FLOOD_GRAPH_KERNELS 2000
#define WRITE_TIMEOUT_S     2
#define FLOOD_LIMIT_MS      12000

static char *repeat_line(const char *line, size_t times, size_t *len)
{
    size_t l = strlen(line);
    char *buf = malloc(l * times);
    assert_non_null(buf);
    for (size_t i = 0; i < times; i++)
        memcpy(buf + i * l, line, l);
    *len = l * times;
    return buf;
}

static void test_pipelining_client_that_never_reads(void **state)
{
    static const char *const args[] = {"--write-timeout", "2", NULL}; /* WRITE_TIMEOUT_S */
    sc_it_daemon *d = sc_rel_must_start(state, args);
    pid_t pid = sc_it_daemon_pid(d);
    sc_it_conn *other = sc_it_must_connect(d);
    int64_t nodes;
    int64_t big = sc_rel_must_graph(other, "flood", FLOOD_GRAPH_KERNELS, &nodes, NULL);
    int64_t small = sc_rel_must_graph(other, "small", 8, NULL, NULL);
    expect_prompt(other, small, 8, "nothing else happens");
    long base = sc_rel_rss_kib(pid);

    /* Each graph.get of the big graph replies with well over 100 KB. */
    char req[160];
    snprintf(
        req, sizeof(req),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"graph.get\",\"params\":{\"graph\":%lld}}\n",
        (long long)big);
    size_t flood_len;
    char *flood = repeat_line(req, 4096, &flood_len);
    int fd = raw_connect(sc_it_daemon_socket(d));
    assert_true(fd >= 0);
    int64_t start = sc_it_now_ms();
    int64_t cut_after = -1;
    size_t off = 0, written = 0;
    long peak = base;
    while (sc_it_now_ms() - start < FLOOD_LIMIT_MS) {
        ssize_t n = raw_write_some(fd, flood + off, flood_len - off);
        if (n < 0) {
            cut_after = sc_it_now_ms() - start;
            break;
        }
        written += (size_t)n;
        off = (off + (size_t)n) % flood_len;
        expect_prompt(other, small, 8, "another client pipelines without reading");
        long rss = sc_rel_rss_kib(pid);
        peak = rss > peak ? rss : peak;
        sc_it_sleep_ms(20);
    }
    print_message("never-reading client: %zu requests written, cut off after %lld ms, daemon RSS "
                  "%ld KiB -> peak %ld KiB\n",
                  written / strlen(req), (long long)cut_after, base, peak);
    /* Reading paused at the output high-water mark (4 MiB) plus a reply in
     * progress and the graph cache: far below what the requests written
     * would produce if answered into memory. */
    long bound = base + 64 * 1024 * SC_REL_MEM_FACTOR;
    if (peak > bound)
        fail_msg("daemon RSS grew from %ld to %ld KiB under a never-reading client (bound %ld)",
                 base, peak, bound);
    /* --write-timeout 2: a client that takes no reply bytes for 2 s is
     * disconnected; it cannot have stalled for longer than it existed. */
    if (cut_after < 0)
        fail_msg("a client that never reads was not disconnected within %d ms "
                 "(--write-timeout %d)",
                 FLOOD_LIMIT_MS, WRITE_TIMEOUT_S);
    if (cut_after < WRITE_TIMEOUT_S * 1000 - 100)
        fail_msg("a never-reading client was disconnected after %lld ms, before its "
                 "--write-timeout of %d s",
                 (long long)cut_after, WRITE_TIMEOUT_S);
    close(fd);
    free(flood);
    expect_prompt(other, big, nodes, "a flooding client was cut off");
    sc_it_conn_close(other);
    sc_it_must_stop(d);
}

/*
 * A client that reads its replies slowly is not a client that stopped
 * reading: one taking 4 KiB every 200 ms (20 KiB/s) keeps its connection
 * for as long as it reads, far beyond --write-timeout, and gets every byte;
 * one that sent the same requests and never reads is cut off after the
 * timeout.  The daemon's socket send buffer holds far more than 2 s of
 * such a reader, so progress must be judged by what the peer takes, not
 * by libuv's queue, which only moves when the buffer has drained.
 */
#define SLOW_GETS     6
#define SLOW_CHUNK    4096
#define SLOW_PAUSE_MS 200
#define SLOW_READ_MS  9000

/* Read what is there (non-blocking) into a counter: bytes, 0 at EOF, -1 none now. */
static ssize_t drain_some(int fd, size_t max, size_t *total, size_t *newlines)
{
    char buf[SLOW_CHUNK];
    ssize_t n = recv(fd, buf, max < sizeof(buf) ? max : sizeof(buf), MSG_DONTWAIT);
    if (n < 0)
        return errno == EAGAIN || errno == EINTR ? -1 : 0;
    for (ssize_t i = 0; i < n; i++)
        *newlines += buf[i] == '\n';
    *total += (size_t)n;
    return n;
}

/* Read until EOF or `lines` complete lines, for at most `ms`: true at EOF. */
static bool drain_until(int fd, size_t lines, int ms, size_t *total, size_t *newlines)
{
    int64_t end = sc_it_now_ms() + ms;
    while (sc_it_now_ms() < end && *newlines < lines) {
        ssize_t n = drain_some(fd, SLOW_CHUNK, total, newlines);
        if (n == 0)
            return true;
        if (n < 0)
            sc_it_sleep_ms(5);
    }
    return false;
}

static void test_slow_reader_is_not_cut_off(void **state)
{
    static const char *const args[] = {"--write-timeout", "2", NULL}; /* WRITE_TIMEOUT_S */
    sc_it_daemon *d = sc_rel_must_start(state, args);
    sc_it_conn *c = sc_it_must_connect(d);
    int64_t big = sc_rel_must_graph(c, "slow", FLOOD_GRAPH_KERNELS, NULL, NULL);
    char req[160];
    snprintf(
        req, sizeof(req),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"graph.get\",\"params\":{\"graph\":%lld}}\n",
        (long long)big);
    size_t len;
    char *gets = repeat_line(req, SLOW_GETS, &len);
    int slow = raw_connect(sc_it_daemon_socket(d));
    int never = raw_connect(sc_it_daemon_socket(d));
    assert_true(slow >= 0 && never >= 0);
    assert_int_equal(raw_write_some(slow, gets, len), (ssize_t)len);
    assert_int_equal(raw_write_some(never, gets, len), (ssize_t)len);

    size_t slow_bytes = 0, slow_lines = 0;
    int64_t start = sc_it_now_ms();
    while (sc_it_now_ms() - start < SLOW_READ_MS) {
        if (drain_some(slow, SLOW_CHUNK, &slow_bytes, &slow_lines) == 0)
            fail_msg("a client reading %d bytes every %d ms was disconnected after %lld ms "
                     "(%zu bytes taken, --write-timeout %d)",
                     SLOW_CHUNK, SLOW_PAUSE_MS, (long long)(sc_it_now_ms() - start), slow_bytes,
                     WRITE_TIMEOUT_S);
        if (slow_lines == SLOW_GETS)
            fail_msg("the replies (%zu bytes) are too small to outlast the send buffer",
                     slow_bytes);
        sc_it_sleep_ms(SLOW_PAUSE_MS);
    }
    /* The one that never read was cut off: its socket ends before the replies do. */
    size_t never_bytes = 0, never_lines = 0;
    if (!drain_until(never, SLOW_GETS, 5000, &never_bytes, &never_lines))
        fail_msg("a client that never read was not disconnected after %d ms (--write-timeout %d)",
                 SLOW_READ_MS, WRITE_TIMEOUT_S);
    assert_true(never_lines < SLOW_GETS);
    /* The slow one gets everything, and its connection still serves. */
    if (drain_until(slow, SLOW_GETS, 10000, &slow_bytes, &slow_lines))
        fail_msg("a client reading %d bytes every %d ms was disconnected: EOF after %zu bytes, "
                 "%zu of %d replies (--write-timeout %d)",
                 SLOW_CHUNK, SLOW_PAUSE_MS, slow_bytes, slow_lines, SLOW_GETS, WRITE_TIMEOUT_S);
    if (slow_lines != SLOW_GETS)
        fail_msg("the slow reader got %zu of %d replies (%zu bytes)", slow_lines, SLOW_GETS,
                 slow_bytes);
    print_message("slow reader: %zu bytes in %d replies; never-reading client cut off after "
                  "%zu bytes\n",
                  slow_bytes, SLOW_GETS, never_bytes);
    static const char info[] = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"server.info\"}\n";
    assert_int_equal(raw_write_some(slow, info, strlen(info)), (ssize_t)strlen(info));
    if (drain_until(slow, SLOW_GETS + 1, 5000, &slow_bytes, &slow_lines) ||
        slow_lines != SLOW_GETS + 1)
        fail_msg("the slow reader's connection does not answer after its replies");
    close(slow);
    close(never);
    free(gets);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
}

/*
 * SIGTERM while a client holds replies it never reads: the daemon finishes
 * what is in flight, then closes that connection within its stop grace
 * (5 s) and exits 0, instead of waiting on the client for good.
 */
static void test_stop_with_unread_replies(void **state)
{
    sc_it_daemon *d = sc_rel_must_start(state, NULL);
    sc_it_conn *other = sc_it_must_connect(d);
    int64_t big = sc_rel_must_graph(other, "unread", FLOOD_GRAPH_KERNELS, NULL, NULL);
    sc_it_conn_close(other);
    char req[160];
    snprintf(
        req, sizeof(req),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"graph.get\",\"params\":{\"graph\":%lld}}\n",
        (long long)big);
    size_t flood_len;
    char *flood = repeat_line(req, 256, &flood_len);
    int fd = raw_connect(sc_it_daemon_socket(d));
    assert_true(fd >= 0);
    /* Write until the daemon stops taking requests: its replies then sit
     * in its output, unread, and it has paused reading. */
    size_t off = 0;
    int64_t start = sc_it_now_ms();
    while (off < flood_len && sc_it_now_ms() - start < 5000) {
        ssize_t n = raw_write_some(fd, flood + off, flood_len - off);
        if (n < 0)
            break;
        off += (size_t)n;
        if (n == 0)
            sc_it_sleep_ms(20);
    }
    sc_it_sleep_ms(300);
    int status = -1;
    int64_t t0 = sc_it_now_ms();
    int rc = sc_it_daemon_signal_stop(d, SIGTERM, &status);
    int64_t took = sc_it_now_ms() - t0;
    close(fd);
    free(flood);
    if (rc != 0)
        fail_msg("SIGTERM with a client holding unread replies: the daemon did not exit within "
                 "%d ms (%d)",
                 SC_IT_STOP_TIMEOUT_MS, rc);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("stopped with unread replies: wait status 0x%x, expected exit 0",
                 (unsigned)status);
    print_message("SIGTERM with unread replies: exited 0 after %lld ms\n", (long long)took);
}

/*
 * One line, many requests: a batch of graph.get calls whose replies, put
 * together, would take gigabytes.  The daemon must not build that in
 * memory: it may answer with errors, cut the client off, or stream, but
 * its memory stays bounded and other clients stay served.
 */
#define BATCH_REQUESTS 12000

static void test_batch_amplification(void **state)
{
    sc_it_daemon *d = sc_rel_must_start(state, NULL);
    pid_t pid = sc_it_daemon_pid(d);
    sc_it_conn *other = sc_it_must_connect(d);
    int64_t nodes;
    int64_t big = sc_rel_must_graph(other, "amplified", FLOOD_GRAPH_KERNELS, &nodes, NULL);
    int64_t small = sc_rel_must_graph(other, "small", 8, NULL, NULL);
    cJSON *res = sc_it_must_result(other, "graph.get", "{\"graph\":%lld}", (long long)big);
    char *text = sc_it_json_text(res);
    size_t one_reply = strlen(text);
    free(text);
    cJSON_Delete(res);
    long base = sc_rel_rss_kib(pid);

    char item[128];
    snprintf(item, sizeof(item),
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"graph.get\",\"params\":{\"graph\":%lld}}",
             (long long)big);
    size_t il = strlen(item);
    size_t len = 1 + BATCH_REQUESTS * (il + 1) + 1;
    char *batch = malloc(len);
    assert_non_null(batch);
    batch[0] = '[';
    for (size_t i = 0; i < BATCH_REQUESTS; i++) {
        memcpy(batch + 1 + i * (il + 1), item, il);
        batch[1 + i * (il + 1) + il] = ',';
    }
    batch[len - 2] = ']';
    batch[len - 1] = '\n';
    assert_true(len <= 1u << 20); /* one line within the default --max-message */

    int fd = raw_connect(sc_it_daemon_socket(d));
    assert_true(fd >= 0);
    size_t off = 0;
    long peak = base;
    long bound = base + 256 * 1024 * SC_REL_MEM_FACTOR;
    int64_t end = sc_it_now_ms() + 4000;
    /* Stop watching as soon as the bound is broken: no need to let the
     * daemon take gigabytes from a shared machine to prove the point. */
    while (sc_it_now_ms() < end && peak <= bound) {
        if (off < len) {
            ssize_t n = raw_write_some(fd, batch + off, len - off);
            if (n < 0)
                break; /* cut off: allowed */
            off += (size_t)n;
        }
        long rss = sc_rel_rss_kib(pid);
        peak = rss > peak ? rss : peak;
        if (rss < 0)
            fail_msg("the daemon died during a batch of %d graph.get calls", BATCH_REQUESTS);
        expect_prompt(other, small, 8, "another client's batch is being answered");
    }
    print_message("batch amplification: one %zu-byte line asks for %zu MB of replies; daemon RSS "
                  "%ld KiB -> peak %ld KiB\n",
                  len, one_reply * BATCH_REQUESTS >> 20, base, peak);
    if (peak > bound)
        fail_msg("one batch line of %d graph.get calls (replies worth %zu MB) grew the daemon "
                 "from %ld to %ld KiB (bound %ld KiB): a client can exhaust the daemon's memory",
                 BATCH_REQUESTS, one_reply * BATCH_REQUESTS >> 20, base, peak, bound);
    close(fd);
    free(batch);
    expect_prompt(other, big, nodes, "the batch client left");
    sc_it_conn_close(other);
    sc_it_must_stop(d);
}

#define MAX_CONN   20
#define EXTRA_CONN 100

static void test_max_connections(void **state)
{
    /* The global limit, not the per-uid quota (test_rel_quota): one uid may
     * take it all, root or not (nothing kept for root). */
    static const char *const args[] = {
        "--max-connections", "20", "--max-uid-connections", "20", "--root-reserved", "0", NULL};
    sc_it_daemon *d = sc_rel_must_start(state, args);
    sc_it_conn *in[MAX_CONN];
    for (int i = 0; i < MAX_CONN; i++) {
        in[i] = sc_it_must_connect(d);
        cJSON *r = sc_it_must_result(in[i], "server.info", NULL);
        cJSON_Delete(r);
    }
    for (int i = 0; i < EXTRA_CONN; i++) {
        sc_it_conn *c = sc_it_must_connect(d);
        char *line = NULL;
        size_t len;
        int rc = sc_it_recv_line(c, &line, &len);
        if (rc != 0)
            fail_msg("extra connection #%d over --max-connections 20: no error line (rc %d)", i,
                     rc);
        cJSON *reply = cJSON_ParseWithLength(line, len);
        int64_t code = 0;
        const char *kind = sc_rel_error_kind(reply);
        if (!sc_rel_error_code(reply, &code) || code != 1006 || !kind ||
            strcmp(kind, "limit") != 0 ||
            !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(reply, "id")))
            fail_msg("extra connection #%d: expected one 1006 (limit) error with id null, got "
                     "%.300s",
                     i, line);
        cJSON_Delete(reply);
        free(line);
        rc = sc_it_expect_eof(c);
        if (rc != 0)
            fail_msg("extra connection #%d: expected a close after the 1006 line, got rc %d", i,
                     rc);
        sc_it_conn_close(c);
    }
    /* The admitted ones never noticed; a freed slot is taken again. */
    for (int i = 0; i < MAX_CONN; i++) {
        cJSON *r = sc_it_must_result(in[i], "server.info", NULL);
        cJSON_Delete(r);
    }
    sc_it_conn_close(in[0]);
    in[0] = NULL;
    int64_t deadline = sc_it_now_ms() + 5000;
    for (;;) {
        sc_it_conn *c = sc_it_must_connect(d);
        cJSON *reply = NULL;
        int rc = sc_it_try_call(c, &reply, "server.info", NULL);
        bool ok = rc == 0 && cJSON_GetObjectItemCaseSensitive(reply, "result");
        cJSON_Delete(reply);
        if (ok) {
            in[0] = c;
            break;
        }
        sc_it_conn_close(c);
        if (sc_it_now_ms() > deadline)
            fail_msg("a slot freed under --max-connections was not reused within 5 s");
        sc_it_sleep_ms(20);
    }
    for (int i = 0; i < MAX_CONN; i++)
        sc_it_conn_close(in[i]);
    sc_it_must_stop(d);
}

#define FD_LIMIT    256
#define FD_ATTEMPTS 300

static bool descriptors_unmet(char *why, size_t len)
{
    struct rlimit rl;
    /* A getrlimit that fails is the test's own failure, not a skip. */
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_max == RLIM_INFINITY ||
        rl.rlim_max >= FD_ATTEMPTS + 64)
        return false;
    snprintf(why, len, "RLIMIT_NOFILE hard limit %llu is too low for %d connections",
             (unsigned long long)rl.rlim_max, FD_ATTEMPTS);
    return true;
}

static void test_out_of_descriptors(void **state)
{
    /* The daemon inherits the limit across fork and exec. */
    struct rlimit saved, low;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &saved), 0);
    low = saved;
    low.rlim_cur = FD_LIMIT;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    sc_it_daemon *d;
    int rc = sc_it_daemon_create(&d);
    if (rc == 0) {
        sc_rel_adopt(state, d);
        rc = sc_it_daemon_start(d, NULL);
    }
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &saved), 0);
    if (rc != 0)
        fail_msg("streamcapd did not start with %d descriptors: %d", FD_LIMIT, rc);

    sc_it_conn *conns[FD_ATTEMPTS] = {0};
    int connected = 0, answered = 0, closed = 0;
    for (int i = 0; i < FD_ATTEMPTS; i++) {
        if (sc_it_connect(sc_it_daemon_socket(d), &conns[i]) != 0)
            continue;
        connected++;
        sc_it_conn_set_timeout(conns[i], 3000);
        char *req = sc_it_format_request(1, "server.info", NULL);
        if (sc_it_send_line(conns[i], req) != 0) {
            sc_it_conn_close(conns[i]);
            conns[i] = NULL;
        }
        free(req);
    }
    /* Give the daemon time to answer what it accepted, then collect. */
    sc_it_sleep_ms(1500);
    for (int i = 0; i < FD_ATTEMPTS; i++) {
        if (!conns[i])
            continue;
        sc_it_conn_set_timeout(conns[i], 1);
        char *line = NULL;
        rc = sc_it_recv_line(conns[i], &line, NULL);
        if (rc == 0)
            answered++;
        else if (rc == SC_IT_EOF)
            closed++;
        free(line);
    }
    print_message("out of descriptors: %d of %d connections made, %d answered, %d closed, rest "
                  "waiting\n",
                  connected, FD_ATTEMPTS, answered, closed);
    if (!sc_it_daemon_running(d))
        fail_msg("streamcapd died when it ran out of file descriptors (wait status 0x%x)",
                 (unsigned)sc_it_daemon_status(d));
    /* Most of the limit serves clients; the rest is the daemon's own. */
    assert_true(answered >= FD_LIMIT / 2);
    assert_true(answered < FD_ATTEMPTS);
    for (int i = 0; i < FD_ATTEMPTS; i++)
        sc_it_conn_close(conns[i]);

    int64_t deadline = sc_it_now_ms() + 10000;
    for (;;) {
        sc_it_conn *c = NULL;
        cJSON *reply = NULL;
        bool ok = sc_it_connect(sc_it_daemon_socket(d), &c) == 0;
        if (ok) {
            sc_it_conn_set_timeout(c, 1000);
            ok = sc_it_try_call(c, &reply, "server.info", NULL) == 0 &&
                 cJSON_GetObjectItemCaseSensitive(reply, "result");
        }
        cJSON_Delete(reply);
        sc_it_conn_close(c);
        if (ok)
            break;
        if (sc_it_now_ms() > deadline)
            fail_msg("streamcapd did not accept again within 10 s after clients left");
        sc_it_sleep_ms(50);
    }
    sc_it_must_stop(d);
}

#define IDLE_CONNS 1000

/* Room for `need` descriptors in this process and the daemons it starts. */
static bool raise_fd_limit(rlim_t need)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return false;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
            return false;
        rl.rlim_cur = need;
        return setrlimit(RLIMIT_NOFILE, &rl) == 0;
    }
    return true;
}

static bool idle_unmet(char *why, size_t len)
{
    if (raise_fd_limit(IDLE_CONNS + 128))
        return false;
    snprintf(why, len, "RLIMIT_NOFILE cannot be raised to %d", IDLE_CONNS + 128);
    return true;
}

static void test_idle_connections_are_cheap(void **state)
{
    assert_true(raise_fd_limit(IDLE_CONNS + 128));
    /* --max-connections 1024 by default; all of them this test's uid's */
    static const char *const args[] = {"--max-uid-connections", "1024", NULL};
    sc_it_daemon *d = sc_rel_must_start(state, args);
    pid_t pid = sc_it_daemon_pid(d);
    sc_it_conn *probe = sc_it_must_connect(d);
    cJSON *r = sc_it_must_result(probe, "server.info", NULL);
    cJSON_Delete(r);
    long base = sc_rel_rss_kib(pid);
    sc_it_conn **conns = calloc(IDLE_CONNS, sizeof(*conns));
    assert_non_null(conns);
    /* Each makes one request of a small reply (session.list), so that what
     * is measured is what an idle connection keeps, not the allocator's
     * (or the sanitizer's quarantine's) share of a larger reply. */
    for (int i = 0; i < IDLE_CONNS; i++) {
        conns[i] = sc_it_must_connect(d);
        r = sc_it_must_result(conns[i], "session.list", NULL);
        cJSON_Delete(r);
    }
    r = sc_it_must_result(probe, "server.info", NULL);
    assert_int_equal(sc_it_int(r, "connections"), IDLE_CONNS + 1);
    cJSON_Delete(r);
    long after = sc_rel_rss_kib(pid);
    double per = (double)(after - base) / IDLE_CONNS;
    print_message("idle connections: daemon RSS %ld KiB -> %ld KiB, %.2f KiB per connection\n",
                  base, after, per);
    if (per > 8.0 * SC_REL_MEM_FACTOR)
        fail_msg("%d idle connections cost %.2f KiB of daemon RSS each (bound %d KiB)", IDLE_CONNS,
                 per, 8 * SC_REL_MEM_FACTOR);
    for (int i = 0; i < IDLE_CONNS; i++)
        sc_it_conn_close(conns[i]);
    free(conns);
    sc_it_conn_close(probe);
    sc_it_must_stop(d);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        SC_REL_TEST(test_pipelining_client_that_never_reads),
        SC_REL_TEST(test_slow_reader_is_not_cut_off),
        SC_REL_TEST(test_stop_with_unread_replies),
        SC_REL_TEST(test_batch_amplification),
        SC_REL_TEST(test_max_connections),
        SC_REL_TEST(test_out_of_descriptors),
        SC_REL_TEST(test_idle_connections_are_cheap),
    };
    const sc_test_need needs[] = {{"test_out_of_descriptors", descriptors_unmet},
                                  {"test_idle_connections_are_cheap", idle_unmet}};
    return SC_TEST_MAIN(argc, argv, tests, needs);
}
