#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "harness.h"

#define LISTEN_PREFIX "streamcapd: listening on "
/* Connect-probing for readiness only kicks in after this long: a probe is a
 * real connection the daemon counts, which tests of server.info notice. */
#define PROBE_AFTER_MS 2000

struct sc_it_daemon {
    char dir[128];
    char sock[192];
    char db[192];
    char out_path[192];
    char err_path[192];
    pid_t pid;
    int status;
    int runs;
    const char *const *wrapper; /* argv in front of the daemon's, or NULL */
    const char *binary;         /* streamcapd to run; NULL: the build's */
    int start_ms;               /* 0: SC_IT_START_TIMEOUT_MS */
    int stop_ms;                /* 0: SC_IT_STOP_TIMEOUT_MS */
};

struct sc_it_conn {
    int fd;
    char *rx;
    size_t rx_len;
    size_t rx_cap;
    size_t rx_scanned; /* bytes of rx already known to hold no '\n' */
    bool eof;
    int timeout_ms;
    int64_t next_id;
    char *last_request;
};

/* ------------------------------------------------------------------ time */

int64_t sc_it_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void sc_it_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static int remaining_ms(int64_t deadline)
{
    int64_t left = deadline - sc_it_now_ms();
    return left < 0 ? 0 : (int)left;
}

/* ---------------------------------------------------------------- files */

char *sc_it_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (cap - len < 2) {
            char *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        size_t n = fread(buf + len, 1, cap - len - 1, f);
        len += n;
        if (n == 0)
            break;
    }
    fclose(f);
    if (buf)
        buf[len] = '\0';
    return buf;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

int sc_it_tmpdir(char *out, size_t len)
{
    /* /tmp rather than $TMPDIR: sun_path holds only 108 bytes. */
    if (snprintf(out, len, "/tmp/sc-it-XXXXXX") >= (int)len)
        return -ENAMETOOLONG;
    return mkdtemp(out) ? 0 : -errno;
}

