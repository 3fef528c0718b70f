/*
 * graph_mem.c - the building blocks under graphs and sessions: chunked arrays,
 * the name arena with its interning table, and a u32 -> u32 hash map.
 */
#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Lists are nearly always a handful of ids, often already sorted. */
uint32_t sc_sort_unique_u32(uint32_t *v, uint32_t n)
{
    if (n > 16) {
        qsort(v, n, sizeof *v, cmp_u32);
    } else {
        for (uint32_t i = 1; i < n; i++) {
            uint32_t x = v[i], j = i;
            for (; j > 0 && v[j - 1] > x; j--)
                v[j] = v[j - 1];
            v[j] = x;
        }
    }
    uint32_t w = 0;
    for (uint32_t i = 0; i < n; i++)
        if (w == 0 || v[w - 1] != v[i])
            v[w++] = v[i];
    return w;
}

static int chunks_grow_table(sc_chunks *c)
{
    uint32_t cap = c->chunk_cap ? c->chunk_cap * 2 : 8;
    void **t = realloc(c->chunk, (size_t)cap * sizeof *t);
    if (!t)
        return SC_ENOMEM;
    c->chunk = t;
    c->chunk_cap = cap;
    return 0;
}

/* Chunk 0 doubles from SC_FIRST_CHUNK up to full size; every later chunk is
 * allocated at full size and never moves. */
int sc_chunks_reserve(sc_chunks *c, size_t elem, unsigned shift, uint64_t need)
{
    const uint32_t full = 1u << shift;
    while (sc_chunks_capacity(c, shift) < need) {
        if (c->nchunk == 1 && c->first_cap < full) {
            uint64_t want = (uint64_t)c->first_cap * 2;
            while (want < need && want < full)
                want *= 2;
            if (want > full)
                want = full;
            void *p = realloc(c->chunk[0], (size_t)want * elem);
            if (!p)
                return SC_ENOMEM;
            c->chunk[0] = p;
            c->first_cap = (uint32_t)want;
            continue;
        }
        if (c->nchunk == c->chunk_cap && chunks_grow_table(c) != 0)
            return SC_ENOMEM;
        uint64_t n = full;
        if (c->nchunk == 0) {
            n = SC_FIRST_CHUNK < full ? SC_FIRST_CHUNK : full;
            while (n < need && n < full)
                n *= 2;
        }
        void *p = malloc((size_t)n * elem);
        if (!p)
            return SC_ENOMEM;
        c->chunk[c->nchunk++] = p;
        if (c->nchunk == 1)
            c->first_cap = (uint32_t)n;
    }
    return 0;
}

void sc_chunks_free(sc_chunks *c)
{
    for (uint32_t i = 0; i < c->nchunk; i++)
        free(c->chunk[i]);
    free(c->chunk);
    memset(c, 0, sizeof *c);
}

size_t sc_chunks_bytes(const sc_chunks *c, size_t elem, unsigned shift)
{
    return (size_t)sc_chunks_capacity(c, shift) * elem + (size_t)c->chunk_cap * sizeof(void *);
}

/* ---- u32 -> u32 map ------------------------------------------------- */

#define IDMAP_EMPTY UINT64_MAX

/* Multiplicative mix, then the high bits scaled onto [0, cap). */
static uint32_t idmap_home(uint32_t key, uint32_t cap)
{
    uint32_t h = key * 0x9E3779B1u;
    return (uint32_t)(((uint64_t)h * cap) >> 32);
}

static int idmap_grow(sc_idmap *m)
{
    uint32_t cap = m->cap ? m->cap * 2 : 16;
    if (cap == 0)
        return SC_ELIMIT;
    uint64_t *slot = malloc((size_t)cap * sizeof *slot);
    if (!slot)
        return SC_ENOMEM;
    memset(slot, 0xff, (size_t)cap * sizeof *slot);
    for (uint32_t i = 0; i < m->cap; i++) {
        uint64_t s = m->slot[i];
        if (s == IDMAP_EMPTY)
            continue;
        uint32_t j = idmap_home((uint32_t)(s >> 32), cap);
        while (slot[j] != IDMAP_EMPTY)
            j = (j + 1) & (cap - 1);
        slot[j] = s;
    }
    free(m->slot);
    m->slot = slot;
    m->cap = cap;
    return 0;
}

