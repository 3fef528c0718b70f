/*
 * fatbin_image.h - device code built in a test the way nvcc lays it out,
 * so that the fat binary reader and the runtime can be tested without a
 * toolkit: a cubin describing kadd(float *, int, double, char) and a few
 * variables, and the fat binary container around entries.
 */
#ifndef SC_TEST_FATBIN_IMAGE_H
#define SC_TEST_FATBIN_IMAGE_H

#include <stddef.h>
#include <stdint.h>

/** The kernel the cubin describes: kadd(float *, int, double, char),
 *  parameters at offsets 0, 8, 16, 24 of sizes 8, 4, 8, 1. */
#define SC_TFB_KNAME "_Z4kaddPfidc"

/** Its variables: `counter`, a 4-byte __device__ int initialised to 5;
 *  `man`, a 4-byte __managed__ int initialised to 3; `table`, 64 zero
 *  bytes (.nv.global, no bits in the file). */
#define SC_TFB_COUNTER_INIT 5
#define SC_TFB_MAN_INIT     3
#define SC_TFB_TABLE_SIZE   64

/** Bytes being built. */
typedef struct sc_tfb {
    uint8_t b[8192];
    size_t n;
    /* nvcc's wrapper around a container, for sc_tfb_register */
    struct {
        int magic, version;
        const void *data;
        void *rest;
    } wrapper;
} sc_tfb;

/** Append n bytes; their offset. */
size_t sc_tfb_put(sc_tfb *b, const void *p, size_t n);

/** A cubin for sm_`arch` (CUDA's ELF ABI 8: the architecture in e_flags
 *  bits 8-15): .nv.info.KNAME with a constant-bank record and the four
 *  EIATTR_KPARAM_INFO records in reverse order (as nvcc writes them), a
 *  symbol table with kadd as a kernel entry and the three variables. */
void sc_tfb_cubin(sc_tfb *e, int arch);

/** The same cubin for the kernel `kname` whose n parameters (at most 64)
 *  have the given sizes, each at the next offset aligned to its size. */
void sc_tfb_cubin_kernel(sc_tfb *e, int arch, const char *kname, const uint32_t *sizes, size_t n);

/** Start a container (its 16-byte header, filled by sc_tfb_end). */
void sc_tfb_begin(sc_tfb *c);
/** One entry: kind SC_FB_ELF or SC_FB_PTX, its flags (SC_FB_FLAG_ZSTD
 *  when p holds n compressed bytes of a payload of `raw` bytes). */
void sc_tfb_entry(sc_tfb *c, uint16_t kind, uint32_t arch, uint64_t flags, const void *p, size_t n,
                  size_t raw);
/** The container's header, once every entry is in. */
void sc_tfb_end(sc_tfb *c);

/** c, a container of one uncompressed sm_80 cubin for kernel `kname` with
 *  n parameters of the given sizes (sc_tfb_cubin_kernel), in c. */
void sc_tfb_single(sc_tfb *c, const char *kname, const uint32_t *sizes, size_t n);

/** Register container c (which must live as long as the process) the way
 *  nvcc's start-up code does, with kernel `kname` at host address `stub`;
 *  the handle. */
void **sc_tfb_register(sc_tfb *c, const void *stub, const char *kname);

#endif
