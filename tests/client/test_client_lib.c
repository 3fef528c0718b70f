/*
 * libstreamcap against a real streamcapd (every method), and against a
 * scripted fake daemon for what a real one does not do on demand: exact
 * request bytes, malformed replies, silence, a closed connection.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"
#include "run.h"
#include "streamcap.h"

#define IO_TIMEOUT_MS 10000

typedef struct fixture {
    sc_it_daemon *d;
    sc_client *c;
} fixture;

static int group_setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    f->d = sc_it_must_start(NULL);
    *state = f;
    return 0;
}

static int group_teardown(void **state)
{
    fixture *f = *state;
    sc_it_must_stop(f->d);
    sc_it_daemon_destroy(f->d);
    free(f);
    return 0;
}

static int test_setup(void **state)
{
    fixture *f = *state;
    assert_int_equal(sc_client_connect(sc_it_daemon_socket(f->d), IO_TIMEOUT_MS, &f->c), 0);
    return 0;
}

static int test_teardown(void **state)
{
    fixture *f = *state;
    sc_client_close(f->c);
    f->c = NULL;
    return 0;
}

/* Fail with the client's message, not just the code. */
#define CHECK(c, call)                                                                             \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != 0)                                                                              \
            fail_msg("%s -> %d (%s): %s", #call, rc_, sc_client_strerror(rc_),                     \
                     sc_client_errmsg(c));                                                         \
    } while (0)

typedef struct seed {
    uint64_t session;
    uint32_t up, k, dn;
    sc_client_captured cap;
} seed;

/* The seed fork/join example of the StreamCapture API. */
static void capture_seed(sc_client *c, const char *label, seed *s)
{
    CHECK(c, sc_client_open_session(c, label, &s->session));
    CHECK(c, sc_client_begin_capture(c, s->session, 0));
    CHECK(c, sc_client_begin_capture(c, s->session, 1));
    CHECK(c, sc_client_record_memcpy(c, s->session, 0, "upload", SC_CLIENT_HOST_TO_DEVICE, 4096,
                                     &s->up));
    CHECK(c, sc_client_record_event(c, s->session, 0, 0));
    CHECK(c, sc_client_wait_event(c, s->session, 1, 0));
    CHECK(c, sc_client_record_kernel(c, s->session, 1, "relu", 4, 256, 0, &s->k));
    CHECK(c, sc_client_record_event(c, s->session, 1, 1));
    CHECK(c, sc_client_wait_event(c, s->session, 0, 1));
    CHECK(c, sc_client_record_memcpy(c, s->session, 0, "download", SC_CLIENT_DEVICE_TO_HOST, 4096,
                                     &s->dn));
    CHECK(c, sc_client_end_capture(c, s->session, 0, &s->cap));
}

/* ------------------------------------------------------------ connect */

static void test_connect_errors(void **state)
{
    fixture *f = *state;
    char dir[64], path[160];
    assert_int_equal(sc_it_tmpdir(dir, sizeof(dir)), 0);
    sc_client *c = (sc_client *)&c;

    snprintf(path, sizeof(path), "%s/absent.sock", dir);
    assert_int_equal(sc_client_connect(path, 1000, &c), -ENOENT);
    assert_null(c);

    /* A socket file nobody listens on: bound, never listening. */
    snprintf(path, sizeof(path), "%s/dead.sock", dir);
    int fd = sc_it_socket_bind(path);
    assert_true(fd >= 0);
    assert_int_equal(sc_client_connect(path, 1000, &c), -ECONNREFUSED);
    close(fd);

    char longpath[300];
    memset(longpath, 'a', sizeof(longpath) - 1);
    longpath[sizeof(longpath) - 1] = '\0';
    assert_int_equal(sc_client_connect(longpath, 1000, &c), -ENAMETOOLONG);
    assert_int_equal(sc_client_connect(path, 1000, NULL), -EINVAL);

    /* NULL path: $STREAMCAP_SOCKET, else the rule of sc_paths.h. */
    unsetenv("STREAMCAP_SOCKET");
    setenv("XDG_RUNTIME_DIR", "/run/user/4242", 1);
    assert_string_equal(sc_client_default_socket(), "/run/user/4242/streamcap/streamcap.sock");
    unsetenv("XDG_RUNTIME_DIR");
    char fallback[64];
    if (getuid() == 0)
        snprintf(fallback, sizeof(fallback), "/run/streamcap/streamcap.sock");
    else
        snprintf(fallback, sizeof(fallback), "/tmp/streamcap-%u/streamcap.sock",
                 (unsigned)getuid());
    assert_string_equal(sc_client_default_socket(), fallback);
    setenv("STREAMCAP_SOCKET", sc_it_daemon_socket(f->d), 1);
    assert_string_equal(sc_client_default_socket(), sc_it_daemon_socket(f->d));
    assert_int_equal(sc_client_connect(NULL, 1000, &c), 0);
    assert_string_equal(sc_client_socket_path(c), sc_it_daemon_socket(f->d));
    sc_client_server_desc info;
    CHECK(c, sc_client_server_info(c, &info));
    sc_client_server_desc_free(&info);
    sc_client_close(c);
    unsetenv("STREAMCAP_SOCKET");
    sc_it_rmtree(dir);
}

/* ------------------------------------------------------------- server */

static void test_server_info(void **state)
{
    fixture *f = *state;
    sc_client_server_desc a, b;
    CHECK(f->c, sc_client_server_info(f->c, &a));
    assert_string_equal(a.version, SC_EXPECTED_VERSION);
    assert_true(a.connections >= 1);
    assert_non_null(a.db_path);
    assert_non_null(strstr(a.db_path, "streamcap.db"));

    uint64_t s;
    CHECK(f->c, sc_client_open_session(f->c, NULL, &s));
    CHECK(f->c, sc_client_server_info(f->c, &b));
    assert_int_equal(b.sessions, a.sessions + 1);
    sc_client_server_desc_free(&b);
    CHECK(f->c, sc_client_close_session(f->c, s));
    CHECK(f->c, sc_client_server_info(f->c, &b));
    assert_int_equal(b.sessions, a.sessions);
    sc_client_server_desc_free(&b);
    assert_null(b.version);
    sc_client_server_desc_free(&a);
    assert_string_equal(sc_client_errmsg(f->c), "");
    assert_int_equal(sc_client_errcode(f->c), 0);
}

