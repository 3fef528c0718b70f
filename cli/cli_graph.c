/*
 * cli_graph.c - the graph subcommands and the fork/join demo.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* How many levels of body graphs show and render follow by default. */
#define BODY_DEPTH 4

static int depth_opt(cli *x, int *argc, char **argv, uint64_t *depth)
{
    return cli_uint_opt(x, argc, argv, "--depth", 64, "--depth takes a number of levels, 0 to 64",
                        depth);
}

int cli_graph_show(cli *x, int argc, char **argv)
{
    uint64_t id, depth = BODY_DEPTH;
    if (depth_opt(x, &argc, argv, &depth) != CLI_OK ||
        cli_graph_id_args(x, argc, argv, 1, &id) != CLI_OK || cli_connect(x) != CLI_OK)
        return CLI_ERROR;
    sc_client_graph g;
    int rc = sc_client_graph_get(x->c, id, &g);
    if (rc != 0)
        return cli_call_fail(x, rc);
    int out = CLI_OK;
    if (x->json) {
        sc_buf b = SC_BUF_INIT;
        bool first;
        sc_json_obj_begin(&b, &first);
        cli_json_graph_members(&b, &first, &g);
        sc_json_obj_end(&b);
        out = cli_emit_json(x, &b);
    } else {
        cli_print_graph(&g, stdout);
        out = cli_show_bodies(x, &g, (unsigned)depth, stdout);
    }
    sc_client_graph_free(&g);
    return out;
}

int cli_graph_dot(cli *x, int argc, char **argv)
{
    uint64_t id;
    if (cli_graph_id_args(x, argc, argv, 1, &id) != CLI_OK || cli_connect(x) != CLI_OK)
        return CLI_ERROR;
    char *text;
    int rc = sc_client_graph_export_dot(x->c, id, &text);
    if (rc != 0)
        return cli_call_fail(x, rc);
    int out = CLI_OK;
    if (x->json) {
        sc_buf b = SC_BUF_INIT;
        bool first;
        sc_json_obj_begin(&b, &first);
        sc_json_member_u64(&b, &first, "graph", id);
        sc_json_member_cstr(&b, &first, "format", "dot");
        sc_json_member_cstr(&b, &first, "text", text);
        sc_json_obj_end(&b);
        out = cli_emit_json(x, &b);
    } else {
        size_t n = strlen(text);
        fputs(text, stdout);
        if (n == 0 || text[n - 1] != '\n')
            fputc('\n', stdout);
        if (fflush(stdout) != 0)
            out = cli_stdout_failed(x);
    }
    free(text);
    return out;
}

/* Feed `text` to `dot -T<fmt> -o out`; CLI_OK or an error already reported. */
static int run_dot(cli *x, const char *text, const char *fmt, const char *out)
{
    char why[512];
    return cli_dot_run(text, fmt, out, why, sizeof(why)) == 0 ? CLI_OK : cli_fail(x, "%s", why);
}

static const char *render_format(const char *out)
{
    const char *dot = strrchr(out, '.');
    if (!dot || strchr(dot, '/'))
        return NULL;
    if (strcasecmp(dot, ".svg") == 0)
        return "svg";
    if (strcasecmp(dot, ".png") == 0)
        return "png";
    return NULL;
}

/* Graphviz's dot lays out a few thousand nodes in seconds; far beyond,
 * it runs for hours or exhausts memory. */
#define RENDER_MAX_NODES 5000

static int render_opts(cli *x, int *argc, char **argv, uint64_t *max_nodes)
{
    return cli_uint_opt(x, argc, argv, "--max-nodes", UINT32_MAX,
                        "--max-nodes takes a number (0: no limit)", max_nodes);
}

/* Refuse what dot cannot draw, before it is asked to. */
static int check_render_size(cli *x, uint64_t id, uint64_t max_nodes)
{
    if (max_nodes == 0)
        return CLI_OK;
    sc_client_graph g;
    int rc = sc_client_graph_get(x->c, id, &g);
    if (rc != 0)
        return cli_call_fail(x, rc);
    size_t n = g.node_count;
    sc_client_graph_free(&g);
    if (n <= max_nodes)
        return CLI_OK;
    return cli_fail(x,
                    "graph %llu has %zu nodes; Graphviz cannot draw that many (the limit is %llu: "
                    "use --max-nodes N to try anyway, or 'streamcap graph dot %llu' to export it)",
                    (unsigned long long)id, n, (unsigned long long)max_nodes,
                    (unsigned long long)id);
}

