/*
 * server.c - the Unix socket: listen, accept, read, write, close.
 *
 * Each connection reads into its framer, hands complete lines to dispatch,
 * and collects replies in `out`; one uv_write per burst carries them.
 * Reading pauses while a request is in flight (so replies stay in request
 * order and a pipelining client cannot outrun the daemon) and while unsent
 * output is above the high-water mark (a client that never reads cannot
 * grow our memory).
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "sc_activation.h"
#include "sc_daemon.h"

/* Output above this pauses reading and request processing. */
#define SC_OUT_HIGH_WATER (4u << 20)
#define SC_READ_CHUNK     (64u << 10)

static void on_conn_closed(uv_handle_t *h);

/* Reply bytes buffered: unsent, being written, and kept behind held writes. */
static size_t out_pending(const sc_conn *c)
{
    return c->out.len + c->writing.len + sc_dispatch_held_bytes(c);
}

size_t sc_conn_pending(const sc_conn *c)
{
    return out_pending(c);
}

bool sc_conn_idle(const sc_conn *c)
{
    return !sc_dispatch_waiting(c) && !sc_dispatch_has_held(c);
}

bool sc_conn_congested(sc_conn *c)
{
    return out_pending(c) >= SC_OUT_HIGH_WATER || sc_buffers_over(c);
}

void sc_conn_ref(sc_conn *c)
{
    c->refs++;
}

static void conn_free(sc_conn *c)
{
    /* The handle is closed (or was never started) and nothing refers to it. */
    assert(c->refs == 0 && !c->reading && !c->write_busy);
    sc_dispatch_discard(c);
    free(c->sub_host);
    sc_framer_free(&c->in);
    sc_buf_free(&c->out);
    sc_buf_free(&c->writing);
    free(c);
}

void sc_conn_unref(sc_conn *c)
{
    if (--c->refs == 0)
        conn_free(c);
}

static void uid_release(sc_conn *c)
{
    if (!c->uid_counted)
        return;
    c->uid_counted = false;
    sc_uid_use *u = sc_uids_find(&c->d->uids, (uint32_t)c->uid);
    if (u) {
        u->conns--;
        sc_uids_put(&c->d->uids, u);
    }
}

static void conn_close(sc_conn *c)
{
    if (c->closing)
        return;
    c->closing = true;
    c->reading = false;
    sc_daemon *d = c->d;
    if (c->prev)
        c->prev->next = c->next;
    else
        d->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
    d->nconns--;
    sc_subs_forget(c);
    sc_buffers_forget(c);
    uid_release(c);
    if (c->nsessions)
        sc_sessions_abandon_bound(d, c);
    if (c->nsessions)
        sc_sessions_forget_conn(&d->sessions, c);
    uv_close((uv_handle_t *)&c->pipe, on_conn_closed);
}

static void on_conn_closed(uv_handle_t *h)
{
    sc_conn *c = (sc_conn *)h;
    sc_daemon *d = c->d;
    sc_conn_unref(c);
    sc_buffers_release(d);
    sc_server_check_stopped(d);
}

/*
 * Idle connections keep no buffers, so a thousand of them stay cheap; busy
 * ones keep theirs between requests (no allocation on the request path).
 */
static void conn_trim(sc_conn *c)
{
    if (sc_dispatch_busy(c) || c->write_busy)
        return;
    sc_framer_release_if_idle(&c->in);
    sc_dispatch_trim(c);
    if (c->out.len == 0)
        sc_buf_free(&c->out);
    sc_buf_free(&c->writing);
}

static void on_write(uv_write_t *req, int status)
{
    sc_conn *c = req->data;
    c->write_busy = false;
    c->last_active = uv_now(c->d->loop);
    sc_buf_reset(&c->writing);
    if (status < 0) {
        /* The peer went away mid-reply: drop it, nobody else is affected. */
        sc_log(&c->d->log, SC_LOG_DEBUG, "connection %llu: write failed: %s",
               (unsigned long long)c->serial, uv_strerror(status));
        sc_conn_unref(c);
        conn_close(c);
        return;
    }
    sc_conn_flush(c);
    if (!c->closing && !c->write_busy && c->close_after_flush && !sc_dispatch_has_held(c)) {
        sc_conn_unref(c);
        conn_close(c);
        return;
    }
    /* Output drained below the mark: catch up on buffered requests. */
    if (!c->closing && !sc_dispatch_waiting(c) && out_pending(c) < SC_OUT_HIGH_WATER)
        sc_dispatch_process(c);
    sc_conn_update_reading(c);
    sc_buffers_release(c->d);
    sc_conn_unref(c);
}

