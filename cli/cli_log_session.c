/*
 * cli_log_session.c - what the log tells of a cuda-mode session: the cells
 * of its row (a session holds many captures and graphs, where a default
 * one holds one graph), and `streamcap log --session N`, each capture of
 * one session with its outcome and the call that broke it.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* Graph ids listed in a row before the rest are only counted. */
#define ROW_GRAPHS 4

static size_t count_outcome(const sc_client_log_entry *e, const char *outcome)
{
    size_t n = 0;
    for (size_t i = 0; i < e->capture_count; i++)
        n += strcmp(e->captures[i].outcome, outcome) == 0;
    return n;
}

uint64_t cli_log_cuda_nodes(const sc_client_log_entry *e)
{
    uint64_t n = 0;
    for (size_t i = 0; i < e->capture_count; i++)
        n += e->captures[i].node_count;
    return n;
}

void cli_log_cuda_graphs(const sc_client_log_entry *e, char *out, size_t len)
{
    size_t used = 0, listed = 0, more = 0;
    out[0] = '\0';
    for (size_t i = 0; i < e->capture_count; i++) {
        if (!e->captures[i].graph)
            continue;
        if (listed == ROW_GRAPHS) {
            more++;
            continue;
        }
        int w = snprintf(out + used, len - used, "%s%llu", listed ? "," : "",
                         (unsigned long long)e->captures[i].graph);
        if (w < 0 || (size_t)w >= len - used)
            break;
        used += (size_t)w;
        listed++;
    }
    if (more && used < len)
        snprintf(out + used, len - used, ",+%zu more", more);
    if (!listed)
        snprintf(out, len, "-");
}

void cli_log_cuda_captures(const sc_client_log_entry *e, char *out, size_t len)
{
    static const char *const outcomes[] = {"completed", "failed", "discarded"};
    int used = snprintf(out, len, "%zu", e->capture_count);
    const char *sep = " (";
    for (size_t k = 0; k < 3 && used > 0 && (size_t)used < len; k++) {
        size_t n = count_outcome(e, outcomes[k]);
        if (!n)
            continue;
        used += snprintf(out + used, len - (size_t)used, "%s%zu %s", sep, n, outcomes[k]);
        sep = ", ";
    }
    if (e->capture_count && used > 0 && (size_t)used + 1 < len)
        strcat(out, ")");
}

/* ------------------------------------------------------ --session N */

/* "cudaLaunchKernel (cudaErrorStreamCaptureImplicit)", or the method and
 * stream when the call was not named. */
static void broken_by(const sc_client_capture_record *r, char *out, size_t len)
{
    if (!r->inv_method) {
        snprintf(out, len, "-");
        return;
    }
    if (r->inv_call)
        snprintf(out, len, "%s (%s)", r->inv_call, r->inv_cuda_name ? r->inv_cuda_name : "?");
    else
        snprintf(out, len, "%s on stream %u (%s)", r->inv_method, (unsigned)r->inv_stream,
                 r->inv_cuda_name ? r->inv_cuda_name : "?");
}

static void session_text(const sc_client_log_entry *e)
{
    char *label = cli_printable(e->label ? e->label : "-");
    printf("session %llu (%s mode), label %s, uid %u pid %lld: %s, opened %s, ended %s\n",
           (unsigned long long)e->session, e->semantics ? "cuda" : "default", label ? label : "",
           (unsigned)e->owner_uid, (long long)e->owner_pid, e->outcome, e->opened_at,
           e->ended_at ? e->ended_at : "-");
    free(label);
    if (!e->semantics) {
        printf("%llu nodes, graph ", (unsigned long long)e->node_count);
        printf(e->graph ? "%llu\n" : "-\n", (unsigned long long)e->graph);
        return;
    }
    if (e->capture_count == 0) {
        puts("no capture ended");
        return;
    }
    static const char *const head[] = {"CAPTURE", "STREAM", "MODE",  "THREAD",
                                       "OUTCOME", "NODES",  "GRAPH", "BROKEN BY"};
    cli_table t;
    cli_table_init(&t, sizeof(head) / sizeof(head[0]), head);
    for (size_t i = 0; i < e->capture_count; i++) {
        const sc_client_capture_record *r = &e->captures[i];
        char why[256];
        broken_by(r, why, sizeof(why));
        char *safe = cli_printable(why);
        cli_table_cell(&t, "%llu", (unsigned long long)r->capture);
        cli_table_cell(&t, "%u", (unsigned)r->origin);
        cli_table_cell(&t, "%s", r->mode);
        cli_table_cell(&t, "%u", (unsigned)r->thread);
        if (r->cuda_error)
            cli_table_cell(&t, "%s %s", r->outcome, r->cuda_name ? r->cuda_name : "");
        else
            cli_table_cell(&t, "%s", r->outcome);
        cli_table_cell(&t, "%llu", (unsigned long long)r->node_count);
        if (r->graph)
            cli_table_cell(&t, "%llu", (unsigned long long)r->graph);
        else
            cli_table_cell(&t, "-");
        cli_table_cell(&t, "%s", safe ? safe : "");
        free(safe);
    }
    cli_table_print(&t, stdout);
    cli_table_free(&t);
}

/* Page through the log (newest first) for one session's entry: 1 found
 * (printed), 0 not there, < 0 the daemon's error. */
static int find_session(cli *x, uint64_t id,
                        void (*json_row)(sc_buf *, const sc_client_log_entry *))
{
    sc_client_list_opts o = {.limit = 1000};
    char *cursor = NULL;
    for (;;) {
        sc_client_log_page p = {0};
        o.before = cursor;
        int rc = sc_client_log_list(x->c, &o, &p);
        free(cursor);
        cursor = NULL;
        if (rc != 0)
            return rc;
        int found = 0;
        for (size_t i = 0; i < p.count && !found; i++) {
            if (p.entries[i].session != id)
                continue;
            found = 1;
            if (x->json) {
                sc_buf b = SC_BUF_INIT;
                json_row(&b, &p.entries[i]);
                found = cli_emit_json(x, &b) == CLI_OK ? 1 : 2;
            } else {
                session_text(&p.entries[i]);
            }
        }
        if (!found && p.next && p.count)
            cursor = strdup(p.next);
        sc_client_log_page_free(&p);
        if (found || !cursor)
            return found;
    }
}

int cli_log_session(cli *x, const char *arg,
                    void (*json_row)(sc_buf *, const sc_client_log_entry *))
{
    uint64_t id;
    if (cli_parse_id(arg, &id) != 0)
        return cli_usage_fail(x, "--session takes a session id");
    if (cli_connect(x) != CLI_OK)
        return CLI_ERROR;
    int rc = find_session(x, id, json_row);
    if (rc < 0)
        return cli_call_fail(x, rc);
    if (rc == 0)
        return cli_fail(x, "session %llu is not in the log", (unsigned long long)id);
    return rc == 1 ? CLI_OK : CLI_ERROR;
}
