/*
 * store_pg_write.c - the PostgreSQL backend's writer (store_pg_int.h):
 * nodes and edges sent with COPY, and the jobs of store_backend.h on the
 * writer's connection (its transactions: store_pg_txn.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_json.h"
#include "store_access.h"
#include "store_pg_int.h"

#define COPY_CHUNK (1u << 18)

/* ---- COPY ---- */

typedef struct copy_buf {
    char *p;
    size_t len, cap;
    bool nomem;
} copy_buf;

static bool cb_reserve(copy_buf *b, size_t more)
{
    if (b->nomem)
        return false;
    if (b->len + more <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : COPY_CHUNK + 4096;
    while (cap < b->len + more)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->nomem = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

static void cb_put(copy_buf *b, const void *s, size_t n)
{
    if (cb_reserve(b, n)) {
        memcpy(b->p + b->len, s, n);
        b->len += n;
    }
}

static void cb_u64(copy_buf *b, uint64_t v)
{
    char tmp[24];
    int i = (int)sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    cb_put(b, tmp + i, sizeof tmp - (size_t)i);
}

/* Text format: a value, or \N, then a tab or the row's newline. */
static void t_num(copy_buf *b, bool has, uint64_t v, char sep)
{
    if (has)
        cb_u64(b, v);
    else
        cb_put(b, "\\N", 2);
    cb_put(b, &sep, 1);
}

static void t_str(copy_buf *b, const char *s, size_t n, char sep)
{
    if (!cb_reserve(b, 2 * n + 1))
        return;
    char *o = b->p + b->len;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '\\' || c == '\n' || c == '\r' || c == '\t') {
            *o++ = '\\';
            c = c == '\n' ? 'n' : c == '\r' ? 'r' : c == '\t' ? 't' : '\\';
        }
        *o++ = c;
    }
    *o++ = sep;
    b->len = (size_t)(o - b->p);
}

/* Binary format: big-endian field lengths and integers. */
static void b_be(copy_buf *b, uint64_t v, int bytes)
{
    unsigned char t[8];
    for (int i = 0; i < bytes; i++)
        t[i] = (unsigned char)(v >> (8 * (bytes - 1 - i)));
    cb_put(b, t, (size_t)bytes);
}

static void b_int(copy_buf *b, bool has, int64_t v, int bytes)
{
    if (!has) {
        b_be(b, 0xffffffffu, 4);
        return;
    }
    b_be(b, (uint64_t)bytes, 4);
    b_be(b, (uint64_t)v, bytes);
}

static void b_str(copy_buf *b, const char *s, size_t n)
{
    b_be(b, n, 4);
    cb_put(b, s, n);
}

/* A text field, NULL when s is. */
static void b_opt_str(copy_buf *b, const char *s)
{
    if (s)
        b_str(b, s, strlen(s));
    else
        b_int(b, false, 0, 0);
}

static void t_opt_str(copy_buf *b, const char *s, char sep)
{
    if (s)
        t_str(b, s, strlen(s), sep);
    else
        t_num(b, false, 0, sep);
}

/* The name as text PostgreSQL takes, and whether name_bytes must keep the
 * original (a NUL byte or invalid UTF-8). */
typedef struct name_tmp {
    char *p;
    size_t cap;
} name_tmp;

static bool node_name(const sc_node *n, name_tmp *t, const char **s, size_t *len, bool *raw)
{
    *s = n->name ? n->name : "";
    *len = n->name ? n->name_len : 0;
    *raw = !sc_utf8_valid(*s, *len) || memchr(*s, '\0', *len) != NULL;
    if (!*raw)
        return true;
    char *c = pg_clean_text(*s, *len);
    if (!c)
        return false;
    free(t->p);
    t->p = c;
    *s = c;
    *len = strlen(c);
    return true;
}

/* A kernel's args and param_sizes fields (store_pg_args.c), or two NULLs. */
static void put_args(copy_buf *b, bool bin, const sc_node *n)
{
    if (cb_reserve(b, store_pg_args_room(n)))
        b->len += store_pg_args(n, bin, b->p + b->len);
}

/* A conditional's cond_type, cond_size, cond_default and cond_flags
 * fields (schema/pg/005_conditional.sql), or four NULLs. */
static void put_cond(copy_buf *b, bool bin, const sc_node *n)
{
    bool cond = sc_node_attrs(n) & SC_NODE_ATTR_COND;
    const char *type = sc_cond_type_name((int)n->cond_type);
    if (cond && !type)
        type = "if";
    if (!cond)
        type = NULL;
    if (bin) {
        b_opt_str(b, type);
        b_int(b, cond, n->cond_size, 8);
        b_int(b, cond, n->cond_default, 8);
        b_int(b, cond, n->cond_flags, 8);
        return;
    }
    t_opt_str(b, type, '\t');
    t_num(b, cond, n->cond_size, '\t');
    t_num(b, cond, n->cond_default, '\t');
    t_num(b, cond, n->cond_flags, '\t');
}

