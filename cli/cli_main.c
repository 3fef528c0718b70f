/*
 * cli_main.c - streamcap: option parsing, help, dispatch, error reporting,
 * and the small commands (ping, info, graphs, log).
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <cjson/cJSON.h>

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sc_methods.h"
#include "sc_paths.h"

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
     "event_record and event_wait nodes their event.\n", cli_graph_show},
    {"graph dot", "ID", "the graph as Graphviz DOT text",
     "Print the daemon's DOT export of the graph on standard output.\n", cli_graph_dot},
    {"graph render", "ID OUT", "draw the graph into OUT (.svg or .png)",
     "Render the DOT export with Graphviz 'dot -Tsvg' or 'dot -Tpng', chosen by\n"
     "OUT's extension.  Needs Graphviz installed.  Graphs larger than Graphviz\n"
     "can lay out in reasonable time are refused ('graph dot' still exports\n"
     "them).\n"
     "\n"
     "Options:\n"
     "  --max-nodes N   refuse graphs of more than N nodes (default 5000;\n"
     "                  0: no limit)\n", cli_graph_render},
    {"graph reach", "ID A B", "does node A happen before node B?",
     "A and B are node ids (7 or N7).  Reachability is reflexive: A reaches A.\n"
     "Exits 0 when A reaches B, 1 when it does not, 2 on error (an unknown\n"
     "graph or node included).\n", cli_graph_reach},
    {"graph rm", "ID...", "delete stored graphs",
     "Delete each graph; their capture-log rows stay.  A graph that cannot be\n"
     "deleted (unknown, another user's) is reported and the others are still\n"
     "deleted; the exit status is then 2.\n", cli_graph_rm},
    {"prune", "", "delete stored graphs in bulk, by label, id or age",
     "Delete every graph (that you may delete) matching all the options given;\n"
     "at least one is required.  Prints how many were deleted.\n"
     "\n"
     "Options:\n"
     "  --label TEXT            only graphs with this label\n"
     "  --before ID             only graphs with an id below ID\n"
     "  --older-than DURATION   only graphs created longer ago than DURATION:\n"
     "                          a number and a unit, s, m, h or d (30s, 15m,\n"
     "                          2h, 7d)\n"
     "  --dry-run               list what would be deleted, delete nothing\n", cli_prune},
    {"sessions", "", "live capture sessions (yours; root sees all)",
     "One row per session open now: its id, when it opened, the nodes recorded\n"
     "so far, its owner, capture semantics and label.  Ended sessions are in\n"
     "'streamcap log'.\n", cli_sessions},
    {"session close", "ID", "discard a live session",
     "Close the session without producing a graph; the capture log records it\n"
     "as closed.\n", cli_session_close},
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
     "runtime calls used that the stand-in does not support.  With --json the\n"
     "summary is one JSON object, also on standard error (standard output is\n"
     "the program's): program, exit_status, signal, processes, captures_begun,\n"
     "graphs, kept, failed, discarded, unsupported, report_missing,\n"
     "bad_report_lines.\n"
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
     "  --summary-file F   write the summary (text, or JSON with --json) to F\n"
     "                     instead of standard error\n"
     "\n"
     "Exit status: PROGRAM's own, or 128 + N when signal N killed it (as shells\n"
     "report it); 127 when PROGRAM is not found, 126 when it cannot be run; 2\n"
     "when streamcap fails before running it (bad arguments, no stand-in).\n",
     cli_run},
    {"log", "", "the capture log, newest first",
     "One row per capture session: when it opened and ended, its outcome\n"
     "(open, completed, failed, closed, abandoned, shutdown, lost), its node\n"
     "count, the graph it produced, its host (the --host-name of the daemon\n"
     "that ran it), owner and label.  Under the table, one line for each\n"
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
     "                   full page\n", cli_log},
};
/* clang-format on */

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const char exit_help[] = "Exit status:\n"
                                "  0  success\n"
                                "  1  a negative answer: 'graph reach' found no path\n"
                                "  2  an error: bad arguments, no daemon, or a refused request\n";

static void print_usage_line(FILE *f, const cli_cmd *cmd)
{
    fprintf(f, "usage: streamcap [OPTIONS] %s%s%s\n", cmd->name, cmd->args[0] ? " " : "",
            cmd->args);
}

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
    print_usage_line(f, cmd);
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

