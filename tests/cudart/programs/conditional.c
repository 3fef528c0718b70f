/* conditional: conditional nodes of each type, built by hand and in a
 * capture.  Graph A holds an if with an else (its handle's default 1,
 * assigned at each launch) and an if without one (default 0); graph B a
 * while whose default 1 runs its body once (no kernel clears it) and one
 * whose default 0 never runs it; graph C a switch of three cases whose
 * default 2 picks the last and one whose default 9 picks none.  Graph D
 * is captured: a memset, an if added to the capture's graph through
 * cudaStreamGetCaptureInfo, cudaGraphAddNode and
 * cudaStreamUpdateCaptureDependencies, and a memset after it; its body is
 * filled afterwards by capturing into it (cudaStreamBeginCaptureToGraph).
 * Instantiating each stores it with every body as a graph of its own;
 * each body holds a host node that names itself when it runs, so the
 * launches show which bodies ran.  The CUDA form (conditional.cu) is this
 * file compiled by nvcc. */
#ifdef __CUDACC__
#include <cuda_runtime.h>
#else
#include "sc_cudart.h"
#endif

#include "prog.h"

enum { N = 256 };

typedef struct run_log {
    char order[32];
    size_t len;
} run_log;

static run_log g_log;

static void note(void *arg)
{
    if (g_log.len + 1 < sizeof(g_log.order))
        g_log.order[g_log.len++] = *(const char *)arg;
    g_log.order[g_log.len] = 0;
}

/* The letters the host nodes write. */
static const char letters[] = "TFXWZabcdC";

static const char *letter(char c)
{
    return strchr(letters, c);
}

/* A host node writing c into graph g, after dep when there is one. */
static cudaGraphNode_t add_note(cudaGraph_t g, cudaGraphNode_t dep, char c)
{
    struct cudaHostNodeParams hp;
    memset(&hp, 0, sizeof(hp));
    hp.fn = note;
    hp.userData = (void *)letter(c);
    cudaGraphNode_t n;
    SC_OK(cudaGraphAddHostNode(&n, g, dep ? &dep : NULL, dep ? 1 : 0, &hp));
    return n;
}

/* A conditional node of g after deps; its bodies, the array the runtime
 * hands back, through *out. */
static cudaGraphNode_t add_cond(cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps,
                                cudaGraphConditionalHandle h,
                                enum cudaGraphConditionalNodeType type, unsigned int size,
                                cudaGraph_t **out)
{
    /* calloc: in C++ the union's members leave the struct no default constructor. */
    struct cudaGraphNodeParams *p =
        (struct cudaGraphNodeParams *)calloc(1, sizeof(struct cudaGraphNodeParams));
    p->type = cudaGraphNodeTypeConditional;
    p->conditional.handle = h;
    p->conditional.type = type;
    p->conditional.size = size;
    cudaGraphNode_t n;
    SC_OK(cudaGraphAddNode(&n, g, deps, NULL, ndeps, p));
    *out = p->conditional.phGraph_out;
    free(p);
    enum cudaGraphNodeType t;
    SC_OK(cudaGraphNodeGetType(n, &t));
    SC_CHECK(t == cudaGraphNodeTypeConditional);
    SC_CHECK(*out != NULL);
    for (unsigned int i = 0; i < size; i++)
        SC_CHECK((*out)[i] != NULL);
    return n;
}

/* Instantiate g, launch it twice on s (the order must be `want` twice),
 * destroy the exec. */
static void launch_twice(cudaGraph_t g, cudaStream_t s, const char *want)
{
    cudaGraphExec_t x;
    SC_OK(cudaGraphInstantiate(&x, g, 0));
    g_log.len = 0;
    g_log.order[0] = 0;
    SC_OK(cudaGraphLaunch(x, s));
    SC_OK(cudaGraphLaunch(x, s));
    SC_OK(cudaStreamSynchronize(s));
    char twice[32];
    snprintf(twice, sizeof(twice), "%s%s", want, want);
    if (strcmp(g_log.order, twice) != 0) {
        fprintf(stderr, "launches ran \"%s\", want \"%s\"\n", g_log.order, twice);
        exit(1);
    }
    SC_OK(cudaGraphExecDestroy(x));
}

