/*
 * cli_list.c - the paged listings, graphs and log: one lister reads the
 * options, fetches a page and prints it as a table or JSON; each listing
 * only says what its rows hold.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <cjson/cJSON.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* One page of either listing, with what the lister reads of both. */
typedef struct list_page {
    size_t count;
    const char *next; /* the cursor of the next page (JSON text), or NULL */
    union {
        sc_client_graph_page graphs;
        sc_client_log_page log;
    } u;
} list_page;

/* A listing: its words, its columns, and how to fetch and render a page. */
typedef struct lister {
    const char *cmd;         /* the command, for the "more:" line */
    const char *what;        /* what the rows are, for an empty page */
    const char *filter_name; /* its filter option */
    const char *filtered;    /* an empty filtered page: "no WHAT <filtered> VALUE" */
    const char *empty;       /* an empty page, nothing asked for */
    const char *json_key;    /* the member holding the rows */
    size_t ncols;
    const char *const *head;
    int (*fetch)(sc_client *c, const sc_client_list_opts *o, list_page *p);
    void (*row)(cli_table *t, const list_page *p, size_t i);
    void (*json_row)(sc_buf *b, const list_page *p, size_t i);
    void (*below)(const list_page *p, FILE *f); /* NULL, or lines under the table */
    void (*free)(list_page *p);
} lister;

/* --limit, --before, --host and a filter option shared by graphs and log. */
static int list_opts(cli *x, int argc, char **argv, const char *filter_name, sc_client_list_opts *o)
{
    for (int i = 0; i < argc;) {
        const char *v = NULL;
        int r;
        if ((r = cli_take_opt(argc, argv, &i, "--limit", &v)) != 0) {
            uint64_t n;
            if (r < 0 || cli_parse_uint(v, 1, 10000, &n) != 0)
                return cli_usage_fail(x, "--limit takes a number from 1 to 10000");
            o->limit = (uint32_t)n;
        } else if ((r = cli_take_opt(argc, argv, &i, "--before", &v)) != 0) {
            if (r < 0)
                return cli_usage_fail(x, "--before takes a cursor");
            o->before = v;
        } else if ((r = cli_take_opt(argc, argv, &i, filter_name, &v)) != 0) {
            if (r < 0)
                return cli_usage_fail(x, "%s takes a value", filter_name);
            o->filter = v;
        } else if ((r = cli_take_opt(argc, argv, &i, "--host", &v)) != 0) {
            if (r < 0 || !*v)
                return cli_usage_fail(x, "--host takes a host name");
            o->host = v;
        } else {
            return cli_usage_fail(x, "unexpected argument '%s'", argv[i]);
        }
    }
    return CLI_OK;
}

/* A cursor typed on the command line: JSON as printed, or a bare word. */
static char *cursor_arg(const char *s)
{
    cJSON *v = cJSON_Parse(s);
    if (v) {
        cJSON_Delete(v);
        return strdup(s);
    }
    sc_buf b = SC_BUF_INIT;
    sc_json_cstr(&b, s);
    return sc_buf_detach(&b, NULL);
}

/* A cursor that is a plain JSON string of shell-safe characters prints
 * bare (cursor_arg takes it back as a bare word); anything else quoted. */
static bool bare_cursor(const char *next)
{
    size_t n = strlen(next);
    if (n < 3 || next[0] != '"' || next[n - 1] != '"')
        return false;
    for (size_t i = 1; i + 1 < n; i++) {
        unsigned char ch = (unsigned char)next[i];
        if (!isalnum(ch) && !strchr("._:-", ch))
            return false;
    }
    /* A bare word that reads as JSON (a number, true) would change type. */
    cJSON *v = cJSON_ParseWithLength(next + 1, n - 2);
    bool json = v != NULL;
    cJSON_Delete(v);
    return !json;
}

/* A word for a shell command line: as it is when that is safe, else in
 * single quotes. */
