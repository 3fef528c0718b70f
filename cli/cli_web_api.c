/*
 * cli_web_api.c - the JSON behind the web view's pages, under /api/: each
 * route is one daemon call (its result passed through as the protocol
 * gives it), on a connection of its own, so that requests served on
 * different threads never share a client handle.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli_web.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "sc_buf.h"
#include "sc_json.h"

/* Daemon pages one filtered log page reads at most, so that a label no
 * row has cannot make one request walk the whole log. */
#define LOG_SCAN_PAGES 20
#define RACES_LIMIT    1000

void web_reply_error(web_reply *out, unsigned status, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    sc_buf b = SC_BUF_INIT;
    sc_buf_printf(&b, "{\"error\":{\"status\":%u,\"message\":", status);
    char *clean = cli_printable(msg);
    sc_json_cstr(&b, clean ? clean : "error");
    free(clean);
    sc_buf_puts(&b, "}}");
    free(out->body);
    out->status = status;
    out->mime = "application/json";
    out->body = sc_buf_detach(&b, &out->len);
}

static void reply_json(web_reply *out, char *text)
{
    out->status = 200;
    out->mime = "application/json";
    out->body = text;
    out->len = text ? strlen(text) : 0;
    if (!text)
        web_reply_error(out, 500, "out of memory");
}

/* The daemon's error as an HTTP status: what the page asked for is not
 * there (404), the request was bad (400), or the daemon failed (502). */
static unsigned http_status(int rc, int code)
{
    if (rc == SC_CLIENT_ENOTFOUND || rc == SC_CLIENT_EPERM)
        return 404;
    if (code == -32602)
        return 400;
    return 502;
}

/* One call: 0 and *result (malloc'd), or -1 with the error reply made. */
static int call(const web_srv *s, const char *method, sc_buf *params, char **result, web_reply *out)
{
    sc_client *c = NULL;
    *result = NULL;
    int rc = sc_client_connect(s->socket, s->timeout_ms, &c);
    if (rc != 0) {
        web_reply_error(out, 502, "cannot reach the daemon at %s: %s", s->socket,
                        c ? sc_client_errmsg(c) : strerror(-rc));
        sc_client_close(c);
        sc_buf_free(params);
        return -1;
    }
    size_t len;
    char *p = sc_buf_failed(params) ? NULL : sc_buf_detach(params, &len);
    rc = p ? sc_client_call_raw(c, method, p, result) : -ENOMEM;
    free(p);
    if (rc != 0)
        web_reply_error(out, http_status(rc, sc_client_errcode(c)), "%s: %s", method,
                        sc_client_errmsg(c));
    sc_client_close(c);
    return rc == 0 ? 0 : -1;
}

static void params_id(sc_buf *b, bool *first, const char *key, uint64_t id)
{
    sc_json_obj_begin(b, first);
    sc_json_member_u64(b, first, key, id);
}

/* A query value as a string member; -1 (reply made) when it is not UTF-8. */
static int param_str(sc_buf *b, bool *first, const char *key, const char *v, web_reply *out)
{
    if (!v || !*v)
        return 0;
    if (!sc_utf8_valid(v, strlen(v))) {
        web_reply_error(out, 400, "'%s' is not UTF-8 text", key);
        return -1;
    }
    sc_json_member_cstr(b, first, key, v);
    return 0;
}

/* A query value as a number in [lo, hi] (absent: dflt); -1 with the reply made. */
static int param_uint(const char *v, uint64_t lo, uint64_t hi, uint64_t dflt, const char *key,
                      uint64_t *n, web_reply *out)
{
    *n = dflt;
    if (!v)
        return 0;
    if (cli_parse_uint(v, lo, hi, n) == 0)
        return 0;
    web_reply_error(out, 400, "'%s' must be a whole number from %llu to %llu", key,
                    (unsigned long long)lo, (unsigned long long)hi);
    return -1;
}

typedef const char *(*get_fn)(void *ctx, const char *name);

