/*
 * rt_pace.h - when the daemon feed's thread sends.  A program that queues
 * records faster than the daemon can take them (a launch a microsecond or
 * less: it takes some 3 us a record) is in a burst: its backlog grows
 * whatever the feed does, and sending meanwhile only puts the feed thread,
 * the client's I/O thread and the daemon on the cores the program runs
 * on.  So through a burst the feed sends nothing, and for a while after
 * one it keeps the daemon only a little behind, so that the daemon is not
 * still busy with what it was sent through the program's next burst.  The
 * daemon gets the same records, a burst later.  Pure arithmetic on what
 * the feed thread observes, so that it can be tested alone.
 */
#ifndef SC_CUDART_RT_PACE_H
#define SC_CUDART_RT_PACE_H

#include <stdbool.h>
#include <stdint.h>

/* Woken with fewer records than this waiting, the feed thread lets more
 * come for SC_RT_GATHER_US before it sends: a program launching every few
 * microseconds would otherwise cost a wake-up of this thread, of the
 * client's I/O thread and of the daemon, and a write, a read and a reply,
 * for every record, on the cores the program runs on.  A wait for the feed
 * to catch up is not kept waiting. */
#define SC_RT_GATHER_MIN 256
#define SC_RT_GATHER_US  1000

/* Records a millisecond, counted while the feed sent nothing, from which a
 * program is in a burst.  Counted while the feed sent, the program runs
 * slower than it can: half the rate is then enough to take a quiet look
 * (a wait of SC_RT_BURST_US), at most once every SC_RT_CALM_MS after a
 * quiet look found no burst, so that a program launching at a steady pace
 * the daemon keeps up with is not kept waiting by the looks. */
#define SC_RT_BURST_MIN 1000
#define SC_RT_BURST_US  1000
#define SC_RT_CALM_MS   10
/* For SC_RT_AFTER_BURST_MS after the last burst seen, the calls the daemon
 * may have unanswered (some 0.2 ms of its time), looked at every
 * SC_RT_AHEAD_US: often enough that it seldom runs dry. */
#define SC_RT_AFTER_BURST_MS 100
#define SC_RT_AHEAD_MAX      64
#define SC_RT_AHEAD_US       100

/* What the feed thread saw at its last look. */
typedef struct sc_rt_pace {
    uint64_t ns;       /* when (CLOCK_MONOTONIC) */
    uint64_t pushed;   /* records the program had queued by then */
    uint64_t burst_ns; /* the last quiet look that saw a burst (0: none) */
    uint64_t calm_ns;  /* the last quiet look that saw none (0: none) */
    bool quiet;        /* the feed sent nothing since the look before */
} sc_rt_pace;

/** A pace whose first look is at now_ns, with `pushed` records queued. */
void sc_rt_pace_init(sc_rt_pace *p, uint64_t now_ns, uint64_t pushed);

/** A look at now_ns, with `pushed` records queued so far, `made` calls made
 *  by the feed and `answered` the last of them the daemon answered: the
 *  microseconds the feed thread should wait before it sends more (then call
 *  sc_rt_pace_waited), or 0 to send now.  A wait that someone cuts short (a
 *  caller waiting for the feed) needs no call: the feed sends. */
long sc_rt_pace_look(sc_rt_pace *p, uint64_t now_ns, uint64_t pushed, uint64_t made,
                     uint64_t answered);

/** The wait asked for is over, and the feed sent nothing meanwhile. */
void sc_rt_pace_waited(sc_rt_pace *p);

#endif
