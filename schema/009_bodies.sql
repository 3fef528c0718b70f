-- streamcap schema, version 9: graphs that are the bodies of other graphs'
-- nodes.  See schema/README.md.  Applied in one transaction with
-- user_version = 9; every row of version 8 is kept (as a top-level graph).

-- A child graph node (kind 'graph') and a conditional node (kind
-- 'conditional') hold their bodies as graphs of their own.  Such a body
-- names the graph and node that hold it and its index among that node's
-- bodies (0 for a child graph); a top-level graph has NULL in all three.
ALTER TABLE graphs ADD COLUMN parent_graph INTEGER;
ALTER TABLE graphs ADD COLUMN parent_node INTEGER;
ALTER TABLE graphs ADD COLUMN parent_index INTEGER;

-- A graph's bodies, for deleting them with it and reading them back.
CREATE INDEX graphs_by_parent ON graphs (parent_graph, parent_node, parent_index)
    WHERE parent_graph IS NOT NULL;
