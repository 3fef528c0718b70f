/*
 * rel_fullfs DIR: a full filesystem under the database.  DIR must be an
 * empty directory on a small filesystem of its own (tests/soak/fullfs.sh
 * mounts a 3 MiB tmpfs).  The daemon keeps its database there; captures
 * are ended until the filesystem is full.  Then: the failing end is 1007
 * (kind storage), nothing partial is listed, reads keep working; once room
 * is made (a ballast file removed) ends succeed again; and after a restart
 * every acknowledged graph is whole.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "rel_util.h"

#define BALLAST_BYTES (512u << 10)
#define KERNELS       1500
#define MAX_GRAPHS    500
/* A graph of about 2 MB of pages: twice the reserve. */
#define BIG_KERNELS 20000

typedef struct acked {
    int64_t graph, nodes, edges;
} acked;

static void write_ballast(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        fail_msg("create %s: %s", path, strerror(errno));
    char block[4096];
    memset(block, 0x5a, sizeof(block));
    for (size_t off = 0; off < BALLAST_BYTES; off += sizeof(block))
        if (write(fd, block, sizeof(block)) != (ssize_t)sizeof(block))
            fail_msg("write %s: %s (the filesystem is too small for the ballast)", path,
                     strerror(errno));
    fsync(fd);
    close(fd);
}

/* Record `kernels` kernels on stream 0 of session `s` and end it: the end's reply. */
static cJSON *fill_and_end_n(sc_it_conn *c, long long s, int i, int kernels)
{
    char **lines = calloc((size_t)kernels, sizeof(char *));
    cJSON **replies = calloc((size_t)kernels, sizeof(cJSON *));
    assert_non_null(lines);
    assert_non_null(replies);
    for (int k = 0; k < kernels; k++)
        if (asprintf(&lines[k],
                     "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"capture.record_kernel\","
                     "\"params\":{\"session\":%lld,\"stream\":0,\"function_name\":"
                     "\"fill_%d_%d\",\"num_blocks\":1,\"threads_per_block\":32}}",
                     k, s, i, k) < 0)
            fail_msg("out of memory");
    assert_int_equal(sc_rel_pipeline(c, lines, (size_t)kernels, replies), 0);
    for (int k = 0; k < kernels; k++) {
        sc_it_ok(c, replies[k]);
        cJSON_Delete(replies[k]);
        free(lines[k]);
    }
    free(lines);
    free(replies);
    return sc_it_call(c, "capture.end", "{\"session\":%lld,\"stream\":0}", s);
}

static cJSON *fill_and_end(sc_it_conn *c, long long s, int i)
{
    return fill_and_end_n(c, s, i, KERNELS);
}

/* A session capturing on stream 0, or 0 when session.open found the disk full. */
static long long open_capturing(sc_it_conn *c)
{
    cJSON *reply = sc_it_call(c, "session.open", "{\"label\":\"fill\"}");
    if (!cJSON_GetObjectItemCaseSensitive(reply, "result")) {
        sc_it_err(c, reply, 1007, "storage");
        cJSON_Delete(reply);
        return 0;
    }
    long long s = (long long)sc_it_int(sc_it_ok(c, reply), "session");
    cJSON_Delete(reply);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":0}", s);
    return s;
}

static void expect_all_whole(sc_it_conn *c, const acked *g, int n)
{
    for (int i = 0; i < n; i++) {
        cJSON *res = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", (long long)g[i].graph);
        if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(res, "nodes")) != g[i].nodes ||
            cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(res, "edges")) != g[i].edges)
            fail_msg("acknowledged graph %lld is not whole", (long long)g[i].graph);
        cJSON_Delete(res);
    }
    assert_int_equal(sc_rel_must_count_graphs(c), n);
}

/* A case's files in DIR (the fixture's argument), and its daemon started
 * with its database there. */
typedef struct fullfs {
    char db[512], filler[512], reserve[600];
    const char *args[3]; /* --db db: the same on every restart */
    sc_it_daemon *d;
    sc_it_conn *c;
} fullfs;

static void fullfs_paths(void **state, fullfs *f)
{
    const char *dir = ((sc_rel_fixture *)*state)->arg;
    memset(f, 0, sizeof *f);
    snprintf(f->db, sizeof f->db, "%s/streamcap.db", dir);
    snprintf(f->filler, sizeof f->filler, "%s/filler", dir);
    snprintf(f->reserve, sizeof f->reserve, "%s.reserve", f->db);
    f->args[0] = "--db";
    f->args[1] = f->db;
}

