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

static void put_prefix(const sc_logger *l, int level)
{
    /* The journal stamps and ranks each line itself. */
    if (l->journal) {
        fputs(journal_prefix[level], stderr);
        return;
    }
    char stamp[32];
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    fprintf(stderr, "%s.%03ldZ streamcapd %s: ", stamp, ts.tv_nsec / 1000000, level_names[level]);
}

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int sc_log_limiter_init(sc_log_limiter *lim)
{
    memset(lim->kinds, 0, sizeof(lim->kinds));
    return pthread_mutex_init(&lim->mu, NULL) == 0 ? 0 : -1;
}

void sc_log_limiter_destroy(sc_log_limiter *lim)
{
    pthread_mutex_destroy(&lim->mu);
}

/* The count's line of a kind, then its next interval from `now`. */
static void end_interval(const sc_logger *l, sc_log_kind *k, int64_t now)
{
    if (k->suppressed) {
        put_prefix(l, k->level);
        fprintf(stderr, "suppressed %llu similar messages in %lld s, the first: %s\n",
                (unsigned long long)k->suppressed, (long long)(now - k->since_ms + 999) / 1000,
                k->first);
    }
    k->since_ms = now;
    k->lines = 0;
    k->suppressed = 0;
}

/* The kind of `fmt`: its slot, a free one, or the one idle longest (its
 * count written first). */
static sc_log_kind *kind_of(const sc_logger *l, const char *fmt, int64_t now)
{
    sc_log_kind *kinds = l->limit->kinds, *oldest = &kinds[0];
    for (size_t i = 0; i < SC_LOG_KINDS; i++) {
        if (kinds[i].fmt == fmt)
            return &kinds[i];
        if (!kinds[i].fmt || (oldest->fmt && kinds[i].since_ms < oldest->since_ms))
            oldest = &kinds[i];
    }
    if (oldest->fmt)
        end_interval(l, oldest, now);
    oldest->fmt = fmt;
    oldest->since_ms = now;
    return oldest;
}

/* True when the line is to be written; else it is counted (and the first
 * one kept for the count's line). */
static bool admit(const sc_logger *l, int level, const char *fmt, va_list ap)
{
    int64_t now = mono_ms();
    sc_log_kind *k = kind_of(l, fmt, now);
    if (now - k->since_ms >= SC_LOG_INTERVAL_MS)
        end_interval(l, k, now);
    k->level = level;
    if (k->lines < SC_LOG_BURST) {
        k->lines++;
        return true;
    }
    if (k->suppressed++ == 0)
        vsnprintf(k->first, sizeof(k->first), fmt, ap);
    return false;
}

void sc_log_flush(const sc_logger *l, bool all)
{
    if (!l->limit)
        return;
    pthread_mutex_lock(&l->limit->mu);
    int64_t now = mono_ms();
    for (size_t i = 0; i < SC_LOG_KINDS; i++) {
        sc_log_kind *k = &l->limit->kinds[i];
        if (k->fmt && k->suppressed && (all || now - k->since_ms >= SC_LOG_INTERVAL_MS))
            end_interval(l, k, now);
    }
    fflush(stderr);
    pthread_mutex_unlock(&l->limit->mu);
}

void sc_log(const sc_logger *l, int level, const char *fmt, ...)
{
    if (level > l->level)
        return;
    va_list ap;
    if (l->limit) {
        pthread_mutex_lock(&l->limit->mu);
        va_start(ap, fmt);
        bool write = admit(l, level, fmt, ap);
        va_end(ap);
        if (!write) {
            pthread_mutex_unlock(&l->limit->mu);
            return;
        }
    }
    put_prefix(l, level);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (l->limit)
        pthread_mutex_unlock(&l->limit->mu);
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
