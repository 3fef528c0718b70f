/*
 * rt_access.c - the buffer accesses the daemon is told of a node
 * (docs/analyses.md, "Buffer accesses"), for the race finder.
 *
 * Copies and sets touch known ranges.  A kernel's are guessed from its
 * arguments, since its code does not run: every parameter of pointer
 * size whose value points into a live allocation of the table (rt_mem.c:
 * cudaMalloc and its kin, managed and pinned memory, registered host
 * memory and __device__ variables) is taken to touch that whole
 * allocation, read only when the kernel's mangled name declares the
 * parameter a pointer or reference to const (mangle_params.c, read once
 * per kernel).  The lookup is the table's binary search, so a launch pays
 * O(log n) per pointer-sized argument.  Struct arguments larger than a
 * pointer are not searched for pointers, and a value that points into
 * nothing live (freed memory, a scalar) is no access.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_feed.h"

size_t sc_rt_kernel_access_room(const void *func)
{
    const sc_rt_kernel *k = sc_rt_kernel_layout(sc_rt_state_get(), func);
    return k && k->layout == 1 ? k->ptr_params : 0;
}

static int by_address(const void *a, const void *b)
{
    const sc_client_access *x = a, *y = b;
    return x->address < y->address ? -1 : x->address > y->address;
}

/* Equal ranges are the same allocation: read and read_write make
 * read_write. */
size_t sc_rt_accesses_merge(sc_client_access *acc, size_t n)
{
    if (n < 2)
        return n;
    qsort(acc, n, sizeof *acc, by_address);
    size_t k = 0;
    for (size_t i = 1; i < n; i++) {
        if (acc[i].address == acc[k].address)
            acc[k].mode |= acc[i].mode;
        else
            acc[++k] = acc[i];
    }
    return k + 1;
}

size_t sc_rt_kernel_accesses(const void *func, const uint8_t *vals, size_t size, void *const *args,
                             sc_client_access *out, size_t max)
{
    sc_rt_state *st = sc_rt_state_get();
    const sc_rt_kernel *kr = sc_rt_kernel_layout(st, func);
    if (!kr || kr->layout != 1)
        return 0;
    return sc_rt_layout_accesses(st, kr, vals, size, args, out, max);
}

size_t sc_rt_layout_accesses(const sc_rt_state *st, const sc_rt_kernel *kr, const uint8_t *vals,
                             size_t size, void *const *args, sc_client_access *out, size_t max)
{
    size_t k = 0;
    if (!vals && !args)
        return 0;
    const sc_fb_param *p = kr->params;
    const size_t np = kr->nparams;
    for (size_t i = 0; i < np && k < max; i++) {
        uint64_t v;
        if (p[i].size != sizeof v)
            continue;
        if (vals && p[i].offset + sizeof v <= size)
            memcpy(&v, vals + p[i].offset, sizeof v);
        else if (!vals && args[i])
            memcpy(&v, args[i], sizeof v);
        else
            continue;
        k += sc_rt_value_access(st, kr, i, v, &out[k]);
    }
    return sc_rt_accesses_merge(out, k);
}

size_t sc_rt_copy_accesses(const sc_rt_node_desc *d, sc_client_access out[2])
{
    size_t n = 0;
    if (d->type == cudaGraphNodeTypeMemcpy) {
        size_t src = d->src_span ? d->src_span : d->size;
        size_t dst = d->dst_span ? d->dst_span : d->size;
        if (d->src && src && d->size)
            out[n++] = (sc_client_access){(uintptr_t)d->src, src, SC_ACCESS_READ};
        if (d->dst && dst && d->size)
            out[n++] = (sc_client_access){(uintptr_t)d->dst, dst, SC_ACCESS_WRITE};
    } else if (d->type == cudaGraphNodeTypeMemset) {
        /* A 2-D set: from its first byte to the end of its last row. */
        size_t span = d->size;
        if (d->height > 1 && d->width && d->element_size)
            span = d->pitch * (d->height - 1) + d->width * d->element_size;
        if (d->dst && span)
            out[n++] = (sc_client_access){(uintptr_t)d->dst, span, SC_ACCESS_WRITE};
    }
    return n;
}

void sc_rt_feed_accesses(const sc_rt_node_desc *d, cudaGraphNode_t node, sc_client_node *out)
{
    size_t room = 2, size = 0;
    const uint8_t *vals = NULL;
    if (d->type == cudaGraphNodeTypeKernel) {
        /* The node's own copy of its values when it keeps one; a kernel
         * given no values is not asked for its layout (which would warn). */
        vals = node ? sc_rt_node_args(node, &size) : NULL;
        if (!vals && !d->args)
            return;
        room = sc_rt_kernel_access_room(d->func);
    } else if (d->type != cudaGraphNodeTypeMemcpy && d->type != cudaGraphNodeTypeMemset)
        return;
    sc_client_access *acc = room ? malloc(room * sizeof *acc) : NULL;
    if (!acc)
        return; /* sent without: a race through it goes unseen, nothing worse */
    size_t n;
    if (d->type == cudaGraphNodeTypeKernel)
        n = sc_rt_kernel_accesses(d->func, vals, size, vals ? NULL : d->args, acc, room);
    else
        n = sc_rt_copy_accesses(d, acc);
    if (n == 0) {
        free(acc);
        return;
    }
    out->accesses = acc;
    out->naccesses = n;
}
