/*
 * cli_replay.c - `streamcap replay FILE`: run corpus-format scenarios
 * against the daemon.
 *
 * Scenarios go in batches, two round trips per batch whatever its size:
 * one pipeline opens a session per scenario, a second one carries every op
 * of every scenario in the batch (plus a session.close for those without
 * an end).  Results are printed in the corpus' expected-output format so
 * a replay of the corpus can be compared with conformance_expected.jsonl.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli_replay.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BATCH_SCENARIOS 64
#define BATCH_OPS       65536
#define ERROR_PREFIX    "internal graph error: "

typedef struct scenario {
    cJSON *root;
    const char *name;
    const cJSON *ops;
    size_t nops;
    bool has_end;
    uint64_t session;
    size_t first; /* index of its first op's reply in the batch pipeline */
    size_t line;  /* its line in the file */
} scenario;

typedef struct replay {
    cli *x;
    cli_replay_io io; /* FILE and --check EXPECTED */
    long long size;   /* bytes, or -1 when not a regular file */
    size_t lineno;
    bool verbose;
    bool strict;    /* --strict: a refused request fails the replay */
    bool cuda;      /* --semantics cuda */
    size_t refused; /* requests the daemon refused, reported under --strict */
    bool progress;
    bool started; /* --json: the document's head is out */
    bool first;   /* --json: the document object has no member yet */
    bool eof;
    size_t scenarios, ops, errors, graphs;
    double t0, drawn;
    scenario batch[BATCH_SCENARIOS];
    size_t nbatch;
} replay;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* --------------------------------------------------------- validation */

static bool get_uint(const cJSON *op, const char *key, uint64_t max, uint64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(op, key);
    if (!cJSON_IsNumber(v))
        return false;
    double d = v->valuedouble;
    if (!(d >= 0 && d <= (double)max) || d != (double)(uint64_t)d)
        return false;
    *out = (uint64_t)d;
    return true;
}

static const char *get_text(const cJSON *op, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(op, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool known_op(const char *name)
{
    static const char *const ops[] = {"begin",         "kernel",       "memcpy",     "memset",
                                      "host_callback", "record_event", "wait_event", "status",
                                      "is_capturing",  "node_count",   "invalidate", "end"};
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        if (strcmp(name, ops[i]) == 0)
            return true;
    }
    return false;
}

/* NULL when the op is well-formed, else what is wrong with it. */
static const char *check_op(const cJSON *op)
{
    uint64_t v;
    const char *name = get_text(op, "op");
    if (!cJSON_IsObject(op) || !name)
        return "an op must be an object with a string \"op\"";
    if (!known_op(name))
        return "unknown op (begin, kernel, memcpy, memset, host_callback, record_event, "
               "wait_event, status, is_capturing, node_count, invalidate or end)";
    if (strcmp(name, "is_capturing") == 0 || strcmp(name, "node_count") == 0)
        return NULL;
    if (!get_uint(op, "stream", UINT32_MAX, &v))
        return "\"stream\" must be an integer from 0 to 4294967295";
    if (strcmp(name, "begin") == 0 || strcmp(name, "status") == 0 ||
        strcmp(name, "invalidate") == 0 || strcmp(name, "end") == 0)
        return NULL;
    if (strcmp(name, "record_event") == 0 || strcmp(name, "wait_event") == 0)
        return get_uint(op, "event", UINT32_MAX, &v) ? NULL : "\"event\" must be a u32";
    if (strcmp(name, "host_callback") == 0)
        return get_text(op, "label") ? NULL : "\"label\" must be a string";
    if (!get_text(op, "name"))
        return "\"name\" must be a string";
    if (strcmp(name, "kernel") == 0) {
        if (!get_uint(op, "blocks", UINT32_MAX, &v) || !get_uint(op, "threads", UINT32_MAX, &v))
            return "\"blocks\" and \"threads\" must be u32";
        if (cJSON_GetObjectItemCaseSensitive(op, "shared_mem") &&
            !get_uint(op, "shared_mem", UINT32_MAX, &v))
            return "\"shared_mem\" must be a u32";
        return NULL;
    }
    if (!get_uint(op, "bytes", 9007199254740992ULL, &v))
        return "\"bytes\" must be an integer from 0 to 2^53";
    if (strcmp(name, "memset") == 0)
        return get_uint(op, "value", 255, &v) ? NULL : "\"value\" must be 0..255";
    sc_client_dir dir;
    if (sc_client_dir_parse(get_text(op, "dir"), &dir) != 0)
        return "\"dir\" must be host_to_device, device_to_host, device_to_device or peer_to_peer";
    if (dir == SC_CLIENT_PEER_TO_PEER && (!get_uint(op, "src_device", UINT32_MAX, &v) ||
                                          !get_uint(op, "dst_device", UINT32_MAX, &v)))
        return "peer_to_peer needs u32 \"src_device\" and \"dst_device\"";
    return NULL;
}

/* NULL, or what is wrong, naming the op ("op 3 (kernel): ...") in `buf`. */
static const char *check_scenario(scenario *s, char *buf, size_t len)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(s->root, "name");
    s->ops = cJSON_GetObjectItemCaseSensitive(s->root, "ops");
    if (!cJSON_IsObject(s->root) || !cJSON_IsString(name) || !cJSON_IsArray(s->ops))
        return "a scenario must be {\"name\": string, \"ops\": [...]}";
    s->name = name->valuestring;
    const cJSON *op;
    cJSON_ArrayForEach(op, s->ops)
    {
        const char *why = check_op(op);
        if (why) {
            const char *opname = get_text(op, "op");
            char *shown = cli_printable(opname ? opname : "?");
            snprintf(buf, len, "op %zu (%s): %s", s->nops, shown ? shown : "?", why);
            free(shown);
            return buf;
        }
        if (strcmp(get_text(op, "op"), "end") == 0)
            s->has_end = true;
        s->nops++;
    }
    return NULL;
}

