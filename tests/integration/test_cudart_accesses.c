/*
 * The buffer accesses the CUDA runtime stand-in sends, against a real
 * streamcapd: cudart_access_prog's kernel launches (a pointer to const
 * reads its whole allocation, any other pointer reads and writes it, a
 * pointer into the middle covers the whole allocation, scalars and
 * pointers to nothing live give nothing, two arguments into one
 * allocation give one access), its hand-built memcpy and memset nodes,
 * and graph.races over two kernels writing one buffer from two streams,
 * with and without an event between them.
 */
#define _GNU_SOURCE
#include <fcntl.h>
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

#include "harness.h"

typedef struct run {
    sc_it_daemon *d;
    sc_it_conn *c;
    long long graphs[8]; /* stored, in id order */
    int ngraphs;
    unsigned long long a, b, c_; /* the program's allocations */
} run;

static int cmp_ll(const void *x, const void *y)
{
    long long a = *(const long long *)x, b = *(const long long *)y;
    return a < b ? -1 : a > b;
}

/* Run the program against the daemon, its stdout read back. */
static char *run_prog(sc_it_daemon *d)
{
    int out[2];
    assert_int_equal(pipe(out), 0);
    char err[600];
    snprintf(err, sizeof err, "%s/access-stderr.txt", sc_it_daemon_dir(d));
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(out[1], 1);
        int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 2);
        close(out[0]);
        setenv("STREAMCAP_SOCKET", sc_it_daemon_socket(d), 1);
        setenv("LD_LIBRARY_PATH", SC_CUDART_DIR, 1);
        setenv("STREAMCAP_SYNC_END", "1", 1);
        execl(SC_ACCESS_PROG, SC_ACCESS_PROG, (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    FILE *f = fdopen(out[0], "r");
    char line[512] = "";
    if (!fgets(line, sizeof line, f))
        line[0] = '\0';
    fclose(f);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        char *text = sc_it_read_file(err);
        fail_msg("cudart_access_prog failed (%d): %s", st, text ? text : "");
    }
    return strdup(line);
}

static int setup(void **state)
{
    run *r = calloc(1, sizeof *r);
    r->d = sc_it_must_start(NULL);
    char *line = run_prog(r->d);
    cJSON *addr = cJSON_Parse(line);
    free(line);
    assert_non_null(addr);
    r->a = (unsigned long long)cJSON_GetObjectItem(addr, "A")->valuedouble;
    r->b = (unsigned long long)cJSON_GetObjectItem(addr, "B")->valuedouble;
    r->c_ = (unsigned long long)cJSON_GetObjectItem(addr, "C")->valuedouble;
    cJSON_Delete(addr);
    r->c = sc_it_must_connect(r->d);
    cJSON *l = sc_it_must_result(r->c, "graph.list", "{}");
    const cJSON *g;
    cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(l, "graphs"))
    {
        assert_true(r->ngraphs < 8);
        r->graphs[r->ngraphs++] = (long long)sc_it_int(g, "graph");
    }
    cJSON_Delete(l);
    qsort(r->graphs, (size_t)r->ngraphs, sizeof r->graphs[0], cmp_ll);
    assert_int_equal(r->ngraphs, 5);
    *state = r;
    return 0;
}

static int teardown(void **state)
{
    run *r = *state;
    sc_it_conn_close(r->c);
    sc_it_must_stop(r->d);
    sc_it_daemon_destroy(r->d);
    free(r);
    return 0;
}

/* Node `node` of graph `i` (of the five) has exactly the accesses `want`,
 * a JSON list with A, B and C standing for the program's allocations. */
