/*
 * store_txn.c - the writer thread's transactions, over any backend: group
 * commit with the retry of a failed batch job by job, and the steps of a
 * chunked commit.  The backend runs the SQL (store_backend.h); what is
 * retried, when a chunk ends and how large the next one is is decided
 * here, the same for every backend.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "store_int.h"

/* run_txn's outcome: not a store code, the jobs hold those.  TXN_UNKNOWN:
 * COMMIT was sent and its outcome could not be learnt (it may have
 * committed), so the jobs must not run again. */
enum { TXN_OK = 0, TXN_BEGIN_FAILED, TXN_FAILED, TXN_UNKNOWN };

/* How the backend says the last transaction ended, counted in delta. */
static int note_outcome(sc_store *st, sc_store_stats *delta)
{
    int o = st->ops->txn_outcome ? st->ops->txn_outcome(st->be) : SC_STORE_TXN_PLAIN;
    if (o == SC_STORE_TXN_COMMITTED)
        delta->commits_committed++;
    else if (o == SC_STORE_TXN_ABORTED)
        delta->commits_aborted++;
    else if (o == SC_STORE_TXN_UNKNOWN)
        delta->commits_unknown++;
    return o;
}

/* After a failed attempt: TXN_UNKNOWN when it may have committed, else r;
 * *again when nothing of it was written because its connection broke, so
 * that running it once more (the backend reconnects) may well succeed. */
static int judge(sc_store *st, int r, sc_store_stats *delta, bool *again)
{
    int o = note_outcome(st, delta);
    *again = r == TXN_FAILED && (o == SC_STORE_TXN_ABORTED || o == SC_STORE_TXN_BROKEN);
    return o == SC_STORE_TXN_UNKNOWN ? TXN_UNKNOWN : r;
}

/* Jobs [first, end) in one transaction, one attempt. */
static int try_txn(sc_store *st, store_job *first, store_job *end, unsigned flags, char *errbuf,
                   size_t len, int *fail)
{
    const sc_store_backend *ops = st->ops;
    for (store_job *j = first; j != end; j = j->next) {
        j->rc = 0;
        j->id = 0;
    }
    if ((*fail = ops->begin(st->be, flags, errbuf, len)) != 0)
        return TXN_BEGIN_FAILED;
    for (store_job *j = first; j != end; j = j->next) {
        j->rc = ops->write(st->be, j, errbuf, len);
        if (j->rc == SC_STORE_EIO || j->rc == SC_STORE_ENOMEM) {
            *fail = j->rc;
            ops->rollback(st->be);
            return TXN_FAILED;
        }
    }
    if ((*fail = ops->commit(st->be, errbuf, len)) != 0) {
        ops->rollback(st->be);
        return TXN_FAILED;
    }
    return TXN_OK;
}

/* Jobs [first, end) in one transaction, run a second time when the first
 * attempt's connection broke with nothing written.  On failure nothing is
 * stored (but for TXN_UNKNOWN), errbuf holds the backend's message and
 * *fail its code (EIO or ENOMEM). */
static int run_txn(sc_store *st, store_job *first, store_job *end, unsigned flags, char *errbuf,
                   size_t len, int *fail, sc_store_stats *delta)
{
    bool again = false;
    int r = try_txn(st, first, end, flags, errbuf, len, fail);
    r = judge(st, r, delta, &again);
    if (r == TXN_OK || !again)
        return r;
    delta->txns_rerun++;
    r = try_txn(st, first, end, flags, errbuf, len, fail);
    return judge(st, r, delta, &again);
}

/* Memory running out is the daemon's failure, not the database's: the job
 * fails with SC_STORE_ENOMEM so that it is never reported as storage. */
static void fail_job(store_job *j, const char *msg, int code, sc_store_stats *delta)
{
    j->rc = code == SC_STORE_ENOMEM ? SC_STORE_ENOMEM : SC_STORE_EIO;
    j->id = 0;
    free(j->errmsg);
    j->errmsg = store_strdup(msg);
    delta->jobs_failed++;
}

/* Jobs that may spend the room make_room frees: deleting is how space
 * comes back, and a stopping daemon's last log rows must not read `lost`. */