/* ----------------------------------------------------------- sessions */

static const sc_client_stream *find_stream(const sc_client_session_desc *d, uint32_t id)
{
    for (size_t i = 0; i < d->stream_count; i++) {
        if (d->streams[i].stream == id)
            return &d->streams[i];
    }
    return NULL;
}

static void test_session_lifecycle(void **state)
{
    fixture *f = *state;
    sc_client *c = f->c;
    uint64_t s, s2;
    sc_client_session_desc d;
    CHECK(c, sc_client_open_session(c, "life \"cycle\"", &s));
    CHECK(c, sc_client_open_session(c, NULL, &s2));
    assert_true(s >= 1);
    assert_true(s2 != s);

    CHECK(c, sc_client_session_info(c, s, &d));
    assert_int_equal(d.session, s);
    assert_string_equal(d.label, "life \"cycle\"");
    assert_false(d.capturing);
    assert_int_equal(d.node_count, 0);
    sc_client_session_desc_free(&d);

    CHECK(c, sc_client_session_info(c, s2, &d));
    /* An unlabelled session: the daemon reports null or "". */
    assert_true(d.label == NULL || d.label[0] == '\0');
    sc_client_session_desc_free(&d);

    CHECK(c, sc_client_begin_capture(c, s, 0));
    CHECK(c, sc_client_begin_capture(c, s, 3));
    uint32_t node = 99;
    CHECK(c, sc_client_record_kernel(c, s, 3, "k", 1, 32, 0, &node));
    assert_int_equal(node, 0);
    CHECK(c, sc_client_invalidate(c, s, 0));

    CHECK(c, sc_client_session_info(c, s, &d));
    assert_true(d.capturing); /* stream 3 is still active */
    assert_int_equal(d.node_count, 1);
    const sc_client_stream *st0 = find_stream(&d, 0);
    const sc_client_stream *st3 = find_stream(&d, 3);
    assert_non_null(st0);
    assert_non_null(st3);
    assert_int_equal(st0->status, SC_CLIENT_STATUS_INVALIDATED);
    assert_int_equal(st3->status, SC_CLIENT_STATUS_ACTIVE);
    sc_client_session_desc_free(&d);
    assert_null(d.streams);

    CHECK(c, sc_client_close_session(c, s));
    CHECK(c, sc_client_close_session(c, s2));
    assert_int_equal(sc_client_session_info(c, s, &d), SC_CLIENT_ENOTFOUND);
    assert_int_equal(sc_client_errcode(c), 1001);
    assert_true(strlen(sc_client_errmsg(c)) > 0);
    assert_true(sc_client_is_server_error(SC_CLIENT_ENOTFOUND));
    assert_int_equal(sc_client_close_session(c, s), SC_CLIENT_ENOTFOUND);
    /* An error reply leaves the connection usable. */
    CHECK(c, sc_client_open_session(c, NULL, &s));
    CHECK(c, sc_client_close_session(c, s));
}

/* ------------------------------------------------------------ capture */

static void test_capture_queries(void **state)
{
    fixture *f = *state;
    sc_client *c = f->c;
    uint64_t s, count = 99;
    bool capturing = true;
    sc_client_status st = SC_CLIENT_STATUS_ACTIVE;
    CHECK(c, sc_client_open_session(c, "queries", &s));
    CHECK(c, sc_client_capture_status(c, s, 7, &st));
    assert_int_equal(st, SC_CLIENT_STATUS_NONE);
    CHECK(c, sc_client_is_capturing(c, s, &capturing));
    assert_false(capturing);
    CHECK(c, sc_client_node_count(c, s, &count));
    assert_int_equal(count, 0);

    CHECK(c, sc_client_begin_capture(c, s, 7));
    CHECK(c, sc_client_capture_status(c, s, 7, &st));
    assert_int_equal(st, SC_CLIENT_STATUS_ACTIVE);
    CHECK(c, sc_client_is_capturing(c, s, &capturing));
    assert_true(capturing);
    uint32_t n0, n1, n2, n3;
    CHECK(c, sc_client_record_memset(c, s, 7, "zero", 1024, 255, &n0));
    CHECK(c, sc_client_record_host_callback(c, s, 7, "notify", &n1));
    CHECK(c, sc_client_record_memcpy_peer(c, s, 7, "p2p", 8192, 2, 4294967295u, &n2));
    CHECK(c, sc_client_record_memcpy(c, s, 7, "d2d", SC_CLIENT_DEVICE_TO_DEVICE, 0, &n3));
    assert_int_equal(n0, 0);
    assert_int_equal(n1, 1);
    assert_int_equal(n2, 2);
    assert_int_equal(n3, 3);
    CHECK(c, sc_client_node_count(c, s, &count));
    assert_int_equal(count, 4);

    sc_client_captured cap;
    CHECK(c, sc_client_end_capture(c, s, 7, &cap));
    assert_int_equal(cap.node_count, 4);
    assert_int_equal(cap.edge_count, 3);

    sc_client_graph g;
    CHECK(c, sc_client_graph_get(c, cap.graph, &g));
    assert_int_equal(g.node_count, 4);
    assert_int_equal(g.nodes[0].kind, SC_CLIENT_MEMSET);
    assert_string_equal(g.nodes[0].name, "zero");
    assert_int_equal(g.nodes[0].size_bytes, 1024);
    assert_int_equal(g.nodes[0].value, 255);
    assert_int_equal(g.nodes[1].kind, SC_CLIENT_HOST_CALLBACK);
    assert_string_equal(g.nodes[1].name, "notify");
    assert_string_equal(g.nodes[1].label, "notify");
    assert_int_equal(g.nodes[2].kind, SC_CLIENT_MEMCPY);
    assert_int_equal(g.nodes[2].dir, SC_CLIENT_PEER_TO_PEER);
    assert_int_equal(g.nodes[2].src_device, 2);
    assert_int_equal(g.nodes[2].dst_device, 4294967295u);
    assert_int_equal(g.nodes[2].size_bytes, 8192);
    assert_int_equal(g.nodes[3].dir, SC_CLIENT_DEVICE_TO_DEVICE);
    assert_int_equal(g.nodes[3].stream, 7);
    sc_client_graph_free(&g);
    assert_null(g.nodes);
}

