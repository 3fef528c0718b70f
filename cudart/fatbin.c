/*
 * fatbin.c - the fat binary reader (fatbin.h).  The container layout is
 * not documented by NVIDIA; what is read here is only the part open-source
 * readers agree on and CUDA 13's nvcc was checked to write: a 16-byte
 * header (magic, version, header size, size of the entries), then entries,
 * each with its own header that names its kind, architecture, flags and,
 * when compressed, the uncompressed size.
 * Everything is bounds-checked: the bytes are the program's.
 */
#include "fatbin.h"

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <lz4.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* Offsets in the entry header (little-endian, as every CUDA host is). */
#define E_KIND     0
#define E_HSIZE    4
#define E_SIZE     8
#define E_ARCH     28
#define E_FLAGS    40
#define E_RAW_SIZE 56
#define E_MIN      64

/* .nv.info records: a format byte, an attribute byte, then either a
 * 2-byte value or (format EIFMT_SVAL) a 2-byte length and that many
 * bytes. */
#define EIFMT_SVAL      0x04
#define EIATTR_KPARAM   0x17
#define KPARAM_LEN      12
#define KPARAM_ORDINAL  4
#define KPARAM_OFFSET   6
#define KPARAM_FLAGS    8
#define KPARAM_SIZE_SHR 18

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

const void *sc_fb_container(const void *p)
{
    if (!p)
        return NULL;
    const uint8_t *b = p;
    if (rd32(b) == SC_FB_MAGIC)
        return p;
    if (rd32(b) != SC_FB_WRAPPER_MAGIC)
        return NULL;
    /* {int magic; int version; const unsigned long long *data; void *} */
    const void *data;
    memcpy(&data, b + 8, sizeof data);
    return data && rd32(data) == SC_FB_MAGIC ? data : NULL;
}

static int entry_read(const uint8_t *p, size_t left, sc_fb_entry *e, size_t *used)
{
    if (left < E_MIN)
        return -EINVAL;
    uint32_t hsize = rd32(p + E_HSIZE);
    uint64_t size = rd64(p + E_SIZE);
    if (hsize < E_MIN || hsize > left || size > left - hsize)
        return -EINVAL;
    memset(e, 0, sizeof *e);
    e->kind = rd16(p + E_KIND);
    e->arch = (int)rd32(p + E_ARCH);
    e->flags = rd64(p + E_FLAGS);
    e->data = p + hsize;
    e->size = (size_t)size;
    e->raw_size = e->size;
    if (e->flags & (SC_FB_FLAG_LZ4 | SC_FB_FLAG_ZSTD))
        e->raw_size = (size_t)rd64(p + E_RAW_SIZE);
    *used = hsize + (size_t)size;
    return 0;
}

int sc_fb_parse(const void *c, sc_fb *out)
{
    memset(out, 0, sizeof *out);
    const uint8_t *b = c;
    if (!b || rd32(b) != SC_FB_MAGIC)
        return -EINVAL;
    uint16_t hsize = rd16(b + 6);
    uint64_t total = rd64(b + 8);
    if (hsize < 16 || total > ((uint64_t)1 << 40))
        return -EINVAL;
    const uint8_t *p = b + hsize, *end = p + total;
    size_t cap = 0;
    while (p < end) {
        sc_fb_entry e;
        size_t used;
        if (entry_read(p, (size_t)(end - p), &e, &used) != 0)
            break;
        if (out->n == cap) {
            size_t nc = cap ? cap * 2 : 8;
            sc_fb_entry *ne = realloc(out->e, nc * sizeof *ne);
            if (!ne) {
                sc_fb_free(out);
                return -ENOMEM;
            }
            out->e = ne;
            cap = nc;
        }
        out->e[out->n++] = e;
        p += used;
    }
    return 0;
}

void sc_fb_free(sc_fb *fb)
{
    for (size_t i = 0; i < fb->n; i++)
        free(fb->e[i].raw);
    free(fb->e);
    fb->e = NULL;
    fb->n = 0;
}

