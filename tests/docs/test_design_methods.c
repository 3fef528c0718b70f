/*
 * docs/design.md §12 against the compiled method table: one row per method
 * of sc_methods[], and each field of a row true of the code.  The method,
 * handler and parameter columns must equal the table's own fields; the file
 * column must define the handler; the store calls the row names must be
 * declared by the store's or the cache's header, the first one called from
 * that file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_methods.h"

#if !defined(SC_SOURCE_DIR) || !defined(SC_STORE_HEADER) || !defined(SC_CACHE_HEADER)
#error "SC_SOURCE_DIR, SC_STORE_HEADER and SC_CACHE_HEADER must be defined"
#endif

enum { COLS = 5, CELL = 512 };

typedef struct row {
    char cell[COLS][CELL]; /* method, handler, file, parameters, store call */
} row;

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (cap - len < 4096) {
            cap = cap ? cap * 2 : 65536;
            text = realloc(text, cap);
            assert_non_null(text);
        }
        size_t n = fread(text + len, 1, cap - len - 1, f);
        if (n == 0)
            break;
        len += n;
    }
    fclose(f);
    text[len] = '\0';
    return text;
}

/* Copy a cell without its backticks and surrounding blanks. */
static void cell_copy(char *dst, const char *s, size_t n)
{
    while (n > 0 && isspace((unsigned char)*s))
        s++, n--;
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    size_t k = 0;
    for (size_t i = 0; i < n && k + 1 < CELL; i++) {
        if (s[i] == '\\' && i + 1 < n && s[i + 1] == '|')
            continue; /* "\|" is a '|' of the text */
        if (s[i] != '`')
            dst[k++] = s[i];
    }
    dst[k] = '\0';
}

/* Split "| a | b | ... |" into r; false for a line that is no such row. */
static bool split_row(const char *line, size_t len, row *r)
{
    if (len < 2 || line[0] != '|' || line[1] != ' ')
        return false;
    const char *p = line + 1, *end = line + len;
    for (int c = 0; c < COLS; c++) {
        const char *bar = memchr(p, '|', (size_t)(end - p));
        /* "\|" inside a cell is text, not a column break. */
        while (bar && bar > p && bar[-1] == '\\')
            bar = memchr(bar + 1, '|', (size_t)(end - bar - 1));
        if (!bar)
            return false;
        cell_copy(r->cell[c], p, (size_t)(bar - p));
        p = bar + 1;
    }
    return true;
}

/* The §12 rows whose first cell is a method name, in order. */
static size_t read_rows(row **out)
{
    char *doc = slurp(SC_SOURCE_DIR "/docs/design.md");
    char *sec = strstr(doc, "\n## 12.");
    if (!sec) {
        fail_msg("docs/design.md has no §12");
        return 0;
    }
    sec++;
    char *stop = strstr(sec, "\n## ");
    size_t n = 0, cap = 0;
    row *rows = NULL;
    for (char *l = sec; l && (!stop || l < stop);) {
        char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        row r;
        if (split_row(l, len, &r) && strchr(r.cell[0], '.') &&
            strncmp(r.cell[1], "sc_h_", 5) == 0) {
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                rows = realloc(rows, cap * sizeof *rows);
                assert_non_null(rows);
            }
            rows[n++] = r;
        }
        l = nl ? nl + 1 : NULL;
    }
    free(doc);
    *out = rows;
    return n;
}

/* "{a, b?}" as the table's parameter column writes it: "a, b?", or "none". */
static void params_cell(const char *params, char *out, size_t cap)
{
    size_t len = strlen(params);
    if (len >= 2 && params[0] == '{' && params[len - 1] == '}' && !strstr(params, "} |")) {
        params++;
        len -= 2;
    }
    if (len == 0)
        snprintf(out, cap, "none");
    else
        snprintf(out, cap, "%.*s", (int)len, params);
}

static const row *row_of(const row *rows, size_t n, const char *method)
{
    const row *found = NULL;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(rows[i].cell[0], method) != 0)
            continue;
        if (found)
            fail_msg("design.md §12: several rows for %s", method);
        found = &rows[i];
    }
    if (!found)
        fail_msg("design.md §12: no row for %s", method);
    return found;
}

