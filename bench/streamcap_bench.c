/*
 * streamcap_bench.c - load generator for streamcapd (and for Redis, as the
 * baseline of the same client).
 *
 * A few threads each drive many non-blocking connections from one epoll
 * loop, so the client costs a couple of syscalls per batch of replies and
 * does not become the bottleneck.  Every connection keeps up to P requests
 * in flight.  Against streamcapd a connection opens a session, begins its
 * streams, records ops from the mix and ends the session every
 * --session-ops requests (capture.end, or session.close when the mix has
 * no `end`), then opens the next one; --session-spread varies the length
 * of each session around that mean.  Against Redis (--redis) every
 * request is a plain RESP `SET key value`.
 *
 * Replies come back in request order, so each connection keeps a ring of
 * its in-flight requests (id, send time, kind); latency is reply time
 * minus send time, recorded in a log-bucketed histogram.  Requests sent
 * during warm-up, or answered after the measuring window, are not counted.
 * Any error reply the run did not expect makes the exit status 1.
 *
 * Other modes: --build-graph stores one big graph and times capture.end;
 * --hold-nodes keeps sessions with N nodes alive and --idle keeps N idle
 * connections alive until SIGTERM (for memory figures).
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "sc_buf.h"
#include "sc_frame.h"
#include "sc_hist.h"
#include "sc_methods.h"
#include "sc_workload.h"

/* --------------------------------------------------------------- config */

/* Request kinds, for counts per kind and for what a reply carries. */
enum req_kind {
    RK_OPEN,
    RK_BEGIN,
    RK_RECORD,
    RK_EVENT,
    RK_END,
    RK_CLOSE,
    RK_REACH,
    RK_NOTCAP,
    RK_INFO,
    RK_SET,
    RK__COUNT
};
static const char *const kind_names[RK__COUNT] = {"open",  "begin", "record", "event", "end",
                                                  "close", "reach", "notcap", "info",  "set"};

#define MAX_ALLOWED_ERRORS 8

typedef struct bench_cfg {
    const char *socket_path;
    const char *redis_path;
    unsigned conns;
    unsigned pipeline;
    unsigned threads;
    double duration_s;
    uint64_t ops; /* 0: run for duration_s */
    double warmup_s;
    sc_wl_mix mix;
    bool mix_end; /* sessions end with capture.end (else session.close) */
    /* --semantics cuda: cuda-mode sessions capturing on origin stream 1
     * (stream 0 is CUDA's legacy stream); they end with session.close,
     * since a cuda session outlives its captures. */
    bool cuda;
    const char *mix_text;
    uint32_t streams;
    uint64_t session_ops;
    unsigned session_spread; /* percent of session_ops either side */
    uint64_t graph;
    uint32_t graph_nodes;
    uint32_t pairs;
    int allowed[MAX_ALLOWED_ERRORS];
    unsigned n_allowed;
    uint64_t seed;
    const char *label;
    uint64_t build_graph; /* nodes; 0: not this mode */
    uint64_t hold_nodes;
    unsigned idle;
    const char *ready_file;
    bool json;
    size_t max_line;
} bench_cfg;

