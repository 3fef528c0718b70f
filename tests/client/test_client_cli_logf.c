/*
 * test_client_cli_logf.c - the live log through a real daemon:
 * sc_client_log_subscribe() and sc_client_log_next(), and `streamcap log
 * -f`, readable and --json, run in the background while a client makes
 * events happen, then stopped with SIGTERM.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "cli_fixture.h"

/* Generous: only a daemon that never sends fails it, not a slow one. */
#define WAIT_MS 30000

/* An event's integer member, or -1. */
static long long member_int(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? (long long)v->valuedouble : -1;
}

static const char *member_str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* Read events from a subscribed client until `event` of `session` comes. */
static cJSON *next_event_of(sc_client *c, const char *event, uint64_t session)
{
    for (;;) {
        char *p = NULL;
        int rc = sc_client_log_next(c, WAIT_MS, &p);
        if (rc != 0)
            fail_msg("sc_client_log_next: %d (%s) waiting for %s", rc, sc_client_errmsg(c), event);
        cJSON *o = cJSON_Parse(p);
        free(p);
        assert_non_null(o);
        if (strcmp(member_str(o, "event"), event) == 0 &&
            member_int(o, "session") == (long long)session)
            return o;
        cJSON_Delete(o);
    }
}

/* sc_cli_fx_free of a fixture whose daemon was stopped already. */
static void fx_free_stopped(sc_cli_fx *g)
{
    sc_client_close(g->c);
    sc_it_daemon_destroy(g->d);
    sc_it_rmtree(g->tmp);
    free(g);
}

static sc_client *connect_to(sc_cli_fx *f)
{
    sc_client *c = NULL;
    assert_int_equal(sc_client_connect(sc_it_daemon_socket(f->d), 10000, &c), 0);
    return c;
}

static void test_library_subscribe_next(void **state)
{
    sc_cli_fx *f = *state;
    sc_client *c = connect_to(f);
    assert_int_equal(sc_client_log_subscribe(c, NULL, NULL), 0);
    uint64_t s;
    assert_int_equal(sc_client_open_session(f->c, "watched", &s), 0);
    assert_int_equal(sc_client_close_session(f->c, s), 0);

    cJSON *o = next_event_of(c, "session_opened", s);
    assert_string_equal(member_str(o, "outcome"), "open");
    assert_true(strlen(member_str(o, "at")) > 0);
    cJSON_Delete(o);
    o = next_event_of(c, "session_ended", s);
    assert_string_equal(member_str(o, "outcome"), "closed");
    cJSON_Delete(o);

    /* The connection is the stream's now. */
    sc_client_server_desc d;
    assert_int_equal(sc_client_server_info(c, &d), -EBUSY);
    assert_non_null(strstr(sc_client_errmsg(c), "subscribed"));
    assert_int_equal(sc_client_log_subscribe(c, NULL, NULL), -EBUSY);
    char *p = NULL;
    assert_int_equal(sc_client_log_next(c, 0, &p), -ETIMEDOUT);
    assert_null(p);
    sc_client_close(c);
}

static void test_library_filters_and_errors(void **state)
{
    sc_cli_fx *f = *state;
    sc_client *c = connect_to(f);
    char *p = NULL;
    assert_int_equal(sc_client_log_next(c, 0, &p), -EINVAL);
    assert_int_equal(sc_client_log_subscribe(c, "bogus", NULL), SC_CLIENT_EPARAMS);
    assert_non_null(strstr(sc_client_errmsg(c), "outcome"));
    /* A refused subscription leaves an ordinary connection. */
    sc_client_server_desc d;
    assert_int_equal(sc_client_server_info(c, &d), 0);
    sc_client_server_desc_free(&d);

    /* A pipeline's replies would be read as notifications: refused. */
    assert_int_equal(sc_client_pipeline_begin(c), 0);
    assert_int_equal(sc_client_log_subscribe(c, NULL, NULL), -EBUSY);
    sc_client_reply *rs = NULL;
    size_t nr = 0;
    assert_int_equal(sc_client_pipeline_collect(c, &rs, &nr), 0);
    sc_client_replies_free(rs, nr);

    assert_int_equal(sc_client_log_subscribe(c, "closed", NULL), 0);
    uint64_t s;
    assert_int_equal(sc_client_open_session(f->c, NULL, &s), 0);
    assert_int_equal(sc_client_close_session(f->c, s), 0);
    /* session_opened ("open") is filtered out: session_ended comes first. */
    assert_int_equal(sc_client_log_next(c, WAIT_MS, &p), 0);
    cJSON *o = cJSON_Parse(p);
    free(p);
    assert_string_equal(member_str(o, "event"), "session_ended");
    assert_int_equal(member_int(o, "session"), (long long)s);
    cJSON_Delete(o);
    sc_client_close(c);
}

