/*
 * graph_meta_json.c - a stored graph's own members (id, label, times,
 * owner, host, fingerprint, mode, parent), as graph.get and graph.list
 * write them.  Apart from graph_reads.c, which keeps the requests that
 * read graphs through the cache.
 */
#include "sc_handlers.h"

void sc_write_fingerprint(sc_buf *b, bool *first, const sc_graph_meta *m)
{
    sc_json_key(b, first, "fingerprint");
    /* A graph stored before fingerprints existed has none. */
    if (!m->has_fingerprint) {
        sc_buf_puts(b, "null");
        return;
    }
    char s[SC_FINGERPRINT_HEX], f[SC_FINGERPRINT_HEX];
    sc_fingerprint_hex(m->fingerprint.structure, s);
    sc_fingerprint_hex(m->fingerprint.full, f);
    bool inner;
    sc_json_obj_begin(b, &inner);
    sc_json_member_cstr(b, &inner, "structure", s);
    sc_json_member_cstr(b, &inner, "full", f);
    sc_json_obj_end(b);
}

/* The members graph.get and graph.list share, into an object being written. */
void sc_write_meta_fields(sc_buf *b, bool *first, const sc_graph_meta *m)
{
    sc_json_member_i64(b, first, "graph", m->graph);
    sc_json_member_str(b, first, "label", m->label ? m->label : "", m->label_len);
    sc_json_member_time_ms(b, first, "created_at", m->created_ms);
    sc_json_member_u64(b, first, "owner_uid", m->owner_uid);
    sc_json_member_i64(b, first, "owner_pid", m->owner_pid);
    sc_json_member_cstr(b, first, "host", m->host ? m->host : "");
    sc_write_fingerprint(b, first, m);
    sc_json_member_bool(b, first, "pinned", m->pinned);
    /* Default-mode graphs read exactly as before the cuda mode existed. */
    if (m->cuda) {
        sc_json_member_cstr(b, first, "semantics", "cuda");
        /* A graph.submit graph was built by hand, in no capture. */
        if (m->capture)
            sc_json_member_u64(b, first, "capture", m->capture);
    }
    /* Only bodies say where they hang; top-level graphs read as before. */
    if (m->parent_graph) {
        bool f;
        sc_json_key(b, first, "parent");
        sc_json_obj_begin(b, &f);
        sc_json_member_i64(b, &f, "graph", m->parent_graph);
        sc_json_member_u64(b, &f, "node", m->parent_node);
        sc_json_member_u64(b, &f, "index", m->parent_index);
        sc_json_obj_end(b);
    }
}
