/*
 * dot.c - DOT text for a graph, grouped by stream.
 */
#include <stdlib.h>

#include "sc_dot.h"
#include "sc_kargs.h"

/* A DOT double-quoted string: escape quotes and backslashes, keep newlines as \n. */
static void dot_string(sc_buf *b, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\') {
            sc_buf_putc(b, '\\');
            sc_buf_putc(b, (char)ch);
        } else if (ch == '\n') {
            sc_buf_puts(b, "\\n");
        } else if (ch < 0x20 || ch == 0x7f) {
            sc_buf_putc(b, ' ');
        } else {
            sc_buf_putc(b, (char)ch);
        }
    }
}

static const char *const dir_short[] = {"HtoD", "DtoH", "DtoD", "PeerToPeer"};

/* A kernel's arguments, a parameter per hex word; long ones are cut, so
 * that a label stays readable (graph.get has them all). */
#define DOT_ARGS_MAX 64

static void args_label(sc_buf *b, const sc_node *n)
{
    if (!(sc_node_attrs(n) & SC_NODE_ATTR_ARGS))
        return;
    sc_buf_puts(b, "\\nargs:");
    char hex[2 * DOT_ARGS_MAX];
    uint32_t off = 0;
    for (uint32_t i = 0; i < n->nparams && off < DOT_ARGS_MAX; i++) {
        uint32_t len = n->param_sizes[i];
        if (len > DOT_ARGS_MAX - off)
            len = DOT_ARGS_MAX - off;
        sc_kargs_hex(n->args + off, len, hex);
        sc_buf_putc(b, ' ');
        sc_buf_append(b, hex, 2 * (size_t)len);
        off += n->param_sizes[i];
    }
    if (n->args_len > DOT_ARGS_MAX)
        sc_buf_printf(b, " ... (%u bytes)", (unsigned)n->args_len);
}

/* The kinds only cuda-mode captures make (docs/cuda-semantics.md §5). */
static void cuda_node_label(sc_buf *b, uint32_t id, const sc_node *n)
{
    switch ((int)n->kind) {
    case SC_KIND_MEM_ALLOC:
        sc_buf_printf(b, "%u\\nMEM_ALLOC\\n", (unsigned)id);
        dot_string(b, n->name, n->name_len);
        sc_buf_printf(b, "\\nsize %llu", (unsigned long long)n->size_bytes);
        break;
    case SC_KIND_MEM_FREE:
        sc_buf_printf(b, "%u\\nMEM_FREE\\n", (unsigned)id);
        dot_string(b, n->name, n->name_len);
        break;
    case SC_KIND_EVENT_RECORD:
        sc_buf_printf(b, "%u\\nEVENT_RECORD\\nevent %u", (unsigned)id, (unsigned)n->event);
        break;
    case SC_KIND_EVENT_WAIT:
        sc_buf_printf(b, "%u\\nEVENT_WAIT\\nevent %u", (unsigned)id, (unsigned)n->event);
        break;
    case SC_KIND_GRAPH: /* the body is a graph of its own, exported by its id */
        sc_buf_printf(b, "%u\\nCHILD_GRAPH\\n", (unsigned)id);
        dot_string(b, n->name, n->name_len);
        break;
    case SC_KIND_CONDITIONAL:
        sc_buf_printf(b, "%u\\nCONDITIONAL\\n", (unsigned)id);
        dot_string(b, n->name, n->name_len);
        if (sc_cond_type_name((int)n->cond_type))
            sc_buf_printf(b, "\\n%s, size %u, default %u%s", sc_cond_type_name((int)n->cond_type),
                          (unsigned)n->cond_size, (unsigned)n->cond_default,
                          n->cond_flags & SC_COND_ASSIGN_DEFAULT ? ", assign_default" : "");
        break;
    default:
        sc_buf_printf(b, "%u\\nEMPTY\\n", (unsigned)id);
        dot_string(b, n->name, n->name_len);
        break;
    }
}

