/*
 * cli_replay_cuda.c - `streamcap replay --semantics cuda FILE`: run
 * scenarios of the cuda corpus format (docs/cuda-semantics.md, the corpus
 * format section) against the daemon, each in its own cuda-mode session.
 *
 * Unlike the default mode's replay the ops go one request at a time: a
 * CUDA error's number and unjoined list travel in error.data, which the
 * pipeline's replies do not keep, and the corpus is small.  Results are
 * written in the corpus' expected form so that --check can compare them
 * with cuda_conformance_expected.jsonl member for member.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli_replay.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct cuda_replay {
    cli *x;
    cli_replay_io io; /* FILE and --check EXPECTED */
    size_t lineno;
    bool verbose;
    bool strict;
    size_t scenarios, ops, errors, graphs, refused;
    sc_buf out;       /* --json: the document */
    bool any;         /* --json: a scenario is in the document */
    const char *name; /* the scenario running */
    size_t line;      /* its line in FILE */
} cuda_replay;

/* The corpus' ops and the method each is. */
static const struct {
    const char *op;
    const char *method;
} cuda_ops[] = {
    {"stream_create", "stream.create"},
    {"begin", "capture.begin"},
    {"kernel", "capture.record_kernel"},
    {"memcpy", "capture.record_memcpy"},
    {"memset", "capture.record_memset"},
    {"host", "capture.record_host_callback"},
    {"mem_alloc", "capture.record_mem_alloc"},
    {"mem_free", "capture.record_mem_free"},
    {"event_record", "capture.record_event"},
    {"wait", "capture.wait_event"},
    {"update_deps", "capture.update_dependencies"},
    {"info", "capture.info"},
    {"host_call", "capture.host_call"},
    {"exchange_mode", "capture.exchange_mode"},
    {"add_node", "capture.add_node"},
    {"end", "capture.end"},
};

static const char *method_of(const char *op)
{
    for (size_t i = 0; op && i < sizeof(cuda_ops) / sizeof(cuda_ops[0]); i++) {
        if (strcmp(op, cuda_ops[i].op) == 0)
            return cuda_ops[i].method;
    }
    return NULL;
}

static const char *text_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void copy(const cJSON *from, const char *fkey, cJSON *to, const char *tkey)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, fkey);
    if (v)
        cJSON_AddItemToObject(to, tkey, cJSON_Duplicate(v, 1));
}

/* The op's params: the corpus' member names become the protocol's. */
static cJSON *params_of(uint64_t session, const cJSON *op)
{
    const char *kind = text_of(op, "op");
    cJSON *p = cJSON_CreateObject();
    cJSON_AddNumberToObject(p, "session", (double)session);
    copy(op, "stream", p, "stream");
    copy(op, "thread", p, "thread");
    copy(op, "flags", p, "flags");
    copy(op, "mode", p, "mode");
    copy(op, "event", p, "event");
    copy(op, "external", p, "external");
    copy(op, "nodes", p, "nodes");
    copy(op, "deps", p, "deps");
    copy(op, "call", p, "call");
    copy(op, "grid", p, "grid");
    copy(op, "block", p, "block");
    copy(op, "dir", p, "dir");
    copy(op, "value", p, "value");
    copy(op, "size", p, "size_bytes");
    if (strcmp(kind, "host_call") == 0 || strcmp(kind, "add_node") == 0)
        copy(op, "kind", p, "kind");
    if (strcmp(kind, "kernel") == 0)
        copy(op, "name", p, "function_name");
    else if (strcmp(kind, "host") == 0)
        copy(op, "name", p, "label");
    else
        copy(op, "name", p, "name");
    /* The corpus leaves out what CUDA needs no value for. */
    if (strcmp(kind, "memcpy") == 0 && !cJSON_GetObjectItemCaseSensitive(p, "dir"))
        cJSON_AddStringToObject(p, "dir", "default");
    if ((strcmp(kind, "memcpy") == 0 || strcmp(kind, "memset") == 0 ||
         strcmp(kind, "mem_alloc") == 0) &&
        !cJSON_GetObjectItemCaseSensitive(p, "size_bytes"))
        cJSON_AddNumberToObject(p, "size_bytes", 0);
    if (strcmp(kind, "memset") == 0 && !cJSON_GetObjectItemCaseSensitive(p, "value"))
        cJSON_AddNumberToObject(p, "value", 0);
    if (strcmp(kind, "update_deps") == 0 && !cJSON_GetObjectItemCaseSensitive(p, "mode"))
        cJSON_AddStringToObject(p, "mode", "add");
    return p;
}

