/*
 * jsonl.c - the corpus reader and scenario loop of jsonl.h.
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

void failf(run *r, const char *fmt, ...)
{
    if (r->failed)
        return;
    r->failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, sizeof r->why, fmt, ap);
    va_end(ap);
}

/* Line i of both files: the pair named alike, run through `one`. */
static bool run_line(size_t i, const char *scenario, const char *expected, corpus_scenario_fn one)
{
    run r = {.name = "?"};
    cJSON *s = cJSON_Parse(scenario), *e = cJSON_Parse(expected);
    const cJSON *sn = cJSON_GetObjectItemCaseSensitive(s, "name");
    const cJSON *en = cJSON_GetObjectItemCaseSensitive(e, "name");
    if (!cJSON_IsString(sn) || !cJSON_IsString(en))
        failf(&r, "line %zu: unparsable or unnamed", i + 1);
    else if (strcmp(sn->valuestring, en->valuestring) != 0)
        failf(&r, "line %zu: scenario %s paired with expectation %s", i + 1, sn->valuestring,
              en->valuestring);
    else
        r.name = sn->valuestring;
    bool passed = !r.failed && one(&r, s, e);
    if (!passed)
        printf("FAIL %s: %s\n", r.name, r.why);
    cJSON_Delete(s);
    cJSON_Delete(e);
    return passed;
}

void run_corpus(const char *label, const char *scenarios, const char *expected, size_t want,
                corpus_scenario_fn one)
{
    lines sc, ex;
    read_lines(scenarios, &sc);
    read_lines(expected, &ex);
    if (want)
        assert_int_equal(ex.count, want);
    else
        assert_true(ex.count > 0);
    if (sc.count != ex.count)
        fail_msg("%zu scenarios but %zu expected lines", sc.count, ex.count);
    size_t passed = 0;
    for (size_t i = 0; i < ex.count; i++)
        if (run_line(i, sc.line[i], ex.line[i], one))
            passed++;
    printf("%s: %zu/%zu scenarios passed\n", label, passed, ex.count);
    fflush(stdout);
    free_lines(&sc);
    free_lines(&ex);
    assert_int_equal(passed, ex.count);
}
