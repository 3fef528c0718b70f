/*
 * cli_main.c - streamcap: the command table, help, global options and
 * dispatch.  What the commands share is in cli_common.c.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "sc_methods.h"

#define CLI_DEFAULT_TIMEOUT_S 30

/* clang-format off */
static const cli_cmd commands[] = {
    {"ping", "", "check that the daemon answers",
     "Send one request and report the round-trip time.\n", cli_ping},
    {"info", "", "daemon version, pid, paths, host, sessions, graphs, cache",
     "Show the socket this tool resolved and what server.info reports: the\n"
     "daemon's version and pid, the database path and size (file plus\n"
     "write-ahead log), the sync mode, the storage backend (sqlite or\n"
     "postgresql), the host name it stores on every row (--host-name), uptime,\n"
     "open connections, live sessions, stored graphs, and the graph cache's use\n"
     "of its budget and hit rate since the daemon started.\n", cli_info},
    {"demo", "[--semantics MODEL]", "capture the fork/join example and show its graph",
     "Run the seed fork/join capture against the daemon: upload 4096 B host to\n"
     "device on stream 0, fork to stream 1 with event 0, run relu (4 blocks x\n"
     "256 threads) there, join back with event 1 and download 4096 B device to\n"
     "host on stream 0.  Prints the stored graph and whether upload happens\n"
     "before relu and relu before download.\n"
     "\n"
     "Options:\n"
     "  --semantics MODEL  oxicuda (the default) or cuda: capture the example\n"
     "                     the CUDA way in a cuda-mode session: begin on origin\n"
     "                     stream 1 only, fork stream 2 by recording event 0 on\n"
     "                     the origin and waiting on it, launch relu (grid\n"
     "                     4x1x1, block 256x1x1) there, join back by event 1,\n"
     "                     end on the origin; the session is closed afterwards\n",
     cli_demo},
    {"replay", "FILE", "run capture scenarios from a JSON-lines file",
     "Each line of FILE ('-' for standard input) is a scenario\n"
     "{\"name\": ..., \"ops\": [...]} in the format of the conformance corpus\n"
     "(tests/data/conformance_scenarios.jsonl); each runs in its own session,\n"
     "its ops pipelined.  A scenario without an 'end' op is closed afterwards.\n"
     "Prints a summary (scenarios, ops, errors, graphs stored); with --json,\n"
     "every op's result in the corpus' expected-output format.  A progress bar\n"
     "is drawn on standard error when it is a terminal.\n"
     "\n"
     "A request the daemon refuses is part of a scenario (the corpus expects\n"
     "many): it is counted, and replay still exits 0 unless --strict.  A line\n"
     "that is not a valid scenario stops the replay with FILE:LINE, the op's\n"
     "index and name, and what is wrong.\n"
     "\n"
     "Options (before or after FILE: replay [-v] [--strict] [--check EXPECTED]\n"
     "[--semantics MODEL] FILE):\n"
     "  -v, --verbose      one line per scenario\n"
     "  --strict           exit 2 when the daemon refused any request\n"
     "  --check EXPECTED   compare every result (and every stored graph's node\n"
     "                     and edge counts) with EXPECTED, a file in the format\n"
     "                     of tests/data/conformance_expected.jsonl, one line\n"
     "                     per scenario of FILE in the same order; print the\n"
     "                     first differences on standard error and exit 1 when\n"
     "                     there is any\n"
     "  --semantics MODEL  oxicuda (the default) or cuda: FILE is then in the\n"
     "                     cuda corpus format (tests/data/\n"
     "                     cuda_conformance_scenarios.jsonl), each scenario\n"
     "                     runs in its own cuda-mode session, one request at a\n"
     "                     time, and --check compares every result and stored\n"
     "                     graph exactly with a file in the format of\n"
     "                     cuda_conformance_expected.jsonl\n", cli_replay},
    {"graphs", "", "list stored graphs, newest first",
     "One row per graph: its id, when it was created, its node, edge and\n"
     "stream counts, the host whose daemon stored it (its --host-name), its\n"
     "owner and its label.\n"
     "\n"
     "Options:\n"
     "  --limit N        at most N graphs (daemon default 100, at most 10000)\n"
     "  --label TEXT     only graphs with this label\n"
     "  --host NAME      only graphs stored by the daemon with this --host-name\n"
     "                   (a user other than root sees only the graphs of the\n"
     "                   daemon it talks to: another host lists nothing)\n"
     "  --before CURSOR  the next page, as printed (on standard error) after a\n"
     "                   full page\n", cli_graphs},
    {"graph show", "ID", "nodes and edges of a stored graph",
     "Print the graph's owner and host, nodes (one row each) and edges.  A cuda-mode\n"
     "graph's kernels show their 3-D launch shape (\"relu grid 4x2x1 block\n"
     "256x1x1 shared 0 B\"), its mem_alloc nodes their size and its\n"
     "event_record and event_wait nodes their event.  The body graphs of its\n"
     "graph and conditional nodes follow, each under a line naming its node and\n"
     "indented a level deeper, theirs below them.\n"
     "\n"
     "Options:\n"
     "  --depth N   follow body graphs N levels down (default 4; 0: none);\n"
     "              deeper ones are counted, not shown\n", cli_graph_show},
    {"graph dot", "ID", "the graph as Graphviz DOT text",
     "Print the daemon's DOT export of the graph on standard output.\n", cli_graph_dot},
    {"graph render", "ID OUT", "draw the graph into OUT (.svg or .png)",
     "Render the DOT export with Graphviz 'dot -Tsvg' or 'dot -Tpng', chosen by\n"
     "OUT's extension.  Needs Graphviz installed.  Graphs larger than Graphviz\n"
     "can lay out in reasonable time are refused ('graph dot' still exports\n"
     "them).  A graph or conditional node is drawn as a box holding its body\n"
     "graphs.\n"
     "\n"
     "Options:\n"
     "  --max-nodes N   refuse graphs of more than N nodes (default 5000;\n"
     "                  0: no limit)\n"
     "  --depth N       draw body graphs N levels down (default 4; 0: none)\n"
     "  --races         fill racing nodes red and join each racing pair with a\n"
     "                  dashed red line (see 'graph races')\n",
     cli_graph_render},
    {"graph reach", "ID A B", "does node A happen before node B?",
     "A and B are node ids (7 or N7).  Reachability is reflexive: A reaches A.\n"
     "Exits 0 when A reaches B, 1 when it does not, 2 on error (an unknown\n"
     "graph or node included).\n", cli_graph_reach},
    {"graph stats", "ID", "counts of a stored graph",
     "Node count by kind, streams, roots and leaves, edges and how many are\n"
     "implied by other paths (redundant), the critical path in nodes, and a\n"
     "width: the largest level of the longest-path layering, a set of mutually\n"
     "unordered nodes (a lower bound of the true width).\n", cli_graph_stats},
    {"graph races", "ID", "unordered node pairs whose buffer accesses conflict",
     "Every pair of nodes that no path orders, either way, whose recorded\n"
     "buffer accesses overlap with at least one write: one line per pair and\n"
     "overlapping range, saying what each node does there.  Exits 1 when there\n"
     "is any race, 0 when there is none, 2 on error.\n"
     "\n"
     "Options:\n"
     "  --limit N   list at most N races (default 1000, at most 100000; 0: the\n"
     "              count alone); the count is always of all of them\n",
     cli_graph_races},
    {"graph diff", "A B", "what changed from graph A to graph B",
     "Nodes added (ids in B), removed (ids in A), changed (A -> B with the\n"
     "fields that differ), and edges added and removed.  Each stream's nodes\n"
     "are matched by content, so one inserted op shows as one added node.\n"
     "Exits 0 when the graphs are the same, 1 when they differ, 2 on error.\n",
     cli_graph_diff},
    {"graph rm", "ID...", "delete stored graphs",
     "Delete each graph; their capture-log rows stay.  A graph that cannot be\n"
     "deleted (unknown, another user's) is reported and the others are still\n"
     "deleted; the exit status is then 2.\n", cli_graph_rm},
    {"graph pin", "ID", "keep a stored graph from retention and prune",
     "Pin the graph: streamcapd's --retain, --retain-graphs and --max-db-size\n"
     "and 'streamcap prune' never delete it, and 'graph rm' refuses it until it\n"
     "is unpinned.  Only top-level graphs are pinned (their bodies stay with\n"
     "them).\n", cli_graph_pin},
    {"graph unpin", "ID", "let retention and prune delete a graph again",
     "Unpin the graph (see 'graph pin').\n", cli_graph_unpin},
    {"prune", "", "delete old stored graphs, by the daemon's policy, age or count",
     "Without --label or --before the daemon selects (method store.prune): the\n"
     "oldest unpinned graphs (that you may delete) that any option given names,\n"
     "or, with none, what its own --retain, --retain-graphs, --max-db-size and\n"
     "--retain-log would delete now.  A dry run lists exactly what the same\n"
     "prune then deletes.  With --label or --before, the graphs matching all of\n"
     "--label, --before and --older-than are selected here instead.  Pinned\n"
     "graphs are never deleted.  Prints how many were deleted.\n"
     "\n"
     "Options:\n"
     "  --older-than DURATION   graphs created longer ago than DURATION: a\n"
     "                          number and a unit, s, m, h or d (30s, 15m,\n"
     "                          2h, 7d)\n"
     "  --keep N                all but the newest N graphs (daemon)\n"
     "  --max-db-size SIZE      the oldest while the database holds more than\n"
     "                          SIZE (10G, 500M) (daemon)\n"
     "  --log-older-than AGE    also ended log rows older than AGE whose graphs\n"
     "                          are gone; root only (daemon)\n"
     "  --label TEXT            only graphs with this label\n"
     "  --before ID             only graphs with an id below ID\n"
     "  --dry-run               list what would be deleted, delete nothing\n", cli_prune},
    {"backup", "FILE [--overwrite]", "copy the daemon's SQLite database while it serves",
     "Ask the daemon (store.backup; root or the daemon's own user only) to\n"
     "write a consistent copy of its database to FILE, a path on the daemon's\n"
     "machine (a relative one is made absolute here first).  Every graph stored\n"
     "before the request is in the copy; the daemon goes on serving meanwhile\n"
     "and replies once the copy is complete and synced to disk.  The copy is a\n"
     "database 'streamcapd --db FILE' serves as it is.  A PostgreSQL store is\n"
     "backed up with pg_dump instead (docs/operations.md).\n"
     "\n"
     "Options:\n"
     "  --overwrite   replace FILE when it exists (refused otherwise)\n", cli_backup},
    {"sessions", "", "live capture sessions (yours; root sees all)",
     "One row per session open now: its id, when it opened, the nodes recorded\n"
     "so far, its owner, capture semantics and label.  Ended sessions are in\n"
     "'streamcap log'.\n", cli_sessions},
    {"session close", "ID", "discard a live session",
     "Close the session without producing a graph; the capture log records it\n"
     "as closed.\n", cli_session_close},
    {"web", "[--listen ADDR:PORT] [--open] [--max-draw N]",
     "a local web page: the live log, graphs to click, diffs",
     "Serve the web view over HTTP as the invoking user, talking to the daemon\n"
     "at --socket with that user's rights.  Prints the URL to open, with a\n"
     "random token (http://127.0.0.1:PORT/?token=TOKEN): every request needs\n"
     "the token (in the URL once, then in a cookie) or gets 403, and a request\n"
     "whose Host header is not the listening address gets 421 (DNS\n"
     "rebinding).  Pages: / the capture log, live; /graph/ID a graph drawn by\n"
     "Graphviz with one lane per stream, click a node for details, two for\n"
     "\"happens before?\", races in red; /diff/A/B what changed from A to B.\n"
     "JSON under /api/ mirrors the protocol's results.  Nothing is fetched\n"
     "from the network; the pages are built into this program.  Ctrl-C or\n"
     "SIGTERM stops it.  See docs/web.md.\n"
     "\n"
     "Options:\n"
     "  --listen ADDR:PORT  where to listen (default 127.0.0.1:0: loopback, a\n"
     "                      free port); a non-loopback address is warned about,\n"
     "                      0.0.0.0 and [::] refused (Host is checked against it)\n"
     "  --open              open the URL with xdg-open\n"
     "  --max-draw N        graphs of more than N nodes (default 2000; 0: no\n"
     "                      limit) are listed, not drawn\n", cli_web},
    {"call", "METHOD [PARAMS]", "send one raw JSON-RPC request",
     "Send METHOD with PARAMS (JSON text, default {}) and print the reply's\n"
     "result as JSON on standard output.  An error reply prints its code and\n"
     "message on standard error and exits 2.  proto/PROTOCOL.md specifies the\n"
     "methods listed below.  Example: streamcap call graph.list '{\"limit\": 2}'\n",
     cli_call},
    {"run", "PROGRAM [ARGS]",
     "run a CUDA program on the stand-in runtime, report its captures",
     "Run PROGRAM (looked up on PATH as a shell does) with streamcap's CUDA\n"
     "runtime stand-in, libcudart.so.13, first on its library path, so that a\n"
     "program built with 'nvcc -cudart shared' runs without a GPU and the daemon\n"
     "checks and stores its stream captures.  Its standard input, output and\n"
     "error are its own, and so is its environment, but for LD_LIBRARY_PATH\n"
     "(the stand-in's directory put first), STREAMCAP_SOCKET (the socket:\n"
     "--socket, else the usual default), STREAMCAP_LABEL (--label, when given)\n"
     "and STREAMCAP_REPORT (a temporary file in which each of its processes\n"
     "reports at exit; removed afterwards).  SIGINT, SIGTERM and SIGHUP sent to\n"
     "streamcap are passed on to PROGRAM.\n"
     "\n"
     "When PROGRAM has ended, a summary goes to standard error: each process\n"
     "and whether it reached the daemon, captures begun, graphs stored (id,\n"
     "nodes, edges; captured or built by hand), each failed capture with the\n"
     "call that broke it and CUDA's error name and text, captures kept in the\n"
     "process because no daemon stored them, captures never ended, and the\n"
     "runtime calls used that the stand-in does not support.  When PROGRAM's\n"
     "process left no report (killed, crashed, _exit), the graphs the daemon\n"
     "stored for that process since the run began are asked of the daemon and\n"
     "listed as stored, and the program's loader is asked (ldd) which\n"
     "libcudart it gets: the summary names one loaded instead of the stand-in\n"
     "(a DT_RPATH) and the ways out, or says that it loads none (a static\n"
     "runtime).  With --json the summary is one JSON object, also on\n"
     "standard error (standard output is the program's): program,\n"
     "exit_status, signal, processes, captures_begun, graphs, kept, failed,\n"
     "discarded, unsupported, report_missing, cudart (what the loader said),\n"
     "asked_daemon, daemon_error (when the daemon could not be asked),\n"
     "bad_report_lines, and fail_on with --fail-on.\n"
     "\n"
     "The stand-in is looked for in $STREAMCAP_CUDART_DIR, then in the build\n"
     "tree next to this tool (BIN/../lib/streamcap/cudart), then where it is\n"
     "installed (LIBDIR/streamcap/cudart); the first directory that holds\n"
     "libcudart.so.13 is used.  None: exit status 2, nothing is run.\n"
     "\n"
     "Options go before PROGRAM ('--' ends them); every word from PROGRAM on is\n"
     "the program's own.\n"
     "\n"
     "Options:\n"
     "  --label L          the label of the program's sessions and graphs\n"
     "                     (default: the program's name and pid)\n"
     "  --device NAME      the GPU the stand-in emulates: V100, A100, L4, H100\n"
     "                     or B200 (sets STREAMCAP_DEVICE; default: its own)\n"
     "  --summary-file F   write the summary (text, or JSON with --json) to F\n"
     "                     instead of standard error\n"
     "  --fail-on LIST     exit 98 when one of these holds, each named on\n"
     "                     standard error: unreachable (a process had no\n"
     "                     daemon), failed (a capture failed), unsupported (a\n"
     "                     call the stand-in lacks), none-stored (no graph\n"
     "                     stored), races (a stored graph has races, as\n"
     "                     'graph races' finds them), all; comma-separated\n"
     "  --baseline FILE    with FILE absent, write the graphs the run stored to\n"
     "                     it (capture order, each with its fingerprints, nodes\n"
     "                     and edges as graph.get gives them); with FILE\n"
     "                     present, compare the run's graphs with it and exit 97\n"
     "                     when any differs, its diff on standard error\n"
     "  --update-baseline  with --baseline: rewrite FILE from this run\n"
     "\n"
     "Exit status: PROGRAM's own, or 128 + N when signal N killed it (as shells\n"
     "report it); 97 when the run's graphs differ from --baseline's FILE; 98\n"
     "when a --fail-on condition holds, before 97 (the summary keeps the\n"
     "program's own in exit_status; --json adds fail_on); 127 when PROGRAM is\n"
     "not found, 126 when it cannot be run; 2 when streamcap fails before\n"
     "running it (bad arguments, no stand-in).\n",
     cli_run},
    {"log", "", "the capture log, newest first",
     "One row per capture session: when it opened and ended, its outcome\n"
     "(open, completed, failed, closed, abandoned, shutdown, lost), its node\n"
     "count, the graph it produced, its host (the --host-name of the daemon\n"
     "that ran it), owner and label.  A cuda-mode session's row counts the\n"
     "nodes of its ended captures, lists their graph ids (\"3,4,5,6,+2 more\")\n"
     "and, under CAPTURES, how many ended and how (\"3 (2 completed, 1\n"
     "failed)\").  Under the table, one line for each\n"
     "failed capture of a cuda-mode session: the call that invalidated it,\n"
     "with its stream, thread and the capture's mode, and CUDA's message\n"
     "(\"session 4: capture 3 on stream 7 invalidated by cudaMalloc from\n"
     "thread 2 (global mode): operation not permitted when stream is\n"
     "capturing\"), or the CUDA error its end failed with.  --json adds each\n"
     "cuda-mode session's semantics and captures as log.list reports them.\n"
     "\n"
     "Options:\n"
     "  --limit N        at most N entries (daemon default 100, at most 10000)\n"
     "  --outcome NAME   only sessions with this outcome\n"
     "  --host NAME      only sessions of the daemon with this --host-name (a\n"
     "                   user other than root sees only the sessions of the\n"
     "                   daemon it talks to: another host lists nothing)\n"
     "  --before CURSOR  the next page, as printed (on standard error) after a\n"
     "                   full page\n"
     "  --session N      only session N (no other option): its entry, then one\n"
     "                   row per ended capture with its stream, mode, thread,\n"
     "                   outcome, nodes, graph and the CUDA call that broke it;\n"
     "                   --json: the entry as log.list has it; exit 2 when the\n"
     "                   log has no session N\n"
     "  -f, --follow     follow the log instead (with --outcome and --host\n"
     "                   only): one line per event as the daemon sends it,\n"
     "                   \"2026-12-02T14:03:11.123Z host1 capture_ended session\n"
     "                   4 capture 2 graph 17 completed\" (time, host, event,\n"
     "                   session, capture, graph, outcome, and for an\n"
     "                   invalidation the breaking call and CUDA error);\n"
     "                   --json: each event's params object, one per line.\n"
     "                   Exits 0 when the daemon ends the stream or on\n"
     "                   SIGINT/SIGTERM, 1 when the daemon drops a reader\n"
     "                   that fell behind (said on standard error)\n", cli_log},
};
/* clang-format on */

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const char exit_help[] = "Exit status:\n"
                                "  0  success\n"
                                "  1  a negative answer: 'graph reach' found no path\n"
                                "  2  an error: bad arguments, no daemon, or a refused request\n";