/* The daemon (owned by the fixture) and a connection to it. */
static void fullfs_start(void **state, fullfs *f)
{
    f->d = sc_rel_must_start(state, f->args);
    f->c = sc_it_must_connect(f->d);
}

/* Close the connection and stop the daemon cleanly (it stays the
 * fixture's, for a restart). */
static void fullfs_stop(fullfs *f)
{
    sc_it_conn_close(f->c);
    f->c = NULL;
    sc_it_must_stop(f->d);
}

static void fullfs_setup(void **state, fullfs *f)
{
    fullfs_paths(state, f);
    fullfs_start(state, f);
}

static void test_full_filesystem(void **state)
{
    fullfs f;
    fullfs_paths(state, &f);
    char ballast[512];
    snprintf(ballast, sizeof(ballast), "%s/ballast", (const char *)((sc_rel_fixture *)*state)->arg);
    write_ballast(ballast);
    fullfs_start(state, &f);

    /* Opened while there is room: its end comes once the disk is full. */
    long long late = open_capturing(f.c);
    assert_true(late > 0);

    acked g[MAX_GRAPHS];
    int n = 0, i = 0;
    cJSON *reply = NULL;
    for (;; i++) {
        if (n == MAX_GRAPHS)
            fail_msg("%d graphs stored and the filesystem is still not full", n);
        long long s = open_capturing(f.c);
        if (!s)
            break;
        reply = fill_and_end(f.c, s, i);
        if (!cJSON_GetObjectItemCaseSensitive(reply, "result")) {
            sc_it_err(f.c, reply, 1007, "storage");
            cJSON_Delete(reply);
            break;
        }
        const cJSON *res = sc_it_ok(f.c, reply);
        g[n++] = (acked){sc_it_int(res, "graph"), sc_it_int(res, "node_count"),
                         sc_it_int(res, "edge_count")};
        cJSON_Delete(reply);
    }
    reply = fill_and_end(f.c, late, -1);
    sc_it_err(f.c, reply, 1007, "storage");
    cJSON_Delete(reply);
    print_message("full filesystem: %d graphs of %d kernels stored before 1007\n", n, KERNELS);
    assert_true(n > 0);
    assert_true(sc_it_daemon_running(f.d));
    expect_all_whole(f.c, g, n);
    char why[1024];
    if (sc_rel_check_db(f.db, NULL, why, sizeof(why)) != 0)
        fail_msg("database on the full filesystem: %s", why);

    /* Room made: ends store again. */
    assert_int_equal(unlink(ballast), 0);
    long long s = open_capturing(f.c);
    if (!s)
        fail_msg("session.open still fails after the ballast was removed");
    reply = fill_and_end(f.c, s, ++i);
    const cJSON *res = sc_it_ok(f.c, reply);
    g[n++] = (acked){sc_it_int(res, "graph"), sc_it_int(res, "node_count"),
                     sc_it_int(res, "edge_count")};
    cJSON_Delete(reply);
    expect_all_whole(f.c, g, n);
    fullfs_stop(&f);

    sc_it_must_restart(f.d, f.args);
    f.c = sc_it_must_connect(f.d);
    expect_all_whole(f.c, g, n);
    /* The end that failed on the full disk is logged as failed, not lost. */
    sc_it_must_see_outcome(f.db, late, "failed", 2000);
    fullfs_stop(&f);
    if (sc_rel_check_db(f.db, NULL, why, sizeof(why)) != 0)
        fail_msg("database after the restart: %s", why);
}

/*
 * rel_fullfs DIR delete: on a full filesystem (DIR on a 4 MiB tmpfs, topped
 * up with a filler file after the daemon has made its reserve), a store
 * fails with 1007 but graph.delete succeeds, and a store after it does too.
 */
static void fill_up(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        fail_msg("create %s: %s", path, strerror(errno));
    char block[4096];
    memset(block, 0x33, sizeof(block));
    size_t chunk = sizeof(block);
    /* Down to single bytes, so not even a small append finds room. */
    while (chunk > 0) {
        if (write(fd, block, chunk) != (ssize_t)chunk)
            chunk /= 2;
    }
    close(fd);
}

