/*
 * options.c - streamcapd's command line (sc_options.h): the table of its
 * options, the parser and the --help text made from it.
 *
 * The parser is this file's own, not getopt_long(3): that would take
 * --name=value (and echo a --db=URI's password in its complaints),
 * abbreviations and options after operands, none of which streamcapd ever
 * accepted.  Every message it prints is the daemon's long-standing one.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sc_options.h"
#include "sc_redact.h"
#include "sc_units.h"

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

/* ------------------------------------------------------- setters */

static int set_socket(const char *flag, const char *v, sc_config *cfg)
{
    (void)flag;
    cfg->socket_path = v;
    return 0;
}

static int set_db(const char *flag, const char *v, sc_config *cfg)
{
    (void)flag;
    cfg->db_path = v;
    return 0;
}

static int set_host_name(const char *flag, const char *v, sc_config *cfg)
{
    (void)flag;
    if (!v[0] || strlen(v) > 255) {
        fprintf(stderr, "streamcapd: --host-name takes 1 to 255 bytes\n");
        return -1;
    }
    cfg->host_name = v;
    return 0;
}

static int set_socket_mode(const char *flag, const char *s, sc_config *cfg)
{
    (void)flag;
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
    cfg->socket_mode = (unsigned)v;
    return 0;
}

/* The options that are a decimal number from MIN to MAX kept in one field. */
#define SC_NUMBER_OPTION(fn, field, type, min, max)                                                \
    static int fn(const char *flag, const char *v, sc_config *cfg)                                 \
    {                                                                                              \
        unsigned long long n;                                                                      \
        if (parse_ull(flag, v, 10, min, max, &n))                                                  \
            return -1;                                                                             \
        cfg->field = (type)n;                                                                      \
        return 0;                                                                                  \
    }
SC_NUMBER_OPTION(set_max_message, max_message, size_t, 64, 1ull << 32)
SC_NUMBER_OPTION(set_max_connections, max_connections, unsigned, 1, 1000000)
SC_NUMBER_OPTION(set_max_sessions, max_sessions, unsigned, 1, 10000000)
SC_NUMBER_OPTION(set_max_session_nodes, max_session_nodes, uint32_t, 1, UINT32_MAX - 1u)
SC_NUMBER_OPTION(set_max_live_nodes, max_live_nodes, uint64_t, 1, 1ull << 40)
SC_NUMBER_OPTION(set_max_uid_connections, max_uid_connections, unsigned, 1, 1000000)
SC_NUMBER_OPTION(set_max_uid_sessions, max_uid_sessions, unsigned, 1, 10000000)
SC_NUMBER_OPTION(set_root_reserved, root_reserved, unsigned, 0, 1000000)
SC_NUMBER_OPTION(set_max_uid_nodes, max_uid_nodes, uint64_t, 1, 1ull << 40)
SC_NUMBER_OPTION(set_session_idle_timeout, session_idle_timeout_s, unsigned, 1, 31536000)
SC_NUMBER_OPTION(set_write_timeout, write_timeout_s, unsigned, 1, 86400)
SC_NUMBER_OPTION(set_line_timeout, line_timeout_s, unsigned, 1, 86400)
SC_NUMBER_OPTION(set_conn_idle_timeout, conn_idle_timeout_s, unsigned, 1, 31536000)
SC_NUMBER_OPTION(set_busy_timeout, busy_timeout_ms, int, 0, 3600000)
SC_NUMBER_OPTION(set_test_max_page_count, test_max_page_count, int64_t, 1, INT64_MAX)
SC_NUMBER_OPTION(set_retain_graphs, retain_graphs, uint64_t, 1, 1ull << 40)
SC_NUMBER_OPTION(set_retain_interval, retain_interval_s, unsigned, 1, 86400)
#undef SC_NUMBER_OPTION

/* --max-conn-output and --reply-budget: a size of at least 64K. */
static int parse_reply_bound(const char *flag, const char *v, size_t *out)
{
    unsigned long long n;
    if (parse_size(flag, v, &n))
        return -1;
    if (n < (64u << 10)) {
        fprintf(stderr, "streamcapd: %s: at least 64K\n", flag);
        return -1;
    }
    *out = (size_t)n;
    return 0;
}

static int set_max_conn_output(const char *flag, const char *v, sc_config *cfg)
{
    return parse_reply_bound(flag, v, &cfg->max_conn_output);
}