/* ------------------------------------------------------------ errors */

static void json_error(const char *msg, int code)
{
    sc_buf b = SC_BUF_INIT;
    bool first, efirst;
    sc_json_obj_begin(&b, &first);
    sc_json_key(&b, &first, "error");
    sc_json_obj_begin(&b, &efirst);
    sc_json_member_cstr(&b, &efirst, "message", msg);
    if (code)
        sc_json_member_i64(&b, &efirst, "code", code);
    sc_json_obj_end(&b);
    sc_json_obj_end(&b);
    sc_buf_putc(&b, '\n');
    if (!sc_buf_failed(&b))
        fwrite(b.data, 1, b.len, stdout);
    sc_buf_free(&b);
}

static int report(cli *x, int code, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    fprintf(stderr, "streamcap: %s\n", msg);
    if (x->json)
        json_error(msg, code);
    return CLI_ERROR;
}

int cli_fail(cli *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(x, 0, fmt, ap);
    va_end(ap);
    return CLI_ERROR;
}

int cli_usage_fail(cli *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(x, 0, fmt, ap);
    va_end(ap);
    if (x->cmd) {
        print_usage_line(stderr, x->cmd);
        fprintf(stderr, "Try 'streamcap %s --help'.\n", x->cmd->name);
    }
    return CLI_ERROR;
}

int cli_call_fail(cli *x, int rc)
{
    const char *msg = sc_client_errmsg(x->c);
    if (!msg || !*msg)
        msg = sc_client_strerror(rc);
    return cli_fail_code(x, sc_client_errcode(x->c), "%s", msg);
}

int cli_fail_code(cli *x, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(x, code, fmt, ap);
    va_end(ap);
    return CLI_ERROR;
}

/* The daemon's own default, which a plain 'streamcapd' (or 'make run')
 * would listen on: not a path the user chose. */
static bool is_default_socket(const char *path)
{
    return strcmp(path, sc_client_default_socket()) == 0;
}

/* What a user needs to hear, which errno alone does not say: whether
 * starting a daemon would help, and what to change if not. */
static int connect_failed(cli *x, int rc)
{
    const char *p = x->socket;
    struct stat st;
    char dir[SC_PATH_MAX];
    if (rc == -ENOENT) {
        char home[SC_PATH_MAX], rule[SC_PATH_MAX];
        sc_path_env env;
        sc_path_origin origin = SC_PATH_GIVEN;
        sc_path_env_current(&env, home, sizeof(home));
        bool ours = sc_path_socket(&env, rule, sizeof(rule), &origin) == 0 && !strcmp(p, rule);
        /* The daemon makes the directories of its defaults, not of a path given to it. */
        if ((!ours || origin == SC_PATH_GIVEN) && sc_path_dirname(p, dir, sizeof(dir)) == 0 &&
            stat(dir, &st) != 0 && errno == ENOENT)
            return cli_fail(x, "cannot connect to %s: directory %s does not exist", p, dir);
        if (is_default_socket(p))
            return cli_fail(x,
                            "cannot connect to %s: no daemon is listening (start one with "
                            "'streamcapd', or 'make run' in a source tree)",
                            p);
        return cli_fail(x,
                        "cannot connect to %s: no daemon is listening (start one with 'streamcapd "
                        "--socket %s')",
                        p, p);
    }
    if (rc == -ECONNREFUSED) {
        if (stat(p, &st) == 0 && !S_ISSOCK(st.st_mode))
            return cli_fail(x, "cannot connect to %s: not a socket", p);
        return cli_fail(x,
                        "cannot connect to %s: no daemon is listening (the socket file is left "
                        "from one that stopped)",
                        p);
    }
    if (rc == -EACCES)
        return cli_fail(x,
                        "cannot connect to %s: permission denied (the daemon's --socket-mode "
                        "decides which users may connect)",
                        p);
    return cli_fail(x, "cannot connect to %s: %s", p, strerror(-rc));
}

int cli_connect(cli *x)
{
    if (x->c)
        return CLI_OK;
    int rc = sc_client_connect(x->socket, x->timeout_ms, &x->c);
    return rc == 0 ? CLI_OK : connect_failed(x, rc);
}

/* --------------------------------------------------------- arguments */

int cli_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int cli_parse_id(const char *s, uint64_t *out)
{
    return cli_parse_uint(s, 1, 9007199254740992ULL, out);
}

