/*
 * store_sqlite_rows.c - the node_chunks rows of a sealed graph, or of a
 * part of a capture still recording (schema/006_node_chunks.sql: runs of
 * consecutive nodes, each run one JSON text), as a table-valued function on
 * the writer connection, so that storing them is one INSERT ... SELECT of
 * a few rows per page.
 *
 * SQLite's cost is per row, whatever the row holds: binding, the record,
 * the primary-key probe of a WITHOUT ROWID insert, the b-tree append.
 * Version 5 paid it once per node; a chunk pays it once per run of nodes
 * that fills about a quarter of a page, the most an index b-tree keeps on
 * its leaf without spilling to an overflow page.  What remains per node is
 * formatting its text, which the rows needed as well.
 *
 * The graph is passed with sqlite3_bind_pointer(), so SQL text can never
 * make the function read arbitrary memory.  The function is eponymous-only:
 * it exists on the writer connection alone and leaves nothing in the
 * database file.
 */
#include <string.h>

#include "store_sqlite.h"
#include "sc_kargs.h"
#include "store_access.h"

enum { CHUNK_LO, CHUNK_NODES, CHUNK_GRAPH };

/*
 * The most bytes of a chunk's text, brackets included, unless its one node
 * needs more.  An index b-tree leaf of a 4,096-byte page holds a payload
 * of up to 1,002 bytes before spilling; the record adds the key and a
 * header.
 */
#define CHUNK_TEXT_MAX 960

/* Longest attrs text: 13 values of at most 20 digits or a direction word. */
#define ATTRS_MAX 320

typedef struct chunk_cursor {
    sqlite3_vtab_cursor base;
    store_rows_range src; /* lo and hi unused: next and hi below */
    uint32_t next, hi;    /* the first node not yet in a chunk; the end */
    uint32_t lo;          /* the current chunk's first node */
    bool eof;
    char *text; /* the current chunk, then the node that did not fit */
    size_t len, cap;
    size_t carry_off, carry_len; /* where that node's text is, and its length */
    uint32_t *preds;             /* a sealed graph's node's predecessors */
    uint32_t preds_cap;
} chunk_cursor;

static int chunks_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                          sqlite3_vtab **out, char **err)
{
    (void)argc;
    (void)argv;
    (void)err;
    (void)aux;
    int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(lo, nodes, graph HIDDEN)");
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_vtab *v = sqlite3_malloc(sizeof *v);
    if (!v)
        return SQLITE_NOMEM;
    memset(v, 0, sizeof *v);
    *out = v;
    return SQLITE_OK;
}

static int chunks_disconnect(sqlite3_vtab *v)
{
    sqlite3_free(v);
    return SQLITE_OK;
}

/* The hidden graph argument is required: without it there are no rows. */
static int chunks_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
    (void)vt;
    for (int i = 0; i < info->nConstraint; i++) {
        const struct sqlite3_index_constraint *c = &info->aConstraint[i];
        if (c->iColumn != CHUNK_GRAPH || c->op != SQLITE_INDEX_CONSTRAINT_EQ)
            continue;
        if (!c->usable)
            return SQLITE_CONSTRAINT;
        info->aConstraintUsage[i].argvIndex = 1;
        info->aConstraintUsage[i].omit = 1;
        info->estimatedCost = 1;
        info->idxNum = 1;
        /* Rows come out in key order: lo ascending. */
        if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn == CHUNK_LO && !info->aOrderBy[0].desc)
            info->orderByConsumed = 1;
        return SQLITE_OK;
    }
    return SQLITE_CONSTRAINT;
}

static int chunks_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
    (void)vt;
    chunk_cursor *c = sqlite3_malloc(sizeof *c);
    if (!c)
        return SQLITE_NOMEM;
    memset(c, 0, sizeof *c);
    *out = &c->base;
    return SQLITE_OK;
}

