/*
 * Socket activation: streamcapd started the way systemd starts it from
 * streamcapd.socket serves the listening socket it inherits on fd 3 (no
 * bind of its own, the file left in place on exit) and reports readiness
 * on $NOTIFY_SOCKET.  Driven by Debian's systemd-socket-activate when it
 * is installed, and by tests/install/listen_launcher.c, which passes the
 * descriptor the same way, everywhere.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"
#include "run.h"
#include "skip.h"

#define SOCKET_ACTIVATE "/usr/bin/systemd-socket-activate"

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* The daemon may still be starting (systemd-socket-activate execs it on
 * the first connection): give it the harness's start time. */
static void expect_in_file(const char *path, const char *needle)
{
    int64_t deadline = sc_it_now_ms() + SC_IT_START_TIMEOUT_MS;
    char *text = sc_it_read_file(path);
    while ((!text || !strstr(text, needle)) && sc_it_now_ms() < deadline) {
        free(text);
        sc_it_sleep_ms(20);
        text = sc_it_read_file(path);
    }
    if (!text || !strstr(text, needle))
        fail_msg("%s lacks \"%s\":\n%s", path, needle, text ? text : "(unreadable)");
    free(text);
}

/* The installed-tool view: `streamcap --socket S ping` answers. */
static void expect_cli_ping(const char *sock)
{
    const char *argv[] = {SC_BIN_DIR "/streamcap", "--socket", sock, "ping", NULL};
    sc_ct_result r;
    assert_int_equal(sc_ct_run(argv, NULL, &r), 0);
    if (r.status != 0 || strncmp(r.out, "pong from ", 10) != 0)
        fail_msg("streamcap ping exited %d: %s%s", r.status, r.out, r.err);
    sc_ct_result_free(&r);
}

/*
 * Started under `wrapper ACT_SOCKET`: served there and never bound
 * --socket itself (when that is another path).
 */
static void check_activated(sc_it_daemon *d, const char *act)
{
    char *line = sc_it_fmt("streamcapd: listening on %s ", act);
    expect_in_file(sc_it_daemon_stdout_path(d), line);
    free(line);
    expect_in_file(sc_it_daemon_stderr_path(d), "using the socket inherited");
    if (strcmp(act, sc_it_daemon_socket(d)) != 0)
        assert_false(exists(sc_it_daemon_socket(d)));
    expect_cli_ping(act);
    sc_it_conn *c;
    assert_int_equal(sc_it_connect(act, &c), 0);
    int64_t s = sc_it_open_session(c, "activated");
    sc_it_must_ok(c, "session.close", "{\"session\":%lld}", (long long)s);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    /* systemd owns the file and keeps it for the next start. */
    assert_true(exists(act));
}

static void test_launcher_socket_and_ready(void **state)
{
    (void)state;
    sc_it_daemon *d;
    assert_int_equal(sc_it_daemon_create(&d), 0);
    char *act = sc_it_fmt("%s/act.sock", sc_it_daemon_dir(d));
    char *notify = sc_it_fmt("%s/notify", sc_it_daemon_dir(d));
    int nfd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", notify);
    assert_int_equal(bind(nfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    const char *wrapper[] = {SC_LAUNCHER, "--notify", notify, act, NULL};
    sc_it_daemon_set_wrapper(d, wrapper);
    if (sc_it_daemon_start(d, NULL) != 0)
        fail_msg("streamcapd did not start: %s", sc_it_read_file(sc_it_daemon_stderr_path(d)));
    struct pollfd p = {.fd = nfd, .events = POLLIN};
    assert_int_equal(poll(&p, 1, 10000), 1);
    char msg[256];
    ssize_t n = recv(nfd, msg, sizeof(msg) - 1, 0);
    assert_true(n > 0);
    msg[n] = '\0';
    if (!strstr(msg, "READY=1"))
        fail_msg("notification [%s] lacks READY=1", msg);
    close(nfd);
    check_activated(d, act);
    sc_it_daemon_destroy(d);
    free(notify);
    free(act);
}

static bool socket_activate_unmet(char *why, size_t len)
{
    if (access(SOCKET_ACTIVATE, X_OK) == 0)
        return false;
    snprintf(why, len, "no %s (Debian package systemd)", SOCKET_ACTIVATE);
    return true;
}

static void test_systemd_socket_activate(void **state)
{
    (void)state;
    sc_it_daemon *d;
    assert_int_equal(sc_it_daemon_create(&d), 0);
    /*
     * As the units do: --socket names the path systemd listens on.  The
     * daemon starts on the first connection (the harness's probe); one
     * that bound on its own would find that path taken and exit.
     */
    const char *act = sc_it_daemon_socket(d);
    const char *wrapper[] = {SOCKET_ACTIVATE, "-l", act, NULL};
    sc_it_daemon_set_wrapper(d, wrapper);
    if (sc_it_daemon_start(d, NULL) != 0)
        fail_msg("streamcapd did not start: %s", sc_it_read_file(sc_it_daemon_stderr_path(d)));
    check_activated(d, act);
    sc_it_daemon_destroy(d);
}

/* LISTEN_PID names another process: the variables are not ours. */
static void test_foreign_listen_pid_ignored(void **state)
{
    (void)state;
    sc_it_daemon *d;
    assert_int_equal(sc_it_daemon_create(&d), 0);
    char *act = sc_it_fmt("%s/act.sock", sc_it_daemon_dir(d));
    const char *wrapper[] = {SC_LAUNCHER, "--wrong-pid", act, NULL};
    sc_it_daemon_set_wrapper(d, wrapper);
    if (sc_it_daemon_start(d, NULL) != 0)
        fail_msg("streamcapd did not start: %s", sc_it_read_file(sc_it_daemon_stderr_path(d)));
    expect_cli_ping(sc_it_daemon_socket(d));
    sc_it_must_stop(d);
    assert_false(exists(sc_it_daemon_socket(d)));
    sc_it_daemon_destroy(d);
    free(act);
}

/* A passed socket nobody listens on is a broken unit: say so, exit 1. */
static void test_unlistened_socket_refused(void **state)
{
    (void)state;
    sc_it_daemon *d;
    assert_int_equal(sc_it_daemon_create(&d), 0);
    char *act = sc_it_fmt("%s/act.sock", sc_it_daemon_dir(d));
    const char *wrapper[] = {SC_LAUNCHER, "--no-listen", act, NULL};
    sc_it_daemon_set_wrapper(d, wrapper);
    assert_int_equal(sc_it_daemon_start(d, NULL), -ECHILD);
    int st = sc_it_daemon_status(d);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 1);
    expect_in_file(sc_it_daemon_stderr_path(d),
                   "descriptor 3 passed by the service manager is not a listening Unix stream "
                   "socket");
    sc_it_daemon_destroy(d);
    free(act);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_launcher_socket_and_ready),
        cmocka_unit_test(test_systemd_socket_activate),
        cmocka_unit_test(test_foreign_listen_pid_ignored),
        cmocka_unit_test(test_unlistened_socket_refused),
    };
    const sc_test_need needs[] = {{"test_systemd_socket_activate", socket_activate_unmet}};
    return SC_TEST_MAIN(argc, argv, tests, needs);
}
