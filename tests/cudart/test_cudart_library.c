/*
 * test_cudart_library.c - libraries loaded at run time (cudart/rt_library.c)
 * from images built here (fatbin_image.c): a fat binary with a compressed
 * cubin and PTX, a bare cubin, PTX text and a file; their kernels used
 * where CUDA takes a kernel handle; their variables; the errors.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <zstd.h>

#include "fatbin.h"
#include "fatbin_image.h"
#include "rt.h"
#include "rt_int.h"
#include "sc_cudart.h"

/* A container for the emulated device: its SASS (compressed) and PTX. */
static void make_fatbin(sc_tfb *c)
{
    static sc_tfb cubin;
    int cc = sc_rt_dev_cc();
    sc_tfb_cubin(&cubin, cc);
    static uint8_t z[8192];
    size_t zn = ZSTD_compress(z, sizeof z, cubin.b, cubin.n, 3);
    assert_false(ZSTD_isError(zn));
    sc_tfb_begin(c);
    sc_tfb_entry(c, SC_FB_ELF, (uint32_t)cc, 0x11 | SC_FB_FLAG_ZSTD, z, zn, cubin.n);
    const char ptx[] = ".version 9.0\n.target sm_75\n.visible .entry " SC_TFB_KNAME "(\n";
    sc_tfb_entry(c, SC_FB_PTX, 75, 0x11, ptx, sizeof ptx, sizeof ptx);
    sc_tfb_end(c);
}

static cudaLibrary_t load(const void *code)
{
    cudaLibrary_t lib = NULL;
    assert_int_equal(cudaLibraryLoadData(&lib, code, NULL, NULL, 0, NULL, NULL, 0), cudaSuccess);
    assert_non_null(lib);
    return lib;
}

/* Kernels: counted, enumerated, found by entry name, and usable where a
 * kernel is taken: attributes, layout, cudaGetKernel, a launch in a
 * capture and a kernel node, both with their own copy of the values. */
static void t_kernels(void **state)
{
    (void)state;
    static sc_tfb c;
    make_fatbin(&c);
    cudaLibrary_t lib = load(c.b);
    memset(c.b, 0, sizeof c.b); /* the library keeps a copy */
    unsigned int count = 0;
    assert_int_equal(cudaLibraryGetKernelCount(&count, lib), cudaSuccess);
    assert_int_equal(count, 1);
    cudaKernel_t all[2] = {NULL, NULL}, k = NULL;
    assert_int_equal(cudaLibraryEnumerateKernels(all, 2, lib), cudaSuccess);
    assert_int_equal(cudaLibraryGetKernel(&k, lib, SC_TFB_KNAME), cudaSuccess);
    assert_ptr_equal(k, all[0]);
    assert_null(all[1]);
    assert_int_equal(cudaLibraryGetKernel(&k, lib, "_Z5otherv"), cudaErrorSymbolNotFound);
    assert_int_equal(cudaLibraryGetKernel(&k, lib, SC_TFB_KNAME), cudaSuccess);
    const void *f = (const void *)k;
    assert_string_equal(sc_rt_kernel_name(f), "kadd(float*, int, double, char)");

    struct cudaFuncAttributes a;
    assert_int_equal(cudaFuncGetAttributes(&a, f), cudaSuccess);
    assert_int_equal(a.binaryVersion, sc_rt_dev_cc()); /* its SASS */
    size_t off = 0, size = 0;
    assert_int_equal(cudaFuncGetParamInfo(f, 2, &off, &size), cudaSuccess);
    assert_int_equal(off, 16);
    assert_int_equal(size, 8);
    cudaKernel_t again = NULL;
    assert_int_equal(cudaGetKernel(&again, f), cudaSuccess);
    assert_ptr_equal(again, k);
    assert_int_equal(
        cudaKernelSetAttributeForDevice(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024, 0),
        cudaSuccess);
    assert_int_equal(cudaFuncGetAttributes(&a, f), cudaSuccess);
    assert_int_equal(a.maxDynamicSharedSizeBytes, 1024);
    assert_int_equal(
        cudaKernelSetAttributeForDevice(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024, 1),
        cudaErrorInvalidDevice);

    cudaStream_t s;
    assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
    float *p = NULL;
    int n = 3;
    double d = 1.5;
    char ch = 2;
    void *args[] = {&p, &n, &d, &ch};
    assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    assert_int_equal(cudaLaunchKernel(f, (dim3){2, 1, 1}, (dim3){32, 1, 1}, args, 0, s),
                     cudaSuccess);
    cudaGraph_t g;
    assert_int_equal(cudaStreamEndCapture(s, &g), cudaSuccess);
    n = 4;
    struct cudaKernelNodeParams np = {(void *)k, {1, 1, 1}, {1, 1, 1}, 0, args, NULL};
    cudaGraphNode_t added;
    assert_int_equal(cudaGraphAddKernelNode(&added, g, NULL, 0, &np), cudaSuccess);
    n = 5;
    cudaGraphNode_t nodes[2];
    size_t nn = 2;
    assert_int_equal(cudaGraphGetNodes(g, nodes, &nn), cudaSuccess);
    assert_int_equal(nn, 2);
    for (size_t i = 0; i < nn; i++) {
        struct cudaKernelNodeParams kp;
        assert_int_equal(cudaGraphKernelNodeGetParams(nodes[i], &kp), cudaSuccess);
        assert_ptr_equal(kp.func, f);
        assert_int_equal(*(int *)kp.kernelParams[1], 3 + (int)i);
        size_t bytes = 0;
        assert_non_null(sc_rt_node_args(nodes[i], &bytes));
        assert_int_equal(bytes, 25);
    }
    assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
    assert_int_equal(cudaStreamDestroy(s), cudaSuccess);

    assert_int_equal(cudaLibraryUnload(lib), cudaSuccess);
    assert_int_equal(cudaLibraryUnload(lib), cudaErrorInvalidResourceHandle);
    assert_int_equal(cudaLibraryGetKernelCount(&count, lib), cudaErrorInvalidResourceHandle);
    assert_int_equal(cudaLibraryGetKernelCount(&count, NULL), cudaErrorInvalidValue);
    (void)cudaGetLastError();
}

