/*
 * The capture log through a real streamcapd: every session ever opened has
 * exactly one log.list entry with the right outcome (completed, failed,
 * closed, abandoned, shutdown after SIGTERM, lost after SIGKILL, open),
 * newest first, with UTC millisecond times, the outcome filter and cursor
 * pagination over ties in opened_at.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"
#include "itgraph.h"

#define MAX_SESSIONS 256
#define BULK_CLOSED  110

/* What the test did with one session, to compare with its log entry. */
typedef struct expect {
    int64_t session;
    const char *outcome;
    const char *label;  /* "" when none was given */
    int64_t node_count; /* -1: not checked */
    int64_t graph;      /* 0: none */
} expect;

typedef struct book {
    expect e[MAX_SESSIONS];
    size_t n;
} book;

static void note(book *b, int64_t session, const char *outcome, const char *label,
                 int64_t node_count, int64_t graph)
{
    assert_true(b->n < MAX_SESSIONS);
    b->e[b->n++] = (expect){session, outcome, label ? label : "", node_count, graph};
}

static const expect *find(const book *b, int64_t session)
{
    for (size_t i = 0; i < b->n; i++)
        if (b->e[i].session == session)
            return &b->e[i];
    return NULL;
}

/* A session with `nodes` kernels recorded on stream 0 (left open). */
static int64_t session_with_nodes(sc_it_conn *c, const char *label, int nodes)
{
    int64_t s = sc_it_open_session(c, label);
    sc_it_must_ok(c, "capture.begin", "{\"session\":%lld,\"stream\":0}", (long long)s);
    for (int i = 0; i < nodes; i++)
        sc_it_must_ok(c, "capture.record_kernel",
                      "{\"session\":%lld,\"stream\":0,\"function_name\":\"k\",\"num_blocks\":1,"
                      "\"threads_per_block\":32}",
                      (long long)s);
    return s;
}

static void end_fails(sc_it_conn *c, int64_t s, const char *params_fmt, int code)
{
    sc_it_must_error(c, code, NULL, "capture.end", params_fmt, (long long)s);
}

/* 110 sessions opened pipelined (many share a millisecond), then closed. */
static void bulk_closed(sc_it_conn *c, book *b)
{
    sc_itg_batch *open = sc_itg_batch_create();
    for (int i = 0; i < BULK_CLOSED; i++)
        sc_itg_batch_add(open, "session.open", "{}");
    cJSON **replies = sc_itg_batch_run(open, c);
    sc_itg_batch *close = sc_itg_batch_create();
    for (int i = 0; i < BULK_CLOSED; i++) {
        int64_t s = sc_it_int(cJSON_GetObjectItemCaseSensitive(replies[i], "result"), "session");
        sc_itg_batch_add(close, "session.close", "{\"session\":%lld}", (long long)s);
        note(b, s, "closed", NULL, 0, 0);
    }
    cJSON **closed = sc_itg_batch_run(close, c);
    sc_itg_replies_free(replies, BULK_CLOSED);
    sc_itg_replies_free(closed, BULK_CLOSED);
    sc_itg_batch_destroy(open);
    sc_itg_batch_destroy(close);
}

/* Phase 1: completed, failed, closed, then shutdown by SIGTERM. */
static void make_ended_sessions(sc_it_daemon *d, book *b)
{
    sc_it_conn *c = sc_it_must_connect(d);

    int64_t s = session_with_nodes(c, "done", 2);
    cJSON *reply = sc_it_call(c, "capture.end", "{\"session\":%lld,\"stream\":0}", (long long)s);
    int64_t graph = sc_it_int(sc_it_ok(c, reply), "graph");
    cJSON_Delete(reply);
    note(b, s, "completed", "done", 2, graph);

    s = session_with_nodes(c, NULL, 1);
    end_fails(c, s, "{\"session\":%lld,\"stream\":9}", 1002);
    note(b, s, "failed", NULL, 1, 0);

    s = session_with_nodes(c, "poisoned", 1);
    sc_it_must_ok(c, "capture.invalidate", "{\"session\":%lld,\"stream\":0}", (long long)s);
    end_fails(c, s, "{\"session\":%lld,\"stream\":0}", 1003);
    note(b, s, "failed", "poisoned", 1, 0);

    s = session_with_nodes(c, "bye", 3);
    sc_it_must_ok(c, "session.close", "{\"session\":%lld}", (long long)s);
    note(b, s, "closed", "bye", 3, 0);

    bulk_closed(c, b);

    s = session_with_nodes(c, "stop", 1);
    note(b, s, "shutdown", "stop", 1, 0);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
}

