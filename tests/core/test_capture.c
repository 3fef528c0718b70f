/*
 * test_capture.c - the capture session: every transition of docs/semantics.md §7, every
 * error of §8 (texts byte-exact), the 14 unit tests of §10 and the
 * reference model's fork/join example (§10).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sc_capture.h"

/* ---- helpers ----------------------------------------------------------- */

static sc_capture *cap_new(void)
{
    sc_capture *cap = NULL;
    assert_int_equal(sc_capture_create(&cap), 0);
    assert_non_null(cap);
    return cap;
}

static uint32_t kernel(sc_capture *cap, uint32_t stream, const char *name)
{
    uint32_t id = UINT32_MAX;
    assert_int_equal(sc_capture_record_kernel(cap, stream, name, strlen(name), 1, 32, 0, &id), 0);
    return id;
}

static void begin(sc_capture *cap, uint32_t stream)
{
    assert_int_equal(sc_capture_begin(cap, stream), 0);
}

static void record_event(sc_capture *cap, uint32_t stream, uint32_t event)
{
    assert_int_equal(sc_capture_record_event(cap, stream, event), 0);
}

static void wait_event(sc_capture *cap, uint32_t stream, uint32_t event)
{
    assert_int_equal(sc_capture_wait_event(cap, stream, event), 0);
}

static sc_graph *end_ok(sc_capture *cap, uint32_t stream)
{
    sc_graph *g = NULL;
    assert_int_equal(sc_capture_end(cap, stream, &g), 0);
    assert_non_null(g);
    assert_true(sc_graph_is_sealed(g));
    return g;
}

static void assert_end_fails(sc_capture *cap, uint32_t stream, int want)
{
    sc_graph *g = (sc_graph *)&g; /* must be reset to NULL */
    assert_int_equal(sc_capture_end(cap, stream, &g), want);
    assert_null(g);
}

static void assert_msg(int rc, uint32_t stream, const char *want)
{
    char buf[128];
    int n = sc_error_message(rc, stream, buf, sizeof buf);
    assert_string_equal(buf, want);
    assert_int_equal(n, (int)strlen(want));
}

static void assert_edges(const sc_graph *g, const uint32_t (*want)[2], size_t n)
{
    assert_int_equal(sc_graph_edge_count(g), n);
    for (size_t i = 0; i < n; i++) {
        uint32_t s = UINT32_MAX, d = UINT32_MAX;
        assert_int_equal(sc_graph_edge(g, i, &s, &d), 0);
        assert_int_equal(s, want[i][0]);
        assert_int_equal(d, want[i][1]);
    }
}

/* Reachability through BFS, then through the index (built here). */
static void assert_reach(sc_graph *g, uint32_t a, uint32_t b, bool want)
{
    bool r = !want;
    assert_int_equal(sc_graph_reachable_bfs(g, a, b, &r), 0);
    assert_int_equal(r, want);
    assert_int_equal(sc_graph_build_index(g), 0);
    r = !want;
    assert_int_equal(sc_graph_reachable(g, a, b, &r), 0);
    assert_int_equal(r, want);
}

/* A failed call changed nothing observable. */
static void assert_state(const sc_capture *cap, uint32_t stream, sc_status status, uint32_t nodes,
                         bool capturing)
{
    assert_int_equal(sc_capture_status(cap, stream), status);
    assert_int_equal(sc_capture_node_count(cap), nodes);
    assert_int_equal(sc_capture_is_capturing(cap), capturing);
}

/* The four record ops on one stream, all expected to fail with `want`. */
static void assert_record_ops_fail(sc_capture *cap, uint32_t stream, int want)
{
    uint32_t id = 77;
    assert_int_equal(sc_capture_record_kernel(cap, stream, "k", 1, 1, 1, 0, &id), want);
    assert_int_equal(
        sc_capture_record_memcpy(cap, stream, "m", 1, SC_DIR_HOST_TO_DEVICE, 8, 0, 0, &id), want);
    assert_int_equal(sc_capture_record_memset(cap, stream, "s", 1, 8, 0, &id), want);
    assert_int_equal(sc_capture_record_host_callback(cap, stream, "h", 1, &id), want);
    assert_int_equal(id, 77);
}

/* A session with stream 1 invalidated (and so poisoned) after one op. */
static sc_capture *invalidated_session(void)
{
    sc_capture *cap = cap_new();
    begin(cap, 1);
    assert_int_equal(kernel(cap, 1, "a"), 0);
    assert_int_equal(sc_capture_invalidate(cap, 1), 0);
    return cap;
}

/* ---- docs/semantics.md §7: from none ----------------------------------- */

static void t_none_begin_activates(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    assert_state(cap, 5, SC_STATUS_NONE, 0, false);
    begin(cap, 5);
    assert_state(cap, 5, SC_STATUS_ACTIVE, 0, true);
    assert_int_equal(sc_capture_status(cap, 6), SC_STATUS_NONE);
    sc_capture_destroy(cap);
}

static void t_none_record_ops_fail(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    assert_record_ops_fail(cap, 3, SC_ENOTCAPTURING);
    assert_state(cap, 3, SC_STATUS_NONE, 0, true);
    /* no id was used up */
    assert_int_equal(kernel(cap, 0, "k"), 0);
    sc_capture_destroy(cap);
}

static void t_none_record_event_fails(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    kernel(cap, 0, "k");
    assert_int_equal(sc_capture_record_event(cap, 2, 0), SC_ENOTCAPTURING);
    assert_state(cap, 2, SC_STATUS_NONE, 1, true);
    /* event 0 stayed unrecorded: a wait on it parks nothing */
    begin(cap, 1);
    wait_event(cap, 1, 0);
    assert_int_equal(kernel(cap, 1, "x"), 1);
    sc_graph *g = end_ok(cap, 0);
    assert_int_equal(sc_graph_edge_count(g), 0);
    sc_graph_destroy(g);
}

static void t_none_wait_event_fails(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    kernel(cap, 0, "k");
    record_event(cap, 0, 4);
    /* the state check comes first, for a known and an unknown event */
    assert_int_equal(sc_capture_wait_event(cap, 2, 4), SC_ENOTCAPTURING);
    assert_int_equal(sc_capture_wait_event(cap, 2, 99), SC_ENOTCAPTURING);
    assert_state(cap, 2, SC_STATUS_NONE, 1, true);
    /* nothing was parked: once begun, stream 2's first op has no edge */
    begin(cap, 2);
    assert_int_equal(kernel(cap, 2, "x"), 1);
    sc_graph *g = end_ok(cap, 2);
    assert_int_equal(sc_graph_edge_count(g), 0);
    sc_graph_destroy(g);
}