/* The methods `call` can send, from the one method table (the bash
 * completion reads this list too). */
static void print_methods(FILE *f)
{
    fputs("Methods:\n", f);
    for (int m = 0; m < SC_M__COUNT; m++)
        fprintf(f, "  %-30s %s\n", sc_methods[m].name, sc_methods[m].params);
    fputc('\n', f);
}

static void print_cmd_help(FILE *f, const cli_cmd *cmd)
{
    cli_print_usage(f, cmd);
    /* The brief is a list entry: here it becomes a sentence. */
    size_t n = strlen(cmd->brief);
    bool question = n > 0 && cmd->brief[n - 1] == '?';
    fprintf(f, "\n%c%s%s\n\n%s\n", toupper((unsigned char)cmd->brief[0]), cmd->brief + 1,
            question ? "" : ".", cmd->help);
    if (cmd->run == cli_call)
        print_methods(f);
    /* run exits with its program's status: its help says so itself. */
    if (cmd->run != cli_run)
        fputs(exit_help, f);
}

static void print_main_help(FILE *f)
{
    fputs("usage: streamcap [--socket PATH] [--json] [--timeout SECONDS] COMMAND [ARGS]\n"
          "       streamcap --version\n"
          "\n"
          "Drive and query streamcapd, the stream capture daemon.\n"
          "\n"
          "Commands:\n",
          f);
    for (size_t i = 0; i < NCOMMANDS; i++) {
        char left[64];
        snprintf(left, sizeof(left), "%s%s%s", commands[i].name, commands[i].args[0] ? " " : "",
                 commands[i].args);
        fprintf(f, "  %-22s %s\n", left, commands[i].brief);
    }
    fputs("\n"
          "Options (anywhere on the line; for run, before its PROGRAM):\n"
          "  --socket PATH      the daemon's socket (default: $STREAMCAP_SOCKET, else\n"
          "                     $XDG_RUNTIME_DIR/streamcap/streamcap.sock, else\n"
          "                     /run/streamcap/streamcap.sock for root and\n"
          "                     /tmp/streamcap-UID/streamcap.sock for others)\n"
          "  --json             print JSON on standard output, for every command\n"
          "  --timeout SECONDS  give up when the daemon stays silent this long (30)\n"
          "  --version          print the version and exit\n"
          "  -h, --help         this text; 'streamcap COMMAND --help' for one command\n"
          "\n",
          f);
    fputs(exit_help, f);
    fputs("  'streamcap run' exits with its program's status instead\n", f);
}

