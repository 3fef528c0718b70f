/*
 * cli_run.c - streamcap run: a program run with the CUDA runtime stand-in
 * first on its library path, and the summary of what its processes
 * reported at exit (the report line format is docs/design.md §12's).
 */
#define _XOPEN_SOURCE 700

#include "cli.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define RUN_STANDIN "libcudart.so.13"
/* The longest number a report may carry and still mean what it says. */
#define RUN_MAX_U53 9007199254740992.0

/* ------------------------------------------------------ what was read */

typedef struct run_proc {
    int64_t pid;
    char *program, *label, *daemon;
    bool has_session;
    uint64_t session;
} run_proc;

/* A stream of a capture that ended with unjoined work (904), and those nodes. */
typedef struct run_unjoined {
    uint64_t stream;
    uint64_t *nodes;
    size_t nnodes;
} run_unjoined;

/* A capture line, or a graph line (source "submit"). */
typedef struct run_item {
    int64_t pid;
    bool submit;
    bool has_capture, has_graph;
    uint64_t capture, graph;
    char *mode, *label, *outcome;
    uint64_t nodes, edges;
    /* failed: the end call's error, and what broke the capture before it */
    char *call, *cuda_name, *message;
    bool has_error;
    int64_t cuda_error;
    bool has_broken, broken_has_error;
    char *broken_call, *broken_name;
    int64_t broken_error;
    run_unjoined *unjoined;
    size_t nunjoined;
} run_item;

typedef struct run_bad {
    size_t line;
    char *reason;
} run_bad;

typedef struct run_report {
    run_proc *procs;
    size_t nprocs;
    run_item *items;
    size_t nitems;
    char **unsupported; /* sorted, no duplicates */
    size_t nunsupported;
    run_bad *bad;
    size_t nbad;
    uint64_t captures_begun;
} run_report;

/* How the program ended. */
typedef struct run_end {
    const char *program;
    int status; /* what streamcap run exits with */
    int signal; /* 0: it exited */
} run_end;

/* Grow *arr (of *n elements of `size`) by one zeroed element; NULL when
 * memory is out. */
static void *grow(void *arr_p, size_t *n, size_t size)
{
    void **arr = arr_p;
    void *p = realloc(*arr, (*n + 1) * size);
    if (!p)
        return NULL;
    *arr = p;
    char *slot = (char *)p + *n * size;
    memset(slot, 0, size);
    (*n)++;
    return slot;
}

/* A string from the report, as valid UTF-8 (bad bytes become '?'), so that
 * the JSON summary stays valid whatever a program wrote. */
static char *dup_utf8(const char *s)
{
    char *out = strdup(s);
    if (!out)
        return NULL;
    unsigned char *p = (unsigned char *)out;
    while (*p) {
        size_t n = *p < 0x80             ? 1
                   : (*p & 0xE0) == 0xC0 ? 2
                   : (*p & 0xF0) == 0xE0 ? 3
                   : (*p & 0xF8) == 0xF0 ? 4
                                         : 0;
        bool ok = n > 0 && !(n == 2 && *p < 0xC2);
        for (size_t i = 1; ok && i < n; i++)
            ok = (p[i] & 0xC0) == 0x80;
        if (!ok) {
            *p++ = '?';
            continue;
        }
        p += n;
    }
    return out;
}

static const char *str_member(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static char *dup_member(const cJSON *o, const char *k)
{
    const char *s = str_member(o, k);
    return s ? dup_utf8(s) : NULL;
}

/* A whole number in [lo, 2^53]: true and *out set. */
static bool num_member(const cJSON *o, const char *k, double lo, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!cJSON_IsNumber(v))
        return false;
    double d = v->valuedouble;
    if (d < lo || d > RUN_MAX_U53 || d != (double)(int64_t)d)
        return false;
    *out = d;
    return true;
}

static bool u64_member(const cJSON *o, const char *k, uint64_t *out)
{
    double d;
    if (!num_member(o, k, 0, &d))
        return false;
    *out = (uint64_t)d;
    return true;
}