static void accesses_are(run *r, int i, int node, const char *want)
{
    cJSON *g = sc_it_must_result(r->c, "graph.get", "{\"graph\":%lld}", r->graphs[i]);
    const cJSON *n = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(g, "nodes"), node);
    assert_non_null(n);
    const cJSON *got = cJSON_GetObjectItemCaseSensitive(n, "accesses");
    char text[1024];
    size_t at = 0;
    for (const char *p = want; *p && at < sizeof text - 32; p++) {
        unsigned long long v = *p == 'A' ? r->a : *p == 'B' ? r->b : *p == 'C' ? r->c_ : 0;
        if (v)
            at += (size_t)snprintf(text + at, sizeof text - at, "%llu", v);
        else
            text[at++] = *p;
    }
    text[at] = '\0';
    cJSON *w = cJSON_Parse(text);
    assert_non_null(w);
    if (cJSON_GetArraySize(w) == 0 ? got != NULL : !cJSON_Compare(got, w, 1))
        fail_msg("graph %d node %d: accesses %s, want %s", i, node,
                 got ? sc_it_json_text(got) : "none", text);
    cJSON_Delete(w);
    cJSON_Delete(g);
}

static long long races_of(run *r, int i)
{
    cJSON *res = sc_it_must_result(r->c, "graph.races", "{\"graph\":%lld}", r->graphs[i]);
    long long n = (long long)sc_it_int(res, "count");
    cJSON_Delete(res);
    return n;
}

/* A const pointer reads its allocation, another pointer (into its
 * middle) reads and writes all of it, a freed pointer and a scalar give
 * nothing; two arguments into A give one access, the stronger mode; a
 * launch whose pointers point into nothing live has none. */
static void test_kernel_arguments(void **state)
{
    run *r = *state;
    accesses_are(r, 0, 0,
                 "[{\"address\":A,\"size\":256,\"mode\":\"read\"},"
                 "{\"address\":B,\"size\":512,\"mode\":\"read_write\"}]");
    accesses_are(r, 0, 1, "[{\"address\":A,\"size\":256,\"mode\":\"read_write\"}]");
    accesses_are(r, 0, 2, "[]");
}

/* Two kernels writing B from two unordered streams race once, over all
 * of B (both read_write); reading A from both is no race; an event
 * between them orders them. */
static void test_kernel_race(void **state)
{
    run *r = *state;
    assert_int_equal(races_of(r, 0), 0);
    assert_int_equal(races_of(r, 1), 1);
    cJSON *res = sc_it_must_result(r->c, "graph.races", "{\"graph\":%lld}", r->graphs[1]);
    const cJSON *row = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(res, "races"), 0);
    assert_int_equal((unsigned long long)sc_it_int(row, "address"), r->b);
    assert_int_equal(sc_it_int(row, "size"), 512);
    assert_string_equal(sc_it_str(row, "a_mode"), "read_write");
    assert_string_equal(sc_it_str(row, "b_mode"), "read_write");
    cJSON_Delete(res);
    assert_int_equal(races_of(r, 2), 0);
}

/* A graph built by hand: its memcpy node reads 64 bytes of A and writes
 * 64 of B, its 2-D memset node writes from C to the end of its third
 * row, its kernel node reads A and writes B; none of them is ordered, so
 * the copy's write and the kernel's race on B's first 64 bytes, and the
 * copy's read of A against the kernel's read is none. */
static void test_hand_built_nodes(void **state)
{
    run *r = *state;
    accesses_are(r, 3, 0,
                 "[{\"address\":A,\"size\":64,\"mode\":\"read\"},"
                 "{\"address\":B,\"size\":64,\"mode\":\"write\"}]");
    accesses_are(r, 3, 1, "[{\"address\":C,\"size\":320,\"mode\":\"write\"}]");
    accesses_are(r, 3, 2,
                 "[{\"address\":A,\"size\":256,\"mode\":\"read\"},"
                 "{\"address\":B,\"size\":512,\"mode\":\"read_write\"}]");
    assert_int_equal(races_of(r, 3), 1);
    /* Added by hand to a capture's graph after k(C, A): ordered after it. */
    accesses_are(r, 4, 0,
                 "[{\"address\":A,\"size\":256,\"mode\":\"read_write\"},"
                 "{\"address\":C,\"size\":1024,\"mode\":\"read\"}]");
    accesses_are(r, 4, 1,
                 "[{\"address\":C,\"size\":32,\"mode\":\"read\"},"
                 "{\"address\":A,\"size\":32,\"mode\":\"write\"}]");
    assert_int_equal(races_of(r, 4), 0);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_arguments),
        cmocka_unit_test(test_kernel_race),
        cmocka_unit_test(test_hand_built_nodes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
