/*
 * store_pg_txn.c - the PostgreSQL backend's write transactions
 * (store_pg_int.h): begin, with the host's write mark; commit, and the
 * outcome of a COMMIT whose connection broke; rollback.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_pg_int.h"

/*
 * One try at opening a write transaction.  It also sets this host's
 * hosts.write_seq to a number of its own, the mark store_pg_commit reads
 * back when the connection breaks with COMMIT sent: the number is there if
 * and only if the transaction committed.  Numbers only grow, also past a
 * transaction that never committed, so an older transaction's mark can
 * never be taken for this one's.  The row's number also grows past marks
 * another daemon left while it held our host name (pg_host_locked), so
 * the mark is the larger of the two, read back.
 */
static int begin_once(sc_store_be *be, unsigned flags, char *err, size_t len)
{
    /*
     * As SQLite's BEGIN IMMEDIATE: the locks every write takes anyway are
     * taken up front, so that a lock held elsewhere (LOCK TABLE, DDL, a
     * VACUUM FULL) fails the begin, after the busy timeout, and not
     * forever or job by job.  ROW EXCLUSIVE does not conflict with itself:
     * the other daemons of the fleet keep writing at the same time.
     */
    /* A chunk is acknowledged by the last transaction of its commit only,
     * whose flush covers it: it need not wait for its own. */
    size_t cap = strlen(be->host_lit) + 512;
    char *begin = malloc(cap);
    if (!begin) {
        pg_set_err(err, len, "cannot begin a write", "out of memory");
        return SC_STORE_ENOMEM;
    }
    be->write_seq++;
    snprintf(begin, cap,
             "BEGIN; SET LOCAL lock_timeout = %d;%s"
             " LOCK TABLE capture_log, graphs, nodes, edges, graph_index, captures,"
             " pending_graphs IN ROW EXCLUSIVE MODE;"
             " UPDATE hosts SET write_seq = greatest(write_seq + 1, %lld) WHERE host = %s"
             " RETURNING write_seq",
             be->busy_timeout_ms,
             (flags & SC_STORE_TXN_UNACKED) ? " SET LOCAL synchronous_commit = off;" : "",
             (long long)be->write_seq, be->host_lit);
    PGresult *res = PQexec(be->conn, begin);
    free(begin);
    int rc = 0;
    if (!res || PQresultStatus(res) != PGRES_TUPLES_OK)
        rc = pg_fail(be->conn, res, "cannot begin a write", err, len);
    else if (PQntuples(res) != 1) {
        pg_set_err(err, len, "cannot begin a write", "this host's row in hosts is missing");
        rc = SC_STORE_EIO;
    } else
        be->write_seq = col_i64(res, 0, 0);
    PQclear(res);
    /* A failed statement after BEGIN leaves the transaction open. */
    if (rc && PQstatus(be->conn) == CONNECTION_OK)
        PQclear(PQexec(be->conn, "ROLLBACK"));
    return rc;
}

/* A connection that breaks under the BEGIN (the server restarted since it
 * was last used, which the connection learns only now) is made again, for
 * at most reconnect_ms, before the write fails.  No write begins without
 * the host name's lock, which a restart drops too (pg_host_locked). */
int store_pg_begin(sc_store_be *be, unsigned flags, char *err, size_t len)
{
    be->outcome = SC_STORE_TXN_PLAIN;
    uint64_t deadline = pg_now_us() + (uint64_t)be->reconnect_ms * 1000u;
    for (;;) {
        int rc = pg_writer_ready(be, deadline, err, len);
        if (rc == 0)
            rc = pg_host_locked(be, deadline, err, len);
        if (rc)
            return rc;
        rc = begin_once(be, flags, err, len);
        if (rc == 0 || PQstatus(be->conn) == CONNECTION_OK || pg_now_us() >= deadline)
            return rc;
    }
}

/* This host's write_seq, read once the transaction that last set it has
 * ended: FOR UPDATE waits for it when its server still runs it (only our
 * connection broke), for at most until `deadline`.  0, or EIO. */