/* ---------------------------------------------------------------- utils */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("streamcap-bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

/* ------------------------------------------------------------ connection */

typedef struct inflight {
    uint64_t id;
    uint64_t t_send;
    uint8_t kind;
    bool measured;
} inflight;

enum conn_state {
    CS_RUN,      /* issuing requests */
    CS_STOPPING, /* no new requests; waiting for in-flight replies */
    CS_CLOSING,  /* session.close of the last session sent */
    CS_DONE,
};

struct worker;

typedef struct conn {
    int fd;
    unsigned index;
    struct worker *w;
    int state;
    sc_buf out;
    size_t out_off;
    bool want_out; /* EPOLLOUT registered */
    sc_framer in;
    inflight *ring;
    unsigned ring_cap, ring_head, ring_count;
    uint64_t next_id;
    /* session */
    bool has_session, opening;
    uint64_t session;
    uint32_t begun;
    uint64_t session_ops;
    uint64_t session_len;  /* requests in the current session before it ends */
    uint64_t records_left; /* hold and build modes: record ops still to send */
    sc_wl gen;
    /* stored graph used by reach ops */
    uint64_t graph;
    uint32_t graph_nodes;
    uint64_t pair_rng;
    uint64_t len_rng; /* session lengths under --session-spread */
    uint64_t key_seq;
    uint64_t end_node_count, end_edge_count;
} conn;

typedef struct worker_stats {
    sc_hist hist;
    sc_hist kind_hist[RK__COUNT];
    uint64_t ops;
    uint64_t errors;          /* unexpected error replies and failures */
    uint64_t expected_errors; /* replies with an --allow-error code */
    uint64_t pairs;           /* reachability pairs answered (measured) */
    uint64_t last_reply;      /* time of the last measured reply */
    /* Sessions ended (or closed) by the run, and their requests. */
    uint64_t sessions, session_min, session_max;
} worker_stats;

typedef struct run_shared {
    const bench_cfg *cfg;
    uint64_t t_start, t_warm, t_end; /* t_end UINT64_MAX in -n mode */
    atomic_llong ops_left;           /* -n mode: measured requests still to send */
    atomic_uint error_lines;         /* error messages printed so far */
    bool keep_sessions;              /* hold/build: leave sessions open */
    bool uses_sessions;
} run_shared;

typedef struct worker {
    run_shared *sh;
    conn *conns;
    unsigned nconns;
    int ep;
    uint64_t now;
    unsigned live;
    worker_stats st;
    pthread_t thread;
} worker;

static void report_error(worker *w, conn *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void report_error(worker *w, conn *c, const char *fmt, ...)
{
    w->st.errors++;
    if (atomic_fetch_add(&w->sh->error_lines, 1) >= 10)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "streamcap-bench: connection %u: ", c->index);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static int connect_unix(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof(sa.sun_path))
        die("socket path too long: %s", path);
    strcpy(sa.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        die("socket: %s", strerror(errno));
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
        die("cannot connect to %s: %s", path, strerror(errno));
    return fd;
}

static void set_nonblocking(int fd, bool on)
{
    int fl = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

static void conn_init(conn *c, const bench_cfg *cfg, unsigned index, int fd)
{
    memset(c, 0, sizeof(*c));
    c->fd = fd;
    c->index = index;
    sc_buf_init(&c->out);
    if (sc_framer_init(&c->in, cfg->max_line) != 0)
        die("out of memory");
    c->ring_cap = cfg->pipeline + 4;
    c->ring = calloc(c->ring_cap, sizeof(*c->ring));
    if (!c->ring)
        die("out of memory");
    c->next_id = 1;
    c->session_len = cfg->session_ops;
    c->records_left = UINT64_MAX;
    c->graph = cfg->graph;
    c->graph_nodes = cfg->graph_nodes;
    c->pair_rng = cfg->seed * 0x9E3779B97F4A7C15ULL + index + 1;
    c->len_rng = cfg->seed * 0xD1B54A32D192ED03ULL + index + 1;
    uint64_t seed = cfg->seed + (uint64_t)index * 7919;
    if (cfg->build_graph || cfg->hold_nodes)
        sc_wl_init_graph(&c->gen, seed, cfg->streams, cfg->build_graph ? 64 : 0);
    else
        sc_wl_init_mix(&c->gen, seed, cfg->streams, &cfg->mix);
}

static void conn_free(conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    sc_buf_free(&c->out);
    sc_framer_free(&c->in);
    free(c->ring);
}

/* ------------------------------------------------------------- requests */

static void req_head(sc_buf *b, uint64_t id, sc_method_id m)
{
    sc_buf_puts(b, "{\"jsonrpc\":\"2.0\",\"id\":");
    sc_json_u64(b, id);
    sc_buf_puts(b, ",\"method\":\"");
    sc_buf_puts(b, sc_methods[m].name);
    sc_buf_puts(b, "\",\"params\":{");
}

static void req_u64(sc_buf *b, const char *key, uint64_t v, bool comma)
{
    if (comma)
        sc_buf_putc(b, ',');
    sc_buf_putc(b, '"');
    sc_buf_puts(b, key);
    sc_buf_puts(b, "\":");
    sc_json_u64(b, v);
}

static void req_str(sc_buf *b, const char *key, const char *v)
{
    sc_buf_puts(b, ",\"");
    sc_buf_puts(b, key);
    sc_buf_puts(b, "\":");
    sc_json_cstr(b, v);
}

static void req_tail(sc_buf *b)
{
    sc_buf_puts(b, "}}\n");
}

static void write_record(sc_buf *b, uint64_t id, uint64_t session, const sc_wl_op *op)
{
    switch (op->kind) {
    case SC_WL_KERNEL:
    case SC_WL_NOTCAP:
        req_head(b, id, SC_M_CAPTURE_RECORD_KERNEL);
        req_u64(b, "session", session, false);
        req_u64(b, "stream", op->stream, true);
        req_str(b, "function_name", op->name);
        req_u64(b, "num_blocks", op->num_blocks, true);
        req_u64(b, "threads_per_block", op->threads_per_block, true);
        if (op->shared_mem)
            req_u64(b, "shared_mem", op->shared_mem, true);
        break;
    case SC_WL_MEMCPY:
        req_head(b, id, SC_M_CAPTURE_RECORD_MEMCPY);
        req_u64(b, "session", session, false);
        req_u64(b, "stream", op->stream, true);
        req_str(b, "name", op->name);
        req_str(b, "dir", op->dir);
        req_u64(b, "size_bytes", op->size_bytes, true);
        if (op->p2p) {
            req_u64(b, "src_device", op->src_device, true);
            req_u64(b, "dst_device", op->dst_device, true);
        }
        break;
    case SC_WL_MEMSET:
        req_head(b, id, SC_M_CAPTURE_RECORD_MEMSET);
        req_u64(b, "session", session, false);
        req_u64(b, "stream", op->stream, true);
        req_str(b, "name", op->name);
        req_u64(b, "size_bytes", op->size_bytes, true);
        req_u64(b, "value", op->value, true);
        break;
    case SC_WL_HOST:
        req_head(b, id, SC_M_CAPTURE_RECORD_HOST_CALLBACK);
        req_u64(b, "session", session, false);
        req_u64(b, "stream", op->stream, true);
        req_str(b, "label", op->name);
        break;
    case SC_WL_RECORD_EVENT:
    case SC_WL_WAIT_EVENT:
        req_head(b, id,
                 op->kind == SC_WL_RECORD_EVENT ? SC_M_CAPTURE_RECORD_EVENT
                                                : SC_M_CAPTURE_WAIT_EVENT);
        req_u64(b, "session", session, false);
        req_u64(b, "stream", op->stream, true);
        req_u64(b, "event", op->event, true);
        break;
    default:
        return;
    }
    req_tail(b);
}

static void write_session_call(sc_buf *b, uint64_t id, sc_method_id m, uint64_t session,
                               uint32_t stream, bool with_stream)
{
    req_head(b, id, m);
    req_u64(b, "session", session, false);
    if (with_stream)
        req_u64(b, "stream", stream, true);
    req_tail(b);
}

static void write_open(sc_buf *b, uint64_t id, const char *label, bool cuda)
{
    req_head(b, id, SC_M_SESSION_OPEN);
    sc_buf_puts(b, "\"label\":");
    sc_json_cstr(b, label);
    if (cuda)
        sc_buf_puts(b, ",\"semantics\":\"cuda\"");
    req_tail(b);
}

static void write_reach(sc_buf *b, uint64_t id, conn *c, uint32_t pairs)
{
    req_head(b, id, SC_M_GRAPH_REACHABLE);
    req_u64(b, "graph", c->graph, false);
    uint32_t x, y;
    if (pairs <= 1) {
        sc_wl_pair(&c->pair_rng, c->graph_nodes, &x, &y);
        req_u64(b, "from", x, true);
        req_u64(b, "to", y, true);
    } else {
        sc_buf_puts(b, ",\"pairs\":[");
        for (uint32_t i = 0; i < pairs; i++) {
            sc_wl_pair(&c->pair_rng, c->graph_nodes, &x, &y);
            sc_buf_puts(b, i ? ",[" : "[");
            sc_json_u64(b, x);
            sc_buf_putc(b, ',');
            sc_json_u64(b, y);
            sc_buf_putc(b, ']');
        }
        sc_buf_putc(b, ']');
    }
    req_tail(b);
}

/* RESP SET with a key from a fixed key space, value "xxx" (redis-benchmark's
 * default 3-byte value). */
static void write_set(sc_buf *b, conn *c)
{
    static const char head[] = "*3\r\n$3\r\nSET\r\n$16\r\nkey:000000000000\r\n$3\r\nxxx\r\n";
    uint64_t k = (c->index * 1000003ull + c->key_seq++) % 100000;
    size_t at = b->len;
    sc_buf_append(b, head, sizeof head - 1);
    if (sc_buf_failed(b))
        return;
    /* The key's twelve digits end just before the \r\n that follows it. */
    char *digit = b->data + at + 18 + 16 - 1;
    for (int i = 0; i < 12; i++, k /= 10)
        *digit-- = (char)('0' + k % 10);
}

/* ------------------------------------------------------------ the engine */

static bool op_is_node(sc_wl_kind k)
{
    return sc_wl_is_record(k) && k != SC_WL_NOTCAP;
}

/* Queue one request: buffer it, remember it in the ring. */
static void push(worker *w, conn *c, uint8_t kind, uint64_t id, bool measured)
{
    inflight *e = &c->ring[(c->ring_head + c->ring_count) % c->ring_cap];
    e->id = id;
    e->t_send = w->now;
    e->kind = kind;
    e->measured = measured;
    c->ring_count++;
}

/* May a counted request go out now?  Also decides whether it is measured. */
static bool may_send(worker *w, bool *measured)
{
    run_shared *sh = w->sh;
    *measured = w->now >= sh->t_warm;
    if (w->now >= sh->t_end)
        return false;
    if (sh->cfg->ops && *measured)
        return atomic_fetch_sub(&sh->ops_left, 1) > 0;
    return true;
}

static void stop_conn(conn *c)
{
    if (c->state == CS_RUN)
        c->state = CS_STOPPING;
}

/* Requests in the next session: --session-ops, or with --session-spread S
 * drawn uniformly from session_ops -+ S%. */
static uint64_t next_session_len(const bench_cfg *cfg, conn *c)
{
    uint64_t n = cfg->session_ops;
    /* Sessions that never end (record-path runs) are left alone. */
    if (cfg->session_spread == 0 || n > ((uint64_t)1 << 48))
        return n;
    uint64_t d = n * cfg->session_spread / 100;
    uint64_t lo = n - d > 0 ? n - d : 1;
    return lo + sc_wl_rand(&c->len_rng) % (n + d - lo + 1);
}

static void count_session(worker_stats *st, uint64_t requests)
{
    if (st->sessions++ == 0 || requests < st->session_min)
        st->session_min = requests;
    if (requests > st->session_max)
        st->session_max = requests;
}

/* Next request for a session-driving connection; false when none can go. */
static bool next_session_request(worker *w, conn *c, bool measured)
{
    const bench_cfg *cfg = w->sh->cfg;
    uint64_t id = c->next_id++;
    if (!c->has_session) {
        write_open(&c->out, id, cfg->label, cfg->cuda);
        push(w, c, RK_OPEN, id, measured);
        c->opening = true;
        return true;
    }
    if (c->begun < cfg->streams) {
        write_session_call(&c->out, id, SC_M_CAPTURE_BEGIN, c->session,
                           c->begun++ + (cfg->cuda ? 1 : 0), true);
        push(w, c, RK_BEGIN, id, measured);
        return true;
    }
    if (c->session_ops >= c->session_len) {
        bool end = cfg->mix_end && !cfg->cuda;
        write_session_call(&c->out, id, end ? SC_M_CAPTURE_END : SC_M_SESSION_CLOSE, c->session, 0,
                           end);
        push(w, c, end ? RK_END : RK_CLOSE, id, measured);
        c->has_session = false;
        count_session(&w->st, c->session_ops);
        c->session_len = next_session_len(cfg, c);
        return true;
    }
    sc_wl_op op;
    sc_wl_next(&c->gen, &op);
    c->session_ops++;
    if (op.kind == SC_WL_REACH) {
        if (c->graph) {
            write_reach(&c->out, id, c, cfg->pairs);
            push(w, c, RK_REACH, id, measured);
            return true;
        }
        /* No graph stored yet: record a kernel instead. */
        op.kind = SC_WL_KERNEL;
        op.name = "gemm";
        op.num_blocks = 1;
        op.threads_per_block = 32;
    }
    if (cfg->cuda)
        op.stream += 1;
    write_record(&c->out, id, c->session, &op);
    uint8_t kind = op.kind == SC_WL_NOTCAP                                        ? RK_NOTCAP
                   : op.kind == SC_WL_RECORD_EVENT || op.kind == SC_WL_WAIT_EVENT ? RK_EVENT
                                                                                  : RK_RECORD;
    push(w, c, kind, id, measured);
    if (op_is_node(op.kind) && c->records_left != UINT64_MAX)
        c->records_left--;
    return true;
}

/* Fill the pipeline up to depth P. */
static void refill(worker *w, conn *c)
{
    const bench_cfg *cfg = w->sh->cfg;
    while (c->state == CS_RUN && c->ring_count < cfg->pipeline) {
        if (c->opening)
            return; /* everything after it needs the session id */
        if (c->records_left == 0 && c->has_session && c->begun == cfg->streams) {
            stop_conn(c);
            break;
        }
        bool measured;
        if (!may_send(w, &measured)) {
            stop_conn(c);
            break;
        }
        if (cfg->redis_path) {
            write_set(&c->out, c);
            push(w, c, RK_SET, c->next_id++, measured);
        } else if (!w->sh->uses_sessions) {
            uint64_t id = c->next_id++;
            write_reach(&c->out, id, c, cfg->pairs);
            push(w, c, RK_REACH, id, measured);
        } else {
            next_session_request(w, c, measured);
        }
    }
    if (c->state == CS_STOPPING && c->ring_count == 0) {
        if (c->has_session && !w->sh->keep_sessions) {
            uint64_t id = c->next_id++;
            write_session_call(&c->out, id, SC_M_SESSION_CLOSE, c->session, 0, false);
            push(w, c, RK_CLOSE, id, false);
            c->has_session = false;
            c->state = CS_CLOSING;
        } else {
            c->state = CS_DONE;
            w->live--;
        }
    }
}

static void set_events(worker *w, conn *c, bool want_out)
{
    if (c->want_out == want_out)
        return;
    struct epoll_event ev = {.events = EPOLLIN | (want_out ? EPOLLOUT : 0), .data.ptr = c};
    epoll_ctl(w->ep, EPOLL_CTL_MOD, c->fd, &ev);
    c->want_out = want_out;
}

static int flush(worker *w, conn *c)
{
    while (c->out_off < c->out.len) {
        ssize_t n = write(c->fd, c->out.data + c->out_off, c->out.len - c->out_off);
        if (n > 0) {
            c->out_off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            set_events(w, c, true);
            return 0;
        }
        return -1;
    }
    sc_buf_reset(&c->out);
    c->out_off = 0;
    set_events(w, c, false);
    return 0;
}

static void conn_fail(worker *w, conn *c)
{
    if (c->state != CS_DONE)
        w->live--;
    c->state = CS_DONE;
    epoll_ctl(w->ep, EPOLL_CTL_DEL, c->fd, NULL);
}

/* ---------------------------------------------------------------- replies */

typedef struct reply {
    bool ok;
    int code;           /* error code when !ok */
    uint64_t id;        /* 0 when not readable */
    cJSON *root;        /* full parse, when one was needed */
    const char *result; /* fast path: text after "result": */
    size_t result_len;
} reply;

/* The daemon writes results as {"jsonrpc":"2.0","id":N,"result":...}; take
 * that shape without a parse, and parse anything else with cJSON. */
static int parse_reply(const char *line, size_t len, bool need_tree, reply *r)
{
    static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":";
    memset(r, 0, sizeof(*r));
    size_t hl = sizeof(head) - 1;
    if (!need_tree && len > hl && memcmp(line, head, hl) == 0) {
        size_t i = hl;
        uint64_t id = 0;
        while (i < len && line[i] >= '0' && line[i] <= '9')
            id = id * 10 + (uint64_t)(line[i++] - '0');
        static const char res[] = ",\"result\":";
        size_t rl = sizeof(res) - 1;
        if (i > hl && len - i > rl && memcmp(line + i, res, rl) == 0) {
            r->ok = true;
            r->id = id;
            r->result = line + i + rl;
            r->result_len = len - i - rl;
            return 0;
        }
    }
    r->root = cJSON_ParseWithLength(line, len);
    if (!cJSON_IsObject(r->root))
        return -1;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(r->root, "id");
    if (cJSON_IsNumber(id) && id->valuedouble >= 1)
        r->id = (uint64_t)id->valuedouble;
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(r->root, "error");
    if (err) {
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(err, "code");
        r->code = cJSON_IsNumber(code) ? code->valueint : 0;
        return 0;
    }
    if (!cJSON_GetObjectItemCaseSensitive(r->root, "result"))
        return -1;
    r->ok = true;
    return 0;
}

static uint64_t result_u64(const reply *r, const char *key)
{
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(r->root, "result");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(res, key);
    return cJSON_IsNumber(v) && v->valuedouble >= 0 ? (uint64_t)v->valuedouble : 0;
}

static bool error_allowed(const bench_cfg *cfg, int code)
{
    for (unsigned i = 0; i < cfg->n_allowed; i++)
        if (cfg->allowed[i] == code)
            return true;
    return false;
}

/* Entries in a {"reachable":[...]} result: commas plus one. */
static uint64_t count_bools(const char *s, size_t len)
{
    const char *open = memchr(s, '[', len);
    if (!open)
        return 0;
    uint64_t n = 1;
    const char *end = s + len;
    for (const char *p = open + 1; p < end; p++) {
        p = memchr(p, ',', (size_t)(end - p));
        if (!p)
            break;
        n++;
    }
    return n;
}

static void handle_reply(worker *w, conn *c, const inflight *e, const char *line, size_t len)
{
    const bench_cfg *cfg = w->sh->cfg;
    if (e->kind == RK_SET) {
        if (len && line[0] == '+')
            return;
        report_error(w, c, "redis replied: %.*s", (int)(len > 200 ? 200 : len), line);
        return;
    }
    bool need_tree = e->kind == RK_OPEN || e->kind == RK_END;
    reply r;
    if (parse_reply(line, len, need_tree, &r) != 0 || r.id != e->id) {
        report_error(w, c, "bad reply to request %" PRIu64 " (%s): %.*s", e->id,
                     kind_names[e->kind], (int)(len > 200 ? 200 : len), line);
        cJSON_Delete(r.root);
        conn_fail(w, c);
        return;
    }
    if (!r.ok) {
        if (error_allowed(cfg, r.code))
            w->st.expected_errors++;
        else
            report_error(w, c, "error reply to %s: %.*s", kind_names[e->kind],
                         (int)(len > 300 ? 300 : len), line);
        if (e->kind == RK_OPEN) {
            c->opening = false;
            stop_conn(c); /* no session: nothing more this connection can do */
        }
        cJSON_Delete(r.root);
        return;
    }
    switch (e->kind) {
    case RK_OPEN:
        c->session = result_u64(&r, "session");
        c->opening = false;
        c->has_session = c->session != 0;
        c->begun = 0;
        c->session_ops = 0;
        if (!c->has_session) {
            report_error(w, c, "session.open reply without a session: %.*s", (int)len, line);
            stop_conn(c);
        }
        break;
    case RK_END:
        c->graph = result_u64(&r, "graph");
        c->end_node_count = result_u64(&r, "node_count");
        c->end_edge_count = result_u64(&r, "edge_count");
        if (!cfg->graph) {
            c->graph_nodes = (uint32_t)c->end_node_count;
            if (c->graph_nodes < 2)
                c->graph = 0; /* no pair a < b to ask about */
        }
        break;
    case RK_REACH:
        if (cfg->pairs > 1) {
            uint64_t n = count_bools(r.result, r.result_len);
            if (n != cfg->pairs)
                report_error(w, c, "graph.reachable answered %" PRIu64 " of %u pairs", n,
                             cfg->pairs);
            else if (e->measured)
                w->st.pairs += n;
        } else if (e->measured) {
            w->st.pairs++;
        }
        break;
    default:
        break;
    }
    cJSON_Delete(r.root);
}

static void on_line(worker *w, conn *c, const char *line, size_t len)
{
    if (c->ring_count == 0) {
        report_error(w, c, "reply with no request in flight: %.*s", (int)(len > 200 ? 200 : len),
                     line);
        conn_fail(w, c);
        return;
    }
    inflight e = c->ring[c->ring_head];
    c->ring_head = (c->ring_head + 1) % c->ring_cap;
    c->ring_count--;
    /* Replies after the window closed are not counted. */
    if (e.measured && w->now <= w->sh->t_end) {
        sc_hist_record(&w->st.hist, w->now - e.t_send);
        sc_hist_record(&w->st.kind_hist[e.kind], w->now - e.t_send);
        w->st.ops++;
        w->st.last_reply = w->now;
    }
    handle_reply(w, c, &e, line, len);
    if (c->state == CS_CLOSING && c->ring_count == 0) {
        c->state = CS_DONE;
        w->live--;
    }
}

static void on_readable(worker *w, conn *c)
{
    char *p;
    size_t avail;
    if (sc_framer_space(&c->in, 64 * 1024, &p, &avail) != 0)
        die("out of memory");
    ssize_t n = read(c->fd, p, avail);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        if (c->state != CS_DONE)
            report_error(w, c, "the server closed the connection (%s)",
                         n < 0 ? strerror(errno) : "end of file");
        conn_fail(w, c);
        return;
    }
    sc_framer_commit(&c->in, (size_t)n);
    const char *line;
    size_t len;
    int st;
    while (c->state != CS_DONE && (st = sc_framer_next(&c->in, &line, &len)) == SC_FRAME_LINE)
        on_line(w, c, line, len);
    if (c->state != CS_DONE && st == SC_FRAME_TOO_LONG) {
        report_error(w, c, "reply longer than %zu bytes", c->in.max_line);
        conn_fail(w, c);
    }
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    run_shared *sh = w->sh;
    w->now = now_ns();
    for (unsigned i = 0; i < w->nconns; i++) {
        conn *c = &w->conns[i];
        c->w = w;
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        epoll_ctl(w->ep, EPOLL_CTL_ADD, c->fd, &ev);
        refill(w, c);
        if (flush(w, c) != 0) {
            report_error(w, c, "write failed: %s", strerror(errno));
            conn_fail(w, c);
        }
    }
    struct epoll_event evs[256];
    bool stopped = false;
    while (w->live > 0) {
        int timeout = 100;
        if (!stopped && sh->t_end != UINT64_MAX) {
            uint64_t left = sh->t_end > w->now ? sh->t_end - w->now : 0;
            timeout = (int)(left / 1000000) + 1;
            if (timeout > 100)
                timeout = 100;
        }
        int n = epoll_wait(w->ep, evs, 256, timeout);
        w->now = now_ns();
        if (n < 0 && errno != EINTR)
            die("epoll_wait: %s", strerror(errno));
        for (int i = 0; i < n; i++) {
            conn *c = evs[i].data.ptr;
            if (c->state == CS_DONE)
                continue;
            if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
                on_readable(w, c);
            if (c->state == CS_DONE)
                continue;
            refill(w, c);
            if (flush(w, c) != 0) {
                report_error(w, c, "write failed: %s", strerror(errno));
                conn_fail(w, c);
            }
        }
        if (!stopped && w->now >= sh->t_end) {
            /* Window over: idle connections must notice too. */
            stopped = true;
            for (unsigned i = 0; i < w->nconns; i++) {
                conn *c = &w->conns[i];
                if (c->state == CS_DONE)
                    continue;
                stop_conn(c);
                refill(w, c);
                if (flush(w, c) != 0)
                    conn_fail(w, c);
            }
        }
    }
    return NULL;
}

/* ---------------------------------------------------------- blocking I/O */

/* One request, one reply, on a connection outside the engine. */
static char *call_blocking(conn *c, const char *req, size_t len, size_t *reply_len)
{
    size_t off = 0;
    while (off < len) {
        ssize_t n = write(c->fd, req + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            die("write: %s", strerror(errno));
        off += (size_t)n;
    }
    for (;;) {
        const char *line;
        size_t ll;
        int st = sc_framer_next(&c->in, &line, &ll);
        if (st == SC_FRAME_LINE) {
            char *copy = malloc(ll + 1);
            if (!copy)
                die("out of memory");
            memcpy(copy, line, ll);
            copy[ll] = '\0';
            *reply_len = ll;
            return copy;
        }
        if (st == SC_FRAME_TOO_LONG)
            die("reply too long");
        char *p;
        size_t avail;
        if (sc_framer_space(&c->in, 64 * 1024, &p, &avail) != 0)
            die("out of memory");
        ssize_t n = read(c->fd, p, avail);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            die("the server closed the connection");
        sc_framer_commit(&c->in, (size_t)n);
    }
}

/* ------------------------------------------------------------------ runs */

typedef struct run_result {
    sc_hist hist;
    sc_hist kind_hist[RK__COUNT];
    uint64_t ops, errors, expected_errors, pairs;
    uint64_t sessions, session_min, session_max;
    double seconds;
} run_result;

static void raise_fd_limit(unsigned want)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= want)
        return;
    rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
    setrlimit(RLIMIT_NOFILE, &rl);
}

static conn *open_conns(const bench_cfg *cfg, unsigned n)
{
    raise_fd_limit(n + 64);
    conn *conns = calloc(n, sizeof(*conns));
    if (!conns)
        die("out of memory");
    const char *path = cfg->redis_path ? cfg->redis_path : cfg->socket_path;
    for (unsigned i = 0; i < n; i++)
        conn_init(&conns[i], cfg, i, connect_unix(path));
    return conns;
}

static void run_engine(const bench_cfg *cfg, conn *conns, unsigned n, run_shared *sh,
                       run_result *out)
{
    unsigned nt = cfg->threads < n ? cfg->threads : n;
    worker *ws = calloc(nt, sizeof(*ws));
    if (!ws)
        die("out of memory");
    sh->t_start = now_ns();
    sh->t_warm = sh->t_start + (uint64_t)(cfg->warmup_s * 1e9);
    sh->t_end = cfg->ops ? UINT64_MAX : sh->t_warm + (uint64_t)(cfg->duration_s * 1e9);
    atomic_store(&sh->ops_left, (long long)cfg->ops);
    unsigned next = 0;
    for (unsigned t = 0; t < nt; t++) {
        worker *w = &ws[t];
        w->sh = sh;
        w->nconns = n / nt + (t < n % nt);
        w->conns = &conns[next];
        w->live = w->nconns;
        next += w->nconns;
        w->ep = epoll_create1(EPOLL_CLOEXEC);
        if (w->ep < 0)
            die("epoll_create1: %s", strerror(errno));
        sc_hist_init(&w->st.hist);
        for (int k = 0; k < RK__COUNT; k++)
            sc_hist_init(&w->st.kind_hist[k]);
        for (unsigned i = 0; i < w->nconns; i++)
            set_nonblocking(w->conns[i].fd, true);
        if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
            die("pthread_create failed");
    }
    memset(out, 0, sizeof(*out));
    sc_hist_init(&out->hist);
    for (int k = 0; k < RK__COUNT; k++)
        sc_hist_init(&out->kind_hist[k]);
    uint64_t last = sh->t_warm;
    for (unsigned t = 0; t < nt; t++) {
        worker *w = &ws[t];
        pthread_join(w->thread, NULL);
        close(w->ep);
        sc_hist_merge(&out->hist, &w->st.hist);
        out->ops += w->st.ops;
        out->errors += w->st.errors;
        out->expected_errors += w->st.expected_errors;
        out->pairs += w->st.pairs;
        if (w->st.sessions && (!out->sessions || w->st.session_min < out->session_min))
            out->session_min = w->st.session_min;
        if (w->st.session_max > out->session_max)
            out->session_max = w->st.session_max;
        out->sessions += w->st.sessions;
        for (int k = 0; k < RK__COUNT; k++)
            sc_hist_merge(&out->kind_hist[k], &w->st.kind_hist[k]);
        if (w->st.last_reply > last)
            last = w->st.last_reply;
    }
    for (unsigned i = 0; i < n; i++)
        set_nonblocking(conns[i].fd, false);
    /* Runs that stop by themselves (an op count, a node quota) end at their
     * last reply; timed runs at the end of the window. */
    uint64_t end = cfg->ops || sh->keep_sessions ? last : sh->t_end;
    out->seconds = end > sh->t_warm ? (double)(end - sh->t_warm) / 1e9 : 0;
    free(ws);
}

static void print_summary(const bench_cfg *cfg, const run_result *r, const char *extra_json)
{
    double secs = r->seconds > 0 ? r->seconds : 1e-9;
    double us = 1e-3;
    if (cfg->json) {
        printf("{\"target\":\"%s\",\"connections\":%u,\"pipeline\":%u,\"threads\":%u,"
               "\"mix\":\"%s\",\"seconds\":%.6f,\"ops\":%" PRIu64 ",\"ops_per_s\":%.1f,"
               "\"errors\":%" PRIu64 ",\"expected_errors\":%" PRIu64 ",\"pairs\":%" PRIu64
               ",\"pairs_per_s\":%.1f,"
               "\"latency_us\":{\"p50\":%.2f,\"p99\":%.2f,\"p999\":%.2f,\"max\":%.2f,"
               "\"min\":%.2f,\"mean\":%.2f},\"sessions\":{\"ended\":%" PRIu64
               ",\"min_requests\":%" PRIu64 ",\"max_requests\":%" PRIu64 "},\"by_kind\":{",
               cfg->redis_path ? "redis" : "streamcapd", cfg->conns, cfg->pipeline, cfg->threads,
               cfg->redis_path ? "set" : cfg->mix_text, r->seconds, r->ops, (double)r->ops / secs,
               r->errors, r->expected_errors, r->pairs, (double)r->pairs / secs,
               (double)sc_hist_quantile(&r->hist, 0.5) * us,
               (double)sc_hist_quantile(&r->hist, 0.99) * us,
               (double)sc_hist_quantile(&r->hist, 0.999) * us, (double)r->hist.max * us,
               r->hist.count ? (double)r->hist.min * us : 0.0, sc_hist_mean(&r->hist) * us,
               r->sessions, r->session_min, r->session_max);
        bool first = true;
        for (int k = 0; k < RK__COUNT; k++) {
            const sc_hist *h = &r->kind_hist[k];
            if (!h->count)
                continue;
            printf("%s\"%s\":{\"ops\":%" PRIu64 ",\"p50_us\":%.2f,\"p99_us\":%.2f,"
                   "\"max_us\":%.2f}",
                   first ? "" : ",", kind_names[k], h->count, (double)sc_hist_quantile(h, 0.5) * us,
                   (double)sc_hist_quantile(h, 0.99) * us, (double)h->max * us);
            first = false;
        }
        printf("}%s%s}\n", extra_json ? "," : "", extra_json ? extra_json : "");
        fflush(stdout);
        return;
    }
    printf("%s: %u connections, pipeline %u, %u threads, mix %s\n",
           cfg->redis_path ? "redis SET" : "streamcapd", cfg->conns, cfg->pipeline, cfg->threads,
           cfg->redis_path ? "set" : cfg->mix_text);
    printf("  %" PRIu64 " ops in %.3f s: %.0f ops/s\n", r->ops, r->seconds, (double)r->ops / secs);
    if (r->pairs)
        printf("  %" PRIu64 " reachability pairs: %.0f pairs/s\n", r->pairs,
               (double)r->pairs / secs);
    printf("  latency us: p50 %.1f  p99 %.1f  p99.9 %.1f  max %.1f  mean %.1f\n",
           (double)sc_hist_quantile(&r->hist, 0.5) * us,
           (double)sc_hist_quantile(&r->hist, 0.99) * us,
           (double)sc_hist_quantile(&r->hist, 0.999) * us, (double)r->hist.max * us,
           sc_hist_mean(&r->hist) * us);
    for (int k = 0; k < RK__COUNT; k++) {
        const sc_hist *h = &r->kind_hist[k];
        if (h->count)
            printf("  %-7s %10" PRIu64 " ops  p50 %.1f  p99 %.1f  max %.1f us\n", kind_names[k],
                   h->count, (double)sc_hist_quantile(h, 0.5) * us,
                   (double)sc_hist_quantile(h, 0.99) * us, (double)h->max * us);
    }
    printf("  errors %" PRIu64 " (expected %" PRIu64 ")\n", r->errors, r->expected_errors);
    if (extra_json)
        printf("  %s\n", extra_json);
}

static int run_load(const bench_cfg *cfg)
{
    conn *conns = open_conns(cfg, cfg->conns);
    /* Stagger the first sessions, so that the connections do not all end
     * their sessions at the same moment, cycle after cycle. */
    for (unsigned i = 0; i < cfg->conns; i++)
        conns[i].session_len = cfg->session_ops / cfg->conns * (i + 1) + 1;
    run_shared sh = {.cfg = cfg};
    sh.uses_sessions = !cfg->redis_path &&
                       (cfg->mix.weight[SC_WL_MIX_REACH] == 0 ||
                        cfg->mix.weight[SC_WL_MIX_KERNEL] || cfg->mix.weight[SC_WL_MIX_MEMCPY] ||
                        cfg->mix.weight[SC_WL_MIX_MEMSET] || cfg->mix.weight[SC_WL_MIX_HOST] ||
                        cfg->mix.weight[SC_WL_MIX_EVENT] || cfg->mix.weight[SC_WL_MIX_NOTCAP]);
    if (!sh.uses_sessions && !cfg->redis_path && (!cfg->graph || cfg->graph_nodes < 2))
        die("a reach-only mix needs --graph ID and --graph-nodes N (N >= 2)");
    /* Other streams would have to join the origin by events first. */
    if (cfg->cuda && cfg->streams != 1)
        die("--semantics cuda captures on one origin stream: give --streams 1");
    run_result r;
    run_engine(cfg, conns, cfg->conns, &sh, &r);
    for (unsigned i = 0; i < cfg->conns; i++)
        conn_free(&conns[i]);
    free(conns);
    print_summary(cfg, &r, NULL);
    if (r.ops == 0) {
        fprintf(stderr, "streamcap-bench: no request completed in the measuring window\n");
        return 1;
    }
    return r.errors ? 1 : 0;
}

/* Record one big session, then time its capture.end. */
static int run_build_graph(bench_cfg *cfg)
{
    cfg->conns = 1;
    conn *c = open_conns(cfg, 1);
    run_shared sh = {.cfg = cfg, .keep_sessions = true, .uses_sessions = true};
    c->records_left = cfg->build_graph;
    run_result r;
    run_engine(cfg, c, 1, &sh, &r);
    if (r.errors || !c->has_session || c->records_left != 0) {
        fprintf(stderr, "streamcap-bench: recording the graph failed\n");
        return 1;
    }
    sc_buf req = SC_BUF_INIT;
    write_session_call(&req, c->next_id, SC_M_CAPTURE_END, c->session, 0, true);
    uint64_t t0 = now_ns();
    size_t len;
    char *line = call_blocking(c, req.data, req.len, &len);
    double end_ms = (double)(now_ns() - t0) / 1e6;
    sc_buf_free(&req);
    reply rep;
    int rc = parse_reply(line, len, true, &rep);
    if (rc != 0 || !rep.ok || rep.id != c->next_id) {
        fprintf(stderr, "streamcap-bench: capture.end failed: %s\n", line);
        cJSON_Delete(rep.root);
        free(line);
        return 1;
    }
    char extra[256];
    snprintf(extra, sizeof extra,
             "\"graph\":%" PRIu64 ",\"node_count\":%" PRIu64 ",\"edge_count\":%" PRIu64
             ",\"end_ms\":%.3f",
             result_u64(&rep, "graph"), result_u64(&rep, "node_count"),
             result_u64(&rep, "edge_count"), end_ms);
    cJSON_Delete(rep.root);
    free(line);
    print_summary(cfg, &r, extra);
    conn_free(c);
    free(c);
    return 0;
}

static void write_ready(const char *path, const char *text)
{
    if (!path)
        return;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, path) != 0)
        die("cannot write %s", path);
}