static void t_none_invalidate_fails(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    assert_int_equal(sc_capture_invalidate(cap, 9), SC_ENOTCAPTURING);
    assert_state(cap, 9, SC_STATUS_NONE, 0, true);
    /* the session was not poisoned */
    kernel(cap, 0, "k");
    sc_graph *g = end_ok(cap, 0);
    assert_int_equal(sc_graph_node_count(g), 1);
    sc_graph_destroy(g);
}

static void t_none_end_fails(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    kernel(cap, 0, "k");
    assert_end_fails(cap, 4, SC_ENOTCAPTURING);
}

/* ---- docs/semantics.md §7: from active --------------------------------- */

static void t_active_begin_fails(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    kernel(cap, 0, "k");
    assert_int_equal(sc_capture_begin(cap, 0), SC_EALREADY);
    assert_state(cap, 0, SC_STATUS_ACTIVE, 1, true);
    assert_int_equal(kernel(cap, 0, "k"), 1);
    sc_graph *g = end_ok(cap, 0);
    static const uint32_t want[][2] = {{0, 1}};
    assert_edges(g, want, 1);
    sc_graph_destroy(g);
}

static void t_active_record_ops(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 2);
    uint32_t id = UINT32_MAX;
    assert_int_equal(sc_capture_record_kernel(cap, 2, "k", 1, 1, 1, 0, &id), 0);
    assert_int_equal(id, 0);
    assert_int_equal(sc_capture_record_memcpy(cap, 2, "m", 1, SC_DIR_DEVICE_TO_HOST, 8, 0, 0, &id),
                     0);
    assert_int_equal(id, 1);
    assert_int_equal(sc_capture_record_memset(cap, 2, "s", 1, 8, 1, &id), 0);
    assert_int_equal(id, 2);
    assert_int_equal(sc_capture_record_host_callback(cap, 2, "h", 1, &id), 0);
    assert_int_equal(id, 3);
    assert_state(cap, 2, SC_STATUS_ACTIVE, 4, true);
    sc_graph *g = end_ok(cap, 2);
    static const uint32_t want[][2] = {{0, 1}, {1, 2}, {2, 3}};
    assert_edges(g, want, 3);
    sc_graph_destroy(g);
}

static void t_active_record_event(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    begin(cap, 1);
    kernel(cap, 0, "a");
    record_event(cap, 0, 3);
    assert_state(cap, 0, SC_STATUS_ACTIVE, 1, true);
    wait_event(cap, 1, 3);
    kernel(cap, 1, "b");
    sc_graph *g = end_ok(cap, 0);
    static const uint32_t want[][2] = {{0, 1}};
    assert_edges(g, want, 1);
    sc_graph_destroy(g);
}

static void t_active_wait_event(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    begin(cap, 1);
    kernel(cap, 1, "a");
    record_event(cap, 1, 0);
    wait_event(cap, 0, 0);
    assert_state(cap, 0, SC_STATUS_ACTIVE, 1, true);
    kernel(cap, 0, "b");
    sc_graph *g = end_ok(cap, 0);
    static const uint32_t want[][2] = {{0, 1}};
    assert_edges(g, want, 1);
    sc_graph_destroy(g);
}

static void t_active_invalidate(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    begin(cap, 1);
    kernel(cap, 1, "a");
    assert_int_equal(sc_capture_invalidate(cap, 1), 0);
    assert_state(cap, 1, SC_STATUS_INVALIDATED, 1, true);
    /* no other stream changes, and it keeps recording */
    assert_int_equal(sc_capture_status(cap, 0), SC_STATUS_ACTIVE);
    assert_int_equal(kernel(cap, 0, "b"), 1);
    /* but the session is poisoned */
    assert_end_fails(cap, 0, SC_EPOISONED);
}

static void t_active_end_returns_graph(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    begin(cap, 1);
    kernel(cap, 0, "a");
    kernel(cap, 1, "b");
    kernel(cap, 0, "c");
    sc_graph *g = end_ok(cap, 1);
    /* the whole graph: every stream's nodes */
    assert_int_equal(sc_graph_node_count(g), 3);
    assert_int_equal(sc_graph_stream_count(g), 2);
    static const uint32_t want[][2] = {{0, 2}};
    assert_edges(g, want, 1);
    sc_graph_destroy(g);
}

static void t_active_end_poisoned(void **state)
{
    (void)state;
    sc_capture *cap = invalidated_session();
    begin(cap, 0);
    kernel(cap, 0, "k");
    assert_end_fails(cap, 0, SC_EPOISONED);
}

/* ---- docs/semantics.md §7: from invalidated ---------------------------- */

static void t_invalidated_begin_reactivates(void **state)
{
    (void)state;
    sc_capture *cap = invalidated_session();
    assert_state(cap, 1, SC_STATUS_INVALIDATED, 1, false);
    begin(cap, 1);
    assert_state(cap, 1, SC_STATUS_ACTIVE, 1, true);
    assert_int_equal(kernel(cap, 1, "b"), 1);
    /* a second begin is "already capturing" again */
    assert_int_equal(sc_capture_begin(cap, 1), SC_EALREADY);
    /* the session stays poisoned, even for the stream that poisoned it */
    assert_end_fails(cap, 1, SC_EPOISONED);
}

static void t_invalidated_record_ops_fail(void **state)
{
    (void)state;
    sc_capture *cap = invalidated_session();
    assert_record_ops_fail(cap, 1, SC_EINVALIDATED);
    assert_state(cap, 1, SC_STATUS_INVALIDATED, 1, false);
    sc_capture_destroy(cap);
}

static void t_invalidated_record_event_fails(void **state)
{
    (void)state;
    sc_capture *cap = invalidated_session();
    assert_int_equal(sc_capture_record_event(cap, 1, 0), SC_EINVALIDATED);
    assert_state(cap, 1, SC_STATUS_INVALIDATED, 1, false);
    sc_capture_destroy(cap);
}