static void if_else(unsigned char *d, cudaStream_t s)
{
    cudaGraph_t g, *b1, *b2;
    SC_OK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle yes, no;
    SC_OK(cudaGraphConditionalHandleCreate(&yes, g, 1, cudaGraphCondAssignDefault));
    SC_OK(cudaGraphConditionalHandleCreate(&no, g, 0, 0));
    SC_CHECK(yes != no);
    cudaGraphNode_t ms, c1, c2;
    struct cudaMemsetParams mp;
    memset(&mp, 0, sizeof(mp));
    mp.dst = d;
    mp.value = 7;
    mp.elementSize = 1;
    mp.width = N;
    mp.height = 1;
    mp.pitch = N;
    SC_OK(cudaGraphAddMemsetNode(&ms, g, NULL, 0, &mp));
    c1 = add_cond(g, &ms, 1, yes, cudaGraphCondTypeIf, 2, &b1);
    add_note(b1[0], NULL, 'T');
    add_note(b1[1], NULL, 'F');
    c2 = add_cond(g, &c1, 1, no, cudaGraphCondTypeIf, 1, &b2);
    add_note(b2[0], NULL, 'X');
    (void)c2;
    /* The node owns its bodies: the program cannot destroy one. */
    SC_FAILS(cudaErrorInvalidValue, cudaGraphDestroy(b1[0]));
    /* A clone holds bodies of its own that run alike. */
    cudaGraph_t clone;
    SC_OK(cudaGraphClone(&clone, g));
    launch_twice(g, s, "T");
    cudaGraphExec_t x;
    SC_OK(cudaGraphInstantiate(&x, clone, 0));
    SC_OK(cudaGraphExecDestroy(x));
    SC_OK(cudaGraphDestroy(clone));
    SC_OK(cudaGraphDestroy(g));
}

static void loops(cudaStream_t s, unsigned char *d)
{
    cudaGraph_t g, *once, *never;
    SC_OK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle on, off;
    SC_OK(cudaGraphConditionalHandleCreate(&on, g, 1, 0));
    SC_OK(cudaGraphConditionalHandleCreate(&off, g, 0, cudaGraphCondAssignDefault));
    cudaGraphNode_t w1 = add_cond(g, NULL, 0, on, cudaGraphCondTypeWhile, 1, &once);
    cudaGraphNode_t h = add_note(once[0], NULL, 'W');
    cudaGraphNode_t ms;
    struct cudaMemsetParams mp;
    memset(&mp, 0, sizeof(mp));
    mp.dst = d;
    mp.value = 9;
    mp.elementSize = 1;
    mp.width = N;
    mp.height = 1;
    mp.pitch = N;
    SC_OK(cudaGraphAddMemsetNode(&ms, once[0], &h, 1, &mp));
    add_cond(g, &w1, 1, off, cudaGraphCondTypeWhile, 1, &never);
    add_note(never[0], NULL, 'Z');
    launch_twice(g, s, "W");
    SC_OK(cudaGraphDestroy(g));
}

static void switches(cudaStream_t s)
{
    cudaGraph_t g, *cases, *none;
    SC_OK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle two, nine;
    SC_OK(cudaGraphConditionalHandleCreate(&two, g, 2, 0));
    SC_OK(cudaGraphConditionalHandleCreate(&nine, g, 9, 0));
    cudaGraphNode_t sw = add_cond(g, NULL, 0, two, cudaGraphCondTypeSwitch, 3, &cases);
    add_note(cases[0], NULL, 'a');
    add_note(cases[1], NULL, 'b');
    add_note(cases[2], NULL, 'c');
    add_cond(g, &sw, 1, nine, cudaGraphCondTypeSwitch, 2, &none);
    add_note(none[0], NULL, 'd');
    /* none[1] stays empty. */
    launch_twice(g, s, "c");
    SC_OK(cudaGraphDestroy(g));
}

static void captured(cudaStream_t s, unsigned char *d)
{
    cudaGraph_t g, *body;
    enum cudaStreamCaptureStatus status;
    const cudaGraphNode_t *deps;
    size_t ndeps;
    SC_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    SC_OK(cudaMemsetAsync(d, 1, N, s));
    SC_OK(cudaStreamGetCaptureInfo(s, &status, NULL, &g, &deps, NULL, &ndeps));
    SC_CHECK(status == cudaStreamCaptureStatusActive && ndeps == 1);
    cudaGraphConditionalHandle h;
    SC_OK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
    cudaGraphNode_t c = add_cond(g, deps, ndeps, h, cudaGraphCondTypeIf, 1, &body);
    SC_OK(cudaStreamUpdateCaptureDependencies(s, &c, NULL, 1, cudaStreamSetCaptureDependencies));
    SC_OK(cudaMemsetAsync(d, 2, N, s));
    SC_OK(cudaStreamEndCapture(s, &g));

    cudaStream_t bs;
    SC_OK(cudaStreamCreate(&bs));
    SC_OK(cudaStreamBeginCaptureToGraph(bs, body[0], NULL, NULL, 0, cudaStreamCaptureModeGlobal));
    SC_OK(cudaLaunchHostFunc(bs, note, (void *)letter('C')));
    SC_OK(cudaStreamEndCapture(bs, NULL));
    SC_OK(cudaStreamDestroy(bs));
    launch_twice(g, s, "C");
    SC_OK(cudaGraphDestroy(g));
}

int main(void)
{
    unsigned char *d = NULL;
    SC_OK(cudaMalloc((void **)&d, N));
    cudaStream_t s;
    SC_OK(cudaStreamCreate(&s));
    if_else(d, s);
    loops(s, d);
    switches(s);
    captured(s, d);
    SC_OK(cudaStreamDestroy(s));
    SC_OK(cudaFree(d));
    return 0;
}