static void test_strings_round_trip(void **state)
{
    fixture *f = *state;
    sc_client *c = f->c;
    /* Quotes, backslash, control characters and multi-byte UTF-8 all
     * have to survive the request writer and the reply parser. */
    const char *names[] = {"a\"b\\c", "tab\there\nnewline", "\xc3\xa9t\xc3\xa9 \xe4\xb8\xad", "",
                           "\x01\x1f"};
    uint64_t s;
    CHECK(c, sc_client_open_session(c, names[2], &s));
    CHECK(c, sc_client_begin_capture(c, s, 0));
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        CHECK(c, sc_client_record_kernel(c, s, 0, names[i], 1, 1, 0, NULL));
    sc_client_captured cap;
    CHECK(c, sc_client_end_capture(c, s, 0, &cap));
    sc_client_graph g;
    CHECK(c, sc_client_graph_get(c, cap.graph, &g));
    assert_string_equal(g.label, names[2]);
    assert_int_equal(g.node_count, sizeof(names) / sizeof(names[0]));
    for (size_t i = 0; i < g.node_count; i++) {
        assert_string_equal(g.nodes[i].name, names[i]);
        assert_string_equal(g.nodes[i].function_name, names[i]);
    }
    sc_client_graph_free(&g);
}

static void test_capture_errors(void **state)
{
    fixture *f = *state;
    sc_client *c = f->c;
    uint64_t s;
    uint32_t node = 77;
    CHECK(c, sc_client_open_session(c, "errors", &s));
    assert_int_equal(sc_client_record_kernel(c, s, 3, "k", 1, 1, 0, &node), SC_CLIENT_ESTATE);
    assert_int_equal(node, 77); /* untouched on failure */
    assert_int_equal(sc_client_errcode(c), 1002);
    assert_string_equal(sc_client_errmsg(c), "stream S3 is not capturing");

    CHECK(c, sc_client_begin_capture(c, s, 0));
    assert_string_equal(sc_client_errmsg(c), "");
    assert_int_equal(sc_client_begin_capture(c, s, 0), SC_CLIENT_ESTATE);
    assert_string_equal(sc_client_errmsg(c), "stream S:default is already capturing");

    CHECK(c, sc_client_begin_capture(c, s, 1));
    CHECK(c, sc_client_invalidate(c, s, 1));
    assert_int_equal(sc_client_record_event(c, s, 1, 0), SC_CLIENT_EINVALIDATED);
    assert_int_equal(sc_client_errcode(c), 1003);
    assert_string_equal(sc_client_errmsg(c), "stream S1 capture is invalidated");
    assert_int_equal(sc_client_end_capture(c, s, 0, NULL), SC_CLIENT_EINVALIDATED);
    assert_string_equal(sc_client_errmsg(c),
                        "capture was invalidated on another stream in the session");
    /* The end consumed the session. */
    assert_int_equal(sc_client_begin_capture(c, s, 2), SC_CLIENT_ENOTFOUND);
    assert_int_equal(sc_client_errcode(c), 1001);

    assert_int_equal(sc_client_record_kernel(c, s, 0, NULL, 1, 1, 0, NULL), -EINVAL);
    assert_int_equal(sc_client_record_memcpy(c, s, 0, "x", (sc_client_dir)9, 1, NULL), -EINVAL);
    /* Local argument errors send nothing: the connection stays in step. */
    CHECK(c, sc_client_open_session(c, NULL, &s));
    CHECK(c, sc_client_close_session(c, s));
}

/* ------------------------------------------------------------- graphs */

static void test_graph_get(void **state)
{
    fixture *f = *state;
    sc_client *c = f->c;
    seed sd;
    capture_seed(c, "seed get", &sd);
    assert_int_equal(sd.up, 0);
    assert_int_equal(sd.k, 1);
    assert_int_equal(sd.dn, 2);
    assert_int_equal(sd.cap.node_count, 3);
    assert_int_equal(sd.cap.edge_count, 3);

    sc_client_graph g;
    CHECK(c, sc_client_graph_get(c, sd.cap.graph, &g));
    assert_int_equal(g.graph, sd.cap.graph);
    assert_string_equal(g.label, "seed get");
    assert_int_equal(g.owner_uid, getuid());
    assert_int_equal(g.owner_pid, getpid());
    assert_int_equal(strlen(g.created_at), 24);
    assert_int_equal(g.created_at[23], 'Z');
    assert_int_equal(g.node_count, 3);
    assert_int_equal(g.nodes[0].kind, SC_CLIENT_MEMCPY);
    assert_string_equal(g.nodes[0].name, "upload");
    assert_int_equal(g.nodes[0].dir, SC_CLIENT_HOST_TO_DEVICE);
    assert_int_equal(g.nodes[0].size_bytes, 4096);
    assert_int_equal(g.nodes[1].kind, SC_CLIENT_KERNEL);
    assert_int_equal(g.nodes[1].stream, 1);
    assert_string_equal(g.nodes[1].function_name, "relu");
    assert_int_equal(g.nodes[1].num_blocks, 4);
    assert_int_equal(g.nodes[1].threads_per_block, 256);
    assert_int_equal(g.nodes[1].shared_mem, 0);
    assert_int_equal(g.nodes[2].dir, SC_CLIENT_DEVICE_TO_HOST);
    const sc_client_edge want[] = {{0, 1}, {0, 2}, {1, 2}};
    assert_int_equal(g.edge_count, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(g.edges[i].src, want[i].src);
        assert_int_equal(g.edges[i].dst, want[i].dst);
    }
    sc_client_graph_free(&g);

    assert_int_equal(sc_client_graph_get(c, 9007199254740991ULL, &g), SC_CLIENT_ENOTFOUND);
    assert_int_equal(sc_client_errcode(c), 1001);
}

