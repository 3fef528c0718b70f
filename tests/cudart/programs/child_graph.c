/* child_graph: graphs built by hand that hold child graphs.  The top
 * graph copies a buffer in, runs a child graph (a memset, then a child
 * graph of its own holding a host node), runs a second child graph added
 * through cudaGraphAddNode, and copies the buffer out.  Instantiating it
 * stores the top graph and each child as a graph of its own, linked to
 * the node that holds it; launching it runs the children's memset and
 * host nodes in order.  The CUDA form (child_graph.cu) is this file
 * compiled by nvcc. */
#ifdef __CUDACC__
#include <cuda_runtime.h>
#else
#include "sc_cudart.h"
#endif

#include "prog.h"

enum { N = 1024 };

typedef struct run_log {
    char order[16];
    size_t len;
} run_log;

static void note(void *arg)
{
    run_log *l = (run_log *)arg;
    if (l->len + 1 < sizeof(l->order))
        l->order[l->len++] = 'h';
    l->order[l->len] = 0;
}

int main(void)
{
    run_log log;
    memset(&log, 0, sizeof(log));
    unsigned char *host = (unsigned char *)malloc(N), *back = (unsigned char *)malloc(N);
    memset(host, 1, N);
    memset(back, 0, N);
    unsigned char *d = NULL;
    SC_OK(cudaMalloc((void **)&d, N));
    cudaStream_t s;
    SC_OK(cudaStreamCreate(&s));

    /* inner: one host node */
    cudaGraph_t inner, mid, top;
    SC_OK(cudaGraphCreate(&inner, 0));
    cudaGraphNode_t h;
    struct cudaHostNodeParams hp;
    memset(&hp, 0, sizeof(hp));
    hp.fn = note;
    hp.userData = &log;
    SC_OK(cudaGraphAddHostNode(&h, inner, NULL, 0, &hp));

    /* mid: memset -> child(inner) */
    SC_OK(cudaGraphCreate(&mid, 0));
    cudaGraphNode_t ms, mc;
    struct cudaMemsetParams mp;
    memset(&mp, 0, sizeof(mp));
    mp.dst = d;
    mp.value = 0x5a;
    mp.elementSize = 1;
    mp.width = N;
    mp.height = 1;
    mp.pitch = N;
    SC_OK(cudaGraphAddMemsetNode(&ms, mid, NULL, 0, &mp));
    SC_OK(cudaGraphAddChildGraphNode(&mc, mid, &ms, 1, inner));

    /* top: memcpy in -> child(mid) -> child(inner, by cudaGraphAddNode) -> memcpy out */
    SC_OK(cudaGraphCreate(&top, 0));
    cudaGraphNode_t t[4];
    SC_OK(cudaGraphAddMemcpyNode1D(&t[0], top, NULL, 0, d, host, N, cudaMemcpyHostToDevice));
    SC_OK(cudaGraphAddChildGraphNode(&t[1], top, &t[0], 1, mid));
    /* calloc: in C++ the union's members leave the struct no default constructor. */
    struct cudaGraphNodeParams *np =
        (struct cudaGraphNodeParams *)calloc(1, sizeof(struct cudaGraphNodeParams));
    np->type = cudaGraphNodeTypeGraph;
    np->graph.graph = inner;
    SC_OK(cudaGraphAddNode(&t[2], top, &t[1], NULL, 1, np));
    free(np);
    SC_OK(cudaGraphAddMemcpyNode1D(&t[3], top, &t[2], 1, back, d, N, cudaMemcpyDeviceToHost));

    /* The node holds a copy: its graph is not the one passed in. */
    cudaGraph_t got = NULL;
    SC_OK(cudaGraphChildGraphNodeGetGraph(t[1], &got));
    SC_CHECK(got != NULL && got != mid);
    size_t count = 0;
    SC_OK(cudaGraphGetNodes(got, NULL, &count));
    SC_CHECK(count == 2);
    enum cudaGraphNodeType type;
    SC_OK(cudaGraphNodeGetType(t[2], &type));
    SC_CHECK(type == cudaGraphNodeTypeGraph);

    cudaGraphExec_t x;
    SC_OK(cudaGraphInstantiate(&x, top, 0));
    SC_OK(cudaGraphLaunch(x, s));
    SC_OK(cudaStreamSynchronize(s));
    SC_CHECK(strcmp(log.order, "hh") == 0);
    for (int i = 0; i < N; i++)
        SC_CHECK(back[i] == 0x5a);
    SC_OK(cudaGraphExecDestroy(x));
    SC_OK(cudaGraphDestroy(top));
    SC_OK(cudaGraphDestroy(mid));
    SC_OK(cudaGraphDestroy(inner));
    SC_OK(cudaStreamDestroy(s));
    SC_OK(cudaFree(d));
    free(host);
    free(back);
    return 0;
}
