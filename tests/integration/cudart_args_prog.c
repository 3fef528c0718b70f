/*
 * cudart_args_prog - a CUDA program for test_cudart_feed whose kernel has
 * a parameter layout: it registers a fat binary built here the way nvcc
 * lays one out (tests/cudart/fatbin_image.c: a cubin whose .nv.info
 * section carries the layout of kadd(float *, int, double, char), stored
 * uncompressed), launches kadd in a capture and then changes the locals
 * the launch pointed at, so that the stored graph shows the values as the
 * launch copied them; a kadd node added by hand to the capture's graph
 * and one of a graph built by hand (stored at instantiation) must be
 * stored with the values they were given too, as must the node of a
 * graph captured into (cudaStreamBeginCaptureToGraph).  A second kernel, never
 * given a layout, is launched too: it must be stored without arguments.
 *
 * `cudart_args_prog wide` instead captures SC_WIDE_LAUNCHES launches of a
 * kernel of 64 pointer-sized parameters, each launch's records larger than
 * most (its values and room for 64 accesses), so that the feed's queue
 * ends its blocks early for want of argument room: parameter j of launch
 * i holds i * 256 + j, but parameter 0 points into a 4096-byte allocation.
 * Half way through it registers SC_WIDE_MORE other kernels, so that the
 * stand-in's kernel table grows and moves its entries between two
 * launches of the same kernel.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fatbin.h"
#include "fatbin_image.h"
#include "sc_cudart.h"

#define KNAME SC_TFB_KNAME

/* The container: the cubin, uncompressed. */
static void make_container(sc_tfb *c)
{
    static sc_tfb cubin;
    sc_tfb_cubin(&cubin, 80);
    sc_tfb_begin(c);
    sc_tfb_entry(c, SC_FB_ELF, 80, 0x11, cubin.b, cubin.n, 0);
    sc_tfb_end(c);
}

#define SC_WIDE_PARAMS   64
#define SC_WIDE_LAUNCHES 300
#define SC_WIDE_MORE     200

static void kadd_stub(void) {}
static void wide_stub(void) {}
static void plain_stub(void) {}

static void ok(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "cudart_args_prog: %s: %s\n", what, cudaGetErrorName(e));
        exit(1);
    }
}

/* A kadd node added by hand to the capture's graph (capture.add_node),
 * after the launch; the values are the node's from the add on. */
static void add_to_capture(cudaStream_t s, void **args)
{
    enum cudaStreamCaptureStatus st;
    cudaGraph_t cg;
    const cudaGraphNode_t *deps;
    size_t ndeps;
    ok(cudaStreamGetCaptureInfo(s, &st, NULL, &cg, &deps, NULL, &ndeps),
       "cudaStreamGetCaptureInfo");
    struct cudaKernelNodeParams kp = {(void *)kadd_stub, {1, 1, 1}, {64, 1, 1}, 0, args, NULL};
    cudaGraphNode_t node;
    ok(cudaGraphAddKernelNode(&node, cg, deps, ndeps, &kp), "cudaGraphAddKernelNode");
}

/* A graph of one kadd node built by hand, stored at instantiation
 * (graph.submit) after the caller's locals changed. */
static void submit_by_hand(void **args)
{
    cudaGraph_t g;
    ok(cudaGraphCreate(&g, 0), "cudaGraphCreate");
    struct cudaKernelNodeParams kp = {(void *)kadd_stub, {3, 1, 1}, {16, 1, 1}, 0, args, NULL};
    cudaGraphNode_t node;
    ok(cudaGraphAddKernelNode(&node, g, NULL, 0, &kp), "cudaGraphAddKernelNode");
    *(int *)args[1] = -2;
    cudaGraphExec_t x;
    ok(cudaGraphInstantiate(&x, g, 0), "cudaGraphInstantiate");
    ok(cudaGraphExecDestroy(x), "cudaGraphExecDestroy");
    ok(cudaGraphDestroy(g), "cudaGraphDestroy");
}

/* A graph holding a kadd node, captured into
 * (cudaStreamBeginCaptureToGraph): the node is the capture's first, sent
 * with the node's own values (capture 2). */
static void capture_into(cudaStream_t s, void **args)
{
    cudaGraph_t g, out;
    ok(cudaGraphCreate(&g, 0), "cudaGraphCreate");
    struct cudaKernelNodeParams kp = {(void *)kadd_stub, {1, 1, 1}, {8, 1, 1}, 0, args, NULL};
    cudaGraphNode_t node;
    ok(cudaGraphAddKernelNode(&node, g, NULL, 0, &kp), "cudaGraphAddKernelNode");
    *(int *)args[1] = -3;
    ok(cudaStreamBeginCaptureToGraph(s, g, NULL, NULL, 0, cudaStreamCaptureModeGlobal),
       "cudaStreamBeginCaptureToGraph");
    ok(cudaLaunchKernel((const void *)plain_stub, (dim3){1, 1, 1}, (dim3){1, 1, 1}, NULL, 0, s),
       "cudaLaunchKernel");
    ok(cudaStreamEndCapture(s, &out), "cudaStreamEndCapture");
    ok(cudaGraphDestroy(g), "cudaGraphDestroy");
}

