/*
 * cli_bodies.c - the body graphs of child graph and conditional nodes, as
 * `graph show` prints them (each indented under a line naming its node)
 * and `graph render` draws them (inside a cluster standing for the node).
 * Bodies are fetched one graph at a time; both stop at a depth limit.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- show */

/* Every line of `text` with `indent` spaces in front. */
static void put_indented(const char *text, size_t len, unsigned indent, FILE *f)
{
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) + 1 : len;
        if (end - i > 1)
            fprintf(f, "%*s", (int)indent, "");
        fwrite(text + i, 1, end - i, f);
        i = end;
    }
}

static int show_level(cli *x, const sc_client_graph *g, unsigned depth, unsigned max_depth,
                      FILE *f);

/* Body `index` (graph `id`) of node n, printed and then its own bodies. */
static int show_body(cli *x, const sc_client_node *n, size_t index, uint64_t id, unsigned depth,
                     unsigned max_depth, FILE *f)
{
    unsigned indent = 4 * depth;
    fprintf(f, "\n%*sN%u %s: body %zu is graph %llu\n", (int)(indent - 4), "", (unsigned)n->id,
            sc_client_kind_name(n->kind), index, (unsigned long long)id);
    sc_client_graph b;
    int rc = sc_client_graph_get(x->c, id, &b);
    if (rc != 0)
        return cli_call_fail(x, rc);
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    int st = m ? CLI_OK : cli_fail(x, "out of memory");
    if (m) {
        cli_print_graph(&b, m);
        fclose(m);
        put_indented(text, len, indent, f);
        free(text);
        st = show_level(x, &b, depth, max_depth, f);
    }
    sc_client_graph_free(&b);
    return st;
}

/* The bodies of g's nodes, g being at `depth` (the top level is 0). */
static int show_level(cli *x, const sc_client_graph *g, unsigned depth, unsigned max_depth, FILE *f)
{
    for (size_t i = 0; i < g->node_count; i++) {
        const sc_client_node *n = &g->nodes[i];
        if (n->nbodies && depth >= max_depth) {
            fprintf(f, "\n%*sN%u %s: %zu body graph%s not shown (--depth %u)\n", (int)(4 * depth),
                    "", (unsigned)n->id, sc_client_kind_name(n->kind), n->nbodies,
                    n->nbodies == 1 ? "" : "s", max_depth);
            continue;
        }
        for (size_t j = 0; j < n->nbodies; j++) {
            int st = show_body(x, n, j, n->bodies[j], depth + 1, max_depth, f);
            if (st != CLI_OK)
                return st;
        }
    }
    return CLI_OK;
}

int cli_show_bodies(cli *x, const sc_client_graph *g, unsigned max_depth, FILE *f)
{
    return show_level(x, g, 0, max_depth, f);
}

/* -------------------------------------------------------------- render */

/* The node a line of the daemon's DOT export declares (`    "n3" [label=`),
 * or -1 for any other line. */
static long declared_node(const char *line, size_t len)
{
    size_t i = 0;
    while (i < len && line[i] == ' ')
        i++;
    if (len - i < 3 || line[i] != '"' || line[i + 1] != 'n')
        return -1;
    char *end;
    long id = strtol(line + i + 2, &end, 10);
    return end > line + i + 2 && end[0] == '"' && end[1] == ' ' && end[2] == '[' ? id : -1;
}

/* `line` with every node and cluster name ("n7", "cluster_stream_1"; not
 * text escaped inside a label) given `prefix` ("g12_"), so that a body's
 * names never meet its parent's or another body's. */
static void put_renamed(sc_buf *out, const char *line, size_t len, const char *prefix)
{
    static const char cluster[] = "cluster_";
    const size_t cl = sizeof cluster - 1;
    for (size_t i = 0; i < len; i++) {
        sc_buf_putc(out, line[i]);
        if (!*prefix || line[i] != '"' || (i > 0 && line[i - 1] == '\\'))
            continue;
        if (i + 2 < len && line[i + 1] == 'n' && line[i + 2] >= '0' && line[i + 2] <= '9') {
            sc_buf_puts(out, prefix);
        } else if (len - i - 1 >= cl && memcmp(line + i + 1, cluster, cl) == 0) {
            sc_buf_append(out, cluster, cl);
            sc_buf_puts(out, prefix);
            i += cl;
        }
    }
}

