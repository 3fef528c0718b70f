/*
 * test_store_access.c - the accesses' JSON text both stores keep: written
 * and read back the same, null and [] as none, and every malformed or
 * out-of-range text refused rather than read as something else.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "store_access.h"

static int parse(const char *text, store_access_buf *b, sc_node *n)
{
    return store_accesses_from_text(text, text ? strlen(text) : 0, b, n);
}

static void t_round_trip(void **state)
{
    (void)state;
    static const sc_access v[] = {{0, 1, SC_ACCESS_READ},
                                  {UINT64_MAX - 1, 1, SC_ACCESS_WRITE},
                                  {0x7f0000001000, 4096, SC_ACCESS_READ_WRITE}};
    sc_node n = {.accesses = v, .naccesses = 3};
    char *text = malloc(store_accesses_text_room(&n));
    assert_non_null(text);
    size_t len = store_accesses_text(&n, text);
    assert_true(len <= store_accesses_text_room(&n));
    const char want[] = "[[0,1,\"read\"],[18446744073709551614,1,\"write\"],"
                        "[139637976731648,4096,\"read_write\"]]";
    assert_int_equal(len, sizeof want - 1);
    assert_memory_equal(text, want, len);
    store_access_buf b = {0};
    sc_node back = {0};
    assert_int_equal(store_accesses_from_text(text, len, &b, &back), 0);
    assert_int_equal(back.naccesses, 3);
    for (int i = 0; i < 3; i++) {
        assert_true(back.accesses[i].address == v[i].address);
        assert_true(back.accesses[i].size == v[i].size);
        assert_int_equal(back.accesses[i].mode, v[i].mode);
    }
    /* SQLite's or PostgreSQL's rendering may add blanks. */
    assert_int_equal(parse(" [ [1, 2, \"read\"] , [3,4,\"write\"] ] ", &b, &back), 0);
    assert_int_equal(back.naccesses, 2);
    sc_node none = {0};
    assert_int_equal(store_accesses_text(&none, text), 0);
    free(text);
    free(b.v);
}

static void t_none(void **state)
{
    (void)state;
    store_access_buf b = {0};
    sc_node n = {.naccesses = 7};
    assert_int_equal(parse(NULL, &b, &n), 0);
    assert_int_equal(n.naccesses, 0);
    assert_int_equal(parse("null", &b, &n), 0);
    assert_int_equal(parse("[]", &b, &n), 0);
    assert_int_equal(n.naccesses, 0);
    assert_null(n.accesses);
    free(b.v);
}

static void t_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "[",
        "[[1,2,\"read\"]",
        "[[1,2,\"read\"]]x",
        "[[1,2,\"read\"],]",
        "[[1,2]]",
        "[[1,2,\"READ\"]]",
        "[[1,2,read]]",
        "[[1,0,\"read\"]]",                    /* empty range */
        "[[18446744073709551615,1,\"read\"]]", /* past the end of u64 */
        "[[18446744073709551616,1,\"read\"]]", /* not a u64 */
        "[[-1,1,\"read\"]]",
        "[[1.5,1,\"read\"]]",
        "{\"address\":1}",
    };
    store_access_buf b = {0};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sc_node n = {0};
        if (parse(bad[i], &b, &n) != -1)
            fail_msg("'%s' was read", bad[i]);
        assert_int_equal(n.naccesses, 0);
    }
    free(b.v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_round_trip),
        cmocka_unit_test(t_none),
        cmocka_unit_test(t_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
