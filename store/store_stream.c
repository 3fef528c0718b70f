/*
 * store_stream.c - streamed captures (sc_store.h, "Streaming"), the loop
 * thread's side: the copy of recorded nodes into a part, and the jobs of a
 * stream.  The writer's side is in store_txn.c.
 *
 * A capture's graph grows in place while it records, so the writer thread
 * may not read it; a part is a copy of finished nodes that the writer owns
 * until the job comes back.  The copy costs the loop far less than the
 * rows cost the writer, and only captures past SC_STORE_PART_NODES nodes
 * pay it.
 */
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

bool sc_store_can_stream(const sc_store *st)
{
    return st && !st->closing && st->ops->streams;
}

int sc_store_stream_open(sc_store *st, int64_t session, int64_t started_ms, sc_store_stream **out)
{
    if (!out)
        return SC_STORE_EINVAL;
    *out = NULL;
    if (!st || !st->ops->streams)
        return SC_STORE_EINVAL;
    int rc;
    store_job *drop = store_job_new(st, SC_STORE_JOB_STREAM_DROP, 0, NULL, NULL, &rc);
    if (!drop)
        return rc;
    sc_store_stream *s = calloc(1, sizeof *s);
    if (!s) {
        free(drop);
        return SC_STORE_ENOMEM;
    }
    s->st = st;
    s->session = session;
    s->started_ms = started_ms;
    s->drop = drop;
    *out = s;
    return 0;
}

uint32_t sc_store_stream_next(const sc_store_stream *s)
{
    return s ? s->next : 0;
}

void store_part_free(sc_store *st, sc_store_part *p)
{
    if (!p)
        return;
    st->part_bytes -= p->bytes;
    free(p->nodes);
    free(p->pred_off);
    free(p->preds);
    free(p->names);
    free(p);
}

/* Room for `more` elements of `size` past *len in *buf (capacity *cap). */
static bool grow(void **buf, size_t *cap, size_t len, size_t more, size_t size)
{
    if (*cap - len >= more)
        return true;
    size_t n = *cap ? *cap : 1024;
    while (n - len < more)
        n *= 2;
    void *p = realloc(*buf, n * size);
    if (!p)
        return false;
    *buf = p;
    *cap = n;
    return true;
}

/* Append node id's predecessors to the part; false when out of memory. */
static bool copy_preds(sc_store_part *p, const sc_capture *cap, uint32_t id, size_t *len,
                       size_t *room)
{
    uint32_t count = 0;
    int rc = sc_capture_predecessors(cap, id, p->preds ? p->preds + *len : NULL,
                                     (uint32_t)(*room - *len), &count);
    if (rc == SC_ELIMIT) {
        if (!grow((void **)&p->preds, room, *len, count, sizeof *p->preds))
            return false;
        rc = sc_capture_predecessors(cap, id, p->preds + *len, (uint32_t)(*room - *len), &count);
    }
    if (rc != 0)
        return false;
    *len += count;
    return true;
}

/* Copy nodes lo .. hi - 1 of the capture: the part, or NULL when out of
 * memory (or the capture refused a node). */
static sc_store_part *part_copy(sc_store *st, const sc_capture *cap, uint32_t lo, uint32_t hi)
{
    sc_store_part *p = calloc(1, sizeof *p);
    uint32_t n = hi - lo;
    if (!p || !(p->nodes = malloc((size_t)n * sizeof *p->nodes)) ||
        !(p->pred_off = malloc(((size_t)n + 1) * sizeof *p->pred_off))) {
        store_part_free(st, p);
        return NULL;
    }
    p->lo = lo;
    p->n = n;
    size_t *name_at = malloc((size_t)n * sizeof *name_at);
    size_t npreds = 0, preds_room = 0, names_len = 0, names_room = 0;
    bool ok = name_at != NULL;
    for (uint32_t i = 0; ok && i < n; i++) {
        sc_node *node = &p->nodes[i];
        p->pred_off[i] = (uint32_t)npreds;
        ok = sc_capture_node(cap, lo + i, node) == 0 &&
             copy_preds(p, cap, lo + i, &npreds, &preds_room);
        size_t len = node->name ? node->name_len : 0;
        ok = ok && grow((void **)&p->names, &names_room, names_len, len + 1, 1);
        if (ok) {
            if (len)
                memcpy(p->names + names_len, node->name, len);
            p->names[names_len + len] = '\0';
            name_at[i] = names_len;
            node->name_len = len;
            names_len += len + 1;
        }
    }
    if (ok) {
        p->pred_off[n] = (uint32_t)npreds;
        /* The names buffer moved as it grew: point into it at the end. */
        for (uint32_t i = 0; i < n; i++)
            p->nodes[i].name = p->names + name_at[i];
    }
    free(name_at);
    if (!ok) {
        store_part_free(st, p);
        return NULL;
    }
    p->bytes = sizeof *p + (size_t)n * sizeof *p->nodes + ((size_t)n + 1) * sizeof *p->pred_off +
               preds_room * sizeof *p->preds + names_room;
    st->part_bytes += p->bytes;
    return p;
}

int sc_store_stream_part(sc_store *st, sc_store_stream *s, const sc_capture *cap, uint32_t hi)
{
    if (!st || !s || !cap || hi <= s->next || hi > sc_capture_node_count(cap))
        return SC_STORE_EINVAL;
    if (st->part_bytes >= STORE_PART_BYTES_MAX)
        return SC_STORE_EBUSY;
    int rc;
    store_job *j = store_job_new(st, SC_STORE_JOB_STREAM_PART, 0, NULL, NULL, &rc);
    if (!j)
        return rc;
    sc_store_part *part = part_copy(st, cap, s->next, hi);
    if (!part) {
        free(j);
        return SC_STORE_ENOMEM;
    }
    j->u.commit.session = s->session;
    j->u.commit.created_ms = s->started_ms;
    j->u.commit.stream = s;
    j->u.commit.part = part;
    s->next = hi;
    store_submit(st, j);
    return 0;
}

int sc_store_stream_commit(sc_store *st, sc_store_stream *s, const sc_graph *g, uint32_t uid,
                           int64_t pid, const char *label, size_t label_len, int64_t created_ms,
                           sc_store_done_fn done, void *arg)
{
    if (!s)
        return SC_STORE_EINVAL;
    int rc = SC_STORE_EINVAL;
    store_job *j = st == s->st && g && sc_graph_is_sealed(g)
                       ? store_commit_job(st, SC_STORE_JOB_COMMIT_GRAPH, s->session, g, uid, pid,
                                          label, label_len, created_ms, done, arg, &rc)
                       : NULL;
    if (!j) {
        sc_store_stream_drop(s);
        return rc;
    }
    j->u.commit.stream = s;
    store_submit(st, j);
    return 0;
}

void sc_store_stream_drop(sc_store_stream *s)
{
    if (!s)
        return;
    sc_store *st = s->st;
    /* A store that closes runs no more jobs: the next start removes the rows. */
    if (st->closing) {
        free(s->drop);
        free(s);
        return;
    }
    store_job *j = s->drop;
    s->drop = NULL;
    j->u.commit.session = s->session;
    j->u.commit.stream = s;
    store_submit(st, j);
}