static int dot_graph(cli *x, uint64_t id, const char *prefix, unsigned depth, unsigned max_depth,
                     sc_buf *out);

/* Node n (declared by `line`) and its bodies, inside a cluster that is
 * the node drawn around them. */
static int dot_holder(cli *x, const sc_client_node *n, const char *line, size_t len,
                      const char *prefix, unsigned depth, unsigned max_depth, sc_buf *out)
{
    sc_buf_printf(out, "  subgraph \"cluster_%sn%u\" {\n", prefix, (unsigned)n->id);
    sc_buf_printf(out, "    label=\"N%u %s\"; style=solid;\n", (unsigned)n->id,
                  sc_client_kind_name(n->kind));
    put_renamed(out, line, len, prefix);
    for (size_t j = 0; j < n->nbodies; j++) {
        char sub[48];
        snprintf(sub, sizeof sub, "g%llu_", (unsigned long long)n->bodies[j]);
        sc_buf_printf(out,
                      "  subgraph \"cluster_%s\" {\n    label=\"body %zu: graph %llu\"; "
                      "style=dotted;\n",
                      sub, j, (unsigned long long)n->bodies[j]);
        int st = dot_graph(x, n->bodies[j], sub, depth + 1, max_depth, out);
        if (st != CLI_OK)
            return st;
        sc_buf_puts(out, "  }\n");
    }
    sc_buf_puts(out, "  }\n");
    return CLI_OK;
}

/* Graph id's DOT export into out: whole at the top (depth 0), else its
 * statements only, renamed with `prefix`; holding nodes with their bodies
 * down to max_depth. */
static int dot_graph(cli *x, uint64_t id, const char *prefix, unsigned depth, unsigned max_depth,
                     sc_buf *out)
{
    sc_client_graph g;
    char *text = NULL;
    int rc = sc_client_graph_get(x->c, id, &g);
    if (rc != 0)
        return cli_call_fail(x, rc);
    if ((rc = sc_client_graph_export_dot(x->c, id, &text)) != 0) {
        sc_client_graph_free(&g);
        return cli_call_fail(x, rc);
    }
    int st = CLI_OK;
    size_t total = strlen(text);
    for (size_t i = 0, lineno = 0; st == CLI_OK && i < total; lineno++) {
        const char *nl = memchr(text + i, '\n', total - i);
        size_t end = nl ? (size_t)(nl - text) + 1 : total, len = end - i;
        const char *line = text + i;
        i = end;
        /* A body keeps its statements: not the digraph line, the node
         * defaults or the closing brace. */
        if (depth > 0 && (lineno < 2 || (len >= 1 && line[0] == '}')))
            continue;
        long v = declared_node(line, len);
        const sc_client_node *n = v >= 0 && (size_t)v < g.node_count ? &g.nodes[v] : NULL;
        if (n && n->nbodies && depth < max_depth)
            st = dot_holder(x, n, line, len, prefix, depth, max_depth, out);
        else
            put_renamed(out, line, len, prefix);
    }
    free(text);
    sc_client_graph_free(&g);
    if (st == CLI_OK && sc_buf_failed(out))
        st = cli_fail(x, "out of memory");
    return st;
}

int cli_dot_with_bodies(cli *x, uint64_t id, unsigned max_depth, char **text)
{
    sc_buf out = SC_BUF_INIT;
    *text = NULL;
    int st = dot_graph(x, id, "", 0, max_depth, &out);
    if (st != CLI_OK) {
        sc_buf_free(&out);
        return st;
    }
    size_t len;
    *text = sc_buf_detach(&out, &len);
    return *text ? CLI_OK : cli_fail(x, "out of memory");
}
