/*
 * run.h - run a program as a subprocess for the client tests: arguments,
 * working directory, environment changes, standard input, optionally a
 * terminal as standard error; capture stdout, stderr and the exit status.
 */
#ifndef SC_CT_RUN_H
#define SC_CT_RUN_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct sc_ct_opts {
    const char *cwd;             /* NULL: inherit */
    const char *const *setenv;   /* NULL-terminated "NAME=VALUE" list, or NULL */
    const char *const *unsetenv; /* NULL-terminated names, or NULL */
    const char *stdin_path;      /* NULL: /dev/null */
    bool tty_stderr;             /* standard error is a pseudo-terminal */
    int timeout_ms;              /* 0: 60 s */
} sc_ct_opts;

typedef struct sc_ct_result {
    int status; /* exit code; 128 + signal when killed by one; -1 on timeout */
    char *out;  /* NUL-terminated, malloc'd */
    char *err;
} sc_ct_result;

/** Run argv[0] (a path) with argv.  0, or a negative errno (could not run). */
int sc_ct_run(const char *const *argv, const sc_ct_opts *opts, sc_ct_result *r);
void sc_ct_result_free(sc_ct_result *r);

/** Run PROGRAM, then "--socket SOCKET" unless socket is NULL, then the
 *  NULL-terminated words of ap: at most SC_CT_MAX_ARGS words in all.
 *  0, -E2BIG, or what sc_ct_run returns. */
#define SC_CT_MAX_ARGS 64
int sc_ct_vrun(const char *program, const char *socket, const sc_ct_opts *opts, va_list ap,
               sc_ct_result *r);

/** "sh -c SCRIPT" with the same options. */
int sc_ct_sh(const char *script, const sc_ct_opts *opts, sc_ct_result *r);

#endif