int cli_parse_node(const char *s, uint32_t *out)
{
    uint64_t v;
    if (s && (*s == 'N' || *s == 'n'))
        s++;
    if (cli_parse_uint(s, 0, UINT32_MAX, &v) != 0)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

int cli_take_opt(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return 0;
    if (a[n] == '=') {
        *value = a + n + 1;
        (*i)++;
        return 1;
    }
    if (a[n] != '\0')
        return 0;
    if (*i + 1 >= argc)
        return -1;
    *value = argv[*i + 1];
    *i += 2;
    return 1;
}

/* ------------------------------------------------------------ output */

int cli_emit_json(cli *x, sc_buf *b)
{
    sc_buf_putc(b, '\n');
    if (sc_buf_failed(b)) {
        sc_buf_free(b);
        return cli_fail(x, "out of memory");
    }
    size_t n = fwrite(b->data, 1, b->len, stdout);
    size_t want = b->len;
    sc_buf_free(b);
    if (n != want || fflush(stdout) != 0)
        return cli_stdout_failed(x);
    return CLI_OK;
}

int cli_report_done(cli *x, const char *what, uint64_t id, const char *done)
{
    if (x->json) {
        sc_buf b = SC_BUF_INIT;
        bool first;
        sc_json_obj_begin(&b, &first);
        sc_json_member_u64(&b, &first, what, id);
        sc_json_member_bool(&b, &first, done, true);
        sc_json_obj_end(&b);
        return cli_emit_json(x, &b);
    }
    printf("%s %s %llu\n", done, what, (unsigned long long)id);
    return CLI_OK;
}

/* The write end of a pipe whose reader has gone polls as an error. */
static bool stdout_reader_gone(void)
{
    struct pollfd p = {.fd = STDOUT_FILENO, .events = POLLOUT};
    return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)) != 0;
}

int cli_stdout_failed(cli *x)
{
    int e = errno;
    /* `| head` closing early is how pipelines end, not an error (git,
     * coreutils): stop writing and exit 0. */
    if (e == EPIPE || stdout_reader_gone())
        return CLI_QUIET;
    if (e == 0)
        return cli_fail(x, "cannot write to standard output");
    return cli_fail(x, "cannot write to standard output: %s", strerror(e));
}

/* ---------------------------------------------------------- commands */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int no_args(cli *x, int argc, char **argv)
{
    if (argc > 0)
        return cli_usage_fail(x, "unexpected argument '%s'", argv[0]);
    return CLI_OK;
}

int cli_ping(cli *x, int argc, char **argv)
{
    if (no_args(x, argc, argv) != CLI_OK || cli_connect(x) != CLI_OK)
        return CLI_ERROR;
    sc_client_server_desc d;
    double t0 = now_ms();
    int rc = sc_client_server_info(x->c, &d);
    double rtt = now_ms() - t0;
    if (rc != 0)
        return cli_call_fail(x, rc);
    int out = CLI_OK;
    if (x->json) {
        sc_buf b = SC_BUF_INIT;
        bool first;
        sc_json_obj_begin(&b, &first);
        sc_json_member_cstr(&b, &first, "socket", x->socket);
        sc_json_member_cstr(&b, &first, "version", d.version);
        sc_json_key(&b, &first, "rtt_ms");
        sc_buf_printf(&b, "%.3f", rtt);
        sc_json_obj_end(&b);
        out = cli_emit_json(x, &b);
    } else {
        char *v = cli_printable(d.version);
        printf("pong from %s: streamcapd %s, %.3f ms\n", x->socket, v ? v : "", rtt);
        free(v);
    }
    sc_client_server_desc_free(&d);
    return out;
}

static void print_uptime(uint64_t s)
{
    if (s >= 86400)
        printf("%llud %lluh %llum", (unsigned long long)(s / 86400),
               (unsigned long long)(s % 86400 / 3600), (unsigned long long)(s % 3600 / 60));
    else if (s >= 3600)
        printf("%lluh %llum %llus", (unsigned long long)(s / 3600),
               (unsigned long long)(s % 3600 / 60), (unsigned long long)(s % 60));
    else if (s >= 60)
        printf("%llum %llus", (unsigned long long)(s / 60), (unsigned long long)(s % 60));
    else
        printf("%llus", (unsigned long long)s);
}

