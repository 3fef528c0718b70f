/*
 * store_pg_read.c - the PostgreSQL backend's readers (store_pg_int.h):
 * one connection each, and the read requests of store_backend.h on it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_json.h"
#include "sc_kargs.h"
#include "store_access.h"
#include "store_pg_int.h"

/* ---- reads ---- */

int store_pg_reader_open(sc_store_be *be, void **reader, char *err, size_t len)
{
    pg_reader *r = calloc(1, sizeof *r);
    if (!r) {
        pg_set_err(err, len, "out of memory", NULL);
        return SC_STORE_ENOMEM;
    }
    int rc = 0;
    if (!(r->conn = pg_connect(be->uri, err, len, &rc))) {
        free(r);
        return rc;
    }
    r->be = be;
    *reader = r;
    return 0;
}

void store_pg_reader_close(void *reader)
{
    pg_reader *r = reader;
    if (!r)
        return;
    PQfinish(r->conn);
    free(r);
}

static int rd_fail(sc_store_read *rq, int rc, const char *msg)
{
    rq->rc = rc;
    snprintf(rq->errmsg, sizeof rq->errmsg, "%s", msg);
    return rc;
}

/* Rows that contradict each other: EIO in the SQLite backend's words, so a
 * damaged graph reads the same whichever database holds it. */
static int rd_corrupt(sc_store_read *rq, const char *what)
{
    rq->rc = SC_STORE_EIO;
    snprintf(rq->errmsg, sizeof rq->errmsg, "stored graph %lld is inconsistent: %s",
             (long long)rq->graph, what);
    return rq->rc;
}

static int rd_nomem(sc_store_read *rq)
{
    return rd_fail(rq, SC_STORE_ENOMEM, "out of memory");
}

/* A text column made valid UTF-8 (it is already, unless the database was
 * written by something else), NUL-terminated. */
static char *dup_col(const PGresult *r, int row, int col, size_t *len)
{
    const char *t = PQgetvalue(r, row, col);
    size_t n = (size_t)PQgetlength(r, row, col);
    char *d = malloc(3 * n + 1);
    if (!d)
        return NULL;
    n = sc_utf8_scrub(t, n, d);
    d[n] = '\0';
    if (len)
        *len = n;
    return d;
}

#define GRAPH_COLS                                                                                 \
    "graph, session, label, " TS_OUT("created_at") ", owner_uid, owner_pid, node_count,"           \
                                                   " edge_count, stream_count, semantics, "        \
                                                   "capture, host, parent_graph, parent_node,"     \
                                                   " parent_index, fp_structure, fp_full, pinned"

static int row_to_meta(const PGresult *r, int i, sc_graph_meta *m)
{
    memset(m, 0, sizeof *m);
    m->graph = col_i64(r, i, 0);
    m->session = col_i64(r, i, 1);
    m->created_ms = col_i64(r, i, 3);
    m->owner_uid = col_u32(r, i, 4);
    m->owner_pid = col_i64(r, i, 5);
    m->node_count = col_u32(r, i, 6);
    m->edge_count = (uint64_t)col_i64(r, i, 7);
    m->stream_count = col_u32(r, i, 8);
    m->cuda = strcmp(PQgetvalue(r, i, 9), "cuda") == 0;
    m->capture = col_u32(r, i, 10);
    m->parent_graph = col_i64(r, i, 12);
    m->parent_node = col_u32(r, i, 13);
    m->parent_index = col_u32(r, i, 14);
    store_meta_fingerprint(m, PQgetisnull(r, i, 15) ? NULL : PQgetvalue(r, i, 15),
                           PQgetisnull(r, i, 16) ? NULL : PQgetvalue(r, i, 16));
    m->pinned = PQgetvalue(r, i, 17)[0] == 't';
    if (!(m->label = dup_col(r, i, 2, &m->label_len)) || !(m->host = dup_col(r, i, 11, NULL))) {
        free(m->label);
        free(m->host);
        m->label = m->host = NULL;
        return SC_STORE_ENOMEM;
    }
    return 0;
}

static int rd_exec(PGconn *c, sc_store_read *rq, const char *sql, const params *p, PGresult **out)
{
    int rc = 0;
    *out = pg_run(c, sql, p, PGRES_TUPLES_OK, "read failed", &rc, rq->errmsg, sizeof rq->errmsg);
    if (!*out)
        rq->rc = rc;
    return rc;
}

