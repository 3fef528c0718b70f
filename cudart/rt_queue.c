/*
 * rt_queue.c - the feed's record queue (rt_queue.h).
 *
 * Blocks are mappings of their own, not malloc's: the consumer frees what
 * the producer allocated, and malloc would then hand its arena's lock and
 * consolidation to the launches that end a block.  They are mapped with
 * their pages in, on the consumer's thread when it can: a backlog that
 * grows takes fresh memory all the time, and its page faults taken by the
 * launching thread were most of what attaching cost it.
 *
 * Mapping and unmapping take the address space's lock, for writing, and
 * so does the program's own brk(); its page faults take it for reading.
 * The consumer shares its core with the daemon, so what it holds it may
 * hold for a time slice: it therefore unmaps nothing while records flow
 * (emptied blocks wait on a list of its own for the spare slots, and go
 * back to the system when the queue is idle), and faults a fresh block's
 * pages in one at a time rather than under one MAP_POPULATE.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "rt_queue.h"

static sc_rt_block *block_map(void)
{
    void *p = mmap(NULL, sizeof(sc_rt_block), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* The consumer's: the pages written in one by one, each fault holding the
 * lock briefly. */
static sc_rt_block *block_map_touched(void)
{
    void *p =
        mmap(NULL, sizeof(sc_rt_block), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    for (size_t at = 0; at < sizeof(sc_rt_block); at += 4096)
        ((volatile unsigned char *)p)[at] = 0;
    return p;
}

static void block_unmap(sc_rt_block *b)
{
    munmap(b, sizeof *b);
}

/* Into a free spare slot; false when all are taken. */
static bool spare_put(sc_rt_queue *q, sc_rt_block *b)
{
    for (size_t i = 0; i < SC_RT_SPARE_BLOCKS; i++) {
        sc_rt_block *none = NULL;
        if (atomic_compare_exchange_strong(&q->spare[i], &none, b))
            return true;
    }
    return false;
}

void sc_rt_queue_refill(sc_rt_queue *q)
{
    for (size_t i = 0; i < SC_RT_SPARE_BLOCKS; i++) {
        if (atomic_load_explicit(&q->spare[i], memory_order_relaxed))
            continue;
        sc_rt_block *b = q->freed;
        if (b) {
            q->freed = b->next;
        } else if (!(b = block_map_touched())) {
            return;
        }
        sc_rt_block *none = NULL;
        if (!atomic_compare_exchange_strong(&q->spare[i], &none, b)) {
            b->next = q->freed;
            q->freed = b;
        }
    }
}

void sc_rt_queue_trim(sc_rt_queue *q)
{
    while (q->freed) {
        sc_rt_block *b = q->freed;
        q->freed = b->next;
        block_unmap(b);
    }
}

static sc_rt_block *block_new(sc_rt_queue *q)
{
    sc_rt_block *b = NULL;
    for (size_t i = 0; !b && i < SC_RT_SPARE_BLOCKS; i++)
        b = atomic_exchange(&q->spare[i], NULL);
    if (!b)
        b = block_map();
    if (b) {
        b->next = NULL;
        atomic_init(&b->nops, SC_RT_BLOCK_OPS);
        b->args_used = 0;
    }
    return b;
}

int sc_rt_queue_init(sc_rt_queue *q)
{
    memset(q, 0, sizeof *q);
    q->head = q->tail = block_new(q);
    return q->head ? 0 : -ENOMEM;
}

int sc_rt_queue_next_block(sc_rt_queue *q)
{
    sc_rt_block *b = block_new(q);
    if (!b)
        return -ENOMEM;
    /* Published, with the link, by the next record's push. */
    atomic_store_explicit(&q->tail->nops, q->tail_i, memory_order_relaxed);
    q->tail->next = b;
    q->tail = b;
    q->tail_i = 0;
    return 0;
}

sc_rt_op *sc_rt_queue_pop(sc_rt_queue *q)
{
    if (q->head_i == atomic_load_explicit(&q->head->nops, memory_order_relaxed)) {
        sc_rt_block *done = q->head;
        q->head = done->next; /* set before the record in it was published */
        q->head_i = 0;
        if (!spare_put(q, done)) {
            done->next = q->freed;
            q->freed = done;
        }
    }
    return &q->head->ops[q->head_i++];
}
