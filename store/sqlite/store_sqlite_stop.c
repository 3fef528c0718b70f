/*
 * store_sqlite_stop.c - final log rows a stop could not write, kept in
 * "<db>.shutdown" for the next start.
 *
 * A clean stop must never leave a row `open`, because the next start calls
 * open rows `lost`, and `lost` means the daemon died.  When the database
 * still refuses a row at the end of the stop's grace period (its write
 * lock held elsewhere, the disk full with the reserve spent), the row goes
 * into this file instead, one line per row:
 *
 *     <session> <outcome> <node_count> <ended_ms>\n
 *
 * The file is appended to and synced while the daemon still holds the
 * database's lock; the next start ends those rows (only where they are
 * still open) before it marks the rest lost, then removes the file.  A
 * line cut short by a crash is skipped: its row was never recorded.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store_sqlite.h"

/* "<db>.shutdown" for the writer's database file; -1 for an in-memory one. */
static int stop_path(sqlite3 *db, char *out, size_t len)
{
    const char *file = sqlite3_db_filename(db, "main");
    if (!file || !file[0])
        return -1;
    int n = snprintf(out, len, "%s.shutdown", file);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* Sync the directory too, so the file's name survives a power loss. */
static void sync_dir(const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        *(slash == dir ? slash + 1 : slash) = '\0';
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* One write of every line, synced: 0 or an errno value. */
static int append_all(const char *path, const char *text, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0)
        return errno;
    int e = 0;
    size_t off = 0;
    while (off < len) {
        ssize_t n = write(fd, text + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            e = n < 0 ? errno : EIO;
            break;
        }
        off += (size_t)n;
    }
    if (e == 0 && fsync(fd) != 0)
        e = errno;
    close(fd);
    /* A partial last line is skipped at start; it must not stay the
     * beginning of the next stop's first line. */
    if (e != 0 && off > 0 && off < len) {
        int fix = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fix >= 0) {
            if (write(fix, "\n", 1) < 0) {
                /* Nothing more to do: the next start skips the torn line. */
            }
            close(fix);
        }
    }
    if (e == 0)
        sync_dir(path);
    return e;
}

int store_sqlite_defer_log_ends(sc_store_be *w, const sc_store_log_row *rows, size_t n, char *err,
                                size_t errlen)
{
    char path[PATH_MAX];
    if (stop_path(w->db, path, sizeof path) != 0) {
        snprintf(err, errlen, "an in-memory database keeps no rows for its next start");
        return SC_STORE_EIO;
    }
    size_t cap = n * 80 + 1, len = 0;
    char *text = malloc(cap);
    if (!text) {
        snprintf(err, errlen, "out of memory");
        return SC_STORE_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, cap - len, "%" PRId64 " %s %" PRIu32 " %" PRId64 "\n",
                                rows[i].session, rows[i].outcome, rows[i].node_count,
                                rows[i].ended_ms);
    int e = append_all(path, text, len);
    /* A full disk: the reserve kept for deletes gives the few bytes. */
    if ((e == ENOSPC || e == EDQUOT) && store_writer_release_reserve(w))
        e = append_all(path, text, len);
    free(text);
    if (e != 0) {
        snprintf(err, errlen, "cannot write the .shutdown file next to the database: %s",
                 strerror(e));
        return SC_STORE_EIO;
    }
    return 0;
}

/* One line of the file; false for a line cut short or not ours. */
static bool parse_line(const char *line, sc_store_log_row *r)
{
    static const char *const words[] = {"failed", "closed", "abandoned", "shutdown"};
    char word[16];
    long long session, ended;
    unsigned long nodes;
    char end;
    if (sscanf(line, "%lld %15s %lu %lld%c", &session, word, &nodes, &ended, &end) != 5 ||
        end != '\n' || session <= 0 || nodes > UINT32_MAX)
        return false;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        if (strcmp(word, words[i]) == 0) {
            *r = (sc_store_log_row){.session = session,
                                    .outcome = words[i],
                                    .node_count = (uint32_t)nodes,
                                    .ended_ms = ended};
            return true;
        }
    }
    return false;
}

static int apply_fail(sqlite3 *db, sqlite3_stmt *s, FILE *f, char *err, size_t errlen)
{
    snprintf(err, errlen, "ending the log rows the last stop left in the .shutdown file: %s",
             sqlite3_errmsg(db));
    sqlite3_finalize(s);
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    fclose(f);
    return SC_STORE_EIO;
}

int store_sqlite_apply_deferred(sqlite3 *db, char *err, size_t errlen)
{
    char path[PATH_MAX];
    if (stop_path(db, path, sizeof path) != 0)
        return 0;
    FILE *f = fopen(path, "re");
    if (!f) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "cannot read the .shutdown file next to the database: %s",
                 strerror(errno));
        return SC_STORE_EIO;
    }
    sqlite3_stmt *s = NULL;
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "UPDATE capture_log SET outcome = ?2, node_count = ?3, ended_at = ?4"
                           " WHERE session = ?1 AND outcome = 'open'",
                           -1, &s, NULL) != SQLITE_OK)
        return apply_fail(db, s, f, err, errlen);
    char line[128];
    sc_store_log_row r;
    while (fgets(line, sizeof line, f)) {
        if (!parse_line(line, &r))
            continue;
        char when[STORE_TIME_BUF];
        store_time_format(r.ended_ms, when);
        sqlite3_bind_int64(s, 1, r.session);
        sqlite3_bind_text(s, 2, r.outcome, -1, SQLITE_STATIC);
        sqlite3_bind_int64(s, 3, r.node_count);
        sqlite3_bind_text(s, 4, when, -1, SQLITE_TRANSIENT);
        int rc = sqlite3_step(s);
        sqlite3_reset(s);
        if (rc != SQLITE_DONE)
            return apply_fail(db, s, f, err, errlen);
    }
    if (ferror(f) || sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        return apply_fail(db, s, f, err, errlen);
    sqlite3_finalize(s);
    fclose(f);
    /* Applied: should the removal fail, applying it again changes nothing
     * (only rows still open are ended). */
    unlink(path);
    sync_dir(path);
    return 0;
}