static int read_meta(PGconn *c, sc_store_read *rq, int64_t graph, sc_graph_meta *m)
{
    params p = {0};
    p_i64(&p, graph);
    PGresult *r;
    if (rd_exec(c, rq, "SELECT " GRAPH_COLS " FROM graphs WHERE graph = $1", &p, &r))
        return rq->rc;
    int rc = PQntuples(r) == 1 ? row_to_meta(r, 0, m) : SC_STORE_ENOTFOUND;
    PQclear(r);
    if (rc == SC_STORE_ENOMEM)
        return rd_nomem(rq);
    if (rc)
        rq->rc = rc;
    return rc;
}

/* Send `sql` and read its rows one at a time, so a graph of millions of
 * nodes never sits in memory twice.  `take` gets each row. */
static int stream_rows(PGconn *c, sc_store_read *rq, const char *sql, const params *p,
                       int (*take)(void *ctx, const PGresult *r), void *ctx)
{
    if (!PQsendQueryParams(c, sql, p->n, NULL, p->v, NULL, NULL, 0) || !PQsetSingleRowMode(c))
        return rd_fail(rq, SC_STORE_EIO, PQerrorMessage(c));
    PGresult *r;
    int rc = 0;
    while ((r = PQgetResult(c)) != NULL) {
        ExecStatusType st = PQresultStatus(r);
        if (st == PGRES_SINGLE_TUPLE && rc == 0)
            rc = take(ctx, r);
        else if (st != PGRES_SINGLE_TUPLE && st != PGRES_TUPLES_OK && rc == 0)
            rc = pg_fail(c, r, "read failed", rq->errmsg, sizeof rq->errmsg);
        PQclear(r);
    }
    if (rc && !rq->rc)
        rq->rc = rc;
    return rc;
}

typedef struct load_ctx {
    sc_store_read *rq;
    sc_graph *g;
    uint32_t expect;
    char *name;     /* name_bytes or scrubbed text */
    uint32_t *args; /* a kernel's param_sizes, then its args */
    size_t args_cap;
    store_access_buf acc; /* the node's accesses */
} load_ctx;

/* Columns 18 and 19 (hex of args, param_sizes joined by commas) into n;
 * 0, or -1 for a malformed pair, SC_STORE_ENOMEM. */
static int take_args(load_ctx *lc, const PGresult *r, sc_node *n)
{
    if (PQgetisnull(r, 0, 18) && PQgetisnull(r, 0, 19))
        return 0;
    if (PQgetisnull(r, 0, 18) || PQgetisnull(r, 0, 19))
        return -1;
    size_t hlen = (size_t)PQgetlength(r, 0, 18), slen = (size_t)PQgetlength(r, 0, 19);
    size_t need = sc_kargs_text_room(hlen, slen);
    if (lc->args_cap < need) {
        uint32_t *p = realloc(lc->args, need);
        if (!p)
            return SC_STORE_ENOMEM;
        lc->args = p;
        lc->args_cap = need;
    }
    size_t nbytes;
    if (sc_kargs_from_text(PQgetvalue(r, 0, 18), hlen, PQgetvalue(r, 0, 19), slen, lc->args,
                           &n->nparams, &nbytes) != 0)
        return -1;
    n->param_sizes = lc->args;
    n->args = (const uint8_t *)(lc->args + n->nparams);
    n->args_len = (uint32_t)nbytes;
    return 0;
}

