/*
 * rt_launch.c - what nvcc's host code calls: fat binary and function
 * registration, the <<<>>> call configuration, kernel launches (recorded,
 * never run), and __device__ variables as host shadows.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_int.h"

/* ---------------------------------------------------------- kernel table */

static size_t slot_of(const void *stub, size_t cap)
{
    uintptr_t h = (uintptr_t)stub;
    h ^= h >> 17;
    h *= (uintptr_t)0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 7) & (cap - 1);
}

sc_rt_kernel *sc_rt_kernel_find(const sc_rt_state *st, const void *stub)
{
    if (!st->kernels_cap)
        return NULL;
    for (size_t i = slot_of(stub, st->kernels_cap);; i = (i + 1) & (st->kernels_cap - 1)) {
        sc_rt_kernel *k = &st->kernels[i];
        if (k->stub == stub)
            return k;
        if (!k->stub)
            return NULL;
    }
}

static int kernels_grow(sc_rt_state *st)
{
    size_t cap = st->kernels_cap ? st->kernels_cap * 2 : 64;
    sc_rt_kernel *k = calloc(cap, sizeof *k);
    if (!k)
        return -1;
    for (size_t i = 0; i < st->kernels_cap; i++) {
        sc_rt_kernel *o = &st->kernels[i];
        if (!o->stub)
            continue;
        size_t j = slot_of(o->stub, cap);
        while (k[j].stub)
            j = (j + 1) & (cap - 1);
        k[j] = *o;
    }
    free(st->kernels);
    st->kernels = k;
    st->kernels_cap = cap;
    st->kernels_gen++;
    return 0;
}

/* Insert or rename; the name is taken over.  NULL when out of memory. */
static sc_rt_kernel *kernel_put(sc_rt_state *st, const void *stub, char *name)
{
    sc_rt_kernel *k = sc_rt_kernel_find(st, stub);
    if (k) {
        /* The old name is not freed: records queued for the daemon may
         * still point at it (kernel names live as long as the process). */
        k->name = name;
        return k;
    }
    if ((st->nkernels + 1) * 2 > st->kernels_cap && kernels_grow(st) != 0) {
        free(name);
        return NULL;
    }
    size_t i = slot_of(stub, st->kernels_cap);
    while (st->kernels[i].stub)
        i = (i + 1) & (st->kernels_cap - 1);
    st->kernels[i] = (sc_rt_kernel){.stub = stub, .name = name};
    st->nkernels++;
    return &st->kernels[i];
}

void sc_rt_kernels_free(sc_rt_state *st)
{
    for (size_t i = 0; i < st->kernels_cap; i++) {
        free(st->kernels[i].name);
        free(st->kernels[i].mangled);
        free(st->kernels[i].params);
        free(st->kernels[i].ro);
    }
    free(st->kernels);
    st->kernels = NULL;
    st->kernels_cap = st->nkernels = 0;
    st->kernels_gen++;
}

const char *sc_rt_kernel_name(const void *func)
{
    sc_rt_state *st = sc_rt_state_get();
    sc_rt_kernel *k = sc_rt_kernel_find(st, func);
    if (k)
        return k->name;
    char buf[40];
    snprintf(buf, sizeof buf, "kernel@%p", func);
    char *name = strdup(buf);
    k = name ? kernel_put(st, func, name) : NULL;
    return k ? k->name : "kernel";
}

/* The C++ runtime's demangler, when the program has one loaded (every
 * nvcc-built program does); the stand-in itself needs no libstdc++. */
typedef char *(*sc_rt_demangle_fn)(const char *, char *, size_t *, int *);

/*
 * The C++ runtime's demangler: the program's own when it is a C++ program
 * (every nvcc-built one is), else libstdc++'s, loaded for it, so that a
 * kernel is stored under the same name whatever language registered it.
 * libstdc++ is on every Debian system; without it names stay mangled.  The
 * library is never unloaded: the function must stay valid.
 */
