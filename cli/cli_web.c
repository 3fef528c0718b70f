/*
 * cli_web.c - `streamcap web`: its options, then the server
 * (cli_web_http.c), or, in a build without libmicrohttpd, a message
 * saying how to get one.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"
#include "cli_web.h"

#include <stdlib.h>
#include <string.h>

#define WEB_DEFAULT_LISTEN "127.0.0.1:0"

#ifdef SC_HAVE_MHD
static int serve(cli *x, const char *listen, bool open, uint64_t draw_max)
{
    struct sockaddr_storage ss;
    socklen_t sslen;
    char why[256];
    if (web_parse_listen(listen, &ss, &sslen, why, sizeof(why)) != 0)
        return cli_usage_fail(x, "%s", why);
    if (!web_is_loopback(&ss))
        fprintf(stderr,
                "streamcap: web: warning: %s is not a loopback address; anyone who can "
                "reach it and learns the token sees what you see\n",
                listen);
    web_srv s = {.socket = x->socket,
                 .timeout_ms = x->timeout_ms,
                 .draw_max = draw_max,
                 .loopback = web_is_loopback(&ss)};
    if (web_token_new(s.token) != 0)
        return cli_fail(x, "cannot make a random token");
    if (!(s.hub = web_hub_new(x->socket, x->timeout_ms)))
        return cli_fail(x, "out of memory");
    int rc = web_serve(&s, &ss, sslen, open);
    web_hub_free(s.hub);
    return rc == 0 ? CLI_OK : CLI_ERROR;
}
#else
static int serve(cli *x, const char *listen, bool open, uint64_t draw_max)
{
    (void)listen;
    (void)open;
    (void)draw_max;
    return cli_fail(x, "this streamcap was built without libmicrohttpd, so it has no web view "
                       "(on Debian: apt-get install libmicrohttpd-dev, then rebuild)");
}
#endif

int cli_web(cli *x, int argc, char **argv)
{
    const char *listen = WEB_DEFAULT_LISTEN;
    uint64_t draw_max = WEB_DRAW_MAX_DEFAULT;
    bool open = cli_flag_opt(&argc, argv, "--open");
    if (cli_uint_opt(x, &argc, argv, "--max-draw", UINT32_MAX,
                     "--max-draw takes a number of nodes (0: no limit)", &draw_max) != CLI_OK)
        return CLI_ERROR;
    for (int i = 0; i < argc;) {
        int r = cli_take_opt(argc, argv, &i, "--listen", &listen);
        if (r < 0)
            return cli_usage_fail(x, "--listen takes ADDR:PORT");
        if (r == 0)
            return cli_usage_fail(x, "unexpected argument '%s'", argv[i]);
    }
    return serve(x, listen, open, draw_max);
}
