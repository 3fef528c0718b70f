/*
 * test_store_bodies.c - body graphs of child graph and conditional nodes:
 * stored with the graph, node and index that hold them, left out of
 * graph.list unless asked, listed by parent, and deleted with the graph
 * that holds them (at any depth).  Runs on both backends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_fixture.h"

#define T0 1795981461123LL

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

static int64_t submit(fx *f, const sc_graph *g, const sc_store_parent *p, const char *label)
{
    wres w = {0};
    assert_int_equal(
        sc_store_submit_body(f->st, g, p, 1000, 7, label, strlen(label), T0, wres_cb, &w), 0);
    fx_drain(f);
    assert_int_equal(w.calls, 1);
    assert_int_equal(w.rc, SC_STORE_OK);
    return w.id;
}

static sc_graph_page *list(fx *f, bool nested, int64_t parent)
{
    sc_graph_query q = {.limit = 100, .any_owner = true, .nested = nested, .parent = parent};
    gres r = {0};
    assert_int_equal(sc_store_list_graphs(f->st, &q, gres_cb, &r), 0);
    fx_drain(f);
    assert_int_equal(r.calls, 1);
    assert_int_equal(r.rc, 0);
    assert_non_null(r.page);
    return r.page;
}

static sc_graph_meta *meta(fx *f, int64_t g, int want_rc)
{
    mres r = {0};
    assert_int_equal(sc_store_graph_meta(f->st, g, mres_cb, &r), 0);
    fx_drain(f);
    assert_int_equal(r.calls, 1);
    assert_int_equal(r.rc, want_rc);
    return r.meta;
}

/* top (node 1 holds a child), the child (its node 0 a conditional with two
 * bodies): five rows, one of them top-level. */
static void test_bodies_linked_listed_deleted(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    sc_graph *g = chain_graph(3, 4);
    int64_t top = submit(f, g, NULL, "top");
    sc_store_parent p = {top, 1, 0};
    int64_t child = submit(f, g, &p, "top");
    p = (sc_store_parent){child, 0, 0};
    int64_t then = submit(f, g, &p, "top");
    p.index = 1;
    int64_t otherwise = submit(f, g, &p, "top");
    int64_t other = submit(f, g, NULL, "other");

    sc_graph_page *pg = list(f, false, 0);
    assert_int_equal(pg->count, 2);
    assert_int_equal(pg->graphs[0].graph, other);
    assert_int_equal(pg->graphs[1].graph, top);
    assert_int_equal(pg->graphs[1].parent_graph, 0);
    sc_graph_page_free(pg);

    pg = list(f, true, 0);
    assert_int_equal(pg->count, 5);
    sc_graph_page_free(pg);

    pg = list(f, false, child);
    assert_int_equal(pg->count, 2);
    assert_int_equal(pg->graphs[0].graph, otherwise);
    assert_int_equal(pg->graphs[0].parent_index, 1);
    assert_int_equal(pg->graphs[1].graph, then);
    assert_int_equal(pg->graphs[1].parent_index, 0);
    sc_graph_page_free(pg);

    sc_graph_meta *m = meta(f, child, 0);
    assert_int_equal(m->parent_graph, top);
    assert_int_equal(m->parent_node, 1);
    assert_int_equal(m->parent_index, 0);
    sc_graph_meta_free(m);
    m = meta(f, top, 0);
    assert_int_equal(m->parent_graph, 0);
    sc_graph_meta_free(m);

    /* The body reads back whole, like any graph. */
    lres l = {0};
    fx_load(f, otherwise, &l);
    assert_int_equal(l.rc, 0);
    fx_assert_same_graph(g, l.sg->graph);
    sc_stored_graph_free(l.sg);

    wres w = {0};
    assert_int_equal(sc_store_delete_graph(f->st, top, T0 + 1, wres_cb, &w), 0);
    fx_drain(f);
    assert_int_equal(w.rc, SC_STORE_OK);
    sc_graph_meta_free(meta(f, child, SC_STORE_ENOTFOUND));
    sc_graph_meta_free(meta(f, then, SC_STORE_ENOTFOUND));
    sc_graph_meta_free(meta(f, otherwise, SC_STORE_ENOTFOUND));
    pg = list(f, true, 0);
    assert_int_equal(pg->count, 1);
    assert_int_equal(pg->graphs[0].graph, other);
    sc_graph_page_free(pg);

    wres bad = {0};
    p.graph = 0;
    assert_int_equal(sc_store_submit_body(f->st, g, &p, 1000, 7, "x", 1, T0, wres_cb, &bad),
                     SC_STORE_EINVAL);
    sc_graph_destroy(g);
    fx_close(f);
}

