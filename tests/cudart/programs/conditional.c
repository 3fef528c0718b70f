/* conditional: conditional nodes of each type, built by hand and in a
 * capture.  Graph A holds an if with an else (its handle's default 1,
 * assigned at each launch) and an if without one (default 0); graph B a
 * while whose default 1 runs its body (no kernel clears it: the stand-in
 * runs it once) and one whose default 0 never runs it; graph C a switch
 * of three cases whose default 2 picks the last and one whose default 9
 * picks none.  Graph D is captured: a memset, an if added to the
 * capture's graph through cudaStreamGetCaptureInfo, cudaGraphAddNode and
 * cudaStreamUpdateCaptureDependencies, and a memset after it; its body is
 * filled afterwards by capturing into it (cudaStreamBeginCaptureToGraph).
 * Instantiating each stores it with every body as a graph of its own.
 * Each body sets a byte of its own in a marks buffer (a memset node, which
 * CUDA allows in a body), so a launch shows which bodies ran.  The CUDA
 * form (conditional.cu) is this file compiled by nvcc. */
#ifdef __CUDACC__
#include <cuda_runtime.h>
#else
#include "sc_cudart.h"
#endif

#include "prog.h"

enum { N = 256 };

/* The mark of each body: its byte in the marks buffer is its letter. */
static const char letters[] = "TFXWZabcdC";
#define NMARKS (sizeof(letters) - 1)

static unsigned char *g_marks; /* device memory, NMARKS bytes */

static unsigned int slot(char c)
{
    return (unsigned int)(strchr(letters, c) - letters);
}

/* A memset node of g, after dep when there is one: `size` bytes of `dst`
 * set to `value`. */
static cudaGraphNode_t add_memset(cudaGraph_t g, cudaGraphNode_t dep, void *dst, size_t size,
                                  unsigned int value)
{
    struct cudaMemsetParams mp;
    memset(&mp, 0, sizeof(mp));
    mp.dst = dst;
    mp.value = value;
    mp.elementSize = 1;
    mp.width = size;
    mp.height = 1;
    mp.pitch = size;
    cudaGraphNode_t n;
    SC_OK(cudaGraphAddMemsetNode(&n, g, dep ? &dep : NULL, dep ? 1 : 0, &mp));
    return n;
}

/* The node that marks c as run. */
static cudaGraphNode_t add_mark(cudaGraph_t g, cudaGraphNode_t dep, char c)
{
    return add_memset(g, dep, g_marks + slot(c), 1, (unsigned char)c);
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

/* Launch x on s with the marks cleared: exactly the bodies in `want` ran. */
static void launch_marks(cudaGraphExec_t x, cudaStream_t s, const char *want)
{
    unsigned char got[NMARKS];
    SC_OK(cudaMemset(g_marks, 0, NMARKS));
    SC_OK(cudaGraphLaunch(x, s));
    SC_OK(cudaStreamSynchronize(s));
    SC_OK(cudaMemcpy(got, g_marks, NMARKS, cudaMemcpyDeviceToHost));
    for (unsigned int i = 0; i < NMARKS; i++) {
        int ran = got[i] == (unsigned char)letters[i];
        if (ran != (strchr(want, letters[i]) != NULL) || (!ran && got[i] != 0)) {
            fprintf(stderr, "body %c: mark %d, want the bodies \"%s\" to have run\n", letters[i],
                    got[i], want);
            exit(1);
        }
    }
}

/* Instantiate g and launch it twice: the same bodies run each time. */
static void launch_twice(cudaGraph_t g, cudaStream_t s, const char *want)
{
    cudaGraphExec_t x;
    SC_OK(cudaGraphInstantiate(&x, g, 0));
    launch_marks(x, s, want);
    launch_marks(x, s, want);
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
    cudaGraphNode_t ms = add_memset(g, NULL, d, N, 7);
    cudaGraphNode_t c1 = add_cond(g, &ms, 1, yes, cudaGraphCondTypeIf, 2, &b1);
    add_mark(b1[0], NULL, 'T');
    add_mark(b1[1], NULL, 'F');
    add_cond(g, &c1, 1, no, cudaGraphCondTypeIf, 1, &b2);
    add_mark(b2[0], NULL, 'X');
    /* The node owns its bodies: the program cannot destroy one. */
    SC_FAILS(cudaErrorInvalidValue, cudaGraphDestroy(b1[0]));
    /* A clone holds bodies of its own that run alike. */
    cudaGraph_t clone;
    SC_OK(cudaGraphClone(&clone, g));
    launch_twice(g, s, "T");
    launch_twice(clone, s, "T");
    SC_OK(cudaGraphDestroy(clone));
    SC_OK(cudaGraphDestroy(g));
}

static void loops(unsigned char *d, cudaStream_t s)
{
    cudaGraph_t g, *once, *never;
    SC_OK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle on, off;
    SC_OK(cudaGraphConditionalHandleCreate(&on, g, 1, 0));
    SC_OK(cudaGraphConditionalHandleCreate(&off, g, 0, cudaGraphCondAssignDefault));
    cudaGraphNode_t w1 = add_cond(g, NULL, 0, on, cudaGraphCondTypeWhile, 1, &once);
    cudaGraphNode_t m = add_mark(once[0], NULL, 'W');
    add_memset(once[0], m, d, N, 9);
    add_cond(g, &w1, 1, off, cudaGraphCondTypeWhile, 1, &never);
    add_mark(never[0], NULL, 'Z');
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
    add_mark(cases[0], NULL, 'a');
    add_mark(cases[1], NULL, 'b');
    add_mark(cases[2], NULL, 'c');
    add_cond(g, &sw, 1, nine, cudaGraphCondTypeSwitch, 2, &none);
    add_mark(none[0], NULL, 'd');
    /* none[1] stays empty. */
    launch_twice(g, s, "c");
    SC_OK(cudaGraphDestroy(g));
}

static void captured(unsigned char *d, cudaStream_t s)
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

    /* The body is filled by capturing into it; the end hands back nothing. */
    cudaStream_t bs;
    SC_OK(cudaStreamCreate(&bs));
    SC_OK(cudaStreamBeginCaptureToGraph(bs, body[0], NULL, NULL, 0, cudaStreamCaptureModeGlobal));
    SC_OK(cudaMemsetAsync(g_marks + slot('C'), 'C', 1, bs));
    SC_OK(cudaStreamEndCapture(bs, NULL));
    SC_OK(cudaStreamDestroy(bs));
    launch_twice(g, s, "C");
    SC_OK(cudaGraphDestroy(g));
}

int main(void)
{
    unsigned char *d = NULL;
    SC_OK(cudaMalloc((void **)&d, N));
    SC_OK(cudaMalloc((void **)&g_marks, NMARKS));
    cudaStream_t s;
    SC_OK(cudaStreamCreate(&s));
    if_else(d, s);
    loops(d, s);
    switches(s);
    captured(d, s);
    SC_OK(cudaStreamDestroy(s));
    SC_OK(cudaFree(g_marks));
    SC_OK(cudaFree(d));
    return 0;
}
