/*
 * cache.c - hot stored graphs with their reachability index, LRU by bytes.
 *
 * Entries are keyed by (graph id, kind).  A full entry holds every node
 * row; a skeleton (sc_store_load_skeleton) only what reachability needs,
 * and loads several times faster.  A full entry answers reachability too,
 * so once one is loaded the skeleton of the same graph is dropped, and a
 * skeleton load that finishes after a full one only serves its waiters.
 */
#include <stdlib.h>
#include <string.h>

#include "sc_cache.h"

typedef struct waiter {
    sc_cache_fn fn;
    void *arg;
    struct waiter *next;
} waiter;

struct sc_cache_entry {
    sc_cache *cache;
    int64_t id;
    bool full;
    sc_stored_graph *sg;
    size_t bytes;
    int pins;
    bool loading;
    bool linked; /* in the hash table (and, once loaded, the LRU list) */
    int load_rc;
    char *errmsg;
    waiter *waiters;
    uv_work_t work;
    sc_cache_entry *hash_next;
    sc_cache_entry *lru_prev, *lru_next;
};

struct sc_cache {
    uv_loop_t *loop;
    sc_store *store;
    size_t max_bytes;
    size_t bytes;
    size_t count;
    unsigned loading;
    uint64_t hits, misses;
    sc_cache_entry **buckets;
    size_t nbuckets;
    sc_cache_entry *lru_head, *lru_tail;
};

static size_t bucket_of(const sc_cache *c, int64_t id)
{
    return (size_t)(((uint64_t)id * 11400714819323198485ull) >> 32) & (c->nbuckets - 1);
}

int sc_cache_create(uv_loop_t *loop, sc_store *store, size_t max_bytes, sc_cache **out)
{
    sc_cache *c = calloc(1, sizeof(*c));
    if (!c)
        return SC_STORE_ENOMEM;
    c->nbuckets = 256;
    c->buckets = calloc(c->nbuckets, sizeof(*c->buckets));
    if (!c->buckets) {
        free(c);
        return SC_STORE_ENOMEM;
    }
    c->loop = loop;
    c->store = store;
    c->max_bytes = max_bytes;
    *out = c;
    return 0;
}

static void entry_free(sc_cache_entry *e)
{
    sc_stored_graph_free(e->sg);
    free(e->errmsg);
    free(e);
}

static void lru_unlink(sc_cache *c, sc_cache_entry *e)
{
    if (e->lru_prev)
        e->lru_prev->lru_next = e->lru_next;
    else if (c->lru_head == e)
        c->lru_head = e->lru_next;
    if (e->lru_next)
        e->lru_next->lru_prev = e->lru_prev;
    else if (c->lru_tail == e)
        c->lru_tail = e->lru_prev;
    e->lru_prev = e->lru_next = NULL;
}

static void lru_append(sc_cache *c, sc_cache_entry *e)
{
    e->lru_prev = c->lru_tail;
    e->lru_next = NULL;
    if (c->lru_tail)
        c->lru_tail->lru_next = e;
    else
        c->lru_head = e;
    c->lru_tail = e;
}

static sc_cache_entry *find(sc_cache *c, int64_t id, bool full)
{
    for (sc_cache_entry *e = c->buckets[bucket_of(c, id)]; e; e = e->hash_next)
        if (e->id == id && e->full == full)
            return e;
    return NULL;
}

static bool ready(const sc_cache_entry *e)
{
    return e && !e->loading;
}

/* The entry that serves a request: the full one, or for reachability a
 * loaded full one, else the skeleton (loaded or loading). */
static sc_cache_entry *lookup(sc_cache *c, int64_t id, bool full)
{
    sc_cache_entry *f = find(c, id, true);
    if (full || ready(f))
        return f;
    return find(c, id, false);
}

static void table_remove(sc_cache *c, sc_cache_entry *e)
{
    sc_cache_entry **pp = &c->buckets[bucket_of(c, e->id)];
    while (*pp != e)
        pp = &(*pp)->hash_next;
    *pp = e->hash_next;
    e->hash_next = NULL;
    e->linked = false;
}

/* Take `e` out of the table; it is freed now or when its last pin goes. */
static void unlink_entry(sc_cache *c, sc_cache_entry *e)
{
    if (!e->linked)
        return;
    table_remove(c, e);
    if (!e->loading) {
        lru_unlink(c, e);
        c->bytes -= e->bytes;
        c->count--;
    }
    if (e->pins == 0 && !e->loading)
        entry_free(e);
}

/* Drop least recently used, unpinned graphs until the budget holds. */
static void evict(sc_cache *c)
{
    sc_cache_entry *e = c->lru_head;
    while (e && c->bytes > c->max_bytes) {
        sc_cache_entry *next = e->lru_next;
        if (e->pins == 0)
            unlink_entry(c, e);
        e = next;
    }
}

void sc_cache_destroy(sc_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nbuckets; i++) {
        sc_cache_entry *e = c->buckets[i];
        while (e) {
            sc_cache_entry *next = e->hash_next;
            entry_free(e);
            e = next;
        }
    }
    free(c->buckets);
    free(c);
}

static void notify(sc_cache_entry *e)
{
    waiter *w = e->waiters;
    e->waiters = NULL;
    while (w) {
        waiter *next = w->next;
        if (e->load_rc == 0)
            e->pins++;
        w->fn(w->arg, e->load_rc, e->load_rc == 0 ? e : NULL, e->errmsg);
        free(w);
        w = next;
    }
}

