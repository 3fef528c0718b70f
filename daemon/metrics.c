/*
 * metrics.c - the daemon's counters and their two renderings: server.info's
 * "metrics" member and the Prometheus text format (sc_metrics.h;
 * docs/operations.md, "Metrics", lists every metric).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sc_daemon.h"
#include "sc_metrics.h"

void sc_metrics_init(sc_metrics *m)
{
    memset(m->requests, 0, sizeof m->requests);
    memset(m->errors, 0, sizeof m->errors);
    m->errors_other = 0;
    atomic_init(&m->retention_deleted, 0);
}

void sc_metrics_request(sc_metrics *m, sc_method_id id)
{
    if ((unsigned)id < SC_M__COUNT)
        m->requests[id]++;
}

void sc_metrics_error(sc_metrics *m, int code)
{
    /* Few codes exist (proto/sc_rpc.h): a short walk finds the slot. */
    for (size_t i = 0; i < SC_METRICS_ERROR_SLOTS && code != 0; i++) {
        sc_metrics_error_slot *s = &m->errors[i];
        if (s->code == 0)
            s->code = code;
        if (s->code == code) {
            s->count++;
            return;
        }
    }
    m->errors_other++;
}

void sc_metrics_add_retention(sc_metrics *m, uint64_t graphs)
{
    atomic_fetch_add_explicit(&m->retention_deleted, graphs, memory_order_relaxed);
}

uint64_t sc_metrics_retention(const sc_metrics *m)
{
    return atomic_load_explicit(&((sc_metrics *)m)->retention_deleted, memory_order_relaxed);
}

/* The write-ahead log's pages are part of the database until a checkpoint
 * moves them, so they count. */
uint64_t sc_metrics_db_bytes(const char *path)
{
    struct stat st;
    uint64_t n = 0;
    char wal[4096];
    if (!path)
        return 0;
    if (stat(path, &st) == 0)
        n += (uint64_t)st.st_size;
    if ((size_t)snprintf(wal, sizeof(wal), "%s-wal", path) < sizeof(wal) && stat(wal, &st) == 0)
        n += (uint64_t)st.st_size;
    return n;
}

/* What both renderings show, read once. */
typedef struct metrics_view {
    const sc_metrics *m;
    sc_store_latency latency;
    uint64_t queue_depth;
    uint64_t db_bytes;
    uint64_t retention;
    sc_cache_stat cache;
    int64_t graphs;
} metrics_view;

static void view_of(const sc_daemon *d, metrics_view *v)
{
    memset(v, 0, sizeof *v);
    v->m = &d->metrics;
    if (d->store) {
        sc_store_get_latency(d->store, &v->latency);
        v->queue_depth = sc_store_queue_depth(d->store);
        sc_store_graph_count(d->store, &v->graphs);
    }
    if (d->cache)
        sc_cache_stats(d->cache, &v->cache);
    v->db_bytes = d->store && strcmp(sc_store_backend_name(d->store), "sqlite") == 0
                      ? sc_metrics_db_bytes(d->cfg.db_path)
                      : 0;
    v->retention = sc_metrics_retention(&d->metrics);
}

static const uint64_t latency_bounds_us[] = SC_STORE_LATENCY_BOUNDS_US;
#define N_BOUNDS (sizeof latency_bounds_us / sizeof latency_bounds_us[0])

/* ------------------------------------------------------ server.info */

void sc_metrics_json(const sc_daemon *d, bool all, sc_buf *b, bool *first)
{
    metrics_view v;
    view_of(d, &v);
    static const sc_metrics zero;
    const sc_metrics *m = all ? v.m : &zero;
    if (!all) {
        memset(&v.latency, 0, sizeof v.latency);
        v.queue_depth = v.db_bytes = v.retention = 0;
    }
    bool f, g;
    sc_json_key(b, first, "metrics");
    sc_json_obj_begin(b, &f);
    sc_json_key(b, &f, "requests");
    sc_json_obj_begin(b, &g);
    for (unsigned i = 0; i < SC_M__COUNT; i++)
        sc_json_member_u64(b, &g, sc_methods[i].name, m->requests[i]);
    sc_json_obj_end(b);
    sc_json_key(b, &f, "errors");
    sc_json_obj_begin(b, &g);
    for (size_t i = 0; i < SC_METRICS_ERROR_SLOTS && m->errors[i].code; i++) {
        char code[16];
        snprintf(code, sizeof code, "%d", m->errors[i].code);
        sc_json_member_u64(b, &g, code, m->errors[i].count);
    }
    if (m->errors_other)
        sc_json_member_u64(b, &g, "other", m->errors_other);
    sc_json_obj_end(b);
    sc_json_key(b, &f, "commit_latency");
    sc_json_obj_begin(b, &g);
    sc_json_key(b, &g, "bounds_us");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < N_BOUNDS; i++) {
        if (i)
            sc_buf_putc(b, ',');
        sc_json_u64(b, latency_bounds_us[i]);
    }
    sc_buf_putc(b, ']');
    sc_json_key(b, &g, "counts");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < SC_STORE_LATENCY_BUCKETS; i++) {
        if (i)
            sc_buf_putc(b, ',');
        sc_json_u64(b, v.latency.count[i]);
    }
    sc_buf_putc(b, ']');
    sc_json_member_u64(b, &g, "count", v.latency.total);
    sc_json_member_u64(b, &g, "sum_us", v.latency.sum_us);
    sc_json_obj_end(b);
    sc_json_member_u64(b, &f, "writer_queue", v.queue_depth);
    sc_json_member_u64(b, &f, "bytes_stored", v.db_bytes);
    sc_json_member_u64(b, &f, "retention_deleted", v.retention);
    sc_json_obj_end(b);
}

