/*
 * fuzz_stream.c - arbitrary byte streams through framing and dispatch.
 *
 * Each input is written into one client connection of an in-process daemon
 * (a socketpair adopted by the server, the store on a scratch database) in
 * chunks whose sizes come from the input itself, then the write side is
 * shut.  The harness reads every reply until the daemon closes the
 * connection.  A crash, a sanitizer report, or a connection that neither
 * answers nor closes within SC_FUZZ_HANG_MS is a finding.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "sc_daemon.h"
#include "fuzz_stream.h"

#define SC_FUZZ_HANG_MS 10000

struct fuzz_env {
    uv_loop_t loop;
    sc_daemon d;
    char dir[64];
    char db[96];
};

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

fuzz_env *fuzz_env_create(void)
{
    fuzz_env *e = calloc(1, sizeof(*e));
    if (!e)
        abort();
    snprintf(e->dir, sizeof(e->dir), "/tmp/sc-fuzz-XXXXXX");
    if (!mkdtemp(e->dir) || uv_loop_init(&e->loop) != 0)
        abort();
    snprintf(e->db, sizeof(e->db), "%s/fuzz.db", e->dir);
    sc_config cfg;
    sc_config_defaults(&cfg);
    cfg.db_path = e->db;
    cfg.socket_path = "unused";
    cfg.sync_full = false;  /* durability is not what is fuzzed */
    cfg.max_message = 4096; /* so oversize lines are reachable */
    cfg.max_session_nodes = 10000;
    cfg.log_level = SC_LOG_ERROR;
    char err[512];
    if (sc_daemon_init(&e->d, &e->loop, &cfg, err, sizeof(err)) != 0) {
        fprintf(stderr, "fuzz: %s\n", err);
        abort();
    }
    return e;
}

void fuzz_env_destroy(fuzz_env *e)
{
    sc_daemon_destroy(&e->d);
    uv_run(&e->loop, UV_RUN_DEFAULT);
    uv_loop_close(&e->loop);
    unlink(e->db);
    char p[128];
    snprintf(p, sizeof(p), "%s-wal", e->db);
    unlink(p);
    snprintf(p, sizeof(p), "%s-shm", e->db);
    unlink(p);
    rmdir(e->dir);
    free(e);
}

/* Read whatever the daemon wrote; returns false once it closed. */
static bool drain(int fd)
{
    char buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n > 0)
            continue;
        if (n == 0)
            return false;
        return errno == EAGAIN || errno == EINTR;
    }
}

void fuzz_env_run(fuzz_env *e, const uint8_t *data, size_t size)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        abort();
    fcntl(sv[1], F_SETFL, fcntl(sv[1], F_GETFL) | O_NONBLOCK);
    /* Alternate between an owner uid and root, as different clients do. */
    uid_t uid = size % 2 ? 1000 : 0;
    if (sc_server_adopt(&e->d, sv[0], uid, 4242) != 0)
        abort();

    uint32_t rng = 2166136261u;
    for (size_t i = 0; i < size && i < 8; i++)
        rng = (rng ^ data[i]) * 16777619u;
    size_t off = 0;
    bool shut = false, open = true;
    uint64_t start = now_ms();
    while (open) {
        if (off < size) {
            rng = rng * 1103515245u + 12345u;
            size_t chunk = 1 + (rng >> 16) % 512;
            if (chunk > size - off)
                chunk = size - off;
            ssize_t n = write(sv[1], data + off, chunk);
            if (n > 0)
                off += (size_t)n;
        } else if (!shut) {
            shutdown(sv[1], SHUT_WR);
            shut = true;
        }
        uv_run(&e->loop, UV_RUN_NOWAIT);
        open = drain(sv[1]);
        if (open && now_ms() - start > SC_FUZZ_HANG_MS) {
            fprintf(stderr, "fuzz: connection neither answered nor closed in %d ms\n",
                    SC_FUZZ_HANG_MS);
            abort();
        }
        if (open && off == size)
            usleep(50);
    }
    close(sv[1]);
    /* Let the daemon finish with the connection before the next input. */
    while (e->d.nconns > 0 || e->d.inflight > 0)
        uv_run(&e->loop, UV_RUN_NOWAIT);
    uv_run(&e->loop, UV_RUN_NOWAIT);
}