/* Phase 2: a session open when the daemon is killed. */
static void make_lost_session(sc_it_daemon *d, book *b)
{
    sc_it_must_restart(d, NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    int64_t s = session_with_nodes(c, "crash", 2);
    note(b, s, "lost", "crash", -1, 0);
    assert_int_equal(sc_it_daemon_kill(d), 0);
    sc_it_conn_close(c);
}

/* Phase 3: a session left idle past a 1 s timeout after its connection went away. */
static void make_abandoned_session(sc_it_daemon *d, book *b)
{
    const char *extra[] = {"--session-idle-timeout", "1", NULL};
    sc_it_must_restart(d, extra);
    sc_it_conn *c = sc_it_must_connect(d);
    int64_t s = session_with_nodes(c, "idle", 1);
    note(b, s, "abandoned", "idle", 1, 0);
    sc_it_conn_close(c);
    sc_it_must_see_outcome(sc_it_daemon_db(d), s, "abandoned", 10000);
    sc_it_must_stop(d);
}

/* --------------------------------------------------------- checks */

static void check_time(const char *what, const char *t)
{
    sc_it_must_be_time(what, t);
    /* UTC, not local time: within ten minutes of this process's clock. */
    struct tm tm = {0};
    assert_non_null(strptime(t, "%Y-%m-%dT%H:%M:%S", &tm));
    long long delta = (long long)(timegm(&tm) - time(NULL));
    if (delta < -600 || delta > 600)
        fail_msg("%s: '%s' is %lld s away from now (UTC)", what, t, delta);
}

static void check_entry(const cJSON *e, const expect *x)
{
    int64_t s = x->session;
    const char *outcome = sc_it_str(e, "outcome");
    if (strcmp(outcome, x->outcome) != 0)
        fail_msg("session %lld: outcome '%s', expected '%s'", (long long)s, outcome, x->outcome);
    assert_string_equal(sc_it_str(e, "label"), x->label);
    assert_int_equal(sc_it_int(e, "owner_uid"), getuid());
    assert_int_equal(sc_it_int(e, "owner_pid"), getpid());
    const char *opened = sc_it_str(e, "opened_at");
    check_time("opened_at", opened);
    const cJSON *ended = cJSON_GetObjectItemCaseSensitive(e, "ended_at");
    bool still = strcmp(x->outcome, "open") == 0 || strcmp(x->outcome, "lost") == 0;
    if (still) {
        if (!cJSON_IsNull(ended))
            fail_msg("session %lld (%s): ended_at must be null", (long long)s, x->outcome);
    } else {
        if (!cJSON_IsString(ended))
            fail_msg("session %lld (%s): ended_at must be a time", (long long)s, x->outcome);
        check_time("ended_at", ended->valuestring);
        assert_true(strcmp(ended->valuestring, opened) >= 0);
    }
    if (x->node_count >= 0 && sc_it_int(e, "node_count") != x->node_count)
        fail_msg("session %lld (%s): node_count %lld, expected %lld", (long long)s, x->outcome,
                 (long long)sc_it_int(e, "node_count"), (long long)x->node_count);
    if (x->graph)
        assert_int_equal(sc_it_int(e, "graph"), x->graph);
    else if (cJSON_GetObjectItemCaseSensitive(e, "graph"))
        fail_msg("session %lld (%s): entry has a graph", (long long)s, x->outcome);
    assert_null(cJSON_GetObjectItemCaseSensitive(e, "graph_deleted_at"));
}

/* Newest first: opened_at descending, then session id descending. */
static void check_order(const cJSON *entries)
{
    const cJSON *prev = NULL, *e;
    cJSON_ArrayForEach(e, entries)
    {
        if (prev) {
            int cmp = strcmp(sc_it_str(prev, "opened_at"), sc_it_str(e, "opened_at"));
            if (cmp < 0 || (cmp == 0 && sc_it_int(prev, "session") <= sc_it_int(e, "session")))
                fail_msg("log.list order: session %lld (%s) listed before session %lld (%s)",
                         (long long)sc_it_int(prev, "session"), sc_it_str(prev, "opened_at"),
                         (long long)sc_it_int(e, "session"), sc_it_str(e, "opened_at"));
        }
        prev = e;
    }
}

/* Session ids of every page of log.list with `limit` and extra params. */
static size_t list_sessions(sc_it_conn *c, const char *extra, int limit, int64_t *out, size_t cap)
{
    char *before = NULL;
    size_t n = 0, pages = 0;
    for (;;) {
        cJSON *reply = before ? sc_it_call(c, "log.list", "{\"limit\":%d,\"before\":\"%s\"%s}",
                                           limit, before, extra)
                              : sc_it_call(c, "log.list", "{\"limit\":%d%s}", limit, extra);
        const cJSON *res = sc_it_ok(c, reply);
        const cJSON *entries = cJSON_GetObjectItemCaseSensitive(res, "entries");
        assert_true(cJSON_IsArray(entries) && cJSON_GetArraySize(entries) <= limit);
        const cJSON *e;
        cJSON_ArrayForEach(e, entries)
        {
            if (n == cap)
                fail_msg("log.list pages hold more than %zu entries: pages repeat entries", cap);
            out[n++] = sc_it_int(e, "session");
        }
        free(before);
        before = NULL;
        const cJSON *next = cJSON_GetObjectItemCaseSensitive(res, "next");
        if (next)
            before = strdup(sc_it_str(res, "next"));
        if (before && cJSON_GetArraySize(entries) < limit)
            fail_msg("request %s\n  a short page still has 'next'", sc_it_last_request(c));
        cJSON_Delete(reply);
        if (!before)
            return n;
        assert_true(++pages < 10000);
    }
}

static void assert_same(const int64_t *got, size_t ngot, const int64_t *want, size_t nwant,
                        const char *what)
{
    for (size_t i = 0; i < ngot && i < nwant; i++)
        if (got[i] != want[i])
            fail_msg("%s: entry %zu is session %lld, expected session %lld", what, i,
                     (long long)got[i], (long long)want[i]);
    if (ngot != nwant)
        fail_msg("%s: %zu entries, expected %zu", what, ngot, nwant);
}

static void check_errors(sc_it_conn *c)
{
    const char *outcomes[] = {"\"bogus\"", "\"\"", "\"OPEN\"", "\"completed \"", "5", "[]"};
    for (size_t i = 0; i < sizeof(outcomes) / sizeof(outcomes[0]); i++) {
        cJSON *reply = sc_it_call(c, "log.list", "{\"outcome\":%s}", outcomes[i]);
        sc_it_err_data(sc_it_err(c, reply, -32602, "invalid_params"), "field", "outcome");
        cJSON_Delete(reply);
    }
    const char *befores[] = {"\"\"",      "\"l\"",    "\"l5\"",   "\"l5.\"",
                             "\"l.5\"",   "\"x5.1\"", "\"g5\"",   "\"l5.1x\"",
                             "\"l-5.1\"", "\"L5.1\"", "\"l5,1\"", "\"l99999999999999999999.1\"",
                             "7"};
    for (size_t i = 0; i < sizeof(befores) / sizeof(befores[0]); i++) {
        cJSON *reply = sc_it_call(c, "log.list", "{\"before\":%s}", befores[i]);
        sc_it_err_data(sc_it_err(c, reply, -32602, "invalid_params"), "field", "before");
        cJSON_Delete(reply);
    }
    const char *limits[] = {"10001", "0", "-1", "1.5", "\"3\""};
    for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
        cJSON *reply = sc_it_call(c, "log.list", "{\"limit\":%s}", limits[i]);
        sc_it_err_data(sc_it_err(c, reply, -32602, "invalid_params"), "field", "limit");
        cJSON_Delete(reply);
    }
}