/* A byte count for people: "1.6 MiB". */
static void human_bytes(uint64_t n, char *out, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)n;
    size_t u = 0;
    while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(out, len, "%llu B", (unsigned long long)n);
    else
        snprintf(out, len, "%.1f %s", v, units[u]);
}

static void info_json(cli *x, sc_buf *b, const sc_client_server_desc *d)
{
    bool first;
    uint64_t lookups = d->cache_hits + d->cache_misses;
    sc_json_obj_begin(b, &first);
    sc_json_member_cstr(b, &first, "socket", sc_client_socket_path(x->c));
    sc_json_member_cstr(b, &first, "version", d->version);
    sc_json_member_i64(b, &first, "pid", d->pid);
    sc_json_member_u64(b, &first, "uptime_s", d->uptime_s);
    sc_json_member_u64(b, &first, "connections", d->connections);
    sc_json_member_u64(b, &first, "sessions", d->sessions);
    sc_json_member_u64(b, &first, "graphs", d->graphs);
    if (d->db_path) {
        sc_json_member_cstr(b, &first, "db_path", d->db_path);
    } else {
        sc_json_key(b, &first, "db_path");
        sc_buf_puts(b, "null");
    }
    sc_json_member_u64(b, &first, "db_bytes", d->db_bytes);
    sc_json_member_cstr(b, &first, "sync", d->sync);
    sc_json_member_cstr(b, &first, "backend", d->backend ? d->backend : "");
    sc_json_member_cstr(b, &first, "host", d->host ? d->host : "");
    sc_json_member_u64(b, &first, "cache_max_bytes", d->cache_max_bytes);
    sc_json_member_u64(b, &first, "cache_bytes", d->cache_bytes);
    sc_json_member_u64(b, &first, "cache_entries", d->cache_entries);
    sc_json_member_u64(b, &first, "cache_hits", d->cache_hits);
    sc_json_member_u64(b, &first, "cache_misses", d->cache_misses);
    /* No look-up yet: no rate rather than a made-up 0 or 1. */
    sc_json_key(b, &first, "cache_hit_rate");
    if (lookups)
        sc_buf_printf(b, "%.4f", (double)d->cache_hits / (double)lookups);
    else
        sc_buf_puts(b, "null");
    sc_json_obj_end(b);
}

static void info_text(cli *x, const sc_client_server_desc *d)
{
    char *v = cli_printable(d->version);
    char *db = cli_printable(d->db_path);
    char *sync = cli_printable(d->sync);
    char *backend = cli_printable(d->backend);
    char *host = cli_printable(d->host);
    char *sock = cli_printable(sc_client_socket_path(x->c));
    char size[32], used[32], max[32];
    human_bytes(d->db_bytes, size, sizeof(size));
    human_bytes(d->cache_bytes, used, sizeof(used));
    human_bytes(d->cache_max_bytes, max, sizeof(max));
    /* The first lines keep their order: scripts read them. */
    printf("streamcapd   %s\n", v ? v : "");
    printf("socket       %s\n", sock ? sock : "");
    /* The daemon tells only root where its database is. */
    printf("database     %s\n", d->db_path ? (db ? db : "") : "(shown to root only)");
    printf("uptime       ");
    print_uptime(d->uptime_s);
    printf("\nconnections  %llu\n", (unsigned long long)d->connections);
    printf("sessions     %llu\n", (unsigned long long)d->sessions);
    printf("graphs       %llu\n", (unsigned long long)d->graphs);
    printf("pid          %lld\n", (long long)d->pid);
    printf("db size      %s (%llu bytes)\n", size, (unsigned long long)d->db_bytes);
    printf("sync         %s\n", sync ? sync : "");
    printf("backend      %s\n", backend && *backend ? backend : "-");
    printf("host         %s\n", host && *host ? host : "-");
    printf("cache        %s of %s, %llu graph%s\n", used, max, (unsigned long long)d->cache_entries,
           d->cache_entries == 1 ? "" : "s");
    uint64_t lookups = d->cache_hits + d->cache_misses;
    if (lookups)
        printf("cache hits   %.1f%% (%llu of %llu look-ups)\n",
               100.0 * (double)d->cache_hits / (double)lookups, (unsigned long long)d->cache_hits,
               (unsigned long long)lookups);
    else
        printf("cache hits   - (no look-ups yet)\n");
    free(v);
    free(db);
    free(sync);
    free(backend);
    free(host);
    free(sock);
}

