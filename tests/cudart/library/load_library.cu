/* A program that loads device code at run time (cudaLibraryLoadFromFile and
 * cudaLibraryLoadData, argv[1] a -fatbin, argv[2] a -cubin for the device)
 * and uses its kernels and variables as a program on a GPU would: kernels
 * found by entry name and enumerated, their attributes and parameter
 * layout, a launch in a capture and a kernel node with their own copies of
 * the arguments, and the variables' initial values. */
#include <vector>

#include "../cccl/graph_check.h"

#define SCALE "_Z5scalePfidc4pair"

struct pair {
    int a;
    double b;
};

static std::vector<char> slurp(const char *path)
{
    std::vector<char> b;
    FILE *f = std::fopen(path, "rb");
    if (!f) {
        std::fprintf(stderr, "cannot open %s\n", path);
        std::exit(1);
    }
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
        b.insert(b.end(), buf, buf + n);
    std::fclose(f);
    return b;
}

static void check_kernels(cudaLibrary_t lib)
{
    unsigned int count = 0;
    CK(cudaLibraryGetKernelCount(&count, lib));
    if (count != 2) {
        std::fprintf(stderr, "%u kernels, not 2\n", count);
        std::exit(1);
    }
    cudaKernel_t all[2], k;
    CK(cudaLibraryEnumerateKernels(all, 2, lib));
    CK(cudaLibraryGetKernel(&k, lib, SCALE));
    if (k != all[0] && k != all[1]) {
        std::fprintf(stderr, "GetKernel's handle is not one EnumerateKernels gave\n");
        std::exit(1);
    }
    if (cudaLibraryGetKernel(&k, lib, "scale") != cudaErrorSymbolNotFound) {
        std::fprintf(stderr, "a kernel is found by its unmangled name\n");
        std::exit(1);
    }
    (void)cudaGetLastError();
}

static void check_values(cudaGraphNode_t node, int n)
{
    cudaKernelNodeParams k;
    CK(cudaGraphKernelNodeGetParams(node, &k));
    need_values(k);
    const pair *p = (const pair *)k.kernelParams[4];
    if (*(int *)k.kernelParams[1] != n || *(double *)k.kernelParams[2] != 1.5 || p->a != 4 ||
        p->b != 0.25) {
        std::fprintf(stderr, "kernel node values: n=%d\n", *(int *)k.kernelParams[1]);
        std::exit(1);
    }
}

static void check_launches(cudaLibrary_t lib)
{
    cudaKernel_t k;
    CK(cudaLibraryGetKernel(&k, lib, SCALE));
    const void *f = (const void *)k;
    cudaKernel_t again;
    CK(cudaGetKernel(&again, f));
    const size_t offsets[] = {0, 8, 16, 24, 32}, sizes[] = {8, 4, 8, 1, 16};
    for (size_t i = 0; i < 5; i++) {
        size_t off = 0, size = 0;
        CK(cudaFuncGetParamInfo(f, i, &off, &size));
        if (off != offsets[i] || size != sizes[i]) {
            std::fprintf(stderr, "parameter %zu at %zu, %zu bytes\n", i, off, size);
            std::exit(1);
        }
    }
    CK(cudaKernelSetAttributeForDevice(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 4096, 0));
    cudaFuncAttributes attr;
    CK(cudaFuncGetAttributes(&attr, f));
    if (again != k || attr.maxDynamicSharedSizeBytes != 4096) {
        std::fprintf(stderr, "the handle is not the kernel cudaGetKernel and attributes see\n");
        std::exit(1);
    }

    float *out;
    CK(cudaMalloc(&out, 32 * sizeof(float)));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    int n = 7;
    double d = 1.5;
    char tag = 2;
    pair p = {4, 0.25};
    void *args[] = {&out, &n, &d, &tag, &p};
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CK(cudaLaunchKernel(f, dim3(1), dim3(32), args, 0, s));
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s, &g));
    n = 8;
    cudaKernelNodeParams np = {};
    np.func = (void *)k;
    np.gridDim = dim3(2);
    np.blockDim = dim3(32);
    np.kernelParams = args;
    cudaGraphNode_t added;
    CK(cudaGraphAddKernelNode(&added, g, nullptr, 0, &np));
    n = 9;
    check_graph(g, {{cudaGraphNodeTypeKernel, "scale(float*, int, double, char, pair)"},
                    {cudaGraphNodeTypeKernel, "scale(float*, int, double, char, pair)"}});
    cudaGraphNode_t nodes[2];
    size_t nn = 2;
    CK(cudaGraphGetNodes(g, nodes, &nn));
    check_values(nodes[0], 7);
    check_values(nodes[1], 8);
    cudaGraphExec_t exec;
    CK(cudaGraphInstantiate(&exec, g, 0));
    CK(cudaGraphLaunch(exec, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(g));
    CK(cudaStreamDestroy(s));
    CK(cudaFree(out));
}

static void check_globals(cudaLibrary_t lib)
{
    int *counter;
    size_t bytes = 0;
    CK(cudaLibraryGetGlobal((void **)&counter, &bytes, lib, "counter"));
    int v = 0;
    CK(cudaMemcpy(&v, counter, sizeof v, cudaMemcpyDeviceToHost));
    int *managed;
    CK(cudaLibraryGetManaged((void **)&managed, nullptr, lib, "shared_count"));
    size_t table = 0;
    CK(cudaLibraryGetGlobal(nullptr, &table, lib, "table"));
    if (bytes != sizeof(int) || v != 5 || *managed != 3 || table != 16 * sizeof(float)) {
        std::fprintf(stderr, "variables: %zu bytes = %d, managed %d, table %zu bytes\n", bytes, v,
                     *managed, table);
        std::exit(1);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: load_library FATBIN CUBIN\n");
        return 2;
    }
    cudaLibrary_t lib;
    CK(cudaLibraryLoadFromFile(&lib, argv[1], nullptr, nullptr, 0, nullptr, nullptr, 0));
    check_kernels(lib);
    check_launches(lib);
    check_globals(lib);
    CK(cudaLibraryUnload(lib));

    std::vector<char> cubin = slurp(argv[2]);
    CK(cudaLibraryLoadData(&lib, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    check_kernels(lib);
    check_globals(lib);
    CK(cudaLibraryUnload(lib));
    std::printf("load_library: ok\n");
    return 0;
}
