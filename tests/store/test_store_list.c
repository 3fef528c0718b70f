/*
 * test_store_list.c - graph.list and log.list pages, graph metadata and
 * graph deletion: order, filters, ownership, cursors across concurrent
 * writes, and the query plans behind them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store_fixture.h"
#include "store_sqlite.h"

#define T0 1795981461123LL /* 2026-11-29T19:44:21.123Z */

/* ---- helpers ---- */

typedef struct gres {
    int calls;
    int rc;
    sc_graph_page *page;
} gres;

static void gres_cb(void *arg, int rc, sc_graph_page *page, const char *errmsg)
{
    (void)errmsg;
    gres *r = arg;
    r->calls++;
    r->rc = rc;
    r->page = page;
}

typedef struct logres {
    int calls;
    int rc;
    sc_log_page *page;
} logres;

static void logres_cb(void *arg, int rc, sc_log_page *page, const char *errmsg)
{
    (void)errmsg;
    logres *r = arg;
    r->calls++;
    r->rc = rc;
    r->page = page;
}

typedef struct mres {
    int calls;
    int rc;
    sc_graph_meta *meta;
} mres;

static void mres_cb(void *arg, int rc, sc_graph_meta *meta, const char *errmsg)
{
    (void)errmsg;
    mres *r = arg;
    r->calls++;
    r->rc = rc;
    r->meta = meta;
}

/* One page of graphs; the caller frees it. */
static sc_graph_page *list_graphs(fx *f, const sc_graph_query *q)
{
    gres r = {0};
    assert_int_equal(sc_store_list_graphs(f->st, q, gres_cb, &r), 0);
    fx_drain(f);
    assert_int_equal(r.calls, 1);
    assert_int_equal(r.rc, 0);
    assert_non_null(r.page);
    return r.page;
}

static sc_log_page *list_log(fx *f, const sc_log_query *q)
{
    logres r = {0};
    assert_int_equal(sc_store_list_log(f->st, q, logres_cb, &r), 0);
    fx_drain(f);
    assert_int_equal(r.calls, 1);
    assert_int_equal(r.rc, 0);
    assert_non_null(r.page);
    return r.page;
}

static int64_t open_session_as(fx *f, uint32_t uid, const char *label, int64_t opened_ms)
{
    return fx_log_open(f, uid, 100 + uid, label, opened_ms);
}

/* A session of `uid` that stores a chain of n nodes; returns the graph id. */
static int64_t store_graph(fx *f, uint32_t uid, const char *label, uint32_t n, int64_t ms)
{
    int64_t s = open_session_as(f, uid, label, ms);
    sc_graph *g = chain_graph(n, 6);
    wres w = {0};
    assert_int_equal(sc_store_commit_graph(f->st, s, g, uid, 100 + uid, label, strlen(label),
                                           ms + 7, wres_cb, &w),
                     0);
    fx_drain(f);
    assert_int_equal(w.rc, 0);
    sc_graph_destroy(g);
    return w.id;
}

/* The deletion time the tests give the store: writes take the caller's clock. */
#define DELETED_MS (T0 + 9000)

static int delete_graph(fx *f, int64_t graph)
{
    wres w = {0};
    assert_int_equal(sc_store_delete_graph(f->st, graph, DELETED_MS, wres_cb, &w), 0);
    fx_drain(f);
    assert_int_equal(w.calls, 1);
    if (w.rc == 0)
        assert_int_equal(w.id, graph);
    return w.rc;
}

/*
 * Walk every page of a graph query with the given page size, appending the
 * ids to out[] (room for max).  Checks the page invariants on the way.
 * Returns the number of ids.
 */
static size_t walk_graphs(fx *f, sc_graph_query q, int64_t *out, size_t max)
{
    size_t n = 0;
    q.before_graph = 0;
    for (int pages = 0;; pages++) {
        assert_true(pages <= (int)max + 1);
        sc_graph_page *p = list_graphs(f, &q);
        assert_true(p->count <= q.limit);
        for (size_t i = 0; i < p->count; i++) {
            assert_true(n < max);
            if (n > 0)
                assert_true(p->graphs[i].graph < out[n - 1]);
            out[n++] = p->graphs[i].graph;
        }
        bool more = p->has_more;
        if (more) {
            assert_int_equal(p->count, q.limit);
            assert_int_equal(p->next_before, p->graphs[p->count - 1].graph);
            q.before_graph = p->next_before;
        } else {
            assert_int_equal(p->next_before, 0);
        }
        sc_graph_page_free(p);
        if (!more)
            return n;
    }
}

/* ---- graph.list ---- */

/* Graph ids of the expected set, newest first, by brute force. */
typedef struct gwant {
    int64_t id;
    uint32_t uid;
    const char *label;
} gwant;

static size_t expect_graphs(const gwant *all, size_t n, bool any_owner, uint32_t uid,
                            const char *label, int64_t *out)
{
    size_t k = 0;
    for (size_t i = n; i-- > 0;)
        if ((any_owner || all[i].uid == uid) && (!label || strcmp(all[i].label, label) == 0))
            out[k++] = all[i].id;
    return k;
}

