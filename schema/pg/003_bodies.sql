-- streamcap PostgreSQL schema, version 3: graphs that are the bodies of
-- other graphs' nodes (the SQLite schema's version 9 says why).

ALTER TABLE nodes DROP CONSTRAINT IF EXISTS nodes_kind_check;
ALTER TABLE nodes ADD CONSTRAINT nodes_kind_check
    CHECK (kind IN ('kernel', 'memcpy', 'memset', 'host_callback',
                    'mem_alloc', 'mem_free', 'event_record',
                    'event_wait', 'empty', 'graph', 'conditional'));

ALTER TABLE graphs ADD COLUMN parent_graph BIGINT;
ALTER TABLE graphs ADD COLUMN parent_node BIGINT;
ALTER TABLE graphs ADD COLUMN parent_index BIGINT;

CREATE INDEX graphs_by_parent ON graphs (parent_graph, parent_node, parent_index)
    WHERE parent_graph IS NOT NULL;
