/*
 * cli_races.c - streamcap graph races ID: graph.races as sentences or
 * --json, and the races drawn into graph render's DOT text (--races).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The daemon lists at most this many races a call (docs/analyses.md). */
#define RACES_LIMIT_MAX     100000
#define RACES_LIMIT_DEFAULT 1000

static const char *mode_verb(unsigned mode)
{
    return mode == 1 ? "reads" : mode == 2 ? "writes" : "reads and writes";
}

/* "memset zero_out (node 3, stream 2)"; a node the graph lacks (it cannot
 * happen, but the reply is only trusted so far) by its id alone. */
static void print_node(const sc_client_graph *g, uint32_t id, FILE *f)
{
    const sc_client_node *n = id < g->node_count ? &g->nodes[id] : NULL;
    if (!n) {
        fprintf(f, "node %u", (unsigned)id);
        return;
    }
    const char *name = n->name && *n->name ? n->name
                       : n->function_name  ? n->function_name
                       : n->label          ? n->label
                                           : "";
    char *safe = cli_printable(name);
    fprintf(f, "%s%s%s (node %u, stream %u)", sc_client_kind_name(n->kind), *name ? " " : "",
            safe ? safe : "?", (unsigned)id, (unsigned)n->stream);
    free(safe);
}

static void print_race(const sc_client_graph *g, const sc_client_race *r, FILE *f)
{
    print_node(g, r->a, f);
    fprintf(f, " %s 0x%" PRIx64 "+%" PRIu64 " while ", mode_verb(r->a_mode), r->address, r->size);
    print_node(g, r->b, f);
    fprintf(f, " %s it, and nothing orders them\n", mode_verb(r->b_mode));
}

static int print_readable(cli *x, uint64_t id, const sc_client_races *r)
{
    if (r->n > 0) {
        sc_client_graph g;
        int rc = sc_client_graph_get(x->c, id, &g);
        if (rc != 0)
            return cli_call_fail(x, rc);
        for (size_t i = 0; i < r->n; i++)
            print_race(&g, &r->races[i], stdout);
        sc_client_graph_free(&g);
    }
    if (r->count == 0)
        printf("graph %" PRIu64 ": no races\n", id);
    else if (r->count > r->n)
        printf("graph %" PRIu64 ": %" PRIu64 " race%s (%zu shown; --limit N shows more)\n", id,
               r->count, r->count == 1 ? "" : "s", r->n);
    else
        printf("graph %" PRIu64 ": %" PRIu64 " race%s\n", id, r->count, r->count == 1 ? "" : "s");
    return fflush(stdout) == 0 ? CLI_OK : cli_stdout_failed(x);
}

static void write_json(sc_buf *b, uint64_t id, const sc_client_races *r)
{
    bool first, rf;
    sc_json_obj_begin(b, &first);
    sc_json_member_u64(b, &first, "graph", id);
    sc_json_key(b, &first, "races");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < r->n; i++) {
        const sc_client_race *x = &r->races[i];
        if (i > 0)
            sc_buf_putc(b, ',');
        sc_json_obj_begin(b, &rf);
        sc_json_member_u64(b, &rf, "a", x->a);
        sc_json_member_u64(b, &rf, "b", x->b);
        sc_json_member_u64(b, &rf, "address", x->address);
        sc_json_member_u64(b, &rf, "size", x->size);
        sc_json_member_cstr(b, &rf, "a_mode", sc_client_access_mode_name(x->a_mode));
        sc_json_member_cstr(b, &rf, "b_mode", sc_client_access_mode_name(x->b_mode));
        sc_json_obj_end(b);
    }
    sc_buf_putc(b, ']');
    sc_json_member_u64(b, &first, "count", r->count);
    sc_json_obj_end(b);
}

int cli_graph_races(cli *x, int argc, char **argv)
{
    uint64_t id, limit = RACES_LIMIT_DEFAULT;
    if (cli_uint_opt(x, &argc, argv, "--limit", RACES_LIMIT_MAX,
                     "--limit takes a number of races, 0 to 100000", &limit) != CLI_OK ||
        cli_graph_id_args(x, argc, argv, 1, &id) != CLI_OK || cli_connect(x) != CLI_OK)
        return CLI_ERROR;
    sc_client_races r;
    int rc = sc_client_graph_races(x->c, id, (uint32_t)limit, &r);
    if (rc != 0)
        return cli_call_fail(x, rc);
    int st;
    if (x->json) {
        sc_buf b = SC_BUF_INIT;
        write_json(&b, id, &r);
        st = cli_emit_json(x, &b);
    } else {
        st = print_readable(x, id, &r);
    }
    bool any = r.count > 0;
    sc_client_races_free(&r);
    return st == CLI_OK && any ? CLI_NEGATIVE : st;
}

int cli_dot_add_races(cli *x, uint64_t id, char **text)
{
    sc_client_races r;
    int rc = sc_client_graph_races(x->c, id, RACES_LIMIT_MAX, &r);
    if (rc != 0)
        return cli_call_fail(x, rc);
    char *end = strrchr(*text, '}');
    size_t head = end ? (size_t)(end - *text) : strlen(*text);
    sc_buf b = SC_BUF_INIT;
    sc_buf_append(&b, *text, head);
    for (size_t i = 0; i < r.n; i++) {
        const sc_client_race *p = &r.races[i];
        if (i > 0 && p->a == r.races[i - 1].a && p->b == r.races[i - 1].b)
            continue; /* one line per pair, however many ranges */
        sc_buf_printf(&b,
                      "  \"n%u\" [color=red, style=filled, fillcolor=\"#ffd8d8\"];\n"
                      "  \"n%u\" [color=red, style=filled, fillcolor=\"#ffd8d8\"];\n"
                      "  \"n%u\" -> \"n%u\" [color=red, style=dashed, dir=none, "
                      "constraint=false];\n",
                      (unsigned)p->a, (unsigned)p->b, (unsigned)p->a, (unsigned)p->b);
    }
    sc_buf_puts(&b, end ? end : "}\n");
    sc_client_races_free(&r);
    size_t len;
    char *out = sc_buf_detach(&b, &len);
    if (!out)
        return cli_fail(x, "out of memory");
    free(*text);
    *text = out;
    return CLI_OK;
}