static void t_invalidated_wait_event_fails(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    begin(cap, 1);
    kernel(cap, 0, "a");
    record_event(cap, 0, 0);
    assert_int_equal(sc_capture_invalidate(cap, 1), 0);
    assert_int_equal(sc_capture_wait_event(cap, 1, 0), SC_EINVALIDATED);
    assert_int_equal(sc_capture_wait_event(cap, 1, 12345), SC_EINVALIDATED);
    assert_state(cap, 1, SC_STATUS_INVALIDATED, 1, true);
    sc_capture_destroy(cap);
}

static void t_invalidated_invalidate_fails(void **state)
{
    (void)state;
    sc_capture *cap = invalidated_session();
    assert_int_equal(sc_capture_invalidate(cap, 1), SC_EINVALIDATED);
    assert_state(cap, 1, SC_STATUS_INVALIDATED, 1, false);
    sc_capture_destroy(cap);
}

static void t_invalidated_end_illegal(void **state)
{
    (void)state;
    sc_capture *cap = invalidated_session();
    assert_end_fails(cap, 1, SC_EILLEGAL);
}

/* ---- docs/semantics.md §8: every error, byte-exact ---------------------- */

static void t_err_already_capturing(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    begin(cap, 7);
    int rc = sc_capture_begin(cap, 0);
    assert_int_equal(rc, SC_EALREADY);
    assert_msg(rc, 0, "stream S:default is already capturing");
    rc = sc_capture_begin(cap, 7);
    assert_msg(rc, 7, "stream S7 is already capturing");
    sc_capture_destroy(cap);
}

static void t_err_not_capturing(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    int rc = sc_capture_record_kernel(cap, 3, "k", 1, 1, 1, 0, NULL);
    assert_int_equal(rc, SC_ENOTCAPTURING);
    assert_msg(rc, 3, "stream S3 is not capturing");
    rc = sc_capture_record_event(cap, 0, 1);
    assert_int_equal(rc, SC_ENOTCAPTURING);
    assert_msg(rc, 0, "stream S:default is not capturing");
    rc = sc_capture_invalidate(cap, UINT32_MAX);
    assert_int_equal(rc, SC_ENOTCAPTURING);
    assert_msg(rc, UINT32_MAX, "stream S4294967295 is not capturing");
    sc_capture_destroy(cap);
}

static void t_err_capture_invalidated(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    assert_int_equal(sc_capture_invalidate(cap, 0), 0);
    int rc = sc_capture_record_memset(cap, 0, "z", 1, 4, 0, NULL);
    assert_int_equal(rc, SC_EINVALIDATED);
    assert_msg(rc, 0, "stream S:default capture is invalidated");
    assert_msg(rc, 12, "stream S12 capture is invalidated");
    sc_capture_destroy(cap);
}

static void t_err_end_not_capturing(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    sc_graph *g = NULL;
    int rc = sc_capture_end(cap, 0, &g);
    assert_int_equal(rc, SC_ENOTCAPTURING);
    assert_null(g);
    assert_msg(rc, 0, "stream S:default is not capturing");
}

static void t_err_end_not_capturing_when_poisoned(void **state)
{
    (void)state;
    /* docs/semantics.md §4.9: check 2 comes before check 3 */
    sc_capture *cap = invalidated_session();
    assert_end_fails(cap, 5, SC_ENOTCAPTURING);
}

static void t_err_end_illegal(void **state)
{
    (void)state;
    sc_capture *cap = invalidated_session();
    sc_graph *g = NULL;
    int rc = sc_capture_end(cap, 1, &g);
    assert_int_equal(rc, SC_EILLEGAL);
    assert_msg(rc, 1, "capture was invalidated by an illegal operation");
}

static void t_err_end_poisoned(void **state)
{
    (void)state;
    sc_capture *cap = invalidated_session();
    begin(cap, 2);
    sc_graph *g = NULL;
    int rc = sc_capture_end(cap, 2, &g);
    assert_int_equal(rc, SC_EPOISONED);
    assert_msg(rc, 2, "capture was invalidated on another stream in the session");
}

static void t_err_message_buffer_rules(void **state)
{
    (void)state;
    char buf[8];
    memset(buf, 'x', sizeof buf);
    int n = sc_error_message(SC_ENOTCAPTURING, 3, buf, sizeof buf);
    assert_int_equal(n, (int)strlen("stream S3 is not capturing"));
    assert_string_equal(buf, "stream ");
    assert_int_equal(sc_error_message(SC_EILLEGAL, 0, NULL, 0),
                     (int)strlen("capture was invalidated by an illegal operation"));
    assert_string_equal(SC_ERROR_PREFIX, "internal graph error: ");
}

static void t_err_names_and_stream_format(void **state)
{
    (void)state;
    char buf[32];
    assert_int_equal(sc_stream_format(0, buf, sizeof buf), 9);
    assert_string_equal(buf, "S:default");
    sc_stream_format(1, buf, sizeof buf);
    assert_string_equal(buf, "S1");
    sc_stream_format(UINT32_MAX, buf, sizeof buf);
    assert_string_equal(buf, "S4294967295");
    assert_string_equal(sc_error_name(SC_ENOMEM), "ENOMEM");
    assert_string_equal(sc_error_name(SC_EALREADY), "EALREADY");
    assert_string_equal(sc_error_name(SC_ENOTCAPTURING), "ENOTCAPTURING");
    assert_string_equal(sc_error_name(SC_EINVALIDATED), "EINVALIDATED");
    assert_string_equal(sc_error_name(SC_EILLEGAL), "EILLEGAL");
    assert_string_equal(sc_error_name(SC_EPOISONED), "EPOISONED");
    assert_string_equal(sc_error_name(-999), "EUNKNOWN");
    assert_msg(SC_ENOMEM, 0, "out of memory");
}

/* Every core code: its name, its text on stream 3, and that it lies in the
 * core's range.  Anything else in that range has no name. */
