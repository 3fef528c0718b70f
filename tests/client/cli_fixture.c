/*
 * cli_fixture.c - see cli_fixture.h.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli_fixture.h"

sc_cli_fx *sc_cli_fx_new(int connect_ms)
{
    sc_cli_fx *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    f->d = sc_it_must_start(NULL);
    assert_int_equal(sc_client_connect(sc_it_daemon_socket(f->d), connect_ms, &f->c), 0);
    assert_int_equal(sc_it_tmpdir(f->tmp, sizeof(f->tmp)), 0);
    return f;
}

void sc_cli_fx_free(sc_cli_fx *f)
{
    sc_client_close(f->c);
    sc_it_must_stop(f->d);
    sc_it_daemon_destroy(f->d);
    sc_it_rmtree(f->tmp);
    free(f);
}

int sc_cli_group_setup(void **state)
{
    *state = sc_cli_fx_new(10000);
    return 0;
}

int sc_cli_group_teardown(void **state)
{
    sc_cli_fx_free(*state);
    return 0;
}

uint64_t sc_cli_demo_graph(sc_cli_fx *f)
{
    sc_ct_result r = sc_cli_run(f, "--json", "demo", NULL);
    sc_cli_expect_status(&r, 0);
    cJSON *j = cJSON_Parse(r.out);
    if (!j)
        fail_msg("demo --json printed %s", r.out);
    uint64_t g = (uint64_t)sc_it_int(j, "graph");
    cJSON_Delete(j);
    sc_ct_result_free(&r);
    return g;
}

static void vrun(const char *socket, const sc_ct_opts *o, sc_ct_result *r, va_list ap)
{
    assert_int_equal(sc_ct_vrun(SC_CLI_STREAMCAP, socket, o, ap, r), 0);
}

sc_ct_result sc_cli_run(sc_cli_fx *f, ...)
{
    sc_ct_result r;
    va_list ap;
    va_start(ap, f);
    vrun(sc_it_daemon_socket(f->d), NULL, &r, ap);
    va_end(ap);
    return r;
}

sc_ct_result sc_cli_run_opts(const char *socket, const sc_ct_opts *o, ...)
{
    sc_ct_result r;
    va_list ap;
    va_start(ap, o);
    vrun(socket, o, &r, ap);
    va_end(ap);
    return r;
}

sc_ct_result sc_cli_sh(sc_cli_fx *f, const char *script)
{
    char *sc = sc_it_fmt("SC=%s --socket %s", SC_CLI_STREAMCAP, sc_it_daemon_socket(f->d));
    char *t = sc_it_fmt("T=%s", f->tmp);
    char *env = sc_it_fmt("STREAMCAP_SOCKET=%s", sc_it_daemon_socket(f->d));
    const char *const set[] = {sc, t, env, NULL};
    sc_ct_opts o = {.setenv = set};
    sc_ct_result r;
    assert_int_equal(sc_ct_sh(script, &o, &r), 0);
    free(sc);
    free(t);
    free(env);
    return r;
}

void sc_cli_expect_status(const sc_ct_result *r, int status)
{
    if (r->status != status)
        fail_msg("exit status %d, want %d\nstdout: %s\nstderr: %s", r->status, status, r->out,
                 r->err);
}

void sc_cli_expect_in(const char *text, const char *want)
{
    if (!strstr(text, want))
        fail_msg("[%s] not in:\n%s", want, text);
}

char *sc_cli_write_file(sc_cli_fx *f, const char *name, const char *text)
{
    char *path = sc_it_fmt("%s/%s", f->tmp, name);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    return path;
}
