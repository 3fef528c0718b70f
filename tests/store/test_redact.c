/*
 * test_redact.c - sc_redact_db (daemon/sc_redact.h): a PostgreSQL
 * connection string's password never survives, in any of the forms libpq
 * reads, and everything else is shown as it was given.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sc_redact.h"

static void expect(const char *db, const char *want)
{
    char out[512];
    memset(out, 'x', sizeof out);
    const char *got = sc_redact_db(db, out, sizeof out);
    assert_ptr_equal(got, out);
    if (strcmp(got, want) != 0)
        fail_msg("sc_redact_db(\"%s\") = \"%s\", want \"%s\"", db ? db : "(null)", got, want);
}

static void test_uri_user_info(void **state)
{
    (void)state;
    expect("postgresql://user:secret@db.example/streamcap",
           "postgresql://user:***@db.example/streamcap");
    expect("postgres://user:secret@db.example:5432/streamcap",
           "postgres://user:***@db.example:5432/streamcap");
    /* Two hosts, an empty user name, a colon and '@' inside the password
     * (the user info ends at the first '@', as libpq reads it). */
    expect("postgresql://u:s:e@h1:5432,h2/db", "postgresql://u:***@h1:5432,h2/db");
    expect("postgresql://:secret@h/db", "postgresql://:***@h/db");
    expect("postgresql://u:%40secret@h/db", "postgresql://u:***@h/db");
    /* No password: nothing to hide. */
    expect("postgresql://user@h/db", "postgresql://user@h/db");
    expect("postgresql://h:5432/db", "postgresql://h:5432/db");
    expect("postgresql://", "postgresql://");
    /* An '@' after the first '/' is not user info. */
    expect("postgresql://h/db?application_name=a:b@c", "postgresql://h/db?application_name=a:b@c");
    /* postgres: before a URI */
    expect("postgres:postgresql://u:secret@h/db", "postgres:postgresql://u:***@h/db");
}

static void test_uri_query(void **state)
{
    (void)state;
    expect("postgresql://h/db?user=u&password=secret", "postgresql://h/db?user=u&password=***");
    expect("postgresql://h/db?password=secret&sslmode=require",
           "postgresql://h/db?password=***&sslmode=require");
    expect("postgresql://u:one@h/db?password=two&sslpassword=three",
           "postgresql://u:***@h/db?password=***&sslpassword=***");
    /* libpq decodes the keys: pass%77ord is password. */
    expect("postgresql://h/db?pass%77ord=secret", "postgresql://h/db?pass%77ord=***");
    expect("postgresql://h/db?passwords=fine&password",
           "postgresql://h/db?passwords=fine&password");
}

static void test_keywords(void **state)
{
    (void)state;
    expect("postgres:host=db.example password=secret dbname=streamcap",
           "postgres:host=db.example password=*** dbname=streamcap");
    expect("postgres:password = secret", "postgres:password = ***");
    expect("postgres:host=h password='se cret \\' still' dbname=x",
           "postgres:host=h password=*** dbname=x");
    expect("postgres:password=se\\ cret user=u", "postgres:password=*** user=u");
    expect("postgres:sslpassword=k1 password=k2", "postgres:sslpassword=*** password=***");
    /* An unterminated quote hides the rest. */
    expect("postgres:password='secret user=u", "postgres:password=***");
    /* Not key=value past the password keyword: whatever follows is hidden. */
    expect("postgres:password secret", "postgres:password ***");
    expect("postgres:host=h user=u", "postgres:host=h user=u");
    expect("postgres:", "postgres:");
}

static void test_not_postgresql(void **state)
{
    (void)state;
    expect("/var/lib/streamcap/streamcap.db", "/var/lib/streamcap/streamcap.db");
    expect("dir/password=x:y@z.db", "dir/password=x:y@z.db");
    expect(NULL, "");
}

static void test_bounded(void **state)
{
    (void)state;
    char out[24];
    sc_redact_db("postgresql://user:secret@db.example/streamcap", out, sizeof out);
    assert_string_equal(out, "postgresql://user:***@d");
    /* Cut before the mask: the secret is still not there. */
    char small[20];
    sc_redact_db("postgresql://user:secret@h/db", small, sizeof small);
    assert_string_equal(small, "postgresql://user:*");
    char one[1] = {'x'};
    sc_redact_db("postgresql://u:secret@h/db", one, sizeof one);
    assert_int_equal(one[0], '\0');
    assert_ptr_equal(sc_redact_db("abc", NULL, 0), NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uri_user_info), cmocka_unit_test(test_uri_query),
        cmocka_unit_test(test_keywords),      cmocka_unit_test(test_not_postgresql),
        cmocka_unit_test(test_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
