/*
 * test_sql_doc.c - the queries of docs/sql.md, run as a user would: the
 * fenced ```sql blocks are read from the document itself, in order, and fed
 * to the stock sqlite3 shell (read-only, while the store is open) on a
 * database filled through the store.
 *
 * Block 0 holds the shell settings and parameters the document's outputs
 * come from; each later block is one query, followed by a ```text block
 * with what it prints.  One test rebuilds the document's example database
 * and compares every output; another runs the same queries, with other
 * parameters and the shell's plain list mode, on a larger random database
 * and checks them against the graphs themselves (reachability against
 * sc_graph_reachable_bfs).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store_fixture.h"

#define DOC_PATH SC_DOCS_DIR "/sql.md"

enum {
    Q_GRAPHS = 1,
    Q_KINDS,
    Q_EDGES,
    Q_ARGS,
    Q_ACCESSES,
    Q_FAILED,
    Q_CAPTURES,
    Q_REACH,
    Q_HOSTS,
    Q_UNORDERED,
    N_BLOCKS
};

/* ---- the document ---- */

typedef struct block {
    char info[16]; /* the fence's info string: sql, text, ... */
    char *text;    /* the lines between the fences, each ending in '\n' */
} block;

typedef struct doc {
    block *blocks;
    size_t count;
    /* Indexes into blocks[] of the ```sql blocks, and of the ```text block
     * that follows each query (0 for the settings block). */
    size_t sql[N_BLOCKS];
    size_t out[N_BLOCKS];
} doc;

static char *read_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        fail_msg("cannot open %s", path);
    assert_int_equal(fseek(fp, 0, SEEK_END), 0);
    long n = ftell(fp);
    assert_true(n >= 0);
    rewind(fp);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
    buf[n] = '\0';
    fclose(fp);
    return buf;
}

static void append(char **s, size_t *len, const char *add, size_t n)
{
    char *p = realloc(*s, *len + n + 1);
    assert_non_null(p);
    memcpy(p + *len, add, n);
    *len += n;
    p[*len] = '\0';
    *s = p;
}

/* Split the document into its fenced blocks. */
static void doc_parse(doc *d, const char *md)
{
    memset(d, 0, sizeof *d);
    block *cur = NULL;
    size_t cur_len = 0;
    for (const char *line = md; *line;) {
        const char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line) + 1 : strlen(line);
        if (strncmp(line, "```", 3) == 0) {
            if (cur) {
                cur = NULL;
            } else {
                d->blocks = realloc(d->blocks, (d->count + 1) * sizeof *d->blocks);
                assert_non_null(d->blocks);
                cur = &d->blocks[d->count++];
                memset(cur, 0, sizeof *cur);
                size_t k = 0;
                for (const char *c = line + 3;
                     c < line + n && *c != '\n' && *c != ' ' && k + 1 < sizeof cur->info; c++)
                    cur->info[k++] = *c;
                cur_len = 0;
                append(&cur->text, &cur_len, "", 0);
            }
        } else if (cur) {
            append(&cur->text, &cur_len, line, n);
        }
        line += n;
    }
    assert_null(cur); /* every fence is closed */

    size_t q = 0;
    for (size_t i = 0; i < d->count; i++) {
        if (strcmp(d->blocks[i].info, "sql") != 0)
            continue;
        assert_true(q < N_BLOCKS);
        d->sql[q] = i;
        if (q > 0) {
            /* Each query is followed by what it prints. */
            assert_true(i + 1 < d->count);
            assert_string_equal(d->blocks[i + 1].info, "text");
            d->out[q] = i + 1;
        }
        q++;
    }
    assert_int_equal(q, N_BLOCKS);
}

static void doc_free(doc *d)
{
    for (size_t i = 0; i < d->count; i++)
        free(d->blocks[i].text);
    free(d->blocks);
}

static const char *doc_sql(const doc *d, int q)
{
    return d->blocks[d->sql[q]].text;
}

