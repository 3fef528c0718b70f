/*
 * store_fixture.h - a store on a fresh database of either backend, plus
 * helpers to wait for completions and to inspect the database with a
 * separate connection (as a user of the sqlite3 shell or psql would).
 *
 * Backend: SQLite (a file in a fresh temporary directory), or, when the
 * environment has STREAMCAP_TEST_PG (a connection URI to a server's
 * database, as tests/pg/cluster.sh sets), PostgreSQL: every test gets a
 * database of its own, created in fx_setup and dropped in fx_teardown.
 */
#ifndef STORE_FIXTURE_H
#define STORE_FIXTURE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>

#include <cmocka.h>
#include <sqlite3.h>
#include <uv.h>

#include "sc_graph.h"
#include "sc_store.h"

typedef struct fx {
    char dir[64];
    char path[512]; /* the --db text: the SQLite file or a PostgreSQL URI */
    char pg_db[64]; /* PostgreSQL: this test's database; "" on SQLite */
    uv_loop_t loop;
    sc_store *st;
    const char *host; /* the --host-name fx_open gives the store; NULL: "" */
} fx;

/* cmocka setup/teardown: *state becomes a fx with no store open. */
int fx_setup(void **state);
int fx_teardown(void **state);

/* Open the store on f->path (asserts success). */
void fx_open(fx *f, int busy_timeout_ms, int64_t max_page_count);
/* Close the store and run the loop until its handle is freed. */
void fx_close(fx *f);
/* Run the loop until no store work is outstanding. */
void fx_drain(fx *f);

/* Result of one write completion. */
typedef struct wres {
    int calls;
    int rc;
    int64_t id;
    char msg[256];
} wres;
void wres_cb(void *arg, const sc_store_result *res);

/* Result of one graph load. */
typedef struct lres {
    int calls;
    int rc;
    sc_stored_graph *sg;
    char msg[256];
} lres;
void lres_cb(void *arg, int rc, sc_stored_graph *sg, const char *errmsg);

/* log_open and wait; returns the session id. */
int64_t fx_open_session(fx *f, const char *label, int64_t opened_ms);
/* log_open as uid and pid, and wait, asserting success; returns the session id. */
int64_t fx_log_open(fx *f, uint32_t uid, int64_t pid, const char *label, int64_t opened_ms);
/* log_end and wait, asserting success. */
void fx_log_end(fx *f, int64_t session, const char *outcome, uint32_t nodes, int64_t ended_ms);
/* load_graph and wait; the caller frees r->sg. */
void fx_load(fx *f, int64_t graph, lres *r);

/* The server STREAMCAP_TEST_PG names (a connection URI), or NULL when it
 * is unset or empty. */
const char *fx_pg_server(void);
/* On a connection of its own to the PostgreSQL database at uri: run one
 * statement, asserting success (fx_pg_exec); the integer of the only row
 * of a query, failing unless there is exactly one (fx_pg_int).  Builds
 * with PostgreSQL only. */
void fx_pg_exec(const char *uri, const char *sql);
int64_t fx_pg_int(const char *uri, const char *sql);

/* True when the fixture runs on PostgreSQL. */
bool fx_is_pg(const fx *f);
/* Skip the calling test (cmocka skip()) on PostgreSQL: it checks something
 * only SQLite has (why says what, for the test log). */
void fx_sqlite_only(const fx *f, const char *why);

/*
 * A separate read-write connection to the test database: `lite` on
 * SQLite, `pg` (a PGconn) on PostgreSQL, the other NULL.  Close it with
 * fx_db_close.
 */
typedef struct fx_sql {
    sqlite3 *lite;
    void *pg;
} fx_sql;
fx_sql *fx_db(const fx *f);
void fx_db_close(fx_sql *db);
/* `lite` on SQLite, `pg` on PostgreSQL: for the few queries the two
 * dialects spell differently. */
const char *fx_pick(const fx_sql *db, const char *lite, const char *pg);
/*
 * One integer / text value of the first row of a query formatted with
 * sqlite3_mprintf rules (%lld, %q, %%), on either backend.  On PostgreSQL
 * a boolean reads as 1 / 0 and a timestamptz as the ISO 8601 UTC text the
 * SQLite store keeps ("2026-11-29T19:44:21.123Z"), so one check reads
 * both.  q_text's result is freed with free() (NULL for SQL NULL).
 */
int64_t q_int(fx_sql *db, const char *fmt, ...);
char *q_text(fx_sql *db, const char *fmt, ...);
/* Run SQL that returns no rows, asserting success. */
void q_exec(fx_sql *db, const char *sql);
/* Hold (and release) a lock on another connection that makes the store's
 * writer wait at its next write: BEGIN IMMEDIATE on SQLite, a transaction
 * holding EXCLUSIVE locks on the store's tables on PostgreSQL. */
void q_lock_writes(fx_sql *db);
void q_unlock_writes(fx_sql *db);

/* Assert that two sealed graphs hold the same nodes (every field), the
 * same edges in ascending order and the same stream count. */
void fx_assert_same_graph(const sc_graph *a, const sc_graph *b);
/* The same for a skeleton load: of the nodes only their streams. */
void fx_assert_same_skeleton(const sc_graph *a, const sc_graph *b);
/* A chain of n kernels on one stream with names of name_len bytes. */
sc_graph *chain_graph(uint32_t n, size_t name_len);

/* Monotonic milliseconds. */
int64_t now_ms(void);
void sleep_ms(int ms);

#endif
