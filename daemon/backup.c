/*
 * backup.c - store.backup: a consistent copy of the database while the
 * daemon serves (docs/operations.md, "Backup").  The copy itself is the
 * store's (sc_store_backup, on the thread pool); here are who may ask,
 * what the path must be, and the reply.
 */
#include <limits.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_handlers.h"

typedef struct backup_ctx {
    sc_async a;
    char *path;
} backup_ctx;

static void backup_done(void *arg, int rc, uint64_t bytes, const char *errmsg)
{
    backup_ctx *x = arg;
    sc_rpc_error err = {0};
    if (rc == SC_STORE_EEXIST) {
        sc_rpc_fail(
            &err, SC_RPC_INVALID_PARAMS,
            "invalid params: backup target %s exists; pass \"overwrite\": true to replace it",
            x->path);
        err.field = "path";
        sc_async_error(&x->a, &err);
    } else if (rc != 0) {
        sc_log_store_error(x->a.d, rc, errmsg, (uint32_t)x->a.c->uid, x->a.c->pid,
                           "writing a backup to %s", x->path);
        sc_rpc_fail(&err, rc == SC_STORE_ECLOSED ? SC_RPC_SHUTTING_DOWN : SC_RPC_STORAGE,
                    "backup to %s failed: %s", x->path, errmsg ? errmsg : "storage error");
        sc_async_error(&x->a, &err);
    } else {
        sc_log(&x->a.d->log, SC_LOG_INFO, "backup written to %s (%llu bytes) for uid %u pid %d",
               x->path, (unsigned long long)bytes, (unsigned)x->a.c->uid, (int)x->a.c->pid);
        sc_buf *b = sc_async_result_begin(&x->a);
        bool first;
        sc_json_obj_begin(b, &first);
        sc_json_member_cstr(b, &first, "path", x->path);
        sc_json_member_u64(b, &first, "bytes", bytes);
        sc_json_obj_end(b);
        sc_async_result_end(&x->a, b);
    }
    sc_async_done(&x->a);
    free(x->path);
    free(x);
}

/* The path parameter: absolute, no NUL, shorter than PATH_MAX. */
static int backup_path(sc_req *r, const char **path, size_t *len)
{
    if (sc_param_string(r->params, "path", path, len, &r->err) != 0)
        return -1;
    if (*len == 0 || (*path)[0] != '/' || memchr(*path, '\0', *len) || *len >= PATH_MAX) {
        sc_req_fail(r, SC_RPC_INVALID_PARAMS,
                    "invalid params: 'path' must be an absolute file path (the daemon's file "
                    "system, shorter than %d bytes)",
                    PATH_MAX);
        r->err.field = "path";
        return -1;
    }
    return 0;
}

int sc_h_store_backup(sc_req *r)
{
    const char *path;
    size_t len;
    bool overwrite = false;
    if (!sc_may_administer(r->c))
        return sc_req_fail(r, SC_RPC_PERMISSION_DENIED,
                           "permission denied: store.backup is for root or uid %u (the daemon's)",
                           (unsigned)geteuid());
    if (backup_path(r, &path, &len) != 0 ||
        sc_param_opt_bool(r->params, "overwrite", &overwrite, &r->err) != 0)
        return H_ERROR;
    if (!sc_store_can_backup(r->d->store))
        return sc_req_fail(r, SC_RPC_STORAGE,
                           "store.backup copies SQLite databases only: back up a %s store with "
                           "pg_dump (docs/operations.md)",
                           r->d->store ? sc_store_backend_name(r->d->store) : "closed");
    backup_ctx *x = calloc(1, sizeof *x);
    if (!x || sc_req_copy_string(r, path, len, &x->path) != 0) {
        free(x);
        return x ? H_ERROR : sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    }
    int rc = sc_store_backup(r->d->store, x->path, overwrite ? SC_STORE_BACKUP_OVERWRITE : 0,
                             backup_done, x);
    if (rc != 0) {
        free(x->path);
        free(x);
        return rc == SC_STORE_ECLOSED ? sc_req_store_unavailable(r)
                                      : sc_req_fail(r, SC_RPC_INTERNAL_ERROR, "out of memory");
    }
    sc_async_start(&x->a, r);
    return H_ASYNC;
}