int cli_graph_render(cli *x, int argc, char **argv)
{
    uint64_t id, max_nodes = RENDER_MAX_NODES, depth = BODY_DEPTH;
    bool races = cli_flag_opt(&argc, argv, "--races");
    if (render_opts(x, &argc, argv, &max_nodes) != CLI_OK ||
        depth_opt(x, &argc, argv, &depth) != CLI_OK ||
        cli_graph_id_args(x, argc, argv, 2, &id) != CLI_OK)
        return CLI_ERROR;
    const char *out = argv[1];
    const char *fmt = render_format(out);
    if (!fmt)
        return cli_usage_fail(x, "'%s' must end in .svg or .png", out);
    if (cli_connect(x) != CLI_OK)
        return CLI_ERROR;
    if (!cli_have_dot())
        return cli_fail(x,
                        "cannot render: Graphviz 'dot' is not installed (on Debian: apt-get "
                        "install graphviz); 'streamcap graph dot %llu' prints the DOT text",
                        (unsigned long long)id);
    if (check_render_size(x, id, max_nodes) != CLI_OK)
        return CLI_ERROR;
    char *text;
    if (cli_dot_with_bodies(x, id, (unsigned)depth, &text) != CLI_OK)
        return CLI_ERROR;
    if (races && cli_dot_add_races(x, id, &text) != CLI_OK) {
        free(text);
        return CLI_ERROR;
    }
    int st = run_dot(x, text, fmt, out);
    free(text);
    if (st != CLI_OK)
        return st;
    struct stat sb;
    long long size = stat(out, &sb) == 0 ? (long long)sb.st_size : -1;
    if (x->json) {
        sc_buf b = SC_BUF_INIT;
        bool first;
        sc_json_obj_begin(&b, &first);
        sc_json_member_u64(&b, &first, "graph", id);
        sc_json_member_cstr(&b, &first, "output", out);
        sc_json_member_cstr(&b, &first, "format", fmt);
        sc_json_member_i64(&b, &first, "bytes", size);
        sc_json_obj_end(&b);
        return cli_emit_json(x, &b);
    }
    printf("wrote %s (%s, %lld bytes)\n", out, fmt, size);
    return CLI_OK;
}

int cli_graph_reach(cli *x, int argc, char **argv)
{
    uint64_t id;
    uint32_t a, b;
    if (cli_graph_id_args(x, argc, argv, 3, &id) != CLI_OK)
        return CLI_ERROR;
    if (cli_parse_node(argv[1], &a) != 0 || cli_parse_node(argv[2], &b) != 0)
        return cli_usage_fail(x, "A and B are node ids such as 3 or N3");
    if (cli_connect(x) != CLI_OK)
        return CLI_ERROR;
    bool r;
    int rc = sc_client_graph_reachable(x->c, id, a, b, &r);
    if (rc != 0)
        return cli_call_fail(x, rc);
    int out = CLI_OK;
    if (x->json) {
        sc_buf buf = SC_BUF_INIT;
        bool first;
        sc_json_obj_begin(&buf, &first);
        sc_json_member_u64(&buf, &first, "graph", id);
        sc_json_member_u64(&buf, &first, "from", a);
        sc_json_member_u64(&buf, &first, "to", b);
        sc_json_member_bool(&buf, &first, "reachable", r);
        sc_json_obj_end(&buf);
        out = cli_emit_json(x, &buf);
    } else {
        printf("N%u -> N%u: %s\n", (unsigned)a, (unsigned)b, r ? "reachable" : "not reachable");
    }
    if (out != CLI_OK)
        return out;
    return r ? CLI_OK : CLI_NEGATIVE;
}

/* One id: the reply's own words and shape, as before several were taken. */
static int rm_one(cli *x, uint64_t id)
{
    int rc = sc_client_graph_delete(x->c, id);
    if (rc != 0)
        return cli_call_fail(x, rc);
    return cli_report_done(x, "graph", id, "deleted");
}

/* Several: every failure said on stderr, the rest still deleted. */
static int rm_many(cli *x, const uint64_t *ids, int n)
{
    sc_buf done = SC_BUF_INIT, failed = SC_BUF_INIT;
    int nfailed = 0, ndone = 0;
    for (int i = 0; i < n; i++) {
        int rc = sc_client_graph_delete(x->c, ids[i]);
        if (rc == 0) {
            sc_buf_puts(&done, ndone++ ? "," : "");
            sc_json_u64(&done, ids[i]);
            if (!x->json)
                printf("deleted graph %llu\n", (unsigned long long)ids[i]);
            continue;
        }
        const char *msg = sc_client_errmsg(x->c);
        if (!msg || !*msg)
            msg = sc_client_strerror(rc);
        fprintf(stderr, "streamcap: %s\n", msg);
        bool ef;
        sc_buf_puts(&failed, nfailed++ ? "," : "");
        sc_json_obj_begin(&failed, &ef);
        sc_json_member_u64(&failed, &ef, "graph", ids[i]);
        sc_json_member_i64(&failed, &ef, "code", sc_client_errcode(x->c));
        sc_json_member_cstr(&failed, &ef, "message", msg);
        sc_json_obj_end(&failed);
        if (sc_client_errcode(x->c) == 0)
            break; /* the connection is gone: the rest would fail the same way */
    }
    int out = CLI_OK;
    if (x->json) {
        sc_buf b = SC_BUF_INIT;
        bool first;
        sc_json_obj_begin(&b, &first);
        sc_json_key(&b, &first, "deleted");
        sc_buf_printf(&b, "[%.*s]", (int)done.len, done.data ? done.data : "");
        sc_json_key(&b, &first, "failed");
        sc_buf_printf(&b, "[%.*s]", (int)failed.len, failed.data ? failed.data : "");
        sc_json_obj_end(&b);
        out = cli_emit_json(x, &b);
    }
    sc_buf_free(&done);
    sc_buf_free(&failed);
    if (out != CLI_OK)
        return out;
    return nfailed ? CLI_ERROR : CLI_OK;
}

