/*
 * errors.c - the daemon's mapping of core and store results onto JSON-RPC
 * errors.
 *
 * Both switches name every code of their source space and have no
 * default, so -Wswitch (an error under -Werror) makes a new core or store
 * code choose its JSON-RPC code here.  The mappings rely on the spaces
 * being disjoint (sc_errors.h), which is checked below.
 */
#include <stdarg.h>
#include <stdio.h>

#include "sc_handlers.h"

_Static_assert(SC_RANGES_DISJOINT(SC_E__MIN, SC_E__MAX, SC_STORE_E__MIN, SC_STORE_E__MAX),
               "core and store error ranges overlap");
/* [lo, hi] meets neither JSON-RPC range. */
#define CLEAR_OF_RPC(lo, hi)                                                                       \
    (SC_RANGES_DISJOINT(lo, hi, SC_RPC_STD__MIN, SC_RPC_STD__MAX) &&                               \
     SC_RANGES_DISJOINT(lo, hi, SC_RPC_APP__MIN, SC_RPC_APP__MAX))
_Static_assert(CLEAR_OF_RPC(SC_E__MIN, SC_E__MAX), "core error range overlaps JSON-RPC codes");
_Static_assert(CLEAR_OF_RPC(SC_STORE_E__MIN, SC_STORE_E__MAX),
               "store error range overlaps JSON-RPC codes");

/* A cuda-mode error: 1009 with CUDA's number, name and text
 * (docs/cuda-semantics.md §2).  The switch names every code so a new one
 * must decide here whether it is a CUDA error on the wire. */
int sc_cuda_rpc_error(sc_rpc_error *err, int rc)
{
    switch ((enum sc_cuda_error)rc) {
    case SC_ECUDA_INVALID_VALUE:
    case SC_ECUDA_ILLEGAL_STATE:
    case SC_ECUDA_UNSUPPORTED:
    case SC_ECUDA_INVALIDATED:
    case SC_ECUDA_MERGE:
    case SC_ECUDA_UNMATCHED:
    case SC_ECUDA_UNJOINED:
    case SC_ECUDA_ISOLATION:
    case SC_ECUDA_IMPLICIT:
    case SC_ECUDA_CAPTURED_EVENT:
    case SC_ECUDA_WRONG_THREAD:
        sc_rpc_fail(err, SC_RPC_CUDA, "%s", sc_cuda_error_string(rc));
        err->cuda_error = sc_cuda_error_number(rc);
        err->cuda_name = sc_cuda_error_name(rc);
        return SC_RPC_CUDA;
    }
    return sc_core_rpc_error(err, rc, 0);
}

/* Map a core error to the protocol's code and its message (docs/semantics.md §8). */
int sc_core_rpc_error(sc_rpc_error *err, int rc, uint32_t stream)
{
    if (sc_cuda_error_number(rc) != 0)
        return sc_cuda_rpc_error(err, rc);
    int code = SC_RPC_INTERNAL_ERROR;
    switch ((enum sc_error)rc) {
    case SC_EALREADY:
    case SC_ENOTCAPTURING:
        code = SC_RPC_CAPTURE_STATE;
        break;
    case SC_EINVALIDATED:
    case SC_EILLEGAL:
    case SC_EPOISONED:
        code = SC_RPC_INVALIDATED;
        break;
    case SC_ELIMIT:
        code = SC_RPC_LIMIT;
        break;
    /* The daemon's own failures (or no error at all): internal. */
    case SC_OK:
    case SC_ENOMEM:
    case SC_EINVAL:
    case SC_ENOTFOUND:
        code = SC_RPC_INTERNAL_ERROR;
        break;
    }
    *err = (sc_rpc_error){.code = code};
    sc_error_message(rc, stream, err->message, sizeof(err->message));
    return code;
}

/* Callers answer SC_STORE_ENOTFOUND themselves where it means a missing
 * session or graph (1001 with data.what); reaching here it is a storage
 * failure like the rest. */
int sc_store_rpc_error(sc_rpc_error *err, int rc, const char *errmsg)
{
    switch ((enum sc_store_rc)rc) {
    case SC_STORE_ECLOSED:
        return sc_rpc_fail(err, SC_RPC_SHUTTING_DOWN, "daemon is shutting down");
    case SC_STORE_ENOMEM:
        return sc_rpc_fail(err, SC_RPC_INTERNAL_ERROR, "out of memory");
    case SC_STORE_OK:
    case SC_STORE_ENOTFOUND:
    case SC_STORE_EIO:
    case SC_STORE_EINVAL:
    case SC_STORE_EBUSY:  /* only parts, which answer no request */
    case SC_STORE_EEXIST: /* store.backup answers it itself */
        break;
    }
    return sc_rpc_fail(err, SC_RPC_STORAGE, "storage error: %s",
                       errmsg ? errmsg : "database failed");
}

void sc_log_store_error(const sc_daemon *d, int rc, const char *errmsg, uint32_t uid, int64_t pid,
                        const char *fmt, ...)
{
    /* A missing row is an answer and a closing store a stop, not failures of
     * the storage an operator has to look at. */
    if ((rc != SC_STORE_EIO && rc != SC_STORE_ENOMEM) || SC_LOG_ERROR > d->log.level)
        return;
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    const char *why = errmsg && *errmsg       ? errmsg
                      : rc == SC_STORE_ENOMEM ? "out of memory"
                                              : "I/O error";
    sc_log(&d->log, SC_LOG_ERROR, "storage error %s (uid %u, pid %lld): %s", what, (unsigned)uid,
           (long long)pid, why);
}