void sc_it_rmtree(const char *dir)
{
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---------------------------------------------------------------- sockets */

/* A close-on-exec AF_UNIX stream socket on which `op` (connect or bind)
 * succeeded for `path`: the descriptor, or a negative errno. */
static int unix_socket(const char *path, int (*op)(int, const struct sockaddr *, socklen_t))
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof(addr.sun_path))
        return -ENAMETOOLONG;
    strcpy(addr.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    if (op(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    return fd;
}

int sc_it_socket_connect(const char *path)
{
    return unix_socket(path, connect);
}

int sc_it_socket_bind(const char *path)
{
    return unix_socket(path, bind);
}

/* --------------------------------------------------------------- daemon */

const char *sc_it_daemon_binary(void)
{
    return SC_BIN_DIR "/streamcapd";
}

int sc_it_daemon_create(sc_it_daemon **out)
{
    sc_it_daemon *d = calloc(1, sizeof(*d));
    if (!d)
        return -ENOMEM;
    int rc = sc_it_tmpdir(d->dir, sizeof(d->dir));
    if (rc != 0) {
        free(d);
        return rc;
    }
    snprintf(d->sock, sizeof(d->sock), "%s/streamcap.sock", d->dir);
    snprintf(d->db, sizeof(d->db), "%s/streamcap.db", d->dir);
    d->status = -1;
    *out = d;
    return 0;
}

void sc_it_daemon_destroy(sc_it_daemon *d)
{
    if (!d)
        return;
    if (d->pid > 0)
        sc_it_daemon_kill(d);
    sc_it_rmtree(d->dir);
    free(d);
}

void sc_it_daemon_set_binary(sc_it_daemon *d, const char *path)
{
    d->binary = path;
}

void sc_it_daemon_set_wrapper(sc_it_daemon *d, const char *const *wrapper)
{
    d->wrapper = wrapper;
}

void sc_it_daemon_set_timeouts(sc_it_daemon *d, int start_ms, int stop_ms)
{
    d->start_ms = start_ms;
    d->stop_ms = stop_ms;
}

const char *sc_it_daemon_dir(const sc_it_daemon *d)
{
    return d->dir;
}

const char *sc_it_daemon_socket(const sc_it_daemon *d)
{
    return d->sock;
}

const char *sc_it_daemon_db(const sc_it_daemon *d)
{
    return d->db;
}

pid_t sc_it_daemon_pid(const sc_it_daemon *d)
{
    return d->pid;
}

int sc_it_daemon_status(const sc_it_daemon *d)
{
    return d->status;
}

const char *sc_it_daemon_stdout_path(const sc_it_daemon *d)
{
    return d->out_path;
}

const char *sc_it_daemon_stderr_path(const sc_it_daemon *d)
{
    return d->err_path;
}

/* Child side of fork: never returns. */
static void exec_child(const char *dir, const char *out_path, const char *err_path,
                       char *const *argv, pid_t parent)
{
    /* A failed assertion leaves the test without its clean-up: the daemon
     * must still die with the test process instead of outliving it. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        _exit(125);
    int in = open("/dev/null", O_RDONLY);
    int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 ||
        chdir(dir) != 0)
        _exit(126);
    execv(argv[0], argv);
    _exit(127);
}

static size_t count_args(const char *const *args)
{
    size_t n = 0;
    while (args && args[n])
        n++;
    return n;
}

/* Fork and exec [wrapper...] streamcapd head... extra... */
static pid_t spawn(const char *binary, const char *dir, const char *out_path, const char *err_path,
                   const char *const *wrapper, const char *const *head, size_t nhead,
                   const char *const *extra)
{
    size_t nwrapper = count_args(wrapper);
    size_t nextra = count_args(extra);
    char **argv = calloc(nwrapper + 1 + nhead + nextra + 1, sizeof(char *));
    if (!argv)
        return -ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < nwrapper; i++)
        argv[n++] = (char *)wrapper[i];
    argv[n++] = (char *)(binary ? binary : sc_it_daemon_binary());
    for (size_t i = 0; i < nhead; i++)
        argv[n++] = (char *)head[i];
    for (size_t i = 0; i < nextra; i++)
        argv[n++] = (char *)extra[i];
    argv[n] = NULL;
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0)
        exec_child(dir, out_path, err_path, argv, parent);
    int e = errno;
    free(argv);
    return pid < 0 ? -e : pid;
}

static bool reap(sc_it_daemon *d, int flags)
{
    int status;
    pid_t r;
    do {
        r = waitpid(d->pid, &status, flags);
    } while (r < 0 && errno == EINTR);
    if (r != d->pid)
        return false;
    d->status = status;
    d->pid = 0;
    return true;
}

static bool saw_listening_line(const sc_it_daemon *d)
{
    char *text = sc_it_read_file(d->out_path);
    bool seen = text && strstr(text, LISTEN_PREFIX) != NULL;
    free(text);
    return seen;
}

static bool socket_accepts(const char *path)
{
    sc_it_conn *c;
    if (sc_it_connect(path, &c) != 0)
        return false;
    sc_it_conn_close(c);
    return true;
}

int sc_it_daemon_start(sc_it_daemon *d, const char *const *extra)
{
    if (d->pid > 0)
        return -EBUSY;
    d->runs++;
    snprintf(d->out_path, sizeof(d->out_path), "%s/daemon-%d.out", d->dir, d->runs);
    snprintf(d->err_path, sizeof(d->err_path), "%s/daemon-%d.err", d->dir, d->runs);
    const char *head[] = {"--socket", d->sock, "--db", d->db};
    pid_t pid = spawn(d->binary, d->dir, d->out_path, d->err_path, d->wrapper, head, 4, extra);
    if (pid < 0)
        return (int)pid;
    d->pid = pid;
    int64_t start = sc_it_now_ms();
    int64_t deadline = start + (d->start_ms > 0 ? d->start_ms : SC_IT_START_TIMEOUT_MS);
    while (sc_it_now_ms() < deadline) {
        if (reap(d, WNOHANG))
            return -ECHILD;
        if (saw_listening_line(d))
            return 0;
        if (sc_it_now_ms() - start > PROBE_AFTER_MS && socket_accepts(d->sock))
            return 0;
        sc_it_sleep_ms(10);
    }
    return -ETIMEDOUT;
}

bool sc_it_daemon_running(sc_it_daemon *d)
{
    if (d->pid <= 0)
        return false;
    return !reap(d, WNOHANG);
}

int sc_it_daemon_signal_stop(sc_it_daemon *d, int sig, int *status)
{
    if (d->pid <= 0)
        return -ESRCH;
    kill(d->pid, sig);
    int64_t deadline = sc_it_now_ms() + (d->stop_ms > 0 ? d->stop_ms : SC_IT_STOP_TIMEOUT_MS);
    while (sc_it_now_ms() < deadline) {
        if (reap(d, WNOHANG)) {
            if (status)
                *status = d->status;
            return 0;
        }
        sc_it_sleep_ms(5);
    }
    sc_it_daemon_kill(d);
    return -ETIMEDOUT;
}

int sc_it_daemon_kill(sc_it_daemon *d)
{
    if (d->pid <= 0)
        return -ESRCH;
    kill(d->pid, SIGKILL);
    reap(d, 0);
    return 0;
}

static int wait_exit(pid_t pid, int timeout_ms, int *status)
{
    int64_t deadline = sc_it_now_ms() + timeout_ms;
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid)
            return 0;
        if (r < 0 && errno != EINTR)
            return -errno;
        if (sc_it_now_ms() >= deadline)
            break;
        sc_it_sleep_ms(5);
    }
    kill(pid, SIGKILL);
    waitpid(pid, status, 0);
    return -ETIMEDOUT;
}

