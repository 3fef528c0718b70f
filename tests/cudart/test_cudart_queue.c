/*
 * The feed's record queue (cudart/rt_queue.c): records come out in the
 * order they went in, with the argument bytes stored beside them, across
 * blocks ended for want of record slots or of argument room; emptied
 * blocks and refilled ones are what the producer goes on in; emptied
 * blocks the spare slots cannot take are kept for them until a trim; and a
 * producer and a consumer on two threads agree on every record.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rt_queue.h"

/* Push record i the way the feed does: a block ended when the record's
 * `need` bytes of arguments do not fit, the bytes filled with i. */
static void push_rec(sc_rt_queue *q, uint32_t i, size_t need)
{
    if (sc_rt_queue_must_end(q, need))
        assert_int_equal(sc_rt_queue_next_block(q), 0);
    sc_rt_op *o = sc_rt_queue_slot(q);
    o->aux = i;
    if (need) {
        uint8_t *p = sc_rt_queue_room(q, need);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 8, 0);
        memset(p, (int)(i & 0xff), need);
        o->args = (const uint32_t *)(void *)p;
        o->size = need;
    }
    sc_rt_queue_push(q);
}

static void pop_rec(sc_rt_queue *q, uint32_t i)
{
    sc_rt_op *o = sc_rt_queue_pop(q);
    assert_int_equal(o->aux, i);
    const uint8_t *p = (const uint8_t *)o->args;
    for (size_t k = 0; p && k < o->size; k++)
        assert_int_equal(p[k], i & 0xff);
    atomic_fetch_add(&q->popped, 1);
}

/* Records of every size from none to a block's whole room, so that blocks
 * end early and at their last slot, read back in order with their bytes. */
static void test_order_and_room(void **state)
{
    (void)state;
    sc_rt_queue q;
    assert_int_equal(sc_rt_queue_init(&q), 0);
    const uint32_t n = 3 * SC_RT_BLOCK_OPS + 500;
    size_t sizes[] = {0, 24, 0, 2312, 7, SC_RT_BLOCK_ARGS / 3, 48};
    for (uint32_t i = 0; i < n; i++)
        push_rec(&q, i, sizes[i % 7]);
    /* Pushed, none popped: each block holds what fitted, no more. */
    size_t blocks = 0, records = 0;
    for (sc_rt_block *b = q.head; b; b = b->next, blocks++) {
        size_t k = b == q.tail ? q.tail_i : atomic_load(&b->nops);
        assert_true(k <= SC_RT_BLOCK_OPS);
        assert_true(b->args_used <= SC_RT_BLOCK_ARGS);
        records += k;
    }
    assert_int_equal(records, n);
    /* Each third record of a third of a block's room ends one every
     * three such: far more blocks than the slots alone need. */
    assert_true(blocks > n / SC_RT_BLOCK_OPS + 100);
    for (uint32_t i = 0; i < n; i++)
        pop_rec(&q, i);
}

/* The whole room fits an empty block; more than it never ends one (it
 * goes to the heap), and a block whose room is taken ends for any bytes. */
static void test_must_end(void **state)
{
    (void)state;
    sc_rt_queue q;
    assert_int_equal(sc_rt_queue_init(&q), 0);
    assert_false(sc_rt_queue_must_end(&q, 0));
    assert_false(sc_rt_queue_must_end(&q, SC_RT_BLOCK_ARGS));
    assert_false(sc_rt_queue_must_end(&q, SC_RT_BLOCK_ARGS + 1));
    assert_null(sc_rt_queue_room(&q, SC_RT_BLOCK_ARGS + 1));
    assert_non_null(sc_rt_queue_room(&q, SC_RT_BLOCK_ARGS - 8));
    assert_true(sc_rt_queue_must_end(&q, 9));
    assert_false(sc_rt_queue_must_end(&q, 8));
    assert_false(sc_rt_queue_must_end(&q, SC_RT_BLOCK_ARGS + 1));
}

static bool is_spare(const sc_rt_queue *q, const sc_rt_block *b)
{
    for (size_t i = 0; i < SC_RT_SPARE_BLOCKS; i++)
        if (atomic_load(&q->spare[i]) == b)
            return true;
    return false;
}

/* A block the consumer has passed is kept, and is where the producer
 * goes on; a refill readies every slot, and those are taken first. */
static void test_blocks_reused(void **state)
{
    (void)state;
    sc_rt_queue q;
    assert_int_equal(sc_rt_queue_init(&q), 0);
    sc_rt_block *first = q.head;
    uint32_t i = 0;
    for (; i < SC_RT_BLOCK_OPS + 1; i++)
        push_rec(&q, i, 0);
    for (uint32_t k = 0; k < i; k++)
        pop_rec(&q, k);
    assert_true(is_spare(&q, first));
    for (; i < 2 * SC_RT_BLOCK_OPS + 1; i++)
        push_rec(&q, i, 0);
    assert_ptr_equal(q.tail, first);
    assert_false(is_spare(&q, first));

    sc_rt_queue_refill(&q);
    sc_rt_block *ready[SC_RT_SPARE_BLOCKS];
    for (size_t k = 0; k < SC_RT_SPARE_BLOCKS; k++) {
        ready[k] = atomic_load(&q.spare[k]);
        assert_non_null(ready[k]);
    }
    for (size_t k = 0; k < SC_RT_SPARE_BLOCKS; k++) {
        assert_int_equal(sc_rt_queue_next_block(&q), 0);
        bool found = false;
        for (size_t j = 0; j < SC_RT_SPARE_BLOCKS; j++)
            found |= q.tail == ready[j];
        assert_true(found);
    }
    assert_false(is_spare(&q, q.tail));
}