static void doc_load(doc *d)
{
    char *md = read_file(DOC_PATH);
    doc_parse(d, md);
    free(md);
    /* The settings block holds only shell commands; queries hold none, and
     * use the named parameters. */
    const char *settings = doc_sql(d, 0);
    for (const char *l = settings; *l; l = strchr(l, '\n') + 1)
        assert_int_equal(*l, '.');
    for (int q = 1; q < N_BLOCKS; q++) {
        assert_int_not_equal(doc_sql(d, q)[0], '.');
        assert_null(strstr(doc_sql(d, q), "\n."));
    }
    assert_non_null(strstr(doc_sql(d, Q_KINDS), ":graph"));
    assert_non_null(strstr(doc_sql(d, Q_EDGES), ":graph"));
    assert_non_null(strstr(doc_sql(d, Q_ARGS), "param_sizes"));
    assert_non_null(strstr(doc_sql(d, Q_ACCESSES), "FROM accesses"));
    assert_non_null(strstr(doc_sql(d, Q_REACH), "WITH RECURSIVE"));
    assert_non_null(strstr(doc_sql(d, Q_REACH), ":from"));
    assert_non_null(strstr(doc_sql(d, Q_REACH), ":to"));
    assert_non_null(strstr(doc_sql(d, Q_GRAPHS), "host"));
    assert_non_null(strstr(doc_sql(d, Q_FAILED), "host"));
    assert_non_null(strstr(doc_sql(d, Q_HOSTS), "GROUP BY host"));
    assert_non_null(strstr(doc_sql(d, Q_CAPTURES), "FROM captures"));
    assert_non_null(strstr(doc_sql(d, Q_CAPTURES), "inv_call"));
}

/* ---- the shell ---- */

/* Run the sqlite3 shell read-only on the test database with `script` as
 * its input; returns what it printed (asserting it exited 0 and printed
 * nothing on stderr). */
static char *run_shell(const fx *f, const char *script)
{
    char in[160], out[160], err[160];
    snprintf(in, sizeof in, "%s/script.sql", f->dir);
    snprintf(out, sizeof out, "%s/out.txt", f->dir);
    snprintf(err, sizeof err, "%s/err.txt", f->dir);
    FILE *fp = fopen(in, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(script, 1, strlen(script), fp), strlen(script));
    assert_int_equal(fclose(fp), 0);

    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fi = open(in, O_RDONLY), fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600),
            fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fi < 0 || fo < 0 || fe < 0 || dup2(fi, 0) < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
            _exit(126);
        execl(SC_SQLITE3_SHELL, "sqlite3", "-readonly", "-bail", "-batch", f->path, (char *)NULL);
        _exit(127);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    char *errs = read_file(err);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || errs[0])
        fail_msg("%s exited with status %d: %s\n--- input ---\n%s", SC_SQLITE3_SHELL,
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1, errs, script);
    free(errs);
    unlink(in);
    unlink(err);
    char *o = read_file(out);
    unlink(out);
    return o;
}

/* A heap string from a format. */
static char *fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *s = sqlite3_vmprintf(f, ap);
    va_end(ap);
    assert_non_null(s);
    char *copy = strdup(s);
    sqlite3_free(s);
    assert_non_null(copy);
    return copy;
}

/* The shell's plain output: no header, fields split by '|'. */
#define LIST_MODE ".headers off\n.mode list\n.separator |\n"

/* Lines of `out` in lines[] (pointers into out, which is modified). */
static size_t split_lines(char *out, char **lines, size_t max)
{
    size_t n = 0;
    for (char *p = out; *p;) {
        char *eol = strchr(p, '\n');
        assert_non_null(eol);
        *eol = '\0';
        assert_true(n < max);
        lines[n++] = p;
        p = eol + 1;
    }
    return n;
}

/* Field i of a '|'-separated line, as an integer. */
static int64_t field_int(const char *line, int i)
{
    const char *p = line;
    for (int k = 0; k < i; k++) {
        p = strchr(p, '|');
        assert_non_null(p);
        p++;
    }
    return strtoll(p, NULL, 10);
}

static void field_text(const char *line, int i, char *out, size_t len)
{
    const char *p = line;
    for (int k = 0; k < i; k++) {
        p = strchr(p, '|');
        assert_non_null(p);
        p++;
    }
    size_t n = strcspn(p, "|");
    assert_true(n < len);
    memcpy(out, p, n);
    out[n] = '\0';
}

/* ---- filling the database ---- */

typedef struct nspec {
    sc_node_kind kind;
    uint32_t stream;
    const char *name;
} nspec;

