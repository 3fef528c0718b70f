/*
 * rt_library.c - libraries loaded at run time (cudaLibraryLoadData,
 * cudaLibraryLoadFromFile): a fat binary, a cubin or PTX text, read by the
 * stand-in's own reader (fatbin.c).  The library keeps a copy of the bytes,
 * as the runtime does unless told the caller preserves them.  Its kernels
 * are the entries its cubins name (or, with PTX alone, the PTX's
 * `.entry`s); each handle is registered in the kernel table as a host stub
 * would be, with the library's bytes as its fat binary, so that every call
 * taking a kernel (launches, kernel nodes, cudaFuncGetAttributes,
 * cudaFuncGetParamInfo, cudaGetKernel) takes the handle cast to a function
 * pointer, named and laid out as a registered kernel is.  Its variables
 * (.nv.global and .nv.constant symbols of its cubins) get host memory with
 * their initial bytes, known as device (or managed) memory.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi_array.h"
#include "rt_int.h"

/** A kernel handle: what cudaKernel_t points at. */
struct CUkern_st {
    char *mangled;
};

typedef struct lib_var {
    char *name;
    void *mem;
    size_t size;
    bool managed;
} lib_var;

struct CUlib_st {
    uint8_t *image; /* the copy of the code */
    size_t size;
    struct sc_rt_fatbin fb; /* its entries, as a registered binary's */
    struct CUkern_st *kernels;
    size_t nkernels, kernels_cap;
    lib_var *vars;
    size_t nvars, vars_cap;
    struct CUlib_st *next; /* the live list */
};

/* ---------------------------------------------------------- the bytes */

/* Which reader a library's bytes are for: LIB_BAD, a container or cubin
 * whose headers do not hold; LIB_NONE, bytes that are not even PTX. */
typedef enum lib_kind { LIB_NONE, LIB_BAD, LIB_FATBIN, LIB_CUBIN, LIB_PTX } lib_kind;

/* The kind and size of the code at *pp, no more than `limit` bytes
 * (SIZE_MAX: as its headers say, as for cudaLibraryLoadData, where *pp
 * may also be the wrapper nvcc registers, then replaced by its
 * container). */
static lib_kind code_kind(const uint8_t **pp, size_t limit, size_t *size)
{
    const uint8_t *p = *pp;
    /* No image has a NUL in its magic: a shorter string is read no
     * further than its end. */
    if (limit == SIZE_MAX && strnlen((const char *)p, 4) < 4)
        limit = strlen((const char *)p) + 1;
    uint32_t magic = 0;
    if (limit >= 4)
        memcpy(&magic, p, 4);
    if (limit == SIZE_MAX && magic == SC_FB_WRAPPER_MAGIC) {
        const void *c = sc_fb_container(p);
        if (!c)
            return LIB_BAD;
        *pp = c; /* a container's magic: no further wrapper */
        return code_kind(pp, limit, size);
    }
    if (limit >= 16 && magic == SC_FB_MAGIC) {
        uint16_t hsize;
        uint64_t total;
        memcpy(&hsize, p + 6, 2);
        memcpy(&total, p + 8, 8);
        if (hsize < 16 || total > ((uint64_t)1 << 40) || total > limit - hsize)
            return LIB_BAD;
        *size = hsize + (size_t)total;
        return LIB_FATBIN;
    }
    if (limit >= 4 && memcmp(p, "\177ELF", 4) == 0) {
        *size = sc_fb_elf_size(p, limit);
        return *size && sc_fb_elf_arch(p, *size) ? LIB_CUBIN : LIB_BAD;
    }
    const char *nul =
        limit == SIZE_MAX ? (const char *)p + strlen((const char *)p) : memchr(p, '\0', limit);
    if (!nul)
        return LIB_NONE;
    *size = (size_t)(nul - (const char *)p) + 1;
    return strstr((const char *)p, ".version") ? LIB_PTX : LIB_NONE;
}

/* The library's entries: a container's, or one entry of a bare cubin or
 * PTX (for its .target, JIT-compiled for the device as a driver does). */
static int entries_make(struct CUlib_st *l, lib_kind kind)
{
    l->fb.cubin = l->image;
    l->fb.parsed = true;
    if (kind == LIB_FATBIN)
        return sc_fb_parse(l->image, &l->fb.fb);
    sc_fb_entry *e = calloc(1, sizeof *e);
    if (!e)
        return -ENOMEM;
    e->kind = kind == LIB_CUBIN ? SC_FB_ELF : SC_FB_PTX;
    if (kind == LIB_CUBIN)
        e->arch = sc_fb_elf_arch(l->image, l->size);
    else if (!(e->arch = sc_fb_ptx_target((const char *)l->image, l->size)))
        e->arch = sc_rt_dev_cc(); /* no target: whatever the device is */
    e->data = l->image;
    e->size = e->raw_size = l->size;
    l->fb.fb = (sc_fb){e, 1};
    return 0;
}