static void test_graph_pages_and_filters(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    enum { N = 23 };
    static const char *const labels[] = {"train", "eval", "train step", "", "TRAIN"};
    gwant all[N];
    for (int i = 0; i < N; i++) {
        all[i].uid = i % 3 == 0 ? 2000 : 1000;
        all[i].label = labels[i % 5];
        all[i].id = store_graph(f, all[i].uid, all[i].label, 1 + (uint32_t)i, T0 + i * 1000);
    }

    static const uint32_t limits[] = {1, 4, 7, 22, 23, 24, 10000};
    static const uint32_t uids[] = {1000, 2000, 3000};
    static const char *const filters[] = {NULL, "train", "", "missing"};
    int64_t got[N + 1], want[N];
    for (size_t li = 0; li < sizeof limits / sizeof limits[0]; li++) {
        for (int owner = -1; owner < 3; owner++) {
            for (size_t fi = 0; fi < sizeof filters / sizeof filters[0]; fi++) {
                sc_graph_query q = {.limit = limits[li],
                                    .any_owner = owner < 0,
                                    .uid = owner < 0 ? 1000 : uids[owner],
                                    .label = filters[fi],
                                    .label_len = filters[fi] ? strlen(filters[fi]) : 0};
                size_t n = walk_graphs(f, q, got, N + 1);
                size_t k = expect_graphs(all, N, q.any_owner, q.uid, filters[fi], want);
                assert_int_equal(n, k);
                if (k)
                    assert_memory_equal(got, want, k * sizeof want[0]);
            }
        }
    }
    /* The filters above are not vacuous. */
    assert_int_equal(expect_graphs(all, N, false, 2000, "train", want), 2);
    assert_int_equal(expect_graphs(all, N, true, 0, "", want), 4);

    /* Every field of an entry. */
    sc_graph_query q = {.limit = 2, .any_owner = true};
    sc_graph_page *p = list_graphs(f, &q);
    assert_int_equal(p->count, 2);
    assert_true(p->has_more);
    const sc_graph_meta *m = &p->graphs[1];
    assert_int_equal(m->graph, all[N - 2].id);
    assert_string_equal(m->label, all[N - 2].label);
    assert_int_equal(m->label_len, strlen(all[N - 2].label));
    assert_int_equal(m->owner_uid, all[N - 2].uid);
    assert_int_equal(m->owner_pid, 100 + all[N - 2].uid);
    assert_int_equal(m->created_ms, T0 + (N - 2) * 1000 + 7);
    assert_int_equal(m->node_count, N - 1);
    assert_int_equal(m->edge_count, N - 2);
    assert_int_equal(m->stream_count, 1);
    assert_true(m->session > 0);
    sc_graph_page_free(p);

    /* A cursor below every id is an empty last page. */
    q.before_graph = all[0].id;
    p = list_graphs(f, &q);
    assert_int_equal(p->count, 0);
    assert_false(p->has_more);
    assert_null(p->graphs);
    sc_graph_page_free(p);
}

/* A label is matched as bytes, whole: no prefix, case or NUL tricks. */
static void test_graph_label_exact(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    int64_t plain = store_graph(f, 1000, "ab", 2, T0);
    store_graph(f, 1000, "abc", 2, T0);
    store_graph(f, 1000, "AB", 2, T0);
    static const char with_nul[] = {'a', 'b', '\0', 'c'};
    sc_graph_query q = {.limit = 10, .any_owner = true, .label = with_nul, .label_len = 2};
    sc_graph_page *p = list_graphs(f, &q);
    assert_int_equal(p->count, 1);
    assert_int_equal(p->graphs[0].graph, plain);
    sc_graph_page_free(p);
    q.label_len = sizeof with_nul;
    p = list_graphs(f, &q);
    assert_int_equal(p->count, 0);
    sc_graph_page_free(p);
}

/* Rows committed or deleted between two pages never shift the walk. */
static void test_graph_cursor_stable_under_writes(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    enum { N = 12 };
    int64_t ids[N];
    for (int i = 0; i < N; i++)
        ids[i] = store_graph(f, 1000, "x", 3, T0 + i);

    sc_graph_query q = {.limit = 5, .uid = 1000};
    sc_graph_page *p = list_graphs(f, &q);
    assert_int_equal(p->count, 5);
    assert_int_equal(p->graphs[0].graph, ids[N - 1]);
    assert_int_equal(p->graphs[4].graph, ids[N - 5]);
    q.before_graph = p->next_before;
    sc_graph_page_free(p);

    /* New graphs (newer than the cursor) and a deleted one in the next page. */
    int64_t fresh[3];
    for (int i = 0; i < 3; i++)
        fresh[i] = store_graph(f, 1000, "x", 3, T0 + 100 + i);
    assert_true(fresh[0] > ids[N - 1]);
    assert_int_equal(delete_graph(f, ids[N - 7]), 0);

    p = list_graphs(f, &q);
    assert_int_equal(p->count, 5);
    static const int want[] = {N - 6, N - 8, N - 9, N - 10, N - 11};
    for (int i = 0; i < 5; i++)
        assert_int_equal(p->graphs[i].graph, ids[want[i]]);
    assert_true(p->has_more);
    q.before_graph = p->next_before;
    sc_graph_page_free(p);
    p = list_graphs(f, &q);
    assert_int_equal(p->count, 1);
    assert_int_equal(p->graphs[0].graph, ids[0]);
    assert_false(p->has_more);
    sc_graph_page_free(p);

    /* From the top again, the new ones come first. */
    q.before_graph = 0;
    q.limit = 3;
    p = list_graphs(f, &q);
    for (int i = 0; i < 3; i++)
        assert_int_equal(p->graphs[i].graph, fresh[2 - i]);
    sc_graph_page_free(p);
}

