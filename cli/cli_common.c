/*
 * cli_common.c - what every streamcap command uses: error reporting,
 * connecting to the daemon, argument parsing and writing standard output.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sc_paths.h"

void cli_print_usage(FILE *f, const cli_cmd *cmd)
{
    fprintf(f, "usage: streamcap [OPTIONS] %s%s%s\n", cmd->name, cmd->args[0] ? " " : "",
            cmd->args);
}

/* ------------------------------------------------------------ errors */

static void json_error(const char *msg, int code)
{
    sc_buf b = SC_BUF_INIT;
    bool first, efirst;
    sc_json_obj_begin(&b, &first);
    sc_json_key(&b, &first, "error");
    sc_json_obj_begin(&b, &efirst);
    sc_json_member_cstr(&b, &efirst, "message", msg);
    if (code)
        sc_json_member_i64(&b, &efirst, "code", code);
    sc_json_obj_end(&b);
    sc_json_obj_end(&b);
    sc_buf_putc(&b, '\n');
    if (!sc_buf_failed(&b))
        fwrite(b.data, 1, b.len, stdout);
    sc_buf_free(&b);
}

static int report(cli *x, int code, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    fprintf(stderr, "streamcap: %s\n", msg);
    if (x->json)
        json_error(msg, code);
    return CLI_ERROR;
}

int cli_fail(cli *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(x, 0, fmt, ap);
    va_end(ap);
    return CLI_ERROR;
}

int cli_usage_fail(cli *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(x, 0, fmt, ap);
    va_end(ap);
    if (x->cmd) {
        cli_print_usage(stderr, x->cmd);
        fprintf(stderr, "Try 'streamcap %s --help'.\n", x->cmd->name);
    }
    return CLI_ERROR;
}

int cli_call_fail(cli *x, int rc)
{
    const char *msg = sc_client_errmsg(x->c);
    if (!msg || !*msg)
        msg = sc_client_strerror(rc);
    return cli_fail_code(x, sc_client_errcode(x->c), "%s", msg);
}

int cli_fail_code(cli *x, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(x, code, fmt, ap);
    va_end(ap);
    return CLI_ERROR;
}

/* The daemon's own default, which a plain 'streamcapd' (or 'make run')
 * would listen on: not a path the user chose. */
static bool is_default_socket(const char *path)
{
    return strcmp(path, sc_client_default_socket()) == 0;
}

/* What a user needs to hear, which errno alone does not say: whether
 * starting a daemon would help, and what to change if not. */
static int connect_failed(cli *x, int rc)
{
    const char *p = x->socket;
    struct stat st;
    char dir[SC_PATH_MAX];
    if (rc == -ENOENT) {
        char home[SC_PATH_MAX], rule[SC_PATH_MAX];
        sc_path_env env;
        sc_path_origin origin = SC_PATH_GIVEN;
        sc_path_env_current(&env, home, sizeof(home));
        bool ours = sc_path_socket(&env, rule, sizeof(rule), &origin) == 0 && !strcmp(p, rule);
        /* The daemon makes the directories of its defaults, not of a path given to it. */
        if ((!ours || origin == SC_PATH_GIVEN) && sc_path_dirname(p, dir, sizeof(dir)) == 0 &&
            stat(dir, &st) != 0 && errno == ENOENT)
            return cli_fail(x, "cannot connect to %s: directory %s does not exist", p, dir);
        if (is_default_socket(p))
            return cli_fail(x,
                            "cannot connect to %s: no daemon is listening (start one with "
                            "'streamcapd', or 'make run' in a source tree)",
                            p);
        return cli_fail(x,
                        "cannot connect to %s: no daemon is listening (start one with 'streamcapd "
                        "--socket %s')",
                        p, p);
    }
    if (rc == -ECONNREFUSED) {
        if (stat(p, &st) == 0 && !S_ISSOCK(st.st_mode))
            return cli_fail(x, "cannot connect to %s: not a socket", p);
        return cli_fail(x,
                        "cannot connect to %s: no daemon is listening (the socket file is left "
                        "from one that stopped)",
                        p);
    }
    if (rc == -EACCES)
        return cli_fail(x,
                        "cannot connect to %s: permission denied (the daemon's --socket-mode "
                        "decides which users may connect)",
                        p);
    return cli_fail(x, "cannot connect to %s: %s", p, strerror(-rc));
}

int cli_connect(cli *x)
{
    if (x->c)
        return CLI_OK;
    int rc = sc_client_connect(x->socket, x->timeout_ms, &x->c);
    return rc == 0 ? CLI_OK : connect_failed(x, rc);
}

/* --------------------------------------------------------- arguments */