static int chunks_close(sqlite3_vtab_cursor *cur)
{
    sqlite3_free(((chunk_cursor *)cur)->text);
    sqlite3_free(((chunk_cursor *)cur)->preds);
    sqlite3_free(cur);
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

/* A kernel's arguments as two attrs slots: "hex", [sizes], (with commas). */
static char *args_text(const sc_node *n, char *p)
{
    *p++ = '"';
    sc_kargs_hex(n->args, n->args_len, p);
    p += 2 * (size_t)n->args_len;
    *p++ = '"';
    *p++ = ',';
    *p++ = '[';
    for (uint32_t i = 0; i < n->nparams; i++)
        p = put_u64(p, n->param_sizes[i]);
    p[-1] = ']';
    *p++ = ',';
    return p;
}

/* A conditional's four slots after two null argument slots: "type",
 * size, default value, flags, (with commas). */
static char *cond_text(const sc_node *n, char *p)
{
    const char *type = sc_cond_type_name((int)n->cond_type);
    size_t len = strlen(type ? type : "if");
    memcpy(p, "null,null,\"", 11);
    p += 11;
    memcpy(p, type ? type : "if", len);
    p += len;
    *p++ = '"';
    *p++ = ',';
    p = put_u64(p, n->cond_size);
    p = put_u64(p, n->cond_default);
    return put_u64(p, n->cond_flags);
}

/*
 * The attrs column: the node's attribute values as a JSON array in the
 * order of schema/005_packed_rows.sql (num_blocks, threads_per_block,
 * shared_mem, dir, size_bytes, src_device, dst_device, value, grid_y,
 * grid_z, block_y, block_z, event), schema/010_kernel_args.sql (args,
 * param_sizes) and schema/011_conditional.sql (cond_type, cond_size,
 * cond_default, cond_flags), null where a value does not belong to
 * the node's kind, trailing nulls left out; its length, 0 for none (the
 * column is then NULL).
 */
static size_t attrs_text(const sc_node *n, char *out)
{
    unsigned has = sc_node_attrs(n);
    bool kernel = has & SC_NODE_ATTR_LAUNCH, memcpy_ = has & SC_NODE_ATTR_DIR;
    bool p2p = has & SC_NODE_ATTR_DEVICES, sized = has & SC_NODE_ATTR_SIZE;
    /* A 1-D launch keeps NULL extents, as every version-1 row has. */
    bool shaped = has & SC_NODE_ATTR_SHAPE, event = has & SC_NODE_ATTR_EVENT;
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
    SLOT(has & SC_NODE_ATTR_VALUE, n->value);
    SLOT(shaped, n->grid_y);
    SLOT(shaped, n->grid_z);
    SLOT(shaped, n->block_y);
    SLOT(shaped, n->block_z);
    SLOT(event, n->event);
#undef SLOT
    if (has & SC_NODE_ATTR_ARGS)
        end = p = args_text(n, p);
    if (has & SC_NODE_ATTR_COND)
        end = p = cond_text(n, p);
    if (end == out + 1)
        return 0;
    end[-1] = ']';
    return (size_t)(end - out);
}

/* Room for `more` bytes past c->len: SQLITE_OK or SQLITE_NOMEM. */
static int text_reserve(chunk_cursor *c, size_t more)
{
    if (c->cap - c->len >= more)
        return SQLITE_OK;
    size_t cap = c->cap ? c->cap : 2 * CHUNK_TEXT_MAX;
    while (cap - c->len < more)
        cap *= 2;
    char *t = sqlite3_realloc64(c->text, cap);
    if (!t)
        return SQLITE_NOMEM;
    c->text = t;
    c->cap = cap;
    return SQLITE_OK;
}

/* The name as a JSON string: the escapes of sc_json_string, and \u0000
 * for the NUL bytes a name may hold.  Returns the new end. */
static char *put_name(char *p, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    *p++ = '"';
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch >= 0x20 && ch != '"' && ch != '\\') {
            *p++ = (char)ch;
            continue;
        }
        *p++ = '\\';
        switch (ch) {
        case '"':
        case '\\':
            *p++ = (char)ch;
            break;
        case '\b':
            *p++ = 'b';
            break;
        case '\t':
            *p++ = 't';
            break;
        case '\n':
            *p++ = 'n';
            break;
        case '\f':
            *p++ = 'f';
            break;
        case '\r':
            *p++ = 'r';
            break;
        default:
            memcpy(p, "u00", 3);
            p[3] = hex[ch >> 4];
            p[4] = hex[ch & 15];
            p += 5;
            break;
        }
    }
    *p++ = '"';
    return p;
}

