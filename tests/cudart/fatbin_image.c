/*
 * fatbin_image.c - the cubin and fat binary container of fatbin_image.h.
 * The layouts are those cudart/fatbin.c reads (and nvcc writes); nothing
 * here is checked, the bytes are the test's own.
 */
#include "fatbin_image.h"

#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "fatbin.h"
#include "sc_cudart.h"

#define EIFMT_SVAL    0x04
#define EIFMT_HVAL    0x03
#define EIATTR_KPARAM 0x17
#define EIATTR_CBANK  0x19
#define STO_ENTRY     0x10
#define STO_MANAGED   0x04

size_t sc_tfb_put(sc_tfb *b, const void *p, size_t n)
{
    size_t at = b->n;
    memcpy(b->b + at, p, n);
    b->n += n;
    return at;
}

static void put_kparam(sc_tfb *b, uint16_t ord, uint16_t off, uint32_t size)
{
    uint8_t r[16] = {EIFMT_SVAL, EIATTR_KPARAM, 12, 0};
    uint32_t flags = size << 18 | 0xf000;
    memcpy(r + 8, &ord, 2);
    memcpy(r + 10, &off, 2);
    memcpy(r + 12, &flags, 4);
    sc_tfb_put(b, r, sizeof r);
}

static void align8(sc_tfb *e)
{
    while (e->n % 8)
        e->b[e->n++] = 0;
}

/* Section indexes; the names of .shstrtab and .strtab are built for the
 * kernel's name (NUL-separated, a NUL first). */
enum { S_NULL, S_SHSTR, S_STR, S_SYM, S_INFO, S_TEXT, S_INIT, S_GLOBAL, S_N };

typedef struct names {
    char b[1024];
    size_t n;
} names;

static void names_add(names *t, const char *a, const char *b)
{
    int w = snprintf(t->b + t->n, sizeof t->b - t->n, "%s%s", a, b);
    t->n += (size_t)w + 1;
}

/* The offset of `name` in a table of NUL-separated names. */
static uint32_t name_at(const char *tab, size_t len, const char *name)
{
    for (size_t i = 1; i < len; i += strlen(tab + i) + 1)
        if (strcmp(tab + i, name) == 0)
            return (uint32_t)i;
    return 0;
}

static void put_symbols(sc_tfb *e, Elf64_Shdr *sh, const char *kname)
{
    names st = {.n = 1};
    names_add(&st, "counter", "");
    names_add(&st, "man", "");
    names_add(&st, "table", "");
    names_add(&st, kname, "");
    const char *strtab = st.b;
    size_t strtab_len = st.n;
    Elf64_Sym y[5] = {{0}};
    y[1] = (Elf64_Sym){.st_name = name_at(strtab, strtab_len, "counter"),
                       .st_info = ELF64_ST_INFO(STB_LOCAL, STT_OBJECT),
                       .st_shndx = S_INIT,
                       .st_size = 4};
    y[2] = (Elf64_Sym){.st_name = name_at(strtab, strtab_len, "man"),
                       .st_info = ELF64_ST_INFO(STB_LOCAL, STT_OBJECT),
                       .st_other = STO_MANAGED,
                       .st_shndx = S_INIT,
                       .st_value = 4,
                       .st_size = 4};
    y[3] = (Elf64_Sym){.st_name = name_at(strtab, strtab_len, "table"),
                       .st_info = ELF64_ST_INFO(STB_LOCAL, STT_OBJECT),
                       .st_shndx = S_GLOBAL,
                       .st_size = SC_TFB_TABLE_SIZE};
    y[4] = (Elf64_Sym){.st_name = name_at(strtab, strtab_len, kname),
                       .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
                       .st_other = STO_ENTRY,
                       .st_shndx = S_TEXT,
                       .st_size = 16};
    sh[S_STR] = (Elf64_Shdr){.sh_type = SHT_STRTAB,
                             .sh_offset = sc_tfb_put(e, strtab, strtab_len),
                             .sh_size = strtab_len};
    align8(e);
    sh[S_SYM] = (Elf64_Shdr){.sh_type = SHT_SYMTAB,
                             .sh_offset = sc_tfb_put(e, y, sizeof y),
                             .sh_size = sizeof y,
                             .sh_link = S_STR,
                             .sh_entsize = sizeof(Elf64_Sym)};
}

static void put_info(sc_tfb *e, Elf64_Shdr *sh, const uint32_t *sizes, size_t n)
{
    size_t at = e->n;
    uint8_t cbank[4] = {EIFMT_HVAL, EIATTR_CBANK, 0x19, 0x00}; /* a 2-byte value record */
    sc_tfb_put(e, cbank, sizeof cbank);
    /* Each at its own alignment (its size), in reverse order as nvcc writes them. */
    uint16_t off[64];
    uint16_t o = 0;
    for (size_t i = 0; i < n; i++) {
        o = (uint16_t)((o + sizes[i] - 1) / sizes[i] * sizes[i]);
        off[i] = o;
        o = (uint16_t)(o + sizes[i]);
    }
    for (size_t i = n; i-- > 0;)
        put_kparam(e, (uint16_t)i, off[i], sizes[i]);
    sh[S_INFO] = (Elf64_Shdr){.sh_type = SHT_LOPROC, .sh_offset = at, .sh_size = e->n - at};
    align8(e);
}

void sc_tfb_cubin(sc_tfb *e, int arch)
{
    static const uint32_t sizes[] = {8, 4, 8, 1};
    sc_tfb_cubin_kernel(e, arch, SC_TFB_KNAME, sizes, 4);
}

