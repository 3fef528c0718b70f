/*
 * Stored graphs read by stock tools while streamcapd runs: graph.export's
 * DOT text rendered by Graphviz `dot` (nodes, edges, one cluster per stream,
 * node labels), and the recursive reachability query of docs/sql.md run by
 * the `sqlite3` shell on the daemon's database, compared with
 * graph.reachable.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"
#include "itgraph.h"

#define SQL_DOC SC_TEST_DATA_DIR "/../../docs/sql.md"

/* Run a shell command; *out gets its stdout (malloc'd).  Returns the exit status. */
static int run(const char *cmd, char **out)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        fail_msg("cannot run %s", cmd);
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    assert_non_null(buf);
    size_t got;
    while ((got = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += got;
        if (cap - len < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
    }
    buf[len] = '\0';
    int status = pclose(p);
    *out = buf;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

/* ------------------------------------------------------------- DOT */

/* The DOT text of a graph (malloc'd). */
static char *export_dot(sc_it_conn *c, int64_t graph)
{
    cJSON *reply =
        sc_it_call(c, "graph.export", "{\"graph\":%lld,\"format\":\"dot\"}", (long long)graph);
    const cJSON *res = sc_it_ok(c, reply);
    assert_string_equal(sc_it_str(res, "format"), "dot");
    char *text = strdup(sc_it_str(res, "text"));
    assert_non_null(text);
    cJSON_Delete(reply);
    return text;
}

static size_t count_lines_with_prefix(const char *text, const char *prefix)
{
    size_t n = 0, len = strlen(prefix);
    for (const char *p = text; p && *p;) {
        if (strncmp(p, prefix, len) == 0)
            n++;
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return n;
}

static size_t count_substr(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static size_t distinct_streams(const sc_itg_graph *g)
{
    size_t n = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        uint32_t j = 0;
        while (j < i && g->stream[j] != g->stream[i])
            j++;
        n += j == i;
    }
    return n;
}

/* Graphviz's own view of the DOT text: -Tjson0 (fails the test unless dot accepts it). */
static cJSON *dot_json(const sc_it_daemon *d, const char *dot, const char *name)
{
    char path[4096], cmd[8300];
    snprintf(path, sizeof(path), "%s/%s.dot", sc_it_daemon_dir(d), name);
    write_file(path, dot);
    char *out;
    snprintf(cmd, sizeof(cmd), "dot -Tsvg '%s' 2>&1", path);
    int rc = run(cmd, &out);
    if (rc != 0 || !strstr(out, "<svg"))
        fail_msg("dot -Tsvg %s exited %d:\n%.2000s\nDOT text:\n%.4000s", path, rc, out, dot);
    free(out);
    snprintf(cmd, sizeof(cmd), "dot -Tjson0 '%s'", path);
    rc = run(cmd, &out);
    cJSON *json = cJSON_Parse(out);
    if (rc != 0 || !json)
        fail_msg("dot -Tjson0 %s exited %d:\n%.2000s", path, rc, out);
    free(out);
    return json;
}

/* `dot -Tplain`: as many node and edge lines as the graph has nodes and edges. */
static void check_plain_counts(const sc_it_daemon *d, const sc_itg_graph *g, const char *name)
{
    char path[4096], cmd[8300];
    snprintf(path, sizeof(path), "%s/%s.dot", sc_it_daemon_dir(d), name);
    snprintf(cmd, sizeof(cmd), "dot -Tplain '%s'", path);
    char *out;
    int rc = run(cmd, &out);
    if (rc != 0)
        fail_msg("dot -Tplain %s exited %d:\n%.2000s", path, rc, out);
    size_t nodes = count_lines_with_prefix(out, "node ");
    size_t edges = count_lines_with_prefix(out, "edge ");
    if (nodes != g->n || edges != g->edge_count)
        fail_msg("graph %lld: dot -Tplain shows %zu nodes and %zu edges, the graph has %u and %zu",
                 (long long)g->id, nodes, edges, g->n, g->edge_count);
    free(out);
}

/* Graphviz keeps \\ and \" escapes in labels' text; undo those two only. */
static char *unescape_label(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    assert_non_null(out);
    for (; *s; s++) {
        if (s[0] == '\\' && (s[1] == '\\' || s[1] == '"'))
            s++;
        *o++ = *s;
    }
    *o = '\0';
    return out;
}

static bool contains_nocase(const char *hay, const char *needle, size_t len)
{
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, len) == 0)
            return true;
    return false;
}

/* "<<<a, b, c>>>" with any spacing. */
static bool contains_launch(const char *label, int64_t blocks, int64_t threads, int64_t shared)
{
    char squeezed[1024], want[96];
    size_t k = 0;
    for (const char *p = label; *p && k + 1 < sizeof(squeezed); p++)
        if (*p != ' ')
            squeezed[k++] = *p;
    squeezed[k] = '\0';
    snprintf(want, sizeof(want), "<<<%lld,%lld,%lld>>>", (long long)blocks, (long long)threads,
             (long long)shared);
    return strstr(squeezed, want) != NULL;
}

/* A node's label holds its id, its kind, its name, and a kernel's launch. */
static void check_label(const char *label, const cJSON *node)
{
    int64_t id = sc_it_int(node, "id");
    const char *kind = sc_it_str(node, "kind");
    const char *name = sc_it_str(node, "name");
    char *plain = unescape_label(label);
    char ids[32];
    snprintf(ids, sizeof(ids), "%lld", (long long)id);
    size_t kind_len = strcspn(kind, "_"); /* host_callback shows as host */
    bool ok = strstr(plain, ids) && contains_nocase(plain, kind, kind_len) && strstr(plain, name);
    if (ok && strcmp(kind, "kernel") == 0)
        ok = contains_launch(plain, sc_it_int(node, "num_blocks"),
                             sc_it_int(node, "threads_per_block"), sc_it_int(node, "shared_mem"));
    if (!ok) {
        char *text = sc_it_json_text(node);
        fail_msg("DOT label \"%s\" does not show id, kind, name (and <<<blocks, threads, "
                 "shared>>>) of node %s",
                 label, text);
    }
    free(plain);
}

/*
 * Graphviz's parse against graph.get: nodes found by their (distinct) names,
 * each edge between the right nodes, one cluster per stream holding exactly
 * that stream's nodes.
 */
static void check_structure(const cJSON *json, const cJSON *nodes, const sc_itg_graph *g)
{
    const cJSON *objects = cJSON_GetObjectItemCaseSensitive(json, "objects");
    int nobj = cJSON_GetArraySize(objects);
    int *id_of = calloc((size_t)nobj + 1, sizeof(int));
    assert_non_null(id_of);
    size_t clusters = 0;
    for (int k = 0; k < nobj; k++) {
        const cJSON *o = cJSON_GetArrayItem(objects, k);
        id_of[k] = -1;
        if (cJSON_GetObjectItemCaseSensitive(o, "nodes")) {
            clusters++;
            continue;
        }
        int64_t gvid = sc_it_int(o, "_gvid");
        assert_int_equal(gvid, k);
        const char *label = sc_it_str(o, "label");
        char *plain = unescape_label(label);
        for (uint32_t i = 0; i < g->n; i++)
            if (strstr(plain, sc_it_str(cJSON_GetArrayItem(nodes, (int)i), "name")))
                id_of[k] = (int)i;
        free(plain);
        if (id_of[k] < 0)
            fail_msg("DOT node with label \"%s\" names no node of graph %lld", label,
                     (long long)g->id);
        check_label(label, cJSON_GetArrayItem(nodes, id_of[k]));
    }
    assert_int_equal(clusters, distinct_streams(g));

    /* Each cluster: nodes of one stream only, and all of them. */
    for (int k = 0; k < nobj; k++) {
        const cJSON *members =
            cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(objects, k), "nodes");
        if (!members)
            continue;
        const cJSON *m;
        int first = -1;
        size_t count = 0;
        cJSON_ArrayForEach(m, members)
        {
            int node = id_of[m->valueint];
            assert_true(node >= 0);
            if (first < 0)
                first = node;
            if (g->stream[node] != g->stream[first])
                fail_msg("one DOT cluster holds node %d (stream %u) and node %d (stream %u)", first,
                         g->stream[first], node, g->stream[node]);
            count++;
        }
        size_t want = 0;
        for (uint32_t i = 0; i < g->n; i++)
            want += g->stream[i] == g->stream[first];
        if (count != want)
            fail_msg("the DOT cluster of stream %u holds %zu nodes, the stream has %zu",
                     g->stream[first], count, want);
    }

    /* Edges: same set as graph.get's. */
    const cJSON *edges = cJSON_GetObjectItemCaseSensitive(json, "edges");
    assert_int_equal(cJSON_GetArraySize(edges), g->edge_count);
    const cJSON *e;
    cJSON_ArrayForEach(e, edges)
    {
        int a = id_of[sc_it_int(e, "tail")], b = id_of[sc_it_int(e, "head")];
        bool found = false;
        for (size_t i = 0; i < g->edge_count && !found; i++)
            found = (int)g->edge_src[i] == a && (int)g->edge_dst[i] == b;
        if (!found)
            fail_msg("DOT edge %d -> %d is not an edge of graph %lld", a, b, (long long)g->id);
    }
    free(id_of);
}