/* The accesses field (schema/pg/007_accesses.sql): the JSON text of
 * store_access.h, which needs no COPY escapes, or NULL; the text form ends
 * the row. */
static void put_accesses(copy_buf *b, bool bin, const sc_node *n)
{
    size_t room = store_accesses_text_room(n);
    if (!n->naccesses) {
        if (bin)
            b_int(b, false, 0, 0);
        else
            t_num(b, false, 0, '\n');
        return;
    }
    if (!cb_reserve(b, room + 5))
        return;
    char *p = b->p + b->len + (bin ? 4 : 0);
    size_t len = store_accesses_text(n, p);
    if (bin) {
        b_be(b, len, 4);
        b->len += len;
    } else {
        b->len += len;
        cb_put(b, "\n", 1);
    }
}

static void node_row(copy_buf *b, bool bin, int64_t gid, uint32_t id, const sc_node *n,
                     name_tmp *tmp)
{
    unsigned has = sc_node_attrs(n);
    bool kernel = has & SC_NODE_ATTR_LAUNCH, mcp = has & SC_NODE_ATTR_DIR;
    bool p2p = has & SC_NODE_ATTR_DEVICES, shaped = has & SC_NODE_ATTR_SHAPE;
    bool event = has & SC_NODE_ATTR_EVENT, sized = has & SC_NODE_ATTR_SIZE;
    bool value = has & SC_NODE_ATTR_VALUE;
    const char *kind = sc_cuda_kind_name((int)n->kind);
    const char *dir = mcp ? sc_cuda_dir_name((int)n->dir) : NULL;
    const char *name;
    size_t name_len;
    bool raw;
    if (!node_name(n, tmp, &name, &name_len, &raw)) {
        b->nomem = true;
        return;
    }
    const char *orig = n->name ? n->name : "";
    if (bin) {
        b_be(b, 26, 2);
        b_int(b, true, gid, 8);
        b_int(b, true, id, 4);
        b_str(b, kind, strlen(kind));
        b_int(b, true, n->stream, 8);
        b_str(b, name, name_len);
        b_int(b, kernel, n->num_blocks, 8);
        b_int(b, kernel, n->threads_per_block, 8);
        b_int(b, kernel, n->shared_mem, 8);
        b_opt_str(b, dir);
        b_int(b, sized, (int64_t)n->size_bytes, 8);
        b_int(b, p2p, n->src_device, 8);
        b_int(b, p2p, n->dst_device, 8);
        b_int(b, value, n->value, 4);
        b_int(b, shaped, n->grid_y, 8);
        b_int(b, shaped, n->grid_z, 8);
        b_int(b, shaped, n->block_y, 8);
        b_int(b, shaped, n->block_z, 8);
        b_int(b, event, n->event, 8);
        put_args(b, true, n);
        put_cond(b, true, n);
        if (raw)
            b_str(b, orig, n->name_len);
        else
            b_int(b, false, 0, 0);
        put_accesses(b, true, n);
        return;
    }
    t_num(b, true, (uint64_t)gid, '\t');
    t_num(b, true, id, '\t');
    t_str(b, kind, strlen(kind), '\t');
    t_num(b, true, n->stream, '\t');
    t_str(b, name, name_len, '\t');
    t_num(b, kernel, n->num_blocks, '\t');
    t_num(b, kernel, n->threads_per_block, '\t');
    t_num(b, kernel, n->shared_mem, '\t');
    t_opt_str(b, dir, '\t');
    t_num(b, sized, n->size_bytes, '\t');
    t_num(b, p2p, n->src_device, '\t');
    t_num(b, p2p, n->dst_device, '\t');
    t_num(b, value, n->value, '\t');
    t_num(b, shaped, n->grid_y, '\t');
    t_num(b, shaped, n->grid_z, '\t');
    t_num(b, shaped, n->block_y, '\t');
    t_num(b, shaped, n->block_z, '\t');
    t_num(b, event, n->event, '\t');
    put_args(b, false, n);
    put_cond(b, false, n);
    if (raw) {
        /* bytea in text COPY: \\x and hex digits. */
        static const char hex[] = "0123456789abcdef";
        cb_put(b, "\\\\x", 3);
        for (size_t i = 0; i < n->name_len; i++) {
            char h[2] = {hex[(unsigned char)orig[i] >> 4], hex[(unsigned char)orig[i] & 15]};
            cb_put(b, h, 2);
        }
        cb_put(b, "\t", 1);
    } else {
        t_num(b, false, 0, '\t');
    }
    put_accesses(b, false, n);
}

