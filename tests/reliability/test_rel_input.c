/*
 * Hostile input: a table of malformed lines, each answered with the right
 * error on a connection that stays usable; thousands of random and mutated
 * lines that never crash the daemon; oversize lines answered with -32600
 * and a close, with the daemon's memory bounded while a 100 MB line
 * without a newline streams in.
 */
#define _GNU_SOURCE
#include <errno.h>
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

#define REQ(params)                                                                                \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session.open\",\"params\":" params "}"
#define STATUS(stream)                                                                             \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"capture.status\",\"params\":{\"session\":1,"       \
    "\"stream\":" stream "}}"

enum want_id { ID_NULL, ID_ONE };

typedef struct bad_line {
    const char *name;
    const char *bytes; /* sent as is (with `len` when nonzero), then "\n" */
    size_t len;
    int code;
    const char *kind;
    enum want_id id;
    const char *field; /* data.field for -32602 */
} bad_line;

static const bad_line table[] = {
    {"truncated object", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server.info\"", 0, -32700,
     "parse_error", ID_NULL, NULL},
    {"truncated string", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"serv", 0, -32700,
     "parse_error", ID_NULL, NULL},
    {"truncated escape", REQ("{\"label\":\"\\u00"), 0, -32700, "parse_error", ID_NULL, NULL},
    {"trailing garbage", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server.info\"} x", 0, -32700,
     "parse_error", ID_NULL, NULL},
    {"two values", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server.info\"}{}", 0, -32700,
     "parse_error", ID_NULL, NULL},
    {"invalid UTF-8 byte",
     REQ("{\"label\":\"a\xff"
         "b\"}"),
     0, -32700, "parse_error", ID_NULL, NULL},
    {"overlong UTF-8", REQ("{\"label\":\"\xc0\xaf\"}"), 0, -32700, "parse_error", ID_NULL, NULL},
    {"UTF-8 encoded surrogate", REQ("{\"label\":\"\xed\xa0\x80\"}"), 0, -32700, "parse_error",
     ID_NULL, NULL},
    {"truncated UTF-8 sequence", REQ("{\"label\":\"\xe2\x82\"}"), 0, -32700, "parse_error", ID_NULL,
     NULL},
    {"UTF-8 above U+10FFFF", REQ("{\"label\":\"\xf4\x90\x80\x80\"}"), 0, -32700, "parse_error",
     ID_NULL, NULL},
    {"lone high surrogate", REQ("{\"label\":\"\\ud800\"}"), 0, -32700, "parse_error", ID_NULL,
     NULL},
    {"lone low surrogate", REQ("{\"label\":\"\\udc00\"}"), 0, -32700, "parse_error", ID_NULL, NULL},
    {"high surrogate then a letter", REQ("{\"label\":\"\\ud800\\u0041\"}"), 0, -32700,
     "parse_error", ID_NULL, NULL},
    {"escaped NUL", REQ("{\"label\":\"a\\u0000b\"}"), 0, -32700, "parse_error", ID_NULL, NULL},
    {"raw control character",
     REQ("{\"label\":\"a\x01"
         "b\"}"),
     0, -32700, "parse_error", ID_NULL, NULL},
    {"raw tab in a string", REQ("{\"label\":\"a\tb\"}"), 0, -32700, "parse_error", ID_NULL, NULL},
    {"raw NUL byte in a string", REQ("{\"label\":\"a\0b\"}"),
     sizeof(REQ("{\"label\":\"a\0b\"}")) - 1, -32700, "parse_error", ID_NULL, NULL},
    {"byte order mark", "\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server.info\"}", 0,
     -32700, "parse_error", ID_NULL, NULL},
    {"1e999 as a stream", STATUS("1e999"), 0, -32700, "parse_error", ID_NULL, NULL},
    {"-1e999 as a stream", STATUS("-1e999"), 0, -32700, "parse_error", ID_NULL, NULL},
    {"30-digit integer as a stream", STATUS("123456789012345678901234567890"), 0, -32602,
     "invalid_params", ID_ONE, "stream"},
    {"2^53+1 as a session",
     "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session.info\",\"params\":{\"session\":"
     "9007199254740993}}",
     0, -32602, "invalid_params", ID_ONE, "session"},
    {"NaN", STATUS("NaN"), 0, -32700, "parse_error", ID_NULL, NULL},
    {"Infinity", STATUS("Infinity"), 0, -32700, "parse_error", ID_NULL, NULL},
    {"-Infinity", STATUS("-Infinity"), 0, -32700, "parse_error", ID_NULL, NULL},
    {"leading zero", STATUS("01"), 0, -32700, "parse_error", ID_NULL, NULL},
    {"leading plus", STATUS("+1"), 0, -32700, "parse_error", ID_NULL, NULL},
    {"bare fraction", STATUS(".5"), 0, -32700, "parse_error", ID_NULL, NULL},
    {"single quotes", "{'jsonrpc':'2.0','id':1,'method':'server.info'}", 0, -32700, "parse_error",
     ID_NULL, NULL},
    {"comment", "{\"jsonrpc\":\"2.0\",/* c */\"id\":1,\"method\":\"server.info\"}", 0, -32700,
     "parse_error", ID_NULL, NULL},
    {"duplicate method",
     "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server.info\",\"method\":\"server.info\"}", 0,
     -32600, "invalid_request", ID_ONE, NULL},
    {"duplicate param", REQ("{\"label\":\"a\",\"label\":\"b\"}"), 0, -32600, "invalid_request",
     ID_ONE, NULL},
    {"jsonrpc 1.0", "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"server.info\"}", 0, -32600,
     "invalid_request", ID_ONE, NULL},
    {"jsonrpc as a number", "{\"jsonrpc\":2.0,\"id\":1,\"method\":\"server.info\"}", 0, -32600,
     "invalid_request", ID_ONE, NULL},
    {"no jsonrpc", "{\"id\":1,\"method\":\"server.info\"}", 0, -32600, "invalid_request", ID_ONE,
     NULL},
    {"method not a string", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}", 0, -32600,
     "invalid_request", ID_ONE, NULL},
    {"unknown method", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server.crash\"}", 0, -32601,
     "method_not_found", ID_ONE, NULL},
    {"fractional id", "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"server.info\"}", 0, -32600,
     "invalid_request", ID_NULL, NULL},
    {"object id", "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"server.info\"}", 0, -32600,
     "invalid_request", ID_NULL, NULL},
    {"id above 2^53", "{\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"method\":\"server.info\"}", 0,
     -32600, "invalid_request", ID_NULL, NULL},
    {"params an array", REQ("[\"label\"]"), 0, -32602, "invalid_params", ID_ONE, "params"},
    {"params a string", REQ("\"label\""), 0, -32602, "invalid_params", ID_ONE, "params"},
    {"params a number", REQ("5"), 0, -32602, "invalid_params", ID_ONE, "params"},
    {"params null", REQ("null"), 0, -32602, "invalid_params", ID_ONE, "params"},
    {"label an object", REQ("{\"label\":{}}"), 0, -32602, "invalid_params", ID_ONE, "label"},
    {"not an object: null", "null", 0, -32600, "invalid_request", ID_NULL, NULL},
    {"not an object: string", "\"server.info\"", 0, -32600, "invalid_request", ID_NULL, NULL},
    {"not an object: number", "42", 0, -32600, "invalid_request", ID_NULL, NULL},
    {"empty object", "{}", 0, -32600, "invalid_request", ID_NULL, NULL},
    {"empty batch", "[]", 0, -32600, "invalid_request", ID_NULL, NULL},
};

