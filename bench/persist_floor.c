/*
 * persist_floor.c - the floor for persisting a captured graph: the rows
 * that streamcapd stores for a graph, inserted by a plain C program into
 * SQLite in one transaction with prepared statements.
 *
 * The graph is the one `streamcap-bench --build-graph N --streams S --seed X`
 * records (same generator), its edges derived with the capture rules (each
 * op depends on its stream's previous op and on the waits parked on its
 * stream).  The rows are the daemon's stored form for the schema's version:
 *
 *   6 and later (schema/006_node_chunks.sql): node_chunks rows, each a run
 *     of consecutive nodes (with their predecessors) as one JSON array
 *     text, cut where the daemon cuts them (store/sqlite/store_sqlite_rows.c)
 *     and in its exact bytes;
 *   5 (schema/005_packed_rows.sql): one node_rows row per node, its
 *     attributes and successors packed as JSON arrays in the daemon's text;
 *   older: the version-4 nodes and edges rows.
 *
 * The database gets the daemon's schema (--schema: the schema directory,
 * whose NNN_*.sql files are applied in order as the daemon's migrations
 * are, or one file), WAL and the same synchronous setting.  Only BEGIN ..
 * COMMIT is timed: the graph is built in memory first, the JSON texts
 * inside the timed loop, as the daemon formats them while it inserts.
 * Each run adds one more graph to the database, as the daemon does.
 *
 * usage: persist_floor --db PATH --schema DIR|FILE [--nodes N] [--streams S]
 *                      [--seed X] [--sync full|normal] [--json]
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "sc_args.h"
#include "sc_workload.h"

typedef struct floor_node {
    sc_wl_op op;
} floor_node;

typedef struct floor_graph {
    floor_node *nodes;
    uint32_t n_nodes;
    uint64_t *edges;    /* src << 32 | dst, ascending */
    uint64_t *in_edges; /* dst << 32 | src, ascending: version 6 keeps predecessors */
    size_t n_edges, cap_edges;
    uint32_t stream_count;
} floor_graph;

