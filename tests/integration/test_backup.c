/*
 * test_backup.c - store.backup through a real streamcapd.
 *
 * Under write load: a writer thread keeps storing graphs (graph.submit)
 * while the main thread asks for a backup of a database big enough that
 * the copy takes many commits' time.  Every graph acknowledged before the
 * request was sent is in the copy, with its node count and nodes, when a
 * second daemon serves the copy as it is; and the writer's graphs kept
 * being acknowledged while the backup ran.
 *
 * Refusals: an existing target (unless overwrite), a relative path, a
 * directory that does not exist; and, when run as root, a client of
 * another uid (65534), which gets 1005.  `streamcap backup` writes a copy
 * too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"

/* Big graphs first, so that copying the database outlasts many commits. */
#define BIG_GRAPHS  12
#define BIG_NODES   50000
#define MAX_ACKED   100000
#define OTHER_UID   65534u
#define MAX_MESSAGE "67108864"

/* graph.submit params: a chain of n kernels on stream 0. */
static char *chain_params(const char *label, int n)
{
    size_t cap = (size_t)n * 96 + 256, len = 0;
    char *p = malloc(cap);
    assert_non_null(p);
    len += (size_t)snprintf(p + len, cap - len, "{\"label\":\"%s\",\"nodes\":[", label);
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(p + len, cap - len,
                                "%s{\"kind\":\"kernel\",\"function_name\":\"k%d\","
                                "\"grid\":[1,1,1],\"block\":[32,1,1]}",
                                i ? "," : "", i % 97);
    len += (size_t)snprintf(p + len, cap - len, "],\"edges\":[");
    for (int i = 1; i < n; i++)
        len += (size_t)snprintf(p + len, cap - len, "%s[%d,%d]", i > 1 ? "," : "", i - 1, i);
    snprintf(p + len, cap - len, "]}");
    return p;
}

/* The writer thread: graph.submit after graph.submit until told to stop,
 * each acknowledged id appended (only then is `acked` raised). */
typedef struct writer {
    const char *socket;
    pthread_t thread;
    atomic_bool stop;
    atomic_long acked;
    int64_t ids[MAX_ACKED];
    int64_t nodes[MAX_ACKED];
    int failures;
} writer;

static void *writer_main(void *arg)
{
    writer *w = arg;
    sc_it_conn *c = NULL;
    if (sc_it_connect(w->socket, &c) != 0) {
        w->failures++;
        return NULL;
    }
    for (long i = 0; !atomic_load(&w->stop) && i < MAX_ACKED; i++) {
        int n = 1 + (int)(i % 5);
        char params[1024];
        int len = snprintf(params, sizeof params, "{\"label\":\"load\",\"nodes\":[");
        for (int k = 0; k < n; k++)
            len += snprintf(params + len, sizeof params - (size_t)len,
                            "%s{\"kind\":\"kernel\",\"function_name\":\"w%ld\",\"grid\":[1,1,1],"
                            "\"block\":[1,1,1]}",
                            k ? "," : "", i);
        snprintf(params + len, sizeof params - (size_t)len, "],\"edges\":[]}");
        cJSON *reply = NULL;
        int64_t id = 0;
        const cJSON *res = NULL;
        if (sc_it_try_call(c, &reply, "graph.submit", "%s", params) != 0 ||
            !(res = cJSON_GetObjectItemCaseSensitive(reply, "result")) ||
            !sc_it_json_int(res, "graph", &id)) {
            w->failures++;
            cJSON_Delete(reply);
            break;
        }
        cJSON_Delete(reply);
        w->ids[i] = id;
        w->nodes[i] = n;
        atomic_store(&w->acked, i + 1);
    }
    sc_it_conn_close(c);
    return NULL;
}

static int64_t node_count_of(sc_it_conn *c, int64_t graph)
{
    cJSON *reply = NULL;
    assert_int_equal(sc_it_try_call(c, &reply, "graph.list", "{\"before\":\"g%lld\",\"limit\":1}",
                                    (long long)graph + 1),
                     0);
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(reply, "result");
    const cJSON *g = res ? cJSON_GetArrayItem(cJSON_GetObjectItem(res, "graphs"), 0) : NULL;
    int64_t id = 0, n = -1;
    if (!g || !sc_it_json_int(g, "graph", &id) || id != graph ||
        !sc_it_json_int(g, "node_count", &n))
        n = -1;
    cJSON_Delete(reply);
    return n;
}

