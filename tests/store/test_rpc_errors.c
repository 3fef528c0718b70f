/*
 * test_rpc_errors.c - the daemon's mapping of core and store codes onto
 * JSON-RPC errors (daemon/errors.c): every code of each source space gets
 * its intended code, kind and message, and the error spaces stay apart.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sc_handlers.h"

/* Every core code, the JSON-RPC code it becomes and the kind on the wire. */
static const struct {
    int core;
    int rpc;
    const char *kind;
} core_map[] = {
    {SC_ENOMEM, SC_RPC_INTERNAL_ERROR, "internal_error"},
    {SC_EINVAL, SC_RPC_INTERNAL_ERROR, "internal_error"},
    {SC_ENOTFOUND, SC_RPC_INTERNAL_ERROR, "internal_error"},
    {SC_ELIMIT, SC_RPC_LIMIT, "limit"},
    {SC_EALREADY, SC_RPC_CAPTURE_STATE, "capture_state"},
    {SC_ENOTCAPTURING, SC_RPC_CAPTURE_STATE, "capture_state"},
    {SC_EINVALIDATED, SC_RPC_INVALIDATED, "invalidated"},
    {SC_EILLEGAL, SC_RPC_INVALIDATED, "invalidated"},
    {SC_EPOISONED, SC_RPC_INVALIDATED, "invalidated"},
};
#define N_CORE (sizeof core_map / sizeof core_map[0])

/* Every store code, with SQLite's message "disk I/O error" passed along. */
static const struct {
    int store;
    int rpc;
    const char *message;
} store_map[] = {
    {SC_STORE_ENOTFOUND, SC_RPC_STORAGE, "storage error: disk I/O error"},
    {SC_STORE_EIO, SC_RPC_STORAGE, "storage error: disk I/O error"},
    {SC_STORE_ECLOSED, SC_RPC_SHUTTING_DOWN, "daemon is shutting down"},
    {SC_STORE_ENOMEM, SC_RPC_INTERNAL_ERROR, "out of memory"},
    {SC_STORE_EINVAL, SC_RPC_STORAGE, "storage error: disk I/O error"},
};
#define N_STORE (sizeof store_map / sizeof store_map[0])

static bool is_rpc_code(int code)
{
    return (code >= SC_RPC_STD__MIN && code <= SC_RPC_STD__MAX) ||
           (code >= SC_RPC_APP__MIN && code <= SC_RPC_APP__MAX);
}

static void test_every_core_code_maps(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_CORE; i++) {
        sc_rpc_error err;
        memset(&err, 0x5a, sizeof err);
        int rc = sc_core_rpc_error(&err, core_map[i].core, 3);
        if (rc != core_map[i].rpc)
            fail_msg("%s: %d, want %d", sc_error_name(core_map[i].core), rc, core_map[i].rpc);
        assert_int_equal(err.code, core_map[i].rpc);
        assert_true(is_rpc_code(err.code));
        assert_string_equal(sc_rpc_error_kind(err.code), core_map[i].kind);
        assert_null(err.field);
        assert_null(err.what);
        /* The message of docs/semantics.md §8, with the stream where it names one. */
        char want[sizeof err.message];
        sc_error_message(core_map[i].core, 3, want, sizeof want);
        assert_string_equal(err.message, want);
    }
}

/* The table above holds every named core code, so none goes untested. */
static void test_core_table_is_complete(void **state)
{
    (void)state;
    size_t named = 0;
    for (int code = SC_E__MIN; code <= SC_E__MAX; code++)
        if (strcmp(sc_error_name(code), "EUNKNOWN") != 0)
            named++;
    assert_int_equal(named, N_CORE);
    for (size_t i = 0; i < N_CORE; i++)
        assert_in_range(core_map[i].core, SC_E__MIN, SC_E__MAX);
    /* A code outside the core's list is an internal error, not a crash. */
    sc_rpc_error err;
    assert_int_equal(sc_core_rpc_error(&err, SC_E__MIN, 0), SC_RPC_INTERNAL_ERROR);
    assert_string_equal(err.message, "unknown error");
}