static const struct {
    int code;
    const char *name;
    const char *message;
} core_codes[] = {
    {SC_ENOMEM, "ENOMEM", "out of memory"},
    {SC_EINVAL, "EINVAL", "invalid argument"},
    {SC_ENOTFOUND, "ENOTFOUND", "node not found"},
    {SC_ELIMIT, "ELIMIT", "limit reached"},
    {SC_EALREADY, "EALREADY", "stream S3 is already capturing"},
    {SC_ENOTCAPTURING, "ENOTCAPTURING", "stream S3 is not capturing"},
    {SC_EINVALIDATED, "EINVALIDATED", "stream S3 capture is invalidated"},
    {SC_EILLEGAL, "EILLEGAL", "capture was invalidated by an illegal operation"},
    {SC_EPOISONED, "EPOISONED", "capture was invalidated on another stream in the session"},
};

static void t_err_every_code_named(void **state)
{
    (void)state;
    size_t n = sizeof core_codes / sizeof core_codes[0];
    for (size_t i = 0; i < n; i++) {
        assert_in_range(core_codes[i].code, SC_E__MIN, SC_E__MAX);
        assert_string_equal(sc_error_name(core_codes[i].code), core_codes[i].name);
        assert_msg(core_codes[i].code, 3, core_codes[i].message);
        for (size_t j = 0; j < i; j++)
            assert_int_not_equal(core_codes[i].code, core_codes[j].code);
    }
    size_t named = 0;
    for (int code = SC_E__MIN; code <= SC_E__MAX; code++)
        if (strcmp(sc_error_name(code), "EUNKNOWN") != 0)
            named++;
    assert_int_equal(named, n);
    assert_string_equal(sc_error_name(SC_OK), "OK");
    assert_msg(SC_OK, 0, "success");
    /* Neighbours of the range are no core codes. */
    assert_string_equal(sc_error_name(SC_E__MIN - 1), "EUNKNOWN");
    assert_string_equal(sc_error_name(SC_E__MAX + 1), "EUNKNOWN");
    assert_msg(SC_E__MAX + 1, 0, "unknown error");
}

/* ---- docs/semantics.md §10: the reference model's unit tests ----------- */

static void ut_fresh_stream_is_not_capturing(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    assert_int_equal(sc_capture_status(cap, 0), SC_STATUS_NONE);
    assert_false(sc_capture_is_capturing(cap));
    sc_capture_destroy(cap);
}

static void ut_begin_sets_active(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    assert_int_equal(sc_capture_status(cap, 0), SC_STATUS_ACTIVE);
    assert_true(sc_capture_is_capturing(cap));
    sc_capture_destroy(cap);
}

static void ut_double_begin_rejected(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    assert_int_equal(sc_capture_begin(cap, 0), SC_EALREADY);
    sc_capture_destroy(cap);
}

static void ut_record_on_uncaptured_stream_rejected(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    assert_int_equal(sc_capture_record_kernel(cap, 0, "k", 1, 1, 1, 0, NULL), SC_ENOTCAPTURING);
    sc_capture_destroy(cap);
}

static void ut_sequential_ops_are_chained(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    uint32_t a = kernel(cap, 0, "a"), b = kernel(cap, 0, "b"), c = kernel(cap, 0, "c");
    sc_graph *g = end_ok(cap, 0);
    assert_reach(g, a, b, true);
    assert_reach(g, b, c, true);
    assert_reach(g, a, c, true);
    assert_reach(g, c, a, false);
    assert_int_equal(sc_graph_edge_count(g), 2);
    sc_graph_destroy(g);
}

static void ut_fork_join_reconstructs_dependencies(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    uint32_t up = 0;
    assert_int_equal(
        sc_capture_record_memcpy(cap, 0, "up", 2, SC_DIR_HOST_TO_DEVICE, 1024, 0, 0, &up), 0);
    begin(cap, 1);
    record_event(cap, 0, 0);
    wait_event(cap, 1, 0);
    uint32_t k = kernel(cap, 1, "k");
    record_event(cap, 1, 1);
    wait_event(cap, 0, 1);
    uint32_t dn = 0;
    assert_int_equal(
        sc_capture_record_memcpy(cap, 0, "dn", 2, SC_DIR_DEVICE_TO_HOST, 1024, 0, 0, &dn), 0);
    sc_graph *g = end_ok(cap, 0);
    assert_reach(g, up, k, true);
    assert_reach(g, k, dn, true);
    sc_graph_destroy(g);
}

static void ut_wait_on_unrecorded_event_is_noop(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    wait_event(cap, 0, 9);
    sc_graph *g = end_ok(cap, 0);
    assert_int_equal(sc_graph_edge_count(g), 0);
    sc_graph_destroy(g);
}

static void ut_end_without_begin_errs(void **state)
{
    (void)state;
    assert_end_fails(cap_new(), 0, SC_ENOTCAPTURING);
}

static void ut_pending_wait_applies_to_next_op(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    begin(cap, 1);
    uint32_t a = kernel(cap, 0, "a");
    record_event(cap, 0, 0);
    wait_event(cap, 1, 0);
    uint32_t b = kernel(cap, 1, "b");
    sc_graph *g = end_ok(cap, 0);
    assert_reach(g, a, b, true);
    sc_graph_destroy(g);
}

static void ut_status_display(void **state)
{
    (void)state;
    assert_string_equal(sc_status_name(SC_STATUS_NONE), "none");
    assert_string_equal(sc_status_name(SC_STATUS_ACTIVE), "active");
    assert_string_equal(sc_status_name(SC_STATUS_INVALIDATED), "invalidated");
    assert_null(sc_status_name((sc_status)3));
}

static void ut_event_display(void **state)
{
    (void)state;
    char buf[16];
    assert_int_equal(sc_event_format(3, buf, sizeof buf), 2);
    assert_string_equal(buf, "E3");
    sc_event_format(UINT32_MAX, buf, sizeof buf);
    assert_string_equal(buf, "E4294967295");
}

static void ut_explicit_invalidation_aborts_capture(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    kernel(cap, 0, "k");
    assert_int_equal(sc_capture_invalidate(cap, 0), 0);
    assert_int_equal(sc_capture_status(cap, 0), SC_STATUS_INVALIDATED);
    assert_int_equal(sc_capture_record_kernel(cap, 0, "k", 1, 1, 1, 0, NULL), SC_EINVALIDATED);
    assert_end_fails(cap, 0, SC_EILLEGAL);
}

static void ut_invalidation_poisons_other_streams(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    begin(cap, 1);
    assert_int_equal(sc_capture_invalidate(cap, 0), 0);
    assert_int_equal(sc_capture_status(cap, 1), SC_STATUS_ACTIVE);
    assert_end_fails(cap, 1, SC_EPOISONED);
}

