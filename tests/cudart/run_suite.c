/*
 * run_suite.c - one end-to-end scenario of the CUDA runtime stand-in:
 * run a scenario program (tests/cudart/programs) under `streamcap run
 * --json` against a real streamcapd, then check what the program left
 * against its expectation file: the summary's captures, graphs, failed
 * captures and unsupported calls, every stored graph read back with
 * graph.get node by node and edge by edge, and the daemon's own capture
 * log for the same captures.
 *
 *     run_suite EXPECT.json PROGRAM       run and check (the .cu build or its C twin)
 *     run_suite EXPECT.json --skip WHY    print WHY, exit 77 (ctest: skipped)
 *
 * Expectation format (one JSON object): captures_begun, discarded,
 * unsupported (the exact list), graphs (each with source "capture" and
 * its capture id, or source "submit", matched in order among the
 * submits; nodes in id order, each holding only the members to compare;
 * edges; a child graph node's "child" and a conditional node's "bodies"
 * hold the expected body graphs, checked the same way through the ids the
 * stored node names), failed (each by capture id: call, cuda_error, cuda_name,
 * message?, broken_by?, unjoined?).  A node's "stream" is a letter: the
 * same letter must be the same stream id throughout the run, different
 * letters different ids.  Kernel names are the demangled device names, for
 * the C twins too (the stand-in demangles with libstdc++ either way).  A
 * node's "cu" object holds members compared only for the .cu build (a
 * program whose name ends in _cu): what its fat binary gives, such as a
 * kernel's param_sizes, which a C twin (no layout) is stored without.
 *
 * The run goes through `streamcap run --baseline`, as a user's CI job
 * would: NAME.baseline.json (NAME.cu.baseline.json for the .cu build)
 * beside the expectation holds the graphs' fingerprints, and any change
 * fails the scenario with the daemon's diff.  STREAMCAP_UPDATE_BASELINES
 * set rewrites them (--update-baseline) for review.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"
#include "run.h"

#define SKIP_STATUS    77
#define RUN_TIMEOUT_MS 90000

typedef struct suite_ctx {
    const char *expect_path;
    const char *program;
} suite_ctx;

/* The program is the .cu build: its nodes' "cu" members are compared. */
static bool g_cu_build;

/* Stream letters seen so far and the ids they stand for. */
typedef struct stream_map {
    char letter[26];
    int64_t id[26];
    size_t n;
} stream_map;

static const cJSON *member(const cJSON *obj, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(obj, name);
}

static cJSON *read_json(const char *path)
{
    char *text = sc_it_read_file(path);
    if (!text)
        fail_msg("cannot read %s: %s", path, strerror(errno));
    cJSON *j = cJSON_Parse(text);
    if (!j)
        fail_msg("%s is not JSON:\n%s", path, text);
    free(text);
    return j;
}

static int64_t int_or(const cJSON *obj, const char *name, int64_t dflt)
{
    int64_t v;
    return sc_it_json_int(obj, name, &v) ? v : dflt;
}

/* Bind letter -> id, or check the binding seen before. */
static void bind_stream(stream_map *m, const char *letter, int64_t id, const char *where)
{
    for (size_t i = 0; i < m->n; i++) {
        if (m->letter[i] == letter[0]) {
            if (m->id[i] != id)
                fail_msg("%s: stream %s was id %lld before, here %lld", where, letter,
                         (long long)m->id[i], (long long)id);
            return;
        }
        if (m->id[i] == id)
            fail_msg("%s: stream %s is id %lld, which is already stream %c", where, letter,
                     (long long)id, m->letter[i]);
    }
    assert_true(m->n < 26);
    m->letter[m->n] = letter[0];
    m->id[m->n] = id;
    m->n++;
}

