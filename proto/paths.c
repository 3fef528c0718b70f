/*
 * paths.c - the default socket and database paths (sc_paths.h), and the
 * directories they live in.
 */
#define _POSIX_C_SOURCE 200809L

#include "sc_paths.h"

#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool set(const char *s)
{
    return s && *s;
}

/* The XDG specification: relative values are invalid and ignored. */
static bool absolute(const char *s)
{
    return set(s) && s[0] == '/';
}

static int format(char *out, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int format(char *out, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= len) {
        if (len)
            out[0] = '\0';
        return -ENAMETOOLONG;
    }
    return 0;
}

static void put_origin(sc_path_origin *origin, sc_path_origin value)
{
    if (origin)
        *origin = value;
}

void sc_path_env_current(sc_path_env *env, char *buf, size_t len)
{
    memset(env, 0, sizeof(*env));
    env->uid = (uint32_t)getuid();
    env->socket = getenv(SC_PATH_SOCKET_ENV);
    env->runtime_dir = getenv("XDG_RUNTIME_DIR");
    env->state_home = getenv("XDG_STATE_HOME");
    env->home = getenv("HOME");
    if (set(env->home) || !buf || len == 0)
        return;
    struct passwd pw, *found = NULL;
    char tmp[1024];
    if (getpwuid_r((uid_t)env->uid, &pw, tmp, sizeof(tmp), &found) == 0 && found &&
        set(pw.pw_dir) && format(buf, len, "%s", pw.pw_dir) == 0)
        env->home = buf;
}

int sc_path_socket(const sc_path_env *env, char *out, size_t len, sc_path_origin *origin)
{
    if (set(env->socket)) {
        put_origin(origin, SC_PATH_GIVEN);
        return format(out, len, "%s", env->socket);
    }
    if (absolute(env->runtime_dir)) {
        put_origin(origin, SC_PATH_USER);
        return format(out, len, "%s/streamcap/" SC_PATH_SOCKET_NAME, env->runtime_dir);
    }
    if (env->uid == 0) {
        put_origin(origin, SC_PATH_SYSTEM);
        return format(out, len, "/run/streamcap/" SC_PATH_SOCKET_NAME);
    }
    put_origin(origin, SC_PATH_TMP);
    return format(out, len, "/tmp/streamcap-%u/" SC_PATH_SOCKET_NAME, (unsigned)env->uid);
}

int sc_path_db(const sc_path_env *env, char *out, size_t len, sc_path_origin *origin)
{
    put_origin(origin, SC_PATH_USER);
    if (absolute(env->state_home))
        return format(out, len, "%s/streamcap/" SC_PATH_DB_NAME, env->state_home);
    if (env->uid == 0) {
        /* Private like any user's state: the file holds every uid's graphs,
         * which only the daemon may hand out, each to its owner. */
        put_origin(origin, SC_PATH_USER);
        return format(out, len, "/var/lib/streamcap/" SC_PATH_DB_NAME);
    }
    if (!absolute(env->home)) {
        if (len)
            out[0] = '\0';
        return -ENOENT;
    }
    return format(out, len, "%s/.local/state/streamcap/" SC_PATH_DB_NAME, env->home);
}

int sc_path_dirname(const char *file, char *out, size_t len)
{
    const char *slash = strrchr(file, '/');
    if (!slash)
        return format(out, len, ".");
    size_t n = (size_t)(slash - file);
    while (n > 0 && file[n - 1] == '/')
        n--;
    if (n == 0)
        return format(out, len, "/");
    return format(out, len, "%.*s", (int)n, file);
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int check_exists(const char *dir, char *err, size_t errlen)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (errno == ENOENT)
            return fail(err, errlen, "directory %s does not exist", dir);
        return fail(err, errlen, "directory %s: %s", dir, strerror(errno));
    }
    if (!S_ISDIR(st.st_mode))
        return fail(err, errlen, "%s is not a directory", dir);
    return 0;
}

/* mkdir -p: every missing component made `mode`; the last one is given
 * exactly `mode` whatever the umask, since it is the one we own. */
static int make_dirs(char *dir, mode_t mode, char *err, size_t errlen)
{
    for (char *p = dir + 1;; p++) {
        bool last = *p == '\0';
        if (*p != '/' && !last)
            continue;
        *p = '\0';
        int rc = mkdir(dir, mode);
        int e = errno;
        if (rc == 0 && last && chmod(dir, mode) != 0)
            e = errno, rc = -1;
        else if (rc != 0 && e == EEXIST)
            rc = 0;
        if (!last)
            *p = '/';
        if (rc != 0)
            return fail(err, errlen, "cannot create directory %s: %s", dir, strerror(e));
        if (last)
            return check_exists(dir, err, errlen);
    }
}

static int check_private(const char *dir, uint32_t uid, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(dir, &st) != 0)
        return fail(err, errlen, "directory %s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode) || st.st_uid != (uid_t)uid || (st.st_mode & 022) != 0)
        return fail(err, errlen,
                    "%s is not a private directory of uid %u (%s, owner %u, mode %04o): "
                    "remove it, or choose another place with --socket",
                    dir, (unsigned)uid, S_ISDIR(st.st_mode) ? "a directory" : "not a directory",
                    (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
    return 0;
}

int sc_path_prepare_dir(const char *file, sc_path_origin origin, uint32_t uid, char *err,
                        size_t errlen)
{
    char dir[SC_PATH_MAX];
    if (sc_path_dirname(file, dir, sizeof(dir)) != 0)
        return fail(err, errlen, "path too long: %s", file);
    switch (origin) {
    case SC_PATH_GIVEN:
        return check_exists(dir, err, errlen);
    case SC_PATH_USER:
        return make_dirs(dir, 0700, err, errlen);
    case SC_PATH_SYSTEM:
        return make_dirs(dir, 0755, err, errlen);
    case SC_PATH_TMP:
        if (make_dirs(dir, 0700, err, errlen) != 0)
            return -1;
        return check_private(dir, uid, err, errlen);
    }
    return fail(err, errlen, "unknown path origin %d", (int)origin);
}
