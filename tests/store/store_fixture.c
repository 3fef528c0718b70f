/*
 * store_fixture.c - see store_fixture.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef SC_HAVE_POSTGRESQL
#include <libpq-fe.h>
#endif

#include "store_fixture.h"

/* PostgreSQL's type oid of timestamptz (catalog/pg_type.dat). */
#define TIMESTAMPTZ_OID 1184

const char *fx_pg_server(void)
{
    const char *uri = getenv("STREAMCAP_TEST_PG");
    return uri && *uri ? uri : NULL;
}

#ifdef SC_HAVE_POSTGRESQL
static PGconn *pg_connect(const char *uri)
{
    PGconn *c = PQconnectdb(uri);
    if (PQstatus(c) != CONNECTION_OK)
        fail_msg("connect to %s: %s", uri, PQerrorMessage(c));
    return c;
}

/* One statement that may or may not return rows, asserting success. */
static void pg_exec(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
        fail_msg("%s: %s", sql, PQerrorMessage(c));
    PQclear(r);
}

void fx_pg_exec(const char *uri, const char *sql)
{
    PGconn *c = pg_connect(uri);
    pg_exec(c, sql);
    PQfinish(c);
}

int64_t fx_pg_int(const char *uri, const char *sql)
{
    PGconn *c = pg_connect(uri);
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1)
        fail_msg("%s: %s", sql, PQerrorMessage(c));
    int64_t v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    PQfinish(c);
    return v;
}

/* Run one statement on the server's own database (the one
 * STREAMCAP_TEST_PG names): CREATE / DROP DATABASE cannot run inside the
 * database they are about. */
static void pg_admin(const char *sql)
{
    fx_pg_exec(fx_pg_server(), sql);
}

/* The server's URI with the database replaced by f->pg_db. */
static void pg_uri(fx *f)
{
    char *msg = NULL;
    PQconninfoOption *opts = PQconninfoParse(fx_pg_server(), &msg);
    if (!opts)
        fail_msg("STREAMCAP_TEST_PG: %s", msg ? msg : "out of memory");
    int n = snprintf(f->path, sizeof f->path, "postgresql:///%s?", f->pg_db);
    for (PQconninfoOption *o = opts; o->keyword; o++) {
        if (!o->val || strcmp(o->keyword, "dbname") == 0)
            continue;
        n += snprintf(f->path + n, sizeof f->path - (size_t)n, "%s%s=%s",
                      f->path[n - 1] == '?' ? "" : "&", o->keyword, o->val);
        assert_true((size_t)n < sizeof f->path);
    }
    PQconninfoFree(opts);
}

static void pg_create(fx *f)
{
    static unsigned seq;
    snprintf(f->pg_db, sizeof f->pg_db, "sc_store_test_%ld_%u", (long)getpid(), seq++);
    char sql[128];
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", f->pg_db);
    pg_admin(sql);
    pg_uri(f);
}

static void pg_drop(const fx *f)
{
    /* FORCE: a connection a failed test left open must not keep it. */
    char sql[128];
    snprintf(sql, sizeof sql, "DROP DATABASE %s WITH (FORCE)", f->pg_db);
    pg_admin(sql);
}
#else
static void pg_create(fx *f)
{
    (void)f;
    fail_msg("STREAMCAP_TEST_PG is set but this build has no PostgreSQL backend (libpq)");
}

static void pg_drop(const fx *f)
{
    (void)f;
}
#endif

int fx_setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->dir, sizeof f->dir, "/tmp/sc-store-test-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    if (fx_pg_server())
        pg_create(f);
    else
        snprintf(f->path, sizeof f->path, "%s/streamcap.db", f->dir);
    assert_int_equal(uv_loop_init(&f->loop), 0);
    *state = f;
    return 0;
}

bool fx_is_pg(const fx *f)
{
    return f->pg_db[0] != '\0';
}

void fx_sqlite_only(const fx *f, const char *why)
{
    if (fx_is_pg(f)) {
        print_message("SQLite only (%s): skipped on PostgreSQL\n", why);
        skip();
    }
}