/* ---- log.list ---- */

typedef struct lwant {
    int64_t session;
    int64_t opened;
    uint32_t uid;
    const char *outcome;
} lwant;

/* Newest first: opened time descending, then session id descending. */
static int by_list_order(const void *a, const void *b)
{
    const lwant *x = a, *y = b;
    if (x->opened != y->opened)
        return x->opened < y->opened ? 1 : -1;
    return x->session < y->session ? 1 : x->session > y->session ? -1 : 0;
}

/* Walk every page; returns the sessions in out[]. */
static size_t walk_log(fx *f, sc_log_query q, int64_t *out, size_t max)
{
    size_t n = 0;
    q.has_before = false;
    for (int pages = 0;; pages++) {
        assert_true(pages <= (int)max + 1);
        sc_log_page *p = list_log(f, &q);
        assert_true(p->count <= q.limit);
        for (size_t i = 0; i < p->count; i++) {
            assert_true(n < max);
            if (q.outcome)
                assert_string_equal(p->entries[i].outcome, q.outcome);
            if (!q.any_owner)
                assert_int_equal(p->entries[i].owner_uid, q.uid);
            out[n++] = p->entries[i].session;
        }
        bool more = p->has_more;
        if (more) {
            assert_int_equal(p->count, q.limit);
            assert_int_equal(p->next_opened_ms, p->entries[p->count - 1].opened_ms);
            assert_int_equal(p->next_session, p->entries[p->count - 1].session);
            q.has_before = true;
            q.before_opened_ms = p->next_opened_ms;
            q.before_session = p->next_session;
        }
        sc_log_page_free(p);
        if (!more)
            return n;
    }
}

static size_t expect_log(const lwant *sorted, size_t n, const sc_log_query *q, int64_t *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if ((q->any_owner || sorted[i].uid == q->uid) &&
            (!q->outcome || strcmp(sorted[i].outcome, q->outcome) == 0))
            out[k++] = sorted[i].session;
    return k;
}

static void test_log_order_filters_and_pages(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    /* Opened times out of id order, with ties that straddle page ends. */
    static const int64_t offsets[] = {5, 1, 5, 9, 5, 0, 9, 3, 5, 5, 1, 7, 9, 2, 5, 8, 0, 5};
    static const char *const ends[] = {"open",     "closed",    "failed", "abandoned",
                                       "shutdown", "completed", "lost"};
    enum { N = sizeof offsets / sizeof offsets[0] };
    lwant all[N];
    for (int i = 0; i < N; i++) {
        all[i].opened = T0 + offsets[i] * 1000;
        all[i].uid = i % 4 == 1 ? 2000 : 1000;
        all[i].outcome = ends[i % 7];
    }
    /* Lost rows are the ones a restart finds open. */
    for (int i = 0; i < N; i++)
        if (strcmp(all[i].outcome, "lost") == 0)
            all[i].session = open_session_as(f, all[i].uid, "s", all[i].opened);
    fx_close(f);
    fx_open(f, 1000, 0);
    for (int i = N; i-- > 0;) {
        const char *o = all[i].outcome;
        if (strcmp(o, "lost") == 0)
            continue;
        all[i].session = open_session_as(f, all[i].uid, "s", all[i].opened);
        if (strcmp(o, "completed") == 0) {
            sc_graph *g = chain_graph(2, 3);
            wres w = {0};
            assert_int_equal(sc_store_commit_graph(f->st, all[i].session, g, all[i].uid, 1, "s", 1,
                                                   all[i].opened + 1, wres_cb, &w),
                             0);
            fx_drain(f);
            assert_int_equal(w.rc, 0);
            sc_graph_destroy(g);
        } else if (strcmp(o, "open") != 0) {
            fx_log_end(f, all[i].session, o, 4, all[i].opened + 1);
        }
    }

    lwant sorted[N];
    memcpy(sorted, all, sizeof all);
    qsort(sorted, N, sizeof sorted[0], by_list_order);

    static const uint32_t limits[] = {1, 2, 3, 5, N, 10000};
    static const char *const outcomes[] = {NULL,     "open",      "completed", "failed",
                                           "closed", "abandoned", "shutdown",  "lost"};
    int64_t got[N + 1], want[N];
    for (size_t li = 0; li < sizeof limits / sizeof limits[0]; li++) {
        for (int owner = -1; owner < 2; owner++) {
            for (size_t oi = 0; oi < sizeof outcomes / sizeof outcomes[0]; oi++) {
                sc_log_query q = {.limit = limits[li],
                                  .any_owner = owner < 0,
                                  .uid = owner == 1 ? 2000 : 1000,
                                  .outcome = outcomes[oi]};
                size_t n = walk_log(f, q, got, N + 1);
                size_t k = expect_log(sorted, N, &q, want);
                assert_int_equal(n, k);
                if (k)
                    assert_memory_equal(got, want, k * sizeof want[0]);
            }
        }
    }
    sc_log_query q = {.limit = 10000, .any_owner = true, .outcome = "open"};
    assert_true(expect_log(sorted, N, &q, want) >= 2);
}

