/*
 * The CUDA runtime stand-in's daemon feed against a real streamcapd: a
 * program built against the project's declarations and run against the
 * built libcudart.so.13 gets its captures and its hand-built graph stored
 * exactly as the CUDA graph API shows them in the process, its report says
 * so, STREAMCAP_SYNC_END=1 commits before cudaStreamEndCapture returns, and
 * a missing or killed daemon costs one warning and nothing else.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"
#include "streamcap.h"

typedef struct prog {
    pid_t pid;
    int in, out; /* the program's stdin (write end) and stdout (read end) */
    char dir[512];
    char report[600], err[600];
} prog;

/* Start the program with `mode`, talking to `sock`; extra env "K=V" pairs. */
static void prog_start(prog *p, const char *dir, const char *sock, const char *mode,
                       const char *const *env)
{
    memset(p, 0, sizeof *p);
    snprintf(p->dir, sizeof p->dir, "%s", dir);
    snprintf(p->report, sizeof p->report, "%s/report-%s.jsonl", dir, mode);
    snprintf(p->err, sizeof p->err, "%s/stderr-%s.txt", dir, mode);
    unlink(p->report);
    int in[2], out[2];
    assert_int_equal(pipe(in), 0);
    assert_int_equal(pipe(out), 0);
    p->pid = fork();
    assert_true(p->pid >= 0);
    if (p->pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        int fd = open(p->err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 2);
        close(in[1]);
        close(out[0]);
        setenv("STREAMCAP_SOCKET", sock, 1);
        setenv("STREAMCAP_REPORT", p->report, 1);
        setenv("LD_LIBRARY_PATH", SC_CUDART_DIR, 1);
        unsetenv("STREAMCAP_SYNC_END");
        for (size_t i = 0; env && env[i]; i++)
            putenv((char *)env[i]);
        /* "args": the program with a registered parameter layout. */
        const char *bin =
            strcmp(mode, "args") == 0 || strcmp(mode, "wide") == 0 ? SC_ARGS_PROG : SC_FEED_PROG;
        execl(bin, bin, mode, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    p->in = in[1];
    p->out = out[0];
}

/* Wait at most ms for the program's exit; its status, or -1 on timeout
 * (then it is killed). */
static int prog_wait(prog *p, int ms)
{
    close(p->in);
    int status = 0;
    for (int waited = 0; waited < ms; waited += 10) {
        pid_t r = waitpid(p->pid, &status, WNOHANG);
        if (r == p->pid)
            return status;
        struct timespec ts = {0, 10000000L};
        nanosleep(&ts, NULL);
    }
    kill(p->pid, SIGKILL);
    waitpid(p->pid, &status, 0);
    return -1;
}

/* The program's stdout as parsed JSON lines (non-JSON lines skipped). */
static cJSON *read_lines(int fd)
{
    cJSON *arr = cJSON_CreateArray();
    FILE *f = fdopen(fd, "r");
    char line[65536];
    while (f && fgets(line, sizeof line, f)) {
        cJSON *j = cJSON_Parse(line);
        if (j)
            cJSON_AddItemToArray(arr, j);
    }
    if (f)
        fclose(f);
    return arr;
}

static cJSON *read_report(const char *path)
{
    char *text = sc_it_read_file(path);
    assert_non_null(text);
    cJSON *arr = cJSON_CreateArray();
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        cJSON *j = cJSON_Parse(l);
        assert_non_null(j);
        cJSON_AddItemToArray(arr, j);
    }
    free(text);
    return arr;
}

/* The first object of arr whose member key is the string (or number) val. */
static cJSON *find(cJSON *arr, const char *key, const char *sval, int64_t nval)
{
    cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, key);
        if (sval && cJSON_IsString(v) && strcmp(v->valuestring, sval) == 0)
            return it;
        if (!sval && cJSON_IsNumber(v) && (int64_t)v->valuedouble == nval)
            return it;
    }
    return NULL;
}

