/*
 * rt_report.c - the graphs built by hand (sc_rt_submit_graph) and the exit: drain the daemon mirror
 * (bounded), then append the report lines to $STREAMCAP_REPORT in one write, so that processes
 * sharing the file never interleave within a line.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_feed.h"
#include "rt_int.h"
/* The format, shared with the reader in cli/cli_run_report.c. */
#include "../proto/sc_report.h"

#define KEY SC_REPORT_KEY

void sc_rt_report_write(sc_rt_state *st);

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* Captures begun by this process: a fork()ed child's own and those it
 * inherited still running. */
static uint32_t captures_begun(const sc_rt_state *st)
{
    uint32_t n = 0;
    for (uint32_t c = 1; c <= st->ncaps; c++)
        n += !st->caps[c].inherited;
    return n;
}

static void process_line(FILE *f, sc_rt_state *st, long pid, const char *daemon, uint64_t session)
{
    fprintf(f,
            "{" KEY(SC_REPORT_EVENT) "\"" SC_REPORT_EV_PROCESS
                                     "\"," KEY(SC_REPORT_PID) "%ld," KEY(SC_REPORT_PROGRAM),
            pid);
    json_str(f, st->program);
    fputs("," KEY(SC_REPORT_LABEL), f);
    json_str(f, st->label);
    fprintf(f, "," KEY(SC_REPORT_DAEMON) "\"%s\"," KEY(SC_REPORT_SESSION), daemon);
    if (session)
        fprintf(f, "%llu", (unsigned long long)session);
    else
        fputs("null", f);
    fprintf(f, "," KEY(SC_REPORT_CAPTURES_BEGUN) "%u," KEY(SC_REPORT_UNSUPPORTED) "[",
            captures_begun(st));
    bool first = true;
    for (size_t i = 0; i < SC_RT_NEXPORTS; i++) {
        if (!atomic_load(&st->unsupported[i]))
            continue;
        if (!first)
            fputc(',', f);
        first = false;
        json_str(f, sc_rt_export_name(i));
    }
    fputs("]}\n", f);
}

static const char *outcome_name(sc_rt_outcome o)
{
    switch (o) {
    case SC_RT_OUT_KEPT:
        return SC_REPORT_KEPT;
    case SC_RT_OUT_STORED:
        return SC_REPORT_STORED;
    case SC_RT_OUT_FAILED:
        return SC_REPORT_FAILED;
    default:
        return SC_REPORT_DISCARDED;
    }
}

static void capture_line(FILE *f, sc_rt_state *st, long pid, uint32_t c)
{
    sc_rt_capture *cap = &st->caps[c];
    uint64_t nodes = cap->nodes;
    sc_cuda_capture_info info;
    if (cap->outcome == SC_RT_OUT_RUNNING && sc_cuda_capture_get(st->cu, c, &info) == 0)
        nodes = info.node_count;
    fprintf(
        f,
        "{" KEY(
            SC_REPORT_EVENT) "\"" SC_REPORT_EV_CAPTURE
                             "\"," KEY(SC_REPORT_PID) "%ld," KEY(SC_REPORT_CAPTURE) "%u," KEY(
                                 SC_REPORT_MODE) "\"%s\"," KEY(SC_REPORT_OUTCOME) "\"%s\"," KEY(SC_REPORT_GRAPH),
        pid, c, sc_cuda_mode_name(cap->mode), outcome_name(cap->outcome));
    if (cap->outcome == SC_RT_OUT_STORED)
        fprintf(f, "%llu", (unsigned long long)cap->daemon_graph);
    else
        fputs("null", f);
    fprintf(f, "," KEY(SC_REPORT_NODE_COUNT) "%llu," KEY(SC_REPORT_EDGE_COUNT) "%llu",
            (unsigned long long)nodes, (unsigned long long)cap->edges);
    if (cap->outcome == SC_RT_OUT_FAILED) {
        fprintf(
            f,
            "," KEY(SC_REPORT_CALL) "\"cudaStreamEndCapture\"," KEY(SC_REPORT_CUDA_ERROR) "%d," KEY(
                SC_REPORT_CUDA_NAME) "\"%s\"," KEY(SC_REPORT_MESSAGE),
            (int)cap->error, cudaGetErrorName(cap->error));
        json_str(f, cudaGetErrorString(cap->error));
        if (cap->unjoined)
            fprintf(f, "," KEY(SC_REPORT_UNJOINED) "%s", cap->unjoined);
    }
    if (cap->broken_call && cap->outcome != SC_RT_OUT_KEPT && cap->outcome != SC_RT_OUT_STORED)
        fprintf(f,
                "," KEY(SC_REPORT_BROKEN_BY) "{" KEY(SC_REPORT_CALL) "\"%s\"," KEY(
                    SC_REPORT_CUDA_ERROR) "%d," KEY(SC_REPORT_CUDA_NAME) "\"%s\"}",
                cap->broken_call, (int)cap->broken_error, cudaGetErrorName(cap->broken_error));
    fputs("}\n", f);
}