static bool i64_member(const cJSON *o, const char *k, int64_t *out)
{
    double d;
    if (!num_member(o, k, -RUN_MAX_U53, &d))
        return false;
    *out = (int64_t)d;
    return true;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_unsupported(run_report *r, const char *name)
{
    for (size_t i = 0; i < r->nunsupported; i++) {
        if (strcmp(r->unsupported[i], name) == 0)
            return;
    }
    char *s = dup_utf8(name);
    char **slot = s ? grow(&r->unsupported, &r->nunsupported, sizeof(char *)) : NULL;
    if (!slot) {
        free(s);
        return;
    }
    *slot = s;
    qsort(r->unsupported, r->nunsupported, sizeof(char *), cmp_str);
}

/* Each parse_* returns NULL, or why the line is not a report line. */

static const char *parse_process(run_report *r, const cJSON *o, int64_t pid)
{
    uint64_t begun = 0;
    const cJSON *cb = cJSON_GetObjectItemCaseSensitive(o, "captures_begun");
    if (cb && !u64_member(o, "captures_begun", &begun))
        return "\"captures_begun\" is not a count";
    run_proc *p = grow(&r->procs, &r->nprocs, sizeof(*p));
    if (!p)
        return "out of memory";
    p->pid = pid;
    p->program = dup_member(o, "program");
    p->label = dup_member(o, "label");
    p->daemon = dup_member(o, "daemon");
    p->has_session = u64_member(o, "session", &p->session);
    r->captures_begun += begun;
    const cJSON *un = cJSON_GetObjectItemCaseSensitive(o, "unsupported");
    const cJSON *e;
    if (!cJSON_IsArray(un))
        un = NULL;
    cJSON_ArrayForEach(e, un)
    {
        if (cJSON_IsString(e))
            add_unsupported(r, e->valuestring);
    }
    return NULL;
}

static bool known_outcome(const char *s)
{
    static const char *const names[] = {"stored", "kept", "failed", "discarded"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(s, names[i]) == 0)
            return true;
    }
    return false;
}

/* The streams holding unjoined work: entries that are not {stream, nodes}
 * of whole numbers are skipped. */
static void parse_unjoined(run_item *it, const cJSON *o)
{
    const cJSON *un = cJSON_GetObjectItemCaseSensitive(o, "unjoined");
    int n = cJSON_IsArray(un) ? cJSON_GetArraySize(un) : 0;
    if (n <= 0 || !(it->unjoined = calloc((size_t)n, sizeof *it->unjoined)))
        return;
    const cJSON *e;
    cJSON_ArrayForEach(e, un)
    {
        run_unjoined *u = &it->unjoined[it->nunjoined];
        const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(e, "nodes");
        int m = cJSON_IsArray(nodes) ? cJSON_GetArraySize(nodes) : 0;
        if (!u64_member(e, "stream", &u->stream) || m <= 0 ||
            !(u->nodes = calloc((size_t)m, sizeof *u->nodes)))
            continue;
        const cJSON *v;
        cJSON_ArrayForEach(v, nodes)
        {
            if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= RUN_MAX_U53 &&
                v->valuedouble == (double)(uint64_t)v->valuedouble)
                u->nodes[u->nnodes++] = (uint64_t)v->valuedouble;
        }
        it->nunjoined++;
    }
}

static void parse_failure(run_item *it, const cJSON *o)
{
    parse_unjoined(it, o);
    it->call = dup_member(o, "call");
    it->cuda_name = dup_member(o, "cuda_name");
    it->message = dup_member(o, "message");
    it->has_error = i64_member(o, "cuda_error", &it->cuda_error);
    const cJSON *bb = cJSON_GetObjectItemCaseSensitive(o, "broken_by");
    if (!cJSON_IsObject(bb))
        return;
    it->has_broken = true;
    it->broken_call = dup_member(bb, "call");
    it->broken_name = dup_member(bb, "cuda_name");
    it->broken_has_error = i64_member(bb, "cuda_error", &it->broken_error);
}

static const char *parse_capture(run_report *r, const cJSON *o, int64_t pid)
{
    uint64_t capture;
    const char *outcome = str_member(o, "outcome");
    if (!u64_member(o, "capture", &capture))
        return "\"capture\" is not an id";
    if (!outcome || !known_outcome(outcome))
        return "\"outcome\" is not stored, kept, failed or discarded";
    run_item *it = grow(&r->items, &r->nitems, sizeof(*it));
    if (!it)
        return "out of memory";
    it->pid = pid;
    it->has_capture = true;
    it->capture = capture;
    it->outcome = strdup(outcome);
    it->mode = dup_member(o, "mode");
    it->has_graph = u64_member(o, "graph", &it->graph);
    u64_member(o, "node_count", &it->nodes);
    u64_member(o, "edge_count", &it->edges);
    /* "stored" without the daemon's id would be a graph nobody can find. */
    if (strcmp(outcome, "stored") == 0 && !it->has_graph) {
        free(it->outcome);
        it->outcome = strdup("kept");
    }
    if (strcmp(outcome, "failed") == 0)
        parse_failure(it, o);
    return NULL;
}