static void wait_for_signal(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    int sig;
    sigwait(&set, &sig);
}

/* Sessions holding `hold_nodes` nodes in total, kept until SIGTERM. */
static int run_hold(bench_cfg *cfg)
{
    conn *conns = open_conns(cfg, cfg->conns);
    uint64_t per = cfg->hold_nodes / cfg->conns;
    for (unsigned i = 0; i < cfg->conns; i++)
        conns[i].records_left = per + (i < cfg->hold_nodes % cfg->conns);
    run_shared sh = {.cfg = cfg, .keep_sessions = true, .uses_sessions = true};
    run_result r;
    run_engine(cfg, conns, cfg->conns, &sh, &r);
    int rc = r.errors ? 1 : 0;
    for (unsigned i = 0; i < cfg->conns; i++)
        if (conns[i].records_left != 0 || !conns[i].has_session)
            rc = 1;
    char extra[128];
    snprintf(extra, sizeof extra, "\"held_nodes\":%" PRIu64 ",\"sessions\":%u",
             rc ? 0 : cfg->hold_nodes, cfg->conns);
    print_summary(cfg, &r, extra);
    if (rc == 0) {
        write_ready(cfg->ready_file, "ready\n");
        wait_for_signal();
    }
    for (unsigned i = 0; i < cfg->conns; i++) {
        conn *c = &conns[i];
        if (c->has_session) {
            sc_buf req = SC_BUF_INIT;
            write_session_call(&req, c->next_id++, SC_M_SESSION_CLOSE, c->session, 0, false);
            size_t len;
            free(call_blocking(c, req.data, req.len, &len));
            sc_buf_free(&req);
        }
        conn_free(c);
    }
    free(conns);
    return rc;
}