static const sc_log_entry *find_entry(const sc_log_page *p, int64_t session)
{
    for (size_t i = 0; i < p->count; i++)
        if (p->entries[i].session == session)
            return &p->entries[i];
    fail_msg("session %lld not listed", (long long)session);
    return NULL;
}

static void test_log_entry_fields(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    int64_t open_s = open_session_as(f, 1000, "still open \xe2\x9c\x93", T0);
    int64_t failed_s = open_session_as(f, 1001, "", T0 + 1);
    fx_log_end(f, failed_s, "failed", 17, T0 + 2500);
    int64_t graph = store_graph(f, 1002, "done", 9, T0 + 3000);

    sc_log_query q = {.limit = 10, .any_owner = true};
    sc_log_page *p = list_log(f, &q);
    assert_int_equal(p->count, 3);
    assert_false(p->has_more);
    assert_int_equal(p->next_session, 0);
    assert_int_equal(p->entries[2].session, open_s);

    const sc_log_entry *e = find_entry(p, open_s);
    assert_string_equal(e->label, "still open \xe2\x9c\x93");
    assert_int_equal(e->label_len, strlen("still open \xe2\x9c\x93"));
    assert_string_equal(e->outcome, "open");
    assert_int_equal(e->owner_uid, 1000);
    assert_int_equal(e->owner_pid, 1100);
    assert_int_equal(e->opened_ms, T0);
    assert_false(e->has_ended);
    assert_int_equal(e->node_count, 0);
    assert_int_equal(e->graph, 0);
    assert_false(e->graph_deleted);

    e = find_entry(p, failed_s);
    assert_string_equal(e->label, "");
    assert_string_equal(e->outcome, "failed");
    assert_true(e->has_ended);
    assert_int_equal(e->ended_ms, T0 + 2500);
    assert_int_equal(e->node_count, 17);
    assert_int_equal(e->graph, 0);

    e = &p->entries[0];
    assert_string_equal(e->outcome, "completed");
    assert_int_equal(e->graph, graph);
    assert_int_equal(e->node_count, 9);
    assert_int_equal(e->ended_ms, T0 + 3007);
    assert_int_equal(e->owner_uid, 1002);
    assert_false(e->graph_deleted);
    int64_t completed_s = e->session;
    sc_log_page_free(p);

    /* Deleting the graph keeps the row, its outcome and graph id. */
    assert_int_equal(delete_graph(f, graph), 0);
    p = list_log(f, &q);
    e = find_entry(p, completed_s);
    assert_string_equal(e->outcome, "completed");
    assert_int_equal(e->graph, graph);
    assert_true(e->graph_deleted);
    assert_int_equal(e->graph_deleted_ms, DELETED_MS); /* the time the caller gave */
    sc_log_page_free(p);
}

/* New sessions and ended ones between pages: the walk goes on from the
 * cursor, neither repeating nor skipping a row. */
static void test_log_cursor_stable_under_writes(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    enum { N = 9 };
    int64_t s[N];
    for (int i = 0; i < N; i++)
        s[i] = open_session_as(f, 1000, "x", T0 + (i / 3) * 1000); /* three per instant */

    sc_log_query q = {.limit = 4, .uid = 1000};
    sc_log_page *p = list_log(f, &q);
    static const int first[] = {8, 7, 6, 5};
    for (int i = 0; i < 4; i++)
        assert_int_equal(p->entries[i].session, s[first[i]]);
    q.has_before = true;
    q.before_opened_ms = p->next_opened_ms;
    q.before_session = p->next_session;
    assert_int_equal(q.before_opened_ms, T0 + 1000);
    sc_log_page_free(p);

    /* Opened at the cursor's own instant, so it sorts before the cursor. */
    int64_t late = open_session_as(f, 1000, "x", T0 + 1000);
    int64_t newest = open_session_as(f, 1000, "x", T0 + 50000);
    fx_log_end(f, s[2], "closed", 1, T0 + 60000);

    p = list_log(f, &q);
    assert_int_equal(p->count, 4);
    static const int second[] = {4, 3, 2, 1};
    for (int i = 0; i < 4; i++)
        assert_int_equal(p->entries[i].session, s[second[i]]);
    assert_string_equal(p->entries[2].outcome, "closed");
    q.before_opened_ms = p->next_opened_ms;
    q.before_session = p->next_session;
    sc_log_page_free(p);
    p = list_log(f, &q);
    assert_int_equal(p->count, 1);
    assert_int_equal(p->entries[0].session, s[0]);
    assert_false(p->has_more);
    sc_log_page_free(p);

    q.has_before = false;
    q.limit = 3;
    p = list_log(f, &q);
    assert_int_equal(p->entries[0].session, newest);
    assert_int_equal(p->entries[1].session, s[8]);
    sc_log_page_free(p);
    q.outcome = "open";
    q.limit = 10000;
    p = list_log(f, &q);
    assert_int_equal(p->count, N + 2 - 1);
    assert_int_equal(find_entry(p, late)->opened_ms, T0 + 1000);
    sc_log_page_free(p);
}