static const char *parse_graph(run_report *r, const cJSON *o, int64_t pid)
{
    run_item *it = grow(&r->items, &r->nitems, sizeof(*it));
    if (!it)
        return "out of memory";
    it->pid = pid;
    it->submit = true;
    it->label = dup_member(o, "label");
    it->has_graph = u64_member(o, "graph", &it->graph);
    it->outcome = strdup(it->has_graph ? "stored" : "kept");
    u64_member(o, "node_count", &it->nodes);
    u64_member(o, "edge_count", &it->edges);
    return NULL;
}

static const char *parse_line(run_report *r, const char *line, size_t len)
{
    if (strlen(line) != len)
        return "it holds a NUL byte";
    cJSON *o = cJSON_ParseWithLength(line, len);
    if (!o)
        return "not JSON";
    const char *why = NULL;
    const char *event = str_member(o, "event");
    int64_t pid;
    if (!cJSON_IsObject(o))
        why = "not a JSON object";
    else if (!event)
        why = "no \"event\"";
    else if (!i64_member(o, "pid", &pid) || pid <= 0)
        why = "\"pid\" is not a process id";
    else if (strcmp(event, "process") == 0)
        why = parse_process(r, o, pid);
    else if (strcmp(event, "capture") == 0)
        why = parse_capture(r, o, pid);
    else if (strcmp(event, "graph") == 0)
        why = parse_graph(r, o, pid);
    /* Other events are a newer stand-in's: not ours to judge. */
    cJSON_Delete(o);
    return why;
}

static void add_bad(run_report *r, size_t line, const char *why)
{
    run_bad *b = grow(&r->bad, &r->nbad, sizeof(*b));
    if (b) {
        b->line = line;
        b->reason = strdup(why);
    }
}

/* Every line of the report file; a file that cannot be read is one bad
 * line 0. */
static void read_report(const char *path, run_report *r)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        add_bad(r, 0, strerror(errno));
        return;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    for (size_t no = 1; (n = getline(&line, &cap, f)) >= 0; no++) {
        size_t len = (size_t)n;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (len == 0 || cli_replay_blank(line))
            continue;
        const char *why = parse_line(r, line, len);
        if (why)
            add_bad(r, no, why);
    }
    free(line);
    fclose(f);
}

static void free_item(run_item *it)
{
    free(it->mode);
    free(it->label);
    free(it->outcome);
    free(it->call);
    free(it->cuda_name);
    free(it->message);
    free(it->broken_call);
    free(it->broken_name);
    for (size_t i = 0; i < it->nunjoined; i++)
        free(it->unjoined[i].nodes);
    free(it->unjoined);
}

static void free_report(run_report *r)
{
    for (size_t i = 0; i < r->nprocs; i++) {
        free(r->procs[i].program);
        free(r->procs[i].label);
        free(r->procs[i].daemon);
    }
    for (size_t i = 0; i < r->nitems; i++)
        free_item(&r->items[i]);
    for (size_t i = 0; i < r->nunsupported; i++)
        free(r->unsupported[i]);
    for (size_t i = 0; i < r->nbad; i++)
        free(r->bad[i].reason);
    free(r->procs);
    free(r->items);
    free(r->unsupported);
    free(r->bad);
}

static bool outcome_is(const run_item *it, const char *o)
{
    return it->outcome && strcmp(it->outcome, o) == 0;
}

/* ------------------------------------------------------- the summary */

static const char no_report[] =
    "the program left no report (it did not exit normally, or it did not load " RUN_STANDIN
    ": was it linked with 'nvcc -cudart shared'?)";

static void json_item_common(sc_buf *b, bool *first, const run_item *it)
{
    sc_json_key(b, first, "capture");
    if (it->has_capture)
        sc_json_u64(b, it->capture);
    else
        sc_buf_puts(b, "null");
    sc_json_member_i64(b, first, "pid", it->pid);
    sc_json_member_cstr(b, first, "source", it->submit ? "submit" : "capture");
    if (it->label)
        sc_json_member_cstr(b, first, "label", it->label);
    if (it->mode)
        sc_json_member_cstr(b, first, "mode", it->mode);
}