/* Node id of the source and its predecessors, ascending: SQLITE_OK,
 * SQLITE_NOMEM, or SQLITE_INTERNAL (which stops the statement, its
 * message set) when the graph model fails. */
static int read_node(chunk_cursor *c, uint32_t id, sc_node *n, const uint32_t **preds,
                     uint32_t *npreds)
{
    const sc_store_part *part = c->src.part;
    if (part) {
        uint32_t i = id - part->lo;
        *n = part->nodes[i];
        *preds = part->preds + part->pred_off[i];
        *npreds = part->pred_off[i + 1] - part->pred_off[i];
        return SQLITE_OK;
    }
    int rc = sc_graph_node(c->src.g, id, n);
    if (rc == 0)
        rc = sc_graph_predecessors(c->src.g, id, c->preds, c->preds_cap, npreds);
    if (rc == SC_ELIMIT) {
        uint32_t *p = sqlite3_realloc64(c->preds, (sqlite3_uint64)*npreds * sizeof *p);
        if (!p)
            return SQLITE_NOMEM;
        c->preds = p;
        c->preds_cap = *npreds;
        rc = sc_graph_predecessors(c->src.g, id, c->preds, c->preds_cap, npreds);
    }
    if (rc != 0) {
        sqlite3_free(c->base.pVtab->zErrMsg);
        c->base.pVtab->zErrMsg = sqlite3_mprintf("graph node %u could not be read", id);
        return SQLITE_INTERNAL;
    }
    *preds = c->preds;
    return SQLITE_OK;
}

/*
 * Append node id's element, [kind,stream,name,attrs,preds] with null for
 * no attributes and [] for no predecessors, then a comma: SQLITE_OK or
 * read_node's failure.
 */
static int put_node(chunk_cursor *c, uint32_t id)
{
    sc_node n;
    const uint32_t *preds;
    uint32_t npreds;
    int rc = read_node(c, id, &n, &preds, &npreds);
    if (rc != SQLITE_OK)
        return rc;
    const char *kind = sc_cuda_kind_name((int)n.kind);
    size_t kind_len = strlen(kind), name_len = n.name ? n.name_len : 0;
    /* Punctuation, the stream, a name all escapes, attrs, the ids. */
    size_t need = 16 + kind_len + 11 + 6 * name_len + ATTRS_MAX + 11 * (size_t)npreds +
                  2 * (size_t)n.args_len + 11 * (size_t)n.nparams + store_accesses_text_room(&n);
    if (text_reserve(c, need) != SQLITE_OK)
        return SQLITE_NOMEM;
    char *p = c->text + c->len;
    *p++ = '[';
    *p++ = '"';
    memcpy(p, kind, kind_len);
    p += kind_len;
    *p++ = '"';
    *p++ = ',';
    p = put_u64(p, n.stream);
    p = put_name(p, n.name, name_len);
    *p++ = ',';
    size_t alen = attrs_text(&n, p);
    if (!alen) {
        memcpy(p, "null", 4);
        alen = 4;
    }
    p += alen;
    *p++ = ',';
    *p++ = '[';
    for (uint32_t k = 0; k < npreds; k++)
        p = put_u64(p, preds[k]);
    if (npreds)
        p[-1] = ']';
    else
        *p++ = ']';
    if (n.naccesses) {
        /* The sixth member (schema/013_accesses.sql). */
        *p++ = ',';
        p += store_accesses_text(&n, p);
    }
    *p++ = ']';
    *p++ = ',';
    c->len = (size_t)(p - c->text);
    return SQLITE_OK;
}

