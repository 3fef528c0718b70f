/* by_hand, the plain C twin of by_hand.cu: graphs built with the graph API, instantiated (which
 * stores them through graph.submit) and launched twice.  A launch runs the memcpy, memset and host
 * nodes in dependency order, so the host nodes find the copies done and run in order (the last one
 * added without dependencies, its edges added afterwards); the second graph was built with its
 * nodes added last-first, so only its edges give the order. */
#include "sc_cudart.h"

#include "kernels_c.h"
#include "prog.h"

SC_KERNEL(bump);
SC_KERNELS({bump, "_Z4bumpPhi"})

enum { N = 4096 };

typedef struct run_log {
    char order[16];
    size_t len;
    unsigned char *src, *out, *out2;
    int bad;
} run_log;

static void note(run_log *l, char c)
{
    if (l->len + 1 < sizeof(l->order))
        l->order[l->len++] = c;
    l->order[l->len] = 0;
}

static void first(void *arg)
{
    run_log *l = (run_log *)arg;
    note(l, '1');
    for (int i = 0; i < N; i++)
        l->src[i] = (unsigned char)(i * 7 + (int)l->len);
    memset(l->out, 0, N);
    memset(l->out2, 0, N);
}

static void second(void *arg)
{
    note((run_log *)arg, '2');
}

static void third(void *arg)
{
    run_log *l = (run_log *)arg;
    note(l, '3');
    for (int i = 0; i < N; i++)
        if (l->out[i] != l->src[i] || l->out2[i] != 0x5a)
            l->bad = 1;
}

static void early(void *arg)
{
    note((run_log *)arg, 'a');
}

static void late(void *arg)
{
    note((run_log *)arg, 'b');
}

int main(void)
{
    run_log log;
    memset(&log, 0, sizeof(log));
    log.src = (unsigned char *)malloc(N);
    log.out = (unsigned char *)malloc(N);
    log.out2 = (unsigned char *)malloc(N);
    unsigned char *d = NULL, *d2 = NULL, *d3 = NULL;
    SC_OK(cudaMalloc((void **)&d, N));
    SC_OK(cudaMalloc((void **)&d2, N));
    SC_OK(cudaMalloc((void **)&d3, N));
    cudaStream_t s;
    SC_OK(cudaStreamCreate(&s));
    int n = N;

    cudaGraph_t g;
    SC_OK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t nd[9];
    struct cudaHostNodeParams hp;
    memset(&hp, 0, sizeof(hp));
    hp.userData = &log;
    hp.fn = first;
    SC_OK(cudaGraphAddHostNode(&nd[0], g, NULL, 0, &hp));
    SC_OK(cudaGraphAddMemcpyNode1D(&nd[1], g, &nd[0], 1, d, log.src, N, cudaMemcpyHostToDevice));
    struct cudaKernelNodeParams kp;
    memset(&kp, 0, sizeof(kp));
    void *args[] = {&d3, &n};
    kp.func = (void *)bump;
    kp.gridDim = sc_dim3(16, 1, 1);
    kp.blockDim = sc_dim3(256, 1, 1);
    kp.kernelParams = args;
    SC_OK(cudaGraphAddKernelNode(&nd[2], g, &nd[1], 1, &kp));
    struct cudaMemsetParams mp;
    memset(&mp, 0, sizeof(mp));
    mp.dst = d2;
    mp.value = 0x5a;
    mp.elementSize = 1;
    mp.width = N;
    mp.height = 1;
    mp.pitch = N;
    SC_OK(cudaGraphAddMemsetNode(&nd[3], g, &nd[1], 1, &mp));
    hp.fn = second;
    SC_OK(cudaGraphAddHostNode(&nd[4], g, &nd[2], 2, &hp));
    SC_OK(cudaGraphAddMemcpyNode1D(&nd[5], g, &nd[4], 1, log.out, d, N, cudaMemcpyDefault));
    SC_OK(cudaGraphAddMemcpyNode1D(&nd[6], g, &nd[4], 1, log.out2, d2, N, cudaMemcpyDeviceToHost));
    hp.fn = third;
    SC_OK(cudaGraphAddHostNode(&nd[7], g, NULL, 0, &hp));
    cudaGraphNode_t from[2] = {nd[5], nd[6]}, to[2] = {nd[7], nd[7]};
    SC_OK(cudaGraphAddDependencies(g, from, to, NULL, 2));
    SC_OK(cudaGraphAddEmptyNode(&nd[8], g, &nd[7], 1));

    size_t count = 0;
    SC_OK(cudaGraphGetRootNodes(g, NULL, &count));
    SC_CHECK(count == 1);
    SC_OK(cudaGraphGetEdges(g, NULL, NULL, NULL, &count));
    SC_CHECK(count == 10);
    enum cudaGraphNodeType type;
    SC_OK(cudaGraphNodeGetType(nd[7], &type));
    SC_CHECK(type == cudaGraphNodeTypeHost);
    struct cudaKernelNodeParams got;
    SC_OK(cudaGraphKernelNodeGetParams(nd[2], &got));
    SC_CHECK(got.gridDim.x == 16 && got.blockDim.x == 256);
    SC_OK(cudaGraphNodeGetDependencies(nd[7], NULL, NULL, &count));
    SC_CHECK(count == 2);

    cudaGraphExec_t x;
    SC_OK(cudaGraphInstantiate(&x, g, 0));
    SC_OK(cudaGraphLaunch(x, s));
    SC_OK(cudaStreamSynchronize(s));
    SC_CHECK(strcmp(log.order, "123") == 0);
    SC_CHECK(!log.bad);
    SC_OK(cudaGraphLaunch(x, s));
    SC_OK(cudaStreamSynchronize(s));
    SC_CHECK(strcmp(log.order, "123123") == 0);
    SC_CHECK(!log.bad);
    SC_OK(cudaGraphExecDestroy(x));
    SC_OK(cudaGraphDestroy(g));

    /* Added last-first: late, then a memset, then early; the edges say
     * early -> memset -> late. */
    log.len = 0;
    cudaGraph_t g2;
    SC_OK(cudaGraphCreate(&g2, 0));
    cudaGraphNode_t m[3];
    hp.fn = late;
    SC_OK(cudaGraphAddHostNode(&m[0], g2, NULL, 0, &hp));
    mp.value = 1;
    mp.width = 256;
    SC_OK(cudaGraphAddMemsetNode(&m[1], g2, NULL, 0, &mp));
    hp.fn = early;
    SC_OK(cudaGraphAddHostNode(&m[2], g2, NULL, 0, &hp));
    cudaGraphNode_t f2[2] = {m[2], m[1]}, t2[2] = {m[1], m[0]};
    SC_OK(cudaGraphAddDependencies(g2, f2, t2, NULL, 2));
    SC_OK(cudaGraphInstantiate(&x, g2, 0));
    SC_OK(cudaGraphLaunch(x, s));
    SC_OK(cudaStreamSynchronize(s));
    SC_CHECK(strcmp(log.order, "ab") == 0);
    SC_OK(cudaGraphExecDestroy(x));
    SC_OK(cudaGraphDestroy(g2));

    SC_OK(cudaStreamDestroy(s));
    SC_OK(cudaFree(d));
    SC_OK(cudaFree(d2));
    SC_OK(cudaFree(d3));
    free(log.src);
    free(log.out);
    free(log.out2);
    return 0;
}
