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

#endif