static int take_node(void *p, const PGresult *r)
{
    load_ctx *lc = p;
    sc_node n;
    memset(&n, 0, sizeof n);
    if ((uint32_t)col_i64(r, 0, 0) != lc->expect ||
        sc_cuda_kind_parse(PQgetvalue(r, 0, 1), (size_t)PQgetlength(r, 0, 1), &n.kind) != 0 ||
        (!PQgetisnull(r, 0, 7) &&
         sc_cuda_dir_parse(PQgetvalue(r, 0, 7), (size_t)PQgetlength(r, 0, 7), &n.dir) != 0))
        return rd_fail(lc->rq, SC_STORE_EIO, "stored graph has a malformed node row");
    n.stream = col_u32(r, 0, 2);
    n.num_blocks = col_u32(r, 0, 4);
    n.threads_per_block = col_u32(r, 0, 5);
    n.shared_mem = col_u32(r, 0, 6);
    n.size_bytes = (uint64_t)col_i64(r, 0, 8);
    n.src_device = col_u32(r, 0, 9);
    n.dst_device = col_u32(r, 0, 10);
    n.value = (uint8_t)col_i64(r, 0, 11);
    n.grid_y = col_u32(r, 0, 12);
    n.grid_z = col_u32(r, 0, 13);
    n.block_y = col_u32(r, 0, 14);
    n.block_z = col_u32(r, 0, 15);
    n.event = col_u32(r, 0, 16);
    if (!PQgetisnull(r, 0, 20) &&
        sc_cond_type_parse(PQgetvalue(r, 0, 20), (size_t)PQgetlength(r, 0, 20), &n.cond_type) != 0)
        return rd_fail(lc->rq, SC_STORE_EIO, "stored graph has a malformed node row");
    n.cond_size = col_u32(r, 0, 21);
    n.cond_default = col_u32(r, 0, 22);
    n.cond_flags = col_u32(r, 0, 23);
    free(lc->name);
    lc->name = NULL;
    if (!PQgetisnull(r, 0, 17)) {
        /* The exact bytes, made valid UTF-8 as the SQLite store's readers
         * make theirs. */
        size_t raw_len;
        unsigned char *raw = PQunescapeBytea((const unsigned char *)PQgetvalue(r, 0, 17), &raw_len);
        if (!raw)
            return rd_nomem(lc->rq);
        lc->name = malloc(3 * raw_len + 1);
        if (lc->name) {
            n.name_len = sc_utf8_scrub((const char *)raw, raw_len, lc->name);
            n.name = lc->name;
        }
        PQfreemem(raw);
        if (!lc->name)
            return rd_nomem(lc->rq);
    } else {
        n.name = PQgetvalue(r, 0, 3);
        n.name_len = (size_t)PQgetlength(r, 0, 3);
    }
    int arc = take_args(lc, r, &n);
    if (arc == SC_STORE_ENOMEM)
        return rd_nomem(lc->rq);
    if (arc)
        return rd_fail(lc->rq, SC_STORE_EIO, "stored graph has a malformed node row");
    /* Column 24, the accesses' JSON text (schema/pg/007_accesses.sql). */
    arc = store_accesses_from_text(PQgetisnull(r, 0, 24) ? NULL : PQgetvalue(r, 0, 24),
                                   (size_t)PQgetlength(r, 0, 24), &lc->acc, &n);
    if (arc == -2)
        return rd_nomem(lc->rq);
    if (arc)
        return rd_fail(lc->rq, SC_STORE_EIO, "stored graph has a malformed node row");
    uint32_t id;
    int rc = sc_graph_add_node(lc->g, &n, &id);
    if (rc == SC_ENOMEM)
        return rd_nomem(lc->rq);
    if (rc)
        return rd_fail(lc->rq, SC_STORE_EIO, "stored node rejected by the graph model");
    lc->expect++;
    return 0;
}

static int take_edge(void *p, const PGresult *r)
{
    load_ctx *lc = p;
    int rc = sc_graph_add_edge(lc->g, col_u32(r, 0, 0), col_u32(r, 0, 1));
    if (rc == SC_ENOMEM)
        return rd_nomem(lc->rq);
    if (rc)
        return rd_fail(lc->rq, SC_STORE_EIO, "stored edge rejected by the graph model");
    return 0;
}