/* ------------------------------------------------------- Prometheus */

static void family(sc_buf *b, const char *name, const char *type, const char *help)
{
    sc_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void sample(sc_buf *b, const char *name, uint64_t v)
{
    sc_buf_printf(b, "%s %" PRIu64 "\n", name, v);
}

/* A label value with the format's escapes: backslash, quote, newline. */
static void label_value(sc_buf *b, const char *s)
{
    sc_buf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            sc_buf_putc(b, '\\');
        if (*s == '\n')
            sc_buf_puts(b, "\\n");
        else
            sc_buf_putc(b, *s);
    }
    sc_buf_putc(b, '"');
}

static void requests_family(sc_buf *b, const sc_metrics *m)
{
    family(b, "streamcap_requests_total", "counter", "Requests run, by method.");
    for (unsigned i = 0; i < SC_M__COUNT; i++)
        sc_buf_printf(b, "streamcap_requests_total{method=\"%s\"} %" PRIu64 "\n",
                      sc_methods[i].name, m->requests[i]);
    family(b, "streamcap_errors_total", "counter",
           "Error replies sent, by JSON-RPC error code (\"other\" past the codes kept apart).");
    for (size_t i = 0; i < SC_METRICS_ERROR_SLOTS && m->errors[i].code; i++)
        sc_buf_printf(b, "streamcap_errors_total{code=\"%d\"} %" PRIu64 "\n", m->errors[i].code,
                      m->errors[i].count);
    if (m->errors_other)
        sc_buf_printf(b, "streamcap_errors_total{code=\"other\"} %" PRIu64 "\n", m->errors_other);
}

static void latency_family(sc_buf *b, const sc_store_latency *l)
{
    family(b, "streamcap_commit_latency_seconds", "histogram",
           "Time from a write being queued to its commit being delivered.");
    uint64_t cumulative = 0;
    for (size_t i = 0; i < N_BOUNDS; i++) {
        cumulative += l->count[i];
        sc_buf_printf(b, "streamcap_commit_latency_seconds_bucket{le=\"%g\"} %" PRIu64 "\n",
                      (double)latency_bounds_us[i] / 1e6, cumulative);
    }
    sc_buf_printf(b, "streamcap_commit_latency_seconds_bucket{le=\"+Inf\"} %" PRIu64 "\n",
                  l->total);
    sc_buf_printf(b, "streamcap_commit_latency_seconds_sum %.6f\n", (double)l->sum_us / 1e6);
    sample(b, "streamcap_commit_latency_seconds_count", l->total);
}

void sc_metrics_prometheus(const sc_daemon *d, sc_buf *b)
{
    metrics_view v;
    view_of(d, &v);
    family(b, "streamcap_info", "gauge", "Always 1: the daemon's version, backend and host.");
    sc_buf_printf(b, "streamcap_info{version=\"%s\",backend=", SC_VERSION);
    label_value(b, d->store ? sc_store_backend_name(d->store) : "");
    sc_buf_puts(b, ",host=");
    label_value(b, d->host_name);
    sc_buf_puts(b, "} 1\n");
    family(b, "streamcap_uptime_seconds", "gauge", "Seconds since the daemon started.");
    sample(b, "streamcap_uptime_seconds", (uv_hrtime() - d->start_hr) / 1000000000u);
    requests_family(b, v.m);
    latency_family(b, &v.latency);
    family(b, "streamcap_writer_queue_depth", "gauge",
           "Write jobs queued for the writer thread and not yet completed.");
    sample(b, "streamcap_writer_queue_depth", v.queue_depth);
    family(b, "streamcap_db_bytes", "gauge",
           "Bytes stored: the SQLite database file plus its write-ahead log (0 on PostgreSQL).");
    sample(b, "streamcap_db_bytes", v.db_bytes);
    family(b, "streamcap_graphs", "gauge", "Stored graphs.");
    sample(b, "streamcap_graphs", (uint64_t)(v.graphs > 0 ? v.graphs : 0));
    family(b, "streamcap_connections", "gauge", "Client connections open.");
    sample(b, "streamcap_connections", d->nconns);
    family(b, "streamcap_sessions", "gauge", "Live capture sessions.");
    sample(b, "streamcap_sessions", d->sessions.count);
    family(b, "streamcap_cache_hits_total", "counter",
           "Graph look-ups answered from the graph cache.");
    sample(b, "streamcap_cache_hits_total", v.cache.hits);
    family(b, "streamcap_cache_misses_total", "counter",
           "Graph look-ups that waited for a load from the store.");
    sample(b, "streamcap_cache_misses_total", v.cache.misses);
    family(b, "streamcap_cache_bytes", "gauge", "Bytes the graph cache holds.");
    sample(b, "streamcap_cache_bytes", v.cache.bytes);
    family(b, "streamcap_cache_entries", "gauge", "Graphs the graph cache holds.");
    sample(b, "streamcap_cache_entries", v.cache.entries);
    family(b, "streamcap_retention_deleted_graphs_total", "counter",
           "Graphs removed by a retention policy.");
    sample(b, "streamcap_retention_deleted_graphs_total", v.retention);
}
