/*
 * test_bench_util.c - the benchmark helpers: histogram percentiles and the
 * shared workload generator the daemon and SQLite figures depend on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sc_hist.h"
#include "sc_workload.h"

/* The reported value is the bucket's upper bound: at most 1/32 above. */
static void assert_close(uint64_t got, uint64_t want)
{
    assert_true(got >= want);
    assert_true(got <= want + want / 32 + 1);
}

static void test_hist_uniform(void **state)
{
    (void)state;
    sc_hist h;
    sc_hist_init(&h);
    for (uint64_t v = 1; v <= 100000; v++)
        sc_hist_record(&h, v);
    assert_int_equal(h.count, 100000);
    assert_int_equal(h.min, 1);
    assert_int_equal(h.max, 100000);
    assert_close(sc_hist_quantile(&h, 0.5), 50000);
    assert_close(sc_hist_quantile(&h, 0.99), 99000);
    assert_close(sc_hist_quantile(&h, 0.999), 99900);
    assert_int_equal(sc_hist_quantile(&h, 1.0), 100000);
    assert_true(sc_hist_mean(&h) > 50000.4 && sc_hist_mean(&h) < 50000.6);
}

static void test_hist_small_values_exact(void **state)
{
    (void)state;
    sc_hist h;
    sc_hist_init(&h);
    for (uint64_t v = 0; v < 64; v++)
        sc_hist_record(&h, v);
    assert_int_equal(sc_hist_quantile(&h, 0.5), 31);
    assert_int_equal(sc_hist_quantile(&h, 1.0 / 64), 0);
    assert_int_equal(sc_hist_quantile(&h, 1.0), 63);
}

static void test_hist_tail_and_merge(void **state)
{
    (void)state;
    sc_hist a, b;
    sc_hist_init(&a);
    sc_hist_init(&b);
    for (int i = 0; i < 990; i++)
        sc_hist_record(&a, 1000);
    for (int i = 0; i < 10; i++)
        sc_hist_record(&b, 5000000);
    sc_hist_merge(&a, &b);
    assert_int_equal(a.count, 1000);
    assert_close(sc_hist_quantile(&a, 0.5), 1000);
    assert_close(sc_hist_quantile(&a, 0.99), 1000);
    assert_close(sc_hist_quantile(&a, 0.999), 5000000);
    assert_int_equal(a.max, 5000000);
    assert_int_equal(a.min, 1000);
}

static void test_hist_huge_values(void **state)
{
    (void)state;
    sc_hist h;
    sc_hist_init(&h);
    sc_hist_record(&h, UINT64_MAX);
    sc_hist_record(&h, (uint64_t)1 << 40);
    assert_int_equal(sc_hist_quantile(&h, 1.0), UINT64_MAX);
    assert_close(sc_hist_quantile(&h, 0.5), (uint64_t)1 << 40);
}

static void test_hist_empty(void **state)
{
    (void)state;
    sc_hist h;
    sc_hist_init(&h);
    assert_int_equal(sc_hist_quantile(&h, 0.5), 0);
    assert_true(sc_hist_mean(&h) == 0.0);
}

/* Same seed, same ops: the floor relies on it to insert the daemon's rows. */
static void test_workload_deterministic(void **state)
{
    (void)state;
    sc_wl a, b;
    sc_wl_init_graph(&a, 7, 8, 64);
    sc_wl_init_graph(&b, 7, 8, 64);
    for (int i = 0; i < 10000; i++) {
        sc_wl_op x, y;
        sc_wl_next(&a, &x);
        sc_wl_next(&b, &y);
        assert_int_equal(x.kind, y.kind);
        assert_int_equal(x.stream, y.stream);
        assert_int_equal(x.event, y.event);
        assert_ptr_equal(x.name, y.name);
        assert_int_equal(x.size_bytes, y.size_bytes);
    }
    sc_wl c;
    sc_wl_init_graph(&c, 8, 8, 64);
    int differ = 0;
    sc_wl_init_graph(&a, 7, 8, 64);
    for (int i = 0; i < 100; i++) {
        sc_wl_op x, y;
        sc_wl_next(&a, &x);
        sc_wl_next(&c, &y);
        differ += x.stream != y.stream || x.kind != y.kind;
    }
    assert_true(differ > 0);
}

