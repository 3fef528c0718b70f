/*
 * cli_run_summary.c - streamcap run: the summary of what the program's
 * processes reported, as text for a terminal or as one JSON object.
 */
#define _XOPEN_SOURCE 700

#include "cli_run.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sc_report.h"

static const char no_report[] =
    "the program left no report (it did not exit normally, or it did not load " RUN_STANDIN
    ": was it linked with 'nvcc -cudart shared'?)";

static void json_item_common(sc_buf *b, bool *first, const run_item *it)
{
    sc_json_key(b, first, "capture");
    if (it->has_capture)
        sc_json_u64(b, it->capture);
    else
        sc_buf_puts(b, "null");
    sc_json_member_i64(b, first, "pid", it->pid);
    sc_json_member_cstr(b, first, "source",
                        it->from_daemon ? "daemon"
                        : it->submit    ? "submit"
                                        : "capture");
    if (it->label)
        sc_json_member_cstr(b, first, "label", it->label);
    if (it->mode)
        sc_json_member_cstr(b, first, "mode", it->mode);
}

static void json_failure(sc_buf *b, bool *first, const run_item *it)
{
    if (it->call)
        sc_json_member_cstr(b, first, "call", it->call);
    if (it->has_error)
        sc_json_member_i64(b, first, "cuda_error", it->cuda_error);
    if (it->cuda_name)
        sc_json_member_cstr(b, first, "cuda_name", it->cuda_name);
    if (it->message)
        sc_json_member_cstr(b, first, "message", it->message);
    if (it->nunjoined) {
        sc_json_key(b, first, "unjoined");
        sc_buf_putc(b, '[');
        for (size_t i = 0; i < it->nunjoined; i++) {
            bool uf;
            if (i)
                sc_buf_putc(b, ',');
            sc_json_obj_begin(b, &uf);
            sc_json_member_u64(b, &uf, "stream", it->unjoined[i].stream);
            sc_json_key(b, &uf, "nodes");
            sc_buf_putc(b, '[');
            for (size_t j = 0; j < it->unjoined[i].nnodes; j++)
                sc_buf_printf(b, "%s%llu", j ? "," : "",
                              (unsigned long long)it->unjoined[i].nodes[j]);
            sc_buf_putc(b, ']');
            sc_json_obj_end(b);
        }
        sc_buf_putc(b, ']');
    }
    if (!it->has_broken)
        return;
    bool bf;
    sc_json_key(b, first, "broken_by");
    sc_json_obj_begin(b, &bf);
    if (it->broken_call)
        sc_json_member_cstr(b, &bf, "call", it->broken_call);
    if (it->broken_has_error)
        sc_json_member_i64(b, &bf, "cuda_error", it->broken_error);
    if (it->broken_name)
        sc_json_member_cstr(b, &bf, "cuda_name", it->broken_name);
    sc_json_obj_end(b);
}

/* The items of one outcome as a JSON array member. */
static void json_items(sc_buf *b, bool *first, const char *key, const run_report *r,
                       const char *outcome)
{
    sc_json_key(b, first, key);
    sc_buf_putc(b, '[');
    bool any = false;
    for (size_t i = 0; i < r->nitems; i++) {
        const run_item *it = &r->items[i];
        if (!cli_run_outcome_is(it, outcome))
            continue;
        bool f;
        if (any)
            sc_buf_putc(b, ',');
        any = true;
        sc_json_obj_begin(b, &f);
        if (strcmp(outcome, SC_REPORT_STORED) == 0)
            sc_json_member_u64(b, &f, "graph", it->graph);
        json_item_common(b, &f, it);
        if (strcmp(outcome, SC_REPORT_STORED) == 0 || strcmp(outcome, SC_REPORT_KEPT) == 0) {
            sc_json_member_u64(b, &f, "node_count", it->nodes);
            sc_json_member_u64(b, &f, "edge_count", it->edges);
        }
        if (strcmp(outcome, SC_REPORT_FAILED) == 0)
            json_failure(b, &f, it);
        sc_json_obj_end(b);
    }
    sc_buf_putc(b, ']');
}

