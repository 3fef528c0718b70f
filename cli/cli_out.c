/*
 * cli_out.c - aligned tables, terminal-safe text, and the two renderings
 * of a stored graph (table and JSON).
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

char *cli_printable(const char *s)
{
    if (!s)
        return NULL;
    char *out = strdup(s);
    if (!out)
        return NULL;
    /* Names are arbitrary UTF-8: keep multi-byte sequences, but no byte may
     * move the cursor or start an escape sequence. */
    for (char *p = out; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch < 0x20 || ch == 0x7f)
            *p = '?';
    }
    return out;
}

/* Columns on a terminal: one per code point (continuation bytes skipped). */
static size_t text_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++) {
        if (((unsigned char)*s & 0xC0) != 0x80)
            w++;
    }
    return w;
}

void cli_table_init(cli_table *t, size_t ncols, const char *const *head)
{
    memset(t, 0, sizeof(*t));
    t->ncols = ncols;
    t->head = head;
}

void cli_table_cell(cli_table *t, const char *fmt, ...)
{
    if (t->ncells == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        char **cells = realloc(t->cells, cap * sizeof(*cells));
        if (!cells)
            return;
        t->cells = cells;
        t->cap = cap;
    }
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    char *cell = cli_printable(tmp);
    t->cells[t->ncells++] = cell ? cell : NULL;
}

static void print_cell(FILE *f, const char *s, size_t width, bool last)
{
    fputs(s, f);
    if (last)
        return;
    for (size_t w = text_width(s); w < width + 2; w++)
        fputc(' ', f);
}

void cli_table_print(const cli_table *t, FILE *f)
{
    size_t *width = calloc(t->ncols, sizeof(*width));
    if (!width)
        return;
    for (size_t c = 0; c < t->ncols; c++)
        width[c] = text_width(t->head[c]);
    for (size_t i = 0; i < t->ncells; i++) {
        size_t w = t->cells[i] ? text_width(t->cells[i]) : 0;
        if (w > width[i % t->ncols])
            width[i % t->ncols] = w;
    }
    for (size_t c = 0; c < t->ncols; c++)
        print_cell(f, t->head[c], width[c], c + 1 == t->ncols);
    fputc('\n', f);
    for (size_t i = 0; i < t->ncells; i++) {
        size_t c = i % t->ncols;
        print_cell(f, t->cells[i] ? t->cells[i] : "", width[c], c + 1 == t->ncols);
        if (c + 1 == t->ncols)
            fputc('\n', f);
    }
    if (t->ncells % t->ncols)
        fputc('\n', f);
    free(width);
}

void cli_table_free(cli_table *t)
{
    for (size_t i = 0; i < t->ncells; i++)
        free(t->cells[i]);
    free(t->cells);
    memset(t, 0, sizeof(*t));
}

/* ------------------------------------------------------------- graphs */

/* A conditional's type as the wire spells it. */
static const char *cli_cond_type(sc_client_cond_type t)
{
    static const char *const names[] = {"if", "while", "switch"};
    return (unsigned)t < 3 ? names[t] : "unknown";
}

/* `child` of a graph node, `bodies` of a conditional node, as graph.get
 * gives them. */
static void json_bodies(sc_buf *b, bool *first, const sc_client_node *n)
{
    if (n->kind == SC_CLIENT_GRAPH && n->nbodies) {
        sc_json_member_u64(b, first, "child", n->bodies[0]);
        return;
    }
    if (n->kind != SC_CLIENT_CONDITIONAL)
        return;
    sc_json_key(b, first, "bodies");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < n->nbodies; i++)
        sc_buf_printf(b, i ? ",%llu" : "%llu", (unsigned long long)n->bodies[i]);
    sc_buf_putc(b, ']');
}

/* The body graphs a node holds, as the node's cell ends them. */
static void bodies_text(char *out, size_t len, const sc_client_node *n)
{
    if (n->nbodies == 1)
        snprintf(out, len, "body graph %llu", (unsigned long long)n->bodies[0]);
    else if (n->nbodies)
        snprintf(out, len, "%zu body graphs, %llu ... %llu", n->nbodies,
                 (unsigned long long)n->bodies[0], (unsigned long long)n->bodies[n->nbodies - 1]);
    else
        *out = '\0';
}