static void test_backup_under_load(void **state)
{
    (void)state;
    static const char *const extra[] = {"--max-message", MAX_MESSAGE, NULL};
    sc_it_daemon *d = sc_it_must_start(extra);
    sc_it_conn *c = sc_it_must_connect(d);
    sc_it_conn_set_timeout(c, 120000);
    int64_t big[BIG_GRAPHS];
    char *params = chain_params("big", BIG_NODES);
    for (int i = 0; i < BIG_GRAPHS; i++) {
        cJSON *r = sc_it_must_result(c, "graph.submit", "%s", params);
        big[i] = sc_it_int(r, "graph");
        cJSON_Delete(r);
    }
    free(params);

    writer *w = calloc(1, sizeof *w);
    assert_non_null(w);
    w->socket = sc_it_daemon_socket(d);
    assert_int_equal(pthread_create(&w->thread, NULL, writer_main, w), 0);
    while (atomic_load(&w->acked) < 20 && w->failures == 0)
        sc_it_sleep_ms(1);

    char *copy = sc_it_fmt("%s/copy.db", sc_it_daemon_dir(d));
    long before = atomic_load(&w->acked);
    cJSON *r = sc_it_must_result(c, "store.backup", "{\"path\":\"%s\"}", copy);
    long after = atomic_load(&w->acked);
    atomic_store(&w->stop, true);
    pthread_join(w->thread, NULL);
    assert_int_equal(w->failures, 0);
    assert_string_equal(sc_it_str(r, "path"), copy);
    struct stat sb;
    assert_int_equal(stat(copy, &sb), 0);
    assert_int_equal((int64_t)sb.st_size, sc_it_int(r, "bytes"));
    assert_int_equal(sb.st_mode & 0777, 0600);
    cJSON_Delete(r);
    printf("%ld graphs acknowledged before the backup, %ld while it ran\n", before, after - before);
    /* The writer was answered while the copy was made. */
    if (after <= before)
        fail_msg("no graph was acknowledged during the backup (%ld before, %ld after)", before,
                 after);

    /* A second daemon serves the copy as it is. */
    const char *const on_copy[] = {"--db", copy, "--max-message", MAX_MESSAGE, NULL};
    sc_it_daemon *d2 = sc_it_must_start(on_copy);
    sc_it_conn *c2 = sc_it_must_connect(d2);
    sc_it_conn_set_timeout(c2, 120000);
    for (long i = 0; i < before; i++) {
        int64_t n = node_count_of(c2, w->ids[i]);
        if (n != w->nodes[i])
            fail_msg("graph %lld, acknowledged before the backup, has %lld nodes in the copy "
                     "(want %lld)",
                     (long long)w->ids[i], (long long)n, (long long)w->nodes[i]);
    }
    for (int i = 0; i < BIG_GRAPHS; i++)
        assert_int_equal(node_count_of(c2, big[i]), BIG_NODES);
    /* The same nodes and edges, id for id. */
    cJSON *a = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", (long long)big[0]);
    cJSON *b = sc_it_must_result(c2, "graph.get", "{\"graph\":%lld}", (long long)big[0]);
    assert_true(cJSON_Compare(cJSON_GetObjectItem(a, "nodes"), cJSON_GetObjectItem(b, "nodes"), 1));
    assert_true(cJSON_Compare(cJSON_GetObjectItem(a, "edges"), cJSON_GetObjectItem(b, "edges"), 1));
    cJSON_Delete(a);
    cJSON_Delete(b);
    /* ... and it is a clean database. */
    sc_it_conn_close(c2);
    sc_it_must_stop(d2);
    sc_it_daemon_destroy(d2);
    const char *const check[] = {"--check-db", "--db", copy, NULL};
    int status = -1;
    char *out = NULL;
    assert_int_equal(sc_it_run_daemon(sc_it_daemon_dir(d), check, 60000, &status, &out, NULL), 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("--check-db on the copy: status 0x%x, %s", (unsigned)status, out);
    free(out);
    free(copy);
    free(w);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

static void test_backup_refusals(void **state)
{
    sc_it_daemon *d = *state;
    sc_it_conn *c = sc_it_must_connect(d);
    char *copy = sc_it_fmt("%s/refusals.db", sc_it_daemon_dir(d));
    cJSON *r = sc_it_must_result(c, "store.backup", "{\"path\":\"%s\"}", copy);
    cJSON_Delete(r);
    /* There already: refused, and the file is left alone. */
    sc_it_must_error(c, -32602, "invalid_params", "store.backup", "{\"path\":\"%s\"}", copy);
    r = sc_it_must_result(c, "store.backup", "{\"path\":\"%s\",\"overwrite\":true}", copy);
    cJSON_Delete(r);
    sc_it_must_error(c, -32602, "invalid_params", "store.backup", "{\"path\":\"relative.db\"}");
    sc_it_must_error(c, -32602, "invalid_params", "store.backup", "{}");
    sc_it_must_error(c, -32602, "invalid_params", "store.backup",
                     "{\"path\":\"%s\",\"overwrite\":1}", copy);
    cJSON *reply =
        sc_it_call(c, "store.backup", "{\"path\":\"%s/no/such/dir/x.db\"}", sc_it_daemon_dir(d));
    const cJSON *err = sc_it_err(c, reply, 1007, NULL);
    if (!strstr(sc_it_str(err, "message"), "No such file"))
        fail_msg("the error does not say why: %s", sc_it_str(err, "message"));
    cJSON_Delete(reply);
    /* Nothing but the copy was left in the directory by those attempts. */
    char *cmd = sc_it_fmt("ls '%s' | grep -c refusals", sc_it_daemon_dir(d));
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    int n = -1;
    assert_int_equal(fscanf(p, "%d", &n), 1);
    pclose(p);
    assert_int_equal(n, 1);
    free(cmd);
    free(copy);
    sc_it_conn_close(c);
}

/* The child of test_backup_other_uid: 0 when refused with 1005. */
static int other_uid_child(const char *socket, const char *copy)
{
    if (setgroups(0, NULL) != 0 || setgid(OTHER_UID) != 0 || setuid(OTHER_UID) != 0)
        return 10;
    sc_it_conn *c = NULL;
    if (sc_it_connect(socket, &c) != 0)
        return 11;
    cJSON *reply = NULL;
    int rc = sc_it_try_call(c, &reply, "store.backup", "{\"path\":\"%s\"}", copy);
    const cJSON *err = rc == 0 ? cJSON_GetObjectItemCaseSensitive(reply, "error") : NULL;
    int64_t code = 0;
    int out = err && sc_it_json_int(err, "code", &code) && code == 1005 ? 0 : 12;
    cJSON_Delete(reply);
    sc_it_conn_close(c);
    return out;
}

static void test_backup_other_uid(void **state)
{
    (void)state;
    if (geteuid() != 0) {
        printf("skipped: needs root to run a client as uid %u\n", OTHER_UID);
        skip();
    }
    static const char *const extra[] = {"--socket-mode", "0666", NULL};
    sc_it_daemon *d = sc_it_must_start(extra);
    assert_int_equal(chmod(sc_it_daemon_dir(d), 0755), 0);
    char *copy = sc_it_fmt("/tmp/streamcap-backup-%d.db", (int)getpid());
    unlink(copy);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(other_uid_child(sc_it_daemon_socket(d), copy));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("uid %u's store.backup was not refused with 1005 (child status 0x%x)", OTHER_UID,
                 (unsigned)status);
    struct stat sb;
    assert_int_not_equal(stat(copy, &sb), 0);
    free(copy);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

static void test_backup_cli(void **state)
{
    sc_it_daemon *d = *state;
    char *cmd = sc_it_fmt("cd '%s' && STREAMCAP_SOCKET='%s' '%s' backup cli.db 2>&1",
                          sc_it_daemon_dir(d), sc_it_daemon_socket(d), SC_CLI_BINARY);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[1024] = "";
    if (!fgets(line, sizeof line, p))
        line[0] = '\0';
    int status = pclose(p);
    char *want = sc_it_fmt("backup written to %s/cli.db (", sc_it_daemon_dir(d));
    if (status != 0 || strncmp(line, want, strlen(want)) != 0)
        fail_msg("streamcap backup: status 0x%x, printed %s", (unsigned)status, line);
    free(want);
    free(cmd);
    /* Again: the file exists now, so it is refused with the daemon's reason. */
    cmd = sc_it_fmt("cd '%s' && STREAMCAP_SOCKET='%s' '%s' backup cli.db 2>&1", sc_it_daemon_dir(d),
                    sc_it_daemon_socket(d), SC_CLI_BINARY);
    p = popen(cmd, "r");
    assert_non_null(p);
    if (!fgets(line, sizeof line, p))
        line[0] = '\0';
    status = pclose(p);
    if (status == 0 || !strstr(line, "exists"))
        fail_msg("a second streamcap backup: status 0x%x, printed %s", (unsigned)status, line);
    free(cmd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_backup_refusals),
        cmocka_unit_test(test_backup_cli),
    };
    const struct CMUnitTest alone[] = {
        cmocka_unit_test(test_backup_under_load),
        cmocka_unit_test(test_backup_other_uid),
    };
    int failed = cmocka_run_group_tests(tests, sc_it_group_setup, sc_it_group_teardown);
    return failed + cmocka_run_group_tests(alone, NULL, NULL);
}
