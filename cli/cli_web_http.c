/*
 * cli_web_http.c - the HTTP side of `streamcap web`, on libmicrohttpd:
 * every request is checked (Host, then token) before it is routed to a
 * page, an asset, the JSON API or the live log.  A thread per connection
 * lets the live log's streams wait for events without holding up others.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli_web.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sc_buf.h"

#define TOKEN_COOKIE "sc_token_%u" /* by port: cookies are shared by all ports of a host */
/* Long enough for a live log's keepalive lines (one per 15 s) to pass. */
#define CONNECTION_TIMEOUT_S 120
#define CONNECTION_LIMIT     256

const web_asset *web_asset_find(const char *name)
{
    for (size_t i = 0; i < web_asset_count; i++) {
        if (strcmp(web_assets[i].name, name) == 0)
            return &web_assets[i];
    }
    return NULL;
}

static void add_common_headers(struct MHD_Response *r, const char *mime)
{
    MHD_add_response_header(r, "Content-Type", mime);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(r, "X-Frame-Options", "DENY");
    /* Nothing but this server: no fetch or script from anywhere else. */
    MHD_add_response_header(r, "Content-Security-Policy",
                            "default-src 'self'; img-src 'self' data:; "
                            "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'");
}

static enum MHD_Result queue(struct MHD_Connection *c, unsigned status, struct MHD_Response *r,
                             const char *cookie)
{
    if (!r)
        return MHD_NO;
    if (cookie)
        MHD_add_response_header(r, "Set-Cookie", cookie);
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

/* A plain-text answer (refusals and missing pages): the message says why. */
static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status, const char *msg)
{
    size_t len = strlen(msg);
    char *body = malloc(len + 2);
    if (!body)
        return MHD_NO;
    memcpy(body, msg, len);
    body[len] = '\n';
    body[len + 1] = '\0';
    struct MHD_Response *r = MHD_create_response_from_buffer(len + 1, body, MHD_RESPMEM_MUST_FREE);
    if (r)
        add_common_headers(r, "text/plain; charset=utf-8");
    else
        free(body);
    return queue(c, status, r, NULL);
}

static enum MHD_Result send_asset(struct MHD_Connection *c, const char *name, const char *cookie)
{
    const web_asset *a = web_asset_find(name);
    if (!a) {
        char msg[300];
        snprintf(msg, sizeof(msg), "no such asset: %.200s", name);
        return send_text(c, 404, msg);
    }
    struct MHD_Response *r =
        MHD_create_response_from_buffer(a->len, (void *)a->data, MHD_RESPMEM_PERSISTENT);
    if (r)
        add_common_headers(r, a->mime);
    return queue(c, 200, r, cookie);
}

static const char *query(void *ctx, const char *name)
{
    return MHD_lookup_connection_value(ctx, MHD_GET_ARGUMENT_KIND, name);
}

static enum MHD_Result send_api(struct MHD_Connection *c, const web_srv *s, const char *rest)
{
    web_reply out;
    web_api(s, rest, query, c, &out);
    if (!out.body)
        return MHD_NO;
    struct MHD_Response *r =
        MHD_create_response_from_buffer(out.len, out.body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(out.body);
        return MHD_NO;
    }
    add_common_headers(r, out.mime);
    return queue(c, out.status, r, NULL);
}

static ssize_t events_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    long n = web_listener_read(cls, buf, max);
    return n < 0 ? MHD_CONTENT_READER_END_OF_STREAM : (ssize_t)n;
}

static void events_done(void *cls)
{
    web_unlisten(cls);
}

static enum MHD_Result send_events(struct MHD_Connection *c, const web_srv *s)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    web_listener *l = web_listen(s->hub, ci ? ci->connect_fd : -1);
    if (!l)
        return send_text(c, 503, "cannot follow the log: out of memory");
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, events_read, l, events_done);
    if (!r) {
        web_unlisten(l);
        return MHD_NO;
    }
    add_common_headers(r, "text/event-stream");
    return queue(c, 200, r, NULL);
}

/* A page for a graph (or two) that exists; else 404 saying which is not. */
static enum MHD_Result send_graph_page(struct MHD_Connection *c, const web_srv *s,
                                       const web_route *rt, const char *page, const char *cookie)
{
    uint64_t ids[2] = {rt->a, rt->b};
    for (int i = 0; i < (rt->kind == WEB_R_DIFF ? 2 : 1); i++) {
        char why[600], msg[700];
        unsigned st = web_graph_check(s, ids[i], why, sizeof(why));
        if (st != 0) {
            snprintf(msg, sizeof(msg), "graph %llu: %s", (unsigned long long)ids[i], why);
            return send_text(c, st, msg);
        }
    }
    return send_asset(c, page, cookie);
}