int sc_it_run_daemon(const char *dir, const char *const *args, int timeout_ms, int *status,
                     char **out, char **err)
{
    static const char *const none[] = {NULL};
    char out_path[272], err_path[272];
    char tmpl[256];
    snprintf(tmpl, sizeof(tmpl), "%s/run-XXXXXX", dir);
    int fd = mkstemp(tmpl);
    if (fd < 0)
        return -errno;
    close(fd);
    snprintf(out_path, sizeof(out_path), "%s.out", tmpl);
    snprintf(err_path, sizeof(err_path), "%s.err", tmpl);
    pid_t pid = spawn(NULL, dir, out_path, err_path, NULL, none, 0, args);
    if (pid < 0)
        return (int)pid;
    int rc = wait_exit(pid, timeout_ms, status);
    if (out)
        *out = sc_it_read_file(out_path);
    if (err)
        *err = sc_it_read_file(err_path);
    return rc;
}

/* ------------------------------------------------------------ connection */

int sc_it_connect(const char *socket_path, sc_it_conn **out)
{
    int fd = sc_it_socket_connect(socket_path);
    if (fd < 0)
        return fd;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    sc_it_conn *c = calloc(1, sizeof(*c));
    if (!c) {
        close(fd);
        return -ENOMEM;
    }
    c->fd = fd;
    c->timeout_ms = SC_IT_IO_TIMEOUT_MS;
    c->next_id = 1;
    *out = c;
    return 0;
}

void sc_it_conn_close(sc_it_conn *c)
{
    if (!c)
        return;
    close(c->fd);
    free(c->rx);
    free(c->last_request);
    free(c);
}

void sc_it_conn_set_timeout(sc_it_conn *c, int timeout_ms)
{
    c->timeout_ms = timeout_ms;
}

int64_t sc_it_next_id(sc_it_conn *c)
{
    return c->next_id++;
}

const char *sc_it_last_request(const sc_it_conn *c)
{
    return c && c->last_request ? c->last_request : "(none)";
}

