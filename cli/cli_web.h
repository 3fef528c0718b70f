/*
 * cli_web.h - the pieces of `streamcap web`: request checks and routes
 * (cli_web_req.c, no HTTP library needed), the server (cli_web_http.c),
 * the JSON API (cli_web_api.c) and the live log (cli_web_live.c).
 */
#ifndef SC_CLI_WEB_H
#define SC_CLI_WEB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Hex digits of the token: 128 random bits. */
#define WEB_TOKEN_HEX 32
/* Graphs above this many nodes are not drawn (Graphviz takes seconds per
 * thousand nodes); the page lists them instead. */
#define WEB_DRAW_MAX_DEFAULT 2000

/* An asset built into the binary from web/assets (the table web/embed.cmake
 * generates). */
typedef struct web_asset {
    const char *name; /* "log.js" */
    const char *mime;
    const unsigned char *data;
    size_t len;
} web_asset;
extern const web_asset web_assets[];
extern const size_t web_asset_count;
/** The asset called name, or NULL (cli_web_http.c). */
const web_asset *web_asset_find(const char *name);

/* ---- checks and routes (cli_web_req.c) ---- */

/** A listening address "ADDR:PORT" ("127.0.0.1:8080", "[::1]:0"); the
 *  port may be 0 (any free one).  0, or -1 with why[len] set. */
int web_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *sslen, char *why,
                     size_t len);
/** Whether the address is a loopback one (127/8 or ::1). */
bool web_is_loopback(const struct sockaddr_storage *ss);
/** The address as a Host header names it ("127.0.0.1:8080", "[::1]:8080"). */
void web_host_name(const struct sockaddr_storage *ss, uint16_t port, char *out, size_t len);
/** Whether a request's Host header names the listening address `self`
 *  (as web_host_name writes it); "localhost:PORT" too when loopback. */
bool web_host_ok(const char *host, const char *self, uint16_t port, bool loopback);
/** A fresh random token of WEB_TOKEN_HEX hex digits into out[WEB_TOKEN_HEX + 1]: 0 or -1. */
int web_token_new(char *out);
/** Whether `given` is the token, compared in constant time. */
bool web_token_ok(const char *given, const char *token);

typedef enum web_route_kind {
    WEB_R_NONE,   /* no such page: 404 */
    WEB_R_LOG,    /* / */
    WEB_R_GRAPH,  /* /graph/ID */
    WEB_R_DIFF,   /* /diff/A/B */
    WEB_R_ASSET,  /* /assets/NAME */
    WEB_R_API,    /* /api/... */
    WEB_R_BAD_ID, /* /graph/x, /diff/1/x: 404 naming the id */
} web_route_kind;

typedef struct web_route {
    web_route_kind kind;
    uint64_t a, b;    /* graph ids */
    const char *rest; /* ASSET: the name; API: what follows "/api/"; BAD_ID: the bad id */
    size_t rest_len;
} web_route;

/** Which page or API a request path asks for. */
web_route web_route_parse(const char *path);
/** A graph id from text (1 to 2^53): 0, or -1 when it is none. */
int web_parse_id(const char *s, size_t len, uint64_t *out);

/* ---- the server (cli_web_http.c, cli_web_api.c, cli_web_live.c) ---- */

typedef struct web_hub web_hub;

typedef struct web_srv {
    const char *socket; /* the daemon's */
    int timeout_ms;
    char token[WEB_TOKEN_HEX + 1];
    char self[128]; /* the listening address as a Host header says it */
    uint16_t port;
    bool loopback;
    uint64_t draw_max; /* 0: no limit */
    web_hub *hub;
} web_srv;

/* A reply the API built: status, content type and body (malloc'd). */
typedef struct web_reply {
    unsigned status;
    const char *mime;
    char *body;
    size_t len;
} web_reply;

/** Answer GET /api/<rest> (query values through get(ctx, name)). */
void web_api(const web_srv *s, const char *rest, const char *(*get)(void *ctx, const char *name),
             void *ctx, web_reply *out);
/** A JSON error reply {"error":{"status":N,"message":...}}. */
void web_reply_error(web_reply *out, unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** Whether graph id exists for this user: 0, or the HTTP status with why. */
unsigned web_graph_check(const web_srv *s, uint64_t id, char *why, size_t len);

/** The live log's hub: one daemon subscription while anyone listens. */
web_hub *web_hub_new(const char *socket, int timeout_ms);
/** Wake every listener to end its stream, stop the subscription, free. */
void web_hub_free(web_hub *h);
/** Wake every listener to end its stream (the server is stopping). */
void web_hub_stop(web_hub *h);

typedef struct web_listener web_listener;
/** A new listener for the page on connection fd (-1: not watched), starting
 *  the subscription when it is the first; NULL when out of memory. */
web_listener *web_listen(web_hub *h, int fd);
/** Up to max bytes of Server-Sent Events text for l into buf, waiting for
 *  some: the count, 0 never, -1 when the stream is over. */
long web_listener_read(web_listener *l, char *buf, size_t max);
/** Drop a listener (ending the subscription when it was the last). */
void web_unlisten(web_listener *l);

/** Serve until SIGINT or SIGTERM; the URL is printed once listening.
 *  0 or -1 (reported on stderr). */
int web_serve(web_srv *s, const struct sockaddr_storage *ss, socklen_t sslen, bool open);

#endif