/* ------------------------------------------------------------- reading */

static void free_batch(replay *r)
{
    for (size_t i = 0; i < r->nbatch; i++)
        cJSON_Delete(r->batch[i].root);
    r->nbatch = 0;
}

/* Fill the next batch.  0, or -1 with the error reported. */
static int read_batch(replay *r, char **line, size_t *cap, char *why, size_t whylen)
{
    size_t ops = 0;
    while (r->nbatch < BATCH_SCENARIOS && ops < BATCH_OPS) {
        ssize_t n = getline(line, cap, r->io.f);
        if (n < 0) {
            if (ferror(r->io.f)) {
                snprintf(why, whylen, "%s: %s", r->io.path, strerror(errno));
                return -1;
            }
            r->eof = true;
            return 0;
        }
        r->lineno++;
        if (cli_replay_blank(*line))
            continue;
        scenario *s = &r->batch[r->nbatch];
        memset(s, 0, sizeof(*s));
        s->root = cJSON_ParseWithLength(*line, (size_t)n);
        char opwhy[512];
        const char *bad = s->root ? check_scenario(s, opwhy, sizeof(opwhy)) : "not valid JSON";
        s->line = r->lineno;
        if (bad) {
            cJSON_Delete(s->root);
            snprintf(why, whylen, "%s:%zu: %s", r->io.path, r->lineno, bad);
            return -1;
        }
        r->nbatch++;
        ops += s->nops;
    }
    return 0;
}

/* ------------------------------------------------------------- running */

