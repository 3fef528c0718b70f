/*
 * cli_dot.c - running Graphviz's dot, shared by `graph render` and the
 * web view's drawings (which have no cli context to report through, so
 * failures come back as text).
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

bool cli_have_dot(void)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        return false;
    char *copy = strdup(path);
    if (!copy)
        return false;
    bool found = false;
    for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir && !found;
         dir = strtok_r(NULL, ":", &save)) {
        char full[4096];
        snprintf(full, sizeof(full), "%s/dot", *dir ? dir : ".");
        found = access(full, X_OK) == 0;
    }
    free(copy);
    return found;
}

/* Write all of text to fd; a dot that died early is told by its status. */
static void feed(int fd, const char *text)
{
    size_t len = strlen(text), off = 0;
    while (off < len) {
        ssize_t n = write(fd, text + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        off += (size_t)n;
    }
}

static int dot_status(pid_t pid, const char *out, char *why, size_t len)
{
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            snprintf(why, len, "cannot wait for dot: %s", strerror(errno));
            return -1;
        }
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        snprintf(why, len, "cannot run Graphviz 'dot'");
    else if (WIFSIGNALED(status))
        snprintf(why, len, "Graphviz 'dot' crashed (%s) while rendering %s",
                 strsignal(WTERMSIG(status)), out);
    else
        snprintf(why, len, "dot failed to render %s (status %d)", out,
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return -1;
}

int cli_dot_run(const char *text, const char *fmt, const char *out, char *why, size_t len)
{
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(why, len, "cannot run dot: %s", strerror(errno));
        return -1;
    }
    char tflag[16];
    snprintf(tflag, sizeof(tflag), "-T%s", fmt);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, len, "cannot run dot: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fds[0], STDIN_FILENO);
        close(fds[0]);
        close(fds[1]);
        execlp("dot", "dot", tflag, "-o", out, (char *)NULL);
        _exit(127);
    }
    close(fds[0]);
    feed(fds[1], text);
    close(fds[1]);
    return dot_status(pid, out, why, len);
}