static int load_rows(PGconn *c, sc_store_read *rq, sc_stored_graph *sg)
{
    load_ctx lc = {.rq = rq};
    if (sc_graph_create(&lc.g) != 0)
        return rd_nomem(rq);
    params p = {0};
    p_i64(&p, rq->graph);
    int rc = stream_rows(c, rq,
                         "SELECT id, kind, stream, name, num_blocks, threads_per_block, shared_mem,"
                         " dir, size_bytes, src_device, dst_device, value, grid_y, grid_z, block_y,"
                         " block_z, event, name_bytes, encode(args, 'hex'),"
                         " array_to_string(param_sizes, ','), cond_type, cond_size, cond_default,"
                         " cond_flags, accesses FROM nodes WHERE graph = $1"
                         " ORDER BY id",
                         &p, take_node, &lc);
    free(lc.name);
    free(lc.args);
    free(lc.acc.v);
    if (rc == 0 && lc.expect != sg->meta.node_count)
        rc = rd_fail(rq, SC_STORE_EIO, "stored graph is missing node rows");
    if (rc == 0)
        rc = stream_rows(c, rq, "SELECT src, dst FROM edges WHERE graph = $1 ORDER BY src, dst", &p,
                         take_edge, &lc);
    if (rc == 0 && sc_graph_seal(lc.g) != 0)
        rc = rd_fail(rq, SC_STORE_EIO, "stored graph could not be sealed");
    if (rc == 0 && sc_graph_edge_count(lc.g) != sg->meta.edge_count)
        rc = rd_fail(rq, SC_STORE_EIO, "stored graph is missing edge rows");
    if (rc) {
        sc_graph_destroy(lc.g);
        return rc;
    }
    sg->graph = lc.g;
    return 0;
}

/* The graph_index row into a skeleton; *found false when there is none. */
static int load_index(PGconn *c, sc_store_read *rq, sc_stored_graph *sg, bool *found)
{
    params p = {0};
    p_i64(&p, rq->graph);
    PGresult *r = PQexecParams(c,
                               "SELECT node_count, edge_count, streams, edges FROM graph_index"
                               " WHERE graph = $1",
                               p.n, NULL, p.v, NULL, NULL, 1);
    if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
        int rc = pg_fail(c, r, "read failed", rq->errmsg, sizeof rq->errmsg);
        PQclear(r);
        rq->rc = rc;
        return rc;
    }
    *found = PQntuples(r) == 1;
    if (!*found) {
        PQclear(r);
        return 0;
    }
    /* Binary results: the counts are big-endian int8. */
    uint64_t n = 0, m = 0;
    for (int k = 0; k < 8; k++) {
        n = n << 8 | (unsigned char)PQgetvalue(r, 0, 0)[k];
        m = m << 8 | (unsigned char)PQgetvalue(r, 0, 1)[k];
    }
    int rc = 0;
    if (n != sg->meta.node_count || m != sg->meta.edge_count ||
        (uint64_t)PQgetlength(r, 0, 2) != 4 * n || (uint64_t)PQgetlength(r, 0, 3) != 8 * m)
        rc = rd_corrupt(rq, "graph_index row differs from the graph row");
    uint32_t *streams = NULL, *pairs = NULL;
    if (rc == 0) {
        streams = malloc(4 * n + 4);
        pairs = malloc(8 * m + 8);
        if (!streams || !pairs)
            rc = rd_nomem(rq);
    }
    if (rc == 0) {
        memcpy(streams, PQgetvalue(r, 0, 2), 4 * n);
        memcpy(pairs, PQgetvalue(r, 0, 3), 8 * m);
        store_le32_swap(streams, n);
        store_le32_swap(pairs, 2 * m);
        int core = sc_graph_create_skeleton((uint32_t)n, streams, m, pairs, &sg->graph);
        if (core == SC_ENOMEM)
            rc = rd_nomem(rq);
        else if (core)
            rc = rd_corrupt(rq, "graph_index rejected by the graph model");
    }
    /* The counts agree but a stream may not: the graph row's stream count
     * is what graph.get reports and the reachability relies on. */
    if (rc == 0 && sc_graph_stream_count(sg->graph) != sg->meta.stream_count)
        rc = rd_corrupt(rq, "stream count differs from the graph row");
    free(streams);
    free(pairs);
    PQclear(r);
    return rc;
}