static void node_label(sc_buf *b, uint32_t id, const sc_node *n)
{
    if ((int)n->kind >= SC_KIND_MEM_ALLOC) {
        cuda_node_label(b, id, n);
        return;
    }
    switch (n->kind) {
    case SC_KIND_KERNEL:
        sc_buf_printf(b, "%u\\nKERNEL\\n", (unsigned)id);
        dot_string(b, n->name, n->name_len);
        if (sc_node_attrs(n) & SC_NODE_ATTR_SHAPE)
            sc_buf_printf(b, "\\n<<<(%u,%u,%u), (%u,%u,%u), %u>>>", (unsigned)n->num_blocks,
                          (unsigned)n->grid_y, (unsigned)n->grid_z, (unsigned)n->threads_per_block,
                          (unsigned)n->block_y, (unsigned)n->block_z, (unsigned)n->shared_mem);
        else
            sc_buf_printf(b, "\\n<<<%u, %u, %u>>>", (unsigned)n->num_blocks,
                          (unsigned)n->threads_per_block, (unsigned)n->shared_mem);
        args_label(b, n);
        break;
    case SC_KIND_MEMCPY:
        sc_buf_printf(b, "%u\\nMEMCPY\\n", (unsigned)id);
        dot_string(b, n->name, n->name_len);
        if (sc_node_attrs(n) & SC_NODE_ATTR_DEVICES)
            sc_buf_printf(b, "\\nPeerToPeer(dev%u→dev%u)", (unsigned)n->src_device,
                          (unsigned)n->dst_device);
        else if ((int)n->dir == SC_DIR_HOST_TO_HOST)
            sc_buf_puts(b, "\\nHtoH");
        else if ((int)n->dir == SC_DIR_DEFAULT)
            sc_buf_puts(b, "\\nDefault");
        else
            sc_buf_printf(b, "\\n%s", dir_short[n->dir & 3]);
        sc_buf_printf(b, "\\nsize %llu", (unsigned long long)n->size_bytes);
        break;
    case SC_KIND_MEMSET:
        sc_buf_printf(b, "%u\\nMEMSET\\n", (unsigned)id);
        dot_string(b, n->name, n->name_len);
        sc_buf_printf(b, "\\nsize %llu\\nvalue %u", (unsigned long long)n->size_bytes,
                      (unsigned)n->value);
        break;
    case SC_KIND_HOST_CALLBACK:
        sc_buf_printf(b, "%u\\nHOST\\n", (unsigned)id);
        dot_string(b, n->name, n->name_len);
        break;
    }
}

typedef struct by_stream {
    uint32_t stream;
    uint32_t id;
} by_stream;

static int cmp_by_stream(const void *pa, const void *pb)
{
    const by_stream *a = pa, *b = pb;
    if (a->stream != b->stream)
        return a->stream < b->stream ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* Hand `out` to `flush` once it holds `chunk` bytes (every time with `last`). */
static void maybe_flush(sc_buf *out, size_t chunk, bool last, sc_dot_flush_fn flush, void *ctx)
{
    if (flush && !sc_buf_failed(out) && (out->len >= chunk || (last && out->len > 0)))
        flush(ctx, out);
}

int sc_dot_render(const sc_graph *g, int64_t graph_id, sc_buf *out)
{
    return sc_dot_render_chunks(g, graph_id, out, 0, NULL, NULL);
}

int sc_dot_render_chunks(const sc_graph *g, int64_t graph_id, sc_buf *out, size_t chunk,
                         sc_dot_flush_fn flush, void *ctx)
{
    uint32_t n = sc_graph_node_count(g);
    by_stream *order = malloc((n ? n : 1) * sizeof(*order));
    if (!order)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        sc_node node;
        sc_graph_node(g, i, &node);
        order[i].stream = node.stream;
        order[i].id = i;
    }
    qsort(order, n, sizeof(*order), cmp_by_stream);

    sc_buf_printf(out, "digraph \"graph_%lld\" {\n", (long long)graph_id);
    sc_buf_puts(out, "  node [shape=rectangle, style=solid];\n");
    for (uint32_t i = 0; i < n; i++) {
        uint32_t stream = order[i].stream;
        if (i == 0 || order[i - 1].stream != stream) {
            if (i)
                sc_buf_puts(out, "  }\n");
            sc_buf_printf(out, "  subgraph \"cluster_stream_%u\" {\n", (unsigned)stream);
            if (stream == 0)
                sc_buf_puts(out, "    label=\"S:default\"; style=dashed;\n");
            else
                sc_buf_printf(out, "    label=\"S%u\"; style=dashed;\n", (unsigned)stream);
        }
        sc_node node;
        sc_graph_node(g, order[i].id, &node);
        sc_buf_printf(out, "    \"n%u\" [label=\"", (unsigned)order[i].id);
        node_label(out, order[i].id, &node);
        sc_buf_puts(out, "\"];\n");
        maybe_flush(out, chunk, false, flush, ctx);
    }
    if (n)
        sc_buf_puts(out, "  }\n");
    free(order);
    uint64_t ne = sc_graph_edge_count(g);
    for (uint64_t i = 0; i < ne; i++) {
        uint32_t src, dst;
        sc_graph_edge(g, i, &src, &dst);
        sc_buf_printf(out, "  \"n%u\" -> \"n%u\";\n", (unsigned)src, (unsigned)dst);
        maybe_flush(out, chunk, false, flush, ctx);
    }
    sc_buf_puts(out, "}\n");
    maybe_flush(out, chunk, true, flush, ctx);
    return sc_buf_failed(out) ? -1 : 0;
}