void sc_conn_flush(sc_conn *c)
{
    if (c->closing || c->write_busy || c->out.len == 0)
        return;
    if (sc_buf_failed(&c->out)) {
        sc_log(&c->d->log, SC_LOG_ERROR, "connection %llu: out of memory for replies",
               (unsigned long long)c->serial);
        conn_close(c);
        return;
    }
    /*
     * Most replies fit in the socket buffer: write them now.  A uv_write()
     * that completes at once still costs a deferred callback and an
     * epoll_ctl() when libuv drops its write interest, a third of the
     * system calls of a one-request round trip.
     */
    uv_buf_t b = uv_buf_init(c->out.data, (unsigned)c->out.len);
    int n = uv_try_write((uv_stream_t *)&c->pipe, &b, 1);
    if (n >= 0 && (size_t)n == c->out.len) {
        sc_buf_reset(&c->out);
        c->last_active = uv_now(c->d->loop);
        return;
    }
    if (n < 0 && n != UV_EAGAIN) {
        sc_buf_reset(&c->out);
        conn_close(c);
        return;
    }
    size_t done = n > 0 ? (size_t)n : 0;
    /* Swap buffers: `writing` belongs to libuv until on_write. */
    sc_buf tmp = c->writing;
    c->writing = c->out;
    c->out = tmp;
    b = uv_buf_init(c->writing.data + done, (unsigned)(c->writing.len - done));
    c->wreq.data = c;
    int rc = uv_write(&c->wreq, (uv_stream_t *)&c->pipe, &b, 1, on_write);
    if (rc < 0) {
        sc_buf_reset(&c->writing);
        conn_close(c);
        return;
    }
    c->write_busy = true;
    c->stall_queue = 0;
    c->stall_outq = -1;
    c->stall_since = uv_now(c->d->loop);
    sc_conn_ref(c);
}

void sc_conn_close_after_flush(sc_conn *c)
{
    c->close_after_flush = true;
    sc_conn_update_reading(c);
    sc_conn_flush(c);
    /* Held writes still owe their replies: the last one to finish closes. */
    if (!c->write_busy && !sc_dispatch_has_held(c))
        conn_close(c);
}

#define SC_POOL_MAX_CAP (256u << 10)

void sc_conn_recycle_input(sc_conn *c)
{
    if (sc_dispatch_busy(c))
        return;
    sc_daemon *d = c->d;
    size_t cap = 0;
    char *buf = sc_framer_detach_if_idle(&c->in, &cap);
    if (!buf)
        return;
    size_t n = sizeof(d->buf_pool) / sizeof(d->buf_pool[0]);
    if (d->buf_pool_len < n && cap <= SC_POOL_MAX_CAP) {
        d->buf_pool[d->buf_pool_len] = buf;
        d->buf_pool_cap[d->buf_pool_len++] = cap;
    } else {
        free(buf);
    }
}

void sc_server_free_pool(sc_daemon *d)
{
    while (d->buf_pool_len > 0)
        free(d->buf_pool[--d->buf_pool_len]);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    sc_conn *c = (sc_conn *)h;
    sc_daemon *d = c->d;
    char *p = NULL;
    size_t avail = 0;
    (void)suggested;
    /* A connection between requests holds no buffer: borrow a pooled one. */
    if (!c->in.buf && d->buf_pool_len > 0) {
        d->buf_pool_len--;
        sc_framer_adopt(&c->in, d->buf_pool[d->buf_pool_len], d->buf_pool_cap[d->buf_pool_len]);
    }
    if (sc_framer_space(&c->in, SC_READ_CHUNK, &p, &avail) != 0) {
        *buf = uv_buf_init(NULL, 0); /* libuv reports UV_ENOBUFS */
        return;
    }
    *buf = uv_buf_init(p, (unsigned)(avail > UINT32_MAX ? UINT32_MAX : avail));
}