/* Variables: host memory with their initial bytes, device or managed. */
static void t_globals(void **state)
{
    (void)state;
    static sc_tfb c;
    make_fatbin(&c);
    cudaLibrary_t lib = load(c.b);
    void *dp = NULL;
    size_t bytes = 0;
    assert_int_equal(cudaLibraryGetGlobal(&dp, &bytes, lib, "counter"), cudaSuccess);
    assert_int_equal(bytes, 4);
    int v = 0;
    assert_int_equal(cudaMemcpy(&v, dp, sizeof v, cudaMemcpyDeviceToHost), cudaSuccess);
    assert_int_equal(v, SC_TFB_COUNTER_INIT);
    struct cudaPointerAttributes pa;
    assert_int_equal(cudaPointerGetAttributes(&pa, dp), cudaSuccess);
    assert_int_equal(pa.type, cudaMemoryTypeDevice);
    assert_int_equal(cudaLibraryGetGlobal(NULL, &bytes, lib, "table"), cudaSuccess);
    assert_int_equal(bytes, SC_TFB_TABLE_SIZE);
    assert_int_equal(cudaLibraryGetManaged(&dp, &bytes, lib, "man"), cudaSuccess);
    assert_int_equal(*(int *)dp, SC_TFB_MAN_INIT);
    assert_int_equal(cudaPointerGetAttributes(&pa, dp), cudaSuccess);
    assert_int_equal(pa.type, cudaMemoryTypeManaged);
    assert_int_equal(cudaLibraryGetManaged(&dp, &bytes, lib, "counter"), cudaErrorSymbolNotFound);
    assert_int_equal(cudaLibraryGetGlobal(&dp, &bytes, lib, "nope"), cudaErrorSymbolNotFound);
    assert_int_equal(cudaLibraryGetGlobal(NULL, NULL, lib, "counter"), cudaErrorInvalidValue);
    assert_int_equal(cudaLibraryGetUnifiedFunction(&dp, lib, SC_TFB_KNAME),
                     cudaErrorSymbolNotFound);
    assert_int_equal(cudaLibraryUnload(lib), cudaSuccess);
    (void)cudaGetLastError();
}

