/*
 * calls_stats.c - graph.stats: the figures of a stored graph.
 */
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