/*
 * While the connection reads, whatever the framer still holds is the start
 * of a line the client has not finished: its age is what --line-timeout
 * bounds, however slowly the bytes trickle in.
 */
static void note_partial_line(sc_conn *c)
{
    /* A pause for the buffer budget is the client's: its line stays timed. */
    if ((!c->reading && !c->budget_paused) || sc_framer_pending(&c->in) == 0)
        c->partial_since = 0;
    else if (c->partial_since == 0)
        c->partial_since = uv_now(c->d->loop);
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    sc_conn *c = (sc_conn *)s;
    (void)buf;
    if (n == 0)
        return;
    if (n < 0) {
        if (n != UV_EOF)
            sc_log(&c->d->log, SC_LOG_DEBUG, "connection %llu: read: %s",
                   (unsigned long long)c->serial, uv_strerror((int)n));
        /* Half-closed peers still get replies to what they sent; a request
         * in flight closes the connection when it completes. */
        uv_read_stop(s);
        c->reading = false;
        c->peer_eof = true;
        /* The peer's last line may end with EOF instead of '\n': it is a
         * request all the same (a blank tail is skipped like a blank line). */
        if (n == UV_EOF && sc_framer_pending(&c->in) > 0 && sc_framer_push(&c->in, "\n", 1) != 0)
            sc_log(&c->d->log, SC_LOG_WARN, "connection %llu: out of memory ending its last line",
                   (unsigned long long)c->serial);
        sc_conn_ref(c);
        sc_dispatch_process(c);
        if (!c->closing && sc_conn_idle(c))
            sc_conn_close_after_flush(c);
        else
            sc_conn_flush(c);
        sc_conn_unref(c);
        return;
    }
    sc_framer_commit(&c->in, (size_t)n);
    c->last_active = uv_now(c->d->loop);
    sc_conn_ref(c);
    sc_dispatch_process(c);
    sc_conn_flush(c);
    sc_conn_update_reading(c);
    note_partial_line(c);
    sc_conn_recycle_input(c);
    sc_conn_unref(c);
}

void sc_conn_update_reading(sc_conn *c)
{
    if (c->closing) {
        assert(!c->reading);
        return;
    }
    bool may = !sc_dispatch_waiting(c) && !c->close_after_flush && !c->peer_eof &&
               !c->d->stopping && out_pending(c) < SC_OUT_HIGH_WATER;
    bool was_budget = c->budget_paused;
    bool over = may && sc_buffers_over(c);
    sc_buffers_note_paused(c, over);
    bool want = may && !over;
    if (want == c->reading)
        return;
    if (want) {
        if (uv_read_start((uv_stream_t *)&c->pipe, on_alloc, on_read) == 0)
            c->reading = true;
        /* Time the daemon spent busy is not the client's. */
        if (!was_budget)
            c->partial_since = 0;
        note_partial_line(c);
    } else {
        uv_read_stop((uv_stream_t *)&c->pipe);
        c->reading = false;
    }
}

/* One 1006 line with id null the client can read, then EOF. */
static void refuse_connection(sc_conn *c, const sc_rpc_error *err)
{
    sc_rpc_write_error(&c->out, SC_JVAL_NONE, err);
    sc_buf_putc(&c->out, '\n');
    sc_conn_close_after_flush(c);
}

static sc_conn *conn_new(sc_daemon *d)
{
    sc_conn *c = calloc(1, sizeof(*c));
    if (!c || sc_framer_init(&c->in, d->cfg.max_message) != 0) {
        free(c);
        sc_log(&d->log, SC_LOG_ERROR, "accept: out of memory");
        return NULL;
    }
    c->d = d;
    c->refs = 1;
    c->serial = ++d->next_conn_serial;
    /* Idle from now on, not from the epoch: the idle sweep measures from here. */
    c->last_active = uv_now(d->loop);
    uv_pipe_init(d->loop, &c->pipe, 0);
    c->next = d->conns;
    if (d->conns)
        d->conns->prev = c;
    d->conns = c;
    d->nconns++;
    return c;
}

/* Past --max-connections.  Every connection object counts, refused ones
 * still being closed included, except for root, which counts admitted
 * connections only: other uids' refused ones cannot keep it out. */
