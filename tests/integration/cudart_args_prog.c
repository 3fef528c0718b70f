/*
 * cudart_args_prog - a CUDA program for test_cudart_feed whose kernel has
 * a parameter layout: it registers a fat binary built here the way nvcc
 * lays one out (a cubin whose .nv.info section carries the layout of
 * kadd(float *, int, double, char), as in test_cudart_fatbin.c, stored
 * uncompressed), launches kadd in a capture and then changes the locals
 * the launch pointed at, so that the stored graph shows the values as the
 * launch copied them.  A second kernel, never given a layout, is launched
 * too: it must be stored without arguments.
 */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fatbin.h"
#include "sc_cudart.h"

#define KNAME       "_Z4kaddPfidc"
#define EIFMT_SVAL_ 0x04

typedef struct buf {
    uint8_t b[4096];
    size_t n;
} buf;

static size_t put(buf *b, const void *p, size_t n)
{
    size_t at = b->n;
    memcpy(b->b + at, p, n);
    b->n += n;
    return at;
}

static void put_kparam(buf *b, uint16_t ord, uint16_t off, uint32_t size)
{
    uint8_t r[16] = {EIFMT_SVAL_, 0x17, 12, 0};
    uint32_t flags = size << 18 | 0xf000;
    memcpy(r + 8, &ord, 2);
    memcpy(r + 10, &off, 2);
    memcpy(r + 12, &flags, 4);
    put(b, r, sizeof r);
}

static void make_cubin(buf *e)
{
    memset(e, 0, sizeof *e);
    Elf64_Ehdr h = {0};
    put(e, &h, sizeof h);
    const char names[] = "\0.shstrtab\0.nv.info." KNAME;
    size_t str_at = put(e, names, sizeof names);
    size_t info_at = e->n;
    put_kparam(e, 3, 24, 1);
    put_kparam(e, 2, 16, 8);
    put_kparam(e, 1, 8, 4);
    put_kparam(e, 0, 0, 8);
    size_t info_len = e->n - info_at;
    while (e->n % 8)
        e->b[e->n++] = 0;
    Elf64_Shdr sh[3] = {{0}};
    sh[1].sh_name = 1;
    sh[1].sh_type = SHT_STRTAB;
    sh[1].sh_offset = str_at;
    sh[1].sh_size = sizeof names;
    sh[2].sh_name = 11;
    sh[2].sh_type = 0x70000000;
    sh[2].sh_offset = info_at;
    sh[2].sh_size = info_len;
    size_t shoff = put(e, sh, sizeof sh);
    memcpy(h.e_ident, ELFMAG, SELFMAG);
    h.e_ident[EI_CLASS] = ELFCLASS64;
    h.e_ident[EI_DATA] = ELFDATA2LSB;
    h.e_shoff = shoff;
    h.e_shentsize = sizeof(Elf64_Shdr);
    h.e_shnum = 3;
    h.e_shstrndx = 1;
    memcpy(e->b, &h, sizeof h);
}

static void make_container(buf *c)
{
    static buf cubin;
    make_cubin(&cubin);
    memset(c, 0, sizeof *c);
    uint8_t head[16] = {0};
    put(c, head, sizeof head);
    uint8_t h[64] = {0};
    uint16_t kind = SC_FB_ELF;
    uint32_t hsize = 64, arch = 80;
    uint64_t size = cubin.n, flags = 0x11, raw = 0;
    memcpy(h, &kind, 2);
    memcpy(h + 4, &hsize, 4);
    memcpy(h + 8, &size, 8);
    memcpy(h + 28, &arch, 4);
    memcpy(h + 40, &flags, 8);
    memcpy(h + 56, &raw, 8);
    put(c, h, sizeof h);
    put(c, cubin.b, cubin.n);
    uint32_t magic = SC_FB_MAGIC;
    uint16_t ver = 1, hs = 16;
    uint64_t total = c->n - 16;
    memcpy(c->b, &magic, 4);
    memcpy(c->b + 4, &ver, 2);
    memcpy(c->b + 6, &hs, 2);
    memcpy(c->b + 8, &total, 8);
}

static void kadd_stub(void) {}
static void plain_stub(void) {}

static void ok(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "cudart_args_prog: %s: %s\n", what, cudaGetErrorName(e));
        exit(1);
    }
}

int main(void)
{
    static buf c;
    make_container(&c);
    static struct {
        int magic, version;
        const void *data;
        void *rest;
    } wrapper;
    wrapper.magic = (int)SC_FB_WRAPPER_MAGIC;
    wrapper.version = 1;
    wrapper.data = c.b;
    void **h = __cudaRegisterFatBinary(&wrapper);
    __cudaRegisterFunction(h, (const char *)(void *)kadd_stub, (char *)KNAME, KNAME, -1, NULL, NULL,
                           NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(h);
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
    x = NULL;
    n = -1;
    a = 0;
    ch = 0;
    ok(cudaLaunchKernel((const void *)plain_stub, (dim3){1, 1, 1}, (dim3){1, 1, 1}, NULL, 0, s),
       "cudaLaunchKernel");
    cudaGraph_t g;
    ok(cudaStreamEndCapture(s, &g), "cudaStreamEndCapture");
    ok(cudaGraphDestroy(g), "cudaGraphDestroy");
    return 0;
}