static void print_group_help(FILE *f, const char *group)
{
    size_t n = strlen(group);
    fprintf(f, "usage: streamcap [OPTIONS] %s SUBCOMMAND ARGS\n\nSubcommands:\n", group);
    for (size_t i = 0; i < NCOMMANDS; i++) {
        if (strncmp(commands[i].name, group, n) != 0 || commands[i].name[n] != ' ')
            continue;
        char left[64];
        snprintf(left, sizeof(left), "%s %s", commands[i].name + n + 1, commands[i].args);
        fprintf(f, "  %-16s %s\n", left, commands[i].brief);
    }
    fprintf(f, "\n'streamcap %s SUBCOMMAND --help' describes one.\n\n", group);
    fputs(exit_help, f);
}

/* -------------------------------------------------------------- main */

/* Words that start a two-word command ("graph show", "session close"). */
static bool is_group(const char *a)
{
    return a && (strcmp(a, "graph") == 0 || strcmp(a, "session") == 0);
}

static const cli_cmd *find_cmd(const char *a, const char *b, int *used)
{
    char name[64];
    if (is_group(a)) {
        if (!b)
            return NULL;
        snprintf(name, sizeof(name), "%s %s", a, b);
        *used = 2;
    } else {
        snprintf(name, sizeof(name), "%s", a ? a : "");
        *used = 1;
    }
    for (size_t i = 0; i < NCOMMANDS; i++) {
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    }
    return NULL;
}