/* Read what is available into rx: 1 when bytes arrived, 0 on EAGAIN,
 * SC_IT_EOF on close (a reset counts as a close), or -errno. */
static int fill(sc_it_conn *c)
{
    if (c->rx_cap - c->rx_len < 65536) {
        size_t cap = c->rx_cap ? c->rx_cap * 2 : 131072;
        char *grown = realloc(c->rx, cap);
        if (!grown)
            return -ENOMEM;
        c->rx = grown;
        c->rx_cap = cap;
    }
    ssize_t n = read(c->fd, c->rx + c->rx_len, c->rx_cap - c->rx_len);
    if (n > 0) {
        c->rx_len += (size_t)n;
        return 1;
    }
    if (n == 0 || errno == ECONNRESET) {
        c->eof = true;
        return SC_IT_EOF;
    }
    if (errno == EAGAIN || errno == EINTR)
        return 0;
    return -errno;
}

/* poll() the connection for `events` until `deadline`, again after EINTR:
 * 0 with *revents set, -ETIMEDOUT, or -errno. */
static int wait_ready(const sc_it_conn *c, short events, int64_t deadline, short *revents)
{
    struct pollfd p = {.fd = c->fd, .events = events};
    *revents = 0; /* set on every path: the callers read it only after a 0 */
    for (;;) {
        int r = poll(&p, 1, remaining_ms(deadline));
        if (r > 0) {
            *revents = p.revents;
            return 0;
        }
        if (r == 0)
            return -ETIMEDOUT;
        if (errno != EINTR)
            return -errno;
    }
}

int sc_it_send(sc_it_conn *c, const char *data, size_t len)
{
    int64_t deadline = sc_it_now_ms() + c->timeout_ms;
    size_t off = 0;
    while (off < len) {
        short revents;
        int r = wait_ready(c, POLLOUT | (c->eof ? 0 : POLLIN), deadline, &revents);
        if (r != 0)
            return r;
        if ((revents & POLLIN) && !c->eof) {
            int f = fill(c);
            if (f < 0 && f != SC_IT_EOF)
                return f;
        }
        if (revents & (POLLOUT | POLLERR | POLLHUP)) {
            ssize_t n = send(c->fd, data + off, len - off, MSG_NOSIGNAL);
            if (n > 0) {
                off += (size_t)n;
                deadline = sc_it_now_ms() + c->timeout_ms;
            } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
                return -errno;
            }
        }
    }
    return 0;
}

int sc_it_send_line(sc_it_conn *c, const char *line)
{
    size_t n = strlen(line);
    char *buf = malloc(n + 1);
    if (!buf)
        return -ENOMEM;
    memcpy(buf, line, n);
    buf[n] = '\n';
    int rc = sc_it_send(c, buf, n + 1);
    free(buf);
    return rc;
}

int sc_it_send_lines(sc_it_conn *c, char *const *lines, size_t n)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += strlen(lines[i]) + 1;
    char *buf = malloc(total + 1);
    if (!buf)
        return -ENOMEM;
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(lines[i]);
        memcpy(buf + off, lines[i], len);
        off += len;
        buf[off++] = '\n';
    }
    int rc = sc_it_send(c, buf, total);
    free(buf);
    return rc;
}

static bool take_line(sc_it_conn *c, char **line, size_t *len)
{
    char *nl = memchr(c->rx + c->rx_scanned, '\n', c->rx_len - c->rx_scanned);
    if (!nl) {
        c->rx_scanned = c->rx_len;
        return false;
    }
    size_t n = (size_t)(nl - c->rx);
    char *s = malloc(n + 1);
    if (!s)
        return false;
    memcpy(s, c->rx, n);
    s[n] = '\0';
    memmove(c->rx, nl + 1, c->rx_len - n - 1);
    c->rx_len -= n + 1;
    c->rx_scanned = 0;
    *line = s;
    if (len)
        *len = n;
    return true;
}