static int set_max_sub_output(const char *flag, const char *v, sc_config *cfg)
{
    return parse_reply_bound(flag, v, &cfg->max_sub_output);
}

static int set_reply_budget(const char *flag, const char *v, sc_config *cfg)
{
    return parse_reply_bound(flag, v, &cfg->reply_budget);
}

static int set_buffer_budget(const char *flag, const char *v, sc_config *cfg)
{
    return parse_reply_bound(flag, v, &cfg->buffer_budget);
}

static int set_stream_nodes(const char *flag, const char *v, sc_config *cfg)
{
    unsigned long long n;
    if (parse_ull(flag, v, 10, 0, UINT32_MAX, &n))
        return -1;
    /* Parts smaller than this cost more transactions than they save. */
    if (n != 0 && n < 1024) {
        fprintf(stderr, "streamcapd: --stream-nodes: 0 or at least 1024\n");
        return -1;
    }
    cfg->stream_nodes = (uint32_t)n;
    return 0;
}

static int set_graph_cache(const char *flag, const char *v, sc_config *cfg)
{
    unsigned long long n;
    if (parse_size(flag, v, &n))
        return -1;
    cfg->graph_cache_bytes = (size_t)n;
    return 0;
}

/* --retain and --retain-log: an age of at least a second. */
static int parse_age_option(const char *flag, const char *v, int64_t *out)
{
    if (sc_parse_age(v, strlen(v), out) != 0 || *out < 1000) {
        fprintf(stderr,
                "streamcapd: %s takes an age such as 30d, 12h, 15m or 5s (at most 36500d), "
                "not '%s'\n",
                flag, v);
        return -1;
    }
    return 0;
}

static int set_retain(const char *flag, const char *v, sc_config *cfg)
{
    return parse_age_option(flag, v, &cfg->retain_ms);
}

static int set_retain_log(const char *flag, const char *v, sc_config *cfg)
{
    return parse_age_option(flag, v, &cfg->retain_log_ms);
}

static int set_max_db_size(const char *flag, const char *v, sc_config *cfg)
{
    if (sc_parse_bytes(v, strlen(v), &cfg->max_db_bytes) != 0 || cfg->max_db_bytes < (1u << 20)) {
        fprintf(stderr, "streamcapd: %s takes a size such as 10G or 500M (at least 1M), not '%s'\n",
                flag, v);
        return -1;
    }
    return 0;
}

static int set_sync(const char *flag, const char *v, sc_config *cfg)
{
    (void)flag;
    if (strcmp(v, "full") != 0 && strcmp(v, "normal") != 0) {
        fprintf(stderr, "streamcapd: --sync takes full or normal, not '%s'\n", v);
        return -1;
    }
    cfg->sync_full = strcmp(v, "full") == 0;
    return 0;
}

static int set_log_level(const char *flag, const char *v, sc_config *cfg)
{
    (void)flag;
    int lvl = sc_log_level_parse(v);
    if (lvl < 0) {
        fprintf(stderr, "streamcapd: --log-level takes error, warn, info or debug\n");
        return -1;
    }
    cfg->log_level = lvl;
    return 0;
}

static int set_metrics_socket(const char *flag, const char *v, sc_config *cfg)
{
    (void)flag;
    cfg->metrics_socket = v;
    return 0;
}

static int set_check_db(const char *flag, const char *v, sc_config *cfg)
{
    (void)flag;
    (void)v;
    cfg->check_db = true;
    return 0;
}

/* ------------------------------------------------------- the table */

