/*
 * server_info.c - the daemon's status: server.info.
 */
#include <stdio.h>
#include <unistd.h>

#include "sc_handlers.h"
#include "sc_redact.h"

/* ------------------------------------------------------- server.* */

/* What server.info counts: everything for root, else only what the
 * caller's uid owns, so that one user learns nothing of another's work. */
typedef struct info_counts {
    uint64_t connections, sessions;
    int64_t graphs;
} info_counts;

/* The per-uid counts the quotas keep, and the store's per-owner graph count:
 * lookups, no walk. */
static void count_own(sc_daemon *d, uint32_t uid, info_counts *n)
{
    const sc_uid_use *u = sc_uids_find(&d->uids, uid);
    if (u) {
        n->connections = u->conns;
        n->sessions = u->sessions;
    }
    if (d->store)
        sc_store_graph_count_of(d->store, uid, &n->graphs);
}

int sc_h_server_info(sc_req *r)
{
    sc_daemon *d = r->d;
    bool all = sc_may_access_all(r->c);
    info_counts n = {0};
    if (all) {
        n.connections = d->nconns;
        n.sessions = d->sessions.count;
        if (d->store)
            sc_store_graph_count(d->store, &n.graphs);
    } else {
        count_own(d, (uint32_t)r->c->uid, &n);
    }
    /* The database's size and the cache's use are the sum of every uid's
     * work: a caller other than root is shown 0 for them (the fields stay,
     * so that every client reads one shape). */
    sc_cache_stat cs = {0};
    if (d->cache)
        sc_cache_stats(d->cache, &cs);
    if (!all)
        cs = (sc_cache_stat){.max_bytes = cs.max_bytes};
    sc_buf *b = sc_req_result_begin(r);
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_member_cstr(b, &first, "version", SC_VERSION);
    sc_json_member_u64(b, &first, "uptime_s", (uv_hrtime() - d->start_hr) / 1000000000u);
    sc_json_member_u64(b, &first, "connections", n.connections);
    sc_json_member_u64(b, &first, "sessions", n.sessions);
    sc_json_member_i64(b, &first, "graphs", n.graphs);
    /* Where the database lives is the administrator's business. */
    if (all) {
        /* Not even root is shown a connection string's password. */
        char shown[SC_PATH_MAX + 64];
        sc_json_member_cstr(b, &first, "db_path",
                            sc_redact_db(d->cfg.db_path, shown, sizeof shown));
    }
    sc_json_member_u64(b, &first, "db_bytes", all ? sc_metrics_db_bytes(d->cfg.db_path) : 0);
    sc_json_member_i64(b, &first, "pid", (int64_t)getpid());
    sc_json_member_cstr(b, &first, "sync", d->cfg.sync_full ? "full" : "normal");
    sc_json_member_cstr(b, &first, "backend", d->store ? sc_store_backend_name(d->store) : "");
    sc_json_member_cstr(b, &first, "host", d->host_name);
    sc_json_member_u64(b, &first, "cache_max_bytes", cs.max_bytes);
    sc_json_member_u64(b, &first, "cache_bytes", cs.bytes);
    sc_json_member_u64(b, &first, "cache_entries", cs.entries);
    sc_json_member_u64(b, &first, "cache_hits", cs.hits);
    sc_json_member_u64(b, &first, "cache_misses", cs.misses);
    sc_metrics_json(d, all, b, &first);
    sc_json_obj_end(b);
    return sc_req_result_end(r, b);
}