static cJSON *capture_line(cJSON *report, int64_t capture)
{
    cJSON *it;
    cJSON_ArrayForEach(it, report)
    {
        const char *ev = sc_it_str(it, "event");
        int64_t c;
        if (ev && strcmp(ev, "capture") == 0 && sc_it_json_int(it, "capture", &c) && c == capture)
            return it;
    }
    return NULL;
}

static int64_t num(const cJSON *o, const char *key)
{
    int64_t v = -1;
    assert_true(sc_it_json_int(o, key, &v));
    return v;
}

/* Lines of the stderr file that start with "streamcap:". */
static int warnings(const char *path, const char *must_contain)
{
    char *text = sc_it_read_file(path);
    assert_non_null(text);
    int n = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (strncmp(l, "streamcap:", 10) == 0) {
            n++;
            if (must_contain && !strstr(l, must_contain))
                fail_msg("unexpected warning: %s", l);
        }
    }
    free(text);
    return n;
}

static sc_client_kind kind_of_type(int t)
{
    switch (t) {
    case 0:
        return SC_CLIENT_KERNEL;
    case 1:
        return SC_CLIENT_MEMCPY;
    case 2:
        return SC_CLIENT_MEMSET;
    case 3:
        return SC_CLIENT_HOST_CALLBACK;
    case 5:
        return SC_CLIENT_EMPTY;
    case 6:
        return SC_CLIENT_EVENT_WAIT;
    case 7:
        return SC_CLIENT_EVENT_RECORD;
    case 10:
        return SC_CLIENT_MEM_ALLOC;
    case 11:
        return SC_CLIENT_MEM_FREE;
    default:
        return (sc_client_kind)-1;
    }
}

/* The stored graph is the printed in-process one node by node (kinds) and
 * edge by edge; returns it for the caller's further checks. */
static void same_graph(sc_client *c, uint64_t id, const cJSON *printed, sc_client_graph *out)
{
    assert_int_equal(sc_client_graph_get(c, id, out), 0);
    const cJSON *types = cJSON_GetObjectItemCaseSensitive(printed, "types");
    const cJSON *edges = cJSON_GetObjectItemCaseSensitive(printed, "edges");
    assert_int_equal(out->node_count, (size_t)cJSON_GetArraySize(types));
    for (size_t i = 0; i < out->node_count; i++)
        assert_int_equal(out->nodes[i].kind,
                         kind_of_type(cJSON_GetArrayItem(types, (int)i)->valueint));
    assert_int_equal(out->edge_count, (size_t)cJSON_GetArraySize(edges));
    /* The stored edges come sorted; every printed one must be there. */
    const cJSON *e;
    cJSON_ArrayForEach(e, edges)
    {
        uint32_t a = (uint32_t)cJSON_GetArrayItem(e, 0)->valueint;
        uint32_t b = (uint32_t)cJSON_GetArrayItem(e, 1)->valueint;
        bool seen = false;
        for (size_t i = 0; i < out->edge_count; i++)
            seen = seen || (out->edges[i].src == a && out->edges[i].dst == b);
        assert_true(seen);
    }
}

static void kernel_is(const sc_client_node *n, const char *name, uint32_t gx, uint32_t gy,
                      uint32_t bx, uint32_t by)
{
    assert_int_equal(n->kind, SC_CLIENT_KERNEL);
    assert_string_equal(n->function_name, name);
    assert_int_equal(n->grid[0], gx);
    assert_int_equal(n->grid[1], gy);
    assert_int_equal(n->block[0], bx);
    assert_int_equal(n->block[1], by);
}

