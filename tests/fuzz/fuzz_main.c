/*
 * fuzz_main.c - libFuzzer entry point.  The daemon lives for the whole
 * fuzzing run (libFuzzer calls no tear-down), which also lets state built
 * by one input (sessions, stored graphs) be exercised by later ones.
 */
#include "fuzz_stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fuzz_env *env; /* libFuzzer gives no other place to keep it */
    if (!env)
        env = fuzz_env_create();
    fuzz_env_run(env, data, size);
    return 0;
}