/* One raw call: 0 with *result (cJSON_Delete it), or the library's code. */
static int call(sc_client *c, const char *method, const cJSON *params, cJSON **result)
{
    char *text = params ? cJSON_PrintUnformatted(params) : NULL;
    char *res = NULL;
    int rc = sc_client_call_raw(c, method, text ? text : "{}", &res);
    free(text);
    *result = NULL;
    if (rc == 0) {
        *result = cJSON_Parse(res);
        free(res);
        if (!*result)
            return -EPROTO;
    }
    return rc;
}

/* A stored graph as the corpus writes it: {nodes: [{id, kind, stream, name}], edges}. */
static cJSON *stored_graph(cuda_replay *r, const cJSON *id)
{
    cJSON *p = cJSON_CreateObject(), *g = NULL;
    cJSON_AddItemToObject(p, "graph", cJSON_Duplicate(id, 1));
    int rc = call(r->x->c, "graph.get", p, &g);
    cJSON_Delete(p);
    cJSON *o = cJSON_CreateObject();
    if (rc != 0) {
        cJSON_AddStringToObject(o, "error", sc_client_errmsg(r->x->c));
        return o;
    }
    cJSON *nodes = cJSON_AddArrayToObject(o, "nodes");
    const cJSON *n;
    cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(g, "nodes"))
    {
        cJSON *x = cJSON_CreateObject();
        copy(n, "id", x, "id");
        copy(n, "kind", x, "kind");
        copy(n, "stream", x, "stream");
        copy(n, "name", x, "name");
        cJSON_AddItemToArray(nodes, x);
    }
    copy(g, "edges", o, "edges");
    cJSON_Delete(g);
    return o;
}

/* A refused call in the corpus' form: CUDA's number and unjoined list for
 * error 1009, the JSON-RPC code and message for anything else. */
static cJSON *error_result(cuda_replay *r, int rc)
{
    sc_client *c = r->x->c;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "ok", 0);
    int cuda = sc_client_cuda_error(c);
    if (sc_client_errcode(c) == 1009 && cuda) {
        cJSON_AddNumberToObject(o, "error", cuda);
        cJSON *data = cJSON_Parse(sc_client_errdata(c));
        copy(data, "unjoined", o, "unjoined");
        cJSON_Delete(data);
        return o;
    }
    cJSON_AddNumberToObject(o, "rpc_error", sc_client_errcode(c) ? sc_client_errcode(c) : rc);
    cJSON_AddStringToObject(o, "message", sc_client_errmsg(c));
    return o;
}

/* One op run, its result in the corpus' form. */
static cJSON *run_op(cuda_replay *r, uint64_t session, const cJSON *op)
{
    const char *kind = text_of(op, "op");
    cJSON *p = params_of(session, op), *res = NULL;
    int rc = call(r->x->c, method_of(kind), p, &res);
    cJSON_Delete(p);
    if (rc != 0) {
        r->errors++;
        if (r->strict && r->refused++ < CHECK_SHOWN) {
            char *name = cli_printable(r->name), *msg = cli_printable(sc_client_errmsg(r->x->c));
            fprintf(stderr, "streamcap: %s:%zu: %s: op %s refused: %s\n", r->io.path, r->line,
                    name ? name : "", kind, msg ? msg : "");
            free(name);
            free(msg);
        }
        return error_result(r, rc);
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "ok", 1);
    if (strcmp(kind, "begin") == 0) {
        copy(res, "capture", o, "capture");
    } else if (strcmp(kind, "exchange_mode") == 0) {
        copy(res, "mode", o, "mode");
    } else if (strcmp(kind, "info") == 0) {
        copy(res, "status", o, "status");
        copy(res, "capture", o, "capture");
        copy(res, "dependencies", o, "dependencies");
    } else if (strcmp(kind, "end") == 0) {
        copy(res, "capture", o, "capture");
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(res, "graph");
        if (cJSON_IsNumber(g)) {
            cJSON_AddItemToObject(o, "graph", stored_graph(r, g));
            r->graphs++;
        }
    } else if (strcmp(kind, "stream_create") != 0 && strcmp(kind, "host_call") != 0 &&
               strcmp(kind, "update_deps") != 0) {
        copy(res, "node", o, "node");
    }
    cJSON_Delete(res);
    return o;
}