static void check_log(sc_it_conn *c, const book *b)
{
    /* Everything at once: one entry per session, each as expected, newest first. */
    cJSON *reply = sc_it_call(c, "log.list", "{\"limit\":10000}");
    const cJSON *res = sc_it_ok(c, reply);
    const cJSON *entries = cJSON_GetObjectItemCaseSensitive(res, "entries");
    assert_null(cJSON_GetObjectItemCaseSensitive(res, "next"));
    if ((size_t)cJSON_GetArraySize(entries) != b->n)
        fail_msg("log.list has %d entries for the %zu sessions opened", cJSON_GetArraySize(entries),
                 b->n);
    int64_t all[MAX_SESSIONS];
    size_t n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, entries)
    {
        int64_t s = sc_it_int(e, "session");
        const expect *x = find(b, s);
        if (!x)
            fail_msg("log.list lists session %lld, which was never opened", (long long)s);
        for (size_t i = 0; i < n; i++)
            if (all[i] == s)
                fail_msg("log.list lists session %lld twice", (long long)s);
        check_entry(e, x);
        all[n++] = s;
    }
    check_order(entries);
    cJSON_Delete(reply);

    /* Default limit 100, and its next page. */
    int64_t got[MAX_SESSIONS + 1];
    reply = sc_it_call(c, "log.list", "{}");
    res = sc_it_ok(c, reply);
    entries = cJSON_GetObjectItemCaseSensitive(res, "entries");
    assert_int_equal(cJSON_GetArraySize(entries), 100);
    assert_true(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(res, "next")));
    size_t k = 0;
    cJSON_ArrayForEach(e, entries) got[k++] = sc_it_int(e, "session");
    assert_same(got, k, all, 100, "log.list {}");
    cJSON_Delete(reply);

    /* Pages of several sizes, across the many sessions opened in one millisecond. */
    const int limits[] = {1, 2, 3, 7, 100};
    for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
        k = list_sessions(c, "", limits[i], got, MAX_SESSIONS + 1);
        assert_same(got, k, all, n, "log.list pages");
    }

    /* Each outcome filter selects exactly its sessions, in list order, also paged. */
    const char *outcomes[] = {"open",      "completed", "failed", "closed",
                              "abandoned", "shutdown",  "lost"};
    for (size_t o = 0; o < sizeof(outcomes) / sizeof(outcomes[0]); o++) {
        int64_t want[MAX_SESSIONS];
        size_t nwant = 0;
        for (size_t i = 0; i < n; i++)
            if (strcmp(find(b, all[i])->outcome, outcomes[o]) == 0)
                want[nwant++] = all[i];
        assert_true(nwant > 0);
        char extra[64];
        snprintf(extra, sizeof(extra), ",\"outcome\":\"%s\"", outcomes[o]);
        k = list_sessions(c, extra, 10000, got, MAX_SESSIONS + 1);
        assert_same(got, k, want, nwant, outcomes[o]);
        k = list_sessions(c, extra, 4, got, MAX_SESSIONS + 1);
        assert_same(got, k, want, nwant, outcomes[o]);
    }
    k = list_sessions(c, ",\"outcome\":null", 10000, got, MAX_SESSIONS + 1);
    assert_same(got, k, all, n, "outcome null");
}