static void json_node(sc_buf *b, const sc_client_node *n)
{
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_member_u64(b, &first, "id", n->id);
    sc_json_member_cstr(b, &first, "kind", sc_client_kind_name(n->kind));
    sc_json_member_u64(b, &first, "stream", n->stream);
    sc_json_member_cstr(b, &first, "name", n->name ? n->name : "");
    json_bodies(b, &first, n);
    switch (n->kind) {
    case SC_CLIENT_KERNEL:
        sc_json_member_cstr(b, &first, "function_name", n->function_name ? n->function_name : "");
        sc_json_member_u64(b, &first, "num_blocks", n->num_blocks);
        sc_json_member_u64(b, &first, "threads_per_block", n->threads_per_block);
        sc_json_member_u64(b, &first, "shared_mem", n->shared_mem);
        if (n->dim3) {
            sc_json_key(b, &first, "grid");
            sc_buf_printf(b, "[%u,%u,%u]", (unsigned)n->grid[0], (unsigned)n->grid[1],
                          (unsigned)n->grid[2]);
            sc_json_key(b, &first, "block");
            sc_buf_printf(b, "[%u,%u,%u]", (unsigned)n->block[0], (unsigned)n->block[1],
                          (unsigned)n->block[2]);
        }
        if (n->nparams && n->args && n->param_sizes)
            sc_json_member_kargs(b, &first, n->args, n->args_len, n->param_sizes, n->nparams);
        break;
    case SC_CLIENT_MEMCPY:
        sc_json_member_cstr(b, &first, "dir", sc_client_cuda_dir_name(n->dir));
        sc_json_member_u64(b, &first, "size_bytes", n->size_bytes);
        if (n->dir == SC_CLIENT_PEER_TO_PEER) {
            sc_json_member_u64(b, &first, "src_device", n->src_device);
            sc_json_member_u64(b, &first, "dst_device", n->dst_device);
        }
        break;
    case SC_CLIENT_MEMSET:
        sc_json_member_u64(b, &first, "size_bytes", n->size_bytes);
        sc_json_member_u64(b, &first, "value", n->value);
        break;
    case SC_CLIENT_HOST_CALLBACK:
        sc_json_member_cstr(b, &first, "label", n->label ? n->label : "");
        break;
    case SC_CLIENT_MEM_ALLOC:
        sc_json_member_u64(b, &first, "size_bytes", n->size_bytes);
        break;
    case SC_CLIENT_EVENT_RECORD:
    case SC_CLIENT_EVENT_WAIT:
        sc_json_member_u64(b, &first, "event", n->event);
        break;
    case SC_CLIENT_CONDITIONAL:
        sc_json_member_cstr(b, &first, "type", cli_cond_type(n->cond_type));
        sc_json_member_u64(b, &first, "size", n->cond_size);
        sc_json_member_u64(b, &first, "default_value", n->cond_default);
        sc_json_member_u64(b, &first, "flags", n->cond_flags);
        break;
    case SC_CLIENT_MEM_FREE:
    case SC_CLIENT_EMPTY:
    case SC_CLIENT_GRAPH: /* bodies: graphs of their own (graph.get of the node's graph) */
        break;
    }
    sc_json_obj_end(b);
}

void cli_json_member_str_or_null(sc_buf *b, bool *first, const char *key, const char *s)
{
    sc_json_key(b, first, key);
    if (s)
        sc_json_cstr(b, s);
    else
        sc_buf_puts(b, "null");
}

void cli_json_graph_members(sc_buf *b, bool *first, const sc_client_graph *g)
{
    sc_json_member_u64(b, first, "graph", g->graph);
    cli_json_member_str_or_null(b, first, "label", g->label);
    sc_json_member_cstr(b, first, "created_at", g->created_at ? g->created_at : "");
    sc_json_member_u64(b, first, "owner_uid", g->owner_uid);
    sc_json_member_i64(b, first, "owner_pid", g->owner_pid);
    sc_json_member_cstr(b, first, "host", g->host ? g->host : "");
    sc_json_member_u64(b, first, "node_count", g->node_count);
    sc_json_member_u64(b, first, "edge_count", g->edge_count);
    sc_json_key(b, first, "nodes");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < g->node_count; i++) {
        if (i)
            sc_buf_putc(b, ',');
        json_node(b, &g->nodes[i]);
    }
    sc_buf_putc(b, ']');
    sc_json_key(b, first, "edges");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < g->edge_count; i++)
        sc_buf_printf(b, i ? ",[%u,%u]" : "[%u,%u]", (unsigned)g->edges[i].src,
                      (unsigned)g->edges[i].dst);
    sc_buf_putc(b, ']');
}

