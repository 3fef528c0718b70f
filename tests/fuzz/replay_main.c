/*
 * replay_main.c - replays the checked-in corpus through the fuzz harness in
 * `make test` (no libFuzzer needed): every file in the given directories.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_stream.h"

static int replay_file(fuzz_env *env, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 1 << 16, len = 0, n;
    unsigned char *buf = malloc(cap);
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len < cap)
            continue;
        unsigned char *p = realloc(buf, cap * 2);
        if (!p)
            free(buf);
        buf = p;
        cap *= 2;
    }
    fclose(f);
    if (!buf)
        return -1;
    fuzz_env_run(env, buf, len);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    fuzz_env *env = fuzz_env_create();
    int files = 0, failed = 0;
    for (int i = 1; i < argc; i++) {
        DIR *dir = opendir(argv[i]);
        if (!dir) {
            perror(argv[i]);
            failed++;
            continue;
        }
        struct dirent *de;
        while ((de = readdir(dir))) {
            if (de->d_name[0] == '.')
                continue;
            char path[4096];
            snprintf(path, sizeof(path), "%s/%s", argv[i], de->d_name);
            if (replay_file(env, path) != 0)
                failed++;
            files++;
        }
        closedir(dir);
    }
    fuzz_env_destroy(env);
    printf("fuzz replay: %d inputs replayed, %d unreadable\n", files, failed);
    return failed || files == 0 ? 1 : 0;
}
