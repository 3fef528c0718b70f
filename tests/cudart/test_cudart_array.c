/*
 * test_cudart_array.c - CUDA arrays (cudart/rt_array.c): allocation and
 * its checks, queries, mipmapped levels, and every copy to, from and
 * between arrays, outside capture, in a capture and as a memcpy node of
 * a graph built by hand; texture and surface objects (rt_texture.c);
 * memcpy nodes to and from symbols (graph_symbol.c); cudaGetKernel and the
 * driver entry points (rt_entry.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rt.h"
#include "sc_cudart.h"

enum { W = 16, H = 8 }; /* a W x H array of float2 (8 bytes) */

static struct cudaChannelFormatDesc float2_desc(void)
{
    return cudaCreateChannelDesc(32, 32, 0, 0, cudaChannelFormatKindFloat);
}

static void t_alloc_and_info(void **state)
{
    (void)state;
    struct cudaChannelFormatDesc d = float2_desc(), got;
    assert_int_equal(d.x, 32);
    assert_int_equal(d.f, cudaChannelFormatKindFloat);
    cudaArray_t a = NULL;
    assert_int_equal(cudaMallocArray(&a, &d, W, H, cudaArraySurfaceLoadStore), cudaSuccess);
    struct cudaExtent e;
    unsigned int flags = 99;
    assert_int_equal(cudaArrayGetInfo(&got, &e, &flags, a), cudaSuccess);
    assert_int_equal(got.y, 32);
    assert_int_equal(e.width, W);
    assert_int_equal(e.height, H);
    assert_int_equal(e.depth, 0);
    assert_int_equal(flags, cudaArraySurfaceLoadStore);
    memset(&got, 0, sizeof got);
    assert_int_equal(cudaGetChannelDesc(&got, a), cudaSuccess);
    assert_int_equal(got.x, 32);
    assert_int_equal(cudaFreeArray(a), cudaSuccess);
    assert_int_equal(cudaFreeArray(a), cudaErrorInvalidValue);
    (void)cudaGetLastError();

    struct cudaChannelFormatDesc bad3 =
        cudaCreateChannelDesc(8, 8, 8, 0, cudaChannelFormatKindUnsigned);
    struct cudaChannelFormatDesc badf =
        cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindFloat);
    struct cudaChannelFormatDesc mixed =
        cudaCreateChannelDesc(8, 16, 0, 0, cudaChannelFormatKindSigned);
    assert_int_equal(cudaMallocArray(&a, &bad3, W, H, 0), cudaErrorInvalidChannelDescriptor);
    assert_int_equal(cudaMallocArray(&a, &badf, W, H, 0), cudaErrorInvalidChannelDescriptor);
    assert_int_equal(cudaMallocArray(&a, &mixed, W, H, 0), cudaErrorInvalidChannelDescriptor);
    assert_int_equal(cudaMallocArray(&a, &d, 0, H, 0), cudaErrorInvalidValue);
    assert_int_equal(cudaMallocArray(&a, &d, W, H, cudaArrayLayered), cudaErrorInvalidValue);
    struct cudaExtent cube = {W, W, 5};
    assert_int_equal(cudaMalloc3DArray(&a, &d, cube, cudaArrayCubemap), cudaErrorInvalidValue);
    cube.depth = 6;
    assert_int_equal(cudaMalloc3DArray(&a, &d, cube, cudaArrayCubemap), cudaSuccess);
    assert_int_equal(cudaFreeArray(a), cudaSuccess);
    (void)cudaGetLastError();
}