static const sc_option options[] = {
    {"--socket", 0, "PATH", "Unix socket to listen on (default: see Paths below)", set_socket},
    {"--db", 0, "PATH|URI",
     "SQLite database file (default: see Paths below),\n"
     "or a PostgreSQL server: postgresql://... or\n"
     "postgres:... (when built with PostgreSQL)",
     set_db},
    {"--host-name", 0, "NAME",
     "host name stored on every row this daemon writes\n"
     "(default: the machine's host name)",
     set_host_name},
    {"--socket-mode", 0, "OCTAL", "permissions of the socket file (default 0600)", set_socket_mode},
    {"--max-message", 0, "BYTES", "longest request line accepted (default 1048576)",
     set_max_message},
    {"--max-connections", 0, "N", "connections served at once (default 1024)", set_max_connections},
    {"--max-sessions", 0, "N", "live capture sessions (default 10000)", set_max_sessions},
    {"--max-session-nodes", 0, "N", "nodes one session may record (default 50000000)",
     set_max_session_nodes},
    {"--max-live-nodes", 0, "N",
     "nodes all live sessions together may hold before\n"
     "they end (default 100000000)",
     set_max_live_nodes},
    {"--max-uid-connections", 0, "N",
     "connections one uid may hold at once\n"
     "(default 3/4 of --max-connections)",
     set_max_uid_connections},
    {"--max-uid-sessions", 0, "N",
     "live sessions of one uid\n"
     "(default 3/4 of --max-sessions)",
     set_max_uid_sessions},
    {"--max-uid-nodes", 0, "N",
     "live nodes of one uid's sessions together\n"
     "(default 3/4 of --max-live-nodes); root's\n"
     "quotas are the same as any uid's",
     set_max_uid_nodes},
    {"--root-reserved", 0, "N",
     "connections and live sessions kept for root: other\n"
     "uids together hold at most the limit minus N (default 3)",
     set_root_reserved},
    {"--session-idle-timeout", 0, "S",
     "drop a session no request used for S seconds,\n"
     "logged as abandoned (default 600)",
     set_session_idle_timeout},
    {"--write-timeout", 0, "S",
     "disconnect a client that takes no reply bytes\n"
     "for S seconds while replies wait (default 30)",
     set_write_timeout},
    {"--max-conn-output", 0, "BYTES",
     "reply bytes one connection may have waiting to be\n"
     "read; a bigger reply answers 1006 (default 256M)",
     set_max_conn_output},
    {"--max-sub-output", 0, "BYTES",
     "bytes a log.subscribe connection may leave unread;\n"
     "past it, it is sent 'dropped' and closed (default 1M)",
     set_max_sub_output},
    {"--reply-budget", 0, "BYTES",
     "reply bytes all connections together may have\n"
     "waiting; a reply past it answers 1006, retry\n"
     "later (default 512M); K, M, G suffixes allowed",
     set_reply_budget},
    {"--buffer-budget", 0, "BYTES",
     "bytes of unfinished request lines and unsent\n"
     "replies all connections together may hold; past\n"
     "it a connection over its share stops reading\n"
     "(default 256M)",
     set_buffer_budget},
    {"--line-timeout", 0, "S",
     "disconnect a client that leaves a request line\n"
     "unfinished (no newline) for S seconds (default 30)",
     set_line_timeout},
    {"--connection-idle-timeout", 0, "S",
     "disconnect a client that sent nothing for S\n"
     "seconds and has no request, reply or live session\n"
     "on its connection (default 300)",
     set_conn_idle_timeout},
    {"--sync", 0, "full|normal",
     "full: an acknowledged graph survives power loss;\n"
     "normal: faster, survives a daemon crash only\n"
     "(default full)",
     set_sync},
    {"--stream-nodes", 0, "N",
     "store a capture's nodes N at a time while it\n"
     "records, so that capture.end of a big graph\n"
     "stores only the rest (default 32768; 0: all at\n"
     "capture.end; default-mode sessions on SQLite)",
     set_stream_nodes},
    {"--graph-cache", 0, "BYTES",
     "memory for stored graphs kept hot with their\n"
     "reachability index; K, M, G suffixes allowed\n"
     "(default 512M)",
     set_graph_cache},
    {"--busy-timeout", 0, "MS",
     "wait this long for a database lock held by\n"
     "another process before failing (default 5000)",
     set_busy_timeout},
    {"--log-level", 0, "LEVEL",
     "error, warn, info or debug, which adds a line\n"
     "per request: method, session, time taken\n"
     "and error code (default info)",
     set_log_level},
    {"--metrics-socket", 0, "PATH",
     "serve the metrics in the Prometheus text format\n"
     "over HTTP on this Unix socket (mode 0600), e.g.\n"
     "curl --unix-socket PATH http://x/metrics",
     set_metrics_socket},
    {"--check-db", 0, NULL,
     "check the database (SQLite's integrity check and\n"
     "the store's own invariants), print each problem\n"
     "and exit: 0 clean, 1 problems found, 3 the check\n"
     "could not run",
     set_check_db},
    {"--retain", 0, "AGE",
     "delete stored graphs older than AGE (30d, 12h,\n"
     "15m, 5s), oldest first, but never pinned ones\n"
     "(default: keep every graph)",
     set_retain},
    {"--retain-graphs", 0, "N",
     "delete all but the newest N top-level graphs\n"
     "(pinned ones stay; default: no limit)",
     set_retain_graphs},
    {"--max-db-size", 0, "SIZE",
     "delete the oldest unpinned graphs while the\n"
     "database holds more than SIZE (10G, 500M) in\n"
     "use (default: no limit)",
     set_max_db_size},
    {"--retain-log", 0, "AGE",
     "delete ended capture-log rows older than AGE\n"
     "whose graphs are gone (default: keep them)",
     set_retain_log},
    {"--retain-interval", 0, "S",
     "run a retention pass every S seconds, and once\n"
     "at start (default 60)",
     set_retain_interval},
    {"--test-max-page-count", 0, "N",
     "cap the database at N pages (for tests of a\n"
     "full disk)",
     set_test_max_page_count},
    {"--version", 0, NULL, "print the version and exit", NULL},
    {"--help", 'h', NULL, "show this help and exit", NULL},
};