static bool may_make_room(const store_job *j)
{
    return j->type == SC_STORE_JOB_DELETE_GRAPH || j->type == SC_STORE_JOB_PRUNE_GRAPHS ||
           j->type == SC_STORE_JOB_PRUNE_LOG || (j->type == SC_STORE_JOB_LOG_END && j->u.end.final);
}

/* One job in a transaction of its own.  A delete (or a final log end) that
 * failed runs once more when the backend could make room for it (a full
 * disk). */
static int run_alone(sc_store *st, store_job *j, char *err, size_t len, int *fail,
                     sc_store_stats *delta)
{
    int r = run_txn(st, j, j->next, 0, err, len, fail, delta);
    if (r == TXN_OK || r == TXN_UNKNOWN || !may_make_room(j) || !st->ops->make_room ||
        !st->ops->make_room(st->be))
        return r;
    return run_txn(st, j, j->next, 0, err, len, fail, delta);
}

void store_txn_run_batch(sc_store *st, store_job *batch, sc_store_stats *delta)
{
    char err[512];
    size_t n = 0;
    int fail;
    for (store_job *j = batch; j; j = j->next)
        n++;
    delta->jobs_done += n;

    int r = run_txn(st, batch, NULL, 0, err, sizeof err, &fail, delta);
    if (r == TXN_OK) {
        delta->transactions++;
        return;
    }
    /*
     * A failed BEGIN ran none of the jobs, so none of them is to blame and
     * retrying them one by one would only wait out the busy timeout again
     * per job.  A COMMIT of unknown outcome may have stored them all, so
     * running them again could store them twice.  Otherwise one job may
     * have caused the failure (a huge graph on a nearly full disk): re-run
     * each alone so the others still land.
     */
    if (r == TXN_BEGIN_FAILED || r == TXN_UNKNOWN || (n == 1 && !may_make_room(batch))) {
        for (store_job *j = batch; j; j = j->next)
            fail_job(j, err, fail, delta);
        return;
    }
    for (store_job *j = batch; j; j = j->next) {
        delta->jobs_retried++;
        if (run_alone(st, j, err, sizeof err, &fail, delta) == TXN_OK)
            delta->transactions++;
        else
            fail_job(j, err, fail, delta);
    }
}

/* ---- chunked commits ---- */

bool store_txn_chunked(const store_job *j)
{
    /* A stream's jobs run one at a time and in order, as chunks do. */
    if (j->type == SC_STORE_JOB_STREAM_PART || j->type == SC_STORE_JOB_STREAM_DROP ||
        (j->type == SC_STORE_JOB_COMMIT_GRAPH && j->u.commit.stream))
        return true;
    if ((j->type != SC_STORE_JOB_COMMIT_GRAPH && j->type != SC_STORE_JOB_COMMIT_CAPTURE) ||
        !j->u.commit.g)
        return false;
    const sc_graph *g = j->u.commit.g;
    return (uint64_t)sc_graph_node_count(g) + sc_graph_edge_count(g) > STORE_CHUNK_ROWS;
}

static uint64_t mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/*
 * One chunk: nodes [lo, hi) and the edges into them, the first chunk (or
 * part) with the reservation, in one attempt.  TXN_OK, with j->rc set
 * when the session check refused; otherwise nothing of this chunk is
 * stored (but for TXN_UNKNOWN) and err says why.
 */
static int chunk_range_try(sc_store *st, store_job *j, uint32_t lo, uint32_t hi, char *err,
                           size_t len, int *fail)
{
    const sc_store_backend *ops = st->ops;
    if ((*fail = ops->begin(st->be, SC_STORE_TXN_UNACKED, err, len)) != 0)
        return TXN_BEGIN_FAILED;
    int rc = ops->write_chunk(st->be, j, lo, hi, err, len);
    if (rc == SC_STORE_ENOTFOUND) {
        ops->rollback(st->be);
        j->rc = rc;
        return TXN_OK;
    }
    if (rc == 0)
        rc = ops->commit(st->be, err, len);
    if (rc) {
        ops->rollback(st->be);
        *fail = rc;
        return TXN_FAILED;
    }
    return TXN_OK;
}

