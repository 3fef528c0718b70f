/*
 * The literal reading of record replies (client/fast_reply.c) against the
 * full decoder: every line it takes it decodes to the same reply, and every
 * line it leaves (other shapes, other methods, errors, ids out of step,
 * numbers out of range) is one the full decoder must see.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "client_int.h"

/* What the I/O thread makes of a line without the literal reading. */
static void full_decode(sc_method_id m, uint64_t id, const char *line, sc_client_reply *r)
{
    cJSON *root = cJSON_Parse(line);
    assert_non_null(root);
    const cJSON *got = cJSON_GetObjectItemCaseSensitive(root, "id");
    assert_true(cJSON_IsNumber(got) && got->valuedouble == (double)id);
    sc_client c;
    memset(&c, 0, sizeof c);
    sc_cl_decode_reply(&c, m, root, r);
    free(c.errdata);
    cJSON_Delete(root);
}

static bool fast(sc_method_id m, uint64_t id, const char *line, sc_client_reply *r)
{
    return sc_cl_fast_reply(m, id, line, strlen(line), r);
}

/* Taken, and decoded as the full decoder decodes it. */
static void expect_same(sc_method_id m, uint64_t id, const char *line, uint64_t node)
{
    sc_client_reply a, b;
    assert_true(fast(m, id, line, &a));
    full_decode(m, id, line, &b);
    assert_int_equal(b.rc, 0);
    assert_int_equal(a.rc, 0);
    assert_ptr_equal(a.method, b.method);
    assert_int_equal(a.id, b.id);
    assert_int_equal(a.id, node);
    assert_memory_equal(&a, &b, sizeof a);
}

static void test_record_replies_read_as_the_tree(void **state)
{
    (void)state;
    expect_same(SC_M_CAPTURE_RECORD_KERNEL, 7,
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"node\":0}}", 0);
    expect_same(SC_M_CAPTURE_RECORD_MEMCPY, 123456789012345,
                "{\"jsonrpc\":\"2.0\",\"id\":123456789012345,\"result\":{\"node\":4294967295}}",
                UINT32_MAX);
    expect_same(SC_M_CAPTURE_RECORD_MEMSET, 10,
                "{\"jsonrpc\":\"2.0\",\"id\":10,\"result\":{\"node\":null}}", UINT64_MAX);
    const sc_method_id all[] = {SC_M_CAPTURE_RECORD_KERNEL,    SC_M_CAPTURE_RECORD_MEMCPY,
                                SC_M_CAPTURE_RECORD_MEMSET,    SC_M_CAPTURE_RECORD_HOST_CALLBACK,
                                SC_M_CAPTURE_RECORD_MEM_ALLOC, SC_M_CAPTURE_RECORD_MEM_FREE,
                                SC_M_CAPTURE_ADD_NODE};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        expect_same(all[i], 3, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"node\":42}}", 42);
}

/* Left to the full decoder. */
static void expect_left(sc_method_id m, uint64_t id, const char *line)
{
    sc_client_reply r;
    memset(&r, 0xa5, sizeof r);
    unsigned char before[sizeof r];
    memcpy(before, &r, sizeof r);
    assert_false(fast(m, id, line, &r));
    assert_memory_equal(&r, before, sizeof r);
}

static void test_other_lines_left_whole(void **state)
{
    (void)state;
    const sc_method_id k = SC_M_CAPTURE_RECORD_KERNEL;
    const char ok[] = "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"node\":9}}";
    /* Another method's result, even in the same shape. */
    expect_left(SC_M_CAPTURE_END, 5, ok);
    expect_left(SC_M_CAPTURE_RECORD_EVENT, 5, ok);
    expect_left(SC_M_SESSION_OPEN, 5, ok);
    /* The id out of step: the full decoder says so. */
    expect_left(k, 6, ok);
    expect_left(k, 50, ok);
    expect_left(k, 1234567890123456,
                "{\"jsonrpc\":\"2.0\",\"id\":1234567890123456,\"result\":{\"node\":9}}");
    /* Replies to request 5 that the full decoder must read. */
    static const char *const others[] = {
        /* a node past the limit the full decoder refuses */
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"node\":4294967296}}",
        /* numbers written otherwise than the daemon writes them */
        "{\"jsonrpc\":\"2.0\",\"id\":05,\"result\":{\"node\":9}}",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"node\":09}}",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"node\":9.0}}",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"node\":-1}}",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"node\":}}",
        /* other shapes: spaces, more members, a cut line, trailing bytes */
        "{\"jsonrpc\": \"2.0\",\"id\":5,\"result\":{\"node\":9}}",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"node\":9,\"x\":1}}",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"node\":9}",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"node\":9}} ",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"node\":nul}}",
        "",
        /* errors */
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":-32602,\"message\":\"bad\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":1000}}",
    };
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        expect_left(k, 5, others[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_replies_read_as_the_tree),
        cmocka_unit_test(test_other_lines_left_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
