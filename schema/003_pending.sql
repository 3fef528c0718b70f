-- streamcap schema, version 3: graphs committed in several transactions.
-- See schema/README.md.  Applied in one transaction with user_version = 3;
-- every row of version 2 is kept as it was.

-- A graph too large for one short write transaction is stored in chunks
-- (docs/design.md §7): its id is reserved and listed here in the first
-- chunk's transaction, its nodes and edges follow in later ones, and the
-- last one inserts its graphs row and removes it from here.  Until then it
-- has no graphs row, so nothing that starts from graphs sees it; start-up
-- deletes the rows of every graph still listed (its daemon died mid-way).
CREATE TABLE pending_graphs (
    graph      INTEGER PRIMARY KEY,
    session    INTEGER NOT NULL,
    started_at TEXT    NOT NULL
);
