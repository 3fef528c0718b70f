/*
 * fatbin_image.c - the cubin and fat binary container of fatbin_image.h.
 * The layouts are those cudart/fatbin.c reads (and nvcc writes); nothing
 * here is checked, the bytes are the test's own.
 */
#include "fatbin_image.h"

#include <elf.h>
#include <string.h>

#include "fatbin.h"

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

/* Section indexes and the names in .shstrtab (offsets after the NUL). */
enum { S_NULL, S_SHSTR, S_STR, S_SYM, S_INFO, S_TEXT, S_INIT, S_GLOBAL, S_N };
static const char shnames[] = "\0.shstrtab\0.strtab\0.symtab\0.nv.info." SC_TFB_KNAME
                              "\0.text." SC_TFB_KNAME "\0.nv.global.init\0.nv.global";
static const char strtab[] = "\0counter\0man\0table\0" SC_TFB_KNAME;

/* The offset of `name` in a table of NUL-separated names. */
static uint32_t name_at(const char *tab, size_t len, const char *name)
{
    for (size_t i = 1; i < len; i += strlen(tab + i) + 1)
        if (strcmp(tab + i, name) == 0)
            return (uint32_t)i;
    return 0;
}

static void put_symbols(sc_tfb *e, Elf64_Shdr *sh)
{
    Elf64_Sym y[5] = {{0}};
    y[1] = (Elf64_Sym){.st_name = name_at(strtab, sizeof strtab, "counter"),
                       .st_info = ELF64_ST_INFO(STB_LOCAL, STT_OBJECT),
                       .st_shndx = S_INIT,
                       .st_size = 4};
    y[2] = (Elf64_Sym){.st_name = name_at(strtab, sizeof strtab, "man"),
                       .st_info = ELF64_ST_INFO(STB_LOCAL, STT_OBJECT),
                       .st_other = STO_MANAGED,
                       .st_shndx = S_INIT,
                       .st_value = 4,
                       .st_size = 4};
    y[3] = (Elf64_Sym){.st_name = name_at(strtab, sizeof strtab, "table"),
                       .st_info = ELF64_ST_INFO(STB_LOCAL, STT_OBJECT),
                       .st_shndx = S_GLOBAL,
                       .st_size = SC_TFB_TABLE_SIZE};
    y[4] = (Elf64_Sym){.st_name = name_at(strtab, sizeof strtab, SC_TFB_KNAME),
                       .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
                       .st_other = STO_ENTRY,
                       .st_shndx = S_TEXT,
                       .st_size = 16};
    sh[S_STR] = (Elf64_Shdr){.sh_type = SHT_STRTAB,
                             .sh_offset = sc_tfb_put(e, strtab, sizeof strtab),
                             .sh_size = sizeof strtab};
    align8(e);
    sh[S_SYM] = (Elf64_Shdr){.sh_type = SHT_SYMTAB,
                             .sh_offset = sc_tfb_put(e, y, sizeof y),
                             .sh_size = sizeof y,
                             .sh_link = S_STR,
                             .sh_entsize = sizeof(Elf64_Sym)};
}

static void put_info(sc_tfb *e, Elf64_Shdr *sh)
{
    size_t at = e->n;
    uint8_t cbank[4] = {EIFMT_HVAL, EIATTR_CBANK, 0x19, 0x00}; /* a 2-byte value record */
    sc_tfb_put(e, cbank, sizeof cbank);
    put_kparam(e, 3, 24, 1);
    put_kparam(e, 2, 16, 8);
    put_kparam(e, 1, 8, 4);
    put_kparam(e, 0, 0, 8);
    sh[S_INFO] = (Elf64_Shdr){.sh_type = SHT_LOPROC, .sh_offset = at, .sh_size = e->n - at};
    align8(e);
}

void sc_tfb_cubin(sc_tfb *e, int arch)
{
    memset(e, 0, sizeof *e);
    Elf64_Ehdr h = {0};
    sc_tfb_put(e, &h, sizeof h);
    Elf64_Shdr sh[S_N] = {{0}};
    sh[S_SHSTR] = (Elf64_Shdr){.sh_type = SHT_STRTAB,
                               .sh_offset = sc_tfb_put(e, shnames, sizeof shnames),
                               .sh_size = sizeof shnames};
    align8(e);
    put_symbols(e, sh);
    put_info(e, sh);
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
    static const char *const names[S_N] = {
        [S_SHSTR] = ".shstrtab",
        [S_STR] = ".strtab",
        [S_SYM] = ".symtab",
        [S_INFO] = ".nv.info." SC_TFB_KNAME,
        [S_TEXT] = ".text." SC_TFB_KNAME,
        [S_INIT] = ".nv.global.init",
        [S_GLOBAL] = ".nv.global",
    };
    for (int i = 1; i < S_N; i++)
        sh[i].sh_name = name_at(shnames, sizeof shnames, names[i]);
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
