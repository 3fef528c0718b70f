/*
 * activation.c - socket activation and readiness under systemd.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#ifdef SC_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "sc_activation.h"

/* The first descriptor systemd passes (SD_LISTEN_FDS_START). */
#define SC_LISTEN_FDS_START 3

#ifdef SC_HAVE_SYSTEMD
static int listen_fds(void)
{
    return sd_listen_fds(1);
}

static int is_listening_unix_stream(int fd)
{
    return sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0) > 0;
}

int sc_activation_notify_ready(void)
{
    return sd_notify(1, "READY=1") < 0 ? -1 : 0;
}
#else
/* sd_listen_fds(1) by hand: only our own variables count, and they go. */
static int listen_fds(void)
{
    const char *pid_s = getenv("LISTEN_PID");
    const char *fds_s = getenv("LISTEN_FDS");
    int n = 0;
    if (pid_s && fds_s) {
        char *end;
        errno = 0;
        unsigned long pid = strtoul(pid_s, &end, 10);
        if (errno == 0 && *end == '\0' && pid == (unsigned long)getpid()) {
            long v = strtol(fds_s, &end, 10);
            n = errno == 0 && *end == '\0' && v > 0 && v < 1024 ? (int)v : 0;
        }
    }
    unsetenv("LISTEN_PID");
    unsetenv("LISTEN_FDS");
    unsetenv("LISTEN_FDNAMES");
    /* As sd_listen_fds does: the descriptors are not for our children. */
    for (int i = 0; i < n; i++)
        fcntl(SC_LISTEN_FDS_START + i, F_SETFD, FD_CLOEXEC);
    return n;
}

static int is_listening_unix_stream(int fd)
{
    struct stat st;
    int type = 0, listening = 0;
    struct sockaddr_un sa;
    socklen_t len = sizeof(type);
    if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode))
        return 0;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM)
        return 0;
    len = sizeof(listening);
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || !listening)
        return 0;
    len = sizeof(sa);
    return getsockname(fd, (struct sockaddr *)&sa, &len) == 0 && sa.sun_family == AF_UNIX;
}

/* sd_notify(3)'s datagram; a leading '@' names an abstract socket. */
int sc_activation_notify_ready(void)
{
    const char *path = getenv("NOTIFY_SOCKET");
    if (!path || !*path)
        return 0;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    size_t len = strlen(path);
    if ((path[0] != '/' && path[0] != '@') || len >= sizeof(sa.sun_path))
        return -1;
    memcpy(sa.sun_path, path, len);
    if (path[0] == '@')
        sa.sun_path[0] = '\0';
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    static const char msg[] = "READY=1";
    socklen_t salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
    ssize_t w = sendto(fd, msg, sizeof(msg) - 1, MSG_NOSIGNAL, (struct sockaddr *)&sa, salen);
    close(fd);
    unsetenv("NOTIFY_SOCKET");
    return w == (ssize_t)(sizeof(msg) - 1) ? 0 : -1;
}
#endif

int sc_activation_listen_fd(int *fd, char *err, size_t errlen)
{
    *fd = -1;
    int n = listen_fds();
    if (n < 0) {
        snprintf(err, errlen, "cannot read the sockets passed by the service manager: %s",
                 strerror(-n));
        return -1;
    }
    if (n == 0)
        return 0;
    if (n > 1) {
        snprintf(err, errlen,
                 "the service manager passed %d sockets; streamcapd listens on exactly one", n);
        return -1;
    }
    if (!is_listening_unix_stream(SC_LISTEN_FDS_START)) {
        snprintf(err, errlen,
                 "descriptor %d passed by the service manager is not a listening Unix stream "
                 "socket",
                 SC_LISTEN_FDS_START);
        return -1;
    }
    *fd = SC_LISTEN_FDS_START;
    return 0;
}
