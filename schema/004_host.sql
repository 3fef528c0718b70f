-- streamcap schema, version 4: the host every row came from.
-- See schema/README.md.  Applied in one transaction with user_version = 4;
-- every row of version 3 is kept.

-- streamcapd --host-name (default: the machine's host name) is written on
-- every session, capture and graph row, so that rows of several daemons
-- sharing one database (the PostgreSQL backend, docs/design.md) tell where
-- they came from, and access is by (host, owner_uid).  Rows older than
-- this version get the host name of the daemon that upgrades the file:
-- the daemon sets them right after this script, in the same transaction
-- (one daemon per SQLite file wrote them all).
ALTER TABLE capture_log ADD COLUMN host TEXT NOT NULL DEFAULT '';
ALTER TABLE graphs ADD COLUMN host TEXT NOT NULL DEFAULT '';
ALTER TABLE captures ADD COLUMN host TEXT NOT NULL DEFAULT '';
