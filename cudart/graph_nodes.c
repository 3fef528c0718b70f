/*
 * graph_nodes.c - the memory of graph nodes, kept per thread for reuse.
 *
 * A capture of thousands of launches makes as many nodes and its graph's
 * destruction frees them together; glibc then trims the heap, and the next
 * capture takes a page fault for every 4 KiB it gets back, which cost more
 * than the rest of a captured launch.  Freed nodes are kept instead, up to
 * a bound, for the next nodes the same thread makes.  Per thread, so that
 * no lock is needed whichever calls free them; a thread's nodes are freed
 * when it exits.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "graph_int.h"

/* About 8 MiB of nodes a thread at most. */
#define SC_G_NODE_CACHE 16384

typedef struct node_cache {
    size_t n;
    cudaGraphNode_t nodes[SC_G_NODE_CACHE];
} node_cache;

static _Thread_local node_cache *cache;
static pthread_key_t cache_key;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static bool cache_keyed;

static void cache_free(void *p)
{
    node_cache *c = p;
    for (size_t i = 0; i < c->n; i++)
        free(c->nodes[i]);
    free(c);
}

static void cache_key_make(void)
{
    cache_keyed = pthread_key_create(&cache_key, cache_free) == 0;
}

/* This thread's cache, made on first use; NULL when it cannot be (the
 * nodes are then plain calloc and free). */
static node_cache *cache_get(void)
{
    if (cache != NULL)
        return cache;
    pthread_once(&cache_once, cache_key_make);
    if (!cache_keyed)
        return NULL;
    node_cache *c = malloc(sizeof *c);
    if (c == NULL)
        return NULL;
    c->n = 0;
    if (pthread_setspecific(cache_key, c) != 0) {
        free(c);
        return NULL;
    }
    return cache = c;
}

cudaGraphNode_t sc_g_node_alloc(void)
{
    node_cache *c = cache;
    if (c == NULL || c->n == 0)
        return calloc(1, sizeof(struct CUgraphNode_st));
    cudaGraphNode_t n = c->nodes[--c->n];
    memset(n, 0, sizeof *n);
    return n;
}

void sc_g_node_release(cudaGraphNode_t n)
{
    if (n == NULL)
        return;
    node_cache *c = cache_get();
    if (c == NULL || c->n == SC_G_NODE_CACHE) {
        free(n);
        return;
    }
    c->nodes[c->n++] = n;
}