static void read_load(PGconn *c, sc_store_read *rq, bool skeleton)
{
    sc_stored_graph *sg = calloc(1, sizeof *sg);
    if (!sg) {
        rd_nomem(rq);
        return;
    }
    /* One snapshot for the graph row and its rows. */
    PGresult *r = PQexec(c, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    int rc = r && PQresultStatus(r) == PGRES_COMMAND_OK
                 ? 0
                 : (rq->rc = pg_fail(c, r, "read failed", rq->errmsg, sizeof rq->errmsg));
    PQclear(r);
    if (rc == 0)
        rc = read_meta(c, rq, rq->graph, &sg->meta);
    bool found = false;
    if (rc == 0 && skeleton)
        rc = load_index(c, rq, sg, &found);
    if (rc == 0 && !found)
        rc = load_rows(c, rq, sg);
    r = PQexec(c, "COMMIT");
    PQclear(r);
    if (rc) {
        sc_stored_graph_free(sg);
        return;
    }
    rq->sg = sg;
}

static void read_meta_job(PGconn *c, sc_store_read *rq)
{
    sc_graph_meta *m = calloc(1, sizeof *m);
    if (!m) {
        rd_nomem(rq);
        return;
    }
    if (read_meta(c, rq, rq->graph, m) != 0) {
        free(m);
        return;
    }
    rq->meta = m;
}

/* "... AND host = $k": a parameter for this query's own text. */
static void add_cond(char *sql, size_t cap, const char *fmt, int k)
{
    size_t used = strlen(sql);
    snprintf(sql + used, cap - used, fmt, k, k);
}

/* The page `sql` selects (its filters so far), narrowed to a fingerprint
 * in either column.  One "fp_structure = $k OR fp_full = $k" gathers every
 * match of both indexes and sorts them before the LIMIT, which costs what
 * the store holds of copies of one capture; two index walks of at most a
 * page each, the second leaving out what the first has, merged, read no
 * more than two pages. */
static bool by_fingerprint(const sc_graph_query *q, char *sql, size_t cap, params *p)
{
    char hex[SC_FINGERPRINT_HEX];
    sc_fingerprint_hex(q->fingerprint, hex);
    if (!p_text(p, hex, 16))
        return false;
    int k = p->n;
    p_i64(p, (int64_t)q->limit + 1);
    int l = p->n;
    char *base = strdup(sql);
    if (!base)
        return false;
    int n = snprintf(sql, cap,
                     "(%s AND fp_structure = $%d ORDER BY graph DESC LIMIT $%d) UNION ALL"
                     " (%s AND fp_full = $%d AND fp_structure IS DISTINCT FROM $%d"
                     " ORDER BY graph DESC LIMIT $%d) ORDER BY graph DESC LIMIT $%d",
                     base, k, l, base, k, k, l, l);
    free(base);
    return n > 0 && (size_t)n < cap;
}

bool store_pg_graphs_sql(const sc_graph_query *q, const char *host, char *sql, size_t cap,
                         params *pp)
{
    params *p = pp;
    memset(p, 0, sizeof *p);
    snprintf(sql, cap, "SELECT " GRAPH_COLS " FROM graphs WHERE graph < $1");
    p_i64(p, q->before_graph > 0 ? q->before_graph : INT64_MAX);
    bool ok = true;
    if (!q->any_owner) {
        /* A uid means a user on one host only. */
        p_i64(p, q->uid);
        add_cond(sql, cap, " AND owner_uid = $%d", p->n);
        p_word(p, host);
        add_cond(sql, cap, " AND host = $%d", p->n);
    }
    if (q->label) {
        ok = ok && p_text(p, q->label, q->label_len);
        add_cond(sql, cap, " AND label = $%d", p->n);
    }
    if (q->host) {
        ok = ok && p_text(p, q->host, q->host_len);
        add_cond(sql, cap, " AND host = $%d", p->n);
    }
    if (q->parent) {
        p_i64(p, q->parent);
        add_cond(sql, cap, " AND parent_graph = $%d", p->n);
    } else if (!q->nested) {
        add_cond(sql, cap, "%.0d AND parent_graph IS NULL", 0);
    }
    if (q->by_fingerprint)
        return ok && by_fingerprint(q, sql, cap, p);
    p_i64(p, (int64_t)q->limit + 1);
    add_cond(sql, cap, " ORDER BY graph DESC LIMIT $%d", p->n);
    return ok && strlen(sql) + 1 < cap;
}

static void read_graphs(const pg_reader *pr, sc_store_read *rq)
{
    const sc_graph_query *q = &rq->graphs;
    char sql[2048];
    params p;
    bool ok = store_pg_graphs_sql(q, pr->be->host, sql, sizeof sql, &p);
    PGresult *r = NULL;
    sc_graph_page *page = NULL;
    if (!ok || !(page = calloc(1, sizeof *page)))
        rd_nomem(rq);
    else if (rd_exec(pr->conn, rq, sql, &p, &r) == 0) {
        size_t rows = (size_t)PQntuples(r), take = rows > q->limit ? q->limit : rows;
        /* An empty page has no array, as on SQLite (sc_graph_page). */
        if (take && !(page->graphs = calloc(take, sizeof *page->graphs)))
            rd_nomem(rq);
        for (size_t i = 0; page->graphs && i < take; i++, page->count++)
            if (row_to_meta(r, (int)i, &page->graphs[i]) != 0) {
                rd_nomem(rq);
                break;
            }
        page->has_more = rows > take && page->count > 0;
        if (page->has_more)
            page->next_before = page->graphs[page->count - 1].graph;
    }
    PQclear(r);
    p_free(&p);
    rq->graph_page = page;
}

static bool word_into(const PGresult *r, int i, int col, char *buf, size_t cap)
{
    size_t n = (size_t)PQgetlength(r, i, col);
    if (PQgetisnull(r, i, col) || n >= cap)
        return false;
    memcpy(buf, PQgetvalue(r, i, col), n + 1);
    return true;
}

static int read_captures(PGconn *c, sc_store_read *rq, sc_log_entry *e)
{
    params p = {0};
    p_i64(&p, e->session);
    PGresult *r;
    if (rd_exec(
            c, rq,
            "SELECT capture, origin, mode, thread, outcome, cuda_error, node_count, " TS_OUT(
                "ended_at") ", graph, " TS_OUT("graph_deleted_at") ", inv_method,"
                                                                   " inv_stream, inv_event, "
                                                                   "inv_thread, inv_call, inv_error"
                                                                   " FROM captures WHERE session = "
                                                                   "$1 ORDER BY capture",
            &p, &r))
        return rq->rc;
    int n = PQntuples(r), rc = 0;
    e->captures = n ? calloc((size_t)n, sizeof *e->captures) : NULL;
    if (n && !e->captures)
        rc = rd_nomem(rq);
    for (int i = 0; rc == 0 && i < n; i++, e->ncaptures++) {
        sc_log_capture *k = &e->captures[i];
        k->capture = col_u32(r, i, 0);
        k->origin = col_u32(r, i, 1);
        k->thread = col_u32(r, i, 3);
        k->cuda_error = (int)col_i64(r, i, 5);
        k->node_count = col_u32(r, i, 6);
        k->ended_ms = col_i64(r, i, 7);
        k->graph = col_i64(r, i, 8);
        k->graph_deleted = !PQgetisnull(r, i, 9);
        k->graph_deleted_ms = col_i64(r, i, 9);
        k->invalidated = !PQgetisnull(r, i, 10);
        if (!word_into(r, i, 2, k->mode, sizeof k->mode) ||
            !word_into(r, i, 4, k->outcome, sizeof k->outcome) ||
            (k->invalidated && !word_into(r, i, 10, k->inv_method, sizeof k->inv_method))) {
            rc = rd_fail(rq, SC_STORE_EIO, "captures row is malformed");
            break;
        }
        k->inv_stream = col_u32(r, i, 11);
        k->inv_has_event = !PQgetisnull(r, i, 12);
        k->inv_event = col_u32(r, i, 12);
        k->inv_thread = col_u32(r, i, 13);
        k->inv_error = (int)col_i64(r, i, 15);
        if (!PQgetisnull(r, i, 14) && !(k->inv_call = dup_col(r, i, 14, NULL)))
            rc = rd_nomem(rq);
    }
    PQclear(r);
    return rc;
}

bool store_pg_log_sql(const sc_log_query *q, const char *host, char *sql, size_t cap, params *pp)
{
    snprintf(
        sql, cap,
        "SELECT session, label, owner_uid, owner_pid, " TS_OUT("opened_at") ", " TS_OUT(
            "ended_at") ", outcome, node_count, graph, " TS_OUT("graph_deleted_at") ","
                                                                                    " semantics, "
                                                                                    "host FROM "
                                                                                    "capture_log "
                                                                                    "WHERE true");
    params *p = pp;
    memset(p, 0, sizeof *p);
    bool ok = true;
    if (q->has_before) {
        p_i64(p, q->before_opened_ms);
        p_i64(p, q->before_session);
        add_cond(sql, cap,
                 "%.0d AND (opened_at, session) < (('epoch'::timestamptz + $1::bigint"
                 " * interval '1 millisecond'), $2)",
                 0);
    }
    if (!q->any_owner) {
        p_i64(p, q->uid);
        add_cond(sql, cap, " AND owner_uid = $%d", p->n);
        p_word(p, host);
        add_cond(sql, cap, " AND host = $%d", p->n);
    }
    if (q->outcome) {
        p_word(p, q->outcome);
        add_cond(sql, cap, " AND outcome = $%d", p->n);
    }
    if (q->host) {
        ok = p_text(p, q->host, q->host_len);
        add_cond(sql, cap, " AND host = $%d", p->n);
    }
    p_i64(p, (int64_t)q->limit + 1);
    add_cond(sql, cap, " ORDER BY opened_at DESC, session DESC LIMIT $%d", p->n);
    return ok;
}

static void read_log(const pg_reader *pr, sc_store_read *rq)
{
    const sc_log_query *q = &rq->log;
    char sql[900];
    params p;
    bool ok = store_pg_log_sql(q, pr->be->host, sql, sizeof sql, &p);
    PGresult *r = NULL;
    sc_log_page *page = NULL;
    if (!ok || !(page = calloc(1, sizeof *page)))
        rd_nomem(rq);
    else if (rd_exec(pr->conn, rq, sql, &p, &r) == 0) {
        size_t rows = (size_t)PQntuples(r), take = rows > q->limit ? q->limit : rows;
        if (take && !(page->entries = calloc(take, sizeof *page->entries)))
            rd_nomem(rq);
        for (size_t i = 0; page->entries && i < take && rq->rc == 0; i++) {
            sc_log_entry *e = &page->entries[i];
            int row = (int)i;
            e->session = col_i64(r, row, 0);
            e->owner_uid = col_u32(r, row, 2);
            e->owner_pid = col_i64(r, row, 3);
            e->opened_ms = col_i64(r, row, 4);
            e->has_ended = !PQgetisnull(r, row, 5);
            e->ended_ms = col_i64(r, row, 5);
            e->node_count = col_u32(r, row, 7);
            e->graph = col_i64(r, row, 8);
            e->graph_deleted = !PQgetisnull(r, row, 9);
            e->graph_deleted_ms = col_i64(r, row, 9);
            e->cuda = strcmp(PQgetvalue(r, row, 10), "cuda") == 0;
            page->count++;
            if (!word_into(r, row, 6, e->outcome, sizeof e->outcome)) {
                rd_fail(rq, SC_STORE_EIO, "capture log row is malformed");
                break;
            }
            if (!(e->label = dup_col(r, row, 1, &e->label_len)) ||
                !(e->host = dup_col(r, row, 11, NULL))) {
                rd_nomem(rq);
                break;
            }
            if (e->cuda && read_captures(pr->conn, rq, e) != 0)
                break;
        }
        page->has_more = rows > take && page->count > 0;
        if (page->has_more) {
            page->next_opened_ms = page->entries[page->count - 1].opened_ms;
            page->next_session = page->entries[page->count - 1].session;
        }
    }
    PQclear(r);
    p_free(&p);
    rq->log_page = page;
}

void store_pg_read(void *reader, sc_store_read *rq)
{
    pg_reader *pr = reader;
    rq->rc = 0;
    rq->errmsg[0] = '\0';
    if (pg_ready(pr->conn, rq->errmsg, sizeof rq->errmsg) != 0) {
        rq->rc = SC_STORE_EIO;
        return;
    }
    switch (rq->kind) {
    case SC_STORE_READ_LOAD:
    case SC_STORE_READ_SKELETON:
        read_load(pr->conn, rq, rq->kind == SC_STORE_READ_SKELETON);
        break;
    case SC_STORE_READ_META:
        read_meta_job(pr->conn, rq);
        break;
    case SC_STORE_READ_GRAPHS:
        read_graphs(pr, rq);
        break;
    case SC_STORE_READ_LOG:
        read_log(pr, rq);
        break;
    case SC_STORE_READ_BACKUP: /* never submitted: backs_up is false */
        rq->rc = SC_STORE_EINVAL;
        snprintf(rq->errmsg, sizeof rq->errmsg, "back up a PostgreSQL store with pg_dump");
        break;
    case SC_STORE_READ_PRUNE:
        store_pg_plan(pr->conn, rq);
        break;
    }
}
