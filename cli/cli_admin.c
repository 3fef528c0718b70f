/*
 * cli_admin.c - the commands for looking after a daemon rather than
 * capturing: live sessions, bulk deletion, and raw requests.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <cjson/cJSON.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ----------------------------------------------------------- sessions */

static void sessions_json(sc_buf *b, const sc_client_session_list *l)
{
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_key(b, &first, "sessions");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < l->count; i++) {
        const sc_client_session_summary *s = &l->sessions[i];
        bool sf;
        if (i)
            sc_buf_putc(b, ',');
        sc_json_obj_begin(b, &sf);
        sc_json_member_u64(b, &sf, "session", s->session);
        cli_json_member_str_or_null(b, &sf, "label", s->label);
        sc_json_member_u64(b, &sf, "owner_uid", s->owner_uid);
        sc_json_member_i64(b, &sf, "owner_pid", s->owner_pid);
        sc_json_member_cstr(b, &sf, "opened_at", s->opened_at);
        sc_json_member_cstr(b, &sf, "semantics", s->semantics);
        sc_json_member_u64(b, &sf, "node_count", s->node_count);
        sc_json_obj_end(b);
    }
    sc_buf_putc(b, ']');
    sc_json_obj_end(b);
}

int cli_sessions(cli *x, int argc, char **argv)
{
    if (cli_no_args(x, argc, argv) != CLI_OK || cli_connect(x) != CLI_OK)
        return CLI_ERROR;
    sc_client_session_list l;
    int rc = sc_client_list_sessions(x->c, &l);
    if (rc != 0)
        return cli_call_fail(x, rc);
    int out = CLI_OK;
    if (x->json) {
        sc_buf b = SC_BUF_INIT;
        sessions_json(&b, &l);
        out = cli_emit_json(x, &b);
    } else if (l.count == 0) {
        printf("no live sessions\n");
    } else {
        static const char *const head[] = {"SESSION", "OPENED",    "NODES",
                                           "OWNER",   "SEMANTICS", "LABEL"};
        cli_table t;
        cli_table_init(&t, 6, head);
        for (size_t i = 0; i < l.count; i++) {
            const sc_client_session_summary *s = &l.sessions[i];
            cli_table_cell(&t, "%llu", (unsigned long long)s->session);
            cli_table_cell(&t, "%s", s->opened_at);
            cli_table_cell(&t, "%llu", (unsigned long long)s->node_count);
            cli_table_cell(&t, "uid %u pid %lld", (unsigned)s->owner_uid, (long long)s->owner_pid);
            cli_table_cell(&t, "%s", s->semantics);
            cli_table_cell(&t, "%s", s->label ? s->label : "-");
        }
        cli_table_print(&t, stdout);
        cli_table_free(&t);
    }
    sc_client_session_list_free(&l);
    return out;
}

int cli_session_close(cli *x, int argc, char **argv)
{
    uint64_t id;
    if (argc < 1)
        return cli_usage_fail(x, "missing argument");
    if (argc > 1)
        return cli_usage_fail(x, "unexpected argument '%s'", argv[1]);
    if (cli_parse_id(argv[0], &id) != 0)
        return cli_usage_fail(x, "'%s' is not a session id (a positive integer)", argv[0]);
    if (cli_connect(x) != CLI_OK)
        return CLI_ERROR;
    int rc = sc_client_close_session(x->c, id);
    if (rc != 0)
        return cli_call_fail(x, rc);
    return cli_report_done(x, "session", id, "closed");
}

/* --------------------------------------------------------------- call */

int cli_call(cli *x, int argc, char **argv)
{
    if (argc < 1)
        return cli_usage_fail(x, "missing METHOD");
    if (argc > 2)
        return cli_usage_fail(x, "unexpected argument '%s' (PARAMS is one JSON argument: quote it)",
                              argv[2]);
    const char *params = argc > 1 ? argv[1] : "{}";
    cJSON *v = cJSON_ParseWithOpts(params, NULL, 1);
    cJSON_Delete(v);
    if (!v)
        return cli_usage_fail(x, "PARAMS is not valid JSON: %s", params);
    if (cli_connect(x) != CLI_OK)
        return CLI_ERROR;
    char *result;
    int rc = sc_client_call_raw(x->c, argv[0], params, &result);
    if (rc != 0) {
        int code = sc_client_errcode(x->c);
        if (code == 0)
            return cli_call_fail(x, rc);
        return cli_fail_code(x, code, "error %d: %s", code, sc_client_errmsg(x->c));
    }
    /* The result is JSON already, --json or not. */
    sc_buf b = SC_BUF_INIT;
    sc_buf_puts(&b, result);
    free(result);
    return cli_emit_json(x, &b);
}