static sc_graph *make_graph(const nspec *nodes, size_t n, const uint32_t (*edges)[2], size_t ne)
{
    sc_graph *g = NULL;
    assert_int_equal(sc_graph_create(&g), 0);
    for (size_t i = 0; i < n; i++) {
        sc_node node = {.kind = nodes[i].kind,
                        .stream = nodes[i].stream,
                        .name = nodes[i].name,
                        .name_len = strlen(nodes[i].name),
                        .num_blocks = 64,
                        .threads_per_block = 256,
                        .size_bytes = 1 << 20};
        if (node.kind == SC_KIND_MEMCPY)
            node.dir = i == 0 ? SC_DIR_HOST_TO_DEVICE : SC_DIR_DEVICE_TO_HOST;
        /* conv1(float *x, int n) as the runtime copied its arguments. */
        static const uint8_t conv1_args[] = {0x00, 0x10, 0x00, 0x00, 0x00, 0x7f,
                                             0x00, 0x00, 0xe0, 0x00, 0x00, 0x00};
        static const uint32_t conv1_sizes[] = {8, 4};
        if (strcmp(nodes[i].name, "conv1") == 0) {
            node.args = conv1_args;
            node.args_len = sizeof conv1_args;
            node.param_sizes = conv1_sizes;
            node.nparams = 2;
        }
        /* input writes the buffer conv1 reads; conv1 writes its output. */
        static const sc_access input_acc[] = {{0x7f0000001000, 1 << 20, SC_ACCESS_WRITE}};
        static const sc_access conv1_acc[] = {{0x7f0000001000, 1 << 20, SC_ACCESS_READ},
                                              {0x7f0000200000, 1 << 20, SC_ACCESS_WRITE}};
        if (strcmp(nodes[i].name, "input") == 0) {
            node.accesses = input_acc;
            node.naccesses = 1;
        } else if (strcmp(nodes[i].name, "conv1") == 0) {
            node.accesses = conv1_acc;
            node.naccesses = 2;
        }
        uint32_t id;
        assert_int_equal(sc_graph_add_node(g, &node, &id), 0);
    }
    for (size_t i = 0; i < ne; i++)
        assert_int_equal(sc_graph_add_edge(g, edges[i][0], edges[i][1]), 0);
    assert_int_equal(sc_graph_seal(g), 0);
    return g;
}

static int64_t commit_as(fx *f, int64_t session, const sc_graph *g, uint32_t uid, int64_t pid,
                         const char *label, int64_t ms)
{
    wres w = {0};
    assert_int_equal(
        sc_store_commit_graph(f->st, session, g, uid, pid, label, strlen(label), ms, wres_cb, &w),
        0);
    fx_drain(f);
    assert_int_equal(w.rc, 0);
    return w.id;
}

#define T0 1795981461123LL /* 2026-11-29T19:44:21.123Z */

/* A failed capture's row in an open session: broken by `call` (NULL: its
 * end failed, 904, with nothing before it). */
static void fail_capture(fx *f, int64_t session, uint32_t capture, uint32_t stream,
                         const char *call, int64_t ms)
{
    sc_store_capture c = {.capture = capture,
                          .origin = stream,
                          .mode = "global",
                          .outcome = "failed",
                          .cuda_error = call ? 901 : 904,
                          .node_count = 1};
    if (call) {
        c.inv_method = "capture.record_kernel";
        c.inv_call = call;
        c.inv_call_len = strlen(call);
        c.inv_error = 906;
    }
    wres w = {0};
    assert_int_equal(sc_store_commit_capture(f->st, session, &c, NULL, 1000, 4300, "scratch", 7, ms,
                                             wres_cb, &w),
                     0);
    fx_drain(f);
    assert_int_equal(w.rc, 0);
}

/* Close the store and open it again as the daemon of another host. */
static void reopen_as(fx *f, const char *host)
{
    fx_close(f);
    f->host = host;
    fx_open(f, 1000, 0);
}

/* The database the document's outputs come from (see its Parameters
 * section). */
