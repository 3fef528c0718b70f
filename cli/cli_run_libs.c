/*
 * cli_run_libs.c - streamcap run: when the program left no report, which
 * libcudart its dynamic loader picks with the run's environment, so that
 * the summary can say why the stand-in was not used.  The loader is asked
 * through ldd (LD_TRACE_LOADED_OBJECTS), which resolves DT_RPATH,
 * LD_LIBRARY_PATH and DT_RUNPATH exactly as the run did, and which refuses
 * to start a static executable instead of running it a second time.
 */
#define _XOPEN_SOURCE 700

#include "cli_run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The program's path: argv[0] as given when it has a '/', else the first
 * executable of that name on PATH (as execvp found it). */
static bool program_path(const char *name, char *out, size_t len)
{
    if (strchr(name, '/'))
        return snprintf(out, len, "%s", name) < (int)len;
    const char *path = getenv("PATH");
    for (const char *p = path ? path : "/bin:/usr/bin"; p && *p;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        if (snprintf(out, len, "%.*s/%s", (int)n, n ? p : ".", name) < (int)len &&
            access(out, X_OK) == 0)
            return true;
        p = colon ? colon + 1 : NULL;
    }
    return false;
}

/* ldd PATH's standard output, NUL-terminated, malloc'd; NULL when it could
 * not be run or failed. */
static char *ldd_output(const char *path)
{
    int pfd[2];
    if (pipe(pfd) != 0)
        return NULL;
    pid_t pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return NULL;
    }
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(pfd[1], 1);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 2);
        }
        execlp("ldd", "ldd", path, (char *)NULL);
        _exit(127);
    }
    close(pfd[1]);
    size_t cap = 16384, len = 0;
    char *buf = malloc(cap);
    ssize_t n = 0;
    while (buf && len + 1 < cap &&
           ((n = read(pfd[0], buf + len, cap - 1 - len)) > 0 || (n < 0 && errno == EINTR)))
        len += n > 0 ? (size_t)n : 0;
    close(pfd[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!buf || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    return buf;
}

/* The first "libcudart.so.N => PATH (ADDR)" line: its soname and path
 * ("not found" kept as no path).  false when there is none. */
static bool cudart_line(const char *text, char *soname, size_t slen, char *path, size_t plen)
{
    for (const char *l = text; l && *l;) {
        const char *eol = strchr(l, '\n');
        size_t n = eol ? (size_t)(eol - l) : strlen(l);
        const char *s = l;
        while (s < l + n && (*s == ' ' || *s == '\t'))
            s++;
        const char *arrow = strstr(s, " => ");
        if (strncmp(s, "libcudart.so", 12) == 0 && arrow && arrow < l + n) {
            snprintf(soname, slen, "%.*s", (int)(arrow - s), s);
            const char *p = arrow + 4;
            const char *end = strstr(p, " (");
            if (!end || end > l + n)
                end = l + n;
            path[0] = '\0';
            if (strncmp(p, "not found", 9) != 0)
                snprintf(path, plen, "%.*s", (int)(end - p), p);
            return true;
        }
        l = eol ? eol + 1 : NULL;
    }
    return false;
}

void cli_run_find_cudart(run_report *r, const char *program, const char *standin_dir)
{
    char path[PATH_MAX];
    if (r->nprocs != 0 || !program_path(program, path, sizeof(path)))
        return;
    char *text = ldd_output(path);
    if (!text)
        return;
    char soname[64], lib[PATH_MAX];
    r->cudart_checked = true;
    if (!cudart_line(text, soname, sizeof(soname), lib, sizeof(lib))) {
        /* A dynamic executable that needs no libcudart at all. */
        r->cudart_none = strstr(text, " => ") != NULL || strstr(text, "ld-linux") != NULL;
        r->cudart_checked = r->cudart_none;
        free(text);
        return;
    }
    free(text);
    r->cudart_soname = strdup(soname);
    char real[PATH_MAX], dir[PATH_MAX];
    if (!lib[0] || !realpath(lib, real))
        return;
    if (!realpath(standin_dir, dir))
        dir[0] = '\0';
    char *slash = strrchr(real, '/');
    bool standin = dir[0] && slash && (size_t)(slash - real) == strlen(dir) &&
                   strncmp(real, dir, strlen(dir)) == 0;
    if (!standin)
        r->cudart_other = strdup(lib);
}
