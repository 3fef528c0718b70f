/*
 * conn.c - the connection: connect, the request writer, non-blocking
 * socket I/O driven by poll(), reply matching and the pipeline.
 */
#define _POSIX_C_SOURCE 200809L

#include "client_int.h"
#include "sc_paths.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

/* A reply line may hold a whole graph: bounded only to stop a runaway peer. */
#define SC_CL_MAX_LINE  ((size_t)1 << 30)
#define SC_CL_READ_HINT 65536
/* Queued bytes that make a pipeline start sending before collect. */
#define SC_CL_FLUSH_AT 65536

/* ------------------------------------------------------------ errors */

void sc_cl_clear_error(sc_client *c)
{
    c->errmsg[0] = '\0';
    c->errcode = 0;
    free(c->errdata);
    c->errdata = NULL;
    c->cuda_error = 0;
}

/* Keep error.data for sc_client_errdata; a copy that fails is only lost
 * detail, the code and message still stand. */
static void keep_errdata(sc_client *c, const cJSON *error)
{
    free(c->errdata);
    c->errdata = NULL;
    c->cuda_error = 0;
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(error, "data");
    if (!data)
        return;
    c->errdata = cJSON_PrintUnformatted(data);
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(data, "cuda_error");
    if (cJSON_IsNumber(n) && n->valuedouble >= 0 && n->valuedouble <= INT_MAX)
        c->cuda_error = (int)n->valuedouble;
}

int sc_cl_fail(sc_client *c, int rc, const char *fmt, ...)
{
    free(c->errdata);
    c->errdata = NULL;
    c->cuda_error = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->errmsg, sizeof(c->errmsg), fmt, ap);
    va_end(ap);
    c->errcode = 0;
    return rc;
}

/* A transport failure leaves replies in flight that nobody will match. */
static int broken(sc_client *c, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int broken(sc_client *c, int rc, const char *fmt, ...)
{
    free(c->errdata);
    c->errdata = NULL;
    c->cuda_error = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->errmsg, sizeof(c->errmsg), fmt, ap);
    va_end(ap);
    c->errcode = 0;
    c->broken = true;
    return rc;
}

static int errno_text(sc_client *c, int rc, const char *what, int err)
{
    char text[128];
    if (strerror_r(err, text, sizeof(text)) != 0)
        snprintf(text, sizeof(text), "error %d", err);
    return broken(c, rc, "%s: %s", what, text);
}

bool sc_client_is_server_error(int rc)
{
    return rc <= SC_CLIENT_ESERVER;
}

/* The daemon's code as a return value: always <= -1000 so it can never be
 * mistaken for a negative errno. */
int sc_cl_map_code(double code)
{
    if (code >= SC_RPC_APP__MIN && code <= INT_MAX)
        return -(int)code;
    if (code <= SC_CLIENT_ESERVER && code >= -INT_MAX)
        return (int)code;
    return SC_CLIENT_ESERVER;
}

const char *sc_client_strerror(int rc)
{
    switch (rc) {
    case 0:
        return "success";
    case SC_CLIENT_ENOTFOUND:
        return "not found";
    case SC_CLIENT_ESTATE:
        return "wrong capture state";
    case SC_CLIENT_EINVALIDATED:
        return "capture invalidated";
    case SC_CLIENT_EPERM:
        return "permission denied";
    case SC_CLIENT_ELIMIT:
        return "daemon limit reached";
    case SC_CLIENT_ESTORAGE:
        return "storage error";
    case SC_CLIENT_ESHUTDOWN:
        return "daemon is shutting down";
    case SC_CLIENT_ECUDA:
        return "refused as CUDA would refuse it";
    case SC_CLIENT_EPARSE:
        return "parse error";
    case SC_CLIENT_EREQUEST:
        return "invalid request";
    case SC_CLIENT_EMETHOD:
        return "method not found";
    case SC_CLIENT_EPARAMS:
        return "invalid params";
    case SC_CLIENT_EINTERNAL:
        return "internal error";
    case -ENOENT:
        return "no such socket";
    case -ECONNREFUSED:
        return "connection refused";
    case -ETIMEDOUT:
        return "timed out";
    case -ECONNRESET:
        return "connection closed by the daemon";
    case -EPIPE:
        return "broken pipe";
    case -ENOTCONN:
        return "connection unusable after an earlier failure";
    case -EPROTO:
        return "malformed reply";
    case -ENOMEM:
        return "out of memory";
    case -EINVAL:
        return "invalid argument";
    case -EBUSY:
        return "a pipeline is open";
    case -ENAMETOOLONG:
        return "socket path too long";
    case -EACCES:
        return "permission denied";
    default:
        return sc_client_is_server_error(rc) ? "daemon error" : "system error";
    }
}

