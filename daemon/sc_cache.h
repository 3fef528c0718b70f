/*
 * sc_cache.h - stored graphs kept in memory with their reachability index.
 *
 * A bounded (by bytes) cache of hot graphs, least recently used evicted.
 * A miss loads the graph on the thread pool (the store's reader
 * connections) and builds its index there too, so a cold million-node
 * graph never stalls the event loop; concurrent misses on one graph share
 * a single load.  Entries handed out are pinned until released; a pinned
 * entry is never freed, only unlinked, so readers on worker threads stay
 * safe while the cache moves on.  Loop thread only.
 *
 * Two kinds of entry per graph share the byte budget: full (every node
 * with its name and attributes: graph.get, graph.export) and skeleton
 * (streams and edges only, sc_store_load_skeleton: graph.reachable).  A
 * skeleton loads several times faster than the full graph.
 */
#ifndef SC_CACHE_H
#define SC_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "sc_store.h"

typedef struct sc_cache sc_cache;
typedef struct sc_cache_entry sc_cache_entry;

/** Create a cache holding at most `max_bytes` of unpinned graphs. */
int sc_cache_create(uv_loop_t *loop, sc_store *store, size_t max_bytes, sc_cache **out);
/** Free every entry.  No entry may be pinned and no load in flight. */
void sc_cache_destroy(sc_cache *c);

/**
 * Called on the loop when a load finishes: rc is 0 (entry pinned for the
 * caller), SC_STORE_ENOTFOUND or SC_STORE_EIO/ENOMEM (entry NULL).
 */
typedef void (*sc_cache_fn)(void *arg, int rc, sc_cache_entry *entry, const char *errmsg);

/**
 * Look graph `id` up.  A hit returns 0 with *hit pinned and `done` is not
 * called; a miss returns 1 and calls `done` later; < 0 when the load could
 * not even start (SC_STORE_ENOMEM, SC_STORE_ECLOSED).
 *
 * `full` asks for every node's data.  Otherwise the caller needs only
 * reachability, node counts and metadata: a cached full entry is a hit,
 * else the skeleton is looked up or loaded (even while a full load of the
 * same graph is in flight, since it finishes sooner).  Concurrent misses
 * of one kind on one graph share a load.
 */
int sc_cache_get(sc_cache *c, int64_t id, bool full, sc_cache_entry **hit, sc_cache_fn done,
                 void *arg);
/**
 * sc_cache_get's hit without its miss: 0 with *hit pinned (counted as a
 * hit), or 1 when graph `id` is not ready in memory; never starts a load
 * and counts no miss.  Lets a caller check who owns a graph from its
 * metadata before paying for a load.
 */
int sc_cache_peek(sc_cache *c, int64_t id, bool full, sc_cache_entry **hit);
/** Unpin an entry from sc_cache_get, its callback or sc_cache_peek. */
void sc_cache_release(sc_cache *c, sc_cache_entry *e);
/** Forget graph `id` (deleted) and the bodies cached below it, at any
 *  depth, both kinds; pinned holders keep their copy. */
void sc_cache_forget(sc_cache *c, int64_t id);
/** Outstanding loads (the daemon waits for them before closing the store). */
unsigned sc_cache_loading(const sc_cache *c);

/** The graph (sealed, indexed) and its metadata.  For an entry from a
 * request without `full` it may be a skeleton: kinds and names empty. */
const sc_stored_graph *sc_cache_graph(const sc_cache_entry *e);

/** Bytes held by cached graphs now, and the number of entries.  A graph
 * is never counted twice: a loaded full entry replaces its skeleton. */
size_t sc_cache_bytes(const sc_cache *c);
size_t sc_cache_count(const sc_cache *c);

/** What server.info reports of the cache. */
typedef struct sc_cache_stat {
    size_t max_bytes; /* the --graph-cache budget */
    size_t bytes;     /* held now (sc_cache_bytes) */
    size_t entries;   /* sc_cache_count */
    uint64_t hits;    /* sc_cache_get calls answered from memory */
    uint64_t misses;  /* calls that waited for a load, a shared one included */
} sc_cache_stat;

/** The cache's budget, use and hit counters since it was created. */
void sc_cache_stats(const sc_cache *c, sc_cache_stat *out);

#endif
