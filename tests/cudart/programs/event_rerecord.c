/* event_rerecord, the plain C twin of event_rerecord.cu: one event, recorded again and again,
 * carries every fork and every join of the capture; each wait sees the set of the record before it,
 * not what the stream did afterwards. */
#include "sc_cudart.h"

#include "kernels_c.h"
#include "prog.h"

SC_KERNEL(step);
SC_KERNELS({step, "_Z4stepPfi"})

int main(void)
{
    const int n = 256;
    float *d = NULL;
    SC_OK(cudaMalloc((void **)&d, n * sizeof(float)));
    cudaStream_t s1, s2, s3;
    SC_OK(cudaStreamCreate(&s1));
    SC_OK(cudaStreamCreate(&s2));
    SC_OK(cudaStreamCreate(&s3));
    cudaEvent_t e;
    SC_OK(cudaEventCreate(&e));

    SC_OK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    (void)sc_launch(step, sc_dim3(1, 1, 1), sc_dim3(256, 1, 1), 0, s1,
                    (void *[]){(void *)&d, (void *)&n}); /* node 0 */
    SC_OK(cudaEventRecord(e, s1));                       /* e = {0} */
    SC_OK(cudaStreamWaitEvent(s2, e, 0));
    (void)sc_launch(step, sc_dim3(2, 1, 1), sc_dim3(128, 1, 1), 0, s2,
                    (void *[]){(void *)&d, (void *)&n}); /* node 1 <- 0 */
    SC_OK(cudaEventRecord(e, s2));                       /* e = {1} */
    (void)sc_launch(step, sc_dim3(2, 1, 1), sc_dim3(128, 1, 1), 0, s2,
                    (void *[]){(void *)&d, (void *)&n}); /* node 2 <- 1, after the record */
    SC_OK(cudaStreamWaitEvent(s1, e, 0));
    (void)sc_launch(step, sc_dim3(4, 1, 1), sc_dim3(64, 1, 1), 0, s1,
                    (void *[]){(void *)&d, (void *)&n}); /* node 3 <- 0, 1 */
    SC_OK(cudaEventRecord(e, s1));                       /* e = {3} */
    SC_OK(cudaStreamWaitEvent(s3, e, 0));
    (void)sc_launch(step, sc_dim3(8, 1, 1), sc_dim3(32, 1, 1), 0, s3,
                    (void *[]){(void *)&d, (void *)&n}); /* node 4 <- 3 */
    SC_OK(cudaEventRecord(e, s3));                       /* e = {4} */
    SC_OK(cudaStreamWaitEvent(s1, e, 0));
    SC_OK(cudaEventRecord(e, s2)); /* e = {2} */
    SC_OK(cudaStreamWaitEvent(s1, e, 0));
    (void)sc_launch(step, sc_dim3(1, 1, 1), sc_dim3(32, 1, 1), 0, s1,
                    (void *[]){(void *)&d, (void *)&n}); /* node 5 <- 2, 3, 4 */
    SC_OK(cudaGetLastError());
    cudaGraph_t g = NULL;
    SC_OK(cudaStreamEndCapture(s1, &g));
    size_t nodes = 0, edges = 0;
    SC_OK(cudaGraphGetNodes(g, NULL, &nodes));
    SC_CHECK(nodes == 6);
    SC_OK(cudaGraphGetEdges(g, NULL, NULL, NULL, &edges));
    SC_CHECK(edges == 8);
    SC_OK(cudaGraphDestroy(g));

    /* Outside capture the same event is an ordinary one again. */
    SC_OK(cudaEventRecord(e, s1));
    SC_OK(cudaEventSynchronize(e));
    SC_OK(cudaEventQuery(e));

    SC_OK(cudaEventDestroy(e));
    SC_OK(cudaStreamDestroy(s1));
    SC_OK(cudaStreamDestroy(s2));
    SC_OK(cudaStreamDestroy(s3));
    SC_OK(cudaFree(d));
    return 0;
}