int sc_client_errcode(const sc_client *c)
{
    return c ? c->errcode : 0;
}

const char *sc_client_errmsg(const sc_client *c)
{
    return c ? c->errmsg : "";
}

const char *sc_client_errdata(const sc_client *c)
{
    return c && c->errdata ? c->errdata : "";
}

int sc_client_cuda_error(const sc_client *c)
{
    return c ? c->cuda_error : 0;
}

/* -------------------------------------------------------- connection */

const char *sc_client_default_socket(void)
{
    /* Per thread, so that the returned text stays put while another
     * thread asks too; the environment may change between calls. */
    static _Thread_local char path[SC_PATH_MAX];
    char home[SC_PATH_MAX];
    sc_path_env env;
    sc_path_env_current(&env, home, sizeof(home));
    if (sc_path_socket(&env, path, sizeof(path), NULL) != 0)
        path[0] = '\0';
    return path;
}

static int connect_fd(const char *path, int timeout_ms, int *out)
{
    struct sockaddr_un sa;
    size_t len = strlen(path);
    if (len == 0)
        return -ENOENT;
    if (len >= sizeof(sa.sun_path))
        return -ENAMETOOLONG;
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, path, len);

    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    /* A blocking connect waits while the daemon's backlog is full; the send
     * time-out bounds that wait on Linux. */
    if (timeout_ms > 0) {
        struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
        (void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    }
    int rc;
    do {
        rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) {
        int err = errno == EAGAIN || errno == EINPROGRESS ? ETIMEDOUT : errno;
        close(fd);
        return -err;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) {
        int err = errno;
        close(fd);
        return -err;
    }
    *out = fd;
    return 0;
}

int sc_client_connect(const char *path, int timeout_ms, sc_client **out)
{
    if (!out)
        return -EINVAL;
    *out = NULL;
    if (!path)
        path = sc_client_default_socket();
    int fd = -1;
    int rc = connect_fd(path, timeout_ms, &fd);
    if (rc != 0)
        return rc;
    sc_client *c = calloc(1, sizeof(*c));
    if (!c || sc_framer_init(&c->in, SC_CL_MAX_LINE) != 0) {
        free(c);
        close(fd);
        return -ENOMEM;
    }
    c->fd = fd;
    c->timeout_ms = timeout_ms;
    c->next_id = 1;
    c->recv_id = 1;
    sc_buf_init(&c->out);
    memcpy(c->path, path, strlen(path) + 1);
    *out = c;
    return 0;
}

static void drop_replies(sc_client *c)
{
    for (size_t i = 0; i < c->answered; i++) {
        free(c->replies[i].errmsg);
        free(c->replies[i].errdata);
    }
    c->answered = 0;
    c->queued = 0;
}

void sc_client_close(sc_client *c)
{
    if (!c)
        return;
    sc_cl_async_end(c);
    drop_replies(c);
    free(c->pending);
    free(c->replies);
    cJSON_Delete(c->reply);
    free(c->errdata);
    sc_buf_free(&c->out);
    sc_framer_free(&c->in);
    if (c->fd >= 0)
        close(c->fd);
    free(c);
}

void sc_client_set_timeout(sc_client *c, int timeout_ms)
{
    if (c)
        c->timeout_ms = timeout_ms;
}

const char *sc_client_socket_path(const sc_client *c)
{
    return c ? c->path : "";
}

/* ---------------------------------------------------- request writer */

/* session.info's result is not a pipelined reply: it fills caller storage. */
static bool pipelinable(sc_method_id m)
{
    return sc_method_on_session(m) && m != SC_M_SESSION_INFO && m != SC_M_SESSION_LIST;
}

/* What an asynchronous call can do without its reply: every call a
 * pipeline takes, and graph.submit; capture.info fills caller storage. */
static bool async_ok(sc_method_id m)
{
    return (pipelinable(m) && m != SC_M_CAPTURE_INFO) || m == SC_M_GRAPH_SUBMIT;
}