/* The end of the stream: the daemon stops. */
static void test_library_end_of_stream(void **state)
{
    (void)state;
    sc_cli_fx *g = sc_cli_fx_new(10000);
    sc_client *c = connect_to(g);
    assert_int_equal(sc_client_log_subscribe(c, NULL, NULL), 0);
    sc_it_must_stop(g->d);
    char *p = NULL;
    int rc;
    while ((rc = sc_client_log_next(c, WAIT_MS, &p)) == 0) {
        free(p);
        p = NULL;
    }
    assert_int_equal(rc, -ECONNRESET);
    sc_client_close(c);
    fx_free_stopped(g);
}

/* ------------------------------------------------ streamcap log -f */

typedef struct follower {
    pid_t pid;
    int out; /* read end of its stdout */
    int err; /* and of its stderr */
    char buf[65536];
    size_t len;
} follower;

static void follow_start(const char *sock, follower *w, bool json)
{
    int fds[2], efds[2];
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(pipe(efds), 0);
    w->len = 0;
    w->pid = fork();
    assert_true(w->pid >= 0);
    if (w->pid == 0) {
        dup2(fds[1], 1);
        dup2(efds[1], 2);
        close(fds[0]);
        close(fds[1]);
        close(efds[0]);
        close(efds[1]);
        if (json)
            execl(SC_CLI_STREAMCAP, "streamcap", "--socket", sock, "--json", "log", "-f",
                  (char *)NULL);
        else
            execl(SC_CLI_STREAMCAP, "streamcap", "--socket", sock, "log", "-f", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    close(efds[1]);
    w->out = fds[0];
    w->err = efds[0];
}

/* Wait up to ms for more output: false when none came (or it ended).
 * The oldest half is forgotten when the buffer fills. */
static bool follow_read(follower *w, int ms)
{
    struct pollfd p = {.fd = w->out, .events = POLLIN};
    if (poll(&p, 1, ms) <= 0)
        return false;
    if (w->len > sizeof(w->buf) / 2) {
        memmove(w->buf, w->buf + w->len / 2, w->len - w->len / 2);
        w->len -= w->len / 2;
    }
    ssize_t n = read(w->out, w->buf + w->len, sizeof(w->buf) - 1 - w->len);
    if (n <= 0)
        return false;
    w->len += (size_t)n;
    w->buf[w->len] = '\0';
    return true;
}

/* The follower subscribes at some point after it starts: sessions are
 * opened and closed until one's session_ended line shows it listens. */
static void follow_until_listening(sc_client *c, follower *w, bool json)
{
    for (int tries = 0; tries < WAIT_MS / 200; tries++) {
        uint64_t s;
        assert_int_equal(sc_client_open_session(c, NULL, &s), 0);
        assert_int_equal(sc_client_close_session(c, s), 0);
        char want[64];
        if (json)
            snprintf(want, sizeof want, "\"event\":\"session_ended\",\"session\":%llu,",
                     (unsigned long long)s);
        else
            snprintf(want, sizeof want, " session_ended session %llu closed\n",
                     (unsigned long long)s);
        while (follow_read(w, 200))
            if (strstr(w->buf, want))
                return;
    }
    fail_msg("log -f printed no session_ended line: '%s'", w->buf);
}

/* Read until `want` is printed. */
static void follow_expect(follower *w, const char *want)
{
    for (int waited = 0; !strstr(w->buf, want); waited += 200)
        if (!follow_read(w, 200) && waited > WAIT_MS)
            fail_msg("log -f did not print '%s': '%s'", want, w->buf);
}

static void follow_stop(follower *w)
{
    assert_int_equal(kill(w->pid, SIGTERM), 0);
    int st;
    assert_int_equal(waitpid(w->pid, &st, 0), w->pid);
    close(w->out);
    close(w->err);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    /* Whole lines only. */
    assert_true(w->len > 0 && w->buf[w->len - 1] == '\n');
}

/* A listening `log -f` (with --json when json) and the graph `demo` then
 * stored while it listened. */
static follower *follow_demo(sc_cli_fx *f, bool json, uint64_t *g)
{
    follower *w = calloc(1, sizeof *w);
    assert_non_null(w);
    follow_start(sc_it_daemon_socket(f->d), w, json);
    follow_until_listening(f->c, w, json);
    *g = sc_cli_demo_graph(f);
    return w;
}

/* A cuda capture broken by cudaMalloc from another thread: its line
 * names the call and CUDA's error. */
static void follow_invalidation(sc_cli_fx *f, follower *w)
{
    uint64_t s, cap;
    assert_int_equal(sc_client_open_session_ex(f->c, NULL, SC_CLIENT_SEMANTICS_CUDA, &s), 0);
    assert_int_equal(sc_client_cuda_begin(f->c, s, 7, 0, SC_CLIENT_MODE_GLOBAL, &cap), 0);
    assert_int_equal(sc_client_host_call(f->c, s, 2, SC_CLIENT_HOST_UNSAFE, 0, 0, "cudaMalloc"),
                     SC_CLIENT_ECUDA);
    assert_int_equal(sc_client_close_session(f->c, s), 0);
    char want[128];
    snprintf(want, sizeof want,
             " capture_invalidated session %llu capture %llu invalidated by cudaMalloc (cudaError",
             (unsigned long long)s, (unsigned long long)cap);
    follow_expect(w, want);
}

static void test_cli_follow_text(void **state)
{
    uint64_t g;
    follower *w = follow_demo(*state, false, &g);
    char want[64];
    snprintf(want, sizeof want, " stream 0 graph %llu completed\n", (unsigned long long)g);
    follow_expect(w, want);
    follow_expect(w, " graph_stored session ");
    snprintf(want, sizeof want, " graph %llu\n", (unsigned long long)g);
    follow_expect(w, want);
    /* Each line starts with the time ("2026-12-02T14:03:11.123Z") and host. */
    const char *line = strstr(w->buf, " capture_ended session ");
    assert_non_null(line);
    while (line > w->buf && line[-1] != '\n')
        line--;
    assert_true(line[4] == '-' && line[10] == 'T' && line[23] == 'Z' && line[24] == ' ');
    follow_invalidation(*state, w);
    follow_stop(w);
    free(w);
}

static void test_cli_follow_json(void **state)
{
    uint64_t g;
    follower *w = follow_demo(*state, true, &g);
    follow_expect(w, "\"event\":\"graph_stored\"");
    char want[64];
    snprintf(want, sizeof want, "\"graph\":%llu,", (unsigned long long)g);
    follow_expect(w, want);
    follow_stop(w);
    /* Every line is one params object. */
    for (char *l = strtok(w->buf, "\n"); l; l = strtok(NULL, "\n")) {
        cJSON *o = cJSON_Parse(l);
        if (!cJSON_IsObject(o))
            fail_msg("log -f --json printed '%s'", l);
        assert_true(strlen(member_str(o, "event")) > 0);
        cJSON_Delete(o);
    }
    free(w);
}

static void test_cli_follow_bad_outcome(void **state)
{
    sc_cli_fx *f = *state;
    sc_ct_result r = sc_cli_run(f, "log", "-f", "--outcome", "bogus", NULL);
    sc_cli_expect_status(&r, 2);
    sc_cli_expect_in(r.err, "outcome");
    sc_ct_result_free(&r);
    r = sc_cli_run(f, "log", "-f", "--limit", "3", NULL);
    sc_cli_expect_status(&r, 2);
    sc_ct_result_free(&r);
}

/* The daemon stopping ends the stream: exit 0. */
static void test_cli_follow_end(void **state)
{
    (void)state;
    sc_cli_fx *g = sc_cli_fx_new(10000);
    follower *w = calloc(1, sizeof *w);
    follow_start(sc_it_daemon_socket(g->d), w, false);
    follow_until_listening(g->c, w, false);
    sc_it_must_stop(g->d);
    int st;
    assert_int_equal(waitpid(w->pid, &st, 0), w->pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    close(w->out);
    close(w->err);
    free(w);
    fx_free_stopped(g);
}

/* A follower whose output nobody reads falls behind a daemon with a small
 * --max-sub-output: dropped, said on stderr, exit 1. */
static void test_cli_follow_dropped(void **state)
{
    (void)state;
    static const char *const small_bound[] = {"--max-sub-output", "64K", NULL};
    sc_it_daemon *d;
    assert_int_equal(sc_it_daemon_create(&d), 0);
    assert_int_equal(sc_it_daemon_start(d, small_bound), 0);
    sc_client *c = NULL;
    assert_int_equal(sc_client_connect(sc_it_daemon_socket(d), 10000, &c), 0);
    follower *w = calloc(1, sizeof *w);
    follow_start(sc_it_daemon_socket(d), w, false);
    follow_until_listening(c, w, false);
    /* Far more event bytes than the bound, its pipe and the socket hold. */
    for (int i = 0; i < 3000; i++) {
        uint64_t s;
        assert_int_equal(sc_client_open_session(c, NULL, &s), 0);
        assert_int_equal(sc_client_close_session(c, s), 0);
    }
    while (follow_read(w, WAIT_MS))
        ;
    int st;
    assert_int_equal(waitpid(w->pid, &st, 0), w->pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 1);
    char err[512] = "";
    ssize_t n = read(w->err, err, sizeof err - 1);
    err[n > 0 ? n : 0] = '\0';
    sc_cli_expect_in(err, "dropped this log subscriber");
    close(w->out);
    close(w->err);
    free(w);
    sc_client_close(c);
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_library_subscribe_next),
        cmocka_unit_test(test_library_filters_and_errors),
        cmocka_unit_test(test_library_end_of_stream),
        cmocka_unit_test(test_cli_follow_text),
        cmocka_unit_test(test_cli_follow_json),
        cmocka_unit_test(test_cli_follow_bad_outcome),
        cmocka_unit_test(test_cli_follow_end),
        cmocka_unit_test(test_cli_follow_dropped),
    };
    return cmocka_run_group_tests(tests, sc_cli_group_setup, sc_cli_group_teardown);
}