static void edge_row(copy_buf *b, bool bin, int64_t gid, uint32_t src, uint32_t dst)
{
    if (bin) {
        b_be(b, 3, 2);
        b_int(b, true, gid, 8);
        b_int(b, true, src, 4);
        b_int(b, true, dst, 4);
        return;
    }
    t_num(b, true, (uint64_t)gid, '\t');
    t_num(b, true, src, '\t');
    t_num(b, true, dst, '\n');
}

typedef struct copy_out {
    PGconn *conn; /* NULL: only collect into buf */
    bool bin;
    copy_buf buf;
    const char *fail; /* libpq's reason when a send failed */
} copy_out;

static bool co_flush(copy_out *co, bool all)
{
    if (!co->conn || co->fail || (!all && co->buf.len < COPY_CHUNK))
        return !co->fail;
    if (co->buf.len && PQputCopyData(co->conn, co->buf.p, (int)co->buf.len) != 1)
        co->fail = PQerrorMessage(co->conn);
    co->buf.len = 0;
    return !co->fail;
}

/* The rows of nodes [lo, hi) or of the edges leaving them into co. */
static int rows_out(copy_out *co, const sc_graph *g, int64_t gid, uint32_t lo, uint32_t hi,
                    bool edges)
{
    static const char header[] = "PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0";
    if (co->bin)
        cb_put(&co->buf, header, sizeof header - 1);
    name_tmp tmp = {0};
    int rc = 0;
    for (uint32_t id = lo; id < hi && rc == 0; id++) {
        if (edges) {
            const uint32_t *succ;
            uint32_t count;
            if (sc_graph_successors(g, id, &succ, &count) != 0)
                rc = SC_STORE_EIO;
            for (uint32_t k = 0; rc == 0 && k < count; k++)
                edge_row(&co->buf, co->bin, gid, id, succ[k]);
        } else {
            sc_node n;
            if (sc_graph_node(g, id, &n) != 0)
                rc = SC_STORE_EIO;
            else
                node_row(&co->buf, co->bin, gid, id, &n, &tmp);
        }
        if (co->buf.nomem)
            rc = SC_STORE_ENOMEM;
        else if (rc == 0 && !co_flush(co, false))
            rc = SC_STORE_EIO;
    }
    free(tmp.p);
    if (rc == 0 && co->bin)
        b_be(&co->buf, 0xffff, 2);
    if (rc == 0 && co->buf.nomem)
        rc = SC_STORE_ENOMEM;
    return rc;
}

static int copy_rows(sc_store_be *be, const sc_graph *g, int64_t gid, uint32_t lo, uint32_t hi,
                     bool edges, char *err, size_t len)
{
    PGconn *c = be->conn;
    char sql[320];
    snprintf(sql, sizeof sql, "COPY %s FROM STDIN%s",
             edges ? "edges (graph, src, dst)"
                   : "nodes (graph, id, kind, stream, name, num_blocks, threads_per_block,"
                     " shared_mem, dir, size_bytes, src_device, dst_device, value, grid_y,"
                     " grid_z, block_y, block_z, event, args, param_sizes, cond_type, cond_size,"
                     " cond_default, cond_flags, name_bytes, accesses)",
             be->binary ? " (FORMAT binary)" : "");
    PGresult *r = PQexec(c, sql);
    if (!r || PQresultStatus(r) != PGRES_COPY_IN) {
        int rc = pg_fail(c, r, "cannot store the graph", err, len);
        PQclear(r);
        return rc;
    }
    PQclear(r);
    copy_out co = {.conn = c, .bin = be->binary};
    int rc = rows_out(&co, g, gid, lo, hi, edges);
    if (rc == 0 && !co_flush(&co, true))
        rc = SC_STORE_EIO;
    free(co.buf.p);
    const char *why = rc == SC_STORE_ENOMEM ? "out of memory"
                      : rc                  ? "graph could not be read"
                                            : NULL;
    if (PQputCopyEnd(c, why) != 1 && rc == 0)
        rc = SC_STORE_EIO;
    int frc = 0;
    while ((r = PQgetResult(c)) != NULL) {
        if (PQresultStatus(r) != PGRES_COMMAND_OK && frc == 0)
            frc = pg_fail(c, r, "cannot store the graph", err, len);
        PQclear(r);
    }
    if (rc == SC_STORE_ENOMEM) {
        pg_set_err(err, len, "cannot store the graph", "out of memory");
        return rc;
    }
    if (rc == SC_STORE_EIO && frc == 0)
        frc = pg_fail(c, NULL, "cannot store the graph", err, len);
    return frc ? frc : rc;
}

