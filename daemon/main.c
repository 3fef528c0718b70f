/*
 * main.c - streamcapd: command-line flags and signals around the daemon.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sc_daemon.h"
#include "sc_redact.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: streamcapd [options]\n"
            "\n"
            "Serve stream-capture sessions over JSON-RPC 2.0 on a Unix socket and\n"
            "commit every ended capture to SQLite.\n"
            "\n"
            "options:\n"
            "  --socket PATH              Unix socket to listen on (default: see Paths below)\n"
            "  --db PATH|URI              SQLite database file (default: see Paths below),\n"
            "                             or a PostgreSQL server: postgresql://... or\n"
            "                             postgres:... (when built with PostgreSQL)\n"
            "  --host-name NAME           host name stored on every row this daemon writes\n"
            "                             (default: the machine's host name)\n"
            "  --socket-mode OCTAL        permissions of the socket file (default 0600)\n"
            "  --max-message BYTES        longest request line accepted (default 1048576)\n"
            "  --max-connections N        connections served at once (default 1024)\n"
            "  --max-sessions N           live capture sessions (default 10000)\n"
            "  --max-session-nodes N      nodes one session may record (default 50000000)\n"
            "  --max-live-nodes N         nodes all live sessions together may hold before\n"
            "                             they end (default 100000000)\n"
            "  --max-uid-connections N    connections one uid may hold at once\n"
            "                             (default 3/4 of --max-connections)\n"
            "  --max-uid-sessions N       live sessions of one uid\n"
            "                             (default 3/4 of --max-sessions)\n"
            "  --max-uid-nodes N          live nodes of one uid's sessions together\n"
            "                             (default 3/4 of --max-live-nodes); root's\n"
            "                             quotas are the same as any uid's\n"
            "  --session-idle-timeout S   drop a session no request used for S seconds,\n"
            "                             logged as abandoned (default 600)\n"
            "  --write-timeout S          disconnect a client that takes no reply bytes\n"
            "                             for S seconds while replies wait (default 30)\n"
            "  --max-conn-output BYTES    reply bytes one connection may have waiting to be\n"
            "                             read; a bigger reply answers 1006 (default 256M)\n"
            "  --reply-budget BYTES       reply bytes all connections together may have\n"
            "                             waiting; a reply past it answers 1006, retry\n"
            "                             later (default 512M); K, M, G suffixes allowed\n"
            "  --line-timeout S           disconnect a client that leaves a request line\n"
            "                             unfinished (no newline) for S seconds (default 30)\n"
            "  --connection-idle-timeout S\n"
            "                             disconnect a client that sent nothing for S\n"
            "                             seconds and has no request, reply or live session\n"
            "                             on its connection (default 300)\n"
            "  --sync full|normal         full: an acknowledged graph survives power loss;\n"
            "                             normal: faster, survives a daemon crash only\n"
            "                             (default full)\n"
            "  --stream-nodes N           store a capture's nodes N at a time while it\n"
            "                             records, so that capture.end of a big graph\n"
            "                             stores only the rest (default 32768; 0: all at\n"
            "                             capture.end; default-mode sessions on SQLite)\n"
            "  --graph-cache BYTES        memory for stored graphs kept hot with their\n"
            "                             reachability index; K, M, G suffixes allowed\n"
            "                             (default 512M)\n"
            "  --busy-timeout MS          wait this long for a database lock held by\n"
            "                             another process before failing (default 5000)\n"
            "  --log-level LEVEL          error, warn, info or debug, which adds a line\n"
            "                             per request: method, session, time taken\n"
            "                             and error code (default info)\n"
            "  --test-max-page-count N    cap the database at N pages (for tests of a\n"
            "                             full disk)\n"
            "  --version                  print the version and exit\n"
            "  -h, --help                 show this help and exit\n"
            "\n"
            "Log lines go to standard error, each stamped with the UTC time; when it is\n"
            "the systemd journal (JOURNAL_STREAM) they carry a priority prefix instead.\n"
            "\n"
            "SIGTERM or SIGINT stop the daemon gracefully: in-flight commits finish,\n"
            "open sessions are logged as shutdown and the socket file is removed.\n"
            "\n"
            "Paths: the socket is $STREAMCAP_SOCKET, else\n"
            "$XDG_RUNTIME_DIR/streamcap/streamcap.sock, else /run/streamcap/streamcap.sock\n"
            "for root and /tmp/streamcap-UID/streamcap.sock for other users.  The database\n"
            "is $XDG_STATE_HOME/streamcap/streamcap.db, else /var/lib/streamcap/streamcap.db\n"
            "for root and ~/.local/state/streamcap/streamcap.db for other users.  Missing\n"
            "directories of these defaults are created; those of a path given as an option\n"
            "must exist.  One daemon serves a database: a second one refuses to start.\n");
}

static int parse_ull(const char *flag, const char *s, int base, unsigned long long min,
                     unsigned long long max, unsigned long long *out)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-') {
        fprintf(stderr, "streamcapd: %s needs a number\n", flag);
        return -1;
    }
    unsigned long long v = strtoull(s, &end, base);
    if (errno || *end || v < min || v > max) {
        fprintf(stderr, "streamcapd: %s: '%s' is not a number from %llu to %llu\n", flag, s, min,
                max);
        return -1;
    }
    *out = v;
    return 0;
}

/* A byte count with an optional K, M or G (binary) suffix. */
static int parse_size(const char *flag, const char *s, unsigned long long *out)
{
    char num[32];
    size_t len = strlen(s);
    unsigned shift = 0;
    if (len > 0 && len < sizeof(num)) {
        char last = s[len - 1];
        shift = last == 'K' || last == 'k'   ? 10
                : last == 'M' || last == 'm' ? 20
                : last == 'G' || last == 'g' ? 30
                                             : 0;
    }
    if (len == 0 || len >= sizeof(num))
        return parse_ull(flag, s, 10, 0, 1ull << 40, out);
    memcpy(num, s, len + 1);
    if (shift)
        num[len - 1] = '\0';
    if (parse_ull(flag, num, 10, 0, (1ull << 40) >> shift, out))
        return -1;
    *out <<= shift;
    return 0;
}