static bool over_connection_limit(const sc_daemon *d, const sc_conn *c)
{
    if (c->uid != 0)
        return d->nconns > d->cfg.max_connections;
    const sc_uid_use *root = sc_uids_find(&d->uids, 0);
    unsigned admitted = sc_uids_nonroot_conns(&d->uids) + (root ? root->conns : 0);
    return admitted >= d->cfg.max_connections;
}

/* A new client: refuse it past the limit, else start reading. */
static void conn_start(sc_conn *c)
{
    sc_daemon *d = c->d;
    sc_rpc_error err = {0};
    if (over_connection_limit(d, c)) {
        sc_rpc_fail(&err, SC_RPC_LIMIT, "too many connections (limit %u)", d->cfg.max_connections);
        refuse_connection(c, &err);
        return;
    }
    /* Like PostgreSQL's superuser_reserved_connections: whatever set of
     * other uids fills the daemon, root can still get in to look and stop
     * them.  Counted over admitted connections. */
    unsigned others = sc_nonroot_limit(d->cfg.max_connections, d->cfg.root_reserved);
    if (c->uid != 0 && sc_uids_nonroot_conns(&d->uids) >= others) {
        sc_rpc_fail(&err, SC_RPC_LIMIT,
                    "too many connections: uids other than root hold %u, the limit less the %u "
                    "kept for root (--root-reserved)",
                    others, d->cfg.max_connections - others);
        sc_log(&d->log, SC_LOG_WARN,
               "connection %llu from uid %u pid %d refused: the rest is kept for root",
               (unsigned long long)c->serial, (unsigned)c->uid, (int)c->pid);
        refuse_connection(c, &err);
        return;
    }
    sc_uid_use *u = sc_uids_get(&d->uids, (uint32_t)c->uid);
    if (!u) {
        sc_rpc_fail(&err, SC_RPC_INTERNAL_ERROR, "out of memory");
        refuse_connection(c, &err);
        return;
    }
    if (u->conns >= d->cfg.max_uid_connections) {
        sc_rpc_fail(&err, SC_RPC_LIMIT,
                    "too many connections for uid %u (per-uid quota %u, --max-uid-connections)",
                    (unsigned)c->uid, d->cfg.max_uid_connections);
        sc_uids_put(&d->uids, u);
        sc_log(&d->log, SC_LOG_WARN,
               "connection %llu from uid %u pid %d refused: per-uid quota of %u",
               (unsigned long long)c->serial, (unsigned)c->uid, (int)c->pid,
               d->cfg.max_uid_connections);
        refuse_connection(c, &err);
        return;
    }
    u->conns++;
    c->uid_counted = true;
    sc_log(&d->log, SC_LOG_DEBUG, "connection %llu from uid %u pid %d",
           (unsigned long long)c->serial, (unsigned)c->uid, (int)c->pid);
    sc_conn_update_reading(c);
}

static void on_connection(uv_stream_t *server, int status)
{
    sc_daemon *d = server->data;
    if (status < 0) {
        sc_log(&d->log, SC_LOG_WARN, "accept: %s", uv_strerror(status));
        return;
    }
    sc_conn *c = conn_new(d);
    if (!c)
        return;
    if (uv_accept(server, (uv_stream_t *)&c->pipe) != 0) {
        /* Out of descriptors or the peer left: the pipe must still be closed. */
        conn_close(c);
        return;
    }
    uv_os_fd_t fd;
    struct ucred cred;
    socklen_t len = sizeof(cred);
    if (uv_fileno((uv_handle_t *)&c->pipe, &fd) == 0 &&
        getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
        c->uid = cred.uid;
        c->pid = cred.pid;
    } else {
        /* Without credentials nobody owns anything: fail closed. */
        c->uid = (uid_t)-1;
        c->pid = 0;
    }
    conn_start(c);
}

int sc_server_adopt(sc_daemon *d, int fd, uid_t uid, pid_t pid)
{
    sc_conn *c = conn_new(d);
    if (!c) {
        close(fd);
        return -1;
    }
    if (uv_pipe_open(&c->pipe, fd) != 0) {
        close(fd);
        conn_close(c);
        return -1;
    }
    c->uid = uid;
    c->pid = pid;
    conn_start(c);
    return 0;
}

void sc_server_close_all(sc_daemon *d)
{
    while (d->conns)
        conn_close(d->conns);
}

