/*
 * sc_log.h - log lines on stderr and the wall clock.
 *
 * A leaf: it knows nothing of the daemon, so every part of it (and the
 * store) may log without the rest.  Whoever logs owns an sc_logger, the
 * daemon its `log`.
 */
#ifndef SC_LOG_H
#define SC_LOG_H

#include <stdbool.h>
#include <stdint.h>

enum sc_log_level { SC_LOG_ERROR = 0, SC_LOG_WARN, SC_LOG_INFO, SC_LOG_DEBUG };

/** Which lines are written, and how. */
typedef struct sc_logger {
    int level;    /* SC_LOG_*: lines of a higher level are dropped */
    bool journal; /* stderr is the journal: sc_log writes "<6>text" lines */
} sc_logger;

/** A logger at `level` (SC_LOG_*), in journal form when sc_log_to_journal(). */
void sc_logger_init(sc_logger *l, int level);
/**
 * One log line on stderr when `level` is within the logger's level:
 * prefixed with an ISO 8601 UTC time, the program and the level; or, when
 * stderr is the journal (l->journal), with the sd-daemon(3) priority alone
 * ("<3>" error, "<4>" warn, "<6>" info, "<7>" debug), the journal adding
 * the rest.
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
