/*
 * test_cuda.c - one test per rule of docs/cuda-semantics.md, each named
 * after its section.  Tests marked "unconfirmed" pin a choice the spec
 * makes where CUDA's documentation is silent: changing one of them must be
 * a visible edit here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sc_cuda.h"

#define NONE SC_CUDA_NO_NODE

static sc_cuda *fresh(void)
{
    sc_cuda *cu = NULL;
    assert_int_equal(sc_cuda_create(&cu), 0);
    return cu;
}

static uint32_t begin(sc_cuda *cu, uint32_t s, sc_cuda_mode mode, uint32_t thread)
{
    uint32_t id = 0;
    assert_int_equal(sc_cuda_begin(cu, s, mode, thread, &id), 0);
    return id;
}

static int kernel(sc_cuda *cu, uint32_t s, uint32_t *node)
{
    sc_node n = {.kind = SC_KIND_KERNEL, .name = "k", .name_len = 1, .num_blocks = 1};
    return sc_cuda_record(cu, s, 0, &n, node);
}

static uint32_t must_kernel(sc_cuda *cu, uint32_t s)
{
    uint32_t id = 12345;
    assert_int_equal(kernel(cu, s, &id), 0);
    return id;
}

static int rec_ev(sc_cuda *cu, uint32_t s, uint32_t e)
{
    uint32_t node;
    return sc_cuda_record_event(cu, s, 0, e, false, &node);
}

static int wait_ev(sc_cuda *cu, uint32_t s, uint32_t e)
{
    uint32_t node;
    return sc_cuda_wait_event(cu, s, 0, e, false, &node);
}

static sc_cuda_status status(sc_cuda *cu, uint32_t s)
{
    sc_cuda_info info;
    assert_int_equal(sc_cuda_info_get(cu, s, 0, &info), 0);
    return info.status;
}

static sc_cuda_state cap_state(sc_cuda *cu, uint32_t capture)
{
    sc_cuda_capture_info ci;
    assert_int_equal(sc_cuda_capture_get(cu, capture, &ci), 0);
    return ci.state;
}

/* The stream's dependency set, as "a,b,c" ("" when empty). */
static void assert_deps(sc_cuda *cu, uint32_t s, const uint32_t *want, uint32_t n)
{
    sc_cuda_info info;
    assert_int_equal(sc_cuda_info_get(cu, s, 0, &info), 0);
    assert_int_equal(info.status, SC_CUDA_STATUS_ACTIVE);
    assert_int_equal(info.ndeps, n);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(info.deps[i], want[i]);
}

static int end(sc_cuda *cu, uint32_t s, uint32_t thread, sc_cuda_end_result *res)
{
    return sc_cuda_end(cu, s, thread, res);
}

static void end_ok(sc_cuda *cu, uint32_t s, uint32_t nodes, uint64_t edges)
{
    sc_cuda_end_result res;
    assert_int_equal(end(cu, s, 0, &res), 0);
    assert_non_null(res.graph);
    assert_int_equal(sc_graph_node_count(res.graph), nodes);
    assert_int_equal(sc_graph_edge_count(res.graph), edges);
    sc_cuda_end_free(&res);
}

/* ---- §2 errors ---------------------------------------------------------- */

