/*
 * session_ops.c - choosing a session's semantics and calling through them
 * (sc_session_ops.h), with what every semantics' handlers share: finding
 * the session a request names and the room left for its nodes.
 */
#include <stdio.h>
#include <string.h>

#include "sc_session_ops.h"

/* Every semantics, the default first: session.open names one of them. */
static const sc_session_ops *const all_ops[] = {&sc_oxicuda_ops, &sc_cuda_ops};
#define NOPS (sizeof all_ops / sizeof all_ops[0])

/* Each slot's method, for its name in the method table. */
static const sc_method_id method_ids[SC_SM__COUNT] = {
#define SC_X_ID(id) [SC_SM_##id] = SC_M_##id,
    SC_SESSION_METHODS(SC_X_ID)
#undef SC_X_ID
};

const sc_session_ops *sc_session_ops_find(sc_req *r, const char *name, size_t len)
{
    if (!name)
        return all_ops[0];
    for (size_t i = 0; i < NOPS; i++) {
        const char *sem = all_ops[i]->semantics;
        if (strlen(sem) == len && memcmp(sem, name, len) == 0)
            return all_ops[i];
    }
    /* ", oxicuda, cuda" from the one list of semantics */
    char list[128] = "";
    for (size_t i = 0; i < NOPS; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), ", %s", all_ops[i]->semantics);
    sc_rpc_fail(&r->err, SC_RPC_INVALID_PARAMS, "invalid params: 'semantics' must be one of %s",
                list + 2);
    r->err.field = "semantics";
    return NULL;
}

/*
 * The session named by params.session, owned by the caller.  Ownership is
 * checked before any other parameter, and another uid's session answers
 * exactly as a missing one (1001), so a refused call changes nothing and
 * tells nothing.
 */
sc_session *sc_req_session(sc_req *r)
{
    uint64_t id;
    if (sc_param_id(r->params, "session", &id, &r->err) != 0)
        return NULL;
    sc_session *s = sc_sessions_find(&r->d->sessions, id);
    if (!s || !sc_may_access(r->c, s->uid)) {
        sc_req_not_found(r, "session", id);
        return NULL;
    }
    sc_sessions_touch(&r->d->sessions, s, uv_now(r->d->loop));
    sc_sessions_bind(s, r->c);
    return s;
}

/* -32602 (data.field "session"): "method M needs a session opened with
 * semantics S", S the first semantics that has the method. */
static int wrong_semantics(sc_req *r, sc_session_method m)
{
    const char *sem = "";
    for (size_t i = 0; i < NOPS && !*sem; i++)
        if (all_ops[i]->method[m])
            sem = all_ops[i]->semantics;
    sc_req_fail(r, SC_RPC_INVALID_PARAMS, "method %s needs a session opened with semantics %s",
                sc_methods[method_ids[m]].name, sem);
    r->err.field = "session";
    return H_ERROR;
}

int sc_session_call(sc_req *r, sc_session_method m)
{
    sc_session *s = sc_req_session(r);
    if (!s)
        return H_ERROR;
    sc_session_fn *fn = s->ops->method[m];
    if (!fn)
        return wrong_semantics(r, m);
    if (!s->cu)
        return fn(r, s);
    /* A cuda-mode call that fails (or a capture.end, which may fail
     * later) may have invalidated captures; the session outlives every
     * cuda-mode method.  Calls that succeed invalidate nothing, and are
     * not made to scan the captures. */
    uint64_t seq = sc_cuda_call_seq(s->cu);
    int rc = fn(r, s);
    if (rc != H_DONE)
        sc_cuda_emit_invalidations(r->d, s, seq);
    return rc;
}

int sc_req_node_room(sc_req *r, const sc_session *s, uint64_t live)
{
    const sc_daemon *d = r->d;
    const sc_uid_use *u = sc_uids_find(&d->uids, s->uid);
    if (live >= d->cfg.max_session_nodes) {
        sc_rpc_fail(&r->err, SC_RPC_LIMIT, "session node limit reached (%u nodes)",
                    (unsigned)d->cfg.max_session_nodes);
        return -1;
    }
    if (u && u->nodes >= d->cfg.max_uid_nodes) {
        sc_rpc_fail(&r->err, SC_RPC_LIMIT,
                    "live node quota of uid %u reached (%llu nodes in its sessions, "
                    "--max-uid-nodes)",
                    (unsigned)s->uid, (unsigned long long)d->cfg.max_uid_nodes);
        return -1;
    }
    if (d->sessions.live_nodes >= d->cfg.max_live_nodes) {
        sc_rpc_fail(&r->err, SC_RPC_LIMIT,
                    "live node limit of the daemon reached (%llu nodes in all sessions, "
                    "--max-live-nodes)",
                    (unsigned long long)d->cfg.max_live_nodes);
        return -1;
    }
    return 0;
}

uint32_t sc_session_live_nodes(const sc_session *s)
{
    return s->ops->live_nodes(s);
}

void sc_session_end_detached(sc_daemon *d, sc_session *s)
{
    if (s->ops->end_detached)
        s->ops->end_detached(d, s);
}