static void fill_example(fx *f, sc_graph **g1, sc_graph **g2)
{
    static const nspec fwd[] = {
        {SC_KIND_MEMCPY, 0, "input"},       {SC_KIND_KERNEL, 0, "conv1"},
        {SC_KIND_MEMSET, 1, "workspace"},   {SC_KIND_KERNEL, 0, "relu1"},
        {SC_KIND_KERNEL, 1, "conv2"},       {SC_KIND_MEMCPY, 0, "output"},
        {SC_KIND_HOST_CALLBACK, 0, "done"},
    };
    static const uint32_t fwd_edges[][2] = {{0, 1}, {1, 3}, {2, 4}, {1, 4}, {3, 5}, {4, 5}, {5, 6}};
    static const nspec bert[] = {
        {SC_KIND_KERNEL, 0, "embed"},
        {SC_KIND_KERNEL, 0, "attention"},
        {SC_KIND_KERNEL, 2, "ffn"},
    };
    static const uint32_t bert_edges[][2] = {{0, 1}, {1, 2}};
    *g1 = make_graph(fwd, 7, fwd_edges, 7);
    *g2 = make_graph(bert, 3, bert_edges, 2);

    int64_t s1 = fx_log_open(f, 1000, 4242, "resnet50 fwd", T0);
    int64_t s2 = fx_log_open(f, 1000, 4243, "resnet50 fwd", T0 + 40884);
    fx_log_end(f, s2, "failed", 3, T0 + 41188);
    assert_int_equal(commit_as(f, s1, *g1, 1000, 4242, "resnet50 fwd", T0 + 357), 1);
    reopen_as(f, "gpu-b");
    int64_t s3 = fx_log_open(f, 1001, 5120, "bert step", T0 + 108877);
    assert_int_equal(commit_as(f, s3, *g2, 1001, 5120, "bert step", T0 + 111127), 2);
    int64_t s4 = fx_log_open(f, 1001, 5121, "bert step", T0 + 159377);
    fx_log_end(f, s4, "failed", 0, T0 + 159379);
    reopen_as(f, "gpu-a");
    int64_t s5 = fx_log_open(f, 1000, 4300, "scratch", T0 + 200000);
    fail_capture(f, s5, 1, 1, "cudaLaunchKernel", T0 + 200500);
    fail_capture(f, s5, 2, 3, NULL, T0 + 201000);
    fx_log_end(f, s5, "closed", 2, T0 + 201500);
    assert_int_equal(fx_log_open(f, 1002, 6001, "live", T0 + 300000), 6);
}

/* Lines without their trailing blanks (the shell pads columns). */
static char *strip_trailing(const char *s)
{
    char *out = malloc(strlen(s) + 1);
    assert_non_null(out);
    size_t n = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '\n')
            while (n > 0 && out[n - 1] == ' ')
                n--;
        out[n++] = *p;
    }
    out[n] = '\0';
    return out;
}

static void test_doc_outputs(void **state)
{
    fx *f = *state;
    doc d;
    doc_load(&d);
    f->host = "gpu-a";
    fx_open(f, 1000, 0);
    sc_graph *g1, *g2;
    fill_example(f, &g1, &g2);

    int mismatches = 0;
    for (int q = 1; q < N_BLOCKS; q++) {
        char *script = fmt("%s%s", doc_sql(&d, 0), doc_sql(&d, q));
        char *raw = run_shell(f, script);
        char *got = strip_trailing(raw);
        char *want = strip_trailing(d.blocks[d.out[q]].text);
        if (strcmp(got, want) != 0) {
            print_error("docs/sql.md query %d prints:\n%s--- the document shows:\n%s", q, got,
                        want);
            mismatches++;
        }
        free(script);
        free(raw);
        free(got);
        free(want);
    }
    assert_int_equal(mismatches, 0);
    sc_graph_destroy(g1);
    sc_graph_destroy(g2);
    doc_free(&d);
}

/* ---- the queries against the graphs themselves ---- */

static uint32_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(*s >> 33);
}

/* n nodes on `streams` streams, each stream a chain, plus cross-stream
 * waits from random earlier nodes. */
static sc_graph *random_dag(uint32_t n, uint32_t streams, uint64_t seed)
{
    sc_graph *g = NULL;
    assert_int_equal(sc_graph_create(&g), 0);
    uint32_t last[16];
    assert_true(streams <= 16);
    for (uint32_t s = 0; s < streams; s++)
        last[s] = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        char name[24];
        snprintf(name, sizeof name, "op%u", i);
        uint32_t s = lcg(&seed) % streams;
        sc_node node = {.kind = (sc_node_kind)(lcg(&seed) % 4),
                        .stream = s,
                        .name = name,
                        .name_len = strlen(name),
                        .size_bytes = 8};
        uint32_t id;
        assert_int_equal(sc_graph_add_node(g, &node, &id), 0);
        if (last[s] != UINT32_MAX)
            assert_int_equal(sc_graph_add_edge(g, last[s], id), 0);
        last[s] = id;
        if (i > 0 && lcg(&seed) % 5 == 0)
            assert_int_equal(sc_graph_add_edge(g, lcg(&seed) % i, id), 0);
    }
    assert_int_equal(sc_graph_seal(g), 0);
    return g;
}