static void *demangler(void)
{
    void *sym = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (sym)
        return sym;
    void *lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
    return lib ? dlsym(lib, "__cxa_demangle") : NULL;
}

static char *demangle(const char *mangled)
{
    void *sym = mangled && mangled[0] == '_' && mangled[1] == 'Z' ? demangler() : NULL;
    if (sym) {
        sc_rt_demangle_fn fn;
        memcpy(&fn, &sym, sizeof fn);
        int status = -1;
        char *out = fn(mangled, NULL, NULL, &status);
        if (status == 0 && out)
            return out;
        free(out);
    }
    return strdup(mangled ? mangled : "kernel");
}

/* ---------------------------------------------------------- registration */

SC_RT_EXPORT void **__cudaRegisterFatBinary(void *fatCubin)
{
    /* The handle only has to be unique and stay valid: it is never freed,
     * so an unregister from a late destructor cannot touch freed memory,
     * and the state keeps it reachable, as a runtime keeps its modules. */
    SC_RT_ENTER();
    struct sc_rt_fatbin *f = malloc(sizeof *f);
    (void)sc_rt_state_get();
    if (!f) {
        SC_RT_LEAVE();
        return NULL;
    }
    memset(f, 0, sizeof *f);
    f->cubin = fatCubin;
    sc_rt_state *st = SC_RT_LOCK();
    f->next = st->fatbins;
    st->fatbins = f;
    SC_RT_LEAVE();
    return &f->cubin;
}

SC_RT_EXPORT void __cudaRegisterFatBinaryEnd(void **fatCubinHandle)
{
    (void)fatCubinHandle;
}

SC_RT_EXPORT void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
    /* Kernel names stay: the exit report may still run after this. */
    (void)fatCubinHandle;
}

SC_RT_EXPORT char __cudaInitModule(void **fatCubinHandle)
{
    (void)fatCubinHandle;
    return 1;
}

/* Forget what a kernel's binary said of it; its name stays, since records
 * queued for the daemon may point at it. */
static void kernel_clear(sc_rt_kernel *k)
{
    free(k->mangled);
    free(k->params);
    free(k->ro);
    k->mangled = NULL;
    k->params = NULL;
    k->ro = NULL;
    k->nparams = 0;
    k->fatbin = NULL;
    k->layout = 0;
    k->ptx = k->binary = 0;
}

sc_rt_kernel *sc_rt_kernel_register(sc_rt_state *st, const void *stub, const char *mangled,
                                    struct sc_rt_fatbin *fatbin)
{
    char *name = demangle(mangled);
    sc_rt_kernel *k = name ? kernel_put(st, stub, name) : NULL;
    if (!k || !fatbin || !mangled)
        return k;
    kernel_clear(k);
    k->mangled = strdup(mangled);
    k->fatbin = fatbin;
    return k;
}

void sc_rt_kernel_forget(sc_rt_state *st, const void *stub)
{
    sc_rt_kernel *k = sc_rt_kernel_find(st, stub);
    if (k)
        kernel_clear(k);
}

SC_RT_EXPORT void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun,
                                         char *deviceFun, const char *deviceName, int thread_limit,
                                         uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize)
{
    (void)thread_limit;
    (void)tid;
    (void)bid;
    (void)bDim;
    (void)gDim;
    (void)wSize;
    SC_RT_ENTER();
    sc_rt_state *st = SC_RT_LOCK();
    /* Only a handle __cudaRegisterFatBinary gave out is read later. */
    (void)sc_rt_kernel_register(st, hostFun, deviceName ? deviceName : deviceFun,
                                (struct sc_rt_fatbin *)(void *)fatCubinHandle);
    SC_RT_LEAVE();
}

static void var_add(sc_rt_state *st, void *host, size_t size)
{
    if (st->nvars == st->vars_cap) {
        size_t cap = st->vars_cap ? st->vars_cap * 2 : 16;
        sc_rt_var *v = realloc(st->vars, cap * sizeof *v);
        if (!v)
            return;
        st->vars = v;
        st->vars_cap = cap;
    }
    st->vars[st->nvars++] = (sc_rt_var){host, size};
    if (!sc_rt_alloc_find(st, host))
        (void)sc_rt_alloc_add(st, host, size, SC_RT_MEM_DEVICE, 0, false);
}