static void test_graph_reachable(void **state)
{
    fixture *f = *state;
    sc_client *c = f->c;
    seed sd;
    capture_seed(c, "seed reach", &sd);
    const uint64_t g = sd.cap.graph;
    bool r = false;
    CHECK(c, sc_client_graph_reachable(c, g, sd.up, sd.k, &r));
    assert_true(r);
    CHECK(c, sc_client_graph_reachable(c, g, sd.k, sd.dn, &r));
    assert_true(r);
    CHECK(c, sc_client_graph_reachable(c, g, sd.dn, sd.up, &r));
    assert_false(r);
    CHECK(c, sc_client_graph_reachable(c, g, 1, 1, &r));
    assert_true(r);
    assert_int_equal(sc_client_graph_reachable(c, g, 0, 3, &r), SC_CLIENT_ENOTFOUND);
    assert_int_equal(sc_client_graph_reachable(c, g, 5, 5, &r), SC_CLIENT_ENOTFOUND);

    /* Every ordered pair at once: the closure is {0->1, 0->2, 1->2} plus
     * the diagonal. */
    sc_client_pair pairs[9];
    bool got[9];
    for (uint32_t a = 0; a < 3; a++)
        for (uint32_t b = 0; b < 3; b++)
            pairs[a * 3 + b] = (sc_client_pair){a, b};
    CHECK(c, sc_client_graph_reachable_pairs(c, g, pairs, 9, got));
    for (uint32_t a = 0; a < 3; a++)
        for (uint32_t b = 0; b < 3; b++)
            assert_int_equal(got[a * 3 + b], a <= b);
    CHECK(c, sc_client_graph_reachable_pairs(c, g, pairs, 0, got));
}

/* More pairs than one request carries: the chunks must line up. */
static void test_reachable_many_pairs(void **state)
{
    fixture *f = *state;
    sc_client *c = f->c;
    enum { CHAIN = 150, PAIRS = 40000 };
    uint64_t s;
    CHECK(c, sc_client_open_session(c, "chain", &s));
    CHECK(c, sc_client_begin_capture(c, s, 0));
    CHECK(c, sc_client_begin_capture(c, s, 1));
    /* Stream 0 is a chain; stream 1 has one node depending on node 10. */
    CHECK(c, sc_client_pipeline_begin(c));
    for (int i = 0; i < CHAIN; i++) {
        CHECK(c, sc_client_record_kernel(c, s, 0, "k", 1, 1, 0, NULL));
        if (i == 10)
            CHECK(c, sc_client_record_event(c, s, 0, 5));
    }
    CHECK(c, sc_client_wait_event(c, s, 1, 5));
    CHECK(c, sc_client_record_kernel(c, s, 1, "side", 1, 1, 0, NULL));
    sc_client_reply *rep;
    size_t n;
    CHECK(c, sc_client_pipeline_collect(c, &rep, &n));
    assert_int_equal(n, CHAIN + 3);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(rep[i].rc, 0);
    sc_client_replies_free(rep, n);
    sc_client_captured cap;
    CHECK(c, sc_client_end_capture(c, s, 0, &cap));
    assert_int_equal(cap.node_count, CHAIN + 1);

    sc_client_pair *pairs = malloc(PAIRS * sizeof(*pairs));
    bool *got = malloc(PAIRS * sizeof(*got));
    assert_non_null(pairs);
    assert_non_null(got);
    srand(7);
    for (int i = 0; i < PAIRS; i++)
        pairs[i] =
            (sc_client_pair){(uint32_t)(rand() % (CHAIN + 1)), (uint32_t)(rand() % (CHAIN + 1))};
    CHECK(c, sc_client_graph_reachable_pairs(c, cap.graph, pairs, PAIRS, got));
    for (int i = 0; i < PAIRS; i++) {
        uint32_t a = pairs[i].from, b = pairs[i].to;
        bool want;
        if (a == b)
            want = true;
        else if (b == CHAIN) /* the side node */
            want = a <= 10;
        else
            want = a < CHAIN && a < b;
        if (got[i] != want)
            fail_msg("pair %d: %u -> %u answered %d", i, a, b, got[i]);
    }
    free(pairs);
    free(got);
}

static void test_graph_export(void **state)
{
    fixture *f = *state;
    sc_client *c = f->c;
    seed sd;
    capture_seed(c, "seed export", &sd);
    char *text = NULL;
    CHECK(c, sc_client_graph_export_dot(c, sd.cap.graph, &text));
    assert_non_null(strstr(text, "digraph"));
    assert_non_null(strstr(text, "->"));
    assert_non_null(strstr(text, "relu"));
    free(text);
    text = NULL;
    assert_int_equal(sc_client_graph_export_dot(c, 9007199254740991ULL, &text),
                     SC_CLIENT_ENOTFOUND);
    assert_null(text);
}

static void test_graph_list(void **state)
{
    fixture *f = *state;
    sc_client *c = f->c;
    seed a, b;
    capture_seed(c, "list-a", &a);
    capture_seed(c, "list-b", &b);

    sc_client_graph_page p;
    CHECK(c, sc_client_graph_list(c, NULL, &p));
    assert_true(p.count >= 2);
    /* Newest first. */
    assert_int_equal(p.graphs[0].graph, b.cap.graph);
    assert_int_equal(p.graphs[1].graph, a.cap.graph);
    assert_string_equal(p.graphs[0].label, "list-b");
    assert_int_equal(p.graphs[0].node_count, 3);
    assert_int_equal(p.graphs[0].edge_count, 3);
    assert_int_equal(p.graphs[0].stream_count, 2);
    assert_int_equal(p.graphs[0].owner_uid, getuid());
    assert_int_equal(p.graphs[0].owner_pid, getpid());
    size_t total = p.count;
    sc_client_graph_page_free(&p);

    sc_client_list_opts o = {.filter = "list-a"};
    CHECK(c, sc_client_graph_list(c, &o, &p));
    assert_int_equal(p.count, 1);
    assert_int_equal(p.graphs[0].graph, a.cap.graph);
    sc_client_graph_page_free(&p);

    /* Page through one at a time: the same graphs, in the same order. */
    sc_client_graph_page all;
    CHECK(c, sc_client_graph_list(c, NULL, &all));
    size_t seen = 0;
    char *cursor = NULL;
    for (;;) {
        sc_client_list_opts one = {.limit = 1, .before = cursor};
        CHECK(c, sc_client_graph_list(c, &one, &p));
        free(cursor);
        cursor = p.next ? strdup(p.next) : NULL;
        if (p.count == 0) {
            sc_client_graph_page_free(&p);
            break;
        }
        assert_int_equal(p.count, 1);
        assert_true(seen < all.count);
        assert_int_equal(p.graphs[0].graph, all.graphs[seen].graph);
        seen++;
        sc_client_graph_page_free(&p);
        if (!cursor)
            break;
    }
    assert_int_equal(seen, total);
    sc_client_graph_page_free(&all);

    sc_client_list_opts bad = {.before = "{not json"};
    assert_int_equal(sc_client_graph_list(c, &bad, &p), -EINVAL);
}

