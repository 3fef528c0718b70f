/*
 * harness.h - drive a real streamcapd from integration tests.
 *
 * A daemon handle owns a fresh temporary directory holding the socket, the
 * database and the daemon's stdout/stderr files; it can be started, stopped,
 * killed and restarted on the same directory any number of times.  A
 * connection handle is one AF_UNIX client connection speaking line-framed
 * JSON-RPC with poll() timeouts, so no test can hang on a silent daemon.
 *
 * Two layers:
 *   - sc_it_* functions that return 0 or a negative errno-style code and never
 *     touch cmocka: safe from any thread (the concurrency tests use these);
 *   - sc_it_must_* / sc_it_call / sc_it_ok / sc_it_err helpers that fail the
 *     current cmocka test with a precise message (request sent, reply got,
 *     what was expected): main test thread only.
 *
 * Nothing here keeps global state; every handle is independent, so tests
 * run in parallel under ctest.  A started daemon dies with the test process
 * (PR_SET_PDEATHSIG), so a failed assertion never leaves one behind; the
 * temporary directory of a failed test is kept for inspection.
 */
#ifndef SC_IT_HARNESS_H
#define SC_IT_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Default time limits, in milliseconds. */
#define SC_IT_START_TIMEOUT_MS 10000
#define SC_IT_STOP_TIMEOUT_MS  10000
#define SC_IT_IO_TIMEOUT_MS    10000

/* Result codes beyond negative errno values. */
#define SC_IT_EOF (-10001) /* the peer closed the connection */

/* ---------------------------------------------------------------- daemon */

typedef struct sc_it_daemon sc_it_daemon;

/** Make a fresh temporary directory (nothing started yet). */
int sc_it_daemon_create(sc_it_daemon **out);
/** Kill the daemon if it still runs (SIGKILL), remove the directory, free. */
void sc_it_daemon_destroy(sc_it_daemon *d);

/**
 * Start streamcapd with `--socket <dir>/streamcap.sock --db <dir>/streamcap.db`
 * followed by `extra` (a NULL-terminated list; NULL for none).  Returns once
 * the daemon printed its "listening" line or its socket accepts a
 * connection; -ETIMEDOUT after SC_IT_START_TIMEOUT_MS, -ECHILD when the
 * daemon exited first (its status in sc_it_daemon_status()).
 */
int sc_it_daemon_start(sc_it_daemon *d, const char *const *extra);
/** SIGTERM (or `sig`) then wait for exit; *status is the waitpid status. */
int sc_it_daemon_signal_stop(sc_it_daemon *d, int sig, int *status);
/** SIGKILL then reap. */
int sc_it_daemon_kill(sc_it_daemon *d);
/** True while the started daemon has not exited (reaps it if it has). */
bool sc_it_daemon_running(sc_it_daemon *d);

const char *sc_it_daemon_dir(const sc_it_daemon *d);
const char *sc_it_daemon_socket(const sc_it_daemon *d);
const char *sc_it_daemon_db(const sc_it_daemon *d);
pid_t sc_it_daemon_pid(const sc_it_daemon *d);
/** waitpid status of the last daemon that exited; -1 if none did. */
int sc_it_daemon_status(const sc_it_daemon *d);
/** Paths of the current (or last) run's stdout and stderr capture files. */
const char *sc_it_daemon_stdout_path(const sc_it_daemon *d);
const char *sc_it_daemon_stderr_path(const sc_it_daemon *d);

/** Path of the streamcapd binary under test. */
const char *sc_it_daemon_binary(void);

/**
 * Start `path` instead of the build's streamcapd from the next start on
 * (an installed copy); NULL goes back to the build's.  The string must
 * outlive the starts that use it.
 */
void sc_it_daemon_set_binary(sc_it_daemon *d, const char *path);
/**
 * Run streamcapd under `wrapper` from the next start on: a NULL-terminated
 * argv whose first element is a path (valgrind and its options), placed in
 * front of the daemon's own command line; NULL for none.  The strings must
 * outlive the starts that use them.
 */
void sc_it_daemon_set_wrapper(sc_it_daemon *d, const char *const *wrapper);
/**
 * Time limits of sc_it_daemon_start and sc_it_daemon_signal_stop (and so of
 * the must_ helpers) for this handle; 0 keeps SC_IT_START_TIMEOUT_MS or
 * SC_IT_STOP_TIMEOUT_MS.
 */
