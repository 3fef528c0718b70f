/*
 * cuda_host.c - the host calls of the cuda model that are not stream work
 * but may break captures (capture.host_call, docs/cuda-semantics.md §4.8),
 * and a thread's capture mode (capture.exchange_mode, §4.11).
 */
#include "cuda_internal.h"

/* ---- capture.host_call (§4.8) ---------------------------------------- */

/* Does an unsafe call from `thread` in mode `tm` break capture c? */
static bool forbids(const cu_capture *c, uint32_t thread, sc_cuda_mode tm)
{
    if (c->state != SC_CUDA_STATE_ACTIVE || tm == SC_CUDA_RELAXED)
        return false;
    if (c->thread == thread)
        return c->mode != SC_CUDA_RELAXED;
    return tm == SC_CUDA_GLOBAL && c->mode == SC_CUDA_GLOBAL;
}

/* Invalidating one capture does not change whether the call breaks
 * another, so one pass decides and invalidates. */
static int host_unsafe(sc_cuda *cu, const cu_ctx *ctx)
{
    sc_cuda_mode tm = cu_thread_mode(cu, ctx->thread);
    bool any = false;
    for (uint32_t i = 0; i < cu->nopen; i++)
        if (forbids(cu_cap(cu, cu->open[i]), ctx->thread, tm)) {
            cu_invalidate(cu, cu->open[i], ctx, SC_ECUDA_UNSUPPORTED);
            any = true;
        }
    return any ? SC_ECUDA_UNSUPPORTED : 0;
}

static int host_stream_sync(sc_cuda *cu, const cu_ctx *ctx)
{
    cu_stream *st = ctx->stream ? cu_find_stream(cu, ctx->stream) : NULL;
    cu_capture *c = cu_capture_of(cu, st);
    if (c && c->state == SC_CUDA_STATE_ACTIVE) {
        cu_invalidate(cu, st->capture, ctx, SC_ECUDA_UNSUPPORTED);
        return SC_ECUDA_UNSUPPORTED;
    }
    if (c)
        return SC_ECUDA_INVALIDATED;
    if (ctx->stream == 0 && cu->blocking_open)
        return cu_legacy_implicit(cu, ctx);
    return host_unsafe(cu, ctx);
}

static int host_device_sync(sc_cuda *cu, const cu_ctx *ctx)
{
    bool any = false;
    for (uint32_t i = 0; i < cu->nopen; i++)
        if (cu_cap(cu, cu->open[i])->state == SC_CUDA_STATE_ACTIVE) {
            cu_invalidate(cu, cu->open[i], ctx, SC_ECUDA_UNSUPPORTED);
            any = true;
        }
    return any ? SC_ECUDA_UNSUPPORTED : 0;
}

static int host_event_sync(sc_cuda *cu, const cu_ctx *ctx)
{
    const cu_event *ev = cu_find_event(cu, ctx->event);
    if (!ev || ev->state != CU_EV_CAPTURED)
        return host_unsafe(cu, ctx);
    if (cu_cap(cu, ev->capture)->state == SC_CUDA_STATE_ACTIVE)
        cu_invalidate(cu, ev->capture, ctx, SC_ECUDA_CAPTURED_EVENT);
    return SC_ECUDA_CAPTURED_EVENT;
}

int sc_cuda_host_call(sc_cuda *cu, sc_cuda_host kind, uint32_t stream, uint32_t event,
                      uint32_t thread)
{
    if (!cu)
        return SC_EINVAL;
    cu_ctx ctx = {.call = SC_CUDA_CALL_HOST_CALL, .host = kind, .thread = thread};
    cu->seq++;
    switch (kind) {
    case SC_CUDA_HOST_UNSAFE:
        return host_unsafe(cu, &ctx);
    case SC_CUDA_HOST_STREAM_SYNC:
        ctx.stream = stream;
        return host_stream_sync(cu, &ctx);
    case SC_CUDA_HOST_DEVICE_SYNC:
        return host_device_sync(cu, &ctx);
    case SC_CUDA_HOST_EVENT_SYNC:
        ctx.event = event;
        ctx.has_event = true;
        return host_event_sync(cu, &ctx);
    case SC_CUDA_HOST_LEGACY_SYNC:
        return cu->blocking_open ? cu_legacy_implicit(cu, &ctx) : 0;
    }
    return SC_EINVAL;
}

/* ---- capture.exchange_mode (§4.11) ----------------------------------- */

int sc_cuda_exchange_mode(sc_cuda *cu, uint32_t thread, sc_cuda_mode mode, sc_cuda_mode *prev_out)
{
    if (!cu || (unsigned)mode > SC_CUDA_RELAXED)
        return SC_EINVAL;
    cu->seq++;
    sc_cuda_mode prev = cu_thread_mode(cu, thread);
    int rc = sc_idmap_put(&cu->thread_mode, thread, (uint32_t)mode);
    if (rc != 0)
        return rc;
    if (prev_out)
        *prev_out = prev;
    return 0;
}