int store_pg_copy_text(const sc_graph *g, int64_t gid, bool edges, char **out, size_t *len)
{
    copy_out co = {0};
    int rc = rows_out(&co, g, gid, 0, sc_graph_node_count(g), edges);
    if (rc) {
        free(co.buf.p);
        return rc;
    }
    *out = co.buf.p;
    *len = co.buf.len;
    return 0;
}

/* ---- writes ---- */

static int log_open(sc_store_be *be, sc_store_job *j, char *err, size_t len)
{
    params p = {0};
    p_word(&p, be->host);
    if (!p_text(&p, j->u.open.label, j->u.open.label_len)) {
        pg_set_err(err, len, "out of memory", NULL);
        return SC_STORE_ENOMEM;
    }
    p_i64(&p, j->u.open.uid);
    p_i64(&p, j->u.open.pid);
    p_i64(&p, j->u.open.opened_ms);
    p_word(&p, j->u.open.semantics);
    int rc = 0;
    PGresult *r = pg_run(be->conn,
                         "INSERT INTO capture_log (host, label, owner_uid, owner_pid, opened_at,"
                         " semantics) VALUES ($1, $2, $3, $4, " TS_IN(5) ", $6) RETURNING session",
                         &p, PGRES_TUPLES_OK, "cannot open the log row", &rc, err, len);
    p_free(&p);
    if (!r)
        return rc;
    j->id = col_i64(r, 0, 0);
    PQclear(r);
    return 0;
}

static int log_end(sc_store_be *be, sc_store_job *j, char *err, size_t len)
{
    params p = {0};
    p_i64(&p, j->u.end.session);
    p_word(&p, j->u.end.outcome);
    p_i64(&p, j->u.end.node_count);
    p_i64(&p, j->u.end.ended_ms);
    int64_t changed = 0;
    int rc = pg_exec(be->conn,
                     "UPDATE capture_log SET outcome = $2, node_count = $3, ended_at = " TS_IN(
                         4) " WHERE session = $1 AND outcome = 'open'",
                     &p, "cannot end the log row", err, len, &changed);
    if (rc)
        return rc;
    if (changed == 0)
        return SC_STORE_ENOTFOUND;
    j->id = j->u.end.session;
    return 0;
}

/* Is the session's row there and open?  Locked, so that no other daemon
 * (it belongs to this one, but a root client may end it through another
 * connection) changes it before the transaction ends. */
static int check_open(sc_store_be *be, int64_t session, char *err, size_t len)
{
    params p = {0};
    p_i64(&p, session);
    int rc = 0;
    PGresult *r = pg_run(
        be->conn, "SELECT 1 FROM capture_log WHERE session = $1 AND outcome = 'open' FOR UPDATE",
        &p, PGRES_TUPLES_OK, "cannot read the log row", &rc, err, len);
    if (!r)
        return rc;
    rc = PQntuples(r) == 1 ? 0 : SC_STORE_ENOTFOUND;
    PQclear(r);
    return rc;
}

static bool is_cuda_job(const sc_store_job *j)
{
    return j->type == SC_STORE_JOB_COMMIT_CAPTURE || j->u.commit.submitted;
}

/* A fingerprint as the graphs table holds it: 16 lowercase hex digits. */
static bool p_fp(params *p, uint64_t v)
{
    char hex[SC_FINGERPRINT_HEX];
    sc_fingerprint_hex(v, hex);
    return p_text(p, hex, 16);
}