static void die(const char *what, const char *detail)
{
    sc_bench_fail("persist_floor", what, detail);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void add_edge(floor_graph *g, uint32_t src, uint32_t dst)
{
    if (g->n_edges == g->cap_edges) {
        g->cap_edges = g->cap_edges ? g->cap_edges * 2 : 1024;
        g->edges = realloc(g->edges, g->cap_edges * sizeof(*g->edges));
        if (!g->edges)
            die("out of memory", NULL);
    }
    g->edges[g->n_edges++] = (uint64_t)src << 32 | dst;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The capture rules of docs/semantics.md §4.5-§4.7, for the ops the generator makes. */
static void build_graph(floor_graph *g, uint32_t nodes, uint32_t streams, uint64_t seed)
{
    memset(g, 0, sizeof(*g));
    g->nodes = malloc((size_t)nodes * sizeof(*g->nodes));
    int64_t *head = malloc(streams * sizeof(*head));
    int64_t *event_src = malloc(streams * sizeof(*event_src));
    /* Parked waits per stream; the generator parks at most a few at once. */
    uint32_t *parked = malloc((size_t)streams * 64 * sizeof(*parked));
    uint32_t *n_parked = calloc(streams, sizeof(*n_parked));
    bool *used = calloc(streams, sizeof(*used));
    if (!g->nodes || !head || !event_src || !parked || !n_parked || !used)
        die("out of memory", NULL);
    for (uint32_t s = 0; s < streams; s++)
        head[s] = event_src[s] = -1;
    sc_wl w;
    sc_wl_init_graph(&w, seed, streams, 64);
    while (g->n_nodes < nodes) {
        sc_wl_op op;
        sc_wl_next(&w, &op);
        uint32_t s = op.stream;
        if (op.kind == SC_WL_RECORD_EVENT) {
            if (head[s] >= 0)
                event_src[op.event] = head[s];
            continue;
        }
        if (op.kind == SC_WL_WAIT_EVENT) {
            if (event_src[op.event] >= 0) {
                if (n_parked[s] == 64)
                    die("too many parked waits", NULL);
                parked[(size_t)s * 64 + n_parked[s]++] = (uint32_t)event_src[op.event];
            }
            continue;
        }
        uint32_t x = g->n_nodes++;
        g->nodes[x].op = op;
        used[s] = true;
        /* Predecessors: parked waits, then the head; duplicates once. */
        uint32_t preds[65], np = 0;
        for (uint32_t i = 0; i < n_parked[s]; i++)
            preds[np++] = parked[(size_t)s * 64 + i];
        if (head[s] >= 0)
            preds[np++] = (uint32_t)head[s];
        n_parked[s] = 0;
        for (uint32_t i = 0; i < np; i++) {
            bool dup = false;
            for (uint32_t j = 0; j < i && !dup; j++)
                dup = preds[j] == preds[i];
            if (!dup)
                add_edge(g, preds[i], x);
        }
        head[s] = x;
    }
    qsort(g->edges, g->n_edges, sizeof(*g->edges), cmp_u64);
    g->in_edges = malloc((g->n_edges ? g->n_edges : 1) * sizeof(*g->in_edges));
    if (!g->in_edges)
        die("out of memory", NULL);
    for (size_t i = 0; i < g->n_edges; i++)
        g->in_edges[i] = g->edges[i] << 32 | g->edges[i] >> 32;
    qsort(g->in_edges, g->n_edges, sizeof(*g->in_edges), cmp_u64);
    for (uint32_t s = 0; s < streams; s++)
        g->stream_count += used[s];
    free(head);
    free(event_src);
    free(parked);
    free(n_parked);
    free(used);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
        die("cannot read", path);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void exec(sqlite3 *db, const char *sql)
{
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
        die(sql, err);
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, NULL) != SQLITE_OK)
        die(sql, sqlite3_errmsg(db));
    return s;
}

static void step(sqlite3 *db, sqlite3_stmt *s)
{
    if (sqlite3_step(s) != SQLITE_DONE)
        die("insert failed", sqlite3_errmsg(db));
    sqlite3_reset(s);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Applies one migration file as the daemon does: in its own transaction
 * that also sets user_version. */
static void apply_file(sqlite3 *db, const char *path, int version)
{
    char *schema = read_file(path);
    char set[64];
    snprintf(set, sizeof set, "PRAGMA user_version = %d; COMMIT", version);
    exec(db, "BEGIN IMMEDIATE");
    exec(db, schema);
    exec(db, set);
    free(schema);
}

/* Every NNN_*.sql of dir in version order, or the one file; returns the
 * version reached. */
static int apply_schema(sqlite3 *db, const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        apply_file(db, path, 1);
        return 1;
    }
    char *names[64];
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len > 8 && e->d_name[3] == '_' && !strcmp(e->d_name + len - 4, ".sql") &&
            strspn(e->d_name, "0123456789") == 3 && n < 64)
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    if (n == 0)
        die("no NNN_*.sql migrations in", path);
    qsort(names, n, sizeof *names, cmp_str);
    int version = 0;
    for (size_t i = 0; i < n; i++) {
        char file[4096];
        snprintf(file, sizeof file, "%s/%s", path, names[i]);
        version = atoi(names[i]);
        apply_file(db, file, version);
        free(names[i]);
    }
    return version;
}

static sqlite3 *open_db(const char *path, const char *schema_path, bool sync_full, int *version)
{
    sqlite3 *db;
    /* One thread uses the connection: no per-call mutexes (as streamcapd). */
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK)
        die("cannot open database", path);
    exec(db, "PRAGMA journal_mode = WAL");
    exec(db, sync_full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL");
    sqlite3_stmt *s = prepare(db, "PRAGMA user_version");
    *version = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int(s, 0) : -1;
    sqlite3_finalize(s);
    if (*version == 0)
        *version = apply_schema(db, schema_path);
    return db;
}

/* Appends "v," to p (no snprintf, as the daemon); returns the new end. */
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

/* A generated op's attributes, the text the daemon writes in
 * node_rows.attrs and as a node_chunks element's attrs: its length, 0 for
 * NULL (host callbacks have no attributes). */
