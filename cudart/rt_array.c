/*
 * rt_array.c - CUDA arrays and mipmapped arrays with host memory behind
 * them, and the copies to and from them.
 *
 * An array's elements lie row after row, layer after layer, with no
 * padding (its pitch is width times the element size), in memory the
 * allocation table knows as device memory, so that a copy's direction
 * resolves as CUDA's would.  Every copy that names an array is turned into
 * a pitched copy of that memory and goes the way of cudaMemcpy3D
 * (rt_pitched.c): done at once, or one memcpy node in a capture.  Textures
 * are not sampled (kernels do not run), so no layout but this one is
 * needed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "abi_array.h"
#include "rt_int.h"

#define SC_ARRAY_MAGIC  0x53434152u /* "SCAR" */
#define SC_MIPMAP_MAGIC 0x5343414du /* "SCAM" */
#define SC_ARRAY_ALIGN  256

struct cudaArray {
    uint32_t magic;
    struct cudaChannelFormatDesc desc;
    struct cudaExtent extent; /* as given, in elements */
    unsigned int flags;
    size_t elem, pitch, rows, layers;
    unsigned char *mem;
    bool level; /* a mipmapped array's level, freed with it */
};

struct cudaMipmappedArray {
    uint32_t magic;
    unsigned int n;
    struct cudaArray **levels;
};

static bool handle_known(const void *h)
{
    const sc_rt_state *st = sc_rt_state_get();
    for (size_t i = 0; h != NULL && i < st->narrays; i++)
        if (st->arrays[i] == h)
            return true;
    return false;
}

static bool handle_add(sc_rt_state *st, const void *h)
{
    if (!sc_rt_grow((void **)&st->arrays, &st->arrays_cap, st->narrays + 1, sizeof *st->arrays))
        return false;
    st->arrays[st->narrays++] = h;
    return true;
}

static void handle_drop(sc_rt_state *st, const void *h)
{
    for (size_t i = 0; i < st->narrays; i++)
        if (st->arrays[i] == h) {
            st->arrays[i] = st->arrays[--st->narrays];
            return;
        }
}

static bool array_ok(const struct cudaArray *a)
{
    return handle_known(a) && a->magic == SC_ARRAY_MAGIC;
}

static bool mipmap_ok(const struct cudaMipmappedArray *m)
{
    return handle_known(m) && m->magic == SC_MIPMAP_MAGIC;
}

/* 1, 2 or 4 components of 8, 16 or 32 bits, all alike, leading; float
 * ones of 16 or 32.  The element's bytes in *elem. */
static bool format_ok(const struct cudaChannelFormatDesc *d, size_t *elem)
{
    const int c[4] = {d->x, d->y, d->z, d->w};
    int n = 0;
    while (n < 4 && c[n] != 0)
        n++;
    for (int i = n; i < 4; i++)
        if (c[i] != 0)
            return false;
    if (n == 0 || n == 3 || (c[0] != 8 && c[0] != 16 && c[0] != 32))
        return false;
    for (int i = 1; i < n; i++)
        if (c[i] != c[0])
            return false;
    if (d->f == cudaChannelFormatKindFloat && c[0] == 8)
        return false;
    if (d->f != cudaChannelFormatKindSigned && d->f != cudaChannelFormatKindUnsigned &&
        d->f != cudaChannelFormatKindFloat)
        return false;
    *elem = (size_t)n * (size_t)c[0] / 8;
    return true;
}

