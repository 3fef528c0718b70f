/*
 * skip.c - see skip.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skip.h"

int sc_test_skip(const char *program, const char *why)
{
    printf("%s: skipped: %s\n", program, why);
    fflush(stdout);
    return SC_TEST_SKIP;
}

static const sc_test_need *need_of(const char *test, const sc_test_need *needs, size_t nneeds)
{
    for (size_t i = 0; i < nneeds; i++)
        if (strcmp(needs[i].test, test) == 0)
            return &needs[i];
    return NULL;
}

/* Every test of the table but those with a need: the run without arguments. */
static int run_unconditional(const char *program, const struct CMUnitTest *tests, size_t count,
                             const sc_test_need *needs, size_t nneeds)
{
    struct CMUnitTest *kept = calloc(count, sizeof *kept);
    if (!kept) {
        fprintf(stderr, "%s: out of memory\n", program);
        return 1;
    }
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (!need_of(tests[i].name, needs, nneeds))
            kept[n++] = tests[i];
    int rc = _cmocka_run_group_tests(program, kept, n, NULL, NULL);
    free(kept);
    return rc;
}

/* One test alone, or why it cannot run here. */
static int run_one(const char *program, const char *test, const struct CMUnitTest *tests,
                   size_t count, const sc_test_need *needs, size_t nneeds)
{
    for (size_t i = 0; i < count; i++) {
        if (strcmp(tests[i].name, test) != 0)
            continue;
        const sc_test_need *need = need_of(test, needs, nneeds);
        char why[512] = "";
        if (need && need->unmet(why, sizeof why)) {
            char who[256];
            snprintf(who, sizeof who, "%s %s", program, test);
            return sc_test_skip(who, why);
        }
        return _cmocka_run_group_tests(test, &tests[i], 1, NULL, NULL);
    }
    fprintf(stderr, "%s: no test named %s\n", program, test);
    return 2;
}

int sc_test_main(int argc, char **argv, const struct CMUnitTest *tests, size_t count,
                 const sc_test_need *needs, size_t nneeds)
{
    const char *slash = strrchr(argv[0], '/');
    const char *program = slash ? slash + 1 : argv[0];
    if (argc > 2) {
        fprintf(stderr, "usage: %s [TEST]\n", program);
        return 2;
    }
    if (argc == 2)
        return run_one(program, argv[1], tests, count, needs, nneeds);
    return run_unconditional(program, tests, count, needs, nneeds);
}