static void test_every_outcome(void **state)
{
    (void)state;
    book *b = calloc(1, sizeof(*b));
    assert_non_null(b);
    sc_it_daemon *d = sc_it_must_start(NULL);
    make_ended_sessions(d, b);
    make_lost_session(d, b);
    make_abandoned_session(d, b);

    sc_it_must_restart(d, NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    int64_t live = session_with_nodes(c, "live", 2);
    note(b, live, "open", "live", -1, 0);
    check_log(c, b);
    check_errors(c);

    /* The live session still works after all that listing, and ends completed. */
    cJSON *reply = sc_it_call(c, "capture.end", "{\"session\":%lld,\"stream\":0}", (long long)live);
    int64_t graph = sc_it_int(sc_it_ok(c, reply), "graph");
    cJSON_Delete(reply);
    reply = sc_it_call(c, "log.list", "{\"limit\":1}");
    const cJSON *e =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(sc_it_ok(c, reply), "entries"), 0);
    assert_int_equal(sc_it_int(e, "session"), live);
    assert_string_equal(sc_it_str(e, "outcome"), "completed");
    assert_int_equal(sc_it_int(e, "graph"), graph);
    assert_int_equal(sc_it_int(e, "node_count"), 2);
    check_time("ended_at", sc_it_str(e, "ended_at"));
    cJSON_Delete(reply);

    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_outcome),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
