/*
 * cli_run_baseline.c - streamcap run --baseline FILE [--update-baseline]:
 * the graphs a run stored, written to FILE for review or compared with it
 * (docs/analyses.md, "Baselines").
 *
 * FILE is {version: 1, program, graphs: [{label, capture, fingerprint:
 * {structure, full}, nodes, edges}]}, the graphs in capture order (their
 * ids ascending), nodes and edges as graph.get gives them less what
 * differs between runs of the same program (drop_volatile).  A run is
 * compared graph by graph, by fingerprint first; a graph whose
 * fingerprints differ is diffed by the daemon: the baseline's graph is
 * submitted (graph.submit), diffed against the run's (graph.diff) and
 * deleted again, so the tool needs no diff of its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "cli_run.h"

/* What changes from run to run of an unchanged program goes: argument
 * bytes and accessed addresses (pointers, which differ with every
 * address-space layout; neither is in a fingerprint or a diff) and the
 * process id that `streamcap run` appends to a default label.  So
 * rewriting the baseline of an unchanged program changes no byte, and a
 * reviewer sees only what changed. */
static void drop_volatile(cJSON *e, const run_report *r)
{
    cJSON *nodes = cJSON_GetObjectItemCaseSensitive(e, "nodes"), *n;
    cJSON_ArrayForEach(n, nodes)
    {
        cJSON_DeleteItemFromObjectCaseSensitive(n, "args");
        cJSON_DeleteItemFromObjectCaseSensitive(n, "accesses");
    }
    cJSON *label = cJSON_GetObjectItemCaseSensitive(e, "label");
    char *colon = cJSON_IsString(label) ? strrchr(label->valuestring, ':') : NULL;
    if (!colon || colon[1] == '\0')
        return;
    char *end;
    long long pid = strtoll(colon + 1, &end, 10);
    for (size_t i = 0; *end == '\0' && i < r->nprocs; i++)
        if (r->procs[i].pid == pid) {
            *colon = '\0';
            return;
        }
}

/* graph.get of one graph as a baseline entry; NULL with the error said. */
static cJSON *baseline_entry(cli *x, uint64_t id, const run_report *r)
{
    char params[64], *text = NULL;
    snprintf(params, sizeof params, "{\"graph\":%llu}", (unsigned long long)id);
    int rc = sc_client_call_raw(x->c, "graph.get", params, &text);
    if (rc != 0) {
        fprintf(stderr, "streamcap: run: --baseline: graph %llu: %s\n", (unsigned long long)id,
                sc_client_errmsg(x->c));
        return NULL;
    }
    cJSON *g = cJSON_Parse(text);
    free(text);
    cJSON *e = cJSON_CreateObject();
    if (!g || !e) {
        cJSON_Delete(g);
        cJSON_Delete(e);
        return NULL;
    }
    static const char *const keep[] = {"label", "capture", "fingerprint", "nodes", "edges"};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(g, keep[i]);
        cJSON_AddItemToObject(e, keep[i], v ? v : cJSON_CreateNull());
    }
    cJSON_Delete(g);
    drop_volatile(e, r);
    return e;
}

/* The run as a baseline document; NULL with the error said. */
static cJSON *run_document(cli *x, const char *program, const run_report *r, const uint64_t *ids,
                           size_t n)
{
    cJSON *doc = cJSON_CreateObject(), *graphs = cJSON_CreateArray();
    if (!doc || !graphs) {
        cJSON_Delete(doc);
        cJSON_Delete(graphs);
        return NULL;
    }
    cJSON_AddNumberToObject(doc, "version", 1);
    /* The name alone: a path would differ from one checkout to the next. */
    const char *slash = strrchr(program, '/');
    cJSON_AddStringToObject(doc, "program", slash ? slash + 1 : program);
    cJSON_AddItemToObject(doc, "graphs", graphs);
    for (size_t i = 0; i < n; i++) {
        cJSON *e = baseline_entry(x, ids[i], r);
        if (!e) {
            cJSON_Delete(doc);
            return NULL;
        }
        cJSON_AddItemToArray(graphs, e);
    }
    return doc;
}

static int write_file(const char *file, const cJSON *doc)
{
    char *text = cJSON_Print(doc);
    FILE *f = text ? fopen(file, "w") : NULL;
    bool ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    ok = f && fclose(f) == 0 && ok;
    if (!ok)
        fprintf(stderr, "streamcap: run: cannot write the baseline %s: %s\n", file,
                strerror(errno));
    free(text);
    return ok ? CLI_OK : CLI_ERROR;
}

static cJSON *read_file(const char *file)
{
    char *text = cli_read_file(file, NULL);
    cJSON *doc = text ? cJSON_Parse(text) : NULL;
    free(text);
    return doc;
}