static void test_delete_on_full_filesystem(void **state)
{
    fullfs f;
    fullfs_setup(state, &f);
    acked g[4];
    for (int i = 0; i < 4; i++) {
        long long s = open_capturing(f.c);
        assert_true(s > 0);
        cJSON *reply = fill_and_end(f.c, s, i);
        const cJSON *res = sc_it_ok(f.c, reply);
        g[i] = (acked){sc_it_int(res, "graph"), sc_it_int(res, "node_count"),
                       sc_it_int(res, "edge_count")};
        cJSON_Delete(reply);
    }
    if (access(f.reserve, F_OK) != 0)
        fail_msg("no reserve file %s next to the database", f.reserve);
    long long late = open_capturing(f.c);
    assert_true(late > 0);
    fill_up(f.filler);

    cJSON *reply = fill_and_end(f.c, late, 99);
    sc_it_err(f.c, reply, 1007, "storage");
    cJSON_Delete(reply);
    /* Deleting is how space comes back: it must work on the full disk. */
    sc_it_must_ok(f.c, "graph.delete", "{\"graph\":%lld}", (long long)g[0].graph);
    sc_it_must_error(f.c, 1001, NULL, "graph.get", "{\"graph\":%lld}", (long long)g[0].graph);
    /* And what it freed is used again: a store succeeds. */
    long long s = open_capturing(f.c);
    if (!s)
        fail_msg("session.open fails after a delete on the full filesystem");
    reply = fill_and_end(f.c, s, 100);
    const cJSON *res = sc_it_ok(f.c, reply);
    g[0] = (acked){sc_it_int(res, "graph"), sc_it_int(res, "node_count"),
                   sc_it_int(res, "edge_count")};
    cJSON_Delete(reply);
    expect_all_whole(f.c, g, 4);
    fullfs_stop(&f);
    unlink(f.filler);
}

/*
 * rel_fullfs DIR stop: a session open at SIGTERM on a full filesystem (DIR
 * on a 4 MiB tmpfs, filled after the daemon made its reserve).  The stop's
 * `shutdown` row is written on the reserve's room, so the row reads
 * `shutdown`, never `lost`, before and after a restart.
 */
static void test_stop_on_full_filesystem(void **state)
{
    fullfs f;
    fullfs_setup(state, &f);
    if (access(f.reserve, F_OK) != 0)
        fail_msg("no reserve file %s next to the database", f.reserve);
    long long s = open_capturing(f.c);
    assert_true(s > 0);
    fill_up(f.filler);
    /* The disk refuses writes now: a new session's row does not fit. */
    if (open_capturing(f.c) != 0)
        fail_msg("session.open succeeded on the full filesystem");
    fullfs_stop(&f);
    sc_it_must_see_outcome(f.db, s, "shutdown", 0);

    assert_int_equal(unlink(f.filler), 0);
    sc_it_must_restart(f.d, f.args);
    sc_it_must_see_outcome(f.db, s, "shutdown", 0);
    sc_it_must_stop(f.d);
}

/* ---- the cases below run each on an 8 MiB tmpfs of their own ---- */

/* Fill the filesystem with `path` until at most `left` bytes stay free. */
static void fill_leaving(const char *path, uint64_t left)
{
    struct statvfs vfs;
    char dir[512];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    if (statvfs(dir, &vfs) != 0)
        fail_msg("statvfs %s: %s", dir, strerror(errno));
    uint64_t avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
    if (avail <= left)
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        fail_msg("create %s: %s", path, strerror(errno));
    if (posix_fallocate(fd, 0, (off_t)(avail - left)) != 0)
        fail_msg("allocate %s: %s", path, strerror(errno));
    close(fd);
}

/* Whether the daemon's log (stderr) holds `text`. */
static bool logged(const sc_it_daemon *d, const char *text)
{
    char *log = sc_it_read_file(sc_it_daemon_stderr_path(d));
    bool seen = log && strstr(log, text) != NULL;
    free(log);
    return seen;
}

/* The database's free pages, read through a read-only connection. */
static int64_t freelist_pages(const char *db)
{
    sqlite3 *h = NULL;
    sqlite3_stmt *s = NULL;
    int64_t n = -1;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, "PRAGMA freelist_count", -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
        n = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(h);
    if (n < 0)
        fail_msg("PRAGMA freelist_count on %s failed", db);
    return n;
}