/* Every member of `want` but "stream" must be in `got` with an equal value. */
static void compare_members(const cJSON *want, const cJSON *got, stream_map *m, const char *where)
{
    const cJSON *w;
    cJSON_ArrayForEach(w, want)
    {
        const cJSON *g = member(got, w->string);
        char *gt = sc_it_json_text(g);
        char *wt = sc_it_json_text(w);
        if (strcmp(w->string, "stream") == 0) {
            int64_t id = -1;
            if (!cJSON_IsString(w) || !sc_it_json_int(got, "stream", &id))
                fail_msg("%s: stream: want letter %s, got %s", where, wt, gt);
            bind_stream(m, w->valuestring, id, where);
        } else if (strcmp(w->string, "cu") == 0 && cJSON_IsObject(w)) {
            if (g_cu_build)
                compare_members(w, got, m, where);
        } else if (cJSON_IsObject(w) && cJSON_IsObject(g)) {
            compare_members(w, g, m, where);
        } else if (!g || !cJSON_Compare(w, g, true)) {
            fail_msg("%s: %s: want %s, got %s\nin %s", where, w->string, wt, gt,
                     sc_it_json_text(got));
        }
        free(gt);
        free(wt);
    }
}

/* graph.get of `id` must hold exactly the nodes and edges expected. */
static void check_stored_graph(sc_it_conn *c, int64_t id, const cJSON *want, stream_map *m,
                               const char *where);

/* A node's expected body graphs ("child": one graph, "bodies": a list),
 * each read back by the id the stored node names and checked like a
 * top-level graph, with its parent link. */
static void check_bodies(sc_it_conn *c, int64_t id, int node, const cJSON *wn, const cJSON *n,
                         stream_map *m, const char *where)
{
    const cJSON *wchild = member(wn, "child"), *wbodies = member(wn, "bodies");
    if (!wchild && !wbodies)
        return;
    const cJSON *got = member(n, wchild ? "child" : "bodies");
    int count = wchild ? 1 : cJSON_GetArraySize(wbodies);
    if (!got || (wbodies && cJSON_GetArraySize(got) != count))
        fail_msg("%s: stored node names no bodies like %s", where, sc_it_json_text(n));
    for (int i = 0; i < count; i++) {
        const cJSON *gid = wchild ? got : cJSON_GetArrayItem(got, i);
        const cJSON *wb = wchild ? wchild : cJSON_GetArrayItem(wbodies, i);
        char *bw = sc_it_fmt("%s, body %d", where, i);
        int64_t body = (int64_t)gid->valuedouble;
        cJSON *bg = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", (long long)body);
        const cJSON *p = member(bg, "parent");
        if (!p || sc_it_int(p, "graph") != id || sc_it_int(p, "node") != node ||
            sc_it_int(p, "index") != i)
            fail_msg("%s: graph %lld has parent %s", bw, (long long)body, sc_it_json_text(p));
        cJSON_Delete(bg);
        check_stored_graph(c, body, wb, m, bw);
        free(bw);
    }
}

static void check_stored_graph(sc_it_conn *c, int64_t id, const cJSON *want, stream_map *m,
                               const char *where)
{
    cJSON *g = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", (long long)id);
    const cJSON *nodes = member(g, "nodes"), *edges = member(g, "edges");
    const cJSON *wnodes = member(want, "nodes"), *wedges = member(want, "edges");
    char *text = sc_it_json_text(g);
    if (cJSON_GetArraySize(nodes) != cJSON_GetArraySize(wnodes))
        fail_msg("%s: graph %lld has %d nodes, want %d:\n%s", where, (long long)id,
                 cJSON_GetArraySize(nodes), cJSON_GetArraySize(wnodes), text);
    for (int i = 0; i < cJSON_GetArraySize(wnodes); i++) {
        const cJSON *n = cJSON_GetArrayItem(nodes, i);
        char *nw = sc_it_fmt("%s, graph %lld, node %d", where, (long long)id, i);
        if (int_or(n, "id", -1) != i)
            fail_msg("%s: id %lld out of order", nw, (long long)int_or(n, "id", -1));
        cJSON *wn = cJSON_Duplicate(cJSON_GetArrayItem(wnodes, i), true);
        cJSON *wchild = cJSON_DetachItemFromObjectCaseSensitive(wn, "child");
        cJSON *wbodies = cJSON_DetachItemFromObjectCaseSensitive(wn, "bodies");
        compare_members(wn, n, m, nw);
        cJSON_Delete(wn);
        cJSON *wb = cJSON_CreateObject();
        if (wchild)
            cJSON_AddItemToObject(wb, "child", wchild);
        if (wbodies)
            cJSON_AddItemToObject(wb, "bodies", wbodies);
        check_bodies(c, id, i, wb, n, m, nw);
        cJSON_Delete(wb);
        free(nw);
    }
    if (!cJSON_Compare(edges, wedges, true)) {
        char *we = sc_it_json_text(wedges), *ge = sc_it_json_text(edges);
        fail_msg("%s: graph %lld edges: want %s, got %s", where, (long long)id, we, ge);
    }
    free(text);
    cJSON_Delete(g);
}

