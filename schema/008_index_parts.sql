-- streamcap schema, version 8: a graph's graph_index in parts, a row per
-- range of nodes.  See schema/README.md.  Applied in one transaction with
-- user_version = 8; every row of version 7 becomes the one part of its
-- graph.

-- Until version 7 a graph had one graph_index row, its streams and edges
-- blobs together 12 bytes a node: 61 MB for a graph of 5M nodes, written
-- in the transaction that made the graph visible, which every small write
-- queued behind it then waited for (a quarter of a second; bench/
-- RESULTS.md, "The reachability index in parts").  A part holds the
-- streams of nodes lo .. lo + node_count - 1 and the edges out of them,
-- in (src, dst) order, so the parts of a graph in lo order are the blobs
-- of version 7 cut at node boundaries; a big graph's parts are written a
-- few at a time, each transaction about as long as a chunk of nodes.
CREATE TABLE graph_index_v8 (
    graph      INTEGER NOT NULL,
    lo         INTEGER NOT NULL, -- the part's first node
    node_count INTEGER NOT NULL, -- nodes in the part
    edge_count INTEGER NOT NULL, -- edges out of them
    streams    BLOB    NOT NULL,
    edges      BLOB    NOT NULL,
    CHECK (length(streams) = 4 * node_count),
    CHECK (length(edges) = 8 * edge_count)
);
INSERT INTO graph_index_v8 (graph, lo, node_count, edge_count, streams, edges)
SELECT graph, 0, node_count, edge_count, streams, edges FROM graph_index ORDER BY graph;
DROP TABLE graph_index;
ALTER TABLE graph_index_v8 RENAME TO graph_index;
CREATE UNIQUE INDEX graph_index_by_graph ON graph_index (graph, lo);
