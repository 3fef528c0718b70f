/*
 * analysis.c - graph.stats' figures over a sealed graph.
 *
 * Ids are a topological order (every edge goes up), so one pass in id order
 * gives each node the length of the longest path ending at it.  Two nodes
 * with the same length are unordered: a path u -> v makes v's length
 * larger.  Each length's nodes are therefore an antichain, and the largest
 * of them is the width we report: a lower bound of the true width, which
 * needs a bipartite matching too slow for million-node graphs.
 */
#include <stdlib.h>
#include <string.h>

#include "sc_analysis.h"

/* Longest path ending at each node, in nodes, into depth[]; the critical
 * path and the per-level counts come from it. */
static void longest_paths(const sc_graph *g, uint32_t n, uint32_t *depth)
{
    for (uint32_t v = 0; v < n; v++)
        depth[v] = 1;
    for (uint32_t u = 0; u < n; u++) {
        const uint32_t *succ;
        uint32_t cnt;
        sc_graph_successors(g, u, &succ, &cnt);
        for (uint32_t i = 0; i < cnt; i++)
            if (depth[succ[i]] < depth[u] + 1)
                depth[succ[i]] = depth[u] + 1;
    }
}

static int layer_figures(const sc_graph *g, uint32_t n, sc_graph_stats *out)
{
    uint32_t *depth = malloc((size_t)n * sizeof *depth);
    uint32_t *level = calloc((size_t)n + 1, sizeof *level);
    if (!depth || !level) {
        free(depth);
        free(level);
        return SC_ENOMEM;
    }
    longest_paths(g, n, depth);
    for (uint32_t v = 0; v < n; v++) {
        if (depth[v] > out->critical_path)
            out->critical_path = depth[v];
        if (++level[depth[v]] > out->width)
            out->width = level[depth[v]];
    }
    free(depth);
    free(level);
    return 0;
}

/* Does u reach v other than by its own edge u->v?  Through a successor w of
 * u with w < v (larger ones cannot reach v), or into a predecessor p of v
 * with p > u that u reaches: the shorter list is walked. */
static int edge_redundant(const sc_graph *g, uint32_t u, uint32_t v, uint32_t **pbuf,
                          uint32_t *pcap, bool *out)
{
    const uint32_t *succ;
    uint32_t nsucc, npred;
    *out = false;
    sc_graph_successors(g, u, &succ, &nsucc);
    int rc = sc_graph_predecessors(g, v, *pbuf, *pcap, &npred);
    if (rc == SC_ELIMIT && npred > nsucc) {
        for (uint32_t i = 0; i < nsucc && succ[i] < v && !*out; i++)
            if (succ[i] != v && (rc = sc_graph_reachable(g, succ[i], v, out)) != 0)
                return rc;
        return 0;
    }
    if (rc == SC_ELIMIT) {
        uint32_t *nb = realloc(*pbuf, (size_t)npred * sizeof *nb);
        if (!nb)
            return SC_ENOMEM;
        *pbuf = nb;
        *pcap = npred;
        rc = sc_graph_predecessors(g, v, *pbuf, *pcap, &npred);
    }
    if (rc != 0)
        return rc;
    for (uint32_t i = 0; i < npred && !*out; i++)
        if ((*pbuf)[i] > u && (rc = sc_graph_reachable(g, u, (*pbuf)[i], out)) != 0)
            return rc;
    return 0;
}

static int count_redundant(const sc_graph *g, uint32_t n, uint64_t *count)
{
    uint32_t cap = 64;
    uint32_t *pbuf = malloc(cap * sizeof *pbuf);
    if (!pbuf)
        return SC_ENOMEM;
    int rc = 0;
    for (uint32_t u = 0; u < n && rc == 0; u++) {
        const uint32_t *succ;
        uint32_t cnt;
        sc_graph_successors(g, u, &succ, &cnt);
        for (uint32_t i = 0; i < cnt && rc == 0; i++) {
            bool red = false;
            rc = edge_redundant(g, u, succ[i], &pbuf, &cap, &red);
            *count += red;
        }
    }
    free(pbuf);
    return rc;
}

/* Kinds, roots and leaves: one look at each node. */
static void node_figures(const sc_graph *g, uint32_t n, sc_graph_stats *out)
{
    for (uint32_t v = 0; v < n; v++) {
        sc_node node;
        const uint32_t *succ;
        uint32_t nsucc, npred = 0;
        sc_graph_node(g, v, &node);
        if ((unsigned)node.kind < SC_STATS_KINDS)
            out->by_kind[node.kind]++;
        sc_graph_successors(g, v, &succ, &nsucc);
        /* cap 0: only the count comes back (SC_ELIMIT when there are any) */
        sc_graph_predecessors(g, v, NULL, 0, &npred);
        out->roots += npred == 0;
        out->leaves += nsucc == 0;
    }
}

int sc_graph_compute_stats(const sc_graph *g, sc_graph_stats *out)
{
    if (!g || !out || !sc_graph_is_sealed(g))
        return SC_EINVAL;
    memset(out, 0, sizeof *out);
    uint32_t n = sc_graph_node_count(g);
    out->nodes = n;
    out->edges = sc_graph_edge_count(g);
    out->streams = sc_graph_stream_count(g);
    node_figures(g, n, out);
    int rc = layer_figures(g, n, out);
    if (rc != 0)
        return rc;
    return count_redundant(g, n, &out->redundant_edges);
}
