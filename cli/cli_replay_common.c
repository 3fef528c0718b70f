/*
 * cli_replay_common.c - what both replay modes do alike: open the
 * scenario and expected files, read and judge --check's expected lines,
 * and end the replay with the status its options ask for.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli_replay.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

bool cli_replay_blank(const char *s)
{
    for (; *s; s++) {
        if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
            return false;
    }
    return true;
}

int cli_replay_open(cli *x, cli_replay_io *io)
{
    if (strcmp(io->path, "-") == 0) {
        io->f = stdin;
        io->path = "<stdin>";
    } else if (!(io->f = fopen(io->path, "r"))) {
        return cli_fail(x, "cannot open %s: %s", io->path, strerror(errno));
    }
    if (io->check_path && !(io->check_f = fopen(io->check_path, "r"))) {
        int e = errno;
        if (io->f != stdin)
            fclose(io->f);
        io->f = NULL;
        return cli_fail(x, "cannot open %s: %s", io->check_path, strerror(e));
    }
    return CLI_OK;
}

void cli_replay_close(cli_replay_io *io)
{
    if (io->f && io->f != stdin)
        fclose(io->f);
    if (io->check_f)
        fclose(io->check_f);
    io->f = io->check_f = NULL;
}

void cli_replay_difference(cli_replay_io *io, size_t line, const char *name, const char *fmt, ...)
{
    if (io->diffs++ >= CHECK_SHOWN)
        return;
    char msg[4096];
    size_t max = io->msg_max && io->msg_max < sizeof(msg) ? io->msg_max : sizeof(msg);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, max, fmt, ap);
    va_end(ap);
    char *who = cli_printable(name ? name : "");
    char *shown = cli_printable(msg);
    fprintf(stderr, "streamcap: %s:%zu: %s: %s\n", io->path, line, who ? who : "",
            shown ? shown : "");
    free(who);
    free(shown);
}

cJSON *cli_replay_next_expected(cli_replay_io *io, size_t line, const char *name)
{
    char *text = NULL;
    size_t cap = 0;
    cJSON *v = NULL;
    ssize_t n;
    while (!v && (n = getline(&text, &cap, io->check_f)) >= 0) {
        io->check_line++;
        if (cli_replay_blank(text))
            continue;
        v = cJSON_ParseWithLength(text, (size_t)n);
        if (!cJSON_IsObject(v)) {
            cJSON_Delete(v);
            v = NULL;
            cli_replay_difference(io, line, name, "%s:%zu is not a JSON object", io->check_path,
                                  io->check_line);
            break;
        }
    }
    free(text);
    if (!v && feof(io->check_f))
        cli_replay_difference(io, line, name, "%s has no line for this scenario", io->check_path);
    return v;
}

void cli_replay_check_leftover(cli_replay_io *io)
{
    if (!io->check_f)
        return;
    char *line = NULL;
    size_t cap = 0, extra = 0;
    while (getline(&line, &cap, io->check_f) >= 0) {
        if (!cli_replay_blank(line))
            extra++;
    }
    free(line);
    if (extra && io->diffs++ < CHECK_SHOWN)
        fprintf(stderr, "streamcap: %s: %zu expected line%s past the last scenario of %s\n",
                io->check_path, extra, extra == 1 ? "" : "s", io->path);
}

void cli_replay_print_check(const cli_replay_io *io)
{
    if (io->check_path && io->diffs)
        printf("check: %zu difference%s from %s\n", io->diffs, io->diffs == 1 ? "" : "s",
               io->check_path);
    else if (io->check_path)
        printf("check: every result matches %s\n", io->check_path);
}

int cli_replay_exit(const cli_replay_io *io, bool strict, size_t refused)
{
    if (strict && refused) {
        fprintf(stderr, "streamcap: --strict: the daemon refused %zu request%s\n", refused,
                refused == 1 ? "" : "s");
        return CLI_ERROR;
    }
    return io->diffs ? CLI_NEGATIVE : CLI_OK;
}