void sc_it_daemon_set_timeouts(sc_it_daemon *d, int start_ms, int stop_ms);

/**
 * Run streamcapd with exactly `args` (NULL-terminated, argv[0] excluded) in
 * directory `dir`, wait up to `timeout_ms` for it to exit and capture its
 * output.  *out and *err (either may be NULL) are malloc'd NUL-terminated
 * texts.  -ETIMEDOUT (the process is then killed) or 0 with *status set.
 */
int sc_it_run_daemon(const char *dir, const char *const *args, int timeout_ms, int *status,
                     char **out, char **err);

/* ------------------------------------------------------ files, sockets */

/**
 * A fresh directory under /tmp (short: socket paths live there) into `out`
 * (at least 18 bytes).  0 or a negative errno.
 */
int sc_it_tmpdir(char *out, size_t len);
/** Remove a directory tree (what can be removed of it). */
void sc_it_rmtree(const char *dir);

/**
 * A blocking, close-on-exec AF_UNIX stream socket connected to `path`
 * (no line framing, no timeouts: for tests of raw socket behaviour).
 * The descriptor, or a negative errno.
 */
int sc_it_socket_connect(const char *path);
/**
 * An AF_UNIX stream socket bound to `path` and not listening: a socket
 * file nobody answers on.  The descriptor, or a negative errno.
 */
int sc_it_socket_bind(const char *path);

/* ------------------------------------------------------------ connection */

typedef struct sc_it_conn sc_it_conn;

/** Connect to a Unix socket. */
int sc_it_connect(const char *socket_path, sc_it_conn **out);
/** Close (and free); NULL is a no-op. */
void sc_it_conn_close(sc_it_conn *c);
/** Per-read/write time limit for this connection (default SC_IT_IO_TIMEOUT_MS). */
void sc_it_conn_set_timeout(sc_it_conn *c, int timeout_ms);

/**
 * Write all of `data`.  While the socket is full, incoming bytes are read
 * into the receive buffer so that a pipelining client never deadlocks with
 * a daemon that is itself blocked writing replies.
 */
int sc_it_send(sc_it_conn *c, const char *data, size_t len);
/** sc_it_send of `line` plus "\n". */
int sc_it_send_line(sc_it_conn *c, const char *line);
/** `n` lines (each without "\n"), each plus "\n", in one sc_it_send: pipelined requests. */
int sc_it_send_lines(sc_it_conn *c, char *const *lines, size_t n);
/** Next line without its "\n" (malloc'd, *len optional); SC_IT_EOF, -ETIMEDOUT. */
int sc_it_recv_line(sc_it_conn *c, char **line, size_t *len);
/** Like sc_it_recv_line, parsed as JSON (caller cJSON_Delete's it). */
int sc_it_recv_json(sc_it_conn *c, cJSON **out);
/**
 * 0 if nothing arrives for `wait_ms` (the bytes, if any, stay buffered);
 * -EEXIST if a line or partial line arrived; SC_IT_EOF if the peer closed.
 */
int sc_it_expect_silence(sc_it_conn *c, int wait_ms);
/** 0 when the peer closes within the timeout with no further data. */
int sc_it_expect_eof(sc_it_conn *c);

/** Next request id of this connection (1, 2, ...). */
int64_t sc_it_next_id(sc_it_conn *c);

/**
 * Format one request line (no newline): params_json is a JSON object text
 * or NULL for no params member.  malloc'd.
 */
char *sc_it_format_request(int64_t id, const char *method, const char *params_json);

/**
 * Send one request (params as a printf format yielding a JSON object, NULL
 * for none) and read its reply.  Returns 0 with *reply set (any JSON-RPC
 * reply, result or error) or a negative code; -EPROTO when the reply is not
 * an object carrying jsonrpc "2.0" and the request's id.  Thread-safe per
 * connection.
 */
int sc_it_try_call(sc_it_conn *c, cJSON **reply, const char *method, const char *params_fmt, ...)
    __attribute__((format(printf, 4, 5)));

/** Text of the last request sent by sc_it_try_call, sc_it_call or sc_it_must_send_line. */
const char *sc_it_last_request(const sc_it_conn *c);

/* ----------------------------------------------------------- JSON access */

/** obj[name] if it is a number holding an exact integer, else false. */
bool sc_it_json_int(const cJSON *obj, const char *name, int64_t *out);
/** Compact text of a JSON value (malloc'd; "(null)" text for NULL). */
char *sc_it_json_text(const cJSON *v);
/** Whole file as a NUL-terminated malloc'd text; NULL if unreadable. */
char *sc_it_read_file(const char *path);