static const char *fp_of(const cJSON *e, const char *which)
{
    const cJSON *fp = cJSON_GetObjectItemCaseSensitive(e, "fingerprint");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(fp, which);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool same_fingerprints(const cJSON *a, const cJSON *b)
{
    const char *as = fp_of(a, "structure"), *af = fp_of(a, "full");
    const char *bs = fp_of(b, "structure"), *bf = fp_of(b, "full");
    return as && af && bs && bf && strcmp(as, bs) == 0 && strcmp(af, bf) == 0;
}

/* The baseline's graph i submitted and diffed against the run's graph. */
static void print_diff(cli *x, const cJSON *base, uint64_t run_id)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "label", "baseline");
    cJSON_AddItemToObject(p, "nodes",
                          cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(base, "nodes"), 1));
    cJSON_AddItemToObject(p, "edges",
                          cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(base, "edges"), 1));
    char *params = cJSON_PrintUnformatted(p), *res = NULL;
    cJSON_Delete(p);
    int rc = params ? sc_client_call_raw(x->c, "graph.submit", params, &res) : -ENOMEM;
    free(params);
    cJSON *r = rc == 0 ? cJSON_Parse(res) : NULL;
    free(res);
    const cJSON *gid = cJSON_GetObjectItemCaseSensitive(r, "graph");
    if (!cJSON_IsNumber(gid)) {
        fprintf(stderr, "  (no diff: the baseline's graph could not be submitted: %s)\n",
                rc ? sc_client_errmsg(x->c) : "bad reply");
        cJSON_Delete(r);
        return;
    }
    uint64_t bid = (uint64_t)gid->valuedouble;
    cJSON_Delete(r);
    sc_client_diff d = {0};
    if (sc_client_graph_diff(x->c, bid, run_id, &d) == 0)
        cli_diff_print(stderr, bid, run_id, &d);
    else
        fprintf(stderr, "  (no diff: %s)\n", sc_client_errmsg(x->c));
    sc_client_diff_free(&d);
    (void)sc_client_graph_delete(x->c, bid);
}

/* Compare the run's document with the baseline's: true when they agree,
 * each difference said on stderr. */
static bool compare(cli *x, const char *file, const cJSON *base, const cJSON *run,
                    const uint64_t *ids)
{
    const cJSON *bg = cJSON_GetObjectItemCaseSensitive(base, "graphs");
    const cJSON *rg = cJSON_GetObjectItemCaseSensitive(run, "graphs");
    int nb = cJSON_GetArraySize(bg), nr = cJSON_GetArraySize(rg);
    bool same = nb == nr;
    if (!same)
        fprintf(stderr, "streamcap: run: baseline %s has %d graphs, the run stored %d\n", file, nb,
                nr);
    for (int i = 0; i < nb && i < nr; i++) {
        const cJSON *b = cJSON_GetArrayItem(bg, i), *r = cJSON_GetArrayItem(rg, i);
        if (same_fingerprints(b, r))
            continue;
        same = false;
        fprintf(stderr,
                "streamcap: run: graph %d of the run (graph %llu) differs from baseline %s "
                "(fingerprint %s/%s, baseline %s/%s):\n",
                i + 1, (unsigned long long)ids[i], file, fp_of(r, "structure"), fp_of(r, "full"),
                fp_of(b, "structure") ? fp_of(b, "structure") : "none",
                fp_of(b, "full") ? fp_of(b, "full") : "none");
        print_diff(x, b, ids[i]);
    }
    return same;
}

static bool valid_baseline(const cJSON *doc)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, "version");
    return cJSON_IsNumber(v) && v->valuedouble == 1 &&
           cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "graphs"));
}

int cli_run_baseline(cli *x, const char *file, bool update, const char *program,
                     const run_report *r)
{
    if (cli_connect(x) != CLI_OK)
        return CLI_ERROR;
    uint64_t *ids;
    size_t n = cli_run_graph_ids(r, &ids);
    cJSON *run = ids ? run_document(x, program, r, ids, n) : NULL;
    if (!run) {
        free(ids);
        fprintf(stderr, "streamcap: run: --baseline: cannot read the run's graphs\n");
        return CLI_ERROR;
    }
    int rc = CLI_OK;
    bool exists = !update && access(file, F_OK) == 0;
    cJSON *base = exists ? read_file(file) : NULL;
    if (exists && !base) {
        fprintf(stderr, "streamcap: run: cannot read the baseline %s (unreadable or not JSON)\n",
                file);
        rc = CLI_ERROR;
    } else if (!base) {
        rc = write_file(file, run);
        if (rc == CLI_OK)
            fprintf(stderr, "streamcap: run: baseline %s written: %zu graphs\n", file, n);
    } else if (!valid_baseline(base)) {
        fprintf(stderr, "streamcap: run: %s is not a baseline (version 1 with graphs)\n", file);
        rc = CLI_ERROR;
    } else if (!compare(x, file, base, run, ids)) {
        rc = RUN_BASELINE_STATUS;
    } else {
        fprintf(stderr, "streamcap: run: the run's %zu graphs match baseline %s\n", n, file);
    }
    cJSON_Delete(base);
    cJSON_Delete(run);
    free(ids);
    return rc;
}
