/*
 * cli_replay.h - what the two modes of streamcap replay share
 * (cli_replay_common.c): the scenario file and --check's expected file,
 * the differences --check finds, and how a replay ends.
 */
#ifndef SC_CLI_REPLAY_H
#define SC_CLI_REPLAY_H

#include <cjson/cJSON.h>

#include "cli.h"

#define CHECK_SHOWN 10 /* differences printed; the rest only counted */

typedef struct cli_replay_io {
    const char *path; /* FILE; "-" becomes "<stdin>" once open */
    FILE *f;
    const char *check_path; /* --check EXPECTED, or NULL */
    FILE *check_f;
    size_t check_line; /* lines of check_f read */
    size_t diffs;      /* --check: scenarios or results that differ */
    size_t msg_max;    /* a difference's text is cut to this many bytes */
} cli_replay_io;

/** Open FILE (standard input for "-") and EXPECTED when given: CLI_OK, or
 *  CLI_ERROR with the reason said and nothing left open. */
int cli_replay_open(cli *x, cli_replay_io *io);
/** Close what cli_replay_open opened (standard input stays open). */
void cli_replay_close(cli_replay_io *io);

/** Count a difference of the scenario `name` at `line` of FILE; print it
 *  on standard error while fewer than CHECK_SHOWN were. */
void cli_replay_difference(cli_replay_io *io, size_t line, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/** The next expected line as a JSON object, or NULL at the end of
 *  EXPECTED or on a line that is not one (counted as a difference). */
cJSON *cli_replay_next_expected(cli_replay_io *io, size_t line, const char *name);
/** --check: the expected lines left past the last scenario count as one
 *  difference. */
void cli_replay_check_leftover(cli_replay_io *io);
/** --check's line under the text summary: the differences, or none. */
void cli_replay_print_check(const cli_replay_io *io);
/** How a replay that ran to its end exits: CLI_ERROR under --strict when
 *  the daemon refused any of the requests (said), else CLI_NEGATIVE when
 *  --check found differences, else CLI_OK. */
int cli_replay_exit(const cli_replay_io *io, bool strict, size_t refused);

/** replay --semantics cuda (cli_replay_cuda.c): FILE's scenarios in the
 *  cuda corpus format, each in its own cuda-mode session. */
int cli_replay_cuda(cli *x, const char *path, const char *check_path, bool verbose, bool strict);

#endif