/* The summary's entry of a list for capture `capture` (submits: the nth). */
static const cJSON *find_item(const cJSON *list, const char *source, int64_t capture, int nth)
{
    const cJSON *it;
    int seen = 0;
    cJSON_ArrayForEach(it, list)
    {
        const cJSON *src = member(it, "source");
        const char *s = cJSON_IsString(src) ? src->valuestring : "capture";
        if (strcmp(s, source) != 0)
            continue;
        if (strcmp(source, "submit") == 0 ? seen++ == nth : int_or(it, "capture", -1) == capture)
            return it;
    }
    return NULL;
}

static void check_graphs(sc_it_conn *c, const cJSON *sum, const cJSON *want, stream_map *m)
{
    const cJSON *graphs = member(sum, "graphs"), *wg;
    char *st = sc_it_json_text(graphs);
    if (cJSON_GetArraySize(graphs) != cJSON_GetArraySize(member(want, "graphs")))
        fail_msg("summary lists %d graphs, want %d: %s", cJSON_GetArraySize(graphs),
                 cJSON_GetArraySize(member(want, "graphs")), st);
    int submits = 0;
    cJSON_ArrayForEach(wg, member(want, "graphs"))
    {
        const char *source = sc_it_str(wg, "source");
        int64_t capture = int_or(wg, "capture", -1);
        bool submit = strcmp(source, "submit") == 0;
        const cJSON *got = find_item(graphs, source, capture, submit ? submits : 0);
        char *where = submit ? sc_it_fmt("submitted graph %d", submits)
                             : sc_it_fmt("capture %lld", (long long)capture);
        if (!got)
            fail_msg("%s: not among the summary's graphs: %s", where, st);
        int64_t id;
        if (!sc_it_json_int(got, "graph", &id))
            fail_msg("%s: no stored graph id in %s", where, sc_it_json_text(got));
        if (int_or(got, "node_count", -1) != cJSON_GetArraySize(member(wg, "nodes")) ||
            int_or(got, "edge_count", -1) != cJSON_GetArraySize(member(wg, "edges")))
            fail_msg("%s: summary counts %s disagree with the expectation", where,
                     sc_it_json_text(got));
        check_stored_graph(c, id, wg, m, where);
        submits += submit;
        free(where);
    }
    free(st);
}

static void check_failed(const cJSON *sum, const cJSON *want, stream_map *m)
{
    const cJSON *failed = member(sum, "failed"), *wf;
    char *st = sc_it_json_text(failed);
    if (cJSON_GetArraySize(failed) != cJSON_GetArraySize(member(want, "failed")))
        fail_msg("summary lists %d failed captures, want %d: %s", cJSON_GetArraySize(failed),
                 cJSON_GetArraySize(member(want, "failed")), st);
    cJSON_ArrayForEach(wf, member(want, "failed"))
    {
        int64_t capture = sc_it_int(wf, "capture");
        const cJSON *got = find_item(failed, "capture", capture, 0);
        char *where = sc_it_fmt("failed capture %lld", (long long)capture);
        if (!got)
            fail_msg("%s: not among the summary's failed captures: %s", where, st);
        /* The unjoined streams: stream letters and node ids, compared apart. */
        cJSON *w = cJSON_Duplicate(wf, true);
        cJSON *unjoined = cJSON_DetachItemFromObjectCaseSensitive(w, "unjoined");
        compare_members(w, got, m, where);
        if (!member(wf, "broken_by") && member(got, "broken_by"))
            fail_msg("%s: broken by %s, want nothing", where,
                     sc_it_json_text(member(got, "broken_by")));
        if (unjoined) {
            const cJSON *gu = member(got, "unjoined");
            if (!gu)
                fail_msg("%s: the summary names no unjoined streams, want %s", where,
                         sc_it_json_text(unjoined));
            if (cJSON_GetArraySize(gu) != cJSON_GetArraySize(unjoined))
                fail_msg("%s: unjoined %s, want %s", where, sc_it_json_text(gu),
                         sc_it_json_text(unjoined));
            for (int i = 0; i < cJSON_GetArraySize(unjoined); i++)
                compare_members(cJSON_GetArrayItem(unjoined, i), cJSON_GetArrayItem(gu, i), m,
                                where);
        }
        cJSON_Delete(unjoined);
        cJSON_Delete(w);
        free(where);
    }
    free(st);
}