SC_RT_EXPORT void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                                    const char *deviceName, int ext, size_t size, int constant,
                                    int global)
{
    (void)fatCubinHandle;
    (void)deviceAddress;
    (void)deviceName;
    (void)ext;
    (void)constant;
    (void)global;
    SC_RT_ENTER();
    sc_rt_state *st = SC_RT_LOCK();
    var_add(st, hostVar, size);
    SC_RT_LEAVE();
}

SC_RT_EXPORT void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
                                           char *deviceAddress, const char *deviceName, int ext,
                                           size_t size, int constant, int global)
{
    (void)fatCubinHandle;
    (void)deviceAddress;
    (void)deviceName;
    (void)ext;
    (void)constant;
    (void)global;
    SC_RT_ENTER();
    if (!hostVarPtrAddress) {
        SC_RT_LEAVE();
        return;
    }
    sc_rt_state *st = SC_RT_LOCK();
    void *p = calloc(1, size ? size : 1);
    if (p && sc_rt_alloc_add(st, p, size, SC_RT_MEM_MANAGED, cudaMemAttachGlobal, true) == 0) {
        *hostVarPtrAddress = p;
    } else {
        free(p);
    }
    SC_RT_LEAVE();
}

static const sc_rt_var *var_find(const sc_rt_state *st, const void *symbol)
{
    for (size_t i = 0; i < st->nvars; i++)
        if (st->vars[i].host == symbol)
            return &st->vars[i];
    return NULL;
}

/* The address a symbol copy touches, after its checks. */
static cudaError_t symbol_at(sc_rt_call *c, const void *symbol, size_t count, size_t offset,
                             void **at)
{
    sc_rt_state *st = sc_rt_call_lock(c);
    const sc_rt_var *v = var_find(st, symbol);
    cudaError_t e = cudaSuccess;
    if (!v)
        e = cudaErrorInvalidSymbol;
    else if (offset > v->size || count > v->size - offset)
        e = cudaErrorInvalidValue;
    else
        *at = (char *)v->host + offset;
    sc_rt_call_unlock(c);
    return e;
}

cudaError_t sc_rt_symbol_range(const void *symbol, size_t count, size_t offset, void **at)
{
    sc_rt_call c = {"", false};
    return symbol_at(&c, symbol, count, offset, at); /* unlocks again */
}

/* The symbol copies and their per-thread-stream flavours (_ptds, _ptsz). */
static cudaError_t to_symbol(sc_rt_call *c, const void *symbol, const void *src, size_t count,
                             size_t offset, enum cudaMemcpyKind kind, bool ptsz)
{
    void *at = NULL;
    cudaError_t e = symbol_at(c, symbol, count, offset, &at);
    if (e == cudaSuccess && kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
        kind != cudaMemcpyDefault)
        e = cudaErrorInvalidMemcpyDirection;
    if (e != cudaSuccess)
        return e;
    return sc_rt_copy_sync(c, at, src, count, kind, ptsz, "cudaMemcpyToSymbol");
}

static cudaError_t from_symbol(sc_rt_call *c, void *dst, const void *symbol, size_t count,
                               size_t offset, enum cudaMemcpyKind kind, bool ptsz)
{
    void *at = NULL;
    cudaError_t e = symbol_at(c, symbol, count, offset, &at);
    if (e == cudaSuccess && kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
        kind != cudaMemcpyDefault)
        e = cudaErrorInvalidMemcpyDirection;
    if (e != cudaSuccess)
        return e;
    return sc_rt_copy_sync(c, dst, at, count, kind, ptsz, "cudaMemcpyFromSymbol");
}