int sc_cl_begin(sc_client *c, sc_method_id m)
{
    if (!c)
        return -EINVAL;
    if (c->async) {
        if (!async_ok(m)) {
            sc_cl_clear_error(c);
            return sc_cl_fail(c, -EBUSY, "%s needs its reply: not in asynchronous mode",
                              sc_methods[m].name);
        }
        int rc = sc_cl_async_lock(c, m);
        if (rc != 0)
            return rc;
    } else if (c->broken) {
        return -ENOTCONN; /* keep the message of the failure that broke it */
    }
    if (c->log_state == SC_CL_LOG_ON)
        return sc_cl_log_refuse(c, sc_methods[m].name);
    sc_cl_clear_error(c);
    if (c->pipelining && !pipelinable(m))
        return sc_cl_fail(c, -EBUSY, "%s cannot be called while a pipeline is open",
                          sc_methods[m].name);
    c->req_start = c->out.len;
    /* The envelope stays open at params; finish_request closes both.  Its
     * text is fixed but for the id and the method's name, which needs no
     * escaping: written as it is, not member by member (the stand-in
     * writes one request a captured launch). */
    static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":";
    static const char method[] = ",\"method\":\"";
    static const char params[] = "\",\"params\":{";
    sc_buf_append(&c->out, head, sizeof head - 1);
    sc_json_u64(&c->out, c->next_id);
    sc_buf_append(&c->out, method, sizeof method - 1);
    sc_buf_puts(&c->out, sc_methods[m].name);
    sc_buf_append(&c->out, params, sizeof params - 1);
    c->req_first = true;
    return 0;
}

sc_buf *sc_cl_key(sc_client *c, const char *key)
{
    sc_json_key(&c->out, &c->req_first, key);
    return &c->out;
}

void sc_cl_u64(sc_client *c, const char *key, uint64_t v)
{
    sc_json_member_u64(&c->out, &c->req_first, key, v);
}

void sc_cl_str(sc_client *c, const char *key, const char *s)
{
    sc_json_member_cstr(&c->out, &c->req_first, key, s);
}

void sc_cl_raw(sc_client *c, const char *key, const char *json)
{
    sc_buf_puts(sc_cl_key(c, key), json);
}

void sc_cl_cancel(sc_client *c)
{
    c->out.len = c->req_start;
    if (c->out.len == c->out_sent) {
        c->out.len = 0;
        c->out_sent = 0;
    }
    if (c->async)
        sc_cl_async_unlock(c);
}

int sc_cl_finish_request(sc_client *c)
{
    sc_json_obj_end(&c->out); /* params */
    sc_json_obj_end(&c->out);
    sc_buf_putc(&c->out, '\n');
    if (sc_buf_failed(&c->out)) {
        /* Nothing of a failed request may reach the socket. */
        c->out.oom = false;
        sc_cl_fail(c, -ENOMEM, "out of memory writing a request");
        sc_cl_cancel(c);
        return -ENOMEM;
    }
    c->next_id++;
    return 0;
}

/* ------------------------------------------------------ reply decoding */

int sc_cl_malformed(sc_client *c, sc_method_id m, const char *what)
{
    return sc_cl_fail(c, -EPROTO, "malformed reply to %s: %s", sc_methods[m].name, what);
}

static int bad_field(sc_client *c, sc_method_id m, const char *key, const char *want)
{
    char what[160];
    snprintf(what, sizeof(what), "'%s' is not %s", key, want);
    return sc_cl_malformed(c, m, what);
}

static bool exact_u64(const cJSON *v, uint64_t max, uint64_t *out)
{
    if (!cJSON_IsNumber(v))
        return false;
    double d = v->valuedouble;
    /* Doubles are exact up to 2^53, the protocol's limit for integers. */
    if (!(d >= 0 && d <= 9007199254740992.0) || d != (double)(uint64_t)d)
        return false;
    if ((uint64_t)d > max)
        return false;
    *out = (uint64_t)d;
    return true;
}

int sc_cl_get_u64(sc_client *c, sc_method_id m, const cJSON *o, const char *key, uint64_t max,
                  uint64_t *out)
{
    if (!exact_u64(cJSON_GetObjectItemCaseSensitive(o, key), max, out))
        return bad_field(c, m, key, "an unsigned integer in range");
    return 0;
}

