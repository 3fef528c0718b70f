/*
 * rel_fullfs DIR: a full filesystem under the database.  DIR must be an
 * empty directory on a small filesystem of its own (tests/soak/fullfs.sh
 * mounts a 2 MiB tmpfs).  The daemon keeps its database there; captures
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
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rel_util.h"

#define BALLAST_BYTES (512u << 10)
#define KERNELS       1500
#define MAX_GRAPHS    500

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

/* Record KERNELS kernels on stream 0 of session `s` and end it: the end's reply. */
static cJSON *fill_and_end(sc_it_conn *c, long long s, int i)
{
    char **lines = calloc(KERNELS, sizeof(char *));
    cJSON **replies = calloc(KERNELS, sizeof(cJSON *));
    assert_non_null(lines);
    assert_non_null(replies);
    for (int k = 0; k < KERNELS; k++)
        if (asprintf(&lines[k],
                     "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"capture.record_kernel\","
                     "\"params\":{\"session\":%lld,\"stream\":0,\"function_name\":"
                     "\"fill_%d_%d\",\"num_blocks\":1,\"threads_per_block\":32}}",
                     k, s, i, k) < 0)
            fail_msg("out of memory");
    assert_int_equal(sc_rel_pipeline(c, lines, KERNELS, replies), 0);
    for (int k = 0; k < KERNELS; k++) {
        sc_it_ok(c, replies[k]);
        cJSON_Delete(replies[k]);
        free(lines[k]);
    }
    free(lines);
    free(replies);
    return sc_it_call(c, "capture.end", "{\"session\":%lld,\"stream\":0}", s);
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

static void test_full_filesystem(void **state)
{
    const char *dir = ((sc_rel_fixture *)*state)->arg;
    char db[512], ballast[512], db_arg[512];
    snprintf(db, sizeof(db), "%s/streamcap.db", dir);
    snprintf(ballast, sizeof(ballast), "%s/ballast", dir);
    snprintf(db_arg, sizeof(db_arg), "%s", db);
    write_ballast(ballast);
    const char *const args[] = {"--db", db_arg, NULL};
    sc_it_daemon *d = sc_rel_must_start(state, args);
    sc_it_conn *c = sc_it_must_connect(d);

    /* Opened while there is room: its end comes once the disk is full. */
    long long late = open_capturing(c);
    assert_true(late > 0);

    acked g[MAX_GRAPHS];
    int n = 0, i = 0;
    cJSON *reply = NULL;
    for (;; i++) {
        if (n == MAX_GRAPHS)
            fail_msg("%d graphs stored and the filesystem is still not full", n);
        long long s = open_capturing(c);
        if (!s)
            break;
        reply = fill_and_end(c, s, i);
        if (!cJSON_GetObjectItemCaseSensitive(reply, "result")) {
            sc_it_err(c, reply, 1007, "storage");
            cJSON_Delete(reply);
            break;
        }
        const cJSON *res = sc_it_ok(c, reply);
        g[n++] = (acked){sc_it_int(res, "graph"), sc_it_int(res, "node_count"),
                         sc_it_int(res, "edge_count")};
        cJSON_Delete(reply);
    }
    reply = fill_and_end(c, late, -1);
    sc_it_err(c, reply, 1007, "storage");
    cJSON_Delete(reply);
    print_message("full filesystem: %d graphs of %d kernels stored before 1007\n", n, KERNELS);
    assert_true(n > 0);
    assert_true(sc_it_daemon_running(d));
    expect_all_whole(c, g, n);
    char why[1024];
    if (sc_rel_check_db(db, NULL, why, sizeof(why)) != 0)
        fail_msg("database on the full filesystem: %s", why);

    /* Room made: ends store again. */
    assert_int_equal(unlink(ballast), 0);
    long long s = open_capturing(c);
    if (!s)
        fail_msg("session.open still fails after the ballast was removed");
    reply = fill_and_end(c, s, ++i);
    const cJSON *res = sc_it_ok(c, reply);
    g[n++] = (acked){sc_it_int(res, "graph"), sc_it_int(res, "node_count"),
                     sc_it_int(res, "edge_count")};
    cJSON_Delete(reply);
    expect_all_whole(c, g, n);
    sc_it_conn_close(c);
    sc_it_must_stop(d);

    sc_it_must_restart(d, args);
    c = sc_it_must_connect(d);
    expect_all_whole(c, g, n);
    /* The end that failed on the full disk is logged as failed, not lost. */
    sc_it_must_see_outcome(db, late, "failed", 2000);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    if (sc_rel_check_db(db, NULL, why, sizeof(why)) != 0)
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
    const char *dir = ((sc_rel_fixture *)*state)->arg;
    char db[512], filler[512], reserve[600];
    snprintf(db, sizeof(db), "%s/streamcap.db", dir);
    snprintf(filler, sizeof(filler), "%s/filler", dir);
    snprintf(reserve, sizeof(reserve), "%s.reserve", db);
    const char *const args[] = {"--db", db, NULL};
    sc_it_daemon *d = sc_rel_must_start(state, args);
    sc_it_conn *c = sc_it_must_connect(d);
    acked g[4];
    for (int i = 0; i < 4; i++) {
        long long s = open_capturing(c);
        assert_true(s > 0);
        cJSON *reply = fill_and_end(c, s, i);
        const cJSON *res = sc_it_ok(c, reply);
        g[i] = (acked){sc_it_int(res, "graph"), sc_it_int(res, "node_count"),
                       sc_it_int(res, "edge_count")};
        cJSON_Delete(reply);
    }
    if (access(reserve, F_OK) != 0)
        fail_msg("no reserve file %s next to the database", reserve);
    long long late = open_capturing(c);
    assert_true(late > 0);
    fill_up(filler);

    cJSON *reply = fill_and_end(c, late, 99);
    sc_it_err(c, reply, 1007, "storage");
    cJSON_Delete(reply);
    /* Deleting is how space comes back: it must work on the full disk. */
    sc_it_must_ok(c, "graph.delete", "{\"graph\":%lld}", (long long)g[0].graph);
    sc_it_must_error(c, 1001, NULL, "graph.get", "{\"graph\":%lld}", (long long)g[0].graph);
    /* And what it freed is used again: a store succeeds. */
    long long s = open_capturing(c);
    if (!s)
        fail_msg("session.open fails after a delete on the full filesystem");
    reply = fill_and_end(c, s, 100);
    const cJSON *res = sc_it_ok(c, reply);
    g[0] = (acked){sc_it_int(res, "graph"), sc_it_int(res, "node_count"),
                   sc_it_int(res, "edge_count")};
    cJSON_Delete(reply);
    expect_all_whole(c, g, 4);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    unlink(filler);
}

/*
 * rel_fullfs DIR stop: a session open at SIGTERM on a full filesystem (DIR
 * on a 4 MiB tmpfs, filled after the daemon made its reserve).  The stop's
 * `shutdown` row is written on the reserve's room, so the row reads
 * `shutdown`, never `lost`, before and after a restart.
 */
static void test_stop_on_full_filesystem(void **state)
{
    const char *dir = ((sc_rel_fixture *)*state)->arg;
    char db[512], filler[512], reserve[600];
    snprintf(db, sizeof(db), "%s/streamcap.db", dir);
    snprintf(filler, sizeof(filler), "%s/filler", dir);
    snprintf(reserve, sizeof(reserve), "%s.reserve", db);
    const char *const args[] = {"--db", db, NULL};
    sc_it_daemon *d = sc_rel_must_start(state, args);
    sc_it_conn *c = sc_it_must_connect(d);
    if (access(reserve, F_OK) != 0)
        fail_msg("no reserve file %s next to the database", reserve);
    long long s = open_capturing(c);
    assert_true(s > 0);
    fill_up(filler);
    /* The disk refuses writes now: a new session's row does not fit. */
    if (open_capturing(c) != 0)
        fail_msg("session.open succeeded on the full filesystem");
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_must_see_outcome(db, s, "shutdown", 0);

    assert_int_equal(unlink(filler), 0);
    sc_it_must_restart(d, args);
    sc_it_must_see_outcome(db, s, "shutdown", 0);
    sc_it_must_stop(d);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3 ||
        (argc == 3 && strcmp(argv[2], "delete") != 0 && strcmp(argv[2], "stop") != 0)) {
        fprintf(stderr, "usage: rel_fullfs DIR [delete|stop]  (an empty directory on a small "
                        "filesystem)\n");
        return 2;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_prestate_setup_teardown(test_full_filesystem, sc_rel_setup,
                                                 sc_rel_teardown, argv[1]),
    };
    const struct CMUnitTest delete_tests[] = {
        cmocka_unit_test_prestate_setup_teardown(test_delete_on_full_filesystem, sc_rel_setup,
                                                 sc_rel_teardown, argv[1]),
    };
    const struct CMUnitTest stop_tests[] = {
        cmocka_unit_test_prestate_setup_teardown(test_stop_on_full_filesystem, sc_rel_setup,
                                                 sc_rel_teardown, argv[1]),
    };
    if (argc == 3 && strcmp(argv[2], "stop") == 0)
        return cmocka_run_group_tests(stop_tests, NULL, NULL);
    if (argc == 3)
        return cmocka_run_group_tests(delete_tests, NULL, NULL);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