/* ---- metadata ---- */

static void test_graph_meta(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    int64_t g = store_graph(f, 1234, "meta \xce\xbb", 40, T0);
    mres r = {0};
    assert_int_equal(sc_store_graph_meta(f->st, g, mres_cb, &r), 0);
    fx_drain(f);
    assert_int_equal(r.calls, 1);
    assert_int_equal(r.rc, 0);
    assert_non_null(r.meta);
    assert_int_equal(r.meta->graph, g);
    assert_string_equal(r.meta->label, "meta \xce\xbb");
    assert_int_equal(r.meta->owner_uid, 1234);
    assert_int_equal(r.meta->owner_pid, 1334);
    assert_int_equal(r.meta->created_ms, T0 + 7);
    assert_int_equal(r.meta->node_count, 40);
    assert_int_equal(r.meta->edge_count, 39);
    assert_int_equal(r.meta->stream_count, 1);

    /* The same as a full load reports. */
    lres l;
    fx_load(f, g, &l);
    assert_int_equal(l.rc, 0);
    assert_int_equal(l.sg->meta.session, r.meta->session);
    assert_int_equal(l.sg->meta.created_ms, r.meta->created_ms);
    sc_stored_graph_free(l.sg);
    sc_graph_meta_free(r.meta);

    memset(&r, 0, sizeof r);
    assert_int_equal(sc_store_graph_meta(f->st, g + 1, mres_cb, &r), 0);
    fx_drain(f);
    assert_int_equal(r.calls, 1);
    assert_int_equal(r.rc, SC_STORE_ENOTFOUND);
    assert_null(r.meta);
    sc_graph_meta_free(NULL);
}

/* ---- fingerprints ---- */

static sc_graph_meta *meta_of(fx *f, int64_t g)
{
    mres r = {0};
    assert_int_equal(sc_store_graph_meta(f->st, g, mres_cb, &r), 0);
    fx_drain(f);
    assert_int_equal(r.rc, 0);
    return r.meta;
}

/* The ids of graph.list {fingerprint: v}, as a bit set (ids below 64). */
static uint64_t listed_by(fx *f, uint64_t v)
{
    sc_graph_query q = {.limit = 100, .any_owner = true, .by_fingerprint = true, .fingerprint = v};
    sc_graph_page *p = list_graphs(f, &q);
    uint64_t set = 0;
    for (size_t i = 0; i < p->count; i++) {
        assert_true(p->graphs[i].has_fingerprint);
        set |= 1ull << p->graphs[i].graph;
    }
    sc_graph_page_free(p);
    return set;
}

/* Stored with the graph row, read back by meta and lists, filtered on
 * either value, replaced by sc_store_set_fingerprints. */
static void test_graph_fingerprints(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    int64_t a = store_graph(f, 1, "a", 5, T0), b = store_graph(f, 1, "b", 5, T0 + 1);
    int64_t c = store_graph(f, 1, "c", 6, T0 + 2);
    assert_true(c < 64);
    sc_graph *g = chain_graph(5, 6);
    sc_fingerprint want;
    assert_int_equal(sc_graph_fingerprint(g, NULL, NULL, &want), 0);
    sc_graph_destroy(g);
    sc_graph_meta *m = meta_of(f, a);
    assert_true(m->has_fingerprint);
    assert_true(m->fingerprint.structure == want.structure);
    assert_true(m->fingerprint.full == want.full);
    sc_graph_meta_free(m);

    assert_true(listed_by(f, want.full) == (1ull << a | 1ull << b));
    assert_true(listed_by(f, want.structure) == (1ull << a | 1ull << b));
    assert_true(listed_by(f, want.full ^ 1) == 0);

    /* c takes a's values (structure of one, full of another): matched by either. */
    sc_fingerprint set = {want.full, 42};
    wres w = {0};
    assert_int_equal(sc_store_set_fingerprints(f->st, 1, &c, &set, wres_cb, &w), 0);
    fx_drain(f);
    assert_int_equal(w.rc, 0);
    assert_true(listed_by(f, want.full) == (1ull << a | 1ull << b | 1ull << c));
    assert_true(listed_by(f, 42) == 1ull << c);
    m = meta_of(f, c);
    assert_true(m->fingerprint.structure == want.full && m->fingerprint.full == 42);
    sc_graph_meta_free(m);
    assert_int_equal(sc_store_set_fingerprints(f->st, 0, &c, &set, wres_cb, &w), SC_STORE_EINVAL);
    fx_close(f);
}

/* ---- delete ---- */

