/*
 * The streamcap tool's error messages name the real cause.  When it cannot
 * reach a daemon: a missing directory, a file that is not a socket, a
 * socket the caller may not open (the "start one" hint only where starting
 * a daemon is the fix).  When Graphviz dies of a signal: a crash.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"
#include "run.h"
#include "skip.h"

#define STREAMCAP SC_BIN_DIR "/streamcap"

static void expect_err(const char *const *argv, const char *want)
{
    sc_ct_result r;
    assert_int_equal(sc_ct_run(argv, NULL, &r), 0);
    if (r.status != 2 || strcmp(r.err, want) != 0)
        fail_msg("status %d, stderr [%s], want 2 and [%s]", r.status, r.err, want);
    assert_string_equal(r.out, "");
    sc_ct_result_free(&r);
}

static void test_missing_directory(void **state)
{
    (void)state;
    char t[64];
    assert_int_equal(sc_it_tmpdir(t, sizeof(t)), 0);
    char *sock = sc_it_fmt("%s/nodir/x.sock", t);
    const char *const argv[] = {STREAMCAP, "--socket", sock, "ping", NULL};
    char *want =
        sc_it_fmt("streamcap: cannot connect to %s: directory %s/nodir does not exist\n", sock, t);
    expect_err(argv, want);
    free(want);
    free(sock);
    sc_it_rmtree(t);
}

static void test_not_a_socket(void **state)
{
    (void)state;
    const char *const argv[] = {STREAMCAP, "--socket", "/etc/passwd", "ping", NULL};
    expect_err(argv, "streamcap: cannot connect to /etc/passwd: not a socket\n");
}

/* As root, a socket root may not open is none: the test runs the tool as
 * uid 65534 through setpriv. */
static bool permission_unmet(char *why, size_t len)
{
    if (getuid() != 0 || access("/usr/bin/setpriv", X_OK) == 0)
        return false;
    snprintf(why, len, "as root, needs /usr/bin/setpriv to connect as uid 65534");
    return true;
}

static void test_permission_denied(void **state)
{
    (void)state;
    bool root = getuid() == 0;
    char t[64];
    assert_int_equal(sc_it_tmpdir(t, sizeof(t)), 0);
    assert_int_equal(chmod(t, 0755), 0);
    char *sock = sc_it_fmt("%s/s.sock", t);
    int fd = sc_it_socket_bind(sock);
    assert_true(fd >= 0);
    /* 0600 keeps another uid out; 0 keeps out even the owner (not root). */
    assert_int_equal(chmod(sock, root ? 0600 : 0), 0);
    const char *const as_other[] = {"/usr/bin/setpriv",
                                    "--reuid=65534",
                                    "--regid=65534",
                                    "--clear-groups",
                                    STREAMCAP,
                                    "--socket",
                                    sock,
                                    "ping",
                                    NULL};
    const char *const as_me[] = {STREAMCAP, "--socket", sock, "ping", NULL};
    char *want = sc_it_fmt("streamcap: cannot connect to %s: permission denied (the daemon's "
                           "--socket-mode decides which users may connect)\n",
                           sock);
    expect_err(root ? as_other : as_me, want);
    free(want);
    close(fd);
    free(sock);
    sc_it_rmtree(t);
}

static void test_dot_crash_reported(void **state)
{
    (void)state;
    sc_it_daemon *d = sc_it_must_start(NULL);
    char t[64];
    assert_int_equal(sc_it_tmpdir(t, sizeof(t)), 0);
    const char *const demo[] = {STREAMCAP, "--socket", sc_it_daemon_socket(d), "demo", NULL};
    sc_ct_result r;
    assert_int_equal(sc_ct_run(demo, NULL, &r), 0);
    assert_int_equal(r.status, 0);
    sc_ct_result_free(&r);
    /* A dot that dies as Graphviz does on a graph too big for it. */
    char *dot = sc_it_fmt("%s/dot", t);
    FILE *f = fopen(dot, "w");
    assert_non_null(f);
    fputs("#!/bin/sh\ncat >/dev/null\nkill -SEGV $$\n", f);
    fclose(f);
    assert_int_equal(chmod(dot, 0755), 0);
    char *path = sc_it_fmt("PATH=%s:%s", t, getenv("PATH"));
    const char *const env[] = {path, NULL};
    sc_ct_opts o = {.setenv = env};
    char *svg = sc_it_fmt("%s/g.svg", t);
    const char *const render[] = {
        STREAMCAP, "--socket", sc_it_daemon_socket(d), "graph", "render", "1", svg, NULL};
    assert_int_equal(sc_ct_run(render, &o, &r), 0);
    char *want = sc_it_fmt("streamcap: Graphviz 'dot' crashed (Segmentation fault) while "
                           "rendering %s\n",
                           svg);
    if (r.status != 2 || strcmp(r.err, want) != 0)
        fail_msg("status %d, stderr [%s], want 2 and [%s]", r.status, r.err, want);
    sc_ct_result_free(&r);
    free(want);
    free(svg);
    free(path);
    free(dot);
    sc_it_rmtree(t);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_directory),
        cmocka_unit_test(test_not_a_socket),
        cmocka_unit_test(test_permission_denied),
        cmocka_unit_test(test_dot_crash_reported),
    };
    const sc_test_need needs[] = {{"test_permission_denied", permission_unmet}};
    return SC_TEST_MAIN(argc, argv, tests, needs);
}