/* A bare cubin, PTX text, a file, and what cannot be loaded. */
static void t_forms(void **state)
{
    (void)state;
    static sc_tfb cubin;
    int cc = sc_rt_dev_cc();
    sc_tfb_cubin(&cubin, cc);
    cudaLibrary_t lib = load(cubin.b);
    unsigned int count = 0;
    assert_int_equal(cudaLibraryGetKernelCount(&count, lib), cudaSuccess);
    assert_int_equal(count, 1);
    assert_int_equal(cudaLibraryUnload(lib), cudaSuccess);
    /* SASS of another major revision does not run on the device. */
    sc_tfb_cubin(&cubin, cc >= 80 ? 75 : 90);
    assert_int_equal(cudaLibraryLoadData(&lib, cubin.b, NULL, NULL, 0, NULL, NULL, 0),
                     cudaErrorNoKernelImageForDevice);

    const char ptx[] = "//\n.version 9.0\n.target sm_75\n.visible .entry _Z3fooPi(\n"
                       ".param .u64 p)\n{ ret; }\n.entry bar()\n{ ret; }\n";
    lib = load(ptx);
    assert_int_equal(cudaLibraryGetKernelCount(&count, lib), cudaSuccess);
    assert_int_equal(count, 2);
    cudaKernel_t k;
    assert_int_equal(cudaLibraryGetKernel(&k, lib, "bar"), cudaSuccess);
    assert_string_equal(sc_rt_kernel_name((const void *)k), "bar");
    struct cudaFuncAttributes a;
    assert_int_equal(cudaFuncGetAttributes(&a, (const void *)k), cudaSuccess);
    assert_int_equal(a.ptxVersion, 75); /* its .target */
    assert_int_equal(a.binaryVersion, cc);
    assert_int_equal(cudaLibraryUnload(lib), cudaSuccess);
    /* PTX for a later device is not compiled for an earlier one. */
    const char later[] = ".version 9.0\n.target sm_120\n.entry k()\n{ ret; }\n";
    assert_int_equal(cudaLibraryLoadData(&lib, later, NULL, NULL, 0, NULL, NULL, 0),
                     cudaErrorNoKernelImageForDevice);

    static sc_tfb c;
    make_fatbin(&c);
    static struct {
        int magic, version;
        const void *data;
        void *rest;
    } wrapper = {(int)SC_FB_WRAPPER_MAGIC, 1, NULL, NULL};
    wrapper.data = c.b; /* what nvcc registers, as a library */
    lib = load(&wrapper);
    assert_int_equal(cudaLibraryGetKernelCount(&count, lib), cudaSuccess);
    assert_int_equal(count, 1);
    assert_int_equal(cudaLibraryUnload(lib), cudaSuccess);
    assert_int_equal(cudaLibraryLoadData(&lib, "", NULL, NULL, 0, NULL, NULL, 0),
                     cudaErrorInvalidPtx);
    char path[] = "/tmp/sc_test_library_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, c.b, c.n), (ssize_t)c.n);
    close(fd);
    assert_int_equal(cudaLibraryLoadFromFile(&lib, path, NULL, NULL, 0, NULL, NULL, 0),
                     cudaSuccess);
    assert_int_equal(cudaLibraryGetKernel(&k, lib, SC_TFB_KNAME), cudaSuccess);
    assert_int_equal(cudaLibraryUnload(lib), cudaSuccess);
    unlink(path);
    assert_int_equal(cudaLibraryLoadFromFile(&lib, path, NULL, NULL, 0, NULL, NULL, 0),
                     cudaErrorFileNotFound);

    assert_int_equal(cudaLibraryLoadData(&lib, "no image", NULL, NULL, 0, NULL, NULL, 0),
                     cudaErrorInvalidPtx);
    c.b[8] = 0xff; /* a container longer than anything */
    c.b[14] = 0x01;
    assert_int_equal(cudaLibraryLoadData(&lib, c.b, NULL, NULL, 0, NULL, NULL, 0),
                     cudaErrorInvalidKernelImage);
    assert_int_equal(cudaLibraryLoadData(NULL, ptx, NULL, NULL, 0, NULL, NULL, 0),
                     cudaErrorInvalidValue);
    assert_int_equal(cudaLibraryLoadData(&lib, ptx, NULL, NULL, 1, NULL, NULL, 0),
                     cudaErrorInvalidValue);
    (void)cudaGetLastError();
}

static int count_sym(const sc_fb_sym *s, void *ctx)
{
    size_t *n = ctx;
    *n += 1 + (s->init != NULL);
    return 0;
}

/* The symbol reader on every prefix of the cubin and with each byte
 * changed: never outside the bytes (the sanitized build checks), the whole
 * cubin's kernel and three variables found. */
static void t_reader_bounds(void **state)
{
    (void)state;
    static sc_tfb e, bad;
    sc_tfb_cubin(&e, 90);
    size_t n = 0;
    assert_int_equal(sc_fb_elf_symbols(e.b, e.n, count_sym, &n), 0);
    assert_int_equal(n, 4 + 2); /* counter and man have initial bytes */
    assert_int_equal(sc_fb_elf_size(e.b, e.n), e.n);
    assert_int_equal(sc_fb_elf_arch(e.b, e.n), 90);
    for (size_t len = 0; len < e.n; len++) {
        n = 0;
        (void)sc_fb_elf_symbols(e.b, len, count_sym, &n);
        assert_int_equal(sc_fb_elf_size(e.b, len), 0);
    }
    for (size_t i = 0; i < e.n; i++) {
        bad = e;
        bad.b[i] ^= 0xa5;
        n = 0;
        (void)sc_fb_elf_symbols(bad.b, bad.n, count_sym, &n);
        (void)sc_fb_elf_size(bad.b, bad.n);
    }
    const char ptx[] = ".entry";
    n = 0;
    assert_int_equal(sc_fb_ptx_entries(ptx, sizeof ptx - 1, count_sym, &n), 0);
    assert_int_equal(n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_kernels),
        cmocka_unit_test(t_globals),
        cmocka_unit_test(t_forms),
        cmocka_unit_test(t_reader_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