static void test_delete_graph(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    int64_t keep = store_graph(f, 1000, "keep", 30, T0);
    int64_t gone = store_graph(f, 1000, "gone", 50, T0 + 1);
    int64_t count;
    assert_int_equal(sc_store_graph_count(f->st, &count), 0);
    assert_int_equal(count, 2);

    assert_int_equal(delete_graph(f, gone), 0);
    assert_int_equal(sc_store_graph_count(f->st, &count), 0);
    assert_int_equal(count, 1);
    fx_sql *db = fx_db(f);
    assert_int_equal(q_int(db, "SELECT count(*) FROM graphs WHERE graph = %lld", gone), 0);
    assert_int_equal(q_int(db, "SELECT count(*) FROM nodes WHERE graph = %lld", gone), 0);
    assert_int_equal(q_int(db, "SELECT count(*) FROM edges WHERE graph = %lld", gone), 0);
    assert_int_equal(q_int(db, "SELECT count(*) FROM nodes WHERE graph = %lld", keep), 30);
    assert_int_equal(q_int(db, "SELECT count(*) FROM edges WHERE graph = %lld", keep), 29);
    assert_int_equal(q_int(db,
                           "SELECT count(*) FROM capture_log WHERE graph = %lld"
                           " AND outcome = 'completed' AND graph_deleted_at IS NOT NULL",
                           gone),
                     1);
    assert_int_equal(
        q_int(db, "SELECT count(*) FROM capture_log WHERE graph_deleted_at IS NOT NULL"), 1);
    fx_db_close(db);

    lres l;
    fx_load(f, gone, &l);
    assert_int_equal(l.rc, SC_STORE_ENOTFOUND);
    fx_load(f, keep, &l);
    assert_int_equal(l.rc, 0);
    assert_int_equal(sc_graph_node_count(l.sg->graph), 30);
    sc_stored_graph_free(l.sg);
    sc_graph_query q = {.limit = 10, .any_owner = true};
    sc_graph_page *p = list_graphs(f, &q);
    assert_int_equal(p->count, 1);
    assert_int_equal(p->graphs[0].graph, keep);
    sc_graph_page_free(p);

    /* Deleting again, or a graph that never was, changes nothing. */
    assert_int_equal(delete_graph(f, gone), SC_STORE_ENOTFOUND);
    assert_int_equal(delete_graph(f, 424242), SC_STORE_ENOTFOUND);
    assert_int_equal(sc_store_graph_count(f->st, &count), 0);
    assert_int_equal(count, 1);

    /* The count survives a restart (it is recounted at open). */
    fx_close(f);
    fx_open(f, 1000, 0);
    assert_int_equal(sc_store_graph_count(f->st, &count), 0);
    assert_int_equal(count, 1);
    /* Ids are never reused, even after the newest graph was deleted. */
    assert_true(store_graph(f, 1000, "next", 2, T0) > gone);
}

/* A delete shares its batch with other writes, and a missing graph does
 * not cost the batch a retry. */
static void test_delete_in_a_batch(void **state)
{
    fx *f = *state;
    fx_open(f, 5000, 0);
    int64_t a = store_graph(f, 1000, "a", 5, T0), b = store_graph(f, 1000, "b", 5, T0);
    int64_t s = open_session_as(f, 1000, "c", T0);
    sc_graph *g = chain_graph(4, 3);
    sc_store_stats before;
    assert_int_equal(sc_store_get_stats(f->st, &before), 0);

    fx_sql *lock = fx_db(f);
    q_lock_writes(lock);
    wres first = {0}, da = {0}, missing = {0}, c = {0}, db_ = {0};
    assert_int_equal(sc_store_log_open(f->st, 7, 7, "first", 5, T0, wres_cb, &first), 0);
    sleep_ms(100);
    assert_int_equal(sc_store_delete_graph(f->st, a, DELETED_MS, wres_cb, &da), 0);
    assert_int_equal(sc_store_delete_graph(f->st, 999999, DELETED_MS, wres_cb, &missing), 0);
    assert_int_equal(sc_store_commit_graph(f->st, s, g, 1000, 1, "c", 1, T0, wres_cb, &c), 0);
    assert_int_equal(sc_store_delete_graph(f->st, b, DELETED_MS, wres_cb, &db_), 0);
    q_unlock_writes(lock);
    fx_db_close(lock);
    fx_drain(f);

    assert_int_equal(da.rc, 0);
    assert_int_equal(missing.rc, SC_STORE_ENOTFOUND);
    assert_int_equal(c.rc, 0);
    assert_int_equal(db_.rc, 0);
    sc_store_stats after;
    assert_int_equal(sc_store_get_stats(f->st, &after), 0);
    assert_int_equal(after.jobs_retried, before.jobs_retried);
    assert_true(after.transactions - before.transactions <= 2);
    int64_t count;
    assert_int_equal(sc_store_graph_count(f->st, &count), 0);
    assert_int_equal(count, 1);
    fx_sql *db = fx_db(f);
    assert_int_equal(q_int(db, "SELECT count(*) FROM nodes"), 4);
    assert_int_equal(q_int(db, "SELECT graph FROM graphs"), c.id);
    fx_db_close(db);
    sc_graph_destroy(g);
}

/* Deleting a small graph beside a large one removes exactly its rows; the
 * large one's go with its own delete.  (Speed belongs to bench/.) */
static void test_delete_large_graph(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    enum { BIG = 20000 };
    int64_t big = store_graph(f, 1000, "big", BIG, T0);
    int64_t small = store_graph(f, 1000, "small", 10, T0);
    fx_sql *db = fx_db(f);
    int64_t big_edges = q_int(db, "SELECT count(*) FROM edges");

    assert_int_equal(delete_graph(f, small), 0);
    assert_int_equal(q_int(db, "SELECT count(*) FROM nodes"), BIG);
    assert_true(q_int(db, "SELECT count(*) FROM edges") < big_edges);
    assert_int_equal(q_int(db, "SELECT count(*) FROM graphs"), 1);
    assert_int_equal(delete_graph(f, big), 0);
    assert_int_equal(q_int(db, "SELECT count(*) FROM nodes"), 0);
    assert_int_equal(q_int(db, "SELECT count(*) FROM edges"), 0);
    assert_int_equal(q_int(db, "SELECT count(*) FROM graphs"), 0);
    fx_db_close(db);
}