static cudaError_t extent_ok(struct cudaExtent e, unsigned int flags)
{
    if (e.width == 0 || (e.height == 0 && e.depth != 0 && !(flags & cudaArrayLayered)))
        return cudaErrorInvalidValue;
    if (flags & ~(unsigned)(cudaArrayLayered | cudaArraySurfaceLoadStore | cudaArrayCubemap |
                            cudaArrayTextureGather))
        return cudaErrorInvalidValue;
    if ((flags & cudaArrayLayered) && e.depth == 0)
        return cudaErrorInvalidValue;
    if ((flags & cudaArrayCubemap) && (e.width != e.height || e.depth == 0 || e.depth % 6 != 0 ||
                                       (!(flags & cudaArrayLayered) && e.depth != 6)))
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

static void array_free(sc_rt_state *st, struct cudaArray *a)
{
    handle_drop(st, a);
    sc_rt_alloc_drop(st, a->mem);
    free(a->mem);
    a->magic = 0;
    free(a);
}

static cudaError_t array_new(sc_rt_state *st, const struct cudaChannelFormatDesc *desc,
                             struct cudaExtent e, unsigned int flags, struct cudaArray **out)
{
    size_t elem;
    if (!desc || !format_ok(desc, &elem))
        return cudaErrorInvalidChannelDescriptor;
    cudaError_t err = extent_ok(e, flags);
    if (err != cudaSuccess)
        return err;
    size_t rows = e.height ? e.height : 1, layers = e.depth ? e.depth : 1;
    if (e.width > SIZE_MAX / elem / rows / layers / 2)
        return cudaErrorMemoryAllocation;
    size_t bytes = e.width * elem * rows * layers;
    size_t rounded = (bytes + SC_ARRAY_ALIGN - 1) / SC_ARRAY_ALIGN * SC_ARRAY_ALIGN;
    struct cudaArray *a = calloc(1, sizeof *a);
    unsigned char *mem = a ? aligned_alloc(SC_ARRAY_ALIGN, rounded) : NULL;
    if (!mem || !handle_add(st, a)) {
        free(mem);
        free(a);
        return cudaErrorMemoryAllocation;
    }
    if (sc_rt_alloc_add(st, mem, bytes, SC_RT_MEM_DEVICE, 0, false) != cudaSuccess) {
        handle_drop(st, a);
        free(mem);
        free(a);
        return cudaErrorMemoryAllocation;
    }
    memset(mem, 0, rounded);
    *a = (struct cudaArray){SC_ARRAY_MAGIC, *desc, e,      flags, elem,
                            e.width * elem, rows,  layers, mem,   false};
    *out = a;
    return cudaSuccess;
}

/* Allocating and freeing are unsafe host calls, as cudaMalloc's. */
static cudaError_t array_alloc(sc_rt_call *c, cudaArray_t *out,
                               const struct cudaChannelFormatDesc *desc, struct cudaExtent e,
                               unsigned int flags, const char *call)
{
    if (!out)
        return cudaErrorInvalidValue;
    sc_rt_state *st = sc_rt_call_lock(c);
    cudaError_t err = sc_rt_host(st, SC_CUDA_HOST_UNSAFE, 0, 0, call);
    return err == cudaSuccess ? array_new(st, desc, e, flags, out) : err;
}

SC_RT_EXPORT struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                                enum cudaChannelFormatKind f)
{
    SC_RT_ENTER();
    struct cudaChannelFormatDesc d = {x, y, z, w, f};
    SC_RT_LEAVE();
    return d;
}

SC_RT_EXPORT cudaError_t cudaMallocArray(cudaArray_t *array,
                                         const struct cudaChannelFormatDesc *desc, size_t width,
                                         size_t height, unsigned int flags)
{
    SC_RT_ENTER();
    if (flags & (cudaArrayLayered | cudaArrayCubemap))
        SC_RT_RETURN(cudaErrorInvalidValue);
    struct cudaExtent e = {width, height, 0};
    SC_RT_RETURN(array_alloc(SC_RT_CALL, array, desc, e, flags, "cudaMallocArray"));
}

SC_RT_EXPORT cudaError_t cudaMalloc3DArray(cudaArray_t *array,
                                           const struct cudaChannelFormatDesc *desc,
                                           struct cudaExtent extent, unsigned int flags)
{
    SC_RT_ENTER();
    SC_RT_RETURN(array_alloc(SC_RT_CALL, array, desc, extent, flags, "cudaMalloc3DArray"));
}

SC_RT_EXPORT cudaError_t cudaFreeArray(cudaArray_t array)
{
    SC_RT_ENTER();
    sc_rt_state *st = SC_RT_LOCK();
    cudaError_t err = sc_rt_host(st, SC_CUDA_HOST_UNSAFE, 0, 0, "cudaFreeArray");
    if (err == cudaSuccess && array != NULL) {
        if (!array_ok(array) || array->level)
            err = cudaErrorInvalidValue;
        else
            array_free(st, array);
    }
    SC_RT_RETURN(err);
}

