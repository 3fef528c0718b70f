/*
 * sc_activation.h - the service manager's side of the daemon's life:
 * a listening socket handed over by systemd (socket activation) and the
 * readiness notification (Type=notify).
 *
 * Both follow systemd's documented protocols (sd_listen_fds(3),
 * sd_notify(3)); libsystemd is used when the build found it, the same
 * protocol is implemented here otherwise.  Outside systemd both are no-ops.
 */
#ifndef SC_ACTIVATION_H
#define SC_ACTIVATION_H

#include <stddef.h>

/**
 * The listening socket passed by the service manager, if any.  0 with
 * *fd = -1 when none was passed (LISTEN_PID is not us or LISTEN_FDS is
 * unset); 0 with *fd = 3 when exactly one listening AF_UNIX stream socket
 * was; -1 with `err` set when what was passed is unusable (several
 * descriptors, or one that is not a listening Unix stream socket).  The
 * LISTEN_* variables are removed so children do not inherit them.
 */
int sc_activation_listen_fd(int *fd, char *err, size_t errlen);

/**
 * Tell the service manager the daemon is ready (READY=1 with MAINPID) when
 * $NOTIFY_SOCKET names one.  0 when sent or when there is nobody to tell,
 * -1 when sending failed.
 */
int sc_activation_notify_ready(void);

#endif
