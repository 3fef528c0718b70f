/*
 * cli.h - shared pieces of the streamcap command-line tool: the run
 * context, error reporting, argument parsing, tables and JSON output.
 */
#ifndef SC_CLI_H
#define SC_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sc_buf.h"
#include "streamcap.h"

/* Exit statuses, as --help documents them. */
#define CLI_OK       0
#define CLI_NEGATIVE 1
#define CLI_ERROR    2
/* Not an exit status: standard output's reader went away (`| head`), so
 * the command stops writing; main exits 0, quietly. */
#define CLI_QUIET 3

typedef struct cli_cmd cli_cmd;

typedef struct cli {
    const char *socket; /* never NULL once main has parsed the options */
    bool json;
    int timeout_ms;
    const cli_cmd *cmd; /* the command being run */
    sc_client *c;       /* connected on first use */
    bool raw_status;    /* the command's result is the exit status as it is (run) */
} cli;

struct cli_cmd {
    const char *name;  /* "graph reach" */
    const char *args;  /* "ID A B" */
    const char *brief; /* one line for the command list */
    const char *help;  /* the rest of its --help text */
    int (*run)(cli *x, int argc, char **argv);
};

/* Commands, each in the file that implements it: ping and info in
 * cli_info.c, graphs and log in cli_list.c. */
int cli_ping(cli *x, int argc, char **argv);
int cli_info(cli *x, int argc, char **argv);
int cli_graphs(cli *x, int argc, char **argv);
int cli_log(cli *x, int argc, char **argv);
int cli_demo(cli *x, int argc, char **argv);
int cli_replay(cli *x, int argc, char **argv);
/** True when the line holds nothing but white space (cli_replay_common.c;
 *  what else the replay modes share is in cli_replay.h). */
bool cli_replay_blank(const char *s);
int cli_graph_show(cli *x, int argc, char **argv);
int cli_graph_dot(cli *x, int argc, char **argv);
int cli_graph_render(cli *x, int argc, char **argv);
int cli_graph_reach(cli *x, int argc, char **argv);
/** graph stats ID (cli_stats.c). */
int cli_graph_stats(cli *x, int argc, char **argv);
/** graph diff A B (cli_diff.c): exits 0 same, 1 different, 2 error. */
int cli_graph_diff(cli *x, int argc, char **argv);
/** A diff as `graph diff` prints it, readable, and as --json writes it
 *  ({a, b, identical, ...} with graph.diff's members). */
void cli_diff_print(FILE *out, uint64_t a, uint64_t b, const sc_client_diff *d);
void cli_diff_write_json(sc_buf *b, uint64_t a, uint64_t bid, const sc_client_diff *d);
/** graph races ID [--limit N] (cli_races.c): exits 1 when there is a race. */
int cli_graph_races(cli *x, int argc, char **argv);
/** Graph id's race pairs drawn into DOT text (which ends with the top
 *  graph's closing brace): racing nodes filled red, a dashed red line
 *  between each racing pair.  *text is replaced (malloc'd).  CLI_OK or
 *  an error already reported (cli_races.c). */
int cli_dot_add_races(cli *x, uint64_t id, char **text);
int cli_graph_rm(cli *x, int argc, char **argv);
/** web (cli_web.c): serve the web view until SIGINT or SIGTERM. */
int cli_web(cli *x, int argc, char **argv);

/* ---- Graphviz (cli_dot.c) ---- */

/** Whether Graphviz's `dot` is on PATH. */
bool cli_have_dot(void);
/** Feed `text` to `dot -T<fmt> -o out`: 0, or -1 with why[len] saying
 *  what failed (dot missing, crashed or refusing the text). */
int cli_dot_run(const char *text, const char *fmt, const char *out, char *why, size_t len);
int cli_prune(cli *x, int argc, char **argv);
int cli_backup(cli *x, int argc, char **argv);
int cli_graph_pin(cli *x, int argc, char **argv);
int cli_graph_unpin(cli *x, int argc, char **argv);
/* cli_prune.c: prune's options the daemon selects by (--keep N,
 * --max-db-size SIZE, --log-older-than AGE) at argv[*i]: 1 taken (and *i
 * moved on), 0 none of them, -1 refused (said why). */
