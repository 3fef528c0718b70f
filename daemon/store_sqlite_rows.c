/*
 * store_rows.c - a sealed graph's nodes and edges as table-valued
 * functions on the writer connection, so that storing a graph is one
 * INSERT ... SELECT per table instead of one statement run per row.
 *
 * A statement run per row pays for binding every column, opening a b-tree
 * cursor, seeking from the root and halting; one INSERT ... SELECT keeps
 * its cursor on the last leaf, and as rows arrive in key order every
 * insert is an append.  The graph is passed with sqlite3_bind_pointer(),
 * so SQL text can never make the functions read arbitrary memory.
 *
 * The functions are eponymous-only: they exist on the writer connection
 * alone and leave nothing in the database file.
 */
#include <string.h>

#include "store_sqlite.h"

enum {
    NODE_ID,
    NODE_KIND,
    NODE_STREAM,
    NODE_NAME,
    NODE_BLOCKS,
    NODE_THREADS,
    NODE_SHMEM,
    NODE_DIR,
    NODE_SIZE,
    NODE_SRC_DEV,
    NODE_DST_DEV,
    NODE_VALUE,
    NODE_GRID_Y,
    NODE_GRID_Z,
    NODE_BLOCK_Y,
    NODE_BLOCK_Z,
    NODE_EVENT,
    NODE_GRAPH
};
enum { EDGE_SRC, EDGE_DST, EDGE_GRAPH };

typedef struct rows_vtab {
    sqlite3_vtab base;
    bool edges; /* sc_edge_rows, else sc_node_rows */
} rows_vtab;

typedef struct rows_cursor {
    sqlite3_vtab_cursor base;
    const sc_graph *g;
    uint64_t i, n; /* sc_node_rows: row i is node i, up to n */
    sc_node node;
    /* Row i of sc_edge_rows is edge k of node src, whose successors are
     * succ[0 .. nsucc); the rows end at the edges of node hi. */
    uint32_t src, k, nsucc, hi;
    bool done;
    const uint32_t *succ;
} rows_cursor;

static int rows_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                        sqlite3_vtab **out, char **err)
{
    (void)argc;
    (void)argv;
    (void)err;
    bool edges = aux != NULL;
    int rc = sqlite3_declare_vtab(
        db, edges ? "CREATE TABLE x(src, dst, graph HIDDEN)"
                  : "CREATE TABLE x(id, kind, stream, name, num_blocks, threads_per_block,"
                    " shared_mem, dir, size_bytes, src_device, dst_device, value, grid_y,"
                    " grid_z, block_y, block_z, event, graph HIDDEN)");
    if (rc != SQLITE_OK)
        return rc;
    rows_vtab *v = sqlite3_malloc(sizeof *v);
    if (!v)
        return SQLITE_NOMEM;
    memset(v, 0, sizeof *v);
    v->edges = edges;
    *out = &v->base;
    return SQLITE_OK;
}

static int rows_disconnect(sqlite3_vtab *v)
{
    sqlite3_free(v);
    return SQLITE_OK;
}

/* The hidden graph argument is required: without it there are no rows. */
static int rows_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
    int hidden = ((rows_vtab *)vt)->edges ? EDGE_GRAPH : NODE_GRAPH;
    for (int i = 0; i < info->nConstraint; i++) {
        const struct sqlite3_index_constraint *c = &info->aConstraint[i];
        if (c->iColumn != hidden || c->op != SQLITE_INDEX_CONSTRAINT_EQ)
            continue;
        if (!c->usable)
            return SQLITE_CONSTRAINT;
        info->aConstraintUsage[i].argvIndex = 1;
        info->aConstraintUsage[i].omit = 1;
        info->estimatedCost = 1;
        info->idxNum = 1;
        /* Rows come out in key order: ids ascending, edges by (src, dst). */
        if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn == 0 && !info->aOrderBy[0].desc)
            info->orderByConsumed = 1;
        return SQLITE_OK;
    }
    return SQLITE_CONSTRAINT;
}

