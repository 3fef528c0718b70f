-- streamcap PostgreSQL schema, version 4: kernel nodes carry their
-- argument values.  args is each parameter's bytes packed in parameter
-- order (no alignment padding), param_sizes the size of each parameter,
-- which splits args (proto/PROTOCOL.md, "Kernel arguments"); both NULL
-- for a kernel recorded without them and for every other kind.  The rows
-- already there keep NULL.
ALTER TABLE nodes ADD COLUMN args BYTEA;
ALTER TABLE nodes ADD COLUMN param_sizes INTEGER[];
ALTER TABLE nodes ADD CONSTRAINT nodes_args_sized
    CHECK ((args IS NULL) = (param_sizes IS NULL) AND octet_length(args) <= 32764);