static void ut_node_count_tracks_recorded_ops(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    kernel(cap, 0, "k");
    assert_int_equal(sc_capture_record_memset(cap, 0, "z", 1, 64, 0, NULL), 0);
    assert_int_equal(sc_capture_node_count(cap), 2);
    sc_capture_destroy(cap);
}

/* The API page's example: upload 4096 B HtoD on stream 0, relu 4x256 on
 * stream 1, download DtoH on stream 0. */
static void t_seed_fork_join(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    begin(cap, 1);
    uint32_t up = 9, k = 9, dn = 9;
    assert_int_equal(
        sc_capture_record_memcpy(cap, 0, "upload", 6, SC_DIR_HOST_TO_DEVICE, 4096, 0, 0, &up), 0);
    record_event(cap, 0, 0);
    wait_event(cap, 1, 0);
    assert_int_equal(sc_capture_record_kernel(cap, 1, "relu", 4, 4, 256, 0, &k), 0);
    record_event(cap, 1, 1);
    wait_event(cap, 0, 1);
    assert_int_equal(
        sc_capture_record_memcpy(cap, 0, "download", 8, SC_DIR_DEVICE_TO_HOST, 4096, 0, 0, &dn), 0);
    assert_int_equal(sc_capture_status(cap, 0), SC_STATUS_ACTIVE);
    sc_graph *g = end_ok(cap, 0);
    assert_int_equal(up, 0);
    assert_int_equal(k, 1);
    assert_int_equal(dn, 2);
    static const uint32_t want[][2] = {{0, 1}, {0, 2}, {1, 2}};
    assert_edges(g, want, 3);
    assert_reach(g, up, k, true);
    assert_reach(g, k, dn, true);
    assert_reach(g, dn, up, false);
    sc_node n;
    assert_int_equal(sc_graph_node(g, k, &n), 0);
    assert_int_equal(n.kind, SC_KIND_KERNEL);
    assert_int_equal(n.stream, 1);
    assert_int_equal(n.num_blocks, 4);
    assert_int_equal(n.threads_per_block, 256);
    assert_int_equal(n.name_len, 4);
    assert_memory_equal(n.name, "relu", 4);
    sc_graph_destroy(g);
}

/* ---- event and wait details (docs/semantics.md §4.6, §4.7) -------------- */

static void t_record_event_overwrites(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    begin(cap, 1);
    begin(cap, 2);
    kernel(cap, 0, "a"); /* 0 */
    kernel(cap, 1, "b"); /* 1 */
    record_event(cap, 0, 5);
    record_event(cap, 1, 5); /* from another stream: overwrites */
    wait_event(cap, 2, 5);
    kernel(cap, 2, "c"); /* 2 */
    sc_graph *g = end_ok(cap, 0);
    static const uint32_t want[][2] = {{1, 2}};
    assert_edges(g, want, 1);
    sc_graph_destroy(g);
}

static void t_record_event_without_head_keeps_source(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    begin(cap, 1);
    begin(cap, 2);
    kernel(cap, 0, "a"); /* 0 */
    record_event(cap, 0, 1);
    record_event(cap, 1, 1); /* stream 1 has no head: no-op, e1 still -> 0 */
    wait_event(cap, 2, 1);
    kernel(cap, 2, "c"); /* 1 */
    sc_graph *g = end_ok(cap, 0);
    static const uint32_t want[][2] = {{0, 1}};
    assert_edges(g, want, 1);
    sc_graph_destroy(g);
}

static void t_record_event_ignores_parked_waits(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    begin(cap, 1);
    begin(cap, 2);
    kernel(cap, 0, "a"); /* 0 */
    kernel(cap, 1, "b"); /* 1 */
    record_event(cap, 0, 0);
    wait_event(cap, 1, 0);   /* parked on stream 1 */
    record_event(cap, 1, 1); /* points at b only */
    wait_event(cap, 2, 1);
    kernel(cap, 2, "c"); /* 2 */
    kernel(cap, 1, "d"); /* 3: drains the parked wait */
    sc_graph *g = end_ok(cap, 0);
    static const uint32_t want[][2] = {{0, 3}, {1, 2}, {1, 3}};
    assert_edges(g, want, 3);
    assert_reach(g, 0, 2, false);
    sc_graph_destroy(g);
}

static void t_wait_is_a_snapshot(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    begin(cap, 1);
    kernel(cap, 0, "a"); /* 0 */
    record_event(cap, 0, 0);
    wait_event(cap, 1, 0);
    kernel(cap, 0, "b");     /* 1 */
    record_event(cap, 0, 0); /* too late for the parked wait */
    kernel(cap, 1, "c");     /* 2 */
    sc_graph *g = end_ok(cap, 1);
    static const uint32_t want[][2] = {{0, 1}, {0, 2}};
    assert_edges(g, want, 2);
    assert_reach(g, 1, 2, false);
    sc_graph_destroy(g);
}

static void t_wait_before_record_stays_noop(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    begin(cap, 1);
    kernel(cap, 0, "a");
    wait_event(cap, 1, 4); /* unknown yet */
    record_event(cap, 0, 4);
    kernel(cap, 1, "b");
    sc_graph *g = end_ok(cap, 0);
    assert_int_equal(sc_graph_edge_count(g), 0);
    sc_graph_destroy(g);
}

static void t_wait_gates_only_next_op(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    begin(cap, 1);
    kernel(cap, 1, "x"); /* 0 */
    kernel(cap, 0, "a"); /* 1 */
    record_event(cap, 0, 0);
    wait_event(cap, 1, 0);
    kernel(cap, 1, "y"); /* 2: depends on 1 */
    kernel(cap, 1, "z"); /* 3: only the sequential edge */
    sc_graph *g = end_ok(cap, 0);
    static const uint32_t want[][2] = {{0, 2}, {1, 2}, {2, 3}};
    assert_edges(g, want, 3);
    sc_graph_destroy(g);
}

