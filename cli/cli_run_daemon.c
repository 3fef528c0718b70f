/*
 * cli_run_daemon.c - streamcap run: the graphs of a program that wrote no
 * exit report (killed, crashed, _exit), asked of the daemon.  The stand-in
 * reports its graphs only at exit, but the daemon stored each one as the
 * program ended its capture; graph.list names the process that stored it
 * (owner_pid), and the run knows its program's pid and when it started.
 */
#define _XOPEN_SOURCE 700

#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_run.h"
#include "sc_report.h"

/* A page of graph.list is newest first; this many per request. */
#define PAGE_LIMIT 1000
/* Asking must not hold the run's exit for long when the daemon is gone. */
#define ASK_TIMEOUT_MS 5000

/* "2026-11-29T19:44:21.123Z", the daemon's created_at format: such strings
 * sort as the times they name. */
static void iso_ms(int64_t ms, char *out, size_t len)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    char day[32];
    strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, len, "%s.%03dZ", day, (int)(ms % 1000));
}

static bool has_proc(const run_report *r, int64_t pid)
{
    for (size_t i = 0; i < r->nprocs; i++)
        if (r->procs[i].pid == pid)
            return true;
    return false;
}

static int add_graph(run_report *r, const sc_client_graph_summary *g)
{
    run_item *items = realloc(r->items, (r->nitems + 1) * sizeof(*items));
    if (!items)
        return -1;
    r->items = items;
    run_item *it = &items[r->nitems];
    memset(it, 0, sizeof(*it));
    it->pid = g->owner_pid;
    it->from_daemon = true;
    it->has_graph = true;
    it->graph = g->graph;
    it->nodes = g->node_count;
    it->edges = g->edge_count;
    it->outcome = strdup(SC_REPORT_STORED);
    it->label = g->label && *g->label ? strdup(g->label) : NULL;
    if (!it->outcome)
        return -1;
    r->nitems++;
    return 0;
}

/* The graphs of `pid` on one page; *done once the page reaches graphs
 * older than `since`. */
static int take_page(run_report *r, const sc_client_graph_page *p, int64_t pid, const char *since,
                     bool *done)
{
    for (size_t i = 0; i < p->count; i++) {
        const sc_client_graph_summary *g = &p->graphs[i];
        if (g->created_at && strcmp(g->created_at, since) < 0) {
            *done = true;
            break;
        }
        if (g->owner_pid == pid && add_graph(r, g) != 0)
            return -1;
    }
    return 0;
}

/* Pages come newest first: the graphs found are put back in id order. */
static int cmp_graph(const void *a, const void *b)
{
    const run_item *x = a, *y = b;
    return (x->graph > y->graph) - (x->graph < y->graph);
}

static void set_error(run_report *r, const char *what, int rc)
{
    char msg[256];
    snprintf(msg, sizeof(msg), "%s%s%s", what, rc ? ": " : "", rc ? sc_client_strerror(rc) : "");
    free(r->daemon_error);
    r->daemon_error = strdup(msg);
}

void cli_run_from_daemon(cli *x, run_report *r, int64_t pid, int64_t since_ms)
{
    if (pid <= 0 || has_proc(r, pid))
        return;
    r->asked_daemon = true;
    char since[40];
    iso_ms(since_ms, since, sizeof(since));
    sc_client *c = NULL;
    int rc = sc_client_connect(x->socket, ASK_TIMEOUT_MS, &c);
    if (rc != 0) {
        set_error(r, "cannot connect", rc);
        return;
    }
    size_t first = r->nitems;
    char *cursor = NULL;
    bool done = false;
    while (!done) {
        sc_client_list_opts o = {.limit = PAGE_LIMIT, .before = cursor};
        sc_client_graph_page p = {0};
        rc = sc_client_graph_list(c, &o, &p);
        if (rc != 0) {
            set_error(r, "graph.list failed", rc);
            break;
        }
        if (take_page(r, &p, pid, since, &done) != 0) {
            set_error(r, "out of memory", 0);
            done = true;
        }
        free(cursor);
        cursor = p.next ? strdup(p.next) : NULL;
        done = done || !cursor;
        sc_client_graph_page_free(&p);
    }
    free(cursor);
    /* qsort may not be given a null array, even an empty one. */
    if (r->nitems > first)
        qsort(r->items + first, r->nitems - first, sizeof(*r->items), cmp_graph);
    sc_client_close(c);
}
