/*
 * streamcapd under valgrind (memcheck, full leak check): start, a session
 * round trip touching every subsystem (capture, store, cache, lists, DOT
 * export), SIGTERM, and a clean exit with no error and no leak.
 *
 * Exit status 77 (skipped) without valgrind on PATH, and in sanitizer
 * builds (AddressSanitizer and valgrind cannot share a process).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rel_util.h"

#define START_MS 60000
#define STOP_MS  60000

static bool find_valgrind(char *out, size_t outlen)
{
    const char *path = getenv("PATH");
    char *copy = strdup(path ? path : "/usr/bin:/bin");
    bool found = false;
    for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir && !found;
         dir = strtok_r(NULL, ":", &save)) {
        snprintf(out, outlen, "%s/valgrind", dir);
        found = access(out, X_OK) == 0;
    }
    free(copy);
    return found;
}

static void round_trip(sc_it_conn *c)
{
    int64_t nodes, edges;
    int64_t g = sc_rel_must_graph(c, "under valgrind", 40, &nodes, &edges);
    cJSON *res = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", (long long)g);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(res, "nodes")), nodes);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(res, "edges")), edges);
    cJSON_Delete(res);
    res = sc_it_must_result(c, "graph.reachable", "{\"graph\":%lld,\"from\":0,\"to\":2}",
                            (long long)g);
    assert_true(sc_it_bool(res, "reachable"));
    cJSON_Delete(res);
    res = sc_it_must_result(c, "graph.export", "{\"graph\":%lld,\"format\":\"dot\"}", (long long)g);
    assert_non_null(strstr(sc_it_str(res, "text"), "digraph"));
    cJSON_Delete(res);
    long long s = (long long)sc_it_open_session(c, "closed");
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":3}", s);
    sc_it_must_ok(c, "session.close", "{\"session\":%lld}", s);
    /* Left open: logged as shutdown at SIGTERM. */
    sc_it_open_session(c, "open at stop");
    res = sc_it_must_result(c, "log.list", "{}");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(res, "entries")), 3);
    cJSON_Delete(res);
    res = sc_it_must_result(c, "graph.list", "{}");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(res, "graphs")), 1);
    cJSON_Delete(res);
    sc_it_must_send_line(c, "{\"jsonrpc\":");
    cJSON *reply = sc_it_must_recv(c);
    sc_it_err(c, reply, -32700, "parse_error");
    cJSON_Delete(reply);
}

static void test_daemon_under_valgrind(void **state)
{
    sc_rel_fixture *f = *state;
    const char *valgrind = f->arg;
    sc_it_daemon *d;
    assert_int_equal(sc_it_daemon_create(&d), 0);
    sc_rel_adopt(state, d);
    char log_arg[300], log_path[256];
    snprintf(log_path, sizeof(log_path), "%s/valgrind.log", sc_it_daemon_dir(d));
    snprintf(log_arg, sizeof(log_arg), "--log-file=%s", log_path);
    const char *const wrapper[] = {
        valgrind, "--error-exitcode=1", "--leak-check=full", "--track-fds=no", log_arg, NULL};
    sc_it_daemon_set_wrapper(d, wrapper);
    sc_it_daemon_set_timeouts(d, START_MS, STOP_MS);

    int rc = sc_it_daemon_start(d, NULL);
    if (rc == -ECHILD) {
        char *log = sc_it_read_file(log_path);
        fail_msg("streamcapd under valgrind exited during start-up (status 0x%x)\n%s",
                 (unsigned)sc_it_daemon_status(d), log ? log : "");
    }
    if (rc == -ETIMEDOUT)
        fail_msg("streamcapd under valgrind did not listen within %d s", START_MS / 1000);
    if (rc != 0)
        fail_msg("starting streamcapd under valgrind: %s", strerror(-rc));
    sc_it_conn *c = sc_it_must_connect(d);
    sc_it_conn_set_timeout(c, 30000);
    round_trip(c);
    sc_it_conn_close(c);

    int status = 0;
    rc = sc_it_daemon_signal_stop(d, SIGTERM, &status);
    if (rc == -ETIMEDOUT)
        fail_msg("streamcapd under valgrind did not exit within %d s of SIGTERM", STOP_MS / 1000);
    if (rc != 0)
        fail_msg("stopping streamcapd under valgrind: %s", strerror(-rc));
    char *log = sc_it_read_file(log_path);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("streamcapd under valgrind: wait status 0x%x after SIGTERM\n--- %s ---\n%s",
                 (unsigned)status, log_path, log ? log : "(unreadable)");
    if (!log || !strstr(log, "ERROR SUMMARY: 0 errors"))
        fail_msg("valgrind log lacks \"ERROR SUMMARY: 0 errors\"\n%s", log ? log : "(unreadable)");
    free(log);
    char why[512];
    if (sc_rel_check_db(sc_it_daemon_db(d), NULL, why, sizeof(why)) != 0)
        fail_msg("database after the valgrind run: %s", why);
    sc_it_must_see_outcome(sc_it_daemon_db(d), 3, "shutdown", 1000);
}

int main(void)
{
    if (SC_REL_IS_SANITIZED) {
        printf("test_rel_valgrind: skipped: sanitizer build (valgrind cannot run ASan binaries)\n");
        return 77;
    }
    static char valgrind[512];
    if (!find_valgrind(valgrind, sizeof(valgrind))) {
        printf("test_rel_valgrind: skipped: valgrind is not installed\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_prestate_setup_teardown(test_daemon_under_valgrind, sc_rel_setup,
                                                 sc_rel_teardown, valgrind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
