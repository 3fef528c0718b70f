-- streamcap schema, version 6: a graph's nodes stored in runs, a row per
-- run.  See schema/README.md.  Applied in one transaction with
-- user_version = 6; every node and edge of version 5 is kept.

-- Version 5 stored one row per node, and SQLite's work per row (the
-- record, the primary-key probe, the b-tree append, the statement's
-- opcodes) was most of the writer's cost: over 5,000 instructions per
-- node (bench/RESULTS.md, "The writer's stored form").  A row now holds a
-- run of consecutive nodes as one JSON array, element i being node lo + i:
--
--     [kind, stream, name, attrs, preds]
--
-- attrs is the array version 5 kept in node_rows.attrs (num_blocks,
-- threads_per_block, shared_mem, dir, size_bytes, src_device, dst_device,
-- value, grid_y, grid_z, block_y, block_z, event; null where a value does
-- not apply, trailing nulls left out) or null; preds the ids of the nodes
-- this one depends on, ascending ([] for none).  A node's predecessors are
-- known once it is recorded, so a capture still recording can store the
-- nodes it has (store/sc_store.h, "Streaming").  The daemon fills a run to
-- about 1,000 bytes, what a leaf of a 4,096-byte page keeps without an
-- overflow page; the runs copied below are 16 nodes each.
CREATE TABLE node_chunks (
    graph INTEGER NOT NULL,
    lo    INTEGER NOT NULL, -- the id of the run's first node
    nodes TEXT    NOT NULL,
    PRIMARY KEY (graph, lo)
) WITHOUT ROWID;

-- Version 5 kept each node's successors; the edges by their destination
-- give the predecessors, each node's one key range.  The inner scans read
-- by key, in id order, which is the order json_group_array() keeps.
CREATE TABLE preds_v5 (
    graph INTEGER NOT NULL,
    dst   INTEGER NOT NULL,
    src   INTEGER NOT NULL,
    PRIMARY KEY (graph, dst, src)
) WITHOUT ROWID;
INSERT INTO preds_v5 (graph, dst, src)
SELECT n.graph, s.value, n.id FROM node_rows AS n, json_each(n.succ) AS s;

INSERT INTO node_chunks (graph, lo, nodes)
SELECT k.graph, k.lo,
       (SELECT json_group_array(json_array(r.kind, r.stream, r.name, json(r.attrs),
                                           (SELECT json_group_array(p.src) FROM preds_v5 AS p
                                            WHERE p.graph = r.graph AND p.dst = r.id)))
        FROM node_rows AS r
        WHERE r.graph = k.graph AND r.id >= k.lo AND r.id < k.lo + 16)
FROM (SELECT DISTINCT graph, id - id % 16 AS lo FROM node_rows) AS k;

DROP TABLE preds_v5;
DROP VIEW nodes;
DROP VIEW edges;
DROP TABLE node_rows;

-- The views keep the columns nodes and edges have had since version 2.
-- Their GROUP BY, on columns unique per row already, is there for SQLite's
-- planner: a view it cannot flatten is computed once per query, for the
-- graphs the query's WHERE names (the constraint is pushed into it), and a
-- join on (graph, id) then searches it through an automatic index.
-- Flattened, a join would scan all of a graph's runs once per joined row.
CREATE VIEW nodes (graph, id, kind, stream, name, num_blocks, threads_per_block, shared_mem,
                   dir, size_bytes, src_device, dst_device, value, grid_y, grid_z, block_y,
                   block_z, event) AS
SELECT c.graph, c.lo + j.key,
       json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]'), json_extract(j.value, '$[2]'),
       json_extract(j.value, '$[3][0]'), json_extract(j.value, '$[3][1]'),
       json_extract(j.value, '$[3][2]'), json_extract(j.value, '$[3][3]'),
       json_extract(j.value, '$[3][4]'), json_extract(j.value, '$[3][5]'),
       json_extract(j.value, '$[3][6]'), json_extract(j.value, '$[3][7]'),
       json_extract(j.value, '$[3][8]'), json_extract(j.value, '$[3][9]'),
       json_extract(j.value, '$[3][10]'), json_extract(j.value, '$[3][11]'),
       json_extract(j.value, '$[3][12]')
FROM node_chunks AS c, json_each(c.nodes) AS j
GROUP BY c.graph, c.lo, j.key;

CREATE VIEW edges (graph, src, dst) AS
SELECT c.graph, p.value, c.lo + j.key
FROM node_chunks AS c, json_each(c.nodes) AS j, json_each(j.value, '$[4]') AS p
GROUP BY c.graph, c.lo, j.key, p.key;
