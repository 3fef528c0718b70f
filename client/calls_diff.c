/*
 * calls_diff.c - graph.diff: what changed from one stored graph to another.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client_int.h"

static const sc_method_id M = SC_M_GRAPH_DIFF;

static int decode_id(sc_client *c, const cJSON *e, void *item)
{
    if (!cJSON_IsNumber(e) || e->valuedouble < 0 || e->valuedouble > UINT32_MAX)
        return sc_cl_malformed(c, M, "a node id is not a u32");
    *(uint32_t *)item = (uint32_t)e->valuedouble;
    return 0;
}

static int decode_edge(sc_client *c, const cJSON *e, void *item)
{
    uint32_t v[2] = {0, 0};
    if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 2 ||
        decode_id(c, cJSON_GetArrayItem(e, 0), &v[0]) != 0 ||
        decode_id(c, cJSON_GetArrayItem(e, 1), &v[1]) != 0)
        return sc_cl_malformed(c, M, "an edge is not [src, dst]");
    *(sc_client_edge *)item = (sc_client_edge){.src = v[0], .dst = v[1]};
    return 0;
}

/* fields: the names joined with commas into one owned string. */
static int decode_change(sc_client *c, const cJSON *e, void *item)
{
    sc_client_node_change *ch = item;
    uint64_t a, b;
    int rc = sc_cl_get_u64(c, M, e, "a", UINT32_MAX, &a);
    rc = rc ? rc : sc_cl_get_u64(c, M, e, "b", UINT32_MAX, &b);
    if (rc != 0)
        return rc;
    ch->a = (uint32_t)a;
    ch->b = (uint32_t)b;
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(e, "fields");
    if (!cJSON_IsArray(f))
        return sc_cl_malformed(c, M, "'fields' is not an array");
    size_t len = 1;
    const cJSON *v;
    cJSON_ArrayForEach(v, f)
    {
        if (!cJSON_IsString(v))
            return sc_cl_malformed(c, M, "a field is not a string");
        len += strlen(v->valuestring) + 1;
    }
    if (!(ch->fields = malloc(len)))
        return sc_cl_fail(c, -ENOMEM, "out of memory");
    ch->fields[0] = '\0';
    cJSON_ArrayForEach(v, f)
    {
        if (ch->fields[0])
            strcat(ch->fields, ",");
        strcat(ch->fields, v->valuestring);
    }
    return 0;
}

static int decode_diff(sc_client *c, sc_method_id m, const cJSON *res, void *out)
{
    sc_client_diff *d = out;
    void *p = NULL;
    int rc = sc_cl_get_bool(c, m, res, "identical", &d->identical);
    rc = rc ? rc
            : sc_cl_decode_array(c, m, res, "nodes_added", sizeof *d->nodes_added, decode_id, &p,
                                 &d->n_added);
    d->nodes_added = p;
    p = NULL;
    rc = rc ? rc
            : sc_cl_decode_array(c, m, res, "nodes_removed", sizeof *d->nodes_removed, decode_id,
                                 &p, &d->n_removed);
    d->nodes_removed = p;
    p = NULL;
    rc = rc ? rc
            : sc_cl_decode_array(c, m, res, "nodes_changed", sizeof *d->nodes_changed,
                                 decode_change, &p, &d->n_changed);
    d->nodes_changed = p;
    p = NULL;
    rc = rc ? rc
            : sc_cl_decode_array(c, m, res, "edges_added", sizeof *d->edges_added, decode_edge, &p,
                                 &d->n_edges_added);
    d->edges_added = p;
    p = NULL;
    rc = rc ? rc
            : sc_cl_decode_array(c, m, res, "edges_removed", sizeof *d->edges_removed, decode_edge,
                                 &p, &d->n_edges_removed);
    d->edges_removed = p;
    return rc;
}

void sc_client_diff_free(sc_client_diff *d)
{
    if (!d)
        return;
    for (size_t i = 0; d->nodes_changed && i < d->n_changed; i++)
        free(d->nodes_changed[i].fields);
    free(d->nodes_added);
    free(d->nodes_removed);
    free(d->nodes_changed);
    free(d->edges_added);
    free(d->edges_removed);
    memset(d, 0, sizeof *d);
}

static void drop_diff(void *d)
{
    sc_client_diff_free(d);
}

static const sc_cl_call graph_diff = {.m = SC_M_GRAPH_DIFF,
                                      .tree = true,
                                      .decode = decode_diff,
                                      .drop = drop_diff,
                                      .size = sizeof(sc_client_diff)};

int sc_client_graph_diff(sc_client *c, uint64_t a, uint64_t b, sc_client_diff *out)
{
    if (!out)
        return sc_cl_null_arg(c, "out");
    int rc = sc_cl_start(c, &graph_diff);
    if (rc != 0)
        return rc;
    sc_cl_u64(c, "a", a);
    sc_cl_u64(c, "b", b);
    return sc_cl_finish(c, &graph_diff, out);
}
