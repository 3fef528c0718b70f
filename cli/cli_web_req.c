/*
 * cli_web_req.c - what `streamcap web` checks of every request before
 * answering it (the Host header, the token) and which page a path names.
 * Kept free of the HTTP library so that the unit tests reach it directly.
 */
#define _GNU_SOURCE /* getrandom */

#include "cli_web.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

static int parse_port(const char *s, uint16_t *out)
{
    if (!*s)
        return -1;
    unsigned long v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || (v = v * 10 + (unsigned long)(*s - '0')) > 65535)
            return -1;
    }
    *out = (uint16_t)v;
    return 0;
}

int web_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *sslen, char *why,
                     size_t len)
{
    memset(ss, 0, sizeof(*ss));
    const char *colon = strrchr(s, ':');
    char host[64];
    uint16_t port;
    if (!colon || parse_port(colon + 1, &port) != 0) {
        snprintf(why, len, "--listen takes ADDR:PORT (127.0.0.1:8080, [::1]:0), not '%s'", s);
        return -1;
    }
    size_t hl = (size_t)(colon - s);
    if (hl >= 2 && s[0] == '[' && s[hl - 1] == ']') {
        s++;
        hl -= 2;
    }
    if (hl == 0 || hl >= sizeof(host)) {
        snprintf(why, len, "--listen needs an address before the port");
        return -1;
    }
    memcpy(host, s, hl);
    host[hl] = '\0';
    struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
    /* Every request's Host is checked against the address listened on, so
     * it must be one that browsers name: not "any address". */
    if (strcmp(host, "0.0.0.0") == 0 || strcmp(host, "::") == 0) {
        snprintf(why, len,
                 "--listen %s: name the address browsers will use (each request's Host is "
                 "checked against it), not every address",
                 host);
        return -1;
    }
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        *sslen = sizeof(*v4);
        return 0;
    }
    if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        *sslen = sizeof(*v6);
        return 0;
    }
    snprintf(why, len, "--listen: '%s' is not a numeric IPv4 or IPv6 address", host);
    return -1;
}

bool web_is_loopback(const struct sockaddr_storage *ss)
{
    if (ss->ss_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
    return ss->ss_family == AF_INET6 &&
           IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

void web_host_name(const struct sockaddr_storage *ss, uint16_t port, char *out, size_t len)
{
    char addr[INET6_ADDRSTRLEN] = "?";
    if (ss->ss_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, addr, sizeof(addr));
        snprintf(out, len, "%s:%u", addr, (unsigned)port);
    } else {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr, addr, sizeof(addr));
        snprintf(out, len, "[%s]:%u", addr, (unsigned)port);
    }
}

bool web_host_ok(const char *host, const char *self, uint16_t port, bool loopback)
{
    if (!host)
        return false;
    if (strcmp(host, self) == 0)
        return true;
    /* "localhost" cannot be rebound to another machine by a DNS server. */
    char local[32];
    snprintf(local, sizeof(local), "localhost:%u", (unsigned)port);
    return loopback && strcasecmp(host, local) == 0;
}

int web_token_new(char *out)
{
    unsigned char raw[WEB_TOKEN_HEX / 2];
    size_t got = 0;
    while (got < sizeof(raw)) {
        ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof(raw); i++)
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
    return 0;
}

bool web_token_ok(const char *given, const char *token)
{
    if (!given || strlen(given) != WEB_TOKEN_HEX)
        return false;
    /* Every byte is compared, so the time taken says nothing of a prefix. */
    unsigned char diff = 0;
    for (size_t i = 0; i < WEB_TOKEN_HEX; i++)
        diff |= (unsigned char)(given[i] ^ token[i]);
    return diff == 0;
}

int web_parse_id(const char *s, size_t len, uint64_t *out)
{
    if (len == 0 || len > 16 || s[0] == '0')
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > (UINT64_C(1) << 53))
        return -1;
    *out = v;
    return 0;
}

/* The next path segment from *p (after its '/'): its length, *p moved past. */
static size_t segment(const char **p, const char **start)
{
    *start = *p;
    const char *slash = strchr(*p, '/');
    size_t n = slash ? (size_t)(slash - *p) : strlen(*p);
    *p += n;
    if (**p == '/')
        (*p)++;
    return n;
}

/* A page for one or two graph ids; BAD_ID naming the first that is none. */
static web_route id_route(web_route_kind kind, const char *sa, size_t na, const char *sb, size_t nb)
{
    web_route r = {.kind = kind};
    if (web_parse_id(sa, na, &r.a) != 0)
        return (web_route){.kind = WEB_R_BAD_ID, .rest = sa, .rest_len = na};
    if (sb && web_parse_id(sb, nb, &r.b) != 0)
        return (web_route){.kind = WEB_R_BAD_ID, .rest = sb, .rest_len = nb};
    return r;
}

static web_route graph_route(const char *p)
{
    const char *seg;
    size_t n = segment(&p, &seg);
    if (*p)
        return (web_route){.kind = WEB_R_NONE};
    return id_route(WEB_R_GRAPH, seg, n, NULL, 0);
}

static web_route diff_route(const char *p)
{
    const char *sa, *sb;
    size_t na = segment(&p, &sa), nb = segment(&p, &sb);
    if (*p || nb == 0)
        return (web_route){.kind = WEB_R_NONE};
    return id_route(WEB_R_DIFF, sa, na, sb, nb);
}

web_route web_route_parse(const char *path)
{
    if (!path || path[0] != '/')
        return (web_route){.kind = WEB_R_NONE};
    if (strcmp(path, "/") == 0)
        return (web_route){.kind = WEB_R_LOG};
    if (strncmp(path, "/graph/", 7) == 0)
        return graph_route(path + 7);
    if (strncmp(path, "/diff/", 6) == 0)
        return diff_route(path + 6);
    if (strncmp(path, "/assets/", 8) == 0 && path[8] && !strchr(path + 8, '/'))
        return (web_route){.kind = WEB_R_ASSET, .rest = path + 8, .rest_len = strlen(path + 8)};
    if (strncmp(path, "/api/", 5) == 0)
        return (web_route){.kind = WEB_R_API, .rest = path + 5, .rest_len = strlen(path + 5)};
    return (web_route){.kind = WEB_R_NONE};
}