static void remove_file(const fx *f, const char *suffix)
{
    char p[sizeof f->path + 16];
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
    if (fx_is_pg(f)) {
        pg_drop(f);
    } else {
        remove_file(f, "");
        remove_file(f, "-wal");
        remove_file(f, "-shm");
        remove_file(f, ".reserve");  /* the store keeps it on purpose */
        remove_file(f, ".shutdown"); /* and this one, allocated for a stop's rows */
    }
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

fx_sql *fx_db(const fx *f)
{
    fx_sql *db = calloc(1, sizeof *db);
    assert_non_null(db);
#ifdef SC_HAVE_POSTGRESQL
    if (fx_is_pg(f)) {
        PGconn *c = pg_connect(f->path);
        /* Times as the SQLite store writes them, see q_text. */
        PQclear(PQexec(c, "SET TimeZone = 'UTC'; SET DateStyle = 'ISO'"));
        db->pg = c;
        return db;
    }
#endif
    assert_int_equal(sqlite3_open_v2(f->path, &db->lite, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    sqlite3_busy_timeout(db->lite, 5000);
    return db;
}

void fx_db_close(fx_sql *db)
{
#ifdef SC_HAVE_POSTGRESQL
    if (db->pg)
        PQfinish(db->pg);
#endif
    if (db->lite)
        sqlite3_close(db->lite);
    free(db);
}

const char *fx_pick(const fx_sql *db, const char *lite, const char *pg)
{
    return db->pg ? pg : lite;
}

static sqlite3_stmt *query(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
    if (rc != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    rc = sqlite3_step(s);
    if (rc != SQLITE_ROW)
        fail_msg("%s: no row (%s)", sqlite3_sql(s), sqlite3_errmsg(db));
    return s;
}

#ifdef SC_HAVE_POSTGRESQL
static PGresult *pg_query(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        fail_msg("%s: %s", sql, PQerrorMessage(c));
    if (PQntuples(r) < 1)
        fail_msg("%s: no row", sql);
    return r;
}

/* "2026-11-29 19:44:21.12+00" (UTC, DateStyle ISO) as the SQLite store's
 * "2026-11-29T19:44:21.120Z". */
static char *iso_time(const char *pg)
{
    size_t len = strlen(pg);
    if (len < 22 || pg[10] != ' ' || (pg[19] != '.' && pg[19] != '+'))
        fail_msg("timestamptz %s: not ISO UTC text", pg);
    char ms[4] = "000";
    for (size_t i = 0; i < 3 && pg[19] == '.' && pg[20 + i] >= '0' && pg[20 + i] <= '9'; i++)
        ms[i] = pg[20 + i];
    char *out = malloc(32);
    assert_non_null(out);
    snprintf(out, 32, "%.10sT%.8s.%sZ", pg, pg + 11, ms);
    return out;
}
#endif

static char *vformat(const char *fmt, va_list ap)
{
    char *sql = sqlite3_vmprintf(fmt, ap);
    assert_non_null(sql);
    return sql;
}

int64_t q_int(fx_sql *db, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *sql = vformat(fmt, ap);
    va_end(ap);
    int64_t v = 0;
#ifdef SC_HAVE_POSTGRESQL
    if (db->pg) {
        PGresult *r = pg_query(db->pg, sql);
        const char *t = PQgetvalue(r, 0, 0);
        v = strcmp(t, "t") == 0 ? 1 : strcmp(t, "f") == 0 ? 0 : strtoll(t, NULL, 10);
        PQclear(r);
        sqlite3_free(sql);
        return v;
    }
#endif
    sqlite3_stmt *s = query(db->lite, sql);
    v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    sqlite3_free(sql);
    return v;
}

char *q_text(fx_sql *db, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *sql = vformat(fmt, ap);
    va_end(ap);
    char *v = NULL;
#ifdef SC_HAVE_POSTGRESQL
    if (db->pg) {
        PGresult *r = pg_query(db->pg, sql);
        if (PQgetisnull(r, 0, 0))
            v = NULL;
        else if (PQftype(r, 0) == TIMESTAMPTZ_OID)
            v = iso_time(PQgetvalue(r, 0, 0));
        else
            assert_non_null(v = strdup(PQgetvalue(r, 0, 0)));
        PQclear(r);
        sqlite3_free(sql);
        return v;
    }
#endif
    sqlite3_stmt *s = query(db->lite, sql);
    const unsigned char *t = sqlite3_column_text(s, 0);
    if (t)
        assert_non_null(v = strdup((const char *)t));
    sqlite3_finalize(s);
    sqlite3_free(sql);
    return v;
}

void q_exec(fx_sql *db, const char *sql)
{
#ifdef SC_HAVE_POSTGRESQL
    if (db->pg) {
        pg_exec(db->pg, sql);
        return;
    }
#endif
    char *err = NULL;
    if (sqlite3_exec(db->lite, sql, NULL, NULL, &err) != SQLITE_OK)
        fail_msg("%s: %s", sql, err ? err : "?");
}

void q_lock_writes(fx_sql *db)
{
    /* EXCLUSIVE conflicts with the ROW EXCLUSIVE every INSERT, UPDATE and
     * DELETE takes, and lets readers through, as BEGIN IMMEDIATE does. */
    q_exec(db, fx_pick(db, "BEGIN IMMEDIATE",
                       "BEGIN; LOCK TABLE capture_log, graphs, nodes, edges, graph_index"
                       " IN EXCLUSIVE MODE"));
}

void q_unlock_writes(fx_sql *db)
{
    q_exec(db, "COMMIT");
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

/* Node by node: the stream, and with `whole` every other field. */
static void assert_same_nodes(const sc_graph *a, const sc_graph *b, bool whole)
{
    assert_int_equal(sc_graph_node_count(a), sc_graph_node_count(b));
    for (uint32_t id = 0; id < sc_graph_node_count(a); id++) {
        sc_node x, y;
        assert_int_equal(sc_graph_node(a, id, &x), 0);
        assert_int_equal(sc_graph_node(b, id, &y), 0);
        assert_int_equal(x.stream, y.stream);
        if (!whole)
            continue;
        assert_int_equal(x.kind, y.kind);
        assert_int_equal(x.name_len, y.name_len);
        assert_memory_equal(x.name, y.name, x.name_len);
        assert_int_equal(x.num_blocks, y.num_blocks);
        assert_int_equal(x.grid_y, y.grid_y);
        assert_int_equal(x.threads_per_block, y.threads_per_block);
        assert_int_equal(x.shared_mem, y.shared_mem);
        assert_int_equal(x.dir, y.dir);
        assert_int_equal(x.src_device, y.src_device);
        assert_int_equal(x.dst_device, y.dst_device);
        assert_int_equal(x.size_bytes, y.size_bytes);
        assert_int_equal(x.value, y.value);
        assert_int_equal(x.event, y.event);
        assert_int_equal(x.cond_type, y.cond_type);
        assert_int_equal(x.cond_size, y.cond_size);
        assert_int_equal(x.cond_default, y.cond_default);
        assert_int_equal(x.cond_flags, y.cond_flags);
        assert_int_equal(x.nparams, y.nparams);
        assert_int_equal(x.args_len, y.args_len);
        if (x.nparams) {
            assert_memory_equal(x.param_sizes, y.param_sizes, 4 * (size_t)x.nparams);
            assert_memory_equal(x.args, y.args, x.args_len);
        }
        assert_int_equal(x.naccesses, y.naccesses);
        for (uint32_t k = 0; k < x.naccesses; k++) {
            assert_true(x.accesses[k].address == y.accesses[k].address);
            assert_true(x.accesses[k].size == y.accesses[k].size);
            assert_int_equal(x.accesses[k].mode, y.accesses[k].mode);
        }
    }
}

/* The same edges, b's in ascending order. */
static void assert_same_edges(const sc_graph *a, const sc_graph *b)
{
    assert_int_equal(sc_graph_edge_count(a), sc_graph_edge_count(b));
    uint32_t ps = 0, pd = 0;
    for (uint64_t i = 0; i < sc_graph_edge_count(a); i++) {
        uint32_t s1, d1, s2, d2;
        assert_int_equal(sc_graph_edge(a, i, &s1, &d1), 0);
        assert_int_equal(sc_graph_edge(b, i, &s2, &d2), 0);
        assert_int_equal(s1, s2);
        assert_int_equal(d1, d2);
        if (i > 0)
            assert_true(s2 > ps || (s2 == ps && d2 > pd));
        ps = s2;
        pd = d2;
    }
}

void fx_assert_same_graph(const sc_graph *a, const sc_graph *b)
{
    assert_same_nodes(a, b, true);
    assert_same_edges(a, b);
    assert_int_equal(sc_graph_stream_count(a), sc_graph_stream_count(b));
}

void fx_assert_same_skeleton(const sc_graph *a, const sc_graph *b)
{
    assert_same_nodes(a, b, false);
    assert_same_edges(a, b);
    assert_int_equal(sc_graph_stream_count(a), sc_graph_stream_count(b));
}
