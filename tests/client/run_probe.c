/*
 * run_probe.c - the program test_client_run runs under `streamcap run`, in
 * place of a CUDA program: it writes report lines into $STREAMCAP_REPORT
 * as the runtime stand-in does at exit, prints what it was given, and ends
 * as told.  Each argument is one step, done in order:
 *
 *   argv             print every argument, "argv[N]=WORD"
 *   env=NAME         print "NAME=VALUE", or "NAME unset"
 *   sigpipe          print "SIGPIPE default" or "SIGPIPE ignored"
 *   line=TEXT        queue a report line; "{pid}" becomes this pid
 *   write            append the queued lines to the report in one write
 *   fork=TEXT        a child process appends TEXT ({pid}: the child's) and exits
 *   wait=FILE        create FILE, then wait for SIGINT, SIGTERM or SIGHUP:
 *                    print "got signal N", queue and write
 *                    {"event":"process","pid":P,"label":"signal N"} and exit 40 + N
 *   exit=N           exit with status N (queued lines are not written)
 *   raise=N          kill itself with signal N
 */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct queue {
    char buf[65536];
    size_t len;
} queue;

static void queue_line(queue *q, const char *text, long pid)
{
    char pidtext[32];
    snprintf(pidtext, sizeof(pidtext), "%ld", pid);
    for (const char *s = text; *s && q->len + 32 < sizeof(q->buf);) {
        if (strncmp(s, "{pid}", 5) == 0) {
            memcpy(q->buf + q->len, pidtext, strlen(pidtext));
            q->len += strlen(pidtext);
            s += 5;
        } else {
            q->buf[q->len++] = *s++;
        }
    }
    q->buf[q->len++] = '\n';
}

static int write_queue(queue *q)
{
    const char *path = getenv("STREAMCAP_REPORT");
    if (!path) {
        fprintf(stderr, "run_probe: STREAMCAP_REPORT unset\n");
        return -1;
    }
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0600);
    if (fd < 0 || write(fd, q->buf, q->len) != (ssize_t)q->len) {
        perror("run_probe: report");
        return -1;
    }
    close(fd);
    q->len = 0;
    return 0;
}

static void fork_line(const char *text)
{
    pid_t pid = fork();
    if (pid == 0) {
        static queue q;
        queue_line(&q, text, (long)getpid());
        _exit(write_queue(&q) == 0 ? 0 : 1);
    }
    int st;
    waitpid(pid, &st, 0);
}

static void wait_signal(queue *q, const char *ready)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, NULL);
    FILE *f = fopen(ready, "w");
    if (f)
        fclose(f);
    int sig = 0;
    sigwait(&set, &sig);
    printf("got signal %d\n", sig);
    fflush(stdout);
    char line[128];
    snprintf(line, sizeof(line), "{\"event\":\"process\",\"pid\":{pid},\"label\":\"signal %d\"}",
             sig);
    queue_line(q, line, (long)getpid());
    write_queue(q);
    exit(40 + sig);
}

int main(int argc, char **argv)
{
    static queue q;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "argv") == 0) {
            for (int j = 0; j < argc; j++)
                printf("argv[%d]=%s\n", j, argv[j]);
        } else if (strncmp(a, "env=", 4) == 0) {
            const char *v = getenv(a + 4);
            if (v)
                printf("%s=%s\n", a + 4, v);
            else
                printf("%s unset\n", a + 4);
        } else if (strcmp(a, "sigpipe") == 0) {
            struct sigaction sa;
            sigaction(SIGPIPE, NULL, &sa);
            printf("SIGPIPE %s\n", sa.sa_handler == SIG_IGN ? "ignored" : "default");
        } else if (strncmp(a, "line=", 5) == 0) {
            queue_line(&q, a + 5, (long)getpid());
        } else if (strcmp(a, "write") == 0) {
            if (write_queue(&q) != 0)
                return 99;
        } else if (strncmp(a, "fork=", 5) == 0) {
            fork_line(a + 5);
        } else if (strncmp(a, "wait=", 5) == 0) {
            wait_signal(&q, a + 5);
        } else if (strncmp(a, "exit=", 5) == 0) {
            fflush(stdout);
            _exit(atoi(a + 5));
        } else if (strncmp(a, "raise=", 6) == 0) {
            fflush(stdout);
            signal(atoi(a + 6), SIG_DFL);
            raise(atoi(a + 6));
        }
    }
    fflush(stdout);
    return 0;
}