int sc_idmap_put(sc_idmap *m, uint32_t key, uint32_t value)
{
    if (m->cap) {
        uint32_t i = idmap_home(key, m->cap);
        for (;;) {
            uint64_t s = m->slot[i];
            if (s == IDMAP_EMPTY)
                break;
            if ((uint32_t)(s >> 32) == key) {
                m->slot[i] = (uint64_t)key << 32 | value;
                return 0;
            }
            i = (i + 1) & (m->cap - 1);
        }
    }
    if ((uint64_t)(m->count + 1) * 2 > m->cap) {
        int rc = idmap_grow(m);
        if (rc != 0)
            return rc;
    }
    uint32_t i = idmap_home(key, m->cap);
    while (m->slot[i] != IDMAP_EMPTY)
        i = (i + 1) & (m->cap - 1);
    m->slot[i] = (uint64_t)key << 32 | value;
    m->count++;
    return 0;
}

uint32_t sc_idmap_get(const sc_idmap *m, uint32_t key)
{
    if (m->cap == 0)
        return SC_NO_NODE;
    uint32_t i = idmap_home(key, m->cap);
    for (;;) {
        uint64_t s = m->slot[i];
        if (s == IDMAP_EMPTY)
            return SC_NO_NODE;
        if ((uint32_t)(s >> 32) == key)
            return (uint32_t)s;
        i = (i + 1) & (m->cap - 1);
    }
}

void sc_idmap_free(sc_idmap *m)
{
    free(m->slot);
    memset(m, 0, sizeof *m);
}

/* ---- name arena and interning --------------------------------------- */

/* Entries are [u32 len][u32 hash][bytes][NUL], padded to 4 bytes, so a
 * reference never has its low two bits set and never equals SC_NO_REF. */
#define ENTRY_HEADER   8
#define ARENA_SPAN     ((size_t)1 << SC_ARENA_SHIFT)
#define ARENA_FIRST    4096
#define NAME_MAX_BYTES (UINT32_MAX - 16u)