int cli_info(cli *x, int argc, char **argv)
{
    if (no_args(x, argc, argv) != CLI_OK || cli_connect(x) != CLI_OK)
        return CLI_ERROR;
    sc_client_server_desc d;
    int rc = sc_client_server_info(x->c, &d);
    if (rc != 0)
        return cli_call_fail(x, rc);
    int out = CLI_OK;
    if (x->json) {
        sc_buf b = SC_BUF_INIT;
        info_json(x, &b, &d);
        out = cli_emit_json(x, &b);
    } else {
        info_text(x, &d);
    }
    sc_client_server_desc_free(&d);
    return out;
}

/* --limit, --before, --host and a filter option shared by graphs and log. */
static int list_opts(cli *x, int argc, char **argv, const char *filter_name, sc_client_list_opts *o)
{
    for (int i = 0; i < argc;) {
        const char *v = NULL;
        int r;
        if ((r = cli_take_opt(argc, argv, &i, "--limit", &v)) != 0) {
            uint64_t n;
            if (r < 0 || cli_parse_uint(v, 1, 10000, &n) != 0)
                return cli_usage_fail(x, "--limit takes a number from 1 to 10000");
            o->limit = (uint32_t)n;
        } else if ((r = cli_take_opt(argc, argv, &i, "--before", &v)) != 0) {
            if (r < 0)
                return cli_usage_fail(x, "--before takes a cursor");
            o->before = v;
        } else if ((r = cli_take_opt(argc, argv, &i, filter_name, &v)) != 0) {
            if (r < 0)
                return cli_usage_fail(x, "%s takes a value", filter_name);
            o->filter = v;
        } else if ((r = cli_take_opt(argc, argv, &i, "--host", &v)) != 0) {
            if (r < 0 || !*v)
                return cli_usage_fail(x, "--host takes a host name");
            o->host = v;
        } else {
            return cli_usage_fail(x, "unexpected argument '%s'", argv[i]);
        }
    }
    return CLI_OK;
}

/* A cursor typed on the command line: JSON as printed, or a bare word. */
static char *cursor_arg(const char *s)
{
    cJSON *v = cJSON_Parse(s);
    if (v) {
        cJSON_Delete(v);
        return strdup(s);
    }
    sc_buf b = SC_BUF_INIT;
    sc_json_cstr(&b, s);
    return sc_buf_detach(&b, NULL);
}

/* A cursor that is a plain JSON string of shell-safe characters prints
 * bare (cursor_arg takes it back as a bare word); anything else quoted. */
static bool bare_cursor(const char *next)
{
    size_t n = strlen(next);
    if (n < 3 || next[0] != '"' || next[n - 1] != '"')
        return false;
    for (size_t i = 1; i + 1 < n; i++) {
        unsigned char ch = (unsigned char)next[i];
        if (!isalnum(ch) && !strchr("._:-", ch))
            return false;
    }
    /* A bare word that reads as JSON (a number, true) would change type. */
    cJSON *v = cJSON_ParseWithLength(next + 1, n - 2);
    bool json = v != NULL;
    cJSON_Delete(v);
    return !json;
}

/* A word for a shell command line: as it is when that is safe, else in
 * single quotes. */
static void put_shell_word(FILE *f, const char *s, size_t n)
{
    bool plain = n > 0;
    for (size_t i = 0; i < n && plain; i++)
        plain = isalnum((unsigned char)s[i]) || strchr("._:/,@%+=-", s[i]);
    if (plain) {
        fprintf(f, "%.*s", (int)n, s);
        return;
    }
    fputc('\'', f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'')
            fputs("'\\''", f);
        else
            fputc(s[i], f);
    }
    fputc('\'', f);
}

/* The command that fetches the next page, with the options of this one:
 * on standard error, so that standard output stays the listing. */
static void print_next(const char *next, const char *cmd, const char *filter_name,
                       const sc_client_list_opts *o)
{
    if (!next)
        return;
    fprintf(stderr, "more: streamcap %s", cmd);
    if (o->filter) {
        fprintf(stderr, " %s ", filter_name);
        char *v = cli_printable(o->filter);
        put_shell_word(stderr, v ? v : "", v ? strlen(v) : 0);
        free(v);
    }
    if (o->host) {
        fputs(" --host ", stderr);
        char *v = cli_printable(o->host);
        put_shell_word(stderr, v ? v : "", v ? strlen(v) : 0);
        free(v);
    }
    if (o->limit)
        fprintf(stderr, " --limit %u", (unsigned)o->limit);
    fputs(" --before ", stderr);
    if (bare_cursor(next))
        put_shell_word(stderr, next + 1, strlen(next) - 2);
    else
        put_shell_word(stderr, next, strlen(next));
    fputc('\n', stderr);
}