/* Graph mode: a fork/join before every 64th node, streams in range, the
 * wait on another stream than the record. */
static void test_workload_graph_shape(void **state)
{
    (void)state;
    sc_wl w;
    sc_wl_init_graph(&w, 1, 8, 64);
    uint64_t nodes = 0, forks = 0, kernels = 0;
    unsigned per_stream[8] = {0};
    sc_wl_op prev = {0};
    while (nodes < 64000) {
        sc_wl_op op;
        sc_wl_next(&w, &op);
        assert_true(op.stream < 8);
        if (op.kind == SC_WL_WAIT_EVENT) {
            assert_int_equal(prev.kind, SC_WL_RECORD_EVENT);
            assert_int_equal(op.event, prev.stream);
            assert_int_not_equal(op.stream, prev.stream);
            forks++;
        } else if (sc_wl_is_record(op.kind)) {
            assert_non_null(op.name);
            assert_non_null(sc_wl_node_kind(op.kind));
            kernels += op.kind == SC_WL_KERNEL;
            per_stream[op.stream]++;
            nodes++;
        }
        prev = op;
    }
    assert_int_equal(forks, 64000 / 64 - 1);
    assert_true(kernels > 64000 * 70 / 100 && kernels < 64000 * 80 / 100);
    for (int s = 0; s < 8; s++)
        assert_true(per_stream[s] > 64000 / 8 * 9 / 10);
}

static void test_workload_mix_weights(void **state)
{
    (void)state;
    sc_wl_mix mix = {{0}};
    mix.weight[SC_WL_MIX_KERNEL] = 3;
    mix.weight[SC_WL_MIX_NOTCAP] = 1;
    sc_wl w;
    sc_wl_init_mix(&w, 5, 4, &mix);
    unsigned kernel = 0, notcap = 0;
    for (int i = 0; i < 40000; i++) {
        sc_wl_op op;
        sc_wl_next(&w, &op);
        if (op.kind == SC_WL_NOTCAP) {
            assert_true(op.stream >= 4); /* never begun */
            notcap++;
        } else {
            assert_int_equal(op.kind, SC_WL_KERNEL);
            assert_true(op.stream < 4);
            kernel++;
        }
    }
    assert_true(notcap > 9000 && notcap < 11000);
    assert_int_equal(kernel + notcap, 40000);
}

static void test_pairs_ordered_and_in_range(void **state)
{
    (void)state;
    uint64_t rng = 42;
    unsigned low_half = 0;
    for (int i = 0; i < 100000; i++) {
        uint32_t a, b;
        sc_wl_pair(&rng, 1000, &a, &b);
        assert_true(a < b);
        assert_true(b < 1000);
        low_half += a < 500;
    }
    /* a is the smaller of two uniform ids: below the middle 3 times in 4. */
    assert_true(low_half > 73000 && low_half < 77000);
    uint32_t a, b;
    sc_wl_pair(&rng, 2, &a, &b);
    assert_int_equal(a, 0);
    assert_int_equal(b, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hist_uniform),
        cmocka_unit_test(test_hist_small_values_exact),
        cmocka_unit_test(test_hist_tail_and_merge),
        cmocka_unit_test(test_hist_huge_values),
        cmocka_unit_test(test_hist_empty),
        cmocka_unit_test(test_workload_deterministic),
        cmocka_unit_test(test_workload_graph_shape),
        cmocka_unit_test(test_workload_mix_weights),
        cmocka_unit_test(test_pairs_ordered_and_in_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