static uint64_t load64(const char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static uint64_t load32(const char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Word-at-a-time mixing; the tail is read with fixed-size (possibly
 * overlapping) loads so that short names never call memcpy. */
static uint32_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ len, w;
    size_t n = len;
    while (n > 8) {
        h = (h ^ load64(s)) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 29;
        s += 8;
        n -= 8;
    }
    if (n == 8)
        w = load64(s);
    else if (n >= 4)
        w = load32(s) << 32 | load32(s + n - 4);
    else if (n > 0)
        w = (uint64_t)(unsigned char)s[0] << 16 | (uint64_t)(unsigned char)s[n / 2] << 8 |
            (unsigned char)s[n - 1];
    else
        w = 0;
    h = (h ^ w) * 0x94D049BB133111EBull;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    return (uint32_t)(h ^ (h >> 32));
}

static bool bytes_equal(const char *a, const char *b, size_t len)
{
    if (len >= 8 && len <= 16)
        return load64(a) == load64(b) && load64(a + len - 8) == load64(b + len - 8);
    if (len >= 4 && len < 8)
        return load32(a) == load32(b) && load32(a + len - 4) == load32(b + len - 4);
    return len == 0 || memcmp(a, b, len) == 0;
}

static int arena_reserve_blocks(sc_arena *a, uint32_t more)
{
    if ((uint64_t)a->nblock + more > SC_ARENA_MAX_BLOCK)
        return SC_ELIMIT;
    if (a->nblock + more <= a->block_cap)
        return 0;
    uint32_t cap = a->block_cap ? a->block_cap : 8;
    while (cap < a->nblock + more)
        cap *= 2;
    char **t = realloc(a->block, (size_t)cap * sizeof *t);
    if (!t)
        return SC_ENOMEM;
    a->block = t;
    a->block_cap = cap;
    return 0;
}

static void write_entry(char *p, const char *s, uint32_t len, uint32_t hash)
{
    memcpy(p, &len, 4);
    memcpy(p + 4, &hash, 4);
    if (len)
        memcpy(p + ENTRY_HEADER, s, len);
    p[ENTRY_HEADER + len] = '\0';
}

/* A name larger than one reference span gets a block of its own that
 * occupies as many block indices as it spans. */
static int arena_put_large(sc_arena *a, const char *s, uint32_t len, uint32_t hash, size_t need,
                           uint32_t *ref)
{
    uint32_t span = (uint32_t)((need + ARENA_SPAN - 1) / ARENA_SPAN);
    int rc = arena_reserve_blocks(a, span);
    if (rc != 0)
        return rc;
    char *b = malloc(need);
    if (!b)
        return SC_ENOMEM;
    write_entry(b, s, len, hash);
    uint32_t first = a->nblock;
    a->block[first] = b;
    for (uint32_t i = 1; i < span; i++)
        a->block[first + i] = NULL;
    a->nblock += span;
    a->bytes += need;
    *ref = first << SC_ARENA_SHIFT;
    return 0;
}

static int arena_put(sc_arena *a, const char *s, uint32_t len, uint32_t hash, uint32_t *ref)
{
    size_t need = ((size_t)ENTRY_HEADER + len + 1 + 3) & ~(size_t)3;
    if (need > ARENA_SPAN)
        return arena_put_large(a, s, len, hash, need, ref);
    if (a->cur >= a->nblock || a->cur_used + need > a->cur_size) {
        int rc = arena_reserve_blocks(a, 1);
        if (rc != 0)
            return rc;
        size_t size = a->cur_size ? (size_t)a->cur_size * 2 : ARENA_FIRST;
        if (size > ARENA_SPAN)
            size = ARENA_SPAN;
        if (size < need)
            size = need;
        char *b = malloc(size);
        if (!b)
            return SC_ENOMEM;
        a->cur = a->nblock;
        a->block[a->nblock++] = b;
        a->cur_used = 0;
        a->cur_size = (uint32_t)size;
        a->bytes += size;
    }
    write_entry(a->block[a->cur] + a->cur_used, s, len, hash);
    *ref = a->cur << SC_ARENA_SHIFT | a->cur_used;
    a->cur_used += (uint32_t)need;
    return 0;
}

static uint32_t intern_home(uint32_t hash, uint32_t cap)
{
    return (uint32_t)(((uint64_t)hash * cap) >> 32);
}

static int intern_grow(sc_graph *g)
{
    uint32_t cap = g->intern_cap ? g->intern_cap * 2 : 16;
    if (cap == 0)
        return SC_ELIMIT;
    sc_intern_slot *t = malloc((size_t)cap * sizeof *t);
    if (!t)
        return SC_ENOMEM;
    for (uint32_t i = 0; i < cap; i++)
        t[i].ref = SC_NO_REF;
    for (uint32_t i = 0; i < g->intern_cap; i++) {
        sc_intern_slot e = g->intern[i];
        if (e.ref == SC_NO_REF)
            continue;
        uint32_t j = intern_home(e.hash, cap);
        while (t[j].ref != SC_NO_REF)
            j = (j + 1) & (cap - 1);
        t[j] = e;
    }
    free(g->intern);
    g->intern = t;
    g->intern_cap = cap;
    return 0;
}

int sc_graph_intern(sc_graph *g, const char *s, size_t len, uint32_t *ref)
{
    if (len > NAME_MAX_BYTES)
        return SC_ELIMIT;
    uint32_t hash = hash_bytes(s, len);
    uint32_t mask = g->intern_cap - 1;
    if (g->intern_cap) {
        for (uint32_t i = intern_home(hash, g->intern_cap);; i = (i + 1) & mask) {
            sc_intern_slot e = g->intern[i];
            if (e.ref == SC_NO_REF)
                break;
            if (e.hash != hash)
                continue;
            uint32_t n;
            const char *p = sc_name_at(g, e.ref, &n);
            if (n == len && bytes_equal(p, s, len)) {
                *ref = e.ref;
                return 0;
            }
        }
    }
    if ((uint64_t)(g->intern_count + 1) * 2 > g->intern_cap) {
        int rc = intern_grow(g);
        if (rc != 0)
            return rc;
        mask = g->intern_cap - 1;
    }
    uint32_t r;
    int rc = arena_put(&g->arena, s, (uint32_t)len, hash, &r);
    if (rc != 0)
        return rc;
    uint32_t i = intern_home(hash, g->intern_cap);
    while (g->intern[i].ref != SC_NO_REF)
        i = (i + 1) & mask;
    g->intern[i].ref = r;
    g->intern[i].hash = hash;
    g->intern_count++;
    *ref = r;
    return 0;
}
