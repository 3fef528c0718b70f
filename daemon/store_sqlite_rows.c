/*
 * store_rows.c - a sealed graph's node_rows (schema/005_packed_rows.sql:
 * a node with its attributes and successors as JSON arrays) as a
 * table-valued function on the writer connection, so that storing a
 * graph is one INSERT ... SELECT instead of one statement run per row.
 *
 * A statement run per row pays for binding every column, opening a b-tree
 * cursor, seeking from the root and halting; one INSERT ... SELECT keeps
 * its cursor on the last leaf, and as rows arrive in key order every
 * insert is an append.  The graph is passed with sqlite3_bind_pointer(),
 * so SQL text can never make the functions read arbitrary memory.
 *
 * The function is eponymous-only: it exists on the writer connection
 * alone and leave nothing in the database file.
 */
#include <string.h>

#include "store_sqlite.h"

enum { NODE_ID, NODE_KIND, NODE_STREAM, NODE_NAME, NODE_ATTRS, NODE_SUCC, NODE_GRAPH };

/* Longest attrs text: 13 values of at most 20 digits or a direction word. */
#define ATTRS_MAX 320

typedef struct rows_cursor {
    sqlite3_vtab_cursor base;
    const sc_graph *g;
    uint64_t i, n; /* row i is node i, up to n */
    sc_node node;
    const uint32_t *succ; /* node i's successors, ascending */
    uint32_t nsucc;
    char *text; /* the succ column's text, grown as needed */
    size_t cap;
    char attrs[ATTRS_MAX];
} rows_cursor;

static int rows_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                        sqlite3_vtab **out, char **err)
{
    (void)argc;
    (void)argv;
    (void)err;
    (void)aux;
    int rc = sqlite3_declare_vtab(
        db, "CREATE TABLE x(id, kind, stream, name, attrs, succ, graph HIDDEN)");
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_vtab *v = sqlite3_malloc(sizeof *v);
    if (!v)
        return SQLITE_NOMEM;
    memset(v, 0, sizeof *v);
    *out = v;
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
    (void)vt;
    int hidden = NODE_GRAPH;
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
        /* Rows come out in key order: ids ascending. */
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
    sqlite3_free(((rows_cursor *)cur)->text);
    sqlite3_free(cur);
    return SQLITE_OK;
}

/* Make row c->i current: SQLITE_OK, or SQLITE_INTERNAL (which stops the
 * statement) when the graph model fails. */
static int load_row(rows_cursor *c)
{
    if (c->i >= c->n)
        return SQLITE_OK;
    uint32_t id = (uint32_t)c->i;
    if (sc_graph_node(c->g, id, &c->node) == 0 &&
        sc_graph_successors(c->g, id, &c->succ, &c->nsucc) == 0)
        return SQLITE_OK;
    sqlite3_free(c->base.pVtab->zErrMsg);
    c->base.pVtab->zErrMsg = sqlite3_mprintf("graph node %u could not be read", id);
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
    c->n = r.g ? r.hi : 0;
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
    return c->i >= c->n;
}

static int rows_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
    *rowid = (sqlite3_int64)((rows_cursor *)cur)->i;
    return SQLITE_OK;
}

/* Appends "v," to p; returns the new end. */
static char *put_u64(char *p, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    *p++ = ',';
    return p;
}

/*
 * The attrs column: the node's attribute values as a JSON array in the
 * order of schema/005_packed_rows.sql (num_blocks, threads_per_block,
 * shared_mem, dir, size_bytes, src_device, dst_device, value, grid_y,
 * grid_z, block_y, block_z, event), null where a value does not belong to
 * the node's kind, trailing nulls left out; its length, 0 for none (the
 * column is then NULL).
 */
static size_t attrs_text(const sc_node *n, char *out)
{
    bool kernel = n->kind == SC_KIND_KERNEL, memcpy_ = n->kind == SC_KIND_MEMCPY;
    bool p2p = memcpy_ && n->dir == SC_DIR_PEER_TO_PEER;
    /* A 1-D launch keeps NULL extents, as every version-1 row has. */
    bool shaped = kernel && (n->grid_y > 1 || n->grid_z > 1 || n->block_y > 1 || n->block_z > 1);
    bool event = n->kind == (sc_node_kind)SC_KIND_EVENT_RECORD ||
                 n->kind == (sc_node_kind)SC_KIND_EVENT_WAIT;
    bool sized = memcpy_ || n->kind == SC_KIND_MEMSET || n->kind == (sc_node_kind)SC_KIND_MEM_ALLOC;
    char *p = out;
    *p++ = '[';
    /* Each slot is written as "v," or "null,"; end marks the last value. */
    char *end = p;
#define SLOT(cond, v)                                                                              \
    do {                                                                                           \
        if (cond) {                                                                                \
            p = put_u64(p, (uint64_t)(v));                                                         \
            end = p;                                                                               \
        } else {                                                                                   \
            memcpy(p, "null,", 5);                                                                 \
            p += 5;                                                                                \
        }                                                                                          \
    } while (0)
    SLOT(kernel, n->num_blocks);
    SLOT(kernel, n->threads_per_block);
    SLOT(kernel, n->shared_mem);
    if (memcpy_) {
        const char *d = sc_cuda_dir_name((int)n->dir);
        size_t len = strlen(d);
        *p++ = '"';
        memcpy(p, d, len);
        p += len;
        *p++ = '"';
        *p++ = ',';
        end = p;
    } else {
        memcpy(p, "null,", 5);
        p += 5;
    }
    SLOT(sized, n->size_bytes);
    SLOT(p2p, n->src_device);
    SLOT(p2p, n->dst_device);
    SLOT(n->kind == SC_KIND_MEMSET, n->value);
    SLOT(shaped, n->grid_y);
    SLOT(shaped, n->grid_z);
    SLOT(shaped, n->block_y);
    SLOT(shaped, n->block_z);
    SLOT(event, n->event);
#undef SLOT
    if (end == out + 1)
        return 0;
    end[-1] = ']';
    return (size_t)(end - out);
}

/* The succ column: the node's successors as a JSON array, ascending; NULL
 * when it has none. */
static int succ_column(rows_cursor *c, sqlite3_context *ctx)
{
    if (c->nsucc == 0)
        return SQLITE_OK;
    size_t need = 2 + (size_t)c->nsucc * 11u;
    if (need > c->cap) {
        char *t = sqlite3_realloc64(c->text, need);
        if (!t)
            return SQLITE_NOMEM;
        c->text = t;
        c->cap = need;
    }
    char *p = c->text;
    *p++ = '[';
    for (uint32_t k = 0; k < c->nsucc; k++)
        p = put_u64(p, c->succ[k]);
    p[-1] = ']';
    sqlite3_result_text64(ctx, c->text, (sqlite3_uint64)(p - c->text), SQLITE_STATIC, SQLITE_UTF8);
    return SQLITE_OK;
}

static int rows_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    rows_cursor *c = (rows_cursor *)cur;
    const sc_node *n = &c->node;
    switch (col) {
    case NODE_ID:
        sqlite3_result_int64(ctx, (sqlite3_int64)c->i);
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
    case NODE_ATTRS: {
        size_t len = attrs_text(n, c->attrs);
        if (len)
            sqlite3_result_text64(ctx, c->attrs, len, SQLITE_STATIC, SQLITE_UTF8);
        break;
    }
    case NODE_SUCC:
        return succ_column(c, ctx);
    default:
        break;
    }
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
    return sqlite3_create_module_v2(db, "sc_node_rows", &rows_module, NULL, NULL);
}
