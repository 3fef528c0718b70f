// launch_in_capture: what a capture makes of a graph launched into it.
//
// The CUDA documentation orders a cudaGraphLaunch behind the stream's
// earlier work but does not say what a capturing stream records for it.
// The stand-in records one child graph node holding a copy of the exec's
// graph (docs/cudart.md).  This program captures memset -> launch ->
// memset, then a launch on a second stream forked from the first, and
// prints each captured graph as one JSON line: node types in the order
// cudaGraphGetNodes gives them, edges as index pairs, and for every child
// graph node the types of its graph's nodes.  Run it on a GPU and under
// the stand-in and compare the lines (README.md).
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define OK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            printf("{\"call\":\"%s\",\"error\":\"%s\"}\n", #call, cudaGetErrorName(e_));           \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static const char *type_name(cudaGraphNodeType t)
{
    static const char *names[] = {"kernel",       "memcpy",     "memset",     "host_callback",
                                  "graph",        "empty",      "event_wait", "event_record",
                                  "ext_signal",   "ext_wait",   "mem_alloc",  "mem_free",
                                  "batch_mem_op", "conditional"};
    return (unsigned)t < sizeof names / sizeof *names ? names[t] : "other";
}

static void print_types(cudaGraph_t g, cudaGraphNode_t *nodes, size_t n)
{
    printf("[");
    for (size_t i = 0; i < n; i++) {
        cudaGraphNodeType t;
        OK(cudaGraphNodeGetType(nodes[i], &t));
        printf("%s\"%s\"", i ? "," : "", type_name(t));
    }
    printf("]");
    (void)g;
}

static void print_graph(const char *what, cudaGraph_t g)
{
    size_t n = 0, m = 0;
    OK(cudaGraphGetNodes(g, NULL, &n));
    OK(cudaGraphGetEdges(g, NULL, NULL, NULL, &m));
    cudaGraphNode_t *nodes = (cudaGraphNode_t *)calloc(n + 1, sizeof *nodes);
    cudaGraphNode_t *from = (cudaGraphNode_t *)calloc(m + 1, sizeof *from);
    cudaGraphNode_t *to = (cudaGraphNode_t *)calloc(m + 1, sizeof *to);
    OK(cudaGraphGetNodes(g, nodes, &n));
    OK(cudaGraphGetEdges(g, from, to, NULL, &m));
    printf("{\"case\":\"%s\",\"nodes\":", what);
    print_types(g, nodes, n);
    printf(",\"edges\":[");
    for (size_t i = 0; i < m; i++) {
        size_t a = 0, b = 0;
        for (size_t j = 0; j < n; j++) {
            if (nodes[j] == from[i])
                a = j;
            if (nodes[j] == to[i])
                b = j;
        }
        printf("%s[%zu,%zu]", i ? "," : "", a, b);
    }
    printf("],\"children\":{");
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        cudaGraphNodeType t;
        OK(cudaGraphNodeGetType(nodes[i], &t));
        if (t != cudaGraphNodeTypeGraph)
            continue;
        cudaGraph_t child;
        OK(cudaGraphChildGraphNodeGetGraph(nodes[i], &child));
        size_t k = 0;
        OK(cudaGraphGetNodes(child, NULL, &k));
        cudaGraphNode_t *kids = (cudaGraphNode_t *)calloc(k + 1, sizeof *kids);
        OK(cudaGraphGetNodes(child, kids, &k));
        printf("%s\"%zu\":", first ? "" : ",", i);
        print_types(child, kids, k);
        free(kids);
        first = 0;
    }
    printf("}}\n");
    free(nodes);
    free(from);
    free(to);
}

static void host_fn(void *arg)
{
    (void)arg;
}

int main(void)
{
    const size_t N = 256;
    char *d = NULL;
    OK(cudaMalloc((void **)&d, N));
    cudaStream_t s, t;
    OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    OK(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking));

    // The graph to launch: a memset, then a host node.
    cudaGraph_t inner;
    OK(cudaGraphCreate(&inner, 0));
    cudaGraphNode_t ms, h;
    cudaMemsetParams mp = {};
    mp.dst = d;
    mp.value = 1;
    mp.elementSize = 1;
    mp.width = N;
    mp.height = 1;
    mp.pitch = N;
    OK(cudaGraphAddMemsetNode(&ms, inner, NULL, 0, &mp));
    cudaHostNodeParams hp = {};
    hp.fn = host_fn;
    OK(cudaGraphAddHostNode(&h, inner, &ms, 1, &hp));
    cudaGraphExec_t x;
    OK(cudaGraphInstantiate(&x, inner, 0));

    // Case 1: memset -> launch -> memset on one stream.
    cudaGraph_t g;
    OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    OK(cudaMemsetAsync(d, 2, N, s));
    OK(cudaGraphLaunch(x, s));
    OK(cudaMemsetAsync(d, 3, N, s));
    OK(cudaStreamEndCapture(s, &g));
    print_graph("one_stream", g);
    OK(cudaGraphDestroy(g));

    // Case 2: the launch on a stream forked from the origin, joined back.
    cudaEvent_t fork, join;
    OK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    OK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    OK(cudaMemsetAsync(d, 4, N, s));
    OK(cudaEventRecord(fork, s));
    OK(cudaStreamWaitEvent(t, fork, 0));
    OK(cudaGraphLaunch(x, t));
    OK(cudaEventRecord(join, t));
    OK(cudaStreamWaitEvent(s, join, 0));
    OK(cudaMemsetAsync(d, 5, N, s));
    OK(cudaStreamEndCapture(s, &g));
    print_graph("forked", g);
    OK(cudaGraphDestroy(g));

    OK(cudaGraphExecDestroy(x));
    OK(cudaGraphDestroy(inner));
    OK(cudaEventDestroy(fork));
    OK(cudaEventDestroy(join));
    OK(cudaStreamDestroy(s));
    OK(cudaStreamDestroy(t));
    OK(cudaFree(d));
    return 0;
}
