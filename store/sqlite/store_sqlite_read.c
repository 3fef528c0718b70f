/*
 * store_sqlite_read.c - the SQLite backend's reads (store_backend.h): graph
 * loads, graph metadata and the pages of graph.list and log.list, each on
 * a read-only connection of the generic reader pool.
 *
 * A load reads the graph row, its nodes and its edges inside one read
 * transaction, so it sees one snapshot even while the writer commits; a
 * skeleton load reads the graph row and the blobs of its graph_index parts
 * the same way.  The other reads are one statement each, which is a snapshot by
 * itself.  WAL lets these run beside the writer without blocking it.
 *
 * Result codes: a read's result is q->rc, 0 or an SC_STORE_E* code.  The
 * helpers that can fail set it (set_err and friends) and return that same
 * code, so a chain of them stops at the first failure; helpers named sql_*
 * return SQLite's result codes instead, and graph_rc() turns the graph
 * model's SC_E* codes into store codes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_json.h"
#include "sc_kargs.h"
#include "store_access.h"
#include "store_sqlite.h"

typedef struct sqlite_reader {
    sqlite3 *db;
    sqlite3_stmt *begin;
    sqlite3_stmt *end;
    sqlite3_stmt *meta;
    sqlite3_stmt *nodes;
    sqlite3_stmt *edges;
    sqlite3_stmt *index_row;
    sqlite3_stmt *captures;
    /* Prepared on first use: most connections never list. */
    sqlite3_stmt *graphs[STORE_GRAPHS_VARIANTS];
    sqlite3_stmt *log[STORE_LOG_VARIANTS];
} sqlite_reader;

#define GRAPH_COLUMNS STORE_GRAPH_COLUMNS

/* A node of a node_chunks run (schema/006_node_chunks.sql) as the nodes
 * view's columns, id first, then its accesses (schema/013_accesses.sql);
 * json_each() gives the run's elements in order, so reading by lo reads by id. */
#define CHUNK_NODE_COLUMNS                                                                         \
    "c.lo + j.key, json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]'),"                  \
    " j.value -> '$[2]', json_extract(j.value, '$[3][0]'),"                                        \
    " json_extract(j.value, '$[3][1]'), json_extract(j.value, '$[3][2]'),"                         \
    " json_extract(j.value, '$[3][3]'), json_extract(j.value, '$[3][4]'),"                         \
    " json_extract(j.value, '$[3][5]'), json_extract(j.value, '$[3][6]'),"                         \
    " json_extract(j.value, '$[3][7]'), json_extract(j.value, '$[3][8]'),"                         \
    " json_extract(j.value, '$[3][9]'), json_extract(j.value, '$[3][10]'),"                        \
    " json_extract(j.value, '$[3][11]'), json_extract(j.value, '$[3][12]'),"                       \
    " json_extract(j.value, '$[3][13]'), j.value -> '$[3][14]',"                                   \
    " json_extract(j.value, '$[3][15]'), json_extract(j.value, '$[3][16]'),"                       \
    " json_extract(j.value, '$[3][17]'), json_extract(j.value, '$[3][18]'),"                       \
    " j.value -> '$[5]'"

static void reader_close(sqlite_reader *r)
{
    if (!r)
        return;
    sqlite3_finalize(r->begin);
    sqlite3_finalize(r->end);
    sqlite3_finalize(r->meta);
    sqlite3_finalize(r->nodes);
    sqlite3_finalize(r->edges);
    sqlite3_finalize(r->index_row);
    sqlite3_finalize(r->captures);
    for (int i = 0; i < STORE_GRAPHS_VARIANTS; i++)
        sqlite3_finalize(r->graphs[i]);
    for (int i = 0; i < STORE_LOG_VARIANTS; i++)
        sqlite3_finalize(r->log[i]);
    sqlite3_close(r->db);
    free(r);
}

/* SQLITE_OK or SQLite's error. */
static int sql_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **out)
{
    return sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, out, NULL);
}