/* --------------------------------------------------- kernels, variables */

static int kernel_add(struct CUlib_st *l, const char *name)
{
    for (size_t i = 0; i < l->nkernels; i++)
        if (strcmp(l->kernels[i].mangled, name) == 0)
            return 0; /* the same kernel in another cubin */
    if (!sc_rt_grow((void **)&l->kernels, &l->kernels_cap, l->nkernels + 1, sizeof *l->kernels))
        return -ENOMEM;
    char *m = strdup(name);
    if (!m)
        return -ENOMEM;
    l->kernels[l->nkernels++] = (struct CUkern_st){m};
    return 0;
}

static const lib_var *var_named(const struct CUlib_st *l, const char *name)
{
    for (size_t i = 0; i < l->nvars; i++)
        if (strcmp(l->vars[i].name, name) == 0)
            return &l->vars[i];
    return NULL;
}

static int var_add(struct CUlib_st *l, const sc_fb_sym *s)
{
    if (var_named(l, s->name))
        return 0;
    if (s->size > ((size_t)1 << 32) ||
        !sc_rt_grow((void **)&l->vars, &l->vars_cap, l->nvars + 1, sizeof *l->vars))
        return -ENOMEM;
    lib_var v = {strdup(s->name), calloc(1, s->size ? (size_t)s->size : 1), (size_t)s->size,
                 s->managed};
    if (!v.name || !v.mem) {
        free(v.name);
        free(v.mem);
        return -ENOMEM;
    }
    if (s->init)
        memcpy(v.mem, s->init, v.size);
    l->vars[l->nvars++] = v;
    return 0;
}

static int sym_take(const sc_fb_sym *s, void *ctx)
{
    return s->kernel ? kernel_add(ctx, s->name) : var_add(ctx, s);
}

/* Every cubin's kernels and variables; PTX's entries only where no cubin
 * names any (their names are the same). */
static int symbols_read(struct CUlib_st *l)
{
    sc_fb *fb = &l->fb.fb;
    for (int pass = SC_FB_ELF; pass >= SC_FB_PTX && !l->nkernels; pass--) {
        for (size_t i = 0; i < fb->n; i++) {
            sc_fb_entry *e = &fb->e[i];
            size_t size;
            const uint8_t *b = e->kind == pass ? sc_fb_entry_bytes(e, &size) : NULL;
            if (!b)
                continue;
            int rc = pass == SC_FB_ELF ? sc_fb_elf_symbols(b, size, sym_take, l)
                                       : sc_fb_ptx_entries((const char *)b, size, sym_take, l);
            if (rc == -ENOMEM)
                return rc;
        }
    }
    return 0;
}

