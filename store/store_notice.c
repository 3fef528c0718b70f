/*
 * store_notice.c - notices between the daemons sharing one database
 * (sc_store.h): the generic half, over the backend's notices_* (PostgreSQL:
 * store/pg/store_pg_notice.c).  Loop thread only.
 */
#include <stdio.h>

#include "store_int.h"

int sc_store_notices_start(sc_store *st, sc_store_notice_fn fn, void *arg, char *err, size_t errlen)
{
    if (!st || !fn || st->closing)
        return SC_STORE_EINVAL;
    if (st->notices || !st->ops->notices_open)
        return 0; /* listening already, or no one to hear from */
    return st->ops->notices_open(st->path, st->loop, fn, arg, &st->notices, err, errlen);
}

bool sc_store_has_notices(const sc_store *st)
{
    return st && st->notices;
}

int sc_store_notice(sc_store *st, const char *payload, size_t len)
{
    if (!st || !st->notices)
        return SC_STORE_ENOTFOUND;
    if (!payload || len > SC_STORE_NOTICE_MAX)
        return SC_STORE_EINVAL;
    return st->ops->notices_send(st->notices, payload, len);
}

void store_notices_stop(sc_store *st)
{
    if (!st->notices)
        return;
    st->ops->notices_close(st->notices);
    st->notices = NULL;
}
