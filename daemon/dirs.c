/*
 * dirs.c - where the daemon's socket and database go (the rule of
 * proto/sc_paths.h), and making their directories ready before anything
 * is created in them.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sc_daemon.h"
#include "store_backend.h"

/* An option's path is used as given; no option means the shared rule. */
static int resolve(const char *given, bool db, const sc_path_env *env, char *out,
                   sc_path_origin *origin)
{
    if (given) {
        *origin = SC_PATH_GIVEN;
        return snprintf(out, SC_PATH_MAX, "%s", given) < SC_PATH_MAX ? 0 : -1;
    }
    return db ? sc_path_db(env, out, SC_PATH_MAX, origin)
              : sc_path_socket(env, out, SC_PATH_MAX, origin);
}

int sc_daemon_resolve_paths(sc_config *cfg, sc_daemon_paths *p, char *err, size_t errlen)
{
    char home[SC_PATH_MAX];
    sc_path_env env;
    sc_path_env_current(&env, home, sizeof(home));
    sc_path_origin so, dbo;
    if (resolve(cfg->socket_path, false, &env, p->socket, &so) != 0) {
        snprintf(err, errlen, "the socket path is too long");
        return -1;
    }
    if (resolve(cfg->db_path, true, &env, p->db, &dbo) != 0) {
        snprintf(err, errlen, "%s",
                 p->db[0] ? "the database path is too long"
                          : "no home directory to keep the database in: pass --db PATH");
        return -1;
    }
    /* The socket's directory first: a socket that cannot be made must
     * not leave a new empty database behind. */
    char why[SC_PATH_MAX + 256];
    if (sc_path_prepare_dir(p->socket, so, env.uid, why, sizeof(why)) != 0) {
        snprintf(err, errlen, "cannot listen on %s: %s", p->socket, why);
        return -1;
    }
    /* A PostgreSQL URI names a server, no file of ours. */
    if (!sc_store_db_is_postgresql(p->db) &&
        sc_path_prepare_dir(p->db, dbo, env.uid, why, sizeof(why)) != 0) {
        snprintf(err, errlen, "cannot open database %s: %s", p->db, why);
        return -1;
    }
    cfg->socket_path = p->socket;
    cfg->db_path = p->db;
    return 0;
}