/* Every option that takes a value, so that a misspelt one is called
 * unknown rather than missing its value. */
static bool known_option(const char *a)
{
    static const char *const names[] = {"--socket",
                                        "--db",
                                        "--host-name",
                                        "--socket-mode",
                                        "--max-message",
                                        "--max-connections",
                                        "--max-sessions",
                                        "--max-session-nodes",
                                        "--max-live-nodes",
                                        "--max-uid-connections",
                                        "--max-uid-sessions",
                                        "--max-uid-nodes",
                                        "--line-timeout",
                                        "--max-conn-output",
                                        "--reply-budget",
                                        "--connection-idle-timeout",
                                        "--session-idle-timeout",
                                        "--graph-cache",
                                        "--write-timeout",
                                        "--busy-timeout",
                                        "--test-max-page-count",
                                        "--sync",
                                        "--stream-nodes",
                                        "--log-level"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!strcmp(a, names[i]))
            return true;
    return false;
}

static int parse_mode(const char *s, unsigned *out)
{
    /* Out of range unless the whole text is an octal number. */
    unsigned long v = 01000;
    if (s[0] >= '0' && s[0] <= '7') {
        char *end;
        errno = 0;
        v = strtoul(s, &end, 8);
        if (errno || *end)
            v = 01000;
    }
    if (v > 0777) {
        fprintf(stderr,
                "streamcapd: --socket-mode takes an octal mode such as 0660 (at most 0777), "
                "not '%s'\n",
                s);
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

static int parse_args(int argc, char **argv, sc_config *cfg)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        }
        if (!strcmp(a, "--version")) {
            printf("streamcapd %s\n", SC_VERSION);
            exit(0);
        }
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned long long n;
        if (strncmp(a, "--", 2) != 0) {
            /* A --db value given without --db is shown without its password. */
            char shown[SC_PATH_MAX + 64];
            fprintf(stderr, "streamcapd: unexpected argument '%s' (see --help)\n",
                    sc_redact_db(a, shown, sizeof shown));
            return -1;
        }
        const char *eq = strchr(a, '=');
        if (eq) {
            /* --db=URI: the value is never repeated, it may hold a password. */
            fprintf(stderr,
                    "streamcapd: unknown option '%.*s=...': give the value as the next "
                    "argument (%.*s VALUE, see --help)\n",
                    (int)(eq - a), a, (int)(eq - a), a);
            return -1;
        }
        if (!known_option(a)) {
            fprintf(stderr, "streamcapd: unknown option '%s' (see --help)\n", a);
            return -1;
        }
        if (!v) {
            fprintf(stderr, "streamcapd: %s needs a value (see --help)\n", a);
            return -1;
        }
        i++;
        if (!strcmp(a, "--socket")) {
            cfg->socket_path = v;
        } else if (!strcmp(a, "--db")) {
            cfg->db_path = v;
        } else if (!strcmp(a, "--host-name")) {
            if (!v[0] || strlen(v) > 255) {
                fprintf(stderr, "streamcapd: --host-name takes 1 to 255 bytes\n");
                return -1;
            }
            cfg->host_name = v;
        } else if (!strcmp(a, "--socket-mode")) {
            if (parse_mode(v, &cfg->socket_mode))
                return -1;
        } else if (!strcmp(a, "--max-message")) {
            if (parse_ull(a, v, 10, 64, 1ull << 32, &n))
                return -1;
            cfg->max_message = (size_t)n;
        } else if (!strcmp(a, "--max-connections")) {
            if (parse_ull(a, v, 10, 1, 1000000, &n))
                return -1;
            cfg->max_connections = (unsigned)n;
        } else if (!strcmp(a, "--max-sessions")) {
            if (parse_ull(a, v, 10, 1, 10000000, &n))
                return -1;
            cfg->max_sessions = (unsigned)n;
        } else if (!strcmp(a, "--max-session-nodes")) {
            if (parse_ull(a, v, 10, 1, UINT32_MAX - 1u, &n))
                return -1;
            cfg->max_session_nodes = (uint32_t)n;
        } else if (!strcmp(a, "--max-live-nodes")) {
            if (parse_ull(a, v, 10, 1, 1ull << 40, &n))
                return -1;
            cfg->max_live_nodes = n;
        } else if (!strcmp(a, "--max-uid-connections")) {
            if (parse_ull(a, v, 10, 1, 1000000, &n))
                return -1;
            cfg->max_uid_connections = (unsigned)n;
        } else if (!strcmp(a, "--max-uid-sessions")) {
            if (parse_ull(a, v, 10, 1, 10000000, &n))
                return -1;
            cfg->max_uid_sessions = (unsigned)n;
        } else if (!strcmp(a, "--max-uid-nodes")) {
            if (parse_ull(a, v, 10, 1, 1ull << 40, &n))
                return -1;
            cfg->max_uid_nodes = n;
        } else if (!strcmp(a, "--max-conn-output") || !strcmp(a, "--reply-budget")) {
            if (parse_size(a, v, &n))
                return -1;
            if (n < (64u << 10)) {
                fprintf(stderr, "streamcapd: %s: at least 64K\n", a);
                return -1;
            }
            *(!strcmp(a, "--reply-budget") ? &cfg->reply_budget : &cfg->max_conn_output) =
                (size_t)n;
        } else if (!strcmp(a, "--stream-nodes")) {
            if (parse_ull(a, v, 10, 0, UINT32_MAX, &n))
                return -1;
            /* Parts smaller than this cost more transactions than they save. */
            if (n != 0 && n < 1024) {
                fprintf(stderr, "streamcapd: --stream-nodes: 0 or at least 1024\n");
                return -1;
            }
            cfg->stream_nodes = (uint32_t)n;
        } else if (!strcmp(a, "--line-timeout")) {
            if (parse_ull(a, v, 10, 1, 86400, &n))
                return -1;
            cfg->line_timeout_s = (unsigned)n;
        } else if (!strcmp(a, "--connection-idle-timeout")) {
            if (parse_ull(a, v, 10, 1, 31536000, &n))
                return -1;
            cfg->conn_idle_timeout_s = (unsigned)n;
        } else if (!strcmp(a, "--session-idle-timeout")) {
            if (parse_ull(a, v, 10, 1, 31536000, &n))
                return -1;
            cfg->session_idle_timeout_s = (unsigned)n;
        } else if (!strcmp(a, "--graph-cache")) {
            if (parse_size(a, v, &n))
                return -1;
            cfg->graph_cache_bytes = (size_t)n;
        } else if (!strcmp(a, "--write-timeout")) {
            if (parse_ull(a, v, 10, 1, 86400, &n))
                return -1;
            cfg->write_timeout_s = (unsigned)n;
        } else if (!strcmp(a, "--busy-timeout")) {
            if (parse_ull(a, v, 10, 0, 3600000, &n))
                return -1;
            cfg->busy_timeout_ms = (int)n;
        } else if (!strcmp(a, "--test-max-page-count")) {
            if (parse_ull(a, v, 10, 1, INT64_MAX, &n))
                return -1;
            cfg->test_max_page_count = (int64_t)n;
        } else if (!strcmp(a, "--sync")) {
            if (!strcmp(v, "full")) {
                cfg->sync_full = true;
            } else if (!strcmp(v, "normal")) {
                cfg->sync_full = false;
            } else {
                fprintf(stderr, "streamcapd: --sync takes full or normal, not '%s'\n", v);
                return -1;
            }
        } else if (!strcmp(a, "--log-level")) {
            int lvl = sc_log_level_parse(v);
            if (lvl < 0) {
                fprintf(stderr, "streamcapd: --log-level takes error, warn, info or debug\n");
                return -1;
            }
            cfg->log_level = lvl;
        } else {
            fprintf(stderr, "streamcapd: unknown option '%s' (see --help)\n", a);
            return -1;
        }
    }
    return 0;
}