static void json_failure(sc_buf *b, bool *first, const run_item *it)
{
    if (it->call)
        sc_json_member_cstr(b, first, "call", it->call);
    if (it->has_error)
        sc_json_member_i64(b, first, "cuda_error", it->cuda_error);
    if (it->cuda_name)
        sc_json_member_cstr(b, first, "cuda_name", it->cuda_name);
    if (it->message)
        sc_json_member_cstr(b, first, "message", it->message);
    if (it->nunjoined) {
        sc_json_key(b, first, "unjoined");
        sc_buf_putc(b, '[');
        for (size_t i = 0; i < it->nunjoined; i++) {
            bool uf;
            if (i)
                sc_buf_putc(b, ',');
            sc_json_obj_begin(b, &uf);
            sc_json_member_u64(b, &uf, "stream", it->unjoined[i].stream);
            sc_json_key(b, &uf, "nodes");
            sc_buf_putc(b, '[');
            for (size_t j = 0; j < it->unjoined[i].nnodes; j++)
                sc_buf_printf(b, "%s%llu", j ? "," : "",
                              (unsigned long long)it->unjoined[i].nodes[j]);
            sc_buf_putc(b, ']');
            sc_json_obj_end(b);
        }
        sc_buf_putc(b, ']');
    }
    if (!it->has_broken)
        return;
    bool bf;
    sc_json_key(b, first, "broken_by");
    sc_json_obj_begin(b, &bf);
    if (it->broken_call)
        sc_json_member_cstr(b, &bf, "call", it->broken_call);
    if (it->broken_has_error)
        sc_json_member_i64(b, &bf, "cuda_error", it->broken_error);
    if (it->broken_name)
        sc_json_member_cstr(b, &bf, "cuda_name", it->broken_name);
    sc_json_obj_end(b);
}

/* The items of one outcome as a JSON array member. */
static void json_items(sc_buf *b, bool *first, const char *key, const run_report *r,
                       const char *outcome)
{
    sc_json_key(b, first, key);
    sc_buf_putc(b, '[');
    bool any = false;
    for (size_t i = 0; i < r->nitems; i++) {
        const run_item *it = &r->items[i];
        if (!outcome_is(it, outcome))
            continue;
        bool f;
        if (any)
            sc_buf_putc(b, ',');
        any = true;
        sc_json_obj_begin(b, &f);
        if (strcmp(outcome, "stored") == 0)
            sc_json_member_u64(b, &f, "graph", it->graph);
        json_item_common(b, &f, it);
        if (strcmp(outcome, "stored") == 0 || strcmp(outcome, "kept") == 0) {
            sc_json_member_u64(b, &f, "node_count", it->nodes);
            sc_json_member_u64(b, &f, "edge_count", it->edges);
        }
        if (strcmp(outcome, "failed") == 0)
            json_failure(b, &f, it);
        sc_json_obj_end(b);
    }
    sc_buf_putc(b, ']');
}

static void json_procs(sc_buf *b, bool *first, const run_report *r)
{
    sc_json_key(b, first, "processes");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < r->nprocs; i++) {
        const run_proc *p = &r->procs[i];
        bool f;
        if (i)
            sc_buf_putc(b, ',');
        sc_json_obj_begin(b, &f);
        sc_json_member_i64(b, &f, "pid", p->pid);
        cli_json_member_str_or_null(b, &f, "program", p->program);
        cli_json_member_str_or_null(b, &f, "label", p->label);
        cli_json_member_str_or_null(b, &f, "daemon", p->daemon);
        sc_json_key(b, &f, "session");
        if (p->has_session)
            sc_json_u64(b, p->session);
        else
            sc_buf_puts(b, "null");
        sc_json_obj_end(b);
    }
    sc_buf_putc(b, ']');
}

static void json_tail(sc_buf *b, bool *first, const run_report *r)
{
    sc_json_key(b, first, "unsupported");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < r->nunsupported; i++) {
        if (i)
            sc_buf_putc(b, ',');
        sc_json_cstr(b, r->unsupported[i]);
    }
    sc_buf_putc(b, ']');
    sc_json_member_bool(b, first, "report_missing", r->nprocs == 0);
    sc_json_key(b, first, "bad_report_lines");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < r->nbad; i++) {
        bool f;
        if (i)
            sc_buf_putc(b, ',');
        sc_json_obj_begin(b, &f);
        sc_json_member_u64(b, &f, "line", r->bad[i].line);
        sc_json_member_cstr(b, &f, "reason", r->bad[i].reason ? r->bad[i].reason : "");
        sc_json_obj_end(b);
    }
    sc_buf_putc(b, ']');
}

static void summary_json(sc_buf *b, const run_end *end, const run_report *r)
{
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_member_cstr(b, &first, "program", end->program);
    sc_json_member_i64(b, &first, "exit_status", end->status);
    sc_json_key(b, &first, "signal");
    if (end->signal)
        sc_json_i64(b, end->signal);
    else
        sc_buf_puts(b, "null");
    json_procs(b, &first, r);
    sc_json_member_u64(b, &first, "captures_begun", r->captures_begun);
    json_items(b, &first, "graphs", r, "stored");
    json_items(b, &first, "kept", r, "kept");
    json_items(b, &first, "failed", r, "failed");
    json_items(b, &first, "discarded", r, "discarded");
    json_tail(b, &first, r);
    sc_json_obj_end(b);
    sc_buf_putc(b, '\n');
}