/* N connections that each made one request, kept until SIGTERM. */
static int run_idle(bench_cfg *cfg)
{
    conn *conns = open_conns(cfg, cfg->idle);
    sc_buf req = SC_BUF_INIT;
    for (unsigned i = 0; i < cfg->idle; i++) {
        sc_buf_reset(&req);
        req_head(&req, 1, SC_M_SERVER_INFO);
        req_tail(&req);
        size_t len;
        char *line = call_blocking(&conns[i], req.data, req.len, &len);
        if (!strstr(line, "\"result\""))
            die("server.info failed on connection %u: %s", i, line);
        free(line);
    }
    sc_buf_free(&req);
    if (cfg->json)
        printf("{\"idle_connections\":%u}\n", cfg->idle);
    else
        printf("%u idle connections\n", cfg->idle);
    fflush(stdout);
    write_ready(cfg->ready_file, "ready\n");
    wait_for_signal();
    for (unsigned i = 0; i < cfg->idle; i++)
        conn_free(&conns[i]);
    free(conns);
    return 0;
}

/* --------------------------------------------------------------- options */

static void usage(FILE *out)
{
    fprintf(out, "usage: streamcap-bench [options]\n"
                 "\n"
                 "Drive streamcapd (or Redis, with --redis) with many connections and report\n"
                 "ops/s and latency percentiles.  Exit status 1 on any unexpected error reply.\n"
                 "\n"
                 "  -s, --socket PATH     streamcapd socket (default ./streamcap.sock)\n"
                 "      --redis PATH      benchmark Redis on this Unix socket: RESP SET key value\n"
                 "  -c N                  connections (default 50)\n"
                 "  -P N                  requests in flight per connection (default 1)\n"
                 "  -T N                  client threads, each an epoll loop (default 1)\n"
                 "  -d SECONDS            measure for this long (default 10)\n"
                 "  -n OPS                measure this many requests instead\n"
                 "  -w SECONDS            warm-up before measuring (default 1)\n"
                 "  -t MIX                preset ingest (default), record or reach, or a list\n"
                 "                        KIND[:WEIGHT],... of kernel, memcpy, memset, host,\n"
                 "                        event (a record_event + wait_event pair), reach,\n"
                 "                        notcap (a kernel on a stream never begun: error 1002)\n"
                 "                        and end (sessions end with capture.end; without it\n"
                 "                        they are dropped with session.close)\n"
                 "      --streams N       streams begun per session (default 8)\n"
                 "      --semantics cuda  cuda-mode sessions on origin stream 1 (needs\n"
                 "                        --streams 1); they end with session.close\n"
                 "      --session-ops N   requests per session before it ends (default 1000)\n"
                 "      --session-spread S  draw each session's length uniformly from\n"
                 "                        N -+ S%% (0..100, default 0: every session N)\n"
                 "      --graph ID        graph for reach ops (default: the connection's last\n"
                 "                        ended session); needs --graph-nodes\n"
                 "      --graph-nodes N   node count of --graph\n"
                 "      --pairs K         pairs per graph.reachable (default 1: from/to form)\n"
                 "      --allow-error CODE  count error replies with CODE as expected\n"
                 "      --seed N          workload seed (default 1)\n"
                 "      --label TEXT      session label (default bench)\n"
                 "      --max-reply BYTES longest reply line accepted (default 64M)\n"
                 "      --build-graph N   record one session of N nodes on --streams streams\n"
                 "                        (a fork/join every 64 nodes), then time capture.end\n"
                 "      --hold-nodes N    open -c sessions holding N nodes in total and keep\n"
                 "                        them until SIGTERM, then close them\n"
                 "      --idle N          keep N connections (one server.info each) until\n"
                 "                        SIGTERM\n"
                 "      --ready-file PATH hold/idle: write this file once everything is held\n"
                 "      --json            print the summary as one JSON object\n"
                 "  -h, --help            show this help\n");
}