static void test_graph_delete(void **state)
{
    fixture *f = *state;
    sc_client *c = f->c;
    seed sd;
    capture_seed(c, "seed delete", &sd);
    CHECK(c, sc_client_graph_delete(c, sd.cap.graph));
    sc_client_graph g;
    assert_int_equal(sc_client_graph_get(c, sd.cap.graph, &g), SC_CLIENT_ENOTFOUND);
    assert_int_equal(sc_client_graph_delete(c, sd.cap.graph), SC_CLIENT_ENOTFOUND);
    sc_client_graph_page p;
    CHECK(c, sc_client_graph_list(c, NULL, &p));
    for (size_t i = 0; i < p.count; i++)
        assert_true(p.graphs[i].graph != sd.cap.graph);
    sc_client_graph_page_free(&p);
}

static const sc_client_log_entry *find_entry(const sc_client_log_page *p, uint64_t session)
{
    for (size_t i = 0; i < p->count; i++) {
        if (p->entries[i].session == session)
            return &p->entries[i];
    }
    return NULL;
}

static void test_log_list(void **state)
{
    fixture *f = *state;
    sc_client *c = f->c;
    seed sd;
    capture_seed(c, "seed log", &sd);
    uint64_t closed, open;
    CHECK(c, sc_client_open_session(c, "log closed", &closed));
    CHECK(c, sc_client_close_session(c, closed));
    CHECK(c, sc_client_open_session(c, "log open", &open));

    sc_client_log_page p;
    CHECK(c, sc_client_log_list(c, NULL, &p));
    const sc_client_log_entry *e = find_entry(&p, sd.session);
    assert_non_null(e);
    assert_string_equal(e->outcome, "completed");
    assert_int_equal(e->graph, sd.cap.graph);
    assert_int_equal(e->node_count, 3);
    assert_string_equal(e->label, "seed log");
    assert_int_equal(e->owner_uid, getuid());
    assert_non_null(e->ended_at);
    e = find_entry(&p, closed);
    assert_non_null(e);
    assert_string_equal(e->outcome, "closed");
    assert_int_equal(e->graph, 0);
    e = find_entry(&p, open);
    assert_non_null(e);
    assert_string_equal(e->outcome, "open");
    assert_null(e->ended_at);
    /* Newest first: the open session was opened last. */
    assert_int_equal(p.entries[0].session, open);
    sc_client_log_page_free(&p);

    sc_client_list_opts o = {.filter = "closed", .limit = 5};
    CHECK(c, sc_client_log_list(c, &o, &p));
    assert_true(p.count >= 1 && p.count <= 5);
    for (size_t i = 0; i < p.count; i++)
        assert_string_equal(p.entries[i].outcome, "closed");
    assert_non_null(find_entry(&p, closed));
    sc_client_log_page_free(&p);
    CHECK(c, sc_client_close_session(c, open));
}

/* ----------------------------------------------------------- pipeline */

static void test_pipeline(void **state)
{
    fixture *f = *state;
    sc_client *c = f->c;
    enum { N = 20000 };
    uint64_t s;
    CHECK(c, sc_client_open_session(c, "pipeline", &s));
    CHECK(c, sc_client_pipeline_begin(c));
    assert_int_equal(sc_client_pipeline_begin(c), -EBUSY);
    CHECK(c, sc_client_begin_capture(c, s, 0));
    for (int i = 0; i < N; i++) {
        uint32_t node = 12345;
        CHECK(c, sc_client_record_kernel(c, s, 0, "pipelined_kernel_with_a_long_name", 1, 1, 0,
                                         &node));
        assert_int_equal(node, 12345); /* not written while queued */
        if (i == N / 2)
            CHECK(c, sc_client_record_kernel(c, s, 9, "nowhere", 1, 1, 0, NULL));
    }
    /* Calls that cannot be pipelined are refused and queue nothing. */
    sc_client_graph_page p;
    assert_int_equal(sc_client_graph_list(c, NULL, &p), -EBUSY);
    CHECK(c, sc_client_capture_status(c, s, 0, NULL));
    CHECK(c, sc_client_is_capturing(c, s, NULL));
    CHECK(c, sc_client_node_count(c, s, NULL));
    CHECK(c, sc_client_end_capture(c, s, 0, NULL));
    assert_int_equal(sc_client_pipeline_size(c), N + 6);

    sc_client_reply *rep;
    size_t n;
    CHECK(c, sc_client_pipeline_collect(c, &rep, &n));
    assert_int_equal(sc_client_pipeline_size(c), 0);
    assert_int_equal(n, N + 6);
    assert_int_equal(rep[0].rc, 0);
    assert_string_equal(rep[0].method, "capture.begin");
    uint32_t want = 0;
    for (size_t i = 1; i <= N + 1; i++) {
        if (i == N / 2 + 2) {
            assert_int_equal(rep[i].rc, SC_CLIENT_ESTATE);
            assert_int_equal(rep[i].errcode, 1002);
            assert_string_equal(rep[i].errmsg, "stream S9 is not capturing");
            continue;
        }
        if (rep[i].rc != 0 || rep[i].id != want)
            fail_msg("reply %zu: rc %d id %llu, want node %u", i, rep[i].rc,
                     (unsigned long long)rep[i].id, want);
        assert_null(rep[i].errmsg);
        assert_string_equal(rep[i].method, "capture.record_kernel");
        want++;
    }
    const sc_client_reply *tail = &rep[N + 2];
    assert_int_equal(tail[0].status, SC_CLIENT_STATUS_ACTIVE);
    assert_true(tail[1].capturing);
    assert_int_equal(tail[2].node_count, N);
    assert_int_equal(tail[3].rc, 0);
    assert_string_equal(tail[3].method, "capture.end");
    assert_int_equal(tail[3].node_count, N);
    assert_int_equal(tail[3].edge_count, N - 1);
    uint64_t graph = tail[3].id;
    sc_client_replies_free(rep, n);

    /* Blocking calls work again, on the graph the pipeline stored. */
    CHECK(c, sc_client_graph_list(c, NULL, &p));
    assert_true(p.count >= 1);
    assert_int_equal(p.graphs[0].graph, graph);
    assert_int_equal(p.graphs[0].node_count, N);
    sc_client_graph_page_free(&p);

    assert_int_equal(sc_client_pipeline_collect(c, &rep, &n), -EINVAL);
    CHECK(c, sc_client_pipeline_begin(c));
    CHECK(c, sc_client_pipeline_collect(c, &rep, &n));
    assert_int_equal(n, 0);
    sc_client_replies_free(rep, n);
}

