/*
 * errors.c - the daemon's mapping of core and store results onto JSON-RPC
 * errors.
 */
#include "sc_handlers.h"

/* Map a core error to the protocol's code and the spec's message. */
int sc_core_rpc_error(sc_rpc_error *err, int rc, uint32_t stream)
{
    int code;
    switch (rc) {
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
    default:
        code = SC_RPC_INTERNAL_ERROR;
        break;
    }
    err->code = code;
    err->field = NULL;
    err->what = NULL;
    sc_error_message(rc, stream, err->message, sizeof(err->message));
    return code;
}

int sc_store_rpc_error(sc_rpc_error *err, int rc, const char *errmsg)
{
    if (rc == SC_STORE_ECLOSED)
        return sc_rpc_fail(err, SC_RPC_SHUTTING_DOWN, "daemon is shutting down");
    if (rc == SC_STORE_ENOMEM)
        return sc_rpc_fail(err, SC_RPC_INTERNAL_ERROR, "out of memory");
    return sc_rpc_fail(err, SC_RPC_STORAGE, "storage error: %s",
                       errmsg ? errmsg : "database failed");
}
