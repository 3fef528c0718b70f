/*
 * rt_pace.c - when the daemon feed's thread sends (rt_pace.h).
 */
#include "rt_pace.h"

#define MS 1000000u

void sc_rt_pace_init(sc_rt_pace *p, uint64_t now_ns, uint64_t pushed)
{
    *p = (sc_rt_pace){.ns = now_ns, .pushed = pushed};
}

static bool within(uint64_t since, uint64_t now_ns, uint64_t ms)
{
    return since && now_ns - since < ms * MS;
}

long sc_rt_pace_look(sc_rt_pace *p, uint64_t now_ns, uint64_t pushed, uint64_t made,
                     uint64_t answered)
{
    uint64_t unanswered = made > answered ? made - answered : 0;
    bool quiet = p->quiet;
    uint64_t rate = quiet ? SC_RT_BURST_MIN : SC_RT_BURST_MIN / 2;
    /* records / elapsed >= rate a millisecond, without a division */
    bool fast = (pushed - p->pushed) * MS >= rate * (now_ns - p->ns);
    p->ns = now_ns;
    p->pushed = pushed;
    p->quiet = false;
    if (quiet && fast)
        p->burst_ns = now_ns;
    else if (quiet)
        p->calm_ns = now_ns;
    if (fast && (quiet || !within(p->calm_ns, now_ns, SC_RT_CALM_MS)))
        return SC_RT_BURST_US;
    if (within(p->burst_ns, now_ns, SC_RT_AFTER_BURST_MS) && unanswered >= SC_RT_AHEAD_MAX)
        return SC_RT_AHEAD_US;
    return 0;
}

void sc_rt_pace_waited(sc_rt_pace *p)
{
    p->quiet = true;
}
