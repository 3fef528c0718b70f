/* sc_paths: the default socket and database rule, and the directories it makes. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sc_paths.h"

static const char *socket_for(const sc_path_env *env, sc_path_origin want_origin)
{
    static char out[SC_PATH_MAX];
    sc_path_origin origin;
    assert_int_equal(sc_path_socket(env, out, sizeof(out), &origin), 0);
    assert_int_equal(origin, want_origin);
    return out;
}

static const char *db_for(const sc_path_env *env, sc_path_origin want_origin)
{
    static char out[SC_PATH_MAX];
    sc_path_origin origin;
    assert_int_equal(sc_path_db(env, out, sizeof(out), &origin), 0);
    assert_int_equal(origin, want_origin);
    return out;
}

static void test_socket_rule(void **state)
{
    (void)state;
    sc_path_env env = {.uid = 1000};
    assert_string_equal(socket_for(&env, SC_PATH_TMP), "/tmp/streamcap-1000/streamcap.sock");
    env.uid = 0;
    assert_string_equal(socket_for(&env, SC_PATH_SYSTEM), "/run/streamcap/streamcap.sock");
    /* $XDG_RUNTIME_DIR wins over the uid's fallback, for root too... */
    env.runtime_dir = "/run/user/0";
    assert_string_equal(socket_for(&env, SC_PATH_USER), "/run/user/0/streamcap/streamcap.sock");
    env.uid = 1000;
    env.runtime_dir = "/run/user/1000";
    assert_string_equal(socket_for(&env, SC_PATH_USER), "/run/user/1000/streamcap/streamcap.sock");
    /* ...but only when absolute, as the XDG specification says. */
    env.runtime_dir = "run/user/1000";
    assert_string_equal(socket_for(&env, SC_PATH_TMP), "/tmp/streamcap-1000/streamcap.sock");
    env.runtime_dir = "";
    assert_string_equal(socket_for(&env, SC_PATH_TMP), "/tmp/streamcap-1000/streamcap.sock");
    /* $STREAMCAP_SOCKET beats everything, relative or not. */
    env.runtime_dir = "/run/user/1000";
    env.socket = "rel.sock";
    assert_string_equal(socket_for(&env, SC_PATH_GIVEN), "rel.sock");
    env.socket = "";
    assert_string_equal(socket_for(&env, SC_PATH_USER), "/run/user/1000/streamcap/streamcap.sock");
}

static void test_db_rule(void **state)
{
    (void)state;
    sc_path_env env = {.uid = 1000, .home = "/home/ann"};
    assert_string_equal(db_for(&env, SC_PATH_USER),
                        "/home/ann/.local/state/streamcap/streamcap.db");
    env.state_home = "/srv/state";
    assert_string_equal(db_for(&env, SC_PATH_USER), "/srv/state/streamcap/streamcap.db");
    env.state_home = "relative/state";
    assert_string_equal(db_for(&env, SC_PATH_USER),
                        "/home/ann/.local/state/streamcap/streamcap.db");
    env.uid = 0;
    env.home = "/root";
    env.state_home = NULL;
    /* root's database directory is private: the file holds every uid's graphs */
    assert_string_equal(db_for(&env, SC_PATH_USER), "/var/lib/streamcap/streamcap.db");
    env.state_home = "/tmp/st";
    assert_string_equal(db_for(&env, SC_PATH_USER), "/tmp/st/streamcap/streamcap.db");
    /* The socket variable is no business of the database. */
    env.socket = "/x.sock";
    assert_string_equal(db_for(&env, SC_PATH_USER), "/tmp/st/streamcap/streamcap.db");
}

static void test_db_without_home(void **state)
{
    (void)state;
    char out[64] = "junk";
    sc_path_env env = {.uid = 1000};
    assert_int_equal(sc_path_db(&env, out, sizeof(out), NULL), -ENOENT);
    assert_string_equal(out, "");
    env.home = "relative";
    assert_int_equal(sc_path_db(&env, out, sizeof(out), NULL), -ENOENT);
}

static void test_too_long(void **state)
{
    (void)state;
    char out[16];
    sc_path_env env = {.uid = 1000};
    assert_int_equal(sc_path_socket(&env, out, sizeof(out), NULL), -ENAMETOOLONG);
    assert_string_equal(out, "");
    env.home = "/home/ann";
    assert_int_equal(sc_path_db(&env, out, sizeof(out), NULL), -ENAMETOOLONG);
}

static void test_current_env(void **state)
{
    (void)state;
    char buf[SC_PATH_MAX];
    setenv("STREAMCAP_SOCKET", "/a.sock", 1);
    setenv("XDG_RUNTIME_DIR", "/run/user/7", 1);
    setenv("XDG_STATE_HOME", "/st", 1);
    setenv("HOME", "/h", 1);
    sc_path_env env;
    sc_path_env_current(&env, buf, sizeof(buf));
    assert_int_equal(env.uid, getuid());
    assert_string_equal(env.socket, "/a.sock");
    assert_string_equal(env.runtime_dir, "/run/user/7");
    assert_string_equal(env.state_home, "/st");
    assert_string_equal(env.home, "/h");
    /* No $HOME: the passwd entry's directory. */
    unsetenv("HOME");
    sc_path_env_current(&env, buf, sizeof(buf));
    assert_non_null(env.home);
    assert_true(env.home[0] == '/');
}

