/*
 * rt_fatbin.c - what the runtime takes from the registered fat binaries:
 * each kernel's parameter layout and the PTX and SASS versions a driver
 * would report for the emulated device.  A binary is read once, on the
 * first question about one of its kernels, so programs that never ask
 * (or never capture) pay nothing at load time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mangle_params.h"
#include "rt_int.h"

/* The entries of f, read once (lock held). */
static sc_fb *fatbin_entries(struct sc_rt_fatbin *f)
{
    if (!f->parsed) {
        f->parsed = true;
        const void *c = sc_fb_container(f->cubin);
        if (!c || sc_fb_parse(c, &f->fb) != 0)
            memset(&f->fb, 0, sizeof f->fb);
    }
    return &f->fb;
}

/* The layout of k from its binary; false when it carries none. */
static bool layout_read(sc_fb *fb, sc_rt_kernel *k)
{
    size_t n = 0;
    if (!k->mangled || sc_fb_params(fb, k->mangled, NULL, 0, &n) != 0)
        return false;
    sc_fb_param *p = n ? calloc(n, sizeof *p) : NULL;
    if (n && !p)
        return false;
    if (sc_fb_params(fb, k->mangled, p, n, &n) != 0) {
        free(p);
        return false;
    }
    k->params = p;
    k->nparams = n;
    for (size_t i = 0; i < n; i++) {
        k->arg_bytes += p[i].size;
        k->ptr_params += p[i].size == sizeof(uint64_t);
    }
    /* Read once here, not at each launch.  A name that disagrees with the
     * layout is not trusted at all: every pointer then counts written. */
    size_t got = 0;
    k->ro = n ? calloc(n, sizeof *k->ro) : NULL;
    if (k->ro && (sc_mangle_const_params(k->mangled, k->ro, n, &got) != 0 || got != n)) {
        free(k->ro);
        k->ro = NULL;
    }
    return true;
}

static void layout_warn(sc_rt_state *st, const sc_rt_kernel *k)
{
    if (st->layout_warned)
        return;
    st->layout_warned = true;
    fprintf(stderr,
            "streamcap: kernel %s: its fat binary carries no parameter layout; kernel nodes "
            "keep the caller's argument pointers (said once)\n",
            k->name ? k->name : "?");
}

const sc_rt_kernel *sc_rt_kernel_layout(sc_rt_state *st, const void *func)
{
    sc_rt_kernel *k = sc_rt_kernel_find(st, func);
    if (!k || k->layout != 0)
        return k;
    k->layout = -1;
    if (!k->fatbin)
        return k;
    sc_fb *fb = fatbin_entries(k->fatbin);
    if (sc_fb_versions(fb, sc_rt_dev_cc(), &k->ptx, &k->binary) != 0)
        k->ptx = k->binary = 0;
    if (layout_read(fb, k))
        k->layout = 1;
    else
        layout_warn(st, k);
    return k;
}

bool sc_rt_kernel_params(const void *func, const sc_fb_param **params, size_t *n)
{
    const bool *ro;
    return sc_rt_kernel_params_ro(func, params, n, &ro);
}

bool sc_rt_kernel_params_ro(const void *func, const sc_fb_param **params, size_t *n,
                            const bool **ro)
{
    const sc_rt_kernel *k = sc_rt_kernel_layout(sc_rt_state_get(), func);
    if (!k || k->layout != 1)
        return false;
    *params = k->params;
    *n = k->nparams;
    *ro = k->ro;
    return true;
}

SC_RT_EXPORT cudaError_t cudaFuncGetParamInfo(const void *func, size_t paramIndex,
                                              size_t *paramOffset, size_t *paramSize)
{
    SC_RT_ENTER();
    if (!func)
        SC_RT_RETURN(cudaErrorInvalidDeviceFunction);
    sc_rt_state *st = SC_RT_LOCK();
    const sc_rt_kernel *k = sc_rt_kernel_layout(st, func);
    if (!k)
        SC_RT_RETURN(cudaErrorInvalidDeviceFunction);
    if (k->layout != 1)
        SC_RT_RETURN(cudaErrorNotSupported);
    if (paramIndex >= k->nparams)
        SC_RT_RETURN(cudaErrorInvalidValue);
    if (paramOffset)
        *paramOffset = k->params[paramIndex].offset;
    if (paramSize)
        *paramSize = k->params[paramIndex].size;
    SC_RT_RETURN(cudaSuccess);
}
