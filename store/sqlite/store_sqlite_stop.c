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
 * at most STORE_STOP_ROW_BYTES each.  On a full disk even those few bytes
 * may not be there, so the file is allocated ahead: the writer keeps room
 * in it for the final row of every open log row (and a margin), growing it
 * before a session.open adds a row, which the disk refuses before it
 * refuses the row.  The rows are written into that room, never appended
 * past it when it suffices, and the zeros after them end the list.  The
 * next start ends those rows (only where they are still open) before it
 * marks the rest lost, then zeros them in place, keeping the room.  A line
 * cut short by a crash is skipped: its row was never recorded.
 */
/* memrchr is a GNU extension. */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* All of text at off: 0 or an errno value (*done: the bytes written). */
static int write_at(int fd, const char *text, size_t len, uint64_t off, size_t *done)
{
    *done = 0;
    while (*done < len) {
        ssize_t n = pwrite(fd, text + *done, len - *done, (off_t)(off + *done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? errno : EIO;
        *done += (size_t)n;
    }
    return 0;
}

/* The bytes before the first zero (the rows), read into a buffer the
 * caller frees: 0 or an errno value. */
static int read_rows(int fd, char **out, size_t *len)
{
    struct stat st;
    *out = NULL;
    *len = 0;
    if (fstat(fd, &st) != 0)
        return errno;
    size_t size = (size_t)st.st_size;
    char *buf = malloc(size + 1);
    if (!buf)
        return ENOMEM;
    size_t got = 0;
    while (got < size) {
        ssize_t n = pread(fd, buf + got, size - got, (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        char *zero = memchr(buf + got, '\0', (size_t)n);
        got = zero ? (size_t)(zero - buf) : got + (size_t)n;
        if (zero)
            break;
    }
    buf[got] = '\0';
    *out = buf;
    *len = got;
    return 0;
}

int store_stop_open(store_writer *w, char *err, size_t errlen)
{
    char path[PATH_MAX];
    w->stop_fd = -1;
    w->stop_cap = w->stop_used = 0;
    if (stop_path(w->db, path, sizeof path) != 0)
        return 0;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0 && (errno == ENOSPC || errno == EDQUOT)) {
        /* Not there and no room to make it: a stop appends to it as well
         * as it can, and the start goes on. */
        store_sqlite_warn(w, "cannot create %s: %s; a stop on a full disk may lose its log rows",
                          path, strerror(errno));
        return 0;
    }
    if (fd < 0) {
        snprintf(err, errlen, "cannot open the .shutdown file next to the database: %s",
                 strerror(errno));
        return SC_STORE_EIO;
    }
    struct stat st;
    char *rows;
    size_t len;
    int e = fstat(fd, &st) != 0 ? errno : read_rows(fd, &rows, &len);
    if (e != 0) {
        close(fd);
        snprintf(err, errlen, "cannot read the .shutdown file next to the database: %s",
                 strerror(e));
        return SC_STORE_EIO;
    }
    /* A torn last line is never a row; the next rows go after the last whole one. */
    char *nl = len ? memrchr(rows, '\n', len) : NULL;
    w->stop_used = nl ? (uint64_t)(nl - rows) + 1 : 0;
    free(rows);
    w->stop_fd = fd;
    w->stop_cap = (uint64_t)st.st_size;
    sync_dir(path);
    return 0;
}

void store_stop_close(store_writer *w)
{
    if (w->stop_fd >= 0)
        close(w->stop_fd);
    w->stop_fd = -1;
}

int store_stop_room(store_writer *w, int64_t rows, int64_t margin)
{
    if (w->stop_fd < 0)
        return 0;
    uint64_t need = w->stop_used + (uint64_t)(rows > 0 ? rows : 0) * STORE_STOP_ROW_BYTES;
    if (need <= w->stop_cap)
        return 0;
    /* With the margin, so that most opens allocate nothing; without it
     * when only the rows themselves still fit. */
    uint64_t want[2] = {need + (uint64_t)(margin > 0 ? margin : 0) * STORE_STOP_ROW_BYTES,
                        (need + 4095) & ~(uint64_t)4095};
    int e = 0;
    for (int i = 0; i < 2; i++) {
        e = posix_fallocate(w->stop_fd, 0, (off_t)want[i]);
        if (e == 0) {
            w->stop_cap = want[i];
            return 0;
        }
    }
    return e;
}

/* Give back the margin beyond the rows of `rows` open sessions: true when
 * that freed anything (a delete on a full disk without the reserve). */
bool store_stop_shrink(store_writer *w, int64_t rows)
{
    if (w->stop_fd < 0)
        return false;
    uint64_t keep = w->stop_used + (uint64_t)(rows > 0 ? rows : 0) * STORE_STOP_ROW_BYTES;
    keep = (keep + 4095) & ~(uint64_t)4095;
    if (keep >= w->stop_cap || ftruncate(w->stop_fd, (off_t)keep) != 0)
        return false;
    w->stop_cap = keep;
    return true;
}

/* The old way, when the file could not be kept open: appended and synced. */
static int append_all(const char *path, const char *text, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0)
        return errno;
    size_t done;
    int e = write_at(fd, text, len, (uint64_t)lseek(fd, 0, SEEK_END), &done);
    if (e == 0 && fsync(fd) != 0)
        e = errno;
    close(fd);
    return e;
}

/* The rows at the end of the written part, synced: 0 or an errno value.
 * Within the allocated room no block is needed; past it (more rows than
 * were allowed for) the reserve gives the space. */
static int write_rows(store_writer *w, const char *path, const char *text, size_t len)
{
    if (w->stop_fd < 0) {
        int e = append_all(path, text, len);
        if ((e == ENOSPC || e == EDQUOT) && store_writer_release_reserve(w))
            e = append_all(path, text, len);
        return e;
    }
    size_t done, total = 0;
    int e = write_at(w->stop_fd, text, len, w->stop_used, &done);
    total = done;
    if ((e == ENOSPC || e == EDQUOT) && store_writer_release_reserve(w)) {
        e = write_at(w->stop_fd, text + total, len - total, w->stop_used + total, &done);
        total += done;
    }
    /* A torn last line is skipped at start: the whole ones still count. */
    if (fdatasync(w->stop_fd) != 0 && e == 0)
        e = errno;
    if (e == 0)
        w->stop_used += len;
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
    int e = write_rows(w, path, text, len);
    free(text);
    if (e != 0) {
        snprintf(err, errlen, "cannot write the .shutdown file next to the database: %s",
                 strerror(e));
        return SC_STORE_EIO;
    }
    sync_dir(path);
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

/* Each whole line of rows[0, len) ended where still open: SQLite's code. */
static int apply_lines(sqlite3 *db, sqlite3_stmt *s, const char *rows, size_t len)
{
    const char *p = rows, *end = rows + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        char line[128];
        sc_store_log_row r;
        if (n < sizeof line) {
            memcpy(line, p, n);
            line[n] = '\0';
        }
        p += n;
        if (n >= sizeof line || !parse_line(line, &r))
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
            return rc;
    }
    (void)db;
    return SQLITE_OK;
}

int store_stop_apply(store_writer *w)
{
    if (w->stop_fd < 0 || w->stop_used == 0)
        return SQLITE_OK;
    char *rows;
    size_t len;
    if (read_rows(w->stop_fd, &rows, &len) != 0)
        return SQLITE_IOERR;
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_exec(w->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc =
            sqlite3_prepare_v2(w->db,
                               "UPDATE capture_log SET outcome = ?2, node_count = ?3, ended_at = ?4"
                               " WHERE session = ?1 AND outcome = 'open'",
                               -1, &s, NULL);
    if (rc == SQLITE_OK)
        rc = apply_lines(w->db, s, rows, len);
    sqlite3_finalize(s);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(w->db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK && !sqlite3_get_autocommit(w->db))
        sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
    if (rc == SQLITE_OK) {
        /* Applied: zeroed in place, keeping the room.  Should that fail,
         * applying the rows again changes nothing (only open rows end). */
        memset(rows, 0, len);
        size_t done;
        if (write_at(w->stop_fd, rows, len, 0, &done) == 0 && fdatasync(w->stop_fd) == 0)
            w->stop_used = 0;
    }
    free(rows);
    return rc;
}