/* ------------------------------------------- cmocka helpers (main thread) */

/** printf into a malloc'd string; fails the test when out of memory. */
char *sc_it_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** Create + start; fails the test (showing the daemon's stderr) on error. */
sc_it_daemon *sc_it_must_start(const char *const *extra);
/** Start again on the same directory and database. */
void sc_it_must_restart(sc_it_daemon *d, const char *const *extra);
/** SIGTERM and assert a clean exit with status 0. */
void sc_it_must_stop(sc_it_daemon *d);
/**
 * cmocka group fixture: one daemon started with no extra arguments for the
 * whole group, in *state; the teardown asserts its clean stop and destroys
 * it.  cmocka_run_group_tests(tests, sc_it_group_setup, sc_it_group_teardown).
 */
int sc_it_group_setup(void **state);
int sc_it_group_teardown(void **state);
sc_it_conn *sc_it_must_connect(const sc_it_daemon *d);
/** Send one line (recorded as the last request for failure messages). */
void sc_it_must_send_line(sc_it_conn *c, const char *line);
/** The next reply line parsed as JSON. */
cJSON *sc_it_must_recv(sc_it_conn *c);

/** sc_it_try_call that fails the test on a transport or envelope error. */
cJSON *sc_it_call(sc_it_conn *c, const char *method, const char *params_fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** Assert `reply` is a success; returns its result.  `c` (optional) names the request. */
const cJSON *sc_it_ok(const sc_it_conn *c, const cJSON *reply);
/**
 * Assert `reply` is an error with `code` and data.kind `kind` (NULL: kind not
 * checked); returns the error object.
 */
const cJSON *sc_it_err(const sc_it_conn *c, const cJSON *reply, int code, const char *kind);
/** Assert the error object's data.<key> equals `value`. */
void sc_it_err_data(const cJSON *error, const char *key, const char *value);
/** Assert the error object's message equals `message`. */
void sc_it_err_message(const cJSON *error, const char *message);

/**
 * One call that must succeed (sc_it_call, then sc_it_ok): returns the
 * detached `result` (cJSON_Delete it).
 */
cJSON *sc_it_must_result(sc_it_conn *c, const char *method, const char *params_fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** sc_it_must_result, the result dropped. */
void sc_it_must_ok(sc_it_conn *c, const char *method, const char *params_fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** One call that must fail with `code` and data.kind `kind` (sc_it_err; NULL: any kind). */
void sc_it_must_error(sc_it_conn *c, int code, const char *kind, const char *method,
                      const char *params_fmt, ...) __attribute__((format(printf, 5, 6)));

/** session.open of a cuda-mode session that must succeed: its id. */
int64_t sc_it_open_cuda(sc_it_conn *c);

/** Result member `name` as an exact integer (fails the test otherwise). */
int64_t sc_it_int(const cJSON *obj, const char *name);
/** Member `name` as a string (fails the test otherwise). */
const char *sc_it_str(const cJSON *obj, const char *name);
/** Member `name` as a bool (fails the test otherwise). */
bool sc_it_bool(const cJSON *obj, const char *name);
/**
 * Assert `t` is a time as the daemon writes them: ISO 8601 UTC with
 * milliseconds (2024-05-01T12:00:00.000Z); `what` names it in the failure.
 */
void sc_it_must_be_time(const char *what, const char *t);

/** session.open (label may be NULL) -> the new session id. */
int64_t sc_it_open_session(sc_it_conn *c, const char *label);

/**
 * Outcome text of a session's capture-log row, read with the sqlite3 library
 * on a read-only connection.  Returns 0, -ENOENT when there is no such row,
 * -EIO on SQLite errors (message in out).
 */
int sc_it_log_outcome(const char *db_path, int64_t session, char *out, size_t outlen);
/**
 * Poll sc_it_log_outcome until it reads `want` or `timeout_ms` passes; fails
 * the test showing the last outcome seen.
 */
void sc_it_must_see_outcome(const char *db_path, int64_t session, const char *want, int timeout_ms);

/** Monotonic clock in milliseconds. */
int64_t sc_it_now_ms(void);
/** Sleep for `ms` milliseconds. */
void sc_it_sleep_ms(int ms);

#ifdef __cplusplus
}
#endif
#endif
