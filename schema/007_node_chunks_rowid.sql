-- streamcap schema, version 7: node_chunks becomes a rowid table with its
-- key in an index.  See schema/README.md.  Applied in one transaction with
-- user_version = 7; every run of version 6 is copied unchanged.

-- Version 6 kept the runs in a WITHOUT ROWID table keyed by (graph, lo).
-- Such a table is one b-tree whose interior pages hold whole rows, and a
-- run is about 1,000 bytes: an interior page held four of them, a graph's
-- runs sat under a tree five or six levels deep, a quarter of the table's
-- pages were interior ones, and nearly every commit rewrote several of
-- them in the write-ahead log (bench/RESULTS.md, "The writer's pages and
-- wake-ups").  In a rowid table the interior pages hold 8-byte row ids, the
-- runs are appended in the order they are written, and the key lives in
-- a small index beside it.
CREATE TABLE node_chunks_v7 (
    graph INTEGER NOT NULL,
    lo    INTEGER NOT NULL, -- the id of the run's first node
    nodes TEXT    NOT NULL  -- [[kind, stream, name, attrs, preds], ...]
);
INSERT INTO node_chunks_v7 (graph, lo, nodes)
SELECT graph, lo, nodes FROM node_chunks ORDER BY graph, lo;

-- The views name node_chunks; they are made again below, word for word
-- as version 6 made them, over the new table.
DROP VIEW nodes;
DROP VIEW edges;
DROP TABLE node_chunks;
ALTER TABLE node_chunks_v7 RENAME TO node_chunks;
CREATE UNIQUE INDEX node_chunks_by_graph ON node_chunks (graph, lo);

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
