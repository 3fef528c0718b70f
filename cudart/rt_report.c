/*
 * rt_report.c - the exit: drain the daemon mirror (bounded), then append
 * the report lines to $STREAMCAP_REPORT in one write, so that processes
 * sharing the file never interleave within a line.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_int.h"

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

static void process_line(FILE *f, sc_rt_state *st, long pid, const char *daemon, uint64_t session)
{
    fprintf(f, "{\"event\":\"process\",\"pid\":%ld,\"program\":", pid);
    json_str(f, st->program);
    fputs(",\"label\":", f);
    json_str(f, st->label);
    fprintf(f, ",\"daemon\":\"%s\",\"session\":", daemon);
    if (session)
        fprintf(f, "%llu", (unsigned long long)session);
    else
        fputs("null", f);
    fprintf(f, ",\"captures_begun\":%u,\"unsupported\":[", st->ncaps);
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
        return "kept";
    case SC_RT_OUT_STORED:
        return "stored";
    case SC_RT_OUT_FAILED:
        return "failed";
    default:
        return "discarded";
    }
}

static void capture_line(FILE *f, sc_rt_state *st, long pid, uint32_t c)
{
    sc_rt_capture *cap = &st->caps[c];
    uint64_t nodes = cap->nodes;
    sc_cuda_capture_info info;
    if (cap->outcome == SC_RT_OUT_RUNNING && sc_cuda_capture_get(st->cu, c, &info) == 0)
        nodes = info.node_count;
    fprintf(f,
            "{\"event\":\"capture\",\"pid\":%ld,\"capture\":%u,\"mode\":\"%s\",\"outcome\":\"%s\""
            ",\"graph\":",
            pid, c, sc_cuda_mode_name(cap->mode), outcome_name(cap->outcome));
    if (cap->outcome == SC_RT_OUT_STORED)
        fprintf(f, "%llu", (unsigned long long)cap->daemon_graph);
    else
        fputs("null", f);
    fprintf(f, ",\"node_count\":%llu,\"edge_count\":%llu", (unsigned long long)nodes,
            (unsigned long long)cap->edges);
    if (cap->outcome == SC_RT_OUT_FAILED) {
        fprintf(f,
                ",\"call\":\"cudaStreamEndCapture\",\"cuda_error\":%d,\"cuda_name\":\"%s\","
                "\"message\":",
                (int)cap->error, cudaGetErrorName(cap->error));
        json_str(f, cudaGetErrorString(cap->error));
        if (cap->unjoined)
            fprintf(f, ",\"unjoined\":%s", cap->unjoined);
    }
    if (cap->broken_call && cap->outcome != SC_RT_OUT_KEPT && cap->outcome != SC_RT_OUT_STORED)
        fprintf(f, ",\"broken_by\":{\"call\":\"%s\",\"cuda_error\":%d,\"cuda_name\":\"%s\"}",
                cap->broken_call, (int)cap->broken_error, cudaGetErrorName(cap->broken_error));
    fputs("}\n", f);
}

static void graph_line(FILE *f, sc_rt_state *st, long pid, const sc_rt_submit *s)
{
    fprintf(f, "{\"event\":\"graph\",\"pid\":%ld,\"source\":\"submit\",\"label\":", pid);
    json_str(f, st->label);
    fputs(",\"graph\":", f);
    if (s->daemon_graph)
        fprintf(f, "%llu", (unsigned long long)s->daemon_graph);
    else
        fputs("null", f);
    fprintf(f, ",\"node_count\":%llu,\"edge_count\":%llu}\n", (unsigned long long)s->nodes,
            (unsigned long long)s->edges);
}

void sc_rt_report_write(sc_rt_state *st)
{
    uint64_t session = 0;
    const char *daemon = sc_rt_feed_finish(st, &session);
    const char *path = getenv("STREAMCAP_REPORT");
    if (!path || !*path)
        return;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return;
    long pid = (long)getpid();
    process_line(f, st, pid, daemon, session);
    for (uint32_t c = 1; c <= st->ncaps; c++)
        capture_line(f, st, pid, c);
    for (size_t i = 0; i < st->nsubmits; i++)
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