int sc_it_recv_line(sc_it_conn *c, char **line, size_t *len)
{
    int64_t deadline = sc_it_now_ms() + c->timeout_ms;
    for (;;) {
        if (c->rx_len > 0 && take_line(c, line, len))
            return 0;
        if (c->eof)
            return SC_IT_EOF;
        short revents;
        int r = wait_ready(c, POLLIN, deadline, &revents);
        if (r != 0)
            return r;
        int f = fill(c);
        if (f < 0 && f != SC_IT_EOF)
            return f;
    }
}

int sc_it_recv_json(sc_it_conn *c, cJSON **out)
{
    char *line;
    size_t len;
    int rc = sc_it_recv_line(c, &line, &len);
    if (rc != 0)
        return rc;
    *out = cJSON_ParseWithLength(line, len);
    free(line);
    return *out ? 0 : -EBADMSG;
}

int sc_it_expect_silence(sc_it_conn *c, int wait_ms)
{
    if (c->rx_len > 0)
        return -EEXIST;
    if (c->eof)
        return SC_IT_EOF;
    struct pollfd p = {.fd = c->fd, .events = POLLIN};
    int r;
    do {
        r = poll(&p, 1, wait_ms);
    } while (r < 0 && errno == EINTR);
    if (r == 0)
        return 0;
    int f = fill(c);
    if (c->rx_len > 0)
        return -EEXIST;
    return f == SC_IT_EOF ? SC_IT_EOF : 0;
}

int sc_it_expect_eof(sc_it_conn *c)
{
    int64_t deadline = sc_it_now_ms() + c->timeout_ms;
    while (!c->eof) {
        short revents;
        int r = wait_ready(c, POLLIN, deadline, &revents);
        if (r != 0)
            return r;
        int f = fill(c);
        if (f < 0 && f != SC_IT_EOF)
            return f;
    }
    return c->rx_len > 0 ? -EEXIST : 0;
}

char *sc_it_format_request(int64_t id, const char *method, const char *params_json)
{
    char *s = NULL;
    int n;
    if (params_json)
        n = asprintf(&s, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"%s\",\"params\":%s}",
                     (long long)id, method, params_json);
    else
        n = asprintf(&s, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"%s\"}", (long long)id,
                     method);
    return n < 0 ? NULL : s;
}

static bool envelope_ok(const cJSON *reply, int64_t id)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(reply, "jsonrpc");
    int64_t got;
    return cJSON_IsObject(reply) && cJSON_IsString(v) && strcmp(v->valuestring, "2.0") == 0 &&
           sc_it_json_int(reply, "id", &got) && got == id;
}

static int vtry_call(sc_it_conn *c, cJSON **reply, const char *method, const char *params_fmt,
                     va_list ap)
{
    char *params = NULL;
    if (params_fmt && vasprintf(&params, params_fmt, ap) < 0)
        return -ENOMEM;
    int64_t id = sc_it_next_id(c);
    char *req = sc_it_format_request(id, method, params);
    free(params);
    if (!req)
        return -ENOMEM;
    free(c->last_request);
    c->last_request = req;
    *reply = NULL;
    int rc = sc_it_send_line(c, req);
    if (rc == 0)
        rc = sc_it_recv_json(c, reply);
    if (rc == 0 && !envelope_ok(*reply, id))
        rc = -EPROTO;
    return rc;
}

int sc_it_try_call(sc_it_conn *c, cJSON **reply, const char *method, const char *params_fmt, ...)
{
    va_list ap;
    va_start(ap, params_fmt);
    int rc = vtry_call(c, reply, method, params_fmt, ap);
    va_end(ap);
    return rc;
}

/* ----------------------------------------------------------------- JSON */

bool sc_it_json_int(const cJSON *obj, const char *name, int64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!cJSON_IsNumber(v))
        return false;
    double d = v->valuedouble;
    if (d != d || d < -9007199254740992.0 || d > 9007199254740992.0 || d != (double)(int64_t)d)
        return false;
    *out = (int64_t)d;
    return true;
}