int cli_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int cli_parse_id(const char *s, uint64_t *out)
{
    return cli_parse_uint(s, 1, 9007199254740992ULL, out);
}

int cli_graph_id_args(cli *x, int argc, char **argv, int want, uint64_t *id)
{
    if (argc < want)
        return cli_usage_fail(x, "missing argument");
    if (argc > want)
        return cli_usage_fail(x, "unexpected argument '%s'", argv[want]);
    if (cli_parse_id(argv[0], id) != 0)
        return cli_usage_fail(x, "'%s' is not a graph id (a positive integer)", argv[0]);
    return CLI_OK;
}

int cli_parse_node(const char *s, uint32_t *out)
{
    uint64_t v;
    if (s && (*s == 'N' || *s == 'n'))
        s++;
    if (cli_parse_uint(s, 0, UINT32_MAX, &v) != 0)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

int cli_uint_opt(cli *x, int *argc, char **argv, const char *name, uint64_t hi, const char *usage,
                 uint64_t *out)
{
    int n = 0;
    for (int i = 0; i < *argc;) {
        const char *v = NULL;
        int r = cli_take_opt(*argc, argv, &i, name, &v);
        if (r == 0) {
            argv[n++] = argv[i++];
            continue;
        }
        if (r < 0 || cli_parse_uint(v, 0, hi, out) != 0)
            return cli_usage_fail(x, "%s", usage);
    }
    *argc = n;
    return CLI_OK;
}

bool cli_flag_opt(int *argc, char **argv, const char *name)
{
    int n = 0;
    bool seen = false;
    for (int i = 0; i < *argc; i++) {
        if (strcmp(argv[i], name) == 0)
            seen = true;
        else
            argv[n++] = argv[i];
    }
    *argc = n;
    return seen;
}

int cli_take_opt(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return 0;
    if (a[n] == '=') {
        *value = a + n + 1;
        (*i)++;
        return 1;
    }
    if (a[n] != '\0')
        return 0;
    if (*i + 1 >= argc)
        return -1;
    *value = argv[*i + 1];
    *i += 2;
    return 1;
}

/* ------------------------------------------------------------ output */

int cli_emit_json(cli *x, sc_buf *b)
{
    sc_buf_putc(b, '\n');
    if (sc_buf_failed(b)) {
        sc_buf_free(b);
        return cli_fail(x, "out of memory");
    }
    size_t n = fwrite(b->data, 1, b->len, stdout);
    size_t want = b->len;
    sc_buf_free(b);
    if (n != want || fflush(stdout) != 0)
        return cli_stdout_failed(x);
    return CLI_OK;
}

int cli_report_done(cli *x, const char *what, uint64_t id, const char *done)
{
    if (x->json) {
        sc_buf b = SC_BUF_INIT;
        bool first;
        sc_json_obj_begin(&b, &first);
        sc_json_member_u64(&b, &first, what, id);
        sc_json_member_bool(&b, &first, done, true);
        sc_json_obj_end(&b);
        return cli_emit_json(x, &b);
    }
    printf("%s %s %llu\n", done, what, (unsigned long long)id);
    return CLI_OK;
}

/* The write end of a pipe whose reader has gone polls as an error. */
static bool stdout_reader_gone(void)
{
    struct pollfd p = {.fd = STDOUT_FILENO, .events = POLLOUT};
    return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)) != 0;
}

int cli_stdout_failed(cli *x)
{
    int e = errno;
    /* `| head` closing early is how pipelines end, not an error (git,
     * coreutils): stop writing and exit 0. */
    if (e == EPIPE || stdout_reader_gone())
        return CLI_QUIET;
    if (e == 0)
        return cli_fail(x, "cannot write to standard output");
    return cli_fail(x, "cannot write to standard output: %s", strerror(e));
}

int cli_no_args(cli *x, int argc, char **argv)
{
    if (argc > 0)
        return cli_usage_fail(x, "unexpected argument '%s'", argv[0]);
    return CLI_OK;
}

char *cli_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    sc_buf b = SC_BUF_INIT;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        sc_buf_append(&b, chunk, n);
    bool bad = ferror(f);
    fclose(f);
    sc_buf_putc(&b, '\0');
    if (bad || sc_buf_failed(&b)) {
        sc_buf_free(&b);
        errno = bad ? EIO : ENOMEM;
        return NULL;
    }
    size_t got;
    char *text = sc_buf_detach(&b, &got);
    if (len)
        *len = got - 1;
    return text;
}

int cli_tmp_template(const char *name, char *out, size_t len)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || tmp[0] != '/')
        tmp = "/tmp";
    int n = snprintf(out, len, "%s/%s-XXXXXX", tmp, name);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}