static int queue_op(sc_client *c, uint64_t session, const cJSON *op)
{
    const char *name = get_text(op, "op");
    uint64_t stream = 0, a = 0, b = 0, d = 0;
    get_uint(op, "stream", UINT32_MAX, &stream);
    const uint32_t s = (uint32_t)stream;
    if (strcmp(name, "begin") == 0)
        return sc_client_begin_capture(c, session, s);
    if (strcmp(name, "end") == 0)
        return sc_client_end_capture(c, session, s, NULL);
    if (strcmp(name, "status") == 0)
        return sc_client_capture_status(c, session, s, NULL);
    if (strcmp(name, "invalidate") == 0)
        return sc_client_invalidate(c, session, s);
    if (strcmp(name, "is_capturing") == 0)
        return sc_client_is_capturing(c, session, NULL);
    if (strcmp(name, "node_count") == 0)
        return sc_client_node_count(c, session, NULL);
    if (strcmp(name, "record_event") == 0 || strcmp(name, "wait_event") == 0) {
        get_uint(op, "event", UINT32_MAX, &a);
        return name[0] == 'r' ? sc_client_record_event(c, session, s, (uint32_t)a)
                              : sc_client_wait_event(c, session, s, (uint32_t)a);
    }
    if (strcmp(name, "host_callback") == 0)
        return sc_client_record_host_callback(c, session, s, get_text(op, "label"), NULL);
    const char *label = get_text(op, "name");
    if (strcmp(name, "kernel") == 0) {
        get_uint(op, "blocks", UINT32_MAX, &a);
        get_uint(op, "threads", UINT32_MAX, &b);
        get_uint(op, "shared_mem", UINT32_MAX, &d);
        return sc_client_record_kernel(c, session, s, label, (uint32_t)a, (uint32_t)b, (uint32_t)d,
                                       NULL);
    }
    get_uint(op, "bytes", UINT64_MAX, &a);
    if (strcmp(name, "memset") == 0) {
        get_uint(op, "value", 255, &b);
        return sc_client_record_memset(c, session, s, label, a, (uint8_t)b, NULL);
    }
    sc_client_dir dir;
    sc_client_dir_parse(get_text(op, "dir"), &dir);
    if (dir != SC_CLIENT_PEER_TO_PEER)
        return sc_client_record_memcpy(c, session, s, label, dir, a, NULL);
    get_uint(op, "src_device", UINT32_MAX, &b);
    get_uint(op, "dst_device", UINT32_MAX, &d);
    return sc_client_record_memcpy_peer(c, session, s, label, a, (uint32_t)b, (uint32_t)d, NULL);
}

/* One pipeline opening a session per scenario of the batch. */
static int open_sessions(replay *r, char *why, size_t whylen)
{
    sc_client *c = r->x->c;
    int rc = sc_client_pipeline_begin(c);
    for (size_t i = 0; rc == 0 && i < r->nbatch; i++)
        rc = sc_client_open_session(c, r->batch[i].name, NULL);
    sc_client_reply *rep = NULL;
    size_t n = 0;
    int crc = sc_client_pipeline_collect(c, &rep, &n);
    if (rc == 0)
        rc = crc;
    if (rc != 0)
        return rc;
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        if (rep[i].rc != 0 && !failed) {
            failed = rep[i].rc;
            snprintf(why, whylen, "cannot open a session for '%s': %s", r->batch[i].name,
                     rep[i].errmsg ? rep[i].errmsg : sc_client_strerror(rep[i].rc));
        }
        r->batch[i].session = rep[i].rc == 0 ? rep[i].id : 0;
    }
    sc_client_replies_free(rep, n);
    if (failed) {
        /* Leave nothing behind for the sessions that did open. */
        for (size_t i = 0; i < r->nbatch; i++) {
            if (r->batch[i].session)
                sc_client_close_session(c, r->batch[i].session);
        }
    }
    return failed;
}

static int run_ops(replay *r, sc_client_reply **rep, size_t *n)
{
    sc_client *c = r->x->c;
    int rc = sc_client_pipeline_begin(c);
    for (size_t i = 0; rc == 0 && i < r->nbatch; i++) {
        scenario *s = &r->batch[i];
        s->first = sc_client_pipeline_size(c);
        const cJSON *op;
        cJSON_ArrayForEach(op, s->ops)
        {
            if ((rc = queue_op(c, s->session, op)) != 0)
                break;
        }
        /* Without an end the session would linger until its idle timeout. */
        if (rc == 0 && !s->has_end)
            rc = sc_client_close_session(c, s->session);
    }
    int crc = sc_client_pipeline_collect(c, rep, n);
    return rc ? rc : crc;
}

/* ------------------------------------------------------------- output */