/* Every scenario of `all` stored as the process saw it, and reported. */
static void test_captures_stored_exactly(void **state)
{
    (void)state;
    sc_it_daemon *d = sc_it_must_start(NULL);
    prog p;
    const char *env[] = {"STREAMCAP_LABEL=feed-all", NULL};
    prog_start(&p, sc_it_daemon_dir(d), sc_it_daemon_socket(d), "all", env);
    cJSON *out = read_lines(p.out);
    assert_int_equal(prog_wait(&p, 30000), 0);
    assert_int_equal(warnings(p.err, NULL), 0);
    cJSON *report = read_report(p.report);

    cJSON *proc = find(report, "event", "process", 0);
    assert_non_null(proc);
    assert_string_equal(sc_it_str(proc, "daemon"), "connected");
    assert_string_equal(sc_it_str(proc, "label"), "feed-all");
    assert_true(num(proc, "session") > 0);
    assert_int_equal(num(proc, "captures_begun"), 4);

    sc_client *c;
    assert_int_equal(sc_client_connect(sc_it_daemon_socket(d), 10000, &c), 0);
    sc_client_graph g;

    /* 1: fork/join over two streams. */
    cJSON *cap = capture_line(report, 1);
    assert_non_null(cap);
    assert_string_equal(sc_it_str(cap, "outcome"), "stored");
    assert_string_equal(sc_it_str(cap, "mode"), "global");
    assert_int_equal(num(cap, "node_count"), 4);
    assert_int_equal(num(cap, "edge_count"), 4);
    same_graph(c, (uint64_t)num(cap, "graph"), find(out, "graph", "fork_join", 0), &g);
    kernel_is(&g.nodes[0], "alpha", 4, 1, 128, 1);
    kernel_is(&g.nodes[1], "beta", 2, 3, 32, 2);
    assert_int_equal(g.nodes[1].stream, g.nodes[0].stream + 1);
    kernel_is(&g.nodes[2], "gamma", 1, 1, 1, 1);
    sc_client_graph_free(&g);

    /* 2: the forgotten join fails with 904 at the end, in both models. */
    cap = capture_line(report, 2);
    assert_non_null(cap);
    assert_int_equal(num(find(out, "graph", "unjoined", 0), "error"), 904);
    assert_string_equal(sc_it_str(cap, "outcome"), "failed");
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(cap, "graph")));
    assert_string_equal(sc_it_str(cap, "call"), "cudaStreamEndCapture");
    assert_int_equal(num(cap, "cuda_error"), 904);
    assert_string_equal(sc_it_str(cap, "cuda_name"), "cudaErrorStreamCaptureUnjoined");

    /* 3: stream-ordered allocation: mem_alloc -> kernel -> mem_free. */
    cap = capture_line(report, 3);
    assert_string_equal(sc_it_str(cap, "outcome"), "stored");
    same_graph(c, (uint64_t)num(cap, "graph"), find(out, "graph", "stream_ordered", 0), &g);
    assert_int_equal(g.node_count, 3);
    assert_int_equal(g.nodes[0].kind, SC_CLIENT_MEM_ALLOC);
    assert_int_equal(g.nodes[0].size_bytes, 4096);
    assert_int_equal(g.nodes[2].kind, SC_CLIENT_MEM_FREE);
    sc_client_graph_free(&g);

    /* 4: an external record is a node with its event (the third made). */
    cap = capture_line(report, 4);
    assert_string_equal(sc_it_str(cap, "outcome"), "stored");
    same_graph(c, (uint64_t)num(cap, "graph"), find(out, "graph", "external", 0), &g);
    assert_int_equal(g.node_count, 3);
    assert_int_equal(g.nodes[1].kind, SC_CLIENT_EVENT_RECORD);
    assert_int_equal(g.nodes[1].event, 3);
    sc_client_graph_free(&g);

    /* The hand-built graph: submitted at instantiation, renumbered so that
     * the empty node added second (and run first) is node 0. */
    cJSON *sub = find(report, "event", "graph", 0);
    assert_non_null(sub);
    assert_string_equal(sc_it_str(sub, "source"), "submit");
    assert_string_equal(sc_it_str(sub, "label"), "feed-all");
    assert_int_equal(num(sub, "node_count"), 2);
    assert_int_equal(num(sub, "edge_count"), 1);
    assert_int_equal(sc_client_graph_get(c, (uint64_t)num(sub, "graph"), &g), 0);
    assert_int_equal(g.node_count, 2);
    assert_int_equal(g.nodes[0].kind, SC_CLIENT_EMPTY);
    kernel_is(&g.nodes[1], "gamma", 8, 1, 64, 1);
    assert_int_equal(g.edge_count, 1);
    assert_int_equal(g.edges[0].src, 0);
    assert_int_equal(g.edges[0].dst, 1);
    assert_string_equal(g.label, "feed-all");
    sc_client_graph_free(&g);

    sc_client_close(c);
    cJSON_Delete(out);
    cJSON_Delete(report);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

