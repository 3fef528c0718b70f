/* child_capture: child graphs in captures, by each way one gets there.
 *
 * Capture 1 launches a graph into the capturing stream (cudaGraphLaunch):
 * memset, the launch, memcpy out.  The launch is one child graph node
 * holding the exec's graph (a host node), as the stand-in documents it.
 * Capture 2 adds a child graph node by hand to the capture's graph
 * (cudaStreamGetCaptureInfo, cudaGraphAddChildGraphNode on its graph and
 * dependencies, cudaStreamUpdateCaptureDependencies), the child holding a
 * memset and a child of its own.  Capture 3 captures into a graph that
 * already holds a child graph node (cudaStreamBeginCaptureToGraph), out of
 * index order.  Each
 * child is stored as a body graph linked to its node of the captured
 * graph.  Launching capture 1's graph runs the child's host node.  The
 * CUDA form (child_capture.cu) is this file compiled by nvcc. */
#ifdef __CUDACC__
#include <cuda_runtime.h>
#else
#include "sc_cudart.h"
#endif

#include "prog.h"

enum { N = 512 };

static int calls;

static void note(void *arg)
{
    (void)arg;
    calls++;
}

static cudaGraph_t host_graph(void)
{
    cudaGraph_t g;
    cudaGraphNode_t h;
    struct cudaHostNodeParams hp;
    memset(&hp, 0, sizeof(hp));
    hp.fn = note;
    SC_OK(cudaGraphCreate(&g, 0));
    SC_OK(cudaGraphAddHostNode(&h, g, NULL, 0, &hp));
    return g;
}

static size_t node_count(cudaGraph_t g)
{
    size_t n = 0;
    SC_OK(cudaGraphGetNodes(g, NULL, &n));
    return n;
}

static enum cudaGraphNodeType type_at(cudaGraph_t g, size_t i)
{
    cudaGraphNode_t nodes[8];
    size_t n = 8;
    SC_OK(cudaGraphGetNodes(g, nodes, &n));
    SC_CHECK(i < n);
    enum cudaGraphNodeType t;
    SC_OK(cudaGraphNodeGetType(nodes[i], &t));
    return t;
}

/* Capture 1: a graph launched into the capture. */
static void launched(cudaStream_t s, unsigned char *d, unsigned char *back)
{
    cudaGraph_t inner = host_graph(), g;
    cudaGraphExec_t ix, x;
    SC_OK(cudaGraphInstantiate(&ix, inner, 0));
    SC_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    SC_OK(cudaMemsetAsync(d, 7, N, s));
    SC_OK(cudaGraphLaunch(ix, s));
    SC_OK(cudaMemcpyAsync(back, d, N, cudaMemcpyDeviceToHost, s));
    SC_OK(cudaStreamEndCapture(s, &g));
    SC_CHECK(node_count(g) == 3 && type_at(g, 1) == cudaGraphNodeTypeGraph);
    SC_OK(cudaGraphInstantiate(&x, g, 0));
    SC_OK(cudaGraphLaunch(x, s));
    SC_OK(cudaStreamSynchronize(s));
    SC_CHECK(calls == 1 && back[0] == 7);
    SC_OK(cudaGraphExecDestroy(x));
    SC_OK(cudaGraphExecDestroy(ix));
    SC_OK(cudaGraphDestroy(g));
    SC_OK(cudaGraphDestroy(inner));
}

/* Capture 2: a child graph node added to the capture's graph. */
static void added(cudaStream_t s, unsigned char *d, unsigned char *back)
{
    cudaGraph_t inner = host_graph(), mid, g, cg;
    cudaGraphNode_t ms, mc, child;
    struct cudaMemsetParams mp;
    memset(&mp, 0, sizeof(mp));
    mp.dst = d;
    mp.value = 9;
    mp.elementSize = 1;
    mp.width = N;
    mp.height = 1;
    mp.pitch = N;
    SC_OK(cudaGraphCreate(&mid, 0));
    SC_OK(cudaGraphAddMemsetNode(&ms, mid, NULL, 0, &mp));
    SC_OK(cudaGraphAddChildGraphNode(&mc, mid, &ms, 1, inner));

    SC_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    SC_OK(cudaMemsetAsync(d, 1, N, s));
    enum cudaStreamCaptureStatus st;
    const cudaGraphNode_t *deps = NULL;
    size_t ndeps = 0;
    SC_OK(cudaStreamGetCaptureInfo(s, &st, NULL, &cg, &deps, NULL, &ndeps));
    SC_CHECK(st == cudaStreamCaptureStatusActive && ndeps == 1);
    SC_OK(cudaGraphAddChildGraphNode(&child, cg, deps, ndeps, mid));
    SC_OK(
        cudaStreamUpdateCaptureDependencies(s, &child, NULL, 1, cudaStreamSetCaptureDependencies));
    SC_OK(cudaMemcpyAsync(back, d, N, cudaMemcpyDeviceToHost, s));
    SC_OK(cudaStreamEndCapture(s, &g));
    SC_CHECK(g == cg && node_count(g) == 3 && type_at(g, 1) == cudaGraphNodeTypeGraph);
    SC_OK(cudaGraphDestroy(g));
    SC_OK(cudaGraphDestroy(mid));
    SC_OK(cudaGraphDestroy(inner));
}

/* Capture 3: captured into a graph that holds a child graph node, added
 * before the memcpy it depends on, so that the graph's order is not its
 * index order: the child is node 1 of the stored graph, its body linked
 * to that node. */
static void into_graph(cudaStream_t s, unsigned char *d, unsigned char *host)
{
    cudaGraph_t inner = host_graph(), g, out;
    cudaGraphNode_t cp, child;
    SC_OK(cudaGraphCreate(&g, 0));
    SC_OK(cudaGraphAddChildGraphNode(&child, g, NULL, 0, inner));
    SC_OK(cudaGraphAddMemcpyNode1D(&cp, g, NULL, 0, d, host, N, cudaMemcpyHostToDevice));
    SC_OK(cudaGraphAddDependencies(g, &cp, &child, NULL, 1));
    SC_OK(cudaStreamBeginCaptureToGraph(s, g, &child, NULL, 1, cudaStreamCaptureModeGlobal));
    SC_OK(cudaMemsetAsync(d, 3, N, s));
    SC_OK(cudaStreamEndCapture(s, &out));
    SC_CHECK(out == g && node_count(g) == 3 && type_at(g, 0) == cudaGraphNodeTypeGraph);
    SC_OK(cudaGraphDestroy(g));
    SC_OK(cudaGraphDestroy(inner));
}

int main(void)
{
    unsigned char *host = (unsigned char *)calloc(N, 1), *back = (unsigned char *)calloc(N, 1);
    unsigned char *d = NULL;
    SC_OK(cudaMalloc((void **)&d, N));
    cudaStream_t s;
    SC_OK(cudaStreamCreate(&s));
    launched(s, d, back);
    added(s, d, back);
    into_graph(s, d, host);
    SC_OK(cudaStreamDestroy(s));
    SC_OK(cudaFree(d));
    free(host);
    free(back);
    return 0;
}