static bool on_list(const sc_rt_block *l, const sc_rt_block *b)
{
    for (; l; l = l->next)
        if (l == b)
            return true;
    return false;
}

/* A backlog of more blocks than there are spare slots, drained: the
 * blocks past the slots are not unmapped but kept, a refill gives them to
 * the slots before it maps anything, and a trim gives the rest back. */
static void test_emptied_kept_until_trim(void **state)
{
    (void)state;
    sc_rt_queue q;
    assert_int_equal(sc_rt_queue_init(&q), 0);
    const uint32_t blocks = SC_RT_SPARE_BLOCKS + 3;
    sc_rt_block *made[SC_RT_SPARE_BLOCKS + 3];
    uint32_t i = 0;
    for (uint32_t b = 0; b < blocks; b++) {
        for (uint32_t k = 0; k < SC_RT_BLOCK_OPS; k++) {
            push_rec(&q, i++, 0);
            if (k == 0)
                made[b] = q.tail;
        }
    }
    push_rec(&q, i++, 0); /* the last block passed, as pop requires */
    for (uint32_t k = 0; k < i; k++)
        pop_rec(&q, k);
    size_t spare = 0, kept = 0;
    for (uint32_t b = 0; b < blocks; b++) {
        spare += is_spare(&q, made[b]);
        kept += on_list(q.freed, made[b]);
    }
    assert_int_equal(spare, SC_RT_SPARE_BLOCKS);
    assert_int_equal(kept, blocks - SC_RT_SPARE_BLOCKS);

    /* Two slots taken by the producer: the refill fills them from the list. */
    sc_rt_block *listed = q.freed;
    assert_int_equal(sc_rt_queue_next_block(&q), 0);
    assert_int_equal(sc_rt_queue_next_block(&q), 0);
    sc_rt_queue_refill(&q);
    assert_true(is_spare(&q, listed));
    size_t left = 0;
    for (const sc_rt_block *l = q.freed; l; l = l->next)
        left++;
    assert_int_equal(left, blocks - SC_RT_SPARE_BLOCKS - 2);
    sc_rt_queue_trim(&q);
    assert_null(q.freed);
    for (size_t k = 0; k < SC_RT_SPARE_BLOCKS; k++)
        assert_non_null(atomic_load(&q.spare[k]));
}

#define THREADED 300000u

typedef struct pair {
    sc_rt_queue q;
    pthread_mutex_t mu;
} pair;

static void *consumer(void *arg)
{
    pair *p = arg;
    uint32_t done = 0;
    while (done < THREADED) {
        uint64_t have = atomic_load(&p->q.pushed);
        for (; done < have; done++) {
            if (done % 256 == 0)
                sc_rt_queue_refill(&p->q);
            sc_rt_op *o = sc_rt_queue_pop(&p->q);
            const uint8_t *b = (const uint8_t *)o->args;
            if (o->aux != done || (b && (b[0] != (done & 0xff) || b[o->size - 1] != (done & 0xff))))
                return (void *)1;
        }
        atomic_store(&p->q.popped, done);
    }
    return NULL;
}

/* Producer and consumer at once, as the launching and the feed threads
 * are: every record seen once, in order, with its bytes. */
static void test_two_threads(void **state)
{
    (void)state;
    static pair p;
    assert_int_equal(sc_rt_queue_init(&p.q), 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, consumer, &p), 0);
    for (uint32_t i = 0; i < THREADED; i++) {
        size_t need = (i % 5 == 0) ? 0 : 8 + (i % 97) * 8;
        if (sc_rt_queue_must_end(&p.q, need))
            assert_int_equal(sc_rt_queue_next_block(&p.q), 0);
        sc_rt_op *o = sc_rt_queue_slot(&p.q);
        o->aux = i;
        if (need) {
            uint8_t *b = sc_rt_queue_room(&p.q, need);
            memset(b, (int)(i & 0xff), need);
            o->args = (const uint32_t *)(void *)b;
            o->size = need;
        }
        sc_rt_queue_push(&p.q);
    }
    void *bad;
    assert_int_equal(pthread_join(t, &bad), 0);
    assert_null(bad);
    assert_int_equal(atomic_load(&p.q.popped), THREADED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_and_room), cmocka_unit_test(test_must_end),
        cmocka_unit_test(test_blocks_reused),  cmocka_unit_test(test_emptied_kept_until_trim),
        cmocka_unit_test(test_two_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
