-- streamcap PostgreSQL schema, version 1: the tables of the SQLite schema
-- (schema/001_init.sql .. 003_pending.sql) for a database that many
-- daemons share.  See schema/README.md, "PostgreSQL".  Applied by the daemon
-- in one transaction, under pg_advisory_xact_lock, that also records the
-- version in schema_migrations.
--
-- Differences from SQLite, all for a fleet:
--   * every session, graph and pending graph row names the host (the
--     daemon's --host-name) it came from, and hosts lists the daemons;
--   * ids come from sequences, so they are unique across daemons;
--   * times are timestamptz, so psql shows and compares them as times;
--   * a node name that PostgreSQL text cannot hold (a NUL byte or bytes
--     that are not UTF-8) is kept exactly in name_bytes, with a readable
--     copy in name.

-- The daemons that ever used this database, by --host-name.
CREATE TABLE hosts (
    host       TEXT        PRIMARY KEY,
    first_seen TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_start TIMESTAMPTZ NOT NULL DEFAULT now(),
    daemon_pid BIGINT
);

CREATE SEQUENCE session_ids;
CREATE SEQUENCE graph_ids;

-- One row per capture session; `session` is the id clients see.
CREATE TABLE capture_log (
    session          BIGINT      PRIMARY KEY DEFAULT nextval('session_ids'),
    host             TEXT        NOT NULL,
    label            TEXT        NOT NULL DEFAULT '',
    owner_uid        BIGINT      NOT NULL,
    owner_pid        BIGINT      NOT NULL,
    opened_at        TIMESTAMPTZ NOT NULL,
    ended_at         TIMESTAMPTZ,
    outcome          TEXT        NOT NULL DEFAULT 'open'
                     CHECK (outcome IN ('open', 'completed', 'failed', 'closed',
                                        'abandoned', 'shutdown', 'lost')),
    node_count       BIGINT      NOT NULL DEFAULT 0,
    graph            BIGINT,
    graph_deleted_at TIMESTAMPTZ,
    semantics        TEXT        NOT NULL DEFAULT 'oxicuda'
                     CHECK (semantics IN ('oxicuda', 'cuda')),
    CHECK ((outcome = 'completed') = (graph IS NOT NULL)),
    CHECK (graph_deleted_at IS NULL OR graph IS NOT NULL)
);
ALTER SEQUENCE session_ids OWNED BY capture_log.session;

-- log.list, newest first, with each filter: every index ends with
-- (opened_at, session), the list order.
CREATE INDEX capture_log_by_time ON capture_log (opened_at, session);
CREATE INDEX capture_log_by_outcome ON capture_log (outcome, opened_at, session);
CREATE INDEX capture_log_by_owner ON capture_log (host, owner_uid, opened_at, session);
CREATE INDEX capture_log_by_host ON capture_log (host, opened_at, session);

-- One row per stored graph.
CREATE TABLE graphs (
    graph        BIGINT      PRIMARY KEY DEFAULT nextval('graph_ids'),
    host         TEXT        NOT NULL,
    session      BIGINT      NOT NULL,
    label        TEXT        NOT NULL DEFAULT '',
    created_at   TIMESTAMPTZ NOT NULL,
    owner_uid    BIGINT      NOT NULL,
    owner_pid    BIGINT      NOT NULL,
    node_count   BIGINT      NOT NULL,
    edge_count   BIGINT      NOT NULL,
    stream_count BIGINT      NOT NULL,
    semantics    TEXT        NOT NULL DEFAULT 'oxicuda'
                 CHECK (semantics IN ('oxicuda', 'cuda')),
    capture      BIGINT
);
ALTER SEQUENCE graph_ids OWNED BY graphs.graph;

CREATE INDEX graphs_by_label ON graphs (label, graph);
CREATE INDEX graphs_by_owner ON graphs (host, owner_uid, graph);
CREATE INDEX graphs_by_host ON graphs (host, graph);

-- The nodes of each graph; ids are 0..node_count-1 in topological order.
-- Attribute columns that do not belong to the node's kind are NULL.
CREATE TABLE nodes (
    graph             BIGINT  NOT NULL,
    id                INTEGER NOT NULL,
    kind              TEXT    NOT NULL
                      CHECK (kind IN ('kernel', 'memcpy', 'memset', 'host_callback',
                                      'mem_alloc', 'mem_free', 'event_record',
                                      'event_wait', 'empty')),
    stream            BIGINT  NOT NULL,
    name              TEXT    NOT NULL,
    num_blocks        BIGINT,
    threads_per_block BIGINT,
    shared_mem        BIGINT,
    dir               TEXT
                      CHECK (dir IN ('host_to_device', 'device_to_host', 'device_to_device',
                                     'peer_to_peer', 'host_to_host', 'default')),
    size_bytes        BIGINT,
    src_device        BIGINT,
    dst_device        BIGINT,
    value             INTEGER,
    grid_y            BIGINT,
    grid_z            BIGINT,
    block_y           BIGINT,
    block_z           BIGINT,
    event             BIGINT,
    name_bytes        BYTEA,
    PRIMARY KEY (graph, id)
);

-- Dependencies src -> dst (src < dst).
CREATE TABLE edges (
    graph BIGINT  NOT NULL,
    src   INTEGER NOT NULL,
    dst   INTEGER NOT NULL,
    PRIMARY KEY (graph, src, dst)
);

-- The packed reachability input, as in SQLite: streams holds node_count
-- little-endian u32 (node i's stream at byte 4 * i), edges edge_count
-- (src, dst) pairs of little-endian u32 ascending by (src, dst).
CREATE TABLE graph_index (
    graph      BIGINT PRIMARY KEY,
    node_count BIGINT NOT NULL,
    edge_count BIGINT NOT NULL,
    streams    BYTEA  NOT NULL,
    edges      BYTEA  NOT NULL,
    CHECK (length(streams) = 4 * node_count),
    CHECK (length(edges) = 8 * edge_count)
);

-- One row per ended capture of a cuda-mode session (docs/cuda-semantics.md §6).
CREATE TABLE captures (
    session          BIGINT      NOT NULL,
    capture          BIGINT      NOT NULL,
    origin           BIGINT      NOT NULL,
    mode             TEXT        NOT NULL CHECK (mode IN ('global', 'thread_local', 'relaxed')),
    thread           BIGINT      NOT NULL,
    outcome          TEXT        NOT NULL CHECK (outcome IN ('completed', 'failed', 'discarded')),
    cuda_error       INTEGER,
    node_count       BIGINT      NOT NULL,
    ended_at         TIMESTAMPTZ NOT NULL,
    graph            BIGINT,
    graph_deleted_at TIMESTAMPTZ,
    inv_method       TEXT,
    inv_stream       BIGINT,
    inv_event        BIGINT,
    inv_thread       BIGINT,
    inv_call         TEXT,
    inv_error        INTEGER,
    CHECK ((outcome = 'completed') = (graph IS NOT NULL)),
    CHECK ((outcome = 'failed') = (cuda_error IS NOT NULL)),
    CHECK ((inv_method IS NULL) = (inv_error IS NULL)),
    PRIMARY KEY (session, capture)
);

-- Graphs being committed in several transactions: invisible until the
-- last one inserts the graphs row.  A daemon starting on `host` deletes
-- the rows of that host's pending graphs (it died mid-way); other hosts'
-- are theirs.
CREATE TABLE pending_graphs (
    graph      BIGINT      PRIMARY KEY,
    host       TEXT        NOT NULL,
    session    BIGINT      NOT NULL,
    started_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX pending_graphs_by_host ON pending_graphs (host);