int sc_cl_get_i64(sc_client *c, sc_method_id m, const cJSON *o, const char *key, int64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    double lim = 9007199254740992.0;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= -lim && v->valuedouble <= lim) ||
        v->valuedouble != (double)(int64_t)v->valuedouble)
        return bad_field(c, m, key, "an integer");
    *out = (int64_t)v->valuedouble;
    return 0;
}

int sc_cl_get_bool(sc_client *c, sc_method_id m, const cJSON *o, const char *key, bool *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsBool(v))
        return bad_field(c, m, key, "a boolean");
    *out = cJSON_IsTrue(v);
    return 0;
}

int sc_cl_get_str(sc_client *c, sc_method_id m, const cJSON *o, const char *key, bool nullable,
                  char **out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (nullable && (!v || cJSON_IsNull(v))) {
        *out = NULL;
        return 0;
    }
    if (!cJSON_IsString(v) || !v->valuestring)
        return bad_field(c, m, key, "a string");
    *out = strdup(v->valuestring);
    if (!*out)
        return sc_cl_fail(c, -ENOMEM, "out of memory");
    return 0;
}

static int parse_status(const char *s, sc_client_status *out)
{
    static const sc_client_status all[] = {SC_CLIENT_STATUS_NONE, SC_CLIENT_STATUS_ACTIVE,
                                           SC_CLIENT_STATUS_INVALIDATED};
    for (size_t i = 0; s && i < sizeof(all) / sizeof(all[0]); i++) {
        if (strcmp(s, sc_client_status_name(all[i])) == 0) {
            *out = all[i];
            return 0;
        }
    }
    return -EINVAL;
}

/* The error member of a reply, into r (message borrowed from the tree). */
static int decode_error(sc_client *c, sc_method_id m, const cJSON *error, sc_client_reply *r)
{
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(error, "code");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(error, "message");
    if (!cJSON_IsObject(error) || !cJSON_IsNumber(code))
        return r->rc = sc_cl_malformed(c, m, "bad 'error' member");
    r->rc = sc_cl_map_code(code->valuedouble);
    r->errcode =
        code->valuedouble >= INT_MIN && code->valuedouble <= INT_MAX ? (int)code->valuedouble : 0;
    r->errmsg = cJSON_IsString(msg) && msg->valuestring ? msg->valuestring : "";
    c->errcode = r->errcode;
    snprintf(c->errmsg, sizeof(c->errmsg), "%s", r->errmsg);
    keep_errdata(c, error);
    r->cuda_error = c->cuda_error;
    return r->rc;
}

/* Results of the calls that can be pipelined. */
static int decode_result(sc_client *c, sc_method_id m, const cJSON *res, sc_client_reply *r)
{
    uint64_t v = 0;
    switch (m) {
    case SC_M_SESSION_OPEN:
        return sc_cl_get_u64(c, m, res, "session", UINT64_MAX, &r->id);
    case SC_M_CAPTURE_BEGIN:
        /* cuda mode names the capture; the default mode's result is {} */
        if (cJSON_GetObjectItemCaseSensitive(res, "capture"))
            return sc_cl_get_u64(c, m, res, "capture", UINT64_MAX, &r->capture);
        return 0;
    case SC_M_CAPTURE_RECORD_KERNEL:
    case SC_M_CAPTURE_RECORD_MEMCPY:
    case SC_M_CAPTURE_RECORD_MEMSET:
    case SC_M_CAPTURE_RECORD_HOST_CALLBACK:
    case SC_M_CAPTURE_RECORD_MEM_ALLOC:
    case SC_M_CAPTURE_RECORD_MEM_FREE:
    case SC_M_CAPTURE_ADD_NODE:
        /* null: a cuda-mode stream that was not capturing */
        if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(res, "node"))) {
            r->id = UINT64_MAX;
            return 0;
        }
        return sc_cl_get_u64(c, m, res, "node", UINT32_MAX, &r->id);
    case SC_M_CAPTURE_STATUS: {
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(res, "status");
        if (!cJSON_IsString(s) || parse_status(s->valuestring, &r->status) != 0)
            return bad_field(c, m, "status", "none, active or invalidated");
        return 0;
    }
    case SC_M_CAPTURE_IS_CAPTURING:
        return sc_cl_get_bool(c, m, res, "capturing", &r->capturing);
    case SC_M_CAPTURE_NODE_COUNT:
        return sc_cl_get_u64(c, m, res, "node_count", UINT64_MAX, &r->node_count);
    case SC_M_CAPTURE_END:
    case SC_M_GRAPH_SUBMIT:
        if (sc_cl_get_u64(c, m, res, "graph", UINT64_MAX, &r->id) != 0 ||
            sc_cl_get_u64(c, m, res, "node_count", UINT64_MAX, &r->node_count) != 0 ||
            sc_cl_get_u64(c, m, res, "edge_count", UINT64_MAX, &v) != 0)
            return -EPROTO;
        r->edge_count = v;
        if (m == SC_M_CAPTURE_END && cJSON_GetObjectItemCaseSensitive(res, "capture"))
            return sc_cl_get_u64(c, m, res, "capture", UINT64_MAX, &r->capture);
        return 0;
    default:
        return 0;
    }
}