/* One log.list page; 0 and *page (parsed), or -1 with the reply made. */
static int log_page(const web_srv *s, get_fn get, void *ctx, const char *before, uint64_t limit,
                    cJSON **page, web_reply *out)
{
    sc_buf b = SC_BUF_INIT;
    bool first;
    sc_json_obj_begin(&b, &first);
    sc_json_member_u64(&b, &first, "limit", limit);
    if (param_str(&b, &first, "before", before, out) != 0 ||
        param_str(&b, &first, "outcome", get(ctx, "outcome"), out) != 0 ||
        param_str(&b, &first, "host", get(ctx, "host"), out) != 0) {
        sc_buf_free(&b);
        return -1;
    }
    sc_json_obj_end(&b);
    char *text;
    if (call(s, "log.list", &b, &text, out) != 0)
        return -1;
    *page = cJSON_Parse(text);
    free(text);
    if (!*page) {
        web_reply_error(out, 502, "log.list: the daemon's reply is not JSON");
        return -1;
    }
    return 0;
}

/* log.list has no label filter: keep the rows of that label from up to
 * LOG_SCAN_PAGES daemon pages, stopping once `limit` are found, so a
 * filtered page may hold more rows than `limit` but never skips one. */
static void api_log(const web_srv *s, get_fn get, void *ctx, web_reply *out)
{
    uint64_t limit;
    if (param_uint(get(ctx, "limit"), 1, 10000, 100, "limit", &limit, out) != 0)
        return;
    const char *label = get(ctx, "label");
    cJSON *page = NULL;
    if (log_page(s, get, ctx, get(ctx, "before"), limit, &page, out) != 0)
        return;
    if (label && *label) {
        cJSON *kept = cJSON_CreateArray();
        for (int pages = 0; kept; pages++) {
            cJSON *e, *entries = cJSON_GetObjectItemCaseSensitive(page, "entries");
            cJSON_ArrayForEach(e, entries)
            {
                const cJSON *l = cJSON_GetObjectItemCaseSensitive(e, "label");
                if (cJSON_IsString(l) && strcmp(l->valuestring, label) == 0)
                    cJSON_AddItemToArray(kept, cJSON_Duplicate(e, true));
            }
            const cJSON *next = cJSON_GetObjectItemCaseSensitive(page, "next");
            if ((uint64_t)cJSON_GetArraySize(kept) >= limit || !cJSON_IsString(next) ||
                pages + 1 >= LOG_SCAN_PAGES)
                break;
            cJSON *more = NULL;
            int rc = log_page(s, get, ctx, next->valuestring, limit, &more, out);
            if (rc != 0) {
                cJSON_Delete(kept);
                cJSON_Delete(page);
                return;
            }
            cJSON_Delete(page);
            page = more;
        }
        cJSON_ReplaceItemInObjectCaseSensitive(page, "entries", kept);
    }
    reply_json(out, cJSON_PrintUnformatted(page));
    cJSON_Delete(page);
}

/* A graph method whose only parameter is the graph. */
static void api_graph_call(const web_srv *s, const char *method, uint64_t id, web_reply *out)
{
    sc_buf b = SC_BUF_INIT;
    bool first;
    params_id(&b, &first, "graph", id);
    if (strcmp(method, "graph.races") == 0)
        sc_json_member_u64(&b, &first, "limit", RACES_LIMIT);
    sc_json_obj_end(&b);
    char *text;
    if (call(s, method, &b, &text, out) == 0)
        reply_json(out, text);
}

static void api_reachable(const web_srv *s, uint64_t id, get_fn get, void *ctx, web_reply *out)
{
    uint64_t from, to;
    if (!get(ctx, "from") || !get(ctx, "to")) {
        web_reply_error(out, 400, "graph.reachable needs 'from' and 'to' node ids");
        return;
    }
    if (param_uint(get(ctx, "from"), 0, UINT32_MAX, 0, "from", &from, out) != 0 ||
        param_uint(get(ctx, "to"), 0, UINT32_MAX, 0, "to", &to, out) != 0)
        return;
    sc_buf b = SC_BUF_INIT;
    bool first;
    params_id(&b, &first, "graph", id);
    sc_json_member_u64(&b, &first, "from", from);
    sc_json_member_u64(&b, &first, "to", to);
    sc_json_obj_end(&b);
    char *text;
    if (call(s, "graph.reachable", &b, &text, out) == 0)
        reply_json(out, text);
}