static int insert_graph_row(sc_store_be *be, sc_store_job *j, int64_t *gid, char *err, size_t len)
{
    const sc_graph *g = j->u.commit.g;
    const sc_fingerprint *fp;
    if (store_job_fingerprint(j, &fp) != 0) {
        pg_set_err(err, len, "out of memory fingerprinting the graph", NULL);
        return SC_STORE_ENOMEM;
    }
    params p = {0};
    p_word(&p, be->host);
    p_i64(&p, j->u.commit.session);
    if (!p_text(&p, j->u.commit.label, j->u.commit.label_len)) {
        pg_set_err(err, len, "out of memory", NULL);
        return SC_STORE_ENOMEM;
    }
    p_i64(&p, j->u.commit.created_ms);
    p_i64(&p, j->u.commit.uid);
    p_i64(&p, j->u.commit.pid);
    p_i64(&p, sc_graph_node_count(g));
    p_i64(&p, (int64_t)sc_graph_edge_count(g));
    p_i64(&p, sc_graph_stream_count(g));
    p_word(&p, is_cuda_job(j) ? "cuda" : "oxicuda");
    if (j->type == SC_STORE_JOB_COMMIT_CAPTURE)
        p_i64(&p, j->u.commit.cap.capture);
    else
        p_null(&p);
    if (j->u.commit.pending_gid)
        p_i64(&p, j->u.commit.pending_gid);
    else
        p_null(&p);
    if (j->u.commit.parent_graph) {
        p_i64(&p, j->u.commit.parent_graph);
        p_i64(&p, j->u.commit.parent_node);
        p_i64(&p, j->u.commit.parent_index);
    } else {
        p_null(&p);
        p_null(&p);
        p_null(&p);
    }
    if (!p_fp(&p, fp->structure) || !p_fp(&p, fp->full)) {
        p_free(&p);
        pg_set_err(err, len, "out of memory", NULL);
        return SC_STORE_ENOMEM;
    }
    int rc = 0;
    PGresult *r = pg_run(be->conn,
                         "INSERT INTO graphs (graph, host, session, label, created_at, owner_uid,"
                         " owner_pid, node_count, edge_count, stream_count, semantics, capture,"
                         " parent_graph, parent_node, parent_index, fp_structure, fp_full)"
                         " VALUES (coalesce($12::bigint, nextval('graph_ids')), $1, $2, $3, " TS_IN(
                             4) ", $5, $6, $7, $8, $9, $10, $11, $13, $14, $15, $16, $17)"
                                " RETURNING graph",
                         &p, PGRES_TUPLES_OK, "cannot store the graph", &rc, err, len);
    p_free(&p);
    if (!r)
        return rc;
    *gid = col_i64(r, 0, 0);
    PQclear(r);
    return 0;
}

/* The graph_index row, sent as binary parameters: the bytes are the blobs. */
static int insert_index(sc_store_be *be, const sc_graph *g, int64_t gid, char *err, size_t len)
{
    uint32_t n = sc_graph_node_count(g);
    uint64_t m = sc_graph_edge_count(g);
    if (4ull * n + 8ull * m > 0x3fffffffull)
        return 0; /* past bytea's 1 GB: reachability loads the rows instead */
    uint32_t *streams = malloc((size_t)n * 4 + 4), *pairs = malloc((size_t)m * 8 + 8);
    int rc = 0;
    if (!streams || !pairs) {
        pg_set_err(err, len, "out of memory building the graph index row", NULL);
        rc = SC_STORE_ENOMEM;
    }
    uint32_t *e = pairs;
    for (uint32_t id = 0; rc == 0 && id < n; id++) {
        sc_node node;
        const uint32_t *succ;
        uint32_t count;
        if (sc_graph_node(g, id, &node) != 0 || sc_graph_successors(g, id, &succ, &count) != 0) {
            pg_set_err(err, len, "graph could not be read", NULL);
            rc = SC_STORE_EIO;
            break;
        }
        streams[id] = node.stream;
        for (uint32_t k = 0; k < count; k++) {
            *e++ = id;
            *e++ = succ[k];
        }
    }
    if (rc == 0) {
        store_le32_swap(streams, n);
        store_le32_swap(pairs, 2 * m);
        char sgid[24], sn[24], sm[24];
        snprintf(sgid, sizeof sgid, "%lld", (long long)gid);
        snprintf(sn, sizeof sn, "%u", n);
        snprintf(sm, sizeof sm, "%llu", (unsigned long long)m);
        const char *v[5] = {sgid, sn, sm, (const char *)streams, (const char *)pairs};
        int lens[5] = {0, 0, 0, (int)(4 * n), (int)(8 * m)};
        int fmts[5] = {0, 0, 0, 1, 1};
        PGresult *r =
            PQexecParams(be->conn,
                         "INSERT INTO graph_index (graph, node_count, edge_count, streams,"
                         " edges) VALUES ($1, $2, $3, $4, $5)",
                         5, NULL, v, lens, fmts, 0);
        if (!r || PQresultStatus(r) != PGRES_COMMAND_OK)
            rc = pg_fail(be->conn, r, "cannot store the graph index", err, len);
        PQclear(r);
    }
    free(streams);
    free(pairs);
    return rc;
}

static int chunks_lost(sc_store_be *be, char *err, size_t len)
{
    be->outcome = SC_STORE_TXN_RESTART;
    pg_set_err(err, len, "cannot store the graph",
               "rows of its earlier transactions were lost when the database restarted");
    return SC_STORE_EIO;
}

/* Before a later chunk, when the connection was made again since the
 * last check: are the chunks so far, nodes [0, lo), still there?  Those
 * seen after a reconnection are checked again only after the next one. */