void sc_cl_decode_reply(sc_client *c, sc_method_id m, const cJSON *reply, sc_client_reply *r)
{
    memset(r, 0, sizeof(*r));
    r->method = sc_methods[m].name;
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(reply, "error");
    if (error) {
        decode_error(c, m, error, r);
        return;
    }
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(reply, "result");
    if (!cJSON_IsObject(res)) {
        r->rc = sc_cl_malformed(c, m, "no result object");
        return;
    }
    r->rc = decode_result(c, m, res, r);
    if (r->rc != 0)
        r->errmsg = c->errmsg;
}

/* ------------------------------------------------------------- I/O */

static int wait_ms(const sc_client *c)
{
    return c->timeout_ms > 0 ? c->timeout_ms : -1;
}

static bool pipeline_full(const sc_client *c)
{
    return c->answered >= c->queued;
}

/*
 * One reply line: check the envelope and id, then either keep the tree for
 * a blocking call or decode it into the next pipeline slot.
 */
static int take_line(sc_client *c, const char *line, size_t len)
{
    cJSON *root = cJSON_ParseWithLength(line, len);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return broken(c, -EPROTO, "malformed reply: not a JSON object");
    }
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "id");
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(root, "error");
    if (cJSON_IsNull(id) && cJSON_IsObject(error)) {
        /* Said about the connection itself (message too large, connection
         * limit): the daemon closes it next. */
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(error, "code");
        const cJSON *msg = cJSON_GetObjectItemCaseSensitive(error, "message");
        int rc = cJSON_IsNumber(code) ? sc_cl_map_code(code->valuedouble) : SC_CLIENT_ESERVER;
        broken(c, rc, "%s",
               cJSON_IsString(msg) && msg->valuestring ? msg->valuestring : "connection refused");
        c->errcode = cJSON_IsNumber(code) ? (int)code->valuedouble : 0;
        cJSON_Delete(root);
        return rc;
    }
    if (!cJSON_IsNumber(id) || id->valuedouble != (double)c->recv_id) {
        cJSON_Delete(root);
        return broken(c, -EPROTO, "malformed reply: expected id %llu",
                      (unsigned long long)c->recv_id);
    }
    c->recv_id++;
    if (!c->pipelining) {
        cJSON_Delete(c->reply);
        c->reply = root;
        return 0;
    }
    if (pipeline_full(c)) {
        cJSON_Delete(root);
        return broken(c, -EPROTO, "malformed reply: more replies than requests");
    }
    sc_client_reply *r = &c->replies[c->answered];
    sc_cl_decode_reply(c, (sc_method_id)c->pending[c->answered], root, r);
    int rc = 0;
    if (r->rc != 0) {
        r->errmsg = strdup(r->errmsg ? r->errmsg : "");
        r->errdata = c->errdata;
        c->errdata = NULL;
        if (!r->errmsg)
            rc = broken(c, -ENOMEM, "out of memory reading replies");
    }
    c->answered++;
    cJSON_Delete(root);
    return rc;
}