/* Text for a terminal: every string from the report passes through here. */
static void put_safe(FILE *f, const char *s)
{
    char *p = cli_printable(s ? s : "");
    fputs(p ? p : "", f);
    free(p);
}

static size_t count_outcome(const run_report *r, const char *o)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nitems; i++)
        n += outcome_is(&r->items[i], o);
    return n;
}

/* "capture 3 of pid 42 (global mode)" or "graph built by hand in pid 42 (label x)" */
static void put_origin(FILE *f, const run_item *it)
{
    if (it->submit) {
        fprintf(f, "built by hand in pid %lld", (long long)it->pid);
        if (it->label) {
            fputs(", label ", f);
            put_safe(f, it->label);
        }
        return;
    }
    fprintf(f, "capture %llu of pid %lld", (unsigned long long)it->capture, (long long)it->pid);
    if (it->mode) {
        fputs(", ", f);
        put_safe(f, it->mode);
        fputs(" mode", f);
    }
}

static void put_counts(FILE *f, const run_item *it)
{
    fprintf(f, "%llu node%s, %llu edge%s", (unsigned long long)it->nodes, it->nodes == 1 ? "" : "s",
            (unsigned long long)it->edges, it->edges == 1 ? "" : "s");
}

static void put_cuda_error(FILE *f, const char *name, bool has, int64_t code)
{
    put_safe(f, name ? name : "a CUDA error");
    if (has)
        fprintf(f, " (%lld)", (long long)code);
}

static void text_failed(FILE *f, const run_item *it)
{
    fputs("    ", f);
    put_origin(f, it);
    fputs(": ", f);
    put_safe(f, it->call ? it->call : "its end");
    fputs(" failed with ", f);
    put_cuda_error(f, it->cuda_name, it->has_error, it->cuda_error);
    if (it->message) {
        fputs(": ", f);
        put_safe(f, it->message);
    }
    if (it->has_broken) {
        fputs("; broken by ", f);
        put_safe(f, it->broken_call ? it->broken_call : "an earlier call");
        if (it->broken_name || it->broken_has_error) {
            fputs(", which returned ", f);
            put_cuda_error(f, it->broken_name, it->broken_has_error, it->broken_error);
        }
    }
    for (size_t i = 0; i < it->nunjoined; i++) {
        const run_unjoined *u = &it->unjoined[i];
        fprintf(f, "%s stream %llu (node%s", i ? "," : "; unjoined work on",
                (unsigned long long)u->stream, u->nnodes == 1 ? "" : "s");
        for (size_t j = 0; j < u->nnodes; j++)
            fprintf(f, "%s %llu", j ? "," : "", (unsigned long long)u->nodes[j]);
        fputc(')', f);
    }
    fputc('\n', f);
}

static void text_item(FILE *f, const run_item *it)
{
    if (outcome_is(it, "failed")) {
        text_failed(f, it);
        return;
    }
    if (outcome_is(it, "stored"))
        fprintf(f, "    graph %llu: ", (unsigned long long)it->graph);
    else
        fputs("    ", f);
    if (!outcome_is(it, "discarded")) {
        put_counts(f, it);
        fputs(" (", f);
        put_origin(f, it);
        fputs(")\n", f);
        return;
    }
    put_origin(f, it);
    fputc('\n', f);
}

static void text_section(FILE *f, const run_report *r, const char *outcome, const char *title)
{
    size_t n = count_outcome(r, outcome);
    if (n == 0 && strcmp(outcome, "stored") != 0)
        return;
    fprintf(f, "  %s: %zu\n", title, n);
    for (size_t i = 0; i < r->nitems; i++) {
        if (outcome_is(&r->items[i], outcome))
            text_item(f, &r->items[i]);
    }
}

static void text_procs(FILE *f, const run_report *r)
{
    for (size_t i = 0; i < r->nprocs; i++) {
        const run_proc *p = &r->procs[i];
        fprintf(f, "  process %lld", (long long)p->pid);
        if (p->program) {
            fputs(" (", f);
            put_safe(f, p->program);
            fputc(')', f);
        }
        if (p->label) {
            fputs(", label ", f);
            put_safe(f, p->label);
        }
        fputs(": daemon ", f);
        put_safe(f, p->daemon ? p->daemon : "unknown");
        if (p->has_session)
            fprintf(f, ", session %llu", (unsigned long long)p->session);
        fputc('\n', f);
    }
}