static void t_mipmap_levels(void **state)
{
    (void)state;
    struct cudaChannelFormatDesc d =
        cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned);
    cudaMipmappedArray_t m = NULL;
    struct cudaExtent e = {64, 16, 0};
    assert_int_equal(cudaMallocMipmappedArray(&m, &d, e, 20, 0), cudaSuccess);
    cudaArray_t l = NULL;
    struct cudaExtent le;
    assert_int_equal(cudaGetMipmappedArrayLevel(&l, m, 2), cudaSuccess);
    assert_int_equal(cudaArrayGetInfo(NULL, &le, NULL, l), cudaSuccess);
    assert_int_equal(le.width, 16);
    assert_int_equal(le.height, 4);
    assert_int_equal(cudaGetMipmappedArrayLevel(&l, m, 6), cudaSuccess); /* 1 x 1 */
    assert_int_equal(cudaArrayGetInfo(NULL, &le, NULL, l), cudaSuccess);
    assert_int_equal(le.width, 1);
    assert_int_equal(le.height, 1);
    assert_int_equal(cudaGetMipmappedArrayLevel(&l, m, 7), cudaErrorInvalidValue); /* clamped */
    /* A level is copied like any array, and freed only with its owner. */
    unsigned char in[16], out[16];
    for (int i = 0; i < 16; i++)
        in[i] = (unsigned char)(i + 1);
    assert_int_equal(cudaGetMipmappedArrayLevel(&l, m, 2), cudaSuccess);
    assert_int_equal(cudaMemcpy2DToArray(l, 0, 3, in, 16, 16, 1, cudaMemcpyHostToDevice),
                     cudaSuccess);
    assert_int_equal(cudaMemcpy2DFromArray(out, 16, l, 0, 3, 16, 1, cudaMemcpyDeviceToHost),
                     cudaSuccess);
    assert_memory_equal(in, out, 16);
    assert_int_equal(cudaFreeArray(l), cudaErrorInvalidValue);
    assert_int_equal(cudaFreeMipmappedArray(m), cudaSuccess);
    assert_int_equal(cudaArrayGetInfo(NULL, &le, NULL, l), cudaErrorInvalidValue);
    (void)cudaGetLastError();
}

static void fill(float *h, float base)
{
    for (int i = 0; i < W * H * 2; i++)
        h[i] = base + (float)i;
}

/* Every copy form outside capture: bytes land where CUDA puts them. */
static void t_copies(void **state)
{
    (void)state;
    struct cudaChannelFormatDesc d = float2_desc();
    cudaArray_t a, b;
    assert_int_equal(cudaMallocArray(&a, &d, W, H, 0), cudaSuccess);
    assert_int_equal(cudaMallocArray(&b, &d, W, H, 0), cudaSuccess);
    static float h[W * H * 2], back[W * H * 2];
    fill(h, 1);
    const size_t row = W * 8;
    assert_int_equal(cudaMemcpy2DToArray(a, 0, 0, h, row, row, H, cudaMemcpyHostToDevice),
                     cudaSuccess);
    memset(back, 0, sizeof back);
    assert_int_equal(cudaMemcpy2DFromArray(back, row, a, 0, 0, row, H, cudaMemcpyDefault),
                     cudaSuccess);
    assert_memory_equal(h, back, sizeof h);
    /* A window: 2 elements at (3, 5) of a into (1, 2) of b. */
    assert_int_equal(cudaMemcpy2DArrayToArray(b, 8, 2, a, 24, 5, 16, 1, cudaMemcpyDeviceToDevice),
                     cudaSuccess);
    float win[4];
    assert_int_equal(cudaMemcpy2DFromArray(win, 16, b, 8, 2, 16, 1, cudaMemcpyDeviceToHost),
                     cudaSuccess);
    assert_true(win[0] == h[(5 * W + 3) * 2] && win[3] == h[(5 * W + 4) * 2 + 1]);
    /* Outside the array. */
    assert_int_equal(cudaMemcpy2DToArray(a, 8, 0, h, row, row, H, cudaMemcpyHostToDevice),
                     cudaErrorInvalidValue);
    assert_int_equal(cudaMemcpy2DFromArray(back, row, a, 0, 1, row, H, cudaMemcpyDeviceToHost),
                     cudaErrorInvalidValue);
    /* The 1-D forms run on across rows. */
    float two[4] = {-1, -2, -3, -4};
    assert_int_equal(cudaMemcpyToArray(a, row - 8, 0, two, sizeof two, cudaMemcpyHostToDevice),
                     cudaSuccess);
    assert_int_equal(cudaMemcpy2DFromArray(win, 8, a, 0, 1, 8, 1, cudaMemcpyDeviceToHost),
                     cudaSuccess);
    assert_true(win[0] == -3 && win[1] == -4);
    assert_int_equal(cudaMemcpyFromArray(win, a, row - 8, 0, 16, cudaMemcpyDeviceToHost),
                     cudaSuccess);
    assert_true(win[0] == -1 && win[3] == -4);
    assert_int_equal(cudaMemcpyArrayToArray(b, 0, 0, a, row - 8, 0, 16, cudaMemcpyDefault),
                     cudaSuccess);
    assert_int_equal(cudaMemcpyFromArray(win, b, 0, 0, 16, cudaMemcpyDeviceToHost), cudaSuccess);
    assert_true(win[0] == -1 && win[3] == -4);
    assert_int_equal(cudaMemcpyToArray(a, 0, H - 1, h, row + 8, cudaMemcpyHostToDevice),
                     cudaErrorInvalidValue);
    /* cudaMemcpy3D: positions and widths in elements for arrays. */
    struct cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcArray = a;
    p.srcPos = (struct cudaPos){2, 3, 0};
    p.dstPtr = (struct cudaPitchedPtr){back, 16, 2, 2};
    p.extent = (struct cudaExtent){2, 2, 1};
    p.kind = cudaMemcpyDeviceToHost;
    assert_int_equal(cudaMemcpy3D(&p), cudaSuccess);
    assert_true(back[0] == h[(3 * W + 2) * 2] && back[4] == h[(4 * W + 2) * 2]);
    p.srcPos.x = W - 1;
    assert_int_equal(cudaMemcpy3D(&p), cudaErrorInvalidValue);
    assert_int_equal(cudaFreeArray(a), cudaSuccess);
    assert_int_equal(cudaFreeArray(b), cudaSuccess);
    (void)cudaGetLastError();
}