typedef struct stored {
    int64_t id;
    sc_graph *g;
    const char *label;
    uint32_t uid;
    const char *host;
} stored;

static void check_graph_list(fx *f, const doc *d, const stored *gs, size_t n)
{
    char *script = fmt(LIST_MODE "%s", doc_sql(d, Q_GRAPHS));
    char *out = run_shell(f, script);
    char *lines[64];
    assert_int_equal(split_lines(out, lines, 64), n);
    for (size_t i = 0; i < n; i++) {
        const stored *s = &gs[n - 1 - i]; /* newest first */
        char label[64];
        assert_int_equal(field_int(lines[i], 0), s->id);
        field_text(lines[i], 1, label, sizeof label);
        assert_string_equal(label, s->label);
        assert_int_equal(field_int(lines[i], 3), s->uid);
        assert_int_equal(field_int(lines[i], 4), sc_graph_node_count(s->g));
        assert_int_equal(field_int(lines[i], 5), (int64_t)sc_graph_edge_count(s->g));
        char host[64];
        field_text(lines[i], 6, host, sizeof host);
        assert_string_equal(host, s->host);
    }
    free(out);
    free(script);
}

static void check_kinds(fx *f, const doc *d, const stored *s)
{
    int64_t want[4] = {0};
    for (uint32_t id = 0; id < sc_graph_node_count(s->g); id++) {
        sc_node node;
        assert_int_equal(sc_graph_node(s->g, id, &node), 0);
        want[node.kind]++;
    }
    char *script =
        fmt(LIST_MODE ".param set :graph %lld\n%s", (long long)s->id, doc_sql(d, Q_KINDS));
    char *out = run_shell(f, script);
    char *lines[8];
    size_t n = split_lines(out, lines, 8);
    int64_t got[4] = {0}, total = 0;
    for (size_t i = 0; i < n; i++) {
        char kind[32];
        field_text(lines[i], 0, kind, sizeof kind);
        sc_node_kind k;
        assert_int_equal(sc_node_kind_parse(kind, strlen(kind), &k), 0);
        assert_int_equal(got[k], 0);
        got[k] = field_int(lines[i], 1);
        total += got[k];
    }
    assert_memory_equal(got, want, sizeof want);
    assert_int_equal(total, sc_graph_node_count(s->g));
    free(out);
    free(script);
}

static void check_edges(fx *f, const doc *d, const stored *s)
{
    char *script =
        fmt(LIST_MODE ".param set :graph %lld\n%s", (long long)s->id, doc_sql(d, Q_EDGES));
    char *out = run_shell(f, script);
    uint64_t ne = sc_graph_edge_count(s->g);
    char **lines = malloc((ne + 1) * sizeof *lines);
    assert_non_null(lines);
    assert_int_equal(split_lines(out, lines, ne + 1), ne);
    for (uint64_t i = 0; i < ne; i++) {
        uint32_t src, dst;
        assert_int_equal(sc_graph_edge(s->g, i, &src, &dst), 0);
        assert_int_equal(field_int(lines[i], 0), src);
        assert_int_equal(field_int(lines[i], 2), dst);
        char name[32];
        sc_node node;
        field_text(lines[i], 3, name, sizeof name);
        assert_int_equal(sc_graph_node(s->g, dst, &node), 0);
        assert_int_equal(strlen(name), node.name_len);
        assert_memory_equal(name, node.name, node.name_len);
    }
    free(lines);
    free(out);
    free(script);
}

/* `pairs` (from, to) of graph s through the document's CTE, in one shell
 * run, against breadth-first search; returns how many were reachable. */