char *sc_it_json_text(const cJSON *v)
{
    if (!v)
        return strdup("(null)");
    char *s = cJSON_PrintUnformatted(v);
    return s ? s : strdup("(unprintable)");
}

/* --------------------------------------------------- cmocka (main thread) */

char *sc_it_fmt(const char *fmt, ...)
{
    char *s;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    assert_true(n >= 0);
    return s;
}

static void fail_with_file(const char *what, const char *path)
{
    char *text = sc_it_read_file(path);
    fail_msg("%s\n--- %s ---\n%s", what, path, text ? text : "(unreadable)");
}

static void must_start(sc_it_daemon *d, const char *const *extra)
{
    int rc = sc_it_daemon_start(d, extra);
    if (rc == 0)
        return;
    char what[256];
    if (rc == -ECHILD)
        snprintf(what, sizeof(what), "streamcapd exited during start-up (wait status 0x%x)",
                 (unsigned)d->status);
    else
        snprintf(what, sizeof(what), "streamcapd did not start: %s", strerror(-rc));
    fail_with_file(what, d->err_path);
}

sc_it_daemon *sc_it_must_start(const char *const *extra)
{
    sc_it_daemon *d;
    int rc = sc_it_daemon_create(&d);
    if (rc != 0)
        fail_msg("cannot make a temporary directory: %s", strerror(-rc));
    must_start(d, extra);
    return d;
}

void sc_it_must_restart(sc_it_daemon *d, const char *const *extra)
{
    must_start(d, extra);
}

void sc_it_must_stop(sc_it_daemon *d)
{
    int status = 0;
    int rc = sc_it_daemon_signal_stop(d, SIGTERM, &status);
    if (rc == -ETIMEDOUT)
        fail_with_file("streamcapd did not exit within the stop timeout after SIGTERM",
                       d->err_path);
    if (rc != 0)
        fail_msg("stopping streamcapd: %s", strerror(-rc));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char what[160];
        if (WIFSIGNALED(status))
            snprintf(what, sizeof(what), "streamcapd died of signal %d after SIGTERM",
                     WTERMSIG(status));
        else
            snprintf(what, sizeof(what), "streamcapd exited with status %d after SIGTERM",
                     WEXITSTATUS(status));
        fail_with_file(what, d->err_path);
    }
}

int sc_it_group_setup(void **state)
{
    *state = sc_it_must_start(NULL);
    return 0;
}

int sc_it_group_teardown(void **state)
{
    sc_it_daemon *d = *state;
    sc_it_must_stop(d);
    sc_it_daemon_destroy(d);
    return 0;
}

sc_it_conn *sc_it_must_connect(const sc_it_daemon *d)
{
    sc_it_conn *c;
    int rc = sc_it_connect(d->sock, &c);
    if (rc != 0)
        fail_msg("connect to %s: %s", d->sock, strerror(-rc));
    return c;
}

static const char *rc_text(int rc)
{
    if (rc == SC_IT_EOF)
        return "connection closed by the daemon";
    if (rc == -EBADMSG)
        return "reply line is not JSON";
    if (rc == -EPROTO)
        return "reply lacks jsonrpc \"2.0\" or the request's id";
    return strerror(-rc);
}

void sc_it_must_send_line(sc_it_conn *c, const char *line)
{
    free(c->last_request);
    c->last_request = strdup(line);
    int rc = sc_it_send_line(c, line);
    if (rc != 0)
        fail_msg("sending %.300s: %s", line, rc_text(rc));
}

cJSON *sc_it_must_recv(sc_it_conn *c)
{
    char *line;
    size_t len;
    int rc = sc_it_recv_line(c, &line, &len);
    if (rc != 0)
        fail_msg("waiting for a reply line: %s", rc_text(rc));
    cJSON *v = cJSON_ParseWithLength(line, len);
    if (!v)
        fail_msg("reply line is not JSON: %.500s", line);
    free(line);
    return v;
}