/* chunk_range_try, once more when its connection broke with nothing
 * written.  A reservation the chunk made went with a rollback; one whose
 * COMMIT has an unknown outcome is kept, so that its rows are dropped. */
static int chunk_range_txn(sc_store *st, store_job *j, uint32_t lo, uint32_t hi, char *err,
                           size_t len, int *fail, sc_store_stats *delta)
{
    int64_t reserved = j->u.commit.pending_gid;
    bool again = false;
    int r = judge(st, chunk_range_try(st, j, lo, hi, err, len, fail), delta, &again);
    if (r != TXN_OK && again) {
        delta->txns_rerun++;
        j->u.commit.pending_gid = reserved;
        r = judge(st, chunk_range_try(st, j, lo, hi, err, len, fail), delta, &again);
    }
    if (r != TXN_OK && r != TXN_UNKNOWN)
        j->u.commit.pending_gid = reserved;
    return r;
}

/* The next chunk of a chunked commit, as chunk_range_txn. */
static int chunk_txn(sc_store *st, store_job *j, char *err, size_t len, int *fail,
                     sc_store_stats *delta)
{
    uint32_t n = sc_graph_node_count(j->u.commit.g), lo = j->u.commit.next_node;
    uint32_t hi = n - lo > j->u.commit.chunk_nodes ? lo + j->u.commit.chunk_nodes : n;
    int r = chunk_range_txn(st, j, lo, hi, err, len, fail, delta);
    if (r == TXN_OK && j->rc == 0)
        j->u.commit.next_node = hi;
    return r;
}

/* The next step of a chunked commit: its index of nodes [index_next, ...),
 * once every node is stored.  TXN_OK, or nothing of it is stored and err
 * says why. */
static int index_txn(sc_store *st, store_job *j, char *err, size_t len, int *fail)
{
    const sc_store_backend *ops = st->ops;
    uint32_t n = sc_graph_node_count(j->u.commit.g), lo = j->u.commit.index_next;
    uint32_t hi = n - lo > j->u.commit.index_nodes ? lo + j->u.commit.index_nodes : n;
    if ((*fail = ops->begin(st->be, SC_STORE_TXN_UNACKED, err, len)) != 0)
        return TXN_BEGIN_FAILED;
    int rc = ops->write_index(st->be, j, lo, hi, err, len);
    if (rc == 0)
        rc = ops->commit(st->be, err, len);
    if (rc) {
        ops->rollback(st->be);
        *fail = rc;
        return TXN_FAILED;
    }
    j->u.commit.index_next = hi;
    return TXN_OK;
}

/* Size the next step (*nodes per transaction) so that it takes about
 * STORE_CHUNK_MS. */
static void adapt_step(uint32_t *nodes, uint64_t took_us)
{
    const uint64_t target = STORE_CHUNK_MS * 1000u, most = 1u << 22, least = 1024;
    uint64_t c = *nodes;
    if (took_us < target / 2)
        c *= 2;
    else if (took_us > target)
        c = c * target / took_us;
    *nodes = (uint32_t)(c < least ? least : c > most ? most : c);
}

/*
 * A part of a streamed capture in a transaction of its own, the first one
 * reserving the graph id.  A part that fails (or does not follow the last
 * one stored) marks the stream failed: the later parts are skipped and the
 * commit stores the whole graph again.
 */
static void part_step(sc_store *st, store_job *j, sc_store_stats *delta)
{
    sc_store_stream *s = j->u.commit.stream;
    const sc_store_part *p = j->u.commit.part;
    char err[512];
    int fail;
    if (s->failed || p->lo != s->stored)
        goto failed;
    j->u.commit.pending_gid = s->gid;
    int r = chunk_range_txn(st, j, p->lo, p->lo + p->n, err, sizeof err, &fail, delta);
    if (r != TXN_OK || j->rc != 0)
        goto failed;
    s->gid = j->u.commit.pending_gid;
    s->stored = p->lo + p->n;
    delta->transactions++;
    return;
failed:
    s->failed = true;
    j->rc = 0;
}