/* ---- arguments ---- */

static void test_list_arguments(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    gres g = {0};
    logres l = {0};
    mres m = {0};
    sc_graph_query gq = {.limit = 0, .any_owner = true};
    assert_int_equal(sc_store_list_graphs(f->st, &gq, gres_cb, &g), SC_STORE_EINVAL);
    gq.limit = SC_STORE_LIST_MAX + 1;
    assert_int_equal(sc_store_list_graphs(f->st, &gq, gres_cb, &g), SC_STORE_EINVAL);
    gq.limit = 10;
    gq.before_graph = -1;
    assert_int_equal(sc_store_list_graphs(f->st, &gq, gres_cb, &g), SC_STORE_EINVAL);
    gq.before_graph = 0;
    assert_int_equal(sc_store_list_graphs(f->st, NULL, gres_cb, &g), SC_STORE_EINVAL);
    assert_int_equal(sc_store_list_graphs(f->st, &gq, NULL, &g), SC_STORE_EINVAL);
    assert_int_equal(sc_store_list_graphs(NULL, &gq, gres_cb, &g), SC_STORE_EINVAL);

    sc_log_query lq = {.limit = 0, .any_owner = true};
    assert_int_equal(sc_store_list_log(f->st, &lq, logres_cb, &l), SC_STORE_EINVAL);
    lq.limit = SC_STORE_LIST_MAX + 1;
    assert_int_equal(sc_store_list_log(f->st, &lq, logres_cb, &l), SC_STORE_EINVAL);
    lq.limit = 10;
    lq.outcome = "Open";
    assert_int_equal(sc_store_list_log(f->st, &lq, logres_cb, &l), SC_STORE_EINVAL);
    lq.outcome = "";
    assert_int_equal(sc_store_list_log(f->st, &lq, logres_cb, &l), SC_STORE_EINVAL);
    lq.outcome = NULL;
    assert_int_equal(sc_store_list_log(f->st, NULL, logres_cb, &l), SC_STORE_EINVAL);
    assert_int_equal(sc_store_list_log(f->st, &lq, NULL, &l), SC_STORE_EINVAL);
    assert_int_equal(sc_store_graph_meta(f->st, 1, NULL, &m), SC_STORE_EINVAL);
    assert_int_equal(sc_store_graph_meta(NULL, 1, mres_cb, &m), SC_STORE_EINVAL);
    assert_int_equal(sc_store_delete_graph(NULL, 1, DELETED_MS, wres_cb, NULL), SC_STORE_EINVAL);
    fx_drain(f);
    assert_int_equal(g.calls + l.calls + m.calls, 0);

    /* The largest limit is accepted; an empty database is an empty page. */
    gq.limit = SC_STORE_LIST_MAX;
    lq.limit = SC_STORE_LIST_MAX;
    sc_graph_page *gp = list_graphs(f, &gq);
    assert_int_equal(gp->count, 0);
    assert_false(gp->has_more);
    sc_graph_page_free(gp);
    sc_log_page *lp = list_log(f, &lq);
    assert_int_equal(lp->count, 0);
    sc_log_page_free(lp);
    sc_graph_page_free(NULL);
    sc_log_page_free(NULL);
}

/* Reads queued when the store closes report once, done or cancelled. */
static void test_close_with_lists_in_flight(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    for (int i = 0; i < 5; i++)
        store_graph(f, 1000, "x", 20, T0 + i);
    enum { N = 12 };
    gres g[N];
    logres l[N];
    mres m[N];
    memset(g, 0, sizeof g);
    memset(l, 0, sizeof l);
    memset(m, 0, sizeof m);
    sc_graph_query gq = {.limit = 3, .any_owner = true};
    sc_log_query lq = {.limit = 3, .any_owner = true};
    for (int i = 0; i < N; i++) {
        assert_int_equal(sc_store_list_graphs(f->st, &gq, gres_cb, &g[i]), 0);
        assert_int_equal(sc_store_list_log(f->st, &lq, logres_cb, &l[i]), 0);
        assert_int_equal(sc_store_graph_meta(f->st, 1, mres_cb, &m[i]), 0);
    }
    sc_store_close(f->st);
    f->st = NULL;
    uv_run(&f->loop, UV_RUN_DEFAULT);
    for (int i = 0; i < N; i++) {
        assert_int_equal(g[i].calls, 1);
        assert_int_equal(l[i].calls, 1);
        assert_int_equal(m[i].calls, 1);
        if (g[i].rc == 0)
            assert_int_equal(g[i].page->count, 3);
        else
            assert_int_equal(g[i].rc, SC_STORE_ECLOSED);
        if (l[i].rc == 0)
            assert_int_equal(l[i].page->count, 3);
        else
            assert_int_equal(l[i].rc, SC_STORE_ECLOSED);
        if (m[i].rc != 0)
            assert_int_equal(m[i].rc, SC_STORE_ECLOSED);
        sc_graph_page_free(g[i].page);
        sc_log_page_free(l[i].page);
        sc_graph_meta_free(m[i].meta);
    }
}

