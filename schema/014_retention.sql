-- streamcap schema, version 14: pinned graphs and the indexes of the
-- filters graph.list and log.list serve (docs/operations.md, "Retention").
-- See schema/README.md.  Applied in one transaction with user_version = 14;
-- no stored row changes.
--
-- graphs.pinned is 1 for a graph graph.pin kept from retention, prune and
-- (without force) graph.delete; 0 otherwise and for every graph stored
-- before.  Only top-level graphs are pinned: a body goes with its parent.
--
-- The new indexes end in the list order (graph id, or opened_at and
-- session) so that each filter is a SEARCH that needs no sort:
-- graphs_by_host and capture_log_by_host for the host filters,
-- graphs_by_fp_structure and graphs_by_fp_full for the fingerprint one.
-- Retention walks the graphs in id order, the primary key.
ALTER TABLE graphs ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
CREATE INDEX graphs_by_host ON graphs (host, graph);
CREATE INDEX graphs_by_fp_structure ON graphs (fp_structure, graph)
    WHERE fp_structure IS NOT NULL;
CREATE INDEX graphs_by_fp_full ON graphs (fp_full, graph) WHERE fp_full IS NOT NULL;
CREATE INDEX capture_log_by_host ON capture_log (host, opened_at, session);