typedef struct parsed {
    int argc;
    char **argv; /* what is left once the global options are taken out */
    bool help;
    bool version;
} parsed;

/* For run, the words from its PROGRAM on are the program's own, and its
 * "--" is left for it to see: true when argv[*i] was such a word (taken,
 * *literal set). */
static bool run_word(bool run, int argc, char **argv, int *i, parsed *p, bool *literal)
{
    const char *a = argv[*i];
    if (!run || (a[0] == '-' && a[1] != '\0' && strcmp(a, "--") != 0)) {
        if (run && cli_run_takes_value(a) && *i + 1 < argc) {
            p->argv[p->argc++] = argv[(*i)++];
            p->argv[p->argc++] = argv[(*i)++];
            return true;
        }
        return false;
    }
    *literal = true;
    p->argv[p->argc++] = argv[(*i)++];
    return true;
}

/* Global options may appear anywhere before a "--" (and before run's
 * PROGRAM). */
static int parse_globals(cli *x, int argc, char **argv, parsed *p)
{
    bool literal = false, run = false;
    for (int i = 1; i < argc;) {
        const char *v = NULL;
        int r;
        if (literal) {
            p->argv[p->argc++] = argv[i++];
        } else if (run_word(run, argc, argv, &i, p, &literal)) {
            continue;
        } else if (strcmp(argv[i], "--") == 0) {
            literal = true;
            i++;
        } else if (strcmp(argv[i], "--json") == 0) {
            x->json = true;
            i++;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            p->help = true;
            i++;
        } else if (strcmp(argv[i], "--version") == 0) {
            p->version = true;
            i++;
        } else if ((r = cli_take_opt(argc, argv, &i, "--socket", &v)) != 0) {
            if (r < 0 || !*v)
                return cli_fail(x, "--socket takes a path");
            x->socket = v;
        } else if ((r = cli_take_opt(argc, argv, &i, "--timeout", &v)) != 0) {
            uint64_t s;
            if (r < 0 || cli_parse_uint(v, 0, 86400, &s) != 0)
                return cli_fail(x, "--timeout takes whole seconds from 0 (none) to 86400");
            x->timeout_ms = (int)s * 1000;
        } else {
            run = run || (p->argc == 0 && strcmp(argv[i], "run") == 0);
            p->argv[p->argc++] = argv[i++];
        }
    }
    return CLI_OK;
}