SC_RT_EXPORT cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc,
                                          struct cudaExtent *extent, unsigned int *flags,
                                          cudaArray_t array)
{
    SC_RT_ENTER();
    SC_RT_LOCK();
    if (!array_ok(array))
        SC_RT_RETURN(cudaErrorInvalidValue);
    if (desc)
        *desc = array->desc;
    if (extent)
        *extent = array->extent;
    if (flags)
        *flags = array->flags;
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc,
                                            cudaArray_const_t array)
{
    SC_RT_ENTER();
    SC_RT_LOCK();
    if (!desc || !array_ok(array))
        SC_RT_RETURN(cudaErrorInvalidValue);
    *desc = array->desc;
    SC_RT_RETURN(cudaSuccess);
}

/* ------------------------------------------------------ mipmapped arrays */

static size_t halve(size_t v, unsigned int times)
{
    if (v == 0)
        return 0;
    v >>= times;
    return v ? v : 1;
}

static void mipmap_free(sc_rt_state *st, struct cudaMipmappedArray *m)
{
    for (unsigned int i = 0; i < m->n; i++)
        if (m->levels[i])
            array_free(st, m->levels[i]);
    free(m->levels);
    handle_drop(st, m);
    m->magic = 0;
    free(m);
}

/* As many levels as asked for, down to 1x1x1 at most (CUDA clamps). */
static cudaError_t mipmap_new(sc_rt_state *st, const struct cudaChannelFormatDesc *desc,
                              struct cudaExtent e, unsigned int levels, unsigned int flags,
                              struct cudaMipmappedArray **out)
{
    if (levels == 0 || (flags & cudaArrayLayered))
        return cudaErrorInvalidValue;
    size_t big = e.width > e.height ? e.width : e.height;
    big = big > e.depth ? big : e.depth;
    unsigned int most = 1;
    while ((big >> most) > 0)
        most++;
    struct cudaMipmappedArray *m = calloc(1, sizeof *m);
    if (!m)
        return cudaErrorMemoryAllocation;
    if (!handle_add(st, m)) {
        free(m);
        return cudaErrorMemoryAllocation;
    }
    m->magic = SC_MIPMAP_MAGIC;
    m->n = levels < most ? levels : most;
    m->levels = calloc(m->n, sizeof *m->levels);
    cudaError_t err = m->levels ? cudaSuccess : cudaErrorMemoryAllocation;
    for (unsigned int i = 0; err == cudaSuccess && i < m->n; i++) {
        struct cudaExtent le = {halve(e.width, i), halve(e.height, i), halve(e.depth, i)};
        if (flags & cudaArrayCubemap)
            le.depth = e.depth;
        err = array_new(st, desc, le, flags, &m->levels[i]);
        if (err == cudaSuccess)
            m->levels[i]->level = true;
    }
    if (err != cudaSuccess) {
        mipmap_free(st, m);
        return err;
    }
    *out = m;
    return cudaSuccess;
}

SC_RT_EXPORT cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *mipmappedArray,
                                                  const struct cudaChannelFormatDesc *desc,
                                                  struct cudaExtent extent, unsigned int numLevels,
                                                  unsigned int flags)
{
    SC_RT_ENTER();
    if (!mipmappedArray)
        SC_RT_RETURN(cudaErrorInvalidValue);
    sc_rt_state *st = SC_RT_LOCK();
    cudaError_t err = sc_rt_host(st, SC_CUDA_HOST_UNSAFE, 0, 0, "cudaMallocMipmappedArray");
    if (err == cudaSuccess)
        err = mipmap_new(st, desc, extent, numLevels, flags, mipmappedArray);
    SC_RT_RETURN(err);
}