/* --------------------------------------------------- the daemon dies */

static void test_daemon_gone(void **state)
{
    (void)state;
    sc_it_daemon *d = sc_it_must_start(NULL);
    sc_client *c;
    assert_int_equal(sc_client_connect(sc_it_daemon_socket(d), IO_TIMEOUT_MS, &c), 0);
    uint64_t s;
    CHECK(c, sc_client_open_session(c, NULL, &s));
    assert_int_equal(sc_it_daemon_kill(d), 0);
    int rc = sc_client_begin_capture(c, s, 0);
    assert_true(rc == -ECONNRESET || rc == -EPIPE);
    assert_false(sc_client_is_server_error(rc));
    assert_int_equal(sc_client_errcode(c), 0);
    assert_true(strlen(sc_client_errmsg(c)) > 0);
    assert_int_equal(sc_client_begin_capture(c, s, 0), -ENOTCONN);
    sc_client_close(c);
    sc_it_daemon_destroy(d);
}

/* ------------------------------------------------------ a fake daemon */

typedef struct fake {
    char dir[64];
    char path[128];
    int lfd;
    pthread_t th;
    const char *reply; /* sent after the first request line; NULL: none */
    bool hang_up;      /* close right after reading the request */
    char got[4096];    /* the first request line, without '\n' */
} fake;

static void *fake_main(void *arg)
{
    fake *f = arg;
    int fd = accept(f->lfd, NULL, NULL);
    if (fd < 0)
        return NULL;
    size_t len = 0;
    while (len < sizeof(f->got) - 1) {
        ssize_t n = read(fd, f->got + len, 1);
        if (n <= 0 || f->got[len] == '\n')
            break;
        len++;
    }
    f->got[len] = '\0';
    if (!f->hang_up) {
        if (f->reply && write(fd, f->reply, strlen(f->reply)) < 0)
            f->reply = NULL;
        /* Stay until the client closes. */
        char buf[256];
        while (read(fd, buf, sizeof(buf)) > 0) {
        }
    }
    close(fd);
    return NULL;
}

static void fake_start(fake *f, const char *reply, bool hang_up)
{
    memset(f, 0, sizeof(*f));
    f->hang_up = hang_up;
    assert_int_equal(sc_it_tmpdir(f->dir, sizeof(f->dir)), 0);
    snprintf(f->path, sizeof(f->path), "%s/fake.sock", f->dir);
    f->reply = reply;
    f->lfd = sc_it_socket_bind(f->path);
    assert_true(f->lfd >= 0);
    assert_int_equal(listen(f->lfd, 4), 0);
    assert_int_equal(pthread_create(&f->th, NULL, fake_main, f), 0);
}

static void fake_stop(fake *f)
{
    pthread_join(f->th, NULL);
    close(f->lfd);
    sc_it_rmtree(f->dir);
}

static void test_request_bytes(void **state)
{
    (void)state;
    fake f;
    fake_start(&f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"node\":4294967295}}\n", false);
    sc_client *c;
    assert_int_equal(sc_client_connect(f.path, IO_TIMEOUT_MS, &c), 0);
    uint32_t node = 0;
    CHECK(c, sc_client_record_kernel(c, 9007199254740992ULL, 4294967295u, "q\"\\\n\x01\xc3\xa9", 4,
                                     256, 7, &node));
    assert_int_equal(node, 4294967295u);
    sc_client_close(c);
    fake_stop(&f);
    assert_string_equal(f.got, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"capture.record_kernel\","
                               "\"params\":{\"session\":9007199254740992,\"stream\":4294967295,"
                               "\"function_name\":\"q\\\"\\\\\\n\\u0001\xc3\xa9\","
                               "\"num_blocks\":4,\"threads_per_block\":256,\"shared_mem\":7}}");
}

static void test_list_request_bytes(void **state)
{
    (void)state;
    fake f;
    fake_start(&f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"graphs\":[],\"next\":null}}\n",
               false);
    sc_client *c;
    assert_int_equal(sc_client_connect(f.path, IO_TIMEOUT_MS, &c), 0);
    sc_client_list_opts o = {.limit = 3, .before = " [ 12 , \"x\" ] ", .filter = "lab"};
    sc_client_graph_page p;
    CHECK(c, sc_client_graph_list(c, &o, &p));
    assert_int_equal(p.count, 0);
    assert_null(p.next);
    sc_client_graph_page_free(&p);
    sc_client_close(c);
    fake_stop(&f);
    assert_string_equal(f.got, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"graph.list\",\"params\":"
                               "{\"limit\":3,\"before\":[12,\"x\"],\"label\":\"lab\"}}");
}

/* Reply `reply` to one call and check what the client makes of it. */
static void fake_reply_case(const char *reply, int want_rc, const char *want_msg)
{
    fake f;
    fake_start(&f, reply, false);
    sc_client *c;
    assert_int_equal(sc_client_connect(f.path, 300, &c), 0);
    uint32_t node = 5;
    int rc = sc_client_record_kernel(c, 1, 0, "k", 1, 1, 0, &node);
    if (rc != want_rc)
        fail_msg("reply %s: rc %d (%s), want %d", reply ? reply : "(none)", rc, sc_client_errmsg(c),
                 want_rc);
    assert_int_equal(node, 5);
    if (want_msg && !strstr(sc_client_errmsg(c), want_msg))
        fail_msg("message '%s' lacks '%s'", sc_client_errmsg(c), want_msg);
    sc_client_close(c);
    fake_stop(&f);
}

