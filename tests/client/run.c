#define _GNU_SOURCE
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct sink {
    int fd;
    char *data;
    size_t len, cap;
} sink;

static void sink_read(sink *s)
{
    char tmp[65536];
    ssize_t n = read(s->fd, tmp, sizeof(tmp));
    if (n <= 0) {
        /* EOF, or EIO from a terminal whose last writer is gone */
        if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
            close(s->fd);
            s->fd = -1;
        }
        return;
    }
    if (s->len + (size_t)n + 1 > s->cap) {
        size_t cap = (s->len + (size_t)n + 1) * 2;
        char *p = realloc(s->data, cap);
        if (!p)
            abort();
        s->data = p;
        s->cap = cap;
    }
    memcpy(s->data + s->len, tmp, (size_t)n);
    s->len += (size_t)n;
    s->data[s->len] = '\0';
}

static char *sink_text(sink *s)
{
    if (!s->data)
        return strdup("");
    return s->data;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int open_pty(int *master, char *slave, size_t len)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    if (m < 0)
        return -errno;
    if (grantpt(m) != 0 || unlockpt(m) != 0 || ptsname_r(m, slave, len) != 0) {
        int e = errno;
        close(m);
        return -e;
    }
    *master = m;
    return 0;
}

static void child(const char *const *argv, const sc_ct_opts *o, int out, int err, const char *pty)
{
    int in = open(o->stdin_path ? o->stdin_path : "/dev/null", O_RDONLY);
    if (in < 0)
        _exit(126);
    if (pty) {
        setsid();
        err = open(pty, O_RDWR);
        if (err < 0)
            _exit(126);
    }
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    for (const char *const *e = o->unsetenv; e && *e; e++)
        unsetenv(*e);
    for (const char *const *e = o->setenv; e && *e; e++)
        putenv((char *)*e);
    if (o->cwd && chdir(o->cwd) != 0)
        _exit(126);
    signal(SIGPIPE, SIG_DFL);
    execv(argv[0], (char *const *)argv);
    _exit(127);
}

int sc_ct_run(const char *const *argv, const sc_ct_opts *opts, sc_ct_result *r)
{
    static const sc_ct_opts none = {0};
    const sc_ct_opts *o = opts ? opts : &none;
    memset(r, 0, sizeof(*r));
    int po[2], pe[2];
    char pty[128] = "";
    int master = -1;
    if (o->tty_stderr) {
        int rc = open_pty(&master, pty, sizeof(pty));
        if (rc != 0)
            return rc;
    }
    if (pipe2(po, O_CLOEXEC) != 0)
        return -errno;
    if (pipe2(pe, O_CLOEXEC) != 0) {
        close(po[0]);
        close(po[1]);
        return -errno;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -errno;
    if (pid == 0)
        child(argv, o, po[1], pe[1], o->tty_stderr ? pty : NULL);
    close(po[1]);
    close(pe[1]);
    sink s[3] = {{po[0], NULL, 0, 0}, {pe[0], NULL, 0, 0}, {master, NULL, 0, 0}};
    int64_t deadline = now_ms() + (o->timeout_ms > 0 ? o->timeout_ms : 60000);
    bool timed_out = false;
    int status = 0;
    bool reaped = false;
    while (s[0].fd >= 0 || s[1].fd >= 0 || (s[2].fd >= 0 && !reaped)) {
        struct pollfd p[3];
        for (int i = 0; i < 3; i++)
            p[i] = (struct pollfd){.fd = s[i].fd, .events = POLLIN};
        int left = (int)(deadline - now_ms());
        if (left <= 0) {
            timed_out = true;
            kill(pid, SIGKILL);
            break;
        }
        int n = poll(p, 3, left < 100 ? left : 100);
        for (int i = 0; n > 0 && i < 3; i++) {
            if (p[i].revents)
                sink_read(&s[i]);
        }
        if (!reaped && waitpid(pid, &status, WNOHANG) == pid)
            reaped = true;
        if (reaped && s[0].fd < 0 && s[1].fd < 0 && s[2].fd >= 0) {
            /* Drain what the terminal still holds, then stop. */
            struct pollfd q = {.fd = s[2].fd, .events = POLLIN};
            while (s[2].fd >= 0 && poll(&q, 1, 50) > 0)
                sink_read(&s[2]);
            break;
        }
    }
    if (!reaped)
        waitpid(pid, &status, 0);
    for (int i = 0; i < 3; i++) {
        if (s[i].fd >= 0)
            close(s[i].fd);
    }
    r->out = sink_text(&s[0]);
    if (o->tty_stderr) {
        free(s[1].data);
        r->err = sink_text(&s[2]);
    } else {
        r->err = sink_text(&s[1]);
    }
    if (timed_out)
        r->status = -1;
    else if (WIFEXITED(status))
        r->status = WEXITSTATUS(status);
    else
        r->status = 128 + WTERMSIG(status);
    return 0;
}

void sc_ct_result_free(sc_ct_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

int sc_ct_sh(const char *script, const sc_ct_opts *opts, sc_ct_result *r)
{
    const char *argv[] = {"/bin/sh", "-c", script, NULL};
    return sc_ct_run(argv, opts, r);
}

int sc_ct_vrun(const char *program, const char *socket, const sc_ct_opts *opts, va_list ap,
               sc_ct_result *r)
{
    const char *argv[SC_CT_MAX_ARGS + 1];
    size_t n = 0;
    argv[n++] = program;
    if (socket) {
        argv[n++] = "--socket";
        argv[n++] = socket;
    }
    const char *a;
    while ((a = va_arg(ap, const char *)) != NULL) {
        if (n == SC_CT_MAX_ARGS)
            return -E2BIG;
        argv[n++] = a;
    }
    argv[n] = NULL;
    return sc_ct_run(argv, opts, r);
}