/* The daemon's capture log agrees: completed captures with their graph,
 * failed ones with the error of the end and the call that broke them. */
static void check_log(sc_it_conn *c, const cJSON *sum, const cJSON *want)
{
    int64_t session;
    const cJSON *proc = cJSON_GetArrayItem(member(sum, "processes"), 0);
    if (!sc_it_json_int(proc, "session", &session))
        fail_msg("the process reported no session: %s", sc_it_json_text(proc));
    cJSON *log = sc_it_must_result(c, "log.list", "{\"limit\":100}");
    const cJSON *e, *entry = NULL;
    cJSON_ArrayForEach(e, member(log, "entries"))
    {
        if (int_or(e, "session", -1) == session)
            entry = e;
    }
    if (!entry)
        fail_msg("session %lld is not in the log: %s", (long long)session, sc_it_json_text(log));
    const cJSON *caps = member(entry, "captures"), *wf, *cap;
    int ended = 0;
    cJSON_ArrayForEach(cap, caps)
    {
        const char *outcome = sc_it_str(cap, "outcome");
        ended += strcmp(outcome, "discarded") != 0;
    }
    int want_ended = 0;
    cJSON_ArrayForEach(wf, member(want, "graphs"))
    {
        want_ended += strcmp(sc_it_str(wf, "source"), "capture") == 0;
    }
    want_ended += cJSON_GetArraySize(member(want, "failed"));
    if (ended != want_ended)
        fail_msg("the log holds %d ended captures of session %lld, want %d: %s", ended,
                 (long long)session, want_ended, sc_it_json_text(caps));
    cJSON_ArrayForEach(wf, member(want, "failed"))
    {
        int64_t id = sc_it_int(wf, "capture");
        const cJSON *row = NULL;
        cJSON_ArrayForEach(cap, caps)
        {
            if (int_or(cap, "capture", -1) == id)
                row = cap;
        }
        if (!row || strcmp(sc_it_str(row, "outcome"), "failed") != 0 ||
            int_or(row, "cuda_error", -1) != sc_it_int(wf, "cuda_error"))
            fail_msg("log of capture %lld: want failed with %lld: %s", (long long)id,
                     (long long)sc_it_int(wf, "cuda_error"), sc_it_json_text(row));
        const cJSON *broken = member(wf, "broken_by");
        if (broken) {
            const cJSON *by = member(row, "invalidated_by");
            const cJSON *call = member(by, "call");
            const char *want_call = sc_it_str(broken, "call");
            /* The log keeps `call` for host calls; an end names its method. */
            bool ok = int_or(by, "cuda_error", -1) == sc_it_int(broken, "cuda_error") &&
                      (cJSON_IsString(call) ? strcmp(call->valuestring, want_call) == 0
                                            : strcmp(want_call, "cudaStreamEndCapture") == 0);
            if (!ok)
                fail_msg("log of capture %lld: want invalidated by %s (%lld): %s", (long long)id,
                         want_call, (long long)sc_it_int(broken, "cuda_error"),
                         sc_it_json_text(by));
        }
    }
    cJSON_Delete(log);
}

static void check_summary(const cJSON *sum, const cJSON *want)
{
    if (int_or(sum, "exit_status", -1) != 0)
        fail_msg("summary exit_status is not 0: %s", sc_it_json_text(sum));
    int64_t begun = int_or(want, "captures_begun", 0);
    if (int_or(sum, "captures_begun", -1) != begun)
        fail_msg("summary captures_begun: want %lld, got %s", (long long)begun,
                 sc_it_json_text(member(sum, "captures_begun")));
    /* kept and discarded are the lists of such captures. */
    int64_t discarded = int_or(want, "discarded", 0);
    if (cJSON_GetArraySize(member(sum, "discarded")) != discarded)
        fail_msg("summary discarded: want %lld, got %s", (long long)discarded,
                 sc_it_json_text(member(sum, "discarded")));
    if (!cJSON_IsArray(member(sum, "kept")) || cJSON_GetArraySize(member(sum, "kept")) != 0)
        fail_msg("summary kept is not 0 with a daemon attached: %s", sc_it_json_text(sum));
    const cJSON *wu = member(want, "unsupported");
    if (wu && !cJSON_Compare(wu, member(sum, "unsupported"), true))
        fail_msg("summary unsupported: want %s, got %s", sc_it_json_text(wu),
                 sc_it_json_text(member(sum, "unsupported")));
    const cJSON *procs = member(sum, "processes");
    if (cJSON_GetArraySize(procs) != 1)
        fail_msg("want one process in the summary: %s", sc_it_json_text(procs));
    const cJSON *daemon = member(cJSON_GetArrayItem(procs, 0), "daemon");
    if (!cJSON_IsString(daemon) || strcmp(daemon->valuestring, "connected") != 0)
        fail_msg("the process was not connected to the daemon: %s", sc_it_json_text(procs));
}

