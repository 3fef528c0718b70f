/*
 * log.c - log lines on stderr and the wall clock (sc_log.h).
 *
 * Nothing here knows the daemon: the level and the journal form come in
 * the caller's sc_logger, so the store and tests can log alike.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sc_log.h"

static const char *const level_names[] = {"error", "warn", "info", "debug"};
/* sd-daemon(3) priorities: LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG. */
static const char *const journal_prefix[] = {"<3>", "<4>", "<6>", "<7>"};

bool sc_log_to_journal(void)
{
    /* systemd sets JOURNAL_STREAM to "DEV:INODE" of the stream it connected;
     * a stderr redirected elsewhere since (a pipe, a file) no longer matches. */
    const char *js = getenv("JOURNAL_STREAM");
    unsigned long long dev, ino;
    char end;
    struct stat st;
    if (!js || sscanf(js, "%llu:%llu%c", &dev, &ino, &end) != 2 || fstat(STDERR_FILENO, &st) != 0)
        return false;
    return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void sc_logger_init(sc_logger *l, int level)
{
    l->level = level;
    l->journal = sc_log_to_journal();
}

void sc_log(const sc_logger *l, int level, const char *fmt, ...)
{
    if (level > l->level)
        return;
    /* The journal stamps and ranks each line itself. */
    if (l->journal) {
        fputs(journal_prefix[level], stderr);
    } else {
        char stamp[32];
        struct timespec ts;
        struct tm tm;
        clock_gettime(CLOCK_REALTIME, &ts);
        gmtime_r(&ts.tv_sec, &tm);
        strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
        fprintf(stderr, "%s.%03ldZ streamcapd %s: ", stamp, ts.tv_nsec / 1000000,
                level_names[level]);
    }
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int sc_log_level_parse(const char *s)
{
    for (int k = 0; k < 4; k++)
        if (!strcmp(s, level_names[k]))
            return k;
    return -1;
}

int64_t sc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
