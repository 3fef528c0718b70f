-- streamcap schema, version 12: every graph's fingerprints (docs/analyses.md,
-- "Fingerprints"), 16 lowercase hex digits each.  See schema/README.md.
-- Applied in one transaction with user_version = 12.
--
-- fp_structure: the node kinds, the edges and the bodies' structure;
-- fp_full: that and every stream, name and attribute but argument bytes.
-- Both are written with the graph row; a graph with child graph or
-- conditional nodes has them rewritten once its bodies are stored, before
-- the reply.  Rows stored before this version keep NULL in both.
-- graph.list {fingerprint} reads the graphs table newest first and tests
-- both columns: no index (a fingerprint filter is a rare, interactive
-- query, and an index would cost every commit).
ALTER TABLE graphs ADD COLUMN fp_structure TEXT;
ALTER TABLE graphs ADD COLUMN fp_full TEXT;
