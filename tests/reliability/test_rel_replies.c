/*
 * Big replies and clients that do not read them: the daemon's memory stays
 * within --reply-budget plus a small, fixed overhead, because a result is
 * measured and its bytes reserved against the budget before it is
 * rendered, and only a few renders run at a time.  A reader that does read
 * gets its whole reply, byte for byte what it got before the crowd came.
 */
#define _GNU_SOURCE
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

#include "rel_util.h"

/* 40,000 kernels with 300-byte names: a graph.get reply of about 30 MB. */
#define KERNELS     40000
#define NAME_BYTES  300
#define NON_READERS 30
/* --reply-budget of the test, and what the daemon may add to its resident
 * set on top of it (docs/reliability.md: renders in flight hold their
 * reservation plus a 64 KiB window each; the rest is allocator slack). */
#define BUDGET_MIB   64
#define OVERHEAD_MIB 16

static const char *error_message(const cJSON *reply)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(reply, "error");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "message");
    return cJSON_IsString(m) ? m->valuestring : "";
}

/* Kernel i's name: NAME_BYTES bytes, with a quote and a backslash in it so
 * that the DOT and JSON escapes of graph.export meet the 64 KiB pieces at
 * every offset.  In JSON request text when `json`, else the name itself. */
static void kernel_name(int i, bool json, char *out, size_t cap)
{
    int n = snprintf(out, cap, json ? "k%06d\\\"q\\\\b" : "k%06d\"q\\b", i);
    int plain = 11; /* the name's bytes so far: k, 6 digits, ", q, \, b */
    while (plain < NAME_BYTES && (size_t)n + 1 < cap) {
        out[n++] = (char)('a' + (plain + i) % 26);
        plain++;
    }
    out[n] = '\0';
}

static int64_t must_big_graph(sc_it_conn *c)
{
    long long s = (long long)sc_it_open_session(c, "big-replies");
    size_t n = 0;
    char **lines = calloc(KERNELS + 4, sizeof(char *));
    assert_non_null(lines);
    lines[n++] = sc_it_fmt("{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"capture.begin\","
                           "\"params\":{\"session\":%lld,\"stream\":0}}",
                           (long long)sc_it_next_id(c), s);
    for (int i = 0; i < KERNELS; i++) {
        char name[2 * NAME_BYTES];
        kernel_name(i, true, name, sizeof(name));
        lines[n++] = sc_it_fmt("{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":"
                               "\"capture.record_kernel\",\"params\":{\"session\":%lld,"
                               "\"stream\":0,\"function_name\":\"%s\",\"num_blocks\":%d,"
                               "\"threads_per_block\":128}}",
                               (long long)sc_it_next_id(c), s, name, i + 1);
    }
    lines[n++] = sc_it_fmt("{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"capture.end\","
                           "\"params\":{\"session\":%lld,\"stream\":0}}",
                           (long long)sc_it_next_id(c), s);
    cJSON **replies = calloc(n, sizeof(cJSON *));
    assert_non_null(replies);
    assert_int_equal(sc_rel_pipeline(c, lines, n, replies), 0);
    for (size_t i = 0; i + 1 < n; i++)
        if (!replies[i] || !cJSON_GetObjectItemCaseSensitive(replies[i], "result"))
            fail_msg("request %zu of the capture failed", i);
    int64_t g = 0;
    if (!sc_rel_result_int(replies[n - 1], "graph", &g))
        fail_msg("capture.end stored no graph");
    for (size_t i = 0; i < n; i++) {
        cJSON_Delete(replies[i]);
        free(lines[i]);
    }
    free(replies);
    free(lines);
    return g;
}

/* One request line sent as it is, its reply read whole. */
static char *must_raw_call(sc_it_conn *c, const char *req, size_t *len)
{
    assert_int_equal(sc_it_send(c, req, strlen(req)), 0);
    char *line = NULL;
    assert_int_equal(sc_it_recv_line(c, &line, len), 0);
    return line;
}

static bool is_error(const char *line)
{
    cJSON *j = cJSON_Parse(line);
    bool err = j && cJSON_GetObjectItemCaseSensitive(j, "error");
    if (err && !strstr(error_message(j), "--reply-budget"))
        fail_msg("unexpected error: %.300s", line);
    cJSON_Delete(j);
    return err;
}