static const char *error_kind(int code)
{
    switch (code) {
    case 1001:
        return "not_found";
    case 1005:
        return "permission_denied";
    case 1006:
        return "limit";
    case 1007:
        return "storage";
    case 1008:
        return "shutting_down";
    case -32700:
        return "parse_error";
    case -32600:
        return "invalid_request";
    case -32601:
        return "method_not_found";
    case -32602:
        return "invalid_params";
    case -32603:
        return "internal_error";
    default:
        return "error";
    }
}

/* One op's result, as conformance_expected.jsonl writes it. */
static void json_result(sc_buf *b, const cJSON *op, const sc_client_reply *rep)
{
    const char *name = get_text(op, "op");
    bool first;
    sc_json_obj_begin(b, &first);
    if (rep->rc != 0) {
        const char *msg = rep->errmsg ? rep->errmsg : sc_client_strerror(rep->rc);
        if (rep->errcode == 1002 || rep->errcode == 1003) {
            /* The capture model's own errors: the corpus spells them as the
             * reference's GraphError::Internal. */
            sc_buf text = SC_BUF_INIT;
            sc_buf_puts(&text, ERROR_PREFIX);
            sc_buf_puts(&text, msg);
            sc_json_member_bool(b, &first, "ok", false);
            sc_json_member_cstr(b, &first, "error", "internal");
            sc_json_member_str(b, &first, "message", text.data ? text.data : "", text.len);
            sc_buf_free(&text);
        } else {
            sc_json_member_bool(b, &first, "ok", false);
            sc_json_member_cstr(b, &first, "error",
                                rep->errcode ? error_kind(rep->errcode) : "client");
            sc_json_member_i64(b, &first, "code", rep->errcode ? rep->errcode : rep->rc);
            sc_json_member_cstr(b, &first, "message", msg);
        }
        sc_json_obj_end(b);
        return;
    }
    sc_json_member_bool(b, &first, "ok", true);
    if (strcmp(name, "kernel") == 0 || strcmp(name, "memcpy") == 0 || strcmp(name, "memset") == 0 ||
        strcmp(name, "host_callback") == 0)
        sc_json_member_u64(b, &first, "node", rep->id);
    else if (strcmp(name, "status") == 0)
        sc_json_member_cstr(b, &first, "status", sc_client_status_name(rep->status));
    else if (strcmp(name, "is_capturing") == 0)
        sc_json_member_bool(b, &first, "value", rep->capturing);
    else if (strcmp(name, "node_count") == 0)
        sc_json_member_u64(b, &first, "value", rep->node_count);
    sc_json_obj_end(b);
}

static int emit(replay *r, sc_buf *b)
{
    if (sc_buf_failed(b))
        return cli_fail(r->x, "out of memory");
    if (b->len && fwrite(b->data, 1, b->len, stdout) != b->len)
        return cli_stdout_failed(r->x);
    sc_buf_reset(b);
    return CLI_OK;
}

/* ---------------------------------------------------------- --check */

#define CHECK_REACH_N 1024 /* above this many nodes, reach is not compared */

/* A node as the corpus writes it (docs/semantics.md, section 11). */
static cJSON *corpus_node(const sc_client_node *n)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", n->id);
    cJSON_AddStringToObject(o, "kind", sc_client_kind_name(n->kind));
    cJSON_AddNumberToObject(o, "stream", n->stream);
    cJSON_AddStringToObject(o, "name", n->name ? n->name : "");
    switch (n->kind) {
    case SC_CLIENT_KERNEL: {
        const double grid[3] = {n->num_blocks, 1, 1}, block[3] = {n->threads_per_block, 1, 1};
        cJSON_AddItemToObject(o, "grid", cJSON_CreateDoubleArray(grid, 3));
        cJSON_AddItemToObject(o, "block", cJSON_CreateDoubleArray(block, 3));
        cJSON_AddNumberToObject(o, "shared_mem", n->shared_mem);
        cJSON_AddBoolToObject(o, "fusible", false);
        break;
    }
    case SC_CLIENT_MEMCPY:
        cJSON_AddStringToObject(o, "dir", sc_client_dir_name(n->dir));
        cJSON_AddNumberToObject(o, "bytes", (double)n->size_bytes);
        if (n->dir == SC_CLIENT_PEER_TO_PEER) {
            cJSON_AddNumberToObject(o, "src_device", n->src_device);
            cJSON_AddNumberToObject(o, "dst_device", n->dst_device);
        }
        break;
    case SC_CLIENT_MEMSET:
        cJSON_AddNumberToObject(o, "bytes", (double)n->size_bytes);
        cJSON_AddNumberToObject(o, "value", n->value);
        break;
    case SC_CLIENT_HOST_CALLBACK:
        cJSON_AddStringToObject(o, "label", n->label ? n->label : "");
        break;
    default: /* only in cuda-mode graphs, which this replay never makes */
        break;
    }
    return o;
}