/* ---- query plans ---- */

/* The plan of `sql` as one string, details joined by "; ". */
static void plan_of(sqlite3 *db, const char *sql, char *out, size_t len)
{
    char *explain = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", sql);
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, explain, -1, &s, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    sqlite3_free(explain);
    out[0] = '\0';
    while (sqlite3_step(s) == SQLITE_ROW) {
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s; ", (const char *)sqlite3_column_text(s, 3));
    }
    sqlite3_finalize(s);
}

/* Every list statement walks an index in list order: no scan of the
 * table, no sort; the start-up update and the deletes use keys too. */
static void test_query_plans(void **state)
{
    fx *f = *state;
    /* The statements are the SQLite backend's, the plans SQLite's words;
     * PostgreSQL picks plans by table statistics, not statically. */
    fx_sqlite_only(f, "EXPLAIN QUERY PLAN of the SQLite backend's statements");
    fx_open(f, 1000, 0);
    fx_close(f);
    fx_sql *conn = fx_db(f);
    sqlite3 *db = conn->lite;
    char sql[STORE_LIST_SQL_MAX], plan[1024];
    /* The index each filter alone must be served by (the primary key
     * without one); with several, any of theirs.  A fingerprint matches
     * either column: one index walk of at most a page on each, merged (the
     * only variants allowed to scan and sort, and only those two pages of
     * rows: the subqueries'). */
    for (int v = 0; v < STORE_GRAPHS_VARIANTS; v++) {
        store_graphs_sql(v, sql, sizeof sql);
        plan_of(db, sql, plan, sizeof plan);
        bool fp = v & STORE_GRAPHS_BY_FP;
        char rest[sizeof plan];
        snprintf(rest, sizeof rest, "%s", plan);
        for (char *sub; (sub = strstr(rest, "SCAN (subquery-")) != NULL;)
            memcpy(sub, "scan", 4);
        if (strstr(rest, "SCAN") || (!fp && strstr(plan, "TEMP B-TREE")) ||
            !strstr(plan, "SEARCH graphs") ||
            (fp && (!strstr(plan, "graphs_by_fp_structure") || !strstr(plan, "graphs_by_fp_full"))))
            fail_msg("graphs variant %d: %s", v, plan);
        const char *want = v == 0                       ? "INTEGER PRIMARY KEY"
                           : v == STORE_GRAPHS_BY_OWNER ? "graphs_by_owner"
                           : v == STORE_GRAPHS_BY_LABEL ? "graphs_by_label"
                           : v == STORE_GRAPHS_BY_HOST  ? "graphs_by_host"
                           : v == STORE_GRAPHS_BY_FP    ? "graphs_by_fp_"
                                                        : "USING";
        if (!strstr(plan, want))
            fail_msg("graphs variant %d: %s", v, plan);
    }
    for (int v = 0; v < STORE_LOG_VARIANTS; v++) {
        store_log_sql(v, sql, sizeof sql);
        plan_of(db, sql, plan, sizeof plan);
        bool indexed = strstr(plan, "capture_log_by_") != NULL;
        /* An ordered walk of an index that LIMIT ends is no table scan. */
        const char *scan = strstr(plan, "SCAN capture_log");
        bool full_scan = scan && strncmp(scan, "SCAN capture_log USING INDEX", 28) != 0;
        if (strstr(plan, "TEMP B-TREE") || full_scan || !indexed)
            fail_msg("log variant %d: %s", v, plan);
        int filter = v & ~STORE_LOG_CURSOR;
        if (filter == STORE_LOG_BY_OUTCOME && !strstr(plan, "capture_log_by_outcome (outcome=?"))
            fail_msg("log variant %d: %s", v, plan);
        if (filter == STORE_LOG_BY_OWNER && !strstr(plan, "capture_log_by_owner (owner_uid=?"))
            fail_msg("log variant %d: %s", v, plan);
        if (filter == STORE_LOG_BY_HOST && !strstr(plan, "capture_log_by_host (host=?"))
            fail_msg("log variant %d: %s", v, plan);
    }
    plan_of(db, "UPDATE capture_log SET outcome = 'lost' WHERE outcome = 'open'", plan,
            sizeof plan);
    assert_non_null(strstr(plan, "SEARCH capture_log USING INDEX capture_log_by_outcome"));
    /* A graph's nodes and edges are its node_chunks, found through their
     * index (schema/007_node_chunks_rowid.sql). */
    plan_of(db, "DELETE FROM node_chunks WHERE graph = ?1", plan, sizeof plan);
    assert_non_null(strstr(plan, "SEARCH node_chunks USING INDEX node_chunks_by_graph (graph=?)"));
    fx_db_close(conn);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_graph_pages_and_filters, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_graph_label_exact, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_graph_cursor_stable_under_writes, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_log_order_filters_and_pages, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_log_entry_fields, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_log_cursor_stable_under_writes, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_graph_meta, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_graph_fingerprints, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_delete_graph, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_delete_in_a_batch, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_delete_large_graph, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_list_arguments, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_close_with_lists_in_flight, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_query_plans, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