static char *nested(int depth)
{
    /* {"jsonrpc":...,"params":{"label":[[...]]}}: the request object and
     * params count as two levels, the arrays as the rest. */
    int arrays = depth - 2;
    const char *head = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session.open\",\"params\":{"
                       "\"label\":";
    size_t hl = strlen(head);
    char *s = malloc(hl + (size_t)arrays * 2 + 3);
    assert_non_null(s);
    memcpy(s, head, hl);
    memset(s + hl, '[', (size_t)arrays);
    memset(s + hl + arrays, ']', (size_t)arrays);
    memcpy(s + hl + 2 * (size_t)arrays, "}}", 3);
    return s;
}

static void expect_usable(sc_it_conn *c, const char *after)
{
    cJSON *reply = NULL;
    int rc = sc_it_try_call(c, &reply, "server.info", NULL);
    if (rc != 0 || !cJSON_GetObjectItemCaseSensitive(reply, "result")) {
        char *text = sc_it_json_text(reply);
        fail_msg("after %s the connection is not usable: server.info got rc %d, reply %s", after,
                 rc, text);
    }
    cJSON_Delete(reply);
}

/* The next line must be error `code`; returns the parsed reply. */
static cJSON *recv_error_line(sc_it_conn *c, const char *name, int code, const char *kind,
                              enum want_id want_id, const char *field)
{
    char *line = NULL;
    size_t len = 0;
    int rc = sc_it_recv_line(c, &line, &len);
    if (rc != 0)
        fail_msg("%s: no reply line (rc %d)", name, rc);
    cJSON *reply = cJSON_ParseWithLength(line, len);
    if (!reply)
        fail_msg("%s: reply is not JSON: %.300s", name, line);
    int64_t got_code = 0, id = 0;
    const char *got_kind = sc_rel_error_kind(reply);
    const cJSON *idv = cJSON_GetObjectItemCaseSensitive(reply, "id");
    bool id_ok =
        want_id == ID_NULL ? cJSON_IsNull(idv) : sc_it_json_int(reply, "id", &id) && id == 1;
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(reply, "error");
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(err, "data");
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(data, "field");
    bool field_ok = !field || (cJSON_IsString(f) && strcmp(f->valuestring, field) == 0);
    if (!sc_rel_error_code(reply, &got_code) || got_code != code || !got_kind ||
        strcmp(got_kind, kind) != 0 || !id_ok || !field_ok)
        fail_msg("%s: expected error %d (kind %s, id %s%s%s)\n  got %.500s", name, code, kind,
                 want_id == ID_NULL ? "null" : "1", field ? ", field " : "", field ? field : "",
                 line);
    free(line);
    return reply;
}

