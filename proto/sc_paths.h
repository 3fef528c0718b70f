/*
 * sc_paths.h - where the socket and the database live when no option
 * names them: one rule, shared by streamcapd and every client.
 *
 * Socket: $STREAMCAP_SOCKET (or --socket); else
 * $XDG_RUNTIME_DIR/streamcap/streamcap.sock; else
 * /run/streamcap/streamcap.sock for root and /tmp/streamcap-UID/streamcap.sock
 * for everyone else.
 *
 * Database: --db; else $XDG_STATE_HOME/streamcap/streamcap.db; else
 * /var/lib/streamcap/streamcap.db for root and
 * $HOME/.local/state/streamcap/streamcap.db for everyone else.
 *
 * As the XDG base directory specification says, a relative $XDG_* value
 * is ignored.  The rule is a pure function of an sc_path_env, so it can be
 * checked for any uid and environment; sc_path_env_current() fills one in
 * from the calling process.  Nothing here keeps state; every function may
 * be called from any thread.
 */
#ifndef SC_PATHS_H
#define SC_PATHS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SC_PATH_SOCKET_ENV  "STREAMCAP_SOCKET"
#define SC_PATH_SOCKET_NAME "streamcap.sock"
#define SC_PATH_DB_NAME     "streamcap.db"
/* Room for any resolved path (PATH_MAX on Linux). */
#define SC_PATH_MAX 4096

/** What the rule reads.  NULL or "" means unset. */
typedef struct sc_path_env {
    uint32_t uid;
    const char *socket;      /* $STREAMCAP_SOCKET */
    const char *runtime_dir; /* $XDG_RUNTIME_DIR */
    const char *state_home;  /* $XDG_STATE_HOME */
    const char *home;        /* $HOME, else the passwd entry's directory */
} sc_path_env;

/** Where a resolved path came from: it decides how its directory is made. */
typedef enum sc_path_origin {
    SC_PATH_GIVEN = 0, /* named by an option or $STREAMCAP_SOCKET: its directory must exist */
    SC_PATH_USER,      /* for the daemon's uid alone ($XDG_*, ~/.local/state, root's
                          /var/lib/streamcap): missing directories made 0700 */
    SC_PATH_SYSTEM,    /* root's /run/streamcap, which every user's client may need to
                          reach: made 0755 */
    SC_PATH_TMP        /* /tmp/streamcap-UID: made 0700, and must be private to the uid */
} sc_path_origin;

/**
 * Fill `env` from the calling process: getuid(), the environment, and the
 * passwd entry's home directory (copied into `buf`, `len` bytes) when
 * $HOME is unset or empty.  The strings stay valid while the environment
 * and `buf` are unchanged.
 */
void sc_path_env_current(sc_path_env *env, char *buf, size_t len);

/**
 * The socket path for `env` into `out` (`len` bytes, SC_PATH_MAX is
 * enough), and where it came from in *origin (may be NULL).  0, or
 * -ENAMETOOLONG (out is then "").
 */
int sc_path_socket(const sc_path_env *env, char *out, size_t len, sc_path_origin *origin);

/**
 * The database path for `env`, as sc_path_socket.  0, -ENAMETOOLONG, or
 * -ENOENT when the rule needs a home directory and there is none.
 */
int sc_path_db(const sc_path_env *env, char *out, size_t len, sc_path_origin *origin);

/**
 * Make ready the directory that holds `file`, as its `origin` asks:
 * SC_PATH_GIVEN checks that it exists and is a directory; SC_PATH_USER and
 * SC_PATH_SYSTEM create what is missing (0700, respectively 0755 for the
 * last component); SC_PATH_TMP creates it 0700 and refuses it unless it
 * is a real directory (not a link) owned by `uid` that neither group nor
 * others may write: another user could have made it first, to catch our
 * socket.  0, or -1 with the reason in `err` (`errlen` bytes), naming the
 * directory.
 */
int sc_path_prepare_dir(const char *file, sc_path_origin origin, uint32_t uid, char *err,
                        size_t errlen);

/**
 * The directory part of `file` into `out`: "." when it has none, "/" for
 * a file in the root.  0, or -ENAMETOOLONG.
 */
int sc_path_dirname(const char *file, char *out, size_t len);

#ifdef __cplusplus
}
#endif
#endif