static size_t attrs_text(const sc_wl_op *op, char *out)
{
    char *p = out;
    *p++ = '[';
    switch (op->kind) {
    case SC_WL_KERNEL:
        p = put_u64(p, op->num_blocks);
        p = put_u64(p, op->threads_per_block);
        p = put_u64(p, op->shared_mem);
        break;
    case SC_WL_MEMCPY: {
        size_t len = strlen(op->dir);
        memcpy(p, "null,null,null,\"", 16);
        p += 16;
        memcpy(p, op->dir, len);
        p += len;
        memcpy(p, "\",", 2);
        p += 2;
        p = put_u64(p, op->size_bytes);
        if (op->p2p) {
            p = put_u64(p, op->src_device);
            p = put_u64(p, op->dst_device);
        }
        break;
    }
    case SC_WL_MEMSET:
        memcpy(p, "null,null,null,null,", 20);
        p = put_u64(p + 20, op->size_bytes);
        memcpy(p, "null,null,", 10);
        p = put_u64(p + 10, op->value);
        break;
    default:
        return 0;
    }
    p[-1] = ']';
    return (size_t)(p - out);
}

/* The edges whose high half is id, found at *e in a sorted edge list (edges
 * or in_edges; the position moves past them): how many. */
static size_t edge_run(const uint64_t *list, size_t n_edges, uint32_t id, size_t *e)
{
    size_t first = *e;
    while (*e < n_edges && list[*e] >> 32 == id)
        (*e)++;
    return *e - first;
}

static size_t out_edges(const floor_graph *g, uint32_t id, size_t *e)
{
    return edge_run(g->edges, g->n_edges, id, e);
}

/* The low halves of edges[0 .. n-1] (the successors in edges, the
 * predecessors in in_edges) as a JSON array, [] for none (room: 2 + 11 * n
 * bytes); returns the new end. */
static char *put_ids(char *p, const uint64_t *edges, size_t n)
{
    *p++ = '[';
    for (size_t k = 0; k < n; k++)
        p = put_u64(p, edges[k] & 0xffffffffu);
    if (n)
        p[-1] = ']';
    else
        *p++ = ']';
    return p;
}

/* A name as the daemon's chunks spell it: a JSON string escaping the quote,
 * the backslash and the bytes below 0x20 (room: 2 + 6 * strlen(s));
 * returns the new end. */
