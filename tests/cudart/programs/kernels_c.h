/*
 * kernels_c.h - the glue a plain C twin needs to launch "kernels" the way
 * nvcc's generated host code does: one fat binary registered at load time,
 * each kernel registered under its mangled device name against a host
 * address that stands for its stub, launches through cudaLaunchKernel.
 *
 * A program declares its kernels once:
 *
 *     SC_KERNEL(relu);               // the host handle, a distinct address
 *     SC_KERNELS({relu, "_Z4reluPfi"}, ...);
 *
 * and launches with sc_launch(relu, grid, block, shared, stream, args).
 */
#ifndef SC_KERNELS_C_H
#define SC_KERNELS_C_H

#include <stddef.h>

#include "sc_cudart.h"

typedef struct sc_kernel_reg {
    const char *host;    /* the address the launches name */
    const char *mangled; /* the device function's mangled name */
} sc_kernel_reg;

/* nvcc's __fatBinC_Wrapper_t; the stand-in does not read the image. */
typedef struct sc_fatbin_wrapper {
    int magic;
    int version;
    const unsigned long long *data;
    void *filename_or_fatbins;
} sc_fatbin_wrapper;

/* Data, not functions: identical empty stubs could be folded into one
 * address by the optimiser, and each kernel needs its own. */
#define SC_KERNEL(name)                                                                            \
    static char name##_handle_;                                                                    \
    static const char *const name = &name##_handle_

#define SC_KERNELS(...)                                                                            \
    static const unsigned long long sc_fatbin_image_[2] = {0, 0};                                  \
    static const sc_fatbin_wrapper sc_fatbin_ = {0x466243b1, 1, sc_fatbin_image_, NULL};           \
    static void **sc_fatbin_handle_;                                                               \
    __attribute__((constructor)) static void sc_register_kernels_(void)                            \
    {                                                                                              \
        static const sc_kernel_reg regs[] = {__VA_ARGS__};                                         \
        sc_fatbin_handle_ = __cudaRegisterFatBinary((void *)&sc_fatbin_);                          \
        for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)                                \
            __cudaRegisterFunction(sc_fatbin_handle_, regs[i].host, (char *)regs[i].mangled,       \
                                   regs[i].mangled, -1, NULL, NULL, NULL, NULL, NULL);             \
        __cudaRegisterFatBinaryEnd(sc_fatbin_handle_);                                             \
    }                                                                                              \
    __attribute__((destructor)) static void sc_unregister_kernels_(void)                           \
    {                                                                                              \
        __cudaUnregisterFatBinary(sc_fatbin_handle_);                                              \
    }

static inline dim3 sc_dim3(unsigned int x, unsigned int y, unsigned int z)
{
    dim3 d = {x, y, z};
    return d;
}

/** The <<<grid, block, shared, stream>>>(args) of a kernel. */
static inline cudaError_t sc_launch(const char *kernel, dim3 grid, dim3 block, size_t shared,
                                    cudaStream_t stream, void **args)
{
    return cudaLaunchKernel((const void *)kernel, grid, block, args, shared, stream);
}

#endif
