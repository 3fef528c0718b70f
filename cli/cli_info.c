/*
 * cli_info.c - the commands that ask the daemon about itself: ping and info.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int cli_ping(cli *x, int argc, char **argv)
{
    if (cli_no_args(x, argc, argv) != CLI_OK || cli_connect(x) != CLI_OK)
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
    if (cli_no_args(x, argc, argv) != CLI_OK || cli_connect(x) != CLI_OK)
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