static uint64_t parse_u64(const char *flag, const char *s, uint64_t min, uint64_t max)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-')
        die("%s needs a number", flag);
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < min || v > max)
        die("%s: '%s' is not a number from %" PRIu64 " to %" PRIu64, flag, s, min, max);
    return v;
}

static double parse_seconds(const char *flag, const char *s)
{
    char *end;
    if (!s || !*s)
        die("%s needs a number of seconds", flag);
    double v = strtod(s, &end);
    if (*end || !(v >= 0) || v > 86400)
        die("%s: '%s' is not a number of seconds", flag, s);
    return v;
}

static void parse_mix(bench_cfg *cfg, const char *text)
{
    static const struct {
        const char *name, *list;
    } presets[] = {
        {"ingest", "kernel:70,memcpy:10,memset:5,host:5,event:10,end"},
        {"record", "kernel,end"},
        {"reach", "reach"},
    };
    cfg->mix_text = text;
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
        if (strcmp(text, presets[i].name) == 0)
            text = presets[i].list;
    memset(&cfg->mix, 0, sizeof cfg->mix);
    cfg->mix_end = false;
    char *copy = strdup(text);
    if (!copy)
        die("out of memory");
    uint32_t total = 0;
    for (char *save, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':');
        uint32_t weight = 1;
        if (colon) {
            *colon = '\0';
            weight = (uint32_t)parse_u64("-t weight", colon + 1, 0, 1000000);
        }
        if (strcmp(tok, "end") == 0) {
            cfg->mix_end = true;
            continue;
        }
        int k = 0;
        while (k < SC_WL_MIX_COUNT && strcmp(tok, sc_wl_mix_names[k]) != 0)
            k++;
        if (k == SC_WL_MIX_COUNT)
            die("-t: unknown op kind '%s'", tok);
        cfg->mix.weight[k] += weight;
        total += weight;
    }
    free(copy);
    if (total == 0)
        die("-t: the mix has no op with a weight");
}

