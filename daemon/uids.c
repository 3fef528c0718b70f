/*
 * uids.c - what each uid holds now (connections, sessions, live nodes), so
 * that one user cannot take every slot the global limits allow, and all
 * users but root together cannot take the slots kept for root.
 *
 * Few distinct uids use one daemon at a time: a fixed array of chains is
 * enough, and an entry is freed as soon as its uid holds nothing.
 */
#include <stdlib.h>

#include "sc_daemon.h"

static size_t bucket_of(uint32_t uid)
{
    return (size_t)((uid * 2654435761u) >> 26) % SC_UID_BUCKETS;
}

sc_uid_use *sc_uids_find(const sc_uid_table *t, uint32_t uid)
{
    for (sc_uid_use *u = t->buckets[bucket_of(uid)]; u; u = u->next)
        if (u->uid == uid)
            return u;
    return NULL;
}

sc_uid_use *sc_uids_get(sc_uid_table *t, uint32_t uid)
{
    sc_uid_use *u = sc_uids_find(t, uid);
    if (u)
        return u;
    u = calloc(1, sizeof(*u));
    if (!u)
        return NULL;
    size_t k = bucket_of(uid);
    u->uid = uid;
    u->next = t->buckets[k];
    t->buckets[k] = u;
    return u;
}

void sc_uids_put(sc_uid_table *t, sc_uid_use *u)
{
    if (!u || u->conns || u->sessions || u->opening || u->nodes || u->out_bytes)
        return;
    sc_uid_use **pp = &t->buckets[bucket_of(u->uid)];
    while (*pp && *pp != u)
        pp = &(*pp)->next;
    if (*pp)
        *pp = u->next;
    free(u);
}

void sc_uids_free(sc_uid_table *t)
{
    for (size_t k = 0; k < SC_UID_BUCKETS; k++) {
        while (t->buckets[k]) {
            sc_uid_use *next = t->buckets[k]->next;
            free(t->buckets[k]);
            t->buckets[k] = next;
        }
    }
}

unsigned sc_uids_nonroot_conns(const sc_uid_table *t)
{
    unsigned n = 0;
    for (size_t k = 0; k < SC_UID_BUCKETS; k++)
        for (const sc_uid_use *u = t->buckets[k]; u; u = u->next)
            n += u->uid != 0 ? u->conns : 0;
    return n;
}

unsigned sc_uids_nonroot_sessions(const sc_uid_table *t)
{
    unsigned n = 0;
    for (size_t k = 0; k < SC_UID_BUCKETS; k++)
        for (const sc_uid_use *u = t->buckets[k]; u; u = u->next)
            n += u->uid != 0 ? u->sessions + u->opening : 0;
    return n;
}

unsigned sc_nonroot_limit(unsigned global, unsigned reserved)
{
    /* A reserve as large as the limit would shut every other uid out;
     * one slot is theirs whatever --root-reserved says. */
    return global > reserved ? global - reserved : 1;
}

unsigned sc_uid_quota(unsigned global, unsigned set)
{
    if (set)
        return set;
    /* Most of the global limit, never all of it: another uid always finds
     * a quarter free. */
    unsigned q = (unsigned)((uint64_t)global * 3u / 4u);
    return q ? q : 1;
}