static int rows_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
    (void)vt;
    rows_cursor *c = sqlite3_malloc(sizeof *c);
    if (!c)
        return SQLITE_NOMEM;
    memset(c, 0, sizeof *c);
    *out = &c->base;
    return SQLITE_OK;
}

static int rows_close(sqlite3_vtab_cursor *cur)
{
    sqlite3_free(cur);
    return SQLITE_OK;
}

static bool is_edges(const rows_cursor *c)
{
    return ((const rows_vtab *)c->base.pVtab)->edges;
}

/* Step to the next node with successors below hi; edges are enumerated
 * per node because sc_graph_edge() would search for the source of every
 * edge.  0 or the graph model's SC_E* code (load_row turns it into
 * SQLite's). */
static int next_edge(rows_cursor *c)
{
    if (++c->k < c->nsucc)
        return 0;
    c->k = 0;
    c->nsucc = 0;
    while (c->nsucc == 0) {
        uint32_t src = c->src + 1u;
        if (src >= c->hi) {
            c->done = true;
            return 0;
        }
        c->src = src;
        int rc = sc_graph_successors(c->g, src, &c->succ, &c->nsucc);
        if (rc)
            return rc;
    }
    return 0;
}

/* Make row c->i current: SQLITE_OK, or SQLITE_INTERNAL (which stops the
 * statement) when the graph model fails. */
static int load_row(rows_cursor *c)
{
    int core_rc;
    if (is_edges(c))
        core_rc = c->done ? 0 : next_edge(c);
    else
        core_rc = c->i >= c->n ? 0 : sc_graph_node(c->g, (uint32_t)c->i, &c->node);
    if (core_rc == 0)
        return SQLITE_OK;
    sqlite3_free(c->base.pVtab->zErrMsg);
    c->base.pVtab->zErrMsg =
        sqlite3_mprintf("graph %s could not be read", is_edges(c) ? "edge" : "node");
    return SQLITE_INTERNAL;
}

/* The whole graph (STORE_GRAPH_PTR) or a range of it (STORE_RANGE_PTR). */
static void filter_range(sqlite3_value *v, store_rows_range *r)
{
    r->g = sqlite3_value_pointer(v, STORE_GRAPH_PTR);
    if (r->g) {
        r->lo = 0;
        r->hi = sc_graph_node_count(r->g);
        return;
    }
    const store_rows_range *part = sqlite3_value_pointer(v, STORE_RANGE_PTR);
    if (part && part->g && part->lo <= part->hi && part->hi <= sc_graph_node_count(part->g))
        *r = *part;
    else
        *r = (store_rows_range){0};
}

static int rows_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx_str, int argc,
                       sqlite3_value **argv)
{
    (void)idx_str;
    rows_cursor *c = (rows_cursor *)cur;
    store_rows_range r = {0};
    if (idx_num == 1 && argc == 1)
        filter_range(argv[0], &r);
    c->g = r.g;
    c->i = r.lo;
    c->n = r.hi;
    /* next_edge() starts at node lo. */
    c->src = r.lo - 1u;
    c->hi = r.hi;
    c->k = c->nsucc = 0;
    c->done = !r.g;
    if (is_edges(c))
        c->i = 0;
    return load_row(c);
}

static int rows_next(sqlite3_vtab_cursor *cur)
{
    rows_cursor *c = (rows_cursor *)cur;
    c->i++;
    return load_row(c);
}

static int rows_eof(sqlite3_vtab_cursor *cur)
{
    const rows_cursor *c = (const rows_cursor *)cur;
    return is_edges(c) ? c->done : c->i >= c->n;
}

static int rows_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
    *rowid = (sqlite3_int64)((rows_cursor *)cur)->i;
    return SQLITE_OK;
}

