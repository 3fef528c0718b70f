/*
 * cli_run_report.c - streamcap run: reading the report the program's
 * processes wrote at exit (its format: proto/sc_report.h).  Lines that are
 * not report lines are kept with the reason, for the summary to show.
 */
#define _XOPEN_SOURCE 700

#include "cli_run.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sc_report.h"

/* The longest number a report may carry and still mean what it says. */
#define RUN_MAX_U53 9007199254740992.0

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
    const cJSON *cb = cJSON_GetObjectItemCaseSensitive(o, SC_REPORT_CAPTURES_BEGUN);
    if (cb && !u64_member(o, SC_REPORT_CAPTURES_BEGUN, &begun))
        return "\"captures_begun\" is not a count";
    run_proc *p = grow(&r->procs, &r->nprocs, sizeof(*p));
    if (!p)
        return "out of memory";
    p->pid = pid;
    p->program = dup_member(o, SC_REPORT_PROGRAM);
    p->label = dup_member(o, SC_REPORT_LABEL);
    p->daemon = dup_member(o, SC_REPORT_DAEMON);
    p->has_session = u64_member(o, SC_REPORT_SESSION, &p->session);
    r->captures_begun += begun;
    const cJSON *un = cJSON_GetObjectItemCaseSensitive(o, SC_REPORT_UNSUPPORTED);
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
    static const char *const names[] = {SC_REPORT_STORED, SC_REPORT_KEPT, SC_REPORT_FAILED,
                                        SC_REPORT_DISCARDED};
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
    const cJSON *un = cJSON_GetObjectItemCaseSensitive(o, SC_REPORT_UNJOINED);
    int n = cJSON_IsArray(un) ? cJSON_GetArraySize(un) : 0;
    if (n <= 0 || !(it->unjoined = calloc((size_t)n, sizeof *it->unjoined)))
        return;
    const cJSON *e;
    cJSON_ArrayForEach(e, un)
    {
        run_unjoined *u = &it->unjoined[it->nunjoined];
        const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(e, SC_REPORT_NODES);
        int m = cJSON_IsArray(nodes) ? cJSON_GetArraySize(nodes) : 0;
        if (!u64_member(e, SC_REPORT_STREAM, &u->stream) || m <= 0 ||
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
    it->call = dup_member(o, SC_REPORT_CALL);
    it->cuda_name = dup_member(o, SC_REPORT_CUDA_NAME);
    it->message = dup_member(o, SC_REPORT_MESSAGE);
    it->has_error = i64_member(o, SC_REPORT_CUDA_ERROR, &it->cuda_error);
    const cJSON *bb = cJSON_GetObjectItemCaseSensitive(o, SC_REPORT_BROKEN_BY);
    if (!cJSON_IsObject(bb))
        return;
    it->has_broken = true;
    it->broken_call = dup_member(bb, SC_REPORT_CALL);
    it->broken_name = dup_member(bb, SC_REPORT_CUDA_NAME);
    it->broken_has_error = i64_member(bb, SC_REPORT_CUDA_ERROR, &it->broken_error);
}

static const char *parse_capture(run_report *r, const cJSON *o, int64_t pid)
{
    uint64_t capture;
    const char *outcome = str_member(o, SC_REPORT_OUTCOME);
    if (!u64_member(o, SC_REPORT_CAPTURE, &capture))
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
    it->mode = dup_member(o, SC_REPORT_MODE);
    it->has_graph = u64_member(o, SC_REPORT_GRAPH, &it->graph);
    u64_member(o, SC_REPORT_NODE_COUNT, &it->nodes);
    u64_member(o, SC_REPORT_EDGE_COUNT, &it->edges);
    /* "stored" without the daemon's id would be a graph nobody can find. */
    if (strcmp(outcome, SC_REPORT_STORED) == 0 && !it->has_graph) {
        free(it->outcome);
        it->outcome = strdup(SC_REPORT_KEPT);
    }
    if (strcmp(outcome, SC_REPORT_FAILED) == 0)
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
    it->label = dup_member(o, SC_REPORT_LABEL);
    it->has_graph = u64_member(o, SC_REPORT_GRAPH, &it->graph);
    it->outcome = strdup(it->has_graph ? SC_REPORT_STORED : SC_REPORT_KEPT);
    u64_member(o, SC_REPORT_NODE_COUNT, &it->nodes);
    u64_member(o, SC_REPORT_EDGE_COUNT, &it->edges);
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
    const char *event = str_member(o, SC_REPORT_EVENT);
    int64_t pid;
    if (!cJSON_IsObject(o))
        why = "not a JSON object";
    else if (!event)
        why = "no \"event\"";
    else if (!i64_member(o, SC_REPORT_PID, &pid) || pid <= 0)
        why = "\"pid\" is not a process id";
    else if (strcmp(event, SC_REPORT_EV_PROCESS) == 0)
        why = parse_process(r, o, pid);
    else if (strcmp(event, SC_REPORT_EV_CAPTURE) == 0)
        why = parse_capture(r, o, pid);
    else if (strcmp(event, SC_REPORT_EV_GRAPH) == 0)
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

void cli_run_report_read(const char *path, run_report *r)
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

void cli_run_report_free(run_report *r)
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
    free(r->daemon_error);
    free(r->cudart_soname);
    free(r->cudart_other);
}

bool cli_run_outcome_is(const run_item *it, const char *o)
{
    return it->outcome && strcmp(it->outcome, o) == 0;
}
