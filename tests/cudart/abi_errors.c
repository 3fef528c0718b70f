/* abi_errors.c - core/sc_cuda_errors.def against the real runtime's
 * cudaGetErrorName/cudaGetErrorString (they answer without a driver). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef const char *(*sc_err_fn)(int);

int main(int argc, char **argv)
{
    void *h = dlopen(argc > 1 ? argv[1] : "libcudart.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "cannot load %s: %s\n", argc > 1 ? argv[1] : "libcudart.so.13", dlerror());
        return 2;
    }
    sc_err_fn name_fn, string_fn;
    void *a = dlsym(h, "cudaGetErrorName"), *b = dlsym(h, "cudaGetErrorString");
    if (!a || !b)
        return 2;
    memcpy(&name_fn, &a, sizeof a);
    memcpy(&string_fn, &b, sizeof b);
    int bad = 0, n = 0;
#define X(name, number, text)                                                                      \
    n++;                                                                                           \
    if (strcmp(name_fn(number), #name) != 0 || strcmp(string_fn(number), text) != 0) {             \
        printf("%d: ours %s \"%s\", CUDA's %s \"%s\"\n", number, #name, text, name_fn(number),     \
               string_fn(number));                                                                 \
        bad++;                                                                                     \
    }
#include "sc_cuda_errors.def"
#undef X
    printf("%d error codes compared, %d differ\n", n, bad);
    return bad ? 1 : 0;
}