/*
 * Thirty clients each ask for a 30 MB graph.get and never read.  The
 * daemon's resident set grows by at most the budget plus OVERHEAD_MIB (it
 * grew by hundreds of MB when every result was rendered whole before the
 * budget was looked at); a reader is told to retry while the budget is
 * taken, and once the crowd leaves gets the very bytes it got before.
 */
static void test_non_readers_stay_within_budget(void **state)
{
    char budget[32];
    snprintf(budget, sizeof(budget), "%dM", BUDGET_MIB);
    const char *const args[] = {
        "--reply-budget", budget, "--max-conn-output", budget, "--write-timeout", "120", NULL};
    sc_it_daemon *d = sc_rel_must_start(state, args);
    pid_t pid = sc_it_daemon_pid(d);
    sc_it_conn *reader = sc_it_must_connect(d);
    sc_it_conn_set_timeout(reader, 30000);
    int64_t g = must_big_graph(reader);
    char *req = sc_it_fmt("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"graph.get\","
                          "\"params\":{\"graph\":%lld}}\n",
                          (long long)g);
    size_t ref_len = 0;
    char *ref = must_raw_call(reader, req, &ref_len);
    if (ref_len < (20u << 20) || ref_len > (40u << 20))
        fail_msg("the graph.get reply is %zu bytes, not 20-40 MB", ref_len);
    cJSON *parsed = cJSON_Parse(ref);
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(parsed, "result"), "nodes");
    assert_int_equal(cJSON_GetArraySize(nodes), KERNELS);
    char name[2 * NAME_BYTES];
    kernel_name(KERNELS - 1, false, name, sizeof(name));
    const cJSON *last = cJSON_GetArrayItem(nodes, KERNELS - 1);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(last, "function_name")->valuestring, name);
    cJSON_Delete(parsed);
    cJSON_Delete(sc_it_must_result(reader, "server.info", NULL));
    sc_it_sleep_ms(1500); /* the sweep trims the reader's buffers */
    long base = sc_rel_rss_kib(pid);
    assert_true(base > 0);

    int fds[NON_READERS];
    for (int i = 0; i < NON_READERS; i++) {
        fds[i] = sc_it_socket_connect(sc_it_daemon_socket(d));
        assert_true(fds[i] >= 0);
        int small = 4096;
        setsockopt(fds[i], SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
        assert_int_equal(send(fds[i], req, strlen(req), MSG_NOSIGNAL), (ssize_t)strlen(req));
    }
    long peak = base;
    for (int i = 0; i < 40; i++) {
        cJSON_Delete(sc_it_must_result(reader, "server.info", NULL));
        long rss = sc_rel_rss_kib(pid);
        peak = rss > peak ? rss : peak;
        sc_it_sleep_ms(100);
    }
    long growth_mib = (peak - base) / 1024;
    print_message("%d clients not reading %zu-byte replies, --reply-budget %d MiB: daemon RSS "
                  "%ld KiB -> peak %ld KiB (+%ld MiB; bound +%d MiB)\n",
                  NON_READERS, ref_len, BUDGET_MIB, base, peak, growth_mib,
                  (BUDGET_MIB + OVERHEAD_MIB) * SC_REL_MEM_FACTOR);
    if (growth_mib > (BUDGET_MIB + OVERHEAD_MIB) * SC_REL_MEM_FACTOR)
        fail_msg("the daemon's RSS grew by %ld MiB, past the budget of %d MiB plus %d MiB",
                 growth_mib, BUDGET_MIB, OVERHEAD_MIB);

    /* The budget is taken: the reader is told to retry. */
    size_t len = 0;
    char *line = must_raw_call(reader, req, &len);
    if (!is_error(line))
        fail_msg("a graph.get was answered while %d replies waited for non-readers", NON_READERS);
    free(line);

    /* Once the non-readers leave, the reader gets the same bytes as before. */
    for (int i = 0; i < NON_READERS; i++)
        close(fds[i]);
    int64_t t0 = sc_it_now_ms();
    for (;;) {
        line = must_raw_call(reader, req, &len);
        if (!is_error(line))
            break;
        free(line);
        if (sc_it_now_ms() - t0 > 10000)
            fail_msg("the budget was not given back within 10 s of the non-readers leaving");
        sc_it_sleep_ms(100);
    }
    assert_int_equal(len, ref_len);
    assert_true(memcmp(line, ref, len) == 0);
    free(line);
    free(ref);
    free(req);
    sc_it_conn_close(reader);
    sc_it_must_stop(d);
}

