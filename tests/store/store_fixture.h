/*
 * store_fixture.h - a store on a fresh temporary directory, plus helpers to
 * wait for completions and to inspect the database with a separate
 * connection (as a user of the sqlite3 shell would).
 */
#ifndef STORE_FIXTURE_H
#define STORE_FIXTURE_H

#include <stdarg.h>
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
    char path[128];
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

/* A separate read-write connection to the test database. */
sqlite3 *fx_db(const fx *f);
/* One integer / text value of a query formatted with sqlite3_mprintf rules;
 * q_text's result is freed with sqlite3_free (NULL for SQL NULL). */
int64_t q_int(sqlite3 *db, const char *fmt, ...);
char *q_text(sqlite3 *db, const char *fmt, ...);
/* Run SQL that returns no rows, asserting success. */
void q_exec(sqlite3 *db, const char *sql);

/* A chain of n kernels on one stream with names of name_len bytes. */
sc_graph *chain_graph(uint32_t n, size_t name_len);

/* Monotonic milliseconds. */
int64_t now_ms(void);
void sleep_ms(int ms);

#endif
