/*
 * test_cond_node.c - a conditional node's fields on the wire
 * (daemon/sc_cond_node.h): what is taken, what each refusal names, and
 * what graph.get writes back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sc_cond_node.h"

/* Read the node object `json` into *n: 0 or -1 with *err filled. */
static int read_text(const char *json, sc_node *n, sc_rpc_error *err)
{
    sc_jdoc d;
    sc_jdoc_init(&d);
    memset(n, 0, sizeof *n);
    memset(err, 0, sizeof *err);
    assert_int_equal(sc_jdoc_parse(&d, json, strlen(json), err), 0);
    int rc = sc_cond_node_read(sc_jdoc_root(&d), n, err);
    sc_jdoc_free(&d);
    return rc;
}

/* `json` is refused with -32602 naming `field` in data and message. */
static void refused(const char *json, const char *field)
{
    sc_node n;
    sc_rpc_error err;
    if (read_text(json, &n, &err) != -1)
        fail_msg("%s was taken", json);
    assert_int_equal(err.code, SC_RPC_INVALID_PARAMS);
    char quoted[64];
    snprintf(quoted, sizeof quoted, "'%s'", field);
    if (!err.field || strcmp(err.field, field) != 0 || !strstr(err.message, quoted))
        fail_msg("%s: field %s, message \"%s\", want one naming %s", json,
                 err.field ? err.field : "(none)", err.message, field);
}

static void test_taken(void **state)
{
    (void)state;
    sc_node n;
    sc_rpc_error err;
    assert_int_equal(read_text("{\"type\":\"if\",\"size\":2,\"default_value\":4294967295,"
                               "\"flags\":1}",
                               &n, &err),
                     0);
    assert_int_equal(n.cond_type, SC_COND_IF);
    assert_int_equal(n.cond_size, 2);
    assert_int_equal(n.cond_default, 4294967295u);
    assert_int_equal(n.cond_flags, SC_COND_ASSIGN_DEFAULT);
    assert_int_equal(read_text("{\"type\":\"while\",\"size\":1}", &n, &err), 0);
    assert_int_equal(n.cond_type, SC_COND_WHILE);
    assert_int_equal(n.cond_default, 0);
    assert_int_equal(n.cond_flags, 0);
    assert_int_equal(read_text("{\"type\":\"switch\",\"size\":1000,\"default_value\":3}", &n, &err),
                     0);
    assert_int_equal(n.cond_type, SC_COND_SWITCH);
    assert_int_equal(n.cond_size, 1000);
}

static void test_refused(void **state)
{
    (void)state;
    refused("{\"size\":1}", "type");
    refused("{\"type\":\"IF\",\"size\":1}", "type");
    refused("{\"type\":1,\"size\":1}", "type");
    refused("{\"type\":\"if\"}", "size");
    refused("{\"type\":\"if\",\"size\":0}", "size");
    refused("{\"type\":\"if\",\"size\":3}", "size");
    refused("{\"type\":\"while\",\"size\":2}", "size");
    refused("{\"type\":\"switch\",\"size\":0}", "size");
    refused("{\"type\":\"switch\",\"size\":-1}", "size");
    refused("{\"type\":\"if\",\"size\":1,\"default_value\":4294967296}", "default_value");
    refused("{\"type\":\"if\",\"size\":1,\"default_value\":\"1\"}", "default_value");
    refused("{\"type\":\"if\",\"size\":1,\"flags\":2}", "flags");
    refused("{\"type\":\"if\",\"size\":1,\"flags\":3}", "flags");
}

static void test_written(void **state)
{
    (void)state;
    sc_node n;
    memset(&n, 0, sizeof n);
    n.kind = (sc_node_kind)SC_KIND_CONDITIONAL;
    n.cond_type = SC_COND_SWITCH;
    n.cond_size = 4;
    n.cond_default = 2;
    n.cond_flags = SC_COND_ASSIGN_DEFAULT;
    sc_buf b;
    sc_buf_init(&b);
    bool first;
    sc_json_obj_begin(&b, &first);
    sc_cond_node_write(&b, &first, &n);
    sc_json_obj_end(&b);
    assert_int_equal(b.len,
                     strlen("{\"type\":\"switch\",\"size\":4,\"default_value\":2,\"flags\":1}"));
    assert_memory_equal(b.data, "{\"type\":\"switch\",\"size\":4,\"default_value\":2,\"flags\":1}",
                        b.len);
    /* Other kinds have none of the four. */
    n.kind = (sc_node_kind)SC_KIND_EMPTY;
    sc_buf_reset(&b);
    first = true;
    sc_cond_node_write(&b, &first, &n);
    assert_int_equal(b.len, 0);
    assert_true(first);
    sc_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_taken),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_written),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