static cJSON *pair(uint32_t a, uint32_t b)
{
    const int v[2] = {(int)a, (int)b};
    return cJSON_CreateIntArray(v, 2);
}

/* The strict transitive closure, sorted, as the corpus lists it; NULL when
 * the daemon could not say. */
static cJSON *corpus_reach(sc_client *c, const sc_client_graph *g)
{
    size_t n = g->node_count, np = n * n;
    sc_client_pair *pairs = calloc(np ? np : 1, sizeof(*pairs));
    bool *got = calloc(np ? np : 1, sizeof(*got));
    cJSON *out = NULL;
    if (pairs && got) {
        for (size_t i = 0; i < np; i++)
            pairs[i] = (sc_client_pair){(uint32_t)(i / n), (uint32_t)(i % n)};
        if (sc_client_graph_reachable_pairs(c, g->graph, pairs, np, got) == 0) {
            out = cJSON_CreateArray();
            for (size_t i = 0; i < np; i++) {
                if (got[i] && pairs[i].from != pairs[i].to)
                    cJSON_AddItemToArray(out, pair(pairs[i].from, pairs[i].to));
            }
        }
    }
    free(pairs);
    free(got);
    return out;
}

static void compare_member(replay *r, const scenario *s, const char *what, const cJSON *want,
                           const cJSON *got)
{
    if (cJSON_Compare(want, got, true))
        return;
    char *w = cJSON_PrintUnformatted(want), *g = cJSON_PrintUnformatted(got);
    cli_replay_difference(&r->io, s->line, s->name, "graph %s: expected %s, got %s", what,
                          w ? w : "(none)", g ? g : "(none)");
    free(w);
    free(g);
}

/* The stored graph against the expected one: nodes, edges and reach. */
static void compare_graph(replay *r, const scenario *s, const cJSON *want,
                          const sc_client_reply *end)
{
    if (!end) {
        if (!cJSON_IsNull(want))
            cli_replay_difference(&r->io, s->line, s->name, "expected a stored graph, got none");
        return;
    }
    if (cJSON_IsNull(want)) {
        cli_replay_difference(&r->io, s->line, s->name, "expected no graph, got graph %llu",
                              (unsigned long long)end->id);
        return;
    }
    sc_client_graph g;
    if (sc_client_graph_get(r->x->c, end->id, &g) != 0) {
        cli_replay_difference(&r->io, s->line, s->name, "cannot read graph %llu: %s",
                              (unsigned long long)end->id, sc_client_errmsg(r->x->c));
        return;
    }
    cJSON *nodes = cJSON_CreateArray(), *edges = cJSON_CreateArray();
    for (size_t i = 0; i < g.node_count; i++)
        cJSON_AddItemToArray(nodes, corpus_node(&g.nodes[i]));
    for (size_t i = 0; i < g.edge_count; i++)
        cJSON_AddItemToArray(edges, pair(g.edges[i].src, g.edges[i].dst));
    compare_member(r, s, "nodes", cJSON_GetObjectItemCaseSensitive(want, "nodes"), nodes);
    compare_member(r, s, "edges", cJSON_GetObjectItemCaseSensitive(want, "edges"), edges);
    if (g.node_count <= CHECK_REACH_N) {
        cJSON *reach = corpus_reach(r->x->c, &g);
        compare_member(r, s, "reach", cJSON_GetObjectItemCaseSensitive(want, "reach"), reach);
        cJSON_Delete(reach);
    }
    cJSON_Delete(nodes);
    cJSON_Delete(edges);
    sc_client_graph_free(&g);
}