/* cudaStreamBeginCaptureToGraph: the daemon stores the program's nodes
 * and the captured ones as the capture's graph, in a topological order
 * (the empty node added second, which runs first, is node 0), and the
 * graph is not submitted again when instantiated. */
static void test_capture_to_graph_stored(void **state)
{
    (void)state;
    sc_it_daemon *d = sc_it_must_start(NULL);
    prog p;
    prog_start(&p, sc_it_daemon_dir(d), sc_it_daemon_socket(d), "to_graph", NULL);
    cJSON *out = read_lines(p.out);
    assert_int_equal(prog_wait(&p, 30000), 0);
    assert_int_equal(warnings(p.err, NULL), 0);
    cJSON *report = read_report(p.report);
    assert_int_equal(num(find(report, "event", "process", 0), "captures_begun"), 1);
    assert_null(find(report, "event", "graph", 0));

    /* in the process: kernel 0, empty 1 -> 0, the captured kernel 2 after 0 */
    const cJSON *printed = find(out, "graph", "to_graph", 0);
    assert_non_null(printed);
    const cJSON *edges = cJSON_GetObjectItemCaseSensitive(printed, "edges");
    assert_int_equal(cJSON_GetArraySize(edges), 2);

    cJSON *cap = capture_line(report, 1);
    assert_non_null(cap);
    assert_string_equal(sc_it_str(cap, "outcome"), "stored");
    assert_int_equal(num(cap, "node_count"), 3);
    assert_int_equal(num(cap, "edge_count"), 2);
    sc_client *c;
    assert_int_equal(sc_client_connect(sc_it_daemon_socket(d), 10000, &c), 0);
    sc_client_graph g;
    assert_int_equal(sc_client_graph_get(c, (uint64_t)num(cap, "graph"), &g), 0);
    assert_int_equal(g.node_count, 3);
    assert_int_equal(g.nodes[0].kind, SC_CLIENT_EMPTY);
    /* the graph's own kernel, with its name and shape as the program gave them */
    kernel_is(&g.nodes[1], "gamma", 8, 1, 64, 1);
    kernel_is(&g.nodes[2], "alpha", 4, 1, 128, 1);
    assert_int_equal(g.edge_count, 2);
    assert_int_equal(g.edges[0].src, 0);
    assert_int_equal(g.edges[0].dst, 1);
    assert_int_equal(g.edges[1].src, 1);
    assert_int_equal(g.edges[1].dst, 2);
    sc_client_graph_free(&g);
    sc_client_close(c);
    cJSON_Delete(out);
    cJSON_Delete(report);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

/* Node `node` of stored graph `graph` holds kadd's argument values `hex`
 * (sizes 8, 4, 8, 1), or none when hex is NULL. */
static void args_are(sc_it_conn *c, int64_t graph, int node, const char *hex)
{
    cJSON *g = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", (long long)graph);
    const cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(g, "nodes"), node);
    assert_non_null(k);
    if (!hex) {
        assert_null(cJSON_GetObjectItemCaseSensitive(k, "args"));
        cJSON_Delete(g);
        return;
    }
    assert_string_equal(sc_it_str(k, "args"), hex);
    char *sizes = sc_it_json_text(cJSON_GetObjectItemCaseSensitive(k, "param_sizes"));
    assert_string_equal(sizes, "[8,4,8,1]");
    free(sizes);
    cJSON_Delete(g);
}