void sc_tfb_cubin_kernel(sc_tfb *e, int arch, const char *kname, const uint32_t *sizes, size_t n)
{
    memset(e, 0, sizeof *e);
    Elf64_Ehdr h = {0};
    sc_tfb_put(e, &h, sizeof h);
    Elf64_Shdr sh[S_N] = {{0}};
    names sn = {.n = 1};
    names_add(&sn, ".shstrtab", "");
    names_add(&sn, ".strtab", "");
    names_add(&sn, ".symtab", "");
    names_add(&sn, ".nv.info.", kname);
    names_add(&sn, ".text.", kname);
    names_add(&sn, ".nv.global.init", "");
    names_add(&sn, ".nv.global", "");
    const char *shnames = sn.b;
    sh[S_SHSTR] = (Elf64_Shdr){
        .sh_type = SHT_STRTAB, .sh_offset = sc_tfb_put(e, shnames, sn.n), .sh_size = sn.n};
    align8(e);
    put_symbols(e, sh, kname);
    put_info(e, sh, sizes, n);
    static const uint8_t text[16] = {0};
    sh[S_TEXT] = (Elf64_Shdr){.sh_type = SHT_PROGBITS,
                              .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
                              .sh_offset = sc_tfb_put(e, text, sizeof text),
                              .sh_size = sizeof text};
    int32_t init[2] = {SC_TFB_COUNTER_INIT, SC_TFB_MAN_INIT};
    sh[S_INIT] = (Elf64_Shdr){.sh_type = SHT_PROGBITS,
                              .sh_flags = SHF_ALLOC | SHF_WRITE,
                              .sh_offset = sc_tfb_put(e, init, sizeof init),
                              .sh_size = sizeof init};
    sh[S_GLOBAL] = (Elf64_Shdr){.sh_type = SHT_NOBITS,
                                .sh_flags = SHF_ALLOC | SHF_WRITE,
                                .sh_offset = e->n,
                                .sh_size = SC_TFB_TABLE_SIZE};
    char info[300], textsec[300];
    snprintf(info, sizeof info, ".nv.info.%s", kname);
    snprintf(textsec, sizeof textsec, ".text.%s", kname);
    const char *const secs[S_N] = {
        [S_SHSTR] = ".shstrtab",   [S_STR] = ".strtab", [S_SYM] = ".symtab",
        [S_INFO] = info,           [S_TEXT] = textsec,  [S_INIT] = ".nv.global.init",
        [S_GLOBAL] = ".nv.global",
    };
    for (int i = 1; i < S_N; i++)
        sh[i].sh_name = name_at(shnames, sn.n, secs[i]);
    align8(e);
    size_t shoff = sc_tfb_put(e, sh, sizeof sh);
    memcpy(h.e_ident, ELFMAG, SELFMAG);
    h.e_ident[EI_CLASS] = ELFCLASS64;
    h.e_ident[EI_DATA] = ELFDATA2LSB;
    h.e_ident[EI_VERSION] = EV_CURRENT;
    h.e_ident[EI_OSABI] = 0x41;
    h.e_ident[EI_ABIVERSION] = 8;
    h.e_type = ET_EXEC;
    h.e_machine = EM_CUDA;
    h.e_version = EV_CURRENT;
    h.e_flags = (uint32_t)arch << 8;
    h.e_ehsize = sizeof h;
    h.e_shoff = shoff;
    h.e_shentsize = sizeof(Elf64_Shdr);
    h.e_shnum = S_N;
    h.e_shstrndx = S_SHSTR;
    memcpy(e->b, &h, sizeof h);
}

void sc_tfb_begin(sc_tfb *c)
{
    memset(c, 0, sizeof *c);
    uint8_t head[16] = {0};
    sc_tfb_put(c, head, sizeof head);
}

void sc_tfb_entry(sc_tfb *c, uint16_t kind, uint32_t arch, uint64_t flags, const void *p, size_t n,
                  size_t raw)
{
    uint8_t h[64] = {0};
    uint32_t hsize = 64;
    uint64_t size = n, raw64 = raw;
    memcpy(h, &kind, 2);
    memcpy(h + 4, &hsize, 4);
    memcpy(h + 8, &size, 8);
    memcpy(h + 28, &arch, 4);
    memcpy(h + 40, &flags, 8);
    memcpy(h + 56, &raw64, 8);
    sc_tfb_put(c, h, sizeof h);
    sc_tfb_put(c, p, n);
}

void sc_tfb_end(sc_tfb *c)
{
    uint32_t magic = SC_FB_MAGIC;
    uint16_t ver = 1, hs = 16;
    uint64_t total = c->n - 16;
    memcpy(c->b, &magic, 4);
    memcpy(c->b + 4, &ver, 2);
    memcpy(c->b + 6, &hs, 2);
    memcpy(c->b + 8, &total, 8);
}

void sc_tfb_single(sc_tfb *c, const char *kname, const uint32_t *sizes, size_t n)
{
    static sc_tfb cubin;
    sc_tfb_cubin_kernel(&cubin, 80, kname, sizes, n);
    sc_tfb_begin(c);
    sc_tfb_entry(c, SC_FB_ELF, 80, 0x11, cubin.b, cubin.n, 0);
    sc_tfb_end(c);
}

void **sc_tfb_register(sc_tfb *c, const void *stub, const char *kname)
{
    c->wrapper.magic = (int)SC_FB_WRAPPER_MAGIC;
    c->wrapper.version = 1;
    c->wrapper.data = c->b;
    void **h = __cudaRegisterFatBinary(&c->wrapper);
    __cudaRegisterFunction(h, (const char *)stub, (char *)kname, kname, -1, NULL, NULL, NULL, NULL,
                           NULL);
    __cudaRegisterFatBinaryEnd(h);
    return h;
}