static void node_details(cli_table *t, const sc_client_node *n)
{
    switch (n->kind) {
    case SC_CLIENT_KERNEL: {
        sc_buf b;
        sc_buf_init(&b);
        const char *fn = n->function_name ? n->function_name : "";
        if (n->dim3)
            sc_buf_printf(&b, "%s grid %ux%ux%u block %ux%ux%u shared %u B", fn,
                          (unsigned)n->grid[0], (unsigned)n->grid[1], (unsigned)n->grid[2],
                          (unsigned)n->block[0], (unsigned)n->block[1], (unsigned)n->block[2],
                          (unsigned)n->shared_mem);
        else
            sc_buf_printf(&b, "%s<<<%u, %u, %u>>>", fn, (unsigned)n->num_blocks,
                          (unsigned)n->threads_per_block, (unsigned)n->shared_mem);
        if (n->nparams)
            sc_buf_puts(&b, "; ");
        cli_kargs_text(&b, n);
        cli_table_cell(t, "%.*s", (int)b.len, b.data ? b.data : "");
        sc_buf_free(&b);
        return;
    }
    case SC_CLIENT_MEMCPY:
        if (n->dir == SC_CLIENT_PEER_TO_PEER)
            cli_table_cell(t, "peer_to_peer dev%u -> dev%u, %llu B", (unsigned)n->src_device,
                           (unsigned)n->dst_device, (unsigned long long)n->size_bytes);
        else
            cli_table_cell(t, "%s, %llu B", sc_client_cuda_dir_name(n->dir),
                           (unsigned long long)n->size_bytes);
        return;
    case SC_CLIENT_MEMSET:
        cli_table_cell(t, "%llu B = %u", (unsigned long long)n->size_bytes, (unsigned)n->value);
        return;
    case SC_CLIENT_HOST_CALLBACK:
        cli_table_cell(t, "label %s", n->label ? n->label : "");
        return;
    case SC_CLIENT_MEM_ALLOC:
        cli_table_cell(t, "%llu B", (unsigned long long)n->size_bytes);
        return;
    case SC_CLIENT_EVENT_RECORD:
    case SC_CLIENT_EVENT_WAIT:
        cli_table_cell(t, "event %u", (unsigned)n->event);
        return;
    case SC_CLIENT_GRAPH:
        if (n->nbodies) {
            char bodies[96];
            bodies_text(bodies, sizeof bodies, n);
            cli_table_cell(t, "%s", bodies);
            return;
        }
        break;
    case SC_CLIENT_CONDITIONAL: {
        char bodies[96];
        bodies_text(bodies, sizeof bodies, n);
        cli_table_cell(t, "%s, size %u, default %u%s%s%s", cli_cond_type(n->cond_type),
                       (unsigned)n->cond_size, (unsigned)n->cond_default,
                       n->cond_flags & 1u ? ", assign_default" : "", *bodies ? "; " : "", bodies);
        return;
    }
    case SC_CLIENT_MEM_FREE:
    case SC_CLIENT_EMPTY:
        break;
    }
    cli_table_cell(t, "-");
}

/* A node's name by id, for the edge table; ids are positions. */
static const char *shown_name(const sc_client_node *n)
{
    /* cuda mode's event and empty nodes often have none: say the kind. */
    return n->name && n->name[0] ? n->name : sc_client_kind_name(n->kind);
}

static const char *name_of(const sc_client_graph *g, uint32_t id)
{
    if (id < g->node_count && g->nodes[id].id == id)
        return shown_name(&g->nodes[id]);
    for (size_t i = 0; i < g->node_count; i++) {
        if (g->nodes[i].id == id)
            return shown_name(&g->nodes[i]);
    }
    return "?";
}

void cli_print_graph(const sc_client_graph *g, FILE *f)
{
    char *label = cli_printable(g->label);
    fprintf(f, "graph %llu%s%s%s: %zu node%s, %zu edge%s\n", (unsigned long long)g->graph,
            label ? " \"" : "", label ? label : "", label ? "\"" : "", g->node_count,
            g->node_count == 1 ? "" : "s", g->edge_count, g->edge_count == 1 ? "" : "s");
    char *host = cli_printable(g->host);
    /* A daemon from before hosts names none. */
    fprintf(f, "created %s by uid %u pid %lld%s%s\n", g->created_at ? g->created_at : "?",
            (unsigned)g->owner_uid, (long long)g->owner_pid, host && *host ? " on host " : "",
            host && *host ? host : "");
    free(host);
    free(label);

    static const char *const node_head[] = {"NODE", "STREAM", "KIND", "NAME", "DETAILS"};
    cli_table t;
    cli_table_init(&t, 5, node_head);
    for (size_t i = 0; i < g->node_count; i++) {
        const sc_client_node *n = &g->nodes[i];
        cli_table_cell(&t, "N%u", (unsigned)n->id);
        cli_table_cell(&t, "%u", (unsigned)n->stream);
        cli_table_cell(&t, "%s", sc_client_kind_name(n->kind));
        cli_table_cell(&t, "%s", n->name ? n->name : "");
        node_details(&t, n);
    }
    fputc('\n', f);
    cli_table_print(&t, f);
    cli_table_free(&t);

    static const char *const edge_head[] = {"FROM", "TO", "OPS"};
    cli_table_init(&t, 3, edge_head);
    for (size_t i = 0; i < g->edge_count; i++) {
        const sc_client_edge *e = &g->edges[i];
        cli_table_cell(&t, "N%u", (unsigned)e->src);
        cli_table_cell(&t, "N%u", (unsigned)e->dst);
        cli_table_cell(&t, "%s -> %s", name_of(g, e->src), name_of(g, e->dst));
    }
    fputc('\n', f);
    if (g->edge_count)
        cli_table_print(&t, f);
    else
        fputs("no edges\n", f);
    cli_table_free(&t);
}

