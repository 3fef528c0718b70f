-- streamcap PostgreSQL schema, version 2: hosts.write_seq, the number of
-- the host's last committed write transaction.  Every write transaction of
-- a daemon sets its host's row to the transaction's own number, so that a
-- daemon whose connection broke after it sent COMMIT can learn, once it is
-- connected again, whether that transaction committed (the row holds its
-- number) or not (an older one).  See docs/reliability.md.
ALTER TABLE hosts ADD COLUMN write_seq BIGINT NOT NULL DEFAULT 0;
