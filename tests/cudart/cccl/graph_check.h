/*
 * graph_check.h - what the CUB, Thrust and kernel-argument programs share:
 * a failing call ends the program with its name, and a captured graph is
 * checked node by node against the node types and kernel names expected,
 * in the order the capture added them.
 */
#ifndef SC_CCCL_GRAPH_CHECK_H
#define SC_CCCL_GRAPH_CHECK_H

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "%s:%d: %s -> %d\n", __FILE__, __LINE__, #x, (int)e_);            \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

/* A kernel node must hold argument values to read. */
static inline void need_values(const cudaKernelNodeParams &k)
{
    if (k.kernelParams == nullptr) {
        std::fprintf(stderr, "the kernel node keeps no argument values\n");
        std::exit(1);
    }
}

/* One expected node: its type, and for kernels a part of its name. */
struct want_node {
    cudaGraphNodeType type;
    const char *kernel;
};

static inline const char *type_name(cudaGraphNodeType t)
{
    switch (t) {
    case cudaGraphNodeTypeKernel:
        return "kernel";
    case cudaGraphNodeTypeMemAlloc:
        return "mem_alloc";
    case cudaGraphNodeTypeMemFree:
        return "mem_free";
    case cudaGraphNodeTypeMemset:
        return "memset";
    case cudaGraphNodeTypeMemcpy:
        return "memcpy";
    default:
        return "other";
    }
}

/* The graph's nodes must be `want`, in order; prints what it has. */
static inline void check_graph(cudaGraph_t g, const std::vector<want_node> &want)
{
    size_t n = 0;
    CK(cudaGraphGetNodes(g, nullptr, &n));
    std::vector<cudaGraphNode_t> nodes(n);
    CK(cudaGraphGetNodes(g, nodes.data(), &n));
    bool ok = n == want.size();
    for (size_t i = 0; i < n; i++) {
        cudaGraphNodeType t;
        CK(cudaGraphNodeGetType(nodes[i], &t));
        const char *name = "";
        if (t == cudaGraphNodeTypeKernel) {
            cudaKernelNodeParams p;
            CK(cudaGraphKernelNodeGetParams(nodes[i], &p));
            CK(cudaFuncGetName(&name, p.func));
        }
        std::fprintf(stderr, "node %zu: %s %s\n", i, type_name(t), name);
        if (i < want.size() &&
            (t != want[i].type || (want[i].kernel && !std::strstr(name, want[i].kernel))))
            ok = false;
    }
    if (!ok) {
        std::fprintf(stderr, "graph differs: %zu nodes, %zu expected\n", n, want.size());
        std::exit(1);
    }
}

#endif