/* The payload decompressed into a fresh buffer of raw_size bytes. */
static uint8_t *decompress(const sc_fb_entry *e)
{
    if (!e->raw_size || e->raw_size > ((size_t)1 << 31))
        return NULL;
    uint8_t *raw = malloc(e->raw_size);
    if (!raw)
        return NULL;
    bool ok = false;
    if (e->flags & SC_FB_FLAG_ZSTD) {
        size_t got = ZSTD_decompress(raw, e->raw_size, e->data, e->size);
        ok = !ZSTD_isError(got) && got == e->raw_size;
    } else if (e->size <= INT32_MAX) {
        int got =
            LZ4_decompress_safe((const char *)e->data, (char *)raw, (int)e->size, (int)e->raw_size);
        ok = got >= 0 && (size_t)got == e->raw_size;
    }
    if (!ok) {
        free(raw);
        return NULL;
    }
    return raw;
}

const uint8_t *sc_fb_entry_bytes(sc_fb_entry *e, size_t *size)
{
    if (!(e->flags & (SC_FB_FLAG_LZ4 | SC_FB_FLAG_ZSTD))) {
        *size = e->size;
        return e->data;
    }
    if (!e->raw && !e->bad) {
        e->raw = decompress(e);
        e->bad = !e->raw;
    }
    *size = e->raw ? e->raw_size : 0;
    return e->raw;
}

int sc_fb_versions(const sc_fb *fb, int cc, int *ptx, int *binary)
{
    int sass = 0, jit = 0;
    for (size_t i = 0; i < fb->n; i++) {
        const sc_fb_entry *e = &fb->e[i];
        if (e->arch <= 0 || e->arch > cc)
            continue;
        /* SASS runs only on its own major revision; PTX is JIT-compiled
         * for any later device. */
        if (e->kind == SC_FB_ELF && e->arch / 10 == cc / 10 && e->arch > sass)
            sass = e->arch;
        else if (e->kind == SC_FB_PTX && e->arch > jit)
            jit = e->arch;
    }
    if (sass) {
        *ptx = sass;
        *binary = sass;
        return 0;
    }
    if (jit) {
        *ptx = jit;
        *binary = cc;
        return 0;
    }
    return -ENOENT;
}

/* The ELF header of a 64-bit little-endian ELF, false when it is none. */
static bool elf_header(const uint8_t *elf, size_t size, Elf64_Ehdr *h)
{
    if (size < sizeof *h || memcmp(elf, ELFMAG, SELFMAG) != 0 || elf[EI_CLASS] != ELFCLASS64 ||
        elf[EI_DATA] != ELFDATA2LSB)
        return false;
    memcpy(h, elf, sizeof *h);
    return true;
}

/* The section header of index i, NULL when out of bounds. */
static const Elf64_Shdr *elf_section(const uint8_t *elf, size_t size, const Elf64_Ehdr *h, size_t i,
                                     Elf64_Shdr *buf)
{
    if (h->e_shentsize != sizeof *buf || i >= h->e_shnum || h->e_shoff > size ||
        (size - h->e_shoff) / sizeof *buf <= i)
        return NULL;
    memcpy(buf, elf + h->e_shoff + i * sizeof *buf, sizeof *buf);
    if (buf->sh_type != SHT_NOBITS &&
        (buf->sh_offset > size || buf->sh_size > size - buf->sh_offset))
        return NULL;
    return buf;
}

/* The .nv.info.<name> section's bytes, NULL when the cubin has none. */
static const uint8_t *info_section(const uint8_t *elf, size_t size, const char *name, size_t *len)
{
    Elf64_Ehdr h;
    Elf64_Shdr str, s;
    if (!elf_header(elf, size, &h) || !elf_section(elf, size, &h, h.e_shstrndx, &str))
        return NULL;
    const char *names = (const char *)elf + str.sh_offset;
    size_t nlen = strlen(name);
    for (size_t i = 1; i < h.e_shnum; i++) {
        if (!elf_section(elf, size, &h, i, &s) || s.sh_name >= str.sh_size)
            continue;
        const char *sn = names + s.sh_name;
        size_t room = str.sh_size - s.sh_name;
        if (room > 9 + nlen && memcmp(sn, ".nv.info.", 9) == 0 && memcmp(sn + 9, name, nlen) == 0 &&
            sn[9 + nlen] == '\0') {
            *len = s.sh_size;
            return elf + s.sh_offset;
        }
    }
    return NULL;
}