/* Every op's result and the graph against the scenario's expected line. */
static void check_scenario_results(replay *r, const scenario *s, const sc_client_reply *rep,
                                   const sc_client_reply *end)
{
    cJSON *want = cli_replay_next_expected(&r->io, s->line, s->name);
    if (!want)
        return;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(want, "name");
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(want, "results");
    if (!cJSON_IsString(name) || strcmp(name->valuestring, s->name) != 0) {
        cli_replay_difference(&r->io, s->line, s->name, "%s:%zu is for scenario '%s'",
                              r->io.check_path, r->io.check_line,
                              cJSON_IsString(name) ? name->valuestring : "?");
        cJSON_Delete(want);
        return;
    }
    if ((size_t)cJSON_GetArraySize(results) != s->nops)
        cli_replay_difference(&r->io, s->line, s->name,
                              "expected %d results, the scenario has %zu ops",
                              cJSON_GetArraySize(results), s->nops);
    size_t k = 0;
    const cJSON *op;
    sc_buf b = SC_BUF_INIT;
    cJSON_ArrayForEach(op, s->ops)
    {
        const cJSON *w = cJSON_GetArrayItem(results, (int)k);
        sc_buf_reset(&b);
        json_result(&b, op, &rep[s->first + k]);
        cJSON *got = cJSON_ParseWithLength(b.data ? b.data : "", b.len);
        if (w && !cJSON_Compare(w, got, true)) {
            char *wt = cJSON_PrintUnformatted(w);
            cli_replay_difference(&r->io, s->line, s->name, "op %zu (%s): expected %s, got %.*s", k,
                                  get_text(op, "op"), wt ? wt : "?", (int)b.len,
                                  b.data ? b.data : "");
            free(wt);
        }
        cJSON_Delete(got);
        k++;
    }
    sc_buf_free(&b);
    compare_graph(r, s, cJSON_GetObjectItemCaseSensitive(want, "graph"), end);
    cJSON_Delete(want);
}

/* --strict: each refused request named where the file has it. */
static void report_refused(replay *r, const scenario *s, size_t k, const cJSON *op,
                           const sc_client_reply *p)
{
    if (!r->strict || r->refused++ >= CHECK_SHOWN)
        return;
    char *name = cli_printable(s->name);
    char *msg = cli_printable(p->errmsg ? p->errmsg : sc_client_strerror(p->rc));
    fprintf(stderr, "streamcap: %s:%zu: %s: op %zu (%s) refused: %s\n", r->io.path, s->line,
            name ? name : "", k, get_text(op, "op"), msg ? msg : "");
    free(name);
    free(msg);
}

static void report_batch(replay *r, const sc_client_reply *rep, sc_buf *b)
{
    for (size_t i = 0; i < r->nbatch; i++) {
        const scenario *s = &r->batch[i];
        size_t errors = 0;
        const sc_client_reply *end = NULL;
        bool first = true;
        if (r->x->json) {
            if (r->scenarios)
                sc_buf_putc(b, ',');
            sc_json_obj_begin(b, &first);
            sc_json_member_cstr(b, &first, "name", s->name);
            sc_json_member_u64(b, &first, "session", s->session);
            sc_json_key(b, &first, "results");
            sc_buf_putc(b, '[');
        }
        size_t k = 0;
        const cJSON *op;
        cJSON_ArrayForEach(op, s->ops)
        {
            const sc_client_reply *p = &rep[s->first + k];
            if (p->rc != 0) {
                errors++;
                report_refused(r, s, k, op, p);
            } else if (strcmp(get_text(op, "op"), "end") == 0)
                end = p;
            if (r->x->json) {
                if (k)
                    sc_buf_putc(b, ',');
                json_result(b, op, p);
            }
            k++;
        }
        if (r->x->json) {
            sc_buf_putc(b, ']');
            sc_json_key(b, &first, "graph");
            if (end) {
                bool gf;
                sc_json_obj_begin(b, &gf);
                sc_json_member_u64(b, &gf, "graph", end->id);
                sc_json_member_u64(b, &gf, "node_count", end->node_count);
                sc_json_member_u64(b, &gf, "edge_count", end->edge_count);
                sc_json_obj_end(b);
            } else {
                sc_buf_puts(b, "null");
            }
            sc_json_obj_end(b);
        } else if (r->verbose) {
            char *name = cli_printable(s->name);
            if (end)
                printf("%s: %zu ops, %zu errors, graph %llu\n", name ? name : "", s->nops, errors,
                       (unsigned long long)end->id);
            else
                printf("%s: %zu ops, %zu errors, no graph\n", name ? name : "", s->nops, errors);
            free(name);
        }
        if (r->io.check_f)
            check_scenario_results(r, s, rep, end);
        r->scenarios++;
        r->ops += s->nops;
        r->errors += errors;
        r->graphs += end != NULL;
    }
}

