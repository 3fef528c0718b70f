/*
 * Starting streamcapd as a user does: the default paths (no --socket, no
 * --db) and the directories they need, one daemon per database (two real
 * daemons, then a kill -9; a second by a symlink, a hard link or ".."),
 * databases that are not ours, and the messages
 * of a start that fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "harness.h"
#include "run.h"
#include "skip.h"

#define STREAMCAP SC_BIN_DIR "/streamcap"

/* The path helpers take printf-style formats, so the tests leak no names. */
static bool exists(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static bool exists(const char *fmt, ...)
{
    char path[PATH_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(path, sizeof(path), fmt, ap);
    va_end(ap);
    struct stat st;
    return lstat(path, &st) == 0;
}

static mode_t mode_of(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static mode_t mode_of(const char *fmt, ...)
{
    char path[PATH_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(path, sizeof(path), fmt, ap);
    va_end(ap);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    return st.st_mode & 07777;
}

/* Run streamcapd with exactly `args` in `dir` to its exit; returns stderr. */
static char *run_daemon(const char *dir, const char *const *args, int want_status)
{
    int status;
    char *out = NULL, *err = NULL;
    assert_int_equal(sc_it_run_daemon(dir, args, 20000, &status, &out, &err), 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != want_status)
        fail_msg("streamcapd exit status %d, want %d\nstdout: %s\nstderr: %s",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1, want_status, out, err);
    free(out);
    return err;
}

static void expect_ends_with(const char *text, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void expect_ends_with(const char *text, const char *fmt, ...)
{
    char tail[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tail, sizeof(tail), fmt, ap);
    va_end(ap);
    size_t n = strlen(text), m = strlen(tail);
    if (n < m || strcmp(text + n - m, tail) != 0)
        fail_msg("stderr [%s]\ndoes not end with [%s]", text, tail);
}

static void sql(const char *db_path, const char *text)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(db, text, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", text, msg);
    sqlite3_close(db);
}

static int64_t sql_int(const char *db_path, const char *text)
{
    sqlite3 *db;
    sqlite3_stmt *s;
    assert_int_equal(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, text, -1, &s, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(s), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return v;
}

/* ------------------------------------------------------ default paths */

/* streamcapd with no arguments at all, started in `cwd`, its output in
 * `dir`; the environment is the test's. */
static pid_t spawn_plain(const char *cwd, const char *dir)
{
    char *out = sc_it_fmt("%s/plain.out", dir), *err = sc_it_fmt("%s/plain.err", dir);
    pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(125);
        int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 || chdir(cwd) != 0)
            _exit(126);
        execl(sc_it_daemon_binary(), "streamcapd", (char *)NULL);
        _exit(127);
    }
    assert_true(pid > 0);
    free(out);
    free(err);
    return pid;
}

static void wait_accepting(const char *sock, pid_t pid, const char *dir)
{
    for (int i = 0; i < 1000; i++) {
        sc_it_conn *c;
        if (sc_it_connect(sock, &c) == 0) {
            sc_it_conn_close(c);
            return;
        }
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            char *err = sc_it_read_file(sc_it_fmt("%s/plain.err", dir));
            fail_msg("streamcapd exited (status %d): %s", status, err);
        }
        sc_it_sleep_ms(10);
    }
    fail_msg("streamcapd never listened on %s", sock);
}

static void test_default_paths(void **state)
{
    (void)state;
    char t[64];
    assert_int_equal(sc_it_tmpdir(t, sizeof(t)), 0);
    char *run = sc_it_fmt("%s/run", t), *st = sc_it_fmt("%s/state", t);
    char *cwd = sc_it_fmt("%s/cwd", t);
    assert_int_equal(mkdir(run, 0700), 0);
    assert_int_equal(mkdir(cwd, 0755), 0);
    setenv("XDG_RUNTIME_DIR", run, 1);
    setenv("XDG_STATE_HOME", st, 1);
    unsetenv("STREAMCAP_SOCKET");

    pid_t pid = spawn_plain(cwd, t);
    char *sock = sc_it_fmt("%s/streamcap/streamcap.sock", run);
    char *db = sc_it_fmt("%s/streamcap/streamcap.db", st);
    wait_accepting(sock, pid, t);
    /* The files are where the rule says, whatever the current directory. */
    assert_true(exists("%s", db));
    assert_false(exists("%s/streamcap.sock", cwd));
    assert_false(exists("%s/streamcap.db", cwd));
    assert_int_equal(mode_of("%s/streamcap", run), 0700);
    assert_int_equal(mode_of("%s/streamcap", st), 0700);

    /* The tool, told nothing, finds the same socket. */
    const char *argv[] = {STREAMCAP, "--json", "info", NULL};
    sc_ct_opts o = {.cwd = "/"};
    sc_ct_result r;
    assert_int_equal(sc_ct_run(argv, &o, &r), 0);
    if (r.status != 0)
        fail_msg("streamcap info: %d %s", r.status, r.err);
    assert_non_null(strstr(r.out, db));
    sc_ct_result_free(&r);

    kill(pid, SIGTERM);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_false(exists("%s", sock));
    unsetenv("XDG_RUNTIME_DIR");
    unsetenv("XDG_STATE_HOME");
    sc_it_rmtree(t);
    free(run);
    free(st);
    free(cwd);
    free(sock);
    free(db);
}

/* ---------------------------------------------- one daemon per database */

static void test_second_daemon_on_same_db_refused(void **state)
{
    (void)state;
    sc_it_daemon *first = sc_it_must_start(NULL);
    sc_it_daemon *second;
    assert_int_equal(sc_it_daemon_create(&second), 0);
    /* Its own socket, the first one's database. */
    const char *const same_db[] = {"--db", sc_it_daemon_db(first), NULL};
    assert_int_equal(sc_it_daemon_start(second, same_db), -ECHILD);
    int status = sc_it_daemon_status(second);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    char *err = sc_it_read_file(sc_it_daemon_stderr_path(second));
    char *want = sc_it_fmt("cannot open database %s: in use by streamcapd pid %d",
                           sc_it_daemon_db(first), (int)sc_it_daemon_pid(first));
    if (!strstr(err, want))
        fail_msg("stderr [%s] lacks [%s]", err, want);
    free(err);
    free(want);
    assert_false(exists("%s", sc_it_daemon_socket(second)));

    /* The first is unharmed: its session is still open, not marked lost. */
    sc_it_conn *c = sc_it_must_connect(first);
    int64_t s = sc_it_open_session(c, "held");
    sc_it_must_ok(c, "session.info", "{\"session\": %lld}", (long long)s);
    sc_it_conn_close(c);

    /* Killed outright, it leaves no lock behind: the second starts. */
    sc_it_daemon_kill(first);
    assert_int_equal(sc_it_daemon_start(second, same_db), 0);
    sc_it_must_see_outcome(sc_it_daemon_db(first), s, "lost", 5000);
    sc_it_must_stop(second);
    sc_it_daemon_destroy(second);
    sc_it_daemon_destroy(first);
}

/* A second daemon on `db`, named some other way, refused naming `holder`. */
static void expect_refused_on(const char *db, pid_t holder)
{
    sc_it_daemon *second;
    assert_int_equal(sc_it_daemon_create(&second), 0);
    const char *const args[] = {"--db", db, NULL};
    assert_int_equal(sc_it_daemon_start(second, args), -ECHILD);
    int status = sc_it_daemon_status(second);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    char *err = sc_it_read_file(sc_it_daemon_stderr_path(second));
    char *want = sc_it_fmt("cannot open database %s: in use by streamcapd pid %d", db, (int)holder);
    if (!strstr(err, want))
        fail_msg("stderr [%s] lacks [%s]", err, want);
    free(err);
    free(want);
    sc_it_daemon_destroy(second);
}

/* The lock follows the file, not the name it was opened by: through a
 * hard link two daemons would keep two write-ahead logs of one file. */
static void test_second_daemon_by_another_name_refused(void **state)
{
    (void)state;
    sc_it_daemon *first = sc_it_must_start(NULL);
    const char *db = sc_it_daemon_db(first), *dir = sc_it_daemon_dir(first);
    char *sym = sc_it_fmt("%s/sym.db", dir), *hard = sc_it_fmt("%s/hard.db", dir);
    char *sub = sc_it_fmt("%s/sub", dir), *dots = sc_it_fmt("%s/sub/../streamcap.db", dir);
    assert_int_equal(symlink(db, sym), 0);
    assert_int_equal(link(db, hard), 0);
    assert_int_equal(mkdir(sub, 0700), 0);
    pid_t pid = sc_it_daemon_pid(first);
    expect_refused_on(sym, pid);
    expect_refused_on(hard, pid);
    expect_refused_on(dots, pid);

    /* The refusals left the first unharmed, and once it stops the file
     * is free again, by any of its names. */
    sc_it_conn *c = sc_it_must_connect(first);
    sc_it_must_ok(c, "server.info", "{}");
    sc_it_conn_close(c);
    sc_it_must_stop(first);
    const char *const on_hard[] = {"--db", hard, NULL};
    sc_it_daemon *next = sc_it_must_start(on_hard);
    sc_it_must_stop(next);
    sc_it_daemon_destroy(next);
    sc_it_daemon_destroy(first);
    free(sym);
    free(hard);
    free(sub);
    free(dots);
}

/* --------------------------------------------- databases that are not ours */

static char *start_on(const char *t, const char *db, int want_status)
{
    char *sock = sc_it_fmt("%s/s.sock", t);
    const char *const args[] = {"--socket", sock, "--db", db, NULL};
    char *err = run_daemon(t, args, want_status);
    free(sock);
    return err;
}

static void test_foreign_db_refused(void **state)
{
    (void)state;
    char t[64];
    assert_int_equal(sc_it_tmpdir(t, sizeof(t)), 0);
    char *db = sc_it_fmt("%s/other.db", t);
    sql(db, "CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT);"
            "INSERT INTO accounts (name) VALUES ('ann')");
    char *err = start_on(t, db, 1);
    expect_ends_with(err,
                     "cannot open database %s: it holds another program's tables "
                     "(no streamcap schema version); not adding ours: choose "
                     "another file with --db\n",
                     db);
    free(err);
    /* Untouched: none of our tables, its journal mode, no lock file left. */
    assert_int_equal(sql_int(db, "SELECT count(*) FROM sqlite_master"), 1);
    assert_int_equal(sql_int(db, "SELECT count(*) FROM accounts"), 1);
    assert_int_equal(sql_int(db, "PRAGMA user_version"), 0);
    assert_false(exists("%s-wal", db));
    assert_false(exists("%s.lock", db));

    /* Another program's user_version, without our tables. */
    sql(db, "PRAGMA user_version = 1");
    err = start_on(t, db, 1);
    assert_non_null(strstr(err, "it has schema version 1 but not streamcap's tables"));
    free(err);

    /* Not SQLite at all: said once, in plain words. */
    char *junk = sc_it_fmt("%s/junk.db", t);
    FILE *f = fopen(junk, "w");
    assert_non_null(f);
    fputs("this is a text file, not a database, and it is long enough to matter\n", f);
    fclose(f);
    err = start_on(t, junk, 1);
    expect_ends_with(err, "cannot open database %s: it is not an SQLite database\n", junk);
    free(err);
    sc_it_rmtree(t);
    free(db);
    free(junk);
}

static void test_newer_schema_refused(void **state)
{
    (void)state;
    sc_it_daemon *d = sc_it_must_start(NULL);
    sc_it_must_stop(d);
    const char *db = sc_it_daemon_db(d);
    int64_t ours = sql_int(db, "PRAGMA user_version");
    assert_true(ours >= 1);
    char *set = sc_it_fmt("PRAGMA user_version = %lld", (long long)ours + 1);
    sql(db, set);
    char *err = start_on(sc_it_daemon_dir(d), db, 1);
    char *want = sc_it_fmt("cannot open database %s: its schema version %lld is newer than this "
                           "streamcapd knows (%lld): run a newer streamcapd\n",
                           db, (long long)ours + 1, (long long)ours);
    expect_ends_with(err, "%s", want);
    assert_int_equal(sql_int(db, "PRAGMA user_version"), ours + 1);
    free(want);
    free(err);
    free(set);
    sc_it_daemon_destroy(d);
}

/* ------------------------------------------------------ start failures */

static void test_socket_dir_missing(void **state)
{
    (void)state;
    char t[64];
    assert_int_equal(sc_it_tmpdir(t, sizeof(t)), 0);
    char *sock = sc_it_fmt("%s/nodir/s.sock", t), *db = sc_it_fmt("%s/new.db", t);
    const char *const args[] = {"--socket", sock, "--db", db, NULL};
    char *err = run_daemon(t, args, 1);
    expect_ends_with(err, "cannot listen on %s: directory %s/nodir does not exist\n", sock, t);
    assert_null(strstr(err, "ermission denied"));
    free(err);
    /* Nothing was created for a daemon that never ran. */
    assert_false(exists("%s", db));
    assert_false(exists("%s.lock", db));
    assert_false(exists("%s/nodir", t));

    char *db2 = sc_it_fmt("%s/nodir/x.db", t), *sock2 = sc_it_fmt("%s/s.sock", t);
    const char *const args2[] = {"--socket", sock2, "--db", db2, NULL};
    err = run_daemon(t, args2, 1);
    expect_ends_with(err, "cannot open database %s: directory %s/nodir does not exist\n", db2, t);
    free(err);
    sc_it_rmtree(t);
    free(sock);
    free(db);
    free(sock2);
    free(db2);
}

static void test_db_reason_said_once(void **state)
{
    (void)state;
    char t[64];
    assert_int_equal(sc_it_tmpdir(t, sizeof(t)), 0);
    char *dir = sc_it_fmt("%s/adir", t);
    assert_int_equal(mkdir(dir, 0755), 0);
    char *err = start_on(t, dir, 1);
    expect_ends_with(err, "cannot open database %s: Is a directory\n", dir);
    free(err);
    sc_it_rmtree(t);
    free(dir);
}

static void test_bad_options(void **state)
{
    (void)state;
    char t[64];
    assert_int_equal(sc_it_tmpdir(t, sizeof(t)), 0);
    const char *const bogus[] = {"--bogus", NULL};
    char *err = run_daemon(t, bogus, 2);
    assert_string_equal(err, "streamcapd: unknown option '--bogus' (see --help)\n");
    free(err);
    const char *const bogus_v[] = {"--bogus", "1", NULL};
    err = run_daemon(t, bogus_v, 2);
    assert_string_equal(err, "streamcapd: unknown option '--bogus' (see --help)\n");
    free(err);

    const char *const modes[] = {"999", "0o660", "rw", "-1", "01000", ""};
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        const char *const args[] = {"--socket-mode", modes[i], NULL};
        err = run_daemon(t, args, 2);
        char *want = sc_it_fmt("streamcapd: --socket-mode takes an octal mode such as 0660 "
                               "(at most 0777), not '%s'\n",
                               modes[i]);
        assert_string_equal(err, want);
        free(want);
        free(err);
    }

    /* Every option --help lists with a value is known: without its value
     * it is missing one, not unknown. */
    const char *const help[] = {"--help", NULL};
    int status;
    char *out = NULL;
    assert_int_equal(sc_it_run_daemon(t, help, 10000, &status, &out, NULL), 0);
    int checked = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        char name[64], value[64];
        if (sscanf(line, "  %63s %63s", name, value) != 2 || strncmp(name, "--", 2) != 0 ||
            value[0] < 'A' || value[0] > 'Z')
            continue;
        const char *const args[] = {name, NULL};
        err = run_daemon(t, args, 2);
        char *want = sc_it_fmt("streamcapd: %s needs a value (see --help)\n", name);
        assert_string_equal(err, want);
        free(want);
        free(err);
        checked++;
    }
    assert_true(checked >= 10);
    free(out);
    sc_it_rmtree(t);
}

#define SQUAT "/tmp/streamcap-65534"

/* The squatter test makes SQUAT as root and runs a daemon as uid 65534
 * through setpriv; a SQUAT already there is someone else's. */
static bool squatter_unmet(char *why, size_t len)
{
    if (getuid() != 0)
        snprintf(why, len, "needs root to run a daemon as uid 65534");
    else if (access("/usr/bin/setpriv", X_OK) != 0)
        snprintf(why, len, "no /usr/bin/setpriv to run a daemon as uid 65534");
    else if (exists("%s", SQUAT))
        snprintf(why, len, "%s exists already", SQUAT);
    else
        return false;
    return true;
}

/* /tmp/streamcap-UID made first by another user is refused (as root, a
 * daemon run as uid 65534 finds it owned by root). */
static void test_tmp_squatter_refused(void **state)
{
    (void)state;
    const char *squat = SQUAT;
    /* uid 65534 must be able to run the daemon: a checkout in a private
     * directory (mktemp -d makes them 0700) gets a copy in a public one. */
    char pub[64];
    assert_int_equal(sc_it_tmpdir(pub, sizeof(pub)), 0);
    assert_int_equal(chmod(pub, 0755), 0);
    char *bin = sc_it_fmt("%s/streamcapd", pub);
    char *copy = sc_it_fmt("cp '%s' '%s'", sc_it_daemon_binary(), bin);
    sc_ct_result c;
    assert_int_equal(sc_ct_sh(copy, NULL, &c), 0);
    assert_int_equal(c.status, 0);
    sc_ct_result_free(&c);
    free(copy);
    assert_int_equal(mkdir(squat, 0755), 0);
    const char *const args[] = {"/usr/bin/setpriv",
                                "--reuid=65534",
                                "--regid=65534",
                                "--clear-groups",
                                "/usr/bin/env",
                                "-u",
                                "XDG_RUNTIME_DIR",
                                "-u",
                                "STREAMCAP_SOCKET",
                                bin,
                                "--db",
                                "/nonexistent/x.db",
                                NULL};
    sc_ct_opts o = {.cwd = "/"};
    sc_ct_result r;
    int rc = sc_ct_run(args, &o, &r);
    rmdir(squat);
    sc_it_rmtree(pub);
    free(bin);
    assert_int_equal(rc, 0);
    if (r.status != 1 || !strstr(r.err, "/tmp/streamcap-65534 is not a private directory of uid "
                                        "65534 (a directory, owner 0, mode 0755)"))
        fail_msg("status %d, stderr %s", r.status, r.err);
    sc_ct_result_free(&r);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_paths),
        cmocka_unit_test(test_second_daemon_on_same_db_refused),
        cmocka_unit_test(test_second_daemon_by_another_name_refused),
        cmocka_unit_test(test_foreign_db_refused),
        cmocka_unit_test(test_newer_schema_refused),
        cmocka_unit_test(test_socket_dir_missing),
        cmocka_unit_test(test_db_reason_said_once),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_tmp_squatter_refused),
    };
    const sc_test_need needs[] = {{"test_tmp_squatter_refused", squatter_unmet}};
    return SC_TEST_MAIN(argc, argv, tests, needs);
}