static int read_some(sc_client *c)
{
    char *p;
    size_t avail;
    if (sc_framer_space(&c->in, SC_CL_READ_HINT, &p, &avail) != 0)
        return broken(c, -ENOMEM, "out of memory reading a reply");
    ssize_t n = recv(c->fd, p, avail, 0);
    if (n == 0)
        return broken(c, -ECONNRESET, "the daemon closed the connection");
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
            return 0;
        return errno_text(c, -errno, "reading from the daemon", errno);
    }
    sc_framer_commit(&c->in, (size_t)n);
    const char *line;
    size_t len;
    int st = SC_FRAME_NEED_MORE;
    /* After log.subscribe's reply come notifications, no replies: they are
     * left in the framer for sc_client_log_next. */
    while (!(c->log_state != SC_CL_LOG_OFF && c->reply) &&
           (st = sc_framer_next(&c->in, &line, &len)) == SC_FRAME_LINE) {
        int rc = take_line(c, line, len);
        if (rc != 0)
            return rc;
    }
    if (st == SC_FRAME_TOO_LONG)
        return broken(c, -EPROTO, "reply longer than %zu bytes", SC_CL_MAX_LINE);
    return 0;
}

static int write_some(sc_client *c)
{
    ssize_t n = send(c->fd, c->out.data + c->out_sent, c->out.len - c->out_sent, MSG_NOSIGNAL);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
            return 0;
        if (errno == EPIPE || errno == ECONNRESET)
            return broken(c, -ECONNRESET, "the daemon closed the connection");
        return errno_text(c, -errno, "writing to the daemon", errno);
    }
    c->out_sent += (size_t)n;
    if (c->out_sent == c->out.len) {
        c->out.len = 0;
        c->out_sent = 0;
    }
    return 0;
}

/*
 * Wait once for the socket and move bytes both ways.  Reading while
 * writing matters: a daemon blocked on a full socket toward us stops
 * reading our requests, so a pipeline that only wrote would deadlock.
 */
static int io_step(sc_client *c)
{
    struct pollfd p = {.fd = c->fd, .events = POLLIN};
    if (c->out_sent < c->out.len)
        p.events |= POLLOUT;
    int n;
    do {
        n = poll(&p, 1, wait_ms(c));
    } while (n < 0 && errno == EINTR);
    if (n < 0)
        return errno_text(c, -errno, "waiting for the daemon", errno);
    if (n == 0)
        return broken(c, -ETIMEDOUT, "no reply from the daemon within %d ms", c->timeout_ms);
    if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
        int rc = read_some(c);
        if (rc != 0)
            return rc;
    }
    if (p.revents & POLLOUT)
        return write_some(c);
    return 0;
}

/* ------------------------------------------------------ blocking calls */