static void json_procs(sc_buf *b, bool *first, const run_report *r)
{
    sc_json_key(b, first, "processes");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < r->nprocs; i++) {
        const run_proc *p = &r->procs[i];
        bool f;
        if (i)
            sc_buf_putc(b, ',');
        sc_json_obj_begin(b, &f);
        sc_json_member_i64(b, &f, "pid", p->pid);
        cli_json_member_str_or_null(b, &f, "program", p->program);
        cli_json_member_str_or_null(b, &f, "label", p->label);
        cli_json_member_str_or_null(b, &f, "daemon", p->daemon);
        sc_json_key(b, &f, "session");
        if (p->has_session)
            sc_json_u64(b, p->session);
        else
            sc_buf_puts(b, "null");
        sc_json_obj_end(b);
    }
    sc_buf_putc(b, ']');
}

static void json_tail(sc_buf *b, bool *first, const run_report *r)
{
    sc_json_key(b, first, "unsupported");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < r->nunsupported; i++) {
        if (i)
            sc_buf_putc(b, ',');
        sc_json_cstr(b, r->unsupported[i]);
    }
    sc_buf_putc(b, ']');
    sc_json_member_bool(b, first, "report_missing", r->nprocs == 0);
    if (r->cudart_checked) {
        bool cf;
        sc_json_key(b, first, "cudart");
        sc_json_obj_begin(b, &cf);
        cli_json_member_str_or_null(b, &cf, "needed", r->cudart_soname);
        cli_json_member_str_or_null(b, &cf, "loaded_instead", r->cudart_other);
        sc_json_member_bool(b, &cf, "none", r->cudart_none);
        sc_json_obj_end(b);
    }
    sc_json_member_bool(b, first, "asked_daemon", r->asked_daemon);
    if (r->daemon_error)
        sc_json_member_cstr(b, first, "daemon_error", r->daemon_error);
    sc_json_key(b, first, "bad_report_lines");
    sc_buf_putc(b, '[');
    for (size_t i = 0; i < r->nbad; i++) {
        bool f;
        if (i)
            sc_buf_putc(b, ',');
        sc_json_obj_begin(b, &f);
        sc_json_member_u64(b, &f, "line", r->bad[i].line);
        sc_json_member_cstr(b, &f, "reason", r->bad[i].reason ? r->bad[i].reason : "");
        sc_json_obj_end(b);
    }
    sc_buf_putc(b, ']');
}

void cli_run_summary_json(sc_buf *b, const run_end *end, const run_report *r)
{
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_member_cstr(b, &first, "program", end->program);
    sc_json_member_i64(b, &first, "exit_status", end->status);
    sc_json_key(b, &first, "signal");
    if (end->signal)
        sc_json_i64(b, end->signal);
    else
        sc_buf_puts(b, "null");
    json_procs(b, &first, r);
    sc_json_member_u64(b, &first, "captures_begun", r->captures_begun);
    json_items(b, &first, "graphs", r, SC_REPORT_STORED);
    json_items(b, &first, "kept", r, SC_REPORT_KEPT);
    json_items(b, &first, "failed", r, SC_REPORT_FAILED);
    json_items(b, &first, "discarded", r, SC_REPORT_DISCARDED);
    json_tail(b, &first, r);
    if (end->fail)
        cli_run_fail_json(b, &first, end->fail);
    sc_json_obj_end(b);
    sc_buf_putc(b, '\n');
}

/* Text for a terminal: every string from the report passes through here. */
static void put_safe(FILE *f, const char *s)
{
    char *p = cli_printable(s ? s : "");
    fputs(p ? p : "", f);
    free(p);
}

static size_t count_outcome(const run_report *r, const char *o)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nitems; i++)
        n += cli_run_outcome_is(&r->items[i], o);
    return n;
}