/* NULL when the scenario can be run, else what is wrong with it. */
static const char *check_scenario(const cJSON *sc, char *buf, size_t len)
{
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(sc, "ops");
    if (!cJSON_IsObject(sc) || !text_of(sc, "name") || !cJSON_IsArray(ops))
        return "a scenario must be {\"name\": string, \"ops\": [...]}";
    size_t k = 0;
    const cJSON *op;
    cJSON_ArrayForEach(op, ops)
    {
        const char *kind = cJSON_IsObject(op) ? text_of(op, "op") : NULL;
        if (!method_of(kind)) {
            char *shown = cli_printable(kind ? kind : "?");
            snprintf(buf, len,
                     "op %zu (%s): unknown op (stream_create, begin, kernel, memcpy, memset, "
                     "host, mem_alloc, mem_free, event_record, wait, update_deps, info, "
                     "host_call, exchange_mode, add_node or end)",
                     k, shown ? shown : "?");
            free(shown);
            return buf;
        }
        k++;
    }
    return NULL;
}

static void check_results(cuda_replay *r, const cJSON *sc, const cJSON *got)
{
    cJSON *want = cli_replay_next_expected(&r->io, r->line, r->name);
    if (!want)
        return;
    const char *name = text_of(want, "name");
    if (!name || strcmp(name, r->name) != 0) {
        cli_replay_difference(&r->io, r->line, r->name, "%s:%zu is for scenario '%s'",
                              r->io.check_path, r->io.check_line, name ? name : "?");
        cJSON_Delete(want);
        return;
    }
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(want, "results");
    if (cJSON_GetArraySize(results) != cJSON_GetArraySize(got))
        cli_replay_difference(&r->io, r->line, r->name,
                              "expected %d results, the scenario has %d ops",
                              cJSON_GetArraySize(results), cJSON_GetArraySize(got));
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(sc, "ops");
    for (int k = 0; k < cJSON_GetArraySize(got); k++) {
        const cJSON *w = cJSON_GetArrayItem(results, k), *g = cJSON_GetArrayItem(got, k);
        if (w && !cJSON_Compare(w, g, true)) {
            char *ws = cJSON_PrintUnformatted(w), *gs = cJSON_PrintUnformatted(g);
            cli_replay_difference(&r->io, r->line, r->name, "op %d (%s): expected %s, got %s", k,
                                  text_of(cJSON_GetArrayItem(ops, k), "op"), ws ? ws : "?",
                                  gs ? gs : "?");
            free(ws);
            free(gs);
        }
    }
    cJSON_Delete(want);
}

/* One scenario in a new cuda-mode session, closed afterwards (a cuda
 * session outlives its captures).  CLI_OK, or CLI_ERROR reported. */
static int run_scenario(cuda_replay *r, const cJSON *sc)
{
    sc_client *c = r->x->c;
    cJSON *p = cJSON_CreateObject(), *res = NULL;
    cJSON_AddStringToObject(p, "label", r->name);
    cJSON_AddStringToObject(p, "semantics", "cuda");
    int rc = call(c, "session.open", p, &res);
    cJSON_Delete(p);
    const cJSON *sid = cJSON_GetObjectItemCaseSensitive(res, "session");
    if (rc != 0 || !cJSON_IsNumber(sid)) {
        cJSON_Delete(res);
        return cli_fail(r->x, "cannot open a cuda session for '%s': %s", r->name,
                        rc ? sc_client_errmsg(c) : "no session id in the reply");
    }
    uint64_t session = (uint64_t)sid->valuedouble;
    cJSON_Delete(res);
    cJSON *results = cJSON_CreateArray();
    const cJSON *op;
    cJSON_ArrayForEach(op, cJSON_GetObjectItemCaseSensitive(sc, "ops"))
    {
        cJSON_AddItemToArray(results, run_op(r, session, op));
        r->ops++;
        if (sc_client_errcode(c) == 0 && sc_client_errmsg(c)[0]) {
            /* A local failure: the connection is gone. */
            cJSON_Delete(results);
            return cli_fail(r->x, "%s", sc_client_errmsg(c));
        }
    }
    p = cJSON_CreateObject();
    cJSON_AddNumberToObject(p, "session", (double)session);
    rc = call(c, "session.close", p, &res);
    cJSON_Delete(p);
    cJSON_Delete(res);
    if (rc != 0 && sc_client_errcode(c) == 0) {
        cJSON_Delete(results);
        return cli_fail(r->x, "%s", sc_client_errmsg(c));
    }
    if (r->verbose && !r->x->json) {
        char *name = cli_printable(r->name);
        printf("%s: %d ops\n", name ? name : "", cJSON_GetArraySize(results));
        free(name);
    }
    if (r->x->json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", r->name);
        cJSON_AddNumberToObject(o, "session", (double)session);
        cJSON_AddItemToObject(o, "results", cJSON_Duplicate(results, 1));
        char *text = cJSON_PrintUnformatted(o);
        if (r->any)
            sc_buf_putc(&r->out, ',');
        sc_buf_puts(&r->out, text ? text : "null");
        r->any = true;
        free(text);
        cJSON_Delete(o);
    }
    if (r->io.check_f)
        check_results(r, sc, results);
    cJSON_Delete(results);
    r->scenarios++;
    return CLI_OK;
}