static void t2_error_numbers_names_strings(void **state)
{
    (void)state;
    static const struct {
        int code, number;
        const char *name;
    } rows[] = {
        {SC_ECUDA_INVALID_VALUE, 1, "cudaErrorInvalidValue"},
        {SC_ECUDA_ILLEGAL_STATE, 401, "cudaErrorIllegalState"},
        {SC_ECUDA_UNSUPPORTED, 900, "cudaErrorStreamCaptureUnsupported"},
        {SC_ECUDA_INVALIDATED, 901, "cudaErrorStreamCaptureInvalidated"},
        {SC_ECUDA_MERGE, 902, "cudaErrorStreamCaptureMerge"},
        {SC_ECUDA_UNMATCHED, 903, "cudaErrorStreamCaptureUnmatched"},
        {SC_ECUDA_UNJOINED, 904, "cudaErrorStreamCaptureUnjoined"},
        {SC_ECUDA_ISOLATION, 905, "cudaErrorStreamCaptureIsolation"},
        {SC_ECUDA_IMPLICIT, 906, "cudaErrorStreamCaptureImplicit"},
        {SC_ECUDA_CAPTURED_EVENT, 907, "cudaErrorCapturedEvent"},
        {SC_ECUDA_WRONG_THREAD, 908, "cudaErrorStreamCaptureWrongThread"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        assert_int_equal(sc_cuda_error_number(rows[i].code), rows[i].number);
        assert_string_equal(sc_cuda_error_name(rows[i].code), rows[i].name);
        assert_int_equal(sc_cuda_error_from_number(rows[i].number), rows[i].code);
        assert_non_null(sc_cuda_error_string(rows[i].code));
    }
    assert_string_equal(sc_cuda_error_string(SC_ECUDA_UNJOINED),
                        "capturing stream has unjoined work");
    assert_string_equal(sc_cuda_error_string(SC_ECUDA_UNSUPPORTED),
                        "operation not permitted when stream is capturing");
    /* sc_error_message gives CUDA's text; sc_error_name leaves them to
     * sc_cuda_error_name, so the default mode's list of codes stays as it was */
    char buf[128];
    sc_error_message(SC_ECUDA_MERGE, 3, buf, sizeof buf);
    assert_string_equal(buf, "operation would result in a merge of separate capture sequences");
    assert_string_equal(sc_error_name(SC_ECUDA_MERGE), "EUNKNOWN");
    assert_int_equal(sc_cuda_error_number(SC_ENOMEM), 0);
    assert_null(sc_cuda_error_name(SC_EINVAL));
    assert_int_equal(sc_cuda_error_from_number(0), 0);
    assert_int_equal(sc_cuda_error_from_number(2), SC_EINVAL);
}

/* ---- §4.1 stream.create --------------------------------------------------- */

static void t41_stream_create(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    assert_int_equal(sc_cuda_stream_create(cu, 0, false), SC_ECUDA_INVALID_VALUE);
    assert_int_equal(sc_cuda_stream_create(cu, 1, true), 0);
    assert_int_equal(sc_cuda_stream_create(cu, 1, true), 0);
    assert_int_equal(sc_cuda_stream_create(cu, 1, false), SC_ECUDA_INVALID_VALUE);
    /* a stream used before stream.create may still get its flags (choice) */
    begin(cu, 2, SC_CUDA_GLOBAL, 0);
    assert_int_equal(sc_cuda_stream_create(cu, 2, true), SC_ECUDA_ILLEGAL_STATE);
    assert_int_equal(sc_cuda_stream_create(cu, 2, false), 0);
    assert_int_equal(status(cu, 2), SC_CUDA_STATUS_ACTIVE);
    sc_cuda_destroy(cu);
}

static void t41_non_blocking_capture_is_not_blocking(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    assert_int_equal(sc_cuda_stream_create(cu, 1, true), 0);
    uint32_t c = begin(cu, 1, SC_CUDA_GLOBAL, 0), node = 0;
    assert_int_equal(kernel(cu, 0, &node), 0);
    assert_int_equal(node, NONE);
    assert_int_equal(sc_cuda_host_call(cu, SC_CUDA_HOST_LEGACY_SYNC, 0, 0, 0), 0);
    assert_int_equal(cap_state(cu, c), SC_CUDA_STATE_ACTIVE);
    sc_cuda_destroy(cu);
}

/* ---- §4.2 capture.begin ---------------------------------------------------- */

static void t42_begin(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    uint32_t id = 7;
    assert_int_equal(sc_cuda_begin(cu, 0, SC_CUDA_GLOBAL, 0, &id), SC_ECUDA_UNSUPPORTED);
    assert_int_equal(id, 7);
    assert_int_equal(sc_cuda_capture_count(cu), 0);
    assert_int_equal(begin(cu, 1, SC_CUDA_GLOBAL, 0), 1);
    assert_int_equal(sc_cuda_begin(cu, 1, SC_CUDA_GLOBAL, 0, &id), SC_ECUDA_ILLEGAL_STATE);
    assert_int_equal(cap_state(cu, 1), SC_CUDA_STATE_ACTIVE);
    assert_int_equal(begin(cu, 2, SC_CUDA_RELAXED, 3), 2);
    sc_cuda_capture_info ci;
    assert_int_equal(sc_cuda_capture_get(cu, 2, &ci), 0);
    assert_int_equal(ci.origin, 2);
    assert_int_equal(ci.mode, SC_CUDA_RELAXED);
    assert_int_equal(ci.thread, 3);
    assert_int_equal(sc_cuda_capture_get(cu, 3, &ci), SC_ENOTFOUND);
    /* a joined (not origin) stream cannot begin either, nor an invalidated one */
    assert_int_equal(rec_ev(cu, 1, 0), 0);
    assert_int_equal(wait_ev(cu, 5, 0), 0);
    assert_int_equal(sc_cuda_begin(cu, 5, SC_CUDA_GLOBAL, 0, &id), SC_ECUDA_ILLEGAL_STATE);
    assert_int_equal(sc_cuda_host_call(cu, SC_CUDA_HOST_STREAM_SYNC, 1, 0, 0),
                     SC_ECUDA_UNSUPPORTED);
    assert_int_equal(sc_cuda_begin(cu, 1, SC_CUDA_GLOBAL, 0, &id), SC_ECUDA_ILLEGAL_STATE);
    sc_cuda_destroy(cu);
}

/* ---- §4.3 record ops ------------------------------------------------------- */

static void t43_record_outside_capture_is_no_node(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    uint32_t node = 0;
    assert_int_equal(kernel(cu, 4, &node), 0);
    assert_int_equal(node, NONE);
    assert_int_equal(kernel(cu, 0, &node), 0);
    assert_int_equal(node, NONE);
    sc_cuda_destroy(cu);
}

static void t43_record_chains_on_the_set(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    begin(cu, 1, SC_CUDA_GLOBAL, 0);
    assert_int_equal(must_kernel(cu, 1), 0);
    assert_deps(cu, 1, (uint32_t[]){0}, 1);
    assert_int_equal(must_kernel(cu, 1), 1);
    assert_deps(cu, 1, (uint32_t[]){1}, 1);
    end_ok(cu, 1, 2, 1);
    sc_cuda_destroy(cu);
}

static void t43_legacy_record_invalidates_blocking_captures(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    assert_int_equal(sc_cuda_stream_create(cu, 2, true), 0);
    uint32_t a = begin(cu, 1, SC_CUDA_GLOBAL, 0), b = begin(cu, 2, SC_CUDA_GLOBAL, 0);
    uint32_t node = 0;
    assert_int_equal(kernel(cu, 0, &node), SC_ECUDA_IMPLICIT);
    assert_int_equal(cap_state(cu, a), SC_CUDA_STATE_INVALIDATED);
    assert_int_equal(cap_state(cu, b), SC_CUDA_STATE_ACTIVE);
    assert_int_equal(kernel(cu, 1, &node), SC_ECUDA_INVALIDATED);
    sc_cuda_capture_info ci;
    assert_int_equal(sc_cuda_capture_get(cu, a, &ci), 0);
    assert_true(ci.invalidated);
    assert_int_equal(ci.why.call, SC_CUDA_CALL_RECORD_KERNEL);
    assert_int_equal(ci.why.stream, 0);
    assert_int_equal(ci.why.error, SC_ECUDA_IMPLICIT);
    sc_cuda_destroy(cu);
}

static void t43_3d_kernel_kept_in_graph(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    begin(cu, 1, SC_CUDA_GLOBAL, 0);
    sc_node k = {.kind = SC_KIND_KERNEL,
                 .name = "conv",
                 .name_len = 4,
                 .num_blocks = 8,
                 .grid_y = 4,
                 .grid_z = 2,
                 .threads_per_block = 16,
                 .block_y = 16,
                 .shared_mem = 128};
    uint32_t id;
    assert_int_equal(sc_cuda_record(cu, 1, 0, &k, &id), 0);
    sc_node m = {
        .kind = (sc_node_kind)SC_KIND_MEM_ALLOC, .name = "a", .name_len = 1, .size_bytes = 64};
    assert_int_equal(sc_cuda_record(cu, 1, 0, &m, &id), 0);
    k.grid_y = k.grid_z = k.block_y = 0;
    assert_int_equal(sc_cuda_record(cu, 1, 0, &k, &id), 0);
    sc_cuda_end_result res;
    assert_int_equal(end(cu, 1, 0, &res), 0);
    sc_node n;
    assert_int_equal(sc_graph_node(res.graph, 0, &n), 0);
    assert_int_equal(n.num_blocks, 8);
    assert_int_equal(n.grid_y, 4);
    assert_int_equal(n.grid_z, 2);
    assert_int_equal(n.threads_per_block, 16);
    assert_int_equal(n.block_y, 16);
    assert_int_equal(n.block_z, 1);
    assert_int_equal(n.shared_mem, 128);
    assert_int_equal(sc_graph_node(res.graph, 1, &n), 0);
    assert_string_equal(sc_cuda_kind_name((int)n.kind), "mem_alloc");
    assert_int_equal(n.size_bytes, 64);
    assert_int_equal(sc_graph_node(res.graph, 2, &n), 0);
    assert_int_equal(n.grid_y, 1);
    assert_int_equal(n.grid_z, 1);
    sc_cuda_end_free(&res);
    /* a record op takes only the record kinds */
    begin(cu, 1, SC_CUDA_GLOBAL, 0);
    sc_node e = {.kind = (sc_node_kind)SC_KIND_EMPTY, .name = ""};
    assert_int_equal(sc_cuda_record(cu, 1, 0, &e, &id), SC_EINVAL);
    sc_cuda_destroy(cu);
}

/* ---- §4.4 capture.record_event ------------------------------------------- */

static void t44_record_event(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    uint32_t node = 0;
    assert_int_equal(sc_cuda_record_event(cu, 3, 0, 0, true, &node), SC_ECUDA_INVALID_VALUE);
    assert_int_equal(rec_ev(cu, 3, 0), 0); /* outside capture */
    begin(cu, 1, SC_CUDA_GLOBAL, 0);
    /* an event recorded on an empty set carries the empty set: a join, no edge */
    assert_int_equal(rec_ev(cu, 1, 1), 0);
    assert_int_equal(wait_ev(cu, 2, 1), 0);
    assert_deps(cu, 2, NULL, 0);
    assert_int_equal(must_kernel(cu, 1), 0);
    assert_int_equal(sc_cuda_record_event(cu, 1, 0, 2, true, &node), 0);
    assert_int_equal(node, 1);
    assert_deps(cu, 1, (uint32_t[]){1}, 1);
    assert_int_equal(wait_ev(cu, 2, 2), 0);
    assert_deps(cu, 2, (uint32_t[]){1}, 1);
    /* a non-external record gives no node */
    assert_int_equal(sc_cuda_record_event(cu, 1, 0, 3, false, &node), 0);
    assert_int_equal(node, NONE);
    sc_cuda_destroy(cu);
}

/* ---- §4.5 capture.wait_event ----------------------------------------------- */

static void t45_join_by_waiting_and_fork_join(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    begin(cu, 1, SC_CUDA_GLOBAL, 0);
    must_kernel(cu, 1);
    assert_int_equal(rec_ev(cu, 1, 0), 0);
    assert_int_equal(status(cu, 2), SC_CUDA_STATUS_NONE);
    assert_int_equal(wait_ev(cu, 2, 0), 0);
    assert_int_equal(status(cu, 2), SC_CUDA_STATUS_ACTIVE);
    assert_deps(cu, 2, (uint32_t[]){0}, 1);
    assert_int_equal(must_kernel(cu, 2), 1);
    assert_int_equal(rec_ev(cu, 2, 1), 0);
    assert_int_equal(wait_ev(cu, 1, 1), 0);
    assert_deps(cu, 1, (uint32_t[]){0, 1}, 2);
    assert_int_equal(must_kernel(cu, 1), 2);
    end_ok(cu, 1, 3, 3);
    /* every member left with the end */
    assert_int_equal(status(cu, 2), SC_CUDA_STATUS_NONE);
    sc_cuda_destroy(cu);
}

static void t45_event_is_a_snapshot(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    begin(cu, 1, SC_CUDA_GLOBAL, 0);
    must_kernel(cu, 1);
    assert_int_equal(rec_ev(cu, 1, 0), 0);
    must_kernel(cu, 1);
    assert_int_equal(wait_ev(cu, 2, 0), 0);
    assert_deps(cu, 2, (uint32_t[]){0}, 1);
    sc_cuda_destroy(cu);
}

static void t45_external_wait_appends_a_node(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    uint32_t node = 0;
    assert_int_equal(sc_cuda_wait_event(cu, 3, 0, 9, true, &node), SC_ECUDA_INVALID_VALUE);
    begin(cu, 1, SC_CUDA_GLOBAL, 0);
    must_kernel(cu, 1);
    assert_int_equal(sc_cuda_wait_event(cu, 1, 0, 9, true, &node), 0); /* never recorded */
    assert_int_equal(node, 1);
    assert_deps(cu, 1, (uint32_t[]){1}, 1);
    sc_cuda_end_result res;
    assert_int_equal(end(cu, 1, 0, &res), 0);
    sc_node n;
    assert_int_equal(sc_graph_node(res.graph, 1, &n), 0);
    assert_string_equal(sc_cuda_kind_name((int)n.kind), "event_wait");
    assert_int_equal(n.event, 9);
    sc_cuda_end_free(&res);
    sc_cuda_destroy(cu);
}

static void t45_merge_invalidates_both(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    uint32_t a = begin(cu, 1, SC_CUDA_GLOBAL, 0), b = begin(cu, 2, SC_CUDA_GLOBAL, 0);
    must_kernel(cu, 2);
    assert_int_equal(rec_ev(cu, 2, 0), 0);
    assert_int_equal(wait_ev(cu, 1, 0), SC_ECUDA_MERGE);
    assert_int_equal(cap_state(cu, a), SC_CUDA_STATE_INVALIDATED);
    assert_int_equal(cap_state(cu, b), SC_CUDA_STATE_INVALIDATED);
    sc_cuda_destroy(cu);
}

static void t45_isolation_on_uncaptured_event(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    assert_int_equal(rec_ev(cu, 5, 0), 0);
    uint32_t a = begin(cu, 1, SC_CUDA_GLOBAL, 0);
    must_kernel(cu, 1);
    assert_int_equal(wait_ev(cu, 1, 0), SC_ECUDA_ISOLATION);
    assert_int_equal(cap_state(cu, a), SC_CUDA_STATE_INVALIDATED);
    /* a failed call changes nothing but the invalidation: the set is intact */
    sc_cuda_info info;
    assert_int_equal(sc_cuda_info_get(cu, 1, 0, &info), 0);
    assert_int_equal(info.status, SC_CUDA_STATUS_INVALIDATED);
    assert_int_equal(info.ndeps, 0); /* only active captures report a set */
    sc_cuda_destroy(cu);
}

/* unconfirmed: an event captured in an ended capture isolates (905, not 902) */
static void t45_unconfirmed_ended_capture_event_is_isolation(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    begin(cu, 1, SC_CUDA_GLOBAL, 0);
    must_kernel(cu, 1);
    assert_int_equal(rec_ev(cu, 1, 0), 0);
    end_ok(cu, 1, 1, 0);
    /* outside capture, it is no effect */
    assert_int_equal(wait_ev(cu, 3, 0), 0);
    assert_int_equal(status(cu, 3), SC_CUDA_STATUS_NONE);
    uint32_t b = begin(cu, 2, SC_CUDA_GLOBAL, 0);
    assert_int_equal(wait_ev(cu, 2, 0), SC_ECUDA_ISOLATION);
    assert_int_equal(cap_state(cu, b), SC_CUDA_STATE_INVALIDATED);
    sc_cuda_destroy(cu);
}

/* unconfirmed: waiting on a never-recorded event is no effect */
static void t45_unconfirmed_never_recorded_event_is_empty(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    uint32_t a = begin(cu, 1, SC_CUDA_GLOBAL, 0);
    must_kernel(cu, 1);
    assert_int_equal(wait_ev(cu, 1, 42), 0);
    assert_int_equal(cap_state(cu, a), SC_CUDA_STATE_ACTIVE);
    assert_deps(cu, 1, (uint32_t[]){0}, 1);
    assert_int_equal(wait_ev(cu, 2, 42), 0);
    assert_int_equal(status(cu, 2), SC_CUDA_STATUS_NONE);
    sc_cuda_destroy(cu);
}

/* unconfirmed: an uncaptured stream waiting on an event of an invalidated
 * capture gets 901 (not 1) and does not join */
static void t45_unconfirmed_wait_on_invalidated_capture_event(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    begin(cu, 1, SC_CUDA_GLOBAL, 0);
    must_kernel(cu, 1);
    assert_int_equal(rec_ev(cu, 1, 0), 0);
    assert_int_equal(sc_cuda_host_call(cu, SC_CUDA_HOST_DEVICE_SYNC, 0, 0, 0),
                     SC_ECUDA_UNSUPPORTED);
    assert_int_equal(wait_ev(cu, 2, 0), SC_ECUDA_INVALIDATED);
    assert_int_equal(status(cu, 2), SC_CUDA_STATUS_NONE);
    sc_cuda_destroy(cu);
}

static void t45_legacy_wait(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    /* no capture at all: no effect */
    assert_int_equal(wait_ev(cu, 0, 0), 0);
    /* a live event of a non-blocking capture still makes it 906, and
     * invalidates that capture */
    assert_int_equal(sc_cuda_stream_create(cu, 1, true), 0);
    uint32_t a = begin(cu, 1, SC_CUDA_GLOBAL, 0);
    must_kernel(cu, 1);
    assert_int_equal(rec_ev(cu, 1, 0), 0);
    assert_int_equal(wait_ev(cu, 0, 1), 0); /* an unrelated event: no blocking capture */
    assert_int_equal(wait_ev(cu, 0, 0), SC_ECUDA_IMPLICIT);
    assert_int_equal(cap_state(cu, a), SC_CUDA_STATE_INVALIDATED);
    sc_cuda_destroy(cu);
}

/* ---- §4.6 capture.update_dependencies -------------------------------------- */

static void t46_update_dependencies(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    uint32_t ids[] = {0, 0, 1};
    assert_int_equal(sc_cuda_update_dependencies(cu, 1, 0, ids, 1, SC_CUDA_DEPS_ADD),
                     SC_ECUDA_ILLEGAL_STATE);
    begin(cu, 1, SC_CUDA_GLOBAL, 0);
    must_kernel(cu, 1);
    must_kernel(cu, 1);
    /* choice: the legacy stream has no 906 rule here, it is in no capture */
    assert_int_equal(sc_cuda_update_dependencies(cu, 0, 0, ids, 1, SC_CUDA_DEPS_ADD),
                     SC_ECUDA_ILLEGAL_STATE);
    assert_int_equal(sc_cuda_update_dependencies(cu, 1, 0, (uint32_t[]){5}, 1, SC_CUDA_DEPS_SET),
                     SC_ECUDA_INVALID_VALUE);
    assert_deps(cu, 1, (uint32_t[]){1}, 1);
    assert_int_equal(sc_cuda_update_dependencies(cu, 1, 0, ids, 3, SC_CUDA_DEPS_ADD), 0);
    assert_deps(cu, 1, (uint32_t[]){0, 1}, 2);
    assert_int_equal(sc_cuda_update_dependencies(cu, 1, 0, ids, 2, SC_CUDA_DEPS_SET), 0);
    assert_deps(cu, 1, (uint32_t[]){0}, 1);
    /* node 1 was released by the set: it does not count as unjoined */
    end_ok(cu, 1, 2, 1);
    sc_cuda_destroy(cu);
}

/* ---- §4.7 capture.info ------------------------------------------------------ */

static void t47_info(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    sc_cuda_info info;
    assert_int_equal(sc_cuda_info_get(cu, 0, 0, &info), 0);
    assert_int_equal(info.status, SC_CUDA_STATUS_NONE);
    uint32_t a = begin(cu, 4, SC_CUDA_THREAD_LOCAL, 0);
    must_kernel(cu, 4);
    assert_int_equal(sc_cuda_info_get(cu, 4, 0, &info), 0);
    assert_int_equal(info.status, SC_CUDA_STATUS_ACTIVE);
    assert_int_equal(info.capture, a);
    assert_int_equal(info.origin, 4);
    assert_int_equal(info.mode, SC_CUDA_THREAD_LOCAL);
    assert_int_equal(info.ndeps, 1);
    /* the legacy stream with a blocking capture: 906, nothing invalidated */
    assert_int_equal(sc_cuda_info_get(cu, 0, 0, &info), SC_ECUDA_IMPLICIT);
    assert_int_equal(cap_state(cu, a), SC_CUDA_STATE_ACTIVE);
    sc_cuda_destroy(cu);
}

/* ---- §4.8 host calls -------------------------------------------------------- */

static int unsafe(sc_cuda *cu, uint32_t thread)
{
    return sc_cuda_host_call(cu, SC_CUDA_HOST_UNSAFE, 0, 0, thread);
}

static void t48_unsafe_by_thread_mode(void **state)
{
    (void)state;
    /* capture modes of thread 0's captures x the mode of the calling thread */
    static const struct {
        sc_cuda_mode capture_mode;
        uint32_t caller;
        sc_cuda_mode caller_mode;
        bool breaks;
    } rows[] = {
        {SC_CUDA_GLOBAL, 0, SC_CUDA_GLOBAL, true},
        {SC_CUDA_THREAD_LOCAL, 0, SC_CUDA_GLOBAL, true},
        {SC_CUDA_RELAXED, 0, SC_CUDA_GLOBAL, false},
        {SC_CUDA_GLOBAL, 1, SC_CUDA_GLOBAL, true},
        {SC_CUDA_THREAD_LOCAL, 1, SC_CUDA_GLOBAL, false},
        {SC_CUDA_RELAXED, 1, SC_CUDA_GLOBAL, false},
        {SC_CUDA_GLOBAL, 0, SC_CUDA_THREAD_LOCAL, true},
        {SC_CUDA_GLOBAL, 1, SC_CUDA_THREAD_LOCAL, false},
        {SC_CUDA_THREAD_LOCAL, 0, SC_CUDA_THREAD_LOCAL, true},
        {SC_CUDA_GLOBAL, 0, SC_CUDA_RELAXED, false},
        {SC_CUDA_GLOBAL, 1, SC_CUDA_RELAXED, false},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        sc_cuda *cu = fresh();
        sc_cuda_mode prev;
        assert_int_equal(sc_cuda_exchange_mode(cu, rows[i].caller, rows[i].caller_mode, &prev), 0);
        uint32_t a = begin(cu, 1, rows[i].capture_mode, 0);
        int rc = unsafe(cu, rows[i].caller);
        assert_int_equal(rc, rows[i].breaks ? SC_ECUDA_UNSUPPORTED : 0);
        assert_int_equal(cap_state(cu, a),
                         rows[i].breaks ? SC_CUDA_STATE_INVALIDATED : SC_CUDA_STATE_ACTIVE);
        sc_cuda_destroy(cu);
    }
}

static void t48_stream_sync(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    uint32_t a = begin(cu, 1, SC_CUDA_GLOBAL, 0);
    assert_int_equal(sc_cuda_host_call(cu, SC_CUDA_HOST_STREAM_SYNC, 1, 0, 0),
                     SC_ECUDA_UNSUPPORTED);
    assert_int_equal(cap_state(cu, a), SC_CUDA_STATE_INVALIDATED);
    /* unconfirmed: on an invalidated capture it is 901 (HIP answers 900) */
    assert_int_equal(sc_cuda_host_call(cu, SC_CUDA_HOST_STREAM_SYNC, 1, 0, 0),
                     SC_ECUDA_INVALIDATED);
    /* stream 0 with a blocking capture: 906 */
    assert_int_equal(sc_cuda_host_call(cu, SC_CUDA_HOST_STREAM_SYNC, 0, 0, 0), SC_ECUDA_IMPLICIT);
    sc_cuda_destroy(cu);
    /* an uncaptured stream behaves as an unsafe call */
    cu = fresh();
    a = begin(cu, 1, SC_CUDA_GLOBAL, 0);
    assert_int_equal(sc_cuda_host_call(cu, SC_CUDA_HOST_STREAM_SYNC, 5, 0, 0),
                     SC_ECUDA_UNSUPPORTED);
    assert_int_equal(cap_state(cu, a), SC_CUDA_STATE_INVALIDATED);
    sc_cuda_destroy(cu);
}

static void t48_device_sync(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    assert_int_equal(sc_cuda_host_call(cu, SC_CUDA_HOST_DEVICE_SYNC, 0, 0, 0), 0);
    uint32_t a = begin(cu, 1, SC_CUDA_RELAXED, 0), b = begin(cu, 2, SC_CUDA_GLOBAL, 4);
    assert_int_equal(sc_cuda_host_call(cu, SC_CUDA_HOST_DEVICE_SYNC, 0, 0, 0),
                     SC_ECUDA_UNSUPPORTED);
    assert_int_equal(cap_state(cu, a), SC_CUDA_STATE_INVALIDATED);
    assert_int_equal(cap_state(cu, b), SC_CUDA_STATE_INVALIDATED);
    /* unconfirmed: with only invalidated captures left it succeeds */
    assert_int_equal(sc_cuda_host_call(cu, SC_CUDA_HOST_DEVICE_SYNC, 0, 0, 0), 0);
    sc_cuda_destroy(cu);
}

static void t48_event_sync(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    uint32_t a = begin(cu, 1, SC_CUDA_RELAXED, 0);
    must_kernel(cu, 1);
    assert_int_equal(rec_ev(cu, 1, 0), 0);
    assert_int_equal(sc_cuda_host_call(cu, SC_CUDA_HOST_EVENT_SYNC, 0, 0, 0),
                     SC_ECUDA_CAPTURED_EVENT);
    assert_int_equal(cap_state(cu, a), SC_CUDA_STATE_INVALIDATED);
    sc_cuda_end_result res;
    assert_int_equal(end(cu, 1, 0, &res), SC_ECUDA_INVALIDATED);
    sc_cuda_end_free(&res);
    /* unconfirmed: an event captured in an ended capture is still 907 */
    uint32_t b = begin(cu, 2, SC_CUDA_GLOBAL, 0);
    assert_int_equal(sc_cuda_host_call(cu, SC_CUDA_HOST_EVENT_SYNC, 0, 0, 0),
                     SC_ECUDA_CAPTURED_EVENT);
    assert_int_equal(cap_state(cu, b), SC_CUDA_STATE_ACTIVE);
    /* an event recorded outside capture: as unsafe (breaks the global capture) */
    assert_int_equal(rec_ev(cu, 7, 1), 0);
    assert_int_equal(sc_cuda_host_call(cu, SC_CUDA_HOST_EVENT_SYNC, 0, 1, 0), SC_ECUDA_UNSUPPORTED);
    assert_int_equal(cap_state(cu, b), SC_CUDA_STATE_INVALIDATED);
    sc_cuda_destroy(cu);
}

static void t48_legacy_sync(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    assert_int_equal(sc_cuda_host_call(cu, SC_CUDA_HOST_LEGACY_SYNC, 0, 0, 0), 0);
    uint32_t a = begin(cu, 1, SC_CUDA_RELAXED, 0);
    assert_int_equal(sc_cuda_host_call(cu, SC_CUDA_HOST_LEGACY_SYNC, 0, 0, 0), SC_ECUDA_IMPLICIT);
    assert_int_equal(cap_state(cu, a), SC_CUDA_STATE_INVALIDATED);
    sc_cuda_capture_info ci;
    assert_int_equal(sc_cuda_capture_get(cu, a, &ci), 0);
    assert_int_equal(ci.why.call, SC_CUDA_CALL_HOST_CALL);
    assert_int_equal(ci.why.host, SC_CUDA_HOST_LEGACY_SYNC);
    assert_int_equal(ci.why.seq, sc_cuda_call_seq(cu));
    sc_cuda_destroy(cu);
}

/* ---- §4.9 capture.end ------------------------------------------------------- */

static void t49_end_checks_in_order(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    sc_cuda_end_result res;
    assert_int_equal(end(cu, 1, 0, &res), SC_ECUDA_ILLEGAL_STATE);
    assert_int_equal(end(cu, 0, 0, &res), SC_ECUDA_ILLEGAL_STATE);
    uint32_t a = begin(cu, 1, SC_CUDA_GLOBAL, 0);
    must_kernel(cu, 1);
    assert_int_equal(rec_ev(cu, 1, 0), 0);
    assert_int_equal(wait_ev(cu, 2, 0), 0);
    /* unconfirmed: 903 invalidates the capture and does not end it */
    assert_int_equal(end(cu, 2, 0, &res), SC_ECUDA_UNMATCHED);
    assert_int_equal(res.capture, a);
    assert_int_equal(cap_state(cu, a), SC_CUDA_STATE_INVALIDATED);
    assert_int_equal(status(cu, 2), SC_CUDA_STATUS_INVALIDATED);
    /* 903 comes before the invalidation check */
    assert_int_equal(end(cu, 2, 0, &res), SC_ECUDA_UNMATCHED);
    assert_int_equal(end(cu, 1, 0, &res), SC_ECUDA_INVALIDATED);
    assert_int_equal(cap_state(cu, a), SC_CUDA_STATE_FAILED);
    assert_null(res.graph);
    assert_int_equal(status(cu, 1), SC_CUDA_STATUS_NONE);
    assert_int_equal(status(cu, 2), SC_CUDA_STATUS_NONE);
    sc_cuda_destroy(cu);
}

/* unconfirmed: 908 invalidates and does not end; relaxed ends from any thread */
static void t49_unconfirmed_wrong_thread(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    sc_cuda_end_result res;
    uint32_t a = begin(cu, 1, SC_CUDA_THREAD_LOCAL, 0);
    assert_int_equal(end(cu, 1, 1, &res), SC_ECUDA_WRONG_THREAD);
    assert_int_equal(cap_state(cu, a), SC_CUDA_STATE_INVALIDATED);
    assert_int_equal(end(cu, 1, 0, &res), SC_ECUDA_INVALIDATED);
    uint32_t b = begin(cu, 2, SC_CUDA_RELAXED, 0);
    assert_int_equal(end(cu, 2, 5, &res), 0);
    assert_int_equal(res.capture, b);
    assert_int_equal(sc_graph_node_count(res.graph), 0); /* an empty graph */
    sc_cuda_end_free(&res);
    sc_cuda_destroy(cu);
}

/* unconfirmed: 904 ends the capture (no graph) and names what dangles */
static void t49_unconfirmed_unjoined_ends(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    uint32_t a = begin(cu, 1, SC_CUDA_GLOBAL, 0);
    must_kernel(cu, 1); /* 0 */
    assert_int_equal(rec_ev(cu, 1, 0), 0);
    assert_int_equal(wait_ev(cu, 3, 0), 0);
    assert_int_equal(wait_ev(cu, 2, 0), 0);
    must_kernel(cu, 3); /* 1 */
    must_kernel(cu, 2); /* 2 */
    must_kernel(cu, 2); /* 3 */
    uint32_t x;
    sc_node e = {.kind = (sc_node_kind)SC_KIND_EMPTY, .name = ""};
    assert_int_equal(sc_cuda_add_node(cu, 1, 0, &e, (uint32_t[]){0}, 1, &x), 0); /* by hand */
    sc_cuda_end_result res;
    assert_int_equal(end(cu, 1, 0, &res), SC_ECUDA_UNJOINED);
    assert_int_equal(res.nunjoined, 2);
    assert_int_equal(res.unjoined[0].stream, 2);
    assert_int_equal(res.unjoined[0].count, 1);
    assert_int_equal(res.unjoined[0].nodes[0], 3);
    assert_int_equal(res.unjoined[1].stream, 3);
    assert_int_equal(res.unjoined[1].nodes[0], 1);
    assert_null(res.graph);
    sc_cuda_end_free(&res);
    assert_int_equal(cap_state(cu, a), SC_CUDA_STATE_FAILED);
    sc_cuda_capture_info ci;
    assert_int_equal(sc_cuda_capture_get(cu, a, &ci), 0);
    assert_int_equal(ci.error, SC_ECUDA_UNJOINED);
    assert_int_equal(ci.node_count, 5);
    assert_int_equal(status(cu, 1), SC_CUDA_STATUS_NONE);
    sc_cuda_destroy(cu);
}

static void t49_session_lives_on_and_ids_restart(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    begin(cu, 1, SC_CUDA_GLOBAL, 0);
    must_kernel(cu, 1);
    must_kernel(cu, 1);
    end_ok(cu, 1, 2, 1);
    assert_int_equal(begin(cu, 1, SC_CUDA_GLOBAL, 0), 2);
    assert_int_equal(must_kernel(cu, 1), 0);
    end_ok(cu, 1, 1, 0);
    assert_int_equal(cap_state(cu, 1), SC_CUDA_STATE_COMPLETED);
    assert_int_equal(cap_state(cu, 2), SC_CUDA_STATE_COMPLETED);
    sc_cuda_destroy(cu);
}

/* ---- §4.10, §4.11, §4.12 ---------------------------------------------------- */

static void t410_discard(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    uint32_t a = begin(cu, 1, SC_CUDA_GLOBAL, 0);
    must_kernel(cu, 1);
    begin(cu, 2, SC_CUDA_GLOBAL, 0);
    end_ok(cu, 2, 0, 0);
    sc_cuda_discard(cu);
    assert_int_equal(cap_state(cu, a), SC_CUDA_STATE_DISCARDED);
    assert_int_equal(cap_state(cu, 2), SC_CUDA_STATE_COMPLETED);
    assert_int_equal(status(cu, 1), SC_CUDA_STATUS_NONE);
    sc_cuda_destroy(cu);
}

static void t411_exchange_mode(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    sc_cuda_mode prev;
    assert_int_equal(sc_cuda_exchange_mode(cu, 3, SC_CUDA_RELAXED, &prev), 0);
    assert_int_equal(prev, SC_CUDA_GLOBAL);
    assert_int_equal(sc_cuda_exchange_mode(cu, 3, SC_CUDA_THREAD_LOCAL, &prev), 0);
    assert_int_equal(prev, SC_CUDA_RELAXED);
    assert_int_equal(sc_cuda_exchange_mode(cu, 4, SC_CUDA_GLOBAL, &prev), 0);
    assert_int_equal(prev, SC_CUDA_GLOBAL);
    assert_int_equal(sc_cuda_exchange_mode(cu, 3, (sc_cuda_mode)3, &prev), SC_EINVAL);
    sc_cuda_destroy(cu);
}

/* A graph launched into a capture: a record op like a host callback's
 * (the stream's next node, its set moved on), of kind graph; outside
 * capture no node.  Asking for a stream's capture is no call. */
static void t403_record_graph(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    sc_node g = {.kind = (sc_node_kind)SC_KIND_GRAPH, .name = "cudaGraphLaunch", .name_len = 15};
    uint32_t id = 0;
    assert_int_equal(sc_cuda_record(cu, 1, 0, &g, &id), 0);
    assert_int_equal(id, SC_CUDA_NO_NODE);
    uint32_t capture = begin(cu, 1, SC_CUDA_GLOBAL, 0);
    uint64_t seq = sc_cuda_call_seq(cu);
    assert_int_equal(sc_cuda_stream_capture(cu, 1), capture);
    assert_int_equal(sc_cuda_stream_capture(cu, 2), 0);
    assert_int_equal(sc_cuda_call_seq(cu), seq);
    must_kernel(cu, 1);
    assert_int_equal(sc_cuda_record(cu, 1, 0, &g, &id), 0);
    assert_int_equal(id, 1);
    must_kernel(cu, 1);
    sc_cuda_end_result res;
    assert_int_equal(end(cu, 1, 0, &res), 0);
    sc_node n;
    assert_int_equal(sc_graph_node(res.graph, 1, &n), 0);
    assert_string_equal(sc_cuda_kind_name((int)n.kind), "graph");
    assert_int_equal(sc_graph_edge_count(res.graph), 2);
    uint32_t a, b;
    assert_int_equal(sc_graph_edge(res.graph, 1, &a, &b), 0);
    assert_int_equal(a, 1);
    assert_int_equal(b, 2);
    sc_cuda_end_free(&res);
    sc_cuda_destroy(cu);
}

static void t412_add_node(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    sc_node e = {.kind = (sc_node_kind)SC_KIND_EMPTY, .name = ""};
    uint32_t x = 0;
    assert_int_equal(sc_cuda_add_node(cu, 1, 0, &e, NULL, 0, &x), SC_ECUDA_ILLEGAL_STATE);
    begin(cu, 1, SC_CUDA_GLOBAL, 0);
    must_kernel(cu, 1);
    assert_int_equal(sc_cuda_add_node(cu, 1, 0, &e, (uint32_t[]){1}, 1, &x),
                     SC_ECUDA_INVALID_VALUE);
    assert_int_equal(sc_cuda_add_node(cu, 1, 0, &e, (uint32_t[]){0, 0}, 2, &x), 0);
    assert_int_equal(x, 1);
    assert_deps(cu, 1, (uint32_t[]){0}, 1); /* no set changed */
    assert_int_equal(sc_cuda_update_dependencies(cu, 1, 0, &x, 1, SC_CUDA_DEPS_SET), 0);
    assert_int_equal(must_kernel(cu, 1), 2);
    end_ok(cu, 1, 3, 2);
    sc_cuda_destroy(cu);
}

/* An invalidated capture refuses every stream op with 901. */
static void t2_invalidated_capture_refuses_stream_work(void **state)
{
    (void)state;
    sc_cuda *cu = fresh();
    begin(cu, 1, SC_CUDA_GLOBAL, 0);
    must_kernel(cu, 1);
    assert_int_equal(unsafe(cu, 0), SC_ECUDA_UNSUPPORTED);
    uint32_t node = 77;
    assert_int_equal(kernel(cu, 1, &node), SC_ECUDA_INVALIDATED);
    assert_int_equal(node, 77);
    assert_int_equal(rec_ev(cu, 1, 0), SC_ECUDA_INVALIDATED);
    assert_int_equal(wait_ev(cu, 1, 0), SC_ECUDA_INVALIDATED);
    assert_int_equal(sc_cuda_update_dependencies(cu, 1, 0, NULL, 0, SC_CUDA_DEPS_ADD),
                     SC_ECUDA_INVALIDATED);
    sc_node e = {.kind = (sc_node_kind)SC_KIND_EMPTY, .name = ""};
    assert_int_equal(sc_cuda_add_node(cu, 1, 0, &e, NULL, 0, &node), SC_ECUDA_INVALIDATED);
    assert_int_equal(sc_cuda_node(cu, 1, 1, &e), SC_ENOTFOUND); /* nothing appended */
    /* the first invalidating call is the one remembered */
    sc_cuda_capture_info ci;
    assert_int_equal(sc_cuda_capture_get(cu, 1, &ci), 0);
    assert_int_equal(ci.why.call, SC_CUDA_CALL_HOST_CALL);
    assert_int_equal(ci.why.host, SC_CUDA_HOST_UNSAFE);
    sc_cuda_destroy(cu);
}

static void t_names(void **state)
{
    (void)state;
    assert_string_equal(sc_cuda_mode_name(SC_CUDA_THREAD_LOCAL), "thread_local");
    assert_string_equal(sc_cuda_host_name(SC_CUDA_HOST_EVENT_SYNC), "event_sync");
    assert_string_equal(sc_cuda_state_name(SC_CUDA_STATE_DISCARDED), "discarded");
    assert_string_equal(sc_cuda_call_name(SC_CUDA_CALL_UPDATE_DEPENDENCIES),
                        "capture.update_dependencies");
    assert_null(sc_cuda_mode_name((sc_cuda_mode)3));
    sc_node_kind k;
    sc_memcpy_dir d;
    assert_int_equal(sc_cuda_kind_parse("event_record", 12, &k), 0);
    assert_int_equal((int)k, SC_KIND_EVENT_RECORD);
    assert_int_equal(sc_cuda_kind_parse("kernel", 6, &k), 0);
    assert_int_equal(sc_cuda_dir_parse("host_to_host", 12, &d), 0);
    assert_int_equal((int)d, SC_DIR_HOST_TO_HOST);
    assert_string_equal(sc_cuda_dir_name(SC_DIR_DEFAULT), "default");
    /* the default mode's own spellings do not grow */
    assert_null(sc_node_kind_name((sc_node_kind)SC_KIND_EMPTY));
    assert_int_equal(sc_memcpy_dir_parse("default", 7, &d), SC_EINVAL);
    assert_null(sc_cuda_kind_name(4));
}

/* ---- typed record calls ------------------------------------------------ */

/* The typed call for n's kind, with n's fields. */
static int typed_record(sc_cuda *cu, uint32_t s, uint32_t thread, const sc_node *n, uint32_t *out)
{
    switch ((int)n->kind) {
    case SC_KIND_KERNEL:
        return sc_cuda_record_kernel(cu, s, thread, n->name, n->name_len, n->num_blocks,
                                     n->threads_per_block, n->shared_mem, out);
    case SC_KIND_MEMCPY:
        return sc_cuda_record_memcpy(cu, s, thread, n->name, n->name_len, n->dir, n->size_bytes,
                                     n->src_device, n->dst_device, out);
    case SC_KIND_MEMSET:
        return sc_cuda_record_memset(cu, s, thread, n->name, n->name_len, n->size_bytes, n->value,
                                     out);
    case SC_KIND_HOST_CALLBACK:
        return sc_cuda_record_host_callback(cu, s, thread, n->name, n->name_len, out);
    case SC_KIND_MEM_ALLOC:
        return sc_cuda_record_mem_alloc(cu, s, thread, n->name, n->name_len, n->size_bytes, out);
    case SC_KIND_MEM_FREE:
        return sc_cuda_record_mem_free(cu, s, thread, n->name, n->name_len, out);
    }
    fail();
    return 0;
}

/* The same op through sc_cuda_record on a and the typed call on b: the
 * same code, node and call count.  Returns the code. */
static int record_both(sc_cuda *a, sc_cuda *b, uint32_t s, uint32_t thread, const sc_node *n)
{
    uint32_t ida = 777, idb = 777;
    int ra = sc_cuda_record(a, s, thread, n, &ida);
    int rb = typed_record(b, s, thread, n, &idb);
    assert_int_equal(ra, rb);
    assert_int_equal(ida, idb);
    assert_int_equal(sc_cuda_call_seq(a), sc_cuda_call_seq(b));
    return ra;
}

static void same_graphs(const sc_graph *g, const sc_graph *h)
{
    assert_int_equal(sc_graph_node_count(g), sc_graph_node_count(h));
    assert_int_equal(sc_graph_edge_count(g), sc_graph_edge_count(h));
    for (uint32_t i = 0; i < sc_graph_node_count(g); i++) {
        sc_node x, y;
        assert_int_equal(sc_graph_node(g, i, &x), 0);
        assert_int_equal(sc_graph_node(h, i, &y), 0);
        assert_int_equal(x.name_len, y.name_len);
        assert_memory_equal(x.name, y.name, x.name_len);
        x.name = y.name = NULL;
        assert_memory_equal(&x, &y, sizeof x);
    }
    for (uint64_t i = 0; i < sc_graph_edge_count(g); i++) {
        uint32_t s1, d1, s2, d2;
        assert_int_equal(sc_graph_edge(g, i, &s1, &d1), 0);
        assert_int_equal(sc_graph_edge(h, i, &s2, &d2), 0);
        assert_int_equal(s1, s2);
        assert_int_equal(d1, d2);
    }
}

static void same_captures(const sc_cuda *a, const sc_cuda *b)
{
    assert_int_equal(sc_cuda_capture_count(a), sc_cuda_capture_count(b));
    for (uint32_t c = 1; c <= sc_cuda_capture_count(a); c++) {
        sc_cuda_capture_info x, y;
        memset(&x, 0, sizeof x);
        memset(&y, 0, sizeof y);
        assert_int_equal(sc_cuda_capture_get(a, c, &x), 0);
        assert_int_equal(sc_cuda_capture_get(b, c, &y), 0);
        assert_int_equal(x.state, y.state);
        assert_int_equal(x.error, y.error);
        assert_int_equal(x.node_count, y.node_count);
        assert_int_equal(x.invalidated, y.invalidated);
        assert_int_equal(x.why.call, y.why.call);
        assert_int_equal(x.why.stream, y.why.stream);
        assert_int_equal(x.why.thread, y.why.thread);
        assert_int_equal(x.why.error, y.why.error);
        assert_int_equal(x.why.seq, y.why.seq);
        assert_int_equal(x.why.has_event, y.why.has_event);
    }
}

static void t43_typed_record_calls_match_record(void **state)
{
    (void)state;
    static const char big[] = "x";
    const sc_node ops[] = {
        {.kind = SC_KIND_KERNEL,
         .name = "gemm",
         .name_len = 4,
         .num_blocks = 7,
         .threads_per_block = 256,
         .shared_mem = 96},
        {.kind = SC_KIND_KERNEL, .name = NULL, .name_len = 0, .num_blocks = 1},
        {.kind = SC_KIND_MEMCPY,
         .name = "h2d",
         .name_len = 3,
         .dir = SC_DIR_HOST_TO_DEVICE,
         .size_bytes = 1u << 20,
         .src_device = 3,
         .dst_device = 4},
        {.kind = SC_KIND_MEMCPY,
         .name = "p2p",
         .name_len = 3,
         .dir = SC_DIR_PEER_TO_PEER,
         .size_bytes = 64,
         .src_device = 1,
         .dst_device = 2},
        {.kind = SC_KIND_MEMCPY,
         .name = "hh",
         .name_len = 2,
         .dir = (sc_memcpy_dir)SC_DIR_HOST_TO_HOST},
        {.kind = SC_KIND_MEMCPY, .name = "df", .name_len = 2, .dir = (sc_memcpy_dir)SC_DIR_DEFAULT},
        {.kind = SC_KIND_MEMSET, .name = "z", .name_len = 1, .size_bytes = 4096, .value = 0xab},
        {.kind = SC_KIND_HOST_CALLBACK, .name = "step\0x", .name_len = 6},
        {.kind = (sc_node_kind)SC_KIND_MEM_ALLOC, .name = "a", .name_len = 1, .size_bytes = 128},
        {.kind = (sc_node_kind)SC_KIND_MEM_FREE, .name = "a", .name_len = 1},
    };
    const size_t nops = sizeof ops / sizeof ops[0];
    /* misuse: SC_EINVAL before anything is counted */
    const sc_node bad[] = {
        {.kind = SC_KIND_KERNEL, .name = NULL, .name_len = 3},
        {.kind = SC_KIND_MEMCPY, .name = NULL, .name_len = 1},
        {.kind = SC_KIND_MEMCPY, .name = "c", .name_len = 1, .dir = (sc_memcpy_dir)4},
        {.kind = SC_KIND_MEMCPY, .name = "c", .name_len = 1, .dir = (sc_memcpy_dir)15},
        {.kind = SC_KIND_MEMCPY, .name = "c", .name_len = 1, .dir = (sc_memcpy_dir)18},
        {.kind = SC_KIND_MEMCPY, .name = "c", .name_len = 1, .dir = (sc_memcpy_dir)-1},
        {.kind = SC_KIND_MEMSET, .name = NULL, .name_len = 2},
        {.kind = SC_KIND_HOST_CALLBACK, .name = NULL, .name_len = 2},
        {.kind = (sc_node_kind)SC_KIND_MEM_ALLOC, .name = NULL, .name_len = 2},
        {.kind = (sc_node_kind)SC_KIND_MEM_FREE, .name = NULL, .name_len = 2},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint32_t id = 777;
        assert_int_equal(typed_record(NULL, 1, 0, &ops[i % nops], &id), SC_EINVAL);
        assert_int_equal(sc_cuda_record(NULL, 1, 0, &ops[i % nops], &id), SC_EINVAL);
        assert_int_equal(id, 777);
    }
    sc_cuda *a = fresh(), *b = fresh();
    for (int round = 0; round < 2; round++) {
        uint64_t seq = sc_cuda_call_seq(a);
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
            assert_int_equal(record_both(a, b, 1, 0, &bad[i]), SC_EINVAL);
        assert_int_equal(sc_cuda_call_seq(a), seq);
        /* outside any capture: no node, on an unknown stream and on stream 0 */
        for (size_t i = 0; i < nops; i++) {
            assert_int_equal(record_both(a, b, 9, 0, &ops[i]), 0);
            assert_int_equal(record_both(a, b, 0, 0, &ops[i]), 0);
        }
        if (round)
            break;
        /* a name too long to keep: only a capture looks at it */
        sc_node huge = {.kind = SC_KIND_KERNEL, .name = big, .name_len = (size_t)UINT32_MAX};
        assert_int_equal(record_both(a, b, 9, 0, &huge), 0);
        /* capture 1 on stream 1, stream 2 forked in, non-blocking 3 forked in */
        for (int k = 0; k < 2; k++) {
            sc_cuda *cu = k ? b : a;
            assert_int_equal(sc_cuda_stream_create(cu, 3, true), 0);
            begin(cu, 1, SC_CUDA_GLOBAL, 0);
            assert_int_equal(rec_ev(cu, 1, 50), 0);
            assert_int_equal(wait_ev(cu, 2, 50), 0);
            assert_int_equal(wait_ev(cu, 3, 50), 0);
        }
        for (size_t i = 0; i < 3 * nops; i++)
            assert_int_equal(record_both(a, b, 1 + (uint32_t)(i % 3), (uint32_t)i, &ops[i % nops]),
                             0);
        assert_int_equal(record_both(a, b, 2, 0, &huge), SC_ELIMIT);
        /* a join: the next node has two predecessors */
        for (int k = 0; k < 2; k++) {
            sc_cuda *cu = k ? b : a;
            assert_int_equal(rec_ev(cu, 2, 51), 0);
            assert_int_equal(wait_ev(cu, 1, 51), 0);
            assert_int_equal(rec_ev(cu, 3, 52), 0);
            assert_int_equal(wait_ev(cu, 1, 52), 0);
        }
        for (size_t i = 0; i < nops; i++)
            assert_int_equal(record_both(a, b, 1, 0, &ops[i]), 0);
        sc_cuda_end_result ra, rb;
        assert_int_equal(end(a, 1, 0, &ra), 0);
        assert_int_equal(end(b, 1, 0, &rb), 0);
        same_graphs(ra.graph, rb.graph);
        sc_cuda_end_free(&ra);
        sc_cuda_end_free(&rb);
        /* capture 2: every kind on the legacy stream while it exists
         * (906, it is invalidated by the first), then on the capture
         * (901); capture 3 on a non-blocking stream is untouched by 906 */
        for (int k = 0; k < 2; k++) {
            sc_cuda *cu = k ? b : a;
            begin(cu, 4, SC_CUDA_GLOBAL, 0);
            begin(cu, 3, SC_CUDA_RELAXED, 1);
        }
        for (size_t i = 0; i < nops; i++)
            assert_int_equal(record_both(a, b, 0, 5, &ops[i]), SC_ECUDA_IMPLICIT);
        for (size_t i = 0; i < nops; i++) {
            assert_int_equal(record_both(a, b, 4, 0, &ops[i]), SC_ECUDA_INVALIDATED);
            assert_int_equal(record_both(a, b, 3, 0, &ops[i]), 0);
        }
        same_captures(a, b);
        sc_cuda_capture_info ci;
        assert_int_equal(sc_cuda_capture_get(b, 2, &ci), 0);
        assert_true(ci.invalidated);
        assert_int_equal(ci.why.call, SC_CUDA_CALL_RECORD_KERNEL);
        assert_int_equal(ci.why.thread, 5);
        for (int k = 0; k < 2; k++) {
            sc_cuda *cu = k ? b : a;
            assert_int_equal(end(cu, 4, 0, &ra), SC_ECUDA_INVALIDATED);
            sc_cuda_end_free(&ra);
            assert_int_equal(end(cu, 3, 1, &ra), 0);
            if (k == 0)
                rb = ra;
        }
        same_graphs(rb.graph, ra.graph);
        sc_cuda_end_free(&ra);
        sc_cuda_end_free(&rb);
    }
    same_captures(a, b);
    /* node_out may be NULL */
    assert_int_equal(sc_cuda_record_kernel(b, 1, 0, "k", 1, 1, 1, 0, NULL), 0);
    assert_int_equal(sc_cuda_record_mem_free(b, 1, 0, "k", 1, NULL), 0);
    sc_cuda_destroy(a);
    sc_cuda_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t2_error_numbers_names_strings),
        cmocka_unit_test(t2_invalidated_capture_refuses_stream_work),
        cmocka_unit_test(t41_stream_create),
        cmocka_unit_test(t41_non_blocking_capture_is_not_blocking),
        cmocka_unit_test(t42_begin),
        cmocka_unit_test(t43_record_outside_capture_is_no_node),
        cmocka_unit_test(t43_record_chains_on_the_set),
        cmocka_unit_test(t43_legacy_record_invalidates_blocking_captures),
        cmocka_unit_test(t43_3d_kernel_kept_in_graph),
        cmocka_unit_test(t43_typed_record_calls_match_record),
        cmocka_unit_test(t44_record_event),
        cmocka_unit_test(t45_join_by_waiting_and_fork_join),
        cmocka_unit_test(t45_event_is_a_snapshot),
        cmocka_unit_test(t45_external_wait_appends_a_node),
        cmocka_unit_test(t45_merge_invalidates_both),
        cmocka_unit_test(t45_isolation_on_uncaptured_event),
        cmocka_unit_test(t45_unconfirmed_ended_capture_event_is_isolation),
        cmocka_unit_test(t45_unconfirmed_never_recorded_event_is_empty),
        cmocka_unit_test(t45_unconfirmed_wait_on_invalidated_capture_event),
        cmocka_unit_test(t45_legacy_wait),
        cmocka_unit_test(t46_update_dependencies),
        cmocka_unit_test(t47_info),
        cmocka_unit_test(t48_unsafe_by_thread_mode),
        cmocka_unit_test(t48_stream_sync),
        cmocka_unit_test(t48_device_sync),
        cmocka_unit_test(t48_event_sync),
        cmocka_unit_test(t48_legacy_sync),
        cmocka_unit_test(t49_end_checks_in_order),
        cmocka_unit_test(t49_unconfirmed_wrong_thread),
        cmocka_unit_test(t49_unconfirmed_unjoined_ends),
        cmocka_unit_test(t49_session_lives_on_and_ids_restart),
        cmocka_unit_test(t410_discard),
        cmocka_unit_test(t411_exchange_mode),
        cmocka_unit_test(t403_record_graph),
        cmocka_unit_test(t412_add_node),
        cmocka_unit_test(t_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