/* "capture 3 of pid 42 (global mode)" or "graph built by hand in pid 42 (label x)" */
static void put_origin(FILE *f, const run_item *it)
{
    if (it->from_daemon) {
        fprintf(f, "stored by pid %lld, as the daemon lists it", (long long)it->pid);
        if (it->label) {
            fputs(", label ", f);
            put_safe(f, it->label);
        }
        return;
    }
    if (it->submit) {
        fprintf(f, "built by hand in pid %lld", (long long)it->pid);
        if (it->label) {
            fputs(", label ", f);
            put_safe(f, it->label);
        }
        return;
    }
    fprintf(f, "capture %llu of pid %lld", (unsigned long long)it->capture, (long long)it->pid);
    if (it->mode) {
        fputs(", ", f);
        put_safe(f, it->mode);
        fputs(" mode", f);
    }
}

static void put_counts(FILE *f, const run_item *it)
{
    fprintf(f, "%llu node%s, %llu edge%s", (unsigned long long)it->nodes, it->nodes == 1 ? "" : "s",
            (unsigned long long)it->edges, it->edges == 1 ? "" : "s");
}

static void put_cuda_error(FILE *f, const char *name, bool has, int64_t code)
{
    put_safe(f, name ? name : "a CUDA error");
    if (has)
        fprintf(f, " (%lld)", (long long)code);
}

static void text_failed(FILE *f, const run_item *it)
{
    fputs("    ", f);
    put_origin(f, it);
    fputs(": ", f);
    put_safe(f, it->call ? it->call : "its end");
    fputs(" failed with ", f);
    put_cuda_error(f, it->cuda_name, it->has_error, it->cuda_error);
    if (it->message) {
        fputs(": ", f);
        put_safe(f, it->message);
    }
    if (it->has_broken) {
        fputs("; broken by ", f);
        put_safe(f, it->broken_call ? it->broken_call : "an earlier call");
        if (it->broken_name || it->broken_has_error) {
            fputs(", which returned ", f);
            put_cuda_error(f, it->broken_name, it->broken_has_error, it->broken_error);
        }
    }
    for (size_t i = 0; i < it->nunjoined; i++) {
        const run_unjoined *u = &it->unjoined[i];
        fprintf(f, "%s stream %llu (node%s", i ? "," : "; unjoined work on",
                (unsigned long long)u->stream, u->nnodes == 1 ? "" : "s");
        for (size_t j = 0; j < u->nnodes; j++)
            fprintf(f, "%s %llu", j ? "," : "", (unsigned long long)u->nodes[j]);
        fputc(')', f);
    }
    fputc('\n', f);
}

static void text_item(FILE *f, const run_item *it)
{
    if (cli_run_outcome_is(it, SC_REPORT_FAILED)) {
        text_failed(f, it);
        return;
    }
    if (cli_run_outcome_is(it, SC_REPORT_STORED))
        fprintf(f, "    graph %llu: ", (unsigned long long)it->graph);
    else
        fputs("    ", f);
    if (!cli_run_outcome_is(it, SC_REPORT_DISCARDED)) {
        put_counts(f, it);
        fputs(" (", f);
        put_origin(f, it);
        fputs(")\n", f);
        return;
    }
    put_origin(f, it);
    fputc('\n', f);
}

static void text_section(FILE *f, const run_report *r, const char *outcome, const char *title)
{
    size_t n = count_outcome(r, outcome);
    if (n == 0 && strcmp(outcome, SC_REPORT_STORED) != 0)
        return;
    fprintf(f, "  %s: %zu\n", title, n);
    for (size_t i = 0; i < r->nitems; i++) {
        if (cli_run_outcome_is(&r->items[i], outcome))
            text_item(f, &r->items[i]);
    }
}

static void text_procs(FILE *f, const run_report *r)
{
    for (size_t i = 0; i < r->nprocs; i++) {
        const run_proc *p = &r->procs[i];
        fprintf(f, "  process %lld", (long long)p->pid);
        if (p->program) {
            fputs(" (", f);
            put_safe(f, p->program);
            fputc(')', f);
        }
        if (p->label) {
            fputs(", label ", f);
            put_safe(f, p->label);
        }
        fputs(": daemon ", f);
        put_safe(f, p->daemon ? p->daemon : "unknown");
        if (p->has_session)
            fprintf(f, ", session %llu", (unsigned long long)p->session);
        fputc('\n', f);
    }
}

