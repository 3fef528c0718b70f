/* graph_rt_stub.h - what the stub runtime half lets a graph test see. */
#ifndef SC_TEST_GRAPH_RT_STUB_H
#define SC_TEST_GRAPH_RT_STUB_H

#include "abi_graph.h"
#include "rt.h"

/** The stream the stub treats as capturing into sc_stub.capture_graph. */
#define SC_STUB_CAPTURING ((cudaStream_t)0x5c)

typedef struct sc_stub_counts {
    int lock_depth;
    size_t issued, events_reached, capture_adds, submitted;
    cudaGraph_t capture_graph;
    cudaGraph_t last_submitted;
    size_t last_submitted_nodes;
    void *graph_mem; /* the graph half's graph memory pool */
} sc_stub_counts;

extern sc_stub_counts sc_stub;

/** The last error the graph half set, cleared (cudaGetLastError). */
cudaError_t sc_stub_last_error(void);
/* Runtime exports the stub provides for the tests. */
cudaError_t cudaGetLastError(void);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventDestroy(cudaEvent_t event);

/** A host stub with a registered name. */
void sc_stub_kernel(void);

#endif