static int settled_seq(sc_store_be *be, uint64_t deadline, int64_t *seq, char *err, size_t len)
{
    uint64_t now = pg_now_us();
    long wait_ms = now < deadline ? (long)((deadline - now) / 1000u) + 1 : 1;
    size_t cap = strlen(be->host_lit) + 160;
    char *sql = malloc(cap);
    if (!sql) {
        pg_set_err(err, len, "out of memory", NULL);
        return SC_STORE_EIO;
    }
    snprintf(sql, cap,
             "BEGIN; SET LOCAL lock_timeout = %ld;"
             " SELECT write_seq FROM hosts WHERE host = %s FOR UPDATE",
             wait_ms, be->host_lit);
    int rc = 0;
    PGresult *r = PQexec(be->conn, sql);
    free(sql);
    if (r && PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
        *seq = col_i64(r, 0, 0);
    else {
        pg_fail(be->conn, r, "cannot read this host's row", err, len);
        rc = SC_STORE_EIO;
    }
    PQclear(r);
    if (PQstatus(be->conn) == CONNECTION_OK)
        PQclear(PQexec(be->conn, "ROLLBACK"));
    return rc;
}

/*
 * The connection broke with COMMIT sent and no answer: whether the
 * transaction committed is learnt from this host's row on a new
 * connection, within reconnect_ms.  Committed is success; not committed
 * fails with nothing written; not learnt in time fails saying so.
 */
static int resolve_commit(sc_store_be *be, char *err, size_t len)
{
    uint64_t deadline = pg_now_us() + (uint64_t)be->reconnect_ms * 1000u;
    char why[256] = "no answer";
    for (;;) {
        int64_t seq = 0;
        int rc = pg_writer_ready(be, deadline, why, sizeof why);
        if (rc == 0)
            rc = settled_seq(be, deadline, &seq, why, sizeof why);
        if (rc == 0 && seq == be->write_seq) {
            be->outcome = SC_STORE_TXN_COMMITTED;
            return 0;
        }
        if (rc == 0 && seq < be->write_seq) {
            be->outcome = SC_STORE_TXN_ABORTED;
            pg_set_err(err, len, "cannot commit",
                       "the connection to the database broke and the transaction was not "
                       "committed");
            return SC_STORE_EIO;
        }
        if (rc == 0 || pg_now_us() >= deadline)
            break; /* a newer mark: another writer under our name */
        if (PQstatus(be->conn) == CONNECTION_OK)
            nanosleep(&(struct timespec){.tv_nsec = 100 * 1000 * 1000}, NULL);
    }
    be->outcome = SC_STORE_TXN_UNKNOWN;
    char msg[512];
    snprintf(msg, sizeof msg,
             "commit outcome unknown: the connection to the database broke after COMMIT was "
             "sent and whether it committed could not be learnt within %d ms (%.200s); it may "
             "have been stored",
             be->reconnect_ms, why);
    pg_set_err(err, len, msg, NULL);
    return SC_STORE_EIO;
}

int store_pg_commit(sc_store_be *be, char *err, size_t len)
{
    PGresult *r = PQexec(be->conn, "COMMIT");
    if (r && PQresultStatus(r) == PGRES_COMMAND_OK) {
        /* COMMIT of a transaction already failed answers ROLLBACK. */
        bool rolled_back = strcmp(PQcmdStatus(r), "ROLLBACK") == 0;
        PQclear(r);
        if (!rolled_back)
            return 0;
        pg_set_err(err, len, "cannot commit", "the transaction was rolled back");
        return SC_STORE_EIO;
    }
    int rc = pg_fail(be->conn, r, "cannot commit", err, len);
    PQclear(r);
    if (PQstatus(be->conn) == CONNECTION_OK)
        return rc;
    return resolve_commit(be, err, len);
}

void store_pg_rollback(sc_store_be *be)
{
    if (PQstatus(be->conn) != CONNECTION_OK)
        return;
    PGresult *r = PQexec(be->conn, "ROLLBACK");
    PQclear(r);
}

int store_pg_txn_outcome(sc_store_be *be)
{
    /* A statement before COMMIT failed with the connection: nothing of the
     * transaction can have committed. */
    if (be->outcome == SC_STORE_TXN_PLAIN && PQstatus(be->conn) != CONNECTION_OK)
        return SC_STORE_TXN_BROKEN;
    return be->outcome;
}