/* Store one graph through a fresh session: its id, or 0 on 1007. */
static long long store_one(sc_it_conn *c, int i, acked *out)
{
    long long s = open_capturing(c);
    if (!s)
        return 0;
    cJSON *reply = fill_and_end(c, s, i);
    if (!cJSON_GetObjectItemCaseSensitive(reply, "result")) {
        sc_it_err(c, reply, 1007, "storage");
        cJSON_Delete(reply);
        return 0;
    }
    const cJSON *res = sc_it_ok(c, reply);
    *out = (acked){sc_it_int(res, "graph"), sc_it_int(res, "node_count"),
                   sc_it_int(res, "edge_count")};
    cJSON_Delete(reply);
    return out->graph;
}

/* Store n graphs (ids from 0) while the disk has room, into g. */
static void store_n(sc_it_conn *c, acked *g, int n)
{
    for (int i = 0; i < n; i++)
        if (!store_one(c, i, &g[i]))
            fail_msg("store %d failed with room on the disk", i);
}

/*
 * rel_fullfs DIR closed: a stop on a full disk that has no reserve (under
 * 1.25 MiB free at start), with two sessions open and one that its client
 * closed while the disk refused its row (the close answered 1007).  The
 * rows go into the room allocated ahead in "<db>.shutdown"; after a
 * restart with space, the closed one reads `closed`, the open ones
 * `shutdown`: none is `lost`.
 */
static void test_stop_keeps_closed_and_open_rows(void **state)
{
    fullfs f;
    fullfs_paths(state, &f);
    char filler2[520];
    snprintf(filler2, sizeof(filler2), "%s2", f.filler);
    fill_leaving(f.filler, 1024u << 10);
    fullfs_start(state, &f);
    long long open1 = open_capturing(f.c), open2 = open_capturing(f.c),
              closed = open_capturing(f.c);
    assert_true(open1 > 0 && open2 > 0 && closed > 0);
    fill_up(filler2);
    /* The disk refuses the row: the close says so, and the session is gone. */
    cJSON *reply = sc_it_call(f.c, "session.close", "{\"session\":%lld}", closed);
    sc_it_err(f.c, reply, 1007, "storage");
    cJSON_Delete(reply);
    sc_it_must_error(f.c, 1001, NULL, "session.close", "{\"session\":%lld}", closed);
    fullfs_stop(&f);
    /* The database refused all three rows: the stop kept them in the room
     * allocated for them. */
    if (!logged(f.d, "outcome closed kept for the next start") ||
        !logged(f.d, "outcome shutdown kept for the next start"))
        fail_msg("the stop did not keep its refused rows in the .shutdown file");
    sc_it_must_see_outcome(f.db, closed, "open", 0);

    assert_int_equal(unlink(filler2), 0);
    assert_int_equal(unlink(f.filler), 0);
    sc_it_must_restart(f.d, f.args);
    sc_it_must_see_outcome(f.db, closed, "closed", 0);
    sc_it_must_see_outcome(f.db, open1, "shutdown", 0);
    sc_it_must_see_outcome(f.db, open2, "shutdown", 0);
    sc_it_must_stop(f.d);
}

/*
 * rel_fullfs DIR noreserve: the daemon starts with about 1 MiB free, so
 * it cannot make its 1 MiB reserve and says so in its log.  Once the disk
 * is full to the last byte a store answers 1007, yet graph.delete
 * succeeds (on the room allocated for the stop's rows when it needs room)
 * and the graph's pages are free for later stores; once space is back the
 * reserve is made again.
 */