/* -------------------------------------------------------------- prune */

typedef struct prune_opts {
    const char *label;
    uint64_t before; /* 0: any id */
    bool older;
    const char *older_text; /* --older-than as given */
    char cutoff[32];        /* created_at strictly below this, when `older` */
    bool dry_run;
    /* What only the daemon selects by (store.prune). */
    const char *keep, *max_db_size, *log_older_than;
} prune_opts;

/* "30s", "15m", "2h", "7d" -> seconds.  0 or -1. */
static int parse_duration(const char *s, uint64_t *secs)
{
    size_t n = s ? strlen(s) : 0;
    if (n < 2)
        return -1;
    uint64_t mult;
    switch (s[n - 1]) {
    case 's':
        mult = 1;
        break;
    case 'm':
        mult = 60;
        break;
    case 'h':
        mult = 3600;
        break;
    case 'd':
        mult = 86400;
        break;
    default:
        return -1;
    }
    char num[32];
    if (n - 1 >= sizeof(num))
        return -1;
    memcpy(num, s, n - 1);
    num[n - 1] = '\0';
    uint64_t v;
    /* At most a hundred years: the cutoff must stay a real date. */
    if (cli_parse_uint(num, 0, 36500ULL * 86400 / mult, &v) != 0)
        return -1;
    *secs = v * mult;
    return 0;
}

/* Now minus `secs`, in the daemon's created_at form, which sorts as text. */
static void format_cutoff(uint64_t secs, char out[32])
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    time_t t = ts.tv_sec - (time_t)secs;
    struct tm tm;
    char day[24] = "1970-01-01T00:00:00";
    if (gmtime_r(&t, &tm))
        strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, 32, "%.19s.%03dZ", day, (int)(ts.tv_nsec / 1000000));
}

static int prune_args(cli *x, int argc, char **argv, prune_opts *p)
{
    for (int i = 0; i < argc;) {
        const char *v = NULL;
        int r;
        if (strcmp(argv[i], "--dry-run") == 0) {
            p->dry_run = true;
            i++;
        } else if ((r = cli_take_opt(argc, argv, &i, "--label", &v)) != 0) {
            if (r < 0)
                return cli_usage_fail(x, "--label takes a value");
            p->label = v;
        } else if ((r = cli_take_opt(argc, argv, &i, "--before", &v)) != 0) {
            if (r < 0 || cli_parse_id(v, &p->before) != 0)
                return cli_usage_fail(x, "--before takes a graph id");
        } else if ((r = cli_take_opt(argc, argv, &i, "--older-than", &v)) != 0) {
            uint64_t secs;
            if (r < 0 || parse_duration(v, &secs) != 0)
                return cli_usage_fail(x, "--older-than takes a duration such as 30s, 15m, 2h "
                                         "or 7d");
            format_cutoff(secs, p->cutoff);
            p->older = true;
            p->older_text = v;
        } else if ((r = cli_prune_daemon_opt(x, argc, argv, &i, &p->keep, &p->max_db_size,
                                             &p->log_older_than)) != 0) {
            if (r < 0)
                return CLI_ERROR;
        } else {
            return cli_usage_fail(x, "unexpected argument '%s'", argv[i]);
        }
    }
    if ((p->label || p->before) && (p->keep || p->max_db_size || p->log_older_than))
        return cli_usage_fail(x, "--keep, --max-db-size and --log-older-than are the daemon's "
                                 "selection: not with --label or --before");
    return CLI_OK;
}

typedef struct id_list {
    uint64_t *v;
    size_t n, cap;
} id_list;