static char *put_name(char *p, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    *p++ = '"';
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
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

static void bind_node(sqlite3_stmt *s, uint32_t id, const sc_wl_op *op)
{
    sqlite3_bind_int64(s, 2, id);
    sqlite3_bind_text(s, 3, sc_wl_node_kind(op->kind), -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 4, op->stream);
    sqlite3_bind_text(s, 5, op->name, -1, SQLITE_STATIC);
    for (int i = 6; i <= 13; i++)
        sqlite3_bind_null(s, i);
    switch (op->kind) {
    case SC_WL_KERNEL:
        sqlite3_bind_int64(s, 6, op->num_blocks);
        sqlite3_bind_int64(s, 7, op->threads_per_block);
        sqlite3_bind_int64(s, 8, op->shared_mem);
        break;
    case SC_WL_MEMCPY:
        sqlite3_bind_text(s, 9, op->dir, -1, SQLITE_STATIC);
        sqlite3_bind_int64(s, 10, (sqlite3_int64)op->size_bytes);
        if (op->p2p) {
            sqlite3_bind_int64(s, 11, op->src_device);
            sqlite3_bind_int64(s, 12, op->dst_device);
        }
        break;
    case SC_WL_MEMSET:
        sqlite3_bind_int64(s, 10, (sqlite3_int64)op->size_bytes);
        sqlite3_bind_int64(s, 13, op->value);
        break;
    default:
        break;
    }
}

/* Version 5's rows: one node_rows row per node, a run of the statement
 * each, its successors the run of sorted edges whose source it is. */
static void insert_node_rows(sqlite3 *db, const floor_graph *g, int64_t gid)
{
    sqlite3_stmt *s = prepare(db, "INSERT INTO node_rows (graph, id, kind, stream, name, attrs,"
                                  " succ) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    char attrs[256];
    size_t cap = 1024;
    char *succ = malloc(cap);
    if (!succ)
        die("out of memory", NULL);
    sqlite3_bind_int64(s, 1, gid);
    size_t e = 0;
    for (uint32_t id = 0; id < g->n_nodes; id++) {
        const sc_wl_op *op = &g->nodes[id].op;
        sqlite3_bind_int64(s, 2, id);
        sqlite3_bind_text(s, 3, sc_wl_node_kind(op->kind), -1, SQLITE_STATIC);
        sqlite3_bind_int64(s, 4, op->stream);
        sqlite3_bind_text(s, 5, op->name, -1, SQLITE_STATIC);
        size_t alen = attrs_text(op, attrs);
        if (alen)
            sqlite3_bind_text(s, 6, attrs, (int)alen, SQLITE_STATIC);
        else
            sqlite3_bind_null(s, 6);
        size_t first = e, n = out_edges(g, id, &e);
        if (n == 0) {
            sqlite3_bind_null(s, 7);
        } else {
            if (2 + n * 11 > cap) {
                cap = 2 + n * 11;
                succ = realloc(succ, cap);
                if (!succ)
                    die("out of memory", NULL);
            }
            char *p = put_ids(succ, g->edges + first, n);
            sqlite3_bind_text(s, 7, succ, (int)(p - succ), SQLITE_STATIC);
        }
        step(db, s);
    }
    free(succ);
    sqlite3_finalize(s);
}

/*
 * The most bytes of a run's text, brackets included, unless its one node
 * needs more: the daemon's CHUNK_TEXT_MAX (store/sqlite/store_sqlite_rows.c),
 * which the run boundaries must follow for the rows to be the daemon's.
 */
#define CHUNK_TEXT_MAX 960

/* A run's text being built: "[" then each node's element and a comma. */
typedef struct chunk_text {
    char *text;
    size_t len, cap;
} chunk_text;

/* Room for `more` bytes past t->len. */
static void chunk_reserve(chunk_text *t, size_t more)
{
    if (t->cap - t->len >= more)
        return;
    size_t cap = t->cap ? t->cap : 2 * CHUNK_TEXT_MAX;
    while (cap - t->len < more)
        cap *= 2;
    t->text = realloc(t->text, cap);
    if (!t->text)
        die("out of memory", NULL);
    t->cap = cap;
}

/* Appends node id's element, ["kind",stream,"name",attrs,succ] with null
 * for no attributes and [] for no successors, then a comma, as the
 * daemon's put_node does; *e walks the sorted edge list. */
static void put_node(chunk_text *t, const floor_graph *g, uint32_t id, size_t *e)
{
    const sc_wl_op *op = &g->nodes[id].op;
    const char *kind = sc_wl_node_kind(op->kind);
    const char *name = op->name ? op->name : ""; /* the daemon's text for no name */
    size_t first = *e, npreds = edge_run(g->in_edges, g->n_edges, id, e);
    size_t kind_len = strlen(kind);
    /* Punctuation, the stream, a name all escapes, attrs, the ids. */
    chunk_reserve(t, 16 + kind_len + 11 + 6 * strlen(name) + 256 + 11 * npreds);
    char *p = t->text + t->len;
    *p++ = '[';
    *p++ = '"';
    memcpy(p, kind, kind_len);
    p += kind_len;
    *p++ = '"';
    *p++ = ',';
    p = put_u64(p, op->stream);
    p = put_name(p, name);
    *p++ = ',';
    size_t alen = attrs_text(op, p);
    if (!alen) {
        memcpy(p, "null", 4);
        alen = 4;
    }
    p += alen;
    *p++ = ',';
    p = put_ids(p, g->in_edges + first, npreds);
    *p++ = ']';
    *p++ = ',';
    t->len = (size_t)(p - t->text);
}

/* Stores the run starting at node lo whose text (with its trailing
 * comma) is text[0 .. len-1]; the comma becomes the closing bracket. */
static void insert_chunk(sqlite3 *db, sqlite3_stmt *s, uint32_t lo, char *text, size_t len)
{
    text[len - 1] = ']';
    sqlite3_bind_int64(s, 2, lo);
    sqlite3_bind_text(s, 3, text, (int)len, SQLITE_STATIC);
    step(db, s);
}

/*
 * Version 6's rows: the nodes in runs, a node_chunks row per run.  A run
 * takes nodes while its text, closing bracket included, stays within
 * CHUNK_TEXT_MAX, and at least one; the node
 * that would take it past starts the next run, moved to the front of the
 * buffer rather than formatted twice, as the daemon does.
 *
 * The whole graph is one range, as the daemon cuts a graph it stores in
 * one transaction.  One of more than 65,536 nodes plus edges the daemon
 * stores in several (store/store_txn.c), each restarting the runs at its
 * first node, with sizes that depend on timing: the floor's runs match
 * those of a single transaction, a few more rows at most for such graphs.
 */
static void insert_node_chunks(sqlite3 *db, const floor_graph *g, int64_t gid)
{
    sqlite3_stmt *s = prepare(db, "INSERT INTO node_chunks (graph, lo, nodes) VALUES (?1, ?2, ?3)");
    sqlite3_bind_int64(s, 1, gid);
    chunk_text t = {0};
    chunk_reserve(&t, 1);
    t.text[0] = '[';
    t.len = 1;
    uint32_t lo = 0;
    size_t e = 0;
    for (uint32_t id = 0; id < g->n_nodes; id++) {
        size_t before = t.len;
        put_node(&t, g, id, &e);
        if (id == lo || t.len <= CHUNK_TEXT_MAX)
            continue;
        insert_chunk(db, s, lo, t.text, before);
        size_t node_len = t.len - before;
        memmove(t.text + 1, t.text + before, node_len);
        t.len = 1 + node_len;
        lo = id;
    }
    insert_chunk(db, s, lo, t.text, t.len);
    free(t.text);
    sqlite3_finalize(s);
}

/* Version 1-4's rows: a nodes row per node, an edges row per edge. */
static void insert_node_edge_rows(sqlite3 *db, const floor_graph *g, int64_t gid)
{
    sqlite3_stmt *node_insert =
        prepare(db, "INSERT INTO nodes (graph, id, kind, stream, name, num_blocks,"
                    " threads_per_block, shared_mem, dir, size_bytes, src_device, dst_device,"
                    " value) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
    sqlite3_stmt *edge_insert =
        prepare(db, "INSERT INTO edges (graph, src, dst) VALUES (?1, ?2, ?3)");
    sqlite3_bind_int64(node_insert, 1, gid);
    for (uint32_t id = 0; id < g->n_nodes; id++) {
        bind_node(node_insert, id, &g->nodes[id].op);
        step(db, node_insert);
    }
    sqlite3_bind_int64(edge_insert, 1, gid);
    for (size_t i = 0; i < g->n_edges; i++) {
        sqlite3_bind_int64(edge_insert, 2, (sqlite3_int64)(g->edges[i] >> 32));
        sqlite3_bind_int64(edge_insert, 3, (sqlite3_int64)(g->edges[i] & 0xffffffffu));
        step(db, edge_insert);
    }
    sqlite3_finalize(node_insert);
    sqlite3_finalize(edge_insert);
}

/* The transaction a capture.end makes: log row, graph row, the graph's
 * rows in the stored form of the schema's version, log row completed.
 * Returns the graph id. */
static int64_t persist(sqlite3 *db, const floor_graph *g, int version)
{
    static const char now[] = "2026-11-29T00:00:00.000Z";
    sqlite3_stmt *log_insert = prepare(db, "INSERT INTO capture_log (label, owner_uid, owner_pid,"
                                           " opened_at) VALUES ('floor', ?1, ?2, ?3)");
    sqlite3_stmt *graph_insert =
        prepare(db, "INSERT INTO graphs (session, label, created_at, owner_uid, owner_pid,"
                    " node_count, edge_count, stream_count) VALUES (?1, 'floor', ?2, ?3, ?4, ?5,"
                    " ?6, ?7)");
    sqlite3_stmt *log_complete =
        prepare(db, "UPDATE capture_log SET outcome = 'completed', graph = ?2, node_count = ?3,"
                    " ended_at = ?4 WHERE session = ?1");

    exec(db, "BEGIN IMMEDIATE");
    sqlite3_bind_int64(log_insert, 1, getuid());
    sqlite3_bind_int64(log_insert, 2, getpid());
    sqlite3_bind_text(log_insert, 3, now, -1, SQLITE_STATIC);
    step(db, log_insert);
    int64_t session = sqlite3_last_insert_rowid(db);

    sqlite3_bind_int64(graph_insert, 1, session);
    sqlite3_bind_text(graph_insert, 2, now, -1, SQLITE_STATIC);
    sqlite3_bind_int64(graph_insert, 3, getuid());
    sqlite3_bind_int64(graph_insert, 4, getpid());
    sqlite3_bind_int64(graph_insert, 5, g->n_nodes);
    sqlite3_bind_int64(graph_insert, 6, (sqlite3_int64)g->n_edges);
    sqlite3_bind_int64(graph_insert, 7, g->stream_count);
    step(db, graph_insert);
    int64_t gid = sqlite3_last_insert_rowid(db);

    if (version >= 6)
        insert_node_chunks(db, g, gid);
    else if (version >= 5)
        insert_node_rows(db, g, gid);
    else
        insert_node_edge_rows(db, g, gid);
    sqlite3_bind_int64(log_complete, 1, session);
    sqlite3_bind_int64(log_complete, 2, gid);
    sqlite3_bind_int64(log_complete, 3, g->n_nodes);
    sqlite3_bind_text(log_complete, 4, now, -1, SQLITE_STATIC);
    step(db, log_complete);
    exec(db, "COMMIT");

    sqlite3_finalize(log_insert);
    sqlite3_finalize(graph_insert);
    sqlite3_finalize(log_complete);
    return gid;
}

int main(int argc, char **argv)
{
    const char *db_path = NULL, *schema = NULL;
    uint64_t nodes = 1000000, streams = 8, seed = 1;
    bool sync_full = true, json = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json")) {
            json = true;
            continue;
        }
        if (!v)
            die("missing value for", a);
        i++;
        if (!strcmp(a, "--db"))
            db_path = v;
        else if (!strcmp(a, "--schema"))
            schema = v;
        else if (!strcmp(a, "--nodes"))
            nodes = sc_bench_arg_u64("persist_floor", a, v);
        else if (!strcmp(a, "--streams"))
            streams = sc_bench_arg_u64("persist_floor", a, v);
        else if (!strcmp(a, "--seed"))
            seed = sc_bench_arg_u64("persist_floor", a, v);
        else if (!strcmp(a, "--sync"))
            sync_full = strcmp(v, "normal") != 0;
        else
            die("unknown option", a);
    }
    if (!db_path || !schema || nodes < 1 || nodes > UINT32_MAX || streams < 1 || streams > 4096)
        die("usage: persist_floor --db PATH --schema DIR|FILE [--nodes N] [--streams S] [--seed X] "
            "[--sync full|normal] [--json]",
            NULL);
    floor_graph g;
    build_graph(&g, (uint32_t)nodes, (uint32_t)streams, seed);
    int version;
    sqlite3 *db = open_db(db_path, schema, sync_full, &version);
    double t0 = now_s();
    int64_t gid = persist(db, &g, version);
    double ms = (now_s() - t0) * 1e3;
    if (sqlite3_close(db) != SQLITE_OK)
        die("close failed", NULL);
    if (json)
        printf("{\"graph\":%" PRId64 ",\"node_count\":%u,\"edge_count\":%zu,\"ms\":%.3f}\n", gid,
               g.n_nodes, g.n_edges, ms);
    else
        printf("graph %" PRId64 ": %u nodes, %zu edges committed in %.1f ms\n", gid, g.n_nodes,
               g.n_edges, ms);
    free(g.nodes);
    free(g.edges);
    free(g.in_edges);
    return 0;
}
