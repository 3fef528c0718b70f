/*
 * sc_log.h - log lines on stderr and the wall clock.
 *
 * A leaf: it knows nothing of the daemon, so every part of it (and the
 * store) may log without the rest.  Whoever logs owns an sc_logger, the
 * daemon its `log`.
 */
#ifndef SC_LOG_H
#define SC_LOG_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

enum sc_log_level { SC_LOG_ERROR = 0, SC_LOG_WARN, SC_LOG_INFO, SC_LOG_DEBUG };

/*
 * Rate limit: lines of one kind (one format string: one call site) beyond
 * SC_LOG_BURST within SC_LOG_INTERVAL_MS are not written; once the interval
 * is over (the next line of the kind, or sc_log_flush) one line says how
 * many were suppressed and quotes the first of them.  So a flood of one
 * event (refused connections) writes a bounded log, and every event is
 * still counted.
 */
#define SC_LOG_BURST       20
#define SC_LOG_INTERVAL_MS 10000
#define SC_LOG_KINDS       32

typedef struct sc_log_kind {
    const char *fmt;     /* NULL: a free slot */
    int level;           /* of its last line */
    int64_t since_ms;    /* monotonic start of the current interval */
    unsigned lines;      /* written in it */
    uint64_t suppressed; /* not written in it */
    char first[192];     /* the first line suppressed, for the count's line */
} sc_log_kind;

/** The rate limit's state, kept by whoever owns the logger. */
typedef struct sc_log_limiter {
    pthread_mutex_t mu;
    sc_log_kind kinds[SC_LOG_KINDS];
} sc_log_limiter;

/** Which lines are written, and how. */
typedef struct sc_logger {
    int level;             /* SC_LOG_*: lines of a higher level are dropped */
    bool journal;          /* stderr is the journal: sc_log writes "<6>text" lines */
    sc_log_limiter *limit; /* NULL: every line is written */
} sc_logger;

/** An empty limiter: 0, or -1 when its lock cannot be made. */
int sc_log_limiter_init(sc_log_limiter *lim);
void sc_log_limiter_destroy(sc_log_limiter *lim);
/** Writes the count of suppressed lines of every kind whose interval is
 *  over (`all`: of every kind, over or not) and starts its next interval. */
void sc_log_flush(const sc_logger *l, bool all);

/** A logger at `level` (SC_LOG_*), in journal form when sc_log_to_journal(). */
void sc_logger_init(sc_logger *l, int level);
/**
 * One log line on stderr when `level` is within the logger's level:
 * prefixed with an ISO 8601 UTC time, the program and the level; or, when
 * stderr is the journal (l->journal), with the sd-daemon(3) priority alone
 * ("<3>" error, "<4>" warn, "<6>" info, "<7>" debug), the journal adding
 * the rest.  Subject to the logger's rate limit, when it has one.  Safe
 * from any thread.
 */
void sc_log(const sc_logger *l, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** True when JOURNAL_STREAM names the device and inode of stderr. */
bool sc_log_to_journal(void);
/** "error", "warn", "info", "debug" -> SC_LOG_*; -1 when unknown. */
int sc_log_level_parse(const char *s);
/** Wall-clock Unix time in milliseconds. */
int64_t sc_now_ms(void);

#endif
