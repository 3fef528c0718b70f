/*
 * graph_args.c - a kernel node's own copy of its argument values.  The
 * real runtime copies the values a launch or cudaGraphAddKernelNode is
 * given into the node, so the caller's locals may change or go out of
 * scope; cudaGraphKernelNodeGetParams then returns pointers into that
 * copy.  The copy needs the kernel's parameter layout, from its fat
 * binary (sc_rt_kernel_params); without one the caller's pointer is kept.
 */
#include <string.h>

#include "graph_int.h"

/* One block: the pointer array kernelParams is, then the values laid out
 * as the kernel's parameter buffer. */
static void **args_copy(const sc_fb_param *p, size_t n, void *const *args, size_t *bytes,
                        size_t *size)
{
    size_t buf = 0;
    for (size_t i = 0; i < n; i++)
        if (p[i].offset + p[i].size > buf)
            buf = p[i].offset + p[i].size;
    /* The values start 16-byte aligned, as a parameter buffer does: the
     * offsets keep each parameter's own alignment (a float4 at 16). */
    size_t head = ((n + 1) * sizeof(void *) + 15) & ~(size_t)15;
    void **block = malloc(head + buf + 1);
    if (block == NULL)
        return NULL;
    char *vals = (char *)block + head;
    memset(vals, 0, buf);
    for (size_t i = 0; i < n; i++) {
        if (args[i] != NULL)
            memcpy(vals + p[i].offset, args[i], p[i].size);
        block[i] = vals + p[i].offset;
    }
    block[n] = NULL;
    *bytes = head + buf;
    *size = buf;
    return block;
}

void sc_g_node_free_args(cudaGraphNode_t n)
{
    if (n->args_block != NULL && n->kernel_params == n->args_block)
        n->kernel_params = NULL;
    free(n->args_block);
    n->args_block = NULL;
    n->args_bytes = 0;
    n->args_size = 0;
}

cudaError_t sc_g_node_take_args(cudaGraphNode_t n, void **args)
{
    /* The new values are copied before the old block goes: a program that
     * reads a node's parameters and sets them again passes pointers into
     * that block. */
    n->d.args = NULL;
    const sc_fb_param *p;
    size_t np, bytes = 0, size = 0;
    void **block = NULL;
    if (args != NULL && sc_rt_kernel_params(n->d.func, &p, &np)) {
        block = args_copy(p, np, args, &bytes, &size);
        if (block == NULL)
            return cudaErrorMemoryAllocation;
    }
    sc_g_node_free_args(n);
    n->kernel_params = args;
    if (block != NULL) {
        n->args_block = block;
        n->args_bytes = bytes;
        n->args_size = size;
        n->kernel_params = block;
    }
    return cudaSuccess;
}

bool sc_g_node_copy_args(cudaGraphNode_t to, cudaGraphNode_t from)
{
    to->args_block = NULL;
    to->args_bytes = to->args_size = 0;
    if (from->args_block == NULL)
        return true;
    void **block = malloc(from->args_bytes + 1);
    if (block == NULL) {
        to->kernel_params = NULL;
        return false;
    }
    memcpy(block, from->args_block, from->args_bytes);
    /* Re-point the array into the new block. */
    char *base = (char *)block, *old = (char *)from->args_block;
    for (size_t i = 0; from->args_block[i] != NULL; i++)
        block[i] = base + ((char *)from->args_block[i] - old);
    to->args_block = block;
    to->args_bytes = from->args_bytes;
    to->args_size = from->args_size;
    to->kernel_params = block;
    return true;
}

const void *sc_rt_node_args(cudaGraphNode_t n, size_t *size)
{
    if (n->args_block == NULL)
        return NULL;
    *size = n->args_size;
    return (const char *)n->args_block + (n->args_bytes - n->args_size);
}
