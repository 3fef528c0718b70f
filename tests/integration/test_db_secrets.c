/*
 * A PostgreSQL --db's password never reaches streamcapd's output: not the
 * start-up line, not the error of a build without PostgreSQL or of a
 * server that cannot be reached, not the complaint about a misplaced
 * argument.  Each form libpq reads is tried (docs/design.md, "Storage
 * backends").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"

#define SECRET "hunter2"

/* Nothing listens on port 1, and no socket is in /nonexistent: a build
 * with PostgreSQL fails to connect, one without refuses the URI. */
static const char *const dbs[] = {
    "postgresql://streamcap:" SECRET "@127.0.0.1:1/streamcap",
    "postgres://streamcap:" SECRET "@127.0.0.1:1/streamcap?connect_timeout=2",
    "postgresql://127.0.0.1:1/streamcap?user=streamcap&password=" SECRET,
    "postgres:host=/nonexistent dbname=streamcap password=" SECRET,
    "postgres:host=/nonexistent password='" SECRET " x' dbname=streamcap",
};

/* streamcapd with `args`: it must stop with a message, none of it the
 * secret. */
static void expect_no_secret(const char *dir, const char *const *args, const char *what)
{
    int status = 0;
    char *out = NULL, *err = NULL;
    int rc = sc_it_run_daemon(dir, args, 20000, &status, &out, &err);
    if (rc != 0)
        fail_msg("%s: streamcapd did not exit (%s)", what, strerror(-rc));
    if (!WIFEXITED(status) || WEXITSTATUS(status) == 0)
        fail_msg("%s: streamcapd exited with status %d\nstdout: %s\nstderr: %s", what, status, out,
                 err);
    if (strstr(out, SECRET) || strstr(err, SECRET))
        fail_msg("%s: the password is in streamcapd's output\nstdout: %s\nstderr: %s", what, out,
                 err);
    if (!err[0])
        fail_msg("%s: streamcapd stopped without saying why", what);
    free(out);
    free(err);
}

static void test_db_values(void **state)
{
    (void)state;
    char dir[64];
    assert_int_equal(sc_it_tmpdir(dir, sizeof dir), 0);
    char *sock = sc_it_fmt("%s/s.sock", dir);
    for (size_t i = 0; i < sizeof dbs / sizeof dbs[0]; i++) {
        const char *args[] = {"--socket", sock, "--db", dbs[i], "--log-level", "debug", NULL};
        expect_no_secret(dir, args, dbs[i]);
    }
    free(sock);
    sc_it_rmtree(dir);
}

/* The value written into the option (--db=URI), or given without --db. */
static void test_misplaced_db(void **state)
{
    (void)state;
    char dir[64];
    assert_int_equal(sc_it_tmpdir(dir, sizeof dir), 0);
    char *joined = sc_it_fmt("--db=%s", dbs[0]);
    const char *eq[] = {joined, NULL};
    expect_no_secret(dir, eq, "--db=URI");
    const char *bare[] = {dbs[0], NULL};
    expect_no_secret(dir, bare, "a URI without --db");
    const char *kv[] = {"--log-level", "debug", dbs[3], NULL};
    expect_no_secret(dir, kv, "a key/value string without --db");
    free(joined);
    sc_it_rmtree(dir);
}

/* The redacted form still says which user and server were meant. */
static void test_redacted_text_kept(void **state)
{
    (void)state;
    char dir[64];
    assert_int_equal(sc_it_tmpdir(dir, sizeof dir), 0);
    const char *bare[] = {dbs[0], NULL};
    int status = 0;
    char *out = NULL, *err = NULL;
    assert_int_equal(sc_it_run_daemon(dir, bare, 20000, &status, &out, &err), 0);
    if (!strstr(err, "postgresql://streamcap:***@127.0.0.1:1/streamcap"))
        fail_msg("stderr: %s", err);
    free(out);
    free(err);
    sc_it_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_db_values),
        cmocka_unit_test(test_misplaced_db),
        cmocka_unit_test(test_redacted_text_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
