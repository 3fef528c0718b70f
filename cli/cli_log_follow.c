/*
 * cli_log_follow.c - `streamcap log -f`: the daemon's log.event
 * notifications as they come, one line each, until the daemon ends the
 * stream or a signal stops the command.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A string member made printable, or NULL when absent. */
static char *member_text(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) && v->valuestring ? cli_printable(v->valuestring) : NULL;
}

/* " KEY N" for an integer member that is there (and not 0 when skip0). */
static void put_id(sc_buf *b, const cJSON *o, const char *key, bool skip0)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v) || (skip0 && v->valuedouble == 0))
        return;
    sc_buf_printf(b, " %s %.0f", key, v->valuedouble);
}

/* " KEY" for a string member, printable, when it is there. */
static void put_str(sc_buf *b, const cJSON *o, const char *key)
{
    char *s = member_text(o, key);
    if (s)
        sc_buf_printf(b, " %s", s);
    free(s);
}

/* " invalidated by cudaMalloc (cudaErrorStreamCaptureUnsupported)": the
 * CUDA function where the log names it, else the method. */
static void put_broken_by(sc_buf *b, const cJSON *o)
{
    const cJSON *inv = cJSON_GetObjectItemCaseSensitive(o, "invalidated_by");
    if (!cJSON_IsObject(inv))
        return;
    char *call = member_text(inv, "call");
    char *method = member_text(inv, "method");
    char *name = member_text(inv, "cuda_name");
    sc_buf_printf(b, " invalidated by %s", call ? call : method ? method : "?");
    if (name)
        sc_buf_printf(b, " (%s)", name);
    free(call);
    free(method);
    free(name);
}

/* "2026-12-02T14:03:11.123Z host1 capture_ended session 4 capture 2
 * graph 17 completed" */
static void event_line(sc_buf *b, const cJSON *o)
{
    char *at = member_text(o, "at");
    char *host = member_text(o, "host");
    char *event = member_text(o, "event");
    sc_buf_printf(b, "%s %s %s", at ? at : "-", host && *host ? host : "-", event ? event : "?");
    free(at);
    free(host);
    free(event);
    put_id(b, o, "session", true);
    /* A default-mode capture is known by its stream, a cuda one by its id. */
    if (cJSON_GetObjectItemCaseSensitive(o, "capture"))
        put_id(b, o, "capture", false);
    else
        put_id(b, o, "stream", false);
    put_id(b, o, "graph", false);
    put_str(b, o, "outcome");
    put_str(b, o, "cuda_name");
    put_broken_by(b, o);
}

/* One event on stdout, flushed: CLI_OK, or the write failure. */
static int print_event(cli *x, const char *params, const cJSON *o)
{
    sc_buf b = SC_BUF_INIT;
    if (x->json)
        sc_buf_puts(&b, params);
    else
        event_line(&b, o);
    sc_buf_putc(&b, '\n');
    if (sc_buf_failed(&b)) {
        sc_buf_free(&b);
        return cli_fail(x, "out of memory");
    }
    /* One write per event: a signal never leaves half a line. */
    bool ok = fwrite(b.data, 1, b.len, stdout) == b.len && fflush(stdout) == 0;
    sc_buf_free(&b);
    return ok ? CLI_OK : cli_stdout_failed(x);
}

/* The daemon dropped us for reading too slowly: said on stderr, exit 1. */
static int dropped(const cJSON *o)
{
    char *why = member_text(o, "reason");
    fprintf(stderr, "streamcap: the daemon dropped this log subscriber (%s)\n",
            why ? why : "no reason given");
    free(why);
    return CLI_NEGATIVE;
}

/* One notification: CLI_OK to go on, or the command's result. */
static int take(cli *x, const char *params)
{
    cJSON *o = cJSON_Parse(params);
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return cli_fail(x, "malformed log event from the daemon");
    }
    const cJSON *ev = cJSON_GetObjectItemCaseSensitive(o, "event");
    int rc = cJSON_IsString(ev) && strcmp(ev->valuestring, "dropped") == 0
                 ? dropped(o)
                 : print_event(x, params, o);
    cJSON_Delete(o);
    return rc;
}

/* Output is whole lines, flushed after each, so stopping at once loses
 * nothing and exits 0, as the end of the stream does. */
static void on_stop(int sig)
{
    (void)sig;
    _exit(CLI_OK);
}

static void catch_stops(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int cli_log_follow(cli *x, int argc, char **argv)
{
    const char *outcome = NULL, *host = NULL;
    for (int i = 0; i < argc;) {
        const char *v = NULL;
        int r = cli_take_opt(argc, argv, &i, "--outcome", &v);
        if (r > 0) {
            outcome = v;
            continue;
        }
        if (r == 0 && (r = cli_take_opt(argc, argv, &i, "--host", &v)) > 0) {
            host = v;
            continue;
        }
        if (r < 0)
            return cli_usage_fail(x, "%s takes a value", argv[i]);
        return cli_usage_fail(x, "log -f takes --outcome NAME and --host NAME only, not '%s'",
                              argv[i]);
    }
    if (cli_connect(x) != CLI_OK)
        return CLI_ERROR;
    int rc = sc_client_log_subscribe(x->c, outcome, host);
    if (rc != 0)
        return cli_call_fail(x, rc);
    catch_stops();
    for (;;) {
        char *params = NULL;
        rc = sc_client_log_next(x->c, -1, &params);
        if (rc == -ECONNRESET)
            return CLI_OK;
        if (rc != 0)
            return cli_call_fail(x, rc);
        int done = take(x, params);
        free(params);
        if (done != CLI_OK)
            return done;
    }
}
