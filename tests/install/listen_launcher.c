/*
 * listen_launcher - start a program the way systemd starts a socket-
 * activated service, for tests on machines without systemd:
 *
 *   listen_launcher [--no-listen] [--wrong-pid] [--notify PATH] SOCKET PROGRAM [ARGS...]
 *
 * binds a Unix stream socket at SOCKET (listening unless --no-listen),
 * moves it to descriptor 3, sets LISTEN_FDS=1 and LISTEN_PID to our pid
 * (another one with --wrong-pid: the variables are then not for us),
 * NOTIFY_SOCKET=PATH when given, and execs PROGRAM: the pid stays the
 * same, as with systemd.  Exit status 125 when the set-up fails.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int die(const char *what)
{
    perror(what);
    return 125;
}

int main(int argc, char **argv)
{
    int listen_it = 1, wrong_pid = 0, i = 1;
    const char *notify = NULL;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        if (!strcmp(argv[i], "--no-listen"))
            listen_it = 0;
        else if (!strcmp(argv[i], "--wrong-pid"))
            wrong_pid = 1;
        else if (!strcmp(argv[i], "--notify") && i + 1 < argc)
            notify = argv[++i];
        else
            break;
    }
    if (argc - i < 2) {
        fprintf(stderr, "usage: listen_launcher [--no-listen] [--wrong-pid] [--notify PATH] "
                        "SOCKET PROGRAM [ARGS...]\n");
        return 125;
    }
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(argv[i]) >= sizeof(sa.sun_path))
        return die("socket path too long");
    strcpy(sa.sun_path, argv[i]);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
        return die("bind");
    if (listen_it && listen(fd, 128) != 0)
        return die("listen");
    if (fd != 3) {
        if (dup2(fd, 3) < 0)
            return die("dup2");
        close(fd);
    }
    char pid[32];
    snprintf(pid, sizeof(pid), "%ld", (long)getpid() + (wrong_pid ? 1 : 0));
    if (setenv("LISTEN_FDS", "1", 1) != 0 || setenv("LISTEN_PID", pid, 1) != 0 ||
        (notify && setenv("NOTIFY_SOCKET", notify, 1) != 0))
        return die("setenv");
    execv(argv[i + 1], argv + i + 1);
    return die(argv[i + 1]);
}