/* What an empty page means, in the words of the options that made it. */
static void print_empty(const char *what, const char *filter_name, const sc_client_list_opts *o)
{
    char *h = o->host ? cli_printable(o->host) : NULL;
    /* " from host H": every case below may be narrowed to one host. */
    const char *from = h ? " from host " : "";
    const char *host = h ? h : "";
    if (o->filter) {
        char *v = cli_printable(o->filter);
        if (strcmp(filter_name, "--outcome") == 0)
            printf("no %s with outcome %s%s%s%s\n", what, v ? v : "", from, host,
                   o->before ? " before that cursor" : "");
        else
            printf("no %s match %s %s%s%s%s\n", what, filter_name, v ? v : "", from, host,
                   o->before ? " before that cursor" : "");
        free(v);
    } else if (o->before) {
        printf("no more %s%s%s before that cursor\n", what, from, host);
    } else if (h) {
        printf("no %s from host %s\n", what, h);
    } else if (strcmp(what, "log entries") == 0) {
        printf("the capture log is empty\n");
    } else {
        printf("no %s stored\n", what);
    }
    free(h);
}

static void graphs_json(sc_buf *b, const sc_client_graph_page *p)
{
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_key(b, &first, "graphs");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < p->count; i++) {
        const sc_client_graph_summary *g = &p->graphs[i];
        bool gf;
        if (i)
            sc_buf_putc(b, ',');
        sc_json_obj_begin(b, &gf);
        sc_json_member_u64(b, &gf, "graph", g->graph);
        cli_json_member_str_or_null(b, &gf, "label", g->label);
        sc_json_member_cstr(b, &gf, "created_at", g->created_at);
        sc_json_member_u64(b, &gf, "node_count", g->node_count);
        sc_json_member_u64(b, &gf, "edge_count", g->edge_count);
        sc_json_member_u64(b, &gf, "stream_count", g->stream_count);
        sc_json_member_u64(b, &gf, "owner_uid", g->owner_uid);
        sc_json_member_i64(b, &gf, "owner_pid", g->owner_pid);
        sc_json_member_cstr(b, &gf, "host", g->host ? g->host : "");
        sc_json_obj_end(b);
    }
    sc_buf_putc(b, ']');
    /* The cursor is JSON text already. */
    sc_json_key(b, &first, "next");
    sc_buf_puts(b, p->next ? p->next : "null");
    sc_json_obj_end(b);
}

int cli_graphs(cli *x, int argc, char **argv)
{
    sc_client_list_opts o = {0};
    if (list_opts(x, argc, argv, "--label", &o) != CLI_OK || cli_connect(x) != CLI_OK)
        return CLI_ERROR;
    char *before = o.before ? cursor_arg(o.before) : NULL;
    sc_client_list_opts wire = o;
    wire.before = before;
    sc_client_graph_page p;
    int rc = sc_client_graph_list(x->c, &wire, &p);
    free(before);
    if (rc != 0)
        return cli_call_fail(x, rc);
    int out = CLI_OK;
    if (x->json) {
        sc_buf b = SC_BUF_INIT;
        graphs_json(&b, &p);
        out = cli_emit_json(x, &b);
    } else if (p.count == 0) {
        print_empty("graphs", "--label", &o);
    } else {
        static const char *const head[] = {"GRAPH",   "CREATED", "NODES", "EDGES",
                                           "STREAMS", "HOST",    "OWNER", "LABEL"};
        cli_table t;
        cli_table_init(&t, 8, head);
        for (size_t i = 0; i < p.count; i++) {
            const sc_client_graph_summary *g = &p.graphs[i];
            cli_table_cell(&t, "%llu", (unsigned long long)g->graph);
            cli_table_cell(&t, "%s", g->created_at);
            cli_table_cell(&t, "%llu", (unsigned long long)g->node_count);
            cli_table_cell(&t, "%llu", (unsigned long long)g->edge_count);
            cli_table_cell(&t, "%llu", (unsigned long long)g->stream_count);
            cli_table_cell(&t, "%s", g->host && *g->host ? g->host : "-");
            cli_table_cell(&t, "uid %u pid %lld", (unsigned)g->owner_uid, (long long)g->owner_pid);
            cli_table_cell(&t, "%s", g->label ? g->label : "-");
        }
        cli_table_print(&t, stdout);
        cli_table_free(&t);
        print_next(p.next, "graphs", "--label", &o);
    }
    sc_client_graph_page_free(&p);
    return out;
}