static void draw_progress(replay *r, bool last)
{
    if (!r->progress)
        return;
    double t = now_s();
    if (!last && t - r->drawn < 0.1)
        return;
    r->drawn = t;
    if (last) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        return;
    }
    long pos = ftell(r->io.f);
    if (r->size > 0 && pos >= 0) {
        int pct = (int)((double)pos * 100.0 / (double)r->size);
        pct = pct > 100 ? 100 : pct;
        int fill = pct * 30 / 100;
        fprintf(stderr, "\r[%.*s%.*s] %3d%%  %zu scenarios", fill, "##############################",
                30 - fill, "------------------------------", pct, r->scenarios);
    } else {
        fprintf(stderr, "\r%zu scenarios", r->scenarios);
    }
    fflush(stderr);
}

/* ------------------------------------------------------------ command */

static int replay_args(cli *x, int argc, char **argv, replay *r)
{
    for (int i = 0; i < argc; i++) {
        int k = i;
        const char *v = NULL;
        int got = cli_take_opt(argc, argv, &k, "--check", &v);
        if (got < 0 || (got > 0 && !*v))
            return cli_usage_fail(x, "--check takes the file of expected results");
        if (got > 0) {
            r->io.check_path = v;
            i = k - 1;
            continue;
        }
        k = i;
        got = cli_take_opt(argc, argv, &k, "--semantics", &v);
        if (got < 0 || (got > 0 && strcmp(v, "cuda") != 0 && strcmp(v, "oxicuda") != 0))
            return cli_usage_fail(x, "--semantics takes oxicuda (the default) or cuda");
        if (got > 0) {
            r->cuda = strcmp(v, "cuda") == 0;
            i = k - 1;
        } else if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0)
            r->verbose = true;
        else if (strcmp(argv[i], "--strict") == 0)
            r->strict = true;
        else if (argv[i][0] == '-' && argv[i][1] != '\0')
            return cli_usage_fail(x, "unknown option '%s'", argv[i]);
        else if (r->io.path)
            return cli_usage_fail(x, "unexpected argument '%s'", argv[i]);
        else
            r->io.path = argv[i];
    }
    if (!r->io.path)
        return cli_usage_fail(x, "missing FILE");
    return CLI_OK;
}

static int open_input(replay *r)
{
    if (cli_replay_open(r->x, &r->io) != CLI_OK)
        return CLI_ERROR;
    struct stat sb;
    r->size = fstat(fileno(r->io.f), &sb) == 0 && S_ISREG(sb.st_mode) ? (long long)sb.st_size : -1;
    return CLI_OK;
}

/* A failure after the JSON document started: finish it with the error. */
static int fail_midway(replay *r, sc_buf *b, const char *msg)
{
    fprintf(stderr, "streamcap: %s\n", msg);
    if (r->x->json) {
        /* Into the open document (after the scenarios so far), or alone. */
        if (r->started)
            sc_buf_putc(b, ']');
        else
            sc_json_obj_begin(b, &r->first);
        bool ef;
        sc_json_key(b, &r->first, "error");
        sc_json_obj_begin(b, &ef);
        sc_json_member_cstr(b, &ef, "message", msg);
        sc_json_obj_end(b);
        sc_json_obj_end(b);
        sc_buf_putc(b, '\n');
        emit(r, b);
    }
    return CLI_ERROR;
}

