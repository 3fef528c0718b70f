/*
 * metrics_http.c - --metrics-socket: the metrics for Prometheus over a
 * Unix socket.
 *
 * Prometheus and curl (`curl --unix-socket PATH http://x/metrics`) speak
 * HTTP, so a scrape gets an HTTP/1.1 response.  Nothing of the request is
 * parsed: it is read until the blank line that ends its head (or the
 * client's end of stream), then every scrape gets the same response, the
 * whole exposition with its Content-Length, and the connection closes.
 * A head longer than SCRAPE_HEAD_MAX, or more than SCRAPES_MAX scrapes at
 * once, are closed without a response, so an idle or hostile client holds
 * little.  The file is created 0600: the metrics are every uid's figures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "sc_daemon.h"
#include "sc_metrics.h"

#define SCRAPE_HEAD_MAX 8192
#define SCRAPES_MAX     16

typedef struct scrape {
    uv_pipe_t pipe; /* first: the handle's address is the scrape's */
    sc_daemon *d;
    struct scrape *prev, *next;
    char head[SCRAPE_HEAD_MAX];
    size_t len;
    bool answered;
    uv_write_t wreq;
    sc_buf out;
} scrape;

static void scrape_freed(uv_handle_t *h)
{
    scrape *s = (scrape *)h;
    sc_buf_free(&s->out);
    free(s);
}

static void scrape_close(scrape *s)
{
    if (uv_is_closing((uv_handle_t *)&s->pipe))
        return;
    sc_daemon *d = s->d;
    if (s->prev)
        s->prev->next = s->next;
    else
        d->scrapes = s->next;
    if (s->next)
        s->next->prev = s->prev;
    d->nscrapes--;
    uv_close((uv_handle_t *)&s->pipe, scrape_freed);
}

static void scrape_written(uv_write_t *w, int status)
{
    (void)status;
    scrape_close(w->data);
}

static void scrape_answer(scrape *s)
{
    sc_buf body = SC_BUF_INIT;
    sc_metrics_prometheus(s->d, &body);
    s->answered = true;
    uv_read_stop((uv_stream_t *)&s->pipe);
    if (sc_buf_failed(&body)) {
        sc_buf_free(&body);
        sc_buf_puts(&s->out, "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n"
                             "Connection: close\r\n\r\n");
    } else {
        sc_buf_printf(&s->out,
                      "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; "
                      "charset=utf-8\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
                      body.len);
        sc_buf_append(&s->out, body.data, body.len);
        sc_buf_free(&body);
    }
    if (sc_buf_failed(&s->out)) {
        scrape_close(s);
        return;
    }
    uv_buf_t buf = uv_buf_init(s->out.data, (unsigned)s->out.len);
    s->wreq.data = s;
    if (uv_write(&s->wreq, (uv_stream_t *)&s->pipe, &buf, 1, scrape_written) != 0)
        scrape_close(s);
}

/* The head ends at its first empty line ("\r\n\r\n", or bare "\n\n"). */
static bool head_complete(const scrape *s)
{
    for (size_t i = 0; i + 1 < s->len; i++) {
        if (s->head[i] == '\n' &&
            (s->head[i + 1] == '\n' ||
             (s->head[i + 1] == '\r' && i + 2 < s->len && s->head[i + 2] == '\n')))
            return true;
    }
    return false;
}

static void scrape_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    scrape *s = (scrape *)h;
    (void)suggested;
    *buf = uv_buf_init(s->head + s->len, (unsigned)(sizeof s->head - s->len));
}

static void scrape_read(uv_stream_t *stream, ssize_t n, const uv_buf_t *buf)
{
    scrape *s = (scrape *)stream;
    (void)buf;
    if (s->answered)
        return;
    if (n == UV_EOF) {
        scrape_answer(s); /* a client that sent its request and shut down */
        return;
    }
    if (n < 0) {
        scrape_close(s);
        return;
    }
    s->len += (size_t)n;
    if (head_complete(s))
        scrape_answer(s);
    else if (s->len == sizeof s->head)
        scrape_close(s);
}

static void on_scrape(uv_stream_t *server, int status)
{
    sc_daemon *d = server->data;
    if (status < 0)
        return;
    scrape *s = calloc(1, sizeof *s);
    if (!s || uv_pipe_init(d->loop, &s->pipe, 0) != 0) {
        free(s);
        return;
    }
    s->d = d;
    s->next = d->scrapes;
    if (d->scrapes)
        d->scrapes->prev = s;
    d->scrapes = s;
    d->nscrapes++;
    if (uv_accept(server, (uv_stream_t *)&s->pipe) != 0 || d->nscrapes > SCRAPES_MAX ||
        uv_read_start((uv_stream_t *)&s->pipe, scrape_alloc, scrape_read) != 0)
        scrape_close(s);
}

/* Whether someone listens on the socket file at `path`. */
static bool socket_answers(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sa.sun_path)
        return false;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    bool live = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
    close(fd);
    return live;
}

int sc_metrics_prepare(const char *path, char *err, size_t errlen)
{
    struct stat st;
    /* A socket file left by a daemon that died is ours to replace; a live
     * one, or anything else at the path, is not. */
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode) || socket_answers(path)) {
            snprintf(err, errlen, "--metrics-socket %s: %s", path,
                     S_ISSOCK(st.st_mode) ? "another process listens on it"
                                          : "exists and is not a socket");
            return -1;
        }
        unlink(path);
    }
    return 0;
}

int sc_metrics_listen(sc_daemon *d, const char *path, char *err, size_t errlen)
{
    if (sc_metrics_prepare(path, err, errlen) != 0)
        return -1;
    uv_pipe_init(d->loop, &d->metrics_listener, 0);
    d->metrics_listener.data = d;
    mode_t old = umask(0177);
    int rc = uv_pipe_bind(&d->metrics_listener, path);
    umask(old);
    if (rc == 0)
        rc = uv_listen((uv_stream_t *)&d->metrics_listener, 64, on_scrape);
    if (rc != 0) {
        snprintf(err, errlen, "--metrics-socket %s: %s", path, uv_strerror(rc));
        uv_close((uv_handle_t *)&d->metrics_listener, NULL);
        return -1;
    }
    d->metrics_listening = true;
    return 0;
}

void sc_metrics_stop(sc_daemon *d)
{
    if (!d->metrics_listening)
        return;
    d->metrics_listening = false;
    uv_close((uv_handle_t *)&d->metrics_listener, NULL);
    unlink(d->cfg.metrics_socket);
    while (d->scrapes)
        scrape_close(d->scrapes);
}
