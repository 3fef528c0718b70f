/*
 * cli_diff.c - streamcap graph diff A B: graph.diff, readable or --json;
 * exits 0 when the graphs are the same, 1 when they differ, 2 on error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void write_ids(sc_buf *b, bool *first, const char *key, const uint32_t *v, size_t n)
{
    sc_json_key(b, first, key);
    sc_json_u32_array(b, v, n);
}

static void write_edges(sc_buf *b, bool *first, const char *key, const sc_client_edge *e, size_t n)
{
    sc_json_key(b, first, key);
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++)
        sc_buf_printf(b, i ? ",[%u,%u]" : "[%u,%u]", (unsigned)e[i].src, (unsigned)e[i].dst);
    sc_buf_putc(b, ']');
}

/* The fields, comma-separated in the client's form, as a JSON array. */
static void write_fields(sc_buf *b, const char *fields)
{
    sc_buf_putc(b, '[');
    for (const char *p = fields; *p;) {
        size_t len = strcspn(p, ",");
        if (p != fields)
            sc_buf_putc(b, ',');
        sc_json_string(b, p, len);
        p += len + (p[len] == ',');
    }
    sc_buf_putc(b, ']');
}

void cli_diff_write_json(sc_buf *b, uint64_t a, uint64_t bid, const sc_client_diff *d)
{
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_member_u64(b, &first, "a", a);
    sc_json_member_u64(b, &first, "b", bid);
    sc_json_member_bool(b, &first, "identical", d->identical);
    write_ids(b, &first, "nodes_added", d->nodes_added, d->n_added);
    write_ids(b, &first, "nodes_removed", d->nodes_removed, d->n_removed);
    sc_json_key(b, &first, "nodes_changed");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < d->n_changed; i++) {
        const sc_client_node_change *c = &d->nodes_changed[i];
        sc_buf_printf(b, "%s{\"a\":%u,\"b\":%u,\"fields\":", i ? "," : "", (unsigned)c->a,
                      (unsigned)c->b);
        write_fields(b, c->fields);
        sc_buf_putc(b, '}');
    }
    sc_buf_putc(b, ']');
    write_edges(b, &first, "edges_added", d->edges_added, d->n_edges_added);
    write_edges(b, &first, "edges_removed", d->edges_removed, d->n_edges_removed);
    sc_json_obj_end(b);
}

void cli_diff_print(FILE *out, uint64_t a, uint64_t b, const sc_client_diff *d)
{
    if (d->identical) {
        fprintf(out, "graphs %" PRIu64 " and %" PRIu64 " are the same\n", a, b);
        return;
    }
    fprintf(out,
            "graph %" PRIu64 " -> %" PRIu64 ": %zu nodes added, %zu removed, %zu changed; "
            "%zu edges added, %zu removed\n",
            a, b, d->n_added, d->n_removed, d->n_changed, d->n_edges_added, d->n_edges_removed);
    for (size_t i = 0; i < d->n_removed; i++)
        fprintf(out, "- node %u\n", (unsigned)d->nodes_removed[i]);
    for (size_t i = 0; i < d->n_added; i++)
        fprintf(out, "+ node %u\n", (unsigned)d->nodes_added[i]);
    for (size_t i = 0; i < d->n_changed; i++)
        fprintf(out, "~ node %u -> %u: %s\n", (unsigned)d->nodes_changed[i].a,
                (unsigned)d->nodes_changed[i].b, d->nodes_changed[i].fields);
    for (size_t i = 0; i < d->n_edges_removed; i++)
        fprintf(out, "- edge %u -> %u\n", (unsigned)d->edges_removed[i].src,
                (unsigned)d->edges_removed[i].dst);
    for (size_t i = 0; i < d->n_edges_added; i++)
        fprintf(out, "+ edge %u -> %u\n", (unsigned)d->edges_added[i].src,
                (unsigned)d->edges_added[i].dst);
}

int cli_graph_diff(cli *x, int argc, char **argv)
{
    uint64_t a, b;
    if (argc < 2)
        return cli_usage_fail(x, "missing argument");
    if (argc > 2)
        return cli_usage_fail(x, "unexpected argument '%s'", argv[2]);
    for (int i = 0; i < 2; i++)
        if (cli_parse_id(argv[i], i ? &b : &a) != 0)
            return cli_usage_fail(x, "'%s' is not a graph id (a positive integer)", argv[i]);
    if (cli_connect(x) != CLI_OK)
        return CLI_ERROR;
    sc_client_diff d = {0};
    int rc = sc_client_graph_diff(x->c, a, b, &d);
    if (rc != 0)
        return cli_call_fail(x, rc);
    int status = d.identical ? CLI_OK : CLI_NEGATIVE;
    if (!x->json) {
        cli_diff_print(stdout, a, b, &d);
        sc_client_diff_free(&d);
        return status;
    }
    sc_buf buf = SC_BUF_INIT;
    cli_diff_write_json(&buf, a, b, &d);
    sc_client_diff_free(&d);
    rc = cli_emit_json(x, &buf);
    return rc != CLI_OK ? rc : status;
}