static cJSON *vcall(sc_it_conn *c, const char *method, const char *params_fmt, va_list ap)
{
    cJSON *reply;
    int rc = vtry_call(c, &reply, method, params_fmt, ap);
    if (rc != 0) {
        char *text = sc_it_json_text(reply);
        fail_msg("request %s\n  failed: %s\n  reply: %s", sc_it_last_request(c), rc_text(rc), text);
    }
    return reply;
}

cJSON *sc_it_call(sc_it_conn *c, const char *method, const char *params_fmt, ...)
{
    va_list ap;
    va_start(ap, params_fmt);
    cJSON *reply = vcall(c, method, params_fmt, ap);
    va_end(ap);
    return reply;
}

const cJSON *sc_it_ok(const sc_it_conn *c, const cJSON *reply)
{
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(reply, "result");
    if (!result || cJSON_GetObjectItemCaseSensitive(reply, "error")) {
        char *text = sc_it_json_text(reply);
        fail_msg("request %s\n  expected a result\n  got %s", sc_it_last_request(c), text);
    }
    return result;
}

const cJSON *sc_it_err(const sc_it_conn *c, const cJSON *reply, int code, const char *kind)
{
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(reply, "error");
    int64_t got_code = 0;
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(error, "data");
    const cJSON *got_kind = cJSON_GetObjectItemCaseSensitive(data, "kind");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(error, "message");
    bool good = cJSON_IsObject(error) && !cJSON_GetObjectItemCaseSensitive(reply, "result") &&
                sc_it_json_int(error, "code", &got_code) && got_code == code &&
                cJSON_IsString(msg) && cJSON_IsObject(data) &&
                (!kind || (cJSON_IsString(got_kind) && strcmp(got_kind->valuestring, kind) == 0));
    if (!good) {
        char *text = sc_it_json_text(reply);
        fail_msg("request %s\n  expected error %d (kind %s)\n  got %s", sc_it_last_request(c), code,
                 kind ? kind : "any", text);
    }
    return error;
}

void sc_it_err_data(const cJSON *error, const char *key, const char *value)
{
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(error, "data");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(data, key);
    if (!cJSON_IsString(v) || strcmp(v->valuestring, value) != 0) {
        char *text = sc_it_json_text(error);
        fail_msg("expected error data.%s = \"%s\"\n  got error %s", key, value, text);
    }
}

void sc_it_err_message(const cJSON *error, const char *message)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(error, "message");
    if (!cJSON_IsString(v) || strcmp(v->valuestring, message) != 0) {
        char *text = sc_it_json_text(error);
        fail_msg("expected error message \"%s\"\n  got error %s", message, text);
    }
}

static cJSON *vmust_result(sc_it_conn *c, const char *method, const char *params_fmt, va_list ap)
{
    cJSON *reply = vcall(c, method, params_fmt, ap);
    sc_it_ok(c, reply);
    cJSON *result = cJSON_DetachItemFromObjectCaseSensitive(reply, "result");
    cJSON_Delete(reply);
    return result;
}

cJSON *sc_it_must_result(sc_it_conn *c, const char *method, const char *params_fmt, ...)
{
    va_list ap;
    va_start(ap, params_fmt);
    cJSON *result = vmust_result(c, method, params_fmt, ap);
    va_end(ap);
    return result;
}

void sc_it_must_ok(sc_it_conn *c, const char *method, const char *params_fmt, ...)
{
    va_list ap;
    va_start(ap, params_fmt);
    cJSON_Delete(vmust_result(c, method, params_fmt, ap));
    va_end(ap);
}

void sc_it_must_error(sc_it_conn *c, int code, const char *kind, const char *method,
                      const char *params_fmt, ...)
{
    va_list ap;
    va_start(ap, params_fmt);
    cJSON *reply = vcall(c, method, params_fmt, ap);
    va_end(ap);
    sc_it_err(c, reply, code, kind);
    cJSON_Delete(reply);
}