/* In a capture an array copy is one memcpy node of the array's bytes; a
 * graph's memcpy node naming arrays copies when launched. */
static void t_capture_and_nodes(void **state)
{
    (void)state;
    struct cudaChannelFormatDesc d = float2_desc();
    cudaArray_t a;
    assert_int_equal(cudaMallocArray(&a, &d, W, H, 0), cudaSuccess);
    static float h[W * H * 2], back[W * H * 2];
    fill(h, 100);
    const size_t row = W * 8;
    cudaStream_t s;
    assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
    assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    assert_int_equal(cudaMemcpy2DToArrayAsync(a, 0, 0, h, row, row, H, cudaMemcpyHostToDevice, s),
                     cudaSuccess);
    assert_int_equal(cudaMemcpy2DFromArrayAsync(back, row, a, 0, 0, row, H, cudaMemcpyDefault, s),
                     cudaSuccess);
    cudaGraph_t g;
    assert_int_equal(cudaStreamEndCapture(s, &g), cudaSuccess);
    cudaGraphNode_t nodes[2];
    size_t n = 2;
    assert_int_equal(cudaGraphGetNodes(g, nodes, &n), cudaSuccess);
    assert_int_equal(n, 2);
    const sc_rt_node_desc *nd = sc_rt_node_desc_of(nodes[1]);
    assert_int_equal(nd->size, row * H);
    assert_int_equal(nd->kind, cudaMemcpyDeviceToHost);
    memset(back, 0, sizeof back);
    cudaGraphExec_t x;
    assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
    assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
    assert_memory_equal(h, back, sizeof h);
    assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);

    /* By hand: array -> host of rows 2..3 through cudaGraphAddMemcpyNode. */
    struct cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcArray = a;
    p.srcPos = (struct cudaPos){0, 2, 0};
    p.dstPtr = (struct cudaPitchedPtr){back, row, W, 2};
    p.extent = (struct cudaExtent){W, 2, 1};
    p.kind = cudaMemcpyDefault;
    memset(back, 0, sizeof back);
    cudaGraphNode_t c;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    assert_int_equal(cudaGraphAddMemcpyNode(&c, g, NULL, 0, &p), cudaSuccess);
    assert_int_equal(sc_rt_node_desc_of(c)->kind, cudaMemcpyDeviceToHost);
    assert_int_equal(sc_rt_node_desc_of(c)->size, 2 * row);
    p.extent.height = H; /* past the array's last row */
    assert_int_equal(cudaGraphAddMemcpyNode(&c, g, NULL, 0, &p), cudaErrorInvalidValue);
    (void)cudaGetLastError();
    assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
    assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
    assert_memory_equal(back, h + 2 * W * 2, 2 * row);
    assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
    assert_int_equal(cudaFreeArray(a), cudaSuccess);
}

