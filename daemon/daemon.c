/*
 * daemon.c - the daemon as a library: configuration, set-up and
 * tear-down (log.c writes its log lines).  main.c adds flags and signals; tests and the fuzz
 * harness drive the same code without a listening socket.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sc_daemon.h"
#include "store_backend.h"

void sc_config_defaults(sc_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->socket_mode = 0600;
    cfg->max_message = 1u << 20;
    cfg->max_connections = 1024;
    cfg->max_sessions = 10000;
    cfg->root_reserved = 3;
    cfg->max_session_nodes = 50000000;
    cfg->session_idle_timeout_s = 600;
    cfg->write_timeout_s = 30;
    cfg->max_live_nodes = 100000000;
    cfg->line_timeout_s = 30;
    cfg->stream_nodes = SC_STORE_PART_NODES;
    cfg->conn_idle_timeout_s = 300;
    cfg->max_conn_output = (size_t)256 << 20;
    cfg->max_sub_output = (size_t)1 << 20;
    cfg->reply_budget = (size_t)512 << 20;
    cfg->buffer_budget = (size_t)256 << 20;
    cfg->graph_cache_bytes = (size_t)512 << 20;
    cfg->sync_full = true;
    cfg->busy_timeout_ms = 5000;
    cfg->log_level = SC_LOG_INFO;
    cfg->retain_interval_s = 60;
}

/* The store's warnings (the writer thread's too): sc_log only reads the
 * logger and writes one line to stderr. */
static void store_warn(void *ctx, const char *msg)
{
    sc_log(ctx, SC_LOG_WARN, "%s", msg);
}

static void on_idle_timer(uv_timer_t *t)
{
    sc_sessions_sweep_idle(t->data);
    sc_daemon *d = t->data;
    sc_log_retry_all(d);
    sc_server_sweep(d);
    sc_log_flush(&d->log, false);
}

int sc_daemon_init(sc_daemon *d, uv_loop_t *loop, const sc_config *cfg, char *err, size_t errlen)
{
    memset(d, 0, sizeof(*d));
    d->cfg = *cfg;
    sc_logger_init(&d->log, cfg->log_level);
    if (sc_log_limiter_init(&d->log_limit) == 0)
        d->log.limit = &d->log_limit;
    d->loop = loop;
    d->start_hr = uv_hrtime();
    sc_metrics_init(&d->metrics);
    d->cfg.max_uid_connections = sc_uid_quota(cfg->max_connections, cfg->max_uid_connections);
    d->cfg.max_uid_sessions = sc_uid_quota(cfg->max_sessions, cfg->max_uid_sessions);
    if (!cfg->max_uid_nodes) {
        uint64_t q = cfg->max_live_nodes / 4u * 3u;
        d->cfg.max_uid_nodes = q > 0 ? q : 1;
    }
    if (sc_sessions_init(&d->sessions) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    d->sessions.uids = &d->uids;
    /* A host name longer than the buffer is cut (POSIX allows that);
     * --host-name is checked to fit. */
    if (cfg->host_name)
        snprintf(d->host_name, sizeof d->host_name, "%s", cfg->host_name);
    else if (gethostname(d->host_name, sizeof d->host_name - 1) != 0)
        d->host_name[0] = '\0';
    d->cfg.host_name = d->host_name;
    char why[400] = "";
    sc_store_config sc = {.path = cfg->db_path,
                          .host = d->host_name,
                          .sync_full = cfg->sync_full,
                          .busy_timeout_ms = cfg->busy_timeout_ms,
                          .max_page_count = cfg->test_max_page_count,
                          .warn = store_warn,
                          .warn_ctx = &d->log};
    if (sc_store_open(loop, &sc, &d->store, why, sizeof(why)) != 0) {
        /* A connection string may hold a password: never repeated. */
        if (sc_store_db_is_postgresql(cfg->db_path))
            snprintf(err, errlen, "cannot open the PostgreSQL database: %s", why);
        else
            snprintf(err, errlen, "cannot open database %s: %s", cfg->db_path, why);
        d->store_closed = true;
        return -1;
    }
    if (sc_events_listen(d, why, sizeof why) != 0) {
        snprintf(err, errlen, "cannot hear the fleet's events: %s", why);
        return -1;
    }
    if (sc_cache_create(loop, d->store, cfg->graph_cache_bytes, &d->cache) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    /* Sweep often enough that a session outlives its timeout by at most a quarter. */
    uint64_t period = (uint64_t)cfg->session_idle_timeout_s * 250u;
    if (period > 1000)
        period = 1000;
    uv_timer_init(loop, &d->idle_timer);
    d->idle_timer.data = d;
    uv_timer_start(&d->idle_timer, on_idle_timer, period, period);
    uv_timer_init(loop, &d->close_timer);
    d->close_timer.data = d;
    d->timers_open = true;
    if (sc_retention_init(d) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

void sc_daemon_destroy(sc_daemon *d)
{
    /* Connections first: their requests may still hold sessions or graphs. */
    sc_server_close_all(d);
    sc_sessions_free(&d->sessions);
    sc_uids_free(&d->uids);
    if (!d->store_closed) {
        sc_store_close(d->store);
        d->store_closed = true;
    }
    d->store = NULL;
    sc_retention_destroy(d);
    if (d->timers_open) {
        if (!uv_is_closing((uv_handle_t *)&d->idle_timer))
            uv_close((uv_handle_t *)&d->idle_timer, NULL);
        if (!uv_is_closing((uv_handle_t *)&d->close_timer))
            uv_close((uv_handle_t *)&d->close_timer, NULL);
        d->timers_open = false;
    }
    if (d->listening) {
        uv_close((uv_handle_t *)&d->listener, NULL);
        d->listening = false;
    }
    sc_metrics_stop(d);
    sc_cache_destroy(d->cache);
    d->cache = NULL;
    sc_server_free_pool(d);
    sc_log_retry_free(d);
    if (d->log.limit) {
        /* What was suppressed is said before the daemon goes. */
        sc_log_flush(&d->log, true);
        d->log.limit = NULL;
        sc_log_limiter_destroy(&d->log_limit);
    }
}