static int run_file(cuda_replay *r)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int st = CLI_OK;
    while (st == CLI_OK && (n = getline(&line, &cap, r->io.f)) >= 0) {
        r->lineno++;
        if (cli_replay_blank(line))
            continue;
        cJSON *sc = cJSON_ParseWithLength(line, (size_t)n);
        char why[512];
        const char *bad = sc ? check_scenario(sc, why, sizeof(why)) : "not valid JSON";
        if (bad) {
            cJSON_Delete(sc);
            st = cli_fail(r->x, "%s:%zu: %s", r->io.path, r->lineno, bad);
            break;
        }
        r->name = text_of(sc, "name");
        r->line = r->lineno;
        st = run_scenario(r, sc);
        r->name = NULL;
        cJSON_Delete(sc);
    }
    if (st == CLI_OK && ferror(r->io.f))
        st = cli_fail(r->x, "%s: %s", r->io.path, strerror(errno));
    free(line);
    return st;
}

static int finish(cuda_replay *r)
{
    if (r->x->json) {
        bool first;
        sc_buf b = SC_BUF_INIT;
        sc_json_obj_begin(&b, &first);
        sc_json_member_cstr(&b, &first, "file", r->io.path);
        sc_json_member_cstr(&b, &first, "semantics", "cuda");
        sc_json_key(&b, &first, "scenarios");
        sc_buf_putc(&b, '[');
        if (r->out.len)
            sc_buf_append(&b, r->out.data, r->out.len);
        sc_buf_putc(&b, ']');
        bool sf;
        sc_json_key(&b, &first, "summary");
        sc_json_obj_begin(&b, &sf);
        sc_json_member_u64(&b, &sf, "scenarios", r->scenarios);
        sc_json_member_u64(&b, &sf, "ops", r->ops);
        sc_json_member_u64(&b, &sf, "errors", r->errors);
        sc_json_member_u64(&b, &sf, "graphs", r->graphs);
        if (r->io.check_path)
            sc_json_member_u64(&b, &sf, "differences", r->io.diffs);
        sc_json_obj_end(&b);
        sc_json_obj_end(&b);
        return cli_emit_json(r->x, &b);
    }
    printf("replayed %zu cuda scenario%s from %s: %zu ops, %zu errors, %zu graph%s stored\n",
           r->scenarios, r->scenarios == 1 ? "" : "s", r->io.path, r->ops, r->errors, r->graphs,
           r->graphs == 1 ? "" : "s");
    cli_replay_print_check(&r->io);
    if (fflush(stdout) != 0)
        return cli_stdout_failed(r->x);
    return CLI_OK;
}

int cli_replay_cuda(cli *x, const char *path, const char *check_path, bool verbose, bool strict)
{
    cuda_replay r = {.x = x,
                     .io = {.path = path, .check_path = check_path, .msg_max = 4096},
                     .verbose = verbose,
                     .strict = strict,
                     .out = SC_BUF_INIT};
    if (cli_connect(x) != CLI_OK || cli_replay_open(x, &r.io) != CLI_OK)
        return CLI_ERROR;
    int st = run_file(&r);
    if (st == CLI_OK)
        cli_replay_check_leftover(&r.io);
    if (st == CLI_OK)
        st = finish(&r);
    cli_replay_close(&r.io);
    sc_buf_free(&r.out);
    if (st != CLI_OK)
        return st;
    return cli_replay_exit(&r.io, strict, r.errors);
}