/* NAME.expect.json's baseline: NAME.baseline.json for the C twin,
 * NAME.cu.baseline.json for the .cu build, whose kernels carry the
 * parameter sizes of their fat binary (and so other full fingerprints). */
static char *baseline_path(const char *expect)
{
    const char *suffix = ".expect.json";
    size_t len = strlen(expect), n = strlen(suffix);
    if (len < n || strcmp(expect + len - n, suffix) != 0)
        fail_msg("%s: an expectation file's name ends in %s", expect, suffix);
    return sc_it_fmt("%.*s%s.baseline.json", (int)(len - n), expect, g_cu_build ? ".cu" : "");
}

static void scenario(void **state)
{
    const suite_ctx *ctx = *state;
    cJSON *want = read_json(ctx->expect_path);
    sc_it_daemon *d = sc_it_must_start(NULL);
    char *summary = sc_it_fmt("%s/summary.json", sc_it_daemon_dir(d));
    char *streamcap = sc_it_fmt("%s/streamcap", SC_BIN_DIR);
    char *baseline = baseline_path(ctx->expect_path);
    bool update = getenv("STREAMCAP_UPDATE_BASELINES") != NULL;
    if (!update && access(baseline, F_OK) != 0)
        fail_msg("no baseline %s (%s): write it with STREAMCAP_UPDATE_BASELINES=1 ctest -R "
                 "cudart_suite and review it",
                 baseline, strerror(errno));
    const char *argv[] = {streamcap,
                          "run",
                          "--json",
                          "--summary-file",
                          summary,
                          "--socket",
                          sc_it_daemon_socket(d),
                          "--baseline",
                          baseline,
                          update ? "--update-baseline" : "--",
                          update ? "--" : ctx->program,
                          update ? ctx->program : NULL,
                          NULL};
    const char *unset[] = {"STREAMCAP_SOCKET",   "STREAMCAP_LABEL", "STREAMCAP_REPORT",
                           "STREAMCAP_SYNC_END", "LD_LIBRARY_PATH", NULL};
    sc_ct_opts opts = {.unsetenv = unset, .timeout_ms = RUN_TIMEOUT_MS};
    sc_ct_result r;
    assert_int_equal(sc_ct_run(argv, &opts, &r), 0);
    if (r.status != 0)
        fail_msg("streamcap run -- %s exited %d\nstdout:\n%s\nstderr:\n%s", ctx->program, r.status,
                 r.out, r.err);
    print_message("%s", r.err);
    cJSON *sum = read_json(summary);
    check_summary(sum, want);

    stream_map m = {.n = 0};
    sc_it_conn *c = sc_it_must_connect(d);
    check_graphs(c, sum, want, &m);
    check_failed(sum, want, &m);
    check_log(c, sum, want);
    sc_it_conn_close(c);

    sc_ct_result_free(&r);
    cJSON_Delete(sum);
    cJSON_Delete(want);
    free(streamcap);
    free(baseline);
    free(summary);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[2], "--skip") == 0) {
        printf("%s\n", argv[3]);
        return SKIP_STATUS;
    }
    if (argc != 3) {
        fprintf(stderr, "usage: %s EXPECT.json PROGRAM | EXPECT.json --skip WHY\n", argv[0]);
        return 2;
    }
    suite_ctx ctx = {.expect_path = argv[1], .program = argv[2]};
    size_t len = strlen(argv[2]);
    g_cu_build = len > 3 && strcmp(argv[2] + len - 3, "_cu") == 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_prestate(scenario, &ctx),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