/* A graph of every kind over streams 0, 3 and 4294967295, with awkward names. */
static int64_t capture_showcase(sc_it_conn *c)
{
    int64_t s = sc_it_open_session(c, "showcase");
    sc_itg_batch *b = sc_itg_batch_create();
    const unsigned streams[] = {0, 3, 4294967295u};
    for (size_t i = 0; i < 3; i++)
        sc_itg_batch_add(b, "capture.begin", "{\"session\":%lld,\"stream\":%u}", (long long)s,
                         streams[i]);
    const char *ops[] = {
        "capture.record_memcpy",
        "\"stream\":0,\"name\":\"alpha upload\",\"dir\":\"host_to_device\",\"size_bytes\":4096",
        "capture.record_event",
        "\"stream\":0,\"event\":1",
        "capture.wait_event",
        "\"stream\":3,\"event\":1",
        "capture.record_kernel",
        "\"stream\":3,\"function_name\":\"bravo\\\"gemm\\\\tile\",\"num_blocks\":128,"
        "\"threads_per_block\":256,\"shared_mem\":49152",
        "capture.wait_event",
        "\"stream\":4294967295,\"event\":1",
        "capture.record_memset",
        "\"stream\":4294967295,\"name\":\"charlie {zero} -> x\",\"size_bytes\":1024,\"value\":255",
        "capture.record_memcpy",
        "\"stream\":4294967295,\"name\":\"delta p2p\",\"dir\":\"peer_to_peer\",\"size_bytes\":"
        "9007199254740992,\"src_device\":1,\"dst_device\":4294967295",
        "capture.record_event",
        "\"stream\":3,\"event\":2",
        "capture.wait_event",
        "\"stream\":0,\"event\":2",
        "capture.record_event",
        "\"stream\":4294967295,\"event\":3",
        "capture.wait_event",
        "\"stream\":0,\"event\":3",
        "capture.record_kernel",
        "\"stream\":0,\"function_name\":\"echo_na\xc3\xafve\",\"num_blocks\":1,"
        "\"threads_per_block\":1",
        "capture.record_host_callback",
        "\"stream\":0,\"label\":\"foxtrot <log> & 'done'\"",
        "capture.record_memcpy",
        "\"stream\":3,\"name\":\"golf download\",\"dir\":\"device_to_host\",\"size_bytes\":0",
        "capture.record_memcpy",
        "\"stream\":3,\"name\":\"hotel d2d\",\"dir\":\"device_to_device\",\"size_bytes\":1",
    };
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i += 2)
        sc_itg_batch_add(b, ops[i], "{\"session\":%lld,%s}", (long long)s, ops[i + 1]);
    sc_itg_batch_add(b, "capture.end", "{\"session\":%lld,\"stream\":0}", (long long)s);
    cJSON **replies = sc_itg_batch_run(b, c);
    size_t n = sc_itg_batch_count(b);
    int64_t graph = sc_it_int(cJSON_GetObjectItemCaseSensitive(replies[n - 1], "result"), "graph");
    sc_itg_replies_free(replies, n);
    sc_itg_batch_destroy(b);
    return graph;
}