/* A captured launch of a kernel whose fat binary gives its parameter
 * layout is stored with its argument values as the launch copied them,
 * not as the program's locals held them later; a kernel without a layout
 * is stored without any. */
static void test_kernel_args_stored(void **state)
{
    (void)state;
    sc_it_daemon *d = sc_it_must_start(NULL);
    prog p;
    const char *env[] = {"STREAMCAP_SYNC_END=1", NULL};
    prog_start(&p, sc_it_daemon_dir(d), sc_it_daemon_socket(d), "args", env);
    cJSON *out = read_lines(p.out);
    assert_int_equal(prog_wait(&p, 30000), 0);
    cJSON *report = read_report(p.report);
    cJSON *cap = capture_line(report, 1);
    assert_non_null(cap);
    assert_string_equal(sc_it_str(cap, "outcome"), "stored");
    sc_it_conn *c = sc_it_must_connect(d);
    /* x = 0x1000, n = 7, a = 2.0, ch = 'c', packed, little-endian; then
     * a node added by hand to the capture's graph: 0x3000, 8, 3.0, 'e';
     * then the kernel without a layout. */
    const int64_t graph = num(cap, "graph");
    args_are(c, graph, 0,
             "0010000000000000"
             "07000000"
             "0000000000000040"
             "63");
    args_are(c, graph, 1,
             "0030000000000000"
             "08000000"
             "0000000000000840"
             "65");
    args_are(c, graph, 2, NULL);
    /* Built by hand and submitted: the values of the add (0x2000, 9, 4.0,
     * 'd'), not the caller's n changed before the instantiation. */
    cJSON *sub = find(report, "event", "graph", 0);
    assert_non_null(sub);
    args_are(c, num(sub, "graph"), 0,
             "0020000000000000"
             "09000000"
             "0000000000001040"
             "64");
    /* Captured into: the graph's own node first, 0x4000, 10, 5.0, 'f'. */
    cap = capture_line(report, 2);
    assert_non_null(cap);
    assert_string_equal(sc_it_str(cap, "outcome"), "stored");
    args_are(c, num(cap, "graph"), 0,
             "0040000000000000"
             "0a000000"
             "0000000000001440"
             "66");
    sc_it_conn_close(c);
    cJSON_Delete(out);
    cJSON_Delete(report);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

/* Launches whose records fill a queue block's argument room long before
 * its record slots (cudart_args_prog wide): every one is stored, in order,
 * with its own values and its access, across the blocks this ends early,
 * and across the kernel table's growth half way (the feed must not keep a
 * pointer into the table it moved). */
static void test_wide_args_across_blocks(void **state)
{
    (void)state;
    sc_it_daemon *d = sc_it_must_start(NULL);
    prog p;
    const char *env[] = {"STREAMCAP_SYNC_END=1", NULL};
    prog_start(&p, sc_it_daemon_dir(d), sc_it_daemon_socket(d), "wide", env);
    cJSON *out = read_lines(p.out);
    assert_int_equal(prog_wait(&p, 30000), 0);
    assert_int_equal(warnings(p.err, NULL), 0);
    const uint64_t buf = (uint64_t)num(cJSON_GetArrayItem(out, 0), "buf");
    cJSON *report = read_report(p.report);
    cJSON *cap = capture_line(report, 1);
    assert_non_null(cap);
    assert_string_equal(sc_it_str(cap, "outcome"), "stored");
    sc_it_conn *c = sc_it_must_connect(d);
    cJSON *g = sc_it_must_result(c, "graph.get", "{\"graph\":%lld}", (long long)num(cap, "graph"));
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(g, "nodes");
    assert_int_equal(cJSON_GetArraySize(nodes), 300);
    char want[64 * 16 + 1];
    for (int i = 0; i < 300; i++) {
        const cJSON *k = cJSON_GetArrayItem(nodes, i);
        for (int j = 0; j < 64; j++) {
            uint64_t v = j == 0 ? buf + (uint64_t)i : (uint64_t)i * 256 + (uint64_t)j;
            for (int b = 0; b < 8; b++)
                snprintf(want + j * 16 + b * 2, 3, "%02x", (unsigned)(v >> (8 * b)) & 0xff);
        }
        assert_string_equal(sc_it_str(k, "args"), want);
        const cJSON *acc = cJSON_GetObjectItemCaseSensitive(k, "accesses");
        assert_int_equal(cJSON_GetArraySize(acc), 1);
        const cJSON *a = cJSON_GetArrayItem(acc, 0);
        assert_int_equal((uint64_t)num(a, "address"), buf);
        assert_int_equal(num(a, "size"), 4096);
        assert_string_equal(sc_it_str(a, "mode"), "read_write");
    }
    cJSON_Delete(g);
    sc_it_conn_close(c);
    cJSON_Delete(out);
    cJSON_Delete(report);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

/* STREAMCAP_SYNC_END=1: the graph is in the daemon when the end returns. */
static void test_sync_end_commits_first(void **state)
{
    (void)state;
    sc_it_daemon *d = sc_it_must_start(NULL);
    prog p;
    const char *env[] = {"STREAMCAP_SYNC_END=1", "STREAMCAP_LABEL=feed-sync", NULL};
    prog_start(&p, sc_it_daemon_dir(d), sc_it_daemon_socket(d), "sync", env);
    cJSON *out = read_lines(p.out);
    assert_int_equal(prog_wait(&p, 30000), 0);
    cJSON *line = cJSON_GetArrayItem(out, 0);
    assert_non_null(line);
    assert_int_equal(num(line, "stored_after_end"), 1);
    cJSON *report = read_report(p.report);
    assert_string_equal(sc_it_str(capture_line(report, 1), "outcome"), "stored");
    cJSON_Delete(report);
    cJSON_Delete(out);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

/* Captures of 10,000 launches back to back (cudart_feed_prog `mode`), which
 * the feed thread waits out before it sends (rt_pace.c), and the exit right
 * after the last: every one of the n reaches the daemon whole, none is
 * left in the process, nothing is said on stderr. */
static void bursts_all_stored(const char *mode, int64_t n)
{
    sc_it_daemon *d = sc_it_must_start(NULL);
    prog p;
    char label[64];
    snprintf(label, sizeof label, "STREAMCAP_LABEL=feed-%s", mode);
    const char *env[] = {label, "STREAMCAP_EXIT_TIMEOUT_MS=60000", NULL};
    prog_start(&p, sc_it_daemon_dir(d), sc_it_daemon_socket(d), mode, env);
    cJSON *out = read_lines(p.out);
    assert_int_equal(prog_wait(&p, 90000), 0);
    assert_int_equal(warnings(p.err, NULL), 0);
    cJSON *report = read_report(p.report);
    for (int64_t i = 1; i <= n; i++)
        assert_string_equal(sc_it_str(capture_line(report, i), "outcome"), "stored");
    sc_client *c;
    assert_int_equal(sc_client_connect(sc_it_daemon_socket(d), 5000, &c), 0);
    sc_client_list_opts o = {.filter = label + strlen("STREAMCAP_LABEL="), .limit = 1000};
    sc_client_graph_page pg;
    assert_int_equal(sc_client_graph_list(c, &o, &pg), 0);
    assert_int_equal(pg.count, n);
    for (size_t i = 0; i < pg.count; i++) {
        assert_int_equal(pg.graphs[i].node_count, 10000);
        assert_int_equal(pg.graphs[i].edge_count, 9999);
    }
    sc_client_graph_page_free(&pg);
    sc_client_close(c);
    cJSON_Delete(report);
    cJSON_Delete(out);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

static void test_bursts_all_stored(void **state)
{
    (void)state;
    bursts_all_stored("burst", 30);
}

/* More records than the queue holds: the program waits for the feed to
 * send half of them, and goes on. */
static void test_queue_overflow_all_stored(void **state)
{
    (void)state;
    bursts_all_stored("flood", 110);
}

/* No daemon: the program runs, one warning, every capture kept. */
static void test_no_daemon(void **state)
{
    (void)state;
    char dir[512];
    assert_int_equal(sc_it_tmpdir(dir, sizeof dir), 0);
    char sock[600];
    snprintf(sock, sizeof sock, "%s/none.sock", dir);
    prog p;
    prog_start(&p, dir, sock, "all", NULL);
    cJSON *out = read_lines(p.out);
    assert_int_equal(prog_wait(&p, 30000), 0);
    assert_int_equal(warnings(p.err, "no daemon at"), 1);
    cJSON *report = read_report(p.report);
    cJSON *proc = find(report, "event", "process", 0);
    assert_string_equal(sc_it_str(proc, "daemon"), "unreachable");
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(proc, "session")));
    assert_string_equal(sc_it_str(capture_line(report, 1), "outcome"), "kept");
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(capture_line(report, 1), "graph")));
    assert_string_equal(sc_it_str(capture_line(report, 2), "outcome"), "failed");
    assert_string_equal(sc_it_str(capture_line(report, 3), "outcome"), "kept");
    cJSON *sub = find(report, "event", "graph", 0);
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(sub, "graph")));
    cJSON_Delete(report);
    cJSON_Delete(out);
    sc_it_rmtree(dir);
}

