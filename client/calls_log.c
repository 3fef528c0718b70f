/*
 * calls_log.c - log.subscribe and the log.event notifications that follow
 * it: the one call after which a connection carries no more replies.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "client_int.h"

#define SC_CL_LOG_READ 65536

int sc_cl_log_refuse(sc_client *c, const char *method)
{
    sc_cl_clear_error(c);
    return sc_cl_fail(c, -EBUSY, "%s cannot be called on a connection subscribed to the log",
                      method);
}

/* needs_reply: a pipeline would queue it, and whatever followed it would
 * then be read as notifications. */
static const sc_cl_call log_subscribe = {
    .m = SC_M_LOG_SUBSCRIBE, .needs_reply = true, .tree = true};

int sc_client_log_subscribe(sc_client *c, const char *outcome, const char *host)
{
    /* sc_cl_start refuses it in a pipeline and in asynchronous mode. */
    int rc = sc_cl_start(c, &log_subscribe);
    if (rc != 0)
        return rc;
    if (outcome)
        sc_cl_str(c, "outcome", outcome);
    if (host)
        sc_cl_str(c, "host", host);
    c->log_state = SC_CL_LOG_PENDING;
    rc = sc_cl_finish(c, &log_subscribe, NULL);
    c->log_state = rc == 0 ? SC_CL_LOG_ON : SC_CL_LOG_OFF;
    return rc;
}

/* One buffered line as a log.event's params: 0 and *out, or -EPROTO. */
static int take_event(sc_client *c, const char *line, size_t len, char **out)
{
    cJSON *root = cJSON_ParseWithLength(line, len);
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(root, "method");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(root, "params");
    if (!cJSON_IsString(method) || strcmp(method->valuestring, "log.event") != 0 ||
        !cJSON_IsObject(params)) {
        cJSON_Delete(root);
        c->broken = true;
        return sc_cl_fail(c, -EPROTO, "malformed notification: not a log.event");
    }
    *out = cJSON_PrintUnformatted(params);
    cJSON_Delete(root);
    return *out ? 0 : sc_cl_fail(c, -ENOMEM, "out of memory reading a notification");
}

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Wait up to `ms` (< 0: forever) for bytes and add them to the framer: 0,
 * -ETIMEDOUT (the stream intact), -ECONNRESET at its end, or the failure. */
static int read_more(sc_client *c, int ms)
{
    struct pollfd p = {.fd = c->fd, .events = POLLIN};
    int n = poll(&p, 1, ms);
    if (n < 0)
        return errno == EINTR ? 0 : sc_cl_fail(c, -errno, "waiting for the daemon");
    if (n == 0)
        return sc_cl_fail(c, -ETIMEDOUT, "no notification within %d ms", ms);
    char *buf;
    size_t avail;
    if (sc_framer_space(&c->in, SC_CL_LOG_READ, &buf, &avail) != 0)
        return sc_cl_fail(c, -ENOMEM, "out of memory reading a notification");
    ssize_t got = recv(c->fd, buf, avail, 0);
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return 0;
    c->broken = true;
    if (got == 0)
        return sc_cl_fail(c, -ECONNRESET, "the daemon ended the log stream");
    if (got < 0)
        return sc_cl_fail(c, -errno, "reading from the daemon");
    c->broken = false;
    sc_framer_commit(&c->in, (size_t)got);
    return 0;
}

int sc_client_log_next(sc_client *c, int timeout_ms, char **params_json)
{
    if (!c)
        return -EINVAL;
    if (!params_json)
        return sc_cl_null_arg(c, "params_json");
    if (c->log_state != SC_CL_LOG_ON)
        return sc_cl_fail(c, -EINVAL, "the connection is not subscribed to the log");
    if (c->broken)
        return -ENOTCONN;
    sc_cl_clear_error(c);
    long long deadline = timeout_ms >= 0 ? now_ms() + timeout_ms : 0;
    for (;;) {
        const char *line;
        size_t len;
        int st = sc_framer_next(&c->in, &line, &len);
        if (st == SC_FRAME_LINE)
            return take_event(c, line, len, params_json);
        if (st == SC_FRAME_TOO_LONG) {
            c->broken = true;
            return sc_cl_fail(c, -EPROTO, "notification too long");
        }
        int left = -1;
        if (timeout_ms >= 0) {
            long long ms = deadline - now_ms();
            left = ms > 0 ? (int)ms : 0;
        }
        int rc = read_more(c, left);
        if (rc != 0)
            return rc;
    }
}
