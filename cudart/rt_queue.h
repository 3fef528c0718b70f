/*
 * rt_queue.h - the daemon feed's record queue: one producer (the
 * application's threads, under the process lock) appends fixed-size
 * records, one consumer (the feed thread) pops them in order.  Records live
 * in blocks that carry their kernels' packed arguments beside them, so that
 * appending allocates nothing; blocks the consumer empties, and fresh ones
 * it maps ahead, wait in spare slots for the producer's next ones.
 */
#ifndef SC_CUDART_RT_QUEUE_H
#define SC_CUDART_RT_QUEUE_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum sc_rt_op_kind {
    SC_RT_OP_STREAM_CREATE = 0,
    SC_RT_OP_BEGIN,
    SC_RT_OP_RECORD, /* sub: the sc_node_kind */
    SC_RT_OP_EVENT,
    SC_RT_OP_UPDATE_DEPS,
    SC_RT_OP_HOST_CALL,
    SC_RT_OP_EXCHANGE_MODE,
    SC_RT_OP_ADD_NODE,
    SC_RT_OP_END,
    SC_RT_OP_SUBMIT,
} sc_rt_op_kind;

#define SC_RT_OPF_WAIT     1u /* event: a wait, not a record */
#define SC_RT_OPF_EXTERNAL 2u
#define SC_RT_OPF_SET      4u /* update_deps: set, not add; stream_create: non-blocking */

/* One mirrored call.  `name` is static text or a registered kernel's name,
 * both alive as long as the process; `ext` (deps, a submitted graph) is
 * the rare heap payload, freed by the feed thread. */
typedef struct sc_rt_op {
    uint8_t op;
    uint8_t sub; /* node kind, mode, host call kind, memcpy direction */
    uint8_t flags;
    uint8_t value; /* memset */
    uint8_t dir;
    uint32_t stream, thread;
    uint32_t aux; /* event, capture, deps count, submit index */
    union {
        struct { /* kernel */
            uint32_t grid[3], block[3];
            /* its accesses: naccess of them, access_at bytes into args */
            uint32_t naccess, access_at;
        };
        struct { /* memcpy, memset: the ranges touched (start 0: none) */
            uint64_t dst, src;
            uint64_t dst_span, src_span;
        };
    };
    uint32_t shared;
    uint64_t size;
    const char *name;
    const char *call; /* record, event: the CUDA function that broke a capture */
    void *ext;
    const uint32_t *args; /* record of a kernel: pack_args(), or NULL */
} sc_rt_op;

#define SC_RT_BLOCK_OPS 2048
/* Blocks kept ready for the application's next ones (some 340 KiB each): the
 * ones the feed thread has emptied, and fresh ones it maps with their pages
 * already in, so that a launch does not take the page faults of new queue
 * memory while a backlog grows. */
#define SC_RT_SPARE_BLOCKS 8
/* Room in a block for its kernels' packed arguments and accesses (pack_args), so
 * that a launch allocates nothing: a launch whose record does not fit ends the
 * block early (only one larger than the whole room goes to the heap). */
#define SC_RT_BLOCK_ARGS (SC_RT_BLOCK_OPS * 64)

typedef struct sc_rt_block {
    struct sc_rt_block *next;
    /* Records in the block: SC_RT_BLOCK_OPS unless the producer ended it
     * early.  Read by the consumer while the producer may still lower it,
     * hence atomic; any value it reads is above the records it pops. */
    _Atomic size_t nops;
    size_t args_used;
    sc_rt_op ops[SC_RT_BLOCK_OPS];
    alignas(8) unsigned char args[SC_RT_BLOCK_ARGS];
} sc_rt_block;

typedef struct sc_rt_queue {
    /* Each end on cache lines of its own: a launch must not wait for a
     * line the feed thread just wrote. */
    /* the producer's end */
    alignas(64) sc_rt_block *tail;
    size_t tail_i;
    _Atomic uint64_t pushed;
    /* the consumer's end */
    alignas(64) sc_rt_block *head;
    size_t head_i;
    _Atomic uint64_t popped;
    sc_rt_block *freed; /* emptied blocks the spare slots had no room for */
    _Atomic(sc_rt_block *) spare[SC_RT_SPARE_BLOCKS];
} sc_rt_queue;

/** q with its first block; -ENOMEM without one. */
int sc_rt_queue_init(sc_rt_queue *q);

/* The producer's calls below are inline: they are most of what a captured
 * launch does to queue its record, and a call apiece would cost it more
 * than their bodies. */

/* Room is handed out in multiples of 8 bytes. */
static inline size_t sc_rt_queue_rounded(size_t need)
{
    return (need + 7) & ~(size_t)7;
}

/** Producer: whether the tail block must end before a record with `args`
 *  bytes of packed arguments (it is full, or its argument room is; a
 *  record larger than a whole block's room takes the heap instead). */
static inline bool sc_rt_queue_must_end(const sc_rt_queue *q, size_t args)
{
    return q->tail_i == SC_RT_BLOCK_OPS ||
           (args <= SC_RT_BLOCK_ARGS &&
            SC_RT_BLOCK_ARGS - q->tail->args_used < sc_rt_queue_rounded(args));
}

/** Producer: end the tail block here and go on in a spare or new one;
 *  -ENOMEM when there is none. */
int sc_rt_queue_next_block(sc_rt_queue *q);

/** Producer: the zeroed slot the next record goes in (published by
 *  sc_rt_queue_push). */
static inline sc_rt_op *sc_rt_queue_slot(sc_rt_queue *q)
{
    sc_rt_op *o = &q->tail->ops[q->tail_i];
    *o = (sc_rt_op){0};
    return o;
}

/** Producer: need bytes of the tail block's argument room, 8-byte
 *  aligned when need is; NULL when they do not fit. */
static inline void *sc_rt_queue_room(sc_rt_queue *q, size_t need)
{
    sc_rt_block *b = q->tail;
    need = sc_rt_queue_rounded(need);
    if (SC_RT_BLOCK_ARGS - b->args_used < need)
        return NULL;
    void *p = b->args + b->args_used;
    b->args_used += need;
    return p;
}

/** Producer: publish the slot's record.  A locked add, not a release
 *  store: the feed thread's sleep (rt_feed.c) needs the full barrier
 *  between this store and the producer's next look at `sleeping`. */
static inline void sc_rt_queue_push(sc_rt_queue *q)
{
    q->tail_i++;
    atomic_fetch_add(&q->pushed, 1);
}

/** Consumer: the next record (one must have been pushed beyond those
 *  popped), its block given back once passed. */
sc_rt_op *sc_rt_queue_pop(sc_rt_queue *q);

/** Consumer: give every empty spare slot a block: one it emptied, else a
 *  fresh one, its pages faulted in here rather than by the producer's
 *  stores. */
void sc_rt_queue_refill(sc_rt_queue *q);

/** Consumer: give back the emptied blocks no slot took (when idle: it
 *  takes the lock that the program's page faults and brk() wait on). */
void sc_rt_queue_trim(sc_rt_queue *q);

#endif