/* Send what is written and wait for the one reply it asks for. */
static int await_reply(sc_client *c)
{
    cJSON_Delete(c->reply);
    c->reply = NULL;
    while (!c->reply) {
        int rc = io_step(c);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int roundtrip(sc_client *c)
{
    int rc = sc_cl_finish_request(c);
    return rc != 0 ? rc : await_reply(c);
}

int sc_cl_simple(sc_client *c, sc_method_id m, sc_client_reply *r)
{
    if (c->async)
        return sc_cl_async_queue(c, m);
    if (c->pipelining) {
        if (c->queued == c->cap) {
            size_t cap = c->cap ? c->cap * 2 : 256;
            uint8_t *p = realloc(c->pending, cap);
            if (p)
                c->pending = p;
            sc_client_reply *rs = realloc(c->replies, cap * sizeof(*rs));
            if (rs)
                c->replies = rs;
            if (!p || !rs) {
                sc_cl_cancel(c);
                return sc_cl_fail(c, -ENOMEM, "out of memory queuing a request");
            }
            c->cap = cap;
        }
        int rc = sc_cl_finish_request(c);
        if (rc != 0)
            return rc;
        c->pending[c->queued++] = (uint8_t)m;
        while (c->out.len - c->out_sent >= SC_CL_FLUSH_AT) {
            rc = io_step(c);
            if (rc != 0)
                return rc;
        }
        return 1;
    }
    int rc = roundtrip(c);
    if (rc != 0)
        return rc;
    sc_cl_decode_reply(c, m, c->reply, r);
    cJSON_Delete(c->reply);
    c->reply = NULL;
    r->errmsg = NULL;
    r->errdata = NULL; /* the client's sc_client_errdata has it */
    return r->rc;
}

int sc_cl_tree(sc_client *c, sc_method_id m, cJSON **root, const cJSON **result)
{
    if (c->async)
        return sc_cl_async_queue(c, m);
    int rc = roundtrip(c);
    if (rc != 0)
        return rc;
    cJSON *reply = c->reply;
    c->reply = NULL;
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(reply, "error");
    if (error) {
        sc_client_reply r = {0};
        rc = decode_error(c, m, error, &r);
        cJSON_Delete(reply);
        return rc;
    }
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(reply, "result");
    if (!cJSON_IsObject(res)) {
        cJSON_Delete(reply);
        return sc_cl_malformed(c, m, "no result object");
    }
    *root = reply;
    *result = res;
    return 0;
}

int sc_cl_tree_raw(sc_client *c, const char *method, const char *params, cJSON **root,
                   const cJSON **result)
{
    if (!c->async && c->broken)
        return -ENOTCONN;
    if (c->log_state == SC_CL_LOG_ON)
        return sc_cl_log_refuse(c, method);
    sc_cl_clear_error(c);
    if (c->pipelining || c->async)
        return sc_cl_fail(c, -EBUSY, "%s cannot be called while a pipeline is open", method);
    c->req_start = c->out.len;
    bool first;
    sc_json_obj_begin(&c->out, &first);
    sc_json_member_cstr(&c->out, &first, "jsonrpc", "2.0");
    sc_json_member_u64(&c->out, &first, "id", c->next_id);
    sc_json_member_cstr(&c->out, &first, "method", method);
    sc_json_key(&c->out, &first, "params");
    sc_buf_puts(&c->out, params);
    sc_json_obj_end(&c->out);
    sc_buf_putc(&c->out, '\n');
    if (sc_buf_failed(&c->out)) {
        c->out.oom = false;
        sc_cl_cancel(c);
        return sc_cl_fail(c, -ENOMEM, "out of memory writing a request");
    }
    c->next_id++;
    int rc = await_reply(c);
    if (rc != 0)
        return rc;
    cJSON *reply = c->reply;
    c->reply = NULL;
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(reply, "error");
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(reply, "result");
    if (error) {
        /* decode_error's wording needs a known method; this one may not be. */
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(error, "code");
        const cJSON *msg = cJSON_GetObjectItemCaseSensitive(error, "message");
        rc = cJSON_IsNumber(code) ? sc_cl_map_code(code->valuedouble) : SC_CLIENT_ESERVER;
        c->errcode =
            cJSON_IsNumber(code) && code->valuedouble >= INT_MIN && code->valuedouble <= INT_MAX
                ? (int)code->valuedouble
                : 0;
        snprintf(c->errmsg, sizeof(c->errmsg), "%s",
                 cJSON_IsString(msg) && msg->valuestring ? msg->valuestring : "");
        keep_errdata(c, error);
        cJSON_Delete(reply);
        return rc;
    }
    if (!res) {
        cJSON_Delete(reply);
        return sc_cl_fail(c, -EPROTO, "malformed reply to %s: no result", method);
    }
    *root = reply;
    *result = res;
    return 0;
}

/* ------------------------------------------------------------ pipeline */

int sc_client_pipeline_begin(sc_client *c)
{
    if (!c)
        return -EINVAL;
    if (c->broken)
        return -ENOTCONN;
    if (c->pipelining || c->async)
        return sc_cl_fail(c, -EBUSY, "a pipeline or the asynchronous mode is open");
    sc_cl_clear_error(c);
    c->pipelining = true;
    c->queued = 0;
    c->answered = 0;
    return 0;
}

size_t sc_client_pipeline_size(const sc_client *c)
{
    return c && c->pipelining ? c->queued : 0;
}

int sc_client_pipeline_collect(sc_client *c, sc_client_reply **replies, size_t *count)
{
    if (!c || !replies || !count)
        return -EINVAL;
    *replies = NULL;
    *count = 0;
    if (!c->pipelining)
        return sc_cl_fail(c, -EINVAL, "no pipeline is open");
    int rc = c->broken ? -ENOTCONN : 0;
    while (rc == 0 && !pipeline_full(c))
        rc = io_step(c);
    c->pipelining = false;
    if (rc != 0) {
        drop_replies(c);
        return rc;
    }
    /* Hand the array over; the next pipeline allocates afresh. */
    *replies = c->replies;
    *count = c->answered;
    c->replies = NULL;
    free(c->pending);
    c->pending = NULL;
    c->cap = 0;
    c->queued = 0;
    c->answered = 0;
    sc_cl_clear_error(c);
    return 0;
}

void sc_client_replies_free(sc_client_reply *replies, size_t count)
{
    for (size_t i = 0; replies && i < count; i++) {
        free(replies[i].errmsg);
        free(replies[i].errdata);
    }
    free(replies);
}
