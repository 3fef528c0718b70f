-- streamcap schema, version 10: kernel nodes carry their argument values.
-- See schema/README.md.  Applied in one transaction with user_version = 10;
-- no stored row changes.
--
-- A kernel node's attrs array (schema/005_packed_rows.sql) gains two
-- slots after event: 13, args, the lowercase hex of the parameters' bytes
-- packed in order, and 14, param_sizes, the JSON array of each
-- parameter's size, which splits args.  Both are absent for a kernel
-- recorded without its arguments and for every other kind, so the rows of
-- earlier versions read as kernels without arguments.  The nodes view exposes
-- them as two more columns (args TEXT, param_sizes JSON text).
DROP VIEW nodes;
CREATE VIEW nodes (graph, id, kind, stream, name, num_blocks, threads_per_block, shared_mem,
                   dir, size_bytes, src_device, dst_device, value, grid_y, grid_z, block_y,
                   block_z, event, args, param_sizes) AS
SELECT c.graph, c.lo + j.key,
       json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]'), json_extract(j.value, '$[2]'),
       json_extract(j.value, '$[3][0]'), json_extract(j.value, '$[3][1]'),
       json_extract(j.value, '$[3][2]'), json_extract(j.value, '$[3][3]'),
       json_extract(j.value, '$[3][4]'), json_extract(j.value, '$[3][5]'),
       json_extract(j.value, '$[3][6]'), json_extract(j.value, '$[3][7]'),
       json_extract(j.value, '$[3][8]'), json_extract(j.value, '$[3][9]'),
       json_extract(j.value, '$[3][10]'), json_extract(j.value, '$[3][11]'),
       json_extract(j.value, '$[3][12]'), json_extract(j.value, '$[3][13]'),
       json_extract(j.value, '$[3][14]')
FROM node_chunks AS c, json_each(c.nodes) AS j
GROUP BY c.graph, c.lo, j.key;
