/*
 * calls_stats.c - graph.stats: the figures of a stored graph; graph.races:
 * its unordered pairs with conflicting accesses.
 */
#include <stdlib.h>
#include <string.h>

#include "client_int.h"

/* by_kind: every member a known kind's wire name with a count. */
static int decode_by_kind(sc_client *c, sc_method_id m, const cJSON *res, sc_client_stats *st)
{
    const cJSON *by = cJSON_GetObjectItemCaseSensitive(res, "by_kind");
    if (!cJSON_IsObject(by))
        return sc_cl_malformed(c, m, "'by_kind' is not an object");
    const cJSON *v;
    cJSON_ArrayForEach(v, by)
    {
        sc_client_kind k;
        uint64_t n;
        if (sc_cl_parse_kind(v->string, &k) != 0)
            return sc_cl_malformed(c, m, "'by_kind' names an unknown kind");
        int rc = sc_cl_get_u64(c, m, by, v->string, UINT64_MAX, &n);
        if (rc != 0)
            return rc;
        st->by_kind[k] = n;
    }
    return 0;
}

static int decode_stats(sc_client *c, sc_method_id m, const cJSON *res, void *out)
{
    sc_client_stats *st = out;
    struct {
        const char *key;
        uint64_t *to;
    } f[] = {{"nodes", &st->nodes},
             {"edges", &st->edges},
             {"streams", &st->streams},
             {"roots", &st->roots},
             {"leaves", &st->leaves},
             {"redundant_edges", &st->redundant_edges},
             {"critical_path", &st->critical_path},
             {"width", &st->width}};
    memset(st, 0, sizeof *st);
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        int rc = sc_cl_get_u64(c, m, res, f[i].key, UINT64_MAX, f[i].to);
        if (rc != 0)
            return rc;
    }
    return decode_by_kind(c, m, res, st);
}

static const sc_cl_call graph_stats = {
    .m = SC_M_GRAPH_STATS, .tree = true, .decode = decode_stats, .size = sizeof(sc_client_stats)};

int sc_client_graph_stats(sc_client *c, uint64_t graph, sc_client_stats *out)
{
    if (!out)
        return sc_cl_null_arg(c, "out");
    int rc = sc_cl_start(c, &graph_stats);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "graph", graph);
    return sc_cl_finish(c, &graph_stats, out);
}

const char *sc_client_access_mode_name(unsigned mode)
{
    static const char *const names[] = {NULL, "read", "write", "read_write"};
    return mode < 4 ? names[mode] : NULL;
}

static int parse_mode(sc_client *c, const cJSON *o, const char *key, unsigned *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    for (unsigned m = 1; m < 4 && cJSON_IsString(v); m++)
        if (strcmp(v->valuestring, sc_client_access_mode_name(m)) == 0) {
            *out = m;
            return 0;
        }
    return sc_cl_malformed(c, SC_M_GRAPH_RACES, "a race's mode is not read, write or read_write");
}

static int decode_race(sc_client *c, const cJSON *o, void *item)
{
    sc_client_race *r = item;
    const sc_method_id m = SC_M_GRAPH_RACES;
    uint64_t a, b;
    if (sc_cl_get_u64(c, m, o, "a", UINT32_MAX, &a) != 0 ||
        sc_cl_get_u64(c, m, o, "b", UINT32_MAX, &b) != 0 ||
        sc_cl_get_u64(c, m, o, "address", UINT64_MAX, &r->address) != 0 ||
        sc_cl_get_u64(c, m, o, "size", UINT64_MAX, &r->size) != 0 ||
        parse_mode(c, o, "a_mode", &r->a_mode) != 0 || parse_mode(c, o, "b_mode", &r->b_mode) != 0)
        return -EPROTO;
    r->a = (uint32_t)a;
    r->b = (uint32_t)b;
    return 0;
}

static int decode_races(sc_client *c, sc_method_id m, const cJSON *res, void *out)
{
    sc_client_races *r = out;
    void *items = NULL;
    int rc = sc_cl_decode_array(c, m, res, "races", sizeof(*r->races), decode_race, &items, &r->n);
    r->races = items;
    return rc != 0 ? rc : sc_cl_get_u64(c, m, res, "count", UINT64_MAX, &r->count);
}

void sc_client_races_free(sc_client_races *r)
{
    if (!r)
        return;
    free(r->races);
    memset(r, 0, sizeof *r);
}

static void drop_races(void *r)
{
    sc_client_races_free(r);
}

static const sc_cl_call graph_races = {.m = SC_M_GRAPH_RACES,
                                       .tree = true,
                                       .decode = decode_races,
                                       .drop = drop_races,
                                       .size = sizeof(sc_client_races)};

int sc_client_graph_races(sc_client *c, uint64_t graph, uint32_t limit, sc_client_races *out)
{
    if (!out)
        return sc_cl_null_arg(c, "out");
    int rc = sc_cl_start(c, &graph_races);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "graph", graph);
    sc_cl_u64(c, "limit", limit);
    return sc_cl_finish(c, &graph_races, out);
}