/* The commit of a streamed capture takes over what its parts stored, or,
 * when one failed, removes it and starts over. */
static void take_stream(sc_store *st, store_job *j)
{
    sc_store_stream *s = j->u.commit.stream;
    if (!s || j->u.commit.stream_taken)
        return;
    j->u.commit.stream_taken = true;
    if (s->failed) {
        if (s->gid)
            st->ops->drop_chunks(st->be, s->gid);
        return;
    }
    j->u.commit.pending_gid = s->gid;
    j->u.commit.next_node = s->stored;
}

/*
 * A step of a chunked commit failed because rows of its earlier chunks,
 * committed without waiting for their flush, went with a server that
 * crashed: what is left of them is dropped and the commit starts over from
 * its first chunk, a few times at most.
 */
static bool start_over(sc_store *st, store_job *j, int r, sc_store_stats *delta)
{
    if (r != TXN_FAILED || j->u.commit.stream || j->u.commit.restarts >= STORE_CHUNK_RESTARTS ||
        !st->ops->txn_outcome || st->ops->txn_outcome(st->be) != SC_STORE_TXN_RESTART)
        return false;
    if (j->u.commit.pending_gid)
        st->ops->drop_chunks(st->be, j->u.commit.pending_gid);
    j->u.commit.pending_gid = 0;
    j->u.commit.next_node = 0;
    j->u.commit.index_next = 0;
    j->u.commit.restarts++;
    j->rc = 0;
    delta->commits_restarted++;
    return true;
}

bool store_txn_step(sc_store *st, store_job *j, sc_store_stats *delta)
{
    char err[512];
    const sc_graph *g = j->u.commit.g;
    int r, fail = 0;
    if (j->type == SC_STORE_JOB_STREAM_PART || j->type == SC_STORE_JOB_STREAM_DROP) {
        sc_store_stream *s = j->u.commit.stream;
        if (j->type == SC_STORE_JOB_STREAM_PART)
            part_step(st, j, delta);
        else if (s->gid)
            st->ops->drop_chunks(st->be, s->gid);
        delta->jobs_done++;
        return true;
    }
    take_stream(st, j);
    if (j->u.commit.chunk_nodes == 0)
        j->u.commit.chunk_nodes = STORE_CHUNK_FIRST_NODES;
    if (j->u.commit.index_nodes == 0)
        j->u.commit.index_nodes = STORE_INDEX_FIRST_NODES;
    uint32_t n = sc_graph_node_count(g);
    if (j->u.commit.next_node < n || !j->u.commit.pending_gid) {
        j->rc = 0;
        uint64_t t0 = mono_us();
        r = chunk_txn(st, j, err, sizeof err, &fail, delta);
        adapt_step(&j->u.commit.chunk_nodes, mono_us() - t0);
        if (r == TXN_OK && j->rc == 0) {
            delta->transactions++;
            return false;
        }
    } else if (st->ops->write_index && j->u.commit.index_next < n) {
        /* A big graph's index, a step at a time: written whole in the
         * last transaction, a 5M-node graph's (61 MB) held the write lock
         * for a quarter of a second (schema/008_index_parts.sql). */
        uint64_t t0 = mono_us();
        r = index_txn(st, j, err, sizeof err, &fail);
        adapt_step(&j->u.commit.index_nodes, mono_us() - t0);
        if (r == TXN_OK) {
            delta->transactions++;
            return false;
        }
    } else {
        /* The last transaction: the graph row, the rest of its index, the
         * log.  This job alone: j->next is the next chunked commit, which
         * must not be written whole here and then again by its own steps. */
        r = run_txn(st, j, j->next, 0, err, sizeof err, &fail, delta);
        if (r == TXN_OK)
            delta->transactions++;
    }
    if (start_over(st, j, r, delta))
        return false;
    delta->jobs_done++;
    if (j->u.commit.pending_gid && (r != TXN_OK || j->rc != 0))
        st->ops->drop_chunks(st->be, j->u.commit.pending_gid);
    if (r != TXN_OK)
        fail_job(j, err, fail, delta);
    return true;
}