static void t_parked_duplicates_and_head_dedup(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    begin(cap, 1);
    kernel(cap, 0, "a"); /* 0 */
    record_event(cap, 0, 0);
    kernel(cap, 1, "b"); /* 1 */
    record_event(cap, 1, 1);
    wait_event(cap, 1, 0);
    wait_event(cap, 1, 0);
    wait_event(cap, 1, 1); /* own head: merges with the sequential edge */
    wait_event(cap, 1, 1);
    kernel(cap, 1, "c"); /* 2 */
    sc_graph *g = end_ok(cap, 0);
    static const uint32_t want[][2] = {{0, 2}, {1, 2}};
    assert_edges(g, want, 2);
    sc_graph_destroy(g);
}

static void t_many_parked_waits(void **state)
{
    (void)state;
    /* More waits than the small-list path handles, with duplicates and the
     * stream's own head among them. */
    sc_capture *cap = cap_new();
    enum { SIDES = 20 };
    begin(cap, 0);
    kernel(cap, 0, "h"); /* 0 */
    record_event(cap, 0, 1000);
    for (uint32_t s = 1; s <= SIDES; s++) {
        begin(cap, s);
        kernel(cap, s, "k"); /* s */
        record_event(cap, s, s);
    }
    for (int rep = 0; rep < 2; rep++)
        for (uint32_t s = SIDES; s >= 1; s--)
            wait_event(cap, 0, s);
    wait_event(cap, 0, 1000);
    assert_int_equal(kernel(cap, 0, "j"), SIDES + 1);
    sc_graph *g = end_ok(cap, 0);
    assert_int_equal(sc_graph_edge_count(g), SIDES + 1);
    for (uint32_t i = 0; i <= SIDES; i++) {
        uint32_t s, d;
        assert_int_equal(sc_graph_edge(g, i, &s, &d), 0);
        assert_int_equal(s, i);
        assert_int_equal(d, SIDES + 1);
    }
    sc_graph_destroy(g);
}

static void t_redundant_transitive_edge_kept(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    begin(cap, 1);
    kernel(cap, 0, "a"); /* 0 */
    record_event(cap, 0, 0);
    kernel(cap, 0, "b"); /* 1 */
    record_event(cap, 0, 1);
    wait_event(cap, 1, 1);
    kernel(cap, 1, "c"); /* 2 */
    wait_event(cap, 1, 0);
    kernel(cap, 1, "d"); /* 3: edge 0->3 although 0 ~> 2 -> 3 */
    sc_graph *g = end_ok(cap, 0);
    static const uint32_t want[][2] = {{0, 1}, {0, 3}, {1, 2}, {2, 3}};
    assert_edges(g, want, 4);
    sc_graph_destroy(g);
}

static void t_parked_waits_dropped_at_end(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    begin(cap, 1);
    kernel(cap, 0, "a");
    record_event(cap, 0, 0);
    wait_event(cap, 1, 0);
    sc_graph *g = end_ok(cap, 1);
    assert_int_equal(sc_graph_node_count(g), 1);
    assert_int_equal(sc_graph_edge_count(g), 0);
    sc_graph_destroy(g);
}

static void t_end_empty_session_and_stream_without_ops(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 3);
    sc_graph *g = end_ok(cap, 3);
    assert_int_equal(sc_graph_node_count(g), 0);
    assert_int_equal(sc_graph_edge_count(g), 0);
    assert_int_equal(sc_graph_stream_count(g), 0);
    bool r = false;
    assert_int_equal(sc_graph_build_index(g), 0);
    assert_int_equal(sc_graph_reachable(g, 4, 4, &r), 0);
    assert_true(r);
    assert_int_equal(sc_graph_reachable(g, 0, 1, &r), SC_ENOTFOUND);
    sc_graph_destroy(g);
}

static void t_is_capturing_false_when_all_invalidated(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    begin(cap, 1);
    assert_int_equal(sc_capture_invalidate(cap, 0), 0);
    assert_true(sc_capture_is_capturing(cap));
    assert_int_equal(sc_capture_invalidate(cap, 1), 0);
    assert_false(sc_capture_is_capturing(cap));
    begin(cap, 0);
    assert_true(sc_capture_is_capturing(cap));
    sc_capture_destroy(cap);
}

/* ---- node contents and arguments --------------------------------------- */

static void t_node_attributes(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 9);
    static const char nul_name[] = {'a', '\0', 'b'};
    assert_int_equal(sc_capture_record_kernel(cap, 9, "gemm", 4, 128, 256, 49152, NULL), 0);
    assert_int_equal(
        sc_capture_record_memcpy(cap, 9, "p2p", 3, SC_DIR_PEER_TO_PEER, 8192, UINT32_MAX, 7, NULL),
        0);
    /* devices only belong to peer to peer */
    assert_int_equal(sc_capture_record_memcpy(cap, 9, "d2d", 3, SC_DIR_DEVICE_TO_DEVICE,
                                              UINT64_C(1) << 40, 5, 6, NULL),
                     0);
    assert_int_equal(sc_capture_record_memset(cap, 9, nul_name, 3, 0, 255, NULL), 0);
    assert_int_equal(sc_capture_record_host_callback(cap, 9, "", 0, NULL), 0);

    sc_node n;
    assert_int_equal(sc_capture_node(cap, 0, &n), 0);
    assert_int_equal(n.kind, SC_KIND_KERNEL);
    assert_int_equal(n.stream, 9);
    assert_int_equal(n.num_blocks, 128);
    assert_int_equal(n.threads_per_block, 256);
    assert_int_equal(n.shared_mem, 49152);
    assert_int_equal(n.size_bytes, 0);
    assert_int_equal(sc_capture_node(cap, 1, &n), 0);
    assert_int_equal(n.dir, SC_DIR_PEER_TO_PEER);
    assert_int_equal(n.src_device, UINT32_MAX);
    assert_int_equal(n.dst_device, 7);
    assert_int_equal(n.size_bytes, 8192);
    assert_int_equal(n.num_blocks, 0);
    assert_int_equal(sc_capture_node(cap, 2, &n), 0);
    assert_int_equal(n.dir, SC_DIR_DEVICE_TO_DEVICE);
    assert_int_equal(n.src_device, 0);
    assert_int_equal(n.dst_device, 0);
    assert_int_equal(n.size_bytes, UINT64_C(1) << 40);
    assert_int_equal(sc_capture_node(cap, 3, &n), 0);
    assert_int_equal(n.kind, SC_KIND_MEMSET);
    assert_int_equal(n.value, 255);
    assert_int_equal(n.name_len, 3);
    assert_memory_equal(n.name, nul_name, 3);
    assert_int_equal(n.name[3], '\0');
    assert_int_equal(sc_capture_node(cap, 4, &n), 0);
    assert_int_equal(n.kind, SC_KIND_HOST_CALLBACK);
    assert_int_equal(n.name_len, 0);
    assert_string_equal(n.name, "");
    assert_int_equal(sc_capture_node(cap, 5, &n), SC_ENOTFOUND);

    /* the same through the ended graph */
    sc_graph *g = end_ok(cap, 9);
    assert_int_equal(sc_graph_node(g, 1, &n), 0);
    assert_int_equal(n.src_device, UINT32_MAX);
    assert_int_equal(sc_graph_node(g, 3, &n), 0);
    assert_memory_equal(n.name, nul_name, 3);
    sc_graph_destroy(g);
}