static void test_bad_replies(void **state)
{
    (void)state;
    fake_reply_case("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"node\":1}}\n", -EPROTO,
                    "expected id 1");
    fake_reply_case("not json at all\n", -EPROTO, "not a JSON object");
    fake_reply_case("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"node\":-1}}\n", -EPROTO, "'node'");
    fake_reply_case("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"node\":4294967296}}\n", -EPROTO,
                    "'node'");
    fake_reply_case("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":7}\n", -EPROTO, "no result");
    fake_reply_case("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1006,\"message\":"
                    "\"node limit reached\"}}\n",
                    SC_CLIENT_ELIMIT, "node limit reached");
    fake_reply_case("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32602,\"message\":"
                    "\"invalid params: 'stream'\"}}\n",
                    SC_CLIENT_EPARAMS, "'stream'");
    fake_reply_case("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":7,\"message\":\"odd\"}}\n",
                    SC_CLIENT_ESERVER, "odd");
    fake_reply_case("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":1006,\"message\":"
                    "\"too many connections\"}}\n",
                    SC_CLIENT_ELIMIT, "too many connections");
    /* Silence: the 300 ms limit. */
    fake_reply_case(NULL, -ETIMEDOUT, "300 ms");
}

/* Every error code the daemon sends (PROTOCOL.md, written out here as it
 * is on the wire) and what the library returns for it: 1000 + n becomes
 * -1000 - n, a JSON-RPC standard code comes back unchanged, and each is a
 * daemon error with its own description. */