const sc_option *sc_options(size_t *count)
{
    *count = sizeof options / sizeof options[0];
    return options;
}

/* ------------------------------------------------------- parsing */

/* The option `a` names exactly (its long name, or -C for its short one). */
static const sc_option *find(const char *a)
{
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        const sc_option *o = &options[i];
        if (!strcmp(a, o->name) || (o->short_name && a[0] == '-' && a[1] == o->short_name && !a[2]))
            return o;
    }
    return NULL;
}

/* Why `a`, which is no option taking a value, is refused; returns -1. */
static int refuse(const char *a)
{
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
    fprintf(stderr, "streamcapd: unknown option '%s' (see --help)\n", a);
    return -1;
}

int sc_options_parse(int argc, char **argv, sc_config *cfg)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const sc_option *o = find(a);
        if (o && !o->arg && !o->set)
            return o->short_name == 'h' ? SC_OPTIONS_HELP : SC_OPTIONS_VERSION;
        if (o && !o->arg) {
            o->set(a, NULL, cfg); /* a switch: nothing to read */
            continue;
        }
        if (!o)
            return refuse(a);
        if (i + 1 >= argc) {
            fprintf(stderr, "streamcapd: %s needs a value (see --help)\n", a);
            return -1;
        }
        if (o->set(a, argv[++i], cfg) != 0)
            return -1;
    }
    return SC_OPTIONS_RUN;
}

/* ------------------------------------------------------- --help */

/* Where the help text starts: an option column this wide, then a space. */
#define HELP_COLUMN 29

static void option_usage(FILE *out, const sc_option *o)
{
    char head[64];
    if (o->short_name)
        snprintf(head, sizeof head, "-%c, %s", o->short_name, o->name);
    else
        snprintf(head, sizeof head, "%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    /* A head that fills the column gets a line of its own. */
    if (strlen(head) < HELP_COLUMN - 2)
        fprintf(out, "  %-*s", HELP_COLUMN - 2, head);
    else
        fprintf(out, "  %s\n%*s", head, HELP_COLUMN, "");
    for (const char *p = o->help;;) {
        const char *nl = strchr(p, '\n');
        if (!nl) {
            fprintf(out, "%s\n", p);
            return;
        }
        fprintf(out, "%.*s\n%*s", (int)(nl - p), p, HELP_COLUMN, "");
        p = nl + 1;
    }
}

void sc_options_usage(FILE *out)
{
    fputs("usage: streamcapd [options]\n"
          "\n"
          "Serve stream-capture sessions over JSON-RPC 2.0 on a Unix socket and\n"
          "commit every ended capture to SQLite.\n"
          "\n"
          "options:\n",
          out);
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        option_usage(out, &options[i]);
    fputs("\n"
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
          "must exist.  One daemon serves a database: a second one refuses to start.\n"
          "\n"
          "At every start the daemon runs the cheap part of --check-db and refuses a\n"
          "database that fails it.  store.backup (streamcap backup FILE) copies an SQLite\n"
          "database while the daemon serves; docs/operations.md has backups, restores,\n"
          "checks and every metric.\n",
          out);
}