/* Columns that do not belong to the node's kind stay NULL. */
static void node_column(const sc_node *n, uint32_t id, sqlite3_context *ctx, int col)
{
    bool kernel = n->kind == SC_KIND_KERNEL, memcpy_ = n->kind == SC_KIND_MEMCPY;
    bool p2p = memcpy_ && n->dir == SC_DIR_PEER_TO_PEER;
    /* A 1-D launch keeps NULL extents, as every version-1 row has. */
    bool shaped = kernel && (n->grid_y > 1 || n->grid_z > 1 || n->block_y > 1 || n->block_z > 1);
    bool event = n->kind == (sc_node_kind)SC_KIND_EVENT_RECORD ||
                 n->kind == (sc_node_kind)SC_KIND_EVENT_WAIT;
    switch (col) {
    case NODE_ID:
        sqlite3_result_int64(ctx, id);
        break;
    case NODE_KIND:
        sqlite3_result_text(ctx, sc_cuda_kind_name((int)n->kind), -1, SQLITE_STATIC);
        break;
    case NODE_STREAM:
        sqlite3_result_int64(ctx, n->stream);
        break;
    case NODE_NAME:
        sqlite3_result_text64(ctx, n->name ? n->name : "", n->name ? n->name_len : 0, SQLITE_STATIC,
                              SQLITE_UTF8);
        break;
    case NODE_BLOCKS:
        if (kernel)
            sqlite3_result_int64(ctx, n->num_blocks);
        break;
    case NODE_THREADS:
        if (kernel)
            sqlite3_result_int64(ctx, n->threads_per_block);
        break;
    case NODE_SHMEM:
        if (kernel)
            sqlite3_result_int64(ctx, n->shared_mem);
        break;
    case NODE_DIR:
        if (memcpy_)
            sqlite3_result_text(ctx, sc_cuda_dir_name((int)n->dir), -1, SQLITE_STATIC);
        break;
    case NODE_SIZE:
        if (memcpy_ || n->kind == SC_KIND_MEMSET || n->kind == (sc_node_kind)SC_KIND_MEM_ALLOC)
            sqlite3_result_int64(ctx, (sqlite3_int64)n->size_bytes);
        break;
    case NODE_SRC_DEV:
        if (p2p)
            sqlite3_result_int64(ctx, n->src_device);
        break;
    case NODE_DST_DEV:
        if (p2p)
            sqlite3_result_int64(ctx, n->dst_device);
        break;
    case NODE_VALUE:
        if (n->kind == SC_KIND_MEMSET)
            sqlite3_result_int64(ctx, n->value);
        break;
    case NODE_GRID_Y:
        if (shaped)
            sqlite3_result_int64(ctx, n->grid_y);
        break;
    case NODE_GRID_Z:
        if (shaped)
            sqlite3_result_int64(ctx, n->grid_z);
        break;
    case NODE_BLOCK_Y:
        if (shaped)
            sqlite3_result_int64(ctx, n->block_y);
        break;
    case NODE_BLOCK_Z:
        if (shaped)
            sqlite3_result_int64(ctx, n->block_z);
        break;
    case NODE_EVENT:
        if (event)
            sqlite3_result_int64(ctx, n->event);
        break;
    default:
        break;
    }
}

static int rows_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    const rows_cursor *c = (const rows_cursor *)cur;
    if (!is_edges(c))
        node_column(&c->node, (uint32_t)c->i, ctx, col);
    else if (col == EDGE_SRC)
        sqlite3_result_int64(ctx, c->src);
    else if (col == EDGE_DST)
        sqlite3_result_int64(ctx, c->succ[c->k]);
    return SQLITE_OK;
}

static const sqlite3_module rows_module = {
    .iVersion = 0,
    .xConnect = rows_connect,
    .xBestIndex = rows_best_index,
    .xDisconnect = rows_disconnect,
    .xOpen = rows_open,
    .xClose = rows_close,
    .xFilter = rows_filter,
    .xNext = rows_next,
    .xEof = rows_eof,
    .xColumn = rows_column,
    .xRowid = rows_rowid,
};

int store_rows_register(sqlite3 *db)
{
    static const char edges_tag = 1;
    int rc = sqlite3_create_module_v2(db, "sc_node_rows", &rows_module, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_create_module_v2(db, "sc_edge_rows", &rows_module, (void *)&edges_tag, NULL);
    return rc;
}
