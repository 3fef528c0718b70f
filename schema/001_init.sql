-- streamcap schema, version 1.  See schema/README.md for every table and column.
-- Applied by the daemon inside one transaction that also sets PRAGMA user_version = 1.

-- One row per capture session; `session` is the id clients see.
CREATE TABLE capture_log (
    session          INTEGER PRIMARY KEY AUTOINCREMENT,
    label            TEXT    NOT NULL DEFAULT '',
    owner_uid        INTEGER NOT NULL,
    owner_pid        INTEGER NOT NULL,
    opened_at        TEXT    NOT NULL,
    ended_at         TEXT,
    outcome          TEXT    NOT NULL DEFAULT 'open'
                     CHECK (outcome = 'open' OR
                             outcome = 'completed' OR
                             outcome = 'failed' OR
                             outcome = 'closed' OR
                             outcome = 'abandoned' OR
                             outcome = 'shutdown' OR
                             outcome = 'lost'),
    node_count       INTEGER NOT NULL DEFAULT 0,
    graph            INTEGER,
    graph_deleted_at TEXT,
    CHECK ((outcome = 'completed') = (graph IS NOT NULL)),
    CHECK (graph_deleted_at IS NULL OR graph IS NOT NULL)
);

-- log.list: newest first by opened time, then session id.  Each index ends
-- with (opened_at, session), so every filter is served in list order.
CREATE INDEX capture_log_by_time ON capture_log (opened_at, session);
-- log.list filtered by outcome; also finds the rows start-up turns from
-- 'open' into 'lost' without a scan.
CREATE INDEX capture_log_by_outcome ON capture_log (outcome, opened_at, session);
-- log.list of one owner (every caller but root).
CREATE INDEX capture_log_by_owner ON capture_log (owner_uid, opened_at, session);

-- One row per stored graph.
CREATE TABLE graphs (
    graph        INTEGER PRIMARY KEY AUTOINCREMENT,
    session      INTEGER NOT NULL,
    label        TEXT    NOT NULL DEFAULT '',
    created_at   TEXT    NOT NULL,
    owner_uid    INTEGER NOT NULL,
    owner_pid    INTEGER NOT NULL,
    node_count   INTEGER NOT NULL,
    edge_count   INTEGER NOT NULL,
    stream_count INTEGER NOT NULL
);

-- graph.list filtered by label, and of one owner: newest first is a walk
-- backwards through either index.
CREATE INDEX graphs_by_label ON graphs (label, graph);
CREATE INDEX graphs_by_owner ON graphs (owner_uid, graph);

-- CHECKs are written as ORs of equalities: `IN (...)` makes SQLite build a
-- temporary lookup table for every inserted row, which dominated commits.

-- The nodes of each graph; ids are 0..node_count-1 in topological order.
-- Attribute columns that do not belong to the node's kind are NULL.
CREATE TABLE nodes (
    graph             INTEGER NOT NULL,
    id                INTEGER NOT NULL,
    kind              TEXT    NOT NULL
                      CHECK (kind = 'kernel' OR
                             kind = 'memcpy' OR
                             kind = 'memset' OR
                             kind = 'host_callback'),
    stream            INTEGER NOT NULL,
    name              TEXT    NOT NULL,
    num_blocks        INTEGER,
    threads_per_block INTEGER,
    shared_mem        INTEGER,
    dir               TEXT
                      CHECK (dir = 'host_to_device' OR
                             dir = 'device_to_host' OR
                             dir = 'device_to_device' OR
                             dir = 'peer_to_peer'),
    size_bytes        INTEGER,
    src_device        INTEGER,
    dst_device        INTEGER,
    value             INTEGER,
    PRIMARY KEY (graph, id)
) WITHOUT ROWID;

-- Dependencies src -> dst (src < dst).  The key orders rows by (graph, src),
-- so following successors in a recursive CTE is an index lookup.
CREATE TABLE edges (
    graph INTEGER NOT NULL,
    src   INTEGER NOT NULL,
    dst   INTEGER NOT NULL,
    PRIMARY KEY (graph, src, dst)
) WITHOUT ROWID;

-- What the reachability index needs of each graph, packed, so a cold
-- graph.reachable reads two blobs instead of every node and edge row.
-- streams: node_count little-endian u32, node i's stream at byte 4 * i.
-- edges: edge_count (src, dst) pairs of little-endian u32, ascending by
-- (src, dst), the order of the edges table.  Written in the transaction
-- that stores the graph and deleted with it; a graph too large for one
-- SQLite value has no row here (reachability then loads the full rows).
CREATE TABLE graph_index (
    graph      INTEGER PRIMARY KEY,
    node_count INTEGER NOT NULL,
    edge_count INTEGER NOT NULL,
    streams    BLOB    NOT NULL,
    edges      BLOB    NOT NULL,
    CHECK (length(streams) = 4 * node_count),
    CHECK (length(edges) = 8 * edge_count)
);
