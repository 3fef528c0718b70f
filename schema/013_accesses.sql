-- streamcap schema, version 13: nodes carry the buffers they read and
-- write (proto/PROTOCOL.md and docs/analyses.md, "Buffer accesses").  See
-- schema/README.md.  Applied in one transaction with user_version = 13;
-- no stored row changes.
--
-- A node's element in node_chunks.nodes (schema/006_node_chunks.sql),
-- [kind, stream, name, attrs, preds], gains a sixth member when the node
-- has accesses: [[address, size, mode], ...] in the order given, mode one
-- of 'read', 'write', 'read_write'.  Nodes without any, and every node
-- stored before this version, have five members.  The accesses view has
-- one row per access: idx counts from 0 within its node.
CREATE VIEW accesses (graph, node, idx, address, size, mode) AS
SELECT c.graph, c.lo + j.key, a.key, json_extract(a.value, '$[0]'),
       json_extract(a.value, '$[1]'), json_extract(a.value, '$[2]')
FROM node_chunks AS c, json_each(c.nodes) AS j, json_each(j.value, '$[5]') AS a;
