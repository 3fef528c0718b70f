/*
 * cli_stats.c - streamcap graph stats ID: graph.stats, readable or --json.
 */
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"

static void write_json(sc_buf *b, uint64_t id, const sc_client_stats *st)
{
    bool first, kf;
    sc_json_obj_begin(b, &first);
    sc_json_member_u64(b, &first, "graph", id);
    sc_json_member_u64(b, &first, "nodes", st->nodes);
    sc_json_member_u64(b, &first, "edges", st->edges);
    sc_json_key(b, &first, "by_kind");
    sc_json_obj_begin(b, &kf);
    for (int k = 0; k <= SC_CLIENT_CONDITIONAL; k++)
        if (st->by_kind[k])
            sc_json_member_u64(b, &kf, sc_client_kind_name((sc_client_kind)k), st->by_kind[k]);
    sc_json_obj_end(b);
    sc_json_member_u64(b, &first, "streams", st->streams);
    sc_json_member_u64(b, &first, "roots", st->roots);
    sc_json_member_u64(b, &first, "leaves", st->leaves);
    sc_json_member_u64(b, &first, "redundant_edges", st->redundant_edges);
    sc_json_member_u64(b, &first, "critical_path", st->critical_path);
    sc_json_member_u64(b, &first, "width", st->width);
    sc_json_obj_end(b);
}

static void print_readable(uint64_t id, const sc_client_stats *st)
{
    printf("graph %" PRIu64 ": %" PRIu64 " nodes, %" PRIu64 " edges, %" PRIu64 " streams\n", id,
           st->nodes, st->edges, st->streams);
    for (int k = 0; k <= SC_CLIENT_CONDITIONAL; k++)
        if (st->by_kind[k])
            printf("  %-15s %" PRIu64 "\n", sc_client_kind_name((sc_client_kind)k), st->by_kind[k]);
    printf("roots %" PRIu64 ", leaves %" PRIu64 "\n", st->roots, st->leaves);
    printf("redundant edges %" PRIu64 " (implied by other paths)\n", st->redundant_edges);
    printf("critical path %" PRIu64 " nodes\n", st->critical_path);
    printf("width at least %" PRIu64 " (largest level of the longest-path layering)\n", st->width);
}

int cli_graph_stats(cli *x, int argc, char **argv)
{
    uint64_t id;
    int bad = cli_graph_id_args(x, argc, argv, 1, &id);
    if (bad != CLI_OK)
        return bad;
    if (cli_connect(x) != CLI_OK)
        return CLI_ERROR;
    sc_client_stats st;
    int rc = sc_client_graph_stats(x->c, id, &st);
    if (rc != 0)
        return cli_call_fail(x, rc);
    if (!x->json) {
        print_readable(id, &st);
        return CLI_OK;
    }
    sc_buf buf = SC_BUF_INIT;
    write_json(&buf, id, &st);
    return cli_emit_json(x, &buf);
}
