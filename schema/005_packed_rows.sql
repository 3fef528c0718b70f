-- streamcap schema, version 5: one row per node, edges inside it.
-- See schema/README.md.  Applied in one transaction with user_version = 5;
-- every node and edge of version 4 is kept.

-- Storing a graph cost the writer thousands of instructions per node, most
-- of them SQLite's per-row work: a nodes row of eighteen columns and two
-- CHECKs, and a separate edges row for every dependency
-- (bench/RESULTS.md, "The writer's stored form").  A node is now one row
-- of seven columns: the attributes that only some kinds have are packed
-- into one JSON array, and the node's successors into another, so a graph
-- costs one row per node and none per edge.  `nodes` and `edges` stay, as
-- views with the columns they had, so the queries of docs/sql.md run
-- unchanged in the stock shell, and both are still read by key: a node by
-- (graph, id), the successors of a node by (graph, src).
CREATE TABLE node_rows (
    graph  INTEGER NOT NULL,
    id     INTEGER NOT NULL,
    kind   TEXT    NOT NULL,
    stream INTEGER NOT NULL,
    name   TEXT    NOT NULL,
    -- JSON array: num_blocks, threads_per_block, shared_mem, dir,
    -- size_bytes, src_device, dst_device, value, grid_y, grid_z, block_y,
    -- block_z, event; null where a value does not apply, trailing nulls
    -- left out; NULL when none applies.
    attrs  TEXT,
    -- JSON array of the ids of the nodes that depend on this one,
    -- ascending; NULL when none does.
    succ   TEXT,
    PRIMARY KEY (graph, id)
) WITHOUT ROWID;

INSERT INTO node_rows (graph, id, kind, stream, name, attrs, succ)
SELECT n.graph, n.id, n.kind, n.stream, n.name,
       CASE WHEN coalesce(n.num_blocks, n.threads_per_block, n.shared_mem, n.dir,
                          n.size_bytes, n.src_device, n.dst_device, n.value, n.grid_y,
                          n.grid_z, n.block_y, n.block_z, n.event) IS NULL THEN NULL
            ELSE json_array(n.num_blocks, n.threads_per_block, n.shared_mem, n.dir,
                            n.size_bytes, n.src_device, n.dst_device, n.value, n.grid_y,
                            n.grid_z, n.block_y, n.block_z, n.event) END,
       (SELECT json_group_array(dst)
        FROM (SELECT e.dst FROM edges AS e
              WHERE e.graph = n.graph AND e.src = n.id ORDER BY e.dst)
        HAVING count(*) > 0)
FROM nodes AS n
ORDER BY n.graph, n.id;

DROP TABLE nodes;
DROP TABLE edges;

CREATE VIEW nodes (graph, id, kind, stream, name, num_blocks, threads_per_block, shared_mem,
                   dir, size_bytes, src_device, dst_device, value, grid_y, grid_z, block_y,
                   block_z, event) AS
SELECT graph, id, kind, stream, name,
       json_extract(attrs, '$[0]'), json_extract(attrs, '$[1]'), json_extract(attrs, '$[2]'),
       json_extract(attrs, '$[3]'), json_extract(attrs, '$[4]'), json_extract(attrs, '$[5]'),
       json_extract(attrs, '$[6]'), json_extract(attrs, '$[7]'), json_extract(attrs, '$[8]'),
       json_extract(attrs, '$[9]'), json_extract(attrs, '$[10]'), json_extract(attrs, '$[11]'),
       json_extract(attrs, '$[12]')
FROM node_rows;

CREATE VIEW edges (graph, src, dst) AS
SELECT n.graph, n.id, s.value
FROM node_rows AS n, json_each(n.succ) AS s;