/* Texture and surface objects keep their descriptions; a surface needs
 * an array made for load and store. */
static void t_texture_surface(void **state)
{
    (void)state;
    struct cudaChannelFormatDesc d = float2_desc();
    cudaArray_t a, plain;
    assert_int_equal(cudaMallocArray(&a, &d, W, H, cudaArraySurfaceLoadStore), cudaSuccess);
    assert_int_equal(cudaMallocArray(&plain, &d, W, H, 0), cudaSuccess);
    struct cudaResourceDesc r, got;
    memset(&r, 0, sizeof r);
    r.resType = cudaResourceTypeArray;
    r.res.array.array = a;
    struct cudaTextureDesc t, tgot;
    memset(&t, 0, sizeof t);
    t.addressMode[0] = cudaAddressModeClamp;
    t.filterMode = cudaFilterModeLinear;
    t.normalizedCoords = 1;
    t.borderColor[2] = 0.5f;
    cudaTextureObject_t tex = 0, tex2 = 0;
    assert_int_equal(cudaCreateTextureObject(&tex, &r, &t, NULL), cudaSuccess);
    assert_int_not_equal(tex, 0);
    assert_int_equal(cudaGetTextureObjectResourceDesc(&got, tex), cudaSuccess);
    assert_ptr_equal(got.res.array.array, a);
    assert_int_equal(cudaGetTextureObjectTextureDesc(&tgot, tex), cudaSuccess);
    assert_memory_equal(&tgot, &t, sizeof t);
    struct cudaResourceViewDesc v;
    assert_int_equal(cudaGetTextureObjectResourceViewDesc(&v, tex), cudaErrorInvalidValue);
    memset(&v, 0, sizeof v);
    v.width = W;
    v.height = H;
    assert_int_equal(cudaCreateTextureObject(&tex2, &r, &t, &v), cudaSuccess);
    assert_int_not_equal(tex2, tex);
    struct cudaResourceViewDesc vgot;
    assert_int_equal(cudaGetTextureObjectResourceViewDesc(&vgot, tex2), cudaSuccess);
    assert_int_equal(vgot.height, H);
    /* Linear memory: a pointer, a format, a size; no view. */
    void *lin;
    assert_int_equal(cudaMalloc(&lin, 4096), cudaSuccess);
    struct cudaResourceDesc lr;
    memset(&lr, 0, sizeof lr);
    lr.resType = cudaResourceTypeLinear;
    lr.res.linear.devPtr = lin;
    lr.res.linear.desc = d;
    lr.res.linear.sizeInBytes = 4096;
    cudaTextureObject_t ltex;
    assert_int_equal(cudaCreateTextureObject(&ltex, &lr, &t, NULL), cudaSuccess);
    assert_int_equal(cudaCreateTextureObject(&ltex, &lr, &t, &v), cudaErrorInvalidValue);
    lr.resType = cudaResourceTypePitch2D;
    lr.res.pitch2D.devPtr = lin;
    lr.res.pitch2D.desc = d;
    lr.res.pitch2D.width = 32;
    lr.res.pitch2D.height = 8;
    lr.res.pitch2D.pitchInBytes = 128; /* 32 float2 need 256 */
    assert_int_equal(cudaCreateTextureObject(&tex2, &lr, &t, NULL), cudaErrorInvalidPitchValue);
    assert_int_equal(cudaCreateTextureObject(&tex2, &r, NULL, NULL), cudaErrorInvalidValue);
    r.res.array.array = (cudaArray_t)(uintptr_t)64;
    assert_int_equal(cudaCreateTextureObject(&tex2, &r, &t, NULL), cudaErrorInvalidResourceHandle);
    /* Surfaces. */
    r.res.array.array = a;
    cudaSurfaceObject_t surf;
    assert_int_equal(cudaCreateSurfaceObject(&surf, &r), cudaSuccess);
    assert_int_equal(cudaGetSurfaceObjectResourceDesc(&got, surf), cudaSuccess);
    assert_ptr_equal(got.res.array.array, a);
    assert_int_equal(cudaGetTextureObjectResourceDesc(&got, surf), cudaErrorInvalidValue);
    r.res.array.array = plain;
    assert_int_equal(cudaCreateSurfaceObject(&surf, &r), cudaErrorInvalidValue);
    assert_int_equal(cudaCreateSurfaceObject(&surf, &lr), cudaErrorInvalidValue);
    assert_int_equal(cudaDestroySurfaceObject(surf), cudaSuccess);
    assert_int_equal(cudaDestroySurfaceObject(surf), cudaErrorInvalidValue);
    assert_int_equal(cudaDestroyTextureObject(tex), cudaSuccess);
    assert_int_equal(cudaDestroyTextureObject(tex), cudaErrorInvalidValue);
    assert_int_equal(cudaDestroyTextureObject(ltex), cudaSuccess);
    assert_int_equal(cudaGetTextureObjectTextureDesc(&tgot, ltex), cudaErrorInvalidValue);
    (void)cudaGetLastError();
    assert_int_equal(cudaFree(lin), cudaSuccess);
    assert_int_equal(cudaFreeArray(a), cudaSuccess);
    assert_int_equal(cudaFreeArray(plain), cudaSuccess);
}