/*
 * Make the next chunk current: the nodes from c->next on while its text
 * (c->len: the last comma becomes the closing bracket) stays within
 * CHUNK_TEXT_MAX, and at least one.  The node that would take
 * it past the mark is formatted already: it waits after the chunk and is
 * moved to the front of the next one.
 */
static int load_chunk(chunk_cursor *c)
{
    uint32_t count = 0;
    if (c->carry_len) {
        memmove(c->text + 1, c->text + c->carry_off, c->carry_len);
        c->len = 1 + c->carry_len;
        c->carry_len = 0;
        c->lo = c->next - 1;
        count = 1;
    } else {
        c->len = 0;
        if (text_reserve(c, 1) != SQLITE_OK)
            return SQLITE_NOMEM;
        c->len = 1;
        c->lo = c->next;
    }
    c->text[0] = '[';
    while (c->len <= CHUNK_TEXT_MAX && c->next < c->hi) {
        size_t before = c->len;
        int rc = put_node(c, c->next);
        if (rc != SQLITE_OK)
            return rc;
        c->next++;
        if (count > 0 && c->len > CHUNK_TEXT_MAX) {
            c->carry_off = before;
            c->carry_len = c->len - before;
            c->len = before;
            break;
        }
        count++;
    }
    if (count == 0) {
        c->eof = true;
        return SQLITE_OK;
    }
    c->text[c->len - 1] = ']'; /* over the last comma */
    return SQLITE_OK;
}

/* The whole graph (STORE_GRAPH_PTR) or a range of a graph or of a part
 * (STORE_RANGE_PTR); an empty range for anything else. */
static void filter_range(sqlite3_value *v, store_rows_range *r)
{
    *r = (store_rows_range){0};
    const sc_graph *g = sqlite3_value_pointer(v, STORE_GRAPH_PTR);
    if (g) {
        *r = (store_rows_range){.g = g, .lo = 0, .hi = sc_graph_node_count(g)};
        return;
    }
    const store_rows_range *part = sqlite3_value_pointer(v, STORE_RANGE_PTR);
    if (!part || part->lo > part->hi || (part->g != NULL) == (part->part != NULL))
        return;
    if (part->g && part->hi <= sc_graph_node_count(part->g))
        *r = *part;
    else if (part->part && part->lo >= part->part->lo && part->hi - part->part->lo <= part->part->n)
        *r = *part;
}

static int chunks_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx_str, int argc,
                         sqlite3_value **argv)
{
    (void)idx_str;
    chunk_cursor *c = (chunk_cursor *)cur;
    store_rows_range r = {0};
    if (idx_num == 1 && argc == 1)
        filter_range(argv[0], &r);
    c->src = r;
    c->next = r.lo;
    c->hi = r.hi;
    c->carry_len = 0;
    c->eof = false;
    return load_chunk(c);
}

static int chunks_next(sqlite3_vtab_cursor *cur)
{
    return load_chunk((chunk_cursor *)cur);
}

static int chunks_eof(sqlite3_vtab_cursor *cur)
{
    return ((const chunk_cursor *)cur)->eof;
}

static int chunks_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
    *rowid = ((const chunk_cursor *)cur)->lo;
    return SQLITE_OK;
}

static int chunks_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    const chunk_cursor *c = (const chunk_cursor *)cur;
    if (col == CHUNK_LO)
        sqlite3_result_int64(ctx, c->lo);
    else if (col == CHUNK_NODES)
        sqlite3_result_text64(ctx, c->text, c->len, SQLITE_STATIC, SQLITE_UTF8);
    return SQLITE_OK;
}

static const sqlite3_module chunks_module = {
    .iVersion = 0,
    .xConnect = chunks_connect,
    .xBestIndex = chunks_best_index,
    .xDisconnect = chunks_disconnect,
    .xOpen = chunks_open,
    .xClose = chunks_close,
    .xFilter = chunks_filter,
    .xNext = chunks_next,
    .xEof = chunks_eof,
    .xColumn = chunks_column,
    .xRowid = chunks_rowid,
};

int store_rows_register(sqlite3 *db)
{
    return sqlite3_create_module_v2(db, "sc_node_chunks", &chunks_module, NULL, NULL);
}