static cudaError_t to_symbol_async(sc_rt_call *c, const void *symbol, const void *src, size_t count,
                                   size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream,
                                   bool ptsz)
{
    void *at = NULL;
    cudaError_t e = symbol_at(c, symbol, count, offset, &at);
    if (e != cudaSuccess)
        return e;
    return sc_rt_copy_async(c, at, src, count, kind, stream, ptsz, "cudaMemcpyToSymbolAsync");
}

static cudaError_t from_symbol_async(sc_rt_call *c, void *dst, const void *symbol, size_t count,
                                     size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream,
                                     bool ptsz)
{
    void *at = NULL;
    cudaError_t e = symbol_at(c, symbol, count, offset, &at);
    if (e != cudaSuccess)
        return e;
    return sc_rt_copy_async(c, dst, at, count, kind, stream, ptsz, "cudaMemcpyFromSymbolAsync");
}

SC_RT_EXPORT cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
                                            size_t offset, enum cudaMemcpyKind kind)
{
    SC_RT_ENTER();
    SC_RT_RETURN(to_symbol(SC_RT_CALL, symbol, src, count, offset, kind, false));
}

SC_RT_EXPORT cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count,
                                                 size_t offset, enum cudaMemcpyKind kind)
{
    SC_RT_ENTER();
    SC_RT_RETURN(to_symbol(SC_RT_CALL, symbol, src, count, offset, kind, true));
}

SC_RT_EXPORT cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count,
                                              size_t offset, enum cudaMemcpyKind kind)
{
    SC_RT_ENTER();
    SC_RT_RETURN(from_symbol(SC_RT_CALL, dst, symbol, count, offset, kind, false));
}

SC_RT_EXPORT cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count,
                                                   size_t offset, enum cudaMemcpyKind kind)
{
    SC_RT_ENTER();
    SC_RT_RETURN(from_symbol(SC_RT_CALL, dst, symbol, count, offset, kind, true));
}

SC_RT_EXPORT cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                                 size_t offset, enum cudaMemcpyKind kind,
                                                 cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(to_symbol_async(SC_RT_CALL, symbol, src, count, offset, kind, stream, false));
}

SC_RT_EXPORT cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src,
                                                      size_t count, size_t offset,
                                                      enum cudaMemcpyKind kind, cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(to_symbol_async(SC_RT_CALL, symbol, src, count, offset, kind, stream, true));
}

SC_RT_EXPORT cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
                                                   size_t offset, enum cudaMemcpyKind kind,
                                                   cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(from_symbol_async(SC_RT_CALL, dst, symbol, count, offset, kind, stream, false));
}

SC_RT_EXPORT cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count,
                                                        size_t offset, enum cudaMemcpyKind kind,
                                                        cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(from_symbol_async(SC_RT_CALL, dst, symbol, count, offset, kind, stream, true));
}

SC_RT_EXPORT cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol)
{
    SC_RT_ENTER();
    if (!devPtr)
        SC_RT_RETURN(cudaErrorInvalidValue);
    void *at = NULL;
    cudaError_t e = symbol_at(SC_RT_CALL, symbol, 0, 0, &at);
    if (e == cudaSuccess)
        *devPtr = at;
    SC_RT_RETURN(e);
}

SC_RT_EXPORT cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol)
{
    SC_RT_ENTER();
    if (!size)
        SC_RT_RETURN(cudaErrorInvalidValue);
    sc_rt_state *st = SC_RT_LOCK();
    const sc_rt_var *v = var_find(st, symbol);
    if (v)
        *size = v->size;
    SC_RT_RETURN(v ? cudaSuccess : cudaErrorInvalidSymbol);
}

/* --------------------------------------------------------------- launches */

