-- streamcap PostgreSQL schema, version 5: conditional nodes carry their
-- type, their number of bodies, and their handle's default value and flags
-- (the SQLite schema's version 11 says what each holds).  All four are NULL
-- for every other kind; the rows already there keep NULL.
ALTER TABLE nodes ADD COLUMN cond_type TEXT
    CHECK (cond_type IN ('if', 'while', 'switch'));
ALTER TABLE nodes ADD COLUMN cond_size BIGINT;
ALTER TABLE nodes ADD COLUMN cond_default BIGINT;
ALTER TABLE nodes ADD COLUMN cond_flags BIGINT;