static void summary_text(FILE *f, const run_end *end, const run_report *r)
{
    fputs("streamcap run: ", f);
    put_safe(f, end->program);
    if (end->signal)
        fprintf(f, " was killed by signal %d (%s); exit status %d\n", end->signal,
                strsignal(end->signal), end->status);
    else
        fprintf(f, " exited with status %d\n", end->status);
    if (r->nprocs == 0)
        fprintf(f, "  %s\n", no_report);
    text_procs(f, r);
    fprintf(f, "  captures begun: %llu\n", (unsigned long long)r->captures_begun);
    text_section(f, r, "stored", "graphs stored");
    text_section(f, r, "failed", "failed captures");
    text_section(f, r, "kept", "kept in the process, stored by no daemon");
    text_section(f, r, "discarded", "never ended by the program");
    if (r->nunsupported) {
        fputs("  runtime calls the stand-in does not support:", f);
        for (size_t i = 0; i < r->nunsupported; i++) {
            fputs(i ? ", " : " ", f);
            put_safe(f, r->unsupported[i]);
        }
        fputc('\n', f);
    }
    for (size_t i = 0; i < r->nbad; i++) {
        if (r->bad[i].line)
            fprintf(f, "  report line %zu skipped: %s\n", r->bad[i].line, r->bad[i].reason);
        else
            fprintf(f, "  the report could not be read: %s\n", r->bad[i].reason);
    }
}

/* ---------------------------------------------------- the stand-in */

/* Where the stand-in may be, in the order they are tried; a candidate is
 * skipped when an earlier one names the same directory. */
typedef struct run_places {
    char dir[4][PATH_MAX];
    const char *what[4];
    size_t n;
} run_places;

static void add_place(run_places *pl, const char *what, const char *a, const char *b)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof(path), "%s%s", a, b ? b : "") >= (int)sizeof(path))
        return;
    for (size_t i = 0; i < pl->n; i++) {
        if (strcmp(pl->dir[i], path) == 0)
            return;
    }
    memcpy(pl->dir[pl->n], path, sizeof(path));
    pl->what[pl->n++] = what;
}

/* The directory of this executable, with a trailing '/'; "" when unknown. */
static void exe_dir(char *out, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    out[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(out, '/');
    if (slash)
        slash[1] = '\0';
    else
        out[0] = '\0';
}

static void standin_places(run_places *pl)
{
    memset(pl, 0, sizeof(*pl));
    const char *env = getenv("STREAMCAP_CUDART_DIR");
    if (env && *env)
        add_place(pl, "$STREAMCAP_CUDART_DIR", env, NULL);
    char exe[PATH_MAX];
    exe_dir(exe, sizeof(exe));
    if (exe[0]) {
        add_place(pl, "the build tree", exe, "../lib/streamcap/cudart");
        add_place(pl, "the installed location", exe, SC_CUDART_FROM_BINDIR);
    }
    add_place(pl, "the configured install location", SC_CUDART_INSTALL_DIR, NULL);
}

static bool has_standin(const char *dir)
{
    char path[PATH_MAX];
    struct stat st;
    return snprintf(path, sizeof(path), "%s/%s", dir, RUN_STANDIN) < (int)sizeof(path) &&
           stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The stand-in's directory as an absolute path into out; CLI_ERROR (said)
 * when no place holds it. */
static int find_standin(cli *x, char *out)
{
    run_places pl;
    standin_places(&pl);
    for (size_t i = 0; i < pl.n; i++) {
        if (has_standin(pl.dir[i]) && realpath(pl.dir[i], out)) {
            if (i > 0 && strcmp(pl.what[0], "$STREAMCAP_CUDART_DIR") == 0)
                fprintf(stderr,
                        "streamcap: warning: $STREAMCAP_CUDART_DIR (%s) has no %s; using %s\n",
                        pl.dir[0], RUN_STANDIN, out);
            return CLI_OK;
        }
    }
    char msg[4 * PATH_MAX + 256];
    size_t len = (size_t)snprintf(
        msg, sizeof(msg), "cannot find the CUDA runtime stand-in %s; looked in", RUN_STANDIN);
    for (size_t i = 0; i < pl.n && len < sizeof(msg); i++)
        len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%s %s (%s)", i ? "," : "", pl.dir[i],
                                pl.what[i]);
    return cli_fail(x, "%s; set STREAMCAP_CUDART_DIR to the directory that holds it", msg);
}

/* --------------------------------------------------- the environment */

static int set_env(cli *x, const char *name, const char *value)
{
    if (setenv(name, value, 1) != 0)
        return cli_fail(x, "cannot set %s: %s", name, strerror(errno));
    return CLI_OK;
}

/* The stand-in first; an empty entry would add the current directory. */
static int set_library_path(cli *x, const char *dir)
{
    const char *old = getenv("LD_LIBRARY_PATH");
    if (!old || !*old)
        return set_env(x, "LD_LIBRARY_PATH", dir);
    size_t n = strlen(dir) + strlen(old) + 2;
    char *v = malloc(n);
    if (!v)
        return cli_fail(x, "out of memory");
    snprintf(v, n, "%s:%s", dir, old);
    int rc = set_env(x, "LD_LIBRARY_PATH", v);
    free(v);
    return rc;
}

/* The program may change directory: a relative socket is made absolute. */
static int set_socket(cli *x)
{
    if (x->socket[0] == '/')
        return set_env(x, "STREAMCAP_SOCKET", x->socket);
    char cwd[PATH_MAX], path[2 * PATH_MAX];
    if (!getcwd(cwd, sizeof(cwd)))
        return cli_fail(x, "cannot resolve the socket path %s: %s", x->socket, strerror(errno));
    snprintf(path, sizeof(path), "%s/%s", cwd, x->socket);
    return set_env(x, "STREAMCAP_SOCKET", path);
}

/* A fresh, empty report file, private to this user; its path into out. */
static int make_report(cli *x, char *out, size_t len)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || tmp[0] != '/')
        tmp = "/tmp";
    if (snprintf(out, len, "%s/streamcap-run-XXXXXX", tmp) >= (int)len)
        return cli_fail(x, "TMPDIR is too long: %s", tmp);
    int fd = mkstemp(out);
    if (fd < 0)
        return cli_fail(x, "cannot create a report file in %s: %s", tmp, strerror(errno));
    close(fd);
    return CLI_OK;
}