SC_RT_EXPORT cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t *levelArray,
                                                    cudaMipmappedArray_const_t mipmappedArray,
                                                    unsigned int level)
{
    SC_RT_ENTER();
    SC_RT_LOCK();
    if (!levelArray || !mipmap_ok(mipmappedArray) || level >= mipmappedArray->n)
        SC_RT_RETURN(cudaErrorInvalidValue);
    *levelArray = mipmappedArray->levels[level];
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t mipmappedArray)
{
    SC_RT_ENTER();
    sc_rt_state *st = SC_RT_LOCK();
    cudaError_t err = sc_rt_host(st, SC_CUDA_HOST_UNSAFE, 0, 0, "cudaFreeMipmappedArray");
    if (err == cudaSuccess && mipmappedArray != NULL) {
        if (!mipmap_ok(mipmappedArray))
            err = cudaErrorInvalidValue;
        else
            mipmap_free(st, mipmappedArray);
    }
    SC_RT_RETURN(err);
}

bool sc_rt_mipmap_valid(const struct cudaMipmappedArray *m)
{
    return mipmap_ok(m);
}

bool sc_rt_array_valid(const struct cudaArray *a)
{
    return array_ok(a);
}

unsigned int sc_rt_array_flags(const struct cudaArray *a)
{
    return a->flags;
}

bool sc_rt_channel_ok(const struct cudaChannelFormatDesc *d, size_t *elem)
{
    return format_ok(d, elem);
}

/* ----------------------------------------------------------------- copies */

/* One side of a cudaMemcpy3D-style copy (positions and width in elements)
 * made a pitched pointer to the array's memory. */
static cudaError_t flatten_side(cudaArray_t *a, struct cudaPos *pos, struct cudaPitchedPtr *ptr,
                                const struct cudaExtent *bytes)
{
    const struct cudaArray *x = *a;
    if (!array_ok(x))
        return cudaErrorInvalidValue;
    struct cudaPos p = {pos->x * x->elem, pos->y, pos->z};
    if (p.x + bytes->width > x->pitch || p.y + bytes->height > x->rows ||
        p.z + bytes->depth > x->layers)
        return cudaErrorInvalidValue;
    *ptr = (struct cudaPitchedPtr){x->mem, x->pitch, x->extent.width, x->rows};
    *pos = p;
    *a = NULL;
    return cudaSuccess;
}

cudaError_t sc_rt_copy3d_flatten(struct cudaMemcpy3DParms *p)
{
    if (!p->srcArray && !p->dstArray)
        return cudaSuccess;
    const struct cudaArray *s = p->srcArray, *d = p->dstArray;
    if ((s && !array_ok(s)) || (d && !array_ok(d)) || (s && d && s->elem != d->elem))
        return cudaErrorInvalidValue;
    struct cudaExtent e = p->extent;
    e.width *= s ? s->elem : d->elem;
    if (!e.width || !e.height || !e.depth)
        return cudaErrorInvalidValue;
    cudaError_t err = cudaSuccess;
    if (s)
        err = flatten_side(&p->srcArray, &p->srcPos, &p->srcPtr, &e);
    if (err == cudaSuccess && d)
        err = flatten_side(&p->dstArray, &p->dstPos, &p->dstPtr, &e);
    if (err == cudaSuccess)
        p->extent = e;
    return err;
}

/* A 2-D window of an array in bytes (the cudaMemcpy2D*Array calls). */
static cudaError_t window(cudaArray_const_t a, size_t woff, size_t hoff, size_t width,
                          size_t height, struct cudaPitchedPtr *ptr, struct cudaPos *pos)
{
    if (!array_ok(a))
        return cudaErrorInvalidValue;
    if (woff + width > a->pitch || hoff + height > a->rows)
        return cudaErrorInvalidValue;
    *ptr = (struct cudaPitchedPtr){a->mem, a->pitch, a->pitch, a->rows};
    *pos = (struct cudaPos){woff, hoff, 0};
    return cudaSuccess;
}

/* The bytes of an array from (woff, hoff) on, row after row (the
 * deprecated 1-D calls). */
static cudaError_t run(cudaArray_const_t a, size_t woff, size_t hoff, size_t count,
                       struct cudaPitchedPtr *ptr)
{
    if (!array_ok(a) || woff > a->pitch || hoff > a->rows * a->layers)
        return cudaErrorInvalidValue;
    size_t at = hoff * a->pitch + woff, total = a->pitch * a->rows * a->layers;
    if (at > total || count > total - at)
        return cudaErrorInvalidValue;
    *ptr = (struct cudaPitchedPtr){a->mem + at, count, count, 1};
    return cudaSuccess;
}

