/*
 * test_cudart_fatbin.c - the fat binary reader (cudart/fatbin.c) and what
 * the runtime takes from it (cudart/rt_fatbin.c, cudart/graph_args.c), on
 * a container built here the way nvcc lays one out (fatbin_image.c): a cubin whose
 * .nv.info.<kernel> section carries EIATTR_KPARAM_INFO records, stored
 * Zstandard-compressed, and a PTX entry.  No toolkit needed.
 */
#include <elf.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zstd.h>

#include "fatbin.h"
#include "fatbin_image.h"
#include "rt.h"
#include "rt_int.h"
#include "sc_cudart.h"

#define KNAME SC_TFB_KNAME

/* The container: a zstd-compressed sm_80 cubin and compute_80 PTX. */
static void make_container(sc_tfb *c)
{
    static sc_tfb cubin;
    sc_tfb_cubin(&cubin, 80);
    uint8_t z[4096];
    size_t zn = ZSTD_compress(z, sizeof z, cubin.b, cubin.n, 3);
    assert_false(ZSTD_isError(zn));
    sc_tfb_begin(c);
    sc_tfb_entry(c, SC_FB_ELF, 80, 0x11 | SC_FB_FLAG_ZSTD, z, zn, cubin.n);
    const char ptx[] = ".version 9.0\n.target sm_80\n";
    sc_tfb_entry(c, SC_FB_PTX, 80, 0x11, ptx, sizeof ptx, sizeof ptx);
    sc_tfb_end(c);
}

static void t_reader(void **state)
{
    (void)state;
    static sc_tfb c;
    make_container(&c);
    sc_fb fb;
    assert_int_equal(sc_fb_parse(c.b, &fb), 0);
    assert_int_equal(fb.n, 2);
    assert_int_equal(fb.e[0].kind, SC_FB_ELF);
    assert_int_equal(fb.e[0].arch, 80);
    int ptx = 0, bin = 0;
    assert_int_equal(sc_fb_versions(&fb, 90, &ptx, &bin), 0); /* JIT from compute_80 */
    assert_int_equal(ptx, 80);
    assert_int_equal(bin, 90);
    assert_int_equal(sc_fb_versions(&fb, 86, &ptx, &bin), 0); /* sm_80 SASS runs on 8.6 */
    assert_int_equal(ptx, 80);
    assert_int_equal(bin, 80);
    assert_int_equal(sc_fb_versions(&fb, 70, &ptx, &bin), -ENOENT);
    sc_fb_param p[8];
    size_t n = 0;
    assert_int_equal(sc_fb_params(&fb, KNAME, p, 8, &n), 0);
    assert_int_equal(n, 4);
    const uint32_t off[4] = {0, 8, 16, 24}, size[4] = {8, 4, 8, 1};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(p[i].offset, off[i]);
        assert_int_equal(p[i].size, size[i]);
    }
    assert_int_equal(sc_fb_params(&fb, "_Z5otherv", p, 8, &n), -ENOENT);
    sc_fb_free(&fb);
    /* Truncated or foreign bytes are no container. */
    assert_int_equal(sc_fb_parse("not a fatbin", &fb), -EINVAL);
    assert_null(sc_fb_container("fatbin"));
}

static void kadd_stub(void) {}

/* nvcc's registration, then what a program asks of the kernel, and a
 * captured launch whose argument values must survive the caller's
 * locals changing. */