/* ------------------------------------------------------ the program */

static void on_child(int sig)
{
    (void)sig; /* only there so that SIGCHLD is not discarded while blocked */
}

/* In the child: the program gets the signal state a shell would give it,
 * not this tool's (SIGPIPE ignored, signals blocked); on failure errno goes
 * up the pipe. */
static void exec_program(char **argv, const sigset_t *mask, int err_fd)
{
    signal(SIGPIPE, SIG_DFL);
    signal(SIGCHLD, SIG_DFL);
    sigprocmask(SIG_SETMASK, mask, NULL);
    execvp(argv[0], argv);
    int e = errno;
    ssize_t w = write(err_fd, &e, sizeof(e));
    (void)w;
    _exit(127);
}

/* Wait for the child, passing on the signals meant for it.  A signal from
 * the terminal (si_code SI_KERNEL) reached the program's process group,
 * the program included, already: sending it again would deliver it twice. */
static int wait_program(pid_t pid, const sigset_t *set, int *wstatus)
{
    for (;;) {
        siginfo_t si;
        int sig = sigwaitinfo(set, &si);
        if (sig < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (sig == SIGCHLD) {
            pid_t r = waitpid(pid, wstatus, WNOHANG);
            if (r == pid)
                return 0;
            if (r < 0 && errno != EINTR)
                return -1;
            continue;
        }
#ifdef SI_KERNEL
        if (si.si_code == SI_KERNEL)
            continue;
#endif
        kill(pid, sig);
    }
}

/* Run the program to its end: CLI_OK and *wstatus, or an exit status
 * (127, 126, CLI_ERROR) with the reason said. */
static int run_program(cli *x, char **argv, int *wstatus)
{
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGCHLD);
    struct sigaction sa = {0}, old_chld;
    sa.sa_handler = on_child;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, &old_chld);
    sigprocmask(SIG_BLOCK, &set, &old);
    int pfd[2];
    int rc = CLI_OK;
    pid_t pid = -1;
    if (pipe(pfd) != 0 || fcntl(pfd[1], F_SETFD, FD_CLOEXEC) != 0 ||
        fcntl(pfd[0], F_SETFD, FD_CLOEXEC) != 0) {
        rc = cli_fail(x, "cannot start %s: %s", argv[0], strerror(errno));
    } else if ((pid = fork()) < 0) {
        rc = cli_fail(x, "cannot start %s: %s", argv[0], strerror(errno));
        close(pfd[0]);
        close(pfd[1]);
    } else if (pid == 0) {
        close(pfd[0]);
        exec_program(argv, &old, pfd[1]);
    } else {
        close(pfd[1]);
        int e = 0;
        ssize_t n;
        while ((n = read(pfd[0], &e, sizeof(e))) < 0 && errno == EINTR)
            ;
        close(pfd[0]);
        if (n == (ssize_t)sizeof(e)) {
            while (waitpid(pid, wstatus, 0) < 0 && errno == EINTR)
                ;
            cli_fail(x, "cannot run %s: %s", argv[0], strerror(e));
            rc = e == ENOENT ? 127 : 126;
        } else if (wait_program(pid, &set, wstatus) != 0) {
            rc = cli_fail(x, "lost track of %s: %s", argv[0], strerror(errno));
        }
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    sigaction(SIGCHLD, &old_chld, NULL);
    return rc;
}