/* No command found: help or an error, as the words ask. */
static int no_command(cli *x, const parsed *p, const char *first)
{
    bool group = is_group(first);
    if (p->help && (!first || (group && p->argc == 1))) {
        if (group)
            print_group_help(stdout, first);
        else
            print_main_help(stdout);
        return CLI_OK;
    }
    if (!first) {
        print_main_help(stderr);
        return CLI_ERROR;
    }
    if (!group)
        return cli_fail(x, "unknown command '%s' (try 'streamcap --help')", first);
    if (p->argc > 1)
        cli_fail(x, "unknown %s subcommand '%s'", first, p->argv[1]);
    else
        cli_fail(x, "'%s' needs a subcommand", first);
    print_group_help(stderr, first);
    return CLI_ERROR;
}

static int dispatch(cli *x, parsed *p)
{
    if (p->version && !p->help) {
        printf("streamcap %s\n", SC_VERSION);
        return CLI_OK;
    }
    if (p->argc > 0 && strcmp(p->argv[0], "help") == 0) {
        /* "streamcap help graph reach" is "streamcap graph reach --help" */
        p->help = true;
        p->argv++;
        p->argc--;
    }
    const char *first = p->argc > 0 ? p->argv[0] : NULL;
    int used = 0;
    const cli_cmd *cmd = find_cmd(first, p->argc > 1 ? p->argv[1] : NULL, &used);
    if (!cmd)
        return no_command(x, p, first);
    if (p->help) {
        print_cmd_help(stdout, cmd);
        return CLI_OK;
    }
    x->cmd = cmd;
    return cmd->run(x, p->argc - used, p->argv + used);
}

int main(int argc, char **argv)
{
    /* A reader that goes away (| head, a dying dot) must not kill us mid-write. */
    signal(SIGPIPE, SIG_IGN);
    cli x = {.socket = sc_client_default_socket(), .timeout_ms = CLI_DEFAULT_TIMEOUT_S * 1000};
    char **mem = calloc((size_t)argc + 1, sizeof(char *));
    if (!mem)
        return CLI_ERROR;
    parsed p = {0, mem, false, false};
    int status = parse_globals(&x, argc, argv, &p);
    if (status == CLI_OK)
        status = dispatch(&x, &p);
    /* Tables are printed without a check per line: what failed shows here. */
    errno = 0;
    if (status != CLI_QUIET && (fflush(stdout) != 0 || ferror(stdout))) {
        int st = cli_stdout_failed(&x);
        if (status == CLI_OK)
            status = st;
    }
    sc_client_close(x.c);
    free(mem);
    return status == CLI_QUIET && !x.raw_status ? CLI_OK : status;
}