static void test_delete_without_reserve(void **state)
{
    fullfs f;
    fullfs_paths(state, &f);
    char filler2[520], stop_file[600];
    snprintf(filler2, sizeof(filler2), "%s2", f.filler);
    snprintf(stop_file, sizeof(stop_file), "%s.shutdown", f.db);
    fill_leaving(f.filler, 1200u << 10);
    fullfs_start(state, &f);
    if (access(f.reserve, F_OK) == 0)
        fail_msg("%s was made with under 1.25 MiB free", f.reserve);
    if (!logged(f.d, "cannot keep 1024 KiB free for deletes"))
        fail_msg("no warning that the reserve could not be made");
    /* Stored while there is room, so that the full disk below leaves the
     * log no unused tail for the delete to write into. */
    acked g[2];
    int n = 2;
    store_n(f.c, g, n);
    fill_up(filler2);
    acked extra;
    if (store_one(f.c, 99, &extra))
        fail_msg("a store succeeded on the full filesystem");
    int64_t free_before = freelist_pages(f.db);
    struct stat room;
    assert_int_equal(stat(stop_file, &room), 0);
    off_t room_before = room.st_size;
    sc_it_must_ok(f.c, "graph.delete", "{\"graph\":%lld}", (long long)g[0].graph);
    assert_int_equal(stat(stop_file, &room), 0);
    print_message("the delete took %lld KiB of the .shutdown file's margin\n",
                  (long long)(room_before - room.st_size) / 1024);
    /* No reserve, no free byte, no unused log tail: the margin it was. */
    if (room.st_size >= room_before)
        fail_msg("the delete did not take the margin of %s", stop_file);
    sc_it_must_error(f.c, 1001, NULL, "graph.get", "{\"graph\":%lld}", (long long)g[0].graph);
    /* The graph's pages are free for the next stores. */
    int64_t free_after = freelist_pages(f.db);
    print_message("the delete on the full disk freed %lld pages\n",
                  (long long)(free_after - free_before));
    if (free_after <= free_before)
        fail_msg("the delete freed no page (%lld free before, %lld after)", (long long)free_before,
                 (long long)free_after);
    expect_all_whole(f.c, g + 1, n - 1);

    /* Space back: the reserve is made again within seconds, no request needed. */
    assert_int_equal(unlink(filler2), 0);
    assert_int_equal(unlink(f.filler), 0);
    for (int i = 0; i < 100 && access(f.reserve, F_OK) != 0; i++)
        usleep(100 * 1000);
    if (access(f.reserve, F_OK) != 0)
        fail_msg("no %s once the filesystem has room again", f.reserve);
    fullfs_stop(&f);
}

/*
 * rel_fullfs DIR crash: kill -9 with two sessions open on a full disk,
 * then a restart on the disk still full.  The daemon starts, serves reads
 * and a delete while a new session.open answers 1007, and once space is
 * back the crashed sessions read `lost` within seconds, without a request
 * (their rows were left open until the database took writes again).
 */
static void test_restart_after_crash_on_full_disk(void **state)
{
    fullfs f;
    fullfs_setup(state, &f);
    acked g[2];
    store_n(f.c, g, 2);
    long long a = open_capturing(f.c), b = open_capturing(f.c);
    assert_true(a > 0 && b > 0);
    fill_up(f.filler);
    sc_it_conn_close(f.c);
    assert_int_equal(sc_it_daemon_kill(f.d), 0);

    sc_it_must_restart(f.d, f.args);
    f.c = sc_it_must_connect(f.d);
    expect_all_whole(f.c, g, 2);
    if (open_capturing(f.c) != 0)
        fail_msg("session.open succeeded on the full filesystem");
    sc_it_must_ok(f.c, "graph.delete", "{\"graph\":%lld}", (long long)g[1].graph);
    sc_it_must_error(f.c, 1001, NULL, "graph.get", "{\"graph\":%lld}", (long long)g[1].graph);

    /* A session of this run, opened on the room the delete made (most
     * likely before the recovery's next attempt): never taken for one of
     * the dead run's. */
    cJSON *res = sc_it_must_result(f.c, "session.open", "{\"label\":\"early\"}");
    long long live = (long long)sc_it_int(res, "session");
    cJSON_Delete(res);

    assert_int_equal(unlink(f.filler), 0);
    /* Recorded within seconds, no request needed. */
    sc_it_must_see_outcome(f.db, a, "lost", 10000);
    sc_it_must_see_outcome(f.db, b, "lost", 0);
    sc_it_must_see_outcome(f.db, live, "open", 0);
    sc_it_must_ok(f.c, "session.close", "{\"session\":%lld}", live);
    sc_it_must_see_outcome(f.db, live, "closed", 0);
    fullfs_stop(&f);
    sc_it_must_restart(f.d, f.args);
    f.c = sc_it_must_connect(f.d);
    expect_all_whole(f.c, g, 1);
    fullfs_stop(&f);
}

/*
 * rel_fullfs DIR bigdelete: a graph larger than the reserve (about 2 MB of
 * pages), deleted on a disk full to the last byte.  A delete writes only
 * the pages that point at the freed ones, not the freed pages themselves
 * (secure_delete FAST), so the 1 MiB reserve suffices however big the
 * graph; the other graph stays whole.
 */