/*
 * A socket file that exists is either a live daemon (refuse to start, leave
 * it alone) or left over from one that died (replace it).  Anything that is
 * not a socket is not ours to delete.
 */
static int claim_socket_path(sc_daemon *d)
{
    const char *path = d->cfg.socket_path;
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        sc_log(&d->log, SC_LOG_ERROR, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISSOCK(st.st_mode)) {
        sc_log(&d->log, SC_LOG_ERROR, "%s exists and is not a socket; not replacing it", path);
        return -1;
    }
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    memcpy(sa.sun_path, path, strlen(path) + 1); /* its length was checked */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        sc_log(&d->log, SC_LOG_ERROR, "socket: %s", strerror(errno));
        return -1;
    }
    int rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
    int err = errno;
    close(fd);
    if (rc == 0 || err == EAGAIN) {
        sc_log(&d->log, SC_LOG_ERROR, "another daemon is already listening on %s", path);
        return -1;
    }
    if (unlink(path) != 0 && errno != ENOENT) {
        sc_log(&d->log, SC_LOG_ERROR, "cannot remove stale socket %s: %s", path, strerror(errno));
        return -1;
    }
    sc_log(&d->log, SC_LOG_INFO, "replaced stale socket %s", path);
    return 0;
}

/*
 * Serve on the descriptor systemd passed.  The unit owns the file (its
 * path, mode and lifetime): nothing is bound, chmod'ed or unlinked here.
 */
static int adopt_listener(sc_daemon *d, int fd)
{
    struct sockaddr_un sa;
    socklen_t len = sizeof(sa);
    memset(&sa, 0, sizeof(sa));
    if (getsockname(fd, (struct sockaddr *)&sa, &len) == 0 && sa.sun_path[0] != '\0') {
        memcpy(d->inherited_path, sa.sun_path, sizeof(d->inherited_path) - 1);
        d->cfg.socket_path = d->inherited_path;
    }
    uv_pipe_init(d->loop, &d->listener, 0);
    d->listener.data = d;
    int rc = uv_pipe_open(&d->listener, fd);
    if (rc == 0)
        rc = uv_listen((uv_stream_t *)&d->listener, 511, on_connection);
    if (rc < 0) {
        sc_log(&d->log, SC_LOG_ERROR, "cannot serve the socket passed by the service manager: %s",
               uv_strerror(rc));
        uv_close((uv_handle_t *)&d->listener, NULL);
        return -1;
    }
    d->socket_inherited = true;
    d->listening = true;
    sc_log(&d->log, SC_LOG_INFO, "using the socket inherited from the service manager (fd %d): %s",
           fd, d->cfg.socket_path);
    return 0;
}

static int bind_listener(sc_daemon *d)
{
    /* sc_server_prepare claimed the path; a daemon that started since then
     * (while the store opened) is refused here again. */
    if (claim_socket_path(d) != 0)
        return -1;
    uv_pipe_init(d->loop, &d->listener, 0);
    d->listener.data = d;
    /* The mode is set at bind time: no window where the socket is wider. */
    mode_t old = umask((mode_t)(~d->cfg.socket_mode & 0777));
    int rc = uv_pipe_bind(&d->listener, d->cfg.socket_path);
    umask(old);
    if (rc == 0)
        rc = uv_listen((uv_stream_t *)&d->listener, 511, on_connection);
    if (rc < 0) {
        sc_log(&d->log, SC_LOG_ERROR, "cannot listen on %s: %s", d->cfg.socket_path,
               uv_strerror(rc));
        uv_close((uv_handle_t *)&d->listener, NULL);
        return -1;
    }
    d->listening = true;
    return 0;
}