static void test_every_store_code_maps(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_STORE; i++) {
        assert_in_range(store_map[i].store, SC_STORE_E__MIN, SC_STORE_E__MAX);
        for (size_t j = 0; j < i; j++)
            assert_int_not_equal(store_map[i].store, store_map[j].store);
        sc_rpc_error err;
        memset(&err, 0x5a, sizeof err);
        int rc = sc_store_rpc_error(&err, store_map[i].store, "disk I/O error");
        if (rc != store_map[i].rpc)
            fail_msg("store code %d: %d, want %d", store_map[i].store, rc, store_map[i].rpc);
        assert_int_equal(err.code, store_map[i].rpc);
        assert_true(is_rpc_code(err.code));
        assert_string_equal(err.message, store_map[i].message);
        assert_null(err.field);
        assert_null(err.what);
    }
    /* Without SQLite's message. */
    sc_rpc_error err;
    assert_int_equal(sc_store_rpc_error(&err, SC_STORE_EIO, NULL), SC_RPC_STORAGE);
    assert_string_equal(err.message, "storage error: database failed");
}

/* Every CUDA error of a cuda-mode session becomes 1009 with CUDA's number,
 * name and text (docs/cuda-semantics.md §2), through either mapping. */
static void test_every_cuda_code_maps(void **state)
{
    (void)state;
    static const struct {
        int core;
        int number;
        const char *name;
    } cuda_map[] = {
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
    size_t named = 0;
    for (int code = SC_E__MIN; code <= SC_E__MAX; code++)
        if (sc_cuda_error_number(code) != 0)
            named++;
    assert_int_equal(named, sizeof cuda_map / sizeof cuda_map[0]);
    for (size_t i = 0; i < sizeof cuda_map / sizeof cuda_map[0]; i++) {
        for (int via = 0; via < 2; via++) {
            sc_rpc_error err;
            memset(&err, 0x5a, sizeof err);
            int rc = via ? sc_core_rpc_error(&err, cuda_map[i].core, 3)
                         : sc_cuda_rpc_error(&err, cuda_map[i].core);
            assert_int_equal(rc, SC_RPC_CUDA);
            assert_int_equal(err.code, SC_RPC_CUDA);
            assert_string_equal(sc_rpc_error_kind(err.code), "cuda");
            assert_int_equal(err.cuda_error, cuda_map[i].number);
            assert_string_equal(err.cuda_name, cuda_map[i].name);
            assert_string_equal(err.message, sc_cuda_error_string(cuda_map[i].core));
            assert_null(err.field);
            assert_null(err.what);
            assert_null(err.extra);
        }
    }
    /* A core code that is no CUDA error keeps its default-mode mapping. */
    sc_rpc_error err;
    memset(&err, 0x5a, sizeof err);
    assert_int_equal(sc_cuda_rpc_error(&err, SC_ELIMIT), SC_RPC_LIMIT);
    assert_null(err.cuda_name);
    assert_null(err.extra);
}

/* A code of one space is never a code of another. */
static void test_spaces_are_disjoint(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_CORE; i++) {
        assert_false(core_map[i].core >= SC_STORE_E__MIN && core_map[i].core <= SC_STORE_E__MAX);
        assert_false(is_rpc_code(core_map[i].core));
        /* Negated errno values stay above -200. */
        assert_true(core_map[i].core < -199);
    }
    for (size_t i = 0; i < N_STORE; i++) {
        assert_false(store_map[i].store >= SC_E__MIN && store_map[i].store <= SC_E__MAX);
        assert_false(is_rpc_code(store_map[i].store));
        assert_true(store_map[i].store < -199);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_core_code_maps),  cmocka_unit_test(test_core_table_is_complete),
        cmocka_unit_test(test_every_store_code_maps), cmocka_unit_test(test_every_cuda_code_maps),
        cmocka_unit_test(test_spaces_are_disjoint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