static int run_batches(replay *r, sc_buf *b)
{
    char *line = NULL;
    size_t cap = 0;
    char why[1024];
    int st = CLI_OK;
    while (st == CLI_OK && !r->eof) {
        if (read_batch(r, &line, &cap, why, sizeof(why)) != 0) {
            st = fail_midway(r, b, why);
            break;
        }
        if (r->nbatch == 0)
            break;
        why[0] = '\0';
        int rc = open_sessions(r, why, sizeof(why));
        sc_client_reply *rep = NULL;
        size_t n = 0;
        if (rc == 0)
            rc = run_ops(r, &rep, &n);
        if (rc != 0) {
            const char *m = why[0] ? why : sc_client_errmsg(r->x->c);
            st = fail_midway(r, b, m && *m ? m : sc_client_strerror(rc));
            sc_client_replies_free(rep, n);
            break;
        }
        if (r->x->json && !r->started) {
            sc_json_obj_begin(b, &r->first);
            sc_json_member_cstr(b, &r->first, "file", r->io.path);
            sc_json_key(b, &r->first, "scenarios");
            sc_buf_putc(b, '[');
            r->started = true;
        }
        report_batch(r, rep, b);
        sc_client_replies_free(rep, n);
        free_batch(r);
        st = emit(r, b);
        draw_progress(r, false);
    }
    free_batch(r);
    free(line);
    return st;
}

int cli_replay(cli *x, int argc, char **argv)
{
    replay r = {.x = x, .io = {.msg_max = 2048}};
    if (replay_args(x, argc, argv, &r) != CLI_OK)
        return CLI_ERROR;
    if (r.cuda)
        return cli_replay_cuda(x, r.io.path, r.io.check_path, r.verbose, r.strict);
    if (cli_connect(x) != CLI_OK || open_input(&r) != CLI_OK)
        return CLI_ERROR;
    r.progress = isatty(STDERR_FILENO);
    r.t0 = now_s();
    sc_buf b = SC_BUF_INIT;
    int st = run_batches(&r, &b);
    draw_progress(&r, true);
    if (st == CLI_OK)
        cli_replay_check_leftover(&r.io);
    double secs = now_s() - r.t0;
    if (st == CLI_OK) {
        if (x->json) {
            if (r.started) {
                sc_buf_putc(&b, ']');
            } else {
                sc_json_obj_begin(&b, &r.first);
                sc_json_member_cstr(&b, &r.first, "file", r.io.path);
                sc_json_key(&b, &r.first, "scenarios");
                sc_buf_puts(&b, "[]");
            }
            bool sf;
            sc_json_key(&b, &r.first, "summary");
            sc_json_obj_begin(&b, &sf);
            sc_json_member_u64(&b, &sf, "scenarios", r.scenarios);
            sc_json_member_u64(&b, &sf, "ops", r.ops);
            sc_json_member_u64(&b, &sf, "errors", r.errors);
            sc_json_member_u64(&b, &sf, "graphs", r.graphs);
            if (r.io.check_path)
                sc_json_member_u64(&b, &sf, "differences", r.io.diffs);
            sc_json_key(&b, &sf, "seconds");
            sc_buf_printf(&b, "%.3f", secs);
            sc_json_obj_end(&b);
            sc_json_obj_end(&b);
            sc_buf_putc(&b, '\n');
            st = emit(&r, &b);
        } else {
            printf("replayed %zu scenario%s from %s: %zu ops, %zu errors, %zu graph%s stored "
                   "(%.2f s)\n",
                   r.scenarios, r.scenarios == 1 ? "" : "s", r.io.path, r.ops, r.errors, r.graphs,
                   r.graphs == 1 ? "" : "s", secs);
            cli_replay_print_check(&r.io);
        }
    }
    cli_replay_close(&r.io);
    sc_buf_free(&b);
    if (st == CLI_OK && fflush(stdout) != 0)
        st = cli_stdout_failed(x);
    if (st != CLI_OK)
        return st;
    return cli_replay_exit(&r.io, r.strict, r.errors);
}