/* Kernels into the kernel table, variables into the allocation table. */
static cudaError_t library_publish(sc_rt_state *st, struct CUlib_st *l)
{
    for (size_t i = 0; i < l->nkernels; i++)
        if (!sc_rt_kernel_register(st, &l->kernels[i], l->kernels[i].mangled, &l->fb))
            return cudaErrorMemoryAllocation;
    for (size_t i = 0; i < l->nvars; i++) {
        const lib_var *v = &l->vars[i];
        cudaError_t e =
            sc_rt_alloc_add(st, v->mem, v->size, v->managed ? SC_RT_MEM_MANAGED : SC_RT_MEM_DEVICE,
                            v->managed ? cudaMemAttachGlobal : 0, false);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

/* Take everything back out of the tables and free the library. */
static void library_free(sc_rt_state *st, struct CUlib_st *l)
{
    for (size_t i = 0; i < l->nkernels; i++) {
        sc_rt_kernel_forget(st, &l->kernels[i]);
        free(l->kernels[i].mangled);
    }
    for (size_t i = 0; i < l->nvars; i++) {
        /* Only its own entry: a load that failed half-way added not all. */
        const sc_rt_alloc *a = sc_rt_alloc_find(st, l->vars[i].mem);
        if (a && a->base == (uintptr_t)l->vars[i].mem)
            sc_rt_alloc_drop(st, l->vars[i].mem);
        free(l->vars[i].name);
        free(l->vars[i].mem);
    }
    sc_fb_free(&l->fb.fb);
    free(l->kernels);
    free(l->vars);
    free(l->image);
    free(l);
}

/* A library of the code at p (limit: as for code_kind); lock held. */
static cudaError_t library_load(sc_rt_state *st, const void *code, size_t limit, cudaLibrary_t *out)
{
    size_t size = 0;
    const uint8_t *p = code;
    lib_kind kind = code_kind(&p, limit, &size);
    if (kind == LIB_NONE)
        return cudaErrorInvalidPtx; /* what is no image is taken for PTX */
    if (kind == LIB_BAD)
        return cudaErrorInvalidKernelImage;
    struct CUlib_st *l = calloc(1, sizeof *l);
    if (!l || !(l->image = malloc(size))) {
        free(l);
        return cudaErrorMemoryAllocation;
    }
    memcpy(l->image, p, size);
    l->size = size;
    int ptx, binary;
    cudaError_t e = cudaSuccess;
    if (entries_make(l, kind) != 0)
        e = kind == LIB_FATBIN ? cudaErrorInvalidKernelImage : cudaErrorMemoryAllocation;
    else if (sc_fb_versions(&l->fb.fb, sc_rt_dev_cc(), &ptx, &binary) != 0)
        e = cudaErrorNoKernelImageForDevice;
    else if (symbols_read(l) != 0)
        e = cudaErrorMemoryAllocation;
    else
        e = library_publish(st, l);
    if (e != cudaSuccess) {
        library_free(st, l);
        return e;
    }
    l->next = st->libraries;
    st->libraries = l;
    *out = l;
    return cudaSuccess;
}

/* A live library handle (lock held). */
static bool library_live(const sc_rt_state *st, const struct CUlib_st *l)
{
    for (const struct CUlib_st *x = st->libraries; x; x = x->next)
        if (x == l)
            return true;
    return false;
}

/* -------------------------------------------------------------- exports */

/* What both loads check before the bytes: options are accepted and have
 * no effect (there is no JIT compiler), but their arrays must be given. */
static cudaError_t options_ok(cudaLibrary_t *library, const void *code, void *jit, void *jitv,
                              unsigned int njit, void *lib, void *libv, unsigned int nlib)
{
    if (!library || !code || (njit && (!jit || !jitv)) || (nlib && (!lib || !libv)))
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

SC_RT_EXPORT cudaError_t cudaLibraryLoadData(cudaLibrary_t *library, const void *code,
                                             enum cudaJitOption *jitOptions,
                                             void **jitOptionsValues, unsigned int numJitOptions,
                                             enum cudaLibraryOption *libraryOptions,
                                             void **libraryOptionValues,
                                             unsigned int numLibraryOptions)
{
    SC_RT_ENTER();
    cudaError_t e = options_ok(library, code, jitOptions, jitOptionsValues, numJitOptions,
                               libraryOptions, libraryOptionValues, numLibraryOptions);
    if (e != cudaSuccess)
        SC_RT_RETURN(e);
    sc_rt_state *st = SC_RT_LOCK();
    SC_RT_RETURN(library_load(st, code, SIZE_MAX, library));
}

/* The whole file, malloc'd; NULL when it cannot be read. */
static uint8_t *file_read(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 1 << 16;
            uint8_t *nb = realloc(buf, nc + 1);
            if (!nb)
                break;
            buf = nb;
            cap = nc;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    bool ok = buf && !ferror(f) && feof(f);
    fclose(f);
    if (!ok) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0'; /* PTX read from a file needs no NUL of its own */
    *size = n + 1;
    return buf;
}

SC_RT_EXPORT cudaError_t cudaLibraryLoadFromFile(
    cudaLibrary_t *library, const char *fileName, enum cudaJitOption *jitOptions,
    void **jitOptionsValues, unsigned int numJitOptions, enum cudaLibraryOption *libraryOptions,
    void **libraryOptionValues, unsigned int numLibraryOptions)
{
    SC_RT_ENTER();
    cudaError_t e = options_ok(library, fileName, jitOptions, jitOptionsValues, numJitOptions,
                               libraryOptions, libraryOptionValues, numLibraryOptions);
    if (e != cudaSuccess)
        SC_RT_RETURN(e);
    size_t size = 0;
    uint8_t *bytes = file_read(fileName, &size);
    if (!bytes)
        SC_RT_RETURN(cudaErrorFileNotFound);
    sc_rt_state *st = SC_RT_LOCK();
    e = library_load(st, bytes, size, library);
    free(bytes);
    SC_RT_RETURN(e);
}

SC_RT_EXPORT cudaError_t cudaLibraryUnload(cudaLibrary_t library)
{
    SC_RT_ENTER();
    if (!library)
        SC_RT_RETURN(cudaErrorInvalidValue);
    sc_rt_state *st = SC_RT_LOCK();
    for (struct CUlib_st **p = &st->libraries; *p; p = &(*p)->next) {
        if (*p == library) {
            *p = library->next;
            library_free(st, library);
            SC_RT_RETURN(cudaSuccess);
        }
    }
    SC_RT_RETURN(cudaErrorInvalidResourceHandle);
}

/* The library of a call after its checks, NULL (and *e) when it is none. */
static struct CUlib_st *library_of(sc_rt_call *c, cudaLibrary_t l, cudaError_t *e)
{
    sc_rt_state *st = sc_rt_call_lock(c);
    if (library_live(st, l))
        return l;
    *e = l ? cudaErrorInvalidResourceHandle : cudaErrorInvalidValue;
    return NULL;
}

SC_RT_EXPORT cudaError_t cudaLibraryGetKernel(cudaKernel_t *pKernel, cudaLibrary_t library,
                                              const char *name)
{
    SC_RT_ENTER();
    if (!pKernel || !name)
        SC_RT_RETURN(cudaErrorInvalidValue);
    cudaError_t e = cudaSuccess;
    struct CUlib_st *l = library_of(SC_RT_CALL, library, &e);
    for (size_t i = 0; l && i < l->nkernels; i++) {
        if (strcmp(l->kernels[i].mangled, name) == 0) {
            *pKernel = &l->kernels[i];
            SC_RT_RETURN(cudaSuccess);
        }
    }
    SC_RT_RETURN(l ? cudaErrorSymbolNotFound : e);
}

SC_RT_EXPORT cudaError_t cudaLibraryGetKernelCount(unsigned int *count, cudaLibrary_t lib)
{
    SC_RT_ENTER();
    if (!count)
        SC_RT_RETURN(cudaErrorInvalidValue);
    cudaError_t e = cudaSuccess;
    struct CUlib_st *l = library_of(SC_RT_CALL, lib, &e);
    if (l)
        *count = (unsigned int)l->nkernels;
    SC_RT_RETURN(e);
}

SC_RT_EXPORT cudaError_t cudaLibraryEnumerateKernels(cudaKernel_t *kernels, unsigned int numKernels,
                                                     cudaLibrary_t lib)
{
    SC_RT_ENTER();
    if (!kernels && numKernels)
        SC_RT_RETURN(cudaErrorInvalidValue);
    cudaError_t e = cudaSuccess;
    struct CUlib_st *l = library_of(SC_RT_CALL, lib, &e);
    for (size_t i = 0; l && i < l->nkernels && i < numKernels; i++)
        kernels[i] = &l->kernels[i];
    SC_RT_RETURN(e);
}

/* A variable's address and size; `managed`: only a __managed__ one. */
static cudaError_t var_get(sc_rt_call *c, void **dptr, size_t *bytes, cudaLibrary_t library,
                           const char *name, bool managed)
{
    if ((!dptr && !bytes) || !name)
        return cudaErrorInvalidValue;
    cudaError_t e = cudaSuccess;
    struct CUlib_st *l = library_of(c, library, &e);
    if (!l)
        return e;
    const lib_var *v = var_named(l, name);
    if (!v || (managed && !v->managed))
        return cudaErrorSymbolNotFound;
    if (dptr)
        *dptr = v->mem;
    if (bytes)
        *bytes = v->size;
    return cudaSuccess;
}

SC_RT_EXPORT cudaError_t cudaLibraryGetGlobal(void **dptr, size_t *bytes, cudaLibrary_t library,
                                              const char *name)
{
    SC_RT_ENTER();
    SC_RT_RETURN(var_get(SC_RT_CALL, dptr, bytes, library, name, false));
}

SC_RT_EXPORT cudaError_t cudaLibraryGetManaged(void **dptr, size_t *bytes, cudaLibrary_t library,
                                               const char *name)
{
    SC_RT_ENTER();
    SC_RT_RETURN(var_get(SC_RT_CALL, dptr, bytes, library, name, true));
}

SC_RT_EXPORT cudaError_t cudaLibraryGetUnifiedFunction(void **fptr, cudaLibrary_t library,
                                                       const char *symbol)
{
    SC_RT_ENTER();
    if (!fptr || !symbol)
        SC_RT_RETURN(cudaErrorInvalidValue);
    cudaError_t e = cudaSuccess;
    if (library_of(SC_RT_CALL, library, &e))
        e = cudaErrorSymbolNotFound; /* the device has no unified function pointers */
    SC_RT_RETURN(e);
}
