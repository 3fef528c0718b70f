/*
 * corpus.c - reading the conformance corpus, mapping its ops onto the
 * protocol (docs/semantics.md §11 names on one side, docs/design.md §5 on
 * the other), and replaying it through a daemon.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"

cJSON **sc_corpus_read(const char *path, size_t *count)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s", path);
    cJSON **items = NULL;
    size_t n = 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (len == 1 && line[0] == '\n')
            continue;
        cJSON *v = cJSON_ParseWithLength(line, (size_t)len);
        if (!v)
            fail_msg("%s: line %zu is not JSON", path, n + 1);
        cJSON **grown = realloc(items, (n + 1) * sizeof(*items));
        assert_non_null(grown);
        items = grown;
        items[n++] = v;
    }
    free(line);
    fclose(f);
    *count = n;
    return items;
}

void sc_corpus_free(cJSON **items, size_t count)
{
    for (size_t i = 0; i < count; i++)
        cJSON_Delete(items[i]);
    free(items);
}

static void copy_member(cJSON *params, const char *to, const cJSON *op, const char *from)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(op, from);
    if (v)
        cJSON_AddItemToObject(params, to, cJSON_Duplicate(v, true));
}

const char *sc_corpus_request(const cJSON *op, cJSON *params)
{
    static const struct {
        const char *op, *method;
    } methods[] = {{"is_capturing", "capture.is_capturing"},
                   {"node_count", "capture.node_count"},
                   {"begin", "capture.begin"},
                   {"end", "capture.end"},
                   {"status", "capture.status"},
                   {"invalidate", "capture.invalidate"},
                   {"record_event", "capture.record_event"},
                   {"wait_event", "capture.wait_event"},
                   {"kernel", "capture.record_kernel"},
                   {"memcpy", "capture.record_memcpy"},
                   {"memset", "capture.record_memset"},
                   {"host_callback", "capture.record_host_callback"}};
    const char *name = cJSON_GetObjectItemCaseSensitive(op, "op")->valuestring;
    /* Each op carries only its own fields, so copying every known one is exact. */
    copy_member(params, "stream", op, "stream");
    copy_member(params, "event", op, "event");
    copy_member(params, "label", op, "label");
    copy_member(params, "dir", op, "dir");
    copy_member(params, "size_bytes", op, "bytes");
    copy_member(params, "src_device", op, "src_device");
    copy_member(params, "dst_device", op, "dst_device");
    copy_member(params, "value", op, "value");
    copy_member(params, "num_blocks", op, "blocks");
    copy_member(params, "threads_per_block", op, "threads");
    copy_member(params, "shared_mem", op, "shared_mem");
    copy_member(params, strcmp(name, "kernel") == 0 ? "function_name" : "name", op, "name");
    for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
        if (strcmp(name, methods[i].op) == 0)
            return methods[i].method;
    fail_msg("unknown corpus op '%s'", name);
    return NULL;
}

char *sc_corpus_op_line(sc_it_conn *c, const cJSON *op, int64_t session, int64_t *id)
{
    cJSON *params = cJSON_CreateObject();
    assert_non_null(params);
    cJSON_AddNumberToObject(params, "session", (double)session);
    const char *method = sc_corpus_request(op, params);
    char *text = cJSON_PrintUnformatted(params);
    int64_t n = sc_it_next_id(c);
    char *line = sc_it_format_request(n, method, text);
    assert_non_null(line);
    free(text);
    cJSON_Delete(params);
    if (id)
        *id = n;
    return line;
}

void sc_corpus_say(sc_corpus_mismatch *m, const char *fmt, ...)
{
    if (m->text[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->text, sizeof(m->text), fmt, ap);
    va_end(ap);
}

/* Scenario i of both files, paired by name, replayed through `one`. */
static bool replay_one(sc_it_conn *c, const cJSON *scenario, const cJSON *expected,
                       sc_corpus_scenario_fn one)
{
    const char *name = cJSON_GetObjectItemCaseSensitive(scenario, "name")->valuestring;
    assert_string_equal(name, cJSON_GetObjectItemCaseSensitive(expected, "name")->valuestring);
    sc_corpus_mismatch m = {{0}};
    if (one(c, scenario, expected, &m))
        return true;
    print_message("FAIL %s: %s\n", name, m.text);
    return false;
}

void sc_corpus_replay(const char *label, const char *scenarios, const char *expected, size_t want,
                      sc_corpus_scenario_fn one)
{
    size_t ns, ne;
    cJSON **sc = sc_corpus_read(scenarios, &ns);
    cJSON **ex = sc_corpus_read(expected, &ne);
    assert_int_equal(ns, ne);
    if (want)
        assert_int_equal(ns, want);
    else
        assert_true(ns > 0);

    sc_it_daemon *d = sc_it_must_start(NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    size_t passed = 0;
    for (size_t i = 0; i < ns; i++)
        passed += replay_one(c, sc[i], ex[i], one);
    print_message("%s: %zu/%zu scenarios passed\n", label, passed, ns);

    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
    sc_corpus_free(sc, ns);
    sc_corpus_free(ex, ne);
    assert_int_equal(passed, ns);
}
