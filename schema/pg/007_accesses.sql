-- streamcap PostgreSQL schema, version 7: nodes carry the buffers they
-- read and write (the SQLite schema's version 13 says what they hold).
-- nodes.accesses is the JSON text [[address, size, mode], ...] in the
-- order given, NULL for a node without any and for every row stored
-- before.  The accesses view has one row per access, as SQLite's: idx
-- counts from 0 within its node; address and size are NUMERIC, since a
-- u64 does not fit BIGINT.
ALTER TABLE nodes ADD COLUMN accesses TEXT;
CREATE VIEW accesses (graph, node, idx, address, size, mode) AS
SELECT n.graph, n.id, a.i - 1, (a.v ->> 0)::NUMERIC(20, 0), (a.v ->> 1)::NUMERIC(20, 0),
       a.v ->> 2
FROM nodes AS n,
     jsonb_array_elements(n.accesses::jsonb) WITH ORDINALITY AS a (v, i)
WHERE n.accesses IS NOT NULL;