static void t_runtime(void **state)
{
    (void)state;
    static sc_tfb c;
    make_container(&c);
    sc_tfb_register(&c, (const void *)kadd_stub, KNAME);

    struct cudaFuncAttributes a;
    assert_int_equal(cudaFuncGetAttributes(&a, (const void *)kadd_stub), cudaSuccess);
    /* The L4 (8.9, ctest's STREAMCAP_DEVICE) runs the sm_80 SASS. */
    assert_int_equal(a.ptxVersion, 80);
    assert_int_equal(a.binaryVersion, 80);
    size_t off = 0, size = 0;
    assert_int_equal(cudaFuncGetParamInfo((const void *)kadd_stub, 2, &off, &size), cudaSuccess);
    assert_int_equal(off, 16);
    assert_int_equal(size, 8);
    assert_int_equal(cudaFuncGetParamInfo((const void *)kadd_stub, 4, &off, &size),
                     cudaErrorInvalidValue);
    (void)cudaGetLastError();

    cudaStream_t s;
    assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
    float *p = (float *)(uintptr_t)0x1000;
    int n = 3;
    double d = 1.5;
    char ch = 2;
    void *args[] = {&p, &n, &d, &ch};
    assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    assert_int_equal(
        cudaLaunchKernel((const void *)kadd_stub, (dim3){1, 1, 1}, (dim3){32, 1, 1}, args, 0, s),
        cudaSuccess);
    n = 99;
    d = -1;
    ch = 7;
    cudaGraph_t g;
    assert_int_equal(cudaStreamEndCapture(s, &g), cudaSuccess);
    cudaGraphNode_t node;
    size_t nn = 1;
    assert_int_equal(cudaGraphGetNodes(g, &node, &nn), cudaSuccess);
    struct cudaKernelNodeParams kp;
    assert_int_equal(cudaGraphKernelNodeGetParams(node, &kp), cudaSuccess);
    assert_ptr_not_equal(kp.kernelParams, args);
    assert_ptr_equal(*(float **)kp.kernelParams[0], p);
    assert_int_equal(*(int *)kp.kernelParams[1], 3);
    assert_true(*(double *)kp.kernelParams[2] == 1.5);
    assert_int_equal(*(char *)kp.kernelParams[3], 2);
    size_t bytes = 0;
    const uint8_t *raw = sc_rt_node_args(node, &bytes);
    assert_non_null(raw);
    assert_int_equal(bytes, 25);
    assert_int_equal(raw[8], 3);
    assert_int_equal((uintptr_t)raw % 16, 0); /* aligned as a parameter buffer */
    assert_ptr_equal(kp.kernelParams[2], raw + 16);

    /* A clone and a hand-added node keep copies of their own. */
    cudaGraph_t clone;
    assert_int_equal(cudaGraphClone(&clone, g), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    assert_int_equal(cudaGraphGetNodes(clone, &node, &nn), cudaSuccess);
    assert_int_equal(cudaGraphKernelNodeGetParams(node, &kp), cudaSuccess);
    assert_int_equal(*(int *)kp.kernelParams[1], 3);
    n = 5;
    struct cudaKernelNodeParams np = {(void *)kadd_stub, {1, 1, 1}, {1, 1, 1}, 0, args, NULL};
    cudaGraphNode_t added;
    assert_int_equal(cudaGraphAddKernelNode(&added, clone, NULL, 0, &np), cudaSuccess);
    n = 6;
    assert_int_equal(cudaGraphKernelNodeGetParams(added, &kp), cudaSuccess);
    assert_int_equal(*(int *)kp.kernelParams[1], 5);
    /* Read, change the grid, set again: kernelParams points into the
     * node's own copy, which must be read before it is replaced. */
    assert_int_equal(cudaGraphKernelNodeGetParams(added, &kp), cudaSuccess);
    kp.gridDim.x = 4;
    assert_int_equal(cudaGraphKernelNodeSetParams(added, &kp), cudaSuccess);
    assert_int_equal(cudaGraphKernelNodeGetParams(added, &kp), cudaSuccess);
    assert_int_equal(kp.gridDim.x, 4);
    assert_int_equal(*(int *)kp.kernelParams[1], 5);
    assert_true(*(double *)kp.kernelParams[2] == -1);
    assert_int_equal(cudaGraphDestroy(clone), cudaSuccess);
    assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

static void plain_stub(void) {}

/* A binary without a layout (the C twins' stand-in image): said once, and
 * nodes keep the caller's array. */
static void t_no_layout(void **state)
{
    (void)state;
    static const unsigned long long image[2] = {0, 0};
    static struct {
        int magic, version;
        const void *data;
        void *rest;
    } wrapper;
    wrapper.magic = (int)SC_FB_WRAPPER_MAGIC;
    wrapper.data = image;
    void **h = __cudaRegisterFatBinary(&wrapper);
    __cudaRegisterFunction(h, (const char *)(void *)plain_stub, (char *)"_Z5plainv", "_Z5plainv",
                           -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(h);
    assert_false(sc_rt_state_get()->layout_warned);
    size_t off, size;
    assert_int_equal(cudaFuncGetParamInfo((const void *)plain_stub, 0, &off, &size),
                     cudaErrorNotSupported);
    (void)cudaGetLastError();
    assert_true(sc_rt_state_get()->layout_warned);
    struct cudaFuncAttributes a;
    assert_int_equal(cudaFuncGetAttributes(&a, (const void *)plain_stub), cudaSuccess);
    assert_int_equal(a.ptxVersion, 89); /* the device's own: L4 */

    cudaGraph_t g;
    assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
    int n = 1;
    void *args[] = {&n};
    struct cudaKernelNodeParams np = {(void *)plain_stub, {1, 1, 1}, {1, 1, 1}, 0, args, NULL};
    cudaGraphNode_t node;
    assert_int_equal(cudaGraphAddKernelNode(&node, g, NULL, 0, &np), cudaSuccess);
    struct cudaKernelNodeParams kp;
    assert_int_equal(cudaGraphKernelNodeGetParams(node, &kp), cudaSuccess);
    assert_ptr_equal(kp.kernelParams, args);
    size_t bytes;
    assert_null(sc_rt_node_args(node, &bytes));
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

/* The table, and the device STREAMCAP_DEVICE=L4 (set by ctest) chose
 * for this process, as the program sees it. */
static void t_devices(void **state)
{
    (void)state;
    const sc_rt_devspec *d = sc_rt_dev_pick("a100");
    assert_int_equal(d->major, 8);
    assert_int_equal(d->sms, 108);
    assert_string_equal(sc_rt_dev_pick("V100")->name, "Tesla V100-SXM2-32GB");
    assert_int_equal(sc_rt_dev_pick("B200")->major, 10);
    assert_int_equal(sc_rt_dev_pick("H100")->sms, 132);
    /* Unknown or unset: the default, the device emulated so far. */
    assert_string_equal(sc_rt_dev_pick("no-such-gpu")->name, "streamcap emulated GPU (sm_90)");
    assert_ptr_equal(sc_rt_dev_pick(NULL), sc_rt_dev_pick("no-such-gpu"));
    assert_ptr_equal(sc_rt_dev_pick(""), sc_rt_dev_pick("default"));

    struct cudaDeviceProp p;
    assert_int_equal(cudaGetDeviceProperties(&p, 0), cudaSuccess);
    assert_string_equal(p.name, "NVIDIA L4");
    assert_int_equal(p.major, 8);
    assert_int_equal(p.minor, 9);
    assert_int_equal(p.multiProcessorCount, 58);
    assert_int_equal(p.maxThreadsPerMultiProcessor, 1536);
    assert_int_equal(p.totalGlobalMem, (size_t)23034 << 20);
    int v = 0;
    assert_int_equal(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMinor, 0), cudaSuccess);
    assert_int_equal(v, 9);
    assert_int_equal(cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, 0), cudaSuccess);
    assert_int_equal(v, 48 << 20);
    size_t free_b = 0, total = 0;
    assert_int_equal(cudaMemGetInfo(&free_b, &total), cudaSuccess);
    assert_int_equal(total, (size_t)23034 << 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_reader),
        cmocka_unit_test(t_no_layout),
        cmocka_unit_test(t_runtime),
        cmocka_unit_test(t_devices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