static void put_shell_word(FILE *f, const char *s, size_t n)
{
    bool plain = n > 0;
    for (size_t i = 0; i < n && plain; i++)
        plain = isalnum((unsigned char)s[i]) || strchr("._:/,@%+=-", s[i]);
    if (plain) {
        fprintf(f, "%.*s", (int)n, s);
        return;
    }
    fputc('\'', f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'')
            fputs("'\\''", f);
        else
            fputc(s[i], f);
    }
    fputc('\'', f);
}

/* The command that fetches the next page, with the options of this one:
 * on standard error, so that standard output stays the listing. */
static void print_next(const lister *l, const char *next, const sc_client_list_opts *o)
{
    if (!next)
        return;
    fprintf(stderr, "more: streamcap %s", l->cmd);
    if (o->filter) {
        fprintf(stderr, " %s ", l->filter_name);
        char *v = cli_printable(o->filter);
        put_shell_word(stderr, v ? v : "", v ? strlen(v) : 0);
        free(v);
    }
    if (o->host) {
        fputs(" --host ", stderr);
        char *v = cli_printable(o->host);
        put_shell_word(stderr, v ? v : "", v ? strlen(v) : 0);
        free(v);
    }
    if (o->limit)
        fprintf(stderr, " --limit %u", (unsigned)o->limit);
    fputs(" --before ", stderr);
    if (bare_cursor(next))
        put_shell_word(stderr, next + 1, strlen(next) - 2);
    else
        put_shell_word(stderr, next, strlen(next));
    fputc('\n', stderr);
}

/* What an empty page means, in the words of the options that made it. */
static void print_empty(const lister *l, const sc_client_list_opts *o)
{
    char *h = o->host ? cli_printable(o->host) : NULL;
    /* " from host H": every case below may be narrowed to one host. */
    const char *from = h ? " from host " : "";
    const char *host = h ? h : "";
    if (o->filter) {
        char *v = cli_printable(o->filter);
        printf("no %s %s %s%s%s%s\n", l->what, l->filtered, v ? v : "", from, host,
               o->before ? " before that cursor" : "");
        free(v);
    } else if (o->before) {
        printf("no more %s%s%s before that cursor\n", l->what, from, host);
    } else if (h) {
        printf("no %s from host %s\n", l->what, h);
    } else {
        printf("%s\n", l->empty);
    }
    free(h);
}

static void page_json(const lister *l, sc_buf *b, const list_page *p)
{
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_key(b, &first, l->json_key);
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < p->count; i++) {
        if (i)
            sc_buf_putc(b, ',');
        l->json_row(b, p, i);
    }
    sc_buf_putc(b, ']');
    /* The cursor is JSON text already. */
    sc_json_key(b, &first, "next");
    sc_buf_puts(b, p->next ? p->next : "null");
    sc_json_obj_end(b);
}

static void page_text(const lister *l, const list_page *p, const sc_client_list_opts *o)
{
    if (p->count == 0) {
        print_empty(l, o);
        return;
    }
    cli_table t;
    cli_table_init(&t, l->ncols, l->head);
    for (size_t i = 0; i < p->count; i++)
        l->row(&t, p, i);
    cli_table_print(&t, stdout);
    cli_table_free(&t);
    if (l->below)
        l->below(p, stdout);
    print_next(l, p->next, o);
}

/* The whole listing command: options, one page from the daemon, output. */
static int run_lister(cli *x, const lister *l, int argc, char **argv)
{
    sc_client_list_opts o = {0};
    if (list_opts(x, argc, argv, l->filter_name, &o) != CLI_OK || cli_connect(x) != CLI_OK)
        return CLI_ERROR;
    char *before = o.before ? cursor_arg(o.before) : NULL;
    sc_client_list_opts wire = o;
    wire.before = before;
    list_page p = {0};
    int rc = l->fetch(x->c, &wire, &p);
    free(before);
    if (rc != 0)
        return cli_call_fail(x, rc);
    int out = CLI_OK;
    if (x->json) {
        sc_buf b = SC_BUF_INIT;
        page_json(l, &b, &p);
        out = cli_emit_json(x, &b);
    } else {
        page_text(l, &p, &o);
    }
    l->free(&p);
    return out;
}

