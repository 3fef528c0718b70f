/*
 * cli_run.h - what the parts of streamcap run share: the exit report as
 * read (cli_run_report.c), and the summary printed from it
 * (cli_run_summary.c).  The report's format is proto/sc_report.h's.
 */
#ifndef SC_CLI_RUN_H
#define SC_CLI_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sc_buf.h"

typedef struct cli cli;

/* The library the program is run with. */
#define RUN_STANDIN "libcudart.so.13"

typedef struct run_proc {
    int64_t pid;
    char *program, *label, *daemon;
    bool has_session;
    uint64_t session;
} run_proc;

/* A stream of a capture that ended with unjoined work (904), and those nodes. */
typedef struct run_unjoined {
    uint64_t stream;
    uint64_t *nodes;
    size_t nnodes;
} run_unjoined;

/* A capture line, or a graph line (source "submit"). */
typedef struct run_item {
    int64_t pid;
    bool submit;
    bool has_capture, has_graph;
    uint64_t capture, graph;
    char *mode, *label, *outcome;
    uint64_t nodes, edges;
    /* failed: the end call's error, and what broke the capture before it */
    char *call, *cuda_name, *message;
    bool has_error;
    int64_t cuda_error;
    bool has_broken, broken_has_error;
    char *broken_call, *broken_name;
    int64_t broken_error;
    run_unjoined *unjoined;
    size_t nunjoined;
    bool from_daemon; /* no report line: found in the daemon's graph.list */
} run_item;

typedef struct run_bad {
    size_t line;
    char *reason;
} run_bad;

typedef struct run_report {
    run_proc *procs;
    size_t nprocs;
    run_item *items;
    size_t nitems;
    char **unsupported; /* sorted, no duplicates */
    size_t nunsupported;
    run_bad *bad;
    size_t nbad;
    uint64_t captures_begun;
    /* The program's own process left no report line: the graphs stored
     * for it were asked of the daemon (cli_run_daemon.c). */
    bool asked_daemon;
    char *daemon_error; /* why the daemon could not tell; NULL when it did */
    /* No process line: what the program's loader resolves (cli_run_libs.c). */
    bool cudart_checked; /* it was asked and answered */
    bool cudart_none;    /* the program needs no libcudart.so (static runtime) */
    char *cudart_soname; /* the libcudart.so.N it needs, or NULL */
    char *cudart_other;  /* the one loaded instead of the stand-in, or NULL */
    char *standin;       /* the stand-in's directory */
} run_report;

/* --fail-on's conditions (cli_run_fail.c). */
#define RUN_FAIL_UNREACHABLE 1u  /* a process ran without the daemon, or lost it */
#define RUN_FAIL_FAILED      2u  /* a capture failed */
#define RUN_FAIL_UNSUPPORTED 4u  /* the program called what the stand-in lacks */
#define RUN_FAIL_NONE_STORED 8u  /* the daemon stored no graph of the run */
#define RUN_FAIL_RACES       16u /* a stored graph has races (graph.races) */
#define RUN_FAIL_ALL         31u
/* The exit status of a run failed on a condition, whatever the program's. */
#define RUN_FAIL_STATUS 98
/* The exit status of a run whose graphs differ from its --baseline (a
 * --fail-on condition that holds takes precedence). */
#define RUN_BASELINE_STATUS 97

typedef struct run_fail {
    unsigned want; /* the conditions asked for */
    unsigned held; /* those that hold */
    char reason[5][320];
} run_fail;

/* How the program ended. */
typedef struct run_end {
    const char *program;
    int status;           /* the program's status, as a shell reports it */
    int signal;           /* 0: it exited */
    const run_fail *fail; /* NULL without --fail-on */
} run_end;

/**
 * --baseline FILE (cli_run_baseline.c): write the run's graphs to FILE
 * when it is absent or `update` is set, else compare them with it, each
 * difference and its diff said on stderr.  CLI_OK (written, or the same),
 * RUN_BASELINE_STATUS (they differ) or CLI_ERROR (said).
 */
int cli_run_baseline(cli *x, const char *file, bool update, const char *program,
                     const run_report *r);

/** The comma-separated `list` of --fail-on into *out (RUN_FAIL_* bits);
 *  -1 with the reason in err for an unknown or unavailable name. */
int cli_run_fail_parse(const char *list, unsigned *out, char *err, size_t errlen);
/** Which of `want` hold for the report, and why, into *f.  Races are
 *  asked of the daemon through x, one graph.races count per stored graph;
 *  a graph that cannot be asked counts as racing, so a check that could
 *  not run never passes. */
void cli_run_fail_check(cli *x, unsigned want, const run_report *r, run_fail *f);
/** The run's graph ids, ascending, each once, into *out (malloc'd; NULL
 *  and 0 when out of memory). */
size_t cli_run_graph_ids(const run_report *r, uint64_t **out);
/** The condition's name ("none-stored") of one RUN_FAIL_* bit. */
const char *cli_run_fail_name(unsigned bit);
/** One line per condition that holds, then the exit status, to `out`. */
void cli_run_fail_print(FILE *out, const run_end *end, const run_fail *f);
/** The summary's "fail_on" member. */
void cli_run_fail_json(sc_buf *b, bool *first, const run_fail *f);

/** Every line of the report file at `path` into *r (zeroed by the caller);
 *  a file that cannot be read is one bad line 0. */
void cli_run_report_read(const char *path, run_report *r);
void cli_run_report_free(run_report *r);
/** True when the item's outcome is `o` (an SC_REPORT_* outcome). */
bool cli_run_outcome_is(const run_item *it, const char *o);

/** When the report has no process line of `pid` (killed, crashed, _exit),
 *  add the graphs the daemon at x->socket stored for `pid` since
 *  `since_ms` (Unix time), as stored items marked from_daemon. */
void cli_run_from_daemon(cli *x, run_report *r, int64_t pid, int64_t since_ms);

/** When the report has no process line, ask the loader which libcudart
 *  `program` (argv[0] of the run) gets, into r->cudart_*; the stand-in is
 *  the one in `standin_dir`. */
void cli_run_find_cudart(run_report *r, const char *program, const char *standin_dir);

/** The summary as one JSON object and a newline. */
void cli_run_summary_json(sc_buf *b, const run_end *end, const run_report *r);
/** The summary for people. */
void cli_run_summary_text(FILE *f, const run_end *end, const run_report *r);

#endif
