/*
 * graph_stats.c - graph.stats' result object from core's figures
 * (docs/analyses.md).  Runs on the thread pool: nothing here touches the
 * loop.
 */
#include "sc_analysis.h"
#include "sc_handlers.h"

/* by_kind names only the kinds present, by their wire names. */
static void write_by_kind(sc_buf *out, bool *first_m, const sc_graph_stats *st)
{
    bool first = true;
    sc_json_key(out, first_m, "by_kind");
    sc_json_obj_begin(out, &first);
    for (int k = 0; k < SC_STATS_KINDS; k++) {
        const char *name = sc_cuda_kind_name(k);
        if (st->by_kind[k] && name)
            sc_json_member_u64(out, &first, name, st->by_kind[k]);
    }
    sc_json_obj_end(out);
}

int sc_graph_stats_json(const sc_graph *g, sc_jval params, sc_buf *out)
{
    (void)params;
    sc_graph_stats st;
    int rc = sc_graph_compute_stats(g, &st);
    if (rc != 0)
        return rc;
    bool first = true;
    sc_json_obj_begin(out, &first);
    sc_json_member_u64(out, &first, "nodes", st.nodes);
    sc_json_member_u64(out, &first, "edges", st.edges);
    write_by_kind(out, &first, &st);
    sc_json_member_u64(out, &first, "streams", st.streams);
    sc_json_member_u64(out, &first, "roots", st.roots);
    sc_json_member_u64(out, &first, "leaves", st.leaves);
    sc_json_member_u64(out, &first, "redundant_edges", st.redundant_edges);
    sc_json_member_u64(out, &first, "critical_path", st.critical_path);
    sc_json_member_u64(out, &first, "width", st.width);
    sc_json_obj_end(out);
    return 0;
}