static int check_chunks(sc_store_be *be, sc_store_job *j, uint32_t lo, char *err, size_t len)
{
    if (be->generation == j->u.commit.be_mark)
        return 0;
    params p = {0};
    p_i64(&p, j->u.commit.pending_gid);
    int rc = 0;
    PGresult *r = pg_run(be->conn,
                         "SELECT (SELECT count(*) FROM nodes WHERE graph = $1),"
                         " (SELECT count(*) FROM pending_graphs WHERE graph = $1)",
                         &p, PGRES_TUPLES_OK, "cannot store the graph", &rc, err, len);
    if (!r)
        return rc;
    bool kept = col_i64(r, 0, 0) == lo && col_i64(r, 0, 1) == 1;
    PQclear(r);
    if (!kept)
        return chunks_lost(be, err, len);
    j->u.commit.be_mark = be->generation;
    return 0;
}

/*
 * The reservation of a chunked commit goes in its last transaction.  Its
 * chunks were committed without waiting for their flush (UNACKED): a
 * server that crashed since the first of them may have lost the last ones
 * (the connection was made again since: another generation), so then the
 * rows are counted before the graph is made visible.
 */
static int drop_pending_row(sc_store_be *be, const sc_store_job *j, int64_t gid, char *err,
                            size_t len)
{
    params p = {0};
    p_i64(&p, gid);
    int64_t changed = 0;
    int rc = pg_exec(be->conn, "DELETE FROM pending_graphs WHERE graph = $1", &p,
                     "cannot store the graph", err, len, &changed);
    if (rc == 0 && changed == 1 && be->generation != j->u.commit.be_mark) {
        PGresult *r = pg_run(be->conn,
                             "SELECT (SELECT count(*) FROM nodes WHERE graph = $1),"
                             " (SELECT count(*) FROM edges WHERE graph = $1)",
                             &p, PGRES_TUPLES_OK, "cannot store the graph", &rc, err, len);
        if (!r)
            return rc;
        const sc_graph *g = j->u.commit.g;
        if (col_i64(r, 0, 0) != sc_graph_node_count(g) ||
            col_i64(r, 0, 1) != (int64_t)sc_graph_edge_count(g))
            changed = 0;
        PQclear(r);
    }
    if (rc == 0 && changed != 1)
        rc = chunks_lost(be, err, len);
    return rc;
}

/* Every row of the graph, or for the last transaction of a chunked commit
 * (nodes and edges already stored) the graphs and graph_index rows. */
static int store_graph(sc_store_be *be, sc_store_job *j, int64_t *gid, char *err, size_t len)
{
    const sc_graph *g = j->u.commit.g;
    int rc = insert_graph_row(be, j, gid, err, len);
    if (rc == 0 && !j->u.commit.pending_gid) {
        uint32_t n = sc_graph_node_count(g);
        rc = copy_rows(be, g, *gid, 0, n, false, err, len);
        if (rc == 0)
            rc = copy_rows(be, g, *gid, 0, n, true, err, len);
    }
    if (rc == 0)
        rc = insert_index(be, g, *gid, err, len);
    if (rc == 0 && j->u.commit.pending_gid)
        rc = drop_pending_row(be, j, *gid, err, len);
    return rc;
}

static int commit_graph(sc_store_be *be, sc_store_job *j, char *err, size_t len)
{
    bool submitted = j->u.commit.submitted;
    int rc = submitted ? 0 : check_open(be, j->u.commit.session, err, len);
    int64_t gid = 0;
    if (rc == 0)
        rc = store_graph(be, j, &gid, err, len);
    if (rc || submitted) {
        j->id = gid;
        return rc;
    }
    params p = {0};
    p_i64(&p, j->u.commit.session);
    p_i64(&p, gid);
    p_i64(&p, sc_graph_node_count(j->u.commit.g));
    p_i64(&p, j->u.commit.created_ms);
    rc = pg_exec(be->conn,
                 "UPDATE capture_log SET outcome = 'completed', graph = $2, node_count = $3,"
                 " ended_at = " TS_IN(4) " WHERE session = $1",
                 &p, "cannot complete the log row", err, len, NULL);
    j->id = gid;
    return rc;
}

