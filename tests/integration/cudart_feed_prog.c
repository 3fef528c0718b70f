/*
 * cudart_feed_prog - a CUDA program for test_cudart_feed, built against the
 * project's declarations and run against the built libcudart.so.13.  It
 * prints every graph it ends or instantiates as one JSON line (its nodes'
 * types and its edges as the CUDA graph API reports them), so that the
 * test can compare them with what the daemon stored.
 *
 *   cudart_feed_prog all     fork/join, a forgotten join (904), cudaMallocAsync
 *                            and cudaFreeAsync, an external event record, a
 *                            hand-built graph instantiated
 *   cudart_feed_prog sync    one capture, then (STREAMCAP_SYNC_END=1) asks the
 *                            daemon whether it has the graph yet
 *   cudart_feed_prog kill    one capture, "ready" on stdout, waits for a line
 *                            on stdin, then captures on
 *   cudart_feed_prog to_graph a graph built by hand out of order, captured
 *                            into (cudaStreamBeginCaptureToGraph), instantiated
 *   cudart_feed_prog burst   30 captures of 10,000 launches made back to back
 *                            (the feed waits such bursts out), then exits
 *   cudart_feed_prog flood   the same, 110 of them: more records than the
 *                            feed's queue holds (1,048,576)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_cudart.h"
#include "streamcap.h"

static void alpha(void) {}
static void beta(void) {}
static void gamma_(void) {}

static void ok(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "cudart_feed_prog: %s: %s\n", what, cudaGetErrorName(e));
        exit(1);
    }
}

static void launch(const void *fn, dim3 grid, dim3 block, cudaStream_t s)
{
    ok(cudaLaunchKernel(fn, grid, block, NULL, 0, s), "cudaLaunchKernel");
}

static size_t index_of(cudaGraphNode_t *nodes, size_t n, cudaGraphNode_t x)
{
    for (size_t i = 0; i < n; i++)
        if (nodes[i] == x)
            return i;
    return (size_t)-1;
}

/* {"graph":"NAME","types":[...],"edges":[[a,b],...]} */
static void print_graph(const char *name, cudaGraph_t g)
{
    size_t n = 0, m = 0;
    ok(cudaGraphGetNodes(g, NULL, &n), "cudaGraphGetNodes");
    cudaGraphNode_t *nodes = calloc(n + 1, sizeof *nodes);
    ok(cudaGraphGetNodes(g, nodes, &n), "cudaGraphGetNodes");
    ok(cudaGraphGetEdges(g, NULL, NULL, NULL, &m), "cudaGraphGetEdges");
    cudaGraphNode_t *from = calloc(m + 1, sizeof *from), *to = calloc(m + 1, sizeof *to);
    ok(cudaGraphGetEdges(g, from, to, NULL, &m), "cudaGraphGetEdges");
    printf("{\"graph\":\"%s\",\"types\":[", name);
    for (size_t i = 0; i < n; i++) {
        enum cudaGraphNodeType t;
        ok(cudaGraphNodeGetType(nodes[i], &t), "cudaGraphNodeGetType");
        printf(i ? ",%d" : "%d", (int)t);
    }
    printf("],\"edges\":[");
    for (size_t i = 0; i < m; i++)
        printf(i ? ",[%zu,%zu]" : "[%zu,%zu]", index_of(nodes, n, from[i]),
               index_of(nodes, n, to[i]));
    printf("]}\n");
    fflush(stdout);
    free(nodes);
    free(from);
    free(to);
}

static const dim3 one = {1, 1, 1};