static cudaError_t launch(sc_rt_call *c, const void *func, dim3 grid, dim3 block, size_t shared,
                          cudaStream_t s, bool ptsz, void **args)
{
    if (!func)
        return cudaErrorInvalidDeviceFunction;
    if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z ||
        (uint64_t)block.x * block.y * block.z > 1024 || block.z > 64 || grid.y > 65535 ||
        grid.z > 65535)
        return cudaErrorInvalidConfiguration;
    sc_rt_node_desc d;
    d.type = cudaGraphNodeTypeKernel;
    d.func = func;
    d.args = args;
    d.grid = grid;
    d.block = block;
    d.shared_mem = (unsigned int)shared;
    sc_rt_state *st = sc_rt_call_lock(c);
    cudaError_t e = sc_rt_issue_id(st, sc_rt_stream_id(st, s, ptsz), &d, "cudaLaunchKernel", NULL);
    return e;
}

SC_RT_EXPORT cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                          void **args, size_t sharedMem, cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(launch(SC_RT_CALL, func, gridDim, blockDim, sharedMem, stream, false, args));
}

SC_RT_EXPORT cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
                                               void **args, size_t sharedMem, cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(launch(SC_RT_CALL, func, gridDim, blockDim, sharedMem, stream, true, args));
}

SC_RT_EXPORT cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func,
                                             void **args)
{
    SC_RT_ENTER();
    if (!config || (config->numAttrs && !config->attrs))
        SC_RT_RETURN(cudaErrorInvalidValue);
    SC_RT_RETURN(launch(SC_RT_CALL, func, config->gridDim, config->blockDim,
                        config->dynamicSmemBytes, config->stream, false, args));
}

SC_RT_EXPORT cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config,
                                                  const void *func, void **args)
{
    SC_RT_ENTER();
    if (!config || (config->numAttrs && !config->attrs))
        SC_RT_RETURN(cudaErrorInvalidValue);
    SC_RT_RETURN(launch(SC_RT_CALL, func, config->gridDim, config->blockDim,
                        config->dynamicSmemBytes, config->stream, true, args));
}

SC_RT_EXPORT unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                                  struct CUstream_st *stream)
{
    sc_rt_thread *t = sc_rt_self();
    if (t->ncfg == sizeof t->cfg / sizeof *t->cfg)
        return 1; /* nvcc's stub then skips the launch */
    t->cfg[t->ncfg].grid = gridDim;
    t->cfg[t->ncfg].block = blockDim;
    t->cfg[t->ncfg].shared = sharedMem;
    t->cfg[t->ncfg].stream = stream;
    t->ncfg++;
    return 0;
}

SC_RT_EXPORT cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim,
                                                    size_t *sharedMem, void *stream)
{
    SC_RT_ENTER();
    sc_rt_thread *t = sc_rt_self();
    if (!t->ncfg)
        SC_RT_RETURN(cudaErrorMissingConfiguration);
    t->ncfg--;
    *gridDim = t->cfg[t->ncfg].grid;
    *blockDim = t->cfg[t->ncfg].block;
    *sharedMem = t->cfg[t->ncfg].shared;
    memcpy(stream, &t->cfg[t->ncfg].stream, sizeof(cudaStream_t));
    SC_RT_RETURN(cudaSuccess);
}

/* A kernel handle is the host stub itself: launches need nothing more. */
SC_RT_EXPORT cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *func)
{
    SC_RT_ENTER();
    if (!kernel || !func)
        SC_RT_RETURN(cudaErrorInvalidValue);
    *kernel = (cudaKernel_t)(uintptr_t)func;
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                            void **args, size_t sharedMem, cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(launch(SC_RT_CALL, (const void *)kernel, gridDim, blockDim, sharedMem, stream,
                        false, args));
}

SC_RT_EXPORT cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                                 void **args, size_t sharedMem, cudaStream_t stream)
{
    SC_RT_ENTER();
    SC_RT_RETURN(
        launch(SC_RT_CALL, (const void *)kernel, gridDim, blockDim, sharedMem, stream, true, args));
}

SC_RT_EXPORT cudaError_t cudaFuncGetName(const char **name, const void *func)
{
    SC_RT_ENTER();
    if (!name || !func)
        SC_RT_RETURN(cudaErrorInvalidValue);
    SC_RT_LOCK();
    *name = sc_rt_kernel_name(func);
    SC_RT_RETURN(cudaSuccess);
}