/* Memcpy nodes to and from a __device__ variable copy its bytes when
 * launched; set again, they copy the new range. */
static void t_symbol_nodes(void **state)
{
    (void)state;
    static char fatbin[16];
    static int var[8];
    void **h = __cudaRegisterFatBinary(fatbin);
    __cudaRegisterVar(h, (char *)var, (char *)"var", "var", 0, sizeof var, 0, 0);
    __cudaRegisterFatBinaryEnd(h);
    const int in[2] = {11, 22};
    int out[2] = {0, 0};
    cudaGraph_t g;
    cudaGraphNode_t to, from;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    assert_int_equal(cudaGraphAddMemcpyNodeToSymbol(&to, g, NULL, 0, var, in, sizeof in,
                                                    4 * sizeof(int), cudaMemcpyHostToDevice),
                     cudaSuccess);
    assert_int_equal(cudaGraphAddMemcpyNodeFromSymbol(&from, g, &to, 1, out, var, sizeof out,
                                                      4 * sizeof(int), cudaMemcpyDeviceToHost),
                     cudaSuccess);
    const sc_rt_node_desc *d = sc_rt_node_desc_of(to);
    assert_ptr_equal(d->dst, &var[4]);
    assert_int_equal(d->size, sizeof in);
    assert_int_equal(d->kind, cudaMemcpyHostToDevice);
    assert_int_equal(sc_rt_node_desc_of(from)->kind, cudaMemcpyDeviceToHost);
    /* Past the variable, the wrong way, no such variable. */
    cudaGraphNode_t bad;
    assert_int_equal(cudaGraphAddMemcpyNodeToSymbol(&bad, g, NULL, 0, var, in, sizeof in,
                                                    7 * sizeof(int), cudaMemcpyHostToDevice),
                     cudaErrorInvalidValue);
    assert_int_equal(cudaGraphAddMemcpyNodeToSymbol(&bad, g, NULL, 0, var, in, sizeof in, 0,
                                                    cudaMemcpyDeviceToHost),
                     cudaErrorInvalidMemcpyDirection);
    assert_int_equal(cudaGraphAddMemcpyNodeFromSymbol(&bad, g, NULL, 0, out, in, sizeof out, 0,
                                                      cudaMemcpyDeviceToHost),
                     cudaErrorInvalidSymbol);
    (void)cudaGetLastError();
    cudaGraphExec_t x;
    assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    assert_int_equal(cudaGraphLaunch(x, 0), cudaSuccess);
    assert_int_equal(cudaStreamSynchronize(0), cudaSuccess);
    assert_int_equal(var[5], 22);
    assert_int_equal(out[0], 11);
    /* The exec's nodes moved to offset 0, then the graph's to offset 2. */
    cudaGraphNode_t nodes[2];
    size_t n = 2;
    assert_int_equal(cudaGraphGetNodes(g, nodes, &n), cudaSuccess);
    assert_int_equal(cudaGraphExecMemcpyNodeSetParamsToSymbol(x, nodes[0], var, in, sizeof in, 0,
                                                              cudaMemcpyHostToDevice),
                     cudaSuccess);
    assert_int_equal(cudaGraphExecMemcpyNodeSetParamsFromSymbol(
                         x, nodes[1], out, var, sizeof(int), sizeof(int), cudaMemcpyDeviceToHost),
                     cudaSuccess);
    assert_int_equal(cudaGraphLaunch(x, 0), cudaSuccess);
    assert_int_equal(var[0], 11);
    assert_int_equal(out[0], 22);
    assert_int_equal(cudaGraphMemcpyNodeSetParamsToSymbol(nodes[0], var, in, sizeof in,
                                                          2 * sizeof(int), cudaMemcpyDefault),
                     cudaSuccess);
    assert_int_equal(cudaGraphMemcpyNodeSetParamsFromSymbol(nodes[1], out, var, sizeof out,
                                                            2 * sizeof(int), cudaMemcpyDefault),
                     cudaSuccess);
    assert_ptr_equal(sc_rt_node_desc_of(nodes[0])->dst, &var[2]);
    assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

static void stub(void) {}

/* A kernel handle is its stub; no driver symbol is ever found. */
static void t_kernel_and_entry_points(void **state)
{
    (void)state;
    cudaKernel_t k = NULL;
    assert_int_equal(cudaGetKernel(&k, (const void *)(uintptr_t)stub), cudaSuccess);
    assert_ptr_equal((const void *)k, (const void *)(uintptr_t)stub);
    assert_int_equal(cudaGetKernel(&k, NULL), cudaErrorInvalidDeviceFunction);
    assert_int_equal(cudaGetKernel(NULL, (const void *)(uintptr_t)stub), cudaErrorInvalidValue);
    cudaFunction_t f = NULL;
    assert_int_equal(cudaGetFuncBySymbol(&f, (const void *)(uintptr_t)stub), cudaSuccess);
    assert_ptr_equal((const void *)f, (const void *)(uintptr_t)stub);
    assert_int_equal(cudaGetFuncBySymbol(&f, NULL), cudaErrorInvalidDeviceFunction);
    void *fn = (void *)(uintptr_t)1;
    enum cudaDriverEntryPointQueryResult st = cudaDriverEntryPointSuccess;
    assert_int_equal(cudaGetDriverEntryPoint("cuMemAlloc", &fn, cudaEnableDefault, &st),
                     cudaSuccess);
    assert_null(fn);
    assert_int_equal(st, cudaDriverEntryPointSymbolNotFound);
    fn = (void *)(uintptr_t)1;
    assert_int_equal(cudaGetDriverEntryPointByVersion("cuGraphAddNode", &fn, 12030,
                                                      cudaEnablePerThreadDefaultStream, NULL),
                     cudaSuccess);
    assert_null(fn);
    assert_int_equal(cudaGetDriverEntryPoint("cuMemAlloc", &fn, 7, &st), cudaErrorInvalidValue);
    assert_int_equal(cudaGetDriverEntryPoint(NULL, &fn, 0, &st), cudaErrorInvalidValue);
    (void)cudaGetLastError();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_alloc_and_info),
        cmocka_unit_test(t_mipmap_levels),
        cmocka_unit_test(t_copies),
        cmocka_unit_test(t_capture_and_nodes),
        cmocka_unit_test(t_texture_surface),
        cmocka_unit_test(t_symbol_nodes),
        cmocka_unit_test(t_kernel_and_entry_points),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
