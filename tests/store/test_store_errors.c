/*
 * test_store_errors.c - the store's failure paths: a full database, a
 * write lock held elsewhere, refusals inside a batch, bad arguments.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_fixture.h"

#define T0        1795981461123LL
#define MAX_PAGES 40 /* the empty schema takes about a quarter of this */

static void assert_nothing_stored(fx *f, int64_t session)
{
    fx_sql *db = fx_db(f);
    assert_int_equal(q_int(db, "SELECT count(*) FROM graphs WHERE session = %lld", session), 0);
    char *o = q_text(db, "SELECT outcome FROM capture_log WHERE session = %lld", session);
    assert_string_equal(o, "open");
    free(o);
    fx_db_close(db);
}

static void test_full_database_fails_one_commit(void **state)
{
    fx *f = *state;
    fx_sqlite_only(f, "PRAGMA max_page_count stands in for a full disk");
    fx_open(f, 1000, MAX_PAGES);
    int64_t big_s = fx_open_session(f, "big", T0);
    int64_t small_s = fx_open_session(f, "small", T0);
    sc_graph *big = chain_graph(20000, 40);
    sc_graph *small = chain_graph(3, 4);

    wres w = {0};
    assert_int_equal(sc_store_commit_graph(f->st, big_s, big, 1, 1, "big", 3, T0, wres_cb, &w), 0);
    fx_drain(f);
    assert_int_equal(w.calls, 1);
    assert_int_equal(w.rc, SC_STORE_EIO);
    assert_non_null(strstr(w.msg, "full"));
    assert_nothing_stored(f, big_s);
    fx_sql *db = fx_db(f);
    assert_int_equal(q_int(db, "SELECT count(*) FROM nodes"), 0);
    assert_int_equal(q_int(db, "SELECT count(*) FROM edges"), 0);
    fx_db_close(db);
    int64_t count = -1;
    assert_int_equal(sc_store_graph_count(f->st, &count), 0);
    assert_int_equal(count, 0);

    /* The store is still usable, for the other session and the same one. */
    memset(&w, 0, sizeof w);
    assert_int_equal(
        sc_store_commit_graph(f->st, small_s, small, 1, 1, "small", 5, T0, wres_cb, &w), 0);
    wres again = {0};
    assert_int_equal(
        sc_store_commit_graph(f->st, big_s, small, 1, 1, "retry", 5, T0, wres_cb, &again), 0);
    fx_drain(f);
    assert_int_equal(w.rc, 0);
    assert_int_equal(again.rc, 0);
    assert_true(again.id > w.id);
    assert_int_equal(sc_store_graph_count(f->st, &count), 0);
    assert_int_equal(count, 2);
    lres r;
    fx_load(f, again.id, &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(sc_graph_node_count(r.sg->graph), 3);
    assert_int_equal(r.sg->meta.session, big_s);
    sc_stored_graph_free(r.sg);

    sc_store_stats st;
    assert_int_equal(sc_store_get_stats(f->st, &st), 0);
    assert_int_equal(st.jobs_failed, 1);
    sc_graph_destroy(big);
    sc_graph_destroy(small);
}

/* SQLite running out of memory is the daemon's failure, not the database's:
 * SC_STORE_ENOMEM (-32603 on the wire), never SC_STORE_EIO (1007). */
static void test_out_of_memory_is_not_storage(void **state)
{
    fx *f = *state;
    fx_sqlite_only(f, "sqlite3_hard_heap_limit64 limits SQLite's memory only");
    fx_open(f, 1000, 0);
    int64_t s = fx_open_session(f, "nomem", T0);
    sc_graph *g = chain_graph(20000, 40);
    int64_t was = sqlite3_hard_heap_limit64(-1);
    sqlite3_hard_heap_limit64(sqlite3_memory_used() + 16 * 1024);
    wres w = {0};
    assert_int_equal(sc_store_commit_graph(f->st, s, g, 1, 1, "nomem", 5, T0, wres_cb, &w), 0);
    fx_drain(f);
    sqlite3_hard_heap_limit64(was);
    assert_int_equal(w.calls, 1);
    if (w.rc != SC_STORE_ENOMEM)
        fail_msg("commit under a heap limit: %d (%s), want SC_STORE_ENOMEM", w.rc, w.msg);
    assert_nothing_stored(f, s);

    /* With memory back the same commit stores, and a read under the limit
     * fails the same way. */
    memset(&w, 0, sizeof w);
    assert_int_equal(sc_store_commit_graph(f->st, s, g, 1, 1, "nomem", 5, T0, wres_cb, &w), 0);
    fx_drain(f);
    assert_int_equal(w.rc, 0);
    sqlite3_hard_heap_limit64(sqlite3_memory_used() + 1024);
    lres r = {0};
    fx_load(f, w.id, &r);
    sqlite3_hard_heap_limit64(was);
    if (r.rc != SC_STORE_ENOMEM)
        fail_msg("load under a heap limit: %d (%s), want SC_STORE_ENOMEM", r.rc, r.msg);
    sc_graph_destroy(g);
}

/* Park the writer on a job while the test holds the write lock, so what is
 * queued next forms one batch once the lock is released. */
static fx_sql *park_writer(fx *f, wres *first)
{
    fx_sql *lock = fx_db(f);
    q_lock_writes(lock);
    assert_int_equal(sc_store_log_open(f->st, 7, 7, "first", 5, T0, wres_cb, first), 0);
    sleep_ms(100);
    return lock;
}

static void release(fx_sql *lock)
{
    q_unlock_writes(lock);
    fx_db_close(lock);
}

static void test_full_database_in_a_batch(void **state)
{
    fx *f = *state;
    fx_sqlite_only(f, "PRAGMA max_page_count stands in for a full disk");
    fx_open(f, 5000, MAX_PAGES);
    enum { N = 4 };
    int64_t big_s = fx_open_session(f, "big", T0);
    int64_t small_s[N];
    for (int i = 0; i < N; i++)
        small_s[i] = fx_open_session(f, "small", T0);
    sc_graph *big = chain_graph(20000, 40);
    sc_graph *small = chain_graph(5, 4);
    sc_store_stats before;
    assert_int_equal(sc_store_get_stats(f->st, &before), 0);

    wres first = {0}, bw = {0}, sw[N], ow = {0};
    memset(sw, 0, sizeof sw);
    fx_sql *lock = park_writer(f, &first);
    assert_int_equal(
        sc_store_commit_graph(f->st, small_s[0], small, 1, 1, "s", 1, T0, wres_cb, &sw[0]), 0);
    assert_int_equal(sc_store_commit_graph(f->st, big_s, big, 1, 1, "b", 1, T0, wres_cb, &bw), 0);
    for (int i = 1; i < N; i++)
        assert_int_equal(
            sc_store_commit_graph(f->st, small_s[i], small, 1, 1, "s", 1, T0, wres_cb, &sw[i]), 0);
    assert_int_equal(sc_store_log_open(f->st, 9, 9, "o", 1, T0, wres_cb, &ow), 0);
    release(lock);
    fx_drain(f);

    assert_int_equal(first.rc, 0);
    assert_int_equal(bw.calls, 1);
    assert_int_equal(bw.rc, SC_STORE_EIO);
    assert_non_null(strstr(bw.msg, "full"));
    for (int i = 0; i < N; i++) {
        assert_int_equal(sw[i].calls, 1);
        assert_int_equal(sw[i].rc, 0);
    }
    assert_int_equal(ow.rc, 0);
    sc_store_stats after;
    assert_int_equal(sc_store_get_stats(f->st, &after), 0);
    /* The batch failed as a whole and each of its jobs was re-run alone. */
    assert_true(after.jobs_retried - before.jobs_retried >= N + 2);
    assert_int_equal(after.jobs_failed - before.jobs_failed, 1);

    assert_nothing_stored(f, big_s);
    fx_sql *db = fx_db(f);
    assert_int_equal(q_int(db, "SELECT count(*) FROM graphs"), N);
    assert_int_equal(q_int(db, "SELECT count(*) FROM nodes"), 5 * N);
    assert_int_equal(q_int(db, "SELECT count(*) FROM capture_log WHERE outcome = 'completed'"), N);
    fx_db_close(db);
    int64_t count;
    assert_int_equal(sc_store_graph_count(f->st, &count), 0);
    assert_int_equal(count, N);
    sc_graph_destroy(big);
    sc_graph_destroy(small);
}

/* A refused job (no open session) must not cost its batch a retry. */
static void test_refusal_keeps_batch(void **state)
{
    fx *f = *state;
    fx_open(f, 5000, 0);
    int64_t s = fx_open_session(f, "ok", T0);
    sc_graph *g = chain_graph(10, 4);
    sc_store_stats before;
    assert_int_equal(sc_store_get_stats(f->st, &before), 0);

    wres first = {0}, bad_commit = {0}, bad_end = {0}, good = {0};
    fx_sql *lock = park_writer(f, &first);
    assert_int_equal(sc_store_commit_graph(f->st, 99999, g, 1, 1, "x", 1, T0, wres_cb, &bad_commit),
                     0);
    assert_int_equal(sc_store_log_end(f->st, 88888, "failed", 0, T0, wres_cb, &bad_end), 0);
    assert_int_equal(sc_store_commit_graph(f->st, s, g, 1, 1, "x", 1, T0, wres_cb, &good), 0);
    release(lock);
    fx_drain(f);

    assert_int_equal(bad_commit.rc, SC_STORE_ENOTFOUND);
    assert_int_equal(bad_end.rc, SC_STORE_ENOTFOUND);
    assert_int_equal(good.rc, 0);
    sc_store_stats after;
    assert_int_equal(sc_store_get_stats(f->st, &after), 0);
    assert_int_equal(after.jobs_retried, before.jobs_retried);
    assert_int_equal(after.jobs_failed, before.jobs_failed);
    fx_sql *db = fx_db(f);
    assert_int_equal(q_int(db, "SELECT count(*) FROM graphs"), 1);
    assert_int_equal(q_int(db, "SELECT session FROM graphs"), s);
    fx_db_close(db);
    sc_graph_destroy(g);
}

#define BUSY_MS 150

static void test_write_lock_held_elsewhere(void **state)
{
    fx *f = *state;
    fx_open(f, BUSY_MS, 0);
    int64_t s = fx_open_session(f, "x", T0);
    sc_graph *g = chain_graph(10, 4);

    fx_sql *lock = fx_db(f);
    q_lock_writes(lock);
    wres w = {0};
    int64_t t = now_ms();
    assert_int_equal(sc_store_log_open(f->st, 1, 1, "x", 1, T0, wres_cb, &w), 0);
    fx_drain(f);
    int64_t waited = now_ms() - t;
    assert_int_equal(w.calls, 1);
    assert_int_equal(w.rc, SC_STORE_EIO);
    /* The engine's words: SQLite's "database is locked", PostgreSQL's
     * "canceling statement due to lock timeout". */
    assert_non_null(strstr(w.msg, fx_is_pg(f) ? "lock timeout" : "locked"));
    assert_true(waited >= BUSY_MS - 20);
    assert_true(waited < 20 * BUSY_MS);

    /* A batch that cannot start fails as a whole after one busy wait, not
     * one wait per job. */
    enum { N = 10 };
    wres many[N];
    memset(many, 0, sizeof many);
    t = now_ms();
    for (int i = 0; i < N; i++) {
        if (i == 3)
            assert_int_equal(
                sc_store_commit_graph(f->st, s, g, 1, 1, "g", 1, T0, wres_cb, &many[i]), 0);
        else
            assert_int_equal(sc_store_log_open(f->st, 1, 1, "x", 1, T0, wres_cb, &many[i]), 0);
    }
    fx_drain(f);
    waited = now_ms() - t;
    for (int i = 0; i < N; i++) {
        assert_int_equal(many[i].calls, 1);
        assert_int_equal(many[i].rc, SC_STORE_EIO);
    }
    assert_true(waited < N * BUSY_MS / 2);

    q_unlock_writes(lock);
    fx_db_close(lock);
    assert_nothing_stored(f, s);

    memset(&w, 0, sizeof w);
    wres c = {0};
    assert_int_equal(sc_store_log_open(f->st, 1, 1, "x", 1, T0, wres_cb, &w), 0);
    assert_int_equal(sc_store_commit_graph(f->st, s, g, 1, 1, "g", 1, T0, wres_cb, &c), 0);
    fx_drain(f);
    assert_int_equal(w.rc, 0);
    assert_int_equal(c.rc, 0);
    fx_sql *db = fx_db(f);
    assert_int_equal(q_int(db, "SELECT count(*) FROM capture_log"), 2);
    assert_int_equal(q_int(db, "SELECT count(*) FROM nodes"), 10);
    fx_db_close(db);
    sc_graph_destroy(g);
}

static void test_open_failure(void **state)
{
    fx *f = *state;
    fx_sqlite_only(f, "a database file in a missing directory");
    char path[200];
    snprintf(path, sizeof path, "%s/missing/dir/x.db", f->dir);
    sc_store_config cfg = {.path = path, .busy_timeout_ms = 100};
    char err[256] = "";
    sc_store *st = NULL;
    assert_int_equal(sc_store_open(&f->loop, &cfg, &st, err, sizeof err), SC_STORE_EIO);
    assert_null(st);
    /* The system's reason; the caller names the path (sc_store.h). */
    assert_non_null(strstr(err, "No such file or directory"));
    assert_int_equal(sc_store_open(&f->loop, NULL, &st, err, sizeof err), SC_STORE_EINVAL);
}

/* A second store of this process on the file, by another name, is
 * refused naming this pid (found before any descriptor of the file is
 * opened, whose close would drop the first store's SQLite locks); the
 * first store goes on writing. */
static void test_second_open_by_link_refused(void **state)
{
    fx *f = *state;
    fx_sqlite_only(f, "the lock on the database file");
    fx_open(f, 100, 0);
    char hard[600], want[64], err[256] = "";
    snprintf(hard, sizeof hard, "%s.link", f->path);
    assert_int_equal(link(f->path, hard), 0);
    sc_store_config cfg = {.path = hard, .busy_timeout_ms = 100};
    sc_store *st = NULL;
    assert_int_equal(sc_store_open(&f->loop, &cfg, &st, err, sizeof err), SC_STORE_EIO);
    assert_null(st);
    snprintf(want, sizeof want, "in use by streamcapd pid %ld", (long)getpid());
    if (!strstr(err, want))
        fail_msg("[%s] lacks [%s]", err, want);
    assert_true(fx_open_session(f, "after", T0) > 0);
    unlink(hard);
}

static void test_bad_arguments(void **state)
{
    fx *f = *state;
    fx_open(f, 100, 0);
    wres w = {0};
    lres r = {0};
    assert_int_equal(sc_store_log_open(NULL, 1, 1, "x", 1, T0, wres_cb, &w), SC_STORE_EINVAL);
    assert_int_equal(sc_store_commit_graph(f->st, 1, NULL, 1, 1, "x", 1, T0, wres_cb, &w),
                     SC_STORE_EINVAL);
    assert_int_equal(sc_store_load_graph(f->st, 1, NULL, &r), SC_STORE_EINVAL);
    assert_int_equal(sc_store_graph_count(f->st, NULL), SC_STORE_EINVAL);
    fx_drain(f);
    assert_int_equal(w.calls, 0);
    assert_string_equal(sc_store_path(f->st), f->path);
    sc_store_close(NULL);
}

/*
 * Final log rows refused during a stop are kept by the store and recorded
 * at close in "<db>.shutdown"; the next open ends them (only rows still
 * open) before it marks the rest lost, and zeros them, keeping the file's
 * room.  A line cut short (a crash while writing) is skipped.
 */

/* Where the rows of the file end: at its first zero byte. */
static long rows_end(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return -1;
    long n = 0;
    int ch;
    while ((ch = fgetc(fp)) != EOF && ch != '\0')
        n++;
    fclose(fp);
    return n;
}

static void test_deferred_log_ends_applied_at_open(void **state)
{
    fx *f = *state;
    fx_sqlite_only(f, "the rows kept for the next start go to a file beside the SQLite database");
    fx_open(f, 0, 0);
    int64_t kept = fx_open_session(f, "kept", T0);
    int64_t torn = fx_open_session(f, "torn", T0);
    int64_t ended = fx_open_session(f, "ended", T0);
    fx_log_end(f, ended, "closed", 1, T0 + 1);
    assert_int_equal(sc_store_defer_log_end(f->st, kept, "shutdown", 7, T0 + 5), 0);
    assert_int_equal(sc_store_defer_log_end(f->st, ended, "shutdown", 9, T0 + 5), 0);
    assert_int_equal(sc_store_defer_log_end(f->st, kept, "lost", 0, T0), SC_STORE_EINVAL);
    size_t saved = 0;
    char err[256];
    assert_int_equal(sc_store_close_report(f->st, &saved, err, sizeof err), 0);
    f->st = NULL;
    fx_drain(f);
    assert_int_equal(saved, 2);

    char side[sizeof f->path + 16];
    snprintf(side, sizeof side, "%s.shutdown", f->path);
    long end = rows_end(side);
    assert_true(end > 0);
    FILE *fp = fopen(side, "r+b");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, end, SEEK_SET), 0);
    fprintf(fp, "%lld shutdown 3", (long long)torn);
    fclose(fp);

    fx_open(f, 0, 0);
    fx_sql *db = fx_db(f);
    char *o = q_text(db, "SELECT outcome FROM capture_log WHERE session = %lld", kept);
    assert_string_equal(o, "shutdown");
    free(o);
    assert_int_equal(q_int(db, "SELECT node_count FROM capture_log WHERE session = %lld", kept), 7);
    assert_int_equal(
        q_int(db, "SELECT ended_at IS NOT NULL FROM capture_log WHERE session = %lld", kept), 1);
    o = q_text(db, "SELECT outcome FROM capture_log WHERE session = %lld", torn);
    assert_string_equal(o, "lost");
    free(o);
    o = q_text(db, "SELECT outcome FROM capture_log WHERE session = %lld", ended);
    assert_string_equal(o, "closed");
    free(o);
    fx_db_close(db);
    /* Applied: no rows left, the room kept for the next stop. */
    assert_int_equal(rows_end(side), 0);
    fx_close(f);
}

