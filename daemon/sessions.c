/*
 * sessions.c - the daemon-wide table of live capture sessions.
 *
 * Chained hash by id plus an intrusive LRU list, so lookups are O(1) on the
 * request path and the idle sweep only ever looks at the oldest entries.
 */
#include <stdlib.h>

#include "sc_daemon.h"

static size_t bucket_of(const sc_session_table *t, uint64_t id)
{
    /* Fibonacci hashing spreads the sequential ids the log hands out. */
    return (size_t)((id * 11400714819323198485ull) >> 32) & (t->nbuckets - 1);
}

int sc_sessions_init(sc_session_table *t)
{
    t->nbuckets = 64;
    t->count = 0;
    t->lru_head = t->lru_tail = NULL;
    t->buckets = calloc(t->nbuckets, sizeof(*t->buckets));
    return t->buckets ? 0 : -1;
}

void sc_session_free(sc_session *s)
{
    if (!s)
        return;
    sc_capture_destroy(s->cap);
    /* A capture that yields no graph: what its parts stored goes. */
    sc_store_stream_drop(s->stream);
    sc_cuda_destroy(s->cu);
    while (s->calls) {
        sc_call_note *next = s->calls->next;
        free(s->calls);
        s->calls = next;
    }
    free(s->label);
    free(s);
}

void sc_sessions_free(sc_session_table *t)
{
    sc_session *s = t->lru_head;
    while (s) {
        sc_session *next = s->lru_next;
        sc_session_free(s);
        s = next;
    }
    free(t->buckets);
    t->buckets = NULL;
    t->count = 0;
    t->lru_head = t->lru_tail = NULL;
}

static int grow(sc_session_table *t)
{
    size_t n = t->nbuckets * 2;
    sc_session **b = calloc(n, sizeof(*b));
    if (!b)
        return -1;
    sc_session_table nt = *t;
    nt.buckets = b;
    nt.nbuckets = n;
    for (size_t i = 0; i < t->nbuckets; i++) {
        sc_session *s = t->buckets[i];
        while (s) {
            sc_session *next = s->hash_next;
            size_t k = bucket_of(&nt, s->id);
            s->hash_next = b[k];
            b[k] = s;
            s = next;
        }
    }
    free(t->buckets);
    t->buckets = b;
    t->nbuckets = n;
    return 0;
}

static void lru_unlink(sc_session_table *t, sc_session *s)
{
    if (s->lru_prev)
        s->lru_prev->lru_next = s->lru_next;
    else
        t->lru_head = s->lru_next;
    if (s->lru_next)
        s->lru_next->lru_prev = s->lru_prev;
    else
        t->lru_tail = s->lru_prev;
    s->lru_prev = s->lru_next = NULL;
}

static void lru_append(sc_session_table *t, sc_session *s)
{
    s->lru_next = NULL;
    s->lru_prev = t->lru_tail;
    if (t->lru_tail)
        t->lru_tail->lru_next = s;
    else
        t->lru_head = s;
    t->lru_tail = s;
}

int sc_sessions_insert(sc_session_table *t, sc_session *s)
{
    if (t->count + 1 > t->nbuckets && grow(t) != 0)
        return -1;
    if (t->uids) {
        sc_uid_use *u = sc_uids_get(t->uids, s->uid);
        if (!u)
            return -1;
        u->sessions++;
    }
    size_t k = bucket_of(t, s->id);
    s->hash_next = t->buckets[k];
    t->buckets[k] = s;
    lru_append(t, s);
    t->count++;
    return 0;
}

sc_session *sc_sessions_find(sc_session_table *t, uint64_t id)
{
    for (sc_session *s = t->buckets[bucket_of(t, id)]; s; s = s->hash_next)
        if (s->id == id)
            return s;
    return NULL;
}

void sc_sessions_remove(sc_session_table *t, sc_session *s)
{
    sc_session **pp = &t->buckets[bucket_of(t, s->id)];
    while (*pp && *pp != s)
        pp = &(*pp)->hash_next;
    if (!*pp)
        return;
    *pp = s->hash_next;
    s->hash_next = NULL;
    lru_unlink(t, s);
    t->count--;
    sc_sessions_set_nodes(t, s, 0);
    if (t->uids) {
        sc_uid_use *u = sc_uids_find(t->uids, s->uid);
        if (u) {
            u->sessions--;
            sc_uids_put(t->uids, u);
        }
    }
    sc_sessions_bind(s, NULL);
}

void sc_sessions_set_nodes(sc_session_table *t, sc_session *s, uint64_t live)
{
    t->live_nodes = t->live_nodes - s->quota_nodes + live;
    sc_uid_use *u = t->uids ? sc_uids_find(t->uids, s->uid) : NULL;
    if (u)
        u->nodes = u->nodes - s->quota_nodes + live;
    s->quota_nodes = live;
}

void sc_sessions_bind(sc_session *s, sc_conn *c)
{
    /* A bound session belongs to its opener until that closes; another
     * connection may use it without taking it over. */
    if (s->conn == c || (s->bound && s->conn && c))
        return;
    if (s->conn)
        s->conn->nsessions--;
    s->conn = c;
    if (c)
        c->nsessions++;
}

void sc_sessions_forget_conn(sc_session_table *t, sc_conn *c)
{
    /* Only connections that still hold sessions pay for the walk. */
    for (sc_session *s = t->lru_head; s && c->nsessions > 0; s = s->lru_next)
        if (s->conn == c)
            sc_sessions_bind(s, NULL);
}

void sc_sessions_touch(sc_session_table *t, sc_session *s, uint64_t now_ms)
{
    s->last_used_ms = now_ms;
    if (t->lru_tail == s)
        return;
    lru_unlink(t, s);
    lru_append(t, s);
}

sc_session *sc_sessions_oldest(sc_session_table *t)
{
    return t->lru_head;
}