/* Why the program left no report, as far as its loader tells: another
 * libcudart found first, one of another CUDA version, or none at all. */
static void text_no_report(FILE *f, const run_end *end, const run_report *r)
{
    const char *dir = r->standin ? r->standin : "STANDIN_DIR";
    if (r->cudart_other) {
        fputs("  the program left no report: it loaded ", f);
        put_safe(f, r->cudart_other);
        fprintf(f, " instead of the stand-in %s/" RUN_STANDIN "\n", dir);
        fputs("  (a DT_RPATH in the program, searched before LD_LIBRARY_PATH, or a copy of its "
              "own finds that one first);\n  run it with LD_PRELOAD=",
              f);
        fprintf(f,
                "%s/" RUN_STANDIN ", relink it with RUNPATH (-Wl,--enable-new-dtags) or "
                "without that path,\n  or remove it: patchelf --remove-rpath ",
                dir);
        put_safe(f, end->program);
        fputc('\n', f);
    } else if (r->cudart_soname && strcmp(r->cudart_soname, RUN_STANDIN) != 0) {
        fputs("  the program left no report: it needs ", f);
        put_safe(f, r->cudart_soname);
        fputs(", the stand-in is " RUN_STANDIN " (CUDA 13): rebuild it with CUDA 13\n", f);
    } else if (r->cudart_none) {
        fputs("  the program left no report (it did not exit normally, or it does not load "
              "libcudart.so at all:\n  its CUDA runtime is linked statically, which nvcc does "
              "by default and so do CMake's CUDA\n  projects; rebuild it with 'nvcc -cudart "
              "shared' or CMAKE_CUDA_RUNTIME_LIBRARY Shared)\n",
              f);
    } else {
        fprintf(f, "  %s\n", no_report);
    }
}

void cli_run_summary_text(FILE *f, const run_end *end, const run_report *r)
{
    fputs("streamcap run: ", f);
    put_safe(f, end->program);
    if (end->signal)
        fprintf(f, " was killed by signal %d (%s); exit status %d\n", end->signal,
                strsignal(end->signal), end->status);
    else
        fprintf(f, " exited with status %d\n", end->status);
    if (r->nprocs == 0)
        text_no_report(f, end, r);
    if (r->nprocs == 0 && r->asked_daemon && !r->daemon_error)
        fputs("  the graphs stored are those the daemon lists for the program's process since the "
              "run began\n",
              f);
    if (r->nprocs == 0 && r->asked_daemon && r->daemon_error) {
        fputs("  the daemon could not be asked for the graphs the program stored: ", f);
        put_safe(f, r->daemon_error);
        fputc('\n', f);
    }
    text_procs(f, r);
    fprintf(f, "  captures begun: %llu\n", (unsigned long long)r->captures_begun);
    text_section(f, r, SC_REPORT_STORED, "graphs stored");
    text_section(f, r, SC_REPORT_FAILED, "failed captures");
    text_section(f, r, SC_REPORT_KEPT, "kept in the process, stored by no daemon");
    text_section(f, r, SC_REPORT_DISCARDED, "never ended by the program");
    if (r->nunsupported) {
        fputs("  runtime calls the stand-in does not support:", f);
        for (size_t i = 0; i < r->nunsupported; i++) {
            fputs(i ? ", " : " ", f);
            put_safe(f, r->unsupported[i]);
        }
        fputc('\n', f);
    }
    for (size_t i = 0; i < r->nbad; i++) {
        if (r->bad[i].line)
            fprintf(f, "  report line %zu skipped: %s\n", r->bad[i].line, r->bad[i].reason);
        else
            fprintf(f, "  the report could not be read: %s\n", r->bad[i].reason);
    }
}

/* ---------------------------------------------------- the stand-in */