/* The daemon SIGKILLed while the program captures on: one warning, exit 0
 * within the exit bound, the capture acknowledged before stays stored. */
static void test_daemon_killed(void **state)
{
    (void)state;
    sc_it_daemon *d = sc_it_must_start(NULL);
    prog p;
    const char *env[] = {"STREAMCAP_SYNC_END=1", "STREAMCAP_EXIT_TIMEOUT_MS=3000", NULL};
    prog_start(&p, sc_it_daemon_dir(d), sc_it_daemon_socket(d), "kill", env);
    char buf[16] = {0};
    ssize_t n = read(p.out, buf, sizeof buf - 1);
    assert_true(n > 0);
    assert_string_equal(buf, "ready\n");
    assert_int_equal(sc_it_daemon_kill(d), 0);
    assert_int_equal(write(p.in, "go\n", 3), 3);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int status = prog_wait(&p, 20000);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    close(p.out);
    assert_int_equal(status, 0);
    assert_true(t1.tv_sec - t0.tv_sec < 10);
    assert_int_equal(warnings(p.err, "lost the daemon"), 1);
    cJSON *report = read_report(p.report);
    cJSON *proc = find(report, "event", "process", 0);
    assert_string_equal(sc_it_str(proc, "daemon"), "lost");
    assert_int_equal(num(proc, "captures_begun"), 201);
    assert_string_equal(sc_it_str(capture_line(report, 1), "outcome"), "stored");
    assert_string_equal(sc_it_str(capture_line(report, 201), "outcome"), "kept");
    cJSON_Delete(report);
    sc_it_daemon_destroy(d);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_captures_stored_exactly),
        cmocka_unit_test(test_capture_to_graph_stored),
        cmocka_unit_test(test_kernel_args_stored),
        cmocka_unit_test(test_wide_args_across_blocks),
        cmocka_unit_test(test_sync_end_commits_first),
        cmocka_unit_test(test_bursts_all_stored),
        cmocka_unit_test(test_queue_overflow_all_stored),
        cmocka_unit_test(test_no_daemon),
        cmocka_unit_test(test_daemon_killed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