/* s1 forks to s2 by an event, both work, s2 joins back. */
static void fork_join(cudaStream_t s1, cudaStream_t s2, cudaEvent_t e1, cudaEvent_t e2)
{
    ok(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), "begin");
    launch((const void *)alpha, (dim3){4, 1, 1}, (dim3){128, 1, 1}, s1);
    ok(cudaEventRecord(e1, s1), "record");
    ok(cudaStreamWaitEvent(s2, e1, 0), "wait");
    launch((const void *)beta, (dim3){2, 3, 1}, (dim3){32, 2, 1}, s2);
    launch((const void *)gamma_, one, one, s1);
    ok(cudaEventRecord(e2, s2), "record");
    ok(cudaStreamWaitEvent(s1, e2, 0), "wait");
    launch((const void *)alpha, one, one, s1);
    cudaGraph_t g;
    ok(cudaStreamEndCapture(s1, &g), "end");
    print_graph("fork_join", g);
    cudaGraphDestroy(g);
}

static void unjoined(cudaStream_t s1, cudaStream_t s2, cudaEvent_t e1)
{
    ok(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), "begin");
    launch((const void *)alpha, one, one, s1);
    ok(cudaEventRecord(e1, s1), "record");
    ok(cudaStreamWaitEvent(s2, e1, 0), "wait");
    launch((const void *)beta, one, one, s2);
    cudaGraph_t g = NULL;
    cudaError_t e = cudaStreamEndCapture(s1, &g);
    printf("{\"graph\":\"unjoined\",\"error\":%d}\n", (int)e);
    fflush(stdout);
}

static void stream_ordered(cudaStream_t s1)
{
    ok(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), "begin");
    void *p = NULL;
    ok(cudaMallocAsync(&p, 4096, s1), "cudaMallocAsync");
    launch((const void *)beta, one, one, s1);
    ok(cudaFreeAsync(p, s1), "cudaFreeAsync");
    cudaGraph_t g;
    ok(cudaStreamEndCapture(s1, &g), "end");
    print_graph("stream_ordered", g);
    cudaGraphDestroy(g);
}

static void external_record(cudaStream_t s1, cudaEvent_t e3)
{
    ok(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), "begin");
    launch((const void *)alpha, one, one, s1);
    ok(cudaEventRecordWithFlags(e3, s1, cudaEventRecordExternal), "record external");
    launch((const void *)gamma_, one, one, s1);
    cudaGraph_t g;
    ok(cudaStreamEndCapture(s1, &g), "end");
    print_graph("external", g);
    cudaGraphDestroy(g);
}

/* Built by hand out of order: the empty node added last runs first. */
static void by_hand(void)
{
    cudaGraph_t g;
    ok(cudaGraphCreate(&g, 0), "cudaGraphCreate");
    struct cudaKernelNodeParams kp;
    memset(&kp, 0, sizeof kp);
    kp.func = (void *)gamma_;
    kp.gridDim = (dim3){8, 1, 1};
    kp.blockDim = (dim3){64, 1, 1};
    cudaGraphNode_t k, e;
    ok(cudaGraphAddKernelNode(&k, g, NULL, 0, &kp), "cudaGraphAddKernelNode");
    ok(cudaGraphAddEmptyNode(&e, g, NULL, 0), "cudaGraphAddEmptyNode");
    ok(cudaGraphAddDependencies(g, &e, &k, NULL, 1), "cudaGraphAddDependencies");
    print_graph("by_hand", g);
    cudaGraphExec_t x;
    ok(cudaGraphInstantiate(&x, g, 0), "cudaGraphInstantiate");
    cudaGraphExecDestroy(x);
    cudaGraphDestroy(g);
}