int cli_graph_rm(cli *x, int argc, char **argv)
{
    if (argc < 1)
        return cli_usage_fail(x, "missing argument");
    uint64_t *ids = calloc((size_t)argc, sizeof(*ids));
    if (!ids)
        return cli_fail(x, "out of memory");
    /* Every id is checked before anything is deleted. */
    for (int i = 0; i < argc; i++) {
        if (cli_parse_id(argv[i], &ids[i]) != 0) {
            free(ids);
            return cli_usage_fail(x, "'%s' is not a graph id (a positive integer)", argv[i]);
        }
    }
    int st = cli_connect(x);
    if (st == CLI_OK)
        st = argc == 1 ? rm_one(x, ids[0]) : rm_many(x, ids, argc);
    free(ids);
    return st;
}

/* ---------------------------------------------------------------- demo */

typedef struct demo_run {
    bool cuda; /* --semantics cuda */
    uint64_t session;
    uint32_t up, k, dn;
    sc_client_captured cap;
    uint64_t capture; /* cuda: the capture's id in the session */
} demo_run;

/* The seed example of the StreamCapture API, call for call. */
static int demo_capture(sc_client *c, demo_run *d)
{
    const uint32_t main_s = 0, side = 1, ev = 0, ev2 = 1;
    int rc = sc_client_open_session(c, "demo: fork/join", &d->session);
    if (rc != 0)
        return rc;
    if ((rc = sc_client_begin_capture(c, d->session, main_s)) != 0 ||
        (rc = sc_client_begin_capture(c, d->session, side)) != 0 ||
        (rc = sc_client_record_memcpy(c, d->session, main_s, "upload", SC_CLIENT_HOST_TO_DEVICE,
                                      4096, &d->up)) != 0 ||
        /* fork: the side stream waits for an event recorded on main */
        (rc = sc_client_record_event(c, d->session, main_s, ev)) != 0 ||
        (rc = sc_client_wait_event(c, d->session, side, ev)) != 0 ||
        (rc = sc_client_record_kernel(c, d->session, side, "relu", 4, 256, 0, &d->k)) != 0 ||
        /* join back into main */
        (rc = sc_client_record_event(c, d->session, side, ev2)) != 0 ||
        (rc = sc_client_wait_event(c, d->session, main_s, ev2)) != 0 ||
        (rc = sc_client_record_memcpy(c, d->session, main_s, "download", SC_CLIENT_DEVICE_TO_HOST,
                                      4096, &d->dn)) != 0)
        return rc;
    return sc_client_end_capture(c, d->session, main_s, &d->cap);
}

/* The same program as CUDA runs it: the capture begins on its origin
 * stream only, the side stream joins it by waiting on an event recorded
 * there, joins back the same way, and the end is on the origin.  The
 * session outlives the capture, so it is closed afterwards. */