static void finish_load(sc_cache_entry *e)
{
    sc_cache *c = e->cache;
    c->loading--;
    e->loading = false;
    /* Failed loads leave the table so the next request tries again; a
     * skeleton whose full graph arrived meanwhile is not worth its bytes. */
    if (e->linked && (e->load_rc != 0 || (!e->full && ready(find(c, e->id, true)))))
        table_remove(c, e);
    if (e->load_rc == 0 && e->linked) {
        e->bytes = sc_graph_memory(e->sg->graph) + sizeof(*e) + e->sg->meta.label_len;
        lru_append(c, e);
        c->bytes += e->bytes;
        c->count++;
        sc_cache_entry *sk = e->full ? find(c, e->id, false) : NULL;
        if (ready(sk))
            unlink_entry(c, sk);
    }
    /* A waiter may answer and release at once: hold the entry meanwhile. */
    e->pins++;
    notify(e);
    e->pins--;
    if (!e->linked && e->pins == 0)
        entry_free(e);
    else
        evict(c);
}

static void build_index(uv_work_t *w)
{
    sc_cache_entry *e = w->data;
    if (sc_graph_build_index(e->sg->graph) != 0)
        e->load_rc = SC_STORE_ENOMEM;
}

static void index_built(uv_work_t *w, int status)
{
    sc_cache_entry *e = w->data;
    if (status < 0 && e->load_rc == 0)
        e->load_rc = SC_STORE_ENOMEM;
    finish_load(e);
}

static void loaded(void *arg, int rc, sc_stored_graph *sg, const char *errmsg)
{
    sc_cache_entry *e = arg;
    e->sg = sg;
    e->load_rc = rc;
    if (rc != 0) {
        if (errmsg)
            e->errmsg = strdup(errmsg);
        finish_load(e);
        return;
    }
    e->work.data = e;
    if (uv_queue_work(e->cache->loop, &e->work, build_index, index_built) != 0) {
        e->load_rc = SC_STORE_ENOMEM;
        finish_load(e);
    }
}

static void pin_hit(sc_cache *c, sc_cache_entry *e, sc_cache_entry **hit)
{
    lru_unlink(c, e);
    lru_append(c, e);
    e->pins++;
    *hit = e;
    c->hits++;
}

int sc_cache_peek(sc_cache *c, int64_t id, bool full, sc_cache_entry **hit)
{
    sc_cache_entry *e = lookup(c, id, full);
    if (!ready(e))
        return 1;
    pin_hit(c, e, hit);
    return 0;
}

int sc_cache_get(sc_cache *c, int64_t id, bool full, sc_cache_entry **hit, sc_cache_fn done,
                 void *arg)
{
    sc_cache_entry *e = lookup(c, id, full);
    if (ready(e)) {
        pin_hit(c, e, hit);
        return 0;
    }
    waiter *w = malloc(sizeof(*w));
    if (!w)
        return SC_STORE_ENOMEM;
    w->fn = done;
    w->arg = arg;
    if (e) {
        /* Joining a load in flight still waits for the store: a miss. */
        w->next = e->waiters;
        e->waiters = w;
        c->misses++;
        return 1;
    }
    e = calloc(1, sizeof(*e));
    if (!e) {
        free(w);
        return SC_STORE_ENOMEM;
    }
    e->cache = c;
    e->id = id;
    e->full = full;
    e->loading = true;
    w->next = NULL;
    e->waiters = w;
    int rc = full ? sc_store_load_graph(c->store, id, loaded, e)
                  : sc_store_load_skeleton(c->store, id, loaded, e);
    if (rc != 0) {
        free(w);
        free(e);
        return rc;
    }
    size_t k = bucket_of(c, id);
    e->hash_next = c->buckets[k];
    c->buckets[k] = e;
    e->linked = true;
    c->loading++;
    c->misses++;
    return 1;
}

void sc_cache_release(sc_cache *c, sc_cache_entry *e)
{
    if (!e)
        return;
    if (--e->pins > 0)
        return;
    if (!e->linked)
        entry_free(e);
    else
        evict(c);
}

void sc_cache_forget(sc_cache *c, int64_t id)
{
    for (int full = 0; full < 2; full++) {
        sc_cache_entry *e = find(c, id, full);
        if (e)
            unlink_entry(c, e);
    }
    /* A body is deleted with the graph holding it, at any depth: a cached
     * one must not outlive it.  The walk starts over after each body, whose
     * own bodies may have been next in the list. */
    for (sc_cache_entry *e = c->lru_head; e;) {
        if (e->sg && e->sg->meta.parent_graph == id) {
            sc_cache_forget(c, e->id);
            e = c->lru_head;
        } else {
            e = e->lru_next;
        }
    }
}

unsigned sc_cache_loading(const sc_cache *c)
{
    return c->loading;
}

const sc_stored_graph *sc_cache_graph(const sc_cache_entry *e)
{
    return e->sg;
}

size_t sc_cache_bytes(const sc_cache *c)
{
    return c->bytes;
}

size_t sc_cache_count(const sc_cache *c)
{
    return c->count;
}

void sc_cache_stats(const sc_cache *c, sc_cache_stat *out)
{
    out->max_bytes = c->max_bytes;
    out->bytes = c->bytes;
    out->entries = c->count;
    out->hits = c->hits;
    out->misses = c->misses;
}