/* A conditional of each type keeps its type, size, default and flags
 * through the store, in the nodes rows themselves as well. */
static void test_conditional_fields_round_trip(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    sc_graph *g;
    assert_int_equal(sc_graph_create(&g), 0);
    const sc_node nodes[] = {
        {.kind = (sc_node_kind)SC_KIND_EMPTY, .name = "", .name_len = 0},
        {.kind = (sc_node_kind)SC_KIND_CONDITIONAL,
         .name = "pick",
         .name_len = 4,
         .cond_type = SC_COND_IF,
         .cond_size = 2,
         .cond_default = 1,
         .cond_flags = SC_COND_ASSIGN_DEFAULT},
        {.kind = (sc_node_kind)SC_KIND_CONDITIONAL,
         .name = "",
         .name_len = 0,
         .cond_type = SC_COND_WHILE,
         .cond_size = 1,
         .cond_default = 0},
        {.kind = (sc_node_kind)SC_KIND_CONDITIONAL,
         .name = "",
         .name_len = 0,
         .cond_type = SC_COND_SWITCH,
         .cond_size = 3,
         .cond_default = 4000000000u,
         .cond_flags = SC_COND_ASSIGN_DEFAULT},
    };
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++)
        assert_int_equal(sc_graph_add_node(g, &nodes[i], NULL), 0);
    assert_int_equal(sc_graph_add_edge(g, 0, 1), 0);
    assert_int_equal(sc_graph_add_edge(g, 1, 2), 0);
    assert_int_equal(sc_graph_add_edge(g, 2, 3), 0);
    assert_int_equal(sc_graph_seal(g), 0);
    int64_t id = submit(f, g, NULL, "cond");
    lres l = {0};
    fx_load(f, id, &l);
    if (l.rc != 0)
        fail_msg("load: %d %s", l.rc, l.msg);
    fx_assert_same_graph(g, l.sg->graph);
    sc_stored_graph_free(l.sg);

    fx_sql *db = fx_db(f);
    char *row = q_text(db,
                       "SELECT cond_type || ',' || cond_size || ',' || cond_default || ',' ||"
                       " cond_flags FROM nodes WHERE graph = %lld AND id = 3",
                       (long long)id);
    assert_string_equal(row, "switch,3,4000000000,1");
    free(row);
    assert_int_equal(q_int(db,
                           "SELECT count(*) FROM nodes WHERE graph = %lld AND cond_type IS NULL"
                           " AND cond_size IS NULL AND cond_flags IS NULL",
                           (long long)id),
                     1);
    fx_db_close(db);
    sc_graph_destroy(g);
    fx_close(f);
}

/* A conditional stored before its fields were (SQLite version 10,
 * PostgreSQL version 4) has none of them: it reads back as an if of
 * size 0, and the rest of its graph as it was. */