static int demo_capture_cuda(sc_client *c, demo_run *d)
{
    const uint32_t origin = 1, side = 2, ev = 0, ev2 = 1;
    const uint32_t grid[3] = {4, 1, 1}, block[3] = {256, 1, 1};
    int rc = sc_client_open_session_ex(c, "demo: fork/join (cuda)", SC_CLIENT_SEMANTICS_CUDA,
                                       &d->session);
    if (rc != 0)
        return rc;
    int64_t k = -1;
    sc_client_cuda_captured cap = {0};
    if ((rc = sc_client_cuda_begin(c, d->session, origin, 0, SC_CLIENT_MODE_GLOBAL, &d->capture)) !=
            0 ||
        (rc = sc_client_record_memcpy(c, d->session, origin, "upload", SC_CLIENT_HOST_TO_DEVICE,
                                      4096, &d->up)) != 0 ||
        /* fork: cudaEventRecord on the origin, cudaStreamWaitEvent on the side */
        (rc = sc_client_cuda_event(c, d->session, origin, 0, ev, false)) != 0 ||
        (rc = sc_client_cuda_event(c, d->session, side, 0, ev, true)) != 0 ||
        (rc = sc_client_cuda_record_kernel(c, d->session, side, 0, "relu", grid, block, 0, &k)) !=
            0 ||
        /* join: without it the end would fail with cudaErrorStreamCaptureUnjoined */
        (rc = sc_client_cuda_event(c, d->session, side, 0, ev2, false)) != 0 ||
        (rc = sc_client_cuda_event(c, d->session, origin, 0, ev2, true)) != 0 ||
        (rc = sc_client_record_memcpy(c, d->session, origin, "download", SC_CLIENT_DEVICE_TO_HOST,
                                      4096, &d->dn)) != 0 ||
        (rc = sc_client_cuda_end(c, d->session, origin, 0, &cap)) != 0) {
        sc_client_close_session(c, d->session);
        return rc;
    }
    d->k = (uint32_t)k;
    d->cap = (sc_client_captured){cap.graph, cap.node_count, cap.edge_count};
    d->capture = cap.capture;
    return sc_client_close_session(c, d->session);
}

int cli_demo(cli *x, int argc, char **argv)
{
    demo_run d = {0};
    for (int i = 0; i < argc; i++) {
        int k = i;
        const char *v = NULL;
        int got = cli_take_opt(argc, argv, &k, "--semantics", &v);
        if (got < 0 || (got > 0 && strcmp(v, "cuda") != 0 && strcmp(v, "oxicuda") != 0))
            return cli_usage_fail(x, "--semantics takes oxicuda (the default) or cuda");
        if (got == 0)
            return cli_usage_fail(x, "unexpected argument '%s'", argv[i]);
        d.cuda = strcmp(v, "cuda") == 0;
        i = k - 1;
    }
    if (cli_connect(x) != CLI_OK)
        return CLI_ERROR;
    int rc = d.cuda ? demo_capture_cuda(x->c, &d) : demo_capture(x->c, &d);
    if (rc != 0)
        return cli_call_fail(x, rc);
    sc_client_graph g;
    bool r[2];
    const sc_client_pair pairs[2] = {{d.up, d.k}, {d.k, d.dn}};
    if ((rc = sc_client_graph_get(x->c, d.cap.graph, &g)) != 0)
        return cli_call_fail(x, rc);
    rc = sc_client_graph_reachable(x->c, d.cap.graph, pairs[0].from, pairs[0].to, &r[0]);
    if (rc == 0)
        rc = sc_client_graph_reachable(x->c, d.cap.graph, pairs[1].from, pairs[1].to, &r[1]);
    if (rc != 0) {
        sc_client_graph_free(&g);
        return cli_call_fail(x, rc);
    }
    int out = CLI_OK;
    if (x->json) {
        sc_buf b = SC_BUF_INIT;
        bool first;
        sc_json_obj_begin(&b, &first);
        sc_json_member_u64(&b, &first, "session", d.session);
        if (d.cuda) {
            sc_json_member_cstr(&b, &first, "semantics", "cuda");
            sc_json_member_u64(&b, &first, "capture", d.capture);
        }
        cli_json_graph_members(&b, &first, &g);
        sc_json_key(&b, &first, "reachable");
        sc_buf_putc(&b, '[');
        for (int i = 0; i < 2; i++) {
            bool pf;
            if (i)
                sc_buf_putc(&b, ',');
            sc_json_obj_begin(&b, &pf);
            sc_json_member_u64(&b, &pf, "from", pairs[i].from);
            sc_json_member_u64(&b, &pf, "to", pairs[i].to);
            sc_json_member_bool(&b, &pf, "reachable", r[i]);
            sc_json_obj_end(&b);
        }
        sc_buf_putc(&b, ']');
        sc_json_obj_end(&b);
        out = cli_emit_json(x, &b);
    } else {
        if (d.cuda)
            printf("captured the fork/join example the CUDA way (origin stream 1, stream 2 "
                   "joined by event 0 and back by event 1) in session %llu as capture %llu, "
                   "graph %llu\n\n",
                   (unsigned long long)d.session, (unsigned long long)d.capture,
                   (unsigned long long)d.cap.graph);
        else
            printf("captured the fork/join example in session %llu as graph %llu\n\n",
                   (unsigned long long)d.session, (unsigned long long)d.cap.graph);
        cli_print_graph(&g, stdout);
        printf("\nupload -> relu (N%u -> N%u): %s\n", (unsigned)d.up, (unsigned)d.k,
               r[0] ? "reachable" : "not reachable");
        printf("relu -> download (N%u -> N%u): %s\n", (unsigned)d.k, (unsigned)d.dn,
               r[1] ? "reachable" : "not reachable");
    }
    sc_client_graph_free(&g);
    return out;
}