/* Whether `name(` occurs in text as a whole word. */
static bool calls(const char *text, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        bool start = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        if (start && p[len] == '(')
            return true;
    }
    return false;
}

/* Check the store column: its calls exist, the first is made from `file`. */
static void check_store_calls(const char *method, const char *cell, const char *file_text,
                              const char *decls)
{
    bool first = true;
    for (const char *p = cell; (p = strstr(p, "sc_")) != NULL;) {
        size_t len = strspn(p, "abcdefghijklmnopqrstuvwxyz_");
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)len, p);
        p += len;
        if (strncmp(name, "sc_store_", 9) != 0 && strncmp(name, "sc_cache_", 9) != 0)
            continue;
        if (!calls(decls, name))
            fail_msg("design.md §12: %s: %s is declared neither in %s nor in %s", method, name,
                     SC_STORE_HEADER, SC_CACHE_HEADER);
        if (first && !calls(file_text, name))
            fail_msg("design.md §12: %s: its file does not call %s", method, name);
        first = false;
    }
    if (first && strncmp(cell, "none", 4) != 0)
        fail_msg("design.md §12: %s: the store column names no call and not 'none'", method);
}

static void test_rows_match_table(void **state)
{
    (void)state;
    row *rows = NULL;
    size_t n = read_rows(&rows);
    if (n != SC_M__COUNT)
        fail_msg("design.md §12: %zu method rows for %d methods", n, (int)SC_M__COUNT);
    char *store_h = slurp(SC_STORE_HEADER), *cache_h = slurp(SC_CACHE_HEADER);
    size_t dlen = strlen(store_h) + strlen(cache_h) + 2;
    char *decls = malloc(dlen);
    assert_non_null(decls);
    snprintf(decls, dlen, "%s\n%s", store_h, cache_h);
    for (size_t i = 0; i < SC_M__COUNT; i++) {
        const sc_method_desc *m = &sc_methods[i];
        const row *r = row_of(rows, n, m->name);
        char want[CELL];
        snprintf(want, sizeof want, "sc_h_%s", m->handler);
        if (strcmp(r->cell[1], want) != 0)
            fail_msg("design.md §12: %s: handler is %s, the row says %s", m->name, want,
                     r->cell[1]);
        params_cell(m->params, want, sizeof want);
        if (strcmp(r->cell[3], want) != 0)
            fail_msg("design.md §12: %s: parameters are '%s', the row says '%s'", m->name, want,
                     r->cell[3]);
        char path[1024], def[256];
        snprintf(path, sizeof path, "%s/%s", SC_SOURCE_DIR, r->cell[2]);
        char *text = slurp(path);
        snprintf(def, sizeof def, "\nint sc_h_%s(sc_req *r)\n", m->handler);
        if (!strstr(text, def))
            fail_msg("design.md §12: %s: sc_h_%s is not defined in %s", m->name, m->handler,
                     r->cell[2]);
        check_store_calls(m->name, r->cell[4], text, decls);
        free(text);
    }
    free(decls);
    free(store_h);
    free(cache_h);
    free(rows);
}

/* The row reader itself, on the shapes the table uses. */
static void test_row_reader(void **state)
{
    (void)state;
    row r;
    const char *l =
        "| `graph.reachable` | `sc_h_graph_reachable` | `daemon/q.c` | `a\\|b` | none |";
    assert_true(split_row(l, strlen(l), &r));
    assert_string_equal(r.cell[0], "graph.reachable");
    assert_string_equal(r.cell[2], "daemon/q.c");
    assert_string_equal(r.cell[3], "a|b");
    assert_string_equal(r.cell[4], "none");
    assert_false(split_row("| a | b |", 9, &r));
    char out[64];
    params_cell("{}", out, sizeof out);
    assert_string_equal(out, "none");
    params_cell("{session, stream?}", out, sizeof out);
    assert_string_equal(out, "session, stream?");
    params_cell("{graph, from, to} | {graph, pairs}", out, sizeof out);
    assert_string_equal(out, "{graph, from, to} | {graph, pairs}");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_row_reader),
        cmocka_unit_test(test_rows_match_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