/* ------------------------------------------------------------ graphs */

static int graphs_fetch(sc_client *c, const sc_client_list_opts *o, list_page *p)
{
    int rc = sc_client_graph_list(c, o, &p->u.graphs);
    if (rc == 0) {
        p->count = p->u.graphs.count;
        p->next = p->u.graphs.next;
    }
    return rc;
}

static void graphs_row(cli_table *t, const list_page *p, size_t i)
{
    const sc_client_graph_summary *g = &p->u.graphs.graphs[i];
    cli_table_cell(t, "%llu", (unsigned long long)g->graph);
    cli_table_cell(t, "%s", g->created_at);
    cli_table_cell(t, "%llu", (unsigned long long)g->node_count);
    cli_table_cell(t, "%llu", (unsigned long long)g->edge_count);
    cli_table_cell(t, "%llu", (unsigned long long)g->stream_count);
    cli_table_cell(t, "%s", g->host && *g->host ? g->host : "-");
    cli_table_cell(t, "uid %u pid %lld", (unsigned)g->owner_uid, (long long)g->owner_pid);
    cli_table_cell(t, "%s", g->label ? g->label : "-");
}

static void graphs_json_row(sc_buf *b, const list_page *p, size_t i)
{
    const sc_client_graph_summary *g = &p->u.graphs.graphs[i];
    bool gf;
    sc_json_obj_begin(b, &gf);
    sc_json_member_u64(b, &gf, "graph", g->graph);
    cli_json_member_str_or_null(b, &gf, "label", g->label);
    sc_json_member_cstr(b, &gf, "created_at", g->created_at);
    sc_json_member_u64(b, &gf, "node_count", g->node_count);
    sc_json_member_u64(b, &gf, "edge_count", g->edge_count);
    sc_json_member_u64(b, &gf, "stream_count", g->stream_count);
    sc_json_member_u64(b, &gf, "owner_uid", g->owner_uid);
    sc_json_member_i64(b, &gf, "owner_pid", g->owner_pid);
    sc_json_member_cstr(b, &gf, "host", g->host ? g->host : "");
    sc_json_obj_end(b);
}

static void graphs_free(list_page *p)
{
    sc_client_graph_page_free(&p->u.graphs);
}

int cli_graphs(cli *x, int argc, char **argv)
{
    static const char *const head[] = {"GRAPH",   "CREATED", "NODES", "EDGES",
                                       "STREAMS", "HOST",    "OWNER", "LABEL"};
    static const lister graphs = {
        .cmd = "graphs",
        .what = "graphs",
        .filter_name = "--label",
        .filtered = "match --label",
        .empty = "no graphs stored",
        .json_key = "graphs",
        .ncols = sizeof(head) / sizeof(head[0]),
        .head = head,
        .fetch = graphs_fetch,
        .row = graphs_row,
        .json_row = graphs_json_row,
        .free = graphs_free,
    };
    return run_lister(x, &graphs, argc, argv);
}

/* --------------------------------------------------------------- log */

static int log_fetch(sc_client *c, const sc_client_list_opts *o, list_page *p)
{
    int rc = sc_client_log_list(c, o, &p->u.log);
    if (rc == 0) {
        p->count = p->u.log.count;
        p->next = p->u.log.next;
    }
    return rc;
}