static void log_json(sc_buf *b, const sc_client_log_page *p)
{
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_key(b, &first, "entries");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < p->count; i++) {
        const sc_client_log_entry *e = &p->entries[i];
        bool ef;
        if (i)
            sc_buf_putc(b, ',');
        sc_json_obj_begin(b, &ef);
        sc_json_member_u64(b, &ef, "session", e->session);
        cli_json_member_str_or_null(b, &ef, "label", e->label);
        sc_json_member_u64(b, &ef, "owner_uid", e->owner_uid);
        sc_json_member_i64(b, &ef, "owner_pid", e->owner_pid);
        sc_json_member_cstr(b, &ef, "host", e->host ? e->host : "");
        sc_json_member_cstr(b, &ef, "opened_at", e->opened_at);
        cli_json_member_str_or_null(b, &ef, "ended_at", e->ended_at);
        sc_json_member_cstr(b, &ef, "outcome", e->outcome);
        sc_json_member_u64(b, &ef, "node_count", e->node_count);
        /* 0: the session stored no graph. */
        sc_json_key(b, &ef, "graph");
        if (e->graph)
            sc_json_u64(b, e->graph);
        else
            sc_buf_puts(b, "null");
        if (e->semantics)
            cli_json_log_captures(b, &ef, e);
        sc_json_obj_end(b);
    }
    sc_buf_putc(b, ']');
    sc_json_key(b, &first, "next");
    sc_buf_puts(b, p->next ? p->next : "null");
    sc_json_obj_end(b);
}

int cli_log(cli *x, int argc, char **argv)
{
    sc_client_list_opts o = {0};
    if (list_opts(x, argc, argv, "--outcome", &o) != CLI_OK || cli_connect(x) != CLI_OK)
        return CLI_ERROR;
    char *before = o.before ? cursor_arg(o.before) : NULL;
    sc_client_list_opts wire = o;
    wire.before = before;
    sc_client_log_page p;
    int rc = sc_client_log_list(x->c, &wire, &p);
    free(before);
    if (rc != 0)
        return cli_call_fail(x, rc);
    int out = CLI_OK;
    if (x->json) {
        sc_buf b = SC_BUF_INIT;
        log_json(&b, &p);
        out = cli_emit_json(x, &b);
    } else if (p.count == 0) {
        print_empty("log entries", "--outcome", &o);
    } else {
        static const char *const head[] = {"SESSION", "OPENED", "ENDED", "OUTCOME", "NODES",
                                           "GRAPH",   "HOST",   "OWNER", "LABEL"};
        cli_table t;
        cli_table_init(&t, 9, head);
        for (size_t i = 0; i < p.count; i++) {
            const sc_client_log_entry *e = &p.entries[i];
            cli_table_cell(&t, "%llu", (unsigned long long)e->session);
            cli_table_cell(&t, "%s", e->opened_at);
            cli_table_cell(&t, "%s", e->ended_at ? e->ended_at : "-");
            cli_table_cell(&t, "%s", e->outcome);
            cli_table_cell(&t, "%llu", (unsigned long long)e->node_count);
            if (e->graph)
                cli_table_cell(&t, "%llu", (unsigned long long)e->graph);
            else
                cli_table_cell(&t, "-");
            cli_table_cell(&t, "%s", e->host && *e->host ? e->host : "-");
            cli_table_cell(&t, "uid %u pid %lld", (unsigned)e->owner_uid, (long long)e->owner_pid);
            cli_table_cell(&t, "%s", e->label ? e->label : "-");
        }
        cli_table_print(&t, stdout);
        cli_table_free(&t);
        for (size_t i = 0; i < p.count; i++)
            cli_print_failed_captures(&p.entries[i], stdout);
        print_next(p.next, "log", "--outcome", &o);
    }
    sc_client_log_page_free(&p);
    return out;
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