static void t_bad_arguments(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    assert_int_equal(sc_capture_record_memcpy(cap, 0, "m", 1, (sc_memcpy_dir)4, 1, 0, 0, NULL),
                     SC_EINVAL);
    assert_int_equal(sc_capture_record_kernel(cap, 0, NULL, 3, 1, 1, 0, NULL), SC_EINVAL);
    assert_int_equal(sc_capture_node_count(cap), 0);
    /* a NULL name of length 0 is the empty name */
    assert_int_equal(sc_capture_record_kernel(cap, 0, NULL, 0, 1, 1, 0, NULL), 0);
    assert_int_equal(sc_capture_begin(NULL, 0), SC_EINVAL);
    assert_int_equal(sc_capture_status(NULL, 0), SC_STATUS_NONE);
    assert_false(sc_capture_is_capturing(NULL));
    assert_int_equal(sc_capture_end(NULL, 0, NULL), SC_EINVAL);
    assert_int_equal(sc_capture_create(NULL), SC_EINVAL);
    /* a NULL graph_out still consumes the session (ASan checks the free) */
    assert_int_equal(sc_capture_end(cap, 0, NULL), SC_EINVAL);
}

static void t_names_are_interned(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    kernel(cap, 0, "same");
    kernel(cap, 0, "same");
    kernel(cap, 0, "other");
    sc_node a, b, c;
    assert_int_equal(sc_capture_node(cap, 0, &a), 0);
    assert_int_equal(sc_capture_node(cap, 1, &b), 0);
    assert_int_equal(sc_capture_node(cap, 2, &c), 0);
    assert_ptr_equal(a.name, b.name);
    assert_ptr_not_equal(a.name, c.name);
    assert_string_equal(c.name, "other");
    sc_capture_destroy(cap);
}

/* Many streams: the stream table grows and the last-stream cache must
 * never answer for the wrong stream. */
static void t_many_streams(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    enum { N = 3000 };
    for (uint32_t s = 0; s < N; s++)
        begin(cap, s * 7919u);
    for (uint32_t s = 0; s < N; s++)
        assert_int_equal(kernel(cap, s * 7919u, "k"), s);
    for (uint32_t s = 0; s < N; s++)
        assert_int_equal(kernel(cap, s * 7919u, "k"), N + s);
    assert_int_equal(sc_capture_status(cap, 1), SC_STATUS_NONE);
    assert_int_equal(sc_capture_invalidate(cap, 7919u * 5), 0);
    assert_int_equal(sc_capture_status(cap, 7919u * 5), SC_STATUS_INVALIDATED);
    assert_int_equal(sc_capture_status(cap, 7919u * 6), SC_STATUS_ACTIVE);
    sc_capture_destroy(cap);

    cap = cap_new();
    for (uint32_t s = 0; s < N; s++)
        begin(cap, s);
    for (uint32_t s = 0; s < N; s++)
        kernel(cap, s, "k");
    for (uint32_t s = 0; s < N; s++)
        kernel(cap, s, "k");
    sc_graph *g = end_ok(cap, 0);
    assert_int_equal(sc_graph_stream_count(g), N);
    assert_int_equal(sc_graph_edge_count(g), N);
    for (uint32_t s = 0; s < N; s++) {
        uint32_t src, dst;
        assert_int_equal(sc_graph_edge(g, s, &src, &dst), 0);
        assert_int_equal(src, s);
        assert_int_equal(dst, N + s);
    }
    sc_graph_destroy(g);
}

static void t_stream_listing(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    assert_int_equal(sc_capture_stream_count(cap), 0);
    begin(cap, 9);
    begin(cap, 0);
    begin(cap, 4);
    assert_int_equal(sc_capture_begin(cap, 0), SC_EALREADY);
    assert_int_equal(sc_capture_invalidate(cap, 0), 0);
    begin(cap, 0); /* reactivated, not listed twice */
    assert_int_equal(sc_capture_invalidate(cap, 4), 0);
    assert_int_equal(sc_capture_record_kernel(cap, 7, "k", 1, 1, 1, 0, NULL), SC_ENOTCAPTURING);
    assert_int_equal(sc_capture_stream_count(cap), 3);
    static const uint32_t ids[] = {9, 0, 4};
    static const sc_status st[] = {SC_STATUS_ACTIVE, SC_STATUS_ACTIVE, SC_STATUS_INVALIDATED};
    for (uint32_t i = 0; i < 3; i++) {
        uint32_t id = UINT32_MAX;
        sc_status s = SC_STATUS_NONE;
        assert_int_equal(sc_capture_stream_at(cap, i, &id, &s), 0);
        assert_int_equal(id, ids[i]);
        assert_int_equal(s, st[i]);
    }
    uint32_t id;
    sc_status s;
    assert_int_equal(sc_capture_stream_at(cap, 3, &id, &s), SC_ENOTFOUND);
    assert_int_equal(sc_capture_stream_at(cap, 0, NULL, &s), SC_EINVAL);
    assert_int_equal(sc_capture_stream_count(NULL), 0);
    sc_capture_destroy(cap);
}

/* Live memory: 32-byte records plus 4 bytes per edge, amortised chunks.
 * Budget 48 bytes per node plus name bytes. */
