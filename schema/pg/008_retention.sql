-- streamcap PostgreSQL schema, version 8: pinned graphs and the indexes of
-- the fingerprint filter (the SQLite schema's version 14 says what they
-- hold).  graphs.pinned is true for a graph graph.pin kept from retention,
-- prune and (without force) graph.delete.  The host filters have their
-- indexes since version 1.
ALTER TABLE graphs ADD COLUMN pinned BOOLEAN NOT NULL DEFAULT false;
CREATE INDEX graphs_by_fp_structure ON graphs (fp_structure, graph)
    WHERE fp_structure IS NOT NULL;
CREATE INDEX graphs_by_fp_full ON graphs (fp_full, graph) WHERE fp_full IS NOT NULL;
