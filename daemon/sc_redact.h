/*
 * sc_redact.h - a --db value fit to print: a PostgreSQL connection string
 * may hold a password, which must never reach a log line, a message or a
 * reply.  Every place that shows --db goes through here.
 */
#ifndef SC_REDACT_H
#define SC_REDACT_H

#include <stddef.h>

/*
 * `db` into out (len bytes, always NUL-terminated when len > 0, cut when
 * too long) with every secret of a PostgreSQL connection string replaced
 * by "***":
 *   - postgresql:// and postgres:// URIs: the password of the user info
 *     (postgresql://user:***@host/db; the user info ends at the first '@'
 *     before any '/', as libpq reads it) and the values of the password
 *     and sslpassword query parameters (?password=***);
 *   - postgres:KEY=VALUE ... strings: the values of the password and
 *     sslpassword keywords, quoted ('...' with backslash escapes) or not
 *     (password=***).
 * Anything else (a SQLite path, NULL as "") is copied as it is.  Returns
 * out.
 */
const char *sc_redact_db(const char *db, char *out, size_t len);

#endif