static int id_push(id_list *l, uint64_t id)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 256;
        uint64_t *v = realloc(l->v, cap * sizeof(*v));
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = id;
    return 0;
}

static bool prune_match(const prune_opts *p, const sc_client_graph_summary *g)
{
    /* A pinned graph is kept, as the daemon's own prune keeps it. */
    if (g->pinned || (p->before && g->graph >= p->before))
        return false;
    return !p->older || strcmp(g->created_at, p->cutoff) < 0;
}

/* Every matching id, all pages read before anything is deleted so that the
 * deletions cannot move the cursor under the listing. */
static int prune_collect(cli *x, const prune_opts *p, id_list *ids)
{
    sc_client_list_opts o = {.limit = 1000, .filter = p->label};
    char *cursor = NULL;
    for (;;) {
        sc_client_graph_page pg;
        o.before = cursor;
        int rc = sc_client_graph_list(x->c, &o, &pg);
        free(cursor);
        cursor = NULL;
        if (rc != 0)
            return cli_call_fail(x, rc);
        for (size_t i = 0; i < pg.count; i++) {
            if (prune_match(p, &pg.graphs[i]) && id_push(ids, pg.graphs[i].graph) != 0) {
                sc_client_graph_page_free(&pg);
                return cli_fail(x, "out of memory");
            }
        }
        cursor = pg.next;
        pg.next = NULL;
        sc_client_graph_page_free(&pg);
        if (!cursor)
            return CLI_OK;
    }
}

/* Deleted: *deleted counts them; a graph gone meanwhile is not a failure. */
static int prune_delete(cli *x, const id_list *ids, size_t *deleted)
{
    int st = CLI_OK;
    for (size_t i = 0; i < ids->n; i++) {
        int rc = sc_client_graph_delete(x->c, ids->v[i]);
        if (rc == 0) {
            (*deleted)++;
        } else if (rc != SC_CLIENT_ENOTFOUND) {
            const char *msg = sc_client_errmsg(x->c);
            fprintf(stderr, "streamcap: %s\n", msg && *msg ? msg : sc_client_strerror(rc));
            st = CLI_ERROR;
            if (sc_client_errcode(x->c) == 0)
                break; /* the connection is gone */
        }
    }
    return st;
}

int cli_prune(cli *x, int argc, char **argv)
{
    prune_opts p = {0};
    if (prune_args(x, argc, argv, &p) != CLI_OK || cli_connect(x) != CLI_OK)
        return CLI_ERROR;
    /* Without a selection only the client makes, the daemon selects. */
    if (!p.label && !p.before)
        return cli_prune_daemon(x, p.dry_run, p.older_text, p.keep, p.max_db_size,
                                p.log_older_than);
    id_list ids = {0};
    int st = prune_collect(x, &p, &ids);
    if (st != CLI_OK) {
        free(ids.v);
        return st;
    }
    size_t deleted = 0;
    if (!p.dry_run)
        st = prune_delete(x, &ids, &deleted);
    size_t n = p.dry_run ? ids.n : deleted;
    int out = CLI_OK;
    if (x->json) {
        sc_buf b = SC_BUF_INIT;
        bool first;
        sc_json_obj_begin(&b, &first);
        sc_json_member_bool(&b, &first, "dry_run", p.dry_run);
        sc_json_member_u64(&b, &first, p.dry_run ? "would_delete" : "deleted", n);
        if (p.dry_run) {
            sc_json_key(&b, &first, "graphs");
            sc_buf_putc(&b, '[');
            for (size_t i = 0; i < ids.n; i++) {
                if (i)
                    sc_buf_putc(&b, ',');
                sc_json_u64(&b, ids.v[i]);
            }
            sc_buf_putc(&b, ']');
        }
        sc_json_obj_end(&b);
        out = cli_emit_json(x, &b);
    } else if (p.dry_run) {
        for (size_t i = 0; i < ids.n; i++)
            printf("would delete graph %llu\n", (unsigned long long)ids.v[i]);
        printf("would delete %zu graph%s\n", n, n == 1 ? "" : "s");
    } else {
        printf("deleted %zu graph%s\n", n, n == 1 ? "" : "s");
    }
    free(ids.v);
    return out != CLI_OK ? out : st;
}