static void api_diff(const web_srv *s, uint64_t a, uint64_t bid, web_reply *out)
{
    sc_buf b = SC_BUF_INIT;
    bool first;
    params_id(&b, &first, "a", a);
    sc_json_member_u64(&b, &first, "b", bid);
    sc_json_obj_end(&b);
    char *text;
    if (call(s, "graph.diff", &b, &text, out) == 0)
        reply_json(out, text);
}

/* The graph's node count from graph.stats: 0, or -1 with the reply made. */
static int node_count(const web_srv *s, uint64_t id, uint64_t *n, web_reply *out)
{
    sc_buf b = SC_BUF_INIT;
    bool first;
    params_id(&b, &first, "graph", id);
    sc_json_obj_end(&b);
    char *text;
    if (call(s, "graph.stats", &b, &text, out) != 0)
        return -1;
    cJSON *root = cJSON_Parse(text);
    free(text);
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
    int rc = cJSON_IsNumber(nodes) ? 0 : -1;
    *n = rc == 0 ? (uint64_t)nodes->valuedouble : 0;
    cJSON_Delete(root);
    if (rc != 0)
        web_reply_error(out, 502, "graph.stats: the daemon's reply has no node count");
    return rc;
}

unsigned web_graph_check(const web_srv *s, uint64_t id, char *why, size_t len)
{
    web_reply r = {0};
    uint64_t n;
    if (node_count(s, id, &n, &r) == 0)
        return 0;
    const char *m = r.body ? strstr(r.body, "\"message\":\"") : NULL;
    snprintf(why, len, "%s", m ? m + 11 : "error");
    char *q = strrchr(why, '"');
    if (q)
        *q = '\0';
    unsigned st = r.status;
    free(r.body);
    return st;
}

/* The DOT text with an SVG id on every node ("n7") and edge ("e3_7"), so
 * that the page finds them; the export's one-statement lines make this a
 * line-by-line rewrite. */
static char *dot_with_ids(const char *text)
{
    sc_buf b = SC_BUF_INIT;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
        unsigned u, v;
        int at = 0;
        if (sscanf(p, " \"n%u\" -> \"n%u\";%n", &u, &v, &at) == 2 && at > 0) {
            sc_buf_printf(&b, "  \"n%u\" -> \"n%u\" [id=\"e%u_%u\"];\n", u, v, u, v);
        } else if (sscanf(p, " \"n%u\" [label=%n", &u, &at) == 1 && at > 0) {
            sc_buf_printf(&b, "    \"n%u\" [id=\"n%u\", class=\"scnode\", ", u, u);
            sc_buf_append(&b, p + at - 6, len - (size_t)(at - 6));
        } else {
            sc_buf_append(&b, p, len);
        }
        p += len;
    }
    size_t n;
    return sc_buf_failed(&b) ? (sc_buf_free(&b), NULL) : sc_buf_detach(&b, &n);
}

/* Draw DOT text as SVG through the code `graph render` uses. */
static void render_svg(const char *dot, web_reply *out)
{
    char dir[PATH_MAX], path[PATH_MAX + 8], why[512];
    if (cli_tmp_template("streamcap-web", dir, sizeof(dir)) != 0) {
        web_reply_error(out, 500, "TMPDIR is too long: %s", getenv("TMPDIR"));
        return;
    }
    if (!mkdtemp(dir)) {
        web_reply_error(out, 500, "cannot make a temporary directory %s: %s", dir, strerror(errno));
        return;
    }
    snprintf(path, sizeof(path), "%s/g.svg", dir);
    if (cli_dot_run(dot, "svg", path, why, sizeof(why)) != 0) {
        web_reply_error(out, 500, "%s", why);
    } else {
        out->body = cli_read_file(path, &out->len);
        out->status = out->body ? 200 : 500;
        out->mime = "image/svg+xml";
        if (!out->body)
            web_reply_error(out, 500, "cannot read what dot drew");
    }
    unlink(path);
    rmdir(dir);
}