static void test_conditional_stored_without_fields(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    sc_graph *g;
    assert_int_equal(sc_graph_create(&g), 0);
    sc_node n = {.kind = (sc_node_kind)SC_KIND_CONDITIONAL,
                 .name = "w",
                 .name_len = 1,
                 .cond_type = SC_COND_WHILE,
                 .cond_size = 1,
                 .cond_default = 3,
                 .cond_flags = SC_COND_ASSIGN_DEFAULT};
    assert_int_equal(sc_graph_add_node(g, &n, NULL), 0);
    assert_int_equal(sc_graph_seal(g), 0);
    int64_t id = submit(f, g, NULL, "old");
    fx_sql *db = fx_db(f);
    char sql[256];
    snprintf(sql, sizeof sql,
             fx_pick(db,
                     "UPDATE node_chunks SET nodes = json_remove(nodes, '$[0][3][18]',"
                     " '$[0][3][17]', '$[0][3][16]', '$[0][3][15]') WHERE graph = %lld",
                     "UPDATE nodes SET cond_type = NULL, cond_size = NULL, cond_default = NULL,"
                     " cond_flags = NULL WHERE graph = %lld"),
             (long long)id);
    q_exec(db, sql);
    fx_db_close(db);
    lres l = {0};
    fx_load(f, id, &l);
    if (l.rc != 0)
        fail_msg("load: %d %s", l.rc, l.msg);
    sc_node got;
    assert_int_equal(sc_graph_node(l.sg->graph, 0, &got), 0);
    assert_int_equal(got.kind, SC_KIND_CONDITIONAL);
    assert_int_equal(got.cond_type, SC_COND_IF);
    assert_int_equal(got.cond_size, 0);
    assert_int_equal(got.cond_default, 0);
    assert_int_equal(got.cond_flags, 0);
    assert_int_equal(got.name_len, 1);
    sc_stored_graph_free(l.sg);
    sc_graph_destroy(g);
    fx_close(f);
}

/* A cuda-mode capture's graph, committed with its capture row, holds
 * bodies stored after it (capture.end's order): they link to it, keep its
 * session's owner, and go when it is deleted. */
static void test_bodies_below_a_capture(void **state)
{
    fx *f = *state;
    fx_open(f, 1000, 0);
    wres w = {0};
    assert_int_equal(sc_store_log_open_as(f->st, "cuda", 1000, 7, "prog", 4, T0, wres_cb, &w), 0);
    fx_drain(f);
    assert_int_equal(w.rc, SC_STORE_OK);
    int64_t session = w.id;
    sc_graph *g = chain_graph(3, 4);
    sc_store_capture c = {
        .capture = 1, .origin = 1, .mode = "global", .outcome = "completed", .node_count = 3};
    w = (wres){0};
    assert_int_equal(
        sc_store_commit_capture(f->st, session, &c, g, 1000, 7, "prog", 4, T0, wres_cb, &w), 0);
    fx_drain(f);
    assert_int_equal(w.rc, SC_STORE_OK);
    int64_t top = w.id;
    sc_store_parent p = {top, 1, 0};
    int64_t child = submit(f, g, &p, "prog");
    p = (sc_store_parent){child, 2, 0};
    int64_t inner = submit(f, g, &p, "prog");

    sc_graph_meta *m = meta(f, child, 0);
    assert_int_equal(m->parent_graph, top);
    assert_int_equal(m->parent_node, 1);
    assert_int_equal(m->owner_uid, 1000);
    sc_graph_meta_free(m);
    m = meta(f, top, 0);
    assert_true(m->cuda);
    assert_int_equal(m->capture, 1);
    assert_int_equal(m->parent_graph, 0);
    sc_graph_meta_free(m);
    sc_graph_page *pg = list(f, false, 0);
    assert_int_equal(pg->count, 1);
    assert_int_equal(pg->graphs[0].graph, top);
    sc_graph_page_free(pg);

    w = (wres){0};
    assert_int_equal(sc_store_delete_graph(f->st, top, T0 + 1, wres_cb, &w), 0);
    fx_drain(f);
    assert_int_equal(w.rc, SC_STORE_OK);
    sc_graph_meta_free(meta(f, child, SC_STORE_ENOTFOUND));
    sc_graph_meta_free(meta(f, inner, SC_STORE_ENOTFOUND));
    sc_graph_destroy(g);
    fx_close(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_bodies_linked_listed_deleted, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_conditional_fields_round_trip, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_conditional_stored_without_fields, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_bodies_below_a_capture, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
