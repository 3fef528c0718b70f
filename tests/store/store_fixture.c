/*
 * store_fixture.c - see store_fixture.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store_fixture.h"

int fx_setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->dir, sizeof f->dir, "/tmp/sc-store-test-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->path, sizeof f->path, "%s/streamcap.db", f->dir);
    assert_int_equal(uv_loop_init(&f->loop), 0);
    *state = f;
    return 0;
}

static void remove_file(const fx *f, const char *suffix)
{
    char p[160];
    snprintf(p, sizeof p, "%s%s", f->path, suffix);
    unlink(p);
}

int fx_teardown(void **state)
{
    fx *f = *state;
    if (f->st)
        fx_close(f);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&f->loop), 0);
    remove_file(f, "");
    remove_file(f, "-wal");
    remove_file(f, "-shm");
    remove_file(f, ".reserve"); /* the store keeps it on purpose */
    assert_int_equal(rmdir(f->dir), 0);
    free(f);
    return 0;
}

void fx_open(fx *f, int busy_timeout_ms, int64_t max_page_count)
{
    sc_store_config cfg = {.path = f->path,
                           .host = f->host,
                           .sync_full = true,
                           .busy_timeout_ms = busy_timeout_ms,
                           .max_page_count = max_page_count};
    char err[256] = "";
    int rc = sc_store_open(&f->loop, &cfg, &f->st, err, sizeof err);
    if (rc != 0)
        fail_msg("sc_store_open: %d %s", rc, err);
    assert_non_null(f->st);
}

void fx_close(fx *f)
{
    sc_store_close(f->st);
    f->st = NULL;
    uv_run(&f->loop, UV_RUN_DEFAULT);
}

void fx_drain(fx *f)
{
    uv_run(&f->loop, UV_RUN_DEFAULT);
}

void wres_cb(void *arg, const sc_store_result *res)
{
    wres *w = arg;
    w->calls++;
    w->rc = res->rc;
    w->id = res->id;
    snprintf(w->msg, sizeof w->msg, "%s", res->errmsg ? res->errmsg : "");
}

void lres_cb(void *arg, int rc, sc_stored_graph *sg, const char *errmsg)
{
    lres *r = arg;
    r->calls++;
    r->rc = rc;
    r->sg = sg;
    snprintf(r->msg, sizeof r->msg, "%s", errmsg ? errmsg : "");
}

int64_t fx_open_session(fx *f, const char *label, int64_t opened_ms)
{
    wres w = {0};
    assert_int_equal(sc_store_log_open(f->st, 1000, 4242, label, label ? strlen(label) : 0,
                                       opened_ms, wres_cb, &w),
                     0);
    fx_drain(f);
    assert_int_equal(w.calls, 1);
    assert_int_equal(w.rc, SC_STORE_OK);
    assert_true(w.id > 0);
    return w.id;
}

int64_t fx_log_open(fx *f, uint32_t uid, int64_t pid, const char *label, int64_t opened_ms)
{
    wres w = {0};
    assert_int_equal(
        sc_store_log_open(f->st, uid, pid, label, strlen(label), opened_ms, wres_cb, &w), 0);
    fx_drain(f);
    assert_int_equal(w.rc, 0);
    return w.id;
}

void fx_log_end(fx *f, int64_t session, const char *outcome, uint32_t nodes, int64_t ended_ms)
{
    wres w = {0};
    assert_int_equal(sc_store_log_end(f->st, session, outcome, nodes, ended_ms, wres_cb, &w), 0);
    fx_drain(f);
    assert_int_equal(w.rc, 0);
}

void fx_load(fx *f, int64_t graph, lres *r)
{
    memset(r, 0, sizeof *r);
    assert_int_equal(sc_store_load_graph(f->st, graph, lres_cb, r), 0);
    fx_drain(f);
    assert_int_equal(r->calls, 1);
}

sqlite3 *fx_db(const fx *f)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(f->path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    return db;
}

static sqlite3_stmt *query(sqlite3 *db, const char *fmt, va_list ap)
{
    char *sql = sqlite3_vmprintf(fmt, ap);
    assert_non_null(sql);
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
    if (rc != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    sqlite3_free(sql);
    rc = sqlite3_step(s);
    if (rc != SQLITE_ROW)
        fail_msg("%s: no row (%s)", sqlite3_sql(s), sqlite3_errmsg(db));
    return s;
}

int64_t q_int(sqlite3 *db, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sqlite3_stmt *s = query(db, fmt, ap);
    va_end(ap);
    int64_t v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

char *q_text(sqlite3 *db, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sqlite3_stmt *s = query(db, fmt, ap);
    va_end(ap);
    const unsigned char *t = sqlite3_column_text(s, 0);
    char *v = t ? sqlite3_mprintf("%s", t) : NULL;
    sqlite3_finalize(s);
    return v;
}

void q_exec(sqlite3 *db, const char *sql)
{
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
        fail_msg("%s: %s", sql, err ? err : "?");
}

sc_graph *chain_graph(uint32_t n, size_t name_len)
{
    char *name = malloc(name_len + 1);
    assert_non_null(name);
    memset(name, 'k', name_len);
    name[name_len] = '\0';
    sc_graph *g = NULL;
    assert_int_equal(sc_graph_create(&g), 0);
    for (uint32_t i = 0; i < n; i++) {
        sc_node node = {.kind = SC_KIND_KERNEL,
                        .stream = 1,
                        .name = name,
                        .name_len = name_len,
                        .num_blocks = i,
                        .threads_per_block = 128};
        uint32_t id;
        assert_int_equal(sc_graph_add_node(g, &node, &id), 0);
        assert_int_equal(id, i);
        if (i > 0)
            assert_int_equal(sc_graph_add_edge(g, i - 1, i), 0);
    }
    assert_int_equal(sc_graph_seal(g), 0);
    free(name);
    return g;
}

int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}