static void param_put(sc_fb_param *out, size_t cap, const uint8_t *rec, size_t *n)
{
    uint16_t ord = rd16(rec + KPARAM_ORDINAL);
    if ((size_t)ord + 1 > *n)
        *n = (size_t)ord + 1;
    if (ord < cap) {
        out[ord].offset = rd16(rec + KPARAM_OFFSET);
        out[ord].size = rd32(rec + KPARAM_FLAGS) >> KPARAM_SIZE_SHR;
    }
}

int sc_fb_elf_params(const uint8_t *elf, size_t size, const char *name, sc_fb_param *out,
                     size_t cap, size_t *n)
{
    size_t len = 0;
    const uint8_t *p = info_section(elf, size, name, &len);
    if (!p)
        return -ENOENT;
    if (cap)
        memset(out, 0, cap * sizeof *out);
    *n = 0;
    for (size_t at = 0; at + 4 <= len;) {
        uint8_t fmt = p[at], attr = p[at + 1];
        if (fmt != EIFMT_SVAL) {
            at += 4;
            continue;
        }
        size_t vlen = rd16(p + at + 2);
        if (vlen > len - at - 4)
            return -EINVAL;
        if (attr == EIATTR_KPARAM && vlen >= KPARAM_LEN)
            param_put(out, cap, p + at + 4, n);
        at += 4 + vlen;
    }
    return 0;
}

int sc_fb_params(sc_fb *fb, const char *name, sc_fb_param *out, size_t cap, size_t *n)
{
    int rc = -ENOENT;
    int best = -1;
    for (size_t i = 0; i < fb->n; i++) {
        sc_fb_entry *e = &fb->e[i];
        if (e->kind != SC_FB_ELF || e->arch <= best)
            continue;
        size_t size;
        const uint8_t *elf = sc_fb_entry_bytes(e, &size);
        size_t got;
        int r = elf ? sc_fb_elf_params(elf, size, name, NULL, 0, &got) : -EINVAL;
        if (r == -ENOENT)
            continue;
        if (r != 0) {
            rc = r;
            continue;
        }
        (void)sc_fb_elf_params(elf, size, name, out, cap, n);
        best = e->arch;
        rc = 0;
    }
    return rc;
}

/* CUDA's ELF ABI version 8 and later (CUDA 12.8 on) keep the architecture
 * in bits 8-15 of e_flags, the earlier ones in bits 0-7. */
#define CUDA_ABI_NEW_FLAGS 8

int sc_fb_elf_arch(const uint8_t *elf, size_t size)
{
    Elf64_Ehdr h;
    if (!elf_header(elf, size, &h) || h.e_machine != EM_CUDA)
        return 0;
    if (h.e_ident[EI_ABIVERSION] >= CUDA_ABI_NEW_FLAGS)
        return (int)((h.e_flags >> 8) & 0xff);
    return (int)(h.e_flags & 0xff);
}

static uint64_t span_end(uint64_t off, uint64_t n, uint64_t each)
{
    if (each && n > (UINT64_MAX - off) / each)
        return UINT64_MAX;
    return off + n * each;
}

size_t sc_fb_elf_size(const uint8_t *elf, size_t limit)
{
    Elf64_Ehdr h;
    if (!elf_header(elf, limit, &h) || h.e_shentsize != sizeof(Elf64_Shdr))
        return 0;
    uint64_t end = span_end(h.e_shoff, h.e_shnum, h.e_shentsize);
    uint64_t ph = span_end(h.e_phoff, h.e_phnum, h.e_phentsize);
    if (ph > end)
        end = ph;
    if (end > limit)
        return 0;
    for (size_t i = 1; i < h.e_shnum; i++) {
        Elf64_Shdr s;
        if (!elf_section(elf, limit, &h, i, &s))
            return 0;
        if (s.sh_type != SHT_NOBITS && s.sh_offset + s.sh_size > end)
            end = s.sh_offset + s.sh_size;
    }
    return (size_t)end;
}

/* st_other bits of CUDA's symbols: a kernel entry, a managed variable. */
#define STO_CUDA_ENTRY   0x10
#define STO_CUDA_MANAGED 0x04

/* Whether section `s` (named `sn`) holds variables a library exposes. */
static bool var_section(const char *sn)
{
    return strncmp(sn, ".nv.global", 10) == 0 || strncmp(sn, ".nv.constant", 12) == 0;
}