int64_t sc_it_open_cuda(sc_it_conn *c)
{
    cJSON *r = sc_it_must_result(c, "session.open", "{\"semantics\":\"cuda\"}");
    int64_t s = sc_it_int(r, "session");
    cJSON_Delete(r);
    return s;
}

int64_t sc_it_int(const cJSON *obj, const char *name)
{
    int64_t v;
    if (!sc_it_json_int(obj, name, &v)) {
        char *text = sc_it_json_text(obj);
        fail_msg("expected an integer member \"%s\" in %.2000s", name, text);
    }
    return v;
}

const char *sc_it_str(const cJSON *obj, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!cJSON_IsString(v)) {
        char *text = sc_it_json_text(obj);
        fail_msg("expected a string member \"%s\" in %.2000s", name, text);
    }
    return v->valuestring;
}

bool sc_it_bool(const cJSON *obj, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!cJSON_IsBool(v)) {
        char *text = sc_it_json_text(obj);
        fail_msg("expected a boolean member \"%s\" in %.2000s", name, text);
    }
    return cJSON_IsTrue(v);
}

#define TIME_RE "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$"

void sc_it_must_be_time(const char *what, const char *t)
{
    regex_t re;
    assert_int_equal(regcomp(&re, TIME_RE, REG_EXTENDED | REG_NOSUB), 0);
    int rc = regexec(&re, t, 0, NULL, 0);
    regfree(&re);
    if (rc != 0)
        fail_msg("%s: '%s' is not an ISO 8601 UTC time with milliseconds", what, t);
}

int64_t sc_it_open_session(sc_it_conn *c, const char *label)
{
    cJSON *reply;
    if (label) {
        cJSON *l = cJSON_CreateString(label);
        char *text = cJSON_PrintUnformatted(l);
        reply = sc_it_call(c, "session.open", "{\"label\":%s}", text);
        free(text);
        cJSON_Delete(l);
    } else {
        reply = sc_it_call(c, "session.open", "{}");
    }
    int64_t session = sc_it_int(sc_it_ok(c, reply), "session");
    cJSON_Delete(reply);
    if (session < 1)
        fail_msg("session.open returned session %lld, expected a positive id", (long long)session);
    return session;
}

/* -------------------------------------------------------------- SQLite */

/* The capture log as schema/001_init.sql defines it. */
#define LOG_OUTCOME_SQL "SELECT outcome FROM capture_log WHERE session = ?1"

int sc_it_log_outcome(const char *db_path, int64_t session, char *out, size_t outlen)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL);
    sqlite3_stmt *st = NULL;
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(db, 5000);
        rc = sqlite3_prepare_v2(db, LOG_OUTCOME_SQL, -1, &st, NULL);
    }
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, session);
        rc = sqlite3_step(st);
    }
    int result;
    if (rc == SQLITE_ROW) {
        const unsigned char *text = sqlite3_column_text(st, 0);
        snprintf(out, outlen, "%s", text ? (const char *)text : "(NULL)");
        result = 0;
    } else if (rc == SQLITE_DONE) {
        snprintf(out, outlen, "(no row)");
        result = -ENOENT;
    } else {
        snprintf(out, outlen, "sqlite: %s", db ? sqlite3_errmsg(db) : "out of memory");
        result = -EIO;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return result;
}

void sc_it_must_see_outcome(const char *db_path, int64_t session, const char *want, int timeout_ms)
{
    char got[256] = "";
    int64_t deadline = sc_it_now_ms() + timeout_ms;
    for (;;) {
        if (sc_it_log_outcome(db_path, session, got, sizeof(got)) == 0 && strcmp(got, want) == 0)
            return;
        if (sc_it_now_ms() >= deadline)
            break;
        sc_it_sleep_ms(50);
    }
    fail_msg("capture log of session %lld in %s: expected outcome '%s', got '%s'",
             (long long)session, db_path, want, got);
}