int cli_prune_daemon_opt(cli *x, int argc, char **argv, int *i, const char **keep,
                         const char **max_db_size, const char **log_older_than);
/* store.prune with what was given (NULL: not given; none: the daemon's
 * own policy), its result printed. */
int cli_prune_daemon(cli *x, bool dry_run, const char *older_than, const char *keep,
                     const char *max_db_size, const char *log_older_than);
int cli_sessions(cli *x, int argc, char **argv);
int cli_session_close(cli *x, int argc, char **argv);
int cli_call(cli *x, int argc, char **argv);
/** run (cli_run.c): PROGRAM under the CUDA runtime stand-in; returns the
 *  program's exit status (128 + N for signal N) and sets x->raw_status. */
int cli_run(cli *x, int argc, char **argv);
/** True for the options of run that take the next word as their value, so
 *  that the global option parser knows where run's PROGRAM starts. */
bool cli_run_takes_value(const char *arg);

/* ---- errors (cli_common.c): each prints "streamcap: ..." on stderr (and, with --json,
 * {"error":{...}} on stdout) and returns CLI_ERROR ---- */

int cli_fail(cli *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** A bad argument: the message, then the command's usage, on stderr. */
int cli_usage_fail(cli *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** cli_fail carrying the daemon's error code into the JSON error. */
int cli_fail_code(cli *x, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/** A failed library call: the daemon's message or the local failure. */
int cli_call_fail(cli *x, int rc);

/** Writing standard output failed (errno says why): CLI_QUIET when its
 *  reader has gone, else the error reported (CLI_ERROR). */
int cli_stdout_failed(cli *x);

/** Connect unless connected; CLI_OK or CLI_ERROR (already reported). */
int cli_connect(cli *x);

/** The command's usage line, "usage: streamcap [OPTIONS] NAME ARGS". */
void cli_print_usage(FILE *f, const cli_cmd *cmd);

/** The whole of a file, NUL-terminated, in *len bytes (len may be NULL;
 *  free()); NULL with errno set when it cannot be read (cli_common.c). */
char *cli_read_file(const char *path, size_t *len);

/** A mkstemp/mkdtemp template "DIR/NAME-XXXXXX" in out, DIR being $TMPDIR
 *  when it is an absolute path, else /tmp; -ENAMETOOLONG when it does not
 *  fit (cli_common.c). */
int cli_tmp_template(const char *name, char *out, size_t len);

/* ---- arguments (cli_common.c) ---- */

/** A command that takes no arguments: CLI_OK, or the first one reported. */
int cli_no_args(cli *x, int argc, char **argv);

/** A graph id (positive, at most 2^53).  0 or -1. */
int cli_parse_id(const char *s, uint64_t *out);
/** A graph subcommand's arguments: exactly `want`, the first a graph id
 *  into *id.  CLI_OK, or the usage failure reported. */
int cli_graph_id_args(cli *x, int argc, char **argv, int want, uint64_t *id);
/** A node id: "7" or "N7".  0 or -1. */
int cli_parse_node(const char *s, uint32_t *out);
/** An unsigned integer in [lo, hi].  0 or -1. */
int cli_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
/**
 * Take a "--name VALUE" or "--name=VALUE" option at argv[*i]: 1 when it
 * matched (value set, *i moved past it), 0 when argv[*i] is something
 * else, -1 when the value is missing.
 */
int cli_take_opt(int argc, char **argv, int *i, const char *name, const char **value);
/** --NAME N (0 to hi) anywhere in argv[0 .. *argc): taken out of argv
 *  (*argc shrinks) with N into *out, which keeps its value when the option
 *  is absent.  CLI_OK, or `usage` reported when N is no such number. */
int cli_uint_opt(cli *x, int *argc, char **argv, const char *name, uint64_t hi, const char *usage,
                 uint64_t *out);
/** Whether the flag `name` is in argv[0 .. *argc); every copy of it is
 *  taken out (*argc shrinks). */
bool cli_flag_opt(int *argc, char **argv, const char *name);

/* ---- output (cli_common.c; text and tables in cli_out.c) ---- */

/** Write the buffer and a newline to stdout, free it; CLI_ERROR on failure. */
int cli_emit_json(cli *x, sc_buf *b);
/** A command did one thing to one object: prints "<done> <what> <id>" (e.g.
 *  "deleted graph 7"), or with --json {"<what>":<id>,"<done>":true}. */
int cli_report_done(cli *x, const char *what, uint64_t id, const char *done);
/** Text safe for a terminal: control characters become '?'. malloc'd. */
char *cli_printable(const char *s);

typedef struct cli_table {
    size_t ncols;
    const char *const *head;
    char **cells; /* row-major */
    size_t ncells;
    size_t cap;
} cli_table;

void cli_table_init(cli_table *t, size_t ncols, const char *const *head);
/** Append the next cell (printf-style; made printable). */
void cli_table_cell(cli_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Print with every column but the last padded to its widest cell. */
void cli_table_print(const cli_table *t, FILE *f);
void cli_table_free(cli_table *t);

/* ---- shared renderings ---- */

/** A string member, or `null` when s is NULL (sc_buf.h's member writers
 *  have no nullable string). */
void cli_json_member_str_or_null(sc_buf *b, bool *first, const char *key, const char *s);
/** graph.get's result as members of the object open in b (sc_json_obj_begin). */
void cli_json_graph_members(sc_buf *b, bool *first, const sc_client_graph *g);
/** A cuda-mode log entry's `semantics` and `captures` members, as
 *  log.list has them, into the object open in b. */
void cli_json_log_captures(sc_buf *b, bool *first, const sc_client_log_entry *e);
/** One line per failed capture of the entry: what broke it. */
void cli_print_failed_captures(const sc_client_log_entry *e, FILE *f);

/* cli_kargs.c: a kernel node's argument values (nothing when it has none). */
/** At most this many parameters are printed ("; ... N more"), and at most
 *  this many bytes of a parameter other than a 1-, 2-, 4- or 8-byte one
 *  ("[00 01 ... ]"). */
#define CLI_KARGS_PARAMS      16
#define CLI_KARGS_PARAM_BYTES 16
/** "args: 8 bytes 0x0000000000001000; 4 bytes 0x00000007; 16 bytes [04 00
 *  ...]": each parameter's size and value, one of 1, 2, 4 or 8 bytes as
 *  its little-endian integer, a larger one as its bytes in memory order. */
void cli_kargs_text(sc_buf *b, const sc_client_node *n);

/* cli_log_session.c: a cuda-mode session's log row and --session N. */
/** The nodes of its ended captures. */
uint64_t cli_log_cuda_nodes(const sc_client_log_entry *e);
/** Its graph ids, "3,4,5,6,+2 more", or "-" when none. */
void cli_log_cuda_graphs(const sc_client_log_entry *e, char *out, size_t len);
/** "3 (2 completed, 1 failed)": its ended captures by outcome. */
void cli_log_cuda_captures(const sc_client_log_entry *e, char *out, size_t len);
/** streamcap log --session ARG: that session's entry, each capture with
 *  its outcome and what broke it (as JSON with json_row under --json). */
int cli_log_session(cli *x, const char *arg,
                    void (*json_row)(sc_buf *, const sc_client_log_entry *));
/** streamcap log -f [--outcome X] [--host H] (cli_log_follow.c): each
 *  log.event as it comes, until the daemon ends the stream (CLI_OK) or
 *  drops this reader (CLI_NEGATIVE); SIGINT and SIGTERM exit 0. */
int cli_log_follow(cli *x, int argc, char **argv);
/** The human form of a graph: header, node table, edge table. */
void cli_print_graph(const sc_client_graph *g, FILE *f);

/* cli_bodies.c */
/** The body graphs of g's child graph and conditional nodes, fetched and
 *  printed as cli_print_graph prints a graph, each indented under a line
 *  naming its node, theirs below them, max_depth levels down (deeper ones
 *  are counted, not shown).  CLI_OK or an error already reported. */
int cli_show_bodies(cli *x, const sc_client_graph *g, unsigned max_depth, FILE *f);
/** Graph id's DOT export with every holding node drawn as a cluster around
 *  its bodies' own exports, max_depth levels down; *text is malloc'd.
 *  CLI_OK or an error already reported. */
int cli_dot_with_bodies(cli *x, uint64_t id, unsigned max_depth, char **text);

#endif
