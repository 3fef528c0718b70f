/*
 * cli_run.c - streamcap run: a program run with the CUDA runtime stand-in
 * first on its library path (finding the stand-in, the environment, the
 * child and its signals), then the summary of what its processes reported
 * at exit (cli_run_report.c reads the report, whose format is
 * proto/sc_report.h's; cli_run_summary.c prints it).
 */
#define _XOPEN_SOURCE 700

#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_run.h"
#include "sc_report.h"

/* Where the stand-in may be, in the order they are tried; a candidate is
 * skipped when an earlier one names the same directory. */
typedef struct run_places {
    char dir[4][PATH_MAX];
    const char *what[4];
    size_t n;
} run_places;

static void add_place(run_places *pl, const char *what, const char *a, const char *b)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof(path), "%s%s", a, b ? b : "") >= (int)sizeof(path))
        return;
    for (size_t i = 0; i < pl->n; i++) {
        if (strcmp(pl->dir[i], path) == 0)
            return;
    }
    memcpy(pl->dir[pl->n], path, sizeof(path));
    pl->what[pl->n++] = what;
}

/* The directory of this executable, with a trailing '/'; "" when unknown. */
static void exe_dir(char *out, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    out[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(out, '/');
    if (slash)
        slash[1] = '\0';
    else
        out[0] = '\0';
}

static void standin_places(run_places *pl)
{
    memset(pl, 0, sizeof(*pl));
    const char *env = getenv("STREAMCAP_CUDART_DIR");
    if (env && *env)
        add_place(pl, "$STREAMCAP_CUDART_DIR", env, NULL);
    char exe[PATH_MAX];
    exe_dir(exe, sizeof(exe));
    if (exe[0]) {
        add_place(pl, "the build tree", exe, "../lib/streamcap/cudart");
        add_place(pl, "the installed location", exe, SC_CUDART_FROM_BINDIR);
    }
    add_place(pl, "the configured install location", SC_CUDART_INSTALL_DIR, NULL);
}

static bool has_standin(const char *dir)
{
    char path[PATH_MAX];
    struct stat st;
    return snprintf(path, sizeof(path), "%s/%s", dir, RUN_STANDIN) < (int)sizeof(path) &&
           stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The stand-in's directory as an absolute path into out; CLI_ERROR (said)
 * when no place holds it. */
static int find_standin(cli *x, char *out)
{
    run_places pl;
    standin_places(&pl);
    for (size_t i = 0; i < pl.n; i++) {
        if (has_standin(pl.dir[i]) && realpath(pl.dir[i], out)) {
            if (i > 0 && strcmp(pl.what[0], "$STREAMCAP_CUDART_DIR") == 0)
                fprintf(stderr,
                        "streamcap: warning: $STREAMCAP_CUDART_DIR (%s) has no %s; using %s\n",
                        pl.dir[0], RUN_STANDIN, out);
            return CLI_OK;
        }
    }
    char msg[4 * PATH_MAX + 256];
    size_t len = (size_t)snprintf(
        msg, sizeof(msg), "cannot find the CUDA runtime stand-in %s; looked in", RUN_STANDIN);
    for (size_t i = 0; i < pl.n && len < sizeof(msg); i++)
        len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%s %s (%s)", i ? "," : "", pl.dir[i],
                                pl.what[i]);
    return cli_fail(x, "%s; set STREAMCAP_CUDART_DIR to the directory that holds it", msg);
}

/* --------------------------------------------------- the environment */

static int set_env(cli *x, const char *name, const char *value)
{
    if (setenv(name, value, 1) != 0)
        return cli_fail(x, "cannot set %s: %s", name, strerror(errno));
    return CLI_OK;
}

/* The stand-in first; an empty entry would add the current directory. */
static int set_library_path(cli *x, const char *dir)
{
    const char *old = getenv("LD_LIBRARY_PATH");
    if (!old || !*old)
        return set_env(x, "LD_LIBRARY_PATH", dir);
    size_t n = strlen(dir) + strlen(old) + 2;
    char *v = malloc(n);
    if (!v)
        return cli_fail(x, "out of memory");
    snprintf(v, n, "%s:%s", dir, old);
    int rc = set_env(x, "LD_LIBRARY_PATH", v);
    free(v);
    return rc;
}

/* The program may change directory: a relative socket is made absolute. */
static int set_socket(cli *x)
{
    if (x->socket[0] == '/')
        return set_env(x, "STREAMCAP_SOCKET", x->socket);
    char cwd[PATH_MAX], path[2 * PATH_MAX];
    if (!getcwd(cwd, sizeof(cwd)))
        return cli_fail(x, "cannot resolve the socket path %s: %s", x->socket, strerror(errno));
    snprintf(path, sizeof(path), "%s/%s", cwd, x->socket);
    return set_env(x, "STREAMCAP_SOCKET", path);
}

/* A fresh, empty report file, private to this user; its path into out. */
static int make_report(cli *x, char *out, size_t len)
{
    if (cli_tmp_template("streamcap-run", out, len) != 0)
        return cli_fail(x, "TMPDIR is too long: %s", getenv("TMPDIR"));
    int fd = mkstemp(out);
    if (fd < 0)
        return cli_fail(x, "cannot create a report file %s: %s", out, strerror(errno));
    close(fd);
    return CLI_OK;
}

/* ------------------------------------------------------ the program */

static void on_child(int sig)
{
    (void)sig; /* only there so that SIGCHLD is not discarded while blocked */
}

/* In the child: the program gets the signal state a shell would give it,
 * not this tool's (SIGPIPE ignored, signals blocked); on failure errno goes
 * up the pipe. */
static void exec_program(char **argv, const sigset_t *mask, int err_fd)
{
    signal(SIGPIPE, SIG_DFL);
    signal(SIGCHLD, SIG_DFL);
    sigprocmask(SIG_SETMASK, mask, NULL);
    execvp(argv[0], argv);
    int e = errno;
    ssize_t w = write(err_fd, &e, sizeof(e));
    (void)w;
    _exit(127);
}

/* Wait for the child, passing on the signals meant for it.  A signal from
 * the terminal (si_code SI_KERNEL) reached the program's process group,
 * the program included, already: sending it again would deliver it twice. */
static int wait_program(pid_t pid, const sigset_t *set, int *wstatus)
{
    for (;;) {
        siginfo_t si;
        int sig = sigwaitinfo(set, &si);
        if (sig < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (sig == SIGCHLD) {
            pid_t r = waitpid(pid, wstatus, WNOHANG);
            if (r == pid)
                return 0;
            if (r < 0 && errno != EINTR)
                return -1;
            continue;
        }
#ifdef SI_KERNEL
        if (si.si_code == SI_KERNEL)
            continue;
#endif
        kill(pid, sig);
    }
}

/* Run the program to its end: CLI_OK and *wstatus, or an exit status
 * (127, 126, CLI_ERROR) with the reason said. */
static int run_program(cli *x, char **argv, int *wstatus, pid_t *child)
{
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGCHLD);
    struct sigaction sa = {0}, old_chld;
    sa.sa_handler = on_child;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, &old_chld);
    sigprocmask(SIG_BLOCK, &set, &old);
    int pfd[2];
    int rc = CLI_OK;
    pid_t pid = -1;
    if (pipe(pfd) != 0 || fcntl(pfd[1], F_SETFD, FD_CLOEXEC) != 0 ||
        fcntl(pfd[0], F_SETFD, FD_CLOEXEC) != 0) {
        rc = cli_fail(x, "cannot start %s: %s", argv[0], strerror(errno));
    } else if ((pid = fork()) < 0) {
        rc = cli_fail(x, "cannot start %s: %s", argv[0], strerror(errno));
        close(pfd[0]);
        close(pfd[1]);
    } else if (pid == 0) {
        close(pfd[0]);
        exec_program(argv, &old, pfd[1]);
    } else {
        *child = pid;
        close(pfd[1]);
        int e = 0;
        ssize_t n;
        while ((n = read(pfd[0], &e, sizeof(e))) < 0 && errno == EINTR)
            ;
        close(pfd[0]);
        if (n == (ssize_t)sizeof(e)) {
            while (waitpid(pid, wstatus, 0) < 0 && errno == EINTR)
                ;
            cli_fail(x, "cannot run %s: %s", argv[0], strerror(e));
            rc = e == ENOENT ? 127 : 126;
        } else if (wait_program(pid, &set, wstatus) != 0) {
            rc = cli_fail(x, "lost track of %s: %s", argv[0], strerror(errno));
        }
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    sigaction(SIGCHLD, &old_chld, NULL);
    return rc;
}

/* ------------------------------------------------------- the command */

bool cli_run_takes_value(const char *arg)
{
    return strcmp(arg, "--label") == 0 || strcmp(arg, "--summary-file") == 0 ||
           strcmp(arg, "--fail-on") == 0 || strcmp(arg, "--device") == 0;
}

typedef struct run_opts {
    const char *label, *summary_file, *device;
    const char *baseline; /* --baseline FILE */
    bool update_baseline;
    unsigned fail_on; /* RUN_FAIL_* bits */
    int prog;         /* index of PROGRAM in argv */
} run_opts;

static int run_args(cli *x, int argc, char **argv, run_opts *o)
{
    int i = 0;
    while (i < argc) {
        const char *v = NULL;
        int r;
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else if ((r = cli_take_opt(argc, argv, &i, "--label", &v)) != 0) {
            if (r < 0 || !*v)
                return cli_usage_fail(x, "--label takes a label");
            o->label = v;
        } else if ((r = cli_take_opt(argc, argv, &i, "--device", &v)) != 0) {
            if (r < 0 || !*v)
                return cli_usage_fail(x,
                                      "--device takes a device name (V100, A100, L4, H100, B200)");
            o->device = v;
        } else if ((r = cli_take_opt(argc, argv, &i, "--summary-file", &v)) != 0) {
            if (r < 0 || !*v)
                return cli_usage_fail(x, "--summary-file takes a path");
            o->summary_file = v;
        } else if ((r = cli_take_opt(argc, argv, &i, "--baseline", &v)) != 0) {
            if (r < 0 || !*v)
                return cli_usage_fail(x, "--baseline takes a file");
            o->baseline = v;
        } else if (strcmp(argv[i], "--update-baseline") == 0) {
            o->update_baseline = true;
            i++;
        } else if ((r = cli_take_opt(argc, argv, &i, "--fail-on", &v)) != 0) {
            char err[256];
            if (r < 0)
                return cli_usage_fail(x, "--fail-on takes a list of conditions");
            if (cli_run_fail_parse(v, &o->fail_on, err, sizeof(err)) != 0)
                return cli_usage_fail(x, "%s", err);
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return cli_usage_fail(x,
                                  "unknown option '%s' (put '--' before a program whose name "
                                  "starts with '-')",
                                  argv[i]);
        } else {
            break;
        }
    }
    if (i >= argc)
        return cli_usage_fail(x, "run needs a PROGRAM to run");
    if (o->update_baseline && !o->baseline)
        return cli_usage_fail(x, "--update-baseline needs --baseline FILE");
    o->prog = i;
    return CLI_OK;
}

static int prepare_env(cli *x, const run_opts *o, const char *report, char *dir)
{
    if (find_standin(x, dir) != CLI_OK || set_library_path(x, dir) != CLI_OK ||
        set_socket(x) != CLI_OK || set_env(x, SC_REPORT_ENV, report) != CLI_OK)
        return CLI_ERROR;
    if (o->device && set_env(x, "STREAMCAP_DEVICE", o->device) != CLI_OK)
        return CLI_ERROR;
    if (o->label)
        return set_env(x, "STREAMCAP_LABEL", o->label);
    return CLI_OK;
}

static int write_summary(cli *x, FILE *f, const run_end *end, const run_report *r)
{
    if (x->json) {
        sc_buf b = SC_BUF_INIT;
        cli_run_summary_json(&b, end, r);
        if (sc_buf_failed(&b)) {
            sc_buf_free(&b);
            return cli_fail(x, "out of memory");
        }
        fwrite(b.data, 1, b.len, f);
        sc_buf_free(&b);
    } else {
        cli_run_summary_text(f, end, r);
    }
    return fflush(f) == 0 && !ferror(f)
               ? CLI_OK
               : cli_fail(x, "cannot write the summary: %s", strerror(errno));
}

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void end_from_status(run_end *end, int wstatus)
{
    if (WIFSIGNALED(wstatus)) {
        end->signal = WTERMSIG(wstatus);
        end->status = 128 + end->signal;
    } else {
        end->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : CLI_ERROR;
    }
}

int cli_run(cli *x, int argc, char **argv)
{
    run_opts o = {0};
    /* The program's status 3 is not this tool's CLI_QUIET. */
    x->raw_status = true;
    if (run_args(x, argc, argv, &o) != CLI_OK)
        return CLI_ERROR;
    /* Opened first: a summary that cannot be written is known before the
     * program has run. */
    FILE *sf = stderr;
    if (o.summary_file && !(sf = fopen(o.summary_file, "w")))
        return cli_fail(x, "cannot write %s: %s", o.summary_file, strerror(errno));
    char report[PATH_MAX];
    int rc = make_report(x, report, sizeof(report));
    if (rc != CLI_OK) {
        if (sf != stderr)
            fclose(sf);
        return rc;
    }
    int wstatus = 0;
    pid_t child = -1;
    /* Whole milliseconds, so that a graph stored in this one still counts. */
    int64_t started_ms = wall_ms();
    char standin[PATH_MAX];
    rc = prepare_env(x, &o, report, standin);
    if (rc == CLI_OK)
        rc = run_program(x, argv + o.prog, &wstatus, &child);
    if (rc == CLI_OK) {
        run_end end = {.program = argv[o.prog]};
        end_from_status(&end, wstatus);
        run_report r = {0};
        cli_run_report_read(report, &r);
        cli_run_from_daemon(x, &r, child, started_ms);
        cli_run_find_cudart(&r, argv[o.prog], standin);
        r.standin = standin;
        run_fail fail;
        if (o.fail_on) {
            cli_run_fail_check(x, o.fail_on, &r, &fail);
            end.fail = &fail;
        }
        rc = write_summary(x, sf, &end, &r) == CLI_OK ? end.status : CLI_ERROR;
        int brc = o.baseline ? cli_run_baseline(x, o.baseline, o.update_baseline, argv[o.prog], &r)
                             : CLI_OK;
        if (o.fail_on) {
            cli_run_fail_print(stderr, &end, &fail);
            if (rc != CLI_ERROR && fail.held)
                rc = RUN_FAIL_STATUS;
        }
        if (brc == CLI_ERROR)
            rc = CLI_ERROR;
        else if (brc == RUN_BASELINE_STATUS && rc != CLI_ERROR && rc != RUN_FAIL_STATUS)
            rc = RUN_BASELINE_STATUS;
        cli_run_report_free(&r);
    }
    unlink(report);
    if (sf != stderr)
        fclose(sf);
    return rc;
}