/* ----------------------------------------------------- cuda captures */

static void json_invalidated_by(sc_buf *b, bool *first, const sc_client_capture_record *r)
{
    bool f;
    sc_json_key(b, first, "invalidated_by");
    sc_json_obj_begin(b, &f);
    sc_json_member_cstr(b, &f, "method", r->inv_method);
    sc_json_member_u64(b, &f, "stream", r->inv_stream);
    if (r->inv_has_event)
        sc_json_member_u64(b, &f, "event", r->inv_event);
    sc_json_member_u64(b, &f, "thread", r->inv_thread);
    if (r->inv_call)
        sc_json_member_cstr(b, &f, "call", r->inv_call);
    sc_json_member_i64(b, &f, "cuda_error", r->inv_cuda_error);
    sc_json_member_cstr(b, &f, "cuda_name", r->inv_cuda_name ? r->inv_cuda_name : "");
    sc_json_member_cstr(b, &f, "message", r->inv_message ? r->inv_message : "");
    sc_json_obj_end(b);
}

void cli_json_log_captures(sc_buf *b, bool *first, const sc_client_log_entry *e)
{
    sc_json_member_cstr(b, first, "semantics", e->semantics);
    sc_json_key(b, first, "captures");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < e->capture_count; i++) {
        const sc_client_capture_record *r = &e->captures[i];
        bool f;
        if (i)
            sc_buf_putc(b, ',');
        sc_json_obj_begin(b, &f);
        sc_json_member_u64(b, &f, "capture", r->capture);
        sc_json_member_u64(b, &f, "origin", r->origin);
        sc_json_member_cstr(b, &f, "mode", r->mode);
        sc_json_member_u64(b, &f, "thread", r->thread);
        sc_json_member_cstr(b, &f, "outcome", r->outcome);
        if (r->cuda_error) {
            sc_json_member_i64(b, &f, "cuda_error", r->cuda_error);
            cli_json_member_str_or_null(b, &f, "cuda_name", r->cuda_name);
        }
        sc_json_member_u64(b, &f, "node_count", r->node_count);
        cli_json_member_str_or_null(b, &f, "ended_at", r->ended_at);
        if (r->graph)
            sc_json_member_u64(b, &f, "graph", r->graph);
        if (r->inv_method)
            json_invalidated_by(b, &f, r);
        sc_json_obj_end(b);
    }
    sc_buf_putc(b, ']');
}

/* "capture 3 on stream 7 invalidated by cudaMalloc from thread 2 (global
 * mode): operation not permitted when stream is capturing": the CUDA call
 * a person made when the log has its name, else the method and where. */
static void print_invalidated(const sc_client_log_entry *e, const sc_client_capture_record *r,
                              FILE *f)
{
    char *call = cli_printable(r->inv_call ? r->inv_call : r->inv_method);
    char *mode = cli_printable(r->mode);
    char *msg = cli_printable(r->inv_message ? r->inv_message : "");
    fprintf(f, "session %llu: capture %llu on stream %u invalidated by %s",
            (unsigned long long)e->session, (unsigned long long)r->capture, (unsigned)r->origin,
            call ? call : "");
    if (!r->inv_call && r->inv_has_event)
        fprintf(f, " (stream %u, event %u)", (unsigned)r->inv_stream, (unsigned)r->inv_event);
    else if (!r->inv_call)
        fprintf(f, " on stream %u", (unsigned)r->inv_stream);
    fprintf(f, " from thread %u (%s mode): %s\n", (unsigned)r->inv_thread, mode ? mode : "",
            msg ? msg : "");
    free(call);
    free(mode);
    free(msg);
}

void cli_print_failed_captures(const sc_client_log_entry *e, FILE *f)
{
    for (size_t i = 0; i < e->capture_count; i++) {
        const sc_client_capture_record *r = &e->captures[i];
        if (strcmp(r->outcome, "failed") != 0)
            continue;
        if (r->inv_method) {
            print_invalidated(e, r, f);
            continue;
        }
        char *name = cli_printable(r->cuda_name ? r->cuda_name : "");
        fprintf(f, "session %llu: capture %llu on stream %u failed at its end: %s (%d)\n",
                (unsigned long long)e->session, (unsigned long long)r->capture, (unsigned)r->origin,
                name ? name : "", r->cuda_error);
        free(name);
    }
}