/* One side of a copy naming an array: the array at (woff, hoff), or
 * linear memory `p` with its pitch (the 1-D calls: the count). */
typedef struct side {
    cudaArray_const_t a;
    size_t woff, hoff;
    const void *p;
    size_t pitch;
} side;

#define SC_ARRAY_SIDE(arr, w, h) ((side){.a = (arr), .woff = (w), .hoff = (h)})
#define SC_LINEAR_SIDE(ptr, pt)  ((side){.p = (ptr), .pitch = (pt)})

/* A side as a pitched pointer and position, after the array's checks:
 * a window of width x height bytes (rows) or a run of width bytes. */
static cudaError_t side_resolve(const side *s, bool rows, size_t width, size_t height,
                                struct cudaPitchedPtr *ptr, struct cudaPos *pos)
{
    if (s->a && rows)
        return window(s->a, s->woff, s->hoff, width, height, ptr, pos);
    if (s->a)
        return run(s->a, s->woff, s->hoff, width, ptr);
    *ptr = (struct cudaPitchedPtr){(void *)(uintptr_t)s->p, s->pitch, width, height};
    return cudaSuccess;
}

/* How a copy is done: at once (sync), or as stream work. */
typedef struct how {
    bool async, per_thread;
    cudaStream_t stream;
    const char *call;
} how;

/* The one checking path of every copy naming an array: each side
 * resolved, then the copy as a cudaMemcpy3D of width x height bytes.
 * `rows`: the 2-D calls (windows of rows); else the deprecated 1-D ones
 * (a run of width bytes, height 1). */
static cudaError_t array_copy(sc_rt_call *c, side dst, side src, bool rows, size_t width,
                              size_t height, enum cudaMemcpyKind kind, how h)
{
    struct cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    cudaError_t err = side_resolve(&dst, rows, width, height, &p.dstPtr, &p.dstPos);
    if (err == cudaSuccess)
        err = side_resolve(&src, rows, width, height, &p.srcPtr, &p.srcPos);
    if (err != cudaSuccess)
        return err;
    p.extent = (struct cudaExtent){width, height, 1};
    p.kind = kind;
    return sc_rt_copy3d(c, &p, h.async, h.stream, h.per_thread, h.call);
}

/* The exports: each a synchronous form, its _ptds twin, an asynchronous
 * form and its _ptsz twin, all over array_copy. */
#define SC_SYNC(name)        ((how){false, false, NULL, #name})
#define SC_SYNC_PT(name)     ((how){false, true, NULL, #name})
#define SC_ASYNC(name, s)    ((how){true, false, (s), #name})
#define SC_ASYNC_PT(name, s) ((how){true, true, (s), #name})

/* The four flavours of a copy whose arguments are ARGS and whose
 * array_copy arguments (before the how) are PASS. */
#define SC_ARRAY_COPY_SYNC(name, ARGS, PASS)                                                       \
    SC_RT_EXPORT cudaError_t name(ARGS)                                                            \
    {                                                                                              \
        SC_RT_ENTER();                                                                             \
        SC_RT_RETURN(array_copy(SC_RT_CALL, PASS, SC_SYNC(name)));                                 \
    }                                                                                              \
    SC_RT_EXPORT cudaError_t name##_ptds(ARGS)                                                     \
    {                                                                                              \
        SC_RT_ENTER();                                                                             \
        SC_RT_RETURN(array_copy(SC_RT_CALL, PASS, SC_SYNC_PT(name)));                              \
    }
#define SC_ARRAY_COPY_ASYNC(name, ARGS, PASS)                                                      \
    SC_RT_EXPORT cudaError_t name(ARGS, cudaStream_t stream)                                       \
    {                                                                                              \
        SC_RT_ENTER();                                                                             \
        SC_RT_RETURN(array_copy(SC_RT_CALL, PASS, SC_ASYNC(name, stream)));                        \
    }                                                                                              \
    SC_RT_EXPORT cudaError_t name##_ptsz(ARGS, cudaStream_t stream)                                \
    {                                                                                              \
        SC_RT_ENTER();                                                                             \
        SC_RT_RETURN(array_copy(SC_RT_CALL, PASS, SC_ASYNC_PT(name, stream)));                     \
    }