/* Kernels of no layout, registered as a second module would register
 * its own: the host "functions" are bytes of an array, as the table only
 * keys on their address. */
static void register_more(void)
{
    static char bare[16], hosts[SC_WIDE_MORE];
    void **h = __cudaRegisterFatBinary(bare);
    for (int i = 0; i < SC_WIDE_MORE; i++) {
        char name[32];
        snprintf(name, sizeof name, "more%d", i);
        __cudaRegisterFunction(h, &hosts[i], name, name, -1, NULL, NULL, NULL, NULL, NULL);
    }
    __cudaRegisterFatBinaryEnd(h);
}

/* The wide kernel's launches, in one capture ended before exit. */
static int wide(void)
{
    static sc_tfb c;
    uint32_t sizes[SC_WIDE_PARAMS];
    for (size_t j = 0; j < SC_WIDE_PARAMS; j++)
        sizes[j] = 8;
    sc_tfb_single(&c, "wide", sizes, SC_WIDE_PARAMS);
    sc_tfb_register(&c, (const void *)wide_stub, "wide");
    void *buf;
    ok(cudaMalloc(&buf, 4096), "cudaMalloc");
    cudaStream_t s;
    ok(cudaStreamCreate(&s), "cudaStreamCreate");
    ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    uint64_t v[SC_WIDE_PARAMS];
    void *args[SC_WIDE_PARAMS];
    for (size_t j = 0; j < SC_WIDE_PARAMS; j++)
        args[j] = &v[j];
    for (uint64_t i = 0; i < SC_WIDE_LAUNCHES; i++) {
        if (i == SC_WIDE_LAUNCHES / 2)
            register_more();
        for (uint64_t j = 0; j < SC_WIDE_PARAMS; j++)
            v[j] = i * 256 + j;
        v[0] = (uint64_t)(uintptr_t)buf + i;
        ok(cudaLaunchKernel((const void *)wide_stub, (dim3){1, 1, 1}, (dim3){1, 1, 1}, args, 0, s),
           "cudaLaunchKernel");
    }
    cudaGraph_t g;
    ok(cudaStreamEndCapture(s, &g), "cudaStreamEndCapture");
    printf("{\"buf\":%llu}\n", (unsigned long long)(uintptr_t)buf);
    ok(cudaGraphDestroy(g), "cudaGraphDestroy");
    ok(cudaStreamDestroy(s), "cudaStreamDestroy");
    ok(cudaFree(buf), "cudaFree");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "wide") == 0)
        return wide();
    static sc_tfb c;
    make_container(&c);
    sc_tfb_register(&c, (const void *)kadd_stub, KNAME);
    static char bare[16];
    void **h2 = __cudaRegisterFatBinary(bare);
    __cudaRegisterFunction(h2, (const char *)(void *)plain_stub, (char *)"plain", "plain", -1, NULL,
                           NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(h2);

    cudaStream_t s;
    ok(cudaStreamCreate(&s), "cudaStreamCreate");
    ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    float *x = (float *)(uintptr_t)0x1000;
    int n = 7;
    double a = 2.0;
    char ch = 'c';
    void *args[] = {&x, &n, &a, &ch};
    ok(cudaLaunchKernel((const void *)kadd_stub, (dim3){2, 1, 1}, (dim3){32, 1, 1}, args, 0, s),
       "cudaLaunchKernel");
    /* What the launch saw, not what the locals hold by the end. */
    x = (float *)(uintptr_t)0x3000;
    n = 8;
    a = 3.0;
    ch = 'e';
    add_to_capture(s, args);
    x = NULL;
    n = -1;
    a = 0;
    ch = 0;
    ok(cudaLaunchKernel((const void *)plain_stub, (dim3){1, 1, 1}, (dim3){1, 1, 1}, NULL, 0, s),
       "cudaLaunchKernel");
    cudaGraph_t g;
    ok(cudaStreamEndCapture(s, &g), "cudaStreamEndCapture");
    ok(cudaGraphDestroy(g), "cudaGraphDestroy");

    x = (float *)(uintptr_t)0x2000;
    n = 9;
    a = 4.0;
    ch = 'd';
    submit_by_hand(args);

    x = (float *)(uintptr_t)0x4000;
    n = 10;
    a = 5.0;
    ch = 'f';
    capture_into(s, args);
    return 0;
}