static void expect_error_line(sc_it_conn *c, const char *name, int code, const char *kind,
                              enum want_id want_id, const char *field)
{
    cJSON_Delete(recv_error_line(c, name, code, kind, want_id, field));
}

static void test_bad_lines_table(void **state)
{
    sc_it_daemon *d = sc_rel_must_start(state, NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    /* Rows that reach parameter checks name session 1: the first one a
     * fresh database hands out, with stream 0 capturing. */
    assert_int_equal(sc_it_open_session(c, "table"), 1);
    sc_it_must_ok(c, "capture.begin", "{\"session\":1,\"stream\":0}");
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        const bad_line *row = &table[i];
        size_t len = row->len ? row->len : strlen(row->bytes);
        char *buf = malloc(len + 1);
        assert_non_null(buf);
        memcpy(buf, row->bytes, len);
        buf[len] = '\n';
        assert_int_equal(sc_it_send(c, buf, len + 1), 0);
        free(buf);
        expect_error_line(c, row->name, row->code, row->kind, row->id, row->field);
        expect_usable(c, row->name);
    }

    /* Nesting: 256 levels are JSON the daemon accepts (the label is then
     * the wrong type), 257 and 10,000 are parse errors. */
    struct {
        int depth;
        int code;
        const char *kind;
        enum want_id id;
        const char *field;
    } depths[] = {{256, -32602, "invalid_params", ID_ONE, "label"},
                  {257, -32700, "parse_error", ID_NULL, NULL},
                  {10000, -32700, "parse_error", ID_NULL, NULL}};
    for (size_t i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
        char name[64];
        snprintf(name, sizeof(name), "nesting depth %d", depths[i].depth);
        char *line = nested(depths[i].depth);
        assert_int_equal(sc_it_send_line(c, line), 0);
        free(line);
        expect_error_line(c, name, depths[i].code, depths[i].kind, depths[i].id, depths[i].field);
        expect_usable(c, name);
    }

    /* The daemon is unharmed: a new connection works as well. */
    sc_it_conn_close(c);
    c = sc_it_must_connect(d);
    expect_usable(c, "the table");
    sc_it_conn_close(c);
    sc_it_must_stop(d);
}

static bool blank_line(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return false;
    return true;
}

