-- streamcap PostgreSQL schema, version 6: every graph's fingerprints (the
-- SQLite schema's version 12 says what they hold).  Rows stored before
-- keep NULL.
ALTER TABLE graphs ADD COLUMN fp_structure TEXT;
ALTER TABLE graphs ADD COLUMN fp_full TEXT;