/* Size and allocated bytes of a file; asserts that it exists. */
static void file_room(const char *path, off_t *size, off_t *allocated)
{
    struct stat st;
    if (stat(path, &st) != 0)
        fail_msg("no %s: %s", path, strerror(errno));
    *size = st.st_size;
    *allocated = (off_t)st.st_blocks * 512;
}

/*
 * "<db>.shutdown" holds allocated room, not a sparse promise, for the
 * final row (64 bytes) of every open log row plus a 4096-row margin, grown
 * as sessions open, so that a stop on a full disk can still write there.
 */
static void test_stop_room_allocated_ahead(void **state)
{
    fx *f = *state;
    fx_sqlite_only(f, "the room for a stop's rows is a file beside the SQLite database");
    fx_open(f, 0, 0);
    char side[sizeof f->path + 16];
    snprintf(side, sizeof side, "%s.shutdown", f->path);
    off_t size, allocated;
    file_room(side, &size, &allocated);
    assert_true(size >= 4096 * 64);
    assert_true(allocated >= size);

    enum { N = 5000 };
    wres *w = calloc(N, sizeof *w);
    assert_non_null(w);
    for (int i = 0; i < N; i++)
        assert_int_equal(sc_store_log_open(f->st, 1, 1, "r", 1, T0, wres_cb, &w[i]), 0);
    fx_drain(f);
    for (int i = 0; i < N; i++)
        assert_int_equal(w[i].rc, 0);
    free(w);
    file_room(side, &size, &allocated);
    if (size < (off_t)N * 64 || allocated < size)
        fail_msg("%d open rows, but %s has %lld bytes (%lld allocated)", N, side, (long long)size,
                 (long long)allocated);
    fx_close(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_full_database_fails_one_commit, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_full_database_in_a_batch, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_refusal_keeps_batch, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_write_lock_held_elsewhere, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_out_of_memory_is_not_storage, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_open_failure, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_second_open_by_link_refused, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_bad_arguments, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_deferred_log_ends_applied_at_open, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_stop_room_allocated_ahead, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