/* A reply to a hostile line: an error object, or a batch reply of them. */
static bool is_error_reply(const cJSON *v)
{
    int64_t code;
    if (cJSON_IsObject(v))
        return sc_rel_error_code(v, &code) && code <= -32600 && code >= -32700 &&
               cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(v, "id"));
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0)
        return false;
    const cJSON *e;
    cJSON_ArrayForEach(e, v)
    {
        if (!sc_rel_error_code(e, &code))
            return false;
    }
    return true;
}

/* Defaults; SC_REL_RANDOM_LINES, SC_REL_MUTATED_LINES and SC_REL_SEED
 * override them (tests/soak/fuzz.sh runs far more lines). */
#define RANDOM_LINES  3000
#define MUTATED_LINES 2000
#define FUZZ_SEED     20261129

static void test_random_bytes(void **state)
{
    sc_it_daemon *d = sc_rel_must_start(state, NULL);
    sc_it_conn *c = sc_it_must_connect(d);
    sc_rel_rng rng;
    const long random_lines = sc_rel_env_long("SC_REL_RANDOM_LINES", RANDOM_LINES);
    const long mutated_lines = sc_rel_env_long("SC_REL_MUTATED_LINES", MUTATED_LINES);
    const long seed = sc_rel_env_long("SC_REL_SEED", FUZZ_SEED);
    sc_rel_rng_seed(&rng, (uint64_t)seed);
    char line[512];
    long answered = 0;
    for (long i = 0; i < random_lines; i++) {
        size_t len = 1 + sc_rel_rng_below(&rng, 300);
        /* Half the lines draw from JSON's own punctuation, so the parser
         * gets deep into the input instead of failing at byte 0. */
        static const char punct[] = "{}[]\":,0123456789.eE+-tfnrul\\ \t\r\x01\xc3\xa9\xff";
        bool json_ish = i % 2;
        for (size_t k = 0; k < len; k++) {
            char ch;
            do {
                ch = json_ish ? punct[sc_rel_rng_below(&rng, sizeof(punct) - 1)]
                              : (char)sc_rel_rng_below(&rng, 256);
            } while (ch == '\n');
            line[k] = ch;
        }
        line[len] = '\n';
        assert_int_equal(sc_it_send(c, line, len + 1), 0);
        if (blank_line(line, len))
            continue;
        char *reply_text = NULL;
        size_t rlen = 0;
        int rc = sc_it_recv_line(c, &reply_text, &rlen);
        if (rc != 0)
            fail_msg("random line #%ld (%zu bytes): no reply (rc %d); daemon %s", i, len, rc,
                     sc_it_daemon_running(d) ? "running" : "gone");
        cJSON *reply = cJSON_ParseWithLength(reply_text, rlen);
        if (!is_error_reply(reply))
            fail_msg("random line #%ld: expected a JSON-RPC error with id null, got %.300s", i,
                     reply_text);
        cJSON_Delete(reply);
        free(reply_text);
        answered++;
    }
    assert_true(answered > random_lines / 2);
    expect_usable(c, "random lines");

    /* Valid requests with a few bytes changed: anything may come back
     * (some even succeed), but every reply is one JSON line and the daemon
     * answers a final request after all of them. */
    static const char *const templates[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"session.open\",\"params\":{\"label\":\"m\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"capture.record_kernel\",\"params\":{"
        "\"session\":1,\"stream\":0,\"function_name\":\"k\",\"num_blocks\":1,"
        "\"threads_per_block\":32}}",
        "[{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"graph.list\",\"params\":{\"limit\":5}},"
        "{\"jsonrpc\":\"2.0\",\"method\":\"server.info\"}]",
        "{\"jsonrpc\":\"2.0\",\"id\":\"s\\u00e9\",\"method\":\"capture.status\",\"params\":{"
        "\"session\":1,\"stream\":4294967295}}",
    };
    size_t total = 0, cap = 1 << 20;
    char *buf = malloc(cap);
    assert_non_null(buf);
    for (long i = 0; i < mutated_lines; i++) {
        const char *t = templates[i % 4];
        size_t len = strlen(t);
        if (total + len + 1 > cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        memcpy(buf + total, t, len);
        int flips = 1 + (int)sc_rel_rng_below(&rng, 3);
        for (int k = 0; k < flips; k++) {
            char ch;
            do {
                ch = (char)sc_rel_rng_below(&rng, 256);
            } while (ch == '\n');
            buf[total + sc_rel_rng_below(&rng, (uint32_t)len)] = ch;
        }
        total += len;
        buf[total++] = '\n';
    }
    const char *sentinel = "{\"jsonrpc\":\"2.0\",\"id\":\"sentinel\",\"method\":\"server.info\"}\n";
    assert_int_equal(sc_it_send(c, buf, total), 0);
    assert_int_equal(sc_it_send(c, sentinel, strlen(sentinel)), 0);
    free(buf);
    long lines = 0;
    for (;;) {
        char *text = NULL;
        size_t rlen = 0;
        int rc = sc_it_recv_line(c, &text, &rlen);
        if (rc != 0)
            fail_msg("mutated lines: reply #%ld missing (rc %d); daemon %s", lines, rc,
                     sc_it_daemon_running(d) ? "running" : "gone");
        cJSON *reply = cJSON_ParseWithLength(text, rlen);
        if (!reply)
            fail_msg("mutated lines: reply #%ld is not JSON: %.300s", lines, text);
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(reply, "id");
        bool done = cJSON_IsString(id) && strcmp(id->valuestring, "sentinel") == 0;
        if (done)
            sc_it_ok(c, reply);
        cJSON_Delete(reply);
        free(text);
        lines++;
        if (done)
            break;
        assert_true(lines <= mutated_lines);
    }
    print_message("random input (seed %ld): %ld of %ld random lines answered, %ld replies to %ld "
                  "mutated lines\n",
                  seed, answered, random_lines, lines - 1, mutated_lines);
    sc_it_conn_close(c);
    sc_it_must_stop(d);
}

static char *padded_request(size_t len)
{
    /* server.info with spaces before the closing brace: valid JSON. */
    const char *head = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server.info\"";
    size_t hl = strlen(head);
    char *s = malloc(len + 2);
    assert_non_null(s);
    memcpy(s, head, hl);
    memset(s + hl, ' ', len - hl - 1);
    s[len - 1] = '}';
    s[len] = '\n';
    s[len + 1] = '\0';
    return s;
}

static void expect_too_large_then_eof(sc_it_conn *c, const char *what)
{
    cJSON *reply = recv_error_line(c, what, -32600, "invalid_request", ID_NULL, NULL);
    sc_it_err_message(cJSON_GetObjectItemCaseSensitive(reply, "error"), "message too large");
    cJSON_Delete(reply);
    int rc = sc_it_expect_eof(c);
    if (rc != 0)
        fail_msg("%s: expected the daemon to close the connection, got rc %d", what, rc);
}

static void test_oversize_lines(void **state)
{
    static const char *const args[] = {"--max-message", "65536", NULL};
    sc_it_daemon *d = sc_rel_must_start(state, args);

    /* Exactly the limit is fine. */
    sc_it_conn *c = sc_it_must_connect(d);
    char *line = padded_request(65536);
    assert_int_equal(sc_it_send(c, line, 65537), 0);
    free(line);
    cJSON *reply = sc_it_must_recv(c);
    sc_it_ok(c, reply);
    cJSON_Delete(reply);
    expect_usable(c, "a line of exactly --max-message bytes");
    sc_it_conn_close(c);

    /* One byte more is not. */
    c = sc_it_must_connect(d);
    line = padded_request(65537);
    int rc = sc_it_send(c, line, 65538);
    free(line);
    assert_true(rc == 0 || rc == -EPIPE || rc == -ECONNRESET);
    expect_too_large_then_eof(c, "a line one byte over --max-message");
    sc_it_conn_close(c);

    /* Others never noticed. */
    c = sc_it_must_connect(d);
    expect_usable(c, "oversize lines on other connections");
    sc_it_conn_close(c);
    sc_it_must_stop(d);
}

#define HUGE_LINE (100u << 20)
#define CHUNK     (256u << 10)

static void test_huge_line_memory_bounded(void **state)
{
    sc_it_daemon *d = sc_rel_must_start(state, NULL); /* default --max-message: 1 MiB */
    const long max_message_kib = 1024;
    pid_t pid = sc_it_daemon_pid(d);
    sc_it_conn *c = sc_it_must_connect(d);
    expect_usable(c, "start-up");
    long base = sc_rel_rss_kib(pid);
    assert_true(base > 0);

    char *chunk = malloc(CHUNK);
    assert_non_null(chunk);
    memset(chunk, 'a', CHUNK);
    const char *head = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session.open\",\"params\":{"
                       "\"label\":\"";
    assert_int_equal(sc_it_send(c, head, strlen(head)), 0);
    sc_it_conn_set_timeout(c, 5000);
    size_t sent = strlen(head);
    long peak = base;
    int rc = 0;
    while (sent < HUGE_LINE) {
        rc = sc_it_send(c, chunk, CHUNK);
        long rss = sc_rel_rss_kib(pid);
        if (rss > peak)
            peak = rss;
        if (rc != 0)
            break;
        sent += CHUNK;
    }
    free(chunk);
    print_message("huge line: %zu MiB written before the close, daemon RSS %ld KiB -> peak %ld "
                  "KiB\n",
                  sent >> 20, base, peak);
    /* The daemon stops the line as soon as it passes the limit. */
    if (rc != -EPIPE && rc != -ECONNRESET)
        fail_msg("streaming a %u MiB line: expected the daemon to close the connection, got rc "
                 "%d after %zu bytes",
                 HUGE_LINE >> 20, rc, sent);
    long bound = base + 4 * max_message_kib * SC_REL_MEM_FACTOR;
    if (peak > bound)
        fail_msg("daemon RSS grew from %ld KiB to %ld KiB while a huge line streamed in; bound "
                 "%ld KiB (4 x --max-message over the baseline)",
                 base, peak, bound);
    expect_too_large_then_eof(c, "a 100 MiB line without a newline");
    sc_it_conn_close(c);

    c = sc_it_must_connect(d);
    expect_usable(c, "a huge line on another connection");
    sc_it_conn_close(c);
    sc_it_must_stop(d);
}

/* Send `data` on a raw connection, shut down the write side, and return
 * everything the daemon sends until it closes (malloc'd, NUL-terminated). */
static char *send_then_eof(sc_it_daemon *d, const char *data)
{
    int fd = sc_it_socket_connect(sc_it_daemon_socket(d));
    assert_true(fd >= 0);
    size_t n = strlen(data);
    assert_int_equal(write(fd, data, n), (ssize_t)n);
    assert_int_equal(shutdown(fd, SHUT_WR), 0);
    size_t len = 0, cap = 4096;
    char *out = malloc(cap);
    assert_non_null(out);
    for (;;) {
        if (cap - len < 1024) {
            cap *= 2;
            out = realloc(out, cap);
            assert_non_null(out);
        }
        ssize_t k = read(fd, out + len, cap - len - 1);
        if (k <= 0)
            break;
        len += (size_t)k;
    }
    close(fd);
    out[len] = '\0';
    return out;
}

/* A last line the client ends with EOF instead of '\n' is still a request:
 * it gets its reply, after those of the lines before it. */
static void test_final_line_without_newline(void **state)
{
    sc_it_daemon *d = sc_rel_must_start(state, NULL);
    char *out = send_then_eof(d, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"server.info\"}");
    if (!strstr(out, "\"id\":7") || !strstr(out, "\"result\"") || out[strlen(out) - 1] != '\n')
        fail_msg("an unterminated last line got no reply line: '%s'", out);
    free(out);
    out = send_then_eof(d, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server.info\"}\n"
                           "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"server.info\"}");
    const char *one = strstr(out, "\"id\":1"), *two = strstr(out, "\"id\":2");
    if (!one || !two || two < one)
        fail_msg("two lines, the last unterminated: replies '%s'", out);
    free(out);
    /* An unterminated fragment of JSON is answered like any bad line. */
    out = send_then_eof(d, "{\"jsonrpc\":\"2.0\",\"id\":3,");
    if (!strstr(out, "-32700"))
        fail_msg("an unterminated broken last line: reply '%s', want -32700", out);
    free(out);
    /* A blank tail is no request. */
    out = send_then_eof(d, "  ");
    assert_string_equal(out, "");
    free(out);
    sc_it_must_stop(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        SC_REL_TEST(test_bad_lines_table),
        SC_REL_TEST(test_random_bytes),
        SC_REL_TEST(test_oversize_lines),
        SC_REL_TEST(test_huge_line_memory_bounded),
        SC_REL_TEST(test_final_line_without_newline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
