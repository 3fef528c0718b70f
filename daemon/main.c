/*
 * main.c - streamcapd: the command line (options.c) and signals around the
 * daemon.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "sc_daemon.h"
#include "sc_options.h"
#include "sc_redact.h"

static void on_signal(uv_signal_t *h, int signum)
{
    sc_daemon *d = h->data;
    sc_log(&d->log, SC_LOG_INFO, "received %s", signum == SIGTERM ? "SIGTERM" : "SIGINT");
    uv_close((uv_handle_t *)&d->sigterm, NULL);
    uv_close((uv_handle_t *)&d->sigint, NULL);
    sc_server_stop(d);
}

/* One problem of --check-db, on its own line. */
static void print_problem(void *ctx, int64_t graph, const char *what)
{
    (void)ctx;
    (void)graph;
    printf("%s\n", what);
}

/* --check-db: the full check of the database, without serving it.  Exit
 * status 0 clean, 1 problems found, 3 the check could not run. */
static int check_db(const sc_config *cfg)
{
    char shown[SC_PATH_MAX + 64], err[512] = "";
    const char *db = sc_redact_db(cfg->db_path, shown, sizeof shown);
    sc_store_config sc = {.path = cfg->db_path, .busy_timeout_ms = cfg->busy_timeout_ms};
    size_t n = 0;
    int rc = sc_store_check(&sc, true, print_problem, NULL, &n, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "streamcapd: cannot check %s: %s\n", db, err);
        return 3;
    }
    if (n)
        printf("streamcapd: %s: %zu problem%s\n", db, n, n == 1 ? "" : "s");
    else
        printf("streamcapd: %s: ok\n", db);
    return n ? 1 : 0;
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
    switch (sc_options_parse(argc, argv, &cfg)) {
    case SC_OPTIONS_RUN:
        break;
    case SC_OPTIONS_HELP:
        sc_options_usage(stdout);
        return 0;
    case SC_OPTIONS_VERSION:
        printf("streamcapd %s\n", SC_VERSION);
        return 0;
    default:
        return 2;
    }

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
    if (cfg.check_db) {
        uv_loop_close(&loop);
        return check_db(&cfg);
    }
    int listen_fd;
    if (sc_server_prepare(&d, &listen_fd) != 0) {
        uv_loop_close(&loop);
        return 1;
    }
    /* Like the socket: a daemon that cannot serve its metrics creates no
     * database. */
    if (cfg.metrics_socket && sc_metrics_prepare(cfg.metrics_socket, err, sizeof err) != 0) {
        sc_log(&d.log, SC_LOG_ERROR, "%s", err);
        uv_loop_close(&loop);
        return 1;
    }
    if (sc_daemon_init(&d, &loop, &cfg, err, sizeof(err)) != 0) {
        sc_log(&d.log, SC_LOG_ERROR, "%s", err);
        return finish(&loop, &d, 1);
    }
    if (sc_server_start(&d, listen_fd) != 0)
        return finish(&loop, &d, 1);
    if (cfg.metrics_socket && sc_metrics_listen(&d, cfg.metrics_socket, err, sizeof err) != 0) {
        sc_log(&d.log, SC_LOG_ERROR, "%s", err);
        return finish(&loop, &d, 1);
    }

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
