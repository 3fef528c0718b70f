/*
 * fuzz_stream.h - the byte-stream harness shared by the libFuzzer target
 * and the corpus replay that runs in `make test`.
 */
#ifndef SC_FUZZ_STREAM_H
#define SC_FUZZ_STREAM_H

#include <stddef.h>
#include <stdint.h>

typedef struct fuzz_env fuzz_env;

/** An in-process daemon on a scratch database (aborts on failure). */
fuzz_env *fuzz_env_create(void);
void fuzz_env_destroy(fuzz_env *e);
/** Send one input through a fresh connection and wait until it closes. */
void fuzz_env_run(fuzz_env *e, const uint8_t *data, size_t size);

#endif