static void check_export(const sc_it_daemon *d, sc_it_conn *c, int64_t graph, const char *name,
                         bool by_name)
{
    sc_itg_graph *g = sc_itg_fetch(c, graph);
    char *dot = export_dot(c, graph);
    /* One subgraph per stream that recorded a node. */
    size_t subgraphs = count_substr(dot, "subgraph");
    if (subgraphs != distinct_streams(g))
        fail_msg("graph %lld: DOT text has %zu subgraphs for %zu streams:\n%.4000s",
                 (long long)graph, subgraphs, distinct_streams(g), dot);
    cJSON *json = dot_json(d, dot, name);
    check_plain_counts(d, g, name);
    if (by_name) {
        cJSON *reply = sc_it_call(c, "graph.get", "{\"graph\":%lld}", (long long)graph);
        check_structure(json, cJSON_GetObjectItemCaseSensitive(sc_it_ok(c, reply), "nodes"), g);
        cJSON_Delete(reply);
    }
    cJSON_Delete(json);
    free(dot);
    sc_itg_graph_free(g);
}

static void test_dot_export(void **state)
{
    (void)state;
    sc_it_daemon *d = sc_it_must_start(NULL);
    sc_it_conn *c = sc_it_must_connect(d);

    int64_t showcase = capture_showcase(c);
    check_export(d, c, showcase, "showcase", true);

    int64_t random = sc_itg_capture_random(c, "random", 150, 6, 4242);
    check_export(d, c, random, "random", false);

    /* A capture with no nodes is a valid, empty DOT graph. */
    int64_t s = sc_it_open_session(c, NULL);
    char params[96];
    snprintf(params, sizeof(params), "{\"session\":%lld,\"stream\":5}", (long long)s);
    sc_it_must_ok(c, "capture.begin", "%s", params);
    cJSON *reply = sc_it_call(c, "capture.end", "%s", params);
    int64_t empty = sc_it_int(sc_it_ok(c, reply), "graph");
    cJSON_Delete(reply);
    check_export(d, c, empty, "empty", false);

    /* Only "dot" is a format. */
    const char *formats[] = {"\"svg\"", "\"DOT\"", "\"\"", "\"dot \"", "5", "null"};
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
        reply = sc_it_call(c, "graph.export", "{\"graph\":%lld,\"format\":%s}", (long long)showcase,
                           formats[i]);
        sc_it_err_data(sc_it_err(c, reply, -32602, "invalid_params"), "field", "format");
        cJSON_Delete(reply);
    }
    reply = sc_it_call(c, "graph.export", "{\"graph\":%lld}", (long long)showcase);
    sc_it_err_data(sc_it_err(c, reply, -32602, "invalid_params"), "field", "format");
    cJSON_Delete(reply);
    reply = sc_it_call(c, "graph.export", "{\"graph\":%lld,\"format\":\"dot\"}",
                       (long long)random + 100);
    sc_it_err_data(sc_it_err(c, reply, 1001, "not_found"), "what", "graph");
    cJSON_Delete(reply);

    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