static void t_memory_per_node(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    size_t empty = sc_capture_memory(cap);
    assert_true(empty > 0);
    assert_true(empty < 4096);
    begin(cap, 0);
    begin(cap, 1);
    enum { N = 200000 };
    for (uint32_t i = 0; i < N; i++) {
        uint32_t s = i & 1;
        assert_int_equal(sc_capture_record_kernel(cap, s, "k", 1, 1, 1, 0, NULL), 0);
        if (i % 64 == 0) {
            record_event(cap, s, 0);
            wait_event(cap, s ^ 1, 0);
        }
    }
    size_t mem = sc_capture_memory(cap);
    assert_true(mem > (size_t)N * 32);
    assert_true(mem <= (size_t)N * 48);
    sc_graph *g = end_ok(cap, 0);
    assert_true(sc_graph_memory(g) > mem);
    size_t before = sc_graph_memory(g);
    assert_int_equal(sc_graph_build_index(g), 0);
    assert_true(sc_graph_memory(g) >= before + (size_t)N * (2 * 4 + 8));
    sc_graph_destroy(g);
}

/* A recorded node's predecessors are readable while the capture goes on,
 * and they are the sealed graph's. */
static void t_predecessors_while_recording(void **state)
{
    (void)state;
    sc_capture *cap = cap_new();
    begin(cap, 0);
    begin(cap, 1);
    uint32_t a = kernel(cap, 0, "a"), b = kernel(cap, 1, "b");
    record_event(cap, 1, 7);
    wait_event(cap, 0, 7);
    uint32_t c = kernel(cap, 0, "c");
    uint32_t out[4], n = 0;
    assert_int_equal(sc_capture_predecessors(cap, c, out, 4, &n), 0);
    assert_int_equal(n, 2);
    assert_int_equal(out[0], a);
    assert_int_equal(out[1], b);
    assert_int_equal(sc_capture_predecessors(cap, a, out, 4, &n), 0);
    assert_int_equal(n, 0);
    assert_int_equal(sc_capture_predecessors(cap, c + 1, out, 4, &n), SC_ENOTFOUND);
    assert_int_equal(sc_capture_predecessors(NULL, 0, out, 4, &n), SC_EINVAL);
    record_event(cap, 1, 8);
    wait_event(cap, 0, 8);
    sc_graph *g = end_ok(cap, 0);
    assert_int_equal(sc_graph_predecessors(g, c, out, 4, &n), 0);
    assert_int_equal(n, 2);
    assert_int_equal(out[0], a);
    assert_int_equal(out[1], b);
    sc_graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_none_begin_activates),
        cmocka_unit_test(t_none_record_ops_fail),
        cmocka_unit_test(t_none_record_event_fails),
        cmocka_unit_test(t_none_wait_event_fails),
        cmocka_unit_test(t_none_invalidate_fails),
        cmocka_unit_test(t_none_end_fails),
        cmocka_unit_test(t_active_begin_fails),
        cmocka_unit_test(t_active_record_ops),
        cmocka_unit_test(t_active_record_event),
        cmocka_unit_test(t_active_wait_event),
        cmocka_unit_test(t_active_invalidate),
        cmocka_unit_test(t_active_end_returns_graph),
        cmocka_unit_test(t_active_end_poisoned),
        cmocka_unit_test(t_invalidated_begin_reactivates),
        cmocka_unit_test(t_invalidated_record_ops_fail),
        cmocka_unit_test(t_invalidated_record_event_fails),
        cmocka_unit_test(t_invalidated_wait_event_fails),
        cmocka_unit_test(t_invalidated_invalidate_fails),
        cmocka_unit_test(t_invalidated_end_illegal),
        cmocka_unit_test(t_err_already_capturing),
        cmocka_unit_test(t_err_not_capturing),
        cmocka_unit_test(t_err_capture_invalidated),
        cmocka_unit_test(t_err_end_not_capturing),
        cmocka_unit_test(t_err_end_not_capturing_when_poisoned),
        cmocka_unit_test(t_err_end_illegal),
        cmocka_unit_test(t_err_end_poisoned),
        cmocka_unit_test(t_err_message_buffer_rules),
        cmocka_unit_test(t_err_names_and_stream_format),
        cmocka_unit_test(t_err_every_code_named),
        cmocka_unit_test(ut_fresh_stream_is_not_capturing),
        cmocka_unit_test(ut_begin_sets_active),
        cmocka_unit_test(ut_double_begin_rejected),
        cmocka_unit_test(ut_record_on_uncaptured_stream_rejected),
        cmocka_unit_test(ut_sequential_ops_are_chained),
        cmocka_unit_test(ut_fork_join_reconstructs_dependencies),
        cmocka_unit_test(ut_wait_on_unrecorded_event_is_noop),
        cmocka_unit_test(ut_end_without_begin_errs),
        cmocka_unit_test(ut_pending_wait_applies_to_next_op),
        cmocka_unit_test(ut_status_display),
        cmocka_unit_test(ut_event_display),
        cmocka_unit_test(ut_explicit_invalidation_aborts_capture),
        cmocka_unit_test(ut_invalidation_poisons_other_streams),
        cmocka_unit_test(ut_node_count_tracks_recorded_ops),
        cmocka_unit_test(t_seed_fork_join),
        cmocka_unit_test(t_record_event_overwrites),
        cmocka_unit_test(t_record_event_without_head_keeps_source),
        cmocka_unit_test(t_record_event_ignores_parked_waits),
        cmocka_unit_test(t_wait_is_a_snapshot),
        cmocka_unit_test(t_wait_before_record_stays_noop),
        cmocka_unit_test(t_wait_gates_only_next_op),
        cmocka_unit_test(t_parked_duplicates_and_head_dedup),
        cmocka_unit_test(t_many_parked_waits),
        cmocka_unit_test(t_redundant_transitive_edge_kept),
        cmocka_unit_test(t_parked_waits_dropped_at_end),
        cmocka_unit_test(t_end_empty_session_and_stream_without_ops),
        cmocka_unit_test(t_is_capturing_false_when_all_invalidated),
        cmocka_unit_test(t_node_attributes),
        cmocka_unit_test(t_bad_arguments),
        cmocka_unit_test(t_names_are_interned),
        cmocka_unit_test(t_many_streams),
        cmocka_unit_test(t_stream_listing),
        cmocka_unit_test(t_memory_per_node),
        cmocka_unit_test(t_predecessors_while_recording),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