static void log_row(cli_table *t, const list_page *p, size_t i)
{
    const sc_client_log_entry *e = &p->u.log.entries[i];
    cli_table_cell(t, "%llu", (unsigned long long)e->session);
    cli_table_cell(t, "%s", e->opened_at);
    cli_table_cell(t, "%s", e->ended_at ? e->ended_at : "-");
    cli_table_cell(t, "%s", e->outcome);
    if (e->semantics) {
        /* A cuda-mode session holds many captures, each its own graph. */
        char graphs[96], caps[96];
        cli_log_cuda_graphs(e, graphs, sizeof(graphs));
        cli_log_cuda_captures(e, caps, sizeof(caps));
        cli_table_cell(t, "%llu", (unsigned long long)cli_log_cuda_nodes(e));
        cli_table_cell(t, "%s", graphs);
        cli_table_cell(t, "%s", caps);
    } else {
        cli_table_cell(t, "%llu", (unsigned long long)e->node_count);
        if (e->graph)
            cli_table_cell(t, "%llu", (unsigned long long)e->graph);
        else
            cli_table_cell(t, "-");
        cli_table_cell(t, "-");
    }
    cli_table_cell(t, "%s", e->host && *e->host ? e->host : "-");
    cli_table_cell(t, "uid %u pid %lld", (unsigned)e->owner_uid, (long long)e->owner_pid);
    cli_table_cell(t, "%s", e->label ? e->label : "-");
}

static void log_entry_json(sc_buf *b, const sc_client_log_entry *e)
{
    bool ef;
    sc_json_obj_begin(b, &ef);
    sc_json_member_u64(b, &ef, "session", e->session);
    cli_json_member_str_or_null(b, &ef, "label", e->label);
    sc_json_member_u64(b, &ef, "owner_uid", e->owner_uid);
    sc_json_member_i64(b, &ef, "owner_pid", e->owner_pid);
    sc_json_member_cstr(b, &ef, "host", e->host ? e->host : "");
    sc_json_member_cstr(b, &ef, "opened_at", e->opened_at);
    cli_json_member_str_or_null(b, &ef, "ended_at", e->ended_at);
    sc_json_member_cstr(b, &ef, "outcome", e->outcome);
    sc_json_member_u64(b, &ef, "node_count", e->node_count);
    /* 0: the session stored no graph. */
    sc_json_key(b, &ef, "graph");
    if (e->graph)
        sc_json_u64(b, e->graph);
    else
        sc_buf_puts(b, "null");
    if (e->semantics)
        cli_json_log_captures(b, &ef, e);
    sc_json_obj_end(b);
}

static void log_json_row(sc_buf *b, const list_page *p, size_t i)
{
    log_entry_json(b, &p->u.log.entries[i]);
}

/* Under the table: what broke each failed capture of a cuda-mode session. */
static void log_below(const list_page *p, FILE *f)
{
    for (size_t i = 0; i < p->count; i++)
        cli_print_failed_captures(&p->u.log.entries[i], f);
}

static void log_free(list_page *p)
{
    sc_client_log_page_free(&p->u.log);
}

int cli_log(cli *x, int argc, char **argv)
{
    static const char *const head[] = {"SESSION", "OPENED",   "ENDED", "OUTCOME", "NODES",
                                       "GRAPH",   "CAPTURES", "HOST",  "OWNER",   "LABEL"};
    static const lister log = {
        .cmd = "log",
        .what = "log entries",
        .filter_name = "--outcome",
        .filtered = "with outcome",
        .empty = "the capture log is empty",
        .json_key = "entries",
        .ncols = sizeof(head) / sizeof(head[0]),
        .head = head,
        .fetch = log_fetch,
        .row = log_row,
        .json_row = log_json_row,
        .below = log_below,
        .free = log_free,
    };
    if (cli_flag_opt(&argc, argv, "-f") || cli_flag_opt(&argc, argv, "--follow"))
        return cli_log_follow(x, argc, argv);
    for (int i = 0; i < argc; i++) {
        const char *session = NULL;
        int at = i, r = cli_take_opt(argc, argv, &at, "--session", &session);
        if (r == 0)
            continue;
        if (r < 0 || argc != at - i)
            return cli_usage_fail(x, "--session takes a session id, and no other option");
        return cli_log_session(x, session, log_entry_json);
    }
    return run_lister(x, &log, argc, argv);
}
