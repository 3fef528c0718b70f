/*
 * graph_access.c - the buffer accesses a node carries.
 *
 * Most nodes carry none, so they live beside the 32-byte records: a node
 * with accesses has SC_REC_ACCESSES in its flags and an entry in the
 * graph's id map, whose value indexes a list of heap copies.  Each copy is
 * its own allocation, so pointers handed out by sc_graph_node() stay valid
 * while the graph grows.
 */
#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"

#define SC_ACCESS_NAME(id, name) [SC_ACCESS_##id] = name,
static const char *const access_names[] = {SC_ACCESS_MODES(SC_ACCESS_NAME)};
#undef SC_ACCESS_NAME
#define SC_NACCESS ((int)(sizeof access_names / sizeof access_names[0]))

const char *sc_access_mode_name(int mode)
{
    return mode > 0 && mode < SC_NACCESS ? access_names[mode] : NULL;
}

int sc_access_mode_parse(const char *s, size_t len, sc_access_mode *out)
{
    if (!s || !out)
        return SC_EINVAL;
    for (int i = 1; i < SC_NACCESS; i++)
        if (strlen(access_names[i]) == len && memcmp(access_names[i], s, len) == 0) {
            *out = (sc_access_mode)i;
            return 0;
        }
    return SC_EINVAL;
}

bool sc_access_valid(const sc_access *a)
{
    return a && a->size >= 1 && a->address <= UINT64_MAX - a->size &&
           sc_access_mode_name((int)a->mode) != NULL;
}

bool sc_node_accesses_valid(const sc_node *n)
{
    if (n->naccesses == 0)
        return true;
    if (!n->accesses || n->naccesses > SC_ACCESS_MAX)
        return false;
    for (uint32_t i = 0; i < n->naccesses; i++)
        if (!sc_access_valid(&n->accesses[i]))
            return false;
    return true;
}

/* Copied field by field into zeroed memory, so the padding after `mode`
 * holds no stray bytes. */
static sc_access *copy_accesses(const sc_access *v, uint32_t n)
{
    sc_access *c = calloc(n, sizeof *c);
    if (!c)
        return NULL;
    for (uint32_t i = 0; i < n; i++) {
        c[i].address = v[i].address;
        c[i].size = v[i].size;
        c[i].mode = v[i].mode;
    }
    return c;
}

static int reserve_list(sc_graph *g)
{
    if (g->acc_count < g->acc_cap)
        return 0;
    if (g->acc_count >= SC_MAX_NODE)
        return SC_ELIMIT;
    uint32_t cap = g->acc_cap ? g->acc_cap * 2 : 16;
    sc_access_list *l = realloc(g->acc, (size_t)cap * sizeof *l);
    if (!l)
        return SC_ENOMEM;
    g->acc = l;
    g->acc_cap = cap;
    return 0;
}

int sc_graph_set_accesses(sc_graph *g, sc_rec *r, uint32_t id, const sc_node *n)
{
    if (n->naccesses == 0)
        return 0;
    if (g->acc_total + n->naccesses > SC_ACCESS_GRAPH_MAX)
        return SC_ELIMIT;
    int rc = reserve_list(g);
    if (rc != 0)
        return rc;
    sc_access *c = copy_accesses(n->accesses, n->naccesses);
    if (!c)
        return SC_ENOMEM;
    if ((rc = sc_idmap_put(&g->acc_of, id, g->acc_count)) != 0) {
        free(c);
        return rc;
    }
    g->acc[g->acc_count++] = (sc_access_list){c, n->naccesses};
    g->acc_total += n->naccesses;
    r->flags |= SC_REC_ACCESSES;
    return 0;
}

void sc_graph_fill_accesses(const sc_graph *g, const sc_rec *r, uint32_t id, sc_node *out)
{
    if (!(r->flags & SC_REC_ACCESSES))
        return;
    uint32_t i = sc_idmap_get(&g->acc_of, id);
    if (i == SC_NO_NODE || i >= g->acc_count)
        return;
    out->accesses = g->acc[i].v;
    out->naccesses = g->acc[i].n;
}

void sc_graph_free_accesses(sc_graph *g)
{
    for (uint32_t i = 0; i < g->acc_count; i++)
        free(g->acc[i].v);
    free(g->acc);
    g->acc = NULL;
    g->acc_count = g->acc_cap = 0;
    g->acc_total = 0;
    sc_idmap_free(&g->acc_of);
}

size_t sc_graph_access_bytes(const sc_graph *g)
{
    size_t b = (size_t)g->acc_cap * sizeof(sc_access_list) + sc_idmap_bytes(&g->acc_of);
    for (uint32_t i = 0; i < g->acc_count; i++)
        b += (size_t)g->acc[i].n * sizeof(sc_access);
    return b;
}