static void on_signal(uv_signal_t *h, int signum)
{
    sc_daemon *d = h->data;
    sc_log(&d->log, SC_LOG_INFO, "received %s", signum == SIGTERM ? "SIGTERM" : "SIGINT");
    uv_close((uv_handle_t *)&d->sigterm, NULL);
    uv_close((uv_handle_t *)&d->sigint, NULL);
    sc_server_stop(d);
}

static int finish(uv_loop_t *loop, sc_daemon *d, int code)
{
    sc_daemon_destroy(d);
    uv_run(loop, UV_RUN_DEFAULT);
    if (uv_loop_close(loop) != 0)
        sc_log(&d->log, SC_LOG_WARN, "event loop closed with handles still open");
    return code;
}

int main(int argc, char **argv)
{
    sc_config cfg;
    sc_config_defaults(&cfg);
    if (parse_args(argc, argv, &cfg) != 0)
        return 2;

    /* A client that vanishes mid-reply must not kill the daemon. */
    signal(SIGPIPE, SIG_IGN);

    /* Enough of a daemon for sc_log, so that start-up failures are logged
     * like everything else (sc_daemon_init sets it up in full). */
    sc_daemon d;
    memset(&d, 0, sizeof(d));
    d.cfg = cfg;
    sc_logger_init(&d.log, cfg.log_level);
    uv_loop_t loop;
    if (uv_loop_init(&loop) != 0) {
        sc_log(&d.log, SC_LOG_ERROR, "cannot create the event loop");
        return 1;
    }
    char err[SC_PATH_MAX + 512] = "";
    sc_daemon_paths paths;
    if (sc_daemon_resolve_paths(&cfg, &paths, err, sizeof(err)) != 0) {
        sc_log(&d.log, SC_LOG_ERROR, "%s", err);
        uv_loop_close(&loop);
        return 1;
    }
    d.cfg = cfg; /* with the paths resolved */
    int listen_fd;
    if (sc_server_prepare(&d, &listen_fd) != 0) {
        uv_loop_close(&loop);
        return 1;
    }
    if (sc_daemon_init(&d, &loop, &cfg, err, sizeof(err)) != 0) {
        sc_log(&d.log, SC_LOG_ERROR, "%s", err);
        return finish(&loop, &d, 1);
    }
    if (sc_server_start(&d, listen_fd) != 0)
        return finish(&loop, &d, 1);

    uv_signal_init(&loop, &d.sigterm);
    uv_signal_init(&loop, &d.sigint);
    d.sigterm.data = d.sigint.data = &d;
    uv_signal_start(&d.sigterm, on_signal, SIGTERM);
    uv_signal_start(&d.sigint, on_signal, SIGINT);

    /* A PostgreSQL connection string may hold a password. */
    char shown[SC_PATH_MAX + 64];
    printf("streamcapd: listening on %s (database %s)\n", d.cfg.socket_path,
           sc_redact_db(cfg.db_path, shown, sizeof shown));
    fflush(stdout);
    sc_log(&d.log, SC_LOG_INFO, "version %s ready", SC_VERSION);

    uv_run(&loop, UV_RUN_DEFAULT);
    return finish(&loop, &d, 0);
}