static void api_svg(const web_srv *s, uint64_t id, web_reply *out)
{
    uint64_t n;
    if (node_count(s, id, &n, out) != 0)
        return;
    if (s->draw_max && n > s->draw_max) {
        web_reply_error(out, 413,
                        "graph %llu has %llu nodes, above the drawing limit of %llu "
                        "(streamcap web --max-draw N)",
                        (unsigned long long)id, (unsigned long long)n,
                        (unsigned long long)s->draw_max);
        return;
    }
    if (!cli_have_dot()) {
        web_reply_error(out, 501,
                        "Graphviz 'dot' is not installed (on Debian: apt-get install "
                        "graphviz)");
        return;
    }
    sc_client *c = NULL;
    char *text = NULL;
    int rc = sc_client_connect(s->socket, s->timeout_ms, &c);
    if (rc == 0)
        rc = sc_client_graph_export_dot(c, id, &text);
    if (rc != 0) {
        web_reply_error(out, http_status(rc, c ? sc_client_errcode(c) : 0), "graph.export: %s",
                        c ? sc_client_errmsg(c) : strerror(-rc));
        sc_client_close(c);
        return;
    }
    sc_client_close(c);
    char *dot = dot_with_ids(text);
    free(text);
    if (!dot) {
        web_reply_error(out, 500, "out of memory");
        return;
    }
    render_svg(dot, out);
    free(dot);
}

/* graph/ID[/what]: the graph routes. */
static void api_graph(const web_srv *s, const char *rest, get_fn get, void *ctx, web_reply *out)
{
    const char *slash = strchr(rest, '/');
    size_t n = slash ? (size_t)(slash - rest) : strlen(rest);
    uint64_t id;
    if (web_parse_id(rest, n, &id) != 0) {
        web_reply_error(out, 404, "no such graph: '%.*s' is not a graph id", (int)n, rest);
        return;
    }
    const char *what = slash ? slash + 1 : "";
    if (!*what)
        api_graph_call(s, "graph.get", id, out);
    else if (strcmp(what, "stats") == 0)
        api_graph_call(s, "graph.stats", id, out);
    else if (strcmp(what, "races") == 0)
        api_graph_call(s, "graph.races", id, out);
    else if (strcmp(what, "reachable") == 0)
        api_reachable(s, id, get, ctx, out);
    else if (strcmp(what, "svg") == 0)
        api_svg(s, id, out);
    else
        web_reply_error(out, 404, "no such API route: graph/%llu/%s", (unsigned long long)id, what);
}

static void api_diff_route(const web_srv *s, const char *rest, web_reply *out)
{
    const char *slash = strchr(rest, '/');
    uint64_t a, b;
    if (!slash || web_parse_id(rest, (size_t)(slash - rest), &a) != 0 ||
        web_parse_id(slash + 1, strlen(slash + 1), &b) != 0) {
        web_reply_error(out, 404, "no such diff: '%s' is not two graph ids A/B", rest);
        return;
    }
    api_diff(s, a, b, out);
}

void web_api(const web_srv *s, const char *rest, get_fn get, void *ctx, web_reply *out)
{
    memset(out, 0, sizeof(*out));
    if (strcmp(rest, "log") == 0) {
        api_log(s, get, ctx, out);
    } else if (strcmp(rest, "info") == 0) {
        sc_buf b = SC_BUF_INIT;
        sc_buf_puts(&b, "{}");
        char *text;
        if (call(s, "server.info", &b, &text, out) == 0)
            reply_json(out, text);
    } else if (strncmp(rest, "graph/", 6) == 0) {
        api_graph(s, rest + 6, get, ctx, out);
    } else if (strncmp(rest, "diff/", 5) == 0) {
        api_diff_route(s, rest + 5, out);
    } else {
        web_reply_error(out, 404, "no such API route: %s", rest);
    }
}
