/*
 * fatbin.h - what the stand-in reads of the device code nvcc embeds: the
 * fat binary container's entries (architecture, PTX or SASS, compressed
 * or not) and, from a cubin's .nv.info.<kernel> section, the offset and
 * size of each kernel parameter.  Pure functions over bytes: no process
 * state, no CUDA types.
 */
#ifndef SC_CUDART_FATBIN_H
#define SC_CUDART_FATBIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** The container's magic (the header nvcc puts at .nv_fatbin entries). */
#define SC_FB_MAGIC 0xBA55ED50u
/** The magic of the wrapper __cudaRegisterFatBinary receives. */
#define SC_FB_WRAPPER_MAGIC 0x466243b1u

/** Entry kinds. */
#define SC_FB_PTX 1
#define SC_FB_ELF 2

/** Entry flags: the payload is compressed with LZ4 (older toolkits) or
 *  Zstandard (CUDA 13's default where it compresses). */
#define SC_FB_FLAG_LZ4  0x2000u
#define SC_FB_FLAG_ZSTD 0x8000u

/** One entry of a container.  `data` points into the container; `raw` is
 *  the decompressed payload once sc_fb_entry_bytes made it (owned). */
typedef struct sc_fb_entry {
    int kind;       /* SC_FB_PTX, SC_FB_ELF, or another the reader ignores */
    int arch;       /* 10 * major + minor: 75 for sm_75 / compute_75 */
    uint64_t flags; /* SC_FB_FLAG_* among others */
    const uint8_t *data;
    size_t size;     /* bytes at data */
    size_t raw_size; /* uncompressed size (== size when not compressed) */
    uint8_t *raw;
    bool bad; /* decompression failed once: not retried */
} sc_fb_entry;

/** A container's entries. */
typedef struct sc_fb {
    sc_fb_entry *e;
    size_t n;
} sc_fb;

/** One kernel parameter: its place in the parameter buffer. */
typedef struct sc_fb_param {
    uint32_t offset, size;
} sc_fb_param;

/** The container a registration wrapper (or a bare container) points at,
 *  or NULL when `p` is neither. */
const void *sc_fb_container(const void *p);

/** Read the entries of the container at `c` into *out (0), or -EINVAL
 *  when it is not one, -ENOMEM.  Nothing is decompressed yet. */
int sc_fb_parse(const void *c, sc_fb *out);

/** Free what sc_fb_parse and sc_fb_entry_bytes made. */
void sc_fb_free(sc_fb *fb);

/** The entry's payload, decompressed on first use (NULL when it cannot
 *  be: unknown codec, corrupt data, memory short). */
const uint8_t *sc_fb_entry_bytes(sc_fb_entry *e, size_t *size);

/** What a driver for a device of compute capability `cc` (10 * major +
 *  minor) would load: the best SASS of the same major at or below cc
 *  (binary = its arch, ptx = its arch), else the best PTX at or below cc
 *  (JIT-compiled: ptx = its arch, binary = cc).  -ENOENT when the
 *  container holds neither for the device. */
int sc_fb_versions(const sc_fb *fb, int cc, int *ptx, int *binary);

/** The parameter layout of kernel `name` (mangled) from the cubins of
 *  `fb`, in ordinal order: up to `cap` into `out`, their count in *n.
 *  The cubin preferred is the highest-arch one that describes the kernel.
 *  -ENOENT when no cubin does, -EINVAL when one is malformed. */
int sc_fb_params(sc_fb *fb, const char *name, sc_fb_param *out, size_t cap, size_t *n);

/** The same for one cubin (ELF bytes). */
int sc_fb_elf_params(const uint8_t *elf, size_t size, const char *name, sc_fb_param *out,
                     size_t cap, size_t *n);

/** The SM architecture a cubin is built for (10 * major + minor, from its
 *  ELF flags), 0 when the bytes are no CUDA ELF. */
int sc_fb_elf_arch(const uint8_t *elf, size_t size);

/** The size of the cubin at `elf` from its headers (the furthest of its
 *  section and program headers and section contents), at most `limit`;
 *  0 when it is no 64-bit ELF or reaches past `limit`. */
size_t sc_fb_elf_size(const uint8_t *elf, size_t limit);

/** One kernel entry or variable of a cubin (sc_fb_elf_symbols). */
typedef struct sc_fb_sym {
    const char *name;    /* valid during the call only */
    bool kernel;         /* a kernel entry; else a variable */
    bool managed;        /* a __managed__ variable */
    uint64_t size;       /* a variable's bytes */
    const uint8_t *init; /* its initial bytes; NULL when zero (NOBITS) */
} sc_fb_sym;

/** Called for each symbol; a non-zero return stops the walk with it. */
typedef int (*sc_fb_sym_fn)(const sc_fb_sym *s, void *ctx);

/** Each kernel entry (a function marked as an entry) and each variable
 *  of a .nv.global or .nv.constant section of a cubin, in symbol table
 *  order.  0, fn's non-zero result, or -EINVAL when the bytes are no
 *  64-bit ELF with a symbol table. */
int sc_fb_elf_symbols(const uint8_t *elf, size_t size, sc_fb_sym_fn fn, void *ctx);

/** The architecture of PTX text's `.target sm_NN` (10 * major + minor:
 *  75 for sm_75, 90 for sm_90a), 0 when it names none. */
int sc_fb_ptx_target(const char *ptx, size_t size);

/** Each `.entry NAME` of PTX text (`size` bytes, NUL or not), as a kernel
 *  symbol (no layout, no variables).  0 or fn's non-zero result. */
int sc_fb_ptx_entries(const char *ptx, size_t size, sc_fb_sym_fn fn, void *ctx);

#endif