/* A new reader, or NULL with *fail set to SC_STORE_ENOMEM or SC_STORE_EIO. */
static sqlite_reader *reader_open(const sc_store_be *st, int *fail, char *errbuf, size_t len)
{
    sqlite_reader *r = calloc(1, sizeof *r);
    *fail = SC_STORE_ENOMEM;
    if (!r) {
        snprintf(errbuf, len, "out of memory");
        return NULL;
    }
    int rc = sqlite3_open_v2(st->path, &r->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_busy_timeout(r->db, st->busy_timeout_ms);
    if (rc == SQLITE_OK)
        rc = sql_prepare(r->db, "BEGIN", &r->begin);
    if (rc == SQLITE_OK)
        rc = sql_prepare(r->db, "COMMIT", &r->end);
    if (rc == SQLITE_OK)
        rc = sql_prepare(r->db, "SELECT " GRAPH_COLUMNS " FROM graphs WHERE graph = ?1", &r->meta);
    if (rc == SQLITE_OK)
        rc = sql_prepare(r->db,
                         "SELECT " CHUNK_NODE_COLUMNS " FROM node_chunks AS c,"
                         " json_each(c.nodes) AS j WHERE c.graph = ?1 ORDER BY c.lo",
                         &r->nodes);
    if (rc == SQLITE_OK)
        rc = sql_prepare(r->db,
                         "SELECT p.value, c.lo + j.key FROM node_chunks AS c,"
                         " json_each(c.nodes) AS j, json_each(j.value, '$[4]') AS p"
                         " WHERE c.graph = ?1 ORDER BY c.lo",
                         &r->edges);
    /* length() of a column reads no overflow page: the blobs stay unread. */
    if (rc == SQLITE_OK)
        rc = sql_prepare(r->db,
                         "SELECT rowid, lo, node_count, edge_count, length(streams),"
                         " length(edges) FROM graph_index WHERE graph = ?1 ORDER BY lo",
                         &r->index_row);
    if (rc == SQLITE_OK)
        rc = sql_prepare(r->db,
                         "SELECT capture, origin, mode, thread, outcome, cuda_error, node_count,"
                         " ended_at, graph, graph_deleted_at, inv_method, inv_stream, inv_event,"
                         " inv_thread, inv_call, inv_error FROM captures WHERE session = ?1"
                         " ORDER BY capture",
                         &r->captures);
    if (rc != SQLITE_OK) {
        snprintf(errbuf, len, "opening reader: %s",
                 r->db ? sqlite3_errmsg(r->db) : sqlite3_errstr(rc));
        if ((rc & 0xff) != SQLITE_NOMEM)
            *fail = SC_STORE_EIO;
        reader_close(r);
        return NULL;
    }
    return r;
}

/* Record the job's result, an SC_STORE_E* code, and return it. */
static int set_err(sc_store_read *q, int rc, const char *msg)
{
    q->rc = rc;
    snprintf(q->errmsg, sizeof q->errmsg, "%s", msg);
    return rc;
}

/* SC_STORE_EIO with the connection's message; SQLite running out of memory
 * is the daemon's failure, not the database's, so it is SC_STORE_ENOMEM. */
static int fail_db(sqlite_reader *r, sc_store_read *q)
{
    if ((sqlite3_errcode(r->db) & 0xff) == SQLITE_NOMEM)
        return set_err(q, SC_STORE_ENOMEM, "out of memory");
    return set_err(q, SC_STORE_EIO, sqlite3_errmsg(r->db));
}

static int fail_nomem(sc_store_read *q)
{
    return set_err(q, SC_STORE_ENOMEM, "out of memory");
}

/*
 * A heap copy of text column i (NUL-terminated; '' for NULL), or NULL when
 * out of memory.  Replies must be valid UTF-8 whatever the file holds (it
 * may have been written by another program or damaged): ill-formed bytes
 * become U+FFFD here, where text leaves the database.
 */
static char *dup_column(sqlite3_stmt *s, int i, size_t *len)
{
    const char *t = (const char *)sqlite3_column_text(s, i);
    size_t n = t ? (size_t)sqlite3_column_bytes(s, i) : 0;
    bool valid = sc_utf8_valid(t, n);
    char *copy = malloc((valid ? n : 3 * n) + 1);
    if (!copy)
        return NULL;
    if (!valid)
        n = sc_utf8_scrub(t, n, copy);
    else if (n)
        memcpy(copy, t, n);
    copy[n] = '\0';
    *len = n;
    return copy;
}

/* Time column i into *ms: 0, 1 when it is NULL and `nullable`, -1 when it
 * is missing or malformed. */
static int time_column(sqlite3_stmt *s, int i, bool nullable, int64_t *ms)
{
    const char *t = (const char *)sqlite3_column_text(s, i);
    *ms = 0;
    if (!t)
        return nullable && sqlite3_column_type(s, i) == SQLITE_NULL ? 1 : -1;
    return store_time_parse(t, (size_t)sqlite3_column_bytes(s, i), ms) ? 0 : -1;
}

static uint32_t col_u32(sqlite3_stmt *s, int i)
{
    return (uint32_t)sqlite3_column_int64(s, i);
}

/* A row of GRAPH_COLUMNS into *m, which then owns its label and host.  0 or the
 * store code set in q. */
static int row_to_meta(sc_store_read *q, sqlite3_stmt *s, sc_graph_meta *m)
{
    memset(m, 0, sizeof *m);
    m->graph = sqlite3_column_int64(s, 0);
    m->session = sqlite3_column_int64(s, 1);
    m->owner_uid = col_u32(s, 4);
    m->owner_pid = sqlite3_column_int64(s, 5);
    m->node_count = col_u32(s, 6);
    m->edge_count = (uint64_t)sqlite3_column_int64(s, 7);
    m->stream_count = col_u32(s, 8);
    const char *sem = (const char *)sqlite3_column_text(s, 9);
    m->cuda = sem && strcmp(sem, "cuda") == 0;
    m->capture = col_u32(s, 10);
    m->parent_graph = sqlite3_column_int64(s, 12);
    m->parent_node = col_u32(s, 13);
    m->parent_index = col_u32(s, 14);
    store_meta_fingerprint(m, (const char *)sqlite3_column_text(s, 15),
                           (const char *)sqlite3_column_text(s, 16));
    m->pinned = sqlite3_column_int64(s, 17) != 0;
    if (time_column(s, 3, false, &m->created_ms) != 0)
        return set_err(q, SC_STORE_EIO, "stored graph has a malformed created_at");
    size_t host_len;
    if (!(m->label = dup_column(s, 2, &m->label_len)))
        return fail_nomem(q);
    if (!(m->host = dup_column(s, 11, &host_len))) {
        free(m->label);
        m->label = NULL;
        return fail_nomem(q);
    }
    return 0;
}

/* The graph row into *m: 0 or the store code set in q (ENOTFOUND when
 * absent). */
static int read_meta(sqlite_reader *r, sc_store_read *q, int64_t graph, sc_graph_meta *m)
{
    sqlite3_stmt *s = r->meta;
    sqlite3_bind_int64(s, 1, graph);
    int sqlrc = sqlite3_step(s);
    int ret;
    if (sqlrc == SQLITE_ROW)
        ret = row_to_meta(q, s, m);
    else if (sqlrc == SQLITE_DONE)
        ret = q->rc = SC_STORE_ENOTFOUND;
    else
        ret = fail_db(r, q);
    sqlite3_reset(s);
    return ret;
}

/* ---- whole graphs ---- */

/* Room for a node name made valid UTF-8 (row_to_node). */
typedef struct name_buf {
    char *p;
    size_t cap;
} name_buf;

/* n->name made valid UTF-8 (dup_column says why), through `nb` when it
 * needs replacing.  False when out of memory. */
static bool valid_name(sc_node *n, name_buf *nb)
{
    if (sc_utf8_valid(n->name, n->name_len))
        return true;
    if (nb->cap < 3 * n->name_len) {
        char *p = realloc(nb->p, 3 * n->name_len);
        if (!p)
            return false;
        nb->p = p;
        nb->cap = 3 * n->name_len;
    }
    n->name_len = sc_utf8_scrub(n->name, n->name_len, nb->p);
    n->name = nb->p;
    return true;
}

/* The name column, the JSON text of the run's name string: n->name points
 * into the row when it has no escapes, else into `dec`, decoded.  SQLite's
 * own decoding would stop at an escaped NUL, which a name may hold.  False
 * when it is no string, or out of memory (*nomem). */
static bool row_name(sqlite3_stmt *s, int col, sc_node *n, name_buf *dec, bool *nomem)
{
    const char *t = (const char *)sqlite3_column_text(s, col);
    size_t len = (size_t)sqlite3_column_bytes(s, col);
    if (!t || len < 2 || t[0] != '"' || t[len - 1] != '"')
        return false;
    if (!memchr(t, '\\', len)) {
        n->name = t + 1;
        n->name_len = len - 2;
        return true;
    }
    if (dec->cap < len) {
        char *p = realloc(dec->p, len);
        if (!p) {
            *nomem = true;
            return false;
        }
        dec->p = p;
        dec->cap = len;
    }
    ptrdiff_t got = sc_json_unescape(t, len, dec->p);
    if (got < 0)
        return false;
    n->name = dec->p;
    n->name_len = (size_t)got;
    return true;
}

/* Room for a kernel's arguments, sizes first (row_args). */
typedef struct args_buf {
    uint32_t *p;
    size_t cap;
} args_buf;

/* The args and param_sizes columns (hex text, JSON array text) into n
 * through ab; none when both are NULL.  False when they are not what
 * attrs_text() writes, or out of memory (*nomem). */
static bool row_args(sqlite3_stmt *s, sc_node *n, args_buf *ab, bool *nomem)
{
    const char *hex = (const char *)sqlite3_column_text(s, 17);
    const char *sizes = (const char *)sqlite3_column_text(s, 18);
    /* A conditional's slots follow: its param_sizes slot is there, JSON null. */
    if (!hex && (!sizes || strcmp(sizes, "null") == 0))
        return true;
    if (!hex || !sizes)
        return false;
    size_t hlen = (size_t)sqlite3_column_bytes(s, 17), slen = (size_t)sqlite3_column_bytes(s, 18);
    size_t need = sc_kargs_text_room(hlen, slen);
    if (ab->cap < need) {
        uint32_t *p = realloc(ab->p, need);
        if (!p)
            return !(*nomem = true);
        ab->p = p;
        ab->cap = need;
    }
    size_t nbytes;
    if (sc_kargs_from_text(hex, hlen, sizes, slen, ab->p, &n->nparams, &nbytes) != 0)
        return false;
    n->param_sizes = ab->p;
    n->args = (const uint8_t *)(ab->p + n->nparams);
    n->args_len = (uint32_t)nbytes;
    return true;
}

/* Column 23, the accesses' JSON text, into n; false if malformed or *nomem. */
static bool row_accesses(sqlite3_stmt *s, sc_node *n, store_access_buf *b, bool *nomem)
{
    const char *t = (const char *)sqlite3_column_text(s, 23);
    int rc = store_accesses_from_text(t, (size_t)sqlite3_column_bytes(s, 23), b, n);
    *nomem = *nomem || rc == -2;
    return rc == 0;
}

/* One nodes row into *n; the name is set by row_name().  False when the
 * row holds no valid node. */
static bool row_to_node(sqlite3_stmt *s, sc_node *n)
{
    memset(n, 0, sizeof *n);
    const char *kind = (const char *)sqlite3_column_text(s, 1);
    if (!kind || sc_cuda_kind_parse(kind, (size_t)sqlite3_column_bytes(s, 1), &n->kind) != 0)
        return false;
    n->stream = col_u32(s, 2);
    n->num_blocks = col_u32(s, 4);
    n->threads_per_block = col_u32(s, 5);
    n->shared_mem = col_u32(s, 6);
    const char *dir = (const char *)sqlite3_column_text(s, 7);
    if (dir && sc_cuda_dir_parse(dir, (size_t)sqlite3_column_bytes(s, 7), &n->dir) != 0)
        return false;
    n->size_bytes = (uint64_t)sqlite3_column_int64(s, 8);
    n->src_device = col_u32(s, 9);
    n->dst_device = col_u32(s, 10);
    n->value = (uint8_t)sqlite3_column_int64(s, 11);
    /* NULL extents (1-D launches, version-1 rows) read as 0, which the
     * graph reads as 1. */
    n->grid_y = col_u32(s, 12);
    n->grid_z = col_u32(s, 13);
    n->block_y = col_u32(s, 14);
    n->block_z = col_u32(s, 15);
    n->event = col_u32(s, 16);
    /* Conditionals stored before version 11 have no type: read as if. */
    const char *type = (const char *)sqlite3_column_text(s, 19);
    if (type && sc_cond_type_parse(type, (size_t)sqlite3_column_bytes(s, 19), &n->cond_type) != 0)
        return false;
    n->cond_size = col_u32(s, 20);
    n->cond_default = col_u32(s, 21);
    n->cond_flags = col_u32(s, 22);
    return true;
}

/* Step through the rows of `s`; a step error is recorded in q as EIO.
 * Returns SQLite's step result (SQLITE_ROW, SQLITE_DONE or the error). */
static int sql_next_row(sqlite_reader *r, sc_store_read *q, sqlite3_stmt *s)
{
    int rc = sqlite3_step(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        fail_db(r, q);
    return rc;
}

/* SC_STORE_EIO: the stored rows do not make a graph. */
static int corrupt(sc_store_read *q, const char *what)
{
    char msg[128];
    snprintf(msg, sizeof msg, "stored graph %lld is inconsistent: %s", (long long)q->graph, what);
    return set_err(q, SC_STORE_EIO, msg);
}

/* graph_rc() turns the graph model's codes into store codes: the two
 * ranges must not meet. */
_Static_assert(SC_RANGES_DISJOINT(SC_E__MIN, SC_E__MAX, SC_STORE_E__MIN, SC_STORE_E__MAX),
               "core codes could pass for store codes");

/* A failed graph call (core_rc, an SC_E* code) as the job's store code:
 * SC_ENOMEM is SC_STORE_ENOMEM; anything else means the rows were
 * rejected, SC_STORE_EIO with `what`. */
static int graph_rc(sc_store_read *q, int core_rc, const char *what)
{
    if (core_rc == SC_ENOMEM)
        return fail_nomem(q);
    return corrupt(q, what);
}

static int read_nodes(sqlite_reader *r, sc_store_read *q, sc_graph *g)
{
    sqlite3_stmt *s = r->nodes;
    sqlite3_bind_int64(s, 1, q->graph);
    int sqlrc, core_rc, ret = 0;
    uint32_t expect = 0;
    name_buf nb = {0}, dec = {0};
    args_buf ab = {0};
    store_access_buf acc = {0};
    bool nomem = false;
    while (ret == 0 && (sqlrc = sql_next_row(r, q, s)) == SQLITE_ROW) {
        sc_node n;
        uint32_t id;
        if (sqlite3_column_int64(s, 0) != expect || !row_to_node(s, &n) ||
            !row_name(s, 3, &n, &dec, &nomem) || !row_args(s, &n, &ab, &nomem) ||
            !row_accesses(s, &n, &acc, &nomem))
            ret = nomem ? fail_nomem(q) : corrupt(q, "bad node row");
        else if (!valid_name(&n, &nb))
            ret = fail_nomem(q);
        else if ((core_rc = sc_graph_add_node(g, &n, &id)) != 0)
            ret = graph_rc(q, core_rc, "rejected by the graph model");
        expect++;
    }
    free(nb.p);
    free(dec.p);
    free(ab.p);
    free(acc.v);
    /* A step error: sql_next_row recorded it. */
    if (ret == 0 && sqlrc != SQLITE_DONE)
        ret = q->rc;
    sqlite3_reset(s);
    return ret;
}

static int read_edges(sqlite_reader *r, sc_store_read *q, sc_graph *g)
{
    sqlite3_stmt *s = r->edges;
    sqlite3_bind_int64(s, 1, q->graph);
    int sqlrc, core_rc, ret = 0;
    while (ret == 0 && (sqlrc = sql_next_row(r, q, s)) == SQLITE_ROW) {
        sqlite3_int64 src = sqlite3_column_int64(s, 0), dst = sqlite3_column_int64(s, 1);
        if (src < 0 || dst < 0 || src > UINT32_MAX || dst > UINT32_MAX)
            ret = corrupt(q, "bad edge row");
        else if ((core_rc = sc_graph_add_edge(g, (uint32_t)src, (uint32_t)dst)) != 0)
            ret = graph_rc(q, core_rc, "rejected by the graph model");
    }
    if (ret == 0 && sqlrc != SQLITE_DONE)
        ret = q->rc;
    sqlite3_reset(s);
    return ret;
}

/* Fill q->sg, or set the error.  Runs inside a read transaction. */
static void load_graph(sqlite_reader *r, sc_store_read *q)
{
    sc_stored_graph *sg = calloc(1, sizeof *sg);
    if (!sg) {
        fail_nomem(q);
        return;
    }
    int core_rc;
    int rc = read_meta(r, q, q->graph, &sg->meta);
    if (rc == 0 && (core_rc = sc_graph_create(&sg->graph)) != 0)
        rc = graph_rc(q, core_rc, "rejected by the graph model");
    if (rc == 0)
        rc = read_nodes(r, q, sg->graph);
    if (rc == 0 && sc_graph_node_count(sg->graph) != sg->meta.node_count)
        rc = corrupt(q, "node count differs from the graph row");
    if (rc == 0)
        rc = read_edges(r, q, sg->graph);
    if (rc == 0 && (core_rc = sc_graph_seal(sg->graph)) != 0)
        rc = graph_rc(q, core_rc, "rejected by the graph model");
    if (rc == 0 && sc_graph_edge_count(sg->graph) != sg->meta.edge_count)
        rc = corrupt(q, "edge count differs from the graph row");
    if (rc != 0) {
        sc_stored_graph_free(sg);
        return;
    }
    q->sg = sg;
}

/* ---- skeletons (graph_index) ---- */

/* Read `bytes` of column `column` of the graph_index row `rowid` into buf.
 * 0 or the store code set in q. */
static int read_blob(sqlite_reader *r, sc_store_read *q, sqlite3_int64 rowid, const char *column,
                     void *buf, uint64_t bytes)
{
    if (bytes == 0)
        return 0;
    if (bytes > INT32_MAX)
        return corrupt(q, "graph_index blob too large");
    sqlite3_blob *b = NULL;
    int sqlrc = sqlite3_blob_open(r->db, "main", "graph_index", column, rowid, 0, &b);
    if (sqlrc == SQLITE_OK && (uint64_t)sqlite3_blob_bytes(b) != bytes) {
        sqlite3_blob_close(b);
        return corrupt(q, "graph_index blob has the wrong size");
    }
    if (sqlrc == SQLITE_OK)
        sqlrc = sqlite3_blob_read(b, buf, (int)bytes, 0);
    int ret = sqlrc == SQLITE_OK ? 0 : fail_db(r, q);
    sqlite3_blob_close(b);
    return ret;
}

/* The part at r->index_row's current row, read into streams and pairs at
 * the node and edge counts read so far, which it advances.  Parts must
 * follow each other from node 0 and stay within the graph row's counts.
 * 0 or the store code set in q. */
static int read_index_part(sqlite_reader *r, sc_store_read *q, const sc_graph_meta *m,
                           uint32_t *streams, uint32_t *pairs, uint64_t *nodes, uint64_t *edges)
{
    sqlite3_stmt *s = r->index_row;
    sqlite3_int64 lo = sqlite3_column_int64(s, 1), n = sqlite3_column_int64(s, 2),
                  e = sqlite3_column_int64(s, 3);
    if (lo < 0 || (uint64_t)lo != *nodes || n < 0 || e < 0 ||
        (uint64_t)n > m->node_count - *nodes || (uint64_t)e > m->edge_count - *edges ||
        sqlite3_column_int64(s, 4) != 4 * n || sqlite3_column_int64(s, 5) != 8 * e)
        return corrupt(q, "graph_index part differs from the graph row");
    sqlite3_int64 rowid = sqlite3_column_int64(s, 0);
    int rc = read_blob(r, q, rowid, "streams", streams + *nodes, (uint64_t)n * 4);
    if (rc == 0)
        rc = read_blob(r, q, rowid, "edges", pairs + 2 * *edges, (uint64_t)e * 8);
    *nodes += (uint64_t)n;
    *edges += (uint64_t)e;
    return rc;
}

/* The skeleton from the graph_index parts, r->index_row on the first one;
 * sg->meta holds the graph row already.  0 or the store code set in q. */
static int build_skeleton(sqlite_reader *r, sc_store_read *q, sc_stored_graph *sg)
{
    const sc_graph_meta *m = &sg->meta;
    uint32_t *streams = malloc(m->node_count ? (size_t)m->node_count * 4 : 1);
    uint32_t *pairs = malloc(m->edge_count ? (size_t)m->edge_count * 8 : 1);
    int rc = streams && pairs ? 0 : fail_nomem(q);
    uint64_t nodes = 0, edges = 0;
    int sqlrc = SQLITE_ROW;
    while (rc == 0 && sqlrc == SQLITE_ROW) {
        rc = read_index_part(r, q, m, streams, pairs, &nodes, &edges);
        if (rc == 0)
            sqlrc = sql_next_row(r, q, r->index_row);
    }
    /* A step error: sql_next_row recorded it. */
    if (rc == 0 && sqlrc != SQLITE_DONE)
        rc = q->rc;
    if (rc == 0 && (nodes != m->node_count || edges != m->edge_count))
        rc = corrupt(q, "graph_index parts fall short of the graph row");
    if (rc == 0) {
        store_le32_swap(streams, m->node_count);
        store_le32_swap(pairs, 2 * m->edge_count);
        int core_rc =
            sc_graph_create_skeleton(m->node_count, streams, m->edge_count, pairs, &sg->graph);
        if (core_rc != 0)
            rc = graph_rc(q, core_rc, "graph_index rejected by the graph model");
    }
    if (rc == 0 && sc_graph_stream_count(sg->graph) != m->stream_count)
        rc = corrupt(q, "stream count differs from the graph row");
    free(streams);
    free(pairs);
    return rc;
}

/* Fill q->sg with a skeleton, or set the error.  A graph stored without
 * graph_index parts (too large for SQLite's values) loads in full. */
static void load_skeleton(sqlite_reader *r, sc_store_read *q)
{
    sc_stored_graph *sg = calloc(1, sizeof *sg);
    if (!sg) {
        fail_nomem(q);
        return;
    }
    int rc = read_meta(r, q, q->graph, &sg->meta);
    int sqlrc = SQLITE_DONE;
    if (rc == 0) {
        sqlite3_bind_int64(r->index_row, 1, q->graph);
        sqlrc = sql_next_row(r, q, r->index_row);
        if (sqlrc != SQLITE_ROW && sqlrc != SQLITE_DONE)
            rc = q->rc;
    }
    if (rc == 0 && sqlrc == SQLITE_DONE) {
        sqlite3_reset(r->index_row);
        sc_stored_graph_free(sg);
        load_graph(r, q);
        return;
    }
    if (rc == 0)
        rc = build_skeleton(r, q, sg);
    sqlite3_reset(r->index_row);
    if (rc != 0) {
        sc_stored_graph_free(sg);
        return;
    }
    q->sg = sg;
}

static void load_run(sqlite_reader *r, sc_store_read *base)
{
    sc_store_read *q = base;
    if (sqlite3_step(r->begin) != SQLITE_DONE) {
        fail_db(r, base);
    } else {
        if (q->kind == SC_STORE_READ_SKELETON)
            load_skeleton(r, q);
        else
            load_graph(r, q);
        sqlite3_step(r->end);
        sqlite3_reset(r->end);
    }
    sqlite3_reset(r->begin);
}

/* ---- metadata ---- */

static void meta_run(sqlite_reader *r, sc_store_read *base)
{
    sc_store_read *q = base;
    sc_graph_meta *m = calloc(1, sizeof *m);
    if (!m) {
        fail_nomem(base);
        return;
    }
    if (read_meta(r, base, q->graph, m) != 0) {
        sc_graph_meta_free(m);
        return;
    }
    q->meta = m;
}

/* ---- list pages ---- */

static sqlite3_stmt *list_stmt(sqlite_reader *r, sc_store_read *q, sqlite3_stmt **slot,
                               void (*build)(int, char *, size_t), int variant)
{
    if (*slot)
        return *slot;
    char sql[STORE_LIST_SQL_MAX];
    build(variant, sql, sizeof sql);
    if (sql_prepare(r->db, sql, slot) != SQLITE_OK) {
        fail_db(r, q);
        sqlite3_finalize(*slot);
        *slot = NULL;
    }
    return *slot;
}

/* Make room for one more element of `size` bytes in *arr (`count` used,
 * *cap allocated; never more than `max`).  False when out of memory. */
static bool grow(void **arr, size_t count, size_t *cap, size_t max, size_t size)
{
    if (count < *cap)
        return true;
    size_t want = *cap ? *cap * 2 : 64;
    if (want > max)
        want = max;
    void *p = realloc(*arr, want * size);
    if (!p)
        return false;
    *arr = p;
    *cap = want;
    return true;
}

/*
 * Step through up to limit + 1 rows: the extra one only tells that more
 * exist.  `take` appends the current row to the job's page (0 or the store
 * code it set).  Returns 0 with *more set, or the store code set in q.
 */
static int read_page(sqlite_reader *r, sc_store_read *q, sqlite3_stmt *s, uint32_t limit,
                     int (*take)(sc_store_read *q, sqlite3_stmt *s), bool *more)
{
    int sqlrc, ret = 0;
    uint32_t taken = 0;
    *more = false;
    while (ret == 0 && (sqlrc = sql_next_row(r, q, s)) == SQLITE_ROW) {
        if (taken == limit) {
            *more = true;
            break;
        }
        ret = take(q, s);
        taken++;
    }
    if (ret == 0 && !*more && sqlrc != SQLITE_DONE)
        ret = q->rc;
    sqlite3_reset(s);
    return ret;
}

static int take_graph(sc_store_read *base, sqlite3_stmt *s)
{
    sc_store_read *q = base;
    sc_graph_page *p = q->graph_page;
    if (!grow((void **)&p->graphs, p->count, &q->scratch, q->graphs.limit, sizeof *p->graphs))
        return fail_nomem(base);
    int rc = row_to_meta(base, s, &p->graphs[p->count]);
    if (rc != 0)
        return rc;
    p->count++;
    return 0;
}

static void graphs_run(sqlite_reader *r, sc_store_read *base)
{
    sc_store_read *q = base;
    const sc_graph_query *gq = &q->graphs;
    int variant = (gq->any_owner ? 0 : STORE_GRAPHS_BY_OWNER) |
                  (gq->label ? STORE_GRAPHS_BY_LABEL : 0) | (gq->host ? STORE_GRAPHS_BY_HOST : 0) |
                  (gq->by_fingerprint ? STORE_GRAPHS_BY_FP : 0);
    sqlite3_stmt *s = list_stmt(r, base, &r->graphs[variant], store_graphs_sql, variant);
    if (!s)
        return;
    if (!(q->graph_page = calloc(1, sizeof *q->graph_page))) {
        fail_nomem(base);
        return;
    }
    sqlite3_bind_int64(s, 1, gq->before_graph > 0 ? gq->before_graph : INT64_MAX);
    if (variant & STORE_GRAPHS_BY_OWNER)
        sqlite3_bind_int64(s, 2, gq->uid);
    if (variant & STORE_GRAPHS_BY_LABEL)
        sqlite3_bind_text64(s, 3, gq->label, gq->label_len, SQLITE_STATIC, SQLITE_UTF8);
    /* One more than asked, to learn whether another page exists. */
    sqlite3_bind_int64(s, 4, (sqlite3_int64)gq->limit + 1);
    if (gq->host)
        sqlite3_bind_text64(s, 5, gq->host, gq->host_len, SQLITE_STATIC, SQLITE_UTF8);
    if (gq->nested || gq->parent)
        sqlite3_bind_int64(s, 6, 1);
    if (gq->parent)
        sqlite3_bind_int64(s, 7, gq->parent);
    char hex[SC_FINGERPRINT_HEX];
    if (gq->by_fingerprint) {
        sc_fingerprint_hex(gq->fingerprint, hex);
        sqlite3_bind_text(s, 8, hex, 16, SQLITE_STATIC);
    }
    bool more;
    int rc = read_page(r, base, s, gq->limit, take_graph, &more);
    sqlite3_clear_bindings(s);
    if (rc != 0)
        return;
    sc_graph_page *p = q->graph_page;
    p->has_more = more && p->count > 0;
    if (p->has_more)
        p->next_before = p->graphs[p->count - 1].graph;
}

static int bad_log_row(sc_store_read *q, int64_t session)
{
    char msg[96];
    snprintf(msg, sizeof msg, "capture log row %lld is malformed", (long long)session);
    return set_err(q, SC_STORE_EIO, msg);
}

/* Copy a text column into a fixed buffer, made valid UTF-8 like
 * dup_column's; false when absent or too long. */
static bool text_into(sqlite3_stmt *s, int col, char *buf, size_t cap)
{
    const char *t = (const char *)sqlite3_column_text(s, col);
    size_t n = (size_t)sqlite3_column_bytes(s, col);
    if (!t || n >= cap)
        return false;
    if (sc_utf8_valid(t, n)) {
        memcpy(buf, t, n + 1);
        return true;
    }
    char tmp[3 * 64];
    if (3 * n > sizeof tmp)
        return false;
    n = sc_utf8_scrub(t, n, tmp);
    if (n >= cap)
        return false;
    memcpy(buf, tmp, n);
    buf[n] = '\0';
    return true;
}

static int take_log(sc_store_read *base, sqlite3_stmt *s)
{
    sc_store_read *q = base;
    sc_log_page *p = q->log_page;
    if (!grow((void **)&p->entries, p->count, &q->scratch, q->log.limit, sizeof *p->entries))
        return fail_nomem(base);
    sc_log_entry *e = &p->entries[p->count];
    memset(e, 0, sizeof *e);
    e->session = sqlite3_column_int64(s, 0);
    e->owner_uid = col_u32(s, 2);
    e->owner_pid = sqlite3_column_int64(s, 3);
    e->node_count = col_u32(s, 7);
    e->graph = sqlite3_column_int64(s, 8); /* NULL reads as 0 */
    bool outcome = text_into(s, 6, e->outcome, sizeof e->outcome);
    int ended = time_column(s, 5, true, &e->ended_ms);
    int deleted = time_column(s, 9, true, &e->graph_deleted_ms);
    if (time_column(s, 4, false, &e->opened_ms) != 0 || ended < 0 || deleted < 0 || !outcome)
        return bad_log_row(base, e->session);
    e->has_ended = ended == 0;
    e->graph_deleted = deleted == 0;
    const char *sem = (const char *)sqlite3_column_text(s, 10);
    e->cuda = sem && strcmp(sem, "cuda") == 0;
    size_t host_len;
    if (!(e->label = dup_column(s, 1, &e->label_len)))
        return fail_nomem(base);
    if (!(e->host = dup_column(s, 11, &host_len))) {
        free(e->label);
        return fail_nomem(base);
    }
    p->count++;
    return 0;
}

/* One captures row into *c: 0 or the store code set in q. */
static int row_to_capture(sc_store_read *q, sqlite3_stmt *s, int64_t session, sc_log_capture *c)
{
    memset(c, 0, sizeof *c);
    c->capture = col_u32(s, 0);
    c->origin = col_u32(s, 1);
    c->thread = col_u32(s, 3);
    c->cuda_error = (int)sqlite3_column_int64(s, 5);
    c->node_count = col_u32(s, 6);
    c->graph = sqlite3_column_int64(s, 8);
    int deleted = time_column(s, 9, true, &c->graph_deleted_ms);
    if (!text_into(s, 2, c->mode, sizeof c->mode) ||
        !text_into(s, 4, c->outcome, sizeof c->outcome) ||
        time_column(s, 7, false, &c->ended_ms) != 0 || deleted < 0)
        return bad_log_row(q, session);
    c->graph_deleted = deleted == 0;
    c->invalidated = sqlite3_column_type(s, 10) != SQLITE_NULL;
    if (!c->invalidated)
        return 0;
    if (!text_into(s, 10, c->inv_method, sizeof c->inv_method))
        return bad_log_row(q, session);
    c->inv_stream = col_u32(s, 11);
    c->inv_has_event = sqlite3_column_type(s, 12) != SQLITE_NULL;
    c->inv_event = col_u32(s, 12);
    c->inv_thread = col_u32(s, 13);
    c->inv_error = (int)sqlite3_column_int64(s, 15);
    if (sqlite3_column_type(s, 14) != SQLITE_NULL) {
        size_t len;
        if (!(c->inv_call = dup_column(s, 14, &len)))
            return fail_nomem(q);
    }
    return 0;
}

/* The captures rows of every cuda-mode session of the page. */
static int read_captures(sqlite_reader *r, sc_store_read *base, sc_log_page *p)
{
    sqlite3_stmt *s = r->captures;
    for (size_t i = 0; i < p->count; i++) {
        sc_log_entry *e = &p->entries[i];
        if (!e->cuda)
            continue;
        sqlite3_bind_int64(s, 1, e->session);
        size_t cap = 0;
        int sqlrc, rc = 0;
        while (rc == 0 && (sqlrc = sqlite3_step(s)) == SQLITE_ROW) {
            if (!grow((void **)&e->captures, e->ncaptures, &cap, UINT32_MAX, sizeof *e->captures))
                rc = fail_nomem(base);
            else if ((rc = row_to_capture(base, s, e->session, &e->captures[e->ncaptures])) == 0)
                e->ncaptures++;
            else
                free(e->captures[e->ncaptures].inv_call);
        }
        if (rc == 0 && sqlrc != SQLITE_DONE)
            rc = fail_db(r, base);
        sqlite3_reset(s);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static void log_run(sqlite_reader *r, sc_store_read *base)
{
    sc_store_read *q = base;
    const sc_log_query *lq = &q->log;
    int variant = (lq->has_before ? STORE_LOG_CURSOR : 0) |
                  (lq->any_owner ? 0 : STORE_LOG_BY_OWNER) |
                  (lq->outcome ? STORE_LOG_BY_OUTCOME : 0) | (lq->host ? STORE_LOG_BY_HOST : 0);
    sqlite3_stmt *s = list_stmt(r, base, &r->log[variant], store_log_sql, variant);
    if (!s)
        return;
    if (!(q->log_page = calloc(1, sizeof *q->log_page))) {
        fail_nomem(base);
        return;
    }
    if (variant & STORE_LOG_CURSOR) {
        char t[STORE_TIME_BUF];
        store_time_format(lq->before_opened_ms, t);
        sqlite3_bind_text(s, 1, t, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(s, 2, lq->before_session);
    }
    if (variant & STORE_LOG_BY_OWNER)
        sqlite3_bind_int64(s, 3, lq->uid);
    if (variant & STORE_LOG_BY_OUTCOME)
        sqlite3_bind_text(s, 4, lq->outcome, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 5, (sqlite3_int64)lq->limit + 1);
    if (lq->host)
        sqlite3_bind_text64(s, 6, lq->host, lq->host_len, SQLITE_STATIC, SQLITE_UTF8);
    bool more;
    int rc = read_page(r, base, s, lq->limit, take_log, &more);
    sqlite3_clear_bindings(s);
    if (rc != 0 || read_captures(r, base, q->log_page) != 0)
        return;
    sc_log_page *p = q->log_page;
    p->has_more = more && p->count > 0;
    if (p->has_more) {
        p->next_opened_ms = p->entries[p->count - 1].opened_ms;
        p->next_session = p->entries[p->count - 1].session;
    }
}

int store_sqlite_reader_open(sc_store_be *be, void **reader, char *err, size_t errlen)
{
    int fail = SC_STORE_EIO;
    return (*reader = reader_open(be, &fail, err, errlen)) != NULL ? 0 : fail;
}

void store_sqlite_reader_close(void *reader)
{
    reader_close(reader);
}

void store_sqlite_read(void *reader, sc_store_read *q)
{
    switch (q->kind) {
    case SC_STORE_READ_LOAD:
    case SC_STORE_READ_SKELETON:
        load_run(reader, q);
        return;
    case SC_STORE_READ_META:
        meta_run(reader, q);
        return;
    case SC_STORE_READ_GRAPHS:
        graphs_run(reader, q);
        return;
    case SC_STORE_READ_LOG:
        log_run(reader, q);
        return;
    case SC_STORE_READ_BACKUP:
        store_sqlite_backup(((sqlite_reader *)reader)->db, q);
        return;
    case SC_STORE_READ_PRUNE:
        store_sqlite_plan(((sqlite_reader *)reader)->db, q);
        return;
    } /* every kind is a case: -Wswitch holds it so */
}