static const char *need_arg(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc)
        die("%s needs an argument", argv[*i]);
    return argv[++*i];
}

static void parse_args(int argc, char **argv, bench_cfg *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->socket_path = "./streamcap.sock";
    cfg->conns = 50;
    cfg->pipeline = 1;
    cfg->threads = 1;
    cfg->duration_s = 10;
    cfg->warmup_s = 1;
    cfg->streams = 8;
    cfg->session_ops = 1000;
    cfg->pairs = 1;
    cfg->seed = 1;
    cfg->label = "bench";
    cfg->max_line = (size_t)64 << 20;
    parse_mix(cfg, "ingest");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "-s") || !strcmp(a, "--socket")) {
            cfg->socket_path = need_arg(argc, argv, &i);
        } else if (!strcmp(a, "--redis")) {
            cfg->redis_path = need_arg(argc, argv, &i);
        } else if (!strcmp(a, "-c")) {
            cfg->conns = (unsigned)parse_u64(a, need_arg(argc, argv, &i), 1, 100000);
        } else if (!strcmp(a, "-P")) {
            cfg->pipeline = (unsigned)parse_u64(a, need_arg(argc, argv, &i), 1, 100000);
        } else if (!strcmp(a, "-T")) {
            cfg->threads = (unsigned)parse_u64(a, need_arg(argc, argv, &i), 1, 256);
        } else if (!strcmp(a, "-d")) {
            cfg->duration_s = parse_seconds(a, need_arg(argc, argv, &i));
        } else if (!strcmp(a, "-n")) {
            cfg->ops = parse_u64(a, need_arg(argc, argv, &i), 1, (uint64_t)1 << 62);
        } else if (!strcmp(a, "-w")) {
            cfg->warmup_s = parse_seconds(a, need_arg(argc, argv, &i));
        } else if (!strcmp(a, "-t")) {
            parse_mix(cfg, need_arg(argc, argv, &i));
        } else if (!strcmp(a, "--semantics")) {
            const char *v = need_arg(argc, argv, &i);
            if (strcmp(v, "cuda") && strcmp(v, "oxicuda"))
                die("--semantics takes cuda or oxicuda, not '%s'", v);
            cfg->cuda = !strcmp(v, "cuda");
        } else if (!strcmp(a, "--streams")) {
            cfg->streams = (uint32_t)parse_u64(a, need_arg(argc, argv, &i), 1, 1u << 20);
        } else if (!strcmp(a, "--session-ops")) {
            cfg->session_ops = parse_u64(a, need_arg(argc, argv, &i), 1, UINT64_MAX - 1);
        } else if (!strcmp(a, "--session-spread")) {
            cfg->session_spread = (unsigned)parse_u64(a, need_arg(argc, argv, &i), 0, 100);
        } else if (!strcmp(a, "--graph")) {
            cfg->graph = parse_u64(a, need_arg(argc, argv, &i), 1, (uint64_t)1 << 53);
        } else if (!strcmp(a, "--graph-nodes")) {
            cfg->graph_nodes = (uint32_t)parse_u64(a, need_arg(argc, argv, &i), 2, UINT32_MAX);
        } else if (!strcmp(a, "--pairs")) {
            cfg->pairs = (uint32_t)parse_u64(a, need_arg(argc, argv, &i), 1, 100000000);
        } else if (!strcmp(a, "--allow-error")) {
            const char *v = need_arg(argc, argv, &i);
            char *end;
            long code = strtol(v, &end, 10);
            if (*end || !*v || cfg->n_allowed == MAX_ALLOWED_ERRORS)
                die("--allow-error: '%s' is not an error code (at most %d)", v, MAX_ALLOWED_ERRORS);
            cfg->allowed[cfg->n_allowed++] = (int)code;
        } else if (!strcmp(a, "--seed")) {
            cfg->seed = parse_u64(a, need_arg(argc, argv, &i), 0, UINT64_MAX);
        } else if (!strcmp(a, "--label")) {
            cfg->label = need_arg(argc, argv, &i);
        } else if (!strcmp(a, "--max-reply")) {
            cfg->max_line = parse_u64(a, need_arg(argc, argv, &i), 1024, (uint64_t)1 << 40);
        } else if (!strcmp(a, "--build-graph")) {
            cfg->build_graph = parse_u64(a, need_arg(argc, argv, &i), 1, UINT32_MAX);
        } else if (!strcmp(a, "--hold-nodes")) {
            cfg->hold_nodes = parse_u64(a, need_arg(argc, argv, &i), 1, (uint64_t)1 << 40);
        } else if (!strcmp(a, "--idle")) {
            cfg->idle = (unsigned)parse_u64(a, need_arg(argc, argv, &i), 1, 100000);
        } else if (!strcmp(a, "--ready-file")) {
            cfg->ready_file = need_arg(argc, argv, &i);
        } else if (!strcmp(a, "--json")) {
            cfg->json = true;
        } else {
            usage(stderr);
            die("unknown option '%s'", a);
        }
    }
    if (cfg->graph && !cfg->graph_nodes)
        die("--graph needs --graph-nodes");
    if (cfg->redis_path && (cfg->build_graph || cfg->hold_nodes || cfg->idle))
        die("--redis runs the load only");
}

int main(int argc, char **argv)
{
    bench_cfg cfg;
    parse_args(argc, argv, &cfg);
    signal(SIGPIPE, SIG_IGN);
    /* Blocked in every thread, so that sigwait in main receives them. */
    if (cfg.hold_nodes || cfg.idle) {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGTERM);
        sigaddset(&set, SIGINT);
        pthread_sigmask(SIG_BLOCK, &set, NULL);
    }
    if (cfg.idle)
        return run_idle(&cfg);
    if (cfg.hold_nodes) {
        cfg.ops = 0;
        cfg.duration_s = 86400;
        cfg.warmup_s = 0;
        cfg.session_ops = UINT64_MAX - 1;
        return run_hold(&cfg);
    }
    if (cfg.build_graph) {
        cfg.ops = 0;
        cfg.duration_s = 86400;
        cfg.warmup_s = 0;
        cfg.session_ops = UINT64_MAX - 1;
        return run_build_graph(&cfg);
    }
    return run_load(&cfg);
}
