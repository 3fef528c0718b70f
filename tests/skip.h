/*
 * skip.h - tests that say when they did not run.
 *
 * ctest counts a test as skipped only when it exits with the entry's
 * SKIP_RETURN_CODE, SC_TEST_SKIP here; a test that cmocka skips from
 * inside counts as passed.  So a test that needs something of the machine
 * (root, a tool, a resource limit, a server it may stop) gets a ctest entry
 * of its own (sc_add_needs_test in tests/CMakeLists.txt) that runs
 * `PROGRAM TEST`: that test alone, or, where what it needs is missing, one
 * line saying why and the exit status SC_TEST_SKIP.
 */
#ifndef SC_TEST_SKIP_H
#define SC_TEST_SKIP_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

/* The exit status of a test that did not run (SKIP_RETURN_CODE 77). */
#define SC_TEST_SKIP 77

/* What one test needs of the machine: unmet writes why the test cannot
 * run here into why[len] and returns true, or returns false. */
typedef struct sc_test_need {
    const char *test; /* the test's name in the CMUnitTest table */
    bool (*unmet)(char *why, size_t len);
} sc_test_need;

/* Print "PROGRAM: skipped: WHY" on stdout; returns SC_TEST_SKIP. */
int sc_test_skip(const char *program, const char *why);

/*
 * main's work for a cmocka binary some of whose tests are in needs[]
 * (a group without group setup or teardown).  Without arguments it runs
 * every test but those; with one argument, the test of that name alone,
 * or, when that test's need is unmet, it says why and skips.  Returns
 * cmocka's count of failed tests (0: all passed), SC_TEST_SKIP, or 2 for
 * an unknown test name.
 */
int sc_test_main(int argc, char **argv, const struct CMUnitTest *tests, size_t count,
                 const sc_test_need *needs, size_t nneeds);

#define SC_TEST_MAIN(argc, argv, tests, needs)                                                     \
    sc_test_main(argc, argv, tests, sizeof(tests) / sizeof((tests)[0]), needs,                     \
                 sizeof(needs) / sizeof((needs)[0]))

#endif