/*
 * graph.export's DOT text is escaped into its JSON string piece by piece:
 * every node's label, quote and backslash included, comes back whole.
 */
static void test_big_export_whole(void **state)
{
    static const char *const args[] = {"--max-conn-output", "128M", NULL};
    sc_it_daemon *d = sc_rel_must_start(state, args);
    sc_it_conn *c = sc_it_must_connect(d);
    sc_it_conn_set_timeout(c, 30000);
    int64_t g = must_big_graph(c);
    cJSON *res =
        sc_it_must_result(c, "graph.export", "{\"graph\":%lld,\"format\":\"dot\"}", (long long)g);
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(res, "text");
    assert_true(cJSON_IsString(text));
    const char *dot = text->valuestring;
    assert_true(strncmp(dot, "digraph \"graph_", 15) == 0);
    /* DOT escapes the quote and the backslash of each name; the nodes of
     * the one stream come in order, so each line is looked for after the last. */
    const char *at = dot;
    for (int i = 0; i < KERNELS; i++) {
        char name[2 * NAME_BYTES], want[4 * NAME_BYTES];
        kernel_name(i, true, name, sizeof(name)); /* \" and \\ : DOT's escapes too */
        snprintf(want, sizeof(want),
                 "    \"n%d\" [label=\"%d\\nKERNEL\\n%s\\n<<<%d, 128, 0>>>\"];\n", i, i, name,
                 i + 1);
        const char *hit = strstr(at, want);
        if (!hit)
            fail_msg("node %d's line is not in the DOT text (or out of order)", i);
        at = hit + strlen(want);
    }
    size_t dot_len = strlen(dot);
    assert_string_equal(dot + dot_len - 2, "}\n");
    cJSON_Delete(res);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
}

/*
 * A batch of small requests cannot queue past the bounds either: once its
 * replies pass --max-conn-output, the rest of its elements answer 1006
 * (before, every one was answered up to the 64 MiB cap of a batch).
 */
static void batch_bounded_by(void **state, const char *flag)
{
    const char *const args[] = {flag, "1M", NULL};
    sc_it_daemon *d = sc_rel_must_start(state, args);
    sc_it_conn *c = sc_it_must_connect(d);
    enum { N = 6000 };
    size_t cap = (size_t)N * 64 + 16, len = 0;
    char *batch = malloc(cap);
    assert_non_null(batch);
    batch[len++] = '[';
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(batch + len, cap - len,
                                "%s{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"server.info\"}",
                                i ? "," : "", i);
    batch[len++] = ']';
    batch[len++] = '\n';
    assert_int_equal(sc_it_send(c, batch, len), 0);
    char *line = NULL;
    size_t reply_len = 0;
    assert_int_equal(sc_it_recv_line(c, &line, &reply_len), 0);
    cJSON *replies = cJSON_Parse(line);
    assert_int_equal(cJSON_GetArraySize(replies), N);
    int ok = 0, refused = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, replies)
    {
        if (cJSON_GetObjectItemCaseSensitive(r, "result"))
            ok++;
        else if (strstr(error_message(r), flag) && strstr(error_message(r), "not run"))
            refused++;
    }
    print_message("%s 1M, %d server.info replies in a batch: %d answered, %d refused (%zu bytes)\n",
                  flag, N, ok, refused, reply_len);
    assert_true(ok > 0 && refused > 0 && ok + refused == N);
    /* The answers stop at the bound (give or take the last 64 KiB for the
     * daemon's total); each refusal is a short error. */
    assert_true(reply_len <= (1u << 20) + (64u << 10) + (size_t)refused * 512);
    cJSON_Delete(replies);
    free(line);
    free(batch);
    /* The connection goes on. */
    cJSON_Delete(sc_it_must_result(c, "server.info", NULL));
    sc_it_conn_close(c);
    sc_it_must_stop(d);
}

static void test_batch_of_small_replies_is_bounded(void **state)
{
    batch_bounded_by(state, "--max-conn-output");
}

static void test_batch_within_reply_budget(void **state)
{
    batch_bounded_by(state, "--reply-budget");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        SC_REL_TEST(test_non_readers_stay_within_budget),
        SC_REL_TEST(test_big_export_whole),
        SC_REL_TEST(test_batch_of_small_replies_is_bounded),
        SC_REL_TEST(test_batch_within_reply_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