/* ------------------------------------------------------- the command */

bool cli_run_takes_value(const char *arg)
{
    return strcmp(arg, "--label") == 0 || strcmp(arg, "--summary-file") == 0;
}

typedef struct run_opts {
    const char *label, *summary_file;
    int prog; /* index of PROGRAM in argv */
} run_opts;

static int run_args(cli *x, int argc, char **argv, run_opts *o)
{
    int i = 0;
    while (i < argc) {
        const char *v = NULL;
        int r;
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else if ((r = cli_take_opt(argc, argv, &i, "--label", &v)) != 0) {
            if (r < 0 || !*v)
                return cli_usage_fail(x, "--label takes a label");
            o->label = v;
        } else if ((r = cli_take_opt(argc, argv, &i, "--summary-file", &v)) != 0) {
            if (r < 0 || !*v)
                return cli_usage_fail(x, "--summary-file takes a path");
            o->summary_file = v;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return cli_usage_fail(x,
                                  "unknown option '%s' (put '--' before a program whose name "
                                  "starts with '-')",
                                  argv[i]);
        } else {
            break;
        }
    }
    if (i >= argc)
        return cli_usage_fail(x, "run needs a PROGRAM to run");
    o->prog = i;
    return CLI_OK;
}

static int prepare_env(cli *x, const run_opts *o, const char *report)
{
    char dir[PATH_MAX];
    if (find_standin(x, dir) != CLI_OK || set_library_path(x, dir) != CLI_OK ||
        set_socket(x) != CLI_OK || set_env(x, "STREAMCAP_REPORT", report) != CLI_OK)
        return CLI_ERROR;
    if (o->label)
        return set_env(x, "STREAMCAP_LABEL", o->label);
    return CLI_OK;
}

static int write_summary(cli *x, FILE *f, const run_end *end, const run_report *r)
{
    if (x->json) {
        sc_buf b = SC_BUF_INIT;
        summary_json(&b, end, r);
        if (sc_buf_failed(&b)) {
            sc_buf_free(&b);
            return cli_fail(x, "out of memory");
        }
        fwrite(b.data, 1, b.len, f);
        sc_buf_free(&b);
    } else {
        summary_text(f, end, r);
    }
    return fflush(f) == 0 && !ferror(f)
               ? CLI_OK
               : cli_fail(x, "cannot write the summary: %s", strerror(errno));
}

static void end_from_status(run_end *end, int wstatus)
{
    if (WIFSIGNALED(wstatus)) {
        end->signal = WTERMSIG(wstatus);
        end->status = 128 + end->signal;
    } else {
        end->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : CLI_ERROR;
    }
}

int cli_run(cli *x, int argc, char **argv)
{
    run_opts o = {0};
    /* The program's status 3 is not this tool's CLI_QUIET. */
    x->raw_status = true;
    if (run_args(x, argc, argv, &o) != CLI_OK)
        return CLI_ERROR;
    /* Opened first: a summary that cannot be written is known before the
     * program has run. */
    FILE *sf = stderr;
    if (o.summary_file && !(sf = fopen(o.summary_file, "w")))
        return cli_fail(x, "cannot write %s: %s", o.summary_file, strerror(errno));
    char report[PATH_MAX];
    int rc = make_report(x, report, sizeof(report));
    if (rc != CLI_OK) {
        if (sf != stderr)
            fclose(sf);
        return rc;
    }
    int wstatus = 0;
    rc = prepare_env(x, &o, report);
    if (rc == CLI_OK)
        rc = run_program(x, argv + o.prog, &wstatus);
    if (rc == CLI_OK) {
        run_end end = {.program = argv[o.prog]};
        end_from_status(&end, wstatus);
        run_report r = {0};
        read_report(report, &r);
        rc = write_summary(x, sf, &end, &r) == CLI_OK ? end.status : CLI_ERROR;
        free_report(&r);
    }
    unlink(report);
    if (sf != stderr)
        fclose(sf);
    return rc;
}
