/*
 * test_web_req.c - what `streamcap web` checks of a request before it
 * answers (cli/cli_web_req.c): Host, token, routes, listen addresses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cli_web.h"

static void test_host(void **state)
{
    (void)state;
    assert_true(web_host_ok("127.0.0.1:8080", "127.0.0.1:8080", 8080, true));
    assert_true(web_host_ok("localhost:8080", "127.0.0.1:8080", 8080, true));
    assert_true(web_host_ok("LOCALHOST:8080", "127.0.0.1:8080", 8080, true));
    assert_false(web_host_ok("localhost:8080", "10.0.0.5:8080", 8080, false));
    assert_false(web_host_ok("evil.example:8080", "127.0.0.1:8080", 8080, true));
    assert_false(web_host_ok("127.0.0.1:8081", "127.0.0.1:8080", 8080, true));
    assert_false(web_host_ok("127.0.0.1", "127.0.0.1:8080", 8080, true));
    assert_false(web_host_ok(NULL, "127.0.0.1:8080", 8080, true));
    assert_false(web_host_ok("", "127.0.0.1:8080", 8080, true));
}

static void test_token(void **state)
{
    (void)state;
    char a[WEB_TOKEN_HEX + 1], b[WEB_TOKEN_HEX + 1];
    assert_int_equal(web_token_new(a), 0);
    assert_int_equal(web_token_new(b), 0);
    assert_int_equal(strlen(a), WEB_TOKEN_HEX);
    assert_string_not_equal(a, b);
    assert_int_equal(strspn(a, "0123456789abcdef"), WEB_TOKEN_HEX);
    assert_true(web_token_ok(a, a));
    assert_false(web_token_ok(b, a));
    assert_false(web_token_ok(NULL, a));
    assert_false(web_token_ok("", a));
    char shorter[WEB_TOKEN_HEX];
    memcpy(shorter, a, WEB_TOKEN_HEX - 1);
    shorter[WEB_TOKEN_HEX - 1] = '\0';
    assert_false(web_token_ok(shorter, a));
}

static void test_routes(void **state)
{
    (void)state;
    assert_int_equal(web_route_parse("/").kind, WEB_R_LOG);
    web_route r = web_route_parse("/graph/42");
    assert_int_equal(r.kind, WEB_R_GRAPH);
    assert_int_equal(r.a, 42);
    r = web_route_parse("/diff/3/4");
    assert_int_equal(r.kind, WEB_R_DIFF);
    assert_int_equal(r.a, 3);
    assert_int_equal(r.b, 4);
    r = web_route_parse("/graph/abc");
    assert_int_equal(r.kind, WEB_R_BAD_ID);
    assert_int_equal(r.rest_len, 3);
    assert_memory_equal(r.rest, "abc", 3);
    r = web_route_parse("/diff/3/0");
    assert_int_equal(r.kind, WEB_R_BAD_ID);
    assert_memory_equal(r.rest, "0", 1);
    assert_int_equal(web_route_parse("/graph/99999999999999999").kind, WEB_R_BAD_ID);
    assert_int_equal(web_route_parse("/graph/1/x").kind, WEB_R_NONE);
    assert_int_equal(web_route_parse("/diff/3").kind, WEB_R_NONE);
    r = web_route_parse("/assets/log.js");
    assert_int_equal(r.kind, WEB_R_ASSET);
    assert_string_equal(r.rest, "log.js");
    assert_int_equal(web_route_parse("/assets/../x").kind, WEB_R_NONE);
    r = web_route_parse("/api/graph/1/svg");
    assert_int_equal(r.kind, WEB_R_API);
    assert_string_equal(r.rest, "graph/1/svg");
    assert_int_equal(web_route_parse("/etc/passwd").kind, WEB_R_NONE);
    assert_int_equal(web_route_parse("").kind, WEB_R_NONE);
}

static void test_listen(void **state)
{
    (void)state;
    struct sockaddr_storage ss;
    socklen_t len;
    char why[256], name[128];
    assert_int_equal(web_parse_listen("127.0.0.1:8080", &ss, &len, why, sizeof(why)), 0);
    assert_true(web_is_loopback(&ss));
    web_host_name(&ss, 8080, name, sizeof(name));
    assert_string_equal(name, "127.0.0.1:8080");
    assert_int_equal(web_parse_listen("[::1]:0", &ss, &len, why, sizeof(why)), 0);
    assert_true(web_is_loopback(&ss));
    web_host_name(&ss, 9, name, sizeof(name));
    assert_string_equal(name, "[::1]:9");
    assert_int_equal(web_parse_listen("10.1.2.3:80", &ss, &len, why, sizeof(why)), 0);
    assert_false(web_is_loopback(&ss));
    /* The Host check needs an address browsers name. */
    assert_int_equal(web_parse_listen("0.0.0.0:80", &ss, &len, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "Host"));
    assert_int_equal(web_parse_listen("[::]:80", &ss, &len, why, sizeof(why)), -1);
    assert_int_equal(web_parse_listen("localhost:80", &ss, &len, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "numeric"));
    assert_int_equal(web_parse_listen("127.0.0.1", &ss, &len, why, sizeof(why)), -1);
    assert_int_equal(web_parse_listen("127.0.0.1:65536", &ss, &len, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "ADDR:PORT"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host),
        cmocka_unit_test(test_token),
        cmocka_unit_test(test_routes),
        cmocka_unit_test(test_listen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