static void test_dirname(void **state)
{
    (void)state;
    char out[64];
    assert_int_equal(sc_path_dirname("a.sock", out, sizeof(out)), 0);
    assert_string_equal(out, ".");
    assert_int_equal(sc_path_dirname("/a.sock", out, sizeof(out)), 0);
    assert_string_equal(out, "/");
    assert_int_equal(sc_path_dirname("/x/y//a.sock", out, sizeof(out)), 0);
    assert_string_equal(out, "/x/y");
    assert_int_equal(sc_path_dirname("x/a.sock", out, sizeof(out)), 0);
    assert_string_equal(out, "x");
}

typedef struct tmp {
    char dir[64];
} tmp;

static int tmp_setup(void **state)
{
    tmp *t = calloc(1, sizeof(*t));
    strcpy(t->dir, "/tmp/sc-paths-XXXXXX");
    assert_non_null(mkdtemp(t->dir));
    *state = t;
    return 0;
}

static int tmp_teardown(void **state)
{
    tmp *t = *state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
    assert_int_equal(system(cmd), 0);
    free(t);
    return 0;
}

static char *at(const tmp *t, const char *rel)
{
    static char buf[4][256];
    static int next;
    char *b = buf[next++ % 4];
    snprintf(b, sizeof(buf[0]), "%s/%s", t->dir, rel);
    return b;
}

static mode_t mode_of(const char *path)
{
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    return st.st_mode & 07777;
}

static void test_given_dir_must_exist(void **state)
{
    tmp *t = *state;
    char err[512];
    assert_int_equal(sc_path_prepare_dir(at(t, "s.sock"), SC_PATH_GIVEN, 0, err, sizeof(err)), 0);
    assert_int_equal(sc_path_prepare_dir(at(t, "none/s.sock"), SC_PATH_GIVEN, 0, err, sizeof(err)),
                     -1);
    char *want = at(t, "none");
    char expect[512];
    snprintf(expect, sizeof(expect), "directory %s does not exist", want);
    assert_string_equal(err, expect);
    /* Nothing was created for a path the user named. */
    assert_int_equal(access(want, F_OK), -1);
    FILE *f = fopen(at(t, "file"), "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(sc_path_prepare_dir(at(t, "file/s.sock"), SC_PATH_GIVEN, 0, err, sizeof(err)),
                     -1);
    snprintf(expect, sizeof(expect), "%s is not a directory", at(t, "file"));
    assert_string_equal(err, expect);
}

static void test_user_and_system_dirs_made(void **state)
{
    tmp *t = *state;
    char err[512] = "";
    mode_t old = umask(077);
    int rc = sc_path_prepare_dir(at(t, "a/b/streamcap/x.db"), SC_PATH_USER, 0, err, sizeof(err));
    assert_int_equal(rc, 0);
    assert_int_equal(mode_of(at(t, "a/b/streamcap")), 0700);
    assert_int_equal(mode_of(at(t, "a")), 0700);
    /* root's system directory is 0755 whatever the umask, so a wider
     * --socket-mode can work. */
    rc = sc_path_prepare_dir(at(t, "sys/streamcap/s.sock"), SC_PATH_SYSTEM, 0, err, sizeof(err));
    assert_int_equal(rc, 0);
    assert_int_equal(mode_of(at(t, "sys/streamcap")), 0755);
    umask(old);
    /* Existing directories are left as they are. */
    assert_int_equal(chmod(at(t, "a/b/streamcap"), 0750), 0);
    rc = sc_path_prepare_dir(at(t, "a/b/streamcap/x.db"), SC_PATH_USER, 0, err, sizeof(err));
    assert_int_equal(rc, 0);
    assert_int_equal(mode_of(at(t, "a/b/streamcap")), 0750);
}

static void test_tmp_dir_must_be_private(void **state)
{
    tmp *t = *state;
    char err[512] = "";
    uint32_t me = (uint32_t)getuid();
    int rc = sc_path_prepare_dir(at(t, "mine/s.sock"), SC_PATH_TMP, me, err, sizeof(err));
    assert_int_equal(rc, 0);
    assert_int_equal(mode_of(at(t, "mine")), 0700);
    /* Made by someone else first: refused. */
    rc = sc_path_prepare_dir(at(t, "mine/s.sock"), SC_PATH_TMP, me + 1, err, sizeof(err));
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err, "is not a private directory of uid"));
    assert_non_null(strstr(err, "--socket"));
    /* Writable by others: refused. */
    assert_int_equal(chmod(at(t, "mine"), 0777), 0);
    rc = sc_path_prepare_dir(at(t, "mine/s.sock"), SC_PATH_TMP, me, err, sizeof(err));
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err, "mode 0777"));
    assert_int_equal(chmod(at(t, "mine"), 0700), 0);
    /* A link to a directory of ours: refused, it could point anywhere. */
    assert_int_equal(symlink(at(t, "mine"), at(t, "link")), 0);
    rc = sc_path_prepare_dir(at(t, "link/s.sock"), SC_PATH_TMP, me, err, sizeof(err));
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err, "not a directory"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_socket_rule),
        cmocka_unit_test(test_db_rule),
        cmocka_unit_test(test_db_without_home),
        cmocka_unit_test(test_too_long),
        cmocka_unit_test(test_current_env),
        cmocka_unit_test(test_dirname),
        cmocka_unit_test_setup_teardown(test_given_dir_must_exist, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_user_and_system_dirs_made, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_tmp_dir_must_be_private, tmp_setup, tmp_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