static int check_reach(fx *f, const doc *d, const stored *s, const uint32_t (*pairs)[2], size_t n)
{
    char *script = fmt(LIST_MODE ".param set :graph %lld\n", (long long)s->id);
    size_t len = strlen(script);
    for (size_t i = 0; i < n; i++) {
        char *one = fmt(".param set :from %u\n.param set :to %u\n%s", pairs[i][0], pairs[i][1],
                        doc_sql(d, Q_REACH));
        append(&script, &len, one, strlen(one));
        free(one);
    }
    char *out = run_shell(f, script);
    char **lines = malloc((n + 1) * sizeof *lines);
    assert_non_null(lines);
    assert_int_equal(split_lines(out, lines, n + 1), n);
    int reachable = 0;
    for (size_t i = 0; i < n; i++) {
        bool want;
        assert_int_equal(sc_graph_reachable_bfs(s->g, pairs[i][0], pairs[i][1], &want), 0);
        if (strcmp(lines[i], want ? "1" : "0") != 0)
            fail_msg("graph %lld: %u -> %u printed %s, want %d", (long long)s->id, pairs[i][0],
                     pairs[i][1], lines[i], want);
        reachable += want;
    }
    free(lines);
    free(out);
    free(script);
    return reachable;
}

/* The unordered pairs of graph s through the document's query, in
 * order, against breadth-first search over every pair. */
static void check_unordered(fx *f, const doc *d, const stored *s)
{
    char *script =
        fmt(LIST_MODE ".param set :graph %lld\n%s", (long long)s->id, doc_sql(d, Q_UNORDERED));
    char *out = run_shell(f, script);
    uint32_t n = sc_graph_node_count(s->g);
    size_t want = 0, cap = (size_t)n * n / 2 + 1;
    char **lines = malloc(cap * sizeof *lines);
    assert_non_null(lines);
    size_t got = split_lines(out, lines, cap);
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = a + 1; b < n; b++) {
            bool yes;
            assert_int_equal(sc_graph_reachable_bfs(s->g, a, b, &yes), 0);
            if (yes)
                continue;
            assert_true(want < got);
            assert_int_equal(field_int(lines[want], 0), a);
            assert_int_equal(field_int(lines[want], 2), b);
            want++;
        }
    assert_int_equal(got, want);
    assert_true(want > 0);
    free(lines);
    free(out);
    free(script);
}

