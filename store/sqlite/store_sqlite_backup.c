/*
 * store_sqlite_backup.c - store.backup on SQLite (sc_store_backup,
 * docs/operations.md "Backup").
 *
 * Why VACUUM INTO and not the online backup API: sqlite3_backup_step()
 * copies pages in steps, and a write through any other connection between
 * two steps restarts the copy from the first page.  The writer thread
 * commits on its own connection all the time, so under steady load a
 * stepped backup may never finish.  VACUUM INTO runs as one read
 * transaction on a reader connection: in WAL mode the writer goes on
 * committing beside it (a reader never blocks it), the copy is the
 * snapshot the transaction began with, so it holds every graph
 * acknowledged before, and it comes out compacted, without free pages.
 * Its cost is that the WAL cannot be checkpointed past that snapshot
 * while the copy runs, so the -wal file grows by what is written
 * meanwhile and shrinks at the next checkpoint after.
 *
 * The copy is written to a temporary file next to the target, fsync'ed,
 * then linked (no overwrite: link() fails on an existing name, so a file
 * that appeared meanwhile is never replaced) or renamed into place, and
 * the directory fsync'ed: the target is either absent or the whole copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_sqlite.h"

static void backup_fail(sc_store_read *q, int rc, const char *fmt, const char *detail)
{
    q->rc = rc;
    snprintf(q->errmsg, sizeof q->errmsg, fmt, detail);
}

/* fsync the file at `path` (a regular file or a directory). */
static int sync_path(const char *path, int flags)
{
    int fd = open(path, flags | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

/* The directory of `path` into dir (a path from '/'). */
static void dir_of(const char *path, char *dir, size_t len)
{
    snprintf(dir, len, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        slash[1] = '\0';
    else if (slash)
        *slash = '\0';
}

static int vacuum_into(sqlite3 *db, const char *tmp, sc_store_read *q)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(db, "VACUUM INTO ?1", -1, &s, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(s, 1, tmp, -1, SQLITE_STATIC);
        rc = sqlite3_step(s);
    }
    sqlite3_finalize(s);
    if (rc == SQLITE_DONE || rc == SQLITE_OK)
        return 0;
    backup_fail(q, rc == SQLITE_NOMEM ? SC_STORE_ENOMEM : SC_STORE_EIO, "copying the database: %s",
                sqlite3_errmsg(db));
    return -1;
}

/* Put the finished copy `tmp` at the target. */
static int place(const char *tmp, sc_store_read *q)
{
    if (q->backup_flags & SC_STORE_BACKUP_OVERWRITE) {
        if (rename(tmp, q->target) != 0) {
            backup_fail(q, SC_STORE_EIO, "renaming the copy into place: %s", strerror(errno));
            return -1;
        }
        return 0;
    }
    if (link(tmp, q->target) != 0) {
        int e = errno;
        backup_fail(q, e == EEXIST ? SC_STORE_EEXIST : SC_STORE_EIO,
                    e == EEXIST ? "%s" : "linking the copy into place: %s",
                    e == EEXIST ? "the target file exists" : strerror(e));
        return -1;
    }
    unlink(tmp);
    return 0;
}

void store_sqlite_backup(sqlite3 *db, sc_store_read *q)
{
    struct stat sb;
    q->rc = 0;
    if (!(q->backup_flags & SC_STORE_BACKUP_OVERWRITE) && lstat(q->target, &sb) == 0) {
        backup_fail(q, SC_STORE_EEXIST, "%s", "the target file exists");
        return;
    }
    size_t len = strlen(q->target) + sizeof ".XXXXXX";
    char *tmp = malloc(len);
    char *dir = malloc(len);
    if (!tmp || !dir) {
        free(tmp);
        free(dir);
        backup_fail(q, SC_STORE_ENOMEM, "%s", "out of memory");
        return;
    }
    snprintf(tmp, len, "%s.XXXXXX", q->target);
    dir_of(q->target, dir, len);
    /* An empty file of our own, mode 0600 (a copy holds every user's
     * graphs): VACUUM INTO accepts an existing empty file. */
    int fd = mkstemp(tmp);
    if (fd < 0) {
        backup_fail(q, SC_STORE_EIO, "creating the copy: %s", strerror(errno));
    } else {
        close(fd);
        if (vacuum_into(db, tmp, q) == 0) {
            if (sync_path(tmp, O_RDONLY) != 0)
                backup_fail(q, SC_STORE_EIO, "syncing the copy: %s", strerror(errno));
            else if (place(tmp, q) == 0 && sync_path(dir, O_RDONLY | O_DIRECTORY) != 0)
                backup_fail(q, SC_STORE_EIO, "syncing the copy's directory: %s", strerror(errno));
        }
        if (q->rc != 0 || (q->backup_flags & SC_STORE_BACKUP_OVERWRITE) == 0)
            unlink(tmp); /* after a rename there is nothing at tmp */
    }
    if (q->rc == 0 && stat(q->target, &sb) == 0)
        q->bytes = (uint64_t)sb.st_size;
    free(tmp);
    free(dir);
}