/* The graph of by_hand, then a capture into it hanging on its kernel. */
static void to_graph(cudaStream_t s1)
{
    cudaGraph_t g;
    ok(cudaGraphCreate(&g, 0), "cudaGraphCreate");
    struct cudaKernelNodeParams kp;
    memset(&kp, 0, sizeof kp);
    kp.func = (void *)gamma_;
    kp.gridDim = (dim3){8, 1, 1};
    kp.blockDim = (dim3){64, 1, 1};
    cudaGraphNode_t k, e;
    ok(cudaGraphAddKernelNode(&k, g, NULL, 0, &kp), "cudaGraphAddKernelNode");
    ok(cudaGraphAddEmptyNode(&e, g, NULL, 0), "cudaGraphAddEmptyNode");
    ok(cudaGraphAddDependencies(g, &e, &k, NULL, 1), "cudaGraphAddDependencies");
    ok(cudaStreamBeginCaptureToGraph(s1, g, &k, NULL, 1, cudaStreamCaptureModeGlobal),
       "cudaStreamBeginCaptureToGraph");
    launch((const void *)alpha, (dim3){4, 1, 1}, (dim3){128, 1, 1}, s1);
    cudaGraph_t out;
    ok(cudaStreamEndCapture(s1, &out), "end");
    if (out != g) {
        fprintf(stderr, "cudart_feed_prog: the end gave another graph\n");
        exit(1);
    }
    print_graph("to_graph", g);
    cudaGraphExec_t x;
    ok(cudaGraphInstantiate(&x, g, 0), "cudaGraphInstantiate");
    cudaGraphExecDestroy(x);
    cudaGraphDestroy(g);
}

/* Does the daemon have a graph labelled as this process's session yet? */
static int stored_now(const char *label)
{
    sc_client *c;
    if (sc_client_connect(NULL, 5000, &c) != 0)
        return -1;
    sc_client_list_opts o = {.filter = label};
    sc_client_graph_page p;
    int n = sc_client_graph_list(c, &o, &p) == 0 ? (int)p.count : -1;
    if (n >= 0)
        sc_client_graph_page_free(&p);
    sc_client_close(c);
    return n;
}

static void simple(cudaStream_t s1, int launches)
{
    ok(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), "begin");
    for (int i = 0; i < launches; i++)
        launch((const void *)alpha, one, one, s1);
    cudaGraph_t g;
    ok(cudaStreamEndCapture(s1, &g), "end");
    cudaGraphDestroy(g);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    static char fatbin[16];
    void **h = __cudaRegisterFatBinary(fatbin);
    __cudaRegisterFunction(h, (const char *)alpha, (char *)"alpha", "alpha", -1, NULL, NULL, NULL,
                           NULL, NULL);
    __cudaRegisterFunction(h, (const char *)beta, (char *)"beta", "beta", -1, NULL, NULL, NULL,
                           NULL, NULL);
    __cudaRegisterFunction(h, (const char *)gamma_, (char *)"gamma", "gamma", -1, NULL, NULL, NULL,
                           NULL, NULL);
    __cudaRegisterFatBinaryEnd(h);
    cudaStream_t s1, s2;
    cudaEvent_t e1, e2, e3;
    ok(cudaStreamCreate(&s1), "cudaStreamCreate");
    ok(cudaStreamCreate(&s2), "cudaStreamCreate");
    ok(cudaEventCreate(&e1), "cudaEventCreate");
    ok(cudaEventCreate(&e2), "cudaEventCreate");
    ok(cudaEventCreate(&e3), "cudaEventCreate");
    if (strcmp(what, "all") == 0) {
        fork_join(s1, s2, e1, e2);
        unjoined(s1, s2, e1);
        stream_ordered(s1);
        external_record(s1, e3);
        by_hand();
    } else if (strcmp(what, "to_graph") == 0) {
        to_graph(s1);
    } else if (strcmp(what, "sync") == 0) {
        /* Big enough that the daemon is still storing it when the end
         * returns unless the end waited. */
        simple(s1, 20000);
        printf("{\"stored_after_end\":%d}\n", stored_now(getenv("STREAMCAP_LABEL")));
    } else if (strcmp(what, "burst") == 0 || strcmp(what, "flood") == 0) {
        for (int i = 0; i < (what[0] == 'b' ? 30 : 110); i++)
            simple(s1, 10000);
    } else if (strcmp(what, "kill") == 0) {
        simple(s1, 3);
        printf("ready\n");
        fflush(stdout);
        char line[16];
        if (!fgets(line, sizeof line, stdin))
            return 1;
        for (int i = 0; i < 200; i++)
            simple(s1, 50);
    } else {
        return 2;
    }
    return 0;
}
