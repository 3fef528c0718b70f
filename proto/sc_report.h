/*
 * sc_report.h - the exit report: what each process run on the CUDA runtime
 * stand-in (cudart/rt_report.c) writes at exit, and `streamcap run`
 * (cli/cli_run_report.c) reads back and summarises.  The names here are
 * the format; the writer and the reader take them from this header alone.
 *
 * The file is named by $STREAMCAP_REPORT.  Each process appends its lines
 * in one write(2) with O_APPEND, so that processes sharing the file never
 * interleave within a line.  Every line is one JSON object, JSON Lines
 * style, with "event" (what the line is) and "pid" (the process that wrote
 * it) first.  A reader skips blank lines, reports any other line that is
 * not such an object, and ignores events it does not know (a newer
 * stand-in's).  Whole numbers are at most 2^53.
 *
 * "process", one per process, first:
 *   program         the program's name (string)
 *   label           its sessions' and graphs' label (string)
 *   daemon          "connected", "unreachable" or "lost"
 *   session         the daemon's session id, or null when none was opened
 *   captures_begun  stream captures begun (count)
 *   unsupported     the runtime calls used that the stand-in does not
 *                   support (array of names)
 *
 * "capture", one per stream capture begun, in order (a fork()ed child
 * reports the captures it began and those it inherited still running, not
 * its parent's ended ones, nor its parent's "graph" lines):
 *   capture         its number in the process (1, 2, ...)
 *   mode            "global", "thread_local" or "relaxed"
 *   outcome         "stored" (the daemon holds it), "kept" (in the process
 *                   only), "failed" (its end failed) or "discarded" (never
 *                   ended)
 *   graph           the daemon's graph id when stored, else null
 *   node_count, edge_count
 *   failed only:    call (the call that failed, cudaStreamEndCapture),
 *                   cuda_error (the code), cuda_name (cudaError_t name),
 *                   message (CUDA's text), and for 904 unjoined: an array
 *                   of {stream, nodes: [node ids]}, the work left unjoined
 *   broken_by       unless stored or kept, when a call broke the capture
 *                   before its end: {call, cuda_error, cuda_name}
 *
 * "graph", one per graph built by hand and submitted:
 *   source          "submit"
 *   label, graph (the daemon's id, or null when none stored it),
 *   node_count, edge_count
 */
#ifndef SC_REPORT_H
#define SC_REPORT_H

/* The environment variable that names the report file. */
#define SC_REPORT_ENV "STREAMCAP_REPORT"

/* Events. */
#define SC_REPORT_EV_PROCESS "process"
#define SC_REPORT_EV_CAPTURE "capture"
#define SC_REPORT_EV_GRAPH   "graph"

/* Members of every line. */
#define SC_REPORT_EVENT "event"
#define SC_REPORT_PID   "pid"

/* Members of a process line. */
#define SC_REPORT_PROGRAM        "program"
#define SC_REPORT_LABEL          "label"
#define SC_REPORT_DAEMON         "daemon"
#define SC_REPORT_SESSION        "session"
#define SC_REPORT_CAPTURES_BEGUN "captures_begun"
#define SC_REPORT_UNSUPPORTED    "unsupported"

/* Members of a capture line (and of a graph line: graph, the counts). */
#define SC_REPORT_CAPTURE    "capture"
#define SC_REPORT_MODE       "mode"
#define SC_REPORT_OUTCOME    "outcome"
#define SC_REPORT_GRAPH      "graph"
#define SC_REPORT_NODE_COUNT "node_count"
#define SC_REPORT_EDGE_COUNT "edge_count"
#define SC_REPORT_CALL       "call"
#define SC_REPORT_CUDA_ERROR "cuda_error"
#define SC_REPORT_CUDA_NAME  "cuda_name"
#define SC_REPORT_MESSAGE    "message"
#define SC_REPORT_UNJOINED   "unjoined"
#define SC_REPORT_BROKEN_BY  "broken_by"
#define SC_REPORT_STREAM     "stream"
#define SC_REPORT_NODES      "nodes"

/* Members of a graph line. */
#define SC_REPORT_SOURCE        "source"
#define SC_REPORT_SOURCE_SUBMIT "submit"

/* Outcomes of a capture. */
#define SC_REPORT_STORED    "stored"
#define SC_REPORT_KEPT      "kept"
#define SC_REPORT_FAILED    "failed"
#define SC_REPORT_DISCARDED "discarded"

/* "KEY": as a writer puts a member's name, for string literal formats. */
#define SC_REPORT_KEY(k) "\"" k "\":"

#endif
