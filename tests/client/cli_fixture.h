/*
 * cli_fixture.h - the streamcap tool's tests' fixture: a real streamcapd,
 * a libstreamcap client connected to it (to set up and inspect what the
 * tool did), a temporary directory, and the tool run as a subprocess
 * against that daemon with its stdout, stderr and exit status captured.
 * Each helper fails the current cmocka test when it cannot do its part.
 */
#ifndef SC_CLI_FIXTURE_H
#define SC_CLI_FIXTURE_H

#include "harness.h"
#include "run.h"
#include "streamcap.h"

/* The streamcap binary of this build. */
#define SC_CLI_STREAMCAP SC_BIN_DIR "/streamcap"

typedef struct sc_cli_fx {
    sc_it_daemon *d;
    sc_client *c; /* connected to d */
    char tmp[64]; /* a temporary directory, removed with the fixture */
} sc_cli_fx;

/** Start a daemon, connect a client within connect_ms, make the
 *  temporary directory. */
sc_cli_fx *sc_cli_fx_new(int connect_ms);
/** Close the client, stop the daemon, remove the directory, free f. */
void sc_cli_fx_free(sc_cli_fx *f);
/** cmocka group setup: *state a new sc_cli_fx, connected within 10 s. */
int sc_cli_group_setup(void **state);
/** cmocka group teardown of a suite whose *state is an sc_cli_fx. */
int sc_cli_group_teardown(void **state);
/** Run `demo --json` (upload -> relu -> download with the shortcut
 *  upload -> download) and return the graph it stored. */
uint64_t sc_cli_demo_graph(sc_cli_fx *f);

/** streamcap --socket (f's daemon) ARGS... (NULL-terminated). */
sc_ct_result sc_cli_run(sc_cli_fx *f, ...);
/** streamcap with options o and --socket `socket` (NULL: none) ARGS...
 *  (NULL-terminated). */
sc_ct_result sc_cli_run_opts(const char *socket, const sc_ct_opts *o, ...);
/** sh -c SCRIPT with $SC (the tool and its --socket), $T (the temporary
 *  directory) and STREAMCAP_SOCKET (f's daemon) set. */
sc_ct_result sc_cli_sh(sc_cli_fx *f, const char *script);

/** Fail unless the tool exited `status` (its output in the message). */
void sc_cli_expect_status(const sc_ct_result *r, int status);
/** Fail unless `want` is in `text`. */
void sc_cli_expect_in(const char *text, const char *want);
/** Write `text` to NAME in the temporary directory; its path, malloc'd. */
char *sc_cli_write_file(sc_cli_fx *f, const char *name, const char *text);

#endif