static void test_delete_graph_larger_than_reserve(void **state)
{
    fullfs f;
    fullfs_setup(state, &f);
    long long s = open_capturing(f.c);
    assert_true(s > 0);
    cJSON *reply = fill_and_end_n(f.c, s, 0, BIG_KERNELS);
    long long big = (long long)sc_it_int(sc_it_ok(f.c, reply), "graph");
    cJSON_Delete(reply);
    acked small;
    if (!store_one(f.c, 1, &small))
        fail_msg("a small store failed with room on the disk");
    long long late = open_capturing(f.c);
    assert_true(late > 0);
    fill_up(f.filler);
    reply = fill_and_end(f.c, late, 2);
    sc_it_err(f.c, reply, 1007, "storage");
    cJSON_Delete(reply);
    char wal[600];
    snprintf(wal, sizeof(wal), "%s-wal", f.db);
    struct stat before, after;
    assert_int_equal(stat(wal, &before), 0);
    sc_it_must_ok(f.c, "graph.delete", "{\"graph\":%lld}", big);
    assert_int_equal(stat(wal, &after), 0);
    print_message("deleting a graph of %d nodes on the full disk grew the log by %lld KiB\n",
                  BIG_KERNELS, (long long)(after.st_size - before.st_size) / 1024);
    sc_it_must_error(f.c, 1001, NULL, "graph.get", "{\"graph\":%lld}", big);
    expect_all_whole(f.c, &small, 1);
    fullfs_stop(&f);
    unlink(f.filler);
}

/*
 * rel_fullfs DIR cleanstop: a clean stop, then a start on the disk filled
 * to the last byte meanwhile.  A stop leaves no "-shm" file, which SQLite
 * must make even to read; the start gives up the space kept next to the
 * database for it (logged), then serves reads and a delete.
 */
static void test_start_on_full_disk_after_clean_stop(void **state)
{
    fullfs f;
    fullfs_setup(state, &f);
    acked g[2];
    store_n(f.c, g, 2);
    long long s = open_capturing(f.c);
    assert_true(s > 0);
    fullfs_stop(&f);
    fill_up(f.filler);

    sc_it_must_restart(f.d, f.args);
    if (!logged(f.d, "the space kept next to it was given up so that it opens"))
        fail_msg("no warning that the start took the space kept for a full disk");
    f.c = sc_it_must_connect(f.d);
    expect_all_whole(f.c, g, 2);
    sc_it_must_ok(f.c, "graph.delete", "{\"graph\":%lld}", (long long)g[0].graph);
    sc_it_must_error(f.c, 1001, NULL, "graph.get", "{\"graph\":%lld}", (long long)g[0].graph);
    expect_all_whole(f.c, g + 1, 1);
    fullfs_stop(&f);
    sc_it_must_see_outcome(f.db, s, "shutdown", 0);
    unlink(f.filler);
}

typedef struct fullfs_case {
    const char *mode; /* argv[2]; NULL: none */
    CMUnitTestFunction fn;
    const char *name;
} fullfs_case;

int main(int argc, char **argv)
{
    static const fullfs_case cases[] = {
        {NULL, test_full_filesystem, "test_full_filesystem"},
        {"delete", test_delete_on_full_filesystem, "test_delete_on_full_filesystem"},
        {"stop", test_stop_on_full_filesystem, "test_stop_on_full_filesystem"},
        {"closed", test_stop_keeps_closed_and_open_rows, "test_stop_keeps_closed_and_open_rows"},
        {"noreserve", test_delete_without_reserve, "test_delete_without_reserve"},
        {"crash", test_restart_after_crash_on_full_disk, "test_restart_after_crash_on_full_disk"},
        {"bigdelete", test_delete_graph_larger_than_reserve,
         "test_delete_graph_larger_than_reserve"},
        {"cleanstop", test_start_on_full_disk_after_clean_stop,
         "test_start_on_full_disk_after_clean_stop"},
    };
    const fullfs_case *which = NULL;
    for (size_t i = 0; argc >= 2 && argc <= 3 && i < sizeof(cases) / sizeof(cases[0]); i++)
        if (argc == 2 ? cases[i].mode == NULL
                      : cases[i].mode != NULL && strcmp(argv[2], cases[i].mode) == 0)
            which = &cases[i];
    if (!which) {
        fprintf(stderr, "usage: rel_fullfs DIR "
                        "[delete|stop|closed|noreserve|crash|bigdelete|cleanstop]  (an empty "
                        "directory on a small filesystem)\n");
        return 2;
    }
    const struct CMUnitTest tests[] = {
        {which->name, which->fn, sc_rel_setup, sc_rel_teardown, argv[1]},
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
