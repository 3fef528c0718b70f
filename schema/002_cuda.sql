-- streamcap schema, version 2: cuda-mode sessions (docs/cuda-semantics.md).
-- See schema/README.md.  Applied in one transaction with user_version = 2;
-- every row of version 1 is kept as it was.

-- Which capture model a session ran; version-1 rows were all the default.
ALTER TABLE capture_log ADD COLUMN semantics TEXT NOT NULL DEFAULT 'oxicuda'
    CHECK (semantics = 'oxicuda' OR semantics = 'cuda');

-- Which model produced a graph, and for cuda mode which capture of its session.
ALTER TABLE graphs ADD COLUMN semantics TEXT NOT NULL DEFAULT 'oxicuda'
    CHECK (semantics = 'oxicuda' OR semantics = 'cuda');
ALTER TABLE graphs ADD COLUMN capture INTEGER;

-- SQLite cannot change a CHECK in place: the nodes table is rebuilt with the
-- cuda-only kinds and directions, the y/z extents of 3-D kernel launches
-- (NULL for a 1-D launch, read as 1) and the event of event nodes.
CREATE TABLE nodes_v2 (
    graph             INTEGER NOT NULL,
    id                INTEGER NOT NULL,
    kind              TEXT    NOT NULL
                      CHECK (kind = 'kernel' OR
                             kind = 'memcpy' OR
                             kind = 'memset' OR
                             kind = 'host_callback' OR
                             kind = 'mem_alloc' OR
                             kind = 'mem_free' OR
                             kind = 'event_record' OR
                             kind = 'event_wait' OR
                             kind = 'empty'),
    stream            INTEGER NOT NULL,
    name              TEXT    NOT NULL,
    num_blocks        INTEGER,
    threads_per_block INTEGER,
    shared_mem        INTEGER,
    dir               TEXT
                      CHECK (dir = 'host_to_device' OR
                             dir = 'device_to_host' OR
                             dir = 'device_to_device' OR
                             dir = 'peer_to_peer' OR
                             dir = 'host_to_host' OR
                             dir = 'default'),
    size_bytes        INTEGER,
    src_device        INTEGER,
    dst_device        INTEGER,
    value             INTEGER,
    grid_y            INTEGER,
    grid_z            INTEGER,
    block_y           INTEGER,
    block_z           INTEGER,
    event             INTEGER,
    PRIMARY KEY (graph, id)
) WITHOUT ROWID;
INSERT INTO nodes_v2 (graph, id, kind, stream, name, num_blocks, threads_per_block, shared_mem,
                      dir, size_bytes, src_device, dst_device, value)
    SELECT graph, id, kind, stream, name, num_blocks, threads_per_block, shared_mem,
           dir, size_bytes, src_device, dst_device, value FROM nodes;
DROP TABLE nodes;
ALTER TABLE nodes_v2 RENAME TO nodes;

-- One row per ended capture of a cuda-mode session (docs/cuda-semantics.md §6).
CREATE TABLE captures (
    session          INTEGER NOT NULL,
    capture          INTEGER NOT NULL,
    origin           INTEGER NOT NULL,
    mode             TEXT    NOT NULL
                     CHECK (mode = 'global' OR mode = 'thread_local' OR mode = 'relaxed'),
    thread           INTEGER NOT NULL,
    outcome          TEXT    NOT NULL
                     CHECK (outcome = 'completed' OR outcome = 'failed' OR outcome = 'discarded'),
    cuda_error       INTEGER,
    node_count       INTEGER NOT NULL,
    ended_at         TEXT    NOT NULL,
    graph            INTEGER,
    graph_deleted_at TEXT,
    -- The first call that invalidated the capture, if one did.
    inv_method       TEXT,
    inv_stream       INTEGER,
    inv_event        INTEGER,
    inv_thread       INTEGER,
    inv_call         TEXT,
    inv_error        INTEGER,
    CHECK ((outcome = 'completed') = (graph IS NOT NULL)),
    CHECK ((outcome = 'failed') = (cuda_error IS NOT NULL)),
    CHECK ((inv_method IS NULL) = (inv_error IS NULL)),
    PRIMARY KEY (session, capture)
) WITHOUT ROWID;