int sc_server_prepare(sc_daemon *d, int *listen_fd)
{
    char err[256];
    if (sc_activation_listen_fd(listen_fd, err, sizeof(err)) != 0) {
        sc_log(&d->log, SC_LOG_ERROR, "%s", err);
        return -1;
    }
    if (*listen_fd >= 0)
        return 0;
    if (strlen(d->cfg.socket_path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
        sc_log(&d->log, SC_LOG_ERROR, "socket path too long: %s", d->cfg.socket_path);
        return -1;
    }
    return claim_socket_path(d);
}

int sc_server_start(sc_daemon *d, int listen_fd)
{
    if ((listen_fd >= 0 ? adopt_listener(d, listen_fd) : bind_listener(d)) != 0)
        return -1;
    /* A failed notification only delays systemd's view of us: keep serving. */
    if (sc_activation_notify_ready() != 0)
        sc_log(&d->log, SC_LOG_WARN, "could not notify the service manager of readiness");
    return 0;
}

/*
 * Bytes the kernel holds for the peer and it has not read yet (SIOCOUTQ),
 * or -1 when unknown.  libuv's queue only shrinks once the socket takes
 * more, which for AF_UNIX is when a quarter of its send buffer is left in
 * flight: a peer reading 4 KiB/s takes a minute to get there while it
 * reads all along.  This figure moves with every read of the peer.
 */
static int kernel_unread(sc_conn *c)
{
    uv_os_fd_t fd;
    int n;
    if (uv_fileno((uv_handle_t *)&c->pipe, &fd) != 0 || ioctl(fd, SIOCOUTQ, &n) != 0)
        return -1;
    return n;
}

/*
 * A connection that holds a partial line for --line-timeout seconds, or
 * sits with nothing going on (no request, no reply, no live session used
 * through it) for --connection-idle-timeout seconds, gives its slot back.
 * True when it was closed.
 */
static bool conn_timed_out(sc_conn *c, uint64_t now)
{
    sc_daemon *d = c->d;
    uint64_t line_ms = (uint64_t)d->cfg.line_timeout_s * 1000u;
    uint64_t idle_ms = (uint64_t)d->cfg.conn_idle_timeout_s * 1000u;
    if ((c->reading || c->budget_paused) && c->partial_since && now - c->partial_since >= line_ms) {
        sc_log(&d->log, SC_LOG_WARN,
               "connection %llu (uid %u pid %d): %zu bytes of a line without its end for %us, "
               "closing",
               (unsigned long long)c->serial, (unsigned)c->uid, (int)c->pid,
               sc_framer_pending(&c->in), d->cfg.line_timeout_s);
        conn_close(c);
        return true;
    }
    if (c->reading && c->nsessions == 0 && !c->subscribed && !c->write_busy && c->out.len == 0 &&
        sc_framer_pending(&c->in) == 0 && sc_conn_idle(c) && now - c->last_active >= idle_ms) {
        sc_log(&d->log, SC_LOG_INFO,
               "connection %llu (uid %u pid %d): idle for %us without a session, "
               "closing",
               (unsigned long long)c->serial, (unsigned)c->uid, (int)c->pid,
               d->cfg.conn_idle_timeout_s);
        conn_close(c);
        return true;
    }
    return false;
}

void sc_server_sweep(sc_daemon *d)
{
    uint64_t now = uv_now(d->loop);
    uint64_t limit = (uint64_t)d->cfg.write_timeout_s * 1000u;
    sc_conn *c = d->conns;
    while (c) {
        sc_conn *next = c->next;
        if (c->closing || conn_timed_out(c, now)) {
            c = next;
            continue;
        }
        if (!c->write_busy) {
            if (now - c->last_active >= 1000)
                conn_trim(c);
            c = next;
            continue;
        }
        size_t q = uv_stream_get_write_queue_size((uv_stream_t *)&c->pipe);
        int outq = kernel_unread(c);
        if (q != c->stall_queue || outq != c->stall_outq) {
            c->stall_queue = q;
            c->stall_outq = outq;
            c->stall_since = now;
        } else if (now - c->stall_since >= limit) {
            /* It stopped reading with replies pending: cut it loose. */
            sc_log(&d->log, SC_LOG_WARN,
                   "connection %llu (pid %d): no reply bytes taken for %us, closing",
                   (unsigned long long)c->serial, (int)c->pid, d->cfg.write_timeout_s);
            conn_close(c);
        }
        c = next;
    }
    sc_buffers_release(d);
}

static void close_store(uv_timer_t *t)
{
    sc_daemon *d = t->data;
    uv_close((uv_handle_t *)t, NULL);
    /* From here a refused log row is kept for the next start, not retried. */
    d->log_final = true;
    if (!uv_is_closing((uv_handle_t *)&d->idle_timer))
        uv_unref((uv_handle_t *)&d->idle_timer);
    /* Every acknowledged write is in; queued log rows are drained here. */
    char err[512];
    size_t saved = 0;
    if (sc_store_close_report(d->store, &saved, err, sizeof err) != 0)
        sc_log(&d->log, SC_LOG_ERROR,
               "could not record the final log rows the database refused for the next start: "
               "%s; the next start will call those sessions lost",
               err);
    else if (saved > 0)
        sc_log(&d->log, SC_LOG_WARN, "recorded %zu final log row%s for the next start to write",
               saved, saved == 1 ? "" : "s");
    d->store = NULL;
    d->store_closed = true;
    sc_log(&d->log, SC_LOG_INFO, "stopped");
}

void sc_server_check_stopped(sc_daemon *d)
{
    if (!d->stopping || d->store_closed || uv_is_active((uv_handle_t *)&d->close_timer))
        return;
    if (d->inflight > 0 || d->opening_sessions > 0)
        return;
    /* Refused final log rows are retried until the grace period ends. */
    if (!d->log_final && sc_log_retry_pending(d))
        return;
    /* We may be inside a store callback here: close on the next loop turn. */
    uv_timer_start(&d->close_timer, close_store, 0, 0);
}

/*
 * How long a stop waits for clients to take their last replies, and for
 * the database to take final log rows it refused (a write lock held
 * elsewhere, a full disk).  The write-timeout sweep stops with the daemon,
 * so without this bound a client that never reads would keep the process
 * alive for good.
 */
#define SC_STOP_GRACE_MS 5000
/* How often a stop retries the final log rows the database refused. */
#define SC_STOP_RETRY_MS 200

/* The grace period is over: clients that did not take their replies are
 * closed, and refused log rows are kept for the next start. */
static void stop_grace_over(sc_daemon *d)
{
    uv_timer_stop(&d->idle_timer);
    uv_unref((uv_handle_t *)&d->idle_timer);
    sc_log_retry_give_up(d);
    unsigned n = 0;
    for (sc_conn *c = d->conns, *next; c; c = next) {
        next = c->next;
        if (!c->closing) {
            conn_close(c);
            n++;
        }
    }
    if (n)
        sc_log(&d->log, SC_LOG_WARN,
               "stopping: closed %u connection%s that had not taken %s replies", n,
               n == 1 ? "" : "s", n == 1 ? "its" : "their");
    sc_server_check_stopped(d);
}

static void on_stop_tick(uv_timer_t *t)
{
    sc_daemon *d = t->data;
    if (uv_now(d->loop) >= d->stop_deadline) {
        stop_grace_over(d);
        return;
    }
    if (!d->store_closed)
        sc_log_retry_all(d);
}

void sc_server_stop(sc_daemon *d)
{
    if (d->stopping)
        return;
    d->stopping = true;
    sc_log(&d->log, SC_LOG_INFO, "stopping");
    sc_metrics_stop(d);
    sc_retention_stop(d);
    if (d->listening) {
        uv_close((uv_handle_t *)&d->listener, NULL);
        d->listening = false;
        if (!d->socket_inherited)
            unlink(d->cfg.socket_path);
    }
    /*
     * The housekeeping timer becomes the stop's: it retries refused log
     * rows and ends the grace period.  It keeps the loop alive only until
     * the store has closed, so once every connection has closed too the
     * process exits.
     */
    uv_timer_stop(&d->idle_timer);
    d->stop_deadline = uv_now(d->loop) + SC_STOP_GRACE_MS;
    uv_timer_start(&d->idle_timer, on_stop_tick, SC_STOP_RETRY_MS, SC_STOP_RETRY_MS);
    uv_ref((uv_handle_t *)&d->idle_timer);
    /* Refused log updates are tried again, now allowed the reserve's room. */
    sc_log_retry_all(d);
    /* Long graph.reachable jobs end now, not after their last pair. */
    sc_reach_stop(d);
    sc_sessions_shutdown(d);
    /* Connections with a request in flight close once it has replied. */
    sc_conn *c = d->conns;
    while (c) {
        sc_conn *next = c->next;
        if (sc_conn_idle(c))
            sc_conn_close_after_flush(c);
        else
            sc_conn_update_reading(c);
        c = next;
    }
    sc_server_check_stopped(d);
}
