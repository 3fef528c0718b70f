-- streamcap schema, version 11: conditional nodes carry their type, size,
-- and their handle's default value and flags.  See schema/README.md.
-- Applied in one transaction with user_version = 11; no stored row changes.
--
-- A conditional node's attrs array (schema/005_packed_rows.sql) gains four
-- slots after param_sizes (13 and 14 are null for it): 15, cond_type, one
-- of 'if', 'while', 'switch'; 16, cond_size, its number of bodies; 17,
-- cond_default, the default value of the handle its condition reads; 18,
-- cond_flags, that handle's flags (1: the default is assigned at each
-- launch).  All four are absent for every other kind and for conditionals
-- stored by earlier versions.  The nodes view exposes them as four more
-- columns.
DROP VIEW nodes;
CREATE VIEW nodes (graph, id, kind, stream, name, num_blocks, threads_per_block, shared_mem,
                   dir, size_bytes, src_device, dst_device, value, grid_y, grid_z, block_y,
                   block_z, event, args, param_sizes, cond_type, cond_size, cond_default,
                   cond_flags) AS
SELECT c.graph, c.lo + j.key,
       json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]'), json_extract(j.value, '$[2]'),
       json_extract(j.value, '$[3][0]'), json_extract(j.value, '$[3][1]'),
       json_extract(j.value, '$[3][2]'), json_extract(j.value, '$[3][3]'),
       json_extract(j.value, '$[3][4]'), json_extract(j.value, '$[3][5]'),
       json_extract(j.value, '$[3][6]'), json_extract(j.value, '$[3][7]'),
       json_extract(j.value, '$[3][8]'), json_extract(j.value, '$[3][9]'),
       json_extract(j.value, '$[3][10]'), json_extract(j.value, '$[3][11]'),
       json_extract(j.value, '$[3][12]'), json_extract(j.value, '$[3][13]'),
       json_extract(j.value, '$[3][14]'), json_extract(j.value, '$[3][15]'),
       json_extract(j.value, '$[3][16]'), json_extract(j.value, '$[3][17]'),
       json_extract(j.value, '$[3][18]')
FROM node_chunks AS c, json_each(c.nodes) AS j
GROUP BY c.graph, c.lo, j.key;