static int commit_capture(sc_store_be *be, sc_store_job *j, char *err, size_t len)
{
    int rc = check_open(be, j->u.commit.session, err, len);
    int64_t gid = 0;
    if (rc == 0 && j->u.commit.g)
        rc = store_graph(be, j, &gid, err, len);
    if (rc)
        return rc;
    const sc_store_capture *c = &j->u.commit.cap;
    bool inv = c->inv_method != NULL;
    params p = {0};
    p_i64(&p, j->u.commit.session);
    p_i64(&p, c->capture);
    p_i64(&p, c->origin);
    p_word(&p, c->mode);
    p_i64(&p, c->thread);
    p_word(&p, c->outcome);
    if (strcmp(c->outcome, "failed") == 0)
        p_i64(&p, (uint32_t)c->cuda_error);
    else
        p_null(&p);
    p_i64(&p, c->node_count);
    p_i64(&p, j->u.commit.created_ms);
    if (gid)
        p_i64(&p, gid);
    else
        p_null(&p);
    bool ok = true;
    if (inv) {
        p_word(&p, c->inv_method);
        p_i64(&p, c->inv_stream);
        if (c->inv_has_event)
            p_i64(&p, c->inv_event);
        else
            p_null(&p);
        p_i64(&p, c->inv_thread);
        if (c->inv_call)
            ok = p_text(&p, c->inv_call, c->inv_call_len);
        else
            p_null(&p);
        p_i64(&p, c->inv_error);
    } else {
        for (int i = 0; i < 6; i++)
            p_null(&p);
    }
    if (!ok) {
        p_free(&p);
        pg_set_err(err, len, "out of memory", NULL);
        return SC_STORE_ENOMEM;
    }
    rc = pg_exec(be->conn,
                 "INSERT INTO captures (session, capture, origin, mode, thread, outcome,"
                 " cuda_error, node_count, ended_at, graph, inv_method, inv_stream, inv_event,"
                 " inv_thread, inv_call, inv_error) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, " TS_IN(
                     9) ", $10, $11, $12, $13, $14, $15, $16)",
                 &p, "cannot store the capture", err, len, NULL);
    p_free(&p);
    j->id = gid;
    return rc;
}

int store_pg_delete_graph(sc_store_be *be, sc_store_job *j, char *err, size_t len)
{
    params p = {0};
    p_i64(&p, j->u.del.graph);
    int rc = 0;
    PGresult *r = pg_run(
        be->conn, "SELECT session, owner_uid, pinned FROM graphs WHERE graph = $1 FOR UPDATE", &p,
        PGRES_TUPLES_OK, "cannot delete the graph", &rc, err, len);
    if (!r)
        return rc;
    if (PQntuples(r) != 1) {
        PQclear(r);
        return SC_STORE_ENOTFOUND;
    }
    int64_t session = col_i64(r, 0, 0);
    j->u.del.uid = col_u32(r, 0, 1);
    bool pinned = PQgetvalue(r, 0, 2)[0] == 't';
    PQclear(r);
    if (pinned && j->u.del.keep_pinned)
        return SC_STORE_EBUSY;
        /* Bodies first (schema/pg/003_bodies.sql): they live and die with the
         * graph that holds them, at any depth. */
#define BODIES_OF_1                                                                                \
    "WITH RECURSIVE d(g) AS (SELECT graph FROM graphs WHERE parent_graph = $1"                     \
    " UNION ALL SELECT graphs.graph FROM graphs JOIN d ON graphs.parent_graph = d.g) "
    static const char *const dels[] = {
        BODIES_OF_1 "DELETE FROM graph_index WHERE graph IN (SELECT g FROM d)",
        BODIES_OF_1 "DELETE FROM edges WHERE graph IN (SELECT g FROM d)",
        BODIES_OF_1 "DELETE FROM nodes WHERE graph IN (SELECT g FROM d)",
        BODIES_OF_1 "DELETE FROM graphs WHERE graph IN (SELECT g FROM d)",
        "DELETE FROM graph_index WHERE graph = $1",
        "DELETE FROM edges WHERE graph = $1",
        "DELETE FROM nodes WHERE graph = $1",
        "DELETE FROM graphs WHERE graph = $1",
    };
#undef BODIES_OF_1
    for (size_t i = 0; i < sizeof dels / sizeof dels[0] && rc == 0; i++)
        rc = pg_exec(be->conn, dels[i], &p, "cannot delete the graph", err, len, NULL);
    params q = {0};
    p_i64(&q, session);
    p_i64(&q, j->u.del.graph);
    p_i64(&q, j->u.del.deleted_ms);
    if (rc == 0)
        rc = pg_exec(be->conn,
                     "UPDATE capture_log SET graph_deleted_at = " TS_IN(
                         3) " WHERE session = $1 AND graph = $2",
                     &q, "cannot delete the graph", err, len, NULL);
    if (rc == 0)
        rc = pg_exec(
            be->conn,
            "UPDATE captures SET graph_deleted_at = " TS_IN(3) " WHERE session = $1 AND graph = $2",
            &q, "cannot delete the graph", err, len, NULL);
    if (rc == 0)
        j->id = j->u.del.graph;
    return rc;
}