/* ------------------------------------------------------- sqlite3 CTE */

/* The fenced sql query of docs/sql.md that uses :from (malloc'd); the block of
 * .param lines mentions :from too, but holds no SELECT. */
static char *reach_query_from_docs(void)
{
    char *doc = sc_it_read_file(SQL_DOC);
    if (!doc)
        fail_msg("cannot read %s", SQL_DOC);
    char *found = NULL;
    for (char *p = strstr(doc, "```sql\n"); p && !found; p = strstr(p, "```sql\n")) {
        p += strlen("```sql\n");
        char *end = strstr(p, "\n```");
        if (!end)
            break;
        *end = '\0';
        if (strstr(p, ":from") && strstr(p, "SELECT"))
            found = strdup(p);
        p = end + 1;
    }
    free(doc);
    if (!found)
        fail_msg("%s has no sql block using :from", SQL_DOC);
    return found;
}

/* 50 pairs: reflexive ones, reachable and unreachable ones, and random ones. */
static size_t sample_pairs(const sc_itg_graph *g, sc_itg_rng *r, uint32_t *pairs)
{
    size_t k = 0, yes = 0, no = 0;
    for (int i = 0; i < 5; i++, k++)
        pairs[2 * k] = pairs[2 * k + 1] = sc_itg_rand(r, g->n);
    for (int tries = 0; tries < 100000 && (yes < 15 || no < 15); tries++) {
        uint32_t a = sc_itg_rand(r, g->n), b = sc_itg_rand(r, g->n);
        if (a == b)
            continue;
        bool reach = sc_itg_reaches(g, a, b);
        if (reach ? yes >= 15 : no >= 15)
            continue;
        /* Forward pairs that do not reach are the interesting unreachable ones. */
        if (!reach && a > b && no % 2 == 0)
            continue;
        yes += reach;
        no += !reach;
        pairs[2 * k] = a;
        pairs[2 * k + 1] = b;
        k++;
    }
    assert_true(yes == 15 && no == 15);
    while (k < 50) {
        pairs[2 * k] = sc_itg_rand(r, g->n);
        pairs[2 * k + 1] = sc_itg_rand(r, g->n);
        k++;
    }
    return k;
}

