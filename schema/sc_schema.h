/*
 * sc_schema.h - the SQLite schema as numbered migrations.
 *
 * Each schema/NNN_name.sql file becomes one entry, in version order; the
 * store applies those above the database's PRAGMA user_version, each in
 * its own transaction, and then sets user_version to NNN.
 */
#ifndef SC_SCHEMA_H
#define SC_SCHEMA_H

#include <stddef.h>

typedef struct sc_migration {
    int version;      /* NNN of the file name */
    const char *name; /* file name, for messages */
    const char *sql;  /* the file's text */
} sc_migration;

extern const sc_migration sc_migrations[];
extern const size_t sc_migration_count;

/* The PostgreSQL backend's own migrations, schema/pg/NNN_name.sql, applied
 * above the highest version in its schema_migrations table. */
extern const sc_migration sc_pg_migrations[];
extern const size_t sc_pg_migration_count;

#endif