static void graph_line(FILE *f, sc_rt_state *st, long pid, const sc_rt_submit *s)
{
    fprintf(f,
            "{" KEY(SC_REPORT_EVENT) "\"" SC_REPORT_EV_GRAPH "\"," KEY(SC_REPORT_PID) "%ld," KEY(
                SC_REPORT_SOURCE) "\"" SC_REPORT_SOURCE_SUBMIT "\"," KEY(SC_REPORT_LABEL),
            pid);
    json_str(f, st->label);
    fputs("," KEY(SC_REPORT_GRAPH), f);
    if (s->daemon_graph)
        fprintf(f, "%llu", (unsigned long long)s->daemon_graph);
    else
        fputs("null", f);
    fprintf(f, "," KEY(SC_REPORT_NODE_COUNT) "%llu," KEY(SC_REPORT_EDGE_COUNT) "%llu}\n",
            (unsigned long long)s->nodes, (unsigned long long)s->edges);
}

void sc_rt_report_write(sc_rt_state *st)
{
    uint64_t session = 0;
    const char *daemon = sc_rt_feed_finish(st, &session);
    const char *path = getenv(SC_REPORT_ENV);
    if (!path || !*path)
        return;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return;
    long pid = (long)getpid();
    process_line(f, st, pid, daemon, session);
    for (uint32_t c = 1; c <= st->ncaps; c++) {
        if (!st->caps[c].inherited)
            capture_line(f, st, pid, c);
    }
    for (size_t i = st->submits_inherited; i < st->nsubmits; i++)
        graph_line(f, st, pid, &st->submits[i]);
    if (fclose(f) != 0) {
        free(buf);
        return;
    }
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "streamcap: cannot write the report to %s\n", path);
    } else {
        if (write(fd, buf, len) != (ssize_t)len)
            fprintf(stderr, "streamcap: the report to %s is incomplete\n", path);
        close(fd);
    }
    free(buf);
}

void sc_rt_submit_graph(cudaGraph_t g)
{
    sc_rt_state *st = sc_rt_state_get();
    if (st->nsubmits == st->submits_cap) {
        size_t cap = st->submits_cap ? st->submits_cap * 2 : 8;
        sc_rt_submit *s = realloc(st->submits, cap * sizeof *s);
        if (!s)
            return;
        st->submits = s;
        st->submits_cap = cap;
    }
    const uint32_t *from, *to;
    size_t m;
    sc_rt_graph_edges(g, &from, &to, &m);
    sc_rt_submit *s = &st->submits[st->nsubmits];
    s->daemon_graph = 0;
    s->nodes = sc_rt_graph_node_count(g);
    s->edges = m;
    sc_rt_feed_submit(st, g, st->nsubmits++);
}