static enum MHD_Result route(struct MHD_Connection *c, const web_srv *s, const char *url,
                             const char *cookie)
{
    web_route rt = web_route_parse(url);
    char msg[300];
    switch (rt.kind) {
    case WEB_R_LOG:
        return send_asset(c, "index.html", cookie);
    case WEB_R_GRAPH:
        return send_graph_page(c, s, &rt, "graph.html", cookie);
    case WEB_R_DIFF:
        return send_graph_page(c, s, &rt, "diff.html", cookie);
    case WEB_R_ASSET:
        return send_asset(c, rt.rest, cookie);
    case WEB_R_API:
        if (strcmp(rt.rest, "events") == 0)
            return send_events(c, s);
        return send_api(c, s, rt.rest);
    case WEB_R_BAD_ID:
        snprintf(msg, sizeof(msg), "no such graph: '%.*s' is not a graph id (a whole number)",
                 (int)(rt.rest_len > 64 ? 64 : rt.rest_len), rt.rest);
        return send_text(c, 404, msg);
    case WEB_R_NONE:
        break;
    }
    snprintf(msg, sizeof(msg), "no such page: %.200s", url);
    return send_text(c, 404, msg);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **state)
{
    (void)version;
    (void)upload;
    const web_srv *s = cls;
    if (!*state) { /* headers only so far: a body, if any, is not read */
        *state = c;
        return MHD_YES;
    }
    *upload_size = 0;
    /* DNS rebinding: a page of another site whose name now points here
     * sends its own name as Host. */
    const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
    if (!web_host_ok(host, s->self, s->port, s->loopback)) {
        char msg[400];
        snprintf(msg, sizeof(msg), "refused: Host '%.200s' is not this server's address %s",
                 host ? host : "(none)", s->self);
        return send_text(c, MHD_HTTP_MISDIRECTED_REQUEST, msg);
    }
    char cname[32], cookie[160];
    snprintf(cname, sizeof(cname), TOKEN_COOKIE, (unsigned)s->port);
    const char *qtoken = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
    bool by_query = web_token_ok(qtoken, s->token);
    if (!by_query &&
        !web_token_ok(MHD_lookup_connection_value(c, MHD_COOKIE_KIND, cname), s->token))
        return send_text(c, 403,
                         "refused: no valid token; open the URL streamcap web printed "
                         "(http://ADDR:PORT/?token=...)");
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return send_text(c, 405, "only GET and HEAD are served");
    /* The token in the URL once; the cookie carries it from then on. */
    snprintf(cookie, sizeof(cookie), "%s=%s; Path=/; HttpOnly; SameSite=Strict", cname, s->token);
    return route(c, s, url, by_query ? cookie : NULL);
}

static void open_browser(const char *url)
{
    pid_t pid = fork();
    if (pid == 0) {
        execlp("xdg-open", "xdg-open", url, (char *)NULL);
        _exit(127);
    }
    if (pid < 0)
        fprintf(stderr, "streamcap: --open: cannot start xdg-open: %s\n", strerror(errno));
}

/* Bind here rather than in the library, so that the port (and with it the
 * Host every request is checked against) is known before any request. */
static int bind_listen(web_srv *s, const struct sockaddr_storage *ss, socklen_t sslen)
{
    int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    struct sockaddr_storage got;
    socklen_t glen = sizeof(got);
    if (fd < 0 || bind(fd, (const struct sockaddr *)ss, sslen) != 0 || listen(fd, 64) != 0 ||
        getsockname(fd, (struct sockaddr *)&got, &glen) != 0) {
        int e = errno;
        char where[128];
        uint16_t port = ss->ss_family == AF_INET
                            ? ntohs(((const struct sockaddr_in *)ss)->sin_port)
                            : ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
        web_host_name(ss, port, where, sizeof(where));
        fprintf(stderr, "streamcap: web: cannot listen on %s: %s\n", where, strerror(e));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    s->port = got.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&got)->sin_port)
                                       : ntohs(((struct sockaddr_in6 *)&got)->sin6_port);
    web_host_name(ss, s->port, s->self, sizeof(s->self));
    return fd;
}

static struct MHD_Daemon *start(web_srv *s, int fd, bool v6)
{
    unsigned flags =
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
    if (v6)
        flags |= MHD_USE_IPv6;
    return MHD_start_daemon(flags, 0, NULL, NULL, handle, s, MHD_OPTION_LISTEN_SOCKET, fd,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONNECTION_TIMEOUT_S,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONNECTION_LIMIT,
                            MHD_OPTION_END);
}

int web_serve(web_srv *s, const struct sockaddr_storage *ss, socklen_t sslen, bool open)
{
    int fd = bind_listen(s, ss, sslen);
    if (fd < 0)
        return -1;
    sigset_t stop, old;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    /* Blocked before any thread starts, so that every thread inherits it
     * and the signals reach sigwait below. */
    pthread_sigmask(SIG_BLOCK, &stop, &old);
    struct MHD_Daemon *d = start(s, fd, ss->ss_family == AF_INET6);
    if (!d) {
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        fprintf(stderr, "streamcap: web: cannot start the HTTP server on %s\n", s->self);
        close(fd);
        return -1;
    }
    char url[256];
    snprintf(url, sizeof(url), "http://%s/?token=%s", s->self, s->token);
    printf("streamcap web: serving %s (daemon %s); Ctrl-C stops\n", url, s->socket);
    fflush(stdout);
    if (open)
        open_browser(url);
    int sig = 0;
    while (sigwait(&stop, &sig) != 0)
        ;
    web_hub_stop(s->hub); /* live streams end, so that their threads can */
    MHD_stop_daemon(d);   /* which closes the listening socket too */
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    fprintf(stderr, "streamcap web: stopped (%s)\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    return 0;
}