/* A graph deleted meanwhile matches no row and is skipped. */
static int set_fps(sc_store_be *be, sc_store_job *j, char *err, size_t len)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < j->u.fps.n; i++) {
        params p = {0};
        p_i64(&p, j->u.fps.ids[i]);
        if (!p_fp(&p, j->u.fps.fps[i].structure) || !p_fp(&p, j->u.fps.fps[i].full)) {
            pg_set_err(err, len, "out of memory", NULL);
            rc = SC_STORE_ENOMEM;
        } else {
            rc = pg_exec(be->conn,
                         "UPDATE graphs SET fp_structure = $2, fp_full = $3 WHERE graph = $1", &p,
                         "cannot store the fingerprints", err, len, NULL);
        }
        p_free(&p);
    }
    return rc;
}

int store_pg_write(sc_store_be *be, sc_store_job *j, char *err, size_t len)
{
    switch (j->type) {
    case SC_STORE_JOB_LOG_OPEN:
        return log_open(be, j, err, len);
    case SC_STORE_JOB_LOG_END:
        return log_end(be, j, err, len);
    case SC_STORE_JOB_COMMIT_GRAPH:
        return commit_graph(be, j, err, len);
    case SC_STORE_JOB_DELETE_GRAPH:
        return store_pg_delete_graph(be, j, err, len);
    case SC_STORE_JOB_PIN_GRAPH:
        return store_pg_pin(be, j, err, len);
    case SC_STORE_JOB_PRUNE_GRAPHS:
        return store_pg_prune_graphs(be, j, err, len);
    case SC_STORE_JOB_PRUNE_LOG:
        return store_pg_prune_log(be, j, err, len);
    case SC_STORE_JOB_VACUUM:
        /* Autovacuum gives PostgreSQL's space back (docs/operations.md). */
        j->id = 0;
        return 0;
    case SC_STORE_JOB_COMMIT_CAPTURE:
        return commit_capture(be, j, err, len);
    case SC_STORE_JOB_SET_FPS:
        return set_fps(be, j, err, len);
    case SC_STORE_JOB_STREAM_PART: /* never: this backend does not stream */
    case SC_STORE_JOB_STREAM_DROP:
        break;
    }
    pg_set_err(err, len, "unknown write job", NULL);
    return SC_STORE_EINVAL;
}

int store_pg_write_chunk(sc_store_be *be, sc_store_job *j, uint32_t lo, uint32_t hi, char *err,
                         size_t len)
{
    if (!j->u.commit.pending_gid) {
        int rc = j->u.commit.submitted ? 0 : check_open(be, j->u.commit.session, err, len);
        if (rc)
            return rc;
        params p = {0};
        p_word(&p, be->host);
        p_i64(&p, j->u.commit.session);
        p_i64(&p, j->u.commit.created_ms);
        PGresult *r = pg_run(be->conn,
                             "INSERT INTO pending_graphs (graph, host, session, started_at)"
                             " VALUES (nextval('graph_ids'), $1, $2, " TS_IN(3) ") RETURNING graph",
                             &p, PGRES_TUPLES_OK, "cannot reserve the graph", &rc, err, len);
        if (!r)
            return rc;
        j->u.commit.pending_gid = col_i64(r, 0, 0);
        j->u.commit.be_mark = be->generation;
        PQclear(r);
    } else {
        int rc = check_chunks(be, j, lo, err, len);
        if (rc)
            return rc;
    }
    int rc = copy_rows(be, j->u.commit.g, j->u.commit.pending_gid, lo, hi, false, err, len);
    return rc ? rc : copy_rows(be, j->u.commit.g, j->u.commit.pending_gid, lo, hi, true, err, len);
}

void store_pg_drop_chunks(sc_store_be *be, int64_t gid)
{
    char err[128]; /* read by nobody: a failed drop is retried at the next start */
    if (pg_writer_ready(be, pg_now_us(), err, sizeof err) != 0 ||
        pg_host_locked(be, pg_now_us(), err, sizeof err) != 0)
        return;
    params p = {0};
    p_i64(&p, gid);
    /* A last transaction whose outcome is unknown may have stored the
     * graph: its rows stay. */
    static const char *const steps[] = {
        "BEGIN",
        "DELETE FROM edges WHERE graph = $1 AND NOT EXISTS (SELECT 1 FROM graphs WHERE graph = $1)",
        "DELETE FROM nodes WHERE graph = $1 AND NOT EXISTS (SELECT 1 FROM graphs WHERE graph = $1)",
        "DELETE FROM pending_graphs WHERE graph = $1",
        "COMMIT",
    };
    for (size_t i = 0; i < 5; i++) {
        bool bare = i == 0 || i == 4;
        if (pg_exec(be->conn, steps[i], bare ? NULL : &p, "", err, sizeof err, NULL) != 0) {
            store_pg_rollback(be);
            return;
        }
    }
}

bool store_pg_make_room(sc_store_be *be)
{
    (void)be;
    return false;
}
