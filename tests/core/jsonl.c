/*
 * jsonl.c - the corpus reader of jsonl.h.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jsonl.h"

void read_lines(const char *path, lines *out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s", path);
    out->line = NULL;
    out->count = 0;
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&buf, &cap, f)) >= 0) {
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
            buf[--n] = '\0';
        if (n == 0)
            continue;
        char **grown = realloc(out->line, (out->count + 1) * sizeof *grown);
        assert_non_null(grown);
        out->line = grown;
        out->line[out->count] = strdup(buf);
        assert_non_null(out->line[out->count]);
        out->count++;
    }
    free(buf);
    fclose(f);
}

void free_lines(lines *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->line[i]);
    free(l->line);
}