static void test_doc_queries_against_graphs(void **state)
{
    fx *f = *state;
    doc d;
    doc_load(&d);
    f->host = "ci-1";
    fx_open(f, 1000, 0);

    /* Three graphs share the tables, so a query that forgot its graph
     * filter would count or reach through the others. */
    stored gs[3] = {
        {.g = random_dag(400, 5, 7), .label = "random a", .uid = 1000, .host = "ci-1"},
        {.g = random_dag(120, 3, 99), .label = "random b", .uid = 1001, .host = "ci-1"},
        {.g = random_dag(400, 4, 12345), .label = "random c", .uid = 1000, .host = "ci-1"},
    };
    int64_t failed[6];
    size_t nfailed = 0;
    for (int i = 0; i < 3; i++) {
        int64_t s = fx_log_open(f, gs[i].uid, 10 + i, gs[i].label, T0 + i * 1000);
        gs[i].id = commit_as(f, s, gs[i].g, gs[i].uid, 10 + i, gs[i].label, T0 + i * 1000 + 5);
        /* Failed sessions, two of them opened at the same instant. */
        int64_t a = fx_log_open(f, 2000, 20 + i, "bad", T0 + 500 * (i / 2));
        fx_log_end(f, a, "failed", (uint32_t)i, T0 + 9000);
        failed[nfailed++] = a;
        int64_t c = fx_log_open(f, 2000, 30 + i, "ok", T0 + 600);
        fx_log_end(f, c, i == 1 ? "abandoned" : "closed", 0, T0 + 9000);
    }
    /* A second host's sessions, one of them still open. */
    reopen_as(f, "ci-2");
    int64_t other = fx_log_open(f, 2002, 50, "other host", T0 + 650);
    fx_log_end(f, other, "closed", 0, T0 + 9000);
    fx_log_open(f, 2001, 40, "still open", T0 + 700);

    check_graph_list(f, &d, gs, 3);
    for (int i = 0; i < 3; i++) {
        check_kinds(f, &d, &gs[i]);
        check_edges(f, &d, &gs[i]);
    }

    /* Failed sessions, newest first (ties by session id, descending). */
    char *script = fmt(LIST_MODE "%s", doc_sql(&d, Q_FAILED));
    char *out = run_shell(f, script);
    char *lines[16];
    assert_int_equal(split_lines(out, lines, 16), nfailed);
    static const int order[] = {2, 1, 0}; /* opened T0+500, T0+0 (session 1 > 0) */
    for (size_t i = 0; i < nfailed; i++) {
        assert_int_equal(field_int(lines[i], 0), failed[order[i]]);
        assert_int_equal(field_int(lines[i], 6), order[i]);
        char host[16];
        field_text(lines[i], 7, host, sizeof host);
        assert_string_equal(host, "ci-1");
    }
    free(out);
    free(script);

    /* Sessions by host and outcome. */
    script = fmt(LIST_MODE "%s", doc_sql(&d, Q_HOSTS));
    out = run_shell(f, script);
    assert_string_equal(out, "ci-1|abandoned|1\n"
                             "ci-1|closed|2\n"
                             "ci-1|completed|3\n"
                             "ci-1|failed|3\n"
                             "ci-2|closed|1\n"
                             "ci-2|open|1\n");
    free(out);
    free(script);

    /* Reachability: sampled pairs of each graph, both directions, plus
     * every node against itself and the pairs of adjacent ids. */
    uint64_t seed = 2024;
    for (int i = 0; i < 3; i++) {
        uint32_t n = sc_graph_node_count(gs[i].g);
        enum { SAMPLES = 300 };
        uint32_t pairs[SAMPLES + 2][2];
        for (int k = 0; k < SAMPLES; k++) {
            uint32_t a = lcg(&seed) % n, b = lcg(&seed) % n;
            pairs[k][0] = k % 2 ? a : b;
            pairs[k][1] = k % 2 ? b : a;
        }
        pairs[SAMPLES][0] = pairs[SAMPLES][1] = n - 1;
        pairs[SAMPLES + 1][0] = 0;
        pairs[SAMPLES + 1][1] = n - 1;
        int reachable = check_reach(f, &d, &gs[i], pairs, SAMPLES + 2);
        /* Neither trivially all nor nothing. */
        assert_true(reachable > 20 && reachable < SAMPLES);
    }

    /* Unordered pairs on the smallest graph (the closure grows as n^2). */
    check_unordered(f, &d, &gs[1]);

    /* Nodes and edges are views of node_chunks (schema/007_node_chunks_rowid.sql):
     * each query reads the runs of its graph alone, by key, once, and
     * joins on node ids through an automatic index, not a scan per row. */
    fx_sql *conn = fx_db(f);
    sqlite3 *db = conn->lite;
    static const struct {
        int q;
        const char *step;
    } plans[] = {
        {Q_KINDS, "SEARCH c USING INDEX node_chunks_by_graph (graph=?)"},
        {Q_EDGES, "SEARCH c USING INDEX node_chunks_by_graph (graph=?)"},
        {Q_EDGES, "SEARCH s USING AUTOMATIC PARTIAL COVERING INDEX (graph=? AND id=?)"},
        {Q_EDGES, "SEARCH d USING AUTOMATIC PARTIAL COVERING INDEX (graph=? AND id=?)"},
        {Q_FAILED, "capture_log_by_outcome (outcome=?)"},
        {Q_REACH, "SEARCH c USING INDEX node_chunks_by_graph (graph=?)"},
        {Q_REACH, "SEARCH e USING AUTOMATIC PARTIAL COVERING INDEX (graph=? AND src=?)"},
    };
    for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
        char *explain = fmt("EXPLAIN QUERY PLAN %s", doc_sql(&d, plans[i].q));
        sqlite3_stmt *s;
        if (sqlite3_prepare_v2(db, explain, -1, &s, NULL) != SQLITE_OK)
            fail_msg("%s: %s", explain, sqlite3_errmsg(db));
        bool found = false;
        while (sqlite3_step(s) == SQLITE_ROW)
            found |= strstr((const char *)sqlite3_column_text(s, 3), plans[i].step) != NULL;
        sqlite3_finalize(s);
        if (!found)
            fail_msg("query %d does not use \"%s\"", plans[i].q, plans[i].step);
        free(explain);
    }
    fx_db_close(conn);

    for (int i = 0; i < 3; i++)
        sc_graph_destroy(gs[i].g);
    doc_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_doc_outputs, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_doc_queries_against_graphs, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