/* Symbol `y` as a kernel or variable (false: neither, or out of bounds). */
static bool sym_read(const uint8_t *elf, size_t size, const Elf64_Ehdr *h, const Elf64_Shdr *str,
                     const Elf64_Sym *y, sc_fb_sym *out)
{
    Elf64_Shdr at, shstr;
    if (y->st_name >= str->sh_size || y->st_shndx == SHN_UNDEF || y->st_shndx >= h->e_shnum ||
        !elf_section(elf, size, h, y->st_shndx, &at) ||
        !elf_section(elf, size, h, h->e_shstrndx, &shstr) || at.sh_name >= shstr.sh_size)
        return false;
    const char *name = (const char *)elf + str->sh_offset + y->st_name;
    if (!memchr(name, '\0', str->sh_size - y->st_name))
        return false;
    memset(out, 0, sizeof *out);
    out->name = name;
    if (ELF64_ST_TYPE(y->st_info) == STT_FUNC)
        return (out->kernel = (y->st_other & STO_CUDA_ENTRY) != 0);
    const char *sn = (const char *)elf + shstr.sh_offset + at.sh_name;
    if (ELF64_ST_TYPE(y->st_info) != STT_OBJECT || !memchr(sn, '\0', shstr.sh_size - at.sh_name) ||
        !var_section(sn) || y->st_value > at.sh_size || y->st_size > at.sh_size - y->st_value)
        return false;
    out->managed = (y->st_other & STO_CUDA_MANAGED) != 0;
    out->size = y->st_size;
    out->init = at.sh_type == SHT_NOBITS ? NULL : elf + at.sh_offset + y->st_value;
    return true;
}

int sc_fb_elf_symbols(const uint8_t *elf, size_t size, sc_fb_sym_fn fn, void *ctx)
{
    Elf64_Ehdr h;
    Elf64_Shdr tab, str;
    if (!elf_header(elf, size, &h))
        return -EINVAL;
    size_t i = 1;
    for (; i < h.e_shnum; i++)
        if (elf_section(elf, size, &h, i, &tab) && tab.sh_type == SHT_SYMTAB)
            break;
    if (i >= h.e_shnum || tab.sh_entsize != sizeof(Elf64_Sym) ||
        !elf_section(elf, size, &h, tab.sh_link, &str))
        return -EINVAL;
    for (size_t k = 1; k < tab.sh_size / sizeof(Elf64_Sym); k++) {
        Elf64_Sym y;
        sc_fb_sym s;
        memcpy(&y, elf + tab.sh_offset + k * sizeof y, sizeof y);
        if (!sym_read(elf, size, &h, &str, &y, &s))
            continue;
        int rc = fn(&s, ctx);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static bool ptx_ident(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$';
}

int sc_fb_ptx_entries(const char *ptx, size_t size, sc_fb_sym_fn fn, void *ctx)
{
    char name[512];
    for (size_t at = 0; at + 6 < size && ptx[at]; at++) {
        if (memcmp(ptx + at, ".entry", 6) != 0 || (at && ptx_ident(ptx[at - 1])) ||
            ptx_ident(ptx[at + 6]))
            continue;
        size_t p = at + 6, n = 0;
        while (p < size && (ptx[p] == ' ' || ptx[p] == '\t' || ptx[p] == '\n' || ptx[p] == '\r'))
            p++;
        while (p < size && ptx_ident(ptx[p]) && n + 1 < sizeof name)
            name[n++] = ptx[p++];
        if (!n)
            continue;
        name[n] = '\0';
        sc_fb_sym s = {.name = name, .kernel = true};
        int rc = fn(&s, ctx);
        if (rc != 0)
            return rc;
        at = p - 1;
    }
    return 0;
}

int sc_fb_ptx_target(const char *ptx, size_t size)
{
    static const char key[] = ".target";
    size_t klen = sizeof key - 1;
    for (size_t at = 0; at + klen < size && ptx[at]; at++) {
        if (memcmp(ptx + at, key, klen) != 0)
            continue;
        size_t p = at + klen;
        while (p < size && (ptx[p] == ' ' || ptx[p] == '\t'))
            p++;
        if (p + 3 >= size || memcmp(ptx + p, "sm_", 3) != 0)
            return 0;
        int arch = 0;
        for (p += 3; p < size && ptx[p] >= '0' && ptx[p] <= '9' && arch < 10000; p++)
            arch = arch * 10 + (ptx[p] - '0');
        return arch;
    }
    return 0;
}