static void test_sql_cte(void **state)
{
    (void)state;
    sc_it_daemon *d = sc_it_must_start(NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    /* Two graphs, so that a query ignoring :graph would follow the wrong edges. */
    int64_t other = sc_itg_capture_random(c, "other", 300, 4, 31);
    int64_t graph = sc_itg_capture_random(c, "cte", 300, 4, 32);
    sc_itg_graph *g = sc_itg_fetch(c, graph);
    assert_true(other != graph);

    sc_itg_rng r;
    sc_itg_rng_seed(&r, 2718);
    uint32_t pairs[100];
    size_t n = sample_pairs(g, &r, pairs);
    char *query = reach_query_from_docs();

    char script_path[4096];
    snprintf(script_path, sizeof(script_path), "%s/reach.sql", sc_it_daemon_dir(d));
    FILE *f = fopen(script_path, "w");
    assert_non_null(f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, ".param set :graph %lld\n.param set :from %u\n.param set :to %u\n%s\n",
                (long long)graph, pairs[2 * i], pairs[2 * i + 1], query);
    assert_int_equal(fclose(f), 0);
    free(query);

    char cmd[8400];
    snprintf(cmd, sizeof(cmd), "sqlite3 -readonly '%s' < '%s' 2>&1", sc_it_daemon_db(d),
             script_path);
    char *out;
    int rc = run(cmd, &out);
    if (rc != 0)
        fail_msg("%s exited %d:\n%.2000s", cmd, rc, out);

    bool *daemon = sc_itg_reach_pairs(c, graph, pairs, n);
    char *line = out;
    for (size_t i = 0; i < n; i++) {
        char *nl = strchr(line, '\n');
        if (!nl)
            fail_msg("sqlite3 printed %zu answers for %zu queries:\n%.2000s", i, n, out);
        *nl = '\0';
        if (strcmp(line, "0") != 0 && strcmp(line, "1") != 0)
            fail_msg("sqlite3 answer %zu is \"%s\", expected 0 or 1", i, line);
        bool sql = line[0] == '1';
        bool want = sc_itg_reaches(g, pairs[2 * i], pairs[2 * i + 1]);
        if (sql != daemon[i] || sql != want)
            fail_msg("graph %lld, %u -> %u: docs/sql.md query says %d, graph.reachable says %s, "
                     "the BFS of graph.get's edges says %s",
                     (long long)graph, pairs[2 * i], pairs[2 * i + 1], sql,
                     daemon[i] ? "true" : "false", want ? "true" : "false");
        line = nl + 1;
    }
    if (*line)
        fail_msg("sqlite3 printed more than %zu answers:\n%.2000s", n, line);
    free(daemon);
    free(out);

    /* The daemon kept serving (and writing) while the shell read. */
    assert_true(sc_itg_capture_random(c, "after", 10, 2, 5) > graph);

    sc_itg_graph_free(g);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dot_export),
        cmocka_unit_test(test_sql_cte),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