static void test_every_daemon_code_maps(void **state)
{
    (void)state;
    static const struct {
        int wire;
        int rc;
        const char *text;
    } map[] = {
        {1001, SC_CLIENT_ENOTFOUND, "not found"},
        {1002, SC_CLIENT_ESTATE, "wrong capture state"},
        {1003, SC_CLIENT_EINVALIDATED, "capture invalidated"},
        {1005, SC_CLIENT_EPERM, "permission denied"},
        {1006, SC_CLIENT_ELIMIT, "daemon limit reached"},
        {1007, SC_CLIENT_ESTORAGE, "storage error"},
        {1008, SC_CLIENT_ESHUTDOWN, "daemon is shutting down"},
        {-32700, SC_CLIENT_EPARSE, "parse error"},
        {-32600, SC_CLIENT_EREQUEST, "invalid request"},
        {-32601, SC_CLIENT_EMETHOD, "method not found"},
        {-32602, SC_CLIENT_EPARAMS, "invalid params"},
        {-32603, SC_CLIENT_EINTERNAL, "internal error"},
        /* Codes without a constant are still daemon errors. */
        {1004, -1004, "daemon error"},
        {1000, SC_CLIENT_ESERVER, "daemon error"},
        {-32000, -32000, "daemon error"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        assert_int_equal(map[i].rc, map[i].wire > 0 ? -map[i].wire : map[i].wire);
        assert_true(sc_client_is_server_error(map[i].rc));
        assert_string_equal(sc_client_strerror(map[i].rc), map[i].text);
        char reply[160];
        snprintf(reply, sizeof reply,
                 "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":%d,\"message\":\"m%d\"}}\n",
                 map[i].wire, map[i].wire);
        fake f;
        fake_start(&f, reply, false);
        sc_client *c;
        assert_int_equal(sc_client_connect(f.path, IO_TIMEOUT_MS, &c), 0);
        int rc = sc_client_begin_capture(c, 1, 0);
        if (rc != map[i].rc)
            fail_msg("daemon code %d: rc %d (%s), want %d", map[i].wire, rc, sc_client_errmsg(c),
                     map[i].rc);
        assert_int_equal(sc_client_errcode(c), map[i].wire);
        char want[16];
        snprintf(want, sizeof want, "m%d", map[i].wire);
        assert_string_equal(sc_client_errmsg(c), want);
        sc_client_close(c);
        fake_stop(&f);
    }
}

static void test_broken_after_bad_reply(void **state)
{
    (void)state;
    fake f;
    fake_start(&f, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n", false);
    sc_client *c;
    assert_int_equal(sc_client_connect(f.path, IO_TIMEOUT_MS, &c), 0);
    assert_int_equal(sc_client_begin_capture(c, 1, 0), -EPROTO);
    char first[512];
    snprintf(first, sizeof(first), "%s", sc_client_errmsg(c));
    assert_int_equal(sc_client_begin_capture(c, 1, 0), -ENOTCONN);
    assert_int_equal(sc_client_pipeline_begin(c), -ENOTCONN);
    /* The message still explains the first failure. */
    assert_string_equal(sc_client_errmsg(c), first);
    sc_client_close(c);
    fake_stop(&f);
}

static void test_hang_up(void **state)
{
    (void)state;
    fake f;
    fake_start(&f, NULL, true);
    sc_client *c;
    assert_int_equal(sc_client_connect(f.path, IO_TIMEOUT_MS, &c), 0);
    int rc = sc_client_begin_capture(c, 1, 0);
    assert_true(rc == -ECONNRESET || rc == -EPIPE);
    assert_non_null(strstr(sc_client_errmsg(c), "closed"));
    sc_client_close(c);
    fake_stop(&f);
}

static void test_strerror(void **state)
{
    (void)state;
    assert_string_equal(sc_client_strerror(SC_CLIENT_ENOTFOUND), "not found");
    assert_string_equal(sc_client_strerror(-ETIMEDOUT), "timed out");
    assert_true(sc_client_is_server_error(SC_CLIENT_EPARAMS));
    assert_false(sc_client_is_server_error(-ECONNREFUSED));
    assert_false(sc_client_is_server_error(0));
    sc_client_dir d;
    assert_int_equal(sc_client_dir_parse("peer_to_peer", &d), 0);
    assert_int_equal(d, SC_CLIENT_PEER_TO_PEER);
    assert_int_equal(sc_client_dir_parse("host_to_host", &d), -EINVAL);
    assert_null(sc_client_dir_name((sc_client_dir)4));
    assert_string_equal(sc_client_status_name(SC_CLIENT_STATUS_INVALIDATED), "invalidated");
    assert_string_equal(sc_client_kind_name(SC_CLIENT_HOST_CALLBACK), "host_callback");
}

/* -------------------------------------------------------------- hosts */

static uint64_t host_graph(sc_client *c, const char *label)
{
    uint64_t s;
    uint32_t node;
    sc_client_captured g;
    CHECK(c, sc_client_open_session(c, label, &s));
    CHECK(c, sc_client_begin_capture(c, s, 0));
    CHECK(c, sc_client_record_kernel(c, s, 0, "k", 1, 32, 0, &node));
    CHECK(c, sc_client_end_capture(c, s, 0, &g));
    return g.graph;
}

/* graph.list with opts, each summary's host in order, comma-separated. */
static char *listed_hosts(sc_client *c, const char *host)
{
    sc_client_list_opts o = {.host = host};
    sc_client_graph_page p;
    CHECK(c, sc_client_graph_list(c, &o, &p));
    char *out = strdup("");
    for (size_t i = 0; i < p.count; i++) {
        assert_non_null(p.graphs[i].host);
        char *next = sc_it_fmt("%s%s%s", out, i ? "," : "", p.graphs[i].host);
        free(out);
        out = next;
    }
    sc_client_graph_page_free(&p);
    return out;
}

static char *logged_hosts(sc_client *c, const char *host)
{
    sc_client_list_opts o = {.host = host};
    sc_client_log_page p;
    CHECK(c, sc_client_log_list(c, &o, &p));
    char *out = strdup("");
    for (size_t i = 0; i < p.count; i++) {
        assert_non_null(p.entries[i].host);
        char *next = sc_it_fmt("%s%s%s", out, i ? "," : "", p.entries[i].host);
        free(out);
        out = next;
    }
    sc_client_log_page_free(&p);
    return out;
}

static void expect_hosts(char *got, const char *want)
{
    if (strcmp(got, want) != 0)
        fail_msg("hosts '%s', expected '%s'", got, want);
    free(got);
}

/* Rows of two host names in one database (one daemon restarted under
 * another --host-name): every row says its host, and the lists filter on
 * it.  The tests run as root, who sees every host's rows. */
static void test_hosts(void **state)
{
    (void)state;
    const char *a[] = {"--host-name", "gpu-a", NULL};
    sc_it_daemon *d = sc_it_must_start(a);
    sc_client *c;
    assert_int_equal(sc_client_connect(sc_it_daemon_socket(d), IO_TIMEOUT_MS, &c), 0);
    uint64_t ga = host_graph(c, "on a");
    sc_client_close(c);
    sc_it_must_stop(d);
    const char *b[] = {"--host-name", "gpu-b", NULL};
    sc_it_must_restart(d, b);
    assert_int_equal(sc_client_connect(sc_it_daemon_socket(d), IO_TIMEOUT_MS, &c), 0);
    uint64_t gb = host_graph(c, "on b");

    sc_client_server_desc info;
    CHECK(c, sc_client_server_info(c, &info));
    assert_string_equal(info.backend, "sqlite");
    assert_string_equal(info.host, "gpu-b");
    sc_client_server_desc_free(&info);
    assert_null(info.host);

    sc_client_graph g;
    CHECK(c, sc_client_graph_get(c, ga, &g));
    assert_string_equal(g.host, "gpu-a");
    sc_client_graph_free(&g);
    assert_null(g.host);
    CHECK(c, sc_client_graph_get(c, gb, &g));
    assert_string_equal(g.host, "gpu-b");
    sc_client_graph_free(&g);

    if (geteuid() == 0) {
        expect_hosts(listed_hosts(c, NULL), "gpu-b,gpu-a");
        expect_hosts(listed_hosts(c, "gpu-a"), "gpu-a");
        expect_hosts(logged_hosts(c, NULL), "gpu-b,gpu-a");
        expect_hosts(logged_hosts(c, "gpu-a"), "gpu-a");
    } else {
        /* Another host's rows are not for a non-root caller. */
        expect_hosts(listed_hosts(c, NULL), "gpu-b");
        expect_hosts(listed_hosts(c, "gpu-a"), "");
        expect_hosts(logged_hosts(c, NULL), "gpu-b");
    }
    expect_hosts(listed_hosts(c, "gpu-b"), "gpu-b");
    expect_hosts(logged_hosts(c, "gpu-b"), "gpu-b");
    expect_hosts(listed_hosts(c, "gpu-c"), "");
    expect_hosts(logged_hosts(c, "gpu-c"), "");
    sc_client_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

/* The host filter is one more string member of the request, and a reply
 * from a daemon older than hosts reads as host "". */
static void test_host_request_and_old_reply(void **state)
{
    (void)state;
    fake f;
    fake_start(&f,
               "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"entries\":[{\"session\":4,\"label\":"
               "\"\",\"owner_uid\":0,\"owner_pid\":9,\"opened_at\":\"t\",\"ended_at\":null,"
               "\"outcome\":\"open\",\"node_count\":0}]}}\n",
               false);
    sc_client *c;
    assert_int_equal(sc_client_connect(f.path, IO_TIMEOUT_MS, &c), 0);
    sc_client_list_opts o = {.limit = 2, .filter = "open", .host = "gpu \"7\""};
    sc_client_log_page p;
    CHECK(c, sc_client_log_list(c, &o, &p));
    assert_int_equal(p.count, 1);
    assert_string_equal(p.entries[0].host, "");
    sc_client_log_page_free(&p);
    sc_client_close(c);
    fake_stop(&f);
    assert_string_equal(f.got, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"log.list\",\"params\":"
                               "{\"limit\":2,\"outcome\":\"open\",\"host\":\"gpu \\\"7\\\"\"}}");
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, test_setup, test_teardown)
    const struct CMUnitTest tests[] = {
        T(test_connect_errors),
        T(test_server_info),
        T(test_session_lifecycle),
        T(test_capture_queries),
        T(test_strings_round_trip),
        T(test_capture_errors),
        T(test_graph_get),
        T(test_graph_reachable),
        T(test_reachable_many_pairs),
        T(test_graph_export),
        T(test_graph_list),
        T(test_graph_delete),
        T(test_log_list),
        T(test_pipeline),
        cmocka_unit_test(test_daemon_gone),
        cmocka_unit_test(test_request_bytes),
        cmocka_unit_test(test_list_request_bytes),
        cmocka_unit_test(test_bad_replies),
        cmocka_unit_test(test_every_daemon_code_maps),
        cmocka_unit_test(test_broken_after_bad_reply),
        cmocka_unit_test(test_hang_up),
        cmocka_unit_test(test_strerror),
        cmocka_unit_test(test_hosts),
        cmocka_unit_test(test_host_request_and_old_reply),
    };
#undef T
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
