/*
 * When the daemon feed's thread sends (cudart/rt_pace.c): a program
 * queuing records back to back is waited out a quiet look at a time, and
 * only a look taken while the feed sent nothing says it is still in a
 * burst; a steady pace the daemon keeps up with is looked at quietly once
 * and then left alone; for a while after a burst the daemon is kept only
 * a few calls behind, and not past that while.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rt_pace.h"

#define MS 1000000u

/* A look at t ms with n records pushed and u calls unanswered (of 10^6). */
static long look(sc_rt_pace *p, uint64_t t, uint64_t n, uint64_t u)
{
    return sc_rt_pace_look(p, 1000 * MS + t * MS, n, 1000000, 1000000 - u);
}

static void test_burst_waited_out(void **state)
{
    (void)state;
    sc_rt_pace p;
    sc_rt_pace_init(&p, 1000 * MS, 0);
    /* 5,000 records in a millisecond while the feed sent: take a look. */
    assert_int_equal(look(&p, 1, 5000, 0), SC_RT_BURST_US);
    sc_rt_pace_waited(&p);
    /* Quiet, the program went on at 4,000 a millisecond: still a burst. */
    assert_int_equal(look(&p, 2, 9000, 0), SC_RT_BURST_US);
    sc_rt_pace_waited(&p);
    assert_int_equal(look(&p, 3, 13000, 0), SC_RT_BURST_US);
    sc_rt_pace_waited(&p);
    /* It slowed to 300: send, with few calls unanswered. */
    assert_int_equal(look(&p, 4, 13300, 10), 0);
}

static void test_quiet_look_needs_the_full_rate(void **state)
{
    (void)state;
    sc_rt_pace p;
    sc_rt_pace_init(&p, 1000 * MS, 0);
    /* 600 a millisecond while sending is worth a look ... */
    assert_int_equal(look(&p, 1, 600, 0), SC_RT_BURST_US);
    sc_rt_pace_waited(&p);
    /* ... but 600 quiet is a pace, not a burst. */
    assert_int_equal(look(&p, 2, 1200, 0), 0);
    /* Below half the rate while sending, no look at all. */
    sc_rt_pace_init(&p, 1000 * MS, 0);
    assert_int_equal(look(&p, 1, 400, 0), 0);
}

static void test_steady_pace_left_alone(void **state)
{
    (void)state;
    sc_rt_pace p;
    sc_rt_pace_init(&p, 1000 * MS, 0);
    assert_int_equal(look(&p, 1, 700, 0), SC_RT_BURST_US);
    sc_rt_pace_waited(&p);
    assert_int_equal(look(&p, 2, 1400, 0), 0); /* quiet: a pace */
    /* 700 a millisecond while sending: no new look within SC_RT_CALM_MS,
     * however many calls the daemon has to answer (no burst was seen). */
    uint64_t n = 1400, t = 2;
    while (t + 1 < 2 + SC_RT_CALM_MS) {
        n += 700;
        assert_int_equal(look(&p, ++t, n, 100000), 0);
    }
    /* Past it, one more look. */
    assert_int_equal(look(&p, t + 2, n + 1400, 0), SC_RT_BURST_US);
}

static void test_after_burst_daemon_kept_close(void **state)
{
    (void)state;
    sc_rt_pace p;
    sc_rt_pace_init(&p, 1000 * MS, 0);
    assert_int_equal(look(&p, 1, 5000, 0), SC_RT_BURST_US);
    sc_rt_pace_waited(&p);
    assert_int_equal(look(&p, 2, 10000, 0), SC_RT_BURST_US); /* a burst, seen quiet */
    sc_rt_pace_waited(&p);
    /* The program stopped: send, but not more than SC_RT_AHEAD_MAX ahead. */
    assert_int_equal(look(&p, 3, 10000, SC_RT_AHEAD_MAX - 1), 0);
    assert_int_equal(look(&p, 4, 10000, SC_RT_AHEAD_MAX), SC_RT_AHEAD_US);
    sc_rt_pace_waited(&p);
    /* An answer counted before its call: no call is unanswered. */
    sc_rt_pace early = p;
    assert_int_equal(sc_rt_pace_look(&early, 1004 * MS + 100000, 10000, 5, 9), 0);
    /* A quiet look that finds the program launching again: a burst. */
    assert_int_equal(look(&p, 5, 12000, 0), SC_RT_BURST_US);
    sc_rt_pace_waited(&p);
    assert_int_equal(look(&p, 6, 12000, 0), 0);
    /* Long after the last burst the daemon may fall behind freely. */
    assert_int_equal(look(&p, 5 + SC_RT_AFTER_BURST_MS, 12000, 100000), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_burst_waited_out),
        cmocka_unit_test(test_quiet_look_needs_the_full_rate),
        cmocka_unit_test(test_steady_pace_left_alone),
        cmocka_unit_test(test_after_burst_daemon_kept_close),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