/* The macros' arguments hold commas: each list is one macro of its own. */
#define SC_TO2D_ARGS                                                                               \
    cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch, size_t width, \
        size_t height, enum cudaMemcpyKind kind
#define SC_TO2D_PASS                                                                               \
    SC_ARRAY_SIDE(dst, wOffset, hOffset), SC_LINEAR_SIDE(src, spitch), true, width, height, kind

SC_ARRAY_COPY_SYNC(cudaMemcpy2DToArray, SC_TO2D_ARGS, SC_TO2D_PASS)
SC_ARRAY_COPY_ASYNC(cudaMemcpy2DToArrayAsync, SC_TO2D_ARGS, SC_TO2D_PASS)

#define SC_FROM2D_ARGS                                                                             \
    void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t width, \
        size_t height, enum cudaMemcpyKind kind
#define SC_FROM2D_PASS                                                                             \
    SC_LINEAR_SIDE(dst, dpitch), SC_ARRAY_SIDE(src, wOffset, hOffset), true, width, height, kind

SC_ARRAY_COPY_SYNC(cudaMemcpy2DFromArray, SC_FROM2D_ARGS, SC_FROM2D_PASS)
SC_ARRAY_COPY_ASYNC(cudaMemcpy2DFromArrayAsync, SC_FROM2D_ARGS, SC_FROM2D_PASS)

#define SC_A2A2D_ARGS                                                                              \
    cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst, cudaArray_const_t src,                  \
        size_t wOffsetSrc, size_t hOffsetSrc, size_t width, size_t height,                         \
        enum cudaMemcpyKind kind
#define SC_A2A2D_PASS                                                                              \
    SC_ARRAY_SIDE(dst, wOffsetDst, hOffsetDst), SC_ARRAY_SIDE(src, wOffsetSrc, hOffsetSrc), true,  \
        width, height, kind

SC_ARRAY_COPY_SYNC(cudaMemcpy2DArrayToArray, SC_A2A2D_ARGS, SC_A2A2D_PASS)

#define SC_TO1D_ARGS                                                                               \
    cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count,                \
        enum cudaMemcpyKind kind
#define SC_TO1D_PASS                                                                               \
    SC_ARRAY_SIDE(dst, wOffset, hOffset), SC_LINEAR_SIDE(src, count), false, count, 1, kind

SC_ARRAY_COPY_SYNC(cudaMemcpyToArray, SC_TO1D_ARGS, SC_TO1D_PASS)
SC_ARRAY_COPY_ASYNC(cudaMemcpyToArrayAsync, SC_TO1D_ARGS, SC_TO1D_PASS)

#define SC_FROM1D_ARGS                                                                             \
    void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count,                \
        enum cudaMemcpyKind kind
#define SC_FROM1D_PASS                                                                             \
    SC_LINEAR_SIDE(dst, count), SC_ARRAY_SIDE(src, wOffset, hOffset), false, count, 1, kind

SC_ARRAY_COPY_SYNC(cudaMemcpyFromArray, SC_FROM1D_ARGS, SC_FROM1D_PASS)
SC_ARRAY_COPY_ASYNC(cudaMemcpyFromArrayAsync, SC_FROM1D_ARGS, SC_FROM1D_PASS)

#define SC_A2A1D_ARGS                                                                              \
    cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst, cudaArray_const_t src,                  \
        size_t wOffsetSrc, size_t hOffsetSrc, size_t count, enum cudaMemcpyKind kind
#define SC_A2A1D_PASS                                                                              \
    SC_ARRAY_SIDE(dst, wOffsetDst, hOffsetDst), SC_ARRAY_SIDE(src, wOffsetSrc, hOffsetSrc), false, \
        count, 1, kind

SC_ARRAY_COPY_SYNC(cudaMemcpyArrayToArray, SC_A2A1D_ARGS, SC_A2A1D_PASS)
