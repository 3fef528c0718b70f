/*
 * store_sqlite_fp.c - the fingerprint columns of graphs rows
 * (schema/012_fingerprints.sql): how they are bound, and the job that
 * rewrites them once a graph's bodies are stored.
 */
#include "store_sqlite.h"

void store_bind_fp(sqlite3_stmt *s, int idx, uint64_t v)
{
    char hex[SC_FINGERPRINT_HEX];
    sc_fingerprint_hex(v, hex);
    sqlite3_bind_text(s, idx, hex, 16, SQLITE_TRANSIENT);
}

/* A graph deleted meanwhile matches no row and is skipped. */
int store_sqlite_set_fps(store_writer *w, store_job *j)
{
    sqlite3_stmt *s = w->fp_update;
    for (size_t i = 0; i < j->u.fps.n; i++) {
        sqlite3_bind_int64(s, 1, j->u.fps.ids[i]);
        store_bind_fp(s, 2, j->u.fps.fps[i].structure);
        store_bind_fp(s, 3, j->u.fps.fps[i].full);
        int sqlrc = sqlite3_step(s);
        sqlite3_reset(s);
        sqlite3_clear_bindings(s);
        if (sqlrc != SQLITE_DONE)
            return SC_STORE_EIO;
    }
    return 0;
}
